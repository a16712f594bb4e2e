/* SPDX-License-Identifier: MIT */
/*
 * uexky.c - uexky's "Unique ID Generator Design" (docs/formats/uexky.md).
 *
 * A 60-bit value in a 64-bit integer: 42-bit ms timestamp since 2018-03-01,
 * 9-bit sequence, 9 random bits. Its text is base64-like digits, unpadded,
 * with the last two characters moved to the front.
 */
#include "../internal.h"

#include <string.h>

#define ALPHABET "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

MINTID__ALPHABET(b64, ALPHABET, false);

/* The reference rotates at least four digits; shorter values are padded to
 * four so that every value has a text the decoder accepts. */
#define UEXKY_MIN_DIGITS 4
#define UEXKY_MAX_DIGITS 10

static int text_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    (void)fmt;
    char digits[16];
    int n = mintid__u64_to_base(mintid_id_to_u64(id), &b64, 64, UEXKY_MIN_DIGITS, digits, sizeof digits);
    if (n < 0)
        return n;
    if (cap < (size_t)n + 1)
        return MINTID_EBUFSIZE;
    buf[0] = digits[n - 2];
    buf[1] = digits[n - 1];
    memcpy(buf + 2, digits, (size_t)n - 2);
    buf[n] = '\0';
    return n;
}

static int text_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    if (len < UEXKY_MIN_DIGITS || len > UEXKY_MAX_DIGITS)
        return MINTID_ELENGTH;
    char digits[UEXKY_MAX_DIGITS];
    memcpy(digits, s + 2, len - 2);
    digits[len - 2] = s[0];
    digits[len - 1] = s[1];
    uint64_t v;
    int rc = mintid__base_to_u64(digits, len, &b64, 64, &v);
    if (rc != MINTID_OK)
        return rc;
    /* Ten digits carry 60 bits, so v can never reach 2^60; kept for clarity. */
    if (v > fmt->value_max)
        return MINTID_EOVERFLOW;
    mintid_id_from_u64(out, v);
    return MINTID_OK;
}

static const mintid__codec text_codec = {.encode = text_encode, .decode = text_decode};

/* clang-format off */
#define FIELDS(X, a) \
    X(a, "zero", 0, 4, MINTID_ROLE_CONSTANT, 0, 0) \
    X(a, "timestamp", 4, 42, MINTID_ROLE_TIMESTAMP, 0, 0) \
    X(a, "sequence", 46, 9, MINTID_ROLE_SEQUENCE, 0, 0) \
    X(a, "random", 55, 9, MINTID_ROLE_RANDOM, 0, 0)
/* clang-format on */
static const mintid_field fields[] = {FIELDS(MINTID__FIELD, 0)};

const mintid__format_impl mintid__uexky = {
    .pub =
        {
            .id = MINTID_UEXKY,
            .name = "uexky",
            .title = "uexky unique ID: 42-bit ms timestamp, 9-bit sequence, 9 random bits; rotated base64 text",
            .bits = 64,
            .nfields = sizeof fields / sizeof fields[0],
            .fields = fields,
            .epoch_ms = 1519862400000LL, /* 2018-03-01T00:00:00.000Z */
            .capacity_per_ms = 512,
            .capacity_note = "",
            .forms =
                MINTID_FORM_BIT(MINTID_FORM_TEXT) | MINTID_FORM_BIT(MINTID_FORM_INT) | MINTID_FORM_BIT(MINTID_FORM_HEX),
            .text_min_len = UEXKY_MIN_DIGITS,
            .text_max_len = UEXKY_MAX_DIGITS,
            .value_max = (UINT64_C(1) << 60) - 1,
            .alphabet = ALPHABET,
            .text_nocase = 0,
            .default_overflow = MINTID_OVERFLOW_WAIT,
            .default_rollback = MINTID_ROLLBACK_WAIT,
            .ts_unit_ms = 1,
        },
    .plan = MINTID__PLAN(FIELDS, 64),
    .timestamp_min = 0,
    .timestamp_max = (UINT64_C(1) << 42) - 1,
    .seq_init = 511, /* so that the first ID has sequence 0 */
    .forms = {[MINTID_FORM_TEXT] =
                  {.info = {.title = "base64 digits (A-Z, a-z, 0-9, - and _), the last two moved to the front",
                            .alphabet = ALPHABET,
                            .min_len = UEXKY_MIN_DIGITS,
                            .max_len = UEXKY_MAX_DIGITS,
                            .nocase = 0,
                            .sortable = 0,
                            .guessed = 1,
                            .reported = 1},
                   .codec = &text_codec,
                   .called = "a %s text",
                   .unit = "characters"},
              [MINTID_FORM_INT] = MINTID__FORM_INT(0),
              [MINTID_FORM_HEX] = MINTID__FORM_HEX(64, 0)},
    .any_order = {MINTID_FORM_TEXT, MINTID_FORM_ANY},
    .seq_width = 9,
    .seq_begin = mintid__seq_begin_next,
    .seq_step = mintid__seq_step_one,
};
