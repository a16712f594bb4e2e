#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mintid's MariaDB functions (mariadb/) against a real server of the test's own.

One mariadbd for every test (mariadb_server.py: Debian's server on a spare
loopback port, its own data directory and plugin directory, binary log on,
stopped by its pid), the functions created by mariadb/install.sql, and the
command (--mintid) minting beside it in the same host-wide state:

  - every format through every function, checked by the command
  - 8 connections inserting mintid_int('nanoflake') into a primary key while
    `mintid gen nanoflake` runs beside them: no key violation, no ID twice
  - one sequence for the server and the command, across a restart
  - the settings the server read once (node id, an epoch); a state it cannot open
  - uuidv7 bytes in MariaDB's UUID type sort in time order
  - errors: the library's sentence and the class's error number, raised on
    the row that fails, never a NULL; random input through every reader
  - the warning under binlog_format=STATEMENT, none under MIXED
  - docs/mariadb.md's SQL, run as written

    test_mariadb.py --module build/mariadb/mintid.so --mintid build/mintid
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mariadb_server  # noqa: E402

MODULE = MINTID = None
SERVER = None
ROOT = None
DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "mariadb.md")
# The settings the server starts with: a node id (the command beside it takes the same one from
# MINTID_NODE) and an epoch of a format the command does not mint here.
SETTINGS = {"MINTID_NODE": "5", "MINTID_SNOWFLAKE_EPOCH": "discord"}
DISCORD_EPOCH = 1420070400000


def setUpModule():
    global SERVER, ROOT
    ROOT = tempfile.mkdtemp(prefix="mintid-mariadb-")
    SERVER = mariadb_server.Server(ROOT, MODULE, log_bin=True)
    SERVER.install()
    SERVER.start(**SETTINGS)
    SERVER.install_functions()
    SERVER.sql("CREATE DATABASE t")


def tearDownModule():
    if SERVER is not None:
        SERVER.stop()
    shutil.rmtree(ROOT, ignore_errors=True)


def sql(text, **kw):
    return SERVER.sql(text, database="t", **kw)


def rows(text):
    return [line.split("\t") for line in sql(text).splitlines()]


def mintid(*args, check=True):
    r = subprocess.run([MINTID] + list(args), capture_output=True, text=True, env=SERVER.mintid_env(), timeout=120)
    if check and r.returncode != 0:
        raise AssertionError(f"mintid {' '.join(args)}: {r.stderr}")
    return r


def now_ms():
    return time.time_ns() // 1000000


def lit(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


class Functions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.formats = json.loads(sql("SELECT mintid_formats()"))

    def test_install_sql(self):
        """install.sql creates every function from mintid.so, each with the type it returns."""
        got = rows("SELECT name, ret, dl FROM mysql.func WHERE dl = 'mintid.so' ORDER BY name")
        want = {"mintid": "0", "mintid_int": "2", "mintid_bin": "0", "mintid_min": "0", "mintid_max": "0",
                "mintid_min_int": "2", "mintid_max_int": "2", "mintid_min_bin": "0", "mintid_max_bin": "0",
                "mintid_ts": "0", "mintid_inspect": "0", "mintid_formats": "0"}
        self.assertEqual({name: ret for name, ret, _ in got}, want)

    def test_formats(self):
        """mintid_formats() is the library's description of every format, under the server's epochs."""
        names = mintid("formats").stdout.split("\n")
        self.assertEqual([f["name"] for f in self.formats], [n for n in names if re.match(r"^[a-z]", n)])
        [snowflake] = [f for f in self.formats if f["name"] == "snowflake"]
        self.assertEqual(snowflake["epoch_ms"], DISCORD_EPOCH)
        self.assertEqual(json.loads(sql("SELECT mintid_formats('snowflake')")), snowflake)

    def test_every_format(self):
        """Every format through every function: the command reads each ID the server mints as that format,
        with the time it was minted in, between the range bounds of that time, which the command gives too."""
        for f in self.formats:
            name, size = f["name"], f["bits"] // 8
            with self.subTest(format=name):
                t0 = now_ms()
                [[text, inspected, ts, bin_hex, lo, hi, lo_bin, hi_bin]] = rows(
                    f"CREATE TEMPORARY TABLE x AS SELECT mintid({lit(name)}) AS id;"
                    f"SELECT id, mintid_inspect(id, {lit(name)}), mintid_ts(id, {lit(name)}), "
                    f"hex(mintid_bin({lit(name)})), mintid_min({lit(name)}, {t0 - 2000}), "
                    f"mintid_max({lit(name)}, {t0 + 2000}), hex(mintid_min_bin({lit(name)}, {t0 - 2000})), "
                    f"hex(mintid_max_bin({lit(name)}, {t0 + 2000})) FROM x")
                t1 = now_ms()
                extra = ["--epoch", str(f["epoch_ms"])] if f["epoch_settable"] else []
                want = json.loads(mintid("inspect", "--format", name, *extra, text).stdout)
                self.assertEqual(json.loads(inspected), want)
                self.assertTrue(t0 - f["unit_ms"] <= want["unix_ms"] <= t1, want)
                self.assertEqual(ts, want["time"])
                self.assertEqual(len(bin_hex), 2 * size)
                self.assertTrue(lo_bin <= want["hex"].upper() <= hi_bin and lo_bin <= bin_hex <= hi_bin,
                                (lo_bin, want["hex"], bin_hex, hi_bin))
                self.assertEqual([lo, hi], mintid("range", name, str(t0 - 2000), str(t0 + 2000), *extra)
                                 .stdout.split())
                self.assertEqual(json.loads(sql(f"SELECT mintid_inspect(x'{bin_hex}', {lit(name)})"))["hex"],
                                 bin_hex.lower())
                if f["bits"] == 64:
                    [[value, lo_int, hi_int, by_int]] = rows(
                        f"CREATE TEMPORARY TABLE x AS SELECT mintid_int({lit(name)}) AS v;"
                        f"SELECT v, mintid_min_int({lit(name)}, {t0 - 2000}), "
                        f"mintid_max_int({lit(name)}, {t1 + 2000}), mintid_inspect(v, {lit(name)}) FROM x")
                    # As two's complement: caloriosa's all have the top bit set, and still order as the IDs do.
                    self.assertTrue(int(lo_int) <= int(value) <= int(hi_int), (lo_int, value, hi_int))
                    self.assertEqual(json.loads(by_int)["int"], str(int(value) % 2**64))
                else:
                    code, message = SERVER.refused(f"SELECT mintid_int({lit(name)})")
                    self.assertEqual(code, 1210, message)
                    self.assertIn(f"{name} is {f['bits']} bits: it has no BIGINT", message)
                if f["prefix_max"] > 0:
                    [[typed]] = rows(f"SELECT mintid({lit(name)}, 'user')")
                    self.assertRegex(typed, r"^user_[0-9a-z]{26}$")
                    self.assertEqual(json.loads(sql(f"SELECT mintid_inspect({lit(typed)})"))["prefix"], "user")

    def test_guess(self):
        """Without a format, the library guesses it from the ID's shape, text, bytes or BIGINT."""
        [[a, b, c]] = rows("SELECT JSON_VALUE(mintid_inspect(mintid('ulid')), '$.format'), "
                           "JSON_VALUE(mintid_inspect(mintid_bin('scru160')), '$.format'), "
                           "mintid_ts('01ARZ3NDEKTSV4RRFFQ69G5FAV')")
        self.assertEqual([a, b, c], ["ulid", "scru160", "2016-07-30T23:54:10.259Z"])

    def test_settings_read_once(self):
        """The server mints with the node id and epoch of its environment: MINTID_NODE, MINTID_SNOWFLAKE_EPOCH."""
        [[nano, snow]] = rows("SELECT mintid_inspect(mintid_int('nanoflake'), 'nanoflake'), mintid('snowflake')")
        self.assertEqual(json.loads(nano)["generator"], 5)
        inspected = json.loads(mintid("inspect", "--format", "snowflake", "--epoch", "discord", snow).stdout)
        self.assertTrue(abs(inspected["unix_ms"] - now_ms()) < 60000, inspected)
        self.assertEqual(inspected["node"], 5)

    def test_uuid_type_order(self):
        """uuidv7 values in MariaDB's UUID type (10.11's) sort in time order,
        minted as the column's DEFAULT, as bytes, and as text cast to characters."""
        sql("CREATE TABLE u (n INT AUTO_INCREMENT PRIMARY KEY, u UUID NOT NULL DEFAULT (mintid_bin('uuidv7')),"
            " KEY (u))")
        sql("INSERT INTO u (n) SELECT NULL FROM seq_1_to_2000;"
            "INSERT INTO u (u) SELECT mintid_bin('uuidv7') FROM seq_1_to_2000;"
            "INSERT INTO u (u) SELECT CAST(mintid('uuidv7') AS CHAR) FROM seq_1_to_2000;")
        by_n = [r[0] for r in rows("SELECT u FROM u ORDER BY n")]
        by_u = [r[0] for r in rows("SELECT u FROM u ORDER BY u")]
        self.assertEqual(len(by_n), 6000)
        self.assertEqual(len(set(by_n)), 6000)
        self.assertEqual(by_u, by_n)
        self.assertEqual(by_n, sorted(by_n))


class OneSequence(unittest.TestCase):
    def test_connections_and_the_command(self):
        """8 connections insert mintid_int('nanoflake') into a primary key, one row a statement, while
        `mintid gen nanoflake` runs beside them in the same host-wide state: every insert succeeds (no key
        violation), and no ID of the table is one the command printed."""
        sql("CREATE TABLE k (id BIGINT PRIMARY KEY, conn INT NOT NULL, n INT AUTO_INCREMENT UNIQUE)")
        per_conn, conns = 1500, 8
        clients = []
        printed = []
        runs = 0
        for c in range(conns):
            script = os.path.join(ROOT, f"inserts{c}.sql")
            with open(script, "w") as f:
                f.writelines(f"INSERT INTO k (id, conn) VALUES (mintid_int('nanoflake'), {c});\n"
                             for _ in range(per_conn))
            with open(script) as f:
                clients.append(subprocess.Popen(SERVER.client(database="t"), stdin=f, stdout=subprocess.PIPE,
                                                stderr=subprocess.PIPE, text=True))
            # The command mints between the clients' starts, and on while they run.
            printed += mintid("gen", "nanoflake", "-n", "500", "--as", "int").stdout.split()
            runs += 1
        deadline = time.monotonic() + 120
        while any(p.poll() is None for p in clients):
            self.assertLess(time.monotonic(), deadline, "the clients' inserts took more than 120 s")
            printed += mintid("gen", "nanoflake", "-n", "500", "--as", "int").stdout.split()
            runs += 1
        for p in clients:
            out, err = p.communicate()
            self.assertEqual(p.returncode, 0, err)
        table = [int(r[0]) for r in rows("SELECT id FROM k ORDER BY conn, id")]
        self.assertEqual(len(table), per_conn * conns)
        self.assertEqual(len(printed), 500 * runs)
        both = table + [int(v) for v in printed]
        self.assertEqual(len(set(both)), len(both), "an ID twice")
        # The command minted while the server did: within the span of the table's IDs.
        lo, hi = min(table), max(table)
        inside = [v for v in map(int, printed) if lo < v < hi]
        self.assertGreater(len(inside), 500, f"{runs} runs of the command, none while the clients inserted")
        # One host-wide state for the server and the command: the format's, node 5's.
        self.assertEqual(sorted(n for n in os.listdir(SERVER.host_dir) if "nanoflake" in n),
                         ["mintid-nanoflake-node5-epoch1288834974657"])
        # Within a connection, its IDs increase in the order it inserted them.
        for c in range(conns):
            ids = [int(r[0]) for r in rows(f"SELECT id FROM k WHERE conn = {c} ORDER BY n")]
            self.assertEqual(len(ids), per_conn)
            self.assertEqual(ids, sorted(ids))

    def test_turns(self):
        """The server, the command, the server again, and the server after a restart: each ID above the last."""
        seq = [int(sql("SELECT mintid_int('nanoflake')"))]
        seq.append(int(mintid("gen", "nanoflake", "--as", "int").stdout))
        seq.append(int(sql("SELECT mintid_int('nanoflake')")))
        SERVER.restart(**SETTINGS)
        seq.append(int(sql("SELECT mintid_int('nanoflake')")))  # the functions outlive the restart
        seq.append(int(mintid("gen", "nanoflake", "--as", "int").stdout))
        self.assertEqual(seq, sorted(seq))
        self.assertEqual(len(set(seq)), len(seq))


class Environment(unittest.TestCase):
    def test_host_dir_missing(self):
        """A host-wide state the server cannot open fails each mint with 1016 (the environment class) and the
        library's sentence naming its directory; reading IDs needs no state and goes on."""
        missing = os.path.join(ROOT, "missing")
        try:
            SERVER.restart(**SETTINGS, MINTID_HOST_DIR=missing)
            code, message = SERVER.refused("SELECT mintid('uuidv7')")
            self.assertEqual(code, 1016, message)
            self.assertIn(f"uuidv7: cannot use the host-wide state in {missing}: No such file or directory", message)
            self.assertEqual(sql("SELECT mintid_ts('01ARZ3NDEKTSV4RRFFQ69G5FAV')"), "2016-07-30T23:54:10.259Z\n")
        finally:
            SERVER.restart(**SETTINGS)


class Errors(unittest.TestCase):
    def probe(self, *args):
        """The library's (class, sentence) for an input (tests/faces/voice_probe)."""
        out = subprocess.run([VOICE_PROBE] + list(args), capture_output=True, text=True, check=True).stdout
        return out.split("\n")[:2]

    def test_the_library_sentence(self):
        """A mistake is the statement's error: the library's sentence, with 1210 for an input mistake."""
        cases = [("SELECT mintid('uuid')", ("format", "uuid")),
                 ("SELECT mintid('typeid', 'User')", ("prefix", "typeid", "User")),
                 ("SELECT mintid_ts('01ARZ3NDEKTSV4RRFFQ69G5FAI', 'ulid')",
                  ("id", "ulid", "01ARZ3NDEKTSV4RRFFQ69G5FAI")),
                 ("SELECT mintid_inspect('12345')", ("id", "-", "12345"))]
        for statement, probe in cases:
            with self.subTest(statement=statement):
                cls, sentence = self.probe(*probe)
                self.assertEqual(cls, "input")
                code, message = SERVER.refused(statement)
                self.assertEqual(code, 1210, message)
                self.assertIn(sentence, message)

    def test_row_errors_fail_the_statement(self):
        """A bad value in the third row fails the INSERT ... SELECT on that row, with its sentence; the rows before
        it are not kept (InnoDB undoes the statement), and no NULL stands in for it."""
        sql("CREATE TABLE src (n INT PRIMARY KEY, v VARCHAR(40));"
            "CREATE TABLE dst (n INT PRIMARY KEY, t VARCHAR(40));"
            "INSERT INTO src VALUES (1, '01ARZ3NDEKTSV4RRFFQ69G5FAV'), (2, NULL), (3, '01ARZ3NDEKTSV4RRFFQ69G5FA!'),"
            " (4, '01ARZ3NDEKTSV4RRFFQ69G5FAV')")
        code, message = SERVER.refused("INSERT INTO dst SELECT n, mintid_ts(v, 'ulid') FROM src ORDER BY n",
                                       database="t")
        self.assertEqual(code, 1210, message)
        self.assertIn("'!' at position 26 is not a ulid digit", message)
        self.assertEqual(sql("SELECT count(*) FROM dst").strip(), "0")
        # NULL in, NULL out: the good rows alone.
        sql("INSERT INTO dst SELECT n, mintid_ts(v, 'ulid') FROM src WHERE n <> 3")
        self.assertEqual(rows("SELECT n, coalesce(t, 'NULL') FROM dst ORDER BY n"),
                         [["1", "2016-07-30T23:54:10.259Z"], ["2", "NULL"], ["4", "2016-07-30T23:54:10.259Z"]])
        # A format named by a column, looked up on each row.
        sql("CREATE TABLE fmts (n INT PRIMARY KEY, f VARCHAR(20));"
            "INSERT INTO fmts VALUES (1, 'uuidv7'), (2, 'ulid'), (3, 'uuid')")
        code, message = SERVER.refused("SELECT n, mintid(f) FROM fmts ORDER BY n", database="t")
        self.assertEqual((code, message), (1210, "unknown format 'uuid'; did you mean 'uuidv7'?"))

    def test_calls(self):
        """A call with the wrong arguments, a time with no zone, a BIGINT of a 128-bit format."""
        for statement, words in [
                ("SELECT mintid()", "mintid(format [, prefix]) takes 1 or 2 arguments, not 0"),
                ("SELECT mintid_ts()", "mintid_ts(id [, format]) takes 1 or 2 arguments, not 0"),
                ("SELECT mintid_min('nanoflake')", "mintid_min(format, time) takes 2 arguments, not 1"),
                ("SELECT mintid_max_int('nanoflake', 1, 2)", "mintid_max_int(format, time) takes 2 arguments, not 3"),
                ("SELECT mintid_int('nanoflake', 'x')", "mintid_int(format) takes 1 argument, not 2"),
                ("SELECT mintid_min('nanoflake', '2026-01-01 00:00:00')",
                 "nanoflake: '2026-01-01 00:00:00' is not a time: give Unix milliseconds"),
                ("SELECT mintid_min_int('uuidv7', 0)", "uuidv7 is 128 bits: it has no BIGINT"),
                ("SELECT mintid_max('nanoflake', 1)", "nanoflake: 1 is a time nanoflake cannot carry"),
                ("SELECT mintid_int(NULL)", "no format named; formats are uexky, scru160")]:
            with self.subTest(statement=statement):
                code, message = SERVER.refused(statement)
                self.assertEqual(code, 1210, message)
                self.assertIn(words, message)
        # Times as Unix ms (BIGINT, DECIMAL, DOUBLE) and RFC 3339 agree.
        [[a, b, c, d, e]] = rows("SET time_zone = '+02:00';"
                                 "SELECT mintid_min_int('nanoflake', 1767225600000),"
                                 " mintid_min_int('nanoflake', UNIX_TIMESTAMP('2026-01-01 02:00:00.000') * 1000),"
                                 " mintid_min_int('nanoflake', 1767225600000.9e0),"
                                 " mintid_min_int('nanoflake', '2026-01-01T00:00:00Z'),"
                                 " mintid_min_int('nanoflake', '2026-01-01T02:00:00.000+02:00')")
        self.assertEqual(len({a, b, c, d, e}), 1, (a, b, c, d, e))
        self.assertEqual(a, "2006515713438646272")

    def test_fuzz(self):
        """Random input through every reader and every argument, by SQL: each statement gives a value or an error
        of the input class with a sentence, never a NULL for a value given, and the server lives on."""
        rnd = random.Random(os.environ.get("TEST_MARIADB_FUZZ_SEED", "mariadb"))
        names = [f["name"] for f in json.loads(sql("SELECT mintid_formats()"))]
        samples = [v for v in sql("SELECT " + ", ".join(f"mintid({lit(n)})" for n in names)).strip().split("\t")]

        def value():
            kind = rnd.randrange(6)
            if kind == 0:
                size = rnd.choice([0, 1, 7, 8, 9, 16, 20, 33])
                return "x'" + bytes(rnd.randrange(256) for _ in range(size)).hex() + "'"
            if kind == 1:
                return str(rnd.randrange(-2**63, 2**63))
            if kind == 2:
                return str(rnd.randrange(2**64, 2**70))
            if kind == 3:
                return lit("".join(chr(rnd.randrange(32, 127)) for _ in range(rnd.randrange(0, 40))))
            s = list(rnd.choice(samples))
            for _ in range(rnd.randrange(1, 3)):
                s[rnd.randrange(len(s))] = chr(rnd.randrange(32, 127))
            return lit("".join(s)) if kind == 4 else lit("".join(s[:rnd.randrange(len(s) + 1)]))

        def name():
            n = rnd.choice(names)
            if rnd.random() < 0.5:
                i = rnd.randrange(len(n))
                n = n[:i] + rnd.choice("abcdefghijklmnopqrstuvwxyz-_ ") + n[i + 1:]
            return lit(n)

        statements = []
        for i in range(1500):
            pick = rnd.randrange(8)
            if pick == 0:
                expr = f"mintid_inspect({value()})"
            elif pick == 1:
                expr = f"mintid_inspect({value()}, {name()})"
            elif pick == 2:
                expr = f"mintid_ts({value()}, {name()})"
            elif pick == 3:
                expr = f"mintid_min({name()}, {value()})"
            elif pick == 4:
                expr = f"hex(mintid_max_bin({name()}, {value()}))"
            elif pick == 5:
                expr = f"mintid({name()}, {value()})"
            elif pick == 6:
                expr = f"mintid_int({name()})"
            else:
                expr = f"mintid_formats({name()})"
            statements.append((expr, f"SELECT {i}, {expr};\n"))
        r = SERVER.sql("".join(s for _, s in statements), database="t", check=False, extra=("--force",))
        answered = {}
        for line in r.stdout.splitlines():
            n, _, v = line.partition("\t")
            answered[int(n)] = ("value", v)
        for m in re.finditer(r"^ERROR (\d+) \((\w+)\) at line (\d+): (.*)$", r.stderr, re.M):
            answered[int(m.group(3)) - 1] = ("error", int(m.group(1)), m.group(4))
        self.assertEqual(sorted(answered), list(range(len(statements))), r.stderr[-2000:])
        for i, (expr, _) in enumerate(statements):
            got = answered[i]
            if got[0] == "error":
                self.assertEqual(got[1], 1210, f"{expr}: {got}")
                self.assertTrue(got[2], expr)
            elif not expr.startswith("mintid_ts("):  # a typeid of another UUID version has no time: NULL
                self.assertNotEqual(got[1], "NULL", expr)
        self.assertTrue(mariadb_server.alive(SERVER.pid))
        kinds = {g[0] for g in answered.values()}
        self.assertEqual(kinds, {"value", "error"})


class Replication(unittest.TestCase):
    def test_statement_format_warns(self):
        """Under binlog_format=STATEMENT the server warns that the statement is unsafe (a replica would call the
        function again and get other IDs); under MIXED, the default, it logs the rows instead, without a word."""
        sql("CREATE TABLE r (id BIGINT PRIMARY KEY)")
        out = sql("SET SESSION binlog_format = 'STATEMENT'; INSERT INTO r VALUES (mintid_int('nanoflake')); "
                  "SHOW WARNINGS")
        self.assertRegex(out, r"Note\t1592\tUnsafe statement written to the binary log using statement format since "
                              r"BINLOG_FORMAT = STATEMENT\. Statement is unsafe because it uses a UDF")
        out = sql("SET SESSION binlog_format = 'MIXED'; INSERT INTO r VALUES (mintid_int('nanoflake')); SHOW WARNINGS")
        self.assertEqual(out, "")


class Docs(unittest.TestCase):
    """docs/mariadb.md's SQL, run as written, in a database of its own: each ```sql block through the client, its
    output as the ```text block after it says."""

    def test_sql_blocks(self):
        with open(DOCS) as f:
            blocks = re.findall(r"^```(\w*)\n(.*?)^```$", f.read(), re.M | re.S)
        SERVER.sql("CREATE DATABASE docs")
        ran = 0
        for i, (lang, body) in enumerate(blocks):
            if lang != "sql":
                continue
            want = blocks[i + 1][1] if i + 1 < len(blocks) and blocks[i + 1][0] == "text" else None
            r = SERVER.sql(body, database="docs", check=False, extra=("--table",) if want and "+-" in want else ())
            self.assertEqual((r.returncode, r.stderr), (0, ""), body)
            if want is not None:
                self.assertEqual(r.stdout, want, body)
            ran += 1
        self.assertGreaterEqual(ran, 4)
        # The table of the first block, dumped and read back: its DEFAULT as the server shows it.
        dump = subprocess.run(["mariadb-dump", "--no-defaults", "-S", SERVER.socket, "-uroot", "docs", "events"],
                              capture_output=True, text=True, check=True).stdout
        self.assertIn("DEFAULT mintid_int('nanoflake'", dump)
        SERVER.sql("CREATE DATABASE docs_restored")
        SERVER.sql(dump, database="docs_restored")
        SERVER.sql("INSERT INTO events (body) VALUES ('restored')", database="docs_restored")
        self.assertEqual(SERVER.sql("SELECT count(*) FROM events", database="docs_restored"), "3\n")

    def test_sessions(self):
        """The client sessions of the page: each statement's error as shown."""
        with open(DOCS) as f:
            blocks = re.findall(r"^```(\w*)\n(.*?)^```$", f.read(), re.M | re.S)
        ran = 0
        for lang, body in blocks:
            if lang != "" or "MariaDB [" not in body:
                continue
            for statement, shown in re.findall(r"^MariaDB \[\(none\)\]> (.*)\n(ERROR .*)$", body, re.M):
                code, message = SERVER.refused(statement)
                self.assertEqual(f"ERROR {code} (HY000): {message}", shown, statement)
                ran += 1
        self.assertGreaterEqual(ran, 4)


def main():
    global MODULE, MINTID, VOICE_PROBE
    ap = argparse.ArgumentParser()
    ap.add_argument("--module", required=True)
    ap.add_argument("--mintid", required=True)
    ap.add_argument("--voice-probe", required=True)
    args, rest = ap.parse_known_args()
    MODULE, MINTID, VOICE_PROBE = os.path.abspath(args.module), args.mintid, args.voice_probe
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
