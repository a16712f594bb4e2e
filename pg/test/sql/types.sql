-- SPDX-License-Identifier: MIT
-- Every type of the format table, through the same checks: generation,
-- text and bytea round trips, ordering, DISTINCT, hash join, casts, range
-- helpers. Random values are never printed; properties are.
CREATE EXTENSION mintid;

-- The types the extension made (uuidv7 is uuid, typeid is text).
SELECT t.typname, t.typlen, t.typbyval
  FROM pg_type t JOIN pg_depend d ON d.objid = t.oid AND d.deptype = 'e'
 WHERE t.typtype = 'b' AND t.typname NOT LIKE '\_%' ORDER BY t.oid;

CREATE FUNCTION check_type(t text, n int DEFAULT 2000) RETURNS TABLE (name text, ok bool)
LANGUAGE plpgsql AS $$
DECLARE
  big bool := (SELECT typlen = 8 FROM pg_type WHERE typname = t);
  wide bool := (SELECT typlen = 16 FROM pg_type WHERE typname = t);
  r record;
BEGIN
  EXECUTE format('CREATE TEMP TABLE ids (seq int GENERATED ALWAYS AS IDENTITY, id %s)', t);
  EXECUTE format('INSERT INTO ids (id) SELECT gen_%s() FROM generate_series(1, %s)', t, n);
  name := 'generated ids rise'; EXECUTE
    'SELECT bool_and(prev < id) FROM (SELECT id, lag(id) OVER (ORDER BY seq) AS prev FROM ids) s WHERE prev IS NOT NULL'
    INTO ok; RETURN NEXT;
  name := 'text round trip'; EXECUTE format('SELECT bool_and(id::text::%s = id) FROM ids', t) INTO ok; RETURN NEXT;
  name := 'bytea round trip'; EXECUTE format('SELECT bool_and(id::bytea::%s = id) FROM ids', t) INTO ok; RETURN NEXT;
  IF big THEN
    name := 'bigint round trip'; EXECUTE format('SELECT bool_and(id::bigint::%s = id) FROM ids', t) INTO ok; RETURN NEXT;
  END IF;
  IF wide THEN
    name := 'uuid round trip'; EXECUTE format('SELECT bool_and(id::uuid::%s = id) FROM ids', t) INTO ok; RETURN NEXT;
  END IF;
  name := 'ORDER BY id = generation order'; EXECUTE
    'SELECT array_agg(seq ORDER BY id) = array_agg(seq ORDER BY seq) FROM ids' INTO ok; RETURN NEXT;
  name := 'ORDER BY id = ORDER BY bytea'; EXECUTE
    'SELECT array_agg(seq ORDER BY id) = array_agg(seq ORDER BY id::bytea) FROM ids' INTO ok; RETURN NEXT;
  name := 'min() and max()'; EXECUTE
    'SELECT min(id) = (SELECT id FROM ids ORDER BY seq LIMIT 1) AND max(id) = (SELECT id FROM ids ORDER BY seq DESC LIMIT 1) FROM ids'
    INTO ok; RETURN NEXT;
  name := 'DISTINCT'; EXECUTE
    format('SELECT count(DISTINCT id) = %s AND (SELECT count(*) FROM (SELECT DISTINCT id FROM ids UNION ALL SELECT id FROM ids LIMIT 0) s) = 0 FROM ids', n)
    INTO ok; RETURN NEXT;
  name := 'operators agree with cmp'; EXECUTE format(
    'SELECT bool_and((a.id < b.id) = (%1$s_cmp(a.id, b.id) < 0) AND (a.id <= b.id) = (%1$s_cmp(a.id, b.id) <= 0)
        AND (a.id = b.id) = (%1$s_cmp(a.id, b.id) = 0) AND (a.id <> b.id) = (%1$s_cmp(a.id, b.id) <> 0)
        AND (a.id >= b.id) = (%1$s_cmp(a.id, b.id) >= 0) AND (a.id > b.id) = (%1$s_cmp(a.id, b.id) > 0))
       FROM (SELECT id FROM ids LIMIT 50) a, (SELECT id FROM ids ORDER BY seq DESC LIMIT 50) b', t) INTO ok;
  RETURN NEXT;
  SET LOCAL enable_mergejoin = off; SET LOCAL enable_nestloop = off;
  name := 'hash join'; EXECUTE 'SELECT count(*) = ' || n || ' FROM ids a JOIN ids b ON a.id = b.id' INTO ok; RETURN NEXT;
  name := 'hash join plan'; ok := false;
  FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) SELECT count(*) FROM ids a JOIN ids b ON a.id = b.id' LOOP
    ok := ok OR r."QUERY PLAN" LIKE '%Hash Join%';
  END LOOP; RETURN NEXT;
  RESET enable_mergejoin; RESET enable_nestloop;
  SET LOCAL enable_hashagg = off;
  name := 'merge join'; EXECUTE 'SELECT count(*) = ' || n || ' FROM ids a JOIN ids b ON a.id = b.id' INTO ok; RETURN NEXT;
  RESET enable_hashagg;
  name := 'timestamp is now'; EXECUTE
    'SELECT bool_and(mintid_timestamp(id) BETWEEN now() - interval ''1 minute'' AND clock_timestamp() + interval ''5 seconds'') FROM ids'
    INTO ok; RETURN NEXT;
  name := 'min <= id <= max of its time'; EXECUTE format(
    'SELECT bool_and(%1$s_min(mintid_timestamp(id)) <= id AND id <= %1$s_max(mintid_timestamp(id))
        AND %1$s_max(mintid_timestamp(id) - interval ''1 second'') < id) FROM ids', t) INTO ok; RETURN NEXT;
  name := 'inspect'; EXECUTE format(
    'SELECT bool_and(mintid_inspect(id)->>''text'' = id::text AND mintid_inspect(id)->>''format'' = %L) FROM ids',
    replace(t, '_', '-')) INTO ok; RETURN NEXT;
  EXECUTE format('CREATE INDEX ON ids USING btree (id); CREATE INDEX ON ids USING hash (id); CREATE INDEX ON ids USING brin (id)');
  ANALYZE ids;
  SET LOCAL enable_seqscan = off;
  name := 'btree, hash and brin indexes answer'; EXECUTE format(
    'SELECT (SELECT count(*) FROM ids WHERE id = (SELECT id FROM ids WHERE seq = 7)) = 1
        AND (SELECT count(*) FROM ids WHERE id >= (SELECT id FROM ids WHERE seq = %s)) = 11', n - 10) INTO ok;
  RETURN NEXT;
  RESET enable_seqscan;
  DROP TABLE ids;
END $$;

SELECT name, ok FROM check_type('uexky');
SELECT name, ok FROM check_type('scru160');
SELECT name, ok FROM check_type('ulid_flake');
SELECT name, ok FROM check_type('caloriosa');
SELECT name, ok FROM check_type('ulid');
SELECT name, ok FROM check_type('scru128');
SELECT name, ok FROM check_type('ksuid', 300);
-- The node-bound ones (mintid.node = 0).
SELECT name, ok FROM check_type('ulid_flake_scalable');
SELECT name, ok FROM check_type('nanoflake');
SELECT name, ok FROM check_type('snowflake');
SELECT name, ok FROM check_type('sonyflake');

-- The range helpers are an index range scan.
CREATE TABLE events (id nanoflake PRIMARY KEY DEFAULT gen_nanoflake(), note text);
INSERT INTO events (note) SELECT 'n' || i FROM generate_series(1, 1000) i;
ANALYZE events;
EXPLAIN (COSTS OFF) SELECT * FROM events
 WHERE id BETWEEN nanoflake_min('2026-01-01 00:00+00') AND nanoflake_max('2026-01-02 00:00+00');
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM events WHERE id >= nanoflake_min(now() - interval '1 hour');
RESET enable_seqscan;
SELECT count(*) FROM events WHERE id BETWEEN nanoflake_min(now() - interval '1 hour') AND nanoflake_max(now() + interval '1 minute');
SELECT count(*) FROM events WHERE id < nanoflake_min(now() - interval '1 hour');

-- uuidv7 is PostgreSQL's uuid; typeid is text over it.
SELECT count(DISTINCT u) = 1000 AS distinct, bool_and(substr(u::text, 15, 1) = '7') AS version7
  FROM (SELECT gen_uuidv7() AS u FROM generate_series(1, 1000)) s;
SELECT mintid_timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid);
SELECT uuidv7_min('2022-02-22 19:22:22+00'), uuidv7_max('2022-02-22 19:22:22+00');
SELECT mintid_inspect('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid);
SELECT gen_typeid('user') LIKE 'user\_%' AS prefixed, length(gen_typeid()) AS bare_length;
SELECT typeid_to_uuid(uuid_to_typeid('017f22e2-79b0-7cc3-98c4-dc0c0c07398f', 'user'));
SELECT uuid_to_typeid('017f22e2-79b0-7cc3-98c4-dc0c0c07398f', 'user');
SELECT mintid_timestamp(typeid_to_uuid(gen_typeid('post'))) > now() - interval '1 minute' AS recent;
