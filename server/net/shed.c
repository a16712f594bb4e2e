/* SPDX-License-Identifier: MIT */
/*
 * shed.c - the bound on memory: while what all clients hold passes
 * max-output-total, the connection holding the most is dropped, down to
 * an eighth below the bound.
 */
#include "net/shed.h"

#include "net/conn.h"
#include "base/log.h"

static log_limit shed_log;

/*
 * Bounds the memory of replies: while those queued for all clients pass
 * max-output-total, the connection holding the most is dropped. Run as its
 * own event, never inside a connection's callback, since it frees
 * connections.
 */
static void on_shed(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what;
    server *srv = arg;
    service *svc = srv->svc;
    uint64_t limit = srv->cfg->max_output_total, target = limit - limit / 8;
    if (!server_over_total(srv))
        return;
    while (server_held(srv) > target) {
        conn *worst = NULL;
        conn *c;
        TAILQ_FOREACH (c, &srv->conns, link) {
            if (!c->refused && (worst == NULL || conn_held(c) > conn_held(worst)))
                worst = c;
        }
        if (worst == NULL || conn_held(worst) <= CONN_IN_INITIAL)
            break;
        log_limited(&shed_log, LOG_WARN,
                    "%s client dropped holding %zu bytes of unread replies and %zu of request buffer: what all "
                    "clients hold passed max-output-total (%llu)",
                    worst->ops->label, conn_queued(worst), worst->in_cap, (unsigned long long)limit);
        svc->c->clients_shed++;
        conn_free(worst);
    }
    /* The survivors' jobs that yielded to the bound resume on their timers. */
}

int shed_init(server *srv) {
    if (srv->shed_ev == NULL && (srv->shed_ev = evtimer_new(srv->base, on_shed, srv)) == NULL) {
        log_msg(LOG_ERROR, "out of memory");
        return -1;
    }
    return 0;
}

void shed_free(server *srv) {
    if (srv->shed_ev != NULL) {
        event_free(srv->shed_ev);
        srv->shed_ev = NULL;
    }
}
