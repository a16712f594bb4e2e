# SPDX-License-Identifier: MIT
"""face_sqlite.py - the SQLite extension's column of the one-voice table
(tests/faces/test_one_voice.py): each bad input as SQL, run in a Python
whose sqlite3 module loads extensions, with the test's environment; the
answer is the error's message and its SQLite result code by name
(docs/sqlite.md, "Errors")."""

import json
import os
import sqlite3
import subprocess
import sys

NAME = "sqlite"
TAKES = {"format", "node", "epoch", "prefix", "id", "guess"}
CODES = {"input": "SQLITE_ERROR", "clock": "SQLITE_BUSY", "capacity": "SQLITE_BUSY",
         "environment": "SQLITE_CANTOPEN", "program": "SQLITE_INTERNAL"}

# One statement on a new connection: prints [message, code name] of its error, or [None, its value].
RUN = """
import json, sqlite3, sys
module, sql, params = json.loads(sys.argv[1])
db = sqlite3.connect(":memory:")
db.enable_load_extension(True)
db.load_extension(module)
try:
    value = db.execute(sql, params).fetchone()[0]
except sqlite3.Error as e:
    print(json.dumps([str(e), getattr(e, "sqlite_errorname", type(e).__name__)]))
else:
    print(json.dumps([None, repr(value)]))
db.close()
"""

_python = _module = _env = None


def setup(ctx):
    global _python, _module, _env
    _env = dict(ctx.env)
    _env.pop("MINTID_NODE", None)
    _module = _env.get("TEST_SQLITE_MODULE") or os.environ.get("TEST_SQLITE_MODULE") or str(
        ctx.build / "sqlite" / "mintid.so")
    if not os.path.exists(_module):
        raise RuntimeError(f"face_sqlite: no SQLite extension at {_module} (build the target mintid_sqlite)")
    # This Python if its sqlite3 loads extensions (Debian's does; pyenv's builds do not), else Debian's.
    _python = sys.executable if hasattr(sqlite3.Connection, "enable_load_extension") else "/usr/bin/python3"


def teardown():
    pass  # nothing runs between calls


def _sql_name(fmt):
    return fmt.replace("-", "_")


def _statement(case):
    kind = case["kind"]
    if kind == "format":  # a format is named in SQL as the decoders' second argument
        return "SELECT mintid_inspect('x', ?)", [case["format"]]
    if kind == "node":
        return f"SELECT mintid_config('{_sql_name(case['format'])}_node', ?)", [case["node"]]
    if kind == "epoch":
        return f"SELECT mintid_config('{_sql_name(case['format'])}_epoch', ?)", [case["epoch"]]
    if kind == "prefix":
        return f"SELECT gen_{_sql_name(case['format'])}(?)", [case["prefix"]]
    if kind == "id":
        if case["format"] is None:
            return "SELECT mintid_inspect(?)", [case["id"]]
        return "SELECT mintid_inspect(?, ?)", [case["id"], case["format"]]
    return None


def refuse(case):
    stmt = _statement(case)
    if stmt is None:
        return None
    r = subprocess.run([_python, "-c", RUN, json.dumps([_module, stmt[0], stmt[1]])], env=_env,
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"face_sqlite: {stmt[0]} {stmt[1]}: {r.stderr.strip()}")
    message, code = json.loads(r.stdout)
    if message is None:
        return f"no error: {stmt[0]} gave {code}", None
    return message, code
