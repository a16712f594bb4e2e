/* SPDX-License-Identifier: MIT */
/*
 * fuzz_key.c - libFuzzer target for key_parse_header() and key_valid()
 * (server/keys/keyparse.c): the Idempotency-Key header's RFC 8941 string and
 * RESP's key argument.
 *
 * Properties: an accepted header gives a key of 1..KEY_MAX printable ASCII
 * characters, NUL-terminated at its length, that key_valid() accepts too;
 * writing that key back as an sf-string (quoting '"' and '\') and parsing
 * it gives the same key, and is the input itself whenever the input was
 * already written that way; a refusal always says why; and key_valid()
 * accepts exactly the inputs of 1..KEY_MAX printable characters.
 */
#include "fuzz.h"
#include "keys/keyparse.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *in = (const char *)data;
    char key[KEY_MAX + 1];
    size_t len = 0;
    const char *why = NULL;

    /* key_valid(), from its definition. */
    bool printable = size >= 1 && size <= KEY_MAX;
    for (size_t i = 0; i < size && printable; i++)
        printable = data[i] >= 0x20 && data[i] <= 0x7e;
    why = NULL;
    REQUIRE(key_valid(in, size, &why) == printable);
    REQUIRE(printable || (why != NULL && why[0] != '\0'));

    why = NULL;
    if (!key_parse_header(in, size, key, &len, &why)) {
        REQUIRE(why != NULL && why[0] != '\0');
        return 0;
    }
    REQUIRE(len >= 1 && len <= KEY_MAX && key[len] == '\0');
    REQUIRE(key_valid(key, len, &why));
    /* Written back as an sf-string, it reads as the same key. */
    char out[2 * KEY_MAX + 3];
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < len; i++) {
        if (key[i] == '"' || key[i] == '\\')
            out[o++] = '\\';
        out[o++] = key[i];
    }
    out[o++] = '"';
    REQUIRE(o == size && memcmp(out, in, size) == 0); /* one way to write each key */
    char again[KEY_MAX + 1];
    size_t again_len = 0;
    REQUIRE(key_parse_header(out, o, again, &again_len, &why));
    REQUIRE(again_len == len && memcmp(again, key, len) == 0);
    return 0;
}
