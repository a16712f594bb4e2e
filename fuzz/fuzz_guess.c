/*
 * fuzz_guess.c - libFuzzer target for mintid_guess().
 *
 * Input: the text itself, handed over without a NUL so that reading past its
 * end trips AddressSanitizer.
 *
 * mintid_guess() is checked against its contract in mintid.h, rebuilt here
 * from the per-format calls: a format matches if the text is exactly one of
 * its canonical encodings (its text form; scru160's hex; nanoflake's decimal
 * and padded forms) of an ID that passes mintid_id_check(). fuzz_decode
 * checks the decoders and encoders themselves against FORMATS.md, so here
 * they can serve as the oracle. A violated property abort()s.
 */
#include "fuzz.h"
#include "mintid.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The forms mintid_guess() recognises for a format, as mintid.h lists them. */
static unsigned guess_forms(mintid_format_id f) {
    unsigned forms = MINTID_FORM_BIT(MINTID_FORM_TEXT);
    if (f == MINTID_SCRU160)
        forms |= MINTID_FORM_BIT(MINTID_FORM_HEX);
    if (f == MINTID_NANOFLAKE)
        forms |= MINTID_FORM_BIT(MINTID_FORM_INT) | MINTID_FORM_BIT(MINTID_FORM_PADDED);
    return forms;
}

/* Whether text is exactly the encoding in form of a valid ID of fmt; the ID goes to *id. */
static bool matches(const mintid_format *fmt, mintid_form form, const char *text, size_t len, mintid_id *id) {
    char buf[MINTID_TEXT_MAX];
    if (mintid_decode(fmt, form, text, len, id, NULL) != MINTID_OK)
        return false;
    int n = mintid_encode(fmt, form, id, buf, sizeof buf);
    REQUIRE(n > 0);
    return (size_t)n == len && memcmp(buf, text, len) == 0 && mintid_id_check(fmt, id) == MINTID_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;

    unsigned expected = 0;
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)f);
        for (int g = 0; g < MINTID_FORM_COUNT; g++) {
            mintid_id id;
            if ((guess_forms(fmt->id) & MINTID_FORM_BIT(g)) != 0 && matches(fmt, (mintid_form)g, text, size, &id))
                expected |= 1u << f;
        }
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
        return 0;
    }
    if ((expected & (expected - 1)) != 0) {
        REQUIRE(rc == MINTID_EAMBIGUOUS);
        return 0;
    }
    REQUIRE(rc == MINTID_OK);
    REQUIRE(fmt != NULL && fmt2 == fmt);
    REQUIRE(memcmp(&id, &id2, sizeof id) == 0);
    REQUIRE(expected == 1u << fmt->id);
    REQUIRE((guess_forms(fmt->id) & MINTID_FORM_BIT(form)) != 0);

    /* The answer re-encodes to exactly the input. */
    char buf[MINTID_TEXT_MAX];
    int n = mintid_encode(fmt, form, &id, buf, sizeof buf);
    REQUIRE(n > 0 && (size_t)n == size && memcmp(buf, text, size) == 0);
    REQUIRE(mintid_id_check(fmt, &id) == MINTID_OK);
    /* And it is the ID that form decodes the input to, not some other form's. */
    mintid_id back;
    REQUIRE(mintid_decode(fmt, form, text, size, &back, NULL) == MINTID_OK);
    REQUIRE(memcmp(&back, &id, sizeof back) == 0);
    return 0;
}
