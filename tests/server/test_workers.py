#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_workers.py - mintidd with worker processes (--workers 2): one host-wide
sequence per format across the workers, a worker killed with kill -9 while
clients mint (restarted, counted, no duplicate, no counter going down), the
supervisor killed (its workers go with it, and the next start repeats no ID),
fencing that stops every worker at once, and SIGHUP reaching every worker."""

import http.client
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, children, server_test_args  # noqa: E402
from resp_client import Resp, RespError  # noqa: E402

MINTIDD = None
WORKERS = ["--workers", "2"]
SNOWFLAKE_EPOCH = 1288834974657


def get(port, path, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", path, headers=headers or {})
    r = c.getresponse()
    body = r.read().decode()
    c.close()
    return r.status, body


def metrics(port):
    """/metrics as {name{labels}: value}."""
    status, body = get(port, "/metrics")
    assert status == 200, body
    out = {}
    for line in body.splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False


def wait_for(cond, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


class Minters:
    """Clients minting snowflake IDs in a loop, each on connections of its
    own, 20 requests to a connection. Every answer but a 200 with the IDs
    asked for is kept in `problems`; a connection that breaks (a worker
    killed under it, the server gone) is kept in `broken` with when it was
    opened and when it broke, and the client goes on with a new one.
    check() says which breaks a test expected."""

    def __init__(self, port, n=6):
        self.port, self.stop_ev = port, threading.Event()
        self.ids = [[] for _ in range(n)]
        self.problems = []  # what a client met that no test expects
        self.broken = []  # (opened, broke, what): connections that broke
        self.threads = [threading.Thread(target=self.run, args=(i,), daemon=True) for i in range(n)]
        for t in self.threads:
            t.start()

    def count(self):
        return sum(len(chunk) for chunk in self.ids)

    def wait_for_ids(self, more, timeout=30):
        """Waits until the clients hold `more` IDs more than now; False if they do not in time."""
        want = self.count() + more
        return wait_for(lambda: self.count() >= want or bool(self.problems), timeout) and not self.problems

    def run(self, i):
        while not self.stop_ev.is_set():
            opened = time.monotonic()
            c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
            try:
                for _ in range(20):
                    c.request("GET", "/v1/snowflake?count=50&as=int")
                    r = c.getresponse()
                    body = r.read().decode()
                    ids = [int(x) for x in body.split()] if r.status == 200 else []
                    if r.status != 200 or len(ids) != 50:
                        self.problems.append(f"client {i}: HTTP {r.status} {body[:200]!r}")
                        return
                    self.ids[i] += ids
            except (OSError, http.client.HTTPException) as e:
                self.broken.append((opened, time.monotonic(), f"client {i}: {type(e).__name__}: {e}"))
                time.sleep(0.01)  # the server may be gone: no spin while the test looks
            except Exception as e:  # noqa: BLE001 - kept for the test, not lost in the thread
                self.problems.append(f"client {i}: {type(e).__name__}: {e}")
                return
            finally:
                c.close()

    def stop(self):
        self.stop_ev.set()
        for t in self.threads:
            t.join(30)
        return [x for chunk in self.ids for x in chunk]

    def check(self, tc, broke_after=None, opened_before=None):
        """No unexpected answer, every client stopped, and no connection broke,
        except ones opened before `opened_before` that broke after
        `broke_after` (time.monotonic(): the window of a kill)."""
        tc.assertEqual([t.name for t in self.threads if t.is_alive()], [], "clients still waiting for an answer")
        tc.assertEqual(self.problems, [])
        unexpected = [what for opened, broke, what in self.broken
                      if broke_after is None or broke < broke_after or opened > opened_before]
        tc.assertEqual(unexpected, [], "connections broke with every worker up (outside a kill)")


class Workers(unittest.TestCase):
    def assert_per_client_order(self, minters):
        for chunk in minters.ids:
            self.assertEqual(chunk, sorted(chunk), "one client's IDs out of order")
            self.assertEqual(len(set(chunk)), len(chunk))

    def test_one_sequence_across_workers(self):
        """Both workers mint from one host-wide sequence: in every millisecond
        the snowflake sequence numbers of all clients together are distinct,
        so the IDs are unique, and each client's are increasing."""
        with Server(MINTIDD, args=WORKERS) as srv:
            self.assertEqual(len(children(srv.proc.pid)), 2)
            m = Minters(srv.http_port, n=8)
            self.addCleanup(m.stop)
            self.assertTrue(m.wait_for_ids(20000), m.problems)
            everything = m.stop()
            m.check(self)
            self.assertEqual(len(set(everything)), len(everything), "duplicate IDs across workers")
            self.assert_per_client_order(m)
            got = metrics(srv.http_port)
            self.assertEqual(got["mintid_workers"], 2)
            self.assertGreaterEqual(got['mintid_ids_issued_total{format="snowflake"}'], len(everything))
            status, log = srv.stop()
            self.assertEqual(status, 0, log)
            self.assertIn("2 workers", log)

    def test_fresh_state_directory(self):
        """Workers that start together on a new state directory all open its
        key store: none is refused by another's lock and dies at start
        and takes the start down with it. (SQLite refuses one of two
        connections that switch a new file to WAL at once, busy timeout or
        not: 8 workers met that in about one start of 20.)"""
        for _ in range(int(os.environ.get("TEST_FRESH_STARTS", "12"))):
            with Server(MINTIDD, args=["--workers", "8"]) as srv:
                self.assertTrue(srv.wait_log(b" ready: ", count=1), srv.log.decode())
                status, log = srv.stop()
                self.assertEqual(status, 0, log)
                self.assertNotIn("exited with status", log)
                self.assertNotIn("restarted", log)

    def test_key_store_deleted(self):
        """keys.sqlite deleted while the server runs, then a worker killed:
        the worker started in its place is refused the missing store, and
        says so in words that name the file and what to do."""
        with Server(MINTIDD, args=WORKERS) as srv:
            # Every worker started: a first one that fails stops the start.
            self.assertTrue(srv.wait_log(b" ready: ", count=1), srv.log.decode())
            os.unlink(os.path.join(srv.state_dir, "keys.sqlite"))
            os.kill(children(srv.proc.pid)[0], signal.SIGKILL)
            self.assertTrue(srv.wait_log(b"keys.sqlite is missing", count=1, timeout=10), srv.log.decode())
            status, log = srv.stop()
            self.assertEqual(status, 0, log)
            self.assertIn("restart mintidd", log)
            self.assertNotIn("unable to open database file", log)

    def test_key_store_replaced(self):
        """keys.sqlite replaced by another file while the server runs (a
        backup copied over it), then a worker killed: the workers still
        running use the file they opened, so the worker started in its
        place is refused the new one instead of answering keys from a store
        of its own."""
        with Server(MINTIDD, args=WORKERS) as srv:
            # Every worker started: a first one that fails stops the start.
            self.assertTrue(srv.wait_log(b" ready: ", count=1), srv.log.decode())
            path = os.path.join(srv.state_dir, "keys.sqlite")
            shutil.copyfile(path, path + ".copy")
            os.replace(path + ".copy", path)
            os.kill(children(srv.proc.pid)[0], signal.SIGKILL)
            self.assertTrue(srv.wait_log(b"keys.sqlite was replaced", count=1, timeout=10), srv.log.decode())
            status, log = srv.stop()
            self.assertEqual(status, 0, log)
            self.assertIn("restart mintidd", log)

    def test_kill_a_worker(self):
        """kill -9 of a worker while clients mint: it is restarted and counted,
        no ID repeats, and no counter of /metrics goes down."""
        with Server(MINTIDD, args=WORKERS) as srv:
            m = Minters(srv.http_port)
            self.addCleanup(m.stop)
            self.assertTrue(m.wait_for_ids(2000), m.problems)
            before = metrics(srv.http_port)
            victim = children(srv.proc.pid)[0]
            killed = time.monotonic()
            os.kill(victim, signal.SIGKILL)
            self.assertTrue(wait_for(lambda: len(children(srv.proc.pid)) == 2 and victim not in children(srv.proc.pid),
                                     5), "the worker was not restarted")
            restarted = time.monotonic()
            # The restarted worker counted once it is ready (its process is there before).
            self.assertTrue(wait_for(lambda: metrics(srv.http_port)["mintid_workers"] == 2, 5),
                            f"the restarted worker is not counted: {metrics(srv.http_port)['mintid_workers']}")
            # IDs minted with both workers up again (the restarted one's too, as the kernel deals connections).
            self.assertTrue(m.wait_for_ids(2000), m.problems)
            after = metrics(srv.http_port)
            everything = m.stop()
            # Only connections opened before the restart may have broken, and only at the kill or after.
            m.check(self, broke_after=killed, opened_before=restarted)
            self.assertEqual(len(set(everything)), len(everything), "duplicate IDs after a worker was killed")
            self.assert_per_client_order(m)
            self.assertEqual(after["mintid_workers"], 2)
            self.assertEqual(after["mintid_worker_restarts_total"], 1)
            for k, v in before.items():
                if k.endswith("_total") or "_total{" in k:
                    self.assertGreaterEqual(after.get(k, 0), v, f"{k} went down when a worker was killed")
            self.assertGreater(after['mintid_ids_issued_total{format="snowflake"}'],
                               before['mintid_ids_issued_total{format="snowflake"}'])
            status, log = srv.stop()
            self.assertEqual(status, 0, log)
            self.assertIn("was killed by signal 9", log)
            self.assertIn("restarted", log)

    def test_kill_the_supervisor(self):
        """kill -9 of the supervisor: its workers exit with it, and a server
        started again on the state directory issues only later IDs."""
        srv = Server(MINTIDD, args=WORKERS).start()
        try:
            m = Minters(srv.http_port)
            self.addCleanup(m.stop)
            self.assertTrue(m.wait_for_ids(2000), m.problems)
            workers = children(srv.proc.pid)
            self.assertEqual(len(workers), 2)
            self.addCleanup(lambda: [os.kill(w, signal.SIGKILL) for w in workers if alive(w)])
            killed = time.monotonic()
            srv.kill()
            first = m.stop()
            m.check(self, broke_after=killed, opened_before=float("inf"))  # from the kill on, nothing answers
            self.assertTrue(wait_for(lambda: not any(alive(w) for w in workers), 5),
                            "a worker outlived its supervisor")
            again = Server(MINTIDD, state_dir=srv.state_dir, args=WORKERS + ["--startup-wait", "10000"])
            with again:
                m2 = Minters(again.http_port)
                self.addCleanup(m2.stop)
                self.assertTrue(m2.wait_for_ids(2000), m2.problems)
                second = m2.stop()
                m2.check(self)
            self.assertGreater(len(second), 0)
            self.assertGreater(min(second), max(first), "an ID after the restart is not after every ID before")
            self.assertEqual(len(set(first + second)), len(first) + len(second))
        finally:
            srv.__exit__(None, None, None)

    def test_fencing_stops_every_worker(self):
        """The state directory lost under the server (renamed): every worker
        refuses to mint at its next request, on every connection."""
        with Server(MINTIDD, args=WORKERS) as srv:
            self.assertEqual(get(srv.http_port, "/v1/snowflake")[0], 200)
            os.rename(srv.state_dir, srv.state_dir + ".moved")
            try:
                # The supervisor's writer looks at the path every second.
                self.assertTrue(srv.wait_log(b"is no longer the one this server locked", 1), srv.log.decode())
                # Fresh connections, each taken by either worker: none mints.
                # (Each says why: the state directory, which the supervisor
                # found lost, not a later failure of the worker's own.)
                answers = [get(srv.http_port, "/v1/snowflake") for _ in range(40)]
                self.assertEqual([a for a in answers if a[0] == 200], [], "a worker went on minting")
                for status, body in answers:
                    self.assertIn("state directory is no longer the one", body)
                for _ in range(20):
                    r = Resp(srv.resp_port)
                    reply = r.call("MINT", "snowflake")
                    self.assertIsInstance(reply, RespError, "a worker went on minting")
                    self.assertIn("state directory is no longer the one", str(reply))
                    r.close()
            finally:
                os.rename(srv.state_dir + ".moved", srv.state_dir)

    def test_sighup_reaches_every_worker(self):
        """SIGHUP: each worker reloads the auth-file; the new secret works and
        the old one is refused on every connection, also by a worker started
        after the reload."""
        d = tempfile.mkdtemp(prefix="mintidd-test-")
        self.addCleanup(shutil.rmtree, d, True)
        path = os.path.join(d, "secrets")
        with open(path, "w") as f:
            f.write("old-secret-0123456789abcdef\n")
        os.chmod(path, 0o600)
        with Server(MINTIDD, args=WORKERS + ["--auth-file", path]) as srv:
            with open(path, "w") as f:
                f.write("new-secret-0123456789abcdef\n")
            srv.proc.send_signal(signal.SIGHUP)
            self.assertTrue(srv.wait_log(b"reloaded", 2), "not every worker reloaded:\n" + srv.log.decode())
            # Fresh connections, each taken by either worker (wrong secrets
            # are limited per client address: only two of them).
            for _ in range(30):
                self.assertEqual(get(srv.http_port, "/v1/snowflake",
                                     {"Authorization": "Bearer new-secret-0123456789abcdef"})[0], 200)
            for _ in range(2):
                self.assertEqual(get(srv.http_port, "/v1/snowflake",
                                     {"Authorization": "Bearer old-secret-0123456789abcdef"})[0], 401)
            # Workers started after the SIGHUP read the file as it is now:
            # both killed, every connection is a restarted worker's.
            victims = children(srv.proc.pid)
            for v in victims:
                os.kill(v, signal.SIGKILL)
            self.assertTrue(wait_for(lambda: len(children(srv.proc.pid)) == 2 and
                                     not set(victims) & set(children(srv.proc.pid)), 5), "the workers were not restarted")
            for _ in range(20):
                self.assertEqual(get(srv.http_port, "/v1/snowflake",
                                     {"Authorization": "Bearer new-secret-0123456789abcdef"})[0], 200)
            for _ in range(6):
                self.assertEqual(get(srv.http_port, "/v1/snowflake",
                                     {"Authorization": "Bearer old-secret-0123456789abcdef"})[0], 401)


def main():
    global MINTIDD
    MINTIDD, _, argv = server_test_args()
    unittest.main(argv=argv)


if __name__ == "__main__":
    main()
