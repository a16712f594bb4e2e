/*
 * log.h - one line per event on stderr: time, level, message.
 */
#ifndef MINTIDD_LOG_H
#define MINTIDD_LOG_H

typedef enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG } log_level;

extern log_level log_threshold;

void log_msg(log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The level with this name ("error", "warn", "info", "debug"), or -1. */
int log_level_find(const char *name);

#endif
