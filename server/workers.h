/* SPDX-License-Identifier: MIT */
/*
 * workers.h - the supervisor of pre-forked worker processes: it forks
 * them once the state is on disk and the listeners are bound, restarts one
 * that dies (with a back-off, so that a worker crashing at once does not
 * make it spin), forwards SIGHUP to every worker, and on SIGTERM or SIGINT
 * stops them all and waits for each to finish the replies it owes. It
 * keeps the state file's writer and the node lease (threads of its own)
 * and serves no client itself.
 */
#ifndef MINTIDD_WORKERS_H
#define MINTIDD_WORKERS_H

#include "claim.h"
#include "shared.h"

#include <stdbool.h>
#include <sys/types.h>

/* What a worker is given: its slot, and the descriptors it writes to. */
typedef struct worker_ctx {
    unsigned slot;  /* 0..n-1: its counters in the shared region */
    unsigned n;     /* workers in all */
    int reserve_fd; /* eventfd: written after raising shared.reserve_asked */
    int ready_fd;   /* a byte written here once the worker accepts */
} worker_ctx;

/* A worker's body: runs in the child and returns its exit status (WORKER_FAILED if it could not start). */
typedef int (*worker_fn)(void *arg, const worker_ctx *wc);
#define WORKER_FAILED 3

typedef struct supervisor {
    unsigned n;
    shared *sh;
    node_claim *claim; /* moved by the lease thread: a fork never copies it half moved */
    worker_fn run;
    void *arg;
    /* sd_notify; NULL for none */
    void (*notify)(const char *what);
    /* Called once every worker accepts (the ready line, READY=1). */
    void (*on_ready)(void *arg);
    /* Called from the supervisor's loop every period_ms (the claim's questions). */
    void (*tick)(void *arg);
    unsigned period_ms;
    unsigned drain_s; /* how long a stop waits for workers before killing them */
} supervisor;

/*
 * Forks the workers and supervises them until SIGTERM or SIGINT has
 * stopped them all. Returns 0 after a clean stop, 1 if the workers could
 * not start (every one of the first workers must accept once).
 */
int supervisor_run(supervisor *sv);

/* In a worker, once its loop handles SIGTERM, SIGINT and SIGHUP: takes them (they are blocked until then). */
void workers_unblock_signals(void);

/* The number of CPUs this process may run on (sched_getaffinity), at least 1. */
unsigned workers_cpus(void);

#endif
