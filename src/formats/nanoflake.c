/* SPDX-License-Identifier: MIT */
/*
 * nanoflake.c - Nanoflakes (docs/formats/nanoflake.md), Twitter-Snowflake
 * compatible.
 *
 * A signed 64-bit value with the sign bit 0: 41-bit ms timestamp since an
 * epoch the application chooses, 10-bit generator id, 12-bit sequence. Its
 * text is lower-case base36 (Java's Long.toString(v, 36)); the decimal
 * integer is the form snowflakes are usually exchanged in.
 */
#include "../internal.h"

#define ALPHABET "0123456789abcdefghijklmnopqrstuvwxyz"

MINTID__ALPHABET(b36, ALPHABET, true);

#define NANOFLAKE_MAX_DIGITS 13 /* 2^63-1 is 1y2p0ij32e8e7 */

static int text_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    (void)fmt;
    return mintid__u64_to_base(mintid_id_to_u64(id), &b36, 36, 1, buf, cap);
}

static int padded_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    (void)fmt;
    return mintid__u64_to_base(mintid_id_to_u64(id), &b36, 36, NANOFLAKE_MAX_DIGITS, buf, cap);
}

static int decode_len(const mintid_format *fmt, const char *s, size_t len, size_t min_len, mintid_id *out) {
    if (len < min_len || len > NANOFLAKE_MAX_DIGITS)
        return MINTID_ELENGTH;
    uint64_t v;
    int rc = mintid__base_to_u64(s, len, &b36, 36, &v);
    if (rc != MINTID_OK)
        return rc;
    if (v > fmt->value_max)
        return MINTID_EOVERFLOW;
    mintid_id_from_u64(out, v);
    return MINTID_OK;
}

static int text_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    return decode_len(fmt, s, len, 1, out);
}

static int padded_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    return decode_len(fmt, s, len, NANOFLAKE_MAX_DIGITS, out);
}

static const mintid__codec text_codec = {.encode = text_encode, .decode = text_decode};
static const mintid__codec padded_codec = {.encode = padded_encode, .decode = padded_decode};

/* clang-format off */
#define FIELDS(X, a) \
    X(a, "sign", 0, 1, MINTID_ROLE_CONSTANT, 0, 0) \
    X(a, "timestamp", 1, 41, MINTID_ROLE_TIMESTAMP, 0, 0) \
    X(a, "generator", 42, 10, MINTID_ROLE_NODE, 0, 0) \
    X(a, "sequence", 52, 12, MINTID_ROLE_SEQUENCE, 0, 0)
/* clang-format on */
static const mintid_field fields[] = {FIELDS(MINTID__FIELD, 0)};

const mintid__format_impl mintid__nanoflake = {
    .pub =
        {
            .id = MINTID_NANOFLAKE,
            .name = "nanoflake",
            .title = "Nanoflake (Snowflake-compatible): 41-bit ms timestamp, 10-bit generator id, 12-bit sequence",
            .bits = 64,
            .nfields = sizeof fields / sizeof fields[0],
            .fields = fields,
            .epoch_ms = MINTID_NANOFLAKE_DEFAULT_EPOCH,
            .epoch_settable = 1,
            .node_bits = 10,
            .capacity_per_ms = 4096,
            .capacity_note = "",
            .forms = MINTID_FORM_BIT(MINTID_FORM_TEXT) | MINTID_FORM_BIT(MINTID_FORM_INT) |
                     MINTID_FORM_BIT(MINTID_FORM_HEX) | MINTID_FORM_BIT(MINTID_FORM_PADDED),
            .text_min_len = 1,
            .text_max_len = NANOFLAKE_MAX_DIGITS,
            .value_max = INT64_MAX,
            .alphabet = ALPHABET,
            .text_nocase = 1,
            .default_overflow = MINTID_OVERFLOW_WAIT,
            .default_rollback = MINTID_ROLLBACK_WAIT,
            .ts_unit_ms = 1,
        },
    .plan = MINTID__PLAN(FIELDS, 64),
    .timestamp_min = 0,
    .timestamp_max = (UINT64_C(1) << 41) - 1,
    .seq_init = 0,
    .forms =
        {
            [MINTID_FORM_TEXT] = {.info = {.title = "lower-case base36 without leading zeros",
                                           .alphabet = ALPHABET,
                                           .min_len = 1,
                                           .max_len = NANOFLAKE_MAX_DIGITS,
                                           .nocase = 1,
                                           .guessed = 1,
                                           .reported = 1},
                                  .codec = &text_codec,
                                  .called = "a %s text",
                                  .unit = "characters"},
            [MINTID_FORM_INT] = MINTID__FORM_INT(1),
            [MINTID_FORM_HEX] = MINTID__FORM_HEX(64, 0),
            [MINTID_FORM_PADDED] = {.info = {.title = "lower-case base36 zero-padded to 13 characters",
                                             .alphabet = ALPHABET,
                                             .min_len = NANOFLAKE_MAX_DIGITS,
                                             .max_len = NANOFLAKE_MAX_DIGITS,
                                             .nocase = 1,
                                             .sortable = 1,
                                             .guessed = 1},
                                    .codec = &padded_codec,
                                    .called = "the padded form",
                                    .unit = "characters"},
        },
    /*
     * Digits without a leading zero read as the decimal integer, the form
     * snowflakes are usually exchanged in; everything else as base36 (the
     * padded form included, since the text decoder takes 13 digits).
     */
    .any_order = {MINTID_FORM_INT, MINTID_FORM_TEXT, MINTID_FORM_PADDED, MINTID_FORM_ANY},
    .seq_width = 12,
    .seq_begin = mintid__seq_begin_zero,
    .seq_step = mintid__seq_step_one,
};
