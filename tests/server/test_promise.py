# SPDX-License-Identifier: MIT
"""test_promise.py - the server's promise against what an operator, a clock
or a client does: requests the clock holds up are parked while everyone
else is served; the saved mark never goes down; a node id whose mark in etcd
does not parse is not used; a format comes back when a lease is taken again
with its mark ahead of the clock.

Usage: python3 test_promise.py --mintidd PATH [--no-faketime]
"""

import argparse
import json
import os
import re
import signal
import socket
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Etcd, EtcdCase, Server, have_faketime  # noqa: E402
from resp_client import Resp  # noqa: E402
import test_lease  # noqa: E402
from test_lease import health, mint  # noqa: E402

MINTIDD = None
NO_FAKETIME = False
EPOCH = 1288834974657


def state_mark(state_dir):
    with open(os.path.join(state_dir, "state")) as f:
        return int(re.search(r"^mark (\d+)$", f.read(), re.M).group(1))


def wait_for(cond, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


def parked_total(port):
    """mintid_requests_parked_total: requests that have waited for their format."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        return int(re.search(rb"^mintid_requests_parked_total (\d+)$", r.read(), re.M).group(1))


def listening(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def needs_faketime(test):
    if NO_FAKETIME:
        test.skipTest("libfaketime and the sanitizers' runtimes do not mix; the plain build runs this")
    if not have_faketime():
        test.fail("libfaketime is not installed (make deps installs it)")


class Clock:
    """A libfaketime offset file, in seconds, that a running server follows."""

    def __init__(self, tmp, offset):
        self.path = os.path.join(tmp, "clock")
        self.set(offset)

    def set(self, offset):
        with open(self.path + ".new", "w") as f:
            f.write(f"{offset:+d}\n")
        os.replace(self.path + ".new", self.path)


class Parking(unittest.TestCase):
    def test_clock_held_requests_wait_aside(self):
        """With the clock stepped back, mints wait for it, parked: a PING and
        /healthz sent after them are answered before any of them."""
        needs_faketime(self)
        with tempfile.TemporaryDirectory() as tmp:
            clock = Clock(tmp, 0)
            # A max-wait far longer than it takes to park six mints and ask
            # a PING on a busy machine: the first mint parked must still be
            # waiting when the PING is answered.
            with Server(MINTIDD, faketime_file=clock.path, args=["--max-wait", "4000"]) as srv:
                status, first = mint(srv.http_port, 10)
                self.assertEqual(status, 200)
                clock.set(-5)
                done, lock = [], threading.Lock()
                results = {}

                def mint_one(i):
                    results[i] = mint(srv.http_port, 1)
                    with lock:
                        done.append(f"mint{i}")

                threads = [threading.Thread(target=mint_one, args=(i,)) for i in range(6)]
                parked_before = parked_total(srv.http_port)
                for t in threads:
                    t.start()
                # Until the mints have arrived and are waiting (each counted once as it parks).
                self.assertTrue(wait_for(lambda: parked_total(srv.http_port) >= parked_before + 6, 10),
                                "the mints were not parked")
                r = Resp(srv.resp_port, timeout=30)
                self.assertEqual(r.call("PING"), "PONG")
                with lock:
                    done.append("ping")
                code, _ = health(srv.http_port)
                with lock:
                    done.append("healthz")
                r.close()
                for t in threads:
                    t.join(30)
                    self.assertFalse(t.is_alive(), "a parked mint was never answered")
                self.assertEqual(done[:2], ["ping", "healthz"], f"served in the order {done}")
                self.assertEqual(code, 200)
                # Each parked request ends after max-wait with a 503 that says why.
                for i in range(6):
                    self.assertEqual(results[i][0], 503, results[i])
                clock.set(0)
                status, after = mint(srv.http_port, 10)
                self.assertEqual(status, 200)
                self.assertGreater(min(after), max(first))
                self.assertGreaterEqual(parked_total(srv.http_port), parked_before + 6)


class Pipelines(unittest.TestCase):
    def test_full_input_buffer_resumes(self):
        """Requests pipelined behind big batches fill the input buffer while
        the batches are minted; every one of them is still answered."""
        with Server(MINTIDD) as srv:
            s = socket.create_connection(("127.0.0.1", srv.resp_port), timeout=30)
            s.sendall(b"MINT nanoflake 100000\r\n" * 3 + b"PING\r\n" * 20000)
            buf, pongs = b"", 0
            while pongs < 20000:
                chunk = s.recv(1 << 20)
                self.assertTrue(chunk, "the server closed the connection")
                buf += chunk
                pongs = buf.count(b"+PONG\r\n")
            self.assertEqual(buf.count(b"*100000\r\n"), 3)
            s.close()

    def test_many_batches_at_once_all_succeed(self):
        """max-wait bounds each wait for the clock, not a whole batch: many
        batches sharing one format's capacity all complete: 40 batches of
        25,000 nanoflake IDs take 244 ms of its capacity (4,096 a
        millisecond), more than max-wait."""
        with Server(MINTIDD, args=["--max-wait", "200"]) as srv:
            results = []

            def batch():
                r = Resp(srv.resp_port, timeout=60)
                try:
                    got = r.call("MINT", "nanoflake", "25000")
                    results.append(len(got) if isinstance(got, list) else str(got))
                except Exception as e:  # noqa: BLE001 - every outcome is recorded and checked below
                    results.append(repr(e))
                r.close()

            threads = [threading.Thread(target=batch) for _ in range(40)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
            self.assertEqual(results, [25000] * 40)


class SavedMark(unittest.TestCase):
    def test_final_write_never_below_start_mark(self):
        """A clean stop after minting nothing keeps the mark found at start."""
        needs_faketime(self)
        with tempfile.TemporaryDirectory() as tmp:
            clock = Clock(tmp, 600)
            state_dir = os.path.join(tmp, "state")
            with Server(MINTIDD, state_dir=state_dir, faketime_file=clock.path) as srv:
                self.assertEqual(mint(srv.http_port, 10)[0], 200)
                srv.kill()
            mark = state_mark(state_dir)
            clock.set(603)  # past the mark: starts without waiting
            with Server(MINTIDD, state_dir=state_dir, faketime_file=clock.path) as srv:
                status, log = srv.stop()
                self.assertEqual(status, 0, log)
            self.assertGreaterEqual(state_mark(state_dir), mark)

    def test_idle_server_does_not_reserve_a_passing_clock_step(self):
        """An idle server whose clock jumps an hour ahead for a moment does
        not reserve that hour: nothing was minted, so a crash then does not
        keep the next start waiting for it."""
        needs_faketime(self)
        with tempfile.TemporaryDirectory() as tmp:
            clock = Clock(tmp, 0)
            state_dir = os.path.join(tmp, "state")
            with Server(MINTIDD, state_dir=state_dir, faketime_file=clock.path) as srv:
                self.assertEqual(mint(srv.http_port, 10)[0], 200)
                time.sleep(2.5)  # idle past reserve-ahead
                clock.set(3600)
                time.sleep(1.5)  # several turns of the reservation timer
                clock.set(0)
                srv.kill()
            self.assertLess(state_mark(state_dir), int(time.time() * 1000) + 600000)
            with Server(MINTIDD, state_dir=state_dir, faketime_file=clock.path) as again:
                self.assertEqual(mint(again.http_port, 10)[0], 200)

    def test_lease_start_never_lowers_the_saved_mark(self):
        """The clock steps back while a leased server waits for etcd at start:
        the mark it saves is still at least the one it found."""
        needs_faketime(self)
        etcd = Etcd()
        try:
            with tempfile.TemporaryDirectory() as tmp:
                clock = Clock(tmp, 600)
                state_dir = os.path.join(tmp, "state")
                args = etcd.lease_args("lower", "3-3", extra=["--lease-start-wait", "30"])
                first = Server(MINTIDD, state_dir=state_dir, faketime_file=clock.path, args=args).start()
                self.assertEqual(mint(first.http_port, 10)[0], 200)
                first.kill()
                mark = state_mark(state_dir)
                clock.set(603)
                # Another prefix (initialised while etcd still answers): no
                # mark in etcd holds this start back.
                args = etcd.lease_args("lower-again", "3-3", extra=["--lease-start-wait", "30"])
                etcd.proc.send_signal(signal.SIGSTOP)
                second = Server(MINTIDD, state_dir=state_dir, faketime_file=clock.path, args=args)
                second.start(expect_ready=False)
                # Until it is past the state's wait, trying etcd.
                self.assertTrue(second.wait_log(b"trying again for up to lease-start-wait", count=1, timeout=30),
                                second.log.decode())
                clock.set(0)
                etcd.proc.send_signal(signal.SIGCONT)
                try:
                    self.assertTrue(wait_for(lambda: second.proc.poll() is not None or listening(second.http_port), 20),
                                    "the second server neither started nor gave up")
                    self.assertGreaterEqual(state_mark(state_dir), mark, "the saved mark went down")
                finally:
                    second.kill()
                self.assertGreaterEqual(state_mark(state_dir), mark, "the saved mark went down")
        finally:
            etcd.stop()


class LeaseMarks(EtcdCase):
    def server(self, *args):
        return self.track(Server(MINTIDD, args=list(args)))

    def test_unparsable_mark_is_not_read_as_zero(self):
        self.etcd.put("/bad/marks/5", "x1795425679349")
        # The only node id in range has a mark that does not parse: no start.
        alone = self.server(*self.etcd.lease_args("bad", "5-5")).start(expect_ready=False)
        status, log = alone.wait()
        self.assertNotEqual(status, 0, log)
        self.assertIn("x1795425679349", log)
        self.assertIn("not Unix ms", log)
        # With another node id in range, that one is taken instead.
        srv = self.server(*self.etcd.lease_args("bad", "5-6")).start()
        self.assertEqual(health(srv.http_port)[1]["node_id"], 6)
        status, ids = mint(srv.http_port, 10)
        self.assertEqual(status, 200)
        self.assertEqual({(i >> 12) & 1023 for i in ids}, {6})
        # The same with node ids only sonyflake's 16-bit field holds.
        self.etcd.put("/wide/marks/60000", "x1")
        wide = self.server(*self.etcd.lease_args("wide", "60000-60001")).start()
        self.assertEqual(health(wide.http_port)[1]["node_id"], 60001)
        self.assertIn("not Unix ms", wide.log.decode(errors="replace"))

    def test_format_returns_after_lease_taken_again_with_mark_ahead(self):
        srv = self.server(*self.etcd.lease_args("ahead", "7-7", ttl=3, margin=800)).start()
        status, before = mint(srv.http_port, 10)
        self.assertEqual(status, 200)
        # The node's mark in etcd moves 4 s ahead of the clock, and the lease
        # is revoked under the server: it must take node 7 again and mint
        # only after that mark.
        ahead = int(time.time() * 1000) + 4000
        self.etcd.put("/ahead/marks/7", str(ahead))
        lease_id = int(health(srv.http_port)[1]["lease"]["id"], 16)
        self.etcd.call("lease/revoke", {"ID": str(lease_id)})
        self.assertTrue(wait_for(lambda: health(srv.http_port)[1]["lease"]["id"] != f"{lease_id:x}"
                                 and health(srv.http_port)[1]["lease"]["valid"], 10), "the node was not leased again")
        self.assertTrue(wait_for(lambda: mint(srv.http_port, 10)[0] == 200, 15),
                        "nanoflake did not come back once the clock passed the mark")
        status, after = mint(srv.http_port, 100)
        self.assertEqual(status, 200)
        self.assertGreater(min(after), max(before))
        self.assertGreater((min(after) >> 22) + EPOCH, ahead)


def main():
    global MINTIDD, NO_FAKETIME
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-faketime", action="store_true", help="skip the tests that need libfaketime")
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("-k", action="append", default=None)
    args, rest = ap.parse_known_args()
    MINTIDD = os.path.abspath(args.mintidd)
    NO_FAKETIME = args.no_faketime
    test_lease.MINTIDD = MINTIDD
    argv = [sys.argv[0], "-v"] + rest
    for k in args.k or []:
        argv += ["-k", k]
    unittest.main(argv=argv)


if __name__ == "__main__":
    main()
