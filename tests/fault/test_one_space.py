# SPDX-License-Identifier: MIT
"""test_one_space.py - one ID space per host, whichever home mints: mintidd
(with its workers), the mintid command, the Python module, the SQLite
extension and the PostgreSQL extension, each with its defaults beside the
others, continue one sequence per format, node id, epoch and id space, and
a reboot whose clock comes back behind the last ID replays none of it.

- EveryHome: for each format whose uniqueness rests on node id + time +
  sequence (nanoflake, snowflake, sonyflake, uexky, caloriosa,
  ulid-flake-scalable), all five homes mint at once, as fast as they can,
  while each is killed with SIGKILL in turn (the command, the Python
  process, the SQLite process, the PostgreSQL backend minting, which
  restarts the cluster, a server worker) and started again. Every complete
  line is kept; no ID may come twice. Before the homes shared the host's
  state, the server and the command repeated each other by the tens of
  thousands a second; before PostgreSQL shared it, 2.3 million of 11.8
  million nanoflakes came twice. PostgreSQL is a throwaway cluster as the
  postgres user (tests/pg/test_pg.py's), with this tree's module built in
  the test's directory and loaded by its path, its SQL objects made from
  the default version's install script: nothing is installed. It is left
  out, saying so, in sanitizer builds and when not run as root.
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
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
from faults import OPT, FaultCase, Mintidd, main, scale  # noqa: E402
from harness import FAKETIME_LIB, children  # noqa: E402

FORMATS = ["nanoflake", "snowflake", "sonyflake", "uexky", "caloriosa", "ulid-flake-scalable"]
BATCH = 500
REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


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
    """The embedded homes minting one format: a command, a Python process,
    a SQLite process and (given pg) a PostgreSQL session, each restartable."""

    def __init__(self, tc, fmt, env, pg=None):
        self.tc, self.fmt, self.env, self.pg = tc, fmt, env, pg
        self.kinds = ("command", "python", "sqlite") + (("postgres",) if pg is not None else ())
        self.procs, self.outputs = {}, []

    def start(self, kind):
        path = os.path.join(self.tc.tmp, f"{self.fmt}-{kind}-{len(self.outputs)}.out")
        self.outputs.append((kind, path))
        if kind == "postgres":
            p = self.pg.start(self.fmt, path)
        elif kind == "command":
            out = open(path, "wb")
            p = subprocess.Popen([OPT.mintid, "gen", self.fmt, "-n", str(10**12)], stdout=out,
                                 stderr=subprocess.PIPE, env=self.env)
            out.close()
        else:
            p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--home", kind, self.fmt, path],
                                 stderr=subprocess.PIPE, env=self.env)
        self.procs[kind] = p

    def kill(self, kind, backend=True):
        """SIGKILL to the home (PostgreSQL's: to its backend, unless backend is false, and to psql)."""
        p = self.procs[kind]
        if p.poll() is not None:
            err = p.stderr.read()
            self.tc.fail(f"{kind} minting {self.fmt} ended ({p.returncode}): "
                         f"{err.decode() if isinstance(err, bytes) else err}")
        if kind == "postgres" and backend:
            self.pg.kill_backend()
        p.send_signal(signal.SIGKILL)
        p.wait()
        p.stderr.close()

    def stop(self):
        for kind in self.procs:
            self.kill(kind, backend=False)

    def ids(self, kind=None):
        """Every ID the homes (or the homes of one kind) wrote whole."""
        return [line for k, path in self.outputs if kind in (None, k) for line in whole_lines(path)]


class Postgres:
    """The PostgreSQL home: a throwaway cluster running as the postgres user,
    with the module built from this tree in its directory and loaded by path
    (shared_preload_libraries), the objects of the default version's install
    script made by psql (MODULE_PATHNAME being that path), minting in the
    test's host directory and id space with its defaults otherwise."""

    def __init__(self, tc, host_dir, id_space):
        sys.path.insert(0, os.path.join(REPO, "tests", "pg"))
        import test_pg  # noqa: E402 (runs pg_config: only once PostgreSQL is known to be there)

        self.tc, self.pg = tc, test_pg
        root = tempfile.mkdtemp(prefix="mintid-fault-pg-")
        tc.addCleanup(shutil.rmtree, root, ignore_errors=True)
        os.chmod(root, 0o755)
        self.so = self.build(root)
        self.cluster = c = test_pg.Cluster(root)
        c.initdb()
        c.conf(("shared_preload_libraries", self.so), ("mintid.host_dir", host_dir), ("mintid.id_space", id_space))
        tc.addCleanup(c.stop)
        c.start()
        with open(os.path.join(REPO, "pg", "mintid.control")) as f:
            version = next(l.split("'")[1] for l in f if l.startswith("default_version"))
        with open(os.path.join(REPO, "pg", f"mintid--{version}.sql")) as f:
            script = [l for l in f if not l.startswith("\\echo ")]
        path = os.path.join(root, "objects.sql")
        with open(path, "w") as f:
            f.write("".join(script).replace("MODULE_PATHNAME", self.so))
        c.psql("postgres", f"\\i {path}", "-q")

    @staticmethod
    def build(root):
        """pg/ built as `make -C pg` builds it, in a copy beside links to src/ and include/: mintid.so."""
        tree = os.path.join(root, "tree")
        os.makedirs(os.path.join(tree, "pg"))
        for d in ("src", "include"):
            os.symlink(os.path.join(REPO, d), os.path.join(tree, d))
        for name in os.listdir(os.path.join(REPO, "pg")):
            if name in ("Makefile", "mintid.control") or name.endswith((".c", ".h", ".sql")):
                shutil.copy(os.path.join(REPO, "pg", name), os.path.join(tree, "pg", name))
        p = subprocess.run(["make", "-C", os.path.join(tree, "pg"), "-j2", "mintid.so"], capture_output=True,
                           text=True)
        if p.returncode != 0:
            raise AssertionError(f"make -C pg mintid.so: {p.stdout[-2000:]}{p.stderr[-2000:]}")
        return os.path.join(tree, "pg", "mintid.so")

    def start(self, fmt, path):
        """A psql minting BATCH IDs of fmt a statement, their text one per line into path."""
        script = os.path.join(self.cluster.root, f"mint-{fmt}.sql")
        with open(script, "w") as f:
            f.writelines(f"SELECT gen_{fmt.replace('-', '_')}() FROM generate_series(1, {BATCH});\n"
                         for _ in range(100000))
        with open(path, "w") as out:
            return subprocess.Popen(["psql", "-X", "-At", "-q", "-v", "ON_ERROR_STOP=1", "-d", "postgres", "-f",
                                     script], stdout=out, stderr=subprocess.PIPE,
                                    env=dict(self.cluster.env(), PGAPPNAME="mintid-home"))

    def kill_backend(self):
        """SIGKILL to the backend minting: the postmaster restarts the cluster (its mark the floor); waits
        until it serves again."""
        pids = self.cluster.psql("postgres", "SELECT pid FROM pg_stat_activity WHERE application_name = "
                                             "'mintid-home'").split()
        self.tc.assertTrue(pids, "no PostgreSQL backend minting")
        for pid in pids:
            os.kill(int(pid), signal.SIGKILL)
        deadline = time.monotonic() + 30
        time.sleep(0.1)
        while self.cluster.psql("postgres", "SELECT 1", check=False) != "1":
            self.tc.assertLess(time.monotonic(), deadline, "PostgreSQL did not come back after a backend's kill")
            time.sleep(0.05)


def postgres_left_out():
    """Why the PostgreSQL home cannot take part here, or None."""
    if OPT.sanitized:
        return "a sanitizer build (the plain build runs it)"
    if os.getuid() != 0:
        return "not run as root, which starts the cluster as the postgres user"
    if shutil.which("pg_config") is None:
        raise AssertionError("PostgreSQL is not installed (make deps installs postgresql-15 and its -dev package)")
    return None


class EveryHome(FaultCase):
    def test_every_home_at_once(self):
        host_dir = os.path.join(self.tmp, "host")
        os.mkdir(host_dir)
        # Every home's user may write there, the postgres user too (as /var/tmp).
        os.chmod(self.tmp, 0o755)
        os.chmod(host_dir, 0o1777)
        with Mintidd(args=["--workers", "2"], env={"MINTID_HOST_DIR": host_dir}) as srv:
            env = dict(os.environ, MINTID_HOST_DIR=host_dir, MINTID_ID_SPACE=srv.env["MINTID_ID_SPACE"])
            env.pop("MINTID_NODE", None)
            left_out = postgres_left_out()
            if left_out is None:
                pg = Postgres(self, host_dir, srv.env["MINTID_ID_SPACE"])
            else:
                pg = None
                print(f"test_one_space: the PostgreSQL home is left out: {left_out}", file=sys.stderr)
            seconds = scale(2.0, 20.0)
            for fmt in FORMATS:
                homes = Homes(self, fmt, env, pg)
                for kind in homes.kinds:
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
                for kind in homes.kinds + ("worker",):
                    time.sleep(seconds / (len(homes.kinds) + 1))
                    if kind == "worker":
                        workers = children(srv.proc.pid)
                        self.assertTrue(workers, "no worker to kill")
                        os.kill(workers[0], signal.SIGKILL)
                    else:
                        homes.kill(kind)
                        homes.start(kind)
                time.sleep(seconds / (len(homes.kinds) + 1))
                stop.set()
                t.join()
                homes.stop()
                self.assertEqual(failures, [])
                embedded = homes.ids()
                every = embedded + served
                self.assertGreater(len(served), 0, f"{fmt}: the server minted nothing")
                for kind in homes.kinds:
                    self.assertGreater(len(homes.ids(kind)), 0, f"{fmt}: the {kind} home minted nothing")
                repeated = len(every) - len(set(every))
                self.assertEqual(repeated, 0, f"{fmt}: {repeated} of {len(every)} IDs came twice "
                                              f"({len(served)} from the server)")
            self.assertIsNone(srv.proc.poll(), "the server ended")


class Reboot(FaultCase):
    def test_reboot_with_the_clock_behind(self):
        self.need_faketime()
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
