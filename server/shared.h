/* SPDX-License-Identifier: MIT */
/*
 * shared.h - what the supervisor and its worker processes share: one
 * region of shared memory made before the first fork. In it are the state
 * (its mark, the mark wanted, whether it fails or the directory was lost),
 * written by the supervisor's writer thread, and the node lease, written by
 * the supervisor's lease thread: workers only read their atomics, at every
 * admission, so a lease lost or a state file failing stops every worker at
 * the next mint. Workers ask for a mark through reserve_asked and a wake-up
 * on an eventfd the supervisor watches. Each worker counts in its own slot,
 * which outlives the worker: the totals of /metrics and INFO never go down
 * when a worker is restarted.
 */
#ifndef MINTIDD_SHARED_H
#define MINTIDD_SHARED_H

#include "lease.h"
#include "service.h"
#include "state.h"

#include <stdatomic.h>
#include <stdint.h>

/* The most workers the setting allows. */
#define SHARED_WORKERS_MAX 1024

typedef struct shared {
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

/* Maps a zeroed region with nslots counter slots. NULL after logging why. */
shared *shared_new(unsigned nslots);
void shared_free(shared *sh);

/* Zeroes the gauges of a slot whose worker is gone (open connections, parked requests, queued bytes). */
void shared_reset_gauges(service_counters *slot);

#endif
