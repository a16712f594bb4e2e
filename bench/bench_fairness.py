#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_fairness.py - how long other clients wait while one client asks
for a lot: a mintidd on spare loopback ports, one RESP client pipelining
50 x MINT nanoflake 100000 (and reading the replies), and meanwhile a second
client timing PING over RESP and GET /healthz over HTTP, one at a time.

Prints p50, p99 and max latency of each probe, under the load and, as the
baseline measured in the same run, with the server idle. The target is a p99
under 10 ms under the load.

Usage: bench/bench_fairness.py [MINTIDD] [--batches N] [--count N]
"""

import argparse
import os
import socket
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "server"))
from harness import Server  # noqa: E402


def ping(sock):
    t = time.perf_counter()
    sock.sendall(b"PING\r\n")
    buf = b""
    while not buf.endswith(b"\r\n"):
        buf += sock.recv(64)
    return time.perf_counter() - t


def healthz(sock):
    t = time.perf_counter()
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n")
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += sock.recv(4096)
    head, _, body = buf.partition(b"\r\n\r\n")
    length = int([h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")][0].split(b":")[1])
    while len(body) < length:
        body += sock.recv(4096)
    return time.perf_counter() - t


def probe(srv, stop, samples):
    r = socket.create_connection(("127.0.0.1", srv.resp_port))
    h = socket.create_connection(("127.0.0.1", srv.http_port))
    while not stop.is_set():
        samples["PING"].append(ping(r))
        samples["GET /healthz"].append(healthz(h))
        time.sleep(0.002)
    r.close()
    h.close()


def load(srv, batches, count):
    s = socket.create_connection(("127.0.0.1", srv.resp_port))
    s.sendall(b"".join(b"MINT nanoflake %d\r\n" % count for _ in range(batches)))
    # Read every reply: the array headers say how many lines follow.
    header = b"*%d\r\n" % count
    seen, tail = 0, b""
    while seen < batches:
        chunk = s.recv(1 << 20)
        if not chunk:
            break
        # A tail shorter than a header holds no whole one: none is counted twice.
        buf = tail + chunk
        seen += buf.count(header)
        tail = buf[-(len(header) - 1):]
    s.close()


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(len(v) * p))] * 1000


def report(label, samples):
    for name, v in samples.items():
        print(f"  {label:<11} {name:<13} n={len(v):<5} p50 {pct(v, .5):7.2f} ms   p99 {pct(v, .99):7.2f} ms   "
              f"max {max(v) * 1000:7.2f} ms")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mintidd", nargs="?", default="build/mintidd")
    ap.add_argument("--batches", type=int, default=50)
    ap.add_argument("--count", type=int, default=100000)
    args = ap.parse_args()
    with Server(os.path.abspath(args.mintidd)) as srv:
        idle = {"PING": [], "GET /healthz": []}
        stop = threading.Event()
        t = threading.Thread(target=probe, args=(srv, stop, idle))
        t.start()
        time.sleep(2)
        stop.set()
        t.join()

        busy = {"PING": [], "GET /healthz": []}
        stop = threading.Event()
        t = threading.Thread(target=probe, args=(srv, stop, busy))
        t.start()
        start = time.perf_counter()
        load(srv, args.batches, args.count)
        took = time.perf_counter() - start
        stop.set()
        t.join()
    print(f"fairness: {args.batches} x MINT nanoflake {args.count} pipelined on one connection took {took:.2f} s "
          f"({args.batches * args.count / took / 1000:.0f} IDs/ms); other clients meanwhile:")
    report("idle", idle)
    report("under load", busy)
    worst = max(pct(v, .99) for v in busy.values())
    print(f"  p99 under load: {worst:.2f} ms (target < 10 ms)")


if __name__ == "__main__":
    main()
