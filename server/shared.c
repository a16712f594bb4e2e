/* SPDX-License-Identifier: MIT */
/*
 * shared.c - the region of shared memory the supervisor and its workers
 * share (shared.h).
 */
#include "shared.h"

#include "log.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

shared *shared_new(unsigned nslots) {
    size_t size = sizeof(shared) + (size_t)nslots * sizeof(service_counters);
    /* Anonymous and shared: inherited by every fork, gone with the last process. */
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        log_msg(LOG_ERROR, "cannot map %zu bytes of shared memory for the workers: %s", size, strerror(errno));
        return NULL;
    }
    shared *sh = p;
    sh->nslots = nslots;
    sh->size = size;
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
