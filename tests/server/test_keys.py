#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_keys.py - IDs assigned to idempotency keys exactly once.

POST /v1/{format} with an Idempotency-Key, RESP's MINT ... KEY key, and
what a key was given (GET /v1/keys/{format}/{key}, KEYGET), against a real
mintidd: replays, mismatches, a retry while the first is still being
committed, restarts and kill -9, expiry (one clock for every worker, a
worker restarted after the clock stepped, a reboot), a full store, a
damaged, deleted or replaced store, and keys scoped per secret.
"""

import http.client
import json
import os
import re
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, children, have_faketime, set_clock, server_test_args  # noqa: E402
from resp_client import Resp, RespError  # noqa: E402

MINTIDD = None
NO_FAKETIME = False


def request(port, method, path, headers=None, timeout=30):
    """(status, headers as a lower-cased dict, body text)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode()
    finally:
        conn.close()


def post(srv, path, key=None, headers=None):
    h = dict(headers or {})
    if key is not None:
        h["Idempotency-Key"] = key
    return request(srv.http_port, "POST", path, h)


def store_path(srv):
    return os.path.join(srv.state_dir, "keys.sqlite")


class Keys(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server(MINTIDD).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.__exit__(None, None, None)

    def test_replay(self):
        status, headers, first = post(self.srv, "/v1/nanoflake?count=3", '"order-1"')
        self.assertEqual(status, 201, first)
        self.assertEqual(len(first.split()), 3)
        self.assertNotIn("idempotent-replayed", headers)
        self.assertEqual(headers["cache-control"], "no-store")
        status, headers, again = post(self.srv, "/v1/nanoflake?count=3", '"order-1"')
        self.assertEqual((status, again), (200, first))
        self.assertEqual(headers["idempotent-replayed"], "true")
        # The same IDs, framed as the retry asks.
        status, _, body = post(self.srv, "/v1/nanoflake?count=3", '"order-1"', {"Accept": "application/json"})
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(body), {"ids": first.split()})
        # A new key mints anew; no key is a plain mint.
        status, _, other = post(self.srv, "/v1/nanoflake?count=3", '"order-2"')
        self.assertEqual(status, 201)
        self.assertFalse(set(other.split()) & set(first.split()))
        status, headers, plain = post(self.srv, "/v1/nanoflake")
        self.assertEqual(status, 200)
        self.assertNotIn(plain.strip(), first.split())

    def test_what_a_key_was_given(self):
        key = 'dev/ice "7" \\ 100%'
        header = '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'
        status, _, ids = post(self.srv, "/v1/typeid?count=2&prefix=user", header)
        self.assertEqual(status, 201, ids)
        path = "/v1/keys/typeid/" + urllib.parse.quote(key, safe="")
        status, _, body = request(self.srv.http_port, "GET", path)
        self.assertEqual((status, body), (200, ids))
        status, _, body = request(self.srv.http_port, "GET", path, {"Accept": "application/json"})
        doc = json.loads(body)
        self.assertEqual(doc["ids"], ids.split())
        self.assertEqual((doc["format"], doc["key"], doc["count"], doc["prefix"]), ("typeid", key, 2, "user"))
        # Another format's key of the same name is another key.
        status, _, body = request(self.srv.http_port, "GET", "/v1/keys/nanoflake/" + urllib.parse.quote(key, safe=""))
        self.assertEqual(status, 404, body)
        status, _, body = request(self.srv.http_port, "GET", "/v1/keys/nanoflake/never-given")
        self.assertEqual(status, 404, body)
        status, _, body = request(self.srv.http_port, "GET", "/v1/keys/nosuchformat/k")
        self.assertEqual(status, 404, body)
        self.assertIn("unknown format", body)

    def test_mismatch(self):
        status, _, ids = post(self.srv, "/v1/typeid?prefix=user", '"m-1"')
        self.assertEqual(status, 201)
        for path in ("/v1/typeid?prefix=team", "/v1/typeid", "/v1/typeid?prefix=user&count=2", "/v1/typeid?as=uuid"):
            with self.subTest(path=path):
                status, _, body = post(self.srv, path, '"m-1"')
                self.assertEqual(status, 422, body)
                self.assertIn("another request", body)
        status, _, body = post(self.srv, "/v1/typeid?prefix=user", '"m-1"')
        self.assertEqual((status, body), (200, ids))

    def test_malformed_key(self):
        for value in ("unquoted", '""', '"' + "k" * 256 + '"', '"a\\b"', '"open', '"x" y', '"tab\there"',
                      '"caf\u00e9"'):
            with self.subTest(value=value):
                data = (f"POST /v1/nanoflake HTTP/1.1\r\nHost: h\r\nIdempotency-Key: {value}\r\n"
                        "Connection: close\r\n\r\n").encode("utf-8")
                with socket.create_connection(("127.0.0.1", self.srv.http_port), timeout=10) as s:
                    s.sendall(data)
                    reply = b""
                    while chunk := s.recv(65536):
                        reply += chunk
                self.assertTrue(reply.startswith(b"HTTP/1.1 400 "), reply)
        status, _, body = post(self.srv, "/v1/nanoflake", '"' + "k" * 255 + '"')
        self.assertEqual(status, 201, body)
        status, _, body = request(self.srv.http_port, "GET", "/v1/nanoflake", {"Idempotency-Key": '"g"'})
        self.assertEqual(status, 400)
        self.assertIn("POST", body)

    def test_resp(self):
        r = Resp(self.srv.resp_port)
        one = r.call("MINT", "nanoflake", "KEY", "r-1")
        self.assertIsInstance(one, str)
        self.assertEqual(r.call("MINT", "nanoflake", "KEY", "r-1"), one)
        self.assertEqual(r.call("KEYGET", "nanoflake", "r-1"), [one])
        self.assertIsNone(r.call("KEYGET", "nanoflake", "r-never"))
        many = r.call("MINT", "typeid", "2", "PREFIX", "user", "KEY", "r-2")
        self.assertEqual(len(many), 2)
        self.assertTrue(all(i.startswith("user_") for i in many))
        self.assertEqual(r.call("MINT", "typeid", "2", "PREFIX", "user", "KEY", "r-2"), many)
        err = r.call("MINT", "typeid", "3", "PREFIX", "user", "KEY", "r-2")
        self.assertIsInstance(err, RespError)
        self.assertTrue(str(err).startswith("MISMATCH "), err)
        err = r.call("MINT", "nanoflake", "KEY")
        self.assertIsInstance(err, RespError)
        err = r.call("MINT", "nanoflake", "KEY", "bad\x01key")
        self.assertIsInstance(err, RespError)
        # HTTP and RESP share the keys: the same request is the same key.
        status, _, body = post(self.srv, "/v1/nanoflake", '"r-1"')
        self.assertEqual((status, body), (200, one + "\n"))
        # Inside a transaction, and pipelined behind other commands.
        self.assertEqual(r.call("MULTI"), "OK")
        self.assertEqual(r.call("MINT", "nanoflake", "KEY", "r-1"), "QUEUED")
        self.assertEqual(r.call("KEYGET", "nanoflake", "r-1"), "QUEUED")
        self.assertEqual(r.call("EXEC"), [one, [one]])
        r.send("PING")
        r.send("MINT", "nanoflake", "KEY", "r-1")
        r.send("PING")
        self.assertEqual([r.read(), r.read(), r.read()], ["PONG", one, "PONG"])
        r.close()

    def test_conflict_while_the_store_is_locked(self):
        # Another process holds the store's write lock: the first of two
        # requests with one key waits for its commit (in the store's
        # thread), the other is told it is in progress (409), plain minting
        # goes on, and once the lock is let go the first is answered.
        db = sqlite3.connect(store_path(self.srv), isolation_level=None, timeout=10)
        db.execute("BEGIN IMMEDIATE")
        req = (b'POST /v1/nanoflake HTTP/1.1\r\nHost: h\r\nIdempotency-Key: "slow-1"\r\n'
               b"Connection: close\r\n\r\n")
        socks = [socket.create_connection(("127.0.0.1", self.srv.http_port), timeout=30) for _ in range(2)]
        try:
            for s in socks:
                s.sendall(req)
            ready, _, _ = select.select(socks, [], [], 20)
            self.assertEqual(len(ready), 1, "one of them waits for the store")
            told = ready[0].recv(65536)
            self.assertTrue(told.startswith(b"HTTP/1.1 409 "), told)
            self.assertIn(b"in progress", told)
            r = Resp(self.srv.resp_port)
            err = r.call("MINT", "nanoflake", "KEY", "slow-1")
            self.assertIsInstance(err, RespError)
            self.assertTrue(str(err).startswith("CONFLICT "), err)
            r.close()
            status, _, _ = request(self.srv.http_port, "GET", "/v1/nanoflake")
            self.assertEqual(status, 200)
            waiting = socks[1] if ready[0] is socks[0] else socks[0]
            self.assertEqual(select.select([waiting], [], [], 0)[0], [])
            db.execute("COMMIT")
            answer = b""
            while chunk := waiting.recv(65536):
                answer += chunk
        finally:
            if db.in_transaction:
                db.execute("COMMIT")
            db.close()
            for s in socks:
                s.close()
        self.assertTrue(answer.startswith(b"HTTP/1.1 201 "), answer)
        ids = answer.split(b"\r\n\r\n", 1)[1].decode()
        status, _, body = post(self.srv, "/v1/nanoflake", '"slow-1"')
        self.assertEqual((status, body), (200, ids))

    def test_another_process_won(self):
        # Another process sharing the file (a worker) committed the key
        # first: this server's own IDs lose, and it answers with the
        # winner's, which the store's insert decides, not a check in memory.
        status, _, won = post(self.srv, "/v1/nanoflake", '"winner-source"')
        self.assertEqual(status, 201)
        with sqlite3.connect(store_path(self.srv), timeout=10) as db:
            db.execute("INSERT INTO keys SELECT scope, format, CAST('other-process' AS BLOB), count, form, prefix, ids,"
                       " created_ms FROM keys WHERE key = CAST('winner-source' AS BLOB)")
        status, headers, body = post(self.srv, "/v1/nanoflake", '"other-process"')
        self.assertEqual((status, body), (200, won))
        self.assertEqual(headers["idempotent-replayed"], "true")

    def test_the_store_file(self):
        # Never the secret, nor a key's ID beside another's.
        with sqlite3.connect(store_path(self.srv)) as db:
            self.assertEqual(db.execute("PRAGMA journal_mode").fetchone()[0], "wal")
        # Its owner's alone, as the state directory is, with its WAL.
        self.assertEqual(post(self.srv, "/v1/nanoflake", '"file-mode"')[0], 201)
        for suffix in ("", "-wal"):
            mode = os.stat(store_path(self.srv) + suffix).st_mode & 0o777
            self.assertEqual(mode, 0o600, f"keys.sqlite{suffix} is {mode:o}")

    def test_an_older_store_file(self):
        # A store an earlier release made readable by all (0644, as the
        # umask left it), in rollback-journal mode: it is its owner's alone
        # from this start on, WAL included, and in WAL mode.
        with tempfile.TemporaryDirectory(prefix="mintidd-test-") as tmp:
            state = os.path.join(tmp, "state")
            with Server(MINTIDD, state_dir=state) as srv:
                self.assertEqual(post(srv, "/v1/nanoflake", '"older"')[0], 201)
            path = os.path.join(state, "keys.sqlite")
            with sqlite3.connect(path) as db:
                db.execute("PRAGMA journal_mode=DELETE")
            os.chmod(path, 0o644)
            with Server(MINTIDD, state_dir=state) as srv:
                self.assertEqual(post(srv, "/v1/nanoflake", '"older"')[0], 200)
                self.assertEqual(post(srv, "/v1/nanoflake", '"newer"')[0], 201)
                for suffix in ("", "-wal"):
                    mode = os.stat(path + suffix).st_mode & 0o777
                    self.assertEqual(mode, 0o600, f"keys.sqlite{suffix} is {mode:o}")
                with sqlite3.connect(path) as db:
                    self.assertEqual(db.execute("PRAGMA journal_mode").fetchone()[0], "wal")


class Lifetimes(unittest.TestCase):
    def test_restart_and_kill9(self):
        with tempfile.TemporaryDirectory() as tmp:
            state = os.path.join(tmp, "state")
            srv = Server(MINTIDD, state_dir=state).start()
            status, _, ids = post(srv, "/v1/snowflake?count=5", '"k9"')
            self.assertEqual(status, 201)
            r = Resp(srv.resp_port)
            one = r.call("MINT", "nanoflake", "KEY", "k9r")
            r.close()
            srv.kill()  # right after the replies: they were on disk before they left
            srv = Server(MINTIDD, state_dir=state).start()
            status, headers, again = post(srv, "/v1/snowflake?count=5", '"k9"')
            self.assertEqual((status, again), (200, ids))
            self.assertEqual(Resp.once(srv.resp_port, "MINT", "nanoflake", "KEY", "k9r"), one)
            srv.stop()
            srv = Server(MINTIDD, state_dir=state).start()
            status, _, again = post(srv, "/v1/snowflake?count=5", '"k9"')
            self.assertEqual((status, again), (200, ids))
            srv.stop()

    def test_store_deleted_or_replaced(self):
        """A store deleted, or replaced by another server's, while the server
        was stopped is refused (every key would get new IDs, or be answered
        from another's), until keys.id beside it is removed on purpose."""
        def refused(state, *texts):
            srv = Server(MINTIDD, state_dir=state).start(expect_ready=False)
            try:
                status, log = srv.wait()
            finally:
                srv.__exit__(None, None, None)
            self.assertEqual(status, 1, log)
            for text in texts:
                self.assertIn(text, log)

        with tempfile.TemporaryDirectory() as tmp:
            state, other = os.path.join(tmp, "state"), os.path.join(tmp, "other")
            with Server(MINTIDD, state_dir=state) as srv:
                status, _, ids = post(srv, "/v1/nanoflake", '"kept"')
                self.assertEqual(status, 201)
            with Server(MINTIDD, state_dir=other) as srv:
                self.assertEqual(post(srv, "/v1/nanoflake", '"kept"')[0], 201)
            # The store moved away with its -wal and -shm (workers may leave them).
            saved = os.path.join(tmp, "saved")
            os.mkdir(saved)
            for name in os.listdir(state):
                if name.startswith("keys.sqlite"):
                    os.rename(os.path.join(state, name), os.path.join(saved, name))
            refused(state, "key store", "is missing", "keys.id")
            for name in os.listdir(other):
                if name.startswith("keys.sqlite"):
                    shutil.copy(os.path.join(other, name), os.path.join(state, name))
            refused(state, "is not the one this state directory made")
            for name in os.listdir(saved):
                os.replace(os.path.join(saved, name), os.path.join(state, name))
            with Server(MINTIDD, state_dir=state) as srv:
                self.assertEqual(post(srv, "/v1/nanoflake", '"kept"')[::2], (200, ids))
            # The loss taken on purpose.
            for name in os.listdir(state):
                if name.startswith("keys."):
                    os.remove(os.path.join(state, name))
            with Server(MINTIDD, state_dir=state) as srv:
                self.assertEqual(post(srv, "/v1/nanoflake", '"kept"')[0], 201)

    def test_store_deleted_with_its_wal_left(self):
        """keys.sqlite deleted (or emptied) while the server was stopped,
        the -wal and -shm files a killed server left beside it still there:
        refused, with keys.id or without it, and the -wal kept; the command
        the message names starts with no keys on purpose."""
        def refused(state, *texts):
            srv = Server(MINTIDD, state_dir=state).start(expect_ready=False)
            try:
                status, log = srv.wait()
            finally:
                srv.__exit__(None, None, None)
            self.assertEqual(status, 1, log)
            for text in texts:
                self.assertIn(text, log)
            self.assertTrue(os.path.exists(os.path.join(state, "keys.sqlite-wal")), "the lost store's -wal is gone")
            return log

        with tempfile.TemporaryDirectory() as tmp:
            state = os.path.join(tmp, "state")
            srv = Server(MINTIDD, state_dir=state, args=["--workers", "2"]).start()
            workers = children(srv.proc.pid)
            first = {}
            for i in range(20):
                status, _, first[i] = post(srv, "/v1/nanoflake", f'"w{i}"')
                self.assertEqual(status, 201)
            srv.kill()
            deadline = time.monotonic() + 10
            while any(os.path.exists(f"/proc/{w}") for w in workers) and time.monotonic() < deadline:
                time.sleep(0.02)
            self.assertFalse(any(os.path.exists(f"/proc/{w}") for w in workers), "the workers outlived the supervisor")
            path = os.path.join(state, "keys.sqlite")
            self.assertTrue(os.path.exists(path + "-wal"))
            os.remove(path)
            command = "rm -f keys.sqlite keys.sqlite-wal keys.sqlite-shm keys.id"
            refused(state, f"key store {path} is missing or empty, but {state}/keys.id shows", command)
            # Without keys.id too (the -wal is what shows the store was there),
            # and with an empty file in the store's place.
            os.remove(os.path.join(state, "keys.id"))
            refused(state, "is missing or empty", f"{path}-wal shows", command)
            open(path, "w").close()
            log = refused(state, "is missing or empty", f"{path}-wal shows", command)
            # The loss taken on purpose, by the command the message names.
            line = next(x for x in log.splitlines() if "to start with no keys on purpose: " in x)
            subprocess.run(line.split("to start with no keys on purpose: ", 1)[1], shell=True, check=True)
            with Server(MINTIDD, state_dir=state) as srv:
                status, _, body = post(srv, "/v1/nanoflake", '"w0"')
                self.assertEqual(status, 201, body)
                self.assertNotEqual(body, first[0])

    def test_expiry(self):
        with Server(MINTIDD, args=["--key-ttl", "1"]) as srv:
            status, _, first = post(srv, "/v1/nanoflake", '"short"')
            self.assertEqual(status, 201)
            # Until the key has expired (key-ttl 1 s), bounded.
            deadline = time.monotonic() + 30
            while request(srv.http_port, "GET", "/v1/keys/nanoflake/short")[0] == 200 and time.monotonic() < deadline:
                time.sleep(0.1)
            status, _, body = request(srv.http_port, "GET", "/v1/keys/nanoflake/short")
            self.assertEqual(status, 404, body)
            status, _, second = post(srv, "/v1/nanoflake", '"short"')
            self.assertEqual(status, 201)
            self.assertNotEqual(first, second)
            # Expiry removes the old rows from the file too, in the store's
            # thread, a batch at a time between commits.
            for i in range(1200):
                post(srv, "/v1/nanoflake", f'"e{i}"')

            def left():
                with sqlite3.connect(store_path(srv)) as db:
                    return (db.execute("SELECT count(*) FROM keys").fetchone()[0],
                            db.execute("SELECT value FROM meta WHERE name = 'keys'").fetchone()[0])

            deadline = time.monotonic() + 30
            while left() != (0, 0) and time.monotonic() < deadline:
                time.sleep(0.2)
            self.assertEqual(left(), (0, 0))

    def test_clock_stepped_forward(self):
        # A key lives key-ttl while the server runs, whatever the system
        # clock is set to meanwhile: a clock stepped two hours forward
        # expires no key of an hour's key-ttl given a moment ago.
        if NO_FAKETIME:
            self.skipTest("libfaketime is not preloaded into a sanitizer build")
        if not have_faketime():
            self.fail("libfaketime is not installed (make deps installs it)")
        with tempfile.TemporaryDirectory() as tmp:
            clock = os.path.join(tmp, "clock")

            set_clock(clock, 0)
            with Server(MINTIDD, faketime_file=clock, args=["--key-ttl", "3600"]) as srv:
                status, _, first = post(srv, "/v1/nanoflake", '"stepped"')
                self.assertEqual(status, 201)
                set_clock(clock, 7200)
                self.assertEqual(post(srv, "/v1/nanoflake", '"stepped"')[::2], (200, first))
                status, _, body = request(srv.http_port, "GET", "/v1/keys/nanoflake/stepped")
                self.assertEqual((status, body), (200, first))

    def test_worker_restarted_after_clock_step(self):
        # The workers share one store, and a key's age is one age for all
        # of them: a worker restarted (a crash, the OOM killer) after the
        # system clock stepped forward past key-ttl takes no key for
        # expired, deletes none of the others' keys, and every retry gets
        # exactly its first answer, from a worker started before the step
        # or after it.
        if NO_FAKETIME:
            self.skipTest("libfaketime is not preloaded into a sanitizer build")
        if not have_faketime():
            self.fail("libfaketime is not installed (make deps installs it)")
        with tempfile.TemporaryDirectory() as tmp:
            clock = os.path.join(tmp, "clock")
            set_clock(clock, 0)
            with Server(MINTIDD, faketime_file=clock, args=["--workers", "2", "--key-ttl", "3600"]) as srv:
                self.assertTrue(srv.wait_log(b" ready: ", count=1), srv.log.decode())
                first = {}
                for i in range(40):
                    status, _, body = post(srv, "/v1/nanoflake?count=2", f'"step-{i}"')
                    self.assertEqual(status, 201, body)
                    first[i] = body
                set_clock(clock, 7200)

                def restart(victim):
                    os.kill(victim, signal.SIGKILL)
                    deadline = time.monotonic() + 10
                    while time.monotonic() < deadline and (victim in children(srv.proc.pid) or
                                                           len(children(srv.proc.pid)) < 2):
                        time.sleep(0.02)
                    self.assertNotIn(victim, children(srv.proc.pid), srv.log.decode())
                    self.assertEqual(len(children(srv.proc.pid)), 2, "not restarted:\n" + srv.log.decode())

                def retries(rounds):
                    # Each on a connection of its own, taken by either worker.
                    for _ in range(rounds):
                        for i in range(40):
                            status, _, body = post(srv, "/v1/nanoflake?count=2", f'"step-{i}"')
                            self.assertEqual((status, body), (200, first[i]), f"key step-{i}")

                # One worker restarted beside one started before the step,
                # then the other: every retry is then a restarted worker's.
                workers = children(srv.proc.pid)
                restart(workers[0])
                retries(2)
                restart(workers[1])
                retries(1)
                with sqlite3.connect(store_path(srv)) as db:
                    self.assertEqual(db.execute("SELECT count(*) FROM keys").fetchone()[0], 40)

    def test_keys_age_across_a_reboot(self):
        # After a reboot (another boot id in the store's clock) a key's age
        # goes on from where the store left it, by the time the system clock
        # counts while the host was down: a step of the clock before the
        # reboot is not taken for time the key lived (nor is every key
        # deleted at the start), and a host down past key-ttl finds its keys
        # expired (none lives for ever).
        if NO_FAKETIME:
            self.skipTest("libfaketime is not preloaded into a sanitizer build")
        if not have_faketime():
            self.fail("libfaketime is not installed (make deps installs it)")
        with tempfile.TemporaryDirectory() as tmp:
            clock, state = os.path.join(tmp, "clock"), os.path.join(tmp, "state")

            def reboot():
                with sqlite3.connect(os.path.join(state, "keys.sqlite")) as db:
                    self.assertEqual(db.execute("UPDATE clock SET boot = 'a boot before'").rowcount, 1)

            set_clock(clock, 0)
            with Server(MINTIDD, state_dir=state, faketime_file=clock, args=["--key-ttl", "3600"]) as srv:
                status, _, first = post(srv, "/v1/nanoflake", '"booted"')
                self.assertEqual(status, 201, first)
                set_clock(clock, 7200)
            reboot()
            with Server(MINTIDD, state_dir=state, faketime_file=clock, args=["--key-ttl", "3600"]) as srv:
                self.assertEqual(post(srv, "/v1/nanoflake", '"booted"')[::2], (200, first))
            reboot()
            set_clock(clock, 7200 + 3700)
            with Server(MINTIDD, state_dir=state, faketime_file=clock, args=["--key-ttl", "3600"]) as srv:
                status, _, body = request(srv.http_port, "GET", "/v1/keys/nanoflake/booted")
                self.assertEqual(status, 404, body)
                status, _, body = post(srv, "/v1/nanoflake", '"booted"')
                self.assertEqual(status, 201, body)
                self.assertNotEqual(body, first)
                self.assertIn(b"a new boot", srv.log)

    def test_replay_while_minting_fails(self):
        # A retry whose IDs are in the store gets them even when no ID can
        # be minted (here, the clock stepped back behind the last ID's
        # time); a new key is refused as a plain mint is.
        if NO_FAKETIME:
            self.skipTest("libfaketime is not preloaded into a sanitizer build")
        if not have_faketime():
            self.fail("libfaketime is not installed (make deps installs it)")
        with tempfile.TemporaryDirectory() as tmp:
            clock = os.path.join(tmp, "clock")

            set_clock(clock, 0)
            with Server(MINTIDD, faketime_file=clock, args=["--max-wait", "100"]) as srv:
                status, _, first = post(srv, "/v1/nanoflake?count=2", '"behind"')
                self.assertEqual(status, 201)
                resp = Resp(srv.resp_port)
                self.addCleanup(resp.close)
                over_resp = resp.call("MINT", "nanoflake", "KEY", "behind-resp")
                set_clock(clock, -3600)
                status, headers, again = post(srv, "/v1/nanoflake?count=2", '"behind"')
                self.assertEqual((status, again), (200, first))
                self.assertEqual(headers["idempotent-replayed"], "true")
                self.assertEqual(post(srv, "/v1/nanoflake?count=3", '"behind"')[0], 422)
                self.assertEqual(resp.call("MINT", "nanoflake", "KEY", "behind-resp"), over_resp)
                status, _, body = post(srv, "/v1/nanoflake", '"new-while-behind"')
                self.assertEqual(status, 503, body)
                self.assertIn("clock", body)
                self.assertIsInstance(resp.call("MINT", "nanoflake", "KEY", "new-resp"), RespError)
                set_clock(clock, 0)
                self.assertEqual(post(srv, "/v1/nanoflake", '"new-while-behind"')[0], 201)

    def test_counted(self):
        """/metrics and INFO count keyed requests by what became of them."""
        with Server(MINTIDD, args=["--key-max", "1"]) as srv:
            self.assertEqual(post(srv, "/v1/nanoflake", '"a"')[0], 201)
            self.assertEqual(post(srv, "/v1/nanoflake", '"a"')[0], 200)
            self.assertEqual(post(srv, "/v1/nanoflake?count=2", '"a"')[0], 422)
            self.assertEqual(post(srv, "/v1/nanoflake", '"b"')[0], 507)
            self.assertEqual(request(srv.http_port, "GET", "/v1/keys/nanoflake/a")[0], 200)
            self.assertEqual(request(srv.http_port, "GET", "/v1/keys/nanoflake/c")[0], 404)
            self.assertNotIsInstance(Resp.once(srv.resp_port, "MINT", "nanoflake", "KEY", "a"), RespError)
            want = {"created": 1, "replayed": 2, "mismatch": 1, "conflict": 0, "full": 1, "found": 1, "absent": 1,
                    "failed": 0}
            body = request(srv.http_port, "GET", "/metrics")[2]
            got = {m.group(1): int(m.group(2))
                   for m in re.finditer(r'^mintid_keys_total\{outcome="(\w+)"\} (\d+)$', body, re.M)}
            self.assertEqual(got, want)
            info = Resp.once(srv.resp_port, "INFO")
            got = {m.group(1): int(m.group(2)) for m in re.finditer(r"^keys_(\w+):(\d+)\r$", info, re.M)}
            self.assertEqual(got, want)

    def test_full_store(self):
        with Server(MINTIDD, args=["--key-max", "2"]) as srv:
            self.assertEqual(post(srv, "/v1/nanoflake", '"a"')[0], 201)
            status, _, b = post(srv, "/v1/nanoflake", '"b"')
            self.assertEqual(status, 201)
            status, _, body = post(srv, "/v1/nanoflake", '"c"')
            self.assertEqual(status, 507, body)
            self.assertIn("key-max", body)
            err = Resp.once(srv.resp_port, "MINT", "nanoflake", "KEY", "c")
            self.assertIsInstance(err, RespError)
            self.assertIn("key-max", str(err))
            self.assertEqual(post(srv, "/v1/nanoflake")[0], 200)
            self.assertEqual(post(srv, "/v1/nanoflake", '"b"')[:3:2], (200, b))

    def test_damaged_store_file_refuses_start(self):
        with tempfile.TemporaryDirectory() as tmp:
            state = os.path.join(tmp, "state")
            srv = Server(MINTIDD, state_dir=state).start()
            post(srv, "/v1/nanoflake", '"x"')
            srv.stop()
            path = os.path.join(state, "keys.sqlite")
            with open(path, "r+b") as f:
                f.seek(100)
                f.write(os.urandom(3000))
            srv = Server(MINTIDD, state_dir=state).start(expect_ready=False)
            status, log = srv.wait(30)
            self.assertNotEqual(status, 0)
            self.assertIn("key store " + path, log)
            self.assertIn("will not start", log)

    def test_damaged_record_is_never_another_id(self):
        with Server(MINTIDD) as srv:
            status, _, ids = post(srv, "/v1/nanoflake", '"d"')
            self.assertEqual(status, 201)
            with sqlite3.connect(store_path(srv)) as db:
                db.execute("UPDATE keys SET ids = x'00'")
            status, _, body = post(srv, "/v1/nanoflake", '"d"')
            self.assertEqual(status, 503, body)
            self.assertIn("damaged", body)
            self.assertEqual(request(srv.http_port, "GET", "/v1/keys/nanoflake/d")[0], 503)

    def test_scope_per_secret(self):
        with tempfile.TemporaryDirectory() as tmp:
            secrets = os.path.join(tmp, "secrets")
            with open(secrets, "w") as f:
                f.write("first-secret-0123\nsecond-secret-4567\n")
            with Server(MINTIDD, args=["--auth-file", secrets]) as srv:
                a = {"Authorization": "Bearer first-secret-0123"}
                b = {"Authorization": "Bearer second-secret-4567"}
                status, _, ids_a = post(srv, "/v1/nanoflake", '"shared"', a)
                self.assertEqual(status, 201)
                status, _, ids_b = post(srv, "/v1/nanoflake", '"shared"', b)
                self.assertEqual(status, 201)
                self.assertNotEqual(ids_a, ids_b)
                self.assertEqual(post(srv, "/v1/nanoflake", '"shared"', a)[:3:2], (200, ids_a))
                self.assertEqual(request(srv.http_port, "GET", "/v1/keys/nanoflake/shared", b)[:3:2], (200, ids_b))
                self.assertEqual(post(srv, "/v1/nanoflake", '"only-a"', a)[0], 201)
                self.assertEqual(request(srv.http_port, "GET", "/v1/keys/nanoflake/only-a", b)[0], 404)
                self.assertEqual(post(srv, "/v1/nanoflake", '"shared"')[0], 401)
                r = Resp(srv.resp_port)
                self.assertEqual(r.call("AUTH", "second-secret-4567"), "OK")
                self.assertEqual(r.call("KEYGET", "nanoflake", "shared"), [ids_b.strip()])
                self.assertIsNone(r.call("KEYGET", "nanoflake", "only-a"))
                r.close()
                with open(store_path(srv), "rb") as f:
                    raw = f.read()
                for name in ("keys.sqlite-wal",):
                    p = os.path.join(srv.state_dir, name)
                    if os.path.exists(p):
                        with open(p, "rb") as f:
                            raw += f.read()
                self.assertNotIn(b"first-secret", raw)
                self.assertNotIn(b"second-secret", raw)


def main():
    global MINTIDD, NO_FAKETIME
    MINTIDD, NO_FAKETIME, argv = server_test_args()
    unittest.main(argv=argv)


if __name__ == "__main__":
    main()
