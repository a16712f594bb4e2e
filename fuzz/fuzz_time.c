/* SPDX-License-Identifier: MIT */
/*
 * fuzz_time.c - libFuzzer target for mintid_parse_time(), its inverse
 * mintid_format_time(), and mintid_parse_epoch() for every format.
 *
 * Input: the text to parse (cut at its first NUL, as a C string would be).
 * Its first eight bytes, when there are eight, are also read as a
 * little-endian int64_t and given to mintid_format_time(), so the formatter
 * is fuzzed over the whole int64_t range, not just over the times the
 * parser can produce.
 *
 * Properties, any violation of which abort()s:
 * - mintid_format_time() writes every time from 0000-01-01 to the end of
 *   the year 99999 and refuses every other with MINTID_ERANGE; up to 9999
 *   in the RFC 3339 shape "YYYY-MM-DDTHH:MM:SS.mmmZ", which
 *   mintid_parse_time() reads back, and past it in ISO 8601's expanded
 *   shape "+YYYYY-MM-DDTHH:MM:SS.mmmZ"; either way a real date and time
 *   that a reference conversion turns back into the same ms;
 * - a failure of mintid_parse_time() is MINTID_EINVAL or MINTID_ERANGE and
 *   leaves the result alone;
 * - mintid_format_time() honours its buffer size;
 * - mintid_parse_epoch() reads a format's named epochs (snowflake's
 *   "twitter" and "discord", docs/formats/snowflake.md), by exact name,
 *   and anything else as mintid_parse_time() does.
 */
#include "fuzz.h"
#include "mintid.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RFC3339_MS_LEN 24  /* 2026-11-22T01:02:03.456Z */
#define EXPANDED_MS_LEN 26 /* +10889-08-02T05:31:50.655Z */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (H. Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

#define MS_PER_DAY 86400000LL
/* The first ms of 0000-01-01 and the last of +99999-12-31. */
static int64_t time_min(void) { return days_from_civil(0, 1, 1) * MS_PER_DAY; }
static int64_t time_max(void) { return days_from_civil(100000, 1, 1) * MS_PER_DAY - 1; }

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* Reads n digits at s. */
static unsigned digits(const char *s, int n) {
    unsigned v = 0;
    for (int i = 0; i < n; i++)
        v = v * 10 + (unsigned)(s[i] - '0');
    return v;
}

/*
 * Reads a text of either shape as a reference would: the shape exactly,
 * every field in its range; returns false if it is not such a text.
 */
static bool read_time(const char *s, size_t len, bool expanded, int64_t *ms) {
    static const char rfc[] = "dddd-dd-ddTdd:dd:dd.dddZ", exp[] = "+ddddd-dd-ddTdd:dd:dd.dddZ";
    const char *shape = expanded ? exp : rfc;
    if (len != strlen(shape))
        return false;
    for (size_t i = 0; i < len; i++)
        if (shape[i] == 'd' ? !is_digit(s[i]) : s[i] != shape[i])
            return false;
    const char *p = expanded ? s + 1 : s;
    int yd = expanded ? 5 : 4;
    int64_t y = digits(p, yd);
    unsigned mo = digits(p + yd + 1, 2), d = digits(p + yd + 4, 2), h = digits(p + yd + 7, 2),
             mi = digits(p + yd + 10, 2), sec = digits(p + yd + 13, 2), frac = digits(p + yd + 16, 3);
    static const unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap(y)) || h > 23 || mi > 59 || sec > 59)
        return false;
    *ms = days_from_civil(y, mo, d) * MS_PER_DAY + ((int64_t)h * 3600 + mi * 60 + sec) * 1000 + frac;
    return true;
}

/* Formats ms; checks the refusal, or the text and that it reads back to ms. */
static void check_format(int64_t ms) {
    char buf[MINTID_TIME_MAX];
    int n = mintid_format_time(ms, buf, sizeof buf);
    if (ms < time_min() || ms > time_max()) {
        REQUIRE(n == MINTID_ERANGE);
        return;
    }
    REQUIRE(n > 0 && (size_t)n == strlen(buf));
    bool expanded = ms >= days_from_civil(10000, 1, 1) * MS_PER_DAY;
    REQUIRE(n == (expanded ? EXPANDED_MS_LEN : RFC3339_MS_LEN));
    int64_t back = ms ^ 1;
    REQUIRE(read_time(buf, (size_t)n, expanded, &back));
    REQUIRE(back == ms);
    if (!expanded) {
        back = ms ^ 1;
        REQUIRE(mintid_parse_time(buf, &back) == MINTID_OK);
        REQUIRE(back == ms);
    }

    /* A heap buffer one byte short must be refused without a write past it. */
    char *exact = malloc((size_t)n + 1);
    REQUIRE(exact != NULL);
    REQUIRE(mintid_format_time(ms, exact, (size_t)n + 1) == n);
    REQUIRE(memcmp(exact, buf, (size_t)n + 1) == 0);
    REQUIRE(mintid_format_time(ms, exact, (size_t)n) == MINTID_EBUFSIZE);
    free(exact);
}

/* A format's named epochs, as the spec has them: snowflake's alone. */
static bool named_epoch(mintid_format_id f, const char *text, int64_t *ms) {
    if (f != MINTID_SNOWFLAKE)
        return false;
    if (strcmp(text, "twitter") == 0)
        *ms = 1288834974657LL;
    else if (strcmp(text, "discord") == 0)
        *ms = 1420070400000LL;
    else
        return false;
    return true;
}

/* mintid_parse_epoch(): a name of the format's, else mintid_parse_time()'s answer. */
static void check_epoch(const char *text, int rc_time, int64_t ms_time) {
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)f);
        const int64_t untouched = INT64_MIN + 54321;
        int64_t ms = untouched, named = 0;
        int rc = mintid_parse_epoch(fmt, text, &ms);
        if (named_epoch(fmt->id, text, &named)) {
            REQUIRE(rc == MINTID_OK && ms == named);
        } else {
            REQUIRE(rc == rc_time);
            REQUIRE(ms == (rc == MINTID_OK ? ms_time : untouched));
        }
    }
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
    check_epoch(text, rc, ms);
    free(text);
    return 0;
}
