/* SPDX-License-Identifier: MIT */
/*
 * gen_sql.c - writes the install script of a new extension version from
 * libmintid's format table: one SQL type per format with its I/O,
 * operators, operator classes, casts and functions, each bound to the C
 * entry point mintid_<op>_<slot> that mintid_pg.c stamps for its table slot.
 *
 * It runs once per version, by hand, and its output is checked in: a
 * released version's script never changes, whatever the table becomes
 * (ALTER EXTENSION UPDATE relies on it). The test test_pg_sql compares its
 * output for the default version (mintid.control) with that version's
 * checked-in script, so a change to the table that reaches SQL (a new
 * format, say) fails until it is a new version: its script from gen_sql,
 * an upgrade script from the last version, and default_version moved on.
 *
 * A format whose canonical text is the UUID string (uuidv7) gets no type
 * of its own: it is PostgreSQL's uuid. A format whose text carries a type
 * prefix (typeid) is text in SQL, with functions to and from uuid.
 *
 * Usage: gen_sql VERSION > mintid--VERSION.sql
 */
#include "mintid.h"
#include "sql_name.h"

#include <stdio.h>
#include <string.h>

enum kind { KIND_TYPE, KIND_UUID, KIND_PREFIXED };

/* Whether text is a UUID string: 8-4-4-4-12 lower-case hex digits. */
static int is_uuid_text(const char *s) {
    if (strlen(s) != 36)
        return 0;
    for (int i = 0; i < 36; i++) {
        int dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : strchr("0123456789abcdef", s[i]) == NULL || s[i] == '\0')
            return 0;
    }
    return 1;
}

static enum kind kind_of(const mintid_format *f) {
    mintid_id id, max;
    char text[MINTID_TEXT_MAX];
    if (f->prefix_max > 0)
        return KIND_PREFIXED;
    /* A valid ID of the format (the smallest of a recent millisecond): is its text a UUID? */
    if (f->bits == 128 && mintid_range(f, 1700000000123, MINTID_EPOCH_DEFAULT, &id, &max) == MINTID_OK &&
        mintid_encode(f, MINTID_FORM_TEXT, &id, text, sizeof text) > 0 && is_uuid_text(text))
        return KIND_UUID;
    return KIND_TYPE;
}

#define C_FN(op) "AS 'MODULE_PATHNAME', 'mintid_" op "_%d' LANGUAGE C"
#define DECODING "IMMUTABLE STRICT PARALLEL SAFE"

/* The functions every kind has: generator, timestamp, inspect, range helpers, over SQL type t. */
static void common_functions(const mintid_format *f, const char *name, const char *t, int i) {
    printf("CREATE FUNCTION gen_%s() RETURNS %s\n  " C_FN("gen") " VOLATILE PARALLEL SAFE;\n", name, t, i);
    printf("COMMENT ON FUNCTION gen_%s() IS 'a new %s ID, greater than every one minted before in the cluster';\n",
           name, f->name);
    printf("CREATE FUNCTION mintid_timestamp(%s) RETURNS timestamptz\n  " C_FN("timestamp") " " DECODING ";\n", t, i);
    printf("CREATE FUNCTION mintid_inspect(%s) RETURNS jsonb\n  " C_FN("inspect") " " DECODING ";\n", t, i);
    printf("CREATE FUNCTION %s_min(timestamptz) RETURNS %s\n  " C_FN("min") " " DECODING ";\n", name, t, i);
    printf("CREATE FUNCTION %s_max(timestamptz) RETURNS %s\n  " C_FN("max") " " DECODING ";\n", name, t, i);
    printf("COMMENT ON FUNCTION %s_min(timestamptz) IS 'the smallest %s ID of that millisecond';\n", name, f->name);
    printf("COMMENT ON FUNCTION %s_max(timestamptz) IS 'the largest %s ID of that millisecond';\n", name, f->name);
}

static void type_sql(const mintid_format *f, const char *t, int i) {
    static const struct {
        const char *op, *fn, *com, *neg, *rest, *join;
    } ops[] = {
        {"<", "lt", ">", ">=", "scalarltsel", "scalarltjoinsel"},
        {"<=", "le", ">=", ">", "scalarlesel", "scalarlejoinsel"},
        {"=", "eq", "=", "<>", "eqsel", "eqjoinsel"},
        {">=", "ge", "<=", "<", "scalargesel", "scalargejoinsel"},
        {">", "gt", "<", "<=", "scalargtsel", "scalargtjoinsel"},
        {"<>", "ne", "<>", "=", "neqsel", "neqjoinsel"},
    };
    unsigned n = f->bits / 8;

    printf("\n-- %s: %s\n", f->name, f->title);
    printf("CREATE TYPE %s;\n", t);
    printf("CREATE FUNCTION %s_in(cstring) RETURNS %s\n  " C_FN("in") " " DECODING ";\n", t, t, i);
    printf("CREATE FUNCTION %s_out(%s) RETURNS cstring\n  " C_FN("out") " " DECODING ";\n", t, t, i);
    printf("CREATE FUNCTION %s_recv(internal) RETURNS %s\n  " C_FN("recv") " " DECODING ";\n", t, t, i);
    printf("CREATE FUNCTION %s_send(%s) RETURNS bytea\n  " C_FN("send") " " DECODING ";\n", t, t, i);
    printf("CREATE TYPE %s (\n  INPUT = %s_in, OUTPUT = %s_out, RECEIVE = %s_recv, SEND = %s_send,\n"
           "  INTERNALLENGTH = %u,%s ALIGNMENT = %s, STORAGE = plain\n);\n",
           t, t, t, t, t, n, n == 8 ? " PASSEDBYVALUE," : "", n == 8 ? "double" : "char");
    printf("COMMENT ON TYPE %s IS '%s (%u bits)';\n", t, f->title, (unsigned)f->bits);

    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        printf("CREATE FUNCTION %s_%s(%s, %s) RETURNS bool\n  AS 'MODULE_PATHNAME', 'mintid_%s_%d' LANGUAGE C " DECODING
               " LEAKPROOF;\n",
               t, ops[k].fn, t, t, ops[k].fn, i);
    printf("CREATE FUNCTION %s_cmp(%s, %s) RETURNS int4\n  " C_FN("cmp") " " DECODING " LEAKPROOF;\n", t, t, t, i);
    printf("CREATE FUNCTION %s_smaller(%s, %s) RETURNS %s\n  " C_FN("smaller") " " DECODING ";\n", t, t, t, t, i);
    printf("CREATE FUNCTION %s_larger(%s, %s) RETURNS %s\n  " C_FN("larger") " " DECODING ";\n", t, t, t, t, i);
    printf("CREATE FUNCTION %s_sortsupport(internal) RETURNS void\n  " C_FN("sortsupport") " " DECODING ";\n", t, i);
    printf("CREATE FUNCTION %s_hash(%s) RETURNS int4\n  " C_FN("hash") " " DECODING " LEAKPROOF;\n", t, t, i);
    printf("CREATE FUNCTION %s_hash_extended(%s, int8) RETURNS int8\n  " C_FN("hash_ext") " " DECODING " LEAKPROOF;\n",
           t, t, i);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        printf("CREATE OPERATOR %s (\n  LEFTARG = %s, RIGHTARG = %s, FUNCTION = %s_%s,\n"
               "  COMMUTATOR = OPERATOR(%s), NEGATOR = OPERATOR(%s), RESTRICT = %s, JOIN = %s%s\n);\n",
               ops[k].op, t, t, t, ops[k].fn, ops[k].com, ops[k].neg, ops[k].rest, ops[k].join,
               strcmp(ops[k].op, "=") == 0 ? ", HASHES, MERGES" : "");

    printf("CREATE AGGREGATE min(%s) (SFUNC = %s_smaller, STYPE = %s, SORTOP = <, COMBINEFUNC = %s_smaller, "
           "PARALLEL = SAFE);\n",
           t, t, t, t);
    printf("CREATE AGGREGATE max(%s) (SFUNC = %s_larger, STYPE = %s, SORTOP = >, COMBINEFUNC = %s_larger, "
           "PARALLEL = SAFE);\n",
           t, t, t, t);
    printf("CREATE OPERATOR CLASS %s_ops DEFAULT FOR TYPE %s USING btree AS\n"
           "  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,\n"
           "  FUNCTION 1 %s_cmp(%s, %s), FUNCTION 2 %s_sortsupport(internal);\n",
           t, t, t, t, t, t);
    printf("CREATE OPERATOR CLASS %s_hash_ops DEFAULT FOR TYPE %s USING hash AS\n"
           "  OPERATOR 1 =, FUNCTION 1 %s_hash(%s), FUNCTION 2 %s_hash_extended(%s, int8);\n",
           t, t, t, t, t, t);
    printf("CREATE OPERATOR CLASS %s_minmax_ops DEFAULT FOR TYPE %s USING brin AS\n"
           "  OPERATOR 1 <, OPERATOR 2 <=, OPERATOR 3 =, OPERATOR 4 >=, OPERATOR 5 >,\n"
           "  FUNCTION 1 brin_minmax_opcinfo(internal),\n"
           "  FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),\n"
           "  FUNCTION 3 brin_minmax_consistent(internal, internal, internal),\n"
           "  FUNCTION 4 brin_minmax_union(internal, internal, internal);\n",
           t, t);

    /* Casts: bytea always; bigint for 64-bit formats, uuid for 128-bit ones. */
    const char *other[] = {"bytea", n == 8 ? "bigint" : n == 16 ? "uuid" : NULL};
    const char *op_to[] = {"to_bytea", n == 8 ? "to_int8" : "to_uuid"};
    const char *op_from[] = {"from_bytea", n == 8 ? "from_int8" : "from_uuid"};
    for (int k = 0; k < 2 && other[k] != NULL; k++) {
        printf("CREATE FUNCTION %s_to_%s(%s) RETURNS %s\n  " C_FN("%s") " " DECODING ";\n", t, other[k], t, other[k],
               op_to[k], i);
        printf("CREATE FUNCTION %s_from_%s(%s) RETURNS %s\n  " C_FN("%s") " " DECODING ";\n", t, other[k], other[k], t,
               op_from[k], i);
        printf("CREATE CAST (%s AS %s) WITH FUNCTION %s_to_%s(%s);\n", t, other[k], t, other[k], t);
        printf("CREATE CAST (%s AS %s) WITH FUNCTION %s_from_%s(%s);\n", other[k], t, t, other[k], other[k]);
    }
    common_functions(f, t, t, i);
}

static void uuid_sql(const mintid_format *f, const char *name, int i) {
    printf("\n-- %s: %s; PostgreSQL's uuid type\n", f->name, f->title);
    common_functions(f, name, "uuid", i);
}

static void prefixed_sql(const mintid_format *f, const char *name, int i) {
    printf("\n-- %s: %s; text in SQL, a uuid inside\n", f->name, f->title);
    printf("CREATE FUNCTION gen_%s(prefix text DEFAULT '') RETURNS text\n  " C_FN(
               "gen_prefixed") " VOLATILE STRICT PARALLEL SAFE;\n",
           name, i);
    printf("CREATE FUNCTION %s_to_uuid(text) RETURNS uuid\n  " C_FN("prefixed_to_uuid") " " DECODING ";\n", name, i);
    printf("CREATE FUNCTION uuid_to_%s(uuid, prefix text DEFAULT '') RETURNS text\n  " C_FN(
               "uuid_to_prefixed") " " DECODING ";\n",
           name, i);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: gen_sql VERSION > mintid--VERSION.sql\n");
        return 2;
    }
    const char *version = argv[1];
    printf("-- SPDX-License-Identifier: MIT\n");
    printf("-- mintid--%s.sql: written once by gen_sql from libmintid's format table;\n", version);
    printf("-- once released it is frozen: never edited, never written again (docs/postgresql.md).\n");
    printf("\\echo Use \"CREATE EXTENSION mintid\" to load this file. \\quit\n");
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        char name[64];
        mintid_pg_sql_name(f, name, sizeof name);
        switch (kind_of(f)) {
        case KIND_TYPE:
            type_sql(f, name, i);
            break;
        case KIND_UUID:
            uuid_sql(f, name, i);
            break;
        case KIND_PREFIXED:
            prefixed_sql(f, name, i);
            break;
        }
    }
    /* Not per format: every format described as the library describes it. */
    printf("\n-- every format, or one, described as the library describes it (mintid_describe())\n");
    printf("CREATE FUNCTION mintid_formats() RETURNS jsonb\n  AS 'MODULE_PATHNAME', 'mintid_formats' LANGUAGE C "
           "STABLE PARALLEL SAFE;\n");
    printf("CREATE FUNCTION mintid_formats(format text) RETURNS jsonb\n  AS 'MODULE_PATHNAME', 'mintid_formats' "
           "LANGUAGE C STABLE STRICT PARALLEL SAFE;\n");
    printf("COMMENT ON FUNCTION mintid_formats() IS 'every format: bit layout, forms, capacity, node id, epochs, "
           "the last time an ID can carry under the epoch set';\n");
    return ferror(stdout) ? 1 : 0;
}
