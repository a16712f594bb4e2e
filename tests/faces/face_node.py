# SPDX-License-Identifier: MIT
"""The Node.js package's column of test_one_voice.py: the staged package
of the build (build/node/package) required by a node of its own, the bad
input given as a program gives it, the error's class and message read back."""
import json
import shutil
import subprocess

NAME = "node"
TAKES = {"format", "node", "epoch", "prefix", "id", "guess"}
# The error class of each class of status (docs/node.md, "Errors"): the
# caller's input is an ArgumentError, refined to UnknownFormatError for a
# format's name and InvalidIdError for an ID that does not read.
CODES = {
    "input": {"format": "UnknownFormatError", "id": "InvalidIdError", "guess": "InvalidIdError", "*": "ArgumentError"},
    "clock": "ClockError",
    "capacity": "ExhaustedError",
    "environment": "HostError",
    "program": "MintidError",
}

# Runs one call from argv[2] (JSON) with the package at argv[1], and prints what it threw: {"class", "message", "mintid"}.
_PROGRAM = r"""
const mintid = require(process.argv[1]);
const c = JSON.parse(process.argv[2]);
try {
  if (c.kind === 'format') mintid.gen(c.format);
  else if (c.kind === 'node') mintid.gen(c.format, { node: c.node });
  else if (c.kind === 'epoch') mintid.gen(c.format, { epoch: c.epoch });
  else if (c.kind === 'prefix') mintid.gen(c.format, { prefix: c.prefix });
  else mintid.inspect(c.id, c.format);
  console.log(JSON.stringify(null));
} catch (e) {
  console.log(JSON.stringify({ class: e.name, message: e.message, mintid: e instanceof mintid.MintidError }));
}
"""

_ctx = None


def setup(ctx):
    global _ctx
    _ctx = ctx


def teardown():
    pass


def refuse(case):
    node = shutil.which("node")
    if node is None:
        return ("no node on PATH (make deps installs Node.js)", None)
    package = _ctx.build / "node" / "package"
    p = subprocess.run([node, "-e", _PROGRAM, str(package), json.dumps(case)], capture_output=True, text=True,
                       env=_ctx.env, timeout=60)
    if p.returncode != 0:
        return ("the program failed: " + p.stderr.strip(), "exit %d" % p.returncode)
    got = json.loads(p.stdout)
    if got is None:
        return ("nothing was thrown", None)
    if not got["mintid"]:
        return (got["message"], got["class"] + " (not a MintidError)")
    return (got["message"], got["class"])
