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

#endif
