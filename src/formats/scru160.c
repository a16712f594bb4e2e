/* SPDX-License-Identifier: MIT */
/*
 * scru160.c - SCRU160 v0.1.0 (docs/formats/scru160.md).
 *
 * 160 bits: 48-bit Unix ms timestamp, 16-bit counter, random16, random80.
 * Text: 32 characters of base32hex (upper case), or 40 lower-case hex
 * digits; decoders ignore case.
 */
#include "../internal.h"

#include <string.h>

#define SCRU160_BYTES 20
#define SCRU160_TEXT_LEN 32

#define ALPHABET "0123456789ABCDEFGHIJKLMNOPQRSTUV"

MINTID__ALPHABET(b32hex, ALPHABET, true);

/* 160 bits are exactly 32 groups of 5: no padding, no overflow possible. */
static int text_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    (void)fmt;
    if (cap < SCRU160_TEXT_LEN + 1)
        return MINTID_EBUFSIZE;
    /* The ID as three big-endian loads, cut into four 40-bit chunks (eight
     * digits each); ten bits (two digits, from the alphabet's pair table)
     * per lookup. */
    uint64_t w0 = mintid__get_be(id->bytes, 8), w1 = mintid__get_be(id->bytes + 8, 8);
    uint64_t chunks[4] = {
        w0 >> 24,
        (w0 & 0xffffff) << 16 | w1 >> 48,
        (w1 >> 8) & 0xffffffffff,
        (w1 & 0xff) << 32 | mintid__get_be(id->bytes + 16, 4),
    };
    for (int c = 0; c < 4; c++) {
        uint64_t v = chunks[c];
        char *out = buf + c * 8;
        memcpy(out, b32hex.pairs[v >> 30], 2);
        memcpy(out + 2, b32hex.pairs[(v >> 20) & 1023], 2);
        memcpy(out + 4, b32hex.pairs[(v >> 10) & 1023], 2);
        memcpy(out + 6, b32hex.pairs[v & 1023], 2);
    }
    buf[SCRU160_TEXT_LEN] = '\0';
    return SCRU160_TEXT_LEN;
}

static int text_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    (void)fmt;
    if (len != SCRU160_TEXT_LEN)
        return MINTID_ELENGTH;
    for (size_t i = 0; i < len; i++)
        if (mintid__digit_value(&b32hex, (unsigned char)s[i]) == 0xff)
            return MINTID_ECHAR;
    mintid_id id;
    memset(&id, 0, sizeof id);
    for (int chunk = 0; chunk < 4; chunk++) {
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = v << 5 | mintid__digit_value(&b32hex, (unsigned char)s[chunk * 8 + i]);
        for (int i = 4; i >= 0; i--) {
            id.bytes[chunk * 5 + i] = (uint8_t)v;
            v >>= 8;
        }
    }
    *out = id;
    return MINTID_OK;
}

static const mintid__codec text_codec = {.encode = text_encode, .decode = text_decode};

/* Timestamps 0 and 2^48-1 are reserved by the spec. */
static int check(const mintid_format *fmt, const mintid_id *id) {
    static const uint8_t zero[6], ones[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    (void)fmt;
    if (memcmp(id->bytes, zero, 6) == 0 || memcmp(id->bytes, ones, 6) == 0)
        return MINTID_EINVALID;
    return MINTID_OK;
}

/* A new millisecond starts the counter at a 15-bit random value. */
static int seq_begin(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng, mintid__seq_state *st) {
    (void)f, (void)cfg;
    return mintid__gen_random_bits(rng, 15, &st->seq);
}

/*
 * The field rules above (seq_begin, +1 per ID, random16 and random80 fresh
 * on every ID, random16 holding the node id when one is set), written
 * straight into the ID's bytes, drawing the same bytes in the same order:
 * the random fields, then a new millisecond's counter.
 */
static int next(const mintid__format_impl *f, const mintid_config *cfg, mintid__core *core, int64_t rel,
                mintid_pool *rng, mintid_id *out) {
    int tick = mintid__core_tick(f, cfg, core, rel);
    if (tick < 0)
        return tick;
    uint64_t ts = core->last_ts;
    int rc;
    if (tick == MINTID__TICK_NEW && (rc = mintid__core_open_unit(f, core, tick, rel, &ts)) != MINTID_OK)
        return rc;
    if (tick == MINTID__TICK_SAME && core->st.seq >= 0xffff)
        return MINTID_EEXHAUSTED;
    uint8_t r[12], c[2];
    if (cfg->node >= 0) {
        mintid__put_be(r, 2, (uint64_t)cfg->node);
        rc = mintid__gen_random(rng, r + 2, 10);
    } else {
        rc = mintid__gen_random(rng, r, 12);
    }
    if (rc == MINTID_OK && tick == MINTID__TICK_NEW)
        rc = mintid__gen_random(rng, c, 2);
    if (rc != MINTID_OK)
        return rc;
    uint64_t seq = tick == MINTID__TICK_NEW ? mintid__get_be(c, 2) & 0x7fff : core->st.seq + 1;
    mintid__put_be(out->bytes, 6, ts);
    mintid__put_be(out->bytes + 6, 2, seq);
    memcpy(out->bytes + 8, r, 12);
    core->started = true;
    core->last_ts = ts;
    core->st.seq = seq;
    return MINTID_OK;
}

/* clang-format off */
#define FIELDS(X, a) \
    X(a, "timestamp", 0, 48, MINTID_ROLE_TIMESTAMP, 0, 0) \
    X(a, "counter", 48, 16, MINTID_ROLE_SEQUENCE, 0, 0) \
    X(a, "random16", 64, 16, MINTID_ROLE_RANDOM, 0, 0) \
    X(a, "random80", 80, 80, MINTID_ROLE_RANDOM80, 0, 0)
/* clang-format on */
static const mintid_field fields[] = {FIELDS(MINTID__FIELD, 0)};

const mintid__format_impl mintid__scru160 = {
    .pub =
        {
            .id = MINTID_SCRU160,
            .name = "scru160",
            .title = "SCRU160: 48-bit Unix ms timestamp, 16-bit counter, 96 random bits; base32hex text",
            .bits = 160,
            .nfields = sizeof fields / sizeof fields[0],
            .fields = fields,
            .epoch_ms = 0,
            .node_bits = 16,
            .node_optional = 1,
            .capacity_per_ms = 32768, /* at least 2^16 - 2^15 after a 15-bit random start */
            .capacity_note = "at least",
            .invalid_why = "its timestamp is reserved",
            .forms = MINTID_FORM_BIT(MINTID_FORM_TEXT) | MINTID_FORM_BIT(MINTID_FORM_HEX),
            .text_min_len = SCRU160_TEXT_LEN,
            .text_max_len = SCRU160_TEXT_LEN,
            .text_sortable = 1,
            .value_max = 0,
            .alphabet = ALPHABET,
            .text_nocase = 1,
            .default_overflow = MINTID_OVERFLOW_WAIT,
            .default_rollback = MINTID_ROLLBACK_REUSE,
            .ts_unit_ms = 1,
        },
    .plan = MINTID__PLAN(FIELDS, 160),
    .timestamp_min = 1,
    .timestamp_max = (UINT64_C(1) << 48) - 2,
    .seq_init = 0,
    .forms = {[MINTID_FORM_TEXT] = {.info = {.title = "base32hex, upper case",
                                             .alphabet = ALPHABET,
                                             .min_len = SCRU160_TEXT_LEN,
                                             .max_len = SCRU160_TEXT_LEN,
                                             .nocase = 1,
                                             .sortable = 1,
                                             .guessed = 1,
                                             .reported = 1},
                                    .codec = &text_codec,
                                    .called = "a %s text",
                                    .unit = "characters"},
              [MINTID_FORM_HEX] = MINTID__FORM_HEX(160, 1)},
    .any_order = {MINTID_FORM_TEXT, MINTID_FORM_HEX, MINTID_FORM_ANY},
    .check = check,
    .seq_width = 16,
    .seq_begin = seq_begin,
    .seq_step = mintid__seq_step_one,
    .next = next,
};
