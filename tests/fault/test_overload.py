# SPDX-License-Identifier: MIT
"""test_overload.py - 150 clients that ask for the biggest batches and
never read the answers. The server must keep its memory bounded (RSS below
512 MiB), shed the clients holding the most unread output and count them,
and keep answering new clients all along.

Usage: python3 test_overload.py --mintidd PATH --mintid PATH [--sanitized] [--long]
"""

import os
import socket
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faults import OPT, FaultCase, Resp, ask, main, metric, metric_value, scale, vm_rss_kib, wait_for  # noqa: E402

RSS_LIMIT_KIB = 512 * 1024
RESP_HOGS, HTTP_HOGS = 100, 50
PIPELINED = 8  # requests each hog sends at once
ANSWERED_WITHIN = 10.0  # seconds a new client may wait for its answer
HOGS_AT_CAPACITY = 100  # clients that keep a format at its capacity


def hog(port, request):
    """A connection with a small receive buffer (so the kernel holds little
    of the server's output for it) that sends its requests and never reads."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect(("127.0.0.1", port))
    s.setblocking(False)
    try:
        s.send(request * PIPELINED)
    except BlockingIOError:
        pass
    return s


class NewClients(threading.Thread):
    """A new client every half second, alternately RESP (PING, then a small
    MINT) and HTTP (GET /healthz), each on a fresh connection."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server = server
        self.answers = []  # (what, seconds)
        self.problems = []
        self.stopping = threading.Event()

    def run(self):
        n = 0
        while not self.stopping.is_set():
            n += 1
            t = time.monotonic()
            try:
                if n % 2:
                    r = Resp(self.server.resp_port, timeout=ANSWERED_WITHIN)
                    try:
                        pong = r.call("PING")
                        if pong != "PONG":
                            self.problems.append(f"PING answered {pong!r}")
                        self.answers.append(("PING", time.monotonic() - t))
                        ids = r.call("MINT", "nanoflake", "10")
                        if not (isinstance(ids, list) and len(ids) == 10):
                            self.problems.append(f"MINT nanoflake 10 answered {str(ids)[:200]}")
                    finally:
                        r.close()
                else:
                    status, body = ask(self.server.http_port, "/healthz", ANSWERED_WITHIN)
                    if status != 200:
                        self.problems.append(f"GET /healthz: {status} {body[:200]}")
                    self.answers.append(("GET /healthz", time.monotonic() - t))
            except OSError as e:
                self.problems.append(f"a new client after {time.monotonic() - t:.1f} s: {type(e).__name__}: {e}")
            except Exception:
                self.problems.append(traceback.format_exc())
            time.sleep(0.5)


class Overload(FaultCase):
    def flood(self, srv, enough):
        """Opens the hogs and a stream of new clients against srv, and
        watches until enough(elapsed s, RSS samples, metric samples) says so
        (at most 40 s, 180 with --long), or the server dies, or its RSS
        passes twice the limit (the answer is known; spare this machine).
        Returns (RSS samples in KiB, the new clients, /metrics samples)."""
        pid = srv.pid()
        rss, metrics = [vm_rss_kib(pid)], []
        resp_req = b"*3\r\n$4\r\nMINT\r\n$9\r\nnanoflake\r\n$6\r\n100000\r\n"
        http_req = b"GET /v1/nanoflake?count=100000 HTTP/1.1\r\nHost: fault\r\n\r\n"
        hogs = []
        self.addCleanup(lambda: [s.close() for s in hogs])
        newcomers = NewClients(srv)
        self.addCleanup(newcomers.stopping.set)
        newcomers.start()
        for i in range(RESP_HOGS + HTTP_HOGS):
            hogs.append(hog(srv.http_port, http_req) if i % 3 == 2 else hog(srv.resp_port, resp_req))
        start = time.monotonic()
        deadline = start + scale(40.0, 180.0)
        next_metrics = start
        while time.monotonic() < deadline and srv.proc.poll() is None and rss[-1] < RSS_LIMIT_KIB * 2:
            rss.append(vm_rss_kib(pid))
            now = time.monotonic()
            if now >= next_metrics:
                status, body = ask(srv.http_port, "/metrics", 2)
                if status == 200:
                    metrics.append(body)
                next_metrics = now + 0.5
            if enough(now - start, rss, metrics):
                break
            time.sleep(0.1)
        newcomers.stopping.set()
        newcomers.join(2 * ANSWERED_WITHIN + 5)
        for s in hogs:
            s.close()
        print(f"\noverload: RSS peaked at {max(rss) // 1024} MiB in {time.monotonic() - start:.1f} s; "
              f"{len(newcomers.answers)} new clients answered, slowest in "
              f"{max((s for _, s in newcomers.answers), default=0):.2f} s", file=sys.stderr)
        return rss, newcomers, metrics

    def check_served(self, srv, rss, newcomers):
        with self.subTest(check="still up"):
            if srv.proc.poll() is not None:
                self.fail(f"mintidd died: {srv.wait()[1][-2000:]}")
        if not OPT.sanitized:  # a sanitizer's shadow memory and quarantine make RSS meaningless
            with self.subTest(check="RSS"):
                self.assertLess(max(rss), RSS_LIMIT_KIB, f"RSS reached {max(rss) // 1024} MiB")
        with self.subTest(check="new clients answered"):
            self.assertEqual(newcomers.problems, [])
            self.assertGreater(len(newcomers.answers), 4)
            # Each socket operation has ANSWERED_WITHIN; the whole answer must come within it too.
            slowest = max(newcomers.answers, key=lambda a: a[1])
            self.assertLess(slowest[1], ANSWERED_WITHIN, f"{slowest[0]} answered after {slowest[1]:.2f} s")

    def test_clients_that_never_read(self):
        self.not_sanitized("a sanitizer's shadow memory and quarantine make RSS meaningless")
        srv = self.server(args=["--node", "11"]).start()

        def steady(elapsed, rss, metrics):
            # The memory has stopped growing: every hog has as much output
            # queued as the server (and the kernel) lets it have.
            recent = rss[-30:]
            return elapsed > scale(10, 120) and len(recent) == 30 and max(recent) - min(recent) < 1024

        rss, newcomers, _ = self.flood(srv, steady)
        self.check_served(srv, rss, newcomers)
        with self.subTest(check="shed clients counted"):
            # 150 clients with up to max-output (4 MiB) each unread would hold more than max-output-total
            # (256 MiB, the default) between them: the ones holding the most are dropped, and counted.
            shed = metric(srv.http_port, "mintid_clients_shed_total")
            self.assertIsNotNone(shed, "/metrics has no mintid_clients_shed_total")
            self.assertGreater(shed, 0, "no client was shed although 150 of them left replies unread")
        status, log = srv.stop()
        self.assertEqual(status, 0, log)

    def test_idle_connections_never_stop_minting(self):
        """Each connection's first request buffer (16 KiB) is bounded by
        max-connections, not max-output-total: idle connections whose first
        buffers add up past max-output-total neither stop minting for the
        others nor get dropped for it."""
        srv = self.server(args=["--node", "11", "--max-output-total", str(1024 * 1024), "--workers", "1"]).start()
        idle = []
        self.addCleanup(lambda: [s.close() for s in idle])
        for _ in range(100):  # 1.6 MiB of first buffers
            idle.append(socket.create_connection(("127.0.0.1", srv.resp_port), timeout=10))
        r = Resp(srv.resp_port, timeout=5)
        self.assertEqual(r.call("PING"), "PONG")
        ids = r.call("MINT", "nanoflake", "10")
        self.assertTrue(isinstance(ids, list) and len(ids) == 10, ids)
        r.close()
        self.assertEqual(metric(srv.http_port, "mintid_clients_shed_total"), 0)
        status, log = srv.stop()
        self.assertEqual(status, 0, log)

    def test_small_request_waits_its_turn(self):
        """Clients that keep nanoflake at its capacity (and read what they
        are given) share each millisecond with a client asking for one ID
        at a time: that client waits its turn behind them, never past
        max-wait, whatever order the waits end in."""
        max_wait_ms = 200
        srv = self.server(args=["--node", "11", "--max-wait", str(max_wait_ms)]).start()
        stop = threading.Event()
        request = b"*3\r\n$4\r\nMINT\r\n$9\r\nnanoflake\r\n$6\r\n100000\r\n"

        def greedy():
            with socket.create_connection(("127.0.0.1", srv.resp_port), timeout=30) as s:
                s.sendall(request * 400)  # 40M IDs: more than the test lasts
                while not stop.is_set():
                    try:
                        if not s.recv(1 << 20):
                            return
                    except OSError:
                        return

        greedies = [threading.Thread(target=greedy, daemon=True) for _ in range(HOGS_AT_CAPACITY)]
        self.addCleanup(stop.set)
        for t in greedies:
            t.start()
        # Until the greedy clients fill the waits: each one's first batch (25 ms of nanoflake's capacity) parked.
        self.assertTrue(wait_for(lambda: (metric(srv.http_port, "mintid_requests_parked_total") or 0)
                                 >= HOGS_AT_CAPACITY, 30),
                        f"fewer than {HOGS_AT_CAPACITY} batches parked after 30 s")
        problems, slowest, asked = [], 0.0, 0
        r = Resp(srv.resp_port, timeout=10)
        try:
            deadline = time.monotonic() + scale(8.0, 60.0)
            while time.monotonic() < deadline:
                t = time.monotonic()
                asked += 1
                ids = r.call("MINT", "nanoflake", "1")
                if not (isinstance(ids, list) and len(ids) == 1):
                    problems.append(f"MINT nanoflake 1 answered {str(ids)[:200]}")
                slowest = max(slowest, time.monotonic() - t)
                time.sleep(0.02)
        finally:
            r.close()
            stop.set()
        for t in greedies:
            t.join(10)
        print(f"\nturns: {asked} single IDs asked beside {HOGS_AT_CAPACITY} clients at capacity, "
              f"{len(problems)} refused, slowest in {slowest:.3f} s", file=sys.stderr)
        self.assertEqual(problems[:5], [], f"{len(problems)} of {asked} refused")
        # A wait ends by max-wait, with the IDs or a refusal; ten times that leaves room for a loaded machine
        # but not for a request left waiting behind the greedy clients' 40M IDs.
        self.assertLess(slowest, 10 * max_wait_ms / 1000, f"a single ID took {slowest:.3f} s, max-wait is "
                                                           f"{max_wait_ms} ms")
        status, log = srv.stop()
        self.assertEqual(status, 0, log)

    def test_shed_past_max_output_total(self):
        limit = 4 * 1024 * 1024
        srv = self.server(args=["--node", "11", "--max-output-total", str(limit)]).start()
        shed_at = []

        def shed(elapsed, rss, metrics):
            if not shed_at and metrics and (metric_value(metrics[-1], "mintid_clients_shed_total") or 0) > 0:
                shed_at.append(elapsed)
            return bool(shed_at) and elapsed > max(shed_at[0] + 2, 5) or elapsed > scale(15, 120)

        rss, newcomers, metrics = self.flood(srv, shed)
        self.check_served(srv, rss, newcomers)
        with self.subTest(check="shed and counted"):
            self.assertTrue(shed_at, "no client was shed although 150 of them left replies unread")
            self.assertIn("max-output-total", srv.log.decode(errors="replace"), "the shedding was not logged")
        with self.subTest(check="queued replies bounded"):
            self.assertGreater(len(metrics), 0, "/metrics was never answered within 2 s")
            queued = [metric_value(m, "mintid_queued_bytes") for m in metrics]
            self.assertNotIn(None, queued, "/metrics has no mintid_queued_bytes")
            # One slice of a batch may land past the bound before the shedding runs.
            self.assertLess(max(queued), limit + 1024 * 1024)
        status, log = srv.stop()
        self.assertEqual(status, 0, log)


if __name__ == "__main__":
    main()
