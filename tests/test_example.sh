#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_example.sh - examples/mint.c is what README shows, and it works: the
# README's code block is the file, byte for byte, and the program built from
# it prints a nanoflake of node 7.
# Usage: test_example.sh SOURCE_DIR PATH/TO/example_mint PATH/TO/mintid
set -eu
src=$1 example=$2 mintid=$3

# The code block right after the line that names examples/mint.c.
shown=$(awk '/examples\/mint\.c/ { named = 1 } named && /^```c$/ { inside = 1; next }
             inside && /^```$/ { exit } inside { print }' "$src/README.md")
if [ "$shown" != "$(cat "$src/examples/mint.c")" ]; then
    echo "FAIL: README's library example differs from examples/mint.c:" >&2
    diff <(printf '%s\n' "$shown") "$src/examples/mint.c" >&2 || true
    exit 1
fi
id=$("$example")
node=$("$mintid" inspect --format nanoflake "$id" | sed -n 's/.*"generator":\([0-9]*\).*/\1/p')
[ "$node" = 7 ] || { echo "FAIL: examples/mint.c printed '$id', node '$node'" >&2; exit 1; }
echo ok
