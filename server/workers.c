/* SPDX-License-Identifier: MIT */
/*
 * workers.c - the supervisor of the worker processes (workers.h): forks,
 * restarts with a back-off, forwards SIGHUP, stops them all on SIGTERM or
 * SIGINT, and wakes the state writer when a worker asks for a mark.
 */
#include "workers.h"

#include "forkgate.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <event2/event.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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
    int sig_fd; /* the signals below, blocked and read here: the workers' loops take them with libevent */
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

/* A restart put off while the supervisor's other threads hold the fork gate. */
#define GATE_RETRY_MS 10u

/*
 * Forks the worker of slot i. Returns its pid, -1 after logging, or, when
 * wait is false and another thread holds the fork gate (the lease thread
 * in a round of etcd requests), 0 at once: the supervisor's loop, which
 * passes the workers' asks for a mark on to the state writer, does not
 * wait on it.
 */
static pid_t spawn(run *r, unsigned i, bool wait) {
    supervisor *sv = r->sv;
    worker_ctx wc = {.slot = i, .n = sv->n, .reserve_fd = r->reserve_fd, .ready_fd = r->ready[1]};
    pid_t parent = getpid();
    /* The other threads wait where they hold no library's lock
     * (forkgate.h); the gate is closed before the claim's lock is taken, as
     * the lease thread takes that lock inside the gate. The lease thread
     * moves the claim under its lock: the child's copy is whole, and the
     * child closes the one descriptor it names. */
    if (wait)
        fork_gate_close();
    else if (!fork_gate_try_close())
        return 0;
    if (sv->claim != NULL)
        pthread_mutex_lock(&sv->claim->lock);
    pid_t pid = fork();
    if (pid == 0) {
        fork_gate_open_child();
        if (sv->claim != NULL && sv->claim->fd >= 0)
            close(sv->claim->fd);
        close(r->sig_fd);
        /* A worker never outlives its supervisor: nothing would bound its
         * mints by the state file and the lease any more. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(1);
        close(r->ready[0]);
        /* The service manager hears from the supervisor alone. */
        unsetenv("NOTIFY_SOCKET");
        log_after_fork();
        int status = sv->run(sv->arg, &wc);
        log_stop();
        _exit(status);
    }
    int err = errno;
    if (sv->claim != NULL)
        pthread_mutex_unlock(&sv->claim->lock);
    fork_gate_open();
    if (pid < 0) {
        log_msg(LOG_ERROR, "cannot start worker %u: %s", i, strerror(err));
        return -1;
    }
    r->w[i].pid = pid;
    r->w[i].born_ns = mono_ns();
    r->w[i].was_ready = false;
    atomic_fetch_add(&sv->sh->workers, 1);
    return pid;
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
        pid_t pid = spawn(r, i, false);
        if (pid == 0) {
            r->w[i].due_ns = now + (uint64_t)GATE_RETRY_MS * 1000000u;
            continue;
        }
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
    /* Blocked before the first fork: a worker inherits them blocked and
     * takes them once its loop handles them (workers_unblock_signals). */
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
    int status = 1;
    if (r.w == NULL || r.base == NULL || r.reserve_fd < 0 || r.sig_fd < 0 ||
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
    /* The signals' events first: a worker's death or a SIGTERM during the
     * forks is not missed. */
    event_add(r.ev_sig, NULL);
    event_add(r.ev_reserve, NULL);
    event_add(r.ev_ready, NULL);
    struct timeval tv = {(time_t)(sv->period_ms / 1000), (suseconds_t)(sv->period_ms % 1000) * 1000};
    event_add(r.ev_tick, &tv);
    for (unsigned i = 0; i < sv->n; i++)
        if (spawn(&r, i, true) < 0) {
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
    free(r.w);
    return status;
}
