/* SPDX-License-Identifier: MIT */
/*
 * bench_sqlite.c - the SQLite extension against what SQLite does without
 * it, side by side in one run, in interleaved rounds (medians):
 *
 *   INSERT INTO t(id) VALUES (gen_nanoflake_int())      a time-ordered rowid
 *   INSERT INTO t(id) VALUES (last_insert_rowid() + 1)  an explicit increasing key that costs nothing to make
 *   INSERT INTO t(id) VALUES (NULL)                     the rowid left to SQLite (no seek: shown beside)
 *
 *   SELECT count(gen_uuidv7()) FROM r                   r: 1M rows
 *   SELECT count(lower(hex(randomblob(16)))) FROM r     random-per-call text, as sqlean's uuid7() makes it
 *
 * Each case has a connection and a database of its own. In a round, each INSERT
 * case fills a new table `t(id INTEGER PRIMARY KEY)` with --rows rows in
 * one transaction, through one prepared statement, and each SELECT case
 * reads --rows rows; the round runs in slices of rows/50, the cases taking
 * turns slice by slice, so that a neighbour's burst of load falls on all of
 * them alike. The generators are host-wide, as the extension always mints.
 *
 * Usage: bench_sqlite [--module PATH] [--memory] [--rows N] [--rounds R]
 *   (default module build/sqlite/mintid, 1000000 rows, 5 rounds). The
 *   databases are files in a new directory under $TMPDIR (default /tmp), in
 *   WAL mode with synchronous NORMAL, removed at the end; --memory keeps
 *   them in memory, where SQLite's own work is smallest and a function's
 *   cost shows most.
 */
#include <sqlite3.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 99
#define CHUNKS 50

static sqlite3 *db; /* the one that failed, for die() */

static void die(const char *what) {
    fprintf(stderr, "bench_sqlite: %s: %s\n", what, sqlite3_errmsg(db));
    exit(1);
}

static void exec(sqlite3 *on, const char *sql) {
    db = on;
    if (sqlite3_exec(on, sql, NULL, NULL, NULL) != SQLITE_OK)
        die(sql);
}

static double seconds(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
static double now(void) { return seconds(CLOCK_MONOTONIC); }
/* This thread's CPU time: what a case costs, whatever else the machine runs meanwhile. */
static double cpu_now(void) { return seconds(CLOCK_THREAD_CPUTIME_ID); }

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n) {
    double s[MAX_ROUNDS];
    memcpy(s, v, sizeof *v * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static long parse_long(const char *s, long min, long max, const char *what) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || end == s || v < min || v > max) {
        fprintf(stderr, "bench_sqlite: %s '%s': give %ld to %ld\n", what, s, min, max);
        exit(2);
    }
    return v;
}

enum { GEN_INSERT, KEY_INSERT, ROWID_INSERT, GEN_SELECT, RANDOM_SELECT, NCASES };

static const char *const shown[NCASES] = {
    "INSERT INTO t(id) VALUES (gen_nanoflake_int())",
    "INSERT INTO t(id) VALUES (last_insert_rowid() + 1)",
    "INSERT INTO t(id) VALUES (NULL)",
    "SELECT count(gen_uuidv7()) FROM r",
    "SELECT count(lower(hex(randomblob(16)))) FROM r",
};
/* The SELECTs run over r a slice at a time, so that the cases interleave finely. */
static const char *const run_sql[NCASES] = {
    "INSERT INTO t(id) VALUES (gen_nanoflake_int())",
    "INSERT INTO t(id) VALUES (last_insert_rowid() + 1)",
    "INSERT INTO t(id) VALUES (NULL)",
    "SELECT count(gen_uuidv7()) FROM r WHERE x > ?1 AND x <= ?2",
    "SELECT count(lower(hex(randomblob(16)))) FROM r WHERE x > ?1 AND x <= ?2",
};

/* Each case has a connection (and an in-memory database) of its own: last_insert_rowid() is per connection. */
typedef struct bench_case {
    sqlite3 *db;
    sqlite3_stmt *st;
} bench_case;

/* The databases' directory (their files are removed at the end), or NULL: in memory. */
static const char *dir;

static void open_case(bench_case *c, int which, const char *module, long rows) {
    char *err = NULL, path[4096];
    if (dir != NULL)
        snprintf(path, sizeof path, "%s/bench_sqlite_%d.db", dir, which);
    if (sqlite3_open(dir != NULL ? path : ":memory:", &c->db) != SQLITE_OK)
        die("open");
    if (dir != NULL) {
        exec(c->db, "PRAGMA journal_mode = WAL");
        exec(c->db, "PRAGMA synchronous = NORMAL");
        exec(c->db, "DROP TABLE IF EXISTS r");
    }
    sqlite3_enable_load_extension(c->db, 1);
    if (sqlite3_load_extension(c->db, module, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "bench_sqlite: loading %s: %s\n", module, err);
        exit(1);
    }
    if (which >= GEN_SELECT) {
        char fill[200];
        exec(c->db, "CREATE TABLE r(x INTEGER PRIMARY KEY)");
        snprintf(fill, sizeof fill,
                 "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < %ld) "
                 "INSERT INTO r SELECT i FROM s",
                 rows);
        exec(c->db, fill);
    }
    db = c->db;
    if (sqlite3_prepare_v2(c->db, which < GEN_SELECT ? "SELECT 1" : run_sql[which], -1, &c->st, NULL) != SQLITE_OK)
        die(run_sql[which]);
}

/* A new table t for an INSERT case, in a transaction of its own. */
static void begin_round(bench_case *c, int which) {
    if (which >= GEN_SELECT)
        return;
    sqlite3_finalize(c->st);
    exec(c->db, "DROP TABLE IF EXISTS t");
    exec(c->db, "CREATE TABLE t(id INTEGER PRIMARY KEY)");
    /* Every table begins at a nanoflake's magnitude, so that the keys of all
     * three are as wide (9-byte varints, not 1 to 3): what differs is only
     * what a key costs to make. */
    exec(c->db, "BEGIN");
    exec(c->db, "INSERT INTO t(id) VALUES (gen_nanoflake_int())");
    db = c->db;
    if (sqlite3_prepare_v2(c->db, run_sql[which], -1, &c->st, NULL) != SQLITE_OK)
        die(run_sql[which]);
}

static void end_round(bench_case *c, int which) {
    if (which < GEN_SELECT)
        exec(c->db, "COMMIT");
}

/* Seconds to run rows [from, to) of a case; *cpu gets the CPU seconds. */
static double run_slice(bench_case *c, int which, long from, long to, double *cpu) {
    db = c->db;
    double c0 = cpu_now(), t0 = now();
    if (which < GEN_SELECT) {
        for (long i = from; i < to; i++) {
            if (sqlite3_step(c->st) != SQLITE_DONE)
                die(run_sql[which]);
            sqlite3_reset(c->st);
        }
    } else {
        sqlite3_bind_int64(c->st, 1, from);
        sqlite3_bind_int64(c->st, 2, to);
        if (sqlite3_step(c->st) != SQLITE_ROW || sqlite3_column_int64(c->st, 0) != to - from)
            die(run_sql[which]);
        sqlite3_reset(c->st);
    }
    double t = now() - t0;
    *cpu = cpu_now() - c0;
    return t;
}

/*
 * One ratio of case a's rate to case b's: of their medians, the median of
 * the rounds' ratios and their range (the spread of a noisy machine).
 */
static void ratio_line(const char *what, double rate[NCASES][MAX_ROUNDS], int a, int b, long rounds,
                       const char *target) {
    double r[MAX_ROUNDS] = {0}, lo, hi;
    for (long i = 0; i < rounds; i++)
        r[i] = rate[a][i] / rate[b][i];
    lo = hi = r[0];
    for (long i = 1; i < rounds; i++) {
        lo = r[i] < lo ? r[i] : lo;
        hi = r[i] > hi ? r[i] : hi;
    }
    printf("%s: %.2f (median of rounds %.2f, range %.2f-%.2f; target >= %s)\n", what,
           median(rate[a], (int)rounds) / median(rate[b], (int)rounds), median(r, (int)rounds), lo, hi, target);
}

int main(int argc, char **argv) {
    const char *module = "build/sqlite/mintid";
    long rows = 1000000, rounds = 5;
    int memory = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--module") == 0 && i + 1 < argc)
            module = argv[++i];
        else if (strcmp(argv[i], "--memory") == 0)
            memory = 1;
        else if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc)
            rows = parse_long(argv[++i], 1000, 100000000, "--rows");
        else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = parse_long(argv[++i], 1, MAX_ROUNDS, "--rounds");
        else {
            fprintf(stderr, "usage: bench_sqlite [--module PATH] [--memory] [--rows N] [--rounds R]\n");
            return 2;
        }
    }
    char tmp[4096];
    if (!memory) {
        const char *t = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/bench_sqlite.XXXXXX", t != NULL && t[0] != '\0' ? t : "/tmp");
        if ((dir = mkdtemp(tmp)) == NULL) {
            fprintf(stderr, "bench_sqlite: mkdtemp %s: %s\n", tmp, strerror(errno));
            return 1;
        }
    }
    bench_case cases[NCASES];
    for (int c = 0; c < NCASES; c++)
        open_case(&cases[c], c, module, rows);

    printf("SQLite %s, %s, %ld rows per measurement, %ld rounds (the first a warm-up), each in %d slices "
           "interleaved across the cases (rows per second)\n",
           sqlite3_libversion(), memory ? "databases in memory" : "database files in WAL mode, synchronous NORMAL",
           rows, rounds + 1, CHUNKS);
    double rate[NCASES][MAX_ROUNDS], cpu_rate[NCASES][MAX_ROUNDS];
    /* Round 0 warms up (the host-wide state, the allocator's pages) and is not counted. */
    for (long r = 0; r <= rounds; r++) {
        double secs[NCASES] = {0}, cpu_secs[NCASES] = {0};
        for (int c = 0; c < NCASES; c++)
            begin_round(&cases[c], c);
        for (long k = 0; k < CHUNKS; k++) {
            long from = rows * k / CHUNKS, to = rows * (k + 1) / CHUNKS;
            /* The order turns each slice, so that no case always follows another. */
            for (int j = 0; j < NCASES; j++) {
                int c = (int)((j + k) % NCASES);
                double cpu;
                secs[c] += run_slice(&cases[c], c, from, to, &cpu);
                cpu_secs[c] += cpu;
            }
        }
        for (int c = 0; c < NCASES; c++)
            end_round(&cases[c], c);
        if (r == 0)
            continue;
        printf("round %ld:", r);
        for (int c = 0; c < NCASES; c++) {
            rate[c][r - 1] = (double)rows / secs[c];
            cpu_rate[c][r - 1] = (double)rows / cpu_secs[c];
            printf(" %.0f", rate[c][r - 1]);
        }
        printf("\n");
    }
    double m[NCASES], mc[NCASES];
    for (int c = 0; c < NCASES; c++) {
        m[c] = median(rate[c], (int)rounds);
        mc[c] = median(cpu_rate[c], (int)rounds);
        printf("%-52s %10.0f rows/s %7.0f ns of CPU per row\n", shown[c], m[c], 1e9 / mc[c]);
    }
    ratio_line("INSERT gen_nanoflake_int() / last_insert_rowid() + 1", rate, GEN_INSERT, KEY_INSERT, rounds, "0.95");
    ratio_line("  the same in CPU time", cpu_rate, GEN_INSERT, KEY_INSERT, rounds, "0.95");
    printf("INSERT last_insert_rowid() + 1 / rowid left to SQLite: %.2f (CPU time %.2f)\n",
           m[KEY_INSERT] / m[ROWID_INSERT], mc[KEY_INSERT] / mc[ROWID_INSERT]);
    ratio_line("SELECT count(gen_uuidv7()) / count(lower(hex(randomblob(16))))", rate, GEN_SELECT, RANDOM_SELECT,
               rounds, "1.5");
    ratio_line("  the same in CPU time", cpu_rate, GEN_SELECT, RANDOM_SELECT, rounds, "1.5");
    for (int c = 0; c < NCASES; c++) {
        sqlite3_finalize(cases[c].st);
        sqlite3_close(cases[c].db);
        if (dir != NULL) {
            static const char *const suffixes[] = {"", "-wal", "-shm"};
            for (int k = 0; k < 3; k++) {
                char path[4200];
                snprintf(path, sizeof path, "%s/bench_sqlite_%d.db%s", dir, c, suffixes[k]);
                unlink(path);
            }
        }
    }
    if (dir != NULL)
        rmdir(dir);
    return 0;
}
