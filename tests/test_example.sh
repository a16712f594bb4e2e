#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_example.sh - the examples README and the format pages show are what
# the project does: examples/mint.c is README's code block, byte for byte,
# and the program built from it prints a nanoflake of node 7; and every
# `$ mintid ...` line of a console block in README.md and docs/formats/*.md,
# run as written, prints what the page shows under it.
# Usage: test_example.sh SOURCE_DIR PATH/TO/example_mint PATH/TO/mintid [--no-faketime]
# (--no-faketime for sanitizer builds, whose runtimes and libfaketime do not mix)
set -eu
src=$1 example=$2 mintid=$3 no_faketime=${4:-}

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

# ---- the command's examples -------------------------------------------------------------
# Each example is a `$ ` line of a ```console block and the lines under it, up to the next
# `$ ` line or the block's end. Those whose command is mintid (after variables and a
# faketime) are run as written, in page order, by bash, in an empty directory, with this
# build's mintid first on PATH and the host-wide generators' state in a directory of their
# own. What one prints, standard error and output together, must be the lines shown:
# mintid buffers its standard output even on a terminal, so its messages come before its
# IDs there as here. `mintid gen` under the real clock prints new IDs each time: there the
# lines are compared by shape (a message whole but for the ID it quotes, a JSON object by
# its format and keys, an ID by its length and a decimal by being one). Everything else, a
# faked clock's run included, must print the same bytes. (Without faketime, in sanitizer
# builds, the faked clock's runs are left out.)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/host" "$tmp/work" "$tmp/ex"
ln -s "$(cd "$(dirname "$mintid")" && pwd)/$(basename "$mintid")" "$tmp/bin/mintid"
unset MINTID_NODE MINTID_ID_SPACE
export MINTID_HOST_DIR=$tmp/host
if [ "$no_faketime" != --no-faketime ] && ! command -v faketime >/dev/null; then
    echo "FAIL: faketime is not installed (make deps installs it)" >&2
    exit 1
fi

# Copies standard input, each line as its shape when $1 is 1 (the output of a fresh mint).
shape() {
    awk -v fresh="$1" '
        fresh != 1 { print; next }
        /^mintid: / { gsub(/\047[^\047]*\047/, "\047ID\047"); print; next }
        /^\{"format":"/ {
            sub(/^\{"format":"/, "{\"format\"=\"")
            gsub(/:"[^"]*"/, ":\"\""); gsub(/:-?[0-9]+/, ":0"); sub(/=/, ":"); print; next
        }
        {
            line = $0; shaped = ""
            while (match(line, /[0-9A-Za-z_-]+/)) {
                word = substr(line, RSTART, RLENGTH)
                if (word ~ /^[0-9]+$/) word = "N"; else gsub(/./, "x", word)
                shaped = shaped substr(line, 1, RSTART - 1) word
                line = substr(line, RSTART + RLENGTH)
            }
            print shaped line
        }'
}

ran=0 faked=0 failed=0
for page in "$src/README.md" "$src"/docs/formats/*.md; do
    rm -f "$tmp"/ex/*
    awk -v out="$tmp/ex" '
        function example_end() { if (base != "") close(base ".want"); base = "" }
        /^```console$/ { inside = 1; next }
        inside && /^```/ { example_end(); inside = 0; next }
        inside && /^\$ / {
            example_end()
            prog = substr($0, 3)
            sub(/^([A-Za-z_][A-Za-z_0-9]*=[^ ]* )*/, "", prog)
            sub(/^faketime (-f )?\047[^\047]*\047 /, "", prog)
            if (prog !~ /^mintid /) next
            base = sprintf("%s/%04d", out, ++n)
            print FNR > (base ".line"); close(base ".line")
            print substr($0, 3) > (base ".cmd"); close(base ".cmd")
            printf "" > (base ".want")
            next
        }
        inside && base != "" { print > (base ".want") }
    ' "$page"
    for base in "$tmp"/ex/*.cmd; do
        [ -e "$base" ] || break
        base=${base%.cmd}
        cmd=$(cat "$base.cmd")
        where="${page#"$src"/}:$(cat "$base.line")"
        case $cmd in
        *faketime*)
            [ "$no_faketime" = --no-faketime ] && continue
            fresh=0 faked=$((faked + 1)) ;;
        *"mintid gen "*) fresh=1 ;;
        *) fresh=0 ;;
        esac
        (cd "$tmp/work" && PATH="$tmp/bin:$PATH" bash -c "$cmd" </dev/null >"$base.got" 2>&1) || true
        # The faketime wrapper names a semaphore after its pid and stops when a faked process
        # killed elsewhere left one of that name: a word on the wrapper, not on mintid. Once
        # more, under another pid.
        if [ "$(head -n 1 "$base.got")" = "faketime: sem_open: File exists" ]; then
            echo "$where: faketime found a stale semaphore of its pid; again" >&2
            (cd "$tmp/work" && PATH="$tmp/bin:$PATH" bash -c "$cmd" </dev/null >"$base.got" 2>&1) || true
        fi
        ran=$((ran + 1))
        if [ "$(shape $fresh <"$base.got")" != "$(shape $fresh <"$base.want")" ]; then
            echo "FAIL: $where: \$ $cmd" >&2
            diff <(shape $fresh <"$base.want") <(shape $fresh <"$base.got") | sed 's/^/    /' >&2 || true
            failed=$((failed + 1))
        fi
    done
done
echo "$ran examples run, $faked of them under faketime, $failed not as shown"
[ "$failed" = 0 ] || exit 1
# Pages that lost their examples, or faketime runs the test no longer finds, would pass unseen.
[ "$ran" -ge 100 ] || { echo "FAIL: only $ran examples found" >&2; exit 1; }
if [ "$no_faketime" != --no-faketime ] && [ "$faked" -lt 6 ]; then
    echo "FAIL: only $faked examples under faketime found" >&2
    exit 1
fi
echo ok
