#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# shellcheck disable=SC2015 # "[[ test ]] && check || die": die is meant when either fails
# bench_server.sh - mintidd against redis-server, on this machine, in one run.
#
# Starts its own mintidd and its own redis-server on spare loopback ports,
# drives both with the same client (redis-benchmark, 50 connections) and
# prints ratios, because on a shared two-core machine, where the client and
# the server fight for the same cores, an absolute rate says little:
#
#   single IDs   `MINT nanoflake` against redis-server's `INCR counter`, the
#                cheapest command that also hands out a new value per
#                request; unpipelined and with -P 16. The two servers take
#                turns, ROUNDS times each, and the medians are compared.
#   HTTP         `GET /v1/nanoflake` against nginx answering a fixed 20-byte
#                body from its own temporary nginx.conf (access_log off,
#                as many worker processes as mintidd has workers), both
#                driven by `wrk -t2 -c50`, taking turns as above.
#   batches      `MINT nanoflake 1000` over RESP (redis-benchmark) and
#                `GET /v1/nanoflake?count=1000` over HTTP (wrk, when it is
#                installed), as IDs per second against nanoflake's capacity
#                of 4096 IDs per ms (4,096,000 IDs/s): a server that keeps
#                up with its format reads about 1.00.
#
# For the single-ID tests it also prints each server's CPU time per request
# (user and system, its processes together, from /proc/PID/stat): where the
# client is what limits the rate, that is what tells the servers apart.
#
# Everything is measured with 1 worker, and again with 2 when the server
# has the setting (`mintidd --help` lists --workers).
#
# usage: bench/bench_server.sh [MINTIDD]
#   MINTIDD              path to the built server (default: build/mintidd in
#                        the repository this script belongs to)
# environment:
#   ROUNDS               rounds per test; the median is printed (default 3)
#   SINGLE_REQUESTS      requests per unpipelined run (default 100000)
#   PIPELINED_REQUESTS   requests per -P 16 run (default 1000000)
#   BATCH_REQUESTS       requests per `MINT nanoflake 1000` run (default 8192,
#                        2 s at capacity)
#   WRK_SECONDS          length of one wrk run (default 2)
#   STEP_TIMEOUT         seconds any one step may take before it is killed
#                        and the script fails (default 60)
#   VERBOSE=1            also print every run on stderr
#
# Nothing here asserts a threshold: the script exits 0 whatever the ratios,
# and 1 only when something could not be run (a missing tool, a server that
# did not start or died, a client that failed or got an error reply).
# Both servers are stopped on every exit, Ctrl-C included.
set -euo pipefail

readonly CLIENTS=50
readonly PIPELINE=16
readonly BATCH=1000
readonly CAPACITY=4096000 # nanoflake: 4096 IDs per ms (docs/formats/nanoflake.md)
readonly START_SECONDS=10 # how long a server may take to answer PING
readonly STOP_SECONDS=5   # how long a server may take to exit on SIGTERM

die() {
    echo "bench_server.sh: $*" >&2
    exit 1
}

positive() { # NAME VALUE: VALUE must be a positive whole number
    [[ $2 =~ ^[1-9][0-9]{0,8}$ ]] || die "$1='$2' is not a positive whole number"
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $# -le 1 ]] || die "usage: $0 [MINTIDD]  (MINTIDD is the built server, default build/mintidd)"
mintidd=${1:-$here/../build/mintidd}
[[ -e $mintidd ]] || die "'$mintidd' does not exist; build it first: cmake --build build -j2"
[[ -f $mintidd && -x $mintidd ]] || die "'$mintidd' is not an executable file"

rounds=${ROUNDS:-3}
single_n=${SINGLE_REQUESTS:-100000}
pipelined_n=${PIPELINED_REQUESTS:-1000000}
batch_n=${BATCH_REQUESTS:-8192}
wrk_seconds=${WRK_SECONDS:-2}
step_timeout=${STEP_TIMEOUT:-60}
verbose=${VERBOSE:-0}
positive ROUNDS "$rounds"
positive SINGLE_REQUESTS "$single_n"
positive PIPELINED_REQUESTS "$pipelined_n"
positive BATCH_REQUESTS "$batch_n"
positive WRK_SECONDS "$wrk_seconds"
positive STEP_TIMEOUT "$step_timeout"
((wrk_seconds + 10 <= step_timeout)) || die "WRK_SECONDS=$wrk_seconds leaves no room in STEP_TIMEOUT=$step_timeout"

# The tools, and the Debian package each comes in.
need() { # COMMAND PACKAGE
    command -v "$1" >/dev/null || die "'$1' not found; it is in the Debian package $2 (apt-get install $2)"
}
need redis-server redis-server
need redis-benchmark redis-tools
need redis-cli redis-tools
need timeout coreutils
need awk mawk
need nginx nginx
need wrk wrk
((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 501)) || die "bash 5.1 or later is needed (wait -n -p); this is $BASH_VERSION"
worker_counts=(1)
if "$mintidd" --help 2>/dev/null | grep -q -- '--workers'; then
    worker_counts=(1 2)
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/bench_server.XXXXXX") || die "cannot make a temporary directory"
mkdir -p "$work/mintidd-state" "$work/redis" "$work/nginx"
mintidd_pid=
redis_pid=
nginx_pid=
workers=1
workers_arg=()
resp_port='' http_port='' redis_port='' nginx_port=''
step_pid=

# True while PID is a process that has not exited (a zombie has).
alive() {
    local stat
    [[ -n $1 ]] || return 1
    # Not $(<file): under set -e a missing file there ends the shell.
    read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
    stat=${stat##*) }
    [[ ${stat%% *} != Z ]]
}

# Stops one server this script started: SIGTERM, then SIGKILL after
# STOP_SECONDS, then reaps it.
stop_server() { # PID NAME
    local pid=$1 i
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < STOP_SECONDS * 20; i++)); do
        alive "$pid" || break
        sleep 0.05
    done
    if alive "$pid"; then
        echo "bench_server.sh: $2 (pid $pid) did not stop within $STOP_SECONDS s of SIGTERM; killing it" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

cleanup() {
    local rc=$?
    trap - EXIT INT TERM HUP
    set +e # stop both servers whatever fails on the way
    if [[ -n $step_pid ]]; then
        kill -TERM "$step_pid" 2>/dev/null || true
        wait "$step_pid" 2>/dev/null || true
    fi
    if ((rc == 1)); then # a failure, not an interruption: the servers may say why
        local log
        for log in "$work/mintidd.log" "$work/redis.log" "$work/nginx.log"; do
            if [[ -s $log ]]; then
                echo "--- last lines of ${log##*/}:" >&2
                grep -v overcommit "$log" | tail -n 5 >&2
            fi
        done
    fi
    stop_server "$mintidd_pid" mintidd
    stop_server "$redis_pid" redis-server
    stop_server "$nginx_pid" nginx
    rm -rf "$work"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Runs COMMAND for at most SECONDS, stdout and stderr to files, and returns
# its status (124 on timeout). It runs in the background and is waited for,
# so that Ctrl-C reaches the trap at once rather than when the command ends,
# and so that a server that dies meanwhile ends the step at once rather than
# leaving a client to wait for its timeout.
bounded() { # SECONDS OUT ERR COMMAND...
    local secs=$1 out=$2 err=$3 rc=0 done_pid=
    shift 3
    timeout -k 5 "$secs" "$@" >"$out" 2>"$err" &
    step_pid=$!
    wait -n -p done_pid "$step_pid" ${mintidd_pid:+"$mintidd_pid"} ${redis_pid:+"$redis_pid"} ${nginx_pid:+"$nginx_pid"} || rc=$?
    if [[ $done_pid != "$step_pid" ]]; then
        kill -TERM "$step_pid" 2>/dev/null || true
        wait "$step_pid" 2>/dev/null || true
        step_pid=
        local who="a server"
        if [[ $done_pid == "$mintidd_pid" ]]; then
            who="mintidd (pid $done_pid)" mintidd_pid=
        elif [[ $done_pid == "$redis_pid" ]]; then
            who="redis-server (pid $done_pid)" redis_pid=
        elif [[ $done_pid == "$nginx_pid" ]]; then
            who="nginx (pid $done_pid)" nginx_pid=
        fi
        die "$who exited (status $rc) while this ran: $*"
    fi
    step_pid=
    return "$rc"
}

# Local TCP ports in use now, any state, IPv4 and IPv6, one a line. The
# kernel writes them as upper-case hex; plain awk (mawk) has no strtonum.
used_ports() {
    awk 'FNR > 1 {
        split($2, a, ":"); h = a[2]; n = 0
        for (i = 1; i <= length(h); i++) n = n * 16 + index("0123456789ABCDEF", substr(h, i, 1)) - 1
        print n
    }' /proc/net/tcp /proc/net/tcp6 2>/dev/null || true
}

# A port that nothing uses now, below the kernel's range for outgoing
# connections (so that no client socket takes it meanwhile), and not in
# EXCLUDE. Another program may still take it before the server binds it:
# start_* then sees its server exit and tries again.
free_port() { # EXCLUDE...
    local low=32768 lo port try
    if read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null && ((lo > 12000)); then
        low=$lo
    fi
    local used
    used=" $(used_ports | tr '\n' ' ') $* "
    for ((try = 0; try < 200; try++)); do
        port=$((10000 + (RANDOM * 32768 + RANDOM) % (low - 10000)))
        [[ $used == *" $port "* ]] || {
            echo "$port"
            return 0
        }
    done
    return 1
}

# True when PID holds the socket listening on 127.0.0.1:PORT, so that a PONG
# is known to come from the server this script started, not a stranger.
owns_port() { # PID PORT
    local hex inode
    hex=$(printf '%04X' "$2")
    inode=$(awk -v want="0100007F:$hex" '$2 == want && $4 == "0A" { print $10; exit }' /proc/net/tcp 2>/dev/null)
    [[ -n $inode ]] || return 1
    local fd
    for fd in /proc/"$1"/fd/*; do
        [[ $(readlink "$fd" 2>/dev/null) == "socket:[$inode]" ]] && return 0
    done
    return 1
}

# Waits until the server PID answers PING on PORT and holds that port.
# Returns 1 when it exited first (a port taken meanwhile, most likely) and
# 2 when it is still silent after START_SECONDS.
wait_ready() { # PID PORT
    local pid=$1 port=$2 i reply
    for ((i = 0; i < START_SECONDS * 10; i++)); do
        alive "$pid" || return 1
        reply=$(timeout -k 1 2 redis-cli -h 127.0.0.1 -p "$port" PING 2>/dev/null) || reply=
        if [[ $reply == PONG ]] && owns_port "$pid" "$port"; then
            return 0
        fi
        sleep 0.1
    done
    return 2
}

start_mintidd() {
    local rc
    for _ in 1 2 3; do
        resp_port=$(free_port "$redis_port" "$nginx_port") || die "no free loopback port found"
        http_port=$(free_port "$resp_port" "$redis_port" "$nginx_port") || die "no free loopback port found"
        "$mintidd" --state-dir "$work/mintidd-state" --http "127.0.0.1:$http_port" \
            --resp "127.0.0.1:$resp_port" --log-level warn ${workers_arg[@]+"${workers_arg[@]}"} >"$work/mintidd.log" 2>&1 &
        mintidd_pid=$!
        rc=0
        wait_ready "$mintidd_pid" "$resp_port" || rc=$?
        ((rc == 0)) && return 0
        if ((rc == 2)); then
            die "mintidd (pid $mintidd_pid) did not answer PING on 127.0.0.1:$resp_port within $START_SECONDS s"
        fi
        wait "$mintidd_pid" 2>/dev/null || true
        mintidd_pid=
        grep -q 'in use' "$work/mintidd.log" || break
    done
    die "mintidd exited at start: $(tail -n 3 "$work/mintidd.log" | tr '\n' ' ')"
}

start_redis() {
    local rc
    for _ in 1 2 3; do
        redis_port=$(free_port "$resp_port" "$http_port") || die "no free loopback port found"
        redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
            --daemonize no --dir "$work/redis" >"$work/redis.log" 2>&1 &
        redis_pid=$!
        rc=0
        wait_ready "$redis_pid" "$redis_port" || rc=$?
        ((rc == 0)) && return 0
        if ((rc == 2)); then
            die "redis-server (pid $redis_pid) did not answer PING on 127.0.0.1:$redis_port within $START_SECONDS s"
        fi
        wait "$redis_pid" 2>/dev/null || true
        redis_pid=
        grep -q 'in use' "$work/redis.log" || break
    done
    die "redis-server exited at start: $(tail -n 3 "$work/redis.log" | tr '\n' ' ')"
}

# The nginx that HTTP is compared with: WORKERS worker processes, no log
# of requests, and one location answering a fixed 20-byte body, as short
# as a reply of one nanoflake. Waits until it answers on a port it holds.
start_nginx() {
    local i body
    stop_server "$nginx_pid" nginx
    nginx_pid=
    for _ in 1 2 3; do
        nginx_port=$(free_port "$resp_port" "$http_port" "$redis_port") || die "no free loopback port found"
        cat >"$work/nginx/nginx.conf" <<CONF
daemon off;
master_process on;
worker_processes $workers;
pid $work/nginx/nginx.pid;
error_log $work/nginx.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path $work/nginx/tmp;
    proxy_temp_path $work/nginx/tmp;
    fastcgi_temp_path $work/nginx/tmp;
    uwsgi_temp_path $work/nginx/tmp;
    scgi_temp_path $work/nginx/tmp;
    server {
        listen 127.0.0.1:$nginx_port;
        location / { default_type text/plain; return 200 "0123456789abcdefghi\n"; }
    }
}
CONF
        mkdir -p "$work/nginx/tmp"
        nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" -e "$work/nginx.log" >"$work/nginx.out" 2>&1 &
        nginx_pid=$!
        for ((i = 0; i < START_SECONDS * 10; i++)); do
            alive "$nginx_pid" || break
            # shellcheck disable=SC2016 # $1 is the inner shell's
            body=$(timeout -k 1 2 bash -c '
                exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
                printf "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" >&3
                cat <&3' _ "$nginx_port" 2>/dev/null | tail -n 1) || body=
            if [[ $body == 0123456789abcdefghi ]] && owns_port "$nginx_pid" "$nginx_port"; then
                return 0
            fi
            sleep 0.1
        done
        alive "$nginx_pid" && die "nginx (pid $nginx_pid) did not answer on 127.0.0.1:$nginx_port within $START_SECONDS s"
        wait "$nginx_pid" 2>/dev/null || true
        nginx_pid=
        grep -q 'in use' "$work/nginx.log" || break
    done
    die "nginx exited at start: $(tail -n 3 "$work/nginx.log" | tr '\n' ' ')"
}

# The CPU time, in clock ticks, that the server PID and its children (the
# workers of mintidd and of nginx) have used so far, user and system.
tree_ticks() { # PID
    local pids=("$1") kids
    kids=$(cat /proc/"$1"/task/*/children 2>/dev/null) || kids=
    # shellcheck disable=SC2206 # one pid per word
    pids+=($kids)
    local p t=0 stat
    for p in "${pids[@]}"; do
        stat=$(cat /proc/"$p"/stat 2>/dev/null) || continue
        # The fields after the command's ")": utime and stime are 12th and 13th.
        read -r -a f <<<"${stat##*) }"
        t=$((t + f[11] + f[12]))
    done
    echo "$t"
}

# The server listening on PORT, for tree_ticks.
server_of_port() { # PORT
    case $1 in
    "$resp_port" | "$http_port") echo "$mintidd_pid" ;;
    "$redis_port") echo "$redis_pid" ;;
    "$nginx_port") echo "$nginx_pid" ;;
    esac
}

# Sets cpu to the server's CPU time per request in microseconds, from its
# ticks before (T0) and now, over N requests.
cpu_per_request() { # PORT T0 N
    local t1
    t1=$(tree_ticks "$(server_of_port "$1")")
    cpu=$(awk -v d=$((t1 - $2)) -v hz="$clk_tck" -v n="$3" 'BEGIN { printf "%.3f", d * 1e6 / hz / n }')
}

# One redis-benchmark run; sets rate to its requests per second, and cpu
# to the server's CPU time per request (microseconds). It runs in
# this shell, not in $(...), so that a Ctrl-C finds the client's pid in
# step_pid. redis-benchmark exits non-zero on an error reply, which ends the
# script here.
rb() { # PORT REQUESTS PIPELINE COMMAND...
    local port=$1 n=$2 p=$3 rc=0 rps t0
    shift 3
    t0=$(tree_ticks "$(server_of_port "$port")")
    bounded "$step_timeout" "$work/rb.out" "$work/rb.err" \
        redis-benchmark -h 127.0.0.1 -p "$port" -c "$CLIENTS" -n "$n" -P "$p" --csv "$@" || rc=$?
    ((rc != 124)) || die "redis-benchmark -P $p $* on port $port took more than $step_timeout s"
    ((rc == 0)) || die "redis-benchmark -P $p $* on port $port failed (status $rc): $(grep -v '^WARNING' "$work/rb.err" | tail -n 3 | tr '\n' ' ')"
    # --csv: a header line, then "COMMAND","rps",... per test.
    rps=$(awk -F'"' 'NR > 1 && $4 ~ /^[0-9.]+$/ { r = $4 } END { print r }' "$work/rb.out")
    [[ -n $rps ]] && awk -v r="$rps" 'BEGIN { exit !(r > 0) }' ||
        die "redis-benchmark -P $p $* on port $port printed no rate: $(head -c 300 "$work/rb.out")"
    rate=$rps
    cpu_per_request "$port" "$t0" "$n"
}

# One wrk run of THREADS threads and 50 connections against URL; sets rate
# to its requests per second and cpu as rb does. A reply other than 2xx, or
# a connection refused, is a failure.
wrk_run() { # THREADS URL
    local threads=$1 url=$2 rc=0 rps t0 port n
    port=${url#http://127.0.0.1:}
    port=${port%%/*}
    t0=$(tree_ticks "$(server_of_port "$port")")
    bounded "$step_timeout" "$work/wrk.out" "$work/wrk.err" \
        wrk -t "$threads" -c "$CLIENTS" -d "${wrk_seconds}s" --timeout 5s "$url" || rc=$?
    ((rc != 124)) || die "wrk $url took more than $step_timeout s"
    ((rc == 0)) || die "wrk $url failed (status $rc): $(tail -n 3 "$work/wrk.err" | tr '\n' ' ')"
    if grep -q 'Non-2xx' "$work/wrk.out"; then
        die "wrk $url got error replies: $(grep 'Non-2xx' "$work/wrk.out")"
    fi
    if grep -Eq 'Socket errors: connect [1-9]' "$work/wrk.out"; then
        die "wrk $url could not connect: $(grep 'Socket errors' "$work/wrk.out")"
    fi
    rps=$(awk '$1 == "Requests/sec:" { print $2 }' "$work/wrk.out")
    [[ -n $rps ]] && awk -v r="$rps" 'BEGIN { exit !(r > 0) }' ||
        die "wrk $url printed no rate: $(head -c 300 "$work/wrk.out")"
    rate=$rps
    n=$(awk '$2 == "requests" && $3 == "in" { print $1 }' "$work/wrk.out")
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "wrk $url printed no count of requests"
    cpu_per_request "$port" "$t0" "$n"
}

# One GET of COUNT IDs over HTTP, by hand (no curl needed); prints the
# number of lines of the body.
http_lines() { # COUNT
    # shellcheck disable=SC2016 # $1 and $2 are the inner shell's
    timeout -k 1 5 bash -c '
        exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
        printf "GET /v1/nanoflake?count=%s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" "$2" >&3
        cat <&3' _ "$http_port" "$1" |
        tr -d '\r' | awk 'body && /./ { n++ } /^$/ { body = 1 } END { print n + 0 }'
}

median() { # VALUE...
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
        END { printf "%.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

note() {
    [[ $verbose == 1 ]] && echo "  $*" >&2
    return 0
}

clk_tck=$(getconf CLK_TCK)
start_redis
redis_version=$(redis-server --version | awk '{ sub("v=", "", $3); print $3 }')
nginx_version=$(nginx -v 2>&1 | awk -F/ '{ print $2 }')
row() { # LABEL MINTIDD OTHER
    awk -v l="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%-34s %12.0f %12.0f %8.3f\n", l, a, b, a / b }'
}
# CPU per request: the ratio is the other's over mintidd's, so that above 1
# means mintidd spends less, as above 1 means it serves more in row.
cpu_row() { # LABEL MINTIDD OTHER
    awk -v l="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%-34s %12.2f %12.2f %8.3f\n", l, a, b, (a > 0 ? b / a : 0) }'
}

for workers in "${worker_counts[@]}"; do
    workers_arg=()
    if ((${#worker_counts[@]} > 1)); then
        workers_arg=(--workers "$workers")
    fi
    stop_server "$mintidd_pid" mintidd
    mintidd_pid=
    start_mintidd
    start_nginx

    # Before any timing: each command answers as this script expects, so
    # that a missing or changed command is told apart from a slow one. A
    # nanoflake's text is base36, lower case, unpadded: 1 to 13 characters.
    reply=$(timeout -k 1 5 redis-cli -h 127.0.0.1 -p "$resp_port" MINT nanoflake 2>&1) || reply="(redis-cli failed) $reply"
    [[ $reply =~ ^[0-9a-z]{1,13}$ ]] || die "mintidd: 'MINT nanoflake' answered '$reply', not one ID"
    lines=$(timeout -k 1 5 redis-cli -h 127.0.0.1 -p "$resp_port" MINT nanoflake "$BATCH" 2>&1 | grep -c '^[0-9a-z]\{1,13\}$' || true)
    [[ $lines == "$BATCH" ]] || die "mintidd: 'MINT nanoflake $BATCH' answered $lines IDs, not $BATCH"
    reply=$(timeout -k 1 5 redis-cli -h 127.0.0.1 -p "$redis_port" INCR counter 2>&1) || reply="(redis-cli failed) $reply"
    [[ $reply =~ ^[0-9]+$ ]] || die "redis-server: 'INCR counter' answered '$reply', not a number"
    lines=$(http_lines "$BATCH")
    [[ $lines == "$BATCH" ]] || die "mintidd: GET /v1/nanoflake?count=$BATCH on port $http_port gave $lines lines, not $BATCH"
    lines=$(http_lines 1)
    [[ $lines == 1 ]] || die "mintidd: GET /v1/nanoflake on port $http_port gave $lines lines, not 1"

    # A short warm-up of each, not counted: the first connections and the
    # first allocations of a fresh server should not fall on round 1.
    rate=
    rb "$resp_port" 10000 1 MINT nanoflake
    rb "$redis_port" 10000 1 INCR counter
    wrk_run 2 "http://127.0.0.1:$http_port/v1/nanoflake"
    wrk_run 2 "http://127.0.0.1:$nginx_port/"

    mint_single=() redis_single=() mint_piped=() redis_piped=() http_single=() nginx_single=()
    mint_single_cpu=() redis_single_cpu=() mint_piped_cpu=() redis_piped_cpu=() http_single_cpu=() nginx_single_cpu=()
    resp_batch=() http_batch=()
    for ((r = 1; r <= rounds; r++)); do
        # The servers take turns, and which goes first alternates from round
        # to round, so that a burst of load elsewhere falls on both alike.
        for p in 1 "$PIPELINE"; do
            if ((p == 1)); then n=$single_n; else n=$pipelined_n; fi
            if ((r % 2)); then
                rb "$resp_port" "$n" "$p" MINT nanoflake
                m=$rate mc=$cpu
                rb "$redis_port" "$n" "$p" INCR counter
                x=$rate xc=$cpu
            else
                rb "$redis_port" "$n" "$p" INCR counter
                x=$rate xc=$cpu
                rb "$resp_port" "$n" "$p" MINT nanoflake
                m=$rate mc=$cpu
            fi
            note "$workers worker(s), round $r -P $p: mintidd $m req/s ($mc us CPU each), redis-server $x req/s ($xc us)"
            if ((p == 1)); then
                mint_single+=("$m") redis_single+=("$x") mint_single_cpu+=("$mc") redis_single_cpu+=("$xc")
            else
                mint_piped+=("$m") redis_piped+=("$x") mint_piped_cpu+=("$mc") redis_piped_cpu+=("$xc")
            fi
        done
        if ((r % 2)); then
            wrk_run 2 "http://127.0.0.1:$http_port/v1/nanoflake"
            m=$rate mc=$cpu
            wrk_run 2 "http://127.0.0.1:$nginx_port/"
            x=$rate xc=$cpu
        else
            wrk_run 2 "http://127.0.0.1:$nginx_port/"
            x=$rate xc=$cpu
            wrk_run 2 "http://127.0.0.1:$http_port/v1/nanoflake"
            m=$rate mc=$cpu
        fi
        http_single+=("$m") nginx_single+=("$x") http_single_cpu+=("$mc") nginx_single_cpu+=("$xc")
        note "$workers worker(s), round $r HTTP: mintidd $m req/s ($mc us CPU each), nginx $x req/s ($xc us)"
        rb "$resp_port" "$batch_n" 1 MINT nanoflake "$BATCH"
        b=$rate
        resp_batch+=("$b")
        note "$workers worker(s), round $r RESP MINT nanoflake $BATCH: $b req/s"
        # One thread, as redis-benchmark has: the other core is the server's.
        wrk_run 1 "http://127.0.0.1:$http_port/v1/nanoflake?count=$BATCH"
        h=$rate
        http_batch+=("$h")
        note "$workers worker(s), round $r HTTP count=$BATCH: $h req/s"
        echo "bench_server.sh: $workers worker(s), round $r of $rounds done" >&2
    done

    read -r load1 load5 _ </proc/loadavg
    printf 'mintidd, %d worker%s, against redis-server %s and nginx %s (%d worker%s): %d clients, median of %d round%s, %s CPUs online, load %s %s\n' \
        "$workers" "$( ((workers == 1)) || echo s)" "$redis_version" "$nginx_version" "$workers" \
        "$( ((workers == 1)) || echo s)" "$CLIENTS" "$rounds" "$( ((rounds == 1)) || echo s)" \
        "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')" "$load1" "$load5"
    printf '%-34s %12s %12s %8s\n' "single IDs, requests/s" mintidd other ratio
    row "MINT nanoflake : INCR, -P 1" "$(median "${mint_single[@]}")" "$(median "${redis_single[@]}")"
    row "MINT nanoflake : INCR, -P $PIPELINE" "$(median "${mint_piped[@]}")" "$(median "${redis_piped[@]}")"
    row "GET /v1/nanoflake : nginx (wrk)" "$(median "${http_single[@]}")" "$(median "${nginx_single[@]}")"
    printf '%-34s %12s %12s %8s\n' "server CPU per request, us" mintidd other "ratio"
    cpu_row "MINT nanoflake : INCR, -P 1" "$(median "${mint_single_cpu[@]}")" "$(median "${redis_single_cpu[@]}")"
    cpu_row "MINT nanoflake : INCR, -P $PIPELINE" "$(median "${mint_piped_cpu[@]}")" "$(median "${redis_piped_cpu[@]}")"
    cpu_row "GET /v1/nanoflake : nginx (wrk)" "$(median "${http_single_cpu[@]}")" "$(median "${nginx_single_cpu[@]}")"
    printf '%-34s %12s %12s %8s\n' "batches of $BATCH, IDs/s" mintidd capacity "/cap"
    row "RESP MINT nanoflake $BATCH" "$(awk -v r="$(median "${resp_batch[@]}")" -v b="$BATCH" 'BEGIN { printf "%.0f", r * b }')" "$CAPACITY"
    row "HTTP GET ?count=$BATCH (wrk)" "$(awk -v r="$(median "${http_batch[@]}")" -v b="$BATCH" 'BEGIN { printf "%.0f", r * b }')" "$CAPACITY"
    echo
done
echo "ratio: mintidd's req/s / redis-server's INCR req/s (target >= 1.2 with 2 workers) or nginx's fixed body req/s (target >= 1.0);"
echo "server CPU per request: user and system time of the server's processes over the requests served; its ratio is"
echo "the other's over mintidd's (above 1: mintidd spends less). With the client on the same cores, it tells what a"
echo "server could serve where the client is not what limits the rate."
echo "/cap: IDs/s / nanoflake's 4,096,000 (target >= 0.9)."
