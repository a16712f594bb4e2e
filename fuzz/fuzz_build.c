/*
 * fuzz_build.c - libFuzzer target for mintid_id_build() and
 * mintid_id_parse(), and through them every encoder and decoder.
 *
 * Input: a selector byte, then the parts, big-endian, each zero-filled when
 * the input runs out: timestamp, sequence, node and random (8 bytes each),
 * then random80 (10 bytes). The selector's low three bits pick the format
 * (modulo MINTID_FORMAT_COUNT). Bit 3 clear masks every part to its field
 * and zeroes the parts the format does not use, so most inputs build; bit 3
 * set passes the parts as they are, to exercise MINTID_ERANGE.
 *
 * Properties, any violation of which abort()s:
 * - mintid_id_build() succeeds exactly when every used part fits its field
 *   and every unused part is zero, and otherwise fails with MINTID_ERANGE;
 * - a built ID has the bits a reference packer, written from the public
 *   field table, puts there, with constant fields holding their constant;
 * - mintid_id_parse() gives back the parts, and mintid_id_unix_ms() the
 *   timestamp;
 * - mintid_id_check() refuses exactly scru160's reserved timestamps;
 * - every text form encodes and decodes back to the same ID.
 */
#include "fuzz.h"
#include "mintid.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads n bytes big-endian from the input, zeros past its end. */
static uint64_t take(const uint8_t **p, const uint8_t *end, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        v = v << 8 | (*p < end ? **p : 0u);
        if (*p < end)
            (*p)++;
    }
    return v;
}

/* The uint64_t slot of parts a role fills, or NULL for random80 and constants. */
static uint64_t *slot(mintid_parts *p, uint8_t role) {
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
        break;
    }
    return NULL;
}

static uint64_t mask(unsigned width) { return width >= 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1; }

static void set_bit(mintid_id *id, unsigned bit) { id->bytes[bit / 8] |= (uint8_t)(0x80u >> (bit % 8)); }

/* Packs parts bit by bit, most significant bit first, the slow and obvious way. */
static void ref_pack(const mintid_format *fmt, const mintid_parts *parts, mintid_id *out) {
    mintid_parts p = *parts;
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < fmt->nfields; i++) {
        const mintid_field *f = &fmt->fields[i];
        for (unsigned b = 0; b < f->width; b++) {
            unsigned from_top = f->width - 1 - b; /* bit number within the field, LSB = 0 */
            bool on;
            if (f->role == MINTID_ROLE_RANDOM80) {
                unsigned byte = 9 - from_top / 8;
                on = (p.random80[byte] >> (from_top % 8)) & 1u;
            } else {
                const uint64_t *s = slot(&p, f->role);
                on = ((s != NULL ? *s : f->constant) >> from_top) & 1u;
            }
            if (on)
                set_bit(out, f->offset + b);
        }
    }
}

/* Whether mintid_id_build() must accept parts for fmt. */
static bool parts_fit(const mintid_format *fmt, const mintid_parts *parts) {
    static const uint8_t zero80[10];
    mintid_parts p = *parts;
    for (uint8_t role = MINTID_ROLE_TIMESTAMP; role <= MINTID_ROLE_RANDOM; role++) {
        const mintid_field *f = mintid_format_field(fmt, (mintid_role)role);
        uint64_t v = *slot(&p, role);
        if (f == NULL ? v != 0 : (v & ~mask(f->width)) != 0)
            return false;
    }
    return mintid_format_field(fmt, MINTID_ROLE_RANDOM80) != NULL || memcmp(p.random80, zero80, sizeof zero80) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    const mintid_format *fmt = mintid_format_get((mintid_format_id)((data[0] & 7u) % MINTID_FORMAT_COUNT));
    REQUIRE(fmt != NULL);
    bool raw = (data[0] & 8u) != 0;
    const uint8_t *p = data + 1, *end = data + size;

    mintid_parts parts;
    memset(&parts, 0, sizeof parts);
    parts.timestamp = take(&p, end, 8);
    parts.sequence = take(&p, end, 8);
    parts.node = take(&p, end, 8);
    parts.random = take(&p, end, 8);
    for (size_t i = 0; i < sizeof parts.random80; i++)
        parts.random80[i] = (uint8_t)take(&p, end, 1);
    if (!raw) {
        for (uint8_t role = MINTID_ROLE_TIMESTAMP; role <= MINTID_ROLE_RANDOM; role++) {
            const mintid_field *f = mintid_format_field(fmt, (mintid_role)role);
            *slot(&parts, role) &= f != NULL ? mask(f->width) : 0;
        }
        if (mintid_format_field(fmt, MINTID_ROLE_RANDOM80) == NULL)
            memset(parts.random80, 0, sizeof parts.random80);
    }

    mintid_id id;
    int rc = mintid_id_build(fmt, &parts, &id);
    if (!parts_fit(fmt, &parts)) {
        REQUIRE(rc == MINTID_ERANGE);
        return 0;
    }
    REQUIRE(rc == MINTID_OK);

    mintid_id ref;
    ref_pack(fmt, &parts, &ref);
    REQUIRE(memcmp(&id, &ref, sizeof id) == 0);

    mintid_parts back;
    memset(&back, 0x5a, sizeof back);
    mintid_id_parse(fmt, &id, &back);
    REQUIRE(memcmp(&back, &parts, sizeof back) == 0);
    REQUIRE(mintid_id_unix_ms(fmt, &id, 0) == (int64_t)parts.timestamp);

    bool reserved = fmt->id == MINTID_SCRU160 && (parts.timestamp == 0 || parts.timestamp == mask(48));
    REQUIRE((mintid_id_check(fmt, &id) == MINTID_OK) == !reserved);

    char buf[MINTID_TEXT_MAX];
    for (int g = 0; g < MINTID_FORM_COUNT; g++) {
        mintid_form form = (mintid_form)g;
        if ((fmt->forms & MINTID_FORM_BIT(g)) == 0) {
            REQUIRE(mintid_encode(fmt, form, &id, buf, sizeof buf) == MINTID_EFORM);
            continue;
        }
        int n = mintid_encode(fmt, form, &id, buf, sizeof buf);
        REQUIRE(n > 0 && (size_t)n == strlen(buf));
        mintid_id dec;
        REQUIRE(mintid_decode(fmt, form, buf, (size_t)n, &dec, NULL) == MINTID_OK);
        REQUIRE(memcmp(&dec, &id, sizeof dec) == 0);
        mintid_form got = MINTID_FORM_COUNT;
        if (mintid_decode(fmt, MINTID_FORM_ANY, buf, (size_t)n, &dec, &got) == MINTID_OK) {
            /* ANY may read the text as another form, but then that form must agree. */
            mintid_id again;
            REQUIRE(mintid_decode(fmt, got, buf, (size_t)n, &again, NULL) == MINTID_OK);
            REQUIRE(memcmp(&dec, &again, sizeof dec) == 0);
        }
        /* The canonical text of a valid ID has the length the format table promises. */
        if (form == MINTID_FORM_TEXT && !reserved)
            REQUIRE(n >= fmt->text_min_len && n <= fmt->text_max_len);
    }
    return 0;
}
