/*
 * inspect.c - an ID described as one JSON object, the same for every
 * interface that shows IDs to people or programs (the command's `inspect`,
 * and later the server's inspect endpoint).
 *
 * 64-bit values and the 80-bit scru160 field are JSON strings: JavaScript
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

int mintid_id_to_json(const mintid_format *fmt, const mintid_id *id, int64_t epoch_ms, char *buf, size_t cap) {
    char text[MINTID_TEXT_MAX], hex[MINTID_TEXT_MAX], time[MINTID_TIME_MAX];
    jbuf j = {buf, cap, 0, false};
    if (cap == 0)
        return MINTID_EBUFSIZE;
    if (!fmt->epoch_settable || epoch_ms == MINTID_EPOCH_DEFAULT)
        epoch_ms = fmt->epoch_ms;
    /* Text forms and names need no escaping: they are drawn from fixed alphabets. */
    int rc = mintid_encode(fmt, MINTID_FORM_TEXT, id, text, sizeof text);
    if (rc < 0 || (rc = mintid_encode(fmt, MINTID_FORM_HEX, id, hex, sizeof hex)) < 0)
        return rc;
    put(&j, "{\"format\":\"%s\",\"text\":\"%s\",\"hex\":\"%s\"", fmt->name, text, hex);
    if (fmt->bits == 64)
        put(&j, ",\"int\":\"%" PRIu64 "\"", mintid_id_to_u64(id));
    int64_t unix_ms = mintid_id_unix_ms(fmt, id, epoch_ms);
    put(&j, ",\"unix_ms\":%" PRId64, unix_ms);
    if (mintid_format_time(unix_ms, time, sizeof time) > 0)
        put(&j, ",\"time\":\"%s\"", time);
    else
        put(&j, ",\"time\":null"); /* beyond year 9999: RFC 3339 cannot say it */

    mintid_parts p;
    mintid_id_parse(fmt, id, &p);
    for (unsigned i = 0; i < fmt->nfields; i++) {
        const mintid_field *f = &fmt->fields[i];
        switch ((mintid_role)f->role) {
        case MINTID_ROLE_SEQUENCE:
            put(&j, ",\"%s\":%" PRIu64, f->name, p.sequence);
            break;
        case MINTID_ROLE_NODE:
            put(&j, ",\"%s\":%" PRIu64, f->name, p.node);
            break;
        case MINTID_ROLE_RANDOM:
            put(&j, ",\"%s\":%" PRIu64, f->name, p.random);
            break;
        case MINTID_ROLE_RANDOM80: {
            char dec[32];
            mintid__bytes_to_decimal(p.random80, sizeof p.random80, dec, sizeof dec);
            put(&j, ",\"%s\":\"%s\"", f->name, dec);
            break;
        }
        case MINTID_ROLE_TIMESTAMP: /* shown as unix_ms and time */
        case MINTID_ROLE_CONSTANT:
            break;
        }
    }
    put(&j, "}");
    if (j.overflow) {
        buf[0] = '\0';
        return MINTID_EBUFSIZE;
    }
    return (int)j.len;
}
