/*
 * server.h - `gpuplan serve`: the HTTP/JSON service on libmicrohttpd.
 *
 * libmicrohttpd with a thread per connection answers the endpoints of
 * docs/http-api.md; at most n_threads POST handlers compute at once (a
 * FIFO gate), so a slow /v1/recommend never delays /healthz.
 * The catalog is loaded once and shared read-only; the only mutable state is
 * the atomic metrics counters held in the server object. POST handlers are a
 * table of { path, handler } entries, each taking the request body and
 * writing the JSON response into a caller's struct gpuplan_buf with the same
 * library renderers the CLI uses, so responses equal `--format json` output.
 *
 * Not here: option parsing of the command (src/cli/cmd_serve.c), anything
 * that computes a number (the library).
 */
#ifndef GPUPLAN_SERVER_H
#define GPUPLAN_SERVER_H

#include <signal.h>
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
 * Connection limits (MHD_OPTION_CONNECTION_LIMIT, _PER_IP_CONNECTION_LIMIT):
 * one address holding idle connections (a slowloris, a leaky client pool)
 * gets at most the per-IP share, so /healthz from anywhere else still
 * answers. Measured in tests/suites/http_faults.sh (10,000 idle connections).
 */
#define SERVER_MAX_CONNECTIONS        1024
#define SERVER_MAX_CONNECTIONS_PER_IP 384
/* Seconds SIGTERM waits for in-flight requests before closing connections. */
#define SERVER_DRAIN_S 10

struct server_config {
    const char *listen;      /* "HOST:PORT", "[V6]:PORT"; port 0 picks a free one */
    unsigned n_threads;      /* POST handlers computing at once, 1..SERVER_MAX_THREADS */
    unsigned timeout_s;      /* idle connection timeout (slow clients) */
    const char *catalog_dir; /* --catalog DIR, or NULL for the embedded catalog */
    FILE *log;               /* startup line and errors; not NULL */
};

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
