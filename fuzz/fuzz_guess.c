/* SPDX-License-Identifier: MIT */
/*
 * fuzz_guess.c - libFuzzer target for mintid_guess() and
 * mintid_guess_recent().
 *
 * Input: the text itself, handed over without a NUL so that reading past its
 * end trips AddressSanitizer.
 *
 * mintid_guess() is checked against its contract, rebuilt here from the
 * per-format calls: a format matches if the text is one of its canonical
 * encodings of an ID that passes mintid_id_check(), in the forms guessing
 * looks at (the text form, typeid's with its type prefix; scru160's and
 * uuidv7's hex; nanoflake's decimal and padded forms). The encoding is the
 * text exactly, or the text wholly in the other letter case where the form
 * has one length (a lower-case ULID, an upper-case UUID): never in mixed
 * case, nor a short text of a form whose length varies. fuzz_decode checks
 * the decoders and encoders themselves against the specs, so here they
 * can serve as the oracle.
 *
 * mintid_guess_recent() is checked, for an ambiguous text, at the time of
 * each candidate: it takes the one candidate minted within
 * MINTID_GUESS_RECENT_MS before to MINTID_GUESS_AHEAD_MS after then, and
 * stays ambiguous when there are several. A violated property abort()s.
 */
#include "fuzz.h"
#include "mintid.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The forms mintid_guess() looks at for a format, in the order it tries
 * them (docs/formats, each page's "Format guessing"):
 * the first that matches gives the ID. Returns how many.
 */
static size_t guess_forms(mintid_format_id f, mintid_form forms[3]) {
    switch (f) {
    case MINTID_NANOFLAKE:
        forms[0] = MINTID_FORM_INT, forms[1] = MINTID_FORM_TEXT, forms[2] = MINTID_FORM_PADDED;
        return 3;
    case MINTID_SCRU160:
    case MINTID_UUIDV7:
        forms[0] = MINTID_FORM_TEXT, forms[1] = MINTID_FORM_HEX;
        return 2;
    case MINTID_UEXKY:
    case MINTID_ULID_FLAKE:
    case MINTID_ULID_FLAKE_SCALABLE:
    case MINTID_CALORIOSA:
    case MINTID_ULID:
    case MINTID_SCRU128:
    case MINTID_SNOWFLAKE:
    case MINTID_SONYFLAKE:
    case MINTID_KSUID:
    case MINTID_TYPEID:
    case MINTID_FORMAT_COUNT:
        break;
    }
    forms[0] = MINTID_FORM_TEXT;
    return 1;
}

static bool guessed_form(mintid_format_id f, mintid_form form) {
    mintid_form forms[3];
    size_t n = guess_forms(f, forms);
    for (size_t i = 0; i < n; i++)
        if (forms[i] == form)
            return true;
    return false;
}

static unsigned char lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c; }

/* Whether a text has letters of both cases. */
static bool mixed_case(const char *s, size_t len) {
    bool up = false, low = false;
    for (size_t i = 0; i < len; i++) {
        up |= s[i] >= 'A' && s[i] <= 'Z';
        low |= s[i] >= 'a' && s[i] <= 'z';
    }
    return up && low;
}

static bool same_but_case(const char *a, const char *b, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
            return false;
    return true;
}

/*
 * Whether text is the encoding in form of a valid ID of fmt (see above); the
 * ID goes to *id. The forms of one length: all guessed forms but a text
 * form whose length varies (a prefix does not count: typeid's suffix is 26
 * characters).
 */
static bool matches(const mintid_format *fmt, mintid_form form, const char *text, size_t len, mintid_id *id) {
    char buf[MINTID_TEXT_MAX], prefix[MINTID_PREFIX_MAX + 1];
    if (mintid_decode_prefixed(fmt, form, text, len, id, NULL, prefix) != MINTID_OK)
        return false;
    int n = mintid_encode_prefixed(fmt, form, id, prefix, buf, sizeof buf);
    REQUIRE(n > 0);
    if ((size_t)n != len || mintid_id_check(fmt, id) != MINTID_OK)
        return false;
    bool one_length = form != MINTID_FORM_TEXT || fmt->text_min_len == fmt->text_max_len || fmt->prefix_max > 0;
    return memcmp(buf, text, len) == 0 || (one_length && !mixed_case(text, len) && same_but_case(buf, text, len));
}

static int64_t unix_ms(const mintid_format *fmt, const mintid_id *id) {
    return mintid_id_unix_ms(fmt, id, fmt->epoch_ms);
}

/* mintid_guess_recent() at the time of each of several candidates. */
static void check_recent(const char *text, size_t size, unsigned expected, const mintid_id ids[MINTID_FORMAT_COUNT]) {
    for (int c = 0; c < MINTID_FORMAT_COUNT; c++) {
        if (!(expected & 1u << c))
            continue;
        int64_t now = unix_ms(mintid_format_get((mintid_format_id)c), &ids[c]);
        unsigned recent = 0;
        for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
            if (!(expected & 1u << f))
                continue;
            int64_t t = unix_ms(mintid_format_get((mintid_format_id)f), &ids[f]);
            if (t >= now - MINTID_GUESS_RECENT_MS && t <= now + MINTID_GUESS_AHEAD_MS)
                recent |= 1u << f;
        }
        REQUIRE(recent & 1u << c);
        const mintid_format *fmt = NULL;
        mintid_id id;
        mintid_form form = MINTID_FORM_ANY;
        unsigned candidates = 0xdeadu;
        int rc = mintid_guess_recent(text, size, now, MINTID_EPOCH_DEFAULT, &fmt, &id, &form, &candidates);
        REQUIRE(candidates == expected);
        if ((recent & (recent - 1)) != 0) {
            REQUIRE(rc == MINTID_EAMBIGUOUS);
            continue;
        }
        REQUIRE(rc == MINTID_OK && fmt != NULL && fmt->id == (mintid_format_id)c);
        REQUIRE(memcmp(&id, &ids[c], sizeof id) == 0);
        REQUIRE(guessed_form(fmt->id, form));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;

    unsigned expected = 0;
    mintid_id ids[MINTID_FORMAT_COUNT];
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)f);
        mintid_form forms[3];
        size_t nforms = guess_forms(fmt->id, forms);
        for (size_t g = 0; g < nforms && !(expected & 1u << f); g++)
            if (matches(fmt, forms[g], text, size, &ids[f]))
                expected |= 1u << f;
    }

    const mintid_format *fmt = NULL;
    mintid_id id;
    memset(&id, 0xa5, sizeof id);
    mintid_form form = MINTID_FORM_ANY;
    unsigned candidates = 0xdeadu;
    int rc = mintid_guess(text, size, &fmt, &id, &form, &candidates);
    REQUIRE(candidates == expected);

    /* The optional outputs change nothing. */
    const mintid_format *fmt2 = NULL;
    mintid_id id2;
    memset(&id2, 0xa5, sizeof id2);
    REQUIRE(mintid_guess(text, size, &fmt2, &id2, NULL, NULL) == rc);

    if (expected == 0) {
        REQUIRE(rc == MINTID_EINVALID);
        REQUIRE(mintid_guess_recent(text, size, 0, MINTID_EPOCH_DEFAULT, &fmt2, &id2, NULL, NULL) == MINTID_EINVALID);
        return 0;
    }
    if ((expected & (expected - 1)) != 0) {
        REQUIRE(rc == MINTID_EAMBIGUOUS);
        check_recent(text, size, expected, ids);
        return 0;
    }
    REQUIRE(rc == MINTID_OK);
    REQUIRE(fmt != NULL && fmt2 == fmt);
    REQUIRE(memcmp(&id, &id2, sizeof id) == 0);
    REQUIRE(expected == 1u << fmt->id);
    REQUIRE(memcmp(&id, &ids[fmt->id], sizeof id) == 0);
    REQUIRE(guessed_form(fmt->id, form));

    /* The answer is what that form reads the input as, and writes it back as (up to case). */
    char buf[MINTID_TEXT_MAX], prefix[MINTID_PREFIX_MAX + 1];
    mintid_id back;
    REQUIRE(mintid_decode_prefixed(fmt, form, text, size, &back, NULL, prefix) == MINTID_OK);
    REQUIRE(memcmp(&back, &id, sizeof back) == 0);
    int n = mintid_encode_prefixed(fmt, form, &id, prefix, buf, sizeof buf);
    REQUIRE(n > 0 && (size_t)n == size && same_but_case(buf, text, size));
    REQUIRE(mintid_id_check(fmt, &id) == MINTID_OK);

    /* With one candidate, the time does not matter. */
    const mintid_format *fmt3 = NULL;
    mintid_id id3;
    REQUIRE(mintid_guess_recent(text, size, INT64_MIN / 2, MINTID_EPOCH_DEFAULT, &fmt3, &id3, NULL, NULL) == MINTID_OK);
    REQUIRE(fmt3 == fmt && memcmp(&id3, &id, sizeof id) == 0);
    return 0;
}
