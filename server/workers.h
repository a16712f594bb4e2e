/* SPDX-License-Identifier: MIT */
/*
 * workers.h - the supervisor of the worker processes: it starts them once
 * the state is on disk and the listeners are bound, restarts one that dies
 * (with a back-off, so that a worker crashing at once does not make it
 * spin), forwards SIGHUP to every worker, and on SIGTERM or SIGINT stops
 * them all and waits for each to finish the replies it owes. It keeps the
 * state file's writer and the node lease (threads of its own) and serves no
 * client itself.
 *
 * A worker is this program executed again (/proc/self/exe, as `mintidd
 * worker SLOT`), never a fork that goes on running: the supervisor runs
 * threads, and a child of fork() keeps held for good every lock one of them
 * held at that moment (the allocator's, OpenSSL's, libcurl's). posix_spawn()
 * runs none of our code between its fork and the exec, and a worker begins
 * as a new process with one thread and nothing of the supervisor's but the
 * region of shared memory (shared.h) and the descriptors below. So it does
 * not matter what the supervisor's threads are doing when a worker starts,
 * at start or at a restart.
 */
#ifndef MINTIDD_WORKERS_H
#define MINTIDD_WORKERS_H

#include "shared.h"

/* A worker's command line: argv[0] of the supervisor, WORKER_ARG, its slot. */
#define WORKER_ARG "worker"

/* The descriptors a worker is given, and nothing else of the supervisor's. */
enum {
    WORKER_FD_SHARED = 3, /* the region of shared memory */
    WORKER_FD_RESERVE,    /* an eventfd: written after raising shared.reserve_asked */
    WORKER_FD_READY,      /* a pipe: the worker's slot written once it accepts */
    WORKER_FD_INHERIT     /* supervisor.inherit[0], [1], ... in this order: the listeners */
};
#define WORKER_INHERIT_MAX 16

/* What a worker is: its slot, and the descriptors it writes to. */
typedef struct worker_ctx {
    unsigned slot;  /* 0..n-1: its counters in the shared region */
    unsigned n;     /* workers in all */
    int reserve_fd; /* eventfd: written after raising shared.reserve_asked */
    int ready_fd;   /* a byte written here once the worker accepts */
} worker_ctx;

/* A worker's exit status when it could not start. */
#define WORKER_FAILED 3

typedef struct supervisor {
    unsigned n;
    shared *sh;
    int shared_fd;      /* sh's descriptor (shared_new) */
    const char *argv0;  /* the supervisor's argv[0], the workers' too (what ps shows) */
    const int *inherit; /* descriptors every worker is given, at WORKER_FD_INHERIT + i */
    unsigned ninherit;  /* at most WORKER_INHERIT_MAX */
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
 * Starts the workers and supervises them until SIGTERM or SIGINT has
 * stopped them all. Returns 0 after a clean stop, 1 if the workers could
 * not start (every one of the first workers must accept once).
 */
int supervisor_run(supervisor *sv);

/*
 * In a process started as a worker (argv[1] is WORKER_ARG): makes it die
 * with its supervisor, checks that the supervisor started it (its parent,
 * the region at WORKER_FD_SHARED) and maps the region. Returns 0 with *sh
 * and *wc filled, 2 after telling a person who started it by hand that only
 * the supervisor does, or WORKER_FAILED after logging why.
 */
int worker_attach(int argc, char **argv, shared **sh, worker_ctx *wc);

/* In a worker, once its loop handles SIGTERM, SIGINT and SIGHUP: takes them (they are blocked until then). */
void workers_unblock_signals(void);

/* The number of CPUs this process may run on (sched_getaffinity), at least 1. */
unsigned workers_cpus(void);

#endif
