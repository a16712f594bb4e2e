/*
 * fuzz_time.c - libFuzzer target for mintid_parse_time() and its inverse,
 * mintid_format_time().
 *
 * Input: the text to parse (cut at its first NUL, as a C string would be).
 * Its first eight bytes, when there are eight, are also read as a
 * little-endian int64_t and given to mintid_format_time(), so the formatter
 * is fuzzed over the whole int64_t range, not just over the times the
 * parser can produce.
 *
 * Properties, any violation of which abort()s:
 * - a parsed time that mintid_format_time() accepts formats to the RFC 3339
 *   shape "YYYY-MM-DDTHH:MM:SS.mmmZ" and parses back to the same value;
 * - a failure is MINTID_EINVAL or MINTID_ERANGE and leaves the result alone;
 * - mintid_format_time() honours its buffer size.
 */
#include "fuzz.h"
#include "mintid.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RFC3339_MS_LEN 24 /* 2026-11-22T01:02:03.456Z */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

static bool rfc3339_shape(const char *s, size_t len) {
    static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ";
    if (len != RFC3339_MS_LEN)
        return false;
    for (size_t i = 0; i < len; i++)
        if (shape[i] == 'd' ? !is_digit(s[i]) : s[i] != shape[i])
            return false;
    return true;
}

/* Formats ms; if that succeeds, checks the text and that it parses back to ms. */
static void check_format(int64_t ms) {
    char buf[MINTID_TIME_MAX];
    int n = mintid_format_time(ms, buf, sizeof buf);
    if (n < 0) {
        /* Only years outside 0000-9999 have no RFC 3339 text. */
        REQUIRE(n == MINTID_ERANGE);
        return;
    }
    REQUIRE((size_t)n == strlen(buf));
    REQUIRE(rfc3339_shape(buf, (size_t)n));
    int64_t back = ms ^ 1;
    REQUIRE(mintid_parse_time(buf, &back) == MINTID_OK);
    REQUIRE(back == ms);

    /* A heap buffer one byte short must be refused without a write past it. */
    char *exact = malloc((size_t)n + 1);
    REQUIRE(exact != NULL);
    REQUIRE(mintid_format_time(ms, exact, (size_t)n + 1) == n);
    REQUIRE(memcmp(exact, buf, (size_t)n + 1) == 0);
    REQUIRE(mintid_format_time(ms, exact, (size_t)n) == MINTID_EBUFSIZE);
    free(exact);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size >= 8) {
        uint64_t raw = 0;
        for (int i = 7; i >= 0; i--)
            raw = raw << 8 | data[i];
        int64_t ms;
        memcpy(&ms, &raw, sizeof ms);
        check_format(ms);
    }

    /* An exact-size heap copy with its NUL, so an over-read past the NUL is caught. */
    char *text = malloc(size + 1);
    REQUIRE(text != NULL);
    memcpy(text, data, size);
    text[size] = '\0';

    const int64_t untouched = INT64_MIN + 12345;
    int64_t ms = untouched;
    int rc = mintid_parse_time(text, &ms);
    if (rc != MINTID_OK) {
        REQUIRE(rc == MINTID_EINVAL || rc == MINTID_ERANGE);
        REQUIRE(ms == untouched);
    } else {
        check_format(ms);
    }
    free(text);
    return 0;
}
