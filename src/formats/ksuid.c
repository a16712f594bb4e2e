/* SPDX-License-Identifier: MIT */
/*
 * ksuid.c - KSUID (docs/formats/ksuid.md).
 *
 * 160 bits: a 32-bit count of seconds since 1400000000 (2014-05-13), and a
 * 128-bit payload. Text: 27 base62 digits (0-9A-Za-z), case-sensitive.
 * The generator is monotonic: within one second the top 96 payload bits
 * are a counter (started at a 95-bit random value) and the last 32 bits are
 * fresh random bits on every ID.
 */
#include "../internal.h"

#include <string.h>

#define ALPHABET "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
#define TEXT_LEN 27
#define KSUID_BYTES 20

MINTID__ALPHABET(b62, ALPHABET, false);

static int text_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    (void)fmt;
    if (cap < TEXT_LEN + 1)
        return MINTID_EBUFSIZE;
    mintid__bytes_to_base(id->bytes, KSUID_BYTES, &b62, 62, TEXT_LEN, buf);
    return TEXT_LEN;
}

static int text_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    (void)fmt;
    if (len != TEXT_LEN)
        return MINTID_ELENGTH;
    mintid_id id = {{0}};
    int rc = mintid__base_to_bytes(s, len, &b62, 62, id.bytes, KSUID_BYTES);
    if (rc == MINTID_OK)
        *out = id;
    return rc;
}

static const mintid__codec text_codec = {.encode = text_encode, .decode = text_decode};

/* The 96-bit counter is st.seq (its top 32 bits) and st.random (its low 64). */
static int next(const mintid__format_impl *f, const mintid_config *cfg, mintid__core *core, int64_t rel,
                mintid_pool *rng, mintid_id *out) {
    int tick = mintid__core_tick(f, cfg, core, rel);
    if (tick < 0)
        return tick;
    uint8_t r[16];
    uint64_t ts, hi, lo;
    int rc;
    if (tick == MINTID__TICK_SAME && (core->st.seq != UINT32_MAX || core->st.random != UINT64_MAX)) {
        if ((rc = mintid__gen_random(rng, r + 12, 4)) != MINTID_OK)
            return rc;
        ts = core->last_ts;
        lo = core->st.random + 1;
        hi = core->st.seq + (lo == 0);
    } else {
        /* A new second, or (after 2^95 IDs in one) the next one, as Next() carries. */
        if ((rc = mintid__core_open_unit(f, core, tick, rel, &ts)) != MINTID_OK ||
            (rc = mintid__gen_random(rng, r, sizeof r)) != MINTID_OK)
            return rc;
        hi = mintid__get_be(r, 4) & 0x7fffffffu; /* the counter's top bit starts at 0 */
        lo = mintid__get_be(r + 4, 8);
    }
    mintid__put_be(out->bytes, 4, ts);
    mintid__put_be(out->bytes + 4, 4, hi);
    mintid__put_be(out->bytes + 8, 8, lo);
    memcpy(out->bytes + 16, r + 12, 4);
    core->started = true;
    core->last_ts = ts;
    core->st.seq = hi;
    core->st.random = lo;
    return MINTID_OK;
}

/* clang-format off */
#define FIELDS(X, a) \
    X(a, "timestamp", 0, 32, MINTID_ROLE_TIMESTAMP, MINTID_FIELD_SHOWN, 0) \
    X(a, "payload", 32, 128, MINTID_ROLE_DATA, MINTID_FIELD_HEX, 0)
/* clang-format on */
static const mintid_field fields[] = {FIELDS(MINTID__FIELD, 0)};

const mintid__format_impl mintid__ksuid = {
    .pub =
        {
            .id = MINTID_KSUID,
            .name = "ksuid",
            .title = "KSUID: 32-bit seconds since 2014-05-13, 128-bit payload; base62 text",
            .bits = 160,
            .nfields = sizeof fields / sizeof fields[0],
            .fields = fields,
            .epoch_ms = 1400000000000LL,
            .capacity_per_ms = 0,
            .capacity_note = "",
            .forms = MINTID_FORM_BIT(MINTID_FORM_TEXT) | MINTID_FORM_BIT(MINTID_FORM_HEX),
            .text_min_len = TEXT_LEN,
            .text_max_len = TEXT_LEN,
            .text_sortable = 1,
            .alphabet = ALPHABET,
            .default_overflow = MINTID_OVERFLOW_WAIT,
            .default_rollback = MINTID_ROLLBACK_REUSE,
            .ts_unit_ms = 1000,
            .rollback_allowance_ms = 10000,
        },
    .plan = MINTID__PLAN(FIELDS, 160),
    .timestamp_min = 0,
    .timestamp_max = UINT32_MAX,
    .forms = {[MINTID_FORM_TEXT] = {.info = {.title = "base62, 0-9A-Za-z",
                                             .alphabet = ALPHABET,
                                             .min_len = TEXT_LEN,
                                             .max_len = TEXT_LEN,
                                             .nocase = 0,
                                             .sortable = 1,
                                             .guessed = 1,
                                             .reported = 1},
                                    .codec = &text_codec,
                                    .called = "a %s text",
                                    .unit = "characters"},
              [MINTID_FORM_HEX] = MINTID__FORM_HEX(160, 0)},
    .any_order = {MINTID_FORM_TEXT, MINTID_FORM_HEX, MINTID_FORM_ANY},
    .next = next,
};
