/* SPDX-License-Identifier: MIT */
/*
 * host_lock.c - a test's hand on a host-wide state's lock, as a debugger's
 * would be:
 *
 *   host_lock owner DIR SPACE FORMAT NODE   the thread the lock word names (0: none)
 *   host_lock hold DIR SPACE FORMAT NODE    takes the lock, says "held", and stops itself (SIGSTOP)
 *
 * NODE is the node id of a format with one (else ignored); the epoch is
 * the format's default. Exit status 0, or 1 with a message.
 */
#include "internal.h"
#include "mintid.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 6 || (strcmp(argv[1], "owner") != 0 && strcmp(argv[1], "hold") != 0)) {
        fprintf(stderr, "usage: host_lock owner|hold DIR SPACE FORMAT NODE\n");
        return 1;
    }
    const mintid_format *fmt = mintid_format_find(argv[4]);
    if (fmt == NULL) {
        fprintf(stderr, "host_lock: no format '%s'\n", argv[4]);
        return 1;
    }
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    if (fmt->node_bits > 0 && !fmt->node_optional)
        cfg.node = atoll(argv[5]);
    struct mintid__host *h;
    int rc = mintid__host_open(mintid__impl(fmt), &cfg, argv[2], argv[3], false, &h);
    if (rc != MINTID_OK) {
        fprintf(stderr, "host_lock: %s\n", mintid_strerror(rc));
        return 1;
    }
    if (strcmp(argv[1], "owner") == 0) {
        printf("%u\n", mintid__host_lock_owner(h));
        mintid__host_close(h);
        return 0;
    }
    if ((rc = mintid__host_lock(h)) != MINTID_OK) {
        fprintf(stderr, "host_lock: %s\n", mintid_strerror(rc));
        return 1;
    }
    printf("held\n");
    fflush(stdout);
    raise(SIGSTOP);
    mintid__host_unlock(h);
    return 0;
}
