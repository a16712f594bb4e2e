/* SPDX-License-Identifier: MIT */
/*
 * scru128.c - SCRU128 v2.1 (docs/formats/scru128.md).
 *
 * 128 bits: 48-bit Unix ms timestamp, 24-bit counter_hi, 24-bit
 * counter_lo, 32-bit entropy. Text: 25 base36 digits, lower case, read in
 * either case. The generator follows the spec's recommendations exactly as
 * the reference's generateOrAbortCore() does, but for a rollback beyond the
 * allowance: an error, never a reset.
 */
#include "../internal.h"

#include <string.h>

#define ALPHABET "0123456789abcdefghijklmnopqrstuvwxyz"
#define TEXT_LEN 25
#define COUNTER_MAX 0xffffffu
#define COUNTER_HI_RENEW_MS 1000

MINTID__ALPHABET(b36, ALPHABET, true);

static int text_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    (void)fmt;
    if (cap < TEXT_LEN + 1)
        return MINTID_EBUFSIZE;
    mintid__bytes_to_base(id->bytes, 16, &b36, 36, TEXT_LEN, buf);
    return TEXT_LEN;
}

static int text_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    (void)fmt;
    if (len != TEXT_LEN)
        return MINTID_ELENGTH;
    mintid_id id = {{0}};
    int rc = mintid__base_to_bytes(s, len, &b36, 36, id.bytes, 16);
    if (rc == MINTID_OK)
        *out = id;
    return rc;
}

static const mintid__codec text_codec = {.encode = text_encode, .decode = text_decode};

static int random24(mintid_pool *rng, uint64_t *v) {
    uint8_t r[3];
    int rc = mintid__gen_random(rng, r, sizeof r);
    *v = mintid__get_be(r, 3);
    return rc;
}

/* st.seq is counter_lo, st.random counter_hi, st.aux the timestamp counter_hi was last drawn at. */
static int next(const mintid__format_impl *f, const mintid_config *cfg, mintid__core *core, int64_t rel,
                mintid_pool *rng, mintid_id *out) {
    int tick = mintid__core_tick(f, cfg, core, rel);
    if (tick < 0)
        return tick;
    mintid__seq_state st = core->st;
    uint64_t ts;
    int rc = MINTID_OK;
    if (tick == MINTID__TICK_NEW) {
        if ((rc = mintid__core_open_unit(f, core, tick, rel, &ts)) != MINTID_OK)
            return rc;
        rc = random24(rng, &st.seq);
    } else {
        ts = core->last_ts;
        if (st.seq < COUNTER_MAX) {
            st.seq++;
        } else if (st.random < COUNTER_MAX) {
            st.seq = 0;
            st.random++;
        } else {
            /* Both counters used up: the next millisecond, ahead of the clock. */
            if ((rc = mintid__core_open_unit(f, core, tick, rel, &ts)) != MINTID_OK)
                return rc;
            st.random = 0;
            rc = random24(rng, &st.seq);
        }
    }
    if (rc == MINTID_OK && (!core->started || ts - st.aux >= COUNTER_HI_RENEW_MS)) {
        rc = random24(rng, &st.random);
        st.aux = ts;
    }
    uint8_t entropy[4];
    if (rc == MINTID_OK)
        rc = mintid__gen_random(rng, entropy, sizeof entropy);
    if (rc != MINTID_OK)
        return rc;
    mintid__put_be(out->bytes, 6, ts);
    mintid__put_be(out->bytes + 6, 3, st.random);
    mintid__put_be(out->bytes + 9, 3, st.seq);
    memcpy(out->bytes + 12, entropy, 4);
    memset(out->bytes + 16, 0, MINTID_ID_MAX_BYTES - 16);
    core->started = true;
    core->last_ts = ts;
    core->st = st;
    return MINTID_OK;
}

/* clang-format off */
#define FIELDS(X, a) \
    X(a, "timestamp", 0, 48, MINTID_ROLE_TIMESTAMP, 0, 0) \
    X(a, "counter_hi", 48, 24, MINTID_ROLE_DATA, 0, 0) \
    X(a, "counter_lo", 72, 24, MINTID_ROLE_DATA, 0, 0) \
    X(a, "entropy", 96, 32, MINTID_ROLE_DATA, 0, 0)
/* clang-format on */
static const mintid_field fields[] = {FIELDS(MINTID__FIELD, 0)};

const mintid__format_impl mintid__scru128 = {
    .pub =
        {
            .id = MINTID_SCRU128,
            .name = "scru128",
            .title = "SCRU128: 48-bit Unix ms timestamp, 48-bit counter, 32 random bits; base36 text",
            .bits = 128,
            .nfields = sizeof fields / sizeof fields[0],
            .fields = fields,
            .epoch_ms = 0,
            .capacity_per_ms = 0,
            .capacity_note = "",
            .forms = MINTID_FORM_BIT(MINTID_FORM_TEXT) | MINTID_FORM_BIT(MINTID_FORM_HEX),
            .text_min_len = TEXT_LEN,
            .text_max_len = TEXT_LEN,
            .text_sortable = 1,
            .text_nocase = 1,
            .alphabet = ALPHABET,
            .default_overflow = MINTID_OVERFLOW_WAIT,
            .default_rollback = MINTID_ROLLBACK_REUSE,
            .ts_unit_ms = 1,
            .rollback_allowance_ms = 10000,
        },
    .plan = MINTID__PLAN(FIELDS, 128),
    .timestamp_min = 1,
    .timestamp_max = (UINT64_C(1) << 48) - 2,
    .forms = {[MINTID_FORM_TEXT] = {.info = {.title = "base36, lower case",
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
              [MINTID_FORM_HEX] = MINTID__FORM_HEX(128, 0)},
    .any_order = {MINTID_FORM_TEXT, MINTID_FORM_HEX, MINTID_FORM_ANY},
    .next = next,
};
