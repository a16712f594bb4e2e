/* SPDX-License-Identifier: MIT */
/*
 * lease.h - node ids leased from etcd, so that many servers never share one.
 *
 * A thread does all the talking to etcd (through etcd.h's client, with TLS
 * and an auth token when configured): it acquires a free node id in the
 * configured range under a lease, in a node space `mintidd init`
 * initialised, keeps the lease alive and confirms its key, and keeps a
 * high-water mark of timestamps in etcd ahead of use. The event loop only
 * reads the lease's state, which is published through atomics, and never
 * waits for etcd.
 */
#ifndef MINTIDD_LEASE_H
#define MINTIDD_LEASE_H

#include "base/claim.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define LEASE_MAX_ENDPOINTS 8 /* etcd.h's ETCD_MAX_ENDPOINTS */

struct etcd;
struct etcd_config;

/* Node ids a lease can take: 0..65535, the widest node field (sonyflake's); node-range is checked
 * against config_node_max(), which is never more. */
#define LEASE_NODE_IDS 65536

/* The node space's marker, PREFIX/cluster: "mintid-cluster <id> floor <Unix ms>". */
#define LEASE_CLUSTER_ID_LEN 32 /* hex digits */

typedef struct lease_config {
    char endpoints[LEASE_MAX_ENDPOINTS][128]; /* "http://host:port" or "https://host:port" */
    int nendpoints;
    char prefix[128];            /* key prefix, e.g. "/mintid" */
    unsigned range_lo, range_hi; /* node ids to choose from */
    unsigned ttl_s;              /* lease TTL */
    unsigned margin_ms;          /* stop minting this long before the lease could expire */
    unsigned reserve_ahead_ms;   /* mark kept this far ahead of the clock */
    node_claim *claim;           /* the host-wide claim, moved to a node id before it is leased */
    /* TLS (etcds://) and authentication; empty strings for none. */
    char ca[256], cert[256], key[256]; /* PEM files: the CAs etcd's certificate chains to, our client certificate */
    char user[128];
    char password[256]; /* read from etcd-password-file; never logged */
    /* The cluster id this server's state directory recorded, empty if none;
     * a different one in etcd is refused unless adopt_cluster. */
    char cluster_id[LEASE_CLUSTER_ID_LEN + 1];
    bool adopt_cluster;
} lease_config;

typedef struct lease {
    lease_config cfg;
    /* Published state, read by the event loop. */
    _Atomic int64_t node;            /* -1 while none is held */
    _Atomic uint64_t id;             /* the etcd lease id, 0 while none */
    _Atomic uint64_t valid_until_ns; /* lease_clock_ns(): minting allowed before this */
    _Atomic uint64_t valid_from_ns;  /* ...and not before this: the previous holder may still mint until then */
    _Atomic int64_t mark_ms;         /* Unix ms reserved in etcd for this node */
    _Atomic int64_t floor_ms;        /* the previous holder's mark: issue only later timestamps */
    _Atomic uint64_t generation;     /* bumped at every acquisition */
    _Atomic uint64_t keepalive_failures;
    _Atomic bool unreachable;         /* the last request got no answer from any endpoint */
    _Atomic uint64_t asking_since_ns; /* lease_clock_ns() when the request in flight was sent; 0 if none */
    _Atomic bool stop;
    _Atomic int64_t final_mark_ms; /* set before stopping: the last timestamp issued */
    pthread_t thread;
    bool running;
    /* The thread's own. */
    struct etcd *etcd;
    int64_t last_node; /* to try first when acquiring again */
    uint64_t stale_id; /* a lease given up while etcd was unreachable, to revoke when it is back */
    uint64_t bad_logged[LEASE_NODE_IDS / 64];     /* node ids whose mark in etcd did not parse, said once each */
    uint64_t claimed_logged[LEASE_NODE_IDS / 64]; /* node ids another server on this host holds, said once each */
    char owner[128];                              /* the value of our nodes/N key: host, pid and a random instance id */
    char cluster[160]; /* the marker's text as found at start: every acquisition and confirmation compares it */
    char cluster_id[LEASE_CLUSTER_ID_LEN + 1]; /* ...and its id */
    int64_t cluster_floor;                     /* the marker's floor: no node id's IDs at or before it */
    int cluster_problem;                       /* the last thing wrong with the marker (said once), 0 if none */
} lease;

/*
 * Parses "etcd://HOST:PORT[,HOST:PORT...]/PREFIX", or etcds:// for TLS.
 * Returns 0, or -1 with a message in err.
 */
int lease_parse_url(const char *url, lease_config *cfg, char *err, size_t errcap);
/* Parses "LO-HI" (or "N"). */
int lease_parse_range(const char *text, unsigned max, unsigned *lo, unsigned *hi);

/*
 * Acquires a node id before the server starts serving, then starts the
 * keepalive thread, and returns once the node id may be used: at once after
 * a clean hand-over, after the TTL plus the margin when its last holder did
 * not release it (it may be minting still). wait_s > 0 retries for that
 * long while etcd cannot be reached or every node id is held; 0 fails at
 * once. Returns 0, or -1 after logging why (etcd unreachable, range
 * exhausted, the node space not initialised or initialised again).
 */
int lease_start(lease *l, const lease_config *cfg, unsigned wait_s);

/*
 * `mintidd init`: writes the node space's marker under cfg's prefix with a
 * new cluster id and floor_ms (no ID at or before it), only if there is no
 * marker yet. Returns 0 with the id in id_out, or -1 after logging why.
 */
int lease_init_cluster(const lease_config *cfg, int64_t floor_ms, char id_out[LEASE_CLUSTER_ID_LEN + 1]);

/*
 * The cluster id recorded in the state directory `dir` (file "cluster"):
 * 0 with it in id (empty if the file does not exist), or -1 after logging
 * (unreadable or malformed). lease_cluster_save writes it durably (a new
 * file renamed into place, both fsynced); 0 or -1 after logging.
 */
int lease_cluster_load(const char *dir, char id[LEASE_CLUSTER_ID_LEN + 1]);
int lease_cluster_save(const char *dir, const char *id);

/* The cluster id found in etcd at start (after lease_start). */
const char *lease_cluster_id(const lease *l);

/*
 * The settings of an etcd client (etcd.h) on cfg's endpoints, TLS and user,
 * its requests timed by cfg's TTL, its log lines starting with who: for the
 * lease's own client and for other subsystems' (the idempotency keys,
 * keys/etcd_store.c). out holds the password: zero it once the client is open.
 */
void lease_etcd_config(const lease_config *cfg, const char *who, struct etcd_config *out);

/* Releases the node: the final mark is written and the lease revoked. */
void lease_stop(lease *l, int64_t last_issued_ms);

/*
 * The clock leases are fenced on: CLOCK_BOOTTIME, monotonic, and unlike
 * CLOCK_MONOTONIC counting while the machine is suspended, as etcd's TTL
 * does. valid_until_ns is on this clock.
 */
uint64_t lease_clock_ns(void);

/*
 * What the service reads of a lease (lease_view.c, which does no I/O, so
 * what links the service needs neither libcurl nor jansson).
 */
/* True while a node id is held and its lease cannot yet have expired (though perhaps not yet usable). */
bool lease_held(lease *l);
/* True while a lease is held, cannot yet have expired, and its node id's previous holder must have stopped. */
bool lease_valid(lease *l);
/*
 * Whether etcd is not answering: the last request went unanswered, or the
 * one in flight has waited longer than etcd takes when it is up. For the
 * refusals, which then say that etcd is unreachable.
 */
bool lease_etcd_unreachable(lease *l);

/* While a node id is held but not yet usable: the ns (lease_clock_ns) left to wait; else 0. */
uint64_t lease_wait_ns(lease *l);

#endif
