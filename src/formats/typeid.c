/* SPDX-License-Identifier: MIT */
/*
 * typeid.c - TypeID v0.3 (docs/formats/typeid.md).
 *
 * A UUID (a UUIDv7 when generated) written as `prefix_suffix`: the prefix
 * names the type, the suffix is the 128 bits in 26 digits of lower-case
 * Crockford base32. Decoders accept any UUID; the time is reported only for
 * UUIDv7 suffixes.
 */
#include "../internal.h"

#define ALPHABET "0123456789abcdefghjkmnpqrstvwxyz"
#define TEXT_LEN 26 /* the suffix */

MINTID__ALPHABET(b32, ALPHABET, false);

static int text_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    (void)fmt;
    return mintid__b32_128_encode(id, &b32, buf, cap);
}

static int text_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    (void)fmt;
    return mintid__b32_128_decode(s, len, &b32, out);
}

static const mintid__codec text_codec = {.encode = text_encode, .decode = text_decode};

/* ^[a-z]([a-z_]*[a-z])?$, its length checked by the caller. */
static int prefix_check(const char *p, size_t len) {
    for (size_t i = 0; i < len; i++) {
        bool letter = p[i] >= 'a' && p[i] <= 'z';
        if (!letter && (p[i] != '_' || i == 0 || i == len - 1))
            return MINTID_EPREFIX;
    }
    return MINTID_OK;
}

static bool has_time(const mintid_id *id) { return (id->bytes[6] >> 4) == 7 && (id->bytes[8] >> 6) == 2; }

/* clang-format off */
#define FIELDS(X, a) \
    X(a, "unix_ts_ms", 0, 48, MINTID_ROLE_TIMESTAMP, 0, 0) \
    X(a, "version", 48, 4, MINTID_ROLE_CONSTANT, MINTID_FIELD_SHOWN, 7) \
    X(a, "rand_a", 52, 12, MINTID_ROLE_DATA, MINTID_FIELD_HIDDEN, 0) \
    X(a, "variant", 64, 2, MINTID_ROLE_CONSTANT, MINTID_FIELD_SHOWN, 2) \
    X(a, "rand_b", 66, 62, MINTID_ROLE_DATA, MINTID_FIELD_HIDDEN, 0)
/* clang-format on */
static const mintid_field fields[] = {FIELDS(MINTID__FIELD, 0)};

const mintid__format_impl mintid__typeid = {
    .pub =
        {
            .id = MINTID_TYPEID,
            .name = "typeid",
            .title = "TypeID: a type prefix and a UUIDv7 in 26 lower-case base32 digits",
            .bits = 128,
            .nfields = sizeof fields / sizeof fields[0],
            .fields = fields,
            .epoch_ms = 0,
            .capacity_per_ms = 0,
            .capacity_note = "",
            .forms = MINTID_FORM_BIT(MINTID_FORM_TEXT) | MINTID_FORM_BIT(MINTID_FORM_UUID) |
                     MINTID_FORM_BIT(MINTID_FORM_HEX),
            .text_min_len = TEXT_LEN,
            .text_max_len = TEXT_LEN + 1 + MINTID_PREFIX_MAX,
            .text_sortable = 1,
            .alphabet = ALPHABET,
            .default_overflow = MINTID_OVERFLOW_WAIT,
            .default_rollback = MINTID_ROLLBACK_REUSE,
            .ts_unit_ms = 1,
            .prefix_max = MINTID_PREFIX_MAX,
            .rollback_allowance_ms = 10000,
        },
    .plan = MINTID__PLAN(FIELDS, 128),
    .timestamp_min = 0,
    .timestamp_max = (UINT64_C(1) << 48) - 1,
    .forms =
        {
            /* The suffix: its lengths do not count the prefix and its '_'. */
            [MINTID_FORM_TEXT] = {.info = {.title =
                                               "a type prefix, '_', and the 128 bits in lower-case Crockford base32",
                                           .alphabet = ALPHABET,
                                           .min_len = TEXT_LEN,
                                           .max_len = TEXT_LEN,
                                           .sortable = 1,
                                           .guessed = 1,
                                           .prefixed = 1,
                                           .reported = 1},
                                  .codec = &text_codec,
                                  .called = "a %s suffix",
                                  .unit = "characters"},
            /* A typeid's text depends on its prefix: inspect gives the plain UUID too. */
            [MINTID_FORM_UUID] = MINTID__FORM_UUID(0, 1),
            [MINTID_FORM_HEX] = MINTID__FORM_HEX(128, 0),
        },
    .any_order = {MINTID_FORM_TEXT, MINTID_FORM_UUID, MINTID_FORM_HEX, MINTID_FORM_ANY},
    .next = mintid__uuidv7_next,
    .has_time = has_time,
    .constants_advisory = 1,
    .prefix_sep = '_',
    .prefix_check = prefix_check,
};
