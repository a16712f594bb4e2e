-- SPDX-License-Identifier: MIT
-- mintid--0.1.2.sql: written once by gen_sql from libmintid's format table;
-- once released it is frozen: never edited, never written again (docs/postgresql.md).
\echo Use "CREATE EXTENSION mintid" to load this file. \quit

-- uexky: uexky unique ID: 42-bit ms timestamp, 9-bit sequence, 9 random bits; rotated base64 text
CREATE TYPE uexky;
CREATE FUNCTION uexky_in(cstring) RETURNS uexky
  AS 'MODULE_PATHNAME', 'mintid_in_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uexky_out(uexky) RETURNS cstring
  AS 'MODULE_PATHNAME', 'mintid_out_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uexky_recv(internal) RETURNS uexky
  AS 'MODULE_PATHNAME', 'mintid_recv_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uexky_send(uexky) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_send_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE uexky (
  INPUT = uexky_in, OUTPUT = uexky_out, RECEIVE = uexky_recv, SEND = uexky_send,
  INTERNALLENGTH = 8, PASSEDBYVALUE, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE uexky IS 'uexky unique ID: 42-bit ms timestamp, 9-bit sequence, 9 random bits; rotated base64 text (64 bits)';
CREATE FUNCTION uexky_lt(uexky, uexky) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_lt_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uexky_le(uexky, uexky) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_le_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uexky_eq(uexky, uexky) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_eq_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uexky_ge(uexky, uexky) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ge_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uexky_gt(uexky, uexky) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_gt_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uexky_ne(uexky, uexky) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ne_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uexky_cmp(uexky, uexky) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_cmp_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uexky_smaller(uexky, uexky) RETURNS uexky
  AS 'MODULE_PATHNAME', 'mintid_smaller_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uexky_larger(uexky, uexky) RETURNS uexky
  AS 'MODULE_PATHNAME', 'mintid_larger_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uexky_sortsupport(internal) RETURNS void
  AS 'MODULE_PATHNAME', 'mintid_sortsupport_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uexky_hash(uexky) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_hash_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION uexky_hash_extended(uexky, int8) RETURNS int8
  AS 'MODULE_PATHNAME', 'mintid_hash_ext_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR < (
  LEFTARG = uexky, RIGHTARG = uexky, FUNCTION = uexky_lt,
  COMMUTATOR = OPERATOR(>), NEGATOR = OPERATOR(>=), RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
  LEFTARG = uexky, RIGHTARG = uexky, FUNCTION = uexky_le,
  COMMUTATOR = OPERATOR(>=), NEGATOR = OPERATOR(>), RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
  LEFTARG = uexky, RIGHTARG = uexky, FUNCTION = uexky_eq,
  COMMUTATOR = OPERATOR(=), NEGATOR = OPERATOR(<>), RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR >= (
  LEFTARG = uexky, RIGHTARG = uexky, FUNCTION = uexky_ge,
  COMMUTATOR = OPERATOR(<=), NEGATOR = OPERATOR(<), RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
  LEFTARG = uexky, RIGHTARG = uexky, FUNCTION = uexky_gt,
  COMMUTATOR = OPERATOR(<), NEGATOR = OPERATOR(<=), RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR <> (
  LEFTARG = uexky, RIGHTARG = uexky, FUNCTION = uexky_ne,
  COMMUTATOR = OPERATOR(<>), NEGATOR = OPERATOR(=), RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE AGGREGATE min(uexky) (SFUNC = uexky_smaller, STYPE = uexky, SORTOP = <, COMBINEFUNC = uexky_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(uexky) (SFUNC = uexky_larger, STYPE = uexky, SORTOP = >, COMBINEFUNC = uexky_larger, PARALLEL = SAFE);
CREATE OPERATOR CLASS uexky_ops DEFAULT FOR TYPE uexky USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 uexky_cmp(uexky, uexky), FUNCTION 2 uexky_sortsupport(internal);
CREATE OPERATOR CLASS uexky_hash_ops DEFAULT FOR TYPE uexky USING hash AS
  OPERATOR 1 =, FUNCTION 1 uexky_hash(uexky), FUNCTION 2 uexky_hash_extended(uexky, int8);
CREATE OPERATOR CLASS uexky_minmax_ops DEFAULT FOR TYPE uexky USING brin AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 brin_minmax_opcinfo(internal),
  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
  FUNCTION 4 brin_minmax_union(internal, internal, internal);
CREATE FUNCTION uexky_to_bytea(uexky) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_to_bytea_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uexky_from_bytea(bytea) RETURNS uexky
  AS 'MODULE_PATHNAME', 'mintid_from_bytea_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (uexky AS bytea) WITH FUNCTION uexky_to_bytea(uexky);
CREATE CAST (bytea AS uexky) WITH FUNCTION uexky_from_bytea(bytea);
CREATE FUNCTION uexky_to_bigint(uexky) RETURNS bigint
  AS 'MODULE_PATHNAME', 'mintid_to_int8_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uexky_from_bigint(bigint) RETURNS uexky
  AS 'MODULE_PATHNAME', 'mintid_from_int8_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (uexky AS bigint) WITH FUNCTION uexky_to_bigint(uexky);
CREATE CAST (bigint AS uexky) WITH FUNCTION uexky_from_bigint(bigint);
CREATE FUNCTION gen_uexky() RETURNS uexky
  AS 'MODULE_PATHNAME', 'mintid_gen_0' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_uexky() IS 'a new uexky ID, greater than every one minted before in the cluster';
CREATE FUNCTION mintid_timestamp(uexky) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'mintid_timestamp_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mintid_inspect(uexky) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_inspect_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uexky_min(timestamptz) RETURNS uexky
  AS 'MODULE_PATHNAME', 'mintid_min_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uexky_max(timestamptz) RETURNS uexky
  AS 'MODULE_PATHNAME', 'mintid_max_0' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uexky_min(timestamptz) IS 'the smallest uexky ID of that millisecond';
COMMENT ON FUNCTION uexky_max(timestamptz) IS 'the largest uexky ID of that millisecond';

-- scru160: SCRU160: 48-bit Unix ms timestamp, 16-bit counter, 96 random bits; base32hex text
CREATE TYPE scru160;
CREATE FUNCTION scru160_in(cstring) RETURNS scru160
  AS 'MODULE_PATHNAME', 'mintid_in_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru160_out(scru160) RETURNS cstring
  AS 'MODULE_PATHNAME', 'mintid_out_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru160_recv(internal) RETURNS scru160
  AS 'MODULE_PATHNAME', 'mintid_recv_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru160_send(scru160) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_send_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE scru160 (
  INPUT = scru160_in, OUTPUT = scru160_out, RECEIVE = scru160_recv, SEND = scru160_send,
  INTERNALLENGTH = 20, ALIGNMENT = char, STORAGE = plain
);
COMMENT ON TYPE scru160 IS 'SCRU160: 48-bit Unix ms timestamp, 16-bit counter, 96 random bits; base32hex text (160 bits)';
CREATE FUNCTION scru160_lt(scru160, scru160) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_lt_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru160_le(scru160, scru160) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_le_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru160_eq(scru160, scru160) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_eq_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru160_ge(scru160, scru160) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ge_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru160_gt(scru160, scru160) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_gt_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru160_ne(scru160, scru160) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ne_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru160_cmp(scru160, scru160) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_cmp_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru160_smaller(scru160, scru160) RETURNS scru160
  AS 'MODULE_PATHNAME', 'mintid_smaller_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru160_larger(scru160, scru160) RETURNS scru160
  AS 'MODULE_PATHNAME', 'mintid_larger_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru160_sortsupport(internal) RETURNS void
  AS 'MODULE_PATHNAME', 'mintid_sortsupport_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru160_hash(scru160) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_hash_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru160_hash_extended(scru160, int8) RETURNS int8
  AS 'MODULE_PATHNAME', 'mintid_hash_ext_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR < (
  LEFTARG = scru160, RIGHTARG = scru160, FUNCTION = scru160_lt,
  COMMUTATOR = OPERATOR(>), NEGATOR = OPERATOR(>=), RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
  LEFTARG = scru160, RIGHTARG = scru160, FUNCTION = scru160_le,
  COMMUTATOR = OPERATOR(>=), NEGATOR = OPERATOR(>), RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
  LEFTARG = scru160, RIGHTARG = scru160, FUNCTION = scru160_eq,
  COMMUTATOR = OPERATOR(=), NEGATOR = OPERATOR(<>), RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR >= (
  LEFTARG = scru160, RIGHTARG = scru160, FUNCTION = scru160_ge,
  COMMUTATOR = OPERATOR(<=), NEGATOR = OPERATOR(<), RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
  LEFTARG = scru160, RIGHTARG = scru160, FUNCTION = scru160_gt,
  COMMUTATOR = OPERATOR(<), NEGATOR = OPERATOR(<=), RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR <> (
  LEFTARG = scru160, RIGHTARG = scru160, FUNCTION = scru160_ne,
  COMMUTATOR = OPERATOR(<>), NEGATOR = OPERATOR(=), RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE AGGREGATE min(scru160) (SFUNC = scru160_smaller, STYPE = scru160, SORTOP = <, COMBINEFUNC = scru160_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(scru160) (SFUNC = scru160_larger, STYPE = scru160, SORTOP = >, COMBINEFUNC = scru160_larger, PARALLEL = SAFE);
CREATE OPERATOR CLASS scru160_ops DEFAULT FOR TYPE scru160 USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 scru160_cmp(scru160, scru160), FUNCTION 2 scru160_sortsupport(internal);
CREATE OPERATOR CLASS scru160_hash_ops DEFAULT FOR TYPE scru160 USING hash AS
  OPERATOR 1 =, FUNCTION 1 scru160_hash(scru160), FUNCTION 2 scru160_hash_extended(scru160, int8);
CREATE OPERATOR CLASS scru160_minmax_ops DEFAULT FOR TYPE scru160 USING brin AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 brin_minmax_opcinfo(internal),
  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
  FUNCTION 4 brin_minmax_union(internal, internal, internal);
CREATE FUNCTION scru160_to_bytea(scru160) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_to_bytea_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru160_from_bytea(bytea) RETURNS scru160
  AS 'MODULE_PATHNAME', 'mintid_from_bytea_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (scru160 AS bytea) WITH FUNCTION scru160_to_bytea(scru160);
CREATE CAST (bytea AS scru160) WITH FUNCTION scru160_from_bytea(bytea);
CREATE FUNCTION gen_scru160() RETURNS scru160
  AS 'MODULE_PATHNAME', 'mintid_gen_1' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_scru160() IS 'a new scru160 ID, greater than every one minted before in the cluster';
CREATE FUNCTION mintid_timestamp(scru160) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'mintid_timestamp_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mintid_inspect(scru160) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_inspect_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru160_min(timestamptz) RETURNS scru160
  AS 'MODULE_PATHNAME', 'mintid_min_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru160_max(timestamptz) RETURNS scru160
  AS 'MODULE_PATHNAME', 'mintid_max_1' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION scru160_min(timestamptz) IS 'the smallest scru160 ID of that millisecond';
COMMENT ON FUNCTION scru160_max(timestamptz) IS 'the largest scru160 ID of that millisecond';

-- ulid-flake: Ulid-Flake: 43-bit ms timestamp, 20-bit randomness (+n per ID); Crockford base32 text
CREATE TYPE ulid_flake;
CREATE FUNCTION ulid_flake_in(cstring) RETURNS ulid_flake
  AS 'MODULE_PATHNAME', 'mintid_in_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_out(ulid_flake) RETURNS cstring
  AS 'MODULE_PATHNAME', 'mintid_out_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_recv(internal) RETURNS ulid_flake
  AS 'MODULE_PATHNAME', 'mintid_recv_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_send(ulid_flake) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_send_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE ulid_flake (
  INPUT = ulid_flake_in, OUTPUT = ulid_flake_out, RECEIVE = ulid_flake_recv, SEND = ulid_flake_send,
  INTERNALLENGTH = 8, PASSEDBYVALUE, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE ulid_flake IS 'Ulid-Flake: 43-bit ms timestamp, 20-bit randomness (+n per ID); Crockford base32 text (64 bits)';
CREATE FUNCTION ulid_flake_lt(ulid_flake, ulid_flake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_lt_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_le(ulid_flake, ulid_flake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_le_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_eq(ulid_flake, ulid_flake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_eq_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_ge(ulid_flake, ulid_flake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ge_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_gt(ulid_flake, ulid_flake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_gt_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_ne(ulid_flake, ulid_flake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ne_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_cmp(ulid_flake, ulid_flake) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_cmp_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_smaller(ulid_flake, ulid_flake) RETURNS ulid_flake
  AS 'MODULE_PATHNAME', 'mintid_smaller_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_larger(ulid_flake, ulid_flake) RETURNS ulid_flake
  AS 'MODULE_PATHNAME', 'mintid_larger_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_sortsupport(internal) RETURNS void
  AS 'MODULE_PATHNAME', 'mintid_sortsupport_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_hash(ulid_flake) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_hash_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_hash_extended(ulid_flake, int8) RETURNS int8
  AS 'MODULE_PATHNAME', 'mintid_hash_ext_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR < (
  LEFTARG = ulid_flake, RIGHTARG = ulid_flake, FUNCTION = ulid_flake_lt,
  COMMUTATOR = OPERATOR(>), NEGATOR = OPERATOR(>=), RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
  LEFTARG = ulid_flake, RIGHTARG = ulid_flake, FUNCTION = ulid_flake_le,
  COMMUTATOR = OPERATOR(>=), NEGATOR = OPERATOR(>), RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
  LEFTARG = ulid_flake, RIGHTARG = ulid_flake, FUNCTION = ulid_flake_eq,
  COMMUTATOR = OPERATOR(=), NEGATOR = OPERATOR(<>), RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR >= (
  LEFTARG = ulid_flake, RIGHTARG = ulid_flake, FUNCTION = ulid_flake_ge,
  COMMUTATOR = OPERATOR(<=), NEGATOR = OPERATOR(<), RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
  LEFTARG = ulid_flake, RIGHTARG = ulid_flake, FUNCTION = ulid_flake_gt,
  COMMUTATOR = OPERATOR(<), NEGATOR = OPERATOR(<=), RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR <> (
  LEFTARG = ulid_flake, RIGHTARG = ulid_flake, FUNCTION = ulid_flake_ne,
  COMMUTATOR = OPERATOR(<>), NEGATOR = OPERATOR(=), RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE AGGREGATE min(ulid_flake) (SFUNC = ulid_flake_smaller, STYPE = ulid_flake, SORTOP = <, COMBINEFUNC = ulid_flake_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(ulid_flake) (SFUNC = ulid_flake_larger, STYPE = ulid_flake, SORTOP = >, COMBINEFUNC = ulid_flake_larger, PARALLEL = SAFE);
CREATE OPERATOR CLASS ulid_flake_ops DEFAULT FOR TYPE ulid_flake USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 ulid_flake_cmp(ulid_flake, ulid_flake), FUNCTION 2 ulid_flake_sortsupport(internal);
CREATE OPERATOR CLASS ulid_flake_hash_ops DEFAULT FOR TYPE ulid_flake USING hash AS
  OPERATOR 1 =, FUNCTION 1 ulid_flake_hash(ulid_flake), FUNCTION 2 ulid_flake_hash_extended(ulid_flake, int8);
CREATE OPERATOR CLASS ulid_flake_minmax_ops DEFAULT FOR TYPE ulid_flake USING brin AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 brin_minmax_opcinfo(internal),
  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
  FUNCTION 4 brin_minmax_union(internal, internal, internal);
CREATE FUNCTION ulid_flake_to_bytea(ulid_flake) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_to_bytea_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_from_bytea(bytea) RETURNS ulid_flake
  AS 'MODULE_PATHNAME', 'mintid_from_bytea_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (ulid_flake AS bytea) WITH FUNCTION ulid_flake_to_bytea(ulid_flake);
CREATE CAST (bytea AS ulid_flake) WITH FUNCTION ulid_flake_from_bytea(bytea);
CREATE FUNCTION ulid_flake_to_bigint(ulid_flake) RETURNS bigint
  AS 'MODULE_PATHNAME', 'mintid_to_int8_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_from_bigint(bigint) RETURNS ulid_flake
  AS 'MODULE_PATHNAME', 'mintid_from_int8_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (ulid_flake AS bigint) WITH FUNCTION ulid_flake_to_bigint(ulid_flake);
CREATE CAST (bigint AS ulid_flake) WITH FUNCTION ulid_flake_from_bigint(bigint);
CREATE FUNCTION gen_ulid_flake() RETURNS ulid_flake
  AS 'MODULE_PATHNAME', 'mintid_gen_2' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_ulid_flake() IS 'a new ulid-flake ID, greater than every one minted before in the cluster';
CREATE FUNCTION mintid_timestamp(ulid_flake) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'mintid_timestamp_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mintid_inspect(ulid_flake) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_inspect_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_min(timestamptz) RETURNS ulid_flake
  AS 'MODULE_PATHNAME', 'mintid_min_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_max(timestamptz) RETURNS ulid_flake
  AS 'MODULE_PATHNAME', 'mintid_max_2' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ulid_flake_min(timestamptz) IS 'the smallest ulid-flake ID of that millisecond';
COMMENT ON FUNCTION ulid_flake_max(timestamptz) IS 'the largest ulid-flake ID of that millisecond';

-- ulid-flake-scalable: Ulid-Flake scalable: 43-bit ms timestamp, 15-bit randomness, 5-bit scalability id
CREATE TYPE ulid_flake_scalable;
CREATE FUNCTION ulid_flake_scalable_in(cstring) RETURNS ulid_flake_scalable
  AS 'MODULE_PATHNAME', 'mintid_in_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_scalable_out(ulid_flake_scalable) RETURNS cstring
  AS 'MODULE_PATHNAME', 'mintid_out_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_scalable_recv(internal) RETURNS ulid_flake_scalable
  AS 'MODULE_PATHNAME', 'mintid_recv_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_scalable_send(ulid_flake_scalable) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_send_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE ulid_flake_scalable (
  INPUT = ulid_flake_scalable_in, OUTPUT = ulid_flake_scalable_out, RECEIVE = ulid_flake_scalable_recv, SEND = ulid_flake_scalable_send,
  INTERNALLENGTH = 8, PASSEDBYVALUE, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE ulid_flake_scalable IS 'Ulid-Flake scalable: 43-bit ms timestamp, 15-bit randomness, 5-bit scalability id (64 bits)';
CREATE FUNCTION ulid_flake_scalable_lt(ulid_flake_scalable, ulid_flake_scalable) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_lt_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_scalable_le(ulid_flake_scalable, ulid_flake_scalable) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_le_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_scalable_eq(ulid_flake_scalable, ulid_flake_scalable) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_eq_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_scalable_ge(ulid_flake_scalable, ulid_flake_scalable) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ge_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_scalable_gt(ulid_flake_scalable, ulid_flake_scalable) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_gt_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_scalable_ne(ulid_flake_scalable, ulid_flake_scalable) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ne_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_scalable_cmp(ulid_flake_scalable, ulid_flake_scalable) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_cmp_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_scalable_smaller(ulid_flake_scalable, ulid_flake_scalable) RETURNS ulid_flake_scalable
  AS 'MODULE_PATHNAME', 'mintid_smaller_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_scalable_larger(ulid_flake_scalable, ulid_flake_scalable) RETURNS ulid_flake_scalable
  AS 'MODULE_PATHNAME', 'mintid_larger_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_scalable_sortsupport(internal) RETURNS void
  AS 'MODULE_PATHNAME', 'mintid_sortsupport_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_scalable_hash(ulid_flake_scalable) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_hash_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_flake_scalable_hash_extended(ulid_flake_scalable, int8) RETURNS int8
  AS 'MODULE_PATHNAME', 'mintid_hash_ext_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR < (
  LEFTARG = ulid_flake_scalable, RIGHTARG = ulid_flake_scalable, FUNCTION = ulid_flake_scalable_lt,
  COMMUTATOR = OPERATOR(>), NEGATOR = OPERATOR(>=), RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
  LEFTARG = ulid_flake_scalable, RIGHTARG = ulid_flake_scalable, FUNCTION = ulid_flake_scalable_le,
  COMMUTATOR = OPERATOR(>=), NEGATOR = OPERATOR(>), RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
  LEFTARG = ulid_flake_scalable, RIGHTARG = ulid_flake_scalable, FUNCTION = ulid_flake_scalable_eq,
  COMMUTATOR = OPERATOR(=), NEGATOR = OPERATOR(<>), RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR >= (
  LEFTARG = ulid_flake_scalable, RIGHTARG = ulid_flake_scalable, FUNCTION = ulid_flake_scalable_ge,
  COMMUTATOR = OPERATOR(<=), NEGATOR = OPERATOR(<), RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
  LEFTARG = ulid_flake_scalable, RIGHTARG = ulid_flake_scalable, FUNCTION = ulid_flake_scalable_gt,
  COMMUTATOR = OPERATOR(<), NEGATOR = OPERATOR(<=), RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR <> (
  LEFTARG = ulid_flake_scalable, RIGHTARG = ulid_flake_scalable, FUNCTION = ulid_flake_scalable_ne,
  COMMUTATOR = OPERATOR(<>), NEGATOR = OPERATOR(=), RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE AGGREGATE min(ulid_flake_scalable) (SFUNC = ulid_flake_scalable_smaller, STYPE = ulid_flake_scalable, SORTOP = <, COMBINEFUNC = ulid_flake_scalable_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(ulid_flake_scalable) (SFUNC = ulid_flake_scalable_larger, STYPE = ulid_flake_scalable, SORTOP = >, COMBINEFUNC = ulid_flake_scalable_larger, PARALLEL = SAFE);
CREATE OPERATOR CLASS ulid_flake_scalable_ops DEFAULT FOR TYPE ulid_flake_scalable USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 ulid_flake_scalable_cmp(ulid_flake_scalable, ulid_flake_scalable), FUNCTION 2 ulid_flake_scalable_sortsupport(internal);
CREATE OPERATOR CLASS ulid_flake_scalable_hash_ops DEFAULT FOR TYPE ulid_flake_scalable USING hash AS
  OPERATOR 1 =, FUNCTION 1 ulid_flake_scalable_hash(ulid_flake_scalable), FUNCTION 2 ulid_flake_scalable_hash_extended(ulid_flake_scalable, int8);
CREATE OPERATOR CLASS ulid_flake_scalable_minmax_ops DEFAULT FOR TYPE ulid_flake_scalable USING brin AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 brin_minmax_opcinfo(internal),
  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
  FUNCTION 4 brin_minmax_union(internal, internal, internal);
CREATE FUNCTION ulid_flake_scalable_to_bytea(ulid_flake_scalable) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_to_bytea_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_scalable_from_bytea(bytea) RETURNS ulid_flake_scalable
  AS 'MODULE_PATHNAME', 'mintid_from_bytea_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (ulid_flake_scalable AS bytea) WITH FUNCTION ulid_flake_scalable_to_bytea(ulid_flake_scalable);
CREATE CAST (bytea AS ulid_flake_scalable) WITH FUNCTION ulid_flake_scalable_from_bytea(bytea);
CREATE FUNCTION ulid_flake_scalable_to_bigint(ulid_flake_scalable) RETURNS bigint
  AS 'MODULE_PATHNAME', 'mintid_to_int8_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_scalable_from_bigint(bigint) RETURNS ulid_flake_scalable
  AS 'MODULE_PATHNAME', 'mintid_from_int8_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (ulid_flake_scalable AS bigint) WITH FUNCTION ulid_flake_scalable_to_bigint(ulid_flake_scalable);
CREATE CAST (bigint AS ulid_flake_scalable) WITH FUNCTION ulid_flake_scalable_from_bigint(bigint);
CREATE FUNCTION gen_ulid_flake_scalable() RETURNS ulid_flake_scalable
  AS 'MODULE_PATHNAME', 'mintid_gen_3' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_ulid_flake_scalable() IS 'a new ulid-flake-scalable ID, greater than every one minted before in the cluster';
CREATE FUNCTION mintid_timestamp(ulid_flake_scalable) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'mintid_timestamp_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mintid_inspect(ulid_flake_scalable) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_inspect_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_scalable_min(timestamptz) RETURNS ulid_flake_scalable
  AS 'MODULE_PATHNAME', 'mintid_min_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_flake_scalable_max(timestamptz) RETURNS ulid_flake_scalable
  AS 'MODULE_PATHNAME', 'mintid_max_3' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ulid_flake_scalable_min(timestamptz) IS 'the smallest ulid-flake-scalable ID of that millisecond';
COMMENT ON FUNCTION ulid_flake_scalable_max(timestamptz) IS 'the largest ulid-flake-scalable ID of that millisecond';

-- caloriosa: Caloriosa device name: 41-bit ms timestamp, 12 random bits, 10-bit increment; base62 text
CREATE TYPE caloriosa;
CREATE FUNCTION caloriosa_in(cstring) RETURNS caloriosa
  AS 'MODULE_PATHNAME', 'mintid_in_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION caloriosa_out(caloriosa) RETURNS cstring
  AS 'MODULE_PATHNAME', 'mintid_out_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION caloriosa_recv(internal) RETURNS caloriosa
  AS 'MODULE_PATHNAME', 'mintid_recv_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION caloriosa_send(caloriosa) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_send_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE caloriosa (
  INPUT = caloriosa_in, OUTPUT = caloriosa_out, RECEIVE = caloriosa_recv, SEND = caloriosa_send,
  INTERNALLENGTH = 8, PASSEDBYVALUE, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE caloriosa IS 'Caloriosa device name: 41-bit ms timestamp, 12 random bits, 10-bit increment; base62 text (64 bits)';
CREATE FUNCTION caloriosa_lt(caloriosa, caloriosa) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_lt_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION caloriosa_le(caloriosa, caloriosa) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_le_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION caloriosa_eq(caloriosa, caloriosa) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_eq_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION caloriosa_ge(caloriosa, caloriosa) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ge_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION caloriosa_gt(caloriosa, caloriosa) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_gt_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION caloriosa_ne(caloriosa, caloriosa) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ne_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION caloriosa_cmp(caloriosa, caloriosa) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_cmp_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION caloriosa_smaller(caloriosa, caloriosa) RETURNS caloriosa
  AS 'MODULE_PATHNAME', 'mintid_smaller_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION caloriosa_larger(caloriosa, caloriosa) RETURNS caloriosa
  AS 'MODULE_PATHNAME', 'mintid_larger_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION caloriosa_sortsupport(internal) RETURNS void
  AS 'MODULE_PATHNAME', 'mintid_sortsupport_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION caloriosa_hash(caloriosa) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_hash_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION caloriosa_hash_extended(caloriosa, int8) RETURNS int8
  AS 'MODULE_PATHNAME', 'mintid_hash_ext_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR < (
  LEFTARG = caloriosa, RIGHTARG = caloriosa, FUNCTION = caloriosa_lt,
  COMMUTATOR = OPERATOR(>), NEGATOR = OPERATOR(>=), RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
  LEFTARG = caloriosa, RIGHTARG = caloriosa, FUNCTION = caloriosa_le,
  COMMUTATOR = OPERATOR(>=), NEGATOR = OPERATOR(>), RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
  LEFTARG = caloriosa, RIGHTARG = caloriosa, FUNCTION = caloriosa_eq,
  COMMUTATOR = OPERATOR(=), NEGATOR = OPERATOR(<>), RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR >= (
  LEFTARG = caloriosa, RIGHTARG = caloriosa, FUNCTION = caloriosa_ge,
  COMMUTATOR = OPERATOR(<=), NEGATOR = OPERATOR(<), RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
  LEFTARG = caloriosa, RIGHTARG = caloriosa, FUNCTION = caloriosa_gt,
  COMMUTATOR = OPERATOR(<), NEGATOR = OPERATOR(<=), RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR <> (
  LEFTARG = caloriosa, RIGHTARG = caloriosa, FUNCTION = caloriosa_ne,
  COMMUTATOR = OPERATOR(<>), NEGATOR = OPERATOR(=), RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE AGGREGATE min(caloriosa) (SFUNC = caloriosa_smaller, STYPE = caloriosa, SORTOP = <, COMBINEFUNC = caloriosa_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(caloriosa) (SFUNC = caloriosa_larger, STYPE = caloriosa, SORTOP = >, COMBINEFUNC = caloriosa_larger, PARALLEL = SAFE);
CREATE OPERATOR CLASS caloriosa_ops DEFAULT FOR TYPE caloriosa USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 caloriosa_cmp(caloriosa, caloriosa), FUNCTION 2 caloriosa_sortsupport(internal);
CREATE OPERATOR CLASS caloriosa_hash_ops DEFAULT FOR TYPE caloriosa USING hash AS
  OPERATOR 1 =, FUNCTION 1 caloriosa_hash(caloriosa), FUNCTION 2 caloriosa_hash_extended(caloriosa, int8);
CREATE OPERATOR CLASS caloriosa_minmax_ops DEFAULT FOR TYPE caloriosa USING brin AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 brin_minmax_opcinfo(internal),
  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
  FUNCTION 4 brin_minmax_union(internal, internal, internal);
CREATE FUNCTION caloriosa_to_bytea(caloriosa) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_to_bytea_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION caloriosa_from_bytea(bytea) RETURNS caloriosa
  AS 'MODULE_PATHNAME', 'mintid_from_bytea_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (caloriosa AS bytea) WITH FUNCTION caloriosa_to_bytea(caloriosa);
CREATE CAST (bytea AS caloriosa) WITH FUNCTION caloriosa_from_bytea(bytea);
CREATE FUNCTION caloriosa_to_bigint(caloriosa) RETURNS bigint
  AS 'MODULE_PATHNAME', 'mintid_to_int8_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION caloriosa_from_bigint(bigint) RETURNS caloriosa
  AS 'MODULE_PATHNAME', 'mintid_from_int8_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (caloriosa AS bigint) WITH FUNCTION caloriosa_to_bigint(caloriosa);
CREATE CAST (bigint AS caloriosa) WITH FUNCTION caloriosa_from_bigint(bigint);
CREATE FUNCTION gen_caloriosa() RETURNS caloriosa
  AS 'MODULE_PATHNAME', 'mintid_gen_4' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_caloriosa() IS 'a new caloriosa ID, greater than every one minted before in the cluster';
CREATE FUNCTION mintid_timestamp(caloriosa) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'mintid_timestamp_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mintid_inspect(caloriosa) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_inspect_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION caloriosa_min(timestamptz) RETURNS caloriosa
  AS 'MODULE_PATHNAME', 'mintid_min_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION caloriosa_max(timestamptz) RETURNS caloriosa
  AS 'MODULE_PATHNAME', 'mintid_max_4' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION caloriosa_min(timestamptz) IS 'the smallest caloriosa ID of that millisecond';
COMMENT ON FUNCTION caloriosa_max(timestamptz) IS 'the largest caloriosa ID of that millisecond';

-- nanoflake: Nanoflake (Snowflake-compatible): 41-bit ms timestamp, 10-bit generator id, 12-bit sequence
CREATE TYPE nanoflake;
CREATE FUNCTION nanoflake_in(cstring) RETURNS nanoflake
  AS 'MODULE_PATHNAME', 'mintid_in_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION nanoflake_out(nanoflake) RETURNS cstring
  AS 'MODULE_PATHNAME', 'mintid_out_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION nanoflake_recv(internal) RETURNS nanoflake
  AS 'MODULE_PATHNAME', 'mintid_recv_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION nanoflake_send(nanoflake) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_send_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE nanoflake (
  INPUT = nanoflake_in, OUTPUT = nanoflake_out, RECEIVE = nanoflake_recv, SEND = nanoflake_send,
  INTERNALLENGTH = 8, PASSEDBYVALUE, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE nanoflake IS 'Nanoflake (Snowflake-compatible): 41-bit ms timestamp, 10-bit generator id, 12-bit sequence (64 bits)';
CREATE FUNCTION nanoflake_lt(nanoflake, nanoflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_lt_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION nanoflake_le(nanoflake, nanoflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_le_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION nanoflake_eq(nanoflake, nanoflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_eq_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION nanoflake_ge(nanoflake, nanoflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ge_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION nanoflake_gt(nanoflake, nanoflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_gt_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION nanoflake_ne(nanoflake, nanoflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ne_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION nanoflake_cmp(nanoflake, nanoflake) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_cmp_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION nanoflake_smaller(nanoflake, nanoflake) RETURNS nanoflake
  AS 'MODULE_PATHNAME', 'mintid_smaller_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION nanoflake_larger(nanoflake, nanoflake) RETURNS nanoflake
  AS 'MODULE_PATHNAME', 'mintid_larger_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION nanoflake_sortsupport(internal) RETURNS void
  AS 'MODULE_PATHNAME', 'mintid_sortsupport_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION nanoflake_hash(nanoflake) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_hash_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION nanoflake_hash_extended(nanoflake, int8) RETURNS int8
  AS 'MODULE_PATHNAME', 'mintid_hash_ext_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR < (
  LEFTARG = nanoflake, RIGHTARG = nanoflake, FUNCTION = nanoflake_lt,
  COMMUTATOR = OPERATOR(>), NEGATOR = OPERATOR(>=), RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
  LEFTARG = nanoflake, RIGHTARG = nanoflake, FUNCTION = nanoflake_le,
  COMMUTATOR = OPERATOR(>=), NEGATOR = OPERATOR(>), RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
  LEFTARG = nanoflake, RIGHTARG = nanoflake, FUNCTION = nanoflake_eq,
  COMMUTATOR = OPERATOR(=), NEGATOR = OPERATOR(<>), RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR >= (
  LEFTARG = nanoflake, RIGHTARG = nanoflake, FUNCTION = nanoflake_ge,
  COMMUTATOR = OPERATOR(<=), NEGATOR = OPERATOR(<), RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
  LEFTARG = nanoflake, RIGHTARG = nanoflake, FUNCTION = nanoflake_gt,
  COMMUTATOR = OPERATOR(<), NEGATOR = OPERATOR(<=), RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR <> (
  LEFTARG = nanoflake, RIGHTARG = nanoflake, FUNCTION = nanoflake_ne,
  COMMUTATOR = OPERATOR(<>), NEGATOR = OPERATOR(=), RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE AGGREGATE min(nanoflake) (SFUNC = nanoflake_smaller, STYPE = nanoflake, SORTOP = <, COMBINEFUNC = nanoflake_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(nanoflake) (SFUNC = nanoflake_larger, STYPE = nanoflake, SORTOP = >, COMBINEFUNC = nanoflake_larger, PARALLEL = SAFE);
CREATE OPERATOR CLASS nanoflake_ops DEFAULT FOR TYPE nanoflake USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 nanoflake_cmp(nanoflake, nanoflake), FUNCTION 2 nanoflake_sortsupport(internal);
CREATE OPERATOR CLASS nanoflake_hash_ops DEFAULT FOR TYPE nanoflake USING hash AS
  OPERATOR 1 =, FUNCTION 1 nanoflake_hash(nanoflake), FUNCTION 2 nanoflake_hash_extended(nanoflake, int8);
CREATE OPERATOR CLASS nanoflake_minmax_ops DEFAULT FOR TYPE nanoflake USING brin AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 brin_minmax_opcinfo(internal),
  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
  FUNCTION 4 brin_minmax_union(internal, internal, internal);
CREATE FUNCTION nanoflake_to_bytea(nanoflake) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_to_bytea_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION nanoflake_from_bytea(bytea) RETURNS nanoflake
  AS 'MODULE_PATHNAME', 'mintid_from_bytea_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (nanoflake AS bytea) WITH FUNCTION nanoflake_to_bytea(nanoflake);
CREATE CAST (bytea AS nanoflake) WITH FUNCTION nanoflake_from_bytea(bytea);
CREATE FUNCTION nanoflake_to_bigint(nanoflake) RETURNS bigint
  AS 'MODULE_PATHNAME', 'mintid_to_int8_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION nanoflake_from_bigint(bigint) RETURNS nanoflake
  AS 'MODULE_PATHNAME', 'mintid_from_int8_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (nanoflake AS bigint) WITH FUNCTION nanoflake_to_bigint(nanoflake);
CREATE CAST (bigint AS nanoflake) WITH FUNCTION nanoflake_from_bigint(bigint);
CREATE FUNCTION gen_nanoflake() RETURNS nanoflake
  AS 'MODULE_PATHNAME', 'mintid_gen_5' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_nanoflake() IS 'a new nanoflake ID, greater than every one minted before in the cluster';
CREATE FUNCTION mintid_timestamp(nanoflake) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'mintid_timestamp_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mintid_inspect(nanoflake) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_inspect_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION nanoflake_min(timestamptz) RETURNS nanoflake
  AS 'MODULE_PATHNAME', 'mintid_min_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION nanoflake_max(timestamptz) RETURNS nanoflake
  AS 'MODULE_PATHNAME', 'mintid_max_5' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION nanoflake_min(timestamptz) IS 'the smallest nanoflake ID of that millisecond';
COMMENT ON FUNCTION nanoflake_max(timestamptz) IS 'the largest nanoflake ID of that millisecond';

-- uuidv7: UUIDv7 (RFC 9562): 48-bit Unix ms timestamp, 42-bit counter, 32 random bits per ID; PostgreSQL's uuid type
CREATE FUNCTION gen_uuidv7() RETURNS uuid
  AS 'MODULE_PATHNAME', 'mintid_gen_6' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_uuidv7() IS 'a new uuidv7 ID, greater than every one minted before in the cluster';
CREATE FUNCTION mintid_timestamp(uuid) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'mintid_timestamp_6' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mintid_inspect(uuid) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_inspect_6' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuidv7_min(timestamptz) RETURNS uuid
  AS 'MODULE_PATHNAME', 'mintid_min_6' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuidv7_max(timestamptz) RETURNS uuid
  AS 'MODULE_PATHNAME', 'mintid_max_6' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuidv7_min(timestamptz) IS 'the smallest uuidv7 ID of that millisecond';
COMMENT ON FUNCTION uuidv7_max(timestamptz) IS 'the largest uuidv7 ID of that millisecond';

-- ulid: ULID: 48-bit Unix ms timestamp, 80 random bits incremented within a millisecond
CREATE TYPE ulid;
CREATE FUNCTION ulid_in(cstring) RETURNS ulid
  AS 'MODULE_PATHNAME', 'mintid_in_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_out(ulid) RETURNS cstring
  AS 'MODULE_PATHNAME', 'mintid_out_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_recv(internal) RETURNS ulid
  AS 'MODULE_PATHNAME', 'mintid_recv_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_send(ulid) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_send_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE ulid (
  INPUT = ulid_in, OUTPUT = ulid_out, RECEIVE = ulid_recv, SEND = ulid_send,
  INTERNALLENGTH = 16, ALIGNMENT = char, STORAGE = plain
);
COMMENT ON TYPE ulid IS 'ULID: 48-bit Unix ms timestamp, 80 random bits incremented within a millisecond (128 bits)';
CREATE FUNCTION ulid_lt(ulid, ulid) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_lt_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_le(ulid, ulid) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_le_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_eq(ulid, ulid) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_eq_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_ge(ulid, ulid) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ge_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_gt(ulid, ulid) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_gt_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_ne(ulid, ulid) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ne_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_cmp(ulid, ulid) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_cmp_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_smaller(ulid, ulid) RETURNS ulid
  AS 'MODULE_PATHNAME', 'mintid_smaller_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_larger(ulid, ulid) RETURNS ulid
  AS 'MODULE_PATHNAME', 'mintid_larger_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_sortsupport(internal) RETURNS void
  AS 'MODULE_PATHNAME', 'mintid_sortsupport_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_hash(ulid) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_hash_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ulid_hash_extended(ulid, int8) RETURNS int8
  AS 'MODULE_PATHNAME', 'mintid_hash_ext_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR < (
  LEFTARG = ulid, RIGHTARG = ulid, FUNCTION = ulid_lt,
  COMMUTATOR = OPERATOR(>), NEGATOR = OPERATOR(>=), RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
  LEFTARG = ulid, RIGHTARG = ulid, FUNCTION = ulid_le,
  COMMUTATOR = OPERATOR(>=), NEGATOR = OPERATOR(>), RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
  LEFTARG = ulid, RIGHTARG = ulid, FUNCTION = ulid_eq,
  COMMUTATOR = OPERATOR(=), NEGATOR = OPERATOR(<>), RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR >= (
  LEFTARG = ulid, RIGHTARG = ulid, FUNCTION = ulid_ge,
  COMMUTATOR = OPERATOR(<=), NEGATOR = OPERATOR(<), RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
  LEFTARG = ulid, RIGHTARG = ulid, FUNCTION = ulid_gt,
  COMMUTATOR = OPERATOR(<), NEGATOR = OPERATOR(<=), RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR <> (
  LEFTARG = ulid, RIGHTARG = ulid, FUNCTION = ulid_ne,
  COMMUTATOR = OPERATOR(<>), NEGATOR = OPERATOR(=), RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE AGGREGATE min(ulid) (SFUNC = ulid_smaller, STYPE = ulid, SORTOP = <, COMBINEFUNC = ulid_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(ulid) (SFUNC = ulid_larger, STYPE = ulid, SORTOP = >, COMBINEFUNC = ulid_larger, PARALLEL = SAFE);
CREATE OPERATOR CLASS ulid_ops DEFAULT FOR TYPE ulid USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 ulid_cmp(ulid, ulid), FUNCTION 2 ulid_sortsupport(internal);
CREATE OPERATOR CLASS ulid_hash_ops DEFAULT FOR TYPE ulid USING hash AS
  OPERATOR 1 =, FUNCTION 1 ulid_hash(ulid), FUNCTION 2 ulid_hash_extended(ulid, int8);
CREATE OPERATOR CLASS ulid_minmax_ops DEFAULT FOR TYPE ulid USING brin AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 brin_minmax_opcinfo(internal),
  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
  FUNCTION 4 brin_minmax_union(internal, internal, internal);
CREATE FUNCTION ulid_to_bytea(ulid) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_to_bytea_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_from_bytea(bytea) RETURNS ulid
  AS 'MODULE_PATHNAME', 'mintid_from_bytea_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (ulid AS bytea) WITH FUNCTION ulid_to_bytea(ulid);
CREATE CAST (bytea AS ulid) WITH FUNCTION ulid_from_bytea(bytea);
CREATE FUNCTION ulid_to_uuid(ulid) RETURNS uuid
  AS 'MODULE_PATHNAME', 'mintid_to_uuid_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_from_uuid(uuid) RETURNS ulid
  AS 'MODULE_PATHNAME', 'mintid_from_uuid_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (ulid AS uuid) WITH FUNCTION ulid_to_uuid(ulid);
CREATE CAST (uuid AS ulid) WITH FUNCTION ulid_from_uuid(uuid);
CREATE FUNCTION gen_ulid() RETURNS ulid
  AS 'MODULE_PATHNAME', 'mintid_gen_7' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_ulid() IS 'a new ulid ID, greater than every one minted before in the cluster';
CREATE FUNCTION mintid_timestamp(ulid) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'mintid_timestamp_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mintid_inspect(ulid) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_inspect_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_min(timestamptz) RETURNS ulid
  AS 'MODULE_PATHNAME', 'mintid_min_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ulid_max(timestamptz) RETURNS ulid
  AS 'MODULE_PATHNAME', 'mintid_max_7' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ulid_min(timestamptz) IS 'the smallest ulid ID of that millisecond';
COMMENT ON FUNCTION ulid_max(timestamptz) IS 'the largest ulid ID of that millisecond';

-- scru128: SCRU128: 48-bit Unix ms timestamp, 48-bit counter, 32 random bits; base36 text
CREATE TYPE scru128;
CREATE FUNCTION scru128_in(cstring) RETURNS scru128
  AS 'MODULE_PATHNAME', 'mintid_in_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru128_out(scru128) RETURNS cstring
  AS 'MODULE_PATHNAME', 'mintid_out_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru128_recv(internal) RETURNS scru128
  AS 'MODULE_PATHNAME', 'mintid_recv_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru128_send(scru128) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_send_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE scru128 (
  INPUT = scru128_in, OUTPUT = scru128_out, RECEIVE = scru128_recv, SEND = scru128_send,
  INTERNALLENGTH = 16, ALIGNMENT = char, STORAGE = plain
);
COMMENT ON TYPE scru128 IS 'SCRU128: 48-bit Unix ms timestamp, 48-bit counter, 32 random bits; base36 text (128 bits)';
CREATE FUNCTION scru128_lt(scru128, scru128) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_lt_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru128_le(scru128, scru128) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_le_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru128_eq(scru128, scru128) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_eq_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru128_ge(scru128, scru128) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ge_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru128_gt(scru128, scru128) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_gt_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru128_ne(scru128, scru128) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ne_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru128_cmp(scru128, scru128) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_cmp_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru128_smaller(scru128, scru128) RETURNS scru128
  AS 'MODULE_PATHNAME', 'mintid_smaller_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru128_larger(scru128, scru128) RETURNS scru128
  AS 'MODULE_PATHNAME', 'mintid_larger_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru128_sortsupport(internal) RETURNS void
  AS 'MODULE_PATHNAME', 'mintid_sortsupport_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru128_hash(scru128) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_hash_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION scru128_hash_extended(scru128, int8) RETURNS int8
  AS 'MODULE_PATHNAME', 'mintid_hash_ext_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR < (
  LEFTARG = scru128, RIGHTARG = scru128, FUNCTION = scru128_lt,
  COMMUTATOR = OPERATOR(>), NEGATOR = OPERATOR(>=), RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
  LEFTARG = scru128, RIGHTARG = scru128, FUNCTION = scru128_le,
  COMMUTATOR = OPERATOR(>=), NEGATOR = OPERATOR(>), RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
  LEFTARG = scru128, RIGHTARG = scru128, FUNCTION = scru128_eq,
  COMMUTATOR = OPERATOR(=), NEGATOR = OPERATOR(<>), RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR >= (
  LEFTARG = scru128, RIGHTARG = scru128, FUNCTION = scru128_ge,
  COMMUTATOR = OPERATOR(<=), NEGATOR = OPERATOR(<), RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
  LEFTARG = scru128, RIGHTARG = scru128, FUNCTION = scru128_gt,
  COMMUTATOR = OPERATOR(<), NEGATOR = OPERATOR(<=), RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR <> (
  LEFTARG = scru128, RIGHTARG = scru128, FUNCTION = scru128_ne,
  COMMUTATOR = OPERATOR(<>), NEGATOR = OPERATOR(=), RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE AGGREGATE min(scru128) (SFUNC = scru128_smaller, STYPE = scru128, SORTOP = <, COMBINEFUNC = scru128_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(scru128) (SFUNC = scru128_larger, STYPE = scru128, SORTOP = >, COMBINEFUNC = scru128_larger, PARALLEL = SAFE);
CREATE OPERATOR CLASS scru128_ops DEFAULT FOR TYPE scru128 USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 scru128_cmp(scru128, scru128), FUNCTION 2 scru128_sortsupport(internal);
CREATE OPERATOR CLASS scru128_hash_ops DEFAULT FOR TYPE scru128 USING hash AS
  OPERATOR 1 =, FUNCTION 1 scru128_hash(scru128), FUNCTION 2 scru128_hash_extended(scru128, int8);
CREATE OPERATOR CLASS scru128_minmax_ops DEFAULT FOR TYPE scru128 USING brin AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 brin_minmax_opcinfo(internal),
  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
  FUNCTION 4 brin_minmax_union(internal, internal, internal);
CREATE FUNCTION scru128_to_bytea(scru128) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_to_bytea_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru128_from_bytea(bytea) RETURNS scru128
  AS 'MODULE_PATHNAME', 'mintid_from_bytea_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (scru128 AS bytea) WITH FUNCTION scru128_to_bytea(scru128);
CREATE CAST (bytea AS scru128) WITH FUNCTION scru128_from_bytea(bytea);
CREATE FUNCTION scru128_to_uuid(scru128) RETURNS uuid
  AS 'MODULE_PATHNAME', 'mintid_to_uuid_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru128_from_uuid(uuid) RETURNS scru128
  AS 'MODULE_PATHNAME', 'mintid_from_uuid_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (scru128 AS uuid) WITH FUNCTION scru128_to_uuid(scru128);
CREATE CAST (uuid AS scru128) WITH FUNCTION scru128_from_uuid(uuid);
CREATE FUNCTION gen_scru128() RETURNS scru128
  AS 'MODULE_PATHNAME', 'mintid_gen_8' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_scru128() IS 'a new scru128 ID, greater than every one minted before in the cluster';
CREATE FUNCTION mintid_timestamp(scru128) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'mintid_timestamp_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mintid_inspect(scru128) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_inspect_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru128_min(timestamptz) RETURNS scru128
  AS 'MODULE_PATHNAME', 'mintid_min_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION scru128_max(timestamptz) RETURNS scru128
  AS 'MODULE_PATHNAME', 'mintid_max_8' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION scru128_min(timestamptz) IS 'the smallest scru128 ID of that millisecond';
COMMENT ON FUNCTION scru128_max(timestamptz) IS 'the largest scru128 ID of that millisecond';

-- snowflake: Snowflake (Twitter): 41-bit ms timestamp, 10-bit node, 12-bit sequence; decimal
CREATE TYPE snowflake;
CREATE FUNCTION snowflake_in(cstring) RETURNS snowflake
  AS 'MODULE_PATHNAME', 'mintid_in_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_out(snowflake) RETURNS cstring
  AS 'MODULE_PATHNAME', 'mintid_out_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_recv(internal) RETURNS snowflake
  AS 'MODULE_PATHNAME', 'mintid_recv_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_send(snowflake) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_send_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE snowflake (
  INPUT = snowflake_in, OUTPUT = snowflake_out, RECEIVE = snowflake_recv, SEND = snowflake_send,
  INTERNALLENGTH = 8, PASSEDBYVALUE, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE snowflake IS 'Snowflake (Twitter): 41-bit ms timestamp, 10-bit node, 12-bit sequence; decimal (64 bits)';
CREATE FUNCTION snowflake_lt(snowflake, snowflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_lt_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_le(snowflake, snowflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_le_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_eq(snowflake, snowflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_eq_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ge(snowflake, snowflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ge_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_gt(snowflake, snowflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_gt_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_ne(snowflake, snowflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ne_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_cmp(snowflake, snowflake) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_cmp_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_smaller(snowflake, snowflake) RETURNS snowflake
  AS 'MODULE_PATHNAME', 'mintid_smaller_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_larger(snowflake, snowflake) RETURNS snowflake
  AS 'MODULE_PATHNAME', 'mintid_larger_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_sortsupport(internal) RETURNS void
  AS 'MODULE_PATHNAME', 'mintid_sortsupport_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_hash(snowflake) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_hash_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION snowflake_hash_extended(snowflake, int8) RETURNS int8
  AS 'MODULE_PATHNAME', 'mintid_hash_ext_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR < (
  LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_lt,
  COMMUTATOR = OPERATOR(>), NEGATOR = OPERATOR(>=), RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
  LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_le,
  COMMUTATOR = OPERATOR(>=), NEGATOR = OPERATOR(>), RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
  LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_eq,
  COMMUTATOR = OPERATOR(=), NEGATOR = OPERATOR(<>), RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR >= (
  LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_ge,
  COMMUTATOR = OPERATOR(<=), NEGATOR = OPERATOR(<), RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
  LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_gt,
  COMMUTATOR = OPERATOR(<), NEGATOR = OPERATOR(<=), RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR <> (
  LEFTARG = snowflake, RIGHTARG = snowflake, FUNCTION = snowflake_ne,
  COMMUTATOR = OPERATOR(<>), NEGATOR = OPERATOR(=), RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE AGGREGATE min(snowflake) (SFUNC = snowflake_smaller, STYPE = snowflake, SORTOP = <, COMBINEFUNC = snowflake_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(snowflake) (SFUNC = snowflake_larger, STYPE = snowflake, SORTOP = >, COMBINEFUNC = snowflake_larger, PARALLEL = SAFE);
CREATE OPERATOR CLASS snowflake_ops DEFAULT FOR TYPE snowflake USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 snowflake_cmp(snowflake, snowflake), FUNCTION 2 snowflake_sortsupport(internal);
CREATE OPERATOR CLASS snowflake_hash_ops DEFAULT FOR TYPE snowflake USING hash AS
  OPERATOR 1 =, FUNCTION 1 snowflake_hash(snowflake), FUNCTION 2 snowflake_hash_extended(snowflake, int8);
CREATE OPERATOR CLASS snowflake_minmax_ops DEFAULT FOR TYPE snowflake USING brin AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 brin_minmax_opcinfo(internal),
  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
  FUNCTION 4 brin_minmax_union(internal, internal, internal);
CREATE FUNCTION snowflake_to_bytea(snowflake) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_to_bytea_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_from_bytea(bytea) RETURNS snowflake
  AS 'MODULE_PATHNAME', 'mintid_from_bytea_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (snowflake AS bytea) WITH FUNCTION snowflake_to_bytea(snowflake);
CREATE CAST (bytea AS snowflake) WITH FUNCTION snowflake_from_bytea(bytea);
CREATE FUNCTION snowflake_to_bigint(snowflake) RETURNS bigint
  AS 'MODULE_PATHNAME', 'mintid_to_int8_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_from_bigint(bigint) RETURNS snowflake
  AS 'MODULE_PATHNAME', 'mintid_from_int8_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (snowflake AS bigint) WITH FUNCTION snowflake_to_bigint(snowflake);
CREATE CAST (bigint AS snowflake) WITH FUNCTION snowflake_from_bigint(bigint);
CREATE FUNCTION gen_snowflake() RETURNS snowflake
  AS 'MODULE_PATHNAME', 'mintid_gen_9' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_snowflake() IS 'a new snowflake ID, greater than every one minted before in the cluster';
CREATE FUNCTION mintid_timestamp(snowflake) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'mintid_timestamp_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mintid_inspect(snowflake) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_inspect_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_min(timestamptz) RETURNS snowflake
  AS 'MODULE_PATHNAME', 'mintid_min_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION snowflake_max(timestamptz) RETURNS snowflake
  AS 'MODULE_PATHNAME', 'mintid_max_9' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION snowflake_min(timestamptz) IS 'the smallest snowflake ID of that millisecond';
COMMENT ON FUNCTION snowflake_max(timestamptz) IS 'the largest snowflake ID of that millisecond';

-- sonyflake: Sonyflake: 39-bit count of 10 ms units, 8-bit sequence, 16-bit machine id; decimal
CREATE TYPE sonyflake;
CREATE FUNCTION sonyflake_in(cstring) RETURNS sonyflake
  AS 'MODULE_PATHNAME', 'mintid_in_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sonyflake_out(sonyflake) RETURNS cstring
  AS 'MODULE_PATHNAME', 'mintid_out_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sonyflake_recv(internal) RETURNS sonyflake
  AS 'MODULE_PATHNAME', 'mintid_recv_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sonyflake_send(sonyflake) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_send_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE sonyflake (
  INPUT = sonyflake_in, OUTPUT = sonyflake_out, RECEIVE = sonyflake_recv, SEND = sonyflake_send,
  INTERNALLENGTH = 8, PASSEDBYVALUE, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE sonyflake IS 'Sonyflake: 39-bit count of 10 ms units, 8-bit sequence, 16-bit machine id; decimal (64 bits)';
CREATE FUNCTION sonyflake_lt(sonyflake, sonyflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_lt_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION sonyflake_le(sonyflake, sonyflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_le_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION sonyflake_eq(sonyflake, sonyflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_eq_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION sonyflake_ge(sonyflake, sonyflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ge_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION sonyflake_gt(sonyflake, sonyflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_gt_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION sonyflake_ne(sonyflake, sonyflake) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ne_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION sonyflake_cmp(sonyflake, sonyflake) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_cmp_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION sonyflake_smaller(sonyflake, sonyflake) RETURNS sonyflake
  AS 'MODULE_PATHNAME', 'mintid_smaller_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sonyflake_larger(sonyflake, sonyflake) RETURNS sonyflake
  AS 'MODULE_PATHNAME', 'mintid_larger_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sonyflake_sortsupport(internal) RETURNS void
  AS 'MODULE_PATHNAME', 'mintid_sortsupport_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sonyflake_hash(sonyflake) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_hash_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION sonyflake_hash_extended(sonyflake, int8) RETURNS int8
  AS 'MODULE_PATHNAME', 'mintid_hash_ext_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR < (
  LEFTARG = sonyflake, RIGHTARG = sonyflake, FUNCTION = sonyflake_lt,
  COMMUTATOR = OPERATOR(>), NEGATOR = OPERATOR(>=), RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
  LEFTARG = sonyflake, RIGHTARG = sonyflake, FUNCTION = sonyflake_le,
  COMMUTATOR = OPERATOR(>=), NEGATOR = OPERATOR(>), RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
  LEFTARG = sonyflake, RIGHTARG = sonyflake, FUNCTION = sonyflake_eq,
  COMMUTATOR = OPERATOR(=), NEGATOR = OPERATOR(<>), RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR >= (
  LEFTARG = sonyflake, RIGHTARG = sonyflake, FUNCTION = sonyflake_ge,
  COMMUTATOR = OPERATOR(<=), NEGATOR = OPERATOR(<), RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
  LEFTARG = sonyflake, RIGHTARG = sonyflake, FUNCTION = sonyflake_gt,
  COMMUTATOR = OPERATOR(<), NEGATOR = OPERATOR(<=), RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR <> (
  LEFTARG = sonyflake, RIGHTARG = sonyflake, FUNCTION = sonyflake_ne,
  COMMUTATOR = OPERATOR(<>), NEGATOR = OPERATOR(=), RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE AGGREGATE min(sonyflake) (SFUNC = sonyflake_smaller, STYPE = sonyflake, SORTOP = <, COMBINEFUNC = sonyflake_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(sonyflake) (SFUNC = sonyflake_larger, STYPE = sonyflake, SORTOP = >, COMBINEFUNC = sonyflake_larger, PARALLEL = SAFE);
CREATE OPERATOR CLASS sonyflake_ops DEFAULT FOR TYPE sonyflake USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 sonyflake_cmp(sonyflake, sonyflake), FUNCTION 2 sonyflake_sortsupport(internal);
CREATE OPERATOR CLASS sonyflake_hash_ops DEFAULT FOR TYPE sonyflake USING hash AS
  OPERATOR 1 =, FUNCTION 1 sonyflake_hash(sonyflake), FUNCTION 2 sonyflake_hash_extended(sonyflake, int8);
CREATE OPERATOR CLASS sonyflake_minmax_ops DEFAULT FOR TYPE sonyflake USING brin AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 brin_minmax_opcinfo(internal),
  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
  FUNCTION 4 brin_minmax_union(internal, internal, internal);
CREATE FUNCTION sonyflake_to_bytea(sonyflake) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_to_bytea_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sonyflake_from_bytea(bytea) RETURNS sonyflake
  AS 'MODULE_PATHNAME', 'mintid_from_bytea_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (sonyflake AS bytea) WITH FUNCTION sonyflake_to_bytea(sonyflake);
CREATE CAST (bytea AS sonyflake) WITH FUNCTION sonyflake_from_bytea(bytea);
CREATE FUNCTION sonyflake_to_bigint(sonyflake) RETURNS bigint
  AS 'MODULE_PATHNAME', 'mintid_to_int8_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sonyflake_from_bigint(bigint) RETURNS sonyflake
  AS 'MODULE_PATHNAME', 'mintid_from_int8_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (sonyflake AS bigint) WITH FUNCTION sonyflake_to_bigint(sonyflake);
CREATE CAST (bigint AS sonyflake) WITH FUNCTION sonyflake_from_bigint(bigint);
CREATE FUNCTION gen_sonyflake() RETURNS sonyflake
  AS 'MODULE_PATHNAME', 'mintid_gen_10' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_sonyflake() IS 'a new sonyflake ID, greater than every one minted before in the cluster';
CREATE FUNCTION mintid_timestamp(sonyflake) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'mintid_timestamp_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mintid_inspect(sonyflake) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_inspect_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sonyflake_min(timestamptz) RETURNS sonyflake
  AS 'MODULE_PATHNAME', 'mintid_min_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION sonyflake_max(timestamptz) RETURNS sonyflake
  AS 'MODULE_PATHNAME', 'mintid_max_10' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION sonyflake_min(timestamptz) IS 'the smallest sonyflake ID of that millisecond';
COMMENT ON FUNCTION sonyflake_max(timestamptz) IS 'the largest sonyflake ID of that millisecond';

-- ksuid: KSUID: 32-bit seconds since 2014-05-13, 128-bit payload; base62 text
CREATE TYPE ksuid;
CREATE FUNCTION ksuid_in(cstring) RETURNS ksuid
  AS 'MODULE_PATHNAME', 'mintid_in_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_out(ksuid) RETURNS cstring
  AS 'MODULE_PATHNAME', 'mintid_out_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_recv(internal) RETURNS ksuid
  AS 'MODULE_PATHNAME', 'mintid_recv_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_send(ksuid) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_send_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE ksuid (
  INPUT = ksuid_in, OUTPUT = ksuid_out, RECEIVE = ksuid_recv, SEND = ksuid_send,
  INTERNALLENGTH = 20, ALIGNMENT = char, STORAGE = plain
);
COMMENT ON TYPE ksuid IS 'KSUID: 32-bit seconds since 2014-05-13, 128-bit payload; base62 text (160 bits)';
CREATE FUNCTION ksuid_lt(ksuid, ksuid) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_lt_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_le(ksuid, ksuid) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_le_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_eq(ksuid, ksuid) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_eq_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_ge(ksuid, ksuid) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ge_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_gt(ksuid, ksuid) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_gt_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_ne(ksuid, ksuid) RETURNS bool
  AS 'MODULE_PATHNAME', 'mintid_ne_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_cmp(ksuid, ksuid) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_cmp_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_smaller(ksuid, ksuid) RETURNS ksuid
  AS 'MODULE_PATHNAME', 'mintid_smaller_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_larger(ksuid, ksuid) RETURNS ksuid
  AS 'MODULE_PATHNAME', 'mintid_larger_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_sortsupport(internal) RETURNS void
  AS 'MODULE_PATHNAME', 'mintid_sortsupport_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_hash(ksuid) RETURNS int4
  AS 'MODULE_PATHNAME', 'mintid_hash_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION ksuid_hash_extended(ksuid, int8) RETURNS int8
  AS 'MODULE_PATHNAME', 'mintid_hash_ext_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR < (
  LEFTARG = ksuid, RIGHTARG = ksuid, FUNCTION = ksuid_lt,
  COMMUTATOR = OPERATOR(>), NEGATOR = OPERATOR(>=), RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
  LEFTARG = ksuid, RIGHTARG = ksuid, FUNCTION = ksuid_le,
  COMMUTATOR = OPERATOR(>=), NEGATOR = OPERATOR(>), RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR = (
  LEFTARG = ksuid, RIGHTARG = ksuid, FUNCTION = ksuid_eq,
  COMMUTATOR = OPERATOR(=), NEGATOR = OPERATOR(<>), RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR >= (
  LEFTARG = ksuid, RIGHTARG = ksuid, FUNCTION = ksuid_ge,
  COMMUTATOR = OPERATOR(<=), NEGATOR = OPERATOR(<), RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR > (
  LEFTARG = ksuid, RIGHTARG = ksuid, FUNCTION = ksuid_gt,
  COMMUTATOR = OPERATOR(<), NEGATOR = OPERATOR(<=), RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR <> (
  LEFTARG = ksuid, RIGHTARG = ksuid, FUNCTION = ksuid_ne,
  COMMUTATOR = OPERATOR(<>), NEGATOR = OPERATOR(=), RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE AGGREGATE min(ksuid) (SFUNC = ksuid_smaller, STYPE = ksuid, SORTOP = <, COMBINEFUNC = ksuid_smaller, PARALLEL = SAFE);
CREATE AGGREGATE max(ksuid) (SFUNC = ksuid_larger, STYPE = ksuid, SORTOP = >, COMBINEFUNC = ksuid_larger, PARALLEL = SAFE);
CREATE OPERATOR CLASS ksuid_ops DEFAULT FOR TYPE ksuid USING btree AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 ksuid_cmp(ksuid, ksuid), FUNCTION 2 ksuid_sortsupport(internal);
CREATE OPERATOR CLASS ksuid_hash_ops DEFAULT FOR TYPE ksuid USING hash AS
  OPERATOR 1 =, FUNCTION 1 ksuid_hash(ksuid), FUNCTION 2 ksuid_hash_extended(ksuid, int8);
CREATE OPERATOR CLASS ksuid_minmax_ops DEFAULT FOR TYPE ksuid USING brin AS
  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,
  FUNCTION 1 brin_minmax_opcinfo(internal),
  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
  FUNCTION 4 brin_minmax_union(internal, internal, internal);
CREATE FUNCTION ksuid_to_bytea(ksuid) RETURNS bytea
  AS 'MODULE_PATHNAME', 'mintid_to_bytea_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_from_bytea(bytea) RETURNS ksuid
  AS 'MODULE_PATHNAME', 'mintid_from_bytea_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE CAST (ksuid AS bytea) WITH FUNCTION ksuid_to_bytea(ksuid);
CREATE CAST (bytea AS ksuid) WITH FUNCTION ksuid_from_bytea(bytea);
CREATE FUNCTION gen_ksuid() RETURNS ksuid
  AS 'MODULE_PATHNAME', 'mintid_gen_11' LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION gen_ksuid() IS 'a new ksuid ID, greater than every one minted before in the cluster';
CREATE FUNCTION mintid_timestamp(ksuid) RETURNS timestamptz
  AS 'MODULE_PATHNAME', 'mintid_timestamp_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION mintid_inspect(ksuid) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_inspect_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_min(timestamptz) RETURNS ksuid
  AS 'MODULE_PATHNAME', 'mintid_min_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ksuid_max(timestamptz) RETURNS ksuid
  AS 'MODULE_PATHNAME', 'mintid_max_11' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ksuid_min(timestamptz) IS 'the smallest ksuid ID of that millisecond';
COMMENT ON FUNCTION ksuid_max(timestamptz) IS 'the largest ksuid ID of that millisecond';

-- typeid: TypeID: a type prefix and a UUIDv7 in 26 lower-case base32 digits; text in SQL, a uuid inside
CREATE FUNCTION gen_typeid(prefix text DEFAULT '') RETURNS text
  AS 'MODULE_PATHNAME', 'mintid_gen_prefixed_12' LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION typeid_to_uuid(text) RETURNS uuid
  AS 'MODULE_PATHNAME', 'mintid_prefixed_to_uuid_12' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION uuid_to_typeid(uuid, prefix text DEFAULT '') RETURNS text
  AS 'MODULE_PATHNAME', 'mintid_uuid_to_prefixed_12' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- every format, or one, described as the library describes it (mintid_describe())
CREATE FUNCTION mintid_formats() RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_formats' LANGUAGE C STABLE PARALLEL SAFE;
CREATE FUNCTION mintid_formats(format text) RETURNS jsonb
  AS 'MODULE_PATHNAME', 'mintid_formats' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION mintid_formats() IS 'every format: bit layout, forms, capacity, node id, epochs, the last time an ID can carry under the epoch set';
