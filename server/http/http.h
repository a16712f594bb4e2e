/* SPDX-License-Identifier: MIT */
/*
 * http.h - an HTTP/1.1 request parser that does no I/O, for an API without
 * request bodies:
 * give it the bytes received so far, get back "need more", one request, or
 * an error with the status to answer before closing.
 */
#ifndef MINTIDD_HTTP_H
#define MINTIDD_HTTP_H

#include <stdbool.h>
#include <stddef.h>

typedef enum http_method { HTTP_GET, HTTP_HEAD, HTTP_OTHER, HTTP_POST } http_method;

typedef struct http_request {
    http_method method;
    const char *target; /* path and query, into the caller's buffer */
    size_t target_len;
    int minor_version;         /* HTTP/1.0 or HTTP/1.1 */
    bool keep_alive;           /* the connection stays open after the response */
    bool accept_json;          /* the Accept header names application/json */
    const char *authorization; /* the Authorization header's value, into the caller's buffer; NULL if none */
    size_t authorization_len;
    const char *idempotency_key; /* the Idempotency-Key header's value, into the caller's buffer; NULL if none */
    size_t idempotency_key_len;
} http_request;

typedef enum http_result {
    HTTP_NEED_MORE = 0,
    HTTP_OK = 1,    /* *req describes the first *used bytes */
    HTTP_ERROR = -1 /* answer *status with *error, then close */
} http_result;

#define HTTP_MAX_HEADERS 64

/*
 * How far http_parse() got through a head that has not ended yet, so that
 * the next call, given the same bytes and more after them, starts where
 * this one stopped: a head sent a byte at a time is read once, not once
 * per byte. All zero means "from the start". The caller keeps one per
 * connection; http_parse() zeroes it again when it returns HTTP_OK or
 * HTTP_ERROR, and the caller zeroes it before giving the parser bytes that
 * do not start with the ones it saw.
 */
typedef struct http_scan {
    size_t pos; /* bytes of buf already read */
    int part;   /* the part of the head that pos is in (private to http.c) */
} http_scan;

/*
 * Parses one request head from buf[0..len). Requests may not carry a body:
 * the API has none to take, so a body is refused rather than skipped.
 * max_request bounds the head, empty lines before it included; a longer
 * one is refused with 431 as soon as that is certain. The request line is
 * judged byte by byte as it arrives, so bytes that cannot start a request
 * (TLS, RESP, binary) are refused at once, not when a blank line comes.
 * scan may be NULL, which reads buf from the start on every call. The
 * answer never depends on how buf was cut into calls.
 */
http_result http_parse(const char *buf, size_t len, size_t max_request, http_scan *scan, http_request *req,
                       size_t *used, int *status, const char **error);

/* The reason phrase of a status code. */
const char *http_reason(int status);

#endif
