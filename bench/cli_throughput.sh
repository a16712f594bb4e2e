#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# cli_throughput.sh - how fast the mintid command-line tool writes IDs.
#
# Times `MINTID gen FORMAT -n COUNT > /dev/null` for each format and prints
# IDs per millisecond and their ratio to the format's capacity per
# millisecond. A tool that keeps up with its format reads about 1.00: the
# generator waits for the next millisecond once a millisecond's sequence is
# used up, so it cannot go much above. scru160's capacity (32768/ms) is more
# than one core can produce, so its ratio stays well below 1.
#
# usage: bench/cli_throughput.sh MINTID [FORMAT...]
#   MINTID   path to the built tool, e.g. build/mintid
#   FORMAT   formats to time (default: all six)
#   COUNT    environment variable: IDs per format. By default nanoflake
#            writes 10,000,000 and every other format capacity x 2.5 s
#            (at most 10,000,000), so each run takes about 2.5 s at capacity.
#
# Nothing here asserts a threshold: timings on a shared machine are
# information, not pass or fail.
set -euo pipefail

die() {
    echo "cli_throughput.sh: $*" >&2
    exit 1
}

[[ $# -ge 1 ]] || die "usage: $0 MINTID [FORMAT...]  (MINTID is the built tool, e.g. build/mintid)"
mintid=$1
shift
[[ -e $mintid ]] || die "'$mintid' does not exist; build it first: cmake --build build --target mintid_cli"
[[ -f $mintid && -x $mintid ]] || die "'$mintid' is not an executable file"

# Capacities per millisecond, as in mintid_format.capacity_per_ms
# (docs/formats/); keep in step with the library's format table.
declare -A capacity=(
    [uexky]=512
    [scru160]=32768
    [ulid-flake]=4096
    [ulid-flake-scalable]=128
    [caloriosa]=1024
    [nanoflake]=4096
)
all_formats=(nanoflake uexky scru160 ulid-flake ulid-flake-scalable caloriosa)
formats=("$@")
[[ ${#formats[@]} -gt 0 ]] || formats=("${all_formats[@]}")
for f in "${formats[@]}"; do
    [[ -n ${capacity[$f]:-} ]] || die "unknown format '$f'; known: ${all_formats[*]}"
done
if [[ -n ${COUNT:-} && ! $COUNT =~ ^[1-9][0-9]*$ ]]; then
    die "COUNT='$COUNT' is not a positive whole number"
fi

# Microseconds since the epoch, in $now. EPOCHREALTIME (bash 5) costs no
# fork; its decimal separator follows the locale, so keep only the digits.
now_us() {
    if [[ -n ${EPOCHREALTIME:-} ]]; then
        now=${EPOCHREALTIME//[!0-9]/}
    else
        now=$(($(date +%s%N) / 1000))
    fi
}

# A first, tiny run tells a missing or different `gen` command apart from
# a slow one before any timing starts.
if ! check=$("$mintid" gen nanoflake -n 3 2>&1); then
    die "'$mintid gen nanoflake -n 3' failed: ${check:-no output}"
fi
lines=$(printf '%s\n' "$check" | grep -c . || true)
[[ $lines -eq 3 ]] || die "'$mintid gen nanoflake -n 3' printed $lines lines, not 3: $check"

printf '%-20s %10s %9s %10s %9s %7s %6s\n' format count seconds "IDs/ms" "cap/ms" ratio cpu
for f in "${formats[@]}"; do
    cap=${capacity[$f]}
    if [[ -n ${COUNT:-} ]]; then
        n=$COUNT
    elif [[ $f == nanoflake ]]; then
        n=10000000
    else
        n=$((cap * 2500))
        ((n <= 10000000)) || n=10000000
    fi
    now_us
    start=$now
    # The tool's CPU seconds (user and system) as bash's time keyword reports them.
    TIMEFORMAT='%3U %3S'
    if ! cpu=$({ time "$mintid" gen "$f" -n "$n" >/dev/null 2>/dev/null; } 2>&1); then
        die "'$mintid gen $f -n $n' failed"
    fi
    now_us
    elapsed=$((now - start))
    ((elapsed > 0)) || elapsed=1
    awk -v f="$f" -v n="$n" -v us="$elapsed" -v cap="$cap" -v cpu="$cpu" 'BEGIN {
        per_ms = n / (us / 1000.0)
        split(cpu, t, " ")
        printf "%-20s %10d %9.3f %10.1f %9d %7.3f %6.2f\n", f, n, us / 1e6, per_ms, cap, per_ms / cap, (t[1] + t[2]) / (us / 1e6)
    }'
done
echo "ratio: IDs/ms / the format's capacity per ms; ~1.00 = the tool keeps up with its format (it cannot go much above)."
echo "cpu: the tool's CPU time / elapsed time, the share of one core it used; at capacity it sleeps to each millisecond's boundary."
