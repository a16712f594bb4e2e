/* SPDX-License-Identifier: MIT */
/*
 * auth.c - auth-file's secrets, held as SHA-256 digests, and the check of
 * a secret a client offers: in constant time against every secret, and
 * limited per connection (a pause that doubles), per client address and
 * for all clients together (GCRA budgets), so guessing gains nothing.
 */
#include "net/auth.h"

#include "base/log.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Lines a client can trigger are limited where they are logged (log_limited). */
static log_limit auth_log;

static bool digest(const char *s, size_t n, unsigned char out[AUTH_DIGEST_LEN]) {
    unsigned int len = 0;
    return EVP_Digest(s, n, out, &len, EVP_sha256(), NULL) == 1 && len == AUTH_DIGEST_LEN;
}

int auth_load(auth *a, const char *path) {
    memset(a, 0, sizeof a[0]);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        log_msg(LOG_ERROR, "auth-file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (st.st_mode & 0077) != 0)
        log_msg(LOG_WARN, "auth-file %s can be read by other users; chmod 600 it", path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int lineno = 0, rc = 0;
    while (rc == 0 && (got = getline(&line, &cap, f)) >= 0) {
        size_t n = (size_t)got;
        lineno++;
        if (n > 0 && line[n - 1] == '\n')
            n--;
        if (n > 0 && line[n - 1] == '\r')
            n--;
        /* The reasons name the line, never its bytes. */
        if (memchr(line, '\0', n) != NULL) {
            log_msg(LOG_ERROR, "auth-file %s: line %d has a NUL byte", path, lineno);
            rc = -1;
        } else if (n > AUTH_SECRET_MAX) {
            log_msg(LOG_ERROR, "auth-file %s: line %d is longer than %d bytes", path, lineno, AUTH_SECRET_MAX);
            rc = -1;
        } else if (n > 0) {
            unsigned char(*grown)[AUTH_DIGEST_LEN] = realloc(a->digest, (a->n + 1) * sizeof a->digest[0]);
            if (grown != NULL)
                a->digest = grown;
            if (grown == NULL || !digest(line, n, a->digest[a->n])) {
                log_msg(LOG_ERROR, "auth-file %s: out of memory", path);
                rc = -1;
            } else {
                a->n++;
            }
        }
        OPENSSL_cleanse(line, cap);
    }
    if (rc == 0 && ferror(f)) {
        log_msg(LOG_ERROR, "auth-file %s: %s", path, strerror(errno));
        rc = -1;
    }
    free(line);
    fclose(f);
    if (rc == 0 && a->n == 0) {
        log_msg(LOG_ERROR, "auth-file %s holds no secret (one per line)", path);
        rc = -1;
    }
    if (rc != 0)
        auth_free(a);
    return rc;
}

void auth_free(auth *a) {
    free(a->digest);
    a->digest = NULL;
    a->n = 0;
}

/* One second: the burst a limit of N wrong secrets a second allows is N. */
#define AUTH_WINDOW_NS 1000000000u

/*
 * Whether a limit of per_second wrong secrets, spent up to tat_ns, allows
 * one more now; if not, *retry_ms says when it will.
 */
static bool auth_budget_left(uint64_t tat_ns, uint64_t now, uint64_t per_second, uint64_t *retry_ms) {
    uint64_t interval = AUTH_WINDOW_NS / per_second;
    if (tat_ns + interval <= now + AUTH_WINDOW_NS)
        return true;
    *retry_ms = (tat_ns + interval - now - AUTH_WINDOW_NS + 999999u) / 1000000u;
    return false;
}

static void auth_spend(uint64_t *tat_ns, uint64_t now, uint64_t per_second) {
    *tat_ns = (*tat_ns > now ? *tat_ns : now) + AUTH_WINDOW_NS / per_second;
}

/*
 * The bucket of c's address: the one it has, or with create, a slot for
 * it (a free one, or the one with least spent, near its hash). NULL when
 * it has none (nothing spent), or memory runs out.
 */
static auth_bucket *auth_bucket_of(conn *c, uint64_t now, bool create) {
    server *srv = c->srv;
    if (srv->auth_buckets == NULL) {
        if (!create || (srv->auth_buckets = calloc(AUTH_BUCKETS, sizeof *srv->auth_buckets)) == NULL)
            return NULL;
    }
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < sizeof c->peer; i++)
        h = (h ^ c->peer[i]) * 16777619u;
    auth_bucket *best = NULL;
    for (uint32_t i = 0; i < 8; i++) {
        auth_bucket *b = &srv->auth_buckets[(h + i) % AUTH_BUCKETS];
        if (memcmp(b->addr, c->peer, sizeof b->addr) == 0 && b->tat_ns > now)
            return b;
        if (best == NULL || b->tat_ns < best->tat_ns)
            best = b;
    }
    if (!create)
        return NULL;
    memcpy(best->addr, c->peer, sizeof best->addr);
    best->tat_ns = 0;
    return best;
}

auth_result auth_attempt(conn *c, const char *secret, size_t len, uint64_t *retry_ms, const char **where) {
    const auth *a = c->srv->auth;
    service *svc = c->srv->svc;
    const config *cfg = c->srv->cfg;
    uint64_t now_ns = monotonic_ns(), now = now_ns / 1000000u;
    *retry_ms = 0;
    if (c->auth_retry_ms > now) {
        svc->c->auth_failures[c->proto]++;
        *retry_ms = c->auth_retry_ms - now;
        *where = "on this connection";
        return AUTH_TOO_SOON;
    }
    /* Limits across connections: one client opening a new connection for
     * every few guesses, or many clients together, are refused unchecked
     * past them, right secret or not, so guessing gains nothing. */
    auth_bucket *b = auth_bucket_of(c, now_ns, false);
    if (b != NULL && !auth_budget_left(b->tat_ns, now_ns, cfg->auth_failures_per_address, retry_ms)) {
        svc->c->auth_failures[c->proto]++;
        svc->c->auth_limited_address++;
        *where = "from this address";
        return AUTH_TOO_SOON;
    }
    if (!auth_budget_left(c->srv->auth_total_tat_ns, now_ns, cfg->auth_failures_total, retry_ms)) {
        svc->c->auth_failures[c->proto]++;
        svc->c->auth_limited_total++;
        *where = "on this server";
        return AUTH_TOO_SOON;
    }
    unsigned char d[AUTH_DIGEST_LEN];
    int match = 0;
    if (a != NULL && digest(secret, len, d)) {
        /* Every secret is compared, whichever matches, so the time says nothing of which. */
        for (size_t i = 0; i < a->n; i++)
            match |= CRYPTO_memcmp(d, a->digest[i], AUTH_DIGEST_LEN) == 0;
    }
    if (match) {
        c->auth_failures = 0;
        memcpy(c->secret_digest, d, AUTH_DIGEST_LEN);
        return AUTH_OK;
    }
    svc->c->auth_failures[c->proto]++;
    c->auth_failures++;
    if ((b = auth_bucket_of(c, now_ns, true)) != NULL)
        auth_spend(&b->tat_ns, now_ns, cfg->auth_failures_per_address);
    auth_spend(&c->srv->auth_total_tat_ns, now_ns, cfg->auth_failures_total);
    if (c->auth_failures >= AUTH_MAX_FAILURES) {
        log_limited(&auth_log, LOG_WARN, "%s client closed after %d wrong secrets", c->ops->label, AUTH_MAX_FAILURES);
        c->closing = true;
    } else if (c->auth_failures >= AUTH_FREE_FAILURES) {
        unsigned shift = c->auth_failures - AUTH_FREE_FAILURES;
        uint64_t pause = shift >= 5 ? AUTH_PAUSE_MAX_MS : (uint64_t)AUTH_PAUSE_MS << shift;
        c->auth_retry_ms = now + (pause < AUTH_PAUSE_MAX_MS ? pause : AUTH_PAUSE_MAX_MS);
    }
    return AUTH_WRONG;
}

void auth_forget(server *srv) {
    free(srv->auth_buckets);
    srv->auth_buckets = NULL;
}
