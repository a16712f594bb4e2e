/* SPDX-License-Identifier: MIT */
/*
 * test_resp_scan.c - the RESP parser resumes where it stopped: a long
 * pipeline fed one byte at a time, as a slow client sends it, is parsed
 * into the same commands as when it arrives at once, and the parser's work
 * (the bytes it examines, which it counts in resp_scan) stays within a
 * constant times the bytes sent, rather than growing with the square of a
 * command's length. The caller is played as the connection layer plays it:
 * the bytes of an unfinished command stay at the start of the buffer, and
 * a command's bytes are dropped once it is parsed.
 */
#include "../check.h"
#include "resp/resp.h"

#include <stdlib.h>

/* Each byte of a command is looked at no more than this many times: the
 * header of the element in progress (at most 22 bytes) is read again on
 * each call, nothing before it. */
#define WORK_PER_BYTE 24

/* Feeds stream[0..len) one byte at a time; returns the commands parsed, and the bytes examined in *work. */
static int feed_bytewise(const char *stream, size_t len, size_t max_request, size_t *work, char names[][16]) {
    resp_scan scan = {0};
    char *buf = malloc(len);
    size_t have = 0;
    int commands = 0;
    CHECK(buf != NULL);
    for (size_t i = 0; i < len; i++) {
        buf[have++] = stream[i];
        resp_command cmd;
        size_t used;
        const char *error = NULL;
        resp_result r = resp_parse(buf, have, max_request, &scan, &cmd, &used, &error);
        CHECK(r != RESP_ERROR);
        if (r == RESP_OK) {
            if (cmd.argc > 0 && cmd.argv[0].len < 16) {
                memcpy(names[commands], cmd.argv[0].ptr, cmd.argv[0].len);
                names[commands][cmd.argv[0].len] = '\0';
            }
            commands++;
            memmove(buf, buf + used, have - used);
            have -= used;
        }
    }
    CHECK(have == 0);
    *work = scan.examined;
    free(buf);
    return commands;
}

/* A pipeline of `n` commands, each `args` arguments of `arglen` bytes after its name, in multibulk or inline form. */
static char *pipeline(int n, int args, size_t arglen, int inline_form, size_t *len) {
    size_t cap = (size_t)n * ((size_t)args * (arglen + 16) + 32);
    char *s = malloc(cap), *p = s;
    CHECK(s != NULL);
    for (int i = 0; i < n; i++) {
        const char *name = i % 2 ? "PING" : "MINT";
        if (inline_form) {
            p += snprintf(p, cap - (size_t)(p - s), "%s", name);
        } else {
            p += snprintf(p, cap - (size_t)(p - s), "*%d\r\n$4\r\n%s\r\n", args + 1, name);
        }
        for (int a = 0; a < args; a++) {
            if (inline_form)
                *p++ = ' ';
            else
                p += snprintf(p, cap - (size_t)(p - s), "$%zu\r\n", arglen);
            memset(p, 'a' + a % 26, arglen);
            p += arglen;
            if (!inline_form) {
                memcpy(p, "\r\n", 2);
                p += 2;
            }
        }
        if (inline_form) {
            memcpy(p, "\r\n", 2);
            p += 2;
        }
    }
    *len = (size_t)(p - s);
    return s;
}

static void check_linear(const char *what, int n, int args, size_t arglen, int inline_form) {
    size_t len, work;
    char *s = pipeline(n, args, arglen, inline_form, &len);
    char(*names)[16] = calloc((size_t)n, sizeof *names);
    CHECK(names != NULL);
    int got = feed_bytewise(s, len, 1 << 20, &work, names);
    CHECK_INT(got, n);
    for (int i = 0; i < got && i < n; i++)
        CHECK_STR(names[i], i % 2 ? "PING" : "MINT");
    if (work > WORK_PER_BYTE * len)
        fprintf(stderr, "%s: %zu bytes sent one at a time, %zu examined (%.1f per byte)\n", what, len, work,
                (double)work / (double)len);
    CHECK(work <= WORK_PER_BYTE * len);
    free(names);
    free(s);
}

int main(void) {
    /* 200 MINTs of 15 arguments of 20 bytes: the headers of the arguments read whole are not read again. */
    check_linear("multibulk", 200, 15, 20, 0);
    /* Long bulk strings: their bodies are not scanned while they arrive. */
    check_linear("long bulk strings", 20, 2, 4000, 0);
    /* Inline commands of 8 KB: the line is searched for its end once. */
    check_linear("inline", 20, 2, 4000, 1);
    return CHECK_DONE();
}
