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
 * Errors are the library's statuses as mintid.Error subclasses with the
 * library's message; a wrong argument type is a TypeError and a wrong value
 * a ValueError (an unreadable ID is mintid.InvalidID, which is both).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <datetime.h>

#include <mintid.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Forms beyond the library's text forms: the ID as a Python int and as bytes. */
#define FORM_VALUE 100
#define FORM_BYTES 101

/* A keyword of PyArg_ParseTupleAndKeywords(), which takes them as char *. */
#define KW(s) ((char *)(s))

/* IDs minted under one release of the GIL. */
#define CHUNK 1024

/* mintid.gen() keeps its generators (node or epoch given) in a dict; past this many it starts afresh. */
#define GEN_CACHE_MAX 64

static PyObject *Error, *InvalidID, *UnknownFormat, *ClockError, *Exhausted, *Timeout, *Forked, *HostError,
    *ArgumentError, *ArgumentTypeError;
static PyObject *json_loads;                        /* json.loads */
static PyObject *unix_epoch;                        /* datetime(1970, 1, 1, tzinfo=timezone.utc) */
static PyObject *format_names;                      /* a tuple of the formats' names, interned, in table order */
static PyObject *gen_cache;                         /* (format id, node, epoch) -> Generator, for mintid.gen() */
static PyObject *gen_defaults[MINTID_FORMAT_COUNT]; /* mintid.gen(format) without node or epoch */

/* ---- errors ---------------------------------------------------------------------------- */

/* The exception class of a library status. */
static PyObject *status_class(int rc) {
    switch (rc) {
    case MINTID_ELENGTH:
    case MINTID_ECHAR:
    case MINTID_EOVERFLOW:
    case MINTID_EINVALID:
    case MINTID_EAMBIGUOUS:
    case MINTID_EPREFIX:
        return InvalidID;
    case MINTID_EEXHAUSTED:
        return Exhausted;
    case MINTID_ECLOCKBACK:
    case MINTID_ECLOCK:
    case MINTID_ETIME:
        return ClockError;
    case MINTID_ETIMEDOUT:
        return Timeout;
    case MINTID_EFORKED:
        return Forked;
    case MINTID_EHOST:
    case MINTID_EHOSTSTATE:
    case MINTID_EWARRANT:
        return HostError;
    default:
        return Error;
    }
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

/* Raises cls(message) with .status set to the library's status. Returns NULL. */
static PyObject *raise_with(PyObject *cls, int rc, const char *message) {
    if (rc == MINTID_ENOMEM)
        return PyErr_NoMemory();
    return raise_msg(cls, rc, PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace"));
}

/*
 * Raises cls (ArgumentError, ArgumentTypeError) with a message formatted
 * as PyUnicode_FromFormat() does, .status MINTID_EINVAL. Returns NULL.
 */
static PyObject *raise_arg(PyObject *cls, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    return raise_msg(cls, MINTID_EINVAL, msg);
}

/* Raises the exception of a generator's status: "nanoflake: <the library's message>". */
static PyObject *raise_status(const mintid_format *fmt, int rc) {
    char message[512];
    if (rc == MINTID_EFORKED)
        snprintf(message, sizeof message,
                 "%s: %s (a Generator with shared=False belongs to the process that made it; one with "
                 "shared=True goes on in a child)",
                 fmt->name, mintid_strerror(rc));
    else
        snprintf(message, sizeof message, "%s: %s", fmt->name,
                 rc == MINTID_EWARRANT ? mintid_host_why() : mintid_strerror(rc));
    return raise_with(status_class(rc), rc, message);
}

/* Raises InvalidID with the library's explanation of why `text` did not decode. */
static PyObject *raise_invalid(const mintid_format *fmt, int form, const char *text, size_t len, int rc) {
    char message[512];
    if (mintid_explain(fmt, form, text, len, rc, message, sizeof message) < 0)
        snprintf(message, sizeof message, "%s: %s", fmt->name, mintid_strerror(rc));
    return raise_with(InvalidID, rc, message);
}

/* ---- arguments ------------------------------------------------------------------------- */

static const char *type_name(PyObject *o) { return Py_TYPE(o)->tp_name; }

/* A str's UTF-8, or NULL (no exception set) when it has a NUL or a lone surrogate: no name has either. */
static const char *name_utf8(PyObject *o) {
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(o, &len);
    if (s == NULL || (size_t)len != strlen(s)) {
        PyErr_Clear();
        return NULL;
    }
    return s;
}

/* The format named by `name` (a str), or NULL with UnknownFormat or TypeError set. */
static const mintid_format *format_arg(PyObject *name, const char *what) {
    if (!PyUnicode_Check(name)) {
        raise_arg(ArgumentTypeError, "%s must be a format name (str), not %s", what, type_name(name));
        return NULL;
    }
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        if (PyTuple_GET_ITEM(format_names, i) == name)
            return mintid_format_get((mintid_format_id)i);
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(name, &len);
    const mintid_format *fmt = NULL;
    if (s != NULL && (size_t)len == strlen(s))
        fmt = mintid_format_find(s);
    PyErr_Clear();
    if (fmt == NULL) {
        char names[MINTID_FORMAT_NAMES_MAX];
        if (mintid_format_names(names, sizeof names) < 0)
            names[0] = '\0';
        PyObject *msg = PyUnicode_FromFormat("unknown format %R; the formats are %s", name, names);
        if (msg != NULL) {
            raise_with(UnknownFormat, MINTID_EFORMAT, PyUnicode_AsUTF8(msg));
            Py_DECREF(msg);
        }
        return NULL;
    }
    return fmt;
}

/* The forms of fmt, for messages: "text, int, hex, bytes". */
static void forms_of(const mintid_format *fmt, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    for (int f = 0; f < MINTID_FORM_COUNT; f++)
        if (fmt->forms & MINTID_FORM_BIT(f) && f != MINTID_FORM_INT) {
            int n = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", mintid_form_name((mintid_form)f));
            if (n < 0 || (size_t)n >= cap - len)
                return;
            len += (size_t)n;
        }
    snprintf(buf + len, cap - len, ", int, bytes");
}

/* A form name ("text", "hex", ..., "int", "bytes") of fmt, or -1 with TypeError or ValueError set. */
static int form_arg(const mintid_format *fmt, PyObject *o, const char *what) {
    if (o == NULL)
        return MINTID_FORM_TEXT;
    if (!PyUnicode_Check(o)) {
        raise_arg(ArgumentTypeError, "%s must be a form name (str), not %s", what, type_name(o));
        return -1;
    }
    const char *s = name_utf8(o);
    if (s != NULL && strcmp(s, "int") == 0)
        return FORM_VALUE;
    if (s != NULL && strcmp(s, "bytes") == 0)
        return FORM_BYTES;
    int form = s != NULL ? mintid_form_find(s) : -1;
    if (form < 0 || !(fmt->forms & MINTID_FORM_BIT(form))) {
        char forms[128];
        forms_of(fmt, forms, sizeof forms);
        raise_arg(ArgumentError, "%s %R: %s's forms are %s", what, o, fmt->name, forms);
        return -1;
    }
    return form;
}

/* Whether o is an int but not a bool (True is no node id). */
static bool is_int(PyObject *o) { return PyLong_Check(o) && !PyBool_Check(o); }

/*
 * An aware datetime as Unix ms (microseconds dropped, toward the past).
 * Returns 0, or -1 with TypeError or ValueError set.
 */
static int datetime_ms(PyObject *dt, const char *what, int64_t *out) {
    if (!PyDateTime_Check(dt)) {
        raise_arg(ArgumentTypeError, "%s must be a datetime, not %s", what, type_name(dt));
        return -1;
    }
    PyObject *offset = PyObject_CallMethod(dt, "utcoffset", NULL);
    if (offset == NULL)
        return -1;
    bool naive = offset == Py_None;
    Py_DECREF(offset);
    if (naive) {
        raise_arg(ArgumentError, "%s %R is naive: give it a time zone (tzinfo=datetime.timezone.utc)", what, dt);
        return -1;
    }
    PyObject *delta = PyNumber_Subtract(dt, unix_epoch);
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
 * ms, or one of the format's named epochs such as "discord"). Returns 0 with
 * *out set (MINTID_EPOCH_DEFAULT for None), or -1 with an exception set.
 */
static int epoch_arg(const mintid_format *fmt, PyObject *o, int64_t *out) {
    *out = MINTID_EPOCH_DEFAULT;
    if (o == NULL || o == Py_None)
        return 0;
    if (!fmt->epoch_settable) {
        raise_arg(ArgumentError, "epoch: %s has a fixed epoch", fmt->name);
        return -1;
    }
    if (is_int(o)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (v == -1 && PyErr_Occurred())
            return -1;
        /* Read as the command reads its decimal text: at most 15 digits (year 33658). */
        char text[24];
        snprintf(text, sizeof text, "%lld", v);
        if (overflow || v < 0 || mintid_parse_time(text, out) != MINTID_OK) {
            raise_arg(ArgumentError, "epoch %R is not a time: give Unix milliseconds (0 to 15 digits)", o);
            return -1;
        }
        return 0;
    }
    if (PyUnicode_Check(o)) {
        const char *s = name_utf8(o);
        if (s == NULL || mintid_parse_epoch(fmt, s, out) != MINTID_OK) {
            raise_arg(ArgumentError,
                      "epoch %R is not a time: give Unix milliseconds, RFC 3339 UTC (2015-01-01T00:00:00Z)%s%s", o,
                      fmt->epoch_names != NULL ? " or one of " : "", fmt->epoch_names != NULL ? "its names" : "");
            return -1;
        }
        return 0;
    }
    if (PyDateTime_Check(o)) {
        if (datetime_ms(o, "epoch", out) < 0)
            return -1;
        if (*out < 0) {
            raise_arg(ArgumentError, "epoch %R is before 1970", o);
            return -1;
        }
        return 0;
    }
    raise_arg(ArgumentTypeError, "epoch must be None, Unix ms (int), a datetime or a str, not %s", type_name(o));
    return -1;
}

/*
 * node=: None (the format's default), a node id of fmt, or 'host' (the node
 * id of the host's mintidd, MINTID_NODE_HOST). Returns 0 with *out set, or -1.
 */
static int node_arg(const mintid_format *fmt, PyObject *o, int64_t *out) {
    if (o == NULL || o == Py_None)
        return 0;
    if (PyUnicode_Check(o) && PyUnicode_CompareWithASCIIString(o, "host") == 0) {
        if (fmt->node_bits == 0 || fmt->node_optional) {
            raise_arg(ArgumentError, "node 'host': %s has no node id of the host's mintidd", fmt->name);
            return -1;
        }
        *out = MINTID_NODE_HOST;
        return 0;
    }
    if (!is_int(o)) {
        raise_arg(ArgumentTypeError, "node must be None, an int or 'host', not %s", type_name(o));
        return -1;
    }
    if (fmt->node_bits == 0) {
        raise_arg(ArgumentError, "node: %s has no node id field", fmt->name);
        return -1;
    }
    long long max = (1LL << fmt->node_bits) - 1;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow || v < 0 || v > max) {
        raise_arg(ArgumentError, "node %R: %s node ids are 0..%lld", o, fmt->name, max);
        return -1;
    }
    *out = v;
    return 0;
}

/* A count n: an int from 0. Returns it, or -1 with an exception set. */
static Py_ssize_t count_arg(PyObject *o) {
    if (!is_int(o)) {
        raise_arg(ArgumentTypeError, "n must be an int, not %s", type_name(o));
        return -1;
    }
    Py_ssize_t n = PyLong_AsSsize_t(o);
    if (n == -1 && PyErr_Occurred())
        return -1;
    if (n < 0) {
        raise_arg(ArgumentError, "n must be 0 or more, not %zd", n);
        return -1;
    }
    return n;
}

/*
 * Keyword arguments of a METH_FASTCALL | METH_KEYWORDS call, by name:
 * names[i] fills slots[i]. Positional ones are the caller's. Returns 0, or
 * -1 with TypeError set (an unknown or repeated keyword).
 */
static int keywords(const char *func, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
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
            raise_arg(ArgumentTypeError, "%s() got an unexpected keyword argument %R", func, key);
            return -1;
        }
        if (slots[i] != NULL) {
            raise_arg(ArgumentTypeError, "%s() got multiple values for argument '%s'", func, names[i]);
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

/* An ID in one of the forms (a text form, FORM_VALUE or FORM_BYTES), with a type prefix on its text. */
static PyObject *id_object(const mintid_format *fmt, int form, const mintid_id *id, const char *prefix) {
    char buf[MINTID_TEXT_MAX];
    if (form == FORM_BYTES)
        return PyBytes_FromStringAndSize((const char *)id->bytes, fmt->bits / 8);
    if (form == FORM_VALUE) {
        if (fmt->bits == 64)
            return PyLong_FromUnsignedLongLong(mintid_id_to_u64(id));
        int n = mintid_encode(fmt, MINTID_FORM_HEX, id, buf, sizeof buf);
        if (n < 0)
            return raise_status(fmt, n);
        return PyLong_FromString(buf, NULL, 16);
    }
    int n = prefix != NULL && prefix[0] != '\0' && form == MINTID_FORM_TEXT
                ? mintid_encode_prefixed(fmt, (mintid_form)form, id, prefix, buf, sizeof buf)
                : mintid_encode(fmt, (mintid_form)form, id, buf, sizeof buf);
    if (n < 0)
        return raise_status(fmt, n);
    return ascii_str(buf, (size_t)n);
}

/* from_form=: None (any form the format recognises) or one of its text forms. Returns it, or -2 with an exception. */
static int from_form_arg(const mintid_format *fmt, PyObject *o) {
    if (o == NULL || o == Py_None)
        return MINTID_FORM_ANY;
    if (fmt == NULL) {
        raise_arg(ArgumentError, "from_form needs format");
        return -2;
    }
    if (!PyUnicode_Check(o)) {
        raise_arg(ArgumentTypeError, "from_form must be a form name (str), not %s", type_name(o));
        return -2;
    }
    const char *s = name_utf8(o);
    int form = s != NULL ? mintid_form_find(s) : -1;
    if (form < 0 || !(fmt->forms & MINTID_FORM_BIT(form))) {
        char forms[128];
        size_t len = 0;
        forms[0] = '\0';
        for (int f = 0; f < MINTID_FORM_COUNT && len < sizeof forms; f++)
            if (fmt->forms & MINTID_FORM_BIT(f))
                len += (size_t)snprintf(forms + len, sizeof forms - len, "%s%s", len ? ", " : "",
                                        mintid_form_name((mintid_form)f));
        raise_arg(ArgumentError, "from_form %R: %s's text forms are %s", o, fmt->name, forms);
        return -2;
    }
    return form;
}

/*
 * Reads an ID: a text in any of its forms (the format guessed from its shape
 * when fmt is NULL) or in the form `from` (MINTID_FORM_ANY: any the format
 * recognises), the ID's bytes, or its value as an int. Returns 0 with
 * *fmt_out, *id and prefix (a typeid's, else "") set, or -1 with InvalidID,
 * TypeError or an error of the arguments set.
 */
static int read_id(PyObject *o, const mintid_format *fmt, int from, int64_t epoch, const mintid_format **fmt_out,
                   mintid_id *id, char prefix[MINTID_PREFIX_MAX + 1]) {
    char text[2 * MINTID_ID_MAX_BYTES + 1];
    const char *s;
    Py_ssize_t len;
    int form = from;
    PyObject *owned = NULL;
    prefix[0] = '\0';
    if (PyUnicode_Check(o)) {
        if ((s = PyUnicode_AsUTF8AndSize(o, &len)) == NULL) {
            PyErr_Clear();
            PyObject *msg = PyUnicode_FromFormat("%R is not an ID: it is not ASCII", o);
            if (msg != NULL) {
                raise_with(InvalidID, MINTID_ECHAR, PyUnicode_AsUTF8(msg));
                Py_DECREF(msg);
            }
            return -1;
        }
    } else if (from != MINTID_FORM_ANY && (PyBytes_Check(o) || PyByteArray_Check(o) || is_int(o))) {
        raise_arg(ArgumentError, "from_form is for an ID given as a text, not as %s", type_name(o));
        return -1;
    } else if (PyBytes_Check(o) || PyByteArray_Check(o)) {
        /* The ID's bytes: read as its hex form, so the decoders' rules and messages hold. */
        const uint8_t *b = (const uint8_t *)(PyBytes_Check(o) ? PyBytes_AS_STRING(o) : PyByteArray_AS_STRING(o));
        Py_ssize_t n = PyBytes_Check(o) ? PyBytes_GET_SIZE(o) : PyByteArray_GET_SIZE(o);
        char message[160];
        if (fmt == NULL) {
            raise_with(InvalidID, MINTID_EAMBIGUOUS, "bytes do not say their format: give format=");
            return -1;
        }
        if (n != fmt->bits / 8) {
            snprintf(message, sizeof message, "%s: %zd bytes; an ID is %u", fmt->name, n, fmt->bits / 8u);
            raise_with(InvalidID, MINTID_ELENGTH, message);
            return -1;
        }
        static const char digits[] = "0123456789abcdef";
        for (Py_ssize_t i = 0; i < n; i++) {
            text[2 * i] = digits[b[i] >> 4];
            text[2 * i + 1] = digits[b[i] & 15];
        }
        s = text;
        len = 2 * n;
        form = MINTID_FORM_HEX;
    } else if (is_int(o)) {
        /* The value: the decimal form of a 64-bit format (or any format's
         * when guessing), else the hex form. One wider than any ID is none,
         * said without its digits (a str() of it may be refused). */
        PyObject *zero = PyLong_FromLong(0), *nbits_o = PyObject_CallMethod(o, "bit_length", NULL);
        int below = zero != NULL ? PyObject_RichCompareBool(o, zero, Py_LT) : -1;
        long nbits = nbits_o != NULL ? PyLong_AsLong(nbits_o) : -1;
        Py_XDECREF(zero);
        Py_XDECREF(nbits_o);
        if (below < 0 || (nbits == -1 && PyErr_Occurred()))
            return -1;
        unsigned bits = fmt != NULL ? fmt->bits : 8u * MINTID_ID_MAX_BYTES;
        if (nbits > (long)bits || (below && fmt != NULL && fmt->bits != 64)) {
            PyObject *msg =
                nbits > 64
                    ? PyUnicode_FromFormat("%s%san int of %ld bits is not an ID: its values are 0 to 2^%u-1",
                                           fmt != NULL ? fmt->name : "", fmt != NULL ? ": " : "", nbits, bits)
                    : PyUnicode_FromFormat("%s: %R is not an ID: its values are 0 to 2^%u-1", fmt->name, o, bits);
            if (msg != NULL) {
                raise_with(InvalidID, MINTID_EOVERFLOW, PyUnicode_AsUTF8(msg));
                Py_DECREF(msg);
            }
            return -1;
        }
        if (fmt == NULL || fmt->bits == 64) {
            if ((owned = PyObject_Str(o)) == NULL || (s = PyUnicode_AsUTF8AndSize(owned, &len)) == NULL) {
                Py_XDECREF(owned);
                return -1;
            }
            if (fmt != NULL)
                form = MINTID_FORM_INT;
        } else {
            char spec[8];
            snprintf(spec, sizeof spec, "0%ux", fmt->bits / 4u);
            PyObject *spec_o = PyUnicode_FromString(spec);
            owned = spec_o != NULL ? PyObject_Format(o, spec_o) : NULL;
            Py_XDECREF(spec_o);
            if (owned == NULL || (s = PyUnicode_AsUTF8AndSize(owned, &len)) == NULL) {
                Py_XDECREF(owned);
                return -1;
            }
            form = MINTID_FORM_HEX;
        }
    } else {
        raise_arg(ArgumentTypeError, "an ID is a str, bytes or int, not %s", type_name(o));
        return -1;
    }
    int rc;
    if (len == 0) {
        raise_with(InvalidID, MINTID_ELENGTH, "an empty text is not an ID");
        rc = -1;
    } else if (memchr(s, '\0', (size_t)len) != NULL) {
        char message[MINTID_ESCAPED_MAX + 32], safe[MINTID_ESCAPED_MAX];
        mintid_escape(s, (size_t)len, safe, sizeof safe);
        snprintf(message, sizeof message, "'%s' contains a NUL character", safe);
        raise_with(InvalidID, MINTID_ECHAR, message);
        rc = -1;
    } else if (fmt == NULL) {
        unsigned cands = 0;
        int64_t now = 0;
        mintid_form guessed;
        mintid_clock_system(NULL, &now);
        rc = mintid_guess_recent(s, (size_t)len, now, epoch, fmt_out, id, &guessed, &cands);
        if (rc == MINTID_OK) {
            rc = mintid_decode_prefixed(*fmt_out, guessed, s, (size_t)len, id, NULL, prefix) == MINTID_OK ? 0 : -1;
            if (rc < 0)
                raise_with(Error, MINTID_EINVALID, "a guessed ID did not decode");
        } else {
            char message[MINTID_ESCAPED_MAX + 256], safe[MINTID_ESCAPED_MAX];
            mintid_escape(s, (size_t)len, safe, sizeof safe);
            if (rc == MINTID_EAMBIGUOUS) {
                size_t at = (size_t)snprintf(message, sizeof message, "'%s' is ambiguous: it could be", safe);
                const char *sep = " ";
                for (int i = 0; i < MINTID_FORMAT_COUNT && at < sizeof message; i++)
                    if (cands & (1u << i)) {
                        at += (size_t)snprintf(message + at, sizeof message - at, "%s%s", sep,
                                               mintid_format_get((mintid_format_id)i)->name);
                        sep = " or ";
                    }
                if (at < sizeof message)
                    snprintf(message + at, sizeof message - at, "; say which with format=");
            } else {
                snprintf(message, sizeof message,
                         "'%s' does not have the shape of any format's ID; give format= to read it as one", safe);
            }
            raise_with(InvalidID, rc, message);
            rc = -1;
        }
    } else {
        rc = mintid_decode_prefixed(fmt, (mintid_form)form, s, (size_t)len, id, NULL, prefix);
        if (rc != MINTID_OK) {
            raise_invalid(fmt, form, s, (size_t)len, rc);
            rc = -1;
        } else {
            *fmt_out = fmt;
        }
    }
    Py_XDECREF(owned);
    return rc;
}

/* ---- Generator ----------------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD mintid_gen *gen;
    const mintid_format *fmt;
    int form;
    bool shared;
    bool node_host; /* node 'host': the node id read from the host's mintidd when made */
} GenObject;

static PyTypeObject GenType;

/*
 * A generator of fmt: host-wide (shared) or the process's, waiting for the
 * next millisecond rather than failing unless overflow is "fail". The GIL
 * is let go while it is made: the host-wide state may be locked.
 */
static GenObject *gen_create(PyTypeObject *type, const mintid_format *fmt, int64_t node, int64_t epoch, bool shared,
                             bool fail_on_overflow, int form) {
    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    cfg.overflow = fail_on_overflow ? MINTID_OVERFLOW_FAIL : MINTID_OVERFLOW_WAIT;
    /* The environment as every home reads it: MINTID_NODE for a node not
     * given, MINTID_HOST_DIR and MINTID_ID_SPACE for the shared state. */
    char why[512], dir[PATH_MAX], space[MINTID_ID_SPACE_MAX + 1];
    if (node == -1 && fmt->node_bits > 0 && !fmt->node_optional &&
        mintid_env_node(fmt, &node, why, sizeof why) != MINTID_OK) {
        raise_with(HostError, MINTID_EINVAL, why);
        return NULL;
    }
    if (node == MINTID_NODE_HOST && !shared) {
        raise_arg(ArgumentError, "node 'host' mints in the sequence of the host's mintidd: it needs shared=True");
        return NULL;
    }
    if (node >= 0 || node == MINTID_NODE_HOST)
        cfg.node = node;
    if (epoch != MINTID_EPOCH_DEFAULT)
        cfg.epoch_ms = epoch;
    if (shared && (mintid_env_host_dir(dir, sizeof dir, why, sizeof why) != MINTID_OK ||
                   mintid_env_id_space(space, sizeof space, why, sizeof why) != MINTID_OK)) {
        raise_with(HostError, MINTID_EINVAL, why);
        return NULL;
    }
    mintid_gen *gen = NULL;
    int rc, err = 0;
    Py_BEGIN_ALLOW_THREADS;
    rc = shared ? mintid_gen_new_host(fmt, &cfg, NULL, &gen) : mintid_gen_new(fmt, &cfg, &gen);
    err = errno;
    Py_END_ALLOW_THREADS;
    if (rc == MINTID_ETIME) {
        raise_arg(ArgumentError, "epoch: %s's epoch %lld is in the future", fmt->name, (long long)cfg.epoch_ms);
        return NULL;
    }
    if (rc == MINTID_EWARRANT || (node == MINTID_NODE_HOST && rc == MINTID_EHOSTSTATE && *mintid_host_why())) {
        char message[512];
        snprintf(message, sizeof message, "%s: %s", fmt->name, mintid_host_why());
        raise_with(HostError, rc, message);
        return NULL;
    }
    if (rc == MINTID_EHOST || rc == MINTID_EHOSTSTATE) {
        char message[PATH_MAX + 512];
        snprintf(message, sizeof message,
                 "%s: in %s: %s%s%s (MINTID_HOST_DIR names the directory; shared=False mints apart from other "
                 "processes)",
                 fmt->name, dir, mintid_strerror(rc), rc == MINTID_EHOST ? ": " : "",
                 rc == MINTID_EHOST ? strerror(err) : "");
        raise_with(HostError, rc, message);
        return NULL;
    }
    if (rc != MINTID_OK) {
        raise_status(fmt, rc);
        return NULL;
    }
    GenObject *self = (GenObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        mintid_gen_free(gen);
        return NULL;
    }
    self->gen = gen;
    self->fmt = fmt;
    self->form = form;
    self->shared = shared;
    self->node_host = cfg.node == MINTID_NODE_HOST;
    return self;
}

/* n IDs (a list), or one when n < 0, in `form`. The GIL is let go while they are minted. */
static PyObject *mint(GenObject *g, Py_ssize_t n, int form) {
    mintid_id ids[CHUNK];
    long got;
    if (n < 0) {
        Py_BEGIN_ALLOW_THREADS;
        got = mintid_gen_next_n(g->gen, ids, 1);
        Py_END_ALLOW_THREADS;
        if (got < 0)
            return raise_status(g->fmt, (int)got);
        return id_object(g->fmt, form, &ids[0], NULL);
    }
    PyObject *list = PyList_New(n);
    if (list == NULL)
        return NULL;
    for (Py_ssize_t done = 0; done < n; done += got) {
        size_t want = n - done < CHUNK ? (size_t)(n - done) : CHUNK;
        Py_BEGIN_ALLOW_THREADS;
        got = mintid_gen_next_n(g->gen, ids, want);
        Py_END_ALLOW_THREADS;
        if (got < 0) {
            Py_DECREF(list);
            return raise_status(g->fmt, (int)got);
        }
        for (long i = 0; i < got; i++) {
            PyObject *item = id_object(g->fmt, form, &ids[i], NULL);
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
    static char *kwlist[] = {KW("format"), KW("node"), KW("epoch"), KW("shared"), KW("form"), KW("overflow"), NULL};
    PyObject *format, *node = NULL, *epoch = NULL, *form_o = NULL, *overflow_o = NULL;
    int shared = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OOp$OO:Generator", kwlist, &format, &node, &epoch, &shared,
                                     &form_o, &overflow_o))
        return NULL;
    const mintid_format *fmt = format_arg(format, "format");
    if (fmt == NULL)
        return NULL;
    int64_t node_v = -1, epoch_v;
    if (node_arg(fmt, node, &node_v) < 0 || epoch_arg(fmt, epoch, &epoch_v) < 0)
        return NULL;
    int form = form_arg(fmt, form_o, "form");
    if (form < 0)
        return NULL;
    bool fail = false;
    if (overflow_o != NULL) {
        const char *s = PyUnicode_Check(overflow_o) ? name_utf8(overflow_o) : NULL;
        if (s != NULL && (strcmp(s, "wait") == 0 || strcmp(s, "fail") == 0)) {
            fail = strcmp(s, "fail") == 0;
        } else {
            raise_arg(PyUnicode_Check(overflow_o) ? ArgumentError : ArgumentTypeError,
                      "overflow must be 'wait' or 'fail', not %R", overflow_o);
            return NULL;
        }
    }
    return (PyObject *)gen_create(type, fmt, node_v, epoch_v, shared != 0, fail, form);
}

static void Gen_dealloc(GenObject *self) {
    mintid_gen_free(self->gen);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Gen_next(GenObject *self, PyObject *unused) {
    (void)unused;
    return mint(self, -1, self->form);
}

static PyObject *Gen_iternext(GenObject *self) { return mint(self, -1, self->form); }

static PyObject *Gen_next_many(GenObject *self, PyObject *n_o) {
    Py_ssize_t n = count_arg(n_o);
    if (n < 0)
        return NULL;
    return mint(self, n, self->form);
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
                                                  : mintid_form_name((mintid_form)self->form);
    const mintid_config *cfg = mintid_gen_config(self->gen);
    if (self->fmt->node_bits > 0 && cfg->node >= 0)
        return PyUnicode_FromFormat("mintid.Generator('%s', node=%lld, epoch=%lld, shared=%s, form='%s')",
                                    self->fmt->name, (long long)cfg->node, (long long)cfg->epoch_ms,
                                    self->shared ? "True" : "False", form);
    return PyUnicode_FromFormat("mintid.Generator('%s', epoch=%lld, shared=%s, form='%s')", self->fmt->name,
                                (long long)cfg->epoch_ms, self->shared ? "True" : "False", form);
}

static PyMethodDef Gen_methods[] = {
    {"next", (PyCFunction)Gen_next, METH_NOARGS, "next() -> the next ID, greater than every ID before it."},
    {"next_many", (PyCFunction)Gen_next_many, METH_O, "next_many(n) -> a list of the next n IDs, increasing."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Gen_getset[] = {
    {"format", (getter)Gen_get_format, NULL, "the format's name", NULL},
    {"node", (getter)Gen_get_node, NULL, "the node id, or None for a format without one", NULL},
    {"epoch", (getter)Gen_get_epoch, NULL, "the epoch, Unix ms", NULL},
    {"shared", (getter)Gen_get_shared, NULL, "True: the host-wide generator; False: the process's own", NULL},
    {"path", (getter)Gen_get_path, NULL, "the host-wide state's file, or None", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject GenType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mintid.Generator",
    .tp_basicsize = sizeof(GenObject),
    .tp_dealloc = (destructor)Gen_dealloc,
    .tp_repr = (reprfunc)Gen_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Generator(format, node=None, epoch=None, shared=True, *, form='text', overflow='wait')\n\n"
              "Mints strictly increasing IDs of one format; thread-safe. shared=True continues the host-wide\n"
              "sequence of the format, node id, epoch and id space (MINTID_HOST_DIR, default /var/tmp; the\n"
              "mintid command, SQLite and mintidd there share it; node defaults to MINTID_NODE), in a forked\n"
              "child too; shared=False mints from the process's own, which a forked child cannot use.",
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)Gen_iternext,
    .tp_methods = Gen_methods,
    .tp_getset = Gen_getset,
    .tp_new = Gen_new,
};

/* ---- module functions -------------------------------------------------------------------------- */

/* mintid.gen()'s host-wide generator of fmt with this node and epoch, made at first use. Borrowed. */
static GenObject *cached_gen(const mintid_format *fmt, int64_t node, int64_t epoch) {
    if (node == -1 && epoch == MINTID_EPOCH_DEFAULT) {
        GenObject *g = (GenObject *)gen_defaults[fmt->id];
        if (g == NULL) {
            g = gen_create(&GenType, fmt, -1, MINTID_EPOCH_DEFAULT, true, false, MINTID_FORM_TEXT);
            if (g != NULL && gen_defaults[fmt->id] == NULL)
                gen_defaults[fmt->id] = (PyObject *)g;
            else if (g != NULL)
                Py_SETREF(g, (GenObject *)gen_defaults[fmt->id]); /* another thread made one meanwhile */
        }
        return g;
    }
    PyObject *key = Py_BuildValue("(iLL)", (int)fmt->id, (long long)node, (long long)epoch);
    if (key == NULL)
        return NULL;
    GenObject *g = (GenObject *)PyDict_GetItemWithError(gen_cache, key);
    if (g == NULL && !PyErr_Occurred()) {
        g = gen_create(&GenType, fmt, node, epoch, true, false, MINTID_FORM_TEXT);
        if (g != NULL) {
            if (PyDict_GET_SIZE(gen_cache) >= GEN_CACHE_MAX)
                PyDict_Clear(gen_cache);
            int rc = PyDict_SetItem(gen_cache, key, (PyObject *)g);
            Py_DECREF(g); /* the dict holds it, and the caller holds the dict's until it returns */
            if (rc < 0)
                g = NULL;
        }
    }
    Py_DECREF(key);
    return g;
}

/*
 * Forgets the cached generator g of (fmt, node, epoch): one on node 'host'
 * that the server's warrant no longer covers is made again at the next
 * call, reading the node id the server holds then (a new lease's).
 */
static void cache_forget(const mintid_format *fmt, int64_t node, int64_t epoch, GenObject *g) {
    if ((GenObject *)gen_defaults[fmt->id] == g) {
        Py_CLEAR(gen_defaults[fmt->id]);
        return;
    }
    PyObject *key = Py_BuildValue("(iLL)", (int)fmt->id, (long long)node, (long long)epoch);
    if (key != NULL && PyDict_GetItemWithError(gen_cache, key) == (PyObject *)g)
        PyDict_DelItem(gen_cache, key);
    Py_XDECREF(key);
}

static const char *const gen_kw[] = {"format", "n", "node", "epoch", "form"};

/* gen(format, n=None, *, node=None, epoch=None, form='text') */
static PyObject *mod_gen(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    (void)m;
    PyObject *kw[5] = {NULL, NULL, NULL, NULL, NULL}; /* format, n, node, epoch, form */
    if (nargs > 2) {
        raise_arg(ArgumentTypeError, "gen() takes a format and an optional n (%zd positional arguments given)", nargs);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        kw[i] = args[i];
    if (keywords("gen", args, nargs, kwnames, gen_kw, kw, 5) < 0)
        return NULL;
    if (kw[0] == NULL) {
        raise_arg(ArgumentTypeError, "gen() missing required argument 'format'");
        return NULL;
    }
    const mintid_format *fmt = format_arg(kw[0], "format");
    if (fmt == NULL)
        return NULL;
    Py_ssize_t n = -1;
    if (kw[1] != NULL && kw[1] != Py_None && (n = count_arg(kw[1])) < 0)
        return NULL;
    int64_t node = -1, epoch = MINTID_EPOCH_DEFAULT;
    if (node_arg(fmt, kw[2], &node) < 0 || epoch_arg(fmt, kw[3], &epoch) < 0)
        return NULL;
    int form = form_arg(fmt, kw[4], "form");
    if (form < 0)
        return NULL;
    GenObject *g = cached_gen(fmt, node, epoch);
    if (g == NULL)
        return NULL;
    Py_INCREF(g);
    PyObject *result = mint(g, n, form);
    if (result == NULL && g->node_host) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        cache_forget(fmt, node, epoch, g);
        PyErr_Restore(type, value, tb);
    }
    Py_DECREF(g);
    return result;
}

/* Unix ms as an aware datetime in UTC; None past what a datetime holds (year 9999). */
static PyObject *ms_datetime(long long ms) {
    if (ms == -1 && PyErr_Occurred())
        return NULL;
    long long days = ms / 86400000, rest = ms % 86400000;
    if (rest < 0) {
        rest += 86400000;
        days--;
    }
    if (days > 999999999 || days < -999999999)
        Py_RETURN_NONE;
    PyObject *delta = PyDelta_FromDSU((int)days, (int)(rest / 1000), (int)(rest % 1000) * 1000);
    if (delta == NULL)
        return NULL;
    PyObject *dt = PyNumber_Add(unix_epoch, delta);
    Py_DECREF(delta);
    if (dt == NULL && PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return dt;
}

/* The inspect JSON object as a dict: "int" and wide fields as ints, "time" as a datetime in UTC. */
static PyObject *inspect_dict(const mintid_format *fmt, const char *json, int len) {
    PyObject *text = PyUnicode_DecodeUTF8(json, len, "strict");
    if (text == NULL)
        return NULL;
    PyObject *d = PyObject_CallOneArg(json_loads, text);
    Py_DECREF(text);
    if (d == NULL)
        return NULL;
    PyObject *v = PyDict_GetItemString(d, "int");
    if (v != NULL && PyUnicode_Check(v)) {
        PyObject *i = PyLong_FromUnicodeObject(v, 10);
        if (i == NULL || PyDict_SetItemString(d, "int", i) < 0) {
            Py_XDECREF(i);
            goto fail;
        }
        Py_DECREF(i);
    }
    for (unsigned k = 0; k < fmt->nfields; k++) {
        const mintid_field *f = &fmt->fields[k];
        v = PyDict_GetItemString(d, f->name);
        if (v == NULL || !PyUnicode_Check(v) || (f->flags & MINTID_FIELD_HEX))
            continue;
        PyObject *i = PyLong_FromUnicodeObject(v, 10);
        if (i == NULL || PyDict_SetItemString(d, f->name, i) < 0) {
            Py_XDECREF(i);
            goto fail;
        }
        Py_DECREF(i);
    }
    v = PyDict_GetItemString(d, "unix_ms");
    PyObject *time = v != NULL && PyLong_Check(v) ? ms_datetime(PyLong_AsLongLong(v)) : Py_NewRef(Py_None);
    if (time == NULL || PyDict_SetItemString(d, "time", time) < 0) {
        Py_XDECREF(time);
        goto fail;
    }
    Py_DECREF(time);
    return d;
fail:
    Py_DECREF(d);
    return NULL;
}

/* inspect(id, format=None, *, epoch=None) */
static PyObject *mod_inspect(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static char *kwlist[] = {KW("id"), KW("format"), KW("epoch"), KW("from_form"), NULL};
    PyObject *id_o, *format = Py_None, *epoch_o = Py_None, *from_o = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|O$OO:inspect", kwlist, &id_o, &format, &epoch_o, &from_o))
        return NULL;
    const mintid_format *fmt = NULL;
    if (format != Py_None && (fmt = format_arg(format, "format")) == NULL)
        return NULL;
    int from = from_form_arg(fmt, from_o);
    if (from == -2)
        return NULL;
    int64_t epoch = MINTID_EPOCH_DEFAULT;
    if (epoch_o != Py_None) {
        /* Without a format, the epoch of whichever format the ID turns out
         * to be: a name any format knows ("discord"), as the command reads it. */
        const mintid_format *efmt = fmt;
        for (int i = 0; efmt == NULL && i < MINTID_FORMAT_COUNT; i++) {
            const mintid_format *f = mintid_format_get((mintid_format_id)i);
            const char *s = PyUnicode_Check(epoch_o) ? PyUnicode_AsUTF8(epoch_o) : NULL;
            if (s == NULL)
                PyErr_Clear();
            if (f->epoch_settable && (s == NULL || mintid_parse_epoch(f, s, &epoch) == MINTID_OK))
                efmt = f;
        }
        if (efmt == NULL)
            return raise_arg(ArgumentError,
                             "epoch %R is not a time: give Unix milliseconds, RFC 3339 UTC (2015-01-01T00:00:00Z) "
                             "or an epoch's name",
                             epoch_o);
        if (epoch_arg(efmt, epoch_o, &epoch) < 0)
            return NULL;
    }
    mintid_id id;
    char prefix[MINTID_PREFIX_MAX + 1];
    if (read_id(id_o, fmt, from, epoch, &fmt, &id, prefix) < 0)
        return NULL;
    char json[MINTID_JSON_MAX];
    int n = mintid_id_to_json_prefixed(fmt, &id, prefix, epoch, json, sizeof json);
    if (n < 0)
        return raise_status(fmt, n);
    return inspect_dict(fmt, json, n);
}

/* convert(id, to, format=None) */
static PyObject *mod_convert(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static char *kwlist[] = {KW("id"), KW("to"), KW("format"), KW("from_form"), NULL};
    PyObject *id_o, *to, *format = Py_None, *from_o = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O$O:convert", kwlist, &id_o, &to, &format, &from_o))
        return NULL;
    const mintid_format *fmt = NULL;
    if (format != Py_None && (fmt = format_arg(format, "format")) == NULL)
        return NULL;
    int from = from_form_arg(fmt, from_o);
    if (from == -2)
        return NULL;
    if (!PyUnicode_Check(to))
        return raise_arg(ArgumentTypeError, "to must be a form name (str), not %s", type_name(to));
    mintid_id id;
    char prefix[MINTID_PREFIX_MAX + 1];
    if (read_id(id_o, fmt, from, MINTID_EPOCH_DEFAULT, &fmt, &id, prefix) < 0)
        return NULL;
    int form = form_arg(fmt, to, "to");
    if (form < 0)
        return NULL;
    return id_object(fmt, form, &id, prefix);
}

/* range(format, start, end=None, *, epoch=None, form='text') */
static PyObject *mod_range(PyObject *m, PyObject *args, PyObject *kwargs) {
    (void)m;
    static char *kwlist[] = {KW("format"), KW("start"), KW("end"), KW("epoch"), KW("form"), NULL};
    PyObject *format, *start_o, *end_o = Py_None, *epoch_o = Py_None, *form_o = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|O$OO:range", kwlist, &format, &start_o, &end_o, &epoch_o,
                                     &form_o))
        return NULL;
    const mintid_format *fmt = format_arg(format, "format");
    if (fmt == NULL)
        return NULL;
    int64_t epoch, start, end;
    if (epoch_arg(fmt, epoch_o, &epoch) < 0 || datetime_ms(start_o, "start", &start) < 0)
        return NULL;
    if (end_o == Py_None)
        end = start;
    else if (datetime_ms(end_o, "end", &end) < 0)
        return NULL;
    if (end < start)
        return raise_arg(ArgumentError, "range: end %R is before start %R", end_o, start_o);
    int form = form_arg(fmt, form_o, "form");
    if (form < 0)
        return NULL;
    mintid_id lo, hi, unused;
    if (mintid_range(fmt, start, epoch, &lo, &unused) != MINTID_OK ||
        mintid_range(fmt, end, epoch, &unused, &hi) != MINTID_OK) {
        int64_t e = epoch != MINTID_EPOCH_DEFAULT && fmt->epoch_settable ? epoch : fmt->epoch_ms;
        int64_t unit = fmt->ts_unit_ms, last = (e / unit + (int64_t)mintid_format_max_timestamp(fmt)) * unit;
        char from_s[MINTID_TIME_MAX], to_s[MINTID_TIME_MAX];
        if (mintid_format_time(e, from_s, sizeof from_s) < 0)
            snprintf(from_s, sizeof from_s, "%" PRId64, e);
        if (mintid_format_time(last, to_s, sizeof to_s) < 0)
            snprintf(to_s, sizeof to_s, "after year 99999");
        return raise_arg(ArgumentError, "range: %s carries times from %s to %s only", fmt->name, from_s, to_s);
    }
    PyObject *a = id_object(fmt, form, &lo, NULL);
    PyObject *b = a != NULL ? id_object(fmt, form, &hi, NULL) : NULL;
    if (b == NULL) {
        Py_XDECREF(a);
        return NULL;
    }
    PyObject *t = PyTuple_Pack(2, a, b);
    Py_DECREF(a);
    Py_DECREF(b);
    return t;
}

/* A dict's item, or -1; the value's reference is taken. */
static int set_item(PyObject *d, const char *key, PyObject *value) {
    if (value == NULL)
        return -1;
    int rc = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return rc;
}

/* One format's entry of formats(). */
static PyObject *format_info(const mintid_format *fmt) {
    PyObject *d = PyDict_New(), *layout = NULL, *forms = NULL, *names = NULL;
    if (d == NULL)
        return NULL;
    if ((layout = PyList_New(0)) == NULL || (forms = PyList_New(0)) == NULL || (names = PyDict_New()) == NULL)
        goto fail;
    for (unsigned k = 0; k < fmt->nfields; k++) {
        PyObject *item = Py_BuildValue("(si)", fmt->fields[k].name, (int)fmt->fields[k].width);
        if (item == NULL || PyList_Append(layout, item) < 0) {
            Py_XDECREF(item);
            goto fail;
        }
        Py_DECREF(item);
    }
    static const char *const extra[] = {"int", "bytes"};
    for (int f = 0; f < MINTID_FORM_COUNT + 2; f++) {
        const char *name = f < MINTID_FORM_COUNT ? mintid_form_name((mintid_form)f) : extra[f - MINTID_FORM_COUNT];
        if (f < MINTID_FORM_COUNT && (!(fmt->forms & MINTID_FORM_BIT(f)) || f == MINTID_FORM_INT))
            continue;
        PyObject *item = PyUnicode_FromString(name);
        if (item == NULL || PyList_Append(forms, item) < 0) {
            Py_XDECREF(item);
            goto fail;
        }
        Py_DECREF(item);
    }
    for (const mintid_epoch_name *e = fmt->epoch_names; e != NULL && e->name != NULL; e++)
        if (set_item(names, e->name, PyLong_FromLongLong(e->unix_ms)) < 0)
            goto fail;
    int64_t unit = fmt->ts_unit_ms, ends = (fmt->epoch_ms / unit + (int64_t)mintid_format_max_timestamp(fmt)) * unit;
    if (set_item(d, "name", PyUnicode_FromString(fmt->name)) < 0 ||
        set_item(d, "title", PyUnicode_FromString(fmt->title)) < 0 ||
        set_item(d, "bits", PyLong_FromLong(fmt->bits)) < 0 || set_item(d, "layout", Py_NewRef(layout)) < 0 ||
        set_item(d, "forms", Py_NewRef(forms)) < 0 ||
        set_item(d, "capacity_per_ms", PyLong_FromUnsignedLong(fmt->capacity_per_ms)) < 0 ||
        set_item(d, "capacity_note", PyUnicode_FromString(fmt->capacity_note != NULL ? fmt->capacity_note : "")) < 0 ||
        set_item(d, "ts_unit_ms", PyLong_FromLong(fmt->ts_unit_ms)) < 0 ||
        set_item(d, "epoch_ms", PyLong_FromLongLong(fmt->epoch_ms)) < 0 ||
        set_item(d, "epoch", ms_datetime(fmt->epoch_ms)) < 0 ||
        set_item(d, "epoch_settable", PyBool_FromLong(fmt->epoch_settable)) < 0 ||
        set_item(d, "epoch_names", Py_NewRef(names)) < 0 || set_item(d, "ends_ms", PyLong_FromLongLong(ends)) < 0 ||
        set_item(d, "ends", ms_datetime(ends)) < 0 || set_item(d, "node_bits", PyLong_FromLong(fmt->node_bits)) < 0 ||
        set_item(d, "node_optional", PyBool_FromLong(fmt->node_optional)) < 0)
        goto fail;
    Py_DECREF(layout);
    Py_DECREF(forms);
    Py_DECREF(names);
    return d;
fail:
    Py_XDECREF(layout);
    Py_XDECREF(forms);
    Py_XDECREF(names);
    Py_DECREF(d);
    return NULL;
}

/* formats() */
static PyObject *mod_formats(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    PyObject *d = PyDict_New();
    if (d == NULL)
        return NULL;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        if (set_item(d, fmt->name, format_info(fmt)) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

/* ---- the module ------------------------------------------------------------------------------- */

static PyMethodDef mod_methods[] = {
    {"gen", (PyCFunction)(void (*)(void))mod_gen, METH_FASTCALL | METH_KEYWORDS,
     "gen(format, n=None, *, node=None, epoch=None, form='text')\n\n"
     "The next ID of the format from the host-wide generator (a str, an int for form='int', bytes for\n"
     "form='bytes'), or a list of the next n."},
    {"inspect", (PyCFunction)(void (*)(void))mod_inspect, METH_VARARGS | METH_KEYWORDS,
     "inspect(id, format=None, *, epoch=None, from_form=None) -> dict\n\n"
     "An ID (a text in any of its forms, its bytes or its int) taken apart: the fields of\n"
     "`mintid inspect`, with time as a datetime in UTC. The format is guessed from a text's shape\n"
     "when not given; from_form names the text's form when the format cannot tell it."},
    {"convert", (PyCFunction)(void (*)(void))mod_convert, METH_VARARGS | METH_KEYWORDS,
     "convert(id, to, format=None, *, from_form=None)\n\nThe ID in another form: a text form ('text', "
     "'hex', ...), 'int' or 'bytes'."},
    {"range", (PyCFunction)(void (*)(void))mod_range, METH_VARARGS | METH_KEYWORDS,
     "range(format, start, end=None, *, epoch=None, form='text') -> (lo, hi)\n\n"
     "The smallest ID of start's millisecond and the largest of end's (aware datetimes): every ID\n"
     "minted in [start, end] lies between them."},
    {"formats", mod_formats, METH_NOARGS,
     "formats() -> dict\n\nEvery format by name, in the library's order: its bit layout, forms, capacity,\n"
     "epoch and the time its timestamp runs out."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef mintid_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "mintid._mintid",
    .m_doc = "Unique, time-ordered identifiers (libmintid): see the mintid package.",
    .m_size = -1,
    .m_methods = mod_methods,
};

/* A new exception class mintid.<name>(bases), added to the module. */
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

PyMODINIT_FUNC PyInit__mintid(void);
PyMODINIT_FUNC PyInit__mintid(void) {
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == NULL)
        return NULL;
    PyObject *m = PyModule_Create(&mintid_module);
    if (m == NULL)
        return NULL;
    if ((Error = new_error(m, "Error", "A status of libmintid; .status is its code.", PyExc_Exception, NULL)) == NULL ||
        (InvalidID = new_error(m, "InvalidID", "A text, bytes or int that is not an ID (of the format given).", Error,
                               PyExc_ValueError)) == NULL ||
        (UnknownFormat = new_error(m, "UnknownFormat", "No format has that name.", Error, PyExc_ValueError)) == NULL ||
        (ClockError =
             new_error(m, "ClockError", "The clock is before the format's epoch or past its end, went back, or failed.",
                       Error, NULL)) == NULL ||
        (Exhausted = new_error(m, "Exhausted", "The millisecond's sequence is used up (overflow='fail').", Error,
                               NULL)) == NULL ||
        (Timeout = new_error(m, "Timeout",
                             "The wait limit was reached: the clock did not move on, or another process held the "
                             "host-wide state.",
                             Error, NULL)) == NULL ||
        (Forked = new_error(m, "Forked", "A Generator with shared=False used in a forked child.", Error, NULL)) ==
            NULL ||
        (HostError = new_error(m, "HostError",
                               "The host-wide state could not be opened or is damaged, or the host's mintidd does "
                               "not vouch for its node id now.",
                               Error, NULL)) == NULL ||
        (ArgumentError = new_error(m, "ArgumentError", "An argument's value is not one the call takes.", Error,
                                   PyExc_ValueError)) == NULL ||
        (ArgumentTypeError = new_error(m, "ArgumentTypeError", "An argument's type is not one the call takes.", Error,
                                       PyExc_TypeError)) == NULL)
        goto fail;
    if (PyType_Ready(&GenType) < 0 || PyModule_AddObjectRef(m, "Generator", (PyObject *)&GenType) < 0)
        goto fail;
    if (PyModule_AddStringConstant(m, "__version__", MINTID_VERSION_STRING) < 0)
        goto fail;
    PyObject *json = PyImport_ImportModule("json");
    if (json == NULL)
        goto fail;
    json_loads = PyObject_GetAttrString(json, "loads");
    Py_DECREF(json);
    if (json_loads == NULL)
        goto fail;
    unix_epoch = PyDateTimeAPI->DateTime_FromDateAndTime(1970, 1, 1, 0, 0, 0, 0, PyDateTime_TimeZone_UTC,
                                                         PyDateTimeAPI->DateTimeType);
    if (unix_epoch == NULL || (gen_cache = PyDict_New()) == NULL ||
        (format_names = PyTuple_New(MINTID_FORMAT_COUNT)) == NULL)
        goto fail;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        PyObject *name = PyUnicode_InternFromString(mintid_format_get((mintid_format_id)i)->name);
        if (name == NULL)
            goto fail;
        PyTuple_SET_ITEM(format_names, i, name);
    }
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
