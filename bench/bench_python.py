#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python module against the standard library's uuid.uuid4(), side by side.

    PYTHONPATH=build/python python3 bench/bench_python.py [--rounds N] [--calls N]

Two comparisons, each timed in interleaved rounds (mintid, then the
baseline, then mintid again, ...) so that a busy moment of a shared machine
falls on both; the medians are printed with their ratio (above 1: mintid is
faster), in wall time and in CPU time:

  - one ID per call: mintid.gen('uuidv7') against str(uuid.uuid4());
  - a thousand at once: mintid.gen('ulid', n=1000) against a loop of 1000
    str(uuid.uuid4()).

mintid.gen() draws from the host-wide generator (the default), so each ID
takes the host-wide state's lock. Nothing here asserts a timing.
"""
import argparse
import statistics
import sys
import time
import uuid

import mintid


def per_call_mintid(calls):
    gen = mintid.gen
    for _ in range(calls):
        gen("uuidv7")


def per_call_uuid4(calls):
    uuid4 = uuid.uuid4
    for _ in range(calls):
        str(uuid4())


def batch_mintid(batches):
    gen = mintid.gen
    for _ in range(batches):
        gen("ulid", n=1000)


def batch_uuid4(batches):
    uuid4 = uuid.uuid4
    for _ in range(batches):
        [str(uuid4()) for _ in range(1000)]


def timed(fn, count):
    wall, cpu = time.perf_counter(), time.process_time()
    fn(count)
    return time.perf_counter() - wall, time.process_time() - cpu


def compare(title, unit, ours, theirs, count, rounds):
    ours(count // 10)  # warm up: the host-wide state opened, caches filled
    theirs(count // 10)
    mine_w, mine_c, base_w, base_c = [], [], [], []
    for _ in range(rounds):
        w, c = timed(ours, count)
        mine_w.append(w)
        mine_c.append(c)
        w, c = timed(theirs, count)
        base_w.append(w)
        base_c.append(c)
    m_w, m_c = statistics.median(mine_w), statistics.median(mine_c)
    b_w, b_c = statistics.median(base_w), statistics.median(base_c)
    print(title)
    print("  mintid   %8.0f ns per %s (median of %d rounds of %d)" % (m_w / count * 1e9, unit, rounds, count))
    print("  baseline %8.0f ns per %s" % (b_w / count * 1e9, unit))
    print("  ratio    %8.2f time, %.2f CPU (above 1: mintid is faster)" % (b_w / m_w, b_c / m_c))
    return b_w / m_w


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds per comparison (default 7)")
    parser.add_argument("--calls", type=int, default=200000, help="calls per round, one ID each (default 200000)")
    args = parser.parse_args()
    if args.rounds < 1 or args.calls < 1000:
        parser.error("--rounds from 1, --calls from 1000")
    print("Python %s, mintid %s; host-wide state %s" % (sys.version.split()[0], mintid.__version__,
                                                         mintid.Generator("uuidv7").path))
    one = compare("mintid.gen('uuidv7') against str(uuid.uuid4()), one per call:", "ID", per_call_mintid,
                  per_call_uuid4, args.calls, args.rounds)
    many = compare("mintid.gen('ulid', n=1000) against a loop of 1000 str(uuid.uuid4()):", "1000 IDs",
                   batch_mintid, batch_uuid4, max(args.calls // 1000, 20), args.rounds)
    print("summary: per call %.2fx (target 1.5x), n=1000 %.2fx (target 10x)" % (one, many))


if __name__ == "__main__":
    main()
