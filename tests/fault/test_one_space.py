# SPDX-License-Identifier: MIT
"""test_one_space.py - one ID space per host, whichever home mints: mintidd
(with its workers), the mintid command, the Python module and the SQLite
extension, each with its defaults beside the others, continue one sequence
per format, node id, epoch and id space, and a reboot whose clock comes back
behind the last ID replays none of it.

- EveryHome: for each format whose uniqueness rests on node id + time +
  sequence (nanoflake, snowflake, sonyflake, uexky, caloriosa,
  ulid-flake-scalable), all four homes mint at once, as fast as they can,
  while each is killed with SIGKILL in turn (the command, the Python
  process, the SQLite process, a server worker) and started again. Every
  complete line is kept; no ID may come twice. Before the homes shared the
  host's state, the server and the command repeated each other by the tens
  of thousands a second.
- Reboot: the command, Python and SQLite mint; then the host "reboots" (the
  state files' boot id is no longer the kernel's) and the clock comes back
  5 s behind (libfaketime); each home mints again and repeats nothing.

Every home reads MINTID_HOST_DIR and MINTID_ID_SPACE, set here to the
test's own directory and the server's id space. The SQLite module comes
from TEST_SQLITE_MODULE, the Python module from PYTHONPATH (both set
by tests/sqlite/CMakeLists.txt).

Usage: python3 test_one_space.py --mintidd PATH --mintid PATH [--no-faketime]
"""

import http.client
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
from faults import OPT, FaultCase, Mintidd, main, scale  # noqa: E402
from harness import FAKETIME_LIB, children, have_faketime  # noqa: E402

FORMATS = ["nanoflake", "snowflake", "sonyflake", "uexky", "caloriosa", "ulid-flake-scalable"]
BATCH = 500


def home(kind, fmt, out_path):
    """The loop of one home process: mint BATCH IDs at a time for ever,
    one per line, each batch written whole."""
    out = open(out_path, "w")
    if kind == "python":
        import mintid
        while True:
            out.write("\n".join(mintid.gen(fmt, BATCH)) + "\n")
            out.flush()
    elif kind == "sqlite":
        db = sqlite3.connect(":memory:")
        db.enable_load_extension(True)
        db.load_extension(os.environ["TEST_SQLITE_MODULE"])
        q = (f"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < {BATCH}) "
             f"SELECT gen_{fmt.replace('-', '_')}() FROM r")
        while True:
            out.write("\n".join(row[0] for row in db.execute(q)) + "\n")
            out.flush()


def whole_lines(path):
    """The complete lines of a file a killed process wrote."""
    with open(path) as f:
        data = f.read()
    return data.split("\n")[:-1]


class Homes:
    """The embedded homes minting one format: a command, a Python process
    and a SQLite process, each restartable."""

    def __init__(self, tc, fmt, env):
        self.tc, self.fmt, self.env = tc, fmt, env
        self.procs, self.outputs = {}, []

    def start(self, kind):
        path = os.path.join(self.tc.tmp, f"{self.fmt}-{kind}-{len(self.outputs)}.out")
        self.outputs.append(path)
        if kind == "command":
            out = open(path, "wb")
            p = subprocess.Popen([OPT.mintid, "gen", self.fmt, "-n", str(10**12)], stdout=out,
                                 stderr=subprocess.PIPE, env=self.env)
            out.close()
        else:
            p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--home", kind, self.fmt, path],
                                 stderr=subprocess.PIPE, env=self.env)
        self.procs[kind] = p

    def kill(self, kind):
        p = self.procs[kind]
        if p.poll() is not None:
            self.tc.fail(f"{kind} minting {self.fmt} ended ({p.returncode}): {p.stderr.read().decode()}")
        p.send_signal(signal.SIGKILL)
        p.wait()

    def stop(self):
        for kind in self.procs:
            self.kill(kind)

    def ids(self):
        return [line for path in self.outputs for line in whole_lines(path)]


class EveryHome(FaultCase):
    def test_every_home_at_once(self):
        host_dir = os.path.join(self.tmp, "host")
        os.mkdir(host_dir)
        with Mintidd(args=["--workers", "2"], env={"MINTID_HOST_DIR": host_dir}) as srv:
            env = dict(os.environ, MINTID_HOST_DIR=host_dir, MINTID_ID_SPACE=srv.env["MINTID_ID_SPACE"])
            env.pop("MINTID_NODE", None)
            seconds = scale(2.0, 20.0)
            for fmt in FORMATS:
                homes = Homes(self, fmt, env)
                for kind in ("command", "python", "sqlite"):
                    homes.start(kind)
                served, stop, failures = [], threading.Event(), []

                def serve():
                    c = http.client.HTTPConnection("127.0.0.1", srv.http_port, timeout=10)
                    while not stop.is_set():
                        try:
                            c.request("GET", f"/v1/{fmt}?count={BATCH}")
                            r = c.getresponse()
                            body = r.read().decode()
                            if r.status == 200:
                                served.extend(body.split())
                            elif r.status != 503:
                                failures.append((r.status, body))
                        except (OSError, http.client.HTTPException):
                            c.close()
                            c = http.client.HTTPConnection("127.0.0.1", srv.http_port, timeout=10)
                    c.close()

                t = threading.Thread(target=serve)
                t.start()
                # Each home killed with SIGKILL in turn, mid-mint, and started again.
                for kind in ("command", "python", "sqlite", "worker"):
                    time.sleep(seconds / 4)
                    if kind == "worker":
                        workers = children(srv.proc.pid)
                        self.assertTrue(workers, "no worker to kill")
                        os.kill(workers[0], signal.SIGKILL)
                    else:
                        homes.kill(kind)
                        homes.start(kind)
                time.sleep(seconds / 4)
                stop.set()
                t.join()
                homes.stop()
                self.assertEqual(failures, [])
                embedded = homes.ids()
                every = embedded + served
                self.assertGreater(len(served), 0, f"{fmt}: the server minted nothing")
                self.assertGreater(len(embedded), 0, f"{fmt}: the embedded homes minted nothing")
                repeated = len(every) - len(set(every))
                self.assertEqual(repeated, 0, f"{fmt}: {repeated} of {len(every)} IDs came twice "
                                              f"({len(served)} from the server)")
            self.assertIsNone(srv.proc.poll(), "the server ended")


class Reboot(FaultCase):
    def test_reboot_with_the_clock_behind(self):
        if OPT.no_faketime or not have_faketime():
            self.skipTest("needs libfaketime")
        host_dir = os.path.join(self.tmp, "host")
        os.mkdir(host_dir)
        env = dict(os.environ, MINTID_HOST_DIR=host_dir, MINTID_ID_SPACE="reboot")
        env.pop("MINTID_NODE", None)
        kinds = ("command", "python", "sqlite")
        for fmt in ("nanoflake", "snowflake", "sonyflake"):
            homes = Homes(self, fmt, env)
            for kind in kinds:
                homes.start(kind)
            time.sleep(scale(1.5, 10.0))
            homes.stop()
            before = homes.ids()
            self.assertGreater(len(before), 0)
            # The reboot: the kernel's boot id is no longer the one the
            # files were written under.
            with open("/proc/sys/kernel/random/boot_id", "rb") as f:
                boot = f.read().strip()
            for name in os.listdir(host_dir):
                if not name.startswith(f"mintid-{fmt}-"):
                    continue
                path = os.path.join(host_dir, name)
                with open(path, "r+b") as f:
                    data = f.read()
                    self.assertIn(boot, data, name)
                    f.seek(data.index(boot))
                    f.write(b"x" * len(boot))
            # After it, the clock 5 s behind: each home mints, waiting as
            # long as it takes for the clock to pass the mark.
            late = dict(env, LD_PRELOAD=FAKETIME_LIB, FAKETIME="-5s", FAKETIME_DONT_FAKE_MONOTONIC="1")
            procs = []
            for kind in kinds:
                if kind == "command":
                    cmd = [OPT.mintid, "gen", fmt, "-n", "20000", "--max-wait", "15000"]
                else:
                    cmd = [sys.executable, os.path.abspath(__file__), "--home-once", kind, fmt]
                procs.append((kind, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=late)))
            after = []
            for kind, p in procs:
                out, err = p.communicate(timeout=60)
                self.assertEqual(p.returncode, 0, f"{kind}: {err.decode()}")
                after += out.decode().split()
            repeated = len(set(before) & set(after))
            self.assertEqual(repeated, 0, f"{fmt}: {repeated} IDs minted before the reboot came again")
            self.assertEqual(len(after), len(set(after)))


def home_once(kind, fmt):
    """Mints 20,000 IDs in one home, waiting for the clock if need be, and prints them."""
    if kind == "python":
        import mintid
        g = mintid.Generator(fmt)
        deadline = time.monotonic() + 15
        ids = []
        while len(ids) < 20000:
            try:
                ids.append(next(g))
            except mintid.Timeout:
                if time.monotonic() > deadline:
                    raise
    else:
        db = sqlite3.connect(":memory:")
        db.enable_load_extension(True)
        db.load_extension(os.environ["TEST_SQLITE_MODULE"])
        deadline = time.monotonic() + 15
        ids = []
        while len(ids) < 20000:
            try:
                ids.append(db.execute(f"SELECT gen_{fmt.replace('-', '_')}()").fetchone()[0])
            except sqlite3.OperationalError:
                if time.monotonic() > deadline:
                    raise
    print("\n".join(ids))


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--home":
        home(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "--home-once":
        home_once(sys.argv[2], sys.argv[3])
    else:
        main()
