/* SPDX-License-Identifier: MIT */
/*
 * uuidv7.c - RFC 9562 UUID version 7 (docs/formats/uuidv7.md).
 *
 * 128 bits: 48-bit Unix ms timestamp, version 7, rand_a (12 bits), variant
 * 10, rand_b (62 bits). The generator is the RFC's fixed-length dedicated
 * counter (method 1 of section 6.2) as uuidv7-h lays it out: rand_a and the
 * top 30 bits of rand_b are one 42-bit counter, the low 32 bits of rand_b
 * are fresh random bits on every ID. Each millisecond starts the counter at
 * a 41-bit random value, its top bit clear (the RFC's rollover guard).
 */
#include "../internal.h"

#include <string.h>

#define COUNTER_MAX ((UINT64_C(1) << 42) - 1)
#define UUID_TEXT_LEN 36

/* Lays out a UUIDv7 from its timestamp, counter and random tail. */
static inline void put_v7(mintid_id *out, uint64_t ts, uint64_t counter, const uint8_t tail[4]) {
    /* Two big-endian words: ts, version and rand_a; variant, the rest of the counter and the tail. */
    uint64_t hi = ts << 16 | 0x7000 | ((counter >> 30) & 0x0fff);
    uint64_t lo = (uint64_t)(0x80 | ((counter >> 24) & 0x3f)) << 56 | (counter & 0xffffff) << 32 |
                  (uint64_t)tail[0] << 24 | (uint64_t)tail[1] << 16 | (uint64_t)tail[2] << 8 | tail[3];
    mintid__put_be(out->bytes, 8, hi);
    mintid__put_be(out->bytes + 8, 8, lo);
    memset(out->bytes + 16, 0, MINTID_ID_MAX_BYTES - 16);
}

int mintid__uuidv7_next(const mintid__format_impl *f, const mintid_config *cfg, mintid__core *core, int64_t rel,
                        mintid_pool *rng, mintid_id *out) {
    int tick = mintid__core_tick(f, cfg, core, rel);
    if (tick < 0)
        return tick;
    uint8_t r[10];
    uint64_t ts, counter;
    int rc;
    if (tick == MINTID__TICK_SAME && core->st.seq < COUNTER_MAX) {
        /* The same millisecond (or absorbed behind it): counter + 1, a fresh tail. */
        if ((rc = mintid__gen_random(rng, r + 6, 4)) != MINTID_OK)
            return rc;
        ts = core->last_ts;
        counter = core->st.seq + 1;
    } else {
        /* A new millisecond, or the counter used up: the next millisecond,
         * the ID's time then running ahead of the clock. */
        if ((rc = mintid__core_open_unit(f, core, tick, rel, &ts)) != MINTID_OK ||
            (rc = mintid__gen_random(rng, r, sizeof r)) != MINTID_OK)
            return rc;
        counter = (uint64_t)(r[0] & 0x07) << 38 | (uint64_t)r[1] << 30 | (uint64_t)(r[2] & 0x3f) << 24 |
                  (uint64_t)r[3] << 16 | (uint64_t)r[4] << 8 | r[5];
    }
    put_v7(out, ts, counter, r + 6);
    core->started = true;
    core->last_ts = ts;
    core->st.seq = counter;
    return MINTID_OK;
}

/* clang-format off */
#define FIELDS(X, a) \
    X(a, "unix_ts_ms", 0, 48, MINTID_ROLE_TIMESTAMP, 0, 0) \
    X(a, "version", 48, 4, MINTID_ROLE_CONSTANT, MINTID_FIELD_SHOWN, 7) \
    X(a, "rand_a", 52, 12, MINTID_ROLE_DATA, 0, 0) \
    X(a, "variant", 64, 2, MINTID_ROLE_CONSTANT, MINTID_FIELD_SHOWN, 2) \
    X(a, "rand_b", 66, 62, MINTID_ROLE_DATA, 0, 0)
/* clang-format on */
static const mintid_field fields[] = {FIELDS(MINTID__FIELD, 0)};

const mintid__format_impl mintid__uuidv7 = {
    .pub =
        {
            .id = MINTID_UUIDV7,
            .name = "uuidv7",
            .title = "UUIDv7 (RFC 9562): 48-bit Unix ms timestamp, 42-bit counter, 32 random bits per ID",
            .bits = 128,
            .nfields = sizeof fields / sizeof fields[0],
            .fields = fields,
            .epoch_ms = 0,
            .capacity_per_ms = 0,
            .capacity_note = "",
            .invalid_why = "it is not an RFC 9562 version-7 UUID (version 7, variant 10)",
            .forms = MINTID_FORM_BIT(MINTID_FORM_TEXT) | MINTID_FORM_BIT(MINTID_FORM_HEX),
            .text_min_len = UUID_TEXT_LEN,
            .text_max_len = UUID_TEXT_LEN,
            .text_sortable = 1,
            .alphabet = MINTID__HEX_DIGITS,
            .text_nocase = 1,
            .default_overflow = MINTID_OVERFLOW_WAIT,
            .default_rollback = MINTID_ROLLBACK_REUSE,
            .ts_unit_ms = 1,
            .rollback_allowance_ms = 10000,
        },
    .plan = MINTID__PLAN(FIELDS, 128),
    .timestamp_min = 0,
    .timestamp_max = (UINT64_C(1) << 48) - 1,
    .forms = {[MINTID_FORM_TEXT] = MINTID__FORM_UUID(1, 1), [MINTID_FORM_HEX] = MINTID__FORM_HEX(128, 1)},
    .any_order = {MINTID_FORM_TEXT, MINTID_FORM_HEX, MINTID_FORM_ANY},
    .next = mintid__uuidv7_next,
    .decode_checks = 1,
};
