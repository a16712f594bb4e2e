/*
 * fuzz_decode.c - libFuzzer target for mintid_decode(): every format, every
 * form, MINTID_FORM_ANY, and form numbers that no format has.
 *
 * Input: one selector byte, then the text. The selector's low three bits pick
 * the format (modulo MINTID_FORMAT_COUNT); the next three bits pick the form:
 * 0 is MINTID_FORM_ANY, 1 to 5 are MINTID_FORM_TEXT to MINTID_FORM_CORE, and 6
 * and 7 are the out-of-range forms MINTID_FORM_COUNT and -2. The top two bits
 * are ignored. So 0x08 | format selects a format's text form, 0x10 | format
 * its integer form, 0x18 | format its hex form.
 *
 * The text is handed over as libFuzzer gives it, without a NUL, so a decoder
 * that reads one byte too far trips AddressSanitizer.
 *
 * Every property is checked against a small reference decoder written from
 * FORMATS.md alone, so a decoder that wrongly rejects a text is caught as
 * well as one that accepts too much. A violated property abort()s, which
 * libFuzzer reports and minimises like a crash.
 */
#include "fuzz.h"
#include "mintid.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reference: FORMATS.md, one row per format and form ---------------- */

/*
 * A text form as the spec describes it. digits are in canonical case; a form
 * that folds case accepts either case of a letter. Texts of min_len to
 * max_len characters are accepted; where the two differ the canonical text
 * has no leading zero digit beyond min_len digits. rotate is uexky's "last
 * two characters moved to the front". strict refuses a leading zero with
 * MINTID_ECHAR (mintid.h: "a decimal integer never has a leading zero").
 */
typedef struct form_spec {
    const char *digits; /* NULL: the spec gives the format no such form */
    bool fold;
    uint8_t min_len;
    uint8_t max_len;
    bool rotate;
    bool strict;
} form_spec;

static const char DEC[] = "0123456789";
static const char HEX[] = "0123456789abcdef";
static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
static const char B32HEX[] = "0123456789ABCDEFGHIJKLMNOPQRSTUV";
static const char CROCKFORD[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
static const char B62[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
static const char B62CORE[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
static const char B36[] = "0123456789abcdefghijklmnopqrstuvwxyz";

/* 20 decimal digits hold 2^64-1. */
#define INT_FORM                                                                                                       \
    { DEC, false, 1, 20, false, true }
#define HEX64_FORM                                                                                                     \
    { HEX, true, 16, 16, false, false }

static const form_spec specs[MINTID_FORMAT_COUNT][MINTID_FORM_COUNT] = {
    [MINTID_UEXKY] = {[MINTID_FORM_TEXT] = {B64, false, 4, 10, true, false},
                      [MINTID_FORM_INT] = INT_FORM,
                      [MINTID_FORM_HEX] = HEX64_FORM},
    [MINTID_SCRU160] = {[MINTID_FORM_TEXT] = {B32HEX, true, 32, 32, false, false},
                        [MINTID_FORM_HEX] = {HEX, true, 40, 40, false, false}},
    [MINTID_ULID_FLAKE] = {[MINTID_FORM_TEXT] = {CROCKFORD, true, 13, 13, false, false},
                           [MINTID_FORM_INT] = INT_FORM,
                           [MINTID_FORM_HEX] = HEX64_FORM},
    [MINTID_ULID_FLAKE_SCALABLE] = {[MINTID_FORM_TEXT] = {CROCKFORD, true, 13, 13, false, false},
                                    [MINTID_FORM_INT] = INT_FORM,
                                    [MINTID_FORM_HEX] = HEX64_FORM},
    [MINTID_CALORIOSA] = {[MINTID_FORM_TEXT] = {B62, false, 1, 11, false, false},
                          [MINTID_FORM_INT] = INT_FORM,
                          [MINTID_FORM_HEX] = HEX64_FORM,
                          [MINTID_FORM_CORE] = {B62CORE, false, 1, 11, false, false}},
    [MINTID_NANOFLAKE] = {[MINTID_FORM_TEXT] = {B36, true, 1, 13, false, false},
                          [MINTID_FORM_INT] = INT_FORM,
                          [MINTID_FORM_HEX] = HEX64_FORM,
                          [MINTID_FORM_PADDED] = {B36, true, 13, 13, false, false}},
};

/* The largest value a decoder of a 64-bit format accepts (FORMATS.md). */
static uint64_t value_limit(mintid_format_id f) {
    switch (f) {
    case MINTID_UEXKY:
        return (UINT64_C(1) << 60) - 1;
    case MINTID_ULID_FLAKE:
    case MINTID_ULID_FLAKE_SCALABLE:
    case MINTID_NANOFLAKE:
        return INT64_MAX;
    case MINTID_CALORIOSA:
    case MINTID_SCRU160:
    case MINTID_FORMAT_COUNT:
        break;
    }
    return UINT64_MAX;
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

/*
 * Decodes as the spec says, into a 160-bit accumulator, which no accepted
 * length can overflow; the status precedence is the library's documented
 * one: length, then characters, then value.
 */
static int ref_decode(const mintid_format *fmt, mintid_form form, const char *s, size_t len, mintid_id *out) {
    const form_spec *sp = &specs[fmt->id][form];
    if (len < sp->min_len || len > sp->max_len)
        return MINTID_ELENGTH;
    for (size_t i = 0; i < len; i++)
        if (digit_value(sp, (unsigned char)s[i]) < 0)
            return MINTID_ECHAR;
    if (sp->strict && len > 1 && nth_digit(sp, s, len, 0) == (unsigned char)sp->digits[0])
        return MINTID_ECHAR;
    unsigned base = (unsigned)strlen(sp->digits);
    uint8_t acc[MINTID_ID_MAX_BYTES] = {0};
    for (size_t i = 0; i < len; i++) {
        unsigned carry = (unsigned)digit_value(sp, nth_digit(sp, s, len, i));
        for (size_t b = sizeof acc; b-- > 0;) {
            unsigned x = acc[b] * base + carry;
            acc[b] = (uint8_t)x;
            carry = x >> 8;
        }
        REQUIRE(carry == 0);
    }
    mintid_id id;
    memset(&id, 0, sizeof id);
    if (fmt->bits == 64) {
        uint64_t v = 0;
        for (size_t b = 0; b < sizeof acc - 8; b++)
            if (acc[b] != 0)
                return MINTID_EOVERFLOW;
        for (size_t b = sizeof acc - 8; b < sizeof acc; b++)
            v = v << 8 | acc[b];
        if (v > value_limit(fmt->id))
            return MINTID_EOVERFLOW;
        memcpy(id.bytes, acc + sizeof acc - 8, 8);
    } else {
        memcpy(id.bytes, acc, sizeof acc);
    }
    *out = id;
    return MINTID_OK;
}

/*
 * Whether a text is the one canonical encoding of its value: digits in
 * canonical case, and no leading zero digit beyond the form's minimum.
 */
static bool is_canonical(const mintid_format *fmt, mintid_form form, const char *s, size_t len) {
    const form_spec *sp = &specs[fmt->id][form];
    if (len < sp->min_len || len > sp->max_len)
        return false;
    for (size_t i = 0; i < len; i++)
        if (strchr(sp->digits, s[i]) == NULL || s[i] == '\0')
            return false;
    return sp->min_len == sp->max_len || len == sp->min_len || nth_digit(sp, s, len, 0) != sp->digits[0];
}

/* mintid_id_check() as the spec has it: caloriosa's prefix bit, scru160's reserved timestamps. */
static bool ref_valid(const mintid_format *fmt, const mintid_id *id) {
    static const uint8_t zero[6], ones[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    switch (fmt->id) {
    case MINTID_CALORIOSA:
        return (id->bytes[0] & 0x80) != 0;
    case MINTID_SCRU160:
        return memcmp(id->bytes, zero, 6) != 0 && memcmp(id->bytes, ones, 6) != 0;
    case MINTID_UEXKY:
    case MINTID_ULID_FLAKE:
    case MINTID_ULID_FLAKE_SCALABLE:
    case MINTID_NANOFLAKE:
    case MINTID_FORMAT_COUNT:
        break;
    }
    return true;
}

/* ---- the properties -------------------------------------------------------- */

static bool has_form(const mintid_format *fmt, mintid_form form) {
    return (unsigned)form < MINTID_FORM_COUNT && (fmt->forms & MINTID_FORM_BIT(form)) != 0;
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

/* Everything a successfully decoded ID must satisfy; form is the form it was decoded in. */
static void check_decoded(const mintid_format *fmt, mintid_form form, const char *text, size_t len,
                          const mintid_id *id) {
    mintid_id ref;
    REQUIRE(has_form(fmt, form));
    REQUIRE(ref_decode(fmt, form, text, len, &ref) == MINTID_OK);
    REQUIRE(memcmp(&ref, id, sizeof ref) == 0);
    REQUIRE((mintid_id_check(fmt, id) == MINTID_OK) == ref_valid(fmt, id));

    char buf[MINTID_TEXT_MAX];
    for (int g = 0; g < MINTID_FORM_COUNT; g++) {
        if (!has_form(fmt, (mintid_form)g))
            continue;
        size_t n = check_encode(fmt, (mintid_form)g, id, buf);
        /* A text that already is canonical is exactly what the encoder writes. */
        if (g == (int)form && is_canonical(fmt, form, text, len))
            REQUIRE(n == len && memcmp(buf, text, len) == 0);
    }
}

/* The public format table agrees with the spec. */
static void check_table(const mintid_format *fmt) {
    const form_spec *text = &specs[fmt->id][MINTID_FORM_TEXT];
    REQUIRE(fmt->alphabet != NULL && strcmp(fmt->alphabet, text->digits) == 0);
    REQUIRE((fmt->text_nocase != 0) == text->fold);
    REQUIRE(fmt->bits == 160 || fmt->value_max == value_limit(fmt->id));
    /* The library offers no form the spec does not describe. */
    for (int g = 0; g < MINTID_FORM_COUNT; g++)
        REQUIRE(!has_form(fmt, (mintid_form)g) || specs[fmt->id][g].digits != NULL);
    REQUIRE(has_form(fmt, MINTID_FORM_TEXT));
    REQUIRE((mintid_decode_any_forms(fmt) & ~fmt->forms) == 0);
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
    bool some_ok = false, some_overflow = false, some_same = false;
    for (int g = 0; g < MINTID_FORM_COUNT; g++) {
        mintid_id ref;
        if ((any & MINTID_FORM_BIT(g)) == 0)
            continue;
        int ref_rc = ref_decode(fmt, (mintid_form)g, text, len, &ref);
        some_ok |= ref_rc == MINTID_OK;
        some_overflow |= ref_rc == MINTID_EOVERFLOW;
        some_same |= ref_rc == rc;
    }
    if (rc == MINTID_OK) {
        REQUIRE((any & MINTID_FORM_BIT(got)) != 0);
        check_decoded(fmt, got, text, len, out);
    } else if (rc == MINTID_EOVERFLOW) {
        REQUIRE(some_overflow);
    } else {
        REQUIRE(!some_ok && !some_overflow && some_same);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    const mintid_format *fmt = mintid_format_get((mintid_format_id)((data[0] & 7u) % MINTID_FORMAT_COUNT));
    REQUIRE(fmt != NULL);
    check_table(fmt);
    unsigned code = (data[0] >> 3) & 7u;
    mintid_form form = code == 0   ? MINTID_FORM_ANY
                       : code == 6 ? MINTID_FORM_COUNT
                       : code == 7 ? (mintid_form)-2
                                   : (mintid_form)(code - 1);
    const char *text = (const char *)data + 1;
    size_t len = size - 1;

    mintid_id sentinel, out, out2;
    memset(&sentinel, 0xa5, sizeof sentinel);
    out = sentinel;
    out2 = sentinel;
    mintid_form got = MINTID_FORM_COUNT;
    int rc = mintid_decode(fmt, form, text, len, &out, &got);
    /* form_out is optional and changes nothing else. */
    REQUIRE(mintid_decode(fmt, form, text, len, &out2, NULL) == rc);
    REQUIRE(memcmp(&out, &out2, sizeof out) == 0);

    if (form != MINTID_FORM_ANY && !has_form(fmt, form)) {
        REQUIRE(rc == MINTID_EFORM);
        REQUIRE(memcmp(&out, &sentinel, sizeof out) == 0);
        return 0;
    }
    if (rc != MINTID_OK) {
        /* EFORM means "no such form", which cannot be said of a form the format has, nor of ANY. */
        REQUIRE(rc == MINTID_ELENGTH || rc == MINTID_ECHAR || rc == MINTID_EOVERFLOW);
        REQUIRE(memcmp(&out, &sentinel, sizeof out) == 0);
    }
    if (form == MINTID_FORM_ANY) {
        check_any(fmt, text, len, rc, got, &out);
        return 0;
    }
    if (rc != MINTID_OK) {
        mintid_id ref;
        REQUIRE(ref_decode(fmt, form, text, len, &ref) == rc);
        return 0;
    }
    REQUIRE(got == form);
    check_decoded(fmt, form, text, len, &out);
    return 0;
}
