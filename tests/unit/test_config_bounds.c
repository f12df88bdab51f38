/*
 * test_config_bounds.c - the config readers on hostile or broken input:
 * every bound of include/gpuplan/config.h (bytes, depth, values, keys per
 * mapping, scalar length, notes), YAML features refused (aliases, several
 * documents, duplicate keys, complex keys), syntax errors with line:column,
 * and the documented key lists against tests/fixtures/engine-keys/.
 */
#include "test_common.h"

#include "gpuplan/config.h"

static enum gpuplan_status read_bytes(const char *bytes,
                                      size_t len,
                                      const char *name,
                                      enum gpuplan_config_kind kind,
                                      struct gpuplan_error *err)
{
    struct gpuplan_config cfg;
    gpuplan_config_init(&cfg);
    gpuplan_error_init(err);
    const enum gpuplan_status st =
        gpuplan_config_read(&cfg, (const uint8_t *)bytes, len, name, kind, err);
    if (st != GPUPLAN_OK) {
        assert_int_equal(err->code, st);
        assert_true(err->message[0] != '\0');
        assert_true(err->where[0] != '\0');
        assert_int_equal(cfg.n_files, 0);
        assert_int_equal(cfg.n_notes, 0);
    }
    gpuplan_config_release(&cfg);
    return st;
}

static enum gpuplan_status read_str(const char *text, const char *name, struct gpuplan_error *err)
{
    return read_bytes(text, strlen(text), name, GPUPLAN_CONFIG_AXOLOTL, err);
}

/* A growable test buffer (plain malloc: tests may abort on failure). */
struct text {
    char *p;
    size_t len, cap;
};

static void put(struct text *t, const char *s)
{
    const size_t n = strlen(s);
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->p = realloc(t->p, t->cap);
        assert_non_null(t->p);
    }
    memcpy(t->p + t->len, s, n + 1);
    t->len += n;
}

static void test_too_large(void **state)
{
    (void)state;
    const size_t len = GPUPLAN_CONFIG_MAX_BYTES + 1;
    char *big = malloc(len);
    assert_non_null(big);
    memset(big, ' ', len);
    memcpy(big, "a: 1\n", 5);
    struct gpuplan_error err;
    assert_int_equal(read_bytes(big, len, "big.yaml", GPUPLAN_CONFIG_AUTO, &err),
                     GPUPLAN_ERR_TOO_LARGE);
    assert_string_equal(err.where, "big.yaml");
    free(big);
}

static void test_depth(void **state)
{
    (void)state;
    struct gpuplan_error err;
    struct text t = { 0 };
    put(&t, "base_model: m\nx: ");
    for (unsigned i = 0; i < GPUPLAN_CONFIG_MAX_DEPTH + 4; i++)
        put(&t, "[");
    for (unsigned i = 0; i < GPUPLAN_CONFIG_MAX_DEPTH + 4; i++)
        put(&t, "]");
    put(&t, "\n");
    assert_int_equal(read_str(t.p, "deep.yaml", &err), GPUPLAN_ERR_TOO_LARGE);
    assert_non_null(strstr(err.where, "deep.yaml:2:"));
    t.len = 0;
    put(&t, "{\"a\": ");
    for (unsigned i = 0; i < GPUPLAN_CONFIG_MAX_DEPTH + 4; i++)
        put(&t, "[");
    for (unsigned i = 0; i < GPUPLAN_CONFIG_MAX_DEPTH + 4; i++)
        put(&t, "]");
    put(&t, "}");
    assert_int_equal(read_bytes(t.p, t.len, "deep.json", GPUPLAN_CONFIG_DEEPSPEED, &err),
                     GPUPLAN_ERR_TOO_LARGE);
    /* at the limit it reads */
    t.len = 0;
    put(&t, "base_model: m\nx: ");
    for (unsigned i = 0; i < GPUPLAN_CONFIG_MAX_DEPTH - 1; i++)
        put(&t, "[");
    for (unsigned i = 0; i < GPUPLAN_CONFIG_MAX_DEPTH - 1; i++)
        put(&t, "]");
    put(&t, "\n");
    assert_int_equal(read_str(t.p, "ok.yaml", &err), GPUPLAN_OK);
    free(t.p);
}

static void test_keys_and_values(void **state)
{
    (void)state;
    struct gpuplan_error err;
    struct text t = { 0 };
    char line[64];
    put(&t, "base_model: m\n");
    for (unsigned i = 0; i < GPUPLAN_CONFIG_MAX_KEYS + 1; i++) {
        snprintf(line, sizeof line, "k%u: 1\n", i);
        put(&t, line);
    }
    assert_int_equal(read_str(t.p, "keys.yaml", &err), GPUPLAN_ERR_TOO_LARGE);
    assert_non_null(strstr(err.message, "keys in one mapping"));
    /* values: many short sequences under few keys */
    t.len = 0;
    put(&t, "base_model: m\n");
    for (unsigned k = 0; k < 20; k++) {
        snprintf(line, sizeof line, "s%u: [", k);
        put(&t, line);
        for (unsigned i = 0; i < GPUPLAN_CONFIG_MAX_NODES / 16; i++)
            put(&t, "1,");
        put(&t, "1]\n");
    }
    assert_int_equal(read_str(t.p, "values.yaml", &err), GPUPLAN_ERR_TOO_LARGE);
    assert_non_null(strstr(err.message, "values"));
    free(t.p);
}

static void test_long_scalar(void **state)
{
    (void)state;
    struct gpuplan_error err;
    struct text t = { 0 };
    put(&t, "base_model: ");
    for (unsigned i = 0; i < GPUPLAN_CONFIG_MAX_SCALAR + 1; i++)
        put(&t, "x");
    put(&t, "\n");
    assert_int_equal(read_str(t.p, "long.yaml", &err), GPUPLAN_ERR_TOO_LARGE);
    assert_string_equal(err.where, "long.yaml:1:13");
    free(t.p);
}

/* More notes than GPUPLAN_CONFIG_MAX_NOTES: the rest are counted, the read succeeds. */
static void test_note_cap(void **state)
{
    (void)state;
    struct text t = { 0 };
    char line[64];
    put(&t, "base_model: m\n");
    for (unsigned i = 0; i < GPUPLAN_CONFIG_MAX_NOTES + 100; i++) {
        snprintf(line, sizeof line, "unknown_%u: 1\n", i);
        put(&t, line);
    }
    struct gpuplan_config cfg;
    struct gpuplan_error err;
    gpuplan_config_init(&cfg);
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_config_read(&cfg, (const uint8_t *)t.p, t.len, "n.yaml",
                                         GPUPLAN_CONFIG_AXOLOTL, &err),
                     GPUPLAN_OK);
    assert_int_equal(cfg.n_notes, GPUPLAN_CONFIG_MAX_NOTES);
    assert_true(cfg.n_notes_dropped >= 100);
    assert_string_equal(cfg.model_id, "m");
    gpuplan_config_release(&cfg);
    free(t.p);
}

struct bad_row {
    const char *name;
    const char *text;
    enum gpuplan_config_kind kind;
    enum gpuplan_status status;
    const char *where;   /* exact err.where, or NULL */
    const char *message; /* substring of err.message, or NULL */
};

static const struct bad_row bad_rows[] = {
    { "alias.yaml", "base_model: &m x\nother: *m\n", GPUPLAN_CONFIG_AXOLOTL,
      GPUPLAN_ERR_UNSUPPORTED, "alias.yaml:2:8", "alias" },
    { "two-docs.yaml", "base_model: a\n---\nbase_model: b\n", GPUPLAN_CONFIG_AXOLOTL,
      GPUPLAN_ERR_INVALID_INPUT, "two-docs.yaml:2:1", "more than one" },
    { "dup.yaml", "base_model: a\nsequence_len: 1\nbase_model: b\n", GPUPLAN_CONFIG_AXOLOTL,
      GPUPLAN_ERR_INVALID_INPUT, "dup.yaml:3:1", "duplicate key 'base_model'" },
    { "complex-key.yaml", "? [a, b]\n: 1\n", GPUPLAN_CONFIG_AXOLOTL, GPUPLAN_ERR_INVALID_INPUT,
      "complex-key.yaml:1:3", "mapping key" },
    { "syntax.yaml", "base_model: m\n  bad: indent\n", GPUPLAN_CONFIG_AXOLOTL,
      GPUPLAN_ERR_INVALID_INPUT, "syntax.yaml:2:6", "YAML syntax error" },
    { "tab.yaml", "base_model: m\n\tsequence_len: 1\n", GPUPLAN_CONFIG_AXOLOTL,
      GPUPLAN_ERR_INVALID_INPUT, NULL, "YAML syntax error" },
    { "list.yaml", "- a\n- b\n", GPUPLAN_CONFIG_AXOLOTL, GPUPLAN_ERR_INVALID_INPUT, "list.yaml:1:1",
      "not a mapping" },
    { "scalar.yaml", "just text\n", GPUPLAN_CONFIG_AXOLOTL, GPUPLAN_ERR_INVALID_INPUT, NULL,
      "not a mapping" },
    { "empty.yaml", "", GPUPLAN_CONFIG_AXOLOTL, GPUPLAN_ERR_INVALID_INPUT, "empty.yaml", "empty" },
    { "comments.yaml", "# only a comment\n", GPUPLAN_CONFIG_AXOLOTL, GPUPLAN_ERR_INVALID_INPUT,
      NULL, "empty" },
    { "bad.json", "{\"a\": 1,}", GPUPLAN_CONFIG_DEEPSPEED, GPUPLAN_ERR_INVALID_INPUT, NULL, NULL },
    { "dup.json", "{\"a\": 1, \"a\": 2}", GPUPLAN_CONFIG_DEEPSPEED, GPUPLAN_ERR_INVALID_INPUT, NULL,
      NULL },
    { "utf8.json", "{\"a\": \"\xff\"}", GPUPLAN_CONFIG_DEEPSPEED, GPUPLAN_ERR_INVALID_INPUT, NULL,
      NULL },
    { "array.json", "[1, 2]", GPUPLAN_CONFIG_DEEPSPEED, GPUPLAN_ERR_INVALID_INPUT, NULL,
      "not a mapping" },
    { "stage.json", "{\"zero_optimization\": {\"stage\": \"two\"}}", GPUPLAN_CONFIG_DEEPSPEED,
      GPUPLAN_ERR_INVALID_INPUT, "stage.json:$.zero_optimization.stage", "'two'" },
    { "bool.json", "{\"bf16\": {\"enabled\": 3}}", GPUPLAN_CONFIG_DEEPSPEED,
      GPUPLAN_ERR_INVALID_INPUT, "bool.json:$.bf16.enabled", "true or false" },
    { "device.json", "{\"zero_optimization\": {\"offload_param\": {\"device\": \"gpu\"}}}",
      GPUPLAN_CONFIG_DEEPSPEED, GPUPLAN_ERR_INVALID_INPUT,
      "device.json:$.zero_optimization.offload_param.device", "cpu, nvme or none" },
    { "mp.yaml", "distributed_type: FSDP\nmixed_precision: bf17\n", GPUPLAN_CONFIG_ACCELERATE,
      GPUPLAN_ERR_INVALID_INPUT, "mp.yaml:2:18", "bf17" },
    { "strategy.yaml", "distributed_type: FSDP\nfsdp_config:\n  fsdp_sharding_strategy: HALF\n",
      GPUPLAN_CONFIG_ACCELERATE, GPUPLAN_ERR_INVALID_INPUT, "strategy.yaml:3:27", NULL },
    { "seq.yaml", "base_model: m\nsequence_len: -4\n", GPUPLAN_CONFIG_AXOLOTL,
      GPUPLAN_ERR_INVALID_INPUT, "seq.yaml:2:15", "sequence_len" },
    { "rank.yaml", "base_model: m\nlora_r: [1]\n", GPUPLAN_CONFIG_AXOLOTL,
      GPUPLAN_ERR_INVALID_INPUT, "rank.yaml:2:9", "lora_r" },
    { "huge.yaml", "base_model: m\nmicro_batch_size: 99999999999999999999999\n",
      GPUPLAN_CONFIG_AXOLOTL, GPUPLAN_ERR_INVALID_INPUT, NULL, "micro_batch_size" },
    { "tt-dtype.yaml", "dtype: int4\nbatch_size: 1\n", GPUPLAN_CONFIG_TORCHTUNE,
      GPUPLAN_ERR_INVALID_INPUT, "tt-dtype.yaml:1:8", "dtype" },
    { "lf-type.yaml", "finetuning_type: prompt\n", GPUPLAN_CONFIG_LLAMA_FACTORY,
      GPUPLAN_ERR_INVALID_INPUT, "lf-type.yaml:1:18", "finetuning_type" },
    { "targets.json", "{\"peft_type\": \"LORA\", \"target_modules\": [[\"q\"]]}",
      GPUPLAN_CONFIG_PEFT, GPUPLAN_ERR_INVALID_INPUT, "targets.json:$.target_modules", NULL },
};
#define N_BAD (sizeof bad_rows / sizeof bad_rows[0])

static void test_bad(void **state)
{
    const struct bad_row *r = *state;
    struct gpuplan_error err;
    const enum gpuplan_status st = read_bytes(r->text, strlen(r->text), r->name, r->kind, &err);
    if (st != r->status)
        print_error("%s: got %s (%s at %s)\n", r->name, gpuplan_status_name(st), err.message,
                    err.where);
    assert_int_equal(st, r->status);
    if (r->where)
        assert_string_equal(err.where, r->where);
    if (r->message)
        assert_non_null(strstr(err.message, r->message));
}

/* A BOM and CRLF line ends are accepted, as Python's readers accept them. */
static void test_bom_crlf(void **state)
{
    (void)state;
    struct gpuplan_error err;
    assert_int_equal(read_str("\xef\xbb\xbf"
                              "base_model: m\r\nsequence_len: 8\r\n",
                              "bom.yaml", &err),
                     GPUPLAN_OK);
    const char *json = "\xef\xbb\xbf{\"r\": 4, \"peft_type\": \"LORA\"}";
    assert_int_equal(read_bytes(json, strlen(json), "a.json", GPUPLAN_CONFIG_PEFT, &err),
                     GPUPLAN_OK);
}

/* config_keys.c (generated) holds exactly the lines of tests/fixtures/engine-keys/. */
static void test_key_lists(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        enum gpuplan_config_kind kind;
    } lists[] = {
        { "engine-keys/deepspeed.txt", GPUPLAN_CONFIG_DEEPSPEED },
        { "engine-keys/accelerate.txt", GPUPLAN_CONFIG_ACCELERATE },
        { "engine-keys/axolotl.txt", GPUPLAN_CONFIG_AXOLOTL },
        { "engine-keys/llama-factory.txt", GPUPLAN_CONFIG_LLAMA_FACTORY },
        { "engine-keys/torchtune.txt", GPUPLAN_CONFIG_TORCHTUNE },
        { "engine-keys/trl-sftconfig.txt", GPUPLAN_CONFIG_TRL },
        { "engine-keys/peft-loraconfig.txt", GPUPLAN_CONFIG_PEFT },
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        size_t len = 0;
        char *text = (char *)read_file(fixture_path(lists[i].file), &len);
        assert_non_null(text);
        assert_true(strstr(text, "Source") != NULL); /* each list names its source */
        size_t n = 0;
        for (char *line = text; line && *line;) {
            char *end = strchr(line, '\n');
            if (end)
                *end = '\0';
            if (line[0] && line[0] != '#') {
                if (!gpuplan_config_key_is_documented(lists[i].kind, line))
                    print_error("%s: '%s' missing from config_keys.c\n", lists[i].file, line);
                assert_true(gpuplan_config_key_is_documented(lists[i].kind, line));
                n++;
            }
            line = end ? end + 1 : NULL;
        }
        assert_true(n > 20);
        assert_false(gpuplan_config_key_is_documented(lists[i].kind, "no_such_key_anywhere"));
        free(text);
    }
    /* the serving engines' lists exist too (for the emitters) */
    size_t len = 0;
    uint8_t *v = read_file(fixture_path("engine-keys/vllm-serve.txt"), &len);
    uint8_t *s = read_file(fixture_path("engine-keys/sglang.txt"), &len);
    assert_non_null(v);
    assert_non_null(s);
    assert_non_null(strstr((char *)v, "\n--gpu-memory-utilization\n"));
    assert_non_null(strstr((char *)s, "\n--mem-fraction-static\n"));
    free(v);
    free(s);
    assert_false(gpuplan_config_key_is_documented(GPUPLAN_CONFIG_AUTO, "stage"));
}

int main(void)
{
    struct CMUnitTest tests[N_BAD + 16];
    size_t n = 0;
    for (size_t i = 0; i < N_BAD; i++) {
        const struct CMUnitTest t = { bad_rows[i].name, test_bad, NULL, NULL,
                                      (void *)(uintptr_t)&bad_rows[i] };
        tests[n++] = t;
    }
    const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_too_large),       cmocka_unit_test(test_depth),
        cmocka_unit_test(test_keys_and_values), cmocka_unit_test(test_long_scalar),
        cmocka_unit_test(test_note_cap),        cmocka_unit_test(test_bom_crlf),
        cmocka_unit_test(test_key_lists),
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        tests[n++] = fixed[i];
    return _cmocka_run_group_tests("config_bounds", tests, n, NULL, NULL);
}
