/* SPDX-License-Identifier: MIT */
/*
 * handle_resp.h - the Redis protocol as a protocol of the connection layer.
 */
#ifndef MINTIDD_HANDLE_RESP_H
#define MINTIDD_HANDLE_RESP_H

#include "proto.h"

extern const proto_ops resp_proto;

#endif
