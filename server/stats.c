/* SPDX-License-Identifier: MIT */
/*
 * stats.c - the service's counters and state as text: Prometheus text for
 * /metrics, Redis-style INFO sections, and the formats served as JSON. The
 * service (service.c) counts; this file only renders, and keeps the one
 * figure the process hands it (its TLS certificate's expiry).
 */
#include "stats.h"

#include "base/log.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const proto_names[PROTO_COUNT] = {"http", "resp"};
static const char *const key_count_names[KEYC_N] = {
    [KEYC_CREATED] = "created", [KEYC_REPLAYED] = "replayed", [KEYC_MISMATCH] = "mismatch", [KEYC_BUSY] = "conflict",
    [KEYC_FULL] = "full",       [KEYC_FOUND] = "found",       [KEYC_ABSENT] = "absent",     [KEYC_FAILED] = "failed"};

/* The process's own (stats_set_tls_cert_expiry); set and read on its event loop's thread. */
static int64_t tls_cert_expiry_s;

void stats_set_tls_cert_expiry(int64_t unix_s) { tls_cert_expiry_s = unix_s; }

static void emitf(emit_fn emit, void *ctx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void emitf(emit_fn emit, void *ctx, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* Every caller's text fits; a cut one would be a malformed exposition. */
    if (n > 0 && (size_t)n < sizeof buf)
        emit(ctx, buf, (size_t)n);
}

static void per_format(service *svc, emit_fn emit, void *ctx, const char *name, const char *help, const uint64_t *v) {
    emitf(emit, ctx, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        if (svc->gens[i] != NULL)
            emitf(emit, ctx, "%s{format=\"%s\"} %" PRIu64 "\n", name, mintid_format_get((mintid_format_id)i)->name,
                  v[i]);
}

static void per_proto(emit_fn emit, void *ctx, const char *name, const char *type, const char *help,
                      const uint64_t *v) {
    emitf(emit, ctx, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
    for (int p = 0; p < PROTO_COUNT; p++)
        emitf(emit, ctx, "%s{protocol=\"%s\"} %" PRIu64 "\n", name, proto_names[p], v[p]);
}

void stats_metrics(service *svc, emit_fn emit, void *ctx) {
    service_counters t;
    service_totals(svc, &t);
    per_format(svc, emit, ctx, "mintid_ids_issued_total", "IDs issued.", t.issued);
    per_format(svc, emit, ctx, "mintid_sequence_waits_total", "Times minting waited for the clock.", t.waits);
    per_format(svc, emit, ctx, "mintid_sequence_exhausted_total", "Times a millisecond's sequence ran out.",
               t.exhausted);
    per_format(svc, emit, ctx, "mintid_clock_rollbacks_total", "Times the clock was seen going backwards.",
               t.rollbacks);
    per_proto(emit, ctx, "mintid_requests_total", "counter", "Requests served.", t.requests);
    per_proto(emit, ctx, "mintid_errors_total", "counter", "Requests answered with an error.", t.errors);
    per_proto(emit, ctx, "mintid_connections", "gauge", "Client connections open.", t.connections);
    per_proto(emit, ctx, "mintid_connections_refused_total", "counter", "Connections refused at max-connections.",
              t.connections_refused);
    per_proto(emit, ctx, "mintid_auth_failures_total", "counter",
              "Requests refused for a wrong or missing secret, or one offered too soon after wrong ones.",
              t.auth_failures);
    emitf(emit, ctx,
          "# HELP mintid_auth_limited_total Secrets refused unchecked for too many wrong ones across connections: "
          "from their client address (auth-failures-per-address), or from all clients (auth-failures-total).\n"
          "# TYPE mintid_auth_limited_total counter\n"
          "mintid_auth_limited_total{scope=\"address\"} %" PRIu64
          "\nmintid_auth_limited_total{scope=\"total\"} %" PRIu64 "\n",
          t.auth_limited_address, t.auth_limited_total);
    emitf(emit, ctx,
          "# HELP mintid_accept_errors_total Times accepting a connection failed (out of descriptors).\n"
          "# TYPE mintid_accept_errors_total counter\nmintid_accept_errors_total %" PRIu64 "\n"
          "# HELP mintid_accept_shed_total Connections closed unserved while descriptors ran out.\n"
          "# TYPE mintid_accept_shed_total counter\nmintid_accept_shed_total %" PRIu64 "\n"
          "# HELP mintid_request_timeouts_total Connections dropped because a request did not arrive whole within "
          "request-timeout.\n"
          "# TYPE mintid_request_timeouts_total counter\nmintid_request_timeouts_total %" PRIu64 "\n"
          "# HELP mintid_connections_shed_at_cap_total Connections without a whole request closed to make room for "
          "a new client at max-connections.\n"
          "# TYPE mintid_connections_shed_at_cap_total counter\nmintid_connections_shed_at_cap_total %" PRIu64 "\n",
          t.accept_errors, t.accept_shed, t.request_timeouts, t.shed_at_cap);
    emitf(emit, ctx,
          "# HELP mintid_log_lines_dropped_total Log lines dropped: the log's buffer was full (stderr not read fast "
          "enough) or stderr failed.\n"
          "# TYPE mintid_log_lines_dropped_total counter\nmintid_log_lines_dropped_total %" PRIu64 "\n"
          "# HELP mintid_log_lines_held_back_total Log lines a client could trigger held back by their rate limit.\n"
          "# TYPE mintid_log_lines_held_back_total counter\nmintid_log_lines_held_back_total %" PRIu64 "\n",
          t.log_dropped, t.log_held_back);
    emitf(emit, ctx,
          "# HELP mintid_tls_handshake_failures_total TLS handshakes that failed or did not finish in time.\n"
          "# TYPE mintid_tls_handshake_failures_total counter\nmintid_tls_handshake_failures_total %" PRIu64 "\n",
          t.tls_handshake_failures);
    if (tls_cert_expiry_s != 0)
        emitf(emit, ctx,
              "# HELP mintid_tls_cert_expiry_timestamp_seconds When the TLS certificate in use (tls-cert's first) "
              "stops being valid, Unix seconds.\n"
              "# TYPE mintid_tls_cert_expiry_timestamp_seconds gauge\n"
              "mintid_tls_cert_expiry_timestamp_seconds %" PRId64 "\n",
              tls_cert_expiry_s);
    emitf(emit, ctx,
          "# HELP mintid_node_id The node id; -1 while a lease is lost.\n# TYPE mintid_node_id gauge\n"
          "mintid_node_id %" PRId64 "\n",
          svc->lease != NULL ? atomic_load(&svc->lease->node) : svc->node);
    if (svc->lease != NULL) {
        lease_status ls;
        service_lease_status(svc, &ls);
        emitf(emit, ctx,
              "# HELP mintid_lease_valid 1 while the node lease is certainly held.\n# TYPE mintid_lease_valid gauge\n"
              "mintid_lease_valid %d\n"
              "# HELP mintid_lease_expiry_seconds Seconds until minting stops without a keepalive.\n"
              "# TYPE mintid_lease_expiry_seconds gauge\nmintid_lease_expiry_seconds %.3f\n"
              "# HELP mintid_lease_keepalive_failures_total Keepalives etcd did not acknowledge.\n"
              "# TYPE mintid_lease_keepalive_failures_total counter\nmintid_lease_keepalive_failures_total %" PRIu64
              "\n",
              ls.valid, ls.expiry_s, ls.keepalive_failures);
    }
    emitf(emit, ctx,
          "# HELP mintid_state_mark_ms Timestamps reserved in the state file, Unix ms.\n"
          "# TYPE mintid_state_mark_ms gauge\nmintid_state_mark_ms %" PRId64 "\n"
          "# HELP mintid_state_writes_total Writes of the state file.\n"
          "# TYPE mintid_state_writes_total counter\nmintid_state_writes_total %" PRIu64 "\n"
          "# HELP mintid_state_write_failures_total Writes of the state file that failed.\n"
          "# TYPE mintid_state_write_failures_total counter\nmintid_state_write_failures_total %" PRIu64 "\n"
          "# HELP mintid_state_failing 1 while the state file cannot be written.\n"
          "# TYPE mintid_state_failing gauge\nmintid_state_failing %d\n",
          atomic_load(&svc->st->mark), atomic_load(&svc->st->writes), atomic_load(&svc->st->failures),
          atomic_load(&svc->st->failing) ? 1 : 0);
    service_readiness sr;
    service_ready(svc, &sr);
    emitf(emit, ctx,
          "# HELP mintid_ready 1 while the format can mint now, 0 while it cannot (GET /readyz and READY say why).\n"
          "# TYPE mintid_ready gauge\n");
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        if (svc->gens[i] != NULL)
            emitf(emit, ctx, "mintid_ready{format=\"%s\"} %d\n", mintid_format_get((mintid_format_id)i)->name,
                  sr.why[i] == NULL);
    emitf(emit, ctx,
          "# HELP mintid_requests_parked_total Requests that waited for their format: its sequence used up, the clock, "
          "the state file or the lease behind.\n"
          "# TYPE mintid_requests_parked_total counter\nmintid_requests_parked_total %" PRIu64 "\n"
          "# HELP mintid_requests_parked Requests waiting now.\n"
          "# TYPE mintid_requests_parked gauge\nmintid_requests_parked %" PRIu64 "\n",
          t.parked_total, t.parked_now);
    emitf(emit, ctx,
          "# HELP mintid_clients_shed_total Connections dropped to bound the replies queued for all clients.\n"
          "# TYPE mintid_clients_shed_total counter\nmintid_clients_shed_total %" PRIu64 "\n"
          "# HELP mintid_queued_bytes Bytes of replies queued for all clients.\n"
          "# TYPE mintid_queued_bytes gauge\nmintid_queued_bytes %" PRIu64 "\n"
          "# HELP mintid_input_bytes Bytes of buffers holding requests for all clients.\n"
          "# TYPE mintid_input_bytes gauge\nmintid_input_bytes %" PRIu64 "\n",
          t.clients_shed, t.queued_bytes, t.input_bytes);
    emitf(emit, ctx,
          "# HELP mintid_keys_total Requests with an idempotency key, and lookups of one, by what became of them.\n"
          "# TYPE mintid_keys_total counter\n");
    for (int i = 0; i < KEYC_N; i++)
        emitf(emit, ctx, "mintid_keys_total{outcome=\"%s\"} %" PRIu64 "\n", key_count_names[i], t.keys[i]);
    emitf(emit, ctx,
          "# HELP mintid_workers Worker processes running (1 for a single process).\n"
          "# TYPE mintid_workers gauge\nmintid_workers %" PRIu64 "\n"
          "# HELP mintid_worker_restarts_total Workers restarted after they died.\n"
          "# TYPE mintid_worker_restarts_total counter\nmintid_worker_restarts_total %" PRIu64 "\n",
          svc->workers != NULL ? atomic_load(svc->workers) : 1, svc->restarts != NULL ? atomic_load(svc->restarts) : 0);
    emitf(emit, ctx,
          "# HELP mintid_uptime_seconds Seconds since start.\n# TYPE mintid_uptime_seconds gauge\n"
          "mintid_uptime_seconds %.3f\n",
          (double)(monotonic_ns() - svc->start_ns) / 1e9);
}

void stats_info(service *svc, emit_fn emit, void *ctx) {
    service_counters t;
    service_totals(svc, &t);
    emitf(emit, ctx, "# Server\r\nmintid_version:%s\r\nuptime_in_seconds:%" PRIu64 "\r\nnode_id:%" PRId64 "\r\n",
          MINTID_VERSION_STRING, (monotonic_ns() - svc->start_ns) / 1000000000u,
          svc->lease != NULL ? atomic_load(&svc->lease->node) : svc->node);
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)f);
        if (fmt->epoch_settable)
            emitf(emit, ctx, "%s_epoch:%" PRId64 "\r\n", fmt->name, config_epoch(svc->cfg, fmt));
    }
    emitf(emit, ctx, "state_mark_ms:%" PRId64 "\r\n", atomic_load(&svc->st->mark));
    /* Redis clients (ioredis) wait for loading:0 before their first command. */
    emitf(emit, ctx, "\r\n# Persistence\r\nloading:0\r\n");
    if (svc->lease != NULL) {
        lease_status ls;
        service_lease_status(svc, &ls);
        emitf(emit, ctx,
              "\r\n# Lease\r\nlease_valid:%d\r\nlease_id:%" PRIx64 "\r\nlease_expiry_seconds:%.3f\r\n"
              "lease_keepalive_failures:%" PRIu64 "\r\nlease_etcd_reachable:%d\r\n"
              "lease_acknowledged_seconds_ago:%.3f\r\n",
              ls.valid, ls.id, ls.expiry_s, ls.keepalive_failures, ls.etcd_reachable, ls.acknowledged_s);
    }
    emitf(emit, ctx, "\r\n# Clients\r\nconnected_clients:%" PRIu64 "\r\nhttp_clients:%" PRIu64 "\r\n",
          t.connections[PROTO_RESP], t.connections[PROTO_HTTP]);
    emitf(emit, ctx,
          "\r\n# Stats\r\nresp_requests:%" PRIu64 "\r\nhttp_requests:%" PRIu64 "\r\nresp_errors:%" PRIu64
          "\r\nhttp_errors:%" PRIu64 "\r\n",
          t.requests[PROTO_RESP], t.requests[PROTO_HTTP], t.errors[PROTO_RESP], t.errors[PROTO_HTTP]);
    for (int i = 0; i < KEYC_N; i++)
        emitf(emit, ctx, "keys_%s:%" PRIu64 "\r\n", key_count_names[i], t.keys[i]);
    emitf(emit, ctx, "\r\n# Formats\r\n");
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const char *name = mintid_format_get((mintid_format_id)i)->name;
        if (svc->gens[i] == NULL) {
            emitf(emit, ctx, "%s:served=0\r\n", name);
            continue;
        }
        emitf(emit, ctx, "%s:served=1,issued=%" PRIu64 ",waits=%" PRIu64 ",rollbacks=%" PRIu64 "\r\n", name,
              t.issued[i], t.waits[i], t.rollbacks[i]);
    }
}

void stats_formats_json(service *svc, emit_fn emit, void *ctx) {
    emit(ctx, "[", 1);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        char desc[MINTID_DESCRIBE_MAX];
        /* The library's description under the server's epoch, and whether
         * this server serves the format, added before its closing brace. */
        int n = mintid_describe(fmt, config_epoch(svc->cfg, fmt), desc, sizeof desc);
        if (i > 0)
            emit(ctx, ",", 1);
        if (n < 2) {
            /* MINTID_DESCRIBE_MAX holds every format's: this cannot happen, and the array stays JSON. */
            emitf(emit, ctx, "{\"name\":\"%s\",\"served\":false}", fmt->name);
            continue;
        }
        emit(ctx, desc, (size_t)n - 1);
        emitf(emit, ctx, ",\"served\":%s}", svc->gens[i] != NULL ? "true" : "false");
    }
    emit(ctx, "]", 1);
}
