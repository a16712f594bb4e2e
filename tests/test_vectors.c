/* SPDX-License-Identifier: MIT */
/*
 * test_vectors.c - every test vector and every listed rejection of the seed
 * formats' pages (docs/formats; first transcribed from FORMATS.md, the
 * resolution the formats were written from), both ways: fields -> ID -> text, and text -> ID -> fields.
 */
#include "check.h"
#include "internal.h"

#include <stdlib.h>

typedef struct vector {
    const char *format;
    uint64_t value; /* 64-bit formats */
    const char *text;
    int has_parts;
    mintid_parts parts;
} vector;

#define P(ts_, seq_, node_, rnd_)                                                                                      \
    1, { .timestamp = ts_, .sequence = seq_, .node = node_, .random = rnd_ }
#define NOPARTS                                                                                                        \
    0, { .timestamp = 0 }

static const vector vectors[] = {
    /* 1. uexky: timestamp / sequence / random */
    {"uexky", 11093174944930914u, "xinaS8QBh", P(42317104129u, 270, 0, 98)},
    {"uexky", 262144u, "AABA", P(1, 0, 0, 0)},
    {"uexky", (UINT64_C(1) << 60) - 1, "__________", P((UINT64_C(1) << 42) - 1, 511, 0, 511)},
    /* 3. ulid-flake stand-alone: timestamp / randomness */
    {"ulid-flake", 0, "0000000000000", P(0, 0, 0, 0)},
    {"ulid-flake", 9223372036854775807u, "7ZZZZZZZZZZZZ", P(8796093022207u, 1048575, 0, 0)},
    {"ulid-flake", 14246757444195114u, "00CMXB6TAK4SA", P(13586766666u, 627498, 0, 0)},
    {"ulid-flake", 16981964897052914u, "00F2N078MDT7J", P(16195263764u, 452850, 0, 0)},
    {"ulid-flake", 16982197352449456u, "00F2N6ZRB5HDG", P(16195485451u, 181680, 0, 0)},
    {"ulid-flake", 16987710680109749u, "00F2T7EEA54NN", NOPARTS},
    {"ulid-flake", 16987710680109892u, "00F2T7EEA54T4", NOPARTS},
    {"ulid-flake", 16987710680109935u, "00F2T7EEA54VF", NOPARTS},
    {"ulid-flake", 16987710680110112u, "00F2T7EEA5510", NOPARTS},
    {"ulid-flake", 16987710680110242u, "00F2T7EEA5552", NOPARTS},
    /* 3. ulid-flake scalable: timestamp / randomness / scalability */
    {"ulid-flake-scalable", 16982379959606303u, "00F2NC9TEXQ0Z", P(16195659598u, 30432, 31, 0)},
    {"ulid-flake-scalable", 16987744731778528u, "00F2T8E54BKF0", NOPARTS},
    {"ulid-flake-scalable", 16987744731781248u, "00F2T8E54BP40", NOPARTS},
    {"ulid-flake-scalable", 16987744731788256u, "00F2T8E54BWZ0", NOPARTS},
    {"ulid-flake-scalable", 16987744731788704u, "00F2T8E54BXD0", NOPARTS},
    {"ulid-flake-scalable", 16987744731794112u, "00F2T8E54C2P0", NOPARTS},
    /* 4. caloriosa: timestamp / random / increment */
    {"caloriosa", 71027147798529u, "katjjMQN", NOPARTS},
    {"caloriosa", 9309868322384951297u, "b5JikCvNEnD", P(20622321493u, 1, 0, 2734)},
    {"caloriosa", 9223372036854775809u, "aZl8N0y58M9", P(0, 1, 0, 0)},
    /* 5. nanoflake: timestamp / generator / sequence */
    {"nanoflake", 0, "0", P(0, 0, 0, 0)},
    {"nanoflake", 8388607, "4zsov", P(1, 4095, 1023, 0)},
    {"nanoflake", 517815303950343u, "53jt2edkp3", P(123456789, 7, 5, 0)},
    {"nanoflake", 175928847298985984u, "1c49kkphl4ow", P(41944705796u, 0, 0, 0)},
    {"nanoflake", 9223372036854775807u, "1y2p0ij32e8e7", P((UINT64_C(1) << 41) - 1, 4095, 1023, 0)},
};

/* The randomness of the scalable monotonic run, in order (docs/formats/ulid-flake.md). */
static const uint64_t scalable_run[] = {11887, 11972, 12191, 12205, 12374};

static void check_vector(const vector *v) {
    const mintid_format *fmt = mintid_format_find(v->format);
    CHECK(fmt != NULL);
    mintid_id id, back;
    char buf[MINTID_TEXT_MAX];
    mintid_id_from_u64(&id, v->value);

    /* value -> text and text -> value */
    CHECK(mintid_encode(fmt, MINTID_FORM_TEXT, &id, buf, sizeof buf) == (int)strlen(v->text));
    CHECK_STR(buf, v->text);
    CHECK_INT(mintid_decode(fmt, MINTID_FORM_TEXT, v->text, strlen(v->text), &back, NULL), MINTID_OK);
    CHECK_U64(mintid_id_to_u64(&back), v->value);

    /* the integer form */
    char dec[32];
    snprintf(dec, sizeof dec, "%" PRIu64, v->value);
    CHECK(mintid_encode(fmt, MINTID_FORM_INT, &id, buf, sizeof buf) > 0);
    CHECK_STR(buf, dec);

    if (!v->has_parts)
        return;
    /* fields -> value and value -> fields */
    mintid_id built;
    CHECK_INT(mintid_id_build(fmt, &v->parts, &built), MINTID_OK);
    CHECK_U64(mintid_id_to_u64(&built), v->value);
    mintid_parts got;
    mintid_id_parse(fmt, &id, &got);
    CHECK_U64(got.timestamp, v->parts.timestamp);
    CHECK_U64(got.sequence, v->parts.sequence);
    CHECK_U64(got.node, v->parts.node);
    CHECK_U64(got.random, v->parts.random);
}

typedef struct scru_vector {
    const char *hex, *text;
    uint64_t ts, counter, random16;
    const char *random80; /* decimal, or NULL when the page elides it */
} scru_vector;

static const scru_vector scru_vectors[] = {
    {"017c083c130732153679e83c4fc65664e6a964a1", "05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51", 1632225727239u, 12821, 13945,
     "1096701577047146014270625"},
    {"017c083c13073216a2ab5d302cebfca0916625a0", "05U0GF0J0SP1D8LBBKO2PQVSK28MC9D0", 1632225727239u, 12822, 41643,
     "440068763580938823542176"},
    {"017bdf6431bb33788c1f750c4a375d4af97f1184", "05TTUP1HNCPNH30VEK64KDQT9BSNU4C4", 1631540490683u, 13176, 35871,
     NULL},
    {"017bdf6431bb33750751eb63beb3c3f8c5969d86", "05TTUP1HNCPNA1QHTDHRTCU3V32PD7C6", 1631540490683u, 13173, 1873, NULL},
    {"0000000000000000000000000000000000000000", "00000000000000000000000000000000", 0, 0, 0, "0"},
    {"ffffffffffffffffffffffffffffffffffffffff", "VVVVVVVVVVVVVVVVVVVVVVVVVVVVVVVV", 281474976710655u, 65535, 65535,
     "1208925819614629174706175"},
};

static void check_scru160(const scru_vector *v) {
    const mintid_format *fmt = mintid_format_get(MINTID_SCRU160);
    mintid_id a, b;
    char buf[MINTID_TEXT_MAX];
    CHECK_INT(mintid_decode(fmt, MINTID_FORM_HEX, v->hex, 40, &a, NULL), MINTID_OK);
    CHECK_INT(mintid_decode(fmt, MINTID_FORM_TEXT, v->text, 32, &b, NULL), MINTID_OK);
    CHECK(mintid_id_compare(fmt, &a, &b) == 0);
    CHECK_INT(mintid_encode(fmt, MINTID_FORM_TEXT, &a, buf, sizeof buf), 32);
    CHECK_STR(buf, v->text);
    CHECK_INT(mintid_encode(fmt, MINTID_FORM_HEX, &b, buf, sizeof buf), 40);
    CHECK_STR(buf, v->hex);
    mintid_parts p;
    mintid_id_parse(fmt, &a, &p);
    CHECK_U64(p.timestamp, v->ts);
    CHECK_U64(p.sequence, v->counter);
    CHECK_U64(p.random, v->random16);
    mintid_id built;
    CHECK_INT(mintid_id_build(fmt, &p, &built), MINTID_OK);
    CHECK(mintid_id_compare(fmt, &built, &a) == 0);
    /* Decoders ignore case. */
    char lower[33], upper[41];
    for (int i = 0; i < 32; i++)
        lower[i] = (char)(v->text[i] >= 'A' && v->text[i] <= 'Z' ? v->text[i] + 32 : v->text[i]);
    for (int i = 0; i < 40; i++)
        upper[i] = (char)(v->hex[i] >= 'a' && v->hex[i] <= 'z' ? v->hex[i] - 32 : v->hex[i]);
    CHECK_INT(mintid_decode(fmt, MINTID_FORM_TEXT, lower, 32, &b, NULL), MINTID_OK);
    CHECK(mintid_id_compare(fmt, &a, &b) == 0);
    CHECK_INT(mintid_decode(fmt, MINTID_FORM_HEX, upper, 40, &b, NULL), MINTID_OK);
    CHECK(mintid_id_compare(fmt, &a, &b) == 0);
    if (v->random80 != NULL) {
        CHECK(mintid__bytes_to_decimal(p.random80, 10, buf, sizeof buf) > 0);
        CHECK_STR(buf, v->random80);
    }
}

typedef struct rejection {
    const char *format;
    mintid_form form;
    const char *text;
    int status;
} rejection;

static const rejection rejections[] = {
    {"ulid-flake", MINTID_FORM_TEXT, "8000000000000", MINTID_EOVERFLOW},
    {"ulid-flake", MINTID_FORM_TEXT, "ZZZZZZZZZZZZZ", MINTID_EOVERFLOW},
    {"ulid-flake", MINTID_FORM_ANY, "8000000000000", MINTID_EOVERFLOW},
    {"ulid-flake", MINTID_FORM_TEXT, "000000000000", MINTID_ELENGTH},
    {"ulid-flake", MINTID_FORM_TEXT, "00000000000000", MINTID_ELENGTH},
    {"ulid-flake", MINTID_FORM_TEXT, "", MINTID_ELENGTH},
    {"ulid-flake", MINTID_FORM_ANY, "", MINTID_ELENGTH},
    {"ulid-flake", MINTID_FORM_TEXT, "00F2N078MDT7I", MINTID_ECHAR},
    {"ulid-flake", MINTID_FORM_TEXT, "00F2N078MDT7L", MINTID_ECHAR},
    {"ulid-flake", MINTID_FORM_TEXT, "00F2N078MDT7O", MINTID_ECHAR},
    {"ulid-flake", MINTID_FORM_TEXT, "00F2N078MDT7U", MINTID_ECHAR},
    {"ulid-flake", MINTID_FORM_TEXT, "00F2N078MDT7-", MINTID_ECHAR},
    {"ulid-flake", MINTID_FORM_TEXT, "8000000000-00", MINTID_ECHAR}, /* a bad character outranks overflow */
    {"ulid-flake-scalable", MINTID_FORM_TEXT, "8000000000000", MINTID_EOVERFLOW},
    {"ulid-flake-scalable", MINTID_FORM_TEXT, "00f2nc9texq0u", MINTID_ECHAR},
    {"uexky", MINTID_FORM_TEXT, "AAB", MINTID_ELENGTH},
    {"uexky", MINTID_FORM_TEXT, "AAAAAAAAAAA", MINTID_ELENGTH},
    {"uexky", MINTID_FORM_TEXT, "AAB+", MINTID_ECHAR},
    {"uexky", MINTID_FORM_TEXT, "AAB=", MINTID_ECHAR},
    {"uexky", MINTID_FORM_HEX, "1000000000000000", MINTID_EOVERFLOW},
    {"uexky", MINTID_FORM_INT, "1152921504606846976", MINTID_EOVERFLOW}, /* 2^60 */
    {"scru160", MINTID_FORM_TEXT, "05U0GF0J0SP1ADJPT0U4VHIMCJJAIP5", MINTID_ELENGTH},
    {"scru160", MINTID_FORM_TEXT, "05U0GF0J0SP1ADJPT0U4VHIMCJJAIP5W", MINTID_ECHAR},
    {"scru160", MINTID_FORM_HEX, "017c083c130732153679e83c4fc65664e6a964ag", MINTID_ECHAR},
    {"scru160", MINTID_FORM_INT, "1", MINTID_EFORM},
    {"caloriosa", MINTID_FORM_TEXT, "", MINTID_ELENGTH},
    {"caloriosa", MINTID_FORM_TEXT, "b5JikCvNEnDx", MINTID_ELENGTH},
    {"caloriosa", MINTID_FORM_TEXT, "b5JikCvNEn_", MINTID_ECHAR},
    {"caloriosa", MINTID_FORM_TEXT, "ZZZZZZZZZZZ", MINTID_EOVERFLOW},
    {"caloriosa", MINTID_FORM_TEXT, "lYGhA16ahyg", MINTID_EOVERFLOW},   /* 2^64 */
    {"nanoflake", MINTID_FORM_TEXT, "1y2p0ij32e8e8", MINTID_EOVERFLOW}, /* 2^63 */
    {"nanoflake", MINTID_FORM_TEXT, "zzzzzzzzzzzzz", MINTID_EOVERFLOW},
    {"nanoflake", MINTID_FORM_TEXT, "00000000000000", MINTID_ELENGTH},
    {"nanoflake", MINTID_FORM_TEXT, "4zs-v", MINTID_ECHAR},
    {"nanoflake", MINTID_FORM_INT, "9223372036854775808", MINTID_EOVERFLOW},
    {"nanoflake", MINTID_FORM_INT, "18446744073709551616", MINTID_EOVERFLOW},
    {"nanoflake", MINTID_FORM_INT, "-1", MINTID_ECHAR},
    {"nanoflake", MINTID_FORM_INT, "+1", MINTID_ECHAR},
    {"nanoflake", MINTID_FORM_INT, "123456789012345678901", MINTID_ELENGTH},
    {"nanoflake", MINTID_FORM_ANY, "9223372036854775808", MINTID_EOVERFLOW},
    {"nanoflake", MINTID_FORM_PADDED, "4zsov", MINTID_ELENGTH},
};

static void check_rejection(const rejection *r) {
    const mintid_format *fmt = mintid_format_find(r->format);
    mintid_id id;
    memset(&id, 0xAA, sizeof id);
    int rc = mintid_decode(fmt, r->form, r->text, strlen(r->text), &id, NULL);
    if (rc != r->status)
        fprintf(stderr, "%s '%s' (form %d): got %s, expected %s\n", r->format, r->text, (int)r->form,
                mintid_status_name(rc), mintid_status_name(r->status));
    CHECK_INT(rc, r->status);
    CHECK(id.bytes[0] == 0xAA); /* a failed decode leaves *out alone */
}

static void check_extras(void) {
    const mintid_format *ulid = mintid_format_get(MINTID_ULID_FLAKE_SCALABLE);
    mintid_id id;
    /* The monotonic run: randomness rises within one millisecond, id 0. */
    const char *run[] = {"00F2T8E54BKF0", "00F2T8E54BP40", "00F2T8E54BWZ0", "00F2T8E54BXD0", "00F2T8E54C2P0"};
    for (int i = 0; i < 5; i++) {
        mintid_parts p;
        CHECK_INT(mintid_decode(ulid, MINTID_FORM_TEXT, run[i], 13, &id, NULL), MINTID_OK);
        mintid_id_parse(ulid, &id, &p);
        CHECK_U64(p.sequence, scalable_run[i]);
        CHECK_U64(p.node, 0);
    }
    /* Case-insensitive decoding for ulid-flake and nanoflake. */
    CHECK_INT(mintid_decode(ulid, MINTID_FORM_TEXT, "00f2nc9texq0z", 13, &id, NULL), MINTID_OK);
    CHECK_U64(mintid_id_to_u64(&id), 16982379959606303u);
    const mintid_format *nano = mintid_format_get(MINTID_NANOFLAKE);
    CHECK_INT(mintid_decode(nano, MINTID_FORM_TEXT, "1C49KKPHL4OW", 12, &id, NULL), MINTID_OK);
    CHECK_U64(mintid_id_to_u64(&id), 175928847298985984u);
    /* The Discord example, read against its own epoch. */
    CHECK_INT(mintid_id_unix_ms(nano, &id, 1420070400000), 1420070400000 + 41944705796);
    char t[MINTID_TIME_MAX];
    CHECK(mintid_format_time(mintid_id_unix_ms(nano, &id, 1420070400000), t, sizeof t) > 0);
    CHECK_STR(t, "2016-04-30T11:18:25.796Z");
    /* uexky: 2019-07-03T18:45:04.129Z */
    const mintid_format *uexky = mintid_format_get(MINTID_UEXKY);
    CHECK_INT(mintid_decode(uexky, MINTID_FORM_TEXT, "xinaS8QBh", 9, &id, NULL), MINTID_OK);
    CHECK(mintid_format_time(mintid_id_unix_ms(uexky, &id, uexky->epoch_ms), t, sizeof t) > 0);
    CHECK_STR(t, "2019-07-03T18:45:04.129Z");
    /* A padded uexky text decodes to the same value; the canonical one is unpadded. */
    CHECK_INT(mintid_decode(uexky, MINTID_FORM_TEXT, "AAAABA", 6, &id, NULL), MINTID_OK);
    CHECK_U64(mintid_id_to_u64(&id), 262144u);
    /* Nanoflake padded form. */
    mintid_id_from_u64(&id, 8388607);
    char buf[MINTID_TEXT_MAX];
    CHECK_INT(mintid_encode(nano, MINTID_FORM_PADDED, &id, buf, sizeof buf), 13);
    CHECK_STR(buf, "000000004zsov");
    /* Caloriosa: the core alphabet swaps case; validity needs the prefix bit. */
    const mintid_format *cal = mintid_format_get(MINTID_CALORIOSA);
    mintid_id_from_u64(&id, 9309868322384951297u);
    CHECK(mintid_encode(cal, MINTID_FORM_CORE, &id, buf, sizeof buf) == 11);
    CHECK_STR(buf, "B5jIKcVneNd");
    CHECK_INT(mintid_id_check(cal, &id), MINTID_OK);
    mintid_id_from_u64(&id, 71027147798529u);
    CHECK_INT(mintid_id_check(cal, &id), MINTID_EINVALID);
    /* Reserved scru160 timestamps fail the validity check. */
    const mintid_format *scru = mintid_format_get(MINTID_SCRU160);
    CHECK_INT(mintid_decode(scru, MINTID_FORM_TEXT, "00000000000000000000000000000000", 32, &id, NULL), MINTID_OK);
    CHECK_INT(mintid_id_check(scru, &id), MINTID_EINVALID);
    /* Building refuses fields that do not fit, and slots the format lacks. */
    mintid_parts p = {.timestamp = 1, .sequence = 4096};
    CHECK_INT(mintid_id_build(nano, &p, &id), MINTID_ERANGE);
    p = (mintid_parts){.timestamp = 1, .random = 1};
    CHECK_INT(mintid_id_build(nano, &p, &id), MINTID_ERANGE);
    p = (mintid_parts){.timestamp = UINT64_C(1) << 41};
    CHECK_INT(mintid_id_build(nano, &p, &id), MINTID_ERANGE);
    /* Buffers too small are refused, not overrun. */
    mintid_id_from_u64(&id, 8388607);
    CHECK_INT(mintid_encode(nano, MINTID_FORM_TEXT, &id, buf, 5), MINTID_EBUFSIZE);
    CHECK_INT(mintid_encode(nano, MINTID_FORM_TEXT, &id, buf, 6), 5);
    CHECK_INT(mintid_encode(scru, MINTID_FORM_INT, &id, buf, sizeof buf), MINTID_EFORM);
}

/* The clock of check_range's generators: a fixed time. */
static int fixed_clock(void *ctx, int64_t *unix_ms) {
    *unix_ms = *(const int64_t *)ctx;
    return MINTID_OK;
}

/*
 * Range helpers: for every format, the smallest and largest ID of a
 * millisecond carry that millisecond, are valid IDs, and hold every ID a
 * generator mints in it; the millisecond before ends below, the one after
 * starts above. Nanoflake's are checked against the layout by hand.
 */
static void check_range(void) {
    const int64_t t = 1795425679349; /* 2026-11-22T... */
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        mintid_id lo, hi, prev_lo, prev_hi, next_lo, next_hi;
        /* Every millisecond of a timestamp unit (ksuid's second, sonyflake's
         * 10 ms) has the unit's range; the units before and after are apart. */
        const int64_t unit = fmt->ts_unit_ms, start = t / unit * unit;
        CHECK_INT(mintid_range(fmt, t, MINTID_EPOCH_DEFAULT, &lo, &hi), MINTID_OK);
        CHECK_INT(mintid_range(fmt, start - 1, MINTID_EPOCH_DEFAULT, &prev_lo, &prev_hi), MINTID_OK);
        CHECK_INT(mintid_range(fmt, start + unit, MINTID_EPOCH_DEFAULT, &next_lo, &next_hi), MINTID_OK);
        CHECK(mintid_id_compare(fmt, &lo, &hi) < 0);
        CHECK(mintid_id_compare(fmt, &prev_hi, &lo) < 0);
        CHECK(mintid_id_compare(fmt, &hi, &next_lo) < 0);
        CHECK_INT(mintid_id_check(fmt, &lo), MINTID_OK);
        CHECK_INT(mintid_id_check(fmt, &hi), MINTID_OK);
        CHECK_INT(mintid_id_unix_ms(fmt, &lo, fmt->epoch_ms), start);
        CHECK_INT(mintid_id_unix_ms(fmt, &hi, fmt->epoch_ms), start);
        int64_t now = t;
        mintid_config cfg;
        mintid_config_init(&cfg, fmt);
        cfg.clock = fixed_clock;
        cfg.clock_ctx = &now;
        cfg.overflow = MINTID_OVERFLOW_FAIL;
        mintid_gen *g;
        CHECK_INT(mintid_gen_new(fmt, &cfg, &g), MINTID_OK);
        mintid_id ids[64];
        long n = mintid_gen_next_n(g, ids, 64);
        CHECK(n > 0);
        for (long k = 0; k < n; k++)
            CHECK(mintid_id_compare(fmt, &lo, &ids[k]) <= 0 && mintid_id_compare(fmt, &ids[k], &hi) <= 0);
        mintid_gen_free(g);
        CHECK_INT(mintid_range(fmt, fmt->epoch_ms - 1, MINTID_EPOCH_DEFAULT, &lo, &hi), MINTID_ETIME);
    }
    const mintid_format *nf = mintid_format_find("nanoflake");
    mintid_id lo, hi;
    uint64_t rel = (uint64_t)(t - MINTID_NANOFLAKE_DEFAULT_EPOCH);
    CHECK_INT(mintid_range(nf, t, MINTID_EPOCH_DEFAULT, &lo, &hi), MINTID_OK);
    CHECK_U64(mintid_id_to_u64(&lo), rel << 22);
    CHECK_U64(mintid_id_to_u64(&hi), ((rel + 1) << 22) - 1);
    /* A settable epoch moves the range; a fixed one ignores the argument. */
    CHECK_INT(mintid_range(nf, t, 1420070400000, &lo, &hi), MINTID_OK);
    CHECK_U64(mintid_id_to_u64(&lo), (uint64_t)(t - 1420070400000) << 22);
    CHECK_INT(mintid_range(nf, t, t + 1, &lo, &hi), MINTID_ETIME);
}

/*
 * The sentences mintid_explain() builds from the format table's words for
 * each form (its name in a sentence, its lengths, its alphabet or shape).
 */
static void check_sentences(void) {
    static const struct {
        const char *format;
        int form;
        const char *text, *said;
    } cases[] = {
        {"nanoflake", MINTID_FORM_ANY, "1y2p0ij32e8e7a",
         "nanoflake: '1y2p0ij32e8e7a' has the wrong length (14); a nanoflake text is 1 to 13 characters; a decimal "
         "integer is 1 to 20 digits; the padded form is 13 characters"},
        {"nanoflake", MINTID_FORM_PADDED, "4zsov",
         "nanoflake: '4zsov' has the wrong length (5); the padded form is 13 characters"},
        {"nanoflake", MINTID_FORM_PADDED, "00000004zsov!",
         "nanoflake: '00000004zsov!': '!' at position 13 is not a nanoflake digit "
         "(0123456789abcdefghijklmnopqrstuvwxyz)"},
        {"caloriosa", MINTID_FORM_CORE, "B5jIKcVneNdx",
         "caloriosa: 'B5jIKcVneNdx' has the wrong length (12); the core form is 1 to 11 characters"},
        {"caloriosa", MINTID_FORM_CORE, "B5jIKcVne-d",
         "caloriosa: 'B5jIKcVne-d': '-' at position 10 is not a caloriosa digit "
         "(0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz)"},
        {"caloriosa", MINTID_FORM_INT, "0123", "caloriosa: '0123': a decimal integer has no leading zero"},
        {"snowflake", MINTID_FORM_ANY, "0123", "snowflake: '0123': a decimal integer has no leading zero"},
        {"snowflake", MINTID_FORM_ANY, "99999999999999999999",
         "snowflake: '99999999999999999999' exceeds 2^63-1, the largest snowflake"},
        {"ulid", MINTID_FORM_UUID, "01563df3-6481-d676-4c61-efb99302bd5",
         "ulid: '01563df3-6481-d676-4c61-efb99302bd5' "
         "has the wrong length (35); a UUID is 36 characters (8-4-4-4-12), or 32 hex digits, 38 in braces or 45 after "
         "urn:uuid:"},
        {"ulid", MINTID_FORM_UUID, "01563df3-6481-d676_4c61-efb99302bd5b",
         "ulid: '01563df3-6481-d676_4c61-efb99302bd5b': '_' at position 19 is out of place: a UUID is 8-4-4-4-12 hex "
         "digits, or 32 of them, in braces or after urn:uuid:"},
        {"typeid", MINTID_FORM_ANY, "user_01h455vb4pex5vsknk084sn02",
         "typeid: 'user_01h455vb4pex5vsknk084sn02': its suffix has the wrong length (25); a typeid suffix is 26 "
         "characters"},
        {"ksuid", MINTID_FORM_HEX, "00", "ksuid: '00' has the wrong length (2); ksuid hex is 40 digits"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const mintid_format *fmt = mintid_format_find(cases[i].format);
        char said[512];
        mintid_id id;
        size_t len = strlen(cases[i].text);
        int rc = mintid_decode(fmt, (mintid_form)cases[i].form, cases[i].text, len, &id, NULL);
        CHECK(rc < 0);
        CHECK(mintid_explain(fmt, cases[i].form, cases[i].text, len, rc, said, sizeof said) > 0);
        CHECK_STR(said, cases[i].said);
    }
}

int main(void) {
    check_range();
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++)
        check_vector(&vectors[i]);
    for (size_t i = 0; i < sizeof scru_vectors / sizeof scru_vectors[0]; i++)
        check_scru160(&scru_vectors[i]);
    for (size_t i = 0; i < sizeof rejections / sizeof rejections[0]; i++)
        check_rejection(&rejections[i]);
    check_extras();
    check_sentences();
    return CHECK_DONE();
}
