#!/usr/bin/env python3
"""History without an end (issue 36): one window printing 10,000,000 lines of 30-80 bytes.

    python3 bench/history.py [path/to/tuios] [lines]

For a window keeping every line (`appearance.scrollback_lines` 10,000,000, the default 8 MiB
`history_bytes` in memory, the rest on disk) and for a window with the default history (10,000
lines), each in a daemon of its own: the daemon's RSS growth (after the flood, and its peak),
the time from starting the program to its last line being in the emulator, and for the long
history the time `search` takes for a pattern found only on the oldest line. Prints a markdown
table. The lines are written to a file first, so the program printing them (`cat`) costs little.
"""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "target", "release", "tuios")
LINES = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000_000
RUNS = int(os.environ.get("HISTORY_RUNS", "2"))
OLDEST = "oldest-only-marker-q7"
WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota",
         "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau"]


def write_lines(path):
    """LINES lines of 30-80 bytes (newline excluded): a number, then words cut from a fixed
    pseudo-random text (so the blocks pack like real output, not like padding); the first line
    carries the marker."""
    import random
    rng = random.Random(36)
    text = " ".join(rng.choice(WORDS) + str(rng.randrange(1000)) for _ in range(200_000))
    span = len(text) - 100
    with open(path, "w") as f:
        chunk = []
        for i in range(LINES):
            n = 30 + (i * 7919) % 51
            head = f"{OLDEST} {i} " if i == 0 else f"{i:08d} "
            start = (i * 104729) % span
            chunk.append((head + text[start:start + n])[:n])
            if len(chunk) == 100_000:
                f.write("\n".join(chunk) + "\n")
                chunk = []
        if chunk:
            f.write("\n".join(chunk) + "\n")
    return os.path.getsize(path)


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class Conn:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.f = self.s.makefile("rb")
        self.n = 0

    def call(self, verb, **params):
        self.n += 1
        self.s.sendall((json.dumps({"id": self.n, "verb": verb, "params": params}) + "\n").encode())
        while True:
            r = json.loads(self.f.readline())
            if r.get("id") == self.n:
                if "error" in r:
                    raise SystemExit(f"{verb}: {r['error']}")
                return r["result"]


class Daemon:
    def __init__(self, base):
        self.dir = tempfile.mkdtemp(prefix="d-", dir=base)
        os.chmod(self.dir, 0o700)
        self.sock = os.path.join(self.dir, "s.sock")
        env = dict(os.environ, TUIOS_AGENT_AUTODETECT="0", XDG_STATE_HOME=self.dir)
        self.env = env
        self.p = subprocess.Popen([BIN, "daemon", "--socket", self.sock], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while not os.path.exists(self.sock):
            if time.time() > deadline:
                raise SystemExit("daemon did not start")
            time.sleep(0.01)
        subprocess.run([BIN, "new", "-d", "h"], env=dict(env, TUIOS_SOCKET=self.sock),
                       check=True, stdout=subprocess.DEVNULL)
        self.c = Conn(self.sock)

    def stop(self):
        self.p.terminate()
        self.p.wait(30)


def flood(base, path, options):
    """One daemon, one window printing the file; returns the figures."""
    d = Daemon(base)
    try:
        for key, value in options.items():
            d.c.call("set-option", session="h", key=key, value=value)
        before = status_kb(d.p.pid, "VmRSS")
        start = time.perf_counter()
        w = d.c.call("new-window", session="h", focus=False, remain=True,
                     command=["sh", "-c", f"cat {path}; echo END-$((6*7))"])["window_id"]
        d.c.call("wait-for", session="h", window=w, condition="window-output",
                 pattern="END-42", source="visible", timeout=600_000)
        elapsed = time.perf_counter() - start
        # Let the periodic packing run, then read the settled figure.
        time.sleep(3)
        after = status_kb(d.p.pid, "VmRSS")
        peak = status_kb(d.p.pid, "VmHWM")
        out = {"seconds": elapsed, "growth_mib": (after - before) / 1024,
               "peak_mib": (peak - before) / 1024}
        hist = os.path.join(d.dir, "tuios", "history")
        out["disk_mib"] = sum(os.stat(os.path.join(hist, f)).st_blocks * 512
                              for f in os.listdir(hist)) / 2**20 if os.path.isdir(hist) else 0
        if options:
            t = time.perf_counter()
            r = d.c.call("search", session="h", window=w, pattern=OLDEST)
            out["search_newest"] = time.perf_counter() - t
            out["search_hit"] = r["matches"][0]["line"] if r["matches"] else None
            t = time.perf_counter()
            d.c.call("search", session="h", window=w, pattern=OLDEST, order="oldest", limit=1)
            out["search_oldest"] = time.perf_counter() - t
            t = time.perf_counter()
            r = d.c.call("capture-pane", session="h", window=w, source="recent",
                         start=LINES // 2, end=LINES // 2 + 99)
            out["range_ms"] = (time.perf_counter() - t) * 1000
        return out
    finally:
        d.stop()


def tmux_flood(base, path):
    """The same file in a tmux pane keeping every line (history-limit = LINES): time until the
    program's end is signalled, the server's RSS growth, and the tmux way to search the whole
    history (capture-pane of it, then a regex over the text)."""
    import re
    if not shutil.which("tmux"):
        return None
    server = f"tuios-history-{os.getpid()}"
    tmux = ["tmux", "-L", server, "-f", "/dev/null"]
    env = dict(os.environ, TMUX="")
    try:
        subprocess.run(tmux + ["new-session", "-d", "-x", "80", "-y", "24", "sh"], check=True, env=env)
        subprocess.run(tmux + ["set-option", "-g", "history-limit", str(max(LINES, 2000))], check=True, env=env)
        pid = int(subprocess.run(tmux + ["display-message", "-p", "#{pid}"], check=True, env=env,
                                 capture_output=True, text=True).stdout)
        before = status_kb(pid, "VmRSS")
        start = time.perf_counter()
        subprocess.run(tmux + ["new-window", "-d", f"cat {path}; tmux -L {server} wait-for -S done; sleep 100000"],
                       check=True, env=env)
        subprocess.run(tmux + ["wait-for", "done"], check=True, env=env)
        elapsed = time.perf_counter() - start
        time.sleep(3)
        out = {"seconds": elapsed, "growth_mib": (status_kb(pid, "VmRSS") - before) / 1024,
               "peak_mib": (status_kb(pid, "VmHWM") - before) / 1024}
        t = time.perf_counter()
        text = subprocess.run(tmux + ["capture-pane", "-p", "-t", ":1", "-S", "-", "-E", "-"],
                              check=True, env=env, capture_output=True, text=True).stdout
        found = [n for n, line in enumerate(text.split("\n")) if re.search(OLDEST, line)]
        out["search_newest"] = time.perf_counter() - t
        out["search_hit"] = found[0] if found else None
        return out
    finally:
        subprocess.run(tmux + ["kill-server"], env=env, capture_output=True)


def main():
    base = tempfile.mkdtemp(prefix="tuios-history-bench-")
    try:
        path = os.path.join(base, "lines.txt")
        size = write_lines(path)
        print(f"{LINES} lines, {size / 1e6:.0f} MB; {RUNS} runs each; "
              f"load average {os.getloadavg()[0]:.2f}", file=sys.stderr)
        long_history = {"appearance.scrollback_lines": str(max(LINES, 100))}
        runs = {"default history (10,000 lines)": [], "every line kept (8 MiB memory + disk)": []}
        for _ in range(RUNS):
            runs["default history (10,000 lines)"].append(flood(base, path, {}))
            runs["every line kept (8 MiB memory + disk)"].append(flood(base, path, long_history))
        if os.environ.get("HISTORY_TMUX", "1") == "1":
            t = tmux_flood(base, path)
            if t:
                runs["tmux, history-limit = every line (capture-pane -S - and a regex)"] = [t]
        print("| window | throughput, median | RSS growth after | RSS peak growth | disk | search, pattern only on the oldest line | search oldest-first | capture-pane 100 lines mid-history |")
        print("|---|---|---|---|---|---|---|---|")
        for name, rs in runs.items():
            secs = statistics.median(r["seconds"] for r in rs)
            row = [name, f"{secs:.2f} s ({size / secs / 1e6:.1f} MB/s)",
                   f"{max(r['growth_mib'] for r in rs):.1f} MiB",
                   f"{max(r['peak_mib'] for r in rs):.1f} MiB",
                   f"{max(r.get('disk_mib', 0) for r in rs):.0f} MiB"]
            if "search_newest" in rs[0]:
                row += [f"{statistics.median(r['search_newest'] for r in rs):.2f} s (line {rs[0]['search_hit']})"]
                row += [f"{statistics.median(r[k] for r in rs) * m:.1f} ms" if k in rs[0] else "-"
                        for k, m in (("search_oldest", 1000), ("range_ms", 1))]
            else:
                row += ["-", "-", "-"]
            print("| " + " | ".join(row) + " |")
        print(f"\nload average at the end: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
