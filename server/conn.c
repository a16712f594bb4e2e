/* SPDX-License-Identifier: MIT */
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
#include <fcntl.h>
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
/* While accept() fails (out of descriptors), the listeners pause this long
 * between tries, rather than the loop spinning on a listener that is always
 * readable. */
#define ACCEPT_BACKOFF_MS 100
/* Connections closed unserved per try while out of descriptors: the listen backlog. */
#define ACCEPT_SHED_MAX 511

/* Lines a client can trigger, each limited where it is logged (log_limited). */
static log_limit client_error_log, client_timeout_log, refused_log, shed_log, accept_log, auth_log;

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
    if (c->fresh)
        TAILQ_REMOVE(&srv->fresh, c, fresh_link);
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
            log_limited(&client_error_log, LOG_DEBUG, "%s client error: %s", proto_label[c->proto], strerror(errno));
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
            /* An incomplete request must arrive whole within request-timeout
             * of its first byte, however slowly its bytes trickle in: the
             * read event's timeout is brought to that deadline, which a
             * byte arriving does not move. */
            uint64_t now = now_ms(), limit = request_limit_ms(srv);
            if (c->partial_since_ms == 0)
                c->partial_since_ms = now;
            if (now - c->partial_since_ms >= limit) {
                srv->svc->request_timeouts++;
                log_limited(&client_timeout_log, LOG_DEBUG, "%s client dropped: request unfinished after %llu ms",
                            proto_label[c->proto], (unsigned long long)(now - c->partial_since_ms));
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
            if (reading(c)) {
                struct timeval tv;
                const struct timeval *idle = idle_tv(srv, &tv);
                if (idle == NULL)
                    event_del(c->rev);
                event_add(c->rev, idle);
            }
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
        log_limited(&shed_log, LOG_WARN,
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
        log_limited(&client_timeout_log, LOG_DEBUG, "%s client dropped: replies unread past idle-timeout",
                    proto_label[c->proto]);
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
            log_limited(&client_timeout_log, LOG_DEBUG, "%s client dropped: TLS handshake unfinished after %llu s",
                        proto_label[c->proto], (unsigned long long)srv->cfg->tls_handshake_timeout);
        } else if (c->partial_since_ms != 0 && !c->lingering) {
            /* While a request is incomplete the timeout is its deadline. */
            srv->svc->request_timeouts++;
            log_limited(&client_timeout_log, LOG_DEBUG, "%s client dropped: request unfinished after %llu ms",
                        proto_label[c->proto], (unsigned long long)(now_ms() - c->partial_since_ms));
        } else if (!c->lingering) {
            log_limited(&client_timeout_log, LOG_DEBUG, "%s client dropped: idle past idle-timeout",
                        proto_label[c->proto]);
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
            log_limited(&client_error_log, LOG_DEBUG, "%s client error: %s", proto_label[c->proto], strerror(errno));
        conn_free(c); /* the client closed: what it did not wait for is dropped */
        return;
    }
    c->in_len += (size_t)n;
    if (process(c) == 0 && c->io != NULL && c->io->pending(c) && !c->input_full && !c->throttled && !c->closing)
        event_active(c->rev, EV_READ, 0); /* TLS holds more than c->in took */
}

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
    bool refuse = svc->connections[PROTO_HTTP] + svc->connections[PROTO_RESP] >= srv->cfg->max_connections;
    if (refuse && !TAILQ_EMPTY(&srv->fresh)) {
        /* Room is made by the connection that has waited longest without
         * sending a whole request: clients that connect and trickle or
         * send nothing cannot keep the others out. */
        conn *old = TAILQ_FIRST(&srv->fresh);
        svc->shed_at_cap++;
        log_limited(&refused_log, LOG_WARN,
                    "%s client dropped at max-connections (%llu) to make room: no request from it arrived whole",
                    proto_label[old->proto], (unsigned long long)srv->cfg->max_connections);
        conn_free(old);
        refuse = false;
    }
    if (refuse) {
        svc->connections_refused[p]++;
        log_limited(&refused_log, LOG_WARN, "%s connection refused: max-connections (%llu) reached", proto_label[p],
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
    peer_key(addr, socklen, c->peer);
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
    struct timeval tv;
    event_add(c->rev, idle_tv(srv, &tv));
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
    srv->svc->accept_errors++;
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
        const char *msg = p == PROTO_HTTP ? http_refusal : resp_refusal;
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
            srv->svc->accept_shed++;
            srv->svc->connections_refused[p]++;
        }
        take_spare(srv);
    }
    set_listening(srv, false);
    struct timeval tv = {0, ACCEPT_BACKOFF_MS * 1000};
    event_add(srv->accept_ev, &tv);
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
    if (srv->shed_ev == NULL) {
        TAILQ_INIT(&srv->fresh);
        take_spare(srv);
        srv->shed_ev = evtimer_new(srv->base, on_shed, srv);
        srv->accept_ev = evtimer_new(srv->base, on_accept_resume, srv);
        if (srv->shed_ev == NULL || srv->accept_ev == NULL) {
            log_msg(LOG_ERROR, "out of memory");
            return -1;
        }
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
    if (srv->accept_ev != NULL) {
        event_free(srv->accept_ev);
        srv->accept_ev = NULL;
    }
    if (srv->spare_open) {
        close(srv->spare_fd);
        srv->spare_open = false;
    }
    free(srv->auth_buckets);
    srv->auth_buckets = NULL;
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

/* One second: the burst a limit of N wrong secrets a second allows is N. */
#define AUTH_WINDOW_NS 1000000000u

/*
 * Whether a limit of per_second wrong secrets, spent up to tat_ns, allows
 * one more now; if not, *retry_ms says when it will.
 */
static bool auth_budget_left(uint64_t tat_ns, uint64_t now, uint64_t per_second, uint64_t *retry_ms) {
    uint64_t interval = AUTH_WINDOW_NS / per_second;
    if (tat_ns + interval <= now + AUTH_WINDOW_NS)
        return true;
    *retry_ms = (tat_ns + interval - now - AUTH_WINDOW_NS + 999999u) / 1000000u;
    return false;
}

static void auth_spend(uint64_t *tat_ns, uint64_t now, uint64_t per_second) {
    *tat_ns = (*tat_ns > now ? *tat_ns : now) + AUTH_WINDOW_NS / per_second;
}

/*
 * The bucket of c's address: the one it has, or with create, a slot for
 * it (a free one, or the one with least spent, near its hash). NULL when
 * it has none (nothing spent), or memory runs out.
 */
static auth_bucket *auth_bucket_of(conn *c, uint64_t now, bool create) {
    server *srv = c->srv;
    if (srv->auth_buckets == NULL) {
        if (!create || (srv->auth_buckets = calloc(AUTH_BUCKETS, sizeof *srv->auth_buckets)) == NULL)
            return NULL;
    }
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < sizeof c->peer; i++)
        h = (h ^ c->peer[i]) * 16777619u;
    auth_bucket *best = NULL;
    for (uint32_t i = 0; i < 8; i++) {
        auth_bucket *b = &srv->auth_buckets[(h + i) % AUTH_BUCKETS];
        if (memcmp(b->addr, c->peer, sizeof b->addr) == 0 && b->tat_ns > now)
            return b;
        if (best == NULL || b->tat_ns < best->tat_ns)
            best = b;
    }
    if (!create)
        return NULL;
    memcpy(best->addr, c->peer, sizeof best->addr);
    best->tat_ns = 0;
    return best;
}

auth_result auth_attempt(conn *c, const char *secret, size_t len, uint64_t *retry_ms, const char **where) {
    const auth *a = c->srv->auth;
    service *svc = c->srv->svc;
    const config *cfg = c->srv->cfg;
    uint64_t now_ns = monotonic_ns(), now = now_ns / 1000000u;
    *retry_ms = 0;
    if (c->auth_retry_ms > now) {
        svc->auth_failures[c->proto]++;
        *retry_ms = c->auth_retry_ms - now;
        *where = "on this connection";
        return AUTH_TOO_SOON;
    }
    /* Limits across connections: one client opening a new connection for
     * every few guesses, or many clients together, are refused unchecked
     * past them, right secret or not, so guessing gains nothing. */
    auth_bucket *b = auth_bucket_of(c, now_ns, false);
    if (b != NULL && !auth_budget_left(b->tat_ns, now_ns, cfg->auth_failures_per_address, retry_ms)) {
        svc->auth_failures[c->proto]++;
        svc->auth_limited_address++;
        *where = "from this address";
        return AUTH_TOO_SOON;
    }
    if (!auth_budget_left(c->srv->auth_total_tat_ns, now_ns, cfg->auth_failures_total, retry_ms)) {
        svc->auth_failures[c->proto]++;
        svc->auth_limited_total++;
        *where = "on this server";
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
    svc->auth_failures[c->proto]++;
    c->auth_failures++;
    if ((b = auth_bucket_of(c, now_ns, true)) != NULL)
        auth_spend(&b->tat_ns, now_ns, cfg->auth_failures_per_address);
    auth_spend(&c->srv->auth_total_tat_ns, now_ns, cfg->auth_failures_total);
    if (c->auth_failures >= AUTH_MAX_FAILURES) {
        log_limited(&auth_log, LOG_WARN, "%s client closed after %d wrong secrets",
                    c->proto == PROTO_HTTP ? "HTTP" : "RESP", AUTH_MAX_FAILURES);
        c->closing = true;
    } else if (c->auth_failures >= AUTH_FREE_FAILURES) {
        unsigned shift = c->auth_failures - AUTH_FREE_FAILURES;
        uint64_t pause = shift >= 5 ? AUTH_PAUSE_MAX_MS : (uint64_t)AUTH_PAUSE_MS << shift;
        c->auth_retry_ms = now + (pause < AUTH_PAUSE_MAX_MS ? pause : AUTH_PAUSE_MAX_MS);
    }
    return AUTH_WRONG;
}
