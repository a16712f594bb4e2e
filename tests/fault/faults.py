# SPDX-License-Identifier: MIT
"""faults.py - what the fault scenarios share: options, decoders written
from docs/formats/, clients that keep every ID they are given, the checks
made on those IDs, and the faults themselves (a real etcd that can be
killed, a tmpfs that can be filled, a server that cannot override file
permissions although it runs as root).

The servers come from tests/server/harness.py; everything listens on
127.0.0.1 spare ports and every process is stopped by the pid this suite
started.
"""

import argparse
import collections
import errno
import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "server"))
from harness import Etcd, Server, children, have_faketime, set_clock, spare_port  # noqa: E402
from resp_client import Resp, RespError  # noqa: E402


class Options:
    mintidd = None
    mintid = None
    no_faketime = False  # sanitizer builds: libfaketime cannot be preloaded
    sanitized = False  # sanitizer builds: skip what is too slow or measures memory
    long = False  # `make soak`: more rounds, longer load


OPT = Options()


def scale(fast, long):
    """The fast figure for `make check`, the long one for `make soak`."""
    return long if OPT.long else fast


def main():
    ap = argparse.ArgumentParser(description=sys.modules["__main__"].__doc__)
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("--mintid", required=True)
    ap.add_argument("--no-faketime", action="store_true", help="skip the scenarios that need libfaketime")
    ap.add_argument("--sanitized", action="store_true", help="a sanitizer build: skip slow and memory scenarios")
    ap.add_argument("--long", action="store_true", help="soak: more rounds and longer load")
    ap.add_argument("-k", action="append", default=None, help="only the tests matching this pattern")
    args, rest = ap.parse_known_args()
    OPT.mintidd, OPT.mintid = os.path.abspath(args.mintidd), os.path.abspath(args.mintid)
    OPT.no_faketime, OPT.sanitized, OPT.long = args.no_faketime, args.sanitized, args.long
    argv = [sys.argv[0], "-v"] + rest
    for k in args.k or []:
        argv += ["-k", k]
    unittest.main(argv=argv)


# ---- formats ---------------------------------------------------------------------
#
# IDs are compared as integers. The decoders follow docs/formats/*.md, so a
# scenario needs no subprocess per ID; test_restarts.Decoders checks them
# against `mintid inspect`.

NANOFLAKE_EPOCH = 1288834974657  # the server's default nanoflake-epoch
ULID_FLAKE_EPOCH = 1704067200000
CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CROCKFORD_VALUE = {c: i for i, c in enumerate(CROCKFORD)}


def crockford(text):
    v = 0
    for ch in text.upper():
        v = v * 32 + CROCKFORD_VALUE[ch]
    return v


class Fmt:
    def __init__(self, name, http_form, from_http, from_resp, unix_ms):
        self.name = name
        self.http_form = http_form  # the `as=` form asked for over HTTP
        self.from_http = from_http  # that form's text -> int
        self.from_resp = from_resp  # the canonical text (what MINT answers) -> int
        self.unix_ms = unix_ms  # (value, nanoflake epoch) -> the ID's Unix ms


FORMATS = {
    # base36 text; (ms since epoch) << 22 | generator << 12 | sequence
    "nanoflake": Fmt("nanoflake", "int", int, lambda s: int(s, 36), lambda v, e: (v >> 22) + e),
    # base32hex text (Python's base 32 alphabet); 48-bit Unix ms first
    "scru160": Fmt("scru160", "hex", lambda s: int(s, 16), lambda s: int(s, 32), lambda v, e: v >> 112),
    # Crockford base32 text; 43-bit ms since 2024 above 20 random bits
    "ulid-flake": Fmt("ulid-flake", "int", int, crockford, lambda v, e: (v >> 20) + ULID_FLAKE_EPOCH),
}


def nanoflake_node(v):
    return (v >> 12) & 1023


# ---- clients ---------------------------------------------------------------------


class Batch:
    __slots__ = ("sent", "received", "values")

    def __init__(self, sent, received, values):
        self.sent, self.received, self.values = sent, received, values


class Refusal:
    __slots__ = ("sent", "received", "text")

    def __init__(self, sent, received, text):
        self.sent, self.received, self.text = sent, received, text

    def __repr__(self):
        return f"Refusal({self.text!r} after {self.received - self.sent:.3f} s)"


class Client(threading.Thread):
    """One connection minting batches of one format until stopped, keeping
    every ID it is given in the order received. It ends quietly when the
    server goes away (what it read was issued); anything else it meets is
    kept in `failure` for the test to report, never lost in the thread."""

    def __init__(self, server, proto, fmt, batch, depth=1, timeout=30, label=""):
        super().__init__(daemon=True)
        self.server, self.proto, self.fmt, self.batch, self.depth = server, proto, FORMATS[fmt], batch, depth
        self.timeout = timeout
        self.label = label or f"{proto} {fmt} x{batch}"
        self.batches, self.refusals = [], []
        self.failure = None  # a traceback: the client met something it cannot explain
        self.ended = None  # how the connection ended, if the server went away
        self.stopping = threading.Event()

    def values(self):
        return [v for b in self.batches for v in b.values]

    def run(self):
        try:
            if self.proto == "http":
                self._http()
            else:
                self._resp()
        except (OSError, http.client.HTTPException) as e:  # ConnectionError and timeouts are OSErrors
            self.ended = f"{type(e).__name__}: {e}"
        except Exception:  # reported by Load.assert_no_failures()
            self.failure = traceback.format_exc()

    def _http(self):
        c = http.client.HTTPConnection("127.0.0.1", self.server.http_port, timeout=self.timeout)
        path = f"/v1/{self.fmt.name}?count={self.batch}&as={self.fmt.http_form}"
        try:
            while not self.stopping.is_set():
                sent = time.monotonic()
                c.request("GET", path)
                r = c.getresponse()
                body = r.read().decode()
                received = time.monotonic()
                if r.status == 200:
                    values = [self.fmt.from_http(x) for x in body.split()]
                    if len(values) != self.batch:
                        raise AssertionError(f"asked for {self.batch} IDs, got {len(values)}: {body[:200]!r}")
                    self.batches.append(Batch(sent, received, values))
                else:
                    self.refusals.append(Refusal(sent, received, f"HTTP {r.status} {body.strip()}"))
        finally:
            c.close()

    def _resp(self):
        r = Resp(self.server.resp_port, timeout=self.timeout)
        try:
            while not self.stopping.is_set():
                sent = time.monotonic()
                for _ in range(self.depth):
                    r.send("MINT", self.fmt.name, str(self.batch))
                for _ in range(self.depth):
                    reply = r.read()
                    received = time.monotonic()
                    if isinstance(reply, RespError):
                        self.refusals.append(Refusal(sent, received, f"-{reply}"))
                    elif isinstance(reply, list) and len(reply) == self.batch:
                        self.batches.append(Batch(sent, received, [self.fmt.from_resp(x) for x in reply]))
                    else:
                        raise AssertionError(f"MINT {self.fmt.name} {self.batch} answered {str(reply)[:200]}")
        finally:
            r.close()


# What most scenarios put on a server: nanoflake over both protocols from
# several connections, and two formats without a node field for variety.
MIX = [
    ("http", "nanoflake", 500, 1),
    ("http", "nanoflake", 100, 1),
    ("resp", "nanoflake", 200, 4),
    ("resp", "nanoflake", 50, 1),
    ("http", "scru160", 100, 1),
    ("resp", "ulid-flake", 100, 2),
]
# For several servers at once: formats whose uniqueness across servers is
# guaranteed (nanoflake by its node id) or overwhelmingly likely (scru160).
MIX_SHARED = [
    ("http", "nanoflake", 500, 1),
    ("resp", "nanoflake", 200, 2),
    ("resp", "scru160", 50, 1),
]


class Load:
    """Clients minting from one server run until stop()."""

    def __init__(self, server, mix=MIX, timeout=30, name="run"):
        self.server, self.name = server, name
        self.clients = [Client(server, p, f, b, d, timeout, f"{name}: {p} {f} x{b}") for p, f, b, d in mix]

    def start(self):
        for c in self.clients:
            c.start()
        return self

    def stop(self, timeout=60):
        for c in self.clients:
            c.stopping.set()
        for c in self.clients:
            c.join(timeout)
        stuck = [c.label for c in self.clients if c.is_alive()]
        if stuck:
            raise AssertionError(f"clients still waiting for an answer after {timeout} s: {stuck}")
        return self

    def values(self, fmt):
        return [v for c in self.clients if c.fmt.name == fmt for v in c.values()]

    def count(self):
        return sum(len(c.values()) for c in self.clients)

    def refusals(self, fmt=None):
        return [r for c in self.clients if fmt is None or c.fmt.name == fmt for r in c.refusals]

    def assert_no_failures(self, tc, server_went_away=False):
        for c in self.clients:
            tc.assertIsNone(c.failure, f"{c.label}:\n{c.failure}")
            if not server_went_away:
                tc.assertIsNone(c.ended, f"{c.label}: the connection ended while the server was up")


# ---- checks ----------------------------------------------------------------------


def check_unique(tc, clients, fmt):
    """No ID of `fmt` was given out twice, to any of these clients.
    Returns how many there were."""
    mine = [c for c in clients if c.fmt.name == fmt]
    values = [v for c in mine for v in c.values()]
    if len(set(values)) == len(values):
        return len(values)
    seen, where = collections.Counter(values), collections.defaultdict(list)
    dups = sorted(v for v, n in seen.items() if n > 1)
    wanted = set(dups[:5])
    for c in mine:
        for v in c.values():
            if v in wanted:
                where[v].append(c.label)
    show = "; ".join(f"{v} to {where[v]}" for v in dups[:5])
    tc.fail(f"{len(dups)} duplicate {fmt} IDs among {len(values)}: {show}")


def check_client_order(tc, clients):
    """Each client's own IDs of a format strictly increase."""
    for c in clients:
        vals = c.values()
        if vals == sorted(vals) and len(set(vals)) == len(vals):
            continue
        for i in range(1, len(vals)):
            if vals[i] <= vals[i - 1]:
                tc.fail(f"{c.label}: ID #{i} ({vals[i]}) is not above the one before it ({vals[i - 1]})")


def check_runs_ordered(tc, runs, formats=FORMATS):
    """Every ID of a later run is above every ID of every earlier run on the
    same state directory and node, format by format. `runs` is a list of
    client lists in the order the servers ran."""
    for fmt in formats:
        highest, highest_run = None, None
        for n, clients in enumerate(runs):
            vals = [v for c in clients if c.fmt.name == fmt for v in c.values()]
            if not vals:
                continue
            if highest is not None and min(vals) <= highest:
                below = sum(1 for v in vals if v <= highest)
                tc.fail(f"{fmt}: run {n} issued {below} IDs not above the highest of run {highest_run} "
                        f"({min(vals)} <= {highest})")
            if highest is None or max(vals) > highest:
                highest, highest_run = max(vals), n


def check_all(tc, runs, formats=FORMATS):
    everything = [c for run in runs for c in run]
    total = sum(check_unique(tc, everything, f) for f in formats)
    check_client_order(tc, everything)
    check_runs_ordered(tc, runs, formats)
    return total


def check_mark_covers(tc, state_dir, clients, epoch=NANOFLAKE_EPOCH, when="now"):
    """The state file on disk covers every ID issued: no ID carries a
    timestamp past its mark (the mark is written before it is used)."""
    mark = read_mark(state_dir)
    for c in clients:
        for b in c.batches:
            top = max(c.fmt.unix_ms(v, epoch) for v in b.values)
            if top > mark:
                tc.fail(f"{c.label}: an ID with timestamp {top} was issued, past the mark {mark} "
                        f"on disk {when} ({top - mark} ms)")
    return mark


def read_mark(state_dir):
    with open(os.path.join(state_dir, "state"), "rb") as f:
        data = f.read()
    m = re.search(rb"^mark (\d+)$", data, re.M)
    if m is None:
        raise AssertionError(f"no mark in the state file: {data[:200]!r}")
    return int(m.group(1))


# ---- servers ---------------------------------------------------------------------


class Mintidd(Server):
    """harness.Server that can run without CAP_DAC_OVERRIDE: the suite runs
    as root, for whom file modes mean nothing; without that capability a
    read-only file or directory is read-only to the server too."""

    def __init__(self, state_dir=None, args=(), no_dac=False, **kw):
        super().__init__(OPT.mintidd, state_dir=state_dir, args=args, **kw)
        self.no_dac = no_dac

    def command(self):
        cmd = super().command()
        if self.no_dac:
            cmd = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"] + cmd
        return cmd

    def pid(self):
        return self.proc.pid


def start_refused(srv, timeout=30):
    """Starts a server that is expected not to start. Returns (status,
    log, served): served says whether it ever accepted a connection."""
    srv.start(expect_ready=False)
    served = False
    deadline = time.monotonic() + timeout
    while srv.proc.poll() is None and time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", srv.http_port), timeout=0.5):
                served = True
                break
        except OSError:
            time.sleep(0.05)
    if served:
        return None, "", True
    status, log = srv.wait(timeout=max(1, deadline - time.monotonic()))
    return status, log, False


def get(port, path, timeout=10):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request("GET", path)
        r = c.getresponse()
        return r.status, r.read().decode()
    finally:
        c.close()


def ask(port, path, timeout=10):
    """get(), with no answer in time (or a closed connection) as status None."""
    try:
        return get(port, path, timeout)
    except (OSError, http.client.HTTPException) as e:
        return None, f"no answer within {timeout} s ({type(e).__name__}: {e})"


def mint_http(port, fmt="nanoflake", count=100, timeout=10):
    """(status, [ints] or the error text) of one HTTP batch."""
    f = FORMATS[fmt]
    status, body = ask(port, f"/v1/{fmt}?count={count}&as={f.http_form}", timeout)
    return status, ([f.from_http(x) for x in body.split()] if status == 200 else body)


def wait_for(cond, timeout, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(step)
    return False


def vm_rss_kib(pid):
    """The resident memory of a server: the process's and its workers'."""
    total = 0
    for p in [pid] + children(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        except (FileNotFoundError, StopIteration):
            if p == pid:
                raise AssertionError(f"no VmRSS for pid {pid}") from None
    return total


def metric_value(metrics_text, name):
    """The value of an unlabelled metric in /metrics text, or None."""
    m = re.search(rf"^{re.escape(name)} (\S+)$", metrics_text, re.M)
    return float(m.group(1)) if m else None


def metric(port, name):
    """The value of an unlabelled metric, or None if /metrics lacks it."""
    status, body = ask(port, "/metrics")
    if status != 200:
        raise AssertionError(f"GET /metrics: {status} {body[:200]}")
    return metric_value(body, name)


class FaultCase(unittest.TestCase):
    """A scenario: its own temporary directory, and every server and load
    it made stopped afterwards, whatever happened."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="mintid-fault-")
        self.addCleanup(self._tmp.cleanup)
        self.tmp = self._tmp.name
        self.servers, self.loads = [], []

    def tearDown(self):
        for load in self.loads:
            for c in load.clients:
                c.stopping.set()
        for s in self.servers:
            if s.proc is not None and s.proc.poll() is None:
                s.proc.send_signal(signal.SIGCONT)
                s.proc.send_signal(signal.SIGKILL)
            if s.proc is not None:
                try:
                    s.wait(10)
                except AssertionError as e:  # a sanitizer report in a server stopped by force
                    print(e, file=sys.stderr)
        for load in self.loads:
            for c in load.clients:
                c.join(5)

    def dir(self, name):
        path = os.path.join(self.tmp, name)
        os.makedirs(path, exist_ok=True)
        return path

    def server(self, state_dir=None, args=(), **kw):
        if state_dir is None:
            state_dir = os.path.join(self.tmp, f"state-{len(self.servers)}")
        s = Mintidd(state_dir=state_dir, args=list(args), **kw)
        self.servers.append(s)
        return s

    def load(self, server, mix=MIX, **kw):
        load = Load(server, mix, **kw)
        self.loads.append(load)
        return load.start()

    def need_faketime(self):
        if OPT.no_faketime:
            self.skipTest("needs libfaketime, which cannot be preloaded into a sanitizer build; "
                          "the plain build runs this")
        if not have_faketime():
            self.fail("libfaketime is not installed (make deps installs faketime)")

    def not_sanitized(self, why):
        if OPT.sanitized:
            self.skipTest(f"skipped in sanitizer builds ({why}); the plain build runs this")

    def clock_file(self, offset_s=0.0):
        path = os.path.join(self.tmp, "clock")
        set_clock(path, offset_s)
        return path

    def assert_refused(self, srv, *texts, timeout=30):
        """The server exits with status 1 and a message holding `texts`, never serving."""
        status, log, served = start_refused(srv, timeout)
        if served:
            _, log = srv.kill()
            self.fail(f"mintidd started serving; expected exit status 1 and {texts}. It said:\n{log}")
        self.assertEqual(status, 1, log)
        for t in texts:
            self.assertIn(t, log)
        return log


# ---- tmpfs -----------------------------------------------------------------------


def mount_tmpfs(tc, path, size):
    """Mounts a tmpfs of `size` at path, unmounted in the test's cleanup
    (after tearDown has stopped the servers). Skips the test if this
    machine does not allow mounting."""
    os.makedirs(path, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        tc.skipTest(f"cannot mount a tmpfs here ({r.stderr.strip() or r.returncode}); "
                    "the full-disk scenario needs root with CAP_SYS_ADMIN")

    def umount():
        r = subprocess.run(["umount", path], capture_output=True, text=True)
        if r.returncode != 0:
            subprocess.run(["umount", "-l", path], capture_output=True)

    tc.addCleanup(umount)


def fill(path):
    """Writes path until the filesystem is full; returns the bytes written."""
    n = 0
    chunk = b"\0" * 4096
    with open(path, "wb", buffering=0) as f:
        while True:
            try:
                n += f.write(chunk)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                return n
