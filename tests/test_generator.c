/* SPDX-License-Identifier: MIT */
/*
 * test_generator.c - the generator's rules with an injected clock and
 * random source: sequences, exhaustion, clock rollback and jumps, the wait
 * limit, range errors, and that failures leave the state as it was; and
 * that the core under the generator is pure: no random source, clock or
 * lock inside, the same ID from the same state, time and random bytes.
 */
#include "check.h"
#include "internal.h"
#include "mintid.h"

#include <stdlib.h>
#include <time.h>

/* A clock the test moves by hand; `tick_every` > 0 advances it 1 ms every that many reads. */
typedef struct fake_clock {
    int64_t now;
    int tick_every;
    int reads;
    int fail;
} fake_clock;

static int fake_now(void *ctx, int64_t *unix_ms) {
    fake_clock *c = ctx;
    if (c->fail)
        return MINTID_ECLOCK;
    if (c->tick_every > 0 && ++c->reads % c->tick_every == 0)
        c->now++;
    *unix_ms = c->now;
    return MINTID_OK;
}

/* A random source that counts bytes out (or fails, or gives zeros), so
 * results are predictable. It records how often it was asked and for how
 * many bytes, so a test knows how much the generator holds in its pool. */
typedef struct fake_rng {
    uint8_t next;
    int fail;
    int zeros;
    int calls;
    size_t last_len;
} fake_rng;

static int fake_random(void *ctx, void *buf, size_t len) {
    fake_rng *r = ctx;
    r->calls++;
    r->last_len = len;
    if (r->fail)
        return MINTID_EENTROPY;
    uint8_t *b = buf;
    for (size_t i = 0; i < len; i++)
        b[i] = r->zeros ? 0 : r->next++;
    return MINTID_OK;
}

static const int64_t T0 = 1795300000000; /* 2026-11-21 */

static mintid_gen *make(mintid_format_id id, fake_clock *clk, fake_rng *rng, void (*tweak)(mintid_config *)) {
    const mintid_format *fmt = mintid_format_get(id);
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.clock = fake_now;
    cfg.clock_ctx = clk;
    if (rng != NULL) {
        cfg.random = fake_random;
        cfg.random_ctx = rng;
    }
    cfg.max_wait_ms = 30;
    if (tweak != NULL)
        tweak(&cfg);
    mintid_gen *g = NULL;
    int rc = mintid_gen_new(fmt, &cfg, &g);
    CHECK_INT(rc, MINTID_OK);
    return g;
}

static mintid_parts next_parts(mintid_gen *g, int *rc) {
    mintid_id id;
    mintid_parts p;
    memset(&p, 0, sizeof p);
    *rc = mintid_gen_next(g, &id);
    if (*rc == MINTID_OK)
        mintid_id_parse(mintid_gen_format(g), &id, &p);
    return p;
}

static uint64_t ms_since(struct timespec *a) {
    struct timespec b;
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (uint64_t)((b.tv_sec - a->tv_sec) * 1000 + (b.tv_nsec - a->tv_nsec) / 1000000);
}

static void fail_overflow(mintid_config *c) { c->overflow = MINTID_OVERFLOW_FAIL; }
static void rollback_fail(mintid_config *c) { c->rollback = MINTID_ROLLBACK_FAIL; }
static void rollback_reuse(mintid_config *c) { c->rollback = MINTID_ROLLBACK_REUSE; }
static void node_1023(mintid_config *c) { c->node = 1023; }

static void test_nanoflake_sequence(void) {
    fake_clock clk = {.now = T0};
    mintid_gen *g = make(MINTID_NANOFLAKE, &clk, NULL, fail_overflow);
    const int64_t epoch = MINTID_NANOFLAKE_DEFAULT_EPOCH;
    int rc;
    for (uint64_t i = 0; i < 4096; i++) {
        mintid_parts p = next_parts(g, &rc);
        CHECK_INT(rc, MINTID_OK);
        CHECK_U64(p.sequence, i);
        CHECK_U64(p.timestamp, (uint64_t)(T0 - epoch));
    }
    /* The 4097th in one millisecond: the fail policy says so at once, state unchanged. */
    next_parts(g, &rc);
    CHECK_INT(rc, MINTID_EEXHAUSTED);
    next_parts(g, &rc);
    CHECK_INT(rc, MINTID_EEXHAUSTED);
    clk.now++;
    mintid_parts p = next_parts(g, &rc);
    CHECK_INT(rc, MINTID_OK);
    CHECK_U64(p.sequence, 0);
    CHECK_U64(p.timestamp, (uint64_t)(T0 + 1 - epoch));
    mintid_gen_stats st;
    mintid_gen_get_stats(g, &st);
    CHECK_U64(st.issued, 4097);
    CHECK_INT(st.last_unix_ms, T0 + 1);
    CHECK_U64(st.exhausted, 2);
    mintid_gen_free(g);
}

static void test_wait_limit(void) {
    /* A clock that stands still: waiting for the next millisecond must end
     * with MINTID_ETIMEDOUT once max_wait_ms has passed, not block forever. */
    fake_clock clk = {.now = T0};
    mintid_gen *g = make(MINTID_NANOFLAKE, &clk, NULL, NULL);
    mintid_id ids[4096];
    CHECK_INT(mintid_gen_next_n(g, ids, 4096), 4096);
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    mintid_id id;
    CHECK_INT(mintid_gen_next(g, &id), MINTID_ETIMEDOUT);
    uint64_t waited = ms_since(&start);
    CHECK(waited >= 30);   /* it did wait, up to the limit */
    CHECK(waited < 10000); /* and was bounded */
    /* A clock that moves on: the wait ends in the next millisecond at sequence 0. */
    clk.tick_every = 50;
    mintid_parts p;
    CHECK_INT(mintid_gen_next(g, &id), MINTID_OK);
    mintid_id_parse(mintid_gen_format(g), &id, &p);
    CHECK_U64(p.sequence, 0);
    CHECK_U64(p.timestamp, (uint64_t)(T0 + 1 - MINTID_NANOFLAKE_DEFAULT_EPOCH));
    CHECK(memcmp(id.bytes, ids[4095].bytes, 8) > 0);
    mintid_gen_stats st;
    mintid_gen_get_stats(g, &st);
    CHECK(st.waits >= 2);
    mintid_gen_free(g);
}

static void test_rollback(void) {
    int rc;
    mintid_id a, b;
    /* wait (nanoflake's default): a clock behind that stays behind times out... */
    fake_clock clk = {.now = T0};
    mintid_gen *g = make(MINTID_NANOFLAKE, &clk, NULL, node_1023);
    CHECK_INT(mintid_gen_next(g, &a), MINTID_OK);
    clk.now = T0 - 5000;
    CHECK_INT(mintid_gen_next(g, &b), MINTID_ETIMEDOUT);
    /* ...and one that catches up is waited for; the ID is still later. */
    clk.now = T0 - 3;
    clk.tick_every = 1;
    CHECK_INT(mintid_gen_next(g, &b), MINTID_OK);
    CHECK(mintid_id_to_u64(&b) > mintid_id_to_u64(&a));
    mintid_parts p;
    mintid_id_parse(mintid_gen_format(g), &b, &p);
    CHECK_U64(p.node, 1023);
    mintid_gen_stats st;
    mintid_gen_get_stats(g, &st);
    CHECK_U64(st.rollbacks, 2);
    mintid_gen_free(g);

    /* fail: an error, and the generator carries on once the clock is back. */
    clk = (fake_clock){.now = T0};
    g = make(MINTID_NANOFLAKE, &clk, NULL, rollback_fail);
    CHECK_INT(mintid_gen_next(g, &a), MINTID_OK);
    clk.now = T0 - 1;
    CHECK_INT(mintid_gen_next(g, &b), MINTID_ECLOCKBACK);
    clk.now = T0;
    CHECK_INT(mintid_gen_next(g, &b), MINTID_OK);
    CHECK(mintid_id_to_u64(&b) == mintid_id_to_u64(&a) + 1); /* same ms, next sequence */
    mintid_gen_free(g);

    /* reuse: keep the last timestamp and go on counting in it. */
    clk = (fake_clock){.now = T0};
    g = make(MINTID_NANOFLAKE, &clk, NULL, rollback_reuse);
    CHECK_INT(mintid_gen_next(g, &a), MINTID_OK);
    clk.now = T0 - 60000;
    for (int i = 1; i <= 10; i++) {
        p = next_parts(g, &rc);
        CHECK_INT(rc, MINTID_OK);
        CHECK_U64(p.timestamp, (uint64_t)(T0 - MINTID_NANOFLAKE_DEFAULT_EPOCH));
        CHECK_U64(p.sequence, (uint64_t)i);
    }
    mintid_gen_free(g);
}

static void test_clock_jump_forward(void) {
    fake_clock clk = {.now = T0};
    mintid_gen *g = make(MINTID_SCRU160, &clk, NULL, NULL);
    mintid_id a, b, c;
    CHECK_INT(mintid_gen_next(g, &a), MINTID_OK);
    clk.now = T0 + 3600000; /* an hour ahead */
    CHECK_INT(mintid_gen_next(g, &b), MINTID_OK);
    CHECK(mintid_id_compare(mintid_gen_format(g), &b, &a) > 0);
    clk.now = T0 + 1; /* and back: scru160 keeps the later timestamp */
    CHECK_INT(mintid_gen_next(g, &c), MINTID_OK);
    CHECK(mintid_id_compare(mintid_gen_format(g), &c, &b) > 0);
    mintid_parts pb, pc;
    mintid_id_parse(mintid_gen_format(g), &b, &pb);
    mintid_id_parse(mintid_gen_format(g), &c, &pc);
    CHECK_U64(pc.timestamp, pb.timestamp);
    CHECK_U64(pc.sequence, pb.sequence + 1);
    mintid_gen_free(g);
}

static void test_scru160(void) {
    fake_clock clk = {.now = T0};
    mintid_gen *g = make(MINTID_SCRU160, &clk, NULL, fail_overflow);
    int rc;
    mintid_parts p = next_parts(g, &rc);
    CHECK_INT(rc, MINTID_OK);
    CHECK(p.sequence < 32768); /* a 15-bit random start */
    CHECK_U64(p.timestamp, (uint64_t)T0);
    uint64_t start = p.sequence, n = 1;
    while ((p = next_parts(g, &rc)), rc == MINTID_OK)
        n++;
    CHECK_INT(rc, MINTID_EEXHAUSTED);
    CHECK_U64(start + n, 65536); /* the counter ran to 0xFFFF and stopped */
    mintid_gen_free(g);

    /* The node option puts the node id in random16, and nothing else changes. */
    mintid_config cfg;
    const mintid_format *fmt = mintid_format_get(MINTID_SCRU160);
    mintid_config_init(&cfg, fmt);
    cfg.node = 65535;
    CHECK_INT(mintid_gen_new(fmt, &cfg, &g), MINTID_OK);
    for (int i = 0; i < 100; i++) {
        p = next_parts(g, &rc);
        CHECK_U64(p.random, 65535);
    }
    mintid_gen_free(g);
    cfg.node = 65536;
    CHECK_INT(mintid_gen_new(fmt, &cfg, &g), MINTID_EINVAL);

    /* Timestamp 0 is reserved: a clock at the Unix epoch cannot mint. */
    clk.now = 0;
    g = make(MINTID_SCRU160, &clk, NULL, NULL);
    mintid_id id;
    CHECK_INT(mintid_gen_next(g, &id), MINTID_ETIME);
    mintid_gen_free(g);
}

static void test_uexky_caloriosa(void) {
    fake_clock clk = {.now = T0};
    int rc;
    mintid_gen *g = make(MINTID_UEXKY, &clk, NULL, fail_overflow);
    /* The sequence runs on across milliseconds... */
    for (uint64_t i = 0; i < 500; i++) {
        if (i % 5 == 0)
            clk.now++;
        mintid_parts p = next_parts(g, &rc);
        CHECK_U64(p.sequence, i);
    }
    /* ...and a millisecond ends where it would wrap: 500..511 fit, then none. */
    clk.now++;
    for (uint64_t i = 500; i < 512; i++) {
        mintid_parts p = next_parts(g, &rc);
        CHECK_INT(rc, MINTID_OK);
        CHECK_U64(p.sequence, i);
    }
    next_parts(g, &rc);
    CHECK_INT(rc, MINTID_EEXHAUSTED);
    clk.now++;
    mintid_parts p = next_parts(g, &rc);
    CHECK_U64(p.sequence, 0); /* the wrap, in a new millisecond */
    mintid_gen_free(g);

    /* caloriosa: increment from 1, one random value per millisecond. */
    clk.now = T0;
    g = make(MINTID_CALORIOSA, &clk, NULL, fail_overflow);
    mintid_parts first = next_parts(g, &rc);
    CHECK_U64(first.sequence, 1);
    uint64_t n = 1;
    while ((p = next_parts(g, &rc)), rc == MINTID_OK) {
        CHECK_U64(p.random, first.random);
        n++;
    }
    CHECK_U64(n, 1023); /* 1..1023 in the first millisecond */
    clk.now++;
    p = next_parts(g, &rc);
    CHECK_U64(p.sequence, 0);
    mintid_gen_free(g);
}

static void entropy3(mintid_config *c) { c->entropy_size = 3; }

static void test_ulid_flake(void) {
    fake_clock clk = {.now = T0};
    fake_rng rng = {.next = 1};
    int rc;
    mintid_gen *g = make(MINTID_ULID_FLAKE, &clk, &rng, NULL);
    mintid_parts p = next_parts(g, &rc);
    CHECK_INT(rc, MINTID_OK);
    CHECK_U64(p.timestamp, (uint64_t)(T0 - 1704067200000));
    CHECK_U64(p.sequence, 0x010203 & 0xFFFFF); /* 20 random bits from bytes 01 02 03 */
    uint64_t prev = p.sequence;
    for (int i = 0; i < 20; i++) {
        p = next_parts(g, &rc);
        CHECK_INT(rc, MINTID_OK);
        CHECK(p.sequence > prev && p.sequence - prev <= 255);
        prev = p.sequence;
    }
    /* Ulid-flake's defaults: overflow and rollback are errors, state unchanged. */
    clk.now--;
    next_parts(g, &rc);
    CHECK_INT(rc, MINTID_ECLOCKBACK);
    mintid_gen_free(g);

    /* Three-byte steps use the 20-bit field up within a few IDs. */
    clk.now = T0;
    g = make(MINTID_ULID_FLAKE, &clk, NULL, entropy3);
    int ok = 0;
    while ((p = next_parts(g, &rc)), rc == MINTID_OK)
        ok++;
    CHECK_INT(rc, MINTID_EEXHAUSTED);
    CHECK(ok >= 1 && ok < 200);
    clk.now++;
    next_parts(g, &rc);
    CHECK_INT(rc, MINTID_OK);
    mintid_gen_free(g);

    /* A random source stuck at zero cannot loop forever redrawing n. */
    rng = (fake_rng){.zeros = 1};
    clk.now = T0;
    g = make(MINTID_ULID_FLAKE, &clk, &rng, NULL);
    next_parts(g, &rc);
    CHECK_INT(rc, MINTID_OK);
    next_parts(g, &rc);
    CHECK_INT(rc, MINTID_EENTROPY);
    mintid_gen_free(g);

    /* entropy_size limits: 1..3 stand-alone, 1..2 scalable, none elsewhere. */
    mintid_config cfg;
    const mintid_format *scal = mintid_format_get(MINTID_ULID_FLAKE_SCALABLE);
    mintid_config_init(&cfg, scal);
    cfg.entropy_size = 3;
    CHECK_INT(mintid_gen_new(scal, &cfg, &g), MINTID_EINVAL);
    cfg.entropy_size = 2;
    cfg.node = 32;
    CHECK_INT(mintid_gen_new(scal, &cfg, &g), MINTID_EINVAL);
    cfg.node = 31;
    CHECK_INT(mintid_gen_new(scal, &cfg, &g), MINTID_OK);
    p = next_parts(g, &rc);
    CHECK_U64(p.node, 31);
    mintid_gen_free(g);
}

static void test_failures_leave_state(void) {
    /* The clock moves on at every read, so no millisecond's sequence runs out. */
    fake_clock clk = {.now = T0, .tick_every = 1};
    fake_rng rng = {.next = 7};
    int rc;
    mintid_gen *g = make(MINTID_UEXKY, &clk, &rng, NULL);
    const mintid_format *fmt = mintid_gen_format(g);
    mintid_parts a = next_parts(g, &rc);
    CHECK_INT(rc, MINTID_OK);
    CHECK_INT(rng.calls, 1);
    /* The generator draws its random bytes a block at a time (the first ID
     * took one block) and hands them out an ID at a time, so a source that
     * fails now is not seen until the block is used up: exactly the IDs the
     * rest of the block covers are minted, then MINTID_EENTROPY. */
    const size_t per_id = (mintid_format_field(fmt, MINTID_ROLE_RANDOM)->width + 7u) / 8u;
    const long covered = (long)((rng.last_len - per_id) / per_id);
    rng.fail = 1;
    long minted = 0;
    mintid_parts last = a;
    for (;;) {
        mintid_parts p = next_parts(g, &rc);
        if (rc != MINTID_OK)
            break;
        last = p;
        if (++minted > covered)
            break;
    }
    CHECK_INT(minted, covered);
    CHECK_INT(rc, MINTID_EENTROPY);
    CHECK_INT(rng.calls, 2);
    rng.fail = 0;
    clk.fail = 1;
    next_parts(g, &rc);
    CHECK_INT(rc, MINTID_ECLOCK);
    clk.fail = 0;
    /* Neither failure took a sequence number: the next ID follows the last. */
    mintid_parts b = next_parts(g, &rc);
    CHECK_INT(rc, MINTID_OK);
    CHECK_U64(b.sequence, (last.sequence + 1) % (UINT64_C(1) << mintid_format_field(fmt, MINTID_ROLE_SEQUENCE)->width));
    CHECK(b.timestamp > last.timestamp);
    mintid_gen_stats st;
    mintid_gen_get_stats(g, &st);
    CHECK_U64(st.issued, (uint64_t)minted + 2);
    mintid_gen_free(g);

    /* A random source failing from the start: nothing is minted or committed. */
    rng = (fake_rng){.fail = 1};
    g = make(MINTID_SCRU160, &clk, &rng, NULL);
    mintid_id id;
    CHECK_INT(mintid_gen_next(g, &id), MINTID_EENTROPY);
    mintid_gen_get_stats(g, &st);
    CHECK_U64(st.issued, 0);
    mintid_gen_free(g);
}

static void test_ranges(void) {
    const mintid_format *nano = mintid_format_get(MINTID_NANOFLAKE);
    mintid_config cfg;
    mintid_gen *g;
    fake_clock clk = {.now = T0};
    mintid_config_init(&cfg, nano);
    cfg.clock = fake_now;
    cfg.clock_ctx = &clk;
    cfg.epoch_ms = T0 + 1; /* in the future */
    CHECK_INT(mintid_gen_new(nano, &cfg, &g), MINTID_ETIME);
    cfg.epoch_ms = -1;
    CHECK_INT(mintid_gen_new(nano, &cfg, &g), MINTID_EINVAL);
    /* The lifespan is over: an error, never a wrap. */
    cfg.epoch_ms = MINTID_NANOFLAKE_DEFAULT_EPOCH;
    clk.now = cfg.epoch_ms + (INT64_C(1) << 41);
    CHECK_INT(mintid_gen_new(nano, &cfg, &g), MINTID_OK);
    mintid_id id;
    CHECK_INT(mintid_gen_next(g, &id), MINTID_ETIME);
    mintid_gen_free(g);
    clk.now--; /* the last millisecond still works */
    CHECK_INT(mintid_gen_new(nano, &cfg, &g), MINTID_OK);
    CHECK_INT(mintid_gen_next(g, &id), MINTID_OK);
    CHECK_U64(mintid_id_to_u64(&id) >> 22, (UINT64_C(1) << 41) - 1);
    mintid_gen_free(g);
    clk.now = T0;
    cfg.epoch_ms = MINTID_NANOFLAKE_DEFAULT_EPOCH;
    cfg.node = 1024;
    CHECK_INT(mintid_gen_new(nano, &cfg, &g), MINTID_EINVAL);
    cfg.node = -2;
    CHECK_INT(mintid_gen_new(nano, &cfg, &g), MINTID_EINVAL);

    /* Formats without a node field or a settable epoch refuse them. */
    const mintid_format *uexky = mintid_format_get(MINTID_UEXKY);
    mintid_config_init(&cfg, uexky);
    cfg.node = 1;
    CHECK_INT(mintid_gen_new(uexky, &cfg, &g), MINTID_EINVAL);
    mintid_config_init(&cfg, uexky);
    cfg.epoch_ms = 0;
    CHECK_INT(mintid_gen_new(uexky, &cfg, &g), MINTID_EINVAL);
    /* A clock before the format's epoch. */
    clk.now = uexky->epoch_ms - 1;
    g = make(MINTID_UEXKY, &clk, NULL, NULL);
    CHECK_INT(mintid_gen_next(g, &id), MINTID_ETIME);
    mintid_gen_free(g);
    /* Plain 64-bit values only from 64-bit formats. */
    uint64_t v;
    g = make(MINTID_SCRU160, &clk, NULL, NULL);
    CHECK_INT(mintid_gen_next_u64(g, &v, 1), MINTID_EFORMAT);
    mintid_gen_free(g);
}

/* Strict order over long runs on the real clock, as bytes and as text. */
static void test_long_order(void) {
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)f);
        mintid_config cfg;
        mintid_config_init(&cfg, fmt);
        cfg.overflow = MINTID_OVERFLOW_WAIT;
        mintid_gen *g;
        CHECK_INT(mintid_gen_new(fmt, &cfg, &g), MINTID_OK);
        enum { MOST = 300000, BATCH = 1000 };
        /* Many units' worth, within a quarter of a second of the format's
         * capacity: sonyflake's 25.6 a millisecond would take 12 s for all. */
        uint64_t quarter = (uint64_t)fmt->capacity_per_ms * 250;
        const int N = quarter != 0 && quarter < MOST ? (int)quarter : MOST;
        static mintid_id ids[BATCH];
        mintid_id prev;
        char prev_text[MINTID_TEXT_MAX] = "", text[MINTID_TEXT_MAX];
        int bad_order = 0, bad_text = 0;
        for (int done = 0; done < N;) {
            long n = mintid_gen_next_n(g, ids, BATCH);
            CHECK(n > 0);
            if (n <= 0)
                break;
            for (long i = 0; i < n; i++, done++) {
                if (done > 0 && mintid_id_compare(fmt, &ids[i], &prev) <= 0)
                    bad_order++;
                mintid_encode(fmt, MINTID_FORM_TEXT, &ids[i], text, sizeof text);
                if (fmt->text_sortable && done > 0 && strcmp(text, prev_text) <= 0)
                    bad_text++;
                /* Nanoflake's padded base36 and caloriosa's core form sort too. */
                if (fmt->id == MINTID_NANOFLAKE || fmt->id == MINTID_CALORIOSA) {
                    mintid_encode(fmt, fmt->id == MINTID_NANOFLAKE ? MINTID_FORM_PADDED : MINTID_FORM_CORE, &ids[i],
                                  text, sizeof text);
                    if (done > 0 && strcmp(text, prev_text) <= 0)
                        bad_text++;
                }
                prev = ids[i];
                memcpy(prev_text, text, sizeof text);
            }
        }
        if (bad_order || bad_text)
            fprintf(stderr, "%s: %d out of order, %d text out of order\n", fmt->name, bad_order, bad_text);
        CHECK_INT(bad_order, 0);
        CHECK_INT(bad_text, 0);
        mintid_gen_free(g);
    }
}

static void per_reading_64(mintid_config *c) { c->ids_per_reading = 64; }
static void per_reading_256_fail(mintid_config *c) {
    c->ids_per_reading = 256;
    c->rollback = MINTID_ROLLBACK_FAIL;
}
static void per_reading_256_all_fail(mintid_config *c) {
    per_reading_256_fail(c);
    c->overflow = MINTID_OVERFLOW_FAIL;
}

/* ids_per_reading: how often a batch reads the clock, and that a wait reads it anew. */
static void test_ids_per_reading(void) {
    const mintid_format *nf = mintid_format_get(MINTID_NANOFLAKE);
    mintid_config cfg;
    mintid_config_init(&cfg, nf);
    CHECK_INT(cfg.ids_per_reading, 1);
    mintid_gen *g = NULL;
    cfg.ids_per_reading = MINTID_MAX_IDS_PER_READING + 1;
    CHECK_INT(mintid_gen_new(nf, &cfg, &g), MINTID_EINVAL);
    cfg.ids_per_reading = 0;
    CHECK_INT(mintid_gen_new(nf, &cfg, &g), MINTID_OK);
    CHECK_INT(mintid_gen_config(g)->ids_per_reading, 1);
    mintid_gen_free(g);

    static mintid_id ids[20000];
    const mintid_format_id fmts[] = {MINTID_NANOFLAKE, MINTID_SCRU160, MINTID_UUIDV7, MINTID_ULID};
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
        const mintid_format *fmt = mintid_format_get(fmts[f]);
        /* Reads counted, the clock standing still. */
        for (int shared = 0; shared <= 1; shared++) {
            fake_clock clk = {.now = T0, .tick_every = 1 << 30};
            g = make(fmts[f], &clk, NULL, shared ? per_reading_64 : NULL);
            int made = clk.reads; /* a settable epoch is checked against the clock */
            CHECK_INT(mintid_gen_next_n(g, ids, 1000), 1000);
            CHECK_INT(clk.reads - made, shared ? 16 : 1000);
            for (int i = 0; i < 10; i++)
                CHECK_INT(mintid_gen_next(g, &ids[0]), MINTID_OK);
            CHECK_INT(clk.reads - made, shared ? 26 : 1010);
            mintid_gen_free(g);
        }
        /* A clock moving 1 ms per reading: 64 IDs per millisecond. */
        fake_clock clk = {.now = T0, .tick_every = 1};
        g = make(fmts[f], &clk, NULL, per_reading_64);
        int64_t t1 = clk.now + 1; /* the first reading */
        CHECK_INT(mintid_gen_next_n(g, ids, 640), 640);
        for (int i = 0; i < 640; i++) {
            int64_t ms = mintid_id_unix_ms(fmt, &ids[i], fmt->epoch_ms);
            if (ms != t1 + i / 64) {
                fprintf(stderr, "%s: ID %d carries %" PRId64 ", expected %" PRId64 "\n", fmt->name, i, ms, t1 + i / 64);
                CHECK(0);
                break;
            }
        }
        mintid_gen_free(g);
    }

    /* A clock behind the last ID (absorbed under reuse): one rollback per
     * reading, however many IDs shared it. */
    for (int shared = 0; shared <= 1; shared++) {
        fake_clock clk = {.now = T0};
        g = make(MINTID_SCRU160, &clk, NULL, shared ? per_reading_64 : NULL);
        CHECK_INT(mintid_gen_next(g, &ids[0]), MINTID_OK);
        clk.now = T0 - 5;
        CHECK_INT(mintid_gen_next_n(g, ids, 128), 128);
        mintid_gen_stats st;
        mintid_gen_get_stats(g, &st);
        CHECK_U64(st.rollbacks, shared ? 2 : 128);
        mintid_gen_free(g);
    }

    /* The sequence used up under a reading an earlier ID of the batch had:
     * the clock is read again, and has moved on, so the batch goes on,
     * even under overflow=fail, with no exhaustion and no wait counted. */
    {
        fake_clock clk = {.now = T0};
        g = make(MINTID_NANOFLAKE, &clk, NULL, per_reading_256_all_fail);
        CHECK_INT(mintid_gen_next_n(g, ids, 4091), 4091);
        mintid_gen_stats before, after;
        mintid_gen_get_stats(g, &before);
        clk.now = T0 - 1; /* every reading from here on 1 ms later: T0, T0 + 1, ... */
        clk.tick_every = 1;
        clk.reads = 0;
        CHECK_INT(mintid_gen_next_n(g, ids, 10), 10);
        mintid_gen_get_stats(g, &after);
        CHECK_U64(after.exhausted - before.exhausted, 0);
        CHECK_U64(after.waits - before.waits, 0);
        CHECK_U64(after.rollbacks - before.rollbacks, 0);
        CHECK_INT(mintid_id_unix_ms(mintid_format_get(MINTID_NANOFLAKE), &ids[9], MINTID_NANOFLAKE_DEFAULT_EPOCH),
                  T0 + 1);
        mintid_gen_free(g);
    }

    /* nanoflake at its cap: after the wait for the next millisecond, the
     * batch goes on with the reading the wait took, not the one before it
     * (which, behind the new millisecond, would be a clock gone back). */
    fake_clock clk = {.now = T0, .tick_every = 100};
    g = make(MINTID_NANOFLAKE, &clk, NULL, per_reading_256_fail);
    CHECK_INT(mintid_gen_next_n(g, ids, 20000), 20000);
    mintid_gen_stats st;
    mintid_gen_get_stats(g, &st);
    CHECK_U64(st.rollbacks, 0);
    CHECK(st.waits >= 4);
    for (int i = 1; i < 20000; i++)
        if (mintid_id_compare(mintid_format_get(MINTID_NANOFLAKE), &ids[i - 1], &ids[i]) >= 0) {
            fprintf(stderr, "nanoflake: ID %d not above the one before\n", i);
            CHECK(0);
            break;
        }
    mintid_gen_free(g);
}

static int refused_random(void *ctx, void *buf, size_t len) {
    (void)buf, (void)len;
    ++*(int *)ctx;
    return MINTID_EENTROPY;
}

/* The core through the public API (mintid.h's mintid_core_*), as the PostgreSQL extension drives it. */
static void test_pure_core(void) {
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        mintid_config cfg;
        mintid_config_init(&cfg, fmt);
        if (fmt->node_bits > 0 && !fmt->node_optional)
            cfg.node = 1;
        static mintid_pool rng;
        int asked = 0;
        mintid_pool_init(&rng, refused_random, &asked);
        mintid_core core, before;
        mintid_core_init(fmt, &core);
        mintid_id a, b;
        /* An empty pool: formats that draw say so, the state untouched, the source never asked. */
        before = core;
        int rc = mintid_core_next(fmt, &cfg, &core, T0, &rng, &a);
        if (rc == MINTID_ERANDOM)
            CHECK(memcmp(&core, &before, sizeof core) == 0);
        else
            CHECK_INT(rc, MINTID_OK); /* a format with nothing random (nanoflake, snowflake, sonyflake) */
        CHECK_INT(asked, 0);
        /* The driver refills from the source, which fails here: the state is still untouched. */
        mintid_core_init(fmt, &core);
        before = core;
        rc = mintid_core_mint(fmt, &cfg, &core, T0, &rng, &a, NULL);
        if (rc != MINTID_OK) {
            CHECK_INT(rc, MINTID_EENTROPY);
            CHECK_INT(asked, 1);
            CHECK(memcmp(&core, &before, sizeof core) == 0);
        }
        /* A pool of given bytes: the same state, time and bytes give the same ID, twice over. */
        for (unsigned k = 0; k < MINTID_POOL_BYTES; k++)
            rng.buf[k] = (uint8_t)(k * 7 + 1);
        asked = 0;
        mintid_core_init(fmt, &core);
        rng.pos = 0;
        CHECK_INT(mintid_core_next(fmt, &cfg, &core, T0, &rng, &a), MINTID_OK);
        CHECK_INT(mintid_core_next(fmt, &cfg, &core, T0, &rng, &a), MINTID_OK);
        size_t used = rng.pos;
        mintid_core_init(fmt, &core);
        rng.pos = 0;
        CHECK_INT(mintid_core_next(fmt, &cfg, &core, T0, &rng, &b), MINTID_OK);
        CHECK_INT(mintid_core_next(fmt, &cfg, &core, T0, &rng, &b), MINTID_OK);
        CHECK_INT(rng.pos, used);
        CHECK(memcmp(a.bytes, b.bytes, sizeof a.bytes) == 0);
        CHECK_INT(asked, 0);
        /* The last ID's unit, and a floor: nothing before it, and the driver says when. */
        int64_t unit = fmt->ts_unit_ms, last = mintid_core_last_ms(fmt, &cfg, &core);
        CHECK(last <= T0 && last > T0 - unit);
        mintid_pool_init(&rng, NULL, NULL);
        mintid_core_set_floor(fmt, &cfg, &core, T0 + 5 * unit + 1);
        mintid_core_set_floor(fmt, &cfg, &core, T0); /* a lower floor changes nothing */
        int64_t retry = 0;
        CHECK_INT(mintid_core_mint(fmt, &cfg, &core, T0, &rng, &a, &retry), MINTID_EEXHAUSTED);
        CHECK_INT(retry, last + 6 * unit);
        CHECK_INT(mintid_core_mint(fmt, &cfg, &core, retry, &rng, &a, &retry), MINTID_OK);
        CHECK(mintid_id_compare(fmt, &a, &b) > 0);
        CHECK_INT(mintid_core_last_ms(fmt, &cfg, &core), last + 6 * unit);
        /* The clock behind the last ID, not reused: the driver names the last ID's unit. */
        cfg.rollback = MINTID_ROLLBACK_FAIL;
        CHECK_INT(mintid_core_mint(fmt, &cfg, &core, T0, &rng, &b, &retry), MINTID_ECLOCKBACK);
        CHECK_INT(retry, last + 6 * unit);
        if (check_failures > 0) {
            fprintf(stderr, "pure core: %s\n", fmt->name);
            break;
        }
    }
}

/*
 * The floor after an epoch moved later, in the format's units: every ID
 * minted after it under the new epoch has a timestamp field above every
 * field minted up to the mark under the old one. Checked by minting the
 * mark's last ID under the old epoch and the floor's neighbours under the
 * new one. Sonyflake's 10 ms units are where a floor computed in
 * milliseconds let a whole unit repeat (an old epoch 1409529600007 moved 3
 * or 13 ms, 1409529600005 moved 7).
 */
static void test_epoch_change_floor(void) {
    static const struct {
        const char *format;
        int64_t old_epoch, new_epoch;
    } cases[] = {
        {"sonyflake", 1409529600007, 1409529600010}, {"sonyflake", 1409529600007, 1409529600020},
        {"sonyflake", 1409529600005, 1409529600012}, {"sonyflake", 1409529600000, 1409529600003},
        {"sonyflake", 1409529600000, 1409529610000}, {"nanoflake", 1288834974657, 1288834974660},
        {"snowflake", 1288834974657, 1288834984657},
    };
    const int64_t mark = T0 + 12345;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const mintid_format *fmt = mintid_format_find(cases[c].format);
        CHECK(fmt != NULL && fmt->epoch_settable);
        int64_t floor = mintid_epoch_change_floor(fmt, cases[c].old_epoch, cases[c].new_epoch, mark);
        int64_t unit = fmt->ts_unit_ms;
        mintid_id lo, hi, last_old;
        /* The largest ID the old epoch issued up to the mark. */
        CHECK_INT(mintid_range(fmt, mark, cases[c].old_epoch, &lo, &last_old), MINTID_OK);
        if (floor == INT64_MIN) {
            /* One unit: the same IDs for the same time, so no floor. */
            CHECK(cases[c].new_epoch / unit == cases[c].old_epoch / unit);
            continue;
        }
        CHECK_INT((int)((floor + 1) % unit), 0); /* the end of a unit */
        /* The first ms after the floor mints above every old ID... */
        CHECK_INT(mintid_range(fmt, floor + 1, cases[c].new_epoch, &lo, &hi), MINTID_OK);
        if (mintid_id_compare(fmt, &lo, &last_old) <= 0)
            fprintf(stderr, "%s %lld -> %lld: the ID after the floor is not above the old ones\n", fmt->name,
                    (long long)cases[c].old_epoch, (long long)cases[c].new_epoch);
        CHECK(mintid_id_compare(fmt, &lo, &last_old) > 0);
        /* ...and the floor itself could repeat one (the bound is tight). */
        CHECK_INT(mintid_range(fmt, floor, cases[c].new_epoch, &lo, &hi), MINTID_OK);
        CHECK(mintid_id_compare(fmt, &lo, &last_old) <= 0);
    }
    /* An epoch moved earlier: nothing to wait for. */
    CHECK(mintid_epoch_change_floor(mintid_format_find("nanoflake"), 1288834974657, 1288834974000, mark) == INT64_MIN);
}

static void rollback_wait(mintid_config *cfg) {
    cfg->overflow = MINTID_OVERFLOW_WAIT;
    cfg->rollback = MINTID_ROLLBACK_WAIT;
}

/* Mint now or say when: never a wait, the unit and the reason instead. */
static void test_try_next(void) {
    fake_clock clk = {.now = T0};
    mintid_gen *g = make(MINTID_NANOFLAKE, &clk, NULL, rollback_wait);
    mintid_config c;
    static mintid_id ids[5000];
    mintid_later later;
    /* A unit holds 4096: the rest of the call is for later. */
    CHECK_INT(mintid_gen_try_next_n(g, ids, 5000, &later), 4096);
    CHECK_INT(mintid_gen_try_next_n(g, ids, 10, &later), 0);
    CHECK_INT(later.reason, MINTID_EEXHAUSTED);
    CHECK_INT(later.retry_ms, T0 + 1);
    clk.now = T0 + 1;
    CHECK_INT(mintid_gen_try_next_n(g, ids, 1, &later), 1);
    CHECK_INT(mintid_id_unix_ms(mintid_format_get(MINTID_NANOFLAKE), &ids[0], MINTID_EPOCH_DEFAULT), T0 + 1);
    /* The clock behind the last ID: come back when it reaches its unit. */
    clk.now = T0 - 3;
    CHECK_INT(mintid_gen_try_next_n(g, ids, 1, &later), 0);
    CHECK_INT(later.reason, MINTID_ECLOCKBACK);
    CHECK_INT(later.retry_ms, T0 + 1);
    clk.now = T0 + 1;
    CHECK_INT(mintid_gen_try_next_n(g, ids, 1, &later), 1);
    /* Each "later" counts as a wait, the caller's (the 4097th ID of the
     * first call too). A wait of the generator's own would have ended in
     * MINTID_ETIMEDOUT: the clock stood still. */
    mintid_gen_stats st;
    mintid_gen_get_stats(g, &st);
    CHECK_INT(st.waits, 3);
    mintid_gen_free(g);
    /* Under reuse, the clock behind: the last ID's unit goes on until it is
     * used up, and then it is the clock the caller waits for. */
    clk.now = T0 + 50;
    g = make(MINTID_NANOFLAKE, &clk, NULL, NULL);
    c = *mintid_gen_config(g);
    mintid_gen_free(g);
    c.rollback = MINTID_ROLLBACK_REUSE;
    CHECK_INT(mintid_gen_new(mintid_format_get(MINTID_NANOFLAKE), &c, &g), MINTID_OK);
    CHECK_INT(mintid_gen_try_next_n(g, ids, 1, &later), 1);
    clk.now = T0 + 40;
    CHECK_INT(mintid_gen_try_next_n(g, ids, 5000, &later), 4095);
    CHECK_INT(mintid_gen_try_next_n(g, ids, 1, &later), 0);
    CHECK_INT(later.reason, MINTID_ECLOCKBACK);
    CHECK_INT(later.retry_ms, T0 + 51);
    mintid_gen_free(g);
    /* The fail policies still fail. */
    clk.now = T0;
    g = make(MINTID_NANOFLAKE, &clk, NULL, NULL);
    c = *mintid_gen_config(g);
    mintid_gen_free(g);
    c.overflow = MINTID_OVERFLOW_FAIL;
    CHECK_INT(mintid_gen_new(mintid_format_get(MINTID_NANOFLAKE), &c, &g), MINTID_OK);
    CHECK_INT(mintid_gen_try_next_n(g, ids, 5000, &later), 4096);
    CHECK_INT(mintid_gen_try_next_n(g, ids, 1, &later), MINTID_EEXHAUSTED);
    mintid_gen_free(g);
}

int main(void) {
    test_pure_core();
    test_nanoflake_sequence();
    test_wait_limit();
    test_rollback();
    test_clock_jump_forward();
    test_scru160();
    test_uexky_caloriosa();
    test_ulid_flake();
    test_failures_leave_state();
    test_ranges();
    test_long_order();
    test_ids_per_reading();
    test_epoch_change_floor();
    test_try_next();
    return CHECK_DONE();
}
