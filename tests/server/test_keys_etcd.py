#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_keys_etcd.py - idempotency keys across servers that lease their
node ids from one etcd: a key is created there by a create-if-absent
transaction, so two servers given one key at the same moment answer it
with the same IDs."""

import base64
import http.client
import os
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import EtcdCase, Server, have_faketime, set_clock, server_test_args  # noqa: E402
from resp_client import Resp, RespError  # noqa: E402

MINTIDD = None
NO_FAKETIME = False


def post(srv, path, key):
    conn = http.client.HTTPConnection("127.0.0.1", srv.http_port, timeout=30)
    try:
        conn.request("POST", path, headers={"Idempotency-Key": key} if key is not None else {})
        r = conn.getresponse()
        return r.status, r.getheader("Idempotent-Replayed"), r.read().decode()
    finally:
        conn.close()


class KeysInEtcd(EtcdCase):
    def server(self, extra=(), faketime_file=None):
        return self.track(
            Server(MINTIDD, args=self.etcd.lease_args("keys", "0-3", extra=extra), faketime_file=faketime_file).start())

    def test_two_servers_racing_on_one_key(self):
        a, b = self.server(), self.server()
        for i in range(30):
            answers = {}
            start = threading.Barrier(2)

            def ask(srv, name):
                start.wait()
                answers[name] = post(srv, "/v1/snowflake?count=2", f'"race-{i}"')

            threads = [threading.Thread(target=ask, args=(s, n)) for s, n in ((a, "a"), (b, "b"))]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            with self.subTest(key=i):
                statuses = sorted(answers[n][0] for n in "ab")
                self.assertEqual(statuses, [200, 201], answers)
                self.assertEqual(answers["a"][2], answers["b"][2])
                self.assertEqual(len(answers["a"][2].split()), 2)
        # What one server gave, the other replays, over either protocol.
        status, _, ids = post(a, "/v1/nanoflake", '"one"')
        self.assertEqual(status, 201)
        self.assertEqual(post(b, "/v1/nanoflake", '"one"')[::2], (200, ids))
        with Resp(b.resp_port) as r:
            self.assertEqual(r.call("KEYGET", "nanoflake", "one"), ids.split())
        self.assertEqual(post(b, "/v1/nanoflake?count=2", '"one"')[0], 422)
        # A server killed right after its reply: the key is in etcd.
        status, _, ids = post(a, "/v1/nanoflake", '"killed"')
        self.assertEqual(status, 201)
        a.kill()
        self.assertEqual(post(b, "/v1/nanoflake", '"killed"')[::2], (200, ids))

    def test_keys_lease_lost(self):
        # The etcd lease keys are put with is gone before its time (revoked,
        # or etcd restored, or the server's clock stepped back): the next key
        # is put with a new lease rather than refused until the old one
        # would have been granted again.
        a = self.server(["--key-ttl", "86400"])
        status, _, ids = post(a, "/v1/nanoflake", '"first"')
        self.assertEqual(status, 201)
        every = self.etcd.call("kv/range", {"key": base64.b64encode(b"\0").decode(),
                                            "range_end": base64.b64encode(b"\0").decode()})
        leases = {kv["lease"] for kv in every["kvs"]
                  if base64.b64decode(kv["key"]).endswith(b"/nanoflake/" + b"first".hex().encode())}
        self.assertEqual(len(leases), 1, every)
        self.etcd.call("lease/revoke", {"ID": leases.pop()})
        status, _, body = post(a, "/v1/nanoflake", '"second"')
        self.assertEqual(status, 201, body)
        self.assertEqual(post(a, "/v1/nanoflake", '"second"')[::2], (200, body))

    def test_count_a_key_holds_in_etcd(self):
        # A key's IDs are one value in etcd, which refuses a request past
        # its size limit: more IDs than a value holds are refused before
        # minting, as a request that needs changing rather than retrying.
        a = self.server()
        status, _, body = post(a, "/v1/scru160?count=30000", '"most"')
        self.assertEqual((status, len(body.split())), (201, 30000), body[:200])
        # And replayed whole: the answer that carries them is read whole.
        self.assertEqual(post(a, "/v1/scru160?count=30000", '"most"')[::2], (200, body))
        status, _, body = post(a, "/v1/scru160?count=30001", '"too-many"')
        self.assertEqual(status, 400, body)
        self.assertIn("30000", body)
        with Resp(a.resp_port) as r:
            reply = r.call("MINT", "scru160", "30001", "KEY", "too-many")
        self.assertIsInstance(reply, RespError)
        self.assertIn("30000", str(reply))
        self.assertEqual(post(a, "/v1/scru160?count=30001", None)[0], 200)

    def test_replay_while_minting_fails(self):
        if NO_FAKETIME:
            self.skipTest("libfaketime is not preloaded into a sanitizer build")
        if not have_faketime():
            self.fail("libfaketime is not installed (make deps installs it)")
        # The clock stepped back behind the last ID's time: nothing is
        # minted, but a retry still gets the IDs etcd holds for its key.
        with tempfile.TemporaryDirectory() as tmp:
            clock = os.path.join(tmp, "clock")

            set_clock(clock, 0)
            a = self.server(["--max-wait", "100"], faketime_file=clock)
            status, _, ids = post(a, "/v1/nanoflake", '"behind"')
            self.assertEqual(status, 201)
            set_clock(clock, -3600)
            self.assertEqual(post(a, "/v1/nanoflake", '"behind"')[::2], (200, ids))
            self.assertEqual(post(a, "/v1/nanoflake?count=2", '"behind"')[0], 422)
            self.assertEqual(post(a, "/v1/nanoflake", '"new"')[0], 503)
            set_clock(clock, 0)


def main():
    global MINTIDD, NO_FAKETIME
    MINTIDD, NO_FAKETIME, argv = server_test_args()
    unittest.main(argv=argv)


if __name__ == "__main__":
    main()
