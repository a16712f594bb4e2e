/* SPDX-License-Identifier: MIT */
/*
 * fuzz_resp.c - libFuzzer target for resp_parse(), mintidd's RESP2 request
 * parser (server/resp/resp.c): arrays of bulk strings and inline commands.
 *
 * Input: two bytes that choose max_request, then the bytes a client sent.
 * max_request is 24 plus the two bytes, big-endian, modulo 2048, so 24 to
 * 2071: small enough that inputs within libFuzzer's default -max_len of 4096
 * reach every limit, and never below the 24 bytes that the longest empty
 * request the parser reads ("*", 21 characters of number, CRLF) takes, so
 * that a legitimate header never counts as too big. Seeds starting with "~~"
 * get 1686 bytes; those starting with two NULs get 24.
 *
 * Every input is parsed twice over: once as the first command of the stream,
 * with the whole contract checked, including the result on a few of its
 * prefixes (a client's bytes arrive in pieces, and the answer must not
 * depend on where the pieces were cut); and once as the server does for
 * pipelined commands, command after command, until the parser wants more or
 * refuses. The prefixes are also parsed in order with one resp_scan, each
 * call resuming where the last stopped, and must end where the whole does. Each parse sees a heap buffer of exactly the
 * length it is given, so a read one byte too far trips AddressSanitizer. A violated property abort()s, which libFuzzer
 * reports and minimises like a crash.
 */
#include "fuzz.h"
#include "resp/resp.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * How far past max_request a command may reach. resp_parse() counts a bulk
 * string's header and bytes against max_request but not the CRLF after it,
 * and an inline line but not its LF, so an accepted command takes up to two
 * bytes more.
 */
#define OK_SLACK 2

/*
 * How far past max_request the bytes may reach while the parser still asks
 * for more: the slack above, plus one unfinished length header, whose type
 * byte, 21 characters (a sign and 20 digits, the most resp.c lets a number
 * take) and CR may all have arrived before the LF that lets the parser judge
 * it.
 */
#define NEED_MORE_SLACK (OK_SLACK + 1 + 21 + 1)

/* One call's outcome, kept to compare parses of the same bytes. */
typedef struct outcome {
    resp_result r;
    resp_command cmd;
    size_t used;
    const char *error;
} outcome;

/* Pointer order through uintptr_t, since relational operators on pointers into different objects are undefined. */
static bool inside(const char *p, size_t n, const char *buf, size_t len) {
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)buf;
    return a >= b && a - b <= len && n <= len - (a - b);
}

/* Calls resp_parse() on a private copy of buf[0..len) of exactly that size, resuming scan (NULL: from the start). */
static outcome parse_resumed(const char *buf, size_t len, size_t max_request, resp_scan *scan, char **copy) {
    *copy = malloc(len > 0 ? len : 1);
    REQUIRE(*copy != NULL);
    if (len > 0)
        memcpy(*copy, buf, len);
    outcome o;
    memset(&o, 0xa5, sizeof o);
    o.error = NULL;
    o.r = resp_parse(*copy, len, max_request, scan, &o.cmd, &o.used, &o.error);
    return o;
}

static outcome parse_copy(const char *buf, size_t len, size_t max_request, char **copy) {
    return parse_resumed(buf, len, max_request, NULL, copy);
}

static int by_size(const void *a, const void *b) {
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether two commands have the same arguments, wherever their bytes are. */
static bool same_command(const resp_command *a, const resp_command *b) {
    if (a->argc != b->argc)
        return false;
    for (int i = 0; i < a->argc; i++)
        if (a->argv[i].len != b->argv[i].len ||
            (a->argv[i].len > 0 && memcmp(a->argv[i].ptr, b->argv[i].ptr, a->argv[i].len) != 0))
            return false;
    return true;
}

/*
 * Writes cmd as a RESP array of bulk strings and parses that back: whatever
 * form the command came in, its canonical form must mean the same command.
 */
static void check_reserialised(const resp_command *cmd) {
    size_t cap = 32;
    for (int i = 0; i < cmd->argc; i++)
        cap += cmd->argv[i].len + 32;
    char *out = malloc(cap);
    REQUIRE(out != NULL);
    int n = snprintf(out, cap, "*%d\r\n", cmd->argc);
    REQUIRE(n > 0 && (size_t)n < cap);
    size_t len = (size_t)n;
    for (int i = 0; i < cmd->argc; i++) {
        n = snprintf(out + len, cap - len, "$%zu\r\n", cmd->argv[i].len);
        REQUIRE(n > 0 && (size_t)n < cap - len);
        len += (size_t)n;
        if (cmd->argv[i].len > 0)
            memcpy(out + len, cmd->argv[i].ptr, cmd->argv[i].len);
        len += cmd->argv[i].len;
        memcpy(out + len, "\r\n", 2);
        len += 2;
    }
    REQUIRE(len <= cap);

    char *copy;
    outcome o = parse_copy(out, len, len, &copy);
    REQUIRE(o.r == RESP_OK);
    REQUIRE(o.used == len);
    REQUIRE(same_command(&o.cmd, cmd));
    free(copy);
    free(out);
}

/* The contract of one call on buf[0..len), whatever came before it in the stream. */
static void check_outcome(const outcome *o, const char *buf, size_t len, size_t max_request) {
    REQUIRE(o->r == RESP_OK || o->r == RESP_ERROR || o->r == RESP_NEED_MORE);
    switch (o->r) {
    case RESP_OK:
        REQUIRE(o->used >= 1 && o->used <= len);
        REQUIRE(o->used <= max_request + OK_SLACK);
        REQUIRE(o->cmd.argc >= 0 && o->cmd.argc <= RESP_MAX_ARGS);
        for (int i = 0; i < o->cmd.argc; i++)
            REQUIRE(inside(o->cmd.argv[i].ptr, o->cmd.argv[i].len, buf, o->used));
        /* Both forms end a command with a line end. */
        REQUIRE(buf[o->used - 1] == '\n');
        check_reserialised(&o->cmd);
        break;
    case RESP_ERROR:
        /* The error becomes a one-line reply, so it must not break the line. */
        REQUIRE(o->error != NULL);
        REQUIRE(o->error[0] != '\0');
        REQUIRE(strpbrk(o->error, "\r\n") == NULL);
        break;
    case RESP_NEED_MORE:
        REQUIRE(len <= max_request + NEED_MORE_SLACK);
        break;
    }
}

/*
 * Parses the first `cut` bytes alone. The bytes after them may never arrive
 * or may be anything, so a prefix can only ask for more or come to the very
 * same conclusion as the whole; a different command, a different error, or
 * an error where the whole is fine, would make the server's answer depend on
 * how the network split the stream.
 */
static void check_prefix(const outcome *whole, const char *buf, size_t cut, size_t max_request) {
    char *copy;
    outcome o = parse_copy(buf, cut, max_request, &copy);
    check_outcome(&o, copy, cut, max_request);
    if (o.r != RESP_NEED_MORE) {
        REQUIRE(o.r == whole->r);
        if (o.r == RESP_OK) {
            REQUIRE(o.used == whole->used);
            REQUIRE(same_command(&o.cmd, &whole->cmd));
        } else {
            REQUIRE(strcmp(o.error, whole->error) == 0);
        }
    }
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2)
        return 0;
    size_t max_request = 24 + (((size_t)data[0] << 8 | data[1]) % 2048);
    const char *buf = (const char *)data + 2;
    size_t len = size - 2;

    /* The first command, and the same call again: no state survives between calls. */
    char *whole_copy, *again_copy;
    outcome whole = parse_copy(buf, len, max_request, &whole_copy);
    check_outcome(&whole, whole_copy, len, max_request);
    outcome again = parse_copy(buf, len, max_request, &again_copy);
    REQUIRE(again.r == whole.r);
    REQUIRE(again.r != RESP_OK || (again.used == whole.used && same_command(&again.cmd, &whole.cmd)));
    REQUIRE(again.r != RESP_ERROR || strcmp(again.error, whole.error) == 0);
    free(again_copy);

    /* Prefixes must need more, or give exactly what the whole gave. */
    size_t cuts[FUZZ_CUTS];
    size_t ncuts = fuzz_cuts(whole.r == RESP_OK ? whole.used : len, max_request, len > 0 ? data[len + 1] : 0, cuts);
    for (size_t i = 0; i < ncuts; i++)
        check_prefix(&whole, buf, cuts[i], max_request);

    /* The same prefixes in order, each resuming where the last stopped, as
     * the server parses a command that arrives in pieces, then the whole:
     * the same answer as parsing the whole at once. */
    qsort(cuts, ncuts, sizeof cuts[0], by_size);
    resp_scan scan;
    memset(&scan, 0, sizeof scan);
    bool decided = false;
    for (size_t i = 0; i <= ncuts && !decided; i++) {
        size_t cut = i < ncuts ? cuts[i] : len;
        char *copy;
        outcome o = parse_resumed(buf, cut, max_request, &scan, &copy);
        check_outcome(&o, copy, cut, max_request);
        if (o.r != RESP_NEED_MORE) {
            decided = true;
            REQUIRE(o.r == whole.r);
            REQUIRE(o.r != RESP_OK || (o.used == whole.used && same_command(&o.cmd, &whole.cmd)));
            REQUIRE(o.r != RESP_ERROR || strcmp(o.error, whole.error) == 0);
        }
        free(copy);
    }
    REQUIRE(decided || whole.r == RESP_NEED_MORE);

    /* The stream, as the server takes it: command after command from one buffer. */
    size_t off = 0;
    for (;;) {
        outcome o;
        o.error = NULL;
        o.r = resp_parse(buf + off, len - off, max_request, NULL, &o.cmd, &o.used, &o.error);
        check_outcome(&o, buf + off, len - off, max_request);
        if (off == 0) {
            REQUIRE(o.r == whole.r);
            REQUIRE(o.r != RESP_OK || (o.used == whole.used && same_command(&o.cmd, &whole.cmd)));
            REQUIRE(o.r != RESP_ERROR || strcmp(o.error, whole.error) == 0);
        }
        if (o.r != RESP_OK)
            break;
        off += o.used;
    }
    free(whole_copy);
    return 0;
}
