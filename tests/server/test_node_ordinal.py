# SPDX-License-Identifier: MIT
"""test_node_ordinal.py - node ids from the host name's ordinal, as a
StatefulSet's pods (<set>-0, <set>-1, ...) take them.

Each mintidd and mintid runs in a UTS namespace of its own whose host name
the test sets (unshare(1); as root, else in a user namespace too), so the
machine's host name is never touched. mintidd with `node = ordinal+2` on
host ids-3 mints under node 5; host names without an ordinal, and an
ordinal beside node-lease, are refused at start with exit status 2 and the
library's sentence; the command reads --node and MINTID_NODE the same way.

Usage: python3 test_node_ordinal.py --mintidd PATH --mintid PATH [-k PATTERN]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

MINTIDD = MINTID = None

NO_ORDINAL = ("node: node 'ordinal+2': the host name '{}' does not end in '-' and a number, as the names of a "
              "StatefulSet's pods do (web-0, web-1, ...)")


def on_host(name):
    """A command prefix that runs what follows with the host name `name`."""
    unshare = ["unshare", "--uts"] if os.geteuid() == 0 else ["unshare", "--user", "--map-root-user", "--uts"]
    return unshare + ["--", "sh", "-c", 'hostname "$0" && exec "$@"', name]


class OnHost(harness.Server):
    """A mintidd whose host name is `host`."""

    def __init__(self, host, **kw):
        super().__init__(MINTIDD, **kw)
        self.host = host

    def command(self):
        return on_host(self.host) + super().command()


def inspect(text):
    p = subprocess.run([MINTID, "inspect", "--format", "nanoflake", text], capture_output=True, text=True,
                       timeout=30)
    if p.returncode != 0:
        raise AssertionError(f"mintid inspect {text}: exit status {p.returncode}: {p.stderr}")
    return json.loads(p.stdout)


class NodeOrdinal(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory(prefix="mintid-ordinal-")
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.conf = os.path.join(self.tmp, "mintidd.conf")
        with open(self.conf, "w") as f:
            f.write("node = ordinal+2\n")

    def refused(self, host, *args, env=None):
        """mintidd's exit status and stderr on `host` with args (and env)."""
        p = subprocess.run(on_host(host) + [MINTIDD, "--state-dir", os.path.join(self.tmp, "refused"), "--http",
                                            f"127.0.0.1:{harness.spare_port()}", "--resp", "", *args],
                           capture_output=True, text=True, timeout=30,
                           env={**os.environ, "MINTID_HOST_DIR": harness.HOST_DIR, **(env or {})})
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "refused")), "a refused start made its state")
        return p.returncode, p.stderr

    def test_server_mints_under_ordinal_plus_offset(self):
        with OnHost("ids-3", args=["--config", self.conf]) as srv:
            with urllib.request.urlopen(f"http://127.0.0.1:{srv.http_port}/v1/nanoflake?count=3", timeout=10) as r:
                ids = r.read().decode().split()
            self.assertEqual(len(ids), 3)
            for text in ids:
                self.assertEqual(inspect(text)["generator"], 5, text)
            with urllib.request.urlopen(f"http://127.0.0.1:{srv.http_port}/healthz", timeout=10) as r:
                self.assertEqual(json.load(r)["node_id"], 5)
            self.assertTrue(srv.wait_log(b"ready: node 5 (ordinal+2 of the host name)", count=1), srv.log)

    def test_server_refuses_a_host_name_without_an_ordinal(self):
        for host in ("ids", "ids-x"):
            status, err = self.refused(host, "--config", self.conf)
            self.assertEqual(status, 2, err)
            self.assertEqual(err, f"mintidd: {self.conf}:1: {NO_ORDINAL.format(host)}\n")
        # The command line and the environment say it the same way.
        status, err = self.refused("ids", "--node", "ordinal+2")
        self.assertEqual((status, err), (2, f"mintidd: {NO_ORDINAL.format('ids')}\n"))
        status, err = self.refused("ids-x", env={"MINTID_NODE": "ordinal+2"})
        self.assertEqual((status, err), (2, f"mintidd: MINTID_NODE: {NO_ORDINAL.format('ids-x')}\n"))

    def test_server_refuses_ordinal_with_node_lease(self):
        status, err = self.refused("ids-3", "--config", self.conf, "--node-lease", "etcd://127.0.0.1:2379/ids")
        self.assertEqual(status, 2, err)
        self.assertEqual(err, "mintidd: node = ordinal+2 takes the node id from the host name, node-lease from "
                              "etcd: give one or the other\n")

    def test_command_reads_node_and_environment_alike(self):
        env = {**os.environ, "MINTID_HOST_DIR": self.tmp}
        for args, extra in ((["--node", "ordinal+2"], {}), ([], {"MINTID_NODE": "ordinal+2"})):
            p = subprocess.run(on_host("ids-3") + [MINTID, "gen", "nanoflake", "--as", "int", *args],
                               capture_output=True, text=True, timeout=30, env={**env, **extra})
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(inspect(p.stdout.strip())["generator"], 5, (args, extra))
        p = subprocess.run(on_host("ids-x") + [MINTID, "gen", "nanoflake"], capture_output=True, text=True,
                           timeout=30, env={**env, "MINTID_NODE": "ordinal+2"})
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr, f"mintid: MINTID_NODE: {NO_ORDINAL.format('ids-x')[len('node: '):]}\n")


def main():
    global MINTIDD, MINTID
    ap = argparse.ArgumentParser()
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("--mintid", required=True)
    args, rest = ap.parse_known_args()
    MINTIDD, MINTID = os.path.abspath(args.mintidd), os.path.abspath(args.mintid)
    unittest.main(argv=[sys.argv[0], "-v"] + rest)


if __name__ == "__main__":
    main()
