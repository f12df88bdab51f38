/*
 * conn_guard.h - who may hold a connection to `gpuplan serve`, and for how
 * long: hard deadlines for a request's headers and body, a global cap on
 * connections and a fair share of it per client address.
 *
 * Why: libmicrohttpd 0.9.75's MHD_OPTION_CONNECTION_TIMEOUT is an idle
 * timeout, restarted by every byte, so a client sending a header byte every
 * few seconds (slowloris) holds its connection forever; and with
 * MHD_OPTION_CONNECTION_LIMIT alone, a few addresses holding such connections
 * fill the cap and shut everyone else out.
 *
 * Mechanism (all through the public API of 0.9.75):
 *  - MHD_OPTION_NOTIFY_CONNECTION registers each connection when it is
 *    accepted (its socket, its address) and forgets it when MHD has
 *    finished with it, before MHD closes the socket (MHD_cleanup_connections
 *    in 0.9.75's daemon.c), so a registered socket is always still open.
 *  - The server reports each connection's phase (conn_guard_set_phase):
 *    HEADERS from accept, and again after each response (keep-alive), until
 *    the first access-handler call; BODY from there to the final call (the
 *    body, if any, on any method); BUSY while the request is computed and
 *    answered (no deadline). Each
 *    phase with a deadline keeps its connections in a list in phase-start
 *    order, which is deadline order, so expiry is O(1) per connection.
 *  - A watcher thread wakes every CONN_GUARD_TICK_MS and shuts down
 *    (shutdown(2), SHUT_RDWR) every connection past its phase's deadline:
 *    the I/O thread serving it then reads end-of-file and MHD closes it
 *    through its normal path (no response: the client was too slow).
 *  - MHD_AcceptPolicyCallback admits or refuses each new connection from its
 *    address: an address at --max-per-ip replaces its own connection that
 *    has waited longest for a request (at least CONN_GUARD_REPLACE_MIN_MS),
 *    else it is refused; when the server holds --max-connections, a
 *    connection from an address holding fewer than the heaviest address
 *    (by 2 or more) replaces the heaviest address's connection that has
 *    waited longest; otherwise it is refused. So whoever fills the server,
 *    an address below its fair share (cap / addresses) still gets in.
 *    Connections being computed or answered are never replaced.
 *  - MHD's own limits sit above these (CONN_GUARD_SLACK more), so a
 *    replaced connection can finish closing while its successor starts.
 * IPv6 clients are grouped by /64 prefix (one subscriber); IPv4 by address.
 *
 * Thread safety: one mutex; the callbacks may run on any MHD thread.
 * Not here: the idle timeout (MHD_OPTION_CONNECTION_TIMEOUT, server.c).
 */
#ifndef GPUPLAN_CONN_GUARD_H
#define GPUPLAN_CONN_GUARD_H

#include <stdint.h>
#include <sys/socket.h>

#include "mhd.h"

#include "gpuplan/error.h"
#include "server_log.h"

/* Deadline resolution: the watcher wakes 10 times a second. */
#define CONN_GUARD_TICK_MS 100
/*
 * An address at its per-address cap replaces only a connection that has
 * waited at least this long for its request, so one address flooding
 * connections is refused, not churned (at most cap replacements a second).
 */
#define CONN_GUARD_REPLACE_MIN_MS 1000
/* Replaced connections still closing: MHD's limits are this much above ours (min 64). */
#define CONN_GUARD_SLACK(max_connections) \
    ((max_connections) / 4U < 64U ? 64U : (max_connections) / 4U)

struct conn_guard_limits {
    unsigned max_connections;  /* --max-connections: connections held at once, e.g. 1024 */
    unsigned max_per_ip;       /* --max-per-ip: from one address (IPv6: /64), e.g. 384 */
    unsigned header_timeout_s; /* --header-timeout: accept (or last response) to headers end */
    unsigned body_timeout_s;   /* --body-timeout: headers end to the last byte of the body */
};

enum conn_phase {
    CONN_PHASE_HEADERS = 0, /* waiting for a request's headers: header deadline */
    CONN_PHASE_BODY,        /* receiving a request body: body deadline */
    CONN_PHASE_BUSY,        /* computing or sending the response: no deadline */
};

/* Why the guard closed or refused connections: the `reason` label of the metrics. */
enum conn_guard_reason {
    CONN_GUARD_HEADER_DEADLINE = 0, /* headers not complete within --header-timeout */
    CONN_GUARD_BODY_DEADLINE,       /* body not complete within --body-timeout */
    CONN_GUARD_REPLACED_SAME,       /* replaced by a newer connection of its address */
    CONN_GUARD_REPLACED_FAIR,       /* replaced by a connection of a lighter address */
    CONN_GUARD_REFUSED,             /* refused at accept: over the cap and nothing to replace */
    CONN_GUARD_REASON_COUNT
};

struct conn_guard_stats {
    uint64_t n_open; /* connections held now */
    uint64_t n_by_reason[CONN_GUARD_REASON_COUNT];
};

struct conn_guard;

/* Stable name of a reason ("header_deadline", ...). */
const char *conn_guard_reason_name(enum conn_guard_reason reason);

/*
 * Allocate the guard for `limits` (room for CONN_GUARD_SLACK more
 * connections than the cap) and start its watcher thread. `log` is
 * borrowed and must outlive the guard. GPUPLAN_ERR_NOMEM or
 * GPUPLAN_ERR_INTERNAL (thread creation) on failure.
 */
enum gpuplan_status conn_guard_new(struct conn_guard **out,
                                   const struct conn_guard_limits *limits,
                                   struct server_log *log,
                                   struct gpuplan_error *err);
/* Stop the watcher and free the guard; after MHD_stop_daemon(). NULL is a no-op. */
void conn_guard_free(struct conn_guard *guard);

/* The connection count MHD itself is told (MHD_OPTION_CONNECTION_LIMIT). */
unsigned conn_guard_mhd_limit(const struct conn_guard_limits *limits);

/* MHD_AcceptPolicyCallback; `cls` is the guard. */
enum MHD_Result conn_guard_on_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen);
/* MHD_NotifyConnectionCallback (MHD_OPTION_NOTIFY_CONNECTION); `cls` is the guard. */
void conn_guard_on_connection(void *cls,
                              struct MHD_Connection *connection,
                              void **socket_context,
                              enum MHD_ConnectionNotificationCode code);

/* The connection's request moved to `phase` (from the access handler and NOTIFY_COMPLETED). */
void conn_guard_set_phase(struct conn_guard *guard,
                          struct MHD_Connection *connection,
                          enum conn_phase phase);

void conn_guard_get_stats(const struct conn_guard *guard, struct conn_guard_stats *out);

#endif
