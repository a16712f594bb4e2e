/* SPDX-License-Identifier: MIT */
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

/* Lengths of what a RESP client may name itself (CLIENT SETNAME, SETINFO). */
#define RESP_NAME_MAX 64
/* Commands one MULTI may queue before EXEC; past it the transaction fails. */
#define RESP_MULTI_MAX 1000

/*
 * What a RESP connection has said about itself: the protocol version HELLO
 * chose, its name, whether it has authenticated, and an open transaction.
 */
typedef struct resp_session {
    int proto;              /* 2 or 3 */
    uint64_t id;            /* CLIENT ID: unique for the life of the server */
    bool authed;            /* true from the start when no auth-file is set */
    bool in_multi;          /* between MULTI and EXEC/DISCARD */
    bool multi_bad;         /* a command failed to queue: EXEC answers EXECABORT */
    unsigned queued;        /* commands in `multi` */
    unsigned exec_left;     /* queued commands EXEC still has to run */
    struct evbuffer *multi; /* the queued commands, as RESP arrays; NULL until the first MULTI */
    char name[RESP_NAME_MAX + 1], lib_name[RESP_NAME_MAX + 1], lib_ver[RESP_NAME_MAX + 1];
} resp_session;

/*
 * A mint request in progress. The connection layer runs it in slices, a
 * bounded number of IDs per loop turn, and parks it on a timer when the
 * service says an ID cannot be minted yet; the protocol gives the framing
 * (encode) and the reply (finish).
 */
typedef struct mint_job {
    bool active;
    bool parked; /* in its format's wait queue; c->timer holds the deadline */
    const mintid_format *fmt;
    int form;                           /* mintid_form of the text */
    char prefix[MINTID_PREFIX_MAX + 1]; /* typeid's type prefix; "" for none */
    uint64_t count, done;
    uint64_t deadline_ns;  /* CLOCK_MONOTONIC: a parked request fails after this; 0 before it parks */
    bool waited;           /* it has waited in its format's queue (counted in parked_total) */
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

/*
 * The jobs of one format that wait for it to mint again (its unit's
 * sequence used up, the clock behind, the state file or lease behind), in
 * the order they began waiting. One timer wakes the queue and serves it
 * from the head, each job an equal share of the format's unit, so however
 * many clients compete for a format's capacity each is served in the next
 * unit, and a wake-up costs one timer, not one per waiting client.
 */
typedef struct wait_queue {
    conn *head, *tail;
    struct event *timer;
    uint64_t due_ns; /* CLOCK_MONOTONIC: when the timer fires; 0 when not armed */
} wait_queue;

/*
 * The wrong secrets one client address has given, as the time its budget
 * is spent up to (a GCRA's theoretical arrival time): a failure moves it
 * one interval on, and a secret is checked only while it is less than a
 * second ahead of now.
 */
typedef struct auth_bucket {
    unsigned char addr[16]; /* IPv4-mapped, or an IPv6 /64 */
    uint64_t tat_ns;        /* CLOCK_MONOTONIC; at or before now: nothing spent */
} auth_bucket;
/* Client addresses tracked at once; an address that does not fit takes the
 * slot of the one with least spent, and the limit on all clients stays. */
#define AUTH_BUCKETS 4096

typedef struct server {
    struct event_base *base;
    service *svc;
    const config *cfg;
    struct evconnlistener *listeners[PROTO_COUNT];
    struct evconnlistener *tls_listeners[PROTO_COUNT];
    void *tls_ctx;              /* OpenSSL's SSL_CTX, replaced on SIGHUP (tls.c) */
    int (*tls_attach)(conn *c); /* starts TLS on an accepted connection: c->io and c->tls */
    struct event *shed_ev;      /* drops the clients with most unread replies, outside their callbacks */
    conn *conns;                /* every open connection, for shutdown */
    unsigned refusing;          /* refused connections still being closed */
    bool stopping;
    struct evbuffer *scratch;                /* a response body while its head is written */
    auth *auth;                              /* the secrets of auth-file; NULL: no authentication */
    uint64_t next_client_id;                 /* CLIENT ID of the next RESP connection */
    mintid_id *ids;                          /* room for one slice of IDs (SERVER_SLICE_IDS) */
    wait_queue waiting[MINTID_FORMAT_COUNT]; /* by format id */
    TAILQ_HEAD(fresh_list, conn) fresh;      /* connections without a whole request yet, oldest first */
    struct event *accept_ev;                 /* turns the listeners back on after accept() ran out of descriptors */
    bool spare_open;                         /* spare_fd is held, to be given up to shed a connection */
    int spare_fd;
    bool accept_failing;        /* accept() is failing: logged once, until a connection is accepted again */
    uint64_t accept_shed;       /* connections closed unserved in the current streak */
    auth_bucket *auth_buckets;  /* AUTH_BUCKETS of them; NULL until the first wrong secret */
    uint64_t auth_total_tat_ns; /* the same for every client together */
} server;

struct conn {
    server *srv;
    proto proto;
    evutil_socket_t fd;
    struct event *rev, *wev; /* readable (with the idle timeout), writable (while replies wait) */
    struct event *timer;     /* a parked request's deadline, or the next slice of work */
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
    const conn_io *io;         /* NULL: plain TCP */
    void *tls;                 /* OpenSSL's SSL, with io */
    bool handshaking;          /* TLS: the handshake has not finished */
    resp_session resp;         /* RESP only */
    unsigned auth_failures;    /* wrong secrets given on this connection */
    uint64_t auth_retry_ms;    /* monotonic: before this, a secret is refused unchecked */
    conn *prev, *next;
    conn *wait_prev, *wait_next; /* in srv->waiting[job.fmt->id] while job.parked */
    unsigned char peer[16];      /* the client's address, as auth_bucket keeps it */
    bool fresh;                  /* in srv->fresh: no request has arrived whole yet */
    TAILQ_ENTRY(conn) fresh_link;
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
 * minted off *budget. JOB_DONE: the reply is queued (an error if the job
 * waited past max-wait, saying why). JOB_PARKED: nothing more can be
 * minted yet; try again after *retry_ns. JOB_YIELD: the budget is spent,
 * or the replies queued for all clients are past their bound.
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
/*
 * RESP's EXEC runs the commands it queued one per call, each in turn like
 * a request read from the socket: true while one is left, and
 * resp_exec_step() runs it.
 */
bool resp_exec_pending(const conn *c);
void resp_exec_step(conn *c, struct evbuffer *out);
/* Sets up and releases a RESP connection's session. */
void resp_session_init(conn *c);
void resp_session_free(conn *c);
/* What a refused connection is told before it is closed. */
extern const char http_refusal[];
extern const char resp_refusal[];

/*
 * Authentication (conn.c): auth-file's secrets, and the one check both
 * protocols make of a secret a client offers.
 */
#define AUTH_DIGEST_LEN 32
/* Longest secret a line of auth-file may hold. */
#define AUTH_SECRET_MAX 1024
/* Wrong secrets one connection may offer at full speed; after them each
 * wrong one doubles a pause (from AUTH_PAUSE_MS to AUTH_PAUSE_MAX_MS) during
 * which secrets are refused unchecked, and at AUTH_MAX_FAILURES the
 * connection is closed. */
#define AUTH_FREE_FAILURES 3
#define AUTH_PAUSE_MS 250
#define AUTH_PAUSE_MAX_MS 2000
#define AUTH_MAX_FAILURES 10

/*
 * Only SHA-256 digests of the secrets are held, so the comparison takes
 * the same time whatever the length of the secret or of the guess, and the
 * secrets themselves are not kept in memory.
 */
struct auth {
    size_t n;
    unsigned char (*digest)[AUTH_DIGEST_LEN];
};

/*
 * Reads path: one secret per line (CR LF or LF), blank lines skipped.
 * Returns 0, or -1 after logging why (never a secret): unreadable, no
 * secret, a line longer than AUTH_SECRET_MAX, a NUL byte.
 */
int auth_load(auth *a, const char *path);
void auth_free(auth *a);

typedef enum auth_result {
    AUTH_OK,
    AUTH_WRONG,   /* not a secret of the file */
    AUTH_TOO_SOON /* refused unchecked: wrong ones came too fast; *retry_ms says when to try, *where from whom */
} auth_result;

/*
 * Checks secret[0..len) offered on c, in constant time against every
 * secret, and counts a refusal in the service's auth_failures. Wrong
 * secrets are limited on the connection (AUTH_FREE_FAILURES...), from its
 * client address (auth-failures-per-address) and from all clients
 * (auth-failures-total); past a limit a secret is refused unchecked, and
 * *where says which ("on this connection", "from this address", "on this
 * server"). Past AUTH_MAX_FAILURES on c it also sets c->closing.
 */
auth_result auth_attempt(conn *c, const char *secret, size_t len, uint64_t *retry_ms, const char **where);

/* Binds HOST:PORT for `p`, plain or TLS. Returns 0, or -1 after logging why. */
int server_listen(server *srv, proto p, const char *address, bool tls);

/*
 * TLS (tls.c): the context from tls-cert, tls-key and tls-ca; tls_reload()
 * makes a new one (SIGHUP) and keeps the old one if that fails. Each
 * returns 0, or -1 after logging why.
 */
int tls_init(server *srv);
int tls_reload(server *srv);
void tls_shutdown(server *srv);
/* Stops accepting, closes idle connections and lets the rest drain. */
void server_stop(server *srv);
/* Closes every connection. */
void server_close_all(server *srv);

#endif
