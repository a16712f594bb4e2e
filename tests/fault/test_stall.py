# SPDX-License-Identifier: MIT
"""test_stall.py - clients that try to stall the server or make it spin: a
stderr nobody reads under a flood of refused connections, the descriptor
limit below max-connections, secrets guessed across many connections and
addresses, connections that fill max-connections and trickle bytes, and the
503 refusal read by curl, and a process stopped while it holds a format's
host-wide lock (a worker, a `mintid gen` suspended as Ctrl-Z would). Throughout,
a client that already has a connection must be answered within LIVE_WITHIN
seconds.

Usage: python3 test_stall.py --mintidd PATH --mintid PATH [--sanitized] [--long]
"""

import fcntl
import http.client
import json
import os
import re
import resource
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faults import OPT, FaultCase, Mintidd, Resp, RespError, main, metric_value, mint_http, scale, wait_for  # noqa: E402
from harness import children  # noqa: E402
from harness import http_raw  # noqa: E402

LIVE_WITHIN = 2.0  # seconds a held connection may wait for PING or /healthz while the fault runs
SECRET = "correct horse battery staple"


def metrics_on(conn):
    """GET /metrics on a kept-alive http.client connection (a new one may be
    refused while the server is at a limit)."""
    conn.request("GET", "/metrics")
    r = conn.getresponse()
    body = r.read().decode()
    if r.status != 200:
        raise AssertionError(f"GET /metrics: {r.status} {body[:200]}")
    return body


def labelled(metrics_text, name, labels):
    m = re.search(rf"^{re.escape(name)}\{{{re.escape(labels)}\}} (\S+)$", metrics_text, re.M)
    return float(m.group(1)) if m else None


NEW_METRICS = ["mintid_log_lines_dropped_total", "mintid_log_lines_held_back_total", "mintid_accept_errors_total",
               "mintid_accept_shed_total", "mintid_request_timeouts_total", "mintid_connections_shed_at_cap_total",
               "mintid_auth_limited_total"]


def check_exposition(tc, text):
    """Prometheus text format 0.0.4, as far as the new metrics need it: every
    sample belongs to a family declared once with HELP and then TYPE, before
    its samples, and its value is a number."""
    declared, current = {}, None
    for line in text.splitlines():
        m = re.fullmatch(r"# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)", line)
        if m:
            kind, name, rest = m.groups()
            if kind == "HELP":
                tc.assertNotIn(name, declared, f"{name} declared twice")
                declared[name] = None
            else:
                tc.assertIn(name, declared, f"TYPE before HELP: {line}")
                tc.assertIn(rest, ("counter", "gauge"), line)
                declared[name] = rest
            current = name
            continue
        m = re.fullmatch(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-z_]+="[^"\\]*"(,[a-z_]+="[^"\\]*")*\})? (\S+)', line)
        tc.assertIsNotNone(m, f"not a sample: {line!r}")
        tc.assertEqual(m.group(1), current, f"a sample outside its family: {line!r}")
        float(m.group(4))
    for name in NEW_METRICS:
        tc.assertEqual(declared.get(name), "counter", name)


class Probe(threading.Thread):
    """PING on a held RESP connection and GET /healthz on a held HTTP one,
    every 0.1 s, each with a LIVE_WITHIN timeout; keeps what went wrong."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.resp = Resp(server.resp_port, timeout=LIVE_WITHIN)
        self.http = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=LIVE_WITHIN)
        self.problems, self.answers = [], 0
        self.stopping = threading.Event()
        self.once()  # both connections have completed a request before the fault starts

    def once(self):
        t = time.monotonic()
        pong = self.resp.call("PING")
        if pong != "PONG":
            raise AssertionError(f"PING answered {pong!r}")
        self.http.request("GET", "/healthz")
        r = self.http.getresponse()
        r.read()
        if r.status != 200:
            raise AssertionError(f"GET /healthz: {r.status}")
        self.answers += 1
        return time.monotonic() - t

    def run(self):
        while not self.stopping.is_set() and not self.problems:
            t = time.monotonic()
            try:
                self.once()
            except (OSError, http.client.HTTPException, AssertionError) as e:
                self.problems.append(f"a held connection unanswered after {time.monotonic() - t:.1f} s: "
                                     f"{type(e).__name__}: {e}")
            time.sleep(0.1)

    def close(self):
        self.resp.close()
        self.http.close()

    def finish(self, tc):
        self.stopping.set()
        self.join(LIVE_WITHIN * 3)
        tc.assertFalse(self.is_alive(), "the probe is stuck")
        tc.assertEqual(self.problems, [])
        tc.assertGreater(self.answers, 1)


def connect_rst(port, source="127.0.0.1", timeout=5):
    """A connection that ends with a reset when closed, so that it leaves no
    TIME_WAIT behind: thousands of those would hold the ephemeral ports that
    other tests running beside this one pick their servers' ports from."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.settimeout(timeout)
    try:
        s.bind((source, 0))
        s.connect(("127.0.0.1", port))
    except OSError:
        s.close()
        raise
    return s


def flood(port, count, timeout=0.5):
    """Opens and closes `count` connections as fast as it can; returns how
    many connected. It gives up after 10 connections in a row fail (a
    server that no longer accepts: its backlog full)."""
    connected = failed = 0
    for _ in range(count):
        try:
            connect_rst(port, timeout=timeout).close()
            connected += 1
            failed = 0
        except OSError:
            failed += 1
            if failed == 10:
                break
    return connected


class UnreadStderr(Mintidd):
    """A server whose stderr is a pipe of one page that nobody reads."""

    def start(self, expect_ready=True, timeout=20):
        r, w = os.pipe()
        fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 4096)
        self.unread = r
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL, stderr=w, env=self.env)
        os.close(w)
        ok = wait_for(lambda: self.proc.poll() is not None or self._listening(), timeout)
        if not ok or self.proc.poll() is not None:
            raise AssertionError(f"mintidd did not start (status {self.proc.poll()})")
        return self

    def _listening(self):
        try:
            for port in (self.http_port, self.resp_port):
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    pass
            return True
        except OSError:
            return False

    def wait(self, timeout=30):
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if getattr(self, "unread", None) is not None:
            os.close(self.unread)
            self.unread = None
        return self.proc.returncode, "(stderr was not read)"


class StderrNobodyReads(FaultCase):
    def test_refused_connections_and_reloads(self):
        """3,000 connections past max-connections, then SIGHUPs, each logged,
        with stderr a full pipe: held connections are answered within
        LIVE_WITHIN all along, the lines that did not fit are counted, and
        SIGTERM still stops the server cleanly."""
        # One worker: max-connections is each worker's.
        srv = UnreadStderr(state_dir=self.dir("state"), args=["--max-connections", "4", "--workers", "1"])
        self.servers.append(srv)
        srv.start()
        probe = Probe(srv)
        self.addCleanup(probe.close)
        # The other two places are taken by clients that have been served,
        # so every connection of the flood is refused (and logged).
        fillers = [Resp(srv.resp_port) for _ in range(2)]
        for f in fillers:
            self.addCleanup(f.close)
            self.assertEqual(f.call("PING"), "PONG")
        probe.start()
        flood(srv.resp_port, scale(3000, 20000))
        # Reloads log lines no client can trigger, unlimited: enough to
        # overflow the log's buffer behind the full pipe.
        for _ in range(scale(1500, 5000)):
            srv.proc.send_signal(signal.SIGHUP)
            time.sleep(0.001)
        time.sleep(0.5)
        probe.finish(self)
        metrics = metrics_on(probe.http)
        self.assertGreater(metric_value(metrics, "mintid_log_lines_dropped_total"), 0)
        self.assertGreater(labelled(metrics, "mintid_connections_refused_total", 'protocol="resp"'), 0)
        t = time.monotonic()
        status, _ = srv.stop(timeout=15)
        self.assertEqual(status, 0)
        self.assertLess(time.monotonic() - t, 10, "the stop waited for a stderr nobody reads")

    def test_client_lines_rate_limited(self):
        """The same flood with stderr read: the refusals are logged at most
        10 a second, and the rest counted as held back."""
        # One worker: max-connections is each worker's.
        srv = self.server(args=["--max-connections", "2", "--workers", "1"]).start()
        time.sleep(0.3)  # the start-up probe's connections close first
        held = [Resp(srv.resp_port) for _ in range(2)]
        for h in held:
            self.addCleanup(h.close)
            self.assertEqual(h.call("PING"), "PONG")
        t = time.monotonic()
        connected = flood(srv.resp_port, 3000)
        elapsed = time.monotonic() - t
        self.assertGreater(connected, 1000)
        held[1].close()
        c = http.client.HTTPConnection("127.0.0.1", srv.http_port, timeout=10)
        self.addCleanup(c.close)
        self.assertTrue(wait_for(lambda: self._try_metrics(c), 10), "no /metrics after the flood")
        lines = len(re.findall(r"connection refused: max-connections", srv.log.decode(errors="replace")))
        # 10 a second, in at most elapsed + 1 one-second windows.
        self.assertLessEqual(lines, 10 * (int(elapsed) + 2), f"{lines} lines for {connected} refusals")
        self.assertGreater(metric_value(self.metrics, "mintid_log_lines_held_back_total"), 0)

    def _try_metrics(self, c):
        try:
            self.metrics = metrics_on(c)
            return True
        except (OSError, http.client.HTTPException, AssertionError):
            c.close()
            return False


class DescriptorExhaustion(FaultCase):
    def test_hard_limit_below_max_connections(self):
        srv = self.server(args=["--max-connections", "1000"])
        real = srv.command
        srv.command = lambda: ["prlimit", "--nofile=256:256", "--"] + real()
        log = self.assert_refused(srv, "hard limit", "max-connections")
        self.assertIn("not starting", log)

    def test_accept_backs_off_and_sheds(self):
        """The descriptor limit lowered below max-connections on a running
        server, then 100 clients: the loop does not spin, `accept:` is
        logged once, every client is served or refused at once (none left
        in the backlog), and the server accepts again once descriptors are
        free."""
        # One worker: the limit is lowered on the process that accepts.
        srv = self.server(args=["--max-connections", "1000", "--workers", "1"]).start()
        probe = Probe(srv)
        self.addCleanup(probe.close)
        pid = srv.proc.pid
        open_fds = len(os.listdir(f"/proc/{pid}/fd"))
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (open_fds + 8, open_fds + 8))
        probe.start()
        clients = []
        for _ in range(100):
            s = socket.socket()
            s.settimeout(3)
            s.connect(("127.0.0.1", srv.resp_port))
            clients.append(s)
        cpu0, t0 = self.cpu_seconds(pid), time.monotonic()
        time.sleep(2)
        cpu = self.cpu_seconds(pid) - cpu0
        wall = time.monotonic() - t0
        probe.finish(self)
        # A spinning loop takes a core (less only while its log pipe is full); backing off takes next to nothing.
        self.assertLess(cpu, 0.1 * wall, f"the server used {cpu:.2f} s of CPU in {wall:.2f} s while out of "
                                          "descriptors")
        served = refused = 0
        for s in clients:
            try:
                s.sendall(b"PING\r\n")
                reply = s.recv(100)
            except ConnectionResetError:
                reply = b""
            except socket.timeout:
                self.fail("a client was neither served nor refused within 3 s (left in the backlog)")
            if reply == b"+PONG\r\n":
                served += 1
            else:
                self.assertIn(reply, (b"", b"-ERR max number of clients reached\r\n"))
                refused += 1
        self.assertGreater(refused, 0)
        metrics = metrics_on(probe.http)
        self.assertGreater(metric_value(metrics, "mintid_accept_errors_total"), 0)
        self.assertGreater(metric_value(metrics, "mintid_accept_shed_total"), 0)
        for s in clients:
            s.close()
        self.assertTrue(wait_for(lambda: self.pings(srv.resp_port), 10), "no new client served after the flood")
        status, log = srv.stop()
        self.assertEqual(status, 0, log)
        self.assertEqual(len(re.findall(r"\baccept: ", log)), 1, log[-3000:])
        self.assertIn("accepting connections again", log)

    @staticmethod
    def cpu_seconds(pid):
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def pings(port):
        try:
            r = Resp(port, timeout=1)
            try:
                return r.call("PING") == "PONG"
            finally:
                r.close()
        except OSError:
            return False


class GuessingSecrets(FaultCase):
    GUESSERS = 4
    SECONDS = 1.5  # at most
    CONNECTIONS = 400  # at most, all guessers together

    def guess(self, srv, sources):
        """GUESSERS threads open connection after connection, CONNECTIONS
        in all or for SECONDS, each giving two wrong secrets (below the
        per-connection limit), from the source addresses in turn. Returns
        (secrets checked and found wrong, and refusals unchecked by scope;
        seconds)."""
        counts = {"checked": 0, "address": 0, "server": 0, "other": [], "connections": 0}
        lock = threading.Lock()
        stop = time.monotonic() + self.SECONDS

        def run(k):
            n = k
            while time.monotonic() < stop:
                with lock:
                    if counts["connections"] == self.CONNECTIONS:
                        return
                    counts["connections"] += 1
                n += 1
                try:
                    s = connect_rst(srv.resp_port, sources[n % len(sources)])
                    r = Resp.__new__(Resp)
                    r.sock, r.buf = s, b""
                    r.send("AUTH", "wrong guess")
                    r.send("AUTH", "another wrong guess")
                    replies = [r.read(), r.read()]
                    r.close()
                except OSError as e:
                    replies = [e]
                with lock:
                    for x in replies:
                        text = str(x)
                        if text.startswith("WRONGPASS"):
                            counts["checked"] += 1
                        elif "too many wrong secrets from this address" in text:
                            counts["address"] += 1
                        elif "too many wrong secrets on this server" in text:
                            counts["server"] += 1
                        else:
                            counts["other"].append(text)

        t = time.monotonic()
        threads = [threading.Thread(target=run, args=(k,)) for k in range(self.GUESSERS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(30)
        return counts, time.monotonic() - t

    def auth_server(self, args):
        path = os.path.join(self.tmp, "secrets")
        with open(path, "w") as f:
            f.write(SECRET + "\n")
        os.chmod(path, 0o600)
        # One worker: the limits on wrong secrets are each worker's.
        return self.server(args=["--auth-file", path, "--workers", "1"] + args).start()

    def test_per_address(self):
        rate = 2  # a wrong secret every 500 ms: the budget is still spent when the right secret is tried below
        srv = self.auth_server(["--auth-failures-per-address", str(rate), "--auth-failures-total", "1000000"])
        r = self.connect_from(srv, "127.0.0.1")
        counts, seconds = self.guess(srv, ["127.0.0.1"])
        self.assertEqual(counts["other"][:5], [])
        # A burst of one second's worth, then `rate` a second.
        self.assertLessEqual(counts["checked"], rate * (1 + seconds) + 2, counts)
        self.assertGreater(counts["address"], 0, counts)
        # Another address is not held back; this one is, right secret or not, until its budget returns.
        refused = r.call("AUTH", SECRET)
        other = self.connect_from(srv, "127.0.0.2")
        self.assertEqual(other.call("AUTH", SECRET), "OK")
        self.assertIsInstance(refused, RespError)
        m = re.fullmatch(r"ERR too many wrong secrets from this address; try again in (\d+) ms", str(refused))
        self.assertIsNotNone(m, refused)
        time.sleep(int(m.group(1)) / 1000 + 0.05)
        self.assertEqual(r.call("AUTH", SECRET), "OK")
        self.assertIn("mintid_version", other.call("INFO"))  # authenticated: the connection serves
        status, body = self.get_metrics(srv)
        self.assertGreater(labelled(body, "mintid_auth_limited_total", 'scope="address"'), 0)

    def test_across_addresses(self):
        rate = 30
        srv = self.auth_server(["--auth-failures-per-address", "1000000", "--auth-failures-total", str(rate)])
        sources = [f"127.0.0.{k}" for k in range(2, 42)]
        counts, seconds = self.guess(srv, sources)
        self.assertEqual(counts["other"][:5], [])
        self.assertLessEqual(counts["checked"], rate * (1 + seconds) + 2, counts)
        self.assertGreater(counts["server"], 0, counts)
        status, body = self.get_metrics(srv)
        self.assertGreater(labelled(body, "mintid_auth_limited_total", 'scope="total"'), 0)

    def connect_from(self, srv, source):
        s = socket.socket()
        s.settimeout(10)
        s.bind((source, 0))
        s.connect(("127.0.0.1", srv.resp_port))
        r = Resp.__new__(Resp)
        r.sock, r.buf = s, b""
        self.addCleanup(r.close)
        return r

    def get_metrics(self, srv):
        """/metrics, once the limits let the right secret through again (within 5 s)."""
        got = []

        def once():
            c = http.client.HTTPConnection("127.0.0.1", srv.http_port, timeout=10)
            try:
                c.request("GET", "/metrics", headers={"Authorization": "Bearer " + SECRET})
                r = c.getresponse()
                got[:] = [r.status, r.read().decode()]
                return r.status == 200
            finally:
                c.close()

        self.assertTrue(wait_for(once, 5), got)
        return got


class SlowClientsAtCap(FaultCase):
    CAP = 20
    REQUEST_TIMEOUT = 2

    def test_trickling_clients_at_the_cap(self):
        """max-connections filled by one served client and clients that
        trickle a byte every half second: new clients are served at once
        (the tricklers make room), the served one keeps its connection, and
        every trickler is dropped at request-timeout, long before
        idle-timeout (300 s)."""
        # One worker: max-connections is each worker's.
        srv = self.server(args=["--max-connections", str(self.CAP), "--request-timeout",
                                str(self.REQUEST_TIMEOUT), "--workers", "1"]).start()
        served = Resp(srv.resp_port)
        self.addCleanup(served.close)
        self.assertEqual(served.call("PING"), "PONG")
        time.sleep(0.3)  # the start-up probe's connections close first
        heads = [(srv.http_port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n"),
                 (srv.resp_port, b"*2\r\n$4\r\nECHO\r\n$1000\r\n")]
        tricklers = []
        for k in range(self.CAP - 1):
            port, head = heads[k % 2]
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(head)
            tricklers.append(s)
        dropped, stop = set(), threading.Event()

        def trickle():
            while not stop.is_set():
                for i, s in enumerate(tricklers):
                    if i in dropped:
                        continue
                    try:
                        s.sendall(b"X" if i % 2 == 0 else b"a")
                    except OSError:
                        dropped.add(i)
                stop.wait(0.5)

        t0 = time.monotonic()
        th = threading.Thread(target=trickle, daemon=True)
        th.start()
        time.sleep(0.3)
        # New clients while the tricklers hold every place but one's.
        for _ in range(3):
            r = Resp(srv.resp_port, timeout=LIVE_WITHIN)
            self.assertEqual(r.call("PING"), "PONG")
            c = http.client.HTTPConnection("127.0.0.1", srv.http_port, timeout=LIVE_WITHIN)
            c.request("GET", "/healthz")
            resp = c.getresponse()
            self.assertEqual(resp.status, 200)
            self.assertIn(b'"status":"ok"', resp.read())
            self.addCleanup(c.close)
            self.addCleanup(r.close)
        self.assertEqual(served.call("PING"), "PONG")
        # Every trickler is gone by request-timeout (a send after the close draws a reset).
        ok = wait_for(lambda: len(dropped) == len(tricklers), self.REQUEST_TIMEOUT + 4, step=0.1)
        stop.set()
        th.join(5)
        self.assertTrue(ok, f"{len(tricklers) - len(dropped)} of {len(tricklers)} trickling clients still "
                            f"connected after {time.monotonic() - t0:.1f} s")
        self.assertEqual(served.call("PING"), "PONG")
        c = http.client.HTTPConnection("127.0.0.1", srv.http_port, timeout=10)
        metrics = metrics_on(c)
        c.close()
        check_exposition(self, metrics)
        self.assertGreater(metric_value(metrics, "mintid_connections_shed_at_cap_total"), 0)
        self.assertGreater(metric_value(metrics, "mintid_request_timeouts_total"), 0)
        for s in tricklers:
            s.close()

    def test_bad_settings(self):
        for args in (["--request-timeout", "0"], ["--auth-failures-per-address", "0"],
                     ["--auth-failures-total", "x"]):
            p = subprocess.run([OPT.mintidd, "--state-dir", os.path.join(self.tmp, "never")] + args,
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 2, (args, p.stderr))
            self.assertIn(args[0][2:] + ": ", p.stderr)
            self.assertFalse(os.path.exists(os.path.join(self.tmp, "never")))


def process_state(pid):
    """The state letter of /proc/PID/stat (R, S, T, ...)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


class StoppedLockHolder(FaultCase):
    """A process stopped while it holds nanoflake's host-wide lock stalls
    nanoflake only: every worker's loop goes on, other formats, /healthz and
    PING answer within 100 ms, and nanoflake's requests are answered by
    max-wait, with a 503 that names the cause. The holder is caught as a
    debugger would catch it: stopped, then the lock word read (TEST_HOST_LOCK,
    tests/host_lock.c); not holding it, it is let go and stopped again."""

    FAST_S = 0.1

    def host_lock(self, srv, *args):
        tool = os.environ.get("TEST_HOST_LOCK")
        if not tool:
            self.fail("TEST_HOST_LOCK (tests/host_lock.c's program) is not set; ctest sets it")
        r = subprocess.run([tool, args[0], srv.env["MINTID_HOST_DIR"], srv.env["MINTID_ID_SPACE"], "nanoflake", "0"]
                           + list(args[1:]), capture_output=True, text=True, timeout=10)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.strip()

    def catch(self, srv, pid):
        """Stops pid at a moment it holds nanoflake's lock (its thread id is
        its pid: a single-threaded process)."""
        for _ in range(2000):
            os.kill(pid, signal.SIGSTOP)
            wait_for(lambda: process_state(pid) in "Tt", 2, 0.001)
            if self.host_lock(srv, "owner") == str(pid):
                return
            os.kill(pid, signal.SIGCONT)
            time.sleep(0.001 * (hash(time.time()) % 5))
        self.fail(f"process {pid} was never caught holding the lock")

    def check_served_around(self, srv, max_wait_ms):
        conn = http.client.HTTPConnection("127.0.0.1", srv.http_port, timeout=30)
        r = Resp(srv.resp_port, timeout=30)
        try:
            for path in ["/healthz", "/v1/snowflake", "/v1/uuidv7"]:
                t0 = time.monotonic()
                conn.request("GET", path)
                resp = conn.getresponse()
                resp.read()
                took = time.monotonic() - t0
                self.assertIn(resp.status, (200,), path)
                self.assertLess(took, self.FAST_S, f"{path} took {took:.3f} s while the holder is stopped")
            t0 = time.monotonic()
            self.assertEqual(r.call("PING"), "PONG")
            self.assertLess(time.monotonic() - t0, self.FAST_S)
            t0 = time.monotonic()
            conn.request("GET", "/v1/nanoflake")
            resp = conn.getresponse()
            body = resp.read().decode()
            took = time.monotonic() - t0
            self.assertEqual(resp.status, 503, body)
            self.assertIn("another process holds the lock", body)
            self.assertLess(took, max_wait_ms / 1000 + 1.0, "nanoflake was not answered by max-wait")
            self.assertGreater(took, max_wait_ms / 1000 * 0.5)
            # Not ready for nanoflake alone, in the worker that has seen the lock held past max-wait.
            conn.request("GET", "/readyz")
            resp = conn.getresponse()
            body = resp.read().decode()
            self.assertEqual(resp.status, 503, body)
            cannot = json.loads(body)["cannot_mint"]
            self.assertEqual(list(cannot), ["nanoflake"], body)
            self.assertIn("another process has held the format's host-wide lock", cannot["nanoflake"])
        finally:
            conn.close()
            r.close()

    def test_stopped_command(self):
        srv = self.server(None, ["--max-wait", "500", "--workers", "2"]).start()
        cmd = subprocess.Popen([OPT.mintid, "gen", "nanoflake", "-n", "1000000000"], env=srv.env,
                               stdout=subprocess.DEVNULL)
        try:
            self.catch(srv, cmd.pid)
            self.check_served_around(srv, 500)
        finally:
            cmd.kill()
            cmd.wait()
        status, ids = mint_http(srv.http_port, "nanoflake", 10)
        self.assertEqual(status, 200, ids)

    def test_stopped_worker(self):
        srv = self.server(None, ["--max-wait", "500", "--workers", "2"]).start()
        workers = children(srv.pid())
        self.assertEqual(len(workers), 2)
        stop = threading.Event()

        def load():
            while not stop.is_set():
                try:
                    mint_http(srv.http_port, "nanoflake", 1000, timeout=5)
                except OSError:
                    pass

        loaders = [threading.Thread(target=load) for _ in range(2)]
        for t in loaders:
            t.start()
        try:
            self.catch(srv, workers[0])
            stop.set()
            for t in loaders:
                t.join()
            # Connections go to the worker that accepts: the one not stopped.
            self.check_served_around(srv, 500)
        finally:
            stop.set()
            os.kill(workers[0], signal.SIGCONT)
        status, ids = mint_http(srv.http_port, "nanoflake", 10)
        self.assertEqual(status, 200, ids)


class Refusal(FaultCase):
    def test_503_content_length(self):
        """curl reads the whole refusal: exit 0, status 503, and the body
        Content-Length announces."""
        # One worker: max-connections is each worker's.
        srv = self.server(args=["--max-connections", "1", "--workers", "1"]).start()
        time.sleep(0.3)
        held = Resp(srv.resp_port)
        self.addCleanup(held.close)
        self.assertEqual(held.call("PING"), "PONG")
        p = subprocess.run(["curl", "-sS", "-o", "-", "-w", "\\n%{http_code}", f"http://127.0.0.1:{srv.http_port}/healthz"],
                           capture_output=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        body, status = p.stdout.rsplit(b"\n", 1)
        self.assertEqual(status, b"503")
        self.assertEqual(body, b"max-connections reached; try again.\r\n")
        data = http_raw(srv.http_port, b"")  # the refusal comes unasked, then the close
        head, _, rest = data.partition(b"\r\n\r\n")
        length = int(re.search(rb"Content-Length: (\d+)", head).group(1))
        self.assertEqual(length, len(rest), data)


if __name__ == "__main__":
    main()
