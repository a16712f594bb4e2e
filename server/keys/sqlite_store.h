/* SPDX-License-Identifier: MIT */
/*
 * sqlite_store.h - the key store of one host: keys.sqlite in the state
 * directory (WAL, synchronous=FULL), shared by the host's processes. The
 * decision "this key has these IDs" is the INSERT that fails on a key
 * already there, inside a write transaction, and waiting for another
 * process's lock is the store's thread's (busy timeout), never the loop's.
 *
 * prepare makes the file if there is none, checks it (PRAGMA
 * quick_check), puts it in WAL mode, makes its tables and sets the clock
 * keys age by for this boot (CLOCK_BOOTTIME, with the kernel's boot id),
 * once, before any process opens it. A store that keys.id or a -wal or
 * -shm beside it shows was there, but is missing or empty, is refused, as
 * is another store in its place (keys.id holds the store's identity). Its
 * key_store_prepared is the file's identity: open refuses a file missing
 * since, or another in its place. Expired keys are deleted in small
 * batches between commits. Every message names the file.
 */
#ifndef MINTIDD_KEYS_SQLITE_STORE_H
#define MINTIDD_KEYS_SQLITE_STORE_H

#include "keys/store.h"

extern const key_store_ops sqlite_key_store;

#endif
