/* SPDX-License-Identifier: MIT */
/*
 * mintid_mariadb.c - MariaDB's and MySQL's loadable functions: every format
 * of libmintid's table, minted from the host-wide generator.
 *
 * The classic UDF interface (UDF_INIT, UDF_ARGS: MariaDB's and MySQL's C
 * ABI), built as mintid.so for the server's plugin directory, each
 * function created once with CREATE FUNCTION ... SONAME 'mintid.so'
 * (mariadb/install.sql). A format is an argument, never part of a
 * function's name, so nothing here names a format:
 *
 *   mintid(format [, prefix])            a new ID's canonical text
 *   mintid_int(format)                   a 64-bit format's new ID as BIGINT
 *   mintid_bin(format)                   a new ID's bytes, big-endian: ordered as the IDs
 *   mintid_min(format, time), _max       the smallest and largest ID of a time's unit,
 *     and their _int and _bin forms      for range scans
 *   mintid_ts(id [, format])             an ID's time, RFC 3339 UTC
 *   mintid_inspect(id [, format])        an ID as `mintid inspect` prints it (JSON)
 *   mintid_formats([format])             the formats as the library describes them (JSON)
 *
 * Settings are the server's environment, read once, at the first call,
 * with the library's look-ups, as every other home reads them: MINTID_NODE,
 * MINTID_HOST_DIR, MINTID_ID_SPACE, and MINTID_<FORMAT>_EPOCH (the names of
 * mintidd's settings) for each format whose epoch is settable. So the
 * server mints in the host-wide sequence that the command, mintidd and
 * the applications of the host continue with the same settings.
 *
 * What a person gives is looked up and read by the library, and a mistake
 * is the statement's error, with the library's sentence and the error
 * number of its status's class (class_errno()), never a NULL: the classic
 * interface fails a row only by returning NULL, so the error is raised
 * through the server's own my_printf_error() (fail()).
 */
#include "mintid.h"

#include <mysql.h>
#include <mysqld_error.h>

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The functions the server looks up by name; nothing else is exported. */
#define UDF_API __attribute__((visibility("default")))

/* A message the server keeps (MYSQL_ERRMSG_SIZE): longer ones are cut. */
#define MSG_MAX 512
/* The result buffer the server gives a string function; longer results use the call's own. */
#define SERVER_RESULT_MAX 255
_Static_assert(MINTID_TEXT_MAX <= SERVER_RESULT_MAX, "an ID's text fits the server's result buffer");
/* An argument read as a time: longer text is no time. */
#define TIME_TEXT_MAX 64
/* The environment variable of a format's epoch: MINTID_ and its name in capitals. */
#define EPOCH_ENV_MAX 64
/* A setting's sentence: the library's, after the variable's name. */
#define WHY_MAX (MINTID_WHY_MAX + EPOCH_ENV_MAX + 8)

/* ---- errors -------------------------------------------------------------------------- */

/*
 * The server's error number for a status, by its class: the one place that
 * decides it (docs/mariadb.md, "Errors"). The SQLSTATE the client sees is
 * the server's for that number (HY000 for all four).
 */
static unsigned class_errno(mintid_class cls) {
    switch (cls) {
    case MINTID_CLASS_NONE:
    case MINTID_CLASS_INPUT:
        return ER_WRONG_ARGUMENTS; /* 1210: the caller's words; the same call fails again */
    case MINTID_CLASS_CLOCK:
    case MINTID_CLASS_CAPACITY:
        return ER_LOCK_WAIT_TIMEOUT; /* 1205: not now; the statement may be tried again */
    case MINTID_CLASS_ENVIRONMENT:
        return ER_CANT_OPEN_FILE; /* 1016: the host: its host-wide state, memory, randomness, its mintidd */
    case MINTID_CLASS_PROGRAM:
        return ER_INTERNAL_ERROR; /* 1815: this module's own mistake */
    }
    return ER_INTERNAL_ERROR;
}

/*
 * The server's my_printf_error(), which sets the statement's error (the
 * first one set is the client's). Looked up rather than linked, so that
 * the module loads into any server: MariaDB's mariadbd exports it for its
 * plugins; without it the error is only the function's NULL and, from an
 * _init function, the server's own message, cut short.
 */
typedef void (*server_error_fn)(unsigned code, const char *format, unsigned long flags, ...);
static server_error_fn server_error;
static pthread_once_t server_error_once = PTHREAD_ONCE_INIT;

static void find_server_error(void) {
    void *sym = dlsym(RTLD_DEFAULT, "my_printf_error");
    memcpy(&server_error, &sym, sizeof server_error); /* ISO C has no cast from an object pointer */
}

/* Sets the statement's error: msg, with the error number of status's class. */
static void raise_error(int status, const char *msg) {
    pthread_once(&server_error_once, find_server_error);
    if (server_error != NULL)
        server_error(class_errno(mintid_status_class(status)), "%s", 0UL, msg);
}

/* Fails a row: the statement's error, and the function's error flag (its NULL, after which the server calls no more
 * rows). */
static void fail(char *error, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(char *error, int status, const char *fmt, ...) {
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    raise_error(status, msg);
    *error = 1;
}

/* Fails an _init function: the statement's error, and message for the server's own. Returns 1, as _init must. */
static my_bool fail_init(char *message, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static my_bool fail_init(char *message, int status, const char *fmt, ...) {
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    raise_error(status, msg);
    snprintf(message, MYSQL_ERRMSG_SIZE, "%s", msg);
    return 1;
}

/* ---- settings, read once --------------------------------------------------------------- */

/* The formats that take MINTID_NODE: those whose node field is not optional. */
static bool node_applies(const mintid_format *fmt) { return fmt->node_bits > 0 && !fmt->node_optional; }

/*
 * The IDs one call of the host-wide generator hands the server at most
 * (see source_next): more would spend the host's sequence (nanoflake's
 * 4096 per ms) that the server might not use.
 */
#define BATCH_MAX 64

/*
 * One format's settings as the environment gave them, or why they cannot
 * be used; and the server's source of its IDs: the host-wide generator,
 * shared by every connection, and a batch of IDs it minted in one call,
 * handed out while the clock is still in their time unit (source_next).
 * Every ID of the format goes through it, so the server's IDs are strictly
 * increasing in the order they are handed out.
 */
typedef struct setting {
    int64_t node;            /* MINTID_NODE for this format (0 when unset), for formats it applies to */
    int node_status;         /* MINTID_OK, or why no ID of the format can be minted */
    char node_why[WHY_MAX];  /* its sentence */
    int64_t epoch_ms;        /* the format's epoch (its own, or MINTID_<FORMAT>_EPOCH) */
    int epoch_status;        /* MINTID_OK, or why no ID of the format can be minted or read */
    char epoch_why[WHY_MAX]; /* its sentence */
    pthread_mutex_t lock;    /* everything below */
    mintid_gen *gen;         /* the host-wide generator; NULL until the first mint, or after a failed open */
    bool stale;              /* node host, out of the server's warrant: open anew (for a new lease's node id) */
    unsigned pos, len;       /* ids[pos..len) are still to hand out */
    unsigned want;           /* the size of the next batch */
    int64_t from, until;     /* the batch's time unit, Unix ms: [from, until) */
    mintid_id ids[BATCH_MAX];
} setting;

static setting settings[MINTID_FORMAT_COUNT];
/* What fails every mint: MINTID_HOST_DIR, MINTID_ID_SPACE, or MINTID_NODE that is no format's node id. */
static int env_status;
static char env_why[WHY_MAX];
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;

/* "MINTID_SNOWFLAKE_EPOCH" for snowflake: the name mintidd's setting snowflake-epoch has in the environment. */
static void epoch_env_name(const mintid_format *fmt, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "MINTID_");
    for (const char *p = fmt->name; *p != '\0' && n + 1 < cap; p++)
        buf[n++] = *p == '-' ? '_' : (char)(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
    snprintf(buf + n, cap - n, "_EPOCH");
}

/*
 * Reads the environment once, for the life of the server: a setting that
 * changed under a running server would split its sequence from the one it
 * shares with the host. Each value is checked as every home checks it.
 */
static void read_settings(void) {
    char dir[PATH_MAX], space[MINTID_ID_SPACE_MAX + 1], why[MINTID_WHY_MAX];
    int64_t any_node;
    env_status = mintid_env_host_dir(dir, sizeof dir, why, sizeof why);
    if (env_status == MINTID_OK)
        env_status = mintid_env_id_space(space, sizeof space, why, sizeof why);
    if (env_status == MINTID_OK)
        env_status = mintid_env_node(NULL, &any_node, why, sizeof why);
    if (env_status != MINTID_OK)
        snprintf(env_why, sizeof env_why, "%s", why);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        setting *st = &settings[i];
        pthread_mutex_init(&st->lock, NULL);
        st->want = 1;
        st->node = -1;
        if (node_applies(fmt)) {
            st->node_status = mintid_env_node(fmt, &st->node, why, sizeof why);
            if (st->node_status != MINTID_OK)
                snprintf(st->node_why, sizeof st->node_why, "%s", why);
            if (st->node == -1)
                st->node = 0;
        }
        st->epoch_ms = fmt->epoch_ms;
        if (fmt->epoch_settable) {
            char name[EPOCH_ENV_MAX];
            epoch_env_name(fmt, name, sizeof name);
            const char *v = getenv(name);
            if (v != NULL && v[0] != '\0') {
                st->epoch_status = mintid_lookup_epoch(fmt, v, strlen(v), &st->epoch_ms, why, sizeof why);
                if (st->epoch_status != MINTID_OK)
                    snprintf(st->epoch_why, sizeof st->epoch_why, "%s: %s", name, why);
            }
        }
    }
}

static setting *setting_of(const mintid_format *fmt) {
    pthread_once(&settings_once, read_settings);
    return &settings[fmt->id];
}

/* The epoch fmt's IDs are read with; false with the row failed when MINTID_<FORMAT>_EPOCH is not one. */
static bool epoch_of(const mintid_format *fmt, int64_t *epoch_ms, char *error) {
    const setting *st = setting_of(fmt);
    if (st->epoch_status != MINTID_OK) {
        fail(error, st->epoch_status, "%s", st->epoch_why);
        return false;
    }
    *epoch_ms = st->epoch_ms;
    return true;
}

/*
 * The module's generators are freed when the server unloads it (DROP
 * FUNCTION of its last function, or the server's shutdown), when no call
 * is running.
 */
__attribute__((destructor)) static void free_generators(void) {
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        mintid_gen_free(settings[i].gen);
        settings[i].gen = NULL;
    }
}

/* ---- minting ------------------------------------------------------------------------- */

/* A new host-wide generator for fmt in st->gen (its lock held), or the status with its sentence in why. */
static int open_generator(const mintid_format *fmt, setting *st, char *why, size_t cap) {
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    /* As the command: a used-up millisecond waits (bounded) for the next one, so one statement may mint any number
     * of IDs. */
    cfg.overflow = MINTID_OVERFLOW_WAIT;
    /* A batch reads the clock once: each ID is checked against the clock when it is handed out (source_next). */
    cfg.ids_per_reading = BATCH_MAX;
    if (node_applies(fmt))
        cfg.node = st->node;
    cfg.epoch_ms = st->epoch_ms;
    mintid_gen *gen = NULL;
    int rc = mintid_gen_new_host(fmt, &cfg, NULL, &gen);
    if (rc != MINTID_OK) {
        int err = errno;
        mintid_gen_why(fmt, &cfg, NULL, rc, err, why, cap);
        return rc;
    }
    mintid_gen_free(st->gen);
    st->gen = gen;
    st->stale = false;
    st->pos = st->len = 0;
    return MINTID_OK;
}

/* The Unix ms of the system clock, as the library reads it. */
static int64_t clock_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The next ID of a format's source (its lock held): the batch's next one
 * while the clock is still in that ID's time unit, else the first of a new
 * batch, minted now. So every ID carries the time unit (the millisecond,
 * for most formats) in which it is handed out, as one minted on the spot
 * does: a batch saves the host-wide lock per ID, never the clock. A batch
 * that outlives its unit is dropped (those IDs are never used by anyone);
 * the next one is twice as large when one is used up within its unit, up
 * to BATCH_MAX, and half as large when one is dropped, so a server that
 * mints less than one ID per unit draws one at a time and spends none.
 * On failure, *err is errno as the generator left it.
 */
static int source_next(setting *st, const mintid_format *fmt, mintid_id *out, int *err) {
    int64_t now = clock_ms();
    if (st->pos < st->len) {
        if (now >= st->from && now < st->until) {
            *out = st->ids[st->pos++];
            return MINTID_OK;
        }
        st->want = st->want > 1 ? st->want / 2 : 1; /* the unit passed: fewer next time */
    } else if (st->len > 0 && now < st->until) {
        st->want = st->want < BATCH_MAX ? st->want * 2 : BATCH_MAX; /* used up within its unit: more next time */
    }
    st->pos = st->len = 0;
    long n = mintid_gen_next_n(st->gen, st->ids, st->want);
    *err = errno; /* for mintid_gen_why() */
    if (n <= 0)
        return (int)n;
    /* The batch keeps the IDs of its first ID's unit (a call may wait for the next unit midway), read with the
     * generator's epoch (under node host, the host's mintidd's). */
    int64_t epoch = mintid_gen_config(st->gen)->epoch_ms;
    st->from = mintid_id_unix_ms(fmt, &st->ids[0], epoch);
    st->until = st->from + (int64_t)fmt->ts_unit_ms;
    while (n > 1 && mintid_id_unix_ms(fmt, &st->ids[n - 1], epoch) != st->from)
        n--;
    *out = st->ids[0];
    st->pos = 1;
    st->len = (unsigned)n;
    return MINTID_OK;
}

/*
 * The next ID of fmt from the server's source (its generator opened at the
 * first call), shared by every connection: every ID it returns is greater
 * than every one before, in this server and in every process of the host
 * that shares its host-wide state. On failure, the status with its
 * sentence in why.
 */
static int mint(const mintid_format *fmt, mintid_id *id, char *why, size_t cap) {
    setting *st = setting_of(fmt);
    if (env_status != MINTID_OK) {
        snprintf(why, cap, "%s", env_why);
        return env_status;
    }
    if (st->epoch_status != MINTID_OK || st->node_status != MINTID_OK) {
        snprintf(why, cap, "%s", st->epoch_status != MINTID_OK ? st->epoch_why : st->node_why);
        return st->epoch_status != MINTID_OK ? st->epoch_status : st->node_status;
    }
    pthread_mutex_lock(&st->lock);
    int rc = MINTID_OK, err = 0;
    if (st->gen == NULL || st->stale)
        rc = open_generator(fmt, st, why, cap);
    if (rc == MINTID_OK && (rc = source_next(st, fmt, id, &err)) != MINTID_OK) {
        mintid_gen_why(fmt, mintid_gen_config(st->gen), st->gen, rc, err, why, cap);
        /* The next call reads the node id the host's mintidd holds then (a new lease's). */
        if (rc == MINTID_EWARRANT && st->node == MINTID_NODE_HOST)
            st->stale = true;
    }
    pthread_mutex_unlock(&st->lock);
    return rc;
}

/* ---- a call's state ------------------------------------------------------------------ */

/* What one function in one statement keeps between rows (UDF_INIT.ptr). */
typedef struct call {
    const mintid_format *fmt; /* the format argument when it is a constant; NULL: looked up per row */
    size_t cap;               /* of out */
    char out[];               /* a result longer than the server's buffer */
} call;

/* What an _init function checks. */
typedef struct shape {
    const char *name;    /* the function's */
    const char *params;  /* its arguments, for the message on a wrong call */
    unsigned min, max;   /* arguments */
    int format_arg;      /* the argument that names a format */
    int text_args;       /* a bit per argument the server gives as text (a format's name, a prefix) */
    bool mints;          /* a generator: never a constant, never NULL */
    unsigned max_length; /* of the result */
    size_t out_cap;      /* of call.out */
} shape;

/* A format named by an argument (len bytes), as the library looks it up; NULL with why set. */
static const mintid_format *lookup_format(const char *name, unsigned long len, int *status, char *why, size_t cap) {
    const mintid_format *fmt = NULL;
    *status = mintid_lookup_format(name != NULL ? name : "", name != NULL ? len : 0, &fmt, why, cap);
    return *status == MINTID_OK ? fmt : NULL;
}

static my_bool init_call(UDF_INIT *initid, UDF_ARGS *args, char *message, const shape *sh) {
    if (args->arg_count < sh->min || args->arg_count > sh->max) {
        char count[32];
        if (sh->min == sh->max)
            snprintf(count, sizeof count, "%u argument%s", sh->min, sh->min == 1 ? "" : "s");
        else
            snprintf(count, sizeof count, "%u or %u arguments", sh->min, sh->max);
        return fail_init(message, MINTID_EINVAL, "%s(%s) takes %s, not %u", sh->name, sh->params, count,
                         args->arg_count);
    }
    for (unsigned i = 0; i < args->arg_count; i++)
        if (sh->text_args & (1 << i))
            args->arg_type[i] = STRING_RESULT;
    const mintid_format *fmt = NULL;
    int fa = sh->format_arg;
    /* A constant format is looked up once, and its mistake fails the statement before any row. */
    if ((unsigned)fa < args->arg_count && args->args[fa] != NULL) {
        char why[MINTID_WHY_MAX];
        int status;
        if ((fmt = lookup_format(args->args[fa], args->lengths[fa], &status, why, sizeof why)) == NULL)
            return fail_init(message, status, "%s", why);
    }
    call *c = malloc(sizeof *c + sh->out_cap);
    if (c == NULL)
        return fail_init(message, MINTID_ENOMEM, "%s: %s", sh->name, mintid_strerror(MINTID_ENOMEM));
    c->fmt = fmt;
    c->cap = sh->out_cap;
    initid->ptr = (char *)c;
    initid->max_length = sh->max_length;
    initid->maybe_null = !sh->mints;
    if (sh->mints)
        initid->const_item = 0; /* else the server would call it once for a whole statement */
    return 0;
}

static void deinit_call(UDF_INIT *initid) {
    free(initid->ptr);
    initid->ptr = NULL;
}

/* The format of argument i of this row: the constant's, or looked up now. NULL with the row failed. */
static const mintid_format *row_format(UDF_INIT *initid, UDF_ARGS *args, unsigned i, char *error) {
    const call *c = (const call *)initid->ptr;
    if (c->fmt != NULL)
        return c->fmt;
    char why[MINTID_WHY_MAX];
    int status;
    const mintid_format *fmt = lookup_format(args->args[i], args->lengths[i], &status, why, sizeof why);
    if (fmt == NULL)
        fail(error, status, "%s", why);
    return fmt;
}

/* A string result of n bytes from buf: the server's buffer when it fits, else the call's. */
static char *string_result(UDF_INIT *initid, char *result, unsigned long *length, const void *buf, size_t n) {
    call *c = (call *)initid->ptr;
    char *out = n <= SERVER_RESULT_MAX ? result : c->out;
    if (out == c->out && n > c->cap)
        n = c->cap; /* no result is longer than out_cap says; this keeps it so */
    memcpy(out, buf, n);
    *length = (unsigned long)n;
    return out;
}

/* ---- generators ---------------------------------------------------------------------- */

static const shape gen_text_shape = {.name = "mintid",
                                     .params = "format [, prefix]",
                                     .min = 1,
                                     .max = 2,
                                     .format_arg = 0,
                                     .text_args = 0x3,
                                     .mints = true,
                                     .max_length = MINTID_TEXT_MAX,
                                     .out_cap = MINTID_TEXT_MAX};
static const shape gen_int_shape = {.name = "mintid_int",
                                    .params = "format",
                                    .min = 1,
                                    .max = 1,
                                    .format_arg = 0,
                                    .text_args = 0x1,
                                    .mints = true,
                                    .max_length = 21};
static const shape gen_bin_shape = {.name = "mintid_bin",
                                    .params = "format",
                                    .min = 1,
                                    .max = 1,
                                    .format_arg = 0,
                                    .text_args = 0x1,
                                    .mints = true,
                                    .max_length = MINTID_ID_MAX_BYTES,
                                    .out_cap = MINTID_ID_MAX_BYTES};

/* A new ID of the row's format; false with the row failed. */
static bool mint_row(const mintid_format *fmt, mintid_id *id, char *error) {
    char why[WHY_MAX];
    int rc = mint(fmt, id, why, sizeof why);
    if (rc != MINTID_OK)
        fail(error, rc, "%s", why);
    return rc == MINTID_OK;
}

UDF_API my_bool mintid_init(UDF_INIT *initid, UDF_ARGS *args, char *message);
UDF_API void mintid_deinit(UDF_INIT *initid);
UDF_API char *mintid(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null, char *error);

my_bool mintid_init(UDF_INIT *initid, UDF_ARGS *args, char *message) {
    if (init_call(initid, args, message, &gen_text_shape))
        return 1;
    /* A constant prefix is checked once too: before any ID is spent. */
    const call *c = (const call *)initid->ptr;
    if (c->fmt != NULL && args->arg_count > 1 && args->args[1] != NULL) {
        char why[MINTID_WHY_MAX];
        int rc = mintid_lookup_prefix(c->fmt, MINTID_FORM_TEXT, args->args[1], args->lengths[1], why, sizeof why);
        if (rc != MINTID_OK) {
            deinit_call(initid);
            return fail_init(message, rc, "%s", why);
        }
    }
    return 0;
}

void mintid_deinit(UDF_INIT *initid) { deinit_call(initid); }

/* mintid(format [, prefix]): a new ID's canonical text, with a type prefix where the format has one. */
char *mintid(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null, char *error) {
    (void)is_null;
    const mintid_format *fmt = row_format(initid, args, 0, error);
    if (fmt == NULL)
        return NULL;
    char prefix[MINTID_PREFIX_MAX + 1];
    prefix[0] = '\0';
    if (args->arg_count > 1) {
        const char *p = args->args[1];
        size_t len = p != NULL ? args->lengths[1] : 0;
        char why[MINTID_WHY_MAX];
        int rc = mintid_lookup_prefix(fmt, MINTID_FORM_TEXT, p, len, why, sizeof why);
        if (rc != MINTID_OK) {
            fail(error, rc, "%s", why);
            return NULL;
        }
        memcpy(prefix, p, len); /* a prefix the library took fits */
        prefix[len] = '\0';
    }
    mintid_id id;
    if (!mint_row(fmt, &id, error))
        return NULL;
    /* Straight into the server's buffer: every text fits (MINTID_TEXT_MAX). */
    int n = prefix[0] != '\0' ? mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, &id, prefix, result, SERVER_RESULT_MAX)
                              : mintid_encode(fmt, MINTID_FORM_TEXT, &id, result, SERVER_RESULT_MAX);
    if (n < 0) {
        fail(error, n, "%s: %s", fmt->name, mintid_strerror(n));
        return NULL;
    }
    *length = (unsigned long)n;
    return result;
}

UDF_API my_bool mintid_int_init(UDF_INIT *initid, UDF_ARGS *args, char *message);
UDF_API void mintid_int_deinit(UDF_INIT *initid);
UDF_API long long mintid_int(UDF_INIT *initid, UDF_ARGS *args, char *is_null, char *error);

/* A format wider than 64 bits has no BIGINT: refused with the library's sentence for an integer of it. */
static bool has_int(const mintid_format *fmt, int *status, char *why, size_t cap) {
    if (fmt->bits == 64)
        return true;
    *status = MINTID_EFORM;
    snprintf(why, cap, "%s is %u bits: it has no BIGINT; use mintid('%s') or mintid_bin('%s')", fmt->name,
             (unsigned)fmt->bits, fmt->name, fmt->name);
    return false;
}

my_bool mintid_int_init(UDF_INIT *initid, UDF_ARGS *args, char *message) {
    if (init_call(initid, args, message, &gen_int_shape))
        return 1;
    const call *c = (const call *)initid->ptr;
    char why[MINTID_WHY_MAX];
    int status;
    if (c->fmt != NULL && !has_int(c->fmt, &status, why, sizeof why)) {
        deinit_call(initid);
        return fail_init(message, status, "%s", why);
    }
    return 0;
}

void mintid_int_deinit(UDF_INIT *initid) { deinit_call(initid); }

/* mintid_int(format): a 64-bit format's new ID as BIGINT (two's complement past 2^63-1, as caloriosa's all are). */
long long mintid_int(UDF_INIT *initid, UDF_ARGS *args, char *is_null, char *error) {
    (void)is_null;
    const mintid_format *fmt = row_format(initid, args, 0, error);
    char why[MINTID_WHY_MAX];
    int status;
    if (fmt == NULL)
        return 0;
    if (!has_int(fmt, &status, why, sizeof why)) {
        fail(error, status, "%s", why);
        return 0;
    }
    mintid_id id;
    if (!mint_row(fmt, &id, error))
        return 0;
    return (long long)mintid_id_to_u64(&id);
}

UDF_API my_bool mintid_bin_init(UDF_INIT *initid, UDF_ARGS *args, char *message);
UDF_API void mintid_bin_deinit(UDF_INIT *initid);
UDF_API char *mintid_bin(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null,
                         char *error);

my_bool mintid_bin_init(UDF_INIT *initid, UDF_ARGS *args, char *message) {
    return init_call(initid, args, message, &gen_bin_shape);
}

void mintid_bin_deinit(UDF_INIT *initid) { deinit_call(initid); }

/* mintid_bin(format): a new ID's bytes, big-endian, so that they sort as the IDs do (BINARY(n), MariaDB's UUID). */
char *mintid_bin(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null, char *error) {
    (void)is_null;
    const mintid_format *fmt = row_format(initid, args, 0, error);
    mintid_id id;
    if (fmt == NULL || !mint_row(fmt, &id, error))
        return NULL;
    return string_result(initid, result, length, id.bytes, fmt->bits / 8u);
}

/* ---- reading IDs --------------------------------------------------------------------- */

/* Whether s[0..len) is printable ASCII, as an ID's text is: else it is read as the ID's bytes. */
static bool printable(const char *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (s[i] < 0x21 || s[i] > 0x7e)
            return false;
    return true;
}

/*
 * Reads argument i as an ID through the library: a BIGINT as a 64-bit
 * format's value (two's complement past 2^63-1), a string as text, or, if
 * it has a byte outside printable ASCII (a BINARY column, mintid_bin()), as
 * the ID's bytes. Printable bytes that are no text of the format are read
 * as bytes too, when their length is an ID's. Without fmt the library
 * guesses the format. False with the row failed: the library's sentence,
 * and how to name the format here where that would settle it.
 */
static bool read_id(UDF_ARGS *args, unsigned i, const mintid_format *fmt, int64_t epoch, mintid_reading *r,
                    char *error) {
    char why[MINTID_WHY_MAX];
    int rc;
    if (args->arg_type[i] == INT_RESULT) {
        rc = mintid_read_u64(fmt, epoch, (uint64_t) * (long long *)args->args[i], r, why, sizeof why);
    } else {
        const char *s = args->args[i];
        size_t len = args->lengths[i];
        if (printable(s, len)) {
            rc = mintid_read_text(fmt, MINTID_FORM_ANY, epoch, s, len, r, why, sizeof why);
            if (rc != MINTID_OK && (len == 8 || len == 16 || len == 20)) {
                mintid_reading as_bytes;
                if (mintid_read_bytes(fmt, epoch, s, len, &as_bytes, NULL, 0) == MINTID_OK) {
                    *r = as_bytes;
                    rc = MINTID_OK;
                }
            }
        } else {
            rc = mintid_read_bytes(fmt, epoch, s, len, r, why, sizeof why);
        }
    }
    if (rc == MINTID_OK)
        return true;
    const char *hint = "";
    if (fmt == NULL && rc == MINTID_EAMBIGUOUS)
        hint = "; name the format as the second argument";
    else if (fmt == NULL && rc == MINTID_EINVALID && r->fmt == NULL)
        hint = "; name the format as the second argument to read it as one";
    fail(error, rc, "%s%s", why, hint);
    return false;
}

static const shape inspect_shape = {.name = "mintid_inspect",
                                    .params = "id [, format]",
                                    .min = 1,
                                    .max = 2,
                                    .format_arg = 1,
                                    .text_args = 0x2,
                                    .max_length = MINTID_JSON_MAX,
                                    .out_cap = MINTID_JSON_MAX};
static const shape ts_shape = {.name = "mintid_ts",
                               .params = "id [, format]",
                               .min = 1,
                               .max = 2,
                               .format_arg = 1,
                               .text_args = 0x2,
                               .max_length = MINTID_TIME_MAX,
                               .out_cap = MINTID_TIME_MAX};

/* The init of a function that reads an ID: its argument is text unless it is a BIGINT. */
static my_bool init_reader(UDF_INIT *initid, UDF_ARGS *args, char *message, const shape *sh) {
    if (init_call(initid, args, message, sh))
        return 1;
    if (args->arg_type[0] != INT_RESULT)
        args->arg_type[0] = STRING_RESULT; /* a DECIMAL's digits, a REAL's: the library says what is wrong */
    return 0;
}

/* The row's ID: (id) or (id, format). False for NULL (*is_null set) or with the row failed. */
static bool row_id(UDF_INIT *initid, UDF_ARGS *args, mintid_reading *r, int64_t *epoch, char *is_null, char *error) {
    if (args->args[0] == NULL || (args->arg_count > 1 && args->args[1] == NULL)) {
        *is_null = 1;
        return false;
    }
    const mintid_format *fmt = NULL;
    *epoch = MINTID_EPOCH_DEFAULT;
    if (args->arg_count > 1) {
        if ((fmt = row_format(initid, args, 1, error)) == NULL || !epoch_of(fmt, epoch, error))
            return false;
    }
    if (!read_id(args, 0, fmt, *epoch, r, error))
        return false;
    /* A guessed format's IDs are described with the epoch the server reads that format with. */
    return fmt != NULL || epoch_of(r->fmt, epoch, error);
}

UDF_API my_bool mintid_inspect_init(UDF_INIT *initid, UDF_ARGS *args, char *message);
UDF_API void mintid_inspect_deinit(UDF_INIT *initid);

my_bool mintid_inspect_init(UDF_INIT *initid, UDF_ARGS *args, char *message) {
    return init_reader(initid, args, message, &inspect_shape);
}

void mintid_inspect_deinit(UDF_INIT *initid) { deinit_call(initid); }

/* The row of mintid_inspect(id [, format]) (at the end of the file): the JSON object `mintid inspect` prints. */
static char *inspect_row(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null,
                         char *error) {
    mintid_reading r;
    int64_t epoch;
    char json[MINTID_JSON_MAX];
    if (!row_id(initid, args, &r, &epoch, is_null, error))
        return NULL;
    int n = mintid_id_to_json_prefixed(r.fmt, &r.id, r.prefix, epoch, json, sizeof json);
    if (n < 0) {
        fail(error, n, "%s: %s", r.fmt->name, mintid_strerror(n));
        return NULL;
    }
    return string_result(initid, result, length, json, (size_t)n);
}

UDF_API my_bool mintid_ts_init(UDF_INIT *initid, UDF_ARGS *args, char *message);
UDF_API void mintid_ts_deinit(UDF_INIT *initid);
UDF_API char *mintid_ts(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null,
                        char *error);

my_bool mintid_ts_init(UDF_INIT *initid, UDF_ARGS *args, char *message) {
    return init_reader(initid, args, message, &ts_shape);
}

void mintid_ts_deinit(UDF_INIT *initid) { deinit_call(initid); }

/* mintid_ts(id [, format]): the ID's time as RFC 3339 UTC; NULL for an ID that carries none. */
char *mintid_ts(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null, char *error) {
    mintid_reading r;
    mintid_inspection in;
    int64_t epoch;
    if (!row_id(initid, args, &r, &epoch, is_null, error))
        return NULL;
    int rc = mintid_inspect(r.fmt, &r.id, r.prefix, epoch, &in);
    if (rc != MINTID_OK) {
        fail(error, rc, "%s: %s", r.fmt->name, mintid_strerror(rc));
        return NULL;
    }
    /* A typeid over a UUID of another version carries no time. */
    if (!in.has_time || in.time[0] == '\0') {
        *is_null = 1;
        return NULL;
    }
    return string_result(initid, result, length, in.time, strlen(in.time));
}

/* ---- ranges -------------------------------------------------------------------------- */

/*
 * The time argument of the range functions: Unix ms (a BIGINT; a DECIMAL
 * or a REAL, such as UNIX_TIMESTAMP(t) * 1000, taken to the millisecond it
 * falls in), or a text as the library reads a time (Unix ms, RFC 3339 with
 * its zone). A DATETIME's text carries no zone, and is refused rather than
 * guessed. False with the row failed.
 */
static bool time_arg(UDF_ARGS *args, unsigned i, const mintid_format *fmt, int64_t *unix_ms, char *error) {
    const char *s = args->args[i];
    size_t len = args->lengths[i];
    char text[TIME_TEXT_MAX + 1], shown[MINTID_ESCAPED_MAX];
    switch (args->arg_type[i]) {
    case INT_RESULT:
        *unix_ms = *(long long *)s;
        return true;
    case REAL_RESULT: {
        double v = floor(*(double *)s);
        if (v >= -9.2e18 && v <= 9.2e18) {
            *unix_ms = (int64_t)v;
            return true;
        }
        snprintf(text, sizeof text, "%g", *(double *)s);
        len = strlen(text);
        s = text;
        break;
    }
    case DECIMAL_RESULT:
    case STRING_RESULT:
    case ROW_RESULT:
        if (len <= TIME_TEXT_MAX && memchr(s, '\0', len) == NULL) {
            memcpy(text, s, len);
            text[len] = '\0';
            /* A DECIMAL's fraction of a millisecond: its millisecond, for a DECIMAL of Unix ms. */
            char *dot = args->arg_type[i] == DECIMAL_RESULT ? strchr(text, '.') : NULL;
            if (dot != NULL && strspn(dot + 1, "0123456789") == strlen(dot + 1))
                *dot = '\0';
            if (mintid_parse_time(text, unix_ms) == MINTID_OK)
                return true;
        }
        break;
    }
    mintid_escape(s, len, shown, sizeof shown);
    fail(error, MINTID_EINVAL,
         "%s: '%s' is not a time: give Unix milliseconds (UNIX_TIMESTAMP(t) * 1000) or RFC 3339 UTC "
         "(2015-01-01T00:00:00Z)",
         fmt->name, shown);
    return false;
}

enum { AS_TEXT, AS_INT, AS_BIN };

/* The bound of the row's time: false for NULL (*is_null set) or with the row failed. */
static bool range_id(UDF_INIT *initid, UDF_ARGS *args, bool want_max, int as, const mintid_format **fmt_out,
                     mintid_id *id, char *is_null, char *error) {
    if (args->args[0] == NULL || args->args[1] == NULL) {
        *is_null = 1;
        return false;
    }
    const mintid_format *fmt = row_format(initid, args, 0, error);
    int64_t t, epoch;
    mintid_id lo, hi;
    if (fmt == NULL || !epoch_of(fmt, &epoch, error) || !time_arg(args, 1, fmt, &t, error))
        return false;
    char why[MINTID_WHY_MAX];
    int status;
    if (as == AS_INT && !has_int(fmt, &status, why, sizeof why)) {
        fail(error, status, "%s", why);
        return false;
    }
    int rc = mintid_range(fmt, t, epoch, &lo, &hi);
    if (rc != MINTID_OK) {
        fail(error, rc, "%s: %" PRId64 " is a time %s cannot carry (its epoch to its last timestamp)", fmt->name, t,
             fmt->name);
        return false;
    }
    *fmt_out = fmt;
    *id = want_max ? hi : lo;
    return true;
}

static char *range_string(UDF_INIT *initid, UDF_ARGS *args, bool want_max, int as, char *result, unsigned long *length,
                          char *is_null, char *error) {
    const mintid_format *fmt;
    mintid_id id;
    if (!range_id(initid, args, want_max, as, &fmt, &id, is_null, error))
        return NULL;
    if (as == AS_BIN)
        return string_result(initid, result, length, id.bytes, fmt->bits / 8u);
    char text[MINTID_TEXT_MAX];
    int n = mintid_encode(fmt, MINTID_FORM_TEXT, &id, text, sizeof text);
    if (n < 0) {
        fail(error, n, "%s: %s", fmt->name, mintid_strerror(n));
        return NULL;
    }
    return string_result(initid, result, length, text, (size_t)n);
}

static long long range_int(UDF_INIT *initid, UDF_ARGS *args, bool want_max, char *is_null, char *error) {
    const mintid_format *fmt;
    mintid_id id;
    if (!range_id(initid, args, want_max, AS_INT, &fmt, &id, is_null, error))
        return 0;
    return (long long)mintid_id_to_u64(&id);
}

/* One range function that returns a string: its shape, declarations and definitions. */
#define RANGE_STRING_FN(fn, want_max, as, size)                                                                        \
    static const shape fn##_shape = {.name = #fn,                                                                      \
                                     .params = "format, time",                                                         \
                                     .min = 2,                                                                         \
                                     .max = 2,                                                                         \
                                     .format_arg = 0,                                                                  \
                                     .text_args = 0x1,                                                                 \
                                     .max_length = size,                                                               \
                                     .out_cap = size};                                                                 \
    UDF_API my_bool fn##_init(UDF_INIT *initid, UDF_ARGS *args, char *message);                                        \
    UDF_API void fn##_deinit(UDF_INIT *initid);                                                                        \
    UDF_API char *fn(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null,             \
                     char *error);                                                                                     \
    my_bool fn##_init(UDF_INIT *initid, UDF_ARGS *args, char *message) {                                               \
        return init_call(initid, args, message, &fn##_shape);                                                          \
    }                                                                                                                  \
    void fn##_deinit(UDF_INIT *initid) { deinit_call(initid); }                                                        \
    char *fn(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null, char *error) {      \
        return range_string(initid, args, want_max, as, result, length, is_null, error);                               \
    }

#define RANGE_INT_FN(fn, want_max)                                                                                     \
    static const shape fn##_shape = {.name = #fn,                                                                      \
                                     .params = "format, time",                                                         \
                                     .min = 2,                                                                         \
                                     .max = 2,                                                                         \
                                     .format_arg = 0,                                                                  \
                                     .text_args = 0x1,                                                                 \
                                     .max_length = 21};                                                                \
    UDF_API my_bool fn##_init(UDF_INIT *initid, UDF_ARGS *args, char *message);                                        \
    UDF_API void fn##_deinit(UDF_INIT *initid);                                                                        \
    UDF_API long long fn(UDF_INIT *initid, UDF_ARGS *args, char *is_null, char *error);                                \
    my_bool fn##_init(UDF_INIT *initid, UDF_ARGS *args, char *message) {                                               \
        return init_call(initid, args, message, &fn##_shape);                                                          \
    }                                                                                                                  \
    void fn##_deinit(UDF_INIT *initid) { deinit_call(initid); }                                                        \
    long long fn(UDF_INIT *initid, UDF_ARGS *args, char *is_null, char *error) {                                       \
        return range_int(initid, args, want_max, is_null, error);                                                      \
    }

/* mintid_min(format, time), mintid_max(format, time): the smallest and largest ID of the time's unit, as text; every
 * ID minted in [t1, t2] lies between mintid_min(f, t1) and mintid_max(f, t2). The _int and _bin forms for BIGINT and
 * BINARY columns. */
RANGE_STRING_FN(mintid_min, false, AS_TEXT, MINTID_TEXT_MAX)
RANGE_STRING_FN(mintid_max, true, AS_TEXT, MINTID_TEXT_MAX)
RANGE_STRING_FN(mintid_min_bin, false, AS_BIN, MINTID_ID_MAX_BYTES)
RANGE_STRING_FN(mintid_max_bin, true, AS_BIN, MINTID_ID_MAX_BYTES)
RANGE_INT_FN(mintid_min_int, false)
RANGE_INT_FN(mintid_max_int, true)

/* ---- formats ------------------------------------------------------------------------- */

static const shape formats_shape = {.name = "mintid_formats",
                                    .params = "[format]",
                                    .min = 0,
                                    .max = 1,
                                    .format_arg = 0,
                                    .text_args = 0x1,
                                    .max_length = MINTID_FORMAT_COUNT * MINTID_DESCRIBE_MAX + 2,
                                    .out_cap = MINTID_FORMAT_COUNT * MINTID_DESCRIBE_MAX + 2};

UDF_API my_bool mintid_formats_init(UDF_INIT *initid, UDF_ARGS *args, char *message);
UDF_API void mintid_formats_deinit(UDF_INIT *initid);
UDF_API char *mintid_formats(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null,
                             char *error);

my_bool mintid_formats_init(UDF_INIT *initid, UDF_ARGS *args, char *message) {
    return init_call(initid, args, message, &formats_shape);
}

void mintid_formats_deinit(UDF_INIT *initid) { deinit_call(initid); }

/*
 * mintid_formats([format]): every format described as the library
 * describes it (mintid_describe(): fields, forms, capacity, epochs, the
 * last time an ID can carry under the server's epoch), a JSON array; or
 * the one format named, a JSON object.
 */
char *mintid_formats(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null,
                     char *error) {
    (void)result;
    call *c = (call *)initid->ptr;
    const mintid_format *only = NULL;
    if (args->arg_count == 1) {
        if (args->args[0] == NULL) {
            *is_null = 1;
            return NULL;
        }
        if ((only = row_format(initid, args, 0, error)) == NULL)
            return NULL;
    }
    size_t len = 0;
    if (only == NULL)
        c->out[len++] = '[';
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        int64_t epoch;
        if (only != NULL && f != only)
            continue;
        if (!epoch_of(f, &epoch, error))
            return NULL;
        if (only == NULL && i > 0)
            c->out[len++] = ',';
        int n = mintid_describe(f, epoch, c->out + len, c->cap - len - 1);
        if (n < 0) {
            fail(error, n, "%s: %s", f->name, mintid_strerror(n));
            return NULL;
        }
        len += (size_t)n;
    }
    if (only == NULL)
        c->out[len++] = ']';
    *length = (unsigned long)len;
    return c->out;
}

/* ---- mintid_inspect ------------------------------------------------------------------ */

/*
 * The SQL function mintid_inspect() is this symbol: the server looks a
 * function up by its SQL name. The library's mintid_inspect(), compiled
 * into this module, is named mintid__lib_inspect (CMakeLists.txt), and the
 * calls above reach it under its own name through the same definition;
 * from here on the name is the SQL function's.
 */
#undef mintid_inspect
UDF_API char *mintid_inspect(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null,
                             char *error);
char *mintid_inspect(UDF_INIT *initid, UDF_ARGS *args, char *result, unsigned long *length, char *is_null,
                     char *error) {
    return inspect_row(initid, args, result, length, is_null, error);
}
