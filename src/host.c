/* SPDX-License-Identifier: MIT */
/*
 * host.c - the host-wide generator's state: a generator core in a small
 * file of shared memory that every process on the host maps, under a
 * process-shared robust mutex; the generator reaches it as one of its
 * stores (store.h), and the host-wide generator's own functions are here
 * (opening one, its path, mintidd's warrant and published node ids).
 *
 * Three things can go wrong beyond what a process generator meets, and
 * each is closed here:
 *
 * - A process dies holding the lock (kill -9 in the middle of a mint). The
 *   next locker gets EOWNERDEAD, and the state may be half written, in
 *   whatever order the compiler stored it: the sequence of a new unit
 *   beside the last unit's timestamp, say. No ID of the dead holder's last
 *   call left it (it died before letting go), and every ID returned before
 *   lies in a unit at or before the recorded last one; so a floor past that
 *   unit makes the state consistent again: the next ID opens a later unit.
 *
 * - The file is deleted or replaced while processes have it mapped. A
 *   process that opens the path then gets a new state, knowing nothing of
 *   the IDs of the old one. Every process looks at the path again (stat,
 *   same device and inode) before it mints, when MINTID_HOST_CHECK_MS have
 *   passed since its last look or the clock stepped back; one that finds
 *   another file there (or none) moves to the path's state, raising its
 *   floor above every unit the old one issued, and marks the old one
 *   replaced, so that the other processes on it move at their next lock.
 *   A state created new has a floor 2 * MINTID_HOST_CHECK_MS ahead: the
 *   time the processes still on an old state take to notice.
 *
 * - A file half created, seen by a process opening the path at that
 *   moment. A new state is written in full under a private name and only
 *   then linked to the path (link() fails if another process won the
 *   race: that one is used).
 *
 * And two things outlive the processes, since the file is on disk:
 *
 * - A reboot, after which the clock may come back behind the last ID (a
 *   VM's clock, an RTC that drifted, NTP stepping after boot). The state
 *   keeps a durable mark: no ID of it carries a time past mark_ms, and the
 *   mark is on disk (msync) before any ID past the old one is handed out,
 *   MINTID_HOST_MARK_AHEAD_MS at a time. A state opened under another boot
 *   id than the one it was written under is recovered: its lock made anew,
 *   its floor raised past the mark, as libuuid reads its clock file.
 *
 * - A lock word that names a holder which is gone without the kernel
 *   freeing it: a file copied (a backup, a snapshot) while a process held
 *   the lock, or left by a power loss. A waiter that times out looks at
 *   the holder the lock word names, as a debugger would: when that thread
 *   is gone, or does not map this file, the lock is made anew and the
 *   floor raised past the mark. Recoveries are serialised by an open file
 *   description lock on the file.
 */
#include "store.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define HOST_MAGIC "mintid-host-gen"
#define HOST_VERSION 3u
#define HOST_REJOIN_TRIES 4
#define BOOT_ID_SIZE 40
#define FUTEX_TID_MASK_ 0x3fffffffu /* the kernel's robust-futex ABI: the owner's thread id */

/* The file's contents. Everything after `lock` is read and written under it. */
struct host_state {
    char magic[16];
    uint32_t version;
    uint32_t size; /* sizeof(struct host_state): a build that lays it out otherwise refuses the file */
    uint32_t format;
    uint32_t ts_unit_ms;
    int64_t node;
    int64_t epoch_ms;
    int64_t created_ms;
    char space[MINTID_ID_SPACE_MAX + 1]; /* the id space */
    char boot_id[BOOT_ID_SIZE];          /* the boot the lock and the core were last recovered in */
    int64_t mark_ms;                     /* durable: no ID carries a time past it (Unix ms); written under the lock */
    uint64_t owner_ns;                   /* the pid namespace of the lock's last holder, read only by recovery */
    pthread_mutex_t lock;
    uint32_t replaced; /* 1: the path names another state now; move to it */
    uint32_t warrant_leased;
    /* mintidd's warrant (mintid_gen_warrant()); warrant_pid 0: none. */
    int64_t warrant_pid;
    uint64_t warrant_pid_ns; /* the holder's pid namespace: whether warrant_pid means a process to us */
    int64_t warrant_ceiling_ms;
    uint64_t warrant_until_ns; /* CLOCK_BOOTTIME of boot_id's boot */
    int64_t warrant_asked_ms;  /* the latest end of an ID another home minted under it */
    mintid__core core;
    uint64_t last_value; /* the generator's fast path: the last ID as a value */
};

/* A state as this process has it mapped, and the file it was mapped from. */
typedef struct mapping {
    struct host_state *st;
    dev_t dev;
    ino_t ino;
} mapping;

/*
 * One generator's view of the host's state. `st` is the state it mints
 * from; it changes only while that state is locked by the thread moving
 * to the path's new one, which locks the new one and publishes it before
 * it lets the old go. So a thread that holds the lock of the state `st`
 * names may read and write everything here, and one that locked a state
 * `st` no longer names lets it go and locks the new one (host_lock).
 * States moved from stay mapped until the generator is freed: a thread of
 * this process may be about to lock one.
 */
struct mintid__host {
    mintid__store base; /* the generator's view of it (store.h) */
    _Atomic(struct host_state *) st;
    dev_t dev; /* the file of st */
    ino_t ino;
    int64_t checked_ms; /* when the path was last looked at: the ID clock (system clock), else monotonic */
    bool system_clock;  /* the generator reads the system clock: its readings time the looks */
    const mintid__format_impl *f;
    int64_t node; /* as in the key: -1 where the format has no (or an optional) node */
    _Atomic int64_t
        warrant_pid;   /* this process's warrant on the state (the holder's generators mint past it); 0: none */
    bool need_warrant; /* node host: minting only under a live warrant */
    int64_t epoch_ms;
    char space[MINTID_ID_SPACE_MAX + 1];
    mintid_clock_fn clock; /* the generator's */
    void *clock_ctx;
    uint32_t lock_wait_ms; /* the longest wait for the lock */
    bool try_lock;         /* never wait for the lock: MINTID_EBUSY */
    /* try_lock: the holder last found holding it, and since when (monotonic ms). */
    _Atomic unsigned busy_holder;
    _Atomic int64_t busy_since_ms;
    _Atomic int64_t busy_looked_ms; /* the last look at whether the holder is gone */
    char dir[PATH_MAX];             /* the directory of path, absolute */
    mapping *retired;               /* states moved from, unmapped at close */
    size_t nretired;
    char path[PATH_MAX];
};

/* ---- what identifies this boot and this process's pid namespace ------------- */

static char boot_id[BOOT_ID_SIZE];
static uint64_t own_pid_ns;
static pthread_once_t ids_once = PTHREAD_ONCE_INIT;

/*
 * The kernel's boot id, new at every boot ("" where it cannot be read: a
 * reboot then goes unnoticed, and only the state's other guards hold), and
 * the inode of this process's pid namespace (0 where unknown), which says
 * whether a thread id in a lock word means the same thread to us.
 */
static void read_ids(void) {
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, boot_id, sizeof boot_id - 1);
        boot_id[n > 0 ? (size_t)n : 0] = '\0';
        close(fd);
        char *nl = strchr(boot_id, '\n');
        if (nl != NULL)
            *nl = '\0';
    }
    struct stat sb;
    if (stat("/proc/self/ns/pid", &sb) == 0)
        own_pid_ns = (uint64_t)sb.st_ino;
}

static const char *this_boot(void) {
    pthread_once(&ids_once, read_ids);
    return boot_id;
}

static uint64_t this_pid_ns(void) {
    pthread_once(&ids_once, read_ids);
    return own_pid_ns;
}

/* Makes st's mutex: process-shared and robust. */
static int make_lock(struct host_state *st) {
    pthread_mutexattr_t attr;
    int rc = MINTID_EHOST;
    if (pthread_mutexattr_init(&attr) == 0) {
        if (pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) == 0 &&
            pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST) == 0 && pthread_mutex_init(&st->lock, &attr) == 0)
            rc = MINTID_OK;
        pthread_mutexattr_destroy(&attr);
    }
    return rc;
}

/* The first unit after the one holding Unix ms `ms`, in st's units after its epoch. */
static int64_t unit_after_ms(const struct host_state *st, int64_t ms) {
    int64_t unit = st->ts_unit_ms;
    return mintid__floor_div(ms, unit) + 1 - mintid__floor_div(st->epoch_ms, unit);
}

/* Writes st's page to disk: what a reboot will find. */
static int sync_state(struct host_state *st) { return msync(st, sizeof *st, MS_SYNC) == 0 ? MINTID_OK : MINTID_EHOST; }

/*
 * Makes st's lock anew after its holder is gone without the kernel freeing
 * it (another boot, a copied file): nothing mints in st meanwhile, as the
 * caller holds the file's recovery lock and found no live holder. The
 * floor passes every unit the state may have issued, and the mark.
 */
static int recover(struct host_state *st) {
    if (make_lock(st) != MINTID_OK)
        return MINTID_EHOST;
    mintid__core_raise_floor(&st->core, mintid__core_next_unit(&st->core));
    if (st->mark_ms > 0)
        mintid__core_raise_floor(&st->core, unit_after_ms(st, st->mark_ms));
    snprintf(st->boot_id, sizeof st->boot_id, "%s", this_boot());
    st->replaced = 0;
    /* A warrant's deadline is on the old boot's clock. A static node id's
     * holder is gone with that boot; a leased one's warrant stays lapsed,
     * as the node id may be another host's now, until a server renews it. */
    if (st->warrant_pid != 0 && !st->warrant_leased)
        st->warrant_pid = 0;
    st->warrant_until_ns = 0;
    return sync_state(st);
}

/*
 * Takes (F_WRLCK) or lets go of (F_UNLCK) the file's recovery lock: an open
 * file description lock, so threads are apart too. It must be let go
 * explicitly: a mapping of the file keeps the description open.
 */
static int recovery_lock(int fd, short type) {
    struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
    while (fcntl(fd, F_OFD_SETLKW, &fl) != 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

/* As recovery_lock(fd, F_WRLCK), but never waiting where wait is false: -1 with errno EAGAIN if held. */
static int recovery_lock_if(int fd, bool wait) {
    if (wait)
        return recovery_lock(fd, F_WRLCK);
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
    if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
        return 0;
    if (errno == EACCES)
        errno = EAGAIN;
    return -1;
}

/*
 * A line of /proc/PID/maps ("start-end perms offset maj:min inode path"):
 * the mapping's start address and the file (dev, ino). False if the line
 * is not of that shape.
 */
static bool maps_line_parse(const char *line, uintptr_t *start, dev_t *dev, ino_t *ino) {
    char *end;
    errno = 0;
    unsigned long long at = strtoull(line, &end, 16);
    if (errno != 0 || end == line || *end != '-')
        return false;
    const char *p = end;
    for (int field = 0; field < 3; field++) {
        p = strchr(p, ' ');
        if (p == NULL)
            return false;
        p++;
    }
    unsigned long maj = strtoul(p, &end, 16);
    if (errno != 0 || end == p || *end != ':')
        return false;
    p = end + 1;
    unsigned long min = strtoul(p, &end, 16);
    if (errno != 0 || end == p || *end != ' ')
        return false;
    p = end + 1;
    unsigned long long inode = strtoull(p, &end, 10);
    if (errno != 0 || end == p)
        return false;
    *start = (uintptr_t)at;
    *dev = makedev((unsigned)maj, (unsigned)min);
    *ino = (ino_t)inode;
    return true;
}

/*
 * Calls found(line's start, dev, ino, ctx) for each mapping of process
 * `pid` ("self" or a thread id) until it returns true. 1 found, 0 not, -1
 * cannot tell (no such process: -1 with errno ENOENT or ESRCH).
 */
static int maps_find(const char *pid, bool (*found)(uintptr_t, dev_t, ino_t, void *), void *ctx) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/maps", pid);
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return -1;
    char line[512];
    int hit = 0;
    while (!hit && fgets(line, sizeof line, f) != NULL) {
        uintptr_t start;
        dev_t dev;
        ino_t ino;
        if (maps_line_parse(line, &start, &dev, &ino) && found(start, dev, ino, ctx))
            hit = 1;
        /* A line longer than the buffer: skip its rest. */
        while (strchr(line, '\n') == NULL && fgets(line, sizeof line, f) != NULL)
            ;
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        errno = EIO;
        return -1;
    }
    return hit;
}

typedef struct file_id {
    uintptr_t start; /* mapped_file: the address looked for */
    dev_t dev;
    ino_t ino;
} file_id;

static bool is_file(uintptr_t start, dev_t dev, ino_t ino, void *ctx) {
    (void)start;
    const file_id *want = ctx;
    return dev == want->dev && ino == want->ino;
}

static bool is_at(uintptr_t start, dev_t dev, ino_t ino, void *ctx) {
    file_id *want = ctx;
    if (start != want->start)
        return false;
    want->dev = dev;
    want->ino = ino;
    return true;
}

/*
 * Whether thread `tid` (of this pid namespace) maps the file (dev, ino):
 * 1 yes, 0 no (or no such thread), -1 cannot tell (its maps are not ours
 * to read: another user's process).
 */
static int thread_maps(unsigned tid, dev_t dev, ino_t ino) {
    char pid[16];
    snprintf(pid, sizeof pid, "%u", tid);
    file_id want = {0, dev, ino};
    int rc = maps_find(pid, is_file, &want);
    return rc < 0 && (errno == ENOENT || errno == ESRCH) ? 0 : rc;
}

/* The file (dev, ino) this process maps at `addr`: false if it cannot tell. */
static bool mapped_file(const void *addr, dev_t *dev, ino_t *ino) {
    file_id want = {(uintptr_t)addr, 0, 0};
    if (maps_find("self", is_at, &want) != 1)
        return false;
    *dev = want.dev;
    *ino = want.ino;
    return true;
}

/* The thread id the lock word of st names as holder; 0 for none (or a C library that keeps it elsewhere). */
static unsigned lock_holder(const struct host_state *st) {
#ifdef __GLIBC__
    return (unsigned)__atomic_load_n(&st->lock.__data.__lock, __ATOMIC_RELAXED) & FUTEX_TID_MASK_;
#else
    (void)st;
    return 0;
#endif
}

static int64_t coarse_monotonic_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Whether processes minting this format apart could repeat each other's
 * IDs: a node id to share, or under 128 bits, so too few random bits to
 * keep them apart. Only such a state needs the floor of a new file.
 */
static bool needs_creation_floor(const mintid_format *fmt) {
    return (fmt->node_bits > 0 && !fmt->node_optional) || fmt->bits < 128;
}

/*
 * The floor of a state made at st->created_ms (see the top of the file).
 * A clock past the format's last millisecond (a faked clock's run) mints
 * nothing, and a floor there would hold every later home of the host
 * until then: such a state is left with created_ms 0, and the first
 * process to look at it with a clock the format can carry sets the floor
 * from its own (mintid__host_check()).
 */
static void set_creation_floor(const struct mintid__host *h, struct host_state *st) {
    if (st->created_ms > mintid_format_last_ms(&h->f->pub, h->epoch_ms)) {
        st->created_ms = 0;
        return;
    }
    if (needs_creation_floor(&h->f->pub)) {
        int64_t unit = h->f->pub.ts_unit_ms;
        int64_t until = st->created_ms + 2 * MINTID_HOST_CHECK_MS;
        mintid__core_raise_floor(&st->core, mintid__floor_div(until, unit) + 1 - mintid__floor_div(h->epoch_ms, unit));
    }
}

/* Writes a new state for h's key into fd. */
static int init_state(const struct mintid__host *h, int fd, struct host_state **out) {
    /* The blocks allocated now: a write through the mapping into a file
     * system that has none left would be a SIGBUS, not an error. */
    int rc = posix_fallocate(fd, 0, (off_t)sizeof(struct host_state));
    if (rc != 0) {
        errno = rc;
        return MINTID_EHOST;
    }
    struct host_state *st = mmap(NULL, sizeof *st, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (st == MAP_FAILED)
        return MINTID_EHOST;
    memset(st, 0, sizeof *st);
    memcpy(st->magic, HOST_MAGIC, sizeof st->magic);
    st->version = HOST_VERSION;
    st->size = (uint32_t)sizeof *st;
    st->format = (uint32_t)h->f->pub.id;
    st->ts_unit_ms = h->f->pub.ts_unit_ms;
    st->node = h->node;
    st->epoch_ms = h->epoch_ms;
    /* The later of the creator's clock and the system's: a process whose
     * own clock is behind must not open a window the others are in. */
    int64_t real = 0, own;
    mintid_clock_system(NULL, &real);
    st->created_ms = h->clock(h->clock_ctx, &own) == MINTID_OK && own > real ? own : real;
    memcpy(st->space, h->space, sizeof st->space);
    snprintf(st->boot_id, sizeof st->boot_id, "%s", this_boot());
    rc = make_lock(st);
    if (rc != MINTID_OK) {
        munmap(st, sizeof *st);
        return rc;
    }
    mintid__core_init(h->f, &st->core);
    set_creation_floor(h, st);
    *out = st;
    return MINTID_OK;
}

/* Whether a mapped file is a state of h's key, laid out as this build lays it out. */
static bool state_matches(const struct mintid__host *h, const struct host_state *st) {
    return memcmp(st->magic, HOST_MAGIC, sizeof st->magic) == 0 && st->version == HOST_VERSION &&
           st->size == sizeof *st && st->format == (uint32_t)h->f->pub.id && st->ts_unit_ms == h->f->pub.ts_unit_ms &&
           st->node == h->node && st->epoch_ms == h->epoch_ms && memcmp(st->space, h->space, sizeof st->space) == 0;
}

/* Makes the directory's entries durable (a state made new in it). */
static int sync_dir(const struct mintid__host *h) {
    int fd = open(h->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    /* A file system that syncs no directory (some FUSE ones) says EINVAL: nothing to do there. */
    return rc == 0 || saved == EINVAL ? 0 : -1;
}

/* Maps the state at h->path, creating it if there is none. */
static int map_path(const struct mintid__host *h, mapping *out, bool may_wait) {
    static atomic_uint tmp_counter;
    for (int attempt = 0; attempt < HOST_REJOIN_TRIES; attempt++) {
        int fd = open(h->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        if (fd >= 0) {
            struct stat sb;
            if (fstat(fd, &sb) != 0) {
                close(fd);
                return MINTID_EHOST;
            }
            if (!S_ISREG(sb.st_mode) || sb.st_size != (off_t)sizeof(struct host_state)) {
                close(fd);
                return MINTID_EHOSTSTATE;
            }
            struct host_state *st = mmap(NULL, sizeof *st, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (st == MAP_FAILED) {
                close(fd);
                return MINTID_EHOST;
            }
            if (!state_matches(h, st)) {
                munmap(st, sizeof *st);
                close(fd);
                return MINTID_EHOSTSTATE;
            }
            /* Written under an earlier boot: its lock word and core are
             * that boot's (see the top of this file). */
            int rc = MINTID_OK;
            if (recovery_lock_if(fd, may_wait) != 0) {
                rc = errno == EAGAIN ? MINTID_EBUSY : MINTID_EHOST;
            } else {
                if (strncmp(st->boot_id, this_boot(), sizeof st->boot_id) != 0)
                    rc = recover(st);
                int saved = errno;
                /* Let go explicitly: the mapping keeps the open file
                 * description, and so its lock, past close(). */
                recovery_lock(fd, F_UNLCK);
                errno = saved;
            }
            int saved = errno;
            close(fd);
            errno = saved;
            if (rc != MINTID_OK) {
                munmap(st, sizeof *st);
                return rc;
            }
            *out = (mapping){st, sb.st_dev, sb.st_ino};
            return MINTID_OK;
        }
        if (errno != ENOENT)
            return MINTID_EHOST;
        /* None: write one in full under a private name, then link it into place. */
        char tmp[PATH_MAX + 48];
        int n = snprintf(tmp, sizeof tmp, "%s.new.%ld.%u", h->path, (long)getpid(),
                         atomic_fetch_add_explicit(&tmp_counter, 1, memory_order_relaxed));
        if (n < 0 || (size_t)n >= sizeof tmp) {
            errno = ENAMETOOLONG;
            return MINTID_EHOST;
        }
        fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
            return MINTID_EHOST;
        struct host_state *st = NULL;
        /* Every user's processes share the host's sequence (see mintid.h). */
        int rc = fchmod(fd, 0666) == 0 ? init_state(h, fd, &st) : MINTID_EHOST;
        struct stat sb;
        if (rc == MINTID_OK && (fstat(fd, &sb) != 0 || fsync(fd) != 0))
            rc = MINTID_EHOST;
        int saved = errno;
        close(fd);
        if (rc == MINTID_OK && link(tmp, h->path) != 0) {
            saved = errno;
            rc = saved == EEXIST ? 1 : MINTID_EHOST; /* 1: another process won; use its state */
        }
        unlink(tmp);
        /* The name on disk too, before any mark in the file counts. */
        if (rc == MINTID_OK && sync_dir(h) != 0)
            rc = MINTID_EHOST, saved = errno;
        errno = saved;
        if (rc == MINTID_OK) {
            *out = (mapping){st, sb.st_dev, sb.st_ino};
            return MINTID_OK;
        }
        if (st != NULL)
            munmap(st, sizeof *st);
        if (rc < 0)
            return rc;
    }
    errno = EAGAIN;
    return MINTID_EHOST;
}

/* The host-wide state the calling thread last tried to open: its directory, then its file. */
static _Thread_local char tried[PATH_MAX];

const char *mintid__host_tried(void) { return tried; }

int mintid__host_open(const mintid__format_impl *f, const mintid_config *cfg, const char *dir, const char *space,
                      bool try_lock, struct mintid__host **out) {
    const mintid_format *fmt = &f->pub;
    snprintf(tried, sizeof tried, "%s", dir);
    struct mintid__host *h = calloc(1, sizeof *h);
    if (h == NULL)
        return MINTID_ENOMEM;
    h->f = f;
    h->node = fmt->node_bits > 0 && !fmt->node_optional ? (cfg->node < 0 ? 0 : cfg->node) : -1;
    /* The epoch as the IDs count it, in whole timestamp units (sonyflake's
     * 10 ms): two epochs in one unit mint the same IDs, so they are one key. */
    h->epoch_ms = mintid__floor_div(cfg->epoch_ms, fmt->ts_unit_ms) * fmt->ts_unit_ms;
    h->clock = cfg->clock != NULL ? cfg->clock : mintid_clock_system;
    h->clock_ctx = cfg->clock_ctx;
    h->system_clock = h->clock == mintid_clock_system;
    h->lock_wait_ms = cfg->max_wait_ms > MINTID_HOST_LOCK_WAIT_MS ? cfg->max_wait_ms : MINTID_HOST_LOCK_WAIT_MS;
    h->try_lock = try_lock;
    /* An absolute path: a process that changes its directory later still
     * looks at the same file. */
    if (realpath(dir, h->dir) == NULL) {
        int saved = errno;
        free(h);
        errno = saved;
        return MINTID_EHOST;
    }
    snprintf(h->space, sizeof h->space, "%s", space);
    char key[192];
    int n = snprintf(key, sizeof key, "mintid-%s", fmt->name);
    if (h->node >= 0)
        n += snprintf(key + n, sizeof key - (size_t)n, "-node%" PRId64, h->node);
    if (fmt->epoch_settable)
        n += snprintf(key + n, sizeof key - (size_t)n, "-epoch%" PRId64, h->epoch_ms);
    /* The default space keeps the names earlier releases gave. */
    if (strcmp(space, MINTID_ID_SPACE_DEFAULT) != 0)
        snprintf(key + n, sizeof key - (size_t)n, "-space-%s", space);
    n = snprintf(h->path, sizeof h->path, "%s/%s", h->dir, key);
    snprintf(tried, sizeof tried, "%s", h->path);
    if (n < 0 || (size_t)n >= sizeof h->path - 48) {
        free(h);
        errno = ENAMETOOLONG;
        return MINTID_EHOST;
    }
    mapping m;
    int rc = map_path(h, &m, true); /* opening may wait: it is not a mint */
    if (rc != MINTID_OK) {
        int saved = errno;
        free(h);
        errno = saved;
        return rc;
    }
    atomic_init(&h->st, m.st);
    h->dev = m.dev;
    h->ino = m.ino;
    h->checked_ms = INT64_MIN; /* the first mint looks at the path */
    *out = h;
    return MINTID_OK;
}

void mintid__host_close(struct mintid__host *h) {
    if (h == NULL)
        return;
    munmap(atomic_load(&h->st), sizeof(struct host_state));
    for (size_t i = 0; i < h->nretired; i++)
        munmap(h->retired[i].st, sizeof(struct host_state));
    free(h->retired);
    free(h);
}

const char *mintid__host_path(const struct mintid__host *h) { return h->path; }

/*
 * The wait for a held lock, until a deadline on the monotonic clock, so
 * that a step of the real-time clock neither cuts it short nor stretches
 * it. ThreadSanitizer (clang 14's) does not know pthread_mutex_clocklock()
 * and would take every lock so taken for one never taken; its builds wait
 * with pthread_mutex_timedlock() on the real-time clock instead.
 */
#if defined(__SANITIZE_THREAD__)
#define MINTID__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MINTID__TSAN 1
#endif
#endif
#ifdef MINTID__TSAN
#define LOCK_CLOCK CLOCK_REALTIME
static int lock_until(pthread_mutex_t *m, const struct timespec *deadline) {
    return pthread_mutex_timedlock(m, deadline);
}
#else
#define LOCK_CLOCK CLOCK_MONOTONIC
static int lock_until(pthread_mutex_t *m, const struct timespec *deadline) {
    return pthread_mutex_clocklock(m, CLOCK_MONOTONIC, deadline);
}
#endif

/*
 * After a wait for st's lock timed out with the lock word naming `holder`
 * all along: when that thread is certainly not minting in this file (it
 * is gone, or maps no such file: the lock word came with a copy of the
 * file), makes the lock anew under the file's recovery lock and returns
 * true. A holder of another pid namespace, or whose maps are not ours to
 * read, is never taken for gone: such a holder may be only stopped.
 */
static bool recover_stale(struct host_state *st, unsigned holder, const struct mintid__host *h) {
    /* The file st maps, from this process's own maps: another thread may
     * be moving h to another state meanwhile, so h's record of it is not
     * ours to read without the lock. */
    dev_t dev = 0;
    ino_t ino = 0;
    if (st->owner_ns != this_pid_ns() || own_pid_ns == 0 || !mapped_file(st, &dev, &ino) ||
        thread_maps(holder, dev, ino) != 0)
        return false;
    int fd = open(h->path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    struct stat sb;
    bool done = false;
    /* Another process may have recovered it first: the word then names another holder, or none. */
    if (fstat(fd, &sb) == 0 && sb.st_dev == dev && sb.st_ino == ino && recovery_lock_if(fd, !h->try_lock) == 0 &&
        lock_holder(st) == holder && thread_maps(holder, dev, ino) == 0) {
        done = recover(st) == MINTID_OK;
        recovery_lock(fd, F_UNLCK);
    }
    close(fd);
    return done;
}

/*
 * Locks st, waiting at most wait_ms for a holder (one stopped with
 * SIGSTOP, say, must not stall every process of the host for good:
 * MINTID_ETIMEDOUT, nothing locked). A holder that died leaves a floor
 * past every unit it may have used.
 */
static int lock_state(struct host_state *st, uint32_t wait_ms, struct mintid__host *h, bool try_only) {
    int rc = pthread_mutex_trylock(&st->lock);
    if (rc == EBUSY && try_only) {
        /* Never waits: says who holds it, and recovers a lock whose holder
         * is gone once it has been seen holding it for the usual wait. */
        unsigned holder = lock_holder(st);
        int64_t now = coarse_monotonic_ms();
        if (atomic_exchange_explicit(&h->busy_holder, holder, memory_order_relaxed) != holder)
            atomic_store_explicit(&h->busy_since_ms, now, memory_order_relaxed);
        int64_t held = now - atomic_load_explicit(&h->busy_since_ms, memory_order_relaxed);
        /* At most once a MINTID_HOST_LOCK_WAIT_MS: the look reads /proc. */
        int64_t looked = atomic_load_explicit(&h->busy_looked_ms, memory_order_relaxed);
        if (holder != 0 && held >= MINTID_HOST_LOCK_WAIT_MS && now - looked >= MINTID_HOST_LOCK_WAIT_MS) {
            atomic_store_explicit(&h->busy_looked_ms, now, memory_order_relaxed);
            if (recover_stale(st, holder, h))
                rc = pthread_mutex_trylock(&st->lock);
        }
        if (rc == EBUSY) {
            mintid__host_why("another process holds the lock of %s (thread %u), for %" PRId64 " ms or more: it may "
                             "be stopped (SIGSTOP, Ctrl-Z, a debugger)",
                             h->path, holder, held);
            return MINTID_EBUSY;
        }
    } else if (rc == EBUSY) {
        unsigned holder = lock_holder(st);
        struct timespec deadline;
        clock_gettime(LOCK_CLOCK, &deadline);
        deadline.tv_sec += (time_t)(wait_ms / 1000);
        deadline.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
        rc = lock_until(&st->lock, &deadline);
        if (rc == ETIMEDOUT && holder != 0 && lock_holder(st) == holder && recover_stale(st, holder, h))
            rc = pthread_mutex_trylock(&st->lock);
    }
    if (rc == EOWNERDEAD) {
        mintid__core_raise_floor(&st->core, mintid__core_next_unit(&st->core));
        if (pthread_mutex_consistent(&st->lock) != 0) {
            pthread_mutex_unlock(&st->lock);
            errno = ENOTRECOVERABLE;
            return MINTID_EHOST;
        }
        st->owner_ns = this_pid_ns();
        return MINTID_OK;
    }
    if (rc == ETIMEDOUT || rc == EBUSY)
        return MINTID_ETIMEDOUT;
    if (rc == 0 && h->try_lock && atomic_load_explicit(&h->busy_holder, memory_order_relaxed) != 0)
        atomic_store_explicit(&h->busy_holder, 0, memory_order_relaxed); /* a next wait is timed afresh */
    if (rc != 0) {
        errno = rc;
        return MINTID_EHOST;
    }
    if (st->owner_ns != own_pid_ns)
        st->owner_ns = own_pid_ns;
    return MINTID_OK;
}

/*
 * Whether the path still names the state h has: 1 yes, 0 no (nothing
 * there, or another file), -1 cannot tell (errno): a process that cannot
 * look (its rights dropped, say) must neither go on alone nor tell the
 * others the state was replaced.
 */
static int path_is_ours(const struct mintid__host *h) {
    struct stat sb;
    if (stat(h->path, &sb) != 0)
        return errno == ENOENT ? 0 : -1;
    return sb.st_dev == h->dev && sb.st_ino == h->ino;
}

/*
 * The path names another state (or none) than h's, which this thread has
 * locked: move to the path's state, raised above every unit the old one
 * issued, and mark the old one replaced, so that every process still on it
 * moves at its next lock. The old state stays locked until the new one is
 * locked, raised and published: no thread of this or another process
 * mints on either meanwhile. (Locks are taken old before new, and a state
 * is never older than one it replaced, so two processes moving cannot
 * wait for each other.) Returns with the new state locked; on error, with
 * the old one still locked and unchanged.
 */
static int rejoin(struct mintid__host *h) {
    struct host_state *old = atomic_load(&h->st);
    int64_t carry = mintid__core_next_unit(&old->core);
    mapping *more = realloc(h->retired, (h->nretired + 1) * sizeof *more);
    if (more == NULL)
        return MINTID_ENOMEM;
    h->retired = more;
    for (int i = 0; i < HOST_REJOIN_TRIES; i++) {
        mapping m;
        int rc = map_path(h, &m, !h->try_lock);
        if (rc != MINTID_OK)
            return rc;
        if (m.dev == h->dev && m.ino == h->ino) {
            munmap(m.st, sizeof *m.st); /* the path is ours after all */
            return MINTID_OK;
        }
        if ((rc = lock_state(m.st, h->lock_wait_ms, h, h->try_lock)) != MINTID_OK) {
            munmap(m.st, sizeof *m.st);
            return rc;
        }
        if (m.st->replaced) {
            /* Replaced again meanwhile: carry that one's units too. */
            int64_t also = mintid__core_next_unit(&m.st->core);
            if (also > carry)
                carry = also;
            pthread_mutex_unlock(&m.st->lock);
            munmap(m.st, sizeof *m.st);
            continue;
        }
        mintid__core_raise_floor(&m.st->core, carry);
        /* The old state's mark, on disk in the new one before it counts: a
         * reboot must not find the new file below IDs the old one issued. */
        if (old->mark_ms > m.st->mark_ms) {
            int64_t was = m.st->mark_ms;
            m.st->mark_ms = old->mark_ms;
            if ((rc = sync_state(m.st)) != MINTID_OK) {
                m.st->mark_ms = was;
                pthread_mutex_unlock(&m.st->lock);
                munmap(m.st, sizeof *m.st);
                return rc;
            }
        }
        /* The warrant too: a state made new must not free the homes of
         * the bounds of the server that holds the node id. */
        if (old->warrant_pid != 0 && m.st->warrant_pid == 0) {
            m.st->warrant_pid = old->warrant_pid;
            m.st->warrant_pid_ns = old->warrant_pid_ns;
            m.st->warrant_ceiling_ms = old->warrant_ceiling_ms;
            m.st->warrant_until_ns = old->warrant_until_ns;
            m.st->warrant_leased = old->warrant_leased;
            m.st->warrant_asked_ms = old->warrant_asked_ms;
        }
        old->replaced = 1;
        h->retired[h->nretired++] = (mapping){old, h->dev, h->ino};
        h->dev = m.dev;
        h->ino = m.ino;
        atomic_store(&h->st, m.st);
        pthread_mutex_unlock(&old->lock);
        return MINTID_OK;
    }
    errno = EAGAIN;
    return MINTID_EHOST;
}

static int host_lock_as(struct mintid__host *h, bool try_only) {
    for (;;) {
        struct host_state *st = atomic_load(&h->st);
        int rc = lock_state(st, h->lock_wait_ms, h, try_only);
        if (rc != MINTID_OK)
            return rc;
        if (atomic_load(&h->st) != st) {
            /* Another thread moved this generator on while we waited. */
            pthread_mutex_unlock(&st->lock);
            continue;
        }
        if (!st->replaced)
            return MINTID_OK;
        /* Another process moved on: follow it. */
        if ((rc = rejoin(h)) != MINTID_OK)
            pthread_mutex_unlock(&atomic_load(&h->st)->lock);
        return rc;
    }
}

int mintid__host_lock(struct mintid__host *h) { return host_lock_as(h, h->try_lock); }

int mintid__host_lock_waiting(struct mintid__host *h) { return host_lock_as(h, false); }

int mintid__host_check(struct mintid__host *h, int64_t now_ms, int64_t *quiet_from, int64_t *quiet_until) {
    int64_t t = h->system_clock ? now_ms : coarse_monotonic_ms();
    if (t < h->checked_ms || t >= h->checked_ms + MINTID_HOST_CHECK_MS) {
        int ours = path_is_ours(h);
        if (ours < 0)
            return MINTID_EHOST;
        if (!ours) {
            int rc = rejoin(h);
            if (rc != MINTID_OK)
                return rc;
        }
        h->checked_ms = t;
    }
    struct host_state *st = atomic_load(&h->st);
    if (st->created_ms == 0) {
        /* The later of this clock and the system's, as init_state() takes. */
        int64_t real = 0;
        mintid_clock_system(NULL, &real);
        st->created_ms = now_ms > real ? now_ms : real;
        set_creation_floor(h, st);
    }
    /* With the system clock, the caller may skip the call until the next
     * look is due; with another clock the looks are timed on the
     * monotonic one, which only this function reads. */
    *quiet_from = h->system_clock ? h->checked_ms : 0;
    *quiet_until = h->system_clock ? h->checked_ms + MINTID_HOST_CHECK_MS : 0;
    return MINTID_OK;
}

void mintid__host_unlock(struct mintid__host *h) { pthread_mutex_unlock(&atomic_load(&h->st)->lock); }

mintid__core *mintid__host_core(struct mintid__host *h) { return &atomic_load(&h->st)->core; }

uint64_t *mintid__host_last_value(struct mintid__host *h) { return &atomic_load(&h->st)->last_value; }

int64_t *mintid__host_mark(struct mintid__host *h) { return &atomic_load(&h->st)->mark_ms; }

unsigned mintid__host_lock_owner(const struct mintid__host *h) { return lock_holder(atomic_load(&h->st)); }

const int64_t *mintid__host_warrant_holder(struct mintid__host *h) { return &atomic_load(&h->st)->warrant_pid; }

int mintid__host_cover(struct mintid__host *h, int64_t unix_ms) {
    struct host_state *st = atomic_load(&h->st);
    if (unix_ms <= st->mark_ms)
        return MINTID_OK;
    /* No ID carries a time past the format's last millisecond, so no mark
     * goes there either (a faked clock's run): a reboot's recovery would
     * make it a floor that holds every later home of the host. */
    if (unix_ms > mintid_format_last_ms(&h->f->pub, h->epoch_ms))
        return MINTID_ETIME;
    int64_t was = st->mark_ms;
    st->mark_ms = mintid__store_mark_past(unix_ms);
    int rc = sync_state(st);
    if (rc != MINTID_OK)
        st->mark_ms = was; /* not on disk: no ID may count on it */
    return rc;
}

/* ---- mintidd's warrant, and the node ids it publishes ----------------------- */

static _Thread_local char why_buf[320];

const char *mintid_host_why(void) { return why_buf; }

void mintid__host_why(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why_buf, sizeof why_buf, fmt, ap);
    va_end(ap);
}

static uint64_t boottime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether the process `pid` of the pid namespace `ns` is certainly gone. */
static bool holder_gone(int64_t pid, uint64_t ns) {
    return ns != 0 && ns == this_pid_ns() && pid > 0 && pid <= INT_MAX && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

int mintid__host_warrant(struct mintid__host *h, mintid_warrant *w) {
    struct host_state *st = atomic_load(&h->st);
    if (w == NULL) {
        if (h->warrant_pid != 0 && st->warrant_pid == h->warrant_pid) {
            if (st->warrant_leased)
                st->warrant_until_ns = 0;
            else
                st->warrant_pid = 0;
        }
        h->warrant_pid = 0;
        return MINTID_OK;
    }
    if (w->pid <= 0)
        return MINTID_EINVAL;
    if (st->warrant_pid != w->pid)
        st->warrant_asked_ms = INT64_MIN; /* another holder's homes' asks are not this one's */
    st->warrant_pid = w->pid;
    st->warrant_pid_ns = this_pid_ns();
    st->warrant_ceiling_ms = w->ceiling_ms;
    st->warrant_until_ns = w->until_ns;
    st->warrant_leased = w->leased != 0;
    if (w->floor_ms != INT64_MIN)
        mintid__core_raise_floor(&st->core, unit_after_ms(st, w->floor_ms));
    w->asked_ms = st->warrant_asked_ms;
    h->warrant_pid = w->pid;
    return MINTID_OK;
}

int mintid__host_warrant_check(struct mintid__host *h, int64_t end_ms) {
    struct host_state *st = atomic_load(&h->st);
    if (st->warrant_pid == 0) {
        if (!h->need_warrant)
            return MINTID_OK;
        mintid__host_why("no mintidd holds node %" PRId64 " of id space '%s' on this host now (%s): start it, "
                         "or mint with a node id of your own",
                         h->node, h->space, h->path);
        return MINTID_EWARRANT;
    }
    if (st->warrant_pid == h->warrant_pid)
        return MINTID_OK; /* the holder's own: it keeps its bounds itself */
    if (st->warrant_until_ns == 0 || boottime_ns() >= st->warrant_until_ns) {
        if (!st->warrant_leased && !h->need_warrant && holder_gone(st->warrant_pid, st->warrant_pid_ns)) {
            st->warrant_pid = 0; /* a static node id's server, gone: nothing of it to keep */
            return MINTID_OK;
        }
        mintid__host_why("mintidd (pid %" PRId64 ") holds node %" PRId64 " of id space '%s' on this host%s and has "
                         "not renewed its warrant: %s; nothing mints under that node id until it does",
                         st->warrant_pid, h->node, h->space, st->warrant_leased ? " by a lease" : "",
                         st->warrant_leased ? "its lease may be lost (another host may hold the node id by now)"
                                            : "it stopped, hung or cannot write its state");
        return MINTID_EWARRANT;
    }
    if (end_ms > st->warrant_ceiling_ms) {
        mintid__host_why("mintidd (pid %" PRId64 ") holds node %" PRId64 " of id space '%s' on this host, and its "
                         "mark on disk (Unix ms %" PRId64 ") does not cover the time of the next ID yet; try again, "
                         "and if it persists see that server's log",
                         st->warrant_pid, h->node, h->space, st->warrant_ceiling_ms);
        return MINTID_EWARRANT;
    }
    if (end_ms > st->warrant_asked_ms)
        st->warrant_asked_ms = end_ms;
    return MINTID_OK;
}

void mintid__host_set_holder(struct mintid__host *h, int64_t pid) { atomic_store(&h->warrant_pid, pid); }

bool mintid__host_under_warrant(const struct mintid__host *h) {
    const struct host_state *st = atomic_load(&h->st);
    return st->warrant_pid != 0 && st->warrant_pid != h->warrant_pid && st->warrant_until_ns != 0;
}

bool mintid__host_warrant_ahead(struct mintid__host *h, int64_t end_ms) {
    struct host_state *st = atomic_load(&h->st);
    if (st->warrant_pid == 0 || st->warrant_pid == h->warrant_pid || st->warrant_until_ns == 0 ||
        end_ms <= st->warrant_ceiling_ms || boottime_ns() >= st->warrant_until_ns)
        return false;
    if (end_ms > st->warrant_asked_ms)
        st->warrant_asked_ms = end_ms; /* the holder moves its mark past it */
    return true;
}

/* dir/mintid-node[-space-<space>] into buf; false if it does not fit. */
static bool node_file(const char *dir, const char *space, char *buf, size_t cap) {
    int n = strcmp(space, MINTID_ID_SPACE_DEFAULT) == 0 ? snprintf(buf, cap, "%s/mintid-node", dir)
                                                        : snprintf(buf, cap, "%s/mintid-node-space-%s", dir, space);
    return n > 0 && (size_t)n < cap - 32;
}

#define NODE_FILE_HEADER "mintid-node 1\n"

int mintid__host_publish(const char *dir, const char *space, int64_t pid, const mintid_host_node *nodes, size_t n) {
    char path[PATH_MAX], tmp[PATH_MAX + 32];
    if (!node_file(dir, space, path, sizeof path)) {
        errno = ENAMETOOLONG;
        return MINTID_EHOST;
    }
    /* A name nobody can have made first (the directory may be /var/tmp). */
    snprintf(tmp, sizeof tmp, "%s.new.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return MINTID_EHOST;
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        close(fd);
        unlink(tmp);
        return MINTID_EHOST;
    }
    fprintf(f, NODE_FILE_HEADER "pid %" PRId64 "\n", pid);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "format %s node=%" PRId64 " epoch=%" PRId64 "\n", nodes[i].fmt->name, nodes[i].node,
                nodes[i].epoch_ms);
    /* fchmod: the umask must not keep the other users' homes from reading it. */
    bool ok = fflush(f) == 0 && fchmod(fd, 0644) == 0;
    int saved = errno;
    if (fclose(f) != 0 && ok)
        ok = false, saved = errno;
    if (ok && rename(tmp, path) != 0)
        ok = false, saved = errno;
    if (!ok)
        unlink(tmp);
    errno = saved;
    return ok ? MINTID_OK : MINTID_EHOST;
}

int mintid__host_lookup(const mintid_format *fmt, const char *dir, const char *space, int64_t *node,
                        int64_t *epoch_ms) {
    char path[PATH_MAX], line[256], want[64];
    if (!node_file(dir, space, path, sizeof path)) {
        errno = ENAMETOOLONG;
        return MINTID_EHOST;
    }
    /* Never blocking on what another user left at the name (a FIFO), nor
     * following a link; only a regular file nobody else may write. */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT && errno != ELOOP)
            return MINTID_EHOST;
        if (errno == ELOOP) {
            mintid__host_why("node host: %s is a symbolic link, not mintidd's node file", path);
            return MINTID_EHOSTSTATE;
        }
        mintid__host_why("node host: no mintidd publishes its node id for id space '%s' in %s (no %s): start "
                         "mintidd with host-dir %s, or give a node id",
                         space, dir, path, dir);
        return MINTID_EWARRANT;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || (sb.st_mode & 022) != 0 || sb.st_size > 65536) {
        close(fd);
        mintid__host_why("node host: %s is not mintidd's node file (a regular file of at most 64 KiB that only its "
                         "owner may write)",
                         path);
        return MINTID_EHOSTSTATE;
    }
    FILE *f = fdopen(fd, "r");
    if (f == NULL) {
        close(fd);
        return MINTID_EHOST;
    }
    snprintf(want, sizeof want, "format %s node=", fmt->name);
    bool header = false, found = false;
    long pid = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (!header) {
            header = strcmp(line, NODE_FILE_HEADER) == 0;
            if (!header)
                break;
        } else if (strncmp(line, "pid ", 4) == 0) {
            pid = strtol(line + 4, NULL, 10);
        } else if (strncmp(line, want, strlen(want)) == 0) {
            char *p = line + strlen(want), *end;
            errno = 0;
            long long nd = strtoll(p, &end, 10);
            if (errno == 0 && end != p && strncmp(end, " epoch=", 7) == 0) {
                p = end + 7;
                long long ep = strtoll(p, &end, 10);
                if (errno == 0 && end != p && (*end == '\n' || *end == '\0') && nd >= 0 && ep >= 0) {
                    *node = nd;
                    *epoch_ms = ep;
                    found = true;
                }
            }
            break;
        }
    }
    fclose(f);
    if (!header) {
        mintid__host_why("node host: %s is not a node file of mintidd's (it lacks the line \"mintid-node 1\")", path);
        return MINTID_EHOSTSTATE;
    }
    if (!found) {
        mintid__host_why("node host: mintidd (pid %ld) does not mint %s with a node id in id space '%s' (%s)", pid,
                         fmt->name, space, path);
        return MINTID_EWARRANT;
    }
    return MINTID_OK;
}

void mintid__host_need_warrant(struct mintid__host *h) { h->need_warrant = true; }

/* ---- the host-wide state as a generator's store (store.h) --------------------------- */

static struct mintid__host *host_of(mintid__store *s) { return (struct mintid__host *)(void *)s; }

static int store_lock(mintid__store *s) { return mintid__host_lock(host_of(s)); }

static void store_unlock(mintid__store *s) { mintid__host_unlock(host_of(s)); }

/* The state the generator holds the lock of: a lock or a look may move it to the path's new one. */
static void store_where(mintid__store *s, mintid__view *v) {
    struct host_state *st = atomic_load(&host_of(s)->st);
    v->core = &st->core;
    v->last_value = &st->last_value;
    v->mark = &st->mark_ms;
}

static int store_look(mintid__store *s, int64_t now_ms, int64_t *quiet_from, int64_t *quiet_until) {
    return mintid__host_check(host_of(s), now_ms, quiet_from, quiet_until);
}

/* A warrant in force (or needed, node host) is asked about every ID: its holder moves its bounds. */
static int store_admit(mintid__store *s, int64_t end_ms, bool *lasting) {
    struct mintid__host *h = host_of(s);
    if (atomic_load(&h->st)->warrant_pid == 0 && !h->need_warrant)
        return MINTID_OK;
    *lasting = false;
    return mintid__host_warrant_check(h, end_ms);
}

static int store_cover(mintid__store *s, int64_t unix_ms) { return mintid__host_cover(host_of(s), unix_ms); }

static bool store_bound(mintid__store *s) { return mintid__host_under_warrant(host_of(s)); }

static bool store_bound_behind(mintid__store *s, int64_t end_ms) {
    return mintid__host_warrant_ahead(host_of(s), end_ms);
}

static void store_close(mintid__store *s) { mintid__host_close(host_of(s)); }

static const mintid__store_ops host_ops = {
    .survives_fork = true,
    .sleeps_unlocked = true,
    .lock = store_lock,
    .unlock = store_unlock,
    .where = store_where,
    .look = store_look,
    .admit = store_admit,
    .cover = store_cover,
    .bound = store_bound,
    .bound_behind = store_bound_behind,
    .close = store_close,
};

/* The host-wide store of gen; NULL for a generator over another store. */
static struct mintid__host *gen_host(const mintid_gen *gen) {
    mintid__store *s = mintid__gen_store(gen);
    return s->ops == &host_ops ? host_of(s) : NULL;
}

/*
 * Where a host-wide state lives: opt's directory and id space, else the
 * environment's (mintid_env_host_dir(), mintid_env_id_space()), into dir
 * (PATH_MAX bytes) and space. MINTID_EINVAL for a relative or too long
 * directory, or an id space that is none.
 */
static int host_where(const mintid_host_options *opt, char *dir, char *space) {
    if (opt->dir != NULL ? opt->dir[0] != '/' || strlen(opt->dir) >= PATH_MAX
                         : mintid_env_host_dir(dir, PATH_MAX, NULL, 0) != MINTID_OK)
        return MINTID_EINVAL;
    if (opt->id_space != NULL ? !mintid__id_space_valid(opt->id_space)
                              : mintid_env_id_space(space, MINTID_ID_SPACE_MAX + 1, NULL, 0) != MINTID_OK)
        return MINTID_EINVAL;
    if (opt->dir != NULL)
        memcpy(dir, opt->dir, strlen(opt->dir) + 1);
    if (opt->id_space != NULL)
        memcpy(space, opt->id_space, strlen(opt->id_space) + 1);
    return MINTID_OK;
}

/* What opening a host-wide generator needs between its two steps (host_settle(), host_open()). */
typedef struct host_args {
    mintid_host_options opt;
    bool too_small; /* the caller's options are of no struct this library knows */
    char dir[PATH_MAX];
    char space[MINTID_ID_SPACE_MAX + 1];
    bool node_host;
} host_args;

/* Where the state lives, and with node host the node id and epoch the host's mintidd mints the format with. */
static int host_settle(const mintid__format_impl *f, mintid_config *cfg, void *ctx) {
    host_args *a = ctx;
    const mintid_format *fmt = &f->pub;
    if (a->too_small)
        return MINTID_EINVAL;
    int rc = host_where(&a->opt, a->dir, a->space);
    if (rc != MINTID_OK)
        return rc;
    a->node_host = cfg->node == MINTID_NODE_HOST;
    if (!a->node_host)
        return MINTID_OK;
    if (fmt->node_bits == 0 || fmt->node_optional)
        return MINTID_EINVAL;
    mintid__host_why("%s", "");
    return mintid__host_lookup(fmt, a->dir, a->space, &cfg->node, &cfg->epoch_ms);
}

static int host_open(const mintid__format_impl *f, const mintid_config *cfg, void *ctx, mintid__store **out) {
    host_args *a = ctx;
    struct mintid__host *h;
    int rc = mintid__host_open(f, cfg, a->dir, a->space, a->opt.try_lock != 0, &h);
    if (rc != MINTID_OK)
        return rc;
    if (a->node_host)
        mintid__host_need_warrant(h);
    h->base.ops = &host_ops;
    *out = &h->base;
    return MINTID_OK;
}

static const mintid__store_maker host_maker = {.settle = host_settle, .open = host_open};

void mintid_host_options_init(mintid_host_options *opt) {
    memset(opt, 0, sizeof *opt);
    opt->size = sizeof *opt;
}

int mintid_gen_open_host(const mintid_format *fmt, const mintid_config *cfg, const mintid_host_options *opt,
                         mintid_gen **out) {
    host_args a = {0};
    mintid_host_options_init(&a.opt);
    if (opt != NULL) {
        /* A caller built against an older, smaller struct: its fields only. */
        a.too_small = opt->size < offsetof(mintid_host_options, id_space) + sizeof opt->id_space;
        if (!a.too_small) {
            a.opt.dir = opt->dir;
            a.opt.id_space = opt->id_space;
            if (opt->size >= offsetof(mintid_host_options, try_lock) + sizeof opt->try_lock)
                a.opt.try_lock = opt->try_lock;
        }
    }
    return mintid__gen_new(fmt, cfg, &host_maker, &a, out);
}

int mintid_gen_new_host(const mintid_format *fmt, const mintid_config *cfg, const char *dir, mintid_gen **out) {
    host_args a = {0};
    mintid_host_options_init(&a.opt);
    a.opt.dir = dir;
    return mintid__gen_new(fmt, cfg, &host_maker, &a, out);
}

const char *mintid_gen_host_path(const mintid_gen *gen) {
    struct mintid__host *h = gen_host(gen);
    return h != NULL ? h->path : NULL;
}

void mintid_warrant_init(mintid_warrant *w) {
    memset(w, 0, sizeof *w);
    w->size = sizeof *w;
    w->floor_ms = INT64_MIN;
    w->asked_ms = INT64_MIN;
}

int mintid_gen_warrant(mintid_gen *gen, mintid_warrant *w) {
    const mintid_format *fmt = mintid_gen_format(gen);
    struct mintid__host *h = gen_host(gen);
    if (h == NULL || fmt->node_bits == 0 || fmt->node_optional)
        return MINTID_EINVAL;
    /* A caller built against an older, smaller struct: refused (every field is needed). */
    if (w != NULL && w->size < offsetof(mintid_warrant, asked_ms) + sizeof w->asked_ms)
        return MINTID_EINVAL;
    /* The holder is known before the lock is taken: its generators mint
     * past its warrant even while a renewal finds the lock held. A lapse
     * waits for the lock: it must not be lost to a moment's contention. */
    bool lapse = w == NULL || w->until_ns == 0;
    if (w != NULL)
        mintid__host_set_holder(h, w->pid);
    int rc = lapse ? mintid__host_lock_waiting(h) : mintid__host_lock(h);
    if (rc != MINTID_OK)
        return rc;
    /* Into the path's state, if it was replaced: the warrant goes where the homes mint. */
    int64_t now = 0, from, until;
    mintid_clock_system(NULL, &now);
    rc = mintid__host_check(h, now, &from, &until);
    if (rc == MINTID_OK)
        rc = mintid__host_warrant(h, w);
    mintid__host_unlock(h);
    return rc;
}

int mintid_host_publish(const mintid_host_options *opt, int64_t pid, const mintid_host_node *nodes, size_t n) {
    char dir[PATH_MAX], space[MINTID_ID_SPACE_MAX + 1];
    if (opt == NULL || opt->size < offsetof(mintid_host_options, id_space) + sizeof opt->id_space || pid <= 0 ||
        (n > 0 && nodes == NULL))
        return MINTID_EINVAL;
    int rc = host_where(opt, dir, space);
    if (rc != MINTID_OK)
        return rc;
    for (size_t i = 0; i < n; i++)
        if (nodes[i].fmt == NULL || nodes[i].node < 0 || nodes[i].epoch_ms < 0)
            return MINTID_EINVAL;
    return mintid__host_publish(dir, space, pid, nodes, n);
}
