/* SPDX-License-Identifier: MIT */
/*
 * main.c - mintidd: settings, the state directory, the event loop, and a
 * clean shutdown on SIGTERM or SIGINT; under systemd (Type=notify), where
 * it stands: ready, reloading, stopping.
 */
#include "net/auth.h"
#include "base/claim.h"
#include "base/config.h"
#include "keys/etcd_store.h"
#include "keys/keys.h"
#include "keys/sqlite_store.h"
#include "cluster/lease.h"
#include "net/listen.h"
#include "base/log.h"
#include "server.h"
#include "http/handle_http.h"
#include "resp/handle_resp.h"
#include "service.h"
#include "base/state.h"
#include "stats.h"
#include "net/tls.h"
#include "workers.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

/* In the state directory: the workers' host-wide generators. */
#define DRAIN_SECONDS 10 /* how long a shutdown waits for queued replies to go out */
/* Descriptors beyond max-connections: listeners, the state file, etcd, the spare one. */
#define FD_MARGIN 64

/*
 * Tells the service manager where the server stands (sd_notify: READY=1,
 * RELOADING=1, STOPPING=1); nothing when NOTIFY_SOCKET is unset or the
 * build has no libsystemd. A notification that cannot be sent changes
 * nothing in what the server does.
 */
static void notify_manager(const char *what) {
#ifdef HAVE_SYSTEMD
    (void)sd_notify(0, what);
#else
    (void)what;
#endif
}

typedef struct app {
    server srv;
    node_claim *claim; /* NULL in a worker: the supervisor answers on it */
    struct event *reserve_timer, *warrant_timer, *drain_timer, *sig_term, *sig_int, *sig_hup;
    auth secrets[2]; /* auth-file's: the one in use, and the one a reload fills */
    time_t drain_deadline;
    /* With workers: what the supervisor made for them. */
    config *cfg;
    shared *sh;
    lease *lease;
    uint64_t lease_generation; /* at start */
    uint64_t start_ns;         /* monotonic, for the workers' uptime */
    uint64_t reloads_seen;     /* a worker's: the supervisor's SIGHUPs it has reloaded for */
    const lease_config *lc;    /* the lease's etcd, where keys are decided too; NULL without node-lease */
    key_store_prepared keys;   /* what the key store's preparation left, for every process that opens it */
} app;

static void reload_files(app *a);

static void on_reserve(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what;
    app *a = arg;
    service_reserve(a->srv.svc);
    /* A worker also looks at the supervisor's count of SIGHUPs: one that
     * reached the supervisor and not this worker (sent while it started)
     * is reloaded for here. */
    if (a->sh != NULL && atomic_load(&a->sh->reloads) != a->reloads_seen) {
        a->reloads_seen = atomic_load(&a->sh->reloads);
        log_msg(LOG_INFO, "SIGHUP: reloading");
        reload_files(a);
    }
    /* Servers refused the node id asked who holds it: their connections
     * are let go here, so that the backlog stays free for later ones. */
    if (((app *)arg)->claim != NULL)
        claim_answer(((app *)arg)->claim);
}

static void on_warrant(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what;
    service_warrants(((app *)arg)->srv.svc);
}

static void on_drain(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what;
    app *a = arg;
    if (TAILQ_EMPTY(&a->srv.conns) || time(NULL) >= a->drain_deadline) {
        if (!TAILQ_EMPTY(&a->srv.conns))
            log_msg(LOG_WARN, "closing connections that did not read their replies within %d s", DRAIN_SECONDS);
        server_close_all(&a->srv);
        event_base_loopbreak(a->srv.base);
    }
}

/*
 * SIGHUP: the TLS certificate and key, and the auth-file, are read again;
 * whichever fails to load is logged and the one in use stays. Connections
 * already open keep what they started with.
 */
static void on_reload(evutil_socket_t sig, short what, void *arg) {
    (void)sig, (void)what;
    app *a = arg;
    log_msg(LOG_INFO, "SIGHUP: reloading");
    if (a->sh != NULL)
        a->reloads_seen = atomic_load(&a->sh->reloads);
    /* systemd 253 and later want the time of the reload with it (Type=notify-reload). */
    struct timespec ts;
    char reloading[64] = "RELOADING=1";
    if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
        snprintf(reloading, sizeof reloading, "RELOADING=1\nMONOTONIC_USEC=%llu",
                 (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000ULL);
    notify_manager(reloading);
    reload_files(a);
    notify_manager("READY=1");
}

/* The TLS certificate and key, and the auth-file, read again. */
static void reload_files(app *a) {
    server *srv = &a->srv;
    if (srv->tls_ctx != NULL) {
        tls_reload(srv);
        stats_set_tls_cert_expiry(tls_cert_expiry(srv));
    }
    if (srv->auth != NULL) {
        auth *next = srv->auth == &a->secrets[0] ? &a->secrets[1] : &a->secrets[0];
        if (auth_load(next, srv->cfg->auth_file) == 0) {
            auth_free(srv->auth);
            srv->auth = next;
            log_msg(LOG_INFO, "auth-file %s reloaded", srv->cfg->auth_file);
        } else {
            log_msg(LOG_ERROR, "auth-file not reloaded; the previous secrets stay in use");
        }
    }
}

static void on_signal(evutil_socket_t sig, short what, void *arg) {
    (void)what;
    app *a = arg;
    if (a->srv.stopping)
        return;
    log_msg(LOG_INFO, "%s: no new requests; sending the replies already made", sig == SIGTERM ? "SIGTERM" : "SIGINT");
    notify_manager("STOPPING=1");
    event_del(a->reserve_timer);
    server_stop(&a->srv);
    a->drain_deadline = time(NULL) + DRAIN_SECONDS;
    struct timeval tv = {0, 20000};
    event_add(a->drain_timer, &tv);
}

/*
 * Waits, within startup-wait, for the clock to pass `mark`: the state
 * file's, or the previous holder's of a leased node id.
 */
static int wait_for_mark(uint64_t limit_ms, int64_t mark, const char *whose, const char *setting) {
    int64_t now;
    if (mintid_clock_system(NULL, &now) != MINTID_OK)
        return -1;
    if (now > mark)
        return 0;
    int64_t behind = mark - now + 1;
    if ((uint64_t)behind > limit_ms) {
        char when[MINTID_TIME_MAX];
        if (mintid_format_time(mark, when, sizeof when) < 0) /* past year 9999 */
            snprintf(when, sizeof when, "Unix ms %" PRId64, mark);
        log_msg(LOG_ERROR,
                "the clock is %" PRId64 " ms behind %s, the latest timestamp %s may have issued; "
                "refusing to start rather than risk a duplicate ID (fix the clock, or raise %s above %" PRId64 " ms)",
                behind, when, whose, setting, behind);
        return -1;
    }
    log_msg(LOG_WARN, "the clock is %" PRId64 " ms behind the mark of %s; waiting for it", behind, whose);
    /* Bounded on the monotonic clock: a clock stepped back again meanwhile
     * must not keep the server waiting forever. */
    struct timespec start, ts;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        if (mintid_clock_system(NULL, &now) != MINTID_OK)
            return -1;
        if (now > mark)
            return 0;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t waited = (ts.tv_sec - start.tv_sec) * 1000 + (ts.tv_nsec - start.tv_nsec) / 1000000;
        if ((uint64_t)waited > limit_ms) {
            log_msg(LOG_ERROR, "the clock did not pass the mark of %s within %s; not starting", whose, setting);
            return -1;
        }
        int64_t left = mark - now + 1 < 100 ? mark - now + 1 : 100;
        struct timespec nap = {0, (long)left * 1000000L};
        nanosleep(&nap, NULL);
    }
}

/*
 * Claims the static node id on this host before anything is minted: a
 * second server with the same node id and id-space refuses to start,
 * naming the first, whatever became of the first's state directory.
 */
static int claim_static(node_claim *claim, uint64_t node) {
    long holder;
    int rc = claim_take(claim, node, &holder), err = errno;
    if (rc == 0)
        return 0;
    char pid[32] = "unknown";
    if (holder > 0)
        snprintf(pid, sizeof pid, "%ld", holder);
    if (rc > 0)
        log_msg(LOG_ERROR,
                "node id %" PRIu64 " is in use by another mintidd on this host (pid %s, id-space %s); two servers "
                "minting with one node id would issue the same IDs, so this one will not start (give each server "
                "its own node id, whatever its state directory)",
                node, pid, claim->space);
    else
        log_msg(LOG_ERROR, "node id %" PRIu64 ": cannot claim it on this host: %s", node, strerror(err));
    return -1;
}

/*
 * The lease's settings from the config: node-lease, node-range, the TLS
 * files (each must be readable) and the etcd user with its password, read
 * from etcd-password-file.
 * 0, or the exit status after logging why (2: a malformed setting, 1: an
 * unreadable file).
 */
static int lease_settings(const config *cfg, lease_config *lc) {
    char err[300] = "";
    memset(lc, 0, sizeof *lc);
    if (lease_parse_url(cfg->node_lease, lc, err, sizeof err) != 0) {
        log_msg(LOG_ERROR, "%s", err);
        return 2;
    }
    if (lease_parse_range(cfg->node_range, (unsigned)config_node_max(), &lc->range_lo, &lc->range_hi) != 0) {
        log_msg(LOG_ERROR, "node-range '%s' is malformed: LO-HI within 0-%" PRIu64, cfg->node_range, config_node_max());
        return 2;
    }
    lc->ttl_s = (unsigned)cfg->lease_ttl;
    lc->margin_ms = (unsigned)cfg->lease_margin;
    lc->reserve_ahead_ms = (unsigned)cfg->reserve_ahead;
    snprintf(lc->ca, sizeof lc->ca, "%s", cfg->etcd_ca);
    snprintf(lc->cert, sizeof lc->cert, "%s", cfg->etcd_cert);
    snprintf(lc->key, sizeof lc->key, "%s", cfg->etcd_key);
    /* libcurl reads them only when it connects: a missing one is found now. */
    const char *files[][2] = {{"etcd-ca", cfg->etcd_ca}, {"etcd-cert", cfg->etcd_cert}, {"etcd-key", cfg->etcd_key}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        FILE *f = files[i][1][0] != '\0' ? fopen(files[i][1], "r") : NULL;
        if (files[i][1][0] != '\0' && f == NULL) {
            log_msg(LOG_ERROR, "%s %s: %s", files[i][0], files[i][1], strerror(errno));
            return 1;
        }
        if (f != NULL)
            fclose(f);
    }
    if (cfg->etcd_user[0] == '\0')
        return 0;
    if (strlen(cfg->etcd_user) >= sizeof lc->user) {
        log_msg(LOG_ERROR, "etcd-user is longer than %zu bytes", sizeof lc->user - 1);
        return 2;
    }
    snprintf(lc->user, sizeof lc->user, "%s", cfg->etcd_user);
    FILE *f = fopen(cfg->etcd_password_file, "r");
    if (f == NULL) {
        log_msg(LOG_ERROR, "etcd-password-file %s: %s", cfg->etcd_password_file, strerror(errno));
        return 1;
    }
    bool got = fgets(lc->password, sizeof lc->password, f) != NULL;
    fclose(f);
    size_t n = got ? strcspn(lc->password, "\r\n") : 0;
    bool whole = got && (lc->password[n] != '\0' || n + 1 < sizeof lc->password);
    lc->password[n] = '\0';
    if (n == 0 || !whole) {
        explicit_bzero(lc->password, sizeof lc->password);
        log_msg(LOG_ERROR, "etcd-password-file %s: %s", cfg->etcd_password_file,
                n == 0 ? "its first line is empty: no password" : "the password is longer than 255 bytes");
        return 2;
    }
    return 0;
}

/*
 * `mintidd init --node-lease URL [--floor WHEN] [--SETTING VALUE]...`:
 * writes the node space's marker in etcd and exits. WHEN (Unix ms or RFC
 * 3339; default 0) is a floor for every node id: no ID at or before it.
 */
static int run_init(int argc, char **argv) {
    char *args[256];
    const char *floor_text = NULL;
    int n = 0;
    if (argc > (int)(sizeof args / sizeof args[0]) - 1) {
        fprintf(stderr, "mintidd init: too many arguments\n");
        return 2;
    }
    for (int i = 0; i < argc; i++) {
        if (i > 0 && strcmp(argv[i], "--floor") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "mintidd init: --floor needs a value (Unix ms or RFC 3339)\n");
                return 2;
            }
            floor_text = argv[++i];
        } else if (i > 0 && strncmp(argv[i], "--floor=", 8) == 0) {
            floor_text = argv[i] + 8;
        } else {
            args[n++] = argv[i];
        }
    }
    args[n] = NULL;
    config cfg;
    int rc = config_load(&cfg, n, args);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    log_threshold = (log_level)log_level_find(cfg.log_level);
    int64_t floor = 0;
    if (floor_text != NULL && mintid_parse_time(floor_text, &floor) != MINTID_OK) {
        fprintf(stderr, "mintidd init: --floor '%s' is not Unix ms or an RFC 3339 time\n", floor_text);
        return 2;
    }
    if (floor < 0) {
        fprintf(stderr, "mintidd init: --floor '%s' is before 1970\n", floor_text);
        return 2;
    }
    if (cfg.node_lease[0] == '\0') {
        fprintf(stderr, "mintidd init: give the node space as --node-lease etcd://HOST:PORT/PREFIX\n");
        return 2;
    }
    lease_config lc;
    rc = lease_settings(&cfg, &lc);
    if (rc != 0)
        return rc;
    char id[LEASE_CLUSTER_ID_LEN + 1];
    rc = lease_init_cluster(&lc, floor, id);
    explicit_bzero(&lc, sizeof lc);
    if (rc != 0)
        return 1;
    printf("initialised %s: cluster %s, floor %" PRId64 "\n", cfg.node_lease, id, floor);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}

/*
 * Each connection is a descriptor: the soft limit is raised to hold
 * max-connections of them and a margin for listeners, the state file and
 * etcd. A hard limit below that would leave accept() failing for clients
 * the settings promise to take, so the server does not start.
 */
static int raise_fd_limit(const config *cfg) {
    struct rlimit rl;
    rlim_t want = (rlim_t)cfg->max_connections + FD_MARGIN;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
        return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) {
        log_msg(LOG_ERROR,
                "the descriptor limit's hard limit (%llu) is below max-connections (%" PRIu64 ") + %d; "
                "raise it (ulimit -Hn, LimitNOFILE=) or lower max-connections; not starting",
                (unsigned long long)rl.rlim_max, cfg->max_connections, FD_MARGIN);
        return -1;
    }
    rl.rlim_cur = want;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        log_msg(LOG_ERROR, "cannot raise the descriptor limit to %llu for max-connections: %s; not starting",
                (unsigned long long)want, strerror(errno));
        return -1;
    }
    return 0;
}

/* The loop's own events: the reservation's timer, the drain, the signals. 0, or -1 after logging. */
static int add_events(app *a) {
    server *srv = &a->srv;
    a->reserve_timer = event_new(srv->base, -1, EV_PERSIST, on_reserve, a);
    a->warrant_timer = event_new(srv->base, -1, EV_PERSIST, on_warrant, a);
    a->drain_timer = event_new(srv->base, -1, EV_PERSIST, on_drain, a);
    a->sig_term = evsignal_new(srv->base, SIGTERM, on_signal, a);
    a->sig_int = evsignal_new(srv->base, SIGINT, on_signal, a);
    a->sig_hup = evsignal_new(srv->base, SIGHUP, on_reload, a);
    if (a->reserve_timer == NULL || a->warrant_timer == NULL || a->drain_timer == NULL || a->sig_term == NULL ||
        a->sig_int == NULL || a->sig_hup == NULL) {
        log_msg(LOG_ERROR, "out of memory");
        return -1;
    }
    uint64_t period = srv->cfg->reserve_ahead / 4 > 0 ? srv->cfg->reserve_ahead / 4 : 1;
    struct timeval tv = {(time_t)(period / 1000), (suseconds_t)(period % 1000) * 1000};
    event_add(a->reserve_timer, &tv);
    struct timeval wtv = {0, SERVICE_WARRANT_MS * 1000};
    event_add(a->warrant_timer, &wtv);
    event_add(a->sig_term, NULL);
    event_add(a->sig_int, NULL);
    event_add(a->sig_hup, NULL);
    return 0;
}

/* Frees what one event loop's server holds: connections, listeners, TLS, events, buffers, secrets. */
static void free_loop(app *a) {
    server *srv = &a->srv;
    server_close_all(srv);
    keys_close(srv);
    for (int p = 0; p < PROTO_COUNT; p++) {
        if (srv->listeners[p] != NULL)
            evconnlistener_free(srv->listeners[p]);
        if (srv->tls_listeners[p] != NULL)
            evconnlistener_free(srv->tls_listeners[p]);
        srv->listeners[p] = srv->tls_listeners[p] = NULL;
    }
    tls_shutdown(srv);
    struct event *evs[] = {a->reserve_timer, a->warrant_timer, a->drain_timer, a->sig_term, a->sig_int, a->sig_hup};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        if (evs[i] != NULL)
            event_free(evs[i]);
    a->reserve_timer = a->warrant_timer = a->drain_timer = a->sig_term = a->sig_int = a->sig_hup = NULL;
    if (srv->scratch != NULL)
        evbuffer_free(srv->scratch);
    srv->scratch = NULL;
    if (srv->base != NULL)
        event_base_free(srv->base);
    srv->base = NULL;
    free(srv->ids);
    srv->ids = NULL;
    if (srv->auth != NULL)
        auth_free(srv->auth);
    srv->auth = NULL;
}

/* The line that says the server is ready, and READY=1 for the service manager. */
static void announce_ready(app *a, int64_t node, unsigned workers) {
    const config *cfg = a->srv.cfg;
    char epochs[512] = "";
    for (int f = 0, n = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)f);
        if (fmt->epoch_settable && n >= 0 && (size_t)n < sizeof epochs)
            n += snprintf(epochs + n, sizeof epochs - (size_t)n, ", %s epoch %" PRId64, fmt->name,
                          config_epoch(cfg, fmt));
    }
    char procs[48] = "";
    if (workers > 1)
        snprintf(procs, sizeof procs, ", %u workers", workers);
    char from[CONFIG_STR_MAX + 32] = "";
    if (a->lease != NULL)
        snprintf(from, sizeof from, " (leased)");
    else if (cfg->node_ordinal[0] != '\0')
        snprintf(from, sizeof from, " (%s of the host name)", cfg->node_ordinal);
    log_msg(LOG_INFO, "mintidd %s ready: node %" PRId64 "%s, state in %s%s%s", MINTID_VERSION_STRING, node, from,
            cfg->state_dir, procs, epochs);
    /* The state is on disk and every listener accepts: clients may come. */
    notify_manager("READY=1");
}

static void on_workers_ready(void *arg) {
    app *a = arg;
    announce_ready(a, a->lease != NULL ? atomic_load(&a->lease->node) : (int64_t)a->cfg->node, a->sh->nslots);
}

static void on_supervisor_tick(void *arg) { claim_answer(((app *)arg)->claim); }

/*
 * The key store: keys.sqlite in the state directory, or with a node lease
 * the lease's etcd, for the whole cluster; and its settings.
 */
static const key_store_ops *key_store_of(const app *a, key_store_conf *conf) {
    *conf =
        (key_store_conf){.state_dir = a->cfg->state_dir, .lc = a->lc, .ttl_s = a->cfg->key_ttl, .max = a->cfg->key_max};
    return a->lc != NULL ? &etcd_key_store : &sqlite_key_store;
}

/*
 * This loop's key store (key_store_of). Each worker opens its own; the
 * store's insert, not any process's memory, decides which IDs a key is
 * given.
 */
static int open_keys(app *a) {
    key_store_conf conf;
    const key_store_ops *ops = key_store_of(a, &conf);
    return keys_open(&a->srv, ops, &conf, &a->keys);
}

/*
 * The event loop's base and buffers. A parked request wakes at the next
 * millisecond, not up to one late: a timerfd, not epoll_wait's millisecond
 * timeout. 0, or -1 after logging.
 */
static int make_loop(server *srv) {
    srv->ops[PROTO_HTTP] = &http_proto;
    srv->ops[PROTO_RESP] = &resp_proto;
    struct event_config *ecfg = event_config_new();
    if (ecfg != NULL) {
        event_config_set_flag(ecfg, EVENT_BASE_FLAG_PRECISE_TIMER);
        srv->base = event_base_new_with_config(ecfg);
        event_config_free(ecfg);
    }
    srv->scratch = evbuffer_new();
    srv->ids = calloc(SERVER_SLICE_IDS, sizeof *srv->ids);
    if (srv->base == NULL || srv->scratch == NULL || srv->ids == NULL) {
        log_msg(LOG_ERROR, "out of memory");
        return -1;
    }
    return 0;
}

/*
 * A worker: its own event loop on the listeners the supervisor bound,
 * host-wide generators, its counters in its slot.
 */
static int worker_main(app *a, const worker_ctx *wc) {
    server *srv = &a->srv;
    /* max-output-total bounds the workers together: each holds its share. */
    a->cfg->max_output_total /= wc->n;
    service svc;
    service_shared ssh = {.slots = a->sh->slots,
                          .nslots = a->sh->nslots,
                          .slot = wc->slot,
                          .reserve_fd = wc->reserve_fd,
                          .reserve_asked = &a->sh->reserve_asked,
                          .workers = &a->sh->workers,
                          .restarts = &a->sh->restarts,
                          .start_ns = a->start_ns};
    int status = WORKER_FAILED;
    if (service_init_shared(&svc, a->cfg, &a->sh->st, a->lease, &ssh) == 0) {
        srv->svc = &svc;
        service_start_warrants(&svc);
        /* The signals are taken before the supervisor hears of this worker. */
        if (open_keys(a) == 0 && add_events(a) == 0 && server_accept(srv) == 0) {
            workers_unblock_signals();
            unsigned slot = wc->slot;
            if (write(wc->ready_fd, &slot, sizeof slot) != (ssize_t)sizeof slot)
                log_msg(LOG_WARN, "worker %u: cannot tell the supervisor it accepts", slot);
            event_base_dispatch(srv->base);
            status = 0;
        }
    }
    free_loop(a);
    /* What this worker issued, for the supervisor's final mark. */
    if (srv->svc != NULL)
        atomic_store(&a->sh->last_issued[wc->slot], service_last_issued(&svc));
    service_free(&svc);
    return status;
}

/*
 * A worker's loop, TLS context, secrets and listeners (the sockets the
 * supervisor bound). The TLS certificates and the auth-file are read here,
 * as they are now: a worker started after a SIGHUP has what the others
 * reloaded. 0, or -1 after logging.
 */
static int worker_loop(app *a) {
    server *srv = &a->srv;
    const config *cfg = a->cfg;
    bool tls = cfg->http_tls[0] != '\0' || cfg->resp_tls[0] != '\0';
    if (make_loop(srv) != 0 || (tls && tls_init(srv) != 0))
        return -1;
    stats_set_tls_cert_expiry(tls_cert_expiry(srv));
    if (cfg->auth_file[0] != '\0') {
        if (auth_load(&a->secrets[0], cfg->auth_file) != 0)
            return -1;
        srv->auth = &a->secrets[0];
    }
    for (int p = 0; p < PROTO_COUNT; p++)
        for (int t = 0; t < 2; t++) {
            int fd = a->sh->boot.listeners[p][t];
            if (fd >= 0 && server_listen_fd(srv, (proto)p, fd, t == 1) != 0)
                return -1;
        }
    return 0;
}

/*
 * `mintidd worker SLOT`, started by the supervisor (workers.h): a new
 * process with one thread, made from the settings the supervisor wrote in
 * the shared region.
 */
static int run_worker(int argc, char **argv) {
    shared *sh;
    worker_ctx wc;
    int status = worker_attach(argc, argv, &sh, &wc);
    if (status != 0)
        return status;
    static config cfg;
    static lease_config lc;
    cfg = sh->boot.cfg;
    lc = sh->boot.lc;
    log_threshold = (log_level)log_level_find(cfg.log_level);
    signal(SIGPIPE, SIG_IGN);
    static app a;
    memset(&a, 0, sizeof a);
    a.cfg = &cfg;
    a.srv.cfg = &cfg;
    a.sh = sh;
    a.start_ns = sh->boot.start_ns;
    a.lease = sh->boot.leased ? &sh->lease : NULL;
    a.lc = sh->boot.leased ? &lc : NULL;
    /* Read before the files: a SIGHUP from here on is reloaded for. */
    a.reloads_seen = atomic_load(&sh->reloads);
    a.keys = sh->boot.keys;
    if (worker_loop(&a) == 0) {
        status = worker_main(&a, &wc);
    } else {
        status = WORKER_FAILED;
        free_loop(&a);
    }
    explicit_bzero(&lc, sizeof lc);
    shared_free(sh);
    return status;
}

/*
 * The latest timestamp the workers issued, for the final mark: what each
 * published as it stopped, and the host-wide generators' own record, which
 * covers a worker killed on the way. A leased server whose workers were
 * restarted, or whose node id changed, may have minted under a node id the
 * generators made here do not cover: it keeps its mark.
 */
static int64_t workers_last_issued(app *a) {
    shared *sh = a->sh;
    if (a->lease != NULL && (atomic_load(&sh->restarts) > 0 || atomic_load(&a->lease->node) < 0 ||
                             atomic_load(&a->lease->generation) != a->lease_generation))
        return atomic_load(&sh->st.mark);
    int64_t last = 0;
    for (unsigned w = 0; w < sh->nslots; w++)
        if (atomic_load(&sh->last_issued[w]) > last)
            last = atomic_load(&sh->last_issued[w]);
    service fin;
    service_shared fsh = {.slots = sh->slots, .nslots = sh->nslots, .reserve_fd = -1};
    if (service_init_shared(&fin, a->cfg, &sh->st, a->lease, &fsh) != 0) {
        service_free(&fin);
        return atomic_load(&sh->st.mark);
    }
    /* Every worker lapsed its warrants as it stopped; lapsed again here, for
     * a worker killed on the way. */
    int64_t host = service_last_issued_after_lapse(&fin);
    service_free(&fin);
    return host > last ? host : last;
}

static int run(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "init") == 0)
        return run_init(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], WORKER_ARG) == 0)
        return run_worker(argc, argv);
    static config cfg;
    int rc = config_load(&cfg, argc, argv);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    log_threshold = (log_level)log_level_find(cfg.log_level);
    signal(SIGPIPE, SIG_IGN);
    if (raise_fd_limit(&cfg) != 0)
        return 1;
    unsigned nworkers = cfg.workers > 0 ? (unsigned)cfg.workers : workers_cpus();

    static node_claim claim;
    if (claim_init(&claim, cfg.id_space) != 0) {
        char shown[MINTID_ESCAPED_MAX];
        mintid_escape(cfg.id_space, strlen(cfg.id_space), shown, sizeof shown);
        log_msg(LOG_ERROR, "id-space: '%s' is not 1 to %d letters, digits, '.', '_' or '-'", shown, CLAIM_SPACE_MAX);
        return 2;
    }
    if (cfg.host_dir[0] != '/') {
        char shown[MINTID_ESCAPED_MAX];
        mintid_escape(cfg.host_dir, strlen(cfg.host_dir), shown, sizeof shown);
        log_msg(LOG_ERROR,
                "host-dir: '%s' is not an absolute path: the mintid command, Python and SQLite would not find the "
                "server's sequences",
                shown);
        return 2;
    }
    /* Every setting is checked and every file it names is loaded before
     * the state directory is touched: a start refused for a mistake leaves
     * no mark ahead for the corrected start to wait for. */
    static state own_state;
    static lease node_lease;
    shared *sh = NULL;
    int shared_fd = -1;
    state *st = &own_state;
    lease *nl = &node_lease;
    if (nworkers > 1) {
        /* The state and the lease live where every worker reads them. */
        sh = shared_new(nworkers, &shared_fd);
        if (sh == NULL)
            return 1;
        st = &sh->st;
        nl = &sh->lease;
    }
    memset(st, 0, sizeof *st);
    st->dir_fd = -1;
    service svc;
    memset(&svc, 0, sizeof svc);
    lease *l = NULL;
    lease_config lc;
    memset(&lc, 0, sizeof lc);
    static app a;
    memset(&a, 0, sizeof a);
    a.claim = &claim;
    a.cfg = &cfg;
    a.sh = sh;
    a.start_ns = monotonic_ns();
    server *srv = &a.srv;
    srv->cfg = &cfg;
    int status = 1;
    bool supervised = false;
    bool leased = cfg.node_lease[0] != '\0';
    bool tls = cfg.http_tls[0] != '\0' || cfg.resp_tls[0] != '\0';
    if (tls && (cfg.tls_cert[0] == '\0' || cfg.tls_key[0] == '\0')) {
        log_msg(LOG_ERROR, "http-tls and resp-tls need tls-cert and tls-key");
        status = 2;
        goto out;
    }
    if (tls && tls_init(srv) != 0)
        goto out;
    stats_set_tls_cert_expiry(tls_cert_expiry(srv));
    if (cfg.auth_file[0] != '\0') {
        if (auth_load(&a.secrets[0], cfg.auth_file) != 0)
            goto out;
        srv->auth = &a.secrets[0];
    }
    if (leased) {
        int src = lease_settings(&cfg, &lc);
        if (src != 0) {
            status = src;
            goto out;
        }
    }
    if (make_loop(srv) != 0)
        goto out;

    if (state_open(st, cfg.state_dir) != 0 || state_check_params(st, &cfg, leased, cfg.adopt_params != 0) != 0 ||
        (!leased && claim_static(&claim, cfg.node) != 0) ||
        wait_for_mark(cfg.startup_wait, st->start_mark, "this state directory", "startup-wait") != 0)
        goto out;
    if (leased) {
        lc.claim = &claim;
        lc.adopt_cluster = cfg.adopt_params != 0;
        if (lease_cluster_load(cfg.state_dir, lc.cluster_id) != 0)
            goto out;
        /* The previous holder's mark may be waited for as long as either
         * setting allows: lease-start-wait is the one for node ids. */
        uint64_t limit =
            cfg.lease_start_wait * 1000 > cfg.startup_wait ? cfg.lease_start_wait * 1000 : cfg.startup_wait;
        l = nl;
        if (lease_start(nl, &lc, (unsigned)cfg.lease_start_wait) != 0 ||
            wait_for_mark(limit, atomic_load(&nl->floor_ms), "the node id's previous holder",
                          "startup-wait or lease-start-wait") != 0 ||
            (strcmp(lease_cluster_id(nl), lc.cluster_id) != 0 &&
             lease_cluster_save(cfg.state_dir, lease_cluster_id(nl)) != 0))
            goto out;
    }
    a.lease = l;
    a.lc = leased ? &lc : NULL;
    if (l != NULL)
        a.lease_generation = atomic_load(&l->generation);
    /* The addresses bound before the first reservation, so that an address
     * in use does not leave one behind either; they listen once the state
     * is on disk (server_accept, below). */
    if ((cfg.http[0] != '\0' && server_listen(srv, PROTO_HTTP, cfg.http, false) != 0) ||
        (cfg.resp[0] != '\0' && server_listen(srv, PROTO_RESP, cfg.resp, false) != 0) ||
        (cfg.http_tls[0] != '\0' && server_listen(srv, PROTO_HTTP, cfg.http_tls, true) != 0) ||
        (cfg.resp_tls[0] != '\0' && server_listen(srv, PROTO_RESP, cfg.resp_tls, true) != 0))
        goto out;
    /* The key store is made and checked once, here, whether one process
     * or many then open it: the workers' opens then take no lock that
     * could refuse one of them. */
    key_store_conf keys_conf;
    if (key_store_prepare(key_store_of(&a, &keys_conf), &keys_conf, &a.keys) != 0)
        goto out;
    /* The first reservation, and the parameters in force, are on disk
     * before anything is served; from here the writer thread keeps the
     * reservation ahead (never lowering the mark). */
    int64_t now;
    mintid_clock_system(NULL, &now);
    if (state_write_now(st, now + (int64_t)cfg.reserve_ahead) != 0 || state_writer_start(st) != 0)
        goto out;
    if (sh != NULL) {
        supervised = true;
        /* What a worker starts from (it is this program run anew): the
         * settings and the lease's etcd as checked here, and the sockets
         * bound here, given to it at WORKER_FD_INHERIT onwards. */
        sh->boot.cfg = cfg;
        sh->boot.leased = leased;
        sh->boot.lc = lc;
        sh->boot.lc.claim = NULL;
        sh->boot.keys = a.keys;
        sh->boot.start_ns = a.start_ns;
        int inherit[2 * PROTO_COUNT];
        unsigned ninherit = 0;
        for (int p = 0; p < PROTO_COUNT; p++) {
            struct evconnlistener *levs[2] = {srv->listeners[p], srv->tls_listeners[p]};
            for (int t = 0; t < 2; t++) {
                sh->boot.listeners[p][t] = levs[t] != NULL ? WORKER_FD_INHERIT + (int)ninherit : -1;
                if (levs[t] != NULL)
                    inherit[ninherit++] = evconnlistener_get_fd(levs[t]);
            }
        }
        uint64_t period = cfg.reserve_ahead / 4 > 0 ? cfg.reserve_ahead / 4 : 1;
        supervisor sv = {.n = nworkers,
                         .sh = sh,
                         .shared_fd = shared_fd,
                         .argv0 = argc > 0 ? argv[0] : "mintidd",
                         .inherit = inherit,
                         .ninherit = ninherit,
                         .arg = &a,
                         .notify = notify_manager,
                         .on_ready = on_workers_ready,
                         .tick = on_supervisor_tick,
                         .period_ms = (unsigned)period,
                         .drain_s = DRAIN_SECONDS + 5};
        status = supervisor_run(&sv);
        goto out;
    }
    if (service_init(&svc, &cfg, st, l) != 0)
        goto out;
    srv->svc = &svc;
    service_start_warrants(&svc);
    if (open_keys(&a) != 0 || add_events(&a) != 0 || server_accept(srv) != 0)
        goto out;
    announce_ready(&a, svc.node, 1);
    event_base_dispatch(srv->base);
    status = 0;
out:
    free_loop(&a);
    state_writer_stop(st);
    if (supervised) {
        int64_t last = workers_last_issued(&a);
        if (state_write_final(st, last) == 0 && (last > 0 || st->start_mark > 0))
            log_msg(LOG_INFO, "state saved: no ID was issued after %" PRId64 " (Unix ms)", atomic_load(&st->mark));
        if (l != NULL)
            lease_stop(l, last);
    } else if (srv->svc != NULL) {
        /* The homes under this server's node id stop first (service_shutdown
         * lapses the warrants), then the mark and the lease are let go. */
        service_shutdown(&svc);
        if (l != NULL)
            lease_stop(l, service_last_issued_after_lapse(&svc));
    } else if (l != NULL) {
        lease_stop(l, 0);
    }
    explicit_bzero(&lc, sizeof lc);
    service_free(&svc);
    state_close(st);
    /* The node id is let go last, after every ID minted with it. */
    claim_free(&claim);
    if (sh != NULL)
        explicit_bzero(&sh->boot.lc, sizeof sh->boot.lc);
    shared_free(sh);
    if (shared_fd >= 0)
        close(shared_fd);
    log_msg(status == 0 ? LOG_INFO : LOG_ERROR, status == 0 ? "stopped" : "not started");
    return status;
}

/* The log's writer runs for the whole life of the process, so every line,
 * the last included, is written off the event loop and flushed at exit. */
int main(int argc, char **argv) {
    log_start();
    int status = run(argc, argv);
    log_stop();
    return status;
}
