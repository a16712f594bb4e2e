/* SPDX-License-Identifier: MIT */
/*
 * auth.h - authentication: auth-file's secrets, and the one check both
 * protocols make of a secret a client offers, with its limits on wrong
 * secrets per connection, per client address and for all clients.
 */
#ifndef MINTIDD_AUTH_H
#define MINTIDD_AUTH_H

#include "server.h"

#include <stddef.h>
#include <stdint.h>

/*
 * The wrong secrets one client address has given, as the time its budget
 * is spent up to (a GCRA's theoretical arrival time): a failure moves it
 * one interval on, and a secret is checked only while it is less than a
 * second ahead of now.
 */
typedef struct auth_bucket {
    unsigned char addr[16]; /* IPv4-mapped, or an IPv6 /64 */
    uint64_t tat_ns;        /* CLOCK_MONOTONIC; at or before now: nothing spent */
} auth_bucket;
/* Client addresses tracked at once; an address that does not fit takes the
 * slot of the one with least spent, and the limit on all clients stays. */
#define AUTH_BUCKETS 4096

#define AUTH_DIGEST_LEN 32
/* Longest secret a line of auth-file may hold. */
#define AUTH_SECRET_MAX 1024
/* Wrong secrets one connection may offer at full speed; after them each
 * wrong one doubles a pause (from AUTH_PAUSE_MS to AUTH_PAUSE_MAX_MS) during
 * which secrets are refused unchecked, and at AUTH_MAX_FAILURES the
 * connection is closed. */
#define AUTH_FREE_FAILURES 3
#define AUTH_PAUSE_MS 250
#define AUTH_PAUSE_MAX_MS 2000
#define AUTH_MAX_FAILURES 10

/*
 * Only SHA-256 digests of the secrets are held, so the comparison takes
 * the same time whatever the length of the secret or of the guess, and the
 * secrets themselves are not kept in memory.
 */
struct auth {
    size_t n;
    unsigned char (*digest)[AUTH_DIGEST_LEN];
};

/*
 * Reads path: one secret per line (CR LF or LF), blank lines skipped.
 * Returns 0, or -1 after logging why (never a secret): unreadable, no
 * secret, a line longer than AUTH_SECRET_MAX, a NUL byte.
 */
int auth_load(auth *a, const char *path);
void auth_free(auth *a);

typedef enum auth_result {
    AUTH_OK,
    AUTH_WRONG,   /* not a secret of the file */
    AUTH_TOO_SOON /* refused unchecked: wrong ones came too fast; *retry_ms says when to try, *where from whom */
} auth_result;

/*
 * Checks secret[0..len) offered on c, in constant time against every
 * secret, and counts a refusal in the service's auth_failures. Wrong
 * secrets are limited on the connection (AUTH_FREE_FAILURES...), from its
 * client address (auth-failures-per-address) and from all clients
 * (auth-failures-total); past a limit a secret is refused unchecked, and
 * *where says which ("on this connection", "from this address", "on this
 * server"). Past AUTH_MAX_FAILURES on c it also sets c->closing.
 */
auth_result auth_attempt(conn *c, const char *secret, size_t len, uint64_t *retry_ms, const char **where);

/* Forgets the wrong secrets counted per client address (the server is closing). */
void auth_forget(server *srv);

#endif
