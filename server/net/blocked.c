/* SPDX-License-Identifier: MIT */
/*
 * blocked.c - the wait queues: one per format, a TAILQ of the connections
 * whose job waits for the format to mint again, and one timer that serves
 * it from the head. This file is below the connection layer: it runs a
 * job and serves its connection through srv->wait (wait_hooks), never by
 * name.
 */
#include "net/blocked.h"

#include "base/log.h"

void blocked_remove(conn *c) {
    wait_queue *q = blocked_queue(c->srv, c->job.fmt);
    TAILQ_REMOVE(&q->jobs, c, wait_link);
    c->job.parked = false;
    c->srv->svc->c->parked_now--;
    event_del(c->timer);
}

uint64_t blocked_push(conn *c, bool front) {
    server *srv = c->srv;
    mint_job *j = &c->job;
    wait_queue *q = blocked_queue(srv, j->fmt);
    uint64_t now = monotonic_ns();
    if (j->deadline_ns == 0)
        j->deadline_ns = now + srv->cfg->max_wait * 1000000u;
    if (!j->waited) {
        j->waited = true;
        srv->svc->c->parked_total++;
    }
    if (front)
        TAILQ_INSERT_HEAD(&q->jobs, c, wait_link);
    else
        TAILQ_INSERT_TAIL(&q->jobs, c, wait_link);
    j->parked = true;
    srv->svc->c->parked_now++;
    uint64_t left = j->deadline_ns > now ? j->deadline_ns - now : 0;
    struct timeval tv = ns_timeval(left);
    event_add(c->timer, &tv);
    return left;
}

void blocked_arm(wait_queue *q, uint64_t retry_ns) {
    uint64_t due = monotonic_ns() + retry_ns;
    if (q->due_ns != 0 && q->due_ns <= due && event_pending(q->timer, EV_TIMEOUT, NULL))
        return;
    q->due_ns = due;
    struct timeval tv = ns_timeval(retry_ns);
    event_add(q->timer, &tv);
}

void blocked_park(conn *c, bool front, uint64_t retry_ns) {
    uint64_t left = blocked_push(c, front);
    blocked_arm(blocked_queue(c->srv, c->job.fmt), retry_ns < left ? retry_ns : left);
}

/*
 * Serves a format's wait queue when the format can mint again: from the
 * head, each job at most once per wake-up, with an equal share of the
 * format's unit (4096 nanoflakes in a ms among 100 waiting clients: 40
 * each), so a client asking for a few IDs is answered in the first unit
 * however many big batches wait with it. A job that minted and wants more
 * goes to the back; one that could mint nothing stays at the head, and the
 * queue sleeps until the time it was given.
 */
static void on_wait_timer(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what;
    wait_queue *q = arg;
    server *srv = q->srv;
    q->due_ns = 0;
    size_t turns = 0;
    conn *c;
    TAILQ_FOREACH (c, &q->jobs, wait_link) {
        turns++;
    }
    if (turns == 0)
        return;
    /* A format of unbounded capacity waits only for the clock, the state
     * file or a lease: whole slices. */
    const mintid_format *fmt = TAILQ_FIRST(&q->jobs)->job.fmt;
    size_t share = SERVER_SLICE_IDS;
    if (fmt->capacity_per_ms != 0) {
        uint64_t each = (uint64_t)fmt->capacity_per_ms * fmt->ts_unit_ms / turns;
        share = each == 0 ? 1 : each < SERVER_SLICE_IDS ? (size_t)each : SERVER_SLICE_IDS;
    }
    for (; turns > 0 && !TAILQ_EMPTY(&q->jobs); turns--) {
        c = TAILQ_FIRST(&q->jobs);
        size_t budget = share;
        uint64_t retry_ns = 0, before = c->job.done;
        blocked_remove(c);
        job_state js = srv->wait.step(c, &budget, &retry_ns);
        bool minted = c->job.done > before;
        if (js == JOB_DONE) {
            srv->wait.served(c); /* its reply, then the requests behind it */
            continue;
        }
        if (js == JOB_PARKED) {
            blocked_park(c, !minted, retry_ns);
            return;
        }
        blocked_push(c, !minted);
        if (!minted || server_over_total(srv)) {
            /* Past the bound on queued replies: the clients holding most
             * are dropped, and the queue goes on next loop turn. */
            if (server_over_total(srv))
                server_shed_soon(srv);
            blocked_arm(q, 0);
            return;
        }
    }
    /* Everyone had a slice: the rest on the next turn, after other events. */
    if (!TAILQ_EMPTY(&q->jobs))
        blocked_arm(q, 0);
}

int blocked_init(server *srv, const wait_hooks *hooks) {
    srv->wait = *hooks;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        wait_queue *q = &srv->waiting[i];
        if (q->timer != NULL)
            continue;
        TAILQ_INIT(&q->jobs);
        q->srv = srv;
        if ((q->timer = evtimer_new(srv->base, on_wait_timer, q)) == NULL) {
            log_msg(LOG_ERROR, "out of memory");
            return -1;
        }
    }
    return 0;
}

void blocked_free(server *srv) {
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        if (srv->waiting[i].timer != NULL) {
            event_free(srv->waiting[i].timer);
            srv->waiting[i].timer = NULL;
        }
    }
}
