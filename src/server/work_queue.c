/*
 * work_queue.c - a FIFO of work items and its worker threads (see
 * work_queue.h). One mutex, one condition variable; a worker takes the
 * head item, runs it without the lock, and comes back.
 */
#include "work_queue.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

struct work_queue {
    pthread_mutex_t mutex;
    pthread_cond_t ready; /* an item was queued, or the queue stops */
    struct work_item *head, *tail;
    bool is_stopping;
    pthread_t *threads;
    unsigned n_threads;    /* started */
    atomic_uint n_pending; /* queued or running */
};

static void *work(void *arg)
{
    struct work_queue *q = arg;
    (void)pthread_mutex_lock(&q->mutex);
    for (;;) {
        while (!q->head && !q->is_stopping)
            (void)pthread_cond_wait(&q->ready, &q->mutex);
        if (q->is_stopping)
            break; /* what is still queued is cancelled by work_queue_free */
        struct work_item *item = q->head;
        q->head = item->next;
        if (!q->head)
            q->tail = NULL;
        (void)pthread_mutex_unlock(&q->mutex);
        item->run(item, false);
        atomic_fetch_sub(&q->n_pending, 1);
        (void)pthread_mutex_lock(&q->mutex);
    }
    (void)pthread_mutex_unlock(&q->mutex);
    return NULL;
}

enum gpuplan_status
work_queue_new(struct work_queue **out, unsigned n_threads, struct gpuplan_error *err)
{
    *out = NULL;
    struct work_queue *q = calloc(1, sizeof *q);
    pthread_t *threads = q ? calloc(n_threads ? n_threads : 1, sizeof *threads) : NULL;
    if (!q || !threads) {
        free(q);
        free(threads);
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    }
    (void)pthread_mutex_init(&q->mutex, NULL);
    (void)pthread_cond_init(&q->ready, NULL);
    atomic_init(&q->n_pending, 0);
    q->threads = threads;
    for (unsigned i = 0; i < n_threads; i++) {
        if (pthread_create(&q->threads[i], NULL, work, q) != 0) {
            work_queue_free(q);
            return gpuplan_error_set(err, GPUPLAN_ERR_INTERNAL, "",
                                     "cannot start worker thread %u of %u", i + 1, n_threads);
        }
        q->n_threads++;
    }
    *out = q;
    return GPUPLAN_OK;
}

void work_queue_push(struct work_queue *q, struct work_item *item)
{
    item->next = NULL;
    atomic_fetch_add(&q->n_pending, 1);
    (void)pthread_mutex_lock(&q->mutex);
    if (q->tail)
        q->tail->next = item;
    else
        q->head = item;
    q->tail = item;
    (void)pthread_cond_signal(&q->ready);
    (void)pthread_mutex_unlock(&q->mutex);
}

unsigned work_queue_length(const struct work_queue *q)
{
    return atomic_load(&q->n_pending);
}

void work_queue_free(struct work_queue *q)
{
    if (!q)
        return;
    (void)pthread_mutex_lock(&q->mutex);
    q->is_stopping = true;
    (void)pthread_cond_broadcast(&q->ready);
    (void)pthread_mutex_unlock(&q->mutex);
    for (unsigned i = 0; i < q->n_threads; i++)
        (void)pthread_join(q->threads[i], NULL);
    /* No worker is left: what is queued never started. */
    while (q->head) {
        struct work_item *item = q->head;
        q->head = item->next;
        item->run(item, true);
        atomic_fetch_sub(&q->n_pending, 1);
    }
    (void)pthread_cond_destroy(&q->ready);
    (void)pthread_mutex_destroy(&q->mutex);
    free(q->threads);
    free(q);
}
