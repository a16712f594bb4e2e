/* SPDX-License-Identifier: MIT */
/*
 * store_region.c - the store of a region generator
 * (mintid_gen_new_region()): its state in memory the caller owns, under
 * the caller's lock, with the caller's durable mark if it keeps one. The
 * state records what it was set up for (format, node id, epoch), as a
 * host-wide state's file name does, so that generators of another ID space
 * cannot mint in it; the rest is the core and the mark, plain data, so
 * that processes may map it at different addresses.
 */
#include "store.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REGION_MAGIC "mintid-region"
#define REGION_VERSION 1u

/* The state, in the caller's mintid_region_state. Everything after `epoch_ms` is read and written under the lock. */
struct region_state {
    char magic[16];
    uint32_t version;
    uint32_t size; /* sizeof(struct region_state): a build that lays it out otherwise refuses it */
    uint32_t format;
    uint32_t ts_unit_ms;
    int64_t node;     /* as it mints: -1 where the format has no (or an optional) node field */
    int64_t epoch_ms; /* in whole timestamp units */
    int64_t mark_ms; /* the durable mark as the caller's mark() last made it, or the floor (Unix ms); INT64_MIN: none */
    mintid__core core;
    uint64_t last_value;
};
_Static_assert(sizeof(struct region_state) <= sizeof(mintid_region_state), "mintid_region_state is too small");
_Static_assert(_Alignof(struct region_state) <= _Alignof(mintid_region_state),
               "mintid_region_state is aligned too loosely");

typedef struct region_store {
    mintid__store base;
    struct region_state *st;
    int (*lock)(void *ctx);
    void (*unlock)(void *ctx);
    int (*mark)(void *ctx, int64_t unix_ms);
    void *ctx;
} region_store;

static const int64_t no_mark = INT64_MAX;

static struct region_state *state_of(mintid_region_state *state) { return (struct region_state *)(void *)state; }

/* The node id and epoch a state records for fmt and cfg: what the IDs carry. */
static int64_t key_node(const mintid_format *fmt, const mintid_config *cfg) {
    return fmt->node_bits > 0 && !fmt->node_optional ? (cfg->node < 0 ? 0 : cfg->node) : -1;
}
static int64_t key_epoch(const mintid_format *fmt, const mintid_config *cfg) {
    return mintid__floor_div(cfg->epoch_ms, fmt->ts_unit_ms) * fmt->ts_unit_ms;
}

void mintid_region_init(mintid_region *region) {
    memset(region, 0, sizeof *region);
    region->size = sizeof *region;
}

int mintid_region_state_init(mintid_region_state *state, const mintid_format *fmt, const mintid_config *cfg,
                             int64_t floor_ms) {
    if (state == NULL || fmt == NULL)
        return MINTID_EINVAL;
    const mintid__format_impl *f = mintid__impl(fmt);
    mintid_config c;
    if (cfg != NULL)
        c = *cfg;
    else
        mintid_config_init(&c, fmt);
    int rc = mintid__check_config(f, &c);
    if (rc != MINTID_OK)
        return rc;
    memset(state, 0, sizeof *state);
    struct region_state *st = state_of(state);
    memcpy(st->magic, REGION_MAGIC, sizeof REGION_MAGIC);
    st->version = REGION_VERSION;
    st->size = (uint32_t)sizeof *st;
    st->format = (uint32_t)fmt->id;
    st->ts_unit_ms = fmt->ts_unit_ms;
    st->node = key_node(fmt, &c);
    st->epoch_ms = key_epoch(fmt, &c);
    /* The floor given after a restart is the mark the caller made durable: the next one is raised from it, never
     * below it (a mark written lower, and a crash before an ID, would lose the IDs under the old one). */
    st->mark_ms = floor_ms;
    mintid__core_init(f, &st->core);
    if (floor_ms != INT64_MIN)
        mintid_core_set_floor(fmt, &c, (mintid_core *)(void *)&st->core, floor_ms);
    return MINTID_OK;
}

/* ---- the store ------------------------------------------------------------------------ */

static int region_lock(mintid__store *s) {
    region_store *r = (region_store *)s;
    int rc = r->lock(r->ctx);
    if (rc == MINTID_REGION_RECOVERED) {
        /* Its last holder died holding it, perhaps half way through
         * writing the state: no ID of its last call left it, and every
         * ID before lies in a unit at or before the recorded last one. */
        mintid__core_raise_floor(&r->st->core, mintid__core_next_unit(&r->st->core));
        return MINTID_OK;
    }
    return rc <= 0 ? rc : MINTID_EINVAL;
}

/* The state stays where the caller put it. */
static void region_where(mintid__store *s, mintid__view *v) {
    region_store *r = (region_store *)s;
    v->core = &r->st->core;
    v->last_value = &r->st->last_value;
    v->mark = r->mark != NULL ? &r->st->mark_ms : &no_mark;
}

static void region_unlock(mintid__store *s) {
    region_store *r = (region_store *)s;
    r->unlock(r->ctx);
}

static int region_cover(mintid__store *s, int64_t unix_ms) {
    region_store *r = (region_store *)s;
    int64_t mark = mintid__store_mark_past(unix_ms);
    int rc = r->mark(r->ctx, mark);
    if (rc != MINTID_OK)
        return rc < 0 ? rc : MINTID_EINVAL; /* not durable: no ID may count on it */
    r->st->mark_ms = mark;
    return MINTID_OK;
}

static void region_close(mintid__store *s) { free(s); }

/* Four tables: with a durable mark or without, shared with forked children or not. */
static const mintid__store_ops region_ops = {
    .settled = true,
    .lock = region_lock,
    .unlock = region_unlock,
    .where = region_where,
    .close = region_close,
    .sleeps_unlocked = true,
};
static const mintid__store_ops region_ops_marked = {
    .settled = true,
    .lock = region_lock,
    .unlock = region_unlock,
    .where = region_where,
    .cover = region_cover,
    .close = region_close,
    .sleeps_unlocked = true,
};
static const mintid__store_ops region_ops_shared = {
    .settled = true,
    .lock = region_lock,
    .unlock = region_unlock,
    .where = region_where,
    .close = region_close,
    .sleeps_unlocked = true,
    .survives_fork = true,
};
static const mintid__store_ops region_ops_shared_marked = {
    .settled = true,
    .lock = region_lock,
    .unlock = region_unlock,
    .where = region_where,
    .cover = region_cover,
    .close = region_close,
    .sleeps_unlocked = true,
    .survives_fork = true,
};

/* The region's own arguments, before the configuration is checked: each refusal says which. */
static int region_settle(const mintid__format_impl *f, mintid_config *cfg, void *ctx) {
    (void)f, (void)cfg;
    const mintid_region *region = ctx;
    if (region == NULL)
        return mintid__gen_refuse("no region given (mintid_gen_new_region() needs one)");
    /* No smaller struct was ever published: a smaller size is a region never set with mintid_region_init(). */
    if (region->size < sizeof *region)
        return mintid__gen_refuse("the region's size is %zu, not %zu: set it with mintid_region_init() before its "
                                  "fields",
                                  region->size, sizeof *region);
    if (region->state == NULL)
        return mintid__gen_refuse("the region has no state (its state is NULL)");
    if ((uintptr_t)region->state % _Alignof(mintid_region_state) != 0)
        return mintid__gen_refuse("the region's state at %p is not aligned to %zu bytes, as a mintid_region_state "
                                  "must be",
                                  (void *)region->state, _Alignof(mintid_region_state));
    if (region->lock == NULL || region->unlock == NULL)
        return mintid__gen_refuse("the region has %s: a region's state is used only under its lock",
                                  region->lock == NULL && region->unlock == NULL ? "no lock and no unlock"
                                  : region->lock == NULL                         ? "an unlock but no lock"
                                                                                 : "a lock but no unlock");
    return MINTID_OK;
}

static int region_open(const mintid__format_impl *f, const mintid_config *cfg, void *ctx, mintid__store **out) {
    const mintid_region *region = ctx;
    const mintid_format *fmt = &f->pub;
    const struct region_state *st = state_of(region->state);
    /* What it was set up for is written once, before any generator: read without the lock. */
    if (memcmp(st->magic, REGION_MAGIC, sizeof REGION_MAGIC) != 0 || st->version != REGION_VERSION ||
        st->size != sizeof *st)
        return mintid__gen_refuse("the region's state was not set up by mintid_region_state_init() of this "
                                  "library (or was written over since)");
    const mintid_format *was = mintid_format_get((mintid_format_id)st->format);
    if (st->format != (uint32_t)fmt->id || st->ts_unit_ms != fmt->ts_unit_ms)
        return mintid__gen_refuse("the region's state holds %s IDs, not %s: one state holds one sequence",
                                  was != NULL ? was->name : "another format's", fmt->name);
    int64_t node = key_node(fmt, cfg), epoch = key_epoch(fmt, cfg);
    if (st->node != node)
        return mintid__gen_refuse("the region's state holds the IDs of node %" PRId64 ", not node %" PRId64
                                  ": one state holds one sequence",
                                  st->node, node);
    if (st->epoch_ms != epoch) {
        char had[MINTID_TIME_MAX], want[MINTID_TIME_MAX];
        if (mintid_format_time(st->epoch_ms, had, sizeof had) < 0)
            snprintf(had, sizeof had, "%" PRId64, st->epoch_ms);
        if (mintid_format_time(epoch, want, sizeof want) < 0)
            snprintf(want, sizeof want, "%" PRId64, epoch);
        return mintid__gen_refuse("the region's state holds IDs counted from the epoch %s, not %s: one state holds "
                                  "one sequence",
                                  had, want);
    }
    region_store *r = calloc(1, sizeof *r);
    if (r == NULL)
        return MINTID_ENOMEM;
    r->base.ops = region->shared ? (region->mark != NULL ? &region_ops_shared_marked : &region_ops_shared)
                                 : (region->mark != NULL ? &region_ops_marked : &region_ops);
    r->st = state_of(region->state);
    r->lock = region->lock;
    r->unlock = region->unlock;
    r->mark = region->mark;
    r->ctx = region->ctx;
    *out = &r->base;
    return MINTID_OK;
}

int mintid_gen_new_region(const mintid_format *fmt, const mintid_config *cfg, const mintid_region *region,
                          mintid_gen **out) {
    static const mintid__store_maker maker = {.settle = region_settle, .open = region_open};
    return mintid__gen_new(fmt, cfg, &maker, (void *)region, out); /* read only */
}
