# SPDX-License-Identifier: MIT
"""face_resp.py - mintidd's Redis protocol as a column of the one-table test.

Starts a mintidd (tests/server/harness.py) on spare loopback ports and
feeds each bad input as a command; the answer is the error line's
sentence and its code (the word before it).
"""

import sys

import mintidd_settings

NAME = "resp"
# The node id and the epochs are the server's settings, not a command's
# words: asked as mintidd_settings.py says.
TAKES = {"format", "node", "epoch", "prefix", "id", "guess"}
# The error code of each class (resp_reply.c's resp_code()).
# A bad epoch setting stops the start (mintidd_settings.py).
CODES = {
    "input": {"epoch": mintidd_settings.EXIT_STATUS, "*": "ERR"},
    "clock": "TRYAGAIN",
    "capacity": "TRYAGAIN",
    "environment": "ERR",
    "program": "ERR",
}

_server = None
_ctx = None


def setup(ctx):
    global _server, _ctx
    _ctx = ctx
    sys.path.insert(0, str(ctx.src / "tests" / "server"))
    from harness import Server

    _server = Server(str(ctx.build / "mintidd"), state_dir=str(ctx.tmp / "mintidd-resp-state"), env=dict(ctx.env))
    # The harness starts from this process's environment: what ctx.env left out stays out.
    if "MINTID_NODE" not in ctx.env:
        _server.env.pop("MINTID_NODE", None)
    _server.start()


def teardown():
    global _server
    if _server is not None:
        status, log = _server.stop()
        _server.__exit__(None, None, None)
        _server = None
        assert status == 0, f"mintidd exited with status {status}:\n{log}"


def _call(*args, server=None):
    from resp_client import Resp, RespError

    with Resp((server or _server).resp_port) as r:
        reply = r.call(*args)
    if not isinstance(reply, RespError):
        raise AssertionError(f"{args!r} was answered {reply!r}, not refused")
    code, _, message = str(reply).partition(" ")
    return message, code


def refuse(case):
    kind = case["kind"]
    if kind == "format":
        return _call("MINT", case["format"])
    if kind == "prefix":
        return _call("MINT", case["format"], "PREFIX", case["prefix"])
    if kind == "id":
        if case["format"] is None:
            return _call("INSPECT", case["id"])
        return _call("INSPECT", case["format"], case["id"])
    if kind == "node":
        return mintidd_settings.node_refusal(_ctx, case, lambda srv, fmt: _call("MINT", fmt, server=srv))
    if kind == "epoch":
        return mintidd_settings.epoch_refusal(_ctx, case)
    raise ValueError(f"unknown kind {kind!r}")
