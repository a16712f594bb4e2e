/* SPDX-License-Identifier: MIT */
/*
 * http_session.h - an HTTP connection's session (c->session, zeroed by the
 * connection layer at accept), which the replies (http_reply.c), the routes
 * (http_routes.c) and the session's operations (handle_http.c) share.
 */
#ifndef MINTIDD_HTTP_SESSION_H
#define MINTIDD_HTTP_SESSION_H

#include "http/http.h"
#include "mintid.h"
#include "net/conn.h"

#include <stdbool.h>
#include <stddef.h>

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

static inline http_session *session_of(const conn *c) { return c->session; }

#endif
