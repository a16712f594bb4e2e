# SPDX-License-Identifier: MIT
"""face_http.py - mintidd's HTTP API as a column of the one-table test.

Starts a mintidd (tests/server/harness.py) on spare loopback ports and
feeds each bad input as a request; the answer is the body's sentence and
the HTTP status.
"""

import http.client

import mintidd_settings
import urllib.parse

NAME = "http"
# The node id and the epochs are the server's settings, not a request's
# words: asked as mintidd_settings.py says.
TAKES = {"format", "node", "epoch", "prefix", "id", "guess"}
# The HTTP status of each class (http_reply.c's http_status()), with the
# two finer answers docs/server.md and docs/openapi.yaml document: a
# format the path names that does not exist is 404 (as any path that names
# nothing), as is a format the server's node id does not fit (not
# served), and an ID several formats could be is 300, with each
# candidate's inspection. A bad epoch setting stops the start. ("guess" is test_one_voice.py's takes_kind() of
# an ID whose format is not named.)
CODES = {
    "input": {"format": 404, "guess": 300, "node": 404, "epoch": mintidd_settings.EXIT_STATUS, "*": 400},
    "clock": 503,
    "capacity": 503,
    "environment": 503,
    "program": 500,
}

_server = None
_ctx = None


def setup(ctx):
    global _server, _ctx
    _ctx = ctx
    _server = mintidd_settings.server(ctx, "mintidd-http-state").start()


def teardown():
    global _server
    if _server is not None:
        mintidd_settings.stop(_server)
        _server = None


def _get(target, server=None):
    conn = http.client.HTTPConnection("127.0.0.1", (server or _server).http_port, timeout=10)
    try:
        conn.request("GET", target)
        r = conn.getresponse()
        return r.read().decode().strip(), r.status
    finally:
        conn.close()


def _seg(text):
    return urllib.parse.quote(text, safe="")


def refuse(case):
    kind = case["kind"]
    if kind == "format":
        return _get(f"/v1/{_seg(case['format'])}")
    if kind == "prefix":
        return _get(f"/v1/{_seg(case['format'])}?prefix={_seg(case['prefix'])}")
    if kind == "id":
        if case["format"] is None:
            return _get(f"/v1/inspect/{_seg(case['id'])}")
        return _get(f"/v1/{_seg(case['format'])}/{_seg(case['id'])}")
    if kind == "node":
        return mintidd_settings.node_refusal(_ctx, case, lambda srv, fmt: _get(f"/v1/{_seg(fmt)}", srv))
    if kind == "epoch":
        return mintidd_settings.epoch_refusal(_ctx, case)
    raise ValueError(f"unknown kind {kind!r}")
