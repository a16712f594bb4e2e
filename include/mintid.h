/* SPDX-License-Identifier: MIT */
/*
 * mintid.h - unique, time-ordered identifiers in several formats.
 *
 * This is the one public header of libmintid. It has four layers:
 *
 *   1. Formats: a read-only table describing every format (bit layout, text
 *      forms, epoch, capacity). See mintid_format_find().
 *   2. The pure core: build an ID from its fields, take it apart, encode and
 *      decode its text forms. These functions use no clock, no randomness, no
 *      global state and no allocation; they are safe to call from any thread.
 *   3. The generator: a thread-safe object that mints strictly increasing IDs
 *      of one format from a clock and a CSPRNG, both replaceable; its state
 *      in the process, shared by every process of the host, or in memory
 *      the caller owns under the caller's lock (a region).
 *   4. The generator's core and its driver, for a caller that keeps the
 *      state itself (a database's shared memory, an event loop): the next
 *      ID from a state, a time and random bytes, with no clock, lock or wait
 *      inside.
 *
 * Every function that can fail returns a mintid_status: MINTID_OK (0) or a
 * negative code; mintid_strerror() describes it. The library never prints and
 * never exits.
 */
#ifndef MINTID_H
#define MINTID_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define MINTID_API __declspec(dllexport)
#elif defined(__GNUC__)
#define MINTID_API __attribute__((visibility("default")))
#else
#define MINTID_API
#endif

/* The one place the version is set: CMakeLists.txt, the packages and the
 * changelog read it from here. MINTID_VERSION_STRING is derived. */
#define MINTID_VERSION_MAJOR 0
#define MINTID_VERSION_MINOR 4
#define MINTID_VERSION_PATCH 0
#define MINTID__STR2(x) #x
#define MINTID__STR(x) MINTID__STR2(x)
#define MINTID_VERSION_STRING                                                                                          \
    MINTID__STR(MINTID_VERSION_MAJOR)                                                                                  \
    "." MINTID__STR(MINTID_VERSION_MINOR) "." MINTID__STR(MINTID_VERSION_PATCH)

/* ------------------------------------------------------------------------ */
/* Status codes                                                               */
/* ------------------------------------------------------------------------ */

/*
 * One list, expanded into the enum and into mintid_strerror(),
 * mintid_status_name() and mintid_status_class(): name, value, class (see
 * mintid_class) and text. New codes are only ever added at the end, so
 * existing values never change.
 */
#define MINTID_STATUS_MAP(XX)                                                                                          \
    XX(EINVAL, -1, INPUT, "invalid argument")                                                                          \
    XX(ENOMEM, -2, ENVIRONMENT, "out of memory")                                                                       \
    XX(EFORMAT, -3, INPUT, "unknown format")                                                                           \
    XX(EFORM, -4, INPUT, "text form not defined for this format")                                                      \
    XX(EBUFSIZE, -5, PROGRAM, "output buffer too small")                                                               \
    XX(ELENGTH, -6, INPUT, "wrong length")                                                                             \
    XX(ECHAR, -7, INPUT, "character outside the format's alphabet")                                                    \
    XX(EOVERFLOW, -8, INPUT, "value too large for the format")                                                         \
    XX(ERANGE, -9, INPUT, "field value does not fit its field")                                                        \
    XX(ETIME, -10, INPUT, "timestamp outside the format's range")                                                      \
    XX(EEXHAUSTED, -11, CAPACITY, "sequence exhausted for this millisecond")                                           \
    XX(ECLOCKBACK, -12, CLOCK, "clock moved backwards")                                                                \
    XX(ETIMEDOUT, -13, CLOCK, "wait limit reached before the clock moved on")                                          \
    XX(EFORKED, -14, PROGRAM, "generator was inherited across fork(); create a new one")                               \
    XX(EENTROPY, -15, ENVIRONMENT, "random number generator failed")                                                   \
    XX(ECLOCK, -16, CLOCK, "clock could not be read")                                                                  \
    XX(EINVALID, -17, INPUT, "not a valid ID of this format")                                                          \
    XX(EAMBIGUOUS, -18, INPUT, "ambiguous: several formats or forms match")                                            \
    XX(EPREFIX, -19, INPUT, "invalid type prefix")                                                                     \
    XX(EHOST, -20, ENVIRONMENT, "host-wide state could not be opened, created or mapped (errno says why)")             \
    XX(EHOSTSTATE, -21, ENVIRONMENT, "host-wide state file is damaged or of another version")                          \
    XX(ERANDOM, -22, PROGRAM, "the random pool holds too few bytes: refill it and call again")                         \
    XX(EWARRANT, -23, ENVIRONMENT,                                                                                     \
       "the host's mintidd does not vouch for minting under its node id now (mintid_host_why() says why)")             \
    XX(EBUSY, -24, CAPACITY, "another process holds the host-wide state's lock; try again (mintid_host_why() names it)")

typedef enum mintid_status {
    MINTID_OK = 0,
#define MINTID_XX_(name, value, cls, text) MINTID_##name = value,
    MINTID_STATUS_MAP(MINTID_XX_)
#undef MINTID_XX_
} mintid_status;

/* A static, human-readable description of a status; never NULL. */
MINTID_API const char *mintid_strerror(int status);
/* The status's symbolic name ("MINTID_ELENGTH"); never NULL. */
MINTID_API const char *mintid_status_name(int status);

/* ------------------------------------------------------------------------ */
/* Formats                                                                    */
/* ------------------------------------------------------------------------ */

typedef enum mintid_format_id {
    MINTID_UEXKY = 0,
    MINTID_SCRU160 = 1,
    MINTID_ULID_FLAKE = 2,
    MINTID_ULID_FLAKE_SCALABLE = 3,
    MINTID_CALORIOSA = 4,
    MINTID_NANOFLAKE = 5,
    MINTID_UUIDV7 = 6,
    MINTID_ULID = 7,
    MINTID_SCRU128 = 8,
    MINTID_SNOWFLAKE = 9,
    MINTID_SONYFLAKE = 10,
    MINTID_KSUID = 11,
    MINTID_TYPEID = 12,
    MINTID_FORMAT_COUNT
} mintid_format_id;

/* Which slot of mintid_parts a field is read from and written to. */
typedef enum mintid_role {
    MINTID_ROLE_TIMESTAMP, /* ms since the format's epoch */
    MINTID_ROLE_SEQUENCE,  /* the part that rises within one millisecond */
    MINTID_ROLE_NODE,      /* generator / scalability / node id */
    MINTID_ROLE_RANDOM,    /* fresh random bits per ID (up to 64) */
    MINTID_ROLE_RANDOM80,  /* scru160's 80-bit random field, as bytes */
    MINTID_ROLE_CONSTANT,  /* fixed bits, e.g. caloriosa's prefix bit */
    MINTID_ROLE_DATA,      /* bits only the format's own generator fills (uuidv7's rand_a);
                              no slot in mintid_parts, zero in mintid_id_build() */
    MINTID_ROLE_VIEW       /* part of another field, reported on its own
                              (snowflake's datacenter within node); never packed */
} mintid_role;

typedef struct mintid_field {
    const char *name;  /* the key `mintid inspect` uses, e.g. "sequence" */
    uint8_t offset;    /* first bit, counted from the most significant bit */
    uint8_t width;     /* in bits */
    uint8_t role;      /* a mintid_role */
    uint8_t flags;     /* MINTID_FIELD_* */
    uint64_t constant; /* value of a MINTID_ROLE_CONSTANT field */
} mintid_field;

/*
 * How `mintid inspect` reports a field. By default every field is reported
 * but the timestamp (it is unix_ms and time) and the constant bits.
 */
#define MINTID_FIELD_SHOWN 1u  /* reported although timestamp or constant */
#define MINTID_FIELD_HIDDEN 2u /* not reported */
#define MINTID_FIELD_HEX 4u    /* reported as a string of hex digits, not a number */

/*
 * Text forms, by kind. Not every format has every form (see
 * mintid_format.forms); what a form is in a given format (its alphabet,
 * lengths, case) is in the format table: mintid_format_form().
 */
typedef enum mintid_form {
    MINTID_FORM_TEXT = 0,   /* the format's canonical text */
    MINTID_FORM_INT = 1,    /* the value in unsigned decimal (64-bit formats) */
    MINTID_FORM_HEX = 2,    /* the bytes in lower-case hex, fixed width */
    MINTID_FORM_PADDED = 3, /* the canonical digits, zero-padded to a fixed width */
    MINTID_FORM_CORE = 4,   /* the canonical digits in another project's alphabet */
    MINTID_FORM_UUID = 5,   /* the 128 bits as an RFC 9562 UUID string */
    MINTID_FORM_COUNT,
    MINTID_FORM_ANY = -1 /* decoding only: recognise the form (see mintid_decode) */
} mintid_form;

#define MINTID_FORM_BIT(form) (1u << (form))

typedef enum mintid_overflow_policy {
    MINTID_OVERFLOW_WAIT = 0, /* wait (bounded) for the next millisecond */
    MINTID_OVERFLOW_FAIL = 1  /* return MINTID_EEXHAUSTED, state unchanged */
} mintid_overflow_policy;

typedef enum mintid_rollback_policy {
    MINTID_ROLLBACK_WAIT = 0,  /* wait (bounded) until the clock catches up */
    MINTID_ROLLBACK_REUSE = 1, /* keep the last timestamp, continue its sequence
                                  (within the format's rollback_allowance_ms, if any) */
    MINTID_ROLLBACK_FAIL = 2   /* return MINTID_ECLOCKBACK */
} mintid_rollback_policy;

/* Everything the library knows about one format. Entries are static. */
typedef struct mintid_format {
    mintid_format_id id;
    const char *name;  /* "nanoflake" */
    const char *title; /* one line for people */
    uint8_t bits;      /* 64, 128 or 160 */
    uint8_t nfields;
    const mintid_field *fields; /* most significant first */
    int64_t epoch_ms;           /* Unix ms of timestamp 0 (default, if settable) */
    uint8_t epoch_settable;     /* 1 if a generator may choose its epoch */
    uint8_t node_bits;          /* width of the node id, 0 if the format has none */
    uint8_t node_optional;      /* 1 if the node id is an opt-in (scru160) */
    uint32_t capacity_per_ms;   /* IDs per ms per generator under sustained load (ulid-flake: on
                                   average; scru160: at least); see docs/formats */
    unsigned forms;             /* MINTID_FORM_BIT() of every supported form */
    uint8_t text_min_len;       /* canonical text length range */
    uint8_t text_max_len;
    uint8_t text_sortable; /* 1 if canonical text sorts like the value */
    uint8_t text_nocase;   /* 1 if the text decoder ignores letter case */
    const char *alphabet;  /* the digits of the canonical text, lowest first */
    uint64_t value_max;    /* 64-bit formats: the largest value decoders accept */
    mintid_overflow_policy default_overflow;
    mintid_rollback_policy default_rollback;
    uint8_t entropy_max;            /* largest mintid_config.entropy_size; 0: the format has none */
    const char *capacity_note;      /* how capacity_per_ms holds: "" (exactly), "on average" or "at least" */
    const char *invalid_why;        /* why mintid_id_check() refuses an ID, for people; NULL if it never does */
    uint16_t ts_unit_ms;            /* length of one timestamp unit in ms: 1, 10 (sonyflake), 1000 (ksuid) */
    uint8_t prefix_max;             /* typeid: longest type prefix of the text; 0: the format has none */
    uint32_t rollback_allowance_ms; /* MINTID_ROLLBACK_REUSE absorbs a clock this far behind; 0: any */
    const struct mintid_epoch_name *epoch_names; /* named epochs, ended by a NULL name; NULL: none */
} mintid_format;

/* An epoch known by name ("twitter", "discord"), for formats with a settable epoch. */
typedef struct mintid_epoch_name {
    const char *name;
    int64_t unix_ms;
} mintid_epoch_name;

/* The format with this id, or NULL. */
MINTID_API const mintid_format *mintid_format_get(mintid_format_id id);
/*
 * Writes the names of every format, in table order, separated by ", "
 * ("uexky, scru160, ..."): for messages that list them. Returns the length,
 * or MINTID_EBUFSIZE (MINTID_FORMAT_NAMES_MAX always suffices).
 */
#define MINTID_FORMAT_NAMES_MAX 256
MINTID_API int mintid_format_names(char *buf, size_t cap);
/* The format with this name (exact, lower case), or NULL. */
MINTID_API const mintid_format *mintid_format_find(const char *name);
/* The field playing `role` in `fmt`, or NULL if it has none. */
MINTID_API const mintid_field *mintid_format_field(const mintid_format *fmt, mintid_role role);
/*
 * What one text form is in one format: the facts every face shows and
 * checks (the library's own explanations and guesses read them too).
 * Entries are static, owned by the library, and only ever grow at the end:
 * read them through the pointer, never copy one by its size.
 */
typedef struct mintid_form_info {
    const char *title; /* for people: "base36 zero-padded to 13 characters" */
    /*
     * The digits, lowest value first ("0123456789abcdefghijklmnopqrstuvwxyz"),
     * every character of the form's texts; NULL for a form that is not one
     * run of digits (the UUID string, with its hyphens).
     */
    const char *alphabet;
    /*
     * The length of its texts (a type prefix and its separator not
     * counted): every encoding is within, and a text of a length outside is
     * MINTID_ELENGTH, but for a form without an alphabet, which also reads
     * other spellings (the UUID string: 32 digits, in braces, after urn:uuid:).
     */
    uint8_t min_len;
    uint8_t max_len;
    uint8_t nocase;   /* 1: read in either letter case (written as the alphabet has it); 0: as written */
    uint8_t sortable; /* 1: the texts of valid IDs (mintid_id_check) sort, byte by byte, like the IDs */
    uint8_t guessed;  /* 1: mintid_guess() recognises the format's IDs in this form */
    uint8_t prefixed; /* 1: the form carries the format's type prefix (mintid_format.prefix_max) */
    uint8_t reported; /* 1: mintid_inspect() and the JSON give the ID in this form ("text", "hex", "uuid", "int") */
} mintid_form_info;

/* The facts of `form` in fmt, or NULL when fmt has not got the form (or form is none). */
MINTID_API const mintid_form_info *mintid_format_form(const mintid_format *fmt, mintid_form form);
/* The name of a form ("text", "int", "hex", "padded", "core", "uuid"), or NULL. */
MINTID_API const char *mintid_form_name(mintid_form form);
/* The form with this name, or -2 if there is none. */
MINTID_API int mintid_form_find(const char *name);
/* Largest timestamp field value the format can hold. */
MINTID_API uint64_t mintid_format_max_timestamp(const mintid_format *fmt);

/* ------------------------------------------------------------------------ */
/* The pure core: IDs, parts, codecs                                          */
/* ------------------------------------------------------------------------ */

#define MINTID_ID_MAX_BYTES 20

/*
 * An ID as a plain value: the first bits/8 bytes, big-endian, so that memcmp()
 * orders IDs of one format by value. Bytes past bits/8 are zero.
 */
typedef struct mintid_id {
    uint8_t bytes[MINTID_ID_MAX_BYTES];
} mintid_id;

/* The fields of an ID, one slot per role (see mintid_role). */
typedef struct mintid_parts {
    uint64_t timestamp;    /* ms since the format's epoch, as stored */
    uint64_t sequence;     /* uexky/nanoflake sequence, scru160 counter,
                              ulid-flake randomness, caloriosa increment */
    uint64_t node;         /* nanoflake generator, ulid-flake-scalable scalability */
    uint64_t random;       /* uexky random, scru160 random16, caloriosa random */
    uint8_t random80[10];  /* scru160 random80, big-endian */
    uint64_t reserved_[2]; /* room to grow without changing the size; zero */
} mintid_parts;

/* Big-endian conversion between an ID of a 64-bit format and its value. */
MINTID_API void mintid_id_from_u64(mintid_id *id, uint64_t value);
MINTID_API uint64_t mintid_id_to_u64(const mintid_id *id);
/* memcmp over the format's bytes: <0, 0, >0. */
MINTID_API int mintid_id_compare(const mintid_format *fmt, const mintid_id *a, const mintid_id *b);

/*
 * Builds an ID from its fields. Returns MINTID_ERANGE if a slot the format
 * uses does not fit its field; slots the format does not use must be zero
 * (else MINTID_ERANGE too), so a mistaken format choice cannot pass silently.
 */
MINTID_API int mintid_id_build(const mintid_format *fmt, const mintid_parts *parts, mintid_id *out);

/* Takes an ID apart. Constant fields are not checked; see mintid_id_check(). */
MINTID_API void mintid_id_parse(const mintid_format *fmt, const mintid_id *id, mintid_parts *out);

/*
 * The stricter "is this a well-formed ID" check: constant fields hold their
 * constant (caloriosa's prefix bit), reserved values are absent. Returns
 * MINTID_OK or MINTID_EINVALID.
 */
MINTID_API int mintid_id_check(const mintid_format *fmt, const mintid_id *id);

/*
 * Where a function takes the epoch an ID was minted against, this stands
 * for each format's own default epoch (fmt->epoch_ms).
 */
#define MINTID_EPOCH_DEFAULT (-1LL)

/*
 * The smallest and the largest ID that can carry Unix ms `unix_ms`: the
 * timestamp and constant bits set, every other field at its minimum, and
 * at its maximum. A time window [FROM, TO] is then the ID range
 * [min(FROM), max(TO)], an index range scan. epoch_ms is used only by
 * formats whose epoch is settable (MINTID_EPOCH_DEFAULT: the format's).
 * MINTID_ETIME if no ID of the format can carry that time.
 */
MINTID_API int mintid_range(const mintid_format *fmt, int64_t unix_ms, int64_t epoch_ms, mintid_id *min,
                            mintid_id *max);

/*
 * One record of an ID space: what follows from moving a format's epoch.
 * IDs were minted up to Unix ms mark_ms under old_epoch_ms; under
 * new_epoch_ms an ID's timestamp field (time - epoch, in the format's
 * units: sonyflake's 10 ms, ksuid's second) takes again the values the old
 * IDs took. Returns the last Unix ms at which an ID under the new epoch
 * could carry one of them: no ID may be minted at or before it (the end of
 * a unit). INT64_MIN where none can (the epoch moved earlier, or within one
 * unit: the same IDs).
 */
MINTID_API int64_t mintid_epoch_change_floor(const mintid_format *fmt, int64_t old_epoch_ms, int64_t new_epoch_ms,
                                             int64_t mark_ms);

/* Unix ms of the ID's timestamp, given the epoch it was minted against. */
MINTID_API int64_t mintid_id_unix_ms(const mintid_format *fmt, const mintid_id *id, int64_t epoch_ms);

/* Buffer size that holds any text form of any format, with its NUL. */
#define MINTID_TEXT_MAX 96

/*
 * Writes `form` of `id` into buf (NUL-terminated) and returns its length
 * (> 0), or a negative status: MINTID_EFORM if the format lacks the form,
 * MINTID_EBUFSIZE if cap is too small (MINTID_TEXT_MAX always suffices).
 */
MINTID_API int mintid_encode(const mintid_format *fmt, mintid_form form, const mintid_id *id, char *buf, size_t cap);

/*
 * Decodes `len` bytes of `text` (no NUL needed) in `form`. With
 * MINTID_FORM_ANY the text forms of mintid_decode_any_forms() are tried, in
 * the format's documented order (see docs/formats), and the one that matched
 * is stored in *form_out if form_out is not NULL. A decimal integer never
 * has a leading zero (else MINTID_ECHAR).
 * Errors: MINTID_ELENGTH, MINTID_ECHAR, MINTID_EOVERFLOW, MINTID_EFORM;
 * MINTID_EPREFIX for a text whose type prefix is invalid (typeid);
 * MINTID_EINVALID where the format's decoders refuse what
 * mintid_id_check() refuses (uuidv7: a UUID of another version or variant).
 * On error *out is left unchanged.
 */
MINTID_API int mintid_decode(const mintid_format *fmt, mintid_form form, const char *text, size_t len, mintid_id *out,
                             mintid_form *form_out);

/*
 * Type prefixes (typeid, mintid_format.prefix_max > 0): its canonical text
 * is `prefix_suffix`, or the bare suffix when the prefix is empty; no other
 * form carries a prefix. mintid_encode() writes no prefix; mintid_decode()
 * reads a text with any valid prefix and drops it. A prefix NULL or "" is
 * none.
 */
#define MINTID_PREFIX_MAX 63
/* MINTID_OK if `prefix` (len bytes) is a valid prefix of fmt's text, else MINTID_EPREFIX. */
MINTID_API int mintid_prefix_check(const mintid_format *fmt, const char *prefix, size_t len);
/* As mintid_encode(), with a prefix (MINTID_EPREFIX if it is invalid or the form has none). */
MINTID_API int mintid_encode_prefixed(const mintid_format *fmt, mintid_form form, const mintid_id *id,
                                      const char *prefix, char *buf, size_t cap);
/* As mintid_decode(), storing the text's prefix ("" if none) in prefix_out when it is not NULL. */
MINTID_API int mintid_decode_prefixed(const mintid_format *fmt, mintid_form form, const char *text, size_t len,
                                      mintid_id *out, mintid_form *form_out, char prefix_out[MINTID_PREFIX_MAX + 1]);

/* MINTID_FORM_BIT()s of the forms that MINTID_FORM_ANY recognises. */
MINTID_API unsigned mintid_decode_any_forms(const mintid_format *fmt);

/*
 * Guesses the format of a text from its shape: a format matches if the text
 * is one of its canonical encodings in the forms it is guessed in (its text
 * form, a typeid's with its prefix; scru160's and uuidv7's hex; nanoflake's
 * decimal and padded forms), exactly or, for a form of fixed length, wholly
 * in the other letter case (a lower-case ULID). Returns MINTID_OK with *fmt_out,
 * *id_out and *form_out set; MINTID_EINVALID if nothing matches;
 * MINTID_EAMBIGUOUS if several formats do, with a bit per format id set in
 * *candidates (which may be NULL).
 */
MINTID_API int mintid_guess(const char *text, size_t len, const mintid_format **fmt_out, mintid_id *id_out,
                            mintid_form *form_out, unsigned *candidates);

/*
 * As mintid_guess(), but where several formats match, the one whose
 * timestamp is recent (from MINTID_GUESS_RECENT_MS before now_ms to
 * MINTID_GUESS_AHEAD_MS after it) is taken when it is the only such one:
 * an ID being inspected was most likely minted lately. epoch_ms is used for
 * formats whose epoch is settable. *candidates still lists every match.
 */
#define MINTID_GUESS_RECENT_MS (30LL * 86400000)
#define MINTID_GUESS_AHEAD_MS 86400000LL
MINTID_API int mintid_guess_recent(const char *text, size_t len, int64_t now_ms, int64_t epoch_ms,
                                   const mintid_format **fmt_out, mintid_id *id_out, mintid_form *form_out,
                                   unsigned *candidates);

/*
 * Describes an ID as one JSON object without a newline: "format", "text",
 * "hex", "int" (64-bit formats, a decimal string), "unix_ms", "time" (RFC
 * 3339, or ISO 8601's expanded years past 9999) and the format's fields that
 * inspect reports (see MINTID_FIELD_SHOWN) by name, as numbers up to 53
 * bits, else as strings of decimal (or, MINTID_FIELD_HEX, hex) digits. epoch_ms is used
 * only by formats whose epoch is settable. Returns the length, or
 * MINTID_EBUFSIZE (MINTID_JSON_MAX always suffices).
 */
#define MINTID_JSON_MAX 640
MINTID_API int mintid_id_to_json(const mintid_format *fmt, const mintid_id *id, int64_t epoch_ms, char *buf,
                                 size_t cap);
/*
 * As mintid_id_to_json(), for an ID whose text carries `prefix` (typeid):
 * "text" has it, and "prefix" and "uuid" are set; "unix_ms" and "time" are
 * null when the ID carries no time (a typeid whose UUID is not a UUIDv7).
 * MINTID_EPREFIX if the prefix is invalid.
 */
MINTID_API int mintid_id_to_json_prefixed(const mintid_format *fmt, const mintid_id *id, const char *prefix,
                                          int64_t epoch_ms, char *buf, size_t cap);

/*
 * Explains, in one sentence for people, why mintid_decode() of `text` in
 * `form` returned `status` ("ulid-flake: '8000000000000' exceeds
 * 7ZZZZZZZZZZZZ (2^63-1)"): the character at fault and where, the lengths
 * the form takes, the largest value. The input is escaped as by
 * mintid_escape(). Returns the length, or MINTID_EBUFSIZE (512 bytes
 * always suffice).
 */
MINTID_API int mintid_explain(const mintid_format *fmt, int form, const char *text, size_t len, int status, char *buf,
                              size_t cap);

/*
 * Makes untrusted text safe to show: printable ASCII stays, anything else
 * (and quotes and backslashes) becomes \xNN, and it is cut after 64 bytes.
 * Returns the length written (always NUL-terminated), or MINTID_EBUFSIZE
 * if cap < 8; MINTID_ESCAPED_MAX always suffices.
 */
#define MINTID_ESCAPED_MAX 272
MINTID_API int mintid_escape(const char *text, size_t len, char *buf, size_t cap);

/* ------------------------------------------------------------------------ */
/* One voice: what every face says to people                                 */
/* ------------------------------------------------------------------------ */

/*
 * Every face (the command, mintidd's HTTP and RESP, the SQL extensions,
 * the language modules) takes a person's words through these functions and
 * gives back their sentences, so that the same mistake gets the same answer
 * everywhere. Each returns MINTID_OK, or a status and one sentence for
 * people in why (NUL-terminated, cut to cap; why may be NULL). Untrusted
 * input appears in a sentence escaped as by mintid_escape(). A face adds
 * only how it names the thing in its own words ("--epoch", "epoch=") and
 * maps the status's class (mintid_status_class()) to its own codes.
 * MINTID_WHY_MAX always holds a sentence.
 */
#define MINTID_WHY_MAX 640

/* Whose the fault is: what a face maps to its codes (HTTP, SQLSTATE, an exception class, an exit status). */
typedef enum mintid_class {
    MINTID_CLASS_NONE = 0,        /* MINTID_OK */
    MINTID_CLASS_INPUT = 1,       /* the caller's words: a name, a value, an ID; asking again the same fails again */
    MINTID_CLASS_CLOCK = 2,       /* the clock: behind the last ID, unreadable, or not moving on in time */
    MINTID_CLASS_CAPACITY = 3,    /* not now: the unit's IDs are used up, or the state is busy; ask again */
    MINTID_CLASS_ENVIRONMENT = 4, /* the host: memory, randomness, the host-wide state, the host's mintidd */
    MINTID_CLASS_PROGRAM = 5      /* the calling program's own mistake (a buffer too small, a pool not refilled) */
} mintid_class;
/* The class of a status (MINTID_CLASS_PROGRAM for one the library does not know). */
MINTID_API mintid_class mintid_status_class(int status);
/* "input", "clock", "capacity", "environment", "program" ("" for MINTID_CLASS_NONE). */
MINTID_API const char *mintid_class_name(mintid_class cls);

/*
 * Looks a format up by name (len bytes; formats' names are lower case).
 * MINTID_EFORMAT with the sentence: the format a person most likely meant
 * ("unknown format 'uuid'; did you mean 'uuidv7'?") when one is close
 * enough (another letter case, '_' for '-', a name cut short, a slip of
 * the keyboard), else the list of formats.
 */
MINTID_API int mintid_lookup_format(const char *name, size_t len, const mintid_format **out, char *why, size_t cap);
/* The format a misspelt name most likely means, as above; NULL when none is close enough. */
MINTID_API const mintid_format *mintid_format_suggest(const char *name, size_t len);

/*
 * Looks a form up by name for fmt (NULL: any format's). MINTID_EFORM when
 * there is no such form, or fmt has not got it; the sentence lists the
 * forms there are.
 */
MINTID_API int mintid_lookup_form(const mintid_format *fmt, const char *name, size_t len, mintid_form *out, char *why,
                                  size_t cap);

/*
 * An epoch for fmt (NULL: for a format not yet known, when any format's
 * named epoch is taken): one of its named epochs, or a time as
 * mintid_parse_time() reads it. MINTID_EINVAL when fmt's epoch is fixed,
 * when the text is no time, or when the epoch is negative or in the future.
 * mintid_check_epoch() checks an epoch already in Unix ms the same way.
 */
MINTID_API int mintid_lookup_epoch(const mintid_format *fmt, const char *text, size_t len, int64_t *unix_ms, char *why,
                                   size_t cap);
MINTID_API int mintid_check_epoch(const mintid_format *fmt, int64_t unix_ms, char *why, size_t cap);

/*
 * A type prefix for `form` of fmt (len 0: none, always right). MINTID_EPREFIX
 * when fmt takes none, the form carries none, or the prefix is not one.
 */
MINTID_API int mintid_lookup_prefix(const mintid_format *fmt, int form, const char *prefix, size_t len, char *why,
                                    size_t cap);

/*
 * A node id for fmt (NULL: any format's, checked against the widest node
 * field): a decimal number, "host" (MINTID_NODE_HOST, the host's
 * mintidd's, for a format whose node id is not optional), or "ordinal" /
 * "ordinal+N": the number after the last '-' of the host name's first
 * label (gethostname(); a StatefulSet's pod <set>-<ordinal>), plus N, as
 * a number. mintid_check_node() checks a number (-1: none, always right;
 * with fmt NULL, -2 is host). MINTID_ERANGE when the number (or ordinal
 * plus N) does not fit, or fmt has no node id; MINTID_EINVAL when the
 * text is no number, or the host name ends in no ordinal (or in one with
 * a leading zero); the sentence names the host name.
 */
MINTID_API int mintid_lookup_node(const mintid_format *fmt, const char *text, size_t len, int64_t *node, char *why,
                                  size_t cap);
MINTID_API int mintid_check_node(const mintid_format *fmt, int64_t node, char *why, size_t cap);

/*
 * Reading an ID a person or a program gave: as text, as its bytes, or as
 * the integer value of a 64-bit format. With fmt NULL the format is
 * guessed from the input's shape (a text as mintid_guess() does, bytes by
 * their length and what each format of that length accepts, an integer
 * among the 64-bit formats), taking the one whose time is recent (the
 * system's clock: from MINTID_GUESS_RECENT_MS before now to
 * MINTID_GUESS_AHEAD_MS after) when several match. epoch_ms is used by
 * formats whose epoch is settable (MINTID_EPOCH_DEFAULT: the format's).
 *
 * MINTID_OK with *out filled. Otherwise the decoders' statuses with
 * mintid_explain()'s sentence; MINTID_ELENGTH for an empty text,
 * MINTID_ECHAR for one with a NUL byte; MINTID_EFORM for a form the
 * format has not got, or an integer for a format wider than 64 bits; MINTID_EAMBIGUOUS ("'X' is ambiguous: it could be
 * nanoflake or caloriosa") with out->candidates; MINTID_EINVALID when nothing could be, or when the input decodes but
 * is no ID the format mints (mintid_id_check()): then *out holds it still (out->fmt is set), for a face that shows it
 * anyway. out->fmt is NULL whenever nothing was read.
 */
typedef struct mintid_reading {
    const mintid_format *fmt;           /* named or guessed */
    mintid_id id;                       /* the ID */
    int form;                           /* the text form read; MINTID_FORM_ANY for bytes and integers */
    unsigned candidates;                /* a bit per format id the input could be */
    char prefix[MINTID_PREFIX_MAX + 1]; /* a typeid's type prefix; "" for none */
    uint64_t reserved_[4];
} mintid_reading;
MINTID_API int mintid_read_text(const mintid_format *fmt, int form, int64_t epoch_ms, const char *text, size_t len,
                                mintid_reading *out, char *why, size_t cap);
MINTID_API int mintid_read_bytes(const mintid_format *fmt, int64_t epoch_ms, const void *bytes, size_t len,
                                 mintid_reading *out, char *why, size_t cap);
MINTID_API int mintid_read_u64(const mintid_format *fmt, int64_t epoch_ms, uint64_t value, mintid_reading *out,
                               char *why, size_t cap);

/*
 * An ID described, field by field, as values: what mintid_id_to_json()
 * writes, for a face that builds its own objects (a dict, a row) without
 * parsing JSON. Fields are those inspect reports (see MINTID_FIELD_SHOWN),
 * most significant first.
 */
#define MINTID_FIELDS_MAX 8
typedef struct mintid_field_value {
    const mintid_field *field; /* its name, width and role */
    uint64_t value;            /* the value, for a field of up to 64 bits */
    char digits[52];           /* the value in decimal, or hex for MINTID_FIELD_HEX: any width */
} mintid_field_value;
typedef struct mintid_inspection {
    const mintid_format *fmt;
    char text[MINTID_TEXT_MAX];         /* canonical text, with its type prefix */
    char hex[MINTID_TEXT_MAX];          /* the hex form */
    char uuid[MINTID_TEXT_MAX];         /* a prefixed format's UUID form; "" for others */
    char prefix[MINTID_PREFIX_MAX + 1]; /* the type prefix; "" for none */
    int has_int;                        /* a 64-bit format: value holds the ID's value */
    uint64_t value;
    int has_time;     /* the ID carries a time (not a typeid of another UUID version) */
    int64_t unix_ms;  /* its time */
    char time[32];    /* as mintid_format_time() writes it; "" outside its years */
    unsigned nfields; /* fields[0..nfields) */
    mintid_field_value fields[MINTID_FIELDS_MAX];
    uint64_t reserved_[4];
} mintid_inspection;
/* MINTID_OK, or MINTID_EPREFIX for an invalid prefix (NULL or "": none). */
MINTID_API int mintid_inspect(const mintid_format *fmt, const mintid_id *id, const char *prefix, int64_t epoch_ms,
                              mintid_inspection *out);

/*
 * A format described for people and programs: everything `mintid formats`,
 * mintidd's /v1/formats and the modules' formats() show, as one JSON object
 * without a newline: "name", "title", "bits", "epoch_ms" (under epoch_ms,
 * MINTID_EPOCH_DEFAULT: the format's), "epoch_settable", "epochs" (named
 * ones), "node_bits", "node_max" (null without a node id),
 * "capacity_per_ms", "capacity_note", "unit_ms", "last_unix_ms" and
 * "last_time" (the last time an ID of the format can carry under that
 * epoch), "forms", "prefix_max" and "fields" (name, offset, width, role).
 * Returns the length, or MINTID_EBUFSIZE (MINTID_DESCRIBE_MAX suffices).
 */
#define MINTID_DESCRIBE_MAX 2048
MINTID_API int mintid_describe(const mintid_format *fmt, int64_t epoch_ms, char *buf, size_t cap);
/* The last Unix ms an ID of fmt can carry under epoch_ms (MINTID_EPOCH_DEFAULT: the format's). */
MINTID_API int64_t mintid_format_last_ms(const mintid_format *fmt, int64_t epoch_ms);
/* The name of a role ("timestamp", "sequence", "node", "random", "random80", "constant", "data", "view"). */
MINTID_API const char *mintid_role_name(mintid_role role);

/* ------------------------------------------------------------------------ */
/* The generator                                                              */
/* ------------------------------------------------------------------------ */

/*
 * A clock: returns the current Unix time in milliseconds in *unix_ms and
 * MINTID_OK, or a negative status. Called with the generator's lock held, so
 * it must not call back into the same generator.
 */
typedef int (*mintid_clock_fn)(void *ctx, int64_t *unix_ms);

/*
 * A random source: fills buf with len unpredictable bytes and returns
 * MINTID_OK, or a negative status. Called with the generator's lock held.
 */
typedef int (*mintid_random_fn)(void *ctx, void *buf, size_t len);

typedef struct mintid_config {
    int64_t epoch_ms; /* Unix ms; a format's own unless fmt->epoch_settable; never in the future */
    int64_t node;     /* node id, or -1 for none (see mintid_format.node_bits) */
    mintid_overflow_policy overflow;
    mintid_rollback_policy rollback;
    uint32_t max_wait_ms;  /* upper bound of any wait inside one call */
    unsigned entropy_size; /* ulid-flake: bytes per increment, 1..3 (scalable 1..2) */
    mintid_clock_fn clock; /* NULL: the system's real-time clock */
    void *clock_ctx;
    mintid_random_fn random; /* NULL: libcrypto's DRBG through a fork-safe pool; else asked
                                for up to 16 KiB at a time, under the generator's lock */
    void *random_ctx;
    /* mintid_gen_next_n and mintid_gen_next_u64: how many IDs in a row may
     * share one reading of the clock, 1..MINTID_MAX_IDS_PER_READING. 1 (the
     * default; 0 means the same) reads the clock for every ID. A larger
     * value, for bulk minting, reads it for the first ID of a call and then
     * for every that many; an ID that would find its unit's sequence used
     * up or the clock behind under a reading an earlier ID had reads it
     * again first, and a wait always does. An ID then carries the time read
     * at most that many IDs before it: a microsecond or two, unless the
     * thread is preempted, or a random pool refilled, in between. Order and
     * uniqueness are the same either way. One-ID calls always read it. */
    unsigned ids_per_reading;
    void *reserved_[4]; /* room to grow without changing the size; mintid_config_init() zeroes it */
} mintid_config;

#define MINTID_DEFAULT_MAX_WAIT_MS 1000u
#define MINTID_MAX_IDS_PER_READING 256u
/* Twitter's epoch, 2010-11-04T01:42:54.657Z: the conventional snowflake default. */
#define MINTID_NANOFLAKE_DEFAULT_EPOCH 1288834974657LL

/* Fills *cfg with the defaults of `fmt`. */
MINTID_API void mintid_config_init(mintid_config *cfg, const mintid_format *fmt);

typedef struct mintid_gen mintid_gen;

/*
 * Creates a generator. cfg may be NULL for the format's defaults. Fails with
 * MINTID_EINVAL for a node id out of range (or one given to a format without
 * a node field), MINTID_ETIME for an epoch in the future, MINTID_ENOMEM.
 */
MINTID_API int mintid_gen_new(const mintid_format *fmt, const mintid_config *cfg, mintid_gen **out);
/* Releases a generator; NULL is allowed. Not concurrently with other calls. */
MINTID_API void mintid_gen_free(mintid_gen *gen);
MINTID_API const mintid_format *mintid_gen_format(const mintid_gen *gen);
/* The configuration the generator runs with (defaults filled in). */
MINTID_API const mintid_config *mintid_gen_config(const mintid_gen *gen);

/*
 * Mints the next ID. Thread-safe: one generator may be shared by any number
 * of threads, and every ID it returns is greater than every ID it returned
 * before. May wait (never longer than max_wait_ms) when the sequence of the
 * current millisecond is exhausted or the clock went back, as the policies
 * say. Errors: MINTID_EEXHAUSTED, MINTID_ECLOCKBACK, MINTID_ETIMEDOUT,
 * MINTID_ETIME, MINTID_EFORKED, MINTID_EENTROPY, MINTID_ECLOCK; on error the
 * generator's state is unchanged.
 */
MINTID_API int mintid_gen_next(mintid_gen *gen, mintid_id *out);

/*
 * Mints up to n IDs into out under one lock and returns how many (> 0), or a
 * negative status if not even one could be minted. Returns fewer than n only
 * when an error stopped it; the next call reports that error.
 */
MINTID_API long mintid_gen_next_n(mintid_gen *gen, mintid_id *out, size_t n);

/* As mintid_gen_next_n, for 64-bit formats, writing plain values (else MINTID_EFORMAT). */
MINTID_API long mintid_gen_next_u64(mintid_gen *gen, uint64_t *out, size_t n);

/*
 * Mint now, or say when: as mintid_gen_next_n(), but never waiting for the
 * clock (and, on a host-wide generator opened with try_lock, never for the
 * lock): for an event loop, which parks the request instead. Returns the
 * number of IDs minted (> 0); 0 when none can be minted now, with
 * later->reason and later->retry_ms saying why and from which Unix ms a
 * call can: MINTID_EEXHAUSTED (the unit's IDs are used up: the next unit),
 * MINTID_ECLOCKBACK (the clock is behind the last ID, and the rollback
 * policy waits, or reused the last ID's unit until it was used up: the
 * unit from which a call can), MINTID_EBUSY (another
 * process holds the host-wide lock, mintid_host_why() names it: the next
 * millisecond); or a negative status, as mintid_gen_next_n() (the fail
 * policies fail). Calls on one generator must not overlap: the event
 * loop's thread is its only caller.
 */
typedef struct mintid_later {
    int reason;       /* MINTID_EEXHAUSTED, MINTID_ECLOCKBACK or MINTID_EBUSY */
    int64_t retry_ms; /* the Unix ms from which a call can mint */
    uint64_t reserved_[4];
} mintid_later;
MINTID_API long mintid_gen_try_next_n(mintid_gen *gen, mintid_id *out, size_t n, mintid_later *later);

/*
 * A host-wide generator: its state lives in a small file that every
 * process on the host maps, under a process-shared robust mutex, so that
 * every process minting the same format with the same parameters in the
 * same id space continues one strictly increasing sequence: parallel
 * command runs, pre-forked workers, several programs, mintidd and the
 * command, Python and SQLite beside it. It is used as any generator
 * (mintid_gen_next and the others, mintid_gen_free), at about the same
 * cost.
 *
 * The state file is dir/mintid-<format>[-node<N>][-epoch<ms>][-space-<id
 * space>]: the node id for formats whose node field is not optional (-1
 * counts as 0, as it mints), the epoch for formats whose epoch is
 * settable (in whole timestamp units: two sonyflake epochs in one 10 ms
 * unit mint the same IDs, so they share one file), the id space unless it
 * is "default". Every process that is to share a sequence must use the
 * same directory and id space, and be allowed to write the file (it is
 * made readable and writable by every user; the directory's own
 * permissions decide who may share it: whoever can write the file can
 * stop or break the sequence of every process that shares it). The other
 * settings (policies, entropy size, clock, random source, waits) are each
 * process's own: each keeps the shared sequence increasing whatever they
 * are. A process whose clock is behind the others' waits for them.
 *
 * Guarantees beyond a process generator's:
 * - A reboot never replays a sequence, whatever the clock says after it:
 *   the state keeps a durable mark on disk (a time no ID of it passes,
 *   written and synced MINTID_HOST_MARK_AHEAD_MS ahead of need, so about
 *   once every that many ms while minting), and a state found written
 *   under an earlier boot mints only after that mark. The directory must
 *   be on a disk for this (the default, /var/tmp, is kept across reboots);
 *   in a tmpfs (/dev/shm) the state is lost at a reboot and only the
 *   2 * MINTID_HOST_CHECK_MS floor of a new state remains. A mark that
 *   cannot be written fails the call with MINTID_EHOST: no ID is handed
 *   out past the mark on disk.
 * - A process killed while it holds the lock leaves no repeated ID: the
 *   next holder mints only in a later time unit than any ID before. A lock
 *   word left naming a holder the kernel cannot free (a file copied while
 *   locked, a power loss) is recovered by the first waiter that times out
 *   and finds that thread gone or not mapping the file.
 * - A forked child may go on minting from an inherited host-wide
 *   generator (its random pool is renewed); it needs no new one.
 * - A state file deleted or replaced under running processes does not
 *   split them: before it mints, each process looks again at the path if
 *   MINTID_HOST_CHECK_MS have passed since its last look (or the clock
 *   stepped back), moves to the path's state and raises it above every ID
 *   it issued; a state created new issues nothing in its first
 *   2 * MINTID_HOST_CHECK_MS, the time the other processes take to move.
 *   A process that cannot look at the path (its rights dropped) fails
 *   with MINTID_EHOST rather than go on alone.
 * - The wait for the lock is bounded: a holder stopped (SIGSTOP, a frozen
 *   container) makes the others fail with MINTID_ETIMEDOUT after
 *   max_wait_ms or MINTID_HOST_LOCK_WAIT_MS, whichever is longer, rather
 *   than stall.
 *
 * mintid_gen_new_host() takes the directory (NULL: the environment's, see
 * mintid_env_host_dir()) and the id space from the environment
 * (mintid_env_id_space()); mintid_gen_open_host() takes both from opt.
 *
 * Errors: those of mintid_gen_new(), MINTID_EINVAL (MINTID_HOST_DIR or
 * MINTID_ID_SPACE not as mintid_env_host_dir() and mintid_env_id_space()
 * take them), MINTID_EHOST (errno tells why: a directory missing or not
 * writable, a mark that cannot be synced) and MINTID_EHOSTSTATE (a file at
 * the path that is not such a state, or one of another library version).
 */
#define MINTID_HOST_DIR_DEFAULT "/var/tmp"
#define MINTID_HOST_CHECK_MS 50
#define MINTID_HOST_LOCK_WAIT_MS 1000u
#define MINTID_HOST_MARK_AHEAD_MS 2000
#define MINTID_ID_SPACE_DEFAULT "default"
#define MINTID_ID_SPACE_MAX 64
MINTID_API int mintid_gen_new_host(const mintid_format *fmt, const mintid_config *cfg, const char *dir,
                                   mintid_gen **out);

/* Where a host-wide generator's state lives. May grow: set it with mintid_host_options_init(). */
typedef struct mintid_host_options {
    size_t size;          /* sizeof(mintid_host_options) of the caller's header */
    const char *dir;      /* absolute; NULL: as mintid_env_host_dir() says */
    const char *id_space; /* NULL: as mintid_env_id_space() says */
    /*
     * Nonzero: never wait for the state's lock. A call that finds it held
     * by another process (or thread) fails at once with MINTID_EBUSY, and
     * mintid_host_why() names the holder and how long it has held it: for
     * an event loop, which must never wait for another process (one stopped
     * with SIGSTOP or Ctrl-Z while it holds the lock). A holder that is
     * gone without the kernel freeing the lock (a copied state) is found,
     * and the lock recovered, once it has been seen holding it for
     * MINTID_HOST_LOCK_WAIT_MS.
     */
    int try_lock;
} mintid_host_options;
MINTID_API void mintid_host_options_init(mintid_host_options *opt);
MINTID_API int mintid_gen_open_host(const mintid_format *fmt, const mintid_config *cfg, const mintid_host_options *opt,
                                    mintid_gen **out);

/*
 * mintidd's warrant: the server on a host holds its node id (static, or
 * leased from etcd) and keeps its own guarantees (a floor under the IDs a
 * previous run or holder issued, a mark on disk that no ID passes, a lease
 * that may lapse). Every home that mints in the same host-wide state (the
 * same format, node id, epoch and id space: the command, Python, SQLite,
 * a library user) is held to them through the warrant the server keeps in
 * that state with mintid_gen_warrant(), renewed while its lease and state
 * are good:
 * - no ID at or before floor_ms, from the call on (for every home, the
 *   server's own too);
 * - no ID of another home past ceiling_ms (the server's mark on disk), nor
 *   once until_ns (CLOCK_BOOTTIME) has passed: MINTID_EWARRANT, and
 *   mintid_host_why() names the server and what to do;
 * - a warrant that lapsed stops the other homes until the server renews
 *   it. One whose holder is gone is set aside by a home with a node id of
 *   its own only when the node id was not leased (a leased one may be
 *   another host's by then).
 * The holder's own generators (those it warranted with, pid equal) mint
 * past it: the server checks its bounds itself. asked_ms returns the end
 * of the latest ID another home minted under the warrant (INT64_MIN if
 * none), so that the holder moves its mark ahead of them too.
 *
 * mintid_gen_warrant(gen, NULL) withdraws the caller's warrant (a server
 * stopping that held its node id statically); a leased one is lapsed
 * instead (until_ns = 0), so that nothing mints under a node id another
 * host may take. A withdrawal, or a warrant given with until_ns = 0, waits
 * for the state's lock even on a try_lock generator: it must not be lost
 * to a moment's contention. A renewal (any other until_ns, a past one
 * included) does not: MINTID_EBUSY leaves the last one in force. Only host-wide generators of a format with a node
 * field take a warrant (else MINTID_EINVAL).
 */
typedef struct mintid_warrant {
    size_t size;        /* sizeof(mintid_warrant) of the caller's header */
    int64_t pid;        /* the holder, mintidd's pid (> 0) */
    int64_t floor_ms;   /* no ID at or before this Unix ms; INT64_MIN: none */
    int64_t ceiling_ms; /* no ID of another home past this Unix ms */
    uint64_t until_ns;  /* CLOCK_BOOTTIME: no ID of another home from then on; 0: lapsed */
    int leased;         /* nonzero: the node id is leased, and a lapsed warrant is never set aside */
    int64_t asked_ms;   /* out: see above */
} mintid_warrant;
MINTID_API void mintid_warrant_init(mintid_warrant *w);
MINTID_API int mintid_gen_warrant(mintid_gen *gen, mintid_warrant *w);

/*
 * `node host`: a host-wide generator whose config has node =
 * MINTID_NODE_HOST takes its node id and epoch from the host's mintidd
 * (the one of the same directory and id space), which publishes them with
 * mintid_host_publish() in dir/mintid-node[-space-<id space>]. It then
 * mints at library speed in the server's own sequence, and only under
 * the server's warrant (above): with no server, or one whose lease or
 * state is no longer good, it fails with MINTID_EWARRANT, and
 * mintid_host_why() says why. The node id is read once, at open: after a
 * server leased another one, open the generator again.
 *
 * mintid_host_publish() writes the node ids and epochs of the formats the
 * server `pid` mints, replacing the file whole; nodes may be empty.
 * MINTID_OK, MINTID_EINVAL, MINTID_EHOST (errno).
 */
#define MINTID_NODE_HOST (-2)
typedef struct mintid_host_node {
    const mintid_format *fmt;
    int64_t node;
    int64_t epoch_ms;
} mintid_host_node;
MINTID_API int mintid_host_publish(const mintid_host_options *opt, int64_t pid, const mintid_host_node *nodes,
                                   size_t n);

/*
 * One sentence for people on why the calling thread's last host-wide call
 * failed with MINTID_EWARRANT (or an open with MINTID_NODE_HOST failed);
 * "" if none did.
 */
MINTID_API const char *mintid_host_why(void);

/*
 * The environment, read the same way by every face (the command, Python,
 * SQLite, mintidd's settings of the same names). Each returns MINTID_OK,
 * or MINTID_EINVAL with one sentence for people in why (NUL-terminated,
 * cut to why_cap; why may be NULL).
 * - mintid_env_host_dir: MINTID_HOST_DIR, the host-wide state's directory,
 *   into buf (PATH_MAX bytes suffice); unset or empty:
 *   MINTID_HOST_DIR_DEFAULT. A relative path is refused: processes in
 *   different working directories would mint two sequences.
 * - mintid_env_id_space: MINTID_ID_SPACE, 1..MINTID_ID_SPACE_MAX letters,
 *   digits, '.', '_' and '-', into buf (MINTID_ID_SPACE_MAX + 1 bytes);
 *   unset or empty: MINTID_ID_SPACE_DEFAULT.
 * - mintid_env_node: MINTID_NODE, a node id in decimal, checked against
 *   fmt's node field (NULL: the widest of any format), "ordinal[+N]" (the
 *   host name's, as mintid_lookup_node() reads it), or "host"
 *   (MINTID_NODE_HOST: the host's mintidd's, see above); unset or empty: -1.
 */
MINTID_API int mintid_env_host_dir(char *buf, size_t cap, char *why, size_t why_cap);
MINTID_API int mintid_env_id_space(char *buf, size_t cap, char *why, size_t why_cap);
MINTID_API int mintid_env_node(const mintid_format *fmt, int64_t *node, char *why, size_t why_cap);
/* The host-wide generator's state file ("/dev/shm/mintid-nanoflake-node0-..."), or NULL for a process generator. */
MINTID_API const char *mintid_gen_host_path(const mintid_gen *gen);

/*
 * One sentence for people on why opening a generator of fmt with cfg
 * failed (gen NULL) or why minting from gen failed, with `status` and err
 * (errno as the failed call left it): the host-wide state's path and the
 * system's reason, the host's mintidd's sentence on its warrant, an epoch
 * in the future, a host-wide state minted ahead of the clock. Call it on
 * the thread that made the failed call. Returns the length written.
 */
MINTID_API int mintid_gen_why(const mintid_format *fmt, const mintid_config *cfg, mintid_gen *gen, int status, int err,
                              char *why, size_t cap);

/*
 * No ID of gen from now on carries a time before unix_ms (the unit that
 * holds unix_ms counts only if it starts there); a floor only rises. On a
 * host-wide generator it holds for every process sharing the state: a
 * home with a mark of its own (PostgreSQL's, after a restart) puts it
 * under the shared sequence. MINTID_OK, or an error of the host's lock.
 */
MINTID_API int mintid_gen_set_floor(mintid_gen *gen, int64_t unix_ms);

/* Counters since creation, for metrics. Safe to call at any time. */
typedef struct mintid_gen_stats {
    uint64_t issued;       /* IDs returned */
    uint64_t waits;        /* times a call waited for the clock, or was told to come back later */
    uint64_t rollbacks;    /* times the clock was seen going backwards */
    uint64_t exhausted;    /* times a millisecond's sequence ran out */
    int64_t last_unix_ms;  /* timestamp of the last ID issued, Unix ms; -1 before the first; -2 when
                              nothing could be read now (a try_lock generator found the host-wide lock
                              held: the counters are then 0, not read) */
    uint64_t reserved_[4]; /* room to grow without changing the size */
} mintid_gen_stats;
MINTID_API void mintid_gen_get_stats(mintid_gen *gen, mintid_gen_stats *out);

/* ------------------------------------------------------------------------ */
/* A generator whose state is in the caller's memory                          */
/* ------------------------------------------------------------------------ */

/*
 * A region generator keeps its state in memory the caller owns (a
 * database's shared memory, a mapping the processes of a pre-forked server
 * share) under the caller's own lock, so that every generator made over
 * that memory, in any thread or process, continues one strictly increasing
 * sequence. It is used as any generator (mintid_gen_next and the others,
 * mintid_gen_try_next_n, mintid_gen_set_floor, mintid_gen_get_stats,
 * mintid_gen_free), thread-safe as any, and the same code drives it: the
 * policies, the bounded waits, the counters (each generator's own); a
 * floor set on one holds for every generator over the state.
 *
 * The state is a mintid_region_state: plain data without pointers, so it
 * may be mapped at another address in each process. The caller places it
 * (static, malloc(), mmap(MAP_SHARED), a database's shared memory):
 * sizeof(mintid_region_state) bytes aligned as its type is (8 bytes), set
 * up once with mintid_region_state_init() while no generator is over it
 * (at start, or after a restart), for one format, node id and epoch:
 * a generator of another format, node id or epoch (in whole timestamp
 * units) is refused. floor_ms: no ID of the state carries a time before it
 * (rounded up to its unit), INT64_MIN for none; after a restart, the last
 * mark the caller made durable (below), so that a clock that comes back
 * behind it never replays an ID, and the next mark is raised from it.
 * MINTID_OK, or MINTID_EINVAL (state or fmt NULL, cfg not one
 * mintid_gen_new() accepts).
 *
 * The region (mintid_region, set with mintid_region_init(), then the
 * caller's fields) describes how every generator over the state reaches
 * it; mintid_gen_new_region() copies it, so it need not outlive the call,
 * but the state and ctx must outlive every generator over them:
 * - lock(ctx), unlock(ctx): the caller's lock around every use of the
 *   state, the same for every generator over it (process-shared where
 *   processes share the state: PTHREAD_PROCESS_SHARED, an LWLock). A
 *   generator takes it once per call, never nested, and lets it go while
 *   it waits for the clock; cfg's clock and random source are called with
 *   it held. lock returns MINTID_OK once taken; MINTID_REGION_RECOVERED
 *   when taken but its last holder died holding it (a robust mutex's
 *   EOWNERDEAD, made consistent by the callback): the state may be half
 *   written, and the generator then mints only in units after every one
 *   the state may have issued; or a negative status, which the call
 *   returns with nothing minted (MINTID_EBUSY for a lock not free now, by a
 *   caller that never waits: mintid_gen_try_next_n() then says to come
 *   back the next millisecond; MINTID_ETIMEDOUT).
 * - mark(ctx, unix_ms), optional (NULL: the state is as durable as its
 *   memory): called with the lock held before an ID within
 *   MINTID_HOST_MARK_AHEAD_MS / 2 of the last mark leaves. It makes durable (a WAL record flushed, a file
 *   fsynced) that no ID of the state carries a time at or past unix_ms, and
 *   returns MINTID_OK, or a negative status, which the call returns with no
 *   ID past the old mark. unix_ms is always above the mark made durable; the
 *   mark runs MINTID_HOST_MARK_AHEAD_MS ahead of the IDs, so it is called
 *   about once every MINTID_HOST_MARK_AHEAD_MS / 2 while minting, and at
 *   the first ID of a state. Every generator over a state gives it, or none.
 * - shared: nonzero when the state and the lock are shared with the
 *   processes this one forks (MAP_SHARED memory, a process-shared lock): a
 *   generator inherited by a child then goes on there, with a random pool
 *   of its own, as a host-wide one does. 0: as a process generator, it
 *   fails with MINTID_EFORKED in a child, whose memory is a copy.
 *
 * mintid_gen_new_region(): the errors of mintid_gen_new(), and
 * MINTID_EINVAL, with mintid_gen_why() (gen NULL) saying which argument is
 * wrong: no region, a region not set with mintid_region_init(), no state or
 * one not aligned, a lock without unlock, a state not set up by
 * mintid_region_state_init() (or of another library version), or set up
 * for another format, node id or epoch.
 */
typedef struct mintid_region_state {
    uint64_t opaque_[32]; /* 256 bytes, 8-byte aligned */
} mintid_region_state;

#define MINTID_REGION_RECOVERED 1

/* How generators reach a region's state. May grow: set it with mintid_region_init(). */
typedef struct mintid_region {
    size_t size;                /* sizeof(mintid_region) of the caller's header */
    mintid_region_state *state; /* set up by mintid_region_state_init() */
    int (*lock)(void *ctx);     /* MINTID_OK, MINTID_REGION_RECOVERED, or a negative status: nothing locked */
    void (*unlock)(void *ctx);
    int (*mark)(void *ctx, int64_t unix_ms); /* NULL: no durable mark */
    void *ctx;                               /* passed to the three */
    int shared;                              /* nonzero: state and lock shared with forked children */
} mintid_region;

MINTID_API int mintid_region_state_init(mintid_region_state *state, const mintid_format *fmt, const mintid_config *cfg,
                                        int64_t floor_ms);
MINTID_API void mintid_region_init(mintid_region *region);
MINTID_API int mintid_gen_new_region(const mintid_format *fmt, const mintid_config *cfg, const mintid_region *region,
                                     mintid_gen **out);

/* ------------------------------------------------------------------------ */
/* The generator's core and its driver                                        */
/* ------------------------------------------------------------------------ */

/*
 * What every generator above drives (a process generator, a host-wide one)
 * and what a caller that keeps the state itself drives the same way (the
 * PostgreSQL extension, in the database's shared memory under its own
 * lock): the state of one generator as plain data, and the next ID from it,
 * a time and random bytes. Nothing here reads a clock, takes a lock, waits
 * or keeps anything outside the state and the pool it is given; the caller
 * serialises the calls on one state and decides what to do when an ID
 * cannot be minted now (wait, run ahead, fail).
 */

/* A generator's state: plain data without pointers, so it may live in any
 * memory, shared between processes included. Set up by mintid_core_init(). */
typedef struct mintid_core {
    uint64_t opaque_[8];
} mintid_core;

/*
 * Random bytes for the core: the caller's pool, drawn from in order. The
 * pure core (mintid_core_next) never fills it; the driver
 * (mintid_core_mint) refills it from `fn` (NULL: libcrypto's DRBG, as a
 * generator's) when it runs short, keeping the bytes not yet drawn in
 * front. A pool must not be shared between processes or used by two
 * threads at once; a process that forks gives the child a new one
 * (mintid_pool_init), else both draw the same bytes.
 */
#define MINTID_POOL_BYTES 16384u
typedef struct mintid_pool {
    mintid_random_fn fn;
    void *ctx;
    size_t pos;            /* bytes of buf already drawn; MINTID_POOL_BYTES: empty */
    uint64_t reserved_[2]; /* room to grow without changing the size */
    uint8_t buf[MINTID_POOL_BYTES];
} mintid_pool;

/* An empty pool over a random source (fn NULL: the library's). */
MINTID_API void mintid_pool_init(mintid_pool *pool, mintid_random_fn fn, void *ctx);
/* Refills the pool from its source; on the source's error (MINTID_EENTROPY, or its own status) it is as it was. */
MINTID_API int mintid_pool_refill(mintid_pool *pool);

/* A new state of fmt's generator: no ID yet, no floor. */
MINTID_API void mintid_core_init(const mintid_format *fmt, mintid_core *core);

/*
 * The pure core: the ID after the state's last one, at Unix ms `unix_ms`
 * (in the timestamp unit it falls in, counted from cfg->epoch_ms), drawing
 * random bytes from pool. MINTID_OK: *out written, the state advanced.
 * Otherwise the state is unchanged (random bytes drawn for the attempt
 * are spent, never given to an ID):
 *   MINTID_EEXHAUSTED  the unit is used up (or below the floor): call again
 *                      at the time mintid_core_mint() gives
 *   MINTID_ECLOCKBACK  unix_ms is behind the last ID and cfg->rollback is
 *                      not MINTID_ROLLBACK_REUSE (or beyond its allowance)
 *   MINTID_ETIME       unix_ms outside the format's timestamps
 *   MINTID_ERANDOM     the pool holds too few bytes: refill it, call again
 *                      (the pool is then as it was)
 *   MINTID_EINVAL      cfg is not one mintid_gen_new() accepts
 * cfg must be one mintid_gen_new() accepts (mintid_config_init() and the
 * node, epoch and policies set); its clock, random source, wait limit and
 * ids_per_reading are not used. Every call on one state must pass the same
 * format, node and epoch.
 */
MINTID_API int mintid_core_next(const mintid_format *fmt, const mintid_config *cfg, mintid_core *core, int64_t unix_ms,
                                mintid_pool *pool, mintid_id *out);

/*
 * The driver every generator uses: mintid_core_next(), with the pool
 * refilled from its source when it runs short, and, when the ID cannot be
 * minted at unix_ms (MINTID_EEXHAUSTED, MINTID_ECLOCKBACK), the earliest
 * Unix ms at which a call can succeed in *retry_ms (if retry_ms is not
 * NULL): the caller waits until then, or (a caller that never waits) runs
 * ahead of the clock by calling with that time. Other errors as
 * mintid_core_next(), and the source's error (MINTID_EENTROPY).
 */
MINTID_API int mintid_core_mint(const mintid_format *fmt, const mintid_config *cfg, mintid_core *core, int64_t unix_ms,
                                mintid_pool *pool, mintid_id *out, int64_t *retry_ms);

/*
 * No ID from now on carries a time before Unix ms `unix_ms` (rounded up to
 * the unit it is in): a mark of an earlier run, the IDs of another state.
 * A floor only ever rises; a lower one changes nothing.
 */
MINTID_API void mintid_core_set_floor(const mintid_format *fmt, const mintid_config *cfg, mintid_core *core,
                                      int64_t unix_ms);

/* Unix ms at which the last ID's timestamp unit begins; -1 before the first ID. */
MINTID_API int64_t mintid_core_last_ms(const mintid_format *fmt, const mintid_config *cfg, const mintid_core *core);

/* ------------------------------------------------------------------------ */
/* Utilities                                                                  */
/* ------------------------------------------------------------------------ */

/* The system's real-time clock in Unix ms; matches mintid_clock_fn. */
MINTID_API int mintid_clock_system(void *ctx, int64_t *unix_ms);

/*
 * Fills buf from the library's fork-safe pool over the kernel CSPRNG
 * (getrandom()); matches mintid_random_fn. Thread-safe.
 */
MINTID_API int mintid_random_system(void *ctx, void *buf, size_t len);

/*
 * Writes Unix ms as RFC 3339 UTC with milliseconds ("2026-11-22T01:02:03.456Z");
 * years past 9999 in ISO 8601's expanded form ("+10889-08-02T05:31:50.655Z"),
 * up to +99999; MINTID_ERANGE outside year 0 to +99999.
 */
#define MINTID_TIME_MAX 32
MINTID_API int mintid_format_time(int64_t unix_ms, char *buf, size_t cap);
/*
 * Parses a point in time: Unix ms as a decimal integer, or RFC 3339 UTC
 * ("2015-01-01", "2015-01-01T00:00:00Z", "2015-01-01T00:00:00.123Z").
 */
MINTID_API int mintid_parse_time(const char *text, int64_t *unix_ms);
/*
 * Parses an epoch for fmt: one of its named epochs (fmt->epoch_names,
 * e.g. "discord"), or a time as mintid_parse_time() reads it.
 */
MINTID_API int mintid_parse_epoch(const mintid_format *fmt, const char *text, int64_t *unix_ms);

#ifdef __cplusplus
}
#endif

#endif /* MINTID_H */
