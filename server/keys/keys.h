/* SPDX-License-Identifier: MIT */
/*
 * keys.h - IDs assigned to idempotency keys, exactly once: the first
 * request with a key mints as any other, and its IDs are stored under the
 * key (store.h) before it is answered; a retry gets the same IDs back.
 * A key is scoped to the secret the client gave (auth-file) and to the
 * format. This is the event loop's side: the keys being committed in this
 * process (a retry meanwhile is told the first is in progress), and the
 * connection, which waits, without blocking the loop, until the store has
 * answered.
 *
 * A protocol starts a keyed mint with keys_begin() before job_start(),
 * and hands the minted IDs over with keys_commit() from its finish(); the
 * store's answer comes back through the protocol's key_done_fn, after
 * which the connection's next request is served.
 */
#ifndef MINTIDD_KEYS_H
#define MINTIDD_KEYS_H

#include "keys/store.h"
#include "server.h"

/* The key store's answer for c, for the protocol to reply with (r->outcome says which reply). */
typedef void key_done_fn(conn *c, const key_request *r);

/*
 * Opens srv's key store, ops (sqlite_store.h, or for a cluster
 * etcd_store.h), with conf, as key_store_prepare left it (prepared), and
 * watches its answers. Returns 0, or -1 after logging why.
 */
int keys_open(server *srv, const key_store_ops *ops, const key_store_conf *conf, const key_store_prepared *prepared);
/* Closes it (every connection is gone). */
void keys_close(server *srv);

typedef enum keys_start {
    KEYS_STARTED, /* c's next job's IDs are kept for the key */
    KEYS_BUSY,    /* the key is being committed for another request of this process */
    KEYS_NOMEM,
    KEYS_TOO_MANY, /* more IDs than one key may be given (keys_max_count) */
    KEYS_NOSTORE   /* the server has no key store (keys_open was not called) */
} keys_start;

/*
 * Starts a keyed mint on c: the key key[0..len) (checked already) for
 * count IDs of fmt in form with prefix, which the caller then starts
 * (job_start). KEYS_BUSY, KEYS_NOMEM and KEYS_TOO_MANY are for
 * the caller to answer.
 */
keys_start keys_begin(conn *c, const mintid_format *fmt, const char *key, size_t len, int form, const char *prefix,
                      uint64_t count, key_done_fn *done);
/* The most IDs one key may be given; 0: no bound but max-count. */
uint64_t keys_max_count(const server *srv);
/* The job minted every ID: hands them to the store, and c waits for its answer. */
void keys_commit(conn *c);
/*
 * The job failed with why: if the key was given IDs before (this is a
 * retry), c is answered with them (or a mismatch), as after keys_commit;
 * else the store's answer is KEY_FAILED with why. Nothing is stored.
 */
void keys_replay_or_fail(conn *c, const char *why);
/* The job failed: the key is let go, nothing stored. */
void keys_abandon(conn *c);
/*
 * Asks the store what key[0..len) of fmt was given, in c's scope; c waits
 * for the answer (without a store, done is called at once with KEY_FAILED).
 */
void keys_lookup(conn *c, const mintid_format *fmt, const char *key, size_t len, key_done_fn *done);

/*
 * A mint job's end, for a keyed job: true when the key store answers it
 * (minted: the IDs are committed under the key; failed: a retry is
 * answered with the IDs the key was given, if any). False when the job
 * has no key, or its format is unknown: the caller answers as for any mint.
 */
bool keys_finish(conn *c, int status, const char *why);

#endif
