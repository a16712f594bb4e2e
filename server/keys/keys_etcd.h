/* SPDX-License-Identifier: MIT */
/*
 * keys_etcd.h - idempotency keys held in etcd, for servers leasing their
 * node ids from it (node-lease): a key is created with a create-if-absent
 * transaction under the lease's prefix, so two servers given one key
 * answer it with the same IDs.
 */
#ifndef MINTIDD_KEYS_ETCD_H
#define MINTIDD_KEYS_ETCD_H

#include "keys/keystore.h"
#include "cluster/lease.h"

/*
 * The key store's remote (keystore.h) on cfg's etcd (its endpoints, TLS
 * and user), keys living ttl_s seconds (0: forever). NULL after logging why.
 */
keystore_remote *keys_etcd_open(const lease_config *cfg, uint64_t ttl_s);

#endif
