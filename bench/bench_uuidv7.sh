#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_uuidv7.sh - the mintid command-line tool against uuidv7-h's
# reference program, `ref-uuidv7`, which prints 10,000,000 UUIDv7 lines.
#
# The reference is LiosK's uuidv7-h (uuidv7.h and ref-uuidv7.c), kept
# outside the project in ../shared/vendor/ relative to the project root. When
# that folder is there, the script compiles ref-uuidv7.c with the compiler
# and flags of the build the tool comes from (CMakeCache.txt beside it; -O2
# for RelWithDebInfo) into a temporary directory and times it; when it is
# not, it says so and prints the tool's rows without the reference column.
#
# Every round runs every program once, `PROGRAM > /dev/null`, the order
# turning by one each round so that no program always follows the same one;
# the medians of ROUNDS rounds are printed, with
#
#   ref/this   the reference's median time / this program's (> 1: mintid is faster)
#   paired     the median over rounds of the same ratio, taken within each
#              round (less sensitive to load that drifts between rounds)
#   cpu        user + system seconds, and ref/this of those medians
#
# Before any timing, one untimed run of each program is read in full: the
# reference and `gen uuidv7` must print COUNT 36-character lower-case UUIDv7
# lines (version 7, variant 10), and every program's lines must increase
# strictly (longer lines after shorter ones, as base36 nanoflakes grow).
#
# usage: bench/bench_uuidv7.sh [MINTID [FORMAT...]]
#   MINTID   the built tool (default: build/mintid under the project root)
#   FORMAT   mintid formats to time (default: uuidv7 scru160 nanoflake)
# environment:
#   ROUNDS   rounds (default 7)
#   COUNT    IDs per run (default 10,000,000)
#   CHECK    0 skips the output checks
#   VERBOSE  1 also prints every round's times
#   CC, CFLAGS  compiler and flags for ref-uuidv7 instead of the build's
#
# nanoflake allows 4096 IDs per millisecond, so 10,000,000 take at least
# 2.44 s whatever the tool does; its row shows what the cap costs, not the
# generator's speed (its cpu column does). Nothing here asserts a threshold.
set -euo pipefail

die() {
    echo "bench_uuidv7.sh: $*" >&2
    exit 1
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
mintid=${1:-$root/build/mintid}
[[ $# -gt 0 ]] && shift
formats=("$@")
[[ ${#formats[@]} -gt 0 ]] || formats=(uuidv7 scru160 nanoflake)
ROUNDS=${ROUNDS:-7}
COUNT=${COUNT:-10000000}
CHECK=${CHECK:-1}
VERBOSE=${VERBOSE:-0}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS='$ROUNDS' is not a positive whole number"
[[ $COUNT =~ ^[1-9][0-9]*$ ]] || die "COUNT='$COUNT' is not a positive whole number"

[[ -e $mintid ]] || die "'$mintid' does not exist; build it first: cmake --build build --target mintid_cli"
[[ -f $mintid && -x $mintid ]] || die "'$mintid' is not an executable file"
known=$("$mintid" formats 2>/dev/null | grep -E '^[a-z]' || true)
for f in "${formats[@]}"; do
    grep -qx -- "$f" <<<"$known" || die "'$mintid' has no format '$f'; it has: ${known//$'\n'/ }"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- the reference program -------------------------------------------------

vendor=$root/../shared/vendor
ref=""
if [[ -f $vendor/ref-uuidv7.c && -f $vendor/uuidv7.h ]]; then
    # The compiler and flags of the build the tool comes from.
    cache=$(dirname "$mintid")/CMakeCache.txt
    cc=${CC:-}
    flags=${CFLAGS:-}
    if [[ -f $cache ]]; then
        get() { sed -n "s/^$1:[A-Z]*=//p" "$cache" | head -1; }
        [[ -n $cc ]] || cc=$(get CMAKE_C_COMPILER)
        if [[ -z ${CFLAGS+set} ]]; then
            type=$(get CMAKE_BUILD_TYPE)
            flags="$(get CMAKE_C_FLAGS) $(get "CMAKE_C_FLAGS_${type^^}")"
        fi
    fi
    [[ -n $cc ]] || cc=cc
    read -ra flagv <<<"$flags"
    [[ ${#flagv[@]} -gt 0 ]] || flagv=(-O2)
    "$cc" "${flagv[@]}" -I "$vendor" "$vendor/ref-uuidv7.c" -o "$tmp/ref-uuidv7" ||
        die "could not compile ../shared/vendor/ref-uuidv7.c with $cc ${flagv[*]}"
    ref=$tmp/ref-uuidv7
    echo "reference: ../shared/vendor/ref-uuidv7.c (uuidv7-h), built with: $cc ${flagv[*]}"
else
    echo "reference: ../shared/vendor/ (uuidv7-h) is not there; the reference column is skipped"
fi

# ---- the programs ---------------------------------------------------------------

# Job j runs the reference (jobs[j] empty) or `mintid gen FORMAT`.
jobs=()
names=()
kinds=() # uuid: must print UUIDv7 lines; any: only increasing lines
if [[ -n $ref ]]; then
    jobs+=("")
    names+=("ref-uuidv7 (uuidv7-h)")
    kinds+=(uuid)
fi
for f in "${formats[@]}"; do
    jobs+=("$f")
    names+=("mintid gen $f")
    [[ $f == uuidv7 ]] && kinds+=(uuid) || kinds+=(any)
done
njobs=${#names[@]}

run_job() {
    if [[ -z ${jobs[$1]} ]]; then
        "$ref" "$COUNT"
    else
        "$mintid" gen "${jobs[$1]}" -n "$COUNT"
    fi
}

# ---- output checks -----------------------------------------------------------------

# Reads lines and prints "LINES BAD NOT_INCREASING". `cur = $0 ""` keeps the
# comparison a string one even for lines of digits only.
# shellcheck disable=SC2016 # awk's own $0, not the shell's
check_awk='
BEGIN { h = "[0-9a-f]"; h4 = h h h h
        re = "^" h4 h4 "-" h4 "-7" h h h "-[89ab]" h h h "-" h4 h4 h4 "$" }
{ cur = $0 ""
  if (cur == "" || (uuid && cur !~ re)) bad++
  if (NR > 1 && (length(cur) < length(prev) || (length(cur) == length(prev) && cur <= prev))) dec++
  prev = cur }
END { print NR, bad + 0, dec + 0 }'

if [[ $CHECK != 0 ]]; then
    for ((j = 0; j < njobs; j++)); do
        uuid=0
        [[ ${kinds[j]} == uuid ]] && uuid=1
        res=$(run_job "$j" | LC_ALL=C awk -v uuid=$uuid "$check_awk") || die "${names[j]} failed"
        read -r lines bad dec <<<"$res"
        [[ $lines -eq $COUNT ]] || die "${names[j]} printed $lines lines, not $COUNT"
        if [[ $bad -ne 0 ]]; then
            [[ $uuid == 1 ]] && die "${names[j]}: $bad lines are not 36-character lower-case UUIDv7s"
            die "${names[j]}: $bad lines are empty"
        fi
        [[ $dec -eq 0 ]] || die "${names[j]}: $dec lines are not greater than the line before"
    done
    echo "checked: every program printed $COUNT strictly increasing lines; the UUIDv7 ones all 36-character lower-case version 7, variant 10"
fi

# ---- timing ------------------------------------------------------------------------

# Runs job $1 with its output thrown away; sets t_real and t_cpu (seconds).
run_timed() {
    local TIMEFORMAT='%3R %3U %3S' out u s
    if ! out=$({ time run_job "$1" >/dev/null 2>/dev/null; } 2>&1); then
        die "${names[$1]} failed"
    fi
    read -r t_real u s <<<"$out"
    t_cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.3f", u + s }')
}

declare -a real cpu # real[j*ROUNDS + r]
# shellcheck disable=SC2034 # cpu is read through col()'s nameref
for ((r = 0; r < ROUNDS; r++)); do
    for ((k = 0; k < njobs; k++)); do
        j=$(((r + k) % njobs))
        run_timed "$j"
        real[j * ROUNDS + r]=$t_real
        cpu[j * ROUNDS + r]=$t_cpu
        [[ $VERBOSE == 1 ]] && printf 'round %d  %-24s %8s s  cpu %8s s\n' $((r + 1)) "${names[j]}" "$t_real" "$t_cpu" >&2
    done
done

# The median of the numbers on standard input, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m }'; }
col() { # the ROUNDS values of job $2 in array $1
    local -n a=$1
    local r
    for ((r = 0; r < ROUNDS; r++)); do echo "${a[$2 * ROUNDS + r]}"; done
}

printf '\n%s, %d rounds interleaved, medians; %s CPUs online, load %s\n' "$(basename "$mintid") vs uuidv7-h" \
    "$ROUNDS" "$(getconf _NPROCESSORS_ONLN)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-24s %10s %9s %9s %8s %8s %7s %8s\n' program IDs seconds "M IDs/s" "ref/this" paired "cpu s" "cpu r/t"
ref_real="" ref_cpu=""
if [[ -n $ref ]]; then
    ref_real=$(col real 0 | median)
    ref_cpu=$(col cpu 0 | median)
fi
for ((j = 0; j < njobs; j++)); do
    m_real=$(col real "$j" | median)
    m_cpu=$(col cpu "$j" | median)
    ratio=- paired=- cratio=-
    if [[ -n $ref ]]; then
        ratio=$(awk -v a="$ref_real" -v b="$m_real" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
        cratio=$(awk -v a="$ref_cpu" -v b="$m_cpu" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
        pr=()
        for ((r = 0; r < ROUNDS; r++)); do
            pr+=("$(awk -v a="${real[r]}" -v b="${real[j * ROUNDS + r]}" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 0) }')")
        done
        paired=$(awk -v m="$(printf '%s\n' "${pr[@]}" | median)" 'BEGIN { printf "%.3f", m }')
    fi
    awk -v n="${names[j]}" -v c="$COUNT" -v t="$m_real" -v cpu="$m_cpu" -v r="$ratio" -v p="$paired" -v cr="$cratio" \
        'BEGIN { printf "%-24s %10d %9.3f %9.2f %8s %8s %7.3f %8s\n", n, c, t, (t > 0 ? c / t / 1e6 : 0), r, p, cpu, cr }'
done
echo "seconds: wall time of PROGRAM > /dev/null, process start included; cpu s: user + system seconds."
echo "ref/this: ref-uuidv7's median seconds / this program's (> 1: mintid is faster); paired: the median of that ratio within each round."
echo "cpu r/t: the same ratio of CPU seconds. nanoflake is capped at 4096 IDs/ms (>= 2.44 s for 10M); its cpu column is what it spends."
