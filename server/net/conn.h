/* SPDX-License-Identifier: MIT */
/*
 * conn.h - the connection layer both protocols share: reading, writing,
 * limits and closing; it runs the mint jobs (job.h) a protocol's handler
 * starts.
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

/* Drops the connections idle past idle-timeout (called about once a second: listen.c's sweep). */
void conn_sweep_idle(server *srv);

/* How the wait queues (blocked.c) run a job's slice and serve its connection. */
extern const wait_hooks conn_wait_hooks;

#endif
