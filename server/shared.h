/* SPDX-License-Identifier: MIT */
/*
 * shared.h - what the supervisor and its worker processes share: one
 * region of shared memory, a memfd that each worker maps again (a worker is
 * this program executed anew, workers.h). In it are the state (its mark,
 * the mark wanted, whether it fails or the directory was lost), written by
 * the supervisor's writer thread, and the node lease, written by the
 * supervisor's lease thread: workers only read their atomics, at every
 * admission, so a lease lost or a state file failing stops every worker at
 * the next mint. Workers ask for a mark through reserve_asked and a wake-up
 * on an eventfd the supervisor watches. Each worker counts in its own slot,
 * which outlives the worker: the totals of /metrics and INFO never go down
 * when a worker is restarted. Nothing in the region is a pointer: each
 * process maps it where it can.
 */
#ifndef MINTIDD_SHARED_H
#define MINTIDD_SHARED_H

#include "base/config.h"
#include "keys/store.h"
#include "cluster/lease.h"
#include "proto.h"
#include "service.h"
#include "base/state.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The most workers the setting allows. */
#define SHARED_WORKERS_MAX 1024

/*
 * What a worker starts from, written once by the supervisor before the first
 * worker starts: the settings as the supervisor checked them, rather than a
 * config file read again that may have been edited since, and the lease's
 * etcd for the key store.
 */
typedef struct shared_boot {
    config cfg;
    bool leased;
    lease_config lc;               /* with a node lease: its etcd, its password included; its claim NULL */
    key_store_prepared keys;       /* keys.sqlite as the supervisor prepared it: another file in its place is refused */
    uint64_t start_ns;             /* monotonic: when the supervisor started, for the uptime */
    int listeners[PROTO_COUNT][2]; /* plain and TLS: the worker's descriptor of each socket bound, -1 for none */
} shared_boot;

typedef struct shared {
    uint64_t magic;   /* SHARED_MAGIC: a worker checks that it was given this region */
    pid_t supervisor; /* a worker checks that its parent is the supervisor that started it */
    shared_boot boot;
    state st;                      /* the supervisor's; its mutex and condition are used by the supervisor alone */
    lease lease;                   /* the supervisor's; workers read its atomics */
    _Atomic int64_t reserve_asked; /* the highest mark a worker asked for */
    _Atomic uint64_t workers;      /* workers running */
    _Atomic uint64_t restarts;     /* workers restarted after they died */
    _Atomic uint64_t reloads;      /* SIGHUPs: a worker started after one reads its files again */
    _Atomic int64_t last_issued[SHARED_WORKERS_MAX]; /* each worker's latest timestamp, written as it stops */
    unsigned nslots;
    size_t size; /* of the mapping */
    service_counters slots[];
} shared;

/*
 * Makes and maps a zeroed region with nslots counter slots; *fd is its
 * descriptor (close-on-exec), for the workers. NULL after logging why.
 */
shared *shared_new(unsigned nslots, int *fd);
/* Maps the region of fd in a worker. NULL after logging why (fd is not such a region). */
shared *shared_attach(int fd);
void shared_free(shared *sh);

/* Zeroes the gauges of a slot whose worker is gone (open connections, parked requests, queued bytes). */
void shared_reset_gauges(service_counters *slot);

#endif
