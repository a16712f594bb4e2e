/* SPDX-License-Identifier: MIT */
/*
 * store.h - the seam between the generator (generator.c) and the stores
 * that keep its state: the process's memory (store_process.c), the
 * host-wide file (host.c) and a caller's region (store_region.c).
 *
 * The generator owns every decision about minting: the clock, the random
 * pool, the policies and their bounded waits, mintid_gen_try_next_n()'s
 * "come back later", the counters, fork safety, and the rule that a
 * durable mark covers a unit before an ID of it leaves. A store owns only
 * its state: the lock around it, where the state is now (a host-wide
 * state may move to the path's new file), what it must see before a unit
 * is minted in (a warrant), and how a mark is made durable. The generator
 * reaches a store only through its table of operations, as a transport
 * reaches a protocol, so no store is named in generator.c and the stores
 * call the generator, never the other way.
 */
#ifndef MINTID_STORE_H
#define MINTID_STORE_H

#include "internal.h"

/*
 * Where the state is, as a store's where() gives it: valid while the lock
 * is held, and given anew after every taking of the lock and every look
 * where the state may move (a host-wide state's).
 */
typedef struct mintid__view {
    mintid__core *core;
    uint64_t *last_value; /* the last ID as a 64-bit value, once core->started (the generator's fast path) */
    const int64_t *mark;  /* the durable mark: no ID carries a time past it (Unix ms); INT64_MAX: none kept */
} mintid__view;

/* The part of every store the generator reads; a store's own struct begins with it. */
typedef struct mintid__store {
    const struct mintid__store_ops *ops;
} mintid__store;

/*
 * What a store does for the generator. Every operation but lock, close
 * (and a settled store's where) is called with the store's lock held.
 * Operations a store has no use for are NULL; the generator then skips
 * them (lock, unlock, where and close never are).
 */
typedef struct mintid__store_ops {
    /* A generator inherited by fork() goes on in the child (its random pool
     * renewed): the state and its lock are shared between processes.
     * False: it fails with MINTID_EFORKED. */
    bool survives_fork;
    /* A wait for the clock lets the lock go, so that the other holders go
     * on meanwhile (and the state is looked at afresh after it). */
    bool sleeps_unlocked;
    /* The state never moves: where() is asked once, when the generator is
     * made (without the lock), not after every taking of the lock. */
    bool settled;
    /* MINTID_OK with the lock taken, or a negative status with nothing
     * locked (MINTID_EBUSY: held by another, for a generator that never
     * waits). */
    int (*lock)(mintid__store *s);
    void (*unlock)(mintid__store *s);
    /* Where the state is now (*v): after every taking of the lock and every
     * look, unless the store is settled. */
    void (*where)(mintid__store *s, mintid__view *v);
    /*
     * Before minting at Unix ms now_ms (the start of the reading's unit):
     * whether the state is still the one to mint in, moving to the one
     * that replaced it if not (where() then says where). [*quiet_from,
     * *quiet_until) is the span of now_ms in which it need not be asked
     * again. On error the state held is still the one locked. NULL:
     * nothing to look at, ever.
     */
    int (*look)(mintid__store *s, int64_t now_ms, int64_t *quiet_from, int64_t *quiet_until);
    /*
     * Before an ID of the unit that ends at Unix ms end_ms leaves: MINTID_OK,
     * or why not (MINTID_EWARRANT). *lasting false: ask again for every ID
     * (a bound another process moves); true: the answer holds for the unit
     * until the lock is let go. NULL: always MINTID_OK, lasting.
     */
    int (*admit)(mintid__store *s, int64_t end_ms, bool *lasting);
    /* Raises the durable mark past unix_ms, MINTID_HOST_MARK_AHEAD_MS / 2
     * beyond it, durably, or fails with no ID past the old mark. NULL
     * where the view's mark is INT64_MAX. */
    int (*cover)(mintid__store *s, int64_t unix_ms);
    /* Whether a bound another process keeps applies now (a warrant): a
     * call that may wait then asks bound_behind(). NULL: never. */
    bool (*bound)(mintid__store *s);
    /* Whether that bound is behind end_ms and its holder will move it: the
     * call may wait a while, the lock let go, before minting. */
    bool (*bound_behind)(mintid__store *s, int64_t end_ms);
    /* Releases the store (not its state, which outlives it). */
    void (*close)(mintid__store *s);
} mintid__store_ops;

/* The mark a cover() writes for unix_ms: MINTID_HOST_MARK_AHEAD_MS / 2 beyond it, saturating. */
static inline int64_t mintid__store_mark_past(int64_t unix_ms) {
    return unix_ms > INT64_MAX - MINTID_HOST_MARK_AHEAD_MS ? INT64_MAX : unix_ms + MINTID_HOST_MARK_AHEAD_MS / 2;
}

/*
 * How a store is made for a new generator: the store's file hands these
 * to mintid__gen_new(), which calls them in order around its own checks.
 */
typedef struct mintid__store_maker {
    /* Before the configuration is checked: what the store settles in it
     * (node host: the host's mintidd's node id and epoch), or a refusal.
     * NULL: nothing. */
    int (*settle)(const mintid__format_impl *f, mintid_config *cfg, void *ctx);
    /* The store, for the checked configuration (its defaults filled in). */
    int (*open)(const mintid__format_impl *f, const mintid_config *cfg, void *ctx, mintid__store **out);
} mintid__store_maker;

/*
 * A generator of fmt with cfg (NULL: the format's defaults) over the store
 * that maker makes (ctx is its argument): the configuration settled and
 * checked, the store opened, the generator made around it. The store is
 * closed again if the generator cannot be made.
 */
int mintid__gen_new(const mintid_format *fmt, const mintid_config *cfg, const mintid__store_maker *maker, void *ctx,
                    mintid_gen **out);
/* The store a generator mints over: for a store's own functions on its generators (a warrant, a path). */
mintid__store *mintid__gen_store(const mintid_gen *gen);

#endif /* MINTID_STORE_H */
