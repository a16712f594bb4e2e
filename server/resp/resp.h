/* SPDX-License-Identifier: MIT */
/*
 * resp.h - a RESP2 request parser that does no I/O (after hiredis's read.c):
 * give it the bytes received so far, get back "need more", one command, or
 * an error that ends the connection.
 */
#ifndef MINTIDD_RESP_H
#define MINTIDD_RESP_H

#include <stddef.h>

#define RESP_MAX_ARGS 16

typedef struct resp_arg {
    const char *ptr; /* into the caller's buffer; not NUL-terminated */
    size_t len;
} resp_arg;

typedef struct resp_command {
    int argc; /* 0: an empty request (blank inline line, "*0"), to be skipped */
    resp_arg argv[RESP_MAX_ARGS];
} resp_command;

typedef enum resp_result {
    RESP_NEED_MORE = 0, /* no complete command yet: call again with more bytes */
    RESP_OK = 1,        /* *cmd holds a command made of the first *used bytes */
    RESP_ERROR = -1     /* a protocol error: reply with *error, then close */
} resp_result;

/*
 * How far resp_parse() got through a command that has not arrived whole,
 * so that the next call, given the same bytes and more after them, starts
 * where this one stopped: a command sent a byte at a time is read once,
 * not once per byte. All zero means "from the start". The caller keeps one
 * per connection; resp_parse() zeroes it again (but for `examined`) when
 * it returns RESP_OK or RESP_ERROR, and the caller zeroes it before giving
 * the parser bytes that do not start with the ones it saw.
 */
typedef struct resp_scan {
    size_t pos;                /* bytes of buf already read: the next element's start */
    int nargs;                 /* a multibulk's count once read; 0 before */
    int argc;                  /* its arguments read whole so far */
    size_t off[RESP_MAX_ARGS]; /* ...each as an offset into buf */
    size_t len[RESP_MAX_ARGS]; /* ...and a length */
    size_t examined;           /* bytes looked at, all calls together: the parser's work, which tests bound */
} resp_scan;

/*
 * Parses one command from buf[0..len). max_request bounds the bytes one
 * command may take (and so every bulk string and inline line): a longer
 * one is an error as soon as that is certain, not after it has arrived.
 * On RESP_OK, cmd's arguments point into buf. scan may be NULL, which
 * reads buf from the start on every call. The answer never depends on how
 * buf was cut into calls.
 */
resp_result resp_parse(const char *buf, size_t len, size_t max_request, resp_scan *scan, resp_command *cmd,
                       size_t *used, const char **error);

#endif
