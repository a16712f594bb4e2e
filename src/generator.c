/* SPDX-License-Identifier: MIT */
/*
 * generator.c - the thread-safe generator around the pure core (core.c),
 * driven the same way over every store of its state (store.h: the
 * process's memory, the host-wide file, a caller's region): the store's
 * lock, one clock, one random pool and its refills, and bounded waits.
 * When the core cannot go on right now (the unit's sequence is used up,
 * or the clock went back), the configured policy decides between a
 * bounded wait and an error, or, for a caller that never waits
 * (mintid_gen_try_next_n), the time to come back. A store with a durable
 * mark has it cover a unit before an ID of it leaves.
 */
#include "store.h"

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct mintid_gen {
    const mintid__format_impl *impl;
    mintid_config cfg;
    uint64_t fork_generation; /* the process's, when the generator was made (or last went on in a child) */
    int64_t unit_ms;          /* length of a timestamp unit */
    int64_t epoch_units;      /* the epoch, in whole units (sonyflake truncates its start) */
    mintid__store *store;
    const mintid__store_ops *ops; /* store->ops */
    /* Where the state is, as the store's lock last gave it: written by the
     * store straight into the generator (a copy through the stack would
     * stall every call on the store's writes). */
    mintid__view at;
    bool guarded; /* the store looks, admits or covers before a unit is minted in (see guard()) */
    /* The span of the clock's ms (of a unit's start) in which the store
     * need not look at its state again; under the store's lock. */
    int64_t quiet_from, quiet_until;
    int64_t checked_unit; /* the unit guard() last passed for the rest of the lock; INT64_MIN: none */
    uint64_t step;        /* value_step(): 0, or the same unit's next ID is last_value + step */
    uint64_t seq_last;    /* the largest sequence number */
    mintid_gen_stats stats;
    /* A call of mintid_gen_try_next_n(): where an ID would wait for a
     * later unit, next_id() says when and why here and returns LATER. */
    mintid_later *later;
    mintid_pool rng;
};

/* next_id(): no ID now, *g->later says when (a try call's; never a status). */
#define LATER 1

/* ---- making a generator --------------------------------------------------------------- */

/* Why the calling thread's last opening was refused (mintid__gen_refuse()). */
static _Thread_local char refused[320];

int mintid__gen_refuse(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(refused, sizeof refused, fmt, ap);
    va_end(ap);
    return MINTID_EINVAL;
}

const char *mintid__gen_refused(void) { return refused; }

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

int mintid__gen_new(const mintid_format *fmt, const mintid_config *cfg, const mintid__store_maker *maker, void *ctx,
                    mintid_gen **out) {
    refused[0] = '\0';
    if (fmt == NULL || out == NULL)
        return MINTID_EINVAL;
    const mintid__format_impl *f = mintid__impl(fmt);
    mintid_config c;
    if (cfg != NULL)
        c = *cfg;
    else
        mintid_config_init(&c, fmt);
    int rc = maker->settle != NULL ? maker->settle(f, &c, ctx) : MINTID_OK;
    if (rc == MINTID_OK)
        rc = validate(f, &c);
    if (rc != MINTID_OK)
        return rc;
    mintid__store *store;
    if ((rc = maker->open(f, &c, ctx, &store)) != MINTID_OK)
        return rc;
    mintid_gen *g = calloc(1, sizeof *g);
    if (g == NULL) {
        store->ops->close(store);
        return MINTID_ENOMEM;
    }
    g->impl = f;
    g->cfg = c;
    g->fork_generation = mintid__fork_generation();
    g->unit_ms = fmt->ts_unit_ms;
    g->epoch_units = mintid__floor_div(c.epoch_ms, g->unit_ms);
    g->step = value_step(f, &c);
    g->seq_last = (UINT64_C(1) << f->seq_width) - 1;
    g->store = store;
    g->ops = store->ops;
    if (g->ops->settled)
        g->ops->where(store, &g->at);
    g->guarded = g->ops->look != NULL || g->ops->admit != NULL || g->ops->cover != NULL;
    /* Nothing to look at: never due. Else due at the first reading. */
    g->quiet_from = g->ops->look != NULL ? 0 : INT64_MIN;
    g->quiet_until = g->ops->look != NULL ? 0 : INT64_MAX;
    g->checked_unit = INT64_MIN;
    g->rng.fn = c.random;
    g->rng.ctx = c.random_ctx;
    g->rng.pos = MINTID_POOL_BYTES;
    *out = g;
    return MINTID_OK;
}

mintid__store *mintid__gen_store(const mintid_gen *gen) { return gen->store; }

void mintid_gen_free(mintid_gen *gen) {
    if (gen == NULL)
        return;
    gen->ops->close(gen->store);
    memset(gen->rng.buf, 0, sizeof gen->rng.buf);
    free(gen);
}

const mintid_format *mintid_gen_format(const mintid_gen *gen) { return &gen->impl->pub; }

const mintid_config *mintid_gen_config(const mintid_gen *gen) { return &gen->cfg; }

/* ---- the clock ------------------------------------------------------------------------- */

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

/* ---- the store's lock, and what it must see before a unit is minted in ------------------ */

/* After the store's lock or look gave the state (perhaps another): nothing of it is checked yet. */
static void attach(mintid_gen *g) {
    g->checked_unit = INT64_MIN; /* another state, or the lock taken again: check anew */
}

/*
 * enter() in a process forked since the generator last took the lock: a
 * generator of a store of the process's own refuses; on a store shared
 * between processes it goes on in the child, with a random pool of its
 * own (the parent's bytes must not be drawn twice). Out of line: the
 * common call pays one comparison for it.
 */
static __attribute__((noinline)) int enter_forked(mintid_gen *g, uint64_t fg) {
    if (!g->ops->survives_fork)
        return MINTID_EFORKED;
    int rc = g->ops->lock(g->store);
    if (rc != MINTID_OK)
        return rc;
    memset(g->rng.buf, 0, sizeof g->rng.buf);
    g->rng.pos = MINTID_POOL_BYTES;
    g->fork_generation = fg;
    if (!g->ops->settled)
        g->ops->where(g->store, &g->at);
    attach(g);
    return MINTID_OK;
}

/* Takes the store's lock, and learns where the state is now. */
static int enter(mintid_gen *g) {
    uint64_t fg = mintid__fork_generation();
    if (__builtin_expect(g->fork_generation != fg, 0))
        return enter_forked(g, fg);
    int rc = g->ops->lock(g->store);
    if (rc != MINTID_OK)
        return rc;
    if (!g->ops->settled)
        g->ops->where(g->store, &g->at);
    attach(g);
    return MINTID_OK;
}

static void leave(mintid_gen *g) { g->ops->unlock(g->store); }

/* Before a sleep: a store shared with others lets its lock go meanwhile. */
static void doze(mintid_gen *g) {
    if (g->ops->sleeps_unlocked)
        g->ops->unlock(g->store);
}

/* After a sleep: the lock taken again; an error leaves it unlocked (*held false) and fails the caller's call. */
static int wake(mintid_gen *g, bool *held) {
    if (!g->ops->sleeps_unlocked)
        return MINTID_OK;
    int rc = g->ops->lock(g->store);
    if (rc != MINTID_OK) {
        *held = false;
        return rc;
    }
    if (!g->ops->settled)
        g->ops->where(g->store, &g->at);
    attach(g);
    return rc;
}

/* The part of guard() past a unit the generator already passed. */
static int guard_unit(mintid_gen *g, int64_t unit) {
    int64_t end = unit_start_ms(g, unit) + g->unit_ms - 1;
    bool lasting = true;
    if (g->ops->admit != NULL) {
        int rc = g->ops->admit(g->store, end, &lasting);
        if (rc != MINTID_OK)
            return rc;
    }
    /* A lasting answer holds for the rest of the call: the lock is held
     * throughout, the mark only rises, and every taking of the lock
     * (attach()) checks anew. */
    if (lasting)
        g->checked_unit = unit;
    int64_t need = end + MINTID_HOST_MARK_AHEAD_MS / 2;
    return need > *g->at.mark ? g->ops->cover(g->store, need) : MINTID_OK;
}

/*
 * Before minting at `rel` in a guarded store: the state may have moved
 * (looked at when due), the unit must be admitted, and the durable mark
 * covers the unit before an ID of it leaves (a reboot with the clock
 * behind then never reaches it again), with half the reservation to
 * spare: the IDs of one reading may run a few units ahead of it (a
 * used-up counter under reuse, or one that carries on).
 */
static inline __attribute__((always_inline)) int guard(mintid_gen *g, int64_t rel) {
    int64_t ms = unit_start_ms(g, rel);
    if (ms < g->quiet_from || ms >= g->quiet_until) {
        int rc = g->ops->look(g->store, ms, &g->quiet_from, &g->quiet_until);
        if (rc != MINTID_OK)
            return rc;
        g->ops->where(g->store, &g->at);
        attach(g);
    }
    int64_t unit = rel;
    if (g->at.core->started && (int64_t)g->at.core->last_ts >= unit)
        unit = (int64_t)g->at.core->last_ts + 1;
    return unit == g->checked_unit ? MINTID_OK : guard_unit(g, unit);
}

/* ---- waits ----------------------------------------------------------------------------- */

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
        if (g->guarded && (rc = guard(g, rel)) != MINTID_OK)
            return rc;
        if (rel >= target)
            return MINTID_OK;
        now_ns = mintid__monotonic_ns();
        if (now_ns >= *deadline)
            return MINTID_ETIMEDOUT;
        uint64_t left = *deadline - now_ns;
        /* A store shared with others is let go while asleep: they go on
         * meanwhile, and the caller looks at the state afresh. */
        doze(g);
        if (g->cfg.clock == mintid_clock_system) {
            mintid__sleep_until_ms(unit_start_ms(g, target), left);
        } else if ((target - rel) * g->unit_ms > 1) {
            /* A clock of the caller's, perhaps a virtual one that moves
             * when read: whole milliseconds asleep, the last one read. */
            uint64_t ns = (uint64_t)((target - rel) * g->unit_ms - 1) * 1000000u;
            mintid__sleep_ns(ns < left ? ns : left);
        }
        if ((rc = wake(g, held)) != MINTID_OK)
            return rc;
    }
}

/*
 * With the store's lock held, at the start of a call: while a bound kept
 * by another process (a live warrant of the host's mintidd) has not moved
 * past the next ID (a server idle a while), waits for it, the lock let go,
 * within max_wait_ms; past that the mint's own guard refuses with the
 * reason.
 */
static int bound_wait(mintid_gen *g, bool *held) {
    uint64_t deadline = 0;
    for (;;) {
        int64_t rel;
        int rc = read_rel(g, &rel);
        if (rc != MINTID_OK)
            return rc;
        int64_t unit = rel;
        if (g->at.core->started && (int64_t)g->at.core->last_ts >= unit)
            unit = (int64_t)g->at.core->last_ts + 1;
        if (!g->ops->bound_behind(g->store, unit_start_ms(g, unit) + g->unit_ms - 1))
            return MINTID_OK;
        uint64_t now_ns = mintid__monotonic_ns();
        if (deadline == 0)
            deadline = now_ns + (uint64_t)g->cfg.max_wait_ms * 1000000u;
        if (now_ns >= deadline)
            return MINTID_OK;
        doze(g);
        uint64_t left = deadline - now_ns;
        mintid__sleep_ns(left < 2000000u ? left : 2000000u);
        if ((rc = wake(g, held)) != MINTID_OK)
            return rc;
    }
}

/* ---- minting --------------------------------------------------------------------------- */

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
        if (!first && g->guarded && (rc = guard(g, *now)) != MINTID_OK)
            return rc;
        int64_t rel = *now;
        if (g->at.core->started && rel < (int64_t)g->at.core->last_ts && !rollback_seen && (fresh || !first)) {
            g->stats.rollbacks++;
            rollback_seen = true;
        }
        int64_t target;
        rc = mintid__core_drive(g->impl, &g->cfg, g->at.core, rel, &g->rng, out, value, &target);
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
    bool held = true; /* false: the store's lock was lost (see wake()) */
    if (gen->later == NULL && gen->ops->bound != NULL && gen->ops->bound(gen->store) &&
        (rc = bound_wait(gen, &held)) != MINTID_OK) {
        if (held)
            leave(gen);
        return rc;
    }
    uint64_t step = gen->step, last = *gen->at.last_value;
    bool unsaved = false; /* last is ahead of *gen->at.last_value */
    unsigned per_reading = n > 1 ? gen->cfg.ids_per_reading : 1, unread = 0;
    int64_t rel = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        bool fresh = unread == 0;
        if (fresh) {
            if ((rc = read_rel(gen, &rel)) != MINTID_OK)
                break;
            if (gen->guarded) {
                /* Every reading: the state may have moved since the last
                 * look, and a batch can take long (preempted). */
                mintid__core *before = gen->at.core;
                if ((rc = guard(gen, rel)) != MINTID_OK)
                    break;
                if (gen->at.core != before) {
                    /* Moved to another state: its last value, not the old one's. */
                    last = *gen->at.last_value;
                    unsaved = false;
                }
            }
            unread = per_reading;
        }
        unread--;
        if (step != 0 && gen->at.core->started && rel == (int64_t)gen->at.core->last_ts &&
            gen->at.core->st.seq < gen->seq_last && rel >= gen->at.core->floor) {
            gen->at.core->st.seq++;
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
        /* next_id may sleep without a shared store's lock: the state
         * others then see must hold the value its sequence says. */
        if (unsaved)
            *gen->at.last_value = last;
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
            *gen->at.last_value = last;
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

int mintid_gen_set_floor(mintid_gen *gen, int64_t unix_ms) {
    int rc = enter(gen);
    if (rc != MINTID_OK)
        return rc;
    /* The unit unix_ms is in, or the next one when it starts later. */
    int64_t rel = rel_at(gen, unix_ms);
    if (unit_start_ms(gen, rel) < unix_ms)
        rel++;
    mintid__core_raise_floor(gen->at.core, rel);
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
    out->last_unix_ms = gen->at.core->started ? unit_start_ms(gen, (int64_t)gen->at.core->last_ts) : -1;
    leave(gen);
}
