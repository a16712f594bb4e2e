/* SPDX-License-Identifier: MIT */
/*
 * store.c - what every key store shares (store.h): requests, the store's
 * clock, and the thread that answers waiting requests in one batch (group
 * commit), with its queues and the eventfd that wakes the loop. The store
 * itself is reached only through its table of operations.
 */
#include "keys/store.h"

#include "base/log.h"
#include "service.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct key_store {
    const key_store_ops *ops;
    void *st; /* what ops->open returned */
    bool expiring;
    int efd;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    key_request *in, **in_tail;   /* waiting for the thread */
    key_request *out, **out_tail; /* answered, waiting for the loop */
};

void key_request_created(key_request *r, int64_t now) {
    r->outcome = KEY_CREATED;
    r->got_ids = r->ids;
    r->got_count = r->count;
    r->got_form = r->form;
    memcpy(r->got_prefix, r->prefix, sizeof r->got_prefix);
    r->created_ms = now;
}

bool key_same_request(const key_request *r) {
    return r->got_count == r->count && r->got_form == r->form && strcmp(r->got_prefix, r->prefix) == 0;
}

void key_request_free(key_request *r) {
    if (r == NULL)
        return;
    if (r->got_ids != r->ids)
        free(r->got_ids);
    free(r->ids);
    free(r);
}

int64_t key_clock_ms(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t key_clock_now(const key_clock *c) { return c->base_ms + (key_clock_ms(CLOCK_BOOTTIME) - c->boot_ms); }

int key_store_prepare(const key_store_ops *ops, const key_store_conf *conf, key_store_prepared *out) {
    memset(out, 0, sizeof *out);
    return ops->prepare != NULL ? ops->prepare(conf, out) : 0;
}

static void *store_main(void *arg) {
    key_store *s = arg;
    uint64_t next_expiry = 0;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (s->in == NULL && !s->stop && !(s->expiring && monotonic_ns() >= next_expiry)) {
            struct timespec until;
            clock_gettime(CLOCK_MONOTONIC, &until);
            until.tv_sec += 1;
            pthread_cond_timedwait(&s->cv, &s->mu, &until);
        }
        key_request *batch = s->in;
        s->in = NULL;
        s->in_tail = &s->in;
        bool stop = s->stop;
        pthread_mutex_unlock(&s->mu);
        if (batch != NULL) {
            s->ops->answer(s->st, batch);
            key_request *last = batch;
            while (last->next != NULL)
                last = last->next;
            pthread_mutex_lock(&s->mu);
            *s->out_tail = batch;
            s->out_tail = &last->next;
            pthread_mutex_unlock(&s->mu);
            uint64_t one = 1;
            ssize_t n = write(s->efd, &one, sizeof one);
            (void)n; /* an eventfd at its limit is readable already */
        } else if (stop) {
            if (s->ops->stop != NULL)
                s->ops->stop(s->st);
            return NULL;
        }
        /* Expired keys, a small batch at a time between commits, so that
         * keys keep expiring under a load that never leaves the queue
         * empty, and no commit waits long behind them. */
        if (s->expiring && !stop && monotonic_ns() >= next_expiry)
            next_expiry = monotonic_ns() + (s->ops->expire(s->st) ? 0 : 1000000000u);
    }
}

key_store *key_store_open(const key_store_ops *ops, const key_store_conf *conf, const key_store_prepared *prepared) {
    key_store *s = calloc(1, sizeof *s);
    if (s == NULL) {
        log_msg(LOG_ERROR, "out of memory opening the key store");
        return NULL;
    }
    s->ops = ops;
    s->expiring = ops->expire != NULL && conf->ttl_s != 0;
    s->in_tail = &s->in;
    s->out_tail = &s->out;
    s->st = ops->open(conf, prepared);
    if (s->st == NULL) {
        free(s);
        return NULL;
    }
    s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->efd < 0) {
        log_msg(LOG_ERROR, "key store: eventfd: %s", strerror(errno));
        goto fail;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    /* The thread's naps run on the monotonic clock: a wall clock set back
     * does not pause expiry. */
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (log_thread_create(&s->thread, store_main, s) != 0) {
        log_msg(LOG_ERROR, "key store: cannot start its thread");
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv);
        close(s->efd);
        goto fail;
    }
    return s;
fail:
    ops->close(s->st);
    free(s);
    return NULL;
}

void key_store_close(key_store *s) {
    if (s == NULL)
        return;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    for (key_request *r = key_store_take(s), *next; r != NULL; r = next) {
        next = r->next;
        key_request_free(r);
    }
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    close(s->efd);
    s->ops->close(s->st);
    free(s);
}

int key_store_fd(const key_store *s) { return s->efd; }

uint64_t key_store_max_count(const key_store *s) { return s->ops->max_count; }

void key_store_submit(key_store *s, key_request *r) {
    r->next = NULL;
    pthread_mutex_lock(&s->mu);
    *s->in_tail = r;
    s->in_tail = &r->next;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

key_request *key_store_take(key_store *s) {
    uint64_t n;
    ssize_t got = read(s->efd, &n, sizeof n);
    (void)got; /* EAGAIN: nothing signalled, and the list says so too */
    pthread_mutex_lock(&s->mu);
    key_request *all = s->out;
    s->out = NULL;
    s->out_tail = &s->out;
    pthread_mutex_unlock(&s->mu);
    return all;
}
