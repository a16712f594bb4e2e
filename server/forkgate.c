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

/* The child's one thread is the one that closed the gate: it may open it. */
void fork_gate_open(void) { pthread_rwlock_unlock(&gate); }
