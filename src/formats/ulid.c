/* SPDX-License-Identifier: MIT */
/*
 * ulid.c - ULID (docs/formats/ulid.md), monotonic.
 *
 * 128 bits: 48-bit Unix ms timestamp, 80 bits of randomness. Text: 26
 * digits of Crockford base32, upper case, read in either case, without
 * Crockford's aliases. A new millisecond draws fresh randomness; within one
 * the randomness is incremented as an 80-bit number, as the spec's
 * monotonic factory does.
 */
#include "../internal.h"

#include <string.h>

#define ALPHABET "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
#define TEXT_LEN 26
#define HI_MAX 0xffffu /* the top 16 of the 80 bits */

MINTID__ALPHABET(b32, ALPHABET, true);

static int text_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    (void)fmt;
    return mintid__b32_128_encode(id, &b32, buf, cap);
}

static int text_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    (void)fmt;
    return mintid__b32_128_decode(s, len, &b32, out);
}

static const mintid__codec text_codec = {.encode = text_encode, .decode = text_decode};

/* The randomness is kept as st.seq (its top 16 bits) and st.random (its low 64). */
static int next(const mintid__format_impl *f, const mintid_config *cfg, mintid__core *core, int64_t rel,
                mintid_pool *rng, mintid_id *out) {
    int tick = mintid__core_tick(f, cfg, core, rel);
    if (tick < 0)
        return tick;
    uint64_t ts, hi, lo;
    if (tick == MINTID__TICK_NEW) {
        uint8_t r[10];
        int rc = mintid__core_open_unit(f, core, tick, rel, &ts);
        if (rc != MINTID_OK || (rc = mintid__gen_random(rng, r, sizeof r)) != MINTID_OK)
            return rc;
        hi = mintid__get_be(r, 2);
        lo = mintid__get_be(r + 2, 8);
    } else {
        /* The spec: generation fails when the randomness is at its maximum. */
        if (core->st.random == UINT64_MAX && core->st.seq == HI_MAX)
            return MINTID_EEXHAUSTED;
        ts = core->last_ts;
        lo = core->st.random + 1;
        hi = core->st.seq + (lo == 0);
    }
    mintid__put_be(out->bytes, 6, ts);
    mintid__put_be(out->bytes + 6, 2, hi);
    mintid__put_be(out->bytes + 8, 8, lo);
    memset(out->bytes + 16, 0, MINTID_ID_MAX_BYTES - 16);
    core->started = true;
    core->last_ts = ts;
    core->st.seq = hi;
    core->st.random = lo;
    return MINTID_OK;
}

/* clang-format off */
#define FIELDS(X, a) \
    X(a, "timestamp", 0, 48, MINTID_ROLE_TIMESTAMP, 0, 0) \
    X(a, "randomness", 48, 80, MINTID_ROLE_DATA, 0, 0)
/* clang-format on */
static const mintid_field fields[] = {FIELDS(MINTID__FIELD, 0)};

const mintid__format_impl mintid__ulid = {
    .pub =
        {
            .id = MINTID_ULID,
            .name = "ulid",
            .title = "ULID: 48-bit Unix ms timestamp, 80 random bits incremented within a millisecond",
            .bits = 128,
            .nfields = sizeof fields / sizeof fields[0],
            .fields = fields,
            .epoch_ms = 0,
            .capacity_per_ms = 0,
            .capacity_note = "",
            .forms = MINTID_FORM_BIT(MINTID_FORM_TEXT) | MINTID_FORM_BIT(MINTID_FORM_UUID) |
                     MINTID_FORM_BIT(MINTID_FORM_HEX),
            .text_min_len = TEXT_LEN,
            .text_max_len = TEXT_LEN,
            .text_sortable = 1,
            .text_nocase = 1,
            .alphabet = ALPHABET,
            .default_overflow = MINTID_OVERFLOW_FAIL,
            .default_rollback = MINTID_ROLLBACK_REUSE,
            .ts_unit_ms = 1,
            .rollback_allowance_ms = 10000,
        },
    .plan = MINTID__PLAN(FIELDS, 128),
    .timestamp_min = 0,
    .timestamp_max = (UINT64_C(1) << 48) - 1,
    .forms = {[MINTID_FORM_TEXT] = {.info = {.title = "Crockford's base32, upper case",
                                             .alphabet = ALPHABET,
                                             .min_len = TEXT_LEN,
                                             .max_len = TEXT_LEN,
                                             .nocase = 1,
                                             .sortable = 1,
                                             .guessed = 1,
                                             .reported = 1},
                                    .codec = &text_codec,
                                    .called = "a %s text",
                                    .unit = "characters"},
              [MINTID_FORM_UUID] = MINTID__FORM_UUID(0, 0),
              [MINTID_FORM_HEX] = MINTID__FORM_HEX(128, 0)},
    .any_order = {MINTID_FORM_TEXT, MINTID_FORM_UUID, MINTID_FORM_HEX, MINTID_FORM_ANY},
    .next = next,
};
