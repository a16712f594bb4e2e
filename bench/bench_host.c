/* SPDX-License-Identifier: MIT */
/*
 * bench_host.c - what the host-wide generator costs per ID against a
 * process generator of the same format and configuration.
 *
 * The cost is CPU time per ID (CLOCK_PROCESS_CPUTIME_ID), not IDs per
 * second: a format at its capacity (nanoflake's 4096 per ms) sleeps until
 * the next millisecond, whatever the generator costs, and sleeping is no
 * cost. The two generators are measured in alternating rounds in one
 * process, so that whatever else the machine does hits both alike, and the
 * table prints the median of each and the median of the rounds' ratios
 * (host / process: 1.00 is no extra cost). Each is measured minting one ID
 * per call (mintid_gen_next: a lock and a clock reading per ID) and in
 * batches of 256 (mintid_gen_next_n).
 *
 * The host-wide states are made in a directory of the benchmark's own,
 * removed at the end. Nothing here asserts a threshold.
 *
 * Usage: bench_host [-n IDS_PER_ROUND] [-r ROUNDS] [FORMAT...]
 */
#include "mintid.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH 256
#define MAX_ROUNDS 99

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* CPU nanoseconds per ID of minting `count` IDs, one per call or in batches. */
static double round_ns(mintid_gen *gen, long count, int batched) {
    static mintid_id ids[BATCH];
    double t0 = cpu_seconds();
    for (long done = 0; done < count;) {
        long got = batched ? mintid_gen_next_n(gen, ids, BATCH) : (mintid_gen_next(gen, ids) == MINTID_OK ? 1 : -1);
        if (got <= 0) {
            fprintf(stderr, "bench_host: %s: %s\n", mintid_gen_format(gen)->name, mintid_strerror((int)got));
            exit(1);
        }
        done += got;
    }
    return (cpu_seconds() - t0) * 1e9 / (double)count;
}

static void bench_format(const mintid_format *fmt, const char *dir, long count, int rounds) {
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.overflow = MINTID_OVERFLOW_WAIT;
    mintid_gen *local, *host;
    int rc = mintid_gen_new(fmt, &cfg, &local);
    if (rc == MINTID_OK)
        rc = mintid_gen_new_host(fmt, &cfg, dir, &host);
    if (rc != MINTID_OK) {
        fprintf(stderr, "bench_host: %s: %s (%s)\n", fmt->name, mintid_strerror(rc), strerror(errno));
        exit(1);
    }
    /* Past the first 100 ms of the new host-wide state, and warm. */
    round_ns(host, count / 4 + 1, 1);
    round_ns(local, count / 4 + 1, 1);
    for (int batched = 0; batched <= 1; batched++) {
        double l[MAX_ROUNDS], h[MAX_ROUNDS], r[MAX_ROUNDS];
        for (int i = 0; i < rounds; i++) {
            /* The order turns every round. */
            if (i % 2) {
                h[i] = round_ns(host, count, batched);
                l[i] = round_ns(local, count, batched);
            } else {
                l[i] = round_ns(local, count, batched);
                h[i] = round_ns(host, count, batched);
            }
            r[i] = h[i] / l[i];
        }
        printf("%-20s %-10s %10.1f %10.1f %8.2f\n", fmt->name, batched ? "next_n" : "next", median(l, rounds),
               median(h, rounds), median(r, rounds));
    }
    mintid_gen_free(local);
    mintid_gen_free(host);
}

int main(int argc, char **argv) {
    long count = 200000;
    int rounds = 7, c;
    while ((c = getopt(argc, argv, "n:r:")) != -1) {
        char *end;
        errno = 0;
        long v = strtol(optarg, &end, 10);
        if (errno != 0 || *end != '\0' || v < 1 || (c == 'r' && v > MAX_ROUNDS) || (c != 'n' && c != 'r')) {
            fprintf(stderr, "usage: bench_host [-n IDS_PER_ROUND] [-r ROUNDS (1..%d)] [FORMAT...]\n", MAX_ROUNDS);
            return 2;
        }
        if (c == 'n')
            count = v;
        else
            rounds = (int)v;
    }
    char dir[] = "/tmp/mintid-bench-host-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        perror("bench_host: mkdtemp");
        return 1;
    }
    printf("CPU time per ID, ns (median of %d alternating rounds of %ld IDs); ratio: host-wide / process\n", rounds,
           count);
    printf("%-20s %-10s %10s %10s %8s\n", "format", "call", "process", "host-wide", "ratio");
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        int wanted = optind == argc;
        for (int a = optind; a < argc; a++)
            wanted |= strcmp(argv[a], fmt->name) == 0;
        if (wanted)
            bench_format(fmt, dir, fmt->capacity_per_ms != 0 && fmt->capacity_per_ms < 1000 ? count / 10 : count,
                         rounds);
    }
    char cmd[64];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
