/* SPDX-License-Identifier: MIT */
/*
 * resp.c - the RESP2 request grammar: arrays of bulk strings
 * ("*2\r\n$4\r\nMINT\r\n$9\r\nnanoflake\r\n") and inline commands
 * ("MINT nanoflake\r\n"), the two forms Redis accepts from clients.
 *
 * The parser starts from the beginning of the buffer on every call; a
 * command is bounded by max_request, so the repeated work is bounded too,
 * and no state survives between calls to go stale.
 */
#include "resp.h"

#include <string.h>

/* Reads a CRLF-terminated decimal at p (after the type byte). */
static resp_result read_number(const char *p, const char *end, long long max, long long *out, const char **next,
                               const char **error, const char *what) {
    const char *cr = memchr(p, '\r', (size_t)(end - p));
    /* A sign and 20 digits at most, whether or not the CR has arrived, so
     * the answer never depends on where the stream was cut (nor does zero
     * padding carry a request past its limit). */
    if ((cr == NULL ? end - p : cr - p) > 21) {
        *error = what;
        return RESP_ERROR;
    }
    if (cr == NULL)
        return RESP_NEED_MORE;
    if (cr + 1 == end)
        return RESP_NEED_MORE;
    if (cr[1] != '\n' || cr == p) {
        *error = what;
        return RESP_ERROR;
    }
    long long v = 0;
    int neg = 0;
    const char *q = p;
    if (*q == '-') {
        neg = 1;
        q++;
    }
    if (q == cr) {
        *error = what;
        return RESP_ERROR;
    }
    for (; q < cr; q++) {
        if (*q < '0' || *q > '9' || v > max) {
            *error = what;
            return RESP_ERROR;
        }
        v = v * 10 + (*q - '0');
    }
    if (v > max) {
        *error = what;
        return RESP_ERROR;
    }
    *out = neg ? -v : v;
    *next = cr + 2;
    return RESP_OK;
}

static resp_result parse_inline(const char *buf, size_t len, size_t max_request, resp_command *cmd, size_t *used,
                                const char **error) {
    const char *nl = memchr(buf, '\n', len);
    if (nl == NULL) {
        if (len > max_request) {
            *error = "Protocol error: too big inline request";
            return RESP_ERROR;
        }
        return RESP_NEED_MORE;
    }
    if ((size_t)(nl - buf) > max_request) {
        *error = "Protocol error: too big inline request";
        return RESP_ERROR;
    }
    const char *end = nl;
    if (end > buf && end[-1] == '\r')
        end--;
    cmd->argc = 0;
    for (const char *p = buf; p < end;) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p == end)
            break;
        if (*p == '"' || *p == '\'') {
            /* Redis's quoting rules are a language of their own; IDs and
             * format names never need them. */
            *error = "Protocol error: quoted inline arguments are not supported";
            return RESP_ERROR;
        }
        const char *start = p;
        while (p < end && *p != ' ' && *p != '\t')
            p++;
        if (cmd->argc == RESP_MAX_ARGS) {
            *error = "Protocol error: too many arguments";
            return RESP_ERROR;
        }
        cmd->argv[cmd->argc].ptr = start;
        cmd->argv[cmd->argc].len = (size_t)(p - start);
        cmd->argc++;
    }
    *used = (size_t)(nl - buf) + 1;
    return RESP_OK;
}

resp_result resp_parse(const char *buf, size_t len, size_t max_request, resp_command *cmd, size_t *used,
                       const char **error) {
    if (len == 0)
        return RESP_NEED_MORE;
    if (buf[0] != '*')
        return parse_inline(buf, len, max_request, cmd, used, error);

    const char *end = buf + len, *p;
    long long n;
    resp_result r = read_number(buf + 1, end, 1024 * 1024, &n, &p, error, "Protocol error: invalid multibulk length");
    if (r != RESP_OK)
        return r;
    cmd->argc = 0;
    if (n <= 0) { /* "*0" and "*-1" are empty requests, as Redis treats them */
        *used = (size_t)(p - buf);
        return RESP_OK;
    }
    if (n > RESP_MAX_ARGS) {
        *error = "Protocol error: too many arguments";
        return RESP_ERROR;
    }
    for (long long i = 0; i < n; i++) {
        if (p == end)
            return RESP_NEED_MORE;
        if (*p != '$') {
            *error = "Protocol error: expected '$'";
            return RESP_ERROR;
        }
        long long blen;
        r = read_number(p + 1, end, 1LL << 40, &blen, &p, error, "Protocol error: invalid bulk length");
        if (r != RESP_OK)
            return r;
        if (blen < 0) {
            *error = "Protocol error: invalid bulk length";
            return RESP_ERROR;
        }
        if ((size_t)(p - buf) + (size_t)blen > max_request) {
            *error = "Protocol error: request too large";
            return RESP_ERROR;
        }
        if ((size_t)(end - p) < (size_t)blen + 2)
            return RESP_NEED_MORE;
        if (p[blen] != '\r' || p[blen + 1] != '\n') {
            *error = "Protocol error: bulk string not followed by CRLF";
            return RESP_ERROR;
        }
        cmd->argv[cmd->argc].ptr = p;
        cmd->argv[cmd->argc].len = (size_t)blen;
        cmd->argc++;
        p += blen + 2;
    }
    *used = (size_t)(p - buf);
    return RESP_OK;
}
