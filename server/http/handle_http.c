/* SPDX-License-Identifier: MIT */
/*
 * handle_http.c - the HTTP API as a protocol of the connection layer
 * (http_proto, at the end): each request parsed within max-request, one
 * that cannot be parsed answered before the connection closes, keep-alive
 * as the request asks, and each request taken to its route
 * (http_routes.c): a method the path does not take refused, the Bearer
 * secret asked for where auth-file is set, a path no route has answered
 * 404.
 */
#include "http/handle_http.h"

#include "net/auth.h"
#include "http/http.h"
#include "http/http_reply.h"
#include "http/http_routes.h"
#include "http/http_session.h"
#include "service.h"

#include <inttypes.h>
#include <string.h>
#include <strings.h>

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
 * With auth-file set, every request but GET /healthz and GET / carries
 * `Authorization: Bearer <secret>`. False after answering 401 (no or a
 * wrong secret) or 429 (wrong ones came too fast on this connection).
 */
static bool authorized(conn *c, const http_request *req, struct evbuffer *out) {
    const char *v = req->authorization;
    size_t n = req->authorization_len;
    if (v == NULL || n < 7 || strncasecmp(v, "Bearer ", 7) != 0) {
        c->srv->svc->c->auth_failures[PROTO_HTTP]++;
        http_send_error(c, req, out, 401, "this server needs 'Authorization: Bearer <secret>'");
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
        http_send_error(c, req, out, 401, "wrong secret");
        return false;
    case AUTH_TOO_SOON:
        http_send_error(c, req, out, 429, "too many wrong secrets %s; try again in %" PRIu64 " ms", where, retry_ms);
        return false;
    }
    return false;
}

/*
 * Takes req to its route's handler (http_routes.c), after what comes before
 * any route: a method the path does not take is 405, a route that is not
 * public asks for the secret, and a path no route has is 404.
 */
static void route(conn *c, const http_request *req, struct evbuffer *out) {
    const char *t = req->target, *qm = memchr(t, '?', req->target_len);
    size_t plen = qm != NULL ? (size_t)(qm - t) : req->target_len;
    const char *q = qm != NULL ? qm + 1 : t + plen;
    size_t qlen = req->target_len - plen - (qm != NULL);

    size_t n = 0;
    unsigned methods = 0;
    const route_entry *r = http_find_route(t, plen, req->method, &n, &methods);
    /* Every route answers GET and HEAD, so any other method is refused
     * whatever the path, before a secret is asked for. */
    if (req->method == HTTP_OTHER || (r == NULL && (methods != 0 || req->method == HTTP_POST))) {
        /* POST takes /v1/{format}, one segment after its prefix, not /v1/{format}/{id}. */
        http_send_405(c, req, out, (methods & ROUTE_METHOD(HTTP_POST)) != 0 && memchr(t + n, '/', plen - n) == NULL);
        return;
    }
    if ((r == NULL || !r->public) && c->srv->auth != NULL && !authorized(c, req, out))
        return;
    if (r == NULL) {
        http_not_found(c, req, out, plen);
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
        http_send_error(c, &bad, out, status, "%s", error);
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
