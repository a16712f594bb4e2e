/* SPDX-License-Identifier: MIT */
/*
 * test_roundtrip.c - property tests of the pure core over many random values
 * and every edge value: for every format and every text form it has,
 *
 *   - encode then decode gives the same ID, in the form itself and through
 *     MINTID_FORM_ANY;
 *   - encoding is canonical: the texts a decoder also accepts (the other
 *     letter case where the form ignores case, leading zero digits where the
 *     text has no fixed width) decode to the same ID, whose encoding is the
 *     canonical text again, and the texts it must not accept are refused;
 *   - fixed-width and sortable forms sort (strcmp) exactly like the IDs
 *     (memcmp);
 *   - mintid_id_build() and mintid_id_parse() are inverse on parts within
 *     their fields, and parts outside them are refused;
 *   - values above a 64-bit format's limit are refused with
 *     MINTID_EOVERFLOW by the integer, hex and text decoders.
 *
 * The values come from a fixed-seed splitmix64 generator, so a failure
 * reproduces; the seed is printed, and another can be given as the only
 * argument: test_roundtrip [seed].
 */
#include "check.h"
#include "mintid.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SEED UINT64_C(0x6d696e7469642121) /* "mintid!!" */
#define RANDOM_VALUES 200000                      /* round-trip values, over all formats */
#define SORT_PAIRS 60000                          /* ordering pairs, over all formats */
#define BUILD_PARTS 60000                         /* random parts, over all formats */
#define OVERFLOW_VALUES 30000                     /* values above the limit, over all formats */
#define MAX_REPORTS 20

/* ---- randomness ------------------------------------------------------------- */

static uint64_t rng_state;

/* splitmix64: tiny, fast, and good enough to spread test values. */
static uint64_t next_u64(void) {
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static unsigned next_below(unsigned n) { return (unsigned)(next_u64() % n); }

/*
 * Uniform random values are almost all of full length; shifting some of them
 * right makes short texts (and small field values) as common as long ones.
 */
static uint64_t next_spread(void) {
    uint64_t v = next_u64();
    return next_below(4) == 0 ? v >> next_below(64) : v;
}

/* ---- what the format pages say, independently of the library ------------- */

/* The largest value a decoder of a 64-bit format accepts. */
static uint64_t spec_limit(mintid_format_id f) {
    switch (f) {
    case MINTID_UEXKY:
        return (UINT64_C(1) << 60) - 1;
    case MINTID_ULID_FLAKE:
    case MINTID_ULID_FLAKE_SCALABLE:
    case MINTID_NANOFLAKE:
    case MINTID_SNOWFLAKE:
    case MINTID_SONYFLAKE:
        return INT64_MAX;
    case MINTID_CALORIOSA:
    case MINTID_SCRU160:
    case MINTID_UUIDV7:
    case MINTID_ULID:
    case MINTID_SCRU128:
    case MINTID_KSUID:
    case MINTID_TYPEID:
    case MINTID_FORMAT_COUNT:
        break;
    }
    return UINT64_MAX;
}

/* Whether the form is the decimal integer (snowflake's and sonyflake's text is). */
static bool form_decimal(const mintid_format *fmt, mintid_form form) {
    return form == MINTID_FORM_INT || (form == MINTID_FORM_TEXT && strcmp(fmt->alphabet, "0123456789") == 0);
}

/* The digits of the forms whose text has no fixed width, lowest first, or NULL. */
static const char *unpadded_digits(const mintid_format *fmt, mintid_form form) {
    if (form_decimal(fmt, form))
        return "0123456789";
    if (form == MINTID_FORM_CORE)
        return "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    /* (A typeid's length varies with its prefix; its suffix is fixed.) */
    if (form == MINTID_FORM_TEXT && fmt->text_min_len != fmt->text_max_len && fmt->prefix_max == 0)
        return fmt->alphabet;
    return NULL;
}

/* Whether decoding form ignores letter case. */
static bool form_nocase(const mintid_format *fmt, mintid_form form) {
    return form == MINTID_FORM_HEX || form == MINTID_FORM_PADDED || form == MINTID_FORM_UUID ||
           (form == MINTID_FORM_TEXT && fmt->text_nocase);
}

/* ---- reporting ---------------------------------------------------------------- */

static int reports;

static void id_hex(const mintid_format *fmt, const mintid_id *id, char *buf) {
    static const char hex[] = "0123456789abcdef";
    for (unsigned i = 0; i < fmt->bits / 8u; i++) {
        buf[2 * i] = hex[id->bytes[i] >> 4];
        buf[2 * i + 1] = hex[id->bytes[i] & 15];
    }
    buf[fmt->bits / 4u] = '\0';
}

/* Counts a failed property and, for the first few, says which value broke it. */
static void fail(const char *file, int line, const char *what, const mintid_format *fmt, mintid_form form,
                 const mintid_id *id, const char *text) {
    char hex[2 * MINTID_ID_MAX_BYTES + 1];
    check_failures++;
    if (reports++ >= MAX_REPORTS)
        return;
    id_hex(fmt, id, hex);
    const char *form_name = mintid_form_name(form);
    fprintf(stderr, "%s:%d: %s: format %s, form %s, id %s, text \"%s\"\n", file, line, what, fmt->name,
            form_name != NULL ? form_name : "any", hex, text != NULL ? text : "");
}

#define PROP(cond, fmt, form, id, text)                                                                                \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            fail(__FILE__, __LINE__, #cond, fmt, form, id, text);                                                      \
    } while (0)

/* ---- IDs ---------------------------------------------------------------------- */

static bool has_form(const mintid_format *fmt, int form) { return (fmt->forms & MINTID_FORM_BIT(form)) != 0; }

static bool same_id(const mintid_id *a, const mintid_id *b) { return memcmp(a, b, sizeof *a) == 0; }

/* A random ID that the format's decoders accept. */
static mintid_id random_id(const mintid_format *fmt) {
    mintid_id id;
    if (fmt->bits == 64) {
        mintid_id_from_u64(&id, next_spread() & spec_limit(fmt->id));
        return id;
    }
    memset(&id, 0, sizeof id);
    for (unsigned i = 0; i < fmt->bits / 8u; i += 8) {
        uint64_t v = next_u64();
        for (unsigned j = 0; j < 8 && i + j < fmt->bits / 8u; j++, v >>= 8)
            id.bytes[i + j] = (uint8_t)v;
    }
    /* Some with leading zero bytes, as with the 64-bit values. */
    if (next_below(4) == 0)
        memset(id.bytes, 0, next_below(fmt->bits / 8u));
    return id;
}

/* Adds one to an ID as a big-endian number; false if it wrapped to zero. */
static bool id_increment(const mintid_format *fmt, mintid_id *id) {
    for (unsigned i = fmt->bits / 8u; i-- > 0;)
        if (++id->bytes[i] != 0)
            return true;
    return false;
}

/* ---- text variants ------------------------------------------------------------ */

static char swap_case(char c) {
    if (c >= 'a' && c <= 'z')
        return (char)(c - 'a' + 'A');
    if (c >= 'A' && c <= 'Z')
        return (char)(c - 'A' + 'a');
    return c;
}

static bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/*
 * Prepends zero digits to an unpadded text, up to max_len characters. For
 * uexky the digits sit behind the two rotated ones (the rotation moves the
 * last two digits to the front), so they go after those.
 */
static size_t pad_text(const mintid_format *fmt, mintid_form form, const char *text, size_t len, size_t max_len,
                       char zero, char *out) {
    size_t pad = max_len - len;
    size_t at = fmt->id == MINTID_UEXKY && form == MINTID_FORM_TEXT ? 2 : 0;
    memcpy(out, text, at);
    memset(out + at, zero, pad);
    memcpy(out + at + pad, text + at, len - at);
    out[max_len] = '\0';
    return max_len;
}

/* The longest text a decoder of an unpadded form accepts. */
static size_t max_unpadded_len(const mintid_format *fmt, mintid_form form) {
    return form_decimal(fmt, form) ? 20 : form == MINTID_FORM_CORE ? 11 : fmt->text_max_len;
}

/* The canonical text holds the format's digits, and a UUID string's hyphens in their places. */
static bool canonical_chars(const mintid_format *fmt, const char *text, size_t len) {
    bool uuid = fmt->text_min_len == 36 && fmt->text_max_len == 36;
    for (size_t i = 0; i < len; i++) {
        bool hyphen = uuid && (i == 8 || i == 13 || i == 18 || i == 23);
        if (hyphen ? text[i] != '-' : strchr(fmt->alphabet, text[i]) == NULL || text[i] == '\0')
            return false;
    }
    return true;
}

/* ---- the round trip and canonical encoding of one ID ------------------------- */

static void check_id(const mintid_format *fmt, const mintid_id *id) {
    char text[MINTID_TEXT_MAX], var[MINTID_TEXT_MAX + 24], again[MINTID_TEXT_MAX];
    bool valid = mintid_id_check(fmt, id) == MINTID_OK;
    unsigned any_forms = mintid_decode_any_forms(fmt);

    /* A format whose decoders refuse invalid IDs (uuidv7: another UUID
     * version) refuses them in every form, and says so. */
    if (!valid && mintid_encode(fmt, MINTID_FORM_TEXT, id, text, sizeof text) > 0 &&
        mintid_decode(fmt, MINTID_FORM_TEXT, text, strlen(text), &(mintid_id){{0}}, NULL) == MINTID_EINVALID) {
        for (int g = 0; g < MINTID_FORM_COUNT; g++) {
            int n = has_form(fmt, g) ? mintid_encode(fmt, (mintid_form)g, id, text, sizeof text) : 0;
            if (n > 0) {
                mintid_id back = *id;
                PROP(mintid_decode(fmt, (mintid_form)g, text, (size_t)n, &back, NULL) == MINTID_EINVALID &&
                         mintid_decode(fmt, MINTID_FORM_ANY, text, (size_t)n, &back, NULL) == MINTID_EINVALID &&
                         same_id(&back, id),
                     fmt, (mintid_form)g, id, text);
            }
        }
        return;
    }

    for (int g = 0; g < MINTID_FORM_COUNT; g++) {
        mintid_form form = (mintid_form)g;
        mintid_id back;
        if (!has_form(fmt, g)) {
            PROP(mintid_encode(fmt, form, id, text, sizeof text) == MINTID_EFORM, fmt, form, id, NULL);
            continue;
        }
        int n = mintid_encode(fmt, form, id, text, sizeof text);
        PROP(n > 0 && (size_t)n == strlen(text), fmt, form, id, NULL);
        if (n <= 0)
            continue;
        size_t len = (size_t)n;

        /* Encode, decode: the same ID, in this form and as the form MINTID_FORM_ANY picks. */
        memset(&back, 0xa5, sizeof back);
        PROP(mintid_decode(fmt, form, text, len, &back, NULL) == MINTID_OK && same_id(&back, id), fmt, form, id, text);
        if ((any_forms & MINTID_FORM_BIT(g)) != 0) {
            mintid_form got = MINTID_FORM_COUNT;
            mintid_id any, direct;
            int rc = mintid_decode(fmt, MINTID_FORM_ANY, text, len, &any, &got);
            PROP(rc == MINTID_OK, fmt, form, id, text);
            if (rc == MINTID_OK) {
                PROP((any_forms & MINTID_FORM_BIT(got)) != 0, fmt, form, id, text);
                PROP(got != form || same_id(&any, id), fmt, form, id, text);
                PROP(mintid_decode(fmt, got, text, len, &direct, NULL) == MINTID_OK && same_id(&direct, &any), fmt,
                     form, id, text);
            }
        }

        /* The canonical text: the format's own digits in their own case, of the promised length. */
        if (form == MINTID_FORM_TEXT) {
            PROP(canonical_chars(fmt, text, len), fmt, form, id, text);
            if (valid)
                PROP(len >= fmt->text_min_len && len <= fmt->text_max_len, fmt, form, id, text);
        }
        if (form == MINTID_FORM_HEX)
            PROP(len == fmt->bits / 4u && strspn(text, "0123456789abcdef") == len, fmt, form, id, text);

        /* The other letter case: the same ID where case is ignored, never the same where it counts. */
        bool letters = false;
        for (size_t i = 0; i < len; i++) {
            var[i] = swap_case(text[i]);
            letters |= is_letter(text[i]);
        }
        var[len] = '\0';
        if (letters && form_nocase(fmt, form)) {
            PROP(mintid_decode(fmt, form, var, len, &back, NULL) == MINTID_OK && same_id(&back, id), fmt, form, id,
                 var);
            /* And a random mixture of cases. */
            for (size_t i = 0; i < len; i++)
                var[i] = next_below(2) ? swap_case(text[i]) : text[i];
            PROP(mintid_decode(fmt, form, var, len, &back, NULL) == MINTID_OK && same_id(&back, id), fmt, form, id,
                 var);
        } else if (letters) {
            size_t i;
            do
                i = next_below((unsigned)len);
            while (!is_letter(text[i]));
            memcpy(var, text, len + 1);
            var[i] = swap_case(var[i]);
            mintid_id other = *id;
            int rc = mintid_decode(fmt, form, var, len, &other, NULL);
            PROP(rc != MINTID_OK || !same_id(&other, id), fmt, form, id, var);
        }

        /*
         * Leading zero digits: a padded text decodes to the same ID (uexky,
         * caloriosa, nanoflake's base36), except in the decimal form, which
         * never has a leading zero (mintid.h).
         */
        const char *digits = unpadded_digits(fmt, form);
        size_t max_len = max_unpadded_len(fmt, form);
        if (digits != NULL && len < max_len) {
            size_t plen =
                pad_text(fmt, form, text, len, len + 1 + next_below((unsigned)(max_len - len)), digits[0], var);
            int rc = mintid_decode(fmt, form, var, plen, &back, NULL);
            if (form_decimal(fmt, form)) {
                PROP(rc == MINTID_ECHAR, fmt, form, id, var);
            } else {
                PROP(rc == MINTID_OK && same_id(&back, id), fmt, form, id, var);
                PROP(mintid_encode(fmt, form, &back, again, sizeof again) == n && strcmp(again, text) == 0, fmt, form,
                     id, var);
            }
        }
        /* One digit too many is refused whatever it is. */
        if (digits != NULL) {
            pad_text(fmt, form, text, len, max_len, digits[0], var);
            var[max_len] = digits[0];
            var[max_len + 1] = '\0';
            PROP(mintid_decode(fmt, form, var, max_len + 1, &back, NULL) == MINTID_ELENGTH, fmt, form, id, var);
        }
    }

    /* nanoflake's padded form is its text form with the zeros kept. */
    if (fmt->id == MINTID_NANOFLAKE) {
        char padded[MINTID_TEXT_MAX];
        mintid_id back;
        int n = mintid_encode(fmt, MINTID_FORM_PADDED, id, padded, sizeof padded);
        PROP(n == 13 && mintid_encode(fmt, MINTID_FORM_TEXT, id, text, sizeof text) > 0, fmt, MINTID_FORM_PADDED, id,
             padded);
        size_t tlen = strlen(text);
        PROP(tlen <= 13 && strncmp(padded + 13 - tlen, text, tlen) == 0 && strspn(padded, "0") >= 13 - tlen, fmt,
             MINTID_FORM_PADDED, id, padded);
        PROP(mintid_decode(fmt, MINTID_FORM_TEXT, padded, 13, &back, NULL) == MINTID_OK && same_id(&back, id), fmt,
             MINTID_FORM_PADDED, id, padded);
    }
}

/* ---- edge values ---------------------------------------------------------------- */

static unsigned edge_count;

static void check_edge(const mintid_format *fmt, const mintid_id *id) {
    check_id(fmt, id);
    edge_count++;
}

/* 0, 1, max, max-1, and 2^k-1, 2^k, 2^k+1 for every k: every field boundary. */
static void check_edges(const mintid_format *fmt) {
    mintid_id id;
    if (fmt->bits == 64) {
        uint64_t max = spec_limit(fmt->id);
        uint64_t fixed[] = {0, 1, 2, max, max - 1, max >> 1, (max >> 1) + 1};
        for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
            mintid_id_from_u64(&id, fixed[i]);
            check_edge(fmt, &id);
        }
        for (unsigned k = 1; k < 64; k++) {
            uint64_t p = UINT64_C(1) << k;
            uint64_t near[] = {p - 1, p, p + 1};
            for (size_t i = 0; i < 3; i++) {
                if (near[i] > max)
                    continue;
                mintid_id_from_u64(&id, near[i]);
                check_edge(fmt, &id);
            }
        }
        /* Every field full, and every field at its lowest bit, with the rest zero. */
        for (unsigned i = 0; i < fmt->nfields; i++) {
            const mintid_field *f = &fmt->fields[i];
            unsigned shift = 64u - f->offset - f->width;
            uint64_t full = (f->width >= 64 ? UINT64_MAX : (UINT64_C(1) << f->width) - 1) << shift;
            uint64_t values[] = {full & max, (UINT64_C(1) << shift) & max, ~full & max};
            for (size_t j = 0; j < 3; j++) {
                mintid_id_from_u64(&id, values[j]);
                check_edge(fmt, &id);
            }
        }
        return;
    }
    unsigned nbytes = fmt->bits / 8u;
    memset(&id, 0, sizeof id);
    check_edge(fmt, &id);
    memset(id.bytes, 0xff, nbytes);
    check_edge(fmt, &id);
    id.bytes[nbytes - 1] = 0xfe;
    check_edge(fmt, &id);
    for (unsigned k = 0; k < fmt->bits; k++) {
        /* 2^k, 2^k - 1 and 2^k + 1 as big-endian numbers. */
        unsigned byte = nbytes - 1 - k / 8;
        memset(&id, 0, sizeof id);
        id.bytes[byte] = (uint8_t)(1u << (k % 8));
        check_edge(fmt, &id);
        id.bytes[nbytes - 1] |= 1;
        check_edge(fmt, &id);
        memset(&id, 0, sizeof id);
        memset(id.bytes + byte + 1, 0xff, nbytes - 1 - byte);
        id.bytes[byte] = (uint8_t)((1u << (k % 8)) - 1);
        check_edge(fmt, &id);
    }
}

/* ---- ordering -------------------------------------------------------------------- */

static int sign(int x) { return (x > 0) - (x < 0); }

/* A valid ID: caloriosa's device names start with the prefix bit (the others' constant bits are zero). */
static void make_valid(const mintid_format *fmt, mintid_id *id) {
    if (fmt->id == MINTID_CALORIOSA)
        id->bytes[0] |= 0x80;
}

/* A second ID close to a, in one of several ways, so that neighbours are compared too. */
static mintid_id near_id(const mintid_format *fmt, const mintid_id *a) {
    mintid_id b = *a;
    unsigned nbytes = fmt->bits / 8u;
    switch (next_below(4)) {
    case 0:
        return random_id(fmt);
    case 1:
        if (!id_increment(fmt, &b))
            b = *a;
        break;
    case 2: {
        unsigned bit = next_below(fmt->bits);
        b.bytes[bit / 8] ^= (uint8_t)(0x80u >> (bit % 8));
        break;
    }
    default: {
        unsigned from = next_below(nbytes);
        for (unsigned i = from; i < nbytes; i++)
            b.bytes[i] = (uint8_t)next_u64();
        break;
    }
    }
    if (fmt->bits == 64)
        mintid_id_from_u64(&b, mintid_id_to_u64(&b) & spec_limit(fmt->id));
    return b;
}

/* Whether a form's texts sort like the IDs: fixed-width forms, and the text form where the table says so. */
static bool form_sortable(const mintid_format *fmt, int form) {
    return form == MINTID_FORM_HEX || form == MINTID_FORM_PADDED || (form == MINTID_FORM_TEXT && fmt->text_sortable);
}

static void check_order(const mintid_format *fmt, unsigned pairs) {
    for (unsigned p = 0; p < pairs; p++) {
        mintid_id a = random_id(fmt);
        mintid_id b = near_id(fmt, &a);
        make_valid(fmt, &a);
        make_valid(fmt, &b);
        int want = sign(mintid_id_compare(fmt, &a, &b));
        PROP(want == sign(memcmp(a.bytes, b.bytes, fmt->bits / 8u)), fmt, MINTID_FORM_ANY, &a, NULL);
        for (int g = 0; g < MINTID_FORM_COUNT; g++) {
            char ta[MINTID_TEXT_MAX], tb[MINTID_TEXT_MAX];
            if (!has_form(fmt, g) || !form_sortable(fmt, g))
                continue;
            if (mintid_encode(fmt, (mintid_form)g, &a, ta, sizeof ta) <= 0 ||
                mintid_encode(fmt, (mintid_form)g, &b, tb, sizeof tb) <= 0) {
                PROP(false, fmt, (mintid_form)g, &a, NULL);
                continue;
            }
            PROP(sign(strcmp(ta, tb)) == want, fmt, (mintid_form)g, &a, tb);
        }
    }
}

/* ---- build and parse ------------------------------------------------------------- */

static uint64_t field_mask(const mintid_field *f) {
    return f->width >= 64 ? UINT64_MAX : (UINT64_C(1) << f->width) - 1;
}

static uint64_t *parts_slot(mintid_parts *p, uint8_t role) {
    switch ((mintid_role)role) {
    case MINTID_ROLE_TIMESTAMP:
        return &p->timestamp;
    case MINTID_ROLE_SEQUENCE:
        return &p->sequence;
    case MINTID_ROLE_NODE:
        return &p->node;
    case MINTID_ROLE_RANDOM:
        return &p->random;
    case MINTID_ROLE_RANDOM80:
    case MINTID_ROLE_CONSTANT:
    case MINTID_ROLE_DATA:
    case MINTID_ROLE_VIEW:
        break;
    }
    return NULL;
}

static void check_build(const mintid_format *fmt, unsigned count) {
    for (unsigned c = 0; c < count; c++) {
        mintid_parts parts, back;
        mintid_id id;
        memset(&parts, 0, sizeof parts);
        memset(&id, 0, sizeof id);
        const mintid_field *widened = NULL;
        for (unsigned i = 0; i < fmt->nfields; i++) {
            const mintid_field *f = &fmt->fields[i];
            uint64_t *slot = parts_slot(&parts, f->role);
            if (f->role == MINTID_ROLE_RANDOM80) {
                for (size_t j = 0; j < sizeof parts.random80; j++)
                    parts.random80[j] = (uint8_t)next_u64();
            } else if (slot != NULL) {
                *slot = next_spread() & field_mask(f);
                if (f->width < 64 && widened == NULL && next_below(8) == 0)
                    widened = f;
            }
        }

        int rc = mintid_id_build(fmt, &parts, &id);
        PROP(rc == MINTID_OK, fmt, MINTID_FORM_ANY, &id, NULL);
        if (rc != MINTID_OK)
            continue;
        mintid_id_parse(fmt, &id, &back);
        PROP(memcmp(&back, &parts, sizeof back) == 0, fmt, MINTID_FORM_ANY, &id, NULL);
        /* Epoch 0 where it is settable; a fixed epoch is the format's own whatever is passed. */
        int64_t epoch = fmt->epoch_settable ? 0 : fmt->epoch_ms;
        PROP(mintid_id_unix_ms(fmt, &id, 0) == (epoch / fmt->ts_unit_ms + (int64_t)parts.timestamp) * fmt->ts_unit_ms,
             fmt, MINTID_FORM_ANY, &id, NULL);
        check_id(fmt, &id);

        /* One bit above one field's width, or a part the format does not use, is refused. */
        if (widened != NULL) {
            mintid_id untouched = id;
            *parts_slot(&parts, widened->role) |= UINT64_C(1) << (widened->width + next_below(64u - widened->width));
            PROP(mintid_id_build(fmt, &parts, &id) == MINTID_ERANGE, fmt, MINTID_FORM_ANY, &untouched, NULL);
        } else if (mintid_format_field(fmt, MINTID_ROLE_NODE) == NULL) {
            mintid_id untouched = id;
            parts.node = 1 + next_below(1000);
            PROP(mintid_id_build(fmt, &parts, &id) == MINTID_ERANGE, fmt, MINTID_FORM_ANY, &untouched, NULL);
        }
    }
}

/* ---- values over the limit ------------------------------------------------------- */

/* Base-N digits of v, zero-padded to width; the library's encoders are not asked. */
static void to_base(uint64_t v, const char *digits, unsigned base, unsigned width, char *out) {
    for (unsigned i = width; i-- > 0; v /= base)
        out[i] = digits[v % base];
    out[width] = '\0';
}

static void check_overflow_text(const mintid_format *fmt, mintid_form form, const char *text, uint64_t v) {
    mintid_id id, untouched;
    mintid_id_from_u64(&id, v);
    memset(&untouched, 0x5a, sizeof untouched);
    mintid_id out = untouched;
    PROP(mintid_decode(fmt, form, text, strlen(text), &out, NULL) == MINTID_EOVERFLOW, fmt, form, &id, text);
    PROP(same_id(&out, &untouched), fmt, form, &id, text);
}

static void check_overflow(const mintid_format *fmt, unsigned count) {
    uint64_t limit = spec_limit(fmt->id);
    CHECK_U64(fmt->value_max, limit);
    char text[64];

    /* Decimals beyond 2^64-1 overflow in every 64-bit format. */
    static const char *const too_big[] = {"18446744073709551616", "18446744073709551617", "99999999999999999999"};
    mintid_id max;
    mintid_id_from_u64(&max, UINT64_MAX);
    for (size_t i = 0; i < sizeof too_big / sizeof too_big[0]; i++)
        check_overflow_text(fmt, MINTID_FORM_INT, too_big[i], UINT64_MAX);
    /* So do base62 texts beyond 2^64-1: caloriosa's 2^64 is lYGhA16ahyg. */
    if (fmt->id == MINTID_CALORIOSA) {
        static const char b62[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        mintid_id back;
        check_overflow_text(fmt, MINTID_FORM_TEXT, "lYGhA16ahyg", UINT64_MAX);
        check_overflow_text(fmt, MINTID_FORM_TEXT, "ZZZZZZZZZZZ", UINT64_MAX);
        PROP(mintid_decode(fmt, MINTID_FORM_TEXT, "lYGhA16ahyf", 11, &back, NULL) == MINTID_OK && same_id(&back, &max),
             fmt, MINTID_FORM_TEXT, &max, "lYGhA16ahyf");
        for (unsigned c = 0; c < count; c++) {
            /* 2^64 / 62^10 is 21.98, so any first digit above 21 ('l') overflows. */
            text[0] = b62[22 + next_below(40)];
            for (int i = 1; i < 11; i++)
                text[i] = b62[next_below(62)];
            text[11] = '\0';
            check_overflow_text(fmt, MINTID_FORM_TEXT, text, UINT64_MAX);
        }
    }
    if (limit == UINT64_MAX)
        return;

    for (unsigned c = 0; c < count; c++) {
        /* Just above the limit, at the top, or anywhere between. */
        uint64_t v = c == 0 ? limit + 1 : c == 1 ? UINT64_MAX : limit + 1 + next_u64() % (UINT64_MAX - limit);
        snprintf(text, sizeof text, "%" PRIu64, v);
        check_overflow_text(fmt, MINTID_FORM_INT, text, v);
        snprintf(text, sizeof text, "%016" PRIx64, v);
        check_overflow_text(fmt, MINTID_FORM_HEX, text, v);
        /* The text forms that can spell such a value at all. */
        if (fmt->id == MINTID_ULID_FLAKE || fmt->id == MINTID_ULID_FLAKE_SCALABLE) {
            to_base(v, fmt->alphabet, 32, 13, text);
            check_overflow_text(fmt, MINTID_FORM_TEXT, text, v);
        } else if (fmt->id == MINTID_NANOFLAKE) {
            to_base(v, fmt->alphabet, 36, 13, text);
            check_overflow_text(fmt, MINTID_FORM_TEXT, text, v);
            check_overflow_text(fmt, MINTID_FORM_PADDED, text, v);
        }
    }
}

/* ---- main -------------------------------------------------------------------------- */

static bool parse_seed(const char *s, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno != 0 || end == s || *end != '\0' || s[0] == '-')
        return false;
    *out = (uint64_t)v;
    return true;
}

int main(int argc, char **argv) {
    uint64_t seed = DEFAULT_SEED;
    if (argc > 2 || (argc == 2 && !parse_seed(argv[1], &seed))) {
        fprintf(stderr, "usage: test_roundtrip [seed]\n");
        return 2;
    }
    printf("test_roundtrip: seed 0x%016" PRIx64 " (rerun with: test_roundtrip 0x%016" PRIx64 ")\n", seed, seed);
    rng_state = seed;

    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)f);
        CHECK(fmt != NULL);
        if (fmt == NULL)
            continue;
        int before = check_failures;
        check_edges(fmt);
        for (unsigned i = 0; i < RANDOM_VALUES / MINTID_FORMAT_COUNT; i++) {
            mintid_id id = random_id(fmt);
            /* Half of them valid, whose canonical text has the promised length. */
            if (next_below(2) == 0)
                make_valid(fmt, &id);
            check_id(fmt, &id);
        }
        check_order(fmt, SORT_PAIRS / MINTID_FORMAT_COUNT);
        check_build(fmt, BUILD_PARTS / MINTID_FORMAT_COUNT);
        if (fmt->bits == 64)
            check_overflow(fmt, OVERFLOW_VALUES / MINTID_FORMAT_COUNT);
        printf("  %-20s %s\n", fmt->name, check_failures == before ? "ok" : "FAILED");
    }
    printf("  %u edge values\n", edge_count);
    if (reports > MAX_REPORTS)
        fprintf(stderr, "(%d more failures not shown)\n", reports - MAX_REPORTS);
    return CHECK_DONE();
}
