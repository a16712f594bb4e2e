#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_keys.sh - keyed mints (POST /v1/nanoflake with an Idempotency-Key,
# each one new) against plain ones, on one mintidd, in one run.
#
# Starts its own mintidd on spare loopback ports with a state directory of
# its own, and drives it with wrk, 50 connections:
#
#   plain     GET /v1/nanoflake
#   keyed     POST /v1/nanoflake, every request a new key: each is minted,
#             committed to the key store (fsynced, together with the keys
#             waiting at the same moment) and only then answered
#   mixed     both at once, 25 connections each: the plain rate beside
#             keyed load, against the plain rate of 25 connections alone
#             (the two cores are shared by wrk, the event loop and the
#             key store's thread, so keyed load takes some of them)
#
# The three take turns, ROUNDS times each, and the medians are printed, with
# keyed/plain and mixed-plain/plain as ratios: on a shared two-core machine,
# where wrk and the server fight for the same cores, an absolute rate says
# little, a ratio measured side by side more.
#
# usage: bench/bench_keys.sh [MINTIDD]
#   MINTIDD      the built server (default: build/mintidd of this repository)
# environment:
#   ROUNDS       rounds per test; the median is printed (default 3)
#   WRK_SECONDS  length of one wrk run (default 5)
#   VERBOSE=1    also print every run on stderr
#
# Nothing here asserts a threshold: the script exits 0 whatever the rates,
# and 1 only when something could not be run (wrk missing, the server not
# starting, an answer other than 200/201). The server is stopped on every
# exit.
set -euo pipefail

readonly CLIENTS=50

die() {
    echo "bench_keys.sh: $*" >&2
    exit 1
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $# -le 1 ]] || die "usage: $0 [MINTIDD]"
mintidd=${1:-$here/../build/mintidd}
[[ -x $mintidd ]] || die "'$mintidd' is not an executable; build it first: cmake --build build -j2"
command -v wrk > /dev/null || die "wrk is needed (Debian's wrk; make deps installs it)"
command -v python3 > /dev/null || die "python3 is needed to find spare ports"
rounds=${ROUNDS:-3}
seconds=${WRK_SECONDS:-5}
[[ $rounds =~ ^[1-9][0-9]?$ ]] || die "ROUNDS='$rounds' is not 1..99"
[[ $seconds =~ ^[1-9][0-9]?$ ]] || die "WRK_SECONDS='$seconds' is not 1..99"

tmp=$(mktemp -d)
pid=
cleanup() {
    if [[ -n $pid ]]; then
        kill -TERM "$pid" 2> /dev/null || true
        wait "$pid" 2> /dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

read -r http_port resp_port < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in ss))')
MINTID_ID_SPACE="bench-keys-$$" "$mintidd" --http "127.0.0.1:$http_port" --resp "127.0.0.1:$resp_port" \
    --state-dir "$tmp/state" --max-connections 1000 2> "$tmp/mintidd.log" &
pid=$!
for _ in $(seq 100); do
    if (exec 3<> "/dev/tcp/127.0.0.1/$http_port") 2> /dev/null; then break; fi
    kill -0 "$pid" 2> /dev/null || die "mintidd did not start: $(cat "$tmp/mintidd.log")"
    sleep 0.1
done
base="http://127.0.0.1:$http_port"

# Each wrk thread numbers its keys; the run's name and the thread's number
# keep every key of the whole run new.
cat > "$tmp/keyed.lua" << 'EOF'
local threads = 0
function setup(thread)
    threads = threads + 1
    thread:set("tid", threads)
end
function init(args)
    prefix = args[1] .. "-" .. tid .. "-"
    n = 0
end
function request()
    n = n + 1
    return wrk.format("POST", "/v1/nanoflake", {["Idempotency-Key"] = '"' .. prefix .. n .. '"'})
end
EOF

# wrk's requests per second, after checking that every answer was 2xx.
rate() { # OUTPUT
    ! grep -q "Non-2xx" <<< "$1" || die "non-2xx answers: $1"
    ! grep -q "Socket errors" <<< "$1" || die "socket errors: $1"
    awk '/^Requests\/sec:/ {printf "%d", $2}' <<< "$1"
}
run=0
plain() { # CONNECTIONS
    rate "$(wrk -t1 -c"$1" -d"${seconds}s" "$base/v1/nanoflake")"
}
keyed() { # CONNECTIONS
    run=$((run + 1))
    rate "$(wrk -t1 -c"$1" -d"${seconds}s" -s "$tmp/keyed.lua" "$base" -- "r$run-$1-$RANDOM")"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

: > "$tmp/plain"
: > "$tmp/keyed"
: > "$tmp/mixed_plain"
: > "$tmp/half"
: > "$tmp/mixed_keyed"
for r in $(seq "$rounds"); do
    p=$(plain $CLIENTS)
    h=$(plain $((CLIENTS / 2)))
    k=$(keyed $CLIENTS)
    keyed $((CLIENTS / 2)) > "$tmp/mk" &
    mp=$(plain $((CLIENTS / 2)))
    wait $!
    mk=$(cat "$tmp/mk")
    echo "$p" >> "$tmp/plain"
    echo "$h" >> "$tmp/half"
    echo "$k" >> "$tmp/keyed"
    echo "$mp" >> "$tmp/mixed_plain"
    echo "$mk" >> "$tmp/mixed_keyed"
    [[ ${VERBOSE:-0} != 1 ]] || echo "round $r: plain $p/s ($((CLIENTS / 2)) connections: $h/s), keyed $k/s, mixed: plain $mp/s + keyed $mk/s" >&2
done
kill -0 "$pid" 2> /dev/null || die "mintidd died: $(cat "$tmp/mintidd.log")"

p=$(median < "$tmp/plain")
h=$(median < "$tmp/half")
k=$(median < "$tmp/keyed")
mp=$(median < "$tmp/mixed_plain")
mk=$(median < "$tmp/mixed_keyed")
keys=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM keys").fetchone()[0])' \
    "$tmp/state/keys.sqlite")
read -r load1 load5 _ < /proc/loadavg
printf 'mintidd, nanoflake, %d connections, wrk, %d x %d s, medians; %s CPUs online, load %s %s\n' $CLIENTS "$rounds" \
    "$seconds" "$(getconf _NPROCESSORS_ONLN)" "$load1" "$load5"
printf '  plain   GET  /v1/nanoflake             %8d req/s\n' "$p"
printf '  keyed   POST /v1/nanoflake, new keys   %8d req/s   keyed/plain %.2f\n' "$k" "$(awk -v a="$k" -v b="$p" 'BEGIN {print a / b}')"
printf '  plain   GET  /v1/nanoflake, %d conns   %8d req/s\n' $((CLIENTS / 2)) "$h"
printf '  mixed   %d plain + %d keyed conns     %8d + %d req/s   plain beside keyed / plain alone %.2f\n' \
    $((CLIENTS / 2)) $((CLIENTS / 2)) "$mp" "$mk" "$(awk -v a="$mp" -v b="$h" 'BEGIN {print a / b}')"
printf '  keys in the store at the end: %d\n' "$keys"
