/* SPDX-License-Identifier: MIT */
/*
 * resp.c - the RESP2 request grammar: arrays of bulk strings
 * ("*2\r\n$4\r\nMINT\r\n$9\r\nnanoflake\r\n") and inline commands
 * ("MINT nanoflake\r\n"), the two forms Redis accepts from clients.
 *
 * A command that has not arrived whole is resumed where the last call
 * stopped (resp_scan): the elements read whole are kept as offsets into
 * the buffer, and only the element in progress, whose header is at most
 * 22 bytes, is read again. So a command's bytes are examined a bounded
 * number of times however the stream is cut.
 */
#include "resp/resp.h"

#include <stdbool.h>
#include <string.h>

/* The longest a number's text may be: a sign and 20 digits. */
#define NUMBER_MAX 21

/* Reads a CRLF-terminated decimal at p (after the type byte). */
static resp_result read_number(const char *p, const char *end, long long max, long long *out, const char **next,
                               const char **error, const char *what, size_t *examined) {
    /* Only as far as a number may reach: past it, the CR is too late anyway. */
    size_t lim = (size_t)(end - p) < NUMBER_MAX + 1 ? (size_t)(end - p) : NUMBER_MAX + 1;
    const char *cr = memchr(p, '\r', lim);
    *examined += cr != NULL ? (size_t)(cr - p) + 1 : lim;
    /* A sign and 20 digits at most, whether or not the CR has arrived, so
     * the answer never depends on where the stream was cut (nor does zero
     * padding carry a request past its limit). */
    if ((cr == NULL ? end - p : cr - p) > NUMBER_MAX) {
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

static resp_result parse_inline(const char *buf, size_t len, size_t max_request, resp_scan *scan, resp_command *cmd,
                                size_t *used, const char **error) {
    /* What the last call looked at has no LF. */
    const char *nl = memchr(buf + scan->pos, '\n', len - scan->pos);
    scan->examined += nl != NULL ? (size_t)(nl - (buf + scan->pos)) + 1 : len - scan->pos;
    if (nl == NULL) {
        scan->pos = len;
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
    scan->examined += (size_t)(end - buf);
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

static resp_result parse(const char *buf, size_t len, size_t max_request, resp_scan *scan, resp_command *cmd,
                         size_t *used, const char **error) {
    if (len == 0)
        return RESP_NEED_MORE;
    scan->examined++;
    if (buf[0] != '*')
        return parse_inline(buf, len, max_request, scan, cmd, used, error);

    const char *end = buf + len, *p;
    resp_result r;
    if (scan->nargs == 0) {
        long long n;
        r = read_number(buf + 1, end, 1024 * 1024, &n, &p, error, "Protocol error: invalid multibulk length",
                        &scan->examined);
        if (r != RESP_OK)
            return r;
        if (n <= 0) { /* "*0" and "*-1" are empty requests, as Redis treats them */
            cmd->argc = 0;
            *used = (size_t)(p - buf);
            return RESP_OK;
        }
        if (n > RESP_MAX_ARGS) {
            *error = "Protocol error: too many arguments";
            return RESP_ERROR;
        }
        scan->nargs = (int)n;
        scan->argc = 0;
        scan->pos = (size_t)(p - buf);
    }
    p = buf + scan->pos;
    while (scan->argc < scan->nargs) {
        if (p == end)
            return RESP_NEED_MORE;
        scan->examined++;
        if (*p != '$') {
            *error = "Protocol error: expected '$'";
            return RESP_ERROR;
        }
        long long blen;
        const char *data;
        r = read_number(p + 1, end, 1LL << 40, &blen, &data, error, "Protocol error: invalid bulk length",
                        &scan->examined);
        if (r != RESP_OK)
            return r;
        if (blen < 0) {
            *error = "Protocol error: invalid bulk length";
            return RESP_ERROR;
        }
        if ((size_t)(data - buf) + (size_t)blen > max_request) {
            *error = "Protocol error: request too large";
            return RESP_ERROR;
        }
        if ((size_t)(end - data) < (size_t)blen + 2)
            return RESP_NEED_MORE;
        scan->examined += 2;
        if (data[blen] != '\r' || data[blen + 1] != '\n') {
            *error = "Protocol error: bulk string not followed by CRLF";
            return RESP_ERROR;
        }
        scan->off[scan->argc] = (size_t)(data - buf);
        scan->len[scan->argc] = (size_t)blen;
        scan->argc++;
        p = data + blen + 2;
        scan->pos = (size_t)(p - buf);
    }
    cmd->argc = scan->nargs;
    for (int i = 0; i < cmd->argc; i++) {
        cmd->argv[i].ptr = buf + scan->off[i];
        cmd->argv[i].len = scan->len[i];
    }
    *used = scan->pos;
    return RESP_OK;
}

resp_result resp_parse(const char *buf, size_t len, size_t max_request, resp_scan *scan, resp_command *cmd,
                       size_t *used, const char **error) {
    resp_scan fresh;
    if (scan == NULL) {
        memset(&fresh, 0, sizeof fresh);
        scan = &fresh;
    }
    resp_result r = parse(buf, len, max_request, scan, cmd, used, error);
    if (r != RESP_NEED_MORE) {
        size_t examined = scan->examined;
        memset(scan, 0, sizeof *scan);
        scan->examined = examined;
    }
    return r;
}
