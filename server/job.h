/* SPDX-License-Identifier: MIT */
/*
 * job.h - a connection's mint job (job.c), started by a protocol's handler
 * and run by the connection layer and the wait queues.
 */
#ifndef MINTIDD_JOB_H
#define MINTIDD_JOB_H

#include "server.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Starts c->job: count IDs of fmt in form, framed by encode and answered
 * by finish. The connection layer mints it after the handler returns. No
 * other request of the connection is handled until it is done. A rider
 * set before (keys_begin) stays.
 */
void job_start(conn *c, const mintid_format *fmt, int form, const char *prefix, uint64_t count,
               void (*encode)(conn *c, const mintid_id *ids, size_t n),
               void (*finish)(conn *c, int status, const char *why));

/*
 * Mints what *budget allows of c's job, without waiting, and takes what it
 * minted off *budget. JOB_DONE: the reply is queued (an error if the job
 * waited past max-wait, saying why). JOB_PARKED: nothing more can be
 * minted yet; try again after *retry_ns. JOB_YIELD: the budget is spent,
 * or the replies queued for all clients are past their bound.
 */
job_state job_step(conn *c, size_t *budget, uint64_t *retry_ns);

#endif
