/* SPDX-License-Identifier: MIT */
/*
 * server.h - the types the server's files share: one event loop's server
 * (its listeners, connections, wait queues and limits), a connection, and
 * the mint job a connection runs. The functions are each in their
 * subsystem's header: conn.h (the connection layer), proto.h (what a
 * protocol gives it), blocked.h (wait queues), shed.h (the bound on
 * memory), auth.h (secrets), listen.h (listeners and accept), tls.h.
 *
 * A server is one event loop's: the service (generators, state file,
 * lease) it mints from is shared, and a server holds nothing of another.
 */
#ifndef MINTIDD_SERVER_H
#define MINTIDD_SERVER_H

#include "base/config.h"
#include "proto.h"
#include "service.h"

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <stdbool.h>
#include <sys/queue.h>

typedef struct conn conn;
typedef struct auth auth;

/*
 * How a TLS connection's bytes move (tls.c); a plain one's are read and
 * written on the socket directly by conn.c.
 */
typedef struct conn_io {
    /* 1: done; 0: waiting for the socket (write interest taken if needed); -1: failed. */
    int (*handshake)(conn *c);
    /* As recv(): bytes read, 0 at the peer's close, or -1 with errno (EAGAIN: nothing yet). */
    ssize_t (*read)(conn *c, char *buf, size_t n);
    /* As evbuffer_write(): bytes taken from out and sent, or -1 with errno (EAGAIN: later). */
    int (*write)(conn *c, struct evbuffer *out);
    /* Bytes already read from the socket and not yet returned by read(). */
    bool (*pending)(const conn *c);
    /* Says goodbye (close_notify) before the socket is shut. */
    void (*close)(conn *c);
    void (*free)(conn *c);
} conn_io;

/* The outcome of a slice of a job (job_step, in job.h). */
typedef enum job_state { JOB_DONE, JOB_PARKED, JOB_YIELD } job_state;

/*
 * What rides along with a mint job (a keyed request's key, keys.c): told
 * of the IDs as they are minted, and that the connection is going away.
 * The connection layer and the job call up through it, never by name.
 */
typedef struct job_rider {
    void (*minted)(conn *c, const mintid_id *ids, size_t n);
    void (*dropped)(conn *c);
} job_rider;

/*
 * A mint request in progress. The connection layer runs it in slices, a
 * bounded number of IDs per loop turn, and parks it in its format's wait
 * queue (blocked.c) when the service says an ID cannot be minted yet; the
 * protocol gives the framing (encode) and the reply (finish), and keeps
 * what it needs of its request in its session (proto.h).
 */
typedef struct mint_job {
    bool active;
    bool parked; /* in its format's wait queue; c->timer holds the deadline */
    const mintid_format *fmt;
    int form;                           /* mintid_form of the text */
    char prefix[MINTID_PREFIX_MAX + 1]; /* typeid's type prefix; "" for none */
    uint64_t count, done;
    uint64_t deadline_ns;  /* CLOCK_MONOTONIC: a parked request fails after this; 0 before it parks */
    char wait_why[192];    /* why it waits (not a moment's busy lock): the refusal's reason at the deadline */
    bool waited;           /* it has waited in its format's queue (counted in parked_total) */
    int error;             /* set by encode when an ID cannot be encoded */
    struct evbuffer *body; /* the IDs encoded so far */
    /* Runs a slice of the job (job_step, set by job_start): the connection
     * layer and the wait queues call the job through it, never by name. */
    job_state (*step)(conn *c, size_t *budget, uint64_t *retry_ns);
    /* Appends ids[0..n) to c->job.body in the protocol's framing. */
    void (*encode)(conn *c, const mintid_id *ids, size_t n);
    /* Queues the reply: the body when status is MINTID_OK, else an error saying why. */
    void (*finish)(conn *c, int status, const char *why);
    /* What rides along with the job, told of each ID minted and of the connection going; NULL: none. */
    const job_rider *rider;
    /* A keyed request (keys.c, the rider): its key, and how its reply is given once the key store has answered. */
    struct key_request *key;
    void (*key_done)(conn *c, const struct key_request *r);
    bool held; /* active, waiting for the key store: nothing else of the connection is served meanwhile */
} mint_job;

/*
 * The jobs of one format that wait for it to mint again (its unit's
 * sequence used up, the clock behind, the state file or lease behind), in
 * the order they began waiting (blocked.c). One timer wakes the queue and
 * serves it from the head, each job an equal share of the format's unit,
 * so however many clients compete for a format's capacity each is served
 * in the next unit, and a wake-up costs one timer, not one per waiting
 * client.
 */
typedef struct wait_queue {
    TAILQ_HEAD(waiters, conn) jobs;
    struct event *timer;
    uint64_t due_ns; /* CLOCK_MONOTONIC: when the timer fires; 0 when not armed */
    struct server *srv;
} wait_queue;

/*
 * What a wait queue calls when its turn comes for a job (blocked.c is
 * below the connection layer, so it calls up through these): run a slice
 * of c's job, as job_step() does, and serve c after its job ended,
 * as conn_process() does (-1 if c was freed).
 */
typedef struct wait_hooks {
    job_state (*step)(conn *c, size_t *budget, uint64_t *retry_ns);
    int (*served)(conn *c);
} wait_hooks;

typedef struct auth_bucket auth_bucket;

typedef struct server {
    struct event_base *base;
    service *svc;
    const config *cfg;
    const proto_ops *ops[PROTO_COUNT]; /* each protocol's operations, set by the process (main.c) */
    struct evconnlistener *listeners[PROTO_COUNT];
    struct evconnlistener *tls_listeners[PROTO_COUNT];
    void *tls_ctx;                     /* OpenSSL's SSL_CTX, replaced on SIGHUP (tls.c) */
    int (*tls_attach)(conn *c);        /* starts TLS on an accepted connection: c->io and c->tls */
    struct event *shed_ev;             /* drops the clients with most unread replies, outside their callbacks */
    struct event *idle_ev;             /* once a second: drops the clients idle past idle-timeout */
    uint64_t input_grown;              /* request buffers' bytes past each connection's first (conn.h) */
    TAILQ_HEAD(conn_list, conn) conns; /* every open connection, newest first, for shutdown */
    unsigned refusing;                 /* refused connections still being closed */
    bool stopping;
    bool started;                            /* the listeners' shared events are made (listen.c) */
    struct evbuffer *scratch;                /* a response body while its head is written */
    auth *auth;                              /* the secrets of auth-file; NULL: no authentication */
    uint64_t next_client_id;                 /* CLIENT ID of the next RESP connection */
    mintid_id *ids;                          /* room for one slice of IDs (SERVER_SLICE_IDS) */
    wait_queue waiting[MINTID_FORMAT_COUNT]; /* by format id */
    wait_hooks wait;                         /* how the wait queues call the connection layer */
    TAILQ_HEAD(fresh_list, conn) fresh;      /* connections without a whole request yet, oldest first */
    struct event *accept_ev;                 /* turns the listeners back on after accept() ran out of descriptors */
    bool spare_open;                         /* spare_fd is held, to be given up to shed a connection */
    int spare_fd;
    bool accept_failing;        /* accept() is failing: logged once, until a connection is accepted again */
    uint64_t accept_shed;       /* connections closed unserved in the current streak */
    auth_bucket *auth_buckets;  /* AUTH_BUCKETS of them; NULL until the first wrong secret */
    uint64_t auth_total_tat_ns; /* the same for every client together */
    struct keys *keys;          /* the idempotency keys' store and those in progress (keys.c) */
} server;

struct conn {
    server *srv;
    proto proto;          /* the index of the service's counters */
    const proto_ops *ops; /* the protocol spoken on it */
    evutil_socket_t fd;
    struct event *rev, *wev; /* readable (with the idle timeout), writable (while replies wait) */
    struct event *timer;     /* a parked request's deadline, or the next slice of work */
    mint_job job;
    char *in; /* bytes received and not yet used */
    size_t in_len, in_cap;
    struct evbuffer *out;        /* replies not yet sent */
    bool lingering;              /* closing: output shut, input dropped until the client closes */
    bool closing;                /* close once the output has drained */
    bool throttled;              /* reading paused until the client reads its replies */
    bool refused;                /* over max-connections: told so, then closed */
    bool input_full;             /* reading paused until requests in c->in are handled */
    uint64_t partial_since_ms;   /* when an incomplete request started waiting; 0 if none */
    uint64_t active_ms;          /* CLOCK_MONOTONIC_COARSE: when it was last readable (idle-timeout's sweep) */
    size_t lingered;             /* bytes dropped while closing */
    uint64_t linger_until_ms;    /* monotonic: a lingering connection is freed by then */
    const conn_io *io;           /* NULL: plain TCP */
    void *tls;                   /* OpenSSL's SSL, with io */
    bool handshaking;            /* TLS: the handshake has not finished */
    unsigned auth_failures;      /* wrong secrets given on this connection */
    uint64_t auth_retry_ms;      /* monotonic: before this, a secret is refused unchecked */
    TAILQ_ENTRY(conn) link;      /* in srv->conns */
    TAILQ_ENTRY(conn) wait_link; /* in srv->waiting[job.fmt->id] while job.parked */
    unsigned char peer[16];      /* the client's address, as auth_bucket keeps it */
    bool fresh;                  /* in srv->fresh: no request has arrived whole yet */
    TAILQ_ENTRY(conn) fresh_link;
    void *session; /* the protocol's state: ops->session_size bytes, zeroed at accept */
    /* The digest of the secret last accepted on it: its idempotency keys' scope (keys.c). */
    unsigned char secret_digest[32];
};

/* IDs minted for one connection per loop turn, and requests handled. */
#define SERVER_SLICE_IDS 4096
#define SERVER_SLICE_REQUESTS 32

/*
 * What max-output-total bounds: replies queued, and request buffers past
 * the one every connection starts with (max-connections bounds those):
 * what dropping the clients holding most can give back. Were the first
 * buffers counted, enough idle connections could keep a server past the
 * bound for good, minting nothing for anyone.
 */
static inline uint64_t server_held(const server *srv) { return srv->svc->c->queued_bytes + srv->input_grown; }

/* Past max-output-total (server_held)? */
static inline bool server_over_total(const server *srv) { return server_held(srv) > srv->cfg->max_output_total; }

/* Has shed.c drop the clients holding most, on its own event, outside the caller's callback. */
static inline void server_shed_soon(server *srv) { event_active(srv->shed_ev, EV_TIMEOUT, 0); }

#endif
