/* SPDX-License-Identifier: MIT */
/*
 * job.c - a mint job: the IDs a request asked for, minted in slices as the
 * connection layer's budget allows, never waiting (a job that cannot mint
 * yet is parked in its format's queue, blocked.c), framed by its
 * protocol's encode and answered by its finish. What rides along with a
 * job (a keyed request's key, keys.c) is told of each ID and of the
 * connection going through the rider's hooks, so the connection layer
 * never calls the key store.
 */
#include "job.h"

#include "net/blocked.h"

#include <stdio.h>
#include <string.h>

/* Queues the reply of a finished (or failed) job and clears it. */
static void job_end(conn *c, int status, const char *why) {
    if (c->job.parked)
        blocked_remove(c);
    if (status != MINTID_OK)
        evbuffer_drain(c->job.body, evbuffer_get_length(c->job.body));
    c->job.finish(c, status, why);
    evbuffer_drain(c->job.body, evbuffer_get_length(c->job.body));
    c->job.active = c->job.held; /* a job with a rider may wait on for it (a keyed job for the key store) */
}

job_state job_step(conn *c, size_t *budget, uint64_t *retry_ns) {
    server *srv = c->srv;
    mint_job *j = &c->job;
    if (j->parked)
        blocked_remove(c);
    while (j->done < j->count) {
        /* Past the bound on replies queued for everyone, mint nothing more
         * until the slowest clients are dropped. */
        if (*budget == 0 || server_over_total(srv))
            return JOB_YIELD;
        size_t want = j->count - j->done < *budget ? (size_t)(j->count - j->done) : *budget;
        const char *why = NULL;
        long n = service_mint(srv->svc, j->fmt, want, srv->ids, retry_ns, &why);
        if (n < 0) {
            job_end(c, (int)n, why);
            return JOB_DONE;
        }
        if (n > 0) {
            j->deadline_ns = 0; /* max-wait bounds each wait, not a whole batch that keeps progressing */
            j->wait_why[0] = '\0';
        }
        if (n == 0) {
            /* A lock another worker holds a moment (minting as the clock
             * comes right) is not why a request waited its max-wait. A
             * copy: the service's sentences may be in a buffer that the
             * next request's mint writes. */
            if (why != NULL && (why != service_lock_busy || j->wait_why[0] == '\0'))
                snprintf(j->wait_why, sizeof j->wait_why, "%s", why);
            if (j->deadline_ns != 0 && monotonic_ns() >= j->deadline_ns) {
                job_end(c, MINTID_ETIMEDOUT, j->wait_why[0] != '\0' ? j->wait_why : why);
                return JOB_DONE;
            }
            return JOB_PARKED;
        }
        j->encode(c, srv->ids, (size_t)n);
        if (j->rider != NULL)
            j->rider->minted(c, srv->ids, (size_t)n);
        if (j->error != 0) {
            job_end(c, j->error, mintid_strerror(j->error));
            return JOB_DONE;
        }
        j->done += (uint64_t)n;
        *budget -= (size_t)n;
    }
    job_end(c, MINTID_OK, NULL);
    return JOB_DONE;
}

void job_start(conn *c, const mintid_format *fmt, int form, const char *prefix, uint64_t count,
               void (*encode)(conn *c, const mintid_id *ids, size_t n),
               void (*finish)(conn *c, int status, const char *why)) {
    mint_job *j = &c->job;
    j->fmt = fmt;
    j->form = form;
    /* Not snprintf: this runs once per request, and formatting was a
     * measurable part of a one-ID request's time. */
    size_t plen = prefix != NULL ? strnlen(prefix, sizeof j->prefix - 1) : 0;
    if (plen > 0)
        memcpy(j->prefix, prefix, plen);
    j->prefix[plen] = '\0';
    j->count = count;
    j->step = job_step;
    j->encode = encode;
    j->finish = finish;
    j->active = true;
    j->parked = false;
    j->done = 0;
    j->deadline_ns = 0;
    j->wait_why[0] = '\0';
    j->waited = false;
    j->error = 0;
}
