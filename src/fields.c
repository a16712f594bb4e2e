/* SPDX-License-Identifier: MIT */
/*
 * fields.c - an ID as its bit layout says: the value of a 64-bit ID, fields
 * packed into an ID and taken apart, the well-formed check, the time an ID
 * carries and the IDs that bound a time. Everything here reads a format's
 * layout, never the format table, so the formats, the codecs and the core
 * build on it.
 */
#include "internal.h"

#include <stddef.h>
#include <string.h>

const mintid_field *mintid_format_field(const mintid_format *fmt, mintid_role role) {
    for (unsigned i = 0; i < fmt->nfields; i++)
        if (fmt->fields[i].role == role)
            return &fmt->fields[i];
    return NULL;
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
