/* SPDX-License-Identifier: MIT */
/*
 * test_fork.c - fork() safety: a child never continues a generator it
 * inherited, and never repeats the parent's random bytes.
 */
#include "check.h"
#include "mintid.h"

#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs `child` in a child process and returns its exit status; raw: made
 * by _Fork(), which runs no pthread_atfork() handlers. */
static int in_child_how(int (*child)(void *), void *arg, bool raw) {
    fflush(NULL);
    pid_t pid = raw ? _Fork() : fork();
    if (pid == 0)
        _exit(child(arg));
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

static int in_child(int (*child)(void *), void *arg) { return in_child_how(child, arg, false); }

static int child_uses_inherited(void *arg) {
    mintid_gen *gen = arg;
    mintid_id id;
    uint64_t v;
    /* Every call on the inherited generator says so, and mints nothing. */
    if (mintid_gen_next(gen, &id) != MINTID_EFORKED)
        return 1;
    if (mintid_gen_format(gen)->bits == 64 && mintid_gen_next_u64(gen, &v, 1) != MINTID_EFORKED)
        return 2;
    /* A new generator in the child works. */
    mintid_gen *fresh;
    if (mintid_gen_new(mintid_gen_format(gen), NULL, &fresh) != MINTID_OK)
        return 3;
    if (mintid_gen_next(fresh, &id) != MINTID_OK)
        return 4;
    mintid_gen_free(fresh);
    mintid_gen_free(gen);
    return 0;
}

static void test_inherited_generator(void) {
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        mintid_gen *gen;
        mintid_id id;
        CHECK_INT(mintid_gen_new(mintid_format_get((mintid_format_id)f), NULL, &gen), MINTID_OK);
        CHECK_INT(mintid_gen_next(gen, &id), MINTID_OK);
        CHECK_INT(in_child(child_uses_inherited, gen), 0);
        /* The parent carries on. */
        CHECK_INT(mintid_gen_next(gen, &id), MINTID_OK);
        mintid_gen_free(gen);
    }
}

/* The same for a child made without the atfork handlers (_Fork(), a raw clone()). */
static void test_inherited_generator_raw_fork(void) {
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        mintid_gen *gen;
        mintid_id id;
        CHECK_INT(mintid_gen_new(mintid_format_get((mintid_format_id)f), NULL, &gen), MINTID_OK);
        CHECK_INT(mintid_gen_next(gen, &id), MINTID_OK);
        CHECK_INT(in_child_how(child_uses_inherited, gen, true), 0);
        CHECK_INT(mintid_gen_next(gen, &id), MINTID_OK);
        mintid_gen_free(gen);
    }
}

/* The child's next random bytes, through a pipe. */
static int pipe_fd;
static int child_random(void *arg) {
    (void)arg;
    uint8_t b[16];
    if (mintid_random_system(NULL, b, sizeof b) != MINTID_OK)
        return 1;
    return write(pipe_fd, b, sizeof b) == (ssize_t)sizeof b ? 0 : 2;
}

static void test_random_pool(void) {
    /* Fill the pool, then compare what parent and child draw next: a pool
     * copied by fork() would give both the same bytes. */
    uint8_t warm[8], mine[16], theirs[16];
    CHECK_INT(mintid_random_system(NULL, warm, sizeof warm), MINTID_OK);
    int fds[2];
    CHECK(pipe(fds) == 0);
    pipe_fd = fds[1];
    CHECK_INT(in_child(child_random, NULL), 0);
    CHECK(read(fds[0], theirs, sizeof theirs) == (ssize_t)sizeof theirs);
    CHECK_INT(mintid_random_system(NULL, mine, sizeof mine), MINTID_OK);
    CHECK(memcmp(mine, theirs, sizeof mine) != 0);
    close(fds[0]);
    close(fds[1]);
}

int main(void) {
    test_inherited_generator();
    test_inherited_generator_raw_fork();
    test_random_pool();
    return CHECK_DONE();
}
