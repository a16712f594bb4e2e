/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what every fuzz target shares: libFuzzer's entry point and the
 * assertion that stops the run on a broken property.
 */
#ifndef MINTID_FUZZ_H
#define MINTID_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property that must hold: abort(), which libFuzzer reports with the input. */
#define REQUIRE(cond)                                                                                                  \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #cond);                                \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

/*
 * The prefixes of a parser's input worth checking against the whole, rather
 * than all of them (too slow): just short of the end of what the parser
 * used (span), where a line end or a header is cut; the middle; the request
 * limit and one past it; and one the input chooses. Writes those below span
 * to cuts and returns how many.
 */
#define FUZZ_CUTS 7
static inline size_t fuzz_cuts(size_t span, size_t max_request, uint8_t chooser, size_t cuts[FUZZ_CUTS]) {
    if (span == 0)
        return 0;
    const size_t all[FUZZ_CUTS] = {
        span - 1, span - 2, span - 3, span / 2, max_request, max_request + 1, (size_t)chooser * 7 % span};
    size_t n = 0;
    for (size_t i = 0; i < FUZZ_CUTS; i++)
        if (all[i] < span)
            cuts[n++] = all[i];
    return n;
}

#endif
