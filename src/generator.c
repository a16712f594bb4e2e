/* SPDX-License-Identifier: MIT */
/*
 * generator.c - the thread-safe generator around the pure core (core.c):
 * one lock (a process's own, or the host-wide state's of host.c), one
 * clock, one random pool and its refills, and bounded waits. When the core
 * cannot go on right now (the unit's sequence is used up, or the clock went
 * back), the configured policy decides between a bounded wait and an error,
 * or, for a caller that never waits (mintid_gen_try_next_n), the time to
 * come back.
 */
#include "internal.h"

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct mintid_gen {
    pthread_mutex_t lock;
    const mintid__format_impl *impl;
    mintid_config cfg;
    uint64_t fork_generation; /* the process's, when the generator was made */
    int64_t unit_ms;          /* length of a timestamp unit */
    int64_t epoch_units;      /* the epoch, in whole units (sonyflake truncates its start) */
    /* The state: this generator's own, or (host-wide) the host's shared
     * one, which moves when the lock is taken (see enter()). */
    mintid__core *core;
    uint64_t *last_value;      /* the last ID as a 64-bit value, once core->started (formats with a step) */
    struct mintid__host *host; /* NULL: a process generator */
    /* Host-wide: the clock's ms (system clock) from the last look at the
     * state's path to the next one due, in which a reading needs no call
     * into host.c. Read and written under the host's lock. */
    int64_t host_looked_ms, host_look_due_ms;
    int64_t *host_mark;          /* the state's durable mark (see host.c), under the host's lock */
    int64_t host_checked_unit;   /* the unit host_check() last passed without a warrant; INT64_MIN: none */
    const int64_t *host_warrant; /* its warrant's holder, 0 if none (see host.c), under the host's lock */
    bool host_needs_warrant;     /* node host: a warrant is checked even where there is none */
    uint64_t step;               /* value_step(): 0, or the same unit's next ID is last_value + step */
    uint64_t seq_last;           /* the largest sequence number */
    mintid__core own_core;
    uint64_t own_last_value;
    mintid_gen_stats stats;
    /* A call of mintid_gen_try_next_n(): where an ID would wait for a
     * later unit, next_id() says when and why here and returns LATER. */
    mintid_later *later;
    mintid_pool rng;
};

/* next_id(): no ID now, *g->later says when (a try call's; never a status). */
#define LATER 1

static int validate(const mintid__format_impl *f, mintid_config *cfg) {
    const mintid_format *fmt = &f->pub;
    int rc = mintid__check_config(f, cfg);
    if (rc != MINTID_OK)
        return rc;
    if (cfg->ids_per_reading == 0)
        cfg->ids_per_reading = 1;
    if (cfg->clock == NULL)
        cfg->clock = mintid_clock_system;
    if (fmt->epoch_settable) {
        int64_t now;
        rc = cfg->clock(cfg->clock_ctx, &now);
        if (rc != MINTID_OK)
            return rc < 0 ? rc : MINTID_ECLOCK;
        if (cfg->epoch_ms > now)
            return MINTID_ETIME; /* the spec: the epoch must be in the past */
    }
    return MINTID_OK;
}

/*
 * The sequence step of a 64-bit value, for a format whose next ID in the
 * same unit is the last one plus a step: the generic core, a sequence
 * that steps by one, and nothing drawn per ID (nanoflake, snowflake,
 * sonyflake, caloriosa). 0 for the others.
 */
static uint64_t value_step(const mintid__format_impl *f, const mintid_config *cfg) {
    const mintid__plan *pl = &f->plan;
    bool random_per_id = pl->random_bits != 0 && !f->random_per_ms && !(f->pub.node_optional && cfg->node >= 0);
    if (f->next != NULL || f->pub.bits != 64 || f->seq_step != mintid__seq_step_one || random_per_id ||
        pl->has_random80 || f->seq_width == 0)
        return 0;
    return UINT64_C(1) << pl->seq_shift;
}

/*
 * Where a host-wide state lives: opt's directory and id space, else the
 * environment's (mintid_env_host_dir(), mintid_env_id_space()), into dir
 * (PATH_MAX bytes) and space. MINTID_EINVAL for a relative or too long
 * directory, or an id space that is none.
 */
static int host_where(const mintid_host_options *opt, char *dir, char *space) {
    if (opt->dir != NULL ? opt->dir[0] != '/' || strlen(opt->dir) >= PATH_MAX
                         : mintid_env_host_dir(dir, PATH_MAX, NULL, 0) != MINTID_OK)
        return MINTID_EINVAL;
    if (opt->id_space != NULL ? !mintid__id_space_valid(opt->id_space)
                              : mintid_env_id_space(space, MINTID_ID_SPACE_MAX + 1, NULL, 0) != MINTID_OK)
        return MINTID_EINVAL;
    if (opt->dir != NULL)
        memcpy(dir, opt->dir, strlen(opt->dir) + 1);
    if (opt->id_space != NULL)
        memcpy(space, opt->id_space, strlen(opt->id_space) + 1);
    return MINTID_OK;
}

static int gen_new(const mintid_format *fmt, const mintid_config *cfg, const mintid_host_options *host,
                   mintid_gen **out) {
    if (fmt == NULL || out == NULL)
        return MINTID_EINVAL;
    const mintid__format_impl *f = mintid__impl(fmt);
    mintid_config c;
    if (cfg != NULL)
        c = *cfg;
    else
        mintid_config_init(&c, fmt);
    char dir[PATH_MAX], space[MINTID_ID_SPACE_MAX + 1];
    int rc = MINTID_OK;
    if (host != NULL && (rc = host_where(host, dir, space)) != MINTID_OK)
        return rc;
    /* Node host: the node id and epoch the host's mintidd mints the format with. */
    bool node_host = c.node == MINTID_NODE_HOST;
    if (node_host) {
        if (host == NULL || fmt->node_bits == 0 || fmt->node_optional)
            return MINTID_EINVAL;
        mintid__host_why("%s", "");
        if ((rc = mintid__host_lookup(fmt, dir, space, &c.node, &c.epoch_ms)) != MINTID_OK)
            return rc;
    }
    rc = validate(f, &c);
    if (rc != MINTID_OK)
        return rc;
    mintid_gen *g = calloc(1, sizeof *g);
    if (g == NULL)
        return MINTID_ENOMEM;
    if (pthread_mutex_init(&g->lock, NULL) != 0) {
        free(g);
        return MINTID_ENOMEM;
    }
    g->impl = f;
    g->cfg = c;
    g->fork_generation = mintid__fork_generation();
    g->unit_ms = fmt->ts_unit_ms;
    g->epoch_units = mintid__floor_div(c.epoch_ms, g->unit_ms);
    g->step = value_step(f, &c);
    g->seq_last = (UINT64_C(1) << f->seq_width) - 1;
    mintid__core_init(f, &g->own_core);
    g->core = &g->own_core;
    g->last_value = &g->own_last_value;
    g->rng.fn = c.random;
    g->rng.ctx = c.random_ctx;
    g->rng.pos = MINTID_POOL_BYTES;
    if (host != NULL) {
        rc = mintid__host_open(f, &g->cfg, dir, space, host->try_lock != 0, &g->host);
        if (rc == MINTID_OK && node_host) {
            mintid__host_need_warrant(g->host);
            g->host_needs_warrant = true;
        }
    }
    if (rc != MINTID_OK) {
        pthread_mutex_destroy(&g->lock);
        free(g);
        return rc;
    }
    *out = g;
    return MINTID_OK;
}

int mintid_gen_new(const mintid_format *fmt, const mintid_config *cfg, mintid_gen **out) {
    return gen_new(fmt, cfg, NULL, out);
}

void mintid_host_options_init(mintid_host_options *opt) {
    memset(opt, 0, sizeof *opt);
    opt->size = sizeof *opt;
}

int mintid_gen_open_host(const mintid_format *fmt, const mintid_config *cfg, const mintid_host_options *opt,
                         mintid_gen **out) {
    mintid_host_options o;
    mintid_host_options_init(&o);
    if (opt != NULL) {
        /* A caller built against an older, smaller struct: its fields only. */
        if (opt->size < offsetof(mintid_host_options, id_space) + sizeof opt->id_space)
            return MINTID_EINVAL;
        o.dir = opt->dir;
        o.id_space = opt->id_space;
        if (opt->size >= offsetof(mintid_host_options, try_lock) + sizeof opt->try_lock)
            o.try_lock = opt->try_lock;
    }
    return gen_new(fmt, cfg, &o, out);
}

int mintid_gen_new_host(const mintid_format *fmt, const mintid_config *cfg, const char *dir, mintid_gen **out) {
    mintid_host_options o;
    mintid_host_options_init(&o);
    o.dir = dir;
    return gen_new(fmt, cfg, &o, out);
}

const char *mintid_gen_host_path(const mintid_gen *gen) {
    return gen->host != NULL ? mintid__host_path(gen->host) : NULL;
}

void mintid_gen_free(mintid_gen *gen) {
    if (gen == NULL)
        return;
    /* In a child the lock may be a copy held by a parent's thread; leave it. */
    if (gen->fork_generation == mintid__fork_generation())
        pthread_mutex_destroy(&gen->lock);
    mintid__host_close(gen->host);
    memset(gen->rng.buf, 0, sizeof gen->rng.buf);
    free(gen);
}

const mintid_format *mintid_gen_format(const mintid_gen *gen) { return &gen->impl->pub; }

const mintid_config *mintid_gen_config(const mintid_gen *gen) { return &gen->cfg; }

/* Unix ms `ms` in timestamp units after the epoch; negative before the epoch. */
static int64_t rel_at(const mintid_gen *g, int64_t ms) {
    return g->unit_ms == 1 ? ms - g->cfg.epoch_ms : mintid__floor_div(ms, g->unit_ms) - g->epoch_units;
}

/* The clock in timestamp units after the epoch; may be negative before the epoch. */
static int read_rel(mintid_gen *g, int64_t *rel) {
    int64_t now;
    if (g->cfg.clock == mintid_clock_system) {
        /* The system clock read here, not through two calls: it is a third of the time per ID. */
        struct timespec ts;
        if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
            return MINTID_ECLOCK;
        now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    } else {
        int rc = g->cfg.clock(g->cfg.clock_ctx, &now);
        if (rc != MINTID_OK)
            return rc < 0 && rc != MINTID_EHOST && rc != MINTID_EHOSTSTATE && rc != MINTID_ERANDOM ? rc : MINTID_ECLOCK;
    }
    *rel = rel_at(g, now);
    return MINTID_OK;
}

/* The generator's clock in Unix ms. */
static int read_now_ms(mintid_gen *g, int64_t *now) {
    int rc = g->cfg.clock(g->cfg.clock_ctx, now);
    return rc == MINTID_OK ? MINTID_OK : MINTID_ECLOCK;
}

/* Unix ms at which timestamp `ts` (units after the epoch) begins. */
static int64_t unit_start_ms(const mintid_gen *g, int64_t ts) { return (g->epoch_units + ts) * g->unit_ms; }

static void host_attach(mintid_gen *g) {
    g->core = mintid__host_core(g->host);
    g->last_value = mintid__host_last_value(g->host);
    g->host_mark = mintid__host_mark(g->host);
    g->host_warrant = mintid__host_warrant_holder(g->host);
    g->host_checked_unit = INT64_MIN; /* another state, or the lock taken again: check anew */
}

/* Before minting at `rel`: the host's state file may have been replaced (see host.c). */
/* The part of host_check() past a unit the generator already checked. */
static int host_check_unit(mintid_gen *g, int64_t unit) {
    int64_t end = unit_start_ms(g, unit) + g->unit_ms - 1;
    if (*g->host_warrant != 0 || g->host_needs_warrant) {
        int rc = mintid__host_warrant_check(g->host, end);
        if (rc != MINTID_OK)
            return rc;
    } else {
        /* Without a warrant a unit's check holds for the rest of the call:
         * the lock is held throughout, the mark only rises, and every
         * taking of the lock (host_attach) checks anew. */
        g->host_checked_unit = unit;
    }
    int64_t need = end + MINTID_HOST_MARK_AHEAD_MS / 2;
    return need > *g->host_mark ? mintid__host_cover(g->host, need) : MINTID_OK;
}

static inline __attribute__((always_inline)) int host_check(mintid_gen *g, int64_t rel) {
    int64_t ms = unit_start_ms(g, rel);
    if (ms < g->host_looked_ms || ms >= g->host_look_due_ms) {
        int rc = mintid__host_check(g->host, ms, &g->host_looked_ms, &g->host_look_due_ms);
        if (rc != MINTID_OK)
            return rc;
        host_attach(g);
    }
    /* The durable mark covers the unit before an ID of it leaves (a reboot
     * with the clock behind then never reaches it again), with half the
     * reservation to spare: the IDs of one reading may run a few units
     * ahead of it (a used-up counter under reuse, or one that carries on). */
    int64_t unit = rel;
    if (g->core->started && (int64_t)g->core->last_ts >= unit)
        unit = (int64_t)g->core->last_ts + 1;
    return unit == g->host_checked_unit ? MINTID_OK : host_check_unit(g, unit);
}

/* Takes the host's lock again after a sleep; an error leaves it unlocked (*held false) and fails the caller's call. */
static int host_relock(mintid_gen *g, bool *held) {
    int rc = mintid__host_lock(g->host);
    if (rc == MINTID_OK)
        host_attach(g);
    else
        *held = false;
    return rc;
}

/*
 * Waits until the clock reads at least `target` (ms relative to the epoch).
 * The limit is measured on the monotonic clock from the first wait of the
 * call, so one call never waits longer than max_wait_ms in all. With the
 * system clock the wait sleeps to the millisecond boundary itself rather
 * than spinning through the last millisecond: a generator at capacity must
 * not burn a core.
 */
static int wait_until(mintid_gen *g, int64_t target, uint64_t *deadline, bool *held) {
    uint64_t now_ns = mintid__monotonic_ns();
    if (*deadline == 0)
        *deadline = now_ns + (uint64_t)g->cfg.max_wait_ms * 1000000u;
    g->stats.waits++;
    for (;;) {
        int64_t rel;
        int rc = read_rel(g, &rel);
        if (rc != MINTID_OK)
            return rc;
        if (g->host != NULL && (rc = host_check(g, rel)) != MINTID_OK)
            return rc;
        if (rel >= target)
            return MINTID_OK;
        now_ns = mintid__monotonic_ns();
        if (now_ns >= *deadline)
            return MINTID_ETIMEDOUT;
        uint64_t left = *deadline - now_ns;
        /* A host-wide generator sleeps without the host's lock: the other
         * processes go on meanwhile, and the caller looks at the state
         * afresh. */
        if (g->host != NULL)
            mintid__host_unlock(g->host);
        if (g->cfg.clock == mintid_clock_system) {
            mintid__sleep_until_ms(unit_start_ms(g, target), left);
        } else if ((target - rel) * g->unit_ms > 1) {
            /* A clock of the caller's, perhaps a virtual one that moves
             * when read: whole milliseconds asleep, the last one read. */
            uint64_t ns = (uint64_t)((target - rel) * g->unit_ms - 1) * 1000000u;
            mintid__sleep_ns(ns < left ? ns : left);
        }
        if (g->host != NULL && (rc = host_relock(g, held)) != MINTID_OK)
            return rc;
    }
}

/* ---- the generator around it -------------------------------------------------------- */

/*
 * The next ID: the core, and the waits the policies ask for when
 * it cannot go on (a millisecond used up, the clock behind the last ID).
 * One call never waits longer than max_wait_ms in all, measured on the
 * monotonic clock, even with a clock that stands still. `now` is the
 * caller's reading of the clock, and gets every later one. `fresh` is
 * false when an earlier ID had the same reading: its rollback, if it was
 * one, was counted then, and where the core says the unit's sequence is
 * used up or the clock is behind, the clock is read again before any
 * policy applies, as if the ID had read it itself.
 */
static int next_id(mintid_gen *g, mintid_id *out, uint64_t *value, int64_t *now, bool fresh, bool *held) {
    uint64_t deadline = 0;
    bool rollback_seen = false;
    for (bool first = true;; first = false) {
        /* The caller's reading is the first: a caller's clock may move
         * when read. */
        int rc = first ? MINTID_OK : read_rel(g, now);
        if (rc != MINTID_OK)
            return rc;
        if (!first && g->host != NULL && (rc = host_check(g, *now)) != MINTID_OK)
            return rc;
        int64_t rel = *now;
        if (g->core->started && rel < (int64_t)g->core->last_ts && !rollback_seen && (fresh || !first)) {
            g->stats.rollbacks++;
            rollback_seen = true;
        }
        int64_t target;
        rc = mintid__core_drive(g->impl, &g->cfg, g->core, rel, &g->rng, out, value, &target);
        if (rc == MINTID_OK) {
            g->stats.issued++;
            return MINTID_OK;
        }
        if (!fresh && (rc == MINTID_EEXHAUSTED || rc == MINTID_ECLOCKBACK)) {
            fresh = true;
            continue;
        }
        if (rc == MINTID_EEXHAUSTED) {
            g->stats.exhausted++;
            if (g->cfg.overflow == MINTID_OVERFLOW_FAIL)
                return rc;
        } else if (rc == MINTID_ECLOCKBACK) {
            /* Under reuse: further behind than the format absorbs. */
            if (g->cfg.rollback != MINTID_ROLLBACK_WAIT)
                return rc;
        } else {
            return rc;
        }
        if (g->later != NULL) {
            g->stats.waits++; /* told to come back: the wait is the caller's */
            /* A unit used up past the clock's next one (the rollback
             * policy reused the last ID's unit until it ran out) is the
             * clock's doing: it is behind the last ID. */
            g->later->reason = rc == MINTID_EEXHAUSTED && target > rel + 1 ? MINTID_ECLOCKBACK : rc;
            g->later->retry_ms = unit_start_ms(g, target);
            return LATER;
        }
        rc = wait_until(g, target, &deadline, held);
        if (rc != MINTID_OK)
            return rc;
    }
}

/*
 * With the host's lock held, at the start of a call: while a live warrant
 * of the host's mintidd has not moved its ceiling past the next ID (a
 * server idle a while), waits for it, the lock let go, within max_wait_ms;
 * past that the mint's own check refuses with the reason.
 */
static int warrant_wait(mintid_gen *g, bool *held) {
    uint64_t deadline = 0;
    for (;;) {
        int64_t rel;
        int rc = read_rel(g, &rel);
        if (rc != MINTID_OK)
            return rc;
        int64_t unit = rel;
        if (g->core->started && (int64_t)g->core->last_ts >= unit)
            unit = (int64_t)g->core->last_ts + 1;
        if (!mintid__host_warrant_ahead(g->host, unit_start_ms(g, unit) + g->unit_ms - 1))
            return MINTID_OK;
        uint64_t now_ns = mintid__monotonic_ns();
        if (deadline == 0)
            deadline = now_ns + (uint64_t)g->cfg.max_wait_ms * 1000000u;
        if (now_ns >= deadline)
            return MINTID_OK;
        mintid__host_unlock(g->host);
        uint64_t left = deadline - now_ns;
        mintid__sleep_ns(left < 2000000u ? left : 2000000u);
        if ((rc = host_relock(g, held)) != MINTID_OK)
            return rc;
    }
}

/*
 * Takes the generator's lock: a process generator's own, or the host's.
 * A process generator inherited by fork() refuses; a host-wide one goes on
 * in the child, with a random pool of its own (the parent's bytes must not
 * be drawn twice).
 */
static int enter(mintid_gen *g) {
    if (g->host == NULL) {
        if (g->fork_generation != mintid__fork_generation())
            return MINTID_EFORKED;
        pthread_mutex_lock(&g->lock);
        return MINTID_OK;
    }
    int rc = mintid__host_lock(g->host);
    if (rc != MINTID_OK)
        return rc;
    uint64_t fg = mintid__fork_generation();
    if (g->fork_generation != fg) {
        memset(g->rng.buf, 0, sizeof g->rng.buf);
        g->rng.pos = MINTID_POOL_BYTES;
        g->fork_generation = fg;
    }
    host_attach(g);
    return MINTID_OK;
}

static void leave(mintid_gen *g) {
    if (g->host != NULL)
        mintid__host_unlock(g->host);
    else
        pthread_mutex_unlock(&g->lock);
}

/*
 * Mints up to n IDs under one lock, into ids or (64-bit formats) values.
 * The clock is read for every ID, or with ids_per_reading for the first of
 * every that many (always again after a wait, which reads it anew). Where
 * the format allows it (gen->step), an ID in the same unit as the one
 * before (of this call or an earlier one) is that one's value plus a step:
 * the field rules and packing run only when the unit changes or the
 * sequence runs out.
 */
static long next_many(mintid_gen *gen, mintid_id *ids, uint64_t *values, size_t n) {
    int rc = enter(gen);
    if (rc != MINTID_OK)
        return rc;
    bool held = true; /* false: the host's lock was lost (see host_relock) */
    if (gen->host != NULL && gen->later == NULL && mintid__host_under_warrant(gen->host) &&
        (rc = warrant_wait(gen, &held)) != MINTID_OK) {
        if (held)
            leave(gen);
        return rc;
    }
    uint64_t step = gen->step, last = *gen->last_value;
    bool unsaved = false; /* last is ahead of *gen->last_value */
    unsigned per_reading = n > 1 ? gen->cfg.ids_per_reading : 1, unread = 0;
    int64_t rel = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        bool fresh = unread == 0;
        if (fresh) {
            if ((rc = read_rel(gen, &rel)) != MINTID_OK)
                break;
            if (gen->host != NULL) {
                /* Every reading: the state may have been replaced since
                 * the last look, and a batch can take long (preempted). */
                mintid__core *before = gen->core;
                if ((rc = host_check(gen, rel)) != MINTID_OK)
                    break;
                if (gen->core != before) {
                    /* Moved to the path's state: its last value, not the old one's. */
                    last = *gen->last_value;
                    unsaved = false;
                }
            }
            unread = per_reading;
        }
        unread--;
        if (step != 0 && gen->core->started && rel == (int64_t)gen->core->last_ts &&
            gen->core->st.seq < gen->seq_last && rel >= gen->core->floor) {
            gen->core->st.seq++;
            last += step;
            unsaved = true;
            if (ids != NULL)
                mintid_id_from_u64(&ids[i], last);
            else
                values[i] = last;
            gen->stats.issued++;
            continue;
        }
        mintid_id id;
        /* next_id may sleep without a host-wide state's lock: the state
         * others then see must hold the value its sequence says. */
        if (unsaved)
            *gen->last_value = last;
        unsaved = false;
        rc = ids != NULL ? next_id(gen, &ids[i], NULL, &rel, fresh, &held)
                         : next_id(gen, &id, &values[i], &rel, fresh, &held);
        if (rc != MINTID_OK)
            break;
        if (step != 0) {
            last = ids != NULL ? mintid_id_to_u64(&ids[i]) : values[i];
            unsaved = true;
        }
    }
    if (held) {
        if (unsaved)
            *gen->last_value = last;
        leave(gen);
    }
    return i > 0 ? (long)i : rc == LATER ? 0 : rc;
}

long mintid_gen_next_n(mintid_gen *gen, mintid_id *out, size_t n) { return next_many(gen, out, NULL, n); }

long mintid_gen_try_next_n(mintid_gen *gen, mintid_id *out, size_t n, mintid_later *later) {
    memset(later, 0, sizeof *later);
    /* One caller at a time per generator (the generator's contract for a
     * try call: an event loop's thread), so the field is the call's. */
    gen->later = later;
    long got = next_many(gen, out, NULL, n);
    gen->later = NULL;
    if (got == MINTID_EBUSY) {
        int64_t now;
        later->reason = MINTID_EBUSY;
        later->retry_ms = read_now_ms(gen, &now) == MINTID_OK ? now + 1 : 0;
        return 0;
    }
    return got;
}

int mintid_gen_next(mintid_gen *gen, mintid_id *out) {
    long n = next_many(gen, out, NULL, 1);
    return n == 1 ? MINTID_OK : (int)n;
}

long mintid_gen_next_u64(mintid_gen *gen, uint64_t *out, size_t n) {
    if (gen->impl->pub.bits != 64)
        return MINTID_EFORMAT;
    return next_many(gen, NULL, out, n);
}

void mintid_warrant_init(mintid_warrant *w) {
    memset(w, 0, sizeof *w);
    w->size = sizeof *w;
    w->floor_ms = INT64_MIN;
    w->asked_ms = INT64_MIN;
}

int mintid_gen_warrant(mintid_gen *gen, mintid_warrant *w) {
    const mintid_format *fmt = &gen->impl->pub;
    if (gen->host == NULL || fmt->node_bits == 0 || fmt->node_optional)
        return MINTID_EINVAL;
    /* A caller built against an older, smaller struct: refused (every field is needed). */
    if (w != NULL && w->size < offsetof(mintid_warrant, asked_ms) + sizeof w->asked_ms)
        return MINTID_EINVAL;
    /* The holder is known before the lock is taken: its generators mint
     * past its warrant even while a renewal finds the lock held. A lapse
     * waits for the lock: it must not be lost to a moment's contention. */
    bool lapse = w == NULL || w->until_ns == 0;
    if (w != NULL)
        mintid__host_set_holder(gen->host, w->pid);
    int rc = lapse ? mintid__host_lock_waiting(gen->host) : mintid__host_lock(gen->host);
    if (rc != MINTID_OK)
        return rc;
    host_attach(gen);
    /* Into the path's state, if it was replaced: the warrant goes where the homes mint. */
    int64_t now = 0, from, until;
    mintid_clock_system(NULL, &now);
    rc = mintid__host_check(gen->host, now, &from, &until);
    if (rc == MINTID_OK) {
        host_attach(gen);
        rc = mintid__host_warrant(gen->host, w);
    }
    mintid__host_unlock(gen->host);
    return rc;
}

int mintid_host_publish(const mintid_host_options *opt, int64_t pid, const mintid_host_node *nodes, size_t n) {
    char dir[PATH_MAX], space[MINTID_ID_SPACE_MAX + 1];
    if (opt == NULL || opt->size < offsetof(mintid_host_options, id_space) + sizeof opt->id_space || pid <= 0 ||
        (n > 0 && nodes == NULL))
        return MINTID_EINVAL;
    int rc = host_where(opt, dir, space);
    if (rc != MINTID_OK)
        return rc;
    for (size_t i = 0; i < n; i++)
        if (nodes[i].fmt == NULL || nodes[i].node < 0 || nodes[i].epoch_ms < 0)
            return MINTID_EINVAL;
    return mintid__host_publish(dir, space, pid, nodes, n);
}

int mintid_gen_set_floor(mintid_gen *gen, int64_t unix_ms) {
    int rc = enter(gen);
    if (rc != MINTID_OK)
        return rc;
    /* The unit unix_ms is in, or the next one when it starts later. */
    int64_t rel = rel_at(gen, unix_ms);
    if (unit_start_ms(gen, rel) < unix_ms)
        rel++;
    mintid__core_raise_floor(gen->core, rel);
    leave(gen);
    return MINTID_OK;
}

void mintid_gen_get_stats(mintid_gen *gen, mintid_gen_stats *out) {
    int rc = enter(gen);
    if (rc == MINTID_EBUSY) {
        /* Not read: a thread of this process may hold the lock and be
         * counting in them. */
        memset(out, 0, sizeof *out);
        out->last_unix_ms = -2;
        return;
    }
    if (rc != MINTID_OK) {
        memset(out, 0, sizeof *out);
        out->last_unix_ms = -1;
        return;
    }
    *out = gen->stats;
    out->last_unix_ms = gen->core->started ? unit_start_ms(gen, (int64_t)gen->core->last_ts) : -1;
    leave(gen);
}
