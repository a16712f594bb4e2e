# SPDX-License-Identifier: MIT
"""test_page.py - the page at GET / in a real browser (headless Chromium).

One Chromium, driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: no network, no websocket), loads the page from a
mintidd on spare loopback ports and, for an ID of every format (minted with
`mintid gen`), types it into the page and checks what it shows against
`mintid inspect`: the guess (one format, or the same candidates), the UTC
time, every field, and the SVG bar (its fields' widths sum to the format's
bits, each value is the ID's bits). Then the /?id= link, the mint button,
a phone's width, the Content-Security-Policy and the other headers,
against a server with auth-file the prompt for the secret (a wrong one,
a 429, a secret beyond ASCII), and, in Chromiums started with TZ=UTC,
TZ=GMT and TZ=Asia/Tokyo, the time in UTC alone or beside the browser's
zone's. The page must
log no CSP violation and no console error. A screenshot of each format's
result is written to --out (FORMAT.png).

Exit status 77 (skipped) if chromium is not installed.

Usage: python3 test_page.py --mintidd PATH --mintid PATH --out DIR [--chromium PATH]
"""

import argparse
import base64
import fcntl
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server  # noqa: E402

MINTIDD = MINTID = CHROMIUM = OUT = None
SECRET = "page-s3cret"
UTF8_SECRET = "pässwörd-€"  # a secret is bytes: the page must send this one's UTF-8
WAIT_S = 15  # the longest any one step may take; a step that takes longer is a failure


class Browser:
    """Chromium with the DevTools protocol on fds 3 (commands in) and 4 (answers out), NUL-delimited JSON."""

    def __init__(self, binary, tmp, env=None):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        args = [binary, "--headless", "--remote-debugging-pipe", f"--user-data-dir={tmp}", "--disable-gpu",
                "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-default-apps",
                "--lang=en-US", "--window-size=1000,1200", "about:blank"]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium's sandbox refuses to run as root

        def fds():
            # Out of the way first: either end may itself be fd 3 or 4. dup2's copies are inherited.
            a = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 10)
            b = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.log = open(os.path.join(tmp, "chromium.log"), "wb")
        # close_fds=False passes only inheritable descriptors: 0-2 and the two made above.
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                     close_fds=False, preexec_fn=fds, env=env)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next = 0
        self._answers = {}
        self._cv = threading.Condition()
        self.events = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.session = None

    def _read(self):
        buf = b""
        while True:
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                msg, buf = buf.split(b"\0", 1)
                doc = json.loads(msg)
                if "id" in doc:
                    with self._cv:
                        self._answers[doc["id"]] = doc
                        self._cv.notify_all()
                else:
                    self.events.put(doc)
        with self._cv:
            self._answers[None] = "closed"
            self._cv.notify_all()

    def send(self, method, params=None, session=True):
        return self.send_all([(method, params)], session)[-1]

    def send_all(self, commands, session=True):
        """Sends (method, params) commands at once, in order; their results once all are answered."""
        ids, data = [], b""
        for method, params in commands:
            self._next += 1
            ids.append((self._next, method))
            msg = {"id": self._next, "method": method, "params": params or {}}
            if session and self.session:
                msg["sessionId"] = self.session
            data += json.dumps(msg).encode() + b"\0"
        os.write(self._to_browser, data)
        deadline = time.monotonic() + WAIT_S
        results = []
        with self._cv:
            for mid, method in ids:
                while mid not in self._answers:
                    left = deadline - time.monotonic()
                    assert None not in self._answers, f"chromium went away during {method}"
                    assert left > 0, f"chromium did not answer {method} within {WAIT_S} s"
                    self._cv.wait(left)
                doc = self._answers.pop(mid)
                assert "error" not in doc, f"{method}: {doc['error']}"
                results.append(doc["result"])
        return results

    def attach(self):
        deadline = time.monotonic() + WAIT_S
        while True:
            pages = [t for t in self.send("Target.getTargets", session=False)["targetInfos"] if t["type"] == "page"]
            if pages:
                break
            assert time.monotonic() < deadline, f"chromium opened no page within {WAIT_S} s"
            time.sleep(0.05)
        page = pages[0]
        self.session = self.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                                 session=False)["sessionId"]

    def eval(self, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        assert "exceptionDetails" not in r, f"{expression}: {r['exceptionDetails']}"
        return r["result"].get("value")

    def wait_for(self, expression, what):
        """The value of expression once it is truthy, polled; a failure after WAIT_S seconds."""
        deadline = time.monotonic() + WAIT_S
        while True:
            v = self.eval(expression)
            if v:
                return v
            assert time.monotonic() < deadline, f"waited {WAIT_S} s for {what}: {expression}"
            time.sleep(0.02)

    def goto(self, url):
        self.send("Page.navigate", {"url": url})
        self.wait_for("document.readyState === 'complete' && location.href", f"{url} to load")

    def click(self, selector):
        box = self.eval(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView();"
                        f" const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()")
        self.send_all([("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1], "button": "left",
                                                     "clickCount": 1}) for kind in ("mousePressed", "mouseReleased")])

    def type(self, text):
        keys = []
        for ch in text:
            keys += [("Input.dispatchKeyEvent", {"type": "keyDown", "key": ch, "text": ch, "unmodifiedText": ch}),
                     ("Input.dispatchKeyEvent", {"type": "keyUp", "key": ch})]
        self.send_all(keys)

    def enter(self):
        key = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13}
        self.send_all([("Input.dispatchKeyEvent", dict(key, type="keyDown", text="\r")),
                       ("Input.dispatchKeyEvent", dict(key, type="keyUp"))])

    def tab(self):
        key = {"key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9}
        self.send_all([("Input.dispatchKeyEvent", dict(key, type="keyDown")),
                       ("Input.dispatchKeyEvent", dict(key, type="keyUp"))])

    def screenshot(self, selector, path):
        r = self.eval(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView();"
                      " const r = e.getBoundingClientRect();"
                      " return [r.x + scrollX, r.y + scrollY, r.width, Math.min(r.height, innerHeight)]; })()")
        shot = self.send("Page.captureScreenshot", {"format": "png", "clip": {
            "x": r[0], "y": r[1], "width": r[2], "height": r[3], "scale": 1}})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))

    def drain(self):
        """The events so far."""
        out = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except AssertionError:
            pass
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        self.log.close()


def problems(events, allow_401=False):
    """Console errors and warnings, exceptions and log entries of level error or warning, as text
    (with allow_401, not the network's note of a 401 or 429)."""
    out = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.exceptionThrown":
            out.append(f"exception: {p['exceptionDetails']}")
        elif m == "Runtime.consoleAPICalled" and p["type"] in ("error", "warning", "assert"):
            out.append(f"console.{p['type']}: {[a.get('value') for a in p['args']]}")
        elif m == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
            entry = p["entry"]
            if allow_401 and entry.get("source") == "network" and re.search(r"\b(401|429)\b", entry["text"]):
                continue
            out.append(f"log ({entry.get('source')}): {entry['text']}")
    return out


def mintid(*args):
    return subprocess.run([MINTID, *args], capture_output=True, text=True, timeout=30)


class Page(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="mintid-page-")
        profile = os.path.join(cls.tmp.name, "profile")
        os.mkdir(profile)
        cls.b = Browser(CHROMIUM, profile)  # starts while the servers do
        cls.srv = cls.auth = None
        try:
            cls.start()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def start(cls):
        cls.srv = Server(MINTIDD, args=["--node", "100"]).start()
        secrets = os.path.join(cls.tmp.name, "secrets")
        with open(secrets, "w", encoding="utf-8") as f:
            f.write(SECRET + "\n" + UTF8_SECRET + "\n")
        os.chmod(secrets, 0o600)
        cls.auth = Server(MINTIDD, args=["--node", "100", "--auth-file", secrets]).start()
        cls.base = f"http://127.0.0.1:{cls.srv.http_port}"
        with urllib.request.urlopen(cls.base + "/v1/formats", timeout=10) as r:
            cls.formats = json.load(r)
        cls.b.attach()
        for domain in ("Page", "Runtime", "Log"):
            cls.b.send(f"{domain}.enable")
        # Every violation of the page's CSP, as the page itself sees it.
        cls.b.send("Page.addScriptToEvaluateOnNewDocument", {"source": (
            "window.__csp = []; document.addEventListener('securitypolicyviolation',"
            " e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));")})
        # A zone that is not UTC, so the local time is another text than the UTC one.
        cls.b.send("Emulation.setTimezoneOverride", {"timezoneId": "America/New_York"})
        os.makedirs(OUT, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        cls.b.close()
        failed = []
        for srv in (cls.srv, cls.auth):
            if srv is None:
                continue
            status, log = srv.stop()
            srv.__exit__(None, None, None)
            if status != 0:
                failed.append(f"exit status {status}\n{log}")
        cls.tmp.cleanup()
        assert not failed, "\n".join(failed)

    def fmt(self, name):
        return next(f for f in self.formats if f["name"] == name)

    def check_clean(self, allow_401=False):
        self.assertEqual(self.b.eval("window.__csp"), [], "CSP violations")
        self.assertEqual(problems(self.b.drain(), allow_401), [], "the page logged errors")

    def look_up(self, text, fmt=""):
        """Types text into the ID field, with the format select at fmt, and presses Enter."""
        b = self.b
        b.eval(f"document.getElementById('format').value = {json.dumps(fmt)};"
               "document.getElementById('id').value = ''; document.getElementById('result').dataset.id = ''")
        b.click("#id")
        self.assertEqual(b.eval("document.activeElement.id"), "id")
        b.type(text)
        b.enter()
        b.wait_for(f"document.getElementById('result').dataset.id === {json.dumps(text)} &&"
                   " (document.getElementById('status').textContent.startsWith('Showing')"
                   " || document.getElementById('status').textContent.startsWith('This text'))", f"'{text}' shown")

    def check_shown(self, name, text):
        """The page shows text as an ID of format name, as `mintid inspect --format name` reads it."""
        b = self.b
        want = json.loads(mintid("inspect", "--format", name, "--", text).stdout)
        got = b.eval("({format: document.getElementById('result').dataset.format,"
                     " rows: [...document.querySelectorAll('#fields tbody tr')].map(r =>"
                     "   [r.querySelector('th').textContent, r.querySelector('td').textContent]),"
                     " utc: document.getElementById('out-utc').textContent,"
                     " local: document.getElementById('out-local').textContent,"
                     " zone: document.getElementById('out-zone').textContent,"
                     " ago: document.getElementById('out-ago').textContent,"
                     " bar: [...document.querySelectorAll('#layout rect.field')].map(r =>"
                     "   [r.dataset.name, +r.dataset.bits, +r.dataset.offset, r.dataset.value,"
                     "    +r.getAttribute('x'), +r.getAttribute('width')]),"
                     " svg: +document.querySelector('#layout svg').getAttribute('width'),"
                     " search: location.search})")
        self.assertEqual(got["format"], name)
        self.assertEqual(got["rows"], [[k, str(v)] for k, v in want.items()], "the fields shown")
        self.assertEqual(got["utc"], want["time"])
        self.assertEqual(got["zone"], "America/New_York")
        self.assertIn("." + want["time"][20:23], got["local"], "the local time, to the millisecond")
        self.assertNotIn(want["time"][11:16], got["local"], "the local time is not UTC's")
        self.assertRegex(got["ago"], r"ago|now")
        # The bar: the format's fields (views apart) side by side, their widths summing to its bits.
        fmt = self.fmt(name)
        packed = [f for f in fmt["fields"] if f["role"] != "view"]
        self.assertEqual([(n, w, o) for n, w, o, *_ in got["bar"]],
                         [(f["name"], f["bits"], f["offset"]) for f in packed])
        self.assertEqual(sum(w for _, w, *_ in got["bar"]), fmt["bits"])
        self.assertAlmostEqual(sum(g[5] for g in got["bar"]), got["svg"] - 2, delta=0.5)
        value = int(want["hex"], 16)
        for n, w, o, v, *_ in got["bar"]:
            bits = (value >> (fmt["bits"] - o - w)) & ((1 << w) - 1)
            self.assertEqual(v, str(bits) if w <= 53 else f"0x{bits:0{(w + 3) // 4}x}", n)
            if isinstance(want.get(n), int):
                self.assertEqual(v, str(want[n]), f"{n}: the bar and inspect")
        return got

    # ---- the tests, in order (unittest sorts them by name) --------------------

    def test_1_headers(self):
        for base in (self.base, f"http://127.0.0.1:{self.auth.http_port}"):
            with urllib.request.urlopen(base + "/", timeout=10) as r:
                self.assertEqual(r.status, 200)
                h = r.headers
                self.assertEqual(h["Content-Type"], "text/html; charset=utf-8")
                csp = [d.strip() for d in h["Content-Security-Policy"].split(";")]
                for d in ("default-src 'none'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"):
                    self.assertIn(d, csp)
                self.assertRegex(h["Content-Security-Policy"], r"script-src 'sha256-[A-Za-z0-9+/]{43}='")
                self.assertRegex(h["Content-Security-Policy"], r"style-src 'sha256-[A-Za-z0-9+/]{43}='")
                self.assertEqual(h["X-Content-Type-Options"], "nosniff")
                self.assertEqual(h["X-Frame-Options"], "DENY")
                self.assertEqual(h["Referrer-Policy"], "no-referrer")
                body = r.read().decode()
                markup = re.sub(r"<(script|style)>.*?</\1>", "", body, flags=re.S)
                self.assertNotRegex(markup, r"<[a-zA-Z][^>]*\son[a-z]+\s*=", "no inline handlers")
                self.assertEqual(body.count("<script"), 1)
                self.assertNotRegex(body, r"(src|href)=\"?https?:", "no external assets")
        with self.assertRaises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(f"http://127.0.0.1:{self.auth.http_port}/v1/formats", timeout=10)
        self.assertEqual(e.exception.code, 401)

    def test_2_every_format(self):
        b = self.b
        b.goto(self.base + "/")
        b.wait_for("document.body.dataset.ready", "the formats")
        # Each format's layout, as /v1/formats gives it.
        listed = b.eval("[...document.querySelectorAll('#format-list svg')].map(s => [s.dataset.format,"
                        " [...s.querySelectorAll('rect.field')].reduce((n, r) => n + +r.dataset.bits, 0)])")
        self.assertEqual(listed, [[f["name"], f["bits"]] for f in self.formats])
        # Each lifespan's times as `mintid formats` writes them (past 9999 too: +10889-...).
        spans = b.eval("[...document.querySelectorAll('#format-list .help')].map(e => e.textContent)")
        cli = re.findall(r"epoch: (\S+) .*runs out (\S+)", mintid("formats").stdout)
        self.assertEqual([re.search(r"from (\S+) until (\S+) ", t).groups() for t in spans], cli)
        for f in self.formats:
            name = f["name"]
            with self.subTest(format=name):
                gen = ["gen", name, "--local"] + (["--node", "3"] if name == "ulid-flake-scalable" else [])
                text = mintid(*gen).stdout.strip()
                self.assertTrue(text, gen)
                self.look_up(text)
                cli = mintid("inspect", "--", text)
                candidates = b.eval("[...document.querySelectorAll('#candidate-list button')]"
                                    ".map(e => e.dataset.format)")
                if cli.returncode == 0:
                    self.assertEqual(json.loads(cli.stdout)["format"], name, "mintid inspect's guess")
                    self.assertEqual(b.eval("document.getElementById('candidates').hidden"), True)
                    self.assertEqual(b.eval("location.search"), "?" + urllib.parse.urlencode({"id": text}))
                else:
                    # The same candidates as mintid inspect names.
                    self.assertIn("is ambiguous: it could be", cli.stderr)
                    named = re.split(r", | or ", cli.stderr.split("it could be ")[1].split(";")[0])
                    self.assertEqual(candidates, named)
                    self.assertIn(name, candidates)
                    b.click(f"#candidate-list button[data-format='{name}']")
                    b.wait_for(f"document.getElementById('result').dataset.format === '{name}'", f"{name} chosen")
                    # The button is gone with the list: the focus goes on to the result, not back to the top.
                    b.wait_for("document.activeElement.id === 'result-title'", "the focus on the result")
                    self.assertEqual(b.eval("location.search"),
                                     "?" + urllib.parse.urlencode({"id": text, "format": name}))
                self.check_shown(name, text)
                b.screenshot("#result", os.path.join(OUT, f"{name}.png"))
        self.check_clean()

    def test_3_link_and_mint(self):
        b = self.b
        # A link carries the ID (and the format, when it was chosen).
        for name in ("scru160", "snowflake"):
            text = mintid("gen", name, "--local").stdout.strip()
            q = {"id": text} if name == "scru160" else {"id": text, "format": name}
            b.goto(self.base + "/?" + urllib.parse.urlencode(q))
            b.wait_for(f"document.getElementById('result').dataset.format === '{name}'", f"the link to {text}")
            self.check_shown(name, text)
        # The mint button mints one of the chosen format.
        b.eval("document.getElementById('format').value = 'nanoflake';"
               "document.getElementById('format').dispatchEvent(new Event('change'))")
        self.assertEqual(b.eval("document.getElementById('mint').textContent"), "Mint a new nanoflake ID")
        before = b.eval("document.getElementById('result').dataset.id")
        # With the keyboard alone: from the ID field, Tab to the button, Enter.
        b.click("#id")
        focus = []
        for _ in range(3):
            b.tab()
            focus.append(b.eval("document.activeElement.id"))
        self.assertEqual(focus, ["format", "show", "mint"])
        b.enter()
        text = b.wait_for(f"document.getElementById('result').dataset.format === 'nanoflake' &&"
                          f" document.getElementById('result').dataset.id !== {json.dumps(before)} &&"
                          " document.getElementById('result').dataset.id", "a minted ID")
        self.assertEqual(b.eval("document.getElementById('id').value"), text)
        self.check_shown("nanoflake", text)
        # A format this server does not serve (node 100 is too wide for it) cannot be minted.
        b.eval("document.getElementById('format').value = 'ulid-flake-scalable';"
               "document.getElementById('format').dispatchEvent(new Event('change'))")
        self.assertTrue(b.eval("document.getElementById('mint').disabled"))
        self.check_clean()

    def test_4_auth(self):
        b = self.b
        base = f"http://127.0.0.1:{self.auth.http_port}"
        b.goto(base + "/")
        b.wait_for("!document.getElementById('auth').hidden && document.activeElement.id === 'secret'",
                   "the prompt for the secret")
        b.type("wrong")
        b.enter()
        b.wait_for("document.getElementById('auth-error').textContent.includes('refused')", "the refusal")
        # Too many wrong secrets (429): the prompt stays, with the server's reason.
        b.send("Fetch.enable", {"patterns": [{"urlPattern": "*/v1/formats"}]})
        b.click("#secret")
        b.type("wrong again")
        b.enter()
        deadline, kept = time.monotonic() + WAIT_S, []
        while True:  # queue.Empty after WAIT_S: the page asked nothing
            e = b.events.get(timeout=max(0.01, deadline - time.monotonic()))
            if e.get("method") == "Fetch.requestPaused":
                break
            kept.append(e)
        for k in kept:
            b.events.put(k)
        too_many = json.dumps({"error": "too many wrong secrets on this connection; try again in 250 ms"}).encode()
        b.send("Fetch.fulfillRequest", {"requestId": e["params"]["requestId"], "responseCode": 429,
                                        "responseHeaders": [{"name": "Content-Type", "value": "application/json"}],
                                        "body": base64.b64encode(too_many).decode()})
        b.send("Fetch.disable")
        b.wait_for("!document.getElementById('auth').hidden &&"
                   " document.getElementById('auth-error').textContent.includes('try again in 250 ms')", "the 429")
        b.click("#secret")
        b.type(UTF8_SECRET)
        b.enter()
        b.wait_for("document.body.dataset.ready", "the formats, with the secret")
        self.assertTrue(b.eval("document.getElementById('auth').hidden"))
        self.assertEqual(b.eval("sessionStorage.getItem('mintid-secret')"), UTF8_SECRET)
        text = mintid("gen", "scru160", "--local").stdout.strip()
        self.look_up(text)
        self.check_shown("scru160", text)
        href = urllib.parse.unquote(b.eval("location.href"))
        self.assertNotIn(UTF8_SECRET, href)
        self.assertNotIn(SECRET, href)
        self.check_clean(allow_401=True)

    def test_5_phone(self):
        # A phone's width: nothing wider than the screen.
        b = self.b
        b.send("Emulation.setDeviceMetricsOverride", {"width": 360, "height": 740, "deviceScaleFactor": 1,
                                                      "mobile": True})
        text = mintid("gen", "snowflake", "--local").stdout.strip()
        b.goto(self.base + "/?" + urllib.parse.urlencode({"id": text, "format": "snowflake"}))
        b.wait_for("document.getElementById('result').dataset.format === 'snowflake'", "the link to {text}")
        wide = b.eval("[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 360.5)"
                      ".map(e => e.tagName + '#' + e.id + ' ' + e.getBoundingClientRect().right)")
        self.assertEqual(wide, [], "wider than 360 px")
        self.assertLessEqual(b.eval("document.documentElement.scrollWidth"), 360)
        b.screenshot("#result", os.path.join(OUT, "phone.png"))
        b.send("Emulation.clearDeviceMetricsOverride")
        self.check_clean()

    def test_6_zone_of_the_browser(self):
        # The zone Chromium takes from TZ: in UTC, by whichever name (Chromium calls TZ=GMT's zone "+00:00",
        # not UTC), the page shows one time, UTC's, and no second row that repeats it; in another zone, both.
        text = mintid("gen", "uuidv7", "--local").stdout.strip()
        want = json.loads(mintid("inspect", "--format", "uuidv7", text).stdout)
        tokyo = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(want["unix_ms"] // 1000 + 9 * 3600))
        for tz, rows in (("UTC", ["Format", "Time (UTC)", "Age"]), ("GMT", ["Format", "Time (UTC)", "Age"]),
                         ("Asia/Tokyo", ["Format", "Time (UTC)", "Time (Asia/Tokyo)", "Age"])):
            with self.subTest(TZ=tz):
                profile = tempfile.mkdtemp(dir=self.tmp.name)
                b = Browser(CHROMIUM, profile, env=dict(os.environ, TZ=tz))
                try:
                    b.attach()
                    for domain in ("Page", "Runtime", "Log"):
                        b.send(f"{domain}.enable")
                    b.goto(self.base + "/?" + urllib.parse.urlencode({"id": text}))
                    b.wait_for("document.getElementById('result').dataset.format === 'uuidv7'", f"the link to {text}")
                    shown = b.eval("[...document.querySelectorAll('#times dt')].filter(e => e.getClientRects().length)"
                                   ".map(e => [e.textContent, e.nextElementSibling.textContent])")
                    self.assertEqual([t for t, _ in shown], rows)
                    self.assertEqual(shown[1][1], want["time"])
                    if len(rows) == 4:
                        # The date and time in Tokyo, in the browser's en-US words: MM/DD/YYYY, HH:MM:SS.mmm GMT+9.
                        self.assertRegex(shown[2][1], r"^\d\d/\d\d/\d{4}, \d\d:\d\d:\d\d\.\d{3} GMT\+9$")
                        month, day, year, clock = re.match(r"(\d\d)/(\d\d)/(\d{4}), (\S+)\.", shown[2][1]).groups()
                        self.assertEqual(f"{year}-{month}-{day} {clock}", tokyo)
                    self.assertEqual(problems(b.drain()), [], "the page logged errors")
                finally:
                    b.close()


def main():
    global MINTIDD, MINTID, CHROMIUM, OUT
    ap = argparse.ArgumentParser()
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("--mintid", required=True)
    ap.add_argument("--out", required=True, help="directory for the screenshots")
    ap.add_argument("--chromium", default=shutil.which("chromium"))
    args, rest = ap.parse_known_args()
    if args.chromium is None:
        print("test_page: SKIPPED: chromium is not installed (make deps installs it)")
        sys.exit(77)
    MINTIDD, MINTID, CHROMIUM, OUT = (os.path.abspath(args.mintidd), os.path.abspath(args.mintid), args.chromium,
                                      os.path.abspath(args.out))
    unittest.main(argv=[sys.argv[0], "-v"] + rest)


if __name__ == "__main__":
    main()
