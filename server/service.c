/*
 * service.c - generators, the timestamp reservation, and counters.
 *
 * Every generator reads the clock through svc_clock(), which refuses to
 * hand out a time the state file does not yet cover: the reservation is
 * written (and fsync'd) before any ID can carry a timestamp beyond it.
 * A timer keeps the reservation ahead of the clock, so minting rarely has
 * to wait for a write.
 */
#include "service.h"

#include "log.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char *const proto_names[PROTO_COUNT] = {"http", "resp"};

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int reserve_until(service *svc, int64_t until) {
    if (state_write_mark(svc->st, until) != 0) {
        svc->state_failed = true;
        return -1;
    }
    svc->state_failed = false;
    return 0;
}

/*
 * The clock every generator reads. Besides the time it enforces the rules
 * that make an ID safe to issue: the state file covers the timestamp, and,
 * with a node lease, the lease is still certainly held, the previous
 * holder's mark has passed and the mark in etcd covers the timestamp.
 */
static int svc_clock(void *ctx, int64_t *unix_ms) {
    service *svc = ctx;
    int rc = mintid_clock_system(NULL, unix_ms);
    if (rc != MINTID_OK)
        return rc;
    if (svc->lease != NULL) {
        lease *l = svc->lease;
        if (!lease_valid(l)) {
            svc->fenced = "node lease lost: not minting until it is held again";
            return MINTID_ECLOCK;
        }
        /* A generator made for an earlier lease's node id never mints under a later one. */
        if (atomic_load(&l->generation) != svc->lease_generation) {
            svc->fenced = "node lease renewed with a new node id: try again";
            return MINTID_ECLOCK;
        }
        if (*unix_ms <= atomic_load(&l->floor_ms)) {
            svc->fenced = "node lease: waiting for the previous holder's last timestamp to pass";
            return MINTID_ECLOCK;
        }
        if (*unix_ms > atomic_load(&l->mark_ms)) {
            svc->fenced = "node lease: the mark in etcd does not yet cover the clock";
            return MINTID_ECLOCK;
        }
    }
    /* Checked on every read, not only at start: a clock stepped back later
     * must not reach timestamps an earlier run may have issued. */
    if (*unix_ms <= svc->st->start_mark) {
        svc->fenced = "the clock is behind the state's mark: not minting until it has passed it";
        return MINTID_ECLOCK;
    }
    if (*unix_ms > svc->st->mark && reserve_until(svc, *unix_ms + (int64_t)svc->cfg->reserve_ahead) != 0) {
        svc->fenced = "the state file could not be written; no ID is issued beyond its mark";
        return MINTID_ECLOCK;
    }
    return MINTID_OK;
}

void service_reserve(service *svc) {
    int64_t now;
    if (mintid_clock_system(NULL, &now) != MINTID_OK)
        return;
    /* Renew once half the reservation is used. */
    if (now + (int64_t)svc->cfg->reserve_ahead / 2 > svc->st->mark)
        reserve_until(svc, now + (int64_t)svc->cfg->reserve_ahead);
}

/* Creates the generator of format i for the current node id. */
static int make_generator(service *svc, int i) {
    const config *cfg = svc->cfg;
    const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
    mintid_gen_free(svc->gens[i]);
    svc->gens[i] = NULL;
    svc->why_not[i][0] = '\0';
    mintid_config gc;
    mintid_config_init(&gc, fmt);
    gc.clock = svc_clock;
    gc.clock_ctx = svc;
    gc.overflow = MINTID_OVERFLOW_WAIT;
    gc.max_wait_ms = (uint32_t)cfg->max_wait;
    if (strcmp(cfg->rollback, "wait") == 0)
        gc.rollback = MINTID_ROLLBACK_WAIT;
    else if (strcmp(cfg->rollback, "reuse") == 0)
        gc.rollback = MINTID_ROLLBACK_REUSE;
    else if (strcmp(cfg->rollback, "fail") == 0)
        gc.rollback = MINTID_ROLLBACK_FAIL;
    if (fmt->epoch_settable)
        gc.epoch_ms = cfg->nanoflake_epoch;
    /* The node id goes to every format with a mandatory node field; a node
     * id that does not fit one is not wrapped into it, since two servers
     * would then share that format's node id. */
    if (fmt->node_bits > 0 && !fmt->node_optional) {
        if (svc->node < 0 || (uint64_t)svc->node >> fmt->node_bits) {
            snprintf(svc->why_not[i], sizeof svc->why_not[i],
                     "%s is not served: node id %" PRId64 " does not fit its %u-bit field", fmt->name, svc->node,
                     fmt->node_bits);
            log_msg(LOG_WARN, "%s", svc->why_not[i]);
            return 0;
        }
        gc.node = svc->node;
    }
    int rc = mintid_gen_new(fmt, &gc, &svc->gens[i]);
    if (rc != MINTID_OK) {
        log_msg(LOG_ERROR, "%s: %s", fmt->name,
                rc == MINTID_ETIME ? "the epoch is in the future" : mintid_strerror(rc));
        return -1;
    }
    return 0;
}

int service_init(service *svc, const config *cfg, state *st, lease *l) {
    memset(svc, 0, sizeof *svc);
    svc->cfg = cfg;
    svc->st = st;
    svc->lease = l;
    svc->start_ns = mono_ns();
    svc->node = (int64_t)cfg->node;
    if (l != NULL) {
        svc->node = atomic_load(&l->node);
        svc->lease_generation = atomic_load(&l->generation);
    }
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        if (make_generator(svc, i) != 0)
            return -1;
    return 0;
}

/*
 * After the lease was lost and a node id leased again (perhaps another),
 * the formats with a node field get generators for it. The new lease's
 * floor (the mark in etcd, which covered everything this server issued
 * under its old lease) keeps their IDs after every earlier one.
 */
static void follow_lease(service *svc) {
    uint64_t gen = atomic_load(&svc->lease->generation);
    int64_t node = atomic_load(&svc->lease->node);
    if (gen == svc->lease_generation || node < 0)
        return;
    svc->lease_generation = gen;
    svc->node = node;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        if (fmt->node_bits > 0 && !fmt->node_optional)
            make_generator(svc, i);
    }
    log_msg(LOG_INFO, "minting as node %" PRId64 " again", node);
}

void service_free(service *svc) {
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        mintid_gen_free(svc->gens[i]);
    memset(svc->gens, 0, sizeof svc->gens);
}

int service_mint(service *svc, const mintid_format *fmt, size_t count, mintid_id *out, const char **why) {
    if (svc->lease != NULL)
        follow_lease(svc);
    mintid_gen *gen = svc->gens[fmt->id];
    if (gen == NULL) {
        *why = svc->why_not[fmt->id];
        return MINTID_EFORMAT;
    }
    for (size_t done = 0; done < count;) {
        svc->fenced = NULL;
        long n = mintid_gen_next_n(gen, out + done, count - done);
        if (n < 0) {
            *why = svc->fenced != NULL ? svc->fenced : mintid_strerror((int)n);
            return (int)n;
        }
        done += (size_t)n;
    }
    return MINTID_OK;
}

int64_t service_last_issued(service *svc) {
    int64_t last = 0;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        if (svc->gens[i] == NULL)
            continue;
        mintid_gen_stats s;
        mintid_gen_get_stats(svc->gens[i], &s);
        if (s.last_unix_ms > last)
            last = s.last_unix_ms;
    }
    return last;
}

void service_shutdown(service *svc) {
    /* Lower the mark to what was really issued, so a restart need not wait
     * out the unused reservation. */
    int64_t last = service_last_issued(svc);
    if (last <= svc->st->start_mark) /* nothing issued past the old mark: keep it */
        last = svc->st->start_mark;
    if (last == 0)
        return;
    if (state_write_mark(svc->st, last) == 0)
        log_msg(LOG_INFO, "state saved: no ID was issued after %" PRId64 " (Unix ms)", last);
}

/* A count as requests give it: decimal, no sign, no leading zero, 1..max. */
bool service_parse_count(const char *s, size_t len, uint64_t max, uint64_t *out) {
    if (len == 0 || len > 10 || s[0] == '0')
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

/* ---- reports ------------------------------------------------------------------ */

void service_lease_status(service *svc, lease_status *out) {
    memset(out, 0, sizeof *out);
    if (svc->lease == NULL)
        return;
    lease *l = svc->lease;
    out->valid = lease_valid(l);
    out->node = atomic_load(&l->node);
    out->id = atomic_load(&l->id);
    uint64_t until = atomic_load(&l->valid_until_ns), now = mono_ns();
    out->expiry_s = out->valid && until > now ? (double)(until - now) / 1e9 : 0;
    out->keepalive_failures = atomic_load(&l->keepalive_failures);
}

static void emitf(emit_fn emit, void *ctx, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void emitf(emit_fn emit, void *ctx, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0)
        emit(ctx, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void per_format(service *svc, emit_fn emit, void *ctx, const char *name, const char *help, size_t field_offset) {
    emitf(emit, ctx, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        if (svc->gens[i] == NULL)
            continue;
        mintid_gen_stats s;
        uint64_t v;
        mintid_gen_get_stats(svc->gens[i], &s);
        memcpy(&v, (const char *)&s + field_offset, sizeof v);
        emitf(emit, ctx, "%s{format=\"%s\"} %" PRIu64 "\n", name, mintid_format_get((mintid_format_id)i)->name, v);
    }
}

static void per_proto(emit_fn emit, void *ctx, const char *name, const char *type, const char *help,
                      const uint64_t *v) {
    emitf(emit, ctx, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
    for (int p = 0; p < PROTO_COUNT; p++)
        emitf(emit, ctx, "%s{protocol=\"%s\"} %" PRIu64 "\n", name, proto_names[p], v[p]);
}

void service_metrics(service *svc, emit_fn emit, void *ctx) {
    per_format(svc, emit, ctx, "mintid_ids_issued_total", "IDs issued.", offsetof(mintid_gen_stats, issued));
    per_format(svc, emit, ctx, "mintid_sequence_waits_total", "Times minting waited for the clock.",
               offsetof(mintid_gen_stats, waits));
    per_format(svc, emit, ctx, "mintid_sequence_exhausted_total", "Times a millisecond's sequence ran out.",
               offsetof(mintid_gen_stats, exhausted));
    per_format(svc, emit, ctx, "mintid_clock_rollbacks_total", "Times the clock was seen going backwards.",
               offsetof(mintid_gen_stats, rollbacks));
    per_proto(emit, ctx, "mintid_requests_total", "counter", "Requests served.", svc->requests);
    per_proto(emit, ctx, "mintid_errors_total", "counter", "Requests answered with an error.", svc->errors);
    per_proto(emit, ctx, "mintid_connections", "gauge", "Client connections open.", svc->connections);
    per_proto(emit, ctx, "mintid_connections_refused_total", "counter", "Connections refused at max-connections.",
              svc->connections_refused);
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
          "# TYPE mintid_state_writes_total counter\nmintid_state_writes_total %" PRIu64 "\n",
          svc->st->mark, svc->st->writes);
    emitf(emit, ctx,
          "# HELP mintid_uptime_seconds Seconds since start.\n# TYPE mintid_uptime_seconds gauge\n"
          "mintid_uptime_seconds %.3f\n",
          (double)(mono_ns() - svc->start_ns) / 1e9);
}

void service_info(service *svc, emit_fn emit, void *ctx) {
    emitf(emit, ctx,
          "# Server\r\nmintid_version:%s\r\nuptime_in_seconds:%" PRIu64 "\r\nnode_id:%" PRId64
          "\r\nnanoflake_epoch:%" PRId64 "\r\nstate_mark_ms:%" PRId64 "\r\n",
          MINTID_VERSION_STRING, (mono_ns() - svc->start_ns) / 1000000000u,
          svc->lease != NULL ? atomic_load(&svc->lease->node) : svc->node, svc->cfg->nanoflake_epoch, svc->st->mark);
    if (svc->lease != NULL) {
        lease_status ls;
        service_lease_status(svc, &ls);
        emitf(emit, ctx,
              "\r\n# Lease\r\nlease_valid:%d\r\nlease_id:%" PRIx64 "\r\nlease_expiry_seconds:%.3f\r\n"
              "lease_keepalive_failures:%" PRIu64 "\r\n",
              ls.valid, ls.id, ls.expiry_s, ls.keepalive_failures);
    }
    emitf(emit, ctx, "\r\n# Clients\r\nconnected_clients:%" PRIu64 "\r\nhttp_clients:%" PRIu64 "\r\n",
          svc->connections[PROTO_RESP], svc->connections[PROTO_HTTP]);
    emitf(emit, ctx,
          "\r\n# Stats\r\nresp_requests:%" PRIu64 "\r\nhttp_requests:%" PRIu64 "\r\nresp_errors:%" PRIu64
          "\r\nhttp_errors:%" PRIu64 "\r\n",
          svc->requests[PROTO_RESP], svc->requests[PROTO_HTTP], svc->errors[PROTO_RESP], svc->errors[PROTO_HTTP]);
    emitf(emit, ctx, "\r\n# Formats\r\n");
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const char *name = mintid_format_get((mintid_format_id)i)->name;
        if (svc->gens[i] == NULL) {
            emitf(emit, ctx, "%s:served=0\r\n", name);
            continue;
        }
        mintid_gen_stats s;
        mintid_gen_get_stats(svc->gens[i], &s);
        emitf(emit, ctx, "%s:served=1,issued=%" PRIu64 ",waits=%" PRIu64 ",rollbacks=%" PRIu64 "\r\n", name, s.issued,
              s.waits, s.rollbacks);
    }
}

void service_formats_json(service *svc, emit_fn emit, void *ctx) {
    emit(ctx, "[", 1);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        int64_t epoch = fmt->epoch_settable ? svc->cfg->nanoflake_epoch : fmt->epoch_ms;
        emitf(emit, ctx,
              "%s{\"name\":\"%s\",\"title\":\"%s\",\"bits\":%u,\"served\":%s,\"epoch_ms\":%" PRId64
              ",\"capacity_per_ms\":%" PRIu32 ",\"fields\":[",
              i ? "," : "", fmt->name, fmt->title, fmt->bits, svc->gens[i] ? "true" : "false", epoch,
              fmt->capacity_per_ms);
        for (unsigned f = 0; f < fmt->nfields; f++)
            emitf(emit, ctx, "%s{\"name\":\"%s\",\"bits\":%u}", f ? "," : "", fmt->fields[f].name,
                  fmt->fields[f].width);
        emit(ctx, "],\"forms\":[", 11);
        const char *sep = "";
        for (int form = 0; form < MINTID_FORM_COUNT; form++)
            if (fmt->forms & MINTID_FORM_BIT(form)) {
                emitf(emit, ctx, "%s\"%s\"", sep, mintid_form_name((mintid_form)form));
                sep = ",";
            }
        emit(ctx, "]}", 2);
    }
    emit(ctx, "]", 1);
}
