/* SPDX-License-Identifier: MIT */
/*
 * listen.h - the listeners and accept: a listener per protocol, plain or
 * TLS; max-connections (making room by closing the connection that has
 * waited longest without a whole request); accept backing off, and
 * shedding with a spare descriptor, when descriptors run out; and a
 * server's stop and close.
 */
#ifndef MINTIDD_LISTEN_H
#define MINTIDD_LISTEN_H

#include "server.h"

#include <stdbool.h>

/*
 * Binds HOST:PORT for `p`, plain or TLS, without listening yet. Returns 0,
 * or -1 after logging why.
 */
int server_listen(server *srv, proto p, const char *address, bool tls);
/*
 * The same for a socket already bound: a worker's, inherited from the
 * supervisor that bound it with server_listen(). The listener owns fd from
 * here (closed even on failure). Returns 0, or -1 after logging why.
 */
int server_listen_fd(server *srv, proto p, int fd, bool tls);
/* Listens on every address bound and starts accepting. Returns 0, or -1 after logging why. */
int server_accept(server *srv);
/* Stops accepting, closes idle connections and lets the rest drain. */
void server_stop(server *srv);
/* Closes every connection, and frees what the listeners made. */
void server_close_all(server *srv);

#endif
