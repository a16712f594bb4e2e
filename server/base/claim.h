/* SPDX-License-Identifier: MIT */
/*
 * claim.h - the host-wide claim on a node id: one mintidd per (id-space,
 * node id) on a host, whatever happens to state directories on disk.
 *
 * A claim is a listening Unix socket in the abstract namespace (Linux),
 * named after the id-space and the node id. The kernel lets one socket at
 * a time hold a name, and releases it only when the socket is closed, by
 * the server or by its exit: no file stands for it, so no rm, rename or
 * swapped symlink can let a second server take the node id while the
 * first runs. A server refused the name connects to it and learns the
 * holder's pid from the kernel (SO_PEERCRED), to name it.
 *
 * The name lives in the network namespace: servers in different network
 * namespaces of one host do not see each other's claims.
 */
#ifndef MINTIDD_CLAIM_H
#define MINTIDD_CLAIM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define CLAIM_SPACE_MAX 64 /* longest id-space name */

typedef struct node_claim {
    pthread_mutex_t lock; /* the lease thread moves the claim while the loop answers on it */
    int fd;               /* the listening socket; -1 while no node id is claimed */
    int64_t node;         /* the node id claimed; -1 while none */
    char space[CLAIM_SPACE_MAX + 1];
} node_claim;

/* True if `space` is 1..CLAIM_SPACE_MAX of letters, digits, '.', '_' and '-'. */
bool claim_space_valid(const char *space);

/* Prepares a claim holding nothing, in the id-space `space` (claim_space_valid). */
int claim_init(node_claim *c, const char *space);

/*
 * Claims `node` for this process, letting go of the node id claimed
 * before only once the new one is held. Returns 0 (also when `node` is the
 * one held already); 1 when another process holds it, with its pid in
 * *holder (0 if it cannot be learnt); -1 on any other failure, with errno.
 */
int claim_take(node_claim *c, uint64_t node, long *holder);

/* Lets the claimed node id go (nothing if none). */
void claim_release(node_claim *c);

/*
 * Accepts and closes the connections of servers that asked who holds the
 * claim, so that they do not fill its backlog; never blocks. For a timer.
 */
void claim_answer(node_claim *c);

/* Releases the claim and what it holds. */
void claim_free(node_claim *c);

#endif
