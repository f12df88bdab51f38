/*
 * server_log.h - the log of `gpuplan serve`: whole lines, each written with
 * one write(2), and a sampled access log.
 *
 * Every line the service prints (startup, libmicrohttpd's messages, the
 * access log, connection-guard summaries) is formatted into one buffer of at
 * most SERVER_LOG_LINE_MAX_BYTES and written with a single write(2), so lines
 * of different threads never interleave: a write of up to PIPE_BUF (4,096)
 * bytes to a pipe is atomic (POSIX), and Linux serialises writes that share a
 * file offset (regular files and terminals). A longer line is cut and ends
 * with "...".
 *
 * The access log (--log-sample N) writes one line for every Nth completed
 * request and for every request answered with a status >= 400 or aborted;
 * N = 0 logs the errors only. Error lines are capped at
 * SERVER_LOG_ERRORS_PER_S per second, so a client sending bad requests in a
 * loop cannot fill the disk; the number left out is logged when the next
 * second begins (and at shutdown).
 *
 * Not here: what a request is (server.c decides what to log and formats it).
 */
#ifndef GPUPLAN_SERVER_LOG_H
#define GPUPLAN_SERVER_LOG_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* A line and its newline; far above any line the service writes (~300 bytes). */
#define SERVER_LOG_LINE_MAX_BYTES 1024
/* Error lines per second, at most; the rest are counted (a flood of 4xx costs one line/s). */
#define SERVER_LOG_ERRORS_PER_S 50

struct server_log {
    int fd;                                   /* where lines go, e.g. 2 (stderr); not owned */
    unsigned sample_every;                    /* --log-sample N: every Nth request; 0 = none */
    atomic_uint_fast64_t n_completed;         /* requests seen by server_log_access_wanted */
    atomic_uint_fast64_t error_window_s;      /* CLOCK_MONOTONIC second of the error budget */
    atomic_uint_fast64_t n_errors_in_window;  /* error lines asked for in that second */
    atomic_uint_fast64_t n_errors_suppressed; /* left out since the last summary */
};

void server_log_init(struct server_log *log, int fd, unsigned sample_every);

/* Format and write one line (a newline is added when missing). */
void server_log_line(struct server_log *log, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void server_log_vline(struct server_log *log, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/*
 * Whether the request just completed gets an access line: every
 * sample_every-th request, and every error (`is_error`: status >= 400 or
 * aborted) within the per-second budget. Thread-safe (atomics only).
 */
bool server_log_access_wanted(struct server_log *log, bool is_error);

/* Log how many error lines the budget left out, if any (at shutdown). */
void server_log_flush_suppressed(struct server_log *log);

#endif
