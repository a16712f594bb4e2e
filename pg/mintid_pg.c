/* SPDX-License-Identifier: MIT */
/*
 * mintid_pg.c - the PostgreSQL extension: every format of libmintid's table
 * as a native type, and its generator minted in shared memory.
 *
 * No code here names a format. Each operation (text input, comparison,
 * generation, ...) is one generic function taking the format's index in the
 * table; STAMP() below turns it into one C entry point per table slot
 * (mintid_in_5, mintid_cmp_5, ...), and the SQL script that binds those
 * entry points to types, operators and classes is written from the same
 * table at build time by gen_sql.c.
 *
 * Generation (with shared_preload_libraries = 'mintid'): the formats whose
 * IDs rest on a node id or have under 128 bits mint from libmintid's
 * host-wide generator (mintid_gen_open_host(), one per backend and format,
 * opened at its first mint), so that the cluster continues the one sequence
 * mintidd, the mintid command, Python and SQLite continue on the host; the
 * others from one generator core per format for the whole cluster, in
 * shared memory under one LWLock, driven through libmintid's core and its
 * driver (mintid_core_mint()). Only include/mintid.h is used. The durable
 * high-water mark ("no ID was ever issued with a timestamp at or past
 * mark_ms") is raised a window ahead of need and made durable - a custom WAL
 * record, XLogFlush'ed, plus a file in the data directory, fsynced - before
 * any ID under it is returned. After a restart (or a promotion) nothing is
 * minted before that mark: it is the host-wide generators' floor. The mark
 * only keeps IDs apart within one ID space, so it is recorded with each
 * format's node, epoch and bit layout, and a format minted under others is
 * refused (unless adopted); see docs/postgresql.md.
 */
#include "postgres.h"

#include <fcntl.h>
#include <unistd.h>

#include "access/hash.h"
#include "access/xlog.h"
#include "access/xlog_internal.h"
#include "access/xact.h"
#include "access/xloginsert.h"
#include "access/xlogreader.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "replication/syncrep.h"
#include "replication/walsender.h"
#include "replication/walsender_private.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"
#include "utils/timestamp.h"
#include "utils/uuid.h"

/* sql_name.h is C11 with declarations after statements. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeclaration-after-statement"
#include "mintid.h"
#include "sql_name.h"
#pragma GCC diagnostic pop

PG_MODULE_MAGIC;

void _PG_init(void);

/* The table slots the entry points are stamped for; STAMP() covers 16. */
StaticAssertDecl(MINTID_FORMAT_COUNT <= 16, "stamp more entry points in mintid_pg.c");

/*
 * The custom WAL resource manager of the mark. 128 is PostgreSQL's
 * RM_EXPERIMENTAL_ID; an extension meant for wide use registers its own id
 * on the wiki page RegisterCustomRmgr() points to. Changeable here only.
 */
#define MINTID_RMGR_ID 128
/* The mark alone: written by version 0.1.0's module, still replayed. */
#define XLOG_MINTID_MARK 0x00
/* The mark and each format's parameters, as the text of the mark file. */
#define XLOG_MINTID_STATE 0x10

/* How far ahead of the IDs being issued the durable mark is raised. */
#define MINTID_MARK_WINDOW_MS 2000

/*
 * How long one call of a host-wide generator may wait (for the next unit,
 * or the clock to reach the shared sequence): between two calls the
 * backend answers a cancel or a statement_timeout. A call that waits for
 * the host's lock waits MINTID_HOST_LOCK_WAIT_MS whatever this says.
 */
#define MINTID_HOST_WAIT_SLICE_MS 100
/*
 * How long gen_<format>() waits in all for a host-wide sequence ahead of
 * the clock before it fails. After a restart the floor is the mark, at
 * most MINTID_MARK_WINDOW_MS past the clock of the run before; the rest
 * leaves room for a promoted standby's clock a little behind the old
 * primary's. A floor further ahead fails at once, saying when IDs resume.
 */
#define MINTID_HOST_WAIT_MS (2 * MINTID_MARK_WINDOW_MS + 1000)

/*
 * The mark file, relative to the data directory (the server's cwd).
 * Version 2 (the text of a XLOG_MINTID_STATE record too):
 *   mintid-mark 2
 *   mark <Unix ms>
 *   format <name> node=<n>|- epoch=<Unix ms> floor=<Unix ms> layout=<bits>:<field>/<width>,...
 * with a format line for each format minted so far. Version 1 (0.1.0's
 * module) is the mark alone: "<Unix ms>\n".
 */
#define MINTID_MARK_FILE "mintid.mark"
#define MINTID_MARK_TMP "mintid.mark.tmp"
#define MINTID_MARK_HEADER "mintid-mark 2\n"
/* Longer than any mark file: the header, the mark and a line per format. */
#define MINTID_MARK_TEXT_MAX 8192
#define MINTID_LAYOUT_MAX 160

/* Unix ms of PostgreSQL's epoch, 2000-01-01. */
#define PG_EPOCH_UNIX_MS ((int64)(POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY * 1000)

typedef struct mintid_mark_record {
    int64 mark_ms;
} mintid_mark_record;

/* One format's generator in shared memory (the formats that do not mint from the host-wide state). */
typedef struct mintid_pg_gen {
    mintid_core core;
} mintid_pg_gen;

/* This backend's host-wide generator of one format, opened at the format's first mint. */
typedef struct mintid_pg_host {
    mintid_gen *gen;
    int64 node; /* the configuration it was opened with */
    int64 epoch_ms;
    int64 floor_ms; /* the highest floor given to it (mintid_gen_set_floor) */
} mintid_pg_host;

/*
 * What a format's IDs were minted under, recorded with the mark: IDs under
 * another node, epoch or layout could repeat the ones the mark covers.
 */
typedef struct mintid_pg_params {
    bool present;                   /* recorded: the format was minted under these */
    int32 node;                     /* mintid.node, or -1 for a format without a node field */
    int64 epoch_ms;                 /* Unix ms */
    int64 floor_ms;                 /* no ID of the format before this Unix ms (an epoch adopted later) */
    char layout[MINTID_LAYOUT_MAX]; /* "64:timestamp/41,node/10,sequence/12" */
} mintid_pg_params;

/* Everything in shared memory (or, without preload, per backend). */
typedef struct mintid_pg_state {
    LWLock *lock;          /* NULL in the per-backend state */
    bool durable;          /* false: the per-backend state, no mark */
    int64 mark_ms;         /* no ID was issued at or past this Unix ms */
    int64 floor_ms;        /* a mark from before this server's IDs (file, redo): start there */
    XLogRecPtr mark_lsn;   /* the WAL record of mark_ms */
    XLogRecPtr mark_acked; /* the synchronous standbys are known to have mark records up to here */
    mintid_pg_params params[MINTID_FORMAT_COUNT]; /* recorded with mark_ms */
    mintid_pg_gen gen[MINTID_FORMAT_COUNT];
} mintid_pg_state;

static mintid_pg_state *shared_state;
static mintid_pg_state local_state;
static bool local_state_ready;

/*
 * The host-wide generators of this backend. Opened in the backend, never
 * in the postmaster: a generator is a process's, and the first mint of a
 * format is the first time one is needed.
 */
static mintid_pg_host host_gens[MINTID_FORMAT_COUNT];
/* mintid.host_dir and mintid.id_space as the generators take them (host_where()). */
static char host_dir[MAXPGPATH];
static char host_space[MINTID_ID_SPACE_MAX + 1];
static bool host_known;

static shmem_request_hook_type prev_shmem_request_hook;
static shmem_startup_hook_type prev_shmem_startup_hook;

/* Settings. */
static int guc_node;
static bool guc_adopt_params;
static char *guc_host_dir; /* '': MINTID_HOST_DIR, as every home reads it (host_where()) */
static char *guc_id_space;
static char *guc_epoch[MINTID_FORMAT_COUNT];    /* checked by epoch_check_format() */
static int64 guc_epoch_ms[MINTID_FORMAT_COUNT]; /* as that check read them (epoch_assign_format()) */

/* Each format's bit layout as recorded (layout_of), worked out once in _PG_init. */
static char format_layout[MINTID_FORMAT_COUNT][MINTID_LAYOUT_MAX];

/*
 * The random pool of this backend. Not in shared memory, and reset when
 * the process id changes: a pool copied from the postmaster by fork()
 * would hand every backend the same bytes.
 */
static mintid_pool rng;
static int rng_pid;

/* ---- errors --------------------------------------------------------------------------- */

/*
 * What the library was given when it refused: the SQLSTATE of a caller's
 * mistake depends on it, as it does for PostgreSQL's own types.
 */
typedef enum pg_given {
    GIVEN_ARGUMENT, /* an argument or a setting: 22023 */
    GIVEN_TEXT,     /* an ID's text (a type's input, typeid text), or a uuid read as UUIDv7: 22P02 */
    GIVEN_VALUE     /* an ID's bits in another type's value (bytea, bigint, uuid, binary COPY): 22P03, 22003 */
} pg_given;

/*
 * The one map from a library status to a SQLSTATE, by the status's class
 * (mintid_status_class()). Each class has a SQLSTATE class (the first two
 * characters) of its own, so that a client tells whose the fault is from
 * them: the input 22 (data exception), the clock 55000, capacity 53000, the
 * environment 58000, the program XX000. Within the input class the code
 * says what was given (pg_given), and ETIME is 22008.
 */
static int status_sqlstate(int status, pg_given given) {
    switch (mintid_status_class(status)) {
    case MINTID_CLASS_INPUT:
        if (status == MINTID_ETIME)
            return ERRCODE_DATETIME_VALUE_OUT_OF_RANGE;
        switch (given) {
        case GIVEN_TEXT:
            return ERRCODE_INVALID_TEXT_REPRESENTATION;
        case GIVEN_VALUE:
            return status == MINTID_EOVERFLOW ? ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE
                                              : ERRCODE_INVALID_BINARY_REPRESENTATION;
        case GIVEN_ARGUMENT:
            return ERRCODE_INVALID_PARAMETER_VALUE;
        }
        break;
    case MINTID_CLASS_CLOCK:
        return ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE;
    case MINTID_CLASS_CAPACITY:
        return ERRCODE_INSUFFICIENT_RESOURCES;
    case MINTID_CLASS_ENVIRONMENT:
        return ERRCODE_SYSTEM_ERROR;
    case MINTID_CLASS_NONE:
    case MINTID_CLASS_PROGRAM:
        break;
    }
    return ERRCODE_INTERNAL_ERROR;
}

/* A refusal with the library's sentence (pgcrypto's px_THROW_ERROR). */
static void throw_why(int status, pg_given given, const char *why) pg_attribute_noreturn();
static void throw_why(int status, pg_given given, const char *why) {
    ereport(ERROR, (errcode(status_sqlstate(status, given)), errmsg("%s", why)));
}

/* A status the library gives no sentence for (encoding, a time range): the format, what failed, its words. */
static void throw_status(const mintid_format *f, int status, const char *what) pg_attribute_noreturn();
static void throw_status(const mintid_format *f, int status, const char *what) {
    ereport(ERROR, (errcode(status_sqlstate(status, GIVEN_ARGUMENT)),
                    errmsg("%s: %s: %s", f->name, what, mintid_strerror(status))));
}

static const mintid_format *format_at(int idx) {
    const mintid_format *f = idx < MINTID_FORMAT_COUNT ? mintid_format_get((mintid_format_id)idx) : NULL;
    if (f == NULL)
        elog(ERROR, "mintid: no format in table slot %d", idx);
    return f;
}

/* The epoch IDs of f are read and minted against: mintid.<format>_epoch as its check read it, or the format's. */
static int64 format_epoch(const mintid_format *f) { return f->epoch_settable ? guc_epoch_ms[f->id] : f->epoch_ms; }

/* ---- IDs and datums ------------------------------------------------------------------ */

static Size id_size(const mintid_format *f) { return f->bits / 8; }

static void id_from_datum(const mintid_format *f, Datum d, mintid_id *id) {
    memset(id, 0, sizeof *id);
    if (f->bits == 64)
        mintid_id_from_u64(id, DatumGetUInt64(d));
    else
        memcpy(id->bytes, DatumGetPointer(d), id_size(f));
}

static Datum id_to_datum(const mintid_format *f, const mintid_id *id) {
    void *p;
    if (f->bits == 64)
        return UInt64GetDatum(mintid_id_to_u64(id));
    p = palloc(id_size(f));
    memcpy(p, id->bytes, id_size(f));
    return PointerGetDatum(p);
}

/*
 * Reads an ID's text as f's, in any of its forms (with its type prefix into
 * prefix, MINTID_PREFIX_MAX + 1 bytes, when not NULL); bad input is 22P02
 * with the library's sentence. A text that decodes to a value the format
 * does not mint (MINTID_EINVALID with the ID read: caloriosa's core form)
 * is taken, as it always was, so that a dump of such values restores.
 */
static void id_from_text(const mintid_format *f, const char *s, size_t len, mintid_id *id, char *prefix) {
    mintid_reading r;
    char why[MINTID_WHY_MAX];
    int rc = mintid_read_text(f, MINTID_FORM_ANY, format_epoch(f), s, len, &r, why, sizeof why);
    if (rc != MINTID_OK && !(rc == MINTID_EINVALID && r.fmt != NULL))
        throw_why(rc, GIVEN_TEXT, why);
    *id = r.id;
    if (prefix != NULL)
        strlcpy(prefix, r.prefix, MINTID_PREFIX_MAX + 1);
}

/*
 * Reads an ID's bytes (big-endian) that did not come through a text
 * decoder (binary input, casts): what the library refuses in them (a
 * length, a value too large, mintid_id_check()), this refuses too.
 */
static void id_from_bytes(const mintid_format *f, const void *bytes, size_t len, pg_given given, mintid_id *id) {
    mintid_reading r;
    char why[MINTID_WHY_MAX];
    int rc = mintid_read_bytes(f, format_epoch(f), bytes, len, &r, why, sizeof why);
    if (rc != MINTID_OK)
        throw_why(rc, given, why);
    *id = r.id;
}

static int cmp_datums(const mintid_format *f, Datum a, Datum b) {
    if (f->bits == 64) {
        uint64 x = DatumGetUInt64(a), y = DatumGetUInt64(b);
        return x < y ? -1 : x > y;
    }
    return memcmp(DatumGetPointer(a), DatumGetPointer(b), id_size(f));
}

static int64 unix_ms_from_timestamptz(TimestampTz t) {
    if (TIMESTAMP_NOT_FINITE(t))
        ereport(ERROR, (errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE), errmsg("timestamp out of range")));
    /* Floor to the millisecond, also before 2000. */
    return (t >= 0 ? t / 1000 : -((-t + 999) / 1000)) + PG_EPOCH_UNIX_MS;
}

/* ---- the generic operations ---------------------------------------------------------- */

static Datum in_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    const char *s = PG_GETARG_CSTRING(0);
    mintid_id id;
    id_from_text(f, s, strlen(s), &id, NULL);
    return id_to_datum(f, &id);
}

static Datum out_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    mintid_id id;
    char buf[MINTID_TEXT_MAX];
    int n;
    id_from_datum(f, PG_GETARG_DATUM(0), &id);
    n = mintid_encode(f, MINTID_FORM_TEXT, &id, buf, sizeof buf);
    if (n < 0)
        throw_status(f, n, "cannot encode");
    PG_RETURN_CSTRING(pstrdup(buf));
}

static Datum recv_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    StringInfo msg = (StringInfo)PG_GETARG_POINTER(0);
    mintid_id id;
    id_from_bytes(f, pq_getmsgbytes(msg, (int)id_size(f)), id_size(f), GIVEN_VALUE, &id);
    return id_to_datum(f, &id);
}

static Datum send_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    mintid_id id;
    StringInfoData buf;
    id_from_datum(f, PG_GETARG_DATUM(0), &id);
    pq_begintypsend(&buf);
    pq_sendbytes(&buf, (const char *)id.bytes, (int)id_size(f));
    PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

#define CMP_IMPL(name, expr)                                                                                           \
    static Datum name##_impl(FunctionCallInfo fcinfo, int idx) {                                                       \
        int c = cmp_datums(format_at(idx), PG_GETARG_DATUM(0), PG_GETARG_DATUM(1));                                    \
        PG_RETURN_BOOL(expr);                                                                                          \
    }
CMP_IMPL(eq, c == 0)
CMP_IMPL(ne, c != 0)
CMP_IMPL(lt, c < 0)
CMP_IMPL(le, c <= 0)
CMP_IMPL(gt, c > 0)
CMP_IMPL(ge, c >= 0)

static Datum cmp_impl(FunctionCallInfo fcinfo, int idx) {
    int c = cmp_datums(format_at(idx), PG_GETARG_DATUM(0), PG_GETARG_DATUM(1));
    PG_RETURN_INT32(c < 0 ? -1 : c > 0);
}

/* The aggregates min() and max(): the smaller or larger argument, as it is. */
static Datum smaller_impl(FunctionCallInfo fcinfo, int idx) {
    Datum a = PG_GETARG_DATUM(0), b = PG_GETARG_DATUM(1);
    return cmp_datums(format_at(idx), a, b) <= 0 ? a : b;
}

static Datum larger_impl(FunctionCallInfo fcinfo, int idx) {
    Datum a = PG_GETARG_DATUM(0), b = PG_GETARG_DATUM(1);
    return cmp_datums(format_at(idx), a, b) >= 0 ? a : b;
}

static int cmp_bytes_ssup(Datum a, Datum b, SortSupport ssup) {
    return memcmp(DatumGetPointer(a), DatumGetPointer(b), (size_t)(uintptr_t)ssup->ssup_extra);
}

static Datum sortsupport_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    SortSupport ssup = (SortSupport)PG_GETARG_POINTER(0);
    if (f->bits == 64) {
        ssup->comparator = ssup_datum_unsigned_cmp;
    } else {
        ssup->comparator = cmp_bytes_ssup;
        ssup->ssup_extra = (void *)(uintptr_t)id_size(f);
    }
    PG_RETURN_VOID();
}

static Datum hash_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    mintid_id id;
    id_from_datum(f, PG_GETARG_DATUM(0), &id);
    return hash_any(id.bytes, (int)id_size(f));
}

static Datum hash_ext_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    mintid_id id;
    id_from_datum(f, PG_GETARG_DATUM(0), &id);
    return hash_any_extended(id.bytes, (int)id_size(f), PG_GETARG_INT64(1));
}

/* bigint holds a 64-bit ID's bits as they are: two's complement past 2^63 - 1. */
static Datum to_int8_impl(FunctionCallInfo fcinfo, int idx) {
    (void)format_at(idx);
    PG_RETURN_INT64((int64)DatumGetUInt64(PG_GETARG_DATUM(0)));
}

static Datum from_int8_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    mintid_id id;
    mintid_id_from_u64(&id, (uint64)PG_GETARG_INT64(0));
    id_from_bytes(f, id.bytes, sizeof(uint64), GIVEN_VALUE, &id);
    return id_to_datum(f, &id);
}

static Datum to_bytea_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    mintid_id id;
    bytea *b = palloc(VARHDRSZ + id_size(f));
    id_from_datum(f, PG_GETARG_DATUM(0), &id);
    SET_VARSIZE(b, VARHDRSZ + id_size(f));
    memcpy(VARDATA(b), id.bytes, id_size(f));
    PG_RETURN_BYTEA_P(b);
}

static Datum from_bytea_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    bytea *b = PG_GETARG_BYTEA_PP(0);
    mintid_id id;
    id_from_bytes(f, VARDATA_ANY(b), VARSIZE_ANY_EXHDR(b), GIVEN_VALUE, &id);
    return id_to_datum(f, &id);
}

/* uuid and a 128-bit ID are the same 16 bytes. */
static Datum to_uuid_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    pg_uuid_t *u = palloc(sizeof *u);
    mintid_id id;
    id_from_datum(f, PG_GETARG_DATUM(0), &id);
    memcpy(u->data, id.bytes, UUID_LEN);
    PG_RETURN_UUID_P(u);
}

static Datum from_uuid_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    mintid_id id;
    id_from_bytes(f, PG_GETARG_UUID_P(0)->data, UUID_LEN, GIVEN_VALUE, &id);
    return id_to_datum(f, &id);
}

static Datum timestamp_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    mintid_id id;
    int64 ms;
    id_from_datum(f, PG_GETARG_DATUM(0), &id);
    /* Only a uuid read as UUIDv7 can fail: the library says why (22P02, as documented). */
    if (mintid_id_check(f, &id) != MINTID_OK)
        id_from_bytes(f, id.bytes, id_size(f), GIVEN_TEXT, &id);
    ms = mintid_id_unix_ms(f, &id, format_epoch(f));
    PG_RETURN_TIMESTAMPTZ((ms - PG_EPOCH_UNIX_MS) * 1000);
}

static Datum inspect_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    mintid_id id;
    char buf[MINTID_JSON_MAX];
    int n;
    id_from_datum(f, PG_GETARG_DATUM(0), &id);
    n = mintid_id_to_json(f, &id, format_epoch(f), buf, sizeof buf);
    if (n < 0)
        throw_status(f, n, "cannot describe");
    return DirectFunctionCall1(jsonb_in, CStringGetDatum(buf));
}

static void range_of(FunctionCallInfo fcinfo, int idx, mintid_id *min, mintid_id *max) {
    const mintid_format *f = format_at(idx);
    int64 ms = unix_ms_from_timestamptz(PG_GETARG_TIMESTAMPTZ(0));
    int rc = mintid_range(f, ms, format_epoch(f), min, max);
    if (rc != MINTID_OK)
        throw_status(f, rc, "no ID carries that time");
}

static Datum min_impl(FunctionCallInfo fcinfo, int idx) {
    mintid_id lo, hi;
    range_of(fcinfo, idx, &lo, &hi);
    return id_to_datum(format_at(idx), &lo);
}

static Datum max_impl(FunctionCallInfo fcinfo, int idx) {
    mintid_id lo, hi;
    range_of(fcinfo, idx, &lo, &hi);
    return id_to_datum(format_at(idx), &hi);
}

/* ---- the durable mark ------------------------------------------------------------------ */

/* The layout of f as recorded: its width and its fields, most significant first. */
static void layout_of(const mintid_format *f, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "%u:", (unsigned)f->bits);
    unsigned i;
    for (i = 0; i < f->nfields && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s/%u", i ? "," : "", f->fields[i].name,
                              (unsigned)f->fields[i].width);
}

/* The text of the mark file (and of a XLOG_MINTID_STATE record); its length. */
static size_t mark_text(int64 mark, const mintid_pg_params *params, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, MINTID_MARK_HEADER "mark " INT64_FORMAT "\n", mark);
    int i;
    for (i = 0; i < MINTID_FORMAT_COUNT && n < cap; i++) {
        const mintid_pg_params *p = &params[i];
        char node[16];
        if (!p->present)
            continue;
        if (p->node < 0)
            strlcpy(node, "-", sizeof node);
        else
            snprintf(node, sizeof node, "%d", (int)p->node);
        n += (size_t)snprintf(buf + n, cap - n,
                              "format %s node=%s epoch=" INT64_FORMAT " floor=" INT64_FORMAT " layout=%s\n",
                              mintid_format_get((mintid_format_id)i)->name, node, p->epoch_ms, p->floor_ms, p->layout);
    }
    if (n >= cap)
        elog(ERROR, "mintid: the mark's text exceeds %zu bytes", cap);
    return n;
}

/* A decimal of the mark's text: 1 to 18 digits, nothing else. */
static bool parse_ms(const char *s, size_t len, int64 *out) {
    int64 v = 0;
    size_t i;
    if (len == 0 || len > 18)
        return false;
    for (i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* Parses "<name> node=N|- epoch=N floor=N layout=S" (after "format "); NULL, or why not. */
static const char *parse_format_line(const char *p, const char *e, mintid_pg_params *params) {
    static const char *const keys[] = {" node=", " epoch=", " floor=", " layout="};
    const char *sp = memchr(p, ' ', (size_t)(e - p));
    const mintid_format *f;
    mintid_pg_params *rec;
    char name[32];
    int k;
    if (sp == NULL || (size_t)(sp - p) >= sizeof name)
        return "a malformed format line";
    memcpy(name, p, (size_t)(sp - p));
    name[sp - p] = '\0';
    if ((f = mintid_format_find(name)) == NULL)
        return "a format this module does not know";
    rec = &params[f->id];
    if (rec->present)
        return "a format recorded twice";
    for (k = 0, p = sp; k < 4; k++) {
        size_t kl = strlen(keys[k]);
        const char *v;
        int64 node;
        if ((size_t)(e - p) < kl || memcmp(p, keys[k], kl) != 0)
            return "a format line without node=, epoch=, floor= and layout=, in this order";
        v = p += kl;
        while (p < e && *p != ' ')
            p++;
        if (k == 0 && p - v == 1 && *v == '-')
            rec->node = -1;
        else if (k == 0 && parse_ms(v, (size_t)(p - v), &node) && node <= 65535)
            rec->node = (int32)node;
        else if (k == 0)
            return "a node that is neither 0..65535 nor -";
        else if (k < 3 && !parse_ms(v, (size_t)(p - v), k == 1 ? &rec->epoch_ms : &rec->floor_ms))
            return "an epoch or floor that is not Unix ms";
        else if (k == 3 && (p != e || p == v || (size_t)(p - v) >= sizeof rec->layout))
            return "a malformed layout";
        else if (k == 3)
            memcpy(rec->layout, v, (size_t)(p - v));
    }
    rec->present = true;
    return NULL;
}

/*
 * Parses the mark's text (the file's bytes, or a record's) into *mark and
 * params (which it clears first); NULL, or why it does not parse. The text
 * of version 1 is the mark alone: its formats' parameters are unknown.
 */
static const char *mark_parse(const char *buf, size_t n, int64 *mark, mintid_pg_params *params, int *version) {
    const size_t hl = strlen(MINTID_MARK_HEADER);
    const char *p = buf, *end = buf + n;
    bool have_mark = false;
    memset(params, 0, sizeof(mintid_pg_params) * MINTID_FORMAT_COUNT);
    if (memchr(buf, '\0', n) != NULL)
        return "a NUL byte";
    if (n < hl || memcmp(buf, MINTID_MARK_HEADER, hl) != 0) {
        /* Version 1 was read with or without its end of line. */
        *version = 1;
        return parse_ms(buf, n > 0 && buf[n - 1] == '\n' ? n - 1 : n, mark)
                   ? NULL
                   : "neither the header \"mintid-mark 2\" nor a mark (Unix ms)";
    }
    *version = 2;
    if (buf[n - 1] != '\n')
        return "no end of line at its end";
    for (p += hl; p < end;) {
        const char *e = memchr(p, '\n', (size_t)(end - p)), *why;
        if (e - p > 5 && memcmp(p, "mark ", 5) == 0) {
            if (have_mark || !parse_ms(p + 5, (size_t)(e - p - 5), mark))
                return have_mark ? "the mark recorded twice" : "a mark that is not Unix ms";
            have_mark = true;
        } else if (e - p > 7 && memcmp(p, "format ", 7) == 0) {
            if ((why = parse_format_line(p + 7, e, params)) != NULL)
                return why;
        } else {
            return "a line other than mark and format";
        }
        p = e + 1;
    }
    return have_mark ? NULL : "no mark line";
}

/*
 * Reads the mark file: the mark (0 if there is no file) and the recorded
 * parameters. A file that does not parse stops the server: a mark that
 * cannot be read cannot be honoured, and it is never read as 0.
 */
static int64 mark_file_read(mintid_pg_params *params) {
    char buf[MINTID_MARK_TEXT_MAX + 1];
    int fd = OpenTransientFile(MINTID_MARK_FILE, O_RDONLY | PG_BINARY);
    ssize_t n;
    int64 mark = 0;
    int version;
    const char *why;
    memset(params, 0, sizeof(mintid_pg_params) * MINTID_FORMAT_COUNT);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        ereport(FATAL, (errcode_for_file_access(), errmsg("could not open \"%s\": %m", MINTID_MARK_FILE)));
    }
    n = read(fd, buf, sizeof buf);
    CloseTransientFile(fd);
    if (n < 0)
        ereport(FATAL, (errcode_for_file_access(), errmsg("could not read \"%s\": %m", MINTID_MARK_FILE)));
    why = n > MINTID_MARK_TEXT_MAX ? "larger than any mark file" : mark_parse(buf, (size_t)n, &mark, params, &version);
    if (why != NULL) {
        char esc[MINTID_ESCAPED_MAX];
        mintid_escape(buf, Min((size_t)n, (size_t)64), esc, sizeof esc);
        ereport(FATAL, (errcode(ERRCODE_DATA_CORRUPTED),
                        errmsg("\"%s\" holds no mark: %s (it begins \"%s\")", MINTID_MARK_FILE, why, esc),
                        errhint("Restore it from a backup; without its mark, IDs minted before could be minted "
                                "again. Move it away only once the clock is past every ID ever minted here.")));
    }
    if (version == 1 && mark > 0)
        ereport(LOG, (errmsg("\"%s\" of an earlier mintid records no parameters; each format's node, epoch and "
                             "layout are recorded at its next mint",
                             MINTID_MARK_FILE)));
    return mark;
}

/* Writes the mark file durably: a temporary file, fsync, rename, fsync of the directory. */
static void mark_file_write(const char *buf, size_t n) {
    int len = (int)n;
    int fd = OpenTransientFile(MINTID_MARK_TMP, O_WRONLY | O_CREAT | O_TRUNC | PG_BINARY);
    if (fd < 0)
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not create \"%s\": %m", MINTID_MARK_TMP)));
    if (write(fd, buf, len) != len || pg_fsync(fd) != 0) {
        int save = errno;
        CloseTransientFile(fd);
        errno = save == 0 ? ENOSPC : save;
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not write \"%s\": %m", MINTID_MARK_TMP)));
    }
    if (CloseTransientFile(fd) != 0)
        ereport(ERROR, (errcode_for_file_access(), errmsg("could not close \"%s\": %m", MINTID_MARK_TMP)));
    durable_rename(MINTID_MARK_TMP, MINTID_MARK_FILE, ERROR);
}

/*
 * Raises the mark to new_mark, recording the parameters of every format
 * with it, those of f replaced by *fp when f is not NULL (a format's first
 * mint, or an adopted change): the file, fsynced (which no checkpoint makes
 * obsolete), then a WAL record, flushed (replicas replay it, and crash
 * recovery after the last checkpoint). Called with the lock held, before
 * any ID under the new mark or parameters is minted; the synchronous
 * standbys' answer is waited for after the lock is released
 * (mark_wait_standbys), before any ID under them is returned. Shared
 * memory changes only once both are durable.
 *
 * The file comes first: a base backup whose checkpoint falls between the
 * two then has the new mark either in the file it copies (written before
 * the checkpoint) or in the WAL it replays (logged after it). In the other
 * order, a copy of the file taken before it was written, with the record
 * before the backup's redo point, would lose the mark.
 *
 * Every record's mark is above the one before, so that replay can tell a
 * record older than the file it started from (and skip its parameters).
 */
static void mark_raise(mintid_pg_state *st, int64 new_mark, const mintid_format *f, const mintid_pg_params *fp) {
    mintid_pg_params params[MINTID_FORMAT_COUNT];
    char buf[MINTID_MARK_TEXT_MAX];
    XLogRecPtr lsn;
    size_t n;
    new_mark = Max(new_mark, st->mark_ms + 1);
    memcpy(params, st->params, sizeof params);
    if (f != NULL)
        params[f->id] = *fp;
    n = mark_text(new_mark, params, buf, sizeof buf);
    mark_file_write(buf, n);
    XLogBeginInsert();
    XLogRegisterData(buf, (int)n);
    lsn = XLogInsert(MINTID_RMGR_ID, XLOG_MINTID_STATE);
    XLogFlush(lsn);
    st->mark_ms = new_mark;
    memcpy(st->params, params, sizeof params);
    st->mark_lsn = lsn;
}

/*
 * Synchronous standbys get the mark before any ID under it is returned, as
 * they get a commit (under the session's synchronous_commit). The wait is
 * made without the generators' lock, so a standby that stops answering
 * holds up the sessions minting, as it holds up commits, and each of them
 * can be cancelled. A wait that ends without the standbys' answer
 * (cancelled, or the standby list emptied meanwhile) is an error: the ID is
 * not returned.
 */
static void mark_wait_standbys(mintid_pg_state *st, XLogRecPtr lsn) {
    int mode;
    bool acked;
    if (!SyncRepRequested() || SyncRepStandbyNames == NULL || SyncRepStandbyNames[0] == '\0')
        return;
    SyncRepWaitForLSN(lsn, false);
    mode = synchronous_commit == SYNCHRONOUS_COMMIT_REMOTE_WRITE   ? SYNC_REP_WAIT_WRITE
           : synchronous_commit == SYNCHRONOUS_COMMIT_REMOTE_APPLY ? SYNC_REP_WAIT_APPLY
                                                                   : SYNC_REP_WAIT_FLUSH;
    LWLockAcquire(SyncRepLock, LW_SHARED);
    acked = WalSndCtl->lsn[mode] >= lsn;
    LWLockRelease(SyncRepLock);
    if (!acked)
        ereport(ERROR, (errcode(ERRCODE_QUERY_CANCELED),
                        errmsg("the synchronous standbys did not confirm mintid's mark; no ID was returned"),
                        errdetail("An ID is returned only under a mark the synchronous standbys have.")));
    LWLockAcquire(st->lock, LW_EXCLUSIVE);
    if (st->mark_acked < lsn)
        st->mark_acked = lsn;
    LWLockRelease(st->lock);
}

/*
 * Replays a mark: the old record's alone, or the mark and parameters of a
 * XLOG_MINTID_STATE record, which replace the recorded ones. A record whose
 * mark is not above the one already known (from the file read at start, or
 * an earlier record) is older than what the file holds and is skipped.
 */
static void mintid_redo(XLogReaderState *record) {
    mintid_pg_params params[MINTID_FORMAT_COUNT];
    char buf[MINTID_MARK_TEXT_MAX];
    uint8 info = XLogRecGetInfo(record) & ~XLR_INFO_MASK;
    int64 mark;
    int version;
    size_t len = XLogRecGetDataLen(record), n;
    if (info == XLOG_MINTID_MARK && len == sizeof(mintid_mark_record)) {
        mintid_mark_record rec;
        memcpy(&rec, XLogRecGetData(record), sizeof rec);
        mark = rec.mark_ms;
    } else if (info == XLOG_MINTID_STATE) {
        const char *why = mark_parse(XLogRecGetData(record), len, &mark, params, &version);
        if (why != NULL || version != 2)
            elog(PANIC, "mintid_redo: a state record that does not parse: %s", why != NULL ? why : "version 1");
    } else {
        elog(PANIC, "mintid_redo: unknown op code %u or length %zu", info, len);
    }
    if (shared_state == NULL)
        return;
    LWLockAcquire(shared_state->lock, LW_EXCLUSIVE);
    if (mark > shared_state->floor_ms) {
        shared_state->floor_ms = mark;
        if (mark > shared_state->mark_ms)
            shared_state->mark_ms = mark;
        if (info == XLOG_MINTID_STATE)
            memcpy(shared_state->params, params, sizeof params);
        /* A standby keeps it across its own restarts, whose restart
         * points may lie past this record. */
        n = mark_text(shared_state->mark_ms, shared_state->params, buf, sizeof buf);
        mark_file_write(buf, n);
    }
    LWLockRelease(shared_state->lock);
}

static void mintid_desc(StringInfo buf, XLogReaderState *record) {
    const char *p = XLogRecGetData(record), *end = p + XLogRecGetDataLen(record);
    mintid_mark_record rec;
    if ((XLogRecGetInfo(record) & ~XLR_INFO_MASK) == XLOG_MINTID_MARK) {
        memcpy(&rec, p, sizeof rec);
        appendStringInfo(buf, "mark " INT64_FORMAT, rec.mark_ms);
        return;
    }
    /* The text after its header line, one line after the other. */
    p += Min((size_t)(end - p), strlen(MINTID_MARK_HEADER));
    for (; p < end; p++) {
        if (*p != '\n')
            appendStringInfoChar(buf, *p);
        else if (p + 1 < end)
            appendStringInfoString(buf, "; ");
    }
}

static const char *mintid_identify(uint8 info) {
    switch (info & ~XLR_INFO_MASK) {
    case XLOG_MINTID_MARK:
        return "MARK";
    case XLOG_MINTID_STATE:
        return "STATE";
    default:
        return NULL;
    }
}

static RmgrData mintid_rmgr = {
    .rm_name = "mintid",
    .rm_redo = mintid_redo,
    .rm_desc = mintid_desc,
    .rm_identify = mintid_identify,
};

/* ---- shared memory ------------------------------------------------------------------ */

static void mintid_shmem_request(void) {
    if (prev_shmem_request_hook)
        prev_shmem_request_hook();
    RequestAddinShmemSpace(MAXALIGN(sizeof(mintid_pg_state)));
    RequestNamedLWLockTranche("mintid", 1);
}

static void state_init(mintid_pg_state *st) {
    int i;
    for (i = 0; i < MINTID_FORMAT_COUNT; i++)
        mintid_core_init(mintid_format_get((mintid_format_id)i), &st->gen[i].core);
}

static void mintid_shmem_startup(void) {
    bool found;
    if (prev_shmem_startup_hook)
        prev_shmem_startup_hook();
    LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
    shared_state = ShmemInitStruct("mintid", sizeof(mintid_pg_state), &found);
    if (!found) {
        memset(shared_state, 0, sizeof *shared_state);
        shared_state->lock = &(GetNamedLWLockTranche("mintid"))->lock;
        shared_state->durable = true;
        /* At start and after a crash: everything before the mark is spoken for. */
        shared_state->floor_ms = shared_state->mark_ms = mark_file_read(shared_state->params);
        state_init(shared_state);
    }
    LWLockRelease(AddinShmemInitLock);
}

/* ---- generation ------------------------------------------------------------------------ */

/*
 * Whether f's IDs stay apart only through one sequence: they carry a node
 * id, or have too few random bits (under 128 bits in all) for generators
 * that share nothing. These mint from the host-wide state, with the mark.
 */
static bool on_host(const mintid_format *f) { return (f->node_bits > 0 && !f->node_optional) || f->bits < 128; }

/*
 * The state to mint from: shared, or this backend's for the formats whose
 * IDs stay apart without it: no node field, and 128 bits or more, so that
 * generators that share nothing are kept apart by their random bits (74 or
 * more per millisecond). A 64-bit ID has a few random bits at most: two
 * backends minting in the same millisecond would repeat each other's IDs.
 */
static mintid_pg_state *state_for(const mintid_format *f) {
    char name[64];
    if (shared_state != NULL)
        return shared_state;
    if (on_host(f)) {
        mintid_pg_sql_name(f, name, sizeof name);
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("gen_%s() needs the mintid library preloaded", name),
                 errhint("Add mintid to shared_preload_libraries in postgresql.conf and restart the server: %s IDs %s "
                         "and must come from the host's one sequence, under the cluster's mark.",
                         f->name,
                         f->node_bits > 0 && !f->node_optional
                             ? "carry mintid.node"
                             : "have too few random bits to stay apart when each session mints its own")));
    }
    if (!local_state_ready) {
        memset(&local_state, 0, sizeof local_state);
        state_init(&local_state);
        local_state_ready = true;
    }
    return &local_state;
}

/* The configuration of f's generator: its epoch and (node-bound formats) mintid.node. */
static void gen_config(const mintid_format *f, mintid_config *cfg) {
    mintid_config_init(cfg, f);
    cfg->epoch_ms = format_epoch(f);
    if (f->node_bits > 0 && !f->node_optional) {
        char why[MINTID_WHY_MAX];
        int rc = mintid_check_node(f, guc_node, why, sizeof why);
        if (rc != MINTID_OK)
            ereport(ERROR, (errcode(status_sqlstate(rc, GIVEN_ARGUMENT)), errmsg("mintid.node: %s", why),
                            errhint("mintid.node is set in postgresql.conf; with the library preloaded, a restart "
                                    "takes a new value.")));
        cfg->node = guc_node;
    }
}

/* The name of f's epoch for messages: its setting, where it has one. */
static void epoch_name(const mintid_format *f, char *buf, size_t cap) {
    char sql[64];
    mintid_pg_sql_name(f, sql, sizeof sql);
    if (f->epoch_settable)
        snprintf(buf, cap, "mintid.%s_epoch", sql);
    else
        snprintf(buf, cap, "the epoch of %s", f->name);
}

/*
 * Describes how p differs from the recorded rec, in the words mintidd uses
 * for a start with changed parameters: what changed, why that could repeat
 * IDs, and the recorded values to go back to. Returns how many changed.
 */
static int params_changes(const mintid_format *f, const mintid_pg_params *rec, const mintid_pg_params *p,
                          StringInfo what, StringInfo why, StringInfo back) {
    char epoch[96];
    int changes = 0;
    epoch_name(f, epoch, sizeof epoch);
    if (rec->node != p->node) {
        changes++;
        appendStringInfo(what, "mintid.node changed from %d to %d", (int)rec->node, (int)p->node);
        appendStringInfoString(why, "IDs of the new node could repeat ones another server issued with it.");
        appendStringInfo(back, "mintid.node = %d", (int)rec->node);
    }
    if (strcmp(rec->layout, p->layout) != 0) {
        changes++;
        appendStringInfo(what, "%sthe bit layout changed from %s to %s", changes > 1 ? " and " : "", rec->layout,
                         p->layout);
        appendStringInfo(why,
                         "%sThis mintid lays out the format differently from the one that wrote the mark, so its "
                         "IDs could repeat earlier ones.",
                         changes > 1 ? " " : "");
        appendStringInfo(back, "%sthe version of mintid that wrote the mark", back->len > 0 ? ", " : "");
    }
    if (rec->epoch_ms != p->epoch_ms) {
        changes++;
        appendStringInfo(what, "%s%s changed from " INT64_FORMAT " to " INT64_FORMAT, changes > 1 ? " and " : "", epoch,
                         rec->epoch_ms, p->epoch_ms);
        appendStringInfo(why, "%sIDs under the new epoch could repeat ones already issued.", changes > 1 ? " " : "");
        if (f->epoch_settable)
            appendStringInfo(back, "%s%s = '" INT64_FORMAT "'", back->len > 0 ? ", " : "", epoch, rec->epoch_ms);
        else if (strcmp(rec->layout, p->layout) == 0)
            appendStringInfo(back, "%sthe version of mintid that wrote the mark", back->len > 0 ? ", " : "");
    }
    return changes;
}

/*
 * Admits a mint of f under cfg against the parameters recorded with the
 * mark, with the lock held. Returns false when they are the recorded ones;
 * true when they must be recorded (*p) before any ID is minted: the
 * format's first mint, or a change adopted under mintid.adopt_params. A
 * change without it is refused (ERROR, after the lock is released), with
 * nothing changed, and the same ways to move on as mintidd's: back to the
 * recorded values, or adopt the new ones once.
 *
 * An epoch moved D later makes the timestamp fields of the IDs the mark
 * covers come round again D after it, so an adopted one gets the floor
 * mark + D (in the format's units, as the library's one record of it,
 * mintid_epoch_change_floor(), says), recorded with it; moved earlier, or
 * within one unit, every new field is larger than the old ones already.
 */
static bool params_admit(mintid_pg_state *st, const mintid_format *f, const mintid_config *cfg, mintid_pg_params *p) {
    const mintid_pg_params *cur = &st->params[f->id];
    mintid_pg_params rec;
    int32 node = cfg->node >= 0 ? (int32)cfg->node : -1;
    int64 later = 0, last;
    StringInfoData what, why, back;
    char when[MINTID_TIME_MAX], after[MINTID_TIME_MAX + 64];
    int changes;
    /* The path of every mint: the recorded parameters, unchanged. */
    if (cur->present && cur->node == node && cur->epoch_ms == cfg->epoch_ms &&
        strcmp(cur->layout, format_layout[f->id]) == 0) {
        p->floor_ms = cur->floor_ms;
        return false;
    }
    rec = *cur;
    memset(p, 0, sizeof *p);
    p->present = true;
    p->node = node;
    p->epoch_ms = cfg->epoch_ms;
    p->floor_ms = rec.present ? rec.floor_ms : 0;
    strlcpy(p->layout, format_layout[f->id], sizeof p->layout);
    if (!rec.present)
        return true;
    /* The mark is exclusive (no ID's time at or past it), the library's
     * argument the last Unix ms an old ID can carry; it returns the last one
     * a new ID must not carry. */
    last = mintid_epoch_change_floor(f, rec.epoch_ms, p->epoch_ms, Max(st->mark_ms, rec.floor_ms) - 1);
    if (last != INT64_MIN)
        later = last < INT64_MAX ? last + 1 : INT64_MAX;
    after[0] = '\0';
    if (later > 0) {
        if (mintid_format_time(later, when, sizeof when) < 0) /* past year 9999 */
            snprintf(when, sizeof when, "Unix ms " INT64_FORMAT, later);
        snprintf(after, sizeof after, " (the format then issues nothing before %s)", when);
    }
    if (!guc_adopt_params)
        LWLockRelease(st->lock);
    initStringInfo(&what);
    initStringInfo(&why);
    initStringInfo(&back);
    changes = params_changes(f, &rec, p, &what, &why, &back);
    if (!guc_adopt_params)
        ereport(ERROR, (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                        errmsg("%s: %s since the mark was written", f->name, what.data), errdetail("%s", why.data),
                        errhint("To move on safely, restart with %s, or%s set mintid.adopt_params = on (a reload "
                                "is enough) to take the new value%s%s, then reset it.",
                                back.data, rec.node != p->node ? ", if no other server ever used the new node," : "",
                                changes > 1 ? "s" : "", after)));
    ereport(WARNING,
            (errmsg("%s: %s since the mark was written; adopted (mintid.adopt_params)%s", f->name, what.data, after),
             errhint("Reset mintid.adopt_params, so that a change not meant is refused.")));
    if (later > 0)
        p->floor_ms = later;
    return true;
}

/* ---- the host-wide generators ------------------------------------------------------------- */

/*
 * Resolves mintid.host_dir and mintid.id_space once per process, as the
 * host-wide generators take them: an empty mintid.host_dir is
 * MINTID_HOST_DIR, read as every home reads it (mintid_env_host_dir()).
 * Called at start too (with the library preloaded), so that a variable the
 * library refuses stops the server, saying why, rather than every mint.
 */
static void host_where(void) {
    char why[MINTID_WHY_MAX];
    int rc;
    if (host_known)
        return;
    if (guc_host_dir != NULL && guc_host_dir[0] != '\0')
        strlcpy(host_dir, guc_host_dir, sizeof host_dir);
    else if ((rc = mintid_env_host_dir(host_dir, sizeof host_dir, why, sizeof why)) != MINTID_OK)
        ereport(ERROR, (errcode(status_sqlstate(rc, GIVEN_ARGUMENT)), errmsg("mintid.host_dir is empty, and %s", why),
                        errhint("Set MINTID_HOST_DIR in the server's environment to an absolute path, or set "
                                "mintid.host_dir, to the directory the host's other homes mint in.")));
    strlcpy(host_space, guc_id_space != NULL && guc_id_space[0] != '\0' ? guc_id_space : MINTID_ID_SPACE_DEFAULT,
            sizeof host_space);
    host_known = true;
}

/*
 * A host-wide generator's failure to open (gen NULL) or to mint, in the
 * library's sentence (mintid_gen_why(): the state's path and the system's
 * reason, the host's mintidd on its warrant, an epoch in the future), with
 * what to do here. err is errno as the failed call left it.
 */
static void throw_host(const mintid_format *f, const mintid_config *cfg, mintid_gen *gen, int status, int err)
    pg_attribute_noreturn();
static void throw_host(const mintid_format *f, const mintid_config *cfg, mintid_gen *gen, int status, int err) {
    char why[MINTID_WHY_MAX];
    mintid_gen_why(f, cfg, gen, status, err, why, sizeof why);
    ereport(ERROR, (errcode(status_sqlstate(status, GIVEN_ARGUMENT)), errmsg("%s", why),
                    status == MINTID_EHOST
                        ? errhint("mintid.host_dir (\"%s\") must be a directory on a disk that the server's user, "
                                  "and every other home minting there, can write (mode 1777, as /var/tmp).",
                                  host_dir)
                    : status == MINTID_EHOSTSTATE
                        ? errhint("The state is in mintid.host_dir (\"%s\"); the mark keeps this server's IDs apart.",
                                  host_dir)
                    : status == MINTID_EWARRANT
                        ? errhint("mintid.node is the node id of the host's mintidd minting in mintid.host_dir; "
                                  "the server's guarantees bind this cluster too.")
                        : 0));
}

/*
 * This backend's host-wide generator of f under cfg, opened at the first
 * mint (in the backend, never in the postmaster). It waits as every home
 * does when the shared sequence is ahead (a used-up unit, the clock behind
 * its last ID, a floor), a slice at a time (MINTID_HOST_WAIT_SLICE_MS) so
 * that the caller can look for a cancel between slices; a clock behind the
 * last ID carries on in that ID's unit while its sequence lasts.
 */
static mintid_pg_host *host_gen(const mintid_format *f, const mintid_config *cfg) {
    mintid_pg_host *h = &host_gens[f->id];
    mintid_config hc = *cfg;
    mintid_host_options opt;
    int rc, err;
    if (h->gen != NULL && h->node == cfg->node && h->epoch_ms == cfg->epoch_ms)
        return h;
    host_where();
    if (h->gen != NULL) {
        /* Other settings (they are fixed at start with the preload, and
         * without it these formats do not mint): the other state file. */
        mintid_gen_free(h->gen);
        h->gen = NULL;
    }
    hc.overflow = MINTID_OVERFLOW_WAIT;
    hc.rollback = MINTID_ROLLBACK_REUSE;
    hc.max_wait_ms = MINTID_HOST_WAIT_SLICE_MS;
    mintid_host_options_init(&opt);
    opt.dir = host_dir;
    opt.id_space = host_space;
    errno = 0;
    rc = mintid_gen_open_host(f, &hc, &opt, &h->gen);
    err = errno;
    if (rc != MINTID_OK) {
        h->gen = NULL;
        throw_host(f, &hc, NULL, rc, err);
    }
    h->node = cfg->node;
    h->epoch_ms = cfg->epoch_ms;
    h->floor_ms = INT64_MIN;
    return h;
}

/* Unix ms as RFC 3339 for messages (or the number, past year 9999). */
static void time_text(int64 ms, char *buf, size_t cap) {
    if (mintid_format_time(ms, buf, cap) < 0)
        snprintf(buf, cap, "Unix ms " INT64_FORMAT, ms);
}

/*
 * Mints the next ID of f from this backend's host-wide generator: the
 * host's one sequence of f's node, epoch and id space, shared with the
 * cluster's other backends and with every other home on the host. The
 * cluster's mark works as for the generators in shared memory: the
 * parameters are admitted and recorded, the floor (the mark of the run
 * before, an adopted epoch's) is the generator's, and no ID is returned
 * before the mark covers it. The LWLock is never held while the generator
 * may wait: the wait is made between the two locked parts.
 */
static void generate_host(mintid_pg_state *st, const mintid_format *f, const mintid_config *cfg, mintid_id *out) {
    mintid_pg_host *h = host_gen(f, cfg);
    mintid_pg_params params;
    XLogRecPtr unacked = InvalidXLogRecPtr;
    instr_time start, spent;
    int64 now, floor, start_ms;
    char when[MINTID_TIME_MAX];
    int rc, err;

    rc = mintid_clock_system(NULL, &now);
    if (rc != MINTID_OK)
        throw_status(f, rc, "cannot read the clock");
    LWLockAcquire(st->lock, LW_EXCLUSIVE);
    params.floor_ms = 0;
    /* A format's first mint, or an adopted change: recorded before any ID under it is minted. */
    if (params_admit(st, f, cfg, &params))
        mark_raise(st, Max(now, params.floor_ms) + MINTID_MARK_WINDOW_MS, f, &params);
    /* Nothing at or past the mark of the run before, or under an adopted epoch's floor. */
    floor = Max(st->floor_ms, params.floor_ms);
    LWLockRelease(st->lock);

    if (floor - now > MINTID_HOST_WAIT_MS) {
        time_text(floor, when, sizeof when);
        ereport(ERROR,
                (errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
                 errmsg("%s: no ID before %s, " INT64_FORMAT " ms ahead of the clock", f->name, when, floor - now),
                 errdetail("The mark in mintid.mark (of this server's run before, of the primary it took over "
                           "from, or an adopted epoch's floor) says IDs up to then may have been issued."),
                 errhint("Minting resumes once the clock passes it; if the clock was set back, check it (NTP).")));
    }
    if (floor > h->floor_ms) {
        errno = 0;
        rc = mintid_gen_set_floor(h->gen, floor);
        if (rc != MINTID_OK)
            throw_host(f, cfg, h->gen, rc, errno);
        h->floor_ms = floor;
    }

    /* The generator waits a slice at a time, without the LWLock; between
     * slices a cancel or statement_timeout ends the wait. */
    INSTR_TIME_SET_CURRENT(start);
    for (;;) {
        errno = 0;
        rc = mintid_gen_next(h->gen, out);
        err = errno;
        if (rc != MINTID_ETIMEDOUT)
            break;
        CHECK_FOR_INTERRUPTS();
        INSTR_TIME_SET_CURRENT(spent);
        INSTR_TIME_SUBTRACT(spent, start);
        if (INSTR_TIME_GET_MILLISEC(spent) >= MINTID_HOST_WAIT_MS)
            break;
    }
    if (rc == MINTID_ETIMEDOUT) {
        char why[MINTID_WHY_MAX];
        mintid_gen_stats gs;
        mintid_gen_why(f, cfg, h->gen, rc, err, why, sizeof why);
        mintid_gen_get_stats(h->gen, &gs);
        if (mintid_clock_system(NULL, &now) != MINTID_OK)
            now = 0;
        time_text(Max(gs.last_unix_ms, floor), when, sizeof when);
        ereport(ERROR,
                (errcode(status_sqlstate(rc, GIVEN_ARGUMENT)), errmsg("%s", why),
                 Max(gs.last_unix_ms, floor) > now
                     ? errdetail("No ID within %d ms: the sequence is at %s, " INT64_FORMAT " ms ahead of the clock.",
                                 MINTID_HOST_WAIT_MS, when, Max(gs.last_unix_ms, floor) - now)
                     : errdetail("No ID within %d ms: the lock of \"%s\" was not free; a process minting "
                                 "there does not run (stopped?).",
                                 MINTID_HOST_WAIT_MS, mintid_gen_host_path(h->gen)),
                 errhint("Every home minting in mintid.host_dir waits for the clock to reach the shared "
                         "sequence; check the clock (NTP) and the processes minting there.")));
    }
    if (rc != MINTID_OK)
        throw_host(f, cfg, h->gen, rc, err);

    /* The ID is not returned before the mark covers it: raised now, under
     * the lock, if its unit reaches the mark. */
    start_ms = mintid_id_unix_ms(f, out, cfg->epoch_ms);
    if (mintid_clock_system(NULL, &now) != MINTID_OK)
        now = 0;
    LWLockAcquire(st->lock, LW_EXCLUSIVE);
    if (start_ms >= st->mark_ms)
        mark_raise(st, Max(start_ms + f->ts_unit_ms, now) + MINTID_MARK_WINDOW_MS, NULL, NULL);
    /* As below: the first IDs after a start wait for everything flushed before it. */
    if (st->mark_lsn == InvalidXLogRecPtr)
        st->mark_lsn = GetFlushRecPtr(NULL);
    if (st->mark_lsn > st->mark_acked)
        unacked = st->mark_lsn;
    LWLockRelease(st->lock);
    if (unacked != InvalidXLogRecPtr)
        mark_wait_standbys(st, unacked);
}

/* ---- minting --------------------------------------------------------------------------- */

/*
 * Mints the next ID of f: from the host-wide state (generate_host()), or,
 * for a format that does not need it, from its generator core in shared
 * memory (or this backend's, without the preload). The core never waits:
 * when the clock is behind the last ID (or the mark of a previous run), it
 * carries on from there, and a used-up millisecond moves it to the next
 * one, ahead of the clock.
 */
static void generate(const mintid_format *f, mintid_id *out) {
    mintid_pg_state *st = state_for(f);
    mintid_pg_gen *g = &st->gen[f->id];
    mintid_config cfg;
    int64 now, at, last;
    XLogRecPtr unacked = InvalidXLogRecPtr;
    mintid_pg_params params;
    bool record = false;
    int rc, tries;

    if (RecoveryInProgress())
        ereport(ERROR, (errcode(ERRCODE_READ_ONLY_SQL_TRANSACTION),
                        errmsg("cannot mint %s IDs on a server in recovery", f->name),
                        errhint("IDs are minted on the primary; a hot standby only reads them.")));
    gen_config(f, &cfg);
    if (st->durable && on_host(f)) {
        generate_host(st, f, &cfg, out);
        return;
    }
    if (rng_pid != MyProcPid) {
        mintid_pool_init(&rng, NULL, NULL);
        rng_pid = MyProcPid;
    }
    rc = mintid_clock_system(NULL, &now);
    if (rc != MINTID_OK)
        throw_status(f, rc, "cannot read the clock");

    if (st->lock != NULL)
        LWLockAcquire(st->lock, LW_EXCLUSIVE);
    params.floor_ms = 0;
    if (st->durable) {
        record = params_admit(st, f, &cfg, &params);
        /* Nothing at or past the mark of the run before (or a moved epoch's floor). */
        mintid_core_set_floor(f, &cfg, &g->core, Max(st->floor_ms, params.floor_ms));
    }
    /* Never waits: a clock behind the last ID carries on in its unit, and
     * where the driver says a unit is used up (or below the floor), the
     * next ID runs ahead of the clock to the time it names. */
    last = mintid_core_last_ms(f, &cfg, &g->core);
    at = Max(now, last);
    for (tries = 0;; tries++) {
        int64 retry;
        rc = mintid_core_mint(f, &cfg, &g->core, at, &rng, out, &retry);
        if (rc != MINTID_EEXHAUSTED || tries >= 3)
            break;
        at = retry;
    }
    /* The ID is not returned before the mark covers it: raised now, under
     * the lock, if its unit reaches the mark (or the values are new). */
    if (rc == MINTID_OK && st->durable) {
        int64 start_ms = mintid_core_last_ms(f, &cfg, &g->core);
        if (start_ms >= st->mark_ms || record)
            mark_raise(st, Max(start_ms + f->ts_unit_ms, now) + MINTID_MARK_WINDOW_MS, record ? f : NULL, &params);
    }
    /* The first IDs after a start carry on under the mark of the run
     * before, whose record the standbys may not have received yet: they
     * wait for everything flushed before the start, that record included. */
    if (st->durable && st->mark_lsn == InvalidXLogRecPtr)
        st->mark_lsn = GetFlushRecPtr(NULL);
    if (st->durable && st->mark_lsn > st->mark_acked)
        unacked = st->mark_lsn;
    if (st->lock != NULL)
        LWLockRelease(st->lock);
    if (rc != MINTID_OK)
        throw_status(f, rc, "cannot mint");
    if (unacked != InvalidXLogRecPtr)
        mark_wait_standbys(st, unacked);
}

static Datum gen_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    mintid_id id;
    generate(f, &id);
    return id_to_datum(f, &id);
}

/* ---- formats whose text carries a type prefix (typeid): text in SQL, a uuid inside ---- */

/* Argument argno, a type prefix (NULL or '': none), into prefix (MINTID_PREFIX_MAX + 1 bytes). */
static void prefix_arg(FunctionCallInfo fcinfo, int argno, const mintid_format *f, char *prefix) {
    char why[MINTID_WHY_MAX];
    text *t;
    size_t len;
    int rc;
    prefix[0] = '\0';
    if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
        return;
    t = PG_GETARG_TEXT_PP(argno);
    len = VARSIZE_ANY_EXHDR(t);
    rc = mintid_lookup_prefix(f, MINTID_FORM_TEXT, VARDATA_ANY(t), len, why, sizeof why);
    if (rc != MINTID_OK)
        throw_why(rc, GIVEN_ARGUMENT, why);
    if (len > MINTID_PREFIX_MAX) /* no prefix is this long */
        elog(ERROR, "mintid: a type prefix of %zu bytes was taken", len);
    memcpy(prefix, VARDATA_ANY(t), len);
    prefix[len] = '\0';
}

static text *prefixed_text(const mintid_format *f, const mintid_id *id, const char *prefix) {
    char buf[MINTID_TEXT_MAX];
    int n = mintid_encode_prefixed(f, MINTID_FORM_TEXT, id, prefix, buf, sizeof buf);
    if (n < 0)
        throw_status(f, n, "cannot encode");
    return cstring_to_text_with_len(buf, n);
}

static Datum gen_prefixed_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    char prefix[MINTID_PREFIX_MAX + 1];
    mintid_id id;
    prefix_arg(fcinfo, 0, f, prefix);
    generate(f, &id);
    PG_RETURN_TEXT_P(prefixed_text(f, &id, prefix));
}

static Datum prefixed_to_uuid_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    text *t = PG_GETARG_TEXT_PP(0);
    pg_uuid_t *u = palloc(sizeof *u);
    mintid_id id;
    char prefix[MINTID_PREFIX_MAX + 1];
    id_from_text(f, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), &id, prefix);
    memcpy(u->data, id.bytes, UUID_LEN);
    PG_RETURN_UUID_P(u);
}

static Datum uuid_to_prefixed_impl(FunctionCallInfo fcinfo, int idx) {
    const mintid_format *f = format_at(idx);
    char prefix[MINTID_PREFIX_MAX + 1];
    mintid_id id;
    memset(&id, 0, sizeof id);
    memcpy(id.bytes, PG_GETARG_UUID_P(0)->data, UUID_LEN);
    prefix_arg(fcinfo, 1, f, prefix);
    PG_RETURN_TEXT_P(prefixed_text(f, &id, prefix));
}

/* ---- formats ------------------------------------------------------------------------- */

/*
 * mintid_formats([format]): every format (a jsonb array), or the one named
 * (a jsonb object), as mintid_describe() describes it under the epochs the
 * settings give; an unknown name gets the library's sentence (22023).
 */
PG_FUNCTION_INFO_V1(mintid_formats);
Datum mintid_formats(PG_FUNCTION_ARGS) {
    const mintid_format *only = NULL;
    StringInfoData out;
    char buf[MINTID_DESCRIBE_MAX];
    if (PG_NARGS() == 1) {
        text *name = PG_GETARG_TEXT_PP(0);
        const char *s = VARDATA_ANY(name);
        size_t len = VARSIZE_ANY_EXHDR(name);
        char sql_name[32], why[MINTID_WHY_MAX];
        /* Its SQL name too (ulid_flake, as its type is named). */
        if (len < sizeof sql_name && memchr(s, '\0', len) == NULL) {
            for (size_t k = 0; k < len; k++)
                sql_name[k] = s[k] == '_' ? '-' : s[k];
            sql_name[len] = '\0';
            only = mintid_format_find(sql_name);
        }
        if (only == NULL) {
            int rc = mintid_lookup_format(s, len, &only, why, sizeof why);
            if (rc != MINTID_OK)
                throw_why(rc, GIVEN_ARGUMENT, why);
        }
    }
    initStringInfo(&out);
    if (only == NULL)
        appendStringInfoChar(&out, '[');
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = format_at(i);
        int n;
        if (only != NULL && f != only)
            continue;
        n = mintid_describe(f, format_epoch(f), buf, sizeof buf);
        if (n < 0)
            throw_status(f, n, "cannot describe");
        if (only == NULL && i > 0)
            appendStringInfoChar(&out, ',');
        appendBinaryStringInfo(&out, buf, n);
    }
    if (only == NULL)
        appendStringInfoChar(&out, ']');
    return DirectFunctionCall1(jsonb_in, CStringGetDatum(out.data));
}

/* ---- one entry point per operation and table slot ------------------------------------ */

#define STAMP_ONE(op, i)                                                                                               \
    PG_FUNCTION_INFO_V1(mintid_##op##_##i);                                                                            \
    Datum mintid_##op##_##i(PG_FUNCTION_ARGS) { return op##_impl(fcinfo, i); }
#define STAMP(op)                                                                                                      \
    STAMP_ONE(op, 0)                                                                                                   \
    STAMP_ONE(op, 1)                                                                                                   \
    STAMP_ONE(op, 2)                                                                                                   \
    STAMP_ONE(op, 3)                                                                                                   \
    STAMP_ONE(op, 4)                                                                                                   \
    STAMP_ONE(op, 5)                                                                                                   \
    STAMP_ONE(op, 6)                                                                                                   \
    STAMP_ONE(op, 7)                                                                                                   \
    STAMP_ONE(op, 8)                                                                                                   \
    STAMP_ONE(op, 9)                                                                                                   \
    STAMP_ONE(op, 10)                                                                                                  \
    STAMP_ONE(op, 11)                                                                                                  \
    STAMP_ONE(op, 12)                                                                                                  \
    STAMP_ONE(op, 13)                                                                                                  \
    STAMP_ONE(op, 14)                                                                                                  \
    STAMP_ONE(op, 15)

/* The operations; gen_sql.c binds mintid_<op>_<slot> by these names. */
#define MINTID_PG_OPS(X)                                                                                               \
    X(in)                                                                                                              \
    X(out)                                                                                                             \
    X(recv)                                                                                                            \
    X(send)                                                                                                            \
    X(eq)                                                                                                              \
    X(ne)                                                                                                              \
    X(lt)                                                                                                              \
    X(le)                                                                                                              \
    X(gt)                                                                                                              \
    X(ge)                                                                                                              \
    X(cmp)                                                                                                             \
    X(smaller)                                                                                                         \
    X(larger)                                                                                                          \
    X(sortsupport)                                                                                                     \
    X(hash)                                                                                                            \
    X(hash_ext)                                                                                                        \
    X(to_int8)                                                                                                         \
    X(from_int8)                                                                                                       \
    X(to_bytea)                                                                                                        \
    X(from_bytea)                                                                                                      \
    X(to_uuid)                                                                                                         \
    X(from_uuid)                                                                                                       \
    X(gen)                                                                                                             \
    X(timestamp)                                                                                                       \
    X(inspect)                                                                                                         \
    X(min)                                                                                                             \
    X(max)                                                                                                             \
    X(gen_prefixed)                                                                                                    \
    X(prefixed_to_uuid)                                                                                                \
    X(uuid_to_prefixed)

MINTID_PG_OPS(STAMP)

/* ---- settings and start ------------------------------------------------------------------- */

/*
 * The check hook of mintid.node: a node id of some format
 * (mintid_check_node(), against the widest node field); each node-bound
 * format checks it against its own when it mints (gen_config()).
 */
static bool node_check(int *newval, void **extra, GucSource source) {
    char why[MINTID_WHY_MAX];
    int rc = mintid_check_node(NULL, *newval, why, sizeof why);
    (void)extra;
    (void)source;
    if (rc != MINTID_OK) {
        GUC_check_errcode(status_sqlstate(rc, GIVEN_ARGUMENT));
        GUC_check_errdetail("%s", why);
        return false;
    }
    return true;
}

/*
 * The check hook of mintid.<format>_epoch: the value must be an epoch of
 * that format, as the library looks it up (mintid_lookup_epoch(): a name
 * it knows, Unix ms or an RFC 3339 time, not in the future); '' is the
 * format's own. The epoch in Unix ms goes to the assign hook as extra. A
 * hook has no way to learn which setting it checks, so each format's slot
 * in the table has hooks of its own, stamped below.
 */
static bool epoch_check_format(int idx, char **newval, void **extra) {
    const mintid_format *f = mintid_format_get((mintid_format_id)idx);
    char why[MINTID_WHY_MAX];
    int64 ms = f->epoch_ms;
    int rc;
    if (*newval != NULL && (*newval)[0] != '\0' &&
        (rc = mintid_lookup_epoch(f, *newval, strlen(*newval), &ms, why, sizeof why)) != MINTID_OK) {
        GUC_check_errcode(status_sqlstate(rc, GIVEN_ARGUMENT));
        GUC_check_errdetail("%s", why);
        return false;
    }
#if PG_VERSION_NUM >= 160000
    *extra = guc_malloc(LOG, sizeof ms);
#else
    *extra = malloc(sizeof ms); /* the GUC machinery free()s it */
#endif
    if (*extra == NULL)
        return false;
    memcpy(*extra, &ms, sizeof ms);
    return true;
}

static void epoch_assign_format(int idx, void *extra) {
    if (extra != NULL && idx < MINTID_FORMAT_COUNT) /* hooks are stamped for more slots than there are formats */
        memcpy(&guc_epoch_ms[idx], extra, sizeof guc_epoch_ms[idx]);
}

#define EPOCH_HOOK(i)                                                                                                  \
    static bool epoch_check_##i(char **newval, void **extra, GucSource source) {                                       \
        (void)source;                                                                                                  \
        return epoch_check_format(i, newval, extra);                                                                   \
    }                                                                                                                  \
    static void epoch_assign_##i(const char *newval, void *extra) {                                                    \
        (void)newval;                                                                                                  \
        epoch_assign_format(i, extra);                                                                                 \
    }
EPOCH_HOOK(0)
EPOCH_HOOK(1)
EPOCH_HOOK(2)
EPOCH_HOOK(3)
EPOCH_HOOK(4)
EPOCH_HOOK(5)
EPOCH_HOOK(6)
EPOCH_HOOK(7)
EPOCH_HOOK(8)
EPOCH_HOOK(9)
EPOCH_HOOK(10)
EPOCH_HOOK(11)
EPOCH_HOOK(12)
EPOCH_HOOK(13)
EPOCH_HOOK(14)
EPOCH_HOOK(15)
static GucStringCheckHook const epoch_checks[] = {
    epoch_check_0,  epoch_check_1,  epoch_check_2,  epoch_check_3,  epoch_check_4,  epoch_check_5,
    epoch_check_6,  epoch_check_7,  epoch_check_8,  epoch_check_9,  epoch_check_10, epoch_check_11,
    epoch_check_12, epoch_check_13, epoch_check_14, epoch_check_15,
};
static GucStringAssignHook const epoch_assigns[] = {
    epoch_assign_0,  epoch_assign_1,  epoch_assign_2,  epoch_assign_3,  epoch_assign_4,  epoch_assign_5,
    epoch_assign_6,  epoch_assign_7,  epoch_assign_8,  epoch_assign_9,  epoch_assign_10, epoch_assign_11,
    epoch_assign_12, epoch_assign_13, epoch_assign_14, epoch_assign_15,
};
StaticAssertDecl(MINTID_FORMAT_COUNT <= lengthof(epoch_checks), "a format without an epoch check hook: stamp more");

/*
 * The check hook of mintid.host_dir: an absolute path, or '' for
 * MINTID_HOST_DIR. A relative one would be read against each process's
 * working directory, and homes elsewhere would mint another sequence.
 */
static bool host_dir_check(char **newval, void **extra, GucSource source) {
    (void)extra;
    (void)source;
    if (*newval == NULL || (*newval)[0] == '\0')
        return true;
    if ((*newval)[0] != '/') {
        GUC_check_errdetail("mintid.host_dir must be an absolute path: homes in other working directories would "
                            "mint apart from this server.");
        return false;
    }
    if (strlen(*newval) >= MAXPGPATH) {
        GUC_check_errdetail("mintid.host_dir is longer than %d bytes.", MAXPGPATH - 1);
        return false;
    }
    return true;
}

/*
 * The check hook of mintid.id_space: what MINTID_ID_SPACE takes
 * (mintid_env_id_space()), 1..MINTID_ID_SPACE_MAX letters, digits, '.',
 * '_' and '-'; '' is the default, as an empty variable is.
 */
static bool id_space_check(char **newval, void **extra, GucSource source) {
    const char *p;
    (void)extra;
    (void)source;
    if (*newval == NULL)
        return true;
    for (p = *newval; *p != '\0'; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.' ||
              *p == '_' || *p == '-'))
            break;
    if (*p != '\0' || p - *newval > MINTID_ID_SPACE_MAX) {
        GUC_check_errdetail("An id space is 1 to %d letters, digits, '.', '_' and '-', as MINTID_ID_SPACE is.",
                            MINTID_ID_SPACE_MAX);
        return false;
    }
    return true;
}

void _PG_init(void) {
    int ctx = process_shared_preload_libraries_in_progress ? PGC_POSTMASTER : PGC_SIGHUP;
    int i;
    DefineCustomIntVariable(
        "mintid.node", "Node id of the generators of node-bound formats.",
        "Every host minting IDs of one ID space needs its own node; the homes of one host share it.", &guc_node, 0, 0,
        INT_MAX, ctx, 0, node_check, NULL, NULL);
    for (i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        char sql[64], name[96];
        layout_of(f, format_layout[i], sizeof format_layout[i]);
        guc_epoch_ms[i] = f->epoch_ms;
        if (!f->epoch_settable)
            continue;
        mintid_pg_sql_name(f, sql, sizeof sql);
        snprintf(name, sizeof name, "mintid.%s_epoch", sql);
        DefineCustomStringVariable(MemoryContextStrdup(TopMemoryContext, name),
                                   "Epoch of the format: a name, Unix ms or an RFC 3339 time; empty: its default.",
                                   NULL, &guc_epoch[i], "", ctx, 0, epoch_checks[i], epoch_assigns[i], NULL);
    }
    /* Unlike the parameters it lets change, a reload sets it: it only
     * matters at the first mint after a restart that changed one. */
    DefineCustomBoolVariable("mintid.adopt_params",
                             "Mint under a node, epoch or layout other than the mark recorded, and record them.",
                             "Set it for the first mint after a change that is meant, then reset it.",
                             &guc_adopt_params, false, PGC_SIGHUP, 0, NULL, NULL, NULL);
    DefineCustomStringVariable("mintid.host_dir",
                               "Directory of the host-wide state the node-bound and 64-bit formats mint from.",
                               "An absolute path; empty: MINTID_HOST_DIR, or /var/tmp, as the host's other homes "
                               "read it.",
                               &guc_host_dir, "", ctx, 0, host_dir_check, NULL, NULL);
    DefineCustomStringVariable("mintid.id_space", "The id space of the host-wide state, as MINTID_ID_SPACE.",
                               "Homes that mint one format with one node id and epoch share a sequence only "
                               "within one id space.",
                               &guc_id_space, MINTID_ID_SPACE_DEFAULT, ctx, 0, id_space_check, NULL, NULL);
    MarkGUCPrefixReserved("mintid");

    if (!process_shared_preload_libraries_in_progress)
        return;
    /* A MINTID_HOST_DIR the library refuses stops the start, saying why. */
    host_where();
    RegisterCustomRmgr(MINTID_RMGR_ID, &mintid_rmgr);
    prev_shmem_request_hook = shmem_request_hook;
    shmem_request_hook = mintid_shmem_request;
    prev_shmem_startup_hook = shmem_startup_hook;
    shmem_startup_hook = mintid_shmem_startup;
}
