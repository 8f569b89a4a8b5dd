#!/usr/bin/env python3
"""Robustness figures for the daemon (issue 12): peak RSS under hostile clients and programs,
control-verb latency while windows flood, and flood throughput with 1, 2 and 4 windows.

    python3 bench/stress.py [path/to/tuios]

Starts a private daemon on a temporary socket, runs each scenario, prints a markdown table.
Every scenario is bounded in time and only talks to the local socket.
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "target", "release", "tuios")


def status_kb(pid, field):
    """A memory figure of /proc/PID/status, in KiB (VmRSS now, VmHWM the peak so far)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def rss_kb(pid):
    return status_kb(pid, "VmRSS")


class Conn:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.f = self.s.makefile("rb")
        self.n = 0

    def call(self, verb, **params):
        self.n += 1
        self.s.sendall((json.dumps({"id": self.n, "verb": verb, "params": params}) + "\n").encode())
        return json.loads(self.f.readline())

    def close(self):
        self.s.close()


class Daemon:
    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="tuios-stress-")
        os.chmod(self.dir, 0o700)
        self.sock = os.path.join(self.dir, "s.sock")
        # Its own state directory: never restore or save the user's sessions.
        env = dict(os.environ, TUIOS_AGENT_AUTODETECT="0", XDG_STATE_HOME=self.dir)
        self.p = subprocess.Popen([BIN, "daemon", "--socket", self.sock], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while not os.path.exists(self.sock):
            if time.time() > deadline:
                raise SystemExit("daemon did not start")
            time.sleep(0.01)
        self.session = "stress"
        subprocess.run([BIN, "new", "-d", self.session], env=dict(env, TUIOS_SOCKET=self.sock),
                       check=True, stdout=subprocess.DEVNULL)

    def conn(self):
        return Conn(self.sock)

    def window(self, conn, command=None):
        params = {"session": self.session}
        if command:
            params["command"] = command
        return conn.call("new-window", **params)["result"]["window_id"]

    def stop(self):
        self.p.terminate()
        self.p.wait(15)


def hwm_kb(pid):
    return status_kb(pid, "VmHWM")


def watch_peak(pid, seconds):
    """Peak resident memory over the scenario: the kernel's high-water mark, which also catches
    spikes between samples."""
    end = time.time() + seconds
    while time.time() < end:
        time.sleep(0.1)
    return hwm_kb(pid)


def pipelined_behind_wait(d):
    """A client blocks on wait-for, then pipelines requests without reading any answer."""
    c = d.conn()
    s = c.s
    s.sendall(json.dumps({"id": 0, "verb": "wait-for", "params": {
        "session": d.session, "condition": "window-output", "pattern": "NEVER-APPEARS", "timeout": 60000}}).encode() + b"\n")
    line = (json.dumps({"id": 1, "verb": "list-sessions", "params": {}}) + "\n").encode() * 1000
    s.setblocking(False)
    stop = time.time() + 8
    sent = 0

    def blast():
        nonlocal sent
        while time.time() < stop:
            try:
                sent += s.send(line)
            except BlockingIOError:
                time.sleep(0.001)
            except OSError:
                return
    t = threading.Thread(target=blast)
    t.start()
    peak = watch_peak(d.p.pid, 8)
    t.join()
    c.close()
    return peak, f"{sent / 1e6:.1f} MB accepted by the socket in 8 s"


def subscriber_never_reads(d):
    """A subscriber with a huge queue never reads while a window toggles modes and titles."""
    c = d.conn()
    r = c.call("subscribe", queue=1_000_000_000)
    w = d.window(d.conn(), ["/bin/sh", "-c",
                            "i=0; while :; do i=$((i+1)); "
                            "printf '\\033[?2004h\\033[?2004l\\033]2;t%s\\007\\033[?1h\\033[?1l' $i; done"])
    peak = watch_peak(d.p.pid, 15)
    c.close()
    return peak, f"queue granted: {r['result']['queue']}; window {w[:8]}"


def title_storm_with_stopped_client(d):
    """An attached client (tuios attach in a PTY) is SIGSTOPped while a window retitles and
    prints malformed Lumen frames in a loop."""
    import pty
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TUIOS_SOCKET"] = d.sock
        os.environ["TERM"] = "xterm-256color"
        os.execv(BIN, [BIN, "attach", d.session])
    time.sleep(1.0)
    os.kill(pid, 19)  # SIGSTOP: the client's terminal is suspended
    d.window(d.conn(), ["/bin/sh", "-c",
                        "i=0; while :; do i=$((i+1)); "
                        "printf '\\033]2;title-%s\\007\\033_lumen;not-a-frame\\033\\\\' $i; done"])
    peak = watch_peak(d.p.pid, 15)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    os.close(fd)
    return peak, "client stopped for 15 s"


def mp(v):
    """Just enough MessagePack for the attach protocol's client messages."""
    if v is None:
        return b"\xc0"
    if v is True or v is False:
        return b"\xc3" if v else b"\xc2"
    if isinstance(v, int):
        return b"\xcd" + v.to_bytes(2, "big") if v > 127 else bytes([v])
    if isinstance(v, str):
        b = v.encode()
        return (bytes([0xa0 | len(b)]) if len(b) < 32 else b"\xd9" + bytes([len(b)])) + b
    if isinstance(v, list):
        return bytes([0x90 | len(v)]) + b"".join(mp(x) for x in v)
    if isinstance(v, dict):
        return bytes([0x80 | len(v)]) + b"".join(mp(k) + mp(x) for k, x in v.items())
    raise TypeError(v)


def frame(kind, payload):
    body = bytes([kind]) + mp(payload)
    return len(body).to_bytes(4, "big") + body


class Seat:
    """An attached client on the binary protocol that counts the screen updates it receives."""

    def __init__(self, sock, session, window):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(sock)
        self.s.sendall(frame(1, {"version": 1, "client_version": "stress"}))
        self.s.sendall(frame(6, {"op": "attach", "session": session, "create": False,
                                 "width": 100, "height": 30, "max_fps": 60}))
        self.s.sendall(frame(6, {"op": "view", "windows": [window]}))
        self.screens = 0
        self.stop = False
        self.t = threading.Thread(target=self.read, daemon=True)
        self.t.start()

    def read(self):
        buf = b""
        while not self.stop:
            chunk = self.s.recv(1 << 16)
            if not chunk:
                return
            buf += chunk
            while len(buf) >= 4:
                n = int.from_bytes(buf[:4], "big")
                if len(buf) < 4 + n:
                    break
                body, buf = buf[4:4 + n], buf[4 + n:]
                if body[0] == 69 and b"\xa2op\xa6screen" in body[:16]:
                    self.screens += 1

    def rate(self, seconds):
        start = self.screens
        time.sleep(seconds)
        return (self.screens - start) / seconds

    def close(self):
        self.stop = True
        self.s.close()


def stopped_client_costs_others_nothing(d):
    """Screen updates per second reaching one attached client while a busy loop prints, with
    and without a second client of the session SIGSTOPped (a real `tuios attach`)."""
    import pty
    c = d.conn()
    w = d.window(c, ["/bin/sh", "-c", "i=0; while :; do i=$((i+1)); echo \"line $i\"; done"])
    seat = Seat(d.sock, d.session, w)
    time.sleep(1.0)
    alone = seat.rate(5)
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TUIOS_SOCKET"] = d.sock
        os.environ["TERM"] = "xterm-256color"
        os.execv(BIN, [BIN, "attach", d.session])
    time.sleep(1.0)
    with_reading = seat.rate(5)
    os.kill(pid, 19)
    time.sleep(2.0)  # let the stopped client's socket fill
    with_stopped = seat.rate(5)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    os.close(fd)
    seat.close()
    return alone, with_reading, with_stopped


FLOOD = "head -c {n} /dev/zero | tr '\\0' 'x' | fold -w 79; echo"


def list_sessions_while_flooding(d):
    c = d.conn()
    for _ in range(4):
        d.window(c, ["/bin/sh", "-c", "yes 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx \033[31mred\033[0m' | head -c 400000000"])
    lat = []
    end = time.time() + 10
    while time.time() < end:
        t = time.perf_counter()
        c.call("list-sessions")
        lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    return lat[len(lat) // 2], lat[int(len(lat) * 0.99)], len(lat)


def many_waiting_clients(d, n=1000, windows=10):
    """n connections each blocked in wait-for (window-output), spread over `windows` windows:
    the daemon's growth while it holds them, list-sessions latency meanwhile, and how many are
    answered once their pattern is printed."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < n + 64:
        raise SystemExit(f"need a hard RLIMIT_NOFILE of at least {n + 64} (it is {hard})")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    c = d.conn()
    ids = [d.window(c) for _ in range(windows)]
    base = rss_kb(d.p.pid)
    waits = []
    for i in range(n):
        w = Conn(d.sock)
        w.s.sendall((json.dumps({"id": i, "verb": "wait-for", "params": {
            "session": d.session, "window": ids[i % windows], "condition": "window-output",
            "pattern": f"served-{i % windows}", "timeout": 300000}}) + "\n").encode())
        waits.append(w)
    deadline = time.time() + 60
    while c.call("session-info", session=d.session)["result"]["waiters"] < n:
        if time.time() > deadline:
            raise SystemExit("the waits were not all registered within 60 s")
        time.sleep(0.05)
    held = rss_kb(d.p.pid)
    lat = []
    end = time.time() + 10
    while time.time() < end:
        t = time.perf_counter()
        c.call("list-sessions")
        lat.append((time.perf_counter() - t) * 1000)
    lat.sort()
    for k, w in enumerate(ids):
        c.call("send-text", session=d.session, window=w, text=f"printf 'served-%s\\n' {k}\n")
    served = 0
    for w in waits:
        w.s.settimeout(60)
        if "result" in json.loads(w.f.readline()):
            served += 1
        w.close()
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return (held - base) / 1024, lat[len(lat) // 2], lat[int(len(lat) * 0.99)], len(lat), served


def throughput(d, windows, mib=64):
    c = d.conn()
    cmd = ["/bin/sh", "-c", f"yes 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx \033[32mgreen\033[0m' | head -c {mib << 20}"]
    t = time.perf_counter()
    ids = [c.call("new-window", session=d.session, command=cmd, remain=True)["result"]["window_id"]
           for _ in range(windows)]
    for w in ids:
        r = c.call("wait-for", session=d.session, window=w, condition="window-exit", timeout=300000)
        assert "result" in r, r
    dt = time.perf_counter() - t
    for w in ids:
        c.call("close-window", session=d.session, window=w)
    return windows * mib / dt


def print_many_waiting(d):
    grew, p50, p99, calls, served = many_waiting_clients(d)
    print(f"\n1,000 connections each blocked in wait-for over 10 windows: daemon grew {grew:.1f} MiB; "
          f"list-sessions meanwhile p50 {p50:.2f} ms, p99 {p99:.2f} ms ({calls} calls in 10 s); "
          f"{served} of 1000 answered")


def main():
    only = os.environ.get("STRESS_ONLY")
    if only == "attach":
        d = Daemon()
        try:
            alone, reading, stopped = stopped_client_costs_others_nothing(d)
            print(f"screen updates/s: {alone:.1f} alone, {reading:.1f} with a second client reading, "
                  f"{stopped:.1f} with it SIGSTOPped ({100 * stopped / reading:.0f}%)")
        finally:
            d.stop()
        return
    if only == "connections":
        d = Daemon()
        try:
            print_many_waiting(d)
        finally:
            d.stop()
        return
    rows = []
    for name, fn in [("pipelined requests behind a blocking wait-for (8 s)", pipelined_behind_wait),
                     ("subscriber that never reads, mode/title storm (15 s)", subscriber_never_reads),
                     ("title + failed-frame storm, attached client SIGSTOPped (15 s)", title_storm_with_stopped_client)]:
        d = Daemon()
        try:
            base = rss_kb(d.p.pid)
            peak, note = fn(d)
            rows.append(f"| {name} | {base / 1024:.1f} MiB | {peak / 1024:.1f} MiB | {note} |")
        finally:
            d.stop()
    print("| scenario | RSS before | peak RSS | note |\n|---|---|---|---|")
    print("\n".join(rows))
    d = Daemon()
    try:
        alone, reading, stopped = stopped_client_costs_others_nothing(d)
        print(f"\nscreen updates/s to an attached client under a busy loop: {alone:.1f} alone, "
              f"{reading:.1f} with a second client (tuios attach) reading, {stopped:.1f} with it "
              f"SIGSTOPped ({100 * stopped / reading:.0f}% of reading)")
    finally:
        d.stop()
    d = Daemon()
    try:
        p50, p99, n = list_sessions_while_flooding(d)
        print(f"\nlist-sessions while 4 windows flood: p50 {p50:.2f} ms, p99 {p99:.2f} ms ({n} calls in 10 s)")
    finally:
        d.stop()
    d = Daemon()
    try:
        print_many_waiting(d)
    finally:
        d.stop()
    d = Daemon()
    try:
        one = throughput(d, 1)
        two = throughput(d, 2)
        four = throughput(d, 4)
        print(f"aggregate flood throughput (64 MiB per window): 1 window {one:.1f} MiB/s, "
              f"2 windows {two:.1f} MiB/s ({two / one:.2f}x), 4 windows {four:.1f} MiB/s ({four / one:.2f}x)")
    finally:
        d.stop()


if __name__ == "__main__":
    main()
