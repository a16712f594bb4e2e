/* SPDX-License-Identifier: MIT */
/*
 * claim.c - the host-wide claim on a node id, as an abstract Unix socket.
 *
 * Name: "\0mintidd/<id-space>/node/<node id>". The socket listens only so
 * that a server refused the name can connect and read the holder's pid
 * (the kernel records it at listen(), so it is the holder's own and not
 * something the holder says); nothing is ever read from or written to a
 * connection.
 */
#include "base/claim.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define CLAIM_BACKLOG 128 /* servers asking between two answers (reserve-ahead/4); later ones learn no pid */

bool claim_space_valid(const char *space) {
    size_t n = strlen(space);
    if (n == 0 || n > CLAIM_SPACE_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)space[i]) && space[i] != '.' && space[i] != '_' && space[i] != '-')
            return false;
    return true;
}

int claim_init(node_claim *c, const char *space) {
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->node = -1;
    if (!claim_space_valid(space)) {
        errno = EINVAL;
        return -1;
    }
    memcpy(c->space, space, strlen(space) + 1);
    return pthread_mutex_init(&c->lock, NULL) == 0 ? 0 : -1;
}

/* The abstract address of (space, node); returns its length. */
static socklen_t address_of(const node_claim *c, uint64_t node, struct sockaddr_un *addr) {
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    /* sun_path[0] stays NUL: the abstract namespace. The name fits: the
     * space is at most CLAIM_SPACE_MAX bytes and sun_path holds 108. */
    int n = snprintf(addr->sun_path + 1, sizeof addr->sun_path - 1, "mintidd/%s/node/%" PRIu64, c->space, node);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/*
 * The pid of the process listening on addr, from the kernel's record of
 * its credentials; 0 if it cannot be learnt (it is not listening yet, or
 * its backlog is full of askers it has not answered, being stopped).
 */
static long holder_of(const struct sockaddr_un *addr, socklen_t len) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    long pid = 0;
    struct ucred cred;
    socklen_t clen = sizeof cred;
    if (connect(fd, (const struct sockaddr *)addr, len) == 0 &&
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0 && cred.pid > 0)
        pid = (long)cred.pid;
    close(fd);
    return pid;
}

int claim_take(node_claim *c, uint64_t node, long *holder) {
    *holder = 0;
    pthread_mutex_lock(&c->lock);
    if (c->fd >= 0 && c->node == (int64_t)node) {
        pthread_mutex_unlock(&c->lock);
        return 0;
    }
    struct sockaddr_un addr;
    socklen_t len = address_of(c, node, &addr);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int rc = fd < 0 ? -1 : 0;
    if (rc == 0 && (bind(fd, (const struct sockaddr *)&addr, len) != 0 || listen(fd, CLAIM_BACKLOG) != 0)) {
        int err = errno;
        close(fd);
        errno = err;
        rc = err == EADDRINUSE ? 1 : -1;
    }
    if (rc == 0) {
        /* The new node id is held: only now may the old one go. */
        if (c->fd >= 0)
            close(c->fd);
        c->fd = fd;
        c->node = (int64_t)node;
    }
    pthread_mutex_unlock(&c->lock);
    if (rc == 1)
        *holder = holder_of(&addr, len);
    return rc;
}

void claim_release(node_claim *c) {
    pthread_mutex_lock(&c->lock);
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    c->node = -1;
    pthread_mutex_unlock(&c->lock);
}

void claim_answer(node_claim *c) {
    pthread_mutex_lock(&c->lock);
    for (int fd; c->fd >= 0 && (fd = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC)) >= 0;)
        close(fd);
    pthread_mutex_unlock(&c->lock);
}

void claim_free(node_claim *c) {
    claim_release(c);
    pthread_mutex_destroy(&c->lock);
}
