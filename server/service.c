/* SPDX-License-Identifier: MIT */
/*
 * service.c - generators, admission, and counters (stats.c renders them).
 *
 * Generators never read the real clock: before every mint the service
 * reads it once and decides whether an ID may carry that time (admission),
 * and the generator is handed exactly that time. So what is checked is
 * what is used: the state file already covers the time, the lease is still
 * certainly held, the marks of earlier runs and holders have passed.
 * Nothing here waits; when an ID cannot be minted yet, the caller is told
 * when to try again and parks the request.
 */
#include "service.h"

#include "base/log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The generators' clock: the time the service admitted (see service_mint). */
static int admitted_clock(void *ctx, int64_t *unix_ms) {
    *unix_ms = ((const service *)ctx)->now_ms;
    return MINTID_OK;
}

/* The real-time clock, split into Unix ms and the nanoseconds into that ms. */
static int wall_clock(int64_t *ms, uint64_t *ns_in_ms) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return MINTID_ECLOCK;
    *ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    *ns_in_ms = (uint64_t)(ts.tv_nsec % 1000000);
    return MINTID_OK;
}

/* Nanoseconds until the clock reads `ms` (a little after, so the wake-up is never early). */
static uint64_t until_ms(int64_t now, uint64_t ns_in_ms, int64_t ms) {
    if (ms <= now)
        return 0;
    return (uint64_t)(ms - now) * 1000000u - ns_in_ms + 20000u;
}

/*
 * Asks for a mark of at least `mark`: of this process's writer, or, in a
 * worker, of the supervisor's, through the shared region and a wake-up on
 * the descriptor it watches (written only when the ask went up).
 */
static void ask_reserve(service *svc, int64_t mark) {
    if (svc->reserve_asked == NULL) {
        state_request(svc->st, mark);
        return;
    }
    int64_t asked = atomic_load(svc->reserve_asked);
    while (asked < mark)
        if (atomic_compare_exchange_weak(svc->reserve_asked, &asked, mark)) {
            uint64_t one = 1;
            /* Full (never, in practice) or not: the supervisor reads the ask either way. */
            if (write(svc->reserve_fd, &one, sizeof one) < 0 && errno != EAGAIN)
                log_msg(LOG_WARN, "cannot wake the state writer: %s", strerror(errno));
            break;
        }
}

static void follow_lease(service *svc);

/* Whether the format's IDs carry the node id: the formats the server warrants for the other homes. */
static bool node_bound(const mintid_format *fmt) { return fmt->node_bits > 0 && !fmt->node_optional; }

/*
 * Writes the node id and epoch of every format served with one into the
 * host-dir's node file, for the homes minting as `node host`.
 */
static void publish_nodes(service *svc) {
    mintid_host_node nodes[MINTID_FORMAT_COUNT];
    size_t n = 0;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        if (svc->gens[i] != NULL && node_bound(fmt))
            nodes[n++] = (mintid_host_node){fmt, svc->node, mintid_gen_config(svc->gens[i])->epoch_ms};
    }
    mintid_host_options ho;
    mintid_host_options_init(&ho);
    ho.dir = svc->cfg->host_dir;
    ho.id_space = svc->cfg->id_space;
    if (mintid_host_publish(&ho, svc->warrant_pid, nodes, n) != MINTID_OK)
        log_msg(LOG_WARN,
                "cannot write the node file in %s (host-dir): %s; homes minting as node host will not find "
                "this server",
                svc->cfg->host_dir, strerror(errno));
}

/*
 * Renews the warrant in the host-wide state of every format with a node
 * id: the bounds this server keeps, which then bind every home minting
 * there (the command, Python, SQLite, node host or not). Its floor is the
 * state's and the lease's; its ceiling the mark on disk (and in etcd);
 * its deadline the lease's, or (static) a few renewals away, so that a
 * server that stops renewing stops the others too. A lost lease or state
 * lapses it at once. Returns the latest time another home asked for.
 */
static int64_t renew_warrants(service *svc, int64_t now) {
    state *st = svc->st;
    lease *l = svc->lease;
    int64_t asked = INT64_MIN;
    int64_t ceiling = atomic_load(&st->mark);
    uint64_t until =
        lease_clock_ns() + (uint64_t)(svc->cfg->reserve_ahead > 1000 ? svc->cfg->reserve_ahead : 1000) * 1000000u;
    int64_t lease_floor = INT64_MIN;
    if (l != NULL) {
        bool good = lease_valid(l) && atomic_load(&l->generation) == svc->lease_generation;
        /* A lease no longer good: a deadline already past (1), not 0, which
         * would make the renewal wait for the lock on the loop; a renewal
         * that finds the lock held leaves the last deadline, the lease's
         * own bound, to lapse by itself. */
        until = good ? atomic_load(&l->valid_until_ns) : 1;
        if (atomic_load(&l->mark_ms) < ceiling)
            ceiling = atomic_load(&l->mark_ms);
        lease_floor = atomic_load(&l->floor_ms);
    }
    if (atomic_load(&st->dir_lost) || atomic_load(&st->failing))
        until = 1;
    (void)now;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        if (svc->gens[i] == NULL || !node_bound(fmt))
            continue;
        mintid_warrant w;
        mintid_warrant_init(&w);
        w.pid = svc->warrant_pid;
        w.floor_ms = st->start_mark > state_floor(st, i) ? st->start_mark : state_floor(st, i);
        if (lease_floor > w.floor_ms)
            w.floor_ms = lease_floor;
        if (w.floor_ms <= 0)
            w.floor_ms = INT64_MIN;
        w.ceiling_ms = ceiling;
        w.until_ns = until;
        w.leased = l != NULL;
        if (mintid_gen_warrant(svc->gens[i], &w) == MINTID_OK) {
            svc->warranted = true;
            if (w.asked_ms > asked)
                asked = w.asked_ms;
        }
    }
    return asked;
}

void service_reserve(service *svc) {
    service_count_gens(svc);
    int64_t now;
    uint64_t ns;
    if (wall_clock(&now, &ns) != MINTID_OK)
        return;
    /* Renew once half the reservation is used: the writer works ahead of need. */
    /* Only while IDs are being minted: an idle server reserving ahead of a
     * clock stepped forward for a moment would make the next start wait
     * for timestamps no ID ever carried. */
    if (svc->last_admitted_ms == 0 || now - svc->last_admitted_ms > (int64_t)svc->cfg->reserve_ahead)
        return;
    if (now + (int64_t)svc->cfg->reserve_ahead / 2 > atomic_load(&svc->st->wanted))
        ask_reserve(svc, now + (int64_t)svc->cfg->reserve_ahead);
}

/* Creates the generator of format i for the current node id. */
static int make_generator(service *svc, int i) {
    const config *cfg = svc->cfg;
    const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
    service_count_gens(svc);
    mintid_gen_free(svc->gens[i]);
    svc->gens[i] = NULL;
    svc->gen_base[i][0] = svc->c->waits[i];
    svc->gen_base[i][1] = svc->c->exhausted[i];
    svc->gen_base[i][2] = svc->c->rollbacks[i];
    svc->why_not[i][0] = '\0';
    mintid_config gc;
    mintid_config_init(&gc, fmt);
    gc.clock = admitted_clock;
    gc.clock_ctx = svc;
    /* Waiting is the caller's: the generator only says it would wait. */
    gc.overflow = MINTID_OVERFLOW_WAIT;
    gc.max_wait_ms = 0;
    if (strcmp(cfg->rollback, "wait") == 0)
        gc.rollback = MINTID_ROLLBACK_WAIT;
    else if (strcmp(cfg->rollback, "reuse") == 0)
        gc.rollback = MINTID_ROLLBACK_REUSE;
    else if (strcmp(cfg->rollback, "fail") == 0)
        gc.rollback = MINTID_ROLLBACK_FAIL;
    gc.epoch_ms = config_epoch(cfg, fmt);
    /* The node id goes to every format with a mandatory node field; a node
     * id that does not fit one is not wrapped into it, since two servers
     * would then share that format's node id. */
    if (fmt->node_bits > 0 && !fmt->node_optional) {
        char why[MINTID_WHY_MAX];
        if (mintid_check_node(fmt, svc->node < 0 ? INT64_MAX : svc->node, why, sizeof why) != MINTID_OK) {
            snprintf(svc->why_not[i], sizeof svc->why_not[i], "%s is not served: %s", fmt->name, why);
            log_msg(LOG_WARN, "%s", svc->why_not[i]);
            return 0;
        }
        gc.node = svc->node;
    }
    uint64_t ns;
    if (wall_clock(&svc->now_ms, &ns) != MINTID_OK)
        return -1;
    /* Host-wide generators: one strictly increasing sequence per format,
     * node id, epoch and id space across the workers and every other home
     * on the host (the mintid command, Python, SQLite) minting there. */
    mintid_host_options ho;
    mintid_host_options_init(&ho);
    ho.dir = cfg->host_dir;
    ho.id_space = cfg->id_space;
    /* The loop never waits for another process: a holder of the lock
     * stopped (SIGSTOP, Ctrl-Z on a `mintid gen`) parks this format's
     * requests, and only them, until it lets go or max-wait passes. */
    ho.try_lock = 1;
    int rc = mintid_gen_open_host(fmt, &gc, &ho, &svc->gens[i]);
    if (rc != MINTID_OK) {
        char why[MINTID_WHY_MAX];
        mintid_gen_why(fmt, &gc, NULL, rc, errno, why, sizeof why);
        snprintf(svc->why_not[i], sizeof svc->why_not[i], "%s is not served: %s", fmt->name, why);
        log_msg(LOG_ERROR, "%s%s", svc->why_not[i],
                rc == MINTID_EHOST || rc == MINTID_EHOSTSTATE ? " (host-dir names the directory)" : "");
        return -1;
    }
    return 0;
}

int service_init(service *svc, const config *cfg, state *st, lease *l) {
    return service_init_shared(svc, cfg, st, l, NULL);
}

int service_init_shared(service *svc, const config *cfg, state *st, lease *l, const service_shared *sh) {
    memset(svc, 0, sizeof *svc);
    svc->c = svc->slots = &svc->own;
    svc->nslots = 1;
    svc->reserve_fd = -1;
    if (sh != NULL) {
        svc->slots = sh->slots;
        svc->nslots = sh->nslots;
        svc->c = &sh->slots[sh->slot];
        svc->log_base[0] = svc->c->log_dropped;
        svc->log_base[1] = svc->c->log_held_back;
        svc->reserve_fd = sh->reserve_fd;
        svc->reserve_asked = sh->reserve_asked;
        if (sh->start_ns != 0)
            svc->start_ns = sh->start_ns;
        svc->workers = sh->workers;
        svc->restarts = sh->restarts;
    }
    svc->cfg = cfg;
    svc->st = st;
    svc->lease = l;
    if (svc->start_ns == 0)
        svc->start_ns = monotonic_ns();
    svc->node = (int64_t)cfg->node;
    /* A worker's warrants name its supervisor, so that the workers mint past each other's. */
    svc->warrant_pid = sh != NULL && sh->reserve_fd >= 0 ? (int64_t)getppid() : (int64_t)getpid();
    if (l != NULL) {
        svc->node = atomic_load(&l->node);
        svc->lease_generation = atomic_load(&l->generation);
    }
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        if (make_generator(svc, i) != 0)
            return -1;
    return 0;
}

void service_start_warrants(service *svc) {
    publish_nodes(svc);
    service_warrants(svc);
}

void service_warrants(service *svc) {
    int64_t now;
    uint64_t ns;
    if (wall_clock(&now, &ns) != MINTID_OK)
        return;
    if (svc->lease != NULL)
        follow_lease(svc);
    /* The other homes minting under this server's node id count as
     * minting: the mark moves ahead of them as of this server's IDs. */
    int64_t asked = renew_warrants(svc, now), reserve = (int64_t)svc->cfg->reserve_ahead;
    if (asked > now - reserve) {
        if (asked > svc->last_admitted_ms)
            svc->last_admitted_ms = asked < now ? asked : now;
        if (now + reserve / 2 > atomic_load(&svc->st->wanted))
            ask_reserve(svc, now + reserve);
    }
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
        if (node_bound(fmt) && svc->gens[i] != NULL && svc->warranted)
            mintid_gen_warrant(svc->gens[i], NULL); /* lapses the old node id's: leased */
        if (node_bound(fmt))
            make_generator(svc, i);
    }
    if (svc->warranted) {
        publish_nodes(svc);
        int64_t now;
        uint64_t ns;
        if (wall_clock(&now, &ns) == MINTID_OK)
            renew_warrants(svc, now);
    }
    log_msg(LOG_INFO, "minting as node %" PRId64 " again", node);
}

void service_count_gens(service *svc) {
    svc->c->log_dropped = svc->log_base[0] + log_dropped();
    svc->c->log_held_back = svc->log_base[1] + log_held_back();
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        if (svc->gens[i] == NULL)
            continue;
        mintid_gen_stats s;
        mintid_gen_get_stats(svc->gens[i], &s);
        if (s.last_unix_ms == -2)
            continue; /* not read now (the lock held): the counters stay as they were */
        svc->c->waits[i] = svc->gen_base[i][0] + s.waits;
        svc->c->exhausted[i] = svc->gen_base[i][1] + s.exhausted;
        svc->c->rollbacks[i] = svc->gen_base[i][2] + s.rollbacks;
    }
}

/*
 * Another worker's slot is read while it writes it: each counter is an
 * aligned 64-bit word with one writer, read whole (volatile: never cached
 * or split), so a total may lag a counter by the increment in flight.
 */
void service_totals(service *svc, service_counters *out) {
    service_count_gens(svc);
    memset(out, 0, sizeof *out);
    uint64_t *sum = (uint64_t *)out;
    for (unsigned w = 0; w < svc->nslots; w++) {
        const volatile uint64_t *v = (const volatile uint64_t *)&svc->slots[w];
        for (size_t k = 0; k < sizeof *out / sizeof(uint64_t); k++)
            sum[k] += v[k];
    }
}

void service_free(service *svc) {
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        /* A static node id's warrant is withdrawn, a leased one's lapsed:
         * the other homes stop with the server. */
        if (svc->warranted && svc->gens[i] != NULL && node_bound(mintid_format_get((mintid_format_id)i)))
            mintid_gen_warrant(svc->gens[i], NULL);
        mintid_gen_free(svc->gens[i]);
    }
    memset(svc->gens, 0, sizeof svc->gens);
}

/*
 * The last Unix ms of the timestamp unit that holds `ms`: an ID of a format
 * whose unit is longer than a millisecond (sonyflake's 10 ms, ksuid's
 * second) carries the whole unit, so a floor is passed only after it.
 */
static int64_t unit_end(const mintid_format *fmt, int64_t ms) {
    int64_t u = fmt->ts_unit_ms;
    return u == 1 || ms < 0 ? ms : (ms / u + 1) * u - 1;
}

/* Sentences that admission and readiness (service_ready) both give. */
static const char state_unwritten[] = "the state file could not be written; no ID is issued beyond its mark";
static const char etcd_behind_clock[] = "node lease: etcd is unreachable, so its mark for this node id cannot be "
                                        "moved past the clock; not minting until etcd answers";
static const char clock_went_back[] = "the clock went back: waiting for it to reach the last ID's time";

/*
 * May an ID carry time `now`? MINTID_OK; or 0 with *wait_for (the Unix ms
 * to wait for) and *why; or a negative status with *why. With ask, a mark
 * far enough ahead is asked of the state writer; readiness only reads.
 */
static int admit(service *svc, const mintid_format *fmt, int64_t now, bool ask, int64_t *wait_for, const char **why) {
    *wait_for = 0;
    if (atomic_load(&svc->st->dir_lost)) {
        *why = "the state directory is no longer the one this server locked (deleted, renamed or replaced); "
               "not minting";
        return MINTID_ECLOCK;
    }
    if (svc->lease != NULL) {
        lease *l = svc->lease;
        uint64_t wait_ns = lease_wait_ns(l);
        if (wait_ns > 0 && atomic_load(&l->generation) == svc->lease_generation) {
            *why = "node lease: waiting for the node id's last holder, which did not release it, to have stopped";
            *wait_for = now + (int64_t)(wait_ns / 1000000u) + 1;
            return 0;
        }
        bool unreachable = lease_etcd_unreachable(l);
        if (!lease_valid(l) || atomic_load(&l->generation) != svc->lease_generation) {
            *why = unreachable ? "node lease lost: etcd is unreachable; not minting until a node id is held again"
                               : "node lease lost: not minting until it is held again";
            return MINTID_ECLOCK;
        }
        int64_t floor = unit_end(fmt, atomic_load(&l->floor_ms));
        if (now <= floor) {
            *why = "node lease: waiting for the previous holder's last timestamp to pass";
            *wait_for = floor + 1;
            return 0;
        }
        if (now > atomic_load(&l->mark_ms)) {
            *why = unreachable ? etcd_behind_clock : "node lease: the mark in etcd does not yet cover the clock";
            *wait_for = now + 1;
            return 0;
        }
    }
    /* Checked on every mint, not only at start: a clock stepped back later
     * must not reach timestamps an earlier run may have issued. */
    int64_t floor = unit_end(fmt, svc->st->start_mark > state_floor(svc->st, fmt->id) ? svc->st->start_mark
                                                                                      : state_floor(svc->st, fmt->id));
    if (now <= floor) {
        *why = now <= unit_end(fmt, svc->st->start_mark)
                   ? "the clock is behind the state's mark: not minting until it has passed it"
                   : "the format's epoch was changed: not minting until its earlier IDs' timestamps have passed";
        *wait_for = floor + 1;
        return 0;
    }
    int64_t reserve = (int64_t)svc->cfg->reserve_ahead;
    if (ask && now + reserve / 2 > atomic_load(&svc->st->wanted))
        ask_reserve(svc, now + reserve);
    if (now > atomic_load(&svc->st->mark)) {
        if (atomic_load(&svc->st->failing)) {
            *why = state_unwritten;
            return MINTID_ECLOCK;
        }
        *why = "waiting for the state file to record the time";
        *wait_for = now + 1;
        return 0;
    }
    return MINTID_OK;
}

const char service_lock_busy[] = "waiting for the host-wide lock, which another process holds";

long service_mint(service *svc, const mintid_format *fmt, size_t want, mintid_id *out, uint64_t *retry_ns,
                  const char **why) {
    *retry_ns = 0;
    if (svc->lease != NULL)
        follow_lease(svc);
    mintid_gen *gen = svc->gens[fmt->id];
    if (gen == NULL) {
        *why = svc->why_not[fmt->id];
        return MINTID_EFORMAT;
    }
    int64_t now, wait_for;
    uint64_t ns;
    int rc = wall_clock(&now, &ns);
    if (rc == MINTID_OK)
        rc = admit(svc, fmt, now, true, &wait_for, why);
    if (rc < 0) {
        if (rc == MINTID_ECLOCK && *why == NULL)
            *why = mintid_strerror(rc);
        return rc;
    }
    if (wait_for != 0) {
        *retry_ns = until_ms(now, ns, wait_for);
        svc->wait_why[fmt->id] = *why;
        return 0;
    }
    svc->now_ms = now;
    svc->last_admitted_ms = now;
    mintid_later later;
    long n = mintid_gen_try_next_n(gen, out, want, &later);
    if (n == 0 && later.reason == MINTID_EBUSY) {
        /* Another process holds the format's lock. Held a moment (another
         * worker minting), the reason of the wait is what it was; held
         * long (a holder stopped), it is the holder. */
        uint64_t t = monotonic_ns();
        if (svc->busy_since_ns[fmt->id] == 0)
            svc->busy_since_ns[fmt->id] = t;
        if (t - svc->busy_since_ns[fmt->id] >= SERVICE_BUSY_NAMED_NS) {
            snprintf(svc->host_why, sizeof svc->host_why, "%s", mintid_host_why());
            *why = svc->host_why;
        } else {
            *why = svc->wait_why[fmt->id] != NULL ? svc->wait_why[fmt->id] : service_lock_busy;
        }
        *retry_ns = until_ms(now, ns, now + 1);
        return 0;
    }
    svc->busy_since_ns[fmt->id] = 0;
    if (n == MINTID_EWARRANT) {
        /* Another server's warrant in the state (two servers sharing a
         * host-dir, a leased one's lapsed warrant before this server's
         * first renewal): waited out, with the reason, until max-wait. */
        snprintf(svc->host_why, sizeof svc->host_why, "%s", mintid_host_why());
        *why = svc->host_why;
        *retry_ns = until_ms(now, ns, now + 1);
        return 0;
    }
    if (n > 0) {
        svc->wait_why[fmt->id] = NULL;
        svc->c->issued[fmt->id] += (uint64_t)n;
        return n;
    }
    if (n == 0) {
        /* The generator needs a later millisecond, and says which: its
         * sequence is used up, or the clock is behind its last ID (the
         * rollback policy waits). */
        *why = later.reason == MINTID_ECLOCKBACK ? clock_went_back
                                                 : "the millisecond's sequence is used up: waiting for the next";
        svc->wait_why[fmt->id] = *why;
        *retry_ns = until_ms(now, ns, later.retry_ms > now ? later.retry_ms : now + 1);
        return 0;
    }
    if (n == MINTID_EHOST) {
        /* The host-wide state: its directory gone, a mark that cannot be
         * synced. errno says which; no ID past the mark on disk leaves. */
        snprintf(svc->host_why, sizeof svc->host_why, "the host-wide state in %s: %s", svc->cfg->host_dir,
                 strerror(errno));
        *why = svc->host_why;
        return MINTID_ECLOCK;
    }
    *why = mintid_strerror((int)n);
    return n;
}

int64_t service_last_issued(service *svc) {
    int64_t last = 0;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        if (svc->gens[i] == NULL)
            continue;
        mintid_gen_stats s;
        mintid_gen_get_stats(svc->gens[i], &s);
        /* Another process (a worker stopping beside this one) holds the
         * lock a moment: asked again, for up to a tenth of a second, as
         * the server is stopping anyway. */
        for (int tries = 0; s.last_unix_ms == -2 && tries < 100; tries++) {
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
            mintid_gen_get_stats(svc->gens[i], &s);
        }
        if (s.last_unix_ms == -2)
            return atomic_load(&svc->st->mark); /* not known: nothing past the mark was issued */
        if (s.last_unix_ms > last)
            last = s.last_unix_ms;
    }
    return last;
}

bool service_lapse_warrants(service *svc) {
    bool all = true;
    int64_t ceiling = atomic_load(&svc->st->mark);
    if (svc->lease != NULL && atomic_load(&svc->lease->mark_ms) < ceiling)
        ceiling = atomic_load(&svc->lease->mark_ms);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        if (svc->gens[i] == NULL || !node_bound(mintid_format_get((mintid_format_id)i)))
            continue;
        mintid_warrant w;
        mintid_warrant_init(&w);
        w.pid = svc->warrant_pid;
        w.ceiling_ms = ceiling;
        w.until_ns = 0; /* lapsed: it waits for the lock */
        w.leased = svc->lease != NULL;
        int rc = mintid_gen_warrant(svc->gens[i], &w);
        if (rc != MINTID_OK) {
            log_msg(LOG_WARN, "%s: the warrant over the host's other homes could not be lapsed (%s); the mark stays",
                    mintid_format_get((mintid_format_id)i)->name, mintid_strerror(rc));
            all = false;
        }
    }
    return all;
}

int64_t service_last_issued_after_lapse(service *svc) {
    /* Once the warrant has lapsed, every home's last ID is in the shared
     * cores; if it could not be lapsed, one may still mint up to the mark. */
    return service_lapse_warrants(svc) ? service_last_issued(svc) : atomic_load(&svc->st->mark);
}

void service_shutdown(service *svc) {
    /* Lower the mark to what was really issued, so a restart need not wait
     * out the unused reservation: the other homes under this server's node
     * id stopped first (their warrant lapsed), so their IDs count too. */
    int64_t last = service_last_issued_after_lapse(svc);
    if (state_write_final(svc->st, last) == 0 && (last > 0 || svc->st->start_mark > 0))
        log_msg(LOG_INFO, "state saved: no ID was issued after %" PRId64 " (Unix ms)", atomic_load(&svc->st->mark));
}

/* A time argument: Unix ms or RFC 3339, copied out to be NUL-terminated. */
static bool parse_time_arg(const char *s, size_t len, int64_t *ms) {
    char buf[64];
    if (len == 0 || len >= sizeof buf || memchr(s, '\0', len) != NULL)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return mintid_parse_time(buf, ms) == MINTID_OK;
}

int service_range(service *svc, const mintid_format *fmt, const char *from_text, size_t from_len, const char *to_text,
                  size_t to_len, mintid_id *lo, mintid_id *hi, const char **why) {
    int64_t from, to, epoch = config_epoch(svc->cfg, fmt);
    mintid_id unused;
    if (!parse_time_arg(from_text, from_len, &from)) {
        *why = "from is not Unix ms or an RFC 3339 time";
        return MINTID_EINVAL;
    }
    if (!parse_time_arg(to_text, to_len, &to)) {
        *why = "to is not Unix ms or an RFC 3339 time";
        return MINTID_EINVAL;
    }
    if (to < from) {
        *why = "to is before from";
        return MINTID_EINVAL;
    }
    if (mintid_range(fmt, from, epoch, lo, &unused) != MINTID_OK ||
        mintid_range(fmt, to, epoch, &unused, hi) != MINTID_OK) {
        *why = "no ID of the format can carry that time (before its epoch, or past its last timestamp)";
        return MINTID_ETIME;
    }
    return MINTID_OK;
}

/* A count as requests give it: decimal, no sign, no leading zero, 1..max. */
bool service_parse_count(const char *s, size_t len, uint64_t max, uint64_t *out) {
    uint64_t v;
    if (!config_parse_decimal(s, len, max, &v) || v == 0)
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
    uint64_t until = atomic_load(&l->valid_until_ns), now = lease_clock_ns();
    out->expiry_s = out->valid && until > now ? (double)(until - now) / 1e9 : 0;
    out->keepalive_failures = atomic_load(&l->keepalive_failures);
    out->wait_s = (double)lease_wait_ns(l) / 1e9;
    out->etcd_reachable = !lease_etcd_unreachable(l);
    /* Each keepalive etcd acknowledges (and the grant) sets the lease's
     * validity from when it was sent: TTL less the margin later. */
    uint64_t span = (uint64_t)l->cfg.ttl_s * 1000000000u - (uint64_t)l->cfg.margin_ms * 1000000u;
    out->acknowledged_s = until > span && now > until - span ? (double)(now - (until - span)) / 1e9 : -1;
}

static const char no_id_carries[] =
    "no ID of it carries the clock's time (past its last timestamp, or before its epoch)";

/* Whether an ID of fmt, under the server's epoch for it, can carry Unix ms `now`. */
static bool carries(service *svc, const mintid_format *fmt, int64_t now) {
    mintid_id lo, hi;
    return mintid_range(fmt, now, config_epoch(svc->cfg, fmt), &lo, &hi) == MINTID_OK;
}

const char *service_unmintable(service *svc, char *buf, size_t cap) {
    int64_t now;
    uint64_t ns;
    if (wall_clock(&now, &ns) != MINTID_OK) {
        snprintf(buf, cap, "the clock cannot be read");
        return buf;
    }
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        if (svc->gens[i] != NULL && !carries(svc, fmt, now)) {
            snprintf(buf, cap, "%s cannot mint: %s", fmt->name, no_id_carries);
            return buf;
        }
    }
    return NULL;
}

/*
 * How long a mint of fmt at `now` would wait for the clock to reach the
 * last ID issued in its sequence (by any home on the host): 0 when the
 * clock is not behind it or the generator goes on, INT64_MAX when the
 * generator refuses instead. As mintid_gen_try_next_n() says: the wait
 * policy waits for the last ID's unit, reuse goes on in it (within the
 * format's allowance), fail fails.
 */
static int64_t rollback_wait(service *svc, const mintid_format *fmt, int64_t now) {
    mintid_gen_stats s;
    mintid_gen_get_stats(svc->gens[fmt->id], &s);
    /* Another process holds the lock: since when, as a mint counts it
     * (a holder stopped with it is a cause, see cannot_mint()). */
    if (s.last_unix_ms == -2) {
        if (svc->busy_since_ns[fmt->id] == 0)
            svc->busy_since_ns[fmt->id] = monotonic_ns();
        return 0;
    }
    svc->busy_since_ns[fmt->id] = 0;
    if (s.last_unix_ms < 0 || now >= s.last_unix_ms) /* none yet */
        return 0;
    int64_t behind = s.last_unix_ms - now;
    switch (mintid_gen_config(svc->gens[fmt->id])->rollback) {
    case MINTID_ROLLBACK_WAIT:
        return behind;
    case MINTID_ROLLBACK_REUSE:
        return fmt->rollback_allowance_ms == 0 || behind <= (int64_t)fmt->rollback_allowance_ms ? 0 : INT64_MAX;
    case MINTID_ROLLBACK_FAIL:
        return INT64_MAX;
    }
    return 0;
}

/* why, and that its wait (ms) is longer than a mint waits, into buf. */
static const char *past_max_wait(service *svc, const char *why, int64_t wait_ms, char *buf, size_t cap) {
    snprintf(buf, cap, "%s: %.1f s from now, longer than max-wait (%" PRIu64 " ms)", why, (double)wait_ms / 1000,
             svc->cfg->max_wait);
    return buf;
}

/*
 * Why fmt (served) cannot mint at `now`, or NULL: what a mint of it would
 * be told, decided by admit() as a mint is, but only read (nothing is
 * asked of the state writer), and a wait counted as a refusal when it is
 * longer than max-wait, or when it lasts until etcd answers.
 */
static const char *cannot_mint(service *svc, const mintid_format *fmt, int64_t now, char *buf, size_t cap) {
    if (!carries(svc, fmt, now))
        return no_id_carries;
    int64_t wait_for;
    const char *why = NULL;
    int rc = admit(svc, fmt, now, false, &wait_for, &why);
    if (rc < 0)
        return why != NULL ? why : mintid_strerror(rc);
    if (wait_for != 0 && why == etcd_behind_clock)
        return why;
    if (wait_for != 0 && wait_for - now > (int64_t)svc->cfg->max_wait)
        return past_max_wait(svc, why, wait_for - now, buf, cap);
    /* Minting goes on inside the reservation already made, and stops when
     * it runs out: what keeps it ahead of the clock is failing now. */
    if (atomic_load(&svc->st->failing))
        return state_unwritten;
    if (svc->lease != NULL && lease_etcd_unreachable(svc->lease))
        return "node lease: etcd is unreachable; minting stops when the clock reaches the mark in etcd, or sooner "
               "when the lease could expire";
    int64_t behind = rollback_wait(svc, fmt, now);
    uint64_t busy = svc->busy_since_ns[fmt->id], held_ms = busy != 0 ? (monotonic_ns() - busy) / 1000000u : 0;
    if (busy != 0 && held_ms >= svc->cfg->max_wait) {
        snprintf(buf, cap,
                 "another process has held the format's host-wide lock for %.1f s, longer than max-wait (%" PRIu64
                 " ms): stopped, or in a debugger?",
                 (double)held_ms / 1000, svc->cfg->max_wait);
        return buf;
    }
    if (behind == INT64_MAX)
        return mintid_strerror(MINTID_ECLOCKBACK);
    if (behind > (int64_t)svc->cfg->max_wait)
        return past_max_wait(svc, clock_went_back, behind, buf, cap);
    return NULL;
}

bool service_ready(service *svc, service_readiness *out) {
    int64_t now = 0;
    uint64_t ns;
    bool clock = wall_clock(&now, &ns) == MINTID_OK, ready = true;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        out->why[i] = NULL;
        if (svc->gens[i] == NULL)
            continue;
        out->why[i] =
            !clock ? mintid_strerror(MINTID_ECLOCK) : cannot_mint(svc, fmt, now, out->text[i], sizeof out->text[i]);
        ready = ready && out->why[i] == NULL;
    }
    return ready;
}
