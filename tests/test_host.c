/* SPDX-License-Identifier: MIT */
/*
 * test_host.c - the host-wide generator: processes that each open one, or
 * share one across fork(), continue one strictly increasing sequence; a
 * holder killed in the middle of a mint, and a state file deleted or
 * replaced under running processes, repeat no ID.
 *
 * Every test uses a directory of its own (mkdtemp), never the host's.
 */
#include "check.h"
#include "internal.h"
#include "mintid.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKERS 4
#define PER_WORKER 5000
#define BATCH 64

static char dir[64];

/* A new directory for each test: one test's states (a clock run ahead) must not meet another's. */
static void make_dir(void) {
    snprintf(dir, sizeof dir, "/tmp/mintid-test-host-XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        exit(2);
    }
}

static void remove_dir(void) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

static const mintid_format *fmt_at(int i) { return mintid_format_get((mintid_format_id)i); }

static int cmp_ids(const void *a, const void *b) { return memcmp(a, b, sizeof(mintid_id)); }

/* Counts IDs that occur more than once among n (sorted in place). */
static size_t duplicates(mintid_id *ids, size_t n) {
    qsort(ids, n, sizeof *ids, cmp_ids);
    size_t d = 0;
    for (size_t i = 1; i < n; i++)
        d += memcmp(&ids[i - 1], &ids[i], sizeof *ids) == 0;
    return d;
}

/*
 * Each worker writes its IDs into its slice of a shared mapping and exits
 * 0 if they increase strictly, 1 if not, 2+ on a failed call. `shared`:
 * the workers mint from `inherited`, made before fork(); else each opens
 * its own.
 */
/* The format's defaults, waiting for the next unit when one runs out (some formats fail by default). */
static mintid_config waiting_config(const mintid_format *fmt) {
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.overflow = MINTID_OVERFLOW_WAIT;
    return cfg;
}

/* IDs per worker: at most 50 ms of the format's capacity (sonyflake's 25.6 per ms), so each run takes a moment. */
static size_t per_worker(const mintid_format *fmt) {
    size_t cap = (size_t)fmt->capacity_per_ms * 50; /* 0: no fixed capacity */
    return cap != 0 && cap < PER_WORKER ? cap : PER_WORKER;
}

static int worker(const mintid_format *fmt, mintid_gen *inherited, mintid_id *out) {
    const size_t count = per_worker(fmt);
    mintid_gen *gen = inherited;
    mintid_config cfg = waiting_config(fmt);
    if (gen == NULL && mintid_gen_new_host(fmt, &cfg, dir, &gen) != MINTID_OK)
        return 2;
    for (size_t done = 0; done < count;) {
        long got = mintid_gen_next_n(gen, out + done, done + BATCH <= count ? BATCH : count - done);
        if (got <= 0)
            return 3;
        done += (size_t)got;
    }
    for (size_t i = 1; i < count; i++)
        if (mintid_id_compare(fmt, &out[i - 1], &out[i]) >= 0)
            return 1;
    mintid_gen_free(gen);
    return 0;
}

static void run_workers(int f, bool shared) {
    const mintid_format *fmt = fmt_at(f);
    size_t total = (size_t)WORKERS * per_worker(fmt);
    mintid_id *ids = mmap(NULL, total * sizeof *ids, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(ids != MAP_FAILED);
    if (ids == MAP_FAILED)
        return;
    mintid_gen *parent = NULL;
    if (shared) {
        mintid_config cfg = waiting_config(fmt);
        CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &parent), MINTID_OK);
        mintid_id first;
        CHECK_INT(mintid_gen_next(parent, &first), MINTID_OK);
    }
    fflush(NULL);
    pid_t pids[WORKERS];
    for (int w = 0; w < WORKERS; w++) {
        pids[w] = fork();
        if (pids[w] == 0)
            _exit(worker(fmt, parent, ids + (size_t)w * per_worker(fmt)));
    }
    for (int w = 0; w < WORKERS; w++) {
        int st;
        waitpid(pids[w], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            fprintf(stderr, "%s: worker %d ended with status %d\n", fmt->name, w, st);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    size_t d = duplicates(ids, total);
    if (d != 0)
        fprintf(stderr, "%s (%s): %zu duplicates\n", fmt->name, shared ? "inherited" : "own", d);
    CHECK_U64(d, 0);
    mintid_gen_free(parent);
    munmap(ids, total * sizeof *ids);
}

/* Workers that each open the host's generator, for every format. */
static void test_processes_share_one_sequence(void) {
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++)
        run_workers(f, false);
}

/* Workers forked from a process that opened it go on minting from it. */
static void test_forked_children_go_on(void) {
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++)
        run_workers(f, true);
}

/* ---- threads ------------------------------------------------------------------------ */

#define THREADS 4
typedef struct thread_arg {
    const mintid_format *fmt;
    mintid_gen *gen; /* shared; NULL: the thread opens its own on the same state */
    mintid_id *out;
    size_t count;
    int status;
} thread_arg;

static void *thread_main(void *p) {
    thread_arg *a = p;
    mintid_gen *gen = a->gen;
    mintid_config cfg = waiting_config(a->fmt);
    if (gen == NULL && mintid_gen_new_host(a->fmt, &cfg, dir, &gen) != MINTID_OK) {
        a->status = 2;
        return NULL;
    }
    for (size_t done = 0; done < a->count;) {
        /* Single IDs and batches by turns: the fast path and the field rules meet. */
        long got = done % 3 ? mintid_gen_next_n(gen, a->out + done, done + 7 <= a->count ? 7 : a->count - done)
                            : (mintid_gen_next(gen, a->out + done) == MINTID_OK ? 1 : -1);
        if (got <= 0) {
            a->status = 3;
            return NULL;
        }
        done += (size_t)got;
    }
    for (size_t i = 1; i < a->count; i++)
        if (mintid_id_compare(a->fmt, &a->out[i - 1], &a->out[i]) >= 0)
            a->status = 1;
    if (a->gen == NULL)
        mintid_gen_free(gen);
    return NULL;
}

/* Threads of one process: one host-wide generator shared, and one each on the same state. */
static void test_threads(void) {
    const char *names[] = {"nanoflake", "uuidv7", "scru160", "ulid-flake"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        for (int own = 0; own <= 1; own++) {
            const mintid_format *fmt = mintid_format_find(names[k]);
            size_t count = per_worker(fmt);
            mintid_id *ids = calloc(THREADS * count, sizeof *ids);
            CHECK(ids != NULL);
            if (ids == NULL)
                return;
            mintid_gen *shared = NULL;
            mintid_config cfg = waiting_config(fmt);
            if (!own)
                CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &shared), MINTID_OK);
            pthread_t th[THREADS];
            thread_arg args[THREADS];
            for (int t = 0; t < THREADS; t++) {
                args[t] = (thread_arg){fmt, shared, ids + (size_t)t * count, count, 0};
                CHECK_INT(pthread_create(&th[t], NULL, thread_main, &args[t]), 0);
            }
            for (int t = 0; t < THREADS; t++) {
                pthread_join(th[t], NULL);
                CHECK_INT(args[t].status, 0);
            }
            size_t d = duplicates(ids, THREADS * count);
            if (d != 0)
                fprintf(stderr, "%s, threads (%s): %zu duplicates\n", fmt->name, own ? "own" : "shared", d);
            CHECK_U64(d, 0);
            mintid_gen_free(shared);
            free(ids);
        }
    }
}

/* ---- a holder killed with the lock held ------------------------------------------------ */

static int64_t fixed_ms;
static int fixed_clock(void *ctx, int64_t *unix_ms) {
    (void)ctx;
    *unix_ms = fixed_ms;
    return MINTID_OK;
}

/*
 * fmt's configuration on fixed_clock, set 10 s ahead of the real clock
 * (past the floor a new state has), waiting 5 ms at most for the clock.
 */
static mintid_config fixed_config(const mintid_format *fmt) {
    mintid_config cfg = waiting_config(fmt);
    cfg.clock = fixed_clock;
    cfg.max_wait_ms = 5;
    cfg.rollback = MINTID_ROLLBACK_WAIT;
    CHECK_INT(mintid_clock_system(NULL, &fixed_ms), MINTID_OK);
    fixed_ms += 10000;
    return cfg;
}

/*
 * A child takes the lock and dies with the state half written, as a mint
 * whose compiler stored the new sequence before the new timestamp would
 * leave it: the sequence of a new unit beside the last unit's timestamp.
 * Carrying on from that state would mint the last unit's second ID again.
 */
static void test_holder_killed_mid_mint(void) {
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = fmt_at(f);
        mintid_config cfg = fixed_config(fmt);
        mintid_gen *gen;
        CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &gen), MINTID_OK);
        fixed_ms += 2000; /* past the first 100 ms of the new state, and into a new ksuid second */
        mintid_id before[4];
        long got;
        /* Four in one unit: a random start near the unit's end (ulid-flake's
         * random increments) runs out first; then the next unit is used. */
        for (int tries = 0; (got = mintid_gen_next_n(gen, before, 4)) < 4 && tries < 10; tries++)
            fixed_ms += fmt->ts_unit_ms;
        CHECK_INT(got, 4);

        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            struct mintid__host *h;
            if (mintid__host_open(mintid__impl(fmt), &cfg, dir, MINTID_ID_SPACE_DEFAULT, false, &h) != MINTID_OK ||
                mintid__host_lock(h) != MINTID_OK)
                _exit(1);
            mintid__core *core = mintid__host_core(h);
            core->st.seq = mintid__impl(fmt)->seq_init; /* the new unit's sequence, not yet its timestamp */
            core->st.random = 0;
            *mintid__host_last_value(h) = 0;
            raise(SIGKILL);
            _exit(2);
        }
        int st;
        waitpid(pid, &st, 0);
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);

        /* The clock still in the same millisecond: nothing may be minted in it any more. */
        mintid_id after;
        int rc = mintid_gen_next(gen, &after);
        if (rc == MINTID_OK) {
            for (int i = 0; i < 4; i++)
                if (memcmp(&after, &before[i], sizeof after) == 0)
                    fprintf(stderr, "%s: the ID after the holder died repeats ID %d before\n", fmt->name, i);
        }
        CHECK_INT(rc, MINTID_ETIMEDOUT);
        /* The next unit: minting goes on, above everything before. */
        fixed_ms += fmt->ts_unit_ms;
        CHECK_INT(mintid_gen_next(gen, &after), MINTID_OK);
        CHECK(mintid_id_compare(fmt, &after, &before[3]) > 0);
        mintid_gen_free(gen);
    }
}

/* ---- the state file deleted or replaced ------------------------------------------------ */

/*
 * Two generators of one format take turns, one ID each: the first opened
 * the state, which is then deleted, and the second made a new one. Kept on
 * their own states, they would mint the same IDs in the same milliseconds.
 */
static void test_state_deleted_under_a_generator(bool replace_with_garbage) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    mintid_gen *a, *b;
    CHECK_INT(mintid_gen_new_host(fmt, NULL, dir, &a), MINTID_OK);
    enum { TURNS = 20000 };
    static mintid_id ids[3 * TURNS];
    size_t n = 0;
    for (int i = 0; i < TURNS; i++)
        CHECK_INT(mintid_gen_next(a, &ids[n++]), MINTID_OK);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", mintid_gen_host_path(a));
    CHECK_INT(unlink(path), 0);
    if (replace_with_garbage) {
        /* Something else at the path: a moving generator must not take it. */
        FILE *fp = fopen(path, "w");
        CHECK(fp != NULL);
        if (fp != NULL) {
            fputs("not a state\n", fp);
            fclose(fp);
        }
        CHECK_INT(mintid_gen_new_host(fmt, NULL, dir, &b), MINTID_EHOSTSTATE);
        mintid_id id;
        /* a looks at the path within MINTID_HOST_CHECK_MS and refuses to go on alone. */
        usleep(2 * MINTID_HOST_CHECK_MS * 1000);
        CHECK_INT(mintid_gen_next(a, &id), MINTID_EHOSTSTATE);
        CHECK_INT(unlink(path), 0);
        /* With the path free again, it moves to a new state. */
        CHECK_INT(mintid_gen_next(a, &id), MINTID_OK);
        CHECK(mintid_id_compare(fmt, &id, &ids[n - 1]) > 0);
        mintid_gen_free(a);
        return;
    }
    CHECK_INT(mintid_gen_new_host(fmt, NULL, dir, &b), MINTID_OK);
    CHECK(strcmp(mintid_gen_host_path(b), path) == 0);
    for (int i = 0; i < TURNS; i++) {
        CHECK_INT(mintid_gen_next(b, &ids[n++]), MINTID_OK);
        CHECK_INT(mintid_gen_next(a, &ids[n++]), MINTID_OK);
    }
    size_t d = duplicates(ids, n);
    if (d != 0)
        fprintf(stderr, "state deleted: %zu duplicates\n", d);
    CHECK_U64(d, 0);
    mintid_gen_free(a);
    mintid_gen_free(b);
}

static void test_state_deleted(void) { test_state_deleted_under_a_generator(false); }
static void test_state_replaced_by_garbage(void) { test_state_deleted_under_a_generator(true); }

/* ---- moves, pauses, odd clocks and callers -------------------------------------------- */

static int64_t shared_ms;
static int shared_clock(void *ctx, int64_t *unix_ms) {
    (void)ctx;
    *unix_ms = shared_ms;
    return MINTID_OK;
}

/*
 * A generator that moves to the path's new state at the start of a call
 * mints after that state's IDs, not after its old state's last value: its
 * fast path's value comes from the state it moved to.
 */
static void test_moved_call_uses_the_new_state(void) {
    const char *names[] = {"snowflake", "nanoflake", "caloriosa"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        const mintid_format *fmt = mintid_format_find(names[k]);
        mintid_config cfg = waiting_config(fmt);
        cfg.clock = shared_clock;
        cfg.max_wait_ms = 5;
        CHECK_INT(mintid_clock_system(NULL, &shared_ms), MINTID_OK);
        shared_ms += 10000;
        mintid_gen *a, *b;
        mintid_id first[5], y, z, w;
        CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &a), MINTID_OK);
        shared_ms += 200;
        CHECK_INT(mintid_gen_next_n(a, first, 5), 5);
        CHECK_INT(unlink(mintid_gen_host_path(a)), 0);
        shared_ms += 1000;
        CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &b), MINTID_OK);
        shared_ms += 200;
        CHECK_INT(mintid_gen_next(b, &y), MINTID_OK);
        usleep(2 * MINTID_HOST_CHECK_MS * 1000); /* a's next call looks at the path */
        CHECK_INT(mintid_gen_next(a, &z), MINTID_OK);
        CHECK_INT(mintid_gen_next(b, &w), MINTID_OK);
        CHECK(mintid_id_compare(fmt, &z, &y) > 0);
        CHECK(mintid_id_compare(fmt, &w, &z) > 0);
        mintid_gen_free(a);
        mintid_gen_free(b);
    }
}

/* Threads sharing one host-wide generator while its state file is deleted again and again. */
#define MOVE_THREADS 3
#define MOVE_CAP 400000
static mintid_gen *move_gen;
static atomic_int move_stop;
static mintid_id *move_ids[MOVE_THREADS];
static size_t move_count[MOVE_THREADS];
static int move_status[MOVE_THREADS];

static void *move_thread(void *arg) {
    int t = (int)(intptr_t)arg;
    const mintid_format *fmt = mintid_gen_format(move_gen);
    while (!atomic_load(&move_stop) && move_count[t] + 16 <= MOVE_CAP) {
        long n = mintid_gen_next_n(move_gen, move_ids[t] + move_count[t], 16);
        if (n <= 0)
            continue; /* a wait cut short by the moves: the next call goes on */
        for (size_t i = move_count[t] > 0 ? move_count[t] : 1; i < move_count[t] + (size_t)n; i++)
            if (mintid_id_compare(fmt, &move_ids[t][i - 1], &move_ids[t][i]) >= 0)
                move_status[t] = 1;
        move_count[t] += (size_t)n;
    }
    return NULL;
}

static void test_threads_while_deleted(void) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    mintid_config cfg = waiting_config(fmt);
    CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &move_gen), MINTID_OK);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", mintid_gen_host_path(move_gen));
    pthread_t th[MOVE_THREADS];
    atomic_store(&move_stop, 0);
    for (int t = 0; t < MOVE_THREADS; t++) {
        move_ids[t] = malloc(MOVE_CAP * sizeof(mintid_id));
        move_count[t] = 0;
        move_status[t] = 0;
        CHECK_INT(pthread_create(&th[t], NULL, move_thread, (void *)(intptr_t)t), 0);
    }
    for (int k = 0; k < 8; k++) {
        usleep(150000);
        unlink(path);
    }
    atomic_store(&move_stop, 1);
    size_t total = 0;
    for (int t = 0; t < MOVE_THREADS; t++) {
        pthread_join(th[t], NULL);
        CHECK_INT(move_status[t], 0); /* each thread's own IDs rise */
        total += move_count[t];
    }
    mintid_id *all = malloc(total * sizeof *all);
    CHECK(all != NULL && total > 0);
    if (all != NULL) {
        size_t k = 0;
        for (int t = 0; t < MOVE_THREADS; t++) {
            memcpy(all + k, move_ids[t], move_count[t] * sizeof *all);
            k += move_count[t];
        }
        CHECK_U64(duplicates(all, total), 0);
        free(all);
    }
    for (int t = 0; t < MOVE_THREADS; t++)
        free(move_ids[t]);
    mintid_gen_free(move_gen);
}

/*
 * A batch paused between two IDs (preempted, stopped) while the state is
 * deleted and another process mints on a new one: the batch's next reading
 * looks at the path first.
 */
static int pause_calls = -1; /* >= 0: counting; the batch's second reading pauses */
static int paused_fd = -1;   /* the child writes a byte here as it pauses */
static int resume_fd = -1;   /* and waits for a byte (or the parent gone) here */
static int pausing_clock(void *ctx, int64_t *unix_ms) {
    (void)ctx;
    if (pause_calls >= 0 && ++pause_calls == 2) {
        char c = 'p';
        if (write(paused_fd, &c, 1) != 1)
            _exit(4);
        while (read(resume_fd, &c, 1) < 0 && errno == EINTR)
            ;
    }
    return mintid_clock_system(NULL, unix_ms);
}

static void test_batch_paused_while_replaced(void) {
    enum { NA = 100000, NB = 1000000 };
    const mintid_format *fmt = mintid_format_find("snowflake");
    mintid_config cfg = waiting_config(fmt);
    mintid_gen *first;
    mintid_id one;
    CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &first), MINTID_OK);
    CHECK_INT(mintid_gen_next(first, &one), MINTID_OK);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", mintid_gen_host_path(first));
    mintid_gen_free(first);
    mintid_id *ids = mmap(NULL, (NA + NB) * sizeof *ids, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    long *na = mmap(NULL, sizeof *na, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    /* A handshake, not sleeps: the child pauses in its batch until the new state has minted. */
    int paused[2], resume[2];
    bool ready = ids != MAP_FAILED && na != MAP_FAILED && pipe(paused) == 0 && pipe(resume) == 0;
    CHECK(ready);
    if (!ready)
        return;
    *na = 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(paused[0]);
        close(resume[1]);
        paused_fd = paused[1];
        resume_fd = resume[0];
        mintid_config c = cfg;
        c.clock = pausing_clock;
        mintid_gen *a;
        if (mintid_gen_new_host(fmt, &c, dir, &a) != MINTID_OK || mintid_gen_next(a, &ids[0]) != MINTID_OK)
            _exit(3);
        pause_calls = 0;
        long n = mintid_gen_next_n(a, ids + 1, NA - 1);
        *na = n > 0 ? n + 1 : 1;
        _exit(0);
    }
    close(paused[1]);
    close(resume[0]);
    /* Until the child has paused in its batch; 0 bytes: it exited first (left for the waitpid below). */
    char byte;
    ssize_t got;
    while ((got = read(paused[0], &byte, 1)) < 0 && errno == EINTR)
        ;
    CHECK_INT(got, 1);
    close(paused[0]);
    if (got != 1) { /* nobody is waiting for the word to go on */
        close(resume[1]);
        resume[1] = -1;
    }
    unlink(path);
    mintid_gen *b;
    CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &b), MINTID_OK);
    /* The child goes on once the new state has minted (past its floor, so past the time the child
     * takes to look at the path again), then both mint at once. */
    long nb = 0;
    uint64_t until = mintid__monotonic_ns() + 700000000u;
    while (nb + 64 <= NB && mintid__monotonic_ns() < until) {
        long n = mintid_gen_next_n(b, ids + NA + nb, 64);
        if (n > 0)
            nb += n;
        if (nb > 0 && resume[1] >= 0) {
            CHECK_INT(write(resume[1], "r", 1), 1);
            close(resume[1]);
            resume[1] = -1;
        }
    }
    CHECK(nb > 0);
    if (resume[1] >= 0)
        close(resume[1]); /* the child goes on at the end of the pipe */
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    memmove(ids + *na, ids + NA, (size_t)nb * sizeof *ids);
    size_t d = duplicates(ids, (size_t)(*na + nb));
    if (d != 0)
        fprintf(stderr, "a batch paused while its state was replaced: %zu duplicates\n", d);
    CHECK_U64(d, 0);
    mintid_gen_free(b);
    munmap(ids, (NA + NB) * sizeof *ids);
    munmap(na, sizeof *na);
}

/* A clock whose failure is a status the host-wide state uses itself: no lock is left held. */
static int failing_once;
static int status_clock(void *ctx, int64_t *unix_ms) {
    (void)ctx;
    if (failing_once) {
        failing_once = 0;
        return MINTID_EHOST;
    }
    return mintid_clock_system(NULL, unix_ms);
}

static void test_callback_status(void) {
    const mintid_format *fmt = mintid_format_find("uuidv7");
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.clock = status_clock;
    for (int host = 0; host <= 1; host++) {
        mintid_gen *gen;
        mintid_id id;
        CHECK_INT(host ? mintid_gen_new_host(fmt, &cfg, dir, &gen) : mintid_gen_new(fmt, &cfg, &gen), MINTID_OK);
        CHECK_INT(mintid_gen_next(gen, &id), MINTID_OK);
        failing_once = 1;
        CHECK_INT(mintid_gen_next(gen, &id), MINTID_ECLOCK);
        /* In a child, so that a lock left held shows as a failure, not a hang. */
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            alarm(5);
            if (!host) /* the lock itself, as the parent's next call would take it */
                _exit(mintid_gen_next(gen, &id) == MINTID_EFORKED ? 0 : 1);
            mintid_gen *other;
            mintid_config c;
            mintid_config_init(&c, fmt);
            _exit(mintid_gen_new_host(fmt, &c, dir, &other) == MINTID_OK && mintid_gen_next(other, &id) == MINTID_OK
                      ? 0
                      : 1);
        }
        int st;
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        CHECK_INT(mintid_gen_next(gen, &id), MINTID_OK);
        mintid_gen_free(gen);
    }
}

/*
 * A process whose own clock is an hour behind makes the new state after
 * the old one was deleted: the new state's first 100 ms are on the real
 * clock too, so an ID of the old state is not minted again on the new one.
 */
static int behind_clock(void *ctx, int64_t *unix_ms) {
    (void)ctx;
    *unix_ms = shared_ms - 3600000;
    return MINTID_OK;
}

/*
 * The state deleted after a minted an ID, a new one made by a generator on
 * creator_clock (whose mint, if it tries one, returns creator_rc): c, on
 * the real clock, mints nothing in the new state's first 100 ms (a's state
 * may still be minting them), then mints.
 */
static void check_new_state_made_by(int (*creator_clock)(void *, int64_t *), int creator_rc) {
    const mintid_format *fmt = mintid_format_find("snowflake");
    mintid_config cfg = waiting_config(fmt);
    cfg.clock = shared_clock;
    cfg.max_wait_ms = 5;
    mintid_gen *a, *b, *c;
    mintid_id ia, ib, ic;
    CHECK_INT(mintid_clock_system(NULL, &shared_ms), MINTID_OK);
    CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &a), MINTID_OK);
    /* The clock the IDs carry is the system's (stood still for the test), past the first state's first 100 ms. */
    usleep(3 * MINTID_HOST_CHECK_MS * 1000);
    CHECK_INT(mintid_clock_system(NULL, &shared_ms), MINTID_OK);
    CHECK_INT(mintid_gen_next(a, &ia), MINTID_OK);
    CHECK_INT(unlink(mintid_gen_host_path(a)), 0);
    mintid_config creator = cfg;
    creator.clock = creator_clock;
    CHECK_INT(mintid_gen_new_host(fmt, &creator, dir, &b), MINTID_OK);
    if (creator_rc != MINTID_OK)
        CHECK_INT(mintid_gen_next(b, &ib), creator_rc);
    CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &c), MINTID_OK);
    int rc = mintid_gen_next(c, &ic);
    CHECK(rc != MINTID_OK || memcmp(&ia, &ic, sizeof ia) != 0);
    CHECK_INT(rc, MINTID_ETIMEDOUT); /* the clock has not moved past the new state's first 100 ms */
    shared_ms += 3 * MINTID_HOST_CHECK_MS;
    CHECK_INT(mintid_gen_next(c, &ic), MINTID_OK);
    mintid_gen_free(a);
    mintid_gen_free(b);
    mintid_gen_free(c);
}

static void test_creator_clock_behind(void) { check_new_state_made_by(behind_clock, MINTID_OK); }

/*
 * A process whose clock is past the format's last millisecond (a faked
 * clock's run) makes the new state: it mints nothing, and the state's
 * first 100 ms are taken from the next process's clock, not from the
 * creator's, which would hold every home of the host until then.
 */
static int past_range_clock(void *ctx, int64_t *unix_ms) {
    (void)ctx;
    const mintid_format *fmt = mintid_format_find("snowflake");
    *unix_ms = mintid_format_last_ms(fmt, fmt->epoch_ms) + 86400000;
    return MINTID_OK;
}

static void test_creator_clock_past_range(void) { check_new_state_made_by(past_range_clock, MINTID_ETIME); }

/*
 * A process that cannot look at the path (it dropped its rights) fails,
 * but does not tell the others the state was replaced; a relative
 * directory is refused.
 */
static void test_cannot_look(void) {
    const mintid_format *fmt = mintid_format_find("snowflake");
    mintid_gen *gen;
    mintid_id id;
    CHECK_INT(chmod(dir, 0700), 0);
    CHECK_INT(mintid_gen_new_host(fmt, NULL, dir, &gen), MINTID_OK);
    CHECK_INT(mintid_gen_next(gen, &id), MINTID_OK);
    if (getuid() == 0) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            if (setgid(65534) != 0 || setuid(65534) != 0)
                _exit(9);
            usleep(2 * MINTID_HOST_CHECK_MS * 1000);
            _exit(mintid_gen_next(gen, &id) == MINTID_EHOST ? 0 : 1);
        }
        int st;
        waitpid(pid, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    usleep(2 * MINTID_HOST_CHECK_MS * 1000);
    CHECK_INT(mintid_gen_next(gen, &id), MINTID_OK);
    mintid_gen_free(gen);

    /* A relative directory is refused: processes in other working
     * directories would mint two sequences. */
    char cwd[PATH_MAX];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK_INT(chdir(dir), 0);
    CHECK_INT(mkdir("states", 0755), 0);
    CHECK_INT(mintid_gen_new_host(fmt, NULL, "states", &gen), MINTID_EINVAL);
    CHECK_INT(setenv("MINTID_HOST_DIR", "states", 1), 0);
    CHECK_INT(mintid_gen_new_host(fmt, NULL, NULL, &gen), MINTID_EINVAL);
    char buf[PATH_MAX], why[256];
    CHECK_INT(mintid_env_host_dir(buf, sizeof buf, why, sizeof why), MINTID_EINVAL);
    CHECK(strstr(why, "MINTID_HOST_DIR 'states' is not an absolute path") != NULL);
    CHECK_INT(unsetenv("MINTID_HOST_DIR"), 0);
    CHECK_INT(chdir(cwd), 0);
}

/*
 * A child that takes fmt's lock (cfg's state in dir) and stops itself with
 * it held (SIGSTOP, as a debugger or Ctrl-Z would): its pid, once stopped.
 */
static pid_t stopped_holder(const mintid_format *fmt, const mintid_config *cfg) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        struct mintid__host *h;
        if (mintid__host_open(mintid__impl(fmt), cfg, dir, MINTID_ID_SPACE_DEFAULT, false, &h) != MINTID_OK ||
            mintid__host_lock(h) != MINTID_OK)
            _exit(1);
        raise(SIGSTOP);
        _exit(2);
    }
    int st;
    waitpid(pid, &st, WUNTRACED);
    CHECK(WIFSTOPPED(st));
    return pid;
}

/* A holder stopped with the lock held (SIGSTOP): the others time out, then go on once it dies. */
static void test_stopped_holder(void) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.max_wait_ms = 200;
    mintid_gen *gen;
    mintid_id id;
    CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &gen), MINTID_OK);
    CHECK_INT(mintid_gen_next(gen, &id), MINTID_OK);
    int st;
    pid_t pid = stopped_holder(fmt, &cfg);
    uint64_t t0 = mintid__monotonic_ns();
    CHECK_INT(mintid_gen_next(gen, &id), MINTID_ETIMEDOUT);
    uint64_t waited_ms = (mintid__monotonic_ns() - t0) / 1000000u;
    CHECK(waited_ms + 50 >= MINTID_HOST_LOCK_WAIT_MS && waited_ms < 10 * MINTID_HOST_LOCK_WAIT_MS);
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    CHECK_INT(mintid_gen_next(gen, &id), MINTID_OK);
    mintid_gen_free(gen);
}

/* ---- bad state files and directories --------------------------------------------------- */

static void test_bad_files(void) {
    const mintid_format *fmt = mintid_format_find("uexky");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/mintid-uexky", dir);
    /* A file of the right size but not a state (another version's, say). */
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (fp == NULL)
        return;
    mintid_gen *gen;
    for (int i = 0; i < 4096; i++)
        fputc('x', fp);
    fclose(fp);
    CHECK_INT(mintid_gen_new_host(fmt, NULL, dir, &gen), MINTID_EHOSTSTATE);
    unlink(path);
    /* A directory that does not exist. */
    CHECK_INT(mintid_gen_new_host(fmt, NULL, "/nonexistent/mintid", &gen), MINTID_EHOST);
    CHECK_INT(errno, ENOENT);
    /* A bad configuration is refused before any file is made. */
    mintid_config cfg;
    mintid_config_init(&cfg, mintid_format_find("nanoflake"));
    cfg.node = 1 << 12;
    CHECK_INT(mintid_gen_new_host(mintid_format_find("nanoflake"), &cfg, dir, &gen), MINTID_EINVAL);
    /* Different node ids and epochs are different states. */
    mintid_gen *a, *b;
    cfg.node = 1;
    CHECK_INT(mintid_gen_new_host(mintid_format_find("nanoflake"), &cfg, dir, &a), MINTID_OK);
    cfg.node = 2;
    CHECK_INT(mintid_gen_new_host(mintid_format_find("nanoflake"), &cfg, dir, &b), MINTID_OK);
    CHECK(strcmp(mintid_gen_host_path(a), mintid_gen_host_path(b)) != 0);
    CHECK(mintid_gen_host_path(a) != NULL && strstr(mintid_gen_host_path(a), "-node1-epoch") != NULL);
    mintid_gen_free(a);
    mintid_gen_free(b);
    CHECK_INT(mintid_gen_new(fmt, NULL, &gen), MINTID_OK);
    CHECK(mintid_gen_host_path(gen) == NULL);
    mintid_gen_free(gen);
}

/* ---- across a reboot, and a lock word no process will free ------------------------------- */

/*
 * A reboot, as the state file sees it: its recorded boot id is no longer
 * the kernel's. The file keeps this boot's id as text; it is found and
 * overwritten, so the test needs no knowledge of the layout.
 */
static void forget_boot(const char *path) {
    char boot[64] = "";
    FILE *b = fopen("/proc/sys/kernel/random/boot_id", "r");
    CHECK(b != NULL && fgets(boot, sizeof boot, b) != NULL);
    if (b != NULL)
        fclose(b);
    boot[strcspn(boot, "\n")] = '\0';
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0);
    struct stat sb;
    CHECK_INT(fstat(fd, &sb), 0);
    char *p = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    CHECK(p != MAP_FAILED);
    char *at = memmem(p, (size_t)sb.st_size, boot, strlen(boot));
    CHECK(at != NULL);
    if (at != NULL)
        memset(at, 'x', strlen(boot));
    munmap(p, (size_t)sb.st_size);
    close(fd);
}

/*
 * Every format with too few random bits to keep processes apart mints,
 * the host reboots, and the clock comes back 5 s behind the last ID: the
 * state, found written under another boot, mints nothing until the clock
 * has passed its durable mark, and then only above every ID before.
 * Without the mark (a floor of only the last ID's unit, say, or the state
 * of the last boot taken as it is) the IDs of those 5 s would come again.
 */
/*
 * A run under a clock past the format's last millisecond leaves no mark
 * there: after a reboot (the state's recovery raises its floor past the
 * mark), the real clock still mints.
 */
static void test_past_range_leaves_no_mark(void) {
    const mintid_format *fmt = mintid_format_find("snowflake");
    mintid_config past = waiting_config(fmt);
    past.node = 7;
    past.clock = past_range_clock;
    mintid_gen *g;
    mintid_id id;
    CHECK_INT(mintid_gen_new_host(fmt, &past, dir, &g), MINTID_OK);
    CHECK_INT(mintid_gen_next(g, &id), MINTID_ETIME);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", mintid_gen_host_path(g));
    mintid_gen_free(g);
    forget_boot(path);
    mintid_config now = waiting_config(fmt);
    now.node = 7;
    now.max_wait_ms = 2000;
    CHECK_INT(mintid_gen_new_host(fmt, &now, dir, &g), MINTID_OK);
    CHECK_INT(mintid_gen_next(g, &id), MINTID_OK);
    mintid_gen_free(g);
}

static void test_reboot_with_the_clock_behind(void) {
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = fmt_at(f);
        if (fmt->bits >= 128 && (fmt->node_bits == 0 || fmt->node_optional))
            continue;
        mintid_config cfg = fixed_config(fmt);
        mintid_gen *gen;
        CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &gen), MINTID_OK);
        enum { N = 64 };
        mintid_id before[N];
        int64_t start = fixed_ms + 1000;
        for (int i = 0; i < N; i++) {
            fixed_ms = start + i * 100; /* 6.4 s of IDs */
            CHECK_INT(mintid_gen_next(gen, &before[i]), MINTID_OK);
        }
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s", mintid_gen_host_path(gen));
        mintid_gen_free(gen);

        forget_boot(path);
        fixed_ms = start + (N - 1) * 100 - 5000; /* the clock 5 s behind the last ID */
        CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &gen), MINTID_OK);
        mintid_id after;
        int rc = mintid_gen_next(gen, &after);
        if (rc == MINTID_OK)
            for (int i = 0; i < N; i++)
                if (memcmp(&after, &before[i], sizeof after) == 0)
                    fprintf(stderr, "%s: after the reboot, ID %d came again\n", fmt->name, i);
        CHECK_INT(rc, MINTID_ETIMEDOUT);
        /* Past the last ID but inside the mark: still nothing. */
        fixed_ms = start + (N - 1) * 100 + fmt->ts_unit_ms;
        CHECK_INT(mintid_gen_next(gen, &after), MINTID_ETIMEDOUT);
        /* Past the mark: above everything before. */
        fixed_ms = start + (N - 1) * 100 + 2 * MINTID_HOST_MARK_AHEAD_MS + fmt->ts_unit_ms;
        CHECK_INT(mintid_gen_next(gen, &after), MINTID_OK);
        CHECK(mintid_id_compare(fmt, &after, &before[N - 1]) > 0);
        mintid_gen_free(gen);
    }
}

/* Copies the file at `from` to `to`, as a backup or a snapshot would. */
static void copy_file(const char *from, const char *to) {
    char cmd[3 * PATH_MAX];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
    CHECK_INT(system(cmd), 0);
}

/*
 * A state file copied while a process held its lock (a backup, a
 * snapshot) and put back in another directory: the lock word names that
 * holder, which never frees this copy. A generator on the copy waits out
 * its lock wait once, finds the holder alive but not mapping the copy (or
 * gone), makes the lock anew and mints above every ID of the copy; it is
 * never stalled for good. A holder that does map the file (stopped, say)
 * is never taken for gone: test_stopped_holder.
 */
static void test_copied_while_locked(void) {
    for (int holder_dies = 0; holder_dies < 2; holder_dies++) {
        const mintid_format *fmt = mintid_format_find("snowflake");
        mintid_config cfg = waiting_config(fmt);
        cfg.max_wait_ms = 100;
        mintid_gen *gen;
        CHECK_INT(mintid_gen_new_host(fmt, &cfg, dir, &gen), MINTID_OK);
        mintid_id before;
        usleep(3 * MINTID_HOST_CHECK_MS * 1000); /* past the new state's floor */
        CHECK_INT(mintid_gen_next(gen, &before), MINTID_OK);
        char path[PATH_MAX], copy_dir[PATH_MAX], copy[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s", mintid_gen_host_path(gen));
        snprintf(copy_dir, sizeof copy_dir, "%s/restored%d", dir, holder_dies);
        CHECK_INT(mkdir(copy_dir, 0755), 0);
        snprintf(copy, sizeof copy, "%s/%s", copy_dir, strrchr(path, '/') + 1);

        int ready[2], done[2];
        CHECK_INT(pipe(ready), 0);
        CHECK_INT(pipe(done), 0);
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            struct mintid__host *h;
            if (mintid__host_open(mintid__impl(fmt), &cfg, dir, MINTID_ID_SPACE_DEFAULT, false, &h) != MINTID_OK ||
                mintid__host_lock(h) != MINTID_OK)
                _exit(1);
            char c = 'x';
            if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) < 0)
                _exit(2);
            mintid__host_unlock(h);
            _exit(0);
        }
        char c;
        CHECK_INT((int)read(ready[0], &c, 1), 1);
        copy_file(path, copy);
        if (holder_dies) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
        }
        mintid_gen *restored;
        CHECK_INT(mintid_gen_new_host(fmt, &cfg, copy_dir, &restored), MINTID_OK);
        /* The first call waits out the lock (MINTID_HOST_LOCK_WAIT_MS); the
         * recovered state mints past the copy's mark, at most
         * MINTID_HOST_MARK_AHEAD_MS on. */
        mintid_id after;
        int rc = MINTID_ETIMEDOUT;
        for (int tries = 0; rc == MINTID_ETIMEDOUT && tries < 2 * MINTID_HOST_MARK_AHEAD_MS / 100; tries++)
            rc = mintid_gen_next(restored, &after);
        CHECK_INT(rc, MINTID_OK);
        CHECK(mintid_id_compare(fmt, &after, &before) > 0);
        CHECK_INT(mintid_gen_next(restored, &after), MINTID_OK);
        mintid_gen_free(restored);
        if (!holder_dies) {
            CHECK_INT((int)write(done[1], "x", 1), 1);
            int st;
            waitpid(pid, &st, 0);
            CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
        close(ready[0]);
        close(ready[1]);
        close(done[0]);
        close(done[1]);
        mintid_gen_free(gen);
    }
}

/* The id space names the state: other spaces mint apart, the default keeps the old names. */
static void test_id_spaces(void) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    mintid_host_options o;
    mintid_host_options_init(&o);
    o.dir = dir;
    mintid_gen *a, *b;
    CHECK_INT(mintid_gen_open_host(fmt, NULL, &o, &a), MINTID_OK);
    o.id_space = "tenant-2";
    CHECK_INT(mintid_gen_open_host(fmt, NULL, &o, &b), MINTID_OK);
    CHECK(strstr(mintid_gen_host_path(a), "-space-") == NULL);
    CHECK(strstr(mintid_gen_host_path(b), "-space-tenant-2") != NULL);
    mintid_gen_free(a);
    mintid_gen_free(b);
    o.id_space = "a/b";
    CHECK_INT(mintid_gen_open_host(fmt, NULL, &o, &a), MINTID_EINVAL);
    /* The environment, as every face reads it. */
    CHECK_INT(setenv("MINTID_ID_SPACE", "tenant-2", 1), 0);
    CHECK_INT(mintid_gen_new_host(fmt, NULL, dir, &a), MINTID_OK);
    CHECK(strstr(mintid_gen_host_path(a), "-space-tenant-2") != NULL);
    mintid_gen_free(a);
    char why[256], buf[MINTID_ID_SPACE_MAX + 1];
    CHECK_INT(setenv("MINTID_ID_SPACE", "no spaces", 1), 0);
    CHECK_INT(mintid_gen_new_host(fmt, NULL, dir, &a), MINTID_EINVAL);
    CHECK_INT(mintid_env_id_space(buf, sizeof buf, why, sizeof why), MINTID_EINVAL);
    CHECK(strstr(why, "MINTID_ID_SPACE 'no spaces'") != NULL);
    CHECK_INT(unsetenv("MINTID_ID_SPACE"), 0);
    int64_t node;
    CHECK_INT(setenv("MINTID_NODE", "1024", 1), 0);
    CHECK_INT(mintid_env_node(fmt, &node, why, sizeof why), MINTID_EINVAL);
    CHECK(strstr(why, "MINTID_NODE: node 1024 is out of range: nanoflake's node ids are 0..1023") != NULL);
    CHECK_INT(setenv("MINTID_NODE", "7", 1), 0);
    CHECK_INT(mintid_env_node(fmt, &node, why, sizeof why), MINTID_OK);
    CHECK_INT((int)node, 7);
    CHECK_INT(unsetenv("MINTID_NODE"), 0);
    CHECK_INT(mintid_env_node(fmt, &node, why, sizeof why), MINTID_OK);
    CHECK_INT((int)node, -1);
}

static uint64_t boottime_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int64_t now_ms(void) {
    int64_t t = 0;
    mintid_clock_system(NULL, &t);
    return t;
}

/* A pid that was a process of ours and is gone. */
static int64_t gone_pid(void) {
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    return pid;
}

/* The time of an ID of nanoflake under its default epoch. */
static int64_t id_ms(const mintid_id *id) {
    return mintid_id_unix_ms(mintid_format_find("nanoflake"), id, MINTID_NANOFLAKE_DEFAULT_EPOCH);
}

/*
 * mintidd's warrant binds every other generator of the state (here another
 * generator of this process, as another home would be): its ceiling, its
 * deadline, its floor; a lapsed one whose holder is gone is set aside only
 * for a node id not leased; the holder's own generator mints past it.
 */
static void test_warrant(void) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    mintid_host_options o;
    mintid_host_options_init(&o);
    o.dir = dir;
    mintid_config cfg = waiting_config(fmt);
    cfg.node = 3;
    mintid_gen *server, *home;
    CHECK_INT(mintid_gen_open_host(fmt, &cfg, &o, &server), MINTID_OK);
    CHECK_INT(mintid_gen_open_host(fmt, &cfg, &o, &home), MINTID_OK);
    mintid_id id;
    CHECK_INT(mintid_gen_next(home, &id), MINTID_OK); /* no warrant: as before */

    mintid_warrant w;
    mintid_warrant_init(&w);
    w.pid = getpid();
    w.ceiling_ms = now_ms() + 60000;
    w.until_ns = boottime_now_ns() + 60000000000u;
    CHECK_INT(mintid_gen_warrant(server, &w), MINTID_OK);
    CHECK_INT(mintid_gen_next(home, &id), MINTID_OK);
    int64_t minted = id_ms(&id);
    CHECK_INT(mintid_gen_warrant(server, &w), MINTID_OK);
    CHECK(w.asked_ms >= minted);

    /* The server's mark behind the clock: the others stop, the holder goes on. */
    w.ceiling_ms = now_ms() - 1000;
    CHECK_INT(mintid_gen_warrant(server, &w), MINTID_OK);
    CHECK_INT(mintid_gen_next(home, &id), MINTID_EWARRANT);
    CHECK(strstr(mintid_host_why(), "mark on disk") != NULL);
    CHECK_INT(mintid_gen_next(server, &id), MINTID_OK);

    /* The floor: nothing at or before it, for every generator. */
    w.ceiling_ms = now_ms() + 60000;
    w.floor_ms = now_ms() + 150;
    CHECK_INT(mintid_gen_warrant(server, &w), MINTID_OK);
    CHECK_INT(mintid_gen_next(home, &id), MINTID_OK);
    CHECK(id_ms(&id) > w.floor_ms);
    w.floor_ms = INT64_MIN;

    /* Lapsed, its holder alive: the others stop. */
    w.until_ns = boottime_now_ns() - 1;
    CHECK_INT(mintid_gen_warrant(server, &w), MINTID_OK);
    CHECK_INT(mintid_gen_next(home, &id), MINTID_EWARRANT);
    CHECK(strstr(mintid_host_why(), "has not renewed its warrant") != NULL);
    CHECK_INT(mintid_gen_next(server, &id), MINTID_OK);

    /* Lapsed and its holder gone: set aside for a static node id only. */
    mintid_gen_free(server);
    CHECK_INT(mintid_gen_open_host(fmt, &cfg, &o, &server), MINTID_OK);
    w.pid = gone_pid();
    w.leased = 1;
    CHECK_INT(mintid_gen_warrant(server, &w), MINTID_OK);
    CHECK_INT(mintid_gen_next(home, &id), MINTID_EWARRANT);
    CHECK(strstr(mintid_host_why(), "lease") != NULL);
    w.leased = 0;
    CHECK_INT(mintid_gen_warrant(server, &w), MINTID_OK);
    CHECK_INT(mintid_gen_next(home, &id), MINTID_OK);

    /* Withdrawn: static gone, leased lapsed. */
    w.pid = getpid();
    w.until_ns = boottime_now_ns() + 60000000000u;
    CHECK_INT(mintid_gen_warrant(server, &w), MINTID_OK);
    CHECK_INT(mintid_gen_warrant(server, NULL), MINTID_OK);
    CHECK_INT(mintid_gen_next(home, &id), MINTID_OK);
    w.leased = 1;
    CHECK_INT(mintid_gen_warrant(server, &w), MINTID_OK);
    CHECK_INT(mintid_gen_next(home, &id), MINTID_OK);
    CHECK_INT(mintid_gen_warrant(server, NULL), MINTID_OK);
    CHECK_INT(mintid_gen_next(home, &id), MINTID_EWARRANT);

    /* A state file made new (the old one deleted) keeps the warrant: the
     * lapsed one of a leased node id still stops the homes. */
    CHECK_INT(mintid_gen_warrant(server, &w), MINTID_OK);
    CHECK_INT(mintid_gen_warrant(server, NULL), MINTID_OK);
    CHECK_INT(mintid_gen_next(home, &id), MINTID_EWARRANT);
    CHECK_INT(unlink(mintid_gen_host_path(home)), 0);
    usleep(2 * MINTID_HOST_CHECK_MS * 1000); /* the next call looks at the path */
    CHECK_INT(mintid_gen_next(home, &id), MINTID_EWARRANT);

    /* Only host-wide generators of a format with a node field. */
    mintid_gen *plain;
    CHECK_INT(mintid_gen_new(fmt, &cfg, &plain), MINTID_OK);
    CHECK_INT(mintid_gen_warrant(plain, &w), MINTID_EINVAL);
    mintid_gen_free(plain);
    mintid_gen_free(server);
    mintid_gen_free(home);
}

/*
 * Node host: the node id and epoch come from the server's node file, and
 * the generator mints in the server's sequence only under its warrant.
 */
static void test_node_host(void) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    mintid_host_options o;
    mintid_host_options_init(&o);
    o.dir = dir;
    mintid_config cfg = waiting_config(fmt);
    cfg.node = MINTID_NODE_HOST;
    mintid_gen *home, *server;
    CHECK_INT(mintid_gen_open_host(fmt, &cfg, &o, &home), MINTID_EWARRANT);
    CHECK(strstr(mintid_host_why(), "no mintidd publishes its node id") != NULL);
    CHECK_INT(mintid_gen_new(fmt, &cfg, &home), MINTID_EINVAL); /* a process generator has no host */

    int64_t epoch = MINTID_NANOFLAKE_DEFAULT_EPOCH + 1000;
    mintid_host_node nodes[] = {{mintid_format_find("snowflake"), 9, 1288834974657}, {fmt, 7, epoch}};
    CHECK_INT(mintid_host_publish(&o, getpid(), nodes, 2), MINTID_OK);
    CHECK_INT(mintid_gen_open_host(fmt, &cfg, &o, &home), MINTID_OK);
    CHECK_INT((int)mintid_gen_config(home)->node, 7);
    CHECK(mintid_gen_config(home)->epoch_ms == epoch);
    mintid_id id;
    CHECK_INT(mintid_gen_next(home, &id), MINTID_EWARRANT);
    CHECK(strstr(mintid_host_why(), "no mintidd holds node 7") != NULL);

    mintid_config scfg = waiting_config(fmt);
    scfg.node = 7;
    scfg.epoch_ms = epoch;
    CHECK_INT(mintid_gen_open_host(fmt, &scfg, &o, &server), MINTID_OK);
    CHECK_INT(strcmp(mintid_gen_host_path(server), mintid_gen_host_path(home)), 0);
    mintid_warrant w;
    mintid_warrant_init(&w);
    w.pid = getpid();
    w.ceiling_ms = now_ms() + 60000;
    w.until_ns = boottime_now_ns() + 60000000000u;
    CHECK_INT(mintid_gen_warrant(server, &w), MINTID_OK);
    /* One sequence, whichever mints. */
    mintid_id prev, next;
    CHECK_INT(mintid_gen_next(server, &prev), MINTID_OK);
    for (int i = 0; i < 20000; i++) {
        CHECK_INT(mintid_gen_next(i % 3 == 0 ? server : home, &next), MINTID_OK);
        CHECK(mintid_id_compare(fmt, &prev, &next) < 0);
        prev = next;
    }
    /* A home with a node id of its own does not need the server. */
    CHECK_INT(mintid_gen_warrant(server, NULL), MINTID_OK);
    CHECK_INT(mintid_gen_next(home, &id), MINTID_EWARRANT);
    mintid_gen_free(server);
    mintid_gen_free(home);

    /* A format the server does not publish; a file that is not one. */
    cfg = waiting_config(mintid_format_find("sonyflake"));
    cfg.node = MINTID_NODE_HOST;
    CHECK_INT(mintid_gen_open_host(mintid_format_find("sonyflake"), &cfg, &o, &home), MINTID_EWARRANT);
    CHECK(strstr(mintid_host_why(), "does not mint sonyflake") != NULL);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/mintid-node", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("node 7\n", f);
    fclose(f);
    cfg = waiting_config(fmt);
    cfg.node = MINTID_NODE_HOST;
    CHECK_INT(mintid_gen_open_host(fmt, &cfg, &o, &home), MINTID_EHOSTSTATE);
    /* What another user may leave at the name in a shared directory: refused, never waited on. */
    CHECK_INT(unlink(path), 0);
    CHECK_INT(mkfifo(path, 0644), 0);
    CHECK_INT(mintid_gen_open_host(fmt, &cfg, &o, &home), MINTID_EHOSTSTATE);
    CHECK_INT(unlink(path), 0);
    CHECK_INT(mintid_host_publish(&o, getpid(), nodes, 2), MINTID_OK);
    CHECK_INT(chmod(path, 0666), 0);
    CHECK_INT(mintid_gen_open_host(fmt, &cfg, &o, &home), MINTID_EHOSTSTATE);
    /* The environment's word for it. */
    int64_t node;
    char why[256];
    CHECK_INT(setenv("MINTID_NODE", "host", 1), 0);
    CHECK_INT(mintid_env_node(fmt, &node, why, sizeof why), MINTID_OK);
    CHECK_INT((int)node, MINTID_NODE_HOST);
    CHECK_INT(mintid_env_node(mintid_format_find("scru160"), &node, why, sizeof why), MINTID_EINVAL);
    CHECK_INT(unsetenv("MINTID_NODE"), 0);
}

/*
 * A generator that never waits for the lock (an event loop's): a holder
 * stopped with the lock makes every call fail at once with MINTID_EBUSY,
 * naming it, and the calls after the holder is gone mint again; the
 * statistics and the warrant do not wait either.
 */
static void test_try_lock(void) {
    const mintid_format *fmt = mintid_format_find("nanoflake");
    mintid_config cfg = waiting_config(fmt);
    mintid_host_options o;
    mintid_host_options_init(&o);
    o.dir = dir;
    o.try_lock = 1;
    mintid_gen *gen;
    mintid_id id;
    CHECK_INT(mintid_gen_open_host(fmt, &cfg, &o, &gen), MINTID_OK);
    CHECK_INT(mintid_gen_next(gen, &id), MINTID_OK);
    int st;
    pid_t pid = stopped_holder(fmt, &cfg);
    /* EBUSY, not the ETIMEDOUT of a call that waited its MINTID_HOST_LOCK_WAIT_MS. */
    for (int i = 0; i < 100; i++)
        CHECK_INT(mintid_gen_next(gen, &id), MINTID_EBUSY);
    CHECK(strstr(mintid_host_why(), "another process holds the lock") != NULL);
    mintid_gen_stats stats;
    mintid_gen_get_stats(gen, &stats);
    CHECK(stats.last_unix_ms == -2 && stats.issued == 0); /* not read, not waited for */
    mintid_warrant w;
    mintid_warrant_init(&w);
    w.pid = getpid();
    w.until_ns = boottime_now_ns() + 60000000000u;
    CHECK_INT(mintid_gen_warrant(gen, &w), MINTID_EBUSY); /* a renewal: tried again later */
    w.until_ns = 0;
    CHECK_INT(mintid_gen_warrant(gen, &w), MINTID_ETIMEDOUT); /* a lapse waits for the lock, and says it could not */
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    CHECK_INT(mintid_gen_next(gen, &id), MINTID_OK);
    mintid_gen_free(gen);
}

/* Every test, or (test_host NAME...) those whose names hold one of the NAMEs. */
int main(int argc, char **argv) {
#define T(name)                                                                                                        \
    { #name, name }
    static const struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        T(test_processes_share_one_sequence),
        T(test_forked_children_go_on),
        T(test_threads),
        T(test_holder_killed_mid_mint),
        T(test_state_deleted),
        T(test_state_replaced_by_garbage),
        T(test_bad_files),
        T(test_moved_call_uses_the_new_state),
        T(test_threads_while_deleted),
        T(test_batch_paused_while_replaced),
        T(test_callback_status),
        T(test_creator_clock_behind),
        T(test_creator_clock_past_range),
        T(test_past_range_leaves_no_mark),
        T(test_cannot_look),
        T(test_stopped_holder),
        T(test_reboot_with_the_clock_behind),
        T(test_copied_while_locked),
        T(test_id_spaces),
        T(test_warrant),
        T(test_node_host),
        T(test_try_lock),
    };
#undef T
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        bool wanted = argc < 2;
        for (int a = 1; a < argc; a++)
            wanted |= strstr(tests[i].name, argv[a]) != NULL;
        if (!wanted)
            continue;
        make_dir();
        tests[i].fn();
        remove_dir();
    }
    return CHECK_DONE();
}
