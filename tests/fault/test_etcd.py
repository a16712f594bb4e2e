# SPDX-License-Identifier: MIT
"""test_etcd.py - a production etcd: keys deleted under a live holder, a
lease revoked, etcd frozen (the refusals say why), the node space wiped and initialised again, a node id whose mark is ahead of
the clock, every node id held at start, a state directory a year ahead,
a format that cannot mint, and etcd over TLS with client certificates or
with a user and password.

Usage: python3 test_etcd.py --mintidd PATH --mintid PATH [--no-faketime] [--sanitized] [--long]
"""

import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faults import (NANOFLAKE_EPOCH, OPT, Etcd, FaultCase, ask, check_client_order, check_unique,  # noqa: E402
                    main, mint_http, nanoflake_node, start_refused, wait_for)
from harness import make_certs  # noqa: E402

NANOFLAKE_MIX = [("http", "nanoflake", 500, 1), ("http", "nanoflake", 50, 1), ("resp", "nanoflake", 200, 2)]


def node_id(server):
    status, body = ask(server.http_port, "/healthz")
    return json.loads(body)["node_id"] if status in (200, 503) else None


def ts(v):
    """A nanoflake's Unix ms."""
    return (v >> 22) + NANOFLAKE_EPOCH


class EtcdCase(FaultCase):
    def setUp(self):
        super().setUp()
        self.etcd = self.new_etcd()

    def new_etcd(self, **kw):
        etcd = Etcd(**kw)
        self.addCleanup(etcd.stop)
        return etcd

    def init(self, url, *args):
        """`mintidd init --node-lease url args...`: (status, output)."""
        r = subprocess.run([OPT.mintidd, "init", "--node-lease", url, *args], capture_output=True, text=True,
                           timeout=30)
        return r.returncode, r.stdout + r.stderr


class DeletedKeys(EtcdCase):
    def test_node_key_deleted_under_a_live_holder(self):
        """The holder's key and mark go; a new server takes the same node id
        at once. The holder must stop, and the new server must wait until it
        has."""
        args = self.etcd.lease_args("del", "0-0", ttl=2, margin=500)
        a = self.server(args=args).start()
        self.assertEqual(node_id(a), 0)
        la = self.load(a, NANOFLAKE_MIX, name="A")
        time.sleep(0.5)
        # A pauses (well within its lease) so that B, not A, takes node 0
        # again; it goes on minting, its lease still valid, as soon as B has.
        a.proc.send_signal(signal.SIGSTOP)
        self.etcd.delete_prefix("/del/nodes/")
        self.etcd.delete_prefix("/del/marks/")
        deleted = time.monotonic()
        b = self.server(args=args).start(expect_ready=False)
        took = wait_for(lambda: b"node id 0 leased" in b.log, 10)
        a.proc.send_signal(signal.SIGCONT)
        self.assertTrue(took, f"B did not take the node id whose key was deleted:\n{b.log.decode(errors='replace')}")
        self.assertTrue(wait_for(lambda: node_id(b) == 0, 30), "B did not serve")
        lb = self.load(b, NANOFLAKE_MIX, name="B")
        time.sleep(1.0)
        lb.stop()
        la.stop()
        for status, log in (b.stop(), a.stop()):
            self.assertEqual(status, 0, log)
        everything = la.clients + lb.clients
        check_unique(self, everything, "nanoflake")
        check_client_order(self, everything)
        self.assertIn("not released cleanly", b.log.decode(errors="replace"))
        late = [x for c in la.clients for x in c.batches if x.sent > deleted + 2.0]
        self.assertEqual(late, [], "A minted more than a TTL after its key was deleted")
        refused = [r for r in la.refusals() if r.sent > deleted + 2.0]
        self.assertGreater(len(refused), 0)
        for r in refused:
            self.assertIn("lease", r.text)
        # B stopped cleanly: the next holder of node 0 need not wait.
        c = self.server(args=args).start()
        status, ids = mint_http(c.http_port, count=10)
        self.assertEqual(status, 200, ids)
        self.assertNotIn("not released cleanly", c.log.decode(errors="replace"))
        self.assertGreater(min(ids), max(lb.values("nanoflake")))

    def test_lease_revoked_under_a_live_holder(self):
        """Its lease revoked (its key gone with it), the holder takes its node
        id again, but as one not released cleanly: /healthz says it waits,
        and it mints again after the TTL plus the margin."""
        a = self.server(args=self.etcd.lease_args("revoked", "0-0", ttl=2, margin=500)).start()
        status, before = mint_http(a.http_port)
        self.assertEqual(status, 200, before)
        _, body = ask(a.http_port, "/healthz")
        self.etcd.call("lease/revoke", {"ID": str(int(json.loads(body)["lease"]["id"], 16))})
        self.assertTrue(wait_for(lambda: "waiting for the node id's last holder" in ask(a.http_port, "/healthz")[1],
                                 10), ask(a.http_port, "/healthz")[1])
        self.assertTrue(wait_for(lambda: mint_http(a.http_port, count=10)[0] == 200, 10), "A never minted again")
        status, after = mint_http(a.http_port)
        self.assertEqual(status, 200, after)
        self.assertGreater(min(after), max(before))
        # etcd was up all along: the log names the lease's end, not etcd.
        log = a.log.decode(errors="replace")
        self.assertIn("is gone from etcd (expired or revoked)", log)
        self.assertNotIn("unreachable", log)

    def test_prefix_deleted_then_initialised_again(self):
        """The whole prefix goes under a live holder: it stops, and a server
        whose clock is behind refuses the node space until it is initialised
        again with a floor at the loss plus the skew; then it mints above
        everything. An etcd replaced by an empty one is refused too."""
        self.need_faketime()
        args = self.etcd.lease_args("wipe", "0-1", ttl=2, margin=500) + ["--startup-wait", "10000"]
        url = args[1]
        a = self.server(args=args).start()
        la = self.load(a, NANOFLAKE_MIX, name="A")
        time.sleep(0.5)
        self.etcd.delete_prefix("/wipe/")
        deleted, deleted_ms = time.monotonic(), int(time.time() * 1000)
        # B's clock is 1 s behind: with the marks gone, only a floor keeps
        # it from repeating A's last timestamps.
        log = self.assert_refused(self.server(args=args, faketime="-1s"), "mintidd init", "--floor")
        self.assertIn("no marker", log)
        # The floor: the loss, plus the TTL within which A stops, plus B's skew.
        status, out = self.init(url, "--node-range", "0-1", "--floor", str(deleted_ms + 2000 + 1000))
        self.assertEqual(status, 0, out)
        status, out = self.init(url)
        self.assertEqual(status, 1, out)
        self.assertIn("already holds", out)
        b = self.server(args=args, faketime="-1s").start(timeout=30)
        lb = self.load(b, NANOFLAKE_MIX, name="B")
        time.sleep(1.0)
        lb.stop()
        la.stop()
        late = [x for c in la.clients for x in c.batches if x.sent > deleted + 2.0]
        self.assertEqual(late, [], "A minted more than a TTL after the prefix was deleted")
        # A's node space was replaced: it does not lease again.
        status, _ = mint_http(a.http_port, count=10)
        self.assertEqual(status, 503)
        for status, log in (b.stop(), a.stop()):
            self.assertEqual(status, 0, log)
        everything = la.clients + lb.clients
        check_unique(self, everything, "nanoflake")
        from_b = lb.values("nanoflake")
        self.assertTrue(from_b)
        self.assertGreater(min(ts(v) for v in from_b), deleted_ms + 3000)
        # etcd replaced by an empty one: A's state directory refuses it.
        empty = self.new_etcd()
        log = self.assert_refused(self.server(a.state_dir, empty.lease_args("wipe", "0-1", init=False)),
                                  "no marker")
        # Initialised anew, it is another cluster: refused unless adopted.
        empty.init("wipe", node_range="0-1")
        log = self.assert_refused(self.server(a.state_dir, empty.lease_args("wipe", "0-1")), "--adopt-params 1")
        self.assertIn("served cluster", log)
        c = self.server(a.state_dir, empty.lease_args("wipe", "0-1") + ["--adopt-params", "1"]).start()
        status, ids = mint_http(c.http_port)
        self.assertEqual(status, 200, ids)
        self.assertGreater(min(ids), max(la.values("nanoflake")))


class Unreachable(EtcdCase):
    def test_frozen_etcd_is_named(self):
        """etcd frozen (it accepts connections, answers nothing): minting
        stops once the clock reaches the mark in etcd, which cannot be moved,
        and the refusals and the log say that etcd is unreachable. With the
        default TTL and margin, the mark (reserve-ahead) runs out first, while
        a request to etcd is still waiting for its answer."""
        a = self.server(args=self.etcd.lease_args("frozen", "0-0", ttl=10, margin=2000)).start()
        status, ids = mint_http(a.http_port)
        self.assertEqual(status, 200, ids)
        self.etcd.proc.send_signal(signal.SIGSTOP)
        refusals = []

        def refused():
            status, text = mint_http(a.http_port)
            if status != 200:
                refusals.append((status, text))
            return status != 200
        try:
            self.assertTrue(wait_for(refused, 20), "minting did not stop")
            self.assertEqual(refusals[0][0], 503, refusals)
            self.assertIn("etcd is unreachable", refusals[0][1])
            self.assertTrue(wait_for(lambda: b"keepalive failed (etcd is unreachable)" in a.log, 20),
                            a.log.decode(errors="replace"))
        finally:
            self.etcd.proc.send_signal(signal.SIGCONT)
        self.assertTrue(wait_for(lambda: mint_http(a.http_port)[0] == 200, 20), "no minting after etcd came back")


class Init(EtcdCase):
    def test_bad_input_writes_nothing(self):
        url = self.etcd.node_url("bad")
        for args, status, text in [
                ((), 2, None),
                (("--floor", "yesterday"), 2, "is not Unix ms or an RFC 3339 time"),
                (("--floor",), 2, "needs a value"),
                (("--node-range", "9-3"), 2, "node-range"),
                (("--etcd-user", "root"), 2, "etcd-password-file"),
                (("--bogus", "1"), 2, "unknown setting")]:
            with self.subTest(args=args):
                cmd = [OPT.mintidd, "init"] + (["--node-lease", url] if args else []) + list(args)
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
                self.assertEqual(r.returncode, status, r.stderr)
                self.assertIn(text or "--node-lease", r.stderr)
                self.assertIsNone(self.etcd.get("/bad/cluster"))
        status, out = self.init(f"etcd://127.0.0.1:{self.etcd.peer}/bad")
        self.assertEqual(status, 1, out)
        self.assertIsNone(self.etcd.get("/bad/cluster"))
        status, out = self.init(url, "--node-range", "0-99", "--floor", "2026-01-01T00:00:00Z")
        self.assertEqual(status, 0, out)
        self.assertRegex(self.etcd.get("/bad/cluster"), r"^mintid-cluster [0-9a-f]{32} floor 1767225600000$")
        self.assertEqual(self.etcd.get("/bad/released/99"), "mintid init")
        self.assertIsNone(self.etcd.get("/bad/released/100"))
        # A state directory's record of its cluster that does not parse is
        # refused, and left as it was.
        d = self.dir("damaged")
        for text in ["garbage\n", "mintid-cluster 1234\n", "", "mintid-cluster " + "a" * 32]:
            with self.subTest(cluster_file=text):
                with open(os.path.join(d, "cluster"), "w") as f:
                    f.write(text)
                self.assert_refused(self.server(d, self.etcd.lease_args("bad", "0-1")), "is not 'mintid-cluster")
                with open(os.path.join(d, "cluster")) as f:
                    self.assertEqual(f.read(), text)


class FutureMark(EtcdCase):
    def test_a_mark_ahead_does_not_block_the_fleet(self):
        """A server ran a day ahead on node 0: servers with a correct clock
        take another node id at once; one whose range holds only node 0
        waits as lease-start-wait allows, and refuses past it."""
        self.need_faketime()
        args = self.etcd.lease_args("ahead", "0-3", ttl=2, margin=500)
        a = self.server(args=args, faketime="+1d").start()
        status, ahead = mint_http(a.http_port, count=1000)
        self.assertEqual(status, 200, ahead)
        status, log = a.stop()
        self.assertEqual(status, 0, log)
        b = self.server(args=args).start()
        self.assertNotEqual(node_id(b), 0)
        status, ids = mint_http(b.http_port, count=1000)
        self.assertEqual(status, 200, ids)
        self.assertNotIn(0, {nanoflake_node(v) for v in ids})
        self.assertEqual(len(set(ahead) | set(ids)), 2000)
        only0 = self.etcd.lease_args("ahead", "0-0", ttl=2, margin=500) + ["--lease-start-wait", "2"]
        self.assert_refused(self.server(args=only0), "lease-start-wait")

    def test_every_node_id_held_waits_for_lease_start_wait(self):
        """A replacement started within the TTL of a crashed holder waits
        for its node id instead of exiting (a crash loop under an
        orchestrator); without lease-start-wait it exits at once."""
        args = self.etcd.lease_args("held", "5-5", ttl=2, margin=500)
        a = self.server(args=args).start()
        status, first = mint_http(a.http_port, count=1000)
        self.assertEqual(status, 200, first)
        a.proc.send_signal(signal.SIGKILL)
        a.wait()
        self.assert_refused(self.server(args=args), "every node id in the range 5-5 is held")
        b = self.server(args=args + ["--lease-start-wait", "15"]).start(timeout=30)
        self.assertEqual(node_id(b), 5)
        status, second = mint_http(b.http_port, count=1000)
        self.assertEqual(status, 200, second)
        self.assertGreater(min(second), max(first))
        self.assertIn("not released cleanly", b.log.decode(errors="replace"))


class OutOfService(EtcdCase):
    def test_back_into_service_after_a_year_ahead(self):
        """A server ran a year ahead on node 0 and stopped. Its state
        directory refuses the right time; a new state directory leases a
        node id whose mark is behind and serves within a minute, without a
        duplicate."""
        self.need_faketime()
        d = self.dir("year")
        args = self.etcd.lease_args("year", "0-1", ttl=2, margin=500)
        a = self.server(d, args, faketime="+365d").start()
        status, ahead = mint_http(a.http_port, count=1000)
        self.assertEqual(status, 200, ahead)
        status, log = a.stop()
        self.assertEqual(status, 0, log)
        self.assert_refused(self.server(d, args), "refusing to start rather than risk a duplicate ID")
        began = time.monotonic()
        b = self.server(self.dir("fresh"), args).start(timeout=60)
        self.assertEqual(node_id(b), 1)
        status, ids = mint_http(b.http_port, count=1000)
        self.assertEqual(status, 200, ids)
        self.assertLess(time.monotonic() - began, 60)
        self.assertEqual(len(set(ahead) | set(ids)), 2000)

    def test_healthz_fails_when_a_format_cannot_mint(self):
        """Sixty years ahead, nanoflake's 41-bit timestamp has run out: the
        server says so rather than "ok"."""
        self.need_faketime()
        s = self.server(args=["--node", "1"], faketime="+60y").start()
        status, body = ask(s.http_port, "/healthz")
        self.assertEqual(status, 503, body)
        self.assertIn("failing", body)
        self.assertIn("cannot mint", body)
        status, log = s.stop()
        self.assertEqual(status, 0, log)


class TlsAndAuth(EtcdCase):
    def setUp(self):
        FaultCase.setUp(self)

    def test_client_certificates(self):
        certs = make_certs(self.dir("certs"))
        etcd = self.new_etcd(certs=certs)
        base = etcd.lease_args("tls", "0-1", ttl=2, margin=500)
        tls = ["--etcd-ca", certs["ca"], "--etcd-cert", certs["client_cert"], "--etcd-key", certs["client_key"]]
        s = self.server(args=base + tls).start()
        status, ids = mint_http(s.http_port)
        self.assertEqual(status, 200, ids)
        self.assertEqual(node_id(s), 0)
        # Without a client certificate etcd does not answer.
        self.assert_refused(self.server(args=base + ["--etcd-ca", certs["ca"]]), "unreachable")
        # Certificates need etcds://, and a certificate its key.
        plain = [a.replace("etcds://", "etcd://") for a in base]
        status, log, _ = self.refused_with(plain + tls)
        self.assertEqual(status, 2, log)
        self.assertIn("etcds://", log)
        status, log, _ = self.refused_with(base + tls[:4])
        self.assertEqual(status, 2, log)
        self.assertIn("etcd-key", log)
        status, log = s.stop()
        self.assertEqual(status, 0, log)

    def refused_with(self, args):
        return start_refused(self.server(args=args))

    def test_three_members_with_authentication_one_killed(self):
        """The member the server talks to is killed: it goes on with
        another, authenticating there as needed, without a duplicate."""
        password = "pw-" + os.urandom(8).hex()
        etcd = self.new_etcd(password=password, members=3)
        pw = os.path.join(self.tmp, "etcd-password")
        with open(pw, "w") as f:
            f.write(password + "\n")
        args = etcd.lease_args("three", "0-1", ttl=2, margin=500) + [
            "--etcd-user", "root", "--etcd-password-file", pw, "--startup-wait", "10000"]
        self.assertEqual(args[1].count(","), 2, args[1])
        s = self.server(args=args).start()
        load = self.load(s, NANOFLAKE_MIX, name="S")
        time.sleep(0.5)
        etcd.kill(0)
        killed = time.monotonic()
        self.assertTrue(wait_for(lambda: any(b.sent > killed for c in load.clients for b in c.batches), 20),
                        "the server did not mint after the member it used was killed")
        time.sleep(0.5)
        load.stop()
        load.assert_no_failures(self)
        check_unique(self, load.clients, "nanoflake")
        status, log = s.stop()
        self.assertEqual(status, 0, log)
        self.assertNotIn(password, log)

    def test_user_and_password_with_a_token_renewed(self):
        password = "pw-" + os.urandom(8).hex()
        etcd = self.new_etcd(password=password)
        pw = os.path.join(self.tmp, "etcd-password")
        with open(pw, "w") as f:
            f.write(password + "\n")
        args = etcd.lease_args("auth", "0-1", ttl=2, margin=500) + [
            "--etcd-user", "root", "--etcd-password-file", pw, "--log-level", "debug", "--startup-wait", "10000"]
        s = self.server(args=args).start()
        load = self.load(s, NANOFLAKE_MIX, name="S")
        time.sleep(0.5)
        # A restarted etcd has forgotten every token it gave: the server
        # must get a new one to keep its node id.
        etcd.kill()
        etcd.start()
        self.assertTrue(wait_for(lambda: mint_http(s.http_port, count=10)[0] == 200, 20),
                        "the server did not mint again after etcd restarted")
        restarted = time.monotonic()
        time.sleep(0.5)
        load.stop()
        load.assert_no_failures(self)
        self.assertGreater(len([b for c in load.clients for b in c.batches if b.sent > restarted]), 0)
        check_unique(self, load.clients, "nanoflake")
        for path in ("/metrics", "/healthz"):
            status, body = ask(s.http_port, path)
            self.assertNotIn(password, body)
        status, log = s.stop()
        self.assertEqual(status, 0, log)
        self.assertNotIn(password, log)
        # A wrong password: a clear refusal, without the password.
        with open(pw, "w") as f:
            f.write("wrong-" + password + "\n")
        log = self.assert_refused(self.server(args=args), "refused etcd-user 'root'")
        self.assertNotIn(password, log)
        # The password is never a setting's value.
        with open(pw, "w") as f:
            f.write("\n")
        status, log, _ = self.refused_with(args)
        self.assertEqual(status, 2, log)
        self.assertIn("no password", log)


if __name__ == "__main__":
    main()
