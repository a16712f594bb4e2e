/* SPDX-License-Identifier: MIT */
/*
 * workers.c - the supervisor of the worker processes (workers.h): starts
 * each as this program executed again, restarts with a back-off, forwards
 * SIGHUP, stops them all on SIGTERM or SIGINT, and wakes the state writer
 * when a worker asks for a mark.
 */
#include "workers.h"

#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <event2/event.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The program a worker runs: the supervisor's own, even if a package
 * upgrade has replaced the file since it started. */
#define WORKER_PROGRAM "/proc/self/exe"

/* A worker that dies within STABLE_S of its start is restarted after a back-off doubling from RESTART_MIN_MS. */
#define RESTART_MIN_MS 100u
#define RESTART_MAX_MS 10000u
#define STABLE_S 10u

typedef struct worker {
    pid_t pid;        /* 0 while none runs in this slot */
    uint64_t born_ns; /* monotonic */
    unsigned fails;   /* deaths in a row, each within STABLE_S of its start */
    uint64_t due_ns;  /* monotonic: when to start this slot's worker again; 0 if not due */
    bool was_ready;   /* it accepted once */
} worker;

typedef struct run {
    supervisor *sv;
    struct event_base *base;
    worker *w;
    int reserve_fd;
    int ready[2];
    char **envp; /* the workers' environment: the supervisor's without NOTIFY_SOCKET */
    int sig_fd;  /* the signals below, blocked and read here: the workers' loops take them with libevent */
    sigset_t sigs, old_mask;
    unsigned ready_count;
    bool all_ready;
    bool stopping;
    bool failed; /* a first worker could not start: the server does not */
    struct event *ev_sig, *ev_reserve, *ev_ready, *ev_restart, *ev_kill, *ev_tick;
} run;

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

unsigned workers_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    if (n < 1)
        return 1;
    return (unsigned)n > SHARED_WORKERS_MAX ? SHARED_WORKERS_MAX : (unsigned)n;
}

/*
 * Starts the worker of slot i with posix_spawn(): its descriptors moved to
 * where workers.h says, each first above every source and target, then
 * down into place, so that no move overwrites one still to be moved (a
 * dup2() copy is not close-on-exec); every other descriptor closed. Returns
 * its pid, or -1 after logging.
 */
static pid_t spawn(run *r, unsigned i) {
    supervisor *sv = r->sv;
    int src[3 + WORKER_INHERIT_MAX];
    unsigned k = 0;
    src[k++] = sv->shared_fd;
    src[k++] = r->reserve_fd;
    src[k++] = r->ready[1];
    for (unsigned j = 0; j < sv->ninherit; j++)
        src[k++] = sv->inherit[j];
    int high = WORKER_FD_SHARED + (int)k;
    for (unsigned j = 0; j < k; j++)
        if (src[j] >= high)
            high = src[j] + 1;
    char arg[] = WORKER_ARG, slot[16];
    snprintf(slot, sizeof slot, "%u", i);
    char *argv[] = {(char *)sv->argv0, arg, slot, NULL};
    posix_spawn_file_actions_t fa;
    int err = posix_spawn_file_actions_init(&fa);
    if (err == 0) {
        for (unsigned j = 0; j < k && err == 0; j++)
            err = posix_spawn_file_actions_adddup2(&fa, src[j], high + (int)j);
        for (unsigned j = 0; j < k && err == 0; j++)
            err = posix_spawn_file_actions_adddup2(&fa, high + (int)j, WORKER_FD_SHARED + (int)j);
        if (err == 0)
            err = posix_spawn_file_actions_addclosefrom_np(&fa, WORKER_FD_SHARED + (int)k);
        pid_t pid;
        /* Its signal mask is this thread's: SIGTERM, SIGINT, SIGHUP and
         * SIGCHLD blocked until its loop takes them (workers_unblock_signals). */
        if (err == 0)
            err = posix_spawn(&pid, WORKER_PROGRAM, &fa, NULL, argv, r->envp);
        posix_spawn_file_actions_destroy(&fa);
        if (err == 0) {
            r->w[i].pid = pid;
            r->w[i].born_ns = mono_ns();
            r->w[i].was_ready = false;
            atomic_fetch_add(&sv->sh->workers, 1);
            return pid;
        }
    }
    log_msg(LOG_ERROR, "cannot start worker %u: %s", i, strerror(err));
    return -1;
}

static unsigned running(const run *r) {
    unsigned n = 0;
    for (unsigned i = 0; i < r->sv->n; i++)
        n += r->w[i].pid != 0;
    return n;
}

/* Arms the restart timer for the earliest slot due, if any. */
static void arm_restart(run *r) {
    uint64_t first = 0;
    for (unsigned i = 0; i < r->sv->n; i++)
        if (r->w[i].due_ns != 0 && (first == 0 || r->w[i].due_ns < first))
            first = r->w[i].due_ns;
    if (first == 0)
        return;
    uint64_t now = mono_ns(), in = first > now ? first - now : 0;
    struct timeval tv = {(time_t)(in / 1000000000u), (suseconds_t)(in % 1000000000u / 1000u)};
    event_add(r->ev_restart, &tv);
}

static void on_restart(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what;
    run *r = arg;
    if (r->stopping)
        return;
    uint64_t now = mono_ns();
    for (unsigned i = 0; i < r->sv->n; i++) {
        if (r->w[i].due_ns == 0 || r->w[i].due_ns > now)
            continue;
        r->w[i].due_ns = 0;
        pid_t pid = spawn(r, i);
        if (pid > 0) {
            atomic_fetch_add(&r->sv->sh->restarts, 1);
            log_msg(LOG_INFO, "worker %u restarted (pid %ld)", i, (long)pid);
        } else {
            r->w[i].due_ns = now + (uint64_t)RESTART_MAX_MS * 1000000u;
        }
    }
    arm_restart(r);
}

static void stop_all(run *r, int sig) {
    for (unsigned i = 0; i < r->sv->n; i++) {
        r->w[i].due_ns = 0;
        if (r->w[i].pid != 0)
            kill(r->w[i].pid, sig);
    }
}

static void begin_stop(run *r) {
    if (r->stopping)
        return;
    r->stopping = true;
    event_del(r->ev_restart);
    stop_all(r, SIGTERM);
    struct timeval tv = {(time_t)r->sv->drain_s, 0};
    event_add(r->ev_kill, &tv);
    if (running(r) == 0)
        event_base_loopbreak(r->base);
}

static void on_child(run *r) {
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        unsigned i;
        for (i = 0; i < r->sv->n && r->w[i].pid != pid; i++) {
        }
        if (i == r->sv->n)
            continue;
        worker *w = &r->w[i];
        w->pid = 0;
        atomic_fetch_sub(&r->sv->sh->workers, 1);
        shared_reset_gauges(&r->sv->sh->slots[i]);
        bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (r->stopping) {
            if (!clean)
                log_msg(LOG_WARN, "worker %u (pid %ld) did not stop cleanly", i, (long)pid);
            continue;
        }
        if (WIFSIGNALED(status))
            log_msg(LOG_ERROR, "worker %u (pid %ld) was killed by signal %d", i, (long)pid, WTERMSIG(status));
        else
            log_msg(LOG_ERROR, "worker %u (pid %ld) exited with status %d", i, (long)pid, WEXITSTATUS(status));
        if (!r->all_ready && WIFEXITED(status) && WEXITSTATUS(status) == WORKER_FAILED) {
            /* A first worker could not start: every other would fail alike. */
            r->failed = true;
            begin_stop(r);
            continue;
        }
        uint64_t now = mono_ns();
        if (now - w->born_ns < (uint64_t)STABLE_S * 1000000000u) {
            unsigned shift = w->fails < 7 ? w->fails : 7;
            uint64_t ms = (uint64_t)RESTART_MIN_MS << shift;
            w->due_ns = now + (ms < RESTART_MAX_MS ? ms : RESTART_MAX_MS) * 1000000u;
            w->fails++;
        } else {
            w->fails = 0;
            w->due_ns = now;
        }
        arm_restart(r);
    }
    if (r->stopping && running(r) == 0)
        event_base_loopbreak(r->base);
}

static void on_stop_signal(run *r, int sig) {
    if (r->stopping)
        return;
    log_msg(LOG_INFO, "%s: stopping the workers; each sends the replies it owes",
            sig == SIGTERM ? "SIGTERM" : "SIGINT");
    if (r->sv->notify != NULL)
        r->sv->notify("STOPPING=1");
    begin_stop(r);
}

static void on_kill(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what;
    run *r = arg;
    if (running(r) > 0) {
        log_msg(LOG_WARN, "killing the workers still running after %u s", r->sv->drain_s);
        stop_all(r, SIGKILL);
    }
}

/* SIGHUP: every worker reloads its certificates and secrets. */
static void on_hup(run *r) {
    log_msg(LOG_INFO, "SIGHUP: every worker reloads");
    if (r->sv->notify != NULL) {
        struct timespec ts;
        char reloading[64] = "RELOADING=1";
        if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
            snprintf(reloading, sizeof reloading, "RELOADING=1\nMONOTONIC_USEC=%llu",
                     (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000ULL);
        r->sv->notify(reloading);
    }
    atomic_fetch_add(&r->sv->sh->reloads, 1);
    if (!r->stopping)
        stop_all(r, SIGHUP);
    if (r->sv->notify != NULL)
        r->sv->notify("READY=1");
}

static void on_signal(evutil_socket_t fd, short what, void *arg) {
    (void)what;
    run *r = arg;
    struct signalfd_siginfo si[16];
    ssize_t got = read(fd, si, sizeof si);
    for (ssize_t k = 0; k + (ssize_t)sizeof si[0] <= got; k += (ssize_t)sizeof si[0]) {
        int sig = (int)si[k / (ssize_t)sizeof si[0]].ssi_signo;
        if (sig == SIGCHLD)
            on_child(r);
        else if (sig == SIGHUP)
            on_hup(r);
        else
            on_stop_signal(r, sig);
    }
}

void workers_unblock_signals(void) {
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    sigaddset(&sigs, SIGCHLD);
    sigprocmask(SIG_UNBLOCK, &sigs, NULL);
}

int worker_attach(int argc, char **argv, shared **sh, worker_ctx *wc) {
    *sh = NULL;
    /* Executed as /proc/self/exe, the kernel names it "exe": it is mintidd
     * to ps, top, pgrep and the journal, as the supervisor is. */
    prctl(PR_SET_NAME, "mintidd", 0, 0, 0);
    /* Dies with the supervisor: nothing would bound its mints by the state
     * file and the lease any more. A supervisor gone before this line is
     * found by the parent check below. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
        log_msg(LOG_ERROR, "worker: cannot ask to die with the supervisor: %s", strerror(errno));
        return WORKER_FAILED;
    }
    char *end = NULL;
    errno = 0;
    unsigned long slot = argc == 3 ? strtoul(argv[2], &end, 10) : ULONG_MAX;
    if (argc != 3 || errno != 0 || end == argv[2] || *end != '\0' || fcntl(WORKER_FD_SHARED, F_GETFD) < 0) {
        fprintf(stderr, "mintidd worker: workers are started by mintidd itself (see --workers), not by hand\n");
        return 2;
    }
    shared *s = shared_attach(WORKER_FD_SHARED);
    if (s == NULL)
        return WORKER_FAILED;
    if (s->supervisor != getppid() || slot >= s->nslots) {
        log_msg(LOG_ERROR, "worker %s: not started by the supervisor of this shared memory (pid %ld)", argv[2],
                (long)s->supervisor);
        shared_free(s);
        return WORKER_FAILED;
    }
    *sh = s;
    *wc = (worker_ctx){
        .slot = (unsigned)slot, .n = s->nslots, .reserve_fd = WORKER_FD_RESERVE, .ready_fd = WORKER_FD_READY};
    return 0;
}

/* A worker asked for a mark: the writer is asked for the highest asked. */
static void on_reserve(evutil_socket_t fd, short what, void *arg) {
    (void)what;
    run *r = arg;
    uint64_t n;
    if (read(fd, &n, sizeof n) < 0 && errno != EAGAIN)
        log_msg(LOG_WARN, "reading the workers' wake-up: %s", strerror(errno));
    state_request(&r->sv->sh->st, atomic_load(&r->sv->sh->reserve_asked));
}

/* Each worker writes its slot's number once it accepts. */
static void on_ready(evutil_socket_t fd, short what, void *arg) {
    (void)what;
    run *r = arg;
    unsigned slots[64];
    ssize_t got = read(fd, slots, sizeof slots);
    for (ssize_t k = 0; k + (ssize_t)sizeof slots[0] <= got; k += (ssize_t)sizeof slots[0]) {
        unsigned i = slots[k / (ssize_t)sizeof slots[0]];
        if (i >= r->sv->n || r->w[i].was_ready)
            continue;
        r->w[i].was_ready = true;
        if (!r->all_ready && ++r->ready_count == r->sv->n) {
            r->all_ready = true;
            if (r->sv->on_ready != NULL)
                r->sv->on_ready(r->sv->arg);
        }
    }
}

static void on_tick(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what;
    run *r = arg;
    if (r->sv->tick != NULL)
        r->sv->tick(r->sv->arg);
}

int supervisor_run(supervisor *sv) {
    run r;
    memset(&r, 0, sizeof r);
    r.sig_fd = -1;
    r.sv = sv;
    r.reserve_fd = -1;
    r.ready[0] = r.ready[1] = -1;
    /* Blocked before the first worker starts: a worker inherits them
     * blocked and takes them once its loop handles them
     * (workers_unblock_signals). */
    sigemptyset(&r.sigs);
    sigaddset(&r.sigs, SIGTERM);
    sigaddset(&r.sigs, SIGINT);
    sigaddset(&r.sigs, SIGHUP);
    sigaddset(&r.sigs, SIGCHLD);
    sigprocmask(SIG_BLOCK, &r.sigs, &r.old_mask);
    r.sig_fd = signalfd(-1, &r.sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    r.w = calloc(sv->n, sizeof *r.w);
    r.base = event_base_new();
    r.reserve_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    /* The service manager hears from the supervisor alone. */
    size_t nenv = 0;
    while (environ[nenv] != NULL)
        nenv++;
    r.envp = calloc(nenv + 1, sizeof *r.envp);
    for (size_t e = 0, k = 0; r.envp != NULL && e < nenv; e++)
        if (strncmp(environ[e], "NOTIFY_SOCKET=", 14) != 0)
            r.envp[k++] = environ[e];
    sv->sh->supervisor = getpid();
    int status = 1;
    if (sv->ninherit > WORKER_INHERIT_MAX) {
        log_msg(LOG_ERROR, "cannot start the workers: more than %d listeners", WORKER_INHERIT_MAX);
        goto out;
    }
    if (r.w == NULL || r.base == NULL || r.reserve_fd < 0 || r.sig_fd < 0 || r.envp == NULL ||
        pipe2(r.ready, O_NONBLOCK | O_CLOEXEC) != 0) {
        log_msg(LOG_ERROR, "cannot start the workers: %s", strerror(errno));
        goto out;
    }
    r.ev_sig = event_new(r.base, r.sig_fd, EV_READ | EV_PERSIST, on_signal, &r);
    r.ev_reserve = event_new(r.base, r.reserve_fd, EV_READ | EV_PERSIST, on_reserve, &r);
    r.ev_ready = event_new(r.base, r.ready[0], EV_READ | EV_PERSIST, on_ready, &r);
    r.ev_restart = evtimer_new(r.base, on_restart, &r);
    r.ev_kill = evtimer_new(r.base, on_kill, &r);
    r.ev_tick = event_new(r.base, -1, EV_PERSIST, on_tick, &r);
    if (r.ev_sig == NULL || r.ev_reserve == NULL || r.ev_ready == NULL || r.ev_restart == NULL || r.ev_kill == NULL ||
        r.ev_tick == NULL) {
        log_msg(LOG_ERROR, "out of memory");
        goto out;
    }
    /* The signals' events first: a worker's death or a SIGTERM while the
     * workers start is not missed. */
    event_add(r.ev_sig, NULL);
    event_add(r.ev_reserve, NULL);
    event_add(r.ev_ready, NULL);
    struct timeval tv = {(time_t)(sv->period_ms / 1000), (suseconds_t)(sv->period_ms % 1000) * 1000};
    event_add(r.ev_tick, &tv);
    for (unsigned i = 0; i < sv->n; i++)
        if (spawn(&r, i) < 0) {
            begin_stop(&r);
            r.failed = true;
            break;
        }
    event_base_dispatch(r.base);
    /* Gone already, or being killed: the final mark is written only after every worker. */
    while (running(&r) > 0) {
        int ws;
        pid_t pid = waitpid(-1, &ws, 0);
        if (pid < 0 && errno != EINTR)
            break;
        for (unsigned i = 0; i < sv->n; i++)
            if (pid > 0 && r.w[i].pid == pid) {
                r.w[i].pid = 0;
                atomic_fetch_sub(&sv->sh->workers, 1);
            }
    }
    status = r.failed ? 1 : 0;
out:;
    struct event *evs[] = {r.ev_sig, r.ev_reserve, r.ev_ready, r.ev_restart, r.ev_kill, r.ev_tick};
    for (size_t k = 0; k < sizeof evs / sizeof evs[0]; k++)
        if (evs[k] != NULL)
            event_free(evs[k]);
    if (r.base != NULL)
        event_base_free(r.base);
    if (r.reserve_fd >= 0)
        close(r.reserve_fd);
    if (r.sig_fd >= 0)
        close(r.sig_fd);
    sigprocmask(SIG_SETMASK, &r.old_mask, NULL);
    for (int k = 0; k < 2; k++)
        if (r.ready[k] >= 0)
            close(r.ready[k]);
    free(r.envp);
    free(r.w);
    return status;
}
