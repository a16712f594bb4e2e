/* SPDX-License-Identifier: MIT */
/*
 * store_process.c - the store of a process generator (mintid_gen_new()):
 * its state in the process's own memory, under a mutex of its own. It is
 * the process's alone, so a generator inherited by fork() must not go on
 * in the child (the generator refuses: survives_fork is false), and a wait
 * for the clock keeps the mutex: there is nobody else to let in but the
 * generator's own callers, who would find the same unit used up.
 */
#include "store.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct process_store {
    mintid__store base;
    pthread_mutex_t lock;
    uint64_t fork_generation; /* the process's at open: in a child the mutex may be a copy held by a parent's thread */
    mintid__core core;
    uint64_t last_value;
} process_store;

static const int64_t no_mark = INT64_MAX;

static int process_lock(mintid__store *s) {
    pthread_mutex_lock(&((process_store *)s)->lock);
    return MINTID_OK;
}

static void process_where(mintid__store *s, mintid__view *v) {
    process_store *p = (process_store *)s;
    v->core = &p->core;
    v->last_value = &p->last_value;
    v->mark = &no_mark;
}

static void process_unlock(mintid__store *s) { pthread_mutex_unlock(&((process_store *)s)->lock); }

static void process_close(mintid__store *s) {
    process_store *p = (process_store *)s;
    /* In a child the lock may be a copy held by a parent's thread; leave it. */
    if (p->fork_generation == mintid__fork_generation())
        pthread_mutex_destroy(&p->lock);
    free(p);
}

static const mintid__store_ops process_ops = {
    .survives_fork = false,
    .sleeps_unlocked = false,
    .settled = true,
    .lock = process_lock,
    .unlock = process_unlock,
    .where = process_where,
    .close = process_close,
};

static int process_open(const mintid__format_impl *f, const mintid_config *cfg, void *ctx, mintid__store **out) {
    (void)cfg, (void)ctx;
    process_store *p = calloc(1, sizeof *p);
    if (p == NULL)
        return MINTID_ENOMEM;
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        return MINTID_ENOMEM;
    }
    p->base.ops = &process_ops;
    p->fork_generation = mintid__fork_generation();
    mintid__core_init(f, &p->core);
    *out = &p->base;
    return MINTID_OK;
}

int mintid_gen_new(const mintid_format *fmt, const mintid_config *cfg, mintid_gen **out) {
    static const mintid__store_maker maker = {.open = process_open};
    return mintid__gen_new(fmt, cfg, &maker, NULL, out);
}
