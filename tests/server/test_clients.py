# SPDX-License-Identifier: MIT
"""test_clients.py - the client matrix: real Redis clients and HTTP clients,
with their defaults, against a real mintidd, without and with a secret.

Each client connects, mints one ID and a batch, 100 more in a pipeline,
and asks for an unknown format (an error, not a hang):
- node-redis (`redis` on npm) and ioredis, at the versions
  tests/clients/package-lock.json pins (make deps runs npm ci);
- redis-py from Debian's python3-redis;
- hiredis, tests/clients/hiredis_client.c built against libhiredis-dev;
- redis-cli and redis-benchmark (redis-tools);
- curl and Node's built-in fetch for HTTP.
The scripts under tests/clients/ print what they got as one JSON object.

Usage: python3 test_clients.py --mintidd PATH --hiredis-client PATH
"""

import argparse
import contextlib
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, make_certs, spare_port  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CLIENTS = os.path.join(os.path.dirname(HERE), "clients")
MINTIDD = HIREDIS_CLIENT = None
SECRET = "correct horse battery staple"
TIMEOUT = 60
UNKNOWN = "unknown format 'no-such-format'"


def redis_py_python():
    """An interpreter that has redis-py: this one, or Debian's, where python3-redis installs it."""
    for python in [sys.executable, shutil.which("python3", path="/usr/bin")]:
        if python and subprocess.run([python, "-c", "import redis"], capture_output=True).returncode == 0:
            return python
    raise AssertionError("redis-py is not installed (make deps installs python3-redis)")


def node_modules():
    if not os.path.isdir(os.path.join(CLIENTS, "node_modules", "ioredis")):
        raise AssertionError("tests/clients/node_modules is missing (make deps runs npm ci there)")


class Matrix:
    """The tests, run against a server without (Plain) and with (Secret) an auth-file."""

    secret = None
    tls = False

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="mintid-clients-")
        env, args = {}, []
        if cls.tls:
            cls.certs = make_certs(cls.tmp.name)
            cls.https_port, cls.resp_tls_port = spare_port(), spare_port()
            args = ["--http-tls", f"127.0.0.1:{cls.https_port}", "--resp-tls", f"127.0.0.1:{cls.resp_tls_port}",
                    "--tls-cert", cls.certs["cert"], "--tls-key", cls.certs["key"]]
        if cls.secret is not None:
            path = os.path.join(cls.tmp.name, "secrets")
            with open(path, "w") as f:
                f.write(cls.secret + "\n")
            os.chmod(path, 0o600)
            env["MINTID_AUTH_FILE"] = path
        cls.srv = Server(MINTIDD, env=env, args=args).start()

    @classmethod
    def tearDownClass(cls):
        cls.srv.__exit__(None, None, None)
        cls.tmp.cleanup()

    def resp_port(self):
        return self.resp_tls_port if self.tls else self.srv.resp_port

    def http_port(self):
        return self.https_port if self.tls else self.srv.http_port

    def env(self):
        env = dict(os.environ, MINTID_RESP_PORT=str(self.resp_port()), MINTID_HTTP_PORT=str(self.http_port()))
        for name in ["MINTID_SECRET", "REDISCLI_AUTH", "MINTID_TLS_CA", "NODE_EXTRA_CA_CERTS"]:
            env.pop(name, None)
        if self.tls:
            env["MINTID_TLS_CA"] = env["NODE_EXTRA_CA_CERTS"] = self.certs["ca"]
        if self.secret is not None:
            # Secrets go to the clients through the environment, never their command lines.
            env["MINTID_SECRET"] = env["REDISCLI_AUTH"] = self.secret
        return env

    def run_client(self, *cmd, stdin=None):
        p = subprocess.run(list(cmd), input=stdin, capture_output=True, text=True, timeout=TIMEOUT, env=self.env(),
                           cwd=CLIENTS)
        self.assertEqual(p.returncode, 0, f"{cmd} failed:\n{p.stderr}")
        return p.stdout

    def resp_errors(self):
        c = http.client.HTTPConnection("127.0.0.1", self.srv.http_port, timeout=10)
        c.request("GET", "/metrics", headers={"Authorization": f"Bearer {self.secret}"} if self.secret else {})
        body = c.getresponse().read().decode()
        c.close()
        return int(re.search(r'^mintid_errors_total\{protocol="resp"\} (\d+)$', body, re.M)[1])

    @contextlib.contextmanager
    def resp_errors_added(self, n):
        """Everything the client sent on its own (its handshake, housekeeping)
        was answered without an error: the only errors are the n asked for."""
        before = self.resp_errors()
        yield
        self.assertEqual(self.resp_errors() - before, n)

    def check(self, out, ordered=True, tx=True):
        d = json.loads(out)
        self.assertRegex(d["one"], r"^[0-9a-z]{12}$")
        self.assertEqual(len(d["batch"]), 5)
        self.assertEqual(d["batch"], sorted(set(d["batch"])))
        self.assertEqual(len(d["many"]), 100)
        self.assertTrue(all(re.fullmatch(r"[0-9A-V]{32}", i) for i in d["many"]), d["many"][:3])
        # One server's IDs of a format increase: a pipeline's come back in order.
        self.assertEqual(d["many"] if ordered else sorted(d["many"]), sorted(set(d["many"])))
        if tx:
            flat = [i for x in d["tx"] for i in (x if isinstance(x, list) else [x])]
            self.assertEqual(len(flat), 3)
            self.assertEqual(flat, sorted(set(flat)))
        self.assertIn(UNKNOWN, d["error"])
        return d

    def test_node_redis(self):
        node_modules()
        with self.resp_errors_added(1):
            self.check(self.run_client("node", "node_redis.mjs"))

    def test_ioredis(self):
        node_modules()
        with self.resp_errors_added(1):
            self.check(self.run_client("node", "ioredis.mjs"))

    def test_redis_py(self):
        with self.resp_errors_added(1):
            self.check(self.run_client(redis_py_python(), "redis_py.py"))

    def test_hiredis(self):
        with self.resp_errors_added(1):
            self.check(self.run_client(HIREDIS_CLIENT, str(self.resp_port())), tx=False)

    def test_redis_cli(self):
        cli = ["redis-cli", "-p", str(self.resp_port())] + self.cli_tls()
        self.assertRegex(self.run_client(*cli, "MINT", "nanoflake"), r"^[0-9a-z]{12}\n$")
        self.assertEqual(len(self.run_client(*cli, "MINT", "nanoflake", "5").split()), 5)
        many = self.run_client(*cli, stdin="MINT scru160\n" * 100).split()
        self.assertEqual(len(many), 100)
        self.assertEqual(many, sorted(set(many)))
        with self.resp_errors_added(1):
            self.assertIn(UNKNOWN, self.run_client(*cli, "MINT", "no-such-format"))

    def test_redis_benchmark(self):
        bench = ["redis-benchmark", "-p", str(self.resp_port()), "-n", "2000", "-c", "4", "-P", "100", "-q"]
        bench += self.cli_tls()
        if self.secret is not None:
            bench += ["-a", self.secret]  # redis-benchmark takes no secret from the environment
        with self.resp_errors_added(0):
            out = self.run_client(*bench, "MINT", "nanoflake")
        self.assertRegex(out, r"MINT nanoflake: [\d.]+ requests per second")
        self.assertNotIn("ERR", out)

    def test_curl(self):
        base = f"{'https' if self.tls else 'http'}://127.0.0.1:{self.http_port()}"
        headers = os.path.join(self.tmp.name, "headers")
        with open(headers, "w") as f:
            f.write(f"Authorization: Bearer {self.secret}\n" if self.secret is not None else "")
        curl = ["curl", "-sS", "-H", "@" + headers] + (["--cacert", self.certs["ca"]] if self.tls else [])
        self.assertRegex(self.run_client(*curl, "-f", base + "/v1/nanoflake"), r"^[0-9a-z]{12}\n$")
        batch = json.loads(self.run_client(*curl, "-f", "-H", "Accept: application/json",
                                           base + "/v1/nanoflake?count=5"))["ids"]
        self.assertEqual(batch, sorted(set(batch)))
        # 100 requests over one kept-alive connection.
        many = self.run_client(*curl, "-f", *[base + "/v1/scru160"] * 100).split()
        self.assertEqual(len(many), 100)
        self.assertEqual(many, sorted(set(many)))
        out = self.run_client(*curl, "-w", "%{http_code}", base + "/v1/no-such-format")
        self.assertTrue(out.startswith(UNKNOWN) and out.endswith("404"), out)

    def cli_tls(self):
        """redis-cli's and redis-benchmark's TLS arguments."""
        return ["--tls", "--cacert", self.certs["ca"]] if self.tls else []

    def test_node_fetch(self):
        self.check(self.run_client("node", "node_fetch.mjs"), ordered=False, tx=False)


class Plain(Matrix, unittest.TestCase):
    pass


class Secret(Matrix, unittest.TestCase):
    secret = SECRET

    def test_without_the_secret(self):
        """The same clients, without the secret, are refused: each says so rather than hanging."""
        env = dict(os.environ, MINTID_RESP_PORT=str(self.srv.resp_port), MINTID_HTTP_PORT=str(self.srv.http_port))
        env.pop("MINTID_SECRET", None)
        env.pop("REDISCLI_AUTH", None)
        cli = subprocess.run(["redis-cli", "-p", str(self.srv.resp_port), "MINT", "nanoflake"], capture_output=True,
                             text=True, timeout=TIMEOUT, env=env)
        self.assertIn("NOAUTH Authentication required.", cli.stdout + cli.stderr)
        for cmd in [["node", "ioredis.mjs"], ["node", "node_fetch.mjs"], [redis_py_python(), "redis_py.py"],
                    [HIREDIS_CLIENT, str(self.srv.resp_port)]]:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT, env=env, cwd=CLIENTS)
            self.assertNotEqual(p.returncode, 0, cmd)
            self.assertRegex(p.stderr + p.stdout, r"NOAUTH|401|AuthenticationError: Authentication required", cmd)
        env["MINTID_SECRET"] = "not it"
        p = subprocess.run(["node", "node_redis.mjs"], capture_output=True, text=True, timeout=TIMEOUT, env=env,
                           cwd=CLIENTS)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("WRONGPASS", p.stderr)


class TlsWithSecret(Matrix, unittest.TestCase):
    """Every client over TLS (mintidd's --resp-tls and --http-tls), with a secret."""
    secret = SECRET
    tls = True
    # Debian 12's libhiredis-dev is hiredis 0.14, which has no TLS
    # (hiredis_ssl came with 1.0): the C client is matrixed in plain TCP only.
    test_hiredis = None


def main():
    global MINTIDD, HIREDIS_CLIENT
    ap = argparse.ArgumentParser()
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("--hiredis-client", required=True)
    ap.add_argument("--no-faketime", action="store_true", help="accepted for symmetry; nothing here needs it")
    args, rest = ap.parse_known_args()
    MINTIDD, HIREDIS_CLIENT = os.path.abspath(args.mintidd), os.path.abspath(args.hiredis_client)
    unittest.main(argv=[sys.argv[0], "-v"] + rest)


if __name__ == "__main__":
    main()
