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

/* Describes the lengths `fmt` accepts in `from`, for a length error. */
static void describe_lengths(const mintid_format *fmt, int from, char *buf, size_t cap) {
    unsigned forms = from == MINTID_FORM_ANY ? mintid_decode_any_forms(fmt) : MINTID_FORM_BIT(from);
    size_t n = 0;
    const char *sep = "";
    buf[0] = '\0';
    for (int f = 0; f < MINTID_FORM_COUNT && n < cap; f++) {
        if (!(forms & MINTID_FORM_BIT(f)))
            continue;
        if (f == MINTID_FORM_TEXT && fmt->text_min_len == fmt->text_max_len)
            n += (size_t)snprintf(buf + n, cap - n, "%sa %s text is %u characters", sep, fmt->name, fmt->text_max_len);
        else if (f == MINTID_FORM_TEXT)
            n += (size_t)snprintf(buf + n, cap - n, "%sa %s text is %u to %u characters", sep, fmt->name,
                                  fmt->text_min_len, fmt->text_max_len);
        else if (f == MINTID_FORM_HEX)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s hex is %u digits", sep, fmt->name, fmt->bits / 4u);
        else if (f == MINTID_FORM_INT)
            n += (size_t)snprintf(buf + n, cap - n, "%sa decimal integer is 1 to 20 digits", sep);
        else if (f == MINTID_FORM_PADDED)
            n += (size_t)snprintf(buf + n, cap - n, "%sthe padded form is 13 characters", sep);
        else
            n += (size_t)snprintf(buf + n, cap - n, "%sa %s text is 1 to 11 characters", sep, fmt->name);
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

int mintid_explain(const mintid_format *fmt, int from, const char *s, size_t len, int rc, char *buf, size_t cap) {
    char shown[MINTID_ESCAPED_MAX], what[200];
    mintid_escape(s, len, shown, sizeof shown);
    int n;
    switch (rc) {
    case MINTID_ELENGTH:
        describe_lengths(fmt, from, what, sizeof what);
        n = snprintf(buf, cap, "%s: '%s' has the wrong length (%zu); %s", fmt->name, shown, len, what);
        break;
    case MINTID_ECHAR: {
        /* Point at the first character the form's alphabet lacks; text of
         * the hex form's length, and no other, was read as hex. */
        if (from == MINTID_FORM_ANY && (mintid_decode_any_forms(fmt) & MINTID_FORM_BIT(MINTID_FORM_HEX)) &&
            len == fmt->bits / 4u && (len < fmt->text_min_len || len > fmt->text_max_len))
            from = MINTID_FORM_HEX;
        const char *alphabet = fmt->alphabet;
        bool nocase = fmt->text_nocase;
        if (from == MINTID_FORM_INT) {
            alphabet = "0123456789";
        } else if (from == MINTID_FORM_HEX) {
            alphabet = "0123456789abcdef";
            nocase = true;
        } else if (from == MINTID_FORM_CORE) {
            alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        }
        size_t i;
        for (i = 0; i < len; i++) {
            char ch = s[i];
            if (nocase && ch >= 'a' && ch <= 'z' && strchr(alphabet, ch) == NULL)
                ch = (char)(ch - 32);
            else if (nocase && ch >= 'A' && ch <= 'Z' && strchr(alphabet, ch) == NULL)
                ch = (char)(ch + 32);
            if (ch == '\0' || strchr(alphabet, ch) == NULL)
                break;
        }
        if (i < len) {
            char c1[MINTID_ESCAPED_MAX];
            mintid_escape(s + i, 1, c1, sizeof c1);
            n = snprintf(buf, cap, "%s: '%s': '%s' at position %zu is not a %s digit (%s)", fmt->name, shown, c1, i + 1,
                         fmt->name, alphabet);
        } else if (from == MINTID_FORM_INT && len > 0 && s[0] == '0') {
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
        mintid_id_from_u64(&max, fmt->value_max);
        describe_max(fmt->value_max, max_desc, sizeof max_desc);
        bool as_text = from == MINTID_FORM_TEXT ||
                       (from == MINTID_FORM_ANY && len >= fmt->text_min_len && len <= fmt->text_max_len);
        int f = as_text ? MINTID_FORM_TEXT : from;
        if (f != MINTID_FORM_ANY && f != MINTID_FORM_INT &&
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
