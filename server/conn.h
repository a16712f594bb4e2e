/* SPDX-License-Identifier: MIT */
/*
 * conn.h - the connection layer both protocols share: reading, writing,
 * limits and closing, and the mint jobs a protocol's handler starts.
 */
#ifndef MINTIDD_CONN_H
#define MINTIDD_CONN_H

#include "server.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A connection's request buffer when it is accepted, and the least the bound on memory drops a client for. */
#define CONN_IN_INITIAL 16384

/*
 * Takes an accepted socket: a connection speaking ops (the service counts
 * it under p), TLS or plain, from the client address `peer` (as
 * auth_bucket keeps it). A refused one is told ops->refusal and closed.
 * On failure the socket is closed.
 */
void conn_accept(server *srv, evutil_socket_t fd, proto p, const proto_ops *ops, bool tls, bool refused,
                 const unsigned char peer[16]);
/* Closes and frees c at once, whatever it owes. */
void conn_free(conn *c);

/* Bytes of replies queued on c, and all it holds in memory that the bound on all clients counts. */
size_t conn_queued(const conn *c);
size_t conn_held(const conn *c);

/*
 * Starts c->job: count IDs of fmt in form, framed by encode and answered
 * by finish. The connection layer mints it after the handler returns. No
 * other request of the connection is handled until it is done.
 */
void conn_start_mint(conn *c, const mintid_format *fmt, int form, const char *prefix, uint64_t count,
                     void (*encode)(conn *c, const mintid_id *ids, size_t n),
                     void (*finish)(conn *c, int status, const char *why));

/*
 * Mints what *budget allows of c's job, without waiting, and takes what it
 * minted off *budget. JOB_DONE: the reply is queued (an error if the job
 * waited past max-wait, saying why). JOB_PARKED: nothing more can be
 * minted yet; try again after *retry_ns. JOB_YIELD: the budget is spent,
 * or the replies queued for all clients are past their bound.
 */
job_state conn_job_step(conn *c, size_t *budget, uint64_t *retry_ns);

/* How the wait queues (blocked.c) run a job's slice and serve its connection. */
extern const wait_hooks conn_wait_hooks;

#endif
