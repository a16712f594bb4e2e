#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The files of server/ are layers: no circle of #includes and no circle of
calls between them, so each can be read knowing only the files below it.

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


def include_graph(server_dir):
    graph = {}
    names = sorted(f for f in os.listdir(server_dir) if f.endswith(('.c', '.h')))
    headers = {f for f in names if f.endswith('.h')}
    for f in names:
        stem = f[:-2]
        graph.setdefault(stem, set())
        with open(os.path.join(server_dir, f), encoding='utf-8') as src:
            for line in src:
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if m and m.group(1) in headers and m.group(1)[:-2] != stem:
                    graph[stem].add(m.group(1)[:-2])
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
    args = ap.parse_args()
    failed = False
    for what, graph in (('#include', include_graph(args.server_dir)), ('call', call_graph(args.core))):
        cycle = find_cycle(graph)
        if cycle:
            print('FAIL: a circle of %ss between files of server/: %s' % (what, ' -> '.join(cycle)))
            failed = True
        else:
            print('ok: no circle of %ss among %d files of server/' % (what, len(graph)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
