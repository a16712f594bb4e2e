/* SPDX-License-Identifier: MIT */
/*
 * format.c - the format table: formats and forms by id and name, the text
 * forms dispatched to each format's codecs, and a format guessed from a
 * text's shape. The bit layout is fields.c's, the sequence rules core.c's.
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

const char *mintid_form_name(mintid_form form) {
    if ((unsigned)form >= MINTID_FORM_COUNT)
        return NULL;
    return form_names[form];
}

const mintid_form_info *mintid_format_form(const mintid_format *fmt, mintid_form form) {
    if (fmt == NULL || (unsigned)form >= MINTID_FORM_COUNT || mintid__impl(fmt)->forms[form].codec == NULL)
        return NULL;
    return &mintid__impl(fmt)->forms[form].info;
}

/* Whether `form` of fmt (MINTID_FORM_ANY: any of them) carries the type prefix; it is then the text form. */
static bool carries_prefix(const mintid_format *fmt, mintid_form form) {
    const mintid__format_impl *impl = mintid__impl(fmt);
    return form == MINTID_FORM_ANY ? impl->forms[MINTID_FORM_TEXT].info.prefixed
                                   : (unsigned)form < MINTID_FORM_COUNT && impl->forms[form].info.prefixed;
}

int mintid_form_find(const char *name) {
    for (int i = 0; i < MINTID_FORM_COUNT; i++)
        if (name != NULL && strcmp(form_names[i], name) == 0)
            return i;
    return -2;
}

int mintid_encode(const mintid_format *fmt, mintid_form form, const mintid_id *id, char *buf, size_t cap) {
    if ((unsigned)form >= MINTID_FORM_COUNT || mintid__impl(fmt)->forms[form].codec == NULL)
        return MINTID_EFORM;
    return mintid__impl(fmt)->forms[form].codec->encode(fmt, id, buf, cap);
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
    if (form == MINTID_FORM_ANY || !carries_prefix(fmt, form) || mintid_prefix_check(fmt, prefix, plen) != MINTID_OK)
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
    const char *sep = len > 0 && carries_prefix(fmt, form) ? memrchr(text, impl->prefix_sep, len) : NULL;
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
        if ((unsigned)form >= MINTID_FORM_COUNT || impl->forms[form].codec == NULL)
            return MINTID_EFORM;
        int rc = impl->forms[form].codec->decode(fmt, text, len, out);
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
        int rc = impl->forms[*f].codec->decode(fmt, text, len, out);
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
            const mintid_form_info *info = &impl->forms[*f].info;
            if (!info->guessed)
                continue;
            if (mintid_decode_prefixed(&impl->pub, *f, text, len, &id, NULL, prefix) != MINTID_OK)
                continue;
            int n = mintid_encode_prefixed(&impl->pub, *f, &id, prefix, buf, sizeof buf);
            bool fixed = info->min_len == info->max_len || info->prefixed;
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
