/*
 * server.h - the connection layer both protocols share (conn.c), and the
 * per-protocol request handlers (handle_http.c, handle_resp.c).
 */
#ifndef MINTIDD_SERVER_H
#define MINTIDD_SERVER_H

#include "config.h"
#include "http.h"
#include "service.h"

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <stdbool.h>

typedef struct conn conn;

/*
 * A mint request in progress. The connection layer runs it in slices, a
 * bounded number of IDs per loop turn, and parks it on a timer when the
 * service says an ID cannot be minted yet; the protocol gives the framing
 * (encode) and the reply (finish).
 */
typedef struct mint_job {
    bool active;
    bool parked; /* waiting on c->timer for the clock */
    const mintid_format *fmt;
    int form;                           /* mintid_form of the text */
    char prefix[MINTID_PREFIX_MAX + 1]; /* typeid's type prefix; "" for none */
    uint64_t count, done;
    uint64_t deadline_ns;  /* CLOCK_MONOTONIC: a parked request fails after this; 0 before it parks */
    int error;             /* set by encode when an ID cannot be encoded */
    struct evbuffer *body; /* the IDs encoded so far */
    /* Appends ids[0..n) to c->job.body in the protocol's framing. */
    void (*encode)(conn *c, const mintid_id *ids, size_t n);
    /* Queues the reply: the body when status is MINTID_OK, else an error saying why. */
    void (*finish)(conn *c, int status, const char *why);
    /* What the protocol needs to remember of its request. */
    int http_method, http_minor;
    bool http_keep_alive, http_json, resp_array;
} mint_job;

typedef struct server {
    struct event_base *base;
    service *svc;
    const config *cfg;
    struct evconnlistener *listeners[PROTO_COUNT];
    struct event *shed_ev; /* drops the clients with most unread replies, outside their callbacks */
    conn *conns;           /* every open connection, for shutdown */
    unsigned refusing;     /* refused connections still being closed */
    bool stopping;
    struct evbuffer *scratch; /* a response body while its head is written */
    mintid_id *ids;           /* room for one slice of IDs (SERVER_SLICE_IDS) */
} server;

struct conn {
    server *srv;
    proto proto;
    evutil_socket_t fd;
    struct event *rev, *wev; /* readable (with the idle timeout), writable (while replies wait) */
    struct event *timer;     /* a parked request's retry, or the next slice of work */
    mint_job job;
    char *in; /* bytes received and not yet used */
    size_t in_len, in_cap;
    struct evbuffer *out;      /* replies not yet sent */
    bool lingering;            /* closing: output shut, input dropped until the client closes */
    bool closing;              /* close once the output has drained */
    bool throttled;            /* reading paused until the client reads its replies */
    bool refused;              /* over max-connections: told so, then closed */
    bool input_full;           /* reading paused until requests in c->in are handled */
    uint64_t partial_since_ms; /* when an incomplete request started waiting; 0 if none */
    http_scan http_scan;       /* how far the HTTP parser has read an incomplete request */
    size_t lingered;           /* bytes dropped while closing */
    uint64_t linger_until_ms;  /* monotonic: a lingering connection is freed by then */
    conn *prev, *next;
};

/* IDs minted for one connection per loop turn, and requests handled. */
#define SERVER_SLICE_IDS 4096
#define SERVER_SLICE_REQUESTS 32

/*
 * Starts c->job: count IDs of fmt in form, framed by encode and answered by
 * finish (the protocol's own fields of the job the handler sets before).
 * The connection layer mints it after the handler returns. No other
 * request of the connection is handled until it is done.
 */
void conn_start_mint(conn *c, const mintid_format *fmt, int form, const char *prefix, uint64_t count,
                     void (*encode)(conn *c, const mintid_id *ids, size_t n),
                     void (*finish)(conn *c, int status, const char *why));

/*
 * Mints what *budget allows of c's job, without waiting, and takes what it
 * minted off *budget. JOB_DONE: the reply is queued. JOB_PARKED: nothing
 * can be minted yet; try again after *retry_ns. JOB_YIELD: the budget is
 * spent, or the replies queued for all clients are past their bound.
 */
typedef enum job_state { JOB_DONE, JOB_PARKED, JOB_YIELD } job_state;
job_state conn_job_step(conn *c, size_t *budget, uint64_t *retry_ns);

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
