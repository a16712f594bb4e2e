/*
 * output.c - buffered standard output, JSON objects for `inspect`, and
 * printing untrusted input safely in messages.
 */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
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

/* ---- JSON ------------------------------------------------------------------ */

void json_begin(json_obj *j) {
    j->first = true;
    out_write("{", 1);
}

static void json_key(json_obj *j, const char *key) {
    if (!j->first)
        out_write(",", 1);
    j->first = false;
    out_write("\"", 1);
    out_str(key);
    out_write("\":", 2);
}

/* Keys and values here are IDs, names and numbers; escape anyway. */
void json_string(json_obj *j, const char *key, const char *value) {
    json_key(j, key);
    out_write("\"", 1);
    for (const char *p = value; *p != '\0'; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            out_write(e, 2);
        } else if (c < 0x20) {
            out_printf("\\u%04x", c);
        } else {
            out_write(p, 1);
        }
    }
    out_write("\"", 1);
}

void json_u64(json_obj *j, const char *key, uint64_t value) {
    json_key(j, key);
    out_printf("%" PRIu64, value);
}

void json_i64(json_obj *j, const char *key, int64_t value) {
    json_key(j, key);
    out_printf("%" PRId64, value);
}

void json_null(json_obj *j, const char *key) {
    json_key(j, key);
    out_write("null", 4);
}

void json_end(json_obj *j) {
    (void)j;
    out_write("}\n", 2);
}

/* ---- messages ----------------------------------------------------------------- */

const char *printable(const char *s, size_t len, char *buf, size_t cap) {
    /* Input echoed to a terminal must not carry control sequences; long
     * input is cut, since no ID is longer than a few dozen characters. */
    size_t o = 0;
    const size_t limit = 64;
    for (size_t i = 0; i < len && o + 8 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i == limit) {
            memcpy(buf + o, "...", 3);
            o += 3;
            break;
        }
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            buf[o++] = (char)c;
        } else {
            int n = snprintf(buf + o, cap - o, "\\x%02x", c);
            o += (size_t)n;
        }
    }
    buf[o] = '\0';
    return buf;
}
