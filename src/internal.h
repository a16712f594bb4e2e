/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what the library's files share and the public header hides.
 */
#ifndef MINTID_INTERNAL_H
#define MINTID_INTERNAL_H

#include "mintid.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- codecs (codec.c) ---------------------------------------------------- */

/*
 * A text form of a format: encode writes the text and its NUL and returns the
 * length or a negative status; decode parses exactly `len` bytes. Decoders
 * check length first (MINTID_ELENGTH), then every character
 * (MINTID_ECHAR), then the value (MINTID_EOVERFLOW), so the status says what
 * is wrong in that order of precedence.
 */
typedef struct mintid__codec {
    int (*encode)(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap);
    int (*decode)(const mintid_format *fmt, const char *s, size_t len, mintid_id *out);
    /*
     * A form that is not one run of digits (no alphabet): the position of
     * the first character out of place in a text of a length it reads, or
     * len if none is. NULL for a form of digits.
     */
    size_t (*misplaced)(const char *s, size_t len);
} mintid__codec;

/* Forms the formats share: decimal (64-bit), fixed-width hex, and the UUID string (128-bit). */
extern const mintid__codec mintid__codec_int;
extern const mintid__codec mintid__codec_hex;
extern const mintid__codec mintid__codec_uuid;

/*
 * A text form as the format table holds it: the public facts
 * (mintid_format_form), its codec, and the words sentences use for it
 * (mintid_explain). A format's file fills its own forms beside their
 * codecs; the shared ones come from MINTID__FORM_INT, MINTID__FORM_HEX and
 * MINTID__FORM_UUID below.
 */
typedef struct mintid__form {
    mintid_form_info info;
    const mintid__codec *codec; /* NULL: the format has not got the form */
    /* A text of the form in a sentence; "%s", at most once, is the format's name: "a %s text", "%s hex". */
    const char *called;
    const char *unit; /* what its lengths count: "characters", "digits" */
    /* Its lengths in words where they are not min_len..max_len alone (the UUID's spellings); NULL: from them. */
    const char *lengths;
    /* For a form without an alphabet: what its texts look like, after "out of place: ". */
    const char *shape;
    /* 1: a decimal integer, which has no leading zero and whose largest value is said as a number. */
    uint8_t decimal;
} mintid__form;

/* The digits of the shared forms, for their facts and for the formats whose text is one of them. */
#define MINTID__DECIMAL_DIGITS "0123456789"
#define MINTID__HEX_DIGITS "0123456789abcdef"

/* clang-format off */
/*
 * The shared forms' facts, from this one place: a format's file gives
 * only what differs per format (the hex width in bits, and whether
 * mintid_guess() recognises it in the form, or inspect reports it).
 */
#define MINTID__FORM_INT(guessed_)                                                                                     \
    {.info = {.title = "unsigned decimal", .alphabet = MINTID__DECIMAL_DIGITS, .min_len = 1, .max_len = 20,           \
              .guessed = (guessed_), .reported = 1},                                                                   \
     .codec = &mintid__codec_int, .called = "a decimal integer", .unit = "digits", .decimal = 1}
#define MINTID__FORM_HEX(bits, guessed_)                                                                               \
    {.info = {.title = "lower-case hex, fixed width", .alphabet = MINTID__HEX_DIGITS, .min_len = (bits) / 4,          \
              .max_len = (bits) / 4, .nocase = 1, .sortable = 1, .guessed = (guessed_), .reported = 1},               \
     .codec = &mintid__codec_hex, .called = "%s hex", .unit = "digits"}
#define MINTID__FORM_UUID(guessed_, reported_)                                                                         \
    {.info = {.title = "RFC 9562 UUID string, 8-4-4-4-12 hex digits", .min_len = 36, .max_len = 36, .nocase = 1,     \
              .sortable = 1, .guessed = (guessed_), .reported = (reported_)},                                          \
     .codec = &mintid__codec_uuid, .called = "a UUID", .unit = "characters",                                          \
     .lengths = "a UUID is 36 characters (8-4-4-4-12), or 32 hex digits, 38 in braces or 45 after urn:uuid:",         \
     .shape = "a UUID is 8-4-4-4-12 hex digits, or 32 of them, in braces or after urn:uuid:"}
/* clang-format on */

/*
 * An alphabet: the digit of each value, and the value of each byte, worked
 * out from the digit string at compile time by MINTID__ALPHABET (never
 * written beside it by hand). They are constant data, ready before any code
 * runs, even a static-linked program's own constructors. With nocase, a
 * letter of the other case has the same value; an alphabet that holds both
 * cases of a letter cannot be nocase.
 */
#define MINTID__PAIRS_MAX 4096 /* base^2 for bases up to 64 */
typedef struct mintid__alphabet {
    const char *digits;
    bool nocase;
    uint8_t values[256];              /* 0xff: not a digit */
    char pairs[MINTID__PAIRS_MAX][2]; /* the two digits of every value below base^2 */
} mintid__alphabet;

/*
 * Defines `static const mintid__alphabet name` from `digits`, a string
 * literal (or a macro naming one) of at most 64 printable ASCII characters,
 * and an enum constant name##_base, its length.
 *
 * Every entry is a constant expression over the string literal: a byte's
 * value is the first position that holds it (a chain of ?: over positions
 * 0..63, the position taken modulo the base, which can only find again a
 * byte found at a lower position), and a pair is two characters picked by
 * position. Digits are printable ASCII, so the bytes below 0x20 and from 0x80
 * up are no digit without a search (and a digit outside that range would fail
 * the round-trip tests of its format at once). The pairs past base^2 repeat
 * earlier ones; nothing reads them.
 */
#define MINTID__ALPHABET(name, digits, nocase)                                                                         \
    enum { name##_base = sizeof(digits) - 1 };                                                                         \
    static const mintid__alphabet name = {(digits),                                                                    \
                                          (nocase),                                                                    \
                                          MINTID__VALUES(digits, name##_base, nocase),                                 \
                                          {MINTID__REP4096(MINTID__PAIR, digits, name##_base, nocase)}}

/* clang-format off */
/* M(i, D, B, nc) for i = P0..Pf and P00..Pff (P a hex prefix such as 0x1), and 0..4095. */
#define MINTID__REP16(M, D, B, nc, P) M(P##0, D, B, nc), M(P##1, D, B, nc), M(P##2, D, B, nc), M(P##3, D, B, nc), M(P##4, D, B, nc), M(P##5, D, B, nc), M(P##6, D, B, nc), M(P##7, D, B, nc), M(P##8, D, B, nc), M(P##9, D, B, nc), M(P##a, D, B, nc), M(P##b, D, B, nc), M(P##c, D, B, nc), M(P##d, D, B, nc), M(P##e, D, B, nc), M(P##f, D, B, nc)
#define MINTID__REP256(M, D, B, nc, P) MINTID__REP16(M, D, B, nc, P##0), MINTID__REP16(M, D, B, nc, P##1), MINTID__REP16(M, D, B, nc, P##2), MINTID__REP16(M, D, B, nc, P##3), MINTID__REP16(M, D, B, nc, P##4), MINTID__REP16(M, D, B, nc, P##5), MINTID__REP16(M, D, B, nc, P##6), MINTID__REP16(M, D, B, nc, P##7), MINTID__REP16(M, D, B, nc, P##8), MINTID__REP16(M, D, B, nc, P##9), MINTID__REP16(M, D, B, nc, P##a), MINTID__REP16(M, D, B, nc, P##b), MINTID__REP16(M, D, B, nc, P##c), MINTID__REP16(M, D, B, nc, P##d), MINTID__REP16(M, D, B, nc, P##e), MINTID__REP16(M, D, B, nc, P##f)
#define MINTID__REP4096(M, D, B, nc) MINTID__REP256(M, D, B, nc, 0x0), MINTID__REP256(M, D, B, nc, 0x1), MINTID__REP256(M, D, B, nc, 0x2), MINTID__REP256(M, D, B, nc, 0x3), MINTID__REP256(M, D, B, nc, 0x4), MINTID__REP256(M, D, B, nc, 0x5), MINTID__REP256(M, D, B, nc, 0x6), MINTID__REP256(M, D, B, nc, 0x7), MINTID__REP256(M, D, B, nc, 0x8), MINTID__REP256(M, D, B, nc, 0x9), MINTID__REP256(M, D, B, nc, 0xa), MINTID__REP256(M, D, B, nc, 0xb), MINTID__REP256(M, D, B, nc, 0xc), MINTID__REP256(M, D, B, nc, 0xd), MINTID__REP256(M, D, B, nc, 0xe), MINTID__REP256(M, D, B, nc, 0xf)

/* The position of byte c in D (of length B), or 0xff. */
#define MINTID__AT(D, B, c, p) (D)[p % B] == (c) ? p :
#define MINTID__FIND(D, B, c) (MINTID__AT(D, B, c, 0) MINTID__AT(D, B, c, 1) MINTID__AT(D, B, c, 2) MINTID__AT(D, B, c, 3) MINTID__AT(D, B, c, 4) MINTID__AT(D, B, c, 5) MINTID__AT(D, B, c, 6) MINTID__AT(D, B, c, 7) MINTID__AT(D, B, c, 8) MINTID__AT(D, B, c, 9) MINTID__AT(D, B, c, 10) MINTID__AT(D, B, c, 11) MINTID__AT(D, B, c, 12) MINTID__AT(D, B, c, 13) MINTID__AT(D, B, c, 14) MINTID__AT(D, B, c, 15) MINTID__AT(D, B, c, 16) MINTID__AT(D, B, c, 17) MINTID__AT(D, B, c, 18) MINTID__AT(D, B, c, 19) MINTID__AT(D, B, c, 20) MINTID__AT(D, B, c, 21) MINTID__AT(D, B, c, 22) MINTID__AT(D, B, c, 23) MINTID__AT(D, B, c, 24) MINTID__AT(D, B, c, 25) MINTID__AT(D, B, c, 26) MINTID__AT(D, B, c, 27) MINTID__AT(D, B, c, 28) MINTID__AT(D, B, c, 29) MINTID__AT(D, B, c, 30) MINTID__AT(D, B, c, 31) MINTID__AT(D, B, c, 32) MINTID__AT(D, B, c, 33) MINTID__AT(D, B, c, 34) MINTID__AT(D, B, c, 35) MINTID__AT(D, B, c, 36) MINTID__AT(D, B, c, 37) MINTID__AT(D, B, c, 38) MINTID__AT(D, B, c, 39) MINTID__AT(D, B, c, 40) MINTID__AT(D, B, c, 41) MINTID__AT(D, B, c, 42) MINTID__AT(D, B, c, 43) MINTID__AT(D, B, c, 44) MINTID__AT(D, B, c, 45) MINTID__AT(D, B, c, 46) MINTID__AT(D, B, c, 47) MINTID__AT(D, B, c, 48) MINTID__AT(D, B, c, 49) MINTID__AT(D, B, c, 50) MINTID__AT(D, B, c, 51) MINTID__AT(D, B, c, 52) MINTID__AT(D, B, c, 53) MINTID__AT(D, B, c, 54) MINTID__AT(D, B, c, 55) MINTID__AT(D, B, c, 56) MINTID__AT(D, B, c, 57) MINTID__AT(D, B, c, 58) MINTID__AT(D, B, c, 59) MINTID__AT(D, B, c, 60) MINTID__AT(D, B, c, 61) MINTID__AT(D, B, c, 62) MINTID__AT(D, B, c, 63) 0xff)
/* A byte's value; a letter's other case too when nc. */
#define MINTID__VALUE(c, D, B, nc) \
    (MINTID__FIND(D, B, c) & ((nc) && ((c) | 0x20) >= 'a' && ((c) | 0x20) <= 'z' ? MINTID__FIND(D, B, (c) ^ 0x20) : 0xff))
#define MINTID__NO_DIGIT(c, D, B, nc) 0xff
#define MINTID__VALUES(D, B, nc) { \
    MINTID__REP16(MINTID__NO_DIGIT, D, B, nc, 0x0), MINTID__REP16(MINTID__NO_DIGIT, D, B, nc, 0x1), \
    MINTID__REP16(MINTID__VALUE, D, B, nc, 0x2), MINTID__REP16(MINTID__VALUE, D, B, nc, 0x3), \
    MINTID__REP16(MINTID__VALUE, D, B, nc, 0x4), MINTID__REP16(MINTID__VALUE, D, B, nc, 0x5), \
    MINTID__REP16(MINTID__VALUE, D, B, nc, 0x6), MINTID__REP16(MINTID__VALUE, D, B, nc, 0x7), \
    MINTID__REP16(MINTID__NO_DIGIT, D, B, nc, 0x8), MINTID__REP16(MINTID__NO_DIGIT, D, B, nc, 0x9), \
    MINTID__REP16(MINTID__NO_DIGIT, D, B, nc, 0xa), MINTID__REP16(MINTID__NO_DIGIT, D, B, nc, 0xb), \
    MINTID__REP16(MINTID__NO_DIGIT, D, B, nc, 0xc), MINTID__REP16(MINTID__NO_DIGIT, D, B, nc, 0xd), \
    MINTID__REP16(MINTID__NO_DIGIT, D, B, nc, 0xe), MINTID__REP16(MINTID__NO_DIGIT, D, B, nc, 0xf)}
#define MINTID__PAIR(v, D, B, nc) {(D)[(v) / B % B], (D)[(v) % B]}
/* clang-format on */

/* The value of character c in alphabet a; 0xff if it is not a digit. */
static inline uint8_t mintid__digit_value(const mintid__alphabet *a, unsigned char c) { return a->values[c]; }

/*
 * Base-N text of a 64-bit value, most significant digit first. Inline, so
 * that each caller's constant base turns the divisions into multiplications:
 * encoding is on the hot path of every interface.
 */
static inline int mintid__u64_to_base(uint64_t v, const mintid__alphabet *a, unsigned base, unsigned min_digits,
                                      char *buf, size_t cap) {
    char tmp[64];
    char *p = tmp + sizeof tmp; /* the digits are written backwards, ending here */
    /*
     * Two digits per division, from the alphabet's pair table. The value is
     * cut from its low end into chunks of `pairs` digit pairs that fit in 32
     * bits (base^8 for base 10, base^6 up to base 40, base^4 above), whose
     * digits come from 32-bit divisions; the chunks' own chains run side by
     * side rather than as one long chain of 64-bit divisions. With the
     * caller's constant base, every divisor here is a constant.
     */
    const uint32_t b2 = base * base;
    const unsigned pairs = base <= 10 ? 4 : base <= 40 ? 3 : 2;
    const uint32_t chunk = pairs == 4 ? b2 * b2 * b2 * b2 : pairs == 3 ? b2 * b2 * b2 : b2 * b2;
    while (v >= chunk) {
        uint32_t lo = (uint32_t)(v % chunk);
        v /= chunk;
        for (unsigned i = 0; i < pairs; i++) {
            p -= 2;
            __builtin_memcpy(p, a->pairs[lo % b2], 2);
            lo /= b2;
        }
    }
    /* Below one chunk: below 2^32. */
    uint32_t w = (uint32_t)v;
    while (w >= b2) {
        p -= 2;
        __builtin_memcpy(p, a->pairs[w % b2], 2);
        w /= b2;
    }
    *--p = a->digits[w % base];
    if (w >= base)
        *--p = a->digits[w / base];
    while (p > tmp + sizeof tmp - min_digits)
        *--p = a->digits[0];
    size_t n = (size_t)(tmp + sizeof tmp - p);
    if (cap < n + 1)
        return MINTID_EBUFSIZE;
    __builtin_memcpy(buf, p, n);
    buf[n] = '\0';
    return (int)n;
}
/* Parses len base-N digits into *v; MINTID_ECHAR or MINTID_EOVERFLOW (> 2^64-1). */
int mintid__base_to_u64(const char *s, size_t len, const mintid__alphabet *a, unsigned base, uint64_t *v);
/* Writes the decimal text of an unsigned big-endian number of n bytes. */
int mintid__bytes_to_decimal(const uint8_t *be, size_t n, char *buf, size_t cap);
/*
 * Base-N text of a big-endian number of n bytes (n <= 20) in exactly
 * `ndigits` digits, leading zeros included, with the NUL (buf holds
 * ndigits + 1). The caller makes sure ndigits is enough.
 */
void mintid__bytes_to_base(const uint8_t *be, size_t n, const mintid__alphabet *a, unsigned base, unsigned ndigits,
                           char *buf);
/* Parses len base-N digits into n big-endian bytes: MINTID_ECHAR, or MINTID_EOVERFLOW past 2^(8n) - 1. */
int mintid__base_to_bytes(const char *s, size_t len, const mintid__alphabet *a, unsigned base, uint8_t *be, size_t n);
/*
 * Base 32 of a 128-bit ID in 26 digits, five bits each, the first carrying
 * the top 3 bits (ulid, typeid): the text codec of both, given the
 * alphabet. The encoder returns 26, or MINTID_EBUFSIZE when out cannot
 * hold 27 bytes. The decoder checks length and characters, gives
 * MINTID_EOVERFLOW when the first digit is above 7, and writes *out only
 * on success.
 */
int mintid__b32_128_encode(const mintid_id *id, const mintid__alphabet *a, char *out, size_t cap);
int mintid__b32_128_decode(const char *s, size_t len, const mintid__alphabet *a, mintid_id *out);

/* ---- formats (format.c and one file per format in formats/) ------------- */

/*
 * The per-millisecond sequence rule of a format, used by the generator.
 * begin() gives the sequence of the first ID in a new millisecond; step()
 * gives the next one within the same millisecond or returns
 * MINTID_EEXHAUSTED. Both work on a copy of the state, so a failed call
 * leaves the generator unchanged.
 */
typedef struct mintid__seq_state {
    uint64_t seq;    /* the sequence field of the last ID */
    uint64_t random; /* the millisecond's random field, where it is per millisecond */
    uint64_t aux;    /* what else a format's own generator keeps (scru128's counter_hi time) */
} mintid__seq_state;

struct mintid__format_impl;
struct mintid__core;
typedef int (*mintid__seq_fn)(const struct mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                              mintid__seq_state *st);

/*
 * The random bytes the pure core draws from: a pool (mintid_pool) its
 * caller fills. The core never fills it and calls no random source: an ID
 * that needs more bytes than are left gets MINTID_ERANDOM, its state as it
 * was, and the caller refills the pool (mintid_pool_refill: the bytes not
 * yet drawn are kept in front, so the bytes IDs get are the same however
 * the refills fall) and asks again.
 */

/*
 * Draws len random bytes from the pool. Inline, so that the formats' small
 * constant draws (4 or 10 bytes) are a few moves.
 */
static inline int mintid__gen_random(mintid_pool *rng, void *buf, size_t len) {
    if (__builtin_expect(MINTID_POOL_BYTES - rng->pos >= len, 1)) {
        __builtin_memcpy(buf, rng->buf + rng->pos, len);
        rng->pos += len;
        return MINTID_OK;
    }
    return MINTID_ERANDOM;
}
/* A uniformly random value of `bits` bits (bits <= 64). */
int mintid__gen_random_bits(mintid_pool *rng, unsigned bits, uint64_t *out);

/*
 * A format's layout as the generator's hot path needs it: where each part
 * goes in a 64-bit value, the constant bits, and which per-ID parts it has.
 * Worked out at compile time from the format's field list by MINTID__PLAN,
 * so it is constant data like the field table made from the same list.
 */
typedef struct mintid__plan {
    uint64_t base;    /* the constant fields, in place (64-bit formats) */
    uint8_t ts_shift; /* shifts of the parts in a 64-bit value (0 where absent: the part is 0) */
    uint8_t seq_shift;
    uint8_t node_shift;
    uint8_t random_shift;
    uint8_t random_bits; /* width of the per-ID random field; 0: none */
    bool has_node;
    bool has_random80;
} mintid__plan;

/*
 * A format's fields are written once, as a list FIELDS(X, a) of
 * X(a, name, offset, width, role, flags, constant), one per field. The
 * mintid_field table is {FIELDS(MINTID__FIELD, 0)}; the plan,
 * MINTID__PLAN(FIELDS, bits) with the format's bit width, joins each
 * member's term over the fields (with +, | or ||): the term is 0 but for
 * the field of the member's role. test_early checks every plan against the
 * one the published field table and width give at run time.
 */
#define MINTID__FIELD(a, name, offset, width, role, flags, constant) {name, offset, width, role, flags, constant},
#define MINTID__SHIFT(bits, offset, width) ((bits) == 64 ? 64 - (offset) - (width) : 0)
/* clang-format off */
#define MINTID__PLAN_BASE(bits, n, o, w, role, fl, k) \
    | ((role) == MINTID_ROLE_CONSTANT && (bits) == 64 ? (uint64_t)(k) << MINTID__SHIFT(bits, o, w) : 0)
#define MINTID__PLAN_TS(bits, n, o, w, role, fl, k) + ((role) == MINTID_ROLE_TIMESTAMP ? MINTID__SHIFT(bits, o, w) : 0)
#define MINTID__PLAN_SEQ(bits, n, o, w, role, fl, k) + ((role) == MINTID_ROLE_SEQUENCE ? MINTID__SHIFT(bits, o, w) : 0)
#define MINTID__PLAN_NODE(bits, n, o, w, role, fl, k) + ((role) == MINTID_ROLE_NODE ? MINTID__SHIFT(bits, o, w) : 0)
#define MINTID__PLAN_RANDOM(bits, n, o, w, role, fl, k) + ((role) == MINTID_ROLE_RANDOM ? MINTID__SHIFT(bits, o, w) : 0)
#define MINTID__PLAN_RANDOM_BITS(bits, n, o, w, role, fl, k) + ((role) == MINTID_ROLE_RANDOM ? (w) : 0)
#define MINTID__PLAN_HAS_NODE(bits, n, o, w, role, fl, k) || (role) == MINTID_ROLE_NODE
#define MINTID__PLAN_HAS_RANDOM80(bits, n, o, w, role, fl, k) || (role) == MINTID_ROLE_RANDOM80
#define MINTID__PLAN(FIELDS, bits) {                                                                                   \
        .base = 0 FIELDS(MINTID__PLAN_BASE, bits),                                                                     \
        .ts_shift = 0 FIELDS(MINTID__PLAN_TS, bits),                                                                   \
        .seq_shift = 0 FIELDS(MINTID__PLAN_SEQ, bits),                                                                 \
        .node_shift = 0 FIELDS(MINTID__PLAN_NODE, bits),                                                               \
        .random_shift = 0 FIELDS(MINTID__PLAN_RANDOM, bits),                                                           \
        .random_bits = 0 FIELDS(MINTID__PLAN_RANDOM_BITS, bits),                                                       \
        .has_node = 0 FIELDS(MINTID__PLAN_HAS_NODE, bits),                                                             \
        .has_random80 = 0 FIELDS(MINTID__PLAN_HAS_RANDOM80, bits),                                                     \
    }
/* clang-format on */

/* Everything about a format: the public description plus its behaviour. */
typedef struct mintid__format_impl {
    mintid_format pub;
    uint64_t timestamp_min;                /* smallest timestamp a generator may issue */
    uint64_t timestamp_max;                /* largest timestamp a generator may issue */
    uint64_t seq_init;                     /* sequence state before the first ID */
    mintid__form forms[MINTID_FORM_COUNT]; /* by mintid_form; codec NULL where the form is absent */
    /* Order in which MINTID_FORM_ANY tries forms; MINTID_FORM_ANY ends it. */
    mintid_form any_order[MINTID_FORM_COUNT + 1];
    int (*check)(const mintid_format *fmt, const mintid_id *id); /* NULL: always valid */
    uint8_t seq_width;                                           /* width of the sequence field */
    /* 1 if the random field sits above the sequence: it is then drawn once
     * per millisecond, so that IDs within the millisecond still increase. */
    uint8_t random_per_ms;
    mintid__seq_fn seq_begin;
    mintid__seq_fn seq_step;
    /*
     * A format whose generator does not fit the field rules above writes
     * the next ID itself, with the contract of mintid__core_next(). NULL:
     * the rules above.
     */
    int (*next)(const struct mintid__format_impl *f, const mintid_config *cfg, struct mintid__core *core, int64_t rel,
                mintid_pool *rng, mintid_id *out);
    /* Whether the ID carries a time (typeid: only UUIDv7 suffixes do). NULL: always. */
    bool (*has_time)(const mintid_id *id);
    /* 1 if decoders accept any value of the constant fields (typeid decodes
     * every UUID; its generator still writes the constants). */
    uint8_t constants_advisory;
    /* 1 if decoders refuse what mintid_id_check() refuses (MINTID_EINVALID):
     * a UUID of another version is no uuidv7 at all. */
    uint8_t decode_checks;
    /* Type prefixes (pub.prefix_max > 0): the separator before the suffix,
     * and the check of a prefix of 1..prefix_max bytes. */
    char prefix_sep;
    int (*prefix_check)(const char *prefix, size_t len);
    mintid__plan plan; /* MINTID__PLAN of the format's fields */
} mintid__format_impl;

extern const mintid__format_impl mintid__uexky;
extern const mintid__format_impl mintid__scru160;
extern const mintid__format_impl mintid__ulid_flake;
extern const mintid__format_impl mintid__ulid_flake_scalable;
extern const mintid__format_impl mintid__caloriosa;
extern const mintid__format_impl mintid__nanoflake;
extern const mintid__format_impl mintid__uuidv7;
extern const mintid__format_impl mintid__ulid;
extern const mintid__format_impl mintid__scru128;
extern const mintid__format_impl mintid__snowflake;
extern const mintid__format_impl mintid__sonyflake;
extern const mintid__format_impl mintid__ksuid;
extern const mintid__format_impl mintid__typeid;

/* The impl behind a public format pointer (they are the same object). */
static inline const mintid__format_impl *mintid__impl(const mintid_format *fmt) {
    return (const mintid__format_impl *)(const void *)fmt;
}

/*
 * The generator's pure core: the state of one generator, and the next ID's
 * fields from it, a time and a random source, with no clock, lock or wait
 * inside. The thread-safe generator (generator.c) wraps it; so can any
 * caller that keeps the state itself (a server's event loop, shared memory).
 */
typedef struct mintid__core {
    bool started;         /* false until the first ID */
    uint64_t last_ts;     /* timestamp field of the last ID */
    mintid__seq_state st; /* sequence (and per-ms random) of the last ID */
    int64_t floor;        /* no ID in a unit before this one (INT64_MIN: none): a host-wide
                             state's after a holder died, or when it is new or moved to */
} mintid__core;
/* The public mintid_core holds one. */
_Static_assert(sizeof(mintid__core) <= sizeof(mintid_core), "mintid_core is too small for the core's state");
_Static_assert(_Alignof(mintid__core) <= _Alignof(mintid_core), "mintid_core is aligned too loosely");

void mintid__core_init(const mintid__format_impl *f, mintid__core *core);
/* What a configuration must be for the core: node, epoch, policies, entropy size, ids per reading (core.c). */
int mintid__check_config(const mintid__format_impl *f, const mintid_config *cfg);
/*
 * The driver of every generator (core.c): the core at rel, into out or (64-bit
 * formats, value not NULL) a value, the pool refilled when it runs short;
 * where it cannot mint at rel (MINTID_EEXHAUSTED, MINTID_ECLOCKBACK), the
 * earliest unit at which it can in *retry.
 */
int mintid__core_drive(const mintid__format_impl *f, const mintid_config *cfg, mintid__core *core, int64_t rel,
                       mintid_pool *rng, mintid_id *out, uint64_t *value, int64_t *retry);

/*
 * The ID after core's last one, at `rel` timestamp units (ms, but for
 * sonyflake and ksuid) after the epoch, drawing from rng. MINTID_OK: *out
 * is written and the state advanced. Else
 * the state is unchanged: MINTID_EEXHAUSTED (the last millisecond is used
 * up: call again with a later rel), MINTID_ECLOCKBACK (rel is before the
 * last ID's millisecond and the rollback policy is not reuse), MINTID_ETIME
 * (rel out of the format's range), or MINTID_ERANDOM (the pool holds
 * too few random bytes). No clock, lock or random source is inside: the
 * time is rel and the randomness the pool's bytes.
 */
int mintid__core_next(const mintid__format_impl *f, const mintid_config *cfg, mintid__core *core, int64_t rel,
                      mintid_pool *rng, mintid_id *out);

/*
 * Where `rel` stands against core's last ID: a later unit, the same one
 * (or behind it, absorbed by the reuse policy within the format's
 * allowance), or MINTID_ECLOCKBACK.
 */
enum { MINTID__TICK_NEW = 1, MINTID__TICK_SAME = 2 };
static inline int mintid__core_tick(const mintid__format_impl *f, const mintid_config *cfg, const mintid__core *core,
                                    int64_t rel) {
    int tick;
    if (!core->started || rel > (int64_t)core->last_ts) {
        tick = MINTID__TICK_NEW;
    } else if (rel == (int64_t)core->last_ts) {
        tick = MINTID__TICK_SAME;
    } else {
        if (cfg->rollback != MINTID_ROLLBACK_REUSE)
            return MINTID_ECLOCKBACK;
        uint64_t behind = (uint64_t)((int64_t)core->last_ts - rel);
        if (f->pub.rollback_allowance_ms != 0 && behind > f->pub.rollback_allowance_ms / f->pub.ts_unit_ms)
            return MINTID_ECLOCKBACK;
        tick = MINTID__TICK_SAME;
    }
    /* Below the floor, the unit the ID would carry is as good as used up. */
    if ((tick == MINTID__TICK_NEW ? rel : (int64_t)core->last_ts) < core->floor)
        return MINTID_EEXHAUSTED;
    return tick;
}

/* No ID from now on in a unit before `unit`; a floor only ever rises. */
static inline void mintid__core_raise_floor(mintid__core *core, int64_t unit) {
    if (unit > core->floor)
        core->floor = unit;
}

/* The earliest unit in which the core can mint again after MINTID_EEXHAUSTED. */
static inline int64_t mintid__core_next_unit(const mintid__core *core) {
    int64_t after = core->started ? (int64_t)core->last_ts + 1 : INT64_MIN;
    return after > core->floor ? after : core->floor;
}

/*
 * The timestamp of the unit the next ID opens: rel, for a later unit (tick
 * MINTID__TICK_NEW); else the unit after the last ID's, when its counter is
 * used up and the ID runs ahead of the clock. MINTID_OK, or MINTID_ETIME
 * outside the format's timestamps.
 */
static inline int mintid__core_open_unit(const mintid__format_impl *f, const mintid__core *core, int tick, int64_t rel,
                                         uint64_t *ts) {
    if (tick == MINTID__TICK_NEW) {
        if (rel < (int64_t)f->timestamp_min || rel > (int64_t)f->timestamp_max)
            return MINTID_ETIME;
        *ts = (uint64_t)rel;
    } else {
        if (core->last_ts >= f->timestamp_max)
            return MINTID_ETIME;
        *ts = core->last_ts + 1;
    }
    return MINTID_OK;
}

/* a / b rounded down (b > 0): the unit a time before 1970 or an epoch falls in. */
static inline int64_t mintid__floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/* Big-endian loads and stores of up to eight bytes; eight and four (with
 * the caller's constant count) are one load or store each. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MINTID__BE64(v) __builtin_bswap64(v)
#define MINTID__BE32(v) __builtin_bswap32(v)
#else
#define MINTID__BE64(v) (v)
#define MINTID__BE32(v) (v)
#endif
static inline void mintid__put_be(uint8_t *b, unsigned nbytes, uint64_t v) {
    if (nbytes == 8) {
        v = MINTID__BE64(v);
        __builtin_memcpy(b, &v, 8);
        return;
    }
    for (unsigned i = nbytes; i-- > 0; v >>= 8)
        b[i] = (uint8_t)v;
}
static inline uint64_t mintid__get_be(const uint8_t *b, unsigned nbytes) {
    if (nbytes == 8) {
        uint64_t v;
        __builtin_memcpy(&v, b, 8);
        return MINTID__BE64(v);
    }
    if (nbytes == 4) {
        uint32_t v;
        __builtin_memcpy(&v, b, 4);
        return MINTID__BE32(v);
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < nbytes; i++)
        v = v << 8 | b[i];
    return v;
}

/* The shared UUIDv7 generator (uuidv7, typeid). */
int mintid__uuidv7_next(const mintid__format_impl *f, const mintid_config *cfg, mintid__core *core, int64_t rel,
                        mintid_pool *rng, mintid_id *out);

/* The field of `width` <= 64 bits at bit `off` of a big-endian byte string. */
uint64_t mintid__get_bits(const uint8_t *b, unsigned off, unsigned width);
/* Any field, right-aligned into nbytes big-endian bytes (nbytes * 8 >= width). */
void mintid__get_wide(const uint8_t *b, unsigned off, unsigned width, uint8_t *out, size_t nbytes);

/* Fast packing from parts whose fields are known to fit (the generator's). */
static inline uint64_t mintid__pack_u64(const mintid_format *fmt, const mintid_parts *p) {
    const mintid__plan *pl = &mintid__impl(fmt)->plan;
    return pl->base | p->timestamp << pl->ts_shift | p->sequence << pl->seq_shift | p->node << pl->node_shift |
           p->random << pl->random_shift;
}
void mintid__pack(const mintid_format *fmt, const mintid_parts *p, mintid_id *out);

/* Shared sequence rules (format.c). */
int mintid__seq_begin_zero(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                           mintid__seq_state *st);
/* +1 per ID; runs out past the field's maximum (nanoflake, scru160). */
int mintid__seq_step_one(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                         mintid__seq_state *st);
/* A new millisecond continues the counter, wrapping around its field (uexky, caloriosa). */
int mintid__seq_begin_next(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                           mintid__seq_state *st);

/* ---- the host-wide state (host.c) ---------------------------------------- */

/* Whether `space` is 1..MINTID_ID_SPACE_MAX letters, digits, '.', '_' and '-' (env.c). */
bool mintid__id_space_valid(const char *space);

/*
 * A host-wide generator's view of its shared state: opened for a format and
 * its parameters, locked around every use. The core and the last value it
 * hands out are valid only while it is locked (a lock may move it to the
 * path's new state, see host.c).
 */
struct mintid__host;
int mintid__host_open(const mintid__format_impl *f, const mintid_config *cfg, const char *dir, const char *space,
                      bool try_lock, struct mintid__host **out);
void mintid__host_close(struct mintid__host *h);
/*
 * MINTID_OK with the current state locked (moved to the path's, if the
 * one held was replaced), or an error (MINTID_EHOST with errno,
 * MINTID_EHOSTSTATE, MINTID_ETIMEDOUT: a holder that does not let go;
 * MINTID_EBUSY: held, for a generator that never waits) with nothing
 * locked.
 */
int mintid__host_lock(struct mintid__host *h);
/*
 * With the lock held, before minting at the clock's `now_ms`: looks at the
 * path again when MINTID_HOST_CHECK_MS have passed since the last look (or
 * the clock went back), and moves to the path's state if it is another.
 * On success the current state is locked (perhaps a new one: the caller
 * reads core and last value again), and [*quiet_from, *quiet_until) is the
 * span of now_ms in which the next call would not look (empty unless the
 * generator reads the system clock); on error the one held still is.
 */
int mintid__host_check(struct mintid__host *h, int64_t now_ms, int64_t *quiet_from, int64_t *quiet_until);
void mintid__host_unlock(struct mintid__host *h);
mintid__core *mintid__host_core(struct mintid__host *h);
uint64_t *mintid__host_last_value(struct mintid__host *h);
const char *mintid__host_path(const struct mintid__host *h);
/* With the lock held: the state's durable mark (Unix ms), no ID past which is issued. */
int64_t *mintid__host_mark(struct mintid__host *h);
/* The thread the state's lock word names as holder (0: none), read as a debugger would: for tests. */
unsigned mintid__host_lock_owner(const struct mintid__host *h);
/* With the lock held: the state's warrant's holder (a pid), 0 while there is none. */
const int64_t *mintid__host_warrant_holder(struct mintid__host *h);
/*
 * With the lock held, before an ID carrying Unix ms `unix_ms` (the end of
 * its unit) is handed out: the mark raised past it, MINTID_HOST_MARK_AHEAD_MS
 * ahead, and on disk. MINTID_EHOST (errno) if it cannot be written: no ID
 * past the old mark then.
 */
int mintid__host_cover(struct mintid__host *h, int64_t unix_ms);
/* With the lock held: sets (w) or withdraws (NULL) this process's warrant on the state; see mintid_gen_warrant(). */
int mintid__host_warrant(struct mintid__host *h, mintid_warrant *w);
/*
 * With the lock held, before an ID whose unit ends at Unix ms end_ms is
 * handed out: MINTID_OK, or MINTID_EWARRANT (mintid_host_why() says why)
 * when the state's warrant forbids it to this process.
 */
int mintid__host_warrant_check(struct mintid__host *h, int64_t end_ms);
/*
 * With the lock held: whether a live warrant of another process's has a
 * ceiling below end_ms (which it then records as asked for): the caller
 * may wait for the holder to move its mark.
 */
bool mintid__host_warrant_ahead(struct mintid__host *h, int64_t end_ms);
/* With the lock held: whether another process's warrant (not lapsed) binds this generator. */
bool mintid__host_under_warrant(const struct mintid__host *h);
/* This generator mints under the warrant of `pid` (its own process's): set before the lock is taken. */
void mintid__host_set_holder(struct mintid__host *h, int64_t pid);
/* As mintid__host_lock(), waiting for the lock even for a try_lock generator (a warrant lapsed must not fail). */
int mintid__host_lock_waiting(struct mintid__host *h);
/* Node host: the generator mints only under a live warrant. */
void mintid__host_need_warrant(struct mintid__host *h);
/* The node file of (dir, space): writes it whole; reads fmt's node id and epoch (MINTID_EWARRANT: none published). */
int mintid__host_publish(const char *dir, const char *space, int64_t pid, const mintid_host_node *nodes, size_t n);
int mintid__host_lookup(const mintid_format *fmt, const char *dir, const char *space, int64_t *node, int64_t *epoch_ms);
/* Sets the calling thread's mintid_host_why() (printf-like). */
void mintid__host_why(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Writes one sentence for people into why (NUL-terminated, cut to cap; why may be NULL) and returns status (status.c).
 */
int mintid__say(char *why, size_t cap, int status, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The host-wide state the calling thread last tried to open ("" if none): for mintid_gen_why(). */
const char *mintid__host_tried(void);
/*
 * One sentence for people on why the calling thread's last opening of a
 * generator was refused with MINTID_EINVAL (a region's arguments), or ""
 * if it was not: for mintid_gen_why(). Every opening clears it first
 * (generator.c); mintid__gen_refuse() sets it (printf-like) and returns
 * MINTID_EINVAL.
 */
int mintid__gen_refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *mintid__gen_refused(void);

/* ---- clock and entropy (clock.c, entropy.c) ------------------------------ */

/* CLOCK_MONOTONIC in ns: wait limits are measured on it, never on the ID clock. */
uint64_t mintid__monotonic_ns(void);
/* Sleeps for ns nanoseconds (restarting after signals). */
void mintid__sleep_ns(uint64_t ns);
/* Sleeps until the real-time clock reaches Unix ms `unix_ms`, or for at most max_ns. */
void mintid__sleep_until_ms(int64_t unix_ms, uint64_t max_ns);

/* Fills buf straight from getrandom(), retrying on EINTR and short reads. */
int mintid__getrandom(void *buf, size_t len);
/*
 * Fills buf from libcrypto's CTR-DRBG (seeded from the kernel, reseeded by
 * libcrypto after fork), for the generators' pools: in blocks of 4 KiB it
 * costs a third of getrandom() per byte (bench/README.md). In a forked
 * child, straight from getrandom(): libcrypto's locks may be held there by
 * a thread the child does not have.
 */
int mintid__random_bytes(void *buf, size_t len);
/*
 * A counter bumped in every child process after fork(). An object records it
 * when created; a different value later means it was inherited by a child.
 */
uint64_t mintid__fork_generation(void);

#endif /* MINTID_INTERNAL_H */
