/* SPDX-License-Identifier: MIT */
/*
 * conn.c - reading, writing and closing client connections, the same for
 * every protocol: limits on request size and time, idle time and queued
 * output live here once. It never names a protocol: what it reads goes to
 * c->ops (proto.h), and listen.c hands it each accepted socket.
 *
 * Nothing here waits. A mint request is a job (job.c) run in slices of at
 * most SERVER_SLICE_IDS IDs per loop turn, and a connection's pipeline is
 * served at most SERVER_SLICE_REQUESTS requests per turn, so no client
 * delays the others by more than a slice. A job that cannot be minted yet
 * waits in its format's queue (blocked.c) and is served in turn when the
 * format can mint again. Replies queued for all clients together are
 * bounded (shed.c).
 *
 * Sockets are read and written directly, as Redis does, rather than through
 * libevent's bufferevents: a request costs one read() and one write(), with
 * no FIONREAD before each read and no epoll_ctl() to turn write interest on
 * and off around each reply. Write interest is taken only when the kernel
 * would not take a whole reply at once.
 */
#include "net/conn.h"

#include "net/blocked.h"
#include "base/log.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FLUSH_AT 65536 /* replies this large are sent before the next request is read */
#define LINGER_SECONDS 2
#define LINGER_MAX_BYTES (1u << 20)

/* Lines a client can trigger, each limited where it is logged (log_limited). */
static log_limit client_error_log, client_timeout_log;

static uint64_t now_ms(void) { return monotonic_ns() / 1000000u; }

/* Keeps svc->c->queued_bytes, the replies queued for all clients, as buffers change. */
static void count_queued(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg) {
    (void)buf;
    service *svc = arg;
    svc->c->queued_bytes += info->n_added;
    svc->c->queued_bytes -= info->n_deleted;
}

size_t conn_queued(const conn *c) {
    return evbuffer_get_length(c->out) + (c->job.body != NULL ? evbuffer_get_length(c->job.body) : 0);
}

size_t conn_held(const conn *c) { return conn_queued(c) + c->in_cap + (c->ops->held != NULL ? c->ops->held(c) : 0); }

void conn_free(conn *c) {
    server *srv = c->srv;
    TAILQ_REMOVE(&srv->conns, c, link);
    if (c->refused)
        srv->refusing--;
    else
        srv->svc->c->connections[c->proto]--;
    if (c->fresh)
        TAILQ_REMOVE(&srv->fresh, c, fresh_link);
    if (c->job.parked)
        blocked_remove(c);
    if (c->job.rider != NULL)
        c->job.rider->dropped(c);
    srv->svc->c->queued_bytes -= conn_queued(c);
    srv->svc->c->input_bytes -= c->in_cap;
    srv->input_grown -= c->in_cap - CONN_IN_INITIAL;
    event_free(c->rev);
    event_free(c->wev);
    event_free(c->timer);
    if (c->io != NULL)
        c->io->free(c);
    evutil_closesocket(c->fd);
    if (c->job.body != NULL) {
        evbuffer_remove_cb(c->job.body, count_queued, srv->svc);
        evbuffer_free(c->job.body);
    }
    evbuffer_remove_cb(c->out, count_queued, srv->svc);
    evbuffer_free(c->out);
    c->ops->close(c);
    free(c->in);
    free(c);
}

static const struct timeval *idle_tv(const server *srv, struct timeval *tv) {
    if (srv->cfg->idle_timeout == 0)
        return NULL;
    tv->tv_sec = (time_t)srv->cfg->idle_timeout;
    tv->tv_usec = 0;
    return tv;
}

/*
 * The monotonic clock in ms, as the idle sweep reads it: the coarse clock,
 * read once per read of a socket, costs next to nothing (a tick's
 * precision is plenty for a timeout counted in seconds).
 */
static uint64_t coarse_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/*
 * Reading with no deadline of its own: idle-timeout is kept by the sweep
 * (conn_sweep_idle), as Redis's cron does, not by a timeout on the read
 * event, which the event loop would set again for every request read (a
 * timer re-armed, a system call, per turn of the loop).
 */
static void read_idle(conn *c) {
    event_del(c->rev); /* an event added again without a timeout keeps its old one */
    event_add(c->rev, NULL);
    c->active_ms = coarse_ms();
}

/* The time a request may take from its first byte to its last: request-timeout, or idle-timeout if shorter. */
static uint64_t request_limit_ms(const server *srv) {
    uint64_t limit = srv->cfg->request_timeout;
    if (srv->cfg->idle_timeout != 0 && srv->cfg->idle_timeout < limit)
        limit = srv->cfg->idle_timeout;
    return limit * 1000;
}

/* Reading is on (not paused, not closing): its timeout may be changed. */
static bool reading(const conn *c) { return !c->input_full && !c->throttled && !c->closing && !c->lingering; }

/*
 * Closing a socket with unread input makes the kernel send a reset, which
 * can destroy the reply (an error saying why) before the client reads it.
 * So the write side is shut first and what the client still sends is read
 * and dropped until it closes, for a bounded time and amount.
 */
static void close_gracefully(conn *c) {
    if (c->io != NULL)
        c->io->close(c);
    if (shutdown(c->fd, SHUT_WR) != 0) {
        conn_free(c);
        return;
    }
    c->lingering = true;
    c->linger_until_ms = now_ms() + LINGER_SECONDS * 1000;
    event_del(c->wev);
    struct timeval tv = {LINGER_SECONDS, 0};
    event_add(c->rev, &tv);
}

static int process(conn *c);

/*
 * Reading resumes: TLS may already hold bytes read from the socket, which
 * the socket will not signal again, so those are taken on the next turn.
 */
static void resume_reading(conn *c) {
    read_idle(c);
    if (c->io != NULL && c->io->pending(c))
        event_active(c->rev, EV_READ, 0);
}

/*
 * One write of c->out to the socket: send() when it is one piece, as it
 * is for the replies to one read's requests (the kernel then has no
 * iovec array to copy in), else evbuffer_write()'s writev().
 */
static int send_out(conn *c) {
    struct evbuffer_iovec v;
    if (evbuffer_peek(c->out, -1, NULL, &v, 1) != 1)
        return evbuffer_write(c->out, c->fd);
    ssize_t n = send(c->fd, v.iov_base, v.iov_len, MSG_NOSIGNAL);
    if (n > 0)
        evbuffer_drain(c->out, (size_t)n);
    return (int)n;
}

/*
 * Sends what the kernel takes of the queued replies. Returns -1 if the
 * connection was closed (and freed), else 0.
 */
static int flush(conn *c) {
    while (evbuffer_get_length(c->out) > 0) {
        int n = c->io != NULL ? c->io->write(c, c->out) : send_out(c);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                break;
            log_limited(&client_error_log, LOG_DEBUG, "%s client error: %s", c->ops->label, strerror(errno));
            conn_free(c);
            return -1;
        }
        if (n == 0)
            break;
    }
    if (evbuffer_get_length(c->out) > 0) {
        /* The rest waits for the socket; a client that reads nothing is dropped. */
        if (!event_pending(c->wev, EV_WRITE, NULL)) {
            /* A connection being closed gets a fixed time to take its last
             * reply, even where idle-timeout is off. */
            struct timeval tv, linger = {LINGER_SECONDS, 0};
            const struct timeval *limit = c->closing ? &linger : idle_tv(c->srv, &tv);
            event_add(c->wev, limit);
        }
        return 0;
    }
    event_del(c->wev);
    if (c->closing && !c->job.active) {
        close_gracefully(c);
        return -1;
    }
    if (c->throttled) {
        c->throttled = false;
        resume_reading(c);
        return process(c); /* what was read meanwhile */
    }
    return 0;
}

/* Asks for the next slice of c's work on the next loop turn, after the other clients'. */
static void resume_next_turn(conn *c) {
    static const struct timeval now = {0, 0};
    if (!c->job.parked)
        event_add(c->timer, &now);
}

/*
 * Serves c for one loop turn: its job, then the complete requests in c->in,
 * within the slice. Returns -1 if c was freed.
 */
static int process(conn *c) {
    server *srv = c->srv;
    size_t off = 0, budget = SERVER_SLICE_IDS;
    int requests = SERVER_SLICE_REQUESTS;
    for (;;) {
        if (c->job.active) {
            /* Its turn comes from the queue, or the key store's answer. */
            if (c->job.parked || c->job.held)
                break;
            /* Others of its format wait already: it waits behind them, and
             * the queue is looked at again soon, in case what held it up
             * (a clock stepped back, say) has passed since it was put off. */
            wait_queue *q = blocked_queue(srv, c->job.fmt);
            if (!TAILQ_EMPTY(&q->jobs)) {
                blocked_push(c, false);
                blocked_arm(q, WAIT_RECHECK_NS);
                break;
            }
            uint64_t retry_ns;
            job_state js = c->job.step(c, &budget, &retry_ns);
            if (js == JOB_PARKED) {
                blocked_park(c, false, retry_ns);
                break;
            }
            if (js == JOB_YIELD) {
                resume_next_turn(c);
                break;
            }
            if (c->job.held)
                break; /* done minting; its reply waits for the key store */
        }
        /* The commands an EXEC queued come before the requests after it. */
        bool exec = c->ops->pending != NULL && c->ops->pending(c);
        if (c->closing || (off >= c->in_len && !exec))
            break;
        /* A client that does not read its replies is not served more. */
        if (evbuffer_get_length(c->out) > srv->cfg->max_output) {
            c->throttled = true;
            event_del(c->rev);
            break;
        }
        if (requests == 0 || budget == 0) {
            resume_next_turn(c);
            break;
        }
        if (exec) {
            c->ops->resume(c, c->out);
            requests--;
            continue;
        }
        const char *data = c->in + off;
        size_t len = c->in_len - off;
        size_t used = c->ops->handle(c, data, len, c->out);
        if (used == 0) {
            /* An incomplete request must arrive whole within request-timeout
             * of its first byte, however slowly its bytes trickle in: the
             * read event's timeout is brought to that deadline, which a
             * byte arriving does not move. */
            uint64_t now = now_ms(), limit = request_limit_ms(srv);
            if (c->partial_since_ms == 0)
                c->partial_since_ms = now;
            if (now - c->partial_since_ms >= limit) {
                srv->svc->c->request_timeouts++;
                log_limited(&client_timeout_log, LOG_DEBUG, "%s client dropped: request unfinished after %llu ms",
                            c->ops->label, (unsigned long long)(now - c->partial_since_ms));
                conn_free(c);
                return -1;
            }
            if (reading(c)) {
                uint64_t left = c->partial_since_ms + limit - now;
                struct timeval tv = {(time_t)(left / 1000), (suseconds_t)(left % 1000 * 1000)};
                event_add(c->rev, &tv);
            }
            break;
        }
        requests--;
        if (c->partial_since_ms != 0) {
            /* The idle timeout again, in place of the request's deadline
             * (an event keeps its timeout when added again without one). */
            c->partial_since_ms = 0;
            if (reading(c))
                read_idle(c);
        }
        if (c->fresh) {
            c->fresh = false;
            TAILQ_REMOVE(&srv->fresh, c, fresh_link);
        }
        off += used;
        /* Large replies go out before the next request is handled, so the
         * client can read one batch while the next is minted. */
        if (evbuffer_get_length(c->out) >= FLUSH_AT) {
            memmove(c->in, c->in + off, c->in_len - off);
            c->in_len -= off;
            off = 0;
            if (flush(c) != 0)
                return -1;
        }
    }
    memmove(c->in, c->in + off, c->in_len - off);
    c->in_len -= off;
    /* Reading paused on a full buffer resumes once requests made room. */
    if (c->input_full && c->in_len < c->in_cap && !c->throttled && !c->closing) {
        c->input_full = false;
        resume_reading(c);
    }
    if (server_over_total(srv))
        server_shed_soon(srv);
    return flush(c);
}

static void on_timer(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what;
    conn *c = arg;
    if (c->lingering)
        return;
    if (c->job.parked) {
        /* Its deadline: one last try, out of turn (the queue's timer may be
         * due at this very moment), and if nothing can be minted, the
         * error saying why. */
        wait_queue *q = blocked_queue(c->srv, c->job.fmt);
        size_t budget = SERVER_SLICE_IDS;
        uint64_t retry_ns = 0, before = c->job.done;
        blocked_remove(c);
        job_state js = c->job.step(c, &budget, &retry_ns);
        if (js == JOB_PARKED) {
            /* It minted (and its deadline starts again), or the timer came
             * a little early: back in the queue either way. */
            blocked_park(c, c->job.done == before, retry_ns);
            return;
        }
        if (js == JOB_YIELD) {
            if (server_over_total(c->srv))
                server_shed_soon(c->srv);
            blocked_push(c, c->job.done == before);
            blocked_arm(q, 0);
            return;
        }
    }
    process(c);
}

/*
 * Advances a TLS handshake as far as the socket allows. Returns -1 if c
 * was freed (the handshake failed), 0 while it goes on, 1 once done.
 */
static int handshake(conn *c) {
    int r = c->io->handshake(c);
    if (r < 0) {
        conn_free(c);
        return -1;
    }
    if (r == 0)
        return 0;
    c->handshaking = false;
    if (evbuffer_get_length(c->out) == 0)
        event_del(c->wev);
    resume_reading(c); /* the idle timeout from now on, not the handshake's */
    return 1;
}

static void on_writable(evutil_socket_t fd, short what, void *arg) {
    conn *c = arg;
    (void)fd;
    if (what & EV_TIMEOUT) {
        log_limited(&client_timeout_log, LOG_DEBUG, "%s client dropped: replies unread past idle-timeout",
                    c->ops->label);
        conn_free(c);
        return;
    }
    if (c->handshaking) {
        handshake(c);
        return;
    }
    flush(c);
}

static void on_readable(evutil_socket_t fd, short what, void *arg) {
    conn *c = arg;
    server *srv = c->srv;
    if (what & EV_TIMEOUT) {
        if (c->handshaking) {
            srv->svc->c->tls_handshake_failures++;
            log_limited(&client_timeout_log, LOG_DEBUG, "%s client dropped: TLS handshake unfinished after %llu s",
                        c->ops->label, (unsigned long long)srv->cfg->tls_handshake_timeout);
        } else if (c->partial_since_ms != 0 && !c->lingering) {
            /* While a request is incomplete the timeout is its deadline. */
            srv->svc->c->request_timeouts++;
            log_limited(&client_timeout_log, LOG_DEBUG, "%s client dropped: request unfinished after %llu ms",
                        c->ops->label, (unsigned long long)(now_ms() - c->partial_since_ms));
        } else if (!c->lingering) {
            log_limited(&client_timeout_log, LOG_DEBUG, "%s client dropped: idle past idle-timeout", c->ops->label);
        }
        conn_free(c);
        return;
    }
    c->active_ms = coarse_ms();
    if (c->handshaking && handshake(c) <= 0)
        return;
    if (c->lingering) {
        /* Bounded in time however the client trickles, and in bytes. */
        char drop[4096];
        ssize_t n = recv(fd, drop, sizeof drop, 0);
        if (n > 0 && (c->lingered += (size_t)n) <= LINGER_MAX_BYTES && now_ms() < c->linger_until_ms)
            return;
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        conn_free(c);
        return;
    }
    /* Room for several requests, never more than a few times max-request-size. */
    size_t limit = srv->cfg->max_request * 4 + 65536;
    if (c->in_len == c->in_cap) {
        size_t cap = c->in_cap * 2 < limit ? c->in_cap * 2 : limit;
        if (cap <= c->in_cap) {
            /* Full of requests waiting for a job or the next slice (an
             * incomplete one this large the parsers refuse long before):
             * process() resumes reading once it has made room. */
            c->input_full = true;
            event_del(c->rev);
            return;
        }
        char *grown = realloc(c->in, cap);
        if (grown == NULL) {
            conn_free(c);
            return;
        }
        srv->svc->c->input_bytes += cap - c->in_cap;
        srv->input_grown += cap - c->in_cap;
        c->in = grown;
        c->in_cap = cap;
    }
    ssize_t n = c->io != NULL ? c->io->read(c, c->in + c->in_len, c->in_cap - c->in_len)
                              : recv(fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
    if (n <= 0) {
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        if (n < 0)
            log_limited(&client_error_log, LOG_DEBUG, "%s client error: %s", c->ops->label, strerror(errno));
        conn_free(c); /* the client closed: what it did not wait for is dropped */
        return;
    }
    c->in_len += (size_t)n;
    if (process(c) == 0 && c->io != NULL && c->io->pending(c) && !c->input_full && !c->throttled && !c->closing)
        event_active(c->rev, EV_READ, 0); /* TLS holds more than c->in took */
}

/* A slice of c's job, for the wait queues. */
static job_state step(conn *c, size_t *budget, uint64_t *retry_ns) { return c->job.step(c, budget, retry_ns); }

const wait_hooks conn_wait_hooks = {step, process};

void conn_accept(server *srv, evutil_socket_t fd, proto p, const proto_ops *ops, bool tls, bool refused,
                 const unsigned char peer[16]) {
    service *svc = srv->svc;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    conn *c = calloc(1, sizeof *c + ops->session_size);
    if (c != NULL) {
        c->rev = event_new(srv->base, fd, EV_READ | EV_PERSIST, on_readable, c);
        c->wev = event_new(srv->base, fd, EV_WRITE | EV_PERSIST, on_writable, c);
        c->timer = evtimer_new(srv->base, on_timer, c);
        c->out = evbuffer_new();
        c->job.body = evbuffer_new();
        c->in = malloc(CONN_IN_INITIAL);
    }
    if (c == NULL || c->rev == NULL || c->wev == NULL || c->timer == NULL || c->out == NULL || c->job.body == NULL ||
        c->in == NULL) {
        log_msg(LOG_ERROR, "out of memory accepting a connection");
        if (c != NULL) {
            if (c->rev != NULL)
                event_free(c->rev);
            if (c->wev != NULL)
                event_free(c->wev);
            if (c->timer != NULL)
                event_free(c->timer);
            if (c->out != NULL)
                evbuffer_free(c->out);
            if (c->job.body != NULL)
                evbuffer_free(c->job.body);
            free(c->in);
            free(c);
        }
        evutil_closesocket(fd);
        return;
    }
    c->srv = srv;
    c->proto = p;
    c->ops = ops;
    c->session = c + 1;
    c->fd = fd;
    evbuffer_add_cb(c->out, count_queued, svc);
    evbuffer_add_cb(c->job.body, count_queued, svc);
    c->in_cap = CONN_IN_INITIAL;
    svc->c->input_bytes += CONN_IN_INITIAL;
    c->refused = refused;
    ops->open(c);
    TAILQ_INSERT_HEAD(&srv->conns, c, link);
    if (refused) {
        /* Say why, as Redis does, then close without reading a request. */
        srv->refusing++;
        c->closing = true;
        evbuffer_add(c->out, ops->refusal, strlen(ops->refusal));
        flush(c);
        return;
    }
    svc->c->connections[p]++;
    svc->c->connections_total[p]++;
    memcpy(c->peer, peer, sizeof c->peer);
    c->fresh = true;
    TAILQ_INSERT_TAIL(&srv->fresh, c, fresh_link);
    if (tls) {
        if (srv->tls_attach(c) != 0) {
            conn_free(c);
            return;
        }
        /* The handshake has its own deadline, whatever idle-timeout is. */
        struct timeval hs = {(time_t)srv->cfg->tls_handshake_timeout, 0};
        c->handshaking = true;
        event_add(c->rev, &hs);
        return;
    }
    read_idle(c);
}

void conn_sweep_idle(server *srv) {
    uint64_t idle = (uint64_t)srv->cfg->idle_timeout * 1000u, now = coarse_ms();
    if (idle == 0)
        return;
    for (conn *c = TAILQ_FIRST(&srv->conns), *next; c != NULL; c = next) {
        next = TAILQ_NEXT(c, link);
        /* Those with a deadline of their own (a handshake, a request
         * unfinished, a close), a job or replies under way are not idle. */
        if (c->handshaking || c->partial_since_ms != 0 || c->lingering || c->closing || c->job.active ||
            evbuffer_get_length(c->out) > 0 || now - c->active_ms < idle)
            continue;
        log_limited(&client_timeout_log, LOG_DEBUG, "%s client dropped: idle past idle-timeout", c->ops->label);
        conn_free(c);
    }
}
