/* SPDX-License-Identifier: MIT */
/*
 * handle_resp.c - the Redis protocol as a protocol of the connection layer
 * (resp_proto, at the end): a connection's session (resp_session.h) set up
 * and released, each command parsed and handed to the command table
 * (resp_commands.c), a protocol error answered before the connection
 * closes, and the commands an EXEC queued run one at a time through the
 * table's resume(), the queue's bytes counted in the bound on all clients.
 */
#include "resp/handle_resp.h"

#include "resp/resp_commands.h"
#include "resp/resp_reply.h"
#include "resp/resp_session.h"
#include "service.h"

#include <stdint.h>

static const char resp_refusal[] = "-ERR max number of clients reached\r\n";

static bool resp_exec_pending(const conn *c) { return session_of(c)->exec_left > 0; }

static void resp_exec_step(conn *c, struct evbuffer *out) {
    resp_session *s = session_of(c);
    size_t len = evbuffer_get_length(s->multi), used = 0;
    const char *buf = (const char *)evbuffer_pullup(s->multi, -1), *error = NULL;
    resp_command cmd;
    s->exec_left--;
    /* Queued by multi_queue() from a command already parsed: it parses again. */
    if (resp_parse(buf, len, SIZE_MAX / 2, NULL, &cmd, &used, &error) != RESP_OK || cmd.argc == 0) {
        resp_reply_error(c, out, "queued command lost");
        resp_multi_clear(c);
        return;
    }
    /* It was counted as a request when it was queued. */
    c->srv->svc->c->requests[PROTO_RESP]--;
    resp_dispatch(c, &cmd, out);
    evbuffer_drain(s->multi, used);
}

static void resp_session_init(conn *c) {
    session_of(c)->proto = 2;
    session_of(c)->id = ++c->srv->next_client_id;
}

static void resp_session_free(conn *c) {
    if (session_of(c)->multi != NULL)
        evbuffer_free(session_of(c)->multi);
    session_of(c)->multi = NULL;
}

static size_t resp_handle(conn *c, const char *buf, size_t len, struct evbuffer *out) {
    resp_command cmd;
    size_t used;
    const char *error;
    resp_result r = resp_parse(buf, len, c->srv->cfg->max_request, &session_of(c)->scan, &cmd, &used, &error);
    if (r == RESP_NEED_MORE)
        return 0;
    if (r == RESP_ERROR) {
        /* As Redis does: the error, then the connection closes, since the
         * stream can no longer be split into commands. */
        c->srv->svc->c->requests[PROTO_RESP]++;
        resp_reply_error(c, out, "%s", error);
        c->closing = true;
        return len;
    }
    if (cmd.argc > 0)
        resp_dispatch(c, &cmd, out);
    return used;
}

static size_t resp_held(const conn *c) {
    const resp_session *s = session_of(c);
    return s->multi != NULL ? evbuffer_get_length(s->multi) : 0;
}

const proto_ops resp_proto = {
    .label = "RESP",
    .tls_label = "RESP over TLS",
    .refusal = resp_refusal,
    .session_size = sizeof(resp_session),
    .open = resp_session_init,
    .close = resp_session_free,
    .handle = resp_handle,
    .pending = resp_exec_pending,
    .resume = resp_exec_step,
    .held = resp_held,
};
