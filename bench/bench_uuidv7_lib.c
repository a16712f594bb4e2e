/* SPDX-License-Identifier: MIT */
/*
 * bench_uuidv7_lib.c - mintid's library against uuidv7-h, and against a
 * minimal Snowflake, in one process.
 *
 * Two groups of rows, each set against a baseline measured in the same
 * process, round-robin with it (every row once per round, the order turning
 * by one each round), so that load from elsewhere falls on all alike; the
 * median of the rounds is printed.
 *
 * uuidv7: LiosK's uuidv7-h (uuidv7.h), included from ../shared/vendor/
 *   relative to the project root when it is there (bench/CMakeLists.txt
 *   says whether it was found; without it these baselines are skipped).
 *   Its loop does per ID what ../shared/vendor/ref-uuidv7.c does: one
 *   clock_gettime(CLOCK_REALTIME), uuidv7_generate() with the previous UUID
 *   and random bytes from a 4096-byte pool refilled by one getrandom()
 *   when fewer than 10 bytes are left, then uuidv7_to_string(). Against it:
 *   mintid_gen_next() + mintid_encode() per ID, and mintid_gen_next_n() of
 *   4096 + mintid_encode() of each. Every text row writes its lines,
 *   newline-terminated, into one 64 KiB buffer that starts over when full,
 *   as a tool writing lines would (without the write itself); the "gen
 *   only" rows leave the text out.
 *
 * nanoflake: a minimal Snowflake written here from the Nanoflakes spec
 *   (41-bit ms timestamp since the epoch, 10-bit generator id, 12-bit
 *   sequence; one clock_gettime(CLOCK_REALTIME) per ID; the sequence reset
 *   on a new millisecond; on overflow, or a clock behind the last ID, it
 *   spins until the clock reaches the next millisecond, as Snowflake does),
 *   one ID per call and 4096 per call, against mintid_gen_next_u64() with
 *   n = 1 and n = 4096. Both are capped at 4096 IDs per ms, so at the real
 *   clock both read ~1.0 of the cap and the difference is in the CPU they
 *   spend (the Snowflake spins through the rest of each millisecond; mintid
 *   sleeps to its boundary). The "clock x1000" rows show the per-ID cost
 *   the cap hides: both read the same clock_gettime() but count each
 *   microsecond as a millisecond (through mintid_config.clock for mintid),
 *   so neither ever runs out of sequence.
 *
 * Columns: M IDs/s (wall), ns of thread CPU per ID, and two ratios to the
 * group's baseline, each > 1 when the row is better: x base (IDs/s / the
 * baseline's) and cpu x (the baseline's CPU per ID / the row's).
 * Nothing here asserts a threshold; timing is information.
 */
#include "mintid.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#ifdef MINTID_BENCH_UUIDV7_H
/* uuidv7-h's own header, from ../shared/vendor/ (not part of the project). */
#include "uuidv7.h"
#endif

#define BATCH 4096
#define MAX_ROUNDS 99
#define DEFAULT_SECONDS 0.5
#define DEFAULT_ROUNDS 7
#define TEXT_BUF (1 << 16)
#define NANOFLAKE_EPOCH MINTID_NANOFLAKE_DEFAULT_EPOCH

static volatile unsigned bench_sink;

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, int rc) {
    fprintf(stderr, "bench_uuidv7_lib: %s: %s (%s)\n", what, mintid_strerror(rc), mintid_status_name(rc));
    exit(1);
}

/* ---- clocks --------------------------------------------------------------------------------- */

/* Unix ms from CLOCK_REALTIME, as a minimal generator reads it. */
static inline int64_t real_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The same clock read, each microsecond counted as a millisecond from the
 * moment of fast_base: a clock a thousand times fast, so that a 4096-per-ms
 * cap is never reached. Its value starts at the real Unix ms of that moment.
 */
static int64_t fast_base_us, fast_base_ms;

static void fast_clock_reset(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    fast_base_us = (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
    fast_base_ms = fast_base_us / 1000;
}

static inline int64_t fast_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return fast_base_ms + ((int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 - fast_base_us);
}

static int fast_clock(void *ctx, int64_t *unix_ms) {
    (void)ctx;
    *unix_ms = fast_ms();
    return MINTID_OK;
}

/* ---- a minimal Snowflake, from the Nanoflakes spec ------------------------------------------- */

typedef struct snowflake {
    int64_t last_ms; /* ms since the epoch of the last ID; -1 before the first */
    uint64_t seq;
    uint64_t node;
    bool fast; /* fast_ms() instead of real_ms() */
} snowflake;

static inline int64_t sf_now(const snowflake *s) { return (s->fast ? fast_ms() : real_ms()) - NANOFLAKE_EPOCH; }

static inline uint64_t sf_next(snowflake *s) {
    int64_t ts = sf_now(s);
    if (ts < s->last_ms) {
        /* The clock went back: wait until it catches up. */
        while (ts < s->last_ms)
            ts = sf_now(s);
    }
    if (ts == s->last_ms) {
        s->seq = (s->seq + 1) & 0xfff;
        if (s->seq == 0) {
            /* The millisecond's 4096 are used up: wait for the next one. */
            while (ts <= s->last_ms)
                ts = sf_now(s);
        }
    } else {
        s->seq = 0;
    }
    s->last_ms = ts;
    return (uint64_t)ts << 22 | s->node << 12 | s->seq;
}

/* Not inlined, so that "per call" pays a call, as a library's function would. */
static __attribute__((noinline)) uint64_t sf_next_call(snowflake *s) { return sf_next(s); }

static __attribute__((noinline)) void sf_next_n(snowflake *s, uint64_t *out, size_t n) {
    for (size_t i = 0; i < n; i++)
        out[i] = sf_next(s);
}

/* ---- uuidv7-h with a clock and a random pool, as ref-uuidv7.c drives it ----------------------- */

#ifdef MINTID_BENCH_UUIDV7_H
#define REF_POOL 4096

typedef struct ref_state {
    uint8_t prev[16];
    uint8_t pool[REF_POOL];
    size_t used; /* bytes of pool handed out; REF_POOL: empty */
} ref_state;

static void ref_fill(uint8_t *buf, size_t len) {
    while (len > 0) {
        ssize_t n = getrandom(buf, len, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            perror("bench_uuidv7_lib: getrandom");
            exit(1);
        }
        buf += n;
        len -= (size_t)n;
    }
}

static __attribute__((noinline)) int ref_new(ref_state *r, uint8_t out[16]) {
    int64_t ms = real_ms();
    if (r->used > REF_POOL - 10) {
        ref_fill(r->pool, r->used);
        r->used = 0;
    }
    int8_t st = uuidv7_generate(r->prev, (uint64_t)ms, &r->pool[r->used], r->prev);
    r->used += (size_t)uuidv7_status_n_rand_consumed(st);
    memcpy(out, r->prev, 16);
    return st;
}
#endif

/* ---- rows ------------------------------------------------------------------------------------ */

typedef enum kind {
    K_REF_TEXT,   /* uuidv7-h: generate + to_string per ID */
    K_REF_GEN,    /* uuidv7-h: generate only */
    K_NEXT_TEXT,  /* mintid_gen_next + mintid_encode per ID */
    K_NEXTN_TEXT, /* mintid_gen_next_n x4096 + mintid_encode */
    K_NEXTN,      /* mintid_gen_next_n x4096, no text */
    K_NEXT,       /* mintid_gen_next per ID, no text */
    K_SF_CALL,    /* Snowflake, one ID per call */
    K_SF_BATCH,   /* Snowflake, 4096 per call */
    K_U64_CALL,   /* mintid_gen_next_u64, n = 1 */
    K_U64_BATCH   /* mintid_gen_next_u64, n = 4096 */
} kind;

typedef struct row {
    const char *name;
    kind kind;
    mintid_format_id format;
    bool fast;            /* the clock x1000 */
    unsigned per_reading; /* mintid_config.ids_per_reading (0: the default) */
    bool is_base;         /* a baseline: the rows after it, up to the next one, are set against it */
    int base;             /* index of the row's baseline; itself for a baseline */
    bool available;       /* false: skipped (no uuidv7-h) */
    bool ran;
    double rate[MAX_ROUNDS], cpu_ns[MAX_ROUNDS];
    double rate_med, cpu_med;
} row;

static mintid_gen *new_gen(mintid_format_id id, bool fast, unsigned per_reading) {
    const mintid_format *fmt = mintid_format_get(id);
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    if (fast)
        cfg.clock = fast_clock;
    if (per_reading != 0)
        cfg.ids_per_reading = per_reading;
    mintid_gen *gen;
    int rc = mintid_gen_new(fmt, &cfg, &gen);
    if (rc != MINTID_OK)
        die(fmt->name, rc);
    return gen;
}

/* One run of a row for about `seconds`; sets *rate (IDs/s) and *cpu_ns (per ID). */
static void run(row *r, double seconds, double *rate, double *cpu_ns) {
    static mintid_id ids[BATCH];
    static uint64_t u64s[BATCH];
    static char text[TEXT_BUF];
    const mintid_format *fmt = mintid_format_get(r->format);
    mintid_gen *gen = NULL;
    snowflake sf = {.last_ms = -1, .node = 7, .fast = r->fast};
#ifdef MINTID_BENCH_UUIDV7_H
    static ref_state ref;
    memset(ref.prev, 0, sizeof ref.prev);
    ref.used = REF_POOL;
    uint8_t uuid[16];
#endif
    fast_clock_reset();
    if (r->kind == K_NEXT_TEXT || r->kind == K_NEXTN_TEXT || r->kind == K_NEXTN || r->kind == K_NEXT ||
        r->kind == K_U64_CALL || r->kind == K_U64_BATCH)
        gen = new_gen(r->format, r->fast, r->per_reading);
    uint64_t count = 0;
    size_t pos = 0;
    unsigned sink = 0;
    double cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID), t0 = clock_s(CLOCK_MONOTONIC), t1;
    double end = t0 + seconds;
    /* Every pass mints BATCH IDs, one way or another; the time is read once per pass. */
    do {
        switch (r->kind) {
        case K_REF_TEXT:
#ifdef MINTID_BENCH_UUIDV7_H
            for (int i = 0; i < BATCH; i++) {
                if (pos > TEXT_BUF - 64)
                    pos = 0;
                if (ref_new(&ref, uuid) < 0)
                    die("uuidv7_generate", MINTID_ETIME);
                uuidv7_to_string(uuid, text + pos);
                text[pos + 36] = '\n';
                pos += 37;
            }
#endif
            break;
        case K_REF_GEN:
#ifdef MINTID_BENCH_UUIDV7_H
            for (int i = 0; i < BATCH; i++) {
                if (ref_new(&ref, uuid) < 0)
                    die("uuidv7_generate", MINTID_ETIME);
                sink += uuid[15];
            }
#endif
            break;
        case K_NEXT_TEXT:
            for (int i = 0; i < BATCH; i++) {
                if (pos > TEXT_BUF - 64)
                    pos = 0;
                int rc = mintid_gen_next(gen, &ids[0]);
                if (rc != MINTID_OK)
                    die("mintid_gen_next", rc);
                int n = mintid_encode(fmt, MINTID_FORM_TEXT, &ids[0], text + pos, TEXT_BUF - pos);
                if (n < 0)
                    die("mintid_encode", n);
                text[pos + (size_t)n] = '\n';
                pos += (size_t)n + 1;
            }
            break;
        case K_NEXT:
            for (int i = 0; i < BATCH; i++) {
                int rc = mintid_gen_next(gen, &ids[0]);
                if (rc != MINTID_OK)
                    die("mintid_gen_next", rc);
                sink += ids[0].bytes[15];
            }
            break;
        case K_NEXTN_TEXT:
        case K_NEXTN: {
            long got = mintid_gen_next_n(gen, ids, BATCH);
            if (got != BATCH)
                die("mintid_gen_next_n", got < 0 ? (int)got : MINTID_EINVAL);
            if (r->kind == K_NEXTN) {
                sink += ids[BATCH - 1].bytes[15];
                break;
            }
            for (int i = 0; i < BATCH; i++) {
                if (pos > TEXT_BUF - 64)
                    pos = 0;
                int n = mintid_encode(fmt, MINTID_FORM_TEXT, &ids[i], text + pos, TEXT_BUF - pos);
                if (n < 0)
                    die("mintid_encode", n);
                text[pos + (size_t)n] = '\n';
                pos += (size_t)n + 1;
            }
            break;
        }
        case K_SF_CALL:
            for (int i = 0; i < BATCH; i++)
                sink += (unsigned)sf_next_call(&sf);
            break;
        case K_SF_BATCH:
            sf_next_n(&sf, u64s, BATCH);
            sink += (unsigned)u64s[BATCH - 1];
            break;
        case K_U64_CALL:
            for (int i = 0; i < BATCH; i++) {
                long got = mintid_gen_next_u64(gen, &u64s[0], 1);
                if (got != 1)
                    die("mintid_gen_next_u64", got < 0 ? (int)got : MINTID_EINVAL);
                sink += (unsigned)u64s[0];
            }
            break;
        case K_U64_BATCH: {
            long got = mintid_gen_next_u64(gen, u64s, BATCH);
            if (got != BATCH)
                die("mintid_gen_next_u64", got < 0 ? (int)got : MINTID_EINVAL);
            sink += (unsigned)u64s[BATCH - 1];
            break;
        }
        }
        count += BATCH;
        t1 = clock_s(CLOCK_MONOTONIC);
    } while (t1 < end);
    double cpu1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    sink += (unsigned char)text[pos > 2 ? pos - 2 : 0];
    bench_sink += sink;
    mintid_gen_free(gen);
    *rate = (double)count / (t1 - t0);
    *cpu_ns = (cpu1 - cpu0) * 1e9 / (double)count;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n) {
    double s[MAX_ROUNDS];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static void usage(FILE *out) {
    fprintf(out, "usage: bench_uuidv7_lib [--seconds S] [--rounds N] [--group uuidv7|nanoflake] [--row TEXT]\n"
                 "  --seconds S   length of one measurement (default 0.5, 0.01..60)\n"
                 "  --rounds N    rounds; the median is printed (default 7, 1..99)\n"
                 "  --group G     only the uuidv7 rows or only the nanoflake rows\n"
                 "  --row TEXT    only the rows whose name contains TEXT (to profile one loop)\n");
}

int main(int argc, char **argv) {
    double seconds = DEFAULT_SECONDS;
    int rounds = DEFAULT_ROUNDS;
    const char *group = NULL, *only = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--seconds") == 0 && v != NULL) {
            seconds = strtod(v, &end);
            if (*end != '\0' || !(seconds >= 0.01 && seconds <= 60)) {
                fprintf(stderr, "bench_uuidv7_lib: --seconds '%s' is not a number from 0.01 to 60\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(argv[i], "--rounds") == 0 && v != NULL) {
            long n = strtol(v, &end, 10);
            if (*end != '\0' || n < 1 || n > MAX_ROUNDS) {
                fprintf(stderr, "bench_uuidv7_lib: --rounds '%s' is not a whole number from 1 to %d\n", v, MAX_ROUNDS);
                return 2;
            }
            rounds = (int)n;
            i++;
        } else if (strcmp(argv[i], "--group") == 0 && v != NULL &&
                   (strcmp(v, "uuidv7") == 0 || strcmp(v, "nanoflake") == 0)) {
            group = v;
            i++;
        } else if (strcmp(argv[i], "--row") == 0 && v != NULL) {
            only = v;
            i++;
        } else {
            fprintf(stderr, "bench_uuidv7_lib: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }

#ifdef MINTID_BENCH_UUIDV7_H
    const bool have_ref = true;
#else
    const bool have_ref = false;
#endif
    /* A baseline (is_base) is the base of the rows after it, up to the next baseline. */
#define ROWR(n_, k_, f_, fast_, per_, is_base_, avail_)                                                                \
    {.name = (n_),                                                                                                     \
     .kind = (k_),                                                                                                     \
     .format = (f_),                                                                                                   \
     .fast = (fast_),                                                                                                  \
     .per_reading = (per_),                                                                                            \
     .is_base = (is_base_),                                                                                            \
     .available = (avail_)}
#define ROW(n_, k_, f_, fast_, is_base_, avail_) ROWR(n_, k_, f_, fast_, 0, is_base_, avail_)
    row all[] = {
        ROW("uuidv7-h: generate + to_string", K_REF_TEXT, MINTID_UUIDV7, false, true, have_ref),
        ROW("mintid uuidv7: next + encode", K_NEXT_TEXT, MINTID_UUIDV7, false, false, true),
        ROW("mintid uuidv7: next_n x4096 + encode", K_NEXTN_TEXT, MINTID_UUIDV7, false, false, true),
        ROW("mintid scru160: next_n x4096 + encode", K_NEXTN_TEXT, MINTID_SCRU160, false, false, true),
        ROWR("mintid scru160: same, 64 IDs/reading", K_NEXTN_TEXT, MINTID_SCRU160, false, 64, false, true),
        ROW("uuidv7-h: generate only", K_REF_GEN, MINTID_UUIDV7, false, true, have_ref),
        ROW("mintid uuidv7: next only", K_NEXT, MINTID_UUIDV7, false, false, true),
        ROW("mintid uuidv7: next_n x4096 only", K_NEXTN, MINTID_UUIDV7, false, false, true),
        ROW("mintid scru160: next_n x4096 only", K_NEXTN, MINTID_SCRU160, false, false, true),
        ROWR("mintid scru160: same, 64 IDs/reading", K_NEXTN, MINTID_SCRU160, false, 64, false, true),
        ROW("snowflake: one per call", K_SF_CALL, MINTID_NANOFLAKE, false, true, true),
        ROW("mintid nanoflake: next_u64 x1", K_U64_CALL, MINTID_NANOFLAKE, false, false, true),
        ROW("snowflake: 4096 per call", K_SF_BATCH, MINTID_NANOFLAKE, false, true, true),
        ROW("mintid nanoflake: next_u64 x4096", K_U64_BATCH, MINTID_NANOFLAKE, false, false, true),
        ROW("clock x1000 snowflake: one per call", K_SF_CALL, MINTID_NANOFLAKE, true, true, true),
        ROW("clock x1000 mintid: next_u64 x1", K_U64_CALL, MINTID_NANOFLAKE, true, false, true),
        ROW("clock x1000 snowflake: 4096 per call", K_SF_BATCH, MINTID_NANOFLAKE, true, true, true),
        ROW("clock x1000 mintid: next_u64 x4096", K_U64_BATCH, MINTID_NANOFLAKE, true, false, true),
    };
#undef ROWR
#undef ROW
    const int nall = (int)(sizeof all / sizeof all[0]);
    int first_nanoflake = nall;
    for (int i = 0, base = 0; i < nall; i++) {
        if (all[i].is_base)
            base = i;
        all[i].base = base;
        if (all[i].format == MINTID_NANOFLAKE && i < first_nanoflake)
            first_nanoflake = i;
    }

    /* The rows run: those of the group asked for, and available. */
    int order[sizeof all / sizeof all[0]], n = 0;
    for (int i = 0; i < nall; i++) {
        bool nano = i >= first_nanoflake;
        if (group != NULL && (strcmp(group, "nanoflake") == 0) != nano)
            continue;
        if (only != NULL && strstr(all[i].name, only) == NULL)
            continue;
        if (all[i].available)
            order[n++] = i;
    }

    printf("mintid %s bench_uuidv7_lib: %.2f s per measurement, median of %d interleaved rounds, %ld CPUs online\n",
           MINTID_VERSION_STRING, seconds, rounds, sysconf(_SC_NPROCESSORS_ONLN));
    if (!have_ref && (group == NULL || strcmp(group, "uuidv7") == 0))
        printf("uuidv7-h (../shared/vendor/uuidv7.h) was not found when this was built: its rows and ratios are "
               "skipped\n");
    fflush(stdout);

    /* A short untimed pass of every row first: page faults, the first getrandom(), caches. */
    for (int k = 0; k < n; k++) {
        double a, b;
        run(&all[order[k]], 0.05, &a, &b);
    }
    if (n == 0) {
        fprintf(stderr, "bench_uuidv7_lib: no row to run\n");
        return 2;
    }
    for (int k = 0; k < n; k++)
        all[order[k]].ran = true;
    for (int rd = 0; rd < rounds; rd++)
        for (int k = 0; k < n; k++) {
            row *r = &all[order[(k + rd) % n]];
            run(r, seconds, &r->rate[rd], &r->cpu_ns[rd]);
        }

    printf("%-38s %9s %8s %7s %8s %8s\n", "row", "M IDs/s", "/cap", "cpu ns", "x base", "cpu x");
    for (int k = 0; k < n; k++) {
        row *r = &all[order[k]];
        r->rate_med = median(r->rate, rounds);
        r->cpu_med = median(r->cpu_ns, rounds);
        const row *b = &all[r->base];
        char cap[16] = "-", xb[16] = "-", xc[16] = "-";
        uint32_t per_ms = mintid_format_get(r->format)->capacity_per_ms;
        if (per_ms != 0 && !r->fast)
            snprintf(cap, sizeof cap, "%.3f", r->rate_med / (per_ms * 1000.0));
        if (r->base == order[k]) {
            snprintf(xb, sizeof xb, "base");
            snprintf(xc, sizeof xc, "base");
        } else if (b->ran) {
            snprintf(xb, sizeof xb, "%.3f", r->rate_med / b->rate_med);
            snprintf(xc, sizeof xc, "%.3f", b->cpu_med / r->cpu_med);
        }
        printf("%-38s %9.3f %8s %7.1f %8s %8s\n", r->name, r->rate_med / 1e6, cap, r->cpu_med, xb, xc);
    }
    printf("x base: IDs/s / the baseline's (the row marked base above it); cpu x: the baseline's CPU ns per ID / this "
           "row's.\n"
           "> 1 means mintid is faster. /cap: IDs/s / (4096 IDs per ms) for nanoflake at the real clock.\n");
    return 0;
}
