/*
 * state.h - the state directory: a lock that keeps a second server off it,
 * and a timestamp high-water mark that survives restarts.
 */
#ifndef MINTIDD_STATE_H
#define MINTIDD_STATE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct state {
    char dir[256];
    int lock_fd;        /* holds the flock() on dir/lock */
    int64_t mark;       /* Unix ms: no ID so far has a later timestamp; 0 if none */
    int64_t start_mark; /* the mark found at start: every ID of this run must be later */
    uint64_t writes;    /* times the mark was written */
} state;

/*
 * Creates dir if needed, takes its lock and reads the mark. Returns 0, or
 * -1 after logging why (another server holds the lock, unreadable or
 * corrupt state file).
 */
int state_open(state *st, const char *dir);

/* Writes the mark durably: a new file, fsync, rename over the old, fsync of the directory. */
int state_write_mark(state *st, int64_t mark);

void state_close(state *st);

#endif
