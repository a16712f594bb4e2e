# SPDX-License-Identifier: MIT
"""test_lease.py - node ids leased from etcd: many servers never share one,
a frozen server mints nothing on a lease that may have expired, an etcd
outage stops minting within the TTL, and a node id's next holder issues only
later timestamps. A real etcd is started on loopback for each test.

Usage: python3 test_lease.py --mintidd PATH [--no-faketime]
"""

import argparse
import http.client
import os
import signal
import sys
import threading
import time
import traceback
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Etcd, Server, have_faketime, spare_port  # noqa: E402

MINTIDD = None
NO_FAKETIME = False
EPOCH = 1288834974657


def mint(port, count=1000):
    """(status, [nanoflake ints]) of one batch."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", f"/v1/nanoflake?count={count}&as=int")
        r = c.getresponse()
        body = r.read().decode()
    finally:
        c.close()
    return r.status, ([int(x) for x in body.split()] if r.status == 200 else [])


def health(port):
    import json
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", "/healthz")
    r = c.getresponse()
    doc = json.loads(r.read())
    c.close()
    return r.status, doc


def in_threads(test, calls, timeout=120):
    """Runs each of `calls` in a thread of its own and waits for them all.
    An exception raised in a thread is only printed there; here it fails
    the test, as does a thread still running after `timeout` seconds."""
    failures = []

    def guard(call):
        try:
            call()
        except BaseException:
            failures.append(traceback.format_exc())

    threads = [threading.Thread(target=guard, args=(c,), daemon=True) for c in calls]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0, deadline - time.monotonic()))
    stuck = sum(t.is_alive() for t in threads)
    if stuck:
        failures.append(f"{stuck} thread(s) still running after {timeout} s")
    if failures:
        test.fail(f"{len(failures)} of {len(threads)} threads failed:\n" + "\n".join(failures))


def wait_for(cond, timeout, step=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(step)
    return False


class Lease(unittest.TestCase):
    def setUp(self):
        self.etcd = Etcd()
        self.servers = []

    def tearDown(self):
        # Every server is stopped and etcd too, even when one server's log
        # fails the test (a sanitizer's report); the first failure is raised.
        failure = None
        for s in self.servers:
            try:
                s.stop(signal.SIGKILL if s.proc and s.proc.poll() is None else signal.SIGTERM)
                s.__exit__(None, None, None)
            except Exception as e:
                failure = failure or e
        self.etcd.stop()
        if failure is not None:
            raise failure

    def server(self, *args, **kw):
        s = Server(MINTIDD, args=list(args), **kw)
        self.servers.append(s)
        return s

    def test_many_servers_distinct_nodes_no_duplicate(self):
        servers = [self.server(*self.etcd.lease_args("many", "0-15", ttl=5, margin=1000)) for _ in range(8)]
        in_threads(self, [s.start for s in servers])
        nodes = [health(s.http_port)[1]["node_id"] for s in servers]
        self.assertEqual(len(set(nodes)), 8, nodes)
        self.assertTrue(all(0 <= n <= 15 for n in nodes))
        got, lock = [], threading.Lock()

        def load(s):
            for _ in range(10):
                status, ids = mint(s.http_port, 2000)
                self.assertEqual(status, 200)
                with lock:
                    got.extend(ids)

        in_threads(self, [lambda s=s: load(s) for s in servers])
        self.assertEqual(len(got), 8 * 10 * 2000)
        self.assertEqual(len(set(got)), len(got), "duplicate nanoflakes across servers")
        self.assertEqual({(i >> 12) & 1023 for i in got}, set(nodes))

    def test_frozen_server_takes_no_chances(self):
        a = self.server(*self.etcd.lease_args("frozen", "7-7", ttl=2, margin=500)).start()
        status, before = mint(a.http_port)
        self.assertEqual(status, 200)
        self.assertIsNotNone(self.etcd.get("/frozen/nodes/7"), "no key for node 7 under /frozen")
        a.proc.send_signal(signal.SIGSTOP)
        # Until etcd lets the lease go (the TTL passes without a keepalive): the node's key goes with it.
        self.assertTrue(wait_for(lambda: self.etcd.get("/frozen/nodes/7") is None, 30),
                        "etcd kept the frozen server's lease")
        b = self.server(*self.etcd.lease_args("frozen", "7-7", ttl=2, margin=500)).start()
        self.assertEqual(health(b.http_port)[1]["node_id"], 7)
        status, from_b = mint(b.http_port)
        self.assertEqual(status, 200)
        a.proc.send_signal(signal.SIGCONT)
        # Resumed, A must not mint on the lease it lost while frozen.
        status, after = mint(a.http_port)
        self.assertEqual(status, 503, "a resumed server minted on an expired lease")
        for _ in range(10):
            status, more = mint(a.http_port)
            self.assertEqual(status, 503)
            _, more_b = mint(b.http_port)
            from_b += more_b
            time.sleep(0.2)
        code, doc = health(a.http_port)
        self.assertEqual(code, 503)
        self.assertFalse(doc["lease"]["valid"])
        # B releases node 7: A leases it again (its own expired lease is
        # cleared away first) and carries on after everything B issued.
        status, log = b.stop()
        self.assertEqual(status, 0, log)
        self.assertTrue(wait_for(lambda: mint(a.http_port, 10)[0] == 200, 10), "A never leased node 7 again")
        status, again = mint(a.http_port)
        self.assertEqual(status, 200)
        self.assertEqual({(i >> 12) & 1023 for i in again}, {7})
        everything = before + from_b + again
        self.assertEqual(len(set(everything)), len(everything))
        self.assertGreater(min(from_b), max(before))
        self.assertGreater(min(again), max(from_b))

    def test_etcd_outage_stops_then_resumes_minting(self):
        servers = [self.server(*self.etcd.lease_args("outage", "0-1", ttl=3, margin=800)).start() for _ in range(2)]
        got = []
        for s in servers:
            status, ids = mint(s.http_port)
            self.assertEqual(status, 200)
            got += ids
        self.etcd.proc.send_signal(signal.SIGSTOP)
        stopped_at = time.monotonic()
        # Within the TTL every server stops minting.
        for s in servers:
            self.assertTrue(wait_for(lambda: mint(s.http_port, 10)[0] == 503, 3.5),
                            "a server kept minting with etcd unreachable past the TTL")
        self.assertLess(time.monotonic() - stopped_at, 3.5)
        for s in servers:
            got += mint(s.http_port, 10)[1]  # nothing, but keep anything it did answer
        self.etcd.proc.send_signal(signal.SIGCONT)
        for s in servers:
            self.assertTrue(wait_for(lambda: mint(s.http_port, 10)[0] == 200, 20), "no recovery after etcd came back")
            got += mint(s.http_port)[1]
        self.assertEqual(len(set(got)), len(got))
        nodes = [health(s.http_port)[1]["node_id"] for s in servers]
        self.assertEqual(sorted(nodes), [0, 1])

    def test_reacquired_node_with_clock_set_back(self):
        if NO_FAKETIME:
            self.skipTest("libfaketime and the sanitizers' runtimes do not mix; the plain build runs this")
        if not have_faketime():
            self.fail("libfaketime is not installed (make deps installs it)")
        a = self.server(*self.etcd.lease_args("reuse", "9-9")).start()
        status, before = mint(a.http_port)
        self.assertEqual(status, 200)
        status, log = a.stop()
        self.assertEqual(status, 0, log)
        self.assertIn("node 9 released", log)
        # The next holder's clock is 4 s behind; its own state directory is
        # new, so only the mark in etcd stands between it and a duplicate.
        b = self.server(*self.etcd.lease_args("reuse", "9-9", extra=["--startup-wait", "10000"]),
                        faketime="-4s").start()
        status, after = mint(b.http_port)
        self.assertEqual(status, 200)
        self.assertGreater(min(after), max(before))
        last_ts_a = (max(before) >> 22) + EPOCH
        first_ts_b = (min(after) >> 22) + EPOCH
        self.assertGreater(first_ts_b, last_ts_a)

    def test_defaults_mint_without_gaps(self):
        # With the default TTL and reserve-ahead, the mark in etcd must stay
        # ahead of the clock between keepalives: no request is refused.
        self.etcd.init("steady")
        s = self.server("--node-lease", f"etcd://127.0.0.1:{self.etcd.client}/steady").start()
        refused = 0
        deadline = time.monotonic() + 7
        while time.monotonic() < deadline:
            status, _ = mint(s.http_port, 10)
            refused += status != 200
            time.sleep(0.05)
        self.assertEqual(refused, 0)

    def test_start_errors(self):
        closed = spare_port()
        s = self.server("--node-lease", f"etcd://127.0.0.1:{closed}/x").start(expect_ready=False)
        status, log = s.wait()
        self.assertEqual(status, 1)
        self.assertIn(f"etcd at http://127.0.0.1:{closed} is unreachable", log)
        a = self.server(*self.etcd.lease_args("full", "4-5")).start()
        b = self.server(*self.etcd.lease_args("full", "4-5")).start()
        c = self.server(*self.etcd.lease_args("full", "4-5")).start(expect_ready=False)
        status, log = c.wait()
        self.assertEqual(status, 1)
        self.assertIn("every node id in the range 4-5 is held by another server", log)
        self.assertEqual(sorted([health(a.http_port)[1]["node_id"], health(b.http_port)[1]["node_id"]]), [4, 5])
        s = self.server("--node-lease", "http://nowhere/x").start(expect_ready=False)
        status, log = s.wait()
        self.assertEqual(status, 2)
        self.assertIn("does not start with etcd:// or etcds://", log)


def main():
    global MINTIDD, NO_FAKETIME
    ap = argparse.ArgumentParser()
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("--no-faketime", action="store_true")
    args, rest = ap.parse_known_args()
    MINTIDD, NO_FAKETIME = os.path.abspath(args.mintidd), args.no_faketime
    unittest.main(argv=[sys.argv[0], "-v"] + rest)


if __name__ == "__main__":
    main()
