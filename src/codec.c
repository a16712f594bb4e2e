/* SPDX-License-Identifier: MIT */
/*
 * codec.c - the digit machinery every text form is built from: base-N
 * conversion of 64-bit values, decimal of wide values, and the integer and
 * hex forms that the formats share.
 */
#include "internal.h"

#include <string.h>
#include <strings.h>

int mintid__base_to_u64(const char *s, size_t len, const mintid__alphabet *a, unsigned base, uint64_t *v) {
    /* Every character is checked before any arithmetic, so a bad character
     * is reported as such even in a string that would also overflow. */
    for (size_t i = 0; i < len; i++)
        if (mintid__digit_value(a, (unsigned char)s[i]) == 0xff)
            return MINTID_ECHAR;
    uint64_t acc = 0;
    for (size_t i = 0; i < len; i++) {
        uint64_t digit = mintid__digit_value(a, (unsigned char)s[i]);
        if (__builtin_mul_overflow(acc, (uint64_t)base, &acc) || __builtin_add_overflow(acc, digit, &acc))
            return MINTID_EOVERFLOW;
    }
    *v = acc;
    return MINTID_OK;
}

int mintid__bytes_to_decimal(const uint8_t *be, size_t n, char *buf, size_t cap) {
    /* Schoolbook division by 10 over a copy; the numbers here are at most
     * 20 bytes, so quadratic is a few hundred operations. */
    uint8_t num[MINTID_ID_MAX_BYTES];
    char tmp[64];
    size_t nd = 0;
    if (n > sizeof num)
        return MINTID_EINVAL;
    memcpy(num, be, n);
    size_t start = 0;
    while (start < n && num[start] == 0)
        start++;
    if (start == n)
        tmp[nd++] = '0';
    while (start < n) {
        unsigned rem = 0;
        for (size_t i = start; i < n; i++) {
            unsigned cur = (rem << 8) | num[i];
            num[i] = (uint8_t)(cur / 10);
            rem = cur % 10;
        }
        tmp[nd++] = (char)('0' + rem);
        while (start < n && num[start] == 0)
            start++;
    }
    if (cap < nd + 1)
        return MINTID_EBUFSIZE;
    for (size_t i = 0; i < nd; i++)
        buf[i] = tmp[nd - 1 - i];
    buf[nd] = '\0';
    return (int)nd;
}

/*
 * Wide numbers as 32-bit limbs, most significant first: base conversion by
 * repeated division (encoding) and multiply-add (decoding) over at most
 * five limbs, so no digit needs more than a few dozen operations.
 */
#define LIMBS_MAX ((MINTID_ID_MAX_BYTES + 3) / 4)

void mintid__bytes_to_base(const uint8_t *be, size_t n, const mintid__alphabet *a, unsigned base, unsigned ndigits,
                           char *buf) {
    uint32_t limb[LIMBS_MAX] = {0};
    size_t nl = (n + 3) / 4, skip = nl * 4 - n;
    for (size_t i = 0; i < n; i++) {
        size_t k = i + skip;
        limb[k / 4] |= (uint32_t)be[i] << (8 * (3 - k % 4));
    }
    for (unsigned d = ndigits; d-- > 0;) {
        uint64_t rem = 0;
        for (size_t i = 0; i < nl; i++) {
            uint64_t cur = rem << 32 | limb[i];
            limb[i] = (uint32_t)(cur / base);
            rem = cur % base;
        }
        buf[d] = a->digits[rem];
    }
    buf[ndigits] = '\0';
}

int mintid__base_to_bytes(const char *s, size_t len, const mintid__alphabet *a, unsigned base, uint8_t *be, size_t n) {
    for (size_t i = 0; i < len; i++)
        if (mintid__digit_value(a, (unsigned char)s[i]) == 0xff)
            return MINTID_ECHAR;
    uint32_t limb[LIMBS_MAX] = {0};
    size_t nl = (n + 3) / 4;
    for (size_t i = 0; i < len; i++) {
        uint64_t carry = mintid__digit_value(a, (unsigned char)s[i]);
        for (size_t k = nl; k-- > 0;) {
            uint64_t cur = (uint64_t)limb[k] * base + carry;
            limb[k] = (uint32_t)cur;
            carry = cur >> 32;
        }
        if (carry != 0)
            return MINTID_EOVERFLOW;
    }
    /* Bits above n bytes in the top limb overflow too. */
    size_t spare = nl * 4 - n;
    if (spare > 0 && limb[0] >> (32 - 8 * spare) != 0)
        return MINTID_EOVERFLOW;
    for (size_t i = 0; i < n; i++) {
        size_t k = i + spare;
        be[i] = (uint8_t)(limb[k / 4] >> (8 * (3 - k % 4)));
    }
    return MINTID_OK;
}

/* 130 bits: two zero bits, then the 128; a digit is five of them. */
int mintid__b32_128_encode(const mintid_id *id, const mintid__alphabet *a, char *out, size_t cap) {
    if (cap < 27)
        return MINTID_EBUFSIZE;
    uint64_t hi = mintid__get_be(id->bytes, 8), lo = mintid__get_be(id->bytes + 8, 8);
    out[0] = a->digits[hi >> 61];
    for (int i = 1; i < 13; i++) /* digits 1..12: bits 60..1 of hi */
        out[i] = a->digits[(hi >> (61 - 5 * i)) & 31];
    out[13] = a->digits[((hi & 1) << 4) | (lo >> 60)];
    for (int i = 14; i < 26; i++) /* digits 14..25: bits 59..0 of lo */
        out[i] = a->digits[(lo >> (5 * (25 - i))) & 31];
    out[26] = '\0';
    return 26;
}

int mintid__b32_128_decode(const char *s, size_t len, const mintid__alphabet *a, mintid_id *out) {
    if (len != 26)
        return MINTID_ELENGTH;
    uint8_t v[26];
    for (int i = 0; i < 26; i++)
        if ((v[i] = mintid__digit_value(a, (unsigned char)s[i])) == 0xff)
            return MINTID_ECHAR;
    if (v[0] > 7)
        return MINTID_EOVERFLOW;
    uint64_t hi = v[0], lo = 0;
    for (int i = 1; i < 13; i++)
        hi = hi << 5 | v[i];
    hi = hi << 1 | v[13] >> 4;
    lo = v[13] & 15;
    for (int i = 14; i < 26; i++)
        lo = lo << 5 | v[i];
    memset(out, 0, sizeof *out);
    mintid__put_be(out->bytes, 8, hi);
    mintid__put_be(out->bytes + 8, 8, lo);
    return MINTID_OK;
}

/* ---- the integer form: unsigned decimal of a 64-bit value --------------- */

MINTID__ALPHABET(decimal, MINTID__DECIMAL_DIGITS, false);

static int int_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    (void)fmt;
    return mintid__u64_to_base(mintid_id_to_u64(id), &decimal, 10, 1, buf, cap);
}

static int int_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    /* 20 digits hold 2^64-1; longer is refused. */
    if (len < 1 || len > 20)
        return MINTID_ELENGTH;
    uint64_t v;
    int rc = mintid__base_to_u64(s, len, &decimal, 10, &v);
    if (rc != MINTID_OK)
        return rc;
    /* A leading zero is refused: no canonical decimal has one, and a run of
     * digits with one is more likely a zero-padded text of another form.
     * (Twenty digits that start with 0 cannot overflow, so this order gives
     * the same status as checking it first.) */
    if (s[0] == '0' && len > 1)
        return MINTID_ECHAR;
    if (v > fmt->value_max)
        return MINTID_EOVERFLOW;
    mintid_id_from_u64(out, v);
    return MINTID_OK;
}

const mintid__codec mintid__codec_int = {.encode = int_encode, .decode = int_decode};

/* ---- the hex form: fixed width, lower case out, either case in ---------- */

MINTID__ALPHABET(hex, MINTID__HEX_DIGITS, true);

/* The hex alphabet's pairs are the two digits of every byte (16^2 = 256): one copy per byte when encoding. */
static inline char *put_hex(char *p, const uint8_t *b, size_t n) {
    for (size_t i = 0; i < n; i++, p += 2)
        memcpy(p, hex.pairs[b[i]], 2);
    return p;
}

static int hex_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    size_t nbytes = fmt->bits / 8u;
    if (cap < nbytes * 2 + 1)
        return MINTID_EBUFSIZE;
    *put_hex(buf, id->bytes, nbytes) = '\0';
    return (int)(nbytes * 2);
}

static int hex_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    size_t nbytes = fmt->bits / 8u;
    if (len != nbytes * 2)
        return MINTID_ELENGTH;
    for (size_t i = 0; i < len; i++)
        if (mintid__digit_value(&hex, (unsigned char)s[i]) == 0xff)
            return MINTID_ECHAR;
    mintid_id id;
    memset(&id, 0, sizeof id);
    for (size_t i = 0; i < nbytes; i++)
        id.bytes[i] = (uint8_t)(mintid__digit_value(&hex, (unsigned char)s[2 * i]) << 4 |
                                mintid__digit_value(&hex, (unsigned char)s[2 * i + 1]));
    if (fmt->bits == 64 && mintid_id_to_u64(&id) > fmt->value_max)
        return MINTID_EOVERFLOW;
    *out = id;
    return MINTID_OK;
}

const mintid__codec mintid__codec_hex = {.encode = hex_encode, .decode = hex_decode};

/* ---- the UUID string: 8-4-4-4-12 hex digits ------------------------------- */

static int uuid_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    (void)fmt;
    if (cap < 37)
        return MINTID_EBUFSIZE;
    const uint8_t *b = id->bytes;
    char *p = put_hex(buf, b, 4);
    *p++ = '-';
    p = put_hex(p, b + 4, 2);
    *p++ = '-';
    p = put_hex(p, b + 6, 2);
    *p++ = '-';
    p = put_hex(p, b + 8, 2);
    *p++ = '-';
    p = put_hex(p, b + 10, 6);
    *p = '\0';
    return 36;
}

/*
 * Reads the hyphenated string, and the spellings RFC 9562 and common
 * parsers give it: 32 digits without hyphens, the hyphenated string in
 * braces or after "urn:uuid:" (either case). Nothing else: hyphens in
 * other places, braces around the bare digits, whitespace.
 */
static int uuid_decode(const mintid_format *fmt, const char *s, size_t len, mintid_id *out) {
    (void)fmt;
    bool hyphens = true;
    if (len == 32) {
        hyphens = false;
    } else if (len == 38) {
        if (s[0] != '{' || s[37] != '}')
            return MINTID_ECHAR;
        s += 1;
    } else if (len == 45) {
        if (strncasecmp(s, "urn:uuid:", 9) != 0)
            return MINTID_ECHAR;
        s += 9;
    } else if (len != 36) {
        return MINTID_ELENGTH;
    }
    mintid_id id;
    memset(&id, 0, sizeof id);
    const char *p = s;
    for (int i = 0; i < 16; i++) {
        if (hyphens && (i == 4 || i == 6 || i == 8 || i == 10) && *p++ != '-')
            return MINTID_ECHAR;
        uint8_t h = mintid__digit_value(&hex, (unsigned char)p[0]), l = mintid__digit_value(&hex, (unsigned char)p[1]);
        if (h == 0xff || l == 0xff)
            return MINTID_ECHAR;
        id.bytes[i] = (uint8_t)(h << 4 | l);
        p += 2;
    }
    *out = id;
    return MINTID_OK;
}

/*
 * The first character of a UUID string that is out of place, given the
 * spelling its length says (32 digits, 8-4-4-4-12, in braces, after
 * urn:uuid:); len if none is.
 */
static size_t uuid_misplaced(const char *s, size_t len) {
    size_t start = 0;
    if (len == 38) {
        if (s[0] != '{')
            return 0;
        if (s[37] != '}')
            return 37;
        start = 1;
    } else if (len == 45) {
        static const char urn[] = "urn:uuid:";
        for (size_t i = 0; i < 9; i++)
            if (s[i] != urn[i] && !(s[i] >= 'A' && s[i] <= 'Z' && s[i] + 32 == urn[i]))
                return i;
        start = 9;
    }
    bool hyphens = len != 32;
    for (size_t i = 0, k = start; k < len && (len != 38 || k < 37); i++, k++) {
        bool dash = hyphens && (i == 8 || i == 13 || i == 18 || i == 23);
        if (dash ? s[k] != '-' : mintid__digit_value(&hex, (unsigned char)s[k]) == 0xff)
            return k;
    }
    return len;
}

const mintid__codec mintid__codec_uuid = {.encode = uuid_encode, .decode = uuid_decode, .misplaced = uuid_misplaced};
