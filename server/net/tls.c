/* SPDX-License-Identifier: MIT */
/*
 * tls.c - TLS for both protocols (OpenSSL): the server's context, made from
 * tls-cert, tls-key and tls-ca at start and again on SIGHUP, and the
 * connection I/O (conn_io) that conn.c uses for a connection accepted on a
 * TLS listener. Handshakes advance only when the socket is ready, like any
 * other read or write: none blocks the loop, and conn.c drops one that has
 * not finished within tls-handshake-timeout.
 *
 * Kept out of conn.c so that the connection layer links without libssl.
 */
#include "net/tls.h"

#include "base/log.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <string.h>

/* The newest OpenSSL error, for a log line. */
static const char *ssl_error(void) {
    static char buf[256];
    unsigned long e = ERR_peek_last_error();
    if (e == 0)
        return "unknown error";
    ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return buf;
}

static SSL_CTX *make_ctx(const config *cfg) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (ctx == NULL) {
        log_msg(LOG_ERROR, "TLS: %s", ssl_error());
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
    /* A client that closes without close_notify has simply closed: most do. */
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
#endif
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (SSL_CTX_use_certificate_chain_file(ctx, cfg->tls_cert) != 1) {
        log_msg(LOG_ERROR, "tls-cert %s: %s", cfg->tls_cert, ssl_error());
        goto fail;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, cfg->tls_key, SSL_FILETYPE_PEM) != 1) {
        log_msg(LOG_ERROR, "tls-key %s: %s", cfg->tls_key, ssl_error());
        goto fail;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        log_msg(LOG_ERROR, "tls-key %s does not match tls-cert %s", cfg->tls_key, cfg->tls_cert);
        goto fail;
    }
    if (cfg->tls_ca[0] != '\0') {
        /* Client certificates are then required, and must chain to tls-ca. */
        if (SSL_CTX_load_verify_locations(ctx, cfg->tls_ca, NULL) != 1) {
            log_msg(LOG_ERROR, "tls-ca %s: %s", cfg->tls_ca, ssl_error());
            goto fail;
        }
        STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(cfg->tls_ca);
        if (names != NULL)
            SSL_CTX_set_client_CA_list(ctx, names);
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    }
    return ctx;
fail:
    SSL_CTX_free(ctx);
    return NULL;
}

static void tls_log_failure(conn *c, const char *what, int err) {
    unsigned long e = ERR_peek_last_error();
    char buf[256] = "";
    if (e != 0)
        ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    static log_limit lim; /* clients can make handshakes fail at will */
    log_limited(&lim, LOG_DEBUG, "%s client dropped: TLS %s failed (%d%s%s)", c->ops->label, what, err,
                buf[0] ? ": " : "", buf);
}

/* The socket is waited on for what OpenSSL asked for. */
static void want(conn *c, int err) {
    if (err == SSL_ERROR_WANT_WRITE && !event_pending(c->wev, EV_WRITE, NULL))
        event_add(c->wev, NULL);
}

static int tls_handshake(conn *c) {
    SSL *ssl = c->tls;
    int r = SSL_do_handshake(ssl);
    if (r == 1)
        return 1;
    int err = SSL_get_error(ssl, r);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        want(c, err);
        return 0;
    }
    c->srv->svc->c->tls_handshake_failures++;
    tls_log_failure(c, "handshake", err);
    return -1;
}

static ssize_t tls_read(conn *c, char *buf, size_t n) {
    SSL *ssl = c->tls;
    int r = SSL_read(ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
    if (r > 0)
        return r;
    int err = SSL_get_error(ssl, r);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        want(c, err);
        errno = EAGAIN;
        return -1;
    }
    if (err == SSL_ERROR_ZERO_RETURN)
        return 0; /* close_notify */
    tls_log_failure(c, "read", err);
    errno = EIO;
    return -1;
}

static int tls_write(conn *c, struct evbuffer *out) {
    SSL *ssl = c->tls;
    size_t len = evbuffer_get_length(out), chunk = len < 16384 ? len : 16384;
    const unsigned char *p = evbuffer_pullup(out, (ssize_t)chunk);
    int r = SSL_write(ssl, p, (int)chunk);
    if (r > 0) {
        evbuffer_drain(out, (size_t)r);
        return r;
    }
    int err = SSL_get_error(ssl, r);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
        errno = EAGAIN;
        return -1;
    }
    tls_log_failure(c, "write", err);
    errno = EPIPE;
    return -1;
}

static bool tls_pending(const conn *c) { return SSL_pending(c->tls) > 0; }

static void tls_close(conn *c) {
    /* close_notify, once, without waiting for the peer's. */
    if (SSL_is_init_finished(c->tls))
        SSL_shutdown(c->tls);
    ERR_clear_error();
}

static void tls_free(conn *c) {
    SSL_free(c->tls);
    c->tls = NULL;
}

static const conn_io tls_io = {tls_handshake, tls_read, tls_write, tls_pending, tls_close, tls_free};

static int tls_attach(conn *c) {
    SSL *ssl = SSL_new(c->srv->tls_ctx);
    if (ssl == NULL || SSL_set_fd(ssl, c->fd) != 1) {
        log_msg(LOG_ERROR, "TLS: %s", ssl_error());
        SSL_free(ssl);
        return -1;
    }
    SSL_set_accept_state(ssl);
    c->tls = ssl;
    c->io = &tls_io;
    return 0;
}

int tls_init(server *srv) {
    SSL_CTX *ctx = make_ctx(srv->cfg);
    if (ctx == NULL)
        return -1;
    srv->tls_ctx = ctx;
    srv->tls_attach = tls_attach;
    return 0;
}

int tls_reload(server *srv) {
    SSL_CTX *ctx = make_ctx(srv->cfg);
    if (ctx == NULL) {
        log_msg(LOG_ERROR, "TLS: certificates not reloaded; the previous ones stay in use");
        return -1;
    }
    /* Connections keep a reference to the context they started with. */
    SSL_CTX_free(srv->tls_ctx);
    srv->tls_ctx = ctx;
    log_msg(LOG_INFO, "TLS: certificates reloaded from %s and %s", srv->cfg->tls_cert, srv->cfg->tls_key);
    return 0;
}

void tls_shutdown(server *srv) {
    SSL_CTX_free(srv->tls_ctx);
    srv->tls_ctx = NULL;
}
