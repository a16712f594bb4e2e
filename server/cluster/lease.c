/* SPDX-License-Identifier: MIT */
/*
 * lease.c - node id leases in etcd, asked through its one client (etcd.c).
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
 *   PREFIX/released/N  there while N's last holder let it go cleanly (it
 *                   wrote its final mark after it stopped minting); its next
 *                   holder removes it, and without it waits a TTL plus the
 *                   margin before minting, since the last holder may still
 *                   be minting until then.
 *   PREFIX/cluster  the node space's marker, written once by `mintidd init`:
 *                   without it (or with another one) the marks cannot be
 *                   trusted, and no node id is taken.
 *
 * Fencing: the lease is trusted until the time (CLOCK_BOOTTIME) at which the
 * last acknowledged keepalive was *sent*, plus the TTL, minus a margin, and
 * only if a confirmation after that keepalive found nodes/N still ours and
 * the marker unchanged. etcd counts the TTL from when it received the
 * keepalive, which is later, so a lease this process considers valid has
 * not expired in etcd, and its key was still there after it was sent.
 */
#include "cluster/lease.h"

#include "cluster/etcd.h"
#include "base/log.h"
#include "mintid.h"
#include "base/state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t wall_ms(void) {
    int64_t t = 0;
    mintid_clock_system(NULL, &t);
    return t;
}

/* ---- settings ------------------------------------------------------------------ */

int lease_parse_url(const char *url, lease_config *cfg, char *err, size_t errcap) {
    memset(cfg->endpoints, 0, sizeof cfg->endpoints);
    cfg->nendpoints = 0;
    const char *scheme;
    size_t skip;
    if (strncmp(url, "etcd://", 7) == 0) {
        scheme = "http";
        skip = 7;
    } else if (strncmp(url, "etcds://", 8) == 0) {
        scheme = "https";
        skip = 8;
    } else {
        snprintf(err, errcap, "node-lease '%s' does not start with etcd:// or etcds://", url);
        return -1;
    }
    const char *hosts = url + skip, *slash = strchr(hosts, '/');
    if (slash == NULL || slash[1] == '\0' || strlen(slash) >= sizeof cfg->prefix) {
        snprintf(err, errcap, "node-lease '%s' needs a key prefix: %.*sHOST:PORT/PREFIX", url, (int)skip, url);
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
        snprintf(cfg->endpoints[cfg->nendpoints++], sizeof cfg->endpoints[0], "%s://%.*s", scheme, (int)n, p);
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

/* ---- requests to etcd (etcd.c) ------------------------------------------------------ */

/*
 * Told by the client when each request starts and ends: the event loop
 * reads from these atomics whether etcd answers (lease_etcd_unreachable).
 */
static void on_ask(void *ctx, bool asking, etcd_status status) {
    lease *l = ctx;
    if (asking) {
        atomic_store(&l->asking_since_ns, lease_clock_ns());
        return;
    }
    atomic_store(&l->unreachable, !etcd_answered(status));
    atomic_store(&l->asking_since_ns, 0);
}

void lease_etcd_config(const lease_config *cfg, const char *who, etcd_config *out) {
    _Static_assert(sizeof out->endpoints == sizeof cfg->endpoints && sizeof out->ca == sizeof cfg->ca &&
                       sizeof out->cert == sizeof cfg->cert && sizeof out->key == sizeof cfg->key &&
                       sizeof out->user == sizeof cfg->user && sizeof out->password == sizeof cfg->password,
                   "lease_config's etcd settings are etcd_config's");
    memset(out, 0, sizeof *out);
    memcpy(out->endpoints, cfg->endpoints, sizeof out->endpoints);
    out->nendpoints = cfg->nendpoints;
    memcpy(out->ca, cfg->ca, sizeof out->ca);
    memcpy(out->cert, cfg->cert, sizeof out->cert);
    memcpy(out->key, cfg->key, sizeof out->key);
    memcpy(out->user, cfg->user, sizeof out->user);
    memcpy(out->password, cfg->password, sizeof out->password);
    /* A third of the TTL for one endpoint, at most 2 s: a keepalive that
     * meets a dead endpoint still has time for another. */
    out->timeout_ms = (long)cfg->ttl_s * 1000 / 3;
    if (out->timeout_ms > 2000)
        out->timeout_ms = 2000;
    snprintf(out->who, sizeof out->who, "%s", who);
}

static void key_of(lease *l, const char *kind, unsigned node, char *key, size_t cap) {
    snprintf(key, cap, "%s/%s/%u", l->cfg.prefix, kind, node);
}

/* Grants a lease; 0 if etcd could not be reached or granted none. */
static uint64_t etcd_grant(lease *l, uint64_t *sent_ns) {
    *sent_ns = lease_clock_ns();
    etcd_error err;
    uint64_t id;
    int64_t ttl;
    return etcd_lease_grant(l->etcd, (int64_t)l->cfg.ttl_s, &id, &ttl, &err) == ETCD_OK ? id : 0;
}

/* Revokes a lease (and deletes the keys attached to it); false if etcd could not be reached. */
static bool etcd_revoke(lease *l, uint64_t id) {
    etcd_error err;
    return etcd_answered(etcd_lease_revoke(l->etcd, id, &err));
}

/* Creates nodes/N under the lease if no one holds it. -1: etcd unreachable. */
static int try_node(lease *l, unsigned node, uint64_t id) {
    char key[256];
    key_of(l, "nodes", node, key, sizeof key);
    etcd_error err;
    bool won;
    json_t *a = etcd_txn(l->etcd, json_pack("[o]", etcd_cmp_absent(key)),
                         json_pack("[o]", etcd_op_put(key, l->owner, strlen(l->owner), id)), json_array(), &won, &err);
    if (a == NULL)
        return -1;
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
    char key[256], text[64];
    key_of(l, "marks", node, key, sizeof key);
    etcd_error err;
    json_t *a = etcd_range(l->etcd, key, NULL, false, &err);
    if (a == NULL && err.status == ETCD_MALFORMED) {
        snprintf(bad, badcap, "(%s)", err.text);
        return -2;
    }
    if (a == NULL)
        return -1;
    *mark = 0;
    int rc = 0;
    json_t *kv = etcd_kv(a, 0);
    long n = kv != NULL ? etcd_kv_text(kv, "value", text, sizeof text) : 0;
    if (kv != NULL && (n <= 0 || !etcd_parse_i64(text, (size_t)n, mark))) {
        if (n > 0)
            mintid_escape(text, (size_t)n, bad, badcap);
        else
            snprintf(bad, badcap, "(%s)", n == 0 ? "empty" : etcd_b64_why(n));
        rc = -2;
    }
    json_decref(a);
    return rc;
}

/*
 * Writes the mark of N, only while nodes/N is still under our lease. At an
 * acquisition (RELEASED_CLEAR) PREFIX/released/N goes in the same
 * transaction: the node id is in use again. At a clean release
 * (RELEASED_SET) it is written: the next holder need not wait.
 */
enum { RELEASED_KEEP, RELEASED_CLEAR, RELEASED_SET };

static int write_mark(lease *l, unsigned node, uint64_t id, int64_t mark, int released) {
    char nkey[256], mkey[256], rkey[256], text[32];
    key_of(l, "nodes", node, nkey, sizeof nkey);
    key_of(l, "marks", node, mkey, sizeof mkey);
    key_of(l, "released", node, rkey, sizeof rkey);
    int len = snprintf(text, sizeof text, "%" PRId64, mark);
    json_t *ops = json_pack("[o]", etcd_op_put(mkey, text, (size_t)len, 0));
    json_t *more = released == RELEASED_CLEAR ? etcd_op_delete(rkey)
                   : released == RELEASED_SET ? etcd_op_put(rkey, l->owner, strlen(l->owner), 0)
                                              : NULL;
    if (released != RELEASED_KEEP && json_array_append_new(ops, more) != 0) {
        json_decref(ops);
        ops = NULL; /* not sent without it */
    }
    etcd_error err;
    bool ok;
    json_t *a = etcd_txn(l->etcd, json_pack("[o]", etcd_cmp_lease(nkey, id)), ops, json_array(), &ok, &err);
    if (a == NULL)
        return -1;
    json_decref(a);
    return ok ? 0 : -2;
}

/* Whether PREFIX/released/N is there: 1 or 0; -1 if etcd could not be reached. */
static int read_released(lease *l, unsigned node) {
    char key[256];
    key_of(l, "released", node, key, sizeof key);
    etcd_error err;
    json_t *a = etcd_range(l->etcd, key, NULL, true, &err);
    if (a == NULL)
        return -1;
    int rc = etcd_kv(a, 0) != NULL;
    json_decref(a);
    return rc;
}

/* ---- the node space's marker ------------------------------------------------------------ */

static void cluster_key(const lease *l, char *key, size_t cap) { snprintf(key, cap, "%s/cluster", l->cfg.prefix); }

/*
 * Parses a marker, "mintid-cluster <32 hex> floor <Unix ms>": true with
 * the id and floor, false for anything else.
 */
static bool parse_cluster(const char *text, char id[LEASE_CLUSTER_ID_LEN + 1], int64_t *floor) {
    static const char head[] = "mintid-cluster ", mid[] = " floor ";
    size_t hl = sizeof head - 1, ml = sizeof mid - 1;
    if (strncmp(text, head, hl) != 0 || strlen(text) <= hl + LEASE_CLUSTER_ID_LEN + ml)
        return false;
    const char *hex = text + hl;
    for (int i = 0; i < LEASE_CLUSTER_ID_LEN; i++)
        if (!((hex[i] >= '0' && hex[i] <= '9') || (hex[i] >= 'a' && hex[i] <= 'f')))
            return false;
    if (strncmp(hex + LEASE_CLUSTER_ID_LEN, mid, ml) != 0)
        return false;
    const char *num = hex + LEASE_CLUSTER_ID_LEN + ml;
    if (!etcd_parse_i64(num, strlen(num), floor))
        return false;
    memcpy(id, hex, LEASE_CLUSTER_ID_LEN);
    id[LEASE_CLUSTER_ID_LEN] = '\0';
    return true;
}

/* The marker's text: 1 with it in text, 0 if there is none, -1 if etcd could not be reached. */
static int read_cluster(lease *l, char *text, size_t cap) {
    char key[256];
    cluster_key(l, key, sizeof key);
    etcd_error err;
    json_t *a = etcd_range(l->etcd, key, NULL, false, &err);
    if (a == NULL)
        return -1;
    json_t *kv = etcd_kv(a, 0);
    text[0] = '\0';
    long n = kv != NULL ? etcd_kv_text(kv, "value", text, cap) : 0;
    if (n < 0)
        snprintf(text, cap, "(%s)", etcd_b64_why(n));
    int rc = kv != NULL;
    json_decref(a);
    return rc;
}

/*
 * Checks the marker before a node id is taken: it must be there, well
 * formed, and the one found at start (or recorded in the state
 * directory). 0; -1 if etcd could not be reached; -3 if the node space
 * cannot be trusted, said once until it changes.
 */
static int check_cluster(lease *l) {
    char text[160], id[LEASE_CLUSTER_ID_LEN + 1], shown[MINTID_ESCAPED_MAX];
    int64_t floor;
    int rc = read_cluster(l, text, sizeof text);
    if (rc < 0)
        return -1;
    int problem = rc == 0 ? 1 : !parse_cluster(text, id, &floor) ? 2 : 0;
    if (problem == 0 && l->cluster[0] != '\0' && strcmp(text, l->cluster) != 0)
        problem = 3;
    if (problem == 0 && l->cluster[0] == '\0' && l->cfg.cluster_id[0] != '\0' && strcmp(id, l->cfg.cluster_id) != 0 &&
        !l->cfg.adopt_cluster)
        problem = 4;
    if (problem == 0) {
        if (l->cluster[0] == '\0') {
            snprintf(l->cluster, sizeof l->cluster, "%s", text);
            memcpy(l->cluster_id, id, sizeof l->cluster_id);
            l->cluster_floor = floor;
        }
        l->cluster_problem = 0;
        return 0;
    }
    if (problem == l->cluster_problem)
        return -3;
    l->cluster_problem = problem;
    mintid_escape(text, strlen(text), shown, sizeof shown);
    switch (problem) {
    case 1:
        log_msg(LOG_ERROR,
                "node lease: etcd has no marker at %s/cluster: this node space was never initialised, or etcd's data "
                "was lost (wiped, restored from before the init, or the prefix deleted), and with it the marks "
                "that keep IDs unique. Not leasing a node id. To initialise it safely run `mintidd init "
                "--node-lease URL --floor WHEN` with WHEN the time of the loss plus the largest clock skew "
                "among the servers (see docs/scale-out.md); for a new node space, --floor may be left out",
                l->cfg.prefix);
        break;
    case 2:
        log_msg(LOG_ERROR,
                "node lease: the marker at %s/cluster in etcd is '%s', not 'mintid-cluster <id> floor <Unix ms>'; "
                "not leasing a node id (delete the prefix and run mintidd init with a floor past every ID issued, "
                "see docs/scale-out.md)",
                l->cfg.prefix, shown);
        break;
    case 3:
        log_msg(LOG_ERROR,
                "node lease: the marker at %s/cluster changed while this server ran (now '%s'): etcd's data was "
                "replaced; not leasing a node id until this server is restarted",
                l->cfg.prefix, shown);
        break;
    default:
        log_msg(LOG_ERROR,
                "node lease: etcd's node space at %s is cluster %s, but this state directory served cluster %s: etcd "
                "was initialised again, or this is another etcd. Refusing to start; if it was initialised again "
                "with a floor past every ID issued before (see docs/scale-out.md), start once with --adopt-params 1",
                l->cfg.prefix, id, l->cfg.cluster_id);
        break;
    }
    return -3;
}

/*
 * Confirms that nodes/N is still ours (our lease, our value) and that the
 * marker is the one found at start, in one transaction. 1: confirmed; 0:
 * not, said why; -1: etcd could not be reached.
 */
static int confirm(lease *l, unsigned node, uint64_t id) {
    char nkey[256], ckey[256];
    key_of(l, "nodes", node, nkey, sizeof nkey);
    cluster_key(l, ckey, sizeof ckey);
    etcd_error err;
    bool ok;
    json_t *a =
        etcd_txn(l->etcd,
                 json_pack("[o,o,o]", etcd_cmp_lease(nkey, id), etcd_cmp_value(nkey, l->owner, strlen(l->owner)),
                           etcd_cmp_value(ckey, l->cluster, strlen(l->cluster))),
                 json_array(), json_pack("[o]", etcd_op_range(ckey)), &ok, &err);
    if (a == NULL)
        return -1;
    if (!ok) {
        char text[160];
        bool same = etcd_kv_text(etcd_kv(etcd_txn_range(a, 0), 0), "value", text, sizeof text) >= 0 &&
                    strcmp(text, l->cluster) == 0;
        if (same)
            log_msg(LOG_ERROR,
                    "node lease: %s/nodes/%u is no longer ours (deleted, or held by another lease); stopped minting "
                    "as node %u",
                    l->cfg.prefix, node, node);
        else
            log_msg(LOG_ERROR,
                    "node lease: the marker at %s/cluster is gone or changed: etcd's data was deleted or replaced; "
                    "stopped minting as node %u",
                    l->cfg.prefix, node);
    }
    json_decref(a);
    return ok;
}

/*
 * Keeps the lease alive; returns the TTL granted, 0 if the lease is gone
 * (expired or revoked), -1 if etcd did not answer or answered with an error
 * (try again; l->unreachable tells which).
 */
static int64_t etcd_keepalive(lease *l, uint64_t id) {
    etcd_error err;
    int64_t ttl;
    return etcd_lease_keepalive(l->etcd, id, &ttl, &err) == ETCD_OK ? ttl : -1;
}

/* ---- acquiring ---------------------------------------------------------------------- */

static void publish_lost(lease *l) {
    atomic_store(&l->valid_until_ns, 0);
    atomic_store(&l->valid_from_ns, 0);
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
 * The node ids under PREFIX/KIND/ in etcd with, for marks, their value:
 * calls each(node, text) for every key whose last part is a node id.
 * 0, or -1 if etcd could not be reached.
 */
static int range_prefix(lease *l, const char *kind, bool keys_only, void (*each)(void *, unsigned, const char *),
                        void *ctx) {
    char from[256], to[256];
    size_t n = (size_t)snprintf(from, sizeof from, "%s/%s/", l->cfg.prefix, kind);
    memcpy(to, from, n + 1);
    to[n - 1] = (char)('/' + 1); /* every key that starts with `from` sorts before this */
    etcd_error err;
    json_t *a = etcd_range(l->etcd, from, to, keys_only, &err), *kv;
    if (a == NULL)
        return -1;
    for (size_t i = 0; (kv = etcd_kv(a, i)) != NULL; i++) {
        char key[256], value[64];
        int64_t node;
        long kn = etcd_kv_text(kv, "key", key, sizeof key);
        if (kn <= (long)n || !etcd_parse_i64(key + n, (size_t)kn - n, &node) || node >= LEASE_NODE_IDS)
            continue;
        long vn = etcd_kv_text(kv, "value", value, sizeof value);
        if (vn < 0)
            snprintf(value, sizeof value, "(%s)", etcd_b64_why(vn));
        each(ctx, (unsigned)node, value);
    }
    json_decref(a);
    return 0;
}

/* A node id to try, and its mark as last read: 0 none, -1 one that does not parse. */
typedef struct candidate {
    unsigned node;
    int64_t mark;
} candidate;

typedef struct plan {
    lease *l;
    uint64_t held[LEASE_NODE_IDS / 64];
    int64_t *marks; /* by node id - range_lo */
} plan;

static void on_held(void *ctx, unsigned node, const char *value) {
    (void)value;
    plan *p = ctx;
    p->held[node / 64] |= UINT64_C(1) << (node % 64);
}

/* Says once per node id that its mark does not parse: the node id is not used until it is repaired. */
static void bad_mark(lease *l, unsigned node, const char *shown) {
    if (l->bad_logged[node / 64] & (UINT64_C(1) << (node % 64)))
        return;
    l->bad_logged[node / 64] |= UINT64_C(1) << (node % 64);
    log_msg(LOG_ERROR,
            "node lease: the mark of node id %u in etcd (%s/marks/%u) is '%s', not Unix ms; not using this node id, "
            "since its previous holder may have issued IDs up to any time (write a correct mark there to use it "
            "again)",
            node, l->cfg.prefix, node, shown);
}

static void on_mark(void *ctx, unsigned node, const char *value) {
    plan *p = ctx;
    int64_t mark;
    if (node < p->l->cfg.range_lo || node > p->l->cfg.range_hi)
        return;
    bool ok = etcd_parse_i64(value, strlen(value), &mark);
    p->marks[node - p->l->cfg.range_lo] = ok ? mark : -1;
    if (!ok) {
        char shown[MINTID_ESCAPED_MAX];
        mintid_escape(value, strlen(value), shown, sizeof shown);
        bad_mark(p->l, node, shown);
    }
}

static int by_mark(const void *a, const void *b) {
    const candidate *x = a, *y = b;
    return (x->mark > y->mark) - (x->mark < y->mark);
}

/*
 * The free node ids of the range in the order to try them: those whose
 * mark is behind the clock first (the one held last, then on from it), so
 * that a node id a server once ran ahead on does not make a new server
 * wait while others are free; then those whose mark is ahead, the least
 * ahead first. Node ids whose mark does not parse come last: taking one
 * is refused (see acquire). Returns how many, -1 if etcd could not be
 * reached.
 */
static long plan_nodes(lease *l, candidate *out) {
    unsigned span = l->cfg.range_hi - l->cfg.range_lo + 1;
    plan *p = calloc(1, sizeof *p);
    int64_t *marks = calloc(span, sizeof *marks);
    if (p == NULL || marks == NULL) {
        free(p);
        free(marks);
        return -1;
    }
    p->l = l;
    p->marks = marks;
    long n = -1;
    if (range_prefix(l, "nodes", true, on_held, p) == 0 && range_prefix(l, "marks", false, on_mark, p) == 0) {
        int64_t now = wall_ms();
        unsigned start = l->last_node >= (int64_t)l->cfg.range_lo && l->last_node <= (int64_t)l->cfg.range_hi
                             ? (unsigned)l->last_node - l->cfg.range_lo
                             : 0;
        size_t behind = 0, ahead = 0, bad = 0;
        for (int pass = 0; pass < 3; pass++) {
            size_t first = pass == 0 ? 0 : pass == 1 ? behind : behind + ahead;
            for (unsigned k = 0; k < span; k++) {
                unsigned node = l->cfg.range_lo + (start + k) % span;
                int64_t mark = marks[node - l->cfg.range_lo];
                if (p->held[node / 64] & (UINT64_C(1) << (node % 64)))
                    continue;
                int kind = mark >= 0 && mark < now ? 0 : mark >= now ? 1 : 2;
                if (kind != pass)
                    continue;
                out[first++] = (candidate){node, mark};
                *(pass == 0 ? &behind : pass == 1 ? &ahead : &bad) += 1;
            }
        }
        qsort(out + behind, ahead, sizeof *out, by_mark);
        n = (long)(behind + ahead + bad);
    }
    free(marks);
    free(p);
    return n;
}

/*
 * Takes a free node id in the order of plan_nodes. Returns 0, -1 if etcd
 * is unreachable, -2 if every node id in the range is held (or unusable),
 * -3 if the node space's marker is missing or not the one expected.
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
    int crc = check_cluster(l);
    if (crc != 0)
        return crc;
    unsigned span = l->cfg.range_hi - l->cfg.range_lo + 1;
    candidate *order = calloc(span, sizeof *order);
    if (order == NULL)
        return -1;
    long count = plan_nodes(l, order);
    if (count <= 0) {
        free(order);
        return count < 0 ? -1 : -2;
    }
    uint64_t sent;
    uint64_t id = etcd_grant(l, &sent);
    if (id == 0) {
        free(order);
        return -1;
    }
    int result = -2;
    for (long k = 0; k < count && result == -2; k++) {
        unsigned node = order[k].node;
        if (l->cfg.claim != NULL && !claim_here(l, node))
            continue;
        int won = try_node(l, node, id);
        if (won < 0) {
            result = -1;
            break;
        }
        if (!won)
            continue;
        /* Held now: read its mark again, as it is now, and whether its last holder let it go cleanly. */
        int64_t floor = 0;
        char bad[MINTID_ESCAPED_MAX];
        int rc = read_mark(l, node, &floor, bad, sizeof bad);
        int released = rc == 0 ? read_released(l, node) : 0;
        if (rc == -2) {
            /* Fail closed: this node id is not used until its mark is repaired. */
            bad_mark(l, node, bad);
            /* Let the node id go (revoking deletes the key held under the
             * lease) and carry on with a fresh lease. */
            etcd_revoke(l, id);
            id = etcd_grant(l, &sent);
            if (id == 0) {
                result = -1;
                break;
            }
            continue;
        }
        if (rc != 0 || released < 0) {
            result = -1;
            break;
        }
        /* No ID at or before the marker's floor, on any node id. */
        if (l->cluster_floor > floor)
            floor = l->cluster_floor;
        /* Reserve ahead of both the clock and the previous holder's mark. */
        int64_t base = wall_ms() > floor ? wall_ms() : floor;
        int64_t mark = base + (int64_t)l->cfg.reserve_ahead_ms;
        if (write_mark(l, node, id, mark, RELEASED_CLEAR) != 0) {
            result = -1;
            break;
        }
        /* A node id whose last holder did not let it go (it crashed, was
         * cut off, or its key was deleted under it) may still be in use by
         * that holder until its lease could have expired: it confirmed its
         * key at the latest just before the key went, which was before we
         * created ours, and stops one TTL after that confirmation. */
        uint64_t from =
            released ? 0
                     : lease_clock_ns() + (uint64_t)l->cfg.ttl_s * 1000000000u + (uint64_t)l->cfg.margin_ms * 1000000u;
        /* Published in this order: the generation first, validity last, so
         * that no reader sees a valid lease with an older generation. */
        atomic_fetch_add(&l->generation, 1);
        atomic_store(&l->floor_ms, floor);
        atomic_store(&l->mark_ms, mark);
        atomic_store(&l->id, id);
        atomic_store(&l->valid_from_ns, from);
        atomic_store(&l->node, (int64_t)node);
        atomic_store(&l->valid_until_ns,
                     sent + (uint64_t)l->cfg.ttl_s * 1000000000u - (uint64_t)l->cfg.margin_ms * 1000000u);
        l->last_node = node;
        log_msg(LOG_INFO,
                "node id %u leased from etcd (lease %" PRIx64 ", TTL %u s); previous holder's mark %" PRId64 "%s", node,
                id, l->cfg.ttl_s, floor,
                released ? ""
                         : "; it was not released cleanly: not minting until its last holder must have stopped "
                           "(lease-ttl plus lease-margin)");
        free(order);
        return 0;
    }
    etcd_revoke(l, id);
    free(order);
    return result;
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
    int rc = write_mark(l, (unsigned)atomic_load(&l->node), id, next, RELEASED_KEEP);
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
        /* The lease alone is not enough: the key may have been deleted (or
         * etcd's data replaced) under a live lease. Validity is extended
         * only by a keepalive followed by a confirmation that the key is
         * still ours, so it never reaches a TTL past the last time it was. */
        int confirmed = ttl > 0 ? confirm(l, (unsigned)atomic_load(&l->node), id) : 1;
        if (confirmed == 0) {
            publish_lost(l);
            continue;
        }
        if (ttl < 0 || confirmed < 0) {
            atomic_fetch_add(&l->keepalive_failures, 1);
            log_msg(LOG_WARN,
                    "node lease: keepalive failed (%s); minting stops when the lease could expire, or sooner "
                    "when the clock reaches the mark in etcd",
                    atomic_load(&l->unreachable) ? "etcd is unreachable" : "etcd answered with an error");
            next_keepalive = lease_clock_ns() + 500000000u; /* retry soon */
            if (!lease_valid(l) && lease_wait_ns(l) == 0 && atomic_load(&l->node) >= 0) {
                log_msg(LOG_ERROR, "node lease lost: no keepalive acknowledged within the TTL");
                publish_lost(l);
            }
            continue;
        }
        if (ttl == 0) {
            log_msg(LOG_ERROR,
                    "node lease %" PRIx64 " is gone from etcd (expired or revoked); acquiring a node id again", id);
            publish_lost(l);
            continue;
        }
        atomic_store(&l->valid_until_ns, sent + (uint64_t)ttl * 1000000000u - (uint64_t)l->cfg.margin_ms * 1000000u);
        next_keepalive = sent + keepalive_every;
        renew_mark(l, id);
    }
    return NULL;
}

const char *lease_cluster_id(const lease *l) { return l->cluster_id; }

/* A fresh random id in hex, from OpenSSL's CSPRNG. */
static bool random_hex(char *out, size_t digits) {
    unsigned char bytes[32];
    if (digits / 2 > sizeof bytes || RAND_bytes(bytes, (int)(digits / 2)) != 1)
        return false;
    for (size_t i = 0; i < digits / 2; i++)
        snprintf(out + 2 * i, 3, "%02x", bytes[i]);
    return true;
}

/* The etcd client and the value of our keys, for lease_start and lease_init_cluster. */
static int lease_open(lease *l, const lease_config *cfg) {
    memset(l, 0, sizeof *l);
    l->cfg = *cfg;
    atomic_store(&l->node, -1);
    l->last_node = -1;
    char host[64] = "", instance[17] = "";
    gethostname(host, sizeof host - 1);
    if (!random_hex(instance, 16)) {
        log_msg(LOG_ERROR, "node lease: no random bytes for this server's instance id");
        return -1;
    }
    snprintf(l->owner, sizeof l->owner, "%s pid %ld instance %s", host, (long)getpid(), instance);
    etcd_config ec;
    lease_etcd_config(cfg, "node lease", &ec);
    ec.on_ask = on_ask;
    ec.on_ask_ctx = l;
    l->etcd = etcd_open(&ec);
    explicit_bzero(ec.password, sizeof ec.password);
    return l->etcd != NULL ? 0 : -1;
}

static void lease_close(lease *l) {
    etcd_close(l->etcd);
    l->etcd = NULL;
    explicit_bzero(l->cfg.password, sizeof l->cfg.password);
}

int lease_start(lease *l, const lease_config *cfg, unsigned wait_s) {
    if (lease_open(l, cfg) != 0)
        return -1;
    uint64_t deadline = lease_clock_ns() + (uint64_t)wait_s * 1000000000u;
    int last_rc = 0;
    for (;;) {
        int rc = acquire(l);
        if (rc == 0)
            break;
        if (rc == -3)
            return -1; /* said by check_cluster */
        if (lease_clock_ns() >= deadline) {
            if (rc == -2)
                log_msg(LOG_ERROR, "node lease: every node id in the range %u-%u is held by another server%s",
                        cfg->range_lo, cfg->range_hi,
                        wait_s > 0 ? ", still after lease-start-wait"
                                   : "; set lease-start-wait to wait for one to be free");
            else
                log_msg(LOG_ERROR, "node lease: etcd at %s%s is unreachable%s", cfg->endpoints[0],
                        cfg->nendpoints > 1 ? " (and the other endpoints)" : "",
                        wait_s > 0 ? " after waiting lease-start-wait" : "; set lease-start-wait to wait for it");
            return -1;
        }
        if (rc != last_rc)
            log_msg(LOG_WARN, "node lease: %s; trying again for up to lease-start-wait (%u s)",
                    rc == -2 ? "every node id in the range is held" : "etcd is unreachable", wait_s);
        last_rc = rc;
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
    }
    if (log_thread_create(&l->thread, run, l) != 0) {
        log_msg(LOG_ERROR, "node lease: cannot start its thread");
        return -1;
    }
    l->running = true;
    /* A node id its last holder did not release is usable only once that
     * holder must have stopped; the thread keeps the lease alive meanwhile.
     * Bounded: a lease lost and taken again during the wait starts another. */
    uint64_t wait = lease_wait_ns(l);
    uint64_t until = lease_clock_ns() + 3 * (wait + 1000000000u) + (uint64_t)wait_s * 1000000000u;
    if (wait > 0)
        log_msg(LOG_WARN,
                "node lease: node id %" PRId64 " was not released cleanly by its last holder; waiting %.1f s "
                "(lease-ttl plus lease-margin) for that holder to have stopped",
                atomic_load(&l->node), (double)wait / 1e9);
    while (!lease_valid(l)) {
        if (lease_clock_ns() > until) {
            log_msg(LOG_ERROR, "node lease: no usable node id within the wait");
            return -1;
        }
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
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
    if (id != 0 && node >= 0 && lease_held(l)) {
        /* Lower the mark to what was issued (never below the previous
         * holder's), and say the node id was let go cleanly, unless its
         * previous holder may still be minting (we were still waiting). */
        int64_t floor = atomic_load(&l->floor_ms);
        int64_t mark = last_issued_ms > floor ? last_issued_ms : floor;
        bool clean = lease_wait_ns(l) == 0;
        if (write_mark(l, (unsigned)node, id, mark, clean ? RELEASED_SET : RELEASED_KEEP) == 0)
            log_msg(LOG_INFO, "node %" PRId64 ": mark %" PRId64 " saved in etcd", node, mark);
        etcd_revoke(l, id);
        log_msg(LOG_INFO, "node %" PRId64 " released", node);
    }
    publish_lost(l);
    lease_close(l);
}

/*
 * Writes PREFIX/released/N for every node id of the range that has never
 * been used (no key and no mark), so that its first holder need not wait:
 * a node space just initialised has no holder that could still be
 * minting. A node id in use or with a mark is left alone. In transactions
 * of up to RELEASE_BATCH node ids, one by one when a batch has one in use.
 * 0, or -1 after logging.
 */
#define RELEASE_BATCH 40 /* two compares a node id: under etcd's default of 128 operations a transaction */

static int release_batch(lease *l, unsigned lo, unsigned hi, bool *done) {
    static const char value[] = "mintid init";
    json_t *cmp = json_array(), *ops = json_array();
    for (unsigned n = lo; n <= hi && cmp != NULL; n++) {
        char nkey[256], mkey[256], rkey[256];
        key_of(l, "nodes", n, nkey, sizeof nkey);
        key_of(l, "marks", n, mkey, sizeof mkey);
        key_of(l, "released", n, rkey, sizeof rkey);
        if (json_array_append_new(cmp, etcd_cmp_absent(nkey)) != 0 ||
            json_array_append_new(cmp, etcd_cmp_absent(mkey)) != 0 ||
            json_array_append_new(ops, etcd_op_put(rkey, value, sizeof value - 1, 0)) != 0) {
            json_decref(cmp);
            cmp = NULL; /* not sent with a part missing */
        }
    }
    etcd_error err;
    json_t *a = etcd_txn(l->etcd, cmp, ops, json_array(), done, &err);
    if (a == NULL)
        return -1;
    json_decref(a);
    return 0;
}

static int release_unused(lease *l) {
    for (unsigned lo = l->cfg.range_lo; lo <= l->cfg.range_hi; lo += RELEASE_BATCH) {
        unsigned hi = l->cfg.range_hi - lo >= RELEASE_BATCH ? lo + RELEASE_BATCH - 1 : l->cfg.range_hi;
        bool done = false;
        if (release_batch(l, lo, hi, &done) != 0)
            goto fail;
        for (unsigned n = lo; !done && n <= hi; n++) {
            bool one;
            if (release_batch(l, n, n, &one) != 0)
                goto fail;
        }
        if (hi == l->cfg.range_hi)
            break;
    }
    return 0;
fail:
    log_msg(LOG_ERROR,
            "init: the marker is written, but etcd stopped answering while the node ids were marked unused; their "
            "first holders wait lease-ttl plus lease-margin before minting");
    return -1;
}

int lease_init_cluster(const lease_config *cfg, int64_t floor_ms, char id_out[LEASE_CLUSTER_ID_LEN + 1]) {
    static lease l; /* large; used once */
    int rc = -1;
    if (lease_open(&l, cfg) != 0 || !random_hex(id_out, LEASE_CLUSTER_ID_LEN))
        goto out;
    id_out[LEASE_CLUSTER_ID_LEN] = '\0';
    char text[160], key[256], found[160];
    int len = snprintf(text, sizeof text, "mintid-cluster %s floor %" PRId64, id_out, floor_ms);
    cluster_key(&l, key, sizeof key);
    /* Created only if there is no marker: a node space is initialised once. */
    etcd_error err;
    bool created;
    json_t *a = etcd_txn(l.etcd, json_pack("[o]", etcd_cmp_absent(key)),
                         json_pack("[o]", etcd_op_put(key, text, (size_t)len, 0)), json_array(), &created, &err);
    if (a == NULL) {
        log_msg(LOG_ERROR, "init: etcd at %s%s %s: %s", cfg->endpoints[0],
                cfg->nendpoints > 1 ? " (and the other endpoints)" : "",
                etcd_answered(err.status) ? "answered with an error" : "is unreachable", err.text);
        goto out;
    }
    json_decref(a);
    if (!created) {
        char shown[MINTID_ESCAPED_MAX];
        if (read_cluster(&l, found, sizeof found) <= 0)
            snprintf(found, sizeof found, "(could not be read)");
        mintid_escape(found, strlen(found), shown, sizeof shown);
        log_msg(LOG_ERROR,
                "init: %s/cluster already holds '%s': this node space is initialised; nothing written (to start "
                "over after a loss, delete the prefix first, see docs/scale-out.md)",
                cfg->prefix, shown);
        goto out;
    }
    rc = release_unused(&l);
out:
    lease_close(&l);
    return rc;
}

/* ---- the cluster id in the state directory ---------------------------------------------- */

int lease_cluster_load(const char *dir, char id[LEASE_CLUSTER_ID_LEN + 1]) {
    char path[512], buf[128];
    snprintf(path, sizeof path, "%s/cluster", dir);
    id[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        if (errno == ENOENT)
            return 0;
        log_msg(LOG_ERROR, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    int64_t unused;
    char line[160];
    /* "mintid-cluster <id>\n": checked as a marker with a floor of 0. */
    if (n == 0 || buf[n - 1] != '\n' || strchr(buf, '\n') != buf + n - 1 ||
        snprintf(line, sizeof line, "%.*s floor 0", (int)(n - 1), buf) >= (int)sizeof line ||
        !parse_cluster(line, id, &unused)) {
        id[0] = '\0';
        log_msg(LOG_ERROR,
                "%s is not 'mintid-cluster <32 hex digits>': refusing to start (it records which etcd node space "
                "this directory served; delete it only if that is known)",
                path);
        return -1;
    }
    return 0;
}

int lease_cluster_save(const char *dir, const char *id) {
    char text[64];
    int len = snprintf(text, sizeof text, "mintid-cluster %s\n", id);
    if (state_file_write(dir, "cluster", text, (size_t)len, 0644) != 0) {
        log_msg(LOG_ERROR, "%s/cluster: cannot record the cluster id: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}
