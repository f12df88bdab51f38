/*
 * server.c - `gpuplan serve` on libmicrohttpd 0.9.75 (see server.h and
 * docs/http-api.md).
 *
 * Request life cycle (MHD's access-handler protocol, as in its
 * simplepost.c example): MHD_OPTION_URI_LOG_CALLBACK allocates a
 * `struct request` when the request line has arrived and checks the raw
 * request target (no NUL, encoded or not; no control bytes). The first
 * access-handler call (headers complete) applies the HTTP rules (Host,
 * message framing), matches the route and answers at once what needs no
 * body (404, 405, 415, 413 from Content-Length, a CORS preflight); later
 * calls append upload chunks to a buffer capped at 1 MiB (past the cap the
 * rest is discarded and the answer is 413); the final call (upload size 0)
 * answers a GET from its cached response or runs the POST handler.
 * MHD_OPTION_NOTIFY_COMPLETED records the metrics, writes the sampled access
 * line and frees the request. Each phase is reported to the connection
 * guard (conn_guard.h), which enforces the header and body deadlines and
 * the connection caps.
 *
 * Responses: the bodies of GET /, /healthz, /v1/gpus and /v1/models never
 * change after start, so each is rendered once into an MHD_Response that
 * every request queues again (MHD reference-counts responses; queueing one
 * from several threads is safe). Other responses are malloc'd buffers
 * handed to MHD with MHD_create_response_from_buffer_with_free_callback
 * (0.9.75 has no _static/_copy variants of that API).
 *
 * Shutdown: SIGTERM/SIGINT are blocked in every thread and taken by
 * sigwait() in the main thread; MHD_quiesce_daemon() stops accepting, the
 * in-flight requests are given SERVER_DRAIN_S to finish, then
 * MHD_stop_daemon() closes the rest.
 *
 * Security: only the routes in the table exist, so no file is ever served
 * but the embedded page; a request names models by catalog id only (no
 * paths are read on a client's behalf); bodies, URLs and headers have hard
 * limits; POST bodies must be `application/json`, which a cross-origin page
 * cannot send without a CORS preflight, and no CORS header is ever sent
 * unless --cors names an origin; the default bind is loopback.
 */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "conn_guard.h"
#include "gpuplan/config.h"
#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/job.h"
#include "gpuplan/messages.h"
#include "gpuplan/plan.h"
#include "gpuplan/render.h"
#include "gpuplan/request.h"
#include "mhd.h"
#include "server_lang.h"
#include "server_log.h"
#include "work_queue.h"

#define JSON_TYPE     "application/json"
#define HTML_TYPE     "text/html; charset=utf-8"
#define METRICS_TYPE  "text/plain; version=0.0.4; charset=utf-8"
#define MARKDOWN_TYPE "text/markdown; charset=utf-8" /* RFC 7763 */
/* A client streaming past this many discarded bytes is cut off instead of drained. */
#define DISCARD_MAX_BYTES (16ULL * GPUPLAN_REQUEST_MAX_BODY_BYTES)
#define NS_PER_S          1000000000LL
#define US_PER_S          1000000.0
#define MS_PER_NS         1e-6
/* CORS preflight answers may be cached by the browser for 10 minutes. */
#define CORS_MAX_AGE_S "600"
/* Access log: the request target as logged (escaped, cut), and the method. */
#define ACCESS_TARGET_MAX  160
#define ACCESS_METHOD_MAX  16
#define ACCESS_VERSION_MAX 12

struct server;
struct request;

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
                                               const char **content_type,
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
    bool is_immutable;        /* GET body fixed at start: rendered once, cached */
    bool is_search;           /* POST computed on a search thread (tens of ms and more) */
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
                                         const char **content_type,
                                         struct gpuplan_error *err);
static enum gpuplan_status post_tco(const struct server *srv,
                                    const char *body,
                                    size_t len,
                                    struct gpuplan_buf *out,
                                    const char **content_type,
                                    struct gpuplan_error *err);
static enum gpuplan_status post_recommend(const struct server *srv,
                                          const char *body,
                                          size_t len,
                                          struct gpuplan_buf *out,
                                          const char **content_type,
                                          struct gpuplan_error *err);

static enum gpuplan_status post_propose(const struct server *srv,
                                        const char *body,
                                        size_t len,
                                        struct gpuplan_buf *out,
                                        const char **content_type,
                                        struct gpuplan_error *err);

static const struct route routes[] = {
    { "/", HTML_TYPE, get_page, NULL, true, false },
    { "/healthz", JSON_TYPE, get_healthz, NULL, true, false },
    { "/metrics", METRICS_TYPE, get_metrics, NULL, false, false },
    { "/v1/gpus", JSON_TYPE, get_gpus, NULL, true, false },
    { "/v1/models", JSON_TYPE, get_models, NULL, true, false },
    /* Closed-form, well under a millisecond: computed on the I/O thread that read them. */
    { "/v1/estimate", JSON_TYPE, NULL, post_estimate, false, false },
    { "/v1/tco", JSON_TYPE, NULL, post_tco, false, false },
    /* A search of up to millions of candidates: on a search thread. */
    { "/v1/recommend", JSON_TYPE, NULL, post_recommend, false, true },
    /* The same search, then the document (HTML or Markdown: the handler sets the type). */
    { "/v1/propose", HTML_TYPE, NULL, post_propose, false, true },
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

/*
 * The tensor inventory of one catalog model, built at start: POST
 * /v1/estimate and /v1/recommend read it instead of parsing the model's
 * config.json for every request. `is_ready` is false when building failed;
 * such a model is built per request, which reports the error.
 */
struct cached_model {
    const struct gpuplan_catalog_model *entry; /* borrowed from the catalog */
    struct gpuplan_model model;
    bool is_ready;
};

/*
 * A /v1/recommend search, run on a search thread (work_queue.h) while its
 * connection is suspended, so the I/O threads keep serving everyone else.
 * The worker fills `out` or `err`, sets is_done and resumes the connection;
 * MHD then calls the access handler again, which answers from here.
 */
struct search_job {
    struct work_item item; /* first: the queue hands back this address */
    const struct server *srv;
    struct MHD_Connection *conn;
    const struct route *route;
    const char *body; /* borrowed from the request */
    size_t len;
    const struct gpuplan_messages *msgs; /* the answer's language (NULL: English) */
    struct gpuplan_buf out;
    const char *content_type; /* the handler's, or NULL: the route's */
    struct gpuplan_error err;
    enum gpuplan_status status;
    bool is_cancelled; /* the service stopped before the search ran */
    atomic_bool is_done;
};

struct mhd_log_kinds;

struct server {
    struct gpuplan_catalog *catalog; /* shared read-only by every thread */
    struct cached_model *models;     /* one per catalog model, read-only after start */
    size_t n_models;
    struct MHD_Response *cached[N_ROUTES]; /* immutable GET routes; NULL for the others */
    size_t cached_bytes[N_ROUTES];         /* their body sizes */
    struct server_metrics metrics;
    struct server_log log;
    struct conn_guard *guard;
    struct work_queue *searches;   /* --threads: /v1/recommend searches computed at once, FIFO */
    const char *cors_origin;       /* --cors, or NULL */
    struct mhd_log_kinds *mhd_log; /* how often each MHD message came */
    struct server_langs langs;     /* the message catalogs of the languages other than English */
};

struct request {
    struct timespec start;   /* CLOCK_MONOTONIC when the request line arrived */
    size_t route;            /* index into routes[], or ROUTE_OTHER */
    struct gpuplan_buf body; /* capped at GPUPLAN_REQUEST_MAX_BODY_BYTES */
    size_t raw_target_len;   /* strlen of the request target as received */
    bool has_bad_target;     /* "%00" or a control byte in the request target */
    bool is_started;         /* the access handler has seen it (headers complete) */
    bool is_get;             /* a GET/HEAD route: answered on the final call */
    bool is_too_large;       /* body past the cap: rest discarded, answer 413 */
    uint64_t discarded_bytes;
    struct search_job *job;              /* a /v1/recommend search under way or done, else NULL */
    const struct gpuplan_messages *msgs; /* Accept-Language's pick (NULL: English) */
    unsigned http_status;                /* 0 until a response is queued */
    size_t response_bytes;               /* body bytes of the queued response */
    char method[ACCESS_METHOD_MAX];
    char version[ACCESS_VERSION_MAX];
    char target[ACCESS_TARGET_MAX]; /* escaped for the log: printable ASCII, \xHH otherwise */
};

static size_t find_route(const char *url)
{
    for (size_t i = 0; i < N_ROUTES; i++) {
        if (strcmp(routes[i].path, url) == 0)
            return i;
    }
    return ROUTE_OTHER;
}

/* `text` for a log line: printable ASCII but '"' and '\\' as is, any other byte as \xHH, cut. */
static void escape_for_log(char *out, size_t out_size, const char *text)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        const bool is_plain = *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\';
        const size_t need = is_plain ? 1 : 4;
        if (n + need + sizeof "..." > out_size) {
            memcpy(out + n, "...", sizeof "...");
            return;
        }
        if (is_plain) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '\\';
            out[n++] = 'x';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 0xf];
        }
    }
    out[n] = '\0';
}

/* ---- responses --------------------------------------------------------------------------------
 */

/*
 * A response owning `buf`'s bytes (MHD frees them with free()), with the
 * headers every answer carries. `buf` is left released. NULL when out of
 * memory.
 */
static struct MHD_Response *make_response(const struct server *srv,
                                          const char *content_type,
                                          struct gpuplan_buf *buf,
                                          const char *allow)
{
    if (!buf->data) {
        buf->data = malloc(1); /* MHD wants a buffer it can free, even when empty */
        if (!buf->data)
            return NULL;
        buf->data[0] = '\0';
    }
    struct MHD_Response *response =
        MHD_create_response_from_buffer_with_free_callback(buf->len, buf->data, free);
    if (!response) {
        gpuplan_buf_release(buf);
        return NULL;
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
    if (ok && srv->cors_origin) {
        /* One fixed origin: the same header for every client, so cached responses carry it. */
        ok = MHD_add_response_header(response, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_ORIGIN,
                                     srv->cors_origin) &&
             MHD_add_response_header(response, MHD_HTTP_HEADER_VARY, "Origin");
    }
    if (!ok) {
        MHD_destroy_response(response);
        return NULL;
    }
    return response;
}

/* Queue `response` (not consumed) as the answer to `req`. */
static enum MHD_Result queue(struct MHD_Connection *conn,
                             struct request *req,
                             unsigned http_status,
                             struct MHD_Response *response,
                             size_t body_bytes)
{
    const enum MHD_Result result = MHD_queue_response(conn, http_status, response);
    if (result == MHD_YES) {
        req->http_status = http_status;
        req->response_bytes = body_bytes;
    }
    return result;
}

/* Hand `buf`'s bytes to MHD and queue the response. `buf` is left released. */
static enum MHD_Result respond(const struct server *srv,
                               struct MHD_Connection *conn,
                               struct request *req,
                               unsigned http_status,
                               const char *content_type,
                               struct gpuplan_buf *buf,
                               const char *allow)
{
    const size_t body_bytes = buf->len;
    struct MHD_Response *response = make_response(srv, content_type, buf, allow);
    if (!response)
        return MHD_NO;
    const enum MHD_Result result = queue(conn, req, http_status, response, body_bytes);
    MHD_destroy_response(response);
    return result;
}

/* Answer with the JSON error document for `err`; HTTP status from its code unless given. */
static enum MHD_Result respond_error(const struct server *srv,
                                     struct MHD_Connection *conn,
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
    return respond(srv, conn, req, http_status, JSON_TYPE, &out, allow);
}

static enum MHD_Result respond_not_found(const struct server *srv,
                                         struct MHD_Connection *conn,
                                         struct request *req,
                                         const char *url)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_error_set(&err, GPUPLAN_ERR_NOT_FOUND, "", "no such endpoint '%.200s'", url);
    gpuplan_error_hint(&err, "endpoints: GET / /healthz /metrics /v1/gpus /v1/models, "
                             "POST /v1/estimate /v1/recommend /v1/propose /v1/tco");
    return respond_error(srv, conn, req, 0, &err, NULL);
}

/* The Allow header of a route; with --cors, OPTIONS is allowed too (the preflight). */
static const char *route_allow(const struct server *srv, const struct route *route)
{
    if (route->get)
        return srv->cors_origin ? "GET, HEAD, OPTIONS" : "GET, HEAD";
    return srv->cors_origin ? "POST, OPTIONS" : "POST";
}

static enum MHD_Result respond_bad_method(const struct server *srv,
                                          struct MHD_Connection *conn,
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
    return respond_error(srv, conn, req, MHD_HTTP_METHOD_NOT_ALLOWED, &err,
                         route_allow(srv, route));
}

static enum MHD_Result respond_too_large(const struct server *srv,
                                         struct MHD_Connection *conn,
                                         struct request *req,
                                         unsigned long long len)
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
    return respond_error(srv, conn, req, 0, &err, NULL);
}

/* 400 with code invalid_input: a request that breaks the HTTP rules (not a bad JSON body). */
static enum MHD_Result respond_bad_request(const struct server *srv,
                                           struct MHD_Connection *conn,
                                           struct request *req,
                                           const char *where,
                                           const char *message,
                                           const char *hint)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    gpuplan_error_set(&err, GPUPLAN_ERR_INVALID_INPUT, where, "%s", message);
    gpuplan_error_hint(&err, "%s", hint);
    return respond_error(srv, conn, req, MHD_HTTP_BAD_REQUEST, &err, NULL);
}

/* 204 to a CORS preflight (OPTIONS on an existing route, only with --cors). */
static enum MHD_Result respond_preflight(const struct server *srv,
                                         struct MHD_Connection *conn,
                                         struct request *req,
                                         const struct route *route)
{
    struct gpuplan_buf empty;
    gpuplan_buf_init(&empty, 0);
    struct MHD_Response *response = make_response(srv, JSON_TYPE, &empty, NULL);
    if (!response)
        return MHD_NO;
    const char *methods = route->get ? "GET, HEAD" : "POST";
    enum MHD_Result result = MHD_NO;
    if (MHD_add_response_header(response, MHD_HTTP_HEADER_ACCESS_CONTROL_ALLOW_METHODS, methods) &&
        MHD_add_response_header(response, "Access-Control-Allow-Headers", "Content-Type") &&
        MHD_add_response_header(response, "Access-Control-Max-Age", CORS_MAX_AGE_S))
        result = queue(conn, req, MHD_HTTP_NO_CONTENT, response, 0);
    MHD_destroy_response(response);
    return result;
}

/* ---- HTTP rules --------------------------------------------------------------------------------
 */

/* What the header fields say about the request's framing and authority. */
struct header_facts {
    unsigned n_host;
    unsigned n_content_length;
    unsigned n_transfer_encoding;
    bool has_conflicting_length; /* two Content-Length fields with different values */
    bool is_chunked;             /* the one Transfer-Encoding is exactly "chunked" */
    const char *content_length;  /* the first value, borrowed from MHD */
    const char *content_type;    /* the first value, or NULL */
};

static enum MHD_Result
collect_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    struct header_facts *f = cls;
    if (!key || !value)
        return MHD_YES;
    if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0) {
        f->n_host++;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        if (f->n_content_length++ == 0)
            f->content_length = value;
        else if (strcmp(f->content_length, value) != 0)
            f->has_conflicting_length = true;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0) {
        f->n_transfer_encoding++;
        f->is_chunked = strcasecmp(value, "chunked") == 0;
    } else if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_TYPE) == 0 && !f->content_type) {
        f->content_type = value;
    }
    return MHD_YES;
}

/*
 * The request target as received: no NUL byte, literal or percent-encoded,
 * and no other control byte (RFC 9112 section 3.2 allows none). MHD
 * decodes %00 into the path and passes C strings, so "/v1/gpus%00" would
 * match "/v1/gpus"; the raw target is checked in the URI callback instead
 * (req->has_bad_target). A literal NUL cuts the raw target short: MHD keeps
 * the request line in one buffer, the target followed by the version
 * (section 3 of RFC 9112), so the version must start right after the
 * target's terminator; if it does not, the target held a NUL.
 */
static bool is_clean_target(const struct request *req, const char *url, const char *version)
{
    return !req->has_bad_target && url + req->raw_target_len + 1 == version;
}

/* A broken HTTP rule: the message, the header it concerns, how to fix it. */
struct http_problem {
    const char *message;
    const char *where;
    const char *hint;
};

/*
 * RFC 9112: an HTTP/1.1 request has exactly one Host (section 3.2); a body
 * length is given once (section 6.3: conflicting Content-Length values and
 * Content-Length with Transfer-Encoding are errors here, as request
 * smuggling starts with a disagreement about where a body ends); the only
 * transfer coding accepted is chunked. False when the request is fine.
 */
static bool
find_header_problem(const struct header_facts *f, const char *version, struct http_problem *out)
{
    static const char host_hint[] = "send exactly one 'Host: HOST[:PORT]' header";
    static const char framing_hint[] =
        "frame the body one way: one Content-Length, or 'Transfer-Encoding: chunked' alone";
    if (strcmp(version, MHD_HTTP_VERSION_1_1) == 0 && f->n_host != 1) {
        *out = (struct http_problem){ f->n_host == 0 ? "an HTTP/1.1 request needs a Host header"
                                                     : "more than one Host header",
                                      "Host", host_hint };
        return true;
    }
    if (f->has_conflicting_length) {
        *out = (struct http_problem){ "conflicting Content-Length headers", "Content-Length",
                                      framing_hint };
        return true;
    }
    if (f->n_transfer_encoding > 0 && f->n_content_length > 0) {
        *out = (struct http_problem){ "both Transfer-Encoding and Content-Length",
                                      "Transfer-Encoding", framing_hint };
        return true;
    }
    if (f->n_transfer_encoding > 1 || (f->n_transfer_encoding == 1 && !f->is_chunked)) {
        *out = (struct http_problem){ "the only transfer coding accepted is 'chunked'",
                                      "Transfer-Encoding", framing_hint };
        return true;
    }
    return false;
}

/* `application/json`, any case, optionally followed by parameters ("; charset=utf-8"). */
static bool is_json_media_type(const char *content_type)
{
    if (!content_type)
        return false;
    while (*content_type == ' ' || *content_type == '\t')
        content_type++;
    const size_t n = strlen(JSON_TYPE);
    if (strncasecmp(content_type, JSON_TYPE, n) != 0)
        return false;
    const char next = content_type[n];
    return next == '\0' || next == ';' || next == ' ' || next == '\t';
}

/* ---- running a request ---------------------------------------------------------------------- */

/* Answer a GET: the cached response of an immutable route, else run its handler. */
static enum MHD_Result run_get(const struct server *srv,
                               struct MHD_Connection *conn,
                               struct request *req,
                               const struct route *route)
{
    struct MHD_Response *cached = srv->cached[req->route];
    if (cached)
        return queue(conn, req, MHD_HTTP_OK, cached, srv->cached_bytes[req->route]);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    if (route->get(srv, &out, &err) != GPUPLAN_OK || gpuplan_buf_status(&out, &err) != GPUPLAN_OK) {
        gpuplan_buf_release(&out);
        return respond_error(srv, conn, req, 0, &err, NULL);
    }
    return respond(srv, conn, req, MHD_HTTP_OK, route->content_type, &out, NULL);
}

/* Queue the answer of a POST handler: `out` on success, else the error document for `err`. */
static enum MHD_Result respond_post(const struct server *srv,
                                    struct MHD_Connection *conn,
                                    struct request *req,
                                    const struct route *route,
                                    enum gpuplan_status st,
                                    struct gpuplan_buf *out,
                                    const char *content_type,
                                    struct gpuplan_error *err)
{
    if (st != GPUPLAN_OK || gpuplan_buf_status(out, err) != GPUPLAN_OK) {
        gpuplan_buf_release(out);
        return respond_error(srv, conn, req, 0, err, NULL);
    }
    return respond(srv, conn, req, MHD_HTTP_OK, content_type ? content_type : route->content_type,
                   out, NULL);
}

/* Run a POST handler over the received body here and queue its response. */
static enum MHD_Result run_post(const struct server *srv,
                                struct MHD_Connection *conn,
                                struct request *req,
                                const struct route *route)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    struct gpuplan_buf out;
    gpuplan_buf_init(&out, 0);
    const char *body = gpuplan_buf_str(&req->body);
    const struct gpuplan_messages *was =
        gpuplan_messages_use(server_lang_from_body(&srv->langs, body, req->body.len, req->msgs));
    const char *content_type = NULL;
    const enum gpuplan_status st = route->post(srv, body, req->body.len, &out, &content_type, &err);
    const enum MHD_Result result =
        respond_post(srv, conn, req, route, st, &out, content_type, &err);
    gpuplan_messages_use(was);
    return result;
}

/* work_item.run of a search: compute (or give up when cancelled), then resume the connection. */
static void run_search(struct work_item *item, bool is_cancelled)
{
    struct search_job *job = (struct search_job *)(void *)item;
    if (is_cancelled)
        job->is_cancelled = true;
    else {
        const struct gpuplan_messages *was = gpuplan_messages_use(job->msgs);
        job->status = job->route->post(job->srv, job->body, job->len, &job->out, &job->content_type,
                                       &job->err);
        gpuplan_messages_use(was);
    }
    atomic_store_explicit(&job->is_done, true, memory_order_release);
    MHD_resume_connection(job->conn);
}

static void free_search_job(struct search_job *job)
{
    gpuplan_buf_release(&job->out);
    free(job);
}

/* The body is complete: queue the search and suspend the connection until it is done. */
static enum MHD_Result start_search(const struct server *srv,
                                    struct MHD_Connection *conn,
                                    struct request *req,
                                    const struct route *route)
{
    struct search_job *job = calloc(1, sizeof *job);
    if (!job)
        return MHD_NO;
    job->item.run = run_search;
    job->srv = srv;
    job->conn = conn;
    job->route = route;
    job->body = gpuplan_buf_str(&req->body);
    job->len = req->body.len;
    job->msgs = server_lang_from_body(&srv->langs, job->body, job->len, req->msgs);
    gpuplan_buf_init(&job->out, 0);
    gpuplan_error_init(&job->err);
    atomic_init(&job->is_done, false);
    req->job = job;
    MHD_suspend_connection(conn); /* before queueing: the worker may resume it at once */
    work_queue_push(srv->searches, &job->item);
    return MHD_YES;
}

/* Called again after the search thread resumed the connection: answer from the job. */
static enum MHD_Result
finish_search(const struct server *srv, struct MHD_Connection *conn, struct request *req)
{
    struct search_job *job = req->job;
    if (!atomic_load_explicit(&job->is_done, memory_order_acquire))
        return MHD_YES; /* not ours to answer yet (MHD called without a resume) */
    req->job = NULL;
    enum MHD_Result result;
    if (job->is_cancelled) {
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        gpuplan_error_set(&err, GPUPLAN_ERR_INTERNAL, "",
                          "the service is stopping; the search did "
                          "not run");
        gpuplan_error_hint(&err, "send it again once the service is back");
        result = respond_error(srv, conn, req, MHD_HTTP_SERVICE_UNAVAILABLE, &err, NULL);
    } else {
        result = respond_post(srv, conn, req, job->route, job->status, &job->out, job->content_type,
                              &job->err);
    }
    free_search_job(job);
    return result;
}

/* A POST route's request, headers complete: 415 and 413 before any of the body is read. */
static enum MHD_Result begin_post(const struct server *srv,
                                  struct MHD_Connection *conn,
                                  struct request *req,
                                  const struct header_facts *facts)
{
    if (!is_json_media_type(facts->content_type)) {
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        gpuplan_error_set(&err, GPUPLAN_ERR_USAGE, "Content-Type",
                          "a request body must be 'application/json'; got '%.100s'",
                          facts->content_type ? facts->content_type : "(none)");
        gpuplan_error_hint(&err, "send the header 'Content-Type: application/json'");
        return respond_error(srv, conn, req, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, &err, NULL);
    }
    if (facts->content_length) {
        char *end = NULL;
        errno = 0;
        const unsigned long long n = strtoull(facts->content_length, &end, 10);
        if (errno == ERANGE || n > GPUPLAN_REQUEST_MAX_BODY_BYTES)
            return respond_too_large(srv, conn, req, errno == ERANGE ? 0 : n);
    }
    return MHD_YES; /* wait for the body */
}

/* First call for a request (headers complete): check it, route it, answer what needs no body. */
static enum MHD_Result begin_request(const struct server *srv,
                                     struct MHD_Connection *conn,
                                     struct request *req,
                                     const char *url,
                                     const char *method,
                                     const char *version)
{
    /*
     * The headers are in; the rest of the request (a body, if any, even on a
     * GET) has the body deadline until the final call, after which it is
     * computed and answered without one.
     */
    conn_guard_set_phase(srv->guard, conn, CONN_PHASE_BODY);
    req->msgs = server_lang_from_header(
        &srv->langs, MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept-Language"));
    if (!is_clean_target(req, url, version))
        return respond_bad_request(srv, conn, req, "request-target",
                                   "NUL or control byte in the request target",
                                   "percent-encode the path; %00 is never valid here");
    struct header_facts facts;
    memset(&facts, 0, sizeof facts);
    (void)MHD_get_connection_values(conn, MHD_HEADER_KIND, collect_header, &facts);
    struct http_problem problem;
    if (find_header_problem(&facts, version, &problem))
        return respond_bad_request(srv, conn, req, problem.where, problem.message, problem.hint);
    req->route = find_route(url);
    if (req->route == ROUTE_OTHER)
        return respond_not_found(srv, conn, req, url);
    const struct route *route = &routes[req->route];
    if (srv->cors_origin && strcmp(method, MHD_HTTP_METHOD_OPTIONS) == 0)
        return respond_preflight(srv, conn, req, route);
    const bool is_get =
        strcmp(method, MHD_HTTP_METHOD_GET) == 0 || strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    if (route->get) {
        if (!is_get)
            return respond_bad_method(srv, conn, req, route, method);
        /*
         * Answer on the final call, once MHD has the whole request: a response
         * queued while MHD still expects a body makes it close the connection
         * (no keep-alive, pipelined requests dropped).
         */
        req->is_get = true;
        return MHD_YES;
    }
    if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
        return respond_bad_method(srv, conn, req, route, method);
    return begin_post(srv, conn, req, &facts);
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
    struct server *srv = cls;
    struct request *req = *con_cls;
    if (!req)
        return MHD_NO; /* on_uri could not allocate it: out of memory */
    if (!req->is_started) {
        req->is_started = true;
        atomic_fetch_add(&srv->metrics.n_in_flight, 1);
        escape_for_log(req->method, sizeof req->method, method);
        escape_for_log(req->version, sizeof req->version, version);
        return begin_request(srv, conn, req, url, method, version);
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
    if (req->job)
        return finish_search(srv, conn, req);
    conn_guard_set_phase(srv->guard, conn, CONN_PHASE_BUSY); /* the request is complete */
    if (req->is_get)
        return run_get(srv, conn, req, &routes[req->route]);
    if (req->is_too_large)
        return respond_too_large(srv, conn, req, 0);
    if (routes[req->route].is_search)
        return start_search(srv, conn, req, &routes[req->route]);
    return run_post(srv, conn, req, &routes[req->route]);
}

/*
 * MHD_OPTION_URI_LOG_CALLBACK: the request line has arrived, with the
 * request target as sent (before MHD splits off the query and decodes
 * %XX). The request record starts here, so the target can be checked raw;
 * MHD passes the return value to the access handler as *con_cls and to
 * NOTIFY_COMPLETED, which frees it. NULL (out of memory) makes the access
 * handler drop the connection.
 */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
    (void)cls;
    (void)conn;
    struct request *req = calloc(1, sizeof *req);
    if (!req)
        return NULL;
    (void)clock_gettime(CLOCK_MONOTONIC, &req->start);
    gpuplan_buf_init(&req->body, GPUPLAN_REQUEST_MAX_BODY_BYTES);
    req->route = ROUTE_OTHER;
    const char *target = uri ? uri : "";
    req->raw_target_len = strlen(target);
    for (const unsigned char *p = (const unsigned char *)target; *p; p++) {
        if (*p < 0x20 || *p == 0x7f || (p[0] == '%' && p[1] == '0' && p[2] == '0')) {
            req->has_bad_target = true;
            break;
        }
    }
    escape_for_log(req->target, sizeof req->target, target);
    return req;
}

static void record_metrics(struct server_metrics *m,
                           const struct request *req,
                           bool completed,
                           long long elapsed_ns)
{
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

/* The client's address as text ("127.0.0.1", "::1"), or "-". */
static void client_address(struct MHD_Connection *conn, char *out, size_t out_size)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    const struct sockaddr *sa = info ? info->client_addr : NULL;
    const char *text = NULL;
    if (sa && sa->sa_family == AF_INET)
        text = inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out,
                         (socklen_t)out_size);
    else if (sa && sa->sa_family == AF_INET6)
        text = inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out,
                         (socklen_t)out_size);
    if (!text)
        (void)snprintf(out, out_size, "-");
}

/* One access line: address, request line, status (or "aborted"), body bytes, milliseconds. */
static void log_access(struct server *srv,
                       struct MHD_Connection *conn,
                       const struct request *req,
                       bool completed,
                       long long elapsed_ns)
{
    char address[INET6_ADDRSTRLEN];
    client_address(conn, address, sizeof address);
    char status[16] = "aborted";
    if (completed && req->http_status)
        (void)snprintf(status, sizeof status, "%u", req->http_status);
    server_log_line(&srv->log, "gpuplan: access: %s \"%s %s %s\" %s %zu %.3f ms", address,
                    req->method, req->target, req->version, status, req->response_bytes,
                    (double)elapsed_ns * MS_PER_NS);
}

static void on_completed(void *cls,
                         struct MHD_Connection *conn,
                         void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct server *srv = cls;
    struct request *req = *con_cls;
    if (!req)
        return;
    /* Requests that never reached the handler (cut off mid-headers, or MHD's 414/431) are not
     * counted: the guard's metrics count their connections. */
    if (req->is_started) {
        struct timespec now;
        (void)clock_gettime(CLOCK_MONOTONIC, &now);
        const long long elapsed_ns = (long long)(now.tv_sec - req->start.tv_sec) * NS_PER_S +
                                     (now.tv_nsec - req->start.tv_nsec);
        const bool completed = toe == MHD_REQUEST_TERMINATED_COMPLETED_OK;
        record_metrics(&srv->metrics, req, completed, elapsed_ns);
        const bool is_error = !completed || req->http_status >= 400;
        if (server_log_access_wanted(&srv->log, is_error))
            log_access(srv, conn, req, completed, elapsed_ns);
        atomic_fetch_sub(&srv->metrics.n_in_flight, 1);
    }
    /* A job still here was done but never answered; one not done is the worker's (never: MHD
     * does not close a suspended connection) and is left to it rather than freed under it. */
    if (req->job && atomic_load_explicit(&req->job->is_done, memory_order_acquire))
        free_search_job(req->job);
    gpuplan_buf_release(&req->body);
    free(req);
    *con_cls = NULL;
    /* The next request on this connection has the header deadline again. */
    conn_guard_set_phase(srv->guard, conn, CONN_PHASE_HEADERS);
}

/* ---- GET handlers ------------------------------------------------------------------------------
 */

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

static void metrics_connections(const struct server *srv, struct gpuplan_buf *out)
{
    struct conn_guard_stats stats;
    conn_guard_get_stats(srv->guard, &stats);
    gpuplan_buf_printf(out,
                       "# HELP gpuplan_http_connections_open Connections held now.\n"
                       "# TYPE gpuplan_http_connections_open gauge\n"
                       "gpuplan_http_connections_open %llu\n",
                       (unsigned long long)stats.n_open);
    const char *name = "gpuplan_http_connections_guarded_total";
    gpuplan_buf_printf(out,
                       "# HELP %s Connections closed at a deadline or to make room, or refused, "
                       "by reason.\n# TYPE %s counter\n",
                       name, name);
    for (size_t i = 0; i < CONN_GUARD_REASON_COUNT; i++)
        gpuplan_buf_printf(out, "%s{reason=\"%s\"} %llu\n", name,
                           conn_guard_reason_name((enum conn_guard_reason)i),
                           (unsigned long long)stats.n_by_reason[i]);
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
    metrics_connections(srv, out);
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

/* ---- catalog models ----------------------------------------------------------------------------
 */

/* Build `model` from a catalog entry, as `gpuplan estimate MODEL` loads a catalog id. */
static enum gpuplan_status build_model(const struct gpuplan_catalog_model *entry,
                                       struct gpuplan_model *model,
                                       struct gpuplan_error *err)
{
    const enum gpuplan_status st = gpuplan_model_from_hf_config(
        model, (const uint8_t *)entry->config_json, entry->config_json_len, entry->id, err);
    if (st != GPUPLAN_OK)
        return st;
    if (!model->id[0])
        (void)snprintf(model->id, sizeof model->id, "%s", entry->id);
    /* the Hub id, as the loader sets it: serving launch lines name the model by it */
    (void)snprintf(model->hub_id, sizeof model->hub_id, "%s", entry->hf_repo);
    return GPUPLAN_OK;
}

/*
 * The body's "model": a catalog id only, so no path is ever read on a
 * client's behalf. *out points at the inventory built at start (shared,
 * read-only), or at `scratch` when that build failed (the caller releases
 * `scratch` either way).
 */
static enum gpuplan_status find_model(const struct server *srv,
                                      const char *model_id,
                                      struct gpuplan_model *scratch,
                                      const struct gpuplan_model **out,
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
    for (size_t i = 0; i < srv->n_models; i++) {
        if (srv->models[i].entry == entry && srv->models[i].is_ready) {
            *out = &srv->models[i].model;
            return GPUPLAN_OK;
        }
    }
    *out = scratch;
    return build_model(entry, scratch, err);
}

/* Build every catalog model's inventory once (a few milliseconds for the embedded catalog). */
static enum gpuplan_status build_models(struct server *srv, struct gpuplan_error *err)
{
    srv->n_models = gpuplan_catalog_n_models(srv->catalog);
    srv->models = calloc(srv->n_models ? srv->n_models : 1, sizeof *srv->models);
    if (!srv->models)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    for (size_t i = 0; i < srv->n_models; i++) {
        struct cached_model *c = &srv->models[i];
        c->entry = gpuplan_catalog_model_at(srv->catalog, i);
        gpuplan_model_init(&c->model);
        struct gpuplan_error ignored; /* such a model is built, and fails, per request */
        gpuplan_error_init(&ignored);
        c->is_ready = c->entry && build_model(c->entry, &c->model, &ignored) == GPUPLAN_OK;
    }
    return GPUPLAN_OK;
}

static void free_models(struct server *srv)
{
    for (size_t i = 0; srv->models && i < srv->n_models; i++)
        gpuplan_model_release(&srv->models[i].model);
    free(srv->models);
}

/* ---- POST handlers -----------------------------------------------------------------------------
 */

/*
 * POST /v1/estimate: body -> job (gpuplan_job_from_json), model and GPU by
 * catalog id, gpuplan_estimate_run, then the JSON renderer the CLI's
 * `gpuplan estimate --format json` uses.
 */
static enum gpuplan_status post_estimate(const struct server *srv,
                                         const char *body,
                                         size_t len,
                                         struct gpuplan_buf *out,
                                         const char **content_type,
                                         struct gpuplan_error *err)
{
    (void)content_type; /* JSON, the route's */
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    char model_id[GPUPLAN_REQUEST_MODEL_MAX] = "";
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    if (gpuplan_job_from_json_config(&job, body, len, model_id, sizeof model_id, &cfg, err) !=
        GPUPLAN_OK) {
        gpuplan_config_release(&cfg);
        return err->code;
    }
    struct gpuplan_estimate *estimate = calloc(1, sizeof *estimate);
    if (!estimate) {
        gpuplan_config_release(&cfg);
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    }
    struct gpuplan_model scratch;
    gpuplan_model_init(&scratch);
    const struct gpuplan_model *model = NULL;
    const struct gpuplan_gpu *gpu = NULL;
    enum gpuplan_status st = find_model(srv, model_id, &scratch, &model, err);
    if (st == GPUPLAN_OK && job.gpu_id[0]) {
        st = gpuplan_catalog_get_gpu(srv->catalog, job.gpu_id, &gpu, err);
        if (st != GPUPLAN_OK)
            (void)snprintf(err->where, sizeof err->where, "$.gpu");
    }
    if (st == GPUPLAN_OK)
        st = gpuplan_estimate_run_in(
            model, &job, gpu,
            job.nodes > 1 ? gpuplan_catalog_sole_platform(srv->catalog, gpu, job.gpus_per_node)
                          : NULL,
            estimate, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_render_estimate_from(estimate, cfg.n_files ? &cfg : NULL, false,
                                          GPUPLAN_FORMAT_JSON, out, err);
    gpuplan_model_release(&scratch);
    gpuplan_config_release(&cfg);
    free(estimate);
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
                                    const char **content_type,
                                    struct gpuplan_error *err)
{
    (void)content_type; /* JSON, the route's */
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
                                          const char **content_type,
                                          struct gpuplan_error *err)
{
    (void)content_type; /* JSON, the route's */
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    char model_id[GPUPLAN_REQUEST_MODEL_MAX] = "";
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    if (gpuplan_plan_request_from_json_config(&req, body, len, model_id, sizeof model_id, &cfg,
                                              err) != GPUPLAN_OK) {
        gpuplan_config_release(&cfg);
        return err->code;
    }
    /* About 300 KB (plan.h): on the heap, not the MHD thread's stack. */
    struct gpuplan_plan_result *result = calloc(1, sizeof *result);
    if (!result) {
        gpuplan_config_release(&cfg);
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    }
    struct gpuplan_model scratch;
    gpuplan_model_init(&scratch);
    const struct gpuplan_model *model = NULL;
    enum gpuplan_status st = find_model(srv, model_id, &scratch, &model, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_plan_run(model, srv->catalog, &req, result, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_render_plan_from(result, cfg.n_files ? &cfg : NULL, GPUPLAN_FORMAT_JSON, out,
                                      err);
    gpuplan_model_release(&scratch);
    gpuplan_config_release(&cfg);
    free(result);
    return st;
}

/*
 * The date a document shows: SOURCE_DATE_EPOCH when set (reproducible
 * output; reproducible-builds.org), else now; UTC, "2026-12-01".
 */
static void document_date(char *out, size_t size)
{
    time_t t = time(NULL);
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    if (epoch && *epoch) {
        char *end = NULL;
        const long long v = strtoll(epoch, &end, 10);
        if (end && *end == '\0' && v >= 0)
            t = (time_t)v;
    }
    struct tm tm;
    if (!gmtime_r(&t, &tm) || strftime(out, size, "%Y-%m-%d", &tm) == 0)
        snprintf(out, size, "?");
}

/*
 * POST /v1/propose: a /v1/recommend body with "format" (html, md) -> the
 * document of gpuplan_propose, the call `gpuplan propose` makes, in the
 * answer's language (the body's "lang", else Accept-Language: the thread's
 * message catalog, set around every POST) with that language's tag.
 */
static enum gpuplan_status post_propose(const struct server *srv,
                                        const char *body,
                                        size_t len,
                                        struct gpuplan_buf *out,
                                        const char **content_type,
                                        struct gpuplan_error *err)
{
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    struct gpuplan_propose_body doc;
    char model_id[GPUPLAN_REQUEST_MODEL_MAX] = "";
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    if (gpuplan_propose_request_from_json_config(&req, &doc, body, len, model_id, sizeof model_id,
                                                 &cfg, err) != GPUPLAN_OK) {
        gpuplan_config_release(&cfg);
        return err->code;
    }
    /* the catalog in use on this thread: the answer's language */
    const struct gpuplan_messages *in_use = gpuplan_messages_use(NULL);
    gpuplan_messages_use(in_use);
    const bool ru = in_use != NULL && in_use == srv->langs.ru;
    struct gpuplan_model scratch;
    gpuplan_model_init(&scratch);
    const struct gpuplan_model *model = NULL;
    char date[32];
    document_date(date, sizeof date);
    const struct gpuplan_proposal_options opts = {
        .format = (enum gpuplan_format)doc.format,
        .lang = ru ? "ru" : "en",
        .date = date,
        .version = GPUPLAN_VERSION,
        .command = NULL,
        .width_px = doc.chart_width_px,
    };
    enum gpuplan_status st = find_model(srv, model_id, &scratch, &model, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_propose(model, srv->catalog, &req, &opts, out, err);
    *content_type = opts.format == GPUPLAN_FORMAT_MD     ? MARKDOWN_TYPE
                    : opts.format == GPUPLAN_FORMAT_JSON ? JSON_TYPE
                                                         : HTML_TYPE;
    gpuplan_model_release(&scratch);
    gpuplan_config_release(&cfg);
    return st;
}

/* Render each immutable GET route once into a response every request queues again. */
static enum gpuplan_status build_cached_responses(struct server *srv, struct gpuplan_error *err)
{
    for (size_t i = 0; i < N_ROUTES; i++) {
        if (!routes[i].is_immutable)
            continue;
        struct gpuplan_buf out;
        gpuplan_buf_init(&out, 0);
        struct gpuplan_error route_err;
        gpuplan_error_init(&route_err);
        if (routes[i].get(srv, &out, &route_err) != GPUPLAN_OK ||
            gpuplan_buf_status(&out, &route_err) != GPUPLAN_OK) {
            gpuplan_buf_release(&out);
            if (route_err.code == GPUPLAN_ERR_NOT_FOUND)
                continue; /* a build without the page: answered per request (404) */
            *err = route_err;
            return err->code;
        }
        srv->cached_bytes[i] = out.len;
        srv->cached[i] = make_response(srv, routes[i].content_type, &out, NULL);
        if (!srv->cached[i])
            return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    }
    return GPUPLAN_OK;
}

/* ---- the daemon --------------------------------------------------------------------------------
 */

/*
 * libmicrohttpd's messages, one whole line each, sampled by kind. MHD
 * writes one message per closed or refused connection ("Connection was
 * closed by remote side with incomplete request", "Server reached
 * connection limit"), so a slowloris run of 50,000 connections wrote as
 * many lines. A kind is its format string (MHD passes the same literal each
 * time): the first of each kind is logged, then every MHD_LOG_EVERY-th with
 * its count. Up to MHD_LOG_KINDS kinds are told apart; the rest share one
 * counter.
 */
#define MHD_LOG_EVERY 1000
#define MHD_LOG_KINDS 64
struct mhd_log_kinds {
    _Atomic(const char *) fmt[MHD_LOG_KINDS];
    atomic_uint_fast64_t count[MHD_LOG_KINDS + 1]; /* the last: every other kind */
};

/* The counter of `fmt`'s kind (claiming a free slot for a new kind). */
static atomic_uint_fast64_t *mhd_log_counter(struct mhd_log_kinds *k, const char *fmt)
{
    for (size_t i = 0; i < MHD_LOG_KINDS; i++) {
        const char *seen = atomic_load(&k->fmt[i]);
        if (seen == fmt)
            return &k->count[i];
        if (!seen) {
            const char *expected = NULL;
            if (atomic_compare_exchange_strong(&k->fmt[i], &expected, fmt) || expected == fmt)
                return &k->count[i];
        }
    }
    return &k->count[MHD_LOG_KINDS];
}

__attribute__((format(printf, 2, 0))) static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    struct server *srv = cls;
    const uint_fast64_t n = atomic_fetch_add(mhd_log_counter(srv->mhd_log, fmt), 1) + 1;
    if (n != 1 && n % MHD_LOG_EVERY != 0)
        return;
    char message[SERVER_LOG_LINE_MAX_BYTES];
    (void)vsnprintf(message, sizeof message, fmt, ap);
    const size_t len = strlen(message);
    if (len > 0 && message[len - 1] == '\n')
        message[len - 1] = '\0';
    if (n == 1)
        server_log_line(&srv->log, "gpuplan: mhd: %s", message);
    else
        server_log_line(&srv->log, "gpuplan: mhd: %s (%llu times so far; 1 in %d logged)", message,
                        (unsigned long long)n, MHD_LOG_EVERY);
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

/* One I/O thread per CPU online, 1..SERVER_MAX_IO_THREADS. */
static unsigned io_threads(void)
{
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1U : n > SERVER_MAX_IO_THREADS ? SERVER_MAX_IO_THREADS : (unsigned)n;
}

static struct conn_guard_limits guard_limits(const struct server_config *cfg)
{
    const struct conn_guard_limits limits = {
        .max_connections = cfg->max_connections,
        .max_per_ip = cfg->max_per_ip,
        .header_timeout_s = cfg->header_timeout_s,
        .body_timeout_s = cfg->body_timeout_s,
    };
    return limits;
}

/*
 * One option per line, each value cast to the type MHD reads with va_arg.
 * MHD sets SO_REUSEADDR itself; MHD_OPTION_LISTENING_ADDRESS_REUSE stays
 * off because on Linux it means SO_REUSEPORT, which would let a second
 * `gpuplan serve` share the port silently instead of failing. The caps MHD
 * enforces itself sit CONN_GUARD_SLACK above the guard's, which admits and
 * replaces connections in its accept policy (conn_guard.h).
 */
static struct MHD_Daemon *
start_daemon(struct server *srv, const struct server_config *cfg, const struct addrinfo *addr)
{
    /*
     * A pool of I/O threads, one per CPU, each an epoll loop over its
     * connections: 1,000 idle or slow connections cost memory, not threads.
     * Whatever an I/O thread computes holds up its other connections, so it
     * computes only what is bounded and short (estimate, tco: well under a
     * millisecond); a /v1/recommend search runs on a search thread
     * (MHD_suspend_connection until it is done), so /healthz never waits
     * for one. With a thread per connection and a FIFO gate of 4 places
     * instead, every POST cost a sleep and a wakeup at the gate: /v1/estimate
     * at 64 connections ran at half the rate (11,000 against 23,000
     * requests/s in one run on the 2-core machine).
     */
    unsigned flags = MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_ALLOW_SUSPEND_RESUME |
                     MHD_USE_ERROR_LOG;
    if (addr->ai_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    const struct conn_guard_limits limits = guard_limits(cfg);
    const unsigned mhd_limit = conn_guard_mhd_limit(&limits);
    const unsigned mhd_per_ip = cfg->max_per_ip + CONN_GUARD_SLACK(cfg->max_connections);
    // clang-format off
    return MHD_start_daemon(flags, 0, conn_guard_on_accept, srv->guard, on_request, srv,
                            MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, srv, /* first, or MHD warns */
                            MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)io_threads(),
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVER_CONNECTION_MEMORY_BYTES,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned int)mhd_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)mhd_per_ip,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)cfg->timeout_s,
                            MHD_OPTION_NOTIFY_CONNECTION, conn_guard_on_connection, srv->guard,
                            MHD_OPTION_URI_LOG_CALLBACK, on_uri, srv,
                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv,
                            MHD_OPTION_SOCK_ADDR, addr->ai_addr,
                            MHD_OPTION_END);
    // clang-format on
}

static void print_listening(struct server *srv,
                            const struct server_config *cfg,
                            struct MHD_Daemon *daemon,
                            const struct addrinfo *addr)
{
    char host[128] = "?";
    (void)getnameinfo(addr->ai_addr, addr->ai_addrlen, host, sizeof host, NULL, 0, NI_NUMERICHOST);
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    const unsigned port = info ? info->port : 0;
    const bool is_v6 = addr->ai_family == AF_INET6;
    server_log_line(&srv->log,
                    "gpuplan: listening on http://%s%s%s:%u/ (%u I/O threads, %u search threads)",
                    is_v6 ? "[" : "", host, is_v6 ? "]" : "", port, io_threads(), cfg->n_threads);
    char sample[48] = "errors only";
    if (cfg->log_sample > 0)
        (void)snprintf(sample, sizeof sample, "1 in %u requests and errors", cfg->log_sample);
    server_log_line(&srv->log,
                    "gpuplan: limits: %u connections, %u per address; deadlines: headers %u s, "
                    "body %u s, idle %u s; access log: %s; CORS: %s",
                    cfg->max_connections, cfg->max_per_ip, cfg->header_timeout_s,
                    cfg->body_timeout_s, cfg->timeout_s, sample,
                    cfg->cors_origin ? cfg->cors_origin : "off");
    if (!is_loopback(addr->ai_addr))
        server_log_line(&srv->log,
                        "gpuplan: warning: '%s' is not a loopback address; the service has no "
                        "authentication",
                        host);
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
    server_log_line(&srv->log, "gpuplan: %s received; draining",
                    sig == SIGTERM ? "SIGTERM" : "SIGINT");
    const MHD_socket listen_fd = MHD_quiesce_daemon(daemon);
    const struct timespec tick = { 0, 10 * 1000 * 1000 };
    for (int i = 0; i < SERVER_DRAIN_S * 100 && atomic_load(&srv->metrics.n_in_flight) > 0; i++) {
        if (sigtimedwait(&set, NULL, &tick) > 0)
            break;
    }
    /*
     * MHD_stop_daemon() must not find a suspended connection: running
     * searches finish, queued ones are cancelled (503) and every connection
     * is resumed; the 503s get SERVER_STOP_GRACE_MS to go out.
     */
    work_queue_free(srv->searches);
    srv->searches = NULL;
    for (int i = 0; i * 10 < SERVER_STOP_GRACE_MS && atomic_load(&srv->metrics.n_in_flight) > 0;
         i++)
        (void)nanosleep(&tick, NULL);
    MHD_stop_daemon(daemon);
    if (listen_fd != MHD_INVALID_SOCKET)
        (void)close(listen_fd);
}

/*
 * Each connection is a descriptor: make sure the soft RLIMIT_NOFILE covers
 * the connections MHD may hold (cap + slack) plus the listening socket, the
 * ITC pipes and stdio (raised up to the hard limit; never lowered).
 */
static void raise_fd_limit(struct server *srv, const struct server_config *cfg)
{
    const struct conn_guard_limits limits = guard_limits(cfg);
    const rlim_t want = (rlim_t)conn_guard_mhd_limit(&limits) + 64U + 2U * SERVER_MAX_THREADS;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
        return;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur < want)
        server_log_line(&srv->log,
                        "gpuplan: warning: open-file limit %llu is below the %u connections "
                        "the service accepts",
                        (unsigned long long)rl.rlim_cur, cfg->max_connections);
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

void server_config_init(struct server_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->listen = SERVER_DEFAULT_LISTEN;
    cfg->n_threads = SERVER_DEFAULT_THREADS;
    cfg->timeout_s = SERVER_DEFAULT_TIMEOUT_S;
    cfg->header_timeout_s = SERVER_DEFAULT_HEADER_TIMEOUT_S;
    cfg->body_timeout_s = SERVER_DEFAULT_BODY_TIMEOUT_S;
    cfg->max_connections = SERVER_DEFAULT_MAX_CONNECTIONS;
    cfg->max_per_ip = SERVER_DEFAULT_MAX_PER_IP;
    cfg->log_sample = SERVER_DEFAULT_LOG_SAMPLE;
    cfg->cors_origin = NULL;
    cfg->catalog_dir = NULL;
    cfg->log = stderr;
}

bool server_cors_origin_is_valid(const char *origin)
{
    if (!origin)
        return false;
    if (strcmp(origin, "*") == 0)
        return true;
    const size_t len = strlen(origin);
    const char *host = NULL;
    if (strncmp(origin, "http://", 7) == 0)
        host = origin + 7;
    else if (strncmp(origin, "https://", 8) == 0)
        host = origin + 8;
    if (!host || !host[0] || len > SERVER_CORS_ORIGIN_MAX)
        return false;
    for (const char *p = host; *p; p++) {
        const unsigned char c = (unsigned char)*p;
        if (c <= 0x20 || c >= 0x7f || c == '"' || c == ',' || c == '/' || c == '\\' || c == '?' ||
            c == '#' || c == '@')
            return false; /* no path, query, fragment, credentials, list or header tricks */
    }
    return true;
}

static void free_server(struct server *srv)
{
    work_queue_free(srv->searches);
    conn_guard_free(srv->guard);
    for (size_t i = 0; i < N_ROUTES; i++) {
        if (srv->cached[i])
            MHD_destroy_response(srv->cached[i]);
    }
    free_models(srv);
    free(srv->mhd_log);
    gpuplan_catalog_free(srv->catalog);
    server_langs_free(&srv->langs);
    free(srv);
}

enum gpuplan_status server_run(const struct server_config *cfg, struct gpuplan_error *err)
{
    struct server *srv = calloc(1, sizeof *srv);
    if (!srv)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    server_log_init(&srv->log, fileno(cfg->log), cfg->log_sample);
    srv->cors_origin = cfg->cors_origin;
    srv->mhd_log = calloc(1, sizeof *srv->mhd_log);
    if (!srv->mhd_log) {
        free(srv);
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, "", "out of memory");
    }
    struct addrinfo *addr = NULL;
    enum gpuplan_status status = server_mhd_load(err);
    if (status == GPUPLAN_OK)
        status = resolve_listen(cfg->listen, &addr, err);
    server_langs_load(&srv->langs, cfg->locale_dir, cfg->log);
    if (status == GPUPLAN_OK)
        status = gpuplan_catalog_load(&srv->catalog, cfg->catalog_dir, err);
    if (status == GPUPLAN_OK)
        status = build_models(srv, err);
    if (status == GPUPLAN_OK)
        status = build_cached_responses(srv, err);
    if (status == GPUPLAN_OK)
        status = work_queue_new(&srv->searches, cfg->n_threads, err);
    const struct conn_guard_limits limits = guard_limits(cfg);
    if (status == GPUPLAN_OK)
        status = conn_guard_new(&srv->guard, &limits, &srv->log, err);
    if (status != GPUPLAN_OK)
        goto out;
    raise_fd_limit(srv, cfg);
    struct MHD_Daemon *daemon = start_daemon(srv, cfg, addr);
    if (!daemon) {
        status = gpuplan_error_set(err, GPUPLAN_ERR_IO, "--listen", "cannot listen on '%s'",
                                   cfg->listen);
        gpuplan_error_hint(err, "is the port in use? try another port, or port 0 for any free one");
        goto out;
    }
    print_listening(srv, cfg, daemon, addr);
    wait_and_drain(srv, daemon);
    server_log_flush_suppressed(&srv->log);
    server_log_line(&srv->log, "gpuplan: stopped");
out:
    if (addr)
        freeaddrinfo(addr);
    free_server(srv);
    return status;
}
