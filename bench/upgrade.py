#!/usr/bin/env python3
"""How long a live upgrade takes: `tuios upgrade` with N windows, each holding L lines of
scrollback and a program still printing. Reports the time from the request until the new
daemon answers (what `tuios upgrade` waits for) and the daemon's own figures from its log.

    python3 bench/upgrade.py target/release/tuios [--windows 50] [--lines 2000] [--rounds 5]
"""
import argparse
import os
import re
import subprocess
import tempfile
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tuios")
    ap.add_argument("--windows", type=int, default=50)
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    tuios = os.path.abspath(a.tuios)
    with tempfile.TemporaryDirectory(prefix="tuios-upg-", dir="/tmp") as d:
        os.chmod(d, 0o700)
        env = dict(os.environ, TUIOS_SOCKET=f"{d}/s.sock", XDG_STATE_HOME=f"{d}/state",
                   SHELL="/bin/sh", HOME=d)
        log = open(f"{d}/daemon.log", "w")
        daemon = subprocess.Popen([tuios, "daemon", "--log-level", "info"], env=env,
                                  stderr=log, stdout=subprocess.DEVNULL)
        run = lambda *args: subprocess.run([tuios, *args], env=env, check=True,
                                           capture_output=True, text=True).stdout
        deadline = time.time() + 20
        while not os.path.exists(f"{d}/s.sock"):
            if time.time() > deadline:
                raise SystemExit("the daemon did not start")
            time.sleep(0.02)
        run("new", "-d", "bench")
        prog = f"seq 1 {a.lines}; i=0; while :; do i=$((i+1)); echo n=$i; sleep 1; done"
        for i in range(a.windows - 1):
            run("new-window", "-s", "bench", f"w{i}", "--", "sh", "-c", prog)
        run("send-text", "-s", "bench", "-w", "0", f"seq 1 {a.lines}\n")
        for i in range(a.windows - 1):
            run("wait-for", "-s", "bench", "-w", f"w{i}", "window-output", "--pattern",
                f"(?m)^{a.lines}$", "--source", "recent", "--timeout", "60000")
        times = []
        for _ in range(a.rounds):
            t = time.monotonic()
            run("upgrade")
            times.append((time.monotonic() - t) * 1000)
        listed = run("list-windows", "-s", "bench")
        daemon.terminate()
        daemon.wait(30)
        text = open(f"{d}/daemon.log").read()
        prepared = [int(m) for m in re.findall(r"prepared_ms=(\d+)", text)]
        sizes = [int(m) for m in re.findall(r"bytes=(\d+)", text)]
        windows = len([l for l in listed.splitlines()[1:] if l.strip()])
        # From the exec to the last session taken over: the new daemon's part.
        stamp = lambda line: time.mktime(time.strptime(line[:19], "%Y-%m-%dT%H:%M:%S")) + \
            float("0." + line[20:26])
        adopt, start = [], None
        for line in text.splitlines():
            if "executing the new binary" in line:
                start = stamp(line)
            elif "taken over from the previous daemon" in line and start is not None:
                adopt.append(round((stamp(line) - start) * 1000))
                start = None
        print(f"{windows} windows, {a.lines} lines of scrollback each, {a.rounds} upgrades")
        print(f"  tuios upgrade, request to new daemon answering: "
              f"median {sorted(times)[len(times) // 2]:.0f} ms, all {[round(t) for t in times]}")
        print(f"  old daemon, freeze + export: {prepared} ms; state handed over: "
              f"{[round(s / 1e6, 1) for s in sizes]} MB")
        print(f"  new daemon, exec to every window taken over: {adopt} ms")


if __name__ == "__main__":
    main()
