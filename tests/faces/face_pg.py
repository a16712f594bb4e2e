# SPDX-License-Identifier: MIT
"""The PostgreSQL extension's column of test_one_voice.py: a throwaway cluster of its own.

setup() starts a cluster on a spare loopback port with the library
preloaded (tests/pg/test_pg.py's Cluster: as the postgres user when run as
root), creates the extension (installed by `make pg`), and teardown() stops
it by its postmaster's pid. Each case is one SQL statement through psql:

  node    mintid.node set in postgresql.conf (at a restart, as the setting
          takes effect), then gen_<format>()
  epoch   ALTER SYSTEM SET mintid.<format>_epoch, which checks the value
  prefix  gen_<format>(prefix)
  id      '<text>'::<type> (typeid_to_uuid(text) for typeid)

SQL has no function that takes a format's name, nor one that reads an ID
of a format not named: those cases are None.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

NAME = "pg"
# A format is named to mintid_formats(); an ID is read by its type, never
# guessed: the "guess" kind is None.
TAKES = {"format", "node", "epoch", "prefix", "id"}
# SQLSTATEs (docs/postgresql.md, "Errors"): each class has a SQLSTATE class of its
# own; within the input class, an ID's text is 22P02, an argument or a setting 22023.
CODES = {
    "input": {"id": "22P02", "*": "22023"},
    "clock": "55000",
    "capacity": "53000",
    "environment": "58000",
    "program": "XX000",
}

_cluster = None
_root = None
_node = None


def _world_traversable(path):
    """Whether every directory down to path lets other users through (the postgres user must reach the cluster)."""
    path = os.path.abspath(path)
    while True:
        if not os.stat(path).st_mode & 0o001:
            return False
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent


def setup(ctx):
    global _cluster, _root, _node
    sys.path.insert(0, str(ctx.src / "tests" / "pg"))
    import test_pg

    tmp = ctx.tmp if os.getuid() != 0 or _world_traversable(ctx.tmp) else None
    _root = tempfile.mkdtemp(prefix="mintid-face-pg-", dir=tmp)
    os.chmod(_root, 0o755)
    _cluster = test_pg.Cluster(_root)
    _cluster.initdb()
    _cluster.start()
    _node = None
    _cluster.psql("postgres", "CREATE EXTENSION mintid")


def teardown():
    global _cluster, _root
    if _cluster is not None:
        _cluster.stop()
        _cluster = None
    if _root is not None:
        shutil.rmtree(_root, ignore_errors=True)
        _root = None


def _literal(text):
    return "'" + text.replace("'", "''") + "'"


def _sql_name(fmt):
    return fmt.replace("-", "_")


def _run(sql):
    """The statement's refusal as psql shows it: (the ERROR line's message with its DETAIL, SQLSTATE)."""
    p = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose", "-d", "postgres",
                        "-c", sql], capture_output=True, text=True, env=_cluster.env(), timeout=60)
    if p.returncode == 0:
        return f"accepted: {p.stdout.strip()}", None
    m = re.search(r"^ERROR:\s+([0-9A-Z]{5}): (.*)$", p.stderr, re.M)
    if m is None:
        return p.stderr.strip(), None
    detail = re.search(r"^DETAIL:\s+(.*)$", p.stderr, re.M)
    return m.group(2) + ("\n" + detail.group(1) if detail else ""), m.group(1)


def refuse(case):
    global _node
    kind, fmt = case["kind"], case["format"]
    if kind == "format":
        return _run(f"SELECT mintid_formats({_literal(fmt)})")
    if fmt is None:
        return None
    name = _sql_name(fmt)
    if kind == "node":
        if _node != case["node"]:
            # Fixed at start with the library preloaded: set in the configuration file, then a restart.
            _cluster.conf(("mintid.node", case["node"]))
            _cluster.stop()
            _cluster.start()
            _node = case["node"]
        return _run(f"SELECT gen_{name}()")
    if kind == "epoch":
        return _run(f"ALTER SYSTEM SET mintid.{name}_epoch = {_literal(case['epoch'])}")
    if kind == "prefix":
        return _run(f"SELECT gen_{name}({_literal(case['prefix'])})")
    if fmt == "typeid":
        return _run(f"SELECT typeid_to_uuid({_literal(case['id'])})")
    if fmt == "uuidv7":  # PostgreSQL's own uuid type reads its text
        return None
    return _run(f"SELECT {_literal(case['id'])}::{name}")
