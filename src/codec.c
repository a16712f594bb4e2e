/*
 * codec.c - the digit machinery every text form is built from: base-N
 * conversion of 64-bit values, decimal of wide values, and the integer and
 * hex forms that the formats share.
 */
#include "internal.h"

#include <string.h>

void mintid__alphabet_build(mintid__alphabet *a) {
    memset(a->values, 0xff, sizeof a->values);
    for (unsigned v = 0; a->digits[v] != '\0'; v++) {
        unsigned char c = (unsigned char)a->digits[v];
        a->values[c] = (uint8_t)v;
        if (a->nocase && c >= 'a' && c <= 'z')
            a->values[c - 32] = (uint8_t)v;
        else if (a->nocase && c >= 'A' && c <= 'Z')
            a->values[c + 32] = (uint8_t)v;
    }
}

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

/* ---- the integer form: unsigned decimal of a 64-bit value --------------- */

static mintid__alphabet decimal = MINTID__ALPHABET("0123456789", false);

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

const mintid__codec mintid__codec_int = {int_encode, int_decode};

/* ---- the hex form: fixed width, lower case out, either case in ---------- */

static mintid__alphabet hex = MINTID__ALPHABET("0123456789abcdef", true);

MINTID__BUILD_ALPHABETS(&decimal, &hex)

static int hex_encode(const mintid_format *fmt, const mintid_id *id, char *buf, size_t cap) {
    size_t nbytes = fmt->bits / 8u;
    if (cap < nbytes * 2 + 1)
        return MINTID_EBUFSIZE;
    for (size_t i = 0; i < nbytes; i++) {
        buf[2 * i] = hex.digits[id->bytes[i] >> 4];
        buf[2 * i + 1] = hex.digits[id->bytes[i] & 15];
    }
    buf[nbytes * 2] = '\0';
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

const mintid__codec mintid__codec_hex = {hex_encode, hex_decode};
