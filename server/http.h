/*
 * http.h - an HTTP/1.1 request parser that does no I/O, for a GET-only API:
 * give it the bytes received so far, get back "need more", one request, or
 * an error with the status to answer before closing.
 */
#ifndef MINTIDD_HTTP_H
#define MINTIDD_HTTP_H

#include <stdbool.h>
#include <stddef.h>

typedef enum http_method { HTTP_GET, HTTP_HEAD, HTTP_OTHER } http_method;

typedef struct http_request {
    http_method method;
    const char *target; /* path and query, into the caller's buffer */
    size_t target_len;
    int minor_version; /* HTTP/1.0 or HTTP/1.1 */
    bool keep_alive;   /* the connection stays open after the response */
    bool accept_json;  /* the Accept header names application/json */
} http_request;

typedef enum http_result {
    HTTP_NEED_MORE = 0,
    HTTP_OK = 1,    /* *req describes the first *used bytes */
    HTTP_ERROR = -1 /* answer *status with *error, then close */
} http_result;

#define HTTP_MAX_HEADERS 64

/*
 * Parses one request head from buf[0..len). Requests may not carry a body:
 * the API has none to take, so a body is refused rather than skipped.
 * max_request bounds the head; a longer one is refused with 431 as soon as
 * that is certain.
 */
http_result http_parse(const char *buf, size_t len, size_t max_request, http_request *req, size_t *used, int *status,
                       const char **error);

/* The reason phrase of a status code. */
const char *http_reason(int status);

#endif
