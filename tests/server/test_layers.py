#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The files of the library (src/) and of the server (server/) are layers:
no circle of #includes and no circle of calls between the files of each,
so each file can be read knowing only the files below it.

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
                inc = os.path.normpath(os.path.join(os.path.dirname(f), m.group(1)))
                if inc in headers and inc[:-2] != stem:
                    graph[stem].add(inc[:-2])
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
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
