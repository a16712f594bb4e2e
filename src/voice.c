/* SPDX-License-Identifier: MIT */
/*
 * voice.c - what every face says to people: names looked up (with the
 * name a person most likely meant), node ids (a number, the host's
 * mintidd's, or the host name's ordinal), epochs and prefixes checked,
 * IDs read from text, bytes or an integer (the format guessed when none is
 * named), and why a generator could not be opened or mint. The command,
 * mintidd, the SQL extensions and the language modules each only add how
 * they name a thing and map a status's class to their own codes, so that
 * one mistake gets one answer on every face.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ok(char *why, size_t cap) {
    if (why != NULL && cap > 0)
        why[0] = '\0';
    return MINTID_OK;
}

/* ---- names ------------------------------------------------------------------------------ */

/*
 * A name folded for comparison: lower case, without the separators people
 * put in or leave out ("ULID_Flake", "uuid-v7"). Returns its length; 0 for
 * a name too long to be any format's, or with a byte no name has.
 */
#define FOLDED_MAX 32
static size_t fold(const char *s, size_t len, char out[FOLDED_MAX]) {
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '-' || c == '_' || c == ' ' || c == '.')
            continue;
        if (!isalnum(c) || n + 1 >= FOLDED_MAX)
            return 0;
        out[n++] = (char)tolower(c);
    }
    out[n] = '\0';
    return n;
}

/* Optimal string alignment distance (edits and swaps of neighbours) between two folded names. */
static size_t distance(const char *a, const char *b) {
    size_t an = strlen(a), bn = strlen(b), d[FOLDED_MAX + 1][FOLDED_MAX + 1];
    for (size_t i = 0; i <= an; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= bn; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= an; i++)
        for (size_t j = 1; j <= bn; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[an][bn];
}

/* Names people give a format that are neither a slip nor a cut of its own (folded). */
static const struct {
    const char *alias;
    mintid_format_id id;
} aliases[] = {
    {"uuid7", MINTID_UUIDV7},      {"v7", MINTID_UUIDV7},         {"uuidversion7", MINTID_UUIDV7},
    {"twitter", MINTID_SNOWFLAKE}, {"discord", MINTID_SNOWFLAKE},
};

const mintid_format *mintid_format_suggest(const char *name, size_t len) {
    char want[FOLDED_MAX], have[FOLDED_MAX];
    size_t wn = name != NULL ? fold(name, len, want) : 0;
    if (wn == 0)
        return NULL;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(aliases[i].alias, want) == 0)
            return mintid_format_get(aliases[i].id);
    /* The same name in another case or spelling, then the one name it begins. */
    const mintid_format *cut = NULL;
    int cuts = 0;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        fold(f->name, strlen(f->name), have);
        if (strcmp(have, want) == 0)
            return f;
        if (wn >= 3 && strncmp(have, want, wn) == 0) {
            cut = f;
            cuts++;
        }
    }
    if (cuts == 1)
        return cut;
    /* A slip of the keyboard: no more edits than a third of the name's letters, at least one,
     * and no other format as near. */
    const mintid_format *best = NULL;
    size_t best_d = SIZE_MAX;
    bool tie = false;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        size_t d = distance(want, (fold(f->name, strlen(f->name), have), have));
        if (d < best_d) {
            best = f;
            best_d = d;
            tie = false;
        } else if (d == best_d) {
            tie = true;
        }
    }
    size_t allowed = strlen(best->name) / 3 > 1 ? strlen(best->name) / 3 : 1;
    return best_d <= allowed && !tie ? best : NULL;
}

int mintid_lookup_format(const char *name, size_t len, const mintid_format **out, char *why, size_t cap) {
    char exact[FOLDED_MAX], shown[MINTID_ESCAPED_MAX], names[MINTID_FORMAT_NAMES_MAX];
    if (name != NULL && len > 0 && len < sizeof exact && memchr(name, '\0', len) == NULL) {
        memcpy(exact, name, len);
        exact[len] = '\0';
        const mintid_format *f = mintid_format_find(exact);
        if (f != NULL) {
            *out = f;
            return ok(why, cap);
        }
    }
    mintid_format_names(names, sizeof names);
    if (name == NULL || len == 0)
        return mintid__say(why, cap, MINTID_EFORMAT, "no format named; formats are %s", names);
    mintid_escape(name, len, shown, sizeof shown);
    const mintid_format *near = mintid_format_suggest(name, len);
    if (near != NULL)
        return mintid__say(why, cap, MINTID_EFORMAT, "unknown format '%s'; did you mean '%s'?", shown, near->name);
    return mintid__say(why, cap, MINTID_EFORMAT, "unknown format '%s'; formats are %s", shown, names);
}

/* "text, int, hex" for the forms in `forms`. */
static void list_forms(unsigned forms, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = '\0';
    for (int f = 0; f < MINTID_FORM_COUNT && n < cap; f++)
        if (forms & MINTID_FORM_BIT(f))
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n > 0 ? ", " : "", mintid_form_name((mintid_form)f));
}

int mintid_lookup_form(const mintid_format *fmt, const char *name, size_t len, mintid_form *out, char *why,
                       size_t cap) {
    char exact[16], shown[MINTID_ESCAPED_MAX], forms[96];
    int form = -2;
    if (name != NULL && len < sizeof exact && memchr(name, '\0', len) == NULL) {
        memcpy(exact, name, len);
        exact[len] = '\0';
        form = mintid_form_find(exact);
    }
    mintid_escape(name != NULL ? name : "", name != NULL ? len : 0, shown, sizeof shown);
    if (form < 0) {
        list_forms(fmt != NULL ? fmt->forms : (1u << MINTID_FORM_COUNT) - 1, forms, sizeof forms);
        if (fmt != NULL)
            return mintid__say(why, cap, MINTID_EFORM, "unknown form '%s'; %s's forms are %s", shown, fmt->name, forms);
        return mintid__say(why, cap, MINTID_EFORM, "unknown form '%s'; forms are %s", shown, forms);
    }
    if (fmt != NULL && !(fmt->forms & MINTID_FORM_BIT(form))) {
        list_forms(fmt->forms, forms, sizeof forms);
        return mintid__say(why, cap, MINTID_EFORM, "%s has no '%s' form; its forms are %s", fmt->name, shown, forms);
    }
    *out = (mintid_form)form;
    return ok(why, cap);
}

/* ---- epochs, prefixes, node ids --------------------------------------------------------- */

/* ", or one of twitter, discord" for the named epochs of fmt (of every format when NULL). */
static void list_epochs(const mintid_format *fmt, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        if ((fmt != NULL && f != fmt) || f->epoch_names == NULL)
            continue;
        for (const mintid_epoch_name *e = f->epoch_names; e->name != NULL && n < cap; e++)
            if (strstr(buf, e->name) == NULL)
                n += (size_t)snprintf(buf + n, cap - n, "%s%s", n == 0 ? ", or one of " : ", ", e->name);
    }
}

int mintid_check_epoch(const mintid_format *fmt, int64_t unix_ms, char *why, size_t cap) {
    char when[MINTID_TIME_MAX];
    if (fmt != NULL && !fmt->epoch_settable) {
        if (unix_ms == fmt->epoch_ms)
            return ok(why, cap);
        if (mintid_format_time(fmt->epoch_ms, when, sizeof when) < 0)
            when[0] = '\0';
        return mintid__say(why, cap, MINTID_EINVAL, "%s has a fixed epoch (%s)", fmt->name, when);
    }
    if (unix_ms < 0)
        return mintid__say(why, cap, MINTID_EINVAL, "epoch %" PRId64 " is before 1970: an epoch is Unix ms from 0",
                           unix_ms);
    int64_t now;
    if (mintid_clock_system(NULL, &now) == MINTID_OK && unix_ms > now) {
        if (mintid_format_time(unix_ms, when, sizeof when) < 0)
            snprintf(when, sizeof when, "past year 99999");
        return mintid__say(why, cap, MINTID_EINVAL,
                           "epoch %" PRId64 " (%s) is in the future: no ID could be minted before it", unix_ms, when);
    }
    return ok(why, cap);
}

int mintid_lookup_epoch(const mintid_format *fmt, const char *text, size_t len, int64_t *unix_ms, char *why,
                        size_t cap) {
    char exact[64], shown[MINTID_ESCAPED_MAX], names[160];
    if (fmt != NULL && !fmt->epoch_settable) {
        char when[MINTID_TIME_MAX];
        if (mintid_format_time(fmt->epoch_ms, when, sizeof when) < 0)
            when[0] = '\0';
        return mintid__say(why, cap, MINTID_EINVAL, "%s has a fixed epoch (%s)", fmt->name, when);
    }
    int rc = MINTID_EINVAL;
    int64_t ms = 0;
    if (text != NULL && len > 0 && len < sizeof exact && memchr(text, '\0', len) == NULL) {
        memcpy(exact, text, len);
        exact[len] = '\0';
        rc = mintid_parse_epoch(fmt, exact, &ms);
        /* A format not yet known: any format's named epoch. */
        for (int i = 0; rc != MINTID_OK && fmt == NULL && i < MINTID_FORMAT_COUNT; i++)
            if (mintid_format_get((mintid_format_id)i)->epoch_names != NULL)
                rc = mintid_parse_epoch(mintid_format_get((mintid_format_id)i), exact, &ms);
    }
    if (rc != MINTID_OK) {
        mintid_escape(text != NULL ? text : "", text != NULL ? len : 0, shown, sizeof shown);
        list_epochs(fmt, names, sizeof names);
        return mintid__say(why, cap, MINTID_EINVAL,
                           "epoch '%s' is not a time: give Unix milliseconds or RFC 3339 UTC (2015-01-01T00:00:00Z)%s",
                           shown, names);
    }
    if ((rc = mintid_check_epoch(fmt, ms, why, cap)) != MINTID_OK)
        return rc;
    *unix_ms = ms;
    return MINTID_OK;
}

int mintid_lookup_prefix(const mintid_format *fmt, int form, const char *prefix, size_t len, char *why, size_t cap) {
    char shown[MINTID_ESCAPED_MAX];
    if (prefix == NULL || len == 0)
        return ok(why, cap);
    mintid_escape(prefix, len, shown, sizeof shown);
    if (fmt->prefix_max == 0)
        return mintid__say(why, cap, MINTID_EPREFIX, "prefix '%s': %s has no type prefix", shown, fmt->name);
    if (form != MINTID_FORM_TEXT && form != MINTID_FORM_ANY)
        return mintid__say(why, cap, MINTID_EPREFIX,
                           "prefix '%s': only %s's text form carries a prefix, not its %s form", shown, fmt->name,
                           mintid_form_name((mintid_form)form) ? mintid_form_name((mintid_form)form) : "?");
    if (memchr(prefix, '\0', len) != NULL || mintid_prefix_check(fmt, prefix, len) != MINTID_OK)
        return mintid__say(why, cap, MINTID_EPREFIX,
                           "prefix '%s': a %s prefix is 1 to %u of a-z and '_', starting and ending with a letter",
                           shown, fmt->name, fmt->prefix_max);
    return ok(why, cap);
}

/* The widest node id of fmt, or of any format's when NULL; 0 bits when it has none. */
static unsigned node_bits(const mintid_format *fmt) {
    if (fmt != NULL)
        return fmt->node_bits;
    unsigned bits = 0;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        if (mintid_format_get((mintid_format_id)i)->node_bits > bits)
            bits = mintid_format_get((mintid_format_id)i)->node_bits;
    return bits;
}

int mintid_check_node(const mintid_format *fmt, int64_t node, char *why, size_t cap) {
    unsigned bits = node_bits(fmt);
    if (node == -1)
        return ok(why, cap);
    if (bits == 0)
        return mintid__say(why, cap, MINTID_ERANGE, "%s has no node id", fmt->name);
    if (node == MINTID_NODE_HOST) {
        if (fmt != NULL && fmt->node_optional)
            return mintid__say(why, cap, MINTID_ERANGE,
                               "%s's node id is optional, and not the host's mintidd's: give a number", fmt->name);
        return ok(why, cap);
    }
    uint64_t max = (UINT64_C(1) << bits) - 1;
    if (node < 0 || (uint64_t)node > max)
        return mintid__say(why, cap, MINTID_ERANGE, "node %" PRId64 " is out of range: %s%snode ids are 0..%" PRIu64,
                           node, fmt != NULL ? fmt->name : "", fmt != NULL ? "'s " : "", max);
    return ok(why, cap);
}

/*
 * A decimal number in s[0..len): digits only, and no leading zero (but
 * "0" itself), since "03" and "3" would name one node id twice.
 */
typedef enum decimal_kind { DECIMAL_OK, DECIMAL_NONE, DECIMAL_ZERO, DECIMAL_PAST } decimal_kind;
static decimal_kind decimal(const char *s, size_t len, uint64_t max, uint64_t *out) {
    if (len == 0)
        return DECIMAL_NONE;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return DECIMAL_NONE;
    if (s[0] == '0' && len > 1)
        return DECIMAL_ZERO;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (d > max || v > (max - d) / 10)
            return DECIMAL_PAST;
        v = v * 10 + d;
    }
    *out = v;
    return DECIMAL_OK;
}

#define ORDINAL "ordinal"
#define ORDINAL_LEN (sizeof ORDINAL - 1)

/*
 * "ordinal" or "ordinal+N": the number that ends the host name's first
 * label, plus N. Kubernetes names a StatefulSet's pods <set>-0, <set>-1,
 * ... and gives each pod its name as host name (its first label, with
 * setHostnameAsFQDN), so one setting gives every pod of the set its own
 * node id, the same at every restart. The offset is checked before the
 * host name is read: a setting no host could satisfy says so on every
 * host.
 */
static int lookup_ordinal(const mintid_format *fmt, const char *text, size_t len, int64_t *node, char *why,
                          size_t cap) {
    char shown[MINTID_ESCAPED_MAX], host[256], host_shown[MINTID_ESCAPED_MAX];
    unsigned bits = node_bits(fmt);
    if (bits == 0)
        return mintid__say(why, cap, MINTID_ERANGE, "%s has no node id", fmt->name);
    uint64_t max = (UINT64_C(1) << bits) - 1, offset = 0;
    const char *of = fmt != NULL ? fmt->name : "", *s = fmt != NULL ? "'s " : "";
    mintid_escape(text, len, shown, sizeof shown);
    if (len > ORDINAL_LEN) {
        decimal_kind k = text[ORDINAL_LEN] == '+' ? decimal(text + ORDINAL_LEN + 1, len - ORDINAL_LEN - 1, max, &offset)
                                                  : DECIMAL_NONE;
        if (k == DECIMAL_PAST)
            return mintid__say(why, cap, MINTID_ERANGE,
                               "node '%s' is out of range whatever the host: %s%snode ids are 0..%" PRIu64, shown, of,
                               s, max);
        if (k != DECIMAL_OK)
            return mintid__say(why, cap, MINTID_EINVAL,
                               "node '%s' is not a node id: give ordinal, or ordinal+N with N in 0..%" PRIu64, shown,
                               max);
    }
    if (gethostname(host, sizeof host - 1) != 0)
        return mintid__say(why, cap, MINTID_EINVAL, "node '%s': the host name cannot be read: %s", shown,
                           strerror(errno));
    host[sizeof host - 1] = '\0';
    mintid_escape(host, strlen(host), host_shown, sizeof host_shown);
    size_t label = strcspn(host, ".");
    const char *dash = NULL;
    for (size_t i = 0; i < label; i++)
        if (host[i] == '-')
            dash = host + i;
    uint64_t ordinal = 0;
    decimal_kind k =
        dash != NULL ? decimal(dash + 1, (size_t)(host + label - dash - 1), UINT64_MAX, &ordinal) : DECIMAL_NONE;
    if (k == DECIMAL_NONE)
        return mintid__say(why, cap, MINTID_EINVAL,
                           "node '%s': the host name '%s' does not end in '-' and a number, as the names of a "
                           "StatefulSet's pods do (web-0, web-1, ...)",
                           shown, host_shown);
    if (k == DECIMAL_ZERO) {
        /* The pod the ordinal is meant for, had it no leading zero. */
        size_t zeros = 0, digits = (size_t)(host + label - dash - 1);
        while (zeros + 1 < digits && dash[1 + zeros] == '0')
            zeros++;
        char meant[sizeof host], meant_shown[MINTID_ESCAPED_MAX];
        int n = snprintf(meant, sizeof meant, "%.*s%.*s", (int)(dash + 1 - host), host, (int)(digits - zeros),
                         dash + 1 + zeros);
        mintid_escape(meant, n > 0 ? strlen(meant) : 0, meant_shown, sizeof meant_shown);
        return mintid__say(why, cap, MINTID_EINVAL,
                           "node '%s': the number that ends the host name '%s' has a leading zero, which a "
                           "StatefulSet never gives (and %s would take the same node id)",
                           shown, host_shown, meant_shown);
    }
    if (k == DECIMAL_PAST || ordinal > max - offset) {
        char value[32] = "";
        if (k == DECIMAL_OK && ordinal <= UINT64_MAX - offset)
            snprintf(value, sizeof value, " is %" PRIu64 ",", ordinal + offset);
        return mintid__say(why, cap, MINTID_ERANGE,
                           "node '%s' on host '%s'%s out of range: %s%snode ids are 0..%" PRIu64, shown, host_shown,
                           value[0] != '\0' ? value : " is", of, s, max);
    }
    *node = (int64_t)(ordinal + offset);
    return ok(why, cap);
}

int mintid_lookup_node(const mintid_format *fmt, const char *text, size_t len, int64_t *node, char *why, size_t cap) {
    if (text != NULL && len >= ORDINAL_LEN && memcmp(text, ORDINAL, ORDINAL_LEN) == 0)
        return lookup_ordinal(fmt, text, len, node, why, cap);
    char shown[MINTID_ESCAPED_MAX];
    int64_t n = -1;
    bool number = text != NULL && len > 0;
    for (size_t i = 0; number && i < len; i++)
        number = text[i] >= '0' && text[i] <= '9';
    if (number) {
        n = 0;
        for (size_t i = 0; i < len; i++) {
            int d = text[i] - '0';
            if (n > (INT64_MAX - d) / 10) {
                /* Past any int64_t, so past any node id: said with the digits given. */
                unsigned bits = node_bits(fmt);
                mintid_escape(text, len, shown, sizeof shown);
                if (bits == 0)
                    return mintid__say(why, cap, MINTID_ERANGE, "%s has no node id", fmt->name);
                return mintid__say(why, cap, MINTID_ERANGE, "node %s is out of range: %s%snode ids are 0..%" PRIu64,
                                   shown, fmt != NULL ? fmt->name : "", fmt != NULL ? "'s " : "",
                                   (UINT64_C(1) << bits) - 1);
            }
            n = n * 10 + d;
        }
    } else if (text != NULL && len == 4 && memcmp(text, "host", 4) == 0) {
        n = MINTID_NODE_HOST;
    } else {
        unsigned bits = node_bits(fmt);
        mintid_escape(text != NULL ? text : "", text != NULL ? len : 0, shown, sizeof shown);
        if (bits == 0)
            return mintid__say(why, cap, MINTID_ERANGE, "%s has no node id", fmt->name);
        return mintid__say(why, cap, MINTID_EINVAL, "node '%s' is not a node id: give 0..%" PRIu64 "%s", shown,
                           (UINT64_C(1) << bits) - 1, fmt != NULL && fmt->node_optional ? "" : ", or host");
    }
    int rc = mintid_check_node(fmt, n, why, cap);
    if (rc == MINTID_OK)
        *node = n;
    return rc;
}

/* MINTID_NODE, with the sentence of mintid_lookup_node(). */
int mintid_env_node(const mintid_format *fmt, int64_t *node, char *why, size_t why_cap) {
    *node = -1;
    const char *v = getenv("MINTID_NODE");
    if (v == NULL || v[0] == '\0')
        return MINTID_OK;
    char sentence[MINTID_WHY_MAX];
    int rc = mintid_lookup_node(fmt, v, strlen(v), node, sentence, sizeof sentence);
    if (rc != MINTID_OK) {
        *node = -1;
        return mintid__say(why, why_cap, MINTID_EINVAL, "MINTID_NODE: %s", sentence);
    }
    return MINTID_OK;
}

/* ---- reading IDs -------------------------------------------------------------------------- */

static void reading_init(mintid_reading *out) {
    memset(out, 0, sizeof *out);
    out->form = MINTID_FORM_ANY;
}

/* "nanoflake or caloriosa", "a, b or c" for the formats of a candidate mask. */
static void list_candidates(unsigned cands, char *buf, size_t cap) {
    size_t n = 0;
    int left = __builtin_popcount(cands);
    buf[0] = '\0';
    for (int i = 0; i < MINTID_FORMAT_COUNT && n < cap; i++)
        if (cands & (1u << i)) {
            left--;
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", mintid_format_get((mintid_format_id)i)->name,
                                  left > 1    ? ", "
                                  : left == 1 ? " or "
                                              : "");
        }
}

/* Decoded as fmt's, but no ID fmt mints: *out keeps it, with the sentence. */
static int check_read(const mintid_format *fmt, int form, const char *text, size_t len, mintid_reading *out, char *why,
                      size_t cap) {
    if (mintid_id_check(fmt, &out->id) == MINTID_OK)
        return ok(why, cap);
    if (text != NULL && why != NULL && mintid_explain(fmt, form, text, len, MINTID_EINVALID, why, cap) > 0)
        return MINTID_EINVALID;
    return mintid__say(why, cap, MINTID_EINVALID, "%s: not a valid %s (%s)", fmt->name, fmt->name,
                       fmt->invalid_why != NULL ? fmt->invalid_why : "it fails the format's own check");
}

int mintid_read_text(const mintid_format *fmt, int form, int64_t epoch_ms, const char *text, size_t len,
                     mintid_reading *out, char *why, size_t cap) {
    char shown[MINTID_ESCAPED_MAX], names[MINTID_FORMAT_NAMES_MAX];
    reading_init(out);
    if (text == NULL || len == 0)
        return mintid__say(why, cap, MINTID_ELENGTH, "an empty text is not an ID");
    mintid_escape(text, len, shown, sizeof shown);
    if (memchr(text, '\0', len) != NULL)
        return mintid__say(why, cap, MINTID_ECHAR, "'%s' contains a NUL byte", shown);
    if (fmt == NULL) {
        int64_t now = 0;
        mintid_form guessed;
        mintid_clock_system(NULL, &now);
        int rc = mintid_guess_recent(text, len, now, epoch_ms, &out->fmt, &out->id, &guessed, &out->candidates);
        if (rc == MINTID_EAMBIGUOUS) {
            list_candidates(out->candidates, names, sizeof names);
            out->fmt = NULL;
            return mintid__say(why, cap, MINTID_EAMBIGUOUS, "'%s' is ambiguous: it could be %s", shown, names);
        }
        if (rc != MINTID_OK) {
            out->fmt = NULL;
            return mintid__say(why, cap, MINTID_EINVALID, "'%s' does not have the shape of any format's ID", shown);
        }
        fmt = out->fmt;
        form = guessed;
    }
    out->fmt = fmt;
    if (form != MINTID_FORM_ANY && (form < 0 || form >= MINTID_FORM_COUNT || !(fmt->forms & MINTID_FORM_BIT(form)))) {
        char forms[96];
        list_forms(fmt->forms, forms, sizeof forms);
        return mintid__say(why, cap, MINTID_EFORM, "%s has no such form; its forms are %s", fmt->name, forms);
    }
    mintid_form got = MINTID_FORM_TEXT;
    int rc = mintid_decode_prefixed(fmt, (mintid_form)form, text, len, &out->id, &got, out->prefix);
    if (rc != MINTID_OK) {
        out->fmt = NULL; /* nothing was read */
        if (mintid_explain(fmt, form, text, len, rc, why, cap) < 0)
            mintid__say(why, cap, rc, "%s: '%s': %s", fmt->name, shown, mintid_strerror(rc));
        return rc;
    }
    out->form = form == MINTID_FORM_ANY ? (int)got : form;
    return check_read(fmt, out->form, text, len, out, why, cap);
}

/* Whether bytes[0..len) can be fmt's ID: its length, its value, its own check. */
static bool bytes_fit(const mintid_format *fmt, const uint8_t *b, size_t len, mintid_id *id) {
    if (len != fmt->bits / 8u)
        return false;
    memset(id, 0, sizeof *id);
    memcpy(id->bytes, b, len);
    return (fmt->bits != 64 || mintid_id_to_u64(id) <= fmt->value_max) && mintid_id_check(fmt, id) == MINTID_OK;
}

/* The formats bytes[0..len) can be an ID of (a bit per format id); *any: those of that length at all. */
static unsigned candidates(const uint8_t *b, size_t len, unsigned *any) {
    unsigned fit = 0;
    *any = 0;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        mintid_id id;
        if (len == f->bits / 8u) {
            *any |= 1u << i;
            if (bytes_fit(f, b, len, &id))
                fit |= 1u << i;
        }
    }
    return fit;
}

/* Of the candidate formats for an ID of `len` bytes, the only one, else the only recent one; 0 if none. */
static unsigned pick(unsigned cands, const uint8_t *b, size_t len, int64_t epoch_ms) {
    if ((cands & (cands - 1)) == 0)
        return cands;
    int64_t now = 0;
    unsigned recent = 0;
    mintid_clock_system(NULL, &now);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *f = mintid_format_get((mintid_format_id)i);
        mintid_id id = {{0}};
        if (!(cands & (1u << i)))
            continue;
        memcpy(id.bytes, b, len);
        int64_t t = mintid_id_unix_ms(f, &id, f->epoch_settable ? epoch_ms : MINTID_EPOCH_DEFAULT);
        if (t >= now - MINTID_GUESS_RECENT_MS && t <= now + MINTID_GUESS_AHEAD_MS)
            recent |= 1u << i;
    }
    return (recent & (recent - 1)) == 0 ? recent : 0;
}

/* A reading of the ID b[0..len) (big-endian) as fmt's, through its hex form: the decoders' rules and sentences. */
static int read_as_hex(const mintid_format *fmt, int64_t epoch_ms, const uint8_t *b, size_t len, mintid_reading *out,
                       char *why, size_t cap) {
    static const char digits[] = "0123456789abcdef";
    char hex[2 * MINTID_ID_MAX_BYTES];
    for (size_t i = 0; i < len; i++) {
        hex[2 * i] = digits[b[i] >> 4];
        hex[2 * i + 1] = digits[b[i] & 15];
    }
    int rc = mintid_read_text(fmt, MINTID_FORM_HEX, epoch_ms, hex, 2 * len, out, why, cap);
    out->form = MINTID_FORM_ANY;
    return rc;
}

/* "8, 16 or 20" for the sizes of the formats' IDs. */
static void list_sizes(char *buf, size_t cap) {
    unsigned sizes = 0;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++)
        sizes |= 1u << (mintid_format_get((mintid_format_id)i)->bits / 8u);
    size_t n = 0;
    int left = __builtin_popcount(sizes);
    buf[0] = '\0';
    for (unsigned k = 0; k < 32 && n < cap; k++)
        if (sizes & (1u << k)) {
            left--;
            n += (size_t)snprintf(buf + n, cap - n, "%u%s", k, left > 1 ? ", " : left == 1 ? " or " : "");
        }
}

int mintid_read_bytes(const mintid_format *fmt, int64_t epoch_ms, const void *bytes, size_t len, mintid_reading *out,
                      char *why, size_t cap) {
    const uint8_t *b = bytes;
    char names[MINTID_FORMAT_NAMES_MAX];
    reading_init(out);
    if (fmt != NULL) {
        if (len != fmt->bits / 8u)
            return mintid__say(why, cap, MINTID_ELENGTH, "%s: %zu %s no ID; a %s is %u bytes", fmt->name, len,
                               len == 1 ? "byte is" : "bytes are", fmt->name, fmt->bits / 8u);
        return read_as_hex(fmt, epoch_ms, b, len, out, why, cap);
    }
    unsigned any = 0;
    out->candidates = candidates(b, len, &any);
    if (any == 0) {
        list_sizes(names, sizeof names);
        return mintid__say(why, cap, MINTID_ELENGTH, "%zu %s no ID of any format: an ID is %s bytes", len,
                           len == 1 ? "byte is" : "bytes are", names);
    }
    if (out->candidates == 0)
        return mintid__say(why, cap, MINTID_EINVALID, "%zu bytes are no valid ID of any format of that length", len);
    unsigned one = pick(out->candidates, b, len, epoch_ms);
    if (one == 0) {
        unsigned cands = out->candidates;
        list_candidates(cands, names, sizeof names);
        return mintid__say(why, cap, MINTID_EAMBIGUOUS, "%zu bytes are ambiguous: they could be %s", len, names);
    }
    unsigned cands = out->candidates;
    int rc = read_as_hex(mintid_format_get((mintid_format_id)__builtin_ctz(one)), epoch_ms, b, len, out, why, cap);
    out->candidates = cands;
    return rc;
}

int mintid_read_u64(const mintid_format *fmt, int64_t epoch_ms, uint64_t value, mintid_reading *out, char *why,
                    size_t cap) {
    char text[24], names[MINTID_FORMAT_NAMES_MAX];
    int n = snprintf(text, sizeof text, "%" PRIu64, value);
    reading_init(out);
    if (fmt != NULL) {
        if (fmt->bits != 64)
            return mintid__say(why, cap, MINTID_EFORM,
                               "%s: an ID of %u bits is not read from a 64-bit integer; give its text "
                               "or its bytes",
                               fmt->name, fmt->bits);
        return mintid_read_text(fmt, MINTID_FORM_INT, epoch_ms, text, (size_t)n, out, why, cap);
    }
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(value >> (56 - 8 * i));
    unsigned any;
    out->candidates = candidates(b, 8, &any);
    if (out->candidates == 0)
        return mintid__say(why, cap, MINTID_EINVALID, "%s is no valid ID of any 64-bit format", text);
    unsigned one = pick(out->candidates, b, 8, epoch_ms);
    if (one == 0) {
        list_candidates(out->candidates, names, sizeof names);
        return mintid__say(why, cap, MINTID_EAMBIGUOUS, "%s is ambiguous: it could be %s", text, names);
    }
    unsigned cands = out->candidates;
    int rc = mintid_read_text(mintid_format_get((mintid_format_id)__builtin_ctz(one)), MINTID_FORM_INT, epoch_ms, text,
                              (size_t)n, out, why, cap);
    out->candidates = cands;
    out->form = MINTID_FORM_ANY;
    return rc;
}

/* ---- why a generator failed ------------------------------------------------------------- */

int mintid_gen_why(const mintid_format *fmt, const mintid_config *cfg, mintid_gen *gen, int status, int err, char *why,
                   size_t cap) {
    char when[MINTID_TIME_MAX];
    const char *path = gen != NULL ? mintid_gen_host_path(gen) : mintid__host_tried();
    bool node_host = cfg != NULL && cfg->node == MINTID_NODE_HOST;
    int64_t now;
    int n;
    if (cap == 0)
        return 0;
    if (status == MINTID_EWARRANT || status == MINTID_EBUSY ||
        (node_host && status == MINTID_EHOSTSTATE && mintid_host_why()[0] != '\0')) {
        n = snprintf(why, cap, "%s: %s", fmt->name,
                     mintid_host_why()[0] != '\0' ? mintid_host_why() : mintid_strerror(status));
    } else if (status == MINTID_EHOST) {
        n = snprintf(why, cap, "%s: cannot use the host-wide state %s%s: %s (MINTID_HOST_DIR names its directory)",
                     fmt->name, gen == NULL ? "in " : "", path != NULL && path[0] ? path : "?", strerror(err));
    } else if (status == MINTID_EHOSTSTATE) {
        n = snprintf(why, cap,
                     "%s: %s is not a host-wide state this mintid can use: %s (stop every home minting there and "
                     "move it away, or mint with the version that wrote it)",
                     fmt->name, path != NULL && path[0] ? path : "?", mintid_strerror(status));
    } else if (status == MINTID_EINVAL && gen == NULL && mintid__gen_refused()[0] != '\0') {
        n = snprintf(why, cap, "%s: %s", fmt->name, mintid__gen_refused());
    } else if (status == MINTID_ETIME && gen == NULL && cfg != NULL && fmt->epoch_settable) {
        if (mintid_format_time(cfg->epoch_ms, when, sizeof when) < 0)
            snprintf(when, sizeof when, "past year 99999");
        n = snprintf(why, cap, "%s: the epoch %" PRId64 " (%s) is in the future", fmt->name, cfg->epoch_ms, when);
    } else {
        n = snprintf(why, cap, "%s: %s", fmt->name, mintid_strerror(status));
        /* A host-wide state ahead of the clock (a run under a clock set ahead) holds every later run
         * back until the clock catches up: say where it is and how far ahead. */
        mintid_gen_stats st;
        if (gen != NULL && path != NULL && (status == MINTID_ETIMEDOUT || status == MINTID_ECLOCKBACK) && n > 0 &&
            (size_t)n < cap && mintid_clock_system(NULL, &now) == MINTID_OK) {
            mintid_gen_get_stats(gen, &st);
            if (st.last_unix_ms > now) {
                if (mintid_format_time(st.last_unix_ms, when, sizeof when) < 0)
                    snprintf(when, sizeof when, "%" PRId64, st.last_unix_ms);
                n += snprintf(why + n, cap - (size_t)n,
                              "; the host-wide state %s has minted up to %s, %" PRId64
                              " ms ahead of the clock, and every run waits for the clock to reach it",
                              path, when, st.last_unix_ms - now);
            }
        }
    }
    if (n < 0)
        return 0;
    return (size_t)n >= cap ? (int)cap - 1 : n;
}
