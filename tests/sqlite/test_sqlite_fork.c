/* SPDX-License-Identifier: MIT */
/*
 * test_sqlite_fork.c - a child forked while its parent's connection has a
 * batch of IDs under way never hands out one of them: parent and child
 * each mint at once after the fork, and no ID is in both.
 *
 * A batch is handed out only within its millisecond, and a fork takes
 * longer than that on a busy machine; so the program holds the real-time
 * clock still around each fork. It defines clock_gettime() itself
 * (exported: the module's calls come here): CLOCK_REALTIME reads
 * `held_ns` while it is set, and every other reading is the kernel's.
 *
 * Usage: test_sqlite_fork MODULE [ROUNDS]
 */
#include "check.h"

#include <sqlite3.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PER_SIDE 20

static int64_t held_ns; /* 0: the clock runs */

__attribute__((visibility("default"))) int clock_gettime(clockid_t clock, struct timespec *ts) {
    if (clock == CLOCK_REALTIME && held_ns != 0) {
        ts->tv_sec = (time_t)(held_ns / 1000000000);
        ts->tv_nsec = (long)(held_ns % 1000000000);
        return 0;
    }
    return (int)syscall(SYS_clock_gettime, clock, ts);
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static sqlite3_int64 mint(sqlite3_stmt *st) {
    if (sqlite3_step(st) != SQLITE_ROW) {
        fprintf(stderr, "test_sqlite_fork: gen_nanoflake_int(): %s\n", sqlite3_errmsg(sqlite3_db_handle(st)));
        exit(1);
    }
    sqlite3_int64 v = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return v;
}

static sqlite3_int64 ms_of(sqlite3 *db, sqlite3_int64 id) {
    sqlite3_stmt *st;
    CHECK(sqlite3_prepare_v2(db, "SELECT json_extract(mintid_inspect(?1, 'nanoflake'), '$.unix_ms')", -1, &st, NULL) ==
          SQLITE_OK);
    sqlite3_bind_int64(st, 1, id);
    sqlite3_int64 ms = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return ms;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_sqlite_fork MODULE [ROUNDS]\n");
        return 2;
    }
    /* A host-wide directory of this run's own: never the host's, nor one
     * another run (or another version) left states in. */
    char host_dir[] = "/tmp/mintid-sqlite-test-XXXXXX";
    if (mkdtemp(host_dir) == NULL || setenv("MINTID_HOST_DIR", host_dir, 1) != 0) {
        perror("mkdtemp");
        return 2;
    }
    int rounds = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 100;
    sqlite3 *db;
    char *err = NULL;
    sqlite3_stmt *st;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK || sqlite3_enable_load_extension(db, 1) != SQLITE_OK ||
        sqlite3_load_extension(db, argv[1], NULL, &err) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT gen_nanoflake_int()", -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "test_sqlite_fork: %s: %s\n", argv[1], err != NULL ? err : sqlite3_errmsg(db));
        return 1;
    }
    /* The host-wide state is made with the clock running: a new one waits
     * out its first 100 ms. */
    mint(st);
    int in_batch_ms = 0;
    for (int r = 0; r < rounds; r++) {
        held_ns = 0;
        int64_t start = now_ns() / 1000000;
        while (now_ns() / 1000000 == start) {
        }
        held_ns = (start + 1) * 1000000 + 500000;
        /* The batches grow within this millisecond: 1, 2, 4 ... 32 IDs, then
         * 64, of which a few are handed out before the fork. */
        sqlite3_int64 last = 0;
        for (int i = 0; i < 70; i++)
            last = mint(st);
        int fd[2];
        CHECK(pipe(fd) == 0);
        pid_t pid = fork();
        if (pid == 0) {
            sqlite3_int64 ids[PER_SIDE];
            for (int i = 0; i < PER_SIDE; i++)
                ids[i] = mint(st);
            _exit(write(fd[1], ids, sizeof ids) == (ssize_t)sizeof ids ? 0 : 1);
        }
        CHECK(pid > 0);
        sqlite3_int64 mine[PER_SIDE], child[PER_SIDE];
        for (int i = 0; i < PER_SIDE; i++)
            mine[i] = mint(st);
        close(fd[1]);
        CHECK(read(fd[0], child, sizeof child) == (ssize_t)sizeof child);
        close(fd[0]);
        int status;
        CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        for (int i = 0; i < PER_SIDE; i++)
            for (int j = 0; j < PER_SIDE; j++)
                if (mine[i] == child[j]) {
                    fprintf(stderr, "round %d: %lld minted by the parent and by its child\n", r, (long long)mine[i]);
                    check_failures++;
                }
        if (ms_of(db, child[0]) == ms_of(db, last))
            in_batch_ms++;
    }
    printf("test_sqlite_fork: %d rounds, %d with the child's first ID in the millisecond of the parent's batch\n",
           rounds, in_batch_ms);
    CHECK_INT(in_batch_ms, rounds); /* the clock held, every round tests a batch under way */
    sqlite3_finalize(st);
    sqlite3_close(db);
    char rm[96];
    snprintf(rm, sizeof rm, "rm -rf '%s'", host_dir);
    if (system(rm) != 0)
        fprintf(stderr, "could not remove %s\n", host_dir);
    return check_failures == 0 ? 0 : 1;
}
