/* SPDX-License-Identifier: MIT */
/*
 * tls.h - TLS for every protocol (OpenSSL): the context from tls-cert,
 * tls-key and tls-ca, and the I/O (conn_io) the connection layer uses for
 * a connection accepted on a TLS listener.
 */
#ifndef MINTIDD_TLS_H
#define MINTIDD_TLS_H

#include "server.h"

/*
 * tls_init() makes the context and sets srv->tls_attach; tls_reload()
 * makes a new one (SIGHUP) and keeps the old one if that fails. Each
 * returns 0, or -1 after logging why.
 */
int tls_init(server *srv);
int tls_reload(server *srv);
void tls_shutdown(server *srv);

#endif
