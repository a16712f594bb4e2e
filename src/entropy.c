/* SPDX-License-Identifier: MIT */
/*
 * entropy.c - random bytes from the kernel, and fork detection.
 *
 * getrandom() costs about as much per call for 10 bytes as for 256, so
 * callers draw from pools refilled in blocks. A pool copied into a child by
 * fork() would hand the child the parent's next bytes; every pool and
 * generator therefore records the process's fork generation, which a
 * pthread_atfork() child handler bumps, and discards itself when it changes.
 */
#include "internal.h"

#include <errno.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>

int mintid__getrandom(void *buf, size_t len) {
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = getrandom(p, len, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return MINTID_EENTROPY;
        }
        p += n;
        len -= (size_t)n;
    }
    return MINTID_OK;
}

/*
 * libcrypto frees its state in an atexit() handler, after which a thread
 * still minting, or an atexit() handler of the application that mints,
 * would use freed memory. Asked first, at load, it keeps its state to the
 * end of the process. After an explicit OPENSSL_cleanup() it cannot be
 * used at all; the pools are then refilled from getrandom().
 */
__attribute__((constructor)) static void keep_libcrypto(void) { OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL); }

/*
 * In a child of fork() (the fork generation moved on), from getrandom():
 * a lock of libcrypto that another thread of the parent held at the fork
 * stays held in the child, where no thread will let it go, and RAND_bytes()
 * would wait for it forever (holding a host-wide state's lock meanwhile).
 */
int mintid__random_bytes(void *buf, size_t len) {
    if (mintid__fork_generation() != 1 || OPENSSL_init_crypto(0, NULL) != 1)
        return mintid__getrandom(buf, len);
    uint8_t *p = buf;
    while (len > 0) {
        int n = len > INT_MAX ? INT_MAX : (int)len;
        if (RAND_bytes(p, n) != 1)
            return MINTID_EENTROPY;
        p += n;
        len -= (size_t)n;
    }
    return MINTID_OK;
}

static atomic_uint_fast64_t fork_generation = 1;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static atomic_bool atfork_registered; /* the hot path's test, so pthread_once() runs only at first */
/*
 * A page the kernel zeroes in the child of every fork (MADV_WIPEONFORK),
 * holding 1 in the process that set it: it tells a child made without the
 * pthread_atfork() handlers (_Fork(), a raw clone()) from its parent.
 */
static _Atomic(uint8_t) *wipe_on_fork;

static void on_fork_child(void) { atomic_fetch_add_explicit(&fork_generation, 1, memory_order_relaxed); }

static void register_atfork(void) {
    pthread_atfork(NULL, NULL, on_fork_child);
    void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page != MAP_FAILED && madvise(page, 4096, MADV_WIPEONFORK) == 0) {
        wipe_on_fork = page;
        atomic_store_explicit(wipe_on_fork, 1, memory_order_relaxed);
    } else if (page != MAP_FAILED) {
        munmap(page, 4096);
    }
    atomic_store_explicit(&atfork_registered, true, memory_order_release);
}

uint64_t mintid__fork_generation(void) {
    if (!atomic_load_explicit(&atfork_registered, memory_order_acquire))
        pthread_once(&atfork_once, register_atfork);
    if (wipe_on_fork != NULL && atomic_load_explicit(wipe_on_fork, memory_order_relaxed) == 0 &&
        atomic_exchange_explicit(wipe_on_fork, 1, memory_order_relaxed) == 0)
        atomic_fetch_add_explicit(&fork_generation, 1, memory_order_relaxed);
    return atomic_load_explicit(&fork_generation, memory_order_relaxed);
}

/* One pool per thread, so mintid_random_system() needs no lock. */
#define POOL_SIZE 256

static _Thread_local struct {
    uint8_t buf[POOL_SIZE];
    size_t pos; /* bytes of buf already handed out */
    uint64_t generation;
} pool = {.pos = POOL_SIZE};

int mintid_random_system(void *ctx, void *buf, size_t len) {
    (void)ctx;
    uint64_t gen = mintid__fork_generation();
    if (pool.generation != gen) {
        /* Never hand out what the parent had left in this pool. */
        memset(pool.buf, 0, sizeof pool.buf);
        pool.pos = POOL_SIZE;
        pool.generation = gen;
    }
    if (len > POOL_SIZE / 2)
        return mintid__getrandom(buf, len);
    uint8_t *out = buf;
    while (len > 0) {
        if (pool.pos == POOL_SIZE) {
            int rc = mintid__getrandom(pool.buf, POOL_SIZE);
            if (rc != MINTID_OK)
                return rc;
            pool.pos = 0;
        }
        size_t n = POOL_SIZE - pool.pos < len ? POOL_SIZE - pool.pos : len;
        memcpy(out, pool.buf + pool.pos, n);
        /* Bytes handed out are wiped so they cannot leak later. */
        memset(pool.buf + pool.pos, 0, n);
        pool.pos += n;
        out += n;
        len -= n;
    }
    return MINTID_OK;
}
