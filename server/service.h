/* SPDX-License-Identifier: MIT */
/*
 * service.h - the ID service behind every protocol: one generator per
 * format, the reservation of timestamps in the state file, and the counters
 * that /metrics and INFO show (stats.h renders them). It knows nothing of
 * sockets.
 */
#ifndef MINTIDD_SERVICE_H
#define MINTIDD_SERVICE_H

#include "base/config.h"
#include "cluster/lease.h"
#include "mintid.h"
#include "base/state.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

typedef enum proto { PROTO_HTTP, PROTO_RESP, PROTO_COUNT } proto;

/* CLOCK_MONOTONIC in ns: time spans (uptime, waits, timeouts) that no step of the wall clock may stretch or shrink. */
static inline uint64_t monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* What became of keyed requests (keys.c counts, stats.c names them). */
typedef enum key_count {
    KEYC_CREATED,  /* a new key given this request's IDs */
    KEYC_REPLAYED, /* a retry answered with the key's IDs */
    KEYC_MISMATCH, /* the key with another request (422, -MISMATCH) */
    KEYC_BUSY,     /* a retry while the key was being committed (409, -CONFLICT) */
    KEYC_FULL,     /* no room for a new key (507) */
    KEYC_FOUND,    /* a lookup of a key that has IDs */
    KEYC_ABSENT,   /* a lookup of a key that has none */
    KEYC_FAILED,   /* the store could not answer (503) */
    KEYC_N
} key_count;

/*
 * The counters /metrics and INFO show. One writer each: a single process
 * has its own; with workers, each worker counts in its slot of the shared
 * region (shared.h), which outlives the worker, so totals never go down when
 * a worker is restarted (the gauges, marked so, are zeroed then).
 */
typedef struct service_counters {
    uint64_t requests[PROTO_COUNT];
    uint64_t errors[PROTO_COUNT];
    uint64_t connections[PROTO_COUNT]; /* open now (gauge) */
    uint64_t connections_total[PROTO_COUNT];
    uint64_t connections_refused[PROTO_COUNT];
    uint64_t auth_failures[PROTO_COUNT];
    uint64_t auth_limited_address;   /* secrets refused unchecked: too many wrong from their address */
    uint64_t auth_limited_total;     /* ...from all clients together */
    uint64_t accept_errors;          /* accept() failures (out of descriptors) */
    uint64_t accept_shed;            /* connections closed unserved while out of descriptors */
    uint64_t request_timeouts;       /* connections dropped: a request unfinished past request-timeout */
    uint64_t shed_at_cap;            /* connections without a whole request closed for a new one at max-connections */
    uint64_t tls_handshake_failures; /* TLS handshakes that failed or timed out */
    uint64_t parked_total;           /* requests that had to wait for their format */
    uint64_t parked_now;             /* ...in its wait queue now */
    uint64_t clients_shed;           /* connections dropped to bound the memory of queued replies */
    uint64_t queued_bytes;           /* replies queued for all clients */
    uint64_t input_bytes;            /* requests buffered for all clients (their buffers' sizes) */
    uint64_t log_dropped, log_held_back;  /* the log's counters (log.h) of this slot's processes */
    uint64_t keys[KEYC_N];                /* keyed requests, by what became of them */
    uint64_t issued[MINTID_FORMAT_COUNT]; /* IDs issued, by format */
    uint64_t waits[MINTID_FORMAT_COUNT];  /* the generators' counters (mintid_gen_stats), by format */
    uint64_t exhausted[MINTID_FORMAT_COUNT];
    uint64_t rollbacks[MINTID_FORMAT_COUNT];
} service_counters;

_Static_assert(sizeof(service_counters) % sizeof(uint64_t) == 0, "service_totals() sums 64-bit words");

typedef struct service {
    const config *cfg;
    state *st;
    mintid_gen *gens[MINTID_FORMAT_COUNT];                  /* NULL where the format is not served */
    char why_not[MINTID_FORMAT_COUNT][MINTID_WHY_MAX + 32]; /* ...and why */
    char host_why[PATH_MAX + 96];                           /* why the host-wide state failed a mint */
    lease *lease;                                           /* NULL: the static node id */
    uint64_t lease_generation;                              /* the lease's generation the generators were made for */
    int64_t node;                                           /* the node id in use; -1 while a lease is lost */
    int64_t now_ms;                                         /* the time admitted for the mint in progress */
    uint64_t start_ns;                                      /* monotonic, for uptime */
    service_counters *c;     /* the counters: own, or this worker's slot in the shared region */
    service_counters own;    /* ...of a single process */
    service_counters *slots; /* every worker's, to sum (nslots of them); &own in a single process */
    unsigned nslots;
    /* Workers: the supervisor's state writer is asked for a mark through these (shared.h); -1 and NULL in a
     * single process, which asks its own writer. */
    int reserve_fd;
    _Atomic int64_t *reserve_asked;
    _Atomic uint64_t *workers, *restarts;      /* the supervisor's counts of workers running and restarted; NULL: one */
    uint64_t log_base[2];                      /* log_dropped, log_held_back of earlier workers in c */
    uint64_t gen_base[MINTID_FORMAT_COUNT][3]; /* waits, exhausted, rollbacks of earlier generators in c */
    int64_t last_admitted_ms;                  /* the time last admitted for minting; 0 before */
    int64_t warrant_pid;                       /* the server's pid, which its warrants name (the supervisor's) */
    /* Per format: since when (monotonic ns; 0: not) the host-wide lock has been found held on every try,
     * and the reason of the last wait before, which a lock held only a moment (another worker's mint) keeps. */
    uint64_t busy_since_ns[MINTID_FORMAT_COUNT];
    const char *wait_why[MINTID_FORMAT_COUNT];
    bool warranted; /* this process renews warrants: it withdraws them when it stops */
} service;

/* Creates the generators (l: the node lease, or NULL). Returns 0, or -1 after logging why. */
int service_init(service *svc, const config *cfg, state *st, lease *l);

/* What a worker process's service shares with the supervisor and the other workers (shared.h). */
typedef struct service_shared {
    service_counters *slots; /* every worker's counters */
    unsigned nslots, slot;   /* ...and this worker's */
    int reserve_fd;          /* written to ask the supervisor's state writer for reserve_asked */
    _Atomic int64_t *reserve_asked;
    _Atomic uint64_t *workers, *restarts;
    uint64_t start_ns; /* monotonic: when the server started, for uptime */
} service_shared;

/* service_init() for a worker: counters in its slot. */
int service_init_shared(service *svc, const config *cfg, state *st, lease *l, const service_shared *sh);
/*
 * The serving process's part of the host: publishes the node ids in the
 * host-dir's node file and puts its warrant in the host-wide state of
 * every format with a node id (service_reserve renews them, service_free
 * withdraws them). Not for a service made only to read the generators.
 */
void service_start_warrants(service *svc);
/*
 * Renews the warrants (every SERVICE_WARRANT_MS), and moves the mark ahead
 * of what the other homes minting under them asked for.
 */
void service_warrants(service *svc);
#define SERVICE_WARRANT_MS 20
/* How long a format's host-wide lock must have been found held before a refusal names its holder. */
#define SERVICE_BUSY_NAMED_NS (100u * 1000000u)

/* The counters summed over every worker (a single process's own). */
void service_totals(service *svc, service_counters *out);

/* Brings the counters of the generators (waits, exhausted, rollbacks) and of the log in svc->c up to date. */
void service_count_gens(service *svc);
void service_free(service *svc);

/* service_mint()'s *why while another process holds the format's lock a moment (compared by address). */
extern const char service_lock_busy[];

/*
 * Mints up to `want` IDs of fmt into out without ever waiting, and returns
 * how many (> 0). When none can be minted yet (the millisecond's sequence is
 * used up, the clock is behind a mark, the state file has not yet recorded
 * the time) it returns 0 with *retry_ns, the nanoseconds after which trying
 * again may succeed, and *why saying what it waits for. Otherwise it fails
 * with a negative status and *why, a sentence for the client.
 */
long service_mint(service *svc, const mintid_format *fmt, size_t want, mintid_id *out, uint64_t *retry_ns,
                  const char **why);

/*
 * The smallest ID of from_text's millisecond and the largest of to_text's
 * (each Unix ms or RFC 3339, not NUL-terminated), under the epoch this
 * server mints fmt with. MINTID_OK, or MINTID_EINVAL with *why naming the
 * argument, or MINTID_ETIME when the format cannot carry that time.
 */
int service_range(service *svc, const mintid_format *fmt, const char *from_text, size_t from_len, const char *to_text,
                  size_t to_len, mintid_id *lo, mintid_id *hi, const char **why);

/* The decimal count in s[0..len), 1..max; false for anything else. */
bool service_parse_count(const char *s, size_t len, uint64_t max, uint64_t *out);

/* Asks the state writer to keep the reservation ahead of the clock; called from a timer. */
void service_reserve(service *svc);

/* Writes the final mark (the latest timestamp issued) at a clean shutdown. */
void service_shutdown(service *svc);
/*
 * Lapses the warrant of every format with a node id, waiting for the lock
 * (see mintid_gen_warrant()): the host's other homes stop minting under
 * this server's node id. False (logged) if one could not be lapsed.
 */
bool service_lapse_warrants(service *svc);
/*
 * The latest time issued by this server and every home under its warrant,
 * once the warrants have lapsed; the mark if they could not be (a home may
 * still mint up to it): what a stopping server may lower its mark, and the
 * lease's, to.
 */
int64_t service_last_issued_after_lapse(service *svc);
/* The latest timestamp issued, Unix ms; 0 if none. */
int64_t service_last_issued(service *svc);

typedef struct lease_status {
    int valid;
    int64_t node;
    uint64_t id;
    double expiry_s; /* until minting stops without a keepalive */
    uint64_t keepalive_failures;
    double wait_s;         /* held, but not usable until the last holder must have stopped; 0 if not waiting */
    bool etcd_reachable;   /* false while etcd does not answer (lease_etcd_unreachable) */
    double acknowledged_s; /* since the keepalive etcd last acknowledged (or the grant) was sent; -1: no lease */
} lease_status;
void service_lease_status(service *svc, lease_status *out);

/*
 * Why a served format cannot mint at the clock's time (no ID of it can
 * carry that timestamp: the clock is past its last one, or before its
 * epoch), written into buf; NULL if every served format can.
 */
const char *service_unmintable(service *svc, char *buf, size_t cap);

/* The longest sentence service_ready() puts together for a format. */
#define SERVICE_WHY_MAX 320

/*
 * Whether every served format can mint now, decided by the admission a
 * mint goes through (service_mint), read without asking anything of the
 * state writer or etcd. A format cannot when a mint of it would be
 * refused; or would wait longer than max-wait (the clock behind the
 * state's mark or the last ID issued, a node id's last holder, the
 * previous holder's mark), or until etcd answers; or when what keeps its
 * reservation ahead of the clock is failing (the state file cannot be
 * written, etcd does not answer), so that minting stops once the
 * reservation is used up. Each worker decides on the same shared facts.
 */
typedef struct service_readiness {
    const char *why[MINTID_FORMAT_COUNT];            /* the service's sentence; NULL: it can mint, or is not served */
    char text[MINTID_FORMAT_COUNT][SERVICE_WHY_MAX]; /* where a sentence with figures is put together */
} service_readiness;
/* True when every served format can mint; out says why each that cannot. */
bool service_ready(service *svc, service_readiness *out);

#endif
