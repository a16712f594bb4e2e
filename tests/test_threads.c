/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c - one generator shared by several threads: no duplicate,
 * and each thread sees its own IDs strictly increasing (a total order that
 * the generator's lock makes the same for everyone).
 */
#include "check.h"
#include "mintid.h"

#include <pthread.h>
#include <stdlib.h>

/* A thread gives up after MAX_ERRORS failed calls: every failed call fails
 * the test, and a generator that keeps failing must end it, not hang it. */
enum { THREADS = 4, PER_THREAD = 50000, BATCH = 64, MAX_ERRORS = 10 };

typedef struct worker {
    mintid_gen *gen;
    mintid_id *out;
    int single; /* one call per ID rather than batches */
    int want;   /* IDs to mint */
    int done;   /* IDs minted */
    int errors;
    int last_error;
    int disorder;
} worker;

static void *run(void *arg) {
    worker *w = arg;
    const mintid_format *fmt = mintid_gen_format(w->gen);
    while (w->done < w->want && w->errors < MAX_ERRORS) {
        size_t want = w->single ? 1 : (w->want - w->done < BATCH ? (size_t)(w->want - w->done) : BATCH);
        long n = mintid_gen_next_n(w->gen, w->out + w->done, want);
        if (n <= 0) {
            w->errors++;
            w->last_error = (int)n;
            continue;
        }
        w->done += (int)n;
    }
    for (int i = 1; i < w->done; i++)
        if (mintid_id_compare(fmt, &w->out[i - 1], &w->out[i]) >= 0)
            w->disorder++;
    return NULL;
}

static const mintid_format *sort_fmt;
static int cmp_ids(const void *a, const void *b) { return mintid_id_compare(sort_fmt, a, b); }

static void test_format(mintid_format_id id, int single) {
    const mintid_format *fmt = mintid_format_get(id);
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.overflow = MINTID_OVERFLOW_WAIT;
    cfg.max_wait_ms = 5000;
    mintid_gen *gen;
    CHECK_INT(mintid_gen_new(fmt, &cfg, &gen), MINTID_OK);
    /* Many units' worth, within a quarter of a second of the format's
     * capacity: sonyflake's 25.6 a millisecond would take 8 s for all. */
    uint64_t quarter = (uint64_t)fmt->capacity_per_ms * 250 / THREADS;
    const int per_thread = quarter != 0 && quarter < PER_THREAD ? (int)quarter : PER_THREAD;
    mintid_id *all = calloc((size_t)THREADS * per_thread, sizeof *all);
    worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){.gen = gen, .out = all + (size_t)i * per_thread, .single = single, .want = per_thread};
        pthread_create(&t[i], NULL, run, &w[i]);
    }
    int complete = 1;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        if (w[i].errors > 0)
            fprintf(stderr, "%s%s: thread %d: %d failed call(s), the last %s; %s after %d of %d IDs\n", fmt->name,
                    single ? " (one ID per call)" : "", i, w[i].errors, mintid_status_name(w[i].last_error),
                    w[i].errors >= MAX_ERRORS ? "gave up" : "finished", w[i].done, per_thread);
        CHECK_INT(w[i].errors, 0);
        CHECK_INT(w[i].done, per_thread);
        CHECK_INT(w[i].disorder, 0);
        complete &= w[i].done == per_thread;
    }
    if (!complete) {
        /* The unfilled slots would count as duplicates of each other. */
        free(all);
        mintid_gen_free(gen);
        return;
    }
    sort_fmt = fmt;
    qsort(all, (size_t)THREADS * per_thread, sizeof *all, cmp_ids);
    int dups = 0;
    for (size_t i = 1; i < (size_t)THREADS * per_thread; i++)
        if (mintid_id_compare(fmt, &all[i - 1], &all[i]) == 0)
            dups++;
    if (dups)
        fprintf(stderr, "%s: %d duplicates\n", fmt->name, dups);
    CHECK_INT(dups, 0);
    mintid_gen_stats st;
    mintid_gen_get_stats(gen, &st);
    CHECK_U64(st.issued, (uint64_t)THREADS * per_thread);
    free(all);
    mintid_gen_free(gen);
}

int main(void) {
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        test_format((mintid_format_id)f, 0);
        test_format((mintid_format_id)f, 1);
    }
    return CHECK_DONE();
}
