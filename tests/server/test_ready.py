# SPDX-License-Identifier: MIT
"""test_ready.py - readiness: GET /readyz, the Redis command READY and the
mintid_ready gauge say, in every worker, whether each served format can mint
now, and name each one that cannot with the service's sentence: etcd
stopped, the node lease revoked under the server, the state directory made
unwritable, the clock stepped back behind the state's mark or the last ID
by more than max-wait. /healthz says whether etcd answers the lease.

Usage: python3 test_ready.py --mintidd PATH [--no-faketime]
"""

import http.client
import json
import os
import re
import signal
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Etcd, Server, children, have_faketime, server_test_args, set_clock  # noqa: E402
from resp_client import Resp, RespError  # noqa: E402

MINTIDD = None
NO_FAKETIME = False


def get(port, path, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        c.request("GET", path, headers=headers or {})
        r = c.getresponse()
        return r.status, r.read().decode()
    finally:
        c.close()


def readyz(port):
    """(status, the answer's JSON) of GET /readyz."""
    status, body = get(port, "/readyz")
    return status, json.loads(body)


def ready_resp(port):
    """READY's reply on a connection of its own: "OK", or the error's text."""
    reply = Resp.once(port, "READY")
    return str(reply) if isinstance(reply, RespError) else reply


def ready_gauges(port):
    """{format: value} of mintid_ready on /metrics."""
    _, text = get(port, "/metrics")
    return {f: int(v) for f, v in re.findall(r'^mintid_ready\{format="([^"]+)"\} (\d+)$', text, re.M)}


def mint(port, fmt="nanoflake"):
    return get(port, f"/v1/{fmt}")


def wait_for(cond, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


class NoDacServer(Server):
    """A server that file modes bind even when the tests run as root, for
    whom they mean nothing otherwise: it runs without CAP_DAC_OVERRIDE."""

    def command(self):
        cmd = super().command()
        if os.geteuid() == 0:
            cmd = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"] + cmd
        return cmd


class Case(unittest.TestCase):
    """Servers given to server() are stopped after the test."""

    def setUp(self):
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.stop()
            s.__exit__(None, None, None)

    def server(self, *args, cls=Server, **kw):
        srv = cls(MINTIDD, args=list(args), **kw)
        self.servers.append(srv)
        return srv

    def need_faketime(self):
        if NO_FAKETIME:
            self.skipTest("libfaketime and the sanitizers' runtimes do not mix; the plain build runs this")
        if not have_faketime():
            self.fail("libfaketime is not installed (make deps installs it)")

    def assert_ready(self, srv):
        status, doc = readyz(srv.http_port)
        self.assertEqual((status, doc), (200, {"status": "ready"}))
        self.assertEqual(get(srv.http_port, "/livez"), (200, '{"status":"alive"}\n'))
        self.assertEqual(ready_resp(srv.resp_port), "OK")
        gauges = ready_gauges(srv.http_port)
        self.assertTrue(gauges, "no mintid_ready on /metrics")
        self.assertEqual({f for f, v in gauges.items() if v != 1}, set())

    def not_ready(self, srv, seconds=10, poke=None):
        """Waits (within seconds, calling poke() each time) for /readyz to
        answer 503; returns its cannot_mint, after checking that READY
        refuses too and that the gauges at 0 are those formats."""
        def answered():
            if poke is not None:
                poke()
            return readyz(srv.http_port)[0] == 503
        self.assertTrue(wait_for(answered, seconds), f"/readyz still 200 after {seconds} s: {readyz(srv.http_port)}")
        status, doc = readyz(srv.http_port)
        self.assertEqual((status, doc["status"]), (503, "not ready"), doc)
        cannot = doc["cannot_mint"]
        self.assertTrue(cannot, doc)
        reply = ready_resp(srv.resp_port)
        self.assertTrue(reply.startswith("TRYAGAIN not ready: "), reply)
        gauges = ready_gauges(srv.http_port)
        self.assertEqual({f for f, v in gauges.items() if v == 0}, set(cannot), gauges)
        return cannot

    def served(self, srv, headers=None):
        """The formats srv serves, as /v1/formats says."""
        _, body = get(srv.http_port, "/v1/formats", headers)
        return {f["name"] for f in json.loads(body) if f["served"]}

    def each_worker(self, srv, check):
        """check(), answered by each worker in turn: the others stopped
        meanwhile, so only that one accepts the fresh connections."""
        workers = children(srv.proc.pid)
        self.assertEqual(len(workers), 2, workers)
        for w in workers:
            others = [o for o in workers if o != w]
            for o in others:
                os.kill(o, signal.SIGSTOP)
            try:
                with self.subTest(worker=w):
                    check()
            finally:
                for o in others:
                    os.kill(o, signal.SIGCONT)


class Ready(Case):
    def test_ready_without_a_secret(self):
        """A server that can mint: 200, +OK and every gauge 1; a probe
        needs no secret, as for /healthz."""
        secrets = tempfile.NamedTemporaryFile("w", prefix="mintid-secrets-")
        self.addCleanup(secrets.close)
        secrets.write("s3cret\n")
        secrets.flush()
        srv = self.server("--node", "0", "--auth-file", secrets.name).start()
        self.assertEqual(get(srv.http_port, "/v1/formats")[0], 401)
        status, doc = readyz(srv.http_port)
        self.assertEqual((status, doc), (200, {"status": "ready"}))
        self.assertEqual(get(srv.http_port, "/livez"), (200, '{"status":"alive"}\n'))
        self.assertEqual(ready_resp(srv.resp_port), "OK")
        self.assertIsInstance(Resp.once(srv.resp_port, "INFO"), RespError, "INFO asked no secret")
        secret = {"Authorization": "Bearer s3cret"}
        _, text = get(srv.http_port, "/metrics", secret)
        self.assertEqual(set(re.findall(r'^mintid_ready\{format="([^"]+)"\} 1$', text, re.M)),
                         self.served(srv, secret))

    def test_state_directory_unwritable_in_every_worker(self):
        """The state directory read-only: once the writer (the supervisor's)
        fails, not ready in each worker, every format saying the state file
        could not be written (READY once for all), although the reservation
        on disk may still cover a while; ready again once it is written."""
        srv = self.server("--node", "0", "--workers", "2", cls=NoDacServer).start()
        self.assertEqual(mint(srv.http_port)[0], 200)
        os.chmod(srv.state_dir, 0o500)
        try:
            # Minting asks the writer for marks ahead: it finds it cannot write.
            cannot = self.not_ready(srv, poke=lambda: mint(srv.http_port))
            why = "the state file could not be written; no ID is issued beyond its mark"
            served = self.served(srv)
            self.assertEqual(cannot, {f: why for f in served})

            def refused_by_this_worker():
                self.assertEqual(readyz(srv.http_port), (503, {"status": "not ready",
                                                              "cannot_mint": {f: why for f in served}}))
                self.assertEqual(ready_resp(srv.resp_port), f"TRYAGAIN not ready: every format: {why}")
                self.assertEqual(get(srv.http_port, "/healthz")[0], 503)
            self.each_worker(srv, refused_by_this_worker)
        finally:
            os.chmod(srv.state_dir, 0o700)
        self.assertTrue(wait_for(lambda: mint(srv.http_port)[0] == 200 and readyz(srv.http_port)[0] == 200, 10),
                        f"not ready once the state directory could be written: {readyz(srv.http_port)}")
        self.assert_ready(srv)

    def test_clock_behind_the_mark_in_every_worker(self):
        """A server started on a state directory whose mark a run before
        left, then its clock stepped back 30 s behind that mark: a mint
        would wait longer than max-wait, so every format is not ready, in
        each worker, saying so; ready again with the clock put back."""
        self.need_faketime()
        tmp = tempfile.TemporaryDirectory(prefix="mintid-ready-")
        self.addCleanup(tmp.cleanup)
        clock = os.path.join(tmp.name, "clock")
        set_clock(clock, 0)
        state_dir = os.path.join(tmp.name, "state")
        first = self.server("--node", "0", state_dir=state_dir).start()
        self.assertEqual(mint(first.http_port)[0], 200)
        status, log = first.stop()
        self.assertEqual(status, 0, log)
        srv = self.server("--node", "0", "--workers", "2", state_dir=state_dir, faketime_file=clock).start()
        self.assert_ready(srv)
        set_clock(clock, -30)
        cannot = self.not_ready(srv)
        self.assertEqual(set(cannot), self.served(srv))
        for fmt, why in cannot.items():
            self.assertRegex(why, r"^the clock is behind the state's mark: not minting until it has passed it: "
                                  r"\d+\.\d s from now, longer than max-wait \(1000 ms\)$", fmt)

        def refused_by_this_worker():
            status, doc = readyz(srv.http_port)
            self.assertEqual((status, set(doc.get("cannot_mint", {}))), (503, self.served(srv)))
            self.assertIn("behind the state's mark", ready_resp(srv.resp_port))
        self.each_worker(srv, refused_by_this_worker)
        set_clock(clock, 0)
        self.assertTrue(wait_for(lambda: readyz(srv.http_port)[0] == 200, 10), str(readyz(srv.http_port)))
        self.each_worker(srv, lambda: self.assert_ready(srv))

    def test_clock_behind_the_last_id(self):
        """The clock stepped back 30 s after nanoflake minted: nanoflake,
        and only it, is not ready (its mint would wait past max-wait for
        the last ID's time, and is refused saying so); a server whose
        max-wait is longer than that wait stays ready."""
        self.need_faketime()
        tmp = tempfile.TemporaryDirectory(prefix="mintid-ready-")
        self.addCleanup(tmp.cleanup)
        clock = os.path.join(tmp.name, "clock")
        set_clock(clock, 0)
        short = self.server("--node", "0", faketime_file=clock).start()
        patient = self.server("--node", "1", "--max-wait", "60000", faketime_file=clock).start()
        for srv in (short, patient):
            self.assertEqual(mint(srv.http_port)[0], 200)
            self.assert_ready(srv)
        set_clock(clock, -30)
        cannot = self.not_ready(short)
        self.assertEqual(list(cannot), ["nanoflake"])
        self.assertRegex(cannot["nanoflake"], r"^the clock went back: waiting for it to reach the last ID's time: "
                                              r"\d+\.\d s from now, longer than max-wait \(1000 ms\)$")
        # The same sentence over RESP, but for the seconds to wait, read a moment later.
        same = re.compile(r"\d+\.\d s from now")
        self.assertEqual(same.sub("N s from now", ready_resp(short.resp_port)),
                         same.sub("N s from now", "TRYAGAIN not ready: nanoflake: " + cannot["nanoflake"]))
        status, body = mint(short.http_port)
        self.assertEqual(status, 503, body)
        self.assertIn("the clock went back", body)
        self.assert_ready(patient)
        set_clock(clock, 0)
        self.assertTrue(wait_for(lambda: readyz(short.http_port)[0] == 200, 10), str(readyz(short.http_port)))
        self.assert_ready(short)


class LeaseReady(Case):
    """With a node lease from an etcd of the test's own."""

    def setUp(self):
        super().setUp()
        self.etcd = Etcd()

    def tearDown(self):
        try:
            super().tearDown()
        finally:
            self.etcd.stop()

    def test_etcd_stopped(self):
        """etcd frozen (SIGSTOP): not ready while the lease is still valid
        (and /healthz still 200), every format saying etcd is unreachable,
        and /healthz saying so of the lease; ready again once etcd answers."""
        srv = self.server(*self.etcd.lease_args("stopped", "0-0", ttl=30, margin=2000)).start()
        self.assert_ready(srv)
        _, health = get(srv.http_port, "/healthz")
        lease = json.loads(health)["lease"]
        self.assertTrue(lease["etcd_reachable"], lease)
        # Both from the lease's validity: the last acknowledgement, and the TTL less the margin after it.
        self.assertAlmostEqual(lease["acknowledged_seconds_ago"] + lease["expiry_seconds"], 28, delta=0.002)
        self.etcd.proc.send_signal(signal.SIGSTOP)
        try:
            cannot = self.not_ready(srv)
            status, health = get(srv.http_port, "/healthz")
            lease = json.loads(health)["lease"]
            # A keepalive is acknowledged every TTL/3 for TTL less the
            # margin: the lease is valid for 18 s at least after etcd stopped.
            self.assertEqual((status, lease["valid"], lease["etcd_reachable"]), (200, True, False), health)
            self.assertEqual(set(cannot), self.served(srv))
            for fmt, why in cannot.items():
                self.assertIn("etcd is unreachable", why, fmt)
            # Alive all the same: a restart would not bring etcd back.
            self.assertEqual(get(srv.http_port, "/livez"), (200, '{"status":"alive"}\n'))
            self.assertIn("etcd is unreachable", ready_resp(srv.resp_port))
        finally:
            self.etcd.proc.send_signal(signal.SIGCONT)
        self.assertTrue(wait_for(lambda: readyz(srv.http_port)[0] == 200, 30),
                        f"not ready 30 s after etcd came back: {readyz(srv.http_port)}")
        self.assert_ready(srv)
        self.assertEqual(mint(srv.http_port)[0], 200)

    def test_lease_revoked(self):
        """The node lease revoked in etcd: the server takes the node id
        again, as one not released cleanly, and waits out its last holder
        (TTL plus margin, past max-wait): not ready meanwhile, each format
        saying the lease is why; then ready, and it mints."""
        srv = self.server(*self.etcd.lease_args("revoked", "0-0", ttl=3, margin=800)).start()
        self.assert_ready(srv)
        _, health = get(srv.http_port, "/healthz")
        self.etcd.call("lease/revoke", {"ID": str(int(json.loads(health)["lease"]["id"], 16))})
        cannot = self.not_ready(srv)
        self.assertEqual(set(cannot), self.served(srv))
        for fmt, why in cannot.items():
            self.assertTrue(why.startswith("node lease"), f"{fmt}: {why}")
        self.assertTrue(wait_for(lambda: readyz(srv.http_port)[0] == 200, 30),
                        f"not ready 30 s after the lease was revoked: {readyz(srv.http_port)}")
        self.assert_ready(srv)
        status, body = mint(srv.http_port)[:2]
        self.assertEqual(status, 200, body)


def main():
    global MINTIDD, NO_FAKETIME
    MINTIDD, NO_FAKETIME, argv = server_test_args()
    unittest.main(argv=argv)


if __name__ == "__main__":
    main()
