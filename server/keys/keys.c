/* SPDX-License-Identifier: MIT */
/*
 * keys.c - idempotency keys on the event loop's side (keys.h).
 */
#include "keys/keys.h"

#include "net/auth.h"
#include "base/log.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Buckets of the table of keys in progress; a chain is as long as the keys committed at once that share one. */
#define INFLIGHT_BUCKETS 4096

struct keys {
    key_store *store;
    struct event *ev; /* the store's answers are waiting */
    key_request *inflight[INFLIGHT_BUCKETS];
};

static size_t bucket_of(const key_request *r) {
    uint64_t h = 1469598103934665603u; /* FNV-1a over scope, format and key */
    for (size_t i = 0; i < KEY_SCOPE_LEN; i++)
        h = (h ^ r->scope[i]) * 1099511628211u;
    h = (h ^ (uint64_t)r->fmt->id) * 1099511628211u;
    for (size_t i = 0; i < r->key_len; i++)
        h = (h ^ (unsigned char)r->key[i]) * 1099511628211u;
    return (size_t)(h % INFLIGHT_BUCKETS);
}

static bool same_key(const key_request *a, const key_request *b) {
    return a->fmt == b->fmt && a->key_len == b->key_len && memcmp(a->scope, b->scope, KEY_SCOPE_LEN) == 0 &&
           memcmp(a->key, b->key, a->key_len) == 0;
}

static void inflight_remove(struct keys *k, key_request *r) {
    for (key_request **p = &k->inflight[bucket_of(r)]; *p != NULL; p = &(*p)->chain)
        if (*p == r) {
            *p = r->chain;
            return;
        }
}

/*
 * c's scope: a SHA-256 of the digest of the secret it gave, under a label
 * of its own, so the store holds neither secret nor the digest auth-file
 * is checked against; without auth-file, one scope for all.
 */
static void scope_of(const conn *c, unsigned char out[KEY_SCOPE_LEN]) {
    memset(out, 0, KEY_SCOPE_LEN);
    if (c->srv->auth == NULL)
        return;
    static const char label[] = "mintidd idempotency key scope";
    unsigned char in[sizeof label + AUTH_DIGEST_LEN];
    memcpy(in, label, sizeof label);
    memcpy(in + sizeof label, c->secret_digest, AUTH_DIGEST_LEN);
    unsigned int n = 0;
    EVP_Digest(in, sizeof in, out, &n, EVP_sha256(), NULL);
}

static key_request *request_new(conn *c, const mintid_format *fmt, const char *key, size_t len, key_done_fn *done) {
    key_request *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    scope_of(c, r->scope);
    r->fmt = fmt;
    memcpy(r->key, key, len);
    r->key[len] = '\0';
    r->key_len = len;
    r->owner = c;
    c->job.key_done = done;
    return r;
}

static const job_rider key_rider;

/* r rides along with c's job: it keeps the job's IDs, and is let go if c goes first. */
static void attach(conn *c, key_request *r) {
    c->job.key = r;
    c->job.rider = r != NULL ? &key_rider : NULL;
}

/* c waits for the store: the connection layer serves nothing more of it until keys_resume(). */
static void hold(conn *c, key_request *r) {
    attach(c, r);
    c->job.held = true;
    c->job.active = true;
    key_store_submit(c->srv->keys->store, r);
}

static void count_outcome(server *srv, key_outcome o) {
    static const key_count counted[] = {
        [KEY_CREATED] = KEYC_CREATED, [KEY_REPLAYED] = KEYC_REPLAYED, [KEY_MISMATCH] = KEYC_MISMATCH,
        [KEY_FULL] = KEYC_FULL,       [KEY_FOUND] = KEYC_FOUND,       [KEY_ABSENT] = KEYC_ABSENT,
        [KEY_FAILED] = KEYC_FAILED};
    if ((size_t)o < sizeof counted / sizeof counted[0])
        srv->svc->c->keys[counted[o]]++;
}

/* The store's answers: each waiting connection gets its reply and is served on. */
static void on_answers(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what;
    server *srv = arg;
    struct keys *k = srv->keys;
    for (key_request *r = key_store_take(k->store), *next; r != NULL; r = next) {
        next = r->next;
        count_outcome(srv, r->outcome);
        if (!r->lookup)
            inflight_remove(k, r);
        conn *c = r->owner;
        if (c != NULL) {
            attach(c, NULL);
            c->job.held = false;
            c->job.active = false;
            c->job.key_done(c, r);
            key_request_free(r);
            srv->wait.served(c);
            continue;
        }
        key_request_free(r);
    }
}

int keys_open(server *srv, const key_store_ops *ops, const key_store_conf *conf, const key_store_prepared *prepared) {
    struct keys *k = calloc(1, sizeof *k);
    if (k == NULL) {
        log_msg(LOG_ERROR, "out of memory");
        return -1;
    }
    k->store = key_store_open(ops, conf, prepared);
    if (k->store == NULL) {
        free(k);
        return -1;
    }
    k->ev = event_new(srv->base, key_store_fd(k->store), EV_READ | EV_PERSIST, on_answers, srv);
    if (k->ev == NULL || event_add(k->ev, NULL) != 0) {
        log_msg(LOG_ERROR, "out of memory");
        key_store_close(k->store);
        if (k->ev != NULL)
            event_free(k->ev);
        free(k);
        return -1;
    }
    srv->keys = k;
    return 0;
}

void keys_close(server *srv) {
    struct keys *k = srv->keys;
    if (k == NULL)
        return;
    key_store_close(k->store);
    event_free(k->ev);
    free(k);
    srv->keys = NULL;
}

keys_start keys_begin(conn *c, const mintid_format *fmt, const char *key, size_t len, int form, const char *prefix,
                      uint64_t count, key_done_fn *done) {
    struct keys *k = c->srv->keys;
    if (k == NULL)
        return KEYS_NOSTORE;
    uint64_t most = key_store_max_count(k->store);
    if (most != 0 && count > most)
        return KEYS_TOO_MANY;
    key_request *r = request_new(c, fmt, key, len, done);
    if (r == NULL || (r->ids = malloc(count * sizeof *r->ids)) == NULL) {
        key_request_free(r);
        return KEYS_NOMEM;
    }
    size_t b = bucket_of(r);
    for (key_request *o = k->inflight[b]; o != NULL; o = o->chain)
        if (same_key(o, r)) {
            key_request_free(r);
            c->srv->svc->c->keys[KEYC_BUSY]++;
            return KEYS_BUSY;
        }
    r->form = form;
    snprintf(r->prefix, sizeof r->prefix, "%s", prefix);
    r->count = count;
    r->chain = k->inflight[b];
    k->inflight[b] = r;
    attach(c, r);
    return KEYS_STARTED;
}

uint64_t keys_max_count(const server *srv) { return srv->keys != NULL ? key_store_max_count(srv->keys->store) : 0; }

/* The rider's hook: n more of the job's IDs, kept for the key. */
static void keep(conn *c, const mintid_id *ids, size_t n) {
    key_request *r = c->job.key;
    memcpy(r->ids + c->job.done, ids, n * sizeof *ids);
}

void keys_commit(conn *c) { hold(c, c->job.key); }

void keys_replay_or_fail(conn *c, const char *why) {
    key_request *r = c->job.key;
    r->replay_only = true;
    snprintf(r->mint_why, sizeof r->mint_why, "%s", why != NULL ? why : "no ID could be minted");
    hold(c, r);
}

void keys_abandon(conn *c) {
    key_request *r = c->job.key;
    inflight_remove(c->srv->keys, r);
    key_request_free(r);
    attach(c, NULL);
}

void keys_lookup(conn *c, const mintid_format *fmt, const char *key, size_t len, key_done_fn *done) {
    key_request *r = c->srv->keys != NULL ? request_new(c, fmt, key, len, done) : NULL;
    if (r == NULL) {
        key_request fail = {.outcome = KEY_FAILED, .fmt = fmt};
        snprintf(fail.why, sizeof fail.why, "%s", c->srv->keys != NULL ? "out of memory" : "no key store");
        done(c, &fail);
        return;
    }
    r->lookup = true;
    c->job.fmt = fmt;
    hold(c, r);
}

/* The rider's hook: c is being freed while its key is minted or waits for the store; the store's answer will find no
 * one. */
static void forget(conn *c) {
    key_request *r = c->job.key;
    attach(c, NULL);
    if (r == NULL)
        return;
    if (c->job.held) {
        r->owner = NULL; /* the thread has it: its answer is dropped when it comes */
        return;
    }
    /* Still minting: not handed to the store yet. */
    inflight_remove(c->srv->keys, r);
    key_request_free(r);
}

static const job_rider key_rider = {keep, forget};

bool keys_finish(conn *c, int status, const char *why) {
    if (c->job.key == NULL)
        return false;
    if (status == MINTID_OK) {
        keys_commit(c);
        return true;
    }
    if (status != MINTID_EFORMAT) {
        keys_replay_or_fail(c, why);
        return true;
    }
    keys_abandon(c);
    return false;
}
