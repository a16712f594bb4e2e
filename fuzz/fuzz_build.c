/* SPDX-License-Identifier: MIT */
/*
 * fuzz_build.c - libFuzzer target for mintid_id_build() and
 * mintid_id_parse(), and through them every encoder and decoder, the type
 * prefix and mintid_id_to_json().
 *
 * Input, each part zero-filled when the input runs out:
 *   byte 0       the format (modulo MINTID_FORMAT_COUNT);
 *   byte 1       flags: bit 0 passes the parts as they are, to exercise
 *                MINTID_ERANGE (clear: every part is masked to its field and
 *                the parts the format does not use are zeroed, so most
 *                inputs build); bit 1 takes the epoch below, not the
 *                format's default, for a format whose epoch is settable;
 *   8 bytes each timestamp, sequence, node and random, big-endian;
 *   10 bytes     random80;
 *   20 bytes     the bits of the data fields (uuidv7's rand_a and rand_b,
 *                ulid's randomness, ksuid's payload ...), which
 *                mintid_id_build() leaves zero and only a format's own
 *                generator fills: they are laid into the ID afterwards;
 *   8 bytes      the epoch, brought into the range mintid_parse_epoch()
 *                can return;
 *   the rest     a type prefix.
 *
 * Properties, any violation of which abort()s:
 * - mintid_id_build() succeeds exactly when every used part fits its field
 *   and every unused part is zero, and otherwise fails with MINTID_ERANGE;
 * - a built ID has the bits a reference packer, written from the public
 *   field table, puts there: constant fields hold their constant, data
 *   fields are zero, views are not packed;
 * - mintid_id_parse() gives back the parts, with or without data bits, and
 *   mintid_id_unix_ms() the timestamp in the format's units (10 ms for
 *   sonyflake, seconds for ksuid);
 * - mintid_id_check() refuses exactly scru160's reserved timestamps;
 * - every text form encodes and decodes back to the same ID;
 * - a type prefix is taken exactly when it matches typeid's
 *   ^[a-z]([a-z_]{0,61}[a-z])?$, and the prefixed text decodes back to the
 *   ID and the prefix;
 * - mintid_id_to_json() fits MINTID_JSON_MAX with any prefix and epoch,
 *   and reports every field the table says it reports, with the value the
 *   field's bits hold (a number up to 53 bits, else a string of decimal or,
 *   for a hex field, hex digits), views included, and no other.
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

/* The uint64_t slot of parts a role fills, or NULL for the roles without one. */
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
    case MINTID_ROLE_DATA:
    case MINTID_ROLE_VIEW:
        break;
    }
    return NULL;
}

static uint64_t mask(unsigned width) { return width >= 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1; }

static void set_bit(mintid_id *id, unsigned bit) { id->bytes[bit / 8] |= (uint8_t)(0x80u >> (bit % 8)); }
static bool get_bit(const uint8_t *b, unsigned bit) { return (b[bit / 8] >> (7 - bit % 8)) & 1u; }

/* Packs parts bit by bit, most significant bit first, the slow and obvious way. */
static void ref_pack(const mintid_format *fmt, const mintid_parts *parts, mintid_id *out) {
    mintid_parts p = *parts;
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < fmt->nfields; i++) {
        const mintid_field *f = &fmt->fields[i];
        /* Data bits are zero when built from parts; a view repeats bits of another field. */
        if (f->role == MINTID_ROLE_DATA || f->role == MINTID_ROLE_VIEW)
            continue;
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

/* Lays the bits of data[] into the data fields of id, in field order, most significant first. */
static void put_data(const mintid_format *fmt, mintid_id *id, const uint8_t data[20]) {
    unsigned k = 0;
    for (unsigned i = 0; i < fmt->nfields; i++) {
        const mintid_field *f = &fmt->fields[i];
        if (f->role != MINTID_ROLE_DATA)
            continue;
        for (unsigned b = 0; b < f->width && k < 160; b++, k++)
            if (get_bit(data, k))
                set_bit(id, f->offset + b);
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

/* The length of one timestamp unit in ms (docs/formats: sonyflake 10 ms, ksuid 1 s; else 1 ms). */
static int64_t ts_unit(mintid_format_id f) {
    switch (f) {
    case MINTID_SONYFLAKE:
        return 10;
    case MINTID_KSUID:
        return 1000;
    case MINTID_UEXKY:
    case MINTID_SCRU160:
    case MINTID_ULID_FLAKE:
    case MINTID_ULID_FLAKE_SCALABLE:
    case MINTID_CALORIOSA:
    case MINTID_NANOFLAKE:
    case MINTID_UUIDV7:
    case MINTID_ULID:
    case MINTID_SCRU128:
    case MINTID_SNOWFLAKE:
    case MINTID_TYPEID:
    case MINTID_FORMAT_COUNT:
        break;
    }
    return 1;
}

/* typeid's prefix: ^[a-z]([a-z_]{0,61}[a-z])?$ (docs/formats/typeid.md), not empty. */
static bool ref_prefix_ok(const char *p, size_t len) {
    if (len < 1 || len > 63)
        return false;
    for (size_t i = 0; i < len; i++) {
        bool letter = p[i] >= 'a' && p[i] <= 'z';
        bool inner = i > 0 && i < len - 1;
        if (!letter && !(inner && p[i] == '_'))
            return false;
    }
    return true;
}

/*
 * The epochs mintid_parse_epoch() can give: Unix ms of up to 15 digits, or
 * a date of years 0000 to 9999 with a zone offset of up to 23:59.
 */
#define EPOCH_MIN (-62167219200000LL - 86340000LL)
#define EPOCH_MAX 999999999999999LL

/* The decimal digits of an unsigned big-endian number of n bytes, into out. */
static void big_decimal(const uint8_t *be, size_t n, char *out) {
    uint8_t num[20];
    char rev[64];
    size_t nd = 0;
    memcpy(num, be, n);
    for (;;) {
        unsigned rem = 0;
        bool nonzero = false;
        for (size_t i = 0; i < n; i++) {
            unsigned cur = rem << 8 | num[i];
            num[i] = (uint8_t)(cur / 10);
            rem = cur % 10;
            nonzero |= num[i] != 0;
        }
        rev[nd++] = (char)('0' + rem);
        if (!nonzero)
            break;
    }
    for (size_t i = 0; i < nd; i++)
        out[i] = rev[nd - 1 - i];
    out[nd] = '\0';
}

/* What mintid inspect reports of a field: the default rule and the field's flags (mintid.h). */
static bool reported(const mintid_field *f) {
    if (f->flags & MINTID_FIELD_HIDDEN)
        return false;
    return (f->flags & MINTID_FIELD_SHOWN) || (f->role != MINTID_ROLE_TIMESTAMP && f->role != MINTID_ROLE_CONSTANT);
}

/* `"name":value` as the JSON must have it for field f of id. */
static void field_json(const mintid_field *f, const mintid_id *id, char *out, size_t cap) {
    uint8_t wide[20] = {0};
    size_t nbytes = (f->width + 7u) / 8u;
    REQUIRE(nbytes <= sizeof wide);
    for (unsigned b = 0; b < f->width; b++)
        if (get_bit(id->bytes, f->offset + b))
            wide[nbytes - 1 - (f->width - 1 - b) / 8] |= (uint8_t)(1u << ((f->width - 1 - b) % 8));
    char value[64];
    if (f->flags & MINTID_FIELD_HEX) {
        static const char hex[] = "0123456789abcdef";
        unsigned nd = (f->width + 3u) / 4u;
        for (unsigned i = 0; i < nd; i++) {
            unsigned nib = nd - 1 - i; /* nibble number from the least significant */
            value[i] = hex[(wide[nbytes - 1 - nib / 2] >> (4 * (nib % 2))) & 15];
        }
        value[nd] = '\0';
        snprintf(out, cap, "\"%s\":\"%s\"", f->name, value);
    } else if (f->width <= 53) {
        big_decimal(wide, nbytes, value);
        snprintf(out, cap, "\"%s\":%s", f->name, value);
    } else {
        big_decimal(wide, nbytes, value);
        snprintf(out, cap, "\"%s\":\"%s\"", f->name, value);
    }
}

/*
 * mintid_id_to_json_prefixed() of id: within MINTID_JSON_MAX and exactly its
 * own length, and every field it must report is there with its value, the
 * views too; a field it must not report is absent.
 */
static void check_json(const mintid_format *fmt, const mintid_id *id, const char *prefix, int64_t epoch_ms) {
    char *json = malloc(MINTID_JSON_MAX);
    REQUIRE(json != NULL);
    int n = mintid_id_to_json_prefixed(fmt, id, prefix, epoch_ms, json, MINTID_JSON_MAX);
    REQUIRE(n > 0 && n < MINTID_JSON_MAX && strlen(json) == (size_t)n);
    REQUIRE(json[0] == '{' && json[n - 1] == '}');
    char *exact = malloc((size_t)n + 1);
    REQUIRE(exact != NULL);
    REQUIRE(mintid_id_to_json_prefixed(fmt, id, prefix, epoch_ms, exact, (size_t)n + 1) == n);
    REQUIRE(memcmp(exact, json, (size_t)n + 1) == 0);
    REQUIRE(mintid_id_to_json_prefixed(fmt, id, prefix, epoch_ms, exact, (size_t)n) == MINTID_EBUFSIZE);
    free(exact);

    char want[256], key[80];
    for (unsigned i = 0; i < fmt->nfields; i++) {
        const mintid_field *f = &fmt->fields[i];
        field_json(f, id, want, sizeof want);
        snprintf(key, sizeof key, ",\"%s\":", f->name);
        if (reported(f)) {
            /* Followed by the next key or the end: "node":3 is not "node":37. */
            const char *at = strstr(json, want);
            REQUIRE(at != NULL && at > json && at[-1] == ',');
            char next = at[strlen(want)];
            REQUIRE(next == ',' || next == '}');
        } else {
            REQUIRE(strstr(json, key) == NULL);
        }
    }
    free(json);
}

/* Every text form encodes id and decodes back to it. */
static void check_forms(const mintid_format *fmt, const mintid_id *id, bool reserved) {
    char buf[MINTID_TEXT_MAX];
    for (int g = 0; g < MINTID_FORM_COUNT; g++) {
        mintid_form form = (mintid_form)g;
        if ((fmt->forms & MINTID_FORM_BIT(g)) == 0) {
            REQUIRE(mintid_encode(fmt, form, id, buf, sizeof buf) == MINTID_EFORM);
            continue;
        }
        int n = mintid_encode(fmt, form, id, buf, sizeof buf);
        REQUIRE(n > 0 && (size_t)n == strlen(buf));
        mintid_id dec;
        REQUIRE(mintid_decode(fmt, form, buf, (size_t)n, &dec, NULL) == MINTID_OK);
        REQUIRE(memcmp(&dec, id, sizeof dec) == 0);
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
}

/*
 * A type prefix: typeid takes one that matches the spec's regex, writes it
 * before the text form, and reads it back; no other format takes any.
 */
static void check_prefix(const mintid_format *fmt, const mintid_id *id, const char *prefix, size_t plen,
                         int64_t epoch_ms) {
    bool ok = fmt->id == MINTID_TYPEID && ref_prefix_ok(prefix, plen);
    REQUIRE(mintid_prefix_check(fmt, prefix, plen) == (ok || plen == 0 ? MINTID_OK : MINTID_EPREFIX));
    if (plen == 0 || memchr(prefix, '\0', plen) != NULL)
        return;
    char buf[MINTID_TEXT_MAX], text[MINTID_TEXT_MAX];
    int n = mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, id, prefix, buf, sizeof buf);
    if (!ok) {
        REQUIRE(n == MINTID_EPREFIX);
        REQUIRE(mintid_id_to_json_prefixed(fmt, id, prefix, epoch_ms, buf, sizeof buf) == MINTID_EPREFIX);
        return;
    }
    int t = mintid_encode(fmt, MINTID_FORM_TEXT, id, text, sizeof text);
    REQUIRE(t > 0 && n == (int)plen + 1 + t);
    REQUIRE(memcmp(buf, prefix, plen) == 0 && buf[plen] == '_' && strcmp(buf + plen + 1, text) == 0);

    mintid_id back;
    mintid_form got = MINTID_FORM_COUNT;
    char prefix_back[MINTID_PREFIX_MAX + 1];
    REQUIRE(mintid_decode_prefixed(fmt, MINTID_FORM_ANY, buf, (size_t)n, &back, &got, prefix_back) == MINTID_OK);
    REQUIRE(got == MINTID_FORM_TEXT && memcmp(&back, id, sizeof back) == 0);
    REQUIRE(strlen(prefix_back) == plen && memcmp(prefix_back, prefix, plen) == 0);
    check_json(fmt, id, prefix, epoch_ms);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    const mintid_format *fmt = mintid_format_get((mintid_format_id)(data[0] % MINTID_FORMAT_COUNT));
    REQUIRE(fmt != NULL);
    uint8_t flags = size > 1 ? data[1] : 0;
    bool raw = (flags & 1u) != 0;
    const uint8_t *p = data + (size > 1 ? 2 : 1), *end = data + size;

    mintid_parts parts;
    memset(&parts, 0, sizeof parts);
    parts.timestamp = take(&p, end, 8);
    parts.sequence = take(&p, end, 8);
    parts.node = take(&p, end, 8);
    parts.random = take(&p, end, 8);
    for (size_t i = 0; i < sizeof parts.random80; i++)
        parts.random80[i] = (uint8_t)take(&p, end, 1);
    uint8_t bits[20];
    for (size_t i = 0; i < sizeof bits; i++)
        bits[i] = (uint8_t)take(&p, end, 1);
    int64_t epoch_ms = MINTID_EPOCH_DEFAULT;
    uint64_t e = take(&p, end, 8);
    if ((flags & 2u) != 0 && fmt->epoch_settable)
        epoch_ms = EPOCH_MIN + (int64_t)(e % (uint64_t)(EPOCH_MAX - EPOCH_MIN + 1));
    char prefix[MINTID_PREFIX_MAX + 2];
    size_t plen = (size_t)(end - p) < sizeof prefix - 1 ? (size_t)(end - p) : sizeof prefix - 1;
    memcpy(prefix, p, plen);
    prefix[plen] = '\0';

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
    /* Epoch 0 where it is settable; a fixed epoch is the format's own, whatever is passed. */
    int64_t epoch = fmt->epoch_settable ? 0 : fmt->epoch_ms;
    REQUIRE(mintid_id_unix_ms(fmt, &id, 0) == (epoch / ts_unit(fmt->id) + (int64_t)parts.timestamp) * ts_unit(fmt->id));

    bool reserved = fmt->id == MINTID_SCRU160 && (parts.timestamp == 0 || parts.timestamp == mask(48));
    REQUIRE((mintid_id_check(fmt, &id) == MINTID_OK) == !reserved);
    check_forms(fmt, &id, reserved);
    check_json(fmt, &id, NULL, epoch_ms);

    /* The data bits: no slot of the parts holds them, and they change no other field. */
    put_data(fmt, &id, bits);
    memset(&back, 0x5a, sizeof back);
    mintid_id_parse(fmt, &id, &back);
    REQUIRE(memcmp(&back, &parts, sizeof back) == 0);
    REQUIRE((mintid_id_check(fmt, &id) == MINTID_OK) == !reserved);
    check_forms(fmt, &id, reserved);
    check_json(fmt, &id, NULL, epoch_ms);
    check_prefix(fmt, &id, prefix, plen, epoch_ms);
    return 0;
}
