#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench_mariadb.sh - mintid's MariaDB functions against the server's own, side
# by side, in a throwaway mariadbd (Debian's mariadb-server) of this script's
# own: a data directory, a spare loopback port and a plugin directory holding
# the module, in a temporary directory; stopped by its pid at the end.
#
#   insert 1M, DEFAULT       INSERT INTO t(v) SELECT seq FROM seq_1_to_1000000, into a table keyed by
#                            id BIGINT DEFAULT (mintid_int('nanoflake')) against one keyed by AUTO_INCREMENT
#   insert rows, 8 clients   8 connections, 2000 single-row INSERT INTO t(v) VALUES (1) each, the same two tables
#   uuidv7 1M, text          SELECT SUM(LENGTH(mintid('uuidv7'))) FROM seq_1_to_1000000 against UUID()
#   uuidv7 1M, insert        INSERT INTO c(u) SELECT mintid('uuidv7') FROM seq_1_to_1000000 (CHAR(36)) against UUID()
#
# Each round runs both sides of every case, in turns (the baseline first in
# odd rounds); a ratio is the baseline's time over mintid's, so above 1 means
# mintid is faster: the statement's time and, from the server's profiling,
# the CPU time its thread spent (not for the 8 clients, whose time is
# wall-clock). Prints each round's ratios and their medians.
#
# Usage: bench/bench_mariadb.sh build/mariadb/mintid.so [ROUNDS]
set -euo pipefail
module=$(realpath "${1:?usage: bench_mariadb.sh build/mariadb/mintid.so [ROUNDS]}")
rounds=${2:-5}

root=$(mktemp -d /tmp/mintid-bench-mariadb-XXXXXX)
pid=""
cleanup() {
    if [ -n "$pid" ]; then
        kill "$pid" 2>/dev/null || true
        while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
    rm -rf "$root"
}
trap cleanup EXIT

as_mysql=()
if [ "$(id -u)" = 0 ]; then
    as_mysql=(runuser -u mysql --)
    chown mysql: "$root"
fi
chmod 755 "$root"
mkdir -m 1777 "$root/host"
mkdir "$root/plugin"
cp "$module" "$root/plugin/mintid.so"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${as_mysql[@]}" mariadb-install-db --no-defaults --datadir="$root/data" --auth-root-authentication-method=normal \
    --skip-test-db --innodb-log-file-size=64M >/dev/null
"${as_mysql[@]}" env MINTID_HOST_DIR="$root/host" mariadbd --no-defaults --datadir="$root/data" \
    --socket="$root/sock" --port="$port" --bind-address=127.0.0.1 --plugin-dir="$root/plugin" \
    --pid-file="$root/pid" --log-error="$root/log" --innodb-log-file-size=64M --innodb-buffer-pool-size=256M \
    --innodb-flush-log-at-trx-commit=2 --skip-name-resolve </dev/null >/dev/null 2>&1 &
sql() { mariadb --no-defaults -S "$root/sock" -uroot --batch --skip-column-names "$@"; }
for _ in $(seq 600); do
    [ -s "$root/pid" ] && sql -e 'SELECT 1' >/dev/null 2>&1 && break
    sleep 0.1
done
pid=$(cat "$root/pid")
sql < "$(dirname "$0")/../mariadb/install.sql"
sql -e "CREATE DATABASE b"
sql b -e "CREATE TABLE base (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT);
          CREATE TABLE ours (id BIGINT PRIMARY KEY DEFAULT (mintid_int('nanoflake')), v INT);
          CREATE TABLE c (u CHAR(36) CHARACTER SET ascii)"

# The server's time and its thread's CPU time for statement $2 (after $1), in microseconds.
timed() {
    sql b -e "SET profiling = 1; $1; $2;
              SELECT ROUND(SUM(duration) * 1e6), ROUND(SUM(cpu_user + cpu_system) * 1e6)
                FROM information_schema.profiling WHERE query_id = 2"
}

# Wall time of 8 connections, each 2000 single-row INSERTs into table $1, in microseconds.
clients() {
    sql b -e "TRUNCATE $1"
    local script=$root/inserts.sql start end
    awk -v t="$1" 'BEGIN { for (i = 0; i < 2000; i++) print "INSERT INTO " t " (v) VALUES (1);" }' > "$script"
    start=$(date +%s%N)
    for _ in 1 2 3 4 5 6 7 8; do sql b < "$script" & done
    wait
    end=$(date +%s%N)
    echo "$(((end - start) / 1000)) -"
}

case_time() { # name side
    case "$1/$2" in
    insert/base) timed "TRUNCATE base" "INSERT INTO base (v) SELECT seq FROM seq_1_to_1000000" ;;
    insert/ours) timed "TRUNCATE ours" "INSERT INTO ours (v) SELECT seq FROM seq_1_to_1000000" ;;
    rows/base) clients base ;;
    rows/ours) clients ours ;;
    text/base) timed "DO 0" "SELECT SUM(LENGTH(UUID())) FROM seq_1_to_1000000 INTO @x" ;;
    text/ours) timed "DO 0" "SELECT SUM(LENGTH(mintid('uuidv7'))) FROM seq_1_to_1000000 INTO @x" ;;
    uuidins/base) timed "TRUNCATE c" "INSERT INTO c (u) SELECT UUID() FROM seq_1_to_1000000" ;;
    uuidins/ours) timed "TRUNCATE c" "INSERT INTO c (u) SELECT mintid('uuidv7') FROM seq_1_to_1000000" ;;
    esac
}

cases=(insert rows text uuidins)
declare -A label=([insert]="insert 1M, DEFAULT vs AUTO_INCREMENT" [rows]="insert rows, 8 clients"
                  [text]="uuidv7 1M, SUM(LENGTH()) vs UUID()" [uuidins]="uuidv7 1M, INSERT CHAR(36) vs UUID()")
declare -A ratios cpu_ratios
for r in $(seq "$rounds"); do
    line="round $r:"
    for c in "${cases[@]}"; do
        if [ $((r % 2)) = 1 ]; then
            read -r b bc < <(case_time "$c" base); read -r o oc < <(case_time "$c" ours)
        else
            read -r o oc < <(case_time "$c" ours); read -r b bc < <(case_time "$c" base)
        fi
        ratio=$(awk -v b="$b" -v o="$o" 'BEGIN { printf "%.3f", b / o }')
        ratios[$c]="${ratios[$c]:-} $ratio"
        line="$line  $c $ratio"
        if [ "$bc" != - ]; then
            cpu=$(awk -v b="$bc" -v o="$oc" 'BEGIN { printf "%.3f", b / o }')
            cpu_ratios[$c]="${cpu_ratios[$c]:-} $cpu"
            line="$line (cpu $cpu)"
        fi
    done
    echo "$line"
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "medians (baseline's time over mintid's; above 1: mintid faster):"
for c in "${cases[@]}"; do
    printf '  %-40s %s' "${label[$c]}" "$(echo "${ratios[$c]}" | median)"
    [ -n "${cpu_ratios[$c]:-}" ] && printf ', cpu %s' "$(echo "${cpu_ratios[$c]}" | median)"
    printf '   (rounds:%s)\n' "${ratios[$c]}"
done
