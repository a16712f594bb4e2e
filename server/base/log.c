/* SPDX-License-Identifier: MIT */
/*
 * log.c - logging. A line is made whole on the thread that logs it and
 * queued in a bounded buffer; a writer thread of its own takes what is
 * queued and writes it to stderr, whole lines per write(), so lines from
 * different threads never interleave mid-line. Writing to stderr is I/O
 * that can block (a pipe nobody reads): it must never happen on the event
 * loop, and a full buffer drops lines (counted) rather than wait (redis's
 * bio is the model).
 */
#include "base/log.h"

#include "mintid.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

log_level log_threshold = LOG_INFO;

static const char *const names[] = {"error", "warn", "info", "debug"};

#define LINE_MAX_BYTES 1024
/* Lines queued and not yet written: about 500 typical lines. */
#define QUEUE_BYTES 65536
/* How long the writer waits for stderr to take bytes before it looks again
 * whether it should give up (at shutdown). */
#define POLL_MS 100

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool running;  /* the writer thread takes the lines */
    bool stopping; /* log_stop(): write what is queued, then end */
    size_t len;
    char buf[QUEUE_BYTES];
} queue = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static _Atomic uint64_t dropped, held_back;
/* CLOCK_MONOTONIC ns after which the writer drops what stderr does not take; 0 until log_stop(). */
static _Atomic uint64_t give_up_ns;

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int log_level_find(const char *name) {
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

uint64_t log_dropped(void) { return atomic_load(&dropped); }
uint64_t log_held_back(void) { return atomic_load(&held_back); }

static uint64_t count_lines(const char *p, size_t n) {
    uint64_t lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += p[i] == '\n';
    return lines;
}

/*
 * Writes p[0..n), whole lines, to stderr from the writer thread: at most
 * PIPE_BUF bytes per write() once poll() says stderr takes bytes, so that a
 * write to a pipe does not wait for room and a stop is noticed. What
 * stderr refuses (or does not take before a stop's deadline) is dropped.
 */
static void write_out(const char *p, size_t n) {
    while (n > 0) {
        size_t chunk = n;
        if (chunk > PIPE_BUF) {
            chunk = PIPE_BUF;
            while (chunk > 0 && p[chunk - 1] != '\n')
                chunk--;
            if (chunk == 0) /* no line is that long, but never write nothing */
                chunk = PIPE_BUF;
        }
        struct pollfd pfd = {.fd = STDERR_FILENO, .events = POLLOUT};
        int r = poll(&pfd, 1, POLL_MS);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0) {
            uint64_t until = atomic_load(&give_up_ns);
            if (until != 0 && mono_ns() >= until)
                break;
            continue;
        }
        if (pfd.revents & POLLNVAL)
            break;
        ssize_t w = write(STDERR_FILENO, p, chunk);
        if (w < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            break;
        }
        p += w;
        n -= (size_t)w;
    }
    if (n > 0)
        atomic_fetch_add(&dropped, count_lines(p, n));
}

static void *writer_main(void *arg) {
    (void)arg;
    static char out[QUEUE_BYTES];
    pthread_mutex_lock(&queue.lock);
    for (;;) {
        while (queue.len == 0 && !queue.stopping)
            pthread_cond_wait(&queue.wake, &queue.lock);
        if (queue.len == 0)
            break;
        size_t n = queue.len;
        memcpy(out, queue.buf, n);
        queue.len = 0;
        pthread_mutex_unlock(&queue.lock);
        write_out(out, n);
        pthread_mutex_lock(&queue.lock);
    }
    pthread_mutex_unlock(&queue.lock);
    return NULL;
}

typedef struct thread_start {
    void *(*fn)(void *);
    void *arg;
    sem_t running;
} thread_start;

static void *thread_main(void *p) {
    thread_start *ts = p;
    void *(*fn)(void *) = ts->fn;
    void *arg = ts->arg;
    sem_post(&ts->running); /* ts is the creator's, gone from here on */
    return fn(arg);
}

int log_thread_create(pthread_t *t, void *(*fn)(void *), void *arg) {
    thread_start ts = {.fn = fn, .arg = arg};
    if (sem_init(&ts.running, 0, 0) != 0)
        return -1;
    sigset_t sigs, old;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    sigaddset(&sigs, SIGCHLD);
    pthread_sigmask(SIG_BLOCK, &sigs, &old);
    int rc = pthread_create(t, NULL, thread_main, &ts);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0)
        while (sem_wait(&ts.running) != 0 && errno == EINTR) {
        }
    sem_destroy(&ts.running);
    return rc;
}

int log_start(void) {
    pthread_mutex_lock(&queue.lock);
    queue.stopping = false;
    queue.running = log_thread_create(&queue.thread, writer_main, NULL) == 0;
    bool ok = queue.running;
    pthread_mutex_unlock(&queue.lock);
    return ok ? 0 : -1;
}

void log_stop(void) {
    pthread_mutex_lock(&queue.lock);
    if (!queue.running) {
        pthread_mutex_unlock(&queue.lock);
        return;
    }
    atomic_store(&give_up_ns, mono_ns() + (uint64_t)LOG_STOP_SECONDS * 1000000000u);
    queue.stopping = true;
    pthread_cond_signal(&queue.wake);
    pthread_mutex_unlock(&queue.lock);
    pthread_join(queue.thread, NULL);
    pthread_mutex_lock(&queue.lock);
    queue.running = false;
    pthread_mutex_unlock(&queue.lock);
}

/* Queues a whole line, or writes it directly while no writer runs. */
static void emit_line(const char *line, size_t n) {
    pthread_mutex_lock(&queue.lock);
    if (queue.running) {
        if (queue.len + n <= sizeof queue.buf) {
            memcpy(queue.buf + queue.len, line, n);
            queue.len += n;
            pthread_cond_signal(&queue.wake);
        } else {
            atomic_fetch_add(&dropped, 1);
        }
        pthread_mutex_unlock(&queue.lock);
        return;
    }
    pthread_mutex_unlock(&queue.lock);
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w; /* nowhere left to report a failing stderr */
}

static void vlog(log_level level, const char *fmt, va_list ap) {
    char line[LINE_MAX_BYTES];
    int64_t now = 0;
    mintid_clock_system(NULL, &now);
    int n = mintid_format_time(now, line, sizeof line);
    if (n < 0)
        n = 0;
    n += snprintf(line + n, sizeof line - (size_t)n, " %-5s ", names[level]);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    if (m < 0)
        m = 0;
    n = n + m < (int)sizeof line - 1 ? n + m : (int)sizeof line - 2;
    line[n++] = '\n';
    emit_line(line, (size_t)n);
}

void log_msg(log_level level, const char *fmt, ...) {
    if (level > log_threshold)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap);
    va_end(ap);
}

void log_limited(log_limit *lim, log_level level, const char *fmt, ...) {
    if (level > log_threshold)
        return;
    uint64_t now = mono_ns() / 1000000u;
    if (lim->window_ms == 0 || now - lim->window_ms >= 1000) {
        lim->window_ms = now;
        lim->lines = 0;
    }
    if (lim->lines >= LOG_LIMIT_LINES) {
        lim->held++;
        atomic_fetch_add(&held_back, 1);
        return;
    }
    lim->lines++;
    char msg[LINE_MAX_BYTES];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if (lim->held > 0 && (size_t)n < sizeof msg)
        snprintf(msg + n, sizeof msg - (size_t)n, " (%llu lines like this held back before it)",
                 (unsigned long long)lim->held);
    lim->held = 0;
    log_msg(level, "%s", msg);
}
