/* SPDX-License-Identifier: MIT */
/*
 * mintid_node.c - the Node.js addon over libmintid's public API, in
 * Node-API's C interface (version 8), so that one binary loads in every
 * Node.js major from 18 on without a rebuild.
 *
 * gen() and Generator mint from the library's generators (host-wide by
 * default, so every process and thread of the host continues one sequence
 * per format, node id and epoch); inspect(), convert(), min() and max() are
 * the pure core. The JavaScript of lib/ checks the types of a call's
 * arguments and gives each function its shape; this file is the glue
 * underneath: names, node ids, epochs, forms, prefixes and IDs are taken
 * through the library's look-ups and readers, and every error says the
 * library's sentence, thrown as the MintidError subclass of its status's
 * class (status_error()).
 *
 * Node-API calls a function on the thread of the environment (the main
 * thread, a worker_threads Worker) that loaded the addon, and each
 * environment gets its own instance of the addon's state (struct addon,
 * Node-API's instance data): its error classes and the generators of gen().
 * Nothing of the addon's own is static but constant tables, so any number
 * of threads may load it at once; the library's generators are
 * thread-safe and their host-wide state is shared through the file every
 * process maps.
 *
 * A call into a generator may wait (for the next millisecond, for the
 * clock, for another process to let the host-wide state go), bounded by
 * the generator's max_wait_ms; it holds the calling thread meanwhile, as
 * any synchronous call does.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <mintid.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Forms beyond the library's text forms, named by JavaScript: the ID's
 * value as a BigInt, as a number (only for a format whose every ID is a
 * safe integer), and its bytes as a Buffer.
 */
#define FORM_BIGINT 100
#define FORM_NUMBER 101
#define FORM_BYTES 102

/* IDs minted per call into the library in a batch. */
#define CHUNK 1024

/* gen()'s generators with a node or epoch given; past this many it starts afresh. */
#define GEN_CACHE_MAX 64

/* A library sentence with what the addon puts before and after it. */
#define MESSAGE_MAX (MINTID_WHY_MAX + 256)

/* Strings read from JavaScript this long or shorter need no allocation. */
#define STR_STACK 256

/* Number.MAX_SAFE_INTEGER: the largest integer a JavaScript number holds exactly, with all below it. */
#define SAFE_INTEGER_MAX ((UINT64_C(1) << 53) - 1)

/* The error classes lib/errors.js gives init(), in this order. */
enum {
    ERR_BASE,          /* MintidError */
    ERR_ARGUMENT,      /* ArgumentError: the caller's input */
    ERR_ARGUMENT_TYPE, /* ArgumentTypeError: an argument's type */
    ERR_UNKNOWN,       /* UnknownFormatError: a format's name */
    ERR_INVALID_ID,    /* InvalidIdError: an ID that does not read */
    ERR_CLOCK,         /* ClockError */
    ERR_TIMEOUT,       /* WaitTimeoutError, a ClockError */
    ERR_EXHAUSTED,     /* ExhaustedError */
    ERR_HOST,          /* HostError */
    ERR_COUNT
};

/* A generator of gen(): host-wide, of one format, node id and epoch. */
typedef struct cached {
    const mintid_format *fmt;
    int64_t node, epoch;
    mintid_gen *gen;
    bool node_host;
} cached;

/* The addon's state in one environment (Node-API's instance data). */
typedef struct addon {
    napi_ref errors[ERR_COUNT];
    cached defaults[MINTID_FORMAT_COUNT]; /* gen(format) without node or epoch */
    cached cache[GEN_CACHE_MAX];          /* gen(format, {node, epoch}) */
    size_t ncache;
    mintid_id ids[CHUNK]; /* a batch being minted: calls on one environment never overlap */
    mintid_pool pool;     /* random bytes for first(): the environment's thread's own */
} addon;

/* A Generator's handle: the JavaScript object holds it in a private field, as a wrapped object. */
typedef struct handle {
    mintid_gen *gen;
    const mintid_format *fmt;
    int form;
    bool shared;
    int64_t now_ms; /* a generator on the caller's clock: the time of its next ID (manual_clock()) */
    char prefix[MINTID_PREFIX_MAX + 1];
} handle;

/* Marks a handle's object as this addon's: another object given to a Generator's function is refused. */
static const napi_type_tag HANDLE_TAG = {0x6d696e746964ULL, 0x4e6f646548616e64ULL};

/* The names of the error classes, for messages that lack them. */
static const char *const ERROR_NAMES[ERR_COUNT] = {"MintidError",        "ArgumentError",  "ArgumentTypeError",
                                                   "UnknownFormatError", "InvalidIdError", "ClockError",
                                                   "WaitTimeoutError",   "ExhaustedError", "HostError"};

/* ---- errors ---------------------------------------------------------------------------------- */

/*
 * The error class of a library status: one per class of status
 * (mintid_status_class()), and within a class a subclass of it where the
 * status says more (an ID that does not read, a format's name, a wait
 * limit). As the Python module's, so every face sorts its errors alike.
 */
static int status_error(int rc) {
    switch (mintid_status_class(rc)) {
    case MINTID_CLASS_INPUT:
        if (rc == MINTID_EFORMAT)
            return ERR_UNKNOWN;
        if (rc == MINTID_ELENGTH || rc == MINTID_ECHAR || rc == MINTID_EOVERFLOW || rc == MINTID_EINVALID ||
            rc == MINTID_EAMBIGUOUS || rc == MINTID_EPREFIX)
            return ERR_INVALID_ID;
        return ERR_ARGUMENT;
    case MINTID_CLASS_CLOCK:
        return rc == MINTID_ETIMEDOUT ? ERR_TIMEOUT : ERR_CLOCK;
    case MINTID_CLASS_CAPACITY:
        return ERR_EXHAUSTED;
    case MINTID_CLASS_ENVIRONMENT:
        return ERR_HOST;
    case MINTID_CLASS_PROGRAM:
    case MINTID_CLASS_NONE:
        break;
    }
    return ERR_BASE;
}

/*
 * Throws new cls(message, rc, code) with the library's status rc and its
 * name as code ("MINTID_EFORMAT"); a plain Error if the class cannot be
 * made. Returns NULL, what a Node-API function returns after a throw.
 */
static napi_value throw_as(napi_env env, addon *a, int cls, int rc, const char *message) {
    napi_value ctor = NULL, args[3], err;
    if (a == NULL || a->errors[cls] == NULL || napi_get_reference_value(env, a->errors[cls], &ctor) != napi_ok ||
        ctor == NULL || napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &args[0]) != napi_ok ||
        napi_create_int32(env, rc, &args[1]) != napi_ok ||
        napi_create_string_utf8(env, mintid_status_name(rc), NAPI_AUTO_LENGTH, &args[2]) != napi_ok ||
        napi_new_instance(env, ctor, 3, args, &err) != napi_ok) {
        bool pending = false;
        if (napi_is_exception_pending(env, &pending) == napi_ok && !pending) {
            char text[MESSAGE_MAX];
            snprintf(text, sizeof text, "%s: %s", ERROR_NAMES[cls], message);
            napi_throw_error(env, mintid_status_name(rc), text);
        }
        return NULL;
    }
    napi_throw(env, err);
    return NULL;
}

/*
 * Throws the error of status rc with the library's sentence `why`, as the
 * addon says it: before it how JavaScript names the thing ("to: "), after
 * it a hint of its own ("; give the format option"). Returns NULL.
 */
static napi_value throw_why(napi_env env, addon *a, int rc, const char *before, const char *why, const char *after) {
    char message[MESSAGE_MAX];
    snprintf(message, sizeof message, "%s%s%s", before, why, after);
    return throw_as(env, a, status_error(rc), rc, message);
}

/* Throws ArgumentError (MINTID_EINVAL) or, with `type`, ArgumentTypeError, with a message of the addon's own. */
static napi_value throw_arg(napi_env env, addon *a, bool type, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static napi_value throw_arg(napi_env env, addon *a, bool type, const char *fmt, ...) {
    char message[MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return throw_as(env, a, type ? ERR_ARGUMENT_TYPE : ERR_ARGUMENT, MINTID_EINVAL, message);
}
#define ARG_VALUE false
#define ARG_TYPE true

/* Throws the error of an encoder's status (a form the format has not got). */
static napi_value throw_encode(napi_env env, addon *a, const mintid_format *fmt, int rc) {
    char why[MINTID_WHY_MAX];
    snprintf(why, sizeof why, "%s: %s", fmt->name, mintid_strerror(rc));
    return throw_why(env, a, rc, "", why, "");
}

/* Whether a Node-API call failed: an exception is then pending (Node-API's own, or one thrown here). */
static bool failed(napi_env env, addon *a, napi_status status) {
    if (status == napi_ok)
        return false;
    bool pending = false;
    if (napi_is_exception_pending(env, &pending) == napi_ok && !pending) {
        const napi_extended_error_info *info = NULL;
        napi_get_last_error_info(env, &info);
        throw_as(env, a, ERR_BASE, MINTID_ENOMEM,
                 info != NULL && info->error_message != NULL ? info->error_message : "a Node-API call failed");
    }
    return true;
}

/* ---- arguments --------------------------------------------------------------------------------- */

/* A JavaScript string's UTF-8 bytes: in stack, or on the heap when longer. */
typedef struct jstr {
    char stack[STR_STACK];
    char *heap;
    const char *s;
    size_t len;
} jstr;

/*
 * Reads the string v whole, however long (a long ID is then said to be
 * too long, not read cut short). Returns true, or false with an exception
 * set (ArgumentTypeError naming `what` for another type).
 */
static bool jstr_get(napi_env env, addon *a, napi_value v, const char *what, jstr *out) {
    napi_valuetype t;
    out->heap = NULL;
    out->s = out->stack;
    out->len = 0;
    if (failed(env, a, napi_typeof(env, v, &t)))
        return false;
    if (t != napi_string) {
        throw_arg(env, a, ARG_TYPE, "%s must be a string", what);
        return false;
    }
    size_t len;
    if (failed(env, a, napi_get_value_string_utf8(env, v, NULL, 0, &len)))
        return false;
    char *buf = out->stack;
    if (len >= sizeof out->stack) {
        if ((out->heap = malloc(len + 1)) == NULL) {
            throw_as(env, a, ERR_HOST, MINTID_ENOMEM, mintid_strerror(MINTID_ENOMEM));
            return false;
        }
        buf = out->heap;
    }
    if (failed(env, a, napi_get_value_string_utf8(env, v, buf, len + 1, &out->len))) {
        free(out->heap);
        out->heap = NULL;
        return false;
    }
    out->s = buf;
    return true;
}

static void jstr_free(jstr *s) { free(s->heap); }

/* Whether v is undefined or null: an option not given. */
static bool absent(napi_env env, napi_value v) {
    napi_valuetype t;
    return v == NULL || napi_typeof(env, v, &t) != napi_ok || t == napi_undefined || t == napi_null;
}

/* The arguments of a call, up to `max`, and the addon (the function's data); missing ones are undefined. */
static addon *args_of(napi_env env, napi_callback_info info, napi_value *argv, size_t max) {
    size_t argc = max;
    void *data = NULL;
    if (napi_get_cb_info(env, info, &argc, argv, NULL, &data) != napi_ok)
        return NULL;
    for (size_t i = argc; i < max; i++)
        napi_get_undefined(env, &argv[i]);
    return data;
}

/*
 * A format by its index in the table (lib/ looks names up), into *out;
 * with `optional`, index -1 is none (NULL). Returns false with an
 * exception set.
 */
static bool format_at(napi_env env, addon *a, napi_value v, bool optional, const mintid_format **out) {
    int32_t i;
    *out = NULL;
    if (failed(env, a, napi_get_value_int32(env, v, &i)))
        return false;
    if (i < 0 && optional)
        return true;
    if (i < 0 || i >= MINTID_FORMAT_COUNT || (*out = mintid_format_get((mintid_format_id)i)) == NULL) {
        throw_arg(env, a, ARG_VALUE, "no format at index %d", (int)i);
        return false;
    }
    return true;
}

/* A whole number of v (a number lib/ checked to be one), into *out. */
static bool int64_of(napi_env env, addon *a, napi_value v, int64_t *out) {
    return !failed(env, a, napi_get_value_int64(env, v, out));
}

/*
 * The library's form that writes an ID of fmt as an RFC 9562 UUID string:
 * its 'uuid' form (ulid's, typeid's), or its canonical text where that is
 * the UUID string (uuidv7's). JavaScript has no UUID type: form 'uuid'
 * gives the string, and for uuidv7 'uuid' is its text.
 */
static int uuid_form(const mintid_format *fmt) {
    if (mintid_format_form(fmt, MINTID_FORM_UUID) != NULL)
        return MINTID_FORM_UUID;
    const mintid_form_info *text = mintid_format_form(fmt, MINTID_FORM_TEXT);
    if (fmt->bits == 128 && text != NULL && text->alphabet == NULL)
        return MINTID_FORM_TEXT;
    return -1;
}

/* Whether every ID of fmt is a safe integer, and so may be a JavaScript number. */
static bool safe_integers(const mintid_format *fmt) { return fmt->bits == 64 && fmt->value_max <= SAFE_INTEGER_MAX; }

/* A text form of fmt named by the string v, or -1 with an exception set. */
static int text_form_arg(napi_env env, addon *a, const mintid_format *fmt, napi_value v, const char *what,
                         const char *hint) {
    jstr s;
    if (!jstr_get(env, a, v, what, &s))
        return -1;
    mintid_form form;
    char why[MINTID_WHY_MAX], before[32];
    int rc = mintid_lookup_form(fmt, s.s, s.len, &form, why, sizeof why);
    jstr_free(&s);
    if (rc != MINTID_OK) {
        snprintf(before, sizeof before, "%s: ", what);
        throw_why(env, a, rc, before, why, hint);
        return -1;
    }
    return (int)form;
}

/*
 * A form of fmt ("text", "hex", ..., "uuid", and JavaScript's "bigint",
 * "number", "bytes"), or -1 with an exception set; undefined is "text".
 */
static int form_arg(napi_env env, addon *a, const mintid_format *fmt, napi_value v, const char *what) {
    if (absent(env, v))
        return MINTID_FORM_TEXT;
    jstr s;
    if (!jstr_get(env, a, v, what, &s))
        return -1;
    int form = -1;
    if (strcmp(s.s, "bigint") == 0)
        form = FORM_BIGINT;
    else if (strcmp(s.s, "bytes") == 0)
        form = FORM_BYTES;
    else if (strcmp(s.s, "uuid") == 0 && uuid_form(fmt) >= 0)
        form = uuid_form(fmt);
    else if (strcmp(s.s, "number") == 0) {
        if (safe_integers(fmt))
            form = FORM_NUMBER;
        else
            throw_arg(env, a, ARG_VALUE,
                      "%s: %s's IDs go past 2^53-1 (Number.MAX_SAFE_INTEGER), beyond what a number holds exactly; "
                      "use 'bigint'%s",
                      what, fmt->name, fmt->bits == 64 ? ", or 'int' for its decimal text" : "");
        jstr_free(&s);
        return form;
    }
    jstr_free(&s);
    if (form >= 0)
        return form;
    return text_form_arg(env, a, fmt, v, what, "; or 'bigint' (its value) or 'bytes'");
}

/*
 * epoch: null (the format's), a string (RFC 3339, Unix ms, or one of the
 * format's named epochs such as 'discord') or a number of Unix ms (a
 * Date's, lib/ having turned every other number into its digits), for fmt
 * (NULL: a format not yet known). Returns true with *out set.
 */
static bool epoch_arg(napi_env env, addon *a, const mintid_format *fmt, napi_value v, int64_t *out) {
    char why[MINTID_WHY_MAX];
    int rc;
    napi_valuetype t;
    *out = MINTID_EPOCH_DEFAULT;
    if (absent(env, v))
        return true;
    if (failed(env, a, napi_typeof(env, v, &t)))
        return false;
    if (t == napi_number) {
        if (!int64_of(env, a, v, out))
            return false;
        rc = mintid_check_epoch(fmt, *out, why, sizeof why);
    } else {
        jstr s;
        if (!jstr_get(env, a, v, "epoch", &s))
            return false;
        rc = mintid_lookup_epoch(fmt, s.s, s.len, out, why, sizeof why);
        jstr_free(&s);
    }
    if (rc != MINTID_OK) {
        throw_why(env, a, rc, "", why, "");
        return false;
    }
    return true;
}

/*
 * node: null (the format's default), or a string the library reads: a node
 * id's digits (lib/ writes a number's), 'host', 'ordinal' or 'ordinal+N'.
 * Returns true with *out set (left as it was for null).
 */
static bool node_arg(napi_env env, addon *a, const mintid_format *fmt, napi_value v, int64_t *out) {
    if (absent(env, v))
        return true;
    jstr s;
    char why[MINTID_WHY_MAX];
    if (!jstr_get(env, a, v, "node", &s))
        return false;
    int rc = mintid_lookup_node(fmt, s.s, s.len, out, why, sizeof why);
    jstr_free(&s);
    if (rc != MINTID_OK) {
        throw_why(env, a, rc, "", why, "");
        return false;
    }
    return true;
}

/*
 * prefix: null or a type prefix ('' is none) for IDs of fmt in `form`,
 * checked by the library, into out. A wrong prefix is a wrong argument,
 * not an ID that does not read: ArgumentError, where status_error() says
 * InvalidIdError for MINTID_EPREFIX. Returns 1 when one was given, 0 for
 * none, -1 with an exception set.
 */
static int prefix_arg(napi_env env, addon *a, const mintid_format *fmt, int form, napi_value v,
                      char out[MINTID_PREFIX_MAX + 1]) {
    out[0] = '\0';
    if (absent(env, v))
        return 0;
    jstr s;
    if (!jstr_get(env, a, v, "prefix", &s))
        return -1;
    /* JavaScript's own forms: its values are the library's int form; its bytes it names itself. */
    char why[MINTID_WHY_MAX];
    int rc = mintid_lookup_prefix(fmt,
                                  form == FORM_BYTES                           ? MINTID_FORM_TEXT
                                  : form == FORM_BIGINT || form == FORM_NUMBER ? MINTID_FORM_INT
                                                                               : form,
                                  s.s, s.len, why, sizeof why);
    if (rc == MINTID_OK && form == FORM_BYTES && s.len > 0) {
        /* A prefix the library took is letters and '_': shown as it is. */
        rc = MINTID_EPREFIX;
        snprintf(why, sizeof why, "prefix '%s': only %s's text form carries a prefix, not its bytes form", s.s,
                 fmt->name);
    }
    if (rc == MINTID_OK)
        memcpy(out, s.s, s.len + 1); /* the library took it: at most MINTID_PREFIX_MAX bytes */
    jstr_free(&s);
    if (rc != MINTID_OK) {
        throw_as(env, a, ERR_ARGUMENT, rc, why);
        return -1;
    }
    return 1;
}

/* ---- IDs as JavaScript values ------------------------------------------------------------------- */

/* The ID's value as a BigInt: its big-endian bytes as little-endian 64-bit words. */
static napi_value bigint_of(napi_env env, const mintid_format *fmt, const mintid_id *id) {
    napi_value v;
    if (fmt->bits == 64)
        return napi_create_bigint_uint64(env, mintid_id_to_u64(id), &v) == napi_ok ? v : NULL;
    uint64_t words[(MINTID_ID_MAX_BYTES + 7) / 8] = {0};
    size_t nbytes = fmt->bits / 8u;
    for (size_t k = 0; k < nbytes; k++) {
        size_t from_end = nbytes - 1 - k; /* byte k is the from_end-th least significant */
        words[from_end / 8] |= (uint64_t)id->bytes[k] << (8 * (from_end % 8));
    }
    return napi_create_bigint_words(env, 0, (nbytes + 7) / 8, words, &v) == napi_ok ? v : NULL;
}

/* An ID in `form` (a text form, FORM_BIGINT, FORM_NUMBER or FORM_BYTES), with a type prefix on its text. */
static napi_value id_value(napi_env env, addon *a, const mintid_format *fmt, int form, const mintid_id *id,
                           const char *prefix) {
    napi_value v = NULL;
    napi_status st;
    char buf[MINTID_TEXT_MAX];
    if (form == FORM_BYTES)
        st = napi_create_buffer_copy(env, fmt->bits / 8u, id->bytes, NULL, &v);
    else if (form == FORM_BIGINT)
        st = (v = bigint_of(env, fmt, id)) != NULL ? napi_ok : napi_generic_failure;
    else if (form == FORM_NUMBER)
        st = napi_create_double(env, (double)mintid_id_to_u64(id), &v);
    else {
        int n = prefix != NULL && prefix[0] != '\0' && form == MINTID_FORM_TEXT
                    ? mintid_encode_prefixed(fmt, (mintid_form)form, id, prefix, buf, sizeof buf)
                    : mintid_encode(fmt, (mintid_form)form, id, buf, sizeof buf);
        if (n < 0)
            return throw_encode(env, a, fmt, n);
        st = napi_create_string_latin1(env, buf, (size_t)n, &v);
    }
    return failed(env, a, st) ? NULL : v;
}

/*
 * Reads an ID through the library: a string in any of its forms (the
 * format guessed when fmt is NULL) or in the form `from` (MINTID_FORM_ANY:
 * any the format recognises), its bytes (a Buffer or Uint8Array, guessed by
 * their length), or its value as a BigInt or a safe integer. Returns true
 * with *r filled, or false with InvalidIdError or an argument's error set.
 */
static bool read_id(napi_env env, addon *a, napi_value v, const mintid_format *fmt, int from, int64_t epoch,
                    mintid_reading *r) {
    char why[MINTID_WHY_MAX];
    int rc;
    napi_valuetype t;
    bool is_typed = false;
    if (failed(env, a, napi_typeof(env, v, &t)))
        return false;
    if (t == napi_object && failed(env, a, napi_is_typedarray(env, v, &is_typed)))
        return false;
    if (from != MINTID_FORM_ANY && t != napi_string) {
        throw_arg(env, a, ARG_VALUE, "fromForm is for an ID given as a string");
        return false;
    }
    if (t == napi_string) {
        jstr s;
        if (!jstr_get(env, a, v, "id", &s))
            return false;
        rc = mintid_read_text(fmt, from, epoch, s.s, s.len, r, why, sizeof why);
        jstr_free(&s);
    } else if (is_typed) {
        /* A Buffer is a Uint8Array. */
        void *data = NULL;
        size_t len = 0;
        napi_typedarray_type type;
        if (failed(env, a, napi_get_typedarray_info(env, v, &type, &len, &data, NULL, NULL)))
            return false;
        if (type != napi_uint8_array) {
            throw_arg(env, a, ARG_TYPE, "an ID's bytes are a Buffer or a Uint8Array, not another typed array");
            return false;
        }
        rc = mintid_read_bytes(fmt, epoch, data, len, r, why, sizeof why);
    } else if (t == napi_bigint || t == napi_number) {
        /* The value: a 64-bit format's (any when guessing) as the integer it is, a wider format's as its
         * big-endian bytes. One that no ID of the format can be is said without reading it. */
        unsigned bits = fmt != NULL ? fmt->bits : 64u;
        uint64_t words[(MINTID_ID_MAX_BYTES + 7) / 8 + 1] = {0};
        size_t nwords = sizeof words / sizeof words[0];
        int sign = 0;
        if (t == napi_number) {
            double d;
            if (failed(env, a, napi_get_value_double(env, v, &d)))
                return false;
            /* lib/ let only safe integers through. */
            sign = d < 0;
            words[0] = (uint64_t)(d < 0 ? -d : d);
            nwords = 1;
        } else {
            size_t need = 0;
            if (failed(env, a, napi_get_value_bigint_words(env, v, NULL, &need, NULL)))
                return false;
            if (need > nwords) {
                char msg[200];
                snprintf(msg, sizeof msg, "%s%sa BigInt of more than %u bits is not an ID: its values are 0 to 2^%u-1",
                         fmt != NULL ? fmt->name : "", fmt != NULL ? ": " : "", (unsigned)(64 * nwords), bits);
                throw_as(env, a, ERR_INVALID_ID, MINTID_EOVERFLOW, msg);
                return false;
            }
            if (failed(env, a, napi_get_value_bigint_words(env, v, &sign, &nwords, words)))
                return false;
        }
        unsigned nbits = 0;
        for (size_t w = nwords; w-- > 0 && nbits == 0;)
            if (words[w] != 0)
                nbits = (unsigned)(64 * w + 64 - (unsigned)__builtin_clzll(words[w]));
        if (sign || nbits > bits) {
            char msg[200];
            if (nbits > 64)
                snprintf(msg, sizeof msg, "%s%san integer of %u bits is not an ID: its values are 0 to 2^%u-1%s",
                         fmt != NULL ? fmt->name : "", fmt != NULL ? ": " : "", nbits, bits,
                         fmt != NULL ? "" : "; give the format option for a wider format's");
            else
                snprintf(msg, sizeof msg, "%s%s%s%" PRIu64 " is not an ID: its values are 0 to 2^%u-1",
                         fmt != NULL ? fmt->name : "", fmt != NULL ? ": " : "", sign ? "-" : "", words[0], bits);
            throw_as(env, a, ERR_INVALID_ID, MINTID_EOVERFLOW, msg);
            return false;
        }
        if (fmt == NULL || fmt->bits == 64) {
            rc = mintid_read_u64(fmt, epoch, words[0], r, why, sizeof why);
        } else {
            uint8_t b[MINTID_ID_MAX_BYTES];
            size_t nbytes = fmt->bits / 8u;
            for (size_t k = 0; k < nbytes; k++) {
                size_t from_end = nbytes - 1 - k;
                b[k] = (uint8_t)(words[from_end / 8] >> (8 * (from_end % 8)));
            }
            rc = mintid_read_bytes(fmt, epoch, b, nbytes, r, why, sizeof why);
        }
    } else {
        throw_arg(env, a, ARG_TYPE, "an ID is a string, a Buffer or Uint8Array, a BigInt or a safe integer");
        return false;
    }
    if (rc != MINTID_OK) {
        /* Guessing found several formats, or none: JavaScript's word for naming one. */
        bool guessed = fmt == NULL && (rc == MINTID_EAMBIGUOUS || (rc == MINTID_EINVALID && r->fmt == NULL));
        throw_why(env, a, rc, "", why,
                  !guessed                  ? ""
                  : rc == MINTID_EAMBIGUOUS ? "; say which with the format option"
                                            : "; give the format option to read it as one");
        return false;
    }
    return true;
}

/* ---- generators ------------------------------------------------------------------------------- */

/* The clock of a generator driven by its caller's times (the compat layer's ulid(seedTime)). */
static int manual_clock(void *ctx, int64_t *unix_ms) {
    *unix_ms = *(const int64_t *)ctx;
    return MINTID_OK;
}

/*
 * A generator of fmt: host-wide (shared) or the process's own, waiting for
 * the next millisecond rather than failing unless fail_on_overflow; one on
 * the caller's clock (`manual`: its times are *now_ms) is the process's
 * own and, as ulid's monotonic factory does, continues its last time's
 * sequence when given an earlier time. Returns it, or NULL with an
 * exception set.
 */
static mintid_gen *gen_create(napi_env env, addon *a, const mintid_format *fmt, int64_t node, int64_t epoch,
                              bool shared, bool fail_on_overflow, int64_t *now_ms, bool *node_host) {
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.overflow = fail_on_overflow ? MINTID_OVERFLOW_FAIL : MINTID_OVERFLOW_WAIT;
    /* The environment as every face reads it: MINTID_NODE for a node not
     * given, MINTID_HOST_DIR and MINTID_ID_SPACE for the shared state. */
    char why[MINTID_WHY_MAX], dir[PATH_MAX], space[MINTID_ID_SPACE_MAX + 1];
    int rc;
    if (node == -1 && fmt->node_bits > 0 && !fmt->node_optional &&
        (rc = mintid_env_node(fmt, &node, why, sizeof why)) != MINTID_OK) {
        throw_why(env, a, rc, "", why, "");
        return NULL;
    }
    if (node == MINTID_NODE_HOST && !shared) {
        throw_arg(env, a, ARG_VALUE, "node 'host' mints in the sequence of the host's mintidd: it needs shared: true");
        return NULL;
    }
    if (node >= 0 || node == MINTID_NODE_HOST)
        cfg.node = node;
    if (epoch != MINTID_EPOCH_DEFAULT)
        cfg.epoch_ms = epoch;
    if (now_ms != NULL) {
        cfg.clock = manual_clock;
        cfg.clock_ctx = now_ms;
        cfg.rollback = MINTID_ROLLBACK_REUSE;
    }
    if (shared && ((rc = mintid_env_host_dir(dir, sizeof dir, why, sizeof why)) != MINTID_OK ||
                   (rc = mintid_env_id_space(space, sizeof space, why, sizeof why)) != MINTID_OK)) {
        throw_why(env, a, rc, "", why, "");
        return NULL;
    }
    mintid_gen *gen = NULL;
    rc = shared ? mintid_gen_new_host(fmt, &cfg, NULL, &gen) : mintid_gen_new(fmt, &cfg, &gen);
    if (rc != MINTID_OK) {
        /* On this thread, right after the call: the host's sentence and errno are the thread's. */
        mintid_gen_why(fmt, &cfg, NULL, rc, errno, why, sizeof why);
        throw_why(env, a, rc, "", why,
                  rc == MINTID_EHOST || rc == MINTID_EHOSTSTATE ? "; shared: false mints apart from other processes"
                                                                : "");
        return NULL;
    }
    *node_host = cfg.node == MINTID_NODE_HOST;
    return gen;
}

/* Throws the error of a failed mint of gen, with the library's sentence (on this thread, errno as the call left it). */
static napi_value throw_mint(napi_env env, addon *a, mintid_gen *gen, long rc, int err) {
    char why[MINTID_WHY_MAX];
    mintid_gen_why(mintid_gen_format(gen), mintid_gen_config(gen), gen, (int)rc, err, why, sizeof why);
    return throw_why(env, a, (int)rc, "", why, "");
}

/*
 * n IDs of gen in `form`, their text with `prefix` ("" for none), or one
 * (not in an array) when n < 0. A batch of a text form is one string, the
 * IDs joined by '\n' (lib/ splits it: one string and a split cost a
 * fraction of n strings made here); of bytes, one Buffer of the IDs one
 * after another (lib/ slices it); of values, an array.
 */
static napi_value mint(napi_env env, addon *a, mintid_gen *gen, int64_t n, int form, const char *prefix) {
    const mintid_format *fmt = mintid_gen_format(gen);
    long got;
    if (n < 0) {
        if ((got = mintid_gen_next(gen, &a->ids[0])) != MINTID_OK)
            return throw_mint(env, a, gen, got, errno);
        return id_value(env, a, fmt, form, &a->ids[0], prefix);
    }
    size_t count = (size_t)n, width = 0, used = 0;
    char *text = NULL;
    uint8_t *bytes = NULL;
    napi_value out = NULL;
    if (form == FORM_BYTES) {
        width = fmt->bits / 8u;
        if (failed(env, a, napi_create_buffer(env, count * width, (void **)&bytes, &out)))
            return NULL;
    } else if (form == FORM_BIGINT || form == FORM_NUMBER) {
        if (failed(env, a, napi_create_array_with_length(env, count, &out)))
            return NULL;
    } else {
        /* Every text of the form is within its max_len (mintid_form_info), a prefix and '_' before it. */
        width = mintid_format_form(fmt, (mintid_form)form)->max_len + 1u + (prefix[0] != '\0' ? strlen(prefix) + 1 : 0);
        if ((text = malloc(count * width + 1)) == NULL)
            return throw_as(env, a, ERR_HOST, MINTID_ENOMEM, mintid_strerror(MINTID_ENOMEM));
    }
    for (size_t done = 0; done < count; done += (size_t)got) {
        size_t want = count - done < CHUNK ? count - done : CHUNK;
        if ((got = mintid_gen_next_n(gen, a->ids, want)) < 0) {
            int err = errno;
            free(text);
            return throw_mint(env, a, gen, got, err);
        }
        for (long i = 0; i < got; i++) {
            const mintid_id *id = &a->ids[i];
            if (text != NULL) {
                int len = prefix[0] != '\0' && form == MINTID_FORM_TEXT
                              ? mintid_encode_prefixed(fmt, (mintid_form)form, id, prefix, text + used, width)
                              : mintid_encode(fmt, (mintid_form)form, id, text + used, width);
                if (len < 0) {
                    free(text);
                    return throw_encode(env, a, fmt, len);
                }
                used += (size_t)len;
                text[used++] = '\n';
            } else if (bytes != NULL) {
                memcpy(bytes + (done + (size_t)i) * width, id->bytes, width);
            } else {
                napi_value v = id_value(env, a, fmt, form, id, prefix);
                if (v == NULL || failed(env, a, napi_set_element(env, out, (uint32_t)(done + (size_t)i), v)))
                    return NULL;
            }
        }
    }
    if (text != NULL) {
        napi_status st = napi_create_string_latin1(env, text, used > 0 ? used - 1 : 0, &out);
        free(text);
        if (failed(env, a, st))
            return NULL;
    }
    return out;
}

/*
 * gen()'s host-wide generator of fmt with this node and epoch, made at the
 * first use and kept in the environment's state. Returns it, or NULL with
 * an exception set.
 */
static cached *cached_gen(napi_env env, addon *a, const mintid_format *fmt, int64_t node, int64_t epoch) {
    cached *c = NULL;
    if (node == -1 && epoch == MINTID_EPOCH_DEFAULT) {
        c = &a->defaults[fmt->id];
        if (c->gen != NULL)
            return c;
    } else {
        for (size_t i = 0; i < a->ncache; i++)
            if (a->cache[i].fmt == fmt && a->cache[i].node == node && a->cache[i].epoch == epoch)
                return &a->cache[i];
        if (a->ncache == GEN_CACHE_MAX) {
            for (size_t i = 0; i < a->ncache; i++)
                mintid_gen_free(a->cache[i].gen);
            a->ncache = 0;
        }
        c = &a->cache[a->ncache];
    }
    bool node_host = false;
    mintid_gen *gen = gen_create(env, a, fmt, node, epoch, true, false, NULL, &node_host);
    if (gen == NULL)
        return NULL;
    *c = (cached){fmt, node, epoch, gen, node_host};
    if (c != &a->defaults[fmt->id])
        a->ncache++;
    return c;
}

/*
 * Forgets a cached generator on node 'host' that the server's warrant no
 * longer covers: the next call makes it again, reading the node id the
 * server holds then (a new lease's).
 */
static void cache_forget(addon *a, cached *c) {
    mintid_gen_free(c->gen);
    c->gen = NULL;
    if (c != &a->defaults[c->fmt->id]) {
        *c = a->cache[--a->ncache];
        a->cache[a->ncache].gen = NULL;
    }
}

/* ---- the functions lib/ calls ----------------------------------------------------------------- */

/* next(index): the next ID of the format's default host-wide generator, as its text (gen(format)'s fast path). */
static napi_value fn_next(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    addon *a = args_of(env, info, argv, 1);
    const mintid_format *fmt;
    if (!format_at(env, a, argv[0], false, &fmt))
        return NULL;
    cached *c = cached_gen(env, a, fmt, -1, MINTID_EPOCH_DEFAULT);
    if (c == NULL)
        return NULL;
    int rc = mintid_gen_next(c->gen, &a->ids[0]);
    if (rc != MINTID_OK) {
        napi_value none = throw_mint(env, a, c->gen, rc, errno);
        if (c->node_host)
            cache_forget(a, c);
        return none;
    }
    char buf[MINTID_TEXT_MAX];
    int n = mintid_encode(fmt, MINTID_FORM_TEXT, &a->ids[0], buf, sizeof buf);
    napi_value v;
    if (n < 0)
        return throw_encode(env, a, fmt, n);
    return failed(env, a, napi_create_string_latin1(env, buf, (size_t)n, &v)) ? NULL : v;
}

/* mint(index, n, node, epoch, form, prefix): gen()'s IDs; n < 0 for one. */
static napi_value fn_mint(napi_env env, napi_callback_info info) {
    napi_value argv[6];
    addon *a = args_of(env, info, argv, 6);
    const mintid_format *fmt;
    int64_t n, node = -1, epoch;
    if (!format_at(env, a, argv[0], false, &fmt) || !int64_of(env, a, argv[1], &n) ||
        !node_arg(env, a, fmt, argv[2], &node) || !epoch_arg(env, a, fmt, argv[3], &epoch))
        return NULL;
    int form = form_arg(env, a, fmt, argv[4], "form");
    char prefix[MINTID_PREFIX_MAX + 1];
    if (form < 0 || prefix_arg(env, a, fmt, form, argv[5], prefix) < 0)
        return NULL;
    /* One sequence per format, node id and epoch, whatever the prefix (as every face mints it). */
    cached *c = cached_gen(env, a, fmt, node, epoch);
    if (c == NULL)
        return NULL;
    napi_value v = mint(env, a, c->gen, n, form, prefix);
    if (v == NULL && c->node_host)
        cache_forget(a, c);
    return v;
}

static void handle_finalize(napi_env env, void *data, void *hint) {
    (void)env;
    (void)hint;
    handle *h = data;
    mintid_gen_free(h->gen);
    free(h);
}

/* open(index, node, epoch, shared, form, overflow, prefix, manual): a Generator's handle. */
static napi_value fn_open(napi_env env, napi_callback_info info) {
    napi_value argv[8];
    addon *a = args_of(env, info, argv, 8);
    const mintid_format *fmt;
    int64_t node = -1, epoch;
    bool shared, fail, manual;
    if (!format_at(env, a, argv[0], false, &fmt) || !node_arg(env, a, fmt, argv[1], &node) ||
        !epoch_arg(env, a, fmt, argv[2], &epoch) || failed(env, a, napi_get_value_bool(env, argv[3], &shared)) ||
        failed(env, a, napi_get_value_bool(env, argv[5], &fail)) ||
        failed(env, a, napi_get_value_bool(env, argv[7], &manual)))
        return NULL;
    int form = form_arg(env, a, fmt, argv[4], "form");
    char prefix[MINTID_PREFIX_MAX + 1];
    if (form < 0 || prefix_arg(env, a, fmt, form, argv[6], prefix) < 0)
        return NULL;
    handle *h = calloc(1, sizeof *h);
    if (h == NULL)
        return throw_as(env, a, ERR_HOST, MINTID_ENOMEM, mintid_strerror(MINTID_ENOMEM));
    h->fmt = fmt;
    h->form = form;
    h->shared = shared && !manual;
    memcpy(h->prefix, prefix, sizeof h->prefix);
    bool node_host; /* a Generator keeps the node id it was made with: made again after a lease moved */
    if ((h->gen = gen_create(env, a, fmt, node, epoch, h->shared, fail, manual ? &h->now_ms : NULL, &node_host)) ==
        NULL) {
        free(h);
        return NULL;
    }
    /* A plain object wrapping it, tagged as this addon's (Node-API 8 tags objects; externals only from Node 20). */
    napi_value obj;
    if (failed(env, a, napi_create_object(env, &obj)) ||
        failed(env, a, napi_wrap(env, obj, h, handle_finalize, NULL, NULL))) {
        handle_finalize(env, h, NULL);
        return NULL;
    }
    if (failed(env, a, napi_type_tag_object(env, obj, &HANDLE_TAG)))
        return NULL;
    return obj;
}

/* The handle of a Generator (lib/ passes its own), or NULL with an exception set. */
static handle *handle_of(napi_env env, addon *a, napi_value v) {
    bool ours = false;
    void *h = NULL;
    napi_valuetype t;
    if (failed(env, a, napi_typeof(env, v, &t)))
        return NULL;
    if (t == napi_object && failed(env, a, napi_check_object_type_tag(env, v, &HANDLE_TAG, &ours)))
        return NULL;
    if (!ours || failed(env, a, napi_unwrap(env, v, &h))) {
        throw_arg(env, a, ARG_TYPE, "not a Generator's handle");
        return NULL;
    }
    return h;
}

/* genNext(handle), genNextMany(handle, n), genNextAt(handle, unix_ms): a Generator's IDs. */
static napi_value fn_gen_next(napi_env env, napi_callback_info info) {
    napi_value argv[1];
    addon *a = args_of(env, info, argv, 1);
    handle *h = handle_of(env, a, argv[0]);
    return h != NULL ? mint(env, a, h->gen, -1, h->form, h->prefix) : NULL;
}

static napi_value fn_gen_next_many(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    addon *a = args_of(env, info, argv, 2);
    handle *h = handle_of(env, a, argv[0]);
    int64_t n;
    if (h == NULL || !int64_of(env, a, argv[1], &n))
        return NULL;
    return mint(env, a, h->gen, n, h->form, h->prefix);
}

static napi_value fn_gen_next_at(napi_env env, napi_callback_info info) {
    napi_value argv[2];
    addon *a = args_of(env, info, argv, 2);
    handle *h = handle_of(env, a, argv[0]);
    if (h == NULL || !int64_of(env, a, argv[1], &h->now_ms))
        return NULL;
    return mint(env, a, h->gen, -1, h->form, h->prefix);
}

/* A property of a new object; false with an exception set. */
static bool set_prop(napi_env env, addon *a, napi_value obj, const char *key, napi_value v) {
    return v != NULL && !failed(env, a, napi_set_named_property(env, obj, key, v));
}

static napi_value str_value(napi_env env, const char *s) {
    napi_value v;
    return napi_create_string_utf8(env, s, NAPI_AUTO_LENGTH, &v) == napi_ok ? v : NULL;
}

static napi_value num_value(napi_env env, double d) {
    napi_value v;
    return napi_create_double(env, d, &v) == napi_ok ? v : NULL;
}

static napi_value null_value(napi_env env) {
    napi_value v;
    return napi_get_null(env, &v) == napi_ok ? v : NULL;
}

/* The name JavaScript gives a form. */
static const char *form_name(int form) {
    return form == FORM_BIGINT   ? "bigint"
           : form == FORM_NUMBER ? "number"
           : form == FORM_BYTES  ? "bytes"
                                 : mintid_form_name((mintid_form)form);
}

/* genInfo(handle): {format, node, epoch, shared, form, prefix, path}. */
static napi_value fn_gen_info(napi_env env, napi_callback_info info) {
    napi_value argv[1], obj, shared;
    addon *a = args_of(env, info, argv, 1);
    handle *h = handle_of(env, a, argv[0]);
    if (h == NULL || failed(env, a, napi_create_object(env, &obj)))
        return NULL;
    const mintid_config *cfg = mintid_gen_config(h->gen);
    const char *path = mintid_gen_host_path(h->gen);
    int64_t epoch = h->fmt->epoch_settable ? cfg->epoch_ms : h->fmt->epoch_ms;
    if (!set_prop(env, a, obj, "format", str_value(env, h->fmt->name)) ||
        !set_prop(env, a, obj, "node",
                  h->fmt->node_bits == 0 || cfg->node < 0 ? null_value(env) : num_value(env, (double)cfg->node)) ||
        !set_prop(env, a, obj, "epoch", num_value(env, (double)epoch)) ||
        failed(env, a, napi_get_boolean(env, h->shared, &shared)) || !set_prop(env, a, obj, "shared", shared) ||
        !set_prop(env, a, obj, "form", str_value(env, form_name(h->form))) ||
        !set_prop(env, a, obj, "prefix", str_value(env, h->prefix)) ||
        !set_prop(env, a, obj, "path", path != NULL ? str_value(env, path) : null_value(env)))
        return NULL;
    return obj;
}

/* formatIndex(name): the format's index in the table, or UnknownFormatError with the library's sentence. */
static napi_value fn_format_index(napi_env env, napi_callback_info info) {
    napi_value argv[1], v;
    addon *a = args_of(env, info, argv, 1);
    jstr s;
    const mintid_format *fmt = NULL;
    char why[MINTID_WHY_MAX];
    napi_valuetype t;
    if (failed(env, a, napi_typeof(env, argv[0], &t)))
        return NULL;
    if (t != napi_string)
        return throw_arg(env, a, ARG_TYPE, "format must be a format's name (a string)");
    if (!jstr_get(env, a, argv[0], "format", &s))
        return NULL;
    int rc = mintid_lookup_format(s.s, s.len, &fmt, why, sizeof why);
    jstr_free(&s);
    if (rc != MINTID_OK)
        return throw_why(env, a, rc, "", why, "");
    return failed(env, a, napi_create_int32(env, (int32_t)fmt->id, &v)) ? NULL : v;
}

/* fromForm: the text form an ID is read in, MINTID_FORM_ANY when absent; INT_MIN with an exception set. */
static int from_form_arg(napi_env env, addon *a, const mintid_format *fmt, napi_value v) {
    if (absent(env, v))
        return MINTID_FORM_ANY;
    if (fmt == NULL) {
        throw_arg(env, a, ARG_VALUE, "fromForm needs the format option");
        return INT_MIN;
    }
    int from = text_form_arg(env, a, fmt, v, "fromForm", "");
    return from < 0 ? INT_MIN : from;
}

/* inspect(id, index, epoch, fromForm): the ID described as the library's JSON (lib/ parses it). */
static napi_value fn_inspect(napi_env env, napi_callback_info info) {
    napi_value argv[4], v;
    addon *a = args_of(env, info, argv, 4);
    const mintid_format *fmt;
    if (!format_at(env, a, argv[1], true, &fmt))
        return NULL;
    int from = from_form_arg(env, a, fmt, argv[3]);
    if (from == INT_MIN)
        return NULL;
    /* Without a format, an epoch any format knows ('discord'): the ID's format is not known yet. */
    int64_t epoch;
    mintid_reading r;
    if (!epoch_arg(env, a, fmt, argv[2], &epoch) || !read_id(env, a, argv[0], fmt, from, epoch, &r))
        return NULL;
    char json[MINTID_JSON_MAX];
    int n = mintid_id_to_json_prefixed(r.fmt, &r.id, r.prefix, epoch, json, sizeof json);
    if (n < 0)
        return throw_encode(env, a, r.fmt, n);
    return failed(env, a, napi_create_string_utf8(env, json, (size_t)n, &v)) ? NULL : v;
}

/* convert(id, to, index, fromForm, prefix): the ID in another form. */
static napi_value fn_convert(napi_env env, napi_callback_info info) {
    napi_value argv[5];
    addon *a = args_of(env, info, argv, 5);
    const mintid_format *fmt;
    if (!format_at(env, a, argv[2], true, &fmt))
        return NULL;
    int from = from_form_arg(env, a, fmt, argv[3]);
    if (from == INT_MIN)
        return NULL;
    mintid_reading r;
    if (!read_id(env, a, argv[0], fmt, from, MINTID_EPOCH_DEFAULT, &r))
        return NULL;
    int form = form_arg(env, a, r.fmt, argv[1], "to");
    if (form < 0)
        return NULL;
    /* The text keeps the ID's type prefix, or takes the prefix given ('' drops it), as `mintid convert --prefix`. */
    char prefix[MINTID_PREFIX_MAX + 1];
    int given = prefix_arg(env, a, r.fmt, form, argv[4], prefix);
    if (given < 0)
        return NULL;
    return id_value(env, a, r.fmt, form, &r.id, given ? prefix : r.prefix);
}

/* bound(which, index, unix_ms, epoch, form, prefix): min() (which 0) or max() (1) of a time. */
static napi_value fn_bound(napi_env env, napi_callback_info info) {
    napi_value argv[6];
    addon *a = args_of(env, info, argv, 6);
    int32_t which;
    int64_t ms, epoch;
    const mintid_format *fmt = NULL;
    if (failed(env, a, napi_get_value_int32(env, argv[0], &which)) || !format_at(env, a, argv[1], false, &fmt) ||
        !int64_of(env, a, argv[2], &ms) || !epoch_arg(env, a, fmt, argv[3], &epoch))
        return NULL;
    int form = form_arg(env, a, fmt, argv[4], "form");
    char prefix[MINTID_PREFIX_MAX + 1];
    if (form < 0 || prefix_arg(env, a, fmt, form, argv[5], prefix) < 0)
        return NULL;
    mintid_id lo, hi;
    if (mintid_range(fmt, ms, epoch, &lo, &hi) != MINTID_OK) {
        int64_t first = epoch != MINTID_EPOCH_DEFAULT && fmt->epoch_settable ? epoch : fmt->epoch_ms;
        char from_s[MINTID_TIME_MAX], to_s[MINTID_TIME_MAX];
        if (mintid_format_time(first, from_s, sizeof from_s) < 0)
            snprintf(from_s, sizeof from_s, "%" PRId64, first);
        if (mintid_format_time(mintid_format_last_ms(fmt, epoch), to_s, sizeof to_s) < 0)
            snprintf(to_s, sizeof to_s, "after year 99999");
        return throw_arg(env, a, ARG_VALUE, "%s: %s carries times from %s to %s only", which ? "max" : "min", fmt->name,
                         from_s, to_s);
    }
    return id_value(env, a, fmt, form, which ? &hi : &lo, prefix);
}

/*
 * Throws ArgumentError: fmt's IDs under epoch do not carry Unix ms `ms`.
 * Returns NULL.
 */
static napi_value throw_time(napi_env env, addon *a, const mintid_format *fmt, int64_t epoch, int64_t ms) {
    int64_t first = epoch != MINTID_EPOCH_DEFAULT && fmt->epoch_settable ? epoch : fmt->epoch_ms;
    char from_s[MINTID_TIME_MAX], to_s[MINTID_TIME_MAX];
    if (mintid_format_time(first, from_s, sizeof from_s) < 0)
        snprintf(from_s, sizeof from_s, "%" PRId64, first);
    if (mintid_format_time(mintid_format_last_ms(fmt, epoch), to_s, sizeof to_s) < 0)
        snprintf(to_s, sizeof to_s, "after year 99999");
    return throw_arg(env, a, ARG_VALUE, "%s carries times from %s to %s only, not Unix ms %" PRId64, fmt->name, from_s,
                     to_s, ms);
}

/*
 * build(index, unix_ms, epoch, node, sequence, form): the ID of the fields
 * given, by the pure core, for the compat layer's Snowflake
 * generate({timestamp, increment}).
 */
static napi_value fn_build(napi_env env, napi_callback_info info) {
    napi_value argv[6];
    addon *a = args_of(env, info, argv, 6);
    const mintid_format *fmt;
    int64_t ms, epoch, node, sequence;
    if (!format_at(env, a, argv[0], false, &fmt) || !int64_of(env, a, argv[1], &ms) ||
        !epoch_arg(env, a, fmt, argv[2], &epoch) || !int64_of(env, a, argv[3], &node) ||
        !int64_of(env, a, argv[4], &sequence))
        return NULL;
    int form = form_arg(env, a, fmt, argv[5], "form");
    if (form < 0)
        return NULL;
    int64_t first = epoch != MINTID_EPOCH_DEFAULT && fmt->epoch_settable ? epoch : fmt->epoch_ms;
    if (ms < first || ms > mintid_format_last_ms(fmt, epoch))
        return throw_time(env, a, fmt, epoch, ms);
    mintid_parts parts;
    memset(&parts, 0, sizeof parts);
    parts.timestamp = (uint64_t)((ms - first) / fmt->ts_unit_ms);
    parts.node = (uint64_t)node;
    parts.sequence = (uint64_t)sequence;
    mintid_id id;
    int rc = mintid_id_build(fmt, &parts, &id);
    if (rc != MINTID_OK)
        return throw_encode(env, a, fmt, rc);
    return id_value(env, a, fmt, form, &id, "");
}

/*
 * first(index, unix_ms, form): the first ID a new sequence of the format
 * mints at Unix ms, by the generator's core (fresh random bits, as a
 * sequence starts), for the compat layer's ulid(seedTime).
 */
static napi_value fn_first(napi_env env, napi_callback_info info) {
    napi_value argv[3];
    addon *a = args_of(env, info, argv, 3);
    const mintid_format *fmt;
    int64_t ms;
    if (!format_at(env, a, argv[0], false, &fmt) || !int64_of(env, a, argv[1], &ms))
        return NULL;
    int form = form_arg(env, a, fmt, argv[2], "form");
    if (form < 0)
        return NULL;
    if (ms < fmt->epoch_ms || ms > mintid_format_last_ms(fmt, MINTID_EPOCH_DEFAULT))
        return throw_time(env, a, fmt, MINTID_EPOCH_DEFAULT, ms);
    mintid_config cfg;
    mintid_core core;
    mintid_id id;
    mintid_config_init(&cfg, fmt);
    mintid_core_init(fmt, &core);
    int rc = mintid_core_mint(fmt, &cfg, &core, ms, &a->pool, &id, NULL);
    if (rc != MINTID_OK) {
        char why[MINTID_WHY_MAX];
        mintid_gen_why(fmt, &cfg, NULL, rc, errno, why, sizeof why);
        return throw_why(env, a, rc, "", why, "");
    }
    return id_value(env, a, fmt, form, &id, "");
}

/* describe(index): the format described as the library's JSON (lib/ parses it). */
static napi_value fn_describe(napi_env env, napi_callback_info info) {
    napi_value argv[1], v;
    addon *a = args_of(env, info, argv, 1);
    const mintid_format *fmt;
    if (!format_at(env, a, argv[0], false, &fmt))
        return NULL;
    char json[MINTID_DESCRIBE_MAX];
    int n = mintid_describe(fmt, MINTID_EPOCH_DEFAULT, json, sizeof json);
    if (n < 0)
        return throw_encode(env, a, fmt, n);
    return failed(env, a, napi_create_string_utf8(env, json, (size_t)n, &v)) ? NULL : v;
}

/*
 * init(classes): the error classes of lib/errors.js, in the order of
 * ERR_*; returns {version, formats: [{name, bits, safe}]}, what lib/ needs
 * to look names up and cut batches without calling in again.
 */
static napi_value fn_init(napi_env env, napi_callback_info info) {
    napi_value argv[1], obj, list;
    addon *a = args_of(env, info, argv, 1);
    for (uint32_t i = 0; i < ERR_COUNT; i++) {
        napi_value cls;
        if (failed(env, a, napi_get_element(env, argv[0], i, &cls)))
            return NULL;
        if (a->errors[i] != NULL)
            napi_delete_reference(env, a->errors[i]);
        if (failed(env, a, napi_create_reference(env, cls, 1, &a->errors[i])))
            return NULL;
    }
    if (failed(env, a, napi_create_object(env, &obj)) ||
        failed(env, a, napi_create_array_with_length(env, MINTID_FORMAT_COUNT, &list)) ||
        !set_prop(env, a, obj, "version", str_value(env, MINTID_VERSION_STRING)) ||
        !set_prop(env, a, obj, "formats", list))
        return NULL;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        napi_value f, forms;
        uint32_t nforms = 0;
        if (failed(env, a, napi_create_object(env, &f)) || !set_prop(env, a, f, "name", str_value(env, fmt->name)) ||
            !set_prop(env, a, f, "bytes", num_value(env, fmt->bits / 8)) ||
            failed(env, a, napi_create_array(env, &forms)) || !set_prop(env, a, f, "forms", forms) ||
            failed(env, a, napi_set_element(env, list, (uint32_t)i, f)))
            return NULL;
        /* What form: takes: the library's text forms, 'uuid' where a UUID string is one, and JavaScript's own. */
        for (int form = 0; form < MINTID_FORM_COUNT + 3; form++) {
            bool has = form < MINTID_FORM_COUNT ? (fmt->forms & MINTID_FORM_BIT(form)) != 0 ||
                                                      (form == MINTID_FORM_UUID && uuid_form(fmt) >= 0)
                       : form == MINTID_FORM_COUNT + 1 ? safe_integers(fmt)
                                                       : true;
            int js = form < MINTID_FORM_COUNT ? form : FORM_BIGINT + (form - MINTID_FORM_COUNT);
            if (has && (failed(env, a, napi_set_element(env, forms, nforms++, str_value(env, form_name(js))))))
                return NULL;
        }
    }
    return obj;
}

/* ---- the module -------------------------------------------------------------------------------- */

/* Frees an environment's state when it ends (the process's exit, a Worker's end). */
static void addon_finalize(napi_env env, void *data, void *hint) {
    (void)hint;
    addon *a = data;
    for (int i = 0; i < ERR_COUNT; i++)
        if (a->errors[i] != NULL)
            napi_delete_reference(env, a->errors[i]);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        mintid_gen_free(a->defaults[i].gen);
    for (size_t i = 0; i < a->ncache; i++)
        mintid_gen_free(a->cache[i].gen);
    free(a);
}

NAPI_MODULE_EXPORT napi_value NAPI_MODULE_INITIALIZER(napi_env env, napi_value exports);
#ifdef NODE_API_MODULE_GET_API_VERSION
NAPI_MODULE_EXPORT int32_t NODE_API_MODULE_GET_API_VERSION(void);
NAPI_MODULE_EXPORT int32_t NODE_API_MODULE_GET_API_VERSION(void) { return NAPI_VERSION; }
#endif

/* One environment's instance of the addon: its state, and its functions bound to it. */
napi_value NAPI_MODULE_INITIALIZER(napi_env env, napi_value exports) {
    static const struct {
        const char *name;
        napi_callback fn;
    } fns[] = {
        {"init", fn_init},
        {"formatIndex", fn_format_index},
        {"next", fn_next},
        {"mint", fn_mint},
        {"open", fn_open},
        {"genNext", fn_gen_next},
        {"genNextMany", fn_gen_next_many},
        {"genNextAt", fn_gen_next_at},
        {"genInfo", fn_gen_info},
        {"inspect", fn_inspect},
        {"convert", fn_convert},
        {"bound", fn_bound},
        {"build", fn_build},
        {"first", fn_first},
        {"describe", fn_describe},
    };
    addon *a = calloc(1, sizeof *a);
    if (a == NULL) {
        napi_throw_error(env, mintid_status_name(MINTID_ENOMEM), mintid_strerror(MINTID_ENOMEM));
        return NULL;
    }
    mintid_pool_init(&a->pool, NULL, NULL);
    if (napi_set_instance_data(env, a, addon_finalize, NULL) != napi_ok) {
        free(a);
        napi_throw_error(env, NULL, "mintid: the addon's state could not be kept");
        return NULL;
    }
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        napi_value fn;
        if (napi_create_function(env, fns[i].name, NAPI_AUTO_LENGTH, fns[i].fn, a, &fn) != napi_ok ||
            napi_set_named_property(env, exports, fns[i].name, fn) != napi_ok)
            return NULL;
    }
    return exports;
}
