/* SPDX-License-Identifier: MIT */
/*
 * fuzz_http.c - libFuzzer target for http_parse(), mintidd's HTTP/1.1
 * request-head parser (server/http/http.c).
 *
 * Input: two bytes that choose max_request, then the bytes a client sent.
 * max_request is 16 plus the two bytes, big-endian, modulo 2048, so 16 to
 * 2063: small enough that inputs within libFuzzer's default -max_len of 4096
 * reach the limit, and never below the 16 bytes of "GET / HTTP/1.1\r\n".
 * Seeds starting with "~~" get 1678 bytes; those starting with two NULs get
 * 16.
 *
 * Every input is parsed three times over: once as the first request of the
 * stream, with the whole contract checked, including the result on a few of
 * its prefixes (a client's bytes arrive in pieces, and the answer must not
 * depend on where the pieces were cut); once fed in those pieces to one
 * http_scan, as the server feeds a slow client's bytes, which must come to
 * the same answer as reading them whole; and once as the server does for
 * pipelined requests, head after head, until the parser wants more or
 * refuses. Each parse sees a heap buffer of exactly the length it is given,
 * so a read one byte too far trips AddressSanitizer. A violated property
 * abort()s, which libFuzzer reports and minimises like a crash.
 */
#include "fuzz.h"
#include "http/http.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* How far past max_request an accepted head may reach: not at all, since
 * max_request bounds the whole head, its blank line included. */
#define OK_SLACK 0

/* One call's outcome, kept to compare parses of the same bytes. */
typedef struct outcome {
    http_result r;
    http_request req;
    size_t used;
    int status;
    const char *error;
} outcome;

/* Pointer order through uintptr_t, since relational operators on pointers into different objects are undefined. */
static bool inside(const char *p, size_t n, const char *buf, size_t len) {
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)buf;
    return a >= b && a - b <= len && n <= len - (a - b);
}

/*
 * Where the request line starts, written from RFC 9112 2.2 rather than from
 * http.c: after any empty lines (CRLF or bare LF) that come before it.
 */
static size_t request_start(const char *buf, size_t len) {
    size_t i = 0;
    while (i < len && (buf[i] == '\n' || (buf[i] == '\r' && i + 1 < len && buf[i + 1] == '\n')))
        i += buf[i] == '\n' ? 1 : 2;
    return i;
}

/*
 * Where the head ends: just after the first empty line, CRLF or bare LF,
 * that follows the request line; 0 if there is none yet.
 */
static size_t blank_line_end(const char *buf, size_t len) {
    for (size_t i = request_start(buf, len); i < len; i++) {
        if (buf[i] != '\n')
            continue;
        if (i + 1 < len && buf[i + 1] == '\n')
            return i + 2;
        if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

/* How many of the head's lines, buf[0..used), are a field named `name` (in any case). */
static int field_count(const char *buf, size_t used, const char *name) {
    size_t n = strlen(name);
    int count = 0;
    for (size_t i = 0; i + 1 + n < used; i++)
        if (buf[i] == '\n' && strncasecmp(buf + i + 1, name, n) == 0 && buf[i + 1 + n] == ':')
            count++;
    return count;
}

/* Calls http_parse() on a private copy of buf[0..len) of exactly that size. */
static outcome parse_copy(const char *buf, size_t len, size_t max_request, char **copy) {
    *copy = malloc(len > 0 ? len : 1);
    REQUIRE(*copy != NULL);
    if (len > 0)
        memcpy(*copy, buf, len);
    outcome o;
    memset(&o, 0xa5, sizeof o);
    o.status = 0;
    o.error = NULL;
    o.r = http_parse(*copy, len, max_request, NULL, &o.req, &o.used, &o.status, &o.error);
    return o;
}

/*
 * Whether two requests say the same, wherever their bytes are. base_a and
 * base_b are the buffers they were parsed from, so that the target's
 * position can be compared as well as its text.
 */
static bool same_request(const http_request *a, const char *base_a, const http_request *b, const char *base_b) {
    return a->method == b->method && a->target_len == b->target_len &&
           (uintptr_t)a->target - (uintptr_t)base_a == (uintptr_t)b->target - (uintptr_t)base_b &&
           memcmp(a->target, b->target, a->target_len) == 0 && a->minor_version == b->minor_version &&
           a->keep_alive == b->keep_alive && a->accept_json == b->accept_json;
}

static bool same_outcome(const outcome *a, const char *base_a, const outcome *b, const char *base_b) {
    if (a->r != b->r)
        return false;
    switch (a->r) {
    case HTTP_OK:
        return a->used == b->used && same_request(&a->req, base_a, &b->req, base_b);
    case HTTP_ERROR:
        return a->status == b->status && strcmp(a->error, b->error) == 0;
    case HTTP_NEED_MORE:
        break;
    }
    return true;
}

/*
 * Writes the request back as a minimal head that says the same (the empty
 * lines before it, its method token, target and version, a Host, and the
 * Connection and Accept fields that give its flags) and parses that: every
 * field of the result must come from the bytes in a way that survives being
 * written out again.
 */
static void check_rewritten(const http_request *req, const char *buf, size_t used) {
    size_t start = request_start(buf, used);
    size_t mlen = (size_t)((uintptr_t)req->target - (uintptr_t)buf) - 1 - start;
    size_t cap = start + mlen + req->target_len + 128;
    char *out = malloc(cap);
    REQUIRE(out != NULL);
    int n = snprintf(out, cap, "%.*s%.*s %.*s HTTP/1.%d\r\nHost: h\r\nConnection: %s\r\n%s\r\n", (int)start, buf,
                     (int)mlen, buf + start, (int)req->target_len, req->target, req->minor_version,
                     req->keep_alive ? "keep-alive" : "close", req->accept_json ? "Accept: application/json\r\n" : "");
    REQUIRE(n > 0 && (size_t)n < cap);
    size_t len = (size_t)n;

    char *copy;
    outcome o = parse_copy(out, len, len, &copy);
    REQUIRE(o.r == HTTP_OK);
    REQUIRE(o.used == len);
    REQUIRE(same_request(&o.req, copy, req, buf));
    free(copy);
    free(out);
}

/* The contract of one call on buf[0..len), whatever came before it in the stream. */
static void check_outcome(const outcome *o, const char *buf, size_t len, size_t max_request) {
    REQUIRE(o->r == HTTP_OK || o->r == HTTP_ERROR || o->r == HTTP_NEED_MORE);
    /* A request starts with a method, and every method in use starts with
     * an upper-case letter: anything else (TLS, RESP, noise) is refused at
     * its first byte, without waiting for a blank line. */
    size_t start = request_start(buf, len);
    if (start < len && start < max_request && (buf[start] < 'A' || buf[start] > 'Z') && buf[start] != '\r')
        REQUIRE(o->r == HTTP_ERROR && o->status == 400);
    switch (o->r) {
    case HTTP_OK: {
        const http_request *req = &o->req;
        REQUIRE(o->used >= 1 && o->used <= len);
        REQUIRE(o->used <= max_request + OK_SLACK);
        /* The request is the head and nothing more: it ends with the first blank line. */
        REQUIRE(o->used == blank_line_end(buf, len));
        REQUIRE(inside(req->target, req->target_len, buf, o->used));
        REQUIRE(req->target_len >= 1 && req->target[0] == '/');
        for (size_t i = 0; i < req->target_len; i++)
            REQUIRE((unsigned char)req->target[i] > 0x20 && (unsigned char)req->target[i] < 0x7f);
        /* The target is the request line's second word, after a method token and one space. */
        const char *m = buf + start, *sp = memchr(m, ' ', o->used - start);
        REQUIRE(sp != NULL && sp > m && req->target == sp + 1);
        size_t mlen = (size_t)(sp - m);
        http_method method = mlen == 3 && memcmp(m, "GET", 3) == 0    ? HTTP_GET
                             : mlen == 4 && memcmp(m, "HEAD", 4) == 0 ? HTTP_HEAD
                             : mlen == 4 && memcmp(m, "POST", 4) == 0 ? HTTP_POST
                                                                      : HTTP_OTHER;
        REQUIRE(req->method == method);
        REQUIRE(req->minor_version == 0 || req->minor_version == 1);
        /* RFC 9112 3.2: an HTTP/1.1 request names its host. */
        /* RFC 9112 3.2: an HTTP/1.1 request names its host once; no request names it twice. */
        int hosts = field_count(buf, o->used, "host");
        REQUIRE(req->minor_version == 1 ? hosts == 1 : hosts <= 1);
        check_rewritten(req, buf, o->used);
        break;
    }
    case HTTP_ERROR:
        REQUIRE(o->status == 400 || o->status == 413 || o->status == 414 || o->status == 431 || o->status == 501 ||
                o->status == 505);
        REQUIRE(strcmp(http_reason(o->status), "Unknown") != 0);
        /* The error goes into a response, so it must not break the head. */
        REQUIRE(o->error != NULL);
        REQUIRE(o->error[0] != '\0');
        REQUIRE(strpbrk(o->error, "\r\n") == NULL);
        break;
    case HTTP_NEED_MORE:
        REQUIRE(blank_line_end(buf, len) == 0);
        REQUIRE(len <= max_request);
        break;
    }
}

/*
 * Parses the first `cut` bytes alone. The bytes after them may never arrive
 * or may be anything, so a prefix can only ask for more or come to the very
 * same conclusion as the whole; a different request, a different status, or
 * an error where the whole is fine, would make the server's answer depend on
 * how the network split the stream.
 */
static void check_prefix(const outcome *whole, const char *whole_buf, const char *buf, size_t cut, size_t max_request) {
    char *copy;
    outcome o = parse_copy(buf, cut, max_request, &copy);
    check_outcome(&o, copy, cut, max_request);
    REQUIRE(o.r == HTTP_NEED_MORE || same_outcome(&o, copy, whole, whole_buf));
    free(copy);
}

/* Bytes fed one at a time before the pieces that fuzz_cuts() chooses. */
#define BYTEWISE 64

static int by_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/*
 * Feeds growing prefixes of buf, ending with all len bytes, to one
 * http_scan, as the server feeds a slow client's bytes: each call reads on
 * from where the last stopped, and must come to what the whole read at once
 * came to (and leave the scan zeroed when it does).
 */
static void check_resumed(const outcome *whole, const char *whole_buf, const char *buf, size_t len, size_t max_request,
                          const size_t *cuts, size_t ncuts) {
    size_t steps[BYTEWISE + FUZZ_CUTS + 1], n = 0;
    for (size_t i = 1; i <= BYTEWISE && i < len; i++)
        steps[n++] = i;
    for (size_t i = 0; i < ncuts; i++)
        steps[n++] = cuts[i];
    steps[n++] = len;
    qsort(steps, n, sizeof steps[0], by_size);
    http_scan scan = {0, 0};
    for (size_t i = 0; i < n; i++) {
        char *copy = malloc(steps[i] > 0 ? steps[i] : 1);
        REQUIRE(copy != NULL);
        if (steps[i] > 0)
            memcpy(copy, buf, steps[i]);
        outcome o;
        memset(&o, 0xa5, sizeof o);
        o.status = 0;
        o.error = NULL;
        o.r = http_parse(copy, steps[i], max_request, &scan, &o.req, &o.used, &o.status, &o.error);
        if (o.r != HTTP_NEED_MORE) {
            REQUIRE(same_outcome(&o, copy, whole, whole_buf));
            REQUIRE(scan.pos == 0 && scan.part == 0);
            free(copy);
            return;
        }
        REQUIRE(scan.pos <= steps[i]);
        free(copy);
    }
    REQUIRE(whole->r == HTTP_NEED_MORE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2)
        return 0;
    size_t max_request = 16 + (((size_t)data[0] << 8 | data[1]) % 2048);
    const char *buf = (const char *)data + 2;
    size_t len = size - 2;

    /* The first request, and the same call again: without an http_scan, no state survives between calls. */
    char *whole_copy, *again_copy;
    outcome whole = parse_copy(buf, len, max_request, &whole_copy);
    check_outcome(&whole, whole_copy, len, max_request);
    outcome again = parse_copy(buf, len, max_request, &again_copy);
    REQUIRE(same_outcome(&again, again_copy, &whole, whole_copy));
    free(again_copy);

    /* Prefixes must need more, or give exactly what the whole gave. */
    size_t cuts[FUZZ_CUTS];
    size_t ncuts = fuzz_cuts(whole.r == HTTP_OK ? whole.used : len, max_request, len > 0 ? data[len + 1] : 0, cuts);
    for (size_t i = 0; i < ncuts; i++)
        check_prefix(&whole, whole_copy, buf, cuts[i], max_request);
    check_resumed(&whole, whole_copy, buf, len, max_request, cuts, ncuts);

    /* The stream, as the server takes it: head after head from one buffer. */
    size_t off = 0;
    for (;;) {
        outcome o;
        o.status = 0;
        o.error = NULL;
        o.r = http_parse(buf + off, len - off, max_request, NULL, &o.req, &o.used, &o.status, &o.error);
        check_outcome(&o, buf + off, len - off, max_request);
        REQUIRE(off > 0 || same_outcome(&o, buf, &whole, whole_copy));
        if (o.r != HTTP_OK)
            break;
        off += o.used;
    }
    free(whole_copy);
    return 0;
}
