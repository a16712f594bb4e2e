/* SPDX-License-Identifier: MIT */
/*
 * resp_commands.c - the Redis protocol's commands, from one table: MINT,
 * KEYGET, INSPECT, RANGE and READY, and what Redis clients send on their
 * own to connect and keep house (HELLO, AUTH, CLIENT, PING, ECHO, INFO,
 * QUIT, RESET, COMMAND, CONFIG GET, SELECT 0, MULTI/EXEC/DISCARD); and the
 * resp_dispatch that checks a command against the table and runs or queues it.
 * Their replies are resp_reply.c's.
 */
#include "resp/resp_commands.h"

#include "net/auth.h"
#include "job.h"
#include "keys/keys.h"
#include "resp/resp_reply.h"
#include "resp/resp_session.h"
#include "stats.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

/* Commands one MULTI may queue before EXEC; past it the transaction fails. */
#define RESP_MULTI_MAX 1000

/* Is argument a, case aside, the word w? */
static bool arg_is(const resp_arg *a, const char *w) {
    return a->len == strlen(w) && strncasecmp(a->ptr, w, a->len) == 0;
}

static const char *arg_text(const resp_arg *a, char *buf, size_t cap) {
    mintid_escape(a->ptr, a->len, buf, cap);
    return buf;
}

/* The format named by a, or NULL after the library's sentence (the format meant, or the list). */
static const mintid_format *arg_format(conn *c, const resp_arg *a, struct evbuffer *out) {
    char why[MINTID_WHY_MAX];
    const mintid_format *fmt;
    int rc = mintid_lookup_format(a->ptr, a->len, &fmt, why, sizeof why);
    if (rc == MINTID_OK)
        return fmt;
    resp_reply_why(c, out, rc, why);
    return NULL;
}

/*
 * A trailing `PREFIX prefix` at argv[at] (typeid): true with prefix set,
 * and *argc_out the arguments before it; false after an error reply.
 */
static bool arg_prefix(conn *c, const resp_command *cmd, int at, const mintid_format *fmt, struct evbuffer *out,
                       char prefix[MINTID_PREFIX_MAX + 1], int *argc_out) {
    prefix[0] = '\0';
    *argc_out = cmd->argc;
    const resp_arg *last = &cmd->argv[cmd->argc - 1], *before = &cmd->argv[cmd->argc - 2];
    bool has_prefix = cmd->argc >= at + 2 && before->len == 6 && strncasecmp(before->ptr, "PREFIX", 6) == 0;
    /* A PREFIX at the end with nothing after it (but "PREFIX prefix", a
     * valid one, is a prefix). */
    if (cmd->argc > at && !has_prefix && last->len == 6 && strncasecmp(last->ptr, "PREFIX", 6) == 0) {
        resp_reply_error(c, out, "%s: PREFIX needs a prefix after it", fmt->name);
        return false;
    }
    if (!has_prefix)
        return true;
    char why[MINTID_WHY_MAX];
    int rc = mintid_lookup_prefix(fmt, MINTID_FORM_TEXT, last->ptr, last->len, why, sizeof why);
    if (rc != MINTID_OK) {
        resp_reply_why(c, out, rc, why);
        return false;
    }
    /* The library takes a prefix of at most fmt->prefix_max (<= MINTID_PREFIX_MAX) bytes. */
    memcpy(prefix, last->ptr, last->len);
    prefix[last->len] = '\0';
    *argc_out = cmd->argc - 2;
    return true;
}

/*
 * MINT format [count] [PREFIX prefix] [KEY key]: one ID as a bulk string,
 * or an array of count; with KEY, once per key (keys.c).
 */
static void cmd_mint(conn *c, const resp_command *cmd, struct evbuffer *out) {
    server *srv = c->srv;
    const mintid_format *fmt = arg_format(c, &cmd->argv[1], out);
    if (fmt == NULL)
        return;
    /* A trailing KEY key, then the rest as without it. */
    resp_command args = *cmd;
    const resp_arg *key = NULL;
    if (args.argc >= 4 && arg_is(&args.argv[args.argc - 2], "KEY")) {
        key = &args.argv[args.argc - 1];
        args.argc -= 2;
    } else if (args.argc >= 3 && arg_is(&args.argv[args.argc - 1], "KEY")) {
        resp_reply_error(c, out, "%s: KEY needs a key after it", fmt->name);
        return;
    }
    char prefix[MINTID_PREFIX_MAX + 1];
    int argc;
    if (!arg_prefix(c, &args, 2, fmt, out, prefix, &argc))
        return;
    if (argc > 3) {
        resp_reply_error(c, out, "MINT takes format [count] [PREFIX prefix] [KEY key]");
        return;
    }
    uint64_t count = 1;
    if (argc == 3 && !service_parse_count(cmd->argv[2].ptr, cmd->argv[2].len, srv->cfg->max_count, &count)) {
        resp_reply_error(c, out, "count must be 1..%" PRIu64, srv->cfg->max_count);
        return;
    }
    if (key != NULL) {
        const char *why;
        if (!key_valid(key->ptr, key->len, &why)) {
            resp_reply_error(c, out, "%s", why);
            return;
        }
        keys_start ks = keys_begin(c, fmt, key->ptr, key->len, MINTID_FORM_TEXT, prefix, count, resp_key_done);
        if (ks == KEYS_BUSY) {
            char shown[MINTID_ESCAPED_MAX];
            resp_reply_coded(c, out, "CONFLICT",
                             "%s: idempotency key '%s' is in progress: try again when it has been answered", fmt->name,
                             arg_text(key, shown, sizeof shown));
            return;
        }
        if (ks == KEYS_TOO_MANY) {
            resp_reply_error(c, out, "count must be 1..%" PRIu64 " with KEY on this server", keys_max_count(srv));
            return;
        }
        if (ks == KEYS_NOMEM || ks == KEYS_NOSTORE) {
            resp_reply_error(c, out, "%s", ks == KEYS_NOMEM ? "out of memory" : "no key store");
            return;
        }
    }
    session_of(c)->array = argc == 3;
    job_start(c, fmt, MINTID_FORM_TEXT, prefix, count, resp_encode, resp_finish);
}

/* KEYGET format key: the IDs key was given (an array), or nil. */
static void cmd_keyget(conn *c, const resp_command *cmd, struct evbuffer *out) {
    const mintid_format *fmt = arg_format(c, &cmd->argv[1], out);
    if (fmt == NULL)
        return;
    const char *why;
    if (!key_valid(cmd->argv[2].ptr, cmd->argv[2].len, &why)) {
        resp_reply_error(c, out, "%s", why);
        return;
    }
    keys_lookup(c, fmt, cmd->argv[2].ptr, cmd->argv[2].len, resp_keyget_done);
}

/*
 * INSPECT [format] id: the inspect JSON of id, read as the library reads
 * it (the format guessed when none is named). An ID that decodes but is
 * no ID its format mints is shown all the same, as over HTTP.
 */
static void cmd_inspect(conn *c, const resp_command *cmd, struct evbuffer *out) {
    const mintid_format *fmt = NULL;
    if (cmd->argc == 3 && (fmt = arg_format(c, &cmd->argv[1], out)) == NULL)
        return;
    const resp_arg *a = &cmd->argv[cmd->argc - 1];
    char why[MINTID_WHY_MAX];
    mintid_reading r;
    int64_t epoch = fmt != NULL ? config_epoch(c->srv->cfg, fmt) : MINTID_EPOCH_DEFAULT;
    int rc = mintid_read_text(fmt, MINTID_FORM_ANY, epoch, a->ptr, a->len, &r, why, sizeof why);
    if (rc != MINTID_OK && !(rc == MINTID_EINVALID && r.fmt != NULL)) {
        resp_reply_coded(c, out, resp_code(mintid_status_class(rc)), "%s%s", why,
                         rc == MINTID_EAMBIGUOUS ? "; say which with INSPECT format id" : "");
        return;
    }
    char json[MINTID_JSON_MAX];
    int n = mintid_id_to_json_prefixed(r.fmt, &r.id, r.prefix, config_epoch(c->srv->cfg, r.fmt), json, sizeof json);
    if (n < 0) {
        resp_reply_coded(c, out, resp_code(mintid_status_class(n)), "%s: %s", r.fmt->name, mintid_strerror(n));
        return;
    }
    resp_reply_bulk(out, json, (size_t)n);
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
        resp_reply_error(c, out, "RANGE takes format from [to] [PREFIX prefix]");
        return;
    }
    const resp_arg *from = &cmd->argv[2], *to = argc == 4 ? &cmd->argv[3] : from;
    mintid_id lo, hi;
    const char *why;
    int rc = service_range(c->srv->svc, fmt, from->ptr, from->len, to->ptr, to->len, &lo, &hi, &why);
    if (rc != MINTID_OK) {
        resp_reply_coded(c, out, resp_code(mintid_status_class(rc)), "%s: %s", fmt->name, why);
        return;
    }
    char lo_text[MINTID_TEXT_MAX], hi_text[MINTID_TEXT_MAX];
    int nlo = mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, &lo, prefix, lo_text, sizeof lo_text);
    int nhi = mintid_encode_prefixed(fmt, MINTID_FORM_TEXT, &hi, prefix, hi_text, sizeof hi_text);
    if (nlo < 0 || nhi < 0) {
        resp_reply_error(c, out, "%s: the range cannot be encoded", fmt->name);
        return;
    }
    evbuffer_add(out, "*2\r\n", 4);
    resp_reply_bulk(out, lo_text, (size_t)nlo);
    resp_reply_bulk(out, hi_text, (size_t)nhi);
}

static void cmd_ping(conn *c, const resp_command *cmd, struct evbuffer *out) {
    (void)c;
    if (cmd->argc == 2)
        resp_reply_bulk(out, cmd->argv[1].ptr, cmd->argv[1].len);
    else
        evbuffer_add(out, "+PONG\r\n", 7);
}

/*
 * READY: +OK when every served format can mint now (service_ready, as
 * GET /readyz), else TRYAGAIN naming the formats that cannot, those with
 * one reason together ("every format" when that is all of them), each
 * group with the service's sentence, the groups apart by " | ".
 */
static void cmd_ready(conn *c, const resp_command *cmd, struct evbuffer *out) {
    (void)cmd;
    service *svc = c->srv->svc;
    service_readiness sr;
    if (service_ready(svc, &sr)) {
        resp_reply_ok(out);
        return;
    }
    /* Every served format for one reason (a lease, the state file): said once. */
    const char *first = NULL;
    bool every = true;
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        if (first == NULL)
            first = sr.why[i];
        if (svc->gens[i] != NULL)
            every = every && sr.why[i] != NULL && strcmp(sr.why[i], first) == 0;
    }
    /* Written here rather than through resp_reply_coded(), whose line is
     * bounded: the formats may each have a sentence of their own (the
     * clock behind each one's last ID by another time). The sentences are
     * the service's, without CR or LF. */
    struct evbuffer *b = c->srv->scratch;
    evbuffer_add_printf(b, "-TRYAGAIN not ready: ");
    bool said[MINTID_FORMAT_COUNT] = {false};
    for (int i = 0, groups = 0; i < MINTID_FORMAT_COUNT; i++) {
        if (sr.why[i] == NULL || said[i])
            continue;
        evbuffer_add(b, " | ", groups++ > 0 ? 3 : 0);
        for (int j = i, n = 0; j < MINTID_FORMAT_COUNT; j++) {
            if (sr.why[j] != NULL && strcmp(sr.why[j], sr.why[i]) == 0) {
                said[j] = true;
                if (!every)
                    evbuffer_add_printf(b, "%s%s", n++ > 0 ? ", " : "", mintid_format_get((mintid_format_id)j)->name);
            }
        }
        evbuffer_add_printf(b, "%s: %s", every ? "every format" : "", sr.why[i]);
    }
    evbuffer_add(b, "\r\n", 2);
    evbuffer_add_buffer(out, b);
    svc->c->errors[PROTO_RESP]++;
}

static void cmd_echo(conn *c, const resp_command *cmd, struct evbuffer *out) {
    (void)c;
    resp_reply_bulk(out, cmd->argv[1].ptr, cmd->argv[1].len);
}

static void add_to_evbuffer(void *ctx, const char *s, size_t n) { evbuffer_add(ctx, s, n); }

/* Is the INFO section headed by line[0..n) ("# Server") one of those asked for in argv[1..argc)? */
static bool info_wanted(const resp_command *cmd, const char *line, size_t n) {
    if (cmd->argc == 1)
        return true;
    for (int i = 1; i < cmd->argc; i++) {
        const resp_arg *a = &cmd->argv[i];
        if (arg_is(a, "all") || arg_is(a, "default") || arg_is(a, "everything") ||
            (n == a->len + 2 && strncasecmp(line + 2, a->ptr, a->len) == 0))
            return true;
    }
    return false;
}

/* INFO [section ...]: the sections asked for, by name in any case ("all": every one). */
static void cmd_info(conn *c, const resp_command *cmd, struct evbuffer *out) {
    struct evbuffer *all = evbuffer_new(), *body = c->srv->scratch;
    if (all == NULL) {
        resp_reply_error(c, out, "out of memory");
        return;
    }
    stats_info(c->srv->svc, add_to_evbuffer, all);
    size_t len = evbuffer_get_length(all);
    const char *text = (const char *)evbuffer_pullup(all, -1);
    /* Sections are "# Name\r\n" and their lines, up to an empty line. */
    bool keep = false, first = true;
    for (size_t at = 0; at < len;) {
        const char *eol = memchr(text + at, '\n', len - at);
        size_t end = eol != NULL ? (size_t)(eol - text) + 1 : len, n = end - at;
        size_t bare = n - (n >= 2 && text[end - 2] == '\r' ? 2 : n >= 1 && text[end - 1] == '\n' ? 1 : 0);
        if (bare >= 2 && text[at] == '#' && text[at + 1] == ' ') {
            keep = info_wanted(cmd, text + at, bare);
            if (keep && !first)
                evbuffer_add(body, "\r\n", 2);
            first = first && !keep;
        }
        if (keep && bare > 0)
            evbuffer_add(body, text + at, n);
        at = end;
    }
    evbuffer_free(all);
    evbuffer_add_printf(out, "$%zu\r\n", evbuffer_get_length(body));
    evbuffer_add_buffer(out, body);
    evbuffer_add(out, "\r\n", 2);
}

static void cmd_quit(conn *c, const resp_command *cmd, struct evbuffer *out) {
    (void)cmd;
    resp_reply_ok(out);
    c->closing = true;
}

/* CONFIG GET: the two settings redis-benchmark asks about, answered
 * truthfully (mintidd persists no data set); anything else is unknown, which
 * Redis answers with an empty list. */
static void cmd_config(conn *c, const resp_command *cmd, struct evbuffer *out) {
    static const char *const known[][2] = {{"save", ""}, {"appendonly", "no"}};
    if (!arg_is(&cmd->argv[1], "GET") || cmd->argc != 3) {
        resp_reply_error(c, out, "CONFIG supports only GET with one parameter");
        return;
    }
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (arg_is(&cmd->argv[2], known[i][0])) {
            resp_reply_map(c, out, 1);
            resp_reply_str(out, known[i][0]);
            resp_reply_str(out, known[i][1]);
            return;
        }
    }
    resp_reply_map(c, out, 0);
}

static void cmd_select(conn *c, const resp_command *cmd, struct evbuffer *out) {
    uint64_t db;
    if (!config_parse_decimal(cmd->argv[1].ptr, cmd->argv[1].len, INT64_MAX, &db))
        resp_reply_error(c, out, "value is not an integer or out of range");
    else if (db != 0)
        resp_reply_error(c, out, "DB index is out of range");
    else
        resp_reply_ok(out);
}

/* ---- connection housekeeping: HELLO, AUTH, CLIENT, RESET ---- */

static const char noauth_hello[] =
    "HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> "
    "option can be used to authenticate the client and select the RESP protocol version at the same time";

/*
 * Redis's name rule (CLIENT SETNAME, SETINFO): printable ASCII without
 * spaces, and here at most RESP_NAME_MAX bytes. Copies a into dst when it
 * passes; else replies why, with `what` ("Client names", "lib-name") as
 * Redis words it.
 */
static bool set_name(conn *c, struct evbuffer *out, const resp_arg *a, const char *what, char *dst) {
    for (size_t i = 0; i < a->len; i++) {
        if (a->ptr[i] < '!' || a->ptr[i] > '~') {
            resp_reply_error(c, out, "%s cannot contain spaces, newlines or special characters.", what);
            return false;
        }
    }
    if (a->len > RESP_NAME_MAX) {
        resp_reply_error(c, out, "%s are at most %d bytes here", what, RESP_NAME_MAX);
        return false;
    }
    memcpy(dst, a->ptr, a->len);
    dst[a->len] = '\0';
    return true;
}

/*
 * A username and secret offered by AUTH or HELLO AUTH. "default" is the only
 * user, as in a Redis without ACL users. Without auth-file every secret is
 * accepted, as Redis's passwordless default user does. True when
 * authenticated; else the error is replied.
 */
static bool authenticate(conn *c, struct evbuffer *out, const resp_arg *user, const resp_arg *secret) {
    if (c->srv->auth == NULL && arg_is(user, "default")) {
        session_of(c)->authed = true;
        return true;
    }
    uint64_t retry_ms = 0;
    const char *where = "";
    auth_result r = c->srv->auth == NULL ? AUTH_WRONG : auth_attempt(c, secret->ptr, secret->len, &retry_ms, &where);
    if (r == AUTH_OK && !arg_is(user, "default")) {
        /* The secret was right but the user is not one: still a refusal. */
        c->srv->svc->c->auth_failures[PROTO_RESP]++;
        r = AUTH_WRONG;
    } else if (r == AUTH_WRONG && c->srv->auth == NULL) {
        c->srv->svc->c->auth_failures[PROTO_RESP]++;
    }
    switch (r) {
    case AUTH_OK:
        session_of(c)->authed = true;
        return true;
    case AUTH_WRONG:
        resp_reply_coded(c, out, "WRONGPASS", "invalid username-password pair or user is disabled.");
        return false;
    case AUTH_TOO_SOON:
        resp_reply_error(c, out, "too many wrong secrets %s; try again in %" PRIu64 " ms", where, retry_ms);
        return false;
    }
    return false;
}

static bool is_authed(const conn *c) { return c->srv->auth == NULL || session_of(c)->authed; }

/* AUTH secret | AUTH username secret */
static void cmd_auth(conn *c, const resp_command *cmd, struct evbuffer *out) {
    static const resp_arg default_user = {"default", 7};
    if (cmd->argc == 2 && c->srv->auth == NULL) {
        resp_reply_error(
            c, out,
            "AUTH <password> called without any password configured for the default user. Are you sure your "
            "configuration is correct?");
        return;
    }
    const resp_arg *user = cmd->argc == 3 ? &cmd->argv[1] : &default_user;
    if (authenticate(c, out, user, &cmd->argv[cmd->argc - 1]))
        resp_reply_ok(out);
}

/* HELLO [protover [AUTH username secret] [SETNAME name]] */
static void cmd_hello(conn *c, const resp_command *cmd, struct evbuffer *out) {
    uint64_t ver = 0;
    if (cmd->argc >= 2) {
        if (!config_parse_decimal(cmd->argv[1].ptr, cmd->argv[1].len, INT64_MAX, &ver)) {
            resp_reply_error(c, out, "Protocol version is not an integer or out of range");
            return;
        }
        if (ver < 2 || ver > 3) {
            resp_reply_coded(c, out, "NOPROTO", "unsupported protocol version");
            return;
        }
    }
    const resp_arg *user = NULL, *secret = NULL, *name = NULL;
    for (int i = 2; i < cmd->argc; i++) {
        int more = cmd->argc - 1 - i;
        if (arg_is(&cmd->argv[i], "AUTH") && more >= 2) {
            user = &cmd->argv[i + 1];
            secret = &cmd->argv[i + 2];
            i += 2;
        } else if (arg_is(&cmd->argv[i], "SETNAME") && more >= 1) {
            name = &cmd->argv[++i];
        } else {
            char shown[MINTID_ESCAPED_MAX];
            resp_reply_error(c, out, "Syntax error in HELLO option '%s'", arg_text(&cmd->argv[i], shown, sizeof shown));
            return;
        }
    }
    /* Checked before anything changes, so a refused HELLO changes nothing. */
    char new_name[RESP_NAME_MAX + 1];
    if (name != NULL && !set_name(c, out, name, "Client names", new_name))
        return;
    if (user != NULL && !authenticate(c, out, user, secret))
        return;
    if (!is_authed(c)) {
        resp_reply_coded(c, out, "NOAUTH", "%s", noauth_hello);
        return;
    }
    if (name != NULL)
        memcpy(session_of(c)->name, new_name, sizeof new_name);
    if (ver != 0)
        session_of(c)->proto = (int)ver;
    resp_reply_map(c, out, 7);
    resp_reply_str(out, "server");
    resp_reply_str(out, "mintidd");
    resp_reply_str(out, "version");
    resp_reply_str(out, MINTID_VERSION_STRING);
    resp_reply_str(out, "proto");
    resp_reply_int(out, proto_of(c));
    resp_reply_str(out, "id");
    resp_reply_int(out, (int64_t)session_of(c)->id);
    resp_reply_str(out, "mode");
    resp_reply_str(out, "standalone");
    resp_reply_str(out, "role");
    resp_reply_str(out, "master");
    resp_reply_str(out, "modules");
    evbuffer_add(out, "*0\r\n", 4);
}

/* One line of CLIENT INFO / CLIENT LIST, as Redis words it, for the fields that mean something here. */
static void client_line(const conn *c, struct evbuffer *b) {
    char addr[INET6_ADDRSTRLEN + 8] = "", laddr[INET6_ADDRSTRLEN + 8] = "";
    struct sockaddr_storage ss;
    for (int local = 0; local < 2; local++) {
        socklen_t sl = sizeof ss;
        char host[INET6_ADDRSTRLEN] = "?", *dst = local ? laddr : addr;
        int rc =
            local ? getsockname(c->fd, (struct sockaddr *)&ss, &sl) : getpeername(c->fd, (struct sockaddr *)&ss, &sl);
        unsigned port = 0;
        if (rc == 0 && ss.ss_family == AF_INET) {
            const struct sockaddr_in *in = (const struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
            port = ntohs(in->sin_port);
        } else if (rc == 0 && ss.ss_family == AF_INET6) {
            const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
            port = ntohs(in6->sin6_port);
        }
        snprintf(dst, sizeof addr, "%s:%u", host, port);
    }
    evbuffer_add_printf(b,
                        "id=%" PRIu64 " addr=%s laddr=%s fd=%d name=%s db=0 multi=%d resp=%d lib-name=%s lib-ver=%s\n",
                        session_of(c)->id, addr, laddr, (int)c->fd, session_of(c)->name,
                        session_of(c)->in_multi ? (int)session_of(c)->queued : -1, proto_of(c), session_of(c)->lib_name,
                        session_of(c)->lib_ver);
}

/* CLIENT ID | GETNAME | SETNAME name | SETINFO LIB-NAME|LIB-VER value | INFO | LIST | MAINT_NOTIFICATIONS ON|OFF ... */
static void cmd_client(conn *c, const resp_command *cmd, struct evbuffer *out) {
    const resp_arg *sub = &cmd->argv[1];
    int argc = cmd->argc;
    char shown[MINTID_ESCAPED_MAX];
    if (arg_is(sub, "ID") && argc == 2) {
        resp_reply_int(out, (int64_t)session_of(c)->id);
    } else if (arg_is(sub, "GETNAME") && argc == 2) {
        if (session_of(c)->name[0] == '\0')
            resp_reply_null(c, out);
        else
            resp_reply_str(out, session_of(c)->name);
    } else if (arg_is(sub, "SETNAME") && argc == 3) {
        if (set_name(c, out, &cmd->argv[2], "Client names", session_of(c)->name))
            resp_reply_ok(out);
    } else if (arg_is(sub, "SETINFO") && argc == 4) {
        const resp_arg *attr = &cmd->argv[2];
        if (arg_is(attr, "LIB-NAME") || arg_is(attr, "LIB-VER")) {
            bool lib_name = arg_is(attr, "LIB-NAME");
            if (set_name(c, out, &cmd->argv[3], lib_name ? "lib-name" : "lib-ver",
                         lib_name ? session_of(c)->lib_name : session_of(c)->lib_ver))
                resp_reply_ok(out);
        } else {
            resp_reply_error(c, out, "Unrecognized option '%s'", arg_text(attr, shown, sizeof shown));
        }
    } else if (arg_is(sub, "INFO") && argc == 2) {
        struct evbuffer *b = c->srv->scratch;
        client_line(c, b);
        evbuffer_add_printf(out, "$%zu\r\n", evbuffer_get_length(b));
        evbuffer_add_buffer(out, b);
        evbuffer_add(out, "\r\n", 2);
    } else if (arg_is(sub, "LIST") && argc == 2) {
        struct evbuffer *b = c->srv->scratch;
        const conn *o;
        TAILQ_FOREACH (o, &c->srv->conns, link) {
            if (o->ops == c->ops && !o->refused && !o->lingering)
                client_line(o, b);
        }
        evbuffer_add_printf(out, "$%zu\r\n", evbuffer_get_length(b));
        evbuffer_add_buffer(out, b);
        evbuffer_add(out, "\r\n", 2);
    } else if (arg_is(sub, "MAINT_NOTIFICATIONS") && argc >= 3 &&
               (arg_is(&cmd->argv[2], "ON") || arg_is(&cmd->argv[2], "OFF"))) {
        /* As Redis 8 does: accepted. A single mintidd never moves or
         * migrates, so no notification is ever sent. */
        resp_reply_ok(out);
    } else if (arg_is(sub, "ID") || arg_is(sub, "GETNAME") || arg_is(sub, "SETNAME") || arg_is(sub, "SETINFO") ||
               arg_is(sub, "INFO") || arg_is(sub, "LIST") || arg_is(sub, "MAINT_NOTIFICATIONS")) {
        char lower[32];
        size_t n = sub->len < sizeof lower - 1 ? sub->len : sizeof lower - 1;
        for (size_t i = 0; i < n; i++)
            lower[i] = (char)(sub->ptr[i] >= 'A' && sub->ptr[i] <= 'Z' ? sub->ptr[i] + 32 : sub->ptr[i]);
        lower[n] = '\0';
        resp_reply_error(c, out, "wrong number of arguments for 'client|%s' command", lower);
    } else {
        resp_reply_error(c, out, "unknown subcommand '%s'. Try CLIENT HELP.", arg_text(sub, shown, sizeof shown));
    }
}

void resp_multi_clear(conn *c) {
    resp_session *s = session_of(c);
    if (s->multi != NULL)
        evbuffer_drain(s->multi, evbuffer_get_length(s->multi));
    s->in_multi = s->multi_bad = false;
    s->queued = s->exec_left = 0;
}

/* RESET: the connection as it was when accepted. */
static void cmd_reset(conn *c, const resp_command *cmd, struct evbuffer *out) {
    (void)cmd;
    resp_multi_clear(c);
    session_of(c)->proto = 2;
    session_of(c)->authed = false;
    session_of(c)->name[0] = '\0';
    evbuffer_add(out, "+RESET\r\n", 8);
}

/* ---- MULTI / EXEC / DISCARD ---- */

static void cmd_multi(conn *c, const resp_command *cmd, struct evbuffer *out) {
    (void)cmd;
    if (session_of(c)->in_multi) {
        resp_reply_error(c, out, "MULTI calls can not be nested");
        return;
    }
    if (session_of(c)->multi == NULL && (session_of(c)->multi = evbuffer_new()) == NULL) {
        resp_reply_error(c, out, "out of memory");
        return;
    }
    session_of(c)->in_multi = true;
    resp_reply_ok(out);
}

static void cmd_discard(conn *c, const resp_command *cmd, struct evbuffer *out) {
    (void)cmd;
    if (!session_of(c)->in_multi) {
        resp_reply_error(c, out, "DISCARD without MULTI");
        return;
    }
    resp_multi_clear(c);
    resp_reply_ok(out);
}

static void cmd_exec(conn *c, const resp_command *cmd, struct evbuffer *out) {
    (void)cmd;
    resp_session *s = session_of(c);
    if (!s->in_multi) {
        resp_reply_error(c, out, "EXEC without MULTI");
        return;
    }
    if (s->multi_bad) {
        resp_multi_clear(c);
        resp_reply_coded(c, out, "EXECABORT", "Transaction discarded because of previous errors.");
        return;
    }
    /* The replies follow the array's head as the connection layer runs
     * the queued commands, one per resp_exec_step(). */
    evbuffer_add_printf(out, "*%u\r\n", s->queued);
    s->in_multi = false;
    s->exec_left = s->queued;
    s->queued = 0;
}

/* Queues cmd for EXEC, as a RESP array; false if it cannot be. */
static bool multi_queue(conn *c, const resp_command *cmd) {
    resp_session *s = session_of(c);
    if (s->queued >= RESP_MULTI_MAX)
        return false;
    evbuffer_add_printf(s->multi, "*%d\r\n", cmd->argc);
    for (int i = 0; i < cmd->argc; i++)
        resp_reply_bulk(s->multi, cmd->argv[i].ptr, cmd->argv[i].len);
    s->queued++;
    return true;
}

/* ---- COMMAND ---- */

/* What a command may do, as the table says. */
enum {
    CMD_NOAUTH = 1, /* allowed before authentication */
    CMD_NOW = 2,    /* run at once inside MULTI, not queued */
    CMD_BINARY = 4, /* arguments are data handed back as they came: any byte may be in them */
};

typedef struct resp_cmd {
    const char *name;
    int min_argc, max_argc; /* counting the name; -1: no limit */
    int flags;
    const char *redis_flags; /* COMMAND's flags, space-separated */
    void (*run)(conn *c, const resp_command *cmd, struct evbuffer *out);
} resp_cmd;

static void cmd_command(conn *c, const resp_command *cmd, struct evbuffer *out);

/*
 * Arguments that are not data are names and IDs, which have no NUL byte,
 * and one with a NUL is refused rather than read up to it.
 */
static const resp_cmd commands[] = {
    {"MINT", 2, 7, 0, "fast", cmd_mint},
    {"KEYGET", 3, 3, 0, "readonly fast", cmd_keyget},
    {"INSPECT", 2, 3, 0, "readonly fast", cmd_inspect},
    {"RANGE", 3, 6, 0, "readonly fast", cmd_range},
    {"PING", 1, 2, CMD_BINARY, "fast", cmd_ping},
    {"READY", 1, 1, CMD_NOAUTH, "loading stale fast no_auth", cmd_ready},
    {"ECHO", 2, 2, CMD_BINARY, "fast", cmd_echo},
    {"INFO", 1, -1, 0, "loading stale", cmd_info},
    {"HELLO", 1, 7, CMD_NOAUTH | CMD_BINARY, "noscript loading stale fast no_auth", cmd_hello},
    {"AUTH", 2, 3, CMD_NOAUTH | CMD_BINARY, "noscript loading stale fast no_auth", cmd_auth},
    {"CLIENT", 2, -1, 0, "noscript loading stale", cmd_client},
    {"SELECT", 2, 2, 0, "loading stale fast", cmd_select},
    {"QUIT", 1, -1, CMD_NOAUTH | CMD_NOW, "noscript loading stale fast no_auth", cmd_quit},
    {"RESET", 1, 1, CMD_NOAUTH | CMD_NOW, "noscript loading stale fast no_auth", cmd_reset},
    {"MULTI", 1, 1, CMD_NOW, "noscript loading stale fast", cmd_multi},
    {"EXEC", 1, 1, CMD_NOW, "noscript loading stale", cmd_exec},
    {"DISCARD", 1, 1, CMD_NOW, "noscript loading stale fast", cmd_discard},
    {"COMMAND", 1, -1, 0, "loading stale", cmd_command},
    {"CONFIG", 2, -1, 0, "admin noscript loading stale", cmd_config},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* The command's name as Redis shows it, in lower case; buf holds 16 bytes. */
static const char *lower_name(const resp_cmd *k, char *buf) {
    size_t n = strlen(k->name);
    for (size_t j = 0; j <= n; j++)
        buf[j] = (char)(k->name[j] >= 'A' && k->name[j] <= 'Z' ? k->name[j] + 32 : k->name[j]);
    return buf;
}

static const resp_cmd *find_command(const resp_arg *name) {
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (arg_is(name, commands[i].name))
            return &commands[i];
    return NULL;
}

/* COMMAND's ten-field description of k, as Redis 7 gives it. */
static void command_info(const conn *c, const resp_cmd *k, struct evbuffer *out) {
    char lower[16];
    evbuffer_add(out, "*10\r\n", 5);
    resp_reply_str(out, lower_name(k, lower));
    resp_reply_int(out, k->max_argc == k->min_argc ? k->min_argc : -k->min_argc);
    size_t nflags = 0;
    for (const char *p = k->redis_flags; *p != '\0'; p++)
        nflags += p == k->redis_flags || p[-1] == ' ';
    resp_reply_set(c, out, nflags);
    for (const char *p = k->redis_flags; *p != '\0';) {
        size_t n = strcspn(p, " ");
        evbuffer_add_printf(out, "+%.*s\r\n", (int)n, p);
        p += n + (p[n] == ' ');
    }
    evbuffer_add(out, ":0\r\n:0\r\n:0\r\n", 12); /* no key arguments */
    resp_reply_set(c, out, 0);                   /* ACL categories */
    resp_reply_set(c, out, 0);                   /* tips */
    evbuffer_add(out, "*0\r\n*0\r\n", 8);        /* key specs, subcommands */
}

/* COMMAND | COMMAND COUNT | COMMAND INFO [name ...] | COMMAND LIST | COMMAND DOCS [name ...] */
static void cmd_command(conn *c, const resp_command *cmd, struct evbuffer *out) {
    char shown[MINTID_ESCAPED_MAX], lower[16];
    if (cmd->argc == 1) {
        evbuffer_add_printf(out, "*%zu\r\n", NCOMMANDS);
        for (size_t i = 0; i < NCOMMANDS; i++)
            command_info(c, &commands[i], out);
    } else if (arg_is(&cmd->argv[1], "COUNT") && cmd->argc == 2) {
        resp_reply_int(out, (int64_t)NCOMMANDS);
    } else if (arg_is(&cmd->argv[1], "LIST") && cmd->argc == 2) {
        evbuffer_add_printf(out, "*%zu\r\n", NCOMMANDS);
        for (size_t i = 0; i < NCOMMANDS; i++)
            resp_reply_str(out, lower_name(&commands[i], lower));
    } else if (arg_is(&cmd->argv[1], "INFO")) {
        size_t n = cmd->argc == 2 ? NCOMMANDS : (size_t)cmd->argc - 2;
        evbuffer_add_printf(out, "*%zu\r\n", n);
        for (size_t i = 0; i < n; i++) {
            const resp_cmd *k = cmd->argc == 2 ? &commands[i] : find_command(&cmd->argv[i + 2]);
            if (k != NULL)
                command_info(c, k, out);
            else
                resp_reply_null(c, out);
        }
    } else if (arg_is(&cmd->argv[1], "DOCS")) {
        /* Docs are optional; redis-cli starts without them. */
        resp_reply_map(c, out, 0);
    } else {
        resp_reply_error(c, out, "unknown subcommand '%s'. Try COMMAND HELP.",
                         arg_text(&cmd->argv[1], shown, sizeof shown));
    }
}

/* ---- resp_dispatch ---- */

void resp_dispatch(conn *c, const resp_command *cmd, struct evbuffer *out) {
    const resp_arg *name = &cmd->argv[0];
    resp_session *s = session_of(c);
    c->srv->svc->c->requests[PROTO_RESP]++;
    const resp_cmd *k = find_command(name);
    if (k == NULL) {
        char shown[MINTID_ESCAPED_MAX], args[400] = "";
        size_t used = 0;
        for (int i = 1; i < cmd->argc && used < 200; i++) {
            char a[MINTID_ESCAPED_MAX];
            int n = snprintf(args + used, sizeof args - used, "'%s' ", arg_text(&cmd->argv[i], a, sizeof a));
            if (n > 0)
                used += (size_t)n < sizeof args - used ? (size_t)n : sizeof args - used - 1;
        }
        if (!is_authed(c))
            resp_reply_coded(c, out, "NOAUTH", "Authentication required.");
        else
            resp_reply_error(c, out, "unknown command '%s', with args beginning with: %s",
                             arg_text(name, shown, sizeof shown), args);
        s->multi_bad = s->in_multi;
        return;
    }
    if (!is_authed(c) && !(k->flags & CMD_NOAUTH)) {
        resp_reply_coded(c, out, "NOAUTH", "Authentication required.");
        s->multi_bad = s->in_multi;
        return;
    }
    char lower[16];
    if (cmd->argc < k->min_argc || (k->max_argc >= 0 && cmd->argc > k->max_argc)) {
        resp_reply_error(c, out, "wrong number of arguments for '%s' command", lower_name(k, lower));
        s->multi_bad = s->in_multi;
        return;
    }
    for (int a = 1; a < cmd->argc && !(k->flags & CMD_BINARY); a++) {
        if (memchr(cmd->argv[a].ptr, '\0', cmd->argv[a].len) != NULL) {
            /* A valid frame with a bad argument: an error, and the connection goes on. */
            char shown[MINTID_ESCAPED_MAX];
            resp_reply_error(c, out, "argument %d of '%s' contains a NUL byte: '%s'", a, lower_name(k, lower),
                             arg_text(&cmd->argv[a], shown, sizeof shown));
            s->multi_bad = s->in_multi;
            return;
        }
    }
    if (s->in_multi && !(k->flags & CMD_NOW)) {
        if (multi_queue(c, cmd)) {
            evbuffer_add(out, "+QUEUED\r\n", 9);
        } else {
            resp_reply_error(c, out, "a transaction holds at most %d commands", RESP_MULTI_MAX);
            s->multi_bad = true;
        }
        return;
    }
    k->run(c, cmd, out);
}
