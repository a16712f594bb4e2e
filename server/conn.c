/*
 * conn.c - accepting, reading, writing and closing client connections, the
 * same for HTTP and RESP: limits on connections, request size, idle time
 * and queued output live here once.
 */
#include "server.h"

#include "log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *const proto_label[PROTO_COUNT] = {"HTTP", "RESP"};

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void conn_free(conn *c) {
    server *srv = c->srv;
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        srv->conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    if (c->refused)
        srv->refusing--;
    else
        srv->svc->connections[c->proto]--;
    bufferevent_free(c->bev);
    free(c);
}

static void on_read(struct bufferevent *bev, void *arg);
static void on_event(struct bufferevent *bev, short what, void *arg);

#define LINGER_SECONDS 2
#define LINGER_MAX_BYTES (1u << 20)

static void on_linger_read(struct bufferevent *bev, void *arg) {
    conn *c = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    c->lingered += evbuffer_get_length(in);
    evbuffer_drain(in, evbuffer_get_length(in));
    if (c->lingered > LINGER_MAX_BYTES)
        conn_free(c);
}

/*
 * Closing a socket with unread input makes the kernel send a reset, which
 * can destroy the reply (an error saying why) before the client reads it.
 * So the write side is shut first and what the client still sends is read
 * and dropped until it closes, for a bounded time and amount.
 */
static void close_gracefully(conn *c) {
    evutil_socket_t fd = bufferevent_getfd(c->bev);
    if (shutdown(fd, SHUT_WR) != 0) {
        conn_free(c);
        return;
    }
    struct timeval tv = {LINGER_SECONDS, 0};
    bufferevent_setcb(c->bev, on_linger_read, NULL, on_event, c);
    bufferevent_set_timeouts(c->bev, &tv, NULL);
    bufferevent_enable(c->bev, EV_READ);
}

static void on_write(struct bufferevent *bev, void *arg) {
    conn *c = arg;
    /* Called when the output has drained. */
    if (c->closing) {
        close_gracefully(c);
        return;
    }
    if (c->throttled) {
        c->throttled = false;
        bufferevent_enable(bev, EV_READ);
        on_read(bev, c); /* what arrived meanwhile */
    }
}

static void on_event(struct bufferevent *bev, short what, void *arg) {
    conn *c = arg;
    (void)bev;
    if (what & BEV_EVENT_TIMEOUT)
        log_msg(LOG_DEBUG, "%s client dropped: idle or stalled past idle-timeout", proto_label[c->proto]);
    else if (what & BEV_EVENT_ERROR)
        log_msg(LOG_DEBUG, "%s client error: %s", proto_label[c->proto], strerror(errno));
    conn_free(c);
}

static void on_read(struct bufferevent *bev, void *arg) {
    conn *c = arg;
    server *srv = c->srv;
    struct evbuffer *in = bufferevent_get_input(bev), *out = bufferevent_get_output(bev);
    /* Pipelined requests are handled from one contiguous copy of the input,
     * which is drained once at the end. */
    size_t len = evbuffer_get_length(in), off = 0;
    const char *data = len > 0 ? (const char *)evbuffer_pullup(in, -1) : NULL;
    while (!c->closing && off < len) {
        /* A client that does not read its replies is not served more. */
        if (evbuffer_get_length(out) > srv->cfg->max_output) {
            c->throttled = true;
            bufferevent_disable(bev, EV_READ);
            break;
        }
        size_t used = c->proto == PROTO_HTTP ? http_handle(c, data + off, len - off, out)
                                             : resp_handle(c, data + off, len - off, out);
        if (used == 0) {
            /* An incomplete request must complete within the idle timeout,
             * however slowly its bytes trickle in. */
            uint64_t now = now_ms();
            if (c->partial_since_ms == 0)
                c->partial_since_ms = now;
            else if (srv->cfg->idle_timeout > 0 && now - c->partial_since_ms > srv->cfg->idle_timeout * 1000) {
                log_msg(LOG_DEBUG, "%s client dropped: request incomplete past idle-timeout", proto_label[c->proto]);
                conn_free(c);
                return;
            }
            break;
        }
        c->partial_since_ms = 0;
        off += used;
    }
    evbuffer_drain(in, off);
    if (c->closing) {
        bufferevent_disable(bev, EV_READ);
        if (evbuffer_get_length(out) == 0)
            close_gracefully(c);
    }
}

/* Refused connections still get their reason and a graceful close, but only
 * this many at once; beyond that they are closed at once. */
#define MAX_REFUSING 64

static void on_accept(struct evconnlistener *lev, evutil_socket_t fd, struct sockaddr *addr, int socklen, void *arg) {
    server *srv = arg;
    (void)addr, (void)socklen;
    proto p = lev == srv->listeners[PROTO_HTTP] ? PROTO_HTTP : PROTO_RESP;
    service *svc = srv->svc;
    bool refuse = svc->connections[PROTO_HTTP] + svc->connections[PROTO_RESP] >= srv->cfg->max_connections;
    if (refuse) {
        svc->connections_refused[p]++;
        log_msg(LOG_WARN, "%s connection refused: max-connections (%llu) reached", proto_label[p],
                (unsigned long long)srv->cfg->max_connections);
        if (srv->refusing >= MAX_REFUSING) {
            evutil_closesocket(fd);
            return;
        }
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    conn *c = calloc(1, sizeof *c);
    struct bufferevent *bev = bufferevent_socket_new(srv->base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (c == NULL || bev == NULL) {
        log_msg(LOG_ERROR, "out of memory accepting a connection");
        free(c);
        if (bev != NULL)
            bufferevent_free(bev);
        else
            evutil_closesocket(fd);
        return;
    }
    c->srv = srv;
    c->proto = p;
    c->bev = bev;
    c->refused = refuse;
    c->next = srv->conns;
    if (srv->conns != NULL)
        srv->conns->prev = c;
    srv->conns = c;
    bufferevent_setcb(bev, on_read, on_write, on_event, c);
    if (refuse) {
        /* Say why, as Redis does, then close without reading a request. */
        srv->refusing++;
        c->closing = true;
        const char *msg = p == PROTO_HTTP ? http_refusal : resp_refusal;
        bufferevent_write(bev, msg, strlen(msg));
        bufferevent_enable(bev, EV_WRITE);
        return;
    }
    svc->connections[p]++;
    svc->connections_total[p]++;
    /* Stop reading a client whose unparsed input grows past a few requests. */
    bufferevent_setwatermark(bev, EV_READ, 0, srv->cfg->max_request * 4 + 65536);
    if (srv->cfg->idle_timeout > 0) {
        struct timeval tv = {(time_t)srv->cfg->idle_timeout, 0};
        bufferevent_set_timeouts(bev, &tv, &tv);
    }
    bufferevent_enable(bev, EV_READ | EV_WRITE);
}

static void on_accept_error(struct evconnlistener *lev, void *arg) {
    (void)arg;
    int err = EVUTIL_SOCKET_ERROR();
    /* Out of descriptors: log and carry on; the listener retries. */
    log_msg(LOG_ERROR, "accept: %s", evutil_socket_error_to_string(err));
    (void)lev;
}

int server_listen(server *srv, proto p, const char *address) {
    char host[256];
    const char *colon = strrchr(address, ':');
    if (colon == NULL || colon == address || (size_t)(colon - address) >= sizeof host || colon[1] == '\0') {
        log_msg(LOG_ERROR, "%s address '%s' is not HOST:PORT", proto_label[p], address);
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
        log_msg(LOG_ERROR, "%s address '%s': %s", proto_label[p], address, gai_strerror(rc));
        return -1;
    }
    srv->listeners[p] = evconnlistener_new_bind(srv->base, on_accept, srv,
                                                LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
                                                511, res->ai_addr, (int)res->ai_addrlen);
    freeaddrinfo(res);
    if (srv->listeners[p] == NULL) {
        log_msg(LOG_ERROR, "%s: cannot listen on %s: %s", proto_label[p], address, strerror(errno));
        return -1;
    }
    evconnlistener_set_error_cb(srv->listeners[p], on_accept_error);
    log_msg(LOG_INFO, "serving %s on %s", proto_label[p], address);
    return 0;
}

void server_stop(server *srv) {
    srv->stopping = true;
    for (int p = 0; p < PROTO_COUNT; p++)
        if (srv->listeners[p] != NULL) {
            evconnlistener_free(srv->listeners[p]);
            srv->listeners[p] = NULL;
        }
    /* Replies already queued are sent; connections with nothing queued go now. */
    for (conn *c = srv->conns, *next; c != NULL; c = next) {
        next = c->next;
        c->closing = true;
        bufferevent_disable(c->bev, EV_READ);
        if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
            conn_free(c);
    }
}

void server_close_all(server *srv) {
    while (srv->conns != NULL)
        conn_free(srv->conns);
}

bool parse_count(const char *s, size_t len, uint64_t max, uint64_t *out) {
    if (len == 0 || len > 10 || s[0] == '0')
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}
