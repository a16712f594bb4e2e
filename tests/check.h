/* SPDX-License-Identifier: MIT */
/*
 * check.h - the few assertions the tests need. A failed check prints where
 * and what, counts, and lets the test go on, so one run shows every failure.
 */
#ifndef MINTID_CHECK_H
#define MINTID_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            check_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)

#define CHECK_INT(got, want)                                                                                           \
    do {                                                                                                               \
        long long got_ = (long long)(got), want_ = (long long)(want);                                                  \
        if (got_ != want_) {                                                                                           \
            fprintf(stderr, "%s:%d: %s is %lld, expected %lld\n", __FILE__, __LINE__, #got, got_, want_);              \
            check_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)

#define CHECK_U64(got, want)                                                                                           \
    do {                                                                                                               \
        uint64_t got_ = (uint64_t)(got), want_ = (uint64_t)(want);                                                     \
        if (got_ != want_) {                                                                                           \
            fprintf(stderr, "%s:%d: %s is %" PRIu64 ", expected %" PRIu64 "\n", __FILE__, __LINE__, #got, got_,        \
                    want_);                                                                                            \
            check_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)

#define CHECK_STR(got, want)                                                                                           \
    do {                                                                                                               \
        const char *got_ = (got), *want_ = (want);                                                                     \
        if (strcmp(got_, want_) != 0) {                                                                                \
            fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #got, got_, want_);          \
            check_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)

/* The exit status of a test program. */
#define CHECK_DONE()                                                                                                   \
    (check_failures == 0 ? (printf("ok\n"), 0) : (fprintf(stderr, "%d check(s) failed\n", check_failures), 1))

#endif
