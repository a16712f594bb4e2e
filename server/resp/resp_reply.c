/* SPDX-License-Identifier: MIT */
/*
 * resp_reply.c - the Redis protocol's replies: RESP2, or RESP3 after HELLO 3
 * where the two differ (maps, sets, null); errors with the code clients act
 * on, and a library status's class as one; and the replies of a mint job
 * (its IDs as bulk strings, one or an array) and of the key store.
 */
#include "resp/resp_reply.h"

#include "resp/resp_session.h"
#include "service.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void reply_errorv(conn *c, struct evbuffer *out, const char *code, const char *fmt, va_list ap) {
    char msg[600];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* An error line must not contain CR or LF. */
    for (char *p = msg; *p != '\0'; p++)
        if (*p == '\r' || *p == '\n')
            *p = ' ';
    evbuffer_add_printf(out, "-%s %s\r\n", code, msg);
    c->srv->svc->c->errors[PROTO_RESP]++;
}

/* An error with Redis's generic code, ERR. */
void resp_reply_error(conn *c, struct evbuffer *out, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    reply_errorv(c, out, "ERR", fmt, ap);
    va_end(ap);
}

/* An error with its own code, which clients act on: NOAUTH, WRONGPASS, NOPROTO, EXECABORT. */
void resp_reply_coded(conn *c, struct evbuffer *out, const char *code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    reply_errorv(c, out, code, fmt, ap);
    va_end(ap);
}

void resp_reply_null(const conn *c, struct evbuffer *out) {
    if (proto_of(c) == 3)
        evbuffer_add(out, "_\r\n", 3);
    else
        evbuffer_add(out, "$-1\r\n", 5);
}

/* A map of n pairs: RESP3's map, RESP2's flat array of 2n. */
void resp_reply_map(const conn *c, struct evbuffer *out, size_t n) {
    if (proto_of(c) == 3)
        evbuffer_add_printf(out, "%%%zu\r\n", n);
    else
        evbuffer_add_printf(out, "*%zu\r\n", 2 * n);
}

/* A set of n: RESP3's set, RESP2's array. */
void resp_reply_set(const conn *c, struct evbuffer *out, size_t n) {
    evbuffer_add_printf(out, "%c%zu\r\n", proto_of(c) == 3 ? '~' : '*', n);
}

void resp_reply_int(struct evbuffer *out, int64_t v) { evbuffer_add_printf(out, ":%" PRId64 "\r\n", v); }

void resp_reply_ok(struct evbuffer *out) { evbuffer_add(out, "+OK\r\n", 5); }

void resp_reply_bulk(struct evbuffer *out, const char *s, size_t n) {
    evbuffer_add_printf(out, "$%zu\r\n", n);
    evbuffer_add(out, s, n);
    evbuffer_add(out, "\r\n", 2);
}

void resp_reply_str(struct evbuffer *out, const char *s) { resp_reply_bulk(out, s, strlen(s)); }

/*
 * The error code of a library status's class: the one place where a
 * status becomes RESP's. TRYAGAIN (as Redis says when an operation cannot
 * be done now; clients that know it ask again) for the clock and the
 * capacity of a millisecond; ERR, Redis's generic code, for the rest: the
 * caller's words, the host, the server's own mistake.
 */
const char *resp_code(mintid_class cls) {
    switch (cls) {
    case MINTID_CLASS_CLOCK:
    case MINTID_CLASS_CAPACITY:
        return "TRYAGAIN";
    case MINTID_CLASS_NONE:
    case MINTID_CLASS_INPUT:
    case MINTID_CLASS_ENVIRONMENT:
    case MINTID_CLASS_PROGRAM:
        return "ERR";
    }
    return "ERR";
}

/* An error with the code of rc's class and the sentence why (the library's). */
void resp_reply_why(conn *c, struct evbuffer *out, int rc, const char *why) {
    resp_reply_coded(c, out, resp_code(mintid_status_class(rc)), "%s", why);
}

/*
 * Each ID as a bulk string: "$len\r\n" + text + "\r\n" in one add. The
 * IDs of an array gather in the job's body, behind the array's head; the
 * one ID of `MINT format` is its whole reply and goes straight to the
 * replies, where the replies to a pipeline's other requests share its
 * buffer (a reply of its own would be a buffer to allocate and free, and
 * one piece more for the write to gather). A keyed MINT's IDs wait in the
 * body for the key store (keys.c), which answers.
 */
void resp_encode(conn *c, const mintid_id *ids, size_t n) {
    mint_job *j = &c->job;
    struct evbuffer *dst = session_of(c)->array || j->key != NULL ? j->body : c->out;
    /* The text is encoded after room for its header, which is then put
     * before it: n < 100, so the head is "$n\r\n", built by hand, as this
     * is the hot path. */
    char line[8 + MINTID_TEXT_MAX + 2];
    memcpy(line + 6, "\r\n", 2);
    for (size_t i = 0; i < n; i++) {
        int len = mintid_encode_prefixed(j->fmt, MINTID_FORM_TEXT, &ids[i], j->prefix, line + 8, MINTID_TEXT_MAX);
        if (len < 0) {
            j->error = len;
            return;
        }
        char *head = line + 8 - (len >= 10 ? 5 : 4);
        head[0] = '$';
        if (len >= 10)
            head[1] = (char)('0' + len / 10);
        head[len >= 10 ? 2 : 1] = (char)('0' + len % 10);
        memcpy(line + 8 + len, "\r\n", 2);
        evbuffer_add(dst, head, (size_t)(line + 8 + len + 2 - head));
    }
}

/* A key's IDs as MINT answers them: a bulk string, or an array (array, or a count given). */
static void key_ids(conn *c, const key_request *r, bool array) {
    char text[MINTID_TEXT_MAX];
    if (array)
        evbuffer_add_printf(c->out, "*%" PRIu64 "\r\n", r->got_count);
    for (uint64_t i = 0; i < r->got_count; i++) {
        int len =
            mintid_encode_prefixed(r->fmt, (mintid_form)r->got_form, &r->got_ids[i], r->got_prefix, text, sizeof text);
        if (len < 0)
            len = 0; /* every ID stored was encoded once: this cannot happen */
        resp_reply_bulk(c->out, text, (size_t)len);
    }
}

/* The key store's answer to MINT ... KEY key. */
void resp_key_done(conn *c, const key_request *r) {
    char shown[MINTID_ESCAPED_MAX];
    mintid_escape(r->key, r->key_len, shown, sizeof shown);
    switch (r->outcome) {
    case KEY_CREATED:
    case KEY_REPLAYED:
        key_ids(c, r, session_of(c)->array);
        return;
    case KEY_MISMATCH:
        resp_reply_coded(c, c->out, "MISMATCH",
                         "%s: idempotency key '%s' was used for another request (count %" PRIu64
                         ", prefix '%s'); a new "
                         "request needs a new key",
                         r->fmt->name, shown, r->got_count, r->got_prefix);
        return;
    case KEY_FULL:
        resp_reply_error(
            c, c->out, "the key store holds key-max keys: no new idempotency key is taken (MINT without KEY goes on)");
        return;
    case KEY_FOUND:
    case KEY_ABSENT:
    case KEY_FAILED:
        break;
    }
    resp_reply_error(c, c->out, "%s: %s", r->fmt->name, r->why[0] != '\0' ? r->why : "the key store failed");
}

/* The key store's answer to KEYGET. */
void resp_keyget_done(conn *c, const key_request *r) {
    if (r->outcome == KEY_FOUND)
        key_ids(c, r, true);
    else if (r->outcome == KEY_ABSENT)
        resp_reply_null(c, c->out);
    else
        resp_reply_error(c, c->out, "%s: %s", r->fmt->name, r->why[0] != '\0' ? r->why : "the key store failed");
}

void resp_finish(conn *c, int status, const char *why) {
    mint_job *j = &c->job;
    if (keys_finish(c, status, why))
        return;
    if (status != MINTID_OK) {
        /* A mint's time is the clock's: outside the format's range, the
         * clock is at fault, not the request. */
        mintid_class cls = status == MINTID_ETIME ? MINTID_CLASS_CLOCK : mintid_status_class(status);
        resp_reply_coded(c, c->out, resp_code(cls), "%s: %s", j->fmt->name, why);
        return;
    }
    if (!session_of(c)->array)
        return; /* the ID is in c->out already */
    evbuffer_add_printf(c->out, "*%" PRIu64 "\r\n", j->count);
    evbuffer_add_buffer(c->out, j->body);
}
