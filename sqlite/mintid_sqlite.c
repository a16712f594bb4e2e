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
 * What a person gives (a format's name, a node id, an epoch, a type
 * prefix, an ID) is looked up and read by the library, and an error is the
 * library's sentence, with the SQLite error code of its status's class
 * (class_code()). What stays here is SQLite's glue: its value types, its
 * SQL names of formats ('ulid_flake'), the connection's settings.
 *
 * Each connection has its own settings (each format's node id and
 * settable epoch) and mints from the process's source for a format and
 * those settings, taken on first use and shared with the process's other
 * connections: a host-wide generator, of which every process of the host
 * that mints the format with the same node and epoch continues one
 * sequence, so many processes writing one database never collide (see
 * struct source).
 */
#include "mintid.h"

#include <sqlite3ext.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

SQLITE_EXTENSION_INIT1

/* SQLite's JSON functions read a text of this subtype as JSON, not as a string. */
#define JSON_SUBTYPE 74
#define MSG_MAX (MINTID_WHY_MAX + 160)
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

/* A format's node id when MINTID_NODE does not fit it: minting says why. */
#define NODE_ENV_REFUSED INT64_MIN

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
    int64_t node[MINTID_FORMAT_COUNT];  /* formats whose node field is not optional (node_applies) */
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

/* The formats that take the connection's node id: those whose node field is not optional. */
static bool node_applies(const mintid_format *fmt) { return fmt->node_bits > 0 && !fmt->node_optional; }

/* ---- errors -------------------------------------------------------------------------- */

/*
 * The SQLite error code of a status, by its class: the one place that
 * decides it (docs/sqlite.md, "Errors"). SQLite gives a function's error
 * to the caller as this code (sqlite3_errcode(), Python's
 * sqlite_errorname) beside the message. None of these codes makes SQLite
 * roll back the transaction, as SQLITE_IOERR, SQLITE_FULL and SQLITE_NOMEM
 * would in a statement that writes: a failed call fails its statement only.
 */
static int class_code(mintid_class cls) {
    switch (cls) {
    case MINTID_CLASS_NONE:
    case MINTID_CLASS_INPUT:
        return SQLITE_ERROR; /* the caller's words: the same call fails again */
    case MINTID_CLASS_CLOCK:
    case MINTID_CLASS_CAPACITY:
        return SQLITE_BUSY; /* not now: the same call may succeed later */
    case MINTID_CLASS_ENVIRONMENT:
        return SQLITE_CANTOPEN; /* the host: its host-wide state, memory, randomness, its mintidd */
    case MINTID_CLASS_PROGRAM:
        return SQLITE_INTERNAL; /* this extension's own mistake */
    }
    return SQLITE_INTERNAL;
}

/* Fails the call with a message and the code of status's class. */
static void fail(sqlite3_context *ctx, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(sqlite3_context *ctx, int status, const char *fmt, ...) {
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_result_error_code(ctx, class_code(mintid_status_class(status)));
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

/*
 * A format named by an SQL argument: its name, or its SQL name
 * ('ulid_flake'); else NULL with the library's sentence (the name a person
 * most likely meant) as the error.
 */
static const mintid_format *format_arg(sqlite3_context *ctx, sqlite3_value *v) {
    const char *s = (const char *)sqlite3_value_text(v);
    size_t len = s != NULL ? (size_t)sqlite3_value_bytes(v) : 0;
    char name[SQL_NAME_MAX], why[MINTID_WHY_MAX];
    const mintid_format *fmt = NULL;
    if (s != NULL && len < sizeof name && memchr(s, '_', len) != NULL && memchr(s, '\0', len) == NULL) {
        memcpy(name, s, len + 1);
        for (char *p = name; *p != '\0'; p++)
            if (*p == '_')
                *p = '-';
        fmt = mintid_format_find(name);
    }
    if (fmt == NULL) {
        int rc = mintid_lookup_format(s != NULL ? s : "", len, &fmt, why, sizeof why);
        if (rc != MINTID_OK) {
            fail(ctx, rc, "%s", why);
            return NULL;
        }
    }
    return fmt;
}

/* The epoch this connection reads and mints fmt's IDs with. */
static int64_t conn_epoch(const conn *c, const mintid_format *fmt) {
    return fmt->epoch_settable && c->epoch[fmt->id] != MINTID_EPOCH_DEFAULT ? c->epoch[fmt->id] : fmt->epoch_ms;
}

/* fmt's node id as MINTID_NODE says (0 when it is not set), or NODE_ENV_REFUSED. */
static int64_t env_node(const mintid_format *fmt) {
    int64_t node;
    if (mintid_env_node(fmt, &node, NULL, 0) != MINTID_OK)
        return NODE_ENV_REFUSED;
    return node == -1 ? 0 : node;
}

/* ---- generators ---------------------------------------------------------------------- */

/*
 * A new host-wide generator for fmt with cfg's node and epoch, or NULL
 * with the SQL error set.
 */
static mintid_gen *new_generator(sqlite3_context *ctx, const mintid_format *fmt, const mintid_config *cfg) {
    /* The directory and the id space as every home reads them. */
    char dir[PATH_MAX], space[MINTID_ID_SPACE_MAX + 1], why[MINTID_WHY_MAX];
    int rc = mintid_env_host_dir(dir, sizeof dir, why, sizeof why);
    if (rc == MINTID_OK)
        rc = mintid_env_id_space(space, sizeof space, why, sizeof why);
    if (rc != MINTID_OK) {
        fail(ctx, rc, "%s", why);
        return NULL;
    }
    mintid_gen *gen = NULL;
    rc = mintid_gen_new_host(fmt, cfg, NULL, &gen);
    if (rc != MINTID_OK) {
        int err = errno;
        mintid_gen_why(fmt, cfg, NULL, rc, err, why, sizeof why);
        fail(ctx, rc, "%s", why);
        return NULL;
    }
    return gen;
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
        if (c->node[fmt->id] == NODE_ENV_REFUSED) {
            /* MINTID_NODE, read again for its sentence: a node id this format cannot take. */
            char why[MINTID_WHY_MAX];
            int rc = mintid_env_node(fmt, &cfg.node, why, sizeof why);
            if (rc != MINTID_OK) {
                fail(ctx, rc, "%s", why);
                return NULL;
            }
            c->node[fmt->id] = cfg.node == -1 ? 0 : cfg.node;
        }
        cfg.node = c->node[fmt->id];
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
 * than one ID per unit draws one at a time and spends none. On failure,
 * *err is errno as the generator left it.
 */
static int source_next(source *src, mintid_id *out, int *err) {
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
    *err = errno; /* for mintid_gen_why() */
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
    int err = 0, rc = source_next(src, id, &err);
    if (rc == MINTID_OK)
        return true;
    char why[MINTID_WHY_MAX];
    mintid_gen_why(s->fmt, mintid_gen_config(src->gen), src->gen, rc, err, why, sizeof why);
    fail(ctx, rc, "%s", why);
    if (rc == MINTID_EWARRANT && src->node == MINTID_NODE_HOST) {
        /* The next call reads the node id the server holds then (a new lease's). */
        pthread_mutex_lock(&sources_lock);
        src->stale = true;
        pthread_mutex_unlock(&sources_lock);
        s->c->src[s->fmt->id] = NULL;
        source_release(src);
    }
    return false;
}

/* gen_<format>([prefix]): the canonical text; a type prefix where the format has one. */
static void fn_gen_text(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    slot *s = sqlite3_user_data(ctx);
    const char *prefix = argc > 0 ? (const char *)sqlite3_value_text(argv[0]) : NULL;
    size_t len = prefix != NULL ? (size_t)sqlite3_value_bytes(argv[0]) : 0;
    char why[MINTID_WHY_MAX];
    int rc = mintid_lookup_prefix(s->fmt, MINTID_FORM_TEXT, prefix, len, why, sizeof why);
    if (rc != MINTID_OK) {
        fail(ctx, rc, "%s", why);
        return;
    }
    mintid_id id;
    char text[MINTID_TEXT_MAX];
    if (!mint(ctx, s, &id))
        return;
    int n = mintid_encode_prefixed(s->fmt, MINTID_FORM_TEXT, &id, prefix, text, sizeof text);
    if (n < 0)
        fail(ctx, n, "%s: %s", s->fmt->name, mintid_strerror(n));
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

/*
 * Reads an ID from any SQL value, through the library: text (any text
 * form of fmt, or a shape that names its format), an INTEGER (a 64-bit
 * format's value, two's complement past 2^63-1), a BLOB (the ID's bytes).
 * Without fmt the library guesses it. Returns false after setting the SQL
 * error: the library's sentence, and where naming the format would settle
 * it, how to name it here.
 */
static bool read_id(sqlite3_context *ctx, const conn *c, sqlite3_value *v, const mintid_format *fmt,
                    mintid_reading *r) {
    char why[MINTID_WHY_MAX];
    int64_t epoch = fmt != NULL ? conn_epoch(c, fmt) : MINTID_EPOCH_DEFAULT;
    int rc;
    switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
        rc = mintid_read_u64(fmt, epoch, (uint64_t)sqlite3_value_int64(v), r, why, sizeof why);
        break;
    case SQLITE_BLOB:
        rc = mintid_read_bytes(fmt, epoch, sqlite3_value_blob(v), (size_t)sqlite3_value_bytes(v), r, why, sizeof why);
        break;
    case SQLITE_TEXT: {
        const char *s = (const char *)sqlite3_value_text(v);
        if (s == NULL) {
            sqlite3_result_error_nomem(ctx);
            return false;
        }
        rc = mintid_read_text(fmt, MINTID_FORM_ANY, epoch, s, (size_t)sqlite3_value_bytes(v), r, why, sizeof why);
        break;
    }
    default:
        fail(ctx, MINTID_EINVAL, "%s%sa REAL is no ID; give its text, INTEGER or BLOB", fmt != NULL ? fmt->name : "",
             fmt != NULL ? ": " : "");
        return false;
    }
    if (rc == MINTID_OK)
        return true;
    const char *hint = "";
    if (fmt == NULL && rc == MINTID_EAMBIGUOUS)
        hint = "; name the format as the second argument";
    else if (fmt == NULL && rc == MINTID_EINVALID && r->fmt == NULL)
        hint = "; name the format as the second argument to read it as one";
    fail(ctx, rc, "%s%s", why, hint);
    return false;
}

/* The decoders' arguments: (id) or (id, format); NULL gives NULL. */
static bool decoder_args(sqlite3_context *ctx, int argc, sqlite3_value **argv, mintid_reading *r) {
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
    mintid_reading r;
    char json[MINTID_JSON_MAX];
    if (!decoder_args(ctx, argc, argv, &r))
        return;
    int n = mintid_id_to_json_prefixed(r.fmt, &r.id, r.prefix, conn_epoch(c, r.fmt), json, sizeof json);
    if (n < 0) {
        fail(ctx, n, "%s: %s", r.fmt->name, mintid_strerror(n));
        return;
    }
    sqlite3_result_text(ctx, json, n, SQLITE_TRANSIENT);
    sqlite3_result_subtype(ctx, JSON_SUBTYPE);
}

/* mintid_timestamp(id [, format]): the ID's time as RFC 3339 UTC; NULL for an ID that carries none. */
static void fn_timestamp(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    const conn *c = ctx_conn(ctx);
    mintid_reading r;
    mintid_inspection in;
    if (!decoder_args(ctx, argc, argv, &r))
        return;
    int rc = mintid_inspect(r.fmt, &r.id, r.prefix, conn_epoch(c, r.fmt), &in);
    if (rc != MINTID_OK) {
        fail(ctx, rc, "%s: %s", r.fmt->name, mintid_strerror(rc));
        return;
    }
    /* A typeid over a UUID of another version carries no time. */
    if (!in.has_time || in.time[0] == '\0') {
        sqlite3_result_null(ctx);
        return;
    }
    sqlite3_result_text(ctx, in.time, -1, SQLITE_TRANSIENT);
}

/*
 * mintid_formats([format]): every format described as the library
 * describes it (mintid_describe(): fields, forms, capacity, epochs, the
 * last time an ID can carry under this connection's epoch), a JSON array;
 * or the one format named, a JSON object.
 */
static void fn_formats(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    const conn *c = ctx_conn(ctx);
    const mintid_format *only = NULL;
    if (argc == 1 && (only = format_arg(ctx, argv[0])) == NULL)
        return;
    size_t cap = (size_t)MINTID_FORMAT_COUNT * MINTID_DESCRIBE_MAX + 8, len = 0;
    char *out = sqlite3_malloc64(cap);
    if (out == NULL) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    if (only == NULL)
        out[len++] = '[';
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        if (only != NULL && f != only)
            continue;
        if (only == NULL && i > 0)
            out[len++] = ',';
        int n = mintid_describe(f, conn_epoch(c, f), out + len, cap - len);
        if (n < 0) {
            sqlite3_free(out);
            fail(ctx, n, "%s: %s", f->name, mintid_strerror(n));
            return;
        }
        len += (size_t)n;
    }
    if (only == NULL)
        out[len++] = ']';
    sqlite3_result_text(ctx, out, (int)len, sqlite3_free);
    sqlite3_result_subtype(ctx, JSON_SUBTYPE);
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
    char shown[MINTID_ESCAPED_MAX + 8], safe[MINTID_ESCAPED_MAX];
    if (type == SQLITE_BLOB)
        blob_shown(v, shown, sizeof shown);
    else
        snprintf(shown, sizeof shown, "'%s'", s != NULL && mintid_escape(s, len, safe, sizeof safe) >= 0 ? safe : "");
    fail(ctx, MINTID_EINVAL, "%s: %s is not a time: give Unix milliseconds or RFC 3339 UTC (2015-01-01T00:00:00Z)",
         fmt->name, shown);
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
    int rc = mintid_range(s->fmt, t, conn_epoch(s->c, s->fmt), &lo, &hi);
    if (rc != MINTID_OK) {
        fail(ctx, rc, "%s: %" PRId64 " is a time %s cannot carry (its epoch to its last timestamp)", s->fmt->name, t,
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
            fail(ctx, n, "%s: %s", s->fmt->name, mintid_strerror(n));
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

static bool epoch_applies(const mintid_format *fmt) { return fmt->epoch_settable; }

/* The format whose setting `name` is ("nanoflake_node" with suffix "_node"), if it has that setting; else NULL. */
static const mintid_format *format_setting(const char *name, const char *suffix, bool (*has)(const mintid_format *)) {
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        char sn[SQL_NAME_MAX], want[SQL_NAME_MAX + 8];
        sql_name(f, sn, sizeof sn);
        snprintf(want, sizeof want, "%s%s", sn, suffix);
        if (has(f) && strcmp(name, want) == 0)
            return f;
    }
    return NULL;
}

/*
 * The node id a value gives for fmt, or for every format that takes one
 * (fmt NULL: the setting 'node', which must fit each), as the library
 * looks it up: a number (an INTEGER, or its text) or 'host'. False with
 * the SQL error set.
 */
static bool node_value(sqlite3_context *ctx, const char *setting, const mintid_format *fmt, sqlite3_value *v,
                       int64_t *node) {
    char why[MINTID_WHY_MAX], shown[2 * BLOB_SHOWN_BYTES + 32];
    if (sqlite3_value_type(v) == SQLITE_BLOB) {
        fail(ctx, MINTID_EINVAL, "mintid_config('%s'): %s is not a node id: give a number or 'host'", setting,
             blob_shown(v, shown, sizeof shown));
        return false;
    }
    const char *t = (const char *)sqlite3_value_text(v);
    int rc = mintid_lookup_node(fmt, t, t != NULL ? (size_t)sqlite3_value_bytes(v) : 0, node, why, sizeof why);
    if (rc != MINTID_OK) {
        fail(ctx, rc, "mintid_config('%s'): %s", setting, why);
        return false;
    }
    /* The sentence of the widest format the id does not fit: the one a person setting it most likely meant. */
    const mintid_format *unfit = NULL;
    for (int i = 0; fmt == NULL && i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        if (node_applies(f) && mintid_check_node(f, *node, NULL, 0) != MINTID_OK &&
            (unfit == NULL || f->node_bits > unfit->node_bits))
            unfit = f;
    }
    if (unfit != NULL) {
        char sn[SQL_NAME_MAX];
        sql_name(unfit, sn, sizeof sn);
        rc = mintid_check_node(unfit, *node, why, sizeof why);
        fail(ctx, rc, "mintid_config('%s'): %s; '%s' is every format's node id: set %s's alone with '%s_node'", setting,
             why, setting, unfit->name, sn);
        return false;
    }
    return true;
}

/* The epoch a value gives for fmt, as the library looks it up: Unix ms (an INTEGER, or its text), RFC 3339, a name. */
static bool epoch_value(sqlite3_context *ctx, const char *setting, const mintid_format *fmt, sqlite3_value *v,
                        int64_t *ms) {
    char why[MINTID_WHY_MAX], shown[2 * BLOB_SHOWN_BYTES + 32];
    int rc;
    switch (sqlite3_value_type(v)) {
    case SQLITE_BLOB:
        fail(ctx, MINTID_EINVAL,
             "mintid_config('%s'): %s is not a time: give Unix milliseconds or RFC 3339 UTC (2015-01-01T00:00:00Z)",
             setting, blob_shown(v, shown, sizeof shown));
        return false;
    case SQLITE_INTEGER:
        *ms = sqlite3_value_int64(v);
        rc = mintid_check_epoch(fmt, *ms, why, sizeof why);
        break;
    default: {
        const char *t = (const char *)sqlite3_value_text(v);
        rc = mintid_lookup_epoch(fmt, t, t != NULL ? (size_t)sqlite3_value_bytes(v) : 0, ms, why, sizeof why);
    }
    }
    if (rc != MINTID_OK)
        fail(ctx, rc, "mintid_config('%s'): %s", setting, why);
    return rc == MINTID_OK;
}

/*
 * mintid_config('node' | '<format>_node' [, value]): sets the node id of
 * fmt (NULL: of every format that takes one; NULL value: as MINTID_NODE
 * says), and returns it: NULL for 'node' when the formats' differ, or for
 * a format MINTID_NODE does not fit.
 */
static void config_node(sqlite3_context *ctx, conn *c, const mintid_format *fmt, const char *setting, int argc,
                        sqlite3_value **argv) {
    if (argc > 1) {
        bool reset = sqlite3_value_type(argv[1]) == SQLITE_NULL;
        int64_t node = 0;
        if (!reset && !node_value(ctx, setting, fmt, argv[1], &node))
            return;
        for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
            const mintid_format *f = mintid_format_get((mintid_format_id)i);
            if (node_applies(f) && (fmt == NULL || f == fmt))
                c->node[i] = reset ? env_node(f) : node;
        }
        drop_generators(c);
    }
    int64_t node = NODE_ENV_REFUSED;
    bool first = true;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        if (node_applies(f) && (fmt == NULL || f == fmt)) {
            node = first || c->node[i] == node ? c->node[i] : NODE_ENV_REFUSED;
            first = false;
        }
    }
    if (node == NODE_ENV_REFUSED)
        sqlite3_result_null(ctx);
    else if (node == MINTID_NODE_HOST)
        sqlite3_result_text(ctx, "host", -1, SQLITE_STATIC);
    else
        sqlite3_result_int64(ctx, node);
}

/*
 * mintid_config(name [, value]): a setting of this connection, set when a
 * value is given; returns its value. 'node' (every format's node id),
 * '<format>_node' (one format's) and '<format>_epoch' for every format
 * whose epoch is settable (NULL sets the format's default), each checked
 * by the library when set. Setting one starts the connection's generators
 * anew on their next use.
 */
static void fn_config(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    conn *c = ctx_conn(ctx);
    const char *name = (const char *)sqlite3_value_text(argv[0]);
    char safe[MINTID_ESCAPED_MAX], names[MSG_MAX];
    /* A name with a NUL in it is no setting's, whatever comes before the NUL. */
    bool whole = name != NULL && memchr(name, '\0', (size_t)sqlite3_value_bytes(argv[0])) == NULL;
    const mintid_format *f;
    if (whole && strcmp(name, "node") == 0) {
        config_node(ctx, c, NULL, name, argc, argv);
        return;
    }
    if (whole && (f = format_setting(name, "_node", node_applies)) != NULL) {
        config_node(ctx, c, f, name, argc, argv);
        return;
    }
    if (whole && (f = format_setting(name, "_epoch", epoch_applies)) != NULL) {
        if (argc > 1) {
            int64_t ms = MINTID_EPOCH_DEFAULT;
            if (sqlite3_value_type(argv[1]) != SQLITE_NULL && !epoch_value(ctx, name, f, argv[1], &ms))
                return;
            c->epoch[f->id] = ms;
            drop_generators(c);
        }
        sqlite3_result_int64(ctx, conn_epoch(c, f));
        return;
    }
    int n = snprintf(names, sizeof names, "node");
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < MINTID_FORMAT_COUNT && n > 0 && (size_t)n < sizeof names; i++) {
            f = mintid_format_get((mintid_format_id)i);
            char sn[SQL_NAME_MAX];
            sql_name(f, sn, sizeof sn);
            if (pass == 0 ? node_applies(f) : epoch_applies(f))
                n += snprintf(names + n, sizeof names - (size_t)n, ", %s%s", sn, pass == 0 ? "_node" : "_epoch");
        }
    if (name != NULL)
        mintid_escape(name, (size_t)sqlite3_value_bytes(argv[0]), safe, sizeof safe);
    fail(ctx, MINTID_EINVAL, "mintid_config: unknown setting '%s'; settings are: %s", name != NULL ? safe : "NULL",
         names);
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
 * The entry point: registers every function on the connection. Each
 * format's node id starts as MINTID_NODE says (0 when it is not set); a
 * value that is no format's node id refuses the load, saying why, and one
 * that a format's node field is too narrow for fails that format's
 * generators.
 */
__attribute__((visibility("default"))) int sqlite3_mintid_init(sqlite3 *db, char **pzErrMsg,
                                                               const sqlite3_api_routines *pApi);
int sqlite3_mintid_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
    SQLITE_EXTENSION_INIT2(pApi);
    int64_t node;
    char why[MINTID_WHY_MAX];
    int status = mintid_env_node(NULL, &node, why, sizeof why);
    if (status != MINTID_OK) {
        *pzErrMsg = sqlite3_mprintf("mintid: %s", why);
        return class_code(mintid_status_class(status));
    }
    conn *c = sqlite3_malloc(sizeof *c);
    if (c == NULL)
        return SQLITE_NOMEM;
    memset(c, 0, sizeof *c);
    c->refs = 1; /* this function's own, released below */
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        c->node[i] = node_applies(f) ? env_node(f) : 0;
        c->epoch[i] = MINTID_EPOCH_DEFAULT;
        c->slots[i] = (slot){c, f};
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
    for (int nargs = 0; nargs <= 1 && rc == SQLITE_OK; nargs++)
        rc = add(db, c, "mintid_formats", nargs, GUESS_FLAGS | JSON_SUBTYPE_FLAG, any, fn_formats);
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
