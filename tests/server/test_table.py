# SPDX-License-Identifier: MIT
"""test_table.py - every format of the format table through every face: the
command's gen, inspect, convert and range, and the server's HTTP and RESP.
The formats come from the table itself (`mintid formats`, GET /v1/formats),
never from a list written here, so a format added to the table is tested
by this file without a change to it.

Usage: python3 test_table.py --mintidd PATH --mintid PATH
"""

import argparse
import http.client
import json
import os
import re
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server  # noqa: E402
from resp_client import Resp  # noqa: E402

MINTIDD = MINTID = None


def cli(*args, stdin=None):
    return subprocess.run([MINTID] + [str(a) for a in args], input=stdin, capture_output=True, text=True, check=True).stdout


def get(port, path, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request("GET", path, headers=headers or {})
    r = c.getresponse()
    body = r.read().decode()
    c.close()
    return r.status, body


class EveryFormat(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.srv = Server(MINTIDD).start()
        status, body = get(cls.srv.http_port, "/v1/formats", {"Accept": "application/json"})
        assert status == 200, body
        cls.table = json.loads(body)

    @classmethod
    def tearDownClass(cls):
        status, log = cls.srv.stop()
        cls.srv.__exit__(None, None, None)
        assert status == 0, log

    def test_command_and_server_list_the_same_table(self):
        listed = re.findall(r"^([a-z][a-z0-9-]*)$", cli("formats"), re.M)
        self.assertEqual(listed, [f["name"] for f in self.table])
        self.assertGreater(len(listed), 0)
        names = ", ".join(listed)
        self.assertIn(f"FORMAT: {names}", cli("--help"))
        status, body = get(self.srv.http_port, "/v1/no-such-format")
        self.assertEqual(status, 404)
        self.assertIn(f"formats are {names}", body)

    def test_each_format_through_every_face(self):
        r = Resp(self.srv.resp_port)
        for f in self.table:
            name = f["name"]
            with self.subTest(format=name):
                before = int(time.time() * 1000)
                ids = cli("gen", name, "-n", 3).split()
                self.assertEqual(len(ids), 3)
                docs = [json.loads(line) for line in cli("inspect", "--format", name, "--", *ids).splitlines()]
                self.assertEqual([d["text"] for d in docs], ids)
                self.assertTrue(all(d["format"] == name for d in docs))
                for form in f["forms"]:
                    converted = cli("convert", "--format", name, "--to", form, "--", *ids).split()
                    back = cli("convert", "--format", name, "--from", form, "--to", "text", "--", *converted).split()
                    self.assertEqual(back, ids, form)
                # The server mints the format over both protocols, and reads
                # what the command minted as the command does.
                status, body = get(self.srv.http_port, f"/v1/{name}?count=3")
                self.assertEqual(status, 200, body)
                minted = body.split() + r.call("MINT", name, 3)
                after = int(time.time() * 1000)
                self.assertEqual(len(set(minted)), 6)
                for ident, doc in zip(ids, docs):
                    status, body = get(self.srv.http_port, f"/v1/{name}/{ident}")
                    self.assertEqual(status, 200, body)
                    self.assertEqual(json.loads(body), doc)
                    self.assertEqual(json.loads(r.call("INSPECT", name, ident)), doc)
                # Everything minted in the window lies inside its range, in
                # hex, the fixed-width big-endian form every format has.
                lo, hi = (json.loads(cli("inspect", "--format", name, "--", x))["hex"]
                          for x in cli("range", name, before, after).split())
                self.assertEqual(r.call("RANGE", name, before, after), cli("range", name, before, after).split())
                for ident in ids + minted:
                    h = json.loads(cli("inspect", "--format", name, "--", ident))["hex"]
                    self.assertTrue(lo <= h <= hi, (ident, lo, hi))
        r.close()


def main():
    global MINTIDD, MINTID
    ap = argparse.ArgumentParser()
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("--mintid", required=True)
    ap.add_argument("--no-faketime", action="store_true", help="accepted for symmetry; nothing here needs it")
    args, rest = ap.parse_known_args()
    MINTIDD, MINTID = os.path.abspath(args.mintidd), os.path.abspath(args.mintid)
    unittest.main(argv=[sys.argv[0], "-v"] + rest)


if __name__ == "__main__":
    main()
