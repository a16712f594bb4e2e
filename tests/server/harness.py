# SPDX-License-Identifier: MIT
"""harness.py - start and stop a real mintidd on spare loopback ports.

Used by the server black-box tests. Everything runs on 127.0.0.1; each
server gets its own temporary state directory and id-space unless one is
given.
"""

import argparse
import atexit
import base64
import itertools
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request
import weakref


FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"


# What a sanitizer prints when it finds a bug. ThreadSanitizer reports and
# carries on unless told to halt, and a server stopped by SIGKILL or whose
# status a test does not look at would hide even a halt: wait() looks for
# these in the log of every server.
SANITIZER_REPORT = re.compile(
    r"(WARNING|ERROR|FATAL): [A-Za-z]+Sanitizer|SUMMARY: [A-Za-z]+Sanitizer|[A-Za-z]+Sanitizer: CHECK failed|"
    r": runtime error: ")


WORKER_DEATH = re.compile(r"^.*worker \d+ \(pid \d+\) (?:was killed by signal|exited with status|did not stop).*$",
                          re.M)


def children(pid):
    """The pids of a process's children: a supervisor's workers."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(p) for p in f.read().split()]
    except FileNotFoundError:
        return []


def have_faketime():
    return os.path.exists(FAKETIME_LIB)


def set_clock(path, offset_s):
    """Sets the offset a running server's libfaketime reads (Server's
    faketime_file), atomically: with FAKETIME_NO_CACHE it reads the file on
    every clock call."""
    tmp = path + ".new"
    with open(tmp, "w") as f:
        f.write(f"{offset_s:+.3f}\n")
    os.replace(tmp, path)


_ports_given = set()


def spare_port():
    """A port the kernel just handed out and released: free for a moment,
    and never one this process was given before (the kernel may hand the
    same port out twice in a row, and a server's HTTP and RESP ports would
    then be one)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port not in _ports_given:
            _ports_given.add(port)
            return port


# Each server gets an id-space of its own unless a test gives one: servers
# of tests that run at once on this host (ctest -j) may share a node id,
# and the host-wide claim on it would refuse all but the first.
_id_spaces = itertools.count()
_space_of_state_dir = {}

# The host-wide generators of every server this process starts (their
# host-dir, MINTID_HOST_DIR), apart from the host's own /var/tmp: one
# directory per test process, removed when it exits. A server restarted on
# a state directory keeps its id-space, so that it continues the host-wide
# sequence of the server before it, as on a real host.
_host_dir = tempfile.TemporaryDirectory(prefix="mintidd-test-host-")
atexit.register(_host_dir.cleanup)
HOST_DIR = _host_dir.name


class Server:
    """One mintidd process. Use as a context manager, or start()/stop()."""

    def __init__(self, binary, state_dir=None, args=(), env=None, faketime=None, faketime_file=None):
        self.binary = binary
        self.http_port = spare_port()
        self.resp_port = spare_port()
        self._tmp = None
        if state_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="mintidd-test-")
            # Removed by __exit__, or else when this object goes (a test
            # that used start() and stop() may start another server on its
            # state directory meanwhile).
            weakref.finalize(self, self._tmp.cleanup)
            state_dir = os.path.join(self._tmp.name, "state")
        self.state_dir = state_dir
        self.args = list(args)
        self.env = dict(os.environ)
        if state_dir not in _space_of_state_dir:
            _space_of_state_dir[state_dir] = f"test-{os.getpid()}-{next(_id_spaces)}"
        self.env["MINTID_ID_SPACE"] = _space_of_state_dir[state_dir]
        self.env.setdefault("MINTID_HOST_DIR", HOST_DIR)
        # Worker processes: TEST_MINTIDD_WORKERS, which tests/CMakeLists.txt
        # sets (MINTID_TEST_WORKERS: 2 in the plain build, 1 in the
        # sanitizer builds); a test that needs a count passes --workers or
        # MINTID_WORKERS itself.
        self.env["MINTID_WORKERS"] = self.env.pop("TEST_MINTIDD_WORKERS", "1")
        self.env.update(env or {})
        self.faketime = faketime
        self.faketime_file = faketime_file  # a file whose offset ("+600") may change while running
        self.proc = None
        self._drain = None
        self.log = b""
        self.sanitizer_reported = False
        self._deaths_shown = 0

    def command(self):
        cmd = [self.binary, "--http", f"127.0.0.1:{self.http_port}", "--resp", f"127.0.0.1:{self.resp_port}",
               "--state-dir", self.state_dir] + self.args
        if self.faketime_file is not None:
            self.env["FAKETIME_TIMESTAMP_FILE"] = self.faketime_file
            self.faketime = self.faketime or ""
        if self.faketime is not None:
            # libfaketime preloaded into mintidd itself, not through the
            # faketime wrapper, which would not pass signals on. The
            # monotonic clock stays real: libevent's timers and the
            # library's wait limits run on it.
            self.env["LD_PRELOAD"] = FAKETIME_LIB
            if self.faketime:
                self.env["FAKETIME"] = self.faketime
            self.env["FAKETIME_DONT_FAKE_MONOTONIC"] = "1"
            self.env["FAKETIME_NO_CACHE"] = "1"
            # Under AddressSanitizer, its runtime need not come first.
            self.env["ASAN_OPTIONS"] = self.env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"
        return cmd

    @property
    def workers(self):
        """The worker processes this server runs (each logs its own reload)."""
        n = int(self.env.get("MINTID_WORKERS", "1"))
        for i, a in enumerate(self.args[:-1]):
            if a == "--workers":
                n = int(self.args[i + 1])
        return n if n > 0 else len(os.sched_getaffinity(0))

    def wait_log(self, text, count=None, timeout=5):
        """Waits until `text` (bytes) is in the log `count` times (default:
        once per worker, for what each worker logs); True if it came."""
        count = self.workers if count is None else count
        deadline = time.monotonic() + timeout
        while self.log.count(text) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.log.count(text) >= count

    def _read_stderr(self):
        for chunk in iter(lambda: self.proc.stderr.read1(65536), b""):
            self.log += chunk

    def start(self, expect_ready=True, timeout=20):
        """Starts the server; with expect_ready, waits until both ports
        accept, and a server that does not get there is a test failure
        showing its log. Its stderr is read while it runs, into self.log:
        a server that logs a lot must not stall on a full pipe."""
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     env=self.env)
        self._drain = threading.Thread(target=self._read_stderr, daemon=True)
        self._drain.start()
        if not expect_ready:
            return self
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                status, log = self.wait()
                raise AssertionError(f"mintidd did not start (exit status {status}):\n{log}")
            try:
                with socket.create_connection(("127.0.0.1", self.http_port), timeout=1):
                    pass
                with socket.create_connection(("127.0.0.1", self.resp_port), timeout=1):
                    return self
            except OSError:
                time.sleep(0.05)
        self.proc.kill()
        status, log = self.wait()
        raise AssertionError(f"mintidd did not start listening within {timeout} s:\n{log}")

    def wait(self, timeout=30):
        """Waits for the process to end (killing it after `timeout`);
        returns (status, stderr text). Raises AssertionError, once per
        server, if a sanitizer reported in that text: the test fails
        whatever status it expected."""
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        if self._drain is not None:
            self._drain.join(10)
            if not self._drain.is_alive() and self.proc.stderr is not None:
                self.proc.stderr.close()  # read to its end (a worker may hold it open longer)
        log = self.log.decode(errors="replace")
        # A worker that died is worth seeing in any failed test's output
        # (ctest shows it only then), even where the test wanted the death.
        deaths = WORKER_DEATH.findall(log)
        for line in deaths[self._deaths_shown:]:
            sys.stderr.write(f"mintidd on :{self.http_port}: {line}\n")
        self._deaths_shown = len(deaths)
        if not self.sanitizer_reported and SANITIZER_REPORT.search(log):
            self.sanitizer_reported = True
            raise AssertionError(f"mintidd (exit status {self.proc.returncode}) had a sanitizer report:\n{log}")
        return self.proc.returncode, log

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.proc is None or self.proc.poll() is not None:
            return self.wait(timeout) if self.proc else (None, "")
        self.proc.send_signal(sig)
        return self.wait(timeout)

    def kill(self):
        return self.stop(signal.SIGKILL)

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        try:
            status, log = self.stop()
            if exc_type is not None:
                # A failing test shows what its server logged: with
                # workers, the supervisor logs a worker's death there.
                sys.stderr.write(f"--- mintidd log (exit status {status}) ---\n{log}--- end of log ---\n")
        finally:
            if self._tmp is not None:
                self._tmp.cleanup()
        return False


def http_raw(port, data, timeout=5, read_all=True, expect_close=False):
    """Sends raw bytes, returns everything the server answers until it closes (or times out).

    With expect_close, the server must close the connection (an orderly
    close or a reset) within `timeout` seconds: a timeout raises
    AssertionError instead of returning what came so far."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        chunks = []
        try:
            while True:
                b = s.recv(65536)
                if not b:
                    break
                chunks.append(b)
                if not read_all:
                    break
        except ConnectionResetError:
            if not expect_close:
                raise
        except socket.timeout:
            if expect_close:
                raise AssertionError(f"the server did not close the connection within {timeout} s; "
                                     f"it sent {b''.join(chunks)[:200]!r}") from None
        return b"".join(chunks)


class Etcd:
    """An etcd on loopback (one member, or `members`), in a temporary
    directory of its own, started by the tests and stopped by the pids they
    started. kill() and start() take it (or one member) down and up again
    on the same data and ports.

    certs (make_certs' dict): clients speak TLS to it and must present a
    certificate its CA signed (--client-cert-auth). password: authentication
    is enabled, with a user "root" of that password (etcd's own user, whom
    every key is open to); the helpers here authenticate as it."""

    def __init__(self, certs=None, password=None, token_ttl=None, members=1):
        if shutil.which("etcd") is None:
            raise AssertionError("etcd is not installed (make deps installs etcd-server)")
        self.dir = tempfile.mkdtemp(prefix="mintid-etcd-")
        self.certs, self.password, self.token_ttl = certs, None, token_ttl
        self.scheme = "https" if certs else "http"
        # Member i: its client and peer port, and its process.
        self.ports = [(spare_port(), spare_port()) for _ in range(members)]
        self.client, self.peer = self.ports[0]
        self.url = self.member_url(0)
        self.procs = [None] * members
        self.proc = None
        self.start()
        if password is not None:
            self.call("auth/user/add", {"name": "root", "password": password})
            self.call("auth/role/add", {"name": "root"})
            self.call("auth/user/grant", {"user": "root", "role": "root"})
            self.call("auth/enable", {})
            self.password = password

    def member_url(self, i):
        return f"{self.scheme}://127.0.0.1:{self.ports[i][0]}"

    def _context(self):
        if not self.certs:
            return None
        ctx = ssl.create_default_context(cafile=self.certs["ca"])
        ctx.load_cert_chain(self.certs["client_cert"], self.certs["client_key"])
        return ctx

    def start(self, members=None):
        """Starts every member (or those listed) and waits until each says it is healthy."""
        which = range(len(self.ports)) if members is None else members
        for i in which:
            self._launch(i)
        self.proc = self.procs[0]
        deadline = time.monotonic() + 30
        for i in which:
            # A port of a member that was down may have been taken meanwhile
            # as the local end of a client's connection: a member that exits
            # at once is started again, a few times, after a pause.
            relaunches = 3
            while True:
                try:
                    with urllib.request.urlopen(self.member_url(i) + "/health", timeout=1,
                                                context=self._context()) as r:
                        if b"true" in r.read():
                            break
                except OSError:
                    pass
                if self.procs[i].poll() is not None and relaunches > 0 and time.monotonic() < deadline:
                    relaunches -= 1
                    time.sleep(0.5)
                    self._launch(i)
                    self.proc = self.procs[0]
                    continue
                if time.monotonic() > deadline or self.procs[i].poll() is not None:
                    self.stop()
                    raise RuntimeError("etcd did not start")
                time.sleep(0.1)

    def _launch(self, i):
        cluster = ",".join(f"t{j}=http://127.0.0.1:{peer}" for j, (_, peer) in enumerate(self.ports))
        url, peer = self.member_url(i), f"http://127.0.0.1:{self.ports[i][1]}"
        cmd = ["etcd", "--name", f"t{i}", "--data-dir", os.path.join(self.dir, f"data{i}"),
               "--listen-client-urls", url, "--advertise-client-urls", url,
               "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
               "--initial-cluster", cluster, "--log-level", "error"]
        if self.certs:
            cmd += ["--cert-file", self.certs["cert"], "--key-file", self.certs["key"],
                    "--trusted-ca-file", self.certs["ca"], "--client-cert-auth"]
        if self.token_ttl is not None:
            cmd += ["--auth-token-ttl", str(self.token_ttl)]
        self.procs[i] = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def kill(self, member=None):
        """SIGKILL, every member or one, keeping the data for start()."""
        for i, p in enumerate(self.procs):
            if member is None or i == member:
                p.send_signal(signal.SIGKILL)
                p.wait(10)

    def stop(self):
        """Ends the processes (frozen or not) and removes their data."""
        for p in self.procs:
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGCONT)
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def _post(self, path, doc, token=None):
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = token
        live = [i for i, p in enumerate(self.procs) if p is not None and p.poll() is None] or [0]
        req = urllib.request.Request(f"{self.member_url(live[0])}/v3/{path}", data=json.dumps(doc).encode(),
                                     headers=headers)
        with urllib.request.urlopen(req, timeout=5, context=self._context()) as r:
            return json.loads(r.read())

    def call(self, path, doc):
        """POSTs doc to the v3 JSON gateway (path such as "kv/put"); the answer, parsed."""
        token = None
        if self.password is not None:
            token = self._post("auth/authenticate", {"name": "root", "password": self.password})["token"]
        return self._post(path, doc, token)

    def put(self, key, value):
        b64 = lambda s: base64.b64encode(s.encode()).decode()  # noqa: E731
        self.call("kv/put", {"key": b64(key), "value": b64(value)})

    def get(self, key):
        doc = self.call("kv/range", {"key": base64.b64encode(key.encode()).decode()})
        kvs = doc.get("kvs") or []
        return base64.b64decode(kvs[0].get("value", "")).decode() if kvs else None

    def delete_prefix(self, prefix):
        """Deletes every key under prefix, as `etcdctl del --prefix` does."""
        key = prefix.encode()
        end = key[:-1] + bytes([key[-1] + 1])
        self.call("kv/deleterange", {"key": base64.b64encode(key).decode(),
                                     "range_end": base64.b64encode(end).decode()})

    def init(self, prefix, floor=0, node_range="0-0"):
        """Initialises the node space under /prefix as `mintidd init` does,
        unless it is: its marker, with a random cluster id, and the node ids
        of node_range ("LO-HI") without a key or a mark marked released."""
        b64 = lambda s: base64.b64encode(s.encode()).decode()  # noqa: E731
        key = b64(f"/{prefix}/cluster")
        value = f"mintid-cluster {os.urandom(16).hex()} floor {floor}"
        doc = self.call("kv/txn", {"compare": [{"key": key, "target": "CREATE", "result": "EQUAL",
                                                "create_revision": "0"}],
                                   "success": [{"request_put": {"key": key, "value": b64(value)}}]})
        if not doc.get("succeeded"):
            return
        lo, _, hi = node_range.partition("-")
        for n in range(int(lo), int(hi or lo) + 1):
            self.call("kv/txn", {"compare": [{"key": b64(f"/{prefix}/{kind}/{n}"), "target": "CREATE",
                                              "result": "EQUAL", "create_revision": "0"} for kind in ("nodes", "marks")],
                                 "success": [{"request_put": {"key": b64(f"/{prefix}/released/{n}"),
                                                              "value": b64("mintid init")}}]})

    def node_url(self, prefix):
        hosts = ",".join(f"127.0.0.1:{client}" for client, _ in self.ports)
        return f"{'etcds' if self.certs else 'etcd'}://{hosts}/{prefix}"

    def lease_args(self, prefix, node_range, ttl=3, margin=800, extra=(), init=True):
        """mintidd's settings to lease a node id in node_range under prefix,
        initialised first unless init is False."""
        if init:
            self.init(prefix, node_range=node_range)
        return ["--node-lease", self.node_url(prefix), "--node-range", node_range,
                "--lease-ttl", str(ttl), "--lease-margin", str(margin)] + list(extra)


def server_test_args():
    """A server test's command line: --mintidd (the server under test) and
    --no-faketime (skip the tests that preload libfaketime, for the
    sanitizer builds). Returns (the server's absolute path, no_faketime,
    what is left for unittest.main's argv)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("--no-faketime", action="store_true", help="skip the tests that need libfaketime")
    args, rest = ap.parse_known_args()
    return os.path.abspath(args.mintidd), args.no_faketime, [sys.argv[0], "-v"] + rest


class EtcdCase(unittest.TestCase):
    """A test with an etcd of its own; the servers given to track() are
    stopped after it, then the etcd."""

    def setUp(self):
        self.etcd = Etcd()
        self.servers = []

    def tearDown(self):
        for s in self.servers:
            s.stop()
            s.__exit__(None, None, None)
        self.etcd.stop()

    def track(self, srv):
        self.servers.append(srv)
        return srv


def make_certs(directory, server_cn="localhost"):
    """A throwaway CA in `directory`, a server certificate it signed for
    127.0.0.1 and localhost, and a client certificate, made by `openssl req`.
    Returns a dict of their paths: ca, ca_key, cert, key, client_cert,
    client_key. Called again with another server_cn, it replaces the server
    certificate, signed by the same CA (a reload test's new one)."""
    p = {name: os.path.join(directory, name) for name in
         ["ca.crt", "ca.key", "server.crt", "server.key", "client.crt", "client.key"]}

    def openssl(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    if not os.path.exists(p["ca.crt"]):
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", p["ca.key"], "-out", p["ca.crt"],
                "-days", "2", "-subj", "/CN=mintid test CA")
    for name, cn, ext in [("server", server_cn, "subjectAltName=IP:127.0.0.1,DNS:localhost"),
                          ("client", "mintid test client", "extendedKeyUsage=clientAuth")]:
        csr = os.path.join(directory, name + ".csr")
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", p[name + ".key"], "-out", csr,
                "-subj", "/CN=" + cn, "-addext", ext)
        openssl("x509", "-req", "-in", csr, "-CA", p["ca.crt"], "-CAkey", p["ca.key"], "-CAcreateserial",
                "-out", p[name + ".crt"], "-days", "2", "-copy_extensions", "copy")
    return {"ca": p["ca.crt"], "ca_key": p["ca.key"], "cert": p["server.crt"], "key": p["server.key"],
            "client_cert": p["client.crt"], "client_key": p["client.key"]}
