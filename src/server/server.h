/*
 * server.h - `gpuplan serve`: the HTTP/JSON service on libmicrohttpd.
 *
 * libmicrohttpd answers the endpoints of docs/http-api.md on a pool of I/O
 * threads (epoll, one per CPU), which also compute the short requests
 * (estimate, tco); /v1/recommend searches run on n_threads search threads
 * in arrival order while their connections are suspended, so a slow search
 * never delays /healthz. The catalog,
 * the tensor inventory of every catalog model and the bodies of the
 * immutable GET routes are built once at start and shared read-only; the
 * mutable state is atomic counters (metrics, log sampling) and the
 * connection guard (deadlines, connection caps: conn_guard.h). POST handlers
 * are a table of { path, handler } entries, each taking the request body and
 * writing the JSON response into a caller's struct gpuplan_buf with the same
 * library renderers the CLI uses, so responses equal `--format json` output.
 *
 * Not here: option parsing of the command (src/cli/cmd_serve.c), anything
 * that computes a number (the library).
 */
#ifndef GPUPLAN_SERVER_H
#define GPUPLAN_SERVER_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "gpuplan/gpuplan.h"

#define SERVER_DEFAULT_LISTEN    "127.0.0.1:8080"
#define SERVER_DEFAULT_THREADS   4
#define SERVER_MAX_THREADS       256
#define SERVER_DEFAULT_TIMEOUT_S 10
#define SERVER_MAX_TIMEOUT_S     3600
/* Request line + headers must fit in one connection's memory pool (MHD answers 414/431). */
#define SERVER_CONNECTION_MEMORY_BYTES (32U * 1024U)
/*
 * Deadlines (src/server/conn_guard.h), independent of how often bytes
 * trickle in: the request line and headers within --header-timeout of the
 * accept (or of the previous response on a keep-alive connection), the body
 * within --body-timeout of the end of the headers. 10 s for headers is what
 * the idle timeout already allowed a silent client; 30 s for a body of at
 * most 1 MiB asks for 35 KB/s, far below any client on a working network.
 */
#define SERVER_DEFAULT_HEADER_TIMEOUT_S 10
#define SERVER_DEFAULT_BODY_TIMEOUT_S   30
/*
 * Connections held at once, and from one address (IPv6: /64). Each is a
 * descriptor and a 32 KiB memory pool (SERVER_CONNECTION_MEMORY_BYTES), so
 * 1,024 cost at most 32 MiB. The per-address cap leaves room for 256
 * keep-alive connections of one client (a wrk run, a proxy) plus its
 * probes; when the server is full, an address holding fewer connections
 * than the heaviest one still gets in (fair share).
 */
#define SERVER_DEFAULT_MAX_CONNECTIONS 1024
#define SERVER_MIN_MAX_CONNECTIONS     16
#define SERVER_MAX_MAX_CONNECTIONS     16384
#define SERVER_DEFAULT_MAX_PER_IP      384
/* Access log: every 100th request (and every error); 1 logs all, 0 errors only. */
#define SERVER_DEFAULT_LOG_SAMPLE 100
#define SERVER_MAX_LOG_SAMPLE     1000000
/* I/O threads: one per CPU online, at most this many. */
#define SERVER_MAX_IO_THREADS 64
/* Seconds SIGTERM waits for in-flight requests before closing connections. */
#define SERVER_DRAIN_S 10
/* Then cancelled searches get this long for their 503 to go out. */
#define SERVER_STOP_GRACE_MS 1000
/* Longest --cors ORIGIN: scheme, host and port ("https://" + a 253-byte name + ":65535"). */
#define SERVER_CORS_ORIGIN_MAX 272

struct server_config {
    const char *listen;        /* "HOST:PORT", "[V6]:PORT"; port 0 picks a free one */
    unsigned n_threads;        /* --threads: searches computed at once, 1..SERVER_MAX_THREADS */
    unsigned timeout_s;        /* idle connection timeout (no byte for this long) */
    unsigned header_timeout_s; /* --header-timeout: deadline for a request's headers */
    unsigned body_timeout_s;   /* --body-timeout: deadline for a request's body */
    unsigned max_connections;  /* --max-connections */
    unsigned max_per_ip;       /* --max-per-ip, <= max_connections */
    unsigned log_sample;     /* --log-sample N: access line for every Nth request; 0 errors only */
    const char *cors_origin; /* --cors ORIGIN, or NULL: no CORS headers at all */
    const char *catalog_dir; /* --catalog DIR, or NULL for the embedded catalog */
    const char *locale_dir;  /* where LANG/LC_MESSAGES/gpuplan.mo lie (the CLI's); NULL: English */
    FILE *log;               /* startup line, errors, access log; not NULL */
};

/* Fill `cfg` with the defaults above (listen address, stderr as the log). */
void server_config_init(struct server_config *cfg);

/*
 * Whether `origin` is acceptable for --cors: "*", or a serialised origin
 * "http://HOST[:PORT]" / "https://HOST[:PORT]" (no path, no trailing slash,
 * printable ASCII without spaces, quotes or commas, at most
 * SERVER_CORS_ORIGIN_MAX bytes), as a browser sends it in `Origin`.
 */
bool server_cors_origin_is_valid(const char *origin);

/*
 * Load the catalog, start the daemon, print "gpuplan: listening on
 * http://HOST:PORT/" to cfg->log, then block until SIGTERM or SIGINT;
 * quiesce (stop accepting), wait up to SERVER_DRAIN_S for in-flight
 * requests, stop the daemon and free everything. The caller must have
 * blocked SIGTERM and SIGINT in every thread (server_block_signals()) before
 * any thread is created. Returns GPUPLAN_OK after a clean shutdown.
 */
enum gpuplan_status server_run(const struct server_config *cfg, struct gpuplan_error *err);

/* Block SIGTERM, SIGINT and SIGPIPE in the calling thread; threads created later inherit it. */
int server_block_signals(void);

#endif
