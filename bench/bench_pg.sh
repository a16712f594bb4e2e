#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_pg.sh - the PostgreSQL extension against PostgreSQL's own keys, with
# pgbench on a throwaway cluster (shared_preload_libraries = 'mintid') on a
# spare loopback port, stopped by its postmaster's pid at the end.
#
#   bench/bench_pg.sh [SECONDS [ROWS]]   (default 10 s per run, 2000000
#                                         rows; 8 clients; ROUNDS=3
#                                         interleaved rounds, medians)
#   PAIR=1 bench/bench_pg.sh [SECONDS]   only INSERT gen_nanoflake() against
#                                         INSERT bigserial, in ROUNDS rounds
#                                         (default 9), the order turning
#                                         each round; prints every round's
#                                         ratio and their median
#
# Prints tps per run and these ratios:
#   INSERT gen_nanoflake() key / INSERT bigserial key
#   SELECT gen_nanoflake()     / SELECT nextval()
#   SELECT gen_nanoflake()     / SELECT gen_random_uuid()
# and the primary-key index sizes after the INSERT runs. Then, unless ROWS
# is 0, the same INSERTs once the index has outgrown shared_buffers: the
# cluster restarted with shared_buffers = 32MB, each table filled with ROWS
# rows first (index sizes printed after ROWS/2 and ROWS), and the ratios of
# each time-ordered key to gen_random_uuid(). The extension must be
# installed (make pg). Run as root (the cluster runs as postgres) or as
# postgres.
set -eu
SECS=${1:-10}
ROWS=${2:-2000000}
PAIR=${PAIR:-0}
if [ "$PAIR" = 1 ]; then ROUNDS=${ROUNDS:-9}; else ROUNDS=${ROUNDS:-3}; fi
CLIENTS=8
KEYS="bigserial nanoflake scru160 ulid uuidv7 uuid4" # the primary keys compared
BIN=$(pg_config --bindir)
ROOT=$(mktemp -d /tmp/mintid-bench-pg.XXXXXX)
chmod 755 "$ROOT"
AS=""
[ "$(id -un)" = postgres ] || { chown postgres "$ROOT"; AS="runuser -u postgres --"; }
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export PGHOST="$ROOT" PGPORT="$PORT" PGUSER=postgres PGDATABASE=postgres
PID=""
cleanup() {
  if [ -n "$PID" ]; then kill -INT "$PID" 2>/dev/null || true; while kill -0 "$PID" 2>/dev/null; do sleep 0.1; done; fi
  rm -rf "$ROOT"
}
trap cleanup EXIT INT TERM

$AS "$BIN/initdb" -D "$ROOT/data" --auth=trust -U postgres --no-sync >/dev/null
cat >> "$ROOT/data/postgresql.conf" <<CONF
port = $PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '$ROOT'
shared_preload_libraries = 'mintid'
shared_buffers = 128MB
synchronous_commit = off
CONF
$AS "$BIN/pg_ctl" -D "$ROOT/data" -l "$ROOT/log" -w start >/dev/null
PID=$(head -1 "$ROOT/data/postmaster.pid")

psql -Xq <<SQL
CREATE EXTENSION mintid;
CREATE SEQUENCE s;
CREATE TABLE k_bigserial (id bigserial PRIMARY KEY, n int);
CREATE TABLE k_nanoflake (id nanoflake PRIMARY KEY DEFAULT gen_nanoflake(), n int);
CREATE TABLE k_scru160 (id scru160 PRIMARY KEY DEFAULT gen_scru160(), n int);
CREATE TABLE k_ulid (id ulid PRIMARY KEY DEFAULT gen_ulid(), n int);
CREATE TABLE k_uuidv7 (id uuid PRIMARY KEY DEFAULT gen_uuidv7(), n int);
CREATE TABLE k_uuid4 (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);
SQL

tps() { # name sql: one pgbench run, its tps appended to $ROOT/name.tps
  printf '%s\n' "$2" > "$ROOT/$1.sql"
  pgbench -n -c $CLIENTS -j $CLIENTS -T "$SECS" -f "$ROOT/$1.sql" 2>/dev/null \
    | sed -n 's/^tps = \([0-9.]*\) .*/\1/p' >> "$ROOT/$1.tps"
}
median() { # name [decimals]: the median of its runs
  python3 -c "import statistics, sys; print(f'{statistics.median(float(l) for l in open(sys.argv[1])):.{sys.argv[2]}f}')" \
    "$ROOT/$1.tps" "${2:-0}"
}
medians() { # prefix: every key's median INSERT run, printed and kept in ${prefix}_KEY
  for k in $KEYS; do
    t=$(median "$1_$k")
    eval "$1_$k=$t"
    printf '  INSERT, %-10s key  %10s tps\n' "$k" "$t"
  done
}
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }

if [ "$PAIR" = 1 ]; then
  # The two keys alone, one after the other in each round (which goes first
  # turns each round), so that every round's ratio compares two runs a few
  # seconds apart; the median of those ratios is the figure.
  echo "pgbench, $CLIENTS clients, $SECS s per run, INSERT gen_nanoflake() against INSERT bigserial, $ROUNDS rounds"
  for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then order="bigserial nanoflake"; else order="nanoflake bigserial"; fi
    for k in $order; do
      tps "ins_$k" "INSERT INTO k_$k (n) VALUES (1);"
    done
    b=$(tail -1 "$ROOT/ins_bigserial.tps")
    n=$(tail -1 "$ROOT/ins_nanoflake.tps")
    printf '  round %2d: bigserial %8.0f tps, nanoflake %8.0f tps, ratio %s\n' "$r" "$b" "$n" "$(ratio "$n" "$b")"
    ratio "$n" "$b" >> "$ROOT/pair.tps"
  done
  echo "  INSERT gen_nanoflake / bigserial: median of the rounds' ratios $(median pair 2), ratio of the medians $(ratio "$(median ins_nanoflake)" "$(median ins_bigserial)")"
  exit 0
fi

# Interleaved rounds: each run in every round, medians compared, so that a
# slow moment of the machine does not fall on one side of a ratio.
echo "pgbench, $CLIENTS clients, $SECS s per run, median of $ROUNDS interleaved rounds"
for r in $(seq "$ROUNDS"); do
  for k in $KEYS; do
    tps "ins_$k" "INSERT INTO k_$k (n) VALUES (1);"
  done
  tps sel_nextval "SELECT nextval('s');"
  tps sel_nanoflake "SELECT gen_nanoflake();"
  tps sel_uuid4 "SELECT gen_random_uuid();"
done
medians ins
sel_nextval=$(median sel_nextval)
sel_nanoflake=$(median sel_nanoflake)
sel_uuid4=$(median sel_uuid4)
printf '  SELECT nextval(...)         %10s tps\n' "$sel_nextval"
printf '  SELECT gen_nanoflake()      %10s tps\n' "$sel_nanoflake"
printf '  SELECT gen_random_uuid()    %10s tps\n' "$sel_uuid4"
echo "ratios"
echo "  INSERT gen_nanoflake / bigserial:       $(ratio "$ins_nanoflake" "$ins_bigserial")"
echo "  SELECT gen_nanoflake / nextval:         $(ratio "$sel_nanoflake" "$sel_nextval")"
echo "  SELECT gen_nanoflake / gen_random_uuid: $(ratio "$sel_nanoflake" "$sel_uuid4")"
psql -Xq -c ANALYZE
echo "primary-key index sizes"
psql -XAt -c "SELECT '  ' || rpad(c.relname, 18) || lpad(pg_size_pretty(pg_relation_size(i.indexrelid)), 10) || '  (' || c.reltuples::bigint || ' rows)'
  FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname LIKE 'k\_%' ORDER BY c.relname"

[ "$ROWS" -gt 0 ] || exit 0

# ---- once the index outgrows shared_buffers ----
$AS "$BIN/pg_ctl" -D "$ROOT/data" -w stop >/dev/null
PID=""
echo "shared_buffers = 32MB" >> "$ROOT/data/postgresql.conf"
$AS "$BIN/pg_ctl" -D "$ROOT/data" -l "$ROOT/log" -w start >/dev/null
PID=$(head -1 "$ROOT/data/postmaster.pid")
HALF=$((ROWS / 2))
echo "shared_buffers 32MB, each table filled with $ROWS rows first"
sizes() {
  psql -XAt -c "SELECT '  ' || rpad(c.relname, 18) || lpad(pg_size_pretty(pg_relation_size(i.indexrelid)), 10)
    FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname LIKE 'l\\_%' ORDER BY pg_relation_size(i.indexrelid)"
}
for k in $KEYS; do
  case $k in
    bigserial) col="id bigserial PRIMARY KEY" ;;
    uuid4) col="id uuid PRIMARY KEY DEFAULT gen_random_uuid()" ;;
    uuidv7) col="id uuid PRIMARY KEY DEFAULT gen_uuidv7()" ;;
    *) col="id $k PRIMARY KEY DEFAULT gen_$k()" ;;
  esac
  psql -Xq -c "CREATE TABLE l_$k ($col, n int)" -c "INSERT INTO l_$k (n) SELECT 1 FROM generate_series(1, $HALF)"
done
echo "primary-key index sizes after $HALF rows"
sizes
for k in $KEYS; do
  psql -Xq -c "INSERT INTO l_$k (n) SELECT 1 FROM generate_series(1, $((ROWS - HALF)))"
done
psql -Xq -c VACUUM -c CHECKPOINT
echo "primary-key index sizes after $ROWS rows"
sizes
for r in $(seq "$ROUNDS"); do
  for k in $KEYS; do
    tps "big_$k" "INSERT INTO l_$k (n) VALUES (1);"
  done
done
medians big
echo "ratios, index past shared_buffers"
for k in nanoflake scru160 ulid uuidv7; do
  eval "t=\$big_$k"
  printf '  INSERT gen_%-9s / gen_random_uuid: %s\n' "$k" "$(ratio "$t" "$big_uuid4")"
done
echo "  INSERT gen_nanoflake / bigserial:       $(ratio "$big_nanoflake" "$big_bigserial")"
