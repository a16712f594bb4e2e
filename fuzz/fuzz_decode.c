/* SPDX-License-Identifier: MIT */
/*
 * fuzz_decode.c - libFuzzer target for mintid_decode() and
 * mintid_decode_prefixed(): every format, every form, MINTID_FORM_ANY, and
 * form numbers that no format has; and, for what they decode, the encoders,
 * mintid_id_to_json() and mintid_explain().
 *
 * Input: two selector bytes, then the text. The first byte picks the format
 * (modulo MINTID_FORMAT_COUNT, so every value of it is some format); the
 * second picks the form, modulo FORM_CODES: 0 is MINTID_FORM_ANY, 1 to 6
 * are MINTID_FORM_TEXT to MINTID_FORM_UUID, 7 and 8 the out-of-range forms
 * MINTID_FORM_COUNT and -2. So "\x0c\x01" selects typeid's text form,
 * "\x06\x03" uuidv7's hex form.
 *
 * The text is handed over as libFuzzer gives it, without a NUL, so a decoder
 * that reads one byte too far trips AddressSanitizer.
 *
 * Every property is checked against a small reference decoder written from
 * the format pages (docs/formats) alone, so a decoder that wrongly
 * rejects a text is caught as well as one that accepts too much:
 * - the status is the reference's (length, then characters, then value,
 *   then, for uuidv7, whose decoders refuse other UUIDs, validity), and a
 *   failed decode leaves the output alone;
 * - a decoded ID is the reference's value, mintid_id_check() agrees with
 *   the spec, and every form encodes it canonically and decodes back;
 * - the form it was read in encodes it to the canonical spelling of the
 *   input (the same text up to letter case where the form ignores case,
 *   leading zeros and UUID spellings normalised);
 * - typeid: a text with a `_` is a prefix and a suffix; a prefix matching
 *   ^[a-z]([a-z_]{0,61}[a-z])?$ decodes exactly when the suffix does, and
 *   comes back from mintid_decode_prefixed() and mintid_encode_prefixed();
 *   any other prefix is MINTID_EPREFIX; mintid_prefix_check() is that regex;
 * - mintid_id_to_json() fits MINTID_JSON_MAX, honours its buffer size, and
 *   reports the canonical text, the hex and the spec's unix_ms;
 * - mintid_explain() of a failure reads only the len bytes it is given,
 *   fits its 512 bytes, and is true: the character it blames is one that
 *   every form of the text's length refuses there, the lengths it lists
 *   include each form's, and the maximum it names is the format's.
 * A violated property abort()s, which libFuzzer reports and minimises like
 * a crash.
 */
#include "fuzz.h"
#include "mintid.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reference: the two spec files, one row per format and form ------- */

/*
 * A text form as the specs describe it. digits are in canonical case; a form
 * that folds case accepts either case of a letter. Texts of min_len to
 * max_len characters are accepted; where the two differ the canonical text
 * has no leading zero digit beyond min_len digits. rotate is uexky's "last
 * two characters moved to the front". strict refuses a leading zero with
 * MINTID_ECHAR (mintid.h: "a decimal integer never has a leading zero").
 * uuid is the RFC 9562 string (docs/formats/uuidv7.md): 32 hex
 * digits, bare or as 8-4-4-4-12, the latter also in braces or after
 * "urn:uuid:" (in either case); its canonical spelling is the 36-character
 * one, lower case, which min_len and max_len give.
 */
typedef struct form_spec {
    const char *digits; /* NULL: the spec gives the format no such form */
    bool fold;
    uint8_t min_len;
    uint8_t max_len;
    bool rotate;
    bool strict;
    bool uuid;
} form_spec;

static const char DEC[] = "0123456789";
static const char HEX[] = "0123456789abcdef";
static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
static const char B32HEX[] = "0123456789ABCDEFGHIJKLMNOPQRSTUV";
static const char CROCKFORD[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
static const char CROCKFORD_LOWER[] = "0123456789abcdefghjkmnpqrstvwxyz";
static const char B62[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
static const char B62CORE[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
static const char B36[] = "0123456789abcdefghijklmnopqrstuvwxyz";

/*
 * 20 decimal digits hold 2^64-1. The decimal formats' texts (snowflake,
 * sonyflake) have at most 19 digits below 2^63; twenty are read, and are
 * then too large.
 */
#define INT_FORM                                                                                                       \
    { DEC, false, 1, 20, false, true, false }
#define HEX64_FORM                                                                                                     \
    { HEX, true, 16, 16, false, false, false }
#define HEX128_FORM                                                                                                    \
    { HEX, true, 32, 32, false, false, false }
#define HEX160_FORM                                                                                                    \
    { HEX, true, 40, 40, false, false, false }
#define UUID_FORM                                                                                                      \
    { HEX, true, 36, 36, false, false, true }

static const form_spec specs[MINTID_FORMAT_COUNT][MINTID_FORM_COUNT] = {
    [MINTID_UEXKY] = {[MINTID_FORM_TEXT] = {B64, false, 4, 10, true, false, false},
                      [MINTID_FORM_INT] = INT_FORM,
                      [MINTID_FORM_HEX] = HEX64_FORM},
    [MINTID_SCRU160] =
        {[MINTID_FORM_TEXT] = {B32HEX, true, 32, 32, false, false, false}, [MINTID_FORM_HEX] = HEX160_FORM},
    [MINTID_ULID_FLAKE] = {[MINTID_FORM_TEXT] = {CROCKFORD, true, 13, 13, false, false, false},
                           [MINTID_FORM_INT] = INT_FORM,
                           [MINTID_FORM_HEX] = HEX64_FORM},
    [MINTID_ULID_FLAKE_SCALABLE] = {[MINTID_FORM_TEXT] = {CROCKFORD, true, 13, 13, false, false, false},
                                    [MINTID_FORM_INT] = INT_FORM,
                                    [MINTID_FORM_HEX] = HEX64_FORM},
    [MINTID_CALORIOSA] = {[MINTID_FORM_TEXT] = {B62, false, 1, 11, false, false, false},
                          [MINTID_FORM_INT] = INT_FORM,
                          [MINTID_FORM_HEX] = HEX64_FORM,
                          [MINTID_FORM_CORE] = {B62CORE, false, 1, 11, false, false, false}},
    [MINTID_NANOFLAKE] = {[MINTID_FORM_TEXT] = {B36, true, 1, 13, false, false, false},
                          [MINTID_FORM_INT] = INT_FORM,
                          [MINTID_FORM_HEX] = HEX64_FORM,
                          [MINTID_FORM_PADDED] = {B36, true, 13, 13, false, false, false}},
    /* Its text is the UUID string in any of the four spellings; its hex the 32 digits. */
    [MINTID_UUIDV7] = {[MINTID_FORM_TEXT] = UUID_FORM, [MINTID_FORM_HEX] = HEX128_FORM},
    /* 26 Crockford digits, no aliases; the first at most 7 (130 bits hold 128). */
    [MINTID_ULID] = {[MINTID_FORM_TEXT] = {CROCKFORD, true, 26, 26, false, false, false},
                     [MINTID_FORM_HEX] = HEX128_FORM,
                     [MINTID_FORM_UUID] = UUID_FORM},
    [MINTID_SCRU128] = {[MINTID_FORM_TEXT] = {B36, true, 25, 25, false, false, false}, [MINTID_FORM_HEX] = HEX128_FORM},
    [MINTID_SNOWFLAKE] = {[MINTID_FORM_TEXT] = INT_FORM, [MINTID_FORM_INT] = INT_FORM, [MINTID_FORM_HEX] = HEX64_FORM},
    [MINTID_SONYFLAKE] = {[MINTID_FORM_TEXT] = INT_FORM, [MINTID_FORM_INT] = INT_FORM, [MINTID_FORM_HEX] = HEX64_FORM},
    /* 27 base-62 digits 0-9A-Za-z, case-sensitive, at most 2^160-1. */
    [MINTID_KSUID] =
        {[MINTID_FORM_TEXT] = {B62CORE, false, 27, 27, false, false, false}, [MINTID_FORM_HEX] = HEX160_FORM},
    /* The suffix: 26 lower-case Crockford digits only, the first at most 7. */
    [MINTID_TYPEID] = {[MINTID_FORM_TEXT] = {CROCKFORD_LOWER, false, 26, 26, false, false, false},
                       [MINTID_FORM_HEX] = HEX128_FORM,
                       [MINTID_FORM_UUID] = UUID_FORM},
};

/*
 * What the specs say of each format besides its forms: name, size,
 * typeid's prefix, and whether its decoders refuse what mintid_id_check()
 * refuses (uuidv7: "the Nil and Max UUIDs and UUIDs of other versions or
 * variants are valid UUIDs but not UUIDv7s, and --format uuidv7 rejects
 * them"; MINTID_EINVALID, after every other error).
 */
/* clang-format off */
static const struct {
    const char *name;
    unsigned bits;
    bool prefixed;
    bool checked;
} formats[MINTID_FORMAT_COUNT] = {
    [MINTID_UEXKY] = {"uexky", 64, false, false},
    [MINTID_SCRU160] = {"scru160", 160, false, false},
    [MINTID_ULID_FLAKE] = {"ulid-flake", 64, false, false},
    [MINTID_ULID_FLAKE_SCALABLE] = {"ulid-flake-scalable", 64, false, false},
    [MINTID_CALORIOSA] = {"caloriosa", 64, false, false},
    [MINTID_NANOFLAKE] = {"nanoflake", 64, false, false},
    [MINTID_UUIDV7] = {"uuidv7", 128, false, true},
    [MINTID_ULID] = {"ulid", 128, false, false},
    [MINTID_SCRU128] = {"scru128", 128, false, false},
    [MINTID_SNOWFLAKE] = {"snowflake", 64, false, false},
    [MINTID_SONYFLAKE] = {"sonyflake", 64, false, false},
    [MINTID_KSUID] = {"ksuid", 160, false, false},
    [MINTID_TYPEID] = {"typeid", 128, true, false},
};
/* clang-format on */

/* The largest value a decoder of a 64-bit format accepts. */
static uint64_t value_limit(mintid_format_id f) {
    switch (f) {
    case MINTID_UEXKY:
        return (UINT64_C(1) << 60) - 1;
    case MINTID_ULID_FLAKE:
    case MINTID_ULID_FLAKE_SCALABLE:
    case MINTID_NANOFLAKE:
    case MINTID_SNOWFLAKE:
    case MINTID_SONYFLAKE:
        return INT64_MAX;
    case MINTID_CALORIOSA:
    case MINTID_SCRU160:
    case MINTID_UUIDV7:
    case MINTID_ULID:
    case MINTID_SCRU128:
    case MINTID_KSUID:
    case MINTID_TYPEID:
    case MINTID_FORMAT_COUNT:
        break;
    }
    return UINT64_MAX;
}

/* The largest ID of a format: value_limit() for 64 bits, else every bit set. */
static mintid_id ref_max(mintid_format_id f) {
    mintid_id id;
    memset(&id, 0, sizeof id);
    if (formats[f].bits == 64) {
        uint64_t v = value_limit(f);
        for (int i = 7; i >= 0; i--, v >>= 8)
            id.bytes[i] = (uint8_t)v;
    } else {
        memset(id.bytes, 0xff, formats[f].bits / 8);
    }
    return id;
}

static unsigned char ascii_lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c; }

/* The value of one character, or -1 if the form has no such digit. */
static int digit_value(const form_spec *sp, unsigned char c) {
    for (int i = 0; sp->digits[i] != '\0'; i++) {
        unsigned char d = (unsigned char)sp->digits[i];
        if (d == c || (sp->fold && ascii_lower(d) == ascii_lower(c)))
            return i;
    }
    return -1;
}

/* The i-th digit of a text, most significant first, undoing uexky's rotation. */
static unsigned char nth_digit(const form_spec *sp, const char *s, size_t len, size_t i) {
    return (unsigned char)(sp->rotate ? s[(i + 2) % len] : s[i]);
}

/* ---- the UUID string ------------------------------------------------------ */

static const char URN[] = "urn:uuid:";
#define URN_LEN 9

/* Where the 36-character body of a UUID spelling starts, or -1 for a length that has none. */
static int uuid_body(size_t len) { return len == 36 ? 0 : len == 38 ? 1 : len == 36 + URN_LEN ? URN_LEN : -1; }

static bool is_hex(unsigned char c) {
    return (c >= '0' && c <= '9') || (ascii_lower(c) >= 'a' && ascii_lower(c) <= 'f');
}

/* Whether character i of a UUID spelling of len characters is one it may have there. */
static bool uuid_char_ok(const char *s, size_t len, size_t i) {
    unsigned char c = (unsigned char)s[i];
    if (len == 32)
        return is_hex(c);
    int body = uuid_body(len);
    if (body < 0)
        return false;
    if (len == 38 && (i == 0 || i == 37))
        return c == (i == 0 ? '{' : '}');
    if (len == 36 + URN_LEN && i < URN_LEN)
        return ascii_lower(c) == (unsigned char)URN[i];
    size_t k = i - (size_t)body;
    if (k == 8 || k == 13 || k == 18 || k == 23)
        return c == '-';
    return is_hex(c);
}

/* The 32 hex digits of an accepted UUID spelling, in order, into hex[32]. */
static void uuid_digits(const char *s, size_t len, char hex[32]) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (is_hex((unsigned char)s[i]) && (len == 32 || (int)i >= uuid_body(len)) && (len != 38 || i != 37))
            hex[n++] = (char)ascii_lower((unsigned char)s[i]);
    REQUIRE(n == 32);
}

static int ref_uuid(const char *s, size_t len, mintid_id *out) {
    if (len != 32 && uuid_body(len) < 0)
        return MINTID_ELENGTH;
    for (size_t i = 0; i < len; i++)
        if (!uuid_char_ok(s, len, i))
            return MINTID_ECHAR;
    char hex[32];
    uuid_digits(s, len, hex);
    mintid_id id;
    memset(&id, 0, sizeof id);
    for (int i = 0; i < 16; i++)
        id.bytes[i] = (uint8_t)((strchr(HEX, hex[2 * i]) - HEX) << 4 | (strchr(HEX, hex[2 * i + 1]) - HEX));
    *out = id;
    return MINTID_OK;
}

/* ---- the reference decoder ------------------------------------------------ */

/* 27 base-62 digits (ksuid) are 161 bits: the accumulator holds 192. */
#define ACC_BYTES 24

/*
 * Decodes as the specs say, into an accumulator that no accepted length can
 * overflow; the status precedence is the library's documented one: length,
 * then characters, then value.
 */
static int ref_value(const mintid_format *fmt, mintid_form form, const char *s, size_t len, mintid_id *out) {
    const form_spec *sp = &specs[fmt->id][form];
    if (sp->uuid)
        return ref_uuid(s, len, out);
    if (len < sp->min_len || len > sp->max_len)
        return MINTID_ELENGTH;
    for (size_t i = 0; i < len; i++)
        if (digit_value(sp, (unsigned char)s[i]) < 0)
            return MINTID_ECHAR;
    if (sp->strict && len > 1 && nth_digit(sp, s, len, 0) == (unsigned char)sp->digits[0])
        return MINTID_ECHAR;
    unsigned base = (unsigned)strlen(sp->digits);
    uint8_t acc[ACC_BYTES] = {0};
    for (size_t i = 0; i < len; i++) {
        unsigned carry = (unsigned)digit_value(sp, nth_digit(sp, s, len, i));
        for (size_t b = sizeof acc; b-- > 0;) {
            unsigned x = acc[b] * base + carry;
            acc[b] = (uint8_t)x;
            carry = x >> 8;
        }
        REQUIRE(carry == 0);
    }
    size_t nbytes = formats[fmt->id].bits / 8;
    for (size_t b = 0; b < sizeof acc - nbytes; b++)
        if (acc[b] != 0)
            return MINTID_EOVERFLOW;
    mintid_id id;
    memset(&id, 0, sizeof id);
    memcpy(id.bytes, acc + sizeof acc - nbytes, nbytes);
    if (nbytes == 8) {
        uint64_t v = 0;
        for (size_t b = 0; b < 8; b++)
            v = v << 8 | id.bytes[b];
        if (v > value_limit(fmt->id))
            return MINTID_EOVERFLOW;
    }
    *out = id;
    return MINTID_OK;
}

/*
 * The canonical spelling of a text ref_decode() accepts, into out (NUL
 * ended); returns its length: digits in canonical case, no leading zero
 * digit beyond the form's minimum, a UUID as lower-case 8-4-4-4-12.
 */
static size_t canonical_of(const mintid_format *fmt, mintid_form form, const char *s, size_t len,
                           char out[MINTID_TEXT_MAX]) {
    const form_spec *sp = &specs[fmt->id][form];
    REQUIRE(len < MINTID_TEXT_MAX);
    if (sp->uuid) {
        char hex[32];
        uuid_digits(s, len, hex);
        size_t n = 0;
        for (size_t i = 0; i < 32; i++) {
            if (i == 8 || i == 12 || i == 16 || i == 20)
                out[n++] = '-';
            out[n++] = hex[i];
        }
        out[n] = '\0';
        return n;
    }
    char d[MINTID_TEXT_MAX];
    for (size_t i = 0; i < len; i++)
        d[i] = sp->digits[digit_value(sp, nth_digit(sp, s, len, i))];
    size_t start = 0;
    if (sp->min_len != sp->max_len)
        while (len - start > sp->min_len && d[start] == sp->digits[0])
            start++;
    size_t m = len - start;
    for (size_t i = 0; i < m; i++)
        out[i] = sp->rotate ? d[start + (i + m - 2) % m] : d[start + i];
    out[m] = '\0';
    return m;
}

/*
 * The longest canonical text of a form: its max_len, but for a decimal
 * form, whose decoder reads 20 digits, the digits of the largest value.
 */
static unsigned canonical_max_len(mintid_format_id f, mintid_form form) {
    const form_spec *sp = &specs[f][form];
    if (!sp->strict)
        return sp->max_len;
    unsigned n = 1;
    for (uint64_t v = value_limit(f); v >= 10; v /= 10)
        n++;
    return n;
}

/* Whether a text is the one canonical spelling of its value in a form. */
static bool is_canonical(const mintid_format *fmt, mintid_form form, const char *s, size_t len) {
    mintid_id id;
    char canon[MINTID_TEXT_MAX];
    if (len >= MINTID_TEXT_MAX || ref_value(fmt, form, s, len, &id) != MINTID_OK)
        return false;
    return canonical_of(fmt, form, s, len, canon) == len && memcmp(canon, s, len) == 0;
}

/* Bits off..off+width-1 of an ID, counted from its most significant bit (width <= 64). */
static uint64_t id_bits(const mintid_id *id, unsigned off, unsigned width) {
    uint64_t v = 0;
    for (unsigned i = off; i < off + width; i++)
        v = v << 1 | ((id->bytes[i / 8] >> (7 - i % 8)) & 1u);
    return v;
}

/*
 * mintid_id_check() as the specs have it: caloriosa's prefix bit, scru160's
 * reserved timestamps, uuidv7's version and variant. typeid decodes any
 * UUID; scru128's reserved timestamps decode and are valid IDs.
 */
static bool ref_valid(const mintid_format *fmt, const mintid_id *id) {
    static const uint8_t zero[6], ones[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    switch (fmt->id) {
    case MINTID_CALORIOSA:
        return (id->bytes[0] & 0x80) != 0;
    case MINTID_SCRU160:
        return memcmp(id->bytes, zero, 6) != 0 && memcmp(id->bytes, ones, 6) != 0;
    case MINTID_UUIDV7:
        return id_bits(id, 48, 4) == 7 && id_bits(id, 64, 2) == 2;
    case MINTID_UEXKY:
    case MINTID_ULID_FLAKE:
    case MINTID_ULID_FLAKE_SCALABLE:
    case MINTID_NANOFLAKE:
    case MINTID_ULID:
    case MINTID_SCRU128:
    case MINTID_SNOWFLAKE:
    case MINTID_SONYFLAKE:
    case MINTID_KSUID:
    case MINTID_TYPEID:
    case MINTID_FORMAT_COUNT:
        break;
    }
    return true;
}

/* ref_value(), and then, for a format whose decoders check the ID, its validity. */
static int ref_decode(const mintid_format *fmt, mintid_form form, const char *s, size_t len, mintid_id *out) {
    mintid_id id;
    int rc = ref_value(fmt, form, s, len, &id);
    if (rc == MINTID_OK && formats[fmt->id].checked && !ref_valid(fmt, &id))
        return MINTID_EINVALID;
    if (rc == MINTID_OK)
        *out = id;
    return rc;
}

/*
 * The Unix ms an ID reports with its format's default epoch, or false if it
 * reports none (a typeid whose suffix is no UUIDv7). The seed formats
 * count whole ms from their epoch in their timestamp field; the standard
 * ones are spelt out as their pages have them.
 */
static bool ref_unix_ms(const mintid_format *fmt, const mintid_id *id, int64_t *ms) {
    switch (fmt->id) {
    case MINTID_UUIDV7:
    case MINTID_ULID:
    case MINTID_SCRU128:
        *ms = (int64_t)id_bits(id, 0, 48);
        return true;
    case MINTID_TYPEID:
        *ms = (int64_t)id_bits(id, 0, 48);
        return id_bits(id, 48, 4) == 7 && id_bits(id, 64, 2) == 2;
    case MINTID_SNOWFLAKE:
        *ms = 1288834974657LL + (int64_t)id_bits(id, 1, 41);
        return true;
    case MINTID_SONYFLAKE:
        *ms = (1409529600000LL / 10 + (int64_t)id_bits(id, 1, 39)) * 10;
        return true;
    case MINTID_KSUID:
        *ms = ((int64_t)id_bits(id, 0, 32) + 1400000000) * 1000;
        return true;
    case MINTID_UEXKY:
    case MINTID_SCRU160:
    case MINTID_ULID_FLAKE:
    case MINTID_ULID_FLAKE_SCALABLE:
    case MINTID_CALORIOSA:
    case MINTID_NANOFLAKE:
    case MINTID_FORMAT_COUNT:
        break;
    }
    const mintid_field *f = mintid_format_field(fmt, MINTID_ROLE_TIMESTAMP);
    REQUIRE(f != NULL);
    *ms = fmt->epoch_ms + (int64_t)id_bits(id, f->offset, f->width);
    return true;
}

/* typeid's prefix: ^[a-z]([a-z_]{0,61}[a-z])?$ (docs/formats/typeid.md), not empty. */
static bool ref_prefix_ok(const char *p, size_t len) {
    if (len < 1 || len > 63)
        return false;
    for (size_t i = 0; i < len; i++) {
        bool letter = p[i] >= 'a' && p[i] <= 'z';
        bool inner = i > 0 && i < len - 1;
        if (!letter && !(inner && p[i] == '_'))
            return false;
    }
    return true;
}

/* The last `_` of a text, where a typeid's prefix ends, or NULL. */
static const char *last_underscore(const char *s, size_t len) {
    for (size_t i = len; i-- > 0;)
        if (s[i] == '_')
            return s + i;
    return NULL;
}

/* ---- the properties -------------------------------------------------------- */

static bool has_form(const mintid_format *fmt, mintid_form form) {
    return (unsigned)form < MINTID_FORM_COUNT && (fmt->forms & MINTID_FORM_BIT(form)) != 0;
}

static bool contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

/*
 * mintid_id_to_json_prefixed() of a decoded ID: it fits MINTID_JSON_MAX and
 * exactly its own length, is printable ASCII, and opens with the format,
 * the canonical text (with its prefix) and the hex, and reports the spec's
 * unix_ms.
 */
static void check_json(const mintid_format *fmt, const mintid_id *id, const char *prefix, const char *text) {
    char *json = malloc(MINTID_JSON_MAX);
    REQUIRE(json != NULL);
    int n = mintid_id_to_json_prefixed(fmt, id, prefix, MINTID_EPOCH_DEFAULT, json, MINTID_JSON_MAX);
    REQUIRE(n > 0 && n < MINTID_JSON_MAX && strlen(json) == (size_t)n);
    for (int i = 0; i < n; i++)
        REQUIRE(json[i] >= 0x20 && json[i] < 0x7f);
    REQUIRE(json[n - 1] == '}');

    char *exact = malloc((size_t)n + 1);
    REQUIRE(exact != NULL);
    REQUIRE(mintid_id_to_json_prefixed(fmt, id, prefix, MINTID_EPOCH_DEFAULT, exact, (size_t)n + 1) == n);
    REQUIRE(memcmp(exact, json, (size_t)n + 1) == 0);
    REQUIRE(mintid_id_to_json_prefixed(fmt, id, prefix, MINTID_EPOCH_DEFAULT, exact, (size_t)n) == MINTID_EBUFSIZE);
    if (prefix == NULL || prefix[0] == '\0') {
        REQUIRE(mintid_id_to_json(fmt, id, MINTID_EPOCH_DEFAULT, exact, (size_t)n + 1) == n);
        REQUIRE(memcmp(exact, json, (size_t)n + 1) == 0);
    }
    free(exact);

    char want[MINTID_JSON_MAX];
    size_t w = (size_t)snprintf(want, sizeof want, "{\"format\":\"%s\",\"text\":\"%s\",\"hex\":\"",
                                formats[fmt->id].name, text);
    for (unsigned i = 0; i < formats[fmt->id].bits / 8; i++)
        w += (size_t)snprintf(want + w, sizeof want - w, "%c%c", HEX[id->bytes[i] >> 4], HEX[id->bytes[i] & 15]);
    snprintf(want + w, sizeof want - w, "\",");
    REQUIRE(strncmp(json, want, strlen(want)) == 0);

    if (formats[fmt->id].prefixed) {
        snprintf(want, sizeof want, ",\"prefix\":\"%s\",", prefix != NULL ? prefix : "");
        REQUIRE(contains(json, want));
    }
    int64_t ms;
    if (ref_unix_ms(fmt, id, &ms))
        snprintf(want, sizeof want, ",\"unix_ms\":%lld,\"time\":", (long long)ms);
    else
        snprintf(want, sizeof want, ",\"unix_ms\":null,\"time\":null");
    REQUIRE(contains(json, want));
    free(json);
}

/*
 * Encodes id in form and checks the result: canonical, decoding back to id
 * (in the library and in the reference), and the buffer size honoured. The
 * text is left in buf for the caller.
 */
static size_t check_encode(const mintid_format *fmt, mintid_form form, const mintid_id *id, char buf[MINTID_TEXT_MAX]) {
    int n = mintid_encode(fmt, form, id, buf, MINTID_TEXT_MAX);
    REQUIRE(n > 0 && n < MINTID_TEXT_MAX);
    size_t len = (size_t)n;
    REQUIRE(strlen(buf) == len);
    REQUIRE(is_canonical(fmt, form, buf, len));

    mintid_id back;
    REQUIRE(ref_decode(fmt, form, buf, len, &back) == MINTID_OK);
    REQUIRE(memcmp(&back, id, sizeof back) == 0);
    memset(&back, 0, sizeof back);
    REQUIRE(mintid_decode(fmt, form, buf, len, &back, NULL) == MINTID_OK);
    REQUIRE(memcmp(&back, id, sizeof back) == 0);

    /* Heap buffers of exact sizes, so a write past cap is caught. */
    char *exact = malloc(len + 1);
    REQUIRE(exact != NULL);
    REQUIRE(mintid_encode(fmt, form, id, exact, len + 1) == n);
    REQUIRE(memcmp(exact, buf, len + 1) == 0);
    REQUIRE(mintid_encode(fmt, form, id, exact, len) == MINTID_EBUFSIZE);
    free(exact);
    return len;
}

/*
 * Everything a successfully decoded ID must satisfy; form is the form it was
 * decoded in, text the input (typeid: its suffix) and prefix its prefix
 * ("" if none).
 */
static void check_decoded(const mintid_format *fmt, mintid_form form, const char *text, size_t len, const mintid_id *id,
                          const char *prefix) {
    mintid_id ref;
    REQUIRE(has_form(fmt, form));
    REQUIRE(ref_decode(fmt, form, text, len, &ref) == MINTID_OK);
    REQUIRE(memcmp(&ref, id, sizeof ref) == 0);
    REQUIRE((mintid_id_check(fmt, id) == MINTID_OK) == ref_valid(fmt, id));
    /* A ULID or TypeID is at most 2^128-1: its first digit is 7 or less. */
    if (form == MINTID_FORM_TEXT && (fmt->id == MINTID_ULID || fmt->id == MINTID_TYPEID))
        REQUIRE(text[0] >= '0' && text[0] <= '7');

    char buf[MINTID_TEXT_MAX], canon[MINTID_TEXT_MAX], text_form[MINTID_TEXT_MAX];
    size_t canon_len = canonical_of(fmt, form, text, len, canon);
    for (int g = 0; g < MINTID_FORM_COUNT; g++) {
        if (!has_form(fmt, (mintid_form)g)) {
            REQUIRE(mintid_encode(fmt, (mintid_form)g, id, buf, sizeof buf) == MINTID_EFORM);
            continue;
        }
        size_t n = check_encode(fmt, (mintid_form)g, id, buf);
        /* Decoding then encoding gives the input's canonical spelling. */
        if (g == (int)form)
            REQUIRE(n == canon_len && memcmp(buf, canon, n) == 0);
        if (g == MINTID_FORM_TEXT)
            memcpy(text_form, buf, n + 1);
    }

    /* A prefix is written before the text form alone, and only by typeid. */
    char full[MINTID_TEXT_MAX];
    int n = mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, id, prefix, full, sizeof full);
    if (prefix[0] == '\0') {
        REQUIRE(n > 0 && strcmp(full, text_form) == 0);
        REQUIRE(mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, id, NULL, full, sizeof full) == n);
        REQUIRE(strcmp(full, text_form) == 0);
    } else {
        REQUIRE(formats[fmt->id].prefixed);
        REQUIRE(n > 0 && (size_t)n == strlen(prefix) + 1 + strlen(text_form));
        REQUIRE(memcmp(full, prefix, strlen(prefix)) == 0 && full[strlen(prefix)] == '_');
        REQUIRE(strcmp(full + strlen(prefix) + 1, text_form) == 0);
        char *exact = malloc((size_t)n + 1);
        REQUIRE(exact != NULL);
        REQUIRE(mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, id, prefix, exact, (size_t)n + 1) == n);
        REQUIRE(mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, id, prefix, exact, (size_t)n) == MINTID_EBUFSIZE);
        free(exact);
    }
    n = mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, id, "abc", buf, sizeof buf);
    REQUIRE(formats[fmt->id].prefixed ? n == (int)strlen(text_form) + 4 : n == MINTID_EPREFIX);
    for (int g = 0; g < MINTID_FORM_COUNT; g++)
        if (g != MINTID_FORM_TEXT)
            REQUIRE(mintid_encode_prefixed(fmt, (mintid_form)g, id, "abc", buf, sizeof buf) == MINTID_EPREFIX);

    check_json(fmt, id, prefix, prefix[0] == '\0' ? text_form : full);
}

/* The public format table agrees with the specs. */
static void check_table(const mintid_format *fmt) {
    const form_spec *text = &specs[fmt->id][MINTID_FORM_TEXT];
    REQUIRE(fmt->name != NULL && strcmp(fmt->name, formats[fmt->id].name) == 0);
    REQUIRE(mintid_format_find(fmt->name) == fmt);
    REQUIRE(fmt->bits == formats[fmt->id].bits);
    REQUIRE(fmt->alphabet != NULL && strcmp(fmt->alphabet, text->digits) == 0);
    REQUIRE((fmt->text_nocase != 0) == text->fold);
    REQUIRE(fmt->bits != 64 || fmt->value_max == value_limit(fmt->id));
    REQUIRE(fmt->prefix_max == (formats[fmt->id].prefixed ? 63 : 0));
    /* The canonical text's lengths; typeid's may have a prefix of up to 63 and its `_`. */
    REQUIRE(fmt->text_min_len == text->min_len);
    REQUIRE(fmt->text_max_len == canonical_max_len(fmt->id, MINTID_FORM_TEXT) + (formats[fmt->id].prefixed ? 64 : 0));
    /* The library offers every form the specs describe, and no other. */
    for (int g = 0; g < MINTID_FORM_COUNT; g++)
        REQUIRE(has_form(fmt, (mintid_form)g) == (specs[fmt->id][g].digits != NULL));
    REQUIRE((mintid_decode_any_forms(fmt) & ~fmt->forms) == 0);
    REQUIRE((mintid_decode_any_forms(fmt) & MINTID_FORM_BIT(MINTID_FORM_TEXT)) != 0);
}

/* mintid_prefix_check() is the spec's regex for typeid, and takes only "" elsewhere. */
static void check_prefix_check(const mintid_format *fmt, const char *s, size_t len) {
    bool ok = len == 0 || (formats[fmt->id].prefixed && ref_prefix_ok(s, len));
    REQUIRE(mintid_prefix_check(fmt, s, len) == (ok ? MINTID_OK : MINTID_EPREFIX));
}

/*
 * MINTID_FORM_ANY tries the forms of mintid_decode_any_forms() in an order
 * this target does not know, and the first form whose length and alphabet
 * fit decides. So, whatever the order: a success is one of those forms'
 * readings; an overflow is some form's overflow; and when no form fits, the
 * error is one of theirs (which one is a matter of the most helpful
 * message, and left to the library).
 */
static void check_any(const mintid_format *fmt, const char *text, size_t len, int rc, mintid_form got,
                      const mintid_id *out) {
    unsigned any = mintid_decode_any_forms(fmt);
    bool some_ok = false, some_overflow = false, some_invalid = false, some_same = false;
    for (int g = 0; g < MINTID_FORM_COUNT; g++) {
        mintid_id ref;
        if ((any & MINTID_FORM_BIT(g)) == 0)
            continue;
        int ref_rc = ref_decode(fmt, (mintid_form)g, text, len, &ref);
        some_ok |= ref_rc == MINTID_OK;
        some_overflow |= ref_rc == MINTID_EOVERFLOW;
        some_invalid |= ref_rc == MINTID_EINVALID;
        some_same |= ref_rc == rc;
    }
    if (rc == MINTID_OK) {
        REQUIRE((any & MINTID_FORM_BIT(got)) != 0);
        check_decoded(fmt, got, text, len, out, "");
    } else if (rc == MINTID_EOVERFLOW) {
        REQUIRE(some_overflow);
    } else if (rc == MINTID_EINVALID) {
        REQUIRE(some_invalid);
    } else {
        REQUIRE(!some_ok && !some_overflow && !some_invalid && some_same);
    }
}

/*
 * A typeid text with a `_`, in the text form or MINTID_FORM_ANY: a prefix,
 * the separator and a suffix in the text form. A prefix matching the spec's
 * regex makes the result the suffix's; any other is MINTID_EPREFIX.
 */
static void check_prefixed(const mintid_format *fmt, const char *text, size_t len, const char *sep, int rc,
                           mintid_form got, const mintid_id *out, const char *prefix_out) {
    size_t plen = (size_t)(sep - text);
    const char *suffix = sep + 1;
    size_t slen = len - plen - 1;
    if (!ref_prefix_ok(text, plen)) {
        REQUIRE(rc == MINTID_EPREFIX);
        return;
    }
    mintid_id ref;
    REQUIRE(rc == ref_decode(fmt, MINTID_FORM_TEXT, suffix, slen, &ref));
    if (rc != MINTID_OK)
        return;
    REQUIRE(got == MINTID_FORM_TEXT);
    REQUIRE(strlen(prefix_out) == plen && memcmp(prefix_out, text, plen) == 0);
    check_decoded(fmt, MINTID_FORM_TEXT, suffix, slen, out, prefix_out);

    /* The suffix form is case-sensitive: the whole text comes back as it was. */
    char buf[MINTID_TEXT_MAX];
    int n = mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, out, prefix_out, buf, sizeof buf);
    REQUIRE(n > 0 && (size_t)n == len && memcmp(buf, text, len) == 0);
}

/* The number the digits at s spell (at most 18 of them are read); -1 if there are none. */
static long long read_number(const char *s) {
    long long v = 0;
    int n = 0;
    while (s[n] >= '0' && s[n] <= '9' && n < 18)
        v = v * 10 + (s[n++] - '0');
    return n == 0 ? -1 : v;
}

/* Whether a text names the number v as a whole (not within a longer one). */
static bool names_number(const char *s, unsigned v) {
    char want[16];
    int w = snprintf(want, sizeof want, "%u", v);
    for (const char *p = strstr(s, want); p != NULL; p = strstr(p + 1, want))
        if ((p == s || p[-1] < '0' || p[-1] > '9') && (p[w] < '0' || p[w] > '9'))
            return true;
    return false;
}

/*
 * mintid_explain() of a failed decode: bounded, printable, about this
 * format, and right about what it says. The echoed input is escaped and
 * holds no `'`, so the first `'` after it is the explanation's own.
 */
static void check_explain(const mintid_format *fmt, mintid_form form, const char *text, size_t len, int rc) {
    char msg[512];
    int n = mintid_explain(fmt, form, text, len, rc, msg, sizeof msg);
    REQUIRE(n > 0 && n < (int)sizeof msg && strlen(msg) == (size_t)n);
    for (int i = 0; i < n; i++)
        REQUIRE(msg[i] >= 0x20 && msg[i] < 0x7f);
    char head[64];
    snprintf(head, sizeof head, "%s: '", fmt->name);
    REQUIRE(strncmp(msg, head, strlen(head)) == 0);
    char *exact = malloc((size_t)n + 1);
    REQUIRE(exact != NULL);
    REQUIRE(mintid_explain(fmt, form, text, len, rc, exact, (size_t)n + 1) == n);
    REQUIRE(memcmp(exact, msg, (size_t)n + 1) == 0);
    REQUIRE(mintid_explain(fmt, form, text, len, rc, exact, (size_t)n) == MINTID_EBUFSIZE);
    free(exact);

    const char *after = strchr(msg + strlen(head), '\'');
    REQUIRE(after != NULL);
    /* The text the forms in question read: a prefixed typeid's suffix. */
    const char *sep = formats[fmt->id].prefixed && (form == MINTID_FORM_TEXT || form == MINTID_FORM_ANY)
                          ? last_underscore(text, len)
                          : NULL;
    size_t skip = sep != NULL ? (size_t)(sep - text) + 1 : 0;
    unsigned forms = sep != NULL               ? MINTID_FORM_BIT(MINTID_FORM_TEXT)
                     : form == MINTID_FORM_ANY ? mintid_decode_any_forms(fmt)
                                               : MINTID_FORM_BIT(form);

    if (rc == MINTID_ECHAR && strncmp(after, "': '", 4) == 0) {
        /* "'c' at position p": a character that every form of this length must refuse there. */
        const char *at = strstr(after, "' at position ");
        REQUIRE(at != NULL);
        long long pos = read_number(at + strlen("' at position "));
        REQUIRE(pos >= 1 && (size_t)pos <= len);
        size_t i = (size_t)pos - 1;
        REQUIRE(i >= skip);
        for (int g = 0; g < MINTID_FORM_COUNT; g++) {
            mintid_id ignored;
            if (!(forms & MINTID_FORM_BIT(g)) ||
                ref_decode(fmt, (mintid_form)g, text + skip, len - skip, &ignored) == MINTID_ELENGTH)
                continue;
            const form_spec *sp = &specs[fmt->id][g];
            REQUIRE(sp->uuid ? !uuid_char_ok(text + skip, len - skip, i - skip)
                             : digit_value(sp, (unsigned char)text[i]) < 0);
        }
    } else if (rc == MINTID_ELENGTH) {
        /* The lengths listed include each form's longest (read or canonical). */
        const char *wrong = strstr(after, "has the wrong length (");
        REQUIRE(wrong != NULL);
        const char *what = strchr(wrong, ';');
        REQUIRE(what != NULL);
        for (int g = 0; g < MINTID_FORM_COUNT; g++)
            if (forms & MINTID_FORM_BIT(g))
                REQUIRE(names_number(what, specs[fmt->id][g].max_len) ||
                        names_number(what, canonical_max_len(fmt->id, (mintid_form)g)));
    } else if (rc == MINTID_EOVERFLOW && strncmp(after, "' exceeds ", 10) == 0) {
        /* "exceeds M (2^k-1)": M, read in the form, is the format's largest ID. */
        const char *m = after + 10;
        size_t mlen = strcspn(m, " ,");
        if (strncmp(m + mlen, " (", 2) == 0) {
            mintid_form mf = form == MINTID_FORM_ANY ? MINTID_FORM_TEXT : form;
            mintid_id max, want = ref_max(fmt->id);
            REQUIRE(ref_decode(fmt, mf, m, mlen, &max) == MINTID_OK);
            REQUIRE(memcmp(&max, &want, sizeof max) == 0);
        }
    }
}

/* The result of decoding text in a form the format has (or MINTID_FORM_ANY), against the reference. */
static void check_outcome(const mintid_format *fmt, mintid_form form, const char *text, size_t len, int rc,
                          mintid_form got, const mintid_id *out, const char *prefix) {
    const char *sep = formats[fmt->id].prefixed && (form == MINTID_FORM_TEXT || form == MINTID_FORM_ANY)
                          ? last_underscore(text, len)
                          : NULL;
    if (sep != NULL) {
        check_prefixed(fmt, text, len, sep, rc, got, out, prefix);
        return;
    }
    if (rc != MINTID_OK) {
        /* EFORM means "no such form", which cannot be said of a form the format has, nor of ANY. */
        REQUIRE(rc == MINTID_ELENGTH || rc == MINTID_ECHAR || rc == MINTID_EOVERFLOW ||
                (rc == MINTID_EINVALID && formats[fmt->id].checked));
    } else {
        REQUIRE(prefix[0] == '\0');
    }
    if (form == MINTID_FORM_ANY) {
        check_any(fmt, text, len, rc, got, out);
        return;
    }
    if (rc != MINTID_OK) {
        mintid_id ref;
        REQUIRE(ref_decode(fmt, form, text, len, &ref) == rc);
        return;
    }
    REQUIRE(got == form);
    check_decoded(fmt, form, text, len, out, "");
}

/* The second selector byte: MINTID_FORM_ANY, every form, and two forms that are none. */
#define FORM_CODES (MINTID_FORM_COUNT + 3)

static mintid_form form_of(uint8_t code) {
    code %= FORM_CODES;
    if (code == 0)
        return MINTID_FORM_ANY;
    if (code <= MINTID_FORM_COUNT)
        return (mintid_form)(code - 1);
    return code == MINTID_FORM_COUNT + 1 ? MINTID_FORM_COUNT : (mintid_form)-2;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2)
        return 0;
    const mintid_format *fmt = mintid_format_get((mintid_format_id)(data[0] % MINTID_FORMAT_COUNT));
    REQUIRE(fmt != NULL && fmt->id == (mintid_format_id)(data[0] % MINTID_FORMAT_COUNT));
    check_table(fmt);
    mintid_form form = form_of(data[1]);
    const char *text = (const char *)data + 2;
    size_t len = size - 2;
    check_prefix_check(fmt, text, len);

    mintid_id sentinel, out, out2, out3;
    memset(&sentinel, 0xa5, sizeof sentinel);
    out = out2 = out3 = sentinel;
    mintid_form got = MINTID_FORM_COUNT, got3 = MINTID_FORM_COUNT;
    int rc = mintid_decode(fmt, form, text, len, &out, &got);
    /* form_out is optional and changes nothing else. */
    REQUIRE(mintid_decode(fmt, form, text, len, &out2, NULL) == rc);
    REQUIRE(memcmp(&out, &out2, sizeof out) == 0);
    /* mintid_decode() is mintid_decode_prefixed() without the prefix. */
    char prefix[MINTID_PREFIX_MAX + 1];
    memset(prefix, 'Q', sizeof prefix);
    REQUIRE(mintid_decode_prefixed(fmt, form, text, len, &out3, &got3, prefix) == rc);
    REQUIRE(memcmp(&out, &out3, sizeof out) == 0);
    REQUIRE(rc != MINTID_OK || got3 == got);
    if (rc != MINTID_OK)
        REQUIRE(memcmp(&out, &sentinel, sizeof out) == 0);

    if (form != MINTID_FORM_ANY && !has_form(fmt, form)) {
        REQUIRE(rc == MINTID_EFORM);
        return 0;
    }
    check_outcome(fmt, form, text, len, rc, got, &out, prefix);
    /* Last, so that a wrong explanation cannot hide a wrong decode of the same input. */
    if (rc != MINTID_OK)
        check_explain(fmt, form, text, len, rc);
    return 0;
}
