/* SPDX-License-Identifier: MIT */
/*
 * format.c - the format table and everything the formats share: packing
 * fields into IDs by their bit layout, dispatching to text forms, guessing a
 * format from a text's shape, and the common sequence rules.
 */
#include "internal.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

/* One entry per line reads better here than packed. */
/* clang-format off */
static const mintid__format_impl *const formats[MINTID_FORMAT_COUNT] = {
    [MINTID_UEXKY] = &mintid__uexky,
    [MINTID_SCRU160] = &mintid__scru160,
    [MINTID_ULID_FLAKE] = &mintid__ulid_flake,
    [MINTID_ULID_FLAKE_SCALABLE] = &mintid__ulid_flake_scalable,
    [MINTID_CALORIOSA] = &mintid__caloriosa,
    [MINTID_NANOFLAKE] = &mintid__nanoflake,
    [MINTID_UUIDV7] = &mintid__uuidv7,
    [MINTID_ULID] = &mintid__ulid,
    [MINTID_SCRU128] = &mintid__scru128,
    [MINTID_SNOWFLAKE] = &mintid__snowflake,
    [MINTID_SONYFLAKE] = &mintid__sonyflake,
    [MINTID_KSUID] = &mintid__ksuid,
    [MINTID_TYPEID] = &mintid__typeid,
};

static const char *const form_names[MINTID_FORM_COUNT] = {
    [MINTID_FORM_TEXT] = "text",
    [MINTID_FORM_INT] = "int",
    [MINTID_FORM_HEX] = "hex",
    [MINTID_FORM_PADDED] = "padded",
    [MINTID_FORM_CORE] = "core",
    [MINTID_FORM_UUID] = "uuid",
};
/* clang-format on */

const mintid_format *mintid_format_get(mintid_format_id id) {
    if ((unsigned)id >= MINTID_FORMAT_COUNT)
        return NULL;
    return &formats[id]->pub;
}

const mintid_format *mintid_format_find(const char *name) {
    if (name == NULL)
        return NULL;
    for (unsigned i = 0; i < MINTID_FORMAT_COUNT; i++)
        if (formats[i]->pub.name[0] == name[0] && strcmp(formats[i]->pub.name, name) == 0)
            return &formats[i]->pub;
    return NULL;
}

int mintid_format_names(char *buf, size_t cap) {
    size_t n = 0;
    for (unsigned i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const char *name = formats[i]->pub.name;
        size_t len = strlen(name), sep = i > 0 ? 2 : 0;
        if (n + sep + len + 1 > cap)
            return MINTID_EBUFSIZE;
        memcpy(buf + n, ", ", sep);
        memcpy(buf + n + sep, name, len);
        n += sep + len;
    }
    if (cap == 0)
        return MINTID_EBUFSIZE;
    buf[n] = '\0';
    return (int)n;
}

const mintid_field *mintid_format_field(const mintid_format *fmt, mintid_role role) {
    for (unsigned i = 0; i < fmt->nfields; i++)
        if (fmt->fields[i].role == role)
            return &fmt->fields[i];
    return NULL;
}

const char *mintid_form_name(mintid_form form) {
    if ((unsigned)form >= MINTID_FORM_COUNT)
        return NULL;
    return form_names[form];
}

int mintid_form_find(const char *name) {
    for (int i = 0; i < MINTID_FORM_COUNT; i++)
        if (name != NULL && strcmp(form_names[i], name) == 0)
            return i;
    return -2;
}

uint64_t mintid_format_max_timestamp(const mintid_format *fmt) {
    const mintid_field *f = mintid_format_field(fmt, MINTID_ROLE_TIMESTAMP);
    return f->width >= 64 ? UINT64_MAX : (UINT64_C(1) << f->width) - 1;
}

/* ---- IDs and their fields ------------------------------------------------ */

void mintid_id_from_u64(mintid_id *id, uint64_t value) {
    mintid__put_be(id->bytes, 8, value);
    memset(id->bytes + 8, 0, sizeof id->bytes - 8);
}

uint64_t mintid_id_to_u64(const mintid_id *id) { return mintid__get_be(id->bytes, 8); }

int mintid_id_compare(const mintid_format *fmt, const mintid_id *a, const mintid_id *b) {
    return memcmp(a->bytes, b->bytes, fmt->bits / 8u);
}

static uint64_t field_mask(const mintid_field *f) {
    return f->width >= 64 ? UINT64_MAX : (UINT64_C(1) << f->width) - 1;
}

/* Where a role's value lives in mintid_parts; SIZE_MAX for constant and 80-bit fields. */
static size_t slot_offset(mintid_role role) {
    switch (role) {
    case MINTID_ROLE_TIMESTAMP:
        return offsetof(mintid_parts, timestamp);
    case MINTID_ROLE_SEQUENCE:
        return offsetof(mintid_parts, sequence);
    case MINTID_ROLE_NODE:
        return offsetof(mintid_parts, node);
    case MINTID_ROLE_RANDOM:
        return offsetof(mintid_parts, random);
    case MINTID_ROLE_RANDOM80:
    case MINTID_ROLE_CONSTANT:
    case MINTID_ROLE_DATA:
    case MINTID_ROLE_VIEW:
        return SIZE_MAX;
    }
    return SIZE_MAX;
}

static uint64_t *slot_of(mintid_parts *p, mintid_role role) {
    size_t off = slot_offset(role);
    return off == SIZE_MAX ? NULL : (uint64_t *)(void *)((char *)p + off);
}

/* A field's value in parts: its slot, the constant it always holds, or 0 (data bits). */
static uint64_t value_of(const mintid_parts *p, const mintid_field *f) {
    size_t off = slot_offset((mintid_role)f->role);
    uint64_t v = f->constant;
    if (off != SIZE_MAX)
        memcpy(&v, (const char *)p + off, sizeof v);
    return v;
}

/*
 * Bit access in a big-endian byte string. Every layout here puts fields that
 * are wider than a byte on byte boundaries when the ID is wider than 64
 * bits, but the bitwise path keeps any layout correct.
 */
static void put_bits(uint8_t *b, unsigned off, unsigned width, uint64_t v) {
    if (off % 8 == 0 && width % 8 == 0) {
        for (unsigned i = width / 8; i-- > 0; v >>= 8)
            b[off / 8 + i] = (uint8_t)v;
        return;
    }
    for (unsigned i = 0; i < width; i++) {
        unsigned bit = off + i;
        uint8_t m = (uint8_t)(0x80u >> (bit & 7));
        if ((v >> (width - 1 - i)) & 1)
            b[bit >> 3] |= m;
        else
            b[bit >> 3] &= (uint8_t)~m;
    }
}

uint64_t mintid__get_bits(const uint8_t *b, unsigned off, unsigned width) {
    uint64_t v = 0;
    if (off % 8 == 0 && width % 8 == 0) {
        for (unsigned i = 0; i < width / 8; i++)
            v = v << 8 | b[off / 8 + i];
        return v;
    }
    for (unsigned i = 0; i < width; i++) {
        unsigned bit = off + i;
        v = v << 1 | ((b[bit >> 3] >> (7 - (bit & 7))) & 1u);
    }
    return v;
}

void mintid__get_wide(const uint8_t *b, unsigned off, unsigned width, uint8_t *out, size_t nbytes) {
    memset(out, 0, nbytes);
    unsigned base = (unsigned)nbytes * 8 - width; /* where the field's first bit lands in out */
    for (unsigned i = 0; i < width; i++) {
        unsigned bit = off + i, pos = base + i;
        if ((b[bit >> 3] >> (7 - (bit & 7))) & 1u)
            out[pos >> 3] |= (uint8_t)(0x80u >> (pos & 7));
    }
}

int mintid_range(const mintid_format *fmt, int64_t unix_ms, int64_t epoch_ms, mintid_id *min, mintid_id *max) {
    if (!fmt->epoch_settable || epoch_ms == MINTID_EPOCH_DEFAULT)
        epoch_ms = fmt->epoch_ms;
    if (epoch_ms < 0)
        return MINTID_EINVAL;
    /* The unit that holds unix_ms: every millisecond of it has the same
     * range (floored apart, so no subtraction can overflow). */
    int64_t ts = mintid__floor_div(unix_ms, fmt->ts_unit_ms);
    int64_t epoch_units = mintid__floor_div(epoch_ms, fmt->ts_unit_ms);
    if (ts < epoch_units || (uint64_t)(ts - epoch_units) > mintid_format_max_timestamp(fmt))
        return MINTID_ETIME;
    ts -= epoch_units;
    /* Every field at its smallest, and at its largest, but the timestamp
     * and the constant bits, which every ID of the millisecond shares. */
    memset(min, 0, sizeof *min);
    memset(max, 0, sizeof *max);
    memset(max->bytes, 0xff, fmt->bits / 8u);
    for (unsigned i = 0; i < fmt->nfields; i++) {
        const mintid_field *f = &fmt->fields[i];
        uint64_t v = f->role == MINTID_ROLE_TIMESTAMP ? (uint64_t)ts : f->constant;
        if (f->role == MINTID_ROLE_TIMESTAMP || f->role == MINTID_ROLE_CONSTANT) {
            put_bits(min->bytes, f->offset, f->width, v);
            put_bits(max->bytes, f->offset, f->width, v);
        }
    }
    return MINTID_OK;
}

/* Views repeat bits of another field; data bits are 0 when built from parts. */
static bool packed(const mintid_field *f) { return f->role != MINTID_ROLE_VIEW && f->role != MINTID_ROLE_DATA; }

void mintid__pack(const mintid_format *fmt, const mintid_parts *parts, mintid_id *out) {
    if (fmt->bits == 64) {
        mintid_id_from_u64(out, mintid__pack_u64(fmt, parts));
        return;
    }
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < fmt->nfields; i++) {
        const mintid_field *f = &fmt->fields[i];
        if (f->role == MINTID_ROLE_RANDOM80)
            memcpy(out->bytes + f->offset / 8u, parts->random80, sizeof parts->random80);
        else if (packed(f))
            put_bits(out->bytes, f->offset, f->width, value_of(parts, f));
    }
}

int mintid_id_build(const mintid_format *fmt, const mintid_parts *parts, mintid_id *out) {
    static const uint8_t zero80[10];
    for (unsigned r = MINTID_ROLE_TIMESTAMP; r <= MINTID_ROLE_RANDOM; r++) {
        const mintid_field probe = {.role = (uint8_t)r};
        uint64_t v = value_of(parts, &probe);
        const mintid_field *f = mintid_format_field(fmt, (mintid_role)r);
        if (f != NULL && f->width > 64)
            f = NULL; /* wide fields take no value from parts */
        if (f == NULL ? v != 0 : (v & ~field_mask(f)) != 0)
            return MINTID_ERANGE;
    }
    if (mintid_format_field(fmt, MINTID_ROLE_RANDOM80) == NULL && memcmp(parts->random80, zero80, sizeof zero80) != 0)
        return MINTID_ERANGE;
    mintid__pack(fmt, parts, out);
    return MINTID_OK;
}

void mintid_id_parse(const mintid_format *fmt, const mintid_id *id, mintid_parts *out) {
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < fmt->nfields; i++) {
        const mintid_field *f = &fmt->fields[i];
        if (f->role == MINTID_ROLE_RANDOM80) {
            memcpy(out->random80, id->bytes + f->offset / 8u, sizeof out->random80);
            continue;
        }
        uint64_t *slot = slot_of(out, (mintid_role)f->role);
        if (slot != NULL && f->width <= 64)
            *slot = mintid__get_bits(id->bytes, f->offset, f->width);
    }
}

int mintid_id_check(const mintid_format *fmt, const mintid_id *id) {
    for (unsigned i = 0; i < fmt->nfields && !mintid__impl(fmt)->constants_advisory; i++) {
        const mintid_field *f = &fmt->fields[i];
        if (f->role == MINTID_ROLE_CONSTANT && mintid__get_bits(id->bytes, f->offset, f->width) != f->constant)
            return MINTID_EINVALID;
    }
    const mintid__format_impl *impl = mintid__impl(fmt);
    return impl->check != NULL ? impl->check(fmt, id) : MINTID_OK;
}

int64_t mintid_id_unix_ms(const mintid_format *fmt, const mintid_id *id, int64_t epoch_ms) {
    if (!fmt->epoch_settable || epoch_ms == MINTID_EPOCH_DEFAULT)
        epoch_ms = fmt->epoch_ms;
    const mintid_field *f = mintid_format_field(fmt, MINTID_ROLE_TIMESTAMP);
    int64_t ts = (int64_t)mintid__get_bits(id->bytes, f->offset, f->width), ms;
    /* Saturated rather than overflowed for an epoch near the end of time. */
    if (__builtin_add_overflow(mintid__floor_div(epoch_ms, fmt->ts_unit_ms), ts, &ms) ||
        __builtin_mul_overflow(ms, (int64_t)fmt->ts_unit_ms, &ms))
        return INT64_MAX;
    return ms;
}

/* ---- text forms ------------------------------------------------------------ */

int mintid_encode(const mintid_format *fmt, mintid_form form, const mintid_id *id, char *buf, size_t cap) {
    if ((unsigned)form >= MINTID_FORM_COUNT || mintid__impl(fmt)->codecs[form] == NULL)
        return MINTID_EFORM;
    return mintid__impl(fmt)->codecs[form]->encode(fmt, id, buf, cap);
}

int mintid_prefix_check(const mintid_format *fmt, const char *prefix, size_t len) {
    if (len == 0)
        return MINTID_OK;
    const mintid__format_impl *impl = mintid__impl(fmt);
    if (len > fmt->prefix_max || impl->prefix_check == NULL)
        return MINTID_EPREFIX;
    return impl->prefix_check(prefix, len);
}

int mintid_encode_prefixed(const mintid_format *fmt, mintid_form form, const mintid_id *id, const char *prefix,
                           char *buf, size_t cap) {
    size_t plen = prefix != NULL ? strlen(prefix) : 0;
    if (plen == 0)
        return mintid_encode(fmt, form, id, buf, cap);
    if (form != MINTID_FORM_TEXT || mintid_prefix_check(fmt, prefix, plen) != MINTID_OK)
        return MINTID_EPREFIX;
    if (cap < plen + 2)
        return MINTID_EBUFSIZE;
    int rc = mintid_encode(fmt, form, id, buf + plen + 1, cap - plen - 1);
    if (rc < 0)
        return rc;
    memcpy(buf, prefix, plen);
    buf[plen] = mintid__impl(fmt)->prefix_sep;
    return (int)plen + 1 + rc;
}

static int decode_bare(const mintid_format *fmt, mintid_form form, const char *text, size_t len, mintid_id *out,
                       mintid_form *form_out);
static int decode_forms(const mintid_format *fmt, mintid_form form, const char *text, size_t len, mintid_id *out,
                        mintid_form *form_out);

int mintid_decode_prefixed(const mintid_format *fmt, mintid_form form, const char *text, size_t len, mintid_id *out,
                           mintid_form *form_out, char prefix_out[MINTID_PREFIX_MAX + 1]) {
    const mintid__format_impl *impl = mintid__impl(fmt);
    const char *sep = fmt->prefix_max > 0 && len > 0 && (form == MINTID_FORM_TEXT || form == MINTID_FORM_ANY)
                          ? memrchr(text, impl->prefix_sep, len)
                          : NULL;
    if (sep == NULL) {
        int rc = decode_bare(fmt, form, text, len, out, form_out);
        if (rc == MINTID_OK && prefix_out != NULL)
            prefix_out[0] = '\0';
        return rc;
    }
    /* A prefixed text is always the text form: the prefix, its separator, the suffix. */
    size_t plen = (size_t)(sep - text);
    if (plen == 0 || mintid_prefix_check(fmt, text, plen) != MINTID_OK)
        return MINTID_EPREFIX;
    int rc = decode_bare(fmt, MINTID_FORM_TEXT, sep + 1, len - plen - 1, out, form_out);
    if (rc == MINTID_OK && prefix_out != NULL) {
        memcpy(prefix_out, text, plen);
        prefix_out[plen] = '\0';
    }
    return rc;
}

int mintid_decode(const mintid_format *fmt, mintid_form form, const char *text, size_t len, mintid_id *out,
                  mintid_form *form_out) {
    return mintid_decode_prefixed(fmt, form, text, len, out, form_out, NULL);
}

static int decode_bare(const mintid_format *fmt, mintid_form form, const char *text, size_t len, mintid_id *out,
                       mintid_form *form_out) {
    const mintid__format_impl *impl = mintid__impl(fmt);
    if (impl->decode_checks) {
        mintid_id id;
        mintid_form got;
        int rc = decode_forms(fmt, form, text, len, &id, &got);
        if (rc == MINTID_OK && mintid_id_check(fmt, &id) != MINTID_OK)
            rc = MINTID_EINVALID;
        if (rc == MINTID_OK) {
            *out = id;
            if (form_out != NULL)
                *form_out = got;
        }
        return rc;
    }
    return decode_forms(fmt, form, text, len, out, form_out);
}

/* Decodes in one form, or in the first that fits. */
static int decode_forms(const mintid_format *fmt, mintid_form form, const char *text, size_t len, mintid_id *out,
                        mintid_form *form_out) {
    const mintid__format_impl *impl = mintid__impl(fmt);
    if (form != MINTID_FORM_ANY) {
        if ((unsigned)form >= MINTID_FORM_COUNT || impl->codecs[form] == NULL)
            return MINTID_EFORM;
        int rc = impl->codecs[form]->decode(fmt, text, len, out);
        if (rc == MINTID_OK && form_out != NULL)
            *form_out = form;
        return rc;
    }
    /*
     * Forms are tried in the format's order. The first one whose length and
     * alphabet both fit the text decides, so a text that has the shape of
     * the canonical form but overflows it is an overflow, never quietly
     * read as some other form. When no form fits, the canonical text form's
     * error describes the mistake, unless the text has the length of another
     * fixed-alphabet form (scru160's 40 hex digits) and a bad character
     * there. The decimal form is no such evidence: any run of characters
     * short enough has its length.
     */
    int rc_text = MINTID_EFORM, rc_other = MINTID_EFORM;
    for (const mintid_form *f = impl->any_order; *f != MINTID_FORM_ANY; f++) {
        int rc = impl->codecs[*f]->decode(fmt, text, len, out);
        if (rc == MINTID_OK) {
            if (form_out != NULL)
                *form_out = *f;
            return MINTID_OK;
        }
        if (rc != MINTID_ELENGTH && rc != MINTID_ECHAR)
            return rc;
        if (*f == MINTID_FORM_TEXT)
            rc_text = rc;
        else if (*f != MINTID_FORM_INT && rc == MINTID_ECHAR)
            rc_other = rc;
    }
    return rc_text == MINTID_ELENGTH && rc_other == MINTID_ECHAR ? rc_other : rc_text;
}

unsigned mintid_decode_any_forms(const mintid_format *fmt) {
    unsigned bits = 0;
    for (const mintid_form *f = mintid__impl(fmt)->any_order; *f != MINTID_FORM_ANY; f++)
        bits |= MINTID_FORM_BIT(*f);
    return bits;
}

/*
 * Every format whose canonical encodings include `text`: a bit per format
 * id, with the ID and form found for each.
 */
/*
 * Whether a text is the canonical one: exactly, or wholly in the other
 * letter case (a lower-case ULID, an upper-case UUID), which a decoder that
 * ignores case reads as the same ID. A text of mixed case is no format's;
 * nor is a short one of a form whose length varies (nanoflake's "AABA"),
 * which case folding would let match far too much.
 */
static bool same_spelling(const char *canonical, const char *text, size_t len, bool one_case) {
    return memcmp(canonical, text, len) == 0 || (one_case && strncasecmp(canonical, text, len) == 0);
}

static unsigned guess_all(const char *text, size_t len, mintid_id ids[MINTID_FORMAT_COUNT],
                          mintid_form forms[MINTID_FORMAT_COUNT]) {
    bool upper = false, lower = false;
    for (size_t i = 0; i < len; i++) {
        upper |= text[i] >= 'A' && text[i] <= 'Z';
        lower |= text[i] >= 'a' && text[i] <= 'z';
    }
    bool one_case = !(upper && lower);
    unsigned found = 0;
    char buf[MINTID_TEXT_MAX], prefix[MINTID_PREFIX_MAX + 1];
    for (unsigned i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid__format_impl *impl = formats[i];
        /* Within one format the any-order decides between forms, as decode does. */
        for (const mintid_form *f = impl->any_order; *f != MINTID_FORM_ANY; f++) {
            mintid_id id;
            if (!(impl->guess_forms & MINTID_FORM_BIT(*f)))
                continue;
            if (mintid_decode_prefixed(&impl->pub, *f, text, len, &id, NULL, prefix) != MINTID_OK)
                continue;
            int n = mintid_encode_prefixed(&impl->pub, *f, &id, prefix, buf, sizeof buf);
            bool fixed =
                *f != MINTID_FORM_TEXT || impl->pub.text_min_len == impl->pub.text_max_len || impl->pub.prefix_max > 0;
            if (n < 0 || (size_t)n != len || !same_spelling(buf, text, len, one_case && fixed))
                continue;
            if (mintid_id_check(&impl->pub, &id) != MINTID_OK)
                continue;
            ids[i] = id;
            forms[i] = *f;
            found |= 1u << i;
            break;
        }
    }
    return found;
}

static int guess_result(unsigned found, const mintid_id *ids, const mintid_form *forms, const mintid_format **fmt_out,
                        mintid_id *id_out, mintid_form *form_out) {
    if (found == 0)
        return MINTID_EINVALID;
    if ((found & (found - 1)) != 0)
        return MINTID_EAMBIGUOUS;
    unsigned i = (unsigned)__builtin_ctz(found);
    *fmt_out = &formats[i]->pub;
    *id_out = ids[i];
    if (form_out != NULL)
        *form_out = forms[i];
    return MINTID_OK;
}

int mintid_guess(const char *text, size_t len, const mintid_format **fmt_out, mintid_id *id_out, mintid_form *form_out,
                 unsigned *candidates) {
    mintid_id ids[MINTID_FORMAT_COUNT];
    mintid_form forms[MINTID_FORMAT_COUNT];
    unsigned found = guess_all(text, len, ids, forms);
    if (candidates != NULL)
        *candidates = found;
    return guess_result(found, ids, forms, fmt_out, id_out, form_out);
}

int mintid_guess_recent(const char *text, size_t len, int64_t now_ms, int64_t epoch_ms, const mintid_format **fmt_out,
                        mintid_id *id_out, mintid_form *form_out, unsigned *candidates) {
    mintid_id ids[MINTID_FORMAT_COUNT];
    mintid_form forms[MINTID_FORMAT_COUNT];
    unsigned found = guess_all(text, len, ids, forms);
    if (candidates != NULL)
        *candidates = found;
    if ((found & (found - 1)) != 0) {
        unsigned recent = 0;
        for (unsigned i = 0; i < MINTID_FORMAT_COUNT; i++) {
            if (!(found & (1u << i)))
                continue;
            const mintid_format *fmt = &formats[i]->pub;
            int64_t t = mintid_id_unix_ms(
                fmt, &ids[i], fmt->epoch_settable && epoch_ms != MINTID_EPOCH_DEFAULT ? epoch_ms : fmt->epoch_ms);
            if (t >= now_ms - MINTID_GUESS_RECENT_MS && t <= now_ms + MINTID_GUESS_AHEAD_MS)
                recent |= 1u << i;
        }
        if (recent != 0 && (recent & (recent - 1)) == 0)
            found = recent;
    }
    return guess_result(found, ids, forms, fmt_out, id_out, form_out);
}

/* ---- shared sequence rules ------------------------------------------------ */

static uint64_t seq_mask(const mintid__format_impl *f) { return (UINT64_C(1) << f->seq_width) - 1; }

int mintid__seq_begin_zero(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                           mintid__seq_state *st) {
    (void)f, (void)cfg, (void)rng;
    st->seq = 0;
    return MINTID_OK;
}

int mintid__seq_step_one(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                         mintid__seq_state *st) {
    (void)cfg, (void)rng;
    if (st->seq >= seq_mask(f))
        return MINTID_EEXHAUSTED;
    st->seq++;
    return MINTID_OK;
}

/*
 * uexky and caloriosa: their pages have the counter run on across milliseconds
 * rather than restart, so a new millisecond continues where the last one
 * left off. The millisecond then ends where the counter would wrap (step_one
 * refuses past the field's maximum): a wrap inside one millisecond would make
 * the next ID smaller than the last, and it would come back to the
 * millisecond's first value only after wrapping. Under sustained load every
 * millisecond after the first therefore starts at 0 and holds the full
 * capacity.
 */
int mintid__seq_begin_next(const mintid__format_impl *f, const mintid_config *cfg, mintid_pool *rng,
                           mintid__seq_state *st) {
    (void)cfg, (void)rng;
    st->seq = (st->seq + 1) & seq_mask(f);
    return MINTID_OK;
}
