/* SPDX-License-Identifier: MIT */
/*
 * handle_http.h - the HTTP API as a protocol of the connection layer.
 */
#ifndef MINTIDD_HANDLE_HTTP_H
#define MINTIDD_HANDLE_HTTP_H

#include "proto.h"

extern const proto_ops http_proto;

#endif
