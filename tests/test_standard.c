/* SPDX-License-Identifier: MIT */
/*
 * test_standard.c - every vector of the seven standard formats' pages
 * (docs/formats: uuidv7, ulid, scru128, snowflake, sonyflake, ksuid and
 * typeid; first transcribed from STANDARD-FORMATS.md, the resolution the
 * formats were written from), both ways: text -> ID -> hex, fields and inspect JSON, and
 * hex -> ID -> canonical text; every accepted alternative spelling; every
 * string the spec says to reject; the range vectors; and the generator
 * traces, replayed with a scripted clock and a scripted random source.
 */
#include "check.h"
#include "mintid.h"

#include <inttypes.h>
#include <stdlib.h>

#define NOTIME INT64_MIN     /* inspect reports "unix_ms":null and "time":null */
#define T_A6 1645557742000LL /* RFC 9562 A.6: 2022-02-22T19:22:22.000Z */

static const mintid_format *find(const char *name) {
    const mintid_format *fmt = mintid_format_find(name);
    if (fmt == NULL) {
        fprintf(stderr, "no format named %s\n", name);
        exit(1);
    }
    return fmt;
}

/* The epoch a vector is read against: the format's own, or one given by name or time. */
static int64_t epoch_of(const mintid_format *fmt, const char *epoch) {
    int64_t ms = MINTID_EPOCH_DEFAULT;
    if (epoch != NULL)
        CHECK_INT(mintid_parse_epoch(fmt, epoch, &ms), MINTID_OK);
    return ms;
}

static void fail_at(int line, const char *what, const char *got, const char *want) {
    fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, line, what, got, want);
    check_failures++;
}

/* ---- inspect JSON ------------------------------------------------------------------- */

/* Whether `json` holds `member` ("\"rand_a\":3267") as a whole member of its top-level object. */
static int json_has(const char *json, const char *member) {
    size_t n = strlen(member);
    for (const char *p = strstr(json, member); p != NULL; p = strstr(p + 1, member))
        if (p > json && (p[-1] == '{' || p[-1] == ',') && (p[n] == ',' || p[n] == '}'))
            return 1;
    return 0;
}

/*
 * The keys of a flat JSON object whose strings hold no quotes or escapes
 * (inspect's), space-separated into keys. Returns 0 if it does not parse.
 */
static int json_keys(const char *json, char *keys, size_t cap) {
    const char *p = json;
    size_t len = 0;
    keys[0] = '\0';
    if (*p++ != '{')
        return 0;
    for (;;) {
        if (*p++ != '"')
            return 0;
        const char *end = strchr(p, '"');
        if (end == NULL || end[1] != ':' || len + (size_t)(end - p) + 2 > cap)
            return 0;
        memcpy(keys + len, p, (size_t)(end - p));
        len += (size_t)(end - p);
        keys[len++] = ' ';
        keys[len] = '\0';
        p = end + 2;
        if (*p == '"') {
            p = strchr(p + 1, '"');
            if (p == NULL)
                return 0;
            p++;
        } else {
            while (*p != '\0' && *p != ',' && *p != '}')
                p++;
        }
        if (*p == '}')
            return p[1] == '\0';
        if (*p++ != ',')
            return 0;
    }
}

/* The members inspect reports for each format (section 0's table), besides format/text/hex/unix_ms/time. */
static const struct {
    const char *format;
    const char *keys[6];
} json_fields[] = {
    {"uuidv7", {"version", "variant", "rand_a", "rand_b"}},
    {"ulid", {"randomness"}},
    {"scru128", {"counter_hi", "counter_lo", "entropy"}},
    {"snowflake", {"int", "node", "datacenter", "worker", "sequence"}},
    {"sonyflake", {"int", "elapsed", "sequence", "machine"}},
    {"ksuid", {"timestamp", "payload"}},
    {"typeid", {"prefix", "uuid", "version", "variant"}},
};

/* The JSON has exactly the keys of section 0: no fewer, no more, none twice. */
static void check_json_keys(const char *format, const char *json, int line) {
    char keys[512];
    if (!json_keys(json, keys, sizeof keys)) {
        fail_at(line, "inspect JSON (does not parse)", json, "{...}");
        return;
    }
    const char *want[12] = {"format", "text", "hex", "unix_ms", "time"};
    size_t nwant = 5;
    for (size_t i = 0; i < sizeof json_fields / sizeof json_fields[0]; i++)
        if (strcmp(json_fields[i].format, format) == 0)
            for (size_t k = 0; k < 6 && json_fields[i].keys[k] != NULL; k++)
                want[nwant++] = json_fields[i].keys[k];
    size_t nkeys = 0;
    for (const char *p = keys; *p != '\0'; p++)
        nkeys += *p == ' ';
    for (size_t i = 0; i < nwant; i++) {
        char probe[64];
        snprintf(probe, sizeof probe, " %s ", want[i]);
        char spaced[520];
        snprintf(spaced, sizeof spaced, " %s", keys);
        if (strstr(spaced, probe) == NULL)
            fail_at(line, "inspect JSON keys (one missing)", keys, want[i]);
    }
    if (nkeys != nwant) {
        char list[256] = "";
        for (size_t i = 0; i < nwant; i++) {
            strcat(list, want[i]);
            strcat(list, " ");
        }
        fail_at(line, "inspect JSON keys", keys, list);
    }
}

static void check_member(const char *json, const char *member, int line) {
    if (!json_has(json, member))
        fail_at(line, "inspect JSON (a member missing or different)", json, member);
}

/* ---- decoding vectors ------------------------------------------------------------------- */

typedef struct dvec {
    int line;
    const char *format;
    const char *text;   /* the canonical text */
    const char *hex;    /* NULL for the 64-bit formats: the hex of the decimal text */
    const char *epoch;  /* NULL: the format's default epoch */
    const char *prefix; /* typeid: the text's prefix; NULL: none */
    int64_t unix_ms;    /* NOTIME: null in inspect */
    const char *time;
    const char *members[8]; /* members of the inspect JSON, exactly as written */
} dvec;

#define V(...)                                                                                                         \
    { __LINE__, __VA_ARGS__ }

static const dvec dvecs[] = {
    /* 1. uuidv7 */
    V("uuidv7", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f", "017f22e279b07cc398c4dc0c0c07398f", NULL, NULL, 1645557742000,
      "2022-02-22T19:22:22.000Z",
      {"\"version\":7", "\"variant\":2", "\"rand_a\":3267", "\"rand_b\":\"1784793296645077391\""}),
    V("uuidv7", "017f22e2-79b0-7000-8000-000000000000", "017f22e279b070008000000000000000", NULL, NULL, 1645557742000,
      "2022-02-22T19:22:22.000Z", {"\"version\":7", "\"variant\":2", "\"rand_a\":0", "\"rand_b\":\"0\""}),
    V("uuidv7", "017f22e2-79b0-7fff-bfff-ffffffffffff", "017f22e279b07fffbfffffffffffffff", NULL, NULL, 1645557742000,
      "2022-02-22T19:22:22.000Z",
      {"\"version\":7", "\"variant\":2", "\"rand_a\":4095", "\"rand_b\":\"4611686018427387903\""}),
    V("uuidv7", "00000000-0000-7000-8000-000000000000", "00000000000070008000000000000000", NULL, NULL, 0,
      "1970-01-01T00:00:00.000Z", {"\"version\":7", "\"variant\":2", "\"rand_a\":0", "\"rand_b\":\"0\""}),
    V("uuidv7", "ffffffff-ffff-7fff-bfff-ffffffffffff", "ffffffffffff7fffbfffffffffffffff", NULL, NULL, 281474976710655,
      "+10889-08-02T05:31:50.655Z",
      {"\"version\":7", "\"variant\":2", "\"rand_a\":4095", "\"rand_b\":\"4611686018427387903\""}),
    /* 2. ulid */
    V("ulid", "01ARYZ6S41TSV4RRFFQ69G5FAV", "01563df36481d6764c61efb99302bd5b", NULL, NULL, 1469918176385,
      "2016-07-30T22:36:16.385Z", {"\"randomness\":\"1012768647078601740696923\""}),
    V("ulid", "01AN4Z07BY79KA1307SR9X4MV3", "015549f01d7e3a66a08c07ce13d25363", NULL, NULL, 1465824320894,
      "2016-06-13T13:25:20.894Z", {"\"randomness\":\"275790392532082281829219\""}),
    V("ulid", "01BX5ZZKBKACTAV9WEVGEMMVRZ", "015f4bffcd735334ada78edc1d4a6f1f", NULL, NULL, 1508808576371,
      "2017-10-24T01:29:36.371Z", {"\"randomness\":\"392928161897179156999967\""}),
    V("ulid", "01BX5ZZKBKACTAV9WEVGEMMVS0", "015f4bffcd735334ada78edc1d4a6f20", NULL, NULL, 1508808576371,
      "2017-10-24T01:29:36.371Z", {"\"randomness\":\"392928161897179156999968\""}),
    V("ulid", "01BX5ZZKBKZZZZZZZZZZZZZZZZ", "015f4bffcd73ffffffffffffffffffff", NULL, NULL, 1508808576371,
      "2017-10-24T01:29:36.371Z", {"\"randomness\":\"1208925819614629174706175\""}),
    V("ulid", "01ARYZ6S410000000000000000", "01563df3648100000000000000000000", NULL, NULL, 1469918176385,
      "2016-07-30T22:36:16.385Z", {"\"randomness\":\"0\""}),
    V("ulid", "01ARYZ6S41ZZZZZZZZZZZZZZZZ", "01563df36481ffffffffffffffffffff", NULL, NULL, 1469918176385,
      "2016-07-30T22:36:16.385Z", {"\"randomness\":\"1208925819614629174706175\""}),
    V("ulid", "00000000000000000000000000", "00000000000000000000000000000000", NULL, NULL, 0,
      "1970-01-01T00:00:00.000Z", {"\"randomness\":\"0\""}),
    V("ulid", "7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "ffffffffffffffffffffffffffffffff", NULL, NULL, 281474976710655,
      "+10889-08-02T05:31:50.655Z", {"\"randomness\":\"1208925819614629174706175\""}),
    /* 3. scru128 */
    V("scru128", "0000000000000000000000000", "00000000000000000000000000000000", NULL, NULL, 0,
      "1970-01-01T00:00:00.000Z", {"\"counter_hi\":0", "\"counter_lo\":0", "\"entropy\":0"}),
    V("scru128", "0372hg16csmsm50l8dikcvukc", "017fee7fef417e2b3432ac2ec553687c", NULL, NULL, 1648973836097,
      "2022-04-03T08:17:16.097Z", {"\"counter_hi\":8268596", "\"counter_lo\":3320878", "\"entropy\":3310577788"}),
    V("scru128", "0372hg16cy3nowracls909wcd", "017fee7fef427e2b346c0ff414bbcffd", NULL, NULL, 1648973836098,
      "2022-04-03T08:17:16.098Z", {"\"counter_hi\":8268596", "\"counter_lo\":7081972", "\"entropy\":347852797"}),
    V("scru128", "0372ijojuxuhjsfkeryi2mrtm", "017fef39c2641ba56a9483188841e05a", NULL, NULL, 1648986014308,
      "2022-04-03T11:40:14.308Z", {"\"counter_hi\":1811818", "\"counter_lo\":9732888", "\"entropy\":2286018650"}),
    V("scru128", "f5lxx1zz5pnorynqglhzmsp33", "ffffffffffffffffffffffffffffffff", NULL, NULL, 281474976710655,
      "+10889-08-02T05:31:50.655Z", {"\"counter_hi\":16777215", "\"counter_lo\":16777215", "\"entropy\":4294967295"}),
    V("scru128", "0372hg16cpxrrsugrf72fmm0w", "017fee7fef4100000000000000000000", NULL, NULL, 1648973836097,
      "2022-04-03T08:17:16.097Z", {"\"counter_hi\":0", "\"counter_lo\":0", "\"entropy\":0"}),
    V("scru128", "0372hg16cvemukgqtm7zp43jz", "017fee7fef41ffffffffffffffffffff", NULL, NULL, 1648973836097,
      "2022-04-03T08:17:16.097Z", {"\"counter_hi\":16777215", "\"counter_lo\":16777215", "\"entropy\":4294967295"}),
    /* 4. snowflake: node = datacenter << 5 | worker */
    V("snowflake", "175928847299117063", NULL, "discord", NULL, 1462015105796, "2016-04-30T11:18:25.796Z",
      {"\"node\":32", "\"datacenter\":1", "\"worker\":0", "\"sequence\":7"}),
    V("snowflake", "175928847299117063", NULL, "twitter", NULL, 1330779680453, "2012-03-03T13:01:20.453Z",
      {"\"node\":32", "\"datacenter\":1", "\"worker\":0", "\"sequence\":7"}),
    V("snowflake", "175928847299117063", NULL, NULL, NULL, 1330779680453, "2012-03-03T13:01:20.453Z",
      {"\"node\":32", "\"datacenter\":1", "\"worker\":0", "\"sequence\":7"}),
    V("snowflake", "1541815603605819392", NULL, NULL, NULL, 1656432460105, "2022-06-28T16:07:40.105Z",
      {"\"node\":325", "\"datacenter\":10", "\"worker\":5", "\"sequence\":0"}),
    V("snowflake", "1541815603604639744", NULL, NULL, NULL, 1656432460105, "2022-06-28T16:07:40.105Z",
      {"\"node\":37", "\"datacenter\":1", "\"worker\":5", "\"sequence\":0"}),
    V("snowflake", "1541815603604639745", NULL, NULL, NULL, 1656432460105, "2022-06-28T16:07:40.105Z",
      {"\"node\":37", "\"datacenter\":1", "\"worker\":5", "\"sequence\":1"}),
    V("snowflake", "1541815603604643839", NULL, NULL, NULL, 1656432460105, "2022-06-28T16:07:40.105Z",
      {"\"node\":37", "\"datacenter\":1", "\"worker\":5", "\"sequence\":4095"}),
    V("snowflake", "1541815603608834048", NULL, NULL, NULL, 1656432460106, "2022-06-28T16:07:40.106Z",
      {"\"node\":37", "\"datacenter\":1", "\"worker\":5", "\"sequence\":0"}),
    V("snowflake", "1541815603604488192", NULL, NULL, NULL, 1656432460105, "2022-06-28T16:07:40.105Z",
      {"\"node\":0", "\"datacenter\":0", "\"worker\":0", "\"sequence\":0"}),
    V("snowflake", "1541815603608682495", NULL, NULL, NULL, 1656432460105, "2022-06-28T16:07:40.105Z",
      {"\"node\":1023", "\"datacenter\":31", "\"worker\":31", "\"sequence\":4095"}),
    V("snowflake", "175928847298985984", NULL, "discord", NULL, 1462015105796, "2016-04-30T11:18:25.796Z",
      {"\"node\":0", "\"datacenter\":0", "\"worker\":0", "\"sequence\":0"}),
    V("snowflake", "175928847303180287", NULL, "discord", NULL, 1462015105796, "2016-04-30T11:18:25.796Z",
      {"\"node\":1023", "\"datacenter\":31", "\"worker\":31", "\"sequence\":4095"}),
    V("snowflake", "0", NULL, NULL, NULL, 1288834974657, "2010-11-04T01:42:54.657Z",
      {"\"node\":0", "\"datacenter\":0", "\"worker\":0", "\"sequence\":0"}),
    V("snowflake", "9223372036854775807", NULL, NULL, NULL, 3487858230208, "2080-07-10T17:30:30.208Z",
      {"\"node\":1023", "\"datacenter\":31", "\"worker\":31", "\"sequence\":4095"}),
    V("snowflake", "9223372036854775807", NULL, "discord", NULL, 3619093655551, "2084-09-06T15:47:35.551Z",
      {"\"node\":1023", "\"datacenter\":31", "\"worker\":31", "\"sequence\":4095"}),
    /* 5. sonyflake: value = elapsed << 24 | sequence << 16 | machine */
    V("sonyflake", "0", NULL, NULL, NULL, 1409529600000, "2014-09-01T00:00:00.000Z",
      {"\"elapsed\":0", "\"sequence\":0", "\"machine\":0"}),
    V("sonyflake", "16777217", NULL, NULL, NULL, 1409529600010, "2014-09-01T00:00:00.010Z",
      {"\"elapsed\":1", "\"sequence\":0", "\"machine\":1"}),
    V("sonyflake", "487328464442294530", NULL, NULL, NULL, 1700000000120, "2023-11-14T22:13:20.120Z",
      {"\"elapsed\":29047040012", "\"sequence\":5", "\"machine\":258"}),
    V("sonyflake", "487328464441970834", NULL, NULL, NULL, 1700000000120, "2023-11-14T22:13:20.120Z",
      {"\"elapsed\":29047040012", "\"sequence\":0", "\"machine\":4242"}),
    V("sonyflake", "487328464442036370", NULL, NULL, NULL, 1700000000120, "2023-11-14T22:13:20.120Z",
      {"\"elapsed\":29047040012", "\"sequence\":1", "\"machine\":4242"}),
    V("sonyflake", "487328464458682514", NULL, NULL, NULL, 1700000000120, "2023-11-14T22:13:20.120Z",
      {"\"elapsed\":29047040012", "\"sequence\":255", "\"machine\":4242"}),
    V("sonyflake", "487328464458748050", NULL, NULL, NULL, 1700000000130, "2023-11-14T22:13:20.130Z",
      {"\"elapsed\":29047040013", "\"sequence\":0", "\"machine\":4242"}),
    V("sonyflake", "487328464441966592", NULL, NULL, NULL, 1700000000120, "2023-11-14T22:13:20.120Z",
      {"\"elapsed\":29047040012", "\"sequence\":0", "\"machine\":0"}),
    V("sonyflake", "487328464458743807", NULL, NULL, NULL, 1700000000120, "2023-11-14T22:13:20.120Z",
      {"\"elapsed\":29047040012", "\"sequence\":255", "\"machine\":65535"}),
    V("sonyflake", "647422653962911751", NULL, NULL, NULL, 1795423573090, "2026-11-23T08:46:13.090Z",
      {"\"elapsed\":38589397309", "\"sequence\":0", "\"machine\":7"}),
    V("sonyflake", "57563299184836609", NULL, "2025-01-01", NULL, 1770000000000, "2026-02-02T02:40:00.000Z",
      {"\"elapsed\":3431040000", "\"sequence\":3", "\"machine\":1"}),
    V("sonyflake", "57563299184836609", NULL, "1735689600000", NULL, 1770000000000, "2026-02-02T02:40:00.000Z",
      {"\"elapsed\":3431040000", "\"sequence\":3", "\"machine\":1"}),
    V("sonyflake", "9223372036854775807", NULL, NULL, NULL, 6907087738870, "2188-11-16T03:28:58.870Z",
      {"\"elapsed\":549755813887", "\"sequence\":255", "\"machine\":65535"}),
    /* A start inside a 10 ms unit counts from that unit's start: (floor(start / 10) + elapsed) * 10. */
    V("sonyflake", "16777217", NULL, "1409529600005", NULL, 1409529600010, "2014-09-01T00:00:00.010Z",
      {"\"elapsed\":1", "\"sequence\":0", "\"machine\":1"}),
    /* 6. ksuid */
    V("ksuid", "0ujtsYcgvSTl8PAuAdqWYSMnLOv", "0669f7efb5a1cd34b5f99d1154fb6853345c9735", NULL, NULL, 1507608047000,
      "2017-10-10T04:00:47.000Z", {"\"timestamp\":107608047", "\"payload\":\"b5a1cd34b5f99d1154fb6853345c9735\""}),
    V("ksuid", "0ujzPyRiIAffKhBux4PvQdDqMHY", "066a029c73fc1aa3b2446246d6e89fcd909e8fe8", NULL, NULL, 1507610780000,
      "2017-10-10T04:46:20.000Z", {"\"timestamp\":107610780", "\"payload\":\"73fc1aa3b2446246d6e89fcd909e8fe8\""}),
    V("ksuid", "0ujtsYcgvSTl8PAuAdqWYSMnLOw", "0669f7efb5a1cd34b5f99d1154fb6853345c9736", NULL, NULL, 1507608047000,
      "2017-10-10T04:00:47.000Z", {"\"timestamp\":107608047", "\"payload\":\"b5a1cd34b5f99d1154fb6853345c9736\""}),
    V("ksuid", "0ujtsat1PHPnOOnhBuKKkwyxRtP", "0669f7efffffffffffffffffffffffffffffffff", NULL, NULL, 1507608047000,
      "2017-10-10T04:00:47.000Z", {"\"timestamp\":107608047", "\"payload\":\"ffffffffffffffffffffffffffffffff\""}),
    V("ksuid", "0ujtsat1PHPnOOnhBuKKkwyxRtQ", "0669f7f000000000000000000000000000000000", NULL, NULL, 1507608048000,
      "2017-10-10T04:00:48.000Z", {"\"timestamp\":107608048", "\"payload\":\"00000000000000000000000000000000\""}),
    V("ksuid", "0ujtsT5xN49RIv7vRkXBy3rhkHI", "0669f7ef00000000000000000000000000000000", NULL, NULL, 1507608047000,
      "2017-10-10T04:00:47.000Z", {"\"timestamp\":107608047", "\"payload\":\"00000000000000000000000000000000\""}),
    V("ksuid", "2YBXZHsLO8MUtQ9MmLrFm63K2RD", "11e1a3000123456789abcdef01234567deadbeef", NULL, NULL, 1700000000000,
      "2023-11-14T22:13:20.000Z", {"\"timestamp\":300000000", "\"payload\":\"0123456789abcdef01234567deadbeef\""}),
    V("ksuid", "2YBXZHsLO8MUtQ9MmLrFm6f9hx3", "11e1a3000123456789abcdef0123456800000001", NULL, NULL, 1700000000000,
      "2023-11-14T22:13:20.000Z", {"\"timestamp\":300000000", "\"payload\":\"0123456789abcdef0123456800000001\""}),
    V("ksuid", "000000000000000000000000000", "0000000000000000000000000000000000000000", NULL, NULL, 1400000000000,
      "2014-05-13T16:53:20.000Z", {"\"timestamp\":0", "\"payload\":\"00000000000000000000000000000000\""}),
    V("ksuid", "aWgEPTl1tmebfsQzFP4bxwgy80V", "ffffffffffffffffffffffffffffffffffffffff", NULL, NULL, 5694967295000,
      "2150-06-19T23:21:35.000Z", {"\"timestamp\":4294967295", "\"payload\":\"ffffffffffffffffffffffffffffffff\""}),
    /* 7. typeid */
    V("typeid", "00000000000000000000000000", "00000000000000000000000000000000", NULL, NULL, NOTIME, NULL,
      {"\"prefix\":\"\"", "\"uuid\":\"00000000-0000-0000-0000-000000000000\"", "\"version\":0", "\"variant\":0"}),
    V("typeid", "00000000000000000000000001", "00000000000000000000000000000001", NULL, NULL, NOTIME, NULL,
      {"\"prefix\":\"\"", "\"uuid\":\"00000000-0000-0000-0000-000000000001\"", "\"version\":0", "\"variant\":0"}),
    V("typeid", "0000000000000000000000000a", "0000000000000000000000000000000a", NULL, NULL, NOTIME, NULL,
      {"\"prefix\":\"\"", "\"uuid\":\"00000000-0000-0000-0000-00000000000a\"", "\"version\":0", "\"variant\":0"}),
    V("typeid", "0000000000000000000000000g", "00000000000000000000000000000010", NULL, NULL, NOTIME, NULL,
      {"\"prefix\":\"\"", "\"uuid\":\"00000000-0000-0000-0000-000000000010\"", "\"version\":0", "\"variant\":0"}),
    V("typeid", "00000000000000000000000010", "00000000000000000000000000000020", NULL, NULL, NOTIME, NULL,
      {"\"prefix\":\"\"", "\"uuid\":\"00000000-0000-0000-0000-000000000020\"", "\"version\":0", "\"variant\":0"}),
    V("typeid", "7zzzzzzzzzzzzzzzzzzzzzzzzz", "ffffffffffffffffffffffffffffffff", NULL, NULL, NOTIME, NULL,
      {"\"prefix\":\"\"", "\"uuid\":\"ffffffff-ffff-ffff-ffff-ffffffffffff\"", "\"version\":15", "\"variant\":3"}),
    V("typeid", "prefix_0123456789abcdefghjkmnpqrs", "0110c8531d0952d8d73e1194e95b5f19", NULL, "prefix", NOTIME, NULL,
      {"\"prefix\":\"prefix\"", "\"uuid\":\"0110c853-1d09-52d8-d73e-1194e95b5f19\"", "\"version\":5", "\"variant\":3"}),
    V("typeid", "prefix_01h455vb4pex5vsknk084sn02q", "01890a5dac96774bbcceb302099a8057", NULL, "prefix", 1688096058518,
      "2023-06-30T03:34:18.518Z",
      {"\"prefix\":\"prefix\"", "\"uuid\":\"01890a5d-ac96-774b-bcce-b302099a8057\"", "\"version\":7", "\"variant\":2"}),
    V("typeid", "pre_fix_00000000000000000000000000", "00000000000000000000000000000000", NULL, "pre_fix", NOTIME, NULL,
      {"\"prefix\":\"pre_fix\"", "\"uuid\":\"00000000-0000-0000-0000-000000000000\"", "\"version\":0",
       "\"variant\":0"}),
    V("typeid", "01h5fskfsk4fpeqwnsyz5hj55t", "01895f99bf3323ecebf2b9f7cb1914ba", NULL, NULL, NOTIME, NULL,
      {"\"prefix\":\"\"", "\"uuid\":\"01895f99-bf33-23ec-ebf2-b9f7cb1914ba\"", "\"version\":2", "\"variant\":3"}),
    V("typeid", "my__type_01h5fskfsk4fpeqwnsyz5hj55t", "01895f99bf3323ecebf2b9f7cb1914ba", NULL, "my__type", NOTIME,
      NULL,
      {"\"prefix\":\"my__type\"", "\"uuid\":\"01895f99-bf33-23ec-ebf2-b9f7cb1914ba\"", "\"version\":2",
       "\"variant\":3"}),
    V("typeid", "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk_01h5fskfsk4fpeqwnsyz5hj55t",
      "01895f99bf3323ecebf2b9f7cb1914ba", NULL, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk",
      NOTIME, NULL,
      {"\"prefix\":\"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk\"",
       "\"uuid\":\"01895f99-bf33-23ec-ebf2-b9f7cb1914ba\"", "\"version\":2", "\"variant\":3"}),
    V("typeid", "user_01fwhe4ydgfk1shh6w1g60eecf", "017f22e279b07cc398c4dc0c0c07398f", NULL, "user", 1645557742000,
      "2022-02-22T19:22:22.000Z",
      {"\"prefix\":\"user\"", "\"uuid\":\"017f22e2-79b0-7cc3-98c4-dc0c0c07398f\"", "\"version\":7", "\"variant\":2"}),
    V("typeid", "user_01fwhe4ydge008000000000000", "017f22e279b070008000000000000000", NULL, "user", 1645557742000,
      "2022-02-22T19:22:22.000Z",
      {"\"prefix\":\"user\"", "\"uuid\":\"017f22e2-79b0-7000-8000-000000000000\"", "\"version\":7", "\"variant\":2"}),
    V("typeid", "user_01fwhe4ydgfzzvzzzzzzzzzzzz", "017f22e279b07fffbfffffffffffffff", NULL, "user", 1645557742000,
      "2022-02-22T19:22:22.000Z",
      {"\"prefix\":\"user\"", "\"uuid\":\"017f22e2-79b0-7fff-bfff-ffffffffffff\"", "\"version\":7", "\"variant\":2"}),
    /* the time only for UUIDv7s: version 7 with variant 11x, version 8 with variant 10, variant 01 */
    V("typeid", "user_01fwhe4ydgfk1yhh6w1g60eecf", "017f22e279b07cc3e8c4dc0c0c07398f", NULL, "user", NOTIME, NULL,
      {"\"prefix\":\"user\"", "\"uuid\":\"017f22e2-79b0-7cc3-e8c4-dc0c0c07398f\"", "\"version\":7", "\"variant\":3"}),
    V("typeid", "user_01fwhe4ydghk1shh6w1g60eecf", "017f22e279b08cc398c4dc0c0c07398f", NULL, "user", NOTIME, NULL,
      {"\"prefix\":\"user\"", "\"uuid\":\"017f22e2-79b0-8cc3-98c4-dc0c0c07398f\"", "\"version\":8", "\"variant\":2"}),
    V("typeid", "user_01fwhe4ydgfk1nhh6w1g60eecf", "017f22e279b07cc358c4dc0c0c07398f", NULL, "user", NOTIME, NULL,
      {"\"prefix\":\"user\"", "\"uuid\":\"017f22e2-79b0-7cc3-58c4-dc0c0c07398f\"", "\"version\":7", "\"variant\":1"}),
};

/* scru128's reserved timestamps (0 and 2^48 - 1) decode; whether mintid_id_check() accepts them is not the spec's. */
static int reserved_scru128(const mintid_format *fmt, int64_t unix_ms) {
    return strcmp(fmt->name, "scru128") == 0 && (unix_ms == 0 || unix_ms == 281474976710655);
}

static void check_dvec(const dvec *v) {
    const mintid_format *fmt = find(v->format);
    int64_t epoch = epoch_of(fmt, v->epoch);
    const char *prefix = v->prefix != NULL ? v->prefix : "";
    char hex[64], buf[MINTID_TEXT_MAX], got_prefix[MINTID_PREFIX_MAX + 1] = "?", json[MINTID_JSON_MAX];
    mintid_id id, from_hex;
    memset(&id, 0, sizeof id);

    if (v->hex != NULL)
        snprintf(hex, sizeof hex, "%s", v->hex);
    else
        snprintf(hex, sizeof hex, "%016" PRIx64, (uint64_t)strtoull(v->text, NULL, 10));

    /* text -> ID: its hex, its prefix, its time */
    int rc = mintid_decode_prefixed(fmt, MINTID_FORM_TEXT, v->text, strlen(v->text), &id, NULL, got_prefix);
    if (rc != MINTID_OK) {
        fail_at(v->line, "decoding", mintid_status_name(rc), v->text);
        return;
    }
    if (strcmp(got_prefix, prefix) != 0)
        fail_at(v->line, "the prefix", got_prefix, prefix);
    if (mintid_encode(fmt, MINTID_FORM_HEX, &id, buf, sizeof buf) < 0 || strcmp(buf, hex) != 0)
        fail_at(v->line, "the hex", buf, hex);
    if (v->unix_ms != NOTIME &&
        mintid_id_unix_ms(fmt, &id, epoch == MINTID_EPOCH_DEFAULT ? fmt->epoch_ms : epoch) != v->unix_ms) {
        fprintf(stderr, "%s:%d: %s: mintid_id_unix_ms is %" PRId64 ", expected %" PRId64 "\n", __FILE__, v->line,
                v->text, mintid_id_unix_ms(fmt, &id, epoch == MINTID_EPOCH_DEFAULT ? fmt->epoch_ms : epoch),
                v->unix_ms);
        check_failures++;
    }
    if (!reserved_scru128(fmt, v->unix_ms) && mintid_id_check(fmt, &id) != MINTID_OK)
        fail_at(v->line, "mintid_id_check", mintid_status_name(mintid_id_check(fmt, &id)), "MINTID_OK");

    /* hex -> ID -> canonical text */
    rc = mintid_decode(fmt, MINTID_FORM_HEX, hex, strlen(hex), &from_hex, NULL);
    if (rc != MINTID_OK) {
        fail_at(v->line, "decoding the hex", mintid_status_name(rc), hex);
        return;
    }
    if (mintid_id_compare(fmt, &from_hex, &id) != 0)
        fail_at(v->line, "the ID of the hex", hex, v->text);
    if (mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, &from_hex, prefix, buf, sizeof buf) < 0 ||
        strcmp(buf, v->text) != 0)
        fail_at(v->line, "the text of the hex", buf, v->text);

    /* inspect */
    if (mintid_id_to_json_prefixed(fmt, &id, v->prefix, epoch, json, sizeof json) <= 0) {
        fail_at(v->line, "mintid_id_to_json_prefixed", "an error", v->text);
        return;
    }
    char member[256];
    snprintf(member, sizeof member, "\"format\":\"%s\"", fmt->name);
    check_member(json, member, v->line);
    snprintf(member, sizeof member, "\"text\":\"%s\"", v->text);
    check_member(json, member, v->line);
    snprintf(member, sizeof member, "\"hex\":\"%s\"", hex);
    check_member(json, member, v->line);
    if (fmt->bits == 64) {
        snprintf(member, sizeof member, "\"int\":\"%s\"", v->text);
        check_member(json, member, v->line);
    }
    if (v->unix_ms == NOTIME) {
        check_member(json, "\"unix_ms\":null", v->line);
        check_member(json, "\"time\":null", v->line);
    } else {
        snprintf(member, sizeof member, "\"unix_ms\":%" PRId64, v->unix_ms);
        check_member(json, member, v->line);
        snprintf(member, sizeof member, "\"time\":\"%s\"", v->time);
        check_member(json, member, v->line);
    }
    for (size_t i = 0; i < 8 && v->members[i] != NULL; i++)
        check_member(json, v->members[i], v->line);
    check_json_keys(fmt->name, json, v->line);
    /* A typeid read without its prefix is the bare suffix. */
    if (v->prefix == NULL && mintid_id_to_json(fmt, &id, epoch, json, sizeof json) > 0) {
        snprintf(member, sizeof member, "\"text\":\"%s\"", v->text);
        check_member(json, member, v->line);
    }
}

/* ---- other spellings of one ID ---------------------------------------------------------- */

typedef struct spelling {
    int line;
    const char *format;
    mintid_form form;
    const char *text;
    const char *canonical; /* its canonical text form */
} spelling;

#define S(...)                                                                                                         \
    { __LINE__, __VA_ARGS__ }

static const spelling spellings[] = {
    /* uuidv7: any letter case; no hyphens; braces; urn:uuid: (its prefix in any case) */
    S("uuidv7", MINTID_FORM_TEXT, "017F22E2-79B0-7CC3-98C4-DC0C0C07398F", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
    S("uuidv7", MINTID_FORM_TEXT, "017f22e279b07cc398c4dc0c0c07398f", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
    S("uuidv7", MINTID_FORM_TEXT, "{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
    S("uuidv7", MINTID_FORM_TEXT, "urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f",
      "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
    S("uuidv7", MINTID_FORM_TEXT, "URN:UUID:017F22E2-79B0-7CC3-98C4-DC0C0C07398F",
      "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
    S("uuidv7", MINTID_FORM_TEXT, "017F22E279B07CC398C4DC0C0C07398F", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
    S("uuidv7", MINTID_FORM_TEXT, "{017F22E2-79B0-7CC3-98C4-DC0C0C07398F}", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
    S("uuidv7", MINTID_FORM_TEXT, "Urn:Uuid:017f22e2-79B0-7cc3-98C4-dc0c0c07398f",
      "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
    S("uuidv7", MINTID_FORM_ANY, "{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
    S("uuidv7", MINTID_FORM_HEX, "017f22e279b07cc398c4dc0c0c07398f", "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"),
    /* ulid: case-insensitive; the UUID form in any case */
    S("ulid", MINTID_FORM_TEXT, "01aryz6s41tsv4rrffq69g5fav", "01ARYZ6S41TSV4RRFFQ69G5FAV"),
    S("ulid", MINTID_FORM_TEXT, "01aRyZ6s41TsV4rRfFq69G5fAv", "01ARYZ6S41TSV4RRFFQ69G5FAV"),
    S("ulid", MINTID_FORM_UUID, "01563DF3-6481-D676-4C61-EFB99302BD5B", "01ARYZ6S41TSV4RRFFQ69G5FAV"),
    S("ulid", MINTID_FORM_UUID, "01563df3-6481-d676-4c61-efb99302bd5b", "01ARYZ6S41TSV4RRFFQ69G5FAV"),
    S("ulid", MINTID_FORM_HEX, "01563DF36481D6764C61EFB99302BD5B", "01ARYZ6S41TSV4RRFFQ69G5FAV"),
    S("ulid", MINTID_FORM_ANY, "01563df3-6481-d676-4c61-efb99302bd5b", "01ARYZ6S41TSV4RRFFQ69G5FAV"),
    S("ulid", MINTID_FORM_ANY, "01aryz6s41tsv4rrffq69g5fav", "01ARYZ6S41TSV4RRFFQ69G5FAV"),
    S("scru128", MINTID_FORM_ANY, "0372HG16CSMSM50L8DIKCVUKC", "0372hg16csmsm50l8dikcvukc"),
    S("ksuid", MINTID_FORM_HEX, "0669F7EFB5A1CD34B5F99D1154FB6853345C9735", "0ujtsYcgvSTl8PAuAdqWYSMnLOv"),
    S("snowflake", MINTID_FORM_ANY, "175928847299117063", "175928847299117063"),
    S("sonyflake", MINTID_FORM_INT, "487328464442294530", "487328464442294530"),
    /* scru128: case-insensitive */
    S("scru128", MINTID_FORM_TEXT, "0372HG16CSMSM50L8DIKCVUKC", "0372hg16csmsm50l8dikcvukc"),
    S("scru128", MINTID_FORM_TEXT, "F5LXX1ZZ5PNORYNQGLHZMSP33", "f5lxx1zz5pnorynqglhzmsp33"),
    /* typeid: a prefixed text with the form left to the decoder (the prefix is dropped); the uuid form */
    S("typeid", MINTID_FORM_ANY, "prefix_01h455vb4pex5vsknk084sn02q", "01h455vb4pex5vsknk084sn02q"),
    S("typeid", MINTID_FORM_ANY, "01890a5d-ac96-774b-bcce-b302099a8057", "01h455vb4pex5vsknk084sn02q"),
    S("typeid", MINTID_FORM_UUID, "01890a5d-ac96-774b-bcce-b302099a8057", "01h455vb4pex5vsknk084sn02q"),
    S("typeid", MINTID_FORM_UUID, "01895F99-BF33-23EC-EBF2-B9F7CB1914BA", "01h5fskfsk4fpeqwnsyz5hj55t"),
};

static void check_spelling(const spelling *s) {
    const mintid_format *fmt = find(s->format);
    mintid_id a, b;
    char buf[MINTID_TEXT_MAX], json[MINTID_JSON_MAX], member[128];
    int rc = mintid_decode(fmt, s->form, s->text, strlen(s->text), &a, NULL);
    if (rc != MINTID_OK) {
        fail_at(s->line, "decoding", mintid_status_name(rc), s->text);
        return;
    }
    CHECK_INT(mintid_decode(fmt, MINTID_FORM_TEXT, s->canonical, strlen(s->canonical), &b, NULL), MINTID_OK);
    if (mintid_id_compare(fmt, &a, &b) != 0)
        fail_at(s->line, "the ID", s->text, s->canonical);
    if (mintid_encode(fmt, MINTID_FORM_TEXT, &a, buf, sizeof buf) < 0 || strcmp(buf, s->canonical) != 0)
        fail_at(s->line, "the canonical text", buf, s->canonical);
    /* inspect's "text" is the canonical text, whatever spelling came in */
    CHECK(mintid_id_to_json(fmt, &a, MINTID_EPOCH_DEFAULT, json, sizeof json) > 0);
    snprintf(member, sizeof member, "\"text\":\"%s\"", s->canonical);
    check_member(json, member, s->line);
}

/* The uuid form written by ulid and typeid: lower case, 8-4-4-4-12. */
static void check_uuid_forms(void) {
    const struct {
        const char *format, *text, *uuid;
    } u[] = {
        {"ulid", "01ARYZ6S41TSV4RRFFQ69G5FAV", "01563df3-6481-d676-4c61-efb99302bd5b"},
        {"typeid", "prefix_01h455vb4pex5vsknk084sn02q", "01890a5d-ac96-774b-bcce-b302099a8057"},
        {"typeid", "7zzzzzzzzzzzzzzzzzzzzzzzzz", "ffffffff-ffff-ffff-ffff-ffffffffffff"},
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        const mintid_format *fmt = find(u[i].format);
        mintid_id id;
        char buf[MINTID_TEXT_MAX];
        CHECK_INT(mintid_decode(fmt, MINTID_FORM_TEXT, u[i].text, strlen(u[i].text), &id, NULL), MINTID_OK);
        CHECK_INT(mintid_encode(fmt, MINTID_FORM_UUID, &id, buf, sizeof buf), 36);
        CHECK_STR(buf, u[i].uuid);
    }
}

/* ---- strings to reject ------------------------------------------------------------------ */

#define ANY_ERROR 1 /* any failure will do: the spec names no status */

typedef struct rejection {
    int line;
    const char *format;
    mintid_form form;
    const char *text;
    int status;
} rejection;

#define R(...)                                                                                                         \
    { __LINE__, __VA_ARGS__ }
#define PREFIX64 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl"

static const rejection rejections[] = {
    /* 1. uuidv7 (the version and variant cases are in check_uuidv7_invalid) */
    R("uuidv7", MINTID_FORM_TEXT, "017f22e279b0-7cc3-98c4-dc0c0c07398f", MINTID_ELENGTH), /* hyphen missing */
    R("uuidv7", MINTID_FORM_TEXT, "017f22e2-79b0-7cc3-98c4-dc0c0c07398", MINTID_ELENGTH), /* 35 characters */
    R("uuidv7", MINTID_FORM_TEXT, "017f22e2-79b0-7cc3-98c4-dc0c0c07398g", MINTID_ECHAR),
    R("uuidv7", MINTID_FORM_TEXT, "urn:uuid:017f22e279b07cc398c4dc0c0c07398f", MINTID_ELENGTH),
    R("uuidv7", MINTID_FORM_TEXT, "{017f22e279b07cc398c4dc0c0c07398f}", MINTID_ELENGTH),
    R("uuidv7", MINTID_FORM_TEXT, "0x017f22e279b07cc398c4dc0c0c07398f", MINTID_ELENGTH),
    R("uuidv7", MINTID_FORM_TEXT, " 017f22e2-79b0-7cc3-98c4-dc0c0c07398f", MINTID_ELENGTH),
    R("uuidv7", MINTID_FORM_TEXT, "", MINTID_ELENGTH),
    R("uuidv7", MINTID_FORM_ANY, "", MINTID_ELENGTH),
    R("uuidv7", MINTID_FORM_ANY, "0x017f22e279b07cc398c4dc0c0c07398f", ANY_ERROR),
    R("uuidv7", MINTID_FORM_ANY, "{017f22e279b07cc398c4dc0c0c07398f}", ANY_ERROR),
    /* the prose: hyphens elsewhere, both braces and urn:uuid:, whitespace around */
    R("uuidv7", MINTID_FORM_TEXT, "017f22e-279b0-7cc3-98c4-dc0c0c07398f", MINTID_ECHAR),
    R("uuidv7", MINTID_FORM_TEXT, "017f22e2-79b07-cc3-98c4-dc0c0c07398f", MINTID_ECHAR),
    R("uuidv7", MINTID_FORM_TEXT, "urn:uuid:{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}", MINTID_ELENGTH),
    R("uuidv7", MINTID_FORM_TEXT, "{urn:uuid:017f22e2-79b0-7cc3-98c4-dc0c0c07398f}", MINTID_ELENGTH),
    R("uuidv7", MINTID_FORM_TEXT, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f ", MINTID_ELENGTH),
    R("uuidv7", MINTID_FORM_TEXT, " 017f22e2-79b0-7cc3-98c4-dc0c0c07398f ", ANY_ERROR),
    R("uuidv7", MINTID_FORM_TEXT, "[017f22e2-79b0-7cc3-98c4-dc0c0c07398f]", MINTID_ECHAR),
    R("uuidv7", MINTID_FORM_TEXT, "urn:uid::017f22e2-79b0-7cc3-98c4-dc0c0c07398f", MINTID_ECHAR),
    /* 2. ulid */
    R("ulid", MINTID_FORM_TEXT, "80000000000000000000000000", MINTID_EOVERFLOW),
    R("ulid", MINTID_FORM_TEXT, "ZZZZZZZZZZZZZZZZZZZZZZZZZZ", MINTID_EOVERFLOW),
    R("ulid", MINTID_FORM_ANY, "80000000000000000000000000", MINTID_EOVERFLOW),
    R("ulid", MINTID_FORM_TEXT, "01ARYZ6S41TSV4RRFFQ69G5FAI", MINTID_ECHAR),
    R("ulid", MINTID_FORM_TEXT, "01ARYZ6S41TSV4RRFFQ69G5FAL", MINTID_ECHAR),
    R("ulid", MINTID_FORM_TEXT, "01ARYZ6S41TSV4RRFFQ69G5FAO", MINTID_ECHAR),
    R("ulid", MINTID_FORM_TEXT, "01ARYZ6S41TSV4RRFFQ69G5FAU", MINTID_ECHAR),
    R("ulid", MINTID_FORM_TEXT, "01aryz6s41tsv4rrffq69g5fai", MINTID_ECHAR), /* "either case" */
    R("ulid", MINTID_FORM_TEXT, "01aryz6s41tsv4rrffq69g5fal", MINTID_ECHAR),
    R("ulid", MINTID_FORM_TEXT, "01aryz6s41tsv4rrffq69g5fao", MINTID_ECHAR),
    R("ulid", MINTID_FORM_TEXT, "01aryz6s41tsv4rrffq69g5fau", MINTID_ECHAR),
    R("ulid", MINTID_FORM_TEXT, "01ARYZ6S41TSV4RRFFQ69G5FA", MINTID_ELENGTH),
    R("ulid", MINTID_FORM_TEXT, "01ARYZ6S41TSV4RRFFQ69G5FAVV", MINTID_ELENGTH),
    R("ulid", MINTID_FORM_TEXT, "01ARYZ6S41-TSV4RRFFQ69G5FA", MINTID_ECHAR),
    R("ulid", MINTID_FORM_TEXT, "01ARYZ6S41TSV4RRFFQ69G5FA*", MINTID_ECHAR), /* no check symbol */
    R("ulid", MINTID_FORM_TEXT, "01ARYZ6S41TSV4RRFFQ69G5FA~", MINTID_ECHAR),
    R("ulid", MINTID_FORM_TEXT, "01ARYZ6S41TSV4RRFFQ69G5FAV=", MINTID_ELENGTH),
    R("ulid", MINTID_FORM_TEXT, "", MINTID_ELENGTH),
    R("ulid", MINTID_FORM_ANY, "", MINTID_ELENGTH),
    /* 3. scru128 */
    R("scru128", MINTID_FORM_TEXT, "0", MINTID_ELENGTH),
    R("scru128", MINTID_FORM_TEXT, "00000000000000000000000000", MINTID_ELENGTH),
    R("scru128", MINTID_FORM_TEXT, "f5lxx1zz5pn+rynqglhzmsp33", MINTID_ECHAR),
    R("scru128", MINTID_FORM_TEXT, "f5lxx1zz5pnorynqglhzmsp34", MINTID_EOVERFLOW),
    R("scru128", MINTID_FORM_TEXT, "zzzzzzzzzzzzzzzzzzzzzzzzz", MINTID_EOVERFLOW),
    R("scru128", MINTID_FORM_ANY, "f5lxx1zz5pnorynqglhzmsp34", MINTID_EOVERFLOW),
    R("scru128", MINTID_FORM_TEXT, "0372hg16csmsm50l8dikcvuk", MINTID_ELENGTH),
    R("scru128", MINTID_FORM_TEXT, "0372hg16csmsm50l8dikcvukc ", MINTID_ELENGTH),
    R("scru128", MINTID_FORM_TEXT, "0372hg16csmsm50l8dikcvuk ", MINTID_ECHAR),
    R("scru128", MINTID_FORM_TEXT, "", MINTID_ELENGTH),
    /* 4. snowflake */
    R("snowflake", MINTID_FORM_TEXT, "9223372036854775808", MINTID_EOVERFLOW),
    R("snowflake", MINTID_FORM_TEXT, "18446744073709551615", MINTID_EOVERFLOW),
    R("snowflake", MINTID_FORM_TEXT, "12345678901234567890", MINTID_EOVERFLOW),
    R("snowflake", MINTID_FORM_TEXT, "-1", MINTID_ECHAR),
    R("snowflake", MINTID_FORM_TEXT, "+175928847299117063", MINTID_ECHAR),
    R("snowflake", MINTID_FORM_TEXT, "0175928847299117063", MINTID_ECHAR),
    R("snowflake", MINTID_FORM_TEXT, "1.5", MINTID_ECHAR),
    R("snowflake", MINTID_FORM_TEXT, "0x1f", MINTID_ECHAR),
    R("snowflake", MINTID_FORM_TEXT, " 1", MINTID_ECHAR),
    R("snowflake", MINTID_FORM_TEXT, "", MINTID_ELENGTH),
    R("snowflake", MINTID_FORM_ANY, "9223372036854775808", MINTID_EOVERFLOW),
    R("snowflake", MINTID_FORM_ANY, "0175928847299117063", ANY_ERROR),
    R("snowflake", MINTID_FORM_ANY, "", ANY_ERROR),
    R("snowflake", MINTID_FORM_HEX, "8000000000000000", MINTID_EOVERFLOW),
    /* 5. sonyflake: as snowflake */
    R("sonyflake", MINTID_FORM_TEXT, "9223372036854775808", MINTID_EOVERFLOW),
    R("sonyflake", MINTID_FORM_TEXT, "18446744073709551615", MINTID_EOVERFLOW),
    R("sonyflake", MINTID_FORM_TEXT, "12345678901234567890", MINTID_EOVERFLOW),
    R("sonyflake", MINTID_FORM_TEXT, "-1", MINTID_ECHAR),
    R("sonyflake", MINTID_FORM_TEXT, "+16777217", MINTID_ECHAR),
    R("sonyflake", MINTID_FORM_TEXT, "00", MINTID_ECHAR),
    R("sonyflake", MINTID_FORM_TEXT, "016777217", MINTID_ECHAR),
    R("sonyflake", MINTID_FORM_TEXT, "1e9", MINTID_ECHAR),
    R("sonyflake", MINTID_FORM_TEXT, "1.5", MINTID_ECHAR),
    R("sonyflake", MINTID_FORM_TEXT, "0x1f", MINTID_ECHAR),
    R("sonyflake", MINTID_FORM_TEXT, " 1", MINTID_ECHAR),
    R("sonyflake", MINTID_FORM_TEXT, "", MINTID_ELENGTH),
    R("sonyflake", MINTID_FORM_ANY, "9223372036854775808", MINTID_EOVERFLOW),
    R("sonyflake", MINTID_FORM_HEX, "8000000000000000", MINTID_EOVERFLOW),
    /* 6. ksuid */
    R("ksuid", MINTID_FORM_TEXT, "aWgEPTl1tmebfsQzFP4bxwgy80W", MINTID_EOVERFLOW),
    R("ksuid", MINTID_FORM_TEXT, "zzzzzzzzzzzzzzzzzzzzzzzzzzz", MINTID_EOVERFLOW),
    R("ksuid", MINTID_FORM_ANY, "aWgEPTl1tmebfsQzFP4bxwgy80W", MINTID_EOVERFLOW),
    R("ksuid", MINTID_FORM_TEXT, "0ujtsYcgvSTl8PAuAdqWYSMnLO", MINTID_ELENGTH),
    R("ksuid", MINTID_FORM_TEXT, "0ujtsYcgvSTl8PAuAdqWYSMnLOvv", MINTID_ELENGTH),
    R("ksuid", MINTID_FORM_TEXT, "0ujtsYcgvSTl8PAuAdqWYSMnLO-", MINTID_ECHAR),
    R("ksuid", MINTID_FORM_TEXT, "0ujtsYcgvSTl8PAuAdqWYSMnLO_", MINTID_ECHAR),
    R("ksuid", MINTID_FORM_ANY, "0ujtsYcgvSTl8PAuAdqWYSMnLO-", MINTID_ECHAR),
    R("ksuid", MINTID_FORM_TEXT, "", MINTID_ELENGTH),
    /* 7. typeid: every entry of invalid.yml, then the spec's own */
    R("typeid", MINTID_FORM_TEXT, "PREFIX_00000000000000000000000000", MINTID_EPREFIX),
    R("typeid", MINTID_FORM_TEXT, "12345_00000000000000000000000000", MINTID_EPREFIX),
    R("typeid", MINTID_FORM_TEXT, "pre.fix_00000000000000000000000000", MINTID_EPREFIX),
    R("typeid", MINTID_FORM_TEXT,
      "pr\xc3\xa9"
      "fix_00000000000000000000000000",
      MINTID_EPREFIX),
    R("typeid", MINTID_FORM_TEXT, "  prefix_00000000000000000000000000", MINTID_EPREFIX),
    R("typeid", MINTID_FORM_TEXT, PREFIX64 "_00000000000000000000000000", MINTID_EPREFIX),
    R("typeid", MINTID_FORM_TEXT, "_00000000000000000000000000", MINTID_EPREFIX),
    R("typeid", MINTID_FORM_TEXT, "_", ANY_ERROR),
    R("typeid", MINTID_FORM_TEXT, "prefix_1234567890123456789012345", MINTID_ELENGTH),
    R("typeid", MINTID_FORM_TEXT, "prefix_123456789012345678901234567", MINTID_ELENGTH),
    R("typeid", MINTID_FORM_TEXT, "prefix_1234567890123456789012345 ", MINTID_ECHAR),
    R("typeid", MINTID_FORM_TEXT, "prefix_0123456789ABCDEFGHJKMNPQRS", MINTID_ECHAR),
    R("typeid", MINTID_FORM_TEXT, "prefix_123456789-123456789-123456", MINTID_ECHAR),
    R("typeid", MINTID_FORM_TEXT, "prefix_ooooooiiiiiiuuuuuuulllllll", MINTID_ECHAR),
    R("typeid", MINTID_FORM_TEXT, "prefix_i23456789ol23456789oi23456", MINTID_ECHAR),
    R("typeid", MINTID_FORM_TEXT, "prefix_123456789-0123456789-0123456", MINTID_ELENGTH),
    R("typeid", MINTID_FORM_TEXT, "prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz", MINTID_EOVERFLOW),
    R("typeid", MINTID_FORM_TEXT, "_prefix_00000000000000000000000000", MINTID_EPREFIX),
    R("typeid", MINTID_FORM_TEXT, "prefix__00000000000000000000000000", MINTID_EPREFIX),
    R("typeid", MINTID_FORM_TEXT, "", MINTID_ELENGTH),
    R("typeid", MINTID_FORM_TEXT, "prefix_", MINTID_ELENGTH),
    R("typeid", MINTID_FORM_TEXT, "user_01fwhe4ydgfk1shh6w1g60eec", MINTID_ELENGTH),
    R("typeid", MINTID_FORM_TEXT, "user_01FWHE4YDGFK1SHH6W1G60EECF", MINTID_ECHAR),
    R("typeid", MINTID_FORM_TEXT, "User_01fwhe4ydgfk1shh6w1g60eecf", MINTID_EPREFIX),
    R("typeid", MINTID_FORM_TEXT, "user-01fwhe4ydgfk1shh6w1g60eecf", ANY_ERROR),
    R("typeid", MINTID_FORM_TEXT, "8zzzzzzzzzzzzzzzzzzzzzzzzz", MINTID_EOVERFLOW),
    R("typeid", MINTID_FORM_TEXT, "01FWHE4YDGFK1SHH6W1G60EECF", MINTID_ECHAR),
    /* with the form left to the decoder, the same */
    R("typeid", MINTID_FORM_ANY, "PREFIX_00000000000000000000000000", MINTID_EPREFIX),
    R("typeid", MINTID_FORM_ANY, "_00000000000000000000000000", MINTID_EPREFIX),
    R("typeid", MINTID_FORM_ANY, "prefix__00000000000000000000000000", MINTID_EPREFIX),
    R("typeid", MINTID_FORM_ANY, "prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz", MINTID_EOVERFLOW),
    R("typeid", MINTID_FORM_ANY, "user_01FWHE4YDGFK1SHH6W1G60EECF", MINTID_ECHAR),
    R("typeid", MINTID_FORM_ANY, "", ANY_ERROR),
};

static void check_rejection(const rejection *r) {
    const mintid_format *fmt = find(r->format);
    mintid_id id;
    memset(&id, 0xAA, sizeof id);
    int rc = mintid_decode(fmt, r->form, r->text, strlen(r->text), &id, NULL);
    int ok = r->status == ANY_ERROR ? rc < 0 : rc == r->status;
    if (!ok) {
        fprintf(stderr, "%s:%d: %s \"%s\" (form %d): got %s, expected %s\n", __FILE__, r->line, r->format, r->text,
                (int)r->form, mintid_status_name(rc),
                r->status == ANY_ERROR ? "an error" : mintid_status_name(r->status));
        check_failures++;
    }
    if (id.bytes[0] != 0xAA) {
        fprintf(stderr, "%s:%d: a failed decode of \"%s\" wrote the ID\n", __FILE__, r->line, r->text);
        check_failures++;
    }
}

/* uuidv7: valid UUIDs that are not UUIDv7s are refused (MINTID_EINVALID), by the decoder or by mintid_id_check(). */
static void check_uuidv7_invalid(void) {
    static const char *const not_v7[] = {
        "00000000-0000-0000-0000-000000000000", /* Nil */
        "ffffffff-ffff-ffff-ffff-ffffffffffff", /* Max */
        "017f22e2-79b0-4cc3-98c4-dc0c0c07398f", /* version 4 */
        "017f22e2-79b0-6cc3-98c4-dc0c0c07398f", /* version 6 */
        "017f22e2-79b0-7cc3-18c4-dc0c0c07398f", /* variant 0 */
        "017f22e2-79b0-7cc3-c8c4-dc0c0c07398f", /* variant 110 */
        "017f22e2-79b0-7cc3-e8c4-dc0c0c07398f", /* variant 111 */
        "017f22e2-79b0-8cc3-98c4-dc0c0c07398f", /* version 8 */
    };
    const mintid_format *fmt = find("uuidv7");
    for (size_t i = 0; i < sizeof not_v7 / sizeof not_v7[0]; i++) {
        mintid_id id;
        char bare[33], braced[39];
        size_t n = 0;
        for (const char *p = not_v7[i]; *p != '\0'; p++)
            if (*p != '-')
                bare[n++] = *p;
        bare[n] = '\0';
        snprintf(braced, sizeof braced, "{%s}", not_v7[i]);
        const struct {
            mintid_form form;
            const char *text;
        } tries[] = {{MINTID_FORM_TEXT, not_v7[i]}, {MINTID_FORM_ANY, not_v7[i]}, {MINTID_FORM_TEXT, bare},
                     {MINTID_FORM_TEXT, braced},    {MINTID_FORM_HEX, bare},      {MINTID_FORM_ANY, bare}};
        for (size_t k = 0; k < sizeof tries / sizeof tries[0]; k++) {
            int rc = mintid_decode(fmt, tries[k].form, tries[k].text, strlen(tries[k].text), &id, NULL);
            /* refused by the decoder, or decoded and refused by the check */
            if (rc == MINTID_OK)
                rc = mintid_id_check(fmt, &id);
            if (rc != MINTID_EINVALID)
                fail_at(__LINE__, "uuidv7's verdict on a UUID that is not a UUIDv7", mintid_status_name(rc),
                        tries[k].text);
        }
    }
    /* typeid decodes any UUID: the same values are valid suffixes. */
    const mintid_format *tid = find("typeid");
    for (size_t i = 0; i < sizeof not_v7 / sizeof not_v7[0]; i++) {
        mintid_id id;
        CHECK_INT(mintid_decode(tid, MINTID_FORM_UUID, not_v7[i], 36, &id, NULL), MINTID_OK);
        CHECK_INT(mintid_id_check(tid, &id), MINTID_OK);
    }
}

/* ---- ranges ----------------------------------------------------------------------------- */

typedef struct range_vec {
    int line;
    const char *format;
    const char *epoch;
    const char *prefix;
    int64_t from_ms, to_ms; /* every ms of [from, to] has the range; from - 1 and to + 1 do not */
    const char *min, *max;
} range_vec;

static const range_vec ranges[] = {
    {__LINE__, "uuidv7", NULL, NULL, T_A6, T_A6, "017f22e2-79b0-7000-8000-000000000000",
     "017f22e2-79b0-7fff-bfff-ffffffffffff"},
    {__LINE__, "ulid", NULL, NULL, 1469918176385, 1469918176385, "01ARYZ6S410000000000000000",
     "01ARYZ6S41ZZZZZZZZZZZZZZZZ"},
    {__LINE__, "scru128", NULL, NULL, 1648973836097, 1648973836097, "0372hg16cpxrrsugrf72fmm0w",
     "0372hg16cvemukgqtm7zp43jz"},
    {__LINE__, "snowflake", NULL, NULL, 1656432460105, 1656432460105, "1541815603604488192", "1541815603608682495"},
    {__LINE__, "snowflake", "twitter", NULL, 1656432460105, 1656432460105, "1541815603604488192",
     "1541815603608682495"},
    {__LINE__, "snowflake", "discord", NULL, 1462015105796, 1462015105796, "175928847298985984", "175928847303180287"},
    {__LINE__, "sonyflake", NULL, NULL, 1700000000120, 1700000000129, "487328464441966592", "487328464458743807"},
    {__LINE__, "ksuid", NULL, NULL, 1507608047000, 1507608047999, "0ujtsT5xN49RIv7vRkXBy3rhkHI",
     "0ujtsat1PHPnOOnhBuKKkwyxRtP"},
    {__LINE__, "typeid", NULL, "user", T_A6, T_A6, "user_01fwhe4ydge008000000000000",
     "user_01fwhe4ydgfzzvzzzzzzzzzzzz"},
};

static void check_range_vec(const range_vec *r) {
    const mintid_format *fmt = find(r->format);
    int64_t epoch = epoch_of(fmt, r->epoch);
    int64_t probes[] = {r->from_ms, (r->from_ms + r->to_ms) / 2, r->to_ms};
    char buf[MINTID_TEXT_MAX];
    for (int i = 0; i < 3; i++) {
        mintid_id lo, hi;
        int rc = mintid_range(fmt, probes[i], epoch, &lo, &hi);
        if (rc != MINTID_OK) {
            fail_at(r->line, "mintid_range", mintid_status_name(rc), "MINTID_OK");
            continue;
        }
        if (mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, &lo, r->prefix, buf, sizeof buf) < 0 ||
            strcmp(buf, r->min) != 0)
            fail_at(r->line, "the range's min", buf, r->min);
        if (mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, &hi, r->prefix, buf, sizeof buf) < 0 ||
            strcmp(buf, r->max) != 0)
            fail_at(r->line, "the range's max", buf, r->max);
        CHECK_INT(mintid_id_check(fmt, &lo), MINTID_OK);
        CHECK_INT(mintid_id_check(fmt, &hi), MINTID_OK);
    }
    /* the unit before ends below the min, the unit after starts above the max */
    mintid_id lo, hi, min;
    CHECK_INT(mintid_decode(fmt, MINTID_FORM_TEXT, r->min, strlen(r->min), &min, NULL), MINTID_OK);
    CHECK_INT(mintid_range(fmt, r->from_ms - 1, epoch, &lo, &hi), MINTID_OK);
    if (mintid_id_compare(fmt, &hi, &min) >= 0)
        fail_at(r->line, "the range of the ms before", "not below", r->min);
    CHECK_INT(mintid_range(fmt, r->to_ms + 1, epoch, &lo, &hi), MINTID_OK);
    CHECK_INT(mintid_decode(fmt, MINTID_FORM_TEXT, r->max, strlen(r->max), &min, NULL), MINTID_OK);
    if (mintid_id_compare(fmt, &lo, &min) <= 0)
        fail_at(r->line, "the range of the ms after", "not above", r->max);
}

/* ---- what the spec relates across formats and forms ------------------------------------ */

static void check_relations(void) {
    /* Ambiguous shapes: guessing names every candidate. */
    const struct {
        const char *text;
        mintid_format_id ids[3];
    } shapes[] = {
        {"175928847299117063", {MINTID_SNOWFLAKE, MINTID_SONYFLAKE, MINTID_NANOFLAKE}},
        {"01aryz6s41tsv4rrffq69g5fav", {MINTID_ULID, MINTID_TYPEID, MINTID_ULID}},
        {"017f22e279b07cc398c4dc0c0c07398f", {MINTID_UUIDV7, MINTID_SCRU160, MINTID_UUIDV7}},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const mintid_format *fmt = NULL;
        mintid_id id;
        mintid_form form;
        unsigned cands = 0;
        int rc = mintid_guess(shapes[i].text, strlen(shapes[i].text), &fmt, &id, &form, &cands);
        if (rc != MINTID_EAMBIGUOUS)
            fail_at(__LINE__, "guessing", mintid_status_name(rc), shapes[i].text);
        for (int k = 0; k < 3; k++)
            if (!(cands & (1u << shapes[i].ids[k])))
                fail_at(__LINE__, "a candidate missing from the guess of", shapes[i].text,
                        mintid_format_get(shapes[i].ids[k])->name);
    }

    /* A snowflake is a nanoflake of the same epoch: Discord's example is nanoflake 1c49kkphnxtz. */
    const mintid_format *sf = find("snowflake"), *nf = find("nanoflake");
    mintid_id id;
    char buf[MINTID_TEXT_MAX];
    CHECK_INT(mintid_decode(sf, MINTID_FORM_TEXT, "175928847299117063", 18, &id, NULL), MINTID_OK);
    CHECK_INT(mintid_encode(nf, MINTID_FORM_TEXT, &id, buf, sizeof buf), 12);
    CHECK_STR(buf, "1c49kkphnxtz");
    CHECK_INT(mintid_encode(nf, MINTID_FORM_INT, &id, buf, sizeof buf), 18);
    CHECK_STR(buf, "175928847299117063");
    CHECK_INT(mintid_id_unix_ms(nf, &id, 1420070400000), 1462015105796);

    /* typeid prefixes: ^([a-z]([a-z_]{0,61}[a-z])?)?$ */
    const mintid_format *tid = find("typeid");
    static const char *const good[] = {"", "a", "ab", "user", "my__type", "pre_fix", &PREFIX64[1]};
    static const char *const bad[] = {
        "A",     "User", "a1",      "1a",      "_a",
        "a_",    "_",    "pre.fix", "pre fix", ("pr\xc3\xa9" /* a letter outside a-z */ "fix"),
        PREFIX64};
    CHECK_INT(mintid_decode(tid, MINTID_FORM_TEXT, "01h455vb4pex5vsknk084sn02q", 26, &id, NULL), MINTID_OK);
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char want[MINTID_TEXT_MAX];
        snprintf(want, sizeof want, "%s%s01h455vb4pex5vsknk084sn02q", good[i], good[i][0] != '\0' ? "_" : "");
        CHECK_INT(mintid_prefix_check(tid, good[i], strlen(good[i])), MINTID_OK);
        CHECK(mintid_encode_prefixed(tid, MINTID_FORM_TEXT, &id, good[i], buf, sizeof buf) > 0);
        CHECK_STR(buf, want);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (mintid_prefix_check(tid, bad[i], strlen(bad[i])) != MINTID_EPREFIX)
            fail_at(__LINE__, "mintid_prefix_check accepts", bad[i], "MINTID_EPREFIX");
        if (mintid_encode_prefixed(tid, MINTID_FORM_TEXT, &id, bad[i], buf, sizeof buf) != MINTID_EPREFIX)
            fail_at(__LINE__, "mintid_encode_prefixed accepts", bad[i], "MINTID_EPREFIX");
    }
}

/* ---- generator traces ------------------------------------------------------------------- */

/* A clock that reads `now`; when armed, the first read gives `now` and every later one `then`. */
typedef struct script_clock {
    int64_t now, then;
    int armed;
} script_clock;

static int script_now(void *ctx, int64_t *unix_ms) {
    script_clock *c = ctx;
    *unix_ms = c->now;
    if (c->armed) {
        c->now = c->then;
        c->armed = 0;
    }
    return MINTID_OK;
}

/*
 * A random source that serves a script, then 0xee bytes. The library fills
 * a pool of its own from it and takes bytes from that pool in order, so a
 * trace's script is every byte it draws, in the order the spec draws them.
 */
typedef struct script_rng {
    const uint8_t *bytes;
    size_t len, pos;
} script_rng;

static int script_random(void *ctx, void *buf, size_t len) {
    script_rng *r = ctx;
    uint8_t *b = buf;
    for (size_t i = 0; i < len; i++)
        b[i] = r->pos < r->len ? r->bytes[r->pos++] : 0xee;
    return MINTID_OK;
}

typedef struct trace {
    const mintid_format *fmt;
    mintid_config cfg;
    mintid_gen *gen;
    script_clock clk;
    script_rng rng;
    const char *prefix; /* typeid: the texts' prefix */
    mintid_id last;
    char last_text[MINTID_TEXT_MAX];
    int have_last;
} trace;

/* A trace's configuration (the format's defaults, the scripted clock and random source), to adjust before start. */
static void trace_init(trace *t, const char *format, const uint8_t *bytes, size_t n) {
    memset(t, 0, sizeof *t);
    t->fmt = find(format);
    mintid_config_init(&t->cfg, t->fmt);
    t->cfg.clock = script_now;
    t->cfg.clock_ctx = &t->clk;
    t->cfg.random = script_random;
    t->cfg.random_ctx = &t->rng;
    t->rng.bytes = bytes;
    t->rng.len = n;
}

static void trace_start(trace *t, int64_t now) {
    t->clk.now = now;
    int rc = mintid_gen_new(t->fmt, &t->cfg, &t->gen);
    if (rc != MINTID_OK) {
        fprintf(stderr, "%s:%d: mintid_gen_new(%s) gave %s\n", __FILE__, __LINE__, t->fmt->name,
                mintid_status_name(rc));
        exit(1);
    }
}

static void trace_end(trace *t) {
    mintid_gen_free(t->gen);
    t->gen = NULL;
}

/*
 * One call at clock `now` (`then` for every read after the first, if it
 * differs): the status, and on success the ID's canonical text (and hex),
 * which must also be above the trace's last ID.
 */
static void trace_step(trace *t, int line, int64_t now, int64_t then, int want_rc, const char *want_text,
                       const char *want_hex) {
    mintid_id id;
    char buf[MINTID_TEXT_MAX];
    t->clk.now = now;
    t->clk.then = then;
    t->clk.armed = then != now;
    int rc = mintid_gen_next(t->gen, &id);
    t->clk.armed = 0;
    if (rc != want_rc) {
        fprintf(stderr, "%s:%d: %s generator at %" PRId64 ": got %s, expected %s\n", __FILE__, line, t->fmt->name, now,
                mintid_status_name(rc), mintid_status_name(want_rc));
        check_failures++;
        return;
    }
    if (rc != MINTID_OK)
        return;
    if (t->have_last && mintid_id_compare(t->fmt, &t->last, &id) >= 0) {
        fprintf(stderr, "%s:%d: %s generator: an ID not above the last one\n", __FILE__, line, t->fmt->name);
        check_failures++;
    }
    /* as canonical text too, but for the decimal formats (not fixed-width: they sort as integers) */
    CHECK(mintid_encode_prefixed(t->fmt, MINTID_FORM_TEXT, &id, t->prefix, buf, sizeof buf) > 0);
    if (t->have_last && t->fmt->bits != 64 && strcmp(t->last_text, buf) >= 0) {
        fprintf(stderr, "%s:%d: %s generator: %s does not sort above %s\n", __FILE__, line, t->fmt->name, buf,
                t->last_text);
        check_failures++;
    }
    memcpy(t->last_text, buf, sizeof buf);
    t->last = id;
    t->have_last = 1;
    if (want_text != NULL && (mintid_encode_prefixed(t->fmt, MINTID_FORM_TEXT, &id, t->prefix, buf, sizeof buf) < 0 ||
                              strcmp(buf, want_text) != 0))
        fail_at(line, "the generated ID", buf, want_text);
    if (want_hex != NULL &&
        (mintid_encode(t->fmt, MINTID_FORM_HEX, &id, buf, sizeof buf) < 0 || strcmp(buf, want_hex) != 0))
        fail_at(line, "the generated ID's hex", buf, want_hex);
}

#define NEXT(t, now, text) trace_step(t, __LINE__, now, now, MINTID_OK, text, NULL)
#define NEXT_HEX(t, now, text, hex) trace_step(t, __LINE__, now, now, MINTID_OK, text, hex)
#define NEXT_THEN(t, now, then, text) trace_step(t, __LINE__, now, then, MINTID_OK, text, NULL)
#define NEXT_FAILS(t, now, rc) trace_step(t, __LINE__, now, now, rc, NULL, NULL)
#define NEXT_THEN_FAILS(t, now, then, rc) trace_step(t, __LINE__, now, then, rc, NULL, NULL)

/* n IDs at one clock reading, their canonical texts into texts[] (which may be NULL). */
static void trace_run(trace *t, int line, int64_t now, int n, char (*texts)[MINTID_TEXT_MAX]) {
    for (int i = 0; i < n; i++) {
        char want[MINTID_TEXT_MAX];
        int before = check_failures;
        trace_step(t, line, now, now, MINTID_OK, NULL, NULL);
        if (check_failures != before)
            return;
        CHECK(mintid_encode_prefixed(t->fmt, MINTID_FORM_TEXT, &t->last, t->prefix, want, sizeof want) > 0);
        if (texts != NULL)
            memcpy(texts[i], want, sizeof want);
    }
}

/* 1. uuidv7 (T = RFC 9562 A.6's 1645557742000) */
static const uint8_t UUID_P[] = {0x0c, 0xc3, 0x18, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f};
#define UUID_P_BYTES 0x0c, 0xc3, 0x18, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f
#define UUID_R_BYTES 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23
/* P with the guard bit cleared: mintid's first ID from P's random bytes */
#define UUID_P_GUARDED "017f22e2-79b0-74c3-98c4-dc0c0c07398f"

static void trace_uuidv7(void) {
    trace t;
    const int64_t T = T_A6;

    /* none, T: P, but for bit 3 of r0 (0x0c), which mintid clears */
    trace_init(&t, "uuidv7", UUID_P, sizeof UUID_P);
    trace_start(&t, T);
    NEXT(&t, T, UUID_P_GUARDED);
    trace_end(&t);

    /*
     * P itself (counter 0x330d8c4dc0c, its top bit set) is beyond mintid's
     * reach: a millisecond's first counter has that bit clear, and 2^41
     * increments would be needed. The rows that start from P start here from
     * P with the bit cleared, the counter then 0x130d8c4dc0c; the expected
     * IDs differ from the spec's in that one bit (7cc3 -> 74c3) alike.
     *
     * P, T / T - 5000 / T - 10000 (the allowance is inclusive): counter + 1,
     * 4 fresh bytes. The next millisecond then draws the 10 bytes after
     * those 4: the same millisecond took exactly 4.
     */
    static const uint8_t same[] = {UUID_P_BYTES, 0xa1, 0xb2, 0xc3, 0xd4, UUID_R_BYTES};
    const int64_t behind[] = {0, 5000, 10000};
    for (int i = 0; i < 3; i++) {
        trace_init(&t, "uuidv7", same, sizeof same);
        trace_start(&t, T);
        NEXT(&t, T, UUID_P_GUARDED);
        NEXT(&t, T - behind[i], "017f22e2-79b0-74c3-98c4-dc0da1b2c3d4");
        NEXT(&t, T + 1, "017f22e2-79b1-7123-8567-89abcdef0123");
        trace_end(&t);
    }

    /* P, T - 10001: an error under the default policy (reuse with a 10 s allowance); nothing drawn, nothing changed */
    static const uint8_t back[] = {UUID_P_BYTES, UUID_R_BYTES};
    trace_init(&t, "uuidv7", back, sizeof back);
    CHECK_INT(t.cfg.rollback, MINTID_ROLLBACK_REUSE);
    trace_start(&t, T);
    NEXT(&t, T, UUID_P_GUARDED);
    NEXT_FAILS(&t, T - 10001, MINTID_ECLOCKBACK);
    NEXT(&t, T, "017f22e2-79b0-74c3-98c4-dc0d01234567");
    trace_end(&t);

    /* P, T + 1: a new millisecond, the same as uuidv7-h's (bit 3 of 0x01 is 0) */
    trace_init(&t, "uuidv7", back, sizeof back);
    trace_start(&t, T);
    NEXT(&t, T, UUID_P_GUARDED);
    NEXT(&t, T + 1, "017f22e2-79b1-7123-8567-89abcdef0123");
    trace_end(&t);

    /*
     * Not reachable, skipped: the rows from 017f22e2-79b0-7fff-bfff-fffe01020304
     * and ...-ffff01020304 (counter 2^42 - 2 and 2^42 - 1, case 2 reaching the
     * maximum and case 3's timestamp + 1) and from ffffffff-ffff-7fff-bfff-
     * ffff01020304 (case 3 past 2^48 - 1): with the guard bit a counter
     * starts below 2^41, and a generator's state cannot be set from outside.
     */

    /* The policies by name: `wait` waits (here the clock catches up), `fail` refuses any rollback. */
    trace_init(&t, "uuidv7", same, sizeof same);
    t.cfg.rollback = MINTID_ROLLBACK_WAIT;
    trace_start(&t, T);
    NEXT(&t, T, UUID_P_GUARDED);
    NEXT_THEN(&t, T - 10001, T, "017f22e2-79b0-74c3-98c4-dc0da1b2c3d4");
    trace_end(&t);
    trace_init(&t, "uuidv7", same, sizeof same);
    t.cfg.rollback = MINTID_ROLLBACK_WAIT;
    t.cfg.max_wait_ms = 5;
    trace_start(&t, T);
    NEXT(&t, T, UUID_P_GUARDED);
    NEXT_FAILS(&t, T - 10001, MINTID_ETIMEDOUT);
    trace_end(&t);
    trace_init(&t, "uuidv7", same, sizeof same);
    t.cfg.rollback = MINTID_ROLLBACK_FAIL;
    trace_start(&t, T);
    NEXT(&t, T, UUID_P_GUARDED);
    NEXT_FAILS(&t, T - 1, MINTID_ECLOCKBACK);
    trace_end(&t);

    /* The last millisecond 2^48 - 1 is a timestamp; past it, an error. */
    static const uint8_t r[] = {UUID_R_BYTES};
    trace_init(&t, "uuidv7", r, sizeof r);
    trace_start(&t, 281474976710656);
    NEXT_FAILS(&t, 281474976710656, MINTID_ETIME);
    NEXT(&t, 281474976710655, "ffffffff-ffff-7123-8567-89abcdef0123");
    trace_end(&t);
}

/* 2. ulid: a random source that always draws G (binary 10000) */
#define G10 0x84, 0x21, 0x08, 0x42, 0x10, 0x84, 0x21, 0x08, 0x42, 0x10

static void trace_ulid(void) {
    trace t;
    const int64_t T = 1700000000000;
    static const uint8_t g[] = {G10, G10, G10};
    trace_init(&t, "ulid", g, sizeof g);
    trace_start(&t, T);
    NEXT(&t, T, "01HF7YAT00GGGGGGGGGGGGGGGG");
    NEXT(&t, T, "01HF7YAT00GGGGGGGGGGGGGGGH");
    NEXT(&t, T - 5000, "01HF7YAT00GGGGGGGGGGGGGGGJ");
    NEXT(&t, T + 1, "01HF7YAT01GGGGGGGGGGGGGGGG");
    /* section 0's allowance: 10 s behind is absorbed, more fails */
    NEXT(&t, T + 1 - 10000, "01HF7YAT01GGGGGGGGGGGGGGGH");
    NEXT_FAILS(&t, T + 1 - 10001, MINTID_ECLOCKBACK);
    NEXT(&t, T + 1, "01HF7YAT01GGGGGGGGGGGGGGGJ");
    trace_end(&t);

    /* the spec's monotonic example */
    const int64_t T2 = 1508808576371;
    static const uint8_t mono[] = {0x53, 0x34, 0xad, 0xa7, 0x8e, 0xdc, 0x1d, 0x4a, 0x6f, 0x1f};
    trace_init(&t, "ulid", mono, sizeof mono);
    trace_start(&t, T2);
    NEXT_HEX(&t, T2, "01BX5ZZKBKACTAV9WEVGEMMVRZ", "015f4bffcd735334ada78edc1d4a6f1f");
    NEXT_HEX(&t, T2, "01BX5ZZKBKACTAV9WEVGEMMVS0", "015f4bffcd735334ada78edc1d4a6f20");
    trace_end(&t);

    /* randomness at 2^80 - 1: the next ID of that ms fails (default overflow policy `fail`) */
    static const uint8_t top[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, G10};
    trace_init(&t, "ulid", top, sizeof top);
    CHECK_INT(t.cfg.overflow, MINTID_OVERFLOW_FAIL);
    trace_start(&t, T2);
    NEXT_HEX(&t, T2, "01BX5ZZKBKZZZZZZZZZZZZZZZZ", "015f4bffcd73ffffffffffffffffffff");
    NEXT_FAILS(&t, T2, MINTID_EEXHAUSTED);
    NEXT_FAILS(&t, T2 - 5000, MINTID_EEXHAUSTED);
    NEXT(&t, T2 + 1, "01BX5ZZKBMGGGGGGGGGGGGGGGG");
    trace_end(&t);
    /* `wait` instead: the next millisecond, fresh randomness */
    trace_init(&t, "ulid", top, sizeof top);
    t.cfg.overflow = MINTID_OVERFLOW_WAIT;
    trace_start(&t, T2);
    NEXT(&t, T2, "01BX5ZZKBKZZZZZZZZZZZZZZZZ");
    NEXT_THEN(&t, T2, T2 + 1, "01BX5ZZKBMGGGGGGGGGGGGGGGG");
    trace_end(&t);

    /* a timestamp above 2^48 - 1: an error */
    trace_init(&t, "ulid", g, sizeof g);
    trace_start(&t, 281474976710656);
    NEXT_FAILS(&t, 281474976710656, MINTID_ETIME);
    NEXT(&t, 281474976710655, "7ZZZZZZZZZGGGGGGGGGGGGGGGG");
    trace_end(&t);
}

/* 3. scru128: 3 bytes for each 24-bit value, 4 for the entropy, in the spec's order */
static void trace_scru128(void) {
    trace t;
    const int64_t T = 1700000000000;
    static const uint8_t s[] = {
        0xaa, 0xaa, 0xaa, 0xbb, 0xbb, 0xbb, 0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22, 0x33, 0x33,
        0x33, 0x33, 0xff, 0xff, 0xfe, 0x44, 0x44, 0x44, 0x44, 0x55, 0x55, 0x55, 0x55, 0x66, 0x66, 0x66,
        0x66, 0x12, 0x34, 0x56, 0x65, 0x43, 0x21, 0x77, 0x77, 0x77, 0x77, 0x88, 0x88, 0x88, 0x88,
    };
    trace_init(&t, "scru128", s, sizeof s);
    trace_start(&t, T);
    NEXT_HEX(&t, T, "03amo4vrpu1ayvkbi7m1sgf81", "018bcfe56800bbbbbbaaaaaa11111111");
    NEXT_HEX(&t, T, "03amo4vrpu1ayvkbi7o5k1jqa", "018bcfe56800bbbbbbaaaaab22222222");
    NEXT_HEX(&t, T - 5000, "03amo4vrpu1ayvkbi7q9bmo8j", "018bcfe56800bbbbbbaaaaac33333333");
    NEXT_HEX(&t, T + 1, "03amo4vrpzi61nd62hzz3akas", "018bcfe56801bbbbbbfffffe44444444");
    NEXT_HEX(&t, T + 1, "03amo4vrpzi61nd62i22uvot1", "018bcfe56801bbbbbbffffff55555555");
    NEXT_HEX(&t, T + 1, "03amo4vrpzi61nd62i46mgtba", "018bcfe56801bbbbbc00000066666666");
    NEXT_HEX(&t, T + 1000, "03amo4vvxom1z7qwpmmzzsbcn", "018bcfe56be865432112345677777777");
    NEXT_FAILS(&t, T + 1000 - 10001, MINTID_ECLOCKBACK);
    /* section 0: 10 s behind is still absorbed (and the failed call drew nothing) */
    NEXT_HEX(&t, T + 1000 - 10000, "03amo4vvxom1z7qwpmp3rdfuw", "018bcfe56be865432112345788888888");
    trace_end(&t);

    /* both counters used up: counter_hi 0, the timestamp + 1 (ahead of the clock), counter_lo drawn; no renewal */
    static const uint8_t full[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x11, 0x11, 0x11, 0x11, 0x12,
                                   0x34, 0x56, 0x22, 0x22, 0x22, 0x22, 0x33, 0x33, 0x33, 0x33};
    trace_init(&t, "scru128", full, sizeof full);
    trace_start(&t, T);
    NEXT_HEX(&t, T, "03amo4vrpvhsutd6aeyaahwk1", "018bcfe56800ffffffffffff11111111");
    NEXT_HEX(&t, T, "03amo4vrpvhsutekqr8gz534y", "018bcfe5680100000012345622222222");
    NEXT_HEX(&t, T, "03amo4vrpvhsutekqrakqq7n7", "018bcfe5680100000012345733333333");
    trace_end(&t);

    /* timestamps stay in 1 .. 2^48 - 2: 0 and 2^48 - 1 are reserved */
    trace_init(&t, "scru128", s, sizeof s);
    trace_start(&t, 0);
    NEXT_FAILS(&t, 0, MINTID_ETIME);
    NEXT_FAILS(&t, 281474976710655, MINTID_ETIME);
    NEXT_HEX(&t, 281474976710654, NULL, "fffffffffffebbbbbbaaaaaa11111111");
    trace_end(&t);
}

/* 4. snowflake */
static void trace_snowflake(void) {
    trace t;
    const int64_t T = 1656432460105; /* 2022-06-28T16:07:40.105Z */
    char texts[4096][MINTID_TEXT_MAX];

    /* Discord's example: worker 1 = node 32, its 8th ID of that ms */
    trace_init(&t, "snowflake", NULL, 0);
    CHECK_INT(mintid_parse_epoch(t.fmt, "discord", &t.cfg.epoch_ms), MINTID_OK);
    CHECK_INT(t.cfg.epoch_ms, 1420070400000);
    t.cfg.node = 32;
    trace_start(&t, 1462015105796);
    trace_run(&t, __LINE__, 1462015105796, 8, texts);
    CHECK_STR(texts[0], "175928847299117056");
    CHECK_STR(texts[7], "175928847299117063");
    trace_end(&t);

    /* datacenter 10, worker 5 */
    trace_init(&t, "snowflake", NULL, 0);
    CHECK_INT(t.cfg.epoch_ms, 1288834974657);
    t.cfg.node = 10 << 5 | 5;
    trace_start(&t, T);
    NEXT(&t, T, "1541815603605819392");
    trace_end(&t);

    /* datacenter 1, worker 5: sequence 0, 1 .. 4095, then (default overflow: wait) 0 in the next ms */
    trace_init(&t, "snowflake", NULL, 0);
    CHECK_INT(t.cfg.overflow, MINTID_OVERFLOW_WAIT);
    t.cfg.node = 37;
    trace_start(&t, T);
    trace_run(&t, __LINE__, T, 4096, texts);
    CHECK_STR(texts[0], "1541815603604639744");
    CHECK_STR(texts[1], "1541815603604639745");
    CHECK_STR(texts[4095], "1541815603604643839");
    NEXT_THEN(&t, T, T + 1, "1541815603608834048");
    trace_end(&t);
    /* overflow policy `fail` */
    trace_init(&t, "snowflake", NULL, 0);
    t.cfg.node = 37;
    t.cfg.overflow = MINTID_OVERFLOW_FAIL;
    trace_start(&t, T);
    trace_run(&t, __LINE__, T, 4096, NULL);
    NEXT_FAILS(&t, T, MINTID_EEXHAUSTED);
    NEXT(&t, T + 1, "1541815603608834048");
    trace_end(&t);

    /* a clock behind: `fail` errs; the default `wait` waits until it passes the last timestamp */
    trace_init(&t, "snowflake", NULL, 0);
    t.cfg.node = 37;
    t.cfg.rollback = MINTID_ROLLBACK_FAIL;
    trace_start(&t, T);
    NEXT(&t, T, "1541815603604639744");
    NEXT_FAILS(&t, T - 1, MINTID_ECLOCKBACK);
    trace_end(&t);
    trace_init(&t, "snowflake", NULL, 0);
    CHECK_INT(t.cfg.rollback, MINTID_ROLLBACK_WAIT);
    t.cfg.node = 37;
    t.cfg.max_wait_ms = 5;
    trace_start(&t, T);
    NEXT(&t, T, "1541815603604639744");
    NEXT_THEN(&t, T - 3, T, "1541815603604639745");
    NEXT_FAILS(&t, T - 3, MINTID_ETIMEDOUT);
    trace_end(&t);

    /* the lifespan: the last ms (2080-07-10T17:30:30.208Z with Twitter's epoch), then an error, never a wrap */
    trace_init(&t, "snowflake", NULL, 0);
    t.cfg.node = 1023;
    trace_start(&t, 3487858230209);
    NEXT_FAILS(&t, 3487858230209, MINTID_ETIME);
    NEXT(&t, 3487858230208, "9223372036854771712");
    trace_end(&t);

    /* an epoch in the future, a node past 1023 */
    mintid_gen *g = NULL;
    trace_init(&t, "snowflake", NULL, 0);
    t.clk.now = T;
    t.cfg.epoch_ms = T + 1;
    CHECK_INT(mintid_gen_new(t.fmt, &t.cfg, &g), MINTID_ETIME);
    t.cfg.epoch_ms = 1288834974657;
    t.cfg.node = 1024;
    CHECK_INT(mintid_gen_new(t.fmt, &t.cfg, &g), MINTID_EINVAL);
    CHECK(g == NULL);
}

/* 5. sonyflake */
static void trace_sonyflake(void) {
    trace t;
    const int64_t START = 1409529600000;
    char texts[256][MINTID_TEXT_MAX];

    /* machine 1 at start + 9 ms and start + 10 ms */
    trace_init(&t, "sonyflake", NULL, 0);
    t.cfg.node = 1;
    trace_start(&t, START + 9);
    NEXT(&t, START + 9, "1");
    NEXT(&t, START + 10, "16777217");
    trace_end(&t);

    /* Compose(1700000000123 ms, 5, 258): the sixth ID of that unit */
    trace_init(&t, "sonyflake", NULL, 0);
    t.cfg.node = 258;
    trace_start(&t, 1700000000123);
    trace_run(&t, __LINE__, 1700000000123, 6, texts);
    CHECK_STR(texts[5], "487328464442294530");
    trace_end(&t);

    /* machine 4242: sequence 0, 1 .. 255, then the wrap waits for the next unit; a clock behind is absorbed */
    trace_init(&t, "sonyflake", NULL, 0);
    CHECK_INT(t.cfg.overflow, MINTID_OVERFLOW_WAIT);
    CHECK_INT(t.cfg.rollback, MINTID_ROLLBACK_REUSE);
    t.cfg.node = 4242;
    trace_start(&t, 1700000000125);
    trace_run(&t, __LINE__, 1700000000125, 256, texts);
    CHECK_STR(texts[0], "487328464441970834");
    CHECK_STR(texts[1], "487328464442036370");
    CHECK_STR(texts[255], "487328464458682514");
    NEXT_THEN(&t, 1700000000129, 1700000000130, "487328464458748050");
    NEXT(&t, 1700000000120, "487328464458813586");
    NEXT(&t, 1700000000130 - 3600000, "487328464458879122"); /* any rollback, however large */
    trace_end(&t);

    /* NextID with MachineID 7 */
    trace_init(&t, "sonyflake", NULL, 0);
    t.cfg.node = 7;
    trace_start(&t, 1795423573090);
    NEXT(&t, 1795423573099, "647422653962911751");
    trace_end(&t);

    /* v2's default start, 2025-01-01: the fourth ID of 1770000000000 on machine 1 */
    trace_init(&t, "sonyflake", NULL, 0);
    CHECK_INT(mintid_parse_epoch(t.fmt, "2025-01-01", &t.cfg.epoch_ms), MINTID_OK);
    CHECK_INT(t.cfg.epoch_ms, 1735689600000);
    t.cfg.node = 1;
    trace_start(&t, 1770000000000);
    trace_run(&t, __LINE__, 1770000000000, 4, texts);
    CHECK_STR(texts[3], "57563299184836609");
    trace_end(&t);

    /* the last unit (2188-11-16T03:28:58.870Z), then ErrOverTimeLimit */
    trace_init(&t, "sonyflake", NULL, 0);
    t.cfg.node = 65535;
    trace_start(&t, 6907087738875);
    trace_run(&t, __LINE__, 6907087738875, 256, texts);
    CHECK_STR(texts[255], "9223372036854775807");
    NEXT_FAILS(&t, 6907087738880, MINTID_ETIME);
    trace_end(&t);

    /* a start in the future (ErrStartTimeAhead), a machine past 65535 */
    mintid_gen *g = NULL;
    trace_init(&t, "sonyflake", NULL, 0);
    t.clk.now = 1700000000000;
    t.cfg.epoch_ms = 1700000000001;
    CHECK_INT(mintid_gen_new(t.fmt, &t.cfg, &g), MINTID_ETIME);
    t.cfg.epoch_ms = START;
    t.cfg.node = 65536;
    CHECK_INT(mintid_gen_new(t.fmt, &t.cfg, &g), MINTID_EINVAL);
    CHECK(g == NULL);
}

/* 6. ksuid: a new second draws 16 bytes (counter 12, tail 4), the same second 4 */
static void trace_ksuid(void) {
    trace t;
    const int64_t T = 1700000000000;
    static const uint8_t s[] = {
        0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45, 0x67, 0xde, 0xad, 0xbe, 0xef, /* new */
        0x00, 0x00, 0x00, 0x01,                                                                         /* same */
        0x00, 0x00, 0x00, 0x02, /* 10 s behind */
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* new */
    };
    trace_init(&t, "ksuid", s, sizeof s);
    trace_start(&t, T);
    NEXT_HEX(&t, T, "2YBXZHsLO8MUtQ9MmLrFm63K2RD", "11e1a3000123456789abcdef01234567deadbeef");
    NEXT_HEX(&t, T + 999, "2YBXZHsLO8MUtQ9MmLrFm6f9hx3", "11e1a3000123456789abcdef0123456800000001");
    /* at most 10 s behind: absorbed; more: an error */
    NEXT_HEX(&t, T - 10000, NULL, "11e1a3000123456789abcdef0123456900000002");
    NEXT_FAILS(&t, T - 10001, MINTID_ECLOCKBACK);
    /* a new second: the counter's top bit starts at 0 */
    NEXT_HEX(&t, T + 1000, NULL, "11e1a3017fffffffffffffffffffffffffffffff");
    trace_end(&t);
}

/* 7. typeid: the uuidv7 generator, written with the prefix */
static void trace_typeid(void) {
    trace t;
    const int64_t T = T_A6;
    static const uint8_t s[] = {UUID_P_BYTES, 0xa1, 0xb2, 0xc3, 0xd4, UUID_R_BYTES};
    trace_init(&t, "typeid", s, sizeof s);
    t.prefix = "user";
    trace_start(&t, T);
    NEXT_HEX(&t, T, "user_01fwhe4ydgek1shh6w1g60eecf", "017f22e279b074c398c4dc0c0c07398f");
    NEXT_HEX(&t, T - 10000, "user_01fwhe4ydgek1shh6w1pgv5gym", "017f22e279b074c398c4dc0da1b2c3d4");
    NEXT_FAILS(&t, T - 10001, MINTID_ECLOCKBACK);
    NEXT_HEX(&t, T + 1, "user_01fwhe4ydhe4hrasw9nf6yy093", "017f22e279b17123856789abcdef0123");
    trace_end(&t);
}

int main(void) {
    for (size_t i = 0; i < sizeof dvecs / sizeof dvecs[0]; i++)
        check_dvec(&dvecs[i]);
    for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
        check_spelling(&spellings[i]);
    check_uuid_forms();
    for (size_t i = 0; i < sizeof rejections / sizeof rejections[0]; i++)
        check_rejection(&rejections[i]);
    check_uuidv7_invalid();
    check_relations();
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        check_range_vec(&ranges[i]);
    trace_uuidv7();
    trace_ulid();
    trace_scru128();
    trace_snowflake();
    trace_sonyflake();
    trace_ksuid();
    trace_typeid();
    return CHECK_DONE();
}
