/* SPDX-License-Identifier: MIT */
/*
 * core.c - the pure core: the next ID from a generator's state, a time and
 * the random bytes of a pool it is given (mintid_core_next), and its one
 * driver (refilling the pool, saying when a call can succeed). Nothing here
 * reads a clock, takes a lock, waits or keeps anything outside the state
 * and the pool: every generator drives it (a process's own, the host-wide
 * one in generator.c over host.c's state), and so do callers that keep the
 * state themselves (the PostgreSQL extension, in shared memory).
 *
 * The invariant everything here protects: the (timestamp, sequence) pair of
 * each ID is greater than the previous one's, so every ID is greater than
 * every ID before it, whatever the clock does. The state is only committed
 * once an ID is certain.
 */
#include "internal.h"

#include <string.h>

/* ---- random pools ---------------------------------------------------------------------- */

/*
 * Random bytes per refill of a pool: MINTID_POOL_BYTES. Per
 * byte, on the 2-core benchmark machine: getrandom() ~14 ns in 256-byte
 * blocks, ~6 in 1024, ~4.5 from 4096 up; libcrypto's RAND_bytes() ~22 ns at
 * 256 (a per-call cost), ~1.5 at 4096, ~0.8 at 16384. 16 KiB per
 * generator halves the cost of scru160's twelve fresh bytes per ID.
 */

void mintid_pool_init(mintid_pool *pool, mintid_random_fn fn, void *ctx) {
    pool->fn = fn;
    pool->ctx = ctx;
    pool->pos = MINTID_POOL_BYTES;
}

int mintid_pool_refill(mintid_pool *rng) {
    size_t keep = MINTID_POOL_BYTES - rng->pos;
    memmove(rng->buf, rng->buf + rng->pos, keep);
    int rc = rng->fn != NULL ? rng->fn(rng->ctx, rng->buf + keep, MINTID_POOL_BYTES - keep)
                             : mintid__random_bytes(rng->buf + keep, MINTID_POOL_BYTES - keep);
    if (rc != MINTID_OK) {
        memmove(rng->buf + rng->pos, rng->buf, keep);
        /* The source's own negative status goes back to the caller, but
         * never one the library keeps for itself. */
        return rc < 0 && rc != MINTID_ERANDOM && rc != MINTID_EHOST && rc != MINTID_EHOSTSTATE ? rc : MINTID_EENTROPY;
    }
    rng->pos = 0;
    return MINTID_OK;
}

int mintid__gen_random_bits(mintid_pool *rng, unsigned bits, uint64_t *out) {
    uint8_t b[8];
    unsigned nbytes = (bits + 7) / 8;
    int rc = mintid__gen_random(rng, b, nbytes);
    if (rc != MINTID_OK)
        return rc;
    uint64_t v = mintid__get_be(b, nbytes);
    *out = bits >= 64 ? v : v & ((UINT64_C(1) << bits) - 1);
    return MINTID_OK;
}

/* ---- configurations ---------------------------------------------------------------- */

void mintid_config_init(mintid_config *cfg, const mintid_format *fmt) {
    memset(cfg, 0, sizeof *cfg);
    cfg->epoch_ms = fmt->epoch_ms;
    cfg->node = -1;
    cfg->overflow = fmt->default_overflow;
    cfg->rollback = fmt->default_rollback;
    cfg->max_wait_ms = MINTID_DEFAULT_MAX_WAIT_MS;
    cfg->entropy_size = fmt->entropy_max != 0 ? 1 : 0;
    cfg->ids_per_reading = 1;
}

/* What a configuration must be for the core: node, epoch, policies, entropy size, ids per reading. */
int mintid__check_config(const mintid__format_impl *f, const mintid_config *cfg) {
    const mintid_format *fmt = &f->pub;
    if (cfg->node < -1)
        return MINTID_EINVAL;
    if (cfg->node >= 0 && (fmt->node_bits == 0 || (uint64_t)cfg->node >> fmt->node_bits != 0))
        return MINTID_EINVAL;
    if (!fmt->epoch_settable && cfg->epoch_ms != fmt->epoch_ms)
        return MINTID_EINVAL;
    if (cfg->epoch_ms < 0)
        return MINTID_EINVAL;
    if ((unsigned)cfg->overflow > MINTID_OVERFLOW_FAIL || (unsigned)cfg->rollback > MINTID_ROLLBACK_FAIL)
        return MINTID_EINVAL;
    if (fmt->entropy_max == 0 ? cfg->entropy_size != 0 : cfg->entropy_size < 1 || cfg->entropy_size > fmt->entropy_max)
        return MINTID_EINVAL;
    if (cfg->ids_per_reading > MINTID_MAX_IDS_PER_READING)
        return MINTID_EINVAL;
    return MINTID_OK;
}

/* ---- the sequence rules the formats share --------------------------------------------- */

static uint64_t seq_mask(const mintid__format_impl *f) { return (UINT64_C(1) << f->seq_width) - 1; }

int mintid__seq_begin_zero(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                           mintid__seq_state *st) {
    (void)f, (void)cfg, (void)rng;
    st->seq = 0;
    return MINTID_OK;
}

int mintid__seq_step_one(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                         mintid__seq_state *st) {
    (void)cfg, (void)rng;
    if (st->seq >= seq_mask(f))
        return MINTID_EEXHAUSTED;
    st->seq++;
    return MINTID_OK;
}

/*
 * uexky and caloriosa: their pages have the counter run on across milliseconds
 * rather than restart, so a new millisecond continues where the last one
 * left off. The millisecond then ends where the counter would wrap (step_one
 * refuses past the field's maximum): a wrap inside one millisecond would make
 * the next ID smaller than the last, and it would come back to the
 * millisecond's first value only after wrapping. Under sustained load every
 * millisecond after the first therefore starts at 0 and holds the full
 * capacity.
 */
int mintid__seq_begin_next(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                           mintid__seq_state *st) {
    (void)cfg, (void)rng;
    st->seq = (st->seq + 1) & seq_mask(f);
    return MINTID_OK;
}

/* ---- the core -------------------------------------------------------------------------- */

/* ---- the pure core ------------------------------------------------------------------- */

void mintid__core_init(const mintid__format_impl *f, mintid__core *core) {
    memset(core, 0, sizeof *core);
    core->st.seq = f->seq_init;
    core->floor = INT64_MIN;
}

/* The field rules: the next ID's parts. */
static inline __attribute__((always_inline)) int core_next_parts(const mintid__format_impl *f, const mintid_config *cfg,
                                                                 mintid__core *core, int64_t rel, mintid_pool *rng,
                                                                 mintid_parts *p) {
    const mintid__plan *pl = &f->plan;
    /* The per-ID random fields first: a failing random source then leaves
     * the state as it was. */
    int rc = MINTID_OK;
    p->node = pl->has_node && cfg->node >= 0 ? (uint64_t)cfg->node : 0;
    p->random = 0;
    if (pl->random_bits != 0) {
        /* scru160's optional node id lives in random16. */
        if (f->pub.node_optional && cfg->node >= 0)
            p->random = (uint64_t)cfg->node;
        else if (!f->random_per_ms)
            rc = mintid__gen_random_bits(rng, pl->random_bits, &p->random);
    }
    if (pl->has_random80 && rc == MINTID_OK)
        rc = mintid__gen_random(rng, p->random80, sizeof p->random80);
    else
        memset(p->random80, 0, sizeof p->random80);
    if (rc != MINTID_OK)
        return rc;
    mintid__seq_state st = core->st;
    uint64_t ts;
    int tick = mintid__core_tick(f, cfg, core, rel);
    if (tick < 0)
        return tick;
    if (tick == MINTID__TICK_NEW) {
        if ((rc = mintid__core_open_unit(f, core, tick, rel, &ts)) != MINTID_OK)
            return rc;
        /* The shared rules inline: nanoflake's and snowflake's hot path. */
        if (f->seq_begin == mintid__seq_begin_zero)
            st.seq = 0;
        else
            rc = f->seq_begin(f, cfg, rng, &st);
        if (rc == MINTID_OK && f->random_per_ms)
            rc = mintid__gen_random_bits(rng, pl->random_bits, &st.random);
    } else {
        /* The same millisecond, or (reuse) the clock behind: carry on in the last one. */
        if (f->seq_step == mintid__seq_step_one)
            rc = st.seq >= (UINT64_C(1) << f->seq_width) - 1 ? MINTID_EEXHAUSTED : (st.seq++, MINTID_OK);
        else
            rc = f->seq_step(f, cfg, rng, &st);
        ts = core->last_ts;
    }
    if (rc != MINTID_OK)
        return rc;
    core->started = true;
    core->last_ts = ts;
    core->st = st;
    p->timestamp = ts;
    p->sequence = st.seq;
    if (f->random_per_ms)
        p->random = st.random;
    return MINTID_OK;
}

int mintid__core_next(const mintid__format_impl *f, const mintid_config *cfg, mintid__core *core, int64_t rel,
                      mintid_pool *rng, mintid_id *out) {
    if (f->next != NULL)
        return f->next(f, cfg, core, rel, rng, out);
    mintid_parts p;
    int rc = core_next_parts(f, cfg, core, rel, rng, &p);
    if (rc == MINTID_OK)
        mintid__pack(&f->pub, &p, out);
    return rc;
}

/*
 * The core, into an ID or (64-bit formats without a next function of
 * their own) straight into a value, with the pool refilled when it runs
 * short: the bytes a short attempt drew go back first, so the ID gets the
 * bytes it would have got from a full pool. After a refill the pool holds
 * a whole block, more than any ID draws.
 */
static int core_mint(const mintid__format_impl *f, const mintid_config *cfg, mintid__core *core, int64_t rel,
                     mintid_pool *rng, mintid_id *out, uint64_t *value) {
    for (int refilled = 0;; refilled = 1) {
        size_t pos = rng->pos;
        int rc;
        if (value != NULL && f->next == NULL) {
            /* A 64-bit value straight from the parts, never through bytes. */
            mintid_parts p;
            rc = core_next_parts(f, cfg, core, rel, rng, &p);
            if (rc == MINTID_OK)
                *value = mintid__pack_u64(&f->pub, &p);
        } else {
            rc = mintid__core_next(f, cfg, core, rel, rng, out);
            if (rc == MINTID_OK && value != NULL)
                *value = mintid_id_to_u64(out);
        }
        if (rc != MINTID_ERANDOM)
            return rc;
        rng->pos = pos;
        if (refilled)
            return MINTID_EENTROPY; /* not reached: no ID draws a whole block */
        if ((rc = mintid_pool_refill(rng)) != MINTID_OK)
            return rc;
    }
}

/*
 * The driver: core_mint(), and where it cannot mint at rel, the earliest
 * unit at which it can (*retry): the next unit after a used-up one (or the
 * floor), the last ID's unit when the clock is behind it. Every generator
 * (process, host-wide) and every caller of mintid_core_mint() goes through
 * here; what to do until then is theirs.
 */
int mintid__core_drive(const mintid__format_impl *f, const mintid_config *cfg, mintid__core *core, int64_t rel,
                       mintid_pool *rng, mintid_id *out, uint64_t *value, int64_t *retry) {
    int rc = core_mint(f, cfg, core, rel, rng, out, value);
    if (rc == MINTID_EEXHAUSTED)
        *retry = mintid__core_next_unit(core);
    else if (rc == MINTID_ECLOCKBACK)
        *retry = core->floor > (int64_t)core->last_ts ? core->floor : (int64_t)core->last_ts;
    return rc;
}

/* ---- the core and its driver, public --------------------------------------------- */

static mintid__core *core_of(mintid_core *core) { return (mintid__core *)(void *)core; }

/* Timestamp units of cfg's epoch; Unix ms to units after it and back. */
static int64_t epoch_units_of(const mintid_format *fmt, const mintid_config *cfg) {
    return mintid__floor_div(cfg->epoch_ms, fmt->ts_unit_ms);
}
static int64_t rel_of(const mintid_format *fmt, const mintid_config *cfg, int64_t unix_ms) {
    return mintid__floor_div(unix_ms, fmt->ts_unit_ms) - epoch_units_of(fmt, cfg);
}
static int64_t ms_of(const mintid_format *fmt, const mintid_config *cfg, int64_t rel) {
    return (epoch_units_of(fmt, cfg) + rel) * fmt->ts_unit_ms;
}

void mintid_core_init(const mintid_format *fmt, mintid_core *core) {
    memset(core, 0, sizeof *core);
    mintid__core_init(mintid__impl(fmt), core_of(core));
}

int mintid_core_next(const mintid_format *fmt, const mintid_config *cfg, mintid_core *core, int64_t unix_ms,
                     mintid_pool *pool, mintid_id *out) {
    int rc = mintid__check_config(mintid__impl(fmt), cfg);
    if (rc != MINTID_OK)
        return rc;
    return mintid__core_next(mintid__impl(fmt), cfg, core_of(core), rel_of(fmt, cfg, unix_ms), pool, out);
}

int mintid_core_mint(const mintid_format *fmt, const mintid_config *cfg, mintid_core *core, int64_t unix_ms,
                     mintid_pool *pool, mintid_id *out, int64_t *retry_ms) {
    int64_t retry;
    int rc = mintid__check_config(mintid__impl(fmt), cfg);
    if (rc != MINTID_OK)
        return rc;
    rc = mintid__core_drive(mintid__impl(fmt), cfg, core_of(core), rel_of(fmt, cfg, unix_ms), pool, out, NULL, &retry);
    if ((rc == MINTID_EEXHAUSTED || rc == MINTID_ECLOCKBACK) && retry_ms != NULL)
        *retry_ms = ms_of(fmt, cfg, retry);
    return rc;
}

void mintid_core_set_floor(const mintid_format *fmt, const mintid_config *cfg, mintid_core *core, int64_t unix_ms) {
    /* The unit unix_ms is in, or the next one when it starts later. */
    int64_t rel = rel_of(fmt, cfg, unix_ms);
    if (ms_of(fmt, cfg, rel) < unix_ms)
        rel++;
    mintid__core_raise_floor(core_of(core), rel);
}

int64_t mintid_core_last_ms(const mintid_format *fmt, const mintid_config *cfg, const mintid_core *core) {
    const mintid__core *c = (const mintid__core *)(const void *)core;
    return c->started ? ms_of(fmt, cfg, (int64_t)c->last_ts) : -1;
}
