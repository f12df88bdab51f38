/*
 * server_log.c - whole log lines with one write(2) each, and the access-log
 * sampler (see server_log.h).
 */
#include "server_log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TRUNCATED_MARK "...\n"

void server_log_init(struct server_log *log, int fd, unsigned sample_every)
{
    log->fd = fd;
    log->sample_every = sample_every;
    atomic_init(&log->n_completed, 0);
    atomic_init(&log->error_window_s, 0);
    atomic_init(&log->n_errors_in_window, 0);
    atomic_init(&log->n_errors_suppressed, 0);
}

static void write_whole(int fd, const char *bytes, size_t len)
{
    while (len > 0) {
        const ssize_t n = write(fd, bytes, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* a log that cannot be written must not stop the service */
        bytes += n;
        len -= (size_t)n;
    }
}

void server_log_vline(struct server_log *log, const char *fmt, va_list ap)
{
    char line[SERVER_LOG_LINE_MAX_BYTES];
    const int n = vsnprintf(line, sizeof line, fmt, ap);
    if (n < 0)
        return;
    size_t len = (size_t)n;
    const bool has_newline = len > 0 && len < sizeof line && line[len - 1] == '\n';
    if (!has_newline && len + 1 >= sizeof line) {
        /* Cut (vsnprintf kept sizeof line - 1 bytes): the mark carries the newline. */
        len = sizeof line - sizeof TRUNCATED_MARK;
        memcpy(line + len, TRUNCATED_MARK, sizeof TRUNCATED_MARK - 1);
        len += sizeof TRUNCATED_MARK - 1;
    } else if (!has_newline) {
        line[len++] = '\n';
    }
    write_whole(log->fd, line, len);
}

void server_log_line(struct server_log *log, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    server_log_vline(log, fmt, ap);
    va_end(ap);
}

void server_log_flush_suppressed(struct server_log *log)
{
    const uint_fast64_t n = atomic_exchange(&log->n_errors_suppressed, 0);
    if (n > 0)
        server_log_line(log, "gpuplan: access: %llu error lines left out (at most %d per second)",
                        (unsigned long long)n, SERVER_LOG_ERRORS_PER_S);
}

static uint_fast64_t monotonic_s(void)
{
    struct timespec now;
    (void)clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint_fast64_t)now.tv_sec;
}

bool server_log_access_wanted(struct server_log *log, bool is_error)
{
    const uint_fast64_t n = atomic_fetch_add(&log->n_completed, 1) + 1;
    const bool is_sampled = log->sample_every > 0 && n % log->sample_every == 0;
    if (!is_error)
        return is_sampled;
    /*
     * The error budget: one window per second. Whoever moves the window on
     * resets its count and reports what the last one left out; races only
     * shift a line between two adjacent seconds.
     */
    const uint_fast64_t now_s = monotonic_s();
    uint_fast64_t window_s = atomic_load(&log->error_window_s);
    if (window_s != now_s &&
        atomic_compare_exchange_strong(&log->error_window_s, &window_s, now_s)) {
        atomic_store(&log->n_errors_in_window, 0);
        server_log_flush_suppressed(log);
    }
    if (atomic_fetch_add(&log->n_errors_in_window, 1) < SERVER_LOG_ERRORS_PER_S)
        return true;
    atomic_fetch_add(&log->n_errors_suppressed, 1);
    return false;
}
