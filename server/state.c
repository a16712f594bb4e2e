/*
 * state.c - the state directory.
 *
 * The mark is written ahead of use: before an ID may carry timestamp t,
 * the state file already says t or later. A server that restarts (after a
 * crash, a reboot, or with the clock set back) reads the mark and issues
 * nothing at or before it, so it cannot repeat an ID it issued before with
 * the same node id. The file is replaced atomically, so a crash mid-write
 * leaves the old mark, never a torn one.
 */
#include "state.h"

#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATE_MAGIC "mintidd-state 1"

static int path_in(const state *st, const char *name, char *buf, size_t cap) {
    int n = snprintf(buf, cap, "%s/%s", st->dir, name);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

static int read_mark(state *st) {
    char path[512], buf[256];
    if (path_in(st, "state", path, sizeof path) != 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            st->mark = 0;
            return 0;
        }
        log_msg(LOG_ERROR, "state file %s: %s", path, strerror(errno));
        return -1;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0) {
        log_msg(LOG_ERROR, "state file %s: %s", path, strerror(errno));
        return -1;
    }
    buf[n] = '\0';
    long long mark;
    char extra;
    if (sscanf(buf, STATE_MAGIC "\nmark %lld\n%c", &mark, &extra) != 1 || mark < 0) {
        /* A mark we cannot read is one we cannot honour: refuse rather than guess. */
        log_msg(LOG_ERROR,
                "state file %s is not a mintidd state file; move it away only if no IDs were issued "
                "from this directory's node id",
                path);
        return -1;
    }
    st->mark = mark;
    st->start_mark = mark;
    return 0;
}

int state_open(state *st, const char *dir) {
    memset(st, 0, sizeof *st);
    st->lock_fd = -1;
    if (strlen(dir) >= sizeof st->dir) {
        log_msg(LOG_ERROR, "state directory name too long");
        return -1;
    }
    memcpy(st->dir, dir, strlen(dir) + 1);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        log_msg(LOG_ERROR, "state directory %s: %s", dir, strerror(errno));
        return -1;
    }
    char path[512];
    if (path_in(st, "lock", path, sizeof path) != 0)
        return -1;
    st->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (st->lock_fd < 0) {
        log_msg(LOG_ERROR, "lock file %s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(st->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = pread(st->lock_fd, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        log_msg(LOG_ERROR,
                "state directory %s is in use by another mintidd (pid %s); two servers must not share "
                "a node id, so this one will not start",
                dir, pid[0] ? pid : "unknown");
        close(st->lock_fd);
        st->lock_fd = -1;
        return -1;
    }
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(st->lock_fd, 0) != 0 || pwrite(st->lock_fd, pid, (size_t)n, 0) != n)
        log_msg(LOG_WARN, "could not record the pid in %s: %s", path, strerror(errno));
    return read_mark(st);
}

int state_write_mark(state *st, int64_t mark) {
    char path[512], tmp[512], buf[64];
    if (path_in(st, "state", path, sizeof path) != 0 || path_in(st, "state.tmp", tmp, sizeof tmp) != 0)
        return -1;
    int n = snprintf(buf, sizeof buf, STATE_MAGIC "\nmark %" PRId64 "\n", mark);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        goto fail;
    if (write(fd, buf, (size_t)n) != n || fsync(fd) != 0) {
        close(fd);
        goto fail;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0)
        goto fail;
    /* The rename is durable only once the directory is. */
    int dfd = open(st->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fsync(dfd) != 0) {
        if (dfd >= 0)
            close(dfd);
        goto fail;
    }
    close(dfd);
    st->mark = mark;
    st->writes++;
    return 0;
fail:
    log_msg(LOG_ERROR, "writing the state file %s: %s", path, strerror(errno));
    return -1;
}

void state_close(state *st) {
    if (st->lock_fd >= 0) {
        flock(st->lock_fd, LOCK_UN);
        close(st->lock_fd);
        st->lock_fd = -1;
    }
}
