/* SPDX-License-Identifier: MIT */
/*
 * shed.h - the bound on the memory all clients hold together: past
 * max-output-total (replies queued and request buffers), the clients
 * holding the most are dropped, on an event of its own
 * (server_shed_soon() in server.h asks for it).
 */
#ifndef MINTIDD_SHED_H
#define MINTIDD_SHED_H

#include "server.h"

/* Makes srv's shedding event. Returns 0, or -1 after logging why. */
int shed_init(server *srv);
void shed_free(server *srv);

#endif
