/* SPDX-License-Identifier: MIT */
/*
 * resp_reply.h - RESP2 and RESP3 replies (resp_reply.c): errors with their
 * codes, the values commands answer with, and a mint job's and a key's IDs.
 * Each function appends one reply (or the head of one) to out; those given
 * c frame it as c's session asks (RESP3 after HELLO 3) or count an error.
 */
#ifndef MINTIDD_RESP_REPLY_H
#define MINTIDD_RESP_REPLY_H

#include "keys/keys.h"
#include "mintid.h"
#include "net/conn.h"

#include <event2/buffer.h>
#include <stddef.h>
#include <stdint.h>

/* An error with Redis's generic code, ERR. */
void resp_reply_error(conn *c, struct evbuffer *out, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An error with its own code, which clients act on: NOAUTH, WRONGPASS, NOPROTO, EXECABORT. */
void resp_reply_coded(conn *c, struct evbuffer *out, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The error code of a library status's class: TRYAGAIN for the clock and a millisecond's capacity, else ERR. */
const char *resp_code(mintid_class cls);
/* An error with the code of rc's class and the sentence why (the library's). */
void resp_reply_why(conn *c, struct evbuffer *out, int rc, const char *why);

/* Null; a map of n pairs (RESP2: an array of 2n); a set of n (RESP2: an array). */
void resp_reply_null(const conn *c, struct evbuffer *out);
void resp_reply_map(const conn *c, struct evbuffer *out, size_t n);
void resp_reply_set(const conn *c, struct evbuffer *out, size_t n);
void resp_reply_int(struct evbuffer *out, int64_t v);
void resp_reply_ok(struct evbuffer *out);
/* A bulk string of s[0..n), or of the string s. */
void resp_reply_bulk(struct evbuffer *out, const char *s, size_t n);
void resp_reply_str(struct evbuffer *out, const char *s);

/* A MINT's job (job_start): its IDs as bulk strings, and its reply once they are minted. */
void resp_encode(conn *c, const mintid_id *ids, size_t n);
void resp_finish(conn *c, int status, const char *why);
/* The key store's answers to MINT ... KEY key and to KEYGET (keys_begin, keys_lookup). */
void resp_key_done(conn *c, const key_request *r);
void resp_keyget_done(conn *c, const key_request *r);

#endif
