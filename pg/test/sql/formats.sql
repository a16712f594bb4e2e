-- SPDX-License-Identifier: MIT
-- Vectors from the format pages (docs/formats/*.md), and bad
-- input: SQLSTATE 22P02 with the decoder's explanation.

-- uexky
SELECT 'xinaS8QBh'::uexky AS text, 11093174944930914::bigint::uexky AS from_int, 'xinaS8QBh'::uexky::bigint AS int,
       mintid_timestamp('xinaS8QBh'::uexky) AT TIME ZONE 'UTC' AS time, 'AABA'::uexky::bigint AS "1<<18";
SELECT mintid_inspect('xinaS8QBh'::uexky);
-- scru160
SELECT '05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51'::scru160, '017c083c130732153679e83c4fc65664e6a964a1'::scru160,
       '05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51'::scru160::bytea;
SELECT mintid_timestamp('05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51'::scru160) AT TIME ZONE 'UTC';
SELECT '05TTUP1HNCPNH30VEK64KDQT9BSNU4C4'::scru160 < '05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51'::scru160 AS lt;
-- ulid-flake and its scalable variant
SELECT '7ZZZZZZZZZZZZ'::ulid_flake::bigint, 14246757444195114::bigint::ulid_flake, '00F2N078MDT7J'::ulid_flake::bigint;
SELECT '00F2NC9TEXQ0Z'::ulid_flake_scalable::bigint, mintid_inspect('00F2NC9TEXQ0Z'::ulid_flake_scalable);
-- caloriosa: past 2^63 as bigint is two's complement
SELECT 'b5JikCvNEnD'::caloriosa, (-9136875751324600319)::bigint::caloriosa AS "2^64-…", 'b5JikCvNEnD'::caloriosa::bigint,
       ('b5JikCvNEnD'::caloriosa::bigint)::caloriosa;
-- nanoflake
SELECT '53jt2edkp3'::nanoflake::bigint, '1y2p0ij32e8e7'::nanoflake::bigint, '4zsov'::nanoflake,
       '8388607'::nanoflake, '1y2p0ij32e8e7'::nanoflake > '53jt2edkp3'::nanoflake AS gt;
-- uuidv7 (the uuid type), ulid, scru128
SELECT mintid_timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'::uuid) AT TIME ZONE 'UTC';
SELECT '01ARYZ6S41TSV4RRFFQ69G5FAV'::ulid, '01aryz6s41tsv4rrffq69g5fav'::ulid, '01ARYZ6S41TSV4RRFFQ69G5FAV'::ulid::uuid;
SELECT mintid_timestamp('01ARYZ6S41TSV4RRFFQ69G5FAV'::ulid) AT TIME ZONE 'UTC';
SELECT ulid_min('2016-07-30 22:36:16.385+00'), ulid_max('2016-07-30 22:36:16.385+00');
SELECT '01BX5ZZKBKACTAV9WEVGEMMVRZ'::ulid < '01BX5ZZKBKACTAV9WEVGEMMVS0'::ulid AS monotonic;
SELECT '0372hg16csmsm50l8dikcvukc'::scru128, '0372HG16CSMSM50L8DIKCVUKC'::scru128,
       '0372hg16csmsm50l8dikcvukc'::scru128::uuid;
SELECT scru128_min('2022-04-03 08:17:16.097+00'), scru128_max('2022-04-03 08:17:16.097+00');
-- snowflake (Discord's example, Twitter's epoch by default), sonyflake, ksuid
SELECT '175928847299117063'::snowflake, mintid_inspect('175928847299117063'::snowflake)->'node' AS node;
SELECT 'x'::sonyflake;
SELECT '0ujtsYcgvSTl8PAuAdqWYSMnLOv'::ksuid, mintid_timestamp('0ujtsYcgvSTl8PAuAdqWYSMnLOv'::ksuid) AT TIME ZONE 'UTC';

-- Binary forms: bytea casts check the length.
SELECT '\x0102'::bytea::nanoflake;
SELECT '\x00000000000000000000000000000000'::bytea::ulid;

-- Bad input: 22P02 and the decoder's sentence, for every type.
CREATE FUNCTION try_in(typ text, val text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT %L::%s', val, typ);
  RETURN 'accepted';
EXCEPTION WHEN others THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT typ, val, try_in(typ, val) FROM (VALUES
  ('uexky', ''), ('uexky', 'xinaS8QBh!'), ('uexky', '___________'),
  ('scru160', '05U0GF0J0SP1ADJPT0U4VHIMCJJAIP5'), ('scru160', '05U0GF0J0SP1ADJPT0U4VHIMCJJAIP5W'),
  ('ulid_flake', '8000000000000'), ('ulid_flake', '00F2N078MDT7'), ('ulid_flake_scalable', 'ZZZZZZZZZZZZZ'),
  ('caloriosa', 'katjjMQN'), ('caloriosa', 'b5JikCvNEn-'),
  ('nanoflake', '1y2p0ij32e8e8'), ('nanoflake', '-1'), ('nanoflake', '0012'),
  ('ulid', '8ZZZZZZZZZZZZZZZZZZZZZZZZZ'), ('ulid', '01ARYZ6S41TSV4RRFFQ69G5FAU!'),
  ('scru128', 'f5lxx1zz5pnorynqglhzmsp34'), ('snowflake', '9223372036854775808'),
  ('sonyflake', 'abc'), ('ksuid', 'aWgEPTl1tmebfsQzFP4bxwgy80W'), ('ksuid', '0ujtsYcgvSTl8PAuAdqWYSMnLO')
) v(typ, val);
SELECT typeid_to_uuid('user_01h455vb4pex5vsknk084sn02q!');
SELECT uuid_to_typeid('017f22e2-79b0-7cc3-98c4-dc0c0c07398f', 'User');

-- The SQLSTATE's class says whose the fault is (22: the caller's input);
-- within it, what was given: an ID's text 22P02, another type's value
-- 22P03 (22003 when too large), an argument 22023.
CREATE FUNCTION try_sql(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE q;
  RETURN 'accepted';
EXCEPTION WHEN others THEN
  RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
SELECT q, try_sql(q) FROM (VALUES
  ($q$SELECT '01ARZ3NDEKTSV4RRFFQ69G5FAI'::ulid$q$), ($q$SELECT '\x0102'::bytea::nanoflake$q$),
  ($q$SELECT (-1)::bigint::nanoflake$q$), ($q$SELECT 'b5JikCvNEnD'::caloriosa::bigint::caloriosa$q$),
  ($q$SELECT gen_typeid('User')$q$), ($q$SELECT mintid_timestamp('017f22e2-79b0-4cc3-98c4-dc0c0c07398f'::uuid)$q$)
) v(q);

-- Every format described as the library describes it, or one by its name
-- or its SQL name; a misspelt name gets the name a person meant.
SELECT jsonb_array_length(mintid_formats()) AS formats,
       mintid_formats() -> 5 ->> 'name' AS sixth,
       mintid_formats('nanoflake') ->> 'capacity_per_ms' AS capacity,
       mintid_formats('ulid_flake') ->> 'name' AS by_sql_name,
       (SELECT string_agg(f ->> 'name', ',') FROM jsonb_array_elements(mintid_formats()) f
         WHERE (f ->> 'node_bits')::int > 0) AS with_node;
SELECT try_sql($q$SELECT mintid_formats('uuid')$q$);
