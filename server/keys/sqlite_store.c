/* SPDX-License-Identifier: MIT */
/*
 * sqlite_store.c - the SQLite key store (sqlite_store.h): WAL mode with
 * synchronous=FULL, so a batch's commit is fsynced before the loop hears
 * of it and a reply is sent.
 */
#include "keys/sqlite_store.h"

#include "base/config.h"
#include "base/log.h"
#include "base/state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Expired keys deleted per transaction, so expiry never holds the file's lock for long. */
#define EXPIRE_BATCH 500
/* How long the thread waits for another process's write lock before it gives up on a batch. */
#define BUSY_TIMEOUT_MS 10000
/* ...and for the lock to note the store's time as it stops. */
#define STOP_BUSY_TIMEOUT_MS 200

static const char schema[] = "CREATE TABLE IF NOT EXISTS keys("
                             " scope BLOB NOT NULL, format TEXT NOT NULL, key BLOB NOT NULL,"
                             " count INTEGER NOT NULL, form TEXT NOT NULL, prefix TEXT NOT NULL, ids BLOB NOT NULL,"
                             " created_ms INTEGER NOT NULL, PRIMARY KEY(scope, format, key)) WITHOUT ROWID;"
                             "CREATE INDEX IF NOT EXISTS keys_created ON keys(created_ms);"
                             "CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL);"
                             "INSERT OR IGNORE INTO meta VALUES('keys', 0);"
                             "CREATE TABLE IF NOT EXISTS clock(one INTEGER PRIMARY KEY CHECK(one = 1),"
                             " boot TEXT NOT NULL, base_ms INTEGER NOT NULL, boot_ms INTEGER NOT NULL,"
                             " seen_ms INTEGER NOT NULL, seen_wall_ms INTEGER NOT NULL);";

enum { ST_GET, ST_INSERT, ST_DELETE_OLD, ST_COUNT, ST_ADD, ST_EXPIRE, ST_SEEN, ST_N };
static const char *const statements[ST_N] = {
    [ST_GET] = "SELECT count, form, prefix, ids, created_ms FROM keys WHERE scope = ?1 AND format = ?2 AND key = ?3",
    [ST_INSERT] = "INSERT INTO keys VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT DO NOTHING",
    [ST_DELETE_OLD] = "DELETE FROM keys WHERE scope = ?1 AND format = ?2 AND key = ?3 AND created_ms < ?4",
    [ST_COUNT] = "SELECT value FROM meta WHERE name = 'keys'",
    [ST_ADD] = "UPDATE meta SET value = max(0, value + ?1) WHERE name = 'keys'",
    [ST_EXPIRE] = ("DELETE FROM keys WHERE (scope, format, key) IN"
                   " (SELECT scope, format, key FROM keys WHERE created_ms < ?1 LIMIT ?2)"),
    [ST_SEEN] = "UPDATE clock SET seen_ms = ?1, seen_wall_ms = ?2 WHERE boot = ?3 AND boot_ms = ?4 AND seen_ms <= ?1",
};

typedef struct sqlite_store {
    sqlite3 *db;
    sqlite3_stmt *st[ST_N];
    char path[CONFIG_STR_MAX + 32];
    uint64_t ttl_ms, max;
    /* The store's time (key_clock_now): one clock for every process that
     * opens the store (take_clock), counted on CLOCK_BOOTTIME from a base
     * in the store. A step of the wall clock neither expires a key before
     * its key-ttl nor keeps one past it, and a worker started after one
     * counts as the workers started before it do. */
    key_clock clock;
    char boot[40]; /* the boot it counts in (the kernel's boot id) */
} sqlite_store;

/* The kernel's boot id, new at every boot ("" where it cannot be read: a
 * reboot is then known only by CLOCK_BOOTTIME going back). */
static void read_boot_id(char *out, size_t size) {
    out[0] = '\0';
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (f == NULL)
        return;
    if (fgets(out, (int)size, f) == NULL)
        out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
}

/* keys.sqlite's path in the state directory. */
static void store_path(const key_store_conf *conf, char *path, size_t size) {
    snprintf(path, size, "%s/keys.sqlite", conf->state_dir);
}

static bool exec_sql(sqlite_store *ks, const char *sql) {
    char *err = NULL;
    if (sqlite3_exec(ks->db, sql, NULL, NULL, &err) == SQLITE_OK)
        return true;
    log_msg(LOG_ERROR, "key store %s: %s: %s", ks->path, sql, err != NULL ? err : sqlite3_errmsg(ks->db));
    sqlite3_free(err);
    return false;
}

static void bind_key(sqlite3_stmt *s, const key_request *r) {
    sqlite3_bind_blob(s, 1, r->scope, KEY_SCOPE_LEN, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, r->fmt->name, -1, SQLITE_STATIC);
    sqlite3_bind_blob(s, 3, r->key, (int)r->key_len, SQLITE_STATIC);
}

/*
 * Reads r's key into r->got_*: SQLITE_ROW (found), SQLITE_DONE (absent or
 * expired), or an error. A row that does not read back whole (an ID blob
 * of the wrong size, a form the format lacks) is an error: a key is never
 * answered with IDs other than the ones it was given.
 */
static int read_key(sqlite_store *ks, key_request *r, int64_t now) {
    sqlite3_stmt *s = ks->st[ST_GET];
    sqlite3_reset(s);
    bind_key(s, r);
    int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW)
        return rc;
    int64_t count = sqlite3_column_int64(s, 0), created = sqlite3_column_int64(s, 4);
    const char *form = (const char *)sqlite3_column_text(s, 1), *prefix = (const char *)sqlite3_column_text(s, 2);
    const void *ids = sqlite3_column_blob(s, 3);
    size_t bytes = (size_t)sqlite3_column_bytes(s, 3);
    if (ks->ttl_ms != 0 && created < now - (int64_t)ks->ttl_ms) {
        sqlite3_reset(s);
        return SQLITE_DONE;
    }
    int f = form != NULL ? mintid_form_find(form) : -1;
    if (count < 1 || bytes != (size_t)count * sizeof(mintid_id) || ids == NULL || f < 0 || prefix == NULL ||
        strlen(prefix) > MINTID_PREFIX_MAX) {
        snprintf(r->why, sizeof r->why, "the key store's record of this key is damaged");
        sqlite3_reset(s);
        return SQLITE_CORRUPT;
    }
    free(r->got_ids == r->ids ? NULL : r->got_ids);
    r->got_ids = malloc(bytes);
    if (r->got_ids == NULL) {
        snprintf(r->why, sizeof r->why, "out of memory");
        sqlite3_reset(s);
        return SQLITE_NOMEM;
    }
    memcpy(r->got_ids, ids, bytes);
    r->got_count = (uint64_t)count;
    r->got_form = f;
    snprintf(r->got_prefix, sizeof r->got_prefix, "%s", prefix);
    r->created_ms = created;
    sqlite3_reset(s);
    return SQLITE_ROW;
}

static bool step_done(sqlite_store *ks, int idx) {
    int rc = sqlite3_step(ks->st[idx]);
    sqlite3_reset(ks->st[idx]);
    return rc == SQLITE_DONE || (rc == SQLITE_ROW && idx == ST_COUNT);
}

/*
 * Takes the store's clock (ks->clock) from its clock table, or sets it
 * there, inside one write transaction: every process that opens the store
 * in one boot of the host counts the same time from the same base, so no
 * worker takes another's keys for older than they are, whenever it
 * started and whatever the wall clock did meanwhile.
 *
 * A clock set in another boot (or one that would now read earlier than
 * the store last saw: CLOCK_BOOTTIME gone back, a reboot whose id could
 * not be read) is set anew where the store left off: the latest time it
 * saw (note_seen), or its newest key's if later, plus the time the wall
 * clock counts from then to now, never less than none. The host's only
 * witness of the time it was down is the wall clock; a step of it while
 * the host ran is not taken up, and a clock behind at boot makes no key
 * younger than it was, nor one from the future. A store with no clock yet
 * (new, or made by an earlier build) starts at the wall clock, or at its
 * newest key if that is later. say: log a new boot's clock. false (logged)
 * if the store cannot be read or written.
 */
static bool take_clock(sqlite_store *ks, bool say) {
    read_boot_id(ks->boot, sizeof ks->boot);
    if (!exec_sql(ks, "BEGIN IMMEDIATE"))
        return false;
    int64_t wall = key_clock_ms(CLOCK_REALTIME), since_boot = key_clock_ms(CLOCK_BOOTTIME);
    int64_t base = 0, at = 0, seen = 0, seen_wall = 0, newest = INT64_MIN;
    bool had = false, same = false;
    sqlite3_stmt *s = NULL;
    bool ok = sqlite3_prepare_v2(ks->db, "SELECT boot, base_ms, boot_ms, seen_ms, seen_wall_ms FROM clock", -1, &s,
                                 NULL) == SQLITE_OK;
    int rc = ok ? sqlite3_step(s) : SQLITE_ERROR;
    ok = rc == SQLITE_ROW || rc == SQLITE_DONE;
    if (rc == SQLITE_ROW) {
        had = true;
        const char *boot = (const char *)sqlite3_column_text(s, 0);
        base = sqlite3_column_int64(s, 1);
        at = sqlite3_column_int64(s, 2);
        seen = sqlite3_column_int64(s, 3);
        seen_wall = sqlite3_column_int64(s, 4);
        same = boot != NULL && strcmp(boot, ks->boot) == 0 && base + (since_boot - at) >= seen;
    }
    sqlite3_finalize(s);
    if (ok && same) {
        ks->clock.base_ms = base;
        ks->clock.boot_ms = at;
        if (exec_sql(ks, "COMMIT"))
            return true;
        exec_sql(ks, "ROLLBACK");
        return false;
    }
    s = NULL;
    ok = ok && sqlite3_prepare_v2(ks->db, "SELECT max(created_ms) FROM keys", -1, &s, NULL) == SQLITE_OK &&
         sqlite3_step(s) == SQLITE_ROW;
    if (ok && sqlite3_column_type(s, 0) != SQLITE_NULL)
        newest = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    int64_t from;
    if (had)
        from = (seen > newest ? seen : newest) + (wall > seen_wall ? wall - seen_wall : 0);
    else
        from = wall > newest ? wall : newest;
    s = NULL;
    ok = ok &&
         sqlite3_prepare_v2(ks->db, "INSERT OR REPLACE INTO clock VALUES(1, ?1, ?2, ?3, ?2, ?4)", -1, &s, NULL) ==
             SQLITE_OK &&
         sqlite3_bind_text(s, 1, ks->boot, -1, SQLITE_STATIC) == SQLITE_OK &&
         sqlite3_bind_int64(s, 2, from) == SQLITE_OK && sqlite3_bind_int64(s, 3, since_boot) == SQLITE_OK &&
         sqlite3_bind_int64(s, 4, wall) == SQLITE_OK && sqlite3_step(s) == SQLITE_DONE;
    sqlite3_finalize(s);
    if (!ok) {
        log_msg(LOG_ERROR, "key store %s: its clock: %s", ks->path, sqlite3_errmsg(ks->db));
        exec_sql(ks, "ROLLBACK");
        return false;
    }
    if (!exec_sql(ks, "COMMIT")) {
        exec_sql(ks, "ROLLBACK");
        return false;
    }
    ks->clock.base_ms = from;
    ks->clock.boot_ms = since_boot;
    if (say && had)
        log_msg(LOG_INFO,
                "key store %s: a new boot; keys age on from where the last one left them, %" PRId64
                " s later by the system clock",
                ks->path, (from - (seen > newest ? seen : newest)) / 1000);
    return true;
}

/*
 * Records the store's time now beside the wall clock's, for the next boot
 * to go on from (take_clock); inside a write transaction. A crash leaves
 * the last record, a second or so old.
 */
static bool note_seen(sqlite_store *ks) {
    sqlite3_stmt *s = ks->st[ST_SEEN];
    sqlite3_bind_int64(s, 1, key_clock_now(&ks->clock));
    sqlite3_bind_int64(s, 2, key_clock_ms(CLOCK_REALTIME));
    sqlite3_bind_text(s, 3, ks->boot, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 4, ks->clock.boot_ms);
    return step_done(ks, ST_SEEN);
}

/*
 * Answers an insert inside the batch's transaction; *added counts the keys
 * it creates. Returns false on a failure of the store, which fails the
 * whole batch.
 */
static bool answer_insert(sqlite_store *ks, key_request *r, int64_t now, int64_t *held, int64_t *added) {
    if (ks->ttl_ms != 0) {
        /* An expired key is gone, whether or not expiry has reached it yet. */
        sqlite3_stmt *d = ks->st[ST_DELETE_OLD];
        bind_key(d, r);
        sqlite3_bind_int64(d, 4, now - (int64_t)ks->ttl_ms);
        if (!step_done(ks, ST_DELETE_OLD))
            return false;
        *added -= sqlite3_changes(ks->db);
    }
    if (*held + *added >= (int64_t)ks->max) {
        /* Full: a key already there still replays. */
        int rc = read_key(ks, r, now);
        if (rc == SQLITE_DONE) {
            r->outcome = KEY_FULL;
            return true;
        }
        if (rc != SQLITE_ROW)
            return rc == SQLITE_CORRUPT || rc == SQLITE_NOMEM ? (r->outcome = KEY_FAILED, true) : false;
    } else {
        sqlite3_stmt *s = ks->st[ST_INSERT];
        bind_key(s, r);
        sqlite3_bind_int64(s, 4, (sqlite3_int64)r->count);
        sqlite3_bind_text(s, 5, mintid_form_name((mintid_form)r->form), -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 6, r->prefix, -1, SQLITE_STATIC);
        sqlite3_bind_blob64(s, 7, r->ids, r->count * sizeof(mintid_id), SQLITE_STATIC);
        sqlite3_bind_int64(s, 8, now);
        if (!step_done(ks, ST_INSERT))
            return false;
        if (sqlite3_changes(ks->db) == 1) {
            (*added)++;
            key_request_created(r, now);
            return true;
        }
        /* The key was there: the winner's IDs, read in the same transaction. */
        int rc = read_key(ks, r, now);
        if (rc != SQLITE_ROW)
            return rc == SQLITE_CORRUPT || rc == SQLITE_NOMEM ? (r->outcome = KEY_FAILED, true) : false;
    }
    r->outcome = key_same_request(r) ? KEY_REPLAYED : KEY_MISMATCH;
    return true;
}

/* Answers a request whose mint failed: the key's IDs if it has them, else the mint's failure. False on a failure of the
 * store. */
static bool answer_replay(sqlite_store *ks, key_request *r, int64_t now) {
    int rc = read_key(ks, r, now);
    if (rc == SQLITE_ROW)
        r->outcome = key_same_request(r) ? KEY_REPLAYED : KEY_MISMATCH;
    else if (rc == SQLITE_DONE) {
        r->outcome = KEY_FAILED;
        snprintf(r->why, sizeof r->why, "%s", r->mint_why);
    } else if (rc == SQLITE_CORRUPT || rc == SQLITE_NOMEM)
        r->outcome = KEY_FAILED;
    else
        return false;
    return true;
}

/* The table's answer: the batch in one transaction; every request KEY_FAILED if it could not be committed. */
static void answer_batch(void *st, key_request *batch) {
    sqlite_store *ks = st;
    int64_t now = key_clock_now(&ks->clock), held = 0, added = 0;
    bool writes = false;
    for (key_request *r = batch; r != NULL; r = r->next)
        writes = writes || (!r->lookup && !r->replay_only);
    if (!exec_sql(ks, writes ? "BEGIN IMMEDIATE" : "BEGIN"))
        goto fail;
    if (writes) {
        sqlite3_stmt *s = ks->st[ST_COUNT];
        if (sqlite3_step(s) == SQLITE_ROW)
            held = sqlite3_column_int64(s, 0);
        sqlite3_reset(s);
    }
    for (key_request *r = batch; r != NULL; r = r->next) {
        r->why[0] = '\0';
        if (r->lookup) {
            int rc = read_key(ks, r, now);
            if (rc == SQLITE_ROW)
                r->outcome = KEY_FOUND;
            else if (rc == SQLITE_DONE)
                r->outcome = KEY_ABSENT;
            else if (rc == SQLITE_CORRUPT || rc == SQLITE_NOMEM)
                r->outcome = KEY_FAILED;
            else
                goto rollback;
        } else if (r->replay_only ? !answer_replay(ks, r, now) : !answer_insert(ks, r, now, &held, &added)) {
            goto rollback;
        }
    }
    if (added != 0) {
        sqlite3_bind_int64(ks->st[ST_ADD], 1, added);
        if (!step_done(ks, ST_ADD))
            goto rollback;
    }
    if (!exec_sql(ks, "COMMIT"))
        goto rollback;
    return;
rollback:
    log_msg(LOG_ERROR, "key store %s: %s", ks->path, sqlite3_errmsg(ks->db));
    exec_sql(ks, "ROLLBACK");
fail:
    for (key_request *r = batch; r != NULL; r = r->next) {
        if (r->got_ids == r->ids)
            r->got_ids = NULL;
        r->outcome = KEY_FAILED;
        snprintf(r->why, sizeof r->why, "the key store cannot be written: %s", sqlite3_errmsg(ks->db));
    }
}

/* The table's expire: deletes up to EXPIRE_BATCH expired keys, and notes the store's time; true if there may be more.
 */
static bool expire_some(void *st) {
    sqlite_store *ks = st;
    if (ks->ttl_ms == 0 || !exec_sql(ks, "BEGIN IMMEDIATE"))
        return false;
    sqlite3_stmt *s = ks->st[ST_EXPIRE];
    sqlite3_bind_int64(s, 1, key_clock_now(&ks->clock) - (int64_t)ks->ttl_ms);
    sqlite3_bind_int(s, 2, EXPIRE_BATCH);
    if (!step_done(ks, ST_EXPIRE)) {
        exec_sql(ks, "ROLLBACK");
        return false;
    }
    int gone = sqlite3_changes(ks->db);
    sqlite3_bind_int64(ks->st[ST_ADD], 1, -gone);
    if (!step_done(ks, ST_ADD) || !note_seen(ks) || !exec_sql(ks, "COMMIT")) {
        exec_sql(ks, "ROLLBACK");
        return false;
    }
    return gone == EXPIRE_BATCH;
}

/*
 * The table's stop: where the next boot goes on from (a crash leaves
 * expiry's last note), with a moment's wait for the lock at most, so that
 * another process holding it never holds up the stop.
 */
static void note_stop(void *st) {
    sqlite_store *ks = st;
    sqlite3_busy_timeout(ks->db, STOP_BUSY_TIMEOUT_MS);
    if (exec_sql(ks, "BEGIN IMMEDIATE") && (!note_seen(ks) || !exec_sql(ks, "COMMIT")))
        exec_sql(ks, "ROLLBACK");
}

static bool open_db(sqlite3 **db, const char *path, int flags) {
    int rc = sqlite3_open_v2(path, db, flags | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        log_msg(LOG_ERROR, "key store %s cannot be opened: %s", path,
                *db != NULL ? sqlite3_errmsg(*db) : sqlite3_errstr(rc));
        return false;
    }
    sqlite3_busy_timeout(*db, BUSY_TIMEOUT_MS);
    return true;
}

/*
 * keys.id beside the store: the identity of the store this state directory
 * made (a random number, also in the store's meta table), so that a store
 * deleted, or replaced by another, while the server was stopped is refused
 * rather than taken for an empty or another store: a retry of every key it
 * held would get new IDs. 1 with *id, 0 if there is none, -1 (logged) if it
 * cannot be read.
 */
static int read_store_id(const char *id_path, long long *id) {
    FILE *f = fopen(id_path, "re");
    if (f == NULL) {
        if (errno == ENOENT)
            return 0;
        log_msg(LOG_ERROR, "%s: %s", id_path, strerror(errno));
        return -1;
    }
    char line[64] = "";
    char *end = NULL;
    bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (ok) {
        errno = 0;
        *id = strtoll(line, &end, 10);
        ok = errno == 0 && end != line && (*end == '\n' || *end == '\0');
    }
    if (!ok) {
        log_msg(LOG_ERROR, "%s does not hold a key store's identity (one decimal number): restore it from a backup",
                id_path);
        return -1;
    }
    return 1;
}

/* Writes keys.id (id_path) durably, as every small file of the state directory is written. */
static bool write_store_id(const char *id_path, long long id) {
    char dir[sizeof((sqlite_store *)0)->path], text[32];
    snprintf(dir, sizeof dir, "%s", id_path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL)
        *slash = '\0';
    int n = snprintf(text, sizeof text, "%lld\n", id);
    if (state_file_write(slash != NULL ? dir : ".", "keys.id", text, (size_t)n, 0600) != 0) {
        log_msg(LOG_ERROR, "%s cannot be written: %s", id_path, strerror(errno));
        return false;
    }
    return true;
}

/* keys.id's path (out, of sizeof ((sqlite_store *)0)->path bytes), beside the store at path. */
static void id_path_of(const char *path, char *out, size_t size) {
    snprintf(out, size, "%s", path);
    char *base = strrchr(out, '/');
    snprintf(base != NULL ? base + 1 : out, size - (size_t)(base != NULL ? base + 1 - out : 0), "keys.id");
}

/*
 * The command that starts with no keys on purpose, for a message: what is
 * left of the store at path, with keys.id, so that the next start makes a
 * store of its own and no -wal of the old one is read into it.
 */
static void forget_command(const char *path, char *out, size_t size) {
    const char *slash = strrchr(path, '/');
    const char *name = slash != NULL ? slash + 1 : path;
    int dir_len = slash != NULL ? (int)(slash - path) : 1;
    snprintf(out, size, "cd %.*s && rm -f %s %s-wal %s-shm keys.id", dir_len, slash != NULL ? path : ".", name, name,
             name);
}

/*
 * The table's prepare: makes the store's file if there is none (its
 * owner's alone, as an older one and its -wal and -shm files are made
 * too), checks it (PRAGMA quick_check), puts it in WAL mode, makes its
 * tables and sets the clock keys age by for this boot. A store that
 * keys.id or a -wal or -shm beside it shows was there, but is missing or
 * empty, is refused, as is another store in its place. *out: the file, by
 * its identity.
 */
static int prepare(const key_store_conf *conf, key_store_prepared *out) {
    sqlite_store ks = {.db = NULL};
    store_path(conf, ks.path, sizeof ks.path);
    const char *path = ks.path;
    char id_path[sizeof ks.path], forget[2 * sizeof ks.path];
    id_path_of(path, id_path, sizeof id_path);
    forget_command(path, forget, sizeof forget);
    long long recorded = 0;
    int have_id = read_store_id(id_path, &recorded);
    if (have_id < 0)
        return -1;
    /* A store that the directory shows it had (keys.id, or the -wal and
     * -shm files SQLite leaves beside it after a crash or while workers
     * run) but that is gone, or an empty file, was lost while the server
     * was stopped: refused, as a state file missing from a used directory
     * is, not made anew with every key forgotten. SQLite would delete a
     * -wal it finds beside an empty file, and with it the lost store's last
     * commits. */
    char wal[sizeof ks.path + 8], shm[sizeof ks.path + 8];
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(shm, sizeof shm, "%s-shm", path);
    struct stat found;
    bool gone = stat(path, &found) != 0 ? errno == ENOENT : S_ISREG(found.st_mode) && found.st_size == 0;
    const char *shows = !gone                    ? NULL
                        : have_id == 1           ? id_path
                        : access(wal, F_OK) == 0 ? wal
                        : access(shm, F_OK) == 0 ? shm
                                                 : NULL;
    if (shows != NULL) {
        log_msg(LOG_ERROR,
                "key store %s is missing or empty, but %s shows this state directory had one: it was deleted, "
                "moved or emptied while the server was stopped, and a retry of every key it held would get new "
                "IDs. Put it back beside its -wal, or restore a backup once the -wal and -shm left there are "
                "removed (they are the lost store's); to start with no keys on purpose: %s",
                path, shows, forget);
        return -1;
    }
    /* Made readable by its owner alone, as the state directory is; SQLite
     * gives its -wal and -shm files the same permissions. */
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        log_msg(LOG_ERROR, "key store %s cannot be opened: %s", path, strerror(errno));
        return -1;
    }
    close(fd);
    /* One an earlier release made (readable by all, as the umask left it)
     * is narrowed too, with the -wal and -shm files a crash left beside it,
     * before SQLite copies its mode to new ones. */
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        char name[sizeof ks.path + 8];
        snprintf(name, sizeof name, "%s%s", path, suffixes[i]);
        struct stat sb;
        fd = open(name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (fstat(fd, &sb) == 0 && (sb.st_mode & 077) != 0 && fchmod(fd, sb.st_mode & 0700) != 0)
            log_msg(LOG_WARN, "key store %s: cannot make it its owner's alone: %s", name, strerror(errno));
        close(fd);
    }
    int ok = open_db(&ks.db, path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    /* A damaged file is refused before anything is served: a key answered
     * from it could get other IDs than the ones it was given. */
    sqlite3_stmt *check = NULL;
    const char *verdict = NULL;
    if (ok && sqlite3_prepare_v2(ks.db, "PRAGMA quick_check", -1, &check, NULL) == SQLITE_OK &&
        sqlite3_step(check) == SQLITE_ROW)
        verdict = (const char *)sqlite3_column_text(check, 0);
    if (ok && (verdict == NULL || strcmp(verdict, "ok") != 0)) {
        log_msg(LOG_ERROR,
                "key store %s is damaged (%s): mintidd will not start with it. Restore it from a backup; to start "
                "with no keys on purpose (every key's IDs then forgotten), move it aside with its -wal and -shm "
                "(to look into), then: %s",
                path, verdict != NULL ? verdict : sqlite3_errmsg(ks.db), forget);
        ok = false;
    }
    sqlite3_finalize(check);
    /* WAL is a property of the file, kept by every connection opened later. */
    ok = ok && exec_sql(&ks, "PRAGMA journal_mode=WAL") && exec_sql(&ks, schema);
    /* The store's identity: made once, recorded beside it. */
    long long id = 0;
    sqlite3_stmt *get = NULL;
    ok = ok && exec_sql(&ks, "INSERT OR IGNORE INTO meta VALUES('store', random())") &&
         sqlite3_prepare_v2(ks.db, "SELECT value FROM meta WHERE name = 'store'", -1, &get, NULL) == SQLITE_OK &&
         sqlite3_step(get) == SQLITE_ROW;
    if (ok)
        id = sqlite3_column_int64(get, 0);
    sqlite3_finalize(get);
    if (ok && have_id == 1 && id != recorded) {
        log_msg(LOG_ERROR,
                "key store %s is not the one this state directory made (it is store %lld, %s says %lld): it was "
                "replaced while the server was stopped, and keys it never held would be answered as new. Put the "
                "right one back; to take this one on purpose, remove %s",
                path, id, id_path, recorded, id_path);
        ok = false;
    }
    /* The clock every process opening the store counts keys' ages on. */
    ok = ok && take_clock(&ks, true);
    if (ok && have_id == 0)
        ok = write_store_id(id_path, id);
    sqlite3_close(ks.db);
    if (ok && stat(path, &found) == 0) {
        out->known = true;
        out->dev = found.st_dev;
        out->ino = found.st_ino;
    }
    return ok ? 0 : -1;
}

static void close_store(void *st) {
    sqlite_store *ks = st;
    for (int i = 0; i < ST_N; i++)
        sqlite3_finalize(ks->st[i]);
    sqlite3_close(ks->db);
    free(ks);
}

/*
 * The table's open: the file prepare left (prepared), with the clock keys
 * age by taken from it, the same in every process.
 */
static void *open_store(const key_store_conf *conf, const key_store_prepared *prepared) {
    sqlite_store *ks = calloc(1, sizeof *ks);
    if (ks == NULL) {
        log_msg(LOG_ERROR, "out of memory opening the key store");
        return NULL;
    }
    store_path(conf, ks->path, sizeof ks->path);
    const char *path = ks->path;
    ks->ttl_ms = conf->ttl_s * 1000;
    ks->max = conf->max;
    /* The file was made and checked by prepare: one missing now (deleted
     * or moved while the server ran, then a worker restarted) is refused,
     * not made anew with every key forgotten, and said plainly: SQLite's
     * own words for it are "unable to open database file". */
    struct stat sb;
    int found = stat(path, &sb);
    if (found != 0 && errno == ENOENT) {
        char forget[2 * sizeof ks->path];
        forget_command(path, forget, sizeof forget);
        log_msg(LOG_ERROR,
                "key store %s is missing: it was deleted or moved while mintidd ran, and is not made anew with "
                "every key's IDs forgotten. Put it back; to start with no keys on purpose, stop mintidd, run %s, "
                "and restart mintidd",
                path, forget);
        goto fail;
    }
    /* Another file in its place (a backup copied over it) is refused too:
     * the processes still running answer keys from the file they opened,
     * and two stores could give one key two sets of IDs. */
    if (found == 0 && prepared->known && (sb.st_dev != prepared->dev || sb.st_ino != prepared->ino)) {
        log_msg(LOG_ERROR,
                "key store %s was replaced by another file while mintidd ran: the processes still running use the "
                "one they opened, and one key could get two sets of IDs from two stores. Put the first one back, or "
                "restart mintidd to use the new one",
                path);
        goto fail;
    }
    if (!open_db(&ks->db, path, SQLITE_OPEN_READWRITE) || !exec_sql(ks, "PRAGMA synchronous=FULL"))
        goto fail;
    for (int i = 0; i < ST_N; i++)
        if (sqlite3_prepare_v3(ks->db, statements[i], -1, SQLITE_PREPARE_PERSISTENT, &ks->st[i], NULL) != SQLITE_OK) {
            log_msg(LOG_ERROR, "key store %s: %s", path, sqlite3_errmsg(ks->db));
            goto fail;
        }
    if (!take_clock(ks, false))
        goto fail;
    return ks;
fail:
    close_store(ks);
    return NULL;
}

const key_store_ops sqlite_key_store = {
    .prepare = prepare,
    .open = open_store,
    .answer = answer_batch,
    .expire = expire_some,
    .stop = note_stop,
    .close = close_store,
    .max_count = 0,
};
