/*
 * cmd_serve.c - `gpuplan serve`: parse the options and run the HTTP service
 * (src/server/server.c). Exit 0 after a clean SIGTERM/SIGINT shutdown.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "i18n.h"
#include "server.h"

static const char serve_help[] =
    N_("usage: gpuplan serve [--listen HOST:PORT] [--threads N] [--timeout S] [--catalog DIR]\n"
       "                     [--header-timeout S] [--body-timeout S] [--max-connections N]\n"
       "                     [--max-per-ip N] [--log-sample N] [--cors ORIGIN]\n"
       "\n"
       "Run the HTTP/JSON service: POST /v1/estimate, /v1/recommend, /v1/tco;\n"
       "GET /v1/gpus, /v1/models, /healthz, /metrics and the web page at /.\n"
       "Stops cleanly on SIGTERM or SIGINT after finishing the requests in flight.\n"
       "\n"
       "options:\n"
       "  --listen HOST:PORT  address to bind (default 127.0.0.1:8080; port 0 picks a free\n"
       "                      port, printed at startup); non-loopback addresses are exposed\n"
       "                      without authentication\n"
       "  --threads N         /v1/recommend searches computed at once, the rest wait in\n"
       "                      order (default 4, 1..256); other requests are computed by\n"
       "                      the I/O threads, one per CPU\n"
       "  --timeout S         close connections idle for S seconds (default 10, 1..3600)\n"
       "  --header-timeout S  close a connection whose request headers are not complete S\n"
       "                      seconds after it opened or after its last response, however\n"
       "                      often bytes arrive (default 10, 1..3600)\n"
       "  --body-timeout S    close a connection whose request body is not complete S seconds\n"
       "                      after its headers (default 30, 1..3600)\n"
       "  --max-connections N connections held at once (default 1024, 16..16384); when full,\n"
       "                      a client address holding fewer than the busiest one still gets in\n"
       "  --max-per-ip N      connections from one address, IPv6 /64 (default 384,\n"
       "                      1..--max-connections)\n"
       "  --log-sample N      access log: one line per N requests, plus every error\n"
       "                      (default 100; 1 logs every request, 0 errors only)\n"
       "  --cors ORIGIN       allow the web origin ORIGIN (https://host[:port], or *) to call\n"
       "                      the API from a browser; without it no CORS header is sent\n"
       "  --catalog DIR       read gpus.json, platforms.json, models.json from DIR over the\n"
       "                      embedded catalog\n"
       "  -h, --help          show this help\n");

/* Strict unsigned in [min, max]: digits only, no sign, no suffix. */
static int parse_unsigned(const char *text, unsigned min, unsigned max, unsigned *out)
{
    if (!text || text[0] < '0' || text[0] > '9')
        return -1;
    char *end = NULL;
    errno = 0;
    const unsigned long v = strtoul(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = (unsigned)v;
    return 0;
}

/* The value of option argv[*i] ("--opt VALUE" or "--opt=VALUE"); NULL when missing. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    const size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (strcmp(argv[*i], name) == 0 && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static int is_option(const char *arg, const char *name)
{
    const size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

int cmd_serve(int argc, char **argv)
{
    struct server_config cfg;
    server_config_init(&cfg);
    bool has_max_per_ip = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            (void)fputs(_(serve_help), stdout);
            return CLI_OK;
        }
        if (is_option(arg, "--listen")) {
            cfg.listen = option_value(argc, argv, &i, "--listen");
            if (!cfg.listen || !cfg.listen[0])
                return cli_usage_error("serve", "'--listen' needs HOST:PORT");
        } else if (is_option(arg, "--threads")) {
            const char *v = option_value(argc, argv, &i, "--threads");
            if (parse_unsigned(v, 1, SERVER_MAX_THREADS, &cfg.n_threads) != 0)
                return cli_usage_error("serve", "'--threads' must be an integer in 1..%d; got '%s'",
                                       SERVER_MAX_THREADS, v ? v : "");
        } else if (is_option(arg, "--timeout")) {
            const char *v = option_value(argc, argv, &i, "--timeout");
            if (parse_unsigned(v, 1, SERVER_MAX_TIMEOUT_S, &cfg.timeout_s) != 0)
                return cli_usage_error("serve", "'--timeout' must be seconds in 1..%d; got '%s'",
                                       SERVER_MAX_TIMEOUT_S, v ? v : "");
        } else if (is_option(arg, "--header-timeout")) {
            const char *v = option_value(argc, argv, &i, "--header-timeout");
            if (parse_unsigned(v, 1, SERVER_MAX_TIMEOUT_S, &cfg.header_timeout_s) != 0)
                return cli_usage_error("serve",
                                       "'--header-timeout' must be seconds in 1..%d; got '%s'",
                                       SERVER_MAX_TIMEOUT_S, v ? v : "");
        } else if (is_option(arg, "--body-timeout")) {
            const char *v = option_value(argc, argv, &i, "--body-timeout");
            if (parse_unsigned(v, 1, SERVER_MAX_TIMEOUT_S, &cfg.body_timeout_s) != 0)
                return cli_usage_error("serve",
                                       "'--body-timeout' must be seconds in 1..%d; got '%s'",
                                       SERVER_MAX_TIMEOUT_S, v ? v : "");
        } else if (is_option(arg, "--max-connections")) {
            const char *v = option_value(argc, argv, &i, "--max-connections");
            if (parse_unsigned(v, SERVER_MIN_MAX_CONNECTIONS, SERVER_MAX_MAX_CONNECTIONS,
                               &cfg.max_connections) != 0)
                return cli_usage_error(
                    "serve", "'--max-connections' must be an integer in %d..%d; got '%s'",
                    SERVER_MIN_MAX_CONNECTIONS, SERVER_MAX_MAX_CONNECTIONS, v ? v : "");
        } else if (is_option(arg, "--max-per-ip")) {
            const char *v = option_value(argc, argv, &i, "--max-per-ip");
            if (parse_unsigned(v, 1, SERVER_MAX_MAX_CONNECTIONS, &cfg.max_per_ip) != 0)
                return cli_usage_error("serve",
                                       "'--max-per-ip' must be an integer in 1..%d; got '%s'",
                                       SERVER_MAX_MAX_CONNECTIONS, v ? v : "");
            has_max_per_ip = true;
        } else if (is_option(arg, "--log-sample")) {
            const char *v = option_value(argc, argv, &i, "--log-sample");
            if (parse_unsigned(v, 0, SERVER_MAX_LOG_SAMPLE, &cfg.log_sample) != 0)
                return cli_usage_error("serve",
                                       "'--log-sample' must be an integer in 0..%d; got '%s'",
                                       SERVER_MAX_LOG_SAMPLE, v ? v : "");
        } else if (is_option(arg, "--cors")) {
            cfg.cors_origin = option_value(argc, argv, &i, "--cors");
            if (!server_cors_origin_is_valid(cfg.cors_origin))
                return cli_usage_error("serve",
                                       "'--cors' must be an origin such as "
                                       "https://example.org:8443, or *; got '%s'",
                                       cfg.cors_origin ? cfg.cors_origin : "");
        } else if (is_option(arg, "--catalog")) {
            cfg.catalog_dir = option_value(argc, argv, &i, "--catalog");
            if (!cfg.catalog_dir || !cfg.catalog_dir[0])
                return cli_usage_error("serve", "'--catalog' needs a directory");
        } else {
            return cli_usage_error("serve", "unknown option '%s'", arg);
        }
    }
    if (cfg.max_per_ip > cfg.max_connections) {
        if (has_max_per_ip)
            return cli_usage_error("serve",
                                   "'--max-per-ip' (%u) must not exceed '--max-connections' (%u)",
                                   cfg.max_per_ip, cfg.max_connections);
        cfg.max_per_ip = cfg.max_connections; /* a small --max-connections lowers the default */
    }
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
