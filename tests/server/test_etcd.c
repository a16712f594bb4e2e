/* SPDX-License-Identifier: MIT */
/*
 * test_etcd.c - the etcd client's pure parts and its errors, without etcd:
 * base64 (RFC 4648's vectors, every length round trip with every byte
 * value, strict refusals, buffers exactly as large as needed and never
 * written past, never a silent truncation), the JSON of a transaction's
 * parts, the readers of answers, and what a request reports against an
 * endpoint that refuses the connection and a fake gateway that answers
 * with an error, with text that is not JSON, or with a lease.
 */
#include "../check.h"
#include "cluster/etcd.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- base64 ---------------------------------------------------------------------------- */

static const char *const rfc4648[][2] = {{"", ""},
                                         {"f", "Zg=="},
                                         {"fo", "Zm8="},
                                         {"foo", "Zm9v"},
                                         {"foob", "Zm9vYg=="},
                                         {"fooba", "Zm9vYmE="},
                                         {"foobar", "Zm9vYmFy"}};

static void check_vectors(void) {
    for (size_t i = 0; i < sizeof rfc4648 / sizeof rfc4648[0]; i++) {
        const char *plain = rfc4648[i][0], *coded = rfc4648[i][1];
        size_t n = strlen(plain), len = strlen(coded);
        char out[16];
        CHECK_INT(etcd_b64_encode(plain, n, out, sizeof out), len);
        CHECK_STR(out, coded);
        CHECK_INT(ETCD_B64_LEN(n), len);
        /* Exactly room for the text and its NUL; one byte less is refused, with nothing half written. */
        CHECK_INT(etcd_b64_encode(plain, n, out, len + 1), len);
        if (len > 0) {
            memset(out, 'x', sizeof out);
            CHECK_INT(etcd_b64_encode(plain, n, out, len), ETCD_B64_TOO_LONG);
            CHECK_STR(out, "");
        }
        /* Decoded into a buffer exactly as large as the bytes, guarded on both sides. */
        unsigned char buf[16];
        memset(buf, 0xAA, sizeof buf);
        CHECK_INT(etcd_b64_decode(coded, len, buf + 4, n), n);
        CHECK(memcmp(buf + 4, plain, n) == 0);
        CHECK(buf[3] == 0xAA && buf[4 + n] == 0xAA);
        if (n > 0) {
            memset(buf, 0xAA, sizeof buf);
            CHECK_INT(etcd_b64_decode(coded, len, buf + 4, n - 1), ETCD_B64_TOO_LONG);
            CHECK(buf[4] == 0xAA);
        }
    }
}

static void check_round_trips(void) {
    unsigned char in[300], back[300];
    char text[ETCD_B64_LEN(300) + 1];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)(i * 89 + 7); /* every byte value, NULs included */
    for (size_t n = 0; n <= sizeof in; n++) {
        long len = etcd_b64_encode(in + (sizeof in - n), n, text, sizeof text);
        CHECK_INT(len, ETCD_B64_LEN(n));
        CHECK_INT(etcd_b64_decode(text, (size_t)len, back, n), n);
        CHECK(memcmp(back, in + (sizeof in - n), n) == 0);
    }
}

static void check_refusals(void) {
    static const char *const bad[] = {
        "Zg",       /* not a multiple of 4 */
        "Zg=",      /* ... */
        "Zm9vY",    /* ... */
        "Zg===",    /* three padding characters */
        "====",     /* padding only */
        "Z===",     /* ... */
        "Zg=A",     /* padding inside a group */
        "Zg==Zg==", /* padding before the end */
        "Zm=v",     /* ... */
        "Zh==",     /* bits set past the last byte */
        "Zm9=",     /* ... */
        "Zm8 ",     /* a space */
        " Zm8",     /* ... which OpenSSL alone would skip */
        "Zm8\n",    /* a line end */
        "Zm-_",     /* the URL-safe alphabet */
        "Zm8.",     /* not in any alphabet */
    };
    unsigned char out[16];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        long got = etcd_b64_decode(bad[i], strlen(bad[i]), out, sizeof out);
        if (got != ETCD_B64_INVALID)
            fprintf(stderr, "'%s' decoded to %ld\n", bad[i], got);
        CHECK_INT(got, ETCD_B64_INVALID);
    }
    CHECK_STR(etcd_b64_why(ETCD_B64_INVALID), "not base64");
    CHECK_STR(etcd_b64_why(ETCD_B64_TOO_LONG), "too long");
}

/* ---- JSON ---------------------------------------------------------------------------- */

static void check_json_bytes(void) {
    static const unsigned char bytes[] = {0, 1, 2, 0, 255, 'a'};
    json_t *v = etcd_b64_json(bytes, sizeof bytes);
    CHECK(v != NULL);
    CHECK_STR(json_string_value(v), "AAECAP9h");
    size_t len;
    long why;
    unsigned char *back = etcd_b64_json_bytes(v, &len, &why);
    CHECK(back != NULL && len == sizeof bytes && memcmp(back, bytes, len) == 0 && back[len] == '\0');
    free(back);
    json_decref(v);
    v = json_string("AAE=x");
    CHECK(etcd_b64_json_bytes(v, &len, &why) == NULL);
    CHECK_INT(why, ETCD_B64_INVALID);
    json_decref(v);
    v = json_integer(5);
    CHECK(etcd_b64_json_bytes(v, &len, &why) == NULL);
    CHECK_INT(why, ETCD_B64_ABSENT);
    json_decref(v);

    /* A key's field as text: whole, or refused, never cut short. */
    json_t *kv = json_pack("{s:s,s:s,s:s}", "key", "L21pbnRpZC9tYXJrcy83", "value", "YQBi", "long", "MTIzNDU2Nzg5");
    char key[16], text[10];
    CHECK_INT(etcd_kv_text(kv, "key", key, sizeof key), 15);
    CHECK_STR(key, "/mintid/marks/7");
    CHECK_INT(etcd_kv_text(kv, "key", key, sizeof key - 1), ETCD_B64_TOO_LONG);
    CHECK_STR(key, "");
    CHECK_INT(etcd_kv_text(kv, "long", text, sizeof text), 9);
    CHECK_STR(text, "123456789");
    CHECK_INT(etcd_kv_text(kv, "value", text, sizeof text), ETCD_B64_NOT_TEXT);
    CHECK_STR(text, "");
    CHECK_INT(etcd_kv_text(kv, "lease", text, sizeof text), ETCD_B64_ABSENT);
    json_decref(kv);

    json_t *o = json_pack("{s:s,s:i,s:s,s:s,s:s,s:s,s:i}", "s", "123", "i", 7, "max", "9223372036854775807", "over",
                          "9223372036854775808", "neg", "-1", "junk", "12a", "negi", -3);
    CHECK_INT(etcd_int(o, "s"), 123);
    CHECK_INT(etcd_int(o, "i"), 7);
    CHECK_INT(etcd_int(o, "max"), INT64_MAX);
    CHECK_INT(etcd_int(o, "over"), -1);
    CHECK_INT(etcd_int(o, "neg"), -1);
    CHECK_INT(etcd_int(o, "junk"), -1);
    CHECK_INT(etcd_int(o, "negi"), -1);
    CHECK_INT(etcd_int(o, "absent"), -1);
    json_decref(o);
}

/* The JSON text of v (taken), compact with sorted keys. */
static void check_dump(json_t *v, const char *want) {
    char *text = v != NULL ? json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    CHECK(text != NULL);
    if (text != NULL)
        CHECK_STR(text, want);
    free(text);
    json_decref(v);
}

static void check_parts(void) {
    check_dump(etcd_cmp_absent("/m/nodes/3"),
               "{\"create_revision\":\"0\",\"key\":\"L20vbm9kZXMvMw==\",\"result\":\"EQUAL\",\"target\":\"CREATE\"}");
    check_dump(etcd_cmp_lease("/m/nodes/3", 7587871203456789012u),
               "{\"key\":\"L20vbm9kZXMvMw==\",\"lease\":\"7587871203456789012\",\"result\":\"EQUAL\",\"target\":"
               "\"LEASE\"}");
    check_dump(etcd_cmp_value("k", "v", 1),
               "{\"key\":\"aw==\",\"result\":\"EQUAL\",\"target\":\"VALUE\",\"value\":\"dg==\"}");
    check_dump(etcd_op_put("k", "\0v", 2, 42),
               "{\"request_put\":{\"key\":\"aw==\",\"lease\":\"42\",\"value\":\"AHY=\"}}");
    check_dump(etcd_op_put("k", "", 0, 0), "{\"request_put\":{\"key\":\"aw==\",\"value\":\"\"}}");
    check_dump(etcd_op_delete("k"), "{\"request_delete_range\":{\"key\":\"aw==\"}}");
    check_dump(etcd_op_range("k"), "{\"request_range\":{\"key\":\"aw==\"}}");

    json_t *txn = json_loads("{\"succeeded\":false,\"responses\":[{\"response_range\":{\"kvs\":[{\"key\":\"aw==\","
                             "\"value\":\"dg==\"}],\"count\":\"1\"}}]}",
                             0, NULL);
    char text[8];
    CHECK(txn != NULL);
    CHECK_INT(etcd_kv_text(etcd_kv(etcd_txn_range(txn, 0), 0), "value", text, sizeof text), 1);
    CHECK_STR(text, "v");
    CHECK(etcd_kv(etcd_txn_range(txn, 0), 1) == NULL);
    CHECK(etcd_txn_range(txn, 1) == NULL);
    CHECK(etcd_kv(NULL, 0) == NULL);
    json_decref(txn);
}

/* ---- requests against endpoints that are not etcd ----------------------------------------- */

/* A fake gateway: answers each request on its socket with the next of its answers, then closes. */
typedef struct fake {
    int fd;
    const char *const *answers;
    int n;
    char last_request[4096];
} fake;

static void *serve(void *arg) {
    fake *f = arg;
    for (int i = 0; i < f->n; i++) {
        int c = accept(f->fd, NULL, NULL);
        if (c < 0)
            return NULL;
        /* The headers, then a body of Content-Length bytes. */
        size_t have = 0;
        long body = -1;
        char *end = NULL;
        while (have < sizeof f->last_request - 1) {
            ssize_t got = read(c, f->last_request + have, sizeof f->last_request - 1 - have);
            if (got <= 0)
                break;
            have += (size_t)got;
            f->last_request[have] = '\0';
            end = strstr(f->last_request, "\r\n\r\n");
            const char *cl = strstr(f->last_request, "Content-Length: ");
            if (end != NULL && cl != NULL)
                body = strtol(cl + 16, NULL, 10);
            if (end != NULL && (long)(have - (size_t)(end + 4 - f->last_request)) >= body)
                break;
        }
        char reply[1024];
        int len = snprintf(reply, sizeof reply,
                           "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                           "Connection: close\r\n\r\n%s",
                           strlen(f->answers[i]), f->answers[i]);
        if (write(c, reply, (size_t)len) != len)
            fprintf(stderr, "fake gateway: a short write\n");
        close(c);
    }
    return NULL;
}

/* A loopback socket on a spare port, listening or not: its port. */
static int loopback(int *fd, bool listening) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    *fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(*fd >= 0);
    CHECK(bind(*fd, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(!listening || listen(*fd, 8) == 0);
    CHECK(getsockname(*fd, (struct sockaddr *)&a, &alen) == 0);
    return ntohs(a.sin_port);
}

static int asks, answered_asks;
static etcd_status last_told;

static void on_ask(void *ctx, bool asking, etcd_status status) {
    (void)ctx;
    if (asking)
        asks++;
    else {
        answered_asks++;
        last_told = status;
    }
}

static etcd *client(int port) {
    etcd_config cfg = {0};
    snprintf(cfg.endpoints[0], sizeof cfg.endpoints[0], "http://127.0.0.1:%d", port);
    cfg.nendpoints = 1;
    cfg.timeout_ms = 2000;
    snprintf(cfg.who, sizeof cfg.who, "test");
    cfg.on_ask = on_ask;
    etcd *e = etcd_open(&cfg);
    CHECK(e != NULL);
    return e;
}

static void check_requests(void) {
    /* Bound but not listening: the connection is refused at once. */
    int closed_fd, closed = loopback(&closed_fd, false);
    etcd *e = client(closed);
    etcd_error err;
    uint64_t id;
    int64_t ttl;
    CHECK_INT(etcd_lease_grant(e, 5, &id, &ttl, &err), ETCD_UNREACHABLE);
    CHECK(!etcd_answered(err.status));
    char where[64];
    snprintf(where, sizeof where, "http://127.0.0.1:%d: ", closed);
    CHECK(strncmp(err.text, where, strlen(where)) == 0);
    CHECK(asks == 1 && answered_asks == 1 && last_told == ETCD_UNREACHABLE);
    /* A part that could not be built: nothing is sent. */
    bool ok = true;
    CHECK(etcd_txn(e, json_array(), NULL, json_array(), &ok, &err) == NULL);
    CHECK_INT(err.status, ETCD_NOMEM);
    CHECK(!ok && asks == 1);
    etcd_close(e);
    close(closed_fd);

    static const char *const answers[] = {
        ("{\"error\":\"etcdserver: requested lease not found\",\"code\":5,\"message\":\"etcdserver: requested lease "
         "not found\"}"),
        "not json",
        "{\"header\":{},\"ID\":\"7587871203456789012\",\"TTL\":\"5\"}",
        "{\"result\":{\"header\":{},\"ID\":\"7587871203456789012\"}}",
        "{\"result\":{\"header\":{},\"ID\":\"7587871203456789012\",\"TTL\":\"4\"}}",
        "{\"error\":{\"grpc_code\":14,\"http_code\":503,\"message\":\"etcdserver: no leader\"}}",
        "{\"header\":{},\"kvs\":{}}",
    };
    fake f = {.answers = answers, .n = (int)(sizeof answers / sizeof answers[0])};
    int port = loopback(&f.fd, true);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, serve, &f) == 0);
    e = client(port);
    CHECK_INT(etcd_lease_revoke(e, 42, &err), ETCD_REFUSED);
    CHECK(etcd_answered(err.status) && err.grpc_code == 5);
    CHECK_STR(err.text, "etcdserver: requested lease not found");
    CHECK(strstr(f.last_request, "POST /v3/lease/revoke ") == f.last_request);
    CHECK(strstr(f.last_request, "{\"ID\":\"42\"}") != NULL);
    CHECK_INT(etcd_lease_grant(e, 5, &id, &ttl, &err), ETCD_UNREACHABLE);
    CHECK(strstr(err.text, "not etcd's JSON") != NULL);
    CHECK_INT(etcd_lease_grant(e, 5, &id, &ttl, &err), ETCD_OK);
    CHECK_U64(id, 7587871203456789012u);
    CHECK_INT(ttl, 5);
    CHECK(strstr(f.last_request, "{\"TTL\":5}") != NULL);
    CHECK_INT(etcd_lease_keepalive(e, id, &ttl, &err), ETCD_OK);
    CHECK_INT(ttl, 0); /* gone: etcd leaves a TTL of 0 out */
    CHECK_INT(etcd_lease_keepalive(e, id, &ttl, &err), ETCD_OK);
    CHECK_INT(ttl, 4);
    CHECK_INT(etcd_lease_keepalive(e, id, &ttl, &err), ETCD_REFUSED);
    CHECK(err.grpc_code == 14);
    CHECK_STR(err.text, "etcdserver: no leader");
    CHECK(etcd_range(e, "/m/cluster", NULL, false, &err) == NULL);
    CHECK_INT(err.status, ETCD_MALFORMED);
    CHECK(strstr(f.last_request, "{\"key\":\"L20vY2x1c3Rlcg==\"}") != NULL);
    pthread_join(t, NULL);
    etcd_close(e);
    close(f.fd);
}

int main(void) {
    check_vectors();
    check_round_trips();
    check_refusals();
    check_json_bytes();
    check_parts();
    check_requests();
    return CHECK_DONE();
}
