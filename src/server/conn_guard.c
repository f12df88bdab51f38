/*
 * conn_guard.c - header and body deadlines, the connection cap and the fair
 * share per address (see conn_guard.h for the mechanism and why).
 *
 * Data: a fixed pool of connection records and of address entries, each
 * sized for every connection MHD may hold (cap + slack), so nothing is
 * allocated per connection. An address entry lists its connections in
 * accept order; the two deadline lists (HEADERS, BODY) hold the waiting
 * connections in phase-start order. Address lookup is a linear scan of the
 * addresses in use: at most cap + slack entries, and only on accept.
 */
#include "conn_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MS_PER_S  1000ULL
#define NS_PER_MS 1000000LL
/* Log the first guard event of each reason, then every Nth (a flood would flood the log). */
#define GUARD_LOG_EVERY 1000
/* IPv6 addresses are grouped by their first 64 bits (a subscriber's /64). */
#define IPV6_PREFIX_BYTES 8

struct addr_key {
    sa_family_t family;
    uint8_t bytes[16]; /* IPv4: 4 bytes; IPv6: the /64 prefix; rest zero */
};

struct addr_entry;

struct guarded_conn {
    struct guarded_conn *prev, *next;           /* in a deadline list, or the free list */
    struct guarded_conn *addr_prev, *addr_next; /* in its address's list, accept order */
    struct addr_entry *addr;
    int fd;
    enum conn_phase phase;
    uint64_t phase_start_ms; /* CLOCK_MONOTONIC */
    bool is_closing;         /* shut down by the guard; MHD has not closed it yet */
};

struct conn_list {
    struct guarded_conn *head, *tail;
};

struct addr_entry {
    struct addr_key key;
    struct guarded_conn *conns_head, *conns_tail;
    unsigned n_live;   /* connections not closing: what the limits count */
    unsigned n_conns;  /* including closing ones, which still point here */
    size_t used_index; /* position in guard->used */
};

struct conn_guard {
    struct conn_guard_limits limits;
    struct server_log *log;
    pthread_mutex_t mutex;
    pthread_cond_t wake; /* CLOCK_MONOTONIC; signalled to stop the watcher */
    pthread_t watcher;
    bool is_watching;
    bool stop;
    struct conn_list waiting[2]; /* CONN_PHASE_HEADERS, CONN_PHASE_BODY */
    unsigned n_live;
    size_t capacity;
    struct guarded_conn *conns; /* capacity records */
    struct guarded_conn *free_conns;
    struct addr_entry *addrs; /* capacity entries */
    struct addr_entry **used; /* the entries in use, n_used of them */
    size_t n_used;
    struct addr_entry **free_addrs; /* a stack, n_free_addrs of them */
    size_t n_free_addrs;
    atomic_uint_fast64_t n_open;
    atomic_uint_fast64_t n_by_reason[CONN_GUARD_REASON_COUNT];
};

static const char *const reason_names[CONN_GUARD_REASON_COUNT] = {
    "header_deadline", "body_deadline", "replaced_same_address", "replaced_fair_share", "refused",
};

const char *conn_guard_reason_name(enum conn_guard_reason reason)
{
    return reason < CONN_GUARD_REASON_COUNT ? reason_names[reason] : "?";
}

unsigned conn_guard_mhd_limit(const struct conn_guard_limits *limits)
{
    return limits->max_connections + CONN_GUARD_SLACK(limits->max_connections);
}

static uint64_t now_ms(void)
{
    struct timespec now;
    (void)clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * MS_PER_S + (uint64_t)(now.tv_nsec / NS_PER_MS);
}

static bool key_from_sockaddr(const struct sockaddr *sa, socklen_t len, struct addr_key *key)
{
    memset(key, 0, sizeof *key);
    if (sa && sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        key->family = AF_INET;
        memcpy(key->bytes, &in->sin_addr, sizeof in->sin_addr);
        return true;
    }
    if (sa && sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
        if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
            key->family = AF_INET; /* ::ffff:a.b.c.d is a.b.c.d */
            memcpy(key->bytes, &in6->sin6_addr.s6_addr[12], 4);
        } else {
            key->family = AF_INET6;
            memcpy(key->bytes, in6->sin6_addr.s6_addr, IPV6_PREFIX_BYTES);
        }
        return true;
    }
    return false; /* other families share one entry (family 0) */
}

/* The length of an AF_INET or AF_INET6 address (MHD keeps the one accept() gave); 0 otherwise. */
static socklen_t sockaddr_len(const struct sockaddr *sa)
{
    if (sa && sa->sa_family == AF_INET)
        return (socklen_t)sizeof(struct sockaddr_in);
    if (sa && sa->sa_family == AF_INET6)
        return (socklen_t)sizeof(struct sockaddr_in6);
    return 0;
}

/* ---- lists ---------------------------------------------------------------------------------- */

static void waiting_append(struct conn_list *list, struct guarded_conn *c)
{
    c->next = NULL;
    c->prev = list->tail;
    if (list->tail)
        list->tail->next = c;
    else
        list->head = c;
    list->tail = c;
}

static void waiting_unlink(struct conn_list *list, struct guarded_conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        list->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        list->tail = c->prev;
    c->prev = c->next = NULL;
}

static void addr_append(struct addr_entry *a, struct guarded_conn *c)
{
    c->addr = a;
    c->addr_next = NULL;
    c->addr_prev = a->conns_tail;
    if (a->conns_tail)
        a->conns_tail->addr_next = c;
    else
        a->conns_head = c;
    a->conns_tail = c;
}

static void addr_unlink(struct addr_entry *a, struct guarded_conn *c)
{
    if (c->addr_prev)
        c->addr_prev->addr_next = c->addr_next;
    else
        a->conns_head = c->addr_next;
    if (c->addr_next)
        c->addr_next->addr_prev = c->addr_prev;
    else
        a->conns_tail = c->addr_prev;
    c->addr_prev = c->addr_next = NULL;
}

static bool has_deadline(enum conn_phase phase)
{
    return phase == CONN_PHASE_HEADERS || phase == CONN_PHASE_BODY;
}

/* ---- addresses ------------------------------------------------------------------------------ */

static struct addr_entry *addr_find(const struct conn_guard *g, const struct addr_key *key)
{
    for (size_t i = 0; i < g->n_used; i++) {
        if (memcmp(&g->used[i]->key, key, sizeof *key) == 0)
            return g->used[i];
    }
    return NULL;
}

static struct addr_entry *addr_find_or_add(struct conn_guard *g, const struct addr_key *key)
{
    struct addr_entry *a = addr_find(g, key);
    if (a || g->n_free_addrs == 0)
        return a;
    a = g->free_addrs[--g->n_free_addrs];
    memset(a, 0, sizeof *a);
    a->key = *key;
    a->used_index = g->n_used;
    g->used[g->n_used++] = a;
    return a;
}

static void addr_release(struct conn_guard *g, struct addr_entry *a)
{
    struct addr_entry *last = g->used[--g->n_used];
    g->used[a->used_index] = last;
    last->used_index = a->used_index;
    g->free_addrs[g->n_free_addrs++] = a;
}

/* The address holding the most live connections, or NULL. */
static struct addr_entry *addr_heaviest(const struct conn_guard *g)
{
    struct addr_entry *best = NULL;
    for (size_t i = 0; i < g->n_used; i++) {
        if (!best || g->used[i]->n_live > best->n_live)
            best = g->used[i];
    }
    return best;
}

/* The connection of `a` that has waited longest for its request (at least min_wait_ms), or NULL. */
static struct guarded_conn *
longest_waiting(const struct addr_entry *a, uint64_t now, uint64_t min_wait_ms)
{
    struct guarded_conn *best = NULL;
    for (struct guarded_conn *c = a->conns_head; c; c = c->addr_next) {
        if (c->is_closing || !has_deadline(c->phase) || now - c->phase_start_ms < min_wait_ms)
            continue;
        if (!best || c->phase_start_ms < best->phase_start_ms)
            best = c;
    }
    return best;
}

/* ---- closing -------------------------------------------------------------------------------- */

static void count_event(struct conn_guard *g, enum conn_guard_reason reason)
{
    const uint_fast64_t n = atomic_fetch_add(&g->n_by_reason[reason], 1) + 1;
    if (n == 1 || n % GUARD_LOG_EVERY == 0)
        server_log_line(g->log, "gpuplan: guard: %s: %llu connection%s so far%s",
                        conn_guard_reason_name(reason), (unsigned long long)n, n == 1 ? "" : "s",
                        n == 1 ? " (logged again every 1000th)" : "");
}

/*
 * Shut the connection's socket down: its thread reads end-of-file and MHD
 * closes it (NOTIFY_CONNECTION CLOSED frees the record later). The socket is
 * still open: MHD closes it only after that notification, which needs the
 * mutex held here.
 */
static void close_conn(struct conn_guard *g, struct guarded_conn *c, enum conn_guard_reason reason)
{
    (void)shutdown(c->fd, SHUT_RDWR);
    if (has_deadline(c->phase))
        waiting_unlink(&g->waiting[c->phase], c);
    c->is_closing = true;
    c->addr->n_live--;
    g->n_live--;
    atomic_store(&g->n_open, g->n_live);
    count_event(g, reason);
}

static void expire(struct conn_guard *g, enum conn_phase phase, uint64_t timeout_ms, uint64_t now)
{
    const enum conn_guard_reason reason =
        phase == CONN_PHASE_HEADERS ? CONN_GUARD_HEADER_DEADLINE : CONN_GUARD_BODY_DEADLINE;
    struct conn_list *list = &g->waiting[phase];
    while (list->head && now - list->head->phase_start_ms >= timeout_ms)
        close_conn(g, list->head, reason);
}

static void *watch(void *arg)
{
    struct conn_guard *g = arg;
    (void)pthread_mutex_lock(&g->mutex);
    while (!g->stop) {
        const uint64_t now = now_ms();
        expire(g, CONN_PHASE_HEADERS, g->limits.header_timeout_s * MS_PER_S, now);
        expire(g, CONN_PHASE_BODY, g->limits.body_timeout_s * MS_PER_S, now);
        struct timespec until;
        (void)clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += CONN_GUARD_TICK_MS * NS_PER_MS;
        if (until.tv_nsec >= 1000 * NS_PER_MS) {
            until.tv_sec++;
            until.tv_nsec -= 1000 * NS_PER_MS;
        }
        (void)pthread_cond_timedwait(&g->wake, &g->mutex, &until);
    }
    (void)pthread_mutex_unlock(&g->mutex);
    return NULL;
}

/* ---- MHD callbacks -------------------------------------------------------------------------- */

enum MHD_Result conn_guard_on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
    struct conn_guard *g = cls;
    struct addr_key key;
    (void)key_from_sockaddr(addr, addrlen, &key);
    (void)pthread_mutex_lock(&g->mutex);
    const uint64_t now = now_ms();
    struct addr_entry *own = addr_find(g, &key);
    const unsigned n_own = own ? own->n_live : 0;
    bool is_admitted = true;
    if (n_own >= g->limits.max_per_ip) {
        struct guarded_conn *victim =
            own ? longest_waiting(own, now, CONN_GUARD_REPLACE_MIN_MS) : NULL;
        if (victim)
            close_conn(g, victim, CONN_GUARD_REPLACED_SAME);
        else
            is_admitted = false;
    } else if (g->n_live >= g->limits.max_connections) {
        struct addr_entry *heavy = addr_heaviest(g);
        struct guarded_conn *victim =
            heavy && heavy->n_live > n_own + 1 ? longest_waiting(heavy, now, 0) : NULL;
        if (victim)
            close_conn(g, victim, CONN_GUARD_REPLACED_FAIR);
        else
            is_admitted = false;
    }
    if (!is_admitted)
        count_event(g, CONN_GUARD_REFUSED);
    (void)pthread_mutex_unlock(&g->mutex);
    return is_admitted ? MHD_YES : MHD_NO;
}

static void
on_started(struct conn_guard *g, struct MHD_Connection *connection, void **socket_context)
{
    const union MHD_ConnectionInfo *fd_info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *addr_info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!fd_info)
        return;
    const struct sockaddr *sa = addr_info ? addr_info->client_addr : NULL;
    struct addr_key key;
    (void)key_from_sockaddr(sa, sockaddr_len(sa), &key);
    (void)pthread_mutex_lock(&g->mutex);
    struct addr_entry *a = g->free_conns ? addr_find_or_add(g, &key) : NULL;
    if (!a) {
        /* Cannot happen (MHD holds at most `capacity`); unguarded is worse than closed. */
        (void)pthread_mutex_unlock(&g->mutex);
        (void)shutdown(fd_info->connect_fd, SHUT_RDWR);
        return;
    }
    struct guarded_conn *c = g->free_conns;
    g->free_conns = c->next;
    memset(c, 0, sizeof *c);
    c->fd = fd_info->connect_fd;
    c->phase = CONN_PHASE_HEADERS;
    c->phase_start_ms = now_ms();
    waiting_append(&g->waiting[CONN_PHASE_HEADERS], c);
    addr_append(a, c);
    a->n_live++;
    a->n_conns++;
    g->n_live++;
    atomic_store(&g->n_open, g->n_live);
    *socket_context = c;
    (void)pthread_mutex_unlock(&g->mutex);
}

static void on_closed(struct conn_guard *g, void **socket_context)
{
    struct guarded_conn *c = *socket_context;
    if (!c)
        return;
    (void)pthread_mutex_lock(&g->mutex);
    struct addr_entry *a = c->addr;
    if (!c->is_closing) {
        if (has_deadline(c->phase))
            waiting_unlink(&g->waiting[c->phase], c);
        a->n_live--;
        g->n_live--;
        atomic_store(&g->n_open, g->n_live);
    }
    addr_unlink(a, c);
    if (--a->n_conns == 0)
        addr_release(g, a);
    c->next = g->free_conns;
    g->free_conns = c;
    *socket_context = NULL;
    (void)pthread_mutex_unlock(&g->mutex);
}

void conn_guard_on_connection(void *cls,
                              struct MHD_Connection *connection,
                              void **socket_context,
                              enum MHD_ConnectionNotificationCode code)
{
    struct conn_guard *g = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        on_started(g, connection, socket_context);
    else if (code == MHD_CONNECTION_NOTIFY_CLOSED)
        on_closed(g, socket_context);
}

void conn_guard_set_phase(struct conn_guard *g,
                          struct MHD_Connection *connection,
                          enum conn_phase phase)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct guarded_conn *c = info ? info->socket_context : NULL;
    if (!c)
        return;
    (void)pthread_mutex_lock(&g->mutex);
    if (!c->is_closing) {
        if (has_deadline(c->phase))
            waiting_unlink(&g->waiting[c->phase], c);
        c->phase = phase;
        c->phase_start_ms = now_ms();
        if (has_deadline(phase))
            waiting_append(&g->waiting[phase], c);
    }
    (void)pthread_mutex_unlock(&g->mutex);
}

void conn_guard_get_stats(const struct conn_guard *g, struct conn_guard_stats *out)
{
    out->n_open = atomic_load(&g->n_open);
    for (size_t i = 0; i < CONN_GUARD_REASON_COUNT; i++)
        out->n_by_reason[i] = atomic_load(&g->n_by_reason[i]);
}

/* ---- life cycle ----------------------------------------------------------------------------- */

enum gpuplan_status conn_guard_new(struct conn_guard **out,
                                   const struct conn_guard_limits *limits,
                                   struct server_log *log,
                                   struct gpuplan_error *err)
{
    *out = NULL;
    struct conn_guard *g = calloc(1, sizeof *g);
    if (!g)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    pthread_condattr_t attr;
    (void)pthread_condattr_init(&attr);
    (void)pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    (void)pthread_cond_init(&g->wake, &attr);
    (void)pthread_condattr_destroy(&attr);
    (void)pthread_mutex_init(&g->mutex, NULL);
    const size_t capacity = conn_guard_mhd_limit(limits);
    g->conns = calloc(capacity, sizeof *g->conns);
    g->addrs = calloc(capacity, sizeof *g->addrs);
    g->used = calloc(capacity, sizeof *g->used);
    g->free_addrs = calloc(capacity, sizeof *g->free_addrs);
    if (!g->conns || !g->addrs || !g->used || !g->free_addrs) {
        conn_guard_free(g);
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    }
    g->limits = *limits;
    g->log = log;
    g->capacity = capacity;
    for (size_t i = 0; i < capacity; i++) {
        g->conns[i].next = i + 1 < capacity ? &g->conns[i + 1] : NULL;
        g->free_addrs[i] = &g->addrs[capacity - 1 - i];
    }
    g->free_conns = &g->conns[0];
    g->n_free_addrs = capacity;
    for (size_t i = 0; i < CONN_GUARD_REASON_COUNT; i++)
        atomic_init(&g->n_by_reason[i], 0);
    atomic_init(&g->n_open, 0);
    if (pthread_create(&g->watcher, NULL, watch, g) != 0) {
        conn_guard_free(g);
        return gpuplan_error_set(err, GPUPLAN_ERR_INTERNAL, "", "cannot start the deadline thread");
    }
    g->is_watching = true;
    *out = g;
    return GPUPLAN_OK;
}

void conn_guard_free(struct conn_guard *g)
{
    if (!g)
        return;
    if (g->is_watching) {
        (void)pthread_mutex_lock(&g->mutex);
        g->stop = true;
        (void)pthread_cond_signal(&g->wake);
        (void)pthread_mutex_unlock(&g->mutex);
        (void)pthread_join(g->watcher, NULL);
    }
    (void)pthread_cond_destroy(&g->wake);
    (void)pthread_mutex_destroy(&g->mutex);
    free(g->conns);
    free(g->addrs);
    free(g->used);
    free(g->free_addrs);
    free(g);
}
