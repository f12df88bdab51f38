/*
 * cmd_serve.c - `gpuplan serve`: parse the options and run the HTTP service
 * (src/server/server.c). Exit 0 after a clean SIGTERM/SIGINT shutdown.
 *
 * The options fill struct server_config through serve_options below, one
 * entry each; a new option of the service is one more entry (and its field
 * in server.h).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "i18n.h"
#include "server.h"

/* The text of a number macro, for the defaults the table parses ("4" for SERVER_DEFAULT_THREADS).
 */
#define STR_(x) #x
#define STR(x)  STR_(x)

#define CFG(field) GPUPLAN_OPTION_AT(struct server_config, field)

/* --cors ORIGIN: the server's rule (server_cors_origin_is_valid); the text is borrowed from argv.
 */
static enum gpuplan_status parse_cors(void *dest,
                                      const struct gpuplan_option *opt,
                                      const char *text,
                                      struct gpuplan_error *err)
{
    if (!server_cors_origin_is_valid(text))
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "'--cors' must be an origin such as https://example.org:8443, "
                                 "or *; got '%s'",
                                 text);
    *(const char **)((char *)dest + opt->offset) = text;
    return GPUPLAN_OK;
}

/* Whether the command line gave option `name` (args->given lists each given option). */
static bool given(const struct gpuplan_argv *args, const char *name)
{
    for (size_t i = 0; i < args->n_given; i++)
        if (strcmp(args->given[i]->name, name) == 0)
            return true;
    return false;
}

static const struct gpuplan_option serve_options[] = {
    { .name = "listen",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_STRING,
      CFG(listen),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "HOST:PORT",
      .help = N_("address to bind (port 0 picks a free port, printed at startup); non-loopback "
                 "addresses are exposed without authentication"),
      .default_value = SERVER_DEFAULT_LISTEN,
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = "threads",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      CFG(n_threads),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "N",
      .help = N_("/v1/recommend searches computed at once, the rest wait in order; other "
                 "requests are computed by the I/O threads, one per CPU"),
      .default_value = STR(SERVER_DEFAULT_THREADS),
      .count_min = 1,
      .count_max = SERVER_MAX_THREADS,
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = "timeout",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      CFG(timeout_s),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "S",
      .help = N_("close connections idle for S seconds"),
      .default_value = STR(SERVER_DEFAULT_TIMEOUT_S),
      .count_min = 1,
      .count_max = SERVER_MAX_TIMEOUT_S,
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = "header-timeout",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      CFG(header_timeout_s),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "S",
      .help = N_("close a connection whose request headers are not complete S seconds after it "
                 "opened or after its last response, however often bytes arrive"),
      .default_value = STR(SERVER_DEFAULT_HEADER_TIMEOUT_S),
      .count_min = 1,
      .count_max = SERVER_MAX_TIMEOUT_S,
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = "body-timeout",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      CFG(body_timeout_s),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "S",
      .help = N_("close a connection whose request body is not complete S seconds after its "
                 "headers"),
      .default_value = STR(SERVER_DEFAULT_BODY_TIMEOUT_S),
      .count_min = 1,
      .count_max = SERVER_MAX_TIMEOUT_S,
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = "max-connections",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      CFG(max_connections),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "N",
      .help = N_("connections held at once; when full, a client address holding fewer than the "
                 "busiest one still gets in"),
      .default_value = STR(SERVER_DEFAULT_MAX_CONNECTIONS),
      .count_min = SERVER_MIN_MAX_CONNECTIONS,
      .count_max = SERVER_MAX_MAX_CONNECTIONS,
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = "max-per-ip",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      CFG(max_per_ip),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "N",
      .help = N_("connections from one address, IPv6 /64; at most --max-connections (a smaller "
                 "--max-connections lowers the default)"),
      .default_value = STR(SERVER_DEFAULT_MAX_PER_IP),
      .count_min = 1,
      .count_max = SERVER_MAX_MAX_CONNECTIONS,
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = "log-sample",
      .kind = GPUPLAN_OPTION_COUNT,
      .field = GPUPLAN_FIELD_U32,
      CFG(log_sample),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "N",
      .help = N_("access log: one line per N requests, plus every error (1 logs every request, 0 "
                 "errors only)"),
      .default_value = STR(SERVER_DEFAULT_LOG_SAMPLE),
      .count_min = 0,
      .count_max = SERVER_MAX_LOG_SAMPLE,
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = "cors",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_STRING,
      CFG(cors_origin),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "ORIGIN",
      .help = N_("allow the web origin ORIGIN (https://host[:port], or *) to call the API from a "
                 "browser; without it no CORS header is sent"),
      .parse = parse_cors,
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = "catalog",
      .kind = GPUPLAN_OPTION_TEXT,
      .field = GPUPLAN_FIELD_STRING,
      CFG(catalog_dir),
      .set_offset = GPUPLAN_OPTION_NO_SET,
      .arg = "DIR",
      .help =
          N_("read gpus.json, platforms.json, parts.json, models.json from DIR over the embedded "
             "catalog"),
      .flags = GPUPLAN_OPTION_CLI_ONLY },
    { .name = NULL },
};

static int cmd_serve(int argc, char **argv);

const struct cli_command cli_cmd_serve = {
    .name = "serve",
    .run = cmd_serve,
    .summary = N_("run the HTTP/JSON service and web page"),
    .usage = N_("serve [OPTIONS]"),
    .description = N_("Run the HTTP/JSON service: POST /v1/estimate, /v1/recommend, /v1/tco; GET "
                      "/v1/gpus, /v1/models, /healthz, /metrics and the web page at /. Stops "
                      "cleanly on SIGTERM or SIGINT after finishing the requests in flight.\n\n"
                      "Answers are in English, or in Russian when the body says \"lang\": \"ru\" "
                      "or the Accept-Language header prefers ru: reasons, warnings, notes and "
                      "errors are translated; JSON keys and enum values stay English."),
    .groups = { { N_("options"), serve_options, 0 } },
};

static int cmd_serve(int argc, char **argv)
{
    struct server_config cfg;
    memset(&cfg, 0, sizeof cfg);
    (void)gpuplan_options_init(serve_options, &cfg, NULL);
    cfg.log = stderr;
    struct gpuplan_argv args;
    void *const dests[] = { &cfg };
    const int rc = cli_parse(&cli_cmd_serve, dests, argc, argv, &args);
    if (rc >= 0)
        return rc;
    if (!cfg.listen[0])
        return cli_usage_error("serve", "'--listen' needs HOST:PORT");
    if (cfg.catalog_dir && !cfg.catalog_dir[0])
        return cli_usage_error("serve", "'--catalog' needs a directory");
    if (cfg.max_per_ip > cfg.max_connections) {
        if (given(&args, "max-per-ip"))
            return cli_usage_error("serve",
                                   "'--max-per-ip' (%u) must not exceed '--max-connections' (%u)",
                                   cfg.max_per_ip, cfg.max_connections);
        cfg.max_per_ip = cfg.max_connections; /* a small --max-connections lowers the default */
    }
    char locale_dir[PATH_MAX];
    cli_i18n_locale_dir(locale_dir, sizeof locale_dir);
    cfg.locale_dir = locale_dir;
    /* Before any thread exists, so every MHD thread inherits the mask and sigwait() gets them. */
    if (server_block_signals() != 0) {
        perror(_("gpuplan: error: blocking signals"));
        return CLI_RUN_ERROR;
    }
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (server_run(&cfg, &err) != GPUPLAN_OK)
        return cli_report(&err);
    return CLI_OK;
}
