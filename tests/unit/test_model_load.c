/*
 * test_model_load.c - gpuplan_model_load over real fixtures laid out in
 * temporary directories (symlinks to the shared files), the catalog, and
 * the failure cases: missing paths, special files, partial shard sets.
 */
#include "test_common.h"

#include <sys/stat.h>
#include <unistd.h>

#include "gpuplan/catalog.h"
#include "gpuplan/model.h"

#define ST_FIXTURE \
    "weights/llama-3.2-3b_model-00001-model.layers.0.input_layernorm.weight.safetensors"
#define ST_SHARD "model-00001-model.layers.0.input_layernorm.weight.safetensors"

static char tmp_root[256];

static int make_root(void **state)
{
    (void)state;
    (void)snprintf(tmp_root, sizeof tmp_root, "/tmp/gpuplan-model-load-XXXXXX");
    return mkdtemp(tmp_root) ? 0 : -1;
}

static int remove_root(void **state)
{
    (void)state;
    char cmd[512];
    (void)snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    return system(cmd) == 0 ? 0 : -1;
}

/* A fresh directory under the temporary root; static buffer. */
static const char *make_dir(const char *name)
{
    static char path[512];
    (void)snprintf(path, sizeof path, "%s/%s", tmp_root, name);
    assert_int_equal(mkdir(path, 0755), 0);
    return path;
}

static void link_fixture(const char *dir, const char *fixture, const char *as)
{
    char target[4096], link_path[1024];
    assert_non_null(realpath(fixture_path(fixture), target));
    (void)snprintf(link_path, sizeof link_path, "%s/%s", dir, as);
    assert_int_equal(symlink(target, link_path), 0);
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[1024];
    (void)snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static void expect_ok(struct gpuplan_model *m, const char *path)
{
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    const enum gpuplan_status st = gpuplan_model_load(m, path, NULL, &err);
    if (st != GPUPLAN_OK)
        fail_msg("load '%s': %s: %s", path, err.where, err.message);
}

static void test_files(void **state)
{
    (void)state;
    struct gpuplan_model m;
    expect_ok(&m, fixture_path("weights/llama-2-tiny-random.gguf"));
    assert_string_equal(m.format, "gguf");
    assert_string_equal(m.id, "llama-2-tiny-random");
    assert_int_equal(m.n_params_total, 513048);
    assert_int_equal(m.file_bytes, 1750560);
    assert_true(m.has_arch);
    assert_string_equal(m.gguf_file_type, "MOSTLY_F16");
    assert_int_equal(m.n_metadata, 18);
    gpuplan_model_release(&m);

    expect_ok(&m, fixture_path(ST_FIXTURE));
    assert_string_equal(m.format, "safetensors");
    assert_int_equal(m.n_params_total, 3072);
    assert_int_equal(m.file_bytes, 6280);
    assert_true(m.storage_from_file);
    assert_false(m.has_arch);
    gpuplan_model_release(&m);

    expect_ok(&m, fixture_path("hf-configs/llama-3.2-3b.json"));
    assert_string_equal(m.format, "config");
    assert_string_equal(m.id, "llama-3.2-3b");
    assert_int_equal(m.n_params_total, 3212749824ULL);
    assert_false(m.storage_from_file);
    gpuplan_model_release(&m);
}

/* Official gemma index, no shards, config beside it: total_size / 2 == the config's BF16 count. */
static void test_index_with_config(void **state)
{
    (void)state;
    const char *dir = make_dir("gemma");
    link_fixture(dir, "hf-configs/gemma-2-9b-it.safetensors.index.json",
                 "model.safetensors.index.json");
    link_fixture(dir, "hf-configs/gemma-2-9b-it.json", "config.json");
    struct gpuplan_model m;
    expect_ok(&m, dir);
    assert_string_equal(m.format, "dir");
    assert_string_equal(m.id, "gemma");
    assert_true(m.has_arch);
    assert_false(m.storage_from_file);
    assert_int_equal(m.index_total_size_bytes, 18483411968ULL);
    assert_int_equal(m.n_params_total, 9241705984ULL);
    assert_int_equal(m.index_total_size_bytes / 2, m.n_params_total);
    gpuplan_model_release(&m);

    /* The index file itself, with the config beside it. */
    char path[1024];
    (void)snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    expect_ok(&m, path);
    assert_string_equal(m.format, "index");
    assert_string_equal(m.id, "gemma");
    assert_int_equal(m.n_params_total, 9241705984ULL);
    gpuplan_model_release(&m);
}

/* An index with neither shards nor config: only total_size is known. */
static void test_index_alone(void **state)
{
    (void)state;
    const char *dir = make_dir("llama-index-only");
    link_fixture(dir, "hf-configs/llama-3.2-3b.resharded.safetensors.index.json",
                 "model.safetensors.index.json");
    struct gpuplan_model m;
    expect_ok(&m, dir);
    assert_int_equal(m.n_groups, 0);
    assert_false(m.has_arch);
    assert_false(m.storage_from_file);
    assert_int_equal(m.index_total_size_bytes, 6425499648ULL);
    assert_int_equal(m.storage_bytes, 6425499648ULL);
    gpuplan_model_release(&m);
}

/* One shard of 254 present: a clear error naming a missing shard. */
static void test_index_partial(void **state)
{
    (void)state;
    const char *dir = make_dir("llama-partial");
    link_fixture(dir, "hf-configs/llama-3.2-3b.resharded.safetensors.index.json",
                 "model.safetensors.index.json");
    link_fixture(dir, ST_FIXTURE, ST_SHARD);
    struct gpuplan_model m;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_model_load(&m, dir, NULL, &err), GPUPLAN_ERR_NOT_FOUND);
    assert_non_null(strstr(err.message, "missing (1 of 254 shards present)"));
    assert_null(m.groups);
}

/* A complete (one-shard) index, the shard and a config: arch from config, tensors from weights. */
static void test_dir_with_shards(void **state)
{
    (void)state;
    const char *dir = make_dir("llama-one-shard");
    write_text(dir, "model.safetensors.index.json",
               "{\"metadata\":{\"total_size\":6144},\"weight_map\":{"
               "\"model.layers.0.input_layernorm.weight\":\"" ST_SHARD "\"}}");
    link_fixture(dir, ST_FIXTURE, ST_SHARD);
    link_fixture(dir, "hf-configs/llama-3.2-3b.json", "config.json");
    struct gpuplan_model m;
    expect_ok(&m, dir);
    assert_true(m.has_arch);
    assert_int_equal(m.arch.hidden_size, 3072);
    assert_true(m.storage_from_file);
    assert_int_equal(m.n_params_total, 3072);
    assert_int_equal(m.storage_bytes, 6144);
    assert_int_equal(m.index_total_size_bytes, 6144);
    assert_int_equal(m.file_bytes, 6280);
    gpuplan_model_release(&m);

    /* A shard whose tensor the index maps elsewhere is refused. */
    const char *bad = make_dir("llama-wrong-map");
    write_text(bad, "model.safetensors.index.json",
               "{\"weight_map\":{\"model.layers.0.input_layernorm.weight\":\"other.safetensors\","
               "\"x\":\"" ST_SHARD "\"}}");
    link_fixture(bad, ST_FIXTURE, ST_SHARD);
    write_text(bad, "other.safetensors", "");
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_not_equal(gpuplan_model_load(&m, bad, NULL, &err), GPUPLAN_OK);
}

static void test_dir_single_files(void **state)
{
    (void)state;
    const char *dir = make_dir("st-single");
    link_fixture(dir, ST_FIXTURE, "model.safetensors");
    link_fixture(dir, "hf-configs/llama-3.2-3b.json", "config.json");
    struct gpuplan_model m;
    expect_ok(&m, dir);
    assert_true(m.has_arch);
    assert_string_equal(m.arch.family, "llama");
    assert_int_equal(m.n_params_total, 3072);
    gpuplan_model_release(&m);

    const char *gdir = make_dir("gguf-dir");
    link_fixture(gdir, "weights/llama-2-tiny-random.gguf", "tiny.gguf");
    expect_ok(&m, gdir);
    assert_int_equal(m.n_params_total, 513048);
    assert_string_equal(m.arch.family, "llama");
    gpuplan_model_release(&m);

    const char *cdir = make_dir("config-only");
    link_fixture(cdir, "hf-configs/qwen3-8b.json", "config.json");
    expect_ok(&m, cdir);
    assert_int_equal(m.n_params_total, 8190735360ULL);
    assert_string_equal(m.format, "dir");
    gpuplan_model_release(&m);
}

static void test_failures(void **state)
{
    (void)state;
    char empty[512], fifo[512], two[512], unknown[512];
    (void)snprintf(empty, sizeof empty, "%s", make_dir("empty"));
    (void)snprintf(fifo, sizeof fifo, "%s/fifo.gguf", tmp_root);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *multi = make_dir("two-gguf");
    (void)snprintf(two, sizeof two, "%s", multi);
    link_fixture(two, "weights/llama-2-tiny-random.gguf", "a.gguf");
    link_fixture(two, "weights/llama-2-tiny-random.gguf", "b.gguf");
    (void)snprintf(unknown, sizeof unknown, "%s/notes.txt", tmp_root);
    write_text(tmp_root, "notes.txt", "hello");
    const struct {
        const char *path;
        enum gpuplan_status code;
        const char *needle;
    } rows[] = {
        { "", GPUPLAN_ERR_USAGE, "no model given" },
        { "/nonexistent/model.gguf", GPUPLAN_ERR_NOT_FOUND, "no such file or model" },
        { "no-such-model-anywhere", GPUPLAN_ERR_NOT_FOUND, "no such file or model" },
        { empty, GPUPLAN_ERR_NOT_FOUND, "no config.json" },
        { fifo, GPUPLAN_ERR_INVALID_INPUT, "not a regular file" },
        { "/dev/null", GPUPLAN_ERR_INVALID_INPUT, "not a regular file" },
        { two, GPUPLAN_ERR_UNSUPPORTED, "2 .gguf files" },
        { unknown, GPUPLAN_ERR_UNSUPPORTED, "unknown model file type" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct gpuplan_model m;
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        const enum gpuplan_status st = gpuplan_model_load(&m, rows[i].path, NULL, &err);
        if (st != rows[i].code || !strstr(err.message, rows[i].needle))
            fail_msg("'%s': status %d (want %d), message '%s' lacks '%s'", rows[i].path, st,
                     rows[i].code, err.message, rows[i].needle);
        assert_null(m.groups);
    }
}

static void test_catalog(void **state)
{
    (void)state;
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_catalog_load(&catalog, NULL, &err), GPUPLAN_OK);
    struct gpuplan_model m;
    assert_int_equal(gpuplan_model_load(&m, "llama-3.1-8b", catalog, &err), GPUPLAN_OK);
    assert_string_equal(m.format, "catalog");
    assert_string_equal(m.id, "llama-3.1-8b");
    assert_int_equal(m.n_params_total, 8030261248ULL);
    gpuplan_model_release(&m);
    assert_int_equal(gpuplan_model_load(&m, "llama-3.1-8", catalog, &err), GPUPLAN_ERR_NOT_FOUND);
    assert_non_null(strstr(err.hint, "llama-3.1-8b"));
    gpuplan_catalog_free(catalog);
}

/* Hub ids: catalog hf_repo (case-insensitive), tuned variants, the HF cache layout. */
static void test_hub_ids(void **state)
{
    (void)state;
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_catalog_load(&catalog, NULL, &err), GPUPLAN_OK);
    struct gpuplan_model m;
    static const struct {
        const char *hub_id, *catalog_id;
    } cases[] = {
        { "meta-llama/Llama-3.1-8B", "llama-3.1-8b" },
        { "META-LLAMA/llama-3.1-8b", "llama-3.1-8b" },
        { "meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b" },
        { "mistralai/Mistral-7B-Instruct-v0.3", "mistral-7b-v0.3" },
        { "google/gemma-3-12b-it", "gemma-3-12b" },
        { "meta-llama/Llama-2-7b-chat-hf", "llama-2-7b" },
        { "meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (gpuplan_model_load_hub(&m, cases[i].hub_id, catalog, NULL, &err) != GPUPLAN_OK)
            fail_msg("%s: %s", cases[i].hub_id, err.message);
        assert_string_equal(m.id, cases[i].catalog_id);
        assert_true(m.resolved_note[0] != '\0');
        gpuplan_model_release(&m);
    }
    /* Not in the catalog, no cache given: the message says where it looked. */
    assert_int_equal(gpuplan_model_load_hub(&m, "acme/Tiny-Llama-1B", catalog, NULL, &err),
                     GPUPLAN_ERR_NOT_FOUND);
    assert_non_null(strstr(err.message, "no catalog model has hf_repo"));
    assert_non_null(strstr(err.hint, "huggingface-cli download acme/Tiny-Llama-1B config.json"));
    /* The cache fixture: refs/main -> snapshots/HASH/config.json (a symlink to a blob). */
    assert_int_equal(
        gpuplan_model_load_hub(&m, "acme/Tiny-Llama-1B", catalog, fixture_path("hf-cache"), &err),
        GPUPLAN_OK);
    assert_string_equal(m.id, "acme/Tiny-Llama-1B");
    assert_string_equal(m.format, "hf-cache");
    assert_int_equal(m.n_params_total, 1235814400ULL);
    gpuplan_model_release(&m);
    assert_int_equal(
        gpuplan_model_load_hub(&m, "Acme/tiny-llama-1b", catalog, fixture_path("hf-cache"), &err),
        GPUPLAN_OK);
    gpuplan_model_release(&m);
    /* No refs/main and exactly one snapshot: that snapshot. */
    char hub[512];
    (void)snprintf(hub, sizeof hub, "%s", make_dir("hub"));
    make_dir("hub/models--org--one");
    make_dir("hub/models--org--one/snapshots");
    link_fixture(make_dir("hub/models--org--one/snapshots/abc123"), "hf-configs/llama-3.2-1b.json",
                 "config.json");
    assert_int_equal(gpuplan_model_load_hub(&m, "org/one", catalog, hub, &err), GPUPLAN_OK);
    gpuplan_model_release(&m);
    /* A hostile refs/main (a path, not a hash) is not followed. */
    make_dir("hub/models--org--two");
    make_dir("hub/models--org--two/refs");
    write_text(hub, "models--org--two/refs/main", "../../../etc\n");
    assert_int_equal(gpuplan_model_load_hub(&m, "org/two", catalog, hub, &err),
                     GPUPLAN_ERR_NOT_FOUND);
    /* Ids that are not Hub ids go to the path loader's message. */
    assert_int_equal(gpuplan_model_load_hub(&m, "org/../x", catalog, hub, &err),
                     GPUPLAN_ERR_NOT_FOUND);
    assert_int_equal(gpuplan_model_load_hub(&m, "org/x.json", catalog, hub, &err),
                     GPUPLAN_ERR_NOT_FOUND);
    assert_non_null(strstr(err.message, "no such file or model"));
    gpuplan_catalog_free(catalog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_files),           cmocka_unit_test(test_index_with_config),
        cmocka_unit_test(test_index_alone),     cmocka_unit_test(test_index_partial),
        cmocka_unit_test(test_dir_with_shards), cmocka_unit_test(test_dir_single_files),
        cmocka_unit_test(test_failures),        cmocka_unit_test(test_catalog),
        cmocka_unit_test(test_hub_ids),
    };
    return cmocka_run_group_tests(tests, make_root, remove_root);
}
