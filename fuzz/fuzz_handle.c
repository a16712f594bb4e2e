/* SPDX-License-Identifier: MIT */
/*
 * fuzz_handle.c - libFuzzer target for mintidd's request handling: the
 * bytes of a connection go through the HTTP or RESP handler exactly as the
 * connection layer feeds them (one request at a time, pipelined), against a
 * real service with a generator per format and a state directory.
 *
 * Properties: a handler never claims more bytes than it was given, and
 * writes nothing when it needs more; each request's reply is framed as its
 * protocol frames replies (RESP: one of + - $ * : first, CRLF last; HTTP:
 * exactly one response, its Content-Length matching the body, none for
 * HEAD); the commands a MULTI queued run at EXEC, inside its reply; the
 * response body scratch buffer is left empty; and the server answers a
 * fresh, valid request afterwards.
 */
#include "fuzz.h"
#include "net/conn.h"
#include "http/handle_http.h"
#include "resp/handle_resp.h"
#include "http/http.h"
#include "base/log.h"
#include "server.h"
#include "service.h"
#include "base/state.h"

#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static config cfg;
static state st;
static service svc;
static server srv;
static char dir[] = "/tmp/mintid-fuzz-handle-XXXXXX";

static void cleanup(void) {
    char path[256];
    state_close(&st);
    snprintf(path, sizeof path, "%s/state", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/pid", dir);
    unlink(path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    log_threshold = LOG_ERROR;
    config_defaults(&cfg);
    cfg.max_count = 64; /* enough to exercise batches, small enough to stay fast */
    cfg.max_request = 1024;
    int64_t now;
    if (mkdtemp(dir) == NULL || state_open(&st, dir) != 0 || state_check_params(&st, &cfg, false, false) != 0 ||
        mintid_clock_system(NULL, &now) != MINTID_OK || state_write_now(&st, now + 2000) != 0 ||
        state_writer_start(&st) != 0 || service_init(&svc, &cfg, &st, NULL) != 0)
        abort();
    atexit(cleanup);
    srv.svc = &svc;
    srv.cfg = &cfg;
    srv.scratch = evbuffer_new();
    srv.ids = calloc(SERVER_SLICE_IDS, sizeof *srv.ids);
    REQUIRE(srv.scratch != NULL && srv.ids != NULL);
    return 0;
}

/*
 * Checks that reply[0..len) is exactly one HTTP response: a status line with
 * a known code, a head, and a body of Content-Length bytes. A request that
 * starts "HEAD " gets no body, unless it was malformed: then its method
 * cannot be trusted, and the error comes with its body.
 */
static void check_http_response(const char *reply, size_t len, bool maybe_head) {
    REQUIRE(len > 12 && memcmp(reply, "HTTP/1.1 ", 9) == 0);
    int status = atoi(reply + 9);
    REQUIRE(strcmp(http_reason(status), "Unknown") != 0);
    const char *end = memmem(reply, len, "\r\n\r\n", 4);
    REQUIRE(end != NULL);
    const char *cl = memmem(reply, (size_t)(end - reply), "Content-Length: ", 16);
    REQUIRE(cl != NULL);
    size_t body = (size_t)strtoul(cl + 16, NULL, 10);
    size_t head = (size_t)(end - reply) + 4;
    REQUIRE(len == head + body || (maybe_head && len == head));
}

/*
 * Runs a mint the handler started to its end, as the connection layer
 * does: waiting where it parks, and giving up at its max-wait deadline.
 */
static void finish_job(conn *c) {
    while (c->job.active) {
        size_t budget = SERVER_SLICE_IDS;
        uint64_t retry_ns = 0;
        if (c->job.step(c, &budget, &retry_ns) == JOB_PARKED) {
            if (c->job.deadline_ns == 0)
                c->job.deadline_ns = monotonic_ns() + srv.cfg->max_wait * 1000000u;
            struct timespec ts = {0, (long)(retry_ns < 100000000u ? retry_ns : 100000000u)};
            nanosleep(&ts, NULL);
        }
    }
    REQUIRE(evbuffer_get_length(c->job.body) == 0);
}

/* Feeds buf to the handler as the connection layer does, checking each reply. */
static void run(proto p, const char *buf, size_t len, struct evbuffer *out) {
    const proto_ops *ops = p == PROTO_HTTP ? &http_proto : &resp_proto;
    conn *c = calloc(1, sizeof *c + ops->session_size);
    REQUIRE(c != NULL);
    c->srv = &srv;
    c->proto = p;
    c->ops = ops;
    c->session = c + 1;
    c->out = out;
    c->job.body = evbuffer_new();
    REQUIRE(c->job.body != NULL);
    ops->open(c);
    size_t off = 0;
    while (!c->closing && off < len) {
        size_t before = evbuffer_get_length(out);
        size_t used = ops->handle(c, buf + off, len - off, out);
        REQUIRE(used <= len - off);
        finish_job(c);
        /* An EXEC's queued commands run next, one at a time, each to its
         * end, as the connection layer runs them: their replies are part of
         * the EXEC's. */
        while (ops->pending != NULL && ops->pending(c)) {
            ops->resume(c, out);
            finish_job(c);
        }
        REQUIRE(evbuffer_get_length(srv.scratch) == 0);
        size_t n = evbuffer_get_length(out) - before;
        const char *all = (const char *)evbuffer_pullup(out, -1);
        const char *reply = all != NULL ? all + before : "";
        if (used == 0) {
            REQUIRE(n == 0);
            break;
        }
        if (p == PROTO_HTTP) {
            /* Empty lines before a request line are skipped (RFC 9112 2.2). */
            size_t start = off;
            while (start < len && (buf[start] == '\r' || buf[start] == '\n'))
                start++;
            check_http_response(reply, n, len - start >= 5 && memcmp(buf + start, "HEAD ", 5) == 0);
        } else if (n > 0) {
            /* RESP2's first bytes, and RESP3's after HELLO 3. */
            REQUIRE(reply[0] != '\0' && strchr("+-$*:%_~#,=!>|(", reply[0]) != NULL);
            REQUIRE(n >= 3 && reply[n - 2] == '\r' && reply[n - 1] == '\n');
        }
        off += used;
    }
    ops->close(c); /* a MULTI's queue */
    evbuffer_free(c->job.body);
    free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    proto p = data[0] & 1 ? PROTO_HTTP : PROTO_RESP;
    const char *buf = (const char *)data + 1;
    size_t len = size - 1;
    struct evbuffer *out = evbuffer_new();
    run(p, buf, len, out);
    evbuffer_free(out);

    /* Whatever came before, the next connection is served. */
    out = evbuffer_new();
    if (p == PROTO_RESP) {
        static const char ping[] = "*2\r\n$4\r\nMINT\r\n$9\r\nnanoflake\r\n";
        run(p, ping, sizeof ping - 1, out);
        REQUIRE(evbuffer_get_length(out) > 0 && ((const char *)evbuffer_pullup(out, -1))[0] == '$');
    } else {
        static const char get[] = "GET /v1/nanoflake HTTP/1.1\r\nHost: x\r\n\r\n";
        run(p, get, sizeof get - 1, out);
        REQUIRE(evbuffer_get_length(out) > 12 && memcmp(evbuffer_pullup(out, -1), "HTTP/1.1 200", 12) == 0);
    }
    evbuffer_free(out);
    return 0;
}
