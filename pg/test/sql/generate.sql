-- SPDX-License-Identifier: MIT
-- Generators as column defaults; a parallel query calling one per row.
CREATE TABLE t (id nanoflake PRIMARY KEY DEFAULT gen_nanoflake(), k scru160 DEFAULT gen_scru160() UNIQUE, n int);
INSERT INTO t (n) SELECT i FROM generate_series(1, 5000) i;
SELECT count(*), count(DISTINCT id), count(DISTINCT k) FROM t;
SELECT bool_and(id = (SELECT id FROM t t2 WHERE t2.n = t.n)) FROM t WHERE n < 10;

-- Parallel workers continue the same sequence (the host-wide state's).
CREATE TABLE p AS SELECT i FROM generate_series(1, 200000) i;
ANALYZE p;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
EXPLAIN (COSTS OFF) SELECT count(DISTINCT g) FROM (SELECT gen_nanoflake() AS g FROM p) s;
SELECT count(*) = count(DISTINCT g) AS unique, count(*) FROM (SELECT gen_nanoflake() AS g FROM p) s;
CREATE TEMP TABLE w AS SELECT g FROM (SELECT gen_ulid() AS g FROM p) s;
SELECT count(*) = count(DISTINCT g) AS unique FROM w;
RESET ALL;

-- Settings.
SHOW mintid.node;
SHOW mintid.nanoflake_epoch;
SET mintid.node = 3;
-- A node id no format has is refused when set; each format checks its own
-- width when it mints.
ALTER SYSTEM SET mintid.node = 70000;
-- An epoch setting takes an epoch of its own format only, never one in the
-- future (checked by ALTER SYSTEM; a refused value is not written).
ALTER SYSTEM SET mintid.nanoflake_epoch = 'discord';
ALTER SYSTEM SET mintid.sonyflake_epoch = '2999-01-01T00:00:00Z';
ALTER SYSTEM SET mintid.snowflake_epoch = 'nonsense';
ALTER SYSTEM SET mintid.snowflake_epoch = 'discord';
ALTER SYSTEM RESET mintid.snowflake_epoch;
-- The host-wide state's directory and id space are fixed at start, and read
-- as the host's other homes read MINTID_HOST_DIR and MINTID_ID_SPACE: a
-- relative directory, or an id space they would not take, is refused.
SHOW mintid.id_space;
SET mintid.id_space = 'tenant-1';
ALTER SYSTEM SET mintid.host_dir = 'var/tmp';
ALTER SYSTEM SET mintid.id_space = 'tenant 1';
ALTER SYSTEM SET mintid.id_space = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
ALTER SYSTEM SET mintid.id_space = 'tenant-1.eu_west';
ALTER SYSTEM RESET mintid.id_space;
