/* SPDX-License-Identifier: MIT */
/*
 * store.h - the stores of idempotency keys, peers behind one table of
 * operations (key_store_ops): the SQLite file of one host
 * (sqlite_store.h) and the etcd of a cluster (etcd_store.h). What every
 * store shares is here, once: a request and its answer, the store's
 * clock, and the thread that answers requests off the event loop. The
 * thread takes all the requests that wait and hands them to the store as
 * one batch (group commit: one transaction, one commit for all of them),
 * then gives the answers to the loop and wakes it through an eventfd;
 * between batches it has the store delete expired keys, a few at a time.
 * Waiting for the store (another process's lock, etcd's quorum) is the
 * thread's, never the loop's.
 */
#ifndef MINTIDD_KEYS_STORE_H
#define MINTIDD_KEYS_STORE_H

#include "keys/keyparse.h"
#include "mintid.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

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

/* What a request asks of the store, and (filled by the store) its answer. */
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
/* r was given its own IDs (the key is new): its answer is what it asked, created at now (the store's ms). */
void key_request_created(key_request *r, int64_t now);
/* Frees r and what it holds. */
void key_request_free(key_request *r);

/* Milliseconds on the clock id (CLOCK_REALTIME, CLOCK_BOOTTIME). */
int64_t key_clock_ms(clockid_t id);
/*
 * A store's time, which keys are created at and expire by: base_ms when
 * CLOCK_BOOTTIME read boot_ms, counted on CLOCK_BOOTTIME from there, so
 * that a suspend counts and a step of the wall clock does not.
 */
typedef struct key_clock {
    int64_t base_ms, boot_ms;
} key_clock;
/* The store's time now (ms). */
int64_t key_clock_now(const key_clock *c);

struct lease_config;

/* The settings a store is prepared and opened with. */
typedef struct key_store_conf {
    const char *state_dir;         /* the state directory (the SQLite store is its keys.sqlite) */
    const struct lease_config *lc; /* the node lease's etcd (etcd's store); NULL without node-lease */
    uint64_t ttl_s;                /* key-ttl: seconds a key lives (0: forever) */
    uint64_t max;                  /* key-max: the most keys the store may hold */
} key_store_conf;

/*
 * What a store's preparation left for every process that opens it: the
 * SQLite store's file by its identity, which an open compares the file it
 * finds with. Plain values, so that the supervisor can hand it to a worker
 * (a new program) in the shared region. All zero: nothing prepared.
 */
typedef struct key_store_prepared {
    bool known; /* prepared */
    dev_t dev;
    ino_t ino;
} key_store_prepared;

/*
 * A store: its operations, each given the state open returned. open and
 * close run on the caller's thread, the others on the store's thread
 * (key_store_open), one at a time.
 */
typedef struct key_store_ops {
    /*
     * Makes and checks the store, once, before any process opens it (so
     * that the workers' opens take no lock that could refuse one of them),
     * and fills *out for them. 0, or -1 after logging why. NULL: nothing
     * to prepare.
     */
    int (*prepare)(const key_store_conf *conf, key_store_prepared *out);
    /*
     * Opens the store as prepare left it (prepared: what it left; a store
     * missing since, or another in its place, is refused). Its state, or
     * NULL after logging why.
     */
    void *(*open)(const key_store_conf *conf, const key_store_prepared *prepared);
    /*
     * Answers every request of batch (a list through next), inside one
     * transaction where the store has them: each gets its outcome, with
     * why when it is KEY_FAILED (then nothing was promised).
     */
    void (*answer)(void *st, key_request *batch);
    /*
     * With key-ttl, between batches: deletes some expired keys, a batch
     * small enough that no commit waits long behind it; true if there may
     * be more. NULL: the store lets keys go by itself.
     */
    bool (*expire)(void *st);
    /* The thread's last words, after the last batch (NULL: none). */
    void (*stop)(void *st);
    /* Closes the store (its thread is gone, or never started). */
    void (*close)(void *st);
    uint64_t max_count; /* the most IDs one key may be given (0: no bound of its own) */
} key_store_ops;

/* Prepares the store of ops (its prepare, if it has one; else *out is zero). 0, or -1 after logging why. */
int key_store_prepare(const key_store_ops *ops, const key_store_conf *conf, key_store_prepared *out);

typedef struct key_store key_store;
/*
 * Opens the store of ops with conf, as prepared left it, and starts its
 * thread. NULL after logging why.
 */
key_store *key_store_open(const key_store_ops *ops, const key_store_conf *conf, const key_store_prepared *prepared);
/* Stops the thread after it has answered what it was given, and closes the store. */
void key_store_close(key_store *s);
/* The descriptor that becomes readable when answers wait (key_store_take). */
int key_store_fd(const key_store *s);
/* The most IDs one key may be given (0: as many as a request may ask for). */
uint64_t key_store_max_count(const key_store *s);
/* Hands r to the thread. */
void key_store_submit(key_store *s, key_request *r);
/* The answered requests, oldest first, as a list through next; NULL if none. */
key_request *key_store_take(key_store *s);

#endif
