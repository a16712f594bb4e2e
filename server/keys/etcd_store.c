/* SPDX-License-Identifier: MIT */
/*
 * etcd_store.c - the etcd key store (etcd_store.h), through the etcd
 * client (etcd.h) on the node lease's endpoints, TLS and user.
 *
 * A key is PREFIX/keys/<scope>/<format>/<key>, the scope and the key in
 * hex, and its value a JSON object: the request it was given IDs for
 * (count, form, prefix), the IDs (base64 of their bytes) and when. It is
 * created by one transaction: if the key's create_revision is 0 (it does
 * not exist), put it; else read it. etcd commits the put to a quorum's
 * disks before it answers, and a later request reads the winner's value,
 * whichever server asks. With key-ttl, keys are put with an etcd lease of
 * key-ttl plus a hundredth (at least a second) that is granted again that
 * often, so every key lives at least key-ttl.
 */
#include "keys/etcd_store.h"

#include "base/log.h"
#include "cluster/etcd.h"
#include "cluster/lease.h"
#include "service.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The most IDs one key is given: its value (about 27 bytes an ID) stays
 * under 1 MiB, within etcd's default request limit (--max-request-bytes,
 * 1.5 MiB), which etcd refuses past.
 */
#define KEYS_ETCD_MAX_COUNT 30000

typedef struct keys_etcd {
    etcd *client;
    char prefix[128];
    uint64_t ttl_s;
    uint64_t lease_id;      /* the keys' etcd lease; 0: none yet */
    uint64_t lease_from_ns; /* when it was granted (monotonic: a step of the wall clock ages no lease) */
    /* etcd keeps key-ttl by its own leases: the time is only what a key's
     * created_ms says, counted from the wall clock at open (a file's clock
     * is not the cluster's). */
    key_clock clock;
} keys_etcd;

static void hex(const unsigned char *p, size_t n, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}

/* The etcd key of r, as text in path. */
static void etcd_key(const keys_etcd *e, const key_request *r, char *path, size_t cap) {
    char scope[2 * KEY_SCOPE_LEN + 1], key[2 * KEY_MAX + 1];
    hex(r->scope, KEY_SCOPE_LEN, scope);
    hex((const unsigned char *)r->key, r->key_len, key);
    snprintf(path, cap, "%s/keys/%s/%s/%s", e->prefix, scope, r->fmt->name, key);
}

/* Says in r->why why a request to etcd failed. */
static void failed(const etcd_error *err, key_request *r) {
    if (err->status == ETCD_REFUSED)
        snprintf(r->why, sizeof r->why, "etcd refused the key: %.160s", err->text);
    else if (etcd_answered(err->status))
        snprintf(r->why, sizeof r->why, "etcd's answer was not understood: %.150s", err->text);
    else
        snprintf(r->why, sizeof r->why, "etcd, which holds the keys, cannot be reached");
}

/* The keys' etcd lease (granted again every hundredth of key-ttl); 0 without key-ttl. False on failure (r->why). */
static bool keys_lease(keys_etcd *e, key_request *r, uint64_t *id) {
    *id = 0;
    if (e->ttl_s == 0)
        return true;
    uint64_t step = e->ttl_s / 100 > 0 ? e->ttl_s / 100 : 1;
    uint64_t mono = monotonic_ns();
    if (e->lease_id == 0 || mono - e->lease_from_ns >= step * 1000000000u) {
        etcd_error err;
        uint64_t got;
        int64_t granted;
        if (etcd_lease_grant(e->client, (int64_t)(e->ttl_s + step), &got, &granted, &err) != ETCD_OK) {
            failed(&err, r);
            return false;
        }
        e->lease_id = got;
        e->lease_from_ns = mono;
    }
    *id = e->lease_id;
    return true;
}

/* Reads the value of kv, a key etcd holds, into r->got_*: false (r->why) if it does not read back whole. */
static bool read_value(const json_t *kv, key_request *r) {
    size_t len = 0, nbytes = 0;
    long why;
    unsigned char *raw = etcd_b64_json_bytes(json_object_get(kv, "value"), &len, &why), *bytes = NULL;
    json_t *doc = raw != NULL ? json_loadb((const char *)raw, len, 0, NULL) : NULL;
    bool ok = false;
    if (doc != NULL) {
        json_t *count = json_object_get(doc, "count");
        const char *form = json_string_value(json_object_get(doc, "form"));
        const char *prefix = json_string_value(json_object_get(doc, "prefix"));
        int f = form != NULL ? mintid_form_find(form) : -1;
        if (json_is_integer(count) && json_integer_value(count) >= 1 && f >= 0 && prefix != NULL &&
            strlen(prefix) <= MINTID_PREFIX_MAX &&
            (bytes = etcd_b64_json_bytes(json_object_get(doc, "ids"), &nbytes, &why)) != NULL &&
            nbytes == (size_t)json_integer_value(count) * sizeof(mintid_id)) {
            r->got_count = (uint64_t)json_integer_value(count);
            r->got_form = f;
            snprintf(r->got_prefix, sizeof r->got_prefix, "%s", prefix);
            r->got_ids = (mintid_id *)bytes;
            r->created_ms = (int64_t)json_integer_value(json_object_get(doc, "created_ms"));
            bytes = NULL;
            ok = true;
        }
    }
    free(bytes);
    json_decref(doc);
    free(raw);
    if (!ok)
        snprintf(r->why, sizeof r->why, "etcd's record of this key is damaged");
    return ok;
}

/* retry: once more with a new lease if etcd no longer has the keys' lease. */
static void answer_one(keys_etcd *e, key_request *r, int64_t now, bool retry) {
    r->why[0] = '\0';
    r->outcome = KEY_FAILED;
    char key[sizeof e->prefix + 2 * KEY_SCOPE_LEN + 2 * KEY_MAX + 64];
    etcd_key(e, r, key, sizeof key);
    etcd_error err;
    if (r->lookup || r->replay_only) {
        json_t *a = etcd_range(e->client, key, NULL, false, &err), *kv = etcd_kv(a, 0);
        if (a == NULL)
            failed(&err, r);
        else if (kv == NULL && r->replay_only)
            snprintf(r->why, sizeof r->why, "%s", r->mint_why);
        else if (kv == NULL)
            r->outcome = KEY_ABSENT;
        else if (read_value(kv, r))
            r->outcome = !r->replay_only ? KEY_FOUND : key_same_request(r) ? KEY_REPLAYED : KEY_MISMATCH;
        json_decref(a);
        return;
    }
    /* The value: the request, its IDs (base64 of their bytes) and when, as JSON. */
    json_t *value = json_pack("{s:I,s:s,s:s,s:o,s:I}", "count", (json_int_t)r->count, "form",
                              mintid_form_name((mintid_form)r->form), "prefix", r->prefix, "ids",
                              etcd_b64_json(r->ids, r->count * sizeof(mintid_id)), "created_ms", (json_int_t)now);
    char *text = value != NULL ? json_dumps(value, JSON_COMPACT) : NULL;
    json_decref(value);
    uint64_t lease_id;
    if (text == NULL) {
        snprintf(r->why, sizeof r->why, "out of memory");
        return;
    }
    if (!keys_lease(e, r, &lease_id)) {
        free(text);
        return;
    }
    bool created;
    json_t *a = etcd_txn(e->client, json_pack("[o]", etcd_cmp_absent(key)),
                         json_pack("[o]", etcd_op_put(key, text, strlen(text), lease_id)),
                         json_pack("[o]", etcd_op_range(key)), &created, &err);
    free(text);
    if (a == NULL && lease_id != 0 && err.status == ETCD_REFUSED &&
        strstr(err.text, "requested lease not found") != NULL) {
        /* The lease is gone before its time (revoked, etcd restored from
         * a backup): the key is put once more, with a new one. */
        e->lease_id = 0;
        if (retry)
            answer_one(e, r, now, false);
        else
            snprintf(r->why, sizeof r->why, "etcd lost the lease of the keys");
        return;
    }
    if (a == NULL) {
        failed(&err, r);
    } else if (created) {
        key_request_created(r, now);
    } else {
        json_t *kv = etcd_kv(etcd_txn_range(a, 0), 0);
        if (kv == NULL)
            /* It expired between the compare and the read: the retry creates it. */
            snprintf(r->why, sizeof r->why, "the key expired while it was read; try again");
        else if (read_value(kv, r))
            r->outcome = key_same_request(r) ? KEY_REPLAYED : KEY_MISMATCH;
    }
    json_decref(a);
}

/* The table's answer: each request of the batch in its own transaction. */
static void answer(void *st, key_request *batch) {
    keys_etcd *e = st;
    int64_t now = key_clock_now(&e->clock);
    for (key_request *r = batch; r != NULL; r = r->next)
        answer_one(e, r, now, true);
}

static void close_store(void *st) {
    keys_etcd *e = st;
    etcd_close(e->client);
    free(e);
}

/* The table's open: an etcd client on conf's lease's etcd (its endpoints, TLS and user). */
static void *open_store(const key_store_conf *conf, const key_store_prepared *prepared) {
    (void)prepared;
    keys_etcd *e = calloc(1, sizeof *e);
    etcd_config ec;
    lease_etcd_config(conf->lc, "idempotency keys", &ec);
    if (e == NULL || (e->client = etcd_open(&ec)) == NULL) {
        explicit_bzero(ec.password, sizeof ec.password);
        log_msg(LOG_ERROR, "idempotency keys: no etcd client");
        free(e);
        return NULL;
    }
    explicit_bzero(ec.password, sizeof ec.password);
    snprintf(e->prefix, sizeof e->prefix, "%s", conf->lc->prefix);
    e->ttl_s = conf->ttl_s;
    e->clock.base_ms = key_clock_ms(CLOCK_REALTIME);
    e->clock.boot_ms = key_clock_ms(CLOCK_BOOTTIME);
    return e;
}

const key_store_ops etcd_key_store = {
    .prepare = NULL,
    .open = open_store,
    .answer = answer,
    .expire = NULL,
    .stop = NULL,
    .close = close_store,
    .max_count = KEYS_ETCD_MAX_COUNT,
};
