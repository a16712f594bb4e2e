/*
 * conn.c - accepting, reading, writing and closing client connections, the
 * same for HTTP and RESP: limits on connections, request size, idle time
 * and queued output live here once.
 *
 * Nothing here waits. A mint request is a job run in slices of at most
 * SERVER_SLICE_IDS IDs per loop turn, and a connection's pipeline is served
 * at most SERVER_SLICE_REQUESTS requests per turn, so no client delays the
 * others by more than a slice. A job that cannot be minted yet waits in
 * its format's queue and is served in turn when the format can mint again
 * (wait_queue in server.h). Replies queued for all clients together are
 * bounded: past max-output-total the clients with the most unread replies
 * are dropped.
 *
 * Sockets are read and written directly, as Redis does, rather than through
 * libevent's bufferevents: a request costs one read() and one write(), with
 * no FIONREAD before each read and no epoll_ctl() to turn write interest on
 * and off around each reply. Write interest is taken only when the kernel
 * would not take a whole reply at once.
 */
#include "server.h"

#include "log.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <sys/stat.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const char *const proto_label[PROTO_COUNT] = {"HTTP", "RESP"};

#define IN_INITIAL 16384
#define FLUSH_AT 65536 /* replies this large are sent before the next request is read */
#define LINGER_SECONDS 2
#define LINGER_MAX_BYTES (1u << 20)
/* Refused connections still get their reason and a graceful close, but only
 * this many at once; beyond that they are closed at once. */
#define MAX_REFUSING 64

static uint64_t now_ms(void) { return monotonic_ns() / 1000000u; }

/* Keeps svc->queued_bytes, the replies queued for all clients, as buffers change. */
static void count_queued(struct evbuffer *buf, const struct evbuffer_cb_info *info, void *arg) {
    (void)buf;
    service *svc = arg;
    svc->queued_bytes += info->n_added;
    svc->queued_bytes -= info->n_deleted;
}

static size_t queued(const conn *c) {
    return evbuffer_get_length(c->out) + (c->job.body != NULL ? evbuffer_get_length(c->job.body) : 0);
}

/* What a connection holds in memory that the total bound counts: replies and request buffer. */
static size_t held(const conn *c) {
    return queued(c) + c->in_cap + (c->resp.multi != NULL ? evbuffer_get_length(c->resp.multi) : 0);
}

/* Past max-output-total, counting replies and request buffers of every client? */
static bool over_total(const server *srv) {
    return srv->svc->queued_bytes + srv->svc->input_bytes > srv->cfg->max_output_total;
}

/* Takes c's parked job out of its format's queue. */
static void wait_remove(conn *c) {
    wait_queue *q = &c->srv->waiting[c->job.fmt->id];
    if (c->wait_prev != NULL)
        c->wait_prev->wait_next = c->wait_next;
    else
        q->head = c->wait_next;
    if (c->wait_next != NULL)
        c->wait_next->wait_prev = c->wait_prev;
    else
        q->tail = c->wait_prev;
    c->wait_prev = c->wait_next = NULL;
    c->job.parked = false;
    c->srv->svc->parked_now--;
    event_del(c->timer);
}

/* A new job behind a waiting queue has the queue looked at again within this. */
#define WAIT_RECHECK_NS 1000000u

static struct timeval ns_timeval(uint64_t ns) {
    return (struct timeval){(time_t)(ns / 1000000000u), (suseconds_t)(ns % 1000000000u / 1000u)};
}

/*
 * Parks c's job in its format's queue, at the back or (a job whose turn
 * came and could mint nothing) the front. A job starting to wait gets its
 * deadline: max-wait bounds each wait, not a whole batch that keeps
 * progressing. A request is counted once, however many turns it waits.
 * Returns the time left to the deadline, in ns.
 */
static uint64_t wait_push(conn *c, bool front) {
    server *srv = c->srv;
    mint_job *j = &c->job;
    wait_queue *q = &srv->waiting[j->fmt->id];
    uint64_t now = monotonic_ns();
    if (j->deadline_ns == 0)
        j->deadline_ns = now + srv->cfg->max_wait * 1000000u;
    if (!j->waited) {
        j->waited = true;
        srv->svc->parked_total++;
    }
    if (front) {
        c->wait_prev = NULL;
        c->wait_next = q->head;
        if (q->head != NULL)
            q->head->wait_prev = c;
        else
            q->tail = c;
        q->head = c;
    } else {
        c->wait_next = NULL;
        c->wait_prev = q->tail;
        if (q->tail != NULL)
            q->tail->wait_next = c;
        else
            q->head = c;
        q->tail = c;
    }
    j->parked = true;
    srv->svc->parked_now++;
    uint64_t left = j->deadline_ns > now ? j->deadline_ns - now : 0;
    struct timeval tv = ns_timeval(left);
    event_add(c->timer, &tv);
    return left;
}

/* Wakes q after retry_ns, unless it is already due sooner. */
static void wait_arm(wait_queue *q, uint64_t retry_ns) {
    uint64_t due = monotonic_ns() + retry_ns;
    if (q->due_ns != 0 && q->due_ns <= due && event_pending(q->timer, EV_TIMEOUT, NULL))
        return;
    q->due_ns = due;
    struct timeval tv = ns_timeval(retry_ns);
    event_add(q->timer, &tv);
}

/*
 * Parks c's job, which could mint nothing more, and wakes its queue when
 * the service said to try again, or at the job's deadline if that comes
 * first: a wait for the wall clock is looked at again at least that often,
 * since the clock can be stepped meanwhile.
 */
static void wait_park(conn *c, bool front, uint64_t retry_ns) {
    uint64_t left = wait_push(c, front);
    wait_arm(&c->srv->waiting[c->job.fmt->id], retry_ns < left ? retry_ns : left);
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
    if (c->job.parked)
        wait_remove(c);
    srv->svc->queued_bytes -= queued(c);
    srv->svc->input_bytes -= c->in_cap;
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
    if (c->proto == PROTO_RESP)
        resp_session_free(c);
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
    struct timeval tv;
    event_add(c->rev, idle_tv(c->srv, &tv));
    if (c->io != NULL && c->io->pending(c))
        event_active(c->rev, EV_READ, 0);
}

/*
 * Sends what the kernel takes of the queued replies. Returns -1 if the
 * connection was closed (and freed), else 0.
 */
static int flush(conn *c) {
    while (evbuffer_get_length(c->out) > 0) {
        int n = c->io != NULL ? c->io->write(c, c->out) : evbuffer_write(c->out, c->fd);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                break;
            log_msg(LOG_DEBUG, "%s client error: %s", proto_label[c->proto], strerror(errno));
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

/* Queues the reply of a finished (or failed) job and clears it. */
static void job_end(conn *c, int status, const char *why) {
    if (c->job.parked)
        wait_remove(c);
    if (status != MINTID_OK)
        evbuffer_drain(c->job.body, evbuffer_get_length(c->job.body));
    c->job.finish(c, status, why);
    evbuffer_drain(c->job.body, evbuffer_get_length(c->job.body));
    c->job.active = false;
}

job_state conn_job_step(conn *c, size_t *budget, uint64_t *retry_ns) {
    server *srv = c->srv;
    mint_job *j = &c->job;
    if (j->parked)
        wait_remove(c);
    while (j->done < j->count) {
        /* Past the bound on replies queued for everyone, mint nothing more
         * until the slowest clients are dropped. */
        if (*budget == 0 || over_total(srv))
            return JOB_YIELD;
        size_t want = j->count - j->done < *budget ? (size_t)(j->count - j->done) : *budget;
        const char *why = NULL;
        long n = service_mint(srv->svc, j->fmt, want, srv->ids, retry_ns, &why);
        if (n < 0) {
            job_end(c, (int)n, why);
            return JOB_DONE;
        }
        if (n > 0)
            j->deadline_ns = 0; /* max-wait bounds each wait, not a whole batch that keeps progressing */
        if (n == 0) {
            if (j->deadline_ns != 0 && monotonic_ns() >= j->deadline_ns) {
                job_end(c, MINTID_ETIMEDOUT, why);
                return JOB_DONE;
            }
            return JOB_PARKED;
        }
        j->encode(c, srv->ids, (size_t)n);
        if (j->error != 0) {
            job_end(c, j->error, mintid_strerror(j->error));
            return JOB_DONE;
        }
        j->done += (uint64_t)n;
        *budget -= (size_t)n;
    }
    job_end(c, MINTID_OK, NULL);
    return JOB_DONE;
}

void conn_start_mint(conn *c, const mintid_format *fmt, int form, const char *prefix, uint64_t count,
                     void (*encode)(conn *c, const mintid_id *ids, size_t n),
                     void (*finish)(conn *c, int status, const char *why)) {
    mint_job *j = &c->job;
    j->fmt = fmt;
    j->form = form;
    snprintf(j->prefix, sizeof j->prefix, "%s", prefix != NULL ? prefix : "");
    j->count = count;
    j->encode = encode;
    j->finish = finish;
    j->active = true;
    j->parked = false;
    j->done = 0;
    j->deadline_ns = 0;
    j->waited = false;
    j->error = 0;
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
            /* Its turn comes from the queue. */
            if (c->job.parked)
                break;
            /* Others of its format wait already: it waits behind them, and
             * the queue is looked at again soon, in case what held it up
             * (a clock stepped back, say) has passed since it was put off. */
            wait_queue *q = &srv->waiting[c->job.fmt->id];
            if (q->head != NULL) {
                wait_push(c, false);
                wait_arm(q, WAIT_RECHECK_NS);
                break;
            }
            uint64_t retry_ns;
            job_state js = conn_job_step(c, &budget, &retry_ns);
            if (js == JOB_PARKED) {
                wait_park(c, false, retry_ns);
                break;
            }
            if (js == JOB_YIELD) {
                resume_next_turn(c);
                break;
            }
        }
        /* The commands an EXEC queued come before the requests after it. */
        bool exec = c->proto == PROTO_RESP && resp_exec_pending(c);
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
            resp_exec_step(c, c->out);
            requests--;
            continue;
        }
        const char *data = c->in + off;
        size_t len = c->in_len - off;
        size_t used = c->proto == PROTO_HTTP ? http_handle(c, data, len, c->out) : resp_handle(c, data, len, c->out);
        if (used == 0) {
            /* An incomplete request must complete within the idle timeout,
             * however slowly its bytes trickle in. */
            uint64_t now = now_ms();
            if (c->partial_since_ms == 0)
                c->partial_since_ms = now;
            else if (srv->cfg->idle_timeout > 0 && now - c->partial_since_ms > srv->cfg->idle_timeout * 1000) {
                log_msg(LOG_DEBUG, "%s client dropped: request incomplete past idle-timeout", proto_label[c->proto]);
                conn_free(c);
                return -1;
            }
            break;
        }
        requests--;
        c->partial_since_ms = 0;
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
    if (over_total(srv))
        event_active(srv->shed_ev, EV_TIMEOUT, 0);
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
        wait_queue *q = &c->srv->waiting[c->job.fmt->id];
        size_t budget = SERVER_SLICE_IDS;
        uint64_t retry_ns = 0, before = c->job.done;
        wait_remove(c);
        job_state js = conn_job_step(c, &budget, &retry_ns);
        if (js == JOB_PARKED) {
            /* It minted (and its deadline starts again), or the timer came
             * a little early: back in the queue either way. */
            wait_park(c, c->job.done == before, retry_ns);
            return;
        }
        if (js == JOB_YIELD) {
            if (over_total(c->srv))
                event_active(c->srv->shed_ev, EV_TIMEOUT, 0);
            wait_push(c, c->job.done == before);
            wait_arm(q, 0);
            return;
        }
    }
    process(c);
}

/*
 * Serves a format's wait queue when the format can mint again: from the
 * head, each job at most once per wake-up, with an equal share of the
 * format's unit (4096 nanoflakes in a ms among 100 waiting clients: 40
 * each), so a client asking for a few IDs is answered in the first unit
 * however many big batches wait with it. A job that minted and wants more
 * goes to the back; one that could mint nothing stays at the head, and the
 * queue sleeps until the time it was given.
 */
static void on_wait_timer(evutil_socket_t fd, short what, void *arg) {
    (void)fd, (void)what;
    wait_queue *q = arg;
    q->due_ns = 0;
    size_t turns = 0;
    for (conn *c = q->head; c != NULL; c = c->wait_next)
        turns++;
    if (turns == 0)
        return;
    /* A format of unbounded capacity waits only for the clock, the state
     * file or a lease: whole slices. */
    const mintid_format *fmt = q->head->job.fmt;
    size_t share = SERVER_SLICE_IDS;
    if (fmt->capacity_per_ms != 0) {
        uint64_t each = (uint64_t)fmt->capacity_per_ms * fmt->ts_unit_ms / turns;
        share = each == 0 ? 1 : each < SERVER_SLICE_IDS ? (size_t)each : SERVER_SLICE_IDS;
    }
    for (; turns > 0 && q->head != NULL; turns--) {
        conn *c = q->head;
        server *srv = c->srv;
        size_t budget = share;
        uint64_t retry_ns = 0, before = c->job.done;
        wait_remove(c);
        job_state js = conn_job_step(c, &budget, &retry_ns);
        bool minted = c->job.done > before;
        if (js == JOB_DONE) {
            process(c); /* its reply, then the requests behind it */
            continue;
        }
        if (js == JOB_PARKED) {
            wait_park(c, !minted, retry_ns);
            return;
        }
        wait_push(c, !minted);
        if (!minted || over_total(srv)) {
            /* Past the bound on queued replies: the clients holding most
             * are dropped, and the queue goes on next loop turn. */
            if (over_total(srv))
                event_active(srv->shed_ev, EV_TIMEOUT, 0);
            wait_arm(q, 0);
            return;
        }
    }
    /* Everyone had a slice: the rest on the next turn, after other events. */
    if (q->head != NULL)
        wait_arm(q, 0);
}

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
    if (!over_total(srv))
        return;
    while (svc->queued_bytes + svc->input_bytes > target) {
        conn *worst = NULL;
        for (conn *c = srv->conns; c != NULL; c = c->next)
            if (!c->refused && (worst == NULL || held(c) > held(worst)))
                worst = c;
        if (worst == NULL || held(worst) <= IN_INITIAL)
            break;
        log_msg(LOG_WARN,
                "%s client dropped holding %zu bytes of unread replies and %zu of request buffer: what all "
                "clients hold passed max-output-total (%llu)",
                proto_label[worst->proto], queued(worst), worst->in_cap, (unsigned long long)limit);
        svc->clients_shed++;
        conn_free(worst);
    }
    /* The survivors' jobs that yielded to the bound resume on their timers. */
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
        log_msg(LOG_DEBUG, "%s client dropped: replies unread past idle-timeout", proto_label[c->proto]);
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
            srv->svc->tls_handshake_failures++;
            log_msg(LOG_DEBUG, "%s client dropped: TLS handshake unfinished after %llu s", proto_label[c->proto],
                    (unsigned long long)srv->cfg->tls_handshake_timeout);
        } else if (!c->lingering) {
            log_msg(LOG_DEBUG, "%s client dropped: idle past idle-timeout", proto_label[c->proto]);
        }
        conn_free(c);
        return;
    }
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
        srv->svc->input_bytes += cap - c->in_cap;
        c->in = grown;
        c->in_cap = cap;
    }
    ssize_t n = c->io != NULL ? c->io->read(c, c->in + c->in_len, c->in_cap - c->in_len)
                              : recv(fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
    if (n <= 0) {
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            return;
        if (n < 0)
            log_msg(LOG_DEBUG, "%s client error: %s", proto_label[c->proto], strerror(errno));
        conn_free(c); /* the client closed: what it did not wait for is dropped */
        return;
    }
    c->in_len += (size_t)n;
    if (process(c) == 0 && c->io != NULL && c->io->pending(c) && !c->input_full && !c->throttled && !c->closing)
        event_active(c->rev, EV_READ, 0); /* TLS holds more than c->in took */
}

static void on_accept(struct evconnlistener *lev, evutil_socket_t fd, struct sockaddr *addr, int socklen, void *arg) {
    server *srv = arg;
    (void)addr, (void)socklen;
    proto p = lev == srv->listeners[PROTO_HTTP] || lev == srv->tls_listeners[PROTO_HTTP] ? PROTO_HTTP : PROTO_RESP;
    bool tls = lev == srv->tls_listeners[p];
    service *svc = srv->svc;
    bool refuse = svc->connections[PROTO_HTTP] + svc->connections[PROTO_RESP] >= srv->cfg->max_connections;
    if (refuse) {
        svc->connections_refused[p]++;
        log_msg(LOG_WARN, "%s connection refused: max-connections (%llu) reached", proto_label[p],
                (unsigned long long)srv->cfg->max_connections);
        /* A TLS client could read the reason only after a handshake it
         * should not be given: it is closed at once. */
        if (srv->refusing >= MAX_REFUSING || tls) {
            evutil_closesocket(fd);
            return;
        }
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    conn *c = calloc(1, sizeof *c);
    if (c != NULL) {
        c->rev = event_new(srv->base, fd, EV_READ | EV_PERSIST, on_readable, c);
        c->wev = event_new(srv->base, fd, EV_WRITE | EV_PERSIST, on_writable, c);
        c->timer = evtimer_new(srv->base, on_timer, c);
        c->out = evbuffer_new();
        c->job.body = evbuffer_new();
        c->in = malloc(IN_INITIAL);
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
    c->fd = fd;
    evbuffer_add_cb(c->out, count_queued, svc);
    evbuffer_add_cb(c->job.body, count_queued, svc);
    c->in_cap = IN_INITIAL;
    svc->input_bytes += IN_INITIAL;
    c->refused = refuse;
    if (p == PROTO_RESP)
        resp_session_init(c);
    c->next = srv->conns;
    if (srv->conns != NULL)
        srv->conns->prev = c;
    srv->conns = c;
    if (refuse) {
        /* Say why, as Redis does, then close without reading a request. */
        srv->refusing++;
        c->closing = true;
        const char *msg = p == PROTO_HTTP ? http_refusal : resp_refusal;
        evbuffer_add(c->out, msg, strlen(msg));
        flush(c);
        return;
    }
    svc->connections[p]++;
    svc->connections_total[p]++;
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
    struct timeval tv;
    event_add(c->rev, idle_tv(srv, &tv));
}

static void on_accept_error(struct evconnlistener *lev, void *arg) {
    (void)arg, (void)lev;
    /* Out of descriptors, say: log and carry on; the listener retries. */
    log_msg(LOG_ERROR, "accept: %s", evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
}

int server_listen(server *srv, proto p, const char *address, bool tls) {
    const char *label = tls ? (p == PROTO_HTTP ? "HTTPS" : "RESP over TLS") : proto_label[p];
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
    struct evconnlistener **lev = tls ? &srv->tls_listeners[p] : &srv->listeners[p];
    *lev = evconnlistener_new_bind(srv->base, on_accept, srv,
                                   LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC, 511, res->ai_addr,
                                   (int)res->ai_addrlen);
    freeaddrinfo(res);
    if (*lev == NULL) {
        log_msg(LOG_ERROR, "%s: cannot listen on %s: %s", label, address, strerror(errno));
        return -1;
    }
    evconnlistener_set_error_cb(*lev, on_accept_error);
    if (srv->shed_ev == NULL && (srv->shed_ev = evtimer_new(srv->base, on_shed, srv)) == NULL) {
        log_msg(LOG_ERROR, "out of memory");
        return -1;
    }
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        wait_queue *q = &srv->waiting[i];
        if (q->timer == NULL && (q->timer = evtimer_new(srv->base, on_wait_timer, q)) == NULL) {
            log_msg(LOG_ERROR, "out of memory");
            return -1;
        }
    }
    log_msg(LOG_INFO, "serving %s on %s", label, address);
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
    for (conn *c = srv->conns, *next; c != NULL; c = next) {
        next = c->next;
        if (c->lingering)
            continue;
        c->closing = true;
        event_del(c->rev);
        if (evbuffer_get_length(c->out) == 0 && !c->job.active)
            conn_free(c);
    }
}

void server_close_all(server *srv) {
    while (srv->conns != NULL)
        conn_free(srv->conns);
    if (srv->shed_ev != NULL) {
        event_free(srv->shed_ev);
        srv->shed_ev = NULL;
    }
    for (int i = 0; i < MINTID_FORMAT_COUNT; i++) {
        if (srv->waiting[i].timer != NULL) {
            event_free(srv->waiting[i].timer);
            srv->waiting[i].timer = NULL;
        }
    }
}

/* ---- authentication: auth-file, and a secret offered by a client ---- */

static bool digest(const char *s, size_t n, unsigned char out[AUTH_DIGEST_LEN]) {
    unsigned int len = 0;
    return EVP_Digest(s, n, out, &len, EVP_sha256(), NULL) == 1 && len == AUTH_DIGEST_LEN;
}

int auth_load(auth *a, const char *path) {
    memset(a, 0, sizeof a[0]);
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        log_msg(LOG_ERROR, "auth-file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (st.st_mode & 0077) != 0)
        log_msg(LOG_WARN, "auth-file %s can be read by other users; chmod 600 it", path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int lineno = 0, rc = 0;
    while (rc == 0 && (got = getline(&line, &cap, f)) >= 0) {
        size_t n = (size_t)got;
        lineno++;
        if (n > 0 && line[n - 1] == '\n')
            n--;
        if (n > 0 && line[n - 1] == '\r')
            n--;
        /* The reasons name the line, never its bytes. */
        if (memchr(line, '\0', n) != NULL) {
            log_msg(LOG_ERROR, "auth-file %s: line %d has a NUL byte", path, lineno);
            rc = -1;
        } else if (n > AUTH_SECRET_MAX) {
            log_msg(LOG_ERROR, "auth-file %s: line %d is longer than %d bytes", path, lineno, AUTH_SECRET_MAX);
            rc = -1;
        } else if (n > 0) {
            unsigned char(*grown)[AUTH_DIGEST_LEN] = realloc(a->digest, (a->n + 1) * sizeof a->digest[0]);
            if (grown != NULL)
                a->digest = grown;
            if (grown == NULL || !digest(line, n, a->digest[a->n])) {
                log_msg(LOG_ERROR, "auth-file %s: out of memory", path);
                rc = -1;
            } else {
                a->n++;
            }
        }
        OPENSSL_cleanse(line, cap);
    }
    if (rc == 0 && ferror(f)) {
        log_msg(LOG_ERROR, "auth-file %s: %s", path, strerror(errno));
        rc = -1;
    }
    free(line);
    fclose(f);
    if (rc == 0 && a->n == 0) {
        log_msg(LOG_ERROR, "auth-file %s holds no secret (one per line)", path);
        rc = -1;
    }
    if (rc != 0)
        auth_free(a);
    return rc;
}

void auth_free(auth *a) {
    free(a->digest);
    a->digest = NULL;
    a->n = 0;
}

auth_result auth_attempt(conn *c, const char *secret, size_t len, uint64_t *retry_ms) {
    const auth *a = c->srv->auth;
    uint64_t now = monotonic_ns() / 1000000u;
    *retry_ms = 0;
    if (c->auth_retry_ms > now) {
        c->srv->svc->auth_failures[c->proto]++;
        *retry_ms = c->auth_retry_ms - now;
        return AUTH_TOO_SOON;
    }
    unsigned char d[AUTH_DIGEST_LEN];
    int match = 0;
    if (a != NULL && digest(secret, len, d)) {
        /* Every secret is compared, whichever matches, so the time says nothing of which. */
        for (size_t i = 0; i < a->n; i++)
            match |= CRYPTO_memcmp(d, a->digest[i], AUTH_DIGEST_LEN) == 0;
    }
    if (match) {
        c->auth_failures = 0;
        return AUTH_OK;
    }
    c->srv->svc->auth_failures[c->proto]++;
    c->auth_failures++;
    if (c->auth_failures >= AUTH_MAX_FAILURES) {
        log_msg(LOG_WARN, "%s client closed after %d wrong secrets", c->proto == PROTO_HTTP ? "HTTP" : "RESP",
                AUTH_MAX_FAILURES);
        c->closing = true;
    } else if (c->auth_failures >= AUTH_FREE_FAILURES) {
        unsigned shift = c->auth_failures - AUTH_FREE_FAILURES;
        uint64_t pause = shift >= 5 ? AUTH_PAUSE_MAX_MS : (uint64_t)AUTH_PAUSE_MS << shift;
        c->auth_retry_ms = now + (pause < AUTH_PAUSE_MAX_MS ? pause : AUTH_PAUSE_MAX_MS);
    }
    return AUTH_WRONG;
}
