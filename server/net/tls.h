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
 * tls_init() makes the context and sets srv->tls_attach, and warns about a
 * certificate expired or not yet valid; tls_reload() makes a new one
 * (SIGHUP) and keeps the old one if that fails or if the new certificate
 * is expired or not yet valid. Each returns 0, or -1 after logging why.
 */
int tls_init(server *srv);
int tls_reload(server *srv);
void tls_shutdown(server *srv);

/*
 * When the certificate in use stops being valid: the notAfter of
 * tls-cert's first certificate, Unix seconds; 0 without TLS. This
 * process's own: each worker loads and reloads its certificates itself.
 */
int64_t tls_cert_expiry(const server *srv);

#endif
