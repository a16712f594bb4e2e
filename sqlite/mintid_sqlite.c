/* SPDX-License-Identifier: MIT */
/*
 * mintid_sqlite.c - the SQLite extension: every format of libmintid's table
 * as SQL functions, minted from the host-wide generator.
 *
 * Loaded as build/sqlite/mintid (entry point sqlite3_mintid_init). Nothing
 * here names a format: the functions are registered by walking the format
 * table, one generic C function per operation, with the format as the
 * function's user data (gen_<format>, gen_<format>_int, gen_<format>_blob,
 * <format>_min/_max and their _int and _blob forms), plus mintid_inspect,
 * mintid_timestamp and mintid_config. Only the public header is used.
 *
 * Each connection has its own settings (the node id, each settable epoch)
 * and mints from the process's source for a format and those settings,
 * taken on first use and shared with the process's other connections: a
 * host-wide generator, of which every process of the host that mints the
 * format with the same node and epoch continues one sequence, so many
 * processes writing one database never collide (see struct source).
 */
#include "mintid.h"

#include <sqlite3ext.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

SQLITE_EXTENSION_INIT1

/* SQLite's JSON functions read a text of this subtype as JSON, not as a string. */
#define JSON_SUBTYPE 74
#define MSG_MAX 640
#define SQL_NAME_MAX 64

/* Flags of the functions that read IDs and times: the same arguments give the
 * same result within a statement, and a schema may use them safely. */
#define DECODER_FLAGS (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)
/* mintid_inspect(id) and mintid_timestamp(id), which guess the format: a
 * shape that several formats share is read as the one whose time is
 * recent, so the same ID may read otherwise a month later. Not
 * DETERMINISTIC (an index or a generated column over a guess would break
 * then), INNOCUOUS all the same. */
#define GUESS_FLAGS (SQLITE_UTF8 | SQLITE_INNOCUOUS)
/* The generators: never DETERMINISTIC (SQLite would fold two calls into one,
 * and refuses them in CHECK constraints, index expressions and generated
 * columns). Not DIRECTONLY either, so that a column's DEFAULT and a trigger
 * may mint; they are not INNOCUOUS, so a connection that distrusts the
 * schemas it opens (SQLITE_DBCONFIG_TRUSTED_SCHEMA off) keeps them out of
 * a schema: all a schema could do with one is spend IDs. */
#define GENERATOR_FLAGS SQLITE_UTF8
/* mintid_config changes the connection's settings: never from a schema. */
#define CONFIG_FLAGS (SQLITE_UTF8 | SQLITE_DIRECTONLY)

typedef struct conn conn;
typedef struct source source;

/* What a per-format function is given as its user data. */
typedef struct slot {
    conn *c;
    const mintid_format *fmt;
} slot;

/* A connection's settings and the sources it mints from; freed with its last function. */
struct conn {
    int refs;
    int64_t node;                       /* node id of the formats whose node field is not optional */
    int64_t epoch[MINTID_FORMAT_COUNT]; /* MINTID_EPOCH_DEFAULT: the format's own */
    source *src[MINTID_FORMAT_COUNT];
    slot slots[MINTID_FORMAT_COUNT];
};

/*
 * The IDs one call of the host-wide generator hands this process at most
 * (see source_next): more would spend the host's sequence (nanoflake's
 * 4096 per ms) that this process might not use.
 */
#define BATCH_MAX 64

/*
 * The process's source of one format's IDs for one node id and epoch: the
 * host-wide generator, shared by every connection of the process that
 * mints with those settings, and a batch of IDs it minted in one call,
 * handed out while the clock is still in their time unit (source_next).
 * Every ID of the process with those settings goes through one source, so
 * they are strictly increasing in the order they are handed out.
 */
struct source {
    source *next; /* the process's list, under sources_lock */
    int refs;     /* connections using it, under sources_lock */
    bool stale;   /* node host, out of the server's warrant: no connection takes it up again (sources_lock) */
    const mintid_format *fmt;
    int64_t node, epoch_ms; /* the key, with fmt */
    mintid_gen *gen;
    pthread_mutex_t lock; /* everything below */
    unsigned pos, len;    /* ids[pos..len) are still to hand out */
    unsigned want;        /* the size of the next batch */
    int64_t from, until;  /* the batch's time unit, Unix ms: [from, until) */
    mintid_id ids[BATCH_MAX];
};

static pthread_mutex_t sources_lock = PTHREAD_MUTEX_INITIALIZER;
static source *sources;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* The list is whole at a fork: no thread of the parent is changing it. */
static void sources_before_fork(void) { pthread_mutex_lock(&sources_lock); }
static void sources_after_fork_parent(void) { pthread_mutex_unlock(&sources_lock); }

/*
 * In a child after fork(): the batches are the parent's (it hands them
 * out too), so they are dropped; a source's lock may have been held by
 * another of the parent's threads, so the locks are made anew. The
 * host-wide generators go on in the child (libmintid's promise).
 */
static void sources_after_fork(void) {
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    sources_lock = fresh;
    for (source *src = sources; src != NULL; src = src->next) {
        src->lock = fresh;
        src->pos = src->len = 0;
    }
}

static void register_atfork(void) {
    pthread_atfork(sources_before_fork, sources_after_fork_parent, sources_after_fork);
}

static void source_release(source *src) {
    if (src == NULL)
        return;
    pthread_mutex_lock(&sources_lock);
    bool last = --src->refs == 0;
    if (last)
        for (source **p = &sources; *p != NULL; p = &(*p)->next)
            if (*p == src) {
                *p = src->next;
                break;
            }
    pthread_mutex_unlock(&sources_lock);
    if (last) {
        mintid_gen_free(src->gen);
        pthread_mutex_destroy(&src->lock);
        free(src);
    }
}

static void conn_release(void *p) {
    conn *c = ((slot *)p)->c;
    if (--c->refs > 0)
        return;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        source_release(c->src[i]);
    sqlite3_free(c);
}

/* The connection of a function's call. */
static conn *ctx_conn(sqlite3_context *ctx) { return ((slot *)sqlite3_user_data(ctx))->c; }

static void drop_generators(conn *c) {
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        source_release(c->src[i]);
        c->src[i] = NULL;
    }
}

/* The SQL name of a format: its name with '-' as '_', as in PostgreSQL. */
static void sql_name(const mintid_format *fmt, char *out, size_t cap) {
    snprintf(out, cap, "%s", fmt->name);
    for (char *p = out; *p != '\0'; p++)
        if (*p == '-')
            *p = '_';
}

/* The largest node id of any format with a node field that is not optional. */
static int64_t node_max(void) {
    int64_t max = 0;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        if (f->node_bits > 0 && !f->node_optional && ((INT64_C(1) << f->node_bits) - 1) > max)
            max = (INT64_C(1) << f->node_bits) - 1;
    }
    return max;
}

static void error_msg(sqlite3_context *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void error_msg(sqlite3_context *ctx, const char *fmt, ...) {
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sqlite3_result_error(ctx, msg, -1);
}

/* Untrusted text, escaped for a message. */
static const char *escaped(const char *s, size_t len, char *buf, size_t cap) {
    mintid_escape(s, len, buf, cap);
    return buf;
}

/* A BLOB is never read as a setting or a time: shown as its bytes, x'...'. */
#define BLOB_SHOWN_BYTES 32
static const char *blob_shown(sqlite3_value *v, char *buf, size_t cap) {
    const uint8_t *b = sqlite3_value_blob(v);
    size_t len = (size_t)sqlite3_value_bytes(v), n = len < BLOB_SHOWN_BYTES ? len : BLOB_SHOWN_BYTES;
    int k = snprintf(buf, cap, "x'");
    for (size_t i = 0; i < n && k > 0 && (size_t)k < cap; i++)
        k += snprintf(buf + k, cap - (size_t)k, "%02x", b[i]);
    if (k > 0 && (size_t)k < cap)
        snprintf(buf + k, cap - (size_t)k, "%s' (a BLOB)", len > n ? "..." : "");
    return buf;
}

/* A value of that type (read before its text: a conversion changes it) in a
 * message: a BLOB as its bytes, anything else as its quoted text (or `none` without one). */
static const char *shown(sqlite3_value *v, int type, const char *t, const char *none, char *buf, size_t cap) {
    char safe[MINTID_ESCAPED_MAX];
    if (type == SQLITE_BLOB)
        return blob_shown(v, buf, cap);
    snprintf(buf, cap, "'%s'", t != NULL ? escaped(t, (size_t)sqlite3_value_bytes(v), safe, sizeof safe) : none);
    return buf;
}

/* A format named by an SQL argument: its name, or its SQL name ('ulid_flake'). */
static const mintid_format *format_arg(sqlite3_context *ctx, sqlite3_value *v) {
    const char *s = (const char *)sqlite3_value_text(v);
    size_t len = (size_t)sqlite3_value_bytes(v);
    char name[SQL_NAME_MAX], safe[MINTID_ESCAPED_MAX];
    const mintid_format *fmt = NULL;
    if (s != NULL && len < sizeof name && memchr(s, '\0', len) == NULL) {
        memcpy(name, s, len + 1);
        for (char *p = name; *p != '\0'; p++)
            if (*p == '_')
                *p = '-';
        fmt = mintid_format_find(s);
        if (fmt == NULL)
            fmt = mintid_format_find(name);
    }
    if (fmt == NULL) {
        /* As the command says it. */
        char names[MINTID_FORMAT_NAMES_MAX];
        size_t n = 0;
        for (int i = 0; i < MINTID_FORMAT_COUNT && n < sizeof names; i++)
            n += (size_t)snprintf(names + n, sizeof names - n, " %s", mintid_format_get((mintid_format_id)i)->name);
        error_msg(ctx, "unknown format '%s'; formats are:%s", escaped(s ? s : "", s ? len : 0, safe, sizeof safe),
                  names);
    }
    return fmt;
}

/* The epoch this connection reads and mints fmt's IDs with. */
static int64_t conn_epoch(const conn *c, const mintid_format *fmt) {
    return fmt->epoch_settable && c->epoch[fmt->id] != MINTID_EPOCH_DEFAULT ? c->epoch[fmt->id] : fmt->epoch_ms;
}

static bool node_applies(const mintid_format *fmt) { return fmt->node_bits > 0 && !fmt->node_optional; }

/* ---- generators ---------------------------------------------------------------------- */

/*
 * A new host-wide generator for fmt with cfg's node and epoch, or NULL
 * with the SQL error set.
 */
static mintid_gen *new_generator(sqlite3_context *ctx, const mintid_format *fmt, const mintid_config *cfg) {
    /* The directory and the id space as every home reads them. */
    char dir[PATH_MAX], space[MINTID_ID_SPACE_MAX + 1], env_why[512];
    if (mintid_env_host_dir(dir, sizeof dir, env_why, sizeof env_why) != MINTID_OK ||
        mintid_env_id_space(space, sizeof space, env_why, sizeof env_why) != MINTID_OK) {
        error_msg(ctx, "%s", env_why);
        return NULL;
    }
    mintid_gen *gen = NULL;
    int rc = mintid_gen_new_host(fmt, cfg, NULL, &gen);
    if (rc == MINTID_EWARRANT || (cfg->node == MINTID_NODE_HOST && rc == MINTID_EHOSTSTATE && *mintid_host_why())) {
        error_msg(ctx, "%s: %s", fmt->name, mintid_host_why());
    } else if (rc == MINTID_EHOST || rc == MINTID_EHOSTSTATE) {
        const char *why = rc == MINTID_EHOST ? strerror(errno) : NULL;
        error_msg(ctx, "%s: in %s: %s%s%s (MINTID_HOST_DIR names the directory)", fmt->name, dir, mintid_strerror(rc),
                  why != NULL ? ": " : "", why != NULL ? why : "");
    } else if (rc == MINTID_ETIME) {
        error_msg(ctx, "%s: the epoch %" PRId64 " is in the future", fmt->name, cfg->epoch_ms);
    } else if (rc != MINTID_OK) {
        error_msg(ctx, "%s: %s", fmt->name, mintid_strerror(rc));
    }
    return rc == MINTID_OK ? gen : NULL;
}

/*
 * The connection's source of the slot's format: the process's one for the
 * connection's settings, made on first use. NULL with the SQL error set.
 */
static source *slot_source(sqlite3_context *ctx, slot *s) {
    conn *c = s->c;
    const mintid_format *fmt = s->fmt;
    if (c->src[fmt->id] != NULL)
        return c->src[fmt->id];
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    /* As the command: a used-up millisecond waits for the next one, so one
     * statement may mint any number of IDs. */
    cfg.overflow = MINTID_OVERFLOW_WAIT;
    /* A batch reads the clock once: each ID is checked against the clock
     * when it is handed out (source_next). */
    cfg.ids_per_reading = BATCH_MAX;
    if (node_applies(fmt)) {
        int64_t max = (INT64_C(1) << fmt->node_bits) - 1;
        if (c->node > max) {
            error_msg(ctx, "%s: node %" PRId64 " does not fit: %s node ids are 0..%" PRId64 " (mintid_config('node'))",
                      fmt->name, c->node, fmt->name, max);
            return NULL;
        }
        cfg.node = c->node;
    }
    cfg.epoch_ms = conn_epoch(c, fmt);
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&sources_lock);
    source *src = sources;
    while (src != NULL && !(src->fmt == fmt && src->node == cfg.node && !src->stale &&
                            (src->epoch_ms == cfg.epoch_ms || cfg.node == MINTID_NODE_HOST)))
        src = src->next;
    if (src == NULL) {
        mintid_gen *gen = new_generator(ctx, fmt, &cfg);
        if (gen != NULL && (src = calloc(1, sizeof *src)) == NULL) {
            mintid_gen_free(gen);
            sqlite3_result_error_nomem(ctx);
        }
        if (src != NULL) {
            pthread_mutex_init(&src->lock, NULL);
            src->fmt = fmt;
            src->node = cfg.node;
            /* Node host: the epoch is the server's, as the generator took it. */
            src->epoch_ms = mintid_gen_config(gen)->epoch_ms;
            src->gen = gen;
            src->want = 1;
            src->next = sources;
            sources = src;
        }
    }
    if (src != NULL)
        src->refs++;
    pthread_mutex_unlock(&sources_lock);
    c->src[fmt->id] = src;
    return src;
}

/* The Unix ms of the system clock, as the library reads it. */
static int64_t clock_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The next ID of a source: the batch's next one while the clock is still
 * in that ID's time unit, else the first of a new batch, minted now. So
 * every ID carries the time unit (the millisecond, for most formats) in
 * which it is handed out, as one minted on the spot does: a batch saves
 * the host-wide lock per ID, never the clock. A batch that outlives its
 * unit is dropped (those IDs are never used by anyone); the next one is
 * twice as large when one is used up within its unit, up to BATCH_MAX,
 * and half as large when one is dropped, so a process that mints less
 * than one ID per unit draws one at a time and spends none.
 */
static int source_next(source *src, mintid_id *out) {
    int64_t now = clock_ms();
    pthread_mutex_lock(&src->lock);
    if (src->pos < src->len) {
        if (now >= src->from && now < src->until) {
            *out = src->ids[src->pos++];
            pthread_mutex_unlock(&src->lock);
            return MINTID_OK;
        }
        src->want = src->want > 1 ? src->want / 2 : 1; /* the unit passed: fewer next time */
    } else if (src->len > 0 && now < src->until) {
        src->want = src->want < BATCH_MAX ? src->want * 2 : BATCH_MAX; /* used up within its unit: more next time */
    }
    src->pos = src->len = 0;
    long n = mintid_gen_next_n(src->gen, src->ids, src->want);
    if (n > 0) {
        /* The batch keeps the IDs of its first ID's unit (a call may wait
         * for the next unit midway). */
        const mintid_format *fmt = src->fmt;
        src->from = mintid_id_unix_ms(fmt, &src->ids[0], src->epoch_ms);
        src->until = src->from + (int64_t)fmt->ts_unit_ms;
        while (n > 1 && mintid_id_unix_ms(fmt, &src->ids[n - 1], src->epoch_ms) != src->from)
            n--;
        *out = src->ids[0];
        src->pos = 1;
        src->len = (unsigned)n;
    }
    pthread_mutex_unlock(&src->lock);
    return n > 0 ? MINTID_OK : (int)n;
}

static bool mint(sqlite3_context *ctx, slot *s, mintid_id *id) {
    source *src = slot_source(ctx, s);
    if (src == NULL)
        return false;
    int rc = source_next(src, id);
    if (rc == MINTID_EWARRANT && src->node == MINTID_NODE_HOST) {
        /* The next call reads the node id the server holds then (a new lease's). */
        error_msg(ctx, "%s: %s", s->fmt->name, mintid_host_why());
        pthread_mutex_lock(&sources_lock);
        src->stale = true;
        pthread_mutex_unlock(&sources_lock);
        s->c->src[s->fmt->id] = NULL;
        source_release(src);
        return false;
    }
    if (rc != MINTID_OK) {
        /* As the command: a host-wide state ahead of the clock (left by a run
         * under a clock set ahead) holds every generator back until the clock
         * reaches it; say where it is and how far ahead. */
        mintid_gen_stats st;
        int64_t now = 0;
        char when[MINTID_TIME_MAX];
        const char *path = mintid_gen_host_path(src->gen);
        mintid_gen_get_stats(src->gen, &st);
        if ((rc == MINTID_ETIMEDOUT || rc == MINTID_ECLOCKBACK) && path != NULL &&
            mintid_clock_system(NULL, &now) == MINTID_OK && st.last_unix_ms > now &&
            mintid_format_time(st.last_unix_ms, when, sizeof when) >= 0)
            error_msg(ctx, "%s: %s; the host-wide state %s has minted up to %s, %" PRId64 " ms ahead of the clock",
                      s->fmt->name, mintid_strerror(rc), path, when, st.last_unix_ms - now);
        else
            error_msg(ctx, "%s: %s", s->fmt->name, rc == MINTID_EWARRANT ? mintid_host_why() : mintid_strerror(rc));
        return false;
    }
    return true;
}

/* gen_<format>([prefix]): the canonical text; a type prefix where the format has one. */
static void fn_gen_text(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    slot *s = sqlite3_user_data(ctx);
    const char *prefix = argc > 0 ? (const char *)sqlite3_value_text(argv[0]) : NULL;
    if (prefix != NULL && prefix[0] != '\0' &&
        mintid_prefix_check(s->fmt, prefix, (size_t)sqlite3_value_bytes(argv[0])) != MINTID_OK) {
        char safe[MINTID_ESCAPED_MAX];
        error_msg(ctx, "%s: prefix '%s': a %s prefix is 1 to %u of a-z and '_', starting and ending with a letter",
                  s->fmt->name, escaped(prefix, (size_t)sqlite3_value_bytes(argv[0]), safe, sizeof safe), s->fmt->name,
                  s->fmt->prefix_max);
        return;
    }
    mintid_id id;
    char text[MINTID_TEXT_MAX];
    if (!mint(ctx, s, &id))
        return;
    int n = mintid_encode_prefixed(s->fmt, MINTID_FORM_TEXT, &id, prefix, text, sizeof text);
    if (n < 0)
        error_msg(ctx, "%s: %s", s->fmt->name, mintid_strerror(n));
    else
        sqlite3_result_text(ctx, text, n, SQLITE_TRANSIENT);
}

/* gen_<format>_int(): a 64-bit ID as an INTEGER (two's complement past 2^63-1). */
static void fn_gen_int(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc, (void)argv;
    slot *s = sqlite3_user_data(ctx);
    mintid_id id;
    if (mint(ctx, s, &id))
        sqlite3_result_int64(ctx, (sqlite3_int64)mintid_id_to_u64(&id));
}

/* gen_<format>_blob(): the ID's bytes, big-endian. */
static void fn_gen_blob(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    (void)argc, (void)argv;
    slot *s = sqlite3_user_data(ctx);
    mintid_id id;
    if (mint(ctx, s, &id))
        sqlite3_result_blob(ctx, id.bytes, s->fmt->bits / 8, SQLITE_TRANSIENT);
}

/* ---- reading IDs --------------------------------------------------------------------- */

/* What the decoders return: the ID in every shape they need. */
typedef struct read_result {
    const mintid_format *fmt;
    mintid_id id;
    char prefix[MINTID_PREFIX_MAX + 1];
} read_result;

/* Bytes of a 64-bit format past its largest value, or that the format's check refuses. */
static bool check_value(sqlite3_context *ctx, const mintid_format *fmt, const mintid_id *id) {
    if (fmt->bits == 64 && mintid_id_to_u64(id) > fmt->value_max) {
        error_msg(ctx, "%s: value %" PRIu64 " exceeds the format's largest, %" PRIu64, fmt->name, mintid_id_to_u64(id),
                  fmt->value_max);
        return false;
    }
    if (mintid_id_check(fmt, id) != MINTID_OK) {
        error_msg(ctx, "%s: not a valid ID: %s", fmt->name, fmt->invalid_why != NULL ? fmt->invalid_why : "");
        return false;
    }
    return true;
}

/*
 * Ends msg[0..n) (an "is ambiguous: it could be" message) with the
 * candidate formats of cands and how to choose one.
 */
static void ambiguous_tail(char *msg, size_t cap, int n, unsigned cands) {
    const char *sep = " ";
    for (int i = 0; i < MINTID_FORMAT_COUNT && n > 0 && (size_t)n < cap; i++)
        if (cands & (1u << i)) {
            n += snprintf(msg + n, cap - (size_t)n, "%s%s", sep, mintid_format_get((mintid_format_id)i)->name);
            sep = " or ";
        }
    if (n > 0 && (size_t)n < cap)
        snprintf(msg + n, cap - (size_t)n, "; name the format as the second argument");
}

/* A text ID: of fmt (its every form), or of the format its shape says. */
static bool read_text(sqlite3_context *ctx, const conn *c, const char *s, size_t len, const mintid_format *fmt,
                      read_result *r) {
    char safe[MINTID_ESCAPED_MAX], msg[MSG_MAX];
    if (len == 0) {
        sqlite3_result_error(ctx, "empty text; expected an ID", -1);
        return false;
    }
    if (memchr(s, '\0', len) != NULL) {
        error_msg(ctx, "'%s' contains a NUL byte", escaped(s, len, safe, sizeof safe));
        return false;
    }
    if (fmt == NULL) {
        unsigned cands = 0;
        int64_t now = 0;
        mintid_form form;
        mintid_clock_system(NULL, &now);
        int rc = mintid_guess_recent(s, len, now, MINTID_EPOCH_DEFAULT, &r->fmt, &r->id, &form, &cands);
        if (rc == MINTID_OK)
            rc = mintid_decode_prefixed(r->fmt, form, s, len, &r->id, NULL, r->prefix);
        if (rc == MINTID_OK)
            return true;
        if (rc == MINTID_EAMBIGUOUS) {
            int n = snprintf(msg, sizeof msg, "'%s' is ambiguous: it could be", escaped(s, len, safe, sizeof safe));
            ambiguous_tail(msg, sizeof msg, n, cands);
            sqlite3_result_error(ctx, msg, -1);
        } else {
            error_msg(ctx,
                      "'%s' does not have the shape of any format's ID; name the format as the second argument to "
                      "read it as one",
                      escaped(s, len, safe, sizeof safe));
        }
        return false;
    }
    (void)c;
    r->fmt = fmt;
    int rc = mintid_decode_prefixed(fmt, MINTID_FORM_ANY, s, len, &r->id, NULL, r->prefix);
    if (rc == MINTID_OK && mintid_id_check(fmt, &r->id) != MINTID_OK)
        rc = MINTID_EINVALID;
    if (rc != MINTID_OK) {
        if (mintid_explain(fmt, MINTID_FORM_ANY, s, len, rc, msg, sizeof msg) > 0)
            sqlite3_result_error(ctx, msg, -1);
        else
            error_msg(ctx, "%s: %s", fmt->name, mintid_strerror(rc));
        return false;
    }
    return true;
}

/* A blob ID: fmt's bytes, or those of the one format of that length they can be. */
static bool read_blob(sqlite3_context *ctx, const uint8_t *b, size_t len, const mintid_format *fmt, read_result *r) {
    r->prefix[0] = '\0';
    if (fmt != NULL) {
        if (len != fmt->bits / 8u) {
            error_msg(ctx, "%s: a blob of %zu bytes is no ID, which has %u", fmt->name, len, fmt->bits / 8u);
            return false;
        }
        r->fmt = fmt;
        memset(&r->id, 0, sizeof r->id);
        memcpy(r->id.bytes, b, len);
        return check_value(ctx, fmt, &r->id);
    }
    /* As mintid_guess_recent() for text: the only candidate, else the only
     * one whose time is recent. */
    unsigned cands = 0, recent = 0, sizes = 0;
    int64_t now = 0;
    mintid_clock_system(NULL, &now);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        mintid_id id = {{0}};
        sizes |= 1u << (f->bits / 8u);
        if (len != f->bits / 8u)
            continue;
        memcpy(id.bytes, b, len);
        if ((f->bits == 64 && mintid_id_to_u64(&id) > f->value_max) || mintid_id_check(f, &id) != MINTID_OK)
            continue;
        cands |= 1u << i;
        int64_t t = mintid_id_unix_ms(f, &id, MINTID_EPOCH_DEFAULT);
        if (t >= now - MINTID_GUESS_RECENT_MS && t <= now + MINTID_GUESS_AHEAD_MS)
            recent |= 1u << i;
    }
    unsigned pick = (cands & (cands - 1)) == 0 ? cands : (recent & (recent - 1)) == 0 ? recent : 0;
    if (pick != 0) {
        r->fmt = mintid_format_get((mintid_format_id)__builtin_ctz(pick));
        memset(&r->id, 0, sizeof r->id);
        memcpy(r->id.bytes, b, len);
        return true;
    }
    char msg[MSG_MAX];
    int n;
    if (cands == 0 && !(len < 32 && (sizes & (1u << len)))) {
        n = snprintf(msg, sizeof msg, "a blob of %zu bytes is no ID of any format, which have", len);
        const char *sep = " ";
        for (unsigned k = 0; k < 32 && n > 0 && (size_t)n < sizeof msg; k++)
            if (sizes & (1u << k)) {
                n += snprintf(msg + n, sizeof msg - (size_t)n, "%s%u", sep, k);
                sep = (sizes >> (k + 1)) & ((sizes >> (k + 1)) - 1) ? ", " : " or ";
            }
        if (n > 0 && (size_t)n < sizeof msg)
            snprintf(msg + n, sizeof msg - (size_t)n, " bytes");
    } else if (cands == 0) {
        n = snprintf(msg, sizeof msg, "a blob of %zu bytes is not a valid ID of any format of that length", len);
    } else {
        n = snprintf(msg, sizeof msg, "a blob of %zu bytes is ambiguous: it could be", len);
        ambiguous_tail(msg, sizeof msg, n, cands);
    }
    sqlite3_result_error(ctx, msg, -1);
    return false;
}

/*
 * Reads an ID from any SQL value: text (any text form of fmt, or a shape
 * that names its format), an INTEGER (a 64-bit format's value, two's
 * complement past 2^63-1; without fmt, read as its decimal text), a BLOB
 * (the ID's bytes). Returns false after setting the SQL error.
 */
static bool read_id(sqlite3_context *ctx, const conn *c, sqlite3_value *v, const mintid_format *fmt, read_result *r) {
    r->prefix[0] = '\0';
    switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: {
        uint64_t u = (uint64_t)sqlite3_value_int64(v);
        if (fmt == NULL) {
            char dec[24];
            int n = snprintf(dec, sizeof dec, "%" PRIu64, u);
            return read_text(ctx, c, dec, (size_t)n, NULL, r);
        }
        if (fmt->bits != 64) {
            error_msg(ctx, "%s: an INTEGER is no %s ID, which has %u bits: give its text or its BLOB", fmt->name,
                      fmt->name, fmt->bits);
            return false;
        }
        r->fmt = fmt;
        mintid_id_from_u64(&r->id, u);
        return check_value(ctx, fmt, &r->id);
    }
    case SQLITE_BLOB: {
        const uint8_t *b = sqlite3_value_blob(v);
        return read_blob(ctx, b, (size_t)sqlite3_value_bytes(v), fmt, r);
    }
    case SQLITE_TEXT: {
        const char *s = (const char *)sqlite3_value_text(v);
        if (s == NULL) {
            sqlite3_result_error_nomem(ctx);
            return false;
        }
        return read_text(ctx, c, s, (size_t)sqlite3_value_bytes(v), fmt, r);
    }
    default:
        error_msg(ctx, "%s%sa REAL is no ID; give its text, INTEGER or BLOB", fmt != NULL ? fmt->name : "",
                  fmt != NULL ? ": " : "");
        return false;
    }
}

/* The decoders' arguments: (id) or (id, format); NULL gives NULL. */
static bool decoder_args(sqlite3_context *ctx, int argc, sqlite3_value **argv, read_result *r) {
    const conn *c = ctx_conn(ctx);
    const mintid_format *fmt = NULL;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL || (argc > 1 && sqlite3_value_type(argv[1]) == SQLITE_NULL)) {
        sqlite3_result_null(ctx);
        return false;
    }
    if (argc > 1 && (fmt = format_arg(ctx, argv[1])) == NULL)
        return false;
    return read_id(ctx, c, argv[0], fmt, r);
}

/* mintid_inspect(id [, format]): the inspect JSON object, as `mintid inspect` prints it. */
static void fn_inspect(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    const conn *c = ctx_conn(ctx);
    read_result r;
    char json[MINTID_JSON_MAX];
    if (!decoder_args(ctx, argc, argv, &r))
        return;
    int n = mintid_id_to_json_prefixed(r.fmt, &r.id, r.prefix, conn_epoch(c, r.fmt), json, sizeof json);
    if (n < 0) {
        error_msg(ctx, "%s: %s", r.fmt->name, mintid_strerror(n));
        return;
    }
    sqlite3_result_text(ctx, json, n, SQLITE_TRANSIENT);
    sqlite3_result_subtype(ctx, JSON_SUBTYPE);
}

/* mintid_timestamp(id [, format]): the ID's time as RFC 3339 UTC; NULL for an ID that carries none. */
static void fn_timestamp(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    const conn *c = ctx_conn(ctx);
    read_result r;
    char json[MINTID_JSON_MAX], when[MINTID_TIME_MAX];
    if (!decoder_args(ctx, argc, argv, &r))
        return;
    /* Whether the ID carries a time at all (a typeid over a UUID of another
     * version does not) is the inspect object's to say. */
    int64_t epoch = conn_epoch(c, r.fmt);
    int n = mintid_id_to_json_prefixed(r.fmt, &r.id, r.prefix, epoch, json, sizeof json);
    if (n < 0) {
        error_msg(ctx, "%s: %s", r.fmt->name, mintid_strerror(n));
        return;
    }
    if (strstr(json, "\"unix_ms\":null") != NULL ||
        (n = mintid_format_time(mintid_id_unix_ms(r.fmt, &r.id, epoch), when, sizeof when)) < 0) {
        sqlite3_result_null(ctx);
        return;
    }
    sqlite3_result_text(ctx, when, n, SQLITE_TRANSIENT);
}

/* ---- ranges -------------------------------------------------------------------------- */

/* The time argument of <format>_min/_max: Unix ms (INTEGER or text) or RFC 3339 text. */
static bool time_arg(sqlite3_context *ctx, const mintid_format *fmt, sqlite3_value *v, int64_t *unix_ms) {
    int type = sqlite3_value_type(v); /* before the text: a conversion may change it */
    if (type == SQLITE_INTEGER) {
        *unix_ms = sqlite3_value_int64(v);
        return true;
    }
    const char *s = (const char *)sqlite3_value_text(v);
    size_t len = (size_t)sqlite3_value_bytes(v);
    if (type == SQLITE_TEXT && s != NULL && memchr(s, '\0', len) == NULL && mintid_parse_time(s, unix_ms) == MINTID_OK)
        return true;
    char safe[MINTID_ESCAPED_MAX + 8];
    error_msg(ctx, "%s: %s is not a time: give Unix milliseconds or RFC 3339 UTC (2015-01-01T00:00:00Z)", fmt->name,
              shown(v, type, s, "", safe, sizeof safe));
    return false;
}

enum { AS_TEXT, AS_INT, AS_BLOB };

static void range_result(sqlite3_context *ctx, int want_max, int as, int argc, sqlite3_value **argv) {
    (void)argc;
    const slot *s = sqlite3_user_data(ctx);
    int64_t t;
    mintid_id lo, hi;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
        sqlite3_result_null(ctx);
        return;
    }
    if (!time_arg(ctx, s->fmt, argv[0], &t))
        return;
    if (mintid_range(s->fmt, t, conn_epoch(s->c, s->fmt), &lo, &hi) != MINTID_OK) {
        error_msg(ctx, "%s: %" PRId64 " is a time %s cannot carry (its epoch to its last timestamp)", s->fmt->name, t,
                  s->fmt->name);
        return;
    }
    const mintid_id *id = want_max ? &hi : &lo;
    if (as == AS_INT) {
        sqlite3_result_int64(ctx, (sqlite3_int64)mintid_id_to_u64(id));
    } else if (as == AS_BLOB) {
        sqlite3_result_blob(ctx, id->bytes, s->fmt->bits / 8, SQLITE_TRANSIENT);
    } else {
        char text[MINTID_TEXT_MAX];
        int n = mintid_encode(s->fmt, MINTID_FORM_TEXT, id, text, sizeof text);
        if (n < 0)
            error_msg(ctx, "%s: %s", s->fmt->name, mintid_strerror(n));
        else
            sqlite3_result_text(ctx, text, n, SQLITE_TRANSIENT);
    }
}

#define RANGE_FN(name, want_max, as)                                                                                   \
    static void name(sqlite3_context *ctx, int argc, sqlite3_value **argv) {                                           \
        range_result(ctx, want_max, as, argc, argv);                                                                   \
    }
RANGE_FN(fn_min_text, 0, AS_TEXT)
RANGE_FN(fn_max_text, 1, AS_TEXT)
RANGE_FN(fn_min_int, 0, AS_INT)
RANGE_FN(fn_max_int, 1, AS_INT)
RANGE_FN(fn_min_blob, 0, AS_BLOB)
RANGE_FN(fn_max_blob, 1, AS_BLOB)

/* ---- settings ------------------------------------------------------------------------ */

/* The format whose epoch setting is `name` ("nanoflake_epoch"), or NULL. */
static const mintid_format *epoch_setting(const char *name) {
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        char sn[SQL_NAME_MAX], want[SQL_NAME_MAX + 8];
        sql_name(f, sn, sizeof sn);
        snprintf(want, sizeof want, "%s_epoch", sn);
        if (f->epoch_settable && strcmp(name, want) == 0)
            return f;
    }
    return NULL;
}

/*
 * mintid_config(name [, value]): a setting of this connection, set when a
 * value is given; returns its value. 'node' (0 up to the widest node field,
 * checked against each format's width when it mints) and '<format>_epoch'
 * for every format whose epoch is settable (a name the format knows, Unix
 * ms or RFC 3339, never in the future; NULL sets the format's default).
 * Setting either starts the connection's generators anew on their next use.
 */
static void fn_config(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    conn *c = ctx_conn(ctx);
    const char *name = (const char *)sqlite3_value_text(argv[0]);
    char safe[MINTID_ESCAPED_MAX + 8], names[MSG_MAX];
    /* A name with a NUL in it is no setting's, whatever comes before the NUL. */
    bool whole = name != NULL && memchr(name, '\0', (size_t)sqlite3_value_bytes(argv[0])) == NULL;
    const mintid_format *ef = whole ? epoch_setting(name) : NULL;
    if (whole && strcmp(name, "node") == 0) {
        if (argc > 1) {
            int64_t max = node_max();
            sqlite3_value *v = argv[1];
            int type = sqlite3_value_type(v); /* before the text: a conversion may change it */
            const char *t = (const char *)sqlite3_value_text(v);
            int64_t node = -1;
            if (type == SQLITE_INTEGER) {
                node = sqlite3_value_int64(v);
            } else if (type == SQLITE_TEXT && t != NULL && strcmp(t, "host") == 0) {
                node = MINTID_NODE_HOST;
            } else if (type == SQLITE_TEXT && t != NULL && t[0] >= '0' && t[0] <= '9' &&
                       memchr(t, '\0', (size_t)sqlite3_value_bytes(v)) == NULL) {
                char *end;
                errno = 0;
                long long x = strtoll(t, &end, 10);
                node = errno == 0 && *end == '\0' ? x : -1;
            }
            if ((node < 0 && node != MINTID_NODE_HOST) || node > max) {
                error_msg(ctx, "mintid_config: node %s: node ids are 0..%" PRId64 ", or 'host'",
                          shown(v, type, t, "NULL", safe, sizeof safe), max);
                return;
            }
            c->node = node;
            drop_generators(c);
        }
        if (c->node == MINTID_NODE_HOST)
            sqlite3_result_text(ctx, "host", -1, SQLITE_STATIC);
        else
            sqlite3_result_int64(ctx, c->node);
        return;
    }
    if (ef != NULL) {
        if (argc > 1) {
            sqlite3_value *v = argv[1];
            int type = sqlite3_value_type(v); /* before the text: a conversion may change it */
            /* An INTEGER is read as its decimal text, so that it is checked as the text is. */
            const char *t = (const char *)sqlite3_value_text(v);
            int64_t ms = MINTID_EPOCH_DEFAULT, now = 0;
            if (type != SQLITE_NULL && ((type != SQLITE_TEXT && type != SQLITE_INTEGER) || t == NULL ||
                                        memchr(t, '\0', (size_t)sqlite3_value_bytes(v)) != NULL ||
                                        mintid_parse_epoch(ef, t, &ms) != MINTID_OK)) {
                int n = snprintf(names, sizeof names, "%s", "");
                for (const mintid_epoch_name *e = ef->epoch_names; e != NULL && e->name != NULL && n >= 0; e++)
                    n += snprintf(names + n, sizeof names - (size_t)n, "%s%s",
                                  e == ef->epoch_names ? ", or one of " : ", ", e->name);
                error_msg(ctx,
                          "mintid_config: %s %s is not a time: give Unix milliseconds or RFC 3339 UTC "
                          "(2015-01-01T00:00:00Z)%s",
                          name, shown(v, type, t, "", safe, sizeof safe), names);
                return;
            }
            if (type != SQLITE_NULL && (mintid_clock_system(NULL, &now) != MINTID_OK || ms > now)) {
                error_msg(ctx, "mintid_config: %s %" PRId64 " is in the future", name, ms);
                return;
            }
            c->epoch[ef->id] = ms;
            drop_generators(c);
        }
        sqlite3_result_int64(ctx, conn_epoch(c, ef));
        return;
    }
    int n = snprintf(names, sizeof names, "node");
    for (int i = 0; i < MINTID_FORMAT_COUNT && n > 0 && (size_t)n < sizeof names; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        char sn[SQL_NAME_MAX];
        sql_name(f, sn, sizeof sn);
        if (f->epoch_settable)
            n += snprintf(names + n, sizeof names - (size_t)n, ", %s_epoch", sn);
    }
    error_msg(ctx, "mintid_config: unknown setting '%s'; settings are: %s",
              name != NULL ? escaped(name, (size_t)sqlite3_value_bytes(argv[0]), safe, sizeof safe) : "NULL", names);
}

/* ---- registration -------------------------------------------------------------------- */

typedef void (*sql_fn)(sqlite3_context *, int, sqlite3_value **);

/* Registers one function; the connection's reference is released when SQLite drops it. */
static int add(sqlite3 *db, conn *c, const char *name, int nargs, int flags, void *data, sql_fn fn) {
    c->refs++;
    return sqlite3_create_function_v2(db, name, nargs, flags, data, fn, NULL, NULL, conn_release);
}

/* One format's functions, named from its SQL name. */
static int add_format(sqlite3 *db, conn *c, slot *s) {
    const mintid_format *f = s->fmt;
    char sn[SQL_NAME_MAX], name[SQL_NAME_MAX + 16];
    int rc = SQLITE_OK;
    sql_name(f, sn, sizeof sn);
    snprintf(name, sizeof name, "gen_%s", sn);
    rc = rc ? rc : add(db, c, name, 0, GENERATOR_FLAGS, s, fn_gen_text);
    if (f->prefix_max > 0)
        rc = rc ? rc : add(db, c, name, 1, GENERATOR_FLAGS, s, fn_gen_text);
    snprintf(name, sizeof name, "gen_%s_blob", sn);
    rc = rc ? rc : add(db, c, name, 0, GENERATOR_FLAGS, s, fn_gen_blob);
    snprintf(name, sizeof name, "%s_min", sn);
    rc = rc ? rc : add(db, c, name, 1, DECODER_FLAGS, s, fn_min_text);
    snprintf(name, sizeof name, "%s_max", sn);
    rc = rc ? rc : add(db, c, name, 1, DECODER_FLAGS, s, fn_max_text);
    snprintf(name, sizeof name, "%s_min_blob", sn);
    rc = rc ? rc : add(db, c, name, 1, DECODER_FLAGS, s, fn_min_blob);
    snprintf(name, sizeof name, "%s_max_blob", sn);
    rc = rc ? rc : add(db, c, name, 1, DECODER_FLAGS, s, fn_max_blob);
    if (f->bits == 64) {
        snprintf(name, sizeof name, "gen_%s_int", sn);
        rc = rc ? rc : add(db, c, name, 0, GENERATOR_FLAGS, s, fn_gen_int);
        snprintf(name, sizeof name, "%s_min_int", sn);
        rc = rc ? rc : add(db, c, name, 1, DECODER_FLAGS, s, fn_min_int);
        snprintf(name, sizeof name, "%s_max_int", sn);
        rc = rc ? rc : add(db, c, name, 1, DECODER_FLAGS, s, fn_max_int);
    }
    return rc;
}

/* The inspect object carries SQLite's JSON subtype; SQLite 3.45 and later ask functions that set one to say so. */
#ifdef SQLITE_RESULT_SUBTYPE
#define JSON_SUBTYPE_FLAG SQLITE_RESULT_SUBTYPE
#else
#define JSON_SUBTYPE_FLAG 0
#endif

/*
 * The entry point: registers every function on the connection. The node id
 * starts as MINTID_NODE says (0 when it is not set); a value that is not a
 * node id refuses the load, saying why.
 */
__attribute__((visibility("default"))) int sqlite3_mintid_init(sqlite3 *db, char **pzErrMsg,
                                                               const sqlite3_api_routines *pApi);
int sqlite3_mintid_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
    SQLITE_EXTENSION_INIT2(pApi);
    int64_t node;
    char why[512];
    if (mintid_env_node(NULL, &node, why, sizeof why) != MINTID_OK) {
        *pzErrMsg = sqlite3_mprintf("mintid: %s", why);
        return SQLITE_ERROR;
    }
    if (node == -1)
        node = 0;
    conn *c = sqlite3_malloc(sizeof *c);
    if (c == NULL)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    c->node = node;
    c->refs = 1; /* this function's own, released below */
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        c->epoch[i] = MINTID_EPOCH_DEFAULT;
        c->slots[i] = (slot){c, mintid_format_get((mintid_format_id)i)};
    }
    int rc = SQLITE_OK;
    for (int i = 0; i < MINTID_FORMAT_COUNT && rc == SQLITE_OK; i++)
        rc = add_format(db, c, &c->slots[i]);
    /* The functions that are not per format take the connection through slot 0. */
    void *any = &c->slots[0];
    for (int nargs = 1; nargs <= 2 && rc == SQLITE_OK; nargs++) {
        int flags = nargs == 1 ? GUESS_FLAGS : DECODER_FLAGS;
        rc = add(db, c, "mintid_inspect", nargs, flags | JSON_SUBTYPE_FLAG, any, fn_inspect);
        rc = rc ? rc : add(db, c, "mintid_timestamp", nargs, flags, any, fn_timestamp);
        rc = rc ? rc : add(db, c, "mintid_config", nargs, CONFIG_FLAGS, any, fn_config);
    }
    conn_release(any);
    /* SQLite replaces no function while a statement runs: loaded again by
     * load_extension() in SQL, the first function's registration fails and
     * the ones loaded first are left as they were. */
    if (rc == SQLITE_BUSY)
        *pzErrMsg = sqlite3_mprintf("mintid: loaded on this connection already, and SQLite replaces no function while "
                                    "a statement runs (load_extension()): they stay as they are");
    else if (rc != SQLITE_OK)
        *pzErrMsg = sqlite3_mprintf("mintid: registering the functions: %s", sqlite3_errstr(rc));
    return rc;
}
