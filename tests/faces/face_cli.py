# SPDX-License-Identifier: MIT
"""The command's column of test_one_voice.py: `mintid` with the bad input on its command line."""
import subprocess

NAME = "cli"
TAKES = {"format", "node", "epoch", "prefix", "id", "guess"}
# Exit statuses (mintid --help): a usage error is 2, an ID that is not one 1,
# a failure to mint 3.
CODES = {
    "input": {"id": 1, "guess": 1, "*": 2},
    "clock": 3,
    "capacity": 3,
    "environment": 3,
    "program": 3,
}

_ctx = None


def setup(ctx):
    global _ctx
    _ctx = ctx


def teardown():
    pass


def _run(*args):
    p = subprocess.run([str(_ctx.build / "mintid"), *args], capture_output=True, text=True, env=_ctx.env,
                       timeout=60)
    return p.stderr.strip(), p.returncode


def refuse(case):
    kind = case["kind"]
    if kind == "format":
        return _run("gen", case["format"])
    if kind == "node":
        return _run("gen", case["format"], "--node", str(case["node"]))
    if kind == "epoch":
        return _run("gen", case["format"], "--epoch", case["epoch"])
    if kind == "prefix":
        return _run("gen", case["format"], "--prefix", case["prefix"])
    if case["format"] is None:
        return _run("inspect", "--", case["id"])
    return _run("inspect", "--format", case["format"], "--", case["id"])
