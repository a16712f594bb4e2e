/* SPDX-License-Identifier: MIT */
/*
 * keyparse.h - idempotency keys as clients write them: the value of an
 * Idempotency-Key header (an RFC 8941 sf-string, as the IETF draft
 * "The Idempotency-Key HTTP Header Field" has it) and the key argument of
 * RESP's MINT ... KEY key. It does no I/O and needs nothing but libc, so
 * it is fuzzed on its own (fuzz/fuzz_key.c).
 */
#ifndef MINTIDD_KEYPARSE_H
#define MINTIDD_KEYPARSE_H

#include <stdbool.h>
#include <stddef.h>

/* The longest key, in characters (bytes: every one is printable ASCII). */
#define KEY_MAX 255

/*
 * Reads v[0..n), the header's value without the spaces around it, as one
 * sf-string: a double quote, 1..KEY_MAX characters, each printable ASCII
 * (0x20..0x7e) with '"' and '\' escaped by a '\', and a closing double
 * quote, with nothing after it. Writes the unescaped key to out (KEY_MAX
 * + 1 bytes, NUL-terminated) and its length to *len, and returns true; or
 * returns false with *why, a sentence for the client.
 */
bool key_parse_header(const char *v, size_t n, char out[KEY_MAX + 1], size_t *len, const char **why);

/*
 * Checks a key given as it is (RESP's argument): 1..KEY_MAX characters,
 * each printable ASCII. True, or false with *why.
 */
bool key_valid(const char *k, size_t n, const char **why);

#endif
