/* SPDX-License-Identifier: MIT */
/*
 * test_voice.c - what every face says: names looked up with the name a
 * person means, node ids, epochs and prefixes checked, IDs read from
 * text, bytes and integers, inspections as values, formats described,
 * the class of every status.
 */
#include "check.h"
#include "mintid.h"

#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const mintid_format *F(mintid_format_id id) { return mintid_format_get(id); }

/* The name a person means by a misspelt one, or none. */
static void test_suggest(void) {
    static const struct {
        const char *typed, *meant;
    } cases[] = {
        {"uuid", "uuidv7"},
        {"UUIDv7", "uuidv7"},
        {"UUID-v7", "uuidv7"},
        {"uuid7", "uuidv7"},
        {"v7", "uuidv7"},
        {"ULID", "ulid"},
        {"ulid_flake", "ulid-flake"},
        {"ulidflake", "ulid-flake"},
        {"ulid-flake-scal", "ulid-flake-scalable"},
        {"snowflak", "snowflake"},
        {"sonyflkae", "sonyflake"},
        {"nanofalke", "nanoflake"},
        {"typid", "typeid"},
        {"ksiud", "ksuid"},
        {"snow", "snowflake"},
        {"scru128x", "scru128"},
        {"scru", NULL},
        {"flake", NULL},
        {"xyz", NULL},
        {"", NULL},
        {"u", NULL},
        {"uuidv4", "uuidv7"},
        {"calorisoa", "caloriosa"},
        {"discord", "snowflake"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const mintid_format *got = mintid_format_suggest(cases[i].typed, strlen(cases[i].typed));
        const char *name = got != NULL ? got->name : "(none)";
        if (cases[i].meant == NULL ? got != NULL : got == NULL || strcmp(got->name, cases[i].meant) != 0) {
            fprintf(stderr, "suggest('%s') = %s, expected %s\n", cases[i].typed, name,
                    cases[i].meant ? cases[i].meant : "(none)");
            check_failures++;
        }
    }
}

static void test_lookups(void) {
    char why[MINTID_WHY_MAX];
    const mintid_format *fmt = NULL;
    CHECK_INT(mintid_lookup_format("nanoflake", 9, &fmt, why, sizeof why), MINTID_OK);
    CHECK(fmt == F(MINTID_NANOFLAKE));
    CHECK_STR(why, "");
    /* Not NUL-terminated: only len bytes count. */
    CHECK_INT(mintid_lookup_format("ulidXYZ", 4, &fmt, why, sizeof why), MINTID_OK);
    CHECK(fmt == F(MINTID_ULID));
    CHECK_INT(mintid_lookup_format("uuid", 4, &fmt, why, sizeof why), MINTID_EFORMAT);
    CHECK_STR(why, "unknown format 'uuid'; did you mean 'uuidv7'?");
    CHECK_INT(mintid_lookup_format("UUIDv7", 6, &fmt, why, sizeof why), MINTID_EFORMAT);
    CHECK_STR(why, "unknown format 'UUIDv7'; did you mean 'uuidv7'?");
    CHECK_INT(mintid_lookup_format("x\"y", 3, &fmt, why, sizeof why), MINTID_EFORMAT);
    CHECK(strncmp(why, "unknown format 'x\\x22y'; formats are uexky, scru160, ", 50) == 0);
    CHECK_INT(mintid_lookup_format("nano\0flake", 10, &fmt, why, sizeof why), MINTID_EFORMAT);
    CHECK_INT(mintid_lookup_format("", 0, &fmt, why, sizeof why), MINTID_EFORMAT);
    CHECK(strncmp(why, "no format named; formats are ", 29) == 0);

    mintid_form form;
    CHECK_INT(mintid_lookup_form(F(MINTID_NANOFLAKE), "padded", 6, &form, why, sizeof why), MINTID_OK);
    CHECK_INT(form, MINTID_FORM_PADDED);
    CHECK_INT(mintid_lookup_form(F(MINTID_NANOFLAKE), "uuid", 4, &form, why, sizeof why), MINTID_EFORM);
    CHECK_STR(why, "nanoflake has no 'uuid' form; its forms are text, int, hex, padded");
    CHECK_INT(mintid_lookup_form(NULL, "base64", 6, &form, why, sizeof why), MINTID_EFORM);
    CHECK_STR(why, "unknown form 'base64'; forms are text, int, hex, padded, core, uuid");

    int64_t ms = 0;
    CHECK_INT(mintid_lookup_epoch(F(MINTID_SNOWFLAKE), "discord", 7, &ms, why, sizeof why), MINTID_OK);
    CHECK_INT(ms, 1420070400000LL);
    CHECK_INT(mintid_lookup_epoch(NULL, "discord", 7, &ms, why, sizeof why), MINTID_OK);
    CHECK_INT(mintid_lookup_epoch(F(MINTID_NANOFLAKE), "2015-01-01T00:00:00Z", 20, &ms, why, sizeof why), MINTID_OK);
    CHECK_INT(ms, 1420070400000LL);
    CHECK_INT(mintid_lookup_epoch(F(MINTID_SNOWFLAKE), "soon", 4, &ms, why, sizeof why), MINTID_EINVAL);
    CHECK_STR(why, "epoch 'soon' is not a time: give Unix milliseconds or RFC 3339 UTC (2015-01-01T00:00:00Z), or one "
                   "of twitter, discord");
    CHECK_INT(mintid_lookup_epoch(F(MINTID_UUIDV7), "0", 1, &ms, why, sizeof why), MINTID_EINVAL);
    CHECK_STR(why, "uuidv7 has a fixed epoch (1970-01-01T00:00:00.000Z)");
    CHECK_INT(mintid_lookup_epoch(F(MINTID_NANOFLAKE), "99999999999999", 14, &ms, why, sizeof why), MINTID_EINVAL);
    CHECK(strstr(why, "is in the future") != NULL);
    CHECK_INT(mintid_check_epoch(F(MINTID_NANOFLAKE), -5, why, sizeof why), MINTID_EINVAL);
    CHECK_INT(mintid_check_epoch(F(MINTID_UUIDV7), 0, why, sizeof why), MINTID_OK);

    CHECK_INT(mintid_lookup_prefix(F(MINTID_TYPEID), MINTID_FORM_TEXT, "user", 4, why, sizeof why), MINTID_OK);
    CHECK_INT(mintid_lookup_prefix(F(MINTID_TYPEID), MINTID_FORM_TEXT, "", 0, why, sizeof why), MINTID_OK);
    CHECK_INT(mintid_lookup_prefix(F(MINTID_TYPEID), MINTID_FORM_TEXT, "User", 4, why, sizeof why), MINTID_EPREFIX);
    CHECK_STR(why, "prefix 'User': a typeid prefix is 1 to 63 of a-z and '_', starting and ending with a letter");
    CHECK_INT(mintid_lookup_prefix(F(MINTID_TYPEID), MINTID_FORM_UUID, "user", 4, why, sizeof why), MINTID_EPREFIX);
    CHECK_INT(mintid_lookup_prefix(F(MINTID_ULID), MINTID_FORM_TEXT, "user", 4, why, sizeof why), MINTID_EPREFIX);
    CHECK_STR(why, "prefix 'user': ulid has no type prefix");

    int64_t node = 0;
    CHECK_INT(mintid_lookup_node(F(MINTID_NANOFLAKE), "1023", 4, &node, why, sizeof why), MINTID_OK);
    CHECK_INT(node, 1023);
    CHECK_INT(mintid_lookup_node(F(MINTID_NANOFLAKE), "host", 4, &node, why, sizeof why), MINTID_OK);
    CHECK_INT(node, MINTID_NODE_HOST);
    CHECK_INT(mintid_lookup_node(F(MINTID_NANOFLAKE), "1024", 4, &node, why, sizeof why), MINTID_ERANGE);
    CHECK_STR(why, "node 1024 is out of range: nanoflake's node ids are 0..1023");
    CHECK_INT(mintid_lookup_node(F(MINTID_NANOFLAKE), "-1", 2, &node, why, sizeof why), MINTID_EINVAL);
    CHECK_STR(why, "node '-1' is not a node id: give 0..1023, or host");
    CHECK_INT(mintid_lookup_node(F(MINTID_UUIDV7), "1", 1, &node, why, sizeof why), MINTID_ERANGE);
    CHECK_STR(why, "uuidv7 has no node id");
    CHECK_INT(mintid_lookup_node(F(MINTID_SCRU160), "host", 4, &node, why, sizeof why), MINTID_ERANGE);
    CHECK_INT(mintid_lookup_node(F(MINTID_NANOFLAKE), "99999999999999999999", 20, &node, why, sizeof why),
              MINTID_ERANGE);
    CHECK_STR(why, "node 99999999999999999999 is out of range: nanoflake's node ids are 0..1023");
    CHECK_INT(mintid_lookup_node(F(MINTID_NANOFLAKE), "9223372036854775807", 19, &node, why, sizeof why),
              MINTID_ERANGE);
    CHECK_STR(why, "node 9223372036854775807 is out of range: nanoflake's node ids are 0..1023");
    CHECK_INT(mintid_check_node(F(MINTID_NANOFLAKE), 1024, why, sizeof why), MINTID_ERANGE);
    CHECK_INT(mintid_check_node(F(MINTID_NANOFLAKE), -1, why, sizeof why), MINTID_OK);
    CHECK_INT(mintid_check_node(NULL, 65535, why, sizeof why), MINTID_OK);
    CHECK_INT(mintid_check_node(NULL, 65536, why, sizeof why), MINTID_ERANGE);
    CHECK_STR(why, "node 65536 is out of range: node ids are 0..65535");

    /* The environment speaks with the same sentence. */
    setenv("MINTID_NODE", "1024", 1);
    CHECK_INT(mintid_env_node(F(MINTID_NANOFLAKE), &node, why, sizeof why), MINTID_EINVAL);
    CHECK_STR(why, "MINTID_NODE: node 1024 is out of range: nanoflake's node ids are 0..1023");
    unsetenv("MINTID_NODE");
}

/*
 * ordinal and ordinal+N: the number that ends the host name. The host
 * name is set in a UTS namespace of a child's own (a user namespace's
 * when not root), so that the test host's is never touched.
 */
static void ordinal_cases(void) {
    static const struct {
        const char *host, *text;
        int format; /* -1: none given, the widest field */
        int status;
        int64_t node;
        const char *why;
    } cases[] = {
        {"ids-3", "ordinal", MINTID_NANOFLAKE, MINTID_OK, 3, ""},
        {"ids-3", "ordinal+2", MINTID_NANOFLAKE, MINTID_OK, 5, ""},
        {"ids-0", "ordinal+0", MINTID_NANOFLAKE, MINTID_OK, 0, ""},
        {"my-ids-1021", "ordinal+2", MINTID_NANOFLAKE, MINTID_OK, 1023, ""},
        {"ids-65535", "ordinal", -1, MINTID_OK, 65535, ""},
        {"ids-3", "ordinal+2", MINTID_SCRU160, MINTID_OK, 5, ""},
        /* setHostnameAsFQDN: the pod's name is the first label. */
        {"ids-7.ids.default.svc.cluster.local", "ordinal", MINTID_SNOWFLAKE, MINTID_OK, 7, ""},
        {"ids", "ordinal+2", MINTID_NANOFLAKE, MINTID_EINVAL, -9,
         "node 'ordinal+2': the host name 'ids' does not end in '-' and a number, as the names of a StatefulSet's "
         "pods do (web-0, web-1, ...)"},
        {"ids-x", "ordinal", MINTID_NANOFLAKE, MINTID_EINVAL, -9,
         "node 'ordinal': the host name 'ids-x' does not end in '-' and a number, as the names of a StatefulSet's "
         "pods do (web-0, web-1, ...)"},
        {"ids-", "ordinal", MINTID_NANOFLAKE, MINTID_EINVAL, -9,
         "node 'ordinal': the host name 'ids-' does not end in '-' and a number, as the names of a StatefulSet's "
         "pods do (web-0, web-1, ...)"},
        {"ids-+3", "ordinal", MINTID_NANOFLAKE, MINTID_EINVAL, -9,
         "node 'ordinal': the host name 'ids-+3' does not end in '-' and a number, as the names of a StatefulSet's "
         "pods do (web-0, web-1, ...)"},
        {"ids-03", "ordinal", MINTID_NANOFLAKE, MINTID_EINVAL, -9,
         "node 'ordinal': the number that ends the host name 'ids-03' has a leading zero, which a StatefulSet "
         "never gives (and ids-3 would take the same node id)"},
        {"ids-00", "ordinal", MINTID_NANOFLAKE, MINTID_EINVAL, -9,
         "node 'ordinal': the number that ends the host name 'ids-00' has a leading zero, which a StatefulSet "
         "never gives (and ids-0 would take the same node id)"},
        {"ids-1022", "ordinal+2", MINTID_NANOFLAKE, MINTID_ERANGE, -9,
         "node 'ordinal+2' on host 'ids-1022' is 1024, out of range: nanoflake's node ids are 0..1023"},
        {"ids-32", "ordinal", MINTID_ULID_FLAKE_SCALABLE, MINTID_ERANGE, -9,
         "node 'ordinal' on host 'ids-32' is 32, out of range: ulid-flake-scalable's node ids are 0..31"},
        {"ids-65535", "ordinal+1", -1, MINTID_ERANGE, -9,
         "node 'ordinal+1' on host 'ids-65535' is 65536, out of range: node ids are 0..65535"},
        {"ids-18446744073709551615", "ordinal+1", MINTID_NANOFLAKE, MINTID_ERANGE, -9,
         "node 'ordinal+1' on host 'ids-18446744073709551615' is out of range: nanoflake's node ids are 0..1023"},
        {"ids-99999999999999999999", "ordinal", MINTID_NANOFLAKE, MINTID_ERANGE, -9,
         "node 'ordinal' on host 'ids-99999999999999999999' is out of range: nanoflake's node ids are 0..1023"},
        /* The offset is refused on any host, with or without an ordinal. */
        {"ids", "ordinal+1024", MINTID_NANOFLAKE, MINTID_ERANGE, -9,
         "node 'ordinal+1024' is out of range whatever the host: nanoflake's node ids are 0..1023"},
        {"ids-3", "ordinal+99999999999999999999", MINTID_NANOFLAKE, MINTID_ERANGE, -9,
         "node 'ordinal+99999999999999999999' is out of range whatever the host: nanoflake's node ids are 0..1023"},
        {"ids-3", "ordinal+02", MINTID_NANOFLAKE, MINTID_EINVAL, -9,
         "node 'ordinal+02' is not a node id: give ordinal, or ordinal+N with N in 0..1023"},
        {"ids-3", "ordinal+", MINTID_NANOFLAKE, MINTID_EINVAL, -9,
         "node 'ordinal+' is not a node id: give ordinal, or ordinal+N with N in 0..1023"},
        {"ids-3", "ordinal-1", MINTID_NANOFLAKE, MINTID_EINVAL, -9,
         "node 'ordinal-1' is not a node id: give ordinal, or ordinal+N with N in 0..1023"},
        {"ids-3", "ordinal+-1", MINTID_NANOFLAKE, MINTID_EINVAL, -9,
         "node 'ordinal+-1' is not a node id: give ordinal, or ordinal+N with N in 0..1023"},
        {"ids-3", "ordinals", MINTID_NANOFLAKE, MINTID_EINVAL, -9,
         "node 'ordinals' is not a node id: give ordinal, or ordinal+N with N in 0..1023"},
        {"ids-3", "ordinal", MINTID_UUIDV7, MINTID_ERANGE, -9, "uuidv7 has no node id"},
    };
    char why[MINTID_WHY_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (sethostname(cases[i].host, strlen(cases[i].host)) != 0) {
            fprintf(stderr, "sethostname(%s): %s\n", cases[i].host, strerror(errno));
            check_failures++;
            continue;
        }
        const mintid_format *fmt = cases[i].format >= 0 ? F((mintid_format_id)cases[i].format) : NULL;
        int64_t node = -9;
        int rc = mintid_lookup_node(fmt, cases[i].text, strlen(cases[i].text), &node, why, sizeof why);
        if (rc != cases[i].status || node != cases[i].node || strcmp(why, cases[i].why) != 0) {
            fprintf(stderr, "host %s, node %s: status %d, node %" PRId64 ", \"%s\"; expected %d, %" PRId64 ", \"%s\"\n",
                    cases[i].host, cases[i].text, rc, node, why, cases[i].status, cases[i].node, cases[i].why);
            check_failures++;
        }
    }
    /* Not NUL-terminated: only len bytes count. */
    CHECK_INT(sethostname("ids-3", 5), 0);
    int64_t node = -9;
    CHECK_INT(mintid_lookup_node(F(MINTID_NANOFLAKE), "ordinal+2x", 9, &node, why, sizeof why), MINTID_OK);
    CHECK_INT(node, 5);
    CHECK_INT(mintid_lookup_node(F(MINTID_NANOFLAKE), "ordinal+\0", 9, &node, why, sizeof why), MINTID_EINVAL);
    CHECK_STR(why, "node 'ordinal+\\x00' is not a node id: give ordinal, or ordinal+N with N in 0..1023");

    /* MINTID_NODE reads it the same way, for every embedded home. */
    setenv("MINTID_NODE", "ordinal+2", 1);
    CHECK_INT(mintid_env_node(F(MINTID_NANOFLAKE), &node, why, sizeof why), MINTID_OK);
    CHECK_INT(node, 5);
    CHECK_INT(sethostname("ids", 3), 0);
    CHECK_INT(mintid_env_node(F(MINTID_NANOFLAKE), &node, why, sizeof why), MINTID_EINVAL);
    CHECK_INT(node, -1);
    CHECK_STR(why, "MINTID_NODE: node 'ordinal+2': the host name 'ids' does not end in '-' and a number, as the "
                   "names of a StatefulSet's pods do (web-0, web-1, ...)");
    unsetenv("MINTID_NODE");
}

static void test_ordinal(void) {
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        if (unshare(CLONE_NEWUTS) != 0 && unshare(CLONE_NEWUSER | CLONE_NEWUTS) != 0) {
            fprintf(stderr, "test_ordinal needs root, or user namespaces, to set a host name of its own: %s\n",
                    strerror(errno));
            _exit(1);
        }
        ordinal_cases();
        fflush(stderr);
        _exit(check_failures != 0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_read(void) {
    char why[MINTID_WHY_MAX];
    mintid_reading r;
    CHECK_INT(mintid_read_text(NULL, MINTID_FORM_ANY, MINTID_EPOCH_DEFAULT, "01ARZ3NDEKTSV4RRFFQ69G5FAV", 26, &r, why,
                               sizeof why),
              MINTID_OK);
    CHECK(r.fmt == F(MINTID_ULID));
    CHECK_INT(r.form, MINTID_FORM_TEXT);
    CHECK_INT(mintid_read_text(F(MINTID_ULID), MINTID_FORM_ANY, MINTID_EPOCH_DEFAULT, "01ARZ3NDEKTSV4RRFFQ69G5FAU!", 27,
                               &r, why, sizeof why),
              MINTID_ELENGTH);
    CHECK(strncmp(why, "ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAU!' has the wrong length (27)", 61) == 0);
    CHECK_INT(mintid_read_text(F(MINTID_ULID), MINTID_FORM_TEXT, MINTID_EPOCH_DEFAULT, "01ARZ3NDEKTSV4RRFFQ69G5FAV", 26,
                               &r, why, sizeof why),
              MINTID_OK);
    CHECK_INT(mintid_read_text(F(MINTID_ULID), MINTID_FORM_TEXT, MINTID_EPOCH_DEFAULT, "01ARZ3NDEKTSV4RRFFQ69G5FAI", 26,
                               &r, why, sizeof why),
              MINTID_ECHAR);
    CHECK_STR(why, "ulid: '01ARZ3NDEKTSV4RRFFQ69G5FAI': 'I' at position 26 is not a ulid digit "
                   "(0123456789ABCDEFGHJKMNPQRSTVWXYZ)");
    CHECK_INT(mintid_read_text(NULL, MINTID_FORM_ANY, MINTID_EPOCH_DEFAULT, "", 0, &r, why, sizeof why),
              MINTID_ELENGTH);
    CHECK_STR(why, "an empty text is not an ID");
    CHECK_INT(mintid_read_text(NULL, MINTID_FORM_ANY, MINTID_EPOCH_DEFAULT, "a\0b", 3, &r, why, sizeof why),
              MINTID_ECHAR);
    CHECK_STR(why, "'a\\x00b' contains a NUL byte");
    CHECK_INT(mintid_read_text(NULL, MINTID_FORM_ANY, MINTID_EPOCH_DEFAULT, "hello world", 11, &r, why, sizeof why),
              MINTID_EINVALID);
    CHECK_STR(why, "'hello world' does not have the shape of any format's ID");
    /* A small decimal: every 64-bit format could read it, none is recent. */
    CHECK_INT(mintid_read_text(NULL, MINTID_FORM_ANY, MINTID_EPOCH_DEFAULT, "12345", 5, &r, why, sizeof why),
              MINTID_EAMBIGUOUS);
    CHECK(strncmp(why, "'12345' is ambiguous: it could be ", 34) == 0);
    CHECK(r.candidates != 0 && r.fmt == NULL);
    /* A UUID of version 4 is read as uuidv7's form but refused, the ID kept. */
    CHECK_INT(mintid_read_text(F(MINTID_UUIDV7), MINTID_FORM_ANY, MINTID_EPOCH_DEFAULT,
                               "9b2b4c1e-7c55-4b6f-9d2e-0a4a1c3b5d6e", 36, &r, why, sizeof why),
              MINTID_EINVALID);
    CHECK(strstr(why, "uuidv7") != NULL);
    CHECK_INT(mintid_read_text(F(MINTID_TYPEID), MINTID_FORM_ANY, MINTID_EPOCH_DEFAULT,
                               "user_01h455vb4pex5vsknk084sn02q", 31, &r, why, sizeof why),
              MINTID_OK);
    CHECK_STR(r.prefix, "user");
    CHECK_INT(
        mintid_read_text(F(MINTID_NANOFLAKE), MINTID_FORM_UUID, MINTID_EPOCH_DEFAULT, "1", 1, &r, why, sizeof why),
        MINTID_EFORM);

    /* Bytes: named, or guessed among the formats of their length. */
    uint8_t b[20] = {0};
    CHECK_INT(mintid_read_bytes(F(MINTID_NANOFLAKE), MINTID_EPOCH_DEFAULT, b, 5, &r, why, sizeof why), MINTID_ELENGTH);
    CHECK_STR(why, "nanoflake: 5 bytes are no ID; a nanoflake is 8 bytes");
    CHECK_INT(mintid_read_bytes(NULL, MINTID_EPOCH_DEFAULT, b, 5, &r, why, sizeof why), MINTID_ELENGTH);
    CHECK_STR(why, "5 bytes are no ID of any format: an ID is 8, 16 or 20 bytes");
    CHECK_INT(mintid_read_bytes(NULL, MINTID_EPOCH_DEFAULT, b, 8, &r, why, sizeof why), MINTID_EAMBIGUOUS);
    CHECK(strncmp(why, "8 bytes are ambiguous: they could be ", 37) == 0);
    mintid_gen *gen;
    mintid_id id;
    CHECK_INT(mintid_gen_new(F(MINTID_UUIDV7), NULL, &gen), MINTID_OK);
    CHECK_INT(mintid_gen_next(gen, &id), MINTID_OK);
    mintid_gen_free(gen);
    /* A fresh UUIDv7's bytes: ulid, scru128 and typeid take 16 bytes too, but only uuidv7's time is recent
     * and valid... unless another reads it as recent too: then it is ambiguous, never wrong. */
    int rc = mintid_read_bytes(NULL, MINTID_EPOCH_DEFAULT, id.bytes, 16, &r, why, sizeof why);
    CHECK(rc == MINTID_OK || rc == MINTID_EAMBIGUOUS);
    CHECK(rc != MINTID_OK || r.fmt == F(MINTID_UUIDV7) || r.fmt == F(MINTID_ULID) || r.fmt == F(MINTID_TYPEID));
    CHECK_INT(mintid_read_bytes(F(MINTID_UUIDV7), MINTID_EPOCH_DEFAULT, id.bytes, 16, &r, why, sizeof why), MINTID_OK);
    CHECK(memcmp(r.id.bytes, id.bytes, 16) == 0);
    CHECK_INT(r.form, MINTID_FORM_ANY);
    memset(b, 0xff, 8);
    CHECK_INT(mintid_read_bytes(F(MINTID_NANOFLAKE), MINTID_EPOCH_DEFAULT, b, 8, &r, why, sizeof why),
              MINTID_EOVERFLOW);

    /* Integers: the 64-bit formats only. */
    CHECK_INT(mintid_read_u64(F(MINTID_UUIDV7), MINTID_EPOCH_DEFAULT, 5, &r, why, sizeof why), MINTID_EFORM);
    CHECK_INT(mintid_read_u64(F(MINTID_SNOWFLAKE), MINTID_EPOCH_DEFAULT, 175928847299117063ULL, &r, why, sizeof why),
              MINTID_OK);
    CHECK_U64(mintid_id_to_u64(&r.id), 175928847299117063ULL);
    CHECK_INT(mintid_read_u64(F(MINTID_NANOFLAKE), MINTID_EPOCH_DEFAULT, UINT64_MAX, &r, why, sizeof why),
              MINTID_EOVERFLOW);
    CHECK(strncmp(why, "nanoflake: '18446744073709551615' exceeds", 41) == 0);
    CHECK_INT(mintid_read_u64(NULL, MINTID_EPOCH_DEFAULT, 7, &r, why, sizeof why), MINTID_EAMBIGUOUS);
    CHECK(strncmp(why, "7 is ambiguous: it could be ", 28) == 0);
}

static void test_inspect(void) {
    mintid_inspection in;
    mintid_id id;
    char json[MINTID_JSON_MAX];
    mintid_id_from_u64(&id, 175928847299117063ULL);
    CHECK_INT(mintid_inspect(F(MINTID_SNOWFLAKE), &id, NULL, MINTID_EPOCH_DEFAULT, &in), MINTID_OK);
    CHECK_STR(in.text, "175928847299117063");
    CHECK(in.has_int && in.value == 175928847299117063ULL);
    CHECK(in.has_time);
    CHECK_INT(in.unix_ms, (175928847299117063LL >> 22) + 1288834974657LL);
    CHECK_STR(in.time, "2012-03-03T13:01:20.453Z");
    CHECK(in.nfields > 0 && in.nfields <= MINTID_FIELDS_MAX);
    CHECK(mintid_id_to_json(F(MINTID_SNOWFLAKE), &id, MINTID_EPOCH_DEFAULT, json, sizeof json) > 0);
    for (unsigned i = 0; i < in.nfields; i++) {
        char key[64];
        snprintf(key, sizeof key, "\"%s\":%s%s", in.fields[i].field->name,
                 in.fields[i].field->flags & MINTID_FIELD_HEX ? "\"" : "", in.fields[i].digits);
        CHECK(strstr(json, key) != NULL);
        CHECK_U64(strtoull(in.fields[i].digits, NULL, in.fields[i].field->flags & MINTID_FIELD_HEX ? 16 : 10),
                  in.fields[i].value);
    }
    /* Every format's every field fits the struct. */
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++)
        CHECK(F((mintid_format_id)f)->nfields <= MINTID_FIELDS_MAX);
    CHECK_INT(mintid_inspect(F(MINTID_TYPEID), &id, "Bad", MINTID_EPOCH_DEFAULT, &in), MINTID_EPREFIX);
}

static void test_describe(void) {
    char buf[MINTID_DESCRIBE_MAX];
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = F((mintid_format_id)f);
        int n = mintid_describe(fmt, MINTID_EPOCH_DEFAULT, buf, sizeof buf);
        CHECK(n > 0 && (size_t)n == strlen(buf));
        CHECK(strstr(buf, fmt->name) != NULL);
        /* The last millisecond carries the largest timestamp; the next does not fit. */
        int64_t last = mintid_format_last_ms(fmt, MINTID_EPOCH_DEFAULT);
        mintid_id lo, hi;
        CHECK_INT(mintid_range(fmt, last, MINTID_EPOCH_DEFAULT, &lo, &hi), MINTID_OK);
        if (last < INT64_MAX)
            CHECK_INT(mintid_range(fmt, last + 1, MINTID_EPOCH_DEFAULT, &lo, &hi), MINTID_ETIME);
    }
    CHECK_INT(mintid_describe(F(MINTID_NANOFLAKE), MINTID_EPOCH_DEFAULT, buf, 10), MINTID_EBUFSIZE);
    CHECK(strstr((mintid_describe(F(MINTID_SNOWFLAKE), MINTID_EPOCH_DEFAULT, buf, sizeof buf), buf),
                 "\"epochs\":{\"twitter\":1288834974657,\"discord\":1420070400000}") != NULL);
    CHECK_STR(mintid_role_name(MINTID_ROLE_NODE), "node");
}

static void test_classes(void) {
    CHECK_INT(mintid_status_class(MINTID_OK), MINTID_CLASS_NONE);
    CHECK_INT(mintid_status_class(MINTID_ECHAR), MINTID_CLASS_INPUT);
    CHECK_INT(mintid_status_class(MINTID_EFORMAT), MINTID_CLASS_INPUT);
    CHECK_INT(mintid_status_class(MINTID_ECLOCKBACK), MINTID_CLASS_CLOCK);
    CHECK_INT(mintid_status_class(MINTID_EEXHAUSTED), MINTID_CLASS_CAPACITY);
    CHECK_INT(mintid_status_class(MINTID_EBUSY), MINTID_CLASS_CAPACITY);
    CHECK_INT(mintid_status_class(MINTID_EHOST), MINTID_CLASS_ENVIRONMENT);
    CHECK_INT(mintid_status_class(MINTID_EBUFSIZE), MINTID_CLASS_PROGRAM);
    CHECK_INT(mintid_status_class(-999), MINTID_CLASS_PROGRAM);
    CHECK_STR(mintid_class_name(MINTID_CLASS_CAPACITY), "capacity");
    /* Every status has a class other than none. */
    for (int s = -1; s >= -64; s--)
        if (strcmp(mintid_status_name(s), "MINTID_UNKNOWN") != 0)
            CHECK(mintid_status_class(s) != MINTID_CLASS_NONE);
}

static void test_gen_why(void) {
    char why[MINTID_WHY_MAX];
    mintid_config cfg;
    mintid_gen *gen = NULL;
    mintid_config_init(&cfg, F(MINTID_NANOFLAKE));
    cfg.epoch_ms = 99999999999999LL;
    int rc = mintid_gen_new(F(MINTID_NANOFLAKE), &cfg, &gen);
    CHECK_INT(rc, MINTID_ETIME);
    mintid_gen_why(F(MINTID_NANOFLAKE), &cfg, NULL, rc, 0, why, sizeof why);
    CHECK_STR(why, "nanoflake: the epoch 99999999999999 (5138-11-16T09:46:39.999Z) is in the future");
    mintid_host_options opt;
    mintid_host_options_init(&opt);
    opt.dir = "/nonexistent/mintid-test";
    mintid_config_init(&cfg, F(MINTID_NANOFLAKE));
    rc = mintid_gen_open_host(F(MINTID_NANOFLAKE), &cfg, &opt, &gen);
    CHECK_INT(rc, MINTID_EHOST);
    mintid_gen_why(F(MINTID_NANOFLAKE), &cfg, NULL, rc, 2, why, sizeof why);
    CHECK_STR(why, "nanoflake: cannot use the host-wide state in /nonexistent/mintid-test: No such file or directory "
                   "(MINTID_HOST_DIR names its directory)");
    /* A short buffer gets a cut sentence, never more. */
    CHECK_INT(mintid_gen_why(F(MINTID_NANOFLAKE), &cfg, NULL, rc, 2, why, 10), 9);
}

/* ---- forms: the table's facts against what the codecs do --------------------------------------------------------- */

static uint64_t form_rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next_random(void) {
    form_rng ^= form_rng << 13;
    form_rng ^= form_rng >> 7;
    form_rng ^= form_rng << 17;
    return form_rng;
}

/*
 * A random ID the format holds (mintid_id_check), of every magnitude: a
 * 64-bit value shifted right by a random amount, so that short texts
 * come up as often as long ones.
 */
static void random_valid_id(const mintid_format *fmt, mintid_id *id) {
    do {
        memset(id, 0, sizeof *id);
        for (unsigned b = 0; b < fmt->bits / 8u; b++)
            id->bytes[b] = (uint8_t)next_random();
        if (fmt->bits == 64) {
            uint64_t v = mintid_id_to_u64(id) >> (next_random() % 64);
            mintid_id_from_u64(id, v > fmt->value_max ? fmt->value_max - (v & 0xff) : v);
        }
    } while (mintid_id_check(fmt, id) != MINTID_OK);
}

static bool in_alphabet(const char *alphabet, const char *text) {
    for (; *text != '\0'; text++)
        if (strchr(alphabet, *text) == NULL)
            return false;
    return true;
}

static int sign(int v) { return (v > 0) - (v < 0); }

#define FORM_IDS 400

static void check_form(const mintid_format *fmt, mintid_form form, const mintid_form_info *in) {
    static mintid_id ids[FORM_IDS];
    static char texts[FORM_IDS][MINTID_TEXT_MAX];
    char other[MINTID_TEXT_MAX], json[MINTID_JSON_MAX];
    const char *name = mintid_form_name(form);
    CHECK(in->title != NULL && in->title[0] != '\0');
    /* mintid_guess() tries a format's forms as MINTID_FORM_ANY does: a guessed form is one of those. */
    CHECK(!in->guessed || (mintid_decode_any_forms(fmt) & MINTID_FORM_BIT(form)));
    CHECK(in->min_len >= 1 && in->min_len <= in->max_len && in->max_len < MINTID_TEXT_MAX);
    if (in->alphabet != NULL) {
        size_t base = strlen(in->alphabet);
        CHECK(base >= 10 && base <= 64);
        for (size_t i = 0; i < base; i++) {
            char c = in->alphabet[i];
            CHECK(strchr(in->alphabet + i + 1, c) == NULL); /* no digit twice */
            if (in->nocase && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
                CHECK(strchr(in->alphabet, c ^ 0x20) == NULL); /* a case rule needs one case of each letter */
        }
    }
    bool unsorted = false, differ_in_case = false;
    for (int k = 0; k < FORM_IDS; k++) {
        mintid_id id, back;
        random_valid_id(fmt, &id);
        ids[k] = id;
        int n = mintid_encode(fmt, form, &id, texts[k], sizeof texts[k]);
        if (n < in->min_len || n > in->max_len || (in->alphabet != NULL && !in_alphabet(in->alphabet, texts[k]))) {
            fprintf(stderr, "%s %s: '%s' (%d) is not %u..%u of %s\n", fmt->name, name, texts[k], n, in->min_len,
                    in->max_len, in->alphabet != NULL ? in->alphabet : "(no alphabet)");
            check_failures++;
            continue;
        }
        CHECK(mintid_decode(fmt, form, texts[k], (size_t)n, &back, NULL) == MINTID_OK &&
              mintid_id_compare(fmt, &id, &back) == 0);
        /* The case rule: the same ID in the other case, or no such ID (a case-sensitive alphabet). */
        for (int i = 0; i <= n; i++) {
            char c = texts[k][i];
            other[i] = (char)((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ? c ^ 0x20 : c);
        }
        if (strcmp(other, texts[k]) != 0) {
            int rc = mintid_decode(fmt, form, other, (size_t)n, &back, NULL);
            bool same = rc == MINTID_OK && mintid_id_compare(fmt, &id, &back) == 0;
            if (same != (in->nocase != 0)) {
                fprintf(stderr, "%s %s: '%s' in the other case %s\n", fmt->name, name, texts[k],
                        same ? "reads the same ID, but nocase is 0" : "does not read the same ID, but nocase is 1");
                check_failures++;
            }
            differ_in_case = true;
        }
        /* Sorting: every pair agrees when the form is sortable; some pair does not when it is not. */
        for (int j = 0; j < k; j++) {
            int by_text = sign(strcmp(texts[j], texts[k])), by_id = sign(mintid_id_compare(fmt, &ids[j], &id));
            if (by_text != by_id) {
                if (in->sortable && !unsorted)
                    fprintf(stderr, "%s %s: '%s' and '%s' sort unlike their IDs, but sortable is 1\n", fmt->name, name,
                            texts[j], texts[k]);
                unsorted = true;
            }
        }
        /* Guessing: an ID in a guessed form is found (perhaps among others); never in another. */
        const mintid_format *got = NULL;
        mintid_form got_form = MINTID_FORM_ANY;
        unsigned candidates = 0;
        int rc = mintid_guess(texts[k], (size_t)n, &got, &back, &got_form, &candidates);
        if (in->guessed) {
            CHECK(candidates & (1u << fmt->id));
            CHECK(rc == MINTID_EAMBIGUOUS || (rc == MINTID_OK && got == fmt));
        } else {
            CHECK(!(rc == MINTID_OK && got == fmt && got_form == form));
        }
        /* The type prefix: written before this form's text only where it carries it. */
        if (fmt->prefix_max > 0) {
            int p = mintid_encode_prefixed(fmt, form, &id, "user", other, sizeof other);
            CHECK(in->prefixed ? p == n + 5 && strcmp(other + 5, texts[k]) == 0 : p == MINTID_EPREFIX);
        }
        /* Reported: inspect gives the ID in this form (there is a slot for text, hex, int and uuid). */
        mintid_inspection insp;
        CHECK_INT(mintid_inspect(fmt, &id, NULL, MINTID_EPOCH_DEFAULT, &insp), MINTID_OK);
        CHECK_INT(mintid_id_to_json(fmt, &id, MINTID_EPOCH_DEFAULT, json, sizeof json) > 0, 1);
        char key[MINTID_TEXT_MAX + 16];
        snprintf(key, sizeof key, "\"%s\":\"%.*s\"", name, MINTID_TEXT_MAX - 1, texts[k]);
        switch (form) {
        case MINTID_FORM_TEXT:
            CHECK(in->reported && strcmp(insp.text, texts[k]) == 0);
            break;
        case MINTID_FORM_HEX:
            CHECK(in->reported && strcmp(insp.hex, texts[k]) == 0);
            break;
        case MINTID_FORM_UUID:
            CHECK(in->reported ? strcmp(insp.uuid, texts[k]) == 0 : insp.uuid[0] == '\0');
            break;
        case MINTID_FORM_INT:
            CHECK(in->reported ? insp.has_int && insp.value == strtoull(texts[k], NULL, 10) : !insp.has_int);
            break;
        default:
            CHECK(!in->reported);
            break;
        }
        CHECK((strstr(json, key) != NULL) == (in->reported != 0));
    }
    if (!in->sortable && !unsorted) {
        fprintf(stderr, "%s %s: every pair of %d texts sorts like its IDs, but sortable is 0\n", fmt->name, name,
                FORM_IDS);
        check_failures++;
    }
    if (in->sortable && unsorted)
        check_failures++;
    CHECK(differ_in_case || in->alphabet == NULL || strpbrk(in->alphabet, "abcdefghijklmnopqrstuvwxyz") == NULL ||
          !in->nocase);
    /* Lengths: outside min..max, a form of digits refuses a text for its length first. */
    if (in->alphabet != NULL) {
        size_t lens[] = {0, (size_t)in->min_len - 1, (size_t)in->max_len + 1, (size_t)in->max_len + 9};
        char digits[MINTID_TEXT_MAX + 16];
        memset(digits, in->alphabet[1], sizeof digits);
        for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
            mintid_id scratch;
            int rc = mintid_decode(fmt, form, digits, lens[i], &scratch, NULL);
            if (rc != MINTID_ELENGTH) {
                fprintf(stderr, "%s %s: a text of %zu characters is %s, not MINTID_ELENGTH (min_len %u, max_len %u)\n",
                        fmt->name, name, lens[i], mintid_status_name(rc), in->min_len, in->max_len);
                check_failures++;
            }
        }
        for (size_t len = in->min_len; len <= in->max_len; len++) {
            mintid_id scratch;
            CHECK(mintid_decode(fmt, form, digits, len, &scratch, NULL) != MINTID_ELENGTH);
        }
    }
}

static void test_forms(void) {
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = F((mintid_format_id)f);
        mintid_id id;
        char text[MINTID_TEXT_MAX];
        random_valid_id(fmt, &id);
        CHECK(mintid_format_form(fmt, MINTID_FORM_ANY) == NULL && mintid_format_form(fmt, MINTID_FORM_COUNT) == NULL);
        for (int form = 0; form < MINTID_FORM_COUNT; form++) {
            const mintid_form_info *in = mintid_format_form(fmt, (mintid_form)form);
            /* The facts are there exactly for the forms the format has. */
            CHECK((in != NULL) == ((fmt->forms & MINTID_FORM_BIT(form)) != 0));
            CHECK((in != NULL) == (mintid_encode(fmt, (mintid_form)form, &id, text, sizeof text) > 0));
            if (in != NULL)
                check_form(fmt, (mintid_form)form, in);
        }
        /* The text form's facts are the format's own. */
        const mintid_form_info *t = mintid_format_form(fmt, MINTID_FORM_TEXT);
        CHECK(t != NULL && mintid_format_form(fmt, MINTID_FORM_HEX) != NULL);
        if (t == NULL)
            continue;
        CHECK_INT(t->min_len, fmt->text_min_len);
        CHECK_INT(t->sortable, fmt->text_sortable);
        CHECK_INT(t->nocase, fmt->text_nocase);
        CHECK_INT(t->prefixed, fmt->prefix_max > 0);
        CHECK(t->alphabet == NULL || strcmp(t->alphabet, fmt->alphabet) == 0);
    }
    /* A few facts people rely on, as the format pages give them. */
    const mintid_form_info *padded = mintid_format_form(F(MINTID_NANOFLAKE), MINTID_FORM_PADDED);
    CHECK(padded != NULL && padded->min_len == 13 && padded->max_len == 13 && padded->sortable);
    const mintid_form_info *core = mintid_format_form(F(MINTID_CALORIOSA), MINTID_FORM_CORE);
    CHECK(core != NULL &&
          strcmp(core->alphabet, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") == 0);
    CHECK(mintid_format_form(F(MINTID_ULID), MINTID_FORM_PADDED) == NULL);
    CHECK(mintid_format_form(NULL, MINTID_FORM_TEXT) == NULL);
}

int main(void) {
    test_suggest();
    test_lookups();
    test_ordinal();
    test_read();
    test_inspect();
    test_describe();
    test_classes();
    test_gen_why();
    test_forms();
    return CHECK_DONE();
}
