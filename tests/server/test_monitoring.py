# SPDX-License-Identifier: MIT
"""test_monitoring.py - the Grafana dashboard and the Prometheus alerts in
contrib/ against the metrics a running mintidd exports.

- `promtool check rules` on contrib/prometheus/mintid-alerts.yml, and
  `promtool test rules` on its unit tests, in which every alert fires;
- every query of contrib/grafana/mintid.json is PromQL that promtool
  accepts, on the data source the dashboard's variable names;
- every metric a mintidd exports on /metrics (one with a static node id
  and a TLS listener, for the certificate's metric, and one leasing its
  node id from an etcd started here, for the lease's metrics) is used by a
  dashboard panel, and every metric the dashboard and
  the rules name is exported; counters are read through rate() or
  increase(), gauges never.

Usage: python3 test_monitoring.py --mintidd PATH [--contrib DIR]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import urllib.request

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Etcd, Server, make_certs, spare_port  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MINTIDD = None
CONTRIB = os.path.join(ROOT, "contrib")
# Series Prometheus makes itself, which a rule may name beside mintidd's.
PROMETHEUS_OWN = {"up"}


def promtool(*args):
    if shutil.which("promtool") is None:
        raise AssertionError("promtool is not installed (make deps installs prometheus)")
    return subprocess.run(["promtool", *args], capture_output=True, text=True)


def names_in(expr):
    """The metric names a PromQL expression reads (label names and values are not metrics)."""
    expr = re.sub(r"\{[^}]*\}", "{}", expr)  # matchers: job=~"$job", protocol="http"
    expr = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", expr)
    return set(re.findall(r"\b(mintid_[a-z_]+|up)\b", expr))


class Monitoring(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(os.path.join(CONTRIB, "prometheus", "mintid-alerts.yml")) as f:
            cls.rules = yaml.safe_load(f)
        with open(os.path.join(CONTRIB, "prometheus", "mintid-alerts.test.yml")) as f:
            cls.rule_tests = yaml.safe_load(f)
        with open(os.path.join(CONTRIB, "grafana", "mintid.json")) as f:
            cls.dashboard = json.load(f)
        cls.alerts = [r for g in cls.rules["groups"] for r in g["rules"] if "alert" in r]
        cls.panels = [p for p in cls.dashboard["panels"] if p["type"] != "row"]

    # ---- the rules -----------------------------------------------------------------

    def test_promtool_check_rules(self):
        r = promtool("check", "rules", os.path.join(CONTRIB, "prometheus", "mintid-alerts.yml"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_promtool_test_rules(self):
        r = promtool("test", "rules", os.path.join(CONTRIB, "prometheus", "mintid-alerts.test.yml"))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_every_alert_fires_in_the_unit_tests(self):
        fired = {t["alertname"] for test in self.rule_tests["tests"] for t in test.get("alert_rule_test", [])
                 if t.get("exp_alerts")}
        self.assertGreaterEqual(len(self.alerts), 5)
        for rule in self.alerts:
            with self.subTest(alert=rule["alert"]):
                self.assertIn(rule["alert"], fired)
                self.assertIn(rule["labels"]["severity"], ("critical", "warning"))
                self.assertTrue(rule["annotations"].get("summary"))
                self.assertTrue(rule["annotations"].get("description"))

    # ---- the dashboard -------------------------------------------------------------

    def targets(self):
        for p in self.panels:
            for t in p["targets"]:
                yield p, t

    def test_dashboard_reads_its_datasource_variable(self):
        variables = {v["name"]: v for v in self.dashboard["templating"]["list"]}
        self.assertEqual((variables["datasource"]["type"], variables["datasource"]["query"]),
                         ("datasource", "prometheus"))
        want = {"type": "prometheus", "uid": "${datasource}"}
        for v in variables.values():
            if v["type"] == "query":
                self.assertEqual(v["datasource"], want, v["name"])
        ids = [p["id"] for p in self.dashboard["panels"]]
        self.assertEqual(len(ids), len(set(ids)), "panel ids repeat")
        for p, t in self.targets():
            self.assertEqual(p["datasource"], want, p["title"])
            self.assertEqual(t["datasource"], want, p["title"])

    def test_dashboard_queries_are_promql(self):
        # promtool checks PromQL in rules: each query, its variables given
        # values, becomes a recording rule of a throwaway file.
        rules = []
        for i, (p, t) in enumerate(self.targets()):
            expr = (t["expr"].replace("$__rate_interval", "1m").replace("$job", "mintid")
                    .replace("$instance", "127.0.0.1:8080"))
            self.assertNotIn("$", expr, p["title"])
            rules.append({"record": f"dashboard:query_{i}", "expr": expr})
        self.assertGreater(len(rules), 10)
        with tempfile.NamedTemporaryFile("w", suffix=".yml") as f:
            yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, f)
            f.flush()
            r = promtool("check", "rules", f.name)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    # ---- against /metrics ----------------------------------------------------------

    @classmethod
    def exported(cls):
        """{name: type} of every metric mintidd exports, with and without a node lease."""
        if hasattr(cls, "_exported"):
            return cls._exported
        types = {}
        etcd = Etcd()
        certs_dir = tempfile.TemporaryDirectory(prefix="mintidd-monitoring-")
        try:
            certs = make_certs(certs_dir.name)
            tls = ["--resp-tls", f"127.0.0.1:{spare_port()}", "--tls-cert", certs["cert"], "--tls-key", certs["key"]]
            for args in (["--node", "3", *tls], etcd.lease_args("monitoring", "0-3")):
                with Server(MINTIDD, args=args) as srv:
                    with urllib.request.urlopen(f"http://127.0.0.1:{srv.http_port}/metrics", timeout=10) as r:
                        text = r.read().decode()
                    status, log = srv.stop()
                    assert status == 0, log
                for name, kind in re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M):
                    types[name] = kind
                    assert re.search(rf"^{name}(\{{| )", text, re.M), f"{name} has no sample"
        finally:
            etcd.stop()
            certs_dir.cleanup()
        assert "mintid_lease_valid" in types, "the leased server exports no lease metrics"
        assert "mintid_tls_cert_expiry_timestamp_seconds" in types, "the TLS server exports no certificate metric"
        cls._exported = types
        return types

    def test_every_exported_metric_has_a_panel(self):
        used = set()
        for p, t in self.targets():
            used |= names_in(t["expr"])
        missing = sorted(set(self.exported()) - used)
        self.assertEqual(missing, [], "metrics without a dashboard panel")

    def test_every_metric_named_is_exported(self):
        types = self.exported()
        named = [(f"panel '{p['title']}'", t["expr"]) for p, t in self.targets()]
        named += [(f"alert {r['alert']}", r["expr"]) for r in self.alerts]
        named += [(f"variable {v['name']}", v["definition"]) for v in self.dashboard["templating"]["list"]
                  if v["type"] == "query"]
        for where, expr in named:
            with self.subTest(where=where):
                names = names_in(expr)
                self.assertTrue(names, expr)
                self.assertEqual(sorted(n for n in names if n not in types and n not in PROMETHEUS_OWN), [],
                                 "not exported by mintidd")
                if not where.startswith("alert"):
                    self.assertNotIn("up", names, "the dashboard shows mintidd's own metrics")
                for n in names & set(types):
                    # A counter only through rate() or increase(); a gauge never.
                    through = re.findall(rf"(\w*)\(\s*{n}\b", expr)
                    if types[n] == "counter":
                        self.assertTrue(through and all(f in ("rate", "increase") for f in through),
                                        f"{n} is a counter: {expr}")
                    else:
                        self.assertFalse(set(through) & {"rate", "increase", "irate"}, f"{n} is a gauge: {expr}")


def main():
    global MINTIDD, CONTRIB
    ap = argparse.ArgumentParser()
    ap.add_argument("--mintidd", required=True)
    ap.add_argument("--contrib", default=CONTRIB)
    ap.add_argument("--no-faketime", action="store_true", help="accepted for symmetry; nothing here fakes time")
    args, rest = ap.parse_known_args()
    MINTIDD, CONTRIB = os.path.abspath(args.mintidd), os.path.abspath(args.contrib)
    unittest.main(argv=[sys.argv[0], "-v"] + rest)


if __name__ == "__main__":
    main()
