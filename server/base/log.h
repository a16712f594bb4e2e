/* SPDX-License-Identifier: MIT */
/*
 * log.h - one line per event on stderr: time, level, message. Lines go
 * through a bounded buffer that a thread of its own writes out, so a
 * stderr nobody reads never blocks the event loop; what does not fit is
 * dropped and counted.
 */
#ifndef MINTIDD_LOG_H
#define MINTIDD_LOG_H

#include <pthread.h>
#include <stdint.h>

typedef enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG } log_level;

extern log_level log_threshold;

void log_msg(log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The level with this name ("error", "warn", "info", "debug"), or -1. */
int log_level_find(const char *name);

/*
 * Starts the thread that writes queued lines to stderr. Before it (and if
 * it cannot start) lines are written directly. Returns 0 or -1.
 */
int log_start(void);
/*
 * pthread_create() for the server's threads (the log's writer, the state
 * writer, the lease): they never take SIGTERM, SIGINT, SIGHUP or SIGCHLD,
 * which the event loop handles (or a supervisor reads from a signalfd,
 * with them blocked in its own thread). It returns once the thread runs fn.
 */
int log_thread_create(pthread_t *t, void *(*fn)(void *), void *arg);

/*
 * Writes out what is queued, for at most LOG_STOP_SECONDS while stderr
 * takes nothing, and joins the thread; later lines are written directly.
 */
#define LOG_STOP_SECONDS 2
void log_stop(void);

/*
 * A limit on lines a client can trigger: one per call site, used by one
 * thread. At most LOG_LIMIT_LINES lines a second pass; the next line after
 * a second in which some were held back says how many.
 */
#define LOG_LIMIT_LINES 10
typedef struct log_limit {
    uint64_t window_ms; /* monotonic: when the current second began */
    unsigned lines;     /* lines passed in it */
    uint64_t held;      /* lines held back since the last one passed */
} log_limit;
void log_limited(log_limit *lim, log_level level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Lines dropped because the buffer was full or stderr failed, and lines held back by a log_limit. */
uint64_t log_dropped(void);
uint64_t log_held_back(void);

#endif
