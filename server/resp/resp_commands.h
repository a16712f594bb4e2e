/* SPDX-License-Identifier: MIT */
/*
 * resp_commands.h - the Redis protocol's commands (resp_commands.c): the
 * command table and each command, run as the session's state allows.
 */
#ifndef MINTIDD_RESP_COMMANDS_H
#define MINTIDD_RESP_COMMANDS_H

#include "net/conn.h"
#include "resp/resp.h"

#include <event2/buffer.h>

/*
 * Runs cmd (argc > 0), read from c, as the command table says: checked
 * (known, authenticated, its arguments), queued inside MULTI, or run,
 * with its reply appended to out. Counts it as a request.
 */
void resp_dispatch(conn *c, const resp_command *cmd, struct evbuffer *out);
/* Ends c's transaction: the queued commands dropped, EXEC's and MULTI's state cleared. */
void resp_multi_clear(conn *c);

#endif
