/* SPDX-License-Identifier: MIT */
/*
 * lease_view.c - what the service reads of a node lease: whether it is
 * held and usable, on the clock leases are fenced on. Only the lease's
 * atomics are read, and nothing here talks to etcd, so the service and the
 * protocol handlers link without lease.c and its etcd client (etcd.c,
 * libcurl, jansson): the handler fuzzer links them so.
 */
#include "cluster/lease.h"

#include <time.h>

uint64_t lease_clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool lease_held(lease *l) { return atomic_load(&l->node) >= 0 && lease_clock_ns() < atomic_load(&l->valid_until_ns); }

uint64_t lease_wait_ns(lease *l) {
    uint64_t from = atomic_load(&l->valid_from_ns), now = lease_clock_ns();
    return lease_held(l) && now < from ? from - now : 0;
}

bool lease_valid(lease *l) { return lease_held(l) && lease_clock_ns() >= atomic_load(&l->valid_from_ns); }

/* etcd answers within milliseconds when it is up; a request unanswered for
 * half a second is etcd not answering (down, cut off or frozen). */
#define LEASE_UNANSWERED_NS 500000000u

bool lease_etcd_unreachable(lease *l) {
    uint64_t since = atomic_load(&l->asking_since_ns);
    return atomic_load(&l->unreachable) || (since != 0 && lease_clock_ns() - since > LEASE_UNANSWERED_NS);
}
