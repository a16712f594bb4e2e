#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_worker_exec.py - mintidd's workers are not forks of a threaded
process. The supervisor runs threads (the log's writer, the state writer,
the lease), and a child of fork() keeps every lock one of them held at that
moment held for good; so each worker, at start and when it is restarted,
is the program executed anew (`mintidd worker SLOT`, server/workers.h),
which begins with one thread and none of the supervisor's memory, holding
only the descriptors it is given: not the state directory's lock."""

import os
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, children, server_test_args  # noqa: E402

MINTIDD = None


def threads(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))


def cmdline(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        return [a.decode() for a in f.read().split(b"\0")[:-1]]


def comm(pid):
    """The name the kernel gives pid (ps, top, pgrep): its program's, or what it set with PR_SET_NAME."""
    with open(f"/proc/{pid}/comm") as f:
        return f.read().strip()


def descriptors(pid):
    """What each open descriptor of pid names (readlink of /proc/PID/fd/N)."""
    out = {}
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            out[int(fd)] = os.readlink(f"/proc/{pid}/fd/{fd}")
        except FileNotFoundError:
            pass
    return out


def wait_for(cond, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


class WorkerExec(unittest.TestCase):
    def assert_started_anew(self, srv, pid):
        """pid is a worker executed from mintidd's own file and holding none
        of the supervisor's descriptors but those it is given. Returns its
        slot."""
        # A fork goes on with the supervisor's command line; a program
        # executed anew has the one it was given, from the moment the new
        # process (found at once, maybe before its exec) executes it.
        wait_for(lambda: cmdline(pid)[1:2] == ["worker"] and comm(pid) == "mintidd", 5)
        self.assertTrue(os.path.samefile(f"/proc/{pid}/exe", MINTIDD), "a worker runs another program")
        # Named as the supervisor is (ps, top, pgrep, the journal), not "exe".
        self.assertEqual(comm(pid), "mintidd")
        args = cmdline(pid)
        self.assertEqual(args[:2], [MINTIDD, "worker"],
                         f"the worker was not executed anew: it is a copy of the supervisor ({args})")
        self.assertEqual(len(args), 3, args)
        state_dir = os.path.realpath(srv.state_dir)
        held = descriptors(pid)
        # The supervisor's lock is an flock on the directory, held by its open
        # file: a copy of the supervisor would hold that very file, which
        # /proc/PID/fdinfo lists with the lock. (A worker may open the
        # directory itself, for its key store: a file of its own, unlocked.)
        for fd, path in held.items():
            if path == state_dir:
                try:
                    with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                        info = f.read()
                except FileNotFoundError:
                    continue
                self.assertNotIn("FLOCK", info, f"the worker holds the state directory's lock (fd {fd}): {held}")
        self.assertIn("/memfd:mintidd-shared (deleted)", held.values(), held)
        return args[2]

    def test_workers_are_started_anew(self):
        """At start, while the supervisor runs its threads, each worker is
        mintidd executed again for its slot."""
        with Server(MINTIDD, args=["--workers", "2"]) as srv:
            self.assertTrue(srv.wait_log(b" ready: ", count=1), srv.log.decode())
            # What makes a fork unsafe: the supervisor is threaded.
            self.assertGreater(threads(srv.proc.pid), 1)
            workers = children(srv.proc.pid)
            self.assertEqual(len(workers), 2)
            self.assertEqual(sorted(self.assert_started_anew(srv, w) for w in workers), ["0", "1"])
            status, log = srv.stop()
            self.assertEqual(status, 0, log)

    def test_restarted_worker_is_started_anew(self):
        """A worker killed is replaced, by the threaded supervisor, with
        mintidd executed again for the same slot."""
        with Server(MINTIDD, args=["--workers", "2"]) as srv:
            self.assertTrue(srv.wait_log(b" ready: ", count=1), srv.log.decode())
            victim, other = children(srv.proc.pid)
            self.assertGreater(threads(srv.proc.pid), 1)
            os.kill(victim, signal.SIGKILL)
            self.assertTrue(wait_for(lambda: len(children(srv.proc.pid)) == 2 and
                                     victim not in children(srv.proc.pid), 5), "the worker was not restarted")
            fresh = next(w for w in children(srv.proc.pid) if w != other)
            slot = self.assert_started_anew(srv, fresh)
            self.assertTrue(srv.wait_log(f"worker {slot} restarted".encode(), count=1), srv.log.decode())
            status, log = srv.stop()
            self.assertEqual(status, 0, log)

    def test_worker_by_hand(self):
        """`mintidd worker 0` run by a person is refused, saying who starts
        workers, with status 2."""
        r = subprocess.run([MINTIDD, "worker", "0"], capture_output=True, text=True, timeout=10,
                           stdin=subprocess.DEVNULL, close_fds=True)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("workers are started by mintidd itself", r.stderr)


if __name__ == "__main__":
    MINTIDD, _, argv = server_test_args()
    unittest.main(argv=argv)
