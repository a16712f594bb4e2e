/* SPDX-License-Identifier: MIT */
/*
 * forkgate.h - what makes the supervisor's fork of a worker safe while its
 * own threads (the state writer, the lease thread) run.
 *
 * A child of fork() has one thread, and every lock another thread held at
 * that moment stays held in it for good: the allocator's (AddressSanitizer's
 * takes none across a fork), OpenSSL's method store, libcurl's. A worker
 * forked while the lease thread was inside libcurl could hang at its first
 * TLS handshake or allocation. So those threads hold the gate, shared, while
 * they work, and let go of it only where they wait (holding no library's
 * lock); the supervisor closes the gate around fork(), waiting for them to
 * reach such a place, and opens it again in the parent; the child, with a
 * gate of its own, starts it open.
 * A restart is put off, and tried again every few milliseconds, for as
 * long as one round of the lease thread's work: a keepalive with its
 * confirmation and mark, or a whole acquisition of a node id, each request
 * up to 2 s per etcd endpoint tried (more with etcd-user). It only tries
 * (fork_gate_try_close): a waiting writer would keep the state writer out
 * meanwhile, and the supervisor's loop, which passes the workers' asks for
 * a mark on, would wait too. Only the first workers, forked at start, wait.
 */
#ifndef MINTIDD_FORKGATE_H
#define MINTIDD_FORKGATE_H

#include <stdbool.h>

/* A thread of the supervisor's is about to call into libraries. */
void fork_gate_enter(void);
/* It is about to wait, holding no library's lock. */
void fork_gate_leave(void);
/* Before fork(): returns once no thread is between enter and leave, and keeps them out. */
void fork_gate_close(void);
/* The same, but false at once, leaving the gate open, while a thread is inside. */
bool fork_gate_try_close(void);
/* After fork(), in the parent. */
void fork_gate_open(void);
/* After fork(), in the child, first: its gate open, with no thread at it. */
void fork_gate_open_child(void);

#endif
