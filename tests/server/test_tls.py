# SPDX-License-Identifier: MIT
"""test_tls.py - mintidd's TLS listeners, black-box, with a throwaway CA
made by `openssl req`: RESP and HTTPS over TLS beside the plain listeners
or alone, TLS 1.2 as the floor, handshakes that never hold up other clients
and time out, certificates reloaded on SIGHUP, client certificates with
tls-ca; certificates expired or not yet valid (dated by `openssl ca`)
warned about at start and refused by a reload, and their expiry in
/metrics.

Usage: python3 test_tls.py --mintidd PATH
"""

import argparse
import calendar
import datetime
import http.client
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, make_certs, spare_port  # noqa: E402
from resp_client import Resp  # noqa: E402

MINTIDD = None


class TlsResp(Resp):
    """resp_client's Resp over TLS."""

    def __init__(self, port, ctx, timeout=10):
        raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        try:
            self.sock = ctx.wrap_socket(raw, server_hostname="localhost")
        except BaseException:
            raw.close()
            raise
        self.buf = b""


def dated_cert(directory, name, not_before, not_after, cn="localhost"):
    """A server certificate for 127.0.0.1 and localhost, valid from
    not_before to not_after (datetimes, UTC), signed by the CA make_certs
    made in directory with `openssl ca`, which takes any dates. Writes
    name.crt and name.key there; returns their paths and not_after as Unix
    seconds."""
    conf = os.path.join(directory, "ca.cnf")
    if not os.path.exists(conf):
        open(os.path.join(directory, "index.txt"), "w").close()
        with open(conf, "w") as f:
            f.write(f"[ca]\ndefault_ca = signer\n[signer]\ndatabase = {directory}/index.txt\n"
                    f"new_certs_dir = {directory}\nrand_serial = yes\ndefault_md = sha256\npolicy = anything\n"
                    "copy_extensions = copy\nunique_subject = no\n[anything]\ncommonName = supplied\n")
    crt, key, csr = (os.path.join(directory, name + ext) for ext in (".crt", ".key", ".csr"))
    # An EC key: made at once, where an RSA key takes a good part of a second.
    for args in (["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                  "-out", csr, "-subj", "/CN=" + cn, "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                 ["ca", "-batch", "-config", conf, "-in", csr, "-out", crt, "-notext",
                  "-cert", os.path.join(directory, "ca.crt"), "-keyfile", os.path.join(directory, "ca.key"),
                  "-startdate", not_before.strftime("%Y%m%d%H%M%SZ"), "-enddate", not_after.strftime("%Y%m%d%H%M%SZ")]):
        subprocess.run(["openssl", *args], check=True, capture_output=True)
    return crt, key, calendar.timegm(not_after.utctimetuple())


def days_from_now(days):
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    return now + datetime.timedelta(days=days)


def client_ctx(certs, client_cert=False):
    ctx = ssl.create_default_context(cafile=certs["ca"])
    if client_cert:
        ctx.load_cert_chain(certs["client_cert"], certs["client_key"])
    return ctx


class Tls(unittest.TestCase):
    def start(self, extra=(), certs=None):
        tmp = tempfile.TemporaryDirectory(prefix="mintidd-tls-")
        self.addCleanup(tmp.cleanup)
        certs = certs or make_certs(tmp.name)
        https, resp_tls = spare_port(), spare_port()
        srv = Server(MINTIDD, args=["--http-tls", f"127.0.0.1:{https}", "--resp-tls", f"127.0.0.1:{resp_tls}",
                                    "--tls-cert", certs["cert"], "--tls-key", certs["key"], "--log-level", "debug",
                                    *extra])
        srv.start()
        self.addCleanup(srv.__exit__, None, None, None)
        srv.https, srv.resp_tls, srv.certs, srv.dir = https, resp_tls, certs, tmp.name
        return srv

    def metric(self, srv, name):
        c = http.client.HTTPConnection("127.0.0.1", srv.http_port, timeout=10)
        c.request("GET", "/metrics")
        body = c.getresponse().read().decode()
        c.close()
        found = re.search(r"^%s (\d+)$" % name, body, re.M)
        self.assertIsNotNone(found, f"{name} is not in /metrics")
        return int(found[1])

    def expiries(self, srv, times=20):
        """mintid_tls_cert_expiry_timestamp_seconds from `times` connections
        of their own, which the workers take in turn as they come: the set
        of values seen."""
        return {self.metric(srv, "mintid_tls_cert_expiry_timestamp_seconds") for _ in range(times)}

    def test_side_by_side(self):
        srv = self.start()
        r = TlsResp(srv.resp_tls, client_ctx(srv.certs))
        self.assertEqual(r.sock.version() in ("TLSv1.2", "TLSv1.3"), True)
        self.assertEqual(len(r.call("MINT", "nanoflake", 3)), 3)
        self.assertEqual(r.call("HELLO", "3")["proto"], 3)
        r.sock.sendall(b"*2\r\n$4\r\nMINT\r\n$7\r\nscru160\r\n" * 100)
        ids = [r.read() for _ in range(100)]
        self.assertEqual(ids, sorted(set(ids)))
        # A batch larger than one TLS record and one slice.
        self.assertEqual(len(r.call("MINT", "scru160", 50000)), 50000)
        r.close()
        # Plain listeners are still plain.
        plain = Resp(srv.resp_port)
        self.assertEqual(plain.call("PING"), "PONG")
        plain.close()
        c = http.client.HTTPSConnection("127.0.0.1", srv.https, timeout=10, context=client_ctx(srv.certs))
        c.request("GET", "/v1/nanoflake?count=2")
        resp = c.getresponse()
        self.assertEqual((resp.status, len(resp.read().split())), (200, 2))
        c.request("GET", "/healthz")  # kept alive
        self.assertEqual(c.getresponse().status, 200)
        c.close()

    def test_plain_bytes_on_a_tls_port(self):
        srv = self.start()
        before = self.metric(srv, "mintid_tls_handshake_failures_total")
        with socket.create_connection(("127.0.0.1", srv.resp_tls), timeout=5) as s:
            s.sendall(b"*1\r\n$4\r\nPING\r\n")
            try:
                data = s.recv(4096)
            except ConnectionResetError:
                data = b""
            self.assertNotIn(b"PONG", data)
        deadline = time.monotonic() + 5
        while self.metric(srv, "mintid_tls_handshake_failures_total") == before and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(self.metric(srv, "mintid_tls_handshake_failures_total"), before + 1)

    def test_tls_1_1_refused(self):
        srv = self.start()
        for flag in ["-tls1_1", "-tls1"]:
            p = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{srv.resp_tls}", flag,
                                "-cipher", "DEFAULT@SECLEVEL=0", "-CAfile", srv.certs["ca"]],
                               input="", capture_output=True, text=True, timeout=20)
            self.assertNotEqual(p.returncode, 0, flag)
            self.assertRegex(p.stdout + p.stderr, r"alert protocol version|unsupported protocol|no protocols available",
                             flag)
        p = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{srv.resp_tls}", "-tls1_2",
                            "-CAfile", srv.certs["ca"]], input="", capture_output=True, text=True, timeout=20)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Protocol  : TLSv1.2", p.stdout)

    def test_stalled_handshake_holds_no_one_up_and_times_out(self):
        srv = self.start(["--tls-handshake-timeout", "2"])
        before = self.metric(srv, "mintid_tls_handshake_failures_total")
        stalled = []
        for port in [srv.resp_tls, srv.https]:
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            s.sendall(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")  # the start of a ClientHello, then nothing
            stalled.append(s)
        t0 = time.monotonic()
        r = TlsResp(srv.resp_tls, client_ctx(srv.certs))
        self.assertEqual(len(r.call("MINT", "nanoflake", 10)), 10)
        self.assertLess(time.monotonic() - t0, 1.0)
        r.close()
        for s in stalled:
            try:
                self.assertEqual(s.recv(4096), b"")
            except ConnectionResetError:
                pass
            self.assertGreater(time.monotonic() - t0, 1.5)
            self.assertLess(time.monotonic() - t0, 6)
            s.close()
        self.assertEqual(self.metric(srv, "mintid_tls_handshake_failures_total"), before + 2)
        # The log is written by a thread of its own: looked for until it comes.
        self.assertTrue(srv.wait_log(b"TLS handshake unfinished after 2 s", count=1), srv.log.decode())

    def peer_cn(self, srv):
        with client_ctx(srv.certs).wrap_socket(socket.create_connection(("127.0.0.1", srv.resp_tls), timeout=10),
                                               server_hostname="localhost") as s:
            return dict(x[0] for x in s.getpeercert()["subject"])["commonName"]

    def test_sighup_reload(self):
        srv = self.start()
        self.assertEqual(self.peer_cn(srv), "localhost")
        old = TlsResp(srv.resp_tls, client_ctx(srv.certs))
        self.assertEqual(old.call("PING"), "PONG")
        # A new certificate in the same files, then SIGHUP.
        make_certs(srv.dir, server_cn="reloaded")
        srv.proc.send_signal(signal.SIGHUP)
        self.assertTrue(srv.wait_log(b"TLS: certificates reloaded"), "not every worker reloaded")
        self.assertEqual(self.peer_cn(srv), "reloaded")
        self.assertEqual(old.call("PING"), "PONG")  # connections already open carry on
        # A reload that fails keeps the certificate in use.
        saved = srv.certs["key"] + ".saved"
        shutil.copy(srv.certs["key"], saved)
        with open(srv.certs["key"], "w") as f:
            f.write("not a key\n")
        srv.proc.send_signal(signal.SIGHUP)
        self.assertTrue(srv.wait_log(b"certificates not reloaded"), "not every worker tried to reload")
        self.assertIn("certificates not reloaded; the previous ones stay in use", srv.log.decode())
        self.assertEqual(self.peer_cn(srv), "reloaded")
        old.close()

    def test_tls_alone(self):
        """Either TLS listener is enough with the plain ones turned off."""
        tmp = tempfile.TemporaryDirectory(prefix="mintidd-tls-")
        self.addCleanup(tmp.cleanup)
        certs = make_certs(tmp.name)
        for listener in ["--http-tls", "--resp-tls"]:
            with self.subTest(listener=listener):
                port = spare_port()
                srv = Server(MINTIDD, args=["--http", "", "--resp", "", listener, f"127.0.0.1:{port}",
                                            "--tls-cert", certs["cert"], "--tls-key", certs["key"]])
                srv.start(expect_ready=False)
                self.addCleanup(srv.__exit__, None, None, None)
                deadline = time.monotonic() + 20
                while b" ready: " not in srv.log and srv.proc.poll() is None and time.monotonic() < deadline:
                    time.sleep(0.05)
                self.assertIn(b" ready: ", srv.log, srv.log.decode())
                if listener == "--http-tls":
                    c = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=client_ctx(certs))
                    c.request("GET", "/v1/nanoflake?count=2")
                    resp = c.getresponse()
                    self.assertEqual((resp.status, len(resp.read().split())), (200, 2))
                    c.close()
                else:
                    with TlsResp(port, client_ctx(certs)) as r:
                        self.assertEqual(len(r.call("MINT", "nanoflake", 2)), 2)
                for plain in [srv.http_port, srv.resp_port]:
                    with self.assertRaises(ConnectionRefusedError):
                        socket.create_connection(("127.0.0.1", plain), timeout=5).close()
                status, log = srv.stop()
                self.assertEqual(status, 0, log)

    def test_no_listener_at_all(self):
        srv = Server(MINTIDD, args=["--http", "", "--resp", ""])
        srv.start(expect_ready=False)
        status, log = srv.wait(30)
        srv.__exit__(None, None, None)
        self.assertEqual(status, 2, log)
        self.assertIn("nothing to serve: http, resp, http-tls and resp-tls are all empty", log)

    def test_certificate_dates_at_start(self):
        """A certificate expired or not yet valid is served, with a warning,
        and its end is in /metrics. An expired certificate after the
        server's in its chain file (a cross-signature kept for old clients)
        is none of the server's business: clients that build their path
        without it accept the chain."""
        tmp = tempfile.TemporaryDirectory(prefix="mintidd-tls-")
        self.addCleanup(tmp.cleanup)
        certs = make_certs(tmp.name)
        d = datetime.datetime
        expired, expired_key, expired_end = dated_cert(tmp.name, "expired", d(2020, 1, 1), d(2020, 1, 2))
        early_start = days_from_now(400)
        early, early_key, early_end = dated_cert(tmp.name, "early", early_start, days_from_now(800))
        good, good_key, good_end = dated_cert(tmp.name, "good", days_from_now(-1), days_from_now(30))
        chain = os.path.join(tmp.name, "chain.crt")
        with open(chain, "w") as out:
            for part in [good, expired]:
                with open(part) as f:
                    out.write(f.read())
        for cert, key, end, warning in [
                (expired, expired_key, expired_end,
                 "certificate 'CN=localhost' expired at 2020-01-02 00:00:00 UTC; TLS clients refuse it"),
                (early, early_key, early_end,
                 f"certificate 'CN=localhost' is not valid until {early_start:%Y-%m-%d %H:%M:%S} UTC; "
                 "TLS clients refuse it"),
                (chain, good_key, good_end, None)]:
            with self.subTest(cert=os.path.basename(cert)):
                srv = self.start(certs=dict(certs, cert=cert, key=key))
                self.assertEqual(self.expiries(srv, 4), {end})
                if warning is not None:
                    self.assertTrue(srv.wait_log(warning.encode()), srv.log.decode())
                    with self.assertRaises(ssl.SSLCertVerificationError):
                        TlsResp(srv.resp_tls, client_ctx(certs)).close()
                else:
                    with TlsResp(srv.resp_tls, client_ctx(certs)) as r:
                        self.assertEqual(r.call("PING"), "PONG")
                status, log = srv.stop()
                self.assertEqual(status, 0, log)
                if warning is None:
                    self.assertNotIn("TLS clients refuse it", log)

    def test_sighup_refuses_expired_or_early_certificates(self):
        """A reload to a certificate expired or not yet valid is refused in
        every worker, which goes on serving the one it had (and showing its
        end in /metrics); a valid one is then taken by every worker."""
        tmp = tempfile.TemporaryDirectory(prefix="mintidd-tls-")
        self.addCleanup(tmp.cleanup)
        certs = make_certs(tmp.name)
        cert, key = os.path.join(tmp.name, "in-use.crt"), os.path.join(tmp.name, "in-use.key")

        def install(name, not_before, not_after):
            crt, k, end = dated_cert(tmp.name, name, not_before, not_after, cn=name)
            shutil.copy(crt, cert)
            shutil.copy(k, key)
            return end

        first_end = install("first", days_from_now(-1), days_from_now(30))
        srv = self.start(certs=dict(certs, cert=cert, key=key))
        self.assertEqual(self.peer_cn(srv), "first")
        self.assertEqual(self.expiries(srv), {first_end})
        refusals = 0
        for name, not_before, not_after, why in [
                ("expired", datetime.datetime(2020, 1, 1), datetime.datetime(2020, 1, 2),
                 "certificate 'CN=expired' expired at 2020-01-02 00:00:00 UTC, and TLS clients would refuse it"),
                ("early", days_from_now(400), days_from_now(800), "certificate 'CN=early' is not valid until ")]:
            install(name, not_before, not_after)
            srv.proc.send_signal(signal.SIGHUP)
            refusals += srv.workers
            self.assertTrue(srv.wait_log(b"TLS: certificates not reloaded; the previous ones stay in use", refusals),
                            "not every worker refused:\n" + srv.log.decode())
            self.assertEqual(srv.log.count(why.encode()), srv.workers, srv.log.decode())
            self.assertEqual(self.peer_cn(srv), "first")
            self.assertEqual(self.expiries(srv), {first_end})
        renewed_end = install("renewed", days_from_now(-1), days_from_now(60))
        srv.proc.send_signal(signal.SIGHUP)
        self.assertTrue(srv.wait_log(b"TLS: certificates reloaded"), "not every worker reloaded:\n" + srv.log.decode())
        self.assertEqual(self.peer_cn(srv), "renewed")
        self.assertEqual(self.expiries(srv), {renewed_end})

    def test_client_certificates(self):
        tmp = tempfile.TemporaryDirectory(prefix="mintidd-tls-")
        self.addCleanup(tmp.cleanup)
        certs = make_certs(tmp.name)
        srv = self.start(["--tls-ca", certs["ca"]], certs=certs)
        r = TlsResp(srv.resp_tls, client_ctx(certs, client_cert=True))
        self.assertEqual(r.call("PING"), "PONG")
        self.assertRegex(r.call("MINT", "nanoflake"), r"^[0-9a-z]{12}$")
        r.close()
        with self.assertRaises((ssl.SSLError, ConnectionError)):
            with TlsResp(srv.resp_tls, client_ctx(certs)) as r:
                # TLS 1.3 reports a refused certificate at the first read.
                r.call("PING")
        p = subprocess.run(["curl", "-sS", "--cacert", certs["ca"], "--cert", certs["client_cert"], "--key",
                            certs["client_key"], f"https://127.0.0.1:{srv.https}/v1/nanoflake"],
                           capture_output=True, text=True, timeout=20)
        self.assertRegex(p.stdout, r"^[0-9a-z]{12}\n$")
        p = subprocess.run(["curl", "-sS", "--cacert", certs["ca"], f"https://127.0.0.1:{srv.https}/v1/nanoflake"],
                           capture_output=True, text=True, timeout=20)
        self.assertNotEqual(p.returncode, 0)

    def test_settings_checked_at_start(self):
        with tempfile.TemporaryDirectory(prefix="mintidd-tls-") as d:
            certs = make_certs(d)
            for args, message in [
                    (["--resp-tls", f"127.0.0.1:{spare_port()}"], "http-tls and resp-tls need tls-cert and tls-key"),
                    (["--resp-tls", f"127.0.0.1:{spare_port()}", "--tls-cert", certs["cert"], "--tls-key",
                      certs["client_key"]], "key values mismatch"),
                    (["--resp-tls", f"127.0.0.1:{spare_port()}", "--tls-cert", os.path.join(d, "nope"),
                      "--tls-key", certs["key"]], "tls-cert")]:
                srv = Server(MINTIDD, args=args)
                srv.start(expect_ready=False)
                status, log = srv.wait(30)
                srv.__exit__(None, None, None)
                self.assertNotEqual(status, 0, args)
                self.assertIn(message, log, args)


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
