/*
 * server.c - `gpuplan serve` on libmicrohttpd 0.9.75 (see server.h and
 * docs/http-api.md).
 *
 * Request life cycle (MHD's access-handler protocol, as in its
 * simplepost.c example): the first call for a request allocates a
 * `struct request`, matches the route and answers at once what needs no
 * body (GET routes, 404, 405, 413 from Content-Length); later calls append
 * upload chunks to a buffer capped at 1 MiB (past the cap the rest is
 * discarded and the answer is 413); the final call (upload size 0) runs the
 * POST handler. MHD_OPTION_NOTIFY_COMPLETED records the metrics and frees
 * the request. Responses are malloc'd buffers handed to MHD with
 * MHD_create_response_from_buffer_with_free_callback (0.9.75 has no
 * _static/_copy variants of that API).
 *
 * Shutdown: SIGTERM/SIGINT are blocked in every thread and taken by
 * sigwait() in the main thread; MHD_quiesce_daemon() stops accepting, the
 * in-flight requests are given SERVER_DRAIN_S to finish, then
 * MHD_stop_daemon() closes the rest.
 *
 * Security: only the routes in the table exist, so no file is ever served
 * but the embedded page; a request names models by catalog id only (no
 * paths are read on a client's behalf); bodies, URLs and headers have hard
 * limits; the default bind is loopback.
 */
#include "server.h"

#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/job.h"
#include "gpuplan/plan.h"
#include "gpuplan/render.h"
#include "gpuplan/request.h"

#define JSON_TYPE    "application/json"
#define HTML_TYPE    "text/html; charset=utf-8"
#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"
/* A client streaming past this many discarded bytes is cut off instead of drained. */
#define DISCARD_MAX_BYTES (16ULL * GPUPLAN_REQUEST_MAX_BODY_BYTES)
#define NS_PER_S          1000000000LL
#define US_PER_S          1000000.0

struct server;

/*
 * A POST handler: `body` is the raw request body (`len` bytes, validated as
 * JSON by the handler through gpuplan_job_from_json). On success it writes
 * the JSON response into `out`; on failure it fills `err` (the HTTP status
 * is gpuplan_status_http(err->code)).
 */
typedef enum gpuplan_status (*post_handler_fn)(const struct server *srv,
                                               const char *body,
                                               size_t len,
                                               struct gpuplan_buf *out,
                                               struct gpuplan_error *err);
/* A GET handler writes its whole response into `out`. */
typedef enum gpuplan_status (*get_handler_fn)(const struct server *srv,
                                              struct gpuplan_buf *out,
                                              struct gpuplan_error *err);

struct route {
    const char *path;         /* exact match, no prefix matching */
    const char *content_type; /* of a successful response */
    get_handler_fn get;       /* GET and HEAD; NULL for POST routes */
    post_handler_fn post;     /* POST; NULL for GET routes */
    const char *missing;      /* POST route whose engine is not built yet: 501 with this */
};

static enum gpuplan_status
get_page(const struct server *srv, struct gpuplan_buf *out, struct gpuplan_error *err);
static enum gpuplan_status
get_healthz(const struct server *srv, struct gpuplan_buf *out, struct gpuplan_error *err);
static enum gpuplan_status
get_metrics(const struct server *srv, struct gpuplan_buf *out, struct gpuplan_error *err);
static enum gpuplan_status
get_gpus(const struct server *srv, struct gpuplan_buf *out, struct gpuplan_error *err);
static enum gpuplan_status
get_models(const struct server *srv, struct gpuplan_buf *out, struct gpuplan_error *err);
static enum gpuplan_status post_estimate(const struct server *srv,
                                         const char *body,
                                         size_t len,
                                         struct gpuplan_buf *out,
                                         struct gpuplan_error *err);

static enum gpuplan_status post_tco(const struct server *srv,
                                    const char *body,
                                    size_t len,
                                    struct gpuplan_buf *out,
                                    struct gpuplan_error *err);
static enum gpuplan_status post_recommend(const struct server *srv,
                                          const char *body,
                                          size_t len,
                                          struct gpuplan_buf *out,
                                          struct gpuplan_error *err);

static const struct route routes[] = {
    { "/", HTML_TYPE, get_page, NULL, NULL },
    { "/healthz", JSON_TYPE, get_healthz, NULL, NULL },
    { "/metrics", METRICS_TYPE, get_metrics, NULL, NULL },
    { "/v1/gpus", JSON_TYPE, get_gpus, NULL, NULL },
    { "/v1/models", JSON_TYPE, get_models, NULL, NULL },
    { "/v1/estimate", JSON_TYPE, NULL, post_estimate, NULL },
    { "/v1/recommend", JSON_TYPE, NULL, post_recommend, NULL },
    { "/v1/tco", JSON_TYPE, NULL, post_tco, NULL },
};

#define N_ROUTES    (sizeof routes / sizeof routes[0])
#define ROUTE_OTHER N_ROUTES /* metrics slot for unmatched paths */

/* Latency histogram upper bounds, seconds (Prometheus `le`); +Inf is the last slot. */
static const double latency_bounds_s[] = { 0.0001, 0.0005, 0.001, 0.005, 0.01,
                                           0.05,   0.1,    0.5,   1.0,   5.0 };
#define N_LATENCY_BOUNDS (sizeof latency_bounds_s / sizeof latency_bounds_s[0])

struct server_metrics {
    atomic_uint_fast64_t n_requests[N_ROUTES + 1];        /* completed requests per route */
    atomic_uint_fast64_t n_errors[N_ROUTES + 1];          /* of which answered >= 400 or aborted */
    atomic_uint_fast64_t n_by_class[6];                   /* [0] aborted, [1..5] 1xx..5xx */
    atomic_uint_fast64_t n_latency[N_LATENCY_BOUNDS + 1]; /* per bucket, not cumulative */
    atomic_uint_fast64_t latency_sum_us;
    atomic_uint_fast64_t n_in_flight;
};

struct server {
    struct gpuplan_catalog *catalog; /* shared read-only by every thread */
    struct server_metrics metrics;
    FILE *log;
    struct compute_gate *gate;             /* --threads: POST handlers computing at once, FIFO */
    atomic_uint_fast64_t n_limit_messages; /* MHD "connection limit" messages seen */
};

/*
 * A FIFO gate with n_slots places: ticket k may compute once fewer than
 * n_slots requests are ahead of it (k < n_done + n_slots). Unlike a
 * semaphore, waiters are admitted in arrival order, so under a queue of
 * 256 /v1/recommend requests no request waits much longer than the queue
 * takes to drain. Waiters sleep on one of GATE_CONDS condition variables
 * by ticket, and a leaving request wakes only the bucket of the ticket it
 * admits: one broadcast to all 256 waiters per request cut /v1/estimate
 * from 12,800 to 3,000 requests/s.
 */
#define GATE_CONDS 64
struct compute_gate {
    pthread_mutex_t mutex;
    pthread_cond_t cond[GATE_CONDS];
    uint64_t n_tickets; /* issued */
    uint64_t n_done;    /* finished */
    uint64_t n_slots;
};

static void gate_enter(struct compute_gate *g)
{
    (void)pthread_mutex_lock(&g->mutex);
    const uint64_t ticket = g->n_tickets++;
    while (ticket >= g->n_done + g->n_slots)
        (void)pthread_cond_wait(&g->cond[ticket % GATE_CONDS], &g->mutex);
    (void)pthread_mutex_unlock(&g->mutex);
}

static void gate_leave(struct compute_gate *g)
{
    (void)pthread_mutex_lock(&g->mutex);
    g->n_done++;
    /* The ticket this admits is n_done + n_slots - 1; wake its bucket only. */
    (void)pthread_cond_broadcast(&g->cond[(g->n_done + g->n_slots - 1) % GATE_CONDS]);
    (void)pthread_mutex_unlock(&g->mutex);
}

struct request {
    struct timespec start;   /* CLOCK_MONOTONIC at the first call */
    size_t route;            /* index into routes[], or ROUTE_OTHER */
    struct gpuplan_buf body; /* capped at GPUPLAN_REQUEST_MAX_BODY_BYTES */
    bool is_get;             /* a GET/HEAD route: answered on the final call */
    bool is_too_large;       /* body past the cap: rest discarded, answer 413 */
    uint64_t discarded_bytes;
    unsigned http_status; /* 0 until a response is queued */
};

static size_t find_route(const char *url)
{
    for (size_t i = 0; i < N_ROUTES; i++) {
        if (strcmp(routes[i].path, url) == 0)
            return i;
    }
    return ROUTE_OTHER;
}

/*
 * Hand `buf`'s bytes to MHD (which frees them with free() after sending)
 * and queue the response. `buf` is left released.
 */
static enum MHD_Result respond(struct MHD_Connection *conn,
                               struct request *req,
                               unsigned http_status,
                               const char *content_type,
                               struct gpuplan_buf *buf,
                               const char *allow)
{
    if (!buf->data) {
        buf->data = malloc(1); /* MHD wants a buffer it can free, even when empty */
        if (!buf->data)
            return MHD_NO;
        buf->data[0] = '\0';
    }
    struct MHD_Response *response =
        MHD_create_response_from_buffer_with_free_callback(buf->len, buf->data, free);
    if (!response) {
        gpuplan_buf_release(buf);
        return MHD_NO;
    }
    buf->data = NULL; /* now owned by the response */
    gpuplan_buf_release(buf);
    bool ok = MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type) &&
              MHD_add_response_header(response, "X-Content-Type-Options", "nosniff") &&
              MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (ok && allow)
        ok = MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, allow);
    if (ok && strcmp(content_type, HTML_TYPE) == 0) {
        /* The page is self-contained: inline style and script, fetches to this origin only. */
        ok = MHD_add_response_header(response, "Content-Security-Policy",
                                     "default-src 'none'; style-src 'unsafe-inline'; "
                                     "script-src 'unsafe-inline'; connect-src 'self'; "
                                     "img-src 'self' data:; form-action 'self'");
    }
    enum MHD_Result result = ok ? MHD_queue_response(conn, http_status, response) : MHD_NO;
    MHD_destroy_response(response);
    if (result == MHD_YES)
        req->http_status = http_status;
    return result;
}

/* Answer with the JSON error document for `err`; HTTP status from its code unless given. */
static enum MHD_Result respond_error(struct MHD_Connection *conn,
                                     struct request *req,
                                     unsigned http_status,
                                     const struct gpuplan_error *err,
                                     const char *allow)
{
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    gpuplan_render_error_json(err, &out);
    if (out.failed) {
        gpuplan_buf_release(&out);
        return MHD_NO;
    }
    if (http_status == 0)
        http_status = (unsigned)gpuplan_status_http(err->code);
    return respond(conn, req, http_status, JSON_TYPE, &out, allow);
}

static enum MHD_Result
respond_not_found(struct MHD_Connection *conn, struct request *req, const char *url)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_error_set(&err, GPUPLAN_ERR_NOT_FOUND, "", "no such endpoint '%.200s'", url);
    gpuplan_error_hint(&err, "endpoints: GET / /healthz /metrics /v1/gpus /v1/models, "
                             "POST /v1/estimate /v1/recommend /v1/tco");
    return respond_error(conn, req, 0, &err, NULL);
}

static enum MHD_Result respond_bad_method(struct MHD_Connection *conn,
                                          struct request *req,
                                          const struct route *route,
                                          const char *method)
{
    const bool is_get = route->get != NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_error_set(&err, GPUPLAN_ERR_USAGE, "", "method '%.32s' is not allowed on '%s'", method,
                      route->path);
    gpuplan_error_hint(&err, "use %s", is_get ? "GET" : "POST with a JSON body");
    return respond_error(conn, req, MHD_HTTP_METHOD_NOT_ALLOWED, &err,
                         is_get ? "GET, HEAD" : "POST");
}

static enum MHD_Result
respond_too_large(struct MHD_Connection *conn, struct request *req, unsigned long long len)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (len)
        gpuplan_error_set(&err, GPUPLAN_ERR_TOO_LARGE, "body",
                          "request body is %llu bytes; the limit is %llu", len,
                          (unsigned long long)GPUPLAN_REQUEST_MAX_BODY_BYTES);
    else
        gpuplan_error_set(&err, GPUPLAN_ERR_TOO_LARGE, "body",
                          "request body exceeds the limit of %llu bytes",
                          (unsigned long long)GPUPLAN_REQUEST_MAX_BODY_BYTES);
    gpuplan_error_hint(&err, "a request is a small JSON object of job options");
    return respond_error(conn, req, 0, &err, NULL);
}

/* Run a GET handler and queue its response. */
static enum MHD_Result run_get(const struct server *srv,
                               struct MHD_Connection *conn,
                               struct request *req,
                               const struct route *route)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    if (route->get(srv, &out, &err) != GPUPLAN_OK || gpuplan_buf_status(&out, &err) != GPUPLAN_OK) {
        gpuplan_buf_release(&out);
        return respond_error(conn, req, 0, &err, NULL);
    }
    return respond(conn, req, MHD_HTTP_OK, route->content_type, &out, NULL);
}

/* Run a POST handler over the received body and queue its response. */
static enum MHD_Result run_post(const struct server *srv,
                                struct MHD_Connection *conn,
                                struct request *req,
                                const struct route *route)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (route->missing) {
        gpuplan_error_set(&err, GPUPLAN_ERR_UNSUPPORTED, "", "'%s' is not implemented yet: %s",
                          route->path, route->missing);
        gpuplan_error_hint(&err, "GET /v1/gpus and /v1/models work; see docs/http-api.md");
        return respond_error(conn, req, MHD_HTTP_NOT_IMPLEMENTED, &err, NULL);
    }
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    /* Each connection has its own thread; at most --threads of them compute at once. */
    gate_enter(srv->gate);
    const enum gpuplan_status st =
        route->post(srv, gpuplan_buf_str(&req->body), req->body.len, &out, &err);
    gate_leave(srv->gate);
    if (st != GPUPLAN_OK || gpuplan_buf_status(&out, &err) != GPUPLAN_OK) {
        gpuplan_buf_release(&out);
        return respond_error(conn, req, 0, &err, NULL);
    }
    return respond(conn, req, MHD_HTTP_OK, route->content_type, &out, NULL);
}

/* First call for a request: route it, answer what needs no body. */
static enum MHD_Result begin_request(const struct server *srv,
                                     struct MHD_Connection *conn,
                                     struct request *req,
                                     const char *url,
                                     const char *method)
{
    (void)srv; /* GET routes run on the final call (on_request) */
    if (req->route == ROUTE_OTHER)
        return respond_not_found(conn, req, url);
    const struct route *route = &routes[req->route];
    const bool is_get =
        strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    const bool is_post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
    if (route->get) {
        if (!is_get)
            return respond_bad_method(conn, req, route, method);
        /*
         * Answer on the final call, once MHD has the whole request: a response
         * queued while MHD still expects a body makes it close the connection
         * (no keep-alive, pipelined requests dropped).
         */
        req->is_get = true;
        return MHD_YES;
    }
    if (!is_post)
        return respond_bad_method(conn, req, route, method);
    /* Reject early from Content-Length, before reading any of the body. */
    const char *length =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (length) {
        char *end = NULL;
        errno = 0;
        const unsigned long long n = strtoull(length, &end, 10);
        if (errno == ERANGE || n > GPUPLAN_REQUEST_MAX_BODY_BYTES)
            return respond_too_large(conn, req, errno == ERANGE ? 0 : n);
    }
    return MHD_YES; /* wait for the body */
}

/* A chunk of the body: keep it while under the cap, then discard (answer 413 at the end). */
static enum MHD_Result take_upload(struct request *req, const char *data, size_t size)
{
    if (!req->is_too_large) {
        gpuplan_buf_append(&req->body, data, size);
        if (req->body.failed == GPUPLAN_ERR_TOO_LARGE) {
            req->is_too_large = true;
            gpuplan_buf_release(&req->body);
        } else if (req->body.failed) {
            return MHD_NO; /* out of memory: drop the connection */
        }
        return MHD_YES;
    }
    req->discarded_bytes += size;
    return req->discarded_bytes > DISCARD_MAX_BYTES ? MHD_NO : MHD_YES;
}

static enum MHD_Result on_request(void *cls,
                                  struct MHD_Connection *conn,
                                  const char *url,
                                  const char *method,
                                  const char *version,
                                  const char *upload_data,
                                  size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    struct server *srv = cls;
    struct request *req = *con_cls;
    if (!req) {
        req = calloc(1, sizeof *req);
        if (!req)
            return MHD_NO;
        (void)clock_gettime(CLOCK_MONOTONIC, &req->start);
        gpuplan_buf_init(&req->body, GPUPLAN_REQUEST_MAX_BODY_BYTES);
        req->route = find_route(url);
        *con_cls = req;
        atomic_fetch_add(&srv->metrics.n_in_flight, 1);
        return begin_request(srv, conn, req, url, method);
    }
    if (req->http_status) {
        *upload_data_size = 0; /* already answered: ignore the rest */
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        const size_t size = *upload_data_size;
        *upload_data_size = 0;
        return take_upload(req, upload_data, size);
    }
    if (req->is_get)
        return run_get(srv, conn, req, &routes[req->route]);
    if (req->is_too_large)
        return respond_too_large(conn, req, 0);
    return run_post(srv, conn, req, &routes[req->route]);
}

static void record_metrics(struct server_metrics *m, const struct request *req, bool completed)
{
    struct timespec now;
    (void)clock_gettime(CLOCK_MONOTONIC, &now);
    const long long elapsed_ns =
        (long long)(now.tv_sec - req->start.tv_sec) * NS_PER_S + (now.tv_nsec - req->start.tv_nsec);
    const double elapsed_s = elapsed_ns > 0 ? (double)elapsed_ns / (double)NS_PER_S : 0.0;
    size_t bucket = 0;
    while (bucket < N_LATENCY_BOUNDS && elapsed_s > latency_bounds_s[bucket])
        bucket++;
    atomic_fetch_add(&m->n_latency[bucket], 1);
    atomic_fetch_add(&m->latency_sum_us, (uint_fast64_t)(elapsed_ns > 0 ? elapsed_ns / 1000 : 0));
    atomic_fetch_add(&m->n_requests[req->route], 1);
    const unsigned status = completed ? req->http_status : 0;
    const unsigned status_class = status >= 100 && status < 600 ? status / 100 : 0;
    atomic_fetch_add(&m->n_by_class[status_class], 1);
    if (status_class == 0 || status >= 400)
        atomic_fetch_add(&m->n_errors[req->route], 1);
}

static void on_completed(void *cls,
                         struct MHD_Connection *conn,
                         void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)conn;
    struct server *srv = cls;
    struct request *req = *con_cls;
    if (!req)
        return;
    record_metrics(&srv->metrics, req, toe == MHD_REQUEST_TERMINATED_COMPLETED_OK);
    gpuplan_buf_release(&req->body);
    free(req);
    *con_cls = NULL;
    atomic_fetch_sub(&srv->metrics.n_in_flight, 1);
}

static enum gpuplan_status
get_page(const struct server *srv, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    (void)srv;
    const char *bytes = NULL;
    size_t len = 0;
    if (gpuplan_web_page(&bytes, &len, err) != GPUPLAN_OK)
        return err->code;
    gpuplan_buf_append(out, bytes, len);
    return GPUPLAN_OK;
}

static enum gpuplan_status
get_healthz(const struct server *srv, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    (void)srv;
    (void)err;
    gpuplan_buf_puts(out, "{\"status\":\"ok\",\"version\":\"" GPUPLAN_VERSION "\"}\n");
    return GPUPLAN_OK;
}

static void metrics_counter_by_route(struct gpuplan_buf *out,
                                     const char *name,
                                     const char *help,
                                     const atomic_uint_fast64_t *counts)
{
    gpuplan_buf_printf(out, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
    for (size_t i = 0; i <= N_ROUTES; i++) {
        gpuplan_buf_printf(out, "%s{route=\"%s\"} %llu\n", name,
                           i < N_ROUTES ? routes[i].path : "other",
                           (unsigned long long)atomic_load(&counts[i]));
    }
}

/* Prometheus text exposition format 0.0.4 (prometheus.io/docs/instrumenting/exposition_formats). */
static enum gpuplan_status
get_metrics(const struct server *srv, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    (void)err;
    const struct server_metrics *m = &srv->metrics;
    metrics_counter_by_route(out, "gpuplan_http_requests_total",
                             "HTTP requests completed, by route.", m->n_requests);
    metrics_counter_by_route(out, "gpuplan_http_errors_total",
                             "HTTP requests answered with a status >= 400 or aborted, by route.",
                             m->n_errors);
    static const char *const classes[6] = { "aborted", "1xx", "2xx", "3xx", "4xx", "5xx" };
    gpuplan_buf_puts(out, "# HELP gpuplan_http_responses_total HTTP responses by status class.\n"
                          "# TYPE gpuplan_http_responses_total counter\n");
    for (size_t i = 0; i < 6; i++) {
        gpuplan_buf_printf(out, "gpuplan_http_responses_total{class=\"%s\"} %llu\n", classes[i],
                           (unsigned long long)atomic_load(&m->n_by_class[i]));
    }
    const char *hist = "gpuplan_http_request_duration_seconds";
    gpuplan_buf_printf(out,
                       "# HELP %s Time from the request line to the end of the response.\n"
                       "# TYPE %s histogram\n",
                       hist, hist);
    /* Buckets are kept per slot and summed here, so _count always equals the +Inf bucket. */
    unsigned long long cumulative = 0;
    for (size_t i = 0; i <= N_LATENCY_BOUNDS; i++) {
        cumulative += (unsigned long long)atomic_load(&m->n_latency[i]);
        if (i < N_LATENCY_BOUNDS)
            gpuplan_buf_printf(out, "%s_bucket{le=\"%g\"} %llu\n", hist, latency_bounds_s[i],
                               cumulative);
        else
            gpuplan_buf_printf(out, "%s_bucket{le=\"+Inf\"} %llu\n", hist, cumulative);
    }
    gpuplan_buf_printf(out, "%s_sum %.6f\n%s_count %llu\n", hist,
                       (double)atomic_load(&m->latency_sum_us) / US_PER_S, hist, cumulative);
    gpuplan_buf_printf(out,
                       "# HELP gpuplan_http_in_flight_requests Requests being processed.\n"
                       "# TYPE gpuplan_http_in_flight_requests gauge\n"
                       "gpuplan_http_in_flight_requests %llu\n",
                       (unsigned long long)atomic_load(&m->n_in_flight));
    return GPUPLAN_OK;
}

static enum gpuplan_status
get_gpus(const struct server *srv, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    return gpuplan_render_gpus(srv->catalog, GPUPLAN_FORMAT_JSON, out, err);
}

static enum gpuplan_status
get_models(const struct server *srv, struct gpuplan_buf *out, struct gpuplan_error *err)
{
    return gpuplan_render_models(srv->catalog, GPUPLAN_FORMAT_JSON, out, err);
}

/* The body's "model": a catalog id only, so no path is ever read on a client's behalf. */
static enum gpuplan_status load_catalog_model(const struct server *srv,
                                              const char *model_id,
                                              struct gpuplan_model *model,
                                              struct gpuplan_error *err)
{
    if (!model_id[0]) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "$.model", "missing 'model' in the request body");
        gpuplan_error_hint(err, "name a catalog model, e.g. {\"model\": \"llama-3.1-8b\"}; "
                                "GET /v1/models lists them");
        return GPUPLAN_ERR_USAGE;
    }
    const struct gpuplan_catalog_model *entry = NULL;
    if (gpuplan_catalog_get_model(srv->catalog, model_id, &entry, err) != GPUPLAN_OK) {
        (void)snprintf(err->where, sizeof err->where, "$.model");
        return err->code;
    }
    /* As `gpuplan estimate MODEL` loads a catalog id (src/cli/cmd_estimate.c). */
    const enum gpuplan_status st = gpuplan_model_from_hf_config(
        model, (const uint8_t *)entry->config_json, entry->config_json_len, model_id, err);
    if (st == GPUPLAN_OK && !model->id[0])
        (void)snprintf(model->id, sizeof model->id, "%s", model_id);
    return st;
}

/*
 * POST /v1/estimate: body -> job (gpuplan_job_from_json), model and GPU by
 * catalog id, gpuplan_estimate_memory, then the JSON renderer the CLI's
 * `gpuplan estimate --format json` uses.
 */
static enum gpuplan_status post_estimate(const struct server *srv,
                                         const char *body,
                                         size_t len,
                                         struct gpuplan_buf *out,
                                         struct gpuplan_error *err)
{
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    char model_id[GPUPLAN_REQUEST_MODEL_MAX] = "";
    if (gpuplan_job_from_json(&job, body, len, model_id, sizeof model_id, err) != GPUPLAN_OK)
        return err->code;
    struct gpuplan_memory_report *report = calloc(1, sizeof *report);
    if (!report)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    struct gpuplan_model model;
    gpuplan_model_init(&model);
    const struct gpuplan_gpu *gpu = NULL;
    enum gpuplan_status st = load_catalog_model(srv, model_id, &model, err);
    if (st == GPUPLAN_OK && job.gpu_id[0]) {
        st = gpuplan_catalog_get_gpu(srv->catalog, job.gpu_id, &gpu, err);
        if (st != GPUPLAN_OK)
            (void)snprintf(err->where, sizeof err->where, "$.gpu");
    }
    if (st == GPUPLAN_OK)
        st = gpuplan_estimate_memory(&model, &job, gpu, report, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_render_estimate(&model, &job, gpu, report, GPUPLAN_FORMAT_JSON, out, err);
    gpuplan_model_release(&model);
    free(report);
    return st;
}

/*
 * POST /v1/tco: body -> tco request (gpuplan_tco_request_from_json), the
 * catalog lookups and arithmetic of `gpuplan tco` (gpuplan_tco_request_run),
 * then the renderer its `--format json` uses.
 */
static enum gpuplan_status post_tco(const struct server *srv,
                                    const char *body,
                                    size_t len,
                                    struct gpuplan_buf *out,
                                    struct gpuplan_error *err)
{
    struct gpuplan_tco_request req;
    if (gpuplan_tco_request_from_json(&req, body, len, err) != GPUPLAN_OK)
        return err->code;
    /* struct gpuplan_tco holds two 121-point series: keep it off the MHD thread's stack. */
    struct gpuplan_tco *tco = calloc(1, sizeof *tco);
    if (!tco)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    struct gpuplan_cost_inputs in;
    enum gpuplan_status st = gpuplan_tco_request_run(srv->catalog, &req, &in, tco, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_render_tco(&in, tco, GPUPLAN_FORMAT_JSON, out, err);
    free(tco);
    return st;
}

/*
 * POST /v1/recommend: body -> plan request (gpuplan_plan_request_from_json),
 * the model by catalog id, gpuplan_plan_run, then the renderer `gpuplan
 * recommend --format json` uses.
 */
static enum gpuplan_status post_recommend(const struct server *srv,
                                          const char *body,
                                          size_t len,
                                          struct gpuplan_buf *out,
                                          struct gpuplan_error *err)
{
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    char model_id[GPUPLAN_REQUEST_MODEL_MAX] = "";
    if (gpuplan_plan_request_from_json(&req, body, len, model_id, sizeof model_id, err) !=
        GPUPLAN_OK)
        return err->code;
    /* About 300 KB (plan.h): on the heap, not the MHD thread's stack. */
    struct gpuplan_plan_result *result = calloc(1, sizeof *result);
    if (!result)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    struct gpuplan_model model;
    gpuplan_model_init(&model);
    enum gpuplan_status st = load_catalog_model(srv, model_id, &model, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_plan_run(&model, srv->catalog, &req, result, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_render_plan(result, GPUPLAN_FORMAT_JSON, out, err);
    gpuplan_model_release(&model);
    free(result);
    return st;
}

/*
 * libmicrohttpd's messages. The connection-limit message comes once per
 * refused connection, so a flood of connections would flood the log too:
 * it is printed the first time and then every LIMIT_LOG_EVERY-th time.
 */
#define LIMIT_LOG_EVERY 1000
__attribute__((format(printf, 2, 0))) static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    struct server *srv = cls;
    FILE *log = srv->log;
    if (strstr(fmt, "connection limit") || strstr(fmt, "per-IP connection limit") ||
        strstr(fmt, "limit on the number of")) {
        const uint_fast64_t n = atomic_fetch_add(&srv->n_limit_messages, 1);
        if (n % LIMIT_LOG_EVERY != 0)
            return;
        if (n > 0)
            (void)fprintf(log,
                          "gpuplan: mhd: (%llu connection-limit messages so far; 1 in %d shown)\n",
                          (unsigned long long)n, LIMIT_LOG_EVERY);
    }
    (void)fputs("gpuplan: mhd: ", log);
    (void)vfprintf(log, fmt, ap);
    const size_t n = strlen(fmt);
    if (n == 0 || fmt[n - 1] != '\n')
        (void)fputc('\n', log);
}

/* Split "HOST:PORT" / "[V6]:PORT" and resolve numerically or by name. */
static enum gpuplan_status
resolve_listen(const char *listen, struct addrinfo **out, struct gpuplan_error *err)
{
    char host[256];
    const char *port;
    if (listen[0] == '[') {
        const char *close = strchr(listen, ']');
        if (!close || close[1] != ':' || (size_t)(close - listen - 1) >= sizeof host)
            goto bad;
        memcpy(host, listen + 1, (size_t)(close - listen - 1));
        host[close - listen - 1] = '\0';
        port = close + 2;
    } else {
        const char *colon = strrchr(listen, ':');
        if (!colon || (size_t)(colon - listen) >= sizeof host || strchr(listen, ':') != colon)
            goto bad;
        memcpy(host, listen, (size_t)(colon - listen));
        host[colon - listen] = '\0';
        port = colon + 1;
    }
    char *end = NULL;
    errno = 0;
    const unsigned long port_number = strtoul(port, &end, 10);
    if (!host[0] || !port[0] || *end || errno || port_number > 65535 || port[0] == '-' ||
        port[0] == '+')
        goto bad;
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    const int rc = getaddrinfo(host, port, &hints, out);
    if (rc != 0) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--listen", "cannot resolve '%s': %s", host,
                          gai_strerror(rc));
        gpuplan_error_hint(err, "use an address such as 127.0.0.1:8080 or [::1]:8080");
        return GPUPLAN_ERR_USAGE;
    }
    return GPUPLAN_OK;
bad:
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, "--listen", "bad listen address '%s'", listen);
    gpuplan_error_hint(err, "use HOST:PORT with PORT 0..65535, e.g. 127.0.0.1:8080 or [::1]:8080");
    return GPUPLAN_ERR_USAGE;
}

static bool is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;
        return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
    }
    return false;
}

/*
 * One option per line, each value cast to the type MHD reads with va_arg.
 * MHD sets SO_REUSEADDR itself; MHD_OPTION_LISTENING_ADDRESS_REUSE stays
 * off because on Linux it means SO_REUSEPORT, which would let a second
 * `gpuplan serve` share the port silently instead of failing.
 */
static struct MHD_Daemon *
start_daemon(struct server *srv, const struct server_config *cfg, const struct addrinfo *addr)
{
    /*
     * A thread per connection, not a pool: a pool worker serves its
     * connections one after another, so behind a few CPU-bound
     * /v1/recommend requests a /healthz on the same worker waited seconds
     * (wrk at 256 connections: 6 of 215 probes timed out). Concurrency of
     * the computing handlers is bounded by a FIFO gate instead.
     */
    unsigned flags = MHD_USE_AUTO | MHD_USE_THREAD_PER_CONNECTION |
                     MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_USE_ERROR_LOG;
    if (addr->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    // clang-format off
    return MHD_start_daemon(flags, 0, NULL, NULL, on_request, srv,
                            MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, srv, /* first, or MHD warns */
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVER_CONNECTION_MEMORY_BYTES,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned int)SERVER_MAX_CONNECTIONS,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)SERVER_MAX_CONNECTIONS_PER_IP,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)cfg->timeout_s,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
                            MHD_OPTION_SOCK_ADDR, addr->ai_addr,
                            MHD_OPTION_END);
    // clang-format on
}

static void print_listening(const struct server_config *cfg,
                            struct MHD_Daemon *daemon,
                            const struct addrinfo *addr)
{
    char host[128] = "?";
    (void)getnameinfo(addr->ai_addr, addr->ai_addrlen, host, sizeof host, NULL, 0, NI_NUMERICHOST);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    const unsigned port = info ? info->port : 0;
    const bool is_v6 = addr->ai_family == AF_INET6;
    (void)fprintf(cfg->log, "gpuplan: listening on http://%s%s%s:%u/ (%u threads)\n",
                  is_v6 ? "[" : "", host, is_v6 ? "]" : "", port, cfg->n_threads);
    if (!is_loopback(addr->ai_addr))
        (void)fprintf(cfg->log,
                      "gpuplan: warning: '%s' is not a loopback address; the service has no "
                      "authentication\n",
                      host);
    (void)fflush(cfg->log);
}

/* Wait for SIGTERM/SIGINT; then give in-flight requests SERVER_DRAIN_S, a second signal cuts it
 * short. */
static void wait_and_drain(struct server *srv, struct MHD_Daemon *daemon)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    (void)fprintf(srv->log, "gpuplan: %s received; draining\n",
                  sig == SIGTERM ? "SIGTERM" : "SIGINT");
    (void)fflush(srv->log);
    const MHD_socket listen_fd = MHD_quiesce_daemon(daemon);
    const struct timespec tick = { 0, 10 * 1000 * 1000 };
    for (int i = 0; i < SERVER_DRAIN_S * 100 && atomic_load(&srv->metrics.n_in_flight) > 0; i++) {
        if (sigtimedwait(&set, NULL, &tick) > 0)
            break;
    }
    MHD_stop_daemon(daemon);
    if (listen_fd != MHD_INVALID_SOCKET)
        (void)close(listen_fd);
}

/*
 * Each connection is a descriptor: make sure the soft RLIMIT_NOFILE covers
 * SERVER_MAX_CONNECTIONS plus the listening socket, the ITC pipes of the
 * thread pool and stdio (raised up to the hard limit; never lowered).
 */
static void raise_fd_limit(const struct server_config *cfg)
{
    const rlim_t want = (rlim_t)SERVER_MAX_CONNECTIONS + 64U + 2U * SERVER_MAX_THREADS;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
        return;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < want)
        (void)fprintf(cfg->log,
                      "gpuplan: warning: open-file limit %llu is below the %u connections "
                      "the service accepts\n",
                      (unsigned long long)rl.rlim_cur, (unsigned)SERVER_MAX_CONNECTIONS);
}

int server_block_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGPIPE);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

enum gpuplan_status server_run(const struct server_config *cfg, struct gpuplan_error *err)
{
    struct server *srv = calloc(1, sizeof *srv);
    if (!srv)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    srv->log = cfg->log;
    struct addrinfo *addr = NULL;
    enum gpuplan_status status = resolve_listen(cfg->listen, &addr, err);
    if (status != GPUPLAN_OK)
        goto out;
    status = gpuplan_catalog_load(&srv->catalog, cfg->catalog_dir, err);
    if (status != GPUPLAN_OK)
        goto out;
    srv->gate = calloc(1, sizeof *srv->gate);
    if (!srv->gate) {
        status = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
        goto out;
    }
    (void)pthread_mutex_init(&srv->gate->mutex, NULL);
    for (size_t i = 0; i < GATE_CONDS; i++)
        (void)pthread_cond_init(&srv->gate->cond[i], NULL);
    srv->gate->n_slots = cfg->n_threads;
    raise_fd_limit(cfg);
    struct MHD_Daemon *daemon = start_daemon(srv, cfg, addr);
    if (!daemon) {
        status = gpuplan_error_set(err, GPUPLAN_ERR_IO, "--listen", "cannot listen on '%s'",
                                   cfg->listen);
        gpuplan_error_hint(err, "is the port in use? try another port, or port 0 for any free one");
        goto out;
    }
    print_listening(cfg, daemon, addr);
    wait_and_drain(srv, daemon);
    (void)fprintf(cfg->log, "gpuplan: stopped\n");
out:
    if (addr)
        freeaddrinfo(addr);
    gpuplan_catalog_free(srv->catalog);
    if (srv->gate) {
        for (size_t i = 0; i < GATE_CONDS; i++)
            (void)pthread_cond_destroy(&srv->gate->cond[i]);
        (void)pthread_mutex_destroy(&srv->gate->mutex);
        free(srv->gate);
    }
    free(srv);
    return status;
}
