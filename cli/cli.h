/* SPDX-License-Identifier: MIT */
/*
 * cli.h - what the mintid command's files share.
 */
#ifndef MINTID_CLI_H
#define MINTID_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit statuses, documented in `mintid --help` and the README. */
enum {
    EXIT_OK = 0,
    EXIT_INVALID_ID = 1, /* some input was not a valid ID; valid ones were still printed */
    EXIT_USAGE = 2,      /* bad command line */
    EXIT_FAILURE_RT = 3  /* minting or writing failed (clock, entropy, output) */
};

/* Buffered standard output (output.c). */
void out_write(const char *s, size_t n);
/*
 * Room for n bytes (n at most 4096) at the end of the buffer, to write in
 * place; out_commit() then adds the bytes written.
 */
char *out_reserve(size_t n);
void out_commit(size_t n);
void out_str(const char *s);
void out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool out_flush(void);
bool out_ok(void);

#endif
