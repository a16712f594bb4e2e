# SPDX-License-Identifier: MIT
"""test_protocol.py - mintidd as a member of the Redis ecosystem, black-box:
HELLO and RESP3, CLIENT, SELECT, ECHO, QUIT, RESET, COMMAND, INFO,
MULTI/EXEC/DISCARD with Redis's error semantics, and authentication
(auth-file; RESP's AUTH, HELLO AUTH, NOAUTH and WRONGPASS; HTTP's Bearer),
with the replies real Redis gives where Redis has one.

Usage: python3 test_protocol.py --mintidd PATH
"""

import argparse
import http.client
import os
import re
import socket
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server  # noqa: E402
from resp_client import Map, Resp, RespError, Set  # noqa: E402

MINTIDD = None

WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled."
NOAUTH = "NOAUTH Authentication required."
SECRETS = ["hunter2", "a second secret"]


def get(port, path, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", path, headers=headers or {})
    r = c.getresponse()
    body = r.read().decode()
    c.close()
    return r.status, dict(r.getheaders()), body


def err(reply):
    """The text of an error reply; fails on anything else."""
    assert isinstance(reply, RespError), f"expected an error, got {reply!r}"
    return str(reply)


class Protocol(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server(MINTIDD).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.__exit__(None, None, None)

    def client(self):
        r = Resp(self.srv.resp_port)
        self.addCleanup(r.close)
        return r

    def test_hello(self):
        r = self.client()
        reply = r.call("HELLO")
        self.assertIsInstance(reply, list)  # RESP2: a flat array of pairs
        fields = dict(zip(reply[::2], reply[1::2]))
        self.assertEqual(list(fields), ["server", "version", "proto", "id", "mode", "role", "modules"])
        self.assertEqual(fields["proto"], 2)
        self.assertEqual((fields["mode"], fields["role"], fields["modules"]), ("standalone", "master", []))
        self.assertEqual(fields["id"], r.call("CLIENT", "ID"))
        three = r.call("HELLO", "3")
        self.assertIsInstance(three, Map)
        self.assertEqual(three["proto"], 3)
        # RESP3 types where they differ: null, maps; the rest as in RESP2.
        self.assertIsNone(r.call("CLIENT", "GETNAME"))
        r.send("CLIENT", "GETNAME")
        self.assertEqual(r._line(), b"_")
        self.assertEqual(r.call("CONFIG", "GET", "appendonly"), {"appendonly": "no"})
        self.assertIsInstance(r.call("CONFIG", "GET", "appendonly"), Map)
        self.assertEqual(len(r.call("MINT", "nanoflake", 3)), 3)
        self.assertEqual(r.call("HELLO", "2")[5], 2)
        r.send("CLIENT", "GETNAME")
        self.assertEqual(r._line(), b"$-1")

    def test_hello_errors_change_nothing(self):
        r = self.client()
        self.assertEqual(err(r.call("HELLO", "4")), "NOPROTO unsupported protocol version")
        self.assertEqual(err(r.call("HELLO", "1")), "NOPROTO unsupported protocol version")
        self.assertEqual(err(r.call("HELLO", "x")), "ERR Protocol version is not an integer or out of range")
        self.assertEqual(err(r.call("HELLO", "3", "FOO")), "ERR Syntax error in HELLO option 'FOO'")
        self.assertEqual(err(r.call("HELLO", "3", "SETNAME")), "ERR Syntax error in HELLO option 'SETNAME'")
        self.assertEqual(err(r.call("HELLO", "3", "SETNAME", "a b")),
                         "ERR Client names cannot contain spaces, newlines or special characters.")
        # None of those switched to RESP3 or named the client.
        r.send("CLIENT", "GETNAME")
        self.assertEqual(r._line(), b"$-1")
        reply = r.call("HELLO", "3", "SETNAME", "minter", "AUTH", "default", "anything")
        self.assertEqual(reply["proto"], 3)
        self.assertEqual(r.call("CLIENT", "GETNAME"), "minter")

    def test_client(self):
        r = self.client()
        other = self.client()
        self.assertNotEqual(r.call("CLIENT", "ID"), other.call("CLIENT", "ID"))
        self.assertEqual(r.call("CLIENT", "SETNAME", "svc-a"), "OK")
        self.assertEqual(r.call("CLIENT", "GETNAME"), "svc-a")
        self.assertEqual(r.call("CLIENT", "SETINFO", "LIB-NAME", "mylib"), "OK")
        self.assertEqual(r.call("CLIENT", "SETINFO", "lib-ver", "1.2.3"), "OK")
        info = r.call("CLIENT", "INFO")
        self.assertRegex(info, r"^id=\d+ addr=127\.0\.0\.1:\d+ laddr=127\.0\.0\.1:\d+ fd=\d+ name=svc-a db=0 "
                               r"multi=-1 resp=2 lib-name=mylib lib-ver=1\.2\.3\n$")
        self.assertIn("name=svc-a", r.call("CLIENT", "LIST"))
        for args, message in [
                (("SETNAME", "a b"), "ERR Client names cannot contain spaces, newlines or special characters."),
                (("SETINFO", "LIB-NAME", "a\nb"), "ERR lib-name cannot contain spaces, newlines or special "
                                                  "characters."),
                (("SETINFO", "FOO", "x"), "ERR Unrecognized option 'FOO'"),
                (("SETINFO", "LIB-VER"), "ERR wrong number of arguments for 'client|setinfo' command"),
                (("SETNAME", "x" * 65), "ERR Client names are at most 64 bytes here"),
                (("KILL", "x"), "ERR unknown subcommand 'KILL'. Try CLIENT HELP.")]:
            self.assertEqual(err(r.call("CLIENT", *args)), message)
        self.assertEqual(r.call("CLIENT", "GETNAME"), "svc-a")  # refused names changed nothing
        self.assertIn("lib-name=mylib lib-ver=1.2.3", r.call("CLIENT", "INFO"))
        self.assertEqual(r.call("CLIENT", "SETNAME", ""), "OK")
        self.assertIsNone(r.call("CLIENT", "GETNAME"))
        # node-redis's handshake; an error would be tolerated, Redis 8 says OK.
        self.assertEqual(r.call("CLIENT", "MAINT_NOTIFICATIONS", "ON", "moving-endpoint-type", "internal-ip"), "OK")
        self.assertEqual(err(r.call("CLIENT", "MAINT_NOTIFICATIONS", "MAYBE")),
                         "ERR wrong number of arguments for 'client|maint_notifications' command")

    def test_small_commands(self):
        r = self.client()
        r.send("ECHO", b"any \x00 byte")
        self.assertEqual(r._line() + r._line(), b"$10any \x00 byte")
        self.assertEqual(r.call("ECHO", "hello world"), "hello world")
        self.assertEqual(err(r.call("ECHO")), "ERR wrong number of arguments for 'echo' command")
        self.assertEqual(r.call("SELECT", "0"), "OK")
        self.assertEqual(err(r.call("SELECT", "1")), "ERR DB index is out of range")
        self.assertEqual(err(r.call("SELECT", "x")), "ERR value is not an integer or out of range")
        self.assertEqual(err(r.call("SELECT", "-1")), "ERR value is not an integer or out of range")

    def test_command(self):
        r = self.client()
        every = r.call("COMMAND")
        names = [c[0] for c in every]
        for name in ["mint", "inspect", "range", "hello", "auth", "client", "multi", "exec", "discard"]:
            self.assertIn(name, names)
        self.assertEqual(r.call("COMMAND", "COUNT"), len(every))
        self.assertEqual(sorted(r.call("COMMAND", "LIST")), sorted(names))
        mint, missing = r.call("COMMAND", "INFO", "MINT", "nosuch")
        self.assertEqual(mint[:6], ["mint", -2, ["fast"], 0, 0, 0])
        self.assertIsNone(missing)
        self.assertEqual(r.call("COMMAND", "INFO", "echo")[0][1], 2)
        self.assertEqual(r.call("COMMAND", "DOCS"), [])
        self.assertEqual(err(r.call("COMMAND", "FOO")), "ERR unknown subcommand 'FOO'. Try COMMAND HELP.")
        r.call("HELLO", "3")
        self.assertEqual(r.call("COMMAND", "DOCS"), {})
        self.assertIsInstance(r.call("COMMAND", "INFO", "ping")[0][2], Set)

    def test_info(self):
        r = self.client()
        everything = r.call("INFO")
        self.assertIn("loading:0\r\n", everything)  # what ioredis waits for
        self.assertEqual(r.call("INFO", "persistence"), "# Persistence\r\nloading:0\r\n")
        two = r.call("INFO", "SERVER", "clients")
        self.assertEqual(re.findall(r"^# (\w+)", two, re.M), ["Server", "Clients"])
        sections = re.findall(r"^# (\w+)", everything, re.M)
        self.assertIn("Persistence", sections)
        self.assertEqual(re.findall(r"^# (\w+)", r.call("INFO", "all"), re.M), sections)
        self.assertEqual(re.findall(r"^# (\w+)", r.call("INFO", "default"), re.M), sections)
        self.assertEqual(r.call("INFO", "nosuchsection"), "")

    def test_quit_and_reset(self):
        r = self.client()
        r.call("HELLO", "3", "SETNAME", "n")
        r.call("MULTI")
        r.call("MINT", "nanoflake")
        self.assertEqual(r.call("RESET"), "RESET")
        self.assertIsInstance(r.call("MINT", "nanoflake"), str)  # not queued: the MULTI is gone
        r.send("CLIENT", "GETNAME")
        self.assertEqual(r._line(), b"$-1")  # RESP2 again, no name
        self.assertEqual(r.call("QUIT"), "OK")
        self.assertRaises(ConnectionError, r.read)

    def test_multi_exec(self):
        r = self.client()
        self.assertEqual(r.call("MULTI"), "OK")
        self.assertEqual(r.call("MINT", "scru160"), "QUEUED")
        self.assertEqual(r.call("MINT", "nanoflake", 3), "QUEUED")
        self.assertEqual(r.call("PING"), "QUEUED")
        self.assertEqual(r.call("MINT", "nosuch"), "QUEUED")  # a run-time error: in EXEC's answer
        self.assertEqual(r.call("INSPECT", "nanoflake", "1c49kkphl4ow"), "QUEUED")
        one, three, pong, bad, doc = r.call("EXEC")
        self.assertEqual(len(one), 32)
        self.assertEqual(len(three), 3)
        self.assertEqual(pong, "PONG")
        self.assertTrue(err(bad).startswith("ERR unknown format 'nosuch'"))
        self.assertIn('"text":"1c49kkphl4ow"', doc)
        self.assertEqual(r.call("MULTI"), "OK")
        self.assertEqual(r.call("EXEC"), [])
        self.assertEqual(err(r.call("EXEC")), "ERR EXEC without MULTI")
        self.assertEqual(err(r.call("DISCARD")), "ERR DISCARD without MULTI")
        # DISCARD drops the queue.
        r.call("MULTI")
        r.call("MINT", "nanoflake")
        self.assertEqual(r.call("DISCARD"), "OK")
        self.assertIsInstance(r.call("MINT", "nanoflake"), str)
        # A nested MULTI is refused and leaves the transaction open, as in Redis.
        r.call("MULTI")
        self.assertEqual(err(r.call("MULTI")), "ERR MULTI calls can not be nested")
        r.call("PING")
        self.assertEqual(r.call("EXEC"), ["PONG"])

    def test_execabort(self):
        r = self.client()
        for bad in [("NOSUCH", "x"), ("MINT",), ("INSPECT",)]:
            r.call("MULTI")
            self.assertEqual(r.call("MINT", "nanoflake"), "QUEUED")
            self.assertTrue(err(r.call(*bad)).startswith("ERR "))
            self.assertEqual(r.call("MINT", "nanoflake"), "QUEUED")  # still queuing
            self.assertEqual(err(r.call("EXEC")), "EXECABORT Transaction discarded because of previous errors.")
            self.assertEqual(err(r.call("EXEC")), "ERR EXEC without MULTI")

    def test_exec_pipelined_and_large(self):
        """A transaction sent at once, with a batch larger than one slice, then more requests after EXEC."""
        r = self.client()
        r.send("MULTI")
        for _ in range(3):
            r.send("MINT", "ulid-flake", 5000)
        r.send("EXEC")
        r.send("PING", "after")
        self.assertEqual(r.read(), "OK")
        self.assertEqual([r.read() for _ in range(3)], ["QUEUED"] * 3)
        batches = r.read()
        ids = [i for b in batches for i in b]
        self.assertEqual(len(ids), 15000)
        self.assertEqual(ids, sorted(ids))
        self.assertEqual(len(set(ids)), 15000)
        self.assertEqual(r.read(), "after")

    def test_multi_bound(self):
        r = self.client()
        r.call("MULTI")
        r.sock.sendall(b"*1\r\n$4\r\nPING\r\n" * 1000)
        self.assertEqual([r.read() for _ in range(1000)], ["QUEUED"] * 1000)
        self.assertEqual(err(r.call("PING")), "ERR a transaction holds at most 1000 commands")
        self.assertEqual(err(r.call("EXEC")), "EXECABORT Transaction discarded because of previous errors.")


class Auth(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory(prefix="mintidd-auth-")
        cls.file = os.path.join(cls.dir.name, "secrets")
        with open(cls.file, "w") as f:
            f.write(SECRETS[0] + "\r\n\n" + SECRETS[1] + "\n")
        os.chmod(cls.file, 0o600)
        cls.srv = Server(MINTIDD, env={"MINTID_AUTH_FILE": cls.file}).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.__exit__(None, None, None)
        cls.dir.cleanup()

    def client(self):
        r = Resp(self.srv.resp_port)
        self.addCleanup(r.close)
        return r

    def metric(self, proto):
        status, _, body = get(self.srv.http_port, "/metrics", {"Authorization": "Bearer " + SECRETS[0]})
        self.assertEqual(status, 200)
        return int(re.search(r'^mintid_auth_failures_total\{protocol="%s"\} (\d+)$' % proto, body, re.M)[1])

    def test_noauth(self):
        r = self.client()
        for cmd in [("PING",), ("MINT", "nanoflake"), ("CLIENT", "ID"), ("MULTI",), ("INFO",), ("NOSUCH",),
                    ("SELECT", "0")]:
            self.assertEqual(err(r.call(*cmd)), NOAUTH, cmd)
        self.assertTrue(err(r.call("HELLO", "3")).startswith("NOAUTH HELLO must be called with the client already "
                                                             "authenticated"))
        r.send("CLIENT", "ID")  # HELLO 3 refused: still RESP2
        self.assertEqual(r._line(), b"-" + NOAUTH.encode())
        self.assertEqual(r.call("RESET"), "RESET")
        self.assertEqual(r.call("QUIT"), "OK")

    def test_auth_forms(self):
        for args in [("AUTH", SECRETS[0]), ("AUTH", "default", SECRETS[1]), ("AUTH", "DEFAULT", SECRETS[0])]:
            r = self.client()
            self.assertEqual(r.call(*args), "OK")
            self.assertEqual(len(r.call("MINT", "nanoflake", 2)), 2)
        r = self.client()
        hello = r.call("HELLO", "3", "AUTH", "default", SECRETS[0], "SETNAME", "me")
        self.assertEqual((hello["proto"], r.call("CLIENT", "GETNAME")), (3, "me"))
        # RESET signs out.
        self.assertEqual(r.call("RESET"), "RESET")
        self.assertEqual(err(r.call("PING")), NOAUTH)

    def test_wrongpass(self):
        before = self.metric("resp")
        r = self.client()
        for args in [("AUTH", "nope"), ("AUTH", "default", SECRETS[0] + " "), ("AUTH", "someone", SECRETS[0])]:
            self.assertEqual(err(r.call(*args)), WRONGPASS, args)
        self.assertEqual(self.metric("resp"), before + 3)
        # A HELLO with a wrong secret changes nothing: still RESP2, no name.
        r2 = self.client()
        self.assertEqual(err(r2.call("HELLO", "3", "AUTH", "default", "nope", "SETNAME", "x")), WRONGPASS)
        r2.send("PING")
        self.assertEqual(r2._line(), b"-" + NOAUTH.encode())
        self.assertEqual(r2.call("AUTH", SECRETS[0]), "OK")
        self.assertIsNone(r2.call("CLIENT", "GETNAME"))
        r2.send("CLIENT", "GETNAME")
        self.assertEqual(r2._line(), b"$-1")

    def test_rate_limit(self):
        r = self.client()
        for _ in range(3):
            self.assertEqual(err(r.call("AUTH", "nope")), WRONGPASS)
        # Now even the right secret is refused unchecked for a while...
        message = err(r.call("AUTH", SECRETS[0]))
        self.assertRegex(message, r"^ERR too many wrong secrets on this connection; try again in \d+ ms$")
        wait_ms = int(re.search(r"(\d+) ms", message)[1])
        self.assertEqual(err(r.call("PING")), NOAUTH)
        time.sleep(wait_ms / 1000 + 0.05)
        # ...and accepted after it.
        self.assertEqual(r.call("AUTH", SECRETS[0]), "OK")
        # Another connection was never slowed.
        self.assertEqual(self.client().call("AUTH", SECRETS[1]), "OK")

    def test_closed_after_max_failures(self):
        r = self.client()
        failures = 0
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                reply = r.call("AUTH", "nope")
            except ConnectionError:
                break
            if err(reply) == WRONGPASS:
                failures += 1
            else:
                time.sleep(int(re.search(r"(\d+) ms", str(reply))[1]) / 1000 + 0.01)
        else:
            self.fail("the connection was not closed")
        self.assertEqual(failures, 10)

    def test_secrets_not_logged_or_exposed(self):
        status, _, metrics = get(self.srv.http_port, "/metrics", {"Authorization": "Bearer " + SECRETS[1]})
        info = self.client()
        info.call("AUTH", SECRETS[0])
        text = metrics + info.call("INFO") + info.call("CLIENT", "LIST")
        for s in SECRETS:
            self.assertNotIn(s, text)
            self.assertNotIn(s, self.srv.log.decode(errors="replace"))
            self.assertNotIn(s, " ".join(self.srv.command()))

    def test_http_bearer(self):
        port = self.srv.http_port
        before = self.metric("http")
        status, headers, body = get(port, "/v1/nanoflake")
        self.assertEqual((status, headers.get("WWW-Authenticate")), (401, 'Bearer realm="mintidd"'))
        self.assertEqual(body, "this server needs 'Authorization: Bearer <secret>'\n")
        for path in ["/metrics", "/v1/formats", "/v1/nanoflake/1c49kkphl4ow", "/nosuch"]:
            self.assertEqual(get(port, path)[0], 401, path)
        self.assertEqual(get(port, "/v1/nanoflake", {"Authorization": "Bearer nope"})[0], 401)
        self.assertEqual(get(port, "/v1/nanoflake", {"Authorization": "Basic " + SECRETS[0]})[0], 401)
        self.assertEqual(get(port, "/healthz")[0], 200)
        for s in SECRETS:
            status, _, body = get(port, "/v1/nanoflake?count=2", {"Authorization": "Bearer " + s})
            self.assertEqual((status, len(body.split())), (200, 2))
        self.assertEqual(get(port, "/v1/nanoflake", {"Authorization": "bearer " + SECRETS[0]})[0], 200)
        self.assertEqual(self.metric("http"), before + 7)
        # Two Authorization headers are a malformed request.
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"GET /v1/nanoflake HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer hunter2\r\n"
                      b"Authorization: Bearer hunter2\r\n\r\n")
            self.assertTrue(s.recv(4096).startswith(b"HTTP/1.1 400 "))

    def test_http_rate_limit(self):
        c = http.client.HTTPConnection("127.0.0.1", self.srv.http_port, timeout=10)
        self.addCleanup(c.close)
        statuses = []
        for _ in range(4):
            c.request("GET", "/v1/nanoflake", headers={"Authorization": "Bearer nope"})
            r = c.getresponse()
            r.read()
            statuses.append(r.status)
        self.assertEqual(statuses, [401, 401, 401, 429])


class AuthFileErrors(unittest.TestCase):
    def start_fails(self, content):
        with tempfile.TemporaryDirectory(prefix="mintidd-auth-") as d:
            path = os.path.join(d, "secrets")
            if content is not None:
                with open(path, "wb") as f:
                    f.write(content)
            srv = Server(MINTIDD, args=["--auth-file", path]).start(expect_ready=False)
            status, log = srv.wait(30)
            srv.__exit__(None, None, None)
            self.assertNotEqual(status, 0)
            return log

    def test_bad_files(self):
        self.assertIn("No such file", self.start_fails(None))
        self.assertIn("holds no secret", self.start_fails(b"\n\r\n"))
        self.assertIn("line 2 has a NUL byte", self.start_fails(b"ok\nbad\x00secret\n"))
        log = self.start_fails(b"ok\n" + b"x" * 2000 + b"\n")
        self.assertIn("line 2 is longer than 1024 bytes", log)
        self.assertNotIn("xxxx", log)


def main():
    global MINTIDD
    ap = argparse.ArgumentParser()
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("--no-faketime", action="store_true", help="accepted for symmetry; nothing here needs it")
    args, rest = ap.parse_known_args()
    MINTIDD = os.path.abspath(args.mintidd)
    unittest.main(argv=[sys.argv[0], "-v"] + rest)


if __name__ == "__main__":
    main()
