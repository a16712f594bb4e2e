# SPDX-License-Identifier: MIT
"""The MariaDB functions' column of test_one_voice.py: a throwaway server of its own.

setup() starts Debian's mariadbd on a spare loopback port with mintid.so
in its plugin directory (tests/mariadb/mariadb_server.py: as the mysql
user when run as root) and creates the functions with mariadb/install.sql;
teardown() stops it by its pid. Each case is one statement through the
mariadb client; the answer is the error's message and its error number
(docs/mariadb.md, "Errors"):

  format  mintid('<format>')
  node    MINTID_NODE in the server's environment (read once: a restart),
          then mintid('<format>')
  epoch   MINTID_<FORMAT>_EPOCH likewise
  prefix  mintid('<format>', '<prefix>')
  id      mintid_inspect('<id>', '<format>'), or mintid_inspect('<id>')
"""
import os
import shutil
import sys
import tempfile

NAME = "mariadb"
TAKES = {"format", "node", "epoch", "prefix", "id", "guess"}
CODES = {"input": 1210, "clock": 1205, "capacity": 1205, "environment": 1016, "program": 1815}

_server = None
_root = None


def setup(ctx):
    global _server, _root
    sys.path.insert(0, str(ctx.src / "tests" / "mariadb"))
    import mariadb_server

    module = os.environ.get("TEST_MARIADB_MODULE") or str(ctx.build / "mariadb" / "mintid.so")
    if not os.path.exists(module):
        raise RuntimeError(f"face_mariadb: no module at {module} (build the target mintid_mariadb)")
    # The mysql user must reach the server's directory: under /tmp, not a private one.
    _root = tempfile.mkdtemp(prefix="mintid-face-mariadb-")
    _server = mariadb_server.Server(_root, module)
    _server.install()
    _server.start()
    _server.install_functions()


def teardown():
    global _server, _root
    if _server is not None:
        _server.stop()
        _server = None
    if _root is not None:
        shutil.rmtree(_root, ignore_errors=True)
        _root = None


def _literal(text):
    return "'" + str(text).replace("\\", "\\\\").replace("'", "''") + "'"


def _env_name(fmt, what):
    return "MINTID_" + fmt.upper().replace("-", "_") + "_" + what


def _run(sql):
    code, message = _server.refused(sql)
    return message, code


def refuse(case):
    kind, fmt = case["kind"], case["format"]
    if kind == "format":
        return _run(f"SELECT mintid({_literal(fmt)})")
    if kind == "node":
        if _server.env.get("MINTID_NODE") != str(case["node"]):
            _server.restart(**dict(_server.env, MINTID_NODE=case["node"]))
        return _run(f"SELECT mintid({_literal(fmt)})")
    if kind == "epoch":
        name = _env_name(fmt, "EPOCH")
        if _server.env.get(name) != case["epoch"]:
            _server.restart(**dict(_server.env, **{name: case["epoch"]}))
        return _run(f"SELECT mintid({_literal(fmt)})")
    if kind == "prefix":
        return _run(f"SELECT mintid({_literal(fmt)}, {_literal(case['prefix'])})")
    if fmt is None:
        return _run(f"SELECT mintid_inspect({_literal(case['id'])})")
    return _run(f"SELECT mintid_inspect({_literal(case['id'])}, {_literal(fmt)})")
