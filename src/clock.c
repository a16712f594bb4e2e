/* SPDX-License-Identifier: MIT */
/*
 * clock.c - reading clocks, waiting, and converting between Unix ms and
 * RFC 3339 text. Civil-date arithmetic is done here rather than with
 * gmtime_r()/timegm() so that it is exact for every supported year, free of
 * the process's time zone, and testable without a C library's quirks.
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int mintid_clock_system(void *ctx, int64_t *unix_ms) {
    (void)ctx;
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return MINTID_ECLOCK;
    *unix_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    return MINTID_OK;
}

uint64_t mintid__monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mintid__sleep_ns(uint64_t ns) {
    struct timespec req = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&req, &req) != 0 && errno == EINTR) {
    }
}

void mintid__sleep_until_ms(int64_t unix_ms, uint64_t max_ns) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return;
    /* Relative, not TIMER_ABSTIME: a clock stepped back meanwhile must not
     * stretch the sleep past max_ns. */
    int64_t now_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, until_ns = unix_ms * 1000000;
    if (until_ns <= now_ns)
        return;
    uint64_t ns = (uint64_t)(until_ns - now_ns);
    mintid__sleep_ns(ns < max_ns ? ns : max_ns);
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

/*
 * 0000-01-01T00:00:00.000Z to +99999-12-31T23:59:59.999Z: RFC 3339's
 * years, then ISO 8601's expanded ones, which the 48-bit millisecond
 * formats reach (+10889).
 */
#define TIME_MIN_MS (-62167219200000LL)
#define TIME_RFC3339_MAX_MS 253402300799999LL
#define TIME_MAX_MS 3093527980799999LL

int mintid_format_time(int64_t unix_ms, char *buf, size_t cap) {
    /* Checked first: the arithmetic below would overflow near INT64_MIN. */
    if (unix_ms < TIME_MIN_MS || unix_ms > TIME_MAX_MS)
        return MINTID_ERANGE;
    int64_t days = mintid__floor_div(unix_ms, 86400000);
    int64_t ms_of_day = unix_ms - days * 86400000;
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    unsigned ms = (unsigned)(ms_of_day % 1000), s = (unsigned)(ms_of_day / 1000);
    int n = snprintf(buf, cap,
                     unix_ms > TIME_RFC3339_MAX_MS ? "%+06d-%02u-%02uT%02u:%02u:%02u.%03uZ"
                                                   : "%04d-%02u-%02uT%02u:%02u:%02u.%03uZ",
                     (int)y, m, d, s / 3600, s / 60 % 60, s % 60, ms);
    if (n < 0 || (size_t)n >= cap)
        return MINTID_EBUFSIZE;
    return n;
}

/* Reads exactly n decimal digits at *p, advancing it. */
static bool digits(const char **p, int n, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (unsigned)(c - '0');
    }
    *p += n;
    *out = v;
    return true;
}

static bool expect(const char **p, char c) {
    if (**p != c)
        return false;
    (*p)++;
    return true;
}

static bool leap(unsigned y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int mintid_parse_time(const char *text, int64_t *unix_ms) {
    const char *p = text;
    size_t len = strlen(text);
    if (len == 0)
        return MINTID_EINVAL;
    /* A plain integer is Unix ms. */
    if (strspn(text, "0123456789") == len) {
        if (len > 15) /* beyond year 33658: surely a mistake */
            return MINTID_ERANGE;
        int64_t v = 0;
        for (size_t i = 0; i < len; i++)
            v = v * 10 + (text[i] - '0');
        *unix_ms = v;
        return MINTID_OK;
    }
    unsigned y, mo, d, h = 0, mi = 0, s = 0, ms = 0;
    static const unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (!digits(&p, 4, &y) || !expect(&p, '-') || !digits(&p, 2, &mo) || !expect(&p, '-') || !digits(&p, 2, &d))
        return MINTID_EINVAL;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap(y)))
        return MINTID_ERANGE;
    int64_t offset_min = 0;
    if (*p != '\0') {
        if (!expect(&p, 'T') || !digits(&p, 2, &h) || !expect(&p, ':') || !digits(&p, 2, &mi) || !expect(&p, ':') ||
            !digits(&p, 2, &s))
            return MINTID_EINVAL;
        if (*p == '.') {
            p++;
            int n = 0;
            while (p[n] >= '0' && p[n] <= '9')
                n++;
            if (n < 1 || n > 3)
                return MINTID_EINVAL; /* a finer time than ms would be silently cut */
            unsigned frac = 0;
            digits(&p, n, &frac);
            ms = frac * (n == 1 ? 100 : n == 2 ? 10 : 1);
        }
        if (*p == 'Z') {
            p++;
        } else if (*p == '+' || *p == '-') {
            int sign = *p == '-' ? -1 : 1;
            unsigned oh, om;
            p++;
            if (!digits(&p, 2, &oh) || !expect(&p, ':') || !digits(&p, 2, &om) || oh > 23 || om > 59)
                return MINTID_EINVAL;
            offset_min = sign * (int64_t)(oh * 60 + om);
        } else {
            return MINTID_EINVAL; /* RFC 3339 requires a zone; local time would be a guess */
        }
        if (*p != '\0')
            return MINTID_EINVAL;
        if (h > 23 || mi > 59 || s > 59)
            return MINTID_ERANGE;
    }
    int64_t days = days_from_civil(y, mo, d);
    *unix_ms = ((days * 86400 + h * 3600 + mi * 60 + s) - offset_min * 60) * 1000 + ms;
    return MINTID_OK;
}

int mintid_parse_epoch(const mintid_format *fmt, const char *text, int64_t *unix_ms) {
    if (fmt != NULL && fmt->epoch_names != NULL)
        for (const mintid_epoch_name *e = fmt->epoch_names; e->name != NULL; e++)
            if (strcmp(e->name, text) == 0) {
                *unix_ms = e->unix_ms;
                return MINTID_OK;
            }
    return mintid_parse_time(text, unix_ms);
}
