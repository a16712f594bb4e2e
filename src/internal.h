/*
 * internal.h - what the library's files share and the public header hides.
 */
#ifndef MINTID_INTERNAL_H
#define MINTID_INTERNAL_H

#include "mintid.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- codecs (codec.c) ---------------------------------------------------- */

/*
 * A text form of a format: encode writes the text and its NUL and returns the
 * length or a negative status; decode parses exactly `len` bytes. Decoders
 * check length first (MINTID_ELENGTH), then every character
 * (MINTID_ECHAR), then the value (MINTID_EOVERFLOW), so the status says what
 * is wrong in that order of precedence.
 */
typedef struct mintid__codec {
    int (*encode)(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap);
    int (*decode)(const mintid_format *fmt, const char *s, size_t len, mintid_id *out);
} mintid__codec;

/* Forms the formats share: decimal (64-bit), fixed-width hex, and the UUID string (128-bit). */
extern const mintid__codec mintid__codec_int;
extern const mintid__codec mintid__codec_hex;
extern const mintid__codec mintid__codec_uuid;

/*
 * An alphabet: the digit of each value, and the value of each byte, built
 * from the digits (never written beside them by hand) when the library is
 * loaded. With nocase, a letter of the other case has the same value; an
 * alphabet that holds both cases of a letter cannot be nocase.
 */
#define MINTID__PAIRS_MAX 4096 /* base^2 for bases up to 64 */
typedef struct mintid__alphabet {
    const char *digits;
    bool nocase;
    uint8_t values[256];              /* 0xff: not a digit */
    char pairs[MINTID__PAIRS_MAX][2]; /* the two digits of every value below base^2 */
} mintid__alphabet;

#define MINTID__ALPHABET(digits, nocase)                                                                               \
    {                                                                                                                  \
        (digits), (nocase), {0}, {                                                                                     \
            { 0 }                                                                                                      \
        }                                                                                                              \
    }

/* Fills a->values from a->digits. */
void mintid__alphabet_build(mintid__alphabet *a);

/* Builds a file's alphabets when the library is loaded, before any call into it. */
#define MINTID__BUILD_ALPHABETS(...)                                                                                   \
    __attribute__((constructor)) static void build_alphabets(void) {                                                   \
        mintid__alphabet *all[] = {__VA_ARGS__};                                                                       \
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)                                                        \
            mintid__alphabet_build(all[i]);                                                                            \
    }

/* The value of character c in alphabet a; 0xff if it is not a digit. */
static inline uint8_t mintid__digit_value(const mintid__alphabet *a, unsigned char c) { return a->values[c]; }

/*
 * Base-N text of a 64-bit value, most significant digit first. Inline, so
 * that each caller's constant base turns the divisions into multiplications:
 * encoding is on the hot path of every interface.
 */
static inline int mintid__u64_to_base(uint64_t v, const mintid__alphabet *a, unsigned base, unsigned min_digits,
                                      char *buf, size_t cap) {
    char tmp[64];
    char *p = tmp + sizeof tmp; /* the digits are written backwards, ending here */
    /*
     * Two digits per division, from the alphabet's pair table. The value is
     * cut from its low end into chunks of `pairs` digit pairs that fit in 32
     * bits (base^8 for base 10, base^6 up to base 40, base^4 above), whose
     * digits come from 32-bit divisions; the chunks' own chains run side by
     * side rather than as one long chain of 64-bit divisions. With the
     * caller's constant base, every divisor here is a constant.
     */
    const uint32_t b2 = base * base;
    const unsigned pairs = base <= 10 ? 4 : base <= 40 ? 3 : 2;
    const uint32_t chunk = pairs == 4 ? b2 * b2 * b2 * b2 : pairs == 3 ? b2 * b2 * b2 : b2 * b2;
    while (v >= chunk) {
        uint32_t lo = (uint32_t)(v % chunk);
        v /= chunk;
        for (unsigned i = 0; i < pairs; i++) {
            p -= 2;
            __builtin_memcpy(p, a->pairs[lo % b2], 2);
            lo /= b2;
        }
    }
    /* Below one chunk: below 2^32. */
    uint32_t w = (uint32_t)v;
    while (w >= b2) {
        p -= 2;
        __builtin_memcpy(p, a->pairs[w % b2], 2);
        w /= b2;
    }
    *--p = a->digits[w % base];
    if (w >= base)
        *--p = a->digits[w / base];
    while (p > tmp + sizeof tmp - min_digits)
        *--p = a->digits[0];
    size_t n = (size_t)(tmp + sizeof tmp - p);
    if (cap < n + 1)
        return MINTID_EBUFSIZE;
    __builtin_memcpy(buf, p, n);
    buf[n] = '\0';
    return (int)n;
}
/* Parses len base-N digits into *v; MINTID_ECHAR or MINTID_EOVERFLOW (> 2^64-1). */
int mintid__base_to_u64(const char *s, size_t len, const mintid__alphabet *a, unsigned base, uint64_t *v);
/* Writes the decimal text of an unsigned big-endian number of n bytes. */
int mintid__bytes_to_decimal(const uint8_t *be, size_t n, char *buf, size_t cap);
/*
 * Base-N text of a big-endian number of n bytes (n <= 20) in exactly
 * `ndigits` digits, leading zeros included, with the NUL (buf holds
 * ndigits + 1). The caller makes sure ndigits is enough.
 */
void mintid__bytes_to_base(const uint8_t *be, size_t n, const mintid__alphabet *a, unsigned base, unsigned ndigits,
                           char *buf);
/* Parses len base-N digits into n big-endian bytes: MINTID_ECHAR, or MINTID_EOVERFLOW past 2^(8n) - 1. */
int mintid__base_to_bytes(const char *s, size_t len, const mintid__alphabet *a, unsigned base, uint8_t *be, size_t n);
/*
 * Base 32 of a 128-bit ID in 26 digits, five bits each, the first carrying
 * the top 3 bits (ulid, typeid): the text codec of both, given the
 * alphabet. The encoder returns 26, or MINTID_EBUFSIZE when out cannot
 * hold 27 bytes. The decoder checks length and characters, gives
 * MINTID_EOVERFLOW when the first digit is above 7, and writes *out only
 * on success.
 */
int mintid__b32_128_encode(const mintid_id *id, const mintid__alphabet *a, char *out, size_t cap);
int mintid__b32_128_decode(const char *s, size_t len, const mintid__alphabet *a, mintid_id *out);

/* ---- formats (format.c and one file per format in formats/) ------------- */

/*
 * The per-millisecond sequence rule of a format, used by the generator.
 * begin() gives the sequence of the first ID in a new millisecond; step()
 * gives the next one within the same millisecond or returns
 * MINTID_EEXHAUSTED. Both work on a copy of the state, so a failed call
 * leaves the generator unchanged.
 */
typedef struct mintid__seq_state {
    uint64_t seq;    /* the sequence field of the last ID */
    uint64_t random; /* the millisecond's random field, where it is per millisecond */
    uint64_t aux;    /* what else a format's own generator keeps (scru128's counter_hi time) */
} mintid__seq_state;

struct mintid__format_impl;
struct mintid__core;
typedef int (*mintid__seq_fn)(const struct mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                              mintid__seq_state *st);

/*
 * The random bytes the pure core draws from: a pool (mintid_pool) its
 * caller fills. The core never fills it and calls no random source: an ID
 * that needs more bytes than are left gets MINTID_ERANDOM, its state as it
 * was, and the caller refills the pool (mintid_pool_refill: the bytes not
 * yet drawn are kept in front, so the bytes IDs get are the same however
 * the refills fall) and asks again.
 */

/*
 * Draws len random bytes from the pool. Inline, so that the formats' small
 * constant draws (4 or 10 bytes) are a few moves.
 */
static inline int mintid__gen_random(mintid_pool *rng, void *buf, size_t len) {
    if (__builtin_expect(MINTID_POOL_BYTES - rng->pos >= len, 1)) {
        __builtin_memcpy(buf, rng->buf + rng->pos, len);
        rng->pos += len;
        return MINTID_OK;
    }
    return MINTID_ERANDOM;
}
/* A uniformly random value of `bits` bits (bits <= 64). */
int mintid__gen_random_bits(mintid_pool *rng, unsigned bits, uint64_t *out);

/* Everything about a format: the public description plus its behaviour. */
typedef struct mintid__format_impl {
    mintid_format pub;
    uint64_t timestamp_min;                         /* smallest timestamp a generator may issue */
    uint64_t timestamp_max;                         /* largest timestamp a generator may issue */
    uint64_t seq_init;                              /* sequence state before the first ID */
    const mintid__codec *codecs[MINTID_FORM_COUNT]; /* NULL where the form is absent */
    /* Order in which MINTID_FORM_ANY tries forms; MINTID_FORM_ANY ends it. */
    mintid_form any_order[MINTID_FORM_COUNT + 1];
    unsigned guess_forms;                                        /* MINTID_FORM_BIT()s that mintid_guess() recognises */
    int (*check)(const mintid_format *fmt, const mintid_id *id); /* NULL: always valid */
    uint8_t seq_width;                                           /* width of the sequence field */
    /* 1 if the random field sits above the sequence: it is then drawn once
     * per millisecond, so that IDs within the millisecond still increase. */
    uint8_t random_per_ms;
    mintid__seq_fn seq_begin;
    mintid__seq_fn seq_step;
    /*
     * A format whose generator does not fit the field rules above writes
     * the next ID itself, with the contract of mintid__core_next(). NULL:
     * the rules above.
     */
    int (*next)(const struct mintid__format_impl *f, const mintid_config *cfg, struct mintid__core *core, int64_t rel,
                mintid_pool *rng, mintid_id *out);
    /* Whether the ID carries a time (typeid: only UUIDv7 suffixes do). NULL: always. */
    bool (*has_time)(const mintid_id *id);
    /* 1 if decoders accept any value of the constant fields (typeid decodes
     * every UUID; its generator still writes the constants). */
    uint8_t constants_advisory;
    /* 1 if decoders refuse what mintid_id_check() refuses (MINTID_EINVALID):
     * a UUID of another version is no uuidv7 at all. */
    uint8_t decode_checks;
    /* Type prefixes (pub.prefix_max > 0): the separator before the suffix,
     * and the check of a prefix of 1..prefix_max bytes. */
    char prefix_sep;
    int (*prefix_check)(const char *prefix, size_t len);
} mintid__format_impl;

extern const mintid__format_impl mintid__uexky;
extern const mintid__format_impl mintid__scru160;
extern const mintid__format_impl mintid__ulid_flake;
extern const mintid__format_impl mintid__ulid_flake_scalable;
extern const mintid__format_impl mintid__caloriosa;
extern const mintid__format_impl mintid__nanoflake;
extern const mintid__format_impl mintid__uuidv7;
extern const mintid__format_impl mintid__ulid;
extern const mintid__format_impl mintid__scru128;
extern const mintid__format_impl mintid__snowflake;
extern const mintid__format_impl mintid__sonyflake;
extern const mintid__format_impl mintid__ksuid;
extern const mintid__format_impl mintid__typeid;

/* The impl behind a public format pointer (they are the same object). */
static inline const mintid__format_impl *mintid__impl(const mintid_format *fmt) {
    return (const mintid__format_impl *)(const void *)fmt;
}

/*
 * The generator's pure core: the state of one generator, and the next ID's
 * fields from it, a time and a random source, with no clock, lock or wait
 * inside. The thread-safe generator (generator.c) wraps it; so can any
 * caller that keeps the state itself (a server's event loop, shared memory).
 */
typedef struct mintid__core {
    bool started;         /* false until the first ID */
    uint64_t last_ts;     /* timestamp field of the last ID */
    mintid__seq_state st; /* sequence (and per-ms random) of the last ID */
    int64_t floor;        /* no ID in a unit before this one (INT64_MIN: none): a host-wide
                             state's after a holder died, or when it is new or moved to */
} mintid__core;
/* The public mintid_core holds one. */
_Static_assert(sizeof(mintid__core) <= sizeof(mintid_core), "mintid_core is too small for the core's state");
_Static_assert(_Alignof(mintid__core) <= _Alignof(mintid_core), "mintid_core is aligned too loosely");

void mintid__core_init(const mintid__format_impl *f, mintid__core *core);

/*
 * The ID after core's last one, at `rel` timestamp units (ms, but for
 * sonyflake and ksuid) after the epoch, drawing from rng. MINTID_OK: *out
 * is written and the state advanced. Else
 * the state is unchanged: MINTID_EEXHAUSTED (the last millisecond is used
 * up: call again with a later rel), MINTID_ECLOCKBACK (rel is before the
 * last ID's millisecond and the rollback policy is not reuse), MINTID_ETIME
 * (rel out of the format's range), or MINTID_ERANDOM (the pool holds
 * too few random bytes). No clock, lock or random source is inside: the
 * time is rel and the randomness the pool's bytes.
 */
int mintid__core_next(const mintid__format_impl *f, const mintid_config *cfg, mintid__core *core, int64_t rel,
                      mintid_pool *rng, mintid_id *out);

/*
 * Where `rel` stands against core's last ID: a later unit, the same one
 * (or behind it, absorbed by the reuse policy within the format's
 * allowance), or MINTID_ECLOCKBACK.
 */
enum { MINTID__TICK_NEW = 1, MINTID__TICK_SAME = 2 };
static inline int mintid__core_tick(const mintid__format_impl *f, const mintid_config *cfg, const mintid__core *core,
                                    int64_t rel) {
    int tick;
    if (!core->started || rel > (int64_t)core->last_ts) {
        tick = MINTID__TICK_NEW;
    } else if (rel == (int64_t)core->last_ts) {
        tick = MINTID__TICK_SAME;
    } else {
        if (cfg->rollback != MINTID_ROLLBACK_REUSE)
            return MINTID_ECLOCKBACK;
        uint64_t behind = (uint64_t)((int64_t)core->last_ts - rel);
        if (f->pub.rollback_allowance_ms != 0 && behind > f->pub.rollback_allowance_ms / f->pub.ts_unit_ms)
            return MINTID_ECLOCKBACK;
        tick = MINTID__TICK_SAME;
    }
    /* Below the floor, the unit the ID would carry is as good as used up. */
    if ((tick == MINTID__TICK_NEW ? rel : (int64_t)core->last_ts) < core->floor)
        return MINTID_EEXHAUSTED;
    return tick;
}

/* The earliest unit in which the core can mint again after MINTID_EEXHAUSTED. */
static inline int64_t mintid__core_next_unit(const mintid__core *core) {
    int64_t after = core->started ? (int64_t)core->last_ts + 1 : INT64_MIN;
    return after > core->floor ? after : core->floor;
}

/*
 * The timestamp of the unit the next ID opens: rel, for a later unit (tick
 * MINTID__TICK_NEW); else the unit after the last ID's, when its counter is
 * used up and the ID runs ahead of the clock. MINTID_OK, or MINTID_ETIME
 * outside the format's timestamps.
 */
static inline int mintid__core_open_unit(const mintid__format_impl *f, const mintid__core *core, int tick, int64_t rel,
                                         uint64_t *ts) {
    if (tick == MINTID__TICK_NEW) {
        if (rel < (int64_t)f->timestamp_min || rel > (int64_t)f->timestamp_max)
            return MINTID_ETIME;
        *ts = (uint64_t)rel;
    } else {
        if (core->last_ts >= f->timestamp_max)
            return MINTID_ETIME;
        *ts = core->last_ts + 1;
    }
    return MINTID_OK;
}

/* a / b rounded down (b > 0): the unit a time before 1970 or an epoch falls in. */
static inline int64_t mintid__floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/* Big-endian loads and stores of up to eight bytes; eight and four (with
 * the caller's constant count) are one load or store each. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define MINTID__BE64(v) __builtin_bswap64(v)
#define MINTID__BE32(v) __builtin_bswap32(v)
#else
#define MINTID__BE64(v) (v)
#define MINTID__BE32(v) (v)
#endif
static inline void mintid__put_be(uint8_t *b, unsigned nbytes, uint64_t v) {
    if (nbytes == 8) {
        v = MINTID__BE64(v);
        __builtin_memcpy(b, &v, 8);
        return;
    }
    for (unsigned i = nbytes; i-- > 0; v >>= 8)
        b[i] = (uint8_t)v;
}
static inline uint64_t mintid__get_be(const uint8_t *b, unsigned nbytes) {
    if (nbytes == 8) {
        uint64_t v;
        __builtin_memcpy(&v, b, 8);
        return MINTID__BE64(v);
    }
    if (nbytes == 4) {
        uint32_t v;
        __builtin_memcpy(&v, b, 4);
        return MINTID__BE32(v);
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < nbytes; i++)
        v = v << 8 | b[i];
    return v;
}

/* The shared UUIDv7 generator (uuidv7, typeid). */
int mintid__uuidv7_next(const mintid__format_impl *f, const mintid_config *cfg, mintid__core *core, int64_t rel,
                        mintid_pool *rng, mintid_id *out);

/* The field of `width` <= 64 bits at bit `off` of a big-endian byte string. */
uint64_t mintid__get_bits(const uint8_t *b, unsigned off, unsigned width);
/* Any field, right-aligned into nbytes big-endian bytes (nbytes * 8 >= width). */
void mintid__get_wide(const uint8_t *b, unsigned off, unsigned width, uint8_t *out, size_t nbytes);

/*
 * A format's layout as the generator's hot path needs it, worked out from
 * its field table once, when the library is loaded: where each part goes
 * in a 64-bit value, the constant bits, and which per-ID parts it has.
 */
typedef struct mintid__plan {
    uint64_t base;    /* the constant fields, in place (64-bit formats) */
    uint8_t ts_shift; /* shifts of the parts in a 64-bit value (0 where absent: the part is 0) */
    uint8_t seq_shift;
    uint8_t node_shift;
    uint8_t random_shift;
    uint8_t random_bits; /* width of the per-ID random field; 0: none */
    bool has_node;
    bool has_random80;
} mintid__plan;
extern mintid__plan mintid__plans[MINTID_FORMAT_COUNT];
/* Builds mintid__plans if it is not yet (a pthread_once). */
void mintid__plans_init(void);

/* Fast packing from parts whose fields are known to fit (the generator's). */
static inline uint64_t mintid__pack_u64(const mintid_format *fmt, const mintid_parts *p) {
    const mintid__plan *pl = &mintid__plans[fmt->id];
    return pl->base | p->timestamp << pl->ts_shift | p->sequence << pl->seq_shift | p->node << pl->node_shift |
           p->random << pl->random_shift;
}
void mintid__pack(const mintid_format *fmt, const mintid_parts *p, mintid_id *out);

/* Shared sequence rules (format.c). */
int mintid__seq_begin_zero(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                           mintid__seq_state *st);
/* +1 per ID; runs out past the field's maximum (nanoflake, scru160). */
int mintid__seq_step_one(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                         mintid__seq_state *st);
/* A new millisecond continues the counter, wrapping around its field (uexky, caloriosa). */
int mintid__seq_begin_next(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                           mintid__seq_state *st);

/* ---- the host-wide state (host.c) ---------------------------------------- */

/*
 * A host-wide generator's view of its shared state: opened for a format and
 * its parameters, locked around every use. The core and the last value it
 * hands out are valid only while it is locked (a lock may move it to the
 * path's new state, see host.c).
 */
struct mintid__host;
int mintid__host_open(const mintid__format_impl *f, const mintid_config *cfg, const char *dir,
                      struct mintid__host **out);
void mintid__host_close(struct mintid__host *h);
/*
 * MINTID_OK with the current state locked (moved to the path's, if the
 * one held was replaced), or an error (MINTID_EHOST with errno,
 * MINTID_EHOSTSTATE, MINTID_ETIMEDOUT: a holder that does not let go)
 * with nothing locked.
 */
int mintid__host_lock(struct mintid__host *h);
/*
 * With the lock held, before minting at the clock's `now_ms`: looks at the
 * path again when MINTID_HOST_CHECK_MS have passed since the last look (or
 * the clock went back), and moves to the path's state if it is another.
 * On success the current state is locked (perhaps a new one: the caller
 * reads core and last value again); on error the one held still is.
 */
int mintid__host_check(struct mintid__host *h, int64_t now_ms);
void mintid__host_unlock(struct mintid__host *h);
mintid__core *mintid__host_core(struct mintid__host *h);
uint64_t *mintid__host_last_value(struct mintid__host *h);
const char *mintid__host_path(const struct mintid__host *h);

/* ---- clock and entropy (clock.c, entropy.c) ------------------------------ */

/* CLOCK_MONOTONIC in ns: wait limits are measured on it, never on the ID clock. */
uint64_t mintid__monotonic_ns(void);
/* Sleeps for ns nanoseconds (restarting after signals). */
void mintid__sleep_ns(uint64_t ns);
/* Sleeps until the real-time clock reaches Unix ms `unix_ms`, or for at most max_ns. */
void mintid__sleep_until_ms(int64_t unix_ms, uint64_t max_ns);

/* Fills buf straight from getrandom(), retrying on EINTR and short reads. */
int mintid__getrandom(void *buf, size_t len);
/*
 * Fills buf from libcrypto's CTR-DRBG (seeded from the kernel, reseeded by
 * libcrypto after fork), for the generators' pools: in blocks of 4 KiB it
 * costs a third of getrandom() per byte (bench/README.md).
 */
int mintid__random_bytes(void *buf, size_t len);
/*
 * A counter bumped in every child process after fork(). An object records it
 * when created; a different value later means it was inherited by a child.
 */
uint64_t mintid__fork_generation(void);

#endif /* MINTID_INTERNAL_H */
