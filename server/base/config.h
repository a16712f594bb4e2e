/* SPDX-License-Identifier: MIT */
/*
 * config.h - mintidd's settings: one table gives each its name, type,
 * limits, default and help, and is read by the command line, the config
 * file and the environment alike.
 */
#ifndef MINTIDD_CONFIG_H
#define MINTIDD_CONFIG_H

#include "mintid.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CONFIG_STR_MAX 256

typedef struct config {
    char http[CONFIG_STR_MAX]; /* HOST:PORT, or empty for no HTTP */
    char resp[CONFIG_STR_MAX]; /* HOST:PORT, or empty for no RESP */
    char state_dir[CONFIG_STR_MAX];
    char id_space[CONFIG_STR_MAX]; /* names the host-wide claim on the node id, and the host-wide generators */
    char host_dir[CONFIG_STR_MAX]; /* the host-wide generators' directory (absolute) */
    char log_level[CONFIG_STR_MAX];
    char rollback[CONFIG_STR_MAX];   /* "default", "wait", "reuse" or "fail" */
    char node_lease[CONFIG_STR_MAX]; /* etcd://HOST:PORT[,...]/PREFIX, or empty for a static node id */
    char node_range[CONFIG_STR_MAX]; /* LO-HI: node ids a lease may take */
    char http_tls[CONFIG_STR_MAX];   /* HOST:PORT for HTTPS, or empty */
    char resp_tls[CONFIG_STR_MAX];   /* HOST:PORT for RESP over TLS, or empty */
    char tls_cert[CONFIG_STR_MAX];   /* PEM certificate chain */
    char tls_key[CONFIG_STR_MAX];    /* PEM private key */
    char tls_ca[CONFIG_STR_MAX];     /* PEM CAs client certificates must chain to; empty: none asked */
    uint64_t tls_handshake_timeout;  /* seconds */
    char auth_file[CONFIG_STR_MAX];  /* secrets clients must give, one per line; empty: none asked */
    uint64_t lease_ttl;              /* seconds */
    uint64_t lease_margin;           /* ms before a possible expiry at which minting stops */
    uint64_t lease_start_wait;       /* seconds to retry an unreachable or full etcd at start; 0: fail at once */
    char etcd_ca[CONFIG_STR_MAX];    /* PEM CAs etcd's certificate chains to; empty: the system's */
    char etcd_cert[CONFIG_STR_MAX];  /* PEM client certificate for etcd; empty: none */
    char etcd_key[CONFIG_STR_MAX];   /* its key */
    char etcd_user[CONFIG_STR_MAX];  /* etcd user; empty: no authentication */
    char etcd_password_file[CONFIG_STR_MAX]; /* its password, on the file's first line */
    uint64_t node;
    char node_ordinal[CONFIG_STR_MAX]; /* "ordinal[+N]" when node is the host name's ordinal, else empty */
    int64_t epoch[MINTID_FORMAT_COUNT]; /* Unix ms, by format id, for formats whose epoch is settable */
    uint64_t max_count;                 /* IDs per request */
    uint64_t max_request;               /* bytes per request */
    uint64_t max_connections;
    uint64_t workers;          /* worker processes; 0: one per CPU the process may use */
    uint64_t idle_timeout;     /* seconds; 0: never */
    uint64_t request_timeout;  /* seconds from a request's first byte to its last */
    uint64_t max_output;       /* bytes queued for one client before it is throttled */
    uint64_t max_output_total; /* bytes queued for all clients before the slowest are dropped */
    uint64_t adopt_params;     /* 1: accept parameters that differ from the state's */
    uint64_t max_wait;         /* ms one mint may wait for the clock */
    uint64_t startup_wait;     /* ms to wait at start for the clock to pass the state's mark */
    uint64_t reserve_ahead;    /* ms of timestamps reserved in the state file ahead of use */

    uint64_t auth_failures_per_address; /* wrong secrets a second from one client address */
    uint64_t auth_failures_total;       /* wrong secrets a second from all clients */
    uint64_t key_ttl;                   /* seconds an idempotency key lives; 0: forever */
    uint64_t key_max;                   /* idempotency keys the store may hold */
} config;

void config_defaults(config *cfg);

/*
 * A decimal in s[0..len) as requests and files give it: digits only, no
 * sign, no leading zero (but "0" itself), at most max. False for anything
 * else; *out is set only on success.
 */
bool config_parse_decimal(const char *s, size_t len, uint64_t max, uint64_t *out);

/*
 * The epoch this server mints and reads fmt with: the setting for a format
 * whose epoch is settable, else the format's own. The one place that maps
 * settings to epochs.
 */
int64_t config_epoch(const config *cfg, const mintid_format *fmt);

/*
 * The largest node id: that of the widest node field among the formats
 * that have one, from the format table. A node id too wide for a narrower
 * field leaves that format unserved rather than wrapped.
 */
uint64_t config_node_max(void);

/*
 * Fills cfg from, in rising precedence, the defaults, the config file
 * (--config FILE or MINTID_CONFIG), MINTID_* environment variables and the
 * command line. Returns 0, or 1 after printing help/version, or -1 after
 * printing an error to stderr.
 */
int config_load(config *cfg, int argc, char **argv);

/* Writes every setting with its environment variable, default and help. */
void config_usage(FILE *out);

/*
 * Writes the settings table in one of the forms it is published in, so
 * that none is written by hand: "conf" (a config file with every setting
 * commented out, its help and its default: the packaged mintidd.conf),
 * "man" (roff for the SETTINGS section of mintidd.conf(5)) or "names" (one
 * per line, for shell completion). False after printing an error.
 */
bool config_write_reference(FILE *out, const char *form);

#endif
