#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The files of the library (src/) and of the server (server/) are layers:
no circle of #includes and no circle of calls between the files of each,
so each file can be read knowing only the files below it. And server/'s
rooms (its sub-folders) call only the rooms below them (SERVER_ROOMS): the
network layer never calls the key store or the cluster.

Two graphs, each of which must have no cycle:
  - includes: a file's stem (x.c and x.h are one node, x) to the stems of
    the headers of server/ it includes;
  - calls: an object file of the server's library to the object files that
    define the functions and variables it uses (nm's undefined symbols
    against its defined ones), which is what a call by name is.
A function reached through a table of operations (a protocol's handler, a
wait queue's callback) is not a call by name, and is how a lower layer
calls a higher one.

usage: test_layers.py --server-dir server/ --core path/to/libmintidd_core.a
                      --src-dir src/ --lib path/to/libmintid.a
"""
import argparse
import os
import re
import subprocess
import sys


def find_cycle(graph):
    """A cycle of graph (node -> set of nodes) as a list, or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = {n: WHITE for n in graph}
    stack = []

    def visit(n):
        colour[n] = GREY
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if colour.get(m, WHITE) == GREY:
                return stack[stack.index(m):] + [m]
            if colour.get(m, WHITE) == WHITE:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        colour[n] = BLACK
        return None

    for n in sorted(graph):
        if colour[n] == WHITE:
            found = visit(n)
            if found:
                return found
    return None


def include_graph(top):
    """A file's stem (x.c and x.h are one node, x; paths below top) to the stems of the headers it includes."""
    graph = {}
    names = sorted(os.path.relpath(os.path.join(d, f), top) for d, _, fs in os.walk(top) for f in fs
                   if f.endswith(('.c', '.h')))
    headers = {f for f in names if f.endswith('.h')}
    for f in names:
        stem = f[:-2]
        graph.setdefault(stem, set())
        with open(os.path.join(top, f), encoding='utf-8') as src:
            for line in src:
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                # As the compiler looks: beside the file, then from the top (-I).
                for inc in (os.path.normpath(os.path.join(os.path.dirname(f), m.group(1))),
                            os.path.normpath(m.group(1))):
                    if inc in headers:
                        if inc[:-2] != stem:
                            graph[stem].add(inc[:-2])
                        break
    return graph


def call_graph(core):
    """Object file -> object files whose symbols it uses, from nm on the archive."""
    out = subprocess.run(['nm', '-A', core], check=True, capture_output=True, text=True).stdout
    defined, used = {}, {}
    for line in out.splitlines():
        # "lib.a:conn.c.o:                 U http_handle" or "...:0000 T conn_free"
        m = re.match(r'^[^:]+:([^:]+):\s*(?:[0-9a-fA-F]+\s+)?([A-Za-z])\s+(\S+)$', line)
        if not m:
            continue
        obj, kind, sym = m.group(1), m.group(2), m.group(3)
        obj = os.path.basename(obj).split('.')[0]
        if kind == 'U':
            used.setdefault(obj, set()).add(sym)
        elif kind in 'TDBR':  # global function, data, bss, read-only data
            defined[sym] = obj
    graph = {}
    for obj, syms in used.items():
        graph.setdefault(obj, set())
        for s in syms:
            if s in defined and defined[s] != obj:
                graph[obj].add(defined[s])
    for obj in defined.values():
        graph.setdefault(obj, set())
    return graph


# The rooms of server/ and the rooms each may call by name: what a room is
# below never calls up into it (it calls up through a table of operations).
# "." is the service (service.c, stats.c, job.c); the process (main.c,
# workers.c, shared.c) is above everything and not in the library.
SERVER_ROOMS = {
    "base": set(),                     # settings, the log, the state directory, the host's claim
    "net": {"base"},                   # connections: never the key store, the cluster or a protocol
    "cluster": {"base"},               # etcd and the node lease
    "keys": {"base", "cluster"},       # idempotency keys and their stores
    ".": {"base", "net", "cluster"},   # the service and the mint jobs
    "http": {".", "base", "net", "keys"},
    "resp": {".", "base", "net", "keys"},
}


def room_breaches(server_dir, graph):
    """Calls from one room of server/ into another that SERVER_ROOMS does not allow, as sentences."""
    room = {}
    for d, _, fs in os.walk(server_dir):
        for f in fs:
            if f.endswith('.c'):
                rel = os.path.relpath(d, server_dir)
                room[f[:-2]] = '.' if rel == '.' else rel
    breaches = []
    for a, bs in sorted(graph.items()):
        ra = room.get(a)
        if ra not in SERVER_ROOMS:
            breaches.append(f"{a}.c is in no room SERVER_ROOMS knows ({ra})")
            continue
        for b in sorted(bs):
            rb = room.get(b)
            if rb != ra and rb not in SERVER_ROOMS[ra]:
                breaches.append(f"{ra}/{a}.c calls {rb}/{b}.c, but {ra} may call only {sorted(SERVER_ROOMS[ra])}")
    return breaches


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--server-dir', required=True)
    ap.add_argument('--core', required=True, help="the server's static library (mintidd_core)")
    ap.add_argument('--src-dir', required=True)
    ap.add_argument('--lib', required=True, help="the library's static library (mintid_static)")
    args = ap.parse_args()
    failed = False
    for where, graphs in (('server/', (('#include', include_graph(args.server_dir)), ('call', call_graph(args.core)))),
                          ('src/', (('#include', include_graph(args.src_dir)), ('call', call_graph(args.lib))))):
        for what, graph in graphs:
            cycle = find_cycle(graph)
            if cycle:
                print('FAIL: a circle of %ss between files of %s: %s' % (what, where, ' -> '.join(cycle)))
                failed = True
            else:
                print('ok: no circle of %ss among %d files of %s' % (what, len(graph), where))
    breaches = room_breaches(args.server_dir, call_graph(args.core))
    for b in breaches:
        print('FAIL: ' + b)
    if not breaches:
        print('ok: every call between the rooms of server/ goes down (%s)' % ', '.join(sorted(SERVER_ROOMS)))
    return 1 if failed or breaches else 0


if __name__ == '__main__':
    sys.exit(main())
