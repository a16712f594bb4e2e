#!/bin/bash
# SPDX-License-Identifier: MIT
# The extension's install script for its default version (pg/mintid.control)
# is what gen_sql writes from today's format table. Released scripts are
# frozen, so a change to the table that reaches SQL (a new format, a changed
# title) must come as a new extension version; this test fails until it does.
#
# usage: test_pg_sql.sh GEN_SQL PG_DIR
set -euo pipefail
gen_sql=$1 pg_dir=$2

version=$(sed -n "s/^default_version = '\([0-9.]*\)'\$/\1/p" "$pg_dir/mintid.control")
if [ -z "$version" ]; then
    echo "test_pg_sql: no default_version in $pg_dir/mintid.control" >&2
    exit 1
fi
script="$pg_dir/mintid--$version.sql"
if [ ! -f "$script" ]; then
    echo "test_pg_sql: default_version is $version but $script does not exist" >&2
    exit 1
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$gen_sql" "$version" >"$out"
if ! diff -u "$script" "$out"; then
    cat >&2 <<MSG
test_pg_sql: the format table no longer gives the script of mintid $version,
which is released and frozen. Make a new extension version instead
(docs/postgresql.md, "Versions and upgrades"): make -C pg gen_sql, then
pg/gen_sql NEW > pg/mintid--NEW.sql, an upgrade script
pg/mintid--$version--NEW.sql that makes the difference, and
default_version = 'NEW' in pg/mintid.control.
MSG
    exit 1
fi
echo "test_pg_sql: mintid--$version.sql is what gen_sql writes from the format table"
