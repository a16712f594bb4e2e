/* SPDX-License-Identifier: MIT */
/*
 * test_sqlite_fuzz.c - random values through every decoder of the SQLite
 * extension, by SQL: bytes, text (the alphabets of IDs, mutated IDs, any
 * byte), integers and reals, with and without a format. Each call must give
 * a value or an SQL error with a message; never NULL for a value that is
 * not NULL (but mintid_timestamp of an ID that carries no time, which
 * mintid_inspect then reports as "unix_ms":null), never a crash (the
 * sanitizer build runs it too).
 *
 * Usage: test_sqlite_fuzz MODULE [CASES [SEED]]
 */
#include "check.h"

#include <sqlite3.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state;

static uint64_t rnd(void) {
    /* splitmix64: reproducible from the seed printed at the start. */
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static sqlite3 *db;

static void exec(const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, err);
        exit(1);
    }
}

/* The names of the formats and of the per-format decoders, read from the extension itself. */
#define MAX_NAMES 128
static char formats[MAX_NAMES][64], decoders[MAX_NAMES][64];
static int nformats, ndecoders;

static void read_names(void) {
    sqlite3_stmt *st;
    /* Every function named <format>_min...: its format is what gen_<format>_blob exists for. */
    CHECK(sqlite3_prepare_v2(db,
                             "SELECT substr(name, 5, length(name) - 9) FROM pragma_function_list "
                             "WHERE name GLOB 'gen_*_blob' GROUP BY name ORDER BY name",
                             -1, &st, NULL) == SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW && nformats < MAX_NAMES)
        snprintf(formats[nformats++], sizeof formats[0], "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    CHECK(sqlite3_prepare_v2(db,
                             "SELECT name FROM pragma_function_list WHERE name GLOB '*_min*' OR name GLOB '*_max*' "
                             "GROUP BY name ORDER BY name",
                             -1, &st, NULL) == SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW && ndecoders < MAX_NAMES)
        snprintf(decoders[ndecoders++], sizeof decoders[0], "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    CHECK(nformats >= 10);
    CHECK(ndecoders >= 4 * nformats);
}

/* A random value: an ID of a random format mutated, text, bytes, an integer, a real. */
typedef struct value {
    int type; /* SQLITE_TEXT, SQLITE_BLOB, SQLITE_INTEGER, SQLITE_FLOAT */
    unsigned char buf[64];
    size_t len;
    sqlite3_int64 i;
    double d;
} value;

static void random_value(value *v) {
    static const char alphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_{}:";
    v->len = rnd() % 48;
    v->type = SQLITE_TEXT;
    switch (rnd() % 6) {
    case 0: { /* a real ID, then a byte or two changed, or cut short */
        sqlite3_stmt *g;
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT gen_%s()", formats[rnd() % (uint64_t)nformats]);
        CHECK(sqlite3_prepare_v2(db, sql, -1, &g, NULL) == SQLITE_OK);
        CHECK(sqlite3_step(g) == SQLITE_ROW);
        v->len = (size_t)sqlite3_column_bytes(g, 0);
        CHECK(v->len < sizeof v->buf);
        memcpy(v->buf, sqlite3_column_text(g, 0), v->len);
        sqlite3_finalize(g);
        for (unsigned k = (unsigned)(rnd() % 3); k > 0 && v->len > 0; k--)
            v->buf[rnd() % v->len] =
                (unsigned char)(rnd() % 3 ? (uint64_t)alphabet[rnd() % (sizeof alphabet - 1)] : rnd());
        if (rnd() % 4 == 0 && v->len > 0)
            v->len = rnd() % v->len;
        return;
    }
    case 1:
        for (size_t i = 0; i < v->len; i++)
            v->buf[i] = (unsigned char)alphabet[rnd() % (sizeof alphabet - 1)];
        return;
    case 2:
        for (size_t i = 0; i < v->len; i++)
            v->buf[i] = (unsigned char)rnd();
        return;
    case 3: {
        static const size_t sizes[] = {8, 16, 20};
        v->type = SQLITE_BLOB;
        v->len = rnd() % 2 ? sizes[rnd() % 3] : v->len;
        for (size_t i = 0; i < v->len; i++)
            v->buf[i] = (unsigned char)rnd();
        return;
    }
    case 4:
        v->type = SQLITE_INTEGER;
        v->i = (sqlite3_int64)(rnd() >> (rnd() % 64)) * (rnd() % 8 ? 1 : -1);
        return;
    default:
        v->type = SQLITE_FLOAT;
        v->d = (double)(int64_t)rnd() / 1e3;
        return;
    }
}

static void bind(sqlite3_stmt *st, const value *v, const char *format) {
    if (v->type == SQLITE_TEXT)
        sqlite3_bind_text(st, 1, (const char *)v->buf, (int)v->len, SQLITE_TRANSIENT);
    else if (v->type == SQLITE_BLOB)
        sqlite3_bind_blob(st, 1, v->buf, (int)v->len, SQLITE_TRANSIENT);
    else if (v->type == SQLITE_INTEGER)
        sqlite3_bind_int64(st, 1, v->i);
    else
        sqlite3_bind_double(st, 1, v->d);
    if (format != NULL)
        sqlite3_bind_text(st, 2, format, -1, SQLITE_STATIC);
}

/* One call: a value, or an error with a message. Returns 1 for a value, 0 for an error. */
static int one_call(const char *sql, const char *format, int *null_time) {
    sqlite3_stmt *st;
    value v;
    random_value(&v);
    CHECK(sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK);
    bind(st, &v, format);
    int rc = sqlite3_step(st), got = 0;
    if (rc == SQLITE_ROW) {
        got = 1;
        if (sqlite3_column_type(st, 0) == SQLITE_NULL) {
            /* Only mintid_timestamp, for an ID that inspect says carries no time. */
            CHECK(strncmp(sql, "SELECT mintid_timestamp", 23) == 0);
            *null_time = 1;
            sqlite3_stmt *in;
            CHECK(sqlite3_prepare_v2(db,
                                     format != NULL ? "SELECT instr(mintid_inspect(?1, ?2), '\"unix_ms\":null') > 0"
                                                    : "SELECT instr(mintid_inspect(?1), '\"unix_ms\":null') > 0",
                                     -1, &in, NULL) == SQLITE_OK);
            bind(in, &v, format);
            CHECK(sqlite3_step(in) == SQLITE_ROW && sqlite3_column_int(in, 0) == 1);
            sqlite3_finalize(in);
        }
    } else {
        CHECK(rc == SQLITE_ERROR);
        const char *msg = sqlite3_errmsg(db);
        CHECK(msg != NULL && msg[0] != '\0' && strcmp(msg, "unknown error") != 0);
    }
    sqlite3_finalize(st);
    return got;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_sqlite_fuzz MODULE [CASES [SEED]]\n");
        return 2;
    }
    /* A host-wide directory of this run's own: never the host's, nor one
     * another run (or another version) left states in. */
    char host_dir[] = "/tmp/mintid-sqlite-test-XXXXXX";
    if (mkdtemp(host_dir) == NULL || setenv("MINTID_HOST_DIR", host_dir, 1) != 0) {
        perror("mkdtemp");
        return 2;
    }
    long cases = argc > 2 ? strtol(argv[2], NULL, 10) : 4000;
    rng_state = argc > 3 ? strtoull(argv[3], NULL, 10) : (uint64_t)time(NULL);
    printf("seed %" PRIu64 ", %ld cases\n", rng_state, cases);
    CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK);
    CHECK(sqlite3_enable_load_extension(db, 1) == SQLITE_OK);
    char *err = NULL;
    if (sqlite3_load_extension(db, argv[1], NULL, &err) != SQLITE_OK) {
        fprintf(stderr, "loading %s: %s\n", argv[1], err);
        return 1;
    }
    exec("SELECT 1");
    read_names();
    long values = 0, nulls = 0;
    for (long i = 0; i < cases; i++) {
        char sql[160];
        int with_format = 0, null_time = 0;
        /* A format by its SQL name, its name, a name no format has, or none at all. */
        char name[64];
        int dashed = (int)(rnd() % 2);
        snprintf(name, sizeof name, "%s", rnd() % 20 ? formats[rnd() % (uint64_t)nformats] : "ulid-flake-");
        for (char *p = name; *p != '\0'; p++)
            if (dashed && *p == '_')
                *p = '-';
        switch (rnd() % 3) {
        case 0:
            with_format = (int)(rnd() % 2);
            snprintf(sql, sizeof sql, "SELECT mintid_inspect(?1%s)", with_format ? ", ?2" : "");
            break;
        case 1:
            with_format = (int)(rnd() % 2);
            snprintf(sql, sizeof sql, "SELECT mintid_timestamp(?1%s)", with_format ? ", ?2" : "");
            break;
        default:
            snprintf(sql, sizeof sql, "SELECT %s(?1)", decoders[rnd() % (uint64_t)ndecoders]);
            break;
        }
        values += one_call(sql, with_format ? name : NULL, &null_time);
        nulls += null_time;
    }
    printf("%ld values, %ld errors, %ld timestamps without a time\n", values, cases - values, nulls);
    /* Both outcomes must have happened, or the inputs were not what this test means to try. */
    CHECK(values > cases / 20 && values < cases - cases / 20);
    sqlite3_close(db);
    char rm[96];
    snprintf(rm, sizeof rm, "rm -rf '%s'", host_dir);
    if (system(rm) != 0)
        fprintf(stderr, "could not remove %s\n", host_dir);
    return check_failures != 0;
}
