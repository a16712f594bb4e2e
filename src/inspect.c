/* SPDX-License-Identifier: MIT */
/*
 * inspect.c - an ID described as one JSON object, the same for every
 * interface that shows IDs to people or programs (the command's `inspect`,
 * and later the server's inspect endpoint).
 *
 * 64-bit values and fields wider than 53 bits are JSON strings: JavaScript
 * and many JSON parsers turn numbers above 2^53 into floating point and
 * silently change them. Fields up to 53 bits are plain numbers.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

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

/* A field's value: a number up to 53 bits, else a string of decimal (or hex) digits. */
static void put_field(jbuf *j, const mintid_field *f, const mintid_id *id) {
    uint8_t wide[MINTID_ID_MAX_BYTES];
    size_t nbytes = (f->width + 7u) / 8u;
    mintid__get_wide(id->bytes, f->offset, f->width, wide, nbytes);
    if (f->flags & MINTID_FIELD_HEX) {
        static const char digits[] = "0123456789abcdef";
        char hex[2 * MINTID_ID_MAX_BYTES + 1];
        size_t nd = (f->width + 3u) / 4u, skip = 2 * nbytes - nd;
        for (size_t i = 0; i < nd; i++) {
            size_t k = i + skip;
            hex[i] = digits[(wide[k / 2] >> (k % 2 ? 0 : 4)) & 15];
        }
        hex[nd] = '\0';
        put(j, ",\"%s\":\"%s\"", f->name, hex);
    } else if (f->width <= 53) {
        put(j, ",\"%s\":%" PRIu64, f->name, mintid__get_bits(id->bytes, f->offset, f->width));
    } else {
        char dec[64];
        mintid__bytes_to_decimal(wide, nbytes, dec, sizeof dec);
        put(j, ",\"%s\":\"%s\"", f->name, dec);
    }
}

int mintid_id_to_json_prefixed(const mintid_format *fmt, const mintid_id *id, const char *prefix, int64_t epoch_ms,
                               char *buf, size_t cap) {
    char text[MINTID_TEXT_MAX], hex[MINTID_TEXT_MAX], time[MINTID_TIME_MAX];
    jbuf j = {buf, cap, 0, false};
    if (cap == 0)
        return MINTID_EBUFSIZE;
    if (!fmt->epoch_settable || epoch_ms == MINTID_EPOCH_DEFAULT)
        epoch_ms = fmt->epoch_ms;
    /* Text forms, names and prefixes need no escaping: they are drawn from fixed alphabets. */
    int rc = mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, id, prefix, text, sizeof text);
    if (rc < 0 || (rc = mintid_encode(fmt, MINTID_FORM_HEX, id, hex, sizeof hex)) < 0)
        return rc;
    put(&j, "{\"format\":\"%s\",\"text\":\"%s\",\"hex\":\"%s\"", fmt->name, text, hex);
    if (fmt->prefix_max > 0) {
        char uuid[MINTID_TEXT_MAX];
        if ((rc = mintid_encode(fmt, MINTID_FORM_UUID, id, uuid, sizeof uuid)) < 0)
            return rc;
        put(&j, ",\"prefix\":\"%s\",\"uuid\":\"%s\"", prefix != NULL ? prefix : "", uuid);
    }
    if (fmt->bits == 64)
        put(&j, ",\"int\":\"%" PRIu64 "\"", mintid_id_to_u64(id));
    const mintid__format_impl *impl = mintid__impl(fmt);
    if (impl->has_time != NULL && !impl->has_time(id)) {
        put(&j, ",\"unix_ms\":null,\"time\":null");
    } else {
        int64_t unix_ms = mintid_id_unix_ms(fmt, id, epoch_ms);
        put(&j, ",\"unix_ms\":%" PRId64, unix_ms);
        if (mintid_format_time(unix_ms, time, sizeof time) > 0)
            put(&j, ",\"time\":\"%s\"", time);
        else
            put(&j, ",\"time\":null"); /* before year 0 or past 99999 */
    }
    for (unsigned i = 0; i < fmt->nfields; i++)
        if (reported(&fmt->fields[i]))
            put_field(&j, &fmt->fields[i], id);
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
