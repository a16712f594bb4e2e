#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The PostgreSQL extension against a throwaway cluster of its own.

Starts a cluster as the postgres user on a spare loopback port, with
shared_preload_libraries = 'mintid' and mintid.host_dir a directory of its
own (mode 1777), and runs, in order:

  regress      pg_regress with pg/test's expected output (every type)
  pgbench      8 clients INSERT ... DEFAULT gen_<type>() into a primary key
  binary       COPY ... (FORMAT binary) out and back in (send/recv)
  dump         pg_dump -Fc and pg_restore of a table of every type
  host         gen_nanoflake(), gen_snowflake(), gen_sonyflake() in two
               sessions and the mintid command (build/mintid, or
               MINTID_CLI) minting at once into the cluster's host
               directory for 1.5 s each: no ID twice
  standby      a streaming standby (pg_basebackup) of the cluster, in
               synchronous replication, with a host directory of its own:
               minting on it is an error; the primary is killed -9
               mid-load, the standby restarted with the clock 1.5 s behind
               the last ID received and promoted: every ID it mints is
               greater than every ID a client received from the primary;
               then an hour back: nanoflake is refused, saying until when,
               the others still mint above; its base backup's mark file cut
               back to the mark alone, it refuses an epoch other than the
               primary's (through WAL)
  crash        kill -9 of the postmaster (and its children) mid-load, then a
               restart with a new host directory and the clock 1.5 s behind
               the last ID (libfaketime): every ID minted after it is
               greater than every ID a client received; an hour back:
               nanoflake refused, the others above
  upgrade      every released version (pg/mintid--X.sql) installed in turn
               in a throwaway database and updated by ALTER EXTENSION
               UPDATE to the default version: its objects, as pg_dump
               writes them, are those of a fresh install of that version
  nopreload    the cluster restarted without shared_preload_libraries: the
               generators that would repeat IDs without the shared state
               (node-bound, or 64-bit) refuse with a HINT; the others mint
               per backend, unique under 8 pgbench clients; then preloaded
               again
  epochs       epoch changes adopted over a mark at the end of the last
               ID's unit, the server's clock behind it and a new host
               directory: sonyflake's epochs 1409529600007 + 3 and + 13 ms,
               1409529600005 + 7, nanoflake's + 7, snowflake's + 20: no ID
               before and after repeated, the first at the floor or later
  params       the parameters recorded with the mark: an epoch moved 30 s
               later waits for a restart at a reload, is refused after it
               (no repeated primary key), adopted by mintid.adopt_params
               with nothing minted before its floor, then, the clock at the
               floor, minted above every old ID; a changed node is refused;
               a version 1 mark file is read. Last: it leaves node 5 and the
               later epoch recorded, and the clock a minute ahead

The extension must be installed (make -C pg install). The cluster is
stopped by its postmaster's pid; nothing else is touched. Exit status 0
only if every step passed.

  --only STEP[,STEP]   run these steps only
  --sabotage           the crash step alone, removing the mark file and its
                       WAL (by a checkpoint) before the restart: the step
                       must find IDs minted below the old ones, which shows
                       that it can. Exit status 0 only if it found them
                       (make check-pg runs this after the steps)
  --keep               leave the cluster's directory behind
"""
import argparse
import difflib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

PG_BIN = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True).stdout.strip()
PG_PKGLIB = subprocess.run(["pg_config", "--pkglibdir"], capture_output=True, text=True, check=True).stdout.strip()
PG_REGRESS = os.path.join(PG_PKGLIB, "pgxs/src/test/regress/pg_regress")
FAKETIME_LIBS = ["/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1"]
HERE = os.path.dirname(os.path.abspath(__file__))
PG_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "pg"))

# Formats minted in the load tests: a 64-bit node-bound one, a 160-bit one,
# a 128-bit one, and uuidv7 on PostgreSQL's uuid.
LOAD_TYPES = [("nanoflake", "nanoflake"), ("scru160", "scru160"), ("ulid", "ulid"), ("uuidv7", "uuid")]


class Failure(Exception):
    pass


class NotAbove(Failure):
    """IDs minted after a restart not above the ones received before it: what --sabotage must bring about."""


def spare_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    def __init__(self, root, data="data"):
        self.root = root
        self.data = os.path.join(root, data)
        self.log = os.path.join(root, "postgres.log")
        self.port = spare_port()
        self.pid = None
        pw = pwd.getpwnam("postgres")
        os.chown(root, pw.pw_uid, pw.pw_gid)
        self.as_postgres = [] if os.getuid() == pw.pw_uid else ["runuser", "-u", "postgres", "--"]

    def env(self):
        env = dict(os.environ, PGHOST=self.root, PGPORT=str(self.port), PGUSER="postgres")
        env.pop("PGDATABASE", None)
        return env

    def initdb(self):
        run(self.as_postgres + [os.path.join(PG_BIN, "initdb"), "-D", self.data, "--auth=trust", "-U", "postgres",
                                "--no-sync"], quiet=True)
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write(f"""
port = {self.port}
listen_addresses = '127.0.0.1'
unix_socket_directories = '{self.root}'
shared_preload_libraries = 'mintid'
max_connections = 40
fsync = on
synchronous_commit = off
""")
        self.new_host_dir("host")

    def new_host_dir(self, name):
        """A directory of its own for the host-wide state (a host of its own), writable by the postgres user
        and by this test's user (mode 1777, as /var/tmp), set as mintid.host_dir from the next start."""
        path = os.path.join(self.root, name)
        os.mkdir(path)
        os.chmod(path, 0o1777)
        self.conf(("mintid.host_dir", path))
        self.host_dir = path
        return path

    def conf(self, *settings):
        """Appends settings (name, value) to postgresql.conf, for the next start (or reload)."""
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.writelines(f"{name} = '{value}'\n" for name, value in settings)

    def start(self, faketime=None, wait=True):
        env = self.env()
        if faketime is not None:
            lib = next((p for p in FAKETIME_LIBS if os.path.exists(p)), None)
            if lib is None:
                raise Failure("libfaketime not found (Debian package faketime)")
            # Preloaded by env(1), after runuser: libfaketime in runuser (root) would make a semaphore
            # that the server's processes (postgres) cannot open, and a stale one at their own pid
            # (left by a faked process killed earlier) then stops them from making their own.
            fake = ["env", f"LD_PRELOAD={lib}", f"FAKETIME={faketime}", "DONT_FAKE_MONOTONIC=1",
                    "FAKETIME_NO_CACHE=1"]
        else:
            fake = []
        for attempt in range(3):
            try:
                run(self.as_postgres + fake + [os.path.join(PG_BIN, "pg_ctl"), "-D", self.data, "-l", self.log,
                                               "-w" if wait else "-W", "-t", "60", "start"], env=env, quiet=True)
                break
            except Failure as e:
                try:
                    with open(self.log) as f:
                        tail = "".join(f.readlines()[-15:])
                except OSError:
                    tail = ""
                # The spare port taken by someone else meanwhile: another one.
                if "Address already in use" in tail and attempt < 2:
                    self.port = spare_port()
                    with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
                        f.write(f"\nport = {self.port}\n")
                    continue
                raise Failure(f"{e}\n---- {self.log} (tail)\n{tail}")
        deadline = time.monotonic() + 60
        while not os.path.exists(os.path.join(self.data, "postmaster.pid")) and time.monotonic() < deadline:
            time.sleep(0.05)
        with open(os.path.join(self.data, "postmaster.pid")) as f:
            self.pid = int(f.readline())

    def children(self):
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(self.pid)], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def stop(self):
        """SIGINT (fast shutdown) to our postmaster, by pid; waits up to 60 s."""
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signal.SIGINT)
        except ProcessLookupError:
            self.pid = None
            return
        wait_gone([self.pid], 60, zombie_ok=True)
        self.pid = None

    def crash(self):
        """kill -9 of the postmaster and of every child it had, as a power cut would."""
        kids = self.children()
        os.kill(self.pid, signal.SIGKILL)
        for k in kids:
            try:
                os.kill(k, signal.SIGKILL)
            except ProcessLookupError:
                pass
        wait_gone([self.pid] + kids, 30)
        self.pid = None

    def psql(self, db, sql, *extra, check=True):
        p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-d", db, *extra, "-c", sql],
                           capture_output=True, text=True, env=self.env())
        if check and p.returncode != 0:
            raise Failure(f"psql {sql!r}: {p.stderr.strip()}")
        return p.stdout.strip()


def exited(pid, zombie_ok):
    """True once pid is gone, or, with zombie_ok, a zombie that its parent (init, for a postmaster) has yet
    to reap. A postmaster killed -9 leaves postmaster.pid behind, and the next one refuses to start while a
    process (a zombie too) has that pid; one that shut down has removed the file first."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return zombie_ok and f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True


def wait_gone(pids, timeout, zombie_ok=False):
    deadline = time.monotonic() + timeout
    for pid in pids:
        while True:
            try:  # reap it if it is our child (pg_ctl's postmaster is not)
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
            if exited(pid, zombie_ok):
                break
            if time.monotonic() > deadline:
                raise Failure(f"process {pid} still alive after {timeout} s")
            time.sleep(0.05)


def run(cmd, env=None, quiet=False, cwd=None):
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    if p.returncode != 0:
        raise Failure(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stdout[-3000:]}{p.stderr[-3000:]}")
    return p.stdout


def expect(cond, what):
    if not cond:
        raise Failure(what)
    print(f"  ok: {what}")


# ---- the steps ------------------------------------------------------------------

def step_regress(c, args):
    out = os.path.join(c.root, "regress")
    os.makedirs(out)
    p = subprocess.run([PG_REGRESS, f"--inputdir={os.path.join(PG_DIR, 'test')}", f"--outputdir={out}",
                        f"--bindir={PG_BIN}", "--dbname=mintid_regress", "types", "formats", "generate"],
                       capture_output=True, text=True, env=c.env())
    print(p.stdout)
    if p.returncode != 0:
        diffs = os.path.join(out, "regression.diffs")
        if os.path.exists(diffs):
            with open(diffs) as f:
                print(f.read()[-8000:])
        raise Failure("pg_regress failed")


def insert_load(c, db, table, fmt, sqltype, clients, per_client):
    """pgbench: `clients` clients each INSERT `per_client` rows keyed by DEFAULT gen_<fmt>() into a new
    table's primary key; an error (a unique violation, say) fails the step. Returns the distinct keys."""
    c.psql(db, f"CREATE TABLE {table} (id {sqltype} PRIMARY KEY DEFAULT gen_{fmt}(), n int)")
    script = os.path.join(c.root, f"{db}_{table}.sql")
    with open(script, "w") as f:
        f.write(f"INSERT INTO {table} (n) VALUES (:client_id);\n")
    p = subprocess.run(["pgbench", "-n", "-c", str(clients), "-j", str(clients), "-t", str(per_client),
                        "-f", script, db], capture_output=True, text=True, env=c.env())
    if p.returncode != 0:
        raise Failure(f"pgbench {fmt}: exit {p.returncode}\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return int(c.psql(db, f"SELECT count(DISTINCT id) FROM {table}"))


def step_pgbench(c, args):
    c.psql("postgres", "CREATE DATABASE bench")
    c.psql("bench", "CREATE EXTENSION mintid")
    clients, per_client = 8, 400
    for fmt, sqltype in LOAD_TYPES:
        n = insert_load(c, "bench", f"load_{fmt}", fmt, sqltype, clients, per_client)
        expect(n == clients * per_client, f"pgbench {fmt}: {clients} clients, {n} distinct primary keys, no error")


def step_binary(c, args):
    c.psql("postgres", "CREATE DATABASE bin")
    c.psql("bin", "CREATE EXTENSION mintid")
    cols = ", ".join(f"{f} {t} DEFAULT gen_{f}()" for f, t in all_types_db(c, "bin"))
    c.psql("bin", f"CREATE TABLE a ({cols}); CREATE TABLE b (LIKE a)")
    c.psql("bin", "INSERT INTO a SELECT FROM generate_series(1, 500)")
    path = os.path.join(c.root, "a.bin")
    c.psql("bin", f"\\copy a TO '{path}' (FORMAT binary)")
    c.psql("bin", f"\\copy b FROM '{path}' (FORMAT binary)")
    diff = c.psql("bin", "SELECT count(*) FROM ((TABLE a EXCEPT TABLE b) UNION ALL (TABLE b EXCEPT TABLE a)) s")
    expect(diff == "0" and c.psql("bin", "SELECT count(*) FROM b") == "500",
           "COPY binary out and in: 500 rows of every type unchanged")
    # A binary value of the wrong size or out of range is refused, not crashed on.
    with open(path, "rb") as f:
        data = bytearray(f.read())
    # After the header (19 bytes) and the first row's field count (2): the first field's length, 8 -> 9.
    bad = data[:19 + 2] + (9).to_bytes(4, "big") + data[19 + 2 + 4:]
    with open(path + ".bad", "wb") as f:
        f.write(bad)
    err = subprocess.run(["psql", "-X", "-d", "bin", "-c", f"\\copy b FROM '{path}.bad' (FORMAT binary)"],
                         capture_output=True, text=True, env=c.env()).stderr
    expect("ERROR" in err and c.psql("bin", "SELECT 1") == "1", f"a corrupt binary field is an error: {err.strip()[:120]}")


def step_dump(c, args):
    c.psql("postgres", "CREATE DATABASE src")
    c.psql("src", "CREATE EXTENSION mintid")
    types = [(f, t) for f, t in all_types_db(c, "src")]
    cols = ", ".join(f"{f} {t} DEFAULT gen_{f}()" for f, t in types)
    c.psql("src", f"CREATE TABLE d (n int PRIMARY KEY, {cols}, tid text DEFAULT gen_typeid('user'))")
    for f, t in types:
        c.psql("src", f"CREATE INDEX ON d ({f})")
    c.psql("src", "INSERT INTO d (n) SELECT i FROM generate_series(1, 1000) i")
    dump = os.path.join(c.root, "src.dump")
    run(["pg_dump", "-Fc", "-d", "src", "-f", dump], env=c.env())
    c.psql("postgres", "CREATE DATABASE dst")
    run(["pg_restore", "-d", "dst", "--exit-on-error", dump], env=c.env())
    h1 = c.psql("src", "SELECT md5(string_agg(d::text, ',' ORDER BY n)) FROM d")
    h2 = c.psql("dst", "SELECT md5(string_agg(d::text, ',' ORDER BY n)) FROM d")
    expect(h1 == h2 and h1 != "", f"pg_dump -Fc / pg_restore: 1000 rows of {len(types)} ID types identical")
    n = c.psql("dst", "SET enable_seqscan = off; SELECT count(*) FROM d WHERE nanoflake >= nanoflake_min(now() - interval '1 hour')")
    expect(n.splitlines()[-1] == "1000", "restored indexes answer")


def copy_ids(c, db, path, table):
    """Loads the IDs a client received (CSV in LOAD_TYPES order) as text columns."""
    c.psql(db, f"CREATE TABLE {table} ({', '.join(f'{f} text' for f, _ in LOAD_TYPES)})")
    c.psql(db, f"\\copy {table} FROM '{path}' (FORMAT csv)")


def check_minted_above(c, db, types, n, old_table, what):
    """Each format of types (name, SQL type): n IDs minted now, in one statement, all above the largest in
    old_table."""
    failed = []
    for fmt, sqltype in types:
        ok = c.psql(db, f"SELECT (SELECT g FROM (SELECT gen_{fmt}() g FROM generate_series(1, {n})) s ORDER BY 1 "
                        f"LIMIT 1) > (SELECT {fmt}::{sqltype} FROM {old_table} ORDER BY 1 DESC LIMIT 1)")
        if ok != "t":
            failed.append(fmt)
        print(f"  {'ok' if ok == 't' else 'FAIL'}: {fmt}: {n} IDs minted {what}")
    if failed:
        raise NotAbove(f"IDs {what.split(' > ')[0]} not above the old ones: {', '.join(failed)}")


def clock_at(ms):
    """A libfaketime offset (FAKETIME) that sets the clock of a server started now to Unix ms `ms`."""
    return f"{(ms - time.time() * 1000) / 1000:+.3f}"


def last_nanoflake_ms(seen):
    """Unix ms of the latest nanoflake (the first column, its text: the value in base 36) a client received:
    the 41 bits after the sign bit, from nanoflake's default epoch."""
    with open(seen) as f:
        return (max(int(line.split(",")[0], 36) for line in f) >> 22) + 1288834974657


def load_until_killed(c, db, seconds, setup="", before_kill=None):
    """Inserts rows into table ids, one ID of each format per row, printing
    them as a client receives them, and kills c -9 after `seconds` (calling
    before_kill() first). Returns the rows the client received."""
    names = ", ".join(f for f, _ in LOAD_TYPES)
    load = os.path.join(c.root, f"load-{db}.sql")
    with open(load, "w") as f:
        f.write(setup)
        for _ in range(200000):
            f.write(f"INSERT INTO ids DEFAULT VALUES RETURNING {names};\n")
    seen = os.path.join(c.root, f"seen-{db}.txt")
    with open(seen, "w") as out:
        client = subprocess.Popen(["psql", "-X", "-At", "-q", "-F", ",", "-d", db, "-f", load], stdout=out,
                                  stderr=subprocess.DEVNULL, env=c.env())
        time.sleep(seconds)
        if before_kill is not None:
            before_kill()
        c.crash()
        client.wait(timeout=30)
    with open(seen) as f:
        rows = [line for line in f if line.count(",") == len(LOAD_TYPES) - 1]
    with open(seen, "w") as f:
        f.writelines(rows)
    return seen, len(rows)


def ids_table(c, db):
    c.psql("postgres", f"CREATE DATABASE {db}")
    c.psql(db, "CREATE EXTENSION mintid")
    cols = ", ".join(f"{f} {t} NOT NULL DEFAULT gen_{f}()" for f, t in LOAD_TYPES)
    c.psql(db, f"CREATE TABLE ids (n serial, {cols})")


def all_types_db(c, db):
    rows = c.psql(db, "SELECT p.proname, format_type(p.prorettype, NULL) FROM pg_proc p "
                      "JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e' "
                      "WHERE p.proname LIKE 'gen\\_%' AND p.pronargs = 0 ORDER BY p.oid")
    return [(line.split("|")[0][4:], line.split("|")[1]) for line in rows.splitlines()]


def step_crash(c, args):
    db = "crash"
    ids_table(c, db)

    def sabotage():
        c.psql(db, "CHECKPOINT")

    seen, n = load_until_killed(c, db, 2.5, "SET synchronous_commit = off;\n", sabotage if args.sabotage else None)
    expect(n > 100, f"the client received {n} rows of IDs before the kill -9")
    if args.sabotage:
        os.unlink(os.path.join(c.data, "mintid.mark"))
        print("  sabotage: the mark file removed, its WAL record behind a checkpoint")
    # The host-wide state lost too (a tmpfs, another host): only the mark keeps the new IDs above the old.
    # The clock 1.5 s behind the last ID received: nanoflake, from the host's sequence, waits for the mark.
    behind = last_nanoflake_ms(seen) - 1500
    c.new_host_dir("host-crash")
    c.start(faketime=clock_at(behind))
    copy_ids(c, db, seen, "old_all")
    check_minted_above(c, db, LOAD_TYPES, 2000, "old_all", "1.5 s behind > every ID received before")
    # An hour behind: nanoflake, whose sequence waits for the clock, is refused at once, saying until when;
    # the formats of 128 bits and more carry on from the mark.
    c.stop()
    c.start(faketime="-1h")
    skew = float(c.psql(db, "SELECT extract(epoch FROM statement_timestamp())")) - time.time()
    expect(skew < -3000, f"the restarted server's clock is {skew:.0f} s behind")
    rc, err = psql_err(c, db, "SELECT gen_nanoflake()")
    expect(rc != 0 and "55000" in err and "nanoflake: no ID before" in err and "ahead of the clock" in err,
           f"an hour behind the mark, gen_nanoflake() is refused: {err.strip()[:300]}")
    check_minted_above(c, db, LOAD_TYPES[1:], 2000, "old_all", "an hour behind > every ID received before")
    c.stop()
    c.new_host_dir("host-after-crash")
    c.start()


def psql_err(c, db, sql):
    """Runs sql expecting it to fail: (exit status, stderr with the SQLSTATE and HINT)."""
    p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose", "-d", db, "-c", sql],
                       capture_output=True, text=True, env=c.env())
    return p.returncode, p.stderr


def restart_with(c, settings, faketime=None):
    """ALTER SYSTEM SET (value) or RESET (None) each setting, then a restart."""
    for name, value in settings:
        c.psql("postgres", f"ALTER SYSTEM RESET {name}" if value is None else f"ALTER SYSTEM SET {name} = '{value}'")
    c.stop()
    c.start(faketime=faketime)


def set_mark(path, ms):
    """Raises the mark in the mark file (of either version) of a stopped server to ms, keeping the rest."""
    with open(path) as f:
        lines = f.read().splitlines()
    lines = [str(ms)] if lines[0].isdigit() else [f"mark {ms}" if l.startswith("mark ") else l for l in lines]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def mark_of(path):
    """The mark in a mark file (either version)."""
    with open(path) as f:
        lines = f.read().splitlines()
    return int(lines[0] if lines[0].isdigit() else next(l.split()[1] for l in lines if l.startswith("mark ")))


def mark_alone(path):
    """Rewrites the mark file of a stopped server as version 1 (mintid 0.1.0's) wrote it: the mark alone."""
    with open(path) as f:
        lines = f.read().splitlines()
    value = lines[0] if lines[0].isdigit() else next(l.split()[1] for l in lines if l.startswith("mark "))
    with open(path, "w") as f:
        f.write(value + "\n")


def step_standby(c, args):
    db = "repl"
    ids_table(c, db)
    c.psql(db, "INSERT INTO ids SELECT FROM generate_series(1, 100)")
    s = Cluster(c.root, data="standby")
    s.log = os.path.join(c.root, "standby.log")
    backup = [os.path.join(PG_BIN, "pg_basebackup"), "-D", s.data, "-h", c.root, "-p", str(c.port), "-U", "postgres",
              "-R", "-X", "stream", "-c", "fast", "--no-sync"]
    run(s.as_postgres + backup, quiet=True)
    # The base backup's mark file as an earlier mintid wrote it, the mark alone: the parameters
    # recorded with the mark must reach the standby through WAL.
    mark_alone(os.path.join(s.data, "mintid.mark"))
    with open(os.path.join(s.data, "postgresql.conf"), "a") as f:
        f.write(f"\nport = {s.port}\nhot_standby = on\n")
    # Another host: a host-wide state of its own, which knows nothing of the primary's IDs.
    s.new_host_dir("host-standby")
    with open(os.path.join(s.data, "postgresql.auto.conf"), "a") as f:
        f.write("primary_conninfo = '" + f"host={c.root} port={c.port} user=postgres application_name=standby" + "'\n")
    try:
        s.start()
        p = subprocess.run(["psql", "-X", "-At", "-d", db, "-c", "SELECT gen_nanoflake()"], capture_output=True,
                           text=True, env=s.env())
        expect(p.returncode != 0 and "in recovery" in p.stderr,
               f"minting on a hot standby is an error: {p.stderr.strip()[:100]}")
        # Synchronous replication: a mark reaches the standby before any ID under it is returned.
        c.psql("postgres", "ALTER SYSTEM SET synchronous_standby_names = 'standby'")
        c.psql("postgres", "SELECT pg_reload_conf()")
        deadline = time.monotonic() + 30
        while c.psql("postgres", "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") != "1":
            if time.monotonic() > deadline:
                raise Failure("the standby never became synchronous")
            time.sleep(0.1)
        expect(True, "a streaming standby, synchronous")
        # The standby stops answering: minting waits for it as commits do,
        # can be cancelled, and returns no ID under a mark it never got.
        s.stop()
        time.sleep(2.5)  # past the mark's window: the next ID needs a new mark
        sessions = [subprocess.Popen(["psql", "-X", "-At", "-q", "-d", db, "-c", "SET synchronous_commit = on",
                                      "-c", "SET statement_timeout = '1500ms'", "-c", f"SELECT gen_{fmt}()"],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=c.env())
                    for fmt in ("nanoflake", "nanoflake", "ulid")]
        t0 = time.monotonic()
        results = [p.communicate(timeout=30) for p in sessions]
        took = time.monotonic() - t0
        expect(all(p.returncode != 0 and "did not confirm" in err and not out for p, (out, err) in zip(sessions, results)),
               f"3 sessions minting while the synchronous standby is down: each cancelled after its timeout, "
               f"none given an ID ({took:.1f} s)")
        s.start()
        deadline = time.monotonic() + 30
        while c.psql("postgres", "SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") != "1":
            if time.monotonic() > deadline:
                raise Failure("the standby did not come back as synchronous")
            time.sleep(0.1)
        c.psql(db, "SELECT gen_snowflake()")
        seen, n = load_until_killed(c, db, 3, "SET synchronous_commit = on;\n")
        expect(n > 100, f"the client received {n} rows of IDs from the primary before its kill -9")
        s.stop()
        # The standby's own setting differs from the epoch the primary minted snowflakes under.
        with open(os.path.join(s.data, "postgresql.conf"), "a") as f:
            f.write("mintid.snowflake_epoch = 'discord'\n")
        # Its clock 1.5 s behind the last ID received: nanoflake, from the host's sequence, waits for the
        # primary's mark, which came through WAL.
        s.start(faketime=clock_at(last_nanoflake_ms(seen) - 1500))
        run(s.as_postgres + [os.path.join(PG_BIN, "pg_ctl"), "-D", s.data, "-w", "-t", "60", "promote"], quiet=True)
        copy_ids(s, db, seen, "old_all")
        check_minted_above(s, db, LOAD_TYPES, 2000, "old_all",
                           "on the promoted standby 1.5 s behind > every ID received from the primary")
        rc, err = psql_err(s, db, "SELECT gen_snowflake()")
        expect(rc != 0 and "mintid.snowflake_epoch changed from 1288834974657 to 1420070400000" in err,
               f"the promoted standby has the parameters through WAL: another epoch is refused: {err.strip()[:200]}")
        # An hour behind: nanoflake is refused, saying until when; the formats of 128 bits and more carry on
        # from the mark.
        s.stop()
        s.start(faketime="-1h")
        skew = float(s.psql(db, "SELECT extract(epoch FROM statement_timestamp())")) - time.time()
        expect(skew < -3000, f"the promoted standby's clock is {skew:.0f} s behind")
        rc, err = psql_err(s, db, "SELECT gen_nanoflake()")
        expect(rc != 0 and "nanoflake: no ID before" in err,
               f"an hour behind the primary's mark, gen_nanoflake() is refused: {err.strip()[:300]}")
        check_minted_above(s, db, LOAD_TYPES[1:], 2000, "old_all",
                           "on the promoted standby an hour behind > every ID received from the primary")
    finally:
        s.stop()
        # The primary again, without a synchronous standby to wait for.
        if c.pid is None:
            c.start()
        c.psql("postgres", "ALTER SYSTEM RESET synchronous_standby_names")
        c.psql("postgres", "SELECT pg_reload_conf()")


def step_params(c, args):
    db, mark = "params", os.path.join(c.data, "mintid.mark")
    c.psql("postgres", f"CREATE DATABASE {db}")
    c.psql(db, "CREATE EXTENSION mintid")
    c.psql(db, "CREATE TABLE t (id nanoflake PRIMARY KEY DEFAULT gen_nanoflake(), run int)")
    insert = "INSERT INTO t (run) SELECT {} FROM generate_series(1, {})"
    c.psql(db, insert.format(1, 30000))
    old = 1288834974657  # nanoflake's default epoch
    later = old + 30000
    # A reload changes nothing: the setting waits for a restart, IDs go on under the recorded epoch.
    c.psql("postgres", f"ALTER SYSTEM SET mintid.nanoflake_epoch = '{later}'")
    c.psql("postgres", "SELECT pg_reload_conf()")
    seen = "SELECT pending_restart OR setting <> '' FROM pg_settings WHERE name = 'mintid.nanoflake_epoch'"
    deadline = time.monotonic() + 30
    while c.psql(db, seen) != "t":
        if time.monotonic() > deadline:
            raise Failure("the reload never reached the epoch setting")
        time.sleep(0.05)
    rc, err = psql_err(c, db, insert.format(2, 1000))
    expect(rc == 0 and c.psql(db, "SHOW mintid.nanoflake_epoch") == ""
           and c.psql(db, "SELECT count(DISTINCT id) FROM t") == "31000",
           f"mintid.nanoflake_epoch 30 s later at a reload: pending a restart, 1000 more IDs under the recorded "
           f"epoch {err.strip()[:300]}")
    # The restart, with the mark 30 s past the first ID, as if the server had minted on for 30 s: under
    # the old epoch, the generator would carry on from the mark; under the new one, from the first ID.
    first = int(c.psql(db, "SELECT mintid_inspect(min(id))->>'unix_ms' FROM t"))
    c.stop()
    set_mark(mark, first + 30000)
    c.start()
    with open(mark, "rb") as f:
        before = f.read()
    rc, err = psql_err(c, db, insert.format(3, 30000))
    with open(mark, "rb") as f:
        after = f.read()
    expect(rc != 0 and "55000" in err and f"mintid.nanoflake_epoch changed from {old} to {later}" in err
           and "HINT:" in err and "mintid.adopt_params" in err,
           f"after the restart: 55000 with a HINT, no unique violation: {err.strip()[:600]}")
    expect(before == after and c.psql(db, "SELECT count(*) FROM t") == "31000", "the refused mint changed no state")
    expect(len(c.psql(db, "SELECT gen_ulid()")) == 26, "the other formats mint on")
    # Adopting the new epoch (a reload sets mintid.adopt_params): recorded with the floor mark + 30 s, and,
    # as the host's sequence waits for the clock, nothing is minted until then.
    c.psql("postgres", "ALTER SYSTEM SET mintid.adopt_params = on")
    c.psql("postgres", "SELECT pg_reload_conf()")
    deadline = time.monotonic() + 30
    while c.psql(db, "SHOW mintid.adopt_params") != "on":
        if time.monotonic() > deadline:
            raise Failure("the reload never set mintid.adopt_params")
        time.sleep(0.05)
    was = mark_of(mark)
    rc, err = psql_err(c, db, insert.format(4, 30000))
    with open(mark) as f:
        floor = int(next(l for l in f if l.startswith("format nanoflake ")).split(" floor=")[1].split()[0])
    expect(rc != 0 and "adopted" in err and "nanoflake: no ID before" in err and floor == was + 30000,
           f"mintid.adopt_params = on: the new epoch taken with the floor mark + 30 s; no ID before it: "
           f"{err.strip()[:400]}")
    # The clock 1 s before the floor (as if the server had waited): the format's new IDs lie above every old one.
    ahead = clock_at(floor - 1000)
    c.stop()
    c.start(faketime=ahead)
    rc, err = psql_err(c, db, insert.format(4, 30000))
    expect(rc == 0 and c.psql(db, "SELECT count(DISTINCT id) FROM t") == "61000",
           f"at the floor, 30000 IDs under the adopted epoch, none repeated: {err.strip()[:300]}")
    expect(c.psql(db, "SELECT min(id) FILTER (WHERE run = 4) > max(id) FILTER (WHERE run < 4) FROM t") == "t",
           "every ID under the adopted epoch is above every earlier one")
    # A changed node is refused the same way. (The clock stays ahead: the mark is past the real one.)
    restart_with(c, [("mintid.adopt_params", None), ("mintid.node", "5")], faketime=ahead)
    rc, err = psql_err(c, db, "SELECT gen_nanoflake()")
    expect(rc != 0 and "55000" in err and "mintid.node changed from 0 to 5" in err and "HINT:" in err,
           f"mintid.node 0 -> 5: refused: {err.strip()[:400]}")
    # A mark file that does not parse stops the start, with the reason.
    c.stop()
    with open(mark) as f:
        good = f.read()
    with open(mark, "w") as f:
        f.write(good.replace("format nanoflake node=0 ", "format nanoflake node=zero "))
    try:
        c.start(faketime=ahead)
        started = True
    except Failure as e:
        started, why = False, str(e)
    if started:
        c.stop()
        raise Failure("the server started with a mark file that does not parse")
    expect("holds no mark: a node that is neither 0..65535 nor -" in why,
           "a mark file with a node that is no number: the start is refused, saying why")
    # A mark file of the previous version, without parameters: read, and the parameters recorded at
    # the next mint. (The cluster keeps node 5 and the later epoch recorded: this step comes last.)
    with open(mark, "w") as f:
        f.write(good)
    mark_alone(mark)
    c.start(faketime=ahead)
    c.psql(db, "SELECT gen_nanoflake()")
    with open(mark) as f:
        text = f.read()
    expect(text.startswith("mintid-mark 2\n") and f"format nanoflake node=5 epoch={later} " in text,
           "a mark file without parameters is read; the next mint records them")
    c.psql("postgres", "ALTER SYSTEM RESET mintid.node")
    c.psql("postgres", "ALTER SYSTEM RESET mintid.nanoflake_epoch")


# Epoch changes adopted (§3 of issue 26): sonyflake's 10 ms units with old epochs off a unit's start, moved
# within and across units, and every other format whose epoch is settable: (format, old epoch, moved by ms).
EPOCH_MOVES = [("sonyflake", 1409529600007, 3), ("sonyflake", 1409529600007, 13), ("sonyflake", 1409529600005, 7),
               ("nanoflake", 1288834974657, 7), ("snowflake", 1288834974657, 20)]
UNIT_MS = {"sonyflake": 10, "nanoflake": 1, "snowflake": 1}


def mint_timed(c, db, fmt, n):
    """n IDs of fmt minted in one statement: [(value as an integer, Unix ms of its time unit)]."""
    rows = c.psql(db, f"SELECT g::bigint, mintid_inspect(g)->>'unix_ms' FROM (SELECT gen_{fmt}() g "
                      f"FROM generate_series(1, {n})) s")
    return [tuple(int(v) for v in line.split("|")) for line in rows.splitlines()]


def step_epochs(c, args):
    """Each epoch move adopted (mintid.adopt_params) over IDs minted up to the mark: the IDs minted before
    and after it, compared as integers, are all different. The mark is set to the tightest it can be (the
    end of the last ID's unit), as if the server had minted up to it, and the server restarts with a host
    state of its own (nothing remembered there) and its clock behind the mark, so that only the adopted
    epoch's floor keeps the new IDs off the old ones: a floor one unit early repeats the last unit's IDs."""
    db, mark = "epochs", os.path.join(c.data, "mintid.mark")
    c.psql("postgres", f"CREATE DATABASE {db}")
    c.psql(db, "CREATE EXTENSION mintid")
    n = 3000
    for i, (fmt, old, moved) in enumerate(EPOCH_MOVES):
        setting, unit = f"mintid.{fmt}_epoch", UNIT_MS[fmt]
        c.stop()
        c.conf((setting, old), ("mintid.adopt_params", "on"))
        c.new_host_dir(f"host-epoch-{i}-old")
        c.start()
        before = mint_timed(c, db, fmt, n)
        c.stop()
        tight = max(ms for _, ms in before) + unit
        set_mark(mark, tight)
        c.conf((setting, old + moved))
        c.new_host_dir(f"host-epoch-{i}-new")
        c.start(faketime=clock_at(tight - 800))
        after = mint_timed(c, db, fmt, n)
        floor = tight + (((old + moved) // unit) - (old // unit)) * unit
        ids = [v for v, _ in before + after]
        repeated = len(ids) - len(set(ids))
        first = min(ms for _, ms in after)
        expect(repeated == 0 and first >= floor,
               f"{fmt}: epoch {old} moved {moved} ms and adopted over a mark at the end of the last ID's unit: "
               f"{n} IDs before, {n} after, {repeated} repeated; the first after at {first} (floor {floor}, "
               f"mark {tight})")
    # Back to the default epochs, adopted (moved earlier: no floor), for the steps after this one.
    c.stop()
    c.conf(*[(f"mintid.{fmt}_epoch", "") for fmt in UNIT_MS])
    c.new_host_dir("host-after-epochs")
    c.start()
    for fmt in UNIT_MS:
        c.psql(db, f"SELECT gen_{fmt}()")
    c.stop()
    c.conf(("mintid.adopt_params", "off"))
    c.start()


def mintid_command():
    """The mintid command of this tree's build (MINTID_CLI names another)."""
    path = os.environ.get("MINTID_CLI") or os.path.normpath(os.path.join(HERE, "..", "..", "build", "mintid"))
    if not os.access(path, os.X_OK):
        raise Failure(f"{path}: no mintid command (make build; or set MINTID_CLI)")
    return path


def whole_lines(path):
    """The complete lines of a file a killed process wrote."""
    with open(path) as f:
        return f.read().split("\n")[:-1]


def step_host(c, args):
    """PostgreSQL and the mintid command minting one format at once into one host directory continue one
    sequence: two sessions of gen_<format>() and runs of `mintid gen` one after another, for 1.5 s each
    format; every ID, as an integer, is different."""
    db = "onehost"
    c.psql("postgres", f"CREATE DATABASE {db}")
    c.psql(db, "CREATE EXTENSION mintid")
    cli = mintid_command()
    env = dict(os.environ, MINTID_HOST_DIR=c.host_dir)
    env.pop("MINTID_NODE", None)
    env.pop("MINTID_ID_SPACE", None)
    for fmt in ("nanoflake", "snowflake", "sonyflake"):
        script = os.path.join(c.root, f"host-{fmt}.sql")
        with open(script, "w") as f:
            f.writelines(f"SELECT gen_{fmt}()::bigint FROM generate_series(1, 1000);\n" for _ in range(5000))
        outs = [os.path.join(c.root, f"host-{fmt}-{i}.out") for i in range(2)]
        sessions = []
        for out in outs:
            with open(out, "w") as f:
                sessions.append(subprocess.Popen(["psql", "-X", "-At", "-q", "-d", db, "-f", script], stdout=f,
                                                 stderr=subprocess.PIPE, text=True, env=c.env()))
        commanded, errors = [], []
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            p = subprocess.run([cli, "gen", fmt, "-n", "2000", "--as", "int"], capture_output=True, text=True,
                               env=env)
            if p.returncode != 0:
                errors.append(p.stderr.strip())
            commanded += p.stdout.split()
        for p in sessions:
            if p.poll() is not None:
                errors.append(f"psql ended ({p.returncode}): {p.stderr.read().strip()}")
            p.terminate()
            p.wait()
            p.stderr.close()
        minted = [int(v) for out in outs for v in whole_lines(out)]
        every = minted + [int(v) for v in commanded]
        repeated = len(every) - len(set(every))
        expect(not errors and minted and commanded and repeated == 0,
               f"{fmt}: PostgreSQL ({len(minted)} IDs) and the mintid command ({len(commanded)}) at once in one "
               f"host directory: {repeated} IDs repeated {' '.join(errors)[:300]}")


def released_versions():
    """The versions with an install script of their own in pg/ (mintid--X.sql), oldest first."""
    names = [n[len("mintid--"):-len(".sql")] for n in os.listdir(PG_DIR)
             if n.startswith("mintid--") and n.endswith(".sql") and n.count("--") == 1]
    return sorted(names, key=lambda v: tuple(int(x) for x in v.split(".")))


def extension_schema(c, db):
    """The extension's objects in db, as pg_dump writes them. --binary-upgrade is the mode that dumps an
    extension's member objects themselves (each followed by ALTER EXTENSION mintid ADD) rather than one
    CREATE EXTENSION. Its OID assignments and the \\restrict lines (a random key) differ from one dump to
    the next and are left out; the entries come back sorted, so that the order in which an upgrade path
    and a fresh install created the objects does not count."""
    p = subprocess.run([os.path.join(PG_BIN, "pg_dump"), "--schema-only", "--binary-upgrade", "-d", db],
                       capture_output=True, text=True, env=c.env())
    if p.returncode != 0:
        raise Failure(f"pg_dump of {db}: {p.stderr.strip()}")
    entries, cur = [], []
    for line in p.stdout.splitlines():
        if "binary_upgrade_set_next_" in line or line.startswith(("\\restrict", "\\unrestrict")):
            continue
        if line.startswith("-- Name: "):  # each object's entry opens with its name, type, schema and owner
            entries.append("\n".join(cur).strip())
            cur = []
        cur.append(line)
    entries.append("\n".join(cur).strip())
    return sorted(e for e in entries if e)


def psql_seq(c, db, *sqls):
    """The statements run in turn by one psql (each its own transaction); the rows they return, as lines."""
    return c.psql(db, sqls[-1], "-q", *[a for q in sqls[:-1] for a in ("-c", q)]).split("\n")


def step_upgrade(c, args):
    """Every released version, installed in turn in a throwaway database and updated to the default version
    with ALTER EXTENSION UPDATE, has the schema of a fresh install of the default version."""
    versions = released_versions()
    (row,) = psql_seq(c, "postgres", "CREATE DATABASE up",
                      "SELECT default_version || ' ' || (SELECT string_agg(version, ' ') FROM "
                      "pg_available_extension_versions WHERE name = 'mintid') FROM pg_available_extensions "
                      "WHERE name = 'mintid'")
    default, available = row.split(" ", 1)
    expect(default == versions[-1] and set(versions) <= set(available.split()),
           f"released versions {', '.join(versions)} installed, the last the default ({default})")
    (members,) = psql_seq(c, "up", "CREATE EXTENSION mintid",
                          "SELECT count(*) FROM pg_depend WHERE deptype = 'e' AND "
                          "refobjid = (SELECT oid FROM pg_extension WHERE extname = 'mintid')")
    want = extension_schema(c, "up")
    dumped = sum(e.count("ALTER EXTENSION mintid ADD ") for e in want)
    expect(str(dumped) == members and dumped > 0,
           f"a fresh install of {default}: the dump holds each of its {members} member objects")
    for v in versions[:-1]:
        installed, updated, mints = psql_seq(c, "up", "DROP EXTENSION mintid",
                                             f"CREATE EXTENSION mintid VERSION '{v}'",
                                             "SELECT extversion FROM pg_extension WHERE extname = 'mintid'",
                                             "ALTER EXTENSION mintid UPDATE",
                                             "SELECT extversion FROM pg_extension WHERE extname = 'mintid'",
                                             "SELECT gen_nanoflake() < gen_nanoflake()")
        have = extension_schema(c, "up")
        if have != want:
            diff = difflib.unified_diff("\n".join(want).splitlines(), "\n".join(have).splitlines(),
                                        f"fresh install of {default}", f"{v} updated", lineterm="", n=2)
            print("\n".join(list(diff)[:80]))
        expect(installed == v and updated == default and have == want,
               f"{v} installed, updated to {updated} by ALTER EXTENSION UPDATE: the schema of a fresh install")
        expect(mints == "t", f"{v} updated: it mints")


def step_nopreload(c, args):
    conf = os.path.join(c.data, "postgresql.conf")
    with open(conf) as f:
        saved = f.read()
    with open(conf, "a") as f:
        f.write("shared_preload_libraries = ''\n")
    c.stop()
    c.start()
    try:
        expect(c.psql("postgres", "SHOW shared_preload_libraries") == "", "restarted without the library preloaded")
        c.psql("postgres", "CREATE DATABASE nopre")
        c.psql("nopre", "CREATE EXTENSION mintid")
        shared_only, per_backend = [], []
        for f, t in all_types_db(c, "nopre"):
            p = subprocess.run(["psql", "-X", "-At", "-v", "VERBOSITY=verbose", "-d", "nopre", "-c",
                                f"SELECT gen_{f}()"], capture_output=True, text=True, env=c.env())
            if p.returncode != 0:
                shared_only.append(f)
                expect(f"gen_{f}() needs the mintid library preloaded" in p.stderr and "HINT:" in p.stderr
                       and "55000" in p.stderr, f"gen_{f}() without the preload: 55000 with a HINT")
            else:
                per_backend.append((f, t))
        # Which refuse: every format with a node field or a 64-bit ID.
        want_refused = {"uexky", "ulid_flake", "ulid_flake_scalable", "caloriosa", "nanoflake", "snowflake",
                        "sonyflake"}
        expect(set(shared_only) == want_refused, f"refused without the preload: {sorted(shared_only)}")
        clients, per_client = 8, 300
        for f, t in per_backend:
            n = insert_load(c, "nopre", f"pb_{f}", f, t, clients, per_client)
            expect(n == clients * per_client,
                   f"gen_{f}() per backend: {clients} clients, {n} distinct primary keys, no error")
    finally:
        with open(conf, "w") as f:
            f.write(saved)
        c.stop()
        c.start()


STEPS = [("regress", step_regress), ("pgbench", step_pgbench), ("binary", step_binary), ("dump", step_dump),
         ("host", step_host), ("standby", step_standby), ("crash", step_crash), ("upgrade", step_upgrade),
         ("nopreload", step_nopreload), ("epochs", step_epochs), ("params", step_params)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="")
    ap.add_argument("--sabotage", action="store_true")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    if args.sabotage:
        if only - {"crash"}:
            ap.error("--sabotage checks the crash step alone")
        only = {"crash"}
    detected = None  # --sabotage: what the crash step found
    root = tempfile.mkdtemp(prefix="mintid-pg-")
    os.chmod(root, 0o755)
    c = Cluster(root)
    status = 0
    try:
        c.initdb()
        c.start()
        print(f"cluster on 127.0.0.1:{c.port}, postmaster {c.pid}, in {root}")
        for name, fn in STEPS:
            if only and name not in only:
                continue
            print(f"== {name}")
            t0 = time.monotonic()
            fn(c, args)
            print(f"   ({time.monotonic() - t0:.1f} s)")
    except NotAbove as e:
        if args.sabotage:
            detected = str(e)
        else:
            status = report(c, e)
    except Failure as e:
        status = report(c, e)
    finally:
        c.stop()
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    if args.sabotage and status == 0:
        if detected:
            print(f"  ok: the sabotage was detected ({detected})")
        else:
            print("FAIL: the crash step passed with its mark file removed: it cannot see a lost mark")
            status = 1
    print(("test_pg --sabotage: " if args.sabotage else "test_pg: ") + ("passed" if status == 0 else "FAILED"))
    return status


def report(c, e):
    """Prints a failure and the tail of the server's log; returns the exit status."""
    print(f"FAIL: {e}")
    try:
        with open(c.log) as f:
            print("---- server log (tail)\n" + "".join(f.readlines()[-30:]))
    except OSError:
        pass
    return 1


if __name__ == "__main__":
    sys.exit(main())
