/* SPDX-License-Identifier: MIT */
/*
 * test_region.c - a generator whose state is in the caller's memory, under
 * the caller's lock (mintid_gen_new_region()): driven the same way as a
 * process generator (the same IDs, waits, "come back later" and counters
 * from the same clock and random bytes), one sequence for generators in
 * two threads and in forked processes sharing the state, the caller's
 * durable mark ahead of every ID and a restart under it, a lock whose
 * holder died with the state half written, and every bad argument refused
 * with a sentence.
 */
#include "check.h"
#include "mintid.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static const int64_t T0 = 1795300000000; /* 2026-11-21 */

/* A clock the test moves: 1 ms later every `tick_every` reads (0: never), safe from threads and processes. */
typedef struct test_clock {
    _Atomic int64_t now;
    _Atomic uint64_t reads;
    uint64_t tick_every;
} test_clock;

static int clock_read(void *ctx, int64_t *unix_ms) {
    test_clock *c = ctx;
    uint64_t r = atomic_fetch_add(&c->reads, 1) + 1;
    if (c->tick_every > 0 && r % c->tick_every == 0)
        atomic_fetch_add(&c->now, 1);
    *unix_ms = atomic_load(&c->now);
    return MINTID_OK;
}

static void clock_set(test_clock *c, int64_t now, uint64_t tick_every) {
    atomic_store(&c->now, now);
    atomic_store(&c->reads, 0);
    c->tick_every = tick_every;
}

/* Bytes counted out, the same for every generator given its own. */
static int counting_random(void *ctx, void *buf, size_t len) {
    uint8_t *next = ctx, *b = buf;
    for (size_t i = 0; i < len; i++)
        b[i] = (*next)++;
    return MINTID_OK;
}

/*
 * The caller's side of a region: its lock (a mutex, process-shared and
 * robust when `shared`), what the generators did with it, and its durable
 * mark. Lives in the memory the generators share.
 */
typedef struct caller {
    pthread_mutex_t mutex;
    int held;            /* 1 while a generator holds the lock */
    int taken;           /* times the lock was taken */
    int misuse;          /* the lock taken while held by the same thread, or let go while not held */
    int lock_status;     /* nonzero: lock() returns it and takes nothing */
    int64_t mark;        /* the mark made durable last; INT64_MIN: none */
    int marks;           /* times mark() was called */
    int mark_status;     /* nonzero: mark() fails with it */
    int marked_unlocked; /* mark() called without the lock held */
    int lowered;         /* mark() called with a mark at or below the one made durable */
    mintid_region_state state;
} caller;

static int caller_lock(void *ctx) {
    caller *c = ctx;
    if (c->lock_status != 0)
        return c->lock_status;
    int rc = pthread_mutex_lock(&c->mutex), said = MINTID_OK;
    if (rc == EOWNERDEAD) {
        pthread_mutex_consistent(&c->mutex);
        said = MINTID_REGION_RECOVERED;
    } else if (rc != 0) {
        c->misuse++; /* EDEADLK: taken again by its holder */
        return MINTID_EINVAL;
    }
    c->held = 1;
    c->taken++;
    return said;
}

static void caller_unlock(void *ctx) {
    caller *c = ctx;
    if (!c->held)
        c->misuse++;
    c->held = 0;
    if (pthread_mutex_unlock(&c->mutex) != 0)
        c->misuse++;
}

static int caller_mark(void *ctx, int64_t unix_ms) {
    caller *c = ctx;
    c->marks++;
    if (!c->held)
        c->marked_unlocked++;
    if (unix_ms <= c->mark)
        c->lowered++;
    if (c->mark_status != 0)
        return c->mark_status;
    c->mark = unix_ms;
    return MINTID_OK;
}

/* A caller in memory of its own: malloc()ed, or (shared) a MAP_SHARED mapping for forked children. */
static caller *caller_new(bool shared) {
    caller *c;
    if (shared) {
        c = mmap(NULL, sizeof *c, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (c == MAP_FAILED) {
            perror("mmap");
            exit(2);
        }
    } else if ((c = malloc(sizeof *c)) == NULL) {
        exit(2);
    }
    memset(c, 0, sizeof *c);
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    if (shared) {
        pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
        pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    } else {
        pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    }
    pthread_mutex_init(&c->mutex, &attr);
    pthread_mutexattr_destroy(&attr);
    c->mark = INT64_MIN;
    return c;
}

static void caller_free(caller *c, bool shared) {
    pthread_mutex_destroy(&c->mutex);
    if (shared)
        munmap(c, sizeof *c);
    else
        free(c);
}

static mintid_region region_of(caller *c, bool marked, bool shared) {
    mintid_region r;
    mintid_region_init(&r);
    r.state = &c->state;
    r.lock = caller_lock;
    r.unlock = caller_unlock;
    r.mark = marked ? caller_mark : NULL;
    r.ctx = c;
    r.shared = shared;
    return r;
}

static const mintid_format *fmt_at(int i) { return mintid_format_get((mintid_format_id)i); }

static mintid_config test_config(const mintid_format *fmt, test_clock *clk, uint8_t *rng) {
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.clock = clock_read;
    cfg.clock_ctx = clk;
    cfg.random = counting_random;
    cfg.random_ctx = rng;
    cfg.max_wait_ms = 30;
    cfg.overflow = MINTID_OVERFLOW_WAIT;
    return cfg;
}

/* ---- the same generator over either store ------------------------------------------- */

/* What a run of the script below saw: every return, ID, "later" and the counters, in order. */
#define TRACE_MAX 100000
typedef struct trace {
    int64_t items[TRACE_MAX];
    size_t n;
} trace;

static void put(trace *t, int64_t v) {
    if (t->n < TRACE_MAX)
        t->items[t->n++] = v;
}

static void put_id(trace *t, const mintid_id *id) {
    for (size_t i = 0; i < sizeof id->bytes; i += 4)
        put(t, (int64_t)id->bytes[i] << 24 | id->bytes[i + 1] << 16 | id->bytes[i + 2] << 8 | id->bytes[i + 3]);
}

/*
 * One script for a generator of fmt: single IDs in one unit, a batch that
 * runs through units and waits where one is used up, the clock stepped
 * back (the policy's wait, or reuse), a floor ahead (said by a call that
 * never waits, then reached), mint-or-say-when with the clock held still,
 * 64-bit values, and the counters. Every phase sets the clock, and every
 * wait ends by the clock's readings, never by max_wait_ms: what the script
 * sees depends on the readings alone, not on how long a sleep took.
 */
static void script(mintid_gen *g, const mintid_format *fmt, test_clock *clk, trace *t) {
    static mintid_id ids[6000];
    mintid_later later;
    mintid_gen_stats st;
    uint64_t values[300];
    int64_t unit = fmt->ts_unit_ms;
    size_t cap = fmt->capacity_per_ms < 2900 ? fmt->capacity_per_ms + 100 : 3000;
    /* Readings per ms while the clock runs: a wait for a unit of 10 ms or more sleeps between readings. */
    uint64_t fast = unit > 1 ? 1 : 700;
    clock_set(clk, T0, 0);
    for (int i = 0; i < 3; i++) {
        put(t, mintid_gen_next(g, &ids[i]));
        put_id(t, &ids[i]);
    }
    clock_set(clk, T0 + 20, fast);
    long got = mintid_gen_next_n(g, ids, cap * 2);
    put(t, got);
    for (long i = 0; i < got; i++)
        put_id(t, &ids[i]);
    clock_set(clk, atomic_load(&clk->now) - 2, 1);
    put(t, mintid_gen_next(g, &ids[0]));
    put_id(t, &ids[0]);
    put(t, mintid_gen_set_floor(g, T0 + 400 * unit));
    clock_set(clk, T0 + 390 * unit, 0);
    put(t, mintid_gen_try_next_n(g, ids, 1, &later));
    put(t, later.reason);
    put(t, later.retry_ms);
    clock_set(clk, later.retry_ms, 0);
    put(t, mintid_gen_next(g, &ids[0]));
    put_id(t, &ids[0]);
    clock_set(clk, T0 + 1000 * unit, 0);
    for (int round = 0; round < 3; round++) {
        got = mintid_gen_try_next_n(g, ids, cap, &later);
        put(t, got);
        for (long i = 0; i < got; i++)
            put_id(t, &ids[i]);
        put(t, later.reason);
        put(t, later.retry_ms);
    }
    if (fmt->bits == 64) {
        clock_set(clk, T0 + 2000 * unit, unit > 1 ? 1 : 50);
        got = mintid_gen_next_u64(g, values, sizeof values / sizeof *values);
        put(t, got);
        for (long i = 0; i < got; i++)
            put(t, (int64_t)values[i]);
    }
    mintid_gen_get_stats(g, &st);
    put(t, (int64_t)st.issued);
    put(t, (int64_t)st.waits);
    put(t, (int64_t)st.rollbacks);
    put(t, (int64_t)st.exhausted);
    put(t, st.last_unix_ms);
}

/*
 * A region generator and a process generator, each with its own clock and
 * random source set alike, run the script: every format, with the
 * caller's mark and without. They must see the same, ID for ID: one
 * generator's logic drives both stores.
 */
static void test_same_as_a_process_generator(void) {
    static trace want, got;
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = fmt_at(f);
        for (int marked = 0; marked < 2; marked++) {
            test_clock clk_p = {0}, clk_r = {0};
            uint8_t rng_p = 0, rng_r = 0;
            clock_set(&clk_p, T0, 0);
            clock_set(&clk_r, T0, 0);
            mintid_config cfg_p = test_config(fmt, &clk_p, &rng_p), cfg_r = test_config(fmt, &clk_r, &rng_r);
            cfg_p.max_wait_ms = cfg_r.max_wait_ms = 5000; /* never reached: see script() */
            mintid_gen *p, *r;
            CHECK_INT(mintid_gen_new(fmt, &cfg_p, &p), MINTID_OK);
            caller *c = caller_new(false);
            CHECK_INT(mintid_region_state_init(&c->state, fmt, &cfg_r, INT64_MIN), MINTID_OK);
            mintid_region region = region_of(c, marked, false);
            CHECK_INT(mintid_gen_new_region(fmt, &cfg_r, &region, &r), MINTID_OK);
            want.n = got.n = 0;
            script(p, fmt, &clk_p, &want);
            script(r, fmt, &clk_r, &got);
            CHECK(want.n > 100 && want.n < TRACE_MAX);
            CHECK_INT(got.n, want.n);
            size_t at = 0;
            while (at < want.n && at < got.n && want.items[at] == got.items[at])
                at++;
            if (at < want.n || at < got.n)
                fprintf(stderr, "%s (%s): the region generator differs at item %zu of %zu: %lld, not %lld\n", fmt->name,
                        marked ? "marked" : "unmarked", at, want.n, at < got.n ? (long long)got.items[at] : -1,
                        at < want.n ? (long long)want.items[at] : -1);
            CHECK(at == want.n && at == got.n);
            /* The caller's lock: taken and let go in turn, never twice, and only it touches the state. */
            CHECK_INT(c->misuse, 0);
            CHECK_INT(c->held, 0);
            CHECK(c->taken > 0);
            CHECK_INT(c->marked_unlocked, 0);
            CHECK(marked ? c->marks > 0 : c->marks == 0);
            mintid_gen_free(p);
            mintid_gen_free(r);
            caller_free(c, false);
        }
    }
}

/* ---- waits, the lock, mint-or-say-when -------------------------------------------- */

/*
 * A wait for the next unit lets the caller's lock go (another generator
 * over the state goes on meanwhile); one that cannot end within
 * max_wait_ms fails, and the lock's own statuses reach the caller:
 * MINTID_EBUSY as "come back" to mintid_gen_try_next_n(), others as they are.
 */
static void test_waits_and_the_lock(void) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    test_clock clk = {0};
    uint8_t rng = 0;
    clock_set(&clk, T0, 0);
    mintid_config cfg = test_config(fmt, &clk, &rng);
    caller *c = caller_new(false);
    CHECK_INT(mintid_region_state_init(&c->state, fmt, &cfg, INT64_MIN), MINTID_OK);
    mintid_region region = region_of(c, false, false);
    mintid_gen *g;
    CHECK_INT(mintid_gen_new_region(fmt, &cfg, &region, &g), MINTID_OK);
    static uint64_t v[4096];
    CHECK_INT(mintid_gen_next_u64(g, v, 4096), 4096); /* the unit's every ID */
    mintid_gen_stats st;
    mintid_gen_get_stats(g, &st);
    CHECK_U64(st.issued, 4096);
    CHECK_INT(st.last_unix_ms, T0);

    /* The next unit comes after 10 more readings: the lock is let go at each. */
    int taken = c->taken;
    clock_set(&clk, T0, 10);
    mintid_id id;
    CHECK_INT(mintid_gen_next(g, &id), MINTID_OK);
    CHECK(c->taken - taken > 5);
    CHECK_INT(mintid_id_unix_ms(fmt, &id, cfg.epoch_ms), T0 + 1);
    mintid_gen_get_stats(g, &st);
    CHECK_U64(st.waits, 1);
    CHECK_U64(st.exhausted, 1);
    CHECK_INT(c->misuse, 0);

    /* Held still: the wait ends at max_wait_ms, nothing minted, the lock let go. */
    clock_set(&clk, T0 + 1, 0);
    CHECK_INT(mintid_gen_next_u64(g, v, 4096), 4095);
    CHECK_INT(mintid_gen_next(g, &id), MINTID_ETIMEDOUT);
    CHECK_INT(c->held, 0);
    /* Or, never waiting: when and why. */
    mintid_later later;
    CHECK_INT(mintid_gen_try_next_n(g, &id, 1, &later), 0);
    CHECK_INT(later.reason, MINTID_EEXHAUSTED);
    CHECK_INT(later.retry_ms, T0 + 2);
    /* The clock behind the last ID, with the rollback policy that waits. */
    clock_set(&clk, T0 - 5, 0);
    CHECK_INT(mintid_gen_try_next_n(g, &id, 1, &later), 0);
    CHECK_INT(later.reason, MINTID_ECLOCKBACK);
    CHECK_INT(later.retry_ms, T0 + 1);
    mintid_gen_get_stats(g, &st);
    CHECK_U64(st.issued, 4096 + 1 + 4095);
    CHECK_U64(st.rollbacks, 1);

    /* The caller's lock not free now: come back the next millisecond. */
    clock_set(&clk, T0 + 10, 0);
    c->lock_status = MINTID_EBUSY;
    CHECK_INT(mintid_gen_try_next_n(g, &id, 1, &later), 0);
    CHECK_INT(later.reason, MINTID_EBUSY);
    CHECK_INT(later.retry_ms, T0 + 11);
    CHECK_INT(mintid_gen_next(g, &id), MINTID_EBUSY);
    mintid_gen_get_stats(g, &st);
    CHECK_INT(st.last_unix_ms, -2);
    c->lock_status = MINTID_ETIMEDOUT;
    CHECK_INT(mintid_gen_next(g, &id), MINTID_ETIMEDOUT);
    CHECK_INT(mintid_gen_set_floor(g, T0 + 20), MINTID_ETIMEDOUT);
    mintid_gen_get_stats(g, &st);
    CHECK_INT(st.last_unix_ms, -1);
    c->lock_status = 0;
    CHECK_INT(mintid_gen_next(g, &id), MINTID_OK);
    CHECK_INT(mintid_id_unix_ms(fmt, &id, cfg.epoch_ms), T0 + 10);
    CHECK_INT(c->misuse, 0);
    /* Neither store's: a region generator has no host-wide path and takes no warrant. */
    CHECK(mintid_gen_host_path(g) == NULL);
    mintid_warrant w;
    mintid_warrant_init(&w);
    w.pid = 1;
    CHECK_INT(mintid_gen_warrant(g, &w), MINTID_EINVAL);
    mintid_gen_free(g);
    caller_free(c, false);
}

/* ---- one sequence: threads, processes -------------------------------------------------- */

#define THREAD_IDS 60000

typedef struct worker {
    mintid_gen *gen;
    uint64_t *out; /* THREAD_IDS values */
    int failed;
} worker;

/* Mints THREAD_IDS values in batches and one at a time, and checks that its own increase. */
static void *worker_run(void *arg) {
    worker *w = arg;
    size_t n = 0;
    while (n < THREAD_IDS) {
        long got;
        if (n % 3 == 0) {
            mintid_id id;
            got = mintid_gen_next(w->gen, &id) == MINTID_OK ? 1 : -1;
            w->out[n] = mintid_id_to_u64(&id);
        } else {
            size_t want = THREAD_IDS - n < 97 ? THREAD_IDS - n : 97;
            got = mintid_gen_next_u64(w->gen, w->out + n, want);
        }
        if (got <= 0) {
            w->failed = 1;
            return NULL;
        }
        n += (size_t)got;
    }
    for (size_t i = 1; i < n; i++)
        if (w->out[i] <= w->out[i - 1])
            w->failed = 2;
    return NULL;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * The IDs of several generators that share one nanoflake state: no ID
 * twice, and in each millisecond the sequence numbers 0, 1, 2, ... with
 * none missing, as one generator mints them (two sequences would each
 * begin at 0). Sorts vals.
 */
static void check_one_sequence(uint64_t *vals, size_t n) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    qsort(vals, n, sizeof *vals, cmp_u64);
    size_t twice = 0, gaps = 0;
    mintid_parts prev = {0};
    for (size_t i = 0; i < n; i++) {
        mintid_id id;
        mintid_parts p;
        mintid_id_from_u64(&id, vals[i]);
        mintid_id_parse(fmt, &id, &p);
        if (i > 0 && vals[i] == vals[i - 1])
            twice++;
        else if (i == 0 || p.timestamp != prev.timestamp ? p.sequence != 0 : p.sequence != prev.sequence + 1)
            gaps++;
        prev = p;
    }
    CHECK_INT(twice, 0);
    CHECK_INT(gaps, 0);
}

/*
 * Two generators over one state, in two threads, under the caller's
 * mutex: one sequence, on a clock slow enough that each unit is used up
 * and both wait for the next one (letting the lock go to each other).
 */
static void test_two_threads_one_sequence(void) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    test_clock clk = {0};
    clock_set(&clk, T0, 6000);
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.node = 5;
    cfg.clock = clock_read;
    cfg.clock_ctx = &clk;
    caller *c = caller_new(false);
    CHECK_INT(mintid_region_state_init(&c->state, fmt, &cfg, INT64_MIN), MINTID_OK);
    mintid_region region = region_of(c, true, false);
    uint64_t *vals = malloc(2 * THREAD_IDS * sizeof *vals);
    CHECK(vals != NULL);
    worker w[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        w[i] = (worker){.out = vals + i * THREAD_IDS};
        CHECK_INT(mintid_gen_new_region(fmt, &cfg, &region, &w[i].gen), MINTID_OK);
    }
    for (int i = 0; i < 2; i++)
        CHECK_INT(pthread_create(&th[i], NULL, worker_run, &w[i]), 0);
    uint64_t waits = 0;
    for (int i = 0; i < 2; i++) {
        CHECK_INT(pthread_join(th[i], NULL), 0);
        CHECK_INT(w[i].failed, 0);
        mintid_gen_stats st;
        mintid_gen_get_stats(w[i].gen, &st);
        CHECK_U64(st.issued, THREAD_IDS);
        waits += st.waits;
        mintid_gen_free(w[i].gen);
    }
    CHECK(waits > 0);
    check_one_sequence(vals, 2 * THREAD_IDS);
    CHECK_INT(c->misuse, 0);
    CHECK_INT(c->marked_unlocked, 0);
    /* Every ID under the mark made durable before it left. */
    mintid_id last;
    mintid_id_from_u64(&last, vals[2 * THREAD_IDS - 1]);
    CHECK(mintid_id_unix_ms(fmt, &last, cfg.epoch_ms) < c->mark);
    free(vals);
    caller_free(c, false);
}

#define CHILD_IDS 20000

/* What forked processes share: the caller (its mutex process-shared), the clock, and the IDs each minted. */
typedef struct shared_mem {
    caller *c;
    test_clock clk;
    uint64_t ids[3][CHILD_IDS];
} shared_mem;

/*
 * A child minting CHILD_IDS into its row: from the generator it inherited
 * (own NULL), or from one of its own over the same state. Exits 0 when
 * they increase.
 */
static int child_mints(mintid_gen *inherited, shared_mem *m, int row, const mintid_config *cfg) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    mintid_gen *g = inherited;
    mintid_region region = region_of(m->c, true, true);
    if (g == NULL && mintid_gen_new_region(fmt, cfg, &region, &g) != MINTID_OK)
        return 3;
    for (size_t n = 0; n < CHILD_IDS;) {
        long got = mintid_gen_next_u64(g, m->ids[row] + n, CHILD_IDS - n < 50 ? CHILD_IDS - n : 50);
        if (got <= 0)
            return 4;
        n += (size_t)got;
    }
    for (size_t i = 1; i < CHILD_IDS; i++)
        if (m->ids[row][i] <= m->ids[row][i - 1])
            return 5;
    return 0;
}

/*
 * A state in MAP_SHARED memory under a process-shared mutex: the parent
 * and two forked children, one with the generator it inherited and one
 * with a generator of its own, mint at once and continue one sequence.
 * A state not declared shared refuses an inherited generator.
 */
static void test_forked_processes_one_sequence(void) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    shared_mem *m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    memset(m, 0, sizeof *m);
    m->c = caller_new(true);
    clock_set(&m->clk, T0, 3000);
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.node = 9;
    cfg.clock = clock_read;
    cfg.clock_ctx = &m->clk;
    CHECK_INT(mintid_region_state_init(&m->c->state, fmt, &cfg, INT64_MIN), MINTID_OK);
    mintid_region region = region_of(m->c, true, true);
    mintid_gen *g;
    CHECK_INT(mintid_gen_new_region(fmt, &cfg, &region, &g), MINTID_OK);
    mintid_id first;
    CHECK_INT(mintid_gen_next(g, &first), MINTID_OK);
    pid_t pid[2];
    fflush(NULL);
    for (int i = 0; i < 2; i++)
        if ((pid[i] = fork()) == 0)
            _exit(child_mints(i == 0 ? g : NULL, m, i, &cfg));
    CHECK_INT(child_mints(g, m, 2, &cfg), 0);
    for (int i = 0; i < 2; i++) {
        int st;
        CHECK_INT(waitpid(pid[i], &st, 0), pid[i]);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    static uint64_t all[3 * CHILD_IDS + 1];
    memcpy(all, m->ids, sizeof m->ids);
    all[3 * CHILD_IDS] = mintid_id_to_u64(&first);
    check_one_sequence(all, 3 * CHILD_IDS + 1);
    CHECK_INT(m->c->misuse, 0);
    mintid_gen_free(g);

    /* Not declared shared: the child's memory is a copy, so an inherited generator refuses. */
    caller *own = caller_new(false);
    CHECK_INT(mintid_region_state_init(&own->state, fmt, &cfg, INT64_MIN), MINTID_OK);
    mintid_region apart = region_of(own, false, false);
    CHECK_INT(mintid_gen_new_region(fmt, &cfg, &apart, &g), MINTID_OK);
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        mintid_id id;
        _exit(mintid_gen_next(g, &id) == MINTID_EFORKED ? 0 : 1);
    }
    int st;
    CHECK_INT(waitpid(p, &st, 0), p);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    mintid_gen_free(g);
    caller_free(own, false);
    caller_free(m->c, true);
    munmap(m, sizeof *m);
}

/*
 * A process that dies holding the caller's robust mutex, the state half
 * written (its sequence back where the unit's first ID left it, its
 * timestamp not yet moved): the lock says so (MINTID_REGION_RECOVERED),
 * and nothing more is minted in that unit, where the state would repeat
 * the unit's second ID.
 */
static void test_holder_died(void) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    shared_mem *m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    memset(m, 0, sizeof *m);
    m->c = caller_new(true);
    clock_set(&m->clk, T0, 0);
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.clock = clock_read;
    cfg.clock_ctx = &m->clk;
    cfg.max_wait_ms = 30;
    CHECK_INT(mintid_region_state_init(&m->c->state, fmt, &cfg, INT64_MIN), MINTID_OK);
    mintid_region region = region_of(m->c, false, true);
    mintid_gen *g;
    CHECK_INT(mintid_gen_new_region(fmt, &cfg, &region, &g), MINTID_OK);
    mintid_id before[4];
    CHECK_INT(mintid_gen_next(g, &before[0]), MINTID_OK);
    mintid_region_state half;
    CHECK_INT(caller_lock(m->c), MINTID_OK);
    half = m->c->state;
    caller_unlock(m->c);
    CHECK_INT(mintid_gen_next_n(g, before + 1, 3), 3);

    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (pthread_mutex_lock(&m->c->mutex) != 0)
            _exit(1);
        m->c->state = half;
        raise(SIGKILL);
        _exit(2);
    }
    int st;
    CHECK_INT(waitpid(pid, &st, 0), pid);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    /* The clock still in the same millisecond: nothing may be minted in it any more. */
    mintid_id after;
    int rc = mintid_gen_next(g, &after);
    if (rc == MINTID_OK)
        for (int i = 0; i < 4; i++)
            if (memcmp(&after, &before[i], sizeof after) == 0)
                fprintf(stderr, "the ID after the holder died repeats ID %d before\n", i);
    CHECK_INT(rc, MINTID_ETIMEDOUT);
    clock_set(&m->clk, T0 + 1, 0);
    CHECK_INT(mintid_gen_next(g, &after), MINTID_OK);
    CHECK(mintid_id_compare(fmt, &after, &before[3]) > 0);
    mintid_gen_free(g);
    caller_free(m->c, true);
    munmap(m, sizeof *m);
}

/* ---- the caller's durable mark ------------------------------------------------------- */

/*
 * The mark is made durable (with the lock held) before an ID reaches it,
 * about every MINTID_HOST_MARK_AHEAD_MS / 2, not per ID; a mark that
 * cannot be made durable fails the call with its status and no ID past
 * the old mark; and a state set up again after a restart with the mark as
 * its floor mints nothing before it, though the clock came back behind.
 */
static void test_durable_mark(void) {
    const mintid_format *fmt = mintid_format_find("snowflake");
    test_clock clk = {0};
    clock_set(&clk, T0, 2);
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.clock = clock_read;
    cfg.clock_ctx = &clk;
    cfg.max_wait_ms = 30;
    caller *c = caller_new(false);
    CHECK_INT(mintid_region_state_init(&c->state, fmt, &cfg, INT64_MIN), MINTID_OK);
    mintid_region region = region_of(c, true, false);
    mintid_gen *g;
    CHECK_INT(mintid_gen_new_region(fmt, &cfg, &region, &g), MINTID_OK);
    mintid_id id;
    int64_t ms = 0;
    size_t under = 0;
    for (int i = 0; i < 10000; i++) {
        CHECK_INT(mintid_gen_next(g, &id), MINTID_OK);
        ms = mintid_id_unix_ms(fmt, &id, cfg.epoch_ms);
        under += ms < c->mark;
    }
    CHECK_INT(under, 10000);
    CHECK(ms >= T0 + 4999);
    /* 5 s of IDs: a mark at the first, then one a second. */
    CHECK(c->marks >= 5 && c->marks <= 7);
    CHECK(c->mark > ms && c->mark <= ms + MINTID_HOST_MARK_AHEAD_MS);
    CHECK_INT(c->marked_unlocked, 0);

    /* The mark cannot be made durable: nothing past it. */
    int64_t mark = c->mark;
    mintid_gen_stats st;
    mintid_gen_get_stats(g, &st);
    c->mark_status = MINTID_EHOST;
    clock_set(&clk, mark, 0);
    CHECK_INT(mintid_gen_next(g, &id), MINTID_EHOST);
    clock_set(&clk, mark - 1, 0);
    CHECK_INT(mintid_gen_next(g, &id), MINTID_EHOST); /* its unit reaches half the reserve */
    mintid_gen_stats after;
    mintid_gen_get_stats(g, &after);
    CHECK_U64(after.issued, st.issued);
    CHECK_INT(c->mark, mark);
    mintid_gen_free(g);

    /* A restart: the memory set up anew, its floor the mark made durable; the clock came back behind it. */
    CHECK_INT(mintid_region_state_init(&c->state, fmt, &cfg, mark), MINTID_OK);
    c->mark_status = 0;
    c->marks = 0;
    CHECK_INT(mintid_gen_new_region(fmt, &cfg, &region, &g), MINTID_OK);
    clock_set(&clk, T0, 0);
    mintid_later later;
    CHECK_INT(mintid_gen_try_next_n(g, &id, 1, &later), 0);
    CHECK_INT(later.reason, MINTID_ECLOCKBACK);
    CHECK_INT(later.retry_ms, mark);
    CHECK_INT(mintid_gen_next(g, &id), MINTID_ETIMEDOUT);
    clock_set(&clk, mark, 0);
    CHECK_INT(mintid_gen_next(g, &id), MINTID_OK);
    CHECK_INT(mintid_id_unix_ms(fmt, &id, cfg.epoch_ms), mark);
    CHECK_INT(c->marks, 1);
    CHECK(c->mark > mark);
    CHECK_INT(c->lowered, 0);
    mintid_gen_free(g);
    caller_free(c, false);
}

/* ---- refusals, each with its sentence ------------------------------------------------------ */

/* Opening fails with MINTID_EINVAL, and mintid_gen_why() names what is wrong. */
static void refused(const mintid_format *fmt, const mintid_config *cfg, const mintid_region *region,
                    const char *words) {
    mintid_gen *g = NULL;
    char why[512];
    CHECK_INT(mintid_gen_new_region(fmt, cfg, region, &g), MINTID_EINVAL);
    CHECK(g == NULL);
    mintid_gen_why(fmt, cfg, NULL, MINTID_EINVAL, 0, why, sizeof why);
    if (strstr(why, words) == NULL)
        fprintf(stderr, "mintid_gen_why() says \"%s\", not \"%s\"\n", why, words);
    CHECK(strstr(why, words) != NULL);
    CHECK(strncmp(why, fmt->name, strlen(fmt->name)) == 0);
}

static void test_bad_arguments(void) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.node = 3;
    cfg.epoch_ms = 1420070400000; /* 2015-01-01 */
    caller *c = caller_new(false);
    mintid_region good = region_of(c, true, false), r;

    /* The state not set up yet: all zeros, or bytes of something else. */
    refused(fmt, &cfg, &good, "not set up by mintid_region_state_init()");
    memset(&c->state, 0x5a, sizeof c->state);
    refused(fmt, &cfg, &good, "not set up by mintid_region_state_init()");
    CHECK_INT(mintid_region_state_init(NULL, fmt, &cfg, INT64_MIN), MINTID_EINVAL);
    CHECK_INT(mintid_region_state_init(&c->state, NULL, &cfg, INT64_MIN), MINTID_EINVAL);
    mintid_config bad = cfg;
    bad.node = 1024;
    CHECK_INT(mintid_region_state_init(&c->state, fmt, &bad, INT64_MIN), MINTID_EINVAL);
    CHECK_INT(mintid_region_state_init(&c->state, fmt, &cfg, INT64_MIN), MINTID_OK);

    refused(fmt, &cfg, NULL, "no region given");
    r = good;
    r.size = 0;
    refused(fmt, &cfg, &r, "set it with mintid_region_init()");
    r = good;
    r.state = NULL;
    refused(fmt, &cfg, &r, "the region has no state");
    r = good;
    r.state = (mintid_region_state *)(void *)((char *)&c->state + 4);
    refused(fmt, &cfg, &r, "is not aligned to 8 bytes");
    r = good;
    r.unlock = NULL;
    refused(fmt, &cfg, &r, "a lock but no unlock");
    r = good;
    r.lock = NULL;
    refused(fmt, &cfg, &r, "an unlock but no lock");

    /* A state of another sequence: format, node id, epoch. */
    refused(mintid_format_find("snowflake"), NULL, &good, "holds nanoflake IDs, not snowflake");
    mintid_config other = cfg;
    other.node = 4;
    refused(fmt, &other, &good, "holds the IDs of node 3, not node 4");
    other = cfg;
    other.epoch_ms = MINTID_NANOFLAKE_DEFAULT_EPOCH;
    refused(fmt, &other, &good, "counted from the epoch 2015-01-01T00:00:00.000Z, not 2010-11-04T01:42:54.657Z");

    /* The sentence is the last opening's only: a refusal of another kind says nothing of the region. */
    mintid_gen *g;
    char why[512];
    CHECK_INT(mintid_gen_new(fmt, &bad, &g), MINTID_EINVAL);
    mintid_gen_why(fmt, &bad, NULL, MINTID_EINVAL, 0, why, sizeof why);
    CHECK(strstr(why, "region") == NULL);
    refused(fmt, &cfg, NULL, "no region given");
    mintid_host_options small;
    mintid_host_options_init(&small);
    small.size = 1; /* of no struct the library knows */
    CHECK_INT(mintid_gen_open_host(fmt, &cfg, &small, &g), MINTID_EINVAL);
    mintid_gen_why(fmt, &cfg, NULL, MINTID_EINVAL, 0, why, sizeof why);
    CHECK(strstr(why, "region") == NULL);
    /* And the right arguments open. */
    CHECK_INT(mintid_gen_new_region(fmt, &cfg, &good, &g), MINTID_OK);
    mintid_gen_free(g);
    caller_free(c, false);
}

int main(void) {
    test_same_as_a_process_generator();
    test_waits_and_the_lock();
    test_two_threads_one_sequence();
    test_forked_processes_one_sequence();
    test_holder_died();
    test_durable_mark();
    test_bad_arguments();
    return CHECK_DONE();
}
