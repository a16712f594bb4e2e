/* SPDX-License-Identifier: MIT */
/*
 * blocked.h - the wait queues (after redis's blocked.c): a mint job that
 * cannot be minted yet waits in its format's queue (wait_queue, server.h)
 * and is served in turn, with an equal share, when the format can mint
 * again, or fails at its deadline (max-wait).
 */
#ifndef MINTIDD_BLOCKED_H
#define MINTIDD_BLOCKED_H

#include "server.h"

#include <stdbool.h>
#include <stdint.h>

/* A new job behind a waiting queue has the queue looked at again within this. */
#define WAIT_RECHECK_NS 1000000u

/*
 * Makes srv's queues' timers; hooks is how a queue's turn runs a job and
 * serves its connection. Returns 0, or -1 after logging why.
 */
int blocked_init(server *srv, const wait_hooks *hooks);
/* Frees the queues' timers (every connection is gone). */
void blocked_free(server *srv);

/* The queue of fmt's jobs. */
static inline wait_queue *blocked_queue(server *srv, const mintid_format *fmt) { return &srv->waiting[fmt->id]; }

/* Takes c's parked job out of its format's queue, and its deadline off c->timer. */
void blocked_remove(conn *c);

/*
 * Parks c's job in its format's queue, at the back or (a job whose turn
 * came and could mint nothing) the front. A job starting to wait gets its
 * deadline on c->timer: max-wait bounds each wait, not a whole batch that
 * keeps progressing. A request is counted once, however many turns it
 * waits. Returns the time left to the deadline, in ns.
 */
uint64_t blocked_push(conn *c, bool front);

/* Wakes q after retry_ns, unless it is already due sooner. */
void blocked_arm(wait_queue *q, uint64_t retry_ns);

/*
 * Parks c's job, which could mint nothing more, and wakes its queue when
 * the service said to try again, or at the job's deadline if that comes
 * first: a wait for the wall clock is looked at again at least that often,
 * since the clock can be stepped meanwhile.
 */
void blocked_park(conn *c, bool front, uint64_t retry_ns);

/* A time span as libevent takes it. */
static inline struct timeval ns_timeval(uint64_t ns) {
    return (struct timeval){(time_t)(ns / 1000000000u), (suseconds_t)(ns % 1000000000u / 1000u)};
}

#endif
