/* SPDX-License-Identifier: MIT */
/*
 * test_early - the library works from a static-linked program's own
 * constructor that runs before any of the library's: its tables (every
 * alphabet's digit and reverse tables, the hex pairs, the formats' layout
 * plans) must be ready without a load-time constructor of its own.
 *
 * The program is linked against the static library, and its constructor has
 * priority 101, so it runs before every constructor of default priority in
 * the program, the library's among them. It decodes and encodes a known ID
 * of every format (and the same text in the other letter case where the
 * format ignores case), and mints one ID of every format, recording what it
 * got; main() checks the records against the vectors, and each format's
 * layout plan against the one its field table gives at run time.
 */
#include "check.h"
#include "internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct vector {
    const char *format;
    mintid_form form;
    const char *text;       /* canonical: encoding the ID gives it back */
    const char *hex;        /* the ID's bytes */
    const char *other_case; /* the same ID in the other letter case; NULL where case matters */
} vector;

/* From test_vectors.c and test_standard.c (the format pages' vectors). */
static const vector vectors[] = {
    {"uexky", MINTID_FORM_TEXT, "xinaS8QBh", "0027692f10061c62", NULL},
    {"scru160", MINTID_FORM_TEXT, "05U0GF0J0SP1ADJPT0U4VHIMCJJAIP51", "017c083c130732153679e83c4fc65664e6a964a1",
     "05u0gf0j0sp1adjpt0u4vhimcjjaip51"},
    {"ulid-flake", MINTID_FORM_TEXT, "00F2N078MDT7J", "003c5501d146e8f2", "00f2n078mdt7j"},
    {"ulid-flake-scalable", MINTID_FORM_TEXT, "00F2NC9TEXQ0Z", "003c556274eedc1f", "00f2nc9texq0z"},
    {"caloriosa", MINTID_FORM_TEXT, "b5JikCvNEnD", "81334be9d56ab801", NULL},
    {"nanoflake", MINTID_FORM_TEXT, "53jt2edkp3", "0001d6f345405007", "53JT2EDKP3"},
    {"uuidv7", MINTID_FORM_TEXT, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "017f22e279b07cc398c4dc0c0c07398f",
     "017F22E2-79B0-7CC3-98C4-DC0C0C07398F"},
    {"ulid", MINTID_FORM_TEXT, "01ARYZ6S41TSV4RRFFQ69G5FAV", "01563df36481d6764c61efb99302bd5b",
     "01aryz6s41tsv4rrffq69g5fav"},
    {"scru128", MINTID_FORM_TEXT, "0372hg16csmsm50l8dikcvukc", "017fee7fef417e2b3432ac2ec553687c",
     "0372HG16CSMSM50L8DIKCVUKC"},
    {"snowflake", MINTID_FORM_TEXT, "175928847299117063", "0271065ac1020007", NULL},
    {"sonyflake", MINTID_FORM_TEXT, "16777217", "0000000001000001", NULL},
    {"ksuid", MINTID_FORM_TEXT, "0ujtsYcgvSTl8PAuAdqWYSMnLOv", "0669f7efb5a1cd34b5f99d1154fb6853345c9735", NULL},
    {"typeid", MINTID_FORM_TEXT, "01h455vb4pex5vsknk084sn02q", "01890a5dac96774bbcceb302099a8057", NULL},
    /* The hex form of a 64-bit format, upper case in. */
    {"snowflake", MINTID_FORM_HEX, "0271065ac1020007", "0271065ac1020007", "0271065AC1020007"},
};
#define NVECTORS (sizeof vectors / sizeof vectors[0])

typedef struct record {
    int decode_rc, encode_rc, other_rc;
    mintid_id id, other_id;
    char text[MINTID_TEXT_MAX];
} record;

typedef struct mint_record {
    int new_rc, next_rc, encode_rc, decode_rc;
    mintid_id id, decoded;
} mint_record;

static record records[NVECTORS];
static mint_record mints[MINTID_FORMAT_COUNT];
static bool ran_early;

static void hex_of(const mintid_id *id, size_t nbytes, char *out) {
    for (size_t i = 0; i < nbytes; i++)
        snprintf(out + 2 * i, 3, "%02x", id->bytes[i]);
}

__attribute__((constructor(101))) static void before_the_library(void) {
    ran_early = true;
    for (size_t i = 0; i < NVECTORS; i++) {
        const vector *v = &vectors[i];
        record *r = &records[i];
        const mintid_format *fmt = mintid_format_find(v->format);
        if (fmt == NULL)
            continue; /* main() reports it */
        r->decode_rc = mintid_decode(fmt, v->form, v->text, strlen(v->text), &r->id, NULL);
        r->encode_rc = mintid_encode(fmt, v->form, &r->id, r->text, sizeof r->text);
        if (v->other_case != NULL)
            r->other_rc = mintid_decode(fmt, v->form, v->other_case, strlen(v->other_case), &r->other_id, NULL);
    }
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)f);
        mint_record *m = &mints[f];
        mintid_gen *gen = NULL;
        if ((m->new_rc = mintid_gen_new(fmt, NULL, &gen)) != MINTID_OK)
            continue;
        m->next_rc = mintid_gen_next(gen, &m->id);
        mintid_gen_free(gen);
        char text[MINTID_TEXT_MAX];
        m->encode_rc = mintid_encode(fmt, MINTID_FORM_TEXT, &m->id, text, sizeof text);
        m->decode_rc = m->encode_rc < 0 ? m->encode_rc
                                        : mintid_decode(fmt, MINTID_FORM_TEXT, text, strlen(text), &m->decoded, NULL);
    }
}

/*
 * The plan MINTID__PLAN makes from a format's field list, against the plan
 * worked out here from the field table and bit width the format publishes.
 */
static void check_plan(const mintid_format *fmt) {
    const mintid__plan *got = &mintid__impl(fmt)->plan;
    mintid__plan want = {0};
    for (unsigned k = 0; k < fmt->nfields; k++) {
        const mintid_field *f = &fmt->fields[k];
        uint8_t shift = fmt->bits == 64 ? (uint8_t)(64u - f->offset - f->width) : 0;
        if (f->role == MINTID_ROLE_TIMESTAMP)
            want.ts_shift = shift;
        else if (f->role == MINTID_ROLE_SEQUENCE)
            want.seq_shift = shift;
        else if (f->role == MINTID_ROLE_NODE)
            want.node_shift = shift, want.has_node = true;
        else if (f->role == MINTID_ROLE_RANDOM)
            want.random_shift = shift, want.random_bits = f->width;
        else if (f->role == MINTID_ROLE_RANDOM80)
            want.has_random80 = true;
        else if (f->role == MINTID_ROLE_CONSTANT && fmt->bits == 64)
            want.base |= f->constant << shift;
    }
    fprintf(stderr, "%s: plan base %016" PRIx64 ", shifts %u %u %u %u, random bits %u\n", fmt->name, got->base,
            got->ts_shift, got->seq_shift, got->node_shift, got->random_shift, got->random_bits);
    CHECK_U64(got->base, want.base);
    CHECK_INT(got->ts_shift, want.ts_shift);
    CHECK_INT(got->seq_shift, want.seq_shift);
    CHECK_INT(got->node_shift, want.node_shift);
    CHECK_INT(got->random_shift, want.random_shift);
    CHECK_INT(got->random_bits, want.random_bits);
    CHECK_INT(got->has_node, want.has_node);
    CHECK_INT(got->has_random80, want.has_random80);
}

int main(void) {
    CHECK(ran_early);
    /* A vector of every format, so a new format is tested here too. */
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const char *name = mintid_format_get((mintid_format_id)f)->name;
        bool found = false;
        for (size_t i = 0; i < NVECTORS && !found; i++)
            found = strcmp(vectors[i].format, name) == 0;
        if (!found)
            fprintf(stderr, "no vector of %s\n", name);
        CHECK(found);
    }
    for (size_t i = 0; i < NVECTORS; i++) {
        const vector *v = &vectors[i];
        const record *r = &records[i];
        const mintid_format *fmt = mintid_format_find(v->format);
        CHECK(fmt != NULL);
        if (fmt == NULL)
            continue;
        char hex[2 * MINTID_ID_MAX_BYTES + 1] = "";
        fprintf(stderr, "%s %s: decode %d, encode %d\n", v->format, v->text, r->decode_rc, r->encode_rc);
        CHECK_INT(r->decode_rc, MINTID_OK);
        hex_of(&r->id, fmt->bits / 8u, hex);
        CHECK_STR(hex, v->hex);
        CHECK_INT(r->encode_rc, (int)strlen(v->text));
        CHECK_STR(r->text, v->text);
        if (v->other_case != NULL) {
            CHECK_INT(r->other_rc, MINTID_OK);
            hex_of(&r->other_id, fmt->bits / 8u, hex);
            CHECK_STR(hex, v->hex);
        }
    }
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)f);
        const mint_record *m = &mints[f];
        fprintf(stderr, "%s: minted %d, encoded %d, decoded %d\n", fmt->name, m->next_rc, m->encode_rc, m->decode_rc);
        CHECK_INT(m->new_rc, MINTID_OK);
        CHECK_INT(m->next_rc, MINTID_OK);
        CHECK_INT(m->encode_rc > 0, 1);
        CHECK_INT(m->decode_rc, MINTID_OK);
        CHECK(memcmp(m->id.bytes, m->decoded.bytes, fmt->bits / 8u) == 0);
        CHECK_INT(mintid_id_check(fmt, &m->id), MINTID_OK);
        check_plan(fmt);
    }
    return CHECK_DONE();
}
