# SPDX-License-Identifier: MIT
"""test_host_gen.py - the host-wide generator under faults, through the
command as people run it: many `mintid gen` processes at once on one host
(a shell loop with xargs -P, cron jobs), killed with SIGKILL at random
moments (some while they hold the host's lock, mid-mint), new ones started
in their places, and the state file deleted under them.

Every complete line every process printed is kept. The checks: no ID twice
across all processes, and each process's own IDs strictly increasing (as
hex, whose order is the IDs' order). A process killed mid-line leaves a
partial last line, which is dropped: it was never a whole ID.

The host-wide state lives in the test's own directory (MINTID_HOST_DIR).

Usage: python3 test_host_gen.py --mintidd PATH --mintid PATH [--no-faketime] [--sanitized] [--long]
"""

import os
import random
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from faults import OPT, FaultCase, main, scale  # noqa: E402

# The formats whose processes, each minting on its own, repeat each other
# (nanoflake: the same node id; uexky and ulid-flake: few random bits).
FORMATS = ["nanoflake", "uexky", "ulid-flake"]
HEX_LEN = {"nanoflake": 16, "uexky": 16, "ulid-flake": 16}


class Storm:
    """`width` mintid gen processes of one format at a time, each asked for
    `count` IDs; the ones that end or are killed are replaced at once, so
    that processes start and stop all the time, as cron jobs do. Beside
    them, `lasting` processes mint all along and are never killed, as an
    application's workers would."""

    def __init__(self, tc, fmt, width, host_dir, count=20000, lasting=0):
        self.tc, self.fmt, self.width, self.count, self.lasting = tc, fmt, width, count, lasting
        self.env = dict(os.environ, MINTID_HOST_DIR=host_dir)
        self.procs, self.outputs, self.started = [], [], 0

    def start_one(self, count=None):
        path = os.path.join(self.tc.tmp, f"{self.fmt}-{self.started}.out")
        self.started += 1
        out = open(path, "wb")
        p = subprocess.Popen([OPT.mintid, "gen", self.fmt, "-n", str(count or self.count), "--as", "hex"],
                             stdout=out, stderr=subprocess.PIPE, env=self.env)
        out.close()
        self.procs.append(p)
        self.outputs.append(path)

    def run(self, seconds, kill_every=(0.01, 0.05), on_tick=None):
        for _ in range(self.lasting):
            self.start_one(count=10**12)
        lasting = list(self.procs)
        for _ in range(self.width):
            self.start_one()
        began = time.monotonic()
        end = began + seconds
        ticks = 0
        while time.monotonic() < end:
            time.sleep(random.uniform(*kill_every))
            live = [p for p in self.procs if p.poll() is None and p not in lasting]
            if live:
                random.choice(live).send_signal(signal.SIGKILL)
            ticks += 1
            if on_tick is not None:
                on_tick((time.monotonic() - began) / seconds)
            for p in self.procs:
                if p.poll() is not None and p.returncode not in (0, -signal.SIGKILL):
                    self.tc.fail(f"mintid gen {self.fmt} exited {p.returncode}: {p.stderr.read().decode()}")
            while sum(p.poll() is None for p in self.procs) < self.width + self.lasting:
                self.start_one()
        for p in lasting:
            if p.poll() is not None:
                self.tc.fail(f"a lasting mintid gen {self.fmt} ended ({p.returncode}): {p.stderr.read().decode()}")
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
        for p in self.procs:
            p.wait()
            p.stderr.close()
        return ticks

    def ids(self):
        """Every whole line of every process, and the processes whose own IDs did not rise strictly
        (fixed-width lower-case hex: bytes order as the IDs do)."""
        every, bad_order = [], []
        width = HEX_LEN[self.fmt]
        for path in self.outputs:
            with open(path, "rb") as f:
                data = f.read()
            lines = data.split(b"\n")
            lines.pop()  # after the last newline: empty, or a line cut by the kill
            wrong = [line for line in lines if len(line) != width]
            self.tc.assertEqual(wrong, [], f"{path}: lines that are no {width}-digit hex ID")
            if lines != sorted(set(lines)):
                bad_order.append(path)
            every.extend(lines)
        return every, bad_order


class KilledAtRandom(FaultCase):
    """Eight processes of a format at once, one killed every 50-250 ms and
    replaced: a process may die holding the host's lock, with the state
    half written. Nothing repeats."""

    def test_kill_storm(self):
        self.not_sanitized("hundreds of instrumented processes; test_host runs the same library code under sanitizers")
        for fmt in FORMATS:
            with self.subTest(fmt=fmt):
                host = self.dir(f"host-{fmt}")
                storm = Storm(self, fmt, 8, host)
                kills = storm.run(scale(1.5, 30.0))
                ids, bad_order = storm.ids()
                dups = len(ids) - len(set(ids))
                print(f"  {fmt}: {storm.started} processes, {kills} killed, {len(ids)} IDs, {dups} repeated",
                      file=sys.stderr)
                self.assertGreater(len(ids), 10000)
                self.assertEqual(bad_order, [], "a process's IDs did not rise strictly")
                self.assertEqual(dups, 0, f"{dups} {fmt} IDs repeated across processes")


class StateDeleted(FaultCase):
    """The state file deleted under running processes, twice, while
    processes are also killed and started: those running (two of them all
    along) move to the new state, those started meet it; nothing repeats."""

    def test_deleted_under_the_storm(self):
        self.not_sanitized("hundreds of instrumented processes; test_host runs the same library code under sanitizers")
        fmt = "nanoflake"
        host = self.dir("host")
        deleted = []

        def delete(part):
            """At a third and at two thirds of the storm."""
            if len(deleted) < 2 and part >= (len(deleted) + 1) / 3:
                for name in os.listdir(host):
                    if name.startswith(f"mintid-{fmt}-"):
                        os.unlink(os.path.join(host, name))
                        deleted.append(name)

        storm = Storm(self, fmt, 4, host, lasting=2)
        storm.run(scale(1.5, 20.0), kill_every=(0.03, 0.06), on_tick=delete)
        ids, bad_order = storm.ids()
        dups = len(ids) - len(set(ids))
        print(f"  {storm.started} processes, the state deleted {len(deleted)} times, {len(ids)} IDs, "
              f"{dups} repeated", file=sys.stderr)
        self.assertEqual(len(deleted), 2)
        self.assertEqual(bad_order, [], "a process's IDs did not rise strictly")
        self.assertEqual(dups, 0, f"{dups} IDs repeated after the state was deleted")


if __name__ == "__main__":
    main()
