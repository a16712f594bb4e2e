/*
 * test_threads.c - one generator shared by several threads: no duplicate,
 * and each thread sees its own IDs strictly increasing (a total order that
 * the generator's lock makes the same for everyone).
 */
#include "check.h"
#include "mintid.h"

#include <pthread.h>
#include <stdlib.h>

enum { THREADS = 4, PER_THREAD = 50000, BATCH = 64 };

typedef struct worker {
    mintid_gen *gen;
    mintid_id *out;
    int single; /* one call per ID rather than batches */
    int errors;
    int disorder;
} worker;

static void *run(void *arg) {
    worker *w = arg;
    const mintid_format *fmt = mintid_gen_format(w->gen);
    for (int done = 0; done < PER_THREAD;) {
        size_t want = w->single ? 1 : (PER_THREAD - done < BATCH ? (size_t)(PER_THREAD - done) : BATCH);
        long n = mintid_gen_next_n(w->gen, w->out + done, want);
        if (n <= 0) {
            w->errors++;
            continue;
        }
        done += (int)n;
    }
    for (int i = 1; i < PER_THREAD; i++)
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
    mintid_id *all = calloc((size_t)THREADS * PER_THREAD, sizeof *all);
    worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){gen, all + (size_t)i * PER_THREAD, single, 0, 0};
        pthread_create(&t[i], NULL, run, &w[i]);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK_INT(w[i].errors, 0);
        CHECK_INT(w[i].disorder, 0);
    }
    sort_fmt = fmt;
    qsort(all, (size_t)THREADS * PER_THREAD, sizeof *all, cmp_ids);
    int dups = 0;
    for (size_t i = 1; i < (size_t)THREADS * PER_THREAD; i++)
        if (mintid_id_compare(fmt, &all[i - 1], &all[i]) == 0)
            dups++;
    if (dups)
        fprintf(stderr, "%s: %d duplicates\n", fmt->name, dups);
    CHECK_INT(dups, 0);
    mintid_gen_stats st;
    mintid_gen_get_stats(gen, &st);
    CHECK_U64(st.issued, (uint64_t)THREADS * PER_THREAD);
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
