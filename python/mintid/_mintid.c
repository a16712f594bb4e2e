/* SPDX-License-Identifier: MIT */
/*
 * _mintid.c - the Python module over libmintid's public API.
 *
 * gen() and Generator mint from the library's generators (host-wide by
 * default, so every process of the host continues one sequence per format,
 * node id and epoch); inspect(), convert() and range() are the pure core.
 * The GIL is let go around every call into a generator: a call may wait for
 * the next millisecond, for the clock to catch up or for another process to
 * let the host-wide state's lock go, and other Python threads run meanwhile.
 *
 * The module is host glue: names, node ids, epochs and IDs are taken
 * through the library's look-ups and readers, and every error says the
 * library's sentence, raised as the mintid.Error subclass of its status's
 * class (status_error()); a wrong argument type is an ArgumentTypeError.
 *
 * It is written as CPython's own modules are: multi-phase initialisation,
 * its exception classes, types and the generators of mintid.gen() in the
 * module's state, so that each interpreter (a sub-interpreter too) has its
 * own, and no global of its own is shared between threads without a lock
 * (the free-threaded build takes the cache's mutex where the GIL used to
 * serialise).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>

#include <mintid.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Forms beyond the library's text forms: the ID as a Python int, as bytes,
 * and as a uuid.UUID (for a format whose library forms write it as a UUID:
 * uuid_form()).
 */
#define FORM_VALUE 100
#define FORM_BYTES 101
#define FORM_UUID 102

/* A keyword of PyArg_ParseTupleAndKeywords(), which takes them as char *. */
#define KW(s) ((char *)(s))

/* IDs minted under one release of the GIL. */
#define CHUNK 1024

/* mintid.gen() keeps its generators (node or epoch given) in a dict; past this many it starts afresh. */
#define GEN_CACHE_MAX 64

/* A function in a slot, which holds a void * (ISO C converts function pointers through an integer only). */
#define SLOT_FN(f) ((void *)(uintptr_t)(f))

/* A library sentence with what the module puts before and after it. */
#define MESSAGE_MAX (MINTID_WHY_MAX + 256)

/* The module's state: one per interpreter that imports it. */
typedef struct {
    PyObject *Error, *InvalidID, *UnknownFormat, *ClockError, *Exhausted, *Timeout, *Forked, *HostError, *ArgumentError,
        *ArgumentTypeError;
    PyTypeObject *GenType;
    PyObject *unix_epoch;                        /* datetime(1970, 1, 1, tzinfo=timezone.utc) */
    PyObject *format_names;                      /* a tuple of the formats' names, interned, in table order */
    PyObject *gen_cache;                         /* (format id, node, epoch) -> Generator, for mintid.gen() */
    PyObject *gen_defaults[MINTID_FORMAT_COUNT]; /* mintid.gen(format) without node or epoch */
    PyObject *UUID;                              /* uuid.UUID, once an ID was asked for as one (uuid_class()) */
    PyObject *bytes_kw;                          /* ("bytes",): the keyword of UUID(bytes=...) */
#ifdef Py_GIL_DISABLED
    PyMutex cache_lock; /* gen_cache, gen_defaults and UUID, which the GIL guards in the default build */
#endif
} mod_state;

#ifdef Py_GIL_DISABLED
#define CACHE_LOCK(st) PyMutex_Lock(&(st)->cache_lock)
#define CACHE_UNLOCK(st) PyMutex_Unlock(&(st)->cache_lock)
#else
#define CACHE_LOCK(st) ((void)(st))
#define CACHE_UNLOCK(st) ((void)(st))
#endif

static mod_state *module_state(PyObject *m) { return (mod_state *)PyModule_GetState(m); }

/* ---- errors ---------------------------------------------------------------------------- */

/*
 * The exception class of a library status: one per class of status
 * (mintid_status_class()), and within a class a subclass of it where the
 * status says more (an ID that does not read, a format's name, a wait
 * limit, a forked generator).
 */
static PyObject *status_error(mod_state *st, int rc) {
    switch (mintid_status_class(rc)) {
    case MINTID_CLASS_INPUT:
        if (rc == MINTID_EFORMAT)
            return st->UnknownFormat;
        if (rc == MINTID_ELENGTH || rc == MINTID_ECHAR || rc == MINTID_EOVERFLOW || rc == MINTID_EINVALID ||
            rc == MINTID_EAMBIGUOUS || rc == MINTID_EPREFIX)
            return st->InvalidID;
        return st->ArgumentError;
    case MINTID_CLASS_CLOCK:
        return rc == MINTID_ETIMEDOUT ? st->Timeout : st->ClockError;
    case MINTID_CLASS_CAPACITY:
        return st->Exhausted;
    case MINTID_CLASS_ENVIRONMENT:
        return st->HostError;
    case MINTID_CLASS_PROGRAM:
        return rc == MINTID_EFORKED ? st->Forked : st->Error;
    case MINTID_CLASS_NONE:
        break;
    }
    return st->Error;
}

/* Raises cls(msg) with .status set to the library's status rc; takes msg (NULL: an error is set). Returns NULL. */
static PyObject *raise_msg(PyObject *cls, int rc, PyObject *msg) {
    if (msg == NULL)
        return NULL;
    PyObject *exc = PyObject_CallOneArg(cls, msg);
    Py_DECREF(msg);
    if (exc == NULL)
        return NULL;
    PyObject *status = PyLong_FromLong(rc);
    if (status == NULL || PyObject_SetAttrString(exc, "status", status) < 0) {
        Py_XDECREF(status);
        Py_DECREF(exc);
        return NULL;
    }
    Py_DECREF(status);
    PyErr_SetObject(cls, exc);
    Py_DECREF(exc);
    return NULL;
}

/*
 * Raises the exception of status rc with the library's sentence `why`, as
 * the module says it: before it how the module names the thing ("to: "),
 * after it a hint of its own ("; give format="). Returns NULL.
 */
static PyObject *raise_why(mod_state *st, int rc, const char *before, const char *why, const char *after) {
    char message[MESSAGE_MAX];
    snprintf(message, sizeof message, "%s%s%s", before, why, after);
    return raise_msg(status_error(st, rc), rc, PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace"));
}

/*
 * Raises ArgumentError (the exception of MINTID_EINVAL) or, with `type`,
 * ArgumentTypeError, with a message formatted as PyUnicode_FromFormat()
 * does: the module's own, for what only Python has (a type, a keyword, a
 * naive datetime). Returns NULL.
 */
static PyObject *raise_arg(mod_state *st, bool type, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    return raise_msg(type ? st->ArgumentTypeError : status_error(st, MINTID_EINVAL), MINTID_EINVAL, msg);
}
#define ARG_VALUE false
#define ARG_TYPE true

/* ---- arguments ------------------------------------------------------------------------- */

static const char *type_name(PyObject *o) { return Py_TYPE(o)->tp_name; }

/*
 * A str's bytes for the library, which escapes what it shows: UTF-8, with
 * lone surrogates as their bytes. Returns them (in *owned's bytes when a
 * copy was needed), or NULL with an exception set.
 */
static const char *str_bytes(PyObject *o, Py_ssize_t *len, PyObject **owned) {
    *owned = NULL;
    const char *s = PyUnicode_AsUTF8AndSize(o, len);
    if (s != NULL)
        return s;
    PyErr_Clear();
    if ((*owned = PyUnicode_AsEncodedString(o, "utf-8", "surrogatepass")) == NULL)
        return NULL;
    *len = PyBytes_GET_SIZE(*owned);
    return PyBytes_AS_STRING(*owned);
}

/* The format named by `name` (a str), or NULL with UnknownFormat or ArgumentTypeError set. */
static const mintid_format *format_arg(mod_state *st, PyObject *name, const char *what) {
    if (!PyUnicode_Check(name)) {
        raise_arg(st, ARG_TYPE, "%s must be a format name (str), not %s", what, type_name(name));
        return NULL;
    }
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        if (PyTuple_GET_ITEM(st->format_names, i) == name)
            return mintid_format_get((mintid_format_id)i);
    Py_ssize_t len;
    PyObject *owned;
    const char *s = str_bytes(name, &len, &owned);
    if (s == NULL)
        return NULL;
    const mintid_format *fmt = NULL;
    char why[MINTID_WHY_MAX];
    int rc = mintid_lookup_format(s, (size_t)len, &fmt, why, sizeof why);
    Py_XDECREF(owned);
    if (rc != MINTID_OK) {
        raise_why(st, rc, "", why, "");
        return NULL;
    }
    return fmt;
}

/* A text form of fmt (NULL: any format's) named by the str o, or -1 with an exception set. */
static int text_form_arg(mod_state *st, const mintid_format *fmt, PyObject *o, const char *what, const char *hint) {
    Py_ssize_t len;
    PyObject *owned;
    const char *s = str_bytes(o, &len, &owned);
    if (s == NULL)
        return -1;
    mintid_form form;
    char why[MINTID_WHY_MAX], before[32];
    int rc = mintid_lookup_form(fmt, s, (size_t)len, &form, why, sizeof why);
    Py_XDECREF(owned);
    if (rc != MINTID_OK) {
        snprintf(before, sizeof before, "%s: ", what);
        raise_why(st, rc, before, why, hint);
        return -1;
    }
    return (int)form;
}

/*
 * The library's form that writes an ID of fmt as an RFC 9562 UUID string:
 * its 'uuid' form (ulid's, typeid's), or its canonical text where that is
 * the UUID string (uuidv7's: a 128-bit text of no one alphabet, see
 * mintid_form_info.alphabet); -1 when fmt has neither. Python's 'uuid'
 * (FORM_UUID) gives such an ID as a uuid.UUID.
 */
static int uuid_form(const mintid_format *fmt) {
    if (mintid_format_form(fmt, MINTID_FORM_UUID) != NULL)
        return MINTID_FORM_UUID;
    const mintid_form_info *text = mintid_format_form(fmt, MINTID_FORM_TEXT);
    if (fmt->bits == 128 && text != NULL && text->alphabet == NULL)
        return MINTID_FORM_TEXT;
    return -1;
}

/*
 * A form name ("text", "hex", ..., "int", "bytes", "uuid") of fmt, or -1
 * with an exception set: the library's sentence for a form fmt has not got.
 */
static int form_arg(mod_state *st, const mintid_format *fmt, PyObject *o, const char *what) {
    if (o == NULL)
        return MINTID_FORM_TEXT;
    if (!PyUnicode_Check(o)) {
        raise_arg(st, ARG_TYPE, "%s must be a form name (str), not %s", what, type_name(o));
        return -1;
    }
    /* Python's own: the value as an int of any width, the bytes, and a UUID's uuid.UUID. */
    if (PyUnicode_CompareWithASCIIString(o, "int") == 0)
        return FORM_VALUE;
    if (PyUnicode_CompareWithASCIIString(o, "bytes") == 0)
        return FORM_BYTES;
    if (PyUnicode_CompareWithASCIIString(o, "uuid") == 0 && uuid_form(fmt) >= 0)
        return FORM_UUID;
    return text_form_arg(st, fmt, o, what, "; or 'int' (its value) or 'bytes'");
}

/* Whether o is an int but not a bool (True is no node id). */
static bool is_int(PyObject *o) { return PyLong_Check(o) && !PyBool_Check(o); }

/* An int's bit_length(), or -1 with an exception set. */
static long bit_length(PyObject *o) {
    PyObject *n = PyObject_CallMethod(o, "bit_length", NULL);
    long bits = n != NULL ? PyLong_AsLong(n) : -1;
    Py_XDECREF(n);
    return bits;
}

/*
 * An int's decimal digits into buf (at least 32 bytes), as a person would
 * have written it; one past what str() writes is said by its bits.
 * Returns the length, or -1 with an exception set.
 */
static int int_text(PyObject *o, char *buf, size_t cap) {
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (!overflow)
        return snprintf(buf, cap, "%lld", v);
    PyObject *s = PyObject_Str(o);
    if (s == NULL) {
        PyErr_Clear();
        long bits = bit_length(o);
        return bits < 0 ? -1 : snprintf(buf, cap, "%san int of %ld bits", overflow < 0 ? "-" : "", bits);
    }
    Py_ssize_t len;
    const char *digits = PyUnicode_AsUTF8AndSize(s, &len);
    int n = digits != NULL ? snprintf(buf, cap, "%s", digits) : -1;
    Py_DECREF(s);
    return n < 0 ? -1 : (size_t)n >= cap ? (int)cap - 1 : n;
}

/* The epoch of a datetime: Unix ms (microseconds dropped, toward the past). Returns 0, or -1 with an exception set. */
static int datetime_ms(mod_state *st, PyObject *dt, const char *what, int64_t *out) {
    if (!PyDateTime_Check(dt)) {
        raise_arg(st, ARG_TYPE, "%s must be a datetime, not %s", what, type_name(dt));
        return -1;
    }
    PyObject *offset = PyObject_CallMethod(dt, "utcoffset", NULL);
    if (offset == NULL)
        return -1;
    bool naive = offset == Py_None;
    Py_DECREF(offset);
    if (naive) {
        raise_arg(st, ARG_VALUE, "%s %R is naive: give it a time zone (tzinfo=datetime.timezone.utc)", what, dt);
        return -1;
    }
    PyObject *delta = PyNumber_Subtract(dt, st->unix_epoch);
    if (delta == NULL)
        return -1;
    int64_t days = PyDateTime_DELTA_GET_DAYS(delta), secs = PyDateTime_DELTA_GET_SECONDS(delta),
            us = PyDateTime_DELTA_GET_MICROSECONDS(delta);
    Py_DECREF(delta);
    *out = days * 86400000 + secs * 1000 + us / 1000;
    return 0;
}

/*
 * epoch=: None (the format's), Unix ms, a datetime, or a text (RFC 3339, Unix
 * ms, or one of the format's named epochs such as "discord"), for fmt (NULL:
 * a format not yet known). Returns 0 with *out set (MINTID_EPOCH_DEFAULT for
 * None), or -1 with an exception set.
 */
static int epoch_arg(mod_state *st, const mintid_format *fmt, PyObject *o, int64_t *out) {
    char why[MINTID_WHY_MAX];
    int rc;
    *out = MINTID_EPOCH_DEFAULT;
    if (o == NULL || o == Py_None)
        return 0;
    if (is_int(o)) {
        /* Read as the command reads its decimal text. */
        char text[64];
        int n = int_text(o, text, sizeof text);
        if (n < 0)
            return -1;
        rc = mintid_lookup_epoch(fmt, text, (size_t)n, out, why, sizeof why);
    } else if (PyUnicode_Check(o)) {
        Py_ssize_t len;
        PyObject *owned;
        const char *s = str_bytes(o, &len, &owned);
        if (s == NULL)
            return -1;
        rc = mintid_lookup_epoch(fmt, s, (size_t)len, out, why, sizeof why);
        Py_XDECREF(owned);
    } else if (PyDateTime_Check(o)) {
        if (datetime_ms(st, o, "epoch", out) < 0)
            return -1;
        rc = mintid_check_epoch(fmt, *out, why, sizeof why);
    } else {
        raise_arg(st, ARG_TYPE, "epoch must be None, Unix ms (int), a datetime or a str, not %s", type_name(o));
        return -1;
    }
    if (rc != MINTID_OK) {
        raise_why(st, rc, "", why, "");
        return -1;
    }
    return 0;
}

/*
 * node=: None (the format's default), a node id of fmt, or 'host' (the node
 * id of the host's mintidd, MINTID_NODE_HOST). Returns 0 with *out set, or -1.
 */
static int node_arg(mod_state *st, const mintid_format *fmt, PyObject *o, int64_t *out) {
    char buf[64], why[MINTID_WHY_MAX];
    const char *text = buf;
    Py_ssize_t len;
    if (o == NULL || o == Py_None)
        return 0;
    if (PyUnicode_Check(o)) {
        /* 'host', 'ordinal', 'ordinal+N': the library reads them, as it reads MINTID_NODE. */
        if ((text = PyUnicode_AsUTF8AndSize(o, &len)) == NULL)
            return -1;
        if (len > 0 && (isdigit((unsigned char)text[0]) || text[0] == '-' || text[0] == '+')) {
            raise_arg(st, ARG_TYPE, "node must be an int, not a str (%R)", o);
            return -1;
        }
    } else if (is_int(o)) {
        int n = int_text(o, buf, sizeof buf);
        if (n < 0)
            return -1;
        len = n;
    } else {
        raise_arg(st, ARG_TYPE, "node must be None, an int, 'host' or 'ordinal[+N]', not %s", type_name(o));
        return -1;
    }
    int rc = mintid_lookup_node(fmt, text, (size_t)len, out, why, sizeof why);
    if (rc != MINTID_OK) {
        raise_why(st, rc, "", why, "");
        return -1;
    }
    return 0;
}

/* A count n: an int from 0. Returns it, or -1 with an exception set. */
static Py_ssize_t count_arg(mod_state *st, PyObject *o) {
    if (!is_int(o)) {
        raise_arg(st, ARG_TYPE, "n must be an int, not %s", type_name(o));
        return -1;
    }
    Py_ssize_t n = PyLong_AsSsize_t(o);
    if (n == -1 && PyErr_Occurred())
        return -1;
    if (n < 0) {
        raise_arg(st, ARG_VALUE, "n must be 0 or more, not %zd", n);
        return -1;
    }
    return n;
}

/*
 * prefix=: None (o NULL too) or a type prefix ('' is none) for IDs of fmt
 * in `form`, checked by the library. Returns 1 with out set when one was
 * given, 0 (out "") for None, or -1 with an exception set. A wrong prefix
 * is a wrong argument, not an ID that does not read: ArgumentError, where
 * status_error() says InvalidID for MINTID_EPREFIX.
 */
static int prefix_arg(mod_state *st, const mintid_format *fmt, int form, PyObject *o, char out[MINTID_PREFIX_MAX + 1]) {
    out[0] = '\0';
    if (o == NULL || o == Py_None)
        return 0;
    if (!PyUnicode_Check(o)) {
        raise_arg(st, ARG_TYPE, "prefix must be None or a str, not %s", type_name(o));
        return -1;
    }
    Py_ssize_t len;
    PyObject *owned;
    const char *s = str_bytes(o, &len, &owned);
    if (s == NULL)
        return -1;
    /* Python's own forms: its value is the library's int form, its uuid.UUID the
     * library's UUID string; its bytes the module names itself. */
    char why[MINTID_WHY_MAX];
    int rc = mintid_lookup_prefix(fmt,
                                  form == FORM_BYTES   ? MINTID_FORM_TEXT
                                  : form == FORM_VALUE ? MINTID_FORM_INT
                                  : form == FORM_UUID  ? uuid_form(fmt)
                                                       : form,
                                  s, (size_t)len, why, sizeof why);
    if (rc == MINTID_OK && form == FORM_BYTES && len > 0) {
        /* A prefix the library took is letters and '_': shown as it is. */
        rc = MINTID_EPREFIX;
        snprintf(why, sizeof why, "prefix '%.*s': only %s's text form carries a prefix, not its bytes form", (int)len,
                 s, fmt->name);
    }
    if (rc == MINTID_OK)
        memcpy(out, s, (size_t)len + 1); /* the library took it: at most MINTID_PREFIX_MAX bytes */
    Py_XDECREF(owned);
    if (rc != MINTID_OK) {
        raise_msg(st->ArgumentError, rc, PyUnicode_DecodeUTF8(why, (Py_ssize_t)strlen(why), "replace"));
        return -1;
    }
    return 1;
}

/*
 * Keyword arguments of a METH_FASTCALL | METH_KEYWORDS call, by name:
 * names[i] fills slots[i]. Positional ones are the caller's. Returns 0, or
 * -1 with ArgumentTypeError set (an unknown or repeated keyword).
 */
static int keywords(mod_state *st, const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                    const char *const *names, PyObject **slots, size_t nslots) {
    if (kwnames == NULL)
        return 0;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(kwnames); k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        size_t i;
        for (i = 0; i < nslots; i++)
            if (PyUnicode_CompareWithASCIIString(key, names[i]) == 0)
                break;
        if (i == nslots) {
            raise_arg(st, ARG_TYPE, "%s() got an unexpected keyword argument %R", func, key);
            return -1;
        }
        if (slots[i] != NULL) {
            raise_arg(st, ARG_TYPE, "%s() got multiple values for argument '%s'", func, names[i]);
            return -1;
        }
        slots[i] = args[nargs + k];
    }
    return 0;
}

/* ---- IDs as Python values ---------------------------------------------------------------- */

/* An ASCII text as a str, without decoding. */
static PyObject *ascii_str(const char *s, size_t len) {
    PyObject *o = PyUnicode_New((Py_ssize_t)len, 127);
    if (o != NULL)
        memcpy(PyUnicode_1BYTE_DATA(o), s, len);
    return o;
}

/* Raises the exception of an encoder's status. */
static PyObject *raise_encode(mod_state *st, const mintid_format *fmt, int rc) {
    char why[MINTID_WHY_MAX];
    snprintf(why, sizeof why, "%s: %s", fmt->name, mintid_strerror(rc));
    return raise_why(st, rc, "", why, "");
}

/*
 * uuid.UUID, imported at the first need (uuid imports platform, which
 * would double the time `import mintid` takes). Returns a new reference;
 * with `import_` false, NULL without an exception while no one has
 * imported uuid (then nothing is a uuid.UUID yet).
 */
static PyObject *uuid_class(mod_state *st, bool import_) {
    CACHE_LOCK(st);
    PyObject *cls = Py_XNewRef(st->UUID);
    CACHE_UNLOCK(st);
    if (cls != NULL)
        return cls;
    PyObject *mod;
    if (import_)
        mod = PyImport_ImportModule("uuid");
    else {
        PyObject *name = PyUnicode_FromString("uuid");
        mod = name != NULL ? PyImport_GetModule(name) : NULL;
        Py_XDECREF(name);
    }
    if (mod == NULL)
        return NULL;
    cls = PyObject_GetAttrString(mod, "UUID");
    Py_DECREF(mod);
    if (cls == NULL)
        return NULL;
    CACHE_LOCK(st);
    if (st->UUID == NULL)
        st->UUID = Py_NewRef(cls);
    CACHE_UNLOCK(st);
    return cls;
}

/*
 * An ID in one of the forms (a text form, FORM_VALUE, FORM_BYTES or
 * FORM_UUID), with a type prefix on its text.
 */
static PyObject *id_object(mod_state *st, const mintid_format *fmt, int form, const mintid_id *id, const char *prefix) {
    char buf[MINTID_TEXT_MAX];
    if (form == FORM_BYTES)
        return PyBytes_FromStringAndSize((const char *)id->bytes, fmt->bits / 8);
    if (form == FORM_UUID) {
        /* The UUID string of uuid_form() is the ID's 16 bytes in hex: UUID(bytes=) reads the same. */
        PyObject *cls = uuid_class(st, true);
        if (cls == NULL)
            return NULL;
        PyObject *args[2] = {NULL, PyBytes_FromStringAndSize((const char *)id->bytes, fmt->bits / 8)};
        PyObject *u = args[1] != NULL
                          ? PyObject_Vectorcall(cls, args + 1, 0 | PY_VECTORCALL_ARGUMENTS_OFFSET, st->bytes_kw)
                          : NULL;
        Py_XDECREF(args[1]);
        Py_DECREF(cls);
        return u;
    }
    if (form == FORM_VALUE) {
        if (fmt->bits == 64)
            return PyLong_FromUnsignedLongLong(mintid_id_to_u64(id));
        PyObject *b = PyBytes_FromStringAndSize((const char *)id->bytes, fmt->bits / 8);
        if (b == NULL)
            return NULL;
        PyObject *v = PyObject_CallMethod((PyObject *)&PyLong_Type, "from_bytes", "Os", b, "big");
        Py_DECREF(b);
        return v;
    }
    int n = prefix != NULL && prefix[0] != '\0' && form == MINTID_FORM_TEXT
                ? mintid_encode_prefixed(fmt, (mintid_form)form, id, prefix, buf, sizeof buf)
                : mintid_encode(fmt, (mintid_form)form, id, buf, sizeof buf);
    if (n < 0)
        return raise_encode(st, fmt, n);
    return ascii_str(buf, (size_t)n);
}

/* from_form=: None (any form the format recognises) or one of its text forms. Returns it, or -2 with an exception. */
static int from_form_arg(mod_state *st, const mintid_format *fmt, PyObject *o) {
    if (o == NULL || o == Py_None)
        return MINTID_FORM_ANY;
    if (fmt == NULL) {
        raise_arg(st, ARG_VALUE, "from_form needs format");
        return -2;
    }
    if (!PyUnicode_Check(o)) {
        raise_arg(st, ARG_TYPE, "from_form must be a form name (str), not %s", type_name(o));
        return -2;
    }
    int form = text_form_arg(st, fmt, o, "from_form", "");
    return form < 0 ? -2 : form;
}

/* Whether o is a uuid.UUID: 1, 0, or -1 with an exception set. */
static int is_uuid(mod_state *st, PyObject *o) {
    PyObject *cls = uuid_class(st, false);
    if (cls == NULL)
        return PyErr_Occurred() ? -1 : 0;
    int is = PyObject_IsInstance(o, cls);
    Py_DECREF(cls);
    return is;
}

/*
 * Reads an ID through the library: a text in any of its forms (the format
 * guessed when fmt is NULL) or in the form `from` (MINTID_FORM_ANY: any
 * the format recognises), the ID's bytes (guessed by their length), its
 * value as an int, or a uuid.UUID (its string, in the format's UUID form
 * of uuid_form(); guessed as a text). Returns 0 with *r filled, or -1 with
 * InvalidID, ArgumentTypeError or an error of the arguments set.
 */
static int read_id(mod_state *st, PyObject *o, const mintid_format *fmt, int from, int64_t epoch, mintid_reading *r) {
    char why[MINTID_WHY_MAX];
    int rc, uuid = 0;
    if (!PyUnicode_Check(o) && !PyBytes_Check(o) && !PyByteArray_Check(o) && !is_int(o) && (uuid = is_uuid(st, o)) < 0)
        return -1;
    if (PyUnicode_Check(o)) {
        Py_ssize_t len;
        PyObject *owned;
        const char *s = str_bytes(o, &len, &owned);
        if (s == NULL)
            return -1;
        rc = mintid_read_text(fmt, from, epoch, s, (size_t)len, r, why, sizeof why);
        Py_XDECREF(owned);
    } else if (from != MINTID_FORM_ANY && (PyBytes_Check(o) || PyByteArray_Check(o) || is_int(o) || uuid)) {
        raise_arg(st, ARG_VALUE, "from_form is for an ID given as a text, not as %s", type_name(o));
        return -1;
    } else if (uuid) {
        mintid_form form;
        if (fmt != NULL && uuid_form(fmt) < 0) {
            rc = mintid_lookup_form(fmt, "uuid", 4, &form, why, sizeof why); /* the sentence: fmt has none */
        } else {
            PyObject *text = PyObject_Str(o);
            const char *s = text != NULL ? PyUnicode_AsUTF8(text) : NULL;
            if (s == NULL) {
                Py_XDECREF(text);
                return -1;
            }
            rc = mintid_read_text(fmt, fmt != NULL ? uuid_form(fmt) : MINTID_FORM_ANY, epoch, s, strlen(s), r, why,
                                  sizeof why);
            Py_DECREF(text);
        }
    } else if (PyBytes_Check(o)) {
        rc = mintid_read_bytes(fmt, epoch, PyBytes_AS_STRING(o), (size_t)PyBytes_GET_SIZE(o), r, why, sizeof why);
    } else if (PyByteArray_Check(o)) {
        rc = mintid_read_bytes(fmt, epoch, PyByteArray_AS_STRING(o), (size_t)PyByteArray_GET_SIZE(o), r, why,
                               sizeof why);
    } else if (is_int(o)) {
        /* The value: a 64-bit format's (any when guessing) as the integer it
         * is, a wider format's as its big-endian bytes. One that no ID of the
         * format can be is said without its digits (a str() of it may be refused). */
        PyObject *zero = PyLong_FromLong(0);
        int below = zero != NULL ? PyObject_RichCompareBool(o, zero, Py_LT) : -1;
        Py_XDECREF(zero);
        long nbits = below < 0 ? -1 : bit_length(o);
        if (nbits < 0)
            return -1;
        unsigned bits = fmt != NULL ? fmt->bits : 64u;
        if (below || nbits > (long)bits) {
            PyObject *msg =
                nbits > 64 ? PyUnicode_FromFormat("%s%san int of %ld bits is not an ID: its values are 0 to 2^%u-1%s",
                                                  fmt != NULL ? fmt->name : "", fmt != NULL ? ": " : "", nbits, bits,
                                                  fmt != NULL ? "" : "; give format= for a wider format's")
                           : PyUnicode_FromFormat("%s%s%R is not an ID: its values are 0 to 2^%u-1",
                                                  fmt != NULL ? fmt->name : "", fmt != NULL ? ": " : "", o, bits);
            raise_msg(st->InvalidID, MINTID_EOVERFLOW, msg);
            return -1;
        }
        if (fmt == NULL || fmt->bits == 64) {
            unsigned long long v = PyLong_AsUnsignedLongLong(o);
            if (v == (unsigned long long)-1 && PyErr_Occurred())
                return -1;
            rc = mintid_read_u64(fmt, epoch, v, r, why, sizeof why);
        } else {
            uint8_t b[MINTID_ID_MAX_BYTES];
            PyObject *bytes = PyObject_CallMethod(o, "to_bytes", "is", fmt->bits / 8, "big");
            if (bytes == NULL)
                return -1;
            memcpy(b, PyBytes_AS_STRING(bytes), fmt->bits / 8u);
            Py_DECREF(bytes);
            rc = mintid_read_bytes(fmt, epoch, b, fmt->bits / 8u, r, why, sizeof why);
        }
    } else {
        raise_arg(st, ARG_TYPE, "an ID is a str, bytes, int or uuid.UUID, not %s", type_name(o));
        return -1;
    }
    if (rc != MINTID_OK) {
        /* Guessing found several formats, or none: the module's word for naming one. */
        bool guessed = fmt == NULL && (rc == MINTID_EAMBIGUOUS || (rc == MINTID_EINVALID && r->fmt == NULL));
        raise_why(st, rc, "", why,
                  !guessed                  ? ""
                  : rc == MINTID_EAMBIGUOUS ? "; say which with format="
                                            : "; give format= to read it as one");
        return -1;
    }
    return 0;
}

/* ---- Generator ----------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD mintid_gen *gen;
    const mintid_format *fmt;
    int form;
    bool shared;
    bool node_host;                     /* node 'host': the node id read from the host's mintidd when made */
    char prefix[MINTID_PREFIX_MAX + 1]; /* the type prefix of its IDs' text; "" for none */
} GenObject;

/* The module state of a Generator (its type is never subclassed: Py_TPFLAGS_BASETYPE is not set). */
static mod_state *gen_state(GenObject *g) { return (mod_state *)PyType_GetModuleState(Py_TYPE(g)); }

/*
 * A generator of fmt: host-wide (shared) or the process's, waiting for the
 * next millisecond rather than failing unless overflow is "fail". The GIL
 * is let go while it is made: the host-wide state may be locked.
 */
static GenObject *gen_create(mod_state *st, const mintid_format *fmt, int64_t node, int64_t epoch, bool shared,
                             bool fail_on_overflow, int form) {
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.overflow = fail_on_overflow ? MINTID_OVERFLOW_FAIL : MINTID_OVERFLOW_WAIT;
    /* The environment as every face reads it: MINTID_NODE for a node not
     * given, MINTID_HOST_DIR and MINTID_ID_SPACE for the shared state. */
    char why[MINTID_WHY_MAX], dir[PATH_MAX], space[MINTID_ID_SPACE_MAX + 1];
    int rc;
    if (node == -1 && fmt->node_bits > 0 && !fmt->node_optional &&
        (rc = mintid_env_node(fmt, &node, why, sizeof why)) != MINTID_OK) {
        raise_why(st, rc, "", why, "");
        return NULL;
    }
    if (node == MINTID_NODE_HOST && !shared) {
        raise_arg(st, ARG_VALUE, "node 'host' mints in the sequence of the host's mintidd: it needs shared=True");
        return NULL;
    }
    if (node >= 0 || node == MINTID_NODE_HOST)
        cfg.node = node;
    if (epoch != MINTID_EPOCH_DEFAULT)
        cfg.epoch_ms = epoch;
    if (shared && ((rc = mintid_env_host_dir(dir, sizeof dir, why, sizeof why)) != MINTID_OK ||
                   (rc = mintid_env_id_space(space, sizeof space, why, sizeof why)) != MINTID_OK)) {
        raise_why(st, rc, "", why, "");
        return NULL;
    }
    mintid_gen *gen = NULL;
    int err = 0;
    Py_BEGIN_ALLOW_THREADS;
    rc = shared ? mintid_gen_new_host(fmt, &cfg, NULL, &gen) : mintid_gen_new(fmt, &cfg, &gen);
    err = errno;
    if (rc != MINTID_OK) /* on this thread: the host's sentence is the thread's */
        mintid_gen_why(fmt, &cfg, NULL, rc, err, why, sizeof why);
    Py_END_ALLOW_THREADS;
    if (rc != MINTID_OK) {
        raise_why(st, rc, "", why,
                  rc == MINTID_EHOST || rc == MINTID_EHOSTSTATE ? "; shared=False mints apart from other processes"
                                                                : "");
        return NULL;
    }
    GenObject *self = PyObject_New(GenObject, st->GenType);
    if (self == NULL) {
        mintid_gen_free(gen);
        return NULL;
    }
    self->gen = gen;
    self->fmt = fmt;
    self->form = form;
    self->shared = shared;
    self->node_host = cfg.node == MINTID_NODE_HOST;
    self->prefix[0] = '\0';
    return self;
}

/*
 * Up to `want` IDs into ids with the GIL let go. Returns how many, or a
 * status with the library's sentence in why (said on the thread that
 * minted, whose host-wide sentence it is).
 */
static long mint_chunk(GenObject *g, mintid_id *ids, size_t want, char *why, size_t cap) {
    long got;
    Py_BEGIN_ALLOW_THREADS;
    got = mintid_gen_next_n(g->gen, ids, want);
    if (got < 0)
        mintid_gen_why(g->fmt, mintid_gen_config(g->gen), g->gen, (int)got, errno, why, cap);
    Py_END_ALLOW_THREADS;
    return got;
}

/* Raises the exception of a failed mint of g, whose sentence mint_chunk() wrote. */
static PyObject *raise_mint(GenObject *g, long rc, const char *why) {
    return raise_why(gen_state(g), (int)rc, "", why,
                     rc == MINTID_EFORKED ? "; a Generator with shared=False belongs to the process that made it, "
                                            "one with shared=True goes on in a child"
                                          : "");
}

/*
 * n IDs (a list), or one when n < 0, in `form`, their text with `prefix`
 * ("" for none). The GIL is let go while they are minted.
 */
static PyObject *mint(GenObject *g, Py_ssize_t n, int form, const char *prefix) {
    mod_state *st = gen_state(g);
    mintid_id ids[CHUNK];
    char why[MINTID_WHY_MAX];
    long got;
    if (n < 0) {
        if ((got = mint_chunk(g, ids, 1, why, sizeof why)) < 0)
            return raise_mint(g, got, why);
        return id_object(st, g->fmt, form, &ids[0], prefix);
    }
    PyObject *list = PyList_New(n);
    if (list == NULL)
        return NULL;
    for (Py_ssize_t done = 0; done < n; done += got) {
        size_t want = n - done < CHUNK ? (size_t)(n - done) : CHUNK;
        if ((got = mint_chunk(g, ids, want, why, sizeof why)) < 0) {
            Py_DECREF(list);
            return raise_mint(g, got, why);
        }
        for (long i = 0; i < got; i++) {
            PyObject *item = id_object(st, g->fmt, form, &ids[i], prefix);
            if (item == NULL) {
                Py_DECREF(list);
                return NULL;
            }
            PyList_SET_ITEM(list, done + i, item);
        }
        /* A long batch (it runs at the format's capacity) stops for Ctrl-C. */
        if (PyErr_CheckSignals() < 0) {
            Py_DECREF(list);
            return NULL;
        }
    }
    return list;
}

static PyObject *Gen_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {KW("format"), KW("node"),     KW("epoch"),  KW("shared"),
                             KW("form"),   KW("overflow"), KW("prefix"), NULL};
    mod_state *st = (mod_state *)PyType_GetModuleState(type);
    if (st == NULL)
        return NULL;
    PyObject *format, *node = NULL, *epoch = NULL, *form_o = NULL, *overflow_o = NULL, *prefix_o = NULL;
    int shared = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOp$OOO:Generator", kwlist, &format, &node, &epoch, &shared,
                                     &form_o, &overflow_o, &prefix_o))
        return NULL;
    const mintid_format *fmt = format_arg(st, format, "format");
    if (fmt == NULL)
        return NULL;
    int64_t node_v = -1, epoch_v;
    if (node_arg(st, fmt, node, &node_v) < 0 || epoch_arg(st, fmt, epoch, &epoch_v) < 0)
        return NULL;
    int form = form_arg(st, fmt, form_o, "form");
    char prefix[MINTID_PREFIX_MAX + 1];
    if (form < 0 || prefix_arg(st, fmt, form, prefix_o, prefix) < 0)
        return NULL;
    bool fail = false;
    if (overflow_o != NULL) {
        if (PyUnicode_Check(overflow_o) && (PyUnicode_CompareWithASCIIString(overflow_o, "wait") == 0 ||
                                            PyUnicode_CompareWithASCIIString(overflow_o, "fail") == 0)) {
            fail = PyUnicode_CompareWithASCIIString(overflow_o, "fail") == 0;
        } else {
            raise_arg(st, PyUnicode_Check(overflow_o) ? ARG_VALUE : ARG_TYPE,
                      "overflow must be 'wait' or 'fail', not %R", overflow_o);
            return NULL;
        }
    }
    GenObject *g = gen_create(st, fmt, node_v, epoch_v, shared != 0, fail, form);
    if (g != NULL)
        memcpy(g->prefix, prefix, sizeof g->prefix);
    return (PyObject *)g;
}

static void Gen_dealloc(GenObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    mintid_gen_free(self->gen);
    type->tp_free((PyObject *)self);
    Py_DECREF(type);
}

static PyObject *Gen_next(GenObject *self, PyObject *unused) {
    (void)unused;
    return mint(self, -1, self->form, self->prefix);
}

static PyObject *Gen_iternext(GenObject *self) { return mint(self, -1, self->form, self->prefix); }

static PyObject *Gen_next_many(GenObject *self, PyObject *n_o) {
    Py_ssize_t n = count_arg(gen_state(self), n_o);
    if (n < 0)
        return NULL;
    return mint(self, n, self->form, self->prefix);
}

static PyObject *Gen_get_format(GenObject *self, void *c) {
    (void)c;
    return PyUnicode_FromString(self->fmt->name);
}

static PyObject *Gen_get_node(GenObject *self, void *c) {
    (void)c;
    int64_t node = mintid_gen_config(self->gen)->node;
    if (self->fmt->node_bits == 0 || node < 0)
        Py_RETURN_NONE;
    return PyLong_FromLongLong(node);
}

static PyObject *Gen_get_epoch(GenObject *self, void *c) {
    (void)c;
    int64_t epoch = self->fmt->epoch_settable ? mintid_gen_config(self->gen)->epoch_ms : self->fmt->epoch_ms;
    return PyLong_FromLongLong(epoch);
}

static PyObject *Gen_get_shared(GenObject *self, void *c) {
    (void)c;
    return PyBool_FromLong(self->shared);
}

static PyObject *Gen_get_prefix(GenObject *self, void *c) {
    (void)c;
    return PyUnicode_FromString(self->prefix);
}

static PyObject *Gen_get_path(GenObject *self, void *c) {
    (void)c;
    const char *path = mintid_gen_host_path(self->gen);
    if (path == NULL)
        Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(path);
}

static PyObject *Gen_repr(GenObject *self) {
    const char *form = self->form == FORM_VALUE   ? "int"
                       : self->form == FORM_BYTES ? "bytes"
                       : self->form == FORM_UUID  ? "uuid"
                                                  : mintid_form_name((mintid_form)self->form);
    const mintid_config *cfg = mintid_gen_config(self->gen);
    const char *has_prefix = self->prefix[0] != '\0' ? ", prefix='" : "", *end = self->prefix[0] != '\0' ? "'" : "";
    if (self->fmt->node_bits > 0 && cfg->node >= 0)
        return PyUnicode_FromFormat("mintid.Generator('%s', node=%lld, epoch=%lld, shared=%s, form='%s'%s%s%s)",
                                    self->fmt->name, (long long)cfg->node, (long long)cfg->epoch_ms,
                                    self->shared ? "True" : "False", form, has_prefix, self->prefix, end);
    return PyUnicode_FromFormat("mintid.Generator('%s', epoch=%lld, shared=%s, form='%s'%s%s%s)", self->fmt->name,
                                (long long)cfg->epoch_ms, self->shared ? "True" : "False", form, has_prefix,
                                self->prefix, end);
}

static PyMethodDef Gen_methods[] = {
    {"next", (PyCFunction)Gen_next, METH_NOARGS, "next() -> the next ID, greater than every ID before it."},
    {"next_many", (PyCFunction)Gen_next_many, METH_O, "next_many(n) -> a list of the next n IDs, increasing."},
    /* mintid.Generator[int] in an annotation, as the stub's Generator is generic in its IDs' type. */
    {"__class_getitem__", Py_GenericAlias, METH_O | METH_CLASS, "Generator[T]: a Generator whose IDs are T."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Gen_getset[] = {
    {"format", (getter)Gen_get_format, NULL, "the format's name", NULL},
    {"node", (getter)Gen_get_node, NULL, "the node id, or None for a format without one", NULL},
    {"epoch", (getter)Gen_get_epoch, NULL, "the epoch, Unix ms", NULL},
    {"shared", (getter)Gen_get_shared, NULL, "True: the host-wide generator; False: the process's own", NULL},
    {"prefix", (getter)Gen_get_prefix, NULL, "the type prefix of its IDs' text; '' for none", NULL},
    {"path", (getter)Gen_get_path, NULL, "the host-wide state's file, or None", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot Gen_slots[] = {
    {Py_tp_dealloc, SLOT_FN(Gen_dealloc)},
    {Py_tp_repr, SLOT_FN(Gen_repr)},
    {Py_tp_doc, (void *)"Generator(format, node=None, epoch=None, shared=True, *, form='text', overflow='wait', "
                        "prefix=None)\n\n"
                        "Mints strictly increasing IDs of one format; thread-safe. shared=True continues the "
                        "host-wide\nsequence of the format, node id, epoch and id space (MINTID_HOST_DIR, default "
                        "/var/tmp; the\nmintid command, SQLite and mintidd there share it; node defaults to "
                        "MINTID_NODE), in a forked\nchild too; shared=False mints from the process's own, which a "
                        "forked child cannot use.\nprefix: a typeid's type prefix on its IDs' text."},
    {Py_tp_iter, SLOT_FN(PyObject_SelfIter)},
    {Py_tp_iternext, SLOT_FN(Gen_iternext)},
    {Py_tp_methods, Gen_methods},
    {Py_tp_getset, Gen_getset},
    {Py_tp_new, SLOT_FN(Gen_new)},
    {0, NULL},
};

static PyType_Spec Gen_spec = {
    .name = "mintid.Generator",
    .basicsize = sizeof(GenObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = Gen_slots,
};

/* ---- module functions -------------------------------------------------------------------------- */

/*
 * mintid.gen()'s host-wide generator of fmt with this node and epoch, made
 * at first use. Returns a new reference: another thread may forget it from
 * the cache meanwhile.
 */
static GenObject *cached_gen(mod_state *st, const mintid_format *fmt, int64_t node, int64_t epoch) {
    GenObject *g;
    if (node == -1 && epoch == MINTID_EPOCH_DEFAULT) {
        CACHE_LOCK(st);
        g = (GenObject *)Py_XNewRef(st->gen_defaults[fmt->id]);
        CACHE_UNLOCK(st);
        if (g != NULL)
            return g;
        /* Made without the lock, which a thread waiting for the host-wide state must not hold. */
        if ((g = gen_create(st, fmt, -1, MINTID_EPOCH_DEFAULT, true, false, MINTID_FORM_TEXT)) == NULL)
            return NULL;
        CACHE_LOCK(st);
        if (st->gen_defaults[fmt->id] == NULL)
            st->gen_defaults[fmt->id] = Py_NewRef(g);
        else
            Py_SETREF(g, (GenObject *)Py_NewRef(st->gen_defaults[fmt->id])); /* another thread made one meanwhile */
        CACHE_UNLOCK(st);
        return g;
    }
    PyObject *key = Py_BuildValue("(iLL)", (int)fmt->id, (long long)node, (long long)epoch);
    if (key == NULL)
        return NULL;
    CACHE_LOCK(st);
    g = (GenObject *)Py_XNewRef(PyDict_GetItemWithError(st->gen_cache, key));
    CACHE_UNLOCK(st);
    if (g == NULL && !PyErr_Occurred() &&
        (g = gen_create(st, fmt, node, epoch, true, false, MINTID_FORM_TEXT)) != NULL) {
        CACHE_LOCK(st);
        PyObject *had = PyDict_GetItemWithError(st->gen_cache, key);
        int rc = 0;
        if (had != NULL)
            Py_SETREF(g, (GenObject *)Py_NewRef(had));
        else if (!PyErr_Occurred()) {
            if (PyDict_GET_SIZE(st->gen_cache) >= GEN_CACHE_MAX)
                PyDict_Clear(st->gen_cache);
            rc = PyDict_SetItem(st->gen_cache, key, (PyObject *)g);
        }
        CACHE_UNLOCK(st);
        if (rc < 0 || PyErr_Occurred())
            Py_CLEAR(g);
    }
    Py_DECREF(key);
    return g;
}

/*
 * Forgets the cached generator g of (fmt, node, epoch): one on node 'host'
 * that the server's warrant no longer covers is made again at the next
 * call, reading the node id the server holds then (a new lease's).
 */
static void cache_forget(mod_state *st, const mintid_format *fmt, int64_t node, int64_t epoch, GenObject *g) {
    PyObject *gone = NULL;
    PyObject *key = Py_BuildValue("(iLL)", (int)fmt->id, (long long)node, (long long)epoch);
    CACHE_LOCK(st);
    if ((GenObject *)st->gen_defaults[fmt->id] == g) {
        gone = st->gen_defaults[fmt->id];
        st->gen_defaults[fmt->id] = NULL;
    } else if (key != NULL && PyDict_GetItemWithError(st->gen_cache, key) == (PyObject *)g) {
        PyDict_DelItem(st->gen_cache, key);
    }
    CACHE_UNLOCK(st);
    PyErr_Clear();
    Py_XDECREF(gone);
    Py_XDECREF(key);
}

static const char *const gen_kw[] = {"format", "n", "node", "epoch", "form", "prefix"};

/* gen(format, n=None, *, node=None, epoch=None, form='text', prefix=None) */
static PyObject *mod_gen(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    mod_state *st = module_state(m);
    PyObject *kw[6] = {NULL, NULL, NULL, NULL, NULL, NULL}; /* format, n, node, epoch, form, prefix */
    if (nargs > 2)
        return raise_arg(st, ARG_TYPE, "gen() takes a format and an optional n (%zd positional arguments given)",
                         nargs);
    for (Py_ssize_t i = 0; i < nargs; i++)
        kw[i] = args[i];
    if (keywords(st, "gen", args, nargs, kwnames, gen_kw, kw, 6) < 0)
        return NULL;
    if (kw[0] == NULL)
        return raise_arg(st, ARG_TYPE, "gen() missing required argument 'format'");
    const mintid_format *fmt = format_arg(st, kw[0], "format");
    if (fmt == NULL)
        return NULL;
    Py_ssize_t n = -1;
    if (kw[1] != NULL && kw[1] != Py_None && (n = count_arg(st, kw[1])) < 0)
        return NULL;
    int64_t node = -1, epoch = MINTID_EPOCH_DEFAULT;
    if (node_arg(st, fmt, kw[2], &node) < 0 || epoch_arg(st, fmt, kw[3], &epoch) < 0)
        return NULL;
    int form = form_arg(st, fmt, kw[4], "form");
    char prefix[MINTID_PREFIX_MAX + 1];
    if (form < 0 || prefix_arg(st, fmt, form, kw[5], prefix) < 0)
        return NULL;
    /* One sequence per format, node id and epoch, whatever the prefix (as every face mints it). */
    GenObject *g = cached_gen(st, fmt, node, epoch);
    if (g == NULL)
        return NULL;
    PyObject *result = mint(g, n, form, prefix);
    if (result == NULL && g->node_host) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        cache_forget(st, fmt, node, epoch, g);
        PyErr_Restore(type, value, tb);
    }
    Py_DECREF(g);
    return result;
}

/* Unix ms as an aware datetime in UTC; None past what a datetime holds (year 9999). */
static PyObject *ms_datetime(mod_state *st, int64_t ms) {
    int64_t days = ms / 86400000, rest = ms % 86400000;
    if (rest < 0) {
        rest += 86400000;
        days--;
    }
    if (days > 999999999 || days < -999999999)
        Py_RETURN_NONE;
    PyObject *delta = PyDelta_FromDSU((int)days, (int)(rest / 1000), (int)(rest % 1000) * 1000);
    if (delta == NULL)
        return NULL;
    PyObject *dt = PyNumber_Add(st->unix_epoch, delta);
    Py_DECREF(delta);
    if (dt == NULL && PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return dt;
}

/* A dict's item, or -1; the value's reference is taken. */
static int set_item(PyObject *d, const char *key, PyObject *value) {
    if (value == NULL)
        return -1;
    int rc = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return rc;
}

/*
 * The library's inspection as a dict, in the order of `mintid inspect`'s
 * JSON: "int" and the fields as ints (a field shown in hex as a str of its
 * digits), "time" as a datetime in UTC.
 */
static PyObject *inspect_dict(mod_state *st, const mintid_inspection *in) {
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    const mintid_format *fmt = in->fmt;
    if (set_item(d, "format", PyUnicode_FromString(fmt->name)) < 0 ||
        set_item(d, "text", PyUnicode_FromString(in->text)) < 0 ||
        set_item(d, "hex", PyUnicode_FromString(in->hex)) < 0)
        goto fail;
    if (fmt->prefix_max > 0 && (set_item(d, "prefix", PyUnicode_FromString(in->prefix)) < 0 ||
                                set_item(d, "uuid", PyUnicode_FromString(in->uuid)) < 0))
        goto fail;
    if (in->has_int && set_item(d, "int", PyLong_FromUnsignedLongLong(in->value)) < 0)
        goto fail;
    if (set_item(d, "unix_ms", in->has_time ? PyLong_FromLongLong(in->unix_ms) : Py_NewRef(Py_None)) < 0 ||
        set_item(d, "time", in->has_time ? ms_datetime(st, in->unix_ms) : Py_NewRef(Py_None)) < 0)
        goto fail;
    for (unsigned k = 0; k < in->nfields; k++) {
        const mintid_field_value *v = &in->fields[k];
        PyObject *value = v->field->flags & MINTID_FIELD_HEX ? PyUnicode_FromString(v->digits)
                          : v->field->width <= 64            ? PyLong_FromUnsignedLongLong(v->value)
                                                             : PyLong_FromString(v->digits, NULL, 10);
        if (set_item(d, v->field->name, value) < 0)
            goto fail;
    }
    return d;
fail:
    Py_DECREF(d);
    return NULL;
}

/* inspect(id, format=None, *, epoch=None, from_form=None) */
static PyObject *mod_inspect(PyObject *m, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {KW("id"), KW("format"), KW("epoch"), KW("from_form"), NULL};
    mod_state *st = module_state(m);
    PyObject *id_o, *format = Py_None, *epoch_o = Py_None, *from_o = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O$OO:inspect", kwlist, &id_o, &format, &epoch_o, &from_o))
        return NULL;
    const mintid_format *fmt = NULL;
    if (format != Py_None && (fmt = format_arg(st, format, "format")) == NULL)
        return NULL;
    int from = from_form_arg(st, fmt, from_o);
    if (from == -2)
        return NULL;
    /* Without a format, an epoch any format knows ("discord"): the ID's format is not known yet. */
    int64_t epoch;
    if (epoch_arg(st, fmt, epoch_o, &epoch) < 0)
        return NULL;
    mintid_reading r;
    if (read_id(st, id_o, fmt, from, epoch, &r) < 0)
        return NULL;
    mintid_inspection in;
    int rc = mintid_inspect(r.fmt, &r.id, r.prefix, epoch, &in);
    if (rc != MINTID_OK)
        return raise_encode(st, r.fmt, rc);
    return inspect_dict(st, &in);
}

/* convert(id, to, format=None, *, from_form=None, prefix=None) */
static PyObject *mod_convert(PyObject *m, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {KW("id"), KW("to"), KW("format"), KW("from_form"), KW("prefix"), NULL};
    mod_state *st = module_state(m);
    PyObject *id_o, *to, *format = Py_None, *from_o = Py_None, *prefix_o = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O$OO:convert", kwlist, &id_o, &to, &format, &from_o, &prefix_o))
        return NULL;
    const mintid_format *fmt = NULL;
    if (format != Py_None && (fmt = format_arg(st, format, "format")) == NULL)
        return NULL;
    int from = from_form_arg(st, fmt, from_o);
    if (from == -2)
        return NULL;
    if (!PyUnicode_Check(to))
        return raise_arg(st, ARG_TYPE, "to must be a form name (str), not %s", type_name(to));
    mintid_reading r;
    if (read_id(st, id_o, fmt, from, MINTID_EPOCH_DEFAULT, &r) < 0)
        return NULL;
    int form = form_arg(st, r.fmt, to, "to");
    if (form < 0)
        return NULL;
    /* The text keeps the ID's type prefix, or takes prefix= ('' drops it), as `mintid convert --prefix`. */
    char prefix[MINTID_PREFIX_MAX + 1];
    int given = prefix_arg(st, r.fmt, form, prefix_o, prefix);
    if (given < 0)
        return NULL;
    return id_object(st, r.fmt, form, &r.id, given ? prefix : r.prefix);
}

/* range(format, start, end=None, *, epoch=None, form='text', prefix=None) */
static PyObject *mod_range(PyObject *m, PyObject *args, PyObject *kwargs) {
    static char *kwlist[] = {KW("format"), KW("start"), KW("end"), KW("epoch"), KW("form"), KW("prefix"), NULL};
    mod_state *st = module_state(m);
    PyObject *format, *start_o, *end_o = Py_None, *epoch_o = Py_None, *form_o = NULL, *prefix_o = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O$OOO:range", kwlist, &format, &start_o, &end_o, &epoch_o,
                                     &form_o, &prefix_o))
        return NULL;
    const mintid_format *fmt = format_arg(st, format, "format");
    if (fmt == NULL)
        return NULL;
    int64_t epoch, start, end;
    if (epoch_arg(st, fmt, epoch_o, &epoch) < 0 || datetime_ms(st, start_o, "start", &start) < 0)
        return NULL;
    if (end_o == Py_None)
        end = start;
    else if (datetime_ms(st, end_o, "end", &end) < 0)
        return NULL;
    if (end < start)
        return raise_arg(st, ARG_VALUE, "range: end %R is before start %R", end_o, start_o);
    int form = form_arg(st, fmt, form_o, "form");
    char prefix[MINTID_PREFIX_MAX + 1];
    if (form < 0 || prefix_arg(st, fmt, form, prefix_o, prefix) < 0)
        return NULL;
    mintid_id lo, hi, unused;
    if (mintid_range(fmt, start, epoch, &lo, &unused) != MINTID_OK ||
        mintid_range(fmt, end, epoch, &unused, &hi) != MINTID_OK) {
        int64_t first = epoch != MINTID_EPOCH_DEFAULT && fmt->epoch_settable ? epoch : fmt->epoch_ms;
        char from_s[MINTID_TIME_MAX], to_s[MINTID_TIME_MAX];
        if (mintid_format_time(first, from_s, sizeof from_s) < 0)
            snprintf(from_s, sizeof from_s, "%" PRId64, first);
        if (mintid_format_time(mintid_format_last_ms(fmt, epoch), to_s, sizeof to_s) < 0)
            snprintf(to_s, sizeof to_s, "after year 99999");
        return raise_arg(st, ARG_VALUE, "range: %s carries times from %s to %s only", fmt->name, from_s, to_s);
    }
    PyObject *a = id_object(st, fmt, form, &lo, prefix);
    PyObject *b = a != NULL ? id_object(st, fmt, form, &hi, prefix) : NULL;
    if (b == NULL) {
        Py_XDECREF(a);
        return NULL;
    }
    PyObject *t = PyTuple_Pack(2, a, b);
    Py_DECREF(a);
    Py_DECREF(b);
    return t;
}

/* A list of the results of make(i) for i in 0..n, or NULL. */
static PyObject *list_of(size_t n, PyObject *(*make)(const mintid_format *, size_t), const mintid_format *fmt) {
    PyObject *list = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; list != NULL && i < n; i++) {
        PyObject *item = make(fmt, i);
        if (item == NULL)
            Py_CLEAR(list);
        else
            PyList_SET_ITEM(list, (Py_ssize_t)i, item);
    }
    return list;
}

static PyObject *layout_item(const mintid_format *fmt, size_t i) {
    return Py_BuildValue("(si)", fmt->fields[i].name, (int)fmt->fields[i].width);
}

/*
 * The text forms of fmt but its integer one, and "uuid" where Python has
 * it (uuid_form(): uuidv7's, its text being the UUID string); then
 * Python's "int" and "bytes".
 */
static PyObject *forms_list(const mintid_format *fmt) {
    PyObject *forms = PyList_New(0);
    for (int f = 0; forms != NULL && f < MINTID_FORM_COUNT + 2; f++) {
        bool has = f == MINTID_FORM_UUID ? uuid_form(fmt) >= 0 : (fmt->forms & MINTID_FORM_BIT(f)) != 0;
        if (f < MINTID_FORM_COUNT && (!has || f == MINTID_FORM_INT))
            continue;
        PyObject *item = PyUnicode_FromString(f < MINTID_FORM_COUNT    ? mintid_form_name((mintid_form)f)
                                              : f == MINTID_FORM_COUNT ? "int"
                                                                       : "bytes");
        if (item == NULL || PyList_Append(forms, item) < 0)
            Py_CLEAR(forms);
        Py_XDECREF(item);
    }
    return forms;
}

/* One format's entry of formats(), from the library's table. */
static PyObject *format_info(mod_state *st, const mintid_format *fmt) {
    PyObject *d = PyDict_New(), *names = PyDict_New();
    if (d == NULL || names == NULL)
        goto fail;
    for (const mintid_epoch_name *e = fmt->epoch_names; e != NULL && e->name != NULL; e++)
        if (set_item(names, e->name, PyLong_FromLongLong(e->unix_ms)) < 0)
            goto fail;
    int64_t ends = mintid_format_last_ms(fmt, MINTID_EPOCH_DEFAULT);
    if (set_item(d, "name", PyUnicode_FromString(fmt->name)) < 0 ||
        set_item(d, "title", PyUnicode_FromString(fmt->title)) < 0 ||
        set_item(d, "bits", PyLong_FromLong(fmt->bits)) < 0 ||
        set_item(d, "layout", list_of(fmt->nfields, layout_item, fmt)) < 0 ||
        set_item(d, "forms", forms_list(fmt)) < 0 ||
        set_item(d, "capacity_per_ms", PyLong_FromUnsignedLong(fmt->capacity_per_ms)) < 0 ||
        set_item(d, "capacity_note", PyUnicode_FromString(fmt->capacity_note != NULL ? fmt->capacity_note : "")) < 0 ||
        set_item(d, "ts_unit_ms", PyLong_FromLong(fmt->ts_unit_ms)) < 0 ||
        set_item(d, "epoch_ms", PyLong_FromLongLong(fmt->epoch_ms)) < 0 ||
        set_item(d, "epoch", ms_datetime(st, fmt->epoch_ms)) < 0 ||
        set_item(d, "epoch_settable", PyBool_FromLong(fmt->epoch_settable)) < 0 ||
        set_item(d, "epoch_names", Py_NewRef(names)) < 0 || set_item(d, "ends_ms", PyLong_FromLongLong(ends)) < 0 ||
        set_item(d, "ends", ms_datetime(st, ends)) < 0 ||
        set_item(d, "node_bits", PyLong_FromLong(fmt->node_bits)) < 0 ||
        set_item(d, "node_optional", PyBool_FromLong(fmt->node_optional)) < 0)
        goto fail;
    Py_DECREF(names);
    return d;
fail:
    Py_XDECREF(names);
    Py_XDECREF(d);
    return NULL;
}

/* formats() */
static PyObject *mod_formats(PyObject *m, PyObject *unused) {
    (void)unused;
    mod_state *st = module_state(m);
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        if (set_item(d, fmt->name, format_info(st, fmt)) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

/* ---- the module ------------------------------------------------------------------------------- */

static PyMethodDef mod_methods[] = {
    {"gen", (PyCFunction)(void (*)(void))mod_gen, METH_FASTCALL | METH_KEYWORDS,
     "gen(format, n=None, *, node=None, epoch=None, form='text', prefix=None)\n\n"
     "The next ID of the format from the host-wide generator (a str, an int for form='int', bytes for\n"
     "form='bytes', a uuid.UUID for form='uuid'), or a list of the next n; prefix: a typeid's type\n"
     "prefix on its text."},
    {"inspect", (PyCFunction)(void (*)(void))mod_inspect, METH_VARARGS | METH_KEYWORDS,
     "inspect(id, format=None, *, epoch=None, from_form=None) -> dict\n\n"
     "An ID (a text in any of its forms, its bytes, its int or a uuid.UUID) taken apart: the fields of\n"
     "`mintid inspect`, with time as a datetime in UTC. The format is guessed when not given;\n"
     "from_form names the text's form when the format cannot tell it."},
    {"convert", (PyCFunction)(void (*)(void))mod_convert, METH_VARARGS | METH_KEYWORDS,
     "convert(id, to, format=None, *, from_form=None, prefix=None)\n\nThe ID in another form: a text form "
     "('text', 'hex', ...), 'int', 'bytes' or 'uuid' (a uuid.UUID).\nA typeid's text keeps its type prefix, or "
     "takes prefix= ('' drops it)."},
    {"range", (PyCFunction)(void (*)(void))mod_range, METH_VARARGS | METH_KEYWORDS,
     "range(format, start, end=None, *, epoch=None, form='text', prefix=None) -> (lo, hi)\n\n"
     "The smallest ID of start's millisecond and the largest of end's (aware datetimes): every ID\n"
     "minted in [start, end] lies between them."},
    {"formats", mod_formats, METH_NOARGS,
     "formats() -> dict\n\nEvery format by name, in the library's order: its bit layout, forms, capacity,\n"
     "epoch and the time its timestamp runs out."},
    {NULL, NULL, 0, NULL},
};

/* A new exception class mintid.<name>(bases), added to the module; NULL with an exception set. */
static PyObject *new_error(PyObject *m, const char *name, const char *doc, PyObject *base, PyObject *also) {
    char qualified[64];
    snprintf(qualified, sizeof qualified, "mintid.%s", name);
    PyObject *bases = also != NULL ? PyTuple_Pack(2, base, also) : PyTuple_Pack(1, base);
    if (bases == NULL)
        return NULL;
    PyObject *cls = PyErr_NewExceptionWithDoc(qualified, doc, bases, NULL);
    Py_DECREF(bases);
    if (cls == NULL || PyModule_AddObjectRef(m, name, cls) < 0) {
        Py_XDECREF(cls);
        return NULL;
    }
    return cls;
}

/* Fills a new module of an interpreter: its exception classes, its type, its caches. */
static int mod_exec(PyObject *m) {
    mod_state *st = module_state(m);
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL)
        return -1;
    /* One class per class of status (status_error()); finer ones below the class they belong to. */
    if ((st->Error = new_error(m, "Error", "A status of libmintid; .status is its code.", PyExc_Exception, NULL)) ==
            NULL ||
        (st->ArgumentError = new_error(m, "ArgumentError",
                                       "The caller's input: an argument's value (a name, a node id, an epoch, an ID) "
                                       "is not one the call takes.",
                                       st->Error, PyExc_ValueError)) == NULL ||
        (st->InvalidID = new_error(m, "InvalidID", "A text, bytes or int that is not an ID (of the format given).",
                                   st->ArgumentError, NULL)) == NULL ||
        (st->UnknownFormat = new_error(m, "UnknownFormat", "No format has that name.", st->ArgumentError, NULL)) ==
            NULL ||
        (st->ArgumentTypeError = new_error(m, "ArgumentTypeError", "An argument's type is not one the call takes.",
                                           st->Error, PyExc_TypeError)) == NULL ||
        (st->ClockError = new_error(m, "ClockError", "The clock went back, could not be read, or did not move on.",
                                    st->Error, NULL)) == NULL ||
        (st->Timeout = new_error(m, "Timeout",
                                 "The wait limit was reached: the clock did not move on, or another process held the "
                                 "host-wide state.",
                                 st->ClockError, NULL)) == NULL ||
        (st->Exhausted = new_error(m, "Exhausted", "The millisecond's sequence is used up (overflow='fail').",
                                   st->Error, NULL)) == NULL ||
        (st->HostError = new_error(m, "HostError",
                                   "The host: the host-wide state could not be opened or is damaged, the host's "
                                   "mintidd does not vouch for its node id now, memory or randomness failed.",
                                   st->Error, NULL)) == NULL ||
        (st->Forked =
             new_error(m, "Forked", "A Generator with shared=False used in a forked child.", st->Error, NULL)) == NULL)
        return -1;
    st->GenType = (PyTypeObject *)PyType_FromModuleAndSpec(m, &Gen_spec, NULL);
    if (st->GenType == NULL || PyModule_AddType(m, st->GenType) < 0)
        return -1;
    if (PyModule_AddStringConstant(m, "__version__", MINTID_VERSION_STRING) < 0)
        return -1;
    st->unix_epoch = PyDateTimeAPI->DateTime_FromDateAndTime(1970, 1, 1, 0, 0, 0, 0, PyDateTime_TimeZone_UTC,
                                                             PyDateTimeAPI->DateTimeType);
    if (st->unix_epoch == NULL || (st->gen_cache = PyDict_New()) == NULL ||
        (st->bytes_kw = Py_BuildValue("(s)", "bytes")) == NULL ||
        (st->format_names = PyTuple_New(MINTID_FORMAT_COUNT)) == NULL)
        return -1;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        PyObject *name = PyUnicode_InternFromString(mintid_format_get((mintid_format_id)i)->name);
        if (name == NULL)
            return -1;
        PyTuple_SET_ITEM(st->format_names, i, name);
    }
    return 0;
}

static int mod_traverse(PyObject *m, visitproc visit, void *arg) {
    mod_state *st = module_state(m);
    if (st == NULL)
        return 0;
    Py_VISIT(st->Error);
    Py_VISIT(st->InvalidID);
    Py_VISIT(st->UnknownFormat);
    Py_VISIT(st->ClockError);
    Py_VISIT(st->Exhausted);
    Py_VISIT(st->Timeout);
    Py_VISIT(st->Forked);
    Py_VISIT(st->HostError);
    Py_VISIT(st->ArgumentError);
    Py_VISIT(st->ArgumentTypeError);
    Py_VISIT(st->GenType);
    Py_VISIT(st->unix_epoch);
    Py_VISIT(st->format_names);
    Py_VISIT(st->gen_cache);
    Py_VISIT(st->UUID);
    Py_VISIT(st->bytes_kw);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        Py_VISIT(st->gen_defaults[i]);
    return 0;
}

static int mod_clear(PyObject *m) {
    mod_state *st = module_state(m);
    if (st == NULL)
        return 0;
    Py_CLEAR(st->Error);
    Py_CLEAR(st->InvalidID);
    Py_CLEAR(st->UnknownFormat);
    Py_CLEAR(st->ClockError);
    Py_CLEAR(st->Exhausted);
    Py_CLEAR(st->Timeout);
    Py_CLEAR(st->Forked);
    Py_CLEAR(st->HostError);
    Py_CLEAR(st->ArgumentError);
    Py_CLEAR(st->ArgumentTypeError);
    Py_CLEAR(st->GenType);
    Py_CLEAR(st->unix_epoch);
    Py_CLEAR(st->format_names);
    Py_CLEAR(st->gen_cache);
    Py_CLEAR(st->UUID);
    Py_CLEAR(st->bytes_kw);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        Py_CLEAR(st->gen_defaults[i]);
    return 0;
}

static void mod_free(void *m) { mod_clear((PyObject *)m); }

static PyModuleDef_Slot mod_slots[] = {
    {Py_mod_exec, SLOT_FN(mod_exec)},
#ifdef Py_mod_multiple_interpreters
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
#ifdef Py_mod_gil
    {Py_mod_gil, Py_MOD_GIL_NOT_USED},
#endif
    {0, NULL},
};

static struct PyModuleDef mintid_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "mintid._mintid",
    .m_doc = "Unique, time-ordered identifiers (libmintid): see the mintid package.",
    .m_size = sizeof(mod_state),
    .m_methods = mod_methods,
    .m_slots = mod_slots,
    .m_traverse = mod_traverse,
    .m_clear = mod_clear,
    .m_free = mod_free,
};

PyMODINIT_FUNC PyInit__mintid(void);
PyMODINIT_FUNC PyInit__mintid(void) { return PyModuleDef_Init(&mintid_module); }
