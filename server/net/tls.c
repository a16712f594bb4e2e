/* SPDX-License-Identifier: MIT */
/*
 * tls.c - TLS for both protocols (OpenSSL): the server's context, made from
 * tls-cert, tls-key and tls-ca at start and again on SIGHUP, and the
 * connection I/O (conn_io) that conn.c uses for a connection accepted on a
 * TLS listener. Handshakes advance only when the socket is ready, like any
 * other read or write: none blocks the loop, and conn.c drops one that has
 * not finished within tls-handshake-timeout.
 *
 * The certificate's dates are checked at every load: one expired or not
 * yet valid is warned about at start, where there is nothing else to serve,
 * and refused by a reload, which keeps the one in use (a renewal that went
 * wrong must not take TLS down).
 *
 * Kept out of conn.c so that the connection layer links without libssl.
 */
#include "net/tls.h"

#include "base/log.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <string.h>
#include <time.h>

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

/* An ASN1_TIME as Unix seconds, and as text for a person. -1 if it does not parse. */
static int cert_time(const ASN1_TIME *t, int64_t *unix_s, char *text, size_t size) {
    struct tm tm;
    if (ASN1_TIME_to_tm(t, &tm) != 1)
        return -1;
    *unix_s = (int64_t)timegm(&tm);
    strftime(text, size, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return 0;
}

/* A certificate's subject, one line (RFC 2253: "CN=ids.example.com"), for a person. */
static void cert_subject(X509 *x, char *out, size_t size) {
    out[0] = '\0';
    BIO *b = BIO_new(BIO_s_mem());
    if (b == NULL)
        return;
    if (X509_NAME_print_ex(b, X509_get_subject_name(x), 0, XN_FLAG_RFC2253) >= 0) {
        int n = BIO_read(b, out, (int)size - 1);
        out[n > 0 ? n : 0] = '\0';
    }
    BIO_free(b);
}

/*
 * The dates of the certificate ctx serves (tls-cert's first) against the
 * clock: *until is its end, Unix seconds, and until_text says it for a
 * person. Returns 0 when it is valid now; -1 with a sentence in why when it
 * is not. The rest of the chain is not looked at: chains that clients
 * accept may carry an expired certificate beside the path they build (a
 * cross-signature kept for old clients).
 */
static int check_dates(const SSL_CTX *ctx, int64_t *until, char *until_text, size_t until_size, char *why,
                       size_t why_size) {
    X509 *x = SSL_CTX_get0_certificate(ctx);
    const ASN1_TIME *not_before = x != NULL ? X509_get0_notBefore(x) : NULL;
    const ASN1_TIME *not_after = x != NULL ? X509_get0_notAfter(x) : NULL;
    int64_t start;
    char start_text[40];
    *until = 0;
    until_text[0] = why[0] = '\0';
    if (x == NULL || cert_time(not_after, until, until_text, until_size) != 0 ||
        cert_time(not_before, &start, start_text, sizeof start_text) != 0)
        return 0; /* OpenSSL loaded it: it is there, and its dates parse */
    /* X509_cmp_current_time(): -1 before now, 1 after, 0 for an error. */
    bool expired = X509_cmp_current_time(not_after) < 0;
    bool early = X509_cmp_current_time(not_before) > 0;
    if (!expired && !early)
        return 0;
    char subject[256];
    cert_subject(x, subject, sizeof subject);
    snprintf(why, why_size, "certificate '%s' %s %s", subject, expired ? "expired at" : "is not valid until",
             expired ? until_text : start_text);
    return -1;
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
    /* Served all the same: the plain listeners and the other protocols
     * work, and a renewed certificate is taken by SIGHUP. */
    int64_t until;
    char until_text[40], why[512];
    if (check_dates(ctx, &until, until_text, sizeof until_text, why, sizeof why) != 0)
        log_msg(LOG_WARN, "tls-cert %s: %s; TLS clients refuse it: replace it, then send SIGHUP", srv->cfg->tls_cert,
                why);
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
    int64_t until;
    char until_text[40], why[512];
    if (check_dates(ctx, &until, until_text, sizeof until_text, why, sizeof why) != 0) {
        SSL_CTX_free(ctx);
        log_msg(LOG_ERROR, "tls-cert %s: %s, and TLS clients would refuse it", srv->cfg->tls_cert, why);
        log_msg(LOG_ERROR, "TLS: certificates not reloaded; the previous ones stay in use");
        return -1;
    }
    /* Connections keep a reference to the context they started with. */
    SSL_CTX_free(srv->tls_ctx);
    srv->tls_ctx = ctx;
    log_msg(LOG_INFO, "TLS: certificates reloaded from %s and %s, valid until %s", srv->cfg->tls_cert,
            srv->cfg->tls_key, until_text);
    return 0;
}

int64_t tls_cert_expiry(const server *srv) {
    if (srv->tls_ctx == NULL)
        return 0;
    int64_t until;
    char until_text[40], why[512];
    check_dates(srv->tls_ctx, &until, until_text, sizeof until_text, why, sizeof why);
    return until;
}

void tls_shutdown(server *srv) {
    SSL_CTX_free(srv->tls_ctx);
    srv->tls_ctx = NULL;
}
