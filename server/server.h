/*
 * server.h - the connection layer both protocols share (conn.c), and the
 * per-protocol request handlers (handle_http.c, handle_resp.c).
 */
#ifndef MINTIDD_SERVER_H
#define MINTIDD_SERVER_H

#include "config.h"
#include "service.h"

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <stdbool.h>

typedef struct conn conn;

typedef struct server {
    struct event_base *base;
    service *svc;
    const config *cfg;
    struct evconnlistener *listeners[PROTO_COUNT];
    conn *conns;       /* every open connection, for shutdown */
    unsigned refusing; /* refused connections still being closed */
    bool stopping;
    struct evbuffer *scratch; /* a response body while its head is written */
    mintid_id *ids;           /* room for max-count IDs */
} server;

struct conn {
    server *srv;
    proto proto;
    evutil_socket_t fd;
    struct event *rev, *wev; /* readable (with the idle timeout), writable (while replies wait) */
    char *in;                /* bytes received and not yet used */
    size_t in_len, in_cap;
    struct evbuffer *out;      /* replies not yet sent */
    bool lingering;            /* closing: output shut, input dropped until the client closes */
    bool closing;              /* close once the output has drained */
    bool throttled;            /* reading paused until the client reads its replies */
    bool refused;              /* over max-connections: told so, then closed */
    uint64_t partial_since_ms; /* when an incomplete request started waiting; 0 if none */
    size_t lingered;           /* bytes dropped while closing */
    uint64_t linger_until_ms;  /* monotonic: a lingering connection is freed by then */
    conn *prev, *next;
};

/*
 * A protocol handler: reads at most one request from buf[0..len), writes
 * its reply to out, and returns the bytes it used (0: incomplete, call
 * again with more). It sets c->closing to end the connection after out has
 * been sent.
 */
size_t http_handle(conn *c, const char *buf, size_t len, struct evbuffer *out);
size_t resp_handle(conn *c, const char *buf, size_t len, struct evbuffer *out);
/* What a refused connection is told before it is closed. */
extern const char http_refusal[];
extern const char resp_refusal[];

/* Binds HOST:PORT for `p`. Returns 0, or -1 after logging why. */
int server_listen(server *srv, proto p, const char *address);
/* Stops accepting, closes idle connections and lets the rest drain. */
void server_stop(server *srv);
/* Closes every connection. */
void server_close_all(server *srv);

#endif
