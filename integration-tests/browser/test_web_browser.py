"""`tuios web` in a real Chromium (Debian's chromium + chromium-driver, driven by Selenium).

Signs in with the printed URL, attaches to a session from the list, types a command and sees
its output on the page, resizes the window and sees the program get SIGWINCH, pastes a hostile
string that must not run, and measures keystroke latency (key event to echo in the page's
terminal buffer).

Needs TUIOS_BIN (the tuios binary under test); chromium and chromedriver on PATH. A missing
one fails the test: it is never skipped.

TUIOS_WEB_SCREENSHOT=FILE saves a screenshot of the attached page (docs/src/web.png).
TUIOS_WEB_LATENCY=FILE writes the latency figures as JSON.
"""

import json
import os
import random
import re
import shutil
import signal
import socket
import string
import subprocess
import tempfile
import threading
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

DEADLINE = 30.0
KEYS_MEASURED = 200


def need(program):
    path = shutil.which(program)
    if not path:
        pytest.fail(
            f"{program} is not installed: apt-get install chromium chromium-driver "
            "(the browser test never skips)"
        )
    return path


def wait_until(what, probe, timeout=DEADLINE):
    """Poll `probe` until it returns a true value or the deadline passes."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = probe()
        if last:
            return last
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}; last: {last!r}")
        time.sleep(0.02)  # one poll step; the deadline bounds the loop


class Env:
    """A private tuios: socket, HOME and state in a temporary directory."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="tuios-web-")
        os.chmod(self.tmp, 0o700)
        for sub in ("home", "state", "config"):
            os.makedirs(os.path.join(self.tmp, sub))
        self.socket = os.path.join(self.tmp, "tuios.sock")
        self.bin = os.environ.get("TUIOS_BIN") or pytest.fail("set TUIOS_BIN to the tuios binary")
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("TUIOS_", "XDG_")) and k != "ENV"}
        env.update(
            TUIOS_SOCKET=self.socket,
            HOME=os.path.join(self.tmp, "home"),
            XDG_STATE_HOME=os.path.join(self.tmp, "state"),
            XDG_CONFIG_HOME=os.path.join(self.tmp, "config"),
            SHELL="/bin/sh",
            TERM="xterm-256color",
            TUIOS_LOG="warn",
        )
        self.env = env
        self.procs = []

    def run(self, *args, check=True):
        out = subprocess.run([self.bin, *args], env=self.env, capture_output=True, text=True,
                             timeout=DEADLINE, stdin=subprocess.DEVNULL)
        if check and out.returncode != 0:
            raise AssertionError(f"tuios {' '.join(args)} failed: {out.stderr}")
        return out

    def spawn(self, *args, **kw):
        p = subprocess.Popen([self.bin, *args], env=self.env, stdin=subprocess.DEVNULL, **kw)
        self.procs.append(p)
        return p

    def close(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


@pytest.fixture
def tuios():
    env = Env()
    try:
        daemon_log = open(os.path.join(env.tmp, "daemon.log"), "w")
        env.spawn("daemon", stdout=subprocess.DEVNULL, stderr=daemon_log)

        def daemon_up():
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect(env.socket)
                return True
            except OSError:
                return False
            finally:
                s.close()

        wait_until("the daemon's socket", daemon_up)
        yield env
    finally:
        env.close()


def start_web(env):
    """`tuios web --port 0`; returns the sign-in URL it prints."""
    web = env.spawn("web", "--port", "0", stdout=subprocess.PIPE,
                    stderr=open(os.path.join(env.tmp, "web.log"), "w"), text=True)
    lines = []

    def read():
        for line in web.stdout:
            lines.append(line.strip())

    threading.Thread(target=read, daemon=True).start()
    return wait_until("the sign-in URL", lambda: next((l for l in lines if "?token=" in l), None))


@pytest.fixture
def browser():
    chromium = need("chromium")
    driver_path = need("chromedriver")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--window-size=1000,700", "--enable-unsafe-swiftshader",
                "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    os.environ.setdefault("SE_OFFLINE", "true")
    driver = webdriver.Chrome(options=opts, service=Service(executable_path=driver_path))
    try:
        yield driver
    finally:
        driver.quit()


def screen(driver):
    """The page's terminal buffer, as text lines."""
    return driver.execute_script("""
        const t = window.tuios && window.tuios.term;
        if (!t) return '';
        const b = t.buffer.active, out = [];
        for (let y = 0; y < t.rows; y++) {
            const l = b.getLine(b.viewportY + y);
            out.push(l ? l.translateToString(true) : '');
        }
        return out.join('\\n');
    """)


def wait_screen(driver, what, pred, timeout=DEADLINE):
    """Poll the page's terminal until `pred` accepts its text; fails with the last screen and
    the page's status line."""
    seen = [""]

    def probe():
        seen[0] = screen(driver)
        return seen[0] if pred(seen[0]) else None

    try:
        return wait_until(what, probe, timeout)
    except AssertionError:
        status = driver.execute_script("return document.getElementById('status').textContent")
        raise AssertionError(f"timed out waiting for {what}; status {status!r}; "
                             f"screen:\n{seen[0]}") from None


def type_text(driver, text):
    ActionChains(driver).send_keys(text).perform()


def test_attach_type_resize_paste_and_latency(tuios, browser):
    tuios.run("new", "-d", "webtest")
    url = start_web(tuios)
    driver = browser

    # Signing in: the token URL redirects to the app and leaves a cookie.
    driver.get(url)
    wait_until("the session list", lambda: driver.find_elements(
        By.CSS_SELECTOR, "button[data-session='webtest']"))
    assert "token=" not in driver.current_url, "the token stays out of the address bar"
    driver.find_element(By.CSS_SELECTOR, "button[data-session='webtest']").click()
    wait_until("the terminal", lambda: driver.execute_script(
        "return !!(window.tuios.term && window.tuios.socket && window.tuios.socket.readyState === 1)"))
    wait_screen(driver, "the window and the dock", lambda s: "╭─" in s and "webtest" in s)
    driver.find_element(By.CSS_SELECTOR, "#terminal").click()

    # Typing: the command runs and its output shows on the page.
    type_text(driver, "echo br-$((6*7))\n")
    wait_screen(driver, "the command's output", lambda s: "br-42" in s)

    if os.environ.get("TUIOS_WEB_SCREENSHOT"):
        type_text(driver, "for s in fetch build test; do echo \"step $s: ok\"; done\n")
        wait_screen(driver, "the loop's output", lambda s: "step test: ok" in s)
        driver.save_screenshot(os.environ["TUIOS_WEB_SCREENSHOT"])

    # Resizing: the page's terminal follows the window, the program gets SIGWINCH.
    # A program of its own in the foreground: SIGWINCH goes to the foreground process group.
    script = os.path.join(tuios.tmp, "winch.sh")
    with open(script, "w") as f:
        f.write("trap 'echo winch-$(stty size | tr \" \" x)' WINCH\n"
                "echo size-$(stty size | tr ' ' x)\n"
                "while :; do sleep 0.2; done\n")
    type_text(driver, f"sh {script}\n")
    before = wait_screen(driver, "the size before", lambda s: re.search(r"size-\d+x\d+", s))
    size_before = re.search(r"size-(\d+x\d+)", before).group(1)
    cols_before = driver.execute_script("return window.tuios.term.cols")
    driver.set_window_size(1300, 900)
    wait_until("the terminal to grow", lambda: driver.execute_script(
        "return window.tuios.term.cols") > cols_before)
    after = wait_screen(driver, "the trap to report SIGWINCH",
                        lambda s: re.search(r"winch-\d+x\d+", s))
    sizes = re.findall(r"winch-(\d+x\d+)", after)
    assert sizes and sizes[-1] != size_before, f"SIGWINCH with a new size: {sizes} vs {size_before}"
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("c").key_up(Keys.CONTROL).perform()
    type_text(driver, "echo trap-$((2+3))\n")
    wait_screen(driver, "the loop to stop", lambda s: "trap-5" in s)

    # A hostile paste: an embedded end-of-paste marker and newlines. It must not run.
    marker = os.path.join(tuios.tmp, "pwned")
    hostile = f"echo harmless\x1b[201~\ntouch {marker}\n"
    driver.execute_script("""
        const dt = new DataTransfer();
        dt.setData('text/plain', arguments[0]);
        const ta = document.querySelector('#terminal textarea');
        ta.dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true}));
    """, hostile)
    wait_screen(driver, "the held-paste confirmation", lambda s: "held paste" in s)
    assert not os.path.exists(marker), "the held paste ran"
    ActionChains(driver).send_keys(Keys.ESCAPE).perform()
    wait_screen(driver, "the confirmation to go", lambda s: "held paste" not in s)
    # Whatever the paste would have run would have run before this.
    type_text(driver, "echo after-$((40+2))\n")
    wait_screen(driver, "the command after the paste", lambda s: "after-42" in s)
    assert not os.path.exists(marker), "the hostile paste ran"

    measure_latency(driver)

    # Back to the list, and a new session from the page.
    back = driver.find_element(By.ID, "back")
    assert back.is_displayed(), driver.execute_script(
        "return document.getElementById('status').textContent + ' | ' + (window.tuios.ended || '')")
    back.click()
    wait_until("the session list again", lambda: driver.find_elements(
        By.CSS_SELECTOR, "button[data-session='webtest']"))
    driver.find_element(By.ID, "new-name").send_keys("fromweb")
    driver.find_element(By.CSS_SELECTOR, "#new-form button").click()
    wait_screen(driver, "the new session's dock", lambda s: "fromweb" in s and "╭─" in s)
    assert "fromweb" in tuios.run("ls").stdout


ECHO_STATE = """
    const l = window.__lat, t = window.tuios.term, b = t.buffer.active;
    if (l.pending === null && l.expect === null) return true;
    const line = b.getLine(b.baseY + b.cursorY);
    return JSON.stringify({pending: l.pending, expect: l.expect, x: b.cursorX, y: b.cursorY,
                           line: line ? line.translateToString(false) : null});
"""


def wait_echo(driver):
    last = [None]

    def echoed():
        r = driver.execute_script(ECHO_STATE)
        last[0] = r
        return r is True

    try:
        wait_until("the echo of a key", echoed)
    except AssertionError:
        raise AssertionError(f"no echo of a key seen; last state {last[0]}") from None


def measure_latency(driver):
    """Key event (keydown in the page) to its echo in the page's terminal buffer, through the
    WebSocket, the attach client, the daemon, the PTY and back: `cat` echoes what is typed."""
    type_text(driver, "cat\n")
    driver.execute_script("""
        const t = window.tuios.term;
        const lat = window.__lat = { pending: null, samples: [] };
        const ta = document.querySelector('#terminal textarea');
        ta.addEventListener('keydown', (e) => {
            if (lat.expect && e.key.length === 1) lat.pending = { t: performance.now(), expect: lat.expect };
        }, true);
        t.onWriteParsed(() => {
            const p = lat.pending;
            if (!p) return;
            const b = t.buffer.active;
            const line = b.getLine(b.baseY + b.cursorY);
            const text = line ? line.translateToString(false) : '';
            if (text.slice(0, b.cursorX).endsWith(p.expect)) {
                lat.samples.push(performance.now() - p.t);
                lat.pending = null;
                lat.expect = null;
            }
        });
    """)
    rng = random.Random(7)
    typed = 0
    while typed < KEYS_MEASURED:
        segment = "".join(rng.choice(string.ascii_lowercase) for _ in range(20))
        for i, ch in enumerate(segment):
            driver.execute_script("window.__lat.expect = arguments[0]", segment[: i + 1])
            type_text(driver, ch)
            wait_echo(driver)
            typed += 1
        type_text(driver, "\n")
        # cat prints the line back; a key typed before that would land in front of it.
        wait_screen(driver, "cat to print the line", lambda s, seg=segment: s.count(seg) >= 2)
    raw = driver.execute_script("return window.__lat.samples")
    samples = sorted(raw)
    assert len(samples) >= KEYS_MEASURED
    p50 = samples[len(samples) // 2]
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    result = {"keys": len(samples), "p50_ms": round(p50, 2), "p99_ms": round(p99, 2),
              "max_ms": round(samples[-1], 2), "samples_ms": [round(x, 1) for x in raw]}
    summary = {k: v for k, v in result.items() if k != "samples_ms"}
    print(f"\nkeystroke latency through the browser: {json.dumps(summary)}")
    if os.environ.get("TUIOS_WEB_LATENCY"):
        with open(os.environ["TUIOS_WEB_LATENCY"], "w") as f:
            json.dump(result, f)
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("d").key_up(Keys.CONTROL).perform()
