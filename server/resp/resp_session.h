/* SPDX-License-Identifier: MIT */
/*
 * resp_session.h - a RESP connection's session (c->session, zeroed by the
 * connection layer at accept), which the replies (resp_reply.c), the
 * commands (resp_commands.c) and the session's operations (handle_resp.c)
 * share.
 */
#ifndef MINTIDD_RESP_SESSION_H
#define MINTIDD_RESP_SESSION_H

#include "net/conn.h"
#include "resp/resp.h"

#include <event2/buffer.h>
#include <stdbool.h>
#include <stdint.h>

/* Lengths of what a RESP client may name itself (CLIENT SETNAME, SETINFO). */
#define RESP_NAME_MAX 64

/*
 * What a RESP connection has said about itself: the protocol version HELLO
 * chose, its name, whether it has authenticated, an open transaction, and
 * of a mint in progress, whether it answers with an array.
 */
typedef struct resp_session {
    int proto;              /* 2 or 3 */
    uint64_t id;            /* CLIENT ID: unique for the life of the server */
    bool authed;            /* true from the start when no auth-file is set */
    bool in_multi;          /* between MULTI and EXEC/DISCARD */
    bool multi_bad;         /* a command failed to queue: EXEC answers EXECABORT */
    bool array;             /* the mint in progress replies with an array (MINT format count) */
    resp_scan scan;         /* how far the parser has read an incomplete command */
    unsigned queued;        /* commands in `multi` */
    unsigned exec_left;     /* queued commands EXEC still has to run */
    struct evbuffer *multi; /* the queued commands, as RESP arrays; NULL until the first MULTI */
    char name[RESP_NAME_MAX + 1], lib_name[RESP_NAME_MAX + 1], lib_ver[RESP_NAME_MAX + 1];
} resp_session;

static inline resp_session *session_of(const conn *c) { return c->session; }

/* The RESP version replies are framed in: 3 after HELLO 3, else 2. */
static inline int proto_of(const conn *c) { return session_of(c)->proto == 3 ? 3 : 2; }

#endif
