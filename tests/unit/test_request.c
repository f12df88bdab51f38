/*
 * test_request.c - JSON request bodies to jobs (gpuplan_job_from_json) and
 * the JSON error document: good bodies set the same fields the CLI options
 * do; every error class reports its status and the JSON path of the field.
 */
#include "test_common.h"

#include "gpuplan/config.h"
#include "gpuplan/gpuplan.h"
#include "gpuplan/job.h"
#include "gpuplan/plan.h"
#include "gpuplan/request.h"

static enum gpuplan_status parse(const char *body,
                                 struct gpuplan_job *job,
                                 char *model,
                                 size_t model_size,
                                 struct gpuplan_error *err)
{
    gpuplan_job_init(job);
    gpuplan_error_init(err);
    return gpuplan_job_from_json(job, body, strlen(body), model, model_size, err);
}

static void test_good_body_sets_fields(void **state)
{
    (void)state;
    struct gpuplan_job job;
    struct gpuplan_error err;
    char model[GPUPLAN_REQUEST_MODEL_MAX] = "";
    const char *body = "{\"model\": \"llama-3.1-8b\", \"method\": \"qlora\", \"seq_len\": 4096,"
                       " \"micro_batch\": \"8k\", \"lora_rank\": 16, \"lora_alpha\": 32.5,"
                       " \"gpu\": \"h100-sxm:8\", \"gpu_memory_utilization\": 0.85,"
                       " \"act_offload\": true, \"chunked_ce\": false, \"tokens\": 7e9,"
                       " \"epochs\": 2, \"grad_ckpt\": null}";
    assert_int_equal(parse(body, &job, model, sizeof model, &err), GPUPLAN_OK);
    assert_string_equal(model, "llama-3.1-8b");
    assert_int_equal(job.method, GPUPLAN_METHOD_QLORA);
    assert_int_equal(job.seq_len, 4096);
    assert_int_equal(job.micro_batch, 8000);
    assert_int_equal(job.lora_rank, 16);
    assert_true(job.lora_alpha == 32.5);
    assert_string_equal(job.gpu_id, "h100-sxm");
    assert_int_equal(job.gpus_per_node, 8);
    assert_true(job.gpu_memory_utilization == 0.85);
    assert_true(job.act_offload);
    assert_false(job.chunked_ce);
    assert_int_equal(job.tokens, 7000000000ULL);
    assert_true(job.epochs == 2.0);
    /* null keeps the default */
    assert_false(job.grad_ckpt_set);
    assert_int_equal(err.code, GPUPLAN_OK);
}

static void test_body_equals_cli_options(void **state)
{
    (void)state;
    /* The same options through gpuplan_job_set (the CLI path) give the same job. */
    struct gpuplan_job from_json;
    struct gpuplan_job from_cli;
    struct gpuplan_error err;
    const char *body = "{\"method\":\"lora\",\"seq_len\":1024,\"optimizer\":\"adamw-8bit\","
                       "\"lora_targets\":\"all-linear\",\"sharding\":\"fsdp\",\"nodes\":2}";
    assert_int_equal(parse(body, &from_json, NULL, 0, &err), GPUPLAN_OK);
    gpuplan_job_init(&from_cli);
    static const char *const argv[][2] = {
        { "method", "lora" },          { "seq-len", "1024" },
        { "optimizer", "adamw-8bit" }, { "lora-targets", "all-linear" },
        { "sharding", "fsdp" },        { "nodes", "2" },
    };
    for (size_t i = 0; i < sizeof argv / sizeof argv[0]; i++)
        assert_int_equal(gpuplan_job_set(&from_cli, argv[i][0], argv[i][1], &err), GPUPLAN_OK);
    assert_memory_equal(&from_json, &from_cli, sizeof from_json);
}

static void test_empty_object_keeps_defaults(void **state)
{
    (void)state;
    struct gpuplan_job job;
    struct gpuplan_job defaults;
    struct gpuplan_error err;
    char model[8] = "unset";
    assert_int_equal(parse("{}", &job, model, sizeof model, &err), GPUPLAN_OK);
    gpuplan_job_init(&defaults);
    assert_memory_equal(&job, &defaults, sizeof job);
    assert_string_equal(model, "unset");
}

/* Every error class: status, JSON path in err->where, a word of the message. */
static void test_error_classes(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        enum gpuplan_status status;
        const char *where;   /* exact, or prefix when ending in '*' */
        const char *message; /* substring */
        const char *hint;    /* substring, or NULL */
    } rows[] = {
        /* malformed JSON: line:column */
        { "{\"seq_len\": ", GPUPLAN_ERR_INVALID_INPUT, "body:1:*", "invalid JSON", NULL },
        { "", GPUPLAN_ERR_INVALID_INPUT, "body", "empty input", NULL },
        { "{\"a\":1,\"a\":2}", GPUPLAN_ERR_INVALID_INPUT, "body:*", "invalid JSON", NULL },
        { "{\"seq_len\": NaN}", GPUPLAN_ERR_INVALID_INPUT, "body:*", "invalid JSON", NULL },
        { "[1,2]", GPUPLAN_ERR_INVALID_INPUT, "body", "JSON object", NULL },
        { "\"text\"", GPUPLAN_ERR_INVALID_INPUT, "body", "JSON object", NULL },
        { "{\"model\":\"x\"} trailing", GPUPLAN_ERR_INVALID_INPUT, "body:*", "invalid JSON", NULL },
        /* unknown fields, with suggestions */
        { "{\"seq_lne\": 4096}", GPUPLAN_ERR_USAGE, "$.seq_lne", "unknown field 'seq_lne'",
          "did you mean 'seq_len'" },
        { "{\"seq-len\": 4096}", GPUPLAN_ERR_USAGE, "$[\"seq-len\"]", "unknown field",
          "'seq_len'" },
        { "{\"mdoel\": \"x\"}", GPUPLAN_ERR_USAGE, "$.mdoel", "unknown field", "'model'" },
        { "{\"zzzzzzzzzzzz\": 1}", GPUPLAN_ERR_USAGE, "$.zzzzzzzzzzzz", "unknown field", "'_'" },
        /* wrong types (jansson rejects \u0000 without JSON_ALLOW_NUL) */
        { "{\"seq_len\": [4096]}", GPUPLAN_ERR_USAGE, "$.seq_len", "got an array", NULL },
        { "{\"method\": {\"name\": \"lora\"}}", GPUPLAN_ERR_USAGE, "$.method", "got an object",
          NULL },
        { "{\"model\": 7}", GPUPLAN_ERR_USAGE, "$.model", "must be a string", NULL },
        { "{\"model\": \"\"}", GPUPLAN_ERR_USAGE, "$.model", "is empty", NULL },
        { "{\"seq_len\": true}", GPUPLAN_ERR_USAGE, "$.seq_len", "seq-len", NULL },
        { "{\"seq_len\": 1.5}", GPUPLAN_ERR_USAGE, "$.seq_len", "seq-len", NULL },
        { "{\"model\": \"a\\u0000b\"}", GPUPLAN_ERR_INVALID_INPUT, "body:1:*", "invalid JSON",
          NULL },
        { "{\"method\": \"lo\\u0000ra\"}", GPUPLAN_ERR_INVALID_INPUT, "body:1:*", "invalid JSON",
          NULL },
        /* values out of range or not a choice: the option's own message */
        { "{\"seq_len\": 0}", GPUPLAN_ERR_USAGE, "$.seq_len", "seq-len", NULL },
        { "{\"seq_len\": -5}", GPUPLAN_ERR_USAGE, "$.seq_len", "seq-len", NULL },
        { "{\"seq_len\": 1e300}", GPUPLAN_ERR_USAGE, "$.seq_len", "seq-len", NULL },
        { "{\"method\": \"lroa\"}", GPUPLAN_ERR_USAGE, "$.method", "method", NULL },
        { "{\"gpu_memory_utilization\": 1.5}", GPUPLAN_ERR_USAGE, "$.gpu_memory_utilization",
          "gpu-memory-utilization", NULL },
        { "{\"act_offload\": \"maybe\"}", GPUPLAN_ERR_USAGE, "$.act_offload", "act-offload", NULL },
        /* the first bad field in document order is the one reported */
        { "{\"seq_len\": 8, \"tp\": 0, \"pp\": 0}", GPUPLAN_ERR_USAGE, "$.tp", "tp", NULL },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gpuplan_job job;
        struct gpuplan_error err;
        char model[GPUPLAN_REQUEST_MODEL_MAX] = "";
        const enum gpuplan_status st = parse(rows[i].body, &job, model, sizeof model, &err);
        if (st != rows[i].status || err.code != rows[i].status)
            fail_msg("row %zu '%s': status %d (%s), want %d", i, rows[i].body, st, err.message,
                     rows[i].status);
        const size_t n = strlen(rows[i].where);
        const bool prefix = n > 0 && rows[i].where[n - 1] == '*';
        if (prefix ? strncmp(err.where, rows[i].where, n - 1) != 0
                   : strcmp(err.where, rows[i].where) != 0)
            fail_msg("row %zu '%s': where '%s', want '%s'", i, rows[i].body, err.where,
                     rows[i].where);
        if (!strstr(err.message, rows[i].message))
            fail_msg("row %zu '%s': message '%s' lacks '%s'", i, rows[i].body, err.message,
                     rows[i].message);
        if (rows[i].hint && !strstr(err.hint, rows[i].hint))
            fail_msg("row %zu '%s': hint '%s' lacks '%s'", i, rows[i].body, err.hint, rows[i].hint);
    }
}

static void test_model_key_without_model_slot(void **state)
{
    (void)state;
    struct gpuplan_job job;
    struct gpuplan_error err;
    assert_int_equal(parse("{\"model\": \"x\"}", &job, NULL, 0, &err), GPUPLAN_ERR_USAGE);
    assert_string_equal(err.where, "$.model");
    char small[4] = "";
    assert_int_equal(parse("{\"model\": \"abcd\"}", &job, small, sizeof small, &err),
                     GPUPLAN_ERR_USAGE);
    assert_non_null(strstr(err.message, "limit is 3"));
}

static void test_body_limit(void **state)
{
    (void)state;
    const size_t len = GPUPLAN_REQUEST_MAX_BODY_BYTES + 1;
    char *body = malloc(len);
    assert_non_null(body);
    memset(body, ' ', len);
    body[0] = '{';
    body[len - 1] = '}';
    struct gpuplan_job job;
    struct gpuplan_error err;
    gpuplan_job_init(&job);
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_from_json(&job, body, len, NULL, 0, &err), GPUPLAN_ERR_TOO_LARGE);
    assert_int_equal(gpuplan_status_http(err.code), 413);
    /* one byte short of the closing brace: read, and rejected as malformed */
    assert_int_equal(gpuplan_job_from_json(&job, body, len - 1 - 1, NULL, 0, &err),
                     GPUPLAN_ERR_INVALID_INPUT); /* truncated: no closing brace */
    /* exactly at the limit is accepted */
    body[len - 2] = '}';
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_from_json(&job, body, len - 1, NULL, 0, &err), GPUPLAN_OK);
    free(body);
}

static void test_real_values_round_trip(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        double want;
    } rows[] = {
        { "{\"epochs\": 0.1}", 0.1 },
        { "{\"epochs\": 3}", 3.0 },
        { "{\"epochs\": 1.0000000000000002}", 1.0000000000000002 },
        { "{\"epochs\": 123456.789}", 123456.789 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gpuplan_job job;
        struct gpuplan_error err;
        assert_int_equal(parse(rows[i].body, &job, NULL, 0, &err), GPUPLAN_OK);
        assert_true(job.epochs == rows[i].want);
    }
}

/* "from": config files as text; the other members override them; bad entries with their path. */
static void test_from_member(void **state)
{
    (void)state;
    static const char body[] =
        "{\"micro_batch\": 3, \"from\": [{\"kind\": \"axolotl\", \"name\": \"a.yml\", "
        "\"text\": \"base_model: meta-llama/Llama-3.1-8B\\nadapter: qlora\\nload_in_4bit: "
        "true\\nmicro_batch_size: 2\\nsequence_len: 4096\\n\"}]}";
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    char model[GPUPLAN_REQUEST_MODEL_MAX] = "";
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(
        gpuplan_job_from_json_config(&job, body, sizeof body - 1, model, sizeof model, &cfg, &err),
        GPUPLAN_OK);
    assert_string_equal(model, "meta-llama/Llama-3.1-8B");
    assert_int_equal(job.method, GPUPLAN_METHOD_QLORA);
    assert_int_equal(job.seq_len, 4096);
    assert_int_equal(job.micro_batch, 3); /* the member over the file */
    assert_int_equal(cfg.n_files, 1);
    gpuplan_config_release(&cfg);
    static const char bad[] = "{\"from\": [{\"kind\": \"megatron\", \"text\": \"a: 1\"}]}";
    gpuplan_job_init(&job);
    gpuplan_config_init(&cfg);
    gpuplan_error_init(&err);
    assert_int_equal(
        gpuplan_job_from_json_config(&job, bad, sizeof bad - 1, model, sizeof model, &cfg, &err),
        GPUPLAN_ERR_USAGE);
    assert_string_equal(err.where, "$.from[0]");
    gpuplan_config_release(&cfg);
    /* without a config record "from" is an unknown field */
    gpuplan_job_init(&job);
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_from_json(&job, body, sizeof body - 1, model, sizeof model, &err),
                     GPUPLAN_ERR_USAGE);
}

static void test_error_json(void **state)
{
    (void)state;
    static const struct {
        enum gpuplan_status code;
        const char *where;
        const char *message;
        const char *hint;
        const char *want;
    } rows[] = {
        { GPUPLAN_ERR_NOT_FOUND, "$.model", "unknown model 'x'", "did you mean 'y'?",
          "{\"error\":{\"code\":\"not_found\",\"message\":\"unknown model 'x'\","
          "\"hint\":\"did you mean 'y'?\",\"where\":\"$.model\"}}\n" },
        { GPUPLAN_ERR_USAGE, "", "quote \" backslash \\ tab \t nl \n ctl \x01", "",
          "{\"error\":{\"code\":\"usage\",\"message\":\"quote \\\" backslash \\\\ tab \\t nl "
          "\\n ctl \\u0001\",\"hint\":\"\",\"where\":\"\"}}\n" },
        /* a message cut inside a UTF-8 sequence stays valid JSON */
        { GPUPLAN_ERR_TOO_LARGE, "body", "caf\xc3\xa9 \xc3", "\xff",
          "{\"error\":{\"code\":\"too_large\",\"message\":\"caf\xc3\xa9 \\ufffd\","
          "\"hint\":\"\\ufffd\",\"where\":\"body\"}}\n" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        gpuplan_error_set(&err, rows[i].code, rows[i].where, "%s", rows[i].message);
        gpuplan_error_hint(&err, "%s", rows[i].hint);
        struct gpuplan_buf buf;
        gpuplan_buf_init(&buf, 0);
        gpuplan_render_error_json(&err, &buf);
        assert_int_equal(buf.failed, GPUPLAN_OK);
        assert_string_equal(gpuplan_buf_str(&buf), rows[i].want);
        gpuplan_buf_release(&buf);
    }
}

/*
 * POST /v1/recommend reads the planner's table next to the job's: the
 * command line's ranges and messages (--top is 1..16, the planner's limit),
 * knobs a job field fixes, the searched options refused.
 */
static void test_plan_body_uses_the_tables(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        enum gpuplan_status want;
        const char *where;   /* on error */
        const char *message; /* substring, on error */
    } rows[] = {
        { "{\"top\": 16, \"max_gpus\": 8, \"on_prem\": true}", GPUPLAN_OK, NULL, NULL },
        { "{\"top\": 17}", GPUPLAN_ERR_USAGE, "$.top",
          "'--top' is '17'; must be an integer in 1..16" },
        { "{\"top\": 2.5}", GPUPLAN_ERR_USAGE, "$.top", "'--top' is '2.5'" },
        { "{\"objective\": \"fast\"}", GPUPLAN_ERR_USAGE, "$.objective", "must be one of" },
        { "{\"on_prem\": 1}", GPUPLAN_ERR_USAGE, "$.on_prem", "must be true or false" },
        { "{\"nodes\": 2}", GPUPLAN_ERR_USAGE, "$.nodes", "searched by the planner" },
        { "{\"format\": \"json\"}", GPUPLAN_ERR_USAGE, "$.format", "unknown field" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gpuplan_plan_request req;
        gpuplan_plan_request_init(&req);
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        const enum gpuplan_status st =
            gpuplan_plan_request_from_json(&req, rows[i].body, strlen(rows[i].body), NULL, 0, &err);
        if (st != rows[i].want)
            fail_msg("%s: status %d, want %d (%s)", rows[i].body, st, rows[i].want, err.message);
        if (st == GPUPLAN_OK) {
            assert_int_equal(req.top_k, 16);
            assert_int_equal(req.max_gpus, 8);
            assert_int_equal(req.where, GPUPLAN_WHERE_ON_PREM);
            continue;
        }
        assert_string_equal(err.where, rows[i].where);
        if (!strstr(err.message, rows[i].message))
            fail_msg("%s: message '%s' lacks '%s'", rows[i].body, err.message, rows[i].message);
    }
    /* a job field fixes its knob; the others stay searched */
    struct gpuplan_plan_request req;
    gpuplan_plan_request_init(&req);
    const char *body = "{\"method\": \"lora\", \"seq_len\": 4096}";
    assert_int_equal(gpuplan_plan_request_from_json(&req, body, strlen(body), NULL, 0, NULL),
                     GPUPLAN_OK);
    assert_true(req.method_fixed);
    assert_false(req.precision_fixed || req.micro_batch_fixed || req.sharding_fixed);
    assert_int_equal(req.job.seq_len, 4096);
}

static void test_web_page_is_embedded(void **state)
{
    (void)state;
    const char *bytes = NULL;
    size_t len = 0;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_web_page(&bytes, &len, &err), GPUPLAN_OK);
    assert_true(len > 100);
    assert_non_null(strstr(bytes, "<title>"));
    /*
     * Self-contained: no absolute URL at all, except XML namespace names
     * (http://www.w3.org/2000/svg), which identify a vocabulary and are never
     * fetched.
     */
    for (const char *p = bytes; (p = strstr(p, "http")) != NULL; p += 4) {
        if (strncmp(p, "http://", 7) != 0 && strncmp(p, "https://", 8) != 0)
            continue;
        if (strncmp(p, "http://www.w3.org/", 18) == 0)
            continue;
        fail_msg("external URL in the page: %.40s", p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_body_sets_fields),
        cmocka_unit_test(test_body_equals_cli_options),
        cmocka_unit_test(test_empty_object_keeps_defaults),
        cmocka_unit_test(test_error_classes),
        cmocka_unit_test(test_model_key_without_model_slot),
        cmocka_unit_test(test_body_limit),
        cmocka_unit_test(test_real_values_round_trip),
        cmocka_unit_test(test_from_member),
        cmocka_unit_test(test_error_json),
        cmocka_unit_test(test_plan_body_uses_the_tables),
        cmocka_unit_test(test_web_page_is_embedded),
    };
    return cmocka_run_group_tests_name("request", tests, NULL, NULL);
}
