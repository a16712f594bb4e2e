/* SPDX-License-Identifier: MIT */
/*
 * etcd.c - the one client of etcd's v3 JSON gateway (etcd.h): libcurl for
 * the requests, jansson for their bodies, OpenSSL's EVP base64 for etcd's
 * byte fields.
 */
#include "cluster/etcd.h"

#include "base/log.h"

#include <curl/curl.h>
#include <inttypes.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct etcd {
    etcd_config cfg;
    CURL *curl;
    int endpoint;     /* the endpoint in use: the last that answered */
    char token[512];  /* etcd's auth token, empty while none */
    bool auth_failed; /* the last authentication was refused (said once) */
};

#define GRPC_UNAUTHENTICATED 16 /* etcd: the auth token is invalid or expired */

static void set_error(etcd_error *err, etcd_status status, long grpc_code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_error(etcd_error *err, etcd_status status, long grpc_code, const char *fmt, ...) {
    err->status = status;
    err->grpc_code = grpc_code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
}

/* ---- base64 -------------------------------------------------------------------------- */

const char *etcd_b64_why(long rc) {
    return rc == ETCD_B64_ABSENT     ? "no value"
           : rc == ETCD_B64_INVALID  ? "not base64"
           : rc == ETCD_B64_TOO_LONG ? "too long"
           : rc == ETCD_B64_NOT_TEXT ? "not text"
                                     : "decoded";
}

long etcd_b64_encode(const void *in, size_t n, char *out, size_t cap) {
    if (cap > 0)
        out[0] = '\0';
    if (n > (size_t)INT_MAX / 4 * 3 || cap < ETCD_B64_LEN(n) + 1)
        return ETCD_B64_TOO_LONG;
    /* EVP_EncodeBlock writes the padded text and its NUL, nothing more. */
    return EVP_EncodeBlock((unsigned char *)out, in, (int)n);
}

static bool b64_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

/* The value of a base64 character (one b64_char accepts). */
static unsigned b64_value(char c) {
    return c >= 'A' && c <= 'Z'   ? (unsigned)(c - 'A')
           : c >= 'a' && c <= 'z' ? (unsigned)(c - 'a') + 26
           : c >= '0' && c <= '9' ? (unsigned)(c - '0') + 52
           : c == '+'             ? 62
                                  : 63;
}

long etcd_b64_decode(const char *in, size_t len, unsigned char *out, size_t cap) {
    if (len % 4 != 0 || len > (size_t)INT_MAX)
        return ETCD_B64_INVALID;
    if (len == 0)
        return 0;
    size_t pad = in[len - 1] != '=' ? 0 : in[len - 2] != '=' ? 1 : 2;
    for (size_t i = 0; i < len - pad; i++)
        if (!b64_char(in[i]))
            return ETCD_B64_INVALID;
    /* The bits a padded group leaves over must be zero: one text, one bytes. */
    unsigned last = b64_value(in[len - pad - 1]);
    if ((pad == 1 && (last & 3) != 0) || (pad == 2 && (last & 15) != 0))
        return ETCD_B64_INVALID;
    size_t n = len / 4 * 3 - pad;
    if (n > cap)
        return ETCD_B64_TOO_LONG;
    /* EVP_DecodeBlock writes three bytes a group, padding included (as
     * zeros), so the last group goes through a buffer of its own: out need
     * hold only the bytes there are. */
    size_t whole = len - 4;
    unsigned char tail[3];
    if ((whole > 0 && EVP_DecodeBlock(out, (const unsigned char *)in, (int)whole) != (int)(whole / 4 * 3)) ||
        EVP_DecodeBlock(tail, (const unsigned char *)in + whole, 4) != 3)
        return ETCD_B64_INVALID;
    memcpy(out + whole / 4 * 3, tail, 3 - pad);
    return (long)n;
}

json_t *etcd_b64_json(const void *in, size_t n) {
    if (n > (size_t)INT_MAX / 4 * 3)
        return NULL;
    size_t cap = ETCD_B64_LEN(n) + 1;
    char *text = malloc(cap);
    if (text == NULL)
        return NULL;
    long len = etcd_b64_encode(in, n, text, cap);
    json_t *v = len >= 0 ? json_stringn_nocheck(text, (size_t)len) : NULL;
    free(text);
    return v;
}

unsigned char *etcd_b64_json_bytes(const json_t *v, size_t *len, long *why) {
    *len = 0;
    if (!json_is_string(v)) {
        *why = ETCD_B64_ABSENT;
        return NULL;
    }
    size_t n = json_string_length(v), cap = n / 4 * 3;
    unsigned char *out = malloc(cap + 1);
    if (out == NULL) {
        *why = ETCD_B64_TOO_LONG;
        return NULL;
    }
    long got = etcd_b64_decode(json_string_value(v), n, out, cap);
    if (got < 0) {
        free(out);
        *why = got;
        return NULL;
    }
    out[got] = '\0';
    *len = (size_t)got;
    *why = 0;
    return out;
}

long etcd_kv_text(const json_t *kv, const char *field, char *out, size_t cap) {
    const json_t *v = json_object_get(kv, field);
    long got = !json_is_string(v) ? ETCD_B64_ABSENT
               : cap == 0         ? ETCD_B64_TOO_LONG
                          : etcd_b64_decode(json_string_value(v), json_string_length(v), (unsigned char *)out, cap - 1);
    if (got >= 0 && memchr(out, '\0', (size_t)got) != NULL)
        got = ETCD_B64_NOT_TEXT;
    if (cap > 0)
        out[got >= 0 ? got : 0] = '\0';
    return got;
}

/* ---- reading answers ----------------------------------------------------------------- */

json_t *etcd_kv(const json_t *range, size_t i) { return json_array_get(json_object_get(range, "kvs"), i); }

json_t *etcd_txn_range(const json_t *txn, size_t i) {
    return json_object_get(json_array_get(json_object_get(txn, "responses"), i), "response_range");
}

bool etcd_parse_i64(const char *s, size_t len, int64_t *out) {
    if (len == 0 || len > 19)
        return false;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9' || v > (INT64_MAX - (s[i] - '0')) / 10)
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

int64_t etcd_int(const json_t *obj, const char *name) {
    const json_t *v = json_object_get(obj, name);
    int64_t out;
    if (json_is_string(v) && etcd_parse_i64(json_string_value(v), json_string_length(v), &out))
        return out;
    if (json_is_integer(v) && json_integer_value(v) >= 0)
        return (int64_t)json_integer_value(v);
    return -1;
}

/* etcd's 64-bit integers go as JSON strings. */
static json_t *id_json(uint64_t id) {
    char text[24];
    snprintf(text, sizeof text, "%" PRIu64, id);
    return json_string(text);
}

static json_t *key_json(const char *key) { return etcd_b64_json(key, strlen(key)); }

/* ---- the parts of a transaction ------------------------------------------------------ */

json_t *etcd_cmp_absent(const char *key) {
    return json_pack("{s:o,s:s,s:s,s:s}", "key", key_json(key), "target", "CREATE", "result", "EQUAL",
                     "create_revision", "0");
}

json_t *etcd_cmp_lease(const char *key, uint64_t lease) {
    return json_pack("{s:o,s:s,s:s,s:o}", "key", key_json(key), "target", "LEASE", "result", "EQUAL", "lease",
                     id_json(lease));
}

json_t *etcd_cmp_value(const char *key, const void *value, size_t len) {
    return json_pack("{s:o,s:s,s:s,s:o}", "key", key_json(key), "target", "VALUE", "result", "EQUAL", "value",
                     etcd_b64_json(value, len));
}

json_t *etcd_op_put(const char *key, const void *value, size_t len, uint64_t lease) {
    json_t *put = json_pack("{s:o,s:o}", "key", key_json(key), "value", etcd_b64_json(value, len));
    if (put != NULL && lease != 0 && json_object_set_new(put, "lease", id_json(lease)) != 0) {
        json_decref(put);
        return NULL;
    }
    return put != NULL ? json_pack("{s:o}", "request_put", put) : NULL;
}

json_t *etcd_op_delete(const char *key) { return json_pack("{s:{s:o}}", "request_delete_range", "key", key_json(key)); }

json_t *etcd_op_range(const char *key) { return json_pack("{s:{s:o}}", "request_range", "key", key_json(key)); }

/* ---- the gateway --------------------------------------------------------------------- */

typedef struct body {
    char *data;
    size_t len;
} body;

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *userdata) {
    body *b = userdata;
    size_t n = size * nmemb;
    if (b->len + n > ETCD_ANSWER_MAX)
        return 0; /* an answer this large is not etcd's */
    char *grown = realloc(b->data, b->len + n + 1);
    if (grown == NULL)
        return 0;
    b->data = grown;
    memcpy(b->data + b->len, ptr, n);
    b->len += n;
    b->data[b->len] = '\0';
    return n;
}

/* An answer's gRPC status code, as the gateway gives it with an error; -1 if none. */
static long grpc_code(const json_t *answer) {
    json_t *c = json_object_get(answer, "code");
    if (!json_is_integer(c)) /* a streamed answer (keepalive) nests it */
        c = json_object_get(json_object_get(answer, "error"), "grpc_code");
    return json_is_integer(c) ? (long)json_integer_value(c) : -1;
}

/* The message of an error etcd reported: "error" as text, or nested in a streamed answer, or "message". */
static const char *error_message(const json_t *answer) {
    const json_t *e = json_object_get(answer, "error");
    const char *m = json_string_value(e);
    if (m == NULL)
        m = json_string_value(json_object_get(e, "message"));
    if (m == NULL)
        m = json_string_value(json_object_get(answer, "message"));
    return m != NULL ? m : "an error without a message";
}

/*
 * One POST of text to the endpoint in use: the parsed answer, or NULL with
 * err set (ETCD_UNREACHABLE) if no JSON object came back.
 */
static json_t *post(etcd *e, const char *path, const char *text, bool with_token, etcd_error *err) {
    char url[256];
    snprintf(url, sizeof url, "%s/v3/%s", e->cfg.endpoints[e->endpoint], path);
    body b = {NULL, 0};
    CURL *c = e->curl;
    struct curl_slist *headers = NULL;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, e->cfg.timeout_ms);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, e->cfg.timeout_ms);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    /* TLS as libcurl does it: the peer's certificate checked against
     * etcd-ca (or the system's CAs) and its name; ours offered when set. */
    if (e->cfg.ca[0] != '\0')
        curl_easy_setopt(c, CURLOPT_CAINFO, e->cfg.ca);
    if (e->cfg.cert[0] != '\0') {
        curl_easy_setopt(c, CURLOPT_SSLCERT, e->cfg.cert);
        curl_easy_setopt(c, CURLOPT_SSLKEY, e->cfg.key);
    }
    if (with_token && e->token[0] != '\0') {
        char h[sizeof e->token + 32];
        snprintf(h, sizeof h, "Authorization: %s", e->token);
        headers = curl_slist_append(headers, h);
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    }
    CURLcode rc = curl_easy_perform(c);
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    json_t *answer = NULL;
    if (rc == CURLE_OK && b.data != NULL)
        answer = json_loads(b.data, 0, NULL);
    if (answer != NULL && !json_is_object(answer)) {
        json_decref(answer);
        answer = NULL;
    }
    if (answer == NULL || status != 200)
        log_msg(LOG_DEBUG, "etcd %s: %s (HTTP %ld)", url, rc != CURLE_OK ? curl_easy_strerror(rc) : "answered", status);
    if (answer == NULL) {
        if (rc != CURLE_OK)
            set_error(err, ETCD_UNREACHABLE, -1, "%s: %s", e->cfg.endpoints[e->endpoint], curl_easy_strerror(rc));
        else
            set_error(err, ETCD_UNREACHABLE, -1, "%s: an answer that is not etcd's JSON (HTTP %ld)",
                      e->cfg.endpoints[e->endpoint], status);
    }
    curl_slist_free_all(headers);
    free(b.data);
    return answer;
}

/*
 * Gets an auth token for etcd-user. True with it in e->token; false with err
 * set if etcd could not be reached or refused (said once, without the
 * password).
 */
static bool authenticate(etcd *e, etcd_error *err) {
    json_t *req = json_pack("{s:s,s:s}", "name", e->cfg.user, "password", e->cfg.password);
    char *text = req != NULL ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    if (text == NULL) {
        set_error(err, ETCD_NOMEM, -1, "out of memory");
        return false;
    }
    json_t *a = post(e, "auth/authenticate", text, false, err);
    /* The request held the password: not left in freed memory. */
    explicit_bzero(text, strlen(text));
    free(text);
    if (a == NULL)
        return false;
    const char *token = json_string_value(json_object_get(a, "token"));
    bool ok = token != NULL && token[0] != '\0' && strlen(token) < sizeof e->token;
    if (ok) {
        memcpy(e->token, token, strlen(token) + 1);
        if (e->auth_failed)
            log_msg(LOG_INFO, "%s: etcd accepted etcd-user '%s' again", e->cfg.who, e->cfg.user);
        e->auth_failed = false;
    } else {
        const char *why = json_object_get(a, "error") != NULL ? error_message(a) : "no token in its answer";
        set_error(err, ETCD_AUTH_REFUSED, grpc_code(a), "etcd refused etcd-user '%s': %s", e->cfg.user, why);
        if (!e->auth_failed)
            log_msg(LOG_ERROR, "%s: etcd refused etcd-user '%s' with the password of etcd-password-file: %s",
                    e->cfg.who, e->cfg.user, why);
        e->auth_failed = true;
    }
    json_decref(a);
    return ok;
}

json_t *etcd_call(etcd *e, const char *path, json_t *request, etcd_error *err) {
    char *text = request != NULL ? json_dumps(request, JSON_COMPACT) : NULL;
    json_decref(request);
    if (text == NULL) {
        set_error(err, ETCD_NOMEM, -1, "out of memory for a request to %s", path);
        return NULL;
    }
    if (e->cfg.on_ask != NULL)
        e->cfg.on_ask(e->cfg.on_ask_ctx, true, ETCD_OK);
    set_error(err, ETCD_UNREACHABLE, -1, "no etcd endpoint to ask");
    json_t *answer = NULL;
    for (int tries = 0; tries < e->cfg.nendpoints && answer == NULL; tries++) {
        bool authed = e->cfg.user[0] == '\0' || e->token[0] != '\0' || authenticate(e, err);
        if (authed)
            answer = post(e, path, text, true, err);
        if (answer != NULL && e->cfg.user[0] != '\0' && grpc_code(answer) == GRPC_UNAUTHENTICATED) {
            /* Tokens expire (etcd's auth-token-ttl) and die with a
             * restart of the member that issued them: get a new one. */
            json_decref(answer);
            answer = NULL;
            e->token[0] = '\0';
            if (authenticate(e, err))
                answer = post(e, path, text, true, err);
        }
        if (answer == NULL)
            e->endpoint = (e->endpoint + 1) % e->cfg.nendpoints;
    }
    free(text);
    if (answer == NULL && e->cfg.nendpoints > 1 && err->status == ETCD_UNREACHABLE) {
        char last[sizeof err->text];
        memcpy(last, err->text, sizeof last);
        set_error(err, ETCD_UNREACHABLE, -1, "none of %d endpoints answered (the last: %s)", e->cfg.nendpoints, last);
    } else if (answer != NULL && json_object_get(answer, "error") != NULL) {
        set_error(err, ETCD_REFUSED, grpc_code(answer), "%s", error_message(answer));
        json_decref(answer);
        answer = NULL;
    } else if (answer != NULL) {
        set_error(err, ETCD_OK, -1, "%s", "");
    }
    if (e->cfg.on_ask != NULL)
        e->cfg.on_ask(e->cfg.on_ask_ctx, false, err->status);
    return answer;
}

json_t *etcd_range(etcd *e, const char *key, const char *range_end, bool keys_only, etcd_error *err) {
    json_t *req = json_pack("{s:o}", "key", key_json(key));
    if (req != NULL && range_end != NULL && json_object_set_new(req, "range_end", key_json(range_end)) != 0) {
        json_decref(req);
        req = NULL;
    }
    if (req != NULL && keys_only && json_object_set_new(req, "keys_only", json_true()) != 0) {
        json_decref(req);
        req = NULL;
    }
    json_t *a = etcd_call(e, "kv/range", req, err);
    json_t *kvs = json_object_get(a, "kvs");
    if (a != NULL && kvs != NULL && !json_is_array(kvs)) {
        set_error(err, ETCD_MALFORMED, -1, "etcd's answer to kv/range has kvs that are not a list");
        json_decref(a);
        return NULL;
    }
    return a;
}

json_t *etcd_txn(etcd *e, json_t *compare, json_t *success, json_t *failure, bool *succeeded, etcd_error *err) {
    *succeeded = false;
    json_t *req = compare != NULL && success != NULL && failure != NULL
                      ? json_pack("{s:o,s:o,s:o}", "compare", compare, "success", success, "failure", failure)
                      : NULL;
    if (req == NULL) {
        json_decref(compare);
        json_decref(success);
        json_decref(failure);
    }
    json_t *a = etcd_call(e, "kv/txn", req, err);
    *succeeded = json_is_true(json_object_get(a, "succeeded"));
    return a;
}

etcd_status etcd_lease_grant(etcd *e, int64_t ttl_s, uint64_t *id, int64_t *granted_s, etcd_error *err) {
    *id = 0;
    *granted_s = 0;
    json_t *a = etcd_call(e, "lease/grant", json_pack("{s:I}", "TTL", (json_int_t)ttl_s), err);
    if (a == NULL)
        return err->status;
    int64_t got = etcd_int(a, "ID"), ttl = etcd_int(a, "TTL");
    json_decref(a);
    if (got <= 0 || ttl <= 0) {
        set_error(err, ETCD_MALFORMED, -1, "etcd's answer to lease/grant has no lease id or TTL");
        return err->status;
    }
    *id = (uint64_t)got;
    *granted_s = ttl;
    return ETCD_OK;
}

etcd_status etcd_lease_keepalive(etcd *e, uint64_t id, int64_t *ttl_s, etcd_error *err) {
    *ttl_s = 0;
    json_t *a = etcd_call(e, "lease/keepalive", json_pack("{s:o}", "ID", id_json(id)), err);
    if (a == NULL)
        return err->status;
    /* A streamed answer: {"result": {...}}. A lease that is gone has no TTL,
     * as etcd's JSON leaves a zero out. */
    json_t *result = json_object_get(a, "result");
    int64_t ttl = !json_is_object(result) ? -1 : json_object_get(result, "TTL") == NULL ? 0 : etcd_int(result, "TTL");
    json_decref(a);
    if (ttl < 0) {
        set_error(err, ETCD_MALFORMED, -1, "etcd's answer to lease/keepalive has no result with a TTL");
        return err->status;
    }
    *ttl_s = ttl;
    return ETCD_OK;
}

etcd_status etcd_lease_revoke(etcd *e, uint64_t id, etcd_error *err) {
    json_t *a = etcd_call(e, "lease/revoke", json_pack("{s:o}", "ID", id_json(id)), err);
    json_decref(a);
    return err->status;
}

/* ---- the client ------------------------------------------------------------------------ */

etcd *etcd_open(const etcd_config *cfg) {
    etcd *e = calloc(1, sizeof *e);
    if (e == NULL) {
        log_msg(LOG_ERROR, "%s: no memory for an etcd client", cfg->who);
        return NULL;
    }
    e->cfg = *cfg;
    curl_global_init(CURL_GLOBAL_DEFAULT);
    e->curl = curl_easy_init();
    if (e->curl == NULL) {
        log_msg(LOG_ERROR, "%s: libcurl could not start", cfg->who);
        etcd_close(e);
        return NULL;
    }
    return e;
}

void etcd_close(etcd *e) {
    if (e == NULL)
        return;
    if (e->curl != NULL)
        curl_easy_cleanup(e->curl);
    explicit_bzero(e->token, sizeof e->token);
    explicit_bzero(e->cfg.password, sizeof e->cfg.password);
    curl_global_cleanup();
    free(e);
}
