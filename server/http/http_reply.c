/* SPDX-License-Identifier: MIT */
/*
 * http_reply.c - the HTTP API's responses: the status line and headers
 * (Content-Length, no-store for IDs, Allow, WWW-Authenticate, the
 * connection's keep-alive or close) put together by hand before a body,
 * errors as text or as JSON, a library status's class as an HTTP status,
 * and the responses of a mint job (one ID per line, or JSON) and of the
 * key store (an idempotency key's IDs, or why not).
 */
#include "http/http_reply.h"

#include "http/http_session.h"
#include "service.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

void http_send_response(conn *c, const http_request *req, struct evbuffer *out, const response *r) {
    send_body(c, req, out, r, c->srv->scratch);
}

/* JSON string contents: quotes, backslashes and control characters escaped. */
void http_json_text(struct evbuffer *b, const char *s) {
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
        http_json_text(body, msg);
        evbuffer_add(body, "\"}\n", 3);
    } else {
        evbuffer_add_printf(body, "%s\n", msg);
    }
    send_body_with(c, req, out, &r, c->srv->scratch, extra);
}

void http_send_error(conn *c, const http_request *req, struct evbuffer *out, int status, const char *fmt, ...) {
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
int http_status(mintid_class cls) {
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
void http_send_why(conn *c, const http_request *req, struct evbuffer *out, int rc, const char *why) {
    http_send_error(c, req, out, http_status(mintid_status_class(rc)), "%s", why);
}

/* 405, with the methods the path takes in Allow (post: POST as well as GET and HEAD). */
void http_send_405(conn *c, const http_request *req, struct evbuffer *out, bool post) {
    if (post)
        send_error_with(c, req, out, 405, "Allow: GET, HEAD, POST\r\n", "only GET, HEAD and POST are served here");
    else
        send_error_with(c, req, out, 405, "Allow: GET, HEAD\r\n", "only GET and HEAD are served");
}

void http_not_found(conn *c, const http_request *req, struct evbuffer *out, size_t plen) {
    char shown[MINTID_ESCAPED_MAX];
    mintid_escape(req->target, plen, shown, sizeof shown);
    http_send_error(c, req, out, 404, "no such resource '%s'; see GET /v1/formats", shown);
}

/* One line per ID, or JSON strings in an array. */
void http_encode(conn *c, const mintid_id *ids, size_t n) {
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

void http_save_request(conn *c, const http_request *req) {
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
void http_key_done(conn *c, const key_request *r) {
    http_request req = saved_request(c);
    char shown[MINTID_ESCAPED_MAX];
    mintid_escape(r->key, r->key_len, shown, sizeof shown);
    switch (r->outcome) {
    case KEY_CREATED:
    case KEY_REPLAYED:
        if (!key_body(c, r, req.accept_json)) {
            http_send_error(c, &req, c->out, 500, "%s: the key's IDs cannot be encoded", r->fmt->name);
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
        http_send_error(c, &req, c->out, 422,
                        "%s: idempotency key '%s' was used for another request (count %" PRIu64
                        ", as %s, prefix '%s'); "
                        "a new request needs a new key",
                        r->fmt->name, shown, r->got_count, mintid_form_name((mintid_form)r->got_form), r->got_prefix);
        return;
    case KEY_FULL:
        http_send_error(c, &req, c->out, 507,
                        "the key store holds key-max keys: no new idempotency key is taken "
                        "(minting without one goes on)");
        return;
    case KEY_FOUND:
    case KEY_ABSENT:
    case KEY_FAILED:
        break;
    }
    http_send_error(c, &req, c->out, 503, "%s: %s", r->fmt->name, r->why[0] != '\0' ? r->why : "the key store failed");
}

void http_finish(conn *c, int status, const char *why) {
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
        http_send_error(c, &req, c->out, status == MINTID_EFORMAT ? 404 : http_status(cls), "%s: %s", j->fmt->name,
                        why);
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

/* The key store's answer to GET /v1/keys/{format}/{key}. */
void http_keyget_done(conn *c, const key_request *r) {
    http_request req = saved_request(c);
    char shown[MINTID_ESCAPED_MAX];
    mintid_escape(r->key, r->key_len, shown, sizeof shown);
    if (r->outcome == KEY_ABSENT) {
        http_send_error(c, &req, c->out, 404, "%s: no idempotency key '%s' (or it has expired)", r->fmt->name, shown);
        return;
    }
    if (r->outcome != KEY_FOUND) {
        http_send_error(c, &req, c->out, 503, "%s: %s", r->fmt->name,
                        r->why[0] != '\0' ? r->why : "the key store failed");
        return;
    }
    if (!key_body(c, r, req.accept_json)) {
        http_send_error(c, &req, c->out, 500, "%s: the key's IDs cannot be encoded", r->fmt->name);
        return;
    }
    struct evbuffer *b = c->srv->scratch;
    if (req.accept_json) {
        evbuffer_add_printf(b, ",\"format\":\"%s\",\"key\":\"", r->fmt->name);
        http_json_text(b, r->key);
        evbuffer_add_printf(b, "\",\"count\":%" PRIu64 ",\"as\":\"%s\",\"prefix\":\"", r->got_count,
                            mintid_form_name((mintid_form)r->got_form));
        http_json_text(b, r->got_prefix);
        evbuffer_add_printf(b, "\",\"created_ms\":%" PRId64 "}\n", r->created_ms);
    }
    response ok = {200, req.accept_json ? "application/json" : "text/plain; charset=utf-8", true};
    http_send_response(c, &req, c->out, &ok);
}
