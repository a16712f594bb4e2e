/* SPDX-License-Identifier: MIT */
/*
 * hiredis_client.c - hiredis (Debian's libhiredis-dev) against mintidd:
 * connect, AUTH when MINTID_SECRET is set, one ID, a batch, 100 pipelined,
 * an unknown format. Prints one JSON object as the other clients do.
 *
 * Usage: hiredis_client PORT
 */
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_string(const char *s, size_t n) {
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"' || s[i] == '\\')
            putchar('\\');
        putchar(s[i]);
    }
    putchar('"');
}

static void json_reply(const redisReply *r) {
    if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS || r->type == REDIS_REPLY_ERROR) {
        json_string(r->str, r->len);
    } else if (r->type == REDIS_REPLY_ARRAY) {
        putchar('[');
        for (size_t i = 0; i < r->elements; i++) {
            if (i > 0)
                putchar(',');
            json_reply(r->element[i]);
        }
        putchar(']');
    } else {
        printf("null");
    }
}

static redisReply *check(redisContext *c, redisReply *r) {
    if (r == NULL) {
        fprintf(stderr, "hiredis: %s\n", c->errstr);
        exit(1);
    }
    return r;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: hiredis_client PORT\n");
        return 2;
    }
    char *end;
    long port = strtol(argv[1], &end, 10);
    if (*end != '\0' || port <= 0 || port > 65535) {
        fprintf(stderr, "hiredis_client: '%s' is not a port\n", argv[1]);
        return 2;
    }
    redisContext *c = redisConnect("127.0.0.1", (int)port);
    if (c == NULL || c->err) {
        fprintf(stderr, "hiredis: %s\n", c != NULL ? c->errstr : "out of memory");
        return 1;
    }
    const char *secret = getenv("MINTID_SECRET");
    if (secret != NULL && secret[0] != '\0') {
        redisReply *r = check(c, redisCommand(c, "AUTH %s", secret));
        if (r->type == REDIS_REPLY_ERROR) {
            fprintf(stderr, "hiredis: AUTH: %s\n", r->str);
            return 1;
        }
        freeReplyObject(r);
    }
    redisReply *one = check(c, redisCommand(c, "MINT nanoflake"));
    if (one->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "hiredis: MINT: %s\n", one->str);
        return 1;
    }
    redisReply *batch = check(c, redisCommand(c, "MINT nanoflake %d", 5));
    for (int i = 0; i < 100; i++)
        redisAppendCommand(c, "MINT scru160");
    printf("{\"one\":");
    json_reply(one);
    printf(",\"batch\":");
    json_reply(batch);
    printf(",\"many\":[");
    for (int i = 0; i < 100; i++) {
        redisReply *r;
        if (redisGetReply(c, (void **)&r) != REDIS_OK)
            check(c, NULL);
        printf(i > 0 ? "," : "");
        json_reply(r);
        freeReplyObject(r);
    }
    redisReply *bad = check(c, redisCommand(c, "MINT no-such-format"));
    printf("],\"error\":");
    if (bad->type == REDIS_REPLY_ERROR)
        json_reply(bad);
    else
        printf("null");
    printf("}\n");
    freeReplyObject(one);
    freeReplyObject(batch);
    freeReplyObject(bad);
    redisFree(c);
    return 0;
}
