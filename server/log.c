/*
 * log.c - logging. Lines are written whole with one write(), so lines from
 * a crash handler or a second thread never interleave mid-line.
 */
#include "log.h"

#include "mintid.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

log_level log_threshold = LOG_INFO;

static const char *const names[] = {"error", "warn", "info", "debug"};

int log_level_find(const char *name) {
    for (int i = 0; i < 4; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

void log_msg(log_level level, const char *fmt, ...) {
    if (level > log_threshold)
        return;
    char line[1024];
    int64_t now = 0;
    mintid_clock_system(NULL, &now);
    int n = mintid_format_time(now, line, sizeof line);
    if (n < 0)
        n = 0;
    n += snprintf(line + n, sizeof line - (size_t)n, " %-5s ", names[level]);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        m = 0;
    n = n + m < (int)sizeof line - 1 ? n + m : (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w; /* nowhere left to report a failing stderr */
}
