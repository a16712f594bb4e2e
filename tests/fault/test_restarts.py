# SPDX-License-Identifier: MIT
"""test_restarts.py - one state directory, many runs: kill -9 in a loop
under load, a clock behind the mark at start, a second server on a
directory whose lock files were deleted, and the nanoflake epoch or the
node id changed between runs.

Usage: python3 test_restarts.py --mintidd PATH --mintid PATH [--no-faketime] [--sanitized] [--long]
"""

import json
import os
import random
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faults import (FORMATS, NANOFLAKE_EPOCH, OPT, Batch, Client, FaultCase, Load, Resp, check_all,  # noqa: E402
                    check_client_order, check_mark_covers, check_runs_ordered, check_unique, get, main,
                    ask, mint_http, nanoflake_node, read_mark, scale, set_clock, start_refused)

NANOFLAKE_ONLY = [("http", "nanoflake", 500, 1), ("resp", "nanoflake", 200, 2)]


class Decoders(FaultCase):
    def test_python_decoders_agree_with_mintid_inspect(self):
        # Every other scenario compares IDs decoded in Python; here the
        # decoders meet the command-line tool on IDs the server minted.
        s = self.server(args=["--node", "9"]).start()
        r = Resp(s.resp_port)
        for name, fmt in FORMATS.items():
            texts = r.call("MINT", name, "5")
            status, body = get(s.http_port, f"/v1/{name}?count=5&as={fmt.http_form}")
            self.assertEqual(status, 200, body)
            for form, ident, value in ([("text", t, fmt.from_resp(t)) for t in texts] +
                                       [(fmt.http_form, x, fmt.from_http(x)) for x in body.split()]):
                out = subprocess.run([OPT.mintid, "inspect", "--format", name, "--from", form, "--", ident],
                                     capture_output=True, text=True, check=True).stdout
                info = json.loads(out)
                self.assertEqual(value, int(info["hex"], 16), (name, form, ident))
                self.assertEqual(fmt.unix_ms(value, NANOFLAKE_EPOCH), info["unix_ms"], (name, form, ident))
                if name == "nanoflake":
                    self.assertEqual(nanoflake_node(value), 9)
        r.close()


def made_up(values, fmt="nanoflake"):
    """A client that was given `values`, for checking the checks."""
    c = Client(None, "http", fmt, 1, label=f"made up {values}")
    c.batches = [Batch(0.0, 0.0, list(values))]
    return c


class Checks(FaultCase):
    def test_the_checks_fail_when_they_should(self):
        fail = self.failureException
        with self.assertRaises(fail):
            check_unique(self, [made_up([1, 2, 3]), made_up([3, 4])], "nanoflake")
        with self.assertRaises(fail):
            check_client_order(self, [made_up([1, 3, 2])])
        with self.assertRaises(fail):
            check_client_order(self, [made_up([1, 1])])
        with self.assertRaises(fail):
            check_runs_ordered(self, [[made_up([5, 6])], [made_up([9]), made_up([6, 7])]])
        d = self.dir("state")
        with open(os.path.join(d, "state"), "w") as f:
            f.write(f"mintidd-state 1\nmark {NANOFLAKE_EPOCH + 10}\n")
        with self.assertRaises(fail):
            check_mark_covers(self, d, [made_up([11 << 22])])
        # and pass when all is well
        self.assertEqual(check_all(self, [[made_up([1, 2]), made_up([3])], [made_up([4, 9]), made_up([5])]],
                                   ["nanoflake"]), 6)
        check_mark_covers(self, d, [made_up([10 << 22 | 4095])])


class KillLoop(FaultCase):
    def test_kill9_in_a_loop_under_load(self):
        rounds = 3 if OPT.sanitized else scale(4, 40)
        seed = int(time.time())
        rng = random.Random(seed)
        print(f"\nkill loop: {rounds} rounds, seed {seed}", file=sys.stderr)
        d = self.dir("state")
        runs = []
        for n in range(rounds):
            # After a kill the mark is up to reserve-ahead ahead of the clock.
            srv = self.server(d, ["--node", "3", "--startup-wait", "10000"]).start(timeout=30)
            load = self.load(srv, name=f"run {n}")
            # Some kills land at once, in the first reservation; most after a while.
            time.sleep(0.05 if rng.random() < 0.25 else rng.uniform(0.3, scale(1.5, 4.0)))
            srv.kill()
            load.stop()
            load.assert_no_failures(self, server_went_away=True)
            check_mark_covers(self, d, load.clients, when=f"after kill {n}")
            self.assertEqual({nanoflake_node(v) for v in load.values("nanoflake")} - {3}, set())
            runs.append(load.clients)
        total = check_all(self, runs)
        self.assertGreater(total, rounds * 1000, "the load hardly minted: the checks above prove little")


class ClockBehindAtStart(FaultCase):
    def test_clock_behind_the_mark_at_start(self):
        self.need_faketime()
        clock = self.clock_file(0)
        d = self.dir("state")
        a = self.server(d, ["--node", "4"], faketime_file=clock).start()
        la = self.load(a, name="first")
        time.sleep(1.0)
        a.kill()  # the mark on disk is the reservation, ahead of the last ID
        la.stop()
        la.assert_no_failures(self, server_went_away=True)
        mark = check_mark_covers(self, d, la.clients)

        # Within startup-wait (5 s): the clock 1 s back, so at most
        # reserve-ahead + 1 s behind the mark. It waits, then serves later IDs.
        set_clock(clock, -1.0)
        b = self.server(d, ["--node", "4"], faketime_file=clock).start(timeout=30)
        lb = self.load(b, name="second")
        time.sleep(1.0)
        lb.stop()
        status, log = b.stop()
        self.assertEqual(status, 0, log)
        lb.assert_no_failures(self)
        for c in lb.clients:
            for v in c.values():
                self.assertGreater(c.fmt.unix_ms(v, NANOFLAKE_EPOCH), mark, f"{c.label}: an ID at or before the mark")
        self.assertGreater(lb.count(), 0)

        # Beyond startup-wait: a minute behind. It refuses, and leaves the mark.
        before = read_mark(d)
        set_clock(clock, -60.0)
        self.assert_refused(self.server(d, ["--node", "4"], faketime_file=clock),
                            "refusing to start rather than risk a duplicate ID")
        set_clock(clock, -3.0)
        self.assert_refused(self.server(d, ["--node", "4", "--startup-wait", "0"], faketime_file=clock),
                            "refusing to start rather than risk a duplicate ID")
        self.assertGreaterEqual(read_mark(d), before)

        # The clock right again: every ID above every earlier one.
        set_clock(clock, 0)
        c = self.server(d, ["--node", "4", "--startup-wait", "10000"], faketime_file=clock).start(timeout=30)
        lc = self.load(c, name="third")
        time.sleep(0.5)
        lc.stop()
        status, log = c.stop()
        self.assertEqual(status, 0, log)
        lc.assert_no_failures(self)
        check_all(self, [la.clients, lb.clients, lc.clients])


class Lock(FaultCase):
    def test_second_server_refused_even_after_lock_files_deleted(self):
        d = self.dir("state")
        a = self.server(d, ["--node", "2"]).start()
        la = self.load(a, name="first")
        time.sleep(0.5)
        self.assert_refused(self.server(d, ["--node", "2"]), f"in use by another mintidd (pid {a.pid()})")

        # An operator "cleans up" the directory: everything but the state file goes.
        removed = []
        for name in os.listdir(d):
            if name != "state":
                path = os.path.join(d, name)
                if os.path.isdir(path) and not os.path.islink(path):
                    # Its workers may make a file in a directory while it goes.
                    for attempt in range(10):
                        shutil.rmtree(path, ignore_errors=True)
                        if not os.path.exists(path):
                            break
                        time.sleep(0.05)
                else:
                    os.unlink(path)
                removed.append(name)
        time.sleep(0.3)
        second = self.server(d, ["--node", "2"])
        status, log, served = start_refused(second)
        if served:
            # Show what that costs: both mint nanoflakes for a second.
            both = [Load(a, NANOFLAKE_ONLY, name="first").start(), Load(second, NANOFLAKE_ONLY, name="second").start()]
            time.sleep(1.0)
            for load in both:
                load.stop()
            first_ids, second_ids = set(both[0].values("nanoflake")), set(both[1].values("nanoflake"))
            self.fail(f"with {removed} deleted, a second mintidd (pid {second.pid()}) started on the state "
                      f"directory and node of the running pid {a.pid()}; in one second they minted "
                      f"{len(first_ids & second_ids)} identical nanoflakes")
        self.assertEqual(status, 1, log)
        self.assertIn(f"in use by another mintidd (pid {a.pid()})", log)

        # The first server carries on.
        status, ids = mint_http(a.http_port)
        self.assertEqual(status, 200, ids)
        time.sleep(0.3)
        la.stop()
        la.assert_no_failures(self)
        status, log = a.stop()
        self.assertEqual(status, 0, log)

        # Once it is gone, the directory serves again, above everything before.
        b = self.server(d, ["--node", "2", "--startup-wait", "10000"]).start(timeout=30)
        lb = self.load(b, name="after")
        time.sleep(0.5)
        lb.stop()
        lb.assert_no_failures(self)
        b.stop()
        check_all(self, [la.clients, lb.clients])


class Params(FaultCase):
    """What shapes the ID space is recorded with the mark; a change between
    runs is refused unless adopted."""

    def first_run(self, args):
        d = self.dir("state")
        a = self.server(d, args).start()
        la = self.load(a, name="first")
        time.sleep(0.8)
        la.stop()
        la.assert_no_failures(self)
        status, log = a.stop()
        self.assertEqual(status, 0, log)
        self.assertGreater(len(la.values("nanoflake")), 0)
        return d, la

    def run_more(self, d, args, name):
        s = self.server(d, list(args) + ["--startup-wait", "10000"]).start(timeout=30)
        load = self.load(s, name=name)
        time.sleep(0.5)
        load.stop()
        load.assert_no_failures(self)
        status, log = s.stop()
        self.assertEqual(status, 0, log)
        return load

    def test_node_change_refused(self):
        d, la = self.first_run(["--node", "5"])
        log = self.assert_refused(self.server(d, ["--node", "6"]), "changed")
        self.assertIn("node", log)
        lb = self.run_more(d, ["--node", "5"], "same node")
        check_all(self, [la.clients, lb.clients])

    def test_epoch_change_refused(self):
        d, la = self.first_run([])
        for epoch in [NANOFLAKE_EPOCH + 3000, NANOFLAKE_EPOCH - 86400000]:
            with self.subTest(epoch=epoch):
                self.assert_refused(self.server(d, ["--nanoflake-epoch", str(epoch)]), "nanoflake-epoch", "changed")

    def test_same_epoch_written_differently_is_no_change(self):
        d, la = self.first_run(["--nanoflake-epoch", "1420070400000"])
        lb = self.run_more(d, ["--nanoflake-epoch", "2015-01-01T00:00:00.000Z"], "same epoch")
        check_all(self, [la.clients, lb.clients])

    def test_epoch_moved_later_adopted(self):
        shift = 3000
        d, la = self.first_run([])
        mark = read_mark(d)
        epoch = NANOFLAKE_EPOCH + shift
        b = self.server(d, ["--nanoflake-epoch", str(epoch), "--adopt-params", "1", "--startup-wait", "10000"])
        b.start(timeout=30)
        # Until the clock passes mark + shift, a nanoflake could repeat an old one.
        first, deadline = [], time.monotonic() + shift / 1000 + 10
        while not first and time.monotonic() < deadline:
            status, ids = mint_http(b.http_port)
            if status == 200:
                first = ids
            else:
                time.sleep(0.05)
        self.assertTrue(first, "the server never minted a nanoflake after adopting the new epoch")
        lb = self.load(b, name="adopted")
        time.sleep(0.5)
        lb.stop()
        lb.assert_no_failures(self)
        status, log = b.stop()
        self.assertEqual(status, 0, log)
        after = first + lb.values("nanoflake")
        self.assertGreater(min(after), max(la.values("nanoflake")))
        self.assertGreater(min((v >> 22) + epoch for v in after), mark + shift)
        check_all(self, [la.clients, lb.clients])
        # The new epoch is now the recorded one.
        lc = self.run_more(d, ["--nanoflake-epoch", str(epoch)], "recorded")
        check_all(self, [la.clients, lb.clients, lc.clients])

    def test_small_epoch_moves_adopted(self):
        """An epoch moved a few ms later, adopted, for every format with a
        settable epoch; for sonyflake (10 ms units) moves that cross a unit
        boundary from epochs that are not whole units. The first run mints
        up to its stop; under the second, the clock is stepped back behind
        the first run's last ID, so that it mints from the moment its floor
        lets it, right after that ID: they share no ID. (Floors computed in ms
        rather than the format's units let the second run in one unit
        early: a whole unit repeated.)"""
        self.need_faketime()
        def mint_hex(port, fmt):
            status, body = ask(port, f"/v1/{fmt}?count=1000&as=hex")
            return [int(x, 16) for x in body.split()] if status == 200 else []

        def mint_until(srv, fmt, seconds, stop_server=False):
            ids, end = [], time.monotonic() + seconds
            while time.monotonic() < end:
                ids += mint_hex(srv.http_port, fmt)
            if stop_server:
                # Stopped with a request in flight: the final mark is the last ID minted.
                t = threading.Thread(target=lambda: ids.extend(mint_hex(srv.http_port, fmt)))
                t.start()
                status, log = srv.stop()
                t.join()
                self.assertEqual(status, 0, log)
            return ids

        cases = [("sonyflake", 1409529600007, 1409529600010), ("sonyflake", 1409529600007, 1409529600020),
                 ("sonyflake", 1409529600005, 1409529600012), ("nanoflake", NANOFLAKE_EPOCH, NANOFLAKE_EPOCH + 5),
                 ("snowflake", NANOFLAKE_EPOCH, NANOFLAKE_EPOCH + 5)]
        for fmt, old, new in cases:
            with self.subTest(fmt=fmt, old=old, new=new):
                d = self.dir(f"epoch-{fmt}-{old}-{new}")
                clock = self.clock_file(0)
                # The new epoch's host-wide state made earlier (by another
                # server of the host), so that the floor a state made new
                # has does not hide the one the epoch change needs.
                a = self.server(d, ["--node", "5", f"--{fmt}-epoch", str(old)], faketime_file=clock)
                z = self.server(self.dir(f"epoch-{fmt}-{old}-{new}-other"), ["--node", "5", f"--{fmt}-epoch", str(new)],
                                env={"MINTID_ID_SPACE": a.env["MINTID_ID_SPACE"]}).start()
                mint_hex(z.http_port, fmt)
                status, log = z.stop()
                self.assertEqual(status, 0, log)
                a.start()
                first = mint_until(a, fmt, 0.6, stop_server=True)
                stopped = time.time()
                b = self.server(d, ["--node", "5", f"--{fmt}-epoch", str(new), "--adopt-params", "1",
                                    "--startup-wait", "10000"], faketime_file=clock).start(timeout=30)
                # Back to 0.3 s before the first run stopped: the requests
                # wait, and are answered as soon as the floor is passed.
                set_clock(clock, -(time.time() - stopped) - 0.3)
                second = mint_until(b, fmt, 1.0)
                status, log = b.stop()
                self.assertEqual(status, 0, log)
                self.assertGreater(len(first), 1000)
                self.assertGreater(len(second), 1000)
                self.assertEqual(sorted(set(first) & set(second))[:5], [])

    def test_epoch_moved_earlier_adopted(self):
        d, la = self.first_run([])
        epoch = NANOFLAKE_EPOCH - 86400000
        lb = self.run_more(d, ["--nanoflake-epoch", str(epoch), "--adopt-params", "1"], "adopted")
        check_all(self, [la.clients, lb.clients])

    def test_node_adopted(self):
        d, la = self.first_run(["--node", "5"])
        lb = self.run_more(d, ["--node", "6", "--adopt-params", "1"], "adopted")
        self.assertEqual({nanoflake_node(v) for v in lb.values("nanoflake")}, {6})
        lc = self.run_more(d, ["--node", "6"], "recorded")
        check_all(self, [la.clients, lb.clients, lc.clients])


if __name__ == "__main__":
    main()
