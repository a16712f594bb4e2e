/* SPDX-License-Identifier: MIT */
/*
 * listen.c - the listeners (a plain and a TLS one per protocol) and
 * accepting: the one place that knows which protocol a listener speaks,
 * and hands each accepted socket to the connection layer with that
 * protocol's operations (proto.h).
 *
 * At max-connections the connection that has waited longest without
 * sending a whole request makes room; past that, a connection is told why
 * and closed. When accept() fails (out of descriptors) the listeners pause
 * rather than spin, and a spare descriptor is given up to accept and close
 * the waiting connections, each told why where the protocol allows.
 */
#include "net/listen.h"

#include "net/auth.h"
#include "net/blocked.h"
#include "net/conn.h"
#include "base/log.h"
#include "net/shed.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The protocol each listener speaks, by the service's index of it. */

/* Refused connections still get their reason and a graceful close, but only
 * this many at once; beyond that they are closed at once. */
#define MAX_REFUSING 64
/* While accept() fails (out of descriptors), the listeners pause this long
 * between tries, rather than the loop spinning on a listener that is always
 * readable. */
#define ACCEPT_BACKOFF_MS 100
/* Connections closed unserved per try while out of descriptors: the listen backlog. */
#define ACCEPT_SHED_MAX 511

/* Lines a client can trigger, each limited where it is logged (log_limited). */
static log_limit refused_log, accept_log;

/*
 * A client's address as the limits on wrong secrets count it: an IPv4
 * address (IPv4-mapped), or the /64 of an IPv6 one, since one host
 * commonly holds a whole /64.
 */
static void peer_key(const struct sockaddr *addr, int socklen, unsigned char key[16]) {
    memset(key, 0, 16);
    if (addr->sa_family == AF_INET && (size_t)socklen >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
        key[10] = key[11] = 0xff;
        memcpy(key + 12, &in->sin_addr, 4);
    } else if (addr->sa_family == AF_INET6 && (size_t)socklen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
        memcpy(key, &in6->sin6_addr, IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) ? 16 : 8);
    }
}

static proto listener_proto(const server *srv, const struct evconnlistener *lev) {
    return lev == srv->listeners[PROTO_HTTP] || lev == srv->tls_listeners[PROTO_HTTP] ? PROTO_HTTP : PROTO_RESP;
}

static void on_accept(struct evconnlistener *lev, evutil_socket_t fd, struct sockaddr *addr, int socklen, void *arg) {
    server *srv = arg;
    proto p = listener_proto(srv, lev);
    bool tls = lev == srv->tls_listeners[p];
    service *svc = srv->svc;
    if (srv->accept_failing) {
        srv->accept_failing = false;
        log_msg(LOG_INFO, "accepting connections again; %llu were closed unserved while descriptors ran out",
                (unsigned long long)srv->accept_shed);
    }
    bool refuse = svc->c->connections[PROTO_HTTP] + svc->c->connections[PROTO_RESP] >= srv->cfg->max_connections;
    if (refuse && !TAILQ_EMPTY(&srv->fresh)) {
        /* Room is made by the connection that has waited longest without
         * sending a whole request: clients that connect and trickle or
         * send nothing cannot keep the others out. */
        conn *old = TAILQ_FIRST(&srv->fresh);
        svc->c->shed_at_cap++;
        log_limited(&refused_log, LOG_WARN,
                    "%s client dropped at max-connections (%llu) to make room: no request from it arrived whole",
                    old->ops->label, (unsigned long long)srv->cfg->max_connections);
        conn_free(old);
        refuse = false;
    }
    if (refuse) {
        svc->c->connections_refused[p]++;
        log_limited(&refused_log, LOG_WARN, "%s connection refused: max-connections (%llu) reached", srv->ops[p]->label,
                    (unsigned long long)srv->cfg->max_connections);
        /* A TLS client could read the reason only after a handshake it
         * should not be given: it is closed at once. */
        if (srv->refusing >= MAX_REFUSING || tls) {
            evutil_closesocket(fd);
            return;
        }
    }
    unsigned char peer[16];
    peer_key(addr, socklen, peer);
    conn_accept(srv, fd, p, srv->ops[p], tls, refuse, peer);
}

static void set_listening(server *srv, bool on) {
    for (int p = 0; p < PROTO_COUNT; p++) {
        struct evconnlistener *levs[] = {srv->listeners[p], srv->tls_listeners[p]};
        for (size_t i = 0; i < 2; i++)
            if (levs[i] != NULL)
                (on ? evconnlistener_enable : evconnlistener_disable)(levs[i]);
    }
}

/* Holds a descriptor in reserve, so that one is at hand to accept and close a connection when they run out. */
static void take_spare(server *srv) {
    if (srv->spare_open)
        return;
    srv->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    srv->spare_open = srv->spare_fd >= 0;
}

static void on_accept_resume(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what;
    server *srv = arg;
    if (srv->stopping)
        return;
    take_spare(srv); /* if another descriptor took its place after the last shedding */
    set_listening(srv, true);
}

/*
 * accept() failed, most likely for want of descriptors. The listening
 * socket stays readable, so libevent would call again at once and the loop
 * spin: the listeners pause for ACCEPT_BACKOFF_MS instead. Out of
 * descriptors, the spare one is given up to accept the waiting connections
 * and close them, each told why where the protocol allows (as servers do),
 * rather than leave them hanging in the backlog. Logged once per streak of
 * failures.
 */
static void on_accept_error(struct evconnlistener *lev, void *arg) {
    server *srv = arg;
    int err = EVUTIL_SOCKET_ERROR();
    srv->svc->c->accept_errors++;
    if (!srv->accept_failing) {
        srv->accept_failing = true;
        srv->accept_shed = 0;
        log_limited(&accept_log, LOG_ERROR,
                    "accept: %s; new connections are closed unserved until descriptors are free "
                    "(not logged again until then)",
                    evutil_socket_error_to_string(err));
    }
    if ((err == EMFILE || err == ENFILE) && srv->spare_open) {
        proto p = listener_proto(srv, lev);
        bool tls = lev == srv->tls_listeners[p];
        const char *msg = srv->ops[p]->refusal;
        close(srv->spare_fd);
        srv->spare_open = false;
        for (int i = 0; i < ACCEPT_SHED_MAX; i++) {
            int fd = accept4(evconnlistener_get_fd(lev), NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (fd < 0)
                break;
            if (!tls) {
                ssize_t w = send(fd, msg, strlen(msg), MSG_DONTWAIT | MSG_NOSIGNAL);
                (void)w; /* a refusal the client may miss: it is closed either way */
            }
            close(fd);
            srv->accept_shed++;
            srv->svc->c->accept_shed++;
            srv->svc->c->connections_refused[p]++;
        }
        take_spare(srv);
    }
    set_listening(srv, false);
    struct timeval tv = {0, ACCEPT_BACKOFF_MS * 1000};
    event_add(srv->accept_ev, &tv);
}

int server_listen(server *srv, proto p, const char *address, bool tls) {
    const char *label = tls ? (p == PROTO_HTTP ? "HTTPS" : "RESP over TLS") : srv->ops[p]->label;
    char host[256];
    const char *colon = strrchr(address, ':');
    if (colon == NULL || colon == address || (size_t)(colon - address) >= sizeof host || colon[1] == '\0') {
        log_msg(LOG_ERROR, "%s address '%s' is not HOST:PORT", label, address);
        return -1;
    }
    memcpy(host, address, (size_t)(colon - address));
    host[colon - address] = '\0';
    /* [::1]:port */
    char *h = host;
    if (h[0] == '[' && h[strlen(h) - 1] == ']') {
        h[strlen(h) - 1] = '\0';
        h++;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *res;
    int rc = getaddrinfo(h, colon + 1, &hints, &res);
    if (rc != 0) {
        log_msg(LOG_ERROR, "%s address '%s': %s", label, address, gai_strerror(rc));
        return -1;
    }
    /* Bound now, listening only once server_accept() is called: an address
     * in use is found before the state is touched, and no connection is
     * taken in (not even into the kernel's backlog) before the server is
     * ready to serve it. */
    /* Two settings naming one address would both bind (neither listens
     * yet) and the second fail only at listen(): refuse it here. */
    for (int q = 0; q < PROTO_COUNT; q++) {
        struct evconnlistener *levs[] = {srv->listeners[q], srv->tls_listeners[q]};
        for (size_t i = 0; i < 2; i++) {
            struct sockaddr_storage bound;
            socklen_t blen = sizeof bound;
            if (levs[i] != NULL && getsockname(evconnlistener_get_fd(levs[i]), (struct sockaddr *)&bound, &blen) == 0 &&
                blen == res->ai_addrlen && memcmp(&bound, res->ai_addr, blen) == 0) {
                freeaddrinfo(res);
                log_msg(LOG_ERROR, "%s: cannot listen on %s: another listener of this server has it", label, address);
                return -1;
            }
        }
    }
    int one = 1, fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, res->ai_addr, res->ai_addrlen) != 0) {
        int err = errno;
        if (fd >= 0)
            close(fd);
        freeaddrinfo(res);
        log_msg(LOG_ERROR, "%s: cannot listen on %s: %s", label, address, strerror(err));
        return -1;
    }
    freeaddrinfo(res);
    if (server_listen_fd(srv, p, fd, tls) != 0)
        return -1;
    log_msg(LOG_INFO, "serving %s on %s", label, address);
    return 0;
}
/* idle-timeout, kept by a sweep once a second rather than a timer per connection (conn.c). */
static void on_idle_sweep(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what;
    conn_sweep_idle(arg);
}

int server_listen_fd(server *srv, proto p, int fd, bool tls) {
    struct evconnlistener **lev = tls ? &srv->tls_listeners[p] : &srv->listeners[p];
    /* A backlog of 0: libevent leaves listen() to server_accept(). */
    *lev = evconnlistener_new(srv->base, on_accept, srv, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_DISABLED, 0, fd);
    if (*lev == NULL) {
        close(fd);
        log_msg(LOG_ERROR, "out of memory");
        return -1;
    }
    evconnlistener_set_error_cb(*lev, on_accept_error);
    if (!srv->started) {
        TAILQ_INIT(&srv->fresh);
        TAILQ_INIT(&srv->conns);
        take_spare(srv);
        srv->accept_ev = evtimer_new(srv->base, on_accept_resume, srv);
        if (srv->accept_ev == NULL) {
            log_msg(LOG_ERROR, "out of memory");
            return -1;
        }
        if (shed_init(srv) != 0 || blocked_init(srv, &conn_wait_hooks) != 0)
            return -1;
        static const struct timeval second = {1, 0};
        if ((srv->idle_ev = event_new(srv->base, -1, EV_PERSIST, on_idle_sweep, srv)) == NULL ||
            event_add(srv->idle_ev, &second) != 0) {
            log_msg(LOG_ERROR, "out of memory");
            return -1;
        }
        srv->started = true;
    }
    return 0;
}

int server_accept(server *srv) {
    for (int p = 0; p < PROTO_COUNT; p++) {
        struct evconnlistener *levs[] = {srv->listeners[p], srv->tls_listeners[p]};
        for (size_t i = 0; i < 2; i++)
            if (levs[i] != NULL && listen(evconnlistener_get_fd(levs[i]), 511) != 0) {
                log_msg(LOG_ERROR, "cannot listen: %s", strerror(errno));
                return -1;
            }
    }
    set_listening(srv, true);
    return 0;
}

void server_stop(server *srv) {
    srv->stopping = true;
    for (int p = 0; p < PROTO_COUNT; p++) {
        if (srv->listeners[p] != NULL) {
            evconnlistener_free(srv->listeners[p]);
            srv->listeners[p] = NULL;
        }
        if (srv->tls_listeners[p] != NULL) {
            evconnlistener_free(srv->tls_listeners[p]);
            srv->tls_listeners[p] = NULL;
        }
    }
    /* Replies already made are sent; connections with nothing queued go now. */
    if (!srv->started)
        return;
    conn *c, *next;
    for (c = TAILQ_FIRST(&srv->conns); c != NULL; c = next) {
        next = TAILQ_NEXT(c, link);
        if (c->lingering)
            continue;
        c->closing = true;
        event_del(c->rev);
        if (evbuffer_get_length(c->out) == 0 && !c->job.active)
            conn_free(c);
    }
}

void server_close_all(server *srv) {
    if (srv->started) {
        while (!TAILQ_EMPTY(&srv->conns))
            conn_free(TAILQ_FIRST(&srv->conns));
    }
    shed_free(srv);
    if (srv->idle_ev != NULL) {
        event_free(srv->idle_ev);
        srv->idle_ev = NULL;
    }
    if (srv->accept_ev != NULL) {
        event_free(srv->accept_ev);
        srv->accept_ev = NULL;
    }
    if (srv->spare_open) {
        close(srv->spare_fd);
        srv->spare_open = false;
    }
    auth_forget(srv);
    blocked_free(srv);
}
