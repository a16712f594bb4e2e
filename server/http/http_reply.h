/* SPDX-License-Identifier: MIT */
/*
 * http_reply.h - the HTTP API's responses (http_reply.c): a status line and
 * headers before a body, errors as text or JSON, a library status's class
 * as an HTTP status, and the responses of a mint job and of the key store.
 * Each function appends one whole response to out; the body of one sent
 * from c->srv->scratch is drained from it.
 */
#ifndef MINTIDD_HTTP_REPLY_H
#define MINTIDD_HTTP_REPLY_H

#include "http/http.h"
#include "keys/keys.h"
#include "mintid.h"
#include "net/conn.h"

#include <event2/buffer.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct response {
    int status;
    const char *type; /* Content-Type */
    bool no_store;    /* IDs must never come from a cache */
} response;

/* Sends r with the body in c->srv->scratch. */
void http_send_response(conn *c, const http_request *req, struct evbuffer *out, const response *r);
/* An error of status with the sentence fmt makes: text, or {"error":...} when the request accepts JSON. */
void http_send_error(conn *c, const http_request *req, struct evbuffer *out, int status, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The HTTP status of a library status's class: 400 the caller's, 503 not now or not here, 500 the server's. */
int http_status(mintid_class cls);
/* An error answered with the status of rc's class and the sentence why (the library's). */
void http_send_why(conn *c, const http_request *req, struct evbuffer *out, int rc, const char *why);
/* 405, with the methods the path takes in Allow (post: POST as well as GET and HEAD). */
void http_send_405(conn *c, const http_request *req, struct evbuffer *out, bool post);
/* 404 for the path req->target[0..plen). */
void http_not_found(conn *c, const http_request *req, struct evbuffer *out, size_t plen);
/* JSON string contents: quotes, backslashes and control characters escaped. */
void http_json_text(struct evbuffer *b, const char *s);

/* Keeps in c's session what the reply to req needs, for a reply that comes later (a mint, a key's lookup). */
void http_save_request(conn *c, const http_request *req);
/* A mint's job (job_start): its IDs, one per line or as JSON strings, and its response once they are minted. */
void http_encode(conn *c, const mintid_id *ids, size_t n);
void http_finish(conn *c, int status, const char *why);
/* The key store's answers to a keyed POST /v1/{format} and to GET /v1/keys/{format}/{key} (keys_begin, keys_lookup). */
void http_key_done(conn *c, const key_request *r);
void http_keyget_done(conn *c, const key_request *r);

#endif
