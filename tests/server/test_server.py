# SPDX-License-Identifier: MIT
"""test_server.py - mintidd as its clients meet it: every endpoint and
command, every error, limits, concurrency, restarts, shutdown.

Usage: python3 test_server.py --mintidd PATH --mintid PATH [-k PATTERN]
"""

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, have_faketime, http_raw, spare_port  # noqa: E402
from resp_client import Resp, RespError  # noqa: E402

MINTIDD = MINTID = None
NO_FAKETIME = False
FORMATS = []  # every format, as `mintid formats` lists them from the table


def get(port, path, headers=None, method="GET"):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request(method, path, headers=headers or {})
    r = c.getresponse()
    body = r.read().decode()
    c.close()
    return r.status, dict((k.lower(), v) for k, v in r.getheaders()), body


def inspect_cli(fmt, ident, epoch=None):
    cmd = [MINTID, "inspect", "--format", fmt]
    if epoch is not None:
        cmd += ["--epoch", str(epoch)]
    out = subprocess.run(cmd + ["--", ident], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def state_mark(state_dir):
    """The mark in a state directory's file."""
    with open(os.path.join(state_dir, "state")) as f:
        return int(re.search(r"^mark (\d+)$", f.read(), re.M).group(1))


def as_int(fmt, ident):
    return int(inspect_cli(fmt, ident)["hex"], 16)


class SharedServer(unittest.TestCase):
    """One server for the whole class, started with ARGS; self.port is its PROTOCOL's port."""

    ARGS = ()
    PROTOCOL = "http"

    @classmethod
    def setUpClass(cls):
        cls.srv = Server(MINTIDD, args=list(cls.ARGS)).start()
        cls.port = getattr(cls.srv, f"{cls.PROTOCOL}_port")

    @classmethod
    def tearDownClass(cls):
        try:
            status, log = cls.srv.stop()
        finally:
            cls.srv.__exit__(None, None, None)
        assert status == 0, log


class Http(SharedServer):
    ARGS = ("--node", "5", "--max-count", "1000")

    def test_mint_every_format(self):
        for fmt in FORMATS:
            status, h, body = get(self.port, f"/v1/{fmt}")
            self.assertEqual(status, 200, body)
            self.assertTrue(h["content-type"].startswith("text/plain"))
            self.assertEqual(h["cache-control"], "no-store")
            ident = body.strip()
            self.assertEqual(body, ident + "\n")
            info = inspect_cli(fmt, ident)
            self.assertLess(abs(info["unix_ms"] - time.time() * 1000), 10000)
            if fmt == "nanoflake":
                self.assertEqual(info["generator"], 5)
            if fmt == "ulid-flake-scalable":
                self.assertEqual(info["scalability"], 5)

    def test_count_and_forms(self):
        status, _, body = get(self.port, "/v1/nanoflake?count=500")
        ids = body.split("\n")[:-1]
        self.assertEqual(len(ids), 500)
        values = [int(inspect_cli("nanoflake", i)["int"]) for i in ids[:3]]
        self.assertEqual(values, sorted(values))
        status, _, body = get(self.port, "/v1/nanoflake?count=3&as=int")
        self.assertTrue(all(x.isdigit() for x in body.split()))
        status, _, body = get(self.port, "/v1/scru160?as=hex")
        self.assertRegex(body, r"^[0-9a-f]{40}\n$")
        status, _, body = get(self.port, "/v1/nanoflake?as=padded&count=2")
        self.assertTrue(all(len(x) == 13 for x in body.split()))

    def test_json_ids_are_strings(self):
        status, h, body = get(self.port, "/v1/nanoflake?count=5&as=int", {"Accept": "application/json"})
        self.assertEqual(status, 200)
        self.assertEqual(h["content-type"], "application/json")
        doc = json.loads(body)
        self.assertEqual(len(doc["ids"]), 5)
        self.assertTrue(all(isinstance(i, str) for i in doc["ids"]))
        self.assertEqual(len(set(doc["ids"])), 5)

    def test_inspect_matches_cli(self):
        for fmt in FORMATS:
            _, _, body = get(self.port, f"/v1/{fmt}")
            ident = body.strip()
            status, h, body = get(self.port, f"/v1/{fmt}/{ident}")
            self.assertEqual(status, 200, body)
            self.assertEqual(json.loads(body), inspect_cli(fmt, ident))
        # percent-encoded IDs decode
        status, _, body = get(self.port, "/v1/nanoflake/%31c49kkphl4ow")
        self.assertEqual(json.loads(body)["int"], "175928847298985984")

    def test_inspect_guessed(self):
        # One format: as GET /v1/{format}/{id} answers; HEAD: the head alone.
        ident = get(self.port, "/v1/scru160")[2].strip()
        status, h, body = get(self.port, f"/v1/inspect/{ident}")
        self.assertEqual((status, json.loads(body)), (200, inspect_cli("scru160", ident)))
        status, h2, body = get(self.port, f"/v1/inspect/{ident}", method="HEAD")
        self.assertEqual((status, body, h2["content-length"]), (200, "", h["content-length"]))
        # Several: 300, each candidate as its format reads it.
        status, _, body = get(self.port, "/v1/inspect/175928847298985984", {"Accept": "application/json"})
        self.assertEqual(status, 300)
        doc = json.loads(body)
        self.assertEqual(doc["error"], "'175928847298985984' is ambiguous: it could be nanoflake, snowflake or sonyflake")
        self.assertEqual([c["format"] for c in doc["candidates"]], ["nanoflake", "snowflake", "sonyflake"])
        for c in doc["candidates"]:
            self.assertEqual(c, inspect_cli(c["format"], "175928847298985984"))
        self.assertEqual(get(self.port, "/v1/inspect/12345")[:3:2],
                         (300, "'12345' is ambiguous: it could be uexky, nanoflake, snowflake or sonyflake; "
                               "ask GET /v1/{format}/{id}\n"))
        self.assertEqual(get(self.port, "/v1/inspect/zz!")[:3:2],
                         (400, "'zz!' does not have the shape of any format's ID; ask GET /v1/{format}/{id}\n"))
        # Too long for any format is said so, not taken for bad percent-encoding.
        for path in ("/v1/inspect/" + "a" * 300, "/v1/nanoflake/" + "a" * 300):
            status, _, body = get(self.port, path)
            self.assertEqual(status, 400, path)
            self.assertIn("longer than 255 bytes", body, path)
        self.assertEqual(get(self.port, "/v1/inspect/" + "%61" * 100)[0], 400)

    def test_formats_health_metrics(self):
        status, _, body = get(self.port, "/v1/formats")
        doc = json.loads(body)
        self.assertEqual([f["name"] for f in doc], FORMATS)
        status, _, body = get(self.port, "/healthz")
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(body)["node_id"], 5)
        get(self.port, "/v1/uexky?count=7")
        status, h, body = get(self.port, "/metrics")
        self.assertEqual(status, 200)
        self.assertRegex(body, r'mintid_ids_issued_total\{format="uexky"\} \d+')
        for name in ["mintid_requests_total", "mintid_errors_total", "mintid_sequence_waits_total",
                     "mintid_clock_rollbacks_total", "mintid_node_id 5", "mintid_uptime_seconds"]:
            self.assertIn(name, body)
        # HEAD: the head alone
        status, h, body = get(self.port, "/v1/formats", method="HEAD")
        self.assertEqual(status, 200)
        self.assertEqual(body, "")

    def test_errors(self):
        cases = [
            ("/v1/moonflake", 404, "unknown format 'moonflake'; formats are uexky, scru160,"),
            ("/v1/uuid", 404, "unknown format 'uuid'; did you mean 'uuidv7'?"),
            ("/v1/UUIDv7", 404, "unknown format 'UUIDv7'; did you mean 'uuidv7'?"),
            ("/v1/nanoflake?count=0", 400, "count must be 1..1000"),
            ("/v1/nanoflake?count=1001", 400, "count must be 1..1000"),
            ("/v1/nanoflake?count=abc", 400, "count must be 1..1000"),
            ("/v1/nanoflake?count=-1", 400, "count must be 1..1000"),
            ("/v1/nanoflake?cuont=3", 400, "unknown query parameter 'cuont'"),
            ("/v1/nanoflake?count=1&count=2", 400, "given twice"),
            ("/v1/uexky?as=padded", 400, "uexky has no 'padded' form; its forms are text, int, hex"),
            ("/v1/uexky?as=x", 400, "unknown form 'x'; uexky's forms are text, int, hex"),
            ("/v1/ulid-flake/8000000000000", 400, "exceeds 7ZZZZZZZZZZZZ (2^63-1)"),
            ("/v1/ulid-flake/00F2N078MDT7L", 400, "'L' at position 13 is not a ulid-flake digit"),
            ("/v1/nanoflake/%zz", 400, "malformed percent-encoding"),
            ("/nothing", 404, "no such resource"),
        ]
        for path, code, text in cases:
            status, _, body = get(self.port, path)
            self.assertEqual(status, code, path)
            self.assertIn(text, body, path)
        status, _, body = get(self.port, "/v1/moonflake", {"Accept": "application/json"})
        self.assertIn("unknown format", json.loads(body)["error"])
        status, h, _ = get(self.port, "/v1/formats", method="POST")
        self.assertEqual(status, 405)
        self.assertEqual(h["allow"], "GET, HEAD")
        status, h, _ = get(self.port, "/v1/nanoflake", method="PUT")
        self.assertEqual(status, 405)
        self.assertEqual(h["allow"], "GET, HEAD, POST")

    def test_malformed_requests(self):
        cases = [
            (b"GARBAGE\r\n\r\n", b"400"),
            (b"GET /v1/nanoflake HTTP/2.0\r\n\r\n", b"505"),
            (b"GET nanoflake HTTP/1.1\r\n\r\n", b"400"),
            (b"GET /v1/nanoflake HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", b"413"),
            (b"GET /v1/nanoflake HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", b"501"),
            (b"GET /v1/nanoflake HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n", b"400"),
            (b"GET /v1/nanoflake HTTP/1.1\r\n folded: header\r\n\r\n", b"400"),
            (b"GET /v1/nanoflake HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n", b"431"),
        ]
        for req, code in cases:
            out = http_raw(self.port, req, expect_close=True)
            self.assertTrue(out.startswith(b"HTTP/1.1 " + code), (req[:40], out[:80]))
            self.assertIn(b"Connection: close", out)
        # A head that never ends is refused once it passes the limit.
        out = http_raw(self.port, b"GET /" + b"a" * 20000, expect_close=True)
        self.assertTrue(out.startswith(b"HTTP/1.1 431"), out[:60])
        # The server is still serving.
        self.assertEqual(get(self.port, "/healthz")[0], 200)

    def test_pipelining_and_keepalive(self):
        req = b"GET /v1/nanoflake HTTP/1.1\r\nHost: x\r\n\r\n"
        out = http_raw(self.port, req * 3 + b"GET /v1/nanoflake HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                       expect_close=True)
        self.assertEqual(out.count(b"HTTP/1.1 200 OK"), 4)
        out = http_raw(self.port, b"GET /healthz HTTP/1.0\r\n\r\n", expect_close=True)
        self.assertIn(b"Connection: close", out)

    def test_curl(self):
        if shutil.which("curl") is None:
            self.fail("curl is not installed (make deps installs it)")
        out = subprocess.run(["curl", "-sf", "-H", "Accept: application/json",
                              f"http://127.0.0.1:{self.port}/v1/ulid-flake?count=3"],
                             capture_output=True, text=True, check=True).stdout
        self.assertEqual(len(json.loads(out)["ids"]), 3)


def range_cli(fmt, *args):
    return subprocess.run([MINTID, "range", fmt] + [str(a) for a in args], capture_output=True, text=True,
                          check=True).stdout.split()


class Prefix(SharedServer):
    """typeid's type prefix: ?prefix= over HTTP, PREFIX over RESP; kept by inspect and range."""

    def test_prefix_everywhere(self):
        r = Resp(self.srv.resp_port)
        status, _, body = get(self.port, "/v1/typeid?count=3&prefix=user")
        self.assertEqual(status, 200, body)
        ids = body.split()
        ids += r.call("MINT", "typeid", "2", "PREFIX", "user")
        # "prefix" is a type prefix like any other, even after PREFIX.
        self.assertRegex(r.call("MINT", "typeid", "PREFIX", "prefix"), r"^prefix_[0-7]")
        ids.append(r.call("MINT", "typeid", "prefix", "user"))
        self.assertEqual(len(ids), 6)
        for ident in ids:
            self.assertRegex(ident, r"^user_[0-7][0-9a-hjkmnp-tv-z]{25}$")
        self.assertEqual(sorted(ids), ids)
        self.assertEqual(len(set(ids)), len(ids))
        status, _, body = get(self.port, f"/v1/typeid/{ids[0]}")
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body), inspect_cli("typeid", ids[0]))
        self.assertEqual(json.loads(r.call("INSPECT", "typeid", ids[1]))["prefix"], "user")
        want = range_cli("typeid", "1645557742000", "--prefix", "user")
        self.assertEqual(want, ["user_01fwhe4ydge008000000000000", "user_01fwhe4ydgfzzvzzzzzzzzzzzz"])
        status, _, body = get(self.port, "/v1/range/typeid?from=1645557742000&prefix=user")
        self.assertEqual(body.split(), want)
        self.assertEqual(r.call("RANGE", "typeid", "1645557742000", "PREFIX", "user"), want)
        rule = "a typeid prefix is 1 to 63 of a-z and '_', starting and ending with a letter"
        for path, text in [("/v1/typeid?prefix=User", f"prefix 'User': {rule}"),
                           ("/v1/typeid?prefix=user_", f"prefix 'user_': {rule}"),
                           ("/v1/typeid?prefix=us%00er", f"prefix 'us\\x00er': {rule}"),
                           ("/v1/typeid?prefix=user&as=uuid",
                            "prefix 'user': only typeid's text form carries a prefix, not its uuid form"),
                           ("/v1/uuidv7?prefix=user", "prefix 'user': uuidv7 has no type prefix"),
                           ("/v1/range/typeid?from=1&prefix=9", f"prefix '9': {rule}")]:
            status, _, body = get(self.port, path)
            self.assertEqual(status, 400, path)
            self.assertIn(text, body, path)
        r.close()


class Range(SharedServer):
    """The IDs that bound a time window, over both protocols, as the CLI gives them."""

    def test_http_and_resp_agree_with_the_cli(self):
        r = Resp(self.srv.resp_port)
        for fmt in FORMATS:
            before = int(time.time() * 1000)
            ident = r.call("MINT", fmt)
            after = int(time.time() * 1000)
            want = range_cli(fmt, before, after)
            status, _, body = get(self.port, f"/v1/range/{fmt}?from={before}&to={after}")
            self.assertEqual(status, 200, body)
            self.assertEqual(body.split(), want)
            self.assertEqual(r.call("RANGE", fmt, before, after), want)
            lo, hi, mid = (as_int(fmt, x) for x in (want[0], want[1], ident))
            self.assertTrue(lo <= mid <= hi, (fmt, want, ident))
        status, h, body = get(self.port, "/v1/range/nanoflake?from=2026-11-22&as=int",
                              headers={"Accept": "application/json"})
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(body), dict(zip(("min", "max"), range_cli("nanoflake", "2026-11-22", "--as", "int"))))
        self.assertEqual(r.call("RANGE", "nanoflake", "2026-11-22"), range_cli("nanoflake", "2026-11-22"))
        r.close()

    def test_errors(self):
        for path, text in [("/v1/range/nanoflake", "range needs from="),
                           ("/v1/range/nanoflake?from=x", "from is not Unix ms"),
                           ("/v1/range/nanoflake?from=2&to=1", "to is before from"),
                           ("/v1/range/uexky?from=1", "no ID of the format can carry that time"),
                           ("/v1/range/nanoflake?from=1&as=core",
                            "nanoflake has no 'core' form; its forms are text, int, hex, padded")]:
            status, _, body = get(self.port, path)
            self.assertEqual(status, 400, path)
            self.assertIn(text, body, path)
        status, _, body = get(self.port, "/v1/range/bogus?from=1")
        self.assertEqual(status, 404)
        r = Resp(self.srv.resp_port)
        reply = r.call("RANGE", "nanoflake", "yesterday")
        self.assertIsInstance(reply, RespError)
        self.assertIn("from is not Unix ms", str(reply))
        self.assertEqual(r.call("PING"), "PONG")
        r.close()


class RespProtocol(SharedServer):
    ARGS = ("--max-count", "1000", "--max-request-size", "1024")
    PROTOCOL = "resp"

    def test_commands(self):
        r = Resp(self.port)
        self.addCleanup(r.close)
        for fmt in FORMATS:
            ident = r.call("MINT", fmt)
            self.assertIsInstance(ident, str)
            self.assertEqual(json.loads(r.call("INSPECT", fmt, ident)), inspect_cli(fmt, ident))
        # INSPECT id: the format guessed, as GET /v1/inspect/{id} and `mintid inspect` guess it.
        ident = r.call("MINT", "scru160")
        self.assertEqual(json.loads(r.call("INSPECT", ident)), inspect_cli("scru160", ident))
        self.assertEqual(str(r.call("INSPECT", "12345")),
                         "ERR '12345' is ambiguous: it could be uexky, nanoflake, snowflake or sonyflake; "
                         "say which with INSPECT format id")
        self.assertEqual(str(r.call("INSPECT", "zz!")), "ERR 'zz!' does not have the shape of any format's ID")
        ids = r.call("mint", "nanoflake", "100")
        self.assertEqual(len(ids), 100)
        self.assertEqual(len(set(ids)), 100)
        self.assertEqual(r.call("PING"), "PONG")
        self.assertEqual(r.call("PING", "hello"), "hello")
        self.assertIn("mintid_version", r.call("INFO"))
        self.assertEqual(r.call("COMMAND", "DOCS"), [])
        self.assertEqual(r.call("CONFIG", "GET", "save"), ["save", ""])
        self.assertEqual(r.call("CONFIG", "GET", "maxmemory"), [])
        self.assertEqual(r.call("SELECT", "0"), "OK")
        self.assertEqual(r.call("QUIT"), "OK")
        with self.assertRaises(ConnectionError):
            r.call("PING")

    def test_errors_keep_connection(self):
        r = Resp(self.port)
        self.addCleanup(r.close)
        cases = [
            (("FOO", "bar"), "ERR unknown command 'FOO', with args beginning with: 'bar'"),
            (("MINT",), "ERR wrong number of arguments for 'mint' command"),
            (("MINT", "a", "b", "c", "d", "e", "f", "g"), "ERR wrong number of arguments for 'mint' command"),
            (("MINT", "nanoflake", "1", "x"), "ERR MINT takes format [count] [PREFIX prefix]"),
            (("MINT", "nanoflake", "PREFIX", "user"), "ERR prefix 'user': nanoflake has no type prefix"),
            (("MINT", "typeid", "PREFIX", "Us"), "ERR prefix 'Us': a typeid prefix is 1 to 63"),
            (("MINT", "typeid", "PREFIX"), "ERR typeid: PREFIX needs a prefix after it"),
            (("MINT", "typeid", "3", "PREFIX"), "ERR typeid: PREFIX needs a prefix after it"),
            (("RANGE", "typeid", "1645557742000", "PREFIX"), "ERR typeid: PREFIX needs a prefix after it"),
            (("MINT", "moonflake"), "ERR unknown format 'moonflake'; formats are uexky,"),
            (("MINT", "NANOFLAKE"), "ERR unknown format 'NANOFLAKE'; did you mean 'nanoflake'?"),
            (("MINT", "nanoflake", "0"), "ERR count must be 1..1000"),
            (("MINT", "nanoflake", "1001"), "ERR count must be 1..1000"),
            (("INSPECT", "ulid-flake", "8000000000000"), "ERR ulid-flake: '8000000000000' exceeds"),
            (("INSPECT", "uexky", "bad\r\nid"), "ERR uexky: 'bad\\x0d\\x0aid'"),
            (("SELECT", "1"), "ERR DB index is out of range"),
        ]
        for args, want in cases:
            got = r.call(*args)
            self.assertIsInstance(got, RespError, args)
            self.assertTrue(str(got).startswith(want), (args, str(got)))
        self.assertEqual(r.call("PING"), "PONG")

    def test_inline_and_pipeline(self):
        with Resp(self.port, timeout=5) as inline:
            inline.sock.sendall(b"PING\r\nMINT nanoflake\r\n\r\nMINT uexky 2\n")
            self.assertEqual(inline.read(), "PONG")
            self.assertIsInstance(inline.read(), str)
            reply = inline.read()
            self.assertTrue(isinstance(reply, list) and len(reply) == 2, reply)
        r = Resp(self.port)
        self.addCleanup(r.close)
        for _ in range(50):
            r.send("MINT", "nanoflake")
        ids = [r.read() for _ in range(50)]
        self.assertEqual(len(set(ids)), 50)
        values = [as_int("nanoflake", i) for i in (ids[0], ids[-1])]
        self.assertLess(values[0], values[1])

    def test_protocol_errors_close(self):
        cases = [
            (b"*1\r\n$abc\r\n", b"-ERR Protocol error: invalid bulk length"),
            (b"*x\r\n", b"-ERR Protocol error: invalid multibulk length"),
            (b"*1\r\n+PING\r\n", b"-ERR Protocol error: expected '$'"),
            (b"*2\r\n$4\r\nMINT\r\n$2000\r\n", b"-ERR Protocol error: request too large"),
            (b"*1\r\n$4\r\nPINGxx", b"-ERR Protocol error: bulk string not followed by CRLF"),
            (b"PING " + b"x" * 2000, b"-ERR Protocol error: too big inline request"),
            (b"*100\r\n", b"-ERR Protocol error: too many arguments"),
        ]
        for req, want in cases:
            out = http_raw(self.port, req, expect_close=True)
            self.assertTrue(out.startswith(want), (req[:30], out))
            self.assertTrue(out.endswith(b"\r\n"))
        r = Resp(self.port)
        self.addCleanup(r.close)
        self.assertEqual(r.call("PING"), "PONG")

    def test_redis_cli(self):
        if shutil.which("redis-cli") is None:
            self.fail("redis-cli is not installed (make deps installs redis-tools)")
        cli = ["redis-cli", "-p", str(self.port)]
        out = subprocess.run(cli + ["MINT", "nanoflake"], capture_output=True, text=True, check=True).stdout
        self.assertRegex(out, r"^[0-9a-z]{12}\n$")
        out = subprocess.run(cli + ["MINT", "scru160", "3"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(len(out.split()), 3)
        out = subprocess.run(cli + ["PING"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(out, "PONG\n")


class Concurrency(unittest.TestCase):
    def test_unique_and_ordered_across_clients(self):
        with Server(MINTIDD, args=["--max-count", "1000"]) as srv:
            results, errors = [], []

            def http_worker():
                c = http.client.HTTPConnection("127.0.0.1", srv.http_port, timeout=30)
                try:
                    got = []
                    for _ in range(40):
                        c.request("GET", "/v1/nanoflake?count=200&as=int")
                        got += c.getresponse().read().decode().split()
                    results.append(got)
                except Exception as e:  # reported below
                    errors.append(e)
                finally:
                    c.close()

            def resp_worker():
                try:
                    with Resp(srv.resp_port) as r:
                        got = []
                        for _ in range(40):
                            for _ in range(10):
                                r.send("MINT", "nanoflake", "20")
                            for _ in range(10):
                                got += r.read()
                    results.append([str(as_int_cached(i)) for i in got])
                except Exception as e:
                    errors.append(e)

            threads = [threading.Thread(target=http_worker) for _ in range(4)]
            threads += [threading.Thread(target=resp_worker) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(errors, [])
            everything = [int(x) for chunk in results for x in chunk]
            self.assertEqual(len(everything), 8 * 8000)
            self.assertEqual(len(set(everything)), len(everything), "duplicate IDs across clients")
            for chunk in results:
                values = [int(x) for x in chunk]
                self.assertEqual(values, sorted(values), "one client's IDs out of order")


def get_retry(port, held):
    """GET /metrics once a slot is free: one held connection is let go."""
    held[1].close()
    deadline = time.monotonic() + 5
    while True:
        try:
            status, _, body = get(port, "/metrics")
            if status == 200:
                return body
        except (ConnectionError, OSError, http.client.HTTPException):
            pass
        if time.monotonic() > deadline:
            raise AssertionError("no connection slot came free")
        time.sleep(0.05)


def b36(s):
    return int(s, 36)


def as_int_cached(ident):
    return b36(ident)


class Limits(unittest.TestCase):
    def test_max_connections(self):
        # max-connections is each worker's (a process's descriptors): one
        # worker, so that the kernel's choice of worker cannot matter.
        with Server(MINTIDD, args=["--max-connections", "3", "--workers", "1"]) as srv:
            held = [Resp(srv.resp_port)]
            self.addCleanup(held[0].close)
            # The start-up probe's connections closed first: this one is the only client.
            alone = {"connected_clients:1", "http_clients:0"}
            deadline = time.monotonic() + 5
            while not alone <= set(held[0].call("INFO").split()) and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertLessEqual(alone, set(held[0].call("INFO").split()), "the start-up probe counted after 5 s")
            held += [Resp(srv.resp_port) for _ in range(2)]
            for r in held[1:]:
                self.addCleanup(r.close)
            for r in held:
                self.assertEqual(r.call("PING"), "PONG")
            out = http_raw(srv.resp_port, b"PING\r\n", expect_close=True)
            self.assertEqual(out, b"-ERR max number of clients reached\r\n")
            out = http_raw(srv.http_port, b"GET /healthz HTTP/1.1\r\n\r\n", expect_close=True)
            self.assertTrue(out.startswith(b"HTTP/1.1 503"), out)
            self.assertIn("connected_clients:3", held[1].call("INFO"))
            held[0].close()
            deadline = time.monotonic() + 5
            while "connected_clients:2" not in held[1].call("INFO") and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertIn("connected_clients:2", held[1].call("INFO"), "a closed client still counted after 5 s")
            r = Resp(srv.resp_port)
            self.addCleanup(r.close)
            self.assertEqual(r.call("PING"), "PONG")
            metrics = get_retry(srv.http_port, held)
            self.assertRegex(metrics, r'mintid_connections_refused_total\{protocol="resp"\} [1-9]')

    def test_idle_and_slow_clients(self):
        with Server(MINTIDD, args=["--idle-timeout", "1"]) as srv:
            r = Resp(srv.resp_port)
            self.addCleanup(r.close)
            self.assertEqual(r.call("PING"), "PONG")
            # Until the server closes the idle connection (bounded by r's timeout).
            self.assertEqual(r.sock.recv(1), b"", "an idle client was answered, not closed")
            # Closed, not merely silent: a receive timeout is not a ConnectionError.
            with self.assertRaises(ConnectionError):
                r.call("PING")
            # A request trickling in byte by byte is dropped too, while its
            # bytes still come (each well within the idle timeout, so only
            # the limit on an incomplete request can end it). Once the
            # server has closed, a byte sent draws a reset and the next
            # send fails: that is the close, seen without waiting.
            with socket.create_connection(("127.0.0.1", srv.http_port), timeout=10) as s:
                start = time.monotonic()
                closed = False
                for ch in b"GET /healthz HTTP/1.1\r\nX-Slow: " + b"a" * 100:
                    try:
                        s.sendall(bytes([ch]))
                    except ConnectionError:
                        closed = True
                        break
                    time.sleep(0.25)
                    if time.monotonic() - start > 8:
                        break
                self.assertTrue(closed, "a request trickling in was kept open 8 s past a 1 s idle-timeout")


class Lifecycle(unittest.TestCase):
    def test_second_server_refused(self):
        with Server(MINTIDD) as first:
            second = Server(MINTIDD, state_dir=first.state_dir).start(expect_ready=False)
            status, log = second.wait()
            self.assertEqual(status, 1)
            self.assertIn("is in use by another mintidd", log)
            self.assertEqual(get(first.http_port, "/healthz")[0], 200)

    def test_settings_precedence(self):
        with Server(MINTIDD) as tmp:
            path = os.path.join(os.path.dirname(tmp.state_dir), "mintidd.conf")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("# test\nnode = 7   # a comment\nmax-count = 50\t# another\n")
        with Server(MINTIDD, args=["--config", path]) as srv:
            self.assertEqual(json.loads(get(srv.http_port, "/healthz")[2])["node_id"], 7)
            self.assertEqual(get(srv.http_port, "/v1/uexky?count=51")[0], 400)
        with Server(MINTIDD, args=["--config", path], env={"MINTID_NODE": "8"}) as srv:
            self.assertEqual(json.loads(get(srv.http_port, "/healthz")[2])["node_id"], 8)
        with Server(MINTIDD, args=["--config", path, "--node", "9"], env={"MINTID_NODE": "8"}) as srv:
            self.assertEqual(json.loads(get(srv.http_port, "/healthz")[2])["node_id"], 9)
        # A '#' after a blank starts a comment; one inside a value is part of it.
        with open(path, "w") as f:
            f.write("log-level = a#b   # the value is a#b\n")
        srv = Server(MINTIDD, args=["--config", path]).start(expect_ready=False)
        status, log = srv.wait()
        self.assertEqual(status, 2, log)
        self.assertIn("log-level: 'a#b' is not", log)
        # The widest node field is sonyflake's (16 bits); a node id too wide
        # for nanoflake's 10 leaves nanoflake unserved, never wrapped.
        with Server(MINTIDD, args=["--node", "4242"]) as srv:
            status, _, body = get(srv.http_port, "/v1/sonyflake")
            self.assertEqual(status, 200)
            status, _, body = get(srv.http_port, "/v1/sonyflake/" + body.strip())
            self.assertEqual(json.loads(body)["machine"], 4242)
            status, _, body = get(srv.http_port, "/v1/nanoflake")
            self.assertNotEqual(status, 200)
            self.assertIn("node 4242 is out of range: nanoflake's node ids are 0..1023", body)
        for bad, text in [(["--node", "65536"], "node: node 65536 is out of range: node ids are 0..65535"),
                          (["--bogus", "1"], "unknown setting '--bogus'"),
                          (["--id-space", "a/b"], "id-space: 'a/b' is not 1 to 64 letters, digits"),
                          (["--id-space", ""], "id-space: '' is not 1 to 64 letters, digits"),
                          (["--id-space", "x" * 65], "is not 1 to 64 letters, digits"),
                          (["--nanoflake-epoch", "2999-01-01"], "nanoflake-epoch: epoch 32472144000000")]:
            srv = Server(MINTIDD, args=bad).start(expect_ready=False)
            status, log = srv.wait()
            self.assertNotEqual(status, 0, bad)
            self.assertIn(text, log, bad)
            if bad[0] == "--id-space":
                self.assertEqual(status, 2, log)
                self.assertFalse(os.path.exists(srv.state_dir), f"{bad}: the state directory was made")

    def test_settings_speak_with_the_library(self):
        """The node id and the epochs are settings, not a request's words:
        a bad one stops the start (exit status 2, as every setting refused)
        with the library's sentence, whether it came as an option, from the
        environment or from the config file."""
        epoch_soon = ("epoch 'soon' is not a time: give Unix milliseconds or RFC 3339 UTC (2015-01-01T00:00:00Z), "
                      "or one of twitter, discord")
        tmp = tempfile.TemporaryDirectory(prefix="mintidd-test-")
        self.addCleanup(tmp.cleanup)
        conf = os.path.join(tmp.name, "bad-epoch.conf")
        with open(conf, "w") as f:
            f.write("snowflake-epoch = soon\n")
        for args, env, text in [
                (["--snowflake-epoch", "soon"], {}, f"mintidd: snowflake-epoch: {epoch_soon}\n"),
                ([], {"MINTID_SNOWFLAKE_EPOCH": "soon"}, f"mintidd: MINTID_SNOWFLAKE_EPOCH: snowflake-epoch: {epoch_soon}\n"),
                (["--config", conf], {}, f"mintidd: {conf}:1: snowflake-epoch: {epoch_soon}\n"),
                (["--nanoflake-epoch", "2999-01-01"], {},
                 "mintidd: nanoflake-epoch: epoch 32472144000000 (2999-01-01T00:00:00.000Z) is in the future: "
                 "no ID could be minted before it\n"),
                (["--sonyflake-epoch", "-5"], {}, "mintidd: sonyflake-epoch: epoch '-5' is not a time"),
                (["--node", "70000"], {}, "mintidd: node: node 70000 is out of range: node ids are 0..65535\n"),
                ([], {"MINTID_NODE": "70000"},
                 "mintidd: MINTID_NODE: node: node 70000 is out of range: node ids are 0..65535\n")]:
            with self.subTest(args=args, env=env):
                srv = Server(MINTIDD, args=args, env=env).start(expect_ready=False)
                status, log = srv.wait()
                self.assertEqual(status, 2, log)
                self.assertIn(text, log)
        # 1024 is a node id (sonyflake's 16-bit machine id takes it); a
        # format whose field is narrower is not served, never wrapped.
        with Server(MINTIDD, args=["--node", "1024"]) as srv:
            status, _, body = get(srv.http_port, "/v1/nanoflake")
            self.assertEqual((status, body), (404, "nanoflake: nanoflake is not served: node 1024 is out of range: "
                                                   "nanoflake's node ids are 0..1023\n"))

    def test_one_address_for_two_listeners_is_refused_before_a_mark(self):
        """Addresses are bound before the first reservation but listen only
        after it: two settings naming one address are refused at the bind,
        with no mark written for the corrected start to wait for."""
        port = spare_port()
        srv = Server(MINTIDD, args=["--http", f"127.0.0.1:{port}", "--resp", f"127.0.0.1:{port}"])
        status, log = srv.start(expect_ready=False).wait()
        self.assertEqual(status, 1, log)
        self.assertIn("another listener of this server has it", log)
        self.assertNotIn("state", os.listdir(srv.state_dir) if os.path.isdir(srv.state_dir) else [], log)

    def test_refused_start_leaves_the_state_alone(self):
        """A start refused for a setting or a file it cannot load touches no
        state: no directory made, no file changed, and so the corrected start
        has no mark of the refused one to wait for."""
        with Server(MINTIDD) as tmp:
            missing = os.path.join(os.path.dirname(tmp.state_dir), "missing")
        tls_port = f"127.0.0.1:{tmp.http_port}"
        refusals = [(["--http-tls", tls_port], "http-tls and resp-tls need tls-cert and tls-key"),
                    (["--resp-tls", tls_port, "--tls-cert", missing, "--tls-key", missing], missing),
                    (["--auth-file", missing], f"auth-file {missing}")]
        for bad, text in refusals:
            srv = Server(MINTIDD, args=bad).start(expect_ready=False)
            status, log = srv.wait()
            self.assertNotEqual(status, 0, bad)
            self.assertIn(text, log, bad)
            self.assertFalse(os.path.exists(srv.state_dir), f"{bad}: the state directory was made")
        top = tempfile.mkdtemp(prefix="mintidd-test-")
        self.addCleanup(shutil.rmtree, top, True)
        state_dir = os.path.join(top, "state")
        with Server(MINTIDD, state_dir=state_dir) as first:
            self.assertEqual(get(first.http_port, "/v1/nanoflake")[0], 200)

        def read(path):
            with open(path, "rb") as f:
                return f.read()

        def files():
            # With workers, their host-wide generators' files are in a directory of their own in it.
            return {os.path.relpath(os.path.join(d, n), state_dir): read(os.path.join(d, n))
                    for d, _, names in os.walk(state_dir) for n in names}
        before = files()
        for bad, text in refusals:
            status, log = Server(MINTIDD, state_dir=state_dir, args=bad).start(expect_ready=False).wait()
            self.assertNotEqual(status, 0, bad)
            self.assertEqual(files(), before, f"{bad}: the state directory changed")
        with Server(MINTIDD, state_dir=state_dir) as again:
            self.assertEqual(get(again.http_port, "/v1/nanoflake")[0], 200)
        _, log = again.wait()
        self.assertNotIn("behind the mark", log)

    def test_restart_with_clock_set_back(self):
        if NO_FAKETIME:
            self.skipTest("libfaketime and the sanitizers' runtimes do not mix; the plain build runs this")
        if not have_faketime():
            self.fail("libfaketime is not installed (make deps installs it)")
        with Server(MINTIDD) as first:
            before = [as_int_cached(i) for i in get(first.http_port, "/v1/nanoflake?count=1000")[2].split()]
            state_dir = first.state_dir
            # A crash: the mark is the reservation, ahead of the last ID.
            first.kill()
            with open(os.path.join(state_dir, "state")) as f:
                mark = int(re.search(r"mark (\d+)", f.read()).group(1))
            self.assertGreater(mark, (max(before) >> 22) + 1288834974657)
            # The clock 30 s behind: far beyond startup-wait, so it refuses.
            srv = Server(MINTIDD, state_dir=state_dir, faketime="-30s").start(expect_ready=False)
            status, log = srv.wait()
            self.assertEqual(status, 1, log)
            self.assertIn("refusing to start rather than risk a duplicate ID", log)
            # 3 s behind, within a startup-wait of 10 s: it waits, then every
            # new ID is later than every old one.
            with Server(MINTIDD, state_dir=state_dir, faketime="-3s", args=["--startup-wait", "10000"]) as srv:
                after = [as_int_cached(i) for i in get(srv.http_port, "/v1/nanoflake?count=1000")[2].split()]
                self.assertGreater(min(after), max(before))
                self.assertGreater((min(after) >> 22) + 1288834974657, mark)

    def test_clock_stepped_back_after_start(self):
        if NO_FAKETIME:
            self.skipTest("libfaketime and the sanitizers' runtimes do not mix; the plain build runs this")
        if not have_faketime():
            self.fail("libfaketime is not installed (make deps installs it)")
        # The clock steps back after a restart, before the first ID: the
        # server must not reach timestamps the previous run may have issued.
        with Server(MINTIDD) as tmp:
            clock = os.path.join(os.path.dirname(tmp.state_dir), "clock")
            state_dir = tmp.state_dir
        os.makedirs(os.path.dirname(clock), exist_ok=True)
        with open(clock, "w") as f:
            f.write("+600\n")
        with Server(MINTIDD, state_dir=state_dir, faketime_file=clock) as first:
            before = as_int_cached(get(first.http_port, "/v1/nanoflake")[2].strip())
        with open(clock, "w") as f:
            f.write("+601\n")
        with Server(MINTIDD, state_dir=state_dir, faketime_file=clock) as second:
            with open(clock, "w") as f:
                f.write("+0\n")
            status, _, body = get(second.http_port, "/v1/nanoflake")
            self.assertEqual(status, 503, body)
            self.assertIn("behind the state's mark", body)
            with open(clock, "w") as f:
                f.write("+602\n")
            status, _, body = get(second.http_port, "/v1/nanoflake")
            self.assertEqual(status, 200)
            self.assertGreater(as_int_cached(body.strip()), before)
        self.assertGreaterEqual(state_mark(state_dir), (before >> 22) + 1288834974657)

    def test_sigterm_mid_load(self):
        with Server(MINTIDD) as srv:
            got, errors, stop = [], [], threading.Event()

            def load():
                try:
                    with Resp(srv.resp_port) as r:
                        while not stop.is_set():
                            reply = r.call("MINT", "nanoflake", "50")
                            if not isinstance(reply, list):
                                raise AssertionError(f"MINT answered {reply!r}")
                            got.extend(reply)
                except ConnectionError:
                    pass  # the server closed: what was read was acknowledged
                except Exception as e:  # a timeout or a bad reply: reported below
                    errors.append(e)

            threads = [threading.Thread(target=load) for _ in range(4)]
            for t in threads:
                t.start()
            deadline = time.monotonic() + 30  # until the clients hold enough IDs
            while len(got) <= 1000 and not errors and time.monotonic() < deadline:
                time.sleep(0.05)
            status, log = srv.stop(signal.SIGTERM)
            stop.set()
            for t in threads:
                t.join()
            self.assertEqual(errors, [])
            self.assertEqual(status, 0, log)
            self.assertIn("state saved", log)
            values = [as_int_cached(i) for i in got]
            self.assertGreater(len(values), 1000)
            self.assertEqual(len(set(values)), len(values))
            with open(os.path.join(srv.state_dir, "state")) as f:
                text = f.read()
            self.assertRegex(text, r"^mintidd-state 2\nmark \d+\nnode 0\n(format [a-z0-9-]+ epoch=\d+ floor=0 layout=\S+\n)+"
                                   r"check [0-9a-f]{16}\n$")
            mark = state_mark(srv.state_dir)
            self.assertGreaterEqual(mark, (max(values) >> 22) + 1288834974657)
            # A restart carries on above everything acknowledged.
            with Server(MINTIDD, state_dir=srv.state_dir, args=["--startup-wait", "10000"]) as again:
                after = [as_int_cached(i) for i in get(again.http_port, "/v1/nanoflake?count=100")[2].split()]
                self.assertGreater(min(after), max(values))


def main():
    global MINTIDD, MINTID, NO_FAKETIME, FORMATS
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-faketime", action="store_true", help="skip the tests that need libfaketime")
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("--mintid", required=True)
    ap.add_argument("-k", action="append", default=None)
    args, rest = ap.parse_known_args()
    MINTIDD, MINTID = os.path.abspath(args.mintidd), os.path.abspath(args.mintid)
    listing = subprocess.run([MINTID, "formats"], capture_output=True, text=True, check=True).stdout
    FORMATS[:] = [line for line in listing.splitlines() if line[:1].isalpha()]
    NO_FAKETIME = args.no_faketime
    argv = [sys.argv[0], "-v"] + rest
    if args.k:
        for k in args.k:
            argv += ["-k", k]
    unittest.main(argv=argv)


if __name__ == "__main__":
    main()
