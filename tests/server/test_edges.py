# SPDX-License-Identifier: MIT
"""test_edges.py - mintidd at the edges of its protocols and settings: the
Host rule, empty lines before a request, bytes that cannot start a request,
NUL bytes in RESP arguments, misspelt settings, and output that cannot be
written.

Usage: python3 test_edges.py --mintidd PATH --mintid PATH [--no-faketime] [-k PATTERN]

Nothing here measures time. Where an answer must come "at once", the server
is started with an idle timeout far longer than the test's socket timeout,
so an answer that arrives at all arrived because the server decided, not
because it gave up waiting.
"""

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, http_raw  # noqa: E402
from resp_client import Resp, RespError  # noqa: E402

MINTIDD = MINTID = None

# The server waits this long for a stalled request; every socket here gives
# up long before, so no test passes by outlasting it.
IDLE_TIMEOUT = 120
SOCKET_TIMEOUT = 10
MAX_REQUEST = 1024


def status_of(reply):
    """The status code of the first HTTP response in reply, or None."""
    if not reply.startswith(b"HTTP/1.1 "):
        return None
    return int(reply[9:12])


class Edges(unittest.TestCase):
    """One server for the class, with a long idle timeout and a small request limit."""

    @classmethod
    def setUpClass(cls):
        cls.srv = Server(MINTIDD, args=["--idle-timeout", str(IDLE_TIMEOUT),
                                        "--max-request-size", str(MAX_REQUEST)]).start()

    @classmethod
    def tearDownClass(cls):
        try:
            status, log = cls.srv.stop()
        finally:
            cls.srv.__exit__(None, None, None)
        assert status == 0, log

    def http(self, data):
        """Sends data; the server must answer and close before the socket timeout."""
        return http_raw(self.srv.http_port, data, timeout=SOCKET_TIMEOUT, expect_close=True)

    def http_open(self, data):
        """Sends data and reads one response, leaving the connection to the server."""
        with socket.create_connection(("127.0.0.1", self.srv.http_port), timeout=SOCKET_TIMEOUT) as s:
            s.sendall(data)
            reply = b""
            while b"\r\n\r\n" not in reply:
                chunk = s.recv(65536)
                if not chunk:
                    break
                reply += chunk
            return reply


class Host(Edges):
    def test_http11_needs_one_host(self):
        for head in [b"GET /healthz HTTP/1.1\r\n\r\n",
                     b"GET /healthz HTTP/1.1\r\nAccept: */*\r\n\r\n",
                     b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n",
                     b"GET /healthz HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n",
                     b"GET /healthz HTTP/1.0\r\nHost: a\r\nHOST: a\r\n\r\n",
                     b"GET /healthz HTTP/1.1\r\nHost: a/b\r\n\r\n",
                     b"GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n"]:
            out = self.http(head)
            self.assertEqual(status_of(out), 400, (head, out[:80]))
            self.assertIn(b"Host", out, head)
            self.assertIn(b"Connection: close", out, head)

    def test_host_accepted(self):
        for head in [b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                     b"GET /healthz HTTP/1.1\r\nhost:127.0.0.1:8080\r\nConnection: close\r\n\r\n",
                     b"GET /healthz HTTP/1.1\r\nHost: [::1]:80\r\nConnection: close\r\n\r\n",
                     b"GET /healthz HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n",
                     b"GET /healthz HTTP/1.0\r\n\r\n",
                     b"GET /healthz HTTP/1.0\r\nHost: x\r\n\r\n"]:
            out = self.http(head)
            self.assertEqual(status_of(out), 200, (head, out[:120]))


class EmptyLines(Edges):
    def test_empty_lines_before_a_request_are_skipped(self):
        for lead in [b"\r\n", b"\n", b"\r\n\r\n\n", b"\n" * 50]:
            out = self.http(lead + b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            self.assertEqual(status_of(out), 200, (lead, out[:80]))

    def test_empty_lines_between_pipelined_requests(self):
        req = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
        out = self.http(req + b"\r\n" + req + b"\n\n" + b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        self.assertEqual(out.count(b"HTTP/1.1 200 OK"), 3, out[:300])

    def test_empty_lines_count_toward_the_limit(self):
        for blank in [b"\r\n", b"\n"]:
            out = self.http(blank * (MAX_REQUEST // len(blank) + 1))
            self.assertEqual(status_of(out), 431, (blank, out[:80]))
        # Within the limit, they wait for the request like any head does.
        with socket.create_connection(("127.0.0.1", self.srv.http_port), timeout=1) as s:
            s.sendall(b"\r\n" * 10)
            with self.assertRaises(socket.timeout):
                s.recv(100)
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            s.settimeout(SOCKET_TIMEOUT)
            self.assertTrue(s.recv(100).startswith(b"HTTP/1.1 200"))

    def test_lone_cr_is_not_an_empty_line(self):
        out = self.http(b"\rGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        self.assertEqual(status_of(out), 400, out[:80])


class NotHttp(Edges):
    # None of these holds an empty line, so a parser that waits for the end
    # of the head would wait until idle-timeout.
    NOT_HTTP = [
        ("TLS ClientHello", bytes.fromhex("160301020001000001fc0303") + os.urandom(32)),
        ("RESP array", b"*1\r\n$4\r\nPING\r\n"),
        ("RESP inline", b"PING\r\n"),
        ("binary", b"\x00\xff\xfe\x01"),
        ("lowercase method", b"get /healthz HTTP/1.1\r\nHost: x\r\n"),
        ("method not a token", b"GE(T /healthz HTTP/1.1\r\n"),
        ("method then CR", b"GET\r\n"),
        ("no slash", b"GET healthz HTTP/1.1\r\n"),
        ("control in target", b"GET /he\x01althz HTTP/1.1\r\n"),
        ("two spaces", b"GET  /healthz HTTP/1.1\r\n"),
        ("bad version", b"GET /healthz HTTX/1.1\r\n"),
        ("version too long", b"GET /healthz HTTP/1.10\r\n"),
        ("HTTP/0.9", b"GET /healthz\r\n"),
        ("CR inside the request line", b"GET /healthz HTTP/1.1\rX"),
    ]

    def test_refused_at_once(self):
        for name, data in self.NOT_HTTP:
            out = self.http(data)
            self.assertEqual(status_of(out), 400, (name, out[:80]))
            self.assertIn(b"Connection: close", out, name)

    def test_version_refused_at_the_end_of_the_request_line(self):
        out = self.http(b"GET /healthz HTTP/2.0\r\n")
        self.assertEqual(status_of(out), 505, out[:80])

    def test_long_request_line_without_space(self):
        out = self.http(b"GET" * MAX_REQUEST)
        self.assertEqual(status_of(out), 431, out[:80])
        out = self.http(b"GET /" + b"a" * MAX_REQUEST)
        self.assertEqual(status_of(out), 431, out[:80])

    def test_split_anywhere(self):
        # The same bytes sent in two pieces get the same answer, wherever
        # the cut falls: the request line is judged byte by byte.
        head = b"\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        for cut in range(1, len(head)):
            with socket.create_connection(("127.0.0.1", self.srv.http_port), timeout=SOCKET_TIMEOUT) as s:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                s.sendall(head[:cut])
                s.sendall(head[cut:])
                reply = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    reply += chunk
            self.assertEqual(status_of(reply), 200, (cut, reply[:80]))

    def test_still_serving(self):
        self.assertEqual(status_of(self.http_open(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")), 200)


class RespNul(Edges):
    def resp(self):
        r = Resp(self.srv.resp_port, timeout=SOCKET_TIMEOUT)
        self.addCleanup(r.close)
        return r

    def test_nul_in_an_argument_is_refused(self):
        r = self.resp()
        for args in [("MINT", b"nanoflake\x00x"),
                     ("MINT", b"nanoflake\x00"),
                     ("MINT", "nanoflake", b"1\x00"),
                     ("INSPECT", "nanoflake", b"1c49kkphl4ow\x00"),
                     ("INSPECT", b"nanoflake\x00", "1c49kkphl4ow"),
                     ("SELECT", b"0\x00"),
                     ("CONFIG", "GET", b"save\x00")]:
            got = r.call(*args)
            self.assertIsInstance(got, RespError, args)
            self.assertIn("NUL", str(got), args)
            # A valid frame with a bad argument: the connection goes on.
            self.assertEqual(r.call("PING"), "PONG")

    def test_nul_in_an_inline_argument_is_refused(self):
        with socket.create_connection(("127.0.0.1", self.srv.resp_port), timeout=SOCKET_TIMEOUT) as s:
            s.sendall(b"MINT nanoflake\x00x\r\nPING\r\n")
            got = b""
            while got.count(b"\r\n") < 2:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
        self.assertTrue(got.startswith(b"-ERR "), got)
        self.assertIn(b"NUL", got.split(b"\r\n")[0])
        self.assertTrue(got.endswith(b"+PONG\r\n"), got)

    def test_ping_is_binary_safe(self):
        r = self.resp()
        self.assertEqual(r.call("PING", b"a\x00b\xc3\xa9"), "a\x00b\u00e9")
        self.assertEqual(r.call("MINT", "nanoflake").isalnum(), True)


class Settings(unittest.TestCase):
    def start_fails(self, args=(), env=None):
        srv = Server(MINTIDD, args=list(args), env=env).start(expect_ready=False)
        try:
            status, log = srv.wait()
        finally:
            srv.__exit__(None, None, None)
        self.assertNotEqual(status, 0, (args, env, log))
        return log

    def test_unknown_environment_variable(self):
        log = self.start_fails(env={"MINTID_NODDE": "3"})
        self.assertIn("mintidd: MINTID_NODDE: unknown setting; did you mean MINTID_NODE?", log)
        log = self.start_fails(env={"MINTID_MAX_REQUEST_SIZ": "4096"})
        self.assertIn("MINTID_MAX_REQUEST_SIZ: unknown setting; did you mean MINTID_MAX_REQUEST_SIZE?", log)
        # Nothing close: no suggestion.
        log = self.start_fails(env={"MINTID_ZZZZZZZZZZZZZZ": "1"})
        self.assertIn("mintidd: MINTID_ZZZZZZZZZZZZZZ: unknown setting", log)
        self.assertNotIn("did you mean", log)

    def test_config_variable_is_not_a_setting(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "mintidd.conf")
            with open(path, "w") as f:
                f.write("node = 12\n")
            with Server(MINTIDD, env={"MINTID_CONFIG": path, "MINTID_MAX_COUNT": "7"}) as srv:
                out = http_raw(srv.http_port, b"GET /healthz HTTP/1.0\r\n\r\n", timeout=SOCKET_TIMEOUT,
                               expect_close=True)
                self.assertIn(b'"node_id":12', out)

    def test_unknown_file_key(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "mintidd.conf")
            with open(path, "w") as f:
                f.write("# a comment\nnodde = 3\n")
            log = self.start_fails(args=["--config", path])
            self.assertIn(f"mintidd: {path}:2: unknown setting 'nodde'; did you mean 'node'?", log)
            with open(path, "w") as f:
                f.write("zzzzzzzzzzzz = 3\n")
            log = self.start_fails(args=["--config", path])
            self.assertIn(f"mintidd: {path}:1: unknown setting 'zzzzzzzzzzzz'", log)
            self.assertNotIn("did you mean", log)

    def test_unknown_option(self):
        log = self.start_fails(args=["--nodde", "3"])
        self.assertIn("mintidd: unknown setting '--nodde'; did you mean '--node'?", log)
        log = self.start_fails(args=["--idle-timout=5"])
        self.assertIn("unknown setting '--idle-timout=5'; did you mean '--idle-timeout'?", log)
        log = self.start_fails(args=["--zzzzzzzzzzzz", "1"])
        self.assertIn("unknown setting '--zzzzzzzzzzzz'", log)
        self.assertNotIn("did you mean", log)


class Output(unittest.TestCase):
    def test_unwritable_output(self):
        if not os.access("/dev/full", os.W_OK):
            self.fail("/dev/full is not writable; these checks need it")
        for args in (["--help"], ["--version"]):
            with open("/dev/full", "w") as full:
                p = subprocess.run([MINTIDD] + args, stdout=full, stderr=subprocess.PIPE, text=True, timeout=30)
            self.assertNotEqual(p.returncode, 0, args)
            self.assertIn("mintidd: writing standard output:", p.stderr, args)
        # And when it can be written, it is, with status 0.
        p = subprocess.run([MINTIDD, "--version"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0)
        self.assertTrue(p.stdout.startswith("mintidd "))


def main():
    global MINTIDD, MINTID
    ap = argparse.ArgumentParser()
    ap.add_argument("--no-faketime", action="store_true", help="accepted for symmetry; nothing here fakes time")
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("--mintid", required=True)
    ap.add_argument("-k", action="append", default=None)
    args, rest = ap.parse_known_args()
    MINTIDD, MINTID = os.path.abspath(args.mintidd), os.path.abspath(args.mintid)
    argv = [sys.argv[0], "-v"] + rest
    if args.k:
        for k in args.k:
            argv += ["-k", k]
    unittest.main(argv=argv)


if __name__ == "__main__":
    main()
