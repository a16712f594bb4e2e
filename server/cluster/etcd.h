/* SPDX-License-Identifier: MIT */
/*
 * etcd.h - the one client of etcd's v3 JSON gateway (libcurl, jansson), used
 * by the node lease (lease.c) and the idempotency keys (keys/etcd_store.c).
 *
 * Requests are built and answers read as jansson values. etcd's byte fields
 * (keys and values) travel as base64 in JSON; the builders and readers here
 * encode and decode them (OpenSSL's EVP base64, lengths checked, never
 * truncated), so callers deal in plain text and bytes. etcd's 64-bit integers
 * (lease ids, revisions) travel as JSON strings and are read by etcd_int().
 *
 * A client is used by one thread at a time. Each request is tried on one
 * endpoint after another until one answers, with TLS and an auth token when
 * configured (got first, and got again once when etcd says it expired).
 */
#ifndef MINTIDD_ETCD_H
#define MINTIDD_ETCD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ETCD_MAX_ENDPOINTS 8
/* The largest answer read: a key store's value (up to 1 MiB of stored bytes)
 * comes back as base64, a third larger, inside the answer's JSON. */
#define ETCD_ANSWER_MAX (4u << 20)

typedef struct etcd etcd;

/* How a request ended. */
typedef enum etcd_status {
    ETCD_OK = 0,
    ETCD_UNREACHABLE = -1,  /* no endpoint answered: not reached, timed out, or an answer that is not etcd's JSON */
    ETCD_AUTH_REFUSED = -2, /* etcd refused etcd-user with its password (the last endpoint tried did) */
    ETCD_REFUSED = -3,      /* etcd answered with an error ({"error": ...}): its message in text */
    ETCD_MALFORMED = -4,    /* etcd answered, without a field the operation reads */
    ETCD_NOMEM = -5,        /* the request could not be built */
} etcd_status;

typedef struct etcd_config {
    char endpoints[ETCD_MAX_ENDPOINTS][128]; /* "http://host:port" or "https://host:port" */
    int nendpoints;
    char ca[256], cert[256], key[256]; /* PEM files, empty for none: etcd's CAs, our client certificate and key */
    char user[128];                    /* etcd-user, empty for none */
    char password[256];                /* never logged; etcd_close() zeroes the client's copy */
    long timeout_ms;                   /* for connecting to one endpoint, and for its whole answer */
    char who[32];                      /* whose client, starting its log lines: "node lease" */
    /* Told when a request starts (asking) and when it ends, with how; NULL
     * for none. The node lease publishes from it whether etcd answers. */
    void (*on_ask)(void *ctx, bool asking, etcd_status status);
    void *on_ask_ctx;
} etcd_config;

typedef struct etcd_error {
    etcd_status status;
    long grpc_code; /* the gRPC status etcd gave with an error (ETCD_REFUSED, ETCD_AUTH_REFUSED); else -1 */
    char text[256]; /* for people: the endpoint and libcurl's reason, or etcd's own message; never the password */
} etcd_error;

/* Whether etcd was reached: it answered, even with an error. */
static inline bool etcd_answered(etcd_status s) { return s == ETCD_OK || s == ETCD_REFUSED || s == ETCD_MALFORMED; }

/*
 * A client on cfg's endpoints (copied; the caller may zero its password
 * then). NULL after logging why (libcurl could not start, no memory).
 * etcd_close() releases it (NULL is fine), zeroing its token and password.
 */
etcd *etcd_open(const etcd_config *cfg);
void etcd_close(etcd *e);

/*
 * POSTs request (taken, even on failure; NULL is ETCD_NOMEM) to /v3/PATH.
 * The answer (the caller decrefs it), or NULL with err set. An error etcd
 * reports ({"error": ...}, e.g. "etcdserver: no leader") is ETCD_REFUSED:
 * etcd was reached. err is always set, ETCD_OK with a non-NULL answer.
 */
json_t *etcd_call(etcd *e, const char *path, json_t *request, etcd_error *err);

/*
 * kv/range: the key (text), or the keys in [key, range_end) when range_end is
 * not NULL; keys_only leaves the values out. The answer, read with
 * etcd_kv(); NULL with err set.
 */
json_t *etcd_range(etcd *e, const char *key, const char *range_end, bool keys_only, etcd_error *err);

/*
 * kv/txn: if every comparison of compare holds, the operations of success,
 * else those of failure. The three arrays are taken, even on failure; NULL
 * for any of them is ETCD_NOMEM (give json_array() for none), so that a
 * transaction never goes out without a part that failed to be built. The
 * answer (its responses read with etcd_txn_range()) with *succeeded; NULL
 * with err set.
 */
json_t *etcd_txn(etcd *e, json_t *compare, json_t *success, json_t *failure, bool *succeeded, etcd_error *err);

/* lease/grant of ttl_s: ETCD_OK with the lease's id and the TTL granted, both above 0. */
etcd_status etcd_lease_grant(etcd *e, int64_t ttl_s, uint64_t *id, int64_t *granted_s, etcd_error *err);
/* lease/keepalive: ETCD_OK with the TTL granted in *ttl_s, or 0 if the lease is gone (expired or revoked). */
etcd_status etcd_lease_keepalive(etcd *e, uint64_t id, int64_t *ttl_s, etcd_error *err);
/* lease/revoke, which deletes the keys attached to it; a lease etcd does not know is ETCD_REFUSED. */
etcd_status etcd_lease_revoke(etcd *e, uint64_t id, etcd_error *err);

/*
 * The parts of a transaction, new values (NULL if out of memory): keys are
 * text, values bytes; lease 0 is none.
 */
json_t *etcd_cmp_absent(const char *key);                                            /* the key does not exist */
json_t *etcd_cmp_lease(const char *key, uint64_t lease);                             /* it is attached to lease */
json_t *etcd_cmp_value(const char *key, const void *value, size_t len);              /* its value is value */
json_t *etcd_op_put(const char *key, const void *value, size_t len, uint64_t lease); /* put, under lease */
json_t *etcd_op_delete(const char *key);                                             /* delete the key */
json_t *etcd_op_range(const char *key);                                              /* read the key */

/*
 * Reading answers; none of them allocates, and a missing or ill-typed part
 * reads as NULL. etcd_kv: the i-th key of a range answer (or of a
 * transaction's range), NULL past the last. etcd_txn_range: the range answer
 * of a transaction's i-th operation, NULL if it was not a range.
 */
json_t *etcd_kv(const json_t *range, size_t i);
json_t *etcd_txn_range(const json_t *txn, size_t i);

/* A decimal of s[0..len) in 0..INT64_MAX, as etcd writes them: digits only, no sign, no overflow. */
bool etcd_parse_i64(const char *s, size_t len, int64_t *out);
/* An int64 field, which the gateway writes as a JSON string (or a number): 0..INT64_MAX, or -1 if absent or not. */
int64_t etcd_int(const json_t *obj, const char *name);

/* ---- base64, etcd's byte fields (pure: no I/O, no allocation) ------------------------------ */

/* The length of the base64 of n bytes (padded), without its NUL. */
#define ETCD_B64_LEN(n) (4 * (((n) + 2) / 3))

/* Why a decode failed (negative returns of the functions below). */
enum { ETCD_B64_ABSENT = -1, ETCD_B64_INVALID = -2, ETCD_B64_TOO_LONG = -3, ETCD_B64_NOT_TEXT = -4 };
/* Words for people: "no value", "not base64", "too long", "not text". */
const char *etcd_b64_why(long rc);

/*
 * Encodes n bytes into out, NUL-terminated: its length (ETCD_B64_LEN(n)), or
 * ETCD_B64_TOO_LONG with out empty if cap < ETCD_B64_LEN(n) + 1. Never
 * truncates.
 */
long etcd_b64_encode(const void *in, size_t n, char *out, size_t cap);
/*
 * Decodes len characters of padded standard base64, strictly (the alphabet,
 * a length that is a multiple of 4, '=' only as one or two final padding
 * characters, and no bits set past the last byte): the number of bytes
 * written to out, ETCD_B64_INVALID, or ETCD_B64_TOO_LONG if they do not fit
 * in cap (nothing is written then).
 */
long etcd_b64_decode(const char *in, size_t len, unsigned char *out, size_t cap);

/* A JSON string holding the base64 of n bytes (NULL if out of memory). */
json_t *etcd_b64_json(const void *in, size_t n);
/*
 * The bytes of a JSON string of base64: malloc'd with a NUL after them, their
 * count in *len; NULL with *why (ETCD_B64_ABSENT if v is not a string,
 * ETCD_B64_INVALID, ETCD_B64_TOO_LONG if out of memory).
 */
unsigned char *etcd_b64_json_bytes(const json_t *v, size_t *len, long *why);
/*
 * A key's field ("key" or "value") as text in out (cap bytes, NUL included):
 * its length, or ETCD_B64_ABSENT, ETCD_B64_INVALID, ETCD_B64_TOO_LONG,
 * ETCD_B64_NOT_TEXT (a NUL byte inside), with out empty.
 */
long etcd_kv_text(const json_t *kv, const char *field, char *out, size_t cap);

#endif
