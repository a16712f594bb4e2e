/* SPDX-License-Identifier: MIT */
/*
 * output.c - buffered standard output.
 */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * stdio locks the stream on every call; at millions of lines a second that
 * shows, so lines are gathered here and written in large blocks.
 */
static char out_buf[1 << 16];
static size_t out_len;
static bool out_failed;

bool out_flush(void) {
    size_t off = 0;
    while (off < out_len && !out_failed) {
        ssize_t n = write(STDOUT_FILENO, out_buf + off, out_len - off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "mintid: writing standard output: %s\n", strerror(errno));
            out_failed = true;
        } else {
            off += (size_t)n;
        }
    }
    out_len = 0;
    return !out_failed;
}

bool out_ok(void) { return !out_failed; }

void out_write(const char *s, size_t n) {
    if (n > sizeof out_buf - out_len) {
        out_flush();
        if (n > sizeof out_buf) {
            /* Larger than the buffer: pass it straight through. */
            memcpy(out_buf, s, sizeof out_buf);
            out_len = sizeof out_buf;
            out_flush();
            out_write(s + sizeof out_buf, n - sizeof out_buf);
            return;
        }
    }
    memcpy(out_buf + out_len, s, n);
    out_len += n;
}

char *out_reserve(size_t n) {
    if (n > sizeof out_buf - out_len)
        out_flush();
    return out_buf + out_len;
}

void out_commit(size_t n) { out_len += n; }

void out_str(const char *s) { out_write(s, strlen(s)); }

void out_printf(const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        out_write(tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}
