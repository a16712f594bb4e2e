# SPDX-License-Identifier: MIT
"""test_clock.py - the wall clock stepped under load, through libfaketime
reading an offset file that the test rewrites while the server runs: back
5 ms, 1 s and 1 h, and forward 1 h then back. Requests that cannot be
served yet wait (up to max-wait) without holding up anyone else, are then
refused with a message about the clock, and no ID is ever repeated or out
of order, in this run or the next.

Usage: python3 test_clock.py --mintidd PATH --mintid PATH [--no-faketime] [--long]
"""

import http.client
import os
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faults import FaultCase, Resp, check_all, check_mark_covers, main, scale, set_clock  # noqa: E402

MAX_WAIT = 1.0  # the default max-wait, in seconds
SLACK = 1.5  # scheduling on a busy two-core machine
PROMPT = 0.5  # what "answers at once" allows, in seconds

# One request in flight per connection, so that each request's own wait
# can be measured (pipelined replies are answered in order and would add up).
CLOCK_MIX = [
    ("http", "nanoflake", 500, 1),
    ("http", "nanoflake", 50, 1),
    ("resp", "nanoflake", 200, 1),
    ("resp", "nanoflake", 20, 1),
    ("http", "scru160", 100, 1),
    ("resp", "ulid-flake", 100, 1),
]


class Probe(threading.Thread):
    """Asks what needs no clock, on connections of its own, every 50 ms:
    PING over RESP, GET /v1/formats over HTTP. Keeps how long each took."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.server = server
        self.samples = []  # (sent, what, seconds)
        self.inflight = None  # (sent, what) of the question awaiting its answer
        self.failure = None
        self.stopping = threading.Event()

    def run(self):
        try:
            with Resp(self.server.resp_port, timeout=30) as r:
                c = http.client.HTTPConnection("127.0.0.1", self.server.http_port, timeout=30)
                try:
                    while not self.stopping.is_set():
                        self._ask("PING", lambda: r.call("PING"), "PONG")
                        self._ask("GET /v1/formats", lambda: self._get(c), 200)
                        time.sleep(0.05)
                finally:
                    c.close()
        except Exception:
            self.failure = traceback.format_exc()

    @staticmethod
    def _get(c):
        c.request("GET", "/v1/formats")
        resp = c.getresponse()
        resp.read()
        return resp.status

    def _ask(self, what, call, want):
        t = time.monotonic()
        self.inflight = (t, what)
        got = call()
        self.inflight = None
        if got != want:
            raise AssertionError(f"{what} answered {got!r}")
        self.samples.append((t, what, time.monotonic() - t))

    def worst(self, since, until):
        """The slowest answer asked for or awaited within (since, until),
        counting one still awaited; and how many there were."""
        seen = [(s, what) for t, what, s in self.samples if t <= until and t + s >= since]
        pending = self.inflight
        if pending is not None and pending[0] <= until:
            seen.append((time.monotonic() - pending[0], pending[1] + " (still unanswered)"))
        return (max(seen) if seen else (0.0, "nothing")), len(seen)

    def stop(self):
        self.stopping.set()
        self.join(60)


class ClockSteps(FaultCase):
    def setUp(self):
        super().setUp()
        self.need_faketime()
        self.clock = self.clock_file(0)
        self.offset, self.forward = 0.0, []  # the clock's offset, and when it was stepped forward
        self.state = self.dir("state")
        self.srv = self.server(self.state, ["--node", "1"], faketime_file=self.clock).start()
        self.run0 = self.load(self.srv, CLOCK_MIX, name="run 0")
        self.probe = Probe(self.srv)
        self.probe.start()
        self.addCleanup(self.probe.stopping.set)
        time.sleep(scale(1.0, 5.0))

    def step(self, offset_s):
        set_clock(self.clock, offset_s)
        now = time.monotonic()
        if offset_s > self.offset:
            self.forward.append(now)
        self.offset = offset_s
        return now

    def check_refusal_reasons(self):
        """Every refusal says it is the clock; only one answered just after
        the clock jumped forward may instead say that the state file has
        not yet recorded the new time (its wait ended before the write)."""
        for c in self.run0.clients:
            for r in c.refusals:
                text = r.text.lower()
                after_jump = any(t - 0.1 <= r.received <= t + MAX_WAIT + SLACK for t in self.forward)
                if not ("clock" in text or after_jump and "state file" in text):
                    steps = ", ".join(f"{t - r.sent:+.3f}" for t in self.forward)
                    self.fail(f"{c.label}: a refusal that does not say it is the clock: {r.text} (answered "
                              f"{r.received - r.sent:.3f} s after it was asked; the clock jumped forward at "
                              f"{steps or 'no time'} s from then)")

    def finish(self, offset_s):
        """Stops the load and the server, checks the run, then runs once more
        on the same state directory with the clock at `offset_s`."""
        self.run0.stop()
        self.probe.stop()
        self.assertIsNone(self.probe.failure, self.probe.failure)
        self.run0.assert_no_failures(self)
        status, log = self.srv.stop()
        self.assertEqual(status, 0, log)
        check_mark_covers(self, self.state, self.run0.clients, when="after the run")
        self.check_refusal_reasons()
        set_clock(self.clock, offset_s)
        again = self.server(self.state, ["--node", "1", "--startup-wait", "10000"], faketime_file=self.clock)
        again.start(timeout=30)
        run1 = self.load(again, CLOCK_MIX, name="run 1")
        time.sleep(0.5)
        run1.stop()
        run1.assert_no_failures(self)
        status, log = again.stop()
        self.assertEqual(status, 0, log)
        total = check_all(self, [self.run0.clients, run1.clients])
        self.assertGreater(len(run1.values("nanoflake")), 0, "the next run minted nothing")
        return total

    def assert_prompt(self, since, until):
        """Questions that need no clock were answered at once meanwhile."""
        (worst, what), n = self.probe.worst(since, until)
        self.assertLess(worst, PROMPT, f"{what} took {worst:.3f} s while minting waited for the clock")
        self.assertGreater(n, 3, "the probe hardly ran")

    def assert_waits_bounded(self):
        """No nanoflake request waited much longer than max-wait."""
        for c in self.run0.clients:
            if c.fmt.name != "nanoflake":
                continue
            for r in c.batches + c.refusals:
                self.assertLess(r.received - r.sent, MAX_WAIT + SLACK,
                                f"{c.label}: a request waited {r.received - r.sent:.3f} s, beyond max-wait")

    def nanoflake(self):
        return [c for c in self.run0.clients if c.fmt.name == "nanoflake"]

    def assert_refused_between(self, since, until):
        """Every nanoflake request made in (since, until) and answered before
        `until` was refused."""
        served = [b for c in self.nanoflake() for b in c.batches if b.sent > since + 0.05 and b.received < until]
        self.assertEqual(served, [], f"{len(served)} nanoflake batches minted while the clock was far behind")
        refused = [r for c in self.nanoflake() for r in c.refusals if r.sent > since and r.received < until]
        self.assertGreater(len(refused), 0, "no nanoflake request made while the clock was behind was answered "
                                            "(with a refusal) before the clock passed the mark")

    def assert_served_after(self, since):
        served = [b for c in self.nanoflake() for b in c.batches if b.sent > since]
        self.assertGreater(len(served), 0, "minting did not resume once the clock had passed the mark")

    def check(self, name, fn, *args):
        """One check, reported on its own: a failure does not hide the others."""
        with self.subTest(check=name):
            fn(*args)

    def test_step_back_5ms(self):
        start = time.monotonic()
        offset = 0.0
        for _ in range(scale(5, 50)):
            offset -= 0.005
            self.step(offset)
            time.sleep(0.3)
        self.check("prompt", self.assert_prompt, start, time.monotonic())
        self.check("no refusal", lambda: self.assertEqual(
            self.run0.refusals("nanoflake"), [], "a 5 ms step back refused nanoflake requests: they should wait"))
        self.check("waits bounded", self.assert_waits_bounded)
        self.check("served", self.assert_served_after, start + 0.1)
        self.finish(offset)

    def test_step_back_1s(self):
        stepped = self.step(-1.0)
        time.sleep(3.0)
        self.check("prompt", self.assert_prompt, stepped, stepped + 3.0)
        self.check("waits bounded", self.assert_waits_bounded)
        self.check("served again", self.assert_served_after, stepped + 1.5)
        self.finish(-1.0)

    def test_step_back_1h(self):
        stepped = self.step(-3600.0)
        time.sleep(scale(3.0, 30.0))
        # Past the mark (at most reserve-ahead ahead of the clock before the step).
        passed = self.step(3.0)
        time.sleep(1.5)
        self.check("prompt", self.assert_prompt, stepped, passed)
        self.check("refused", self.assert_refused_between, stepped, passed)
        self.check("served again", self.assert_served_after, passed)
        self.check("waits bounded", self.assert_waits_bounded)
        self.finish(3.0)

    def test_step_forward_1h_then_back(self):
        forward = self.step(3600.0)
        time.sleep(1.0)
        back = self.step(0.0)
        time.sleep(scale(3.0, 30.0))
        passed = self.step(3603.0)
        time.sleep(1.5)
        self.check("served ahead", self.assert_served_after, forward + 0.1)
        self.check("prompt", self.assert_prompt, back, passed)
        self.check("refused", self.assert_refused_between, back, passed)
        self.check("served again", self.assert_served_after, passed)
        self.check("waits bounded", self.assert_waits_bounded)
        # A restart an hour behind what was issued refuses; on time it serves.
        self.run0.stop()
        self.probe.stop()
        status, log = self.srv.stop()
        self.assertEqual(status, 0, log)
        set_clock(self.clock, 0.0)
        self.check("restart refused", lambda: self.assert_refused(
            self.server(self.state, ["--node", "1"], faketime_file=self.clock),
            "refusing to start rather than risk a duplicate ID"))
        self.finish(3604.0)



class ClockSetRight(FaultCase):
    """A request that waits for a clock stepped back, and one that comes
    after the clock was set right: the second is answered at once (and the
    first with it), not when the first wait would have been looked at again."""

    def test_new_request_after_the_clock_is_set_right(self):
        self.need_faketime()
        clock = self.clock_file(0)
        # The wait queues are each worker's: one worker holds both requests.
        srv = self.server(None, ["--node", "1", "--max-wait", "10000", "--workers", "1"], faketime_file=clock).start()
        r = Resp(srv.resp_port, timeout=30)
        self.assertIsInstance(r.call("MINT", "nanoflake", "1"), list)
        set_clock(clock, -5.0)
        first = {}

        def waiting():
            w = Resp(srv.resp_port, timeout=30)
            first["reply"] = w.call("MINT", "nanoflake", "1")
            first["answered"] = time.monotonic()
            w.close()

        a = threading.Thread(target=waiting, daemon=True)
        a.start()
        time.sleep(1.0)
        self.assertNotIn("reply", first, "a request was answered while the clock was 5 s behind the last ID")
        set_clock(clock, 0.0)
        time.sleep(1.0)
        t = time.monotonic()
        reply = r.call("MINT", "nanoflake", "1")
        took = time.monotonic() - t
        a.join(15)
        r.close()
        self.assertIsInstance(reply, list, f"after the clock was set right: {reply}")
        self.assertLess(took, 1.0, f"a request after the clock was set right waited {took:.2f} s")
        self.assertIsInstance(first.get("reply"), list, f"the waiting request: {first.get('reply')}")
        self.assertLess(first["answered"] - t, 1.0, "the waiting request was not answered with the new one")
        status, log = srv.stop()
        self.assertEqual(status, 0, log)


if __name__ == "__main__":
    main()
