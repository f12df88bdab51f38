/*
 * test_hostile.c - hostile inputs beyond fuzzing (docs/reliability.md).
 *
 * Each case feeds one kind of input an attacker or a broken download could
 * produce to the parser or entry point that takes it, and checks that the
 * answer is a filled error (or a finite, bounded result), never a crash,
 * hang, overflow or silent garbage: numbers past 2^64, NaN and infinity in
 * JSON, 10^6-deep nesting, 1 GB header lengths, duplicate keys, non-UTF-8
 * names, symlinks and special files as model paths (a FIFO must not block),
 * enormous --seq-len / --micro-batch, catalogs claiming 0 or 10^20 bytes.
 * Run under ASan+UBSan by `make check SAN=1` and under valgrind by
 * tests/suites/valgrind.sh's long form.
 */
#include "test_common.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog_internal.h"
#include "formats/gguf_internal.h"
#include "formats/safetensors_internal.h"
#include "gpuplan/cost.h"
#include "gpuplan/estimate.h"
#include "gpuplan/gpuplan.h"
#include "gpuplan/job.h"
#include "gpuplan/request.h"
#include "gpuplan/units.h"
#include "util/json_internal.h"

/* An error must be filled: code, lowercase message, NUL-terminated. */
static void
assert_error(enum gpuplan_status st, enum gpuplan_status want, const struct gpuplan_error *err)
{
    assert_int_equal(st, want);
    assert_int_equal(err->code, want);
    assert_true(err->message[0] != '\0');
    assert_non_null(memchr(err->message, '\0', sizeof err->message));
    assert_non_null(memchr(err->hint, '\0', sizeof err->hint));
}

static enum gpuplan_status parse_json_text(const char *text, struct gpuplan_error *err)
{
    json_t *root = NULL;
    gpuplan_error_init(err);
    const enum gpuplan_status st =
        gpuplan_json_parse((const uint8_t *)text, strlen(text), "t.json", true, &root, err);
    json_decref(root);
    return st;
}

static enum gpuplan_status hf_config(const char *text, struct gpuplan_error *err)
{
    struct gpuplan_model model;
    gpuplan_model_init(&model);
    gpuplan_error_init(err);
    const enum gpuplan_status st = gpuplan_model_from_hf_config(&model, (const uint8_t *)text,
                                                                strlen(text), "config.json", err);
    gpuplan_model_release(&model);
    return st;
}

/* A minimal Llama config with one field replaced by `field_json` ("\"hidden_size\": X"). */
static char *llama_config_with(const char *field_json)
{
    static const char base[] =
        "{\"architectures\": [\"LlamaForCausalLM\"], \"model_type\": \"llama\", "
        "\"vocab_size\": 32000, \"num_hidden_layers\": 2, \"num_attention_heads\": 4, "
        "\"num_key_value_heads\": 4, \"intermediate_size\": 256, \"max_position_embeddings\": "
        "2048, \"tie_word_embeddings\": false, %s}";
    const size_t n = sizeof base + strlen(field_json);
    char *text = malloc(n);
    assert_non_null(text);
    snprintf(text, n, base, field_json);
    return text;
}

/* ---- numbers past 64 bits -------------------------------------------------------------------- */

static void test_hf_config_overflowing_numbers(void **state)
{
    (void)state;
    static const char *const fields[] = {
        "\"hidden_size\": 18446744073709551616", /* 2^64 */
        "\"hidden_size\": 99999999999999999999999999999",
        "\"hidden_size\": 1e30",
        "\"hidden_size\": -64",
        "\"hidden_size\": 4294967296", /* 2^32: products overflow 64 bits with the vocab */
        "\"hidden_size\": 64, \"vocab_size\": 9223372036854775807",
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        char *text = llama_config_with(fields[i]);
        struct gpuplan_error err;
        const enum gpuplan_status st = hf_config(text, &err);
        if (st != GPUPLAN_OK) {
            assert_true(err.message[0] != '\0');
            assert_true(err.where[0] != '\0');
        }
        /* Every one of these is out of any real model's range: refused. */
        assert_int_not_equal(st, GPUPLAN_OK);
        free(text);
    }
    /* The control: the same config with a sane width loads. */
    char *text = llama_config_with("\"hidden_size\": 64");
    struct gpuplan_error err;
    assert_int_equal(hf_config(text, &err), GPUPLAN_OK);
    free(text);
}

static void test_request_overflowing_numbers(void **state)
{
    (void)state;
    static const char *const bodies[] = {
        "{\"seq_len\": 18446744073709551616}",
        "{\"seq_len\": 1e300}",
        "{\"micro_batch\": 9223372036854775807}",
        "{\"seq_len\": -1}",
        "{\"lora_rank\": 4294967297}",
        "{\"seq_len\": \"99999999999999999999k\"}",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        struct gpuplan_job job;
        gpuplan_job_init(&job);
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        char model[GPUPLAN_REQUEST_MODEL_MAX] = "";
        const enum gpuplan_status st =
            gpuplan_job_from_json(&job, bodies[i], strlen(bodies[i]), model, sizeof model, &err);
        assert_int_not_equal(st, GPUPLAN_OK);
        assert_true(err.message[0] != '\0');
    }
}

/* ---- NaN and infinity --------------------------------------------------------------------------
 */

static void test_json_nan_infinity(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "{\"x\": NaN}", "{\"x\": nan}",   "{\"x\": Infinity}", "{\"x\": -Infinity}",
        "{\"x\": inf}", "{\"x\": 1e999}", "{\"x\": -1e999}",   "{\"x\": 0x10}",
        "{\"x\": 01}",  "{\"x\": .5}",    "{\"x\": +1}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        struct gpuplan_error err;
        assert_error(parse_json_text(texts[i], &err), GPUPLAN_ERR_INVALID_INPUT, &err);
    }
    /* A request body with the same values is refused the same way. */
    static const char body[] = "{\"lora_alpha\": 1e999}";
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_not_equal(gpuplan_job_from_json(&job, body, strlen(body), NULL, 0, &err),
                         GPUPLAN_OK);
    /* And as option text: "nan" and "inf" are not finite reals. */
    gpuplan_job_init(&job);
    gpuplan_error_init(&err);
    assert_error(gpuplan_job_set(&job, "lora-alpha", "nan", &err), GPUPLAN_ERR_USAGE, &err);
    gpuplan_error_init(&err);
    assert_error(gpuplan_job_set(&job, "epochs", "inf", &err), GPUPLAN_ERR_USAGE, &err);
    gpuplan_error_init(&err);
    assert_error(gpuplan_job_set(&job, "gpu-memory-utilization", "NaN", &err), GPUPLAN_ERR_USAGE,
                 &err);
}

static void test_tco_nan_infinity(void **state)
{
    (void)state;
    static const char *const bodies[] = {
        "{\"gpu\": \"h100-sxm:8\", \"pue\": \"nan\"}",
        "{\"gpu\": \"h100-sxm:8\", \"power_price\": \"inf\"}",
        "{\"gpu\": \"h100-sxm:8\", \"gpu_price\": 1e999}",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        struct gpuplan_tco_request req;
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        assert_int_not_equal(
            gpuplan_tco_request_from_json(&req, bodies[i], strlen(bodies[i]), &err), GPUPLAN_OK);
        assert_true(err.message[0] != '\0');
    }
    /* Huge but finite: parsed, then refused by the range check with the path. */
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_catalog_load(&catalog, NULL, &err), GPUPLAN_OK);
    static const char body[] = "{\"gpu\": \"h100-sxm:8\", \"gpu_price\": 1e308}";
    struct gpuplan_tco_request req;
    assert_int_equal(gpuplan_tco_request_from_json(&req, body, strlen(body), &err), GPUPLAN_OK);
    struct gpuplan_tco *tco = malloc(sizeof *tco);
    assert_non_null(tco);
    struct gpuplan_cost_inputs in;
    const enum gpuplan_status st = gpuplan_tco_request_run(catalog, &req, &in, tco, &err);
    if (st == GPUPLAN_OK) {
        assert_true(isfinite(tco->capex_usd) && isfinite(tco->monthly_own_usd));
    } else {
        assert_string_equal(err.where, "$.gpu_price");
    }
    free(tco);
    gpuplan_catalog_free(catalog);
}

/* ---- deep nesting
 * -------------------------------------------------------------------------------- */

/* {"a":[[[...]]]} with `depth` brackets, heap-allocated. */
static char *deep_arrays(size_t depth)
{
    char *text = malloc(2 * depth + 16);
    assert_non_null(text);
    memcpy(text, "{\"a\":", 5);
    size_t n = 5;
    for (size_t i = 0; i < depth; i++)
        text[n++] = '[';
    for (size_t i = 0; i < depth; i++)
        text[n++] = ']';
    text[n++] = '}';
    text[n] = '\0';
    return text;
}

static void test_million_deep_nesting(void **state)
{
    (void)state;
    const size_t depth = 1000000;
    char *arrays = deep_arrays(depth);
    struct gpuplan_error err;
    assert_error(parse_json_text(arrays, &err), GPUPLAN_ERR_INVALID_INPUT, &err);
    assert_error(hf_config(arrays, &err), GPUPLAN_ERR_INVALID_INPUT, &err);
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    gpuplan_error_init(&err);
    assert_int_not_equal(gpuplan_job_from_json(&job, arrays, strlen(arrays), NULL, 0, &err),
                         GPUPLAN_OK);
    free(arrays);

    char *objects = malloc(6 * depth + 16);
    assert_non_null(objects);
    size_t n = 0;
    for (size_t i = 0; i < depth; i++) {
        memcpy(objects + n, "{\"a\":", 5);
        n += 5;
    }
    objects[n++] = '0';
    for (size_t i = 0; i < depth; i++)
        objects[n++] = '}';
    objects[n] = '\0';
    assert_error(parse_json_text(objects, &err), GPUPLAN_ERR_INVALID_INPUT, &err);
    /* Bigger than a request body may be: refused before parsing. */
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_job_from_json(&job, objects, n, NULL, 0, &err), GPUPLAN_ERR_TOO_LARGE);
    free(objects);

    /* The same depth as a catalog file. */
    char *catalog_text = deep_arrays(depth);
    const struct gpuplan_catalog_file file = { .name = "gpus.json",
                                               .where = NULL,
                                               .data = (const uint8_t *)catalog_text,
                                               .len = strlen(catalog_text) };
    struct gpuplan_catalog *catalog = NULL;
    gpuplan_error_init(&err);
    assert_int_not_equal(gpuplan_catalog_load_buffers(&catalog, &file, 1, &err), GPUPLAN_OK);
    assert_null(catalog);
    free(catalog_text);
}

/* ---- duplicate keys, non-UTF-8
 * ------------------------------------------------------------------- */

static void test_duplicate_keys(void **state)
{
    (void)state;
    struct gpuplan_error err;
    assert_error(parse_json_text("{\"a\": 1, \"a\": 2}", &err), GPUPLAN_ERR_INVALID_INPUT, &err);
    char *text = llama_config_with("\"hidden_size\": 64, \"hidden_size\": 4096");
    assert_int_not_equal(hf_config(text, &err), GPUPLAN_OK);
    free(text);
    static const char body[] = "{\"seq_len\": 1024, \"seq_len\": 4096}";
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    gpuplan_error_init(&err);
    assert_int_not_equal(gpuplan_job_from_json(&job, body, strlen(body), NULL, 0, &err),
                         GPUPLAN_OK);
}

static void test_non_utf8(void **state)
{
    (void)state;
    struct gpuplan_error err;
    /* Invalid UTF-8 in a key and in a value; an overlong NUL; a lone surrogate escape. */
    assert_error(parse_json_text("{\"\xff\xfe\": 1}", &err), GPUPLAN_ERR_INVALID_INPUT, &err);
    assert_error(parse_json_text("{\"a\": \"\xc0\x80\"}", &err), GPUPLAN_ERR_INVALID_INPUT, &err);
    const enum gpuplan_status st = parse_json_text("{\"a\": \"\\ud800\"}", &err);
    assert_int_equal(st, GPUPLAN_ERR_INVALID_INPUT);

    /* A safetensors header whose tensor name is not UTF-8. */
    static const char header[] =
        "{\"\xff\xfe.weight\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,8]}}";
    const size_t n = strlen(header);
    uint8_t *file = calloc(1, 8 + n + 8);
    assert_non_null(file);
    for (int i = 0; i < 8; i++)
        file[i] = (uint8_t)((uint64_t)n >> (8 * i));
    memcpy(file + 8, header, n);
    struct gpuplan_st_header parsed;
    gpuplan_error_init(&err);
    assert_error(
        gpuplan_st_header_parse(file, 8 + n + 8, 8 + n + 8, "x.safetensors", &parsed, &err),
        GPUPLAN_ERR_INVALID_INPUT, &err);
    gpuplan_st_header_release(&parsed);
    free(file);

    /* A request body naming a model with invalid UTF-8. */
    static const char body[] = "{\"model\": \"llama\xff\"}";
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    char model[GPUPLAN_REQUEST_MODEL_MAX] = "";
    gpuplan_error_init(&err);
    assert_error(gpuplan_job_from_json(&job, body, strlen(body), model, sizeof model, &err),
                 GPUPLAN_ERR_INVALID_INPUT, &err);
    assert_string_equal(model, "");
}

/* ---- 1 GB header lengths -----------------------------------------------------------------------
 */

static void test_safetensors_gigabyte_header_length(void **state)
{
    (void)state;
    /* N = 1 GiB in a 64-byte file: refused from the size check, nothing allocated. */
    uint8_t file[64];
    memset(file, ' ', sizeof file);
    const uint64_t n = 1ULL << 30;
    for (int i = 0; i < 8; i++)
        file[i] = (uint8_t)(n >> (8 * i));
    file[8] = '{';
    uint64_t total = 0;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_error(
        gpuplan_st_header_size(file, sizeof file, sizeof file, "x.safetensors", &total, &err),
        GPUPLAN_ERR_TOO_LARGE, &err);
    /* Even when the file claims to be 2 GiB long, N past the 100 MB cap is refused. */
    gpuplan_error_init(&err);
    assert_int_not_equal(
        gpuplan_st_header_size(file, sizeof file, 2ULL << 30, "x.safetensors", &total, &err),
        GPUPLAN_OK);
    /* N = 2^64 - 1: the 8 + N sum must not wrap. */
    memset(file, 0xff, 8);
    gpuplan_error_init(&err);
    assert_int_not_equal(
        gpuplan_st_header_size(file, sizeof file, 0, "x.safetensors", &total, &err), GPUPLAN_OK);
    struct gpuplan_st_header parsed;
    gpuplan_error_init(&err);
    assert_int_not_equal(
        gpuplan_st_header_parse(file, sizeof file, 0, "x.safetensors", &parsed, &err), GPUPLAN_OK);
    gpuplan_st_header_release(&parsed);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void test_gguf_gigabyte_lengths(void **state)
{
    (void)state;
    /* GGUF v3: magic, version, n_tensors, n_kv, then one kv whose key length is 1 GB. */
    uint8_t file[128];
    memset(file, 0, sizeof file);
    memcpy(file, "GGUF", 4);
    put_u32(file + 4, 3);
    put_u64(file + 8, 1);           /* one tensor */
    put_u64(file + 16, 1);          /* one kv */
    put_u64(file + 24, 1ULL << 30); /* key length: 1 GiB */
    struct gpuplan_gguf gguf;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_not_equal(gpuplan_gguf_parse(file, sizeof file, sizeof file, "x.gguf", &gguf, &err),
                         GPUPLAN_OK);
    gpuplan_gguf_release(&gguf);
    /* 2^62 tensors and 2^62 kv pairs in a 128-byte file. */
    put_u64(file + 8, 1ULL << 62);
    put_u64(file + 16, 1ULL << 62);
    gpuplan_error_init(&err);
    assert_int_not_equal(gpuplan_gguf_parse(file, sizeof file, sizeof file, "x.gguf", &gguf, &err),
                         GPUPLAN_OK);
    assert_true(err.message[0] != '\0');
    gpuplan_gguf_release(&gguf);
    /* Through the inventory builder as well. */
    struct gpuplan_model model;
    gpuplan_model_init(&model);
    gpuplan_error_init(&err);
    assert_int_not_equal(
        gpuplan_model_from_gguf(&model, file, sizeof file, sizeof file, "x.gguf", &err),
        GPUPLAN_OK);
    gpuplan_model_release(&model);
}

/* ---- special files and symlinks as model paths
 * --------------------------------------------------- */

static char tmpdir[256];

static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gpuplan-hostile-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    (void)state;
    static const char *const names[] = { "fifo",        "loop-a",          "loop-b",
                                         "dangling",    "to-fifo",         "link.json",
                                         "config.json", "dir/config.json", "dir" };
    char path[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        (void)unlink(path);
        (void)rmdir(path);
    }
    return rmdir(tmpdir);
}

static void on_alarm(int sig)
{
    (void)sig;
    /* A blocked open() of a FIFO would land here: the test fails by dying. */
    static const char msg[] = "test_hostile: model load hung on a special file\n";
    (void)write(2, msg, sizeof msg - 1);
    _exit(3);
}

static enum gpuplan_status load_path(const char *rel, struct gpuplan_error *err)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    struct gpuplan_model model;
    gpuplan_model_init(&model);
    gpuplan_error_init(err);
    signal(SIGALRM, on_alarm);
    alarm(10);
    const enum gpuplan_status st = gpuplan_model_load(&model, path, NULL, err);
    alarm(0);
    gpuplan_model_release(&model);
    return st;
}

static void test_special_files_as_model_paths(void **state)
{
    (void)state;
    char path[512], target[512];
    snprintf(path, sizeof path, "%s/fifo", tmpdir);
    assert_int_equal(mkfifo(path, 0600), 0);
    struct gpuplan_error err;
    /* A FIFO with no writer: refused at once, never blocks. */
    assert_int_not_equal(load_path("fifo", &err), GPUPLAN_OK);
    assert_true(err.message[0] != '\0');
    /* A symlink to the FIFO, and one to /dev/zero (endless) and /dev/null (empty). */
    snprintf(path, sizeof path, "%s/to-fifo", tmpdir);
    snprintf(target, sizeof target, "%s/fifo", tmpdir);
    assert_int_equal(symlink(target, path), 0);
    assert_int_not_equal(load_path("to-fifo", &err), GPUPLAN_OK);
    /* A symlink loop and a dangling link. */
    snprintf(path, sizeof path, "%s/loop-a", tmpdir);
    snprintf(target, sizeof target, "%s/loop-b", tmpdir);
    assert_int_equal(symlink(target, path), 0);
    assert_int_equal(symlink(path, target), 0);
    assert_int_not_equal(load_path("loop-a", &err), GPUPLAN_OK);
    snprintf(path, sizeof path, "%s/dangling", tmpdir);
    assert_int_equal(symlink("/nonexistent/gpuplan/config.json", path), 0);
    assert_int_not_equal(load_path("dangling", &err), GPUPLAN_OK);
    /* Devices. */
    struct gpuplan_model model;
    static const char *const devices[] = { "/dev/zero", "/dev/null", "/dev/urandom",
                                           "/proc/self/mem" };
    for (size_t i = 0; i < sizeof devices / sizeof devices[0]; i++) {
        gpuplan_model_init(&model);
        gpuplan_error_init(&err);
        signal(SIGALRM, on_alarm);
        alarm(10);
        assert_int_not_equal(gpuplan_model_load(&model, devices[i], NULL, &err), GPUPLAN_OK);
        alarm(0);
        assert_true(err.message[0] != '\0');
        gpuplan_model_release(&model);
    }
    /* A symlink to a real config.json is followed (a model directory often is one). */
    snprintf(path, sizeof path, "%s/config.json", tmpdir);
    char *text = llama_config_with("\"hidden_size\": 64");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    free(text);
    snprintf(target, sizeof target, "%s/link.json", tmpdir);
    assert_int_equal(symlink(path, target), 0);
    assert_int_equal(load_path("link.json", &err), GPUPLAN_OK);
    /* A directory whose config.json is a FIFO: refused, no hang. */
    snprintf(path, sizeof path, "%s/dir", tmpdir);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(path, sizeof path, "%s/dir/config.json", tmpdir);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_not_equal(load_path("dir", &err), GPUPLAN_OK);
}

/* ---- enormous --seq-len / --micro-batch
 * ---------------------------------------------------------- */

/* The largest value the option table accepts for `name`, as decimal text. */
static void max_text(const char *name, char *out, size_t size)
{
    const struct gpuplan_option *o = gpuplan_options_find(gpuplan_job_options, name);
    if (!o)
        fail_msg("no option '%s'", name);
    snprintf(out, size, "%llu", (unsigned long long)o->count_max);
}

static void test_enormous_job_sizes(void **state)
{
    (void)state;
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_catalog_load(&catalog, NULL, &err), GPUPLAN_OK);
    struct gpuplan_model model;
    gpuplan_model_init(&model);
    assert_int_equal(gpuplan_model_load(&model, "llama-3.1-70b", catalog, &err), GPUPLAN_OK);
    const struct gpuplan_gpu *gpu = NULL;
    assert_int_equal(gpuplan_catalog_get_gpu(catalog, "h100-sxm", &gpu, &err), GPUPLAN_OK);

    /* Past the table's maximum: refused with the range in the message. */
    static const char *const too_big[][2] = {
        { "seq-len", "18446744073709551615" },
        { "seq-len", "1e30" },
        { "micro-batch", "1e30" },
        { "micro-batch", "18446744073709551616" },
        { "batch", "1T" },
        { "max-model-len", "99999999999999999999" },
        { "input-tokens", "1e30" },
        { "concurrency", "1T" },
        { "tp", "4294967296" },
        { "nodes", "1e12" },
    };
    for (size_t i = 0; i < sizeof too_big / sizeof too_big[0]; i++) {
        struct gpuplan_job job;
        gpuplan_job_init(&job);
        gpuplan_error_init(&err);
        const enum gpuplan_status st = gpuplan_job_set(&job, too_big[i][0], too_big[i][1], &err);
        assert_error(st, GPUPLAN_ERR_USAGE, &err);
    }

    /* At the table's maximum: estimated without overflow, finite, and not fitting. */
    static const char *const at_max[][2] = { { "seq-len", "micro-batch" },
                                             { "micro-batch", "grad-accum" } };
    for (size_t i = 0; i < sizeof at_max / sizeof at_max[0]; i++) {
        struct gpuplan_job job;
        gpuplan_job_init(&job);
        char a[32], b[32];
        max_text(at_max[i][0], a, sizeof a);
        max_text(at_max[i][1], b, sizeof b);
        gpuplan_error_init(&err);
        assert_int_equal(gpuplan_job_set(&job, at_max[i][0], a, &err), GPUPLAN_OK);
        assert_int_equal(gpuplan_job_set(&job, at_max[i][1], b, &err), GPUPLAN_OK);
        assert_int_equal(gpuplan_job_set(&job, "gpu", "h100-sxm:8", &err), GPUPLAN_OK);
        struct gpuplan_memory_report *report = calloc(1, sizeof *report);
        assert_non_null(report);
        const enum gpuplan_status st = gpuplan_estimate_memory(&model, &job, gpu, report, &err);
        if (st == GPUPLAN_OK) {
            assert_false(report->est.fits);
            /* Saturated, not wrapped: at least the weights' share. */
            assert_true(report->est.per_gpu.peak_allocated_bytes >
                        report->est.per_gpu.weights_bytes);
        } else {
            assert_true(err.message[0] != '\0');
        }
        free(report);
    }
    /* Serving at the maximum concurrency, lengths and max_model_len: the engine refuses
     * (a result), and the steady state says why it was not timed. */
    struct gpuplan_job job;
    gpuplan_job_init(&job);
    static const char *const serving_max[] = { "concurrency", "max-model-len", "input-tokens",
                                               "output-tokens", "max-num-batched-tokens" };
    assert_int_equal(gpuplan_job_set(&job, "method", "infer", &err), GPUPLAN_OK);
    for (size_t i = 0; i < sizeof serving_max / sizeof serving_max[0]; i++) {
        char a[32];
        max_text(serving_max[i], a, sizeof a);
        assert_int_equal(gpuplan_job_set(&job, serving_max[i], a, &err), GPUPLAN_OK);
    }
    struct gpuplan_estimate *estimate = calloc(1, sizeof *estimate);
    assert_non_null(estimate);
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_estimate_run(&model, &job, gpu, estimate, &err), GPUPLAN_OK);
    assert_false(estimate->memory.est.fits);
    assert_false(estimate->serving.has_time);
    assert_true(estimate->serving.time_error[0] != '\0');
    /* One that starts, at the maximum concurrency and lengths: the pool caps it, finite. */
    assert_int_equal(gpuplan_job_set(&job, "max-model-len", "8192", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&job, "input-tokens", "4096", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&job, "output-tokens", "4096", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&job, "max-num-batched-tokens", "8192", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_job_set(&job, "gpu", "h100-sxm:8", &err), GPUPLAN_OK);
    assert_int_equal(gpuplan_estimate_run(&model, &job, gpu, estimate, &err), GPUPLAN_OK);
    assert_true(estimate->memory.est.fits);
    assert_true(estimate->serving.has_time);
    assert_true(estimate->serving.steady.capped_by_kv);
    assert_true(isfinite(estimate->serving.steady.tpot_s) && estimate->serving.steady.tpot_s > 0);
    free(estimate);
    gpuplan_model_release(&model);
    gpuplan_catalog_free(catalog);
}

/* ---- catalog GPUs with 0 or 10^20 bytes
 * ---------------------------------------------------------- */

static enum gpuplan_status load_gpu_with_memory(const char *memory_gb, struct gpuplan_error *err)
{
    static const char fmt[] =
        "{\"schema_version\": 1, \"gpus\": [{\"id\": \"my-gpu\", \"vendor\": \"nvidia\", "
        "\"name\": \"My GPU\", \"architecture\": \"Hopper\", \"memory\": \"80 GB HBM3\", "
        "\"memory_gb\": %s, \"memory_bandwidth_gb_per_s\": 3350, \"bf16_tflops\": 989, "
        "\"fp16_tflops\": 989, \"fp8_tflops\": 1979, \"fp4_tflops\": null, \"tf32_tflops\": "
        "494.5, \"interconnect\": \"nvswitch\", \"link_gb_per_s\": 900, "
        "\"max_gpus_per_link_domain\": 8, \"pcie_gen\": 5, \"tdp_w\": 700, "
        "\"compute_capability\": \"9.0\", \"form_factor\": \"sxm\", \"platforms\": "
        "[\"hgx-h100-8\"], \"price_usd\": 30000, \"price_date\": \"2026-05\", "
        "\"price_source\": \"test\", \"cloud_rates\": [{\"tier\": \"specialty\", "
        "\"usd_per_gpu_hour\": 2.95, \"provider\": \"p\", \"date\": \"2026-05\", "
        "\"source\": \"test\"}], \"source\": \"test\", "
        "\"retrieved\": \"2026-11-29\", \"notes\": \"n\"}]}";
    char text[2048];
    snprintf(text, sizeof text, fmt, memory_gb);
    const struct gpuplan_catalog_file file = {
        .name = "gpus.json", .where = NULL, .data = (const uint8_t *)text, .len = strlen(text)
    };
    struct gpuplan_catalog *catalog = NULL;
    gpuplan_error_init(err);
    const enum gpuplan_status st = gpuplan_catalog_load_buffers(&catalog, &file, 1, err);
    gpuplan_catalog_free(catalog);
    return st;
}

static void test_catalog_gpu_memory_extremes(void **state)
{
    (void)state;
    struct gpuplan_error err;
    static const char *const bad[] = { "0", "1e20", "-80", "1e400", "18446744073709551616" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const enum gpuplan_status st = load_gpu_with_memory(bad[i], &err);
        assert_int_not_equal(st, GPUPLAN_OK);
        assert_true(err.message[0] != '\0');
        assert_true(err.where[0] != '\0');
    }
    /* The control: 80 GB loads. */
    assert_int_equal(load_gpu_with_memory("80", &err), GPUPLAN_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hf_config_overflowing_numbers),
        cmocka_unit_test(test_request_overflowing_numbers),
        cmocka_unit_test(test_json_nan_infinity),
        cmocka_unit_test(test_tco_nan_infinity),
        cmocka_unit_test(test_million_deep_nesting),
        cmocka_unit_test(test_duplicate_keys),
        cmocka_unit_test(test_non_utf8),
        cmocka_unit_test(test_safetensors_gigabyte_header_length),
        cmocka_unit_test(test_gguf_gigabyte_lengths),
        cmocka_unit_test_setup_teardown(test_special_files_as_model_paths, make_tmpdir,
                                        remove_tmpdir),
        cmocka_unit_test(test_enormous_job_sizes),
        cmocka_unit_test(test_catalog_gpu_memory_extremes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
