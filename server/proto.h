/* SPDX-License-Identifier: MIT */
/*
 * proto.h - what a protocol gives the connection layer (after redis's
 * ConnectionType): a table of operations, one per protocol (http_proto in
 * handle_http.c, resp_proto in handle_resp.c), so that conn.c reads, writes,
 * limits and closes connections without naming a protocol, and a
 * protocol's session (RESP's MULTI/EXEC, HELLO, client name; HTTP's parser
 * position) lives with the protocol.
 */
#ifndef MINTIDD_PROTO_H
#define MINTIDD_PROTO_H

#include <event2/buffer.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct conn conn;

typedef struct proto_ops {
    const char *label;     /* in log lines: "HTTP", "RESP" */
    const char *tls_label; /* ...of its TLS listener: "HTTPS", "RESP over TLS" */
    const char *refusal;   /* what a connection refused at max-connections is told before it is closed */
    /* Bytes of c->session, zeroed when the connection is accepted. */
    size_t session_size;
    /* Sets up c's session (after it is zeroed), and releases what it holds. */
    void (*open)(conn *c);
    void (*close)(conn *c);
    /*
     * Reads at most one request from buf[0..len), writes its reply to out,
     * and returns the bytes it used (0: incomplete, call again with the
     * same bytes and more after them). It sets c->closing to end the
     * connection after out has been sent, and may start a mint job
     * (job_start), which the connection layer runs after it returns.
     */
    size_t (*handle)(conn *c, const char *buf, size_t len, struct evbuffer *out);
    /*
     * Work of the session's own that comes before the next request read
     * from the socket (RESP's EXEC runs the commands it queued, one per
     * call, each in turn like a request): true while some is left, and
     * resume() does the next piece. NULL: never any.
     */
    bool (*pending)(const conn *c);
    void (*resume)(conn *c, struct evbuffer *out);
    /* Bytes of memory the session holds (a MULTI's queue), counted in the bound on all clients. NULL: none. */
    size_t (*held)(const conn *c);
} proto_ops;

#endif
