# SPDX-License-Identifier: MIT
"""test_node_claim.py - one server per node id on a host, whatever happens
to its state directory: the directory deleted (rm -rf) or the symlink
that names it swapped under a running server, then a second server
started on the path with the same node id; a static and a leased node id
that are the same.

Every ID either server issues is kept. A second server that starts
anyway is loaded alongside the first for a second and the failure says
how many identical nanoflakes the two minted.

Usage: python3 test_node_claim.py --mintidd PATH --mintid PATH [--no-faketime] [--sanitized] [--long]
"""

import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faults import (Etcd, FaultCase, Load, ask, check_all, check_mark_covers, check_unique, main,  # noqa: E402
                    mint_http, nanoflake_node, start_refused, wait_for)

NANOFLAKE_ONLY = [("http", "nanoflake", 500, 1), ("resp", "nanoflake", 200, 2)]
# The writer looks at the state directory's path every second; generous.
NOTICE_S = 5


def node_id(server):
    status, body = ask(server.http_port, "/healthz")
    return json.loads(body)["node_id"] if status in (200, 503) else None


def swap_symlink(link, target):
    """Points `link` at `target` in one step, as a deployment would."""
    tmp = link + ".new"
    os.symlink(target, tmp)
    os.replace(tmp, link)


class ClaimCase(FaultCase):
    def setUp(self):
        super().setUp()
        # Both servers of a scenario mint in one id-space, as on a real
        # host; another test running at once has its own.
        self.env = {"MINTID_ID_SPACE": f"claim-{os.getpid()}-{self.id().rsplit('.', 1)[-1][:30]}"}

    def claimed(self, state_dir, args):
        return self.server(state_dir, args, env=self.env)

    def duplicates_if_both_mint(self, first, first_load, second, what):
        """`second` started although `first` mints with its node id: fails
        saying how many identical nanoflakes they minted in one second."""
        lb = Load(second, NANOFLAKE_ONLY, name="second").start()
        self.loads.append(lb)
        time.sleep(1.0)
        lb.stop()
        mine = set(first_load.values("nanoflake"))
        theirs = set(lb.values("nanoflake"))
        self.fail(f"{what}: a second mintidd (pid {second.pid()}) started with the node id of the running pid "
                  f"{first.pid()}; in one second they minted {len(mine & theirs)} identical nanoflakes "
                  f"(of {len(theirs)})")

    def assert_second_refused(self, first, first_load, second, what):
        status, log, served = start_refused(second)
        if served:
            self.duplicates_if_both_mint(first, first_load, second, what)
        self.assertEqual(status, 1, log)
        self.assertIn(f"in use by another mintidd on this host (pid {first.pid()}", log)
        return log

    def assert_stops_minting(self, srv):
        """The server refuses to mint, saying its state directory is gone, and
        /healthz says it is failing."""
        self.assertTrue(wait_for(lambda: mint_http(srv.http_port)[0] == 503, NOTICE_S),
                        f"the server still mints {NOTICE_S} s after its state directory went")
        status, body = mint_http(srv.http_port)
        self.assertIn("state directory is no longer the one this server locked", body)
        status, body = ask(srv.http_port, "/healthz")
        self.assertEqual(status, 503, body)
        self.assertIn("state directory", body)


class DeletedDirectory(ClaimCase):
    def test_rm_rf_under_load_then_second_server_on_the_path(self):
        d = os.path.join(self.tmp, "state")
        a = self.claimed(d, ["--node", "2"]).start()
        la = self.load(a, NANOFLAKE_ONLY, name="first")
        time.sleep(0.5)
        gone = time.monotonic()
        shutil.rmtree(d)
        # The second server makes the directory again, and locks it.
        self.assert_second_refused(a, la, self.claimed(d, ["--node", "2"]), "state directory deleted")
        self.assertEqual(os.listdir(d), [], "the refused server wrote to the state directory")
        self.assert_stops_minting(a)
        noticed = time.monotonic()
        time.sleep(0.3)
        la.stop()
        la.assert_no_failures(self)
        late = [b for c in la.clients for b in c.batches if b.sent > noticed]
        self.assertEqual(len(late), 0, f"{len(late)} batches minted after the server said it had stopped")
        refused = [r for c in la.clients for r in c.refusals if r.sent > gone]
        self.assertGreater(len(refused), 0)
        for r in refused:
            self.assertIn("state directory", r.text)
        status, log = a.stop()
        self.assertEqual(status, 0, log)
        self.assertIn(f"the state directory {d} is no longer the one this server locked", log)
        self.assertGreater(check_all(self, [la.clients], ["nanoflake"]), 0)


class SwappedSymlink(ClaimCase):
    def test_symlink_swapped_under_load_then_second_server_then_back(self):
        one, two = self.dir("one"), self.dir("two")
        link = os.path.join(self.tmp, "state")
        os.symlink(one, link)
        a = self.claimed(link, ["--node", "3"]).start()
        la = self.load(a, NANOFLAKE_ONLY, name="first")
        time.sleep(0.5)
        swap_symlink(link, two)
        self.assert_second_refused(a, la, self.claimed(link, ["--node", "3"]), "state directory symlink swapped")
        self.assertEqual(os.listdir(two), [], "the refused server wrote to the state directory")
        self.assert_stops_minting(a)
        # The symlink put back: the path names the locked directory again.
        swap_symlink(link, one)
        self.assertTrue(wait_for(lambda: mint_http(a.http_port)[0] == 200, NOTICE_S),
                        "minting did not resume once the path named the locked directory again")
        self.assertEqual(ask(a.http_port, "/healthz")[0], 200)
        time.sleep(0.5)
        la.stop()
        la.assert_no_failures(self)
        status, log = a.stop()
        self.assertEqual(status, 0, log)
        self.assertIn("names another directory now", log)
        self.assertGreater(check_all(self, [la.clients], ["nanoflake"]), 0)
        check_mark_covers(self, one, la.clients, when="after a clean stop")


class StaticAndLeased(ClaimCase):
    def setUp(self):
        super().setUp()
        self.etcd = Etcd()
        self.addCleanup(self.etcd.stop)

    def test_leased_server_skips_a_node_id_a_static_one_holds(self):
        a = self.claimed(None, ["--node", "3"]).start()
        la = self.load(a, NANOFLAKE_ONLY, name="static")
        time.sleep(0.3)
        b = self.claimed(None, self.etcd.lease_args("mixed", "3-4")).start()
        if node_id(b) == 3:
            self.duplicates_if_both_mint(a, la, b, "leased beside a static node id")
        self.assertEqual(node_id(b), 4)
        lb = self.load(b, NANOFLAKE_ONLY, name="leased")
        time.sleep(0.5)
        for load in (la, lb):
            load.stop()
            load.assert_no_failures(self)
        status, log = b.stop()
        self.assertEqual(status, 0, log)
        self.assertIn(f"node id 3 is in use by another mintidd on this host (pid {a.pid()})", log)
        status, log = a.stop()
        self.assertEqual(status, 0, log)
        check_unique(self, la.clients + lb.clients, "nanoflake")
        self.assertEqual({nanoflake_node(v) for v in lb.values("nanoflake")}, {4})

    def test_static_server_refused_the_node_id_a_leased_one_holds(self):
        a = self.claimed(None, self.etcd.lease_args("held", "5-5")).start()
        self.assertEqual(node_id(a), 5)
        la = self.load(a, NANOFLAKE_ONLY, name="leased")
        time.sleep(0.3)
        self.assert_second_refused(a, la, self.claimed(None, ["--node", "5"]), "static beside a leased node id")
        self.assertEqual(mint_http(a.http_port)[0], 200)
        la.stop()
        la.assert_no_failures(self)
        status, log = a.stop()
        self.assertEqual(status, 0, log)
        check_all(self, [la.clients], ["nanoflake"])

    def test_claim_follows_a_lease_that_moves(self):
        a = self.claimed(None, self.etcd.lease_args("moves", "6-7", ttl=2, margin=500)).start()
        self.assertEqual(node_id(a), 6)
        la = self.load(a, NANOFLAKE_ONLY, name="leased")
        time.sleep(0.3)
        # Node 6's key taken from under the lease (as by a hand edit): the
        # server loses node 6 at its next mark write and leases node 7.
        self.etcd.put("/moves/nodes/6", "someone else")
        self.assertTrue(wait_for(lambda: node_id(a) == 7, 10), f"still node {node_id(a)}")
        self.assert_second_refused(a, la, self.claimed(None, ["--node", "7"]), "static beside a lease that moved")
        # Node 6 is no longer claimed: a static server may have it.
        c = self.claimed(None, ["--node", "6"]).start()
        lc = self.load(c, NANOFLAKE_ONLY, name="static")
        time.sleep(0.5)
        for load in (la, lc):
            load.stop()
            load.assert_no_failures(self)
        for s in (a, c):
            status, log = s.stop()
            self.assertEqual(status, 0, log)
        check_unique(self, la.clients + lc.clients, "nanoflake")
        self.assertEqual({nanoflake_node(v) for v in la.values("nanoflake")} - {6, 7}, set())


if __name__ == "__main__":
    main()
