/* SPDX-License-Identifier: MIT */
/*
 * config.c - settings from the command line, a config file and the
 * environment, all through one table.
 */
#include "base/config.h"

#include "base/log.h"
#include "mintid.h"

#include <ctype.h>
#include <inttypes.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum setting_type { SET_STR, SET_UINT, SET_EPOCH } setting_type;

typedef struct setting {
    const char *name; /* --name, `name = value` in the file, MINTID_NAME in the environment */
    setting_type type;
    size_t offset;
    uint64_t min, max; /* SET_UINT bounds */
    const char *def;
    const char *help;
} setting;

#define STR(field) SET_STR, offsetof(config, field), 0, 0
#define UINT(field, lo, hi) SET_UINT, offsetof(config, field), lo, hi

static const setting base_settings[] = {
    {"http", STR(http), "127.0.0.1:8080", "HTTP listen address HOST:PORT; empty to serve no HTTP"},
    {"resp", STR(resp), "127.0.0.1:6380", "Redis-protocol listen address HOST:PORT; empty to serve no RESP"},
    {"http-tls", STR(http_tls), "", "HTTPS listen address HOST:PORT (needs tls-cert and tls-key); empty: none"},
    {"resp-tls", STR(resp_tls), "",
     "Redis-protocol-over-TLS listen address HOST:PORT (needs tls-cert and tls-key); empty: none"},
    {"tls-cert", STR(tls_cert), "", "PEM certificate chain for the TLS listeners; reread on SIGHUP"},
    {"tls-key", STR(tls_key), "", "PEM private key of tls-cert; reread on SIGHUP"},
    {"tls-ca", STR(tls_ca), "",
     "PEM CA certificates: when set, TLS clients must present a certificate they signed; empty: none asked"},
    {"tls-handshake-timeout", UINT(tls_handshake_timeout, 1, 300), "10",
     "seconds a TLS client has to finish its handshake"},
    {"node", UINT(node, 0, 0) /* up to config_node_max() */, "0",
     "node id of the formats with a node field, or ordinal (ordinal+N): the number that ends the host name (plus "
     "N), a StatefulSet pod's ordinal; a format whose field is too narrow for it is not served"},
    {"state-dir", STR(state_dir), "mintid-state", "directory for the lock and the timestamp high-water mark"},
    {"host-dir", STR(host_dir), MINTID_HOST_DIR_DEFAULT,
     "absolute directory of the host-wide generators' state, shared with the mintid command, Python and SQLite on "
     "the host (their MINTID_HOST_DIR): every home minting a format with the same node id, epoch and id-space "
     "continues one sequence there; on a disk, so that it outlives a reboot"},
    {"id-space", STR(id_space), "default",
     "name of the ID space this server mints in: on one host, a second server with the same id-space and node id "
     "(static or leased) refuses to run; 1 to 64 letters, digits, '.', '_' or '-'"},
    {"max-count", UINT(max_count, 1, 1000000), "100000", "most IDs one request may ask for"},
    {"max-request-size", UINT(max_request, 256, 1048576), "8192", "most bytes one request may take"},
    {"max-connections", UINT(max_connections, 1, 1000000), "10000", "most client connections at once"},
    {"workers", UINT(workers, 0, 1024), "0",
     "worker processes, each with its own event loop, accepting on the same listeners; 0: one per CPU the process "
     "may use; 1: a single process, no supervisor"},
    {"idle-timeout", UINT(idle_timeout, 0, 86400), "300",
     "seconds before an idle or stalled client is dropped; 0: never"},
    {"request-timeout", UINT(request_timeout, 1, 3600), "10",
     "seconds a request (an HTTP head, a RESP command) may take to arrive whole once its first byte has"},
    {"max-output", UINT(max_output, 65536, 1073741824), "4194304",
     "bytes of replies queued for one client before its reading is paused"},
    {"max-output-total", UINT(max_output_total, 1048576, 68719476736ULL), "268435456",
     "bytes of replies queued and of request buffers grown past their first 16 KiB, for all clients together; "
     "past it the clients holding the most are dropped"},
    {"max-wait", UINT(max_wait, 0, 60000), "1000",
     "ms one request may wait for the clock (sequence used up, clock behind)"},
    {"startup-wait", UINT(startup_wait, 0, 3600000), "5000",
     "ms to wait at start for a clock behind the state's high-water mark; longer: refuse to start"},
    {"reserve-ahead", UINT(reserve_ahead, 10, 3600000), "2000",
     "ms of timestamps reserved in the state file before they are used"},
    {"adopt-params", UINT(adopt_params, 0, 1), "0",
     "1: take a node id, epoch or layout that differs from the one the state directory recorded (see "
     "docs/server.md); 0: refuse to start"},
    {"rollback", STR(rollback), "default", "when the clock goes back: default (the format's), wait, reuse or fail"},
    {"node-lease", STR(node_lease), "",
     "lease the node id from etcd: etcd://HOST:PORT[,HOST:PORT...]/PREFIX, etcds:// for TLS; empty: the static node "
     "setting"},
    {"node-range", STR(node_range), "0-1023", "node ids a lease may take, LO-HI"},
    {"lease-ttl", UINT(lease_ttl, 2, 3600), "10", "seconds an etcd lease lives without a keepalive"},
    {"lease-margin", UINT(lease_margin, 100, 3600000), "2000",
     "ms before the lease could expire at which minting stops (fencing); below a third of the TTL"},
    {"lease-start-wait", UINT(lease_start_wait, 0, 86400), "0",
     "seconds to keep trying at start while etcd is unreachable or every node id is held, and to wait for the "
     "clock to pass the mark of the only free node id; 0: exit at once with an error (startup-wait still applies)"},
    {"etcd-ca", STR(etcd_ca), "",
     "PEM CA certificates etcd's certificate must chain to (etcds://); empty: the system's"},
    {"etcd-cert", STR(etcd_cert), "", "PEM client certificate for etcd (etcds://, needs etcd-key); empty: none"},
    {"etcd-key", STR(etcd_key), "", "PEM private key of etcd-cert"},
    {"etcd-user", STR(etcd_user), "", "etcd user to authenticate as (needs etcd-password-file); empty: none"},
    {"etcd-password-file", STR(etcd_password_file), "",
     "file whose first line is etcd-user's password (never give the password itself)"},
    {"auth-file", STR(auth_file), "",
     "file of secrets, one per line: RESP clients must AUTH with one, HTTP requests carry one as "
     "'Authorization: Bearer' (but GET /healthz and GET /readyz, and READY); empty: no authentication"},
    {"auth-failures-per-address", UINT(auth_failures_per_address, 1, 1000000), "10",
     "wrong secrets a second one client address (an IPv6 /64) may give across its connections; past it its "
     "secrets are refused unchecked"},
    {"auth-failures-total", UINT(auth_failures_total, 1, 1000000), "100",
     "wrong secrets a second all clients together may give; past it every secret is refused unchecked"},
    {"key-ttl", UINT(key_ttl, 0, 3153600000ULL), "86400",
     "seconds an idempotency key keeps its IDs (a retry within it gets the same ones); 0: forever"},
    {"key-max", UINT(key_max, 1, 1000000000000ULL), "10000000",
     "idempotency keys the store may hold; past it a new key is refused (507) and plain minting goes on"},
    {"log-level", STR(log_level), "info", "error, warn, info or debug"},
};

#define NBASE (sizeof base_settings / sizeof base_settings[0])
#define NSETTINGS nsettings

/*
 * The table: the settings above, with one `<format>-epoch` after "node" for
 * every format whose epoch is settable, from the format table, so that a
 * format added there gets its setting here without a change.
 */
static setting settings[NBASE + MINTID_FORMAT_COUNT];
static size_t nsettings;

uint64_t config_node_max(void) {
    unsigned bits = 0;
    for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)f);
        if (fmt->node_bits > bits && !fmt->node_optional)
            bits = fmt->node_bits;
    }
    return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

static void settings_init(void) {
    static char names[MINTID_FORMAT_COUNT][64], defs[MINTID_FORMAT_COUNT][24], helps[MINTID_FORMAT_COUNT][200];
    if (nsettings != 0)
        return;
    for (size_t i = 0; i < NBASE; i++) {
        settings[nsettings++] = base_settings[i];
        if (strcmp(base_settings[i].name, "node") != 0)
            continue;
        settings[nsettings - 1].max = config_node_max();
        for (int f = 0; f < MINTID_FORMAT_COUNT; f++) {
            const mintid_format *fmt = mintid_format_get((mintid_format_id)f);
            if (!fmt->epoch_settable)
                continue;
            size_t n = 0;
            snprintf(names[f], sizeof names[f], "%s-epoch", fmt->name);
            snprintf(defs[f], sizeof defs[f], "%" PRId64, fmt->epoch_ms);
            n = (size_t)snprintf(helps[f], sizeof helps[f], "%s epoch, Unix ms or RFC 3339", fmt->name);
            for (const mintid_epoch_name *e = fmt->epoch_names; e != NULL && e->name != NULL && n < sizeof helps[f];
                 e++)
                n += (size_t)snprintf(helps[f] + n, sizeof helps[f] - n, "%s%s", e == fmt->epoch_names ? " or " : ", ",
                                      e->name);
            if (n < sizeof helps[f])
                snprintf(helps[f] + n, sizeof helps[f] - n, "; every server of an application must use the same");
            settings[nsettings++] = (setting){
                names[f], SET_EPOCH, offsetof(config, epoch) + (size_t)f * sizeof(int64_t), 0, 0, defs[f], helps[f]};
        }
    }
}

static const setting *find_setting(const char *name, size_t len) {
    for (size_t i = 0; i < NSETTINGS; i++)
        if (strlen(settings[i].name) == len && strncmp(settings[i].name, name, len) == 0)
            return &settings[i];
    return NULL;
}

/* Stores `value` into the setting, or explains in err why not. */
static bool set_value(config *cfg, const setting *s, const char *value, char *err, size_t errcap) {
    char *field = (char *)cfg + s->offset;
    switch (s->type) {
    case SET_STR:
        if (strlen(value) >= CONFIG_STR_MAX) {
            snprintf(err, errcap, "%s: longer than %d bytes", s->name, CONFIG_STR_MAX - 1);
            return false;
        }
        memcpy(field, value, strlen(value) + 1);
        return true;
    case SET_UINT: {
        if (s->offset == offsetof(config, node)) {
            cfg->node_ordinal[0] = '\0';
            /* ordinal[+N]: the host name read by the library's look-up, as every home reads it. */
            if (strncmp(value, "ordinal", 7) == 0) {
                int64_t n;
                char why[MINTID_WHY_MAX];
                if (mintid_lookup_node(NULL, value, strlen(value), &n, why, sizeof why) != MINTID_OK) {
                    snprintf(err, errcap, "%s: %s", s->name, why);
                    return false;
                }
                cfg->node = (uint64_t)n;
                snprintf(cfg->node_ordinal, sizeof cfg->node_ordinal, "%s", value);
                return true;
            }
        }
        char *end;
        errno = 0;
        unsigned long long v = strtoull(value, &end, 10);
        bool number = isdigit((unsigned char)value[0]) && *end == '\0' && errno == 0;
        char why[MINTID_WHY_MAX];
        /* A node id out of range: the library's sentence, as every home says it. */
        if (number && v > s->max && s->offset == offsetof(config, node) && v <= INT64_MAX &&
            mintid_check_node(NULL, (int64_t)v, why, sizeof why) != MINTID_OK) {
            snprintf(err, errcap, "%s: %s", s->name, why);
            return false;
        }
        if (!number || v < s->min || v > s->max) {
            snprintf(err, errcap, "%s: '%s' is not a whole number from %llu to %llu", s->name, value,
                     (unsigned long long)s->min, (unsigned long long)s->max);
            return false;
        }
        uint64_t u = v;
        memcpy(field, &u, sizeof u);
        return true;
    }
    case SET_EPOCH: {
        /* "<format>-epoch": the format's named epochs are known too. */
        char fname[64];
        snprintf(fname, sizeof fname, "%.*s", (int)(strlen(s->name) - strlen("-epoch")), s->name);
        int64_t ms;
        char why[MINTID_WHY_MAX];
        if (mintid_lookup_epoch(mintid_format_find(fname), value, strlen(value), &ms, why, sizeof why) != MINTID_OK) {
            snprintf(err, errcap, "%s: %s", s->name, why);
            return false;
        }
        memcpy(field, &ms, sizeof ms);
        return true;
    }
    }
    return false;
}

bool config_parse_decimal(const char *s, size_t len, uint64_t max, uint64_t *out) {
    if (len == 0 || (s[0] == '0' && len > 1))
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (max - (uint64_t)(s[i] - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

int64_t config_epoch(const config *cfg, const mintid_format *fmt) {
    return fmt->epoch_settable ? cfg->epoch[fmt->id] : fmt->epoch_ms;
}

void config_defaults(config *cfg) {
    char err[MINTID_WHY_MAX + 80];
    settings_init();
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < NSETTINGS; i++)
        set_value(cfg, &settings[i], settings[i].def, err, sizeof err);
}

static void env_name(const setting *s, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "MINTID_");
    for (const char *p = s->name; *p != '\0' && n + 1 < cap; p++)
        buf[n++] = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
    buf[n] = '\0';
}

/* Levenshtein distance between a[0..an) and b; SIZE_MAX for names too long to be a setting's. */
static size_t edit_distance(const char *a, size_t an, const char *b) {
    size_t bn = strlen(b), row[65];
    if (an >= sizeof row / sizeof row[0] || bn >= sizeof row / sizeof row[0])
        return SIZE_MAX;
    for (size_t j = 0; j <= bn; j++)
        row[j] = j;
    for (size_t i = 1; i <= an; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= bn; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[bn];
}

/*
 * The setting (or `extra`, a name that is not in the table but is read,
 * such as "config") whose name is closest to name[0..len), when it is
 * close enough to be a slip of the keyboard: no more edits than a third of
 * its letters, and at least one allowed. NULL when nothing is that close,
 * as a suggestion far from what was typed would only mislead.
 */
static const char *closest_setting(const char *name, size_t len, const char *extra) {
    const char *best = extra;
    size_t best_d = extra != NULL ? edit_distance(name, len, extra) : SIZE_MAX;
    for (size_t i = 0; i < NSETTINGS; i++) {
        size_t d = edit_distance(name, len, settings[i].name);
        if (d < best_d) {
            best = settings[i].name;
            best_d = d;
        }
    }
    if (best == NULL)
        return NULL;
    size_t allowed = strlen(best) / 3 > 1 ? strlen(best) / 3 : 1;
    return best_d <= allowed ? best : NULL;
}

/*
 * Refuses MINTID_* variables that are neither a setting nor MINTID_CONFIG:
 * a misspelt one would otherwise be ignored in silence, and the server run
 * with a default its operator meant to change.
 */
static bool check_environment(void) {
    for (char **e = environ; *e != NULL; e++) {
        const char *var = *e, *eq = strchr(var, '=');
        size_t len = eq != NULL ? (size_t)(eq - var) : strlen(var);
        if (len < 7 || strncmp(var, "MINTID_", 7) != 0 || (len == 13 && strncmp(var, "MINTID_CONFIG", 13) == 0))
            continue;
        bool known = false;
        for (size_t i = 0; i < NSETTINGS && !known; i++) {
            char env[64];
            env_name(&settings[i], env, sizeof env);
            known = strlen(env) == len && strncmp(env, var, len) == 0;
        }
        if (known)
            continue;
        /* Compared as a setting's name, so case and '_' for '-' cost nothing. */
        char name[64], shown[MINTID_ESCAPED_MAX];
        size_t n = 0;
        for (const char *p = var + 7; p < var + len && n < sizeof name; p++)
            name[n++] = *p == '_' ? '-' : (char)tolower((unsigned char)*p);
        const char *near = len - 7 <= sizeof name ? closest_setting(name, n, "config") : NULL;
        mintid_escape(var, len, shown, sizeof shown);
        if (near != NULL) {
            char env[64] = "MINTID_CONFIG";
            const setting *s = find_setting(near, strlen(near));
            if (s != NULL)
                env_name(s, env, sizeof env);
            fprintf(stderr, "mintidd: %s: unknown setting; did you mean %s?\n", shown, env);
        } else {
            fprintf(stderr, "mintidd: %s: unknown setting (see mintidd --help)\n", shown);
        }
        return false;
    }
    return true;
}

/*
 * Whether what was printed reached standard output: a full disk or a
 * closed pipe is a failure to report, not a success to exit 0 on.
 */
static bool stdout_written(void) {
    if (fflush(stdout) == 0 && !ferror(stdout))
        return true;
    fprintf(stderr, "mintidd: writing standard output: %s\n", strerror(errno));
    return false;
}

void config_usage(FILE *out) {
    settings_init();
    fputs("usage: mintidd [--config FILE] [--SETTING VALUE]...\n"
          "       mintidd init --node-lease URL [--floor WHEN] [--SETTING VALUE]...\n\n"
          "Serves unique IDs over HTTP and the Redis protocol. `mintidd init` initialises\n"
          "an etcd node space for node-lease once (WHEN: no ID at or before it, Unix ms or\n"
          "RFC 3339), then exits. Every setting can also be given in the config file\n"
          "(`setting = value`; a # at the start of a line or after a blank starts a\n"
          "comment, so a value holding \" #\" goes on the command line or in the\n"
          "environment) and as an environment variable; the command line wins over\n"
          "the environment, which wins over the file.\n"
          "`mintidd --settings-reference conf|man|names` writes the settings below as\n"
          "a commented config file, as roff for mintidd.conf(5), or as a list of names.\n\nsettings:\n",
          out);
    for (size_t i = 0; i < NSETTINGS; i++) {
        char env[64];
        env_name(&settings[i], env, sizeof env);
        fprintf(out, "  --%-18s %s\n  %-20s (%s; default \"%s\")\n", settings[i].name, settings[i].help, "", env,
                settings[i].def);
    }
}

/* Writes text as comment lines ("# ...") of at most 79 columns. */
static void write_comment(FILE *out, const char *text) {
    const char *p = text;
    while (*p != '\0') {
        size_t n = strlen(p);
        if (n > 77) {
            n = 77;
            while (n > 0 && p[n] != ' ')
                n--;
            if (n == 0)
                n = strcspn(p, " ");
        }
        fprintf(out, "# %.*s\n", (int)n, p);
        p += n;
        while (*p == ' ')
            p++;
    }
}

/* Writes s for roff: backslashes and hyphens escaped, no line starting a request. */
static void write_roff(FILE *out, const char *s) {
    if (*s == '.' || *s == '\'')
        fputs("\\&", out);
    for (; *s != '\0'; s++) {
        if (*s == '\\')
            fputs("\\e", out);
        else if (*s == '-')
            fputs("\\-", out);
        else
            fputc(*s, out);
    }
}

bool config_write_reference(FILE *out, const char *form) {
    settings_init();
    if (strcmp(form, "conf") == 0) {
        fputs("# mintidd.conf: the settings of mintidd, the mintid ID server.\n"
              "#\n"
              "# One `setting = value` per line; a '#' at the start of a line or after a\n"
              "# blank starts a comment (a value holding \" #\" goes on the command line\n"
              "# or in the environment). Every setting is listed below, commented out,\n"
              "# with its default. A MINTID_<SETTING> environment variable overrides the\n"
              "# file, and --setting on the command line overrides both. See mintidd.conf(5).\n",
              out);
        for (size_t i = 0; i < NSETTINGS; i++) {
            fputs("\n", out);
            write_comment(out, settings[i].help);
            fprintf(out, "#%s =%s%s\n", settings[i].name, settings[i].def[0] != '\0' ? " " : "", settings[i].def);
        }
    } else if (strcmp(form, "man") == 0) {
        /* One .TP entry a setting: its name as the tag, its help, the
         * range of a number, then its default and its other two names. */
        for (size_t i = 0; i < NSETTINGS; i++) {
            const setting *s = &settings[i];
            char env[64];
            env_name(s, env, sizeof env);
            fputs(".TP\n.B ", out);
            write_roff(out, s->name);
            fputs("\n", out);
            write_roff(out, s->help);
            fputs(".\n", out);
            if (s->type == SET_UINT)
                fprintf(out, "A whole number from %llu to %llu.\n", (unsigned long long)s->min,
                        (unsigned long long)s->max);
            fputs(".br\nDefault: ", out);
            if (s->def[0] == '\0') {
                fputs("empty", out);
            } else {
                fputs("\\fB", out);
                write_roff(out, s->def);
                fputs("\\fR", out);
            }
            fputs("; command line: \\fB\\-\\-", out);
            write_roff(out, s->name);
            fputs("\\fR; environment: \\fB", out);
            write_roff(out, env);
            fputs("\\fR.\n", out);
        }
    } else if (strcmp(form, "names") == 0) {
        for (size_t i = 0; i < NSETTINGS; i++)
            fprintf(out, "%s\n", settings[i].name);
    } else {
        fprintf(stderr, "mintidd: --settings-reference: '%s' is not conf, man or names\n", form);
        return false;
    }
    return stdout_written();
}

static bool load_file(config *cfg, const char *path) {
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "mintidd: config file %s: %s\n", path, strerror(errno));
        return false;
    }
    char line[1024], err[MINTID_WHY_MAX + 80];
    int lineno = 0;
    bool ok = true;
    while (ok && fgets(line, sizeof line, f) != NULL) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            fprintf(stderr, "mintidd: %s:%d: line too long\n", path, lineno);
            ok = false;
            break;
        }
        while (len > 0 && isspace((unsigned char)line[len - 1]))
            line[--len] = '\0';
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0' || *p == '#')
            continue;
        char *eq = strchr(p, '=');
        if (eq == NULL) {
            fprintf(stderr, "mintidd: %s:%d: expected `setting = value`\n", path, lineno);
            ok = false;
            break;
        }
        char *name_end = eq;
        while (name_end > p && isspace((unsigned char)name_end[-1]))
            name_end--;
        /* A '#' after a blank starts a comment, so a value can be followed
         * by one; a '#' inside a value (a#b) stays. A value that must hold
         * " #" is given on the command line or in the environment. */
        for (char *c = eq + 1; *c != '\0'; c++)
            if (*c == '#' && isspace((unsigned char)c[-1])) {
                *c = '\0';
                break;
            }
        char *value = eq + 1;
        while (isspace((unsigned char)*value))
            value++;
        for (size_t vlen = strlen(value); vlen > 0 && isspace((unsigned char)value[vlen - 1]);)
            value[--vlen] = '\0';
        const setting *s = find_setting(p, (size_t)(name_end - p));
        if (s == NULL) {
            const char *near = closest_setting(p, (size_t)(name_end - p), NULL);
            fprintf(stderr, "mintidd: %s:%d: unknown setting '%.*s'%s%s%s\n", path, lineno, (int)(name_end - p), p,
                    near != NULL ? "; did you mean '" : "", near != NULL ? near : "", near != NULL ? "'?" : "");
            ok = false;
        } else if (!set_value(cfg, s, value, err, sizeof err)) {
            fprintf(stderr, "mintidd: %s:%d: %s\n", path, lineno, err);
            ok = false;
        }
    }
    fclose(f);
    return ok;
}

int config_load(config *cfg, int argc, char **argv) {
    char err[MINTID_WHY_MAX + 80]; /* a setting's name and a sentence */
    config_defaults(cfg);
    /* The config file first, wherever --config appears, so that the
     * environment and the rest of the command line override it. */
    const char *file = getenv("MINTID_CONFIG");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            config_usage(stdout);
            return stdout_written() ? 1 : -1;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("mintidd %s\n", MINTID_VERSION_STRING);
            return stdout_written() ? 1 : -1;
        }
        if (strcmp(argv[i], "--settings-reference") == 0 || strncmp(argv[i], "--settings-reference=", 21) == 0) {
            const char *form = argv[i][20] == '=' ? argv[i] + 21 : i + 1 < argc ? argv[i + 1] : "";
            return config_write_reference(stdout, form) ? 1 : -1;
        }
        if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            file = argv[i + 1];
        else if (strncmp(argv[i], "--config=", 9) == 0)
            file = argv[i] + 9;
    }
    if (file != NULL && file[0] != '\0' && !load_file(cfg, file))
        return -1;
    if (!check_environment())
        return -1;
    for (size_t i = 0; i < NSETTINGS; i++) {
        char env[64];
        env_name(&settings[i], env, sizeof env);
        const char *v = getenv(env);
        if (v != NULL && !set_value(cfg, &settings[i], v, err, sizeof err)) {
            fprintf(stderr, "mintidd: %s: %s\n", env, err);
            return -1;
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *value = NULL;
        if (strncmp(arg, "--", 2) != 0) {
            fprintf(stderr, "mintidd: unexpected argument '%s' (see mintidd --help)\n", arg);
            return -1;
        }
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t nlen = eq != NULL ? (size_t)(eq - name) : strlen(name);
        if (eq != NULL)
            value = eq + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        if (nlen == 6 && strncmp(name, "config", 6) == 0)
            continue;
        const setting *s = find_setting(name, nlen);
        if (s == NULL) {
            const char *near = closest_setting(name, nlen, "config");
            if (near != NULL)
                fprintf(stderr, "mintidd: unknown setting '%s'; did you mean '--%s'? (see mintidd --help)\n", arg,
                        near);
            else
                fprintf(stderr, "mintidd: unknown setting '%s' (see mintidd --help)\n", arg);
            return -1;
        }
        if (value == NULL) {
            fprintf(stderr, "mintidd: %s needs a value\n", arg);
            return -1;
        }
        if (!set_value(cfg, s, value, err, sizeof err)) {
            fprintf(stderr, "mintidd: %s\n", err);
            return -1;
        }
    }
    if (log_level_find(cfg->log_level) < 0) {
        fprintf(stderr, "mintidd: log-level: '%s' is not error, warn, info or debug\n", cfg->log_level);
        return -1;
    }
    if (strcmp(cfg->rollback, "default") != 0 && strcmp(cfg->rollback, "wait") != 0 &&
        strcmp(cfg->rollback, "reuse") != 0 && strcmp(cfg->rollback, "fail") != 0) {
        fprintf(stderr, "mintidd: rollback: '%s' is not default, wait, reuse or fail\n", cfg->rollback);
        return -1;
    }
    if (cfg->node_lease[0] != '\0' && cfg->lease_margin * 3 >= cfg->lease_ttl * 1000) {
        fprintf(stderr, "mintidd: lease-margin (%llu ms) must be below a third of lease-ttl (%llu s)\n",
                (unsigned long long)cfg->lease_margin, (unsigned long long)cfg->lease_ttl);
        return -1;
    }
    if (cfg->node_ordinal[0] != '\0' && cfg->node_lease[0] != '\0') {
        fprintf(stderr,
                "mintidd: node = %s takes the node id from the host name, node-lease from etcd: give one or the "
                "other\n",
                cfg->node_ordinal);
        return -1;
    }
    if ((cfg->etcd_cert[0] != '\0') != (cfg->etcd_key[0] != '\0')) {
        fprintf(stderr, "mintidd: etcd-cert and etcd-key go together: give both or neither\n");
        return -1;
    }
    if ((cfg->etcd_user[0] != '\0') != (cfg->etcd_password_file[0] != '\0')) {
        fprintf(stderr, "mintidd: etcd-user and etcd-password-file go together: give both or neither\n");
        return -1;
    }
    if ((cfg->etcd_ca[0] != '\0' || cfg->etcd_cert[0] != '\0') && strncmp(cfg->node_lease, "etcds://", 8) != 0) {
        fprintf(stderr, "mintidd: etcd-ca and etcd-cert are for TLS: node-lease must start with etcds://\n");
        return -1;
    }
    /* Any one listener is enough: a server may speak TLS alone. */
    if (cfg->http[0] == '\0' && cfg->resp[0] == '\0' && cfg->http_tls[0] == '\0' && cfg->resp_tls[0] == '\0') {
        fprintf(stderr, "mintidd: nothing to serve: http, resp, http-tls and resp-tls are all empty\n");
        return -1;
    }
    return 0;
}
