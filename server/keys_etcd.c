/* SPDX-License-Identifier: MIT */
/*
 * keys_etcd.c - idempotency keys in etcd (keys_etcd.h), through the node
 * lease's client (lease_client_call, etcd's v3 JSON gateway).
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
#include "keys_etcd.h"

#include "log.h"
#include "service.h"

#include <jansson.h>
#include <openssl/evp.h>
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
    lease *client;
    char prefix[128];
    uint64_t ttl_s;
    uint64_t lease_id;      /* the keys' etcd lease; 0: none yet */
    uint64_t lease_from_ns; /* when it was granted (monotonic: a step of the wall clock ages no lease) */
    keystore_remote remote;
} keys_etcd;

/* Base64 of n bytes, NUL-terminated (malloc), or NULL. */
static char *b64(const void *p, size_t n) {
    char *out = malloc(4 * ((n + 2) / 3) + 1);
    if (out != NULL)
        EVP_EncodeBlock((unsigned char *)out, p, (int)n);
    return out;
}

/* Decodes base64 text into *out (malloc), its length in *len; false if it does not decode. */
static bool unb64(const char *text, unsigned char **out, size_t *len) {
    size_t n = strlen(text);
    if (n % 4 != 0 || (*out = malloc(n / 4 * 3 + 1)) == NULL)
        return false;
    int got = EVP_DecodeBlock(*out, (const unsigned char *)text, (int)n);
    if (got < 0) {
        free(*out);
        return false;
    }
    size_t pad = n >= 1 && text[n - 1] == '=' ? (n >= 2 && text[n - 2] == '=' ? 2 : 1) : 0;
    *len = (size_t)got - pad;
    return true;
}

static void hex(const unsigned char *p, size_t n, char *out) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}

/* The etcd key of r, in base64 (malloc). */
static char *etcd_key(const keys_etcd *e, const key_request *r) {
    char scope[2 * KEY_SCOPE_LEN + 1], key[2 * KEY_MAX + 1], path[sizeof e->prefix + sizeof scope + sizeof key + 64];
    hex(r->scope, KEY_SCOPE_LEN, scope);
    hex((const unsigned char *)r->key, r->key_len, key);
    int n = snprintf(path, sizeof path, "%s/keys/%s/%s/%s", e->prefix, scope, r->fmt->name, key);
    return b64(path, (size_t)n);
}

/* POSTs req (taken) to path: the answer, or NULL with r->why set. */
static json_t *ask(keys_etcd *e, const char *path, json_t *req, key_request *r) {
    char *text = req != NULL ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    char *answer = text != NULL ? lease_client_call(e->client, path, text) : NULL;
    free(text);
    json_t *doc = answer != NULL ? json_loads(answer, 0, NULL) : NULL;
    free(answer);
    if (doc == NULL)
        snprintf(r->why, sizeof r->why, "etcd, which holds the keys, cannot be reached");
    else if (json_object_get(doc, "error") != NULL) {
        const char *msg = json_string_value(json_object_get(doc, "error"));
        if (msg == NULL)
            msg = json_string_value(json_object_get(doc, "message"));
        snprintf(r->why, sizeof r->why, "etcd refused the key: %s", msg != NULL ? msg : "an error");
        json_decref(doc);
        doc = NULL;
    }
    return doc;
}

/* The keys' etcd lease (granted again every hundredth of key-ttl); 0 without key-ttl or on failure (r->why). */
static bool keys_lease(keys_etcd *e, key_request *r, uint64_t *id) {
    *id = 0;
    if (e->ttl_s == 0)
        return true;
    uint64_t step = e->ttl_s / 100 > 0 ? e->ttl_s / 100 : 1;
    uint64_t mono = monotonic_ns();
    if (e->lease_id == 0 || mono - e->lease_from_ns >= step * 1000000000u) {
        json_t *a = ask(e, "lease/grant", json_pack("{s:I}", "TTL", (json_int_t)(e->ttl_s + step)), r);
        const char *text = json_string_value(json_object_get(a, "ID"));
        uint64_t got = 0;
        if (text != NULL) {
            char *end;
            got = strtoull(text, &end, 10);
            if (*end != '\0')
                got = 0;
        }
        json_decref(a);
        if (got == 0) {
            if (r->why[0] == '\0')
                snprintf(r->why, sizeof r->why, "etcd granted no lease for the keys");
            return false;
        }
        e->lease_id = got;
        e->lease_from_ns = mono;
    }
    *id = e->lease_id;
    return true;
}

/* Reads a stored value into r->got_*: false (r->why) if it does not read back whole. */
static bool read_value(const char *b64value, key_request *r) {
    unsigned char *raw = NULL;
    size_t len = 0;
    json_t *doc = NULL;
    bool ok = false;
    if (unb64(b64value, &raw, &len) && (doc = json_loadb((const char *)raw, len, 0, NULL)) != NULL) {
        json_t *count = json_object_get(doc, "count");
        const char *form = json_string_value(json_object_get(doc, "form"));
        const char *prefix = json_string_value(json_object_get(doc, "prefix"));
        const char *ids = json_string_value(json_object_get(doc, "ids"));
        unsigned char *bytes = NULL;
        size_t nbytes = 0;
        int f = form != NULL ? mintid_form_find(form) : -1;
        if (json_is_integer(count) && json_integer_value(count) >= 1 && f >= 0 && prefix != NULL &&
            strlen(prefix) <= MINTID_PREFIX_MAX && ids != NULL && unb64(ids, &bytes, &nbytes)) {
            if (nbytes == (size_t)json_integer_value(count) * sizeof(mintid_id)) {
                r->got_count = (uint64_t)json_integer_value(count);
                r->got_form = f;
                snprintf(r->got_prefix, sizeof r->got_prefix, "%s", prefix);
                r->got_ids = (mintid_id *)bytes;
                r->created_ms = (int64_t)json_integer_value(json_object_get(doc, "created_ms"));
                bytes = NULL;
                ok = true;
            }
            free(bytes);
        }
    }
    json_decref(doc);
    free(raw);
    if (!ok)
        snprintf(r->why, sizeof r->why, "etcd's record of this key is damaged");
    return ok;
}

/* The value of the first key of a range answer, or NULL. */
static const char *range_value(json_t *range) {
    return json_string_value(json_object_get(json_array_get(json_object_get(range, "kvs"), 0), "value"));
}

/* retry: once more with a new lease if etcd no longer has the keys' lease. */
static void answer_one(keys_etcd *e, key_request *r, int64_t now, bool retry) {
    r->why[0] = '\0';
    r->outcome = KEY_FAILED;
    char *key = etcd_key(e, r);
    if (key == NULL) {
        snprintf(r->why, sizeof r->why, "out of memory");
        return;
    }
    if (r->lookup || r->replay_only) {
        json_t *a = ask(e, "kv/range", json_pack("{s:s}", "key", key), r);
        if (a != NULL) {
            const char *v = range_value(a);
            if (v == NULL && r->replay_only)
                snprintf(r->why, sizeof r->why, "%s", r->mint_why);
            else if (v == NULL)
                r->outcome = KEY_ABSENT;
            else if (!read_value(v, r))
                r->outcome = KEY_FAILED;
            else
                r->outcome = !r->replay_only ? KEY_FOUND : key_same_request(r) ? KEY_REPLAYED : KEY_MISMATCH;
        }
        json_decref(a);
        free(key);
        return;
    }
    uint64_t lease_id;
    char *ids = b64(r->ids, r->count * sizeof(mintid_id));
    json_t *value = ids != NULL ? json_pack("{s:I,s:s,s:s,s:s,s:I}", "count", (json_int_t)r->count, "form",
                                            mintid_form_name((mintid_form)r->form), "prefix", r->prefix, "ids", ids,
                                            "created_ms", (json_int_t)now)
                                : NULL;
    char *value_text = value != NULL ? json_dumps(value, JSON_COMPACT) : NULL;
    char *value_b64 = value_text != NULL ? b64(value_text, strlen(value_text)) : NULL;
    json_decref(value);
    free(value_text);
    free(ids);
    if (value_b64 == NULL) {
        snprintf(r->why, sizeof r->why, "out of memory");
    } else if (keys_lease(e, r, &lease_id)) {
        char lease_text[24];
        snprintf(lease_text, sizeof lease_text, "%llu", (unsigned long long)lease_id);
        json_t *put = json_pack("{s:s,s:s}", "key", key, "value", value_b64);
        if (put != NULL && lease_id != 0)
            json_object_set_new(put, "lease", json_string(lease_text));
        json_t *txn = json_pack("{s:[{s:s,s:s,s:s,s:s}],s:[{s:o}],s:[{s:{s:s}}]}", "compare", "key", key, "target",
                                "CREATE", "result", "EQUAL", "create_revision", "0", "success", "request_put", put,
                                "failure", "request_range", "key", key);
        json_t *a = ask(e, "kv/txn", txn, r);
        if (a == NULL && lease_id != 0 && strstr(r->why, "requested lease not found") != NULL) {
            /* The lease is gone before its time (revoked, etcd restored from
             * a backup): the key is put once more, with a new one. */
            e->lease_id = 0;
            free(value_b64);
            free(key);
            if (retry)
                answer_one(e, r, now, false);
            else
                snprintf(r->why, sizeof r->why, "etcd lost the lease of the keys");
            return;
        }
        if (a != NULL) {
            if (json_is_true(json_object_get(a, "succeeded"))) {
                key_request_created(r, now);
            } else {
                json_t *range = json_object_get(json_array_get(json_object_get(a, "responses"), 0), "response_range");
                const char *v = range_value(range);
                if (v == NULL) {
                    /* It expired between the compare and the read: the retry creates it. */
                    snprintf(r->why, sizeof r->why, "the key expired while it was read; try again");
                } else if (read_value(v, r)) {
                    r->outcome = key_same_request(r) ? KEY_REPLAYED : KEY_MISMATCH;
                }
            }
        }
        json_decref(a);
    }
    free(value_b64);
    free(key);
}

static void etcd_answer(void *ctx, key_request *batch, int64_t now_ms) {
    for (key_request *r = batch; r != NULL; r = r->next)
        answer_one(ctx, r, now_ms, true);
}

static void etcd_close(void *ctx) {
    keys_etcd *e = ctx;
    lease_client_close(e->client);
    free(e);
}

keystore_remote *keys_etcd_open(const lease_config *cfg, uint64_t ttl_s) {
    keys_etcd *e = calloc(1, sizeof *e);
    if (e == NULL || (e->client = lease_client_open(cfg)) == NULL) {
        log_msg(LOG_ERROR, "idempotency keys: no etcd client");
        free(e);
        return NULL;
    }
    snprintf(e->prefix, sizeof e->prefix, "%s", cfg->prefix);
    e->ttl_s = ttl_s;
    e->remote = (keystore_remote){e, etcd_answer, etcd_close, KEYS_ETCD_MAX_COUNT};
    return &e->remote;
}
