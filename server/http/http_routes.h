/* SPDX-License-Identifier: MIT */
/*
 * http_routes.h - the HTTP API's route table (http_routes.c): each path,
 * the methods it answers and its handler.
 */
#ifndef MINTIDD_HTTP_ROUTES_H
#define MINTIDD_HTTP_ROUTES_H

#include "http/http.h"
#include "net/conn.h"

#include <event2/buffer.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The handlers of the route table. rest[0..rest_len) is the part of the
 * path after a prefix route's prefix (empty for a whole path), and
 * q[0..qlen) the query, without its '?'.
 */
typedef void route_fn(conn *c, const http_request *req, struct evbuffer *out, const char *rest, size_t rest_len,
                      const char *q, size_t qlen);

/* The methods a route answers, as bits of http_method. */
#define ROUTE_METHOD(m) (1u << (m))

/*
 * A row of the route table, which is looked at in order. A path ending in
 * '/' (but "/" itself) is a prefix: it matches a path that starts with it and has at least one byte more,
 * which its handler reads. A public route is served without a secret
 * (with auth-file set, every other one needs `Authorization: Bearer`).
 */
typedef struct route_entry {
    unsigned methods;
    const char *path;
    bool public;
    route_fn *run;
} route_entry;

/*
 * The first route whose path matches and that answers method; NULL if
 * none, with *methods the methods of the rows whose path matches (0: no
 * such path) and *prefix_len the length of the path they match.
 */
const route_entry *http_find_route(const char *path, size_t plen, http_method method, size_t *prefix_len,
                                   unsigned *methods);

#endif
