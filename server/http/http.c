/* SPDX-License-Identifier: MIT */
/*
 * http.c - HTTP/1.1 request heads (RFC 9112), as much of the grammar as an
 * API without request bodies needs, and strict about the rest: request
 * smuggling and desynchronisation live in the lenient corners (bodies,
 * Transfer-Encoding, duplicate Content-Length, folded headers), so those
 * are refused, not interpreted.
 */
#include "http/http.h"

#include <string.h>
#include <strings.h>

const char *http_reason(int status) {
    switch (status) {
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 300:
        return "Multiple Choices";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 409:
        return "Conflict";
    case 413:
        return "Content Too Large";
    case 414:
        return "URI Too Long";
    case 401:
        return "Unauthorized";
    case 422:
        return "Unprocessable Content";
    case 429:
        return "Too Many Requests";
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
    case 507:
        return "Insufficient Storage";
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

/*
 * RFC 3986's host and port, without userinfo: a registered name, an IPv4
 * address or an IP literal in brackets, then ":port". Only the characters
 * are checked; the server answers to any name, so which host was meant
 * does not matter, only that the field could name one.
 */
static bool host_valid(const char *v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (c == '\0' || strchr("-._~%!$&'()*+,;=:[]", c) == NULL))
            return false;
    }
    return true;
}

/*
 * The parts of a head in the order they arrive. SCAN_LEAD is 0, so that a
 * zeroed http_scan starts a request.
 */
enum {
    SCAN_LEAD = 0, /* empty lines before the request line (RFC 9112 2.2) */
    SCAN_METHOD,   /* the method token */
    SCAN_TARGET,   /* the request target, then the version after its space */
    SCAN_FIELDS    /* header field lines, up to the empty line */
};

/*
 * The version and line end after the request target's space: "HTTP/" DIGIT
 * "." DIGIT, then CRLF or a bare LF, at v[0..avail). Returns the bytes they
 * take, 0 if those that have arrived are right so far, or -1 as soon as one
 * is wrong: judged a byte at a time, like the rest of the line.
 */
static int version_length(const char *v, size_t avail) {
    static const char shape[] = "HTTP/0.0\r\n";
    for (size_t k = 0; k < sizeof shape - 1; k++) {
        if (k == avail)
            return 0;
        unsigned char c = (unsigned char)v[k];
        if (k == 8 && c == '\n')
            return 9;
        bool fits = shape[k] == '0' ? c >= '0' && c <= '9' : c == (unsigned char)shape[k];
        if (!fits)
            return -1;
    }
    return 10;
}

/*
 * Reads buf[scan->pos..lim) and finds the end of the head (*end: just past
 * its empty line), or refuses the first byte that no request line could
 * hold. Otherwise it records in *scan where to go on, and needs more. A
 * byte whose meaning depends on the next one (a CR, the space after the
 * method or target) is left to be read again when that one comes, so every
 * stop is at a place the scan can start from with nothing but pos and part.
 */
static http_result scan_head(const char *buf, size_t lim, http_scan *scan, size_t *end, int *status,
                             const char **error) {
    size_t i = scan->pos;
    int part = scan->part;
    while (i < lim) {
        unsigned char c = (unsigned char)buf[i];
        if (part == SCAN_LEAD) {
            if (c == '\r' && i + 1 == lim)
                break;
            if (c == '\n' || (c == '\r' && buf[i + 1] == '\n')) {
                i += c == '\n' ? 1 : 2;
                continue;
            }
            /* Every method in use is upper case; a request that starts
             * otherwise is TLS, RESP or noise, and is told so at its first
             * byte rather than when a blank line that never comes arrives. */
            if (c < 'A' || c > 'Z')
                return fail(status, error, 400, "malformed request line");
            part = SCAN_METHOD;
            i++;
        } else if (part == SCAN_METHOD) {
            if (is_tchar(c)) {
                i++;
                continue;
            }
            if (c != ' ')
                return fail(status, error, 400, "malformed request line");
            if (i + 1 == lim)
                break;
            if (buf[i + 1] != '/')
                return fail(status, error, 400, "malformed request target");
            part = SCAN_TARGET;
            i += 2;
        } else if (part == SCAN_TARGET) {
            if (c > 0x20 && c < 0x7f) {
                i++;
                continue;
            }
            if (c != ' ')
                return fail(status, error, 400, "malformed request target");
            int n = version_length(buf + i + 1, lim - i - 1);
            if (n < 0)
                return fail(status, error, 400, "malformed HTTP version");
            if (n == 0)
                break;
            if (buf[i + 6] != '1' || (buf[i + 8] != '0' && buf[i + 8] != '1'))
                return fail(status, error, 505, "only HTTP/1.0 and HTTP/1.1 are served");
            part = SCAN_FIELDS;
            i += 1 + (size_t)n;
        } else {
            /* SCAN_FIELDS: i > 0, since a request line came before. */
            if (buf[i - 1] == '\n') {
                if (c == '\r' && i + 1 == lim)
                    break;
                if (c == '\n' || (c == '\r' && buf[i + 1] == '\n')) {
                    *end = i + (c == '\n' ? 1 : 2);
                    return HTTP_OK;
                }
            }
            const char *nl = memchr(buf + i, '\n', lim - i);
            i = nl != NULL ? (size_t)(nl - buf) + 1 : lim;
        }
    }
    scan->pos = i;
    scan->part = part;
    return HTTP_NEED_MORE;
}

/*
 * The request line and header fields of a head that scan_head() has found
 * whole and whose request line it has already judged: buf[0..end) ends
 * with the empty line.
 */
static http_result parse_head(const char *buf, size_t end, http_request *req, int *status, const char **error) {
    const char *p = buf, *stop = buf + end;
    while (*p == '\r' || *p == '\n')
        p++;
    const char *m = p, *sp = memchr(m, ' ', (size_t)(stop - m));
    size_t mlen = (size_t)(sp - m);
    req->method = (mlen == 3 && memcmp(m, "GET", 3) == 0)    ? HTTP_GET
                  : (mlen == 4 && memcmp(m, "HEAD", 4) == 0) ? HTTP_HEAD
                  : (mlen == 4 && memcmp(m, "POST", 4) == 0) ? HTTP_POST
                                                             : HTTP_OTHER;
    req->target = sp + 1;
    sp = memchr(req->target, ' ', (size_t)(stop - req->target));
    req->target_len = (size_t)(sp - req->target);
    req->minor_version = sp[8] - '0'; /* " HTTP/1.x" */
    req->keep_alive = req->minor_version == 1;
    req->accept_json = false;
    req->authorization = NULL;
    req->authorization_len = 0;
    req->idempotency_key = NULL;
    req->idempotency_key_len = 0;

    /* Header fields, up to the empty line. */
    bool seen_length = false, close = false, keep = false;
    int count = 0, hosts = 0;
    for (p = (const char *)memchr(sp, '\n', (size_t)(stop - sp)) + 1;;) {
        const char *eol = memchr(p, '\n', (size_t)(stop - p));
        const char *line_end = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
        if (line_end == p)
            break;
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
        } else if (nlen == 4 && strncasecmp(name, "Host", 4) == 0) {
            /* RFC 9112 3.2: two Hosts, or one that names no host, are 400
             * in every version, as proxies may disagree on which is meant. */
            if (++hosts > 1)
                return fail(status, error, 400, "more than one Host header");
            if (!host_valid(v, vlen))
                return fail(status, error, 400, "malformed Host header");
        } else if (nlen == 10 && strncasecmp(name, "Connection", 10) == 0) {
            close = close || list_has(v, vlen, "close");
            keep = keep || list_has(v, vlen, "keep-alive");
        } else if (nlen == 13 && strncasecmp(name, "Authorization", 13) == 0) {
            if (req->authorization != NULL)
                return fail(status, error, 400, "more than one Authorization header");
            req->authorization = v;
            req->authorization_len = vlen;
        } else if (nlen == 15 && strncasecmp(name, "Idempotency-Key", 15) == 0) {
            if (req->idempotency_key != NULL)
                return fail(status, error, 400, "more than one Idempotency-Key header");
            req->idempotency_key = v;
            req->idempotency_key_len = vlen;
        } else if (nlen == 6 && strncasecmp(name, "Accept", 6) == 0) {
            req->accept_json = req->accept_json || list_has(v, vlen, "application/json");
        }
        p = eol + 1;
    }
    if (req->minor_version == 1 && hosts == 0)
        return fail(status, error, 400, "an HTTP/1.1 request needs a Host header");
    if (close)
        req->keep_alive = false;
    else if (keep)
        req->keep_alive = true;
    return HTTP_OK;
}

http_result http_parse(const char *buf, size_t len, size_t max_request, http_scan *scan, http_request *req,
                       size_t *used, int *status, const char **error) {
    http_scan fresh = {0, SCAN_LEAD};
    if (scan == NULL)
        scan = &fresh;
    if (scan->pos > len)
        *scan = fresh; /* not these bytes' scan: start again rather than trust it */
    /* max_request bounds the whole head, the empty lines before it and the
     * one that ends it included: only its first max_request bytes are
     * read, and a head not over by then is refused once more have come. */
    size_t lim = len < max_request ? len : max_request, end = 0;
    http_result r = scan_head(buf, lim, scan, &end, status, error);
    if (r == HTTP_NEED_MORE && len > max_request)
        r = fail(status, error, 431, "request head too large");
    if (r == HTTP_OK)
        r = parse_head(buf, end, req, status, error);
    if (r != HTTP_NEED_MORE)
        *scan = fresh;
    if (r == HTTP_OK)
        *used = end;
    return r;
}
