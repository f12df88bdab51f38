/*
 * work_queue.h - a FIFO of work items run by a fixed set of threads.
 *
 * `gpuplan serve` runs its long computations (a /v1/recommend search: tens
 * to hundreds of milliseconds) here, off libmicrohttpd's I/O threads: the
 * request's connection is suspended, the item queued, and the worker that
 * runs it resumes the connection. Items start in arrival order, at most
 * n_threads at once, so a queue of 256 searches drains in order and no
 * request waits much longer than the queue ahead of it takes.
 *
 * Not here: HTTP (server.c decides what an item does).
 */
#ifndef GPUPLAN_WORK_QUEUE_H
#define GPUPLAN_WORK_QUEUE_H

#include <stdbool.h>

#include "gpuplan/error.h"

struct work_item {
    struct work_item *next; /* owned by the queue while queued */
    /*
     * Run the item: on a worker thread (is_cancelled false), or at
     * work_queue_free() for an item that never started (is_cancelled true,
     * on the caller's thread). Called exactly once per pushed item.
     */
    void (*run)(struct work_item *item, bool is_cancelled);
};

struct work_queue;

/* Start `n_threads` workers (1..256). GPUPLAN_ERR_NOMEM / _INTERNAL on failure. */
enum gpuplan_status
work_queue_new(struct work_queue **out, unsigned n_threads, struct gpuplan_error *err);

/* Queue `item` (borrowed until its run() returns). Thread-safe. */
void work_queue_push(struct work_queue *q, struct work_item *item);

/* Items queued or running now. */
unsigned work_queue_length(const struct work_queue *q);

/*
 * Stop: running items finish, queued ones are run with is_cancelled, the
 * workers are joined, the queue freed. NULL is a no-op.
 */
void work_queue_free(struct work_queue *q);

#endif
