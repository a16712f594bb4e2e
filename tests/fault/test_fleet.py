# SPDX-License-Identifier: MIT
"""test_fleet.py - node ids leased for every home: a fleet of three "hosts",
each a network namespace with its own host-wide directory and a mintidd
leasing its node id from one etcd, and on each host four embedded minters
(the command, two Python processes, a SQLite process) minting nanoflake and
snowflake as `node host`: locally, in the server's sequence, under the node
id that server holds.

While they mint, host 2 is cut off from etcd (its link set down), and host
3's server is killed with SIGKILL and started again, on a node id range with
no spare one, so that a node id given up by one host is taken by another.
Every ID is collected. No ID may come twice, and host 2's minters must stop
within the lease's bounds: none of their IDs carries a time later than the
moment of the cut plus the lease's TTL (its server's lease cannot outlive
that, and the warrant the minters mint under ends with it).

It needs root (network namespaces), iproute2 and etcd.

Usage: python3 test_fleet.py --mintidd PATH --mintid PATH
(TEST_SQLITE_MODULE and PYTHONPATH name the SQLite and Python modules.)
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
from faults import NANOFLAKE_EPOCH, OPT, main, scale  # noqa: E402
from harness import spare_port  # noqa: E402

HOSTS = 3
TTL_S = 3
FORMATS = ["nanoflake", "snowflake"]
BATCH = 100
PAUSE_S = 0.01  # between batches: the minters run at once, and the IDs to check stay a few million

# One minter process: mints BATCH IDs of each format in turn as node host,
# writing "format id" lines, each batch whole, and its failures' messages
# to stderr. argv: kind, output path.
MINTER = r"""
import os, subprocess, sqlite3, sys, time
kind, path = sys.argv[1], sys.argv[2]
out = open(path, "w")
formats = %(formats)r
n = %(batch)d
fails = 0
db = None
while True:
    for fmt in formats:
        try:
            if kind == "command":
                r = subprocess.run([os.environ["MINTID"], "gen", fmt, "-n", str(n), "--node", "host"],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    raise RuntimeError(r.stderr.strip())
                ids = r.stdout.split()
            elif kind == "python":
                import mintid
                ids = mintid.gen(fmt, n, node="host")
            elif kind == "generator":
                import mintid
                ids = mintid.Generator(fmt, node="host").next_many(n)
            else:
                if db is None:
                    db = sqlite3.connect(":memory:")
                    db.enable_load_extension(True)
                    db.load_extension(os.environ["TEST_SQLITE_MODULE"])
                    db.execute("SELECT mintid_config('node', 'host')")
                q = ("WITH RECURSIVE r(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM r WHERE k < %%d) "
                     "SELECT gen_%%s() FROM r" %% (n, fmt))
                ids = [row[0] for row in db.execute(q)]
            out.write("".join("%%s %%s\n" %% (fmt, i) for i in ids))
            out.flush()
            time.sleep(%(pause)r)
        except Exception as e:
            fails += 1
            if fails <= 50 or fails %% 100 == 0:
                sys.stderr.write("%%.3f %%s\n" %% (time.time(), e))
                sys.stderr.flush()
            time.sleep(0.02)
""" % {"formats": FORMATS, "batch": BATCH, "pause": PAUSE_S}


def ip(*args):
    subprocess.run(["ip"] + list(args), check=True, stdout=subprocess.DEVNULL)


def value(fmt, text):
    return int(text, 36) if fmt == "nanoflake" else int(text)


def unix_ms(v):
    # nanoflake and snowflake alike: ms since Twitter's epoch above 22 bits.
    return (v >> 22) + NANOFLAKE_EPOCH


class Fleet(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0:
            self.fail("test_fleet needs root: it makes network namespaces")
        for tool in ("ip", "etcd"):
            if shutil.which(tool) is None:
                self.fail(f"{tool} is not installed (make deps installs iproute2 and etcd-server)")
        self.tmp = tempfile.mkdtemp(prefix="mintid-fleet-")
        self.tag = f"mf{os.getpid() % 100000}"
        self.procs = []  # every process started here, stopped by pid
        self.netns = []
        self.links = []
        self.addCleanup(self.cleanup)
        self.port = spare_port()
        self.peer = spare_port()
        # The hosts: a namespace each, a link to the root namespace, where etcd is.
        for h in range(1, HOSTS + 1):
            ns = f"{self.tag}-h{h}"
            ip("netns", "add", ns)
            self.netns.append(ns)
            ip("-n", ns, "link", "set", "lo", "up")
            root, inner = f"{self.tag}h{h}r", f"{self.tag}h{h}n"
            ip("link", "add", root, "type", "veth", "peer", "name", inner, "netns", ns)
            self.links.append(root)
            ip("addr", "add", f"10.231.{h}.1/30", "dev", root)
            ip("link", "set", root, "up")
            ip("-n", ns, "addr", "add", f"10.231.{h}.2/30", "dev", inner)
            ip("-n", ns, "link", "set", inner, "up")
        urls = ",".join([f"http://127.0.0.1:{self.port}"] +
                        [f"http://10.231.{h}.1:{self.port}" for h in range(1, HOSTS + 1)])
        self.etcd = self.start(["etcd", "--name", "fleet", "--data-dir", os.path.join(self.tmp, "etcd"),
                                "--listen-client-urls", urls, "--advertise-client-urls",
                                f"http://127.0.0.1:{self.port}", "--listen-peer-urls",
                                f"http://127.0.0.1:{self.peer}", "--initial-advertise-peer-urls",
                                f"http://127.0.0.1:{self.peer}", "--initial-cluster",
                                f"fleet=http://127.0.0.1:{self.peer}", "--log-level", "error"])
        deadline = time.monotonic() + 30
        while True:
            r = subprocess.run([OPT.mintidd, "init", "--node-lease", f"etcd://127.0.0.1:{self.port}/fleet",
                                "--node-range", f"0-{HOSTS - 1}"], capture_output=True, text=True)
            if r.returncode == 0:
                break
            if time.monotonic() > deadline:
                self.fail(f"mintidd init: {r.stderr}")
            time.sleep(0.2)

    def start(self, cmd, ns=None, env=None, stdout=None, stderr=None):
        if ns is not None:
            cmd = ["ip", "netns", "exec", ns] + cmd
        p = subprocess.Popen(cmd, env=env, stdout=stdout or subprocess.DEVNULL, stderr=stderr or subprocess.DEVNULL,
                             start_new_session=True)
        self.procs.append(p)
        return p

    def host_dir(self, h):
        return os.path.join(self.tmp, f"host{h}")

    def start_server(self, h):
        os.makedirs(self.host_dir(h), exist_ok=True)
        with open(os.path.join(self.tmp, f"mintidd{h}.log"), "a") as log:
                return self.start([OPT.mintidd, "--state-dir", os.path.join(self.tmp, f"state{h}"),
                               "--host-dir", self.host_dir(h), "--http", "127.0.0.1:8080", "--workers", "1",
                               "--node-lease", f"etcd://10.231.{h}.1:{self.port}/fleet",
                               "--node-range", f"0-{HOSTS - 1}", "--lease-ttl", str(TTL_S), "--lease-margin", "800",
                               "--lease-start-wait", "30"], ns=self.netns[h - 1], stdout=log, stderr=log)

    def etcd_mark(self, node):
        """The mark etcd holds for a node id (Unix ms), or None."""
        import base64
        import json
        import urllib.request
        key = base64.b64encode(f"/fleet/marks/{node}".encode()).decode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}/v3/kv/range", data=json.dumps({"key": key}).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            kvs = json.loads(r.read()).get("kvs") or []
        return int(base64.b64decode(kvs[0]["value"])) if kvs else None

    def node_file(self, h):
        try:
            with open(os.path.join(self.host_dir(h), "mintid-node")) as f:
                return f.read()
        except OSError:
            return ""

    def cleanup(self):
        for p in reversed(self.procs):
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except OSError:
                    pass
                p.wait()
        for ns in self.netns:
            subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)
        for link in self.links:
            subprocess.run(["ip", "link", "del", link], stderr=subprocess.DEVNULL)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_node_host_across_a_fleet(self):
        run_s = scale(20, 120)
        servers = {h: self.start_server(h) for h in range(1, HOSTS + 1)}
        deadline = time.monotonic() + 30
        while not all("node=" in self.node_file(h) for h in servers):
            if time.monotonic() > deadline:
                self.fail("the servers did not lease node ids")
            time.sleep(0.1)
        nodes = {h: self.node_file(h).split("node=")[1].split()[0] for h in servers}
        script = os.path.join(self.tmp, "minter.py")
        with open(script, "w") as f:
            f.write(MINTER)
        outputs = []
        for h in servers:
            env = dict(os.environ, MINTID_HOST_DIR=self.host_dir(h), MINTID=OPT.mintid)
            env.pop("MINTID_NODE", None)
            for kind in ("command", "python", "generator", "sqlite"):
                path = os.path.join(self.tmp, f"ids-{h}-{kind}")
                with open(path + ".err", "w") as err:
                    self.start([sys.executable, script, kind, path], ns=self.netns[h - 1], env=env, stderr=err)
                outputs.append((h, kind, path))
        begin = time.monotonic()

        def at(s):
            time.sleep(max(0, begin + s - time.monotonic()))

        at(run_s * 0.25)
        ip("-n", self.netns[1], "link", "set", f"{self.tag}h2n", "down")  # host 2 cut off from etcd
        cut_ms = int(time.time() * 1000)
        at(run_s * 0.4)
        os.killpg(servers[3].pid, signal.SIGKILL)
        servers[3].wait()
        at(run_s * 0.5)
        servers[3] = self.start_server(3)
        at(run_s * 0.8)
        # Host 1's server stops cleanly while its minters run: it releases
        # its node id in etcd with a mark that must cover every ID they minted.
        servers[1].send_signal(signal.SIGTERM)
        self.assertEqual(servers[1].wait(30), 0)
        released = self.etcd_mark(nodes[1])
        at(run_s)
        for p in self.procs:
            if p not in servers.values() and p is not self.etcd and p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()

        ids = {fmt: {} for fmt in FORMATS}  # value -> (host, kind)
        repeats = []
        latest = {h: 0 for h in servers}
        count = {h: 0 for h in servers}
        after_restart = 0
        restart_ms = cut_ms + int(run_s * 0.25 * 1000)
        for h, kind, path in outputs:
            with open(path) as f:
                for line in f:
                    parts = line.split()
                    if len(parts) != 2 or parts[0] not in ids:
                        continue  # the last line, cut by SIGKILL
                    try:
                        v = value(parts[0], parts[1])
                    except ValueError:
                        continue
                    seen = ids[parts[0]].get(v)
                    if seen is not None:
                        repeats.append((parts[0], parts[1], seen, (h, kind)))
                    ids[parts[0]][v] = (h, kind)
                    latest[h] = max(latest[h], unix_ms(v))
                    count[h] += 1
                    if h == 3 and unix_ms(v) > restart_ms:
                        after_restart += 1
        errors = {}
        for h, kind, path in outputs:
            with open(path + ".err") as f:
                errors[(h, kind)] = f.read()
        self.assertEqual(repeats[:10], [], f"{len(repeats)} IDs came twice")
        for h in servers:
            self.assertGreater(count[h], 1000, f"host {h} minted too few IDs: {errors}")
        # Host 2's minters stopped within the lease's bounds.
        self.assertLessEqual(latest[2], cut_ms + TTL_S * 1000,
                             f"host 2 minted {latest[2] - cut_ms} ms after it was cut off")
        self.assertTrue(any("renewed its warrant" in errors[(2, k)] for k in ("command", "python", "sqlite")),
                        errors)
        # The others went on: host 1 until its server stopped, host 3 after its restart.
        self.assertGreater(latest[1], cut_ms + int(run_s * 0.4 * 1000))
        self.assertIsNotNone(released, "host 1's node id has no mark in etcd")
        self.assertLessEqual(latest[1], released, "host 1's minters minted past the mark its server released")
        self.assertGreater(after_restart, 0, f"host 3 minted nothing after its restart: {errors}")
        restarted = self.node_file(3).split("node=")[1].split()[0]
        print(f"fleet: {sum(count.values())} IDs ({count}), no repeat; nodes {nodes}, host 3's after its "
              f"restart {restarted}; host 2 stopped {latest[2] - cut_ms} ms after the cut (TTL {TTL_S} s)",
              file=sys.stderr)


if __name__ == "__main__":
    main()
