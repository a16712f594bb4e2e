/* SPDX-License-Identifier: MIT */
/*
 * state.h - the state directory: a lock an operator cannot delete from
 * under a running server, and a state file that survives restarts with
 * the timestamp high-water mark and every parameter the ID space depends
 * on.
 *
 * The mark only ever goes up while a server runs. It is written ahead of
 * use by a background thread (the writer), so the event loop never waits
 * for a disk: the loop asks for a mark and reads the mark that is durable.
 */
#ifndef MINTIDD_STATE_H
#define MINTIDD_STATE_H

#include "base/config.h"
#include "mintid.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define STATE_LAYOUT_MAX 160

/* What one format's IDs depend on, as recorded in the state file. */
typedef struct state_format {
    bool present;                  /* recorded in the file */
    int64_t epoch_ms;              /* Unix ms of timestamp 0 */
    int64_t floor_ms;              /* no ID of this format at or before this, Unix ms; 0 if none */
    char layout[STATE_LAYOUT_MAX]; /* the bit layout, e.g. "64:timestamp/41,node/10,sequence/12" */
} state_format;

typedef struct state {
    char dir[256];
    int dir_fd;    /* the directory itself, flock()ed while the server runs */
    dev_t dir_dev; /* ...and its identity, to notice when the path names another */
    ino_t dir_ino;
    int version;   /* of the file read at start: 0 (none), 1 or 2 */
    char node[24]; /* "5", or "leased" */
    state_format formats[MINTID_FORMAT_COUNT];
    int64_t start_mark; /* the mark found at start: every ID of this run must be later */
    /* Shared with the writer thread. */
    _Atomic int64_t mark;      /* durable: no ID may carry a later timestamp; 0 if none */
    _Atomic int64_t wanted;    /* the mark the loop asked for */
    _Atomic uint64_t writes;   /* times the file was written */
    _Atomic uint64_t failures; /* writes that failed */
    _Atomic bool failing;      /* the last write failed */
    _Atomic bool dir_lost;     /* the path no longer names the directory locked: nothing is minted */
    pthread_t writer;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool writer_running, stop;
} state;

/*
 * Creates dir if needed, locks it (flock on the directory itself, so no
 * file an operator deletes releases it) and reads the state file, strictly.
 * Returns 0, or -1 after logging why: another server holds the directory
 * (its pid named), the state file is unreadable, corrupt, truncated, of an
 * unknown version, or missing from a directory a server used before.
 */
int state_open(state *st, const char *dir);

/*
 * Compares what the ID space depends on now (the node, "leased" or a
 * number, and each format's epoch and layout under cfg) with what the file
 * recorded. A change is refused, with a message naming it and the safe ways
 * on, unless `adopt`: then the new parameters are taken, and a format whose
 * epoch moved later by D ms gets a floor of mark + D, so none of its new IDs
 * can repeat an old one. Returns 0, or -1 after logging.
 */
int state_check_params(state *st, const config *cfg, bool leased, bool adopt);

/*
 * Writes the state file synchronously with a mark of max(current, mark):
 * a file only the lock holder creates, fsync, rename, fsync of the
 * directory. For start-up and shutdown, before the writer runs or after it
 * stopped. Returns 0, or -1 after logging.
 */
int state_write_now(state *st, int64_t mark);

/*
 * Writes the final mark at shutdown: the latest timestamp this run issued,
 * never below the mark found at start, so the unused reservation need not
 * be waited out by the next start. Only after state_writer_stop().
 */
int state_write_final(state *st, int64_t last_issued);

/*
 * Whether the state directory's path still names the directory this server
 * opened and locked: an operator may have deleted it (and perhaps made
 * another), renamed it, or pointed a symlink elsewhere, and a server
 * started on the path would then lock another directory and read another
 * mark. The writer asks on every write and every second, and sets
 * dir_lost (logged once per change) for admission to read; writes are
 * refused while it is set. Not for the event loop: it calls stat().
 */
bool state_dir_ours(state *st);

/* Starts the writer thread. Returns 0, or -1 after logging. */
int state_writer_start(state *st);
/* Asks the writer for a mark of at least `mark`; never blocks on the disk. */
void state_request(state *st, int64_t mark);
/* Stops the writer, after any write in progress. */
void state_writer_stop(state *st);

/* The per-format floor (0 if none). */
static inline int64_t state_floor(const state *st, int format) { return st->formats[format].floor_ms; }

/* Releases the lock. */
void state_close(state *st);

/*
 * Writes a small file of a state directory durably, whole or not at all:
 * dir/name.new, fsync, renamed to dir/name, fsync of the directory.
 * 0, or -1 with errno (nothing left under the temporary name).
 */
int state_file_write(const char *dir, const char *name, const char *text, size_t len, mode_t mode);

#endif
