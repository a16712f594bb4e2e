# SPDX-License-Identifier: MIT
"""The Python module's column of test_one_voice.py: `import mintid` in a
/usr/bin/python3 of its own (the module of the build on PYTHONPATH), the bad
input given as a program gives it, the exception's class and message read back."""
import json
import os
import subprocess

NAME = "python"
TAKES = {"format", "node", "epoch", "prefix", "id"}
# The exception class of each class of status (docs/python.md, "Errors"):
# the caller's input is an ArgumentError (a ValueError), refined to
# UnknownFormat for a format's name and InvalidID for an ID that does not read.
CODES = {
    "input": {"format": "UnknownFormat", "id": "InvalidID", "guess": "InvalidID", "*": "ArgumentError"},
    "clock": "ClockError",
    "capacity": "Exhausted",
    "environment": "HostError",
    "program": "Error",
}

PYTHON = "/usr/bin/python3"

# Runs one call from argv[1] (JSON) and prints what it raised: {"class": ..., "message": ...}.
_PROGRAM = r"""
import json, sys
import mintid
case = json.loads(sys.argv[1])
kind = case["kind"]
try:
    if kind == "format":
        mintid.gen(case["format"])
    elif kind == "node":
        mintid.gen(case["format"], node=case["node"])
    elif kind == "epoch":
        mintid.gen(case["format"], epoch=case["epoch"])
    elif kind == "prefix":
        mintid.gen(case["format"], prefix=case["prefix"])
    else:
        mintid.inspect(case["id"], case["format"])
except Exception as e:
    print(json.dumps({"class": type(e).__name__, "message": str(e), "mintid": isinstance(e, mintid.Error)}))
else:
    print(json.dumps(None))
"""

_ctx = None


def setup(ctx):
    global _ctx
    _ctx = ctx


def teardown():
    pass


def refuse(case):
    if case["kind"] not in TAKES:
        return None
    env = dict(_ctx.env, PYTHONPATH=os.pathsep.join(
        p for p in (str(_ctx.build / "python"), _ctx.env.get("PYTHONPATH", "")) if p))
    p = subprocess.run([PYTHON, "-c", _PROGRAM, json.dumps(case)], capture_output=True, text=True, env=env,
                       timeout=60)
    if p.returncode != 0:
        return ("the program failed: " + p.stderr.strip(), "exit %d" % p.returncode)
    got = json.loads(p.stdout)
    if got is None:
        return ("no exception was raised", None)
    if not got["mintid"]:
        return (got["message"], got["class"] + " (not a mintid.Error)")
    return (got["message"], got["class"])
