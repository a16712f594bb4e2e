/* SPDX-License-Identifier: MIT */
/*
 * main.c - the mintid command: gen, inspect, convert, formats.
 *
 * Every command reads the format table of libmintid; nothing here knows a
 * format by name except through it.
 */
#include "cli.h"
#include "mintid.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const usage_head = "usage: mintid COMMAND [OPTIONS]\n"
                                      "\n"
                                      "Mints and reads unique, time-ordered IDs.\n"
                                      "\n"
                                      "commands:\n"
                                      "  gen FORMAT [-n COUNT] [--node N] [--epoch WHEN] [--as FORM]\n"
                                      "             [--overflow wait|fail] [--rollback wait|reuse|fail]\n"
                                      "             [--max-wait MS] [--entropy-size N] [--prefix TYPE]\n"
                                      "             [--ids-per-reading N] [--local]\n"
                                      "      print COUNT new IDs (default 1), one per line; with\n"
                                      "      --ids-per-reading N (1 to 256, default 1) up to N IDs in a row\n"
                                      "      share one reading of the clock, for bulk output. Every run on\n"
                                      "      the host (and mintidd beside them) continues one sequence per\n"
                                      "      format, node, epoch and id space (state in $MINTID_HOST_DIR,\n"
                                      "      default /var/tmp, kept across reboots), so runs never repeat an\n"
                                      "      ID; --node defaults to $MINTID_NODE, the id space is\n"
                                      "      $MINTID_ID_SPACE; --node host mints under the node id of the\n"
                                      "      host's mintidd, in its sequence and only while its lease and\n"
                                      "      state are good; --local mints from this run's own generator\n"
                                      "  inspect [--format FORMAT] [--from FORM] [--epoch WHEN] [ID...]\n"
                                      "      print each ID's fields as one JSON object per line; IDs are read\n"
                                      "      from standard input, one per line of at most 4096 bytes, when none\n"
                                      "      are given; the format is guessed from the ID's shape when not given\n"
                                      "  convert [--format FORMAT] [--from FORM] --to FORM [--prefix TYPE] [ID...]\n"
                                      "      print each ID in another text form of its format\n"
                                      "  range FORMAT FROM [TO] [--epoch WHEN] [--as FORM] [--prefix TYPE]\n"
                                      "      print the smallest ID of FROM's millisecond and the largest of TO's\n"
                                      "      (default FROM's): every ID minted in [FROM, TO] lies between them\n"
                                      "  formats [--format FORMAT] [--epoch WHEN]\n"
                                      "      list the formats, or one: bit layout, capacity, text forms, lifespan\n"
                                      "  --help, --version\n"
                                      "      print this help, or the version\n"
                                      "\n";

static const char *const usage_tail = "exit status: 0 success; 1 an input was not a valid ID (valid ones are still\n"
                                      "printed); 2 usage error; 3 minting or writing failed.\n";

/* What each form is, for the help; which formats have it comes from the table. */
static const char *const form_notes[MINTID_FORM_COUNT] = {
    [MINTID_FORM_TEXT] = "canonical",
    [MINTID_FORM_INT] = "decimal",
};

/* The help: the commands, then the formats, forms and epochs as the format table has them. */
static void print_usage(void) {
    char names[MINTID_FORMAT_NAMES_MAX];
    fputs(usage_head, stdout);
    if (mintid_format_names(names, sizeof names) < 0)
        names[0] = '\0';
    printf("FORMAT: %s\nFORM:  ", names);
    for (int f = 0; f < MINTID_FORM_COUNT; f++) {
        /* A form that only some formats have names them. */
        char which[MINTID_FORMAT_NAMES_MAX] = "";
        size_t n = 0;
        int have = 0;
        for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
            const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
            if (fmt->forms & MINTID_FORM_BIT(f)) {
                n += (size_t)snprintf(which + n, n < sizeof which ? sizeof which - n : 0, "%s%s", have ? ", " : "",
                                      fmt->name);
                have++;
            }
        }
        const char *note = form_notes[f] != NULL ? form_notes[f] : have < MINTID_FORMAT_COUNT ? which : NULL;
        printf("%s %s%s%s%s", f ? "," : "", mintid_form_name((mintid_form)f), note ? " (" : "", note ? note : "",
               note ? ")" : "");
    }
    printf("\nWHEN:   Unix milliseconds, or RFC 3339 UTC such as 2015-01-01 or\n"
           "        2015-01-01T00:00:00.000Z; --epoch applies to");
    for (int i = 0, k = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        if (fmt->epoch_settable) {
            printf("%s %s (default %" PRId64, k++ ? "," : "", fmt->name, fmt->epoch_ms);
            for (const mintid_epoch_name *e = fmt->epoch_names; e != NULL && e->name != NULL; e++)
                printf("%s%s", e == fmt->epoch_names ? "; or " : ", ", e->name);
            printf(")");
        }
    }
    printf("\nTYPE:   a type prefix of");
    for (int i = 0, k = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        if (fmt->prefix_max > 0)
            printf("%s %s (up to %u letters a-z and '_')", k++ ? "," : "", fmt->name, fmt->prefix_max);
    }
    char dashed[MINTID_FORMAT_NAMES_MAX] = "";
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        size_t n = strlen(dashed);
        const char *digits = mintid_format_form(fmt, MINTID_FORM_TEXT)->alphabet;
        if (digits != NULL && strchr(digits, '-') != NULL)
            snprintf(dashed + n, sizeof dashed - n, "%s%s", n ? ", " : "", fmt->name);
    }
    printf("\n\nAn ID that starts with '-'%s%s%s must follow '--' or come on standard input.\n\n",
           dashed[0] ? " (" : "", dashed, dashed[0] ? ")" : "");
    fputs(usage_tail, stdout);
}

static int usage_error(const char *fmt, const char *arg) {
    fputs("mintid: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs("\n(see mintid --help)\n", stderr);
    return EXIT_USAGE;
}

/* ---- argument parsing ------------------------------------------------------------ */

/* Untrusted text, escaped for a message. */
static const char *escaped(const char *s, size_t len, char *buf, size_t cap) {
    mintid_escape(s, len, buf, cap);
    return buf;
}

/*
 * getopt_long() has just refused an option: c is ':' for a missing value,
 * '?' for an unknown option (optopt holds a short one's letter). The hint
 * about IDs that start with '-' is given only by the commands that take
 * IDs (takes_ids), where the option may have been meant as one.
 */
static int bad_option(int c, char **argv, bool takes_ids) {
    char safe[MINTID_ESCAPED_MAX], letter[3] = {'-', (char)optopt, '\0'};
    const char *arg = c == '?' && optopt != 0 ? letter : argv[optind - 1];
    escaped(arg, strlen(arg), safe, sizeof safe);
    if (c == ':')
        return usage_error("%s needs a value", safe);
    return usage_error(
        takes_ids ? "unknown option '%s' (an ID that starts with '-' goes after '--')" : "unknown option '%s'", safe);
}

/* A decimal integer in [min, max], nothing else: no sign, no spaces, no suffix. */
static bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out) {
    if (s == NULL || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return false;
    *out = v;
    return true;
}

/*
 * The exit status of a status the library returned for this run's own
 * words or work: the caller's input is a usage error; the clock, capacity,
 * the host or the program a failure to mint.
 */
static int exit_for(int status) {
    return mintid_status_class(status) == MINTID_CLASS_INPUT ? EXIT_USAGE : EXIT_FAILURE_RT;
}

/* The format named `name`, or NULL after the library's sentence (with the name a person meant). */
static const mintid_format *find_format(const char *name) {
    const mintid_format *fmt;
    char why[MINTID_WHY_MAX];
    if (mintid_lookup_format(name, strlen(name), &fmt, why, sizeof why) != MINTID_OK) {
        fprintf(stderr, "mintid: %s\n", why);
        return NULL;
    }
    return fmt;
}

/* The form named `name` if `fmt` has it (any format when fmt is NULL), else -2 after a message. */
static int find_form(const mintid_format *fmt, const char *option, const char *name) {
    mintid_form form;
    char why[MINTID_WHY_MAX];
    if (mintid_lookup_form(fmt, name, strlen(name), &form, why, sizeof why) != MINTID_OK) {
        fprintf(stderr, "mintid: %s: %s\n", option, why);
        return -2;
    }
    return form;
}

/*
 * --epoch: with s given, sets *epoch for fmt (NULL: not yet known, when
 * any format's named epoch is taken). Returns EXIT_OK, or EXIT_USAGE after
 * a message.
 */
static int epoch_option(const mintid_format *fmt, const char *s, int64_t *epoch) {
    char why[MINTID_WHY_MAX];
    if (s == NULL)
        return EXIT_OK;
    if (mintid_lookup_epoch(fmt, s, strlen(s), epoch, why, sizeof why) != MINTID_OK) {
        fprintf(stderr, "mintid: --epoch: %s\n", why);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/*
 * --prefix: with s given, checks it is a type prefix of `form` of fmt.
 * Returns EXIT_OK, or EXIT_USAGE after a message.
 */
static int prefix_option(const mintid_format *fmt, int form, const char *s) {
    char why[MINTID_WHY_MAX];
    if (s == NULL || mintid_lookup_prefix(fmt, form, s, strlen(s), why, sizeof why) == MINTID_OK)
        return EXIT_OK;
    fprintf(stderr, "mintid: --prefix: %s\n", why);
    return EXIT_USAGE;
}

/* ---- gen ----------------------------------------------------------------------------- */

#define GEN_BATCH 4096
#define GEN_MAX_COUNT UINT64_C(1000000000000000) /* 10^15: more than a lifetime at capacity */

static int policy_from(const char *s, const char *const *names, int n) {
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

static int cmd_gen(int argc, char **argv) {
    /* clang-format off */
    static const struct option opts[] = {
        {"count", required_argument, NULL, 'n'},
        {"node", required_argument, NULL, 'N'},
        {"epoch", required_argument, NULL, 'e'},
        {"as", required_argument, NULL, 'a'},
        {"overflow", required_argument, NULL, 'o'},
        {"rollback", required_argument, NULL, 'r'},
        {"max-wait", required_argument, NULL, 'w'},
        {"entropy-size", required_argument, NULL, 'E'},
        {"prefix", required_argument, NULL, 'p'},
        {"ids-per-reading", required_argument, NULL, 'R'},
        {"local", no_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    /* clang-format on */
    static const char *const overflow_names[] = {"wait", "fail"};
    static const char *const rollback_names[] = {"wait", "reuse", "fail"};
    const char *count_arg = NULL, *node_arg = NULL, *epoch_arg = NULL, *as_arg = NULL, *overflow_arg = NULL,
               *rollback_arg = NULL, *wait_arg = NULL, *entropy_arg = NULL, *prefix_arg = NULL, *reading_arg = NULL;
    bool local = false;
    int c;
    while ((c = getopt_long(argc, argv, ":n:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            count_arg = optarg;
            break;
        case 'N':
            node_arg = optarg;
            break;
        case 'e':
            epoch_arg = optarg;
            break;
        case 'a':
            as_arg = optarg;
            break;
        case 'o':
            overflow_arg = optarg;
            break;
        case 'r':
            rollback_arg = optarg;
            break;
        case 'w':
            wait_arg = optarg;
            break;
        case 'E':
            entropy_arg = optarg;
            break;
        case 'p':
            prefix_arg = optarg;
            break;
        case 'R':
            reading_arg = optarg;
            break;
        case 'L':
            local = true;
            break;
        case 'h':
            print_usage();
            return EXIT_OK;
        default:
            return bad_option(c, argv, false);
        }
    }
    if (optind != argc - 1)
        return usage_error("%s", optind == argc ? "gen needs a FORMAT" : "gen takes one FORMAT");
    const mintid_format *fmt = find_format(argv[optind]);
    if (fmt == NULL)
        return EXIT_USAGE;

    mintid_config cfg;
    mintid_config_init(&cfg, fmt);
    /* The command is the application the spec leaves waiting to: by default
     * it waits for the next millisecond rather than failing mid-run. */
    cfg.overflow = MINTID_OVERFLOW_WAIT;
    uint64_t count = 1, v;
    if (count_arg != NULL && !parse_u64(count_arg, 1, GEN_MAX_COUNT, &count))
        return usage_error("-n '%s': give a count from 1 to 10^15", count_arg);
    char why[MINTID_WHY_MAX];
    if (node_arg != NULL) {
        if (mintid_lookup_node(fmt, node_arg, strlen(node_arg), &cfg.node, why, sizeof why) != MINTID_OK) {
            fprintf(stderr, "mintid: --node: %s\n", why);
            return EXIT_USAGE;
        }
    } else if (fmt->node_bits > 0) {
        /* MINTID_NODE, as every home reads it. */
        if (mintid_env_node(fmt, &cfg.node, why, sizeof why) != MINTID_OK) {
            fprintf(stderr, "mintid: %s\n", why);
            return EXIT_USAGE;
        }
    }
    if (epoch_option(fmt, epoch_arg, &cfg.epoch_ms) != EXIT_OK)
        return EXIT_USAGE;
    int form = MINTID_FORM_TEXT;
    if (as_arg != NULL && (form = find_form(fmt, "--as", as_arg)) < 0)
        return EXIT_USAGE;
    if (prefix_option(fmt, form, prefix_arg) != EXIT_OK)
        return EXIT_USAGE;
    if (overflow_arg != NULL) {
        int p = policy_from(overflow_arg, overflow_names, 2);
        if (p < 0)
            return usage_error("--overflow '%s': give wait or fail", overflow_arg);
        cfg.overflow = (mintid_overflow_policy)p;
    }
    if (rollback_arg != NULL) {
        int p = policy_from(rollback_arg, rollback_names, 3);
        if (p < 0)
            return usage_error("--rollback '%s': give wait, reuse or fail", rollback_arg);
        cfg.rollback = (mintid_rollback_policy)p;
    }
    if (wait_arg != NULL) {
        if (!parse_u64(wait_arg, 0, 3600000, &v))
            return usage_error("--max-wait '%s': give milliseconds, 0 to 3600000", wait_arg);
        cfg.max_wait_ms = (uint32_t)v;
    }
    if (entropy_arg != NULL) {
        if (cfg.entropy_size == 0)
            return usage_error("--entropy-size: %s has no entropy size", fmt->name);
        uint64_t max = fmt->entropy_max;
        if (!parse_u64(entropy_arg, 1, max, &v)) {
            fprintf(stderr, "mintid: --entropy-size '%s': %s takes 1..%" PRIu64 " bytes\n", entropy_arg, fmt->name,
                    max);
            return EXIT_USAGE;
        }
        cfg.entropy_size = (unsigned)v;
    }
    if (reading_arg != NULL) {
        if (!parse_u64(reading_arg, 1, MINTID_MAX_IDS_PER_READING, &v)) {
            fprintf(stderr, "mintid: --ids-per-reading '%s': give 1 to %u\n", reading_arg, MINTID_MAX_IDS_PER_READING);
            return EXIT_USAGE;
        }
        cfg.ids_per_reading = (unsigned)v;
    }

    /* The host-wide generator by default: runs in parallel (xargs -P, cron
     * jobs, scripts) then never repeat an ID. */
    mintid_gen *gen;
    char host_dir[PATH_MAX], space[MINTID_ID_SPACE_MAX + 1], env_why[512];
    if (!local && (mintid_env_host_dir(host_dir, sizeof host_dir, env_why, sizeof env_why) != MINTID_OK ||
                   mintid_env_id_space(space, sizeof space, env_why, sizeof env_why) != MINTID_OK)) {
        fprintf(stderr, "mintid: %s\n", env_why);
        return EXIT_USAGE;
    }
    if (local && cfg.node == MINTID_NODE_HOST)
        return usage_error("--node host: the node id of the host's mintidd is for its sequence, not %s", "--local");
    int rc = local ? mintid_gen_new(fmt, &cfg, &gen) : mintid_gen_new_host(fmt, &cfg, NULL, &gen);
    if (rc != MINTID_OK) {
        mintid_gen_why(fmt, &cfg, NULL, rc, errno, why, sizeof why);
        fprintf(stderr, "mintid: %s%s\n", why,
                rc == MINTID_EHOST || rc == MINTID_EHOSTSTATE ? "; --local mints apart from other runs" : "");
        return exit_for(rc);
    }

    static mintid_id ids[GEN_BATCH];
    int status = EXIT_OK;
    while (count > 0 && out_ok()) {
        size_t want = count < GEN_BATCH ? (size_t)count : GEN_BATCH;
        long got = mintid_gen_next_n(gen, ids, want);
        if (got < 0) {
            mintid_gen_why(fmt, &cfg, gen, (int)got, errno, why, sizeof why);
            fprintf(stderr, "mintid: %s%s\n", why,
                    strstr(why, "ahead of the clock") != NULL ? " (--max-wait), or mint apart with --local" : "");
            status = EXIT_FAILURE_RT;
            break;
        }
        for (long i = 0; i < got; i++) {
            /* Encoded in place, in the output buffer. */
            char *line = out_reserve(MINTID_TEXT_MAX + 1);
            int n = prefix_arg != NULL
                        ? mintid_encode_prefixed(fmt, (mintid_form)form, &ids[i], prefix_arg, line, MINTID_TEXT_MAX)
                        : mintid_encode(fmt, (mintid_form)form, &ids[i], line, MINTID_TEXT_MAX);
            if (n < 0) {
                fprintf(stderr, "mintid: %s: %s\n", fmt->name, mintid_strerror(n));
                status = EXIT_FAILURE_RT;
                break;
            }
            line[n] = '\n';
            out_commit((size_t)n + 1);
        }
        if (status != EXIT_OK)
            break;
        count -= (uint64_t)got;
    }
    if (!out_flush())
        status = EXIT_FAILURE_RT;
    mintid_gen_free(gen);
    return status;
}

/* ---- reading IDs -------------------------------------------------------------------- */

typedef struct reader {
    const mintid_format *fmt; /* NULL: guess */
    int from;                 /* a form, or MINTID_FORM_ANY */
    int64_t epoch;            /* for formats whose epoch is settable */
    const char *prefix;       /* convert --prefix: the type prefix to write, or NULL */
} reader;

/*
 * Reads one ID as the reader says. Returns true with *fmt_out and *id set,
 * or false after the library's sentence on stderr. An ID that decodes but
 * could not have been minted is read, with a warning.
 */
static bool read_id(const reader *r, const char *s, size_t len, const mintid_format **fmt_out, mintid_id *id,
                    char prefix[MINTID_PREFIX_MAX + 1]) {
    mintid_reading got;
    char why[MINTID_WHY_MAX];
    int rc = mintid_read_text(r->fmt, r->from, r->epoch, s, len, &got, why, sizeof why);
    if (rc == MINTID_EINVALID && got.fmt != NULL) {
        fprintf(stderr, "mintid: warning: %s\n", why);
        rc = MINTID_OK;
    }
    if (rc != MINTID_OK) {
        fprintf(stderr, "mintid: %s%s\n", why,
                rc == MINTID_EAMBIGUOUS     ? "; say which with --format"
                : r->fmt == NULL && len > 0 ? "; give --format to read it as one"
                                            : "");
        return false;
    }
    *fmt_out = got.fmt;
    *id = got.id;
    memcpy(prefix, got.prefix, sizeof got.prefix);
    return true;
}

/*
 * The longest line of standard input read as an ID: far longer than any
 * format's text, short enough that a line that never ends cannot take the
 * memory. (The help text says 4096.)
 */
#define LINE_MAX_BYTES 4096
#define LINE_TOO_LONG (-2)

/*
 * Reads the next line of `in` into buf[0..LINE_MAX_BYTES], without its LF
 * or CRLF. Returns its length; LINE_TOO_LONG once the rest of a longer line
 * has been read and dropped, so the lines after it are still read; or -1
 * at the end of the input. NUL bytes are kept, for read_id() to refuse.
 */
static long read_line(FILE *in, char buf[LINE_MAX_BYTES + 1]) {
    size_t n = 0;
    bool any = false, over = false;
    int ch;
    while ((ch = getc_unlocked(in)) != EOF) {
        any = true;
        if (ch == '\n')
            break;
        /* One byte past the limit is kept: it may be the CR of a CRLF. */
        if (n <= LINE_MAX_BYTES)
            buf[n++] = (char)ch;
        else
            over = true;
    }
    if (!any)
        return -1;
    if (!over && n > 0 && buf[n - 1] == '\r')
        n--;
    return over || n > LINE_MAX_BYTES ? LINE_TOO_LONG : (long)n;
}

/*
 * Runs `each` on every ID: the arguments, or standard input's lines when
 * there are none. Returns EXIT_INVALID_ID if any was rejected.
 */
typedef bool (*id_fn)(const mintid_format *fmt, const mintid_id *id, const char *prefix, void *ctx);

static int for_each_id(const reader *r, int argc, char **argv, id_fn each, void *ctx) {
    int status = EXIT_OK;
    const mintid_format *fmt;
    mintid_id id;
    char prefix[MINTID_PREFIX_MAX + 1];
    if (argc > 0) {
        for (int i = 0; i < argc; i++) {
            if (read_id(r, argv[i], strlen(argv[i]), &fmt, &id, prefix))
                each(fmt, &id, prefix, ctx);
            else
                status = EXIT_INVALID_ID;
        }
        return status;
    }
    static char line[LINE_MAX_BYTES + 1];
    long n;
    for (unsigned long lineno = 1; (n = read_line(stdin, line)) != -1; lineno++) {
        if (n == LINE_TOO_LONG) {
            fprintf(stderr, "mintid: standard input line %lu is longer than %d bytes; expected an ID\n", lineno,
                    LINE_MAX_BYTES);
            status = EXIT_INVALID_ID;
        } else if (read_id(r, line, (size_t)n, &fmt, &id, prefix)) {
            each(fmt, &id, prefix, ctx);
        } else {
            status = EXIT_INVALID_ID;
        }
        if (!out_ok())
            break;
    }
    if (ferror(stdin)) {
        fprintf(stderr, "mintid: reading standard input: %s\n", strerror(errno));
        status = EXIT_FAILURE_RT;
    }
    return status;
}

/* Options shared by inspect, convert and formats (argv[0] names which). */
static int parse_reader(int argc, char **argv, reader *r, const char **to, int *first_arg) {
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'},
        {"from", required_argument, NULL, 'F'},
        {"epoch", required_argument, NULL, 'e'},
        {"to", required_argument, NULL, 't'},
        {"prefix", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *format_arg = NULL, *from_arg = NULL, *epoch_arg = NULL;
    r->prefix = NULL;
    int c;
    while ((c = getopt_long(argc, argv, ":f:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            format_arg = optarg;
            break;
        case 'F':
            from_arg = optarg;
            break;
        case 'e':
            epoch_arg = optarg;
            break;
        case 't':
            if (to == NULL)
                return usage_error("%s", "--to is for convert");
            *to = optarg;
            break;
        case 'p':
            if (to == NULL)
                return usage_error("%s", "--prefix is for convert");
            r->prefix = optarg;
            break;
        case 'h':
            print_usage();
            return -1;
        default:
            return bad_option(c, argv, strcmp(argv[0], "formats") != 0);
        }
    }
    r->fmt = NULL;
    r->from = MINTID_FORM_ANY;
    if (format_arg != NULL && (r->fmt = find_format(format_arg)) == NULL)
        return EXIT_USAGE;
    if (from_arg != NULL) {
        if (r->fmt == NULL)
            return usage_error("%s", "--from needs --format");
        if ((r->from = find_form(r->fmt, "--from", from_arg)) < 0)
            return EXIT_USAGE;
    }
    r->epoch = MINTID_EPOCH_DEFAULT;
    if (epoch_option(r->fmt, epoch_arg, &r->epoch) != EXIT_OK)
        return EXIT_USAGE;
    *first_arg = optind;
    return EXIT_OK;
}

/* ---- inspect ------------------------------------------------------------------------ */

static bool inspect_one(const mintid_format *fmt, const mintid_id *id, const char *prefix, void *vctx) {
    const reader *r = vctx;
    char json[MINTID_JSON_MAX];
    int n = mintid_id_to_json_prefixed(fmt, id, prefix, r->epoch, json, sizeof json);
    if (n < 0)
        return false;
    out_write(json, (size_t)n);
    out_write("\n", 1);
    return true;
}

static int cmd_inspect(int argc, char **argv) {
    reader r;
    int first;
    int rc = parse_reader(argc, argv, &r, NULL, &first);
    if (rc != EXIT_OK)
        return rc < 0 ? EXIT_OK : rc;
    int status = for_each_id(&r, argc - first, argv + first, inspect_one, &r);
    if (!out_flush())
        status = EXIT_FAILURE_RT;
    return status;
}

/* ---- convert ------------------------------------------------------------------------ */

typedef struct convert_ctx {
    const char *to;
    const char *prefix; /* --prefix, or NULL: keep the input's */
    int status;
} convert_ctx;

static bool convert_one(const mintid_format *fmt, const mintid_id *id, const char *prefix, void *vctx) {
    convert_ctx *ctx = vctx;
    char buf[MINTID_TEXT_MAX];
    int form = mintid_form_find(ctx->to);
    /* The text form keeps the input's type prefix, or takes --prefix; other forms have none. */
    if (ctx->prefix != NULL)
        prefix = ctx->prefix;
    int n =
        mintid_encode_prefixed(fmt, (mintid_form)form, id, form == MINTID_FORM_TEXT ? prefix : NULL, buf, sizeof buf);
    if (n < 0) {
        fprintf(stderr, "mintid: %s has no '%s' form\n", fmt->name, ctx->to);
        ctx->status = EXIT_USAGE;
        return false;
    }
    out_write(buf, (size_t)n);
    out_write("\n", 1);
    return true;
}

static int cmd_convert(int argc, char **argv) {
    reader r;
    convert_ctx ctx = {NULL, NULL, EXIT_OK};
    int first;
    int rc = parse_reader(argc, argv, &r, &ctx.to, &first);
    if (rc != EXIT_OK)
        return rc < 0 ? EXIT_OK : rc;
    if (ctx.to == NULL)
        return usage_error("%s", "convert needs --to FORM");
    int to_form = find_form(r.fmt, "--to", ctx.to);
    if (to_form < 0)
        return EXIT_USAGE;
    if (r.prefix != NULL) {
        if (r.fmt == NULL)
            return usage_error("%s", "--prefix needs --format");
        if (prefix_option(r.fmt, to_form, r.prefix) != EXIT_OK)
            return EXIT_USAGE;
        ctx.prefix = r.prefix;
    }
    int status = for_each_id(&r, argc - first, argv + first, convert_one, &ctx);
    if (ctx.status != EXIT_OK)
        status = ctx.status;
    if (!out_flush())
        status = EXIT_FAILURE_RT;
    return status;
}

/* ---- range -------------------------------------------------------------------------- */

/* range FORMAT FROM [TO]: the smallest ID of FROM's millisecond and the largest of TO's. */
static int cmd_range(int argc, char **argv) {
    static const struct option opts[] = {
        {"epoch", required_argument, NULL, 'e'},
        {"as", required_argument, NULL, 'a'},
        {"prefix", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *epoch_arg = NULL, *as_arg = NULL, *prefix_arg = NULL;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'e':
            epoch_arg = optarg;
            break;
        case 'a':
            as_arg = optarg;
            break;
        case 'p':
            prefix_arg = optarg;
            break;
        case 'h':
            print_usage();
            return EXIT_OK;
        default:
            return bad_option(c, argv, false);
        }
    }
    if (argc - optind < 2 || argc - optind > 3)
        return usage_error("%s", "range takes FORMAT FROM [TO]");
    const mintid_format *fmt = find_format(argv[optind]);
    if (fmt == NULL)
        return EXIT_USAGE;
    int form = MINTID_FORM_TEXT;
    if (as_arg != NULL && (form = find_form(fmt, "--as", as_arg)) < 0)
        return EXIT_USAGE;
    if (prefix_option(fmt, form, prefix_arg) != EXIT_OK)
        return EXIT_USAGE;
    int64_t epoch = MINTID_EPOCH_DEFAULT, from, to;
    if (epoch_option(fmt, epoch_arg, &epoch) != EXIT_OK)
        return EXIT_USAGE;
    const char *to_arg = argv[optind + (argc - optind == 3 ? 2 : 1)];
    if (mintid_parse_time(argv[optind + 1], &from) != MINTID_OK)
        return usage_error("range: FROM '%s' is not Unix ms or RFC 3339 UTC", argv[optind + 1]);
    if (mintid_parse_time(to_arg, &to) != MINTID_OK)
        return usage_error("range: TO '%s' is not Unix ms or RFC 3339 UTC", to_arg);
    if (to < from)
        return usage_error("range: TO '%s' is before FROM", to_arg);
    mintid_id lo, hi, unused;
    char lo_text[MINTID_TEXT_MAX], hi_text[MINTID_TEXT_MAX];
    if (mintid_range(fmt, from, epoch, &lo, &unused) != MINTID_OK ||
        mintid_range(fmt, to, epoch, &unused, &hi) != MINTID_OK) {
        fprintf(stderr, "mintid: range: %s cannot carry that time (its epoch to its last timestamp)\n", fmt->name);
        return EXIT_USAGE;
    }
    if (mintid_encode_prefixed(fmt, (mintid_form)form, &lo, prefix_arg, lo_text, sizeof lo_text) < 0 ||
        mintid_encode_prefixed(fmt, (mintid_form)form, &hi, prefix_arg, hi_text, sizeof hi_text) < 0) {
        fprintf(stderr, "mintid: range: %s: the IDs cannot be encoded\n", fmt->name);
        return EXIT_FAILURE_RT;
    }
    out_printf("%s\n%s\n", lo_text, hi_text);
    return out_flush() ? EXIT_OK : EXIT_FAILURE_RT;
}

/* ---- formats ------------------------------------------------------------------------ */

static int cmd_formats(int argc, char **argv) {
    reader r;
    int first;
    int rc = parse_reader(argc, argv, &r, NULL, &first);
    if (rc != EXIT_OK)
        return rc < 0 ? EXIT_OK : rc;
    if (first != argc)
        return usage_error("%s", "formats takes no arguments");
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        if (r.fmt != NULL && r.fmt != fmt)
            continue;
        char when[MINTID_TIME_MAX], start[MINTID_TIME_MAX];
        int64_t e = fmt->epoch_settable && r.epoch != MINTID_EPOCH_DEFAULT ? r.epoch : fmt->epoch_ms;
        out_printf("%s\n  %s\n  layout (%u bits, most significant first):", fmt->name, fmt->title, fmt->bits);
        for (unsigned k = 0; k < fmt->nfields; k++)
            out_printf(" %s:%u", fmt->fields[k].name, fmt->fields[k].width);
        out_str("\n  text forms:");
        for (int f = 0; f < MINTID_FORM_COUNT; f++)
            if (fmt->forms & MINTID_FORM_BIT(f))
                out_printf(" %s", mintid_form_name((mintid_form)f));
        const mintid_field *ts = mintid_format_field(fmt, MINTID_ROLE_TIMESTAMP);
        const char *note = fmt->capacity_note != NULL ? fmt->capacity_note : "";
        if (fmt->capacity_per_ms == 0)
            out_str("\n  capacity: unbounded in practice\n");
        else
            out_printf("\n  capacity: %" PRIu32 " IDs per ms per generator%s%s%s\n", fmt->capacity_per_ms,
                       note[0] ? " (" : "", note, note[0] ? ")" : "");
        if (mintid_format_time(e, start, sizeof start) < 0)
            snprintf(start, sizeof start, "Unix ms %" PRId64, e);
        int64_t unit = fmt->ts_unit_ms, end = mintid_format_last_ms(fmt, e);
        if (mintid_format_time(end, when, sizeof when) < 0)
            snprintf(when, sizeof when, "after year 99999");
        out_printf("  epoch: %s (%" PRId64 ")%s; %u-bit timestamp", start, e,
                   fmt->epoch_settable ? ", settable with --epoch" : "", ts->width);
        if (unit != 1)
            out_printf(" of %" PRId64 " ms units", unit);
        out_printf(" runs out %s\n", when);
        if (fmt->node_bits)
            out_printf("  node id: %u bits (0..%u)%s\n", fmt->node_bits, (1u << fmt->node_bits) - 1,
                       fmt->node_optional ? ", optional, in random16" : "");
        out_str("\n");
    }
    return out_flush() ? EXIT_OK : EXIT_FAILURE_RT;
}

/* ---- dispatch ------------------------------------------------------------------------ */

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"gen", cmd_gen},     {"inspect", cmd_inspect}, {"convert", cmd_convert},
    {"range", cmd_range}, {"formats", cmd_formats},
};

/*
 * Whether everything printed reached standard output, ours and stdio's
 * (help and version go through stdio, which reports a failed write only
 * when asked: closing flushes it and gives the answer). A failure already
 * reported by out_flush() is not reported twice.
 */
static bool close_stdout(void) {
    bool ours = out_flush(), theirs = !ferror(stdout);
    if (fclose(stdout) != 0)
        theirs = false;
    if (ours && !theirs)
        fprintf(stderr, "mintid: writing standard output: %s\n", strerror(errno));
    return ours && theirs;
}

static int run(int argc, char **argv) {
    opterr = 0; /* bad_option() says it better */
    if (argc < 2)
        return usage_error("%s", "no command given");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        print_usage();
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("mintid %s\n", MINTID_VERSION_STRING);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    char safe[MINTID_ESCAPED_MAX];
    fprintf(stderr, "mintid: unknown command '%s'; commands are", escaped(argv[1], strlen(argv[1]), safe, sizeof safe));
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(stderr, "%s %s", i ? "," : "", commands[i].name);
    fputs("\n(see mintid --help)\n", stderr);
    return EXIT_USAGE;
}

int main(int argc, char **argv) {
    int status = run(argc, argv);
    if (!close_stdout())
        status = EXIT_FAILURE_RT;
    return status;
}
