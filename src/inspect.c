/* SPDX-License-Identifier: MIT */
/*
 * inspect.c - an ID described field by field (mintid_inspect) and as one
 * JSON object, and a format described, the same for every face that shows
 * IDs or formats to people or programs.
 *
 * 64-bit values and fields wider than 53 bits are JSON strings: JavaScript
 * and many JSON parsers turn numbers above 2^53 into floating point and
 * silently change them. Fields up to 53 bits are plain numbers.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct jbuf {
    char *buf;
    size_t cap, len;
    bool overflow;
} jbuf;

static void put(jbuf *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(jbuf *j, const char *fmt, ...) {
    if (j->overflow)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(j->buf + j->len, j->cap - j->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= j->cap - j->len)
        j->overflow = true;
    else
        j->len += (size_t)n;
}

/* Whether inspect reports the field (see MINTID_FIELD_SHOWN). */
static bool reported(const mintid_field *f) {
    if (f->flags & MINTID_FIELD_HIDDEN)
        return false;
    return (f->flags & MINTID_FIELD_SHOWN) || (f->role != MINTID_ROLE_TIMESTAMP && f->role != MINTID_ROLE_CONSTANT);
}

/* A field's value: as a number when it fits 64 bits, and as decimal (or hex) digits at any width. */
static void field_value(const mintid_field *f, const mintid_id *id, mintid_field_value *out) {
    uint8_t wide[MINTID_ID_MAX_BYTES];
    size_t nbytes = (f->width + 7u) / 8u;
    out->field = f;
    out->value = f->width <= 64 ? mintid__get_bits(id->bytes, f->offset, f->width) : 0;
    mintid__get_wide(id->bytes, f->offset, f->width, wide, nbytes);
    if (f->flags & MINTID_FIELD_HEX) {
        static const char digits[] = "0123456789abcdef";
        size_t nd = (f->width + 3u) / 4u, skip = 2 * nbytes - nd;
        for (size_t i = 0; i < nd; i++) {
            size_t k = i + skip;
            out->digits[i] = digits[(wide[k / 2] >> (k % 2 ? 0 : 4)) & 15];
        }
        out->digits[nd] = '\0';
    } else {
        mintid__bytes_to_decimal(wide, nbytes, out->digits, sizeof out->digits);
    }
}

int mintid_inspect(const mintid_format *fmt, const mintid_id *id, const char *prefix, int64_t epoch_ms,
                   mintid_inspection *out) {
    memset(out, 0, sizeof *out);
    out->fmt = fmt;
    if (!fmt->epoch_settable || epoch_ms == MINTID_EPOCH_DEFAULT)
        epoch_ms = fmt->epoch_ms;
    int rc = mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, id, prefix, out->text, sizeof out->text);
    if (rc < 0 || (rc = mintid_encode(fmt, MINTID_FORM_HEX, id, out->hex, sizeof out->hex)) < 0)
        return rc;
    /* The other forms the table says inspect reports, in their slots. */
    const mintid_form_info *uuid = mintid_format_form(fmt, MINTID_FORM_UUID);
    if (uuid != NULL && uuid->reported &&
        (rc = mintid_encode(fmt, MINTID_FORM_UUID, id, out->uuid, sizeof out->uuid)) < 0)
        return rc;
    if (mintid_format_form(fmt, MINTID_FORM_TEXT)->prefixed)
        snprintf(out->prefix, sizeof out->prefix, "%s", prefix != NULL ? prefix : "");
    const mintid_form_info *integer = mintid_format_form(fmt, MINTID_FORM_INT);
    if (integer != NULL && integer->reported) {
        out->has_int = 1;
        out->value = mintid_id_to_u64(id);
    }
    const mintid__format_impl *impl = mintid__impl(fmt);
    if (impl->has_time == NULL || impl->has_time(id)) {
        out->has_time = 1;
        out->unix_ms = mintid_id_unix_ms(fmt, id, epoch_ms);
        if (mintid_format_time(out->unix_ms, out->time, sizeof out->time) < 0)
            out->time[0] = '\0'; /* before year 0 or past 99999 */
    }
    for (unsigned i = 0; i < fmt->nfields && out->nfields < MINTID_FIELDS_MAX; i++)
        if (reported(&fmt->fields[i]))
            field_value(&fmt->fields[i], id, &out->fields[out->nfields++]);
    return MINTID_OK;
}

int mintid_id_to_json_prefixed(const mintid_format *fmt, const mintid_id *id, const char *prefix, int64_t epoch_ms,
                               char *buf, size_t cap) {
    mintid_inspection in;
    jbuf j = {buf, cap, 0, false};
    if (cap == 0)
        return MINTID_EBUFSIZE;
    int rc = mintid_inspect(fmt, id, prefix, epoch_ms, &in);
    if (rc != MINTID_OK)
        return rc;
    /* Text forms, names and prefixes need no escaping: they are drawn from fixed alphabets. */
    put(&j, "{\"format\":\"%s\",\"text\":\"%s\",\"hex\":\"%s\"", fmt->name, in.text, in.hex);
    if (mintid_format_form(fmt, MINTID_FORM_TEXT)->prefixed)
        put(&j, ",\"prefix\":\"%s\"", in.prefix);
    if (in.uuid[0] != '\0')
        put(&j, ",\"uuid\":\"%s\"", in.uuid);
    if (in.has_int)
        put(&j, ",\"int\":\"%" PRIu64 "\"", in.value);
    if (!in.has_time)
        put(&j, ",\"unix_ms\":null,\"time\":null");
    else if (in.time[0] != '\0')
        put(&j, ",\"unix_ms\":%" PRId64 ",\"time\":\"%s\"", in.unix_ms, in.time);
    else
        put(&j, ",\"unix_ms\":%" PRId64 ",\"time\":null", in.unix_ms);
    for (unsigned i = 0; i < in.nfields; i++) {
        const mintid_field_value *v = &in.fields[i];
        if (v->field->flags & MINTID_FIELD_HEX || v->field->width > 53)
            put(&j, ",\"%s\":\"%s\"", v->field->name, v->digits);
        else
            put(&j, ",\"%s\":%" PRIu64, v->field->name, v->value);
    }
    put(&j, "}");
    if (j.overflow) {
        buf[0] = '\0';
        return MINTID_EBUFSIZE;
    }
    return (int)j.len;
}

int mintid_id_to_json(const mintid_format *fmt, const mintid_id *id, int64_t epoch_ms, char *buf, size_t cap) {
    return mintid_id_to_json_prefixed(fmt, id, NULL, epoch_ms, buf, cap);
}

/* ---- formats described -------------------------------------------------------------------- */

const char *mintid_role_name(mintid_role role) {
    static const char *const names[] = {"timestamp", "sequence", "node", "random",
                                        "random80",  "constant", "data", "view"};
    return (unsigned)role < sizeof names / sizeof names[0] ? names[role] : "";
}

int64_t mintid_format_last_ms(const mintid_format *fmt, int64_t epoch_ms) {
    if (!fmt->epoch_settable || epoch_ms == MINTID_EPOCH_DEFAULT)
        epoch_ms = fmt->epoch_ms;
    int64_t unit = fmt->ts_unit_ms, max = (int64_t)mintid_format_max_timestamp(fmt);
    int64_t first = mintid__floor_div(epoch_ms, unit);
    if (max > INT64_MAX / unit - first - 1)
        return INT64_MAX;
    return (first + max + 1) * unit - 1;
}

int mintid_describe(const mintid_format *fmt, int64_t epoch_ms, char *buf, size_t cap) {
    jbuf j = {buf, cap, 0, false};
    char when[MINTID_TIME_MAX];
    if (cap == 0)
        return MINTID_EBUFSIZE;
    if (!fmt->epoch_settable || epoch_ms == MINTID_EPOCH_DEFAULT)
        epoch_ms = fmt->epoch_ms;
    int64_t last = mintid_format_last_ms(fmt, epoch_ms);
    /* Names, titles and notes are the library's own, without quotes or backslashes. */
    put(&j, "{\"name\":\"%s\",\"title\":\"%s\",\"bits\":%u,\"epoch_ms\":%" PRId64 ",\"epoch_settable\":%s,\"epochs\":{",
        fmt->name, fmt->title, fmt->bits, epoch_ms, fmt->epoch_settable ? "true" : "false");
    for (const mintid_epoch_name *e = fmt->epoch_names; e != NULL && e->name != NULL; e++)
        put(&j, "%s\"%s\":%" PRId64, e == fmt->epoch_names ? "" : ",", e->name, e->unix_ms);
    put(&j, "},\"unit_ms\":%u,\"end_ms\":%" PRId64, fmt->ts_unit_ms, last);
    if (mintid_format_time(last, when, sizeof when) > 0)
        put(&j, ",\"end_time\":\"%s\"", when);
    else
        put(&j, ",\"end_time\":null");
    put(&j, ",\"capacity_per_ms\":%" PRIu32 ",\"capacity_note\":\"%s\",\"node_bits\":%u", fmt->capacity_per_ms,
        fmt->capacity_note != NULL ? fmt->capacity_note : "", fmt->node_bits);
    if (fmt->node_bits > 0)
        put(&j, ",\"node_max\":%" PRIu64 ",\"node_optional\":%s", (UINT64_C(1) << fmt->node_bits) - 1,
            fmt->node_optional ? "true" : "false");
    else
        put(&j, ",\"node_max\":null,\"node_optional\":false");
    put(&j, ",\"prefix_max\":%u,\"forms\":[", fmt->prefix_max);
    const char *sep = "";
    for (int form = 0; form < MINTID_FORM_COUNT; form++)
        if (fmt->forms & MINTID_FORM_BIT(form)) {
            put(&j, "%s\"%s\"", sep, mintid_form_name((mintid_form)form));
            sep = ",";
        }
    put(&j, "],\"fields\":[");
    for (unsigned f = 0; f < fmt->nfields; f++)
        put(&j, "%s{\"name\":\"%s\",\"bits\":%u,\"offset\":%u,\"role\":\"%s\"}", f ? "," : "", fmt->fields[f].name,
            fmt->fields[f].width, fmt->fields[f].offset, mintid_role_name((mintid_role)fmt->fields[f].role));
    put(&j, "]}");
    if (j.overflow) {
        buf[0] = '\0';
        return MINTID_EBUFSIZE;
    }
    return (int)j.len;
}
