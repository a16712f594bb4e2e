/* SPDX-License-Identifier: MIT */
/*
 * keyparse.c - idempotency keys as clients write them (keyparse.h).
 */
#include "keys/keyparse.h"

static bool printable(unsigned char c) { return c >= 0x20 && c <= 0x7e; }

bool key_valid(const char *k, size_t n, const char **why) {
    if (n == 0 || n > KEY_MAX) {
        *why = "an idempotency key is 1 to 255 characters";
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (!printable((unsigned char)k[i])) {
            *why = "an idempotency key is printable ASCII characters only";
            return false;
        }
    return true;
}

bool key_parse_header(const char *v, size_t n, char out[KEY_MAX + 1], size_t *len, const char **why) {
    if (n < 2 || v[0] != '"') {
        *why = "Idempotency-Key must be a quoted string (RFC 8941), as in Idempotency-Key: \"8e03978e\"";
        return false;
    }
    size_t o = 0, i = 1;
    for (; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c == '"')
            break;
        if (!printable(c)) {
            *why = "Idempotency-Key holds a character that is not printable ASCII";
            return false;
        }
        if (c == '\\') {
            if (i + 1 == n || (v[i + 1] != '"' && v[i + 1] != '\\')) {
                *why = "Idempotency-Key: a '\\' may only escape '\"' or '\\'";
                return false;
            }
            c = (unsigned char)v[++i];
        }
        if (o == KEY_MAX) {
            *why = "an idempotency key is 1 to 255 characters";
            return false;
        }
        out[o++] = (char)c;
    }
    if (i >= n) {
        *why = "Idempotency-Key has no closing '\"'";
        return false;
    }
    if (i + 1 != n) {
        *why = "Idempotency-Key has something after its closing '\"'";
        return false;
    }
    if (o == 0) {
        *why = "an idempotency key is 1 to 255 characters";
        return false;
    }
    out[o] = '\0';
    *len = o;
    return true;
}
