# SPDX-License-Identifier: MIT
"""face_resp.py - mintidd's Redis protocol as a column of the one-table test.

Starts a mintidd (tests/server/harness.py) on spare loopback ports and
feeds each bad input as a command; the answer is the error line's
sentence and its code (the word before it).
"""


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
    _server = mintidd_settings.server(ctx, "mintidd-resp-state").start()


def teardown():
    global _server
    if _server is not None:
        mintidd_settings.stop(_server)
        _server = None


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
