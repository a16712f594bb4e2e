/* SPDX-License-Identifier: MIT */
/*
 * stats.h - the service's counters and state rendered as text for the
 * protocols: /metrics, INFO, GET /v1/formats.
 */
#ifndef MINTIDD_STATS_H
#define MINTIDD_STATS_H

#include "service.h"

#include <stddef.h>

/*
 * When the TLS certificate this process serves stops being valid, Unix
 * seconds (tls_cert_expiry); 0: no TLS. Set at start and after each reload.
 * Each worker loads its certificates itself, so each shows its own, never
 * a sum over the workers.
 */
void stats_set_tls_cert_expiry(int64_t unix_s);

/* Appends Prometheus text (emit is called with pieces of it). */
typedef void (*emit_fn)(void *ctx, const char *s, size_t n);
void stats_metrics(service *svc, emit_fn emit, void *ctx);
/* Appends Redis-style INFO text ("key:value\r\n" lines under "# Section"). */
void stats_info(service *svc, emit_fn emit, void *ctx);
/* Appends the formats served, as a JSON array. */
void stats_formats_json(service *svc, emit_fn emit, void *ctx);

#endif
