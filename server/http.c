/*
 * http.c - HTTP/1.1 request heads (RFC 9112), as much of the grammar as a
 * GET-only API needs, and strict about the rest: request smuggling and
 * desynchronisation live in the lenient corners (bodies on GET,
 * Transfer-Encoding, duplicate Content-Length, folded headers), so those
 * are refused, not interpreted.
 */
#include "http.h"

#include <string.h>
#include <strings.h>

const char *http_reason(int status) {
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 413:
        return "Content Too Large";
    case 414:
        return "URI Too Long";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Unknown";
    }
}

/* RFC 9110 tchar: the characters of methods and header names. */
static bool is_tchar(unsigned char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static http_result fail(int *status, const char **error, int code, const char *why) {
    *status = code;
    *error = why;
    return HTTP_ERROR;
}

/* Finds the end of the head: the empty line. Bare LF line ends are accepted (RFC 9112 2.2). */
static const char *head_end(const char *buf, size_t len, size_t *term_len) {
    for (size_t i = 0; i + 1 < len; i++) {
        if (buf[i] != '\n')
            continue;
        if (buf[i + 1] == '\n') {
            *term_len = 2;
            return buf + i;
        }
        if (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n') {
            *term_len = 3;
            return buf + i;
        }
    }
    return NULL;
}

/* Does the comma-separated list `v` contain `token` (case-insensitively)? */
static bool list_has(const char *v, size_t n, const char *token) {
    size_t tl = strlen(token);
    size_t i = 0;
    while (i < n) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < n && v[i] != ',' && v[i] != ';')
            i++;
        size_t e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (e - s == tl && strncasecmp(v + s, token, tl) == 0)
            return true;
        while (i < n && v[i] != ',')
            i++; /* skip parameters such as ;q=0.9 */
    }
    return false;
}

http_result http_parse(const char *buf, size_t len, size_t max_request, http_request *req, size_t *used, int *status,
                       const char **error) {
    size_t term = 0;
    const char *end = head_end(buf, len, &term);
    if (end == NULL) {
        if (len > max_request)
            return fail(status, error, 431, "request head too large");
        return HTTP_NEED_MORE;
    }
    /* max_request bounds the whole head, its blank line included, as the
     * check on an unfinished head above does. */
    if ((size_t)(end - buf) + term > max_request)
        return fail(status, error, 431, "request head too large");

    /* The request line: METHOD SP target SP HTTP/1.x */
    const char *p = buf, *eol = memchr(buf, '\n', (size_t)(end - buf) + 1);
    const char *line_end = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
    const char *m = p;
    while (p < line_end && is_tchar((unsigned char)*p))
        p++;
    if (p == m || p == line_end || *p != ' ')
        return fail(status, error, 400, "malformed request line");
    size_t mlen = (size_t)(p - m);
    req->method = (mlen == 3 && memcmp(m, "GET", 3) == 0)    ? HTTP_GET
                  : (mlen == 4 && memcmp(m, "HEAD", 4) == 0) ? HTTP_HEAD
                                                             : HTTP_OTHER;
    const char *t = ++p;
    while (p < line_end && *p != ' ') {
        if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f)
            return fail(status, error, 400, "malformed request target");
        p++;
    }
    if (p == t || p == line_end || *t != '/')
        return fail(status, error, 400, "malformed request target");
    req->target = t;
    req->target_len = (size_t)(p - t);
    p++;
    if (line_end - p != 8 || memcmp(p, "HTTP/", 5) != 0 || p[6] != '.' || p[5] < '0' || p[5] > '9' || p[7] < '0' ||
        p[7] > '9')
        return fail(status, error, 400, "malformed HTTP version");
    if (p[5] != '1' || (p[7] != '0' && p[7] != '1'))
        return fail(status, error, 505, "only HTTP/1.0 and HTTP/1.1 are served");
    req->minor_version = p[7] - '0';
    req->keep_alive = req->minor_version == 1;
    req->accept_json = false;

    /* Header fields. */
    bool seen_length = false, close = false, keep = false;
    int count = 0;
    for (p = eol + 1; p < end + 1;) {
        eol = memchr(p, '\n', (size_t)(end - p) + 1);
        line_end = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
        if (line_end == p)
            break; /* cannot happen before `end`, kept for safety */
        if (*p == ' ' || *p == '\t')
            return fail(status, error, 400, "folded header lines are not accepted");
        if (++count > HTTP_MAX_HEADERS)
            return fail(status, error, 431, "too many header fields");
        const char *name = p;
        while (p < line_end && is_tchar((unsigned char)*p))
            p++;
        if (p == name || p == line_end || *p != ':')
            return fail(status, error, 400, "malformed header field");
        size_t nlen = (size_t)(p - name);
        p++;
        while (p < line_end && (*p == ' ' || *p == '\t'))
            p++;
        const char *v = p, *ve = line_end;
        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
            ve--;
        for (const char *c = v; c < ve; c++)
            if ((unsigned char)*c < 0x20 && *c != '\t')
                return fail(status, error, 400, "control character in a header field");
        size_t vlen = (size_t)(ve - v);
        if (nlen == 14 && strncasecmp(name, "Content-Length", 14) == 0) {
            if (seen_length)
                return fail(status, error, 400, "more than one Content-Length");
            seen_length = true;
            if (vlen == 0 || strspn(v, "0123456789") < vlen)
                return fail(status, error, 400, "malformed Content-Length");
            for (size_t i = 0; i < vlen; i++)
                if (v[i] != '0')
                    return fail(status, error, 413, "request bodies are not accepted");
        } else if (nlen == 17 && strncasecmp(name, "Transfer-Encoding", 17) == 0) {
            return fail(status, error, 501, "Transfer-Encoding is not supported");
        } else if (nlen == 10 && strncasecmp(name, "Connection", 10) == 0) {
            close = close || list_has(v, vlen, "close");
            keep = keep || list_has(v, vlen, "keep-alive");
        } else if (nlen == 6 && strncasecmp(name, "Accept", 6) == 0) {
            req->accept_json = req->accept_json || list_has(v, vlen, "application/json");
        }
        p = eol + 1;
    }
    if (close)
        req->keep_alive = false;
    else if (keep)
        req->keep_alive = true;
    *used = (size_t)(end - buf) + term;
    return HTTP_OK;
}
