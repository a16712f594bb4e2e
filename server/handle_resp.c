/*
 * handle_resp.c - the Redis protocol: MINT, INSPECT and the few commands
 * Redis clients send on their own (PING, INFO, QUIT, COMMAND, CONFIG GET,
 * SELECT 0), from one command table.
 */
#include "resp.h"
#include "server.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char resp_refusal[] = "-ERR max number of clients reached\r\n";

static void reply_error(conn *c, struct evbuffer *out, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void reply_error(conn *c, struct evbuffer *out, const char *fmt, ...) {
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* An error line must not contain CR or LF. */
    for (char *p = msg; *p != '\0'; p++)
        if (*p == '\r' || *p == '\n')
            *p = ' ';
    evbuffer_add_printf(out, "-ERR %s\r\n", msg);
    c->srv->svc->errors[PROTO_RESP]++;
}

static void reply_bulk(struct evbuffer *out, const char *s, size_t n) {
    evbuffer_add_printf(out, "$%zu\r\n", n);
    evbuffer_add(out, s, n);
    evbuffer_add(out, "\r\n", 2);
}

static const char *arg_text(const resp_arg *a, char *buf, size_t cap) {
    mintid_escape(a->ptr, a->len, buf, cap);
    return buf;
}

static const mintid_format *arg_format(conn *c, const resp_arg *a, struct evbuffer *out) {
    char name[32], shown[MINTID_ESCAPED_MAX];
    if (a->len < sizeof name) {
        memcpy(name, a->ptr, a->len);
        name[a->len] = '\0';
        for (char *p = name; *p != '\0'; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p + 32);
        const mintid_format *fmt = mintid_format_find(name);
        if (fmt != NULL)
            return fmt;
    }
    char names[MINTID_FORMAT_NAMES_MAX];
    mintid_format_names(names, sizeof names);
    reply_error(c, out, "unknown format '%s'; formats are %s", arg_text(a, shown, sizeof shown), names);
    return NULL;
}

/* Each ID as a bulk string: "$len\r\n" + text + "\r\n" in one add. */
static void resp_encode(conn *c, const mintid_id *ids, size_t n) {
    mint_job *j = &c->job;
    /* The text is encoded after room for its header, which is then put
     * before it: n < 100, so the head is "$n\r\n", built by hand, as this
     * is the hot path. */
    char line[8 + MINTID_TEXT_MAX + 2];
    memcpy(line + 6, "\r\n", 2);
    for (size_t i = 0; i < n; i++) {
        int len = mintid_encode_prefixed(j->fmt, MINTID_FORM_TEXT, &ids[i], j->prefix, line + 8, MINTID_TEXT_MAX);
        if (len < 0) {
            j->error = len;
            return;
        }
        char *head = line + 8 - (len >= 10 ? 5 : 4);
        head[0] = '$';
        if (len >= 10)
            head[1] = (char)('0' + len / 10);
        head[len >= 10 ? 2 : 1] = (char)('0' + len % 10);
        memcpy(line + 8 + len, "\r\n", 2);
        evbuffer_add(j->body, head, (size_t)(line + 8 + len + 2 - head));
    }
}

static void resp_finish(conn *c, int status, const char *why) {
    mint_job *j = &c->job;
    if (status != MINTID_OK) {
        reply_error(c, c->out, "%s: %s", j->fmt->name, why);
        return;
    }
    if (j->resp_array)
        evbuffer_add_printf(c->out, "*%" PRIu64 "\r\n", j->count);
    evbuffer_add_buffer(c->out, j->body);
}

/*
 * A trailing `PREFIX prefix` at argv[at] (typeid): true with prefix set,
 * and *argc_out the arguments before it; false after an error reply.
 */
static bool arg_prefix(conn *c, const resp_command *cmd, int at, const mintid_format *fmt, struct evbuffer *out,
                       char prefix[MINTID_PREFIX_MAX + 1], int *argc_out) {
    prefix[0] = '\0';
    *argc_out = cmd->argc;
    if (cmd->argc < at + 2 || cmd->argv[cmd->argc - 2].len != 6 ||
        strncasecmp(cmd->argv[cmd->argc - 2].ptr, "PREFIX", 6) != 0)
        return true;
    const resp_arg *a = &cmd->argv[cmd->argc - 1];
    const char *why;
    if (!service_parse_prefix(fmt, MINTID_FORM_TEXT, a->ptr, a->len, prefix, &why)) {
        char shown[MINTID_ESCAPED_MAX];
        reply_error(c, out, "%s: prefix '%s': %s", fmt->name, arg_text(a, shown, sizeof shown), why);
        return false;
    }
    *argc_out = cmd->argc - 2;
    return true;
}

/* MINT format [count] [PREFIX prefix]: one ID as a bulk string, or an array of count. */
static void cmd_mint(conn *c, const resp_command *cmd, struct evbuffer *out) {
    server *srv = c->srv;
    const mintid_format *fmt = arg_format(c, &cmd->argv[1], out);
    if (fmt == NULL)
        return;
    char prefix[MINTID_PREFIX_MAX + 1];
    int argc;
    if (!arg_prefix(c, cmd, 2, fmt, out, prefix, &argc))
        return;
    if (argc > 3) {
        reply_error(c, out, "MINT takes format [count] [PREFIX prefix]");
        return;
    }
    uint64_t count = 1;
    if (argc == 3 && !service_parse_count(cmd->argv[2].ptr, cmd->argv[2].len, srv->cfg->max_count, &count)) {
        reply_error(c, out, "count must be 1..%" PRIu64, srv->cfg->max_count);
        return;
    }
    c->job.resp_array = argc == 3;
    conn_start_mint(c, fmt, MINTID_FORM_TEXT, prefix, count, resp_encode, resp_finish);
}

/* INSPECT format id */
static void cmd_inspect(conn *c, const resp_command *cmd, struct evbuffer *out) {
    const mintid_format *fmt = arg_format(c, &cmd->argv[1], out);
    if (fmt == NULL)
        return;
    mintid_id id;
    char prefix[MINTID_PREFIX_MAX + 1];
    const resp_arg *a = &cmd->argv[2];
    int rc = mintid_decode_prefixed(fmt, MINTID_FORM_ANY, a->ptr, a->len, &id, NULL, prefix);
    if (rc != MINTID_OK) {
        char msg[512];
        mintid_explain(fmt, MINTID_FORM_ANY, a->ptr, a->len, rc, msg, sizeof msg);
        reply_error(c, out, "%s", msg);
        return;
    }
    char json[MINTID_JSON_MAX];
    int n = mintid_id_to_json_prefixed(fmt, &id, prefix, config_epoch(c->srv->cfg, fmt), json, sizeof json);
    if (n < 0) {
        reply_error(c, out, "%s: %s", fmt->name, mintid_strerror(n));
        return;
    }
    reply_bulk(out, json, (size_t)n);
}

/* RANGE format from [to] [PREFIX prefix]: the smallest and the largest ID of that time window. */
static void cmd_range(conn *c, const resp_command *cmd, struct evbuffer *out) {
    const mintid_format *fmt = arg_format(c, &cmd->argv[1], out);
    if (fmt == NULL)
        return;
    char prefix[MINTID_PREFIX_MAX + 1];
    int argc;
    if (!arg_prefix(c, cmd, 3, fmt, out, prefix, &argc))
        return;
    if (argc > 4) {
        reply_error(c, out, "RANGE takes format from [to] [PREFIX prefix]");
        return;
    }
    const resp_arg *from = &cmd->argv[2], *to = argc == 4 ? &cmd->argv[3] : from;
    mintid_id lo, hi;
    const char *why;
    if (service_range(c->srv->svc, fmt, from->ptr, from->len, to->ptr, to->len, &lo, &hi, &why) != MINTID_OK) {
        reply_error(c, out, "%s: %s", fmt->name, why);
        return;
    }
    char lo_text[MINTID_TEXT_MAX], hi_text[MINTID_TEXT_MAX];
    int nlo = mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, &lo, prefix, lo_text, sizeof lo_text);
    int nhi = mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, &hi, prefix, hi_text, sizeof hi_text);
    if (nlo < 0 || nhi < 0) {
        reply_error(c, out, "%s: the range cannot be encoded", fmt->name);
        return;
    }
    evbuffer_add(out, "*2\r\n", 4);
    reply_bulk(out, lo_text, (size_t)nlo);
    reply_bulk(out, hi_text, (size_t)nhi);
}

static void cmd_ping(conn *c, const resp_command *cmd, struct evbuffer *out) {
    (void)c;
    if (cmd->argc == 2)
        reply_bulk(out, cmd->argv[1].ptr, cmd->argv[1].len);
    else
        evbuffer_add(out, "+PONG\r\n", 7);
}

static void add_to_evbuffer(void *ctx, const char *s, size_t n) { evbuffer_add(ctx, s, n); }

static void cmd_info(conn *c, const resp_command *cmd, struct evbuffer *out) {
    (void)cmd;
    struct evbuffer *body = c->srv->scratch;
    service_info(c->srv->svc, add_to_evbuffer, body);
    evbuffer_add_printf(out, "$%zu\r\n", evbuffer_get_length(body));
    evbuffer_add_buffer(out, body);
    evbuffer_add(out, "\r\n", 2);
}

static void cmd_quit(conn *c, const resp_command *cmd, struct evbuffer *out) {
    (void)cmd;
    evbuffer_add(out, "+OK\r\n", 5);
    c->closing = true;
}

/* redis-cli asks for command docs at start: an empty answer is a truthful
 * one and lets it start cleanly. */
static void cmd_empty(conn *c, const resp_command *cmd, struct evbuffer *out) {
    (void)c, (void)cmd;
    evbuffer_add(out, "*0\r\n", 4);
}

/* CONFIG GET: the two settings redis-benchmark asks about, answered
 * truthfully (mintidd persists no data set); anything else is unknown, which
 * Redis answers with an empty list. */
static void cmd_config(conn *c, const resp_command *cmd, struct evbuffer *out) {
    static const char *const known[][2] = {{"save", ""}, {"appendonly", "no"}};
    if (cmd->argv[1].len != 3 || strncasecmp(cmd->argv[1].ptr, "GET", 3) != 0 || cmd->argc != 3) {
        reply_error(c, out, "CONFIG supports only GET with one parameter");
        return;
    }
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (cmd->argv[2].len == strlen(known[i][0]) &&
            strncasecmp(cmd->argv[2].ptr, known[i][0], cmd->argv[2].len) == 0) {
            evbuffer_add(out, "*2\r\n", 4);
            reply_bulk(out, known[i][0], strlen(known[i][0]));
            reply_bulk(out, known[i][1], strlen(known[i][1]));
            return;
        }
    }
    evbuffer_add(out, "*0\r\n", 4);
}

static void cmd_select(conn *c, const resp_command *cmd, struct evbuffer *out) {
    if (cmd->argv[1].len == 1 && cmd->argv[1].ptr[0] == '0')
        evbuffer_add(out, "+OK\r\n", 5);
    else
        reply_error(c, out, "DB index is out of range");
}

/*
 * binary: the arguments are data handed back as they came, so any byte may
 * be in them. The others are names and IDs, which have no NUL byte, and
 * one with a NUL is refused rather than read up to it.
 */
static const struct resp_cmd {
    const char *name;
    int min_argc, max_argc; /* counting the name; -1: no limit */
    bool binary;
    void (*run)(conn *c, const resp_command *cmd, struct evbuffer *out);
} commands[] = {
    {"MINT", 2, 5, false, cmd_mint},      {"INSPECT", 3, 3, false, cmd_inspect}, {"PING", 1, 2, true, cmd_ping},
    {"INFO", 1, 2, false, cmd_info},      {"QUIT", 1, 1, false, cmd_quit},       {"COMMAND", 1, -1, false, cmd_empty},
    {"CONFIG", 2, -1, false, cmd_config}, {"SELECT", 2, 2, false, cmd_select},   {"RANGE", 3, 6, false, cmd_range},
};

/* The command's name as Redis shows it in errors, in lower case; buf holds 16 bytes. */
static const char *lower_name(const struct resp_cmd *k, char *buf) {
    size_t n = strlen(k->name);
    for (size_t j = 0; j <= n; j++)
        buf[j] = (char)(k->name[j] >= 'A' && k->name[j] <= 'Z' ? k->name[j] + 32 : k->name[j]);
    return buf;
}

static void dispatch(conn *c, const resp_command *cmd, struct evbuffer *out) {
    const resp_arg *name = &cmd->argv[0];
    c->srv->svc->requests[PROTO_RESP]++;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        const struct resp_cmd *k = &commands[i];
        if (strlen(k->name) != name->len || strncasecmp(k->name, name->ptr, name->len) != 0)
            continue;
        char lower[16];
        if (cmd->argc < k->min_argc || (k->max_argc >= 0 && cmd->argc > k->max_argc)) {
            reply_error(c, out, "wrong number of arguments for '%s' command", lower_name(k, lower));
            return;
        }
        for (int a = 1; a < cmd->argc && !k->binary; a++) {
            if (memchr(cmd->argv[a].ptr, '\0', cmd->argv[a].len) != NULL) {
                /* A valid frame with a bad argument: an error, and the connection goes on. */
                char shown[MINTID_ESCAPED_MAX];
                reply_error(c, out, "argument %d of '%s' contains a NUL byte: '%s'", a, lower_name(k, lower),
                            arg_text(&cmd->argv[a], shown, sizeof shown));
                return;
            }
        }
        k->run(c, cmd, out);
        return;
    }
    char shown[MINTID_ESCAPED_MAX], args[400] = "";
    size_t used = 0;
    for (int i = 1; i < cmd->argc && used < 200; i++) {
        char a[MINTID_ESCAPED_MAX];
        int n = snprintf(args + used, sizeof args - used, "'%s' ", arg_text(&cmd->argv[i], a, sizeof a));
        if (n > 0)
            used += (size_t)n < sizeof args - used ? (size_t)n : sizeof args - used - 1;
    }
    reply_error(c, out, "unknown command '%s', with args beginning with: %s", arg_text(name, shown, sizeof shown),
                args);
}

size_t resp_handle(conn *c, const char *buf, size_t len, struct evbuffer *out) {
    resp_command cmd;
    size_t used;
    const char *error;
    resp_result r = resp_parse(buf, len, c->srv->cfg->max_request, &cmd, &used, &error);
    if (r == RESP_NEED_MORE)
        return 0;
    if (r == RESP_ERROR) {
        /* As Redis does: the error, then the connection closes, since the
         * stream can no longer be split into commands. */
        c->srv->svc->requests[PROTO_RESP]++;
        reply_error(c, out, "%s", error);
        c->closing = true;
        return len;
    }
    if (cmd.argc > 0)
        dispatch(c, &cmd, out);
    return used;
}
