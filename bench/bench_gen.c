/* SPDX-License-Identifier: MIT */
/*
 * bench_gen.c - how fast one mintid generator mints IDs, per format.
 *
 * Absolute rates mean little on a shared two-core machine, so every rate is
 * printed as two ratios. The first is against the format's capacity
 * (capacity_per_ms * 1000 IDs per second): a generator that keeps up with
 * its format reads about 1.0, and cannot read much more, because once a
 * millisecond's sequence is used up it waits for the next millisecond. The
 * second is against a baseline measured in the same process, interleaved
 * with the generator's own runs, so that noise hits both alike: the raw
 * system calls a naive generator would make for every ID.
 *
 * Nothing here asserts a threshold; the program prints a table and exits 0
 * unless the library itself returns an error.
 */
#include "internal.h" /* mintid__getrandom(): the baselines call what the library calls */
#include "mintid.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* IDs per batch call: large enough to amortise the lock, small enough that
 * the stop flag is seen within a few milliseconds even at 128 IDs per ms. */
#define BATCH 256
#define MAX_THREADS 2
#define MAX_REPEAT 99
#define MAX_ROWS 16
#define DEFAULT_SECONDS 0.5
#define DEFAULT_REPEAT 3
/* Room for one ID's random bytes in the baselines; scru160 needs the most, 12. */
#define MAX_RANDOM_BYTES 32

typedef enum mode {
    MODE_NEXT_N,      /* mintid_gen_next_n in batches */
    MODE_NEXT_U64,    /* mintid_gen_next_u64 in batches (64-bit formats) */
    MODE_NEXT,        /* mintid_gen_next, one ID per call */
    MODE_TEXT,        /* mintid_gen_next_n, then mintid_encode of each ID */
    MODE_BASE_RANDOM, /* baseline: getrandom() of the format's bytes per ID */
    MODE_BASE_NAIVE,  /* baseline: clock_gettime() + getrandom() per ID */
    MODE_BASE_CLOCK   /* baseline: clock_gettime() per ID */
} mode;

typedef struct row {
    mode mode;
    int threads;
    size_t random_bytes; /* what the baselines ask getrandom() for */
    bool reference;      /* the baseline the other rows of the format are set against */
    double samples[MAX_REPEAT];
    double median;
    mintid_gen_stats stats[MAX_REPEAT];
} row;

typedef struct options {
    double seconds;
    int repeat;
    const mintid_format *only; /* NULL: every format */
    bool verbose;
} options;

/* Where the workers' sinks end up, so that no work can be optimised away. */
static volatile unsigned bench_sink;

/* What one worker thread is given and gives back. */
typedef struct worker {
    const mintid_format *fmt;
    const row *row;
    mintid_gen *gen; /* shared by the workers of one measurement */
    pthread_barrier_t *start;
    atomic_bool *stop;
    uint64_t count;
    double began, ended; /* the worker's own span of work, CLOCK_MONOTONIC */
    int error;           /* a negative mintid_status, or MINTID_OK */
    unsigned char sink;  /* read from the output so no work can be elided */
} worker;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_s(double s) {
    struct timespec req = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&req, &req) != 0 && errno == EINTR) {
    }
}

/*
 * The random bytes a generator of this configuration needs per ID in the
 * steady state: whole bytes for each random field, as the generator draws
 * them, plus ulid-flake's per-ID increment of entropy_size bytes. Draws made
 * once per millisecond (a counter's random start) are left out.
 */
static size_t random_bytes_per_id(const mintid_format *fmt, const mintid_config *cfg) {
    size_t n = cfg->entropy_size;
    for (unsigned i = 0; i < fmt->nfields; i++) {
        const mintid_field *f = &fmt->fields[i];
        if (f->role == MINTID_ROLE_RANDOM || f->role == MINTID_ROLE_RANDOM80)
            n += (f->width + 7u) / 8u;
    }
    return n;
}

/*
 * The configuration benchmarked: the format's defaults, except that running
 * out of a millisecond, or a clock step backwards, waits instead of failing.
 * ulid-flake fails by default, and an error would end the measurement
 * instead of showing the rate the format allows.
 */
static void bench_config(const mintid_format *fmt, mintid_config *cfg) {
    mintid_config_init(cfg, fmt);
    cfg->overflow = MINTID_OVERFLOW_WAIT;
    if (cfg->rollback == MINTID_ROLLBACK_FAIL)
        cfg->rollback = MINTID_ROLLBACK_WAIT;
}

static const char *mode_name(const row *r, char *buf, size_t cap) {
    switch (r->mode) {
    case MODE_NEXT_N:
        snprintf(buf, cap, "next_n x%d", BATCH);
        break;
    case MODE_NEXT_U64:
        snprintf(buf, cap, "next_u64 x%d", BATCH);
        break;
    case MODE_NEXT:
        snprintf(buf, cap, "next (one per call)");
        break;
    case MODE_TEXT:
        snprintf(buf, cap, "text: next_n + encode");
        break;
    case MODE_BASE_RANDOM:
        snprintf(buf, cap, "base: getrandom(%zu)", r->random_bytes);
        break;
    case MODE_BASE_NAIVE:
        snprintf(buf, cap, "base: clock+getrandom(%zu)", r->random_bytes);
        break;
    case MODE_BASE_CLOCK:
        snprintf(buf, cap, "base: clock_gettime");
        break;
    }
    return buf;
}

static bool is_baseline(mode m) { return m == MODE_BASE_RANDOM || m == MODE_BASE_NAIVE || m == MODE_BASE_CLOCK; }

/*
 * One worker's loop. The stop flag is read once per call into the library
 * (once per batch in the batch modes), so checking it costs nothing next to
 * the work measured.
 */
static void *work(void *arg) {
    worker *w = arg;
    mintid_id ids[BATCH];
    uint64_t u64s[BATCH];
    char text[BATCH * MINTID_TEXT_MAX];
    unsigned char rnd[MAX_RANDOM_BYTES];
    uint64_t count = 0;
    unsigned sink = 0;
    int rc = MINTID_OK;

    pthread_barrier_wait(w->start);
    w->began = now_s();
    while (rc == MINTID_OK && !atomic_load_explicit(w->stop, memory_order_relaxed)) {
        long n;
        struct timespec ts;
        switch (w->row->mode) {
        case MODE_NEXT_N:
            n = mintid_gen_next_n(w->gen, ids, BATCH);
            if (n < 0) {
                rc = (int)n;
                break;
            }
            sink += ids[n - 1].bytes[7];
            count += (uint64_t)n;
            break;
        case MODE_NEXT_U64:
            n = mintid_gen_next_u64(w->gen, u64s, BATCH);
            if (n < 0) {
                rc = (int)n;
                break;
            }
            sink += (unsigned)u64s[n - 1];
            count += (uint64_t)n;
            break;
        case MODE_NEXT:
            rc = mintid_gen_next(w->gen, &ids[0]);
            if (rc == MINTID_OK) {
                sink += ids[0].bytes[7];
                count++;
            }
            break;
        case MODE_TEXT: {
            /* Lines in one buffer, as a tool writing IDs to a pipe would build them. */
            n = mintid_gen_next_n(w->gen, ids, BATCH);
            if (n < 0) {
                rc = (int)n;
                break;
            }
            size_t pos = 0;
            for (long i = 0; i < n; i++) {
                int len = mintid_encode(w->fmt, MINTID_FORM_TEXT, &ids[i], text + pos, sizeof text - pos);
                if (len < 0) {
                    rc = len;
                    break;
                }
                pos += (size_t)len;
                text[pos++] = '\n';
            }
            sink += (unsigned char)text[pos > 1 ? pos - 2 : 0];
            count += (uint64_t)n;
            break;
        }
        case MODE_BASE_NAIVE:
            if (clock_gettime(CLOCK_REALTIME, &ts) != 0) {
                rc = MINTID_ECLOCK;
                break;
            }
            rc = mintid__getrandom(rnd, w->row->random_bytes);
            sink += (unsigned)ts.tv_nsec + rnd[0];
            count++;
            break;
        case MODE_BASE_RANDOM:
            rc = mintid__getrandom(rnd, w->row->random_bytes);
            sink += rnd[0];
            count++;
            break;
        case MODE_BASE_CLOCK:
            if (clock_gettime(CLOCK_REALTIME, &ts) != 0) {
                rc = MINTID_ECLOCK;
                break;
            }
            sink += (unsigned)ts.tv_nsec;
            count++;
            break;
        }
    }
    w->ended = now_s();
    w->count = count;
    w->error = rc;
    w->sink = (unsigned char)sink;
    return NULL;
}

/*
 * Runs one row once for `seconds` and returns IDs per second; *status is
 * the first error a worker met, if any. The workers wait on a barrier so
 * that thread start-up is not timed, and each times its own span of work:
 * on a busy machine the main thread may wake from the barrier or its sleep
 * milliseconds late, and its own clock would then credit the workers with
 * time they did not have.
 */
static double measure(const mintid_format *fmt, row *r, int rep, double seconds, int *status) {
    mintid_gen *gen = NULL;
    if (!is_baseline(r->mode)) {
        mintid_config cfg;
        bench_config(fmt, &cfg);
        int rc = mintid_gen_new(fmt, &cfg, &gen);
        if (rc != MINTID_OK) {
            *status = rc;
            return 0;
        }
    }
    pthread_barrier_t start;
    atomic_bool stop = false;
    worker w[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    pthread_barrier_init(&start, NULL, (unsigned)r->threads + 1);
    for (int i = 0; i < r->threads; i++) {
        w[i] = (worker){.fmt = fmt, .row = r, .gen = gen, .start = &start, .stop = &stop};
        if (pthread_create(&tid[i], NULL, work, &w[i]) != 0) {
            fprintf(stderr, "bench_gen: pthread_create failed\n");
            exit(1);
        }
    }
    pthread_barrier_wait(&start);
    sleep_s(seconds);
    atomic_store(&stop, true);
    uint64_t total = 0;
    unsigned sink = 0;
    double began = 0, ended = 0;
    *status = MINTID_OK;
    for (int i = 0; i < r->threads; i++) {
        pthread_join(tid[i], NULL);
        total += w[i].count;
        began = i == 0 || w[i].began < began ? w[i].began : began;
        ended = i == 0 || w[i].ended > ended ? w[i].ended : ended;
        sink += w[i].sink;
        if (w[i].error != MINTID_OK)
            *status = w[i].error;
    }
    pthread_barrier_destroy(&start);
    if (gen != NULL)
        mintid_gen_get_stats(gen, &r->stats[rep]);
    mintid_gen_free(gen);
    bench_sink += sink;
    return ended > began ? (double)total / (ended - began) : 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n) {
    double s[MAX_REPEAT];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/*
 * The rows of one format, or -1 if the baselines cannot be sized. Every mode runs alone and with two threads
 * sharing one generator; the baselines run in two independent threads, the
 * best a naive generator could do before it even took a lock.
 */
static int plan(const mintid_format *fmt, row *rows) {
    mintid_config cfg;
    bench_config(fmt, &cfg);
    size_t rb = random_bytes_per_id(fmt, &cfg);
    if (rb > MAX_RANDOM_BYTES) {
        fprintf(stderr, "bench_gen: %s draws %zu random bytes per ID; raise MAX_RANDOM_BYTES\n", fmt->name, rb);
        return -1;
    }
    mode modes[8];
    int nm = 0;
    modes[nm++] = MODE_NEXT_N;
    if (fmt->bits == 64)
        modes[nm++] = MODE_NEXT_U64;
    modes[nm++] = MODE_NEXT;
    modes[nm++] = MODE_TEXT;
    /*
     * scru160's capacity is beyond one core, so what matters there is the
     * comparison with a naive generator's clock read and getrandom() per ID;
     * for the formats with random bits, getrandom() per ID shows what the
     * pool saves; nanoflake draws nothing, so its floor is the clock read.
     */
    if (fmt->id == MINTID_SCRU160)
        modes[nm++] = MODE_BASE_NAIVE;
    if (rb > 0)
        modes[nm++] = MODE_BASE_RANDOM;
    else
        modes[nm++] = MODE_BASE_CLOCK;
    /* The first baseline listed is the one the ratios are taken against. */
    mode reference = modes[nm - 1];
    for (int m = nm; m-- > 0;)
        if (is_baseline(modes[m]))
            reference = modes[m];
    int n = 0;
    for (int t = 1; t <= MAX_THREADS; t++)
        for (int m = 0; m < nm; m++) {
            row *r = &rows[n++];
            memset(r, 0, sizeof *r);
            r->mode = modes[m];
            r->threads = t;
            r->random_bytes = rb;
            r->reference = modes[m] == reference;
        }
    return n;
}

/* The reference baseline of the rows, for this thread count. */
static const row *reference_of(const row *rows, int n, int threads) {
    for (int i = 0; i < n; i++)
        if (rows[i].reference && rows[i].threads == threads)
            return &rows[i];
    return NULL;
}

static void print_header(void) {
    printf("%-20s %-27s %3s %10s %7s %7s\n", "format", "mode", "thr", "M IDs/s", "/cap", "/base");
}

static void print_rows(const mintid_format *fmt, const row *rows, int n, const options *opt) {
    double cap = (double)fmt->capacity_per_ms * 1000.0;
    char name[64];
    for (int i = 0; i < n; i++) {
        const row *r = &rows[i];
        const row *ref = reference_of(rows, n, r->threads);
        char base[16];
        if (r->reference)
            snprintf(base, sizeof base, "%s", "ref");
        else if (ref != NULL && ref->median > 0)
            snprintf(base, sizeof base, "%.2f", r->median / ref->median);
        else
            snprintf(base, sizeof base, "%s", "-");
        printf("%-20s %-27s %3d %10.3f %7.3f %7s\n", fmt->name, mode_name(r, name, sizeof name), r->threads,
               r->median / 1e6, r->median / cap, base);
        if (opt->verbose) {
            for (int k = 0; k < opt->repeat; k++) {
                printf("%52s run %d: %.3f M/s", "", k + 1, r->samples[k] / 1e6);
                if (!is_baseline(r->mode))
                    printf(", issued %llu, waits %llu, exhausted %llu, rollbacks %llu",
                           (unsigned long long)r->stats[k].issued, (unsigned long long)r->stats[k].waits,
                           (unsigned long long)r->stats[k].exhausted, (unsigned long long)r->stats[k].rollbacks);
                printf("\n");
            }
        }
    }
    fflush(stdout);
}

/*
 * Measures every row of one format. Repetitions go round the rows, rather
 * than repeating one row before the next, so that a burst of noise from a
 * neighbour spreads over generator and baseline alike.
 */
static int bench_format(const mintid_format *fmt, const options *opt) {
    row rows[MAX_ROWS];
    int n = plan(fmt, rows);
    if (n < 0)
        return MINTID_EINVAL;
    for (int rep = 0; rep < opt->repeat; rep++)
        for (int i = 0; i < n; i++) {
            int status;
            rows[i].samples[rep] = measure(fmt, &rows[i], rep, opt->seconds, &status);
            if (status != MINTID_OK) {
                char name[64];
                fprintf(stderr, "bench_gen: %s, %s, %d thread(s): %s (%s)\n", fmt->name,
                        mode_name(&rows[i], name, sizeof name), rows[i].threads, mintid_strerror(status),
                        mintid_status_name(status));
                return status;
            }
        }
    for (int i = 0; i < n; i++)
        rows[i].median = median(rows[i].samples, opt->repeat);
    print_rows(fmt, rows, n, opt);
    return MINTID_OK;
}

static void usage(FILE *out) {
    fprintf(out,
            "usage: bench_gen [--seconds S] [--repeat N] [--format NAME] [--verbose]\n"
            "  --seconds S    length of each measurement (default %.1f, range 0.01..60)\n"
            "  --repeat N     measurements per row; the median is reported (default %d, 1..%d)\n"
            "  --format NAME  benchmark only this format:",
            DEFAULT_SECONDS, DEFAULT_REPEAT, MAX_REPEAT);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        fprintf(out, " %s", mintid_format_get((mintid_format_id)i)->name);
    fprintf(out, "\n  --verbose      also print every run and the generator's wait counters\n");
}

/* A whole-string number in [lo, hi], or false. */
static bool parse_double(const char *s, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0' || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

static int parse_options(int argc, char **argv, options *opt) {
    *opt = (options){.seconds = DEFAULT_SECONDS, .repeat = DEFAULT_REPEAT};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        double d;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(0);
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
            opt->verbose = true;
        } else if (strcmp(a, "--seconds") == 0 && v != NULL) {
            if (!parse_double(v, 0.01, 60, &opt->seconds)) {
                fprintf(stderr, "bench_gen: --seconds '%s' is not a number from 0.01 to 60\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--repeat") == 0 && v != NULL) {
            if (!parse_double(v, 1, MAX_REPEAT, &d) || d != (double)(int)d) {
                fprintf(stderr, "bench_gen: --repeat '%s' is not a whole number from 1 to %d\n", v, MAX_REPEAT);
                return 2;
            }
            opt->repeat = (int)d;
            i++;
        } else if (strcmp(a, "--format") == 0 && v != NULL) {
            opt->only = mintid_format_find(v);
            if (opt->only == NULL) {
                fprintf(stderr, "bench_gen: unknown format '%s'\n", v);
                usage(stderr);
                return 2;
            }
            i++;
        } else {
            fprintf(stderr, "bench_gen: unknown or incomplete option '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    options opt;
    int rc = parse_options(argc, argv, &opt);
    if (rc != 0)
        return rc;
    printf("mintid %s bench_gen: %.2f s per measurement, median of %d, %ld CPUs online\n", MINTID_VERSION_STRING,
           opt.seconds, opt.repeat, sysconf(_SC_NPROCESSORS_ONLN));
    print_header();
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        if (opt.only != NULL && opt.only != fmt)
            continue;
        if (bench_format(fmt, &opt) != MINTID_OK)
            return 1;
    }
    printf("/cap:  IDs/s / (capacity_per_ms * 1000); ~1.00 = keeps up with the format, which caps it "
           "(it waits for the next ms).\n"
           "/base: IDs/s / the row marked 'ref' (same format, same threads, same process); "
           ">1 = faster than making those calls per ID.\n");
    return 0;
}
