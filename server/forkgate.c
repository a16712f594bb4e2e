/* SPDX-License-Identifier: MIT */
/*
 * forkgate.c - the gate of forkgate.h: a read-write lock that prefers the
 * writer, so that a fork waits for the threads' current work and no longer.
 */
#include "forkgate.h"

#include <pthread.h>

static pthread_rwlock_t gate = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;

void fork_gate_enter(void) { pthread_rwlock_rdlock(&gate); }

void fork_gate_leave(void) { pthread_rwlock_unlock(&gate); }

void fork_gate_close(void) { pthread_rwlock_wrlock(&gate); }

bool fork_gate_try_close(void) { return pthread_rwlock_trywrlock(&gate) == 0; }

void fork_gate_open(void) { pthread_rwlock_unlock(&gate); }

/*
 * Not an unlock: glibc knows a write lock's holder by its thread id, and the
 * child's one thread has a new one, so unlocking there would take the
 * parent's write lock for a read lock, count a reader below zero and leave
 * the gate closed for good. The lock (and any wait of the parent's threads
 * recorded in it) is the parent's; the child starts one of its own.
 */
void fork_gate_open_child(void) {
    /* Made by pthread_rwlock_init(), not copied from an initializer, so
     * that ThreadSanitizer too learns that the lock is a new one. */
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&gate, &attr);
    pthread_rwlockattr_destroy(&attr);
}
