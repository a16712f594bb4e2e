# SPDX-License-Identifier: MIT
"""test_leases.py - node ids leased from a real etcd, under load: etcd
killed and restarted, a holder frozen past its TTL while another server
takes its node id, a mark in etcd that does not parse, and a state
directory moved between a static and a leased node id.

Usage: python3 test_leases.py --mintidd PATH --mintid PATH [--no-faketime] [--sanitized] [--long]
"""

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faults import (MIX_SHARED, NANOFLAKE_EPOCH, Etcd, FaultCase, ask, check_client_order, children,  # noqa: E402
                    check_unique, main, mint_http, nanoflake_node, scale, wait_for)

NANOFLAKE_MIX = [("http", "nanoflake", 500, 1), ("http", "nanoflake", 50, 1), ("resp", "nanoflake", 200, 2)]


def node_id(server):
    status, body = ask(server.http_port, "/healthz")
    return json.loads(body)["node_id"] if status in (200, 503) else None


class LeaseCase(FaultCase):
    def setUp(self):
        super().setUp()
        self.etcd = Etcd()
        self.addCleanup(self.etcd.stop)

    def batches(self, load, sent_after=float("-inf"), received_before=float("inf")):
        return [b for c in load.clients if c.fmt.name == "nanoflake" for b in c.batches
                if b.sent > sent_after and b.received < received_before]


class EtcdOutage(LeaseCase):
    def test_etcd_killed_and_restarted_mid_load(self):
        ttl = 3
        args = self.etcd.lease_args("outage", "0-1", ttl=ttl, margin=800) + ["--startup-wait", "10000"]
        servers = [self.server(args=args).start() for _ in range(2)]
        self.assertEqual(sorted(node_id(s) for s in servers), [0, 1])
        loads = [self.load(s, MIX_SHARED, name=f"server {i}") for i, s in enumerate(servers)]
        time.sleep(scale(1.5, 10.0))
        killed = time.monotonic()
        self.etcd.kill()
        time.sleep(ttl + scale(2.0, 20.0))
        for i, load in enumerate(loads):
            with self.subTest(check=f"server {i} stopped minting within the TTL"):
                late = self.batches(load, sent_after=killed + ttl)
                self.assertEqual(len(late), 0, f"{len(late)} batches minted more than {ttl} s after etcd died")
                refused = [r for r in load.refusals() if r.sent > killed + ttl]
                self.assertGreater(len(refused), 0)
                for r in refused:
                    self.assertIn("lease", r.text)
        restarted = time.monotonic()
        self.etcd.start()
        for i, s in enumerate(servers):
            self.assertTrue(wait_for(lambda: mint_http(s.http_port, count=10)[0] == 200, 20),
                            f"server {i} did not mint again after etcd came back")
        time.sleep(scale(2.0, 20.0))
        for load in loads:
            load.stop()
            load.assert_no_failures(self)
            self.assertGreater(len(self.batches(load, sent_after=restarted)), 0)
        for s in servers:
            status, log = s.stop()
            self.assertEqual(status, 0, log)
        everything = [c for load in loads for c in load.clients]
        check_unique(self, everything, "nanoflake")
        check_unique(self, everything, "scru160")
        check_client_order(self, everything)
        self.assertEqual({nanoflake_node(v) for load in loads for v in load.values("nanoflake")} - {0, 1}, set())


class FrozenHolder(LeaseCase):
    def test_frozen_holder_loses_its_node_under_load(self):
        args = self.etcd.lease_args("frozen", "7-7", ttl=2, margin=500) + ["--startup-wait", "10000"]
        a = self.server(args=args).start()
        la = self.load(a, NANOFLAKE_MIX, name="A")
        time.sleep(scale(1.0, 10.0))
        stopped = time.monotonic()
        # Frozen whole, as a frozen container is: the supervisor and its workers.
        frozen = [a.proc.pid] + children(a.proc.pid)
        for pid in frozen:
            os.kill(pid, signal.SIGSTOP)
        time.sleep(3.5)  # past the TTL: etcd lets A's lease go
        mark_a = int(self.etcd.get("/frozen/marks/7"))  # A, frozen, cannot move it
        b = self.server(args=args).start(timeout=30)
        self.assertEqual(node_id(b), 7)
        lb = self.load(b, NANOFLAKE_MIX, name="B")
        time.sleep(1.5)
        resumed = time.monotonic()
        for pid in frozen:
            os.kill(pid, signal.SIGCONT)
        time.sleep(scale(2.5, 20.0))
        b_leaves = time.monotonic()
        lb.stop()
        status, log = b.stop()
        self.assertEqual(status, 0, log)
        with self.subTest(check="A minted nothing under the lost lease"):
            # A request made while A was frozen reached it only once it woke.
            woke = self.batches(la, sent_after=stopped + 0.05, received_before=b_leaves)
            self.assertEqual(len(woke), 0, f"A minted {len(woke)} batches on its lost lease after SIGCONT")
            refused = [r for r in la.refusals() if r.received > resumed and r.sent < b_leaves]
            self.assertGreater(len(refused), 0)
            for r in refused:
                self.assertIn("lease", r.text)
        # B gone, A takes node 7 back and carries on above everything B issued.
        self.assertTrue(wait_for(lambda: mint_http(a.http_port, count=10)[0] == 200, 15), "A never leased node 7 again")
        time.sleep(1.0)
        la.stop()
        la.assert_no_failures(self)
        status, log = a.stop()
        self.assertEqual(status, 0, log)

        everything = la.clients + lb.clients
        check_unique(self, everything, "nanoflake")
        check_client_order(self, everything)
        before = [v for b in self.batches(la, received_before=stopped) for v in b.values]
        from_b = lb.values("nanoflake")
        after = [v for b in self.batches(la, sent_after=b_leaves) for v in b.values]
        self.assertTrue(before and from_b and after, (len(before), len(from_b), len(after)))
        self.assertGreater(min((v >> 22) + NANOFLAKE_EPOCH for v in from_b), mark_a,
                           "B issued an ID at or before A's mark")
        self.assertGreater(min(from_b), max(before))
        self.assertGreater(min(after), max(from_b))


class BadMark(LeaseCase):
    def test_unparsable_mark_in_etcd_is_never_read_as_zero(self):
        for n, value in enumerate(["garbage", "", "12abc", "-5", "99999999999999999999999", "1.5e12"]):
            with self.subTest(mark=value):
                self.etcd.put(f"/bad{n}/marks/3", value)
                s = self.server(args=self.etcd.lease_args(f"bad{n}", "3-4")).start()
                self.assertEqual(node_id(s), 4, "a node id whose mark does not parse was leased")
                status, ids = mint_http(s.http_port)
                self.assertEqual(status, 200, ids)
                self.assertEqual({nanoflake_node(v) for v in ids}, {4})
                status, log = s.stop()
                self.assertEqual(status, 0, log)


class StaticAndLeased(LeaseCase):
    def test_static_and_leased_node_ids_are_different_parameters(self):
        d = self.dir("state")
        a = self.server(d, ["--node", "2"]).start()
        status, first = mint_http(a.http_port, count=1000)
        self.assertEqual(status, 200, first)
        status, log = a.stop()
        self.assertEqual(status, 0, log)
        leased = self.etcd.lease_args("mode", "2-2") + ["--startup-wait", "10000"]
        log = self.assert_refused(self.server(d, leased), "changed")
        self.assertIn("node", log)
        b = self.server(d, leased + ["--adopt-params", "1"]).start(timeout=30)
        status, second = mint_http(b.http_port, count=1000)
        self.assertEqual(status, 200, second)
        self.assertGreater(min(second), max(first))
        status, log = b.stop()
        self.assertEqual(status, 0, log)
        log = self.assert_refused(self.server(d, ["--node", "2"]), "changed")
        self.assertIn("node", log)


if __name__ == "__main__":
    main()
