/* SPDX-License-Identifier: MIT */
/*
 * keystore.h - the store of idempotency keys: an SQLite file in the state
 * directory (WAL, synchronous=FULL), written by one thread off the event
 * loop. Requests are handed to the thread, which takes all that wait and
 * answers them in one transaction (group commit), then wakes the loop
 * through an eventfd. Several processes may share the file: the decision
 * "this key has these IDs" is the INSERT that fails on a key already
 * there, inside a write transaction, and waiting for another process's
 * lock is the thread's (busy timeout), never the loop's.
 */
#ifndef MINTIDD_KEYSTORE_H
#define MINTIDD_KEYSTORE_H

#include "keys/keyparse.h"
#include "mintid.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bytes of a key's scope: a SHA-256 of the secret's identity (zero without auth-file). */
#define KEY_SCOPE_LEN 32

typedef enum key_outcome {
    KEY_CREATED,  /* this request's IDs are the key's, on disk */
    KEY_REPLAYED, /* the key already had IDs, for the same request: those */
    KEY_MISMATCH, /* the key already had IDs, for another request */
    KEY_FULL,     /* the store holds key-max keys: no new one */
    KEY_FOUND,    /* a lookup: the key's IDs */
    KEY_ABSENT,   /* a lookup: no such key (or it expired) */
    KEY_FAILED    /* the store could not answer (why says so); nothing was promised */
} key_outcome;

/* What a request asks of the store, and (filled by the thread) its answer. */
typedef struct key_request {
    struct key_request *next; /* in the store's queues */
    bool lookup;              /* read only; else insert if absent */
    bool replay_only;         /* the mint failed: the key's IDs if it has them, else KEY_FAILED with mint_why */
    char mint_why[200];
    unsigned char scope[KEY_SCOPE_LEN];
    const mintid_format *fmt;
    char key[KEY_MAX + 1];
    size_t key_len;
    /* What was asked (insert): the fingerprint a retry must match, and the IDs. */
    int form;
    char prefix[MINTID_PREFIX_MAX + 1];
    uint64_t count;
    mintid_id *ids; /* count of them (malloc) */
    /* The answer: the key's IDs and the request they were given for. */
    key_outcome outcome;
    int got_form;
    char got_prefix[MINTID_PREFIX_MAX + 1];
    uint64_t got_count;
    mintid_id *got_ids; /* got_count of them (malloc); ids itself after KEY_CREATED */
    int64_t created_ms;
    char why[200];
    void *owner;               /* the caller's: the connection waiting for the answer */
    struct key_request *chain; /* the caller's: keys.c's table of keys in progress */
} key_request;

/* Whether the IDs r got were given for the request r asks (count, form, prefix): a replay, else a mismatch. */
bool key_same_request(const key_request *r);

typedef struct keystore keystore;

/*
 * A store elsewhere that decides keys in place of the file (etcd, for a
 * cluster: keys_etcd.c), called on the store's thread.
 */
typedef struct keystore_remote {
    void *ctx;
    /* Answers every request of the batch (a list through next), as the file would; 0 requests left unanswered. */
    void (*answer)(void *ctx, key_request *batch, int64_t now_ms);
    void (*close)(void *ctx);
    uint64_t max_count; /* most IDs one key may be given (0: no bound of its own) */
} keystore_remote;

/*
 * Makes the store's file at path if there is none (its owner's alone, as
 * an older one and its -wal and -shm files are made too), checks it (PRAGMA
 * quick_check), puts it in WAL mode, makes its tables and sets the clock
 * keys age by for this boot; once, before any process opens it. A store
 * that keys.id or a -wal or -shm beside it shows was there, but is missing
 * or empty, is refused, as is another store in its place. 0, or -1 after
 * logging why, naming the file.
 */
int keystore_prepare(const char *path);
/*
 * The file keystore_prepare left, by its identity, which keystore_open
 * compares the file it finds with. A worker is a new program that did not
 * prepare the store: the supervisor hands it keystore_prepared(), and the
 * worker gives it to keystore_adopt() before it opens the store.
 */
typedef struct keystore_file {
    bool known; /* prepared */
    dev_t dev;
    ino_t ino;
} keystore_file;
keystore_file keystore_prepared(void);
void keystore_adopt(keystore_file f);
/*
 * Opens the store at path, as keystore_prepare left it (a file missing
 * since, or another in its place, is refused), takes the clock keys age
 * by from it, the same in every process, and starts its thread.
 * ttl_s: seconds a key lives (0: forever); max: keys it may hold. With
 * remote, keys are decided there and the file is not used; the store owns
 * remote from here on, and closes it. Returns NULL after logging why,
 * naming the file.
 */
keystore *keystore_open(const char *path, uint64_t ttl_s, uint64_t max, keystore_remote *remote);
/* Stops the thread after it has answered what it was given, and closes the file. */
void keystore_close(keystore *ks);
/* The descriptor that becomes readable when answers wait (keystore_take). */
int keystore_fd(const keystore *ks);
/* The most IDs one key may be given (0: as many as a request may ask for). */
uint64_t keystore_max_count(const keystore *ks);
/* Hands r to the thread. */
void keystore_submit(keystore *ks, key_request *r);
/* The answered requests, oldest first, as a list through next; NULL if none. */
key_request *keystore_take(keystore *ks);
/* Frees r and what it holds. */
void key_request_free(key_request *r);

/* r was given its own IDs (the key is new): its answer is what it asked, created at now (Unix ms). */
void key_request_created(key_request *r, int64_t now);

#endif
