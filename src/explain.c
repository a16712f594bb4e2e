/* SPDX-License-Identifier: MIT */
/*
 * explain.c - sentences for people about text that did not decode: which
 * character, which length, which limit. Every interface (the command, the
 * server, the database) says the same thing about the same input.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The table's entry for `form` of fmt, or NULL when it has not got the form (or form is MINTID_FORM_ANY). */
static const mintid__form *form_of(const mintid_format *fmt, int form) {
    if (form < 0 || form >= MINTID_FORM_COUNT || mintid__impl(fmt)->forms[form].codec == NULL)
        return NULL;
    return &mintid__impl(fmt)->forms[form];
}

/* Writes how a sentence calls a text of form f: its words, with the format's name for "%s". */
static size_t put_called(char *buf, size_t cap, const mintid__form *f, const char *name) {
    const char *at = strstr(f->called, "%s");
    if (at == NULL)
        return (size_t)snprintf(buf, cap, "%s", f->called);
    return (size_t)snprintf(buf, cap, "%.*s%s%s", (int)(at - f->called), f->called, name, at + 2);
}

/* Describes the lengths `fmt` accepts in `from`, for a length error. */
static void describe_lengths(const mintid_format *fmt, int from, char *buf, size_t cap) {
    unsigned forms = from == MINTID_FORM_ANY ? mintid_decode_any_forms(fmt) : MINTID_FORM_BIT(from);
    size_t n = 0;
    const char *sep = "";
    buf[0] = '\0';
    for (int form = 0; form < MINTID_FORM_COUNT && n < cap; form++) {
        const mintid__form *f = form_of(fmt, form);
        if (!(forms & MINTID_FORM_BIT(form)) || f == NULL)
            continue;
        n += (size_t)snprintf(buf + n, cap - n, "%s", sep);
        if (f->lengths != NULL) {
            n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, "%s", f->lengths);
        } else {
            n += put_called(buf + n, n < cap ? cap - n : 0, f, fmt->name);
            if (f->info.min_len == f->info.max_len)
                n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, " is %u %s", f->info.max_len, f->unit);
            else
                n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, " is %u to %u %s", f->info.min_len,
                                      f->info.max_len, f->unit);
        }
        sep = "; ";
    }
}

/* "2^63-1" for 2^k-1, else the decimal. */
static void describe_max(uint64_t max, char *buf, size_t cap) {
    if ((max & (max + 1)) == 0) {
        int k = max == UINT64_MAX ? 64 : __builtin_ctzll(max + 1);
        snprintf(buf, cap, "2^%d-1", k);
    } else {
        snprintf(buf, cap, "%" PRIu64, max);
    }
}

/* Whether s[0..len) is all decimal digits (s need not end in a NUL). */
static bool all_decimal(const char *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* How many leading characters of s[0..len) are in `alphabet` (either case if nocase). */
static size_t fits(const char *s, size_t len, const char *alphabet, bool nocase) {
    size_t i;
    for (i = 0; i < len; i++) {
        char ch = s[i], other = ch >= 'a' && ch <= 'z'   ? (char)(ch - 32)
                                : ch >= 'A' && ch <= 'Z' ? (char)(ch + 32)
                                                         : ch;
        if (ch == '\0' || (strchr(alphabet, ch) == NULL && (!nocase || strchr(alphabet, other) == NULL)))
            break;
    }
    return i;
}

/*
 * The alphabet a text in `form` is judged by, and whether it ignores case:
 * the form's own; for MINTID_FORM_ANY (no form takes the text's length),
 * the format's canonical digits.
 */
static const char *form_alphabet(const mintid_format *fmt, int form, bool *nocase) {
    const mintid__form *f = form_of(fmt, form);
    if (f == NULL || f->info.alphabet == NULL) {
        *nocase = fmt->text_nocase;
        return fmt->alphabet;
    }
    *nocase = f->info.nocase;
    return f->info.alphabet;
}

/* How far a text keeps to form f: the characters before the first it refuses. */
static size_t form_fits(const mintid_format *fmt, int form, const char *s, size_t len) {
    const mintid__form *f = form_of(fmt, form);
    if (f != NULL && f->codec->misplaced != NULL)
        return f->codec->misplaced(s, len);
    bool nocase;
    const char *alphabet = form_alphabet(fmt, form, &nocase);
    return fits(s, len, alphabet, nocase);
}

/*
 * Of the forms MINTID_FORM_ANY tries, the one a text of this length is most
 * likely meant in: among those that take its length (their decoder does
 * not refuse it for its length, which every decoder checks first), the one
 * whose digits it keeps to longest (the first such in the format's order);
 * else MINTID_FORM_ANY.
 */
static int likeliest_form(const mintid_format *fmt, const char *s, size_t len) {
    int best = MINTID_FORM_ANY;
    size_t best_fit = 0;
    for (const mintid_form *f = mintid__impl(fmt)->any_order; *f != MINTID_FORM_ANY; f++) {
        mintid_id scratch;
        if (mintid__impl(fmt)->forms[*f].codec->decode(fmt, s, len, &scratch) == MINTID_ELENGTH)
            continue;
        size_t fit = form_fits(fmt, *f, s, len);
        if (best == MINTID_FORM_ANY || fit > best_fit) {
            best = *f;
            best_fit = fit;
        }
    }
    return best;
}

int mintid_explain(const mintid_format *fmt, int from, const char *s, size_t len, int rc, char *buf, size_t cap) {
    char shown[MINTID_ESCAPED_MAX], what[240];
    if (from != MINTID_FORM_ANY && (from < 0 || from >= MINTID_FORM_COUNT))
        return MINTID_EINVAL;
    mintid_escape(s, len, shown, sizeof shown);
    /* A prefixed text (typeid) is judged by its suffix, positions counted in the whole. */
    size_t off = 0;
    const mintid__form *pf = form_of(fmt, from == MINTID_FORM_ANY ? MINTID_FORM_TEXT : from);
    if (pf != NULL && pf->info.prefixed && rc != MINTID_EPREFIX) {
        const char *sep = len > 0 ? memrchr(s, mintid__impl(fmt)->prefix_sep, len) : NULL;
        if (sep != NULL) {
            off = (size_t)(sep - s) + 1;
            from = MINTID_FORM_TEXT;
        }
    }
    const char *t = s + off;
    size_t tlen = len - off;
    int n;
    switch (rc) {
    case MINTID_ELENGTH:
        describe_lengths(fmt, from, what, sizeof what);
        if (off > 0)
            n = snprintf(buf, cap, "%s: '%s': its suffix has the wrong length (%zu); %s", fmt->name, shown, tlen, what);
        else
            n = snprintf(buf, cap, "%s: '%s' has the wrong length (%zu); %s", fmt->name, shown, len, what);
        break;
    case MINTID_ECHAR: {
        /* Read as any form: judge it as the form of its length that it fits
         * furthest, so the character blamed is one that form refuses. */
        if (from == MINTID_FORM_ANY)
            from = likeliest_form(fmt, s, len);
        const mintid__form *f = form_of(fmt, from);
        if (f != NULL && f->codec->misplaced != NULL) {
            size_t i = f->codec->misplaced(s, len);
            char c1[MINTID_ESCAPED_MAX];
            if (i >= len) {
                n = snprintf(buf, cap, "%s: '%s' has a character outside its form's alphabet", fmt->name, shown);
                break;
            }
            mintid_escape(s + i, 1, c1, sizeof c1);
            n = snprintf(buf, cap, "%s: '%s': '%s' at position %zu is out of place: %s", fmt->name, shown, c1, i + 1,
                         f->shape);
            break;
        }
        bool nocase, decimal = f != NULL && f->decimal;
        const char *alphabet = form_alphabet(fmt, from, &nocase);
        size_t i = fits(t, tlen, alphabet, nocase);
        if (i < tlen) {
            char c1[MINTID_ESCAPED_MAX];
            mintid_escape(t + i, 1, c1, sizeof c1);
            n = snprintf(buf, cap, "%s: '%s': '%s' at position %zu is not a %s digit (%s)", fmt->name, shown, c1,
                         off + i + 1, fmt->name, alphabet);
        } else if ((decimal || from == MINTID_FORM_ANY) && tlen > 1 && t[0] == '0' && all_decimal(t, tlen)) {
            n = snprintf(buf, cap, "%s: '%s': a decimal integer has no leading zero", fmt->name, shown);
        } else {
            n = snprintf(buf, cap, "%s: '%s' has a character outside its form's alphabet", fmt->name, shown);
        }
        break;
    }
    case MINTID_EOVERFLOW: {
        /* Say the limit in the form the input was read in. */
        char max_text[MINTID_TEXT_MAX], max_desc[32];
        mintid_id max;
        if (fmt->bits == 64) {
            mintid_id_from_u64(&max, fmt->value_max);
            describe_max(fmt->value_max, max_desc, sizeof max_desc);
        } else {
            memset(&max, 0, sizeof max);
            memset(max.bytes, 0xff, fmt->bits / 8u);
            snprintf(max_desc, sizeof max_desc, "2^%u-1", fmt->bits);
        }
        bool as_text = from == MINTID_FORM_TEXT ||
                       (from == MINTID_FORM_ANY && len >= fmt->text_min_len && len <= fmt->text_max_len);
        int f = as_text ? MINTID_FORM_TEXT : from;
        if (f != MINTID_FORM_ANY && form_of(fmt, f) != NULL && !form_of(fmt, f)->decimal &&
            mintid_encode(fmt, (mintid_form)f, &max, max_text, sizeof max_text) > 0)
            n = snprintf(buf, cap, "%s: '%s' exceeds %s (%s)", fmt->name, shown, max_text, max_desc);
        else
            n = snprintf(buf, cap, "%s: '%s' exceeds %s, the largest %s", fmt->name, shown, max_desc, fmt->name);
        break;
    }
    case MINTID_EINVALID:
        n = snprintf(buf, cap, "%s: '%s' decodes, but is not a valid %s (%s)", fmt->name, shown, fmt->name,
                     fmt->invalid_why != NULL ? fmt->invalid_why : "it fails the format's own check");
        break;
    case MINTID_EPREFIX:
        n = snprintf(buf, cap,
                     "%s: '%s': its type prefix is not 1 to %u of a-z and '_' starting and ending with a letter, "
                     "followed by '%c'",
                     fmt->name, shown, fmt->prefix_max, mintid__impl(fmt)->prefix_sep);
        break;
    default:
        n = snprintf(buf, cap, "%s: '%s': %s", fmt->name, shown, mintid_strerror(rc));
        break;
    }
    if (n < 0 || (size_t)n >= cap)
        return MINTID_EBUFSIZE;
    return n;
}

int mintid_escape(const char *s, size_t len, char *buf, size_t cap) {
    /* Input echoed to a terminal or a log must not carry control sequences;
     * long input is cut, since no ID is longer than a few dozen characters. */
    const size_t limit = 64;
    size_t o = 0;
    if (cap < 8)
        return MINTID_EBUFSIZE;
    for (size_t i = 0; i < len && o + 8 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (i == limit) {
            memcpy(buf + o, "...", 3);
            o += 3;
            break;
        }
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'' && c != '"') {
            buf[o++] = (char)c;
        } else {
            static const char hex[] = "0123456789abcdef";
            buf[o++] = '\\';
            buf[o++] = 'x';
            buf[o++] = hex[c >> 4];
            buf[o++] = hex[c & 15];
        }
    }
    buf[o] = '\0';
    return (int)o;
}
