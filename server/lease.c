/*
 * lease.c - node id leases in etcd (v3 JSON gateway, libcurl, jansson).
 *
 * Keys under the prefix:
 *   PREFIX/nodes/N  held by the server that owns node id N, attached to its
 *                   lease, created only if absent (a transaction comparing
 *                   create_revision with 0), so two servers never hold it.
 *   PREFIX/marks/N  the latest Unix ms any holder of N may have issued, no
 *                   lease: it outlives its writer. A holder writes it ahead
 *                   of use, only while it still holds the node (a
 *                   transaction comparing the node key's lease); a new
 *                   holder issues nothing at or before it.
 *
 * Fencing: the lease is trusted until the time (CLOCK_BOOTTIME) at which the
 * last acknowledged keepalive was *sent*, plus the TTL, minus a margin. etcd
 * counts the TTL from when it received the keepalive, which is later, so a
 * lease this process considers valid has not expired in etcd.
 */
#include "lease.h"

#include "log.h"
#include "mintid.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

uint64_t lease_clock_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int64_t wall_ms(void) {
    int64_t t = 0;
    mintid_clock_system(NULL, &t);
    return t;
}

/* ---- settings ------------------------------------------------------------------ */

int lease_parse_url(const char *url, lease_config *cfg, char *err, size_t errcap) {
    memset(cfg->endpoints, 0, sizeof cfg->endpoints);
    cfg->nendpoints = 0;
    if (strncmp(url, "etcd://", 7) != 0) {
        snprintf(err, errcap, "node-lease '%s' does not start with etcd://", url);
        return -1;
    }
    const char *hosts = url + 7, *slash = strchr(hosts, '/');
    if (slash == NULL || slash[1] == '\0' || strlen(slash) >= sizeof cfg->prefix) {
        snprintf(err, errcap, "node-lease '%s' needs a key prefix: etcd://HOST:PORT/PREFIX", url);
        return -1;
    }
    memcpy(cfg->prefix, slash, strlen(slash) + 1);
    for (const char *p = hosts; p < slash;) {
        const char *comma = memchr(p, ',', (size_t)(slash - p));
        const char *end = comma != NULL ? comma : slash;
        size_t n = (size_t)(end - p);
        if (n == 0 || memchr(p, ':', n) == NULL || cfg->nendpoints == LEASE_MAX_ENDPOINTS || n > 100) {
            snprintf(err, errcap, "node-lease '%s': give up to %d endpoints as HOST:PORT", url, LEASE_MAX_ENDPOINTS);
            return -1;
        }
        snprintf(cfg->endpoints[cfg->nendpoints++], sizeof cfg->endpoints[0], "http://%.*s", (int)n, p);
        p = end + (comma != NULL);
    }
    if (cfg->nendpoints == 0) {
        snprintf(err, errcap, "node-lease '%s' names no endpoint", url);
        return -1;
    }
    return 0;
}

int lease_parse_range(const char *text, unsigned max, unsigned *lo, unsigned *hi) {
    char *end;
    unsigned long a = strtoul(text, &end, 10), b = a;
    if (end == text)
        return -1;
    if (*end == '-') {
        const char *q = end + 1;
        b = strtoul(q, &end, 10);
        if (end == q)
            return -1;
    }
    if (*end != '\0' || a > b || b > max)
        return -1;
    *lo = (unsigned)a;
    *hi = (unsigned)b;
    return 0;
}

/* ---- base64, for etcd's byte fields ------------------------------------------------ */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void b64_encode(const char *in, char *out, size_t cap) {
    size_t n = strlen(in), o = 0;
    for (size_t i = 0; i < n && o + 5 < cap; i += 3) {
        uint32_t v = (uint32_t)(unsigned char)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)(unsigned char)in[i + 1] << 8;
        if (i + 2 < n)
            v |= (unsigned char)in[i + 2];
        out[o++] = b64[v >> 18];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? b64[v & 63] : '=';
    }
    out[o] = '\0';
}

static int b64_decode(const char *in, char *out, size_t cap) {
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (const char *p = in; *p != '\0' && *p != '='; p++) {
        const char *d = strchr(b64, *p);
        if (d == NULL)
            return -1;
        acc = acc << 6 | (uint32_t)(d - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (o + 1 >= cap)
                return -1;
            out[o++] = (char)(acc >> bits);
        }
    }
    out[o] = '\0';
    return (int)o;
}

/* ---- the gateway --------------------------------------------------------------------- */

typedef struct body {
    char *data;
    size_t len;
} body;

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userdata) {
    body *b = userdata;
    size_t n = size * nmemb;
    if (b->len + n > 1 << 20)
        return 0; /* an answer this large is not etcd's */
    char *grown = realloc(b->data, b->len + n + 1);
    if (grown == NULL)
        return 0;
    b->data = grown;
    memcpy(b->data + b->len, ptr, n);
    b->len += n;
    b->data[b->len] = '\0';
    return n;
}

/*
 * POSTs request to path on one endpoint after another until one answers.
 * Returns the parsed answer (caller frees), or NULL if none could be
 * reached. An error etcd itself reports ({"error": ...}, e.g. "requested
 * lease not found") is an answer: etcd was reached.
 */
static json_t *call(lease *l, const char *path, json_t *request) {
    char *text = json_dumps(request, JSON_COMPACT);
    json_decref(request);
    if (text == NULL)
        return NULL;
    json_t *answer = NULL;
    long timeout_ms = (long)l->cfg.ttl_s * 1000 / 3;
    if (timeout_ms > 2000)
        timeout_ms = 2000;
    for (int tries = 0; tries < l->cfg.nendpoints && answer == NULL; tries++) {
        char url[256];
        snprintf(url, sizeof url, "%s/v3/%s", l->cfg.endpoints[l->endpoint], path);
        body b = {NULL, 0};
        CURL *c = l->curl;
        curl_easy_reset(c);
        curl_easy_setopt(c, CURLOPT_URL, url);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
        curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        CURLcode rc = curl_easy_perform(c);
        long status = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        if (rc == CURLE_OK && b.data != NULL)
            answer = json_loads(b.data, 0, NULL);
        if (answer == NULL || status != 200)
            log_msg(LOG_DEBUG, "etcd %s: %s (HTTP %ld)", url, rc != CURLE_OK ? curl_easy_strerror(rc) : "answered",
                    status);
        free(b.data);
        if (answer == NULL)
            l->endpoint = (l->endpoint + 1) % l->cfg.nendpoints;
    }
    free(text);
    return answer;
}

/* A decimal of s[0..len) in 0..INT64_MAX: digits only, no sign, no overflow. */
static bool parse_i64(const char *s, size_t len, int64_t *out) {
    if (len == 0 || len > 19)
        return false;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (INT64_MAX - (s[i] - '0')) / 10)
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* An int64 field, which the gateway writes as a JSON string; -1 if absent or malformed. */
static int64_t int_field(json_t *obj, const char *name) {
    json_t *v = json_object_get(obj, name);
    int64_t out;
    if (json_is_string(v) && parse_i64(json_string_value(v), strlen(json_string_value(v)), &out))
        return out;
    if (json_is_integer(v) && json_integer_value(v) >= 0)
        return (int64_t)json_integer_value(v);
    return -1;
}

/* An error etcd reported, such as "no leader" during an election. */
static bool etcd_error(json_t *answer) { return json_object_get(answer, "error") != NULL; }

static void key_of(lease *l, const char *kind, unsigned node, char *b64key, size_t cap) {
    char key[256];
    snprintf(key, sizeof key, "%s/%s/%u", l->cfg.prefix, kind, node);
    b64_encode(key, b64key, cap);
}

/* Grants a lease; 0 if etcd could not be reached. */
static uint64_t etcd_grant(lease *l, uint64_t *sent_ns) {
    *sent_ns = lease_clock_ns();
    json_t *a = call(l, "lease/grant", json_pack("{s:i}", "TTL", (json_int_t)l->cfg.ttl_s));
    if (a == NULL)
        return 0;
    int64_t id = int_field(a, "ID");
    int64_t ttl = int_field(a, "TTL");
    json_decref(a);
    return ttl > 0 && id > 0 ? (uint64_t)id : 0;
}

/* Revokes a lease (and deletes the keys attached to it); false if etcd could not be reached. */
static bool etcd_revoke(lease *l, uint64_t id) {
    char ids[32];
    snprintf(ids, sizeof ids, "%" PRIu64, id);
    json_t *a = call(l, "lease/revoke", json_pack("{s:s}", "ID", ids));
    json_decref(a);
    return a != NULL;
}

/* Creates nodes/N under the lease if no one holds it. -1: etcd unreachable. */
static int try_node(lease *l, unsigned node, uint64_t id) {
    char key[512], value[128], ids[32], owner[96];
    key_of(l, "nodes", node, key, sizeof key);
    char host[64] = "";
    gethostname(host, sizeof host - 1);
    snprintf(owner, sizeof owner, "%s pid %ld", host, (long)getpid());
    b64_encode(owner, value, sizeof value);
    snprintf(ids, sizeof ids, "%" PRIu64, id);
    json_t *a = call(l, "kv/txn",
                     json_pack("{s:[{s:s,s:s,s:s,s:s}],s:[{s:{s:s,s:s,s:s}}]}", "compare", "key", key, "target",
                               "CREATE", "result", "EQUAL", "create_revision", "0", "success", "request_put", "key",
                               key, "value", value, "lease", ids));
    if (a == NULL || etcd_error(a)) {
        json_decref(a);
        return -1;
    }
    int won = json_is_true(json_object_get(a, "succeeded"));
    json_decref(a);
    return won;
}

/*
 * The mark of node N (0 if none). -1: etcd unreachable; -2: the mark is
 * there but does not parse, and its text is in `bad`. A mark that cannot be
 * read is never taken as 0: the previous holder may have issued IDs up to
 * any time.
 */
static int read_mark(lease *l, unsigned node, int64_t *mark, char *bad, size_t badcap) {
    char key[512];
    key_of(l, "marks", node, key, sizeof key);
    json_t *a = call(l, "kv/range", json_pack("{s:s}", "key", key));
    if (a == NULL || etcd_error(a)) {
        json_decref(a);
        return -1;
    }
    *mark = 0;
    int rc = 0;
    json_t *kvs = json_object_get(a, "kvs");
    if (json_is_array(kvs) && json_array_size(kvs) > 0) {
        char text[64];
        const char *v = json_string_value(json_object_get(json_array_get(kvs, 0), "value"));
        int n = v != NULL ? b64_decode(v, text, sizeof text) : -1;
        if (n <= 0 || !parse_i64(text, (size_t)n, mark)) {
            if (n > 0)
                mintid_escape(text, (size_t)n, bad, badcap);
            else
                snprintf(bad, badcap, "%s", v != NULL ? "(not base64, or too long)" : "(no value)");
            rc = -2;
        }
    } else if (kvs != NULL && !json_is_array(kvs)) {
        snprintf(bad, badcap, "(an answer without a list of keys)");
        rc = -2;
    }
    json_decref(a);
    return rc;
}

/* Writes the mark of N, only while nodes/N is still under our lease. */
static int write_mark(lease *l, unsigned node, uint64_t id, int64_t mark) {
    char nkey[512], mkey[512], value[64], text[32], ids[32];
    key_of(l, "nodes", node, nkey, sizeof nkey);
    key_of(l, "marks", node, mkey, sizeof mkey);
    snprintf(text, sizeof text, "%" PRId64, mark);
    b64_encode(text, value, sizeof value);
    snprintf(ids, sizeof ids, "%" PRIu64, id);
    json_t *a = call(l, "kv/txn",
                     json_pack("{s:[{s:s,s:s,s:s,s:s}],s:[{s:{s:s,s:s}}]}", "compare", "key", nkey, "target", "LEASE",
                               "result", "EQUAL", "lease", ids, "success", "request_put", "key", mkey, "value", value));
    if (a == NULL || etcd_error(a)) {
        json_decref(a);
        return -1;
    }
    int ok = json_is_true(json_object_get(a, "succeeded"));
    json_decref(a);
    return ok ? 0 : -2;
}

/* Keeps the lease alive; returns the TTL granted, 0 if the lease is gone, -1 if etcd did not say. */
static int64_t etcd_keepalive(lease *l, uint64_t id) {
    char ids[32];
    snprintf(ids, sizeof ids, "%" PRIu64, id);
    json_t *a = call(l, "lease/keepalive", json_pack("{s:s}", "ID", ids));
    if (a == NULL || etcd_error(a)) {
        json_decref(a); /* unanswered, or answered with an error: try again */
        return -1;
    }
    int64_t ttl = int_field(json_object_get(a, "result"), "TTL");
    json_decref(a);
    return ttl < 0 ? -1 : ttl;
}

/* ---- acquiring ---------------------------------------------------------------------- */

static void publish_lost(lease *l) {
    atomic_store(&l->valid_until_ns, 0);
    atomic_store(&l->node, -1);
    l->stale_id = atomic_exchange(&l->id, 0);
}

/*
 * Claims node on this host before etcd is asked for it, so that no other
 * server here (leased under another prefix or etcd, or with a static node
 * id) mints with it meanwhile. False if another holds it, said once per
 * node id.
 */
static bool claim_here(lease *l, unsigned node) {
    long holder;
    int rc = claim_take(l->cfg.claim, node, &holder), err = errno;
    if (rc == 0)
        return true;
    if (node >= LEASE_NODE_IDS || !(l->claimed_logged[node / 64] & (UINT64_C(1) << (node % 64)))) {
        char pid[32] = "unknown";
        if (holder > 0)
            snprintf(pid, sizeof pid, "%ld", holder);
        if (rc > 0)
            log_msg(LOG_WARN,
                    "node lease: node id %u is in use by another mintidd on this host (pid %s); not leasing it", node,
                    pid);
        else
            log_msg(LOG_ERROR, "node lease: node id %u: cannot claim it on this host: %s", node, strerror(err));
    }
    if (node < LEASE_NODE_IDS)
        l->claimed_logged[node / 64] |= UINT64_C(1) << (node % 64);
    return false;
}

/*
 * Takes a free node id: the one held last if it is free again, else the
 * first free one in the range. Returns 0, -1 if etcd is unreachable, -2 if
 * every node id in the range is held.
 */
static int acquire_node(lease *l) {
    /* A lease given up while etcd could not be reached may still be alive
     * there, holding the node id: let it go first, so the id can be taken
     * again at once instead of after its TTL. */
    if (l->stale_id != 0) {
        if (!etcd_revoke(l, l->stale_id))
            return -1;
        l->stale_id = 0;
    }
    uint64_t sent;
    uint64_t id = etcd_grant(l, &sent);
    if (id == 0)
        return -1;
    unsigned span = l->cfg.range_hi - l->cfg.range_lo + 1;
    unsigned start = l->last_node >= (int64_t)l->cfg.range_lo && l->last_node <= (int64_t)l->cfg.range_hi
                         ? (unsigned)l->last_node - l->cfg.range_lo
                         : 0;
    for (unsigned k = 0; k < span; k++) {
        unsigned node = l->cfg.range_lo + (start + k) % span;
        if (l->cfg.claim != NULL && !claim_here(l, node))
            continue;
        int won = try_node(l, node, id);
        if (won < 0) {
            etcd_revoke(l, id);
            return -1;
        }
        if (!won)
            continue;
        int64_t floor = 0;
        char bad[MINTID_ESCAPED_MAX];
        int rc = read_mark(l, node, &floor, bad, sizeof bad);
        if (rc == -2) {
            /* Fail closed: this node id is not used until its mark is repaired. */
            if (node >= LEASE_NODE_IDS || !(l->bad_logged[node / 64] & (UINT64_C(1) << (node % 64))))
                log_msg(LOG_ERROR,
                        "node lease: the mark of node id %u in etcd (%s/marks/%u) is '%s', not Unix ms; not using "
                        "this node id, since its previous holder may have issued IDs up to any time (write a "
                        "correct mark there to use it again)",
                        node, l->cfg.prefix, node, bad);
            if (node < LEASE_NODE_IDS)
                l->bad_logged[node / 64] |= UINT64_C(1) << (node % 64);
            /* Let the node id go (revoking deletes the key held under the
             * lease) and carry on with a fresh lease. */
            etcd_revoke(l, id);
            id = etcd_grant(l, &sent);
            if (id == 0)
                return -1;
            continue;
        }
        if (rc != 0) {
            etcd_revoke(l, id);
            return -1;
        }
        /* Reserve ahead of both the clock and the previous holder's mark. */
        int64_t base = wall_ms() > floor ? wall_ms() : floor;
        int64_t mark = base + (int64_t)l->cfg.reserve_ahead_ms;
        if (write_mark(l, node, id, mark) != 0) {
            etcd_revoke(l, id);
            return -1;
        }
        /* Published in this order: the generation first, validity last, so
         * that no reader sees a valid lease with an older generation. */
        atomic_fetch_add(&l->generation, 1);
        atomic_store(&l->floor_ms, floor);
        atomic_store(&l->mark_ms, mark);
        atomic_store(&l->id, id);
        atomic_store(&l->node, (int64_t)node);
        atomic_store(&l->valid_until_ns,
                     sent + (uint64_t)l->cfg.ttl_s * 1000000000u - (uint64_t)l->cfg.margin_ms * 1000000u);
        l->last_node = node;
        log_msg(LOG_INFO, "node id %u leased from etcd (lease %" PRIx64 ", TTL %u s); previous holder's mark %" PRId64,
                node, id, l->cfg.ttl_s, floor);
        return 0;
    }
    etcd_revoke(l, id);
    return -2;
}

/*
 * acquire_node(), letting the host-wide claim go when no node id was
 * leased: nothing is minted then (the lease is not valid), and the node id
 * tried last stays free for another server here.
 */
static int acquire(lease *l) {
    int rc = acquire_node(l);
    if (rc != 0 && l->cfg.claim != NULL)
        claim_release(l->cfg.claim);
    return rc;
}

static bool stopping(lease *l) { return atomic_load(&l->stop); }

/* Sleeps up to ms, waking early when asked to stop. */
static void nap(lease *l, unsigned ms) {
    for (unsigned slept = 0; slept < ms && !stopping(l); slept += 20) {
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* Keeps the mark in etcd at least half of reserve-ahead ahead of the clock. */
static void renew_mark(lease *l, uint64_t id) {
    int64_t now = wall_ms(), mark = atomic_load(&l->mark_ms);
    if (now + (int64_t)l->cfg.reserve_ahead_ms / 2 <= mark)
        return;
    int64_t next = now + (int64_t)l->cfg.reserve_ahead_ms;
    if (next <= mark) /* the mark never goes down */
        return;
    int rc = write_mark(l, (unsigned)atomic_load(&l->node), id, next);
    if (rc == 0) {
        atomic_store(&l->mark_ms, next);
    } else if (rc == -2) {
        log_msg(LOG_ERROR, "node lease: node %" PRId64 " is no longer ours", atomic_load(&l->node));
        publish_lost(l);
    }
}

static void *run(void *arg) {
    lease *l = arg;
    /* Keepalives every TTL/3; the mark is looked at more often when
     * reserve-ahead is short, so it never falls behind the clock. */
    uint64_t keepalive_every = (uint64_t)l->cfg.ttl_s * 1000000000u / 3;
    unsigned tick_ms = l->cfg.reserve_ahead_ms / 4 < 1000 ? l->cfg.reserve_ahead_ms / 4 : 1000;
    if (tick_ms < 20)
        tick_ms = 20;
    uint64_t next_keepalive = lease_clock_ns() + keepalive_every;
    int last_rc = 0; /* the last failure to acquire, said once */
    while (!stopping(l)) {
        uint64_t id = atomic_load(&l->id);
        if (id == 0) {
            int rc = acquire(l);
            if (rc == -2 && last_rc != -2)
                log_msg(LOG_ERROR, "node lease: every node id in %u-%u is held; not minting until one is free",
                        l->cfg.range_lo, l->cfg.range_hi);
            if (rc == -1 && last_rc != -1)
                log_msg(LOG_ERROR, "node lease: etcd is unreachable; not minting until a node id is leased");
            last_rc = rc;
            if (rc != 0)
                nap(l, 1000);
            next_keepalive = lease_clock_ns() + keepalive_every;
            continue;
        }
        nap(l, tick_ms);
        if (stopping(l))
            break;
        if (lease_clock_ns() < next_keepalive) {
            renew_mark(l, id);
            continue;
        }
        uint64_t sent = lease_clock_ns();
        int64_t ttl = etcd_keepalive(l, id);
        if (ttl < 0) {
            atomic_fetch_add(&l->keepalive_failures, 1);
            log_msg(LOG_WARN, "node lease: keepalive failed (etcd unreachable); minting stops when the lease "
                              "could expire");
            next_keepalive = lease_clock_ns() + 500000000u; /* retry soon */
            if (!lease_valid(l) && atomic_load(&l->node) >= 0) {
                log_msg(LOG_ERROR, "node lease lost: no keepalive acknowledged within the TTL");
                publish_lost(l);
            }
            continue;
        }
        if (ttl == 0) {
            log_msg(LOG_ERROR, "node lease %" PRIx64 " expired in etcd; acquiring a node id again", id);
            publish_lost(l);
            continue;
        }
        atomic_store(&l->valid_until_ns, sent + (uint64_t)ttl * 1000000000u - (uint64_t)l->cfg.margin_ms * 1000000u);
        next_keepalive = sent + keepalive_every;
        renew_mark(l, id);
    }
    return NULL;
}

bool lease_valid(lease *l) { return atomic_load(&l->node) >= 0 && lease_clock_ns() < atomic_load(&l->valid_until_ns); }

int lease_start(lease *l, const lease_config *cfg, unsigned wait_s) {
    memset(l, 0, sizeof *l);
    l->cfg = *cfg;
    atomic_store(&l->node, -1);
    l->last_node = -1;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    l->curl = curl_easy_init();
    if (l->curl == NULL) {
        log_msg(LOG_ERROR, "node lease: libcurl could not start");
        return -1;
    }
    uint64_t deadline = lease_clock_ns() + (uint64_t)wait_s * 1000000000u;
    for (;;) {
        int rc = acquire(l);
        if (rc == 0)
            break;
        if (rc == -2) {
            log_msg(LOG_ERROR, "node lease: every node id in the range %u-%u is held by another server", cfg->range_lo,
                    cfg->range_hi);
            return -1;
        }
        if (lease_clock_ns() >= deadline) {
            log_msg(LOG_ERROR, "node lease: etcd at %s%s is unreachable%s", cfg->endpoints[0],
                    cfg->nendpoints > 1 ? " (and the other endpoints)" : "",
                    wait_s > 0 ? " after waiting lease-start-wait" : "; set lease-start-wait to wait for it");
            return -1;
        }
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
    }
    if (pthread_create(&l->thread, NULL, run, l) != 0) {
        log_msg(LOG_ERROR, "node lease: cannot start its thread");
        return -1;
    }
    l->running = true;
    return 0;
}

void lease_stop(lease *l, int64_t last_issued_ms) {
    if (l->running) {
        atomic_store(&l->stop, true);
        pthread_join(l->thread, NULL);
        l->running = false;
    }
    uint64_t id = atomic_load(&l->id);
    int64_t node = atomic_load(&l->node);
    if (id != 0 && node >= 0 && lease_valid(l)) {
        /* Lower the mark to what was issued (never below the previous holder's). */
        int64_t floor = atomic_load(&l->floor_ms);
        int64_t mark = last_issued_ms > floor ? last_issued_ms : floor;
        if (mark > 0 && write_mark(l, (unsigned)node, id, mark) == 0)
            log_msg(LOG_INFO, "node %" PRId64 ": mark %" PRId64 " saved in etcd", node, mark);
        etcd_revoke(l, id);
        log_msg(LOG_INFO, "node %" PRId64 " released", node);
    }
    publish_lost(l);
    if (l->curl != NULL)
        curl_easy_cleanup(l->curl);
    l->curl = NULL;
    curl_global_cleanup();
}
