/* SPDX-License-Identifier: MIT */
/*
 * shared.c - the region of shared memory the supervisor and its workers
 * share (shared.h).
 */
#include "shared.h"

#include "base/log.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* "mintidd" and a version: whatever else a worker finds at its descriptor is refused. */
#define SHARED_MAGIC UINT64_C(0x6d696e7469646401)

shared *shared_new(unsigned nslots, int *fd) {
    size_t size = sizeof(shared) + (size_t)nslots * sizeof(service_counters);
    /* A memfd, not an anonymous mapping: a worker is a new program, which
     * inherits descriptors, not mappings. It goes with the last process
     * that holds it. */
    *fd = memfd_create("mintidd-shared", MFD_CLOEXEC);
    if (*fd < 0 || ftruncate(*fd, (off_t)size) != 0) {
        log_msg(LOG_ERROR, "cannot make %zu bytes of shared memory for the workers: %s", size, strerror(errno));
        if (*fd >= 0)
            close(*fd);
        *fd = -1;
        return NULL;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (p == MAP_FAILED) {
        log_msg(LOG_ERROR, "cannot map %zu bytes of shared memory for the workers: %s", size, strerror(errno));
        close(*fd);
        *fd = -1;
        return NULL;
    }
    shared *sh = p;
    sh->magic = SHARED_MAGIC;
    sh->nslots = nslots;
    sh->size = size;
    return sh;
}

shared *shared_attach(int fd) {
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (size_t)sb.st_size < sizeof(shared)) {
        log_msg(LOG_ERROR, "descriptor %d is not the supervisor's shared memory", fd);
        return NULL;
    }
    size_t size = (size_t)sb.st_size;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        log_msg(LOG_ERROR, "cannot map the supervisor's shared memory: %s", strerror(errno));
        return NULL;
    }
    shared *sh = p;
    if (sh->magic != SHARED_MAGIC || sh->size != size ||
        size != sizeof(shared) + (size_t)sh->nslots * sizeof(service_counters)) {
        munmap(p, size);
        log_msg(LOG_ERROR, "descriptor %d is not the supervisor's shared memory", fd);
        return NULL;
    }
    return sh;
}

void shared_free(shared *sh) {
    if (sh != NULL)
        munmap(sh, sh->size);
}

void shared_reset_gauges(service_counters *slot) {
    memset(slot->connections, 0, sizeof slot->connections);
    slot->parked_now = 0;
    slot->queued_bytes = 0;
    slot->input_bytes = 0;
}
