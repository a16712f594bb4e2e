/* SPDX-License-Identifier: MIT */
/*
 * etcd_store.h - the key store of a cluster, for servers leasing their
 * node ids from etcd (node-lease): keys are held in the lease's etcd
 * (its endpoints, TLS and user), each created by a create-if-absent
 * transaction under the lease's prefix, so two servers given one key
 * answer it with the same IDs. With key-ttl, keys live on an etcd lease
 * of their own: etcd lets them go. Nothing to prepare.
 */
#ifndef MINTIDD_KEYS_ETCD_STORE_H
#define MINTIDD_KEYS_ETCD_STORE_H

#include "keys/store.h"

extern const key_store_ops etcd_key_store;

#endif
