# SPDX-License-Identifier: MIT
"""test_sqlite.py - the SQLite extension as its users meet it: Python's
sqlite3 module (enable_load_extension) and the sqlite3 shell (.load).

Every format comes from the format table (`mintid formats`), never from a
list written here. The host-wide generators' state lives in a directory of
the test's own (MINTID_HOST_DIR), so that nothing is shared with other runs.

Usage: python3 test_sqlite.py --module build/sqlite/mintid --mintid build/mintid [--sqlite3 sqlite3]
"""

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest

MODULE = MINTID = SHELL = None
TABLE = []  # (name, sql name, bits, has a type prefix)


def connect(path=":memory:"):
    db = sqlite3.connect(path, isolation_level=None)
    db.enable_load_extension(True)
    db.load_extension(MODULE)
    db.enable_load_extension(False)
    return db


def one(db, sql, *args):
    return db.execute(sql, args).fetchone()[0]


def cli_error(*args):
    """The command's message for a bad input, without its 'mintid: ' lead."""
    r = subprocess.run([MINTID] + [str(a) for a in args], capture_output=True, text=True)
    assert r.returncode != 0, (args, r.stdout)
    line = r.stderr.strip().splitlines()[0]
    assert line.startswith("mintid: "), line
    return line[len("mintid: "):]


def read_table():
    out = subprocess.run([MINTID, "formats"], capture_output=True, text=True, check=True).stdout
    prefixed = prefixed_formats()
    for block in out.strip().split("\n\n"):
        name = block.splitlines()[0]
        bits = int(re.search(r"layout \((\d+) bits", block).group(1))
        TABLE.append((name, name.replace("-", "_"), bits, name in prefixed))
    assert len(TABLE) > 0


def prefixed_formats():
    helptext = subprocess.run([MINTID, "--help"], capture_output=True, text=True, check=True).stdout
    return re.findall(r"TYPE:\s+a type prefix of\s+(.*)", helptext)[0].split(" (")[0].split(", ")


class EveryFormat(unittest.TestCase):
    def setUp(self):
        self.db = connect()

    def test_formats_described_as_the_library_does(self):
        every = json.loads(one(self.db, "SELECT mintid_formats()"))
        self.assertEqual([f["name"] for f in every], [name for name, _, _, _ in TABLE])
        for name, sql, bits, _ in TABLE:
            with self.subTest(format=name):
                mine = json.loads(one(self.db, "SELECT mintid_formats(?)", sql))
                self.assertEqual(mine, every[[f["name"] for f in every].index(name)])
                self.assertEqual(mine["bits"], bits)
        # The connection's epoch moves the last time an ID can carry.
        before = json.loads(one(self.db, "SELECT mintid_formats('snowflake')"))
        one(self.db, "SELECT mintid_config('snowflake_epoch', 'discord')")
        after = json.loads(one(self.db, "SELECT mintid_formats('snowflake')"))
        self.assertEqual(after["epoch_ms"], 1420070400000)
        self.assertEqual(after["end_ms"] - before["end_ms"], 1420070400000 - before["epoch_ms"])
        with self.assertRaisesRegex(sqlite3.OperationalError, "did you mean 'uuidv7'"):
            one(self.db, "SELECT mintid_formats('uuid')")

    def test_generators_and_decoders_of_every_format(self):
        for name, sql, bits, _ in TABLE:
            with self.subTest(format=name):
                text = one(self.db, f"SELECT gen_{sql}()")
                want = json.loads(subprocess.run([MINTID, "inspect", "--format", name, text], capture_output=True,
                                                  text=True, check=True).stdout)
                # The same JSON as the command's, by name and by guess where the shape says the format.
                self.assertEqual(json.loads(one(self.db, "SELECT mintid_inspect(?, ?)", text, name)), want)
                self.assertEqual(json.loads(one(self.db, "SELECT mintid_inspect(?, ?)", text, sql)), want)
                self.assertEqual(one(self.db, "SELECT mintid_timestamp(?, ?)", text, name), want["time"])
                blob = one(self.db, f"SELECT gen_{sql}_blob()")
                self.assertIsInstance(blob, bytes)
                self.assertEqual(len(blob), bits // 8)
                self.assertEqual(json.loads(one(self.db, "SELECT mintid_inspect(?, ?)", blob, name))["hex"], blob.hex())
                # A fresh ID lies within the range of its millisecond (as bytes).
                lo, hi = self.db.execute(f"SELECT {sql}_min_blob(?), {sql}_max_blob(?)", (want["unix_ms"],) * 2).fetchone()
                self.assertTrue(lo <= bytes.fromhex(want["hex"]) <= hi)
                self.assertEqual(one(self.db, f"SELECT {sql}_min(?)", want["time"]),
                                 one(self.db, "SELECT json_extract(mintid_inspect(?, ?), '$.text')", lo, name))
                if bits == 64:
                    n = one(self.db, f"SELECT gen_{sql}_int()")
                    self.assertIsInstance(n, int)
                    self.assertEqual(int(json.loads(one(self.db, "SELECT mintid_inspect(?, ?)", n, name))["int"]),
                                     n % 2**64)
                    lo_i, hi_i = self.db.execute(f"SELECT {sql}_min_int(?), {sql}_max_int(?)",
                                                 (want["unix_ms"],) * 2).fetchone()
                    self.assertEqual(lo_i % 2**64, int.from_bytes(lo, "big"))
                    self.assertEqual(hi_i % 2**64, int.from_bytes(hi, "big"))
                else:
                    with self.assertRaises(sqlite3.OperationalError):
                        self.db.execute(f"SELECT gen_{sql}_int()")

    def test_a_statement_mints_past_a_millisecond_s_capacity(self):
        # 100,000 nanoflakes are 25 ms of its capacity: the generator waits, the statement never fails.
        n = one(self.db, "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 100000) "
                         "SELECT count(DISTINCT gen_nanoflake_int()) FROM r")
        self.assertEqual(n, 100000)
        ids = [row[0] for row in self.db.execute(
            "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 20000) "
            "SELECT gen_uuidv7_blob() FROM r")]
        self.assertEqual(ids, sorted(set(ids)))

    def test_a_state_ahead_of_the_clock_is_named(self):
        if shutil.which("faketime") is None:
            self.fail("faketime is not installed (make deps installs it)")
        # A run under a clock set ahead leaves the host-wide state ahead: the
        # generator waits its limit, then says where the state is and how far ahead.
        subprocess.run(["faketime", "-f", "+30s", MINTID, "gen", "nanoflake", "--node", "1001"], check=True,
                       capture_output=True)
        one(self.db, "SELECT mintid_config('nanoflake_node', 1001)")
        with self.assertRaisesRegex(sqlite3.OperationalError,
                                    r"^nanoflake: wait limit reached before the clock moved on; the host-wide state "
                                    r".*/mintid-nanoflake-node1001-epoch1288834974657 has minted up to "
                                    r"\d{4}-\d\d-\d\dT[\d:.]+Z, \d+ ms ahead of the clock, and every run waits "
                                    r"for the clock to reach it$") as e:
            self.db.execute("SELECT gen_nanoflake()")
        self.assertEqual(e.exception.sqlite_errorname, "SQLITE_BUSY")  # the clock's class: ask again later

    def test_type_prefix(self):
        for name, sql, _, prefixed in TABLE:
            if prefixed:
                text = one(self.db, f"SELECT gen_{sql}('user')")
                self.assertTrue(text.startswith("user_"), text)
                self.assertEqual(json.loads(one(self.db, "SELECT mintid_inspect(?)", text))["prefix"], "user")
                with self.assertRaisesRegex(sqlite3.OperationalError,
                                            rf"^prefix 'User!': a {name} prefix is 1 to \d+ of a-z") as e:
                    self.db.execute(f"SELECT gen_{sql}('User!')")
                self.assertEqual(e.exception.sqlite_errorname, "SQLITE_ERROR")

    def test_inspect_is_json_to_sqlite(self):
        self.assertEqual(one(self.db, "SELECT json_extract(mintid_inspect('xinaS8QBh'), '$.sequence')"), 270)
        # The JSON subtype: embedded as an object, not as a string.
        self.assertEqual(one(self.db, "SELECT json_object('id', mintid_inspect('xinaS8QBh')) ->> '$.id.format'"),
                         "uexky")

    def test_null_gives_null(self):
        self.assertIsNone(one(self.db, "SELECT mintid_inspect(NULL)"))
        self.assertIsNone(one(self.db, "SELECT mintid_timestamp(NULL, 'ulid')"))
        self.assertIsNone(one(self.db, "SELECT nanoflake_min(NULL)"))


class Flags(unittest.TestCase):
    def setUp(self):
        self.db = connect()

    def test_generators_are_not_deterministic(self):
        for _, sql, bits, _ in TABLE:
            self.assertEqual(one(self.db, f"SELECT gen_{sql}() = gen_{sql}()"), 0)
            self.assertEqual(one(self.db, f"SELECT gen_{sql}_blob() = gen_{sql}_blob()"), 0)
        self.db.execute("CREATE TABLE t(x)")
        with self.assertRaisesRegex(sqlite3.OperationalError, "non-deterministic"):
            self.db.execute("CREATE INDEX t_g ON t(gen_nanoflake_int())")
        with self.assertRaisesRegex(sqlite3.OperationalError, "non-deterministic"):
            self.db.execute("CREATE INDEX t_p ON t(x) WHERE x < gen_nanoflake_int()")
        with self.assertRaisesRegex(sqlite3.OperationalError, "non-deterministic"):
            self.db.execute("CREATE TABLE g(x, y AS (gen_ulid()))")

    def test_decoders_are_deterministic_and_innocuous(self):
        self.db.execute("CREATE TABLE t(id)")
        self.db.execute("CREATE INDEX t_time ON t(mintid_timestamp(id, 'nanoflake'))")
        self.db.execute("INSERT INTO t VALUES (gen_nanoflake_int())")
        self.db.execute("PRAGMA trusted_schema = OFF")
        self.db.execute("CREATE VIEW v AS SELECT mintid_inspect(id, 'nanoflake') AS j, nanoflake_min(0) FROM t")
        self.assertEqual(one(self.db, "SELECT count(*) FROM v"), 1)
        # A generator in a schema is refused when the schema is not trusted,
        self.db.execute("CREATE VIEW w AS SELECT gen_ulid()")
        with self.assertRaisesRegex(sqlite3.OperationalError, "unsafe use of gen_ulid"):
            self.db.execute("SELECT * FROM w")
        # and allowed in a trusted one: a column's DEFAULT mints.
        self.db.execute("PRAGMA trusted_schema = ON")
        self.assertEqual(len(one(self.db, "SELECT * FROM w")), 26)
        self.db.execute("CREATE TABLE d(id TEXT PRIMARY KEY DEFAULT (gen_ulid()), x)")
        self.db.execute("INSERT INTO d(x) VALUES (1), (2)")
        ids = [r[0] for r in self.db.execute("SELECT id FROM d ORDER BY x")]
        self.assertTrue(ids[0] < ids[1] and len(ids[0]) == 26, ids)

    def test_a_guess_is_not_deterministic(self):
        # Without a format, a shape shared by several formats is read as the one whose time is
        # recent: the same ID reads otherwise a month later, so an index or a generated column
        # over a guess would break, and SQLite is told so. Views and triggers still may guess.
        self.db.execute("CREATE TABLE t(id)")
        for sql in ["CREATE INDEX t_guess ON t(mintid_timestamp(id))",
                    "CREATE TABLE g(id, at AS (mintid_inspect(id)))"]:
            with self.assertRaisesRegex(sqlite3.OperationalError, "non-deterministic"):
                self.db.execute(sql)
        self.db.execute("INSERT INTO t VALUES (gen_sonyflake_int())")
        self.db.execute("PRAGMA trusted_schema = OFF")
        self.db.execute("CREATE VIEW v AS SELECT mintid_inspect(id) AS j, mintid_timestamp(id) FROM t")
        self.assertEqual(json.loads(one(self.db, "SELECT j FROM v"))["format"], "sonyflake")

    def test_config_is_never_from_a_schema(self):
        self.db.execute("CREATE VIEW c AS SELECT mintid_config('node', 3)")
        with self.assertRaisesRegex(sqlite3.OperationalError, "unsafe use of mintid_config"):
            self.db.execute("SELECT * FROM c")


class Config(unittest.TestCase):
    def test_per_connection(self):
        a, b = connect(), connect()
        self.assertEqual(one(a, "SELECT mintid_config('node', 7)"), 7)
        self.assertEqual(one(b, "SELECT mintid_config('node')"), 0)
        one(b, "SELECT mintid_config('node', '9')")
        self.assertEqual(json.loads(one(a, "SELECT mintid_inspect(gen_nanoflake())"))["generator"], 7)
        self.assertEqual(json.loads(one(b, "SELECT mintid_inspect(gen_nanoflake())"))["generator"], 9)
        self.assertEqual(one(a, "SELECT mintid_config('snowflake_epoch', 'discord')"), 1420070400000)
        self.assertEqual(one(b, "SELECT mintid_config('snowflake_epoch')"), 1288834974657)
        t = json.loads(one(a, "SELECT mintid_inspect(gen_snowflake(), 'snowflake')"))
        self.assertEqual(t["node"], 7)
        # The epoch governs reading too: the ID's time is now under the epoch it was minted with.
        self.assertEqual(one(a, "SELECT mintid_timestamp(?, 'snowflake')", t["text"]), t["time"])
        self.assertNotEqual(one(b, "SELECT mintid_timestamp(?, 'snowflake')", t["text"]), t["time"])
        one(a, "SELECT mintid_config('snowflake_epoch', NULL)")
        self.assertEqual(one(a, "SELECT mintid_config('snowflake_epoch')"), 1288834974657)

    def test_checked(self):
        # Every setting is looked up by the library, and a refusal is its sentence after the setting's name.
        db = connect()
        for value, msg in [(-1, "node '-1' is not a node id: give 0..65535, or host"),
                           (65536, "node 65536 is out of range: node ids are 0..65535"),
                           ("x", "node 'x' is not a node id: give 0..65535, or host"),
                           (1.5, "node '1.5' is not a node id: give 0..65535, or host")]:
            with self.assertRaises(sqlite3.OperationalError) as e:
                db.execute("SELECT mintid_config('node', ?)", (value,))
            self.assertEqual(str(e.exception), "mintid_config('node'): " + msg)
            self.assertEqual(e.exception.sqlite_errorname, "SQLITE_ERROR")
        self.assertEqual(one(db, "SELECT mintid_config('node')"), 0)
        # 'node' is every format's node id, so it must fit each: 1024 is refused as the command refuses
        # `--node 1024` for nanoflake, and one format's own setting takes what fits that format.
        with self.assertRaises(sqlite3.OperationalError) as e:
            db.execute("SELECT mintid_config('node', 1024)")
        self.assertEqual(str(e.exception), "mintid_config('node'): node 1024 is out of range: nanoflake's node ids are "
                                           "0..1023; 'node' is every format's node id: set nanoflake's alone with "
                                           "'nanoflake_node'")
        with self.assertRaisesRegex(sqlite3.OperationalError,
                                    r"^mintid_config\('node'\): node 40 is out of range: ulid-flake-scalable's node "
                                    r"ids are 0\.\.31; "):
            db.execute("SELECT mintid_config('node', 40)")
        with self.assertRaises(sqlite3.OperationalError) as e:
            db.execute("SELECT mintid_config('nanoflake_node', 1024)")
        self.assertEqual(str(e.exception),
                         "mintid_config('nanoflake_node'): node 1024 is out of range: nanoflake's node ids are 0..1023")
        self.assertEqual(one(db, "SELECT mintid_config('node')"), 0)
        self.assertEqual(one(db, "SELECT mintid_config('sonyflake_node', 1024)"), 1024)
        self.assertEqual(json.loads(one(db, "SELECT mintid_inspect(gen_sonyflake(), 'sonyflake')"))["machine"], 1024)
        self.assertEqual(json.loads(one(db, "SELECT mintid_inspect(gen_nanoflake())"))["generator"], 0)
        self.assertIsNone(one(db, "SELECT mintid_config('node')"))  # the formats' node ids differ
        self.assertEqual(one(db, "SELECT mintid_config('node', 9)"), 9)
        self.assertEqual(one(db, "SELECT mintid_config('sonyflake_node')"), 9)
        self.assertEqual(one(db, "SELECT mintid_config('node', NULL)"), 0)  # back to MINTID_NODE's, here none
        for bad, msg in [("soon", "epoch 'soon' is not a time: give Unix milliseconds or RFC 3339 UTC "
                                  "(2015-01-01T00:00:00Z)"),
                         (-5, "epoch -5 is before 1970: an epoch is Unix ms from 0"),
                         (1.5, "epoch '1.5' is not a time: "),
                         (99999999999999, "epoch 99999999999999 (5138-11-16T09:46:39.999Z) is in the future: no ID "
                                          "could be minted before it")]:
            with self.assertRaises(sqlite3.OperationalError) as e:
                db.execute("SELECT mintid_config('nanoflake_epoch', ?)", (bad,))
            self.assertTrue(str(e.exception).startswith("mintid_config('nanoflake_epoch'): " + msg), str(e.exception))
        with self.assertRaisesRegex(sqlite3.OperationalError,
                                    r"^mintid_config\('snowflake_epoch'\): epoch 'x' is not a time.*, or one of "
                                    r"twitter, discord$"):
            db.execute("SELECT mintid_config('snowflake_epoch', 'x')")
        with self.assertRaisesRegex(sqlite3.OperationalError,
                                    r"^mintid_config: unknown setting 'uuidv7_epoch'; settings are: node, "
                                    r"ulid_flake_scalable_node, nanoflake_node, snowflake_node, sonyflake_node, "
                                    r"nanoflake_epoch, "):
            db.execute("SELECT mintid_config('uuidv7_epoch', 0)")

    def test_a_nul_is_never_cut_off(self):
        db = connect()
        for sql, msg in [("SELECT mintid_config(CAST(x'6e6f64650078' AS TEXT), 5)",
                          r"mintid_config: unknown setting 'node\\x00x'"),
                         ("SELECT mintid_config('node', CAST(x'370078' AS TEXT))",
                          r"mintid_config\('node'\): node '7\\x00x' is not a node id"),
                         ("SELECT mintid_config(CAST(x'6e616e6f666c616b655f65706f636800' AS TEXT), 0)",
                          r"mintid_config: unknown setting 'nanoflake_epoch\\x00'"),
                         ("SELECT mintid_config('nanoflake_epoch', CAST(x'310030' AS TEXT))",
                          r"mintid_config\('nanoflake_epoch'\): epoch '1\\x000' is not a time")]:
            with self.assertRaisesRegex(sqlite3.OperationalError, "^" + msg):
                db.execute(sql)
        self.assertEqual(one(db, "SELECT mintid_config('node')"), 0)

    def test_a_blob_is_shown_as_one(self):
        # A BLOB is never a node id, an epoch or a time, even where its bytes read as one.
        db = connect()
        for sql, msg in [("SELECT mintid_config('node', x'37')",
                          "mintid_config('node'): x'37' (a BLOB) is not a node id: give a number or 'host'"),
                         ("SELECT mintid_config('nanoflake_epoch', x'3100')",
                          "mintid_config('nanoflake_epoch'): x'3100' (a BLOB) is not a time"),
                         ("SELECT nanoflake_min(x'31')", "nanoflake: x'31' (a BLOB) is not a time"),
                         ("SELECT nanoflake_max_int(zeroblob(40))", "nanoflake: x'" + "00" * 32 + "...' (a BLOB) is")]:
            with self.assertRaisesRegex(sqlite3.OperationalError, "^" + re.escape(msg)):
                db.execute(sql)

    def test_epochs_of_one_unit_share_a_sequence(self):
        # sonyflake counts 10 ms units from its epoch: two epochs in one unit
        # mint the same IDs, so they must draw from one sequence.
        a, b = connect(), connect()
        one(a, "SELECT mintid_config('sonyflake_epoch', 1409529600000)")
        one(b, "SELECT mintid_config('sonyflake_epoch', 1409529600001)")
        ids = [one(db, "SELECT gen_sonyflake_int()") for _ in range(200) for db in (a, b)]
        self.assertEqual(len(set(ids)), len(ids))

    def test_node_from_the_environment(self):
        # MINTID_NODE as every home reads it (mintid_env_node): no format's node id refuses the load;
        # one a format's node field is too narrow for refuses that format's generators, saying so.
        code = ("import sqlite3, sys; db = sqlite3.connect(':memory:'); db.enable_load_extension(True)\n"
                "try:\n  db.load_extension(sys.argv[1])\nexcept sqlite3.Error as e:\n  print(e); sys.exit(0)\n"
                "print(db.execute(\"SELECT mintid_config('node')\").fetchone()[0])\n"
                "print(db.execute(\"SELECT mintid_inspect(gen_nanoflake()) ->> '$.generator'\").fetchone()[0])\n"
                "try:\n  db.execute('SELECT gen_ulid_flake_scalable()')\nexcept sqlite3.Error as e:\n  print(e)\n")
        for env, want in [("5", ["5", "5"]), ("", ["0", "0"]),
                          ("1000", ["None", "1000", "MINTID_NODE: node 1000 is out of range: ulid-flake-scalable's "
                                                    "node ids are 0..31"]),
                          ("x5", ["error during initialization: mintid: MINTID_NODE: node 'x5' is not a node id: "
                                  "give 0..65535, or host"]),
                          ("65536", ["error during initialization: mintid: MINTID_NODE: node 65536 is out of range: "
                                     "node ids are 0..65535"])]:
            out = subprocess.run([sys.executable, "-c", code, MODULE], capture_output=True, text=True, check=True,
                                 env=dict(os.environ, MINTID_NODE=env)).stdout.strip().splitlines()
            self.assertEqual(out, want, env)


class Errors(unittest.TestCase):
    """Bad input is an SQL error with the command's own message, never NULL."""

    def setUp(self):
        self.db = connect()

    def test_same_message_as_the_command(self):
        for fmt, bad in [("ulid-flake", "8000000000000"), ("ulid", "01ARZ3NDEKTSV4RRFFQ69G5FAU"),
                         ("uuidv7", "017f22e2-79b0-6cc3-98c4-dc0c0c07398f"), ("nanoflake", "g512tv8nx8g0!"),
                         ("typeid", "User_01h455vb4pex5vsknk084sn02q"), ("scru160", "05U0GF0J0SP1ADJPT0U4VHIMCJJAIP5")]:
            with self.subTest(fmt=fmt, bad=bad):
                want = cli_error("inspect", "--format", fmt, bad)
                with self.assertRaises(sqlite3.OperationalError) as e:
                    self.db.execute("SELECT mintid_inspect(?, ?)", (bad, fmt))
                self.assertEqual(str(e.exception), want)
                with self.assertRaises(sqlite3.OperationalError) as e:
                    self.db.execute("SELECT mintid_timestamp(?, ?)", (bad, fmt.replace("-", "_")))
                self.assertEqual(str(e.exception), want)
        # Where the command names its option, SQL names the argument.
        for bad in ["not an id", "0000000000001"]:
            want = cli_error("inspect", bad).replace("give --format to read it as one",
                                                     "name the format as the second argument to read it as one")
            want = want.replace("say which with --format", "name the format as the second argument")
            with self.assertRaises(sqlite3.OperationalError) as e:
                self.db.execute("SELECT mintid_inspect(?)", (bad,))
            self.assertEqual(str(e.exception), want)
        want = cli_error("inspect", "--format", "nope", "x")
        with self.assertRaises(sqlite3.OperationalError) as e:
            self.db.execute("SELECT mintid_inspect('x', 'nope')")
        self.assertEqual(str(e.exception), want)

    def test_blobs_integers_reals(self):
        # Bytes and integers are read by the library as text is, the format guessed the same way.
        cases = [
            ("SELECT mintid_inspect(x'0102', 'nanoflake')", "nanoflake: 2 bytes are no ID; a nanoflake is 8 bytes"),
            ("SELECT mintid_inspect(x'0102')", "2 bytes are no ID of any format: an ID is 8, 16 or 20 bytes"),
            ("SELECT mintid_inspect(x'ffffffffffffffff', 'ulid_flake')",
             "ulid-flake: 'ffffffffffffffff' exceeds 7fffffffffffffff (2^63-1)"),
            ("SELECT mintid_inspect(-1, 'nanoflake')",
             "nanoflake: '18446744073709551615' exceeds 2^63-1, the largest nanoflake"),
            ("SELECT mintid_inspect(1, 'uuidv7')",
             "uuidv7: an ID of 128 bits is not read from a 64-bit integer; give its text or its bytes"),
            ("SELECT mintid_inspect(zeroblob(16), 'uuidv7')",
             "uuidv7: '00000000000000000000000000000000' decodes, but is not a valid uuidv7"),
            ("SELECT mintid_inspect(zeroblob(16))",
             "16 bytes are ambiguous: they could be ulid, scru128 or typeid; name the format as the second argument"),
            ("SELECT mintid_inspect(12345)", "12345 is ambiguous: it could be "),
            ("SELECT mintid_timestamp(1.5)", "a REAL is no ID; give its text, INTEGER or BLOB"),
            ("SELECT mintid_inspect('')", "an empty text is not an ID"),
            ("SELECT nanoflake_min('soon')", "nanoflake: 'soon' is not a time"),
            ("SELECT uuidv7_max(-1)", "uuidv7: -1 is a time uuidv7 cannot carry"),
        ]
        for sql, msg in cases:
            with self.subTest(sql=sql):
                with self.assertRaises(sqlite3.OperationalError) as e:
                    self.db.execute(sql)
                self.assertTrue(str(e.exception).startswith(msg), str(e.exception))
                self.assertEqual(e.exception.sqlite_errorname, "SQLITE_ERROR")
        # A guessed BLOB or INTEGER is the format whose time is recent, as a text is.
        for sql in ["SELECT mintid_inspect(gen_caloriosa_blob()) ->> '$.format'",
                    "SELECT mintid_inspect(gen_sonyflake_int()) ->> '$.format'",
                    "SELECT mintid_inspect(gen_ksuid_blob()) ->> '$.format'"]:
            self.assertEqual(one(self.db, sql), re.search(r"gen_(\w+?)_", sql).group(1), sql)

    def test_codes_by_class(self):
        # The environment's class: the host-wide state's directory is missing. The call fails its
        # statement only: the transaction goes on.
        db = connect()
        db.execute("CREATE TABLE t(x)")
        db.execute("BEGIN")
        db.execute("INSERT INTO t VALUES (1)")
        missing = os.path.join(os.environ["MINTID_HOST_DIR"], "missing")
        os.environ["MINTID_HOST_DIR"] = missing
        try:
            with self.assertRaises(sqlite3.OperationalError) as e:
                db.execute("INSERT INTO t VALUES (gen_ulid())")
        finally:
            os.environ["MINTID_HOST_DIR"] = os.path.dirname(missing)
        self.assertEqual(str(e.exception), f"ulid: cannot use the host-wide state in {missing}: No such file or "
                                           "directory (MINTID_HOST_DIR names its directory)")
        self.assertEqual(e.exception.sqlite_errorname, "SQLITE_CANTOPEN")
        self.assertTrue(db.in_transaction)
        self.assertEqual(one(db, "SELECT count(*) FROM t"), 1)
        db.execute("ROLLBACK")
        db.close()


class Processes(unittest.TestCase):
    """8 processes inserting gen_nanoflake_int() into one WAL database."""

    def test_eight_writers(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "ids.db")
            db = connect(path)
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, writer INTEGER, n INTEGER)")
            db.close()
            procs = [subprocess.Popen([sys.executable, __file__, "--module", MODULE, "--mintid", MINTID,
                                       "--writer", path, str(w)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True) for w in range(8)]
            for p in procs:
                out, err = p.communicate(timeout=120)
                self.assertEqual(p.returncode, 0, err)
            db = sqlite3.connect(path)
            self.assertEqual(db.execute("SELECT count(*) FROM t").fetchone()[0], 8 * WRITER_ROWS)
            # Within a process, in the order minted, the IDs are strictly increasing.
            for w in range(8):
                ns = [r[0] for r in db.execute("SELECT n FROM t WHERE writer = ? ORDER BY id", (w,))]
                self.assertEqual(ns, list(range(WRITER_ROWS)))


class Batches(unittest.TestCase):
    """A process mints from one source per format and settings: the
    host-wide generator, and a batch of IDs handed out while the clock is
    in their millisecond (a forked child's is tested by test_sqlite_fork)."""

    def test_connections_of_a_process_continue_one_sequence(self):
        a, b = connect(), connect()
        got = []
        for i in range(3000):
            got.append(one(a if i % 3 else b, "SELECT gen_nanoflake_int()"))
        self.assertEqual(got, sorted(set(got)))

    def test_threads_share_the_source(self):
        # Python's sqlite3 lets go of the GIL while a statement runs.
        per_thread, results = 20000, []
        series = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < ?) "

        def mint():
            db = connect()
            ids = []
            for _ in range(per_thread // 100):
                ids += [row[0] for row in db.execute(series + "SELECT gen_nanoflake_int() FROM r", (100,))]
            results.append(ids)

        threads = [threading.Thread(target=mint) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(len(results), 4)
        for ids in results:
            self.assertEqual(ids, sorted(set(ids)))
        self.assertEqual(len(set().union(*results)), 4 * per_thread)

    def test_an_id_carries_the_millisecond_it_is_handed_out_in(self):
        db = connect()
        seen = []
        for i in range(4000):
            before = time.time_ns() // 1000000
            n = one(db, "SELECT gen_nanoflake_int()")
            seen.append((before, n, time.time_ns() // 1000000))
            if i % 50 == 0:
                time.sleep(0.0004)  # a batch then outlives its millisecond
        ms = {n: one(db, "SELECT json_extract(mintid_inspect(?, 'nanoflake'), '$.unix_ms')", n) for _, n, _ in seen}
        late = [(before, ms[n], after) for before, n, after in seen if not before <= ms[n] <= after]
        self.assertEqual(late, [])


WRITER_ROWS = 4000
BATCH = 200


def writer(path, w):
    """Inserts WRITER_ROWS IDs in batches: every other batch mints in its
    INSERT, under the database's write lock, and the others mint first, in
    a SELECT that takes no lock, while the other processes mint too, then
    insert. A locked database is retried at once (no busy timeout). Where
    the processes' generators were apart, IDs minted in one millisecond by
    two of them would collide."""
    db = sqlite3.connect(path, isolation_level=None, timeout=0)
    db.enable_load_extension(True)
    db.load_extension(MODULE)
    series = "WITH RECURSIVE r(n) AS (SELECT ? UNION ALL SELECT n + 1 FROM r WHERE n < ?) "
    deadline = time.monotonic() + 60

    def retry(fn):
        while True:
            try:
                return fn()
            except sqlite3.OperationalError as e:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                if "locked" not in str(e) or time.monotonic() > deadline:
                    raise

    def insert_minting(start):
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO t(id, writer, n) " + series + "SELECT gen_nanoflake_int(), ?, n FROM r",
                   (start, start + BATCH - 1, w))
        db.execute("COMMIT")

    def insert_minted(rows):
        db.execute("BEGIN IMMEDIATE")
        db.executemany("INSERT INTO t(id, writer, n) VALUES (?, ?, ?)", rows)
        db.execute("COMMIT")

    for start in range(0, WRITER_ROWS, BATCH):
        if start // BATCH % 2 == 0:
            retry(lambda: insert_minting(start))
        else:
            rows = retry(lambda: db.execute(series + "SELECT gen_nanoflake_int(), ?, n FROM r",
                                            (start, start + BATCH - 1, w)).fetchall())
            retry(lambda: insert_minted(rows))


class Shell(unittest.TestCase):
    """The sqlite3 shell: .load, the functions, and an error's message."""

    def run_shell(self, script):
        return subprocess.run([SHELL, ":memory:"], input=script, capture_output=True, text=True)

    def test_load_and_use(self):
        r = self.run_shell(f".load {MODULE}\n"
                           "SELECT length(gen_uuidv7()), typeof(gen_nanoflake_int()), length(gen_scru160_blob());\n"
                           "SELECT mintid_inspect('xinaS8QBh') ->> '$.time';\n"
                           "SELECT mintid_config('node', 7);\n"
                           "SELECT mintid_inspect(gen_nanoflake()) ->> '$.generator';\n")
        self.assertEqual(r.stdout, "36|integer|20\n2019-07-03T18:45:04.129Z\n7\n7\n", r.stderr)
        r = self.run_shell(f".load {MODULE}\nSELECT mintid_inspect('8000000000000', 'ulid-flake');\n")
        self.assertIn("ulid-flake: '8000000000000' exceeds 7ZZZZZZZZZZZZ (2^63-1)", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_load_extension_function(self):
        r = self.run_shell(f"SELECT load_extension('{MODULE}');\nSELECT gen_ulid() < gen_ulid();\n")
        self.assertEqual(r.stdout, "\n1\n", r.stderr)
        # A second load_extension() runs inside a statement, where SQLite replaces no function: the
        # functions loaded first stay, with their settings, and the message says so.
        r = self.run_shell(f".load {MODULE}\nSELECT mintid_config('node', 7);\nSELECT load_extension('{MODULE}');\n"
                           "SELECT mintid_config('node');\n")
        self.assertEqual(r.stdout, "7\n7\n", r.stderr)
        self.assertRegex(r.stderr, r"mintid: loaded on this connection already.*they stay as they are\n$")


class Docs(unittest.TestCase):
    """docs/sqlite.md's examples, run as written: each ```sql block in the
    shell (its output as the ```text block after it says), the Python
    example, and the shell sessions (`sqlite> ` lines), whose errors must be
    the messages shown."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "sqlite.md")) as f:
            cls.blocks = re.findall(r"^```(\w*)\n(.*?)^```$", f.read(), re.M | re.S)

    def shell(self, script):
        return subprocess.run([SHELL, ":memory:"], input=f".load {MODULE}\n" + script, capture_output=True, text=True)

    def test_sql_blocks(self):
        ran = 0
        for i, (lang, body) in enumerate(self.blocks):
            if lang != "sql":
                continue
            want = self.blocks[i + 1][1] if i + 1 < len(self.blocks) and self.blocks[i + 1][0] == "text" else None
            r = self.shell(body)
            self.assertEqual(r.stderr, "", body)
            if want is not None:
                self.assertEqual(r.stdout, want, body)
            ran += 1
        self.assertGreaterEqual(ran, 6)

    def test_python_block(self):
        [code] = [body for lang, body in self.blocks if lang == "python"]
        out = subprocess.run([sys.executable, "-c", code.replace("build/sqlite/mintid", MODULE)], capture_output=True,
                             text=True, check=True).stdout
        self.assertRegex(out, r"^\('[0-9A-Z]{26}', \d+\)$")

    def test_sessions(self):
        ran = 0
        for lang, body in self.blocks:
            if lang != "" or "sqlite> " not in body:
                continue
            # Each command with the lines it printed: output, or "Runtime error: " and the message.
            steps = re.findall(r"^sqlite> (.*)\n((?:(?!sqlite> ).*\n)*)", body, re.M)
            script = "".join(cmd.replace(".load build/sqlite/mintid", "") + "\n" for cmd, _ in steps)
            r = self.shell(script)
            errors = [m for m in re.findall(r"^(?:Runtime|Parse) error[^:]*: (.*)$", r.stderr, re.M)]
            outputs = r.stdout.splitlines()
            want_errors = [line[len("Runtime error: "):] for _, out in steps for line in out.splitlines()
                           if line.startswith("Runtime error: ")]
            want_outputs = [(cmd, line) for cmd, out in steps for line in out.splitlines()
                            if not line.startswith("Runtime error: ")]
            self.assertEqual(errors, want_errors, r.stderr)
            self.assertEqual(len(outputs), len(want_outputs), r.stdout)
            for (cmd, want), got in zip(want_outputs, outputs):
                if "gen_" in cmd:  # a new ID: the same shape
                    self.assertEqual(re.sub(r"[0-9a-zA-Z]", "x", got), re.sub(r"[0-9a-zA-Z]", "x", want), cmd)
                else:
                    self.assertEqual(got, want, cmd)
            ran += 1
        self.assertGreaterEqual(ran, 2)


def main():
    global MODULE, MINTID, SHELL
    ap = argparse.ArgumentParser()
    ap.add_argument("--module", required=True)
    ap.add_argument("--mintid", required=True)
    ap.add_argument("--sqlite3", default="sqlite3")
    ap.add_argument("--writer", nargs=2)
    args, rest = ap.parse_known_args()
    MODULE, MINTID, SHELL = os.path.abspath(args.module), args.mintid, args.sqlite3
    if args.writer:
        writer(args.writer[0], int(args.writer[1]))
        return
    with tempfile.TemporaryDirectory(prefix="mintid-sqlite-") as hostdir:
        # The host-wide generators' state, apart from every other run's.
        os.environ["MINTID_HOST_DIR"] = hostdir
        os.environ.pop("MINTID_NODE", None)
        read_table()
        unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
