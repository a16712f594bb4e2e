/*
 * lease.h - node ids leased from etcd, so that many servers never share one.
 *
 * A thread does all the talking to etcd (its v3 JSON gateway, over libcurl):
 * it acquires a free node id in the configured range under a lease, keeps
 * the lease alive, and keeps a high-water mark of timestamps in etcd ahead
 * of use. The event loop only reads the lease's state, which is published
 * through atomics, and never waits for etcd.
 */
#ifndef MINTIDD_LEASE_H
#define MINTIDD_LEASE_H

#include "claim.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define LEASE_MAX_ENDPOINTS 8

/* Node ids a lease can take: 0..65535, the widest node field (sonyflake's); node-range is checked
 * against config_node_max(), which is never more. */
#define LEASE_NODE_IDS 65536

typedef struct lease_config {
    char endpoints[LEASE_MAX_ENDPOINTS][128]; /* "http://host:port" */
    int nendpoints;
    char prefix[128];            /* key prefix, e.g. "/mintid" */
    unsigned range_lo, range_hi; /* node ids to choose from */
    unsigned ttl_s;              /* lease TTL */
    unsigned margin_ms;          /* stop minting this long before the lease could expire */
    unsigned reserve_ahead_ms;   /* mark kept this far ahead of the clock */
    node_claim *claim;           /* the host-wide claim, moved to a node id before it is leased */
} lease_config;

typedef struct lease {
    lease_config cfg;
    /* Published state, read by the event loop. */
    _Atomic int64_t node;            /* -1 while none is held */
    _Atomic uint64_t id;             /* the etcd lease id, 0 while none */
    _Atomic uint64_t valid_until_ns; /* lease_clock_ns(): minting allowed before this */
    _Atomic int64_t mark_ms;         /* Unix ms reserved in etcd for this node */
    _Atomic int64_t floor_ms;        /* the previous holder's mark: issue only later timestamps */
    _Atomic uint64_t generation;     /* bumped at every acquisition */
    _Atomic uint64_t keepalive_failures;
    _Atomic bool stop;
    _Atomic int64_t final_mark_ms; /* set before stopping: the last timestamp issued */
    pthread_t thread;
    bool running;
    /* The thread's own. */
    void *curl;
    int endpoint;      /* the endpoint in use */
    int64_t last_node; /* to try first when acquiring again */
    uint64_t stale_id; /* a lease given up while etcd was unreachable, to revoke when it is back */
    uint64_t bad_logged[LEASE_NODE_IDS / 64];     /* node ids whose mark in etcd did not parse, said once each */
    uint64_t claimed_logged[LEASE_NODE_IDS / 64]; /* node ids another server on this host holds, said once each */
} lease;

/*
 * Parses "etcd://HOST:PORT[,HOST:PORT...]/PREFIX". Returns 0, or -1 with a
 * message in err.
 */
int lease_parse_url(const char *url, lease_config *cfg, char *err, size_t errcap);
/* Parses "LO-HI" (or "N"). */
int lease_parse_range(const char *text, unsigned max, unsigned *lo, unsigned *hi);

/*
 * Acquires a node id before the server starts serving, then starts the
 * keepalive thread. wait_s > 0 retries for that long while etcd cannot be
 * reached; 0 fails at once. Returns 0, or -1 after logging why (etcd
 * unreachable, range exhausted).
 */
int lease_start(lease *l, const lease_config *cfg, unsigned wait_s);

/* Releases the node: the final mark is written and the lease revoked. */
void lease_stop(lease *l, int64_t last_issued_ms);

/*
 * The clock leases are fenced on: CLOCK_BOOTTIME, monotonic, and unlike
 * CLOCK_MONOTONIC counting while the machine is suspended, as etcd's TTL
 * does. valid_until_ns is on this clock.
 */
uint64_t lease_clock_ns(void);

/* True while a lease is held and cannot yet have expired. */
bool lease_valid(lease *l);

#endif
