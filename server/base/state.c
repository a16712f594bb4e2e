/* SPDX-License-Identifier: MIT */
/*
 * state.c - the state directory.
 *
 * The mark is written ahead of use: before an ID may carry timestamp t,
 * the state file already says t or later. A server that restarts (after a
 * crash, a reboot, or with the clock set back) reads the mark and issues
 * nothing at or before it, so it cannot repeat an ID it issued before.
 * That holds only for the same ID space, so the file also records what the
 * IDs depend on (the node id, each format's epoch and bit layout) and a
 * start with other values is refused. The file is replaced atomically and
 * ends with a checksum, so a crash mid-write leaves the old file, and a
 * damaged one is refused rather than read as an older mark.
 *
 * File (version 2):
 *   mintidd-state 2
 *   mark <Unix ms>
 *   node <n>|leased
 *   format <name> epoch=<Unix ms> floor=<Unix ms> layout=<bits>:<field>/<width>,...
 *   check <FNV-1a 64 of every byte before this line, 16 hex digits>
 */
#include "base/state.h"

#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define STATE_FILE "state"
#define STATE_TMP "state.tmp"
#define PID_FILE "pid"
#define STATE_MAX_BYTES 16384
#define RETRY_MS 200  /* a failed write is tried again this often */
#define CHECK_MS 1000 /* an idle writer looks at the state directory's path this often */

static uint64_t fnv1a64(const char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 0x100000001b3u;
    }
    return h;
}

/* The layout of fmt as recorded: its width and its fields, most significant first. */
static void layout_of(const mintid_format *fmt, char *buf, size_t cap) {
    size_t n = (size_t)snprintf(buf, cap, "%u:", fmt->bits);
    for (unsigned i = 0; i < fmt->nfields && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s/%u", i ? "," : "", fmt->fields[i].name, fmt->fields[i].width);
}

/* A Unix ms value of the file: a decimal of at most 18 digits. */
static bool parse_ms(const char *s, size_t len, int64_t *out) {
    uint64_t v;
    if (!config_parse_decimal(s, len, UINT64_C(999999999999999999), &v))
        return false;
    *out = (int64_t)v;
    return true;
}

/* Copies `what` of a line for a message, escaped. */
static const char *shown(const char *s, size_t len, char *buf, size_t cap) {
    mintid_escape(s, len, buf, cap);
    return buf;
}

static int parse_fail(const char *path, unsigned line, const char *why) {
    log_msg(LOG_ERROR,
            "state file %s, line %u: %s; refusing to start, since a mark that cannot be read cannot be honoured "
            "(restore the file from a backup, or see docs/server.md on a damaged state file)",
            path, line, why);
    return -1;
}

/* Parses "format NAME epoch=N floor=N layout=S" (without "format "). */
static int parse_format_line(state *st, const char *path, unsigned lineno, const char *p, const char *e) {
    char msg[400], esc[MINTID_ESCAPED_MAX];
    const char *sp = memchr(p, ' ', (size_t)(e - p));
    if (sp == NULL)
        return parse_fail(path, lineno, "a format line without its parameters");
    const mintid_format *fmt;
    char why[MINTID_WHY_MAX];
    if (mintid_lookup_format(p, (size_t)(sp - p), &fmt, why, sizeof why) != MINTID_OK)
        return parse_fail(path, lineno, why);
    state_format *f = &st->formats[fmt->id];
    if (f->present)
        return parse_fail(path, lineno, "a format recorded twice");
    static const char *const keys[] = {" epoch=", " floor=", " layout="};
    const char *q = sp;
    for (int k = 0; k < 3; k++) {
        size_t kl = strlen(keys[k]);
        if ((size_t)(e - q) < kl || memcmp(q, keys[k], kl) != 0) {
            snprintf(msg, sizeof msg, "expected '%s' in the line of %s", keys[k] + 1, fmt->name);
            return parse_fail(path, lineno, msg);
        }
        q += kl;
        const char *v = q;
        while (q < e && *q != ' ')
            q++;
        if (k < 2) {
            if (!parse_ms(v, (size_t)(q - v), k == 0 ? &f->epoch_ms : &f->floor_ms)) {
                snprintf(msg, sizeof msg, "%s of %s is '%s', not Unix ms", k == 0 ? "epoch" : "floor", fmt->name,
                         shown(v, (size_t)(q - v), esc, sizeof esc));
                return parse_fail(path, lineno, msg);
            }
        } else {
            if (q != e || q == v || (size_t)(q - v) >= STATE_LAYOUT_MAX)
                return parse_fail(path, lineno, "a malformed layout");
            memcpy(f->layout, v, (size_t)(q - v));
            f->layout[q - v] = '\0';
        }
    }
    f->present = true;
    return 0;
}

/* Parses the text of a version-2 file after its first line. */
static int parse_v2(state *st, const char *path, const char *buf, size_t n, const char *body) {
    char msg[400], esc[MINTID_ESCAPED_MAX];
    bool have_mark = false, have_node = false;
    unsigned lineno = 1;
    int64_t mark = 0;
    for (const char *p = body; p < buf + n;) {
        lineno++;
        const char *e = memchr(p, '\n', (size_t)(buf + n - p));
        if (e == NULL)
            return parse_fail(path, lineno, "the file is truncated (no end of line)");
        if (e - p > 5 && memcmp(p, "check ", 6) == 0) {
            char want[17];
            snprintf(want, sizeof want, "%016" PRIx64, fnv1a64(buf, (size_t)(p - buf)));
            if (e - (p + 6) != 16 || memcmp(p + 6, want, 16) != 0)
                return parse_fail(path, lineno, "the checksum does not match: the file was changed or damaged");
            if (e + 1 != buf + n)
                return parse_fail(path, lineno + 1, "text after the checksum line");
            if (!have_mark || !have_node)
                return parse_fail(path, lineno, !have_mark ? "no mark line" : "no node line");
            st->start_mark = mark;
            atomic_store(&st->mark, mark);
            atomic_store(&st->wanted, mark);
            return 0;
        }
        if (e - p > 4 && memcmp(p, "mark ", 5) == 0) {
            if (have_mark)
                return parse_fail(path, lineno, "the mark recorded twice");
            if (!parse_ms(p + 5, (size_t)(e - (p + 5)), &mark)) {
                snprintf(msg, sizeof msg, "the mark '%s' is not Unix ms",
                         shown(p + 5, (size_t)(e - p - 5), esc, sizeof esc));
                return parse_fail(path, lineno, msg);
            }
            have_mark = true;
        } else if (e - p > 4 && memcmp(p, "node ", 5) == 0) {
            int64_t node;
            size_t len = (size_t)(e - (p + 5));
            if (have_node)
                return parse_fail(path, lineno, "the node recorded twice");
            if (!(len == 6 && memcmp(p + 5, "leased", 6) == 0) &&
                !(parse_ms(p + 5, len, &node) && (uint64_t)node <= config_node_max())) {
                snprintf(msg, sizeof msg, "the node '%s' is neither 0..%" PRIu64 " nor 'leased'",
                         shown(p + 5, len, esc, sizeof esc), config_node_max());
                return parse_fail(path, lineno, msg);
            }
            memcpy(st->node, p + 5, len);
            st->node[len] = '\0';
            have_node = true;
        } else if (e - p > 6 && memcmp(p, "format ", 7) == 0) {
            if (parse_format_line(st, path, lineno, p + 7, e) != 0)
                return -1;
        } else {
            snprintf(msg, sizeof msg, "unexpected line '%s'", shown(p, (size_t)(e - p), esc, sizeof esc));
            return parse_fail(path, lineno, msg);
        }
        p = e + 1;
    }
    return parse_fail(path, lineno, "the file is truncated (no checksum line)");
}

/* The line number of p in buf, from 1. */
static unsigned line_of(const char *buf, const char *p) {
    unsigned line = 1;
    for (const char *q = buf; q < p; q++)
        line += *q == '\n';
    return line;
}

static int read_state(state *st, bool used_before) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", st->dir, STATE_FILE);
    int fd = openat(st->dir_fd, STATE_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        if (errno == ENOENT && !used_before) {
            st->version = 0;
            return 0;
        }
        if (errno == ENOENT) {
            log_msg(LOG_ERROR,
                    "state file %s is missing from a state directory a server used before (its pid file is "
                    "there): without its mark, IDs issued before could be issued again. Restore it from a backup, "
                    "or, if the clock has certainly not gone back since the last ID, remove the directory to start "
                    "afresh",
                    path);
            return -1;
        }
        log_msg(LOG_ERROR, "state file %s: %s", path, strerror(errno));
        return -1;
    }
    char *buf = malloc(STATE_MAX_BYTES + 1);
    if (buf == NULL) {
        close(fd);
        log_msg(LOG_ERROR, "out of memory");
        return -1;
    }
    size_t n = 0;
    for (;;) {
        ssize_t r = read(fd, buf + n, STATE_MAX_BYTES + 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            log_msg(LOG_ERROR, "state file %s: %s", path, strerror(errno));
            close(fd);
            free(buf);
            return -1;
        }
        if (r == 0 || (n += (size_t)r) > STATE_MAX_BYTES)
            break;
    }
    close(fd);
    int rc;
    const char *nl = memchr(buf, '\n', n);
    if (n > STATE_MAX_BYTES)
        rc = parse_fail(path, 0, "the file is larger than any state file");
    else if (n == 0)
        rc = parse_fail(path, 1, "the file is empty");
    else if (memchr(buf, '\0', n) != NULL)
        rc = parse_fail(path, line_of(buf, (const char *)memchr(buf, '\0', n)), "the file holds a NUL byte");
    else if (nl == NULL || (size_t)(nl - buf) < 15 || memcmp(buf, "mintidd-state ", 14) != 0)
        rc = parse_fail(path, 1, "not a mintidd state file (it must start with 'mintidd-state')");
    else if (nl - buf == 15 && buf[14] == '2') {
        st->version = 2;
        rc = parse_v2(st, path, buf, n, nl + 1);
    } else if (nl - buf == 15 && buf[14] == '1') {
        /* Version 1: the mark alone, exactly as its writer wrote it. */
        int64_t mark;
        const char *p = nl + 1, *e = memchr(p, '\n', (size_t)(buf + n - p));
        if (e == NULL || e + 1 != buf + n || e - p < 6 || memcmp(p, "mark ", 5) != 0 ||
            !parse_ms(p + 5, (size_t)(e - p - 5), &mark)) {
            rc = parse_fail(path, 2, "a version 1 file must hold exactly 'mark <Unix ms>'");
        } else {
            st->version = 1;
            st->start_mark = mark;
            atomic_store(&st->mark, mark);
            atomic_store(&st->wanted, mark);
            rc = 0;
        }
    } else {
        char esc[MINTID_ESCAPED_MAX], msg[400];
        snprintf(msg, sizeof msg, "unknown version '%s' (this mintidd reads versions 1 and 2)",
                 shown(buf + 14, (size_t)(nl - buf - 14), esc, sizeof esc));
        rc = parse_fail(path, 1, msg);
    }
    free(buf);
    return rc;
}

/*
 * The pid holding the flock on the directory, from the kernel's list of
 * locks (/proc/locks: "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE ..."), so
 * that it is named even when an operator deleted the pid file. 0 if unknown.
 */
static long lock_holder(int dir_fd) {
    struct stat sb;
    FILE *f;
    if (fstat(dir_fd, &sb) != 0 || (f = fopen("/proc/locks", "re")) == NULL)
        return 0;
    char line[256], want[64];
    snprintf(want, sizeof want, "%02x:%02x:%llu", major(sb.st_dev), minor(sb.st_dev), (unsigned long long)sb.st_ino);
    long pid = 0;
    while (pid == 0 && fgets(line, sizeof line, f) != NULL) {
        char *save = NULL, *tok[6];
        int n = 0;
        for (char *t = strtok_r(line, " \t\n", &save); t != NULL && n < 6; t = strtok_r(NULL, " \t\n", &save))
            tok[n++] = t;
        if (n < 6 || strcmp(tok[1], "FLOCK") != 0 || strcmp(tok[5], want) != 0)
            continue;
        char *end;
        errno = 0;
        long v = strtol(tok[4], &end, 10);
        if (*end == '\0' && errno == 0 && v > 0)
            pid = v;
    }
    fclose(f);
    return pid;
}

/* The pid of the server holding the directory, for a message: the kernel's, else its pid file's. */
static void read_pid(int dir_fd, char *pid, size_t cap) {
    long holder = lock_holder(dir_fd);
    if (holder > 0) {
        snprintf(pid, cap, "%ld", holder);
        return;
    }
    pid[0] = '\0';
    int fd = openat(dir_fd, PID_FILE, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    ssize_t n = read(fd, pid, cap - 1);
    close(fd);
    pid[n > 0 ? n : 0] = '\0';
    pid[strspn(pid, "0123456789")] = '\0';
}

int state_open(state *st, const char *dir) {
    memset(st, 0, sizeof *st);
    st->dir_fd = -1;
    if (strlen(dir) >= sizeof st->dir) {
        log_msg(LOG_ERROR, "state directory name too long");
        return -1;
    }
    memcpy(st->dir, dir, strlen(dir) + 1);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        log_msg(LOG_ERROR, "state directory %s: %s", dir, strerror(errno));
        return -1;
    }
    /* The lock is on the directory itself: deleting a file in it releases nothing. */
    st->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (st->dir_fd < 0) {
        log_msg(LOG_ERROR, "state directory %s: %s", dir, strerror(errno));
        return -1;
    }
    if (flock(st->dir_fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32];
        int err = errno;
        read_pid(st->dir_fd, pid, sizeof pid);
        if (err == EWOULDBLOCK)
            log_msg(LOG_ERROR,
                    "state directory %s is in use by another mintidd (pid %s); two servers must not share a state "
                    "directory, so this one will not start",
                    dir, pid[0] ? pid : "unknown");
        else
            log_msg(LOG_ERROR, "state directory %s: cannot lock it: %s", dir, strerror(err));
        close(st->dir_fd);
        st->dir_fd = -1;
        return -1;
    }
    struct stat sb;
    if (fstat(st->dir_fd, &sb) != 0) {
        log_msg(LOG_ERROR, "state directory %s: %s", dir, strerror(errno));
        return -1;
    }
    st->dir_dev = sb.st_dev;
    st->dir_ino = sb.st_ino;
    /* A directory with a pid file (or the lock file of earlier versions)
     * was used by a server: its state file must be there. */
    bool used_before = faccessat(st->dir_fd, PID_FILE, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
                       faccessat(st->dir_fd, "lock", F_OK, AT_SYMLINK_NOFOLLOW) == 0;
    /* The writer's waits run on the monotonic clock: a wall clock stepped
     * forward or back must neither hurry nor stall its retries and checks. */
    pthread_condattr_t attr;
    bool ok = pthread_mutex_init(&st->lock, NULL) == 0 && pthread_condattr_init(&attr) == 0;
    if (ok) {
        ok = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 && pthread_cond_init(&st->wake, &attr) == 0;
        pthread_condattr_destroy(&attr);
    }
    if (!ok) {
        log_msg(LOG_ERROR, "out of memory");
        return -1;
    }
    return read_state(st, used_before);
}

static void expected_node(const config *cfg, bool leased, char *buf, size_t cap) {
    if (leased)
        snprintf(buf, cap, "leased");
    else
        snprintf(buf, cap, "%" PRIu64, cfg->node);
}

int state_check_params(state *st, const config *cfg, bool leased, bool adopt) {
    char node[sizeof st->node], when[MINTID_TIME_MAX];
    expected_node(cfg, leased, node, sizeof node);
    if (st->version == 1)
        log_msg(LOG_WARN,
                "state file version 1 recorded no parameters; recording node %s and every format's epoch "
                "and layout now",
                node);
    int changes = 0;
    if (st->version == 2 && strcmp(st->node, node) != 0) {
        changes++;
        log_msg(adopt ? LOG_WARN : LOG_ERROR, "node changed from %s to %s since the state was written%s", st->node,
                node,
                adopt ? "; adopted: no other server may have issued IDs as the new node"
                      : ": IDs of the new node could repeat ones another server issued with it. To move on "
                        "safely, start with the recorded node, or, if no other server ever used the new one, "
                        "start once with --adopt-params 1");
    }
    int64_t mark = atomic_load(&st->mark);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        state_format *f = &st->formats[i];
        char layout[STATE_LAYOUT_MAX];
        int64_t epoch = config_epoch(cfg, fmt);
        layout_of(fmt, layout, sizeof layout);
        if (st->version == 2 && f->present && strcmp(f->layout, layout) != 0) {
            changes++;
            log_msg(adopt ? LOG_WARN : LOG_ERROR,
                    "%s: the bit layout changed from %s to %s since the state was written%s", fmt->name, f->layout,
                    layout,
                    adopt ? "; adopted: IDs of the old layout are not comparable with new ones"
                          : ": this mintidd lays out the format differently from the one that wrote the state, so "
                            "its IDs could repeat earlier ones. Run the version that wrote it, or start once with "
                            "--adopt-params 1 to take the new layout");
        }
        if (st->version == 2 && f->present && f->epoch_ms != epoch) {
            changes++;
            /* An ID's timestamp field is (time - epoch), in the format's
             * units: under a later epoch the fields of old IDs come round
             * again after the mark (the library's one record of it). */
            int64_t d = epoch - f->epoch_ms;
            int64_t moved = mintid_epoch_change_floor(fmt, f->epoch_ms, epoch, mark > f->floor_ms ? mark : f->floor_ms);
            int64_t floor = moved > f->floor_ms ? moved : f->floor_ms;
            d = moved > f->floor_ms ? d : 0;
            if (mintid_format_time(floor, when, sizeof when) < 0) /* past year 9999 */
                snprintf(when, sizeof when, "Unix ms %" PRId64, floor);
            if (adopt) {
                log_msg(LOG_WARN, "%s-epoch changed from %" PRId64 " to %" PRId64 "; adopted%s%s", fmt->name,
                        f->epoch_ms, epoch, d > 0 ? ": no new ID of the format until " : "", d > 0 ? when : "");
                f->floor_ms = floor;
            } else {
                log_msg(LOG_ERROR,
                        "%s-epoch changed from %" PRId64 " to %" PRId64
                        " since the state was written: IDs under the new epoch could repeat ones already issued. "
                        "To move on safely, start with --%s-epoch %" PRId64
                        ", or start once with --adopt-params 1 to take the new epoch%s%s",
                        fmt->name, f->epoch_ms, epoch, fmt->name, f->epoch_ms,
                        d > 0 ? " (the format then issues nothing until " : "", d > 0 ? when : "");
                if (d > 0)
                    log_msg(LOG_ERROR, "(the wait above ends at %s)", when);
            }
        }
    }
    if (changes > 0 && !adopt) {
        log_msg(LOG_ERROR, "%d parameter%s changed since the state in %s was written; not starting", changes,
                changes > 1 ? "s" : "", st->dir);
        return -1;
    }
    /* From here the state records the parameters in force. */
    memcpy(st->node, node, sizeof node);
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        const mintid_format *fmt = mintid_format_get((mintid_format_id)i);
        state_format *f = &st->formats[i];
        f->epoch_ms = config_epoch(cfg, fmt);
        layout_of(fmt, f->layout, sizeof f->layout);
        if (!f->present)
            f->floor_ms = 0;
        f->present = true;
    }
    return 0;
}

/* ---- writing -------------------------------------------------------------------------- */

static int write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/*
 * Writes the file with exactly `mark`. Only the lock holder gets here, so
 * a temporary file that exists is a dead holder's leftover: it is removed,
 * and the new one is created exclusively.
 */
static int write_file(state *st, int64_t mark) {
    char buf[4096];
    size_t n = (size_t)snprintf(buf, sizeof buf, "mintidd-state 2\nmark %" PRId64 "\nnode %s\n", mark, st->node);
    for (int i = 0; i < MINTID_FORMAT_COUNT && n < sizeof buf; i++) {
        const state_format *f = &st->formats[i];
        n += (size_t)snprintf(buf + n, sizeof buf - n, "format %s epoch=%" PRId64 " floor=%" PRId64 " layout=%s\n",
                              mintid_format_get((mintid_format_id)i)->name, f->epoch_ms, f->floor_ms, f->layout);
    }
    if (n + 24 >= sizeof buf) {
        errno = ENOBUFS;
        return -1;
    }
    n += (size_t)snprintf(buf + n, sizeof buf - n, "check %016" PRIx64 "\n", fnv1a64(buf, n));
    int fd = openat(st->dir_fd, STATE_TMP, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 && errno == EEXIST) {
        unlinkat(st->dir_fd, STATE_TMP, 0);
        fd = openat(st->dir_fd, STATE_TMP, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    }
    if (fd < 0)
        return -1;
    if (write_all(fd, buf, n) != 0 || fsync(fd) != 0) {
        int err = errno;
        close(fd);
        unlinkat(st->dir_fd, STATE_TMP, 0);
        errno = err;
        return -1;
    }
    if (close(fd) != 0 || renameat(st->dir_fd, STATE_TMP, st->dir_fd, STATE_FILE) != 0) {
        int err = errno;
        unlinkat(st->dir_fd, STATE_TMP, 0);
        errno = err;
        return -1;
    }
    /* The rename is durable only once the directory is. */
    if (fsync(st->dir_fd) != 0)
        return -1;
    return 0;
}

/* The pid file says who holds the directory; it is informational: the lock is the directory's flock. */
static void write_pid(state *st) {
    char pid[32];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    int fd = openat(st->dir_fd, PID_FILE, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 || write_all(fd, pid, (size_t)n) != 0)
        log_msg(LOG_WARN, "could not record the pid in %s/%s: %s", st->dir, PID_FILE, strerror(errno));
    if (fd >= 0)
        close(fd);
}

bool state_dir_ours(state *st) {
    struct stat sb;
    char why[128];
    why[0] = '\0';
    if (stat(st->dir, &sb) != 0)
        snprintf(why, sizeof why, "%s", strerror(errno));
    else if (sb.st_dev != st->dir_dev || sb.st_ino != st->dir_ino)
        snprintf(why, sizeof why, "it names another directory now");
    bool lost = why[0] != '\0';
    if (atomic_exchange(&st->dir_lost, lost) != lost) {
        if (lost)
            log_msg(LOG_ERROR,
                    "the state directory %s is no longer the one this server locked (%s): it was deleted, renamed "
                    "or replaced, so a server started on that path would not find this one's lock or mark. No ID "
                    "is issued until the path names the locked directory again; restart this server to lock the "
                    "directory the path names now",
                    st->dir, why);
        else
            log_msg(LOG_INFO, "the state directory %s is the one this server locked again; minting resumes", st->dir);
    }
    return !lost;
}

/* Writes `mark` and publishes it. Logs failures once per run of them. */
static int commit(state *st, int64_t mark) {
    /* Nothing is written to a directory the path no longer names: its mark
     * would cover IDs no server on the path can see. */
    if (!state_dir_ours(st))
        return -1;
    if (write_file(st, mark) != 0) {
        atomic_fetch_add(&st->failures, 1);
        if (!atomic_exchange(&st->failing, true))
            log_msg(LOG_ERROR, "writing the state file %s/%s: %s; no ID is issued beyond its mark until it can be",
                    st->dir, STATE_FILE, strerror(errno));
        return -1;
    }
    if (atomic_exchange(&st->failing, false))
        log_msg(LOG_INFO, "the state file %s/%s is written again", st->dir, STATE_FILE);
    if (atomic_fetch_add(&st->writes, 1) == 0)
        write_pid(st);
    atomic_store(&st->mark, mark);
    return 0;
}

int state_write_now(state *st, int64_t mark) {
    int64_t cur = atomic_load(&st->mark);
    return commit(st, mark > cur ? mark : cur);
}

int state_write_final(state *st, int64_t last_issued) {
    /* Lower than the reservation, but never below what any run may have
     * issued: this run's last ID, and the mark found at start. */
    int64_t mark = last_issued > st->start_mark ? last_issued : st->start_mark;
    if (mark == 0)
        return 0;
    return commit(st, mark);
}

/* Waits on st->wake (locked) for up to ms, on the monotonic clock. */
static void wait_ms(state *st, long ms) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += ms * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&st->wake, &st->lock, &until);
}

static void *writer_main(void *arg) {
    state *st = arg;
    pthread_mutex_lock(&st->lock);
    while (!st->stop) {
        int64_t want = atomic_load(&st->wanted), have = atomic_load(&st->mark);
        if (want <= have) {
            /* Idle, the path is still looked at every CHECK_MS: a server
             * whose directory went must stop minting before its next write. */
            pthread_mutex_unlock(&st->lock);
            state_dir_ours(st);
            pthread_mutex_lock(&st->lock);
            if (!st->stop && atomic_load(&st->wanted) <= atomic_load(&st->mark))
                wait_ms(st, CHECK_MS);
            continue;
        }
        pthread_mutex_unlock(&st->lock);
        int rc = commit(st, want);
        pthread_mutex_lock(&st->lock);
        if (rc != 0 && !st->stop)
            wait_ms(st, RETRY_MS);
    }
    pthread_mutex_unlock(&st->lock);
    return NULL;
}

int state_writer_start(state *st) {
    if (log_thread_create(&st->writer, writer_main, st) != 0) {
        log_msg(LOG_ERROR, "cannot start the state writer thread");
        return -1;
    }
    st->writer_running = true;
    return 0;
}

void state_request(state *st, int64_t mark) {
    int64_t want = atomic_load(&st->wanted);
    while (mark > want && !atomic_compare_exchange_weak(&st->wanted, &want, mark)) {
    }
    if (mark > atomic_load(&st->mark)) {
        pthread_mutex_lock(&st->lock);
        pthread_cond_signal(&st->wake);
        pthread_mutex_unlock(&st->lock);
    }
}

void state_writer_stop(state *st) {
    if (!st->writer_running)
        return;
    pthread_mutex_lock(&st->lock);
    st->stop = true;
    pthread_cond_signal(&st->wake);
    pthread_mutex_unlock(&st->lock);
    pthread_join(st->writer, NULL);
    st->writer_running = false;
}

int state_file_write(const char *dir, const char *name, const char *text, size_t len, mode_t mode) {
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(tmp, sizeof tmp, "%s.new", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
    bool ok = fd >= 0 && write_all(fd, text, len) == 0 && fsync(fd) == 0;
    if (fd >= 0 && close(fd) != 0)
        ok = false;
    ok = ok && rename(tmp, path) == 0;
    int dfd = ok ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    ok = ok && dfd >= 0 && fsync(dfd) == 0;
    int saved = errno;
    if (dfd >= 0)
        close(dfd);
    if (!ok)
        unlink(tmp);
    errno = saved;
    return ok ? 0 : -1;
}

void state_close(state *st) {
    state_writer_stop(st);
    if (st->dir_fd >= 0) {
        flock(st->dir_fd, LOCK_UN);
        close(st->dir_fd);
        st->dir_fd = -1;
    }
}
