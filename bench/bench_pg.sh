#!/bin/sh
# bench_pg.sh - the PostgreSQL extension against PostgreSQL's own keys, with
# pgbench on a throwaway cluster (shared_preload_libraries = 'mintid') on a
# spare loopback port, stopped by its postmaster's pid at the end.
#
#   bench/bench_pg.sh [SECONDS]      (default 10 s per run; 8 clients)
#
# Prints tps per run and the ratios the issue asks for:
#   INSERT gen_nanoflake() key / INSERT bigserial key
#   SELECT gen_nanoflake()     / SELECT nextval()
#   SELECT gen_nanoflake()     / SELECT gen_random_uuid()
# and the primary-key index sizes after the INSERT runs. The extension must
# be installed (make pg). Run as root (the cluster runs as postgres) or as
# postgres.
set -eu
SECS=${1:-10}
CLIENTS=8
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

tps() { # name sql
  printf '%s\n' "$2" > "$ROOT/$1.sql"
  pgbench -n -c $CLIENTS -j $CLIENTS -T "$SECS" -f "$ROOT/$1.sql" 2>/dev/null \
    | sed -n 's/^tps = \([0-9.]*\) .*/\1/p'
}
ratio() { python3 -c "print(f'{$1/$2:.2f}')"; }

echo "pgbench, $CLIENTS clients, $SECS s per run"
for k in bigserial nanoflake scru160 ulid uuidv7 uuid4; do
  t=$(tps "ins_$k" "INSERT INTO k_$k (n) VALUES (1);")
  eval "ins_$k=$t"
  printf '  INSERT, %-10s key  %10s tps\n' "$k" "$t"
done
sel_nextval=$(tps sel_nextval "SELECT nextval('s');")
sel_nanoflake=$(tps sel_nanoflake "SELECT gen_nanoflake();")
sel_uuid4=$(tps sel_uuid4 "SELECT gen_random_uuid();")
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
