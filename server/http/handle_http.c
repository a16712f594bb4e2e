/* SPDX-License-Identifier: MIT */
/*
 * handle_http.c - the HTTP API as a protocol of the connection layer
 * (http_proto): the route table (routes[], below), query parameters,
 * responses.
 *
 *   GET /v1/{format}[?count=N][&as=FORM]   mint (text/plain, or JSON with Accept: application/json)
 *   POST /v1/{format}[?...]                the same; with Idempotency-Key, once per key (keys.c)
 *   GET /v1/keys/{format}/{key}            what a key was given
 *   GET /v1/{format}/{id}[?from=FORM]      inspect (JSON)
 *   GET /v1/inspect/{id}                   inspect, the format guessed (JSON; 300 lists the candidates)
 *   GET /v1/range/{format}?from=T[&to=T]   the IDs that bound a time window
 *   GET /v1/formats, /healthz, /metrics
 *   GET /                                  the page that shows an ID (server/page/)
 *
 * Every route answers GET and HEAD, /v1/{format} POST too; any other method is 405.
 */
#include "http/handle_http.h"

#include "net/auth.h"
#include "net/conn.h"
#include "job.h"
#include "http/http.h"
#include "keys/keys.h"
#include "base/log.h"
#include "page.h"
#include "stats.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define REFUSAL_BODY "max-connections reached; try again.\r\n"
#define REFUSAL_BODY_LEN 37
#define DECIMAL_(n) #n
#define DECIMAL(n) DECIMAL_(n)
/* A Content-Length that does not match the body makes clients fail the reply (curl exits 18). */
_Static_assert(sizeof REFUSAL_BODY - 1 == REFUSAL_BODY_LEN, "REFUSAL_BODY_LEN must be the length of REFUSAL_BODY");
static const char http_refusal[] =
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: " DECIMAL(
        REFUSAL_BODY_LEN) "\r\nConnection: close\r\n\r\n" REFUSAL_BODY;

/*
 * What an HTTP connection remembers: how far the parser has read an
 * incomplete request, and of a mint in progress, what its reply needs.
 */
typedef struct http_session {
    http_scan scan;
    http_method method;
    int minor;
    bool keep_alive, json;
    /* The line of a text reply of one ID, which needs no buffer of its own. */
    char one[MINTID_TEXT_MAX + 1];
    size_t one_len;
} http_session;

static http_session *session_of(const conn *c) { return c->session; }

typedef struct response {
    int status;
    const char *type; /* Content-Type */
    bool no_store;    /* IDs must never come from a cache */
} response;

static void add_to_evbuffer(void *ctx, const char *s, size_t n) { evbuffer_add(ctx, s, n); }

/* A body this short is copied in behind its head, and both go out as one piece. */
#define SMALL_BODY 512

/* Appends the n bytes of s at dst[*at], which has room (send_head() counts). */
static void put(char *dst, size_t *at, const char *s, size_t n) {
    memcpy(dst + *at, s, n);
    *at += n;
}

/*
 * Queues the head of r for a body of len bytes, with header lines of its
 * own (own: "Name: value\r\n"...; NULL: those of its status), then the
 * body: text when it is not NULL, else all of body. The head is put together by hand, not
 * by printf, as it is on every request's path.
 */
static void send_head(conn *c, const http_request *req, struct evbuffer *out, const response *r, const char *text,
                      size_t len, struct evbuffer *body, const char *own) {
    const char *connection = !req->keep_alive || c->closing ? "Connection: close\r\n"
                             : req->minor_version == 0      ? "Connection: keep-alive\r\n"
                                                            : "";
    const char *extra = own != NULL        ? own
                        : r->status == 405 ? "Allow: GET, HEAD\r\n"
                        : r->status == 401 ? "WWW-Authenticate: Bearer realm=\"mintidd\"\r\n"
                                           : "";
    static const char no_store[] = "Cache-Control: no-store\r\n";
    const char *reason = http_reason(r->status);
    size_t reason_len = strlen(reason), type_len = strlen(r->type), extra_len = strlen(extra),
           connection_len = strlen(connection);
    bool head_only = req->method == HTTP_HEAD;
    char buf[512 + SMALL_BODY], digits[20];
    size_t nd = 0;
    for (size_t v = len; nd == 0 || v > 0; v /= 10)
        digits[sizeof digits - 1 - nd++] = (char)('0' + v % 10);
    size_t need = sizeof "HTTP/1.1 000 \r\nContent-Type: \r\nContent-Length: \r\n\r\n" + reason_len + type_len + nd +
                  sizeof no_store + extra_len + connection_len + (text != NULL && !head_only ? len : 0);
    if (need > sizeof buf || r->status < 100 || r->status > 999) {
        /* Not a response this file makes; printf has no limit to keep. */
        evbuffer_add_printf(out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s%s\r\n", r->status,
                            reason, r->type, len, r->no_store ? no_store : "", extra, connection);
        if (!head_only && text != NULL)
            evbuffer_add(out, text, len);
        else if (!head_only)
            evbuffer_add_buffer(out, body);
    } else {
        size_t at = 0;
        char status[4] = {(char)('0' + r->status / 100), (char)('0' + r->status / 10 % 10),
                          (char)('0' + r->status % 10), ' '};
        put(buf, &at, "HTTP/1.1 ", 9);
        put(buf, &at, status, 4);
        put(buf, &at, reason, reason_len);
        put(buf, &at, "\r\nContent-Type: ", 16);
        put(buf, &at, r->type, type_len);
        put(buf, &at, "\r\nContent-Length: ", 18);
        put(buf, &at, digits + sizeof digits - nd, nd);
        put(buf, &at, "\r\n", 2);
        if (r->no_store)
            put(buf, &at, no_store, sizeof no_store - 1);
        put(buf, &at, extra, extra_len);
        put(buf, &at, connection, connection_len);
        put(buf, &at, "\r\n", 2);
        if (text != NULL && !head_only)
            put(buf, &at, text, len);
        evbuffer_add(out, buf, at);
        if (text == NULL && !head_only)
            evbuffer_add_buffer(out, body);
    }
    if (body != NULL)
        evbuffer_drain(body, evbuffer_get_length(body));
    if (r->status >= 400)
        c->srv->svc->c->errors[PROTO_HTTP]++;
}

/*
 * Sends head and body (srv->scratch unless the response is a mint's), with
 * header lines of its own (own: "Name: value\r\n"...; NULL: those of its
 * status).
 */
static void send_body_with(conn *c, const http_request *req, struct evbuffer *out, const response *r,
                           struct evbuffer *body, const char *own) {
    size_t len = evbuffer_get_length(body);
    char text[SMALL_BODY];
    if (len <= sizeof text && evbuffer_copyout(body, text, len) == (ev_ssize_t)len)
        send_head(c, req, out, r, text, len, body, own);
    else
        send_head(c, req, out, r, NULL, len, body, own);
}

static void send_body(conn *c, const http_request *req, struct evbuffer *out, const response *r,
                      struct evbuffer *body) {
    send_body_with(c, req, out, r, body, NULL);
}

static void send_response(conn *c, const http_request *req, struct evbuffer *out, const response *r) {
    send_body(c, req, out, r, c->srv->scratch);
}

/* JSON string contents: quotes, backslashes and control characters escaped. */
static void json_text(struct evbuffer *b, const char *s) {
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            evbuffer_add_printf(b, "\\%c", ch);
        else if (ch < 0x20)
            evbuffer_add_printf(b, "\\u%04x", ch);
        else
            evbuffer_add(b, s, 1);
    }
}

static void send_errorv(conn *c, const http_request *req, struct evbuffer *out, int status, const char *extra,
                        const char *fmt, va_list ap) {
    char msg[700];
    vsnprintf(msg, sizeof msg, fmt, ap);
    struct evbuffer *body = c->srv->scratch;
    response r = {status, "text/plain; charset=utf-8", false};
    if (req->accept_json) {
        r.type = "application/json";
        evbuffer_add(body, "{\"error\":\"", 10);
        json_text(body, msg);
        evbuffer_add(body, "\"}\n", 3);
    } else {
        evbuffer_add_printf(body, "%s\n", msg);
    }
    send_body_with(c, req, out, &r, c->srv->scratch, extra);
}

static void send_error(conn *c, const http_request *req, struct evbuffer *out, int status, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void send_error(conn *c, const http_request *req, struct evbuffer *out, int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    send_errorv(c, req, out, status, NULL, fmt, ap);
    va_end(ap);
}

/* An error response with header lines of its own (extra). */
static void send_error_with(conn *c, const http_request *req, struct evbuffer *out, int status, const char *extra,
                            const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void send_error_with(conn *c, const http_request *req, struct evbuffer *out, int status, const char *extra,
                            const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    send_errorv(c, req, out, status, extra, fmt, ap);
    va_end(ap);
}

/*
 * The HTTP status of a library status's class: the one place where a
 * status becomes HTTP's. The caller's words are 400; the clock, the
 * capacity of a millisecond and the host are 503 (not now, or not here:
 * asking again later may succeed); the server's own mistake is 500. The
 * routes keep two finer answers they document: an unknown format in the
 * path is 404, and an ID several formats could be is 300.
 */
static int http_status(mintid_class cls) {
    switch (cls) {
    case MINTID_CLASS_NONE:
        return 200;
    case MINTID_CLASS_INPUT:
        return 400;
    case MINTID_CLASS_CLOCK:
    case MINTID_CLASS_CAPACITY:
    case MINTID_CLASS_ENVIRONMENT:
        return 503;
    case MINTID_CLASS_PROGRAM:
        return 500;
    }
    return 500;
}

/* An error answered with the status of rc's class and the sentence why (the library's). */
static void send_why(conn *c, const http_request *req, struct evbuffer *out, int rc, const char *why) {
    send_error(c, req, out, http_status(mintid_status_class(rc)), "%s", why);
}

/* 405, with the methods the path takes in Allow (post: POST as well as GET and HEAD). */
static void send_405(conn *c, const http_request *req, struct evbuffer *out, bool post) {
    if (post)
        send_error_with(c, req, out, 405, "Allow: GET, HEAD, POST\r\n", "only GET, HEAD and POST are served here");
    else
        send_error_with(c, req, out, 405, "Allow: GET, HEAD\r\n", "only GET and HEAD are served");
}

/*
 * Decodes %XX escapes of a path segment into buf (cap bytes, 256 at most);
 * NULL, or why not: malformed, or longer than any format's ID can be.
 */
static const char *percent_decode(const char *s, size_t len, char *buf, size_t cap, size_t *out_len) {
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (o + 1 >= cap)
            return "longer than 255 bytes";
        if (s[i] != '%') {
            buf[o++] = s[i];
            continue;
        }
        unsigned v = 0;
        for (int k = 1; k <= 2; k++) {
            char h = i + (size_t)k < len ? s[i + (size_t)k] : '\0';
            unsigned d = h >= '0' && h <= '9'   ? (unsigned)(h - '0')
                         : h >= 'a' && h <= 'f' ? (unsigned)(h - 'a' + 10)
                         : h >= 'A' && h <= 'F' ? (unsigned)(h - 'A' + 10)
                                                : 16;
            if (d == 16)
                return "malformed percent-encoding";
            v = v * 16 + d;
        }
        buf[o++] = (char)v;
        i += 2;
    }
    buf[o] = '\0';
    *out_len = o;
    return NULL;
}

typedef struct param {
    const char *name;
    const char *value;
    size_t len;
    bool seen;
} param;

/* Reads the query into params (names fixed by the caller); false after an error response. */
static bool parse_query(conn *c, const http_request *req, struct evbuffer *out, const char *q, size_t qlen,
                        param *params, int nparams) {
    char shown[MINTID_ESCAPED_MAX];
    for (size_t i = 0; i < qlen;) {
        size_t end = i;
        while (end < qlen && q[end] != '&')
            end++;
        const char *eq = memchr(q + i, '=', end - i);
        size_t nlen = eq != NULL ? (size_t)(eq - (q + i)) : end - i;
        int k;
        for (k = 0; k < nparams; k++)
            if (strlen(params[k].name) == nlen && memcmp(params[k].name, q + i, nlen) == 0)
                break;
        if (end > i) {
            if (k == nparams) {
                mintid_escape(q + i, nlen, shown, sizeof shown);
                send_error(c, req, out, 400, "unknown query parameter '%s'", shown);
                return false;
            }
            if (params[k].seen) {
                send_error(c, req, out, 400, "query parameter '%s' given twice", params[k].name);
                return false;
            }
            params[k].seen = true;
            params[k].value = eq != NULL ? eq + 1 : q + end;
            params[k].len = eq != NULL ? (size_t)(q + end - (eq + 1)) : 0;
        }
        i = end + 1;
    }
    return true;
}

static int param_form(conn *c, const http_request *req, struct evbuffer *out, const mintid_format *fmt,
                      const param *p) {
    char why[MINTID_WHY_MAX];
    mintid_form form;
    int rc = mintid_lookup_form(fmt, p->value, p->len, &form, why, sizeof why);
    if (rc != MINTID_OK) {
        send_why(c, req, out, rc, why);
        return -1;
    }
    return (int)form;
}

/* ?prefix=: true with prefix set (left empty when not given, or given empty), or false after a 400. */
static bool param_prefix(conn *c, const http_request *req, struct evbuffer *out, const mintid_format *fmt, int form,
                         const param *p, char prefix[MINTID_PREFIX_MAX + 1]) {
    char decoded[256], why[MINTID_WHY_MAX];
    size_t len;
    const char *bad;
    if (!p->seen)
        return true;
    if ((bad = percent_decode(p->value, p->len, decoded, sizeof decoded, &len)) != NULL) {
        send_error(c, req, out, 400, "prefix: %s", bad);
        return false;
    }
    int rc = mintid_lookup_prefix(fmt, form, decoded, len, why, sizeof why);
    if (rc != MINTID_OK) {
        send_why(c, req, out, rc, why);
        return false;
    }
    memcpy(prefix, decoded, len);
    prefix[len] = '\0';
    return true;
}

static void not_found(conn *c, const http_request *req, struct evbuffer *out, size_t plen) {
    char shown[MINTID_ESCAPED_MAX];
    mintid_escape(req->target, plen, shown, sizeof shown);
    send_error(c, req, out, 404, "no such resource '%s'; see GET /v1/formats", shown);
}

/* Answers 200 with the inspection (JSON) of an ID of fmt, as the server's epoch reads it. */
static void send_inspection(conn *c, const http_request *req, struct evbuffer *out, const mintid_format *fmt,
                            const mintid_id *id, const char *prefix) {
    char json[MINTID_JSON_MAX];
    int n = mintid_id_to_json_prefixed(fmt, id, prefix, config_epoch(c->srv->cfg, fmt), json, sizeof json);
    if (n < 0) {
        send_error(c, req, out, 500, "%s: %s", fmt->name, mintid_strerror(n));
        return;
    }
    evbuffer_add(c->srv->scratch, json, (size_t)n);
    evbuffer_add(c->srv->scratch, "\n", 1);
    response r = {200, "application/json", false};
    send_response(c, req, out, &r);
}

/* One line per ID, or JSON strings in an array. */
static void http_encode(conn *c, const mintid_id *ids, size_t n) {
    mint_job *j = &c->job;
    bool json = session_of(c)->json;
    char line[MINTID_TEXT_MAX + 4];
    for (size_t i = 0; i < n; i++) {
        size_t off = 0;
        if (json) {
            if (j->done + i > 0)
                line[off++] = ',';
            line[off++] = '"';
        }
        int len = mintid_encode_prefixed(j->fmt, (mintid_form)j->form, &ids[i], j->prefix, line + off, MINTID_TEXT_MAX);
        if (len < 0) {
            j->error = len;
            return;
        }
        off += (size_t)len;
        line[off++] = json ? '"' : '\n';
        if (!json && j->count == 1) {
            memcpy(session_of(c)->one, line, off);
            session_of(c)->one_len = off;
        } else {
            evbuffer_add(j->body, line, off);
        }
    }
}

/* The request a mint or a key's lookup was asked with, as its session kept it for the reply. */
static http_request saved_request(const conn *c) {
    const http_session *s = session_of(c);
    return (http_request){
        .method = s->method, .minor_version = s->minor, .keep_alive = s->keep_alive, .accept_json = s->json};
}

static void save_request(conn *c, const http_request *req) {
    http_session *s = session_of(c);
    s->method = req->method;
    s->minor = req->minor_version;
    s->keep_alive = req->keep_alive;
    s->json = req->accept_json;
}

/*
 * A key's IDs as a mint answers them, in srv->scratch: one per line, or
 * JSON's {"ids":[...] without its closing brace, for the caller to add
 * more before it.
 */
static bool key_body(conn *c, const key_request *r, bool json) {
    struct evbuffer *b = c->srv->scratch;
    char text[MINTID_TEXT_MAX];
    if (json)
        evbuffer_add(b, "{\"ids\":[", 8);
    for (uint64_t i = 0; i < r->got_count; i++) {
        int len =
            mintid_encode_prefixed(r->fmt, (mintid_form)r->got_form, &r->got_ids[i], r->got_prefix, text, sizeof text);
        if (len < 0) {
            evbuffer_drain(b, evbuffer_get_length(b));
            return false;
        }
        if (json)
            evbuffer_add_printf(b, "%s\"%.*s\"", i > 0 ? "," : "", len, text);
        else
            evbuffer_add_printf(b, "%.*s\n", len, text);
    }
    if (json)
        evbuffer_add(b, "]", 1);
    return true;
}

/* The key store's answer to a keyed POST /v1/{format}. */
static void http_key_done(conn *c, const key_request *r) {
    http_request req = saved_request(c);
    char shown[MINTID_ESCAPED_MAX];
    mintid_escape(r->key, r->key_len, shown, sizeof shown);
    switch (r->outcome) {
    case KEY_CREATED:
    case KEY_REPLAYED:
        if (!key_body(c, r, req.accept_json)) {
            send_error(c, &req, c->out, 500, "%s: the key's IDs cannot be encoded", r->fmt->name);
            return;
        }
        if (req.accept_json)
            evbuffer_add(c->srv->scratch, "}\n", 2);
        response ok = {r->outcome == KEY_CREATED ? 201 : 200,
                       req.accept_json ? "application/json" : "text/plain; charset=utf-8", true};
        send_body_with(c, &req, c->out, &ok, c->srv->scratch,
                       r->outcome == KEY_REPLAYED ? "Idempotent-Replayed: true\r\n" : "");
        return;
    case KEY_MISMATCH:
        send_error(c, &req, c->out, 422,
                   "%s: idempotency key '%s' was used for another request (count %" PRIu64 ", as %s, prefix '%s'); "
                   "a new request needs a new key",
                   r->fmt->name, shown, r->got_count, mintid_form_name((mintid_form)r->got_form), r->got_prefix);
        return;
    case KEY_FULL:
        send_error(c, &req, c->out, 507,
                   "the key store holds key-max keys: no new idempotency key is taken (minting without one goes on)");
        return;
    case KEY_FOUND:
    case KEY_ABSENT:
    case KEY_FAILED:
        break;
    }
    send_error(c, &req, c->out, 503, "%s: %s", r->fmt->name, r->why[0] != '\0' ? r->why : "the key store failed");
}

static void http_finish(conn *c, int status, const char *why) {
    mint_job *j = &c->job;
    const http_session *s = session_of(c);
    http_request req = saved_request(c);
    if (keys_finish(c, status, why))
        return;
    if (status != MINTID_OK) {
        /* A format not served is 404, as an unknown one is. A mint's time
         * is the clock's: outside the format's range, the clock is at
         * fault, not the request. */
        mintid_class cls = status == MINTID_ETIME ? MINTID_CLASS_CLOCK : mintid_status_class(status);
        send_error(c, &req, c->out, status == MINTID_EFORMAT ? 404 : http_status(cls), "%s: %s", j->fmt->name, why);
        return;
    }
    if (s->json)
        evbuffer_add(j->body, "]}\n", 3);
    response r = {200, s->json ? "application/json" : "text/plain; charset=utf-8", true};
    if (!s->json && j->count == 1)
        send_head(c, &req, c->out, &r, s->one, s->one_len, j->body, NULL);
    else
        send_body(c, &req, c->out, &r, j->body);
}

static void route_mint(conn *c, const http_request *req, struct evbuffer *out, const mintid_format *fmt, const char *q,
                       size_t qlen) {
    server *srv = c->srv;
    param params[] = {{"count", NULL, 0, false}, {"as", NULL, 0, false}, {"prefix", NULL, 0, false}};
    if (!parse_query(c, req, out, q, qlen, params, 3))
        return;
    uint64_t count = 1;
    if (params[0].seen && !service_parse_count(params[0].value, params[0].len, srv->cfg->max_count, &count)) {
        send_error(c, req, out, 400, "count must be 1..%" PRIu64, srv->cfg->max_count);
        return;
    }
    int form = MINTID_FORM_TEXT;
    if (params[1].seen && (form = param_form(c, req, out, fmt, &params[1])) < 0)
        return;
    char prefix[MINTID_PREFIX_MAX + 1] = "";
    if (!param_prefix(c, req, out, fmt, form, &params[2], prefix))
        return;
    if (req->idempotency_key != NULL) {
        char key[KEY_MAX + 1];
        size_t klen = 0;
        const char *why;
        if (req->method != HTTP_POST) {
            send_error(c, req, out, 400, "Idempotency-Key is taken on POST /v1/{format} only");
            return;
        }
        if (!key_parse_header(req->idempotency_key, req->idempotency_key_len, key, &klen, &why)) {
            send_error(c, req, out, 400, "%s", why);
            return;
        }
        keys_start ks = keys_begin(c, fmt, key, klen, form, prefix, count, http_key_done);
        if (ks == KEYS_BUSY) {
            char shown[MINTID_ESCAPED_MAX];
            mintid_escape(key, klen, shown, sizeof shown);
            send_error(c, req, out, 409, "%s: idempotency key '%s' is in progress: try again when it has been answered",
                       fmt->name, shown);
            return;
        }
        if (ks == KEYS_TOO_MANY) {
            send_error(c, req, out, 400, "count must be 1..%" PRIu64 " with an Idempotency-Key on this server",
                       keys_max_count(srv));
            return;
        }
        if (ks == KEYS_NOMEM || ks == KEYS_NOSTORE) {
            send_error(c, req, out, 503, "%s", ks == KEYS_NOMEM ? "out of memory" : "no key store");
            return;
        }
    }
    mint_job *j = &c->job;
    save_request(c, req);
    if (req->accept_json)
        evbuffer_add(j->body, "{\"ids\":[", 8);
    job_start(c, fmt, form, prefix, count, http_encode, http_finish);
}

/* The key store's answer to GET /v1/keys/{format}/{key}. */
static void http_keyget_done(conn *c, const key_request *r) {
    http_request req = saved_request(c);
    char shown[MINTID_ESCAPED_MAX];
    mintid_escape(r->key, r->key_len, shown, sizeof shown);
    if (r->outcome == KEY_ABSENT) {
        send_error(c, &req, c->out, 404, "%s: no idempotency key '%s' (or it has expired)", r->fmt->name, shown);
        return;
    }
    if (r->outcome != KEY_FOUND) {
        send_error(c, &req, c->out, 503, "%s: %s", r->fmt->name, r->why[0] != '\0' ? r->why : "the key store failed");
        return;
    }
    if (!key_body(c, r, req.accept_json)) {
        send_error(c, &req, c->out, 500, "%s: the key's IDs cannot be encoded", r->fmt->name);
        return;
    }
    struct evbuffer *b = c->srv->scratch;
    if (req.accept_json) {
        evbuffer_add_printf(b, ",\"format\":\"%s\",\"key\":\"", r->fmt->name);
        json_text(b, r->key);
        evbuffer_add_printf(b, "\",\"count\":%" PRIu64 ",\"as\":\"%s\",\"prefix\":\"", r->got_count,
                            mintid_form_name((mintid_form)r->got_form));
        json_text(b, r->got_prefix);
        evbuffer_add_printf(b, "\",\"created_ms\":%" PRId64 "}\n", r->created_ms);
    }
    response ok = {200, req.accept_json ? "application/json" : "text/plain; charset=utf-8", true};
    send_response(c, &req, c->out, &ok);
}

static const mintid_format *route_format(conn *c, const http_request *req, struct evbuffer *out, const char *name,
                                         size_t len);

/* GET /v1/keys/{format}/{key}: the IDs key (percent-encoded) was given, in the client's scope. */
static void route_keys(conn *c, const http_request *req, struct evbuffer *out, const char *rest, size_t rest_len,
                       const char *q, size_t qlen) {
    const char *slash = memchr(rest, '/', rest_len);
    size_t klen = slash != NULL ? (size_t)(rest + rest_len - (slash + 1)) : 0;
    if (slash == NULL || klen == 0 || memchr(slash + 1, '/', klen) != NULL) {
        not_found(c, req, out, (size_t)(rest + rest_len - req->target));
        return;
    }
    const mintid_format *fmt = route_format(c, req, out, rest, (size_t)(slash - rest));
    if (fmt == NULL || !parse_query(c, req, out, q, qlen, NULL, 0))
        return;
    char key[256];
    size_t len;
    const char *why = percent_decode(slash + 1, klen, key, sizeof key, &len);
    if (why != NULL || !key_valid(key, len, &why)) {
        send_error(c, req, out, 400, "the key: %s", why);
        return;
    }
    save_request(c, req);
    keys_lookup(c, fmt, key, len, http_keyget_done);
}

/*
 * Answers the inspection of what mintid_read_text() read: an ID that
 * decodes but is no ID its format mints (MINTID_EINVALID with the format
 * known) is shown all the same, as the person asked what it holds.
 */
static bool read_and_inspect(conn *c, const http_request *req, struct evbuffer *out, int rc, const mintid_reading *r) {
    if (rc != MINTID_OK && !(rc == MINTID_EINVALID && r->fmt != NULL))
        return false;
    send_inspection(c, req, out, r->fmt, &r->id, r->prefix);
    return true;
}

static void route_inspect(conn *c, const http_request *req, struct evbuffer *out, const mintid_format *fmt,
                          const char *id_text, size_t id_len, const char *q, size_t qlen) {
    char decoded[256], why[MINTID_WHY_MAX];
    size_t len;
    const char *bad = percent_decode(id_text, id_len, decoded, sizeof decoded, &len);
    if (bad != NULL) {
        send_error(c, req, out, 400, "the ID: %s", bad);
        return;
    }
    param params[] = {{"from", NULL, 0, false}};
    if (!parse_query(c, req, out, q, qlen, params, 1))
        return;
    int form = MINTID_FORM_ANY;
    if (params[0].seen && (form = param_form(c, req, out, fmt, &params[0])) < 0)
        return;
    mintid_reading r;
    int rc = mintid_read_text(fmt, form, config_epoch(c->srv->cfg, fmt), decoded, len, &r, why, sizeof why);
    if (!read_and_inspect(c, req, out, rc, &r))
        send_why(c, req, out, rc, why);
}

/*
 * GET /v1/inspect/{id}: as GET /v1/{format}/{id}, with the format guessed
 * from the ID's shape as `mintid inspect` guesses it (the library's
 * reading). A shape several formats share is 300, with each candidate's
 * inspection (as JSON).
 */
static void route_guess(conn *c, const http_request *req, struct evbuffer *out, const char *id_text, size_t id_len,
                        const char *q, size_t qlen) {
    char decoded[256], why[MINTID_WHY_MAX], json[MINTID_JSON_MAX];
    size_t len;
    if (memchr(id_text, '/', id_len) != NULL) {
        not_found(c, req, out, (size_t)(id_text + id_len - req->target));
        return;
    }
    const char *bad = percent_decode(id_text, id_len, decoded, sizeof decoded, &len);
    if (bad != NULL) {
        send_error(c, req, out, 400, "the ID: %s", bad);
        return;
    }
    if (!parse_query(c, req, out, q, qlen, NULL, 0))
        return;
    mintid_reading r;
    int rc = mintid_read_text(NULL, MINTID_FORM_ANY, MINTID_EPOCH_DEFAULT, decoded, len, &r, why, sizeof why);
    if (read_and_inspect(c, req, out, rc, &r))
        return;
    if (rc != MINTID_EAMBIGUOUS) {
        send_error(c, req, out, http_status(mintid_status_class(rc)), "%s; ask GET /v1/{format}/{id}", why);
        return;
    }
    if (!req->accept_json) {
        send_error(c, req, out, 300, "%s; ask GET /v1/{format}/{id}", why);
        return;
    }
    /* JSON: the sentence and, for each candidate, what GET /v1/{format}/{id} answers. */
    struct evbuffer *body = c->srv->scratch;
    evbuffer_add(body, "{\"error\":\"", 10);
    json_text(body, why);
    evbuffer_add(body, "\",\"candidates\":[", 16);
    for (int i = 0, n = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        mintid_reading one;
        if (!(r.candidates & (1u << i)))
            continue;
        int64_t epoch = config_epoch(c->srv->cfg, f);
        int got = mintid_read_text(f, MINTID_FORM_ANY, epoch, decoded, len, &one, NULL, 0);
        if (got != MINTID_OK && !(got == MINTID_EINVALID && one.fmt != NULL))
            continue;
        int jlen = mintid_id_to_json_prefixed(f, &one.id, one.prefix, epoch, json, sizeof json);
        if (jlen < 0)
            continue;
        if (n++ > 0)
            evbuffer_add(body, ",", 1);
        evbuffer_add(body, json, (size_t)jlen);
    }
    evbuffer_add(body, "]}\n", 3);
    response ok = {300, "application/json", false};
    send_response(c, req, out, &ok);
}

/* The format named by name[0..len), or NULL after a 404 with the library's sentence (the format meant, or the list). */
static const mintid_format *route_format(conn *c, const http_request *req, struct evbuffer *out, const char *name,
                                         size_t len) {
    char why[MINTID_WHY_MAX];
    const mintid_format *fmt;
    if (mintid_lookup_format(name, len, &fmt, why, sizeof why) == MINTID_OK)
        return fmt;
    send_error(c, req, out, 404, "%s", why);
    return NULL;
}

/* GET /v1/range/{format}?from=T[&to=T][&as=FORM]: the IDs that bound a time window. */
static void route_range(conn *c, const http_request *req, struct evbuffer *out, const char *name, size_t len,
                        const char *q, size_t qlen) {
    const mintid_format *fmt = route_format(c, req, out, name, len);
    if (fmt == NULL)
        return;
    param params[] = {
        {"from", NULL, 0, false}, {"to", NULL, 0, false}, {"as", NULL, 0, false}, {"prefix", NULL, 0, false}};
    if (!parse_query(c, req, out, q, qlen, params, 4))
        return;
    if (!params[0].seen) {
        send_error(c, req, out, 400, "range needs from=TIME (Unix ms or RFC 3339)");
        return;
    }
    int form = MINTID_FORM_TEXT;
    if (params[2].seen && (form = param_form(c, req, out, fmt, &params[2])) < 0)
        return;
    char prefix[MINTID_PREFIX_MAX + 1] = "";
    if (!param_prefix(c, req, out, fmt, form, &params[3], prefix))
        return;
    const param *to = params[1].seen ? &params[1] : &params[0];
    mintid_id lo, hi;
    const char *why;
    int rc = service_range(c->srv->svc, fmt, params[0].value, params[0].len, to->value, to->len, &lo, &hi, &why);
    if (rc != MINTID_OK) {
        send_error(c, req, out, http_status(mintid_status_class(rc)), "%s: %s", fmt->name, why);
        return;
    }
    char lo_text[MINTID_TEXT_MAX], hi_text[MINTID_TEXT_MAX];
    if (mintid_encode_prefixed(fmt, (mintid_form)form, &lo, prefix, lo_text, sizeof lo_text) < 0 ||
        mintid_encode_prefixed(fmt, (mintid_form)form, &hi, prefix, hi_text, sizeof hi_text) < 0) {
        send_error(c, req, out, 500, "%s: the range cannot be encoded", fmt->name);
        return;
    }
    response r = {200, "text/plain; charset=utf-8", false};
    if (req->accept_json) {
        r.type = "application/json";
        evbuffer_add_printf(c->srv->scratch, "{\"min\":\"%s\",\"max\":\"%s\"}\n", lo_text, hi_text);
    } else {
        evbuffer_add_printf(c->srv->scratch, "%s\n%s\n", lo_text, hi_text);
    }
    send_response(c, req, out, &r);
}

/*
 * GET /: the page of server/page/. It holds no data (the IDs it shows come
 * from the API, which asks for the secret), so it is served without one; the
 * headers keep it from running anything but its own inline style and script,
 * from sending to any other origin, and from being framed.
 */
static void route_page(conn *c, const http_request *req, struct evbuffer *out, const char *rest, size_t rest_len,
                       const char *q, size_t qlen) {
    (void)rest, (void)rest_len, (void)q, (void)qlen;
    const char *connection = !req->keep_alive || c->closing ? "Connection: close\r\n"
                             : req->minor_version == 0      ? "Connection: keep-alive\r\n"
                                                            : "";
    evbuffer_add_printf(out,
                        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %zu\r\n"
                        "Content-Security-Policy: %s\r\nX-Content-Type-Options: nosniff\r\n"
                        "X-Frame-Options: DENY\r\nReferrer-Policy: no-referrer\r\n"
                        "Cross-Origin-Opener-Policy: same-origin\r\nCross-Origin-Resource-Policy: same-origin\r\n"
                        "Cache-Control: no-cache\r\n%s\r\n",
                        mintidd_page_html_len, mintidd_page_csp, connection);
    if (req->method != HTTP_HEAD)
        evbuffer_add(out, mintidd_page_html, mintidd_page_html_len);
}

/*
 * With auth-file set, every request but GET /healthz and GET / carries
 * `Authorization: Bearer <secret>`. False after answering 401 (no or a
 * wrong secret) or 429 (wrong ones came too fast on this connection).
 */
static bool authorized(conn *c, const http_request *req, struct evbuffer *out) {
    const char *v = req->authorization;
    size_t n = req->authorization_len;
    if (v == NULL || n < 7 || strncasecmp(v, "Bearer ", 7) != 0) {
        c->srv->svc->c->auth_failures[PROTO_HTTP]++;
        send_error(c, req, out, 401, "this server needs 'Authorization: Bearer <secret>'");
        return false;
    }
    v += 7, n -= 7;
    while (n > 0 && *v == ' ')
        v++, n--;
    uint64_t retry_ms;
    const char *where = "";
    switch (auth_attempt(c, v, n, &retry_ms, &where)) {
    case AUTH_OK:
        return true;
    case AUTH_WRONG:
        send_error(c, req, out, 401, "wrong secret");
        return false;
    case AUTH_TOO_SOON:
        send_error(c, req, out, 429, "too many wrong secrets %s; try again in %" PRIu64 " ms", where, retry_ms);
        return false;
    }
    return false;
}

/*
 * The handlers of the route table. rest[0..rest_len) is the part of the
 * path after a prefix route's prefix (empty for a whole path), and
 * q[0..qlen) the query, without its '?'.
 */
typedef void route_fn(conn *c, const http_request *req, struct evbuffer *out, const char *rest, size_t rest_len,
                      const char *q, size_t qlen);

static void route_healthz(conn *c, const http_request *req, struct evbuffer *out, const char *rest, size_t rest_len,
                          const char *q, size_t qlen) {
    (void)rest, (void)rest_len, (void)q, (void)qlen;
    server *srv = c->srv;
    service *svc = srv->svc;
    lease_status ls;
    service_lease_status(svc, &ls);
    char unmintable[160];
    const char *problem = NULL;
    if (atomic_load(&svc->st->dir_lost))
        problem = "the state directory is no longer the one this server locked";
    else if (atomic_load(&svc->st->failing))
        problem = "the state file cannot be written";
    else if (svc->lease != NULL && ls.wait_s > 0)
        problem = "node lease: waiting for the node id's last holder, which did not release it, to have stopped";
    else if (svc->lease != NULL && !ls.valid)
        problem = "node lease lost";
    else
        problem = service_unmintable(svc, unmintable, sizeof unmintable);
    response r = {problem != NULL ? 503 : 200, "application/json", true};
    evbuffer_add_printf(srv->scratch, "{\"status\":\"%s%s\",\"node_id\":%" PRId64 ",\"state_mark_ms\":%" PRId64,
                        problem != NULL ? "failing: " : "ok", problem != NULL ? problem : "",
                        svc->lease != NULL ? ls.node : svc->node, atomic_load(&svc->st->mark));
    if (svc->lease != NULL)
        evbuffer_add_printf(srv->scratch,
                            ",\"lease\":{\"valid\":%s,\"id\":\"%" PRIx64 "\",\"expiry_seconds\":%.3f,"
                            "\"keepalive_failures\":%" PRIu64 "}",
                            ls.valid ? "true" : "false", ls.id, ls.expiry_s, ls.keepalive_failures);
    evbuffer_add(srv->scratch, "}\n", 2);
    send_response(c, req, out, &r);
}

static void route_metrics(conn *c, const http_request *req, struct evbuffer *out, const char *rest, size_t rest_len,
                          const char *q, size_t qlen) {
    (void)rest, (void)rest_len, (void)q, (void)qlen;
    response r = {200, "text/plain; version=0.0.4; charset=utf-8", true};
    stats_metrics(c->srv->svc, add_to_evbuffer, c->srv->scratch);
    send_response(c, req, out, &r);
}

static void route_formats(conn *c, const http_request *req, struct evbuffer *out, const char *rest, size_t rest_len,
                          const char *q, size_t qlen) {
    (void)rest, (void)rest_len, (void)q, (void)qlen;
    response r = {200, "application/json", false};
    stats_formats_json(c->srv->svc, add_to_evbuffer, c->srv->scratch);
    evbuffer_add(c->srv->scratch, "\n", 1);
    send_response(c, req, out, &r);
}

/* /v1/{format}: mint; /v1/{format}/{id}: inspect. */
static void route_format_path(conn *c, const http_request *req, struct evbuffer *out, const char *name, size_t len,
                              const char *q, size_t qlen) {
    const char *slash = memchr(name, '/', len);
    size_t nlen = slash != NULL ? (size_t)(slash - name) : len;
    const mintid_format *fmt = route_format(c, req, out, name, nlen);
    if (fmt == NULL)
        return;
    if (slash == NULL) {
        route_mint(c, req, out, fmt, q, qlen);
        return;
    }
    if (req->method == HTTP_POST) {
        send_405(c, req, out, false);
        return;
    }
    size_t id_len = (size_t)(name + len - (slash + 1));
    if (id_len > 0 && memchr(slash + 1, '/', id_len) == NULL) {
        route_inspect(c, req, out, fmt, slash + 1, id_len, q, qlen);
        return;
    }
    not_found(c, req, out, (size_t)(name + len - req->target));
}

/* The methods a route answers, as bits of http_method. */
#define METHOD(m) (1u << (m))
#define GET_HEAD (METHOD(HTTP_GET) | METHOD(HTTP_HEAD))
#define POST METHOD(HTTP_POST)

/*
 * The routes, looked at in order. A path ending in '/' (but "/" itself) is a prefix: it
 * matches a path that starts with it and has at least one byte more,
 * which its handler reads. A public route is served without a secret
 * (with auth-file set, every other one needs `Authorization: Bearer`).
 */
typedef struct route_entry {
    unsigned methods;
    const char *path;
    bool public;
    route_fn *run;
} route_entry;

/* clang-format off */
static const route_entry routes[] = {
    {GET_HEAD, "/healthz",    true,  route_healthz},
    {GET_HEAD, "/metrics",    false, route_metrics},
    {GET_HEAD, "/v1/formats", false, route_formats},
    {GET_HEAD, "/v1/range/",  false, route_range},
    {GET_HEAD, "/v1/inspect/", false, route_guess},
    {GET_HEAD, "/v1/keys/",   false, route_keys},
    {GET_HEAD, "/v1/",        false, route_format_path},
    {POST,     "/v1/",        false, route_format_path},
    {GET_HEAD, "/",           true,  route_page},
};
/* clang-format on */

/*
 * The first route whose path matches and that answers method; NULL if
 * none, with *methods the methods of the rows whose path matches (0: no
 * such path).
 */
static const route_entry *find_route(const char *path, size_t plen, http_method method, size_t *prefix_len,
                                     unsigned *methods) {
    *methods = 0;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        size_t n = strlen(routes[i].path);
        bool prefix = n > 1 && routes[i].path[n - 1] == '/';
        if ((prefix ? plen > n : plen == n) && memcmp(path, routes[i].path, n) == 0) {
            /* A longer prefix that matches hides the shorter ones for every method. */
            if (*methods != 0 && strlen(routes[i].path) != *prefix_len)
                break;
            *prefix_len = n;
            *methods |= routes[i].methods;
            if (routes[i].methods & METHOD(method))
                return &routes[i];
        }
    }
    return NULL;
}

static void route(conn *c, const http_request *req, struct evbuffer *out) {
    const char *t = req->target, *qm = memchr(t, '?', req->target_len);
    size_t plen = qm != NULL ? (size_t)(qm - t) : req->target_len;
    const char *q = qm != NULL ? qm + 1 : t + plen;
    size_t qlen = req->target_len - plen - (qm != NULL);

    size_t n = 0;
    unsigned methods = 0;
    const route_entry *r = find_route(t, plen, req->method, &n, &methods);
    /* Every route answers GET and HEAD, so any other method is refused
     * whatever the path, before a secret is asked for. */
    if (req->method == HTTP_OTHER || (r == NULL && (methods != 0 || req->method == HTTP_POST))) {
        /* POST takes /v1/{format}, one segment after its prefix, not /v1/{format}/{id}. */
        send_405(c, req, out, (methods & POST) != 0 && memchr(t + n, '/', plen - n) == NULL);
        return;
    }
    if ((r == NULL || !r->public) && c->srv->auth != NULL && !authorized(c, req, out))
        return;
    if (r == NULL) {
        not_found(c, req, out, plen);
        return;
    }
    r->run(c, req, out, t + n, plen - n, q, qlen);
}

static size_t http_handle(conn *c, const char *buf, size_t len, struct evbuffer *out) {
    http_request req;
    size_t used;
    int status;
    const char *error;
    http_result r = http_parse(buf, len, c->srv->cfg->max_request, &session_of(c)->scan, &req, &used, &status, &error);
    if (r == HTTP_NEED_MORE)
        return 0;
    c->srv->svc->c->requests[PROTO_HTTP]++;
    if (r == HTTP_ERROR) {
        /* The rest of the stream cannot be trusted to start a request. */
        http_request bad = {.method = HTTP_GET, .minor_version = 1, .keep_alive = false, .accept_json = false};
        c->closing = true;
        send_error(c, &bad, out, status, "%s", error);
        return len;
    }
    if (!req.keep_alive)
        c->closing = true;
    route(c, &req, out);
    return used;
}

static void http_open(conn *c) { (void)c; }
static void http_close(conn *c) { (void)c; }

const proto_ops http_proto = {
    .label = "HTTP",
    .tls_label = "HTTPS",
    .refusal = http_refusal,
    .session_size = sizeof(http_session),
    .open = http_open,
    .close = http_close,
    .handle = http_handle,
};
