/*
 * hub.c - a Hugging Face Hub id ("meta-llama/Llama-3.1-8B") resolved without
 * the network, in this order:
 *
 *   1. a catalog model whose `hf_repo` equals the id (case-insensitive);
 *   2. a catalog model whose `hf_repo` equals the id with its chat/instruct
 *      token removed ("-Instruct", "-Chat", "-it": "Mistral-7B-Instruct-v0.3"
 *      -> "Mistral-7B-v0.3"), with a note: the tuned variant has the base's
 *      architecture and parameter count (the tuning changes weights, not
 *      shapes), which is all the inventory reads;
 *   3. the local Hugging Face cache, laid out as huggingface_hub writes it
 *      (huggingface_hub docs, "Understand caching"):
 *        HUB/models--ORG--NAME/refs/main            the commit hash of main
 *        HUB/models--ORG--NAME/snapshots/HASH/      config.json, the weights
 *      read as a model directory (config.json and the safetensors headers or
 *      index). The caller names HUB ($HF_HUB_CACHE, else $HF_HOME/hub, else
 *      ~/.cache/huggingface/hub); the library reads no environment.
 *
 * A miss says where it looked and how to get the file without gpuplan
 * downloading anything.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "catalog/model_load_internal.h"
#include "gpuplan/catalog.h"
#include "gpuplan/model.h"

/* huggingface_hub's repo-id rule: [A-Za-z0-9._-], 1..96 characters per part. */
#define HUB_PART_MAX 96
/* refs/main holds one commit hash (40 hex digits) and maybe a newline. */
#define HUB_REF_MAX 64

static bool part_valid(const char *s, size_t len)
{
    if (len == 0 || len > HUB_PART_MAX)
        return false;
    if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
        return false;
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (!isalnum(c) && c != '.' && c != '_' && c != '-')
            return false;
    }
    return true;
}

bool gpuplan_hub_id_valid(const char *id)
{
    if (!id)
        return false;
    const char *slash = strchr(id, '/');
    if (!slash || strchr(slash + 1, '/'))
        return false;
    /* A file name, not a repository: leave it to the path loader's message. */
    static const char *const file_exts[] = { ".json", ".gguf", ".safetensors" };
    const size_t n = strlen(id);
    for (size_t i = 0; i < sizeof file_exts / sizeof file_exts[0]; i++) {
        const size_t e = strlen(file_exts[i]);
        if (n > e && strcmp(id + n - e, file_exts[i]) == 0)
            return false;
    }
    return part_valid(id, (size_t)(slash - id)) && part_valid(slash + 1, strlen(slash + 1));
}

static const struct gpuplan_catalog_model *find_by_repo(const struct gpuplan_catalog *catalog,
                                                        const char *repo)
{
    const size_t n = gpuplan_catalog_n_models(catalog);
    for (size_t i = 0; i < n; i++) {
        const struct gpuplan_catalog_model *m = gpuplan_catalog_model_at(catalog, i);
        if (m && m->hf_repo[0] && strcasecmp(m->hf_repo, repo) == 0)
            return m;
    }
    return NULL;
}

/* The chat/instruct tokens that name a tuned variant of a base model. */
static const char *const variant_tokens[] = { "instruct", "chat", "it" };

/*
 * How a base model's repository is named where the tuned one says "-Instruct":
 * the token dropped ("Llama-3.1-8B"), or replaced by the base's own token
 * ("gemma-3-12b-pt", "Llama-2-7b-hf" after "-chat" is dropped is the first
 * form; "granite-7b-base").
 */
static const char *const base_tokens[] = { "", "-pt", "-base", "-hf" };

/*
 * The catalog model that `id` is a tuned variant of: its first variant token
 * ("-Instruct" etc., case-insensitive, a whole dash-separated token) dropped
 * or replaced by a base token. The token found goes to `token`.
 */
static const struct gpuplan_catalog_model *
find_base(const struct gpuplan_catalog *catalog, const char *id, char *token, size_t token_size)
{
    const char *name = strchr(id, '/') + 1;
    for (const char *p = strchr(name, '-'); p; p = strchr(p + 1, '-')) {
        const char *start = p + 1;
        const char *end = strchr(start, '-');
        const size_t len = end ? (size_t)(end - start) : strlen(start);
        for (size_t t = 0; t < sizeof variant_tokens / sizeof variant_tokens[0]; t++) {
            if (len != strlen(variant_tokens[t]) || strncasecmp(start, variant_tokens[t], len) != 0)
                continue;
            (void)snprintf(token, token_size, "-%.*s", (int)len, start);
            for (size_t b = 0; b < sizeof base_tokens / sizeof base_tokens[0]; b++) {
                char base[2 * HUB_PART_MAX + 8];
                const int n = snprintf(base, sizeof base, "%.*s%s%s", (int)(p - id), id,
                                       base_tokens[b], end ? end : "");
                const struct gpuplan_catalog_model *m =
                    n > 0 && (size_t)n < sizeof base ? find_by_repo(catalog, base) : NULL;
                if (m)
                    return m;
            }
            return NULL;
        }
    }
    return NULL;
}

/* The snapshot directory of `id` in the cache `hub`, or false with *looked filled. */
static bool find_snapshot(const char *hub, const char *id, char *out, size_t size)
{
    char repo_dir[PATH_MAX];
    const char *slash = strchr(id, '/');
    int n = snprintf(repo_dir, sizeof repo_dir, "%s/models--%.*s--%s", hub, (int)(slash - id), id,
                     slash + 1);
    if (n < 0 || (size_t)n >= sizeof repo_dir)
        return false;
    struct stat st;
    if (stat(repo_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        /* The cache keeps the repository's own spelling: try case-insensitively. */
        DIR *d = opendir(hub);
        if (!d)
            return false;
        const char *want = repo_dir + strlen(hub) + 1;
        bool found = false;
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            if (strcasecmp(e->d_name, want) == 0) {
                n = snprintf(repo_dir, sizeof repo_dir, "%s/%s", hub, e->d_name);
                found = n > 0 && (size_t)n < sizeof repo_dir;
                break;
            }
        }
        closedir(d);
        if (!found)
            return false;
    }
    /* refs/main -> snapshots/HASH */
    char ref_path[PATH_MAX], hash[HUB_REF_MAX + 1] = "";
    n = snprintf(ref_path, sizeof ref_path, "%s/refs/main", repo_dir);
    if (n > 0 && (size_t)n < sizeof ref_path) {
        FILE *f = fopen(ref_path, "r");
        if (f) {
            const size_t got = fread(hash, 1, HUB_REF_MAX, f);
            hash[got] = '\0';
            fclose(f);
            hash[strcspn(hash, "\r\n")] = '\0';
        }
    }
    bool hash_ok = hash[0] != '\0';
    for (const char *c = hash; *c; c++)
        hash_ok = hash_ok && isalnum((unsigned char)*c);
    if (hash_ok) {
        n = snprintf(out, size, "%s/snapshots/%s", repo_dir, hash);
        if (n > 0 && (size_t)n < size && stat(out, &st) == 0 && S_ISDIR(st.st_mode))
            return true;
    }
    /* No usable refs/main: take the only snapshot, if there is exactly one. */
    char snaps[PATH_MAX];
    n = snprintf(snaps, sizeof snaps, "%s/snapshots", repo_dir);
    if (n < 0 || (size_t)n >= sizeof snaps)
        return false;
    DIR *d = opendir(snaps);
    if (!d)
        return false;
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        if (++count == 1)
            n = snprintf(out, size, "%s/%s", snaps, e->d_name);
    }
    closedir(d);
    return count == 1 && n > 0 && (size_t)n < size;
}

enum gpuplan_status gpuplan_model_load_hub_id(struct gpuplan_model *model,
                                              const char *id,
                                              const struct gpuplan_catalog *catalog,
                                              const char *hub_cache_dir,
                                              struct gpuplan_error *err)
{
    const struct gpuplan_catalog_model *record = catalog ? find_by_repo(catalog, id) : NULL;
    char token[HUB_PART_MAX + 2] = "";
    if (!record && catalog) {
        record = find_base(catalog, id, token, sizeof token);
        if (record)
            (void)snprintf(model->resolved_note, sizeof model->resolved_note,
                           "'%s' is the %s variant of '%s': planned as catalog model '%s' "
                           "(same architecture and parameter count)",
                           id, token, record->hf_repo, record->id);
    } else if (record) {
        (void)snprintf(model->resolved_note, sizeof model->resolved_note,
                       "'%s' is catalog model '%s'", id, record->id);
    }
    if (record) {
        enum gpuplan_status st = gpuplan_model_load_catalog_record(model, record, err);
        if (st == GPUPLAN_OK)
            (void)snprintf(model->hub_id, sizeof model->hub_id, "%s", record->hf_repo);
        return st;
    }
    char snapshot[PATH_MAX];
    if (hub_cache_dir && *hub_cache_dir &&
        find_snapshot(hub_cache_dir, id, snapshot, sizeof snapshot)) {
        enum gpuplan_status st = gpuplan_model_load_snapshot(model, snapshot, err);
        if (st != GPUPLAN_OK)
            return st;
        (void)snprintf(model->hub_id, sizeof model->hub_id, "%s", id);
        /* The snapshot folder is a commit hash: name the model by its Hub id. */
        (void)snprintf(model->id, sizeof model->id, "%.127s", id);
        /* A long cache path is cut in the note (to its first 200 bytes), never in the loading. */
        (void)snprintf(model->resolved_note, sizeof model->resolved_note,
                       "'%s' read from the Hugging Face cache: %.200s", id, snapshot);
        return GPUPLAN_OK;
    }
    if (hub_cache_dir && *hub_cache_dir)
        gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, NULL,
                          "unknown model '%s': no catalog model has hf_repo '%s', and the "
                          "Hugging Face cache '%s' has no models--%.*s--%s snapshot",
                          id, id, hub_cache_dir, (int)(strchr(id, '/') - id), id,
                          strchr(id, '/') + 1);
    else
        gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, NULL,
                          "unknown model '%s': no catalog model has hf_repo '%s' (the local "
                          "Hugging Face cache is not searched here)",
                          id, id);
    gpuplan_error_hint(err,
                       "gpuplan never downloads: fetch the config with 'huggingface-cli download "
                       "%s config.json' (or from the model page) and pass the file or its "
                       "folder; 'gpuplan models' lists the catalog",
                       id);
    return GPUPLAN_ERR_NOT_FOUND;
}
