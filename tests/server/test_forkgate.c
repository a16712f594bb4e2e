/* SPDX-License-Identifier: MIT */
/*
 * test_forkgate.c - the fork gate (server/forkgate.c): after a fork made
 * with it closed, the gate is open and whole in the parent and in the
 * child, whether or not another thread was waiting at it; a restart's try
 * fails at once while a thread is inside, and keeps nobody out. The gate's
 * source is included so that its lock can be tried without waiting.
 */
#include "../../server/forkgate.c"

#include "../check.h"

#include <errno.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The gate is open: a writer gets it at once, and so do two readers. */
static int gate_is_open(void) {
    if (pthread_rwlock_trywrlock(&gate) != 0)
        return 1;
    if (pthread_rwlock_unlock(&gate) != 0)
        return 2;
    if (pthread_rwlock_tryrdlock(&gate) != 0 || pthread_rwlock_tryrdlock(&gate) != 0)
        return 3;
    pthread_rwlock_unlock(&gate);
    pthread_rwlock_unlock(&gate);
    if (pthread_rwlock_trywrlock(&gate) != 0)
        return 4;
    pthread_rwlock_unlock(&gate);
    return 0;
}

/* Forks with the gate closed by the caller, as spawn() does, and opens it;
 * returns the child's verdict on its own gate. */
static int fork_closed_gate(void) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fork_gate_open_child();
        _exit(gate_is_open());
    }
    fork_gate_open();
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100;
}

static atomic_bool entering, inside, leave_now;

/* A thread of the supervisor's: it enters the gate, and leaves when told. */
static void *reader(void *arg) {
    (void)arg;
    atomic_store(&entering, true);
    fork_gate_enter();
    atomic_store(&inside, true);
    while (!atomic_load(&leave_now)) {
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
    fork_gate_leave();
    return NULL;
}

int main(void) {
    /* No other thread. */
    fork_gate_close();
    CHECK(fork_closed_gate() == 0);
    CHECK(gate_is_open() == 0);

    /* Another thread waiting to enter while the gate is closed for a fork:
     * its wait is the parent's; the child's gate is open. */
    fork_gate_close();
    pthread_t t;
    CHECK(pthread_create(&t, NULL, reader, NULL) == 0);
    while (!atomic_load(&entering)) {
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
    CHECK(fork_closed_gate() == 0);
    while (!atomic_load(&inside)) {
        struct timespec ts = {0, 1000000L};
        nanosleep(&ts, NULL);
    }
    /* A restart only tries while a thread is inside: it gets a no at once,
     * and the thread is not kept from entering again meanwhile. */
    CHECK(!fork_gate_try_close());
    CHECK(pthread_rwlock_tryrdlock(&gate) == 0);
    pthread_rwlock_unlock(&gate);
    atomic_store(&leave_now, true);
    pthread_join(t, NULL);
    CHECK(gate_is_open() == 0);
    CHECK(fork_gate_try_close());
    fork_gate_open();
    return CHECK_DONE();
}
