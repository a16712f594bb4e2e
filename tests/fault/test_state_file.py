# SPDX-License-Identifier: MIT
"""test_state_file.py - the state file damaged, deleted, or impossible to
write. A file that cannot be trusted stops the server at start, naming the
state file; a file that cannot be written while running stops minting past
the reservation already on disk, and minting resumes by itself once the
file can be written again. Whatever happens, no ID carries a timestamp past
the mark on disk, and the next run issues only later IDs.

Corruption is written byte by byte into a copy of a file the server wrote;
nothing here parses the file beyond its `mark N` line.

Usage: python3 test_state_file.py --mintidd PATH --mintid PATH [--sanitized] [--long]
"""

import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faults import (NANOFLAKE_EPOCH, FaultCase, Mintidd, ask, check_all, check_mark_covers, fill,  # noqa: E402
                    main, mint_http, mount_tmpfs, scale, wait_for)

RESERVE_AHEAD = 2.0  # the default reserve-ahead, in seconds


def now_ms():
    return int(time.time() * 1000)


def damaged_copies(genuine):
    """(name, bytes) of every way the suite damages a state file the
    server wrote, whatever its version."""
    m = re.search(rb"mark (\d+)", genuine)
    a, b = m.span(1)
    first_line_end = genuine.index(b"\n") + 1
    mark_line_end = genuine.index(b"\n", b) + 1

    def digit(pos, change):
        d = (genuine[pos] - 48 + change) % 10
        return genuine[:pos] + bytes([48 + d]) + genuine[pos + 1:]

    seconds = b - 4  # the mark's seconds digit: lowered, the dangerous way
    out = [
        ("empty", b""),
        ("a newline only", b"\n"),
        ("first half", genuine[:len(genuine) // 2]),
        ("final newline cut", genuine[:-1]),
        ("cut inside the mark", genuine[:a + 4]),
        ("cut after the mark line", genuine[:mark_line_end]),
        ("mark's seconds digit changed", digit(seconds, -1 if genuine[seconds] != 48 else 1)),
        ("mark's last digit changed", digit(b - 1, 1)),
        ("mark line twice", genuine[:mark_line_end] + genuine[genuine.rindex(b"\n", 0, b) + 1:mark_line_end] +
         genuine[mark_line_end:]),
        ("all zero bytes", b"\0" * len(genuine)),
        ("NUL in the mark", genuine[:a + 2] + b"\0" + genuine[a + 3:]),
        ("NUL appended", genuine + b"\0"),
        ("random bytes", random.Random(160).randbytes(len(genuine))),
        ("text", b"hello, world\n"),
        ("version 3", re.sub(rb"^mintidd-state \d+", b"mintidd-state 3", genuine)),
        ("version 99", re.sub(rb"^mintidd-state \d+", b"mintidd-state 99", genuine)),
        ("no version line", genuine[first_line_end:]),
        # Version 1 as the old server wrote it, with a damaged mark.
        ("v1 negative mark", b"mintidd-state 1\nmark -5\n"),
        ("v1 mark with junk", b"mintidd-state 1\nmark 12abc\n"),
        ("v1 mark overflowing", b"mintidd-state 1\nmark 99999999999999999999999\n"),
        ("v1 empty mark", b"mintidd-state 1\nmark \n"),
        ("v1 final newline cut", b"mintidd-state 1\nmark %d" % (now_ms() - 60000)),
        ("v1 mark digits cut", b"mintidd-state 1\nmark 1795"),
    ]
    return [(name, data) for name, data in out if data != genuine]


class Damaged(FaultCase):
    @classmethod
    def setUpClass(cls):
        cls._genuine_tmp = tempfile.TemporaryDirectory(prefix="mintid-fault-")
        cls.genuine_dir = os.path.join(cls._genuine_tmp.name, "state")
        s = Mintidd(cls.genuine_dir, ["--node", "8"]).start()
        try:
            status, ids = mint_http(s.http_port, count=1000)
            assert status == 200, ids
        finally:
            status, log = s.stop()
        assert status == 0, log
        with open(os.path.join(cls.genuine_dir, "state"), "rb") as f:
            cls.genuine = f.read()

    @classmethod
    def tearDownClass(cls):
        cls._genuine_tmp.cleanup()

    def test_damaged_state_file_stops_the_start(self):
        for n, (name, data) in enumerate(damaged_copies(self.genuine)):
            with self.subTest(damage=name):
                d = os.path.join(self.tmp, f"damaged-{n}")
                shutil.copytree(self.genuine_dir, d)
                with open(os.path.join(d, "state"), "wb") as f:
                    f.write(data)
                self.assert_refused(self.server(d, ["--node", "8"]), "state file")
                # Nothing was "repaired" behind the operator's back.
                self.assert_refused(self.server(d, ["--node", "8"]), "state file")

    def test_version1_file_is_read_and_upgraded(self):
        d = self.dir("state")
        mark = now_ms() + 1500
        with open(os.path.join(d, "state"), "wb") as f:
            f.write(b"mintidd-state 1\nmark %d\n" % mark)
        s = self.server(d, ["--node", "8"]).start(timeout=30)
        status, ids = mint_http(s.http_port, count=1000)
        self.assertEqual(status, 200, ids)
        self.assertGreater(min((v >> 22) + NANOFLAKE_EPOCH for v in ids), mark)
        status, log = s.stop()
        self.assertEqual(status, 0, log)
        with open(os.path.join(d, "state"), "rb") as f:
            self.assertTrue(f.read().startswith(b"mintidd-state 2\n"), "the version 1 file was not upgraded")
        s = self.server(d, ["--node", "8"]).start(timeout=30)
        status, again = mint_http(s.http_port, count=1000)
        self.assertEqual(status, 200, again)
        self.assertGreater(min(again), max(ids))


class Missing(FaultCase):
    def test_deleted_while_stopped(self):
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with self.subTest(stopped_by=sig.name):
                d = self.dir(f"state-{sig.name}")
                a = self.server(d, ["--node", "6"]).start()
                load = self.load(a, name="first")
                time.sleep(0.5)
                a.stop(sig)
                load.stop()
                os.unlink(os.path.join(d, "state"))
                self.assert_refused(self.server(d, ["--node", "6"]), "state file", "missing")
                self.assert_refused(self.server(d, ["--node", "6"]), "state file", "missing")

    def test_new_and_empty_directories_start_fresh(self):
        empty = self.dir("empty")
        for d in (os.path.join(self.tmp, "new"), empty):
            with self.subTest(state_dir=os.path.basename(d)):
                s = self.server(d).start()
                status, ids = mint_http(s.http_port)
                self.assertEqual(status, 200, ids)
                status, log = s.stop()
                self.assertEqual(status, 0, log)

    def test_deleted_while_running(self):
        d = self.dir("state")
        a = self.server(d, ["--node", "6"]).start()
        load = self.load(a, name="first")
        time.sleep(0.5)
        os.unlink(os.path.join(d, "state"))
        # Past the reservation: the mark has to be written again before
        # any ID can carry a later timestamp.
        time.sleep(RESERVE_AHEAD + scale(1.0, 10.0))
        a.kill()
        load.stop()
        load.assert_no_failures(self, server_went_away=True)
        self.assertTrue(os.path.exists(os.path.join(d, "state")),
                        "minting went on past the reservation, and no state file records it")
        check_mark_covers(self, d, load.clients, when="after the kill")
        b = self.server(d, ["--node", "6", "--startup-wait", "10000"]).start(timeout=30)
        again = self.load(b, name="after")
        time.sleep(0.5)
        again.stop()
        again.assert_no_failures(self)
        b.stop()
        check_all(self, [load.clients, again.clients])


class CannotWrite(FaultCase):
    """The state file cannot be written while the server runs."""

    def unwritable_phase(self, srv, load, state_dir, break_it, mend_it):
        broken = time.monotonic()
        break_it()
        time.sleep(RESERVE_AHEAD + scale(1.5, 10.0))
        with self.subTest(check="refused, naming the state file"):
            refused = [r for r in load.refusals() if r.sent > broken]
            self.assertGreater(len(refused), 0, "minting went on although the state file could not be written")
            for r in refused:
                self.assertIn("state file", r.text)
        with self.subTest(check="/healthz 503"):
            status, body = ask(srv.http_port, "/healthz")
            self.assertEqual(status, 503, body)
        check_mark_covers(self, state_dir, load.clients, when="while it could not be written")
        mend_it()
        self.assertTrue(wait_for(lambda: mint_http(srv.http_port)[0] == 200, 5),
                        "minting did not resume once the state file could be written again")
        self.assertTrue(wait_for(lambda: ask(srv.http_port, "/healthz")[0] == 200, 5),
                        "/healthz did not recover once the state file could be written again")
        time.sleep(0.5)

    def after_kill(self, srv, load, state_dir, **server_kw):
        srv.kill()
        load.stop()
        load.assert_no_failures(self, server_went_away=True)
        check_mark_covers(self, state_dir, load.clients, when="after the kill")
        b = self.server(state_dir, ["--node", "7", "--startup-wait", "10000"], **server_kw).start(timeout=30)
        again = self.load(b, name="after")
        time.sleep(0.5)
        again.stop()
        again.assert_no_failures(self)
        b.stop()
        check_all(self, [load.clients, again.clients])

    def test_read_only_file(self):
        d = self.dir("state")
        a = self.server(d, ["--node", "7"], no_dac=True).start()
        load = self.load(a, name="first")
        time.sleep(0.5)
        os.chmod(os.path.join(d, "state"), 0o444)
        time.sleep(RESERVE_AHEAD + scale(1.5, 10.0))
        for r in load.refusals():
            self.assertIn("state file", r.text)
        self.after_kill(a, load, d, no_dac=True)

    def test_read_only_directory(self):
        d = self.dir("state")
        self.addCleanup(os.chmod, d, 0o700)
        a = self.server(d, ["--node", "7"], no_dac=True).start()
        load = self.load(a, name="first")
        time.sleep(0.5)
        self.unwritable_phase(a, load, d, lambda: os.chmod(d, 0o500), lambda: os.chmod(d, 0o700))
        self.after_kill(a, load, d, no_dac=True)
        # At start, a directory that cannot be written is an error.
        os.chmod(d, 0o500)
        self.assert_refused(self.server(d, ["--node", "7"], no_dac=True))

    def test_full_tmpfs(self):
        mnt = os.path.join(self.tmp, "tmpfs")
        mount_tmpfs(self, mnt, "2m")
        d = os.path.join(mnt, "state")
        filler = os.path.join(mnt, "filler")
        # The host-wide generators' state on the same disk: it is the
        # server's state too.
        host = {"MINTID_HOST_DIR": os.path.join(mnt, "host")}
        os.mkdir(host["MINTID_HOST_DIR"])
        a = self.server(d, ["--node", "7"], env=host).start()
        load = self.load(a, name="first")
        time.sleep(0.5)
        self.unwritable_phase(a, load, d, lambda: fill(filler), lambda: os.unlink(filler))
        self.after_kill(a, load, d, env=host)
        # At start, a full disk is an error: here, the host-wide state of a
        # node id not minted before cannot be made.
        fill(filler)
        self.assert_refused(self.server(d, ["--node", "8"], env=host))
        os.unlink(filler)


if __name__ == "__main__":
    main()
