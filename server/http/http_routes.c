/* SPDX-License-Identifier: MIT */
/*
 * http_routes.c - the HTTP API's route table (routes[], below) and its
 * handlers, with their query parameters:
 *
 *   GET /v1/{format}[?count=N][&as=FORM]   mint (text/plain, or JSON with Accept: application/json)
 *   POST /v1/{format}[?...]                the same; with Idempotency-Key, once per key (keys.c)
 *   GET /v1/keys/{format}/{key}            what a key was given
 *   GET /v1/{format}/{id}[?from=FORM]      inspect (JSON)
 *   GET /v1/inspect/{id}                   inspect, the format guessed (JSON; 300 lists the candidates)
 *   GET /v1/range/{format}?from=T[&to=T]   the IDs that bound a time window
 *   GET /v1/formats, /healthz, /readyz, /livez, /metrics
 *   GET /                                  the page that shows an ID (server/page/)
 *
 * Every route answers GET and HEAD, /v1/{format} POST too; any other method is 405.
 * Their responses are http_reply.c's.
 */
#include "http/http_routes.h"

#include "http/http_reply.h"
#include "job.h"
#include "keys/keys.h"
#include "page.h"
#include "stats.h"

#include <inttypes.h>
#include <string.h>

static void add_to_evbuffer(void *ctx, const char *s, size_t n) { evbuffer_add(ctx, s, n); }

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
                http_send_error(c, req, out, 400, "unknown query parameter '%s'", shown);
                return false;
            }
            if (params[k].seen) {
                http_send_error(c, req, out, 400, "query parameter '%s' given twice", params[k].name);
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
        http_send_why(c, req, out, rc, why);
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
        http_send_error(c, req, out, 400, "prefix: %s", bad);
        return false;
    }
    int rc = mintid_lookup_prefix(fmt, form, decoded, len, why, sizeof why);
    if (rc != MINTID_OK) {
        http_send_why(c, req, out, rc, why);
        return false;
    }
    memcpy(prefix, decoded, len);
    prefix[len] = '\0';
    return true;
}

/* Answers 200 with the inspection (JSON) of an ID of fmt, as the server's epoch reads it. */
static void send_inspection(conn *c, const http_request *req, struct evbuffer *out, const mintid_format *fmt,
                            const mintid_id *id, const char *prefix) {
    char json[MINTID_JSON_MAX];
    int n = mintid_id_to_json_prefixed(fmt, id, prefix, config_epoch(c->srv->cfg, fmt), json, sizeof json);
    if (n < 0) {
        http_send_error(c, req, out, 500, "%s: %s", fmt->name, mintid_strerror(n));
        return;
    }
    evbuffer_add(c->srv->scratch, json, (size_t)n);
    evbuffer_add(c->srv->scratch, "\n", 1);
    response r = {200, "application/json", false};
    http_send_response(c, req, out, &r);
}

static void route_mint(conn *c, const http_request *req, struct evbuffer *out, const mintid_format *fmt, const char *q,
                       size_t qlen) {
    server *srv = c->srv;
    param params[] = {{"count", NULL, 0, false}, {"as", NULL, 0, false}, {"prefix", NULL, 0, false}};
    if (!parse_query(c, req, out, q, qlen, params, 3))
        return;
    uint64_t count = 1;
    if (params[0].seen && !service_parse_count(params[0].value, params[0].len, srv->cfg->max_count, &count)) {
        http_send_error(c, req, out, 400, "count must be 1..%" PRIu64, srv->cfg->max_count);
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
            http_send_error(c, req, out, 400, "Idempotency-Key is taken on POST /v1/{format} only");
            return;
        }
        if (!key_parse_header(req->idempotency_key, req->idempotency_key_len, key, &klen, &why)) {
            http_send_error(c, req, out, 400, "%s", why);
            return;
        }
        keys_start ks = keys_begin(c, fmt, key, klen, form, prefix, count, http_key_done);
        if (ks == KEYS_BUSY) {
            char shown[MINTID_ESCAPED_MAX];
            mintid_escape(key, klen, shown, sizeof shown);
            http_send_error(c, req, out, 409,
                            "%s: idempotency key '%s' is in progress: try again when it has been answered", fmt->name,
                            shown);
            return;
        }
        if (ks == KEYS_TOO_MANY) {
            http_send_error(c, req, out, 400, "count must be 1..%" PRIu64 " with an Idempotency-Key on this server",
                            keys_max_count(srv));
            return;
        }
        if (ks == KEYS_NOMEM || ks == KEYS_NOSTORE) {
            http_send_error(c, req, out, 503, "%s", ks == KEYS_NOMEM ? "out of memory" : "no key store");
            return;
        }
    }
    mint_job *j = &c->job;
    http_save_request(c, req);
    if (req->accept_json)
        evbuffer_add(j->body, "{\"ids\":[", 8);
    job_start(c, fmt, form, prefix, count, http_encode, http_finish);
}

static const mintid_format *route_format(conn *c, const http_request *req, struct evbuffer *out, const char *name,
                                         size_t len);

/* GET /v1/keys/{format}/{key}: the IDs key (percent-encoded) was given, in the client's scope. */
static void route_keys(conn *c, const http_request *req, struct evbuffer *out, const char *rest, size_t rest_len,
                       const char *q, size_t qlen) {
    const char *slash = memchr(rest, '/', rest_len);
    size_t klen = slash != NULL ? (size_t)(rest + rest_len - (slash + 1)) : 0;
    if (slash == NULL || klen == 0 || memchr(slash + 1, '/', klen) != NULL) {
        http_not_found(c, req, out, (size_t)(rest + rest_len - req->target));
        return;
    }
    const mintid_format *fmt = route_format(c, req, out, rest, (size_t)(slash - rest));
    if (fmt == NULL || !parse_query(c, req, out, q, qlen, NULL, 0))
        return;
    char key[256];
    size_t len;
    const char *why = percent_decode(slash + 1, klen, key, sizeof key, &len);
    if (why != NULL || !key_valid(key, len, &why)) {
        http_send_error(c, req, out, 400, "the key: %s", why);
        return;
    }
    http_save_request(c, req);
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
        http_send_error(c, req, out, 400, "the ID: %s", bad);
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
        http_send_why(c, req, out, rc, why);
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
        http_not_found(c, req, out, (size_t)(id_text + id_len - req->target));
        return;
    }
    const char *bad = percent_decode(id_text, id_len, decoded, sizeof decoded, &len);
    if (bad != NULL) {
        http_send_error(c, req, out, 400, "the ID: %s", bad);
        return;
    }
    if (!parse_query(c, req, out, q, qlen, NULL, 0))
        return;
    mintid_reading r;
    int rc = mintid_read_text(NULL, MINTID_FORM_ANY, MINTID_EPOCH_DEFAULT, decoded, len, &r, why, sizeof why);
    if (read_and_inspect(c, req, out, rc, &r))
        return;
    if (rc != MINTID_EAMBIGUOUS) {
        http_send_error(c, req, out, http_status(mintid_status_class(rc)), "%s; ask GET /v1/{format}/{id}", why);
        return;
    }
    if (!req->accept_json) {
        http_send_error(c, req, out, 300, "%s; ask GET /v1/{format}/{id}", why);
        return;
    }
    /* JSON: the sentence and, for each candidate, what GET /v1/{format}/{id} answers. */
    struct evbuffer *body = c->srv->scratch;
    evbuffer_add(body, "{\"error\":\"", 10);
    http_json_text(body, why);
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
    http_send_response(c, req, out, &ok);
}

/* The format named by name[0..len), or NULL after a 404 with the library's sentence (the format meant, or the list). */
static const mintid_format *route_format(conn *c, const http_request *req, struct evbuffer *out, const char *name,
                                         size_t len) {
    char why[MINTID_WHY_MAX];
    const mintid_format *fmt;
    if (mintid_lookup_format(name, len, &fmt, why, sizeof why) == MINTID_OK)
        return fmt;
    http_send_error(c, req, out, 404, "%s", why);
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
        http_send_error(c, req, out, 400, "range needs from=TIME (Unix ms or RFC 3339)");
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
        http_send_error(c, req, out, http_status(mintid_status_class(rc)), "%s: %s", fmt->name, why);
        return;
    }
    char lo_text[MINTID_TEXT_MAX], hi_text[MINTID_TEXT_MAX];
    if (mintid_encode_prefixed(fmt, (mintid_form)form, &lo, prefix, lo_text, sizeof lo_text) < 0 ||
        mintid_encode_prefixed(fmt, (mintid_form)form, &hi, prefix, hi_text, sizeof hi_text) < 0) {
        http_send_error(c, req, out, 500, "%s: the range cannot be encoded", fmt->name);
        return;
    }
    response r = {200, "text/plain; charset=utf-8", false};
    if (req->accept_json) {
        r.type = "application/json";
        evbuffer_add_printf(c->srv->scratch, "{\"min\":\"%s\",\"max\":\"%s\"}\n", lo_text, hi_text);
    } else {
        evbuffer_add_printf(c->srv->scratch, "%s\n%s\n", lo_text, hi_text);
    }
    http_send_response(c, req, out, &r);
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
                            "\"keepalive_failures\":%" PRIu64 ",\"etcd_reachable\":%s,"
                            "\"acknowledged_seconds_ago\":%.3f}",
                            ls.valid ? "true" : "false", ls.id, ls.expiry_s, ls.keepalive_failures,
                            ls.etcd_reachable ? "true" : "false", ls.acknowledged_s);
    evbuffer_add(srv->scratch, "}\n", 2);
    http_send_response(c, req, out, &r);
}

/*
 * GET /livez: the process serves (a liveness probe). Always 200 when it
 * answers at all: an orchestrator that restarts a server whose formats
 * cannot mint (etcd away, the clock behind) would only lose its state's
 * reservation and its lease; /readyz takes it out of rotation instead.
 */
static void route_livez(conn *c, const http_request *req, struct evbuffer *out, const char *rest, size_t rest_len,
                        const char *q, size_t qlen) {
    (void)rest, (void)rest_len, (void)q, (void)qlen;
    response r = {200, "application/json", true};
    evbuffer_add_printf(c->srv->scratch, "{\"status\":\"alive\"}\n");
    http_send_response(c, req, out, &r);
}

/*
 * GET /readyz: whether every served format can mint now (service_ready),
 * for a load balancer to send requests elsewhere meanwhile; 503 names
 * each format that cannot, with the service's sentence.
 */
static void route_readyz(conn *c, const http_request *req, struct evbuffer *out, const char *rest, size_t rest_len,
                         const char *q, size_t qlen) {
    (void)rest, (void)rest_len, (void)q, (void)qlen;
    struct evbuffer *body = c->srv->scratch;
    service_readiness sr;
    bool ready = service_ready(c->srv->svc, &sr);
    response r = {ready ? 200 : 503, "application/json", true};
    evbuffer_add_printf(body, "{\"status\":\"%s\"", ready ? "ready" : "not ready");
    if (!ready) {
        evbuffer_add(body, ",\"cannot_mint\":{", 16);
        for (int i = 0, n = 0; i < MINTID_FORMAT_COUNT; i++) {
            if (sr.why[i] == NULL)
                continue;
            evbuffer_add_printf(body, "%s\"%s\":\"", n++ > 0 ? "," : "", mintid_format_get((mintid_format_id)i)->name);
            http_json_text(body, sr.why[i]);
            evbuffer_add(body, "\"", 1);
        }
        evbuffer_add(body, "}", 1);
    }
    evbuffer_add(body, "}\n", 2);
    http_send_response(c, req, out, &r);
}

static void route_metrics(conn *c, const http_request *req, struct evbuffer *out, const char *rest, size_t rest_len,
                          const char *q, size_t qlen) {
    (void)rest, (void)rest_len, (void)q, (void)qlen;
    response r = {200, "text/plain; version=0.0.4; charset=utf-8", true};
    stats_metrics(c->srv->svc, add_to_evbuffer, c->srv->scratch);
    http_send_response(c, req, out, &r);
}

static void route_formats(conn *c, const http_request *req, struct evbuffer *out, const char *rest, size_t rest_len,
                          const char *q, size_t qlen) {
    (void)rest, (void)rest_len, (void)q, (void)qlen;
    response r = {200, "application/json", false};
    stats_formats_json(c->srv->svc, add_to_evbuffer, c->srv->scratch);
    evbuffer_add(c->srv->scratch, "\n", 1);
    http_send_response(c, req, out, &r);
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
        http_send_405(c, req, out, false);
        return;
    }
    size_t id_len = (size_t)(name + len - (slash + 1));
    if (id_len > 0 && memchr(slash + 1, '/', id_len) == NULL) {
        route_inspect(c, req, out, fmt, slash + 1, id_len, q, qlen);
        return;
    }
    http_not_found(c, req, out, (size_t)(name + len - req->target));
}

#define GET_HEAD (ROUTE_METHOD(HTTP_GET) | ROUTE_METHOD(HTTP_HEAD))
#define POST ROUTE_METHOD(HTTP_POST)

/* The routes, looked at in order (http_routes.h says how a row matches). */
/* clang-format off */
static const route_entry routes[] = {
    {GET_HEAD, "/healthz",    true,  route_healthz},
    {GET_HEAD, "/readyz",     true,  route_readyz},
    {GET_HEAD, "/livez",      true,  route_livez},
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

const route_entry *http_find_route(const char *path, size_t plen, http_method method, size_t *prefix_len,
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
            if (routes[i].methods & ROUTE_METHOD(method))
                return &routes[i];
        }
    }
    return NULL;
}
