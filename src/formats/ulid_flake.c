/* SPDX-License-Identifier: MIT */
/*
 * ulid_flake.c - Ulid-Flake, stand-alone and scalable (docs/formats/ulid-flake.md).
 *
 * A signed 64-bit value with the sign bit 0: 43-bit ms timestamp since
 * 2024-01-01, then 20 bits of randomness (stand-alone) or 15 bits of
 * randomness and a 5-bit scalability id. Text: 13 characters of Crockford
 * base32, upper case out, either case in, no aliases.
 */
#include "../internal.h"

#define ALPHABET "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

/* Crockford's base32 without its aliases: I, L, O and U are not digits. */
MINTID__ALPHABET(crockford, ALPHABET, true);

#define ULID_FLAKE_TEXT_LEN 13

static int text_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    (void)fmt;
    return mintid__u64_to_base(mintid_id_to_u64(id), &crockford, 32, ULID_FLAKE_TEXT_LEN, buf, cap);
}

static int text_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    if (len != ULID_FLAKE_TEXT_LEN)
        return MINTID_ELENGTH;
    /* 13 digits carry 65 bits: check the first digit before it can overflow. */
    for (size_t i = 0; i < len; i++)
        if (mintid__digit_value(&crockford, (unsigned char)s[i]) == 0xff)
            return MINTID_ECHAR;
    if (mintid__digit_value(&crockford, (unsigned char)s[0]) > 7)
        return MINTID_EOVERFLOW;
    uint64_t v;
    int rc = mintid__base_to_u64(s, len, &crockford, 32, &v);
    if (rc != MINTID_OK)
        return rc;
    if (v > fmt->value_max)
        return MINTID_EOVERFLOW;
    mintid_id_from_u64(out, v);
    return MINTID_OK;
}

static const mintid__codec text_codec = {.encode = text_encode, .decode = text_decode};

static uint64_t mask_of(const mintid__format_impl *f) { return (UINT64_C(1) << f->seq_width) - 1; }

/* The first ID of a millisecond: fresh random bits over the whole field. */
static int seq_begin(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng, mintid__seq_state *st) {
    (void)cfg;
    return mintid__gen_random_bits(rng, f->seq_width, &st->seq);
}

/*
 * "+n entropy": n is entropy_size random bytes, redrawn while zero. A source
 * that keeps giving zeros is broken, not unlucky (64 zero bytes in a row
 * from a CSPRNG has probability 2^-512), so the redraw is bounded.
 */
#define ZERO_DRAWS_MAX 64

static int seq_step(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng, mintid__seq_state *st) {
    uint64_t n = 0;
    for (int tries = 0; n == 0; tries++) {
        if (tries == ZERO_DRAWS_MAX)
            return MINTID_EENTROPY;
        int rc = mintid__gen_random_bits(rng, 8 * cfg->entropy_size, &n);
        if (rc != MINTID_OK)
            return rc;
    }
    if (n > mask_of(f) - st->seq)
        return MINTID_EEXHAUSTED;
    st->seq += n;
    return MINTID_OK;
}

#define ULID_FLAKE_COMMON                                                                                              \
    .bits = 64, .epoch_ms = 1704067200000LL, /* 2024-01-01T00:00:00.000Z */                                            \
        .forms =                                                                                                       \
            MINTID_FORM_BIT(MINTID_FORM_TEXT) | MINTID_FORM_BIT(MINTID_FORM_INT) | MINTID_FORM_BIT(MINTID_FORM_HEX),   \
    .text_min_len = ULID_FLAKE_TEXT_LEN, .text_max_len = ULID_FLAKE_TEXT_LEN, .text_sortable = 1,                      \
    .value_max = INT64_MAX, .alphabet = ALPHABET, .text_nocase = 1, .default_overflow = MINTID_OVERFLOW_FAIL,          \
    .default_rollback = MINTID_ROLLBACK_FAIL, .capacity_note = "on average", .ts_unit_ms = 1

#define ULID_FLAKE_IMPL                                                                                                \
    .timestamp_min = 0, .timestamp_max = (UINT64_C(1) << 43) - 1, .seq_init = 0,                                       \
    .forms = {[MINTID_FORM_TEXT] = {.info = {.title = "Crockford's base32, upper case",                                \
                                             .alphabet = ALPHABET,                                                     \
                                             .min_len = ULID_FLAKE_TEXT_LEN,                                           \
                                             .max_len = ULID_FLAKE_TEXT_LEN,                                           \
                                             .nocase = 1,                                                              \
                                             .sortable = 1,                                                            \
                                             .guessed = 1,                                                             \
                                             .reported = 1},                                                           \
                                    .codec = &text_codec,                                                              \
                                    .called = "a %s text",                                                             \
                                    .unit = "characters"},                                                             \
              [MINTID_FORM_INT] = MINTID__FORM_INT(0),                                                                 \
              [MINTID_FORM_HEX] = MINTID__FORM_HEX(64, 0)},                                                            \
    .any_order = {MINTID_FORM_TEXT, MINTID_FORM_ANY}, .seq_begin = seq_begin, .seq_step = seq_step

/* clang-format off */
#define FIELDS(X, a) \
    X(a, "sign", 0, 1, MINTID_ROLE_CONSTANT, 0, 0) \
    X(a, "timestamp", 1, 43, MINTID_ROLE_TIMESTAMP, 0, 0) \
    X(a, "randomness", 44, 20, MINTID_ROLE_SEQUENCE, 0, 0)
/* clang-format on */
static const mintid_field fields[] = {FIELDS(MINTID__FIELD, 0)};

/* clang-format off */
#define SCALABLE_FIELDS(X, a) \
    X(a, "sign", 0, 1, MINTID_ROLE_CONSTANT, 0, 0) \
    X(a, "timestamp", 1, 43, MINTID_ROLE_TIMESTAMP, 0, 0) \
    X(a, "randomness", 44, 15, MINTID_ROLE_SEQUENCE, 0, 0) \
    X(a, "scalability", 59, 5, MINTID_ROLE_NODE, 0, 0)
/* clang-format on */
static const mintid_field scalable_fields[] = {SCALABLE_FIELDS(MINTID__FIELD, 0)};

/*
 * Capacity is what to expect, not a guarantee: a millisecond starts at a
 * random point of its field and steps by 1..255 (128 on average).
 */
const mintid__format_impl mintid__ulid_flake = {
    .pub =
        {
            .id = MINTID_ULID_FLAKE,
            .name = "ulid-flake",
            .title = "Ulid-Flake: 43-bit ms timestamp, 20-bit randomness (+n per ID); Crockford base32 text",
            .nfields = sizeof fields / sizeof fields[0],
            .fields = fields,
            .capacity_per_ms = 4096, /* 2^19 / 128 */
            .entropy_max = 3,
            ULID_FLAKE_COMMON,
        },
    .plan = MINTID__PLAN(FIELDS, 64),
    ULID_FLAKE_IMPL,
    .seq_width = 20,
};

const mintid__format_impl mintid__ulid_flake_scalable = {
    .pub =
        {
            .id = MINTID_ULID_FLAKE_SCALABLE,
            .name = "ulid-flake-scalable",
            .title = "Ulid-Flake scalable: 43-bit ms timestamp, 15-bit randomness, 5-bit scalability id",
            .nfields = sizeof scalable_fields / sizeof scalable_fields[0],
            .fields = scalable_fields,
            .node_bits = 5,
            .capacity_per_ms = 128, /* 2^14 / 128 */
            .entropy_max = 2,
            ULID_FLAKE_COMMON,
        },
    .plan = MINTID__PLAN(SCALABLE_FIELDS, 64),
    ULID_FLAKE_IMPL,
    .seq_width = 15,
};
