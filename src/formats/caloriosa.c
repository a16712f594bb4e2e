/* SPDX-License-Identifier: MIT */
/*
 * caloriosa.c - Caloriosa device names (docs/formats/caloriosa.md).
 *
 * An unsigned 64-bit value: a constant 1 bit, 41-bit ms timestamp since
 * 2017-01-01, 12 random bits, a 10-bit increment. Its text is base62 with
 * digits, then lower case, then upper case letters: exactly 11 characters
 * for every valid device name.
 *
 * The random field sits above the increment, so a generator draws it once
 * per millisecond rather than once per ID: IDs from one millisecond then
 * differ in the increment alone and keep increasing, as every generator's
 * IDs must. The increment, which never repeats within a millisecond, is what
 * makes them unique.
 */
#include "../internal.h"

#define ALPHABET "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

MINTID__ALPHABET(b62, ALPHABET, false);
/* Caloriosa/core's own code orders upper case before lower case. */
#define CORE_ALPHABET "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
MINTID__ALPHABET(core, CORE_ALPHABET, false);

#define CALORIOSA_LEN 11

static int encode_with(const mintid__alphabet *a, const mintid_id *id, char *buf, size_t cap) {
    return mintid__u64_to_base(mintid_id_to_u64(id), a, 62, 1, buf, cap);
}

/* 1-11 digits, so the seed's old 48-bit example still decodes; 62^11 > 2^64,
 * so the largest 11-digit texts overflow. */
static int decode_with(const mintid__alphabet *a, const char *s, size_t len, mintid_id *out) {
    if (len < 1 || len > CALORIOSA_LEN)
        return MINTID_ELENGTH;
    uint64_t v;
    int rc = mintid__base_to_u64(s, len, a, 62, &v);
    if (rc == MINTID_OK)
        mintid_id_from_u64(out, v);
    return rc;
}

static int text_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    (void)fmt;
    return encode_with(&b62, id, buf, cap);
}
static int text_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    (void)fmt;
    return decode_with(&b62, s, len, out);
}
static int core_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    (void)fmt;
    return encode_with(&core, id, buf, cap);
}
static int core_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    (void)fmt;
    return decode_with(&core, s, len, out);
}

static const mintid__codec text_codec = {.encode = text_encode, .decode = text_decode};
static const mintid__codec core_codec = {.encode = core_encode, .decode = core_decode};

/* clang-format off */
#define FIELDS(X, a) \
    X(a, "prefix", 0, 1, MINTID_ROLE_CONSTANT, 0, 1) \
    X(a, "timestamp", 1, 41, MINTID_ROLE_TIMESTAMP, 0, 0) \
    X(a, "random", 42, 12, MINTID_ROLE_RANDOM, 0, 0) \
    X(a, "increment", 54, 10, MINTID_ROLE_SEQUENCE, 0, 0)
/* clang-format on */
static const mintid_field fields[] = {FIELDS(MINTID__FIELD, 0)};

const mintid__format_impl mintid__caloriosa = {
    .pub =
        {
            .id = MINTID_CALORIOSA,
            .name = "caloriosa",
            .title = "Caloriosa device name: 41-bit ms timestamp, 12 random bits, 10-bit increment; base62 text",
            .bits = 64,
            .nfields = sizeof fields / sizeof fields[0],
            .fields = fields,
            .epoch_ms = 1483228800000LL, /* 2017-01-01T00:00:00.000Z */
            .capacity_per_ms = 1024,
            .capacity_note = "",
            .invalid_why = "its top bit must be set: a device name has 11 characters",
            .forms = MINTID_FORM_BIT(MINTID_FORM_TEXT) | MINTID_FORM_BIT(MINTID_FORM_INT) |
                     MINTID_FORM_BIT(MINTID_FORM_HEX) | MINTID_FORM_BIT(MINTID_FORM_CORE),
            .text_min_len = 1, /* the decoder takes 1..11; every valid device name has 11 */
            .text_max_len = CALORIOSA_LEN,
            /* Lower case before upper case is not ASCII order: the text
             * does not sort like the value, but the core form does. */
            .text_sortable = 0,
            .value_max = UINT64_MAX,
            .alphabet = ALPHABET,
            .text_nocase = 0,
            .default_overflow = MINTID_OVERFLOW_WAIT,
            .default_rollback = MINTID_ROLLBACK_WAIT,
            .ts_unit_ms = 1,
        },
    .plan = MINTID__PLAN(FIELDS, 64),
    .timestamp_min = 0,
    .timestamp_max = (UINT64_C(1) << 41) - 1,
    .seq_init = 0, /* as the reference, the first ID has increment 1 */
    .forms =
        {
            [MINTID_FORM_TEXT] = {.info = {.title = "base62, digits then lower then upper case",
                                           .alphabet = ALPHABET,
                                           .min_len = 1,
                                           .max_len = CALORIOSA_LEN,
                                           .guessed = 1,
                                           .reported = 1},
                                  .codec = &text_codec,
                                  .called = "a %s text",
                                  .unit = "characters"},
            [MINTID_FORM_INT] = MINTID__FORM_INT(0),
            [MINTID_FORM_HEX] = MINTID__FORM_HEX(64, 0),
            /* Its alphabet is in ASCII order, and a valid name has 11 digits: it sorts like the value. */
            [MINTID_FORM_CORE] = {.info = {.title =
                                               "base62 in Caloriosa/core's order, digits then upper then lower case",
                                           .alphabet = CORE_ALPHABET,
                                           .min_len = 1,
                                           .max_len = CALORIOSA_LEN,
                                           .sortable = 1},
                                  .codec = &core_codec,
                                  .called = "the core form",
                                  .unit = "characters"},
        },
    .any_order = {MINTID_FORM_TEXT, MINTID_FORM_ANY},
    .seq_width = 10,
    .seq_begin = mintid__seq_begin_next,
    .seq_step = mintid__seq_step_one,
    .random_per_ms = 1,
};
