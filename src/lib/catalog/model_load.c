/*
 * model_load.c - gpuplan_model_load: a catalog id or a path to a model.
 *
 * Paths: a directory (config.json plus model.safetensors, an index and its
 * shards, other *.safetensors files, or one *.gguf), a *.gguf file, a
 * *.safetensors file, a *.index.json, or any other *.json (a config.json).
 * Only headers are read, never tensor data: 8 bytes then N for safetensors,
 * and for GGUF a growing prefix (16 MiB, x4, at most 512 MiB) until the
 * tensor infos end. Special files are refused before they are read (opened
 * with O_NONBLOCK, then fstat), so a FIFO cannot hang the caller.
 *
 * With a config.json beside the weights, the architecture comes from the
 * config and the tensors (exact dtypes) from the weights. An index whose
 * shards are all absent gives the inventory from the config when there is
 * one, else only metadata.total_size (index_total_size_bytes).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catalog/model_load_internal.h"
#include "formats/gguf_internal.h"
#include "formats/safetensors_internal.h"
#include "gpuplan/catalog.h"
#include "gpuplan/model.h"
#include "gpuplan/units.h"
#include "util/json_internal.h"

#define GGUF_FIRST_READ_BYTES (16ULL * GPUPLAN_BYTES_PER_MIB)
#define GGUF_MAX_READ_BYTES   (512ULL * GPUPLAN_BYTES_PER_MIB)
#define GGUF_GROWTH           4ULL

static bool ends_with(const char *s, const char *suffix)
{
    const size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static enum gpuplan_status
join_path(char *out, size_t size, const char *dir, const char *name, struct gpuplan_error *err)
{
    const int n = snprintf(out, size, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= size)
        return gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, dir, "path '%s/%s' is too long", dir,
                                 name);
    return GPUPLAN_OK;
}

static enum gpuplan_status open_failed(const char *path, int errno_value, struct gpuplan_error *err)
{
    if (errno_value == ENOENT || errno_value == ENOTDIR)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, path, "no such file '%s'", path);
    return gpuplan_error_set(err, GPUPLAN_ERR_IO, path, "cannot open '%s': %s", path,
                             strerror(errno_value));
}

/* Open a regular file (symlinks followed) for reading; *size_bytes is its size. */
static enum gpuplan_status
open_regular(const char *path, int *out_fd, uint64_t *size_bytes, struct gpuplan_error *err)
{
    const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return open_failed(path, errno, err);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        const int e = errno;
        close(fd);
        return open_failed(path, e, err);
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, path,
                          "'%s' is not a regular file or directory", path);
        gpuplan_error_hint(err, "pass a model file, a model directory or a catalog id");
        return GPUPLAN_ERR_INVALID_INPUT;
    }
    *out_fd = fd;
    *size_bytes = st.st_size > 0 ? (uint64_t)st.st_size : 0;
    return GPUPLAN_OK;
}

/* Read exactly n bytes at offset (pread, retried on EINTR and short reads). */
static enum gpuplan_status read_at(int fd,
                                   uint64_t offset,
                                   uint8_t *buf,
                                   size_t n,
                                   const char *path,
                                   struct gpuplan_error *err)
{
    size_t done = 0;
    while (done < n) {
        const ssize_t got = pread(fd, buf + done, n - done, (off_t)(offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return gpuplan_error_set(err, GPUPLAN_ERR_IO, path, "cannot read '%s': %s", path,
                                     strerror(errno));
        if (got == 0)
            return gpuplan_error_set(err, GPUPLAN_ERR_IO, path,
                                     "cannot read '%s': file shrank while reading", path);
        done += (size_t)got;
    }
    return GPUPLAN_OK;
}

/* A whole small file (a JSON document); *out is malloc'd. */
static enum gpuplan_status
read_json_file(const char *path, uint8_t **out, size_t *len, struct gpuplan_error *err)
{
    int fd;
    uint64_t size;
    enum gpuplan_status st = open_regular(path, &fd, &size, err);
    if (st != GPUPLAN_OK)
        return st;
    if (size > GPUPLAN_JSON_MAX_BYTES) {
        close(fd);
        return gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, path,
                                 "'%s' is %llu bytes; a JSON file may have at most %llu", path,
                                 (unsigned long long)size,
                                 (unsigned long long)GPUPLAN_JSON_MAX_BYTES);
    }
    *out = malloc(size ? (size_t)size : 1);
    if (!*out) {
        close(fd);
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, path, "out of memory reading '%s'", path);
    }
    st = read_at(fd, 0, *out, (size_t)size, path, err);
    close(fd);
    if (st != GPUPLAN_OK) {
        free(*out);
        *out = NULL;
        return st;
    }
    *len = (size_t)size;
    return GPUPLAN_OK;
}

/* Every tensor of a shard must be mapped to that shard by the index. */
static enum gpuplan_status check_shard(const struct gpuplan_st_header *h,
                                       const struct gpuplan_st_index *index,
                                       const char *shard,
                                       const char *path,
                                       struct gpuplan_error *err)
{
    for (size_t i = 0; i < h->n_tensors; i++) {
        const char *mapped = gpuplan_st_index_shard_of(index, h->tensors[i].name);
        if (!mapped || strcmp(mapped, shard) != 0)
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, path,
                                     "tensor '%s' in shard '%s' is mapped to '%s' by the index",
                                     h->tensors[i].name, shard, mapped ? mapped : "(nothing)");
    }
    return GPUPLAN_OK;
}

/* Append one safetensors file's tensors (header only); optionally check it against an index. */
static enum gpuplan_status load_safetensors_file(struct gpuplan_model *model,
                                                 const char *path,
                                                 const struct gpuplan_st_index *index,
                                                 const char *shard,
                                                 size_t *n_tensors,
                                                 struct gpuplan_error *err)
{
    int fd;
    uint64_t size;
    enum gpuplan_status st = open_regular(path, &fd, &size, err);
    if (st != GPUPLAN_OK)
        return st;
    uint8_t prefix[GPUPLAN_SAFETENSORS_PREFIX_BYTES];
    const size_t got = size < sizeof prefix ? (size_t)size : sizeof prefix;
    uint64_t total = 0;
    uint8_t *buf = NULL;
    struct gpuplan_st_header h;
    gpuplan_st_header_init(&h);
    st = read_at(fd, 0, prefix, got, path, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_st_header_size(prefix, got, size, path, &total, err);
    if (st != GPUPLAN_OK)
        goto out;
    buf = malloc((size_t)total);
    if (!buf) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, path, "out of memory for the header");
        goto out;
    }
    st = read_at(fd, 0, buf, (size_t)total, path, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_st_header_parse(buf, (size_t)total, size, path, &h, err);
    if (st == GPUPLAN_OK && index)
        st = check_shard(&h, index, shard, path, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_st_header_append(&h, model, err);
    if (st == GPUPLAN_OK) {
        model->file_bytes += size;
        model->storage_from_file = true;
        if (n_tensors)
            *n_tensors += h.n_tensors;
    }
out:
    gpuplan_st_header_release(&h);
    free(buf);
    close(fd);
    return st;
}

static enum gpuplan_status
load_gguf_file(struct gpuplan_model *model, const char *path, struct gpuplan_error *err)
{
    int fd;
    uint64_t size;
    enum gpuplan_status st = open_regular(path, &fd, &size, err);
    if (st != GPUPLAN_OK)
        return st;
    uint64_t want = size < GGUF_FIRST_READ_BYTES ? size : GGUF_FIRST_READ_BYTES;
    uint8_t *buf = NULL;
    struct gpuplan_gguf g;
    gpuplan_gguf_init(&g);
    for (;;) {
        uint8_t *grown = realloc(buf, want ? (size_t)want : 1);
        if (!grown) {
            st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, path, "out of memory for the header");
            goto out;
        }
        buf = grown;
        st = read_at(fd, 0, buf, (size_t)want, path, err);
        if (st == GPUPLAN_OK)
            st = gpuplan_gguf_parse(buf, (size_t)want, size, path, &g, err);
        if (st == GPUPLAN_OK || !g.truncated || want >= size)
            break;
        if (want >= GGUF_MAX_READ_BYTES) {
            st = gpuplan_error_set(
                err, GPUPLAN_ERR_TOO_LARGE, path, "GGUF metadata and tensor infos exceed %llu MiB",
                (unsigned long long)(GGUF_MAX_READ_BYTES / GPUPLAN_BYTES_PER_MIB));
            gpuplan_error_hint(err, "the file is corrupt, or its metadata is unusually large");
            goto out;
        }
        want *= GGUF_GROWTH;
        want = want < size ? want : size;
        want = want < GGUF_MAX_READ_BYTES ? want : GGUF_MAX_READ_BYTES;
    }
    if (st != GPUPLAN_OK)
        goto out;
    st = gpuplan_gguf_append(&g, buf, path, model, err);
    if (st == GPUPLAN_OK) {
        model->storage_from_file = true;
        model->file_bytes += size;
        model->n_metadata = g.n_kv;
        const char *ft = gpuplan_gguf_file_type_name(g.file_type);
        if (ft)
            (void)snprintf(model->gguf_file_type, sizeof model->gguf_file_type, "%s", ft);
    }
out:
    gpuplan_gguf_release(&g);
    free(buf);
    close(fd);
    return st;
}

static bool is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Parse config.json into a scratch model and take its architecture (tensors come from weights). */
static enum gpuplan_status
arch_from_config(struct gpuplan_model *model, const char *config_path, struct gpuplan_error *err)
{
    uint8_t *json = NULL;
    size_t len = 0;
    enum gpuplan_status st = read_json_file(config_path, &json, &len, err);
    if (st != GPUPLAN_OK)
        return st;
    struct gpuplan_model scratch;
    gpuplan_model_init(&scratch);
    st = gpuplan_model_from_hf_config(&scratch, json, len, config_path, err);
    if (st == GPUPLAN_OK) {
        model->arch = scratch.arch;
        model->has_arch = true;
    }
    gpuplan_model_release(&scratch);
    free(json);
    return st;
}

static enum gpuplan_status
config_model(struct gpuplan_model *model, const char *config_path, struct gpuplan_error *err)
{
    uint8_t *json = NULL;
    size_t len = 0;
    enum gpuplan_status st = read_json_file(config_path, &json, &len, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_model_from_hf_config(model, json, len, config_path, err);
    free(json);
    return st;
}

/* The directory part of `path` ("." when none). */
static void dir_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        (void)snprintf(out, size, ".");
    else if (slash == path)
        (void)snprintf(out, size, "/");
    else
        (void)snprintf(out, size, "%.*s", (int)(slash - path), path);
}

/*
 * An index: every shard beside it is read and checked against the
 * weight_map; with no shard present, the inventory comes from config.json
 * beside it when there is one, else only total_size is known.
 */
static enum gpuplan_status load_index(struct gpuplan_model *model,
                                      const char *path,
                                      bool *has_weights,
                                      struct gpuplan_error *err)
{
    char dir[PATH_MAX], file[PATH_MAX], config[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    uint8_t *json = NULL;
    size_t len = 0;
    struct gpuplan_st_index index;
    gpuplan_st_index_init(&index);
    enum gpuplan_status st = read_json_file(path, &json, &len, err);
    if (st == GPUPLAN_OK)
        st = gpuplan_st_index_parse(json, len, path, &index, err);
    if (st == GPUPLAN_OK)
        st = join_path(config, sizeof config, dir, "config.json", err);
    if (st != GPUPLAN_OK)
        goto out;
    model->index_total_size_bytes = index.total_size_bytes;
    size_t present = 0;
    const char *missing = NULL;
    for (size_t i = 0; i < index.n_shards && st == GPUPLAN_OK; i++) {
        st = join_path(file, sizeof file, dir, index.shards[i], err);
        if (st == GPUPLAN_OK && is_regular(file))
            present++;
        else if (!missing)
            missing = index.shards[i];
    }
    if (st != GPUPLAN_OK)
        goto out;
    if (present > 0 && present < index.n_shards) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, path,
                               "shard '%s' named by the index is missing (%zu of %zu shards "
                               "present)",
                               missing, present, index.n_shards);
        gpuplan_error_hint(err, "download every shard, or none to plan from the index total_size");
        goto out;
    }
    if (present == 0) {
        *has_weights = false;
        if (is_regular(config))
            st = config_model(model, config, err);
        goto out;
    }
    size_t n_tensors = 0;
    for (size_t i = 0; i < index.n_shards && st == GPUPLAN_OK; i++) {
        st = join_path(file, sizeof file, dir, index.shards[i], err);
        if (st == GPUPLAN_OK)
            st = load_safetensors_file(model, file, &index, index.shards[i], &n_tensors, err);
    }
    if (st == GPUPLAN_OK && n_tensors != index.n_tensors)
        st = gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, path,
                               "the shards hold %zu tensors; the index maps %zu", n_tensors,
                               index.n_tensors);
    *has_weights = true;
out:
    gpuplan_st_index_release(&index);
    free(json);
    return st;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in `dir` ending in `suffix`, sorted; *out is malloc'd (free each name and the array). */
static enum gpuplan_status
list_dir(const char *dir, const char *suffix, char ***out, size_t *n, struct gpuplan_error *err)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return open_failed(dir, errno, err);
    size_t cap = 0;
    enum gpuplan_status st = GPUPLAN_OK;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL && st == GPUPLAN_OK) {
        if (e->d_name[0] == '.' || !ends_with(e->d_name, suffix))
            continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            char **grown = realloc(*out, cap * sizeof *grown);
            if (!grown) {
                st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, dir, "out of memory");
                break;
            }
            *out = grown;
        }
        (*out)[*n] = strdup(e->d_name);
        if (!(*out)[*n])
            st = gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, dir, "out of memory");
        else
            (*n)++;
    }
    closedir(d);
    if (*n > 1)
        qsort(*out, *n, sizeof **out, cmp_names);
    return st;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Weights in a directory without model.safetensors or an index: *.safetensors, or one *.gguf. */
static enum gpuplan_status load_dir_weights(struct gpuplan_model *model,
                                            const char *dir,
                                            bool *has_weights,
                                            struct gpuplan_error *err)
{
    char file[PATH_MAX];
    char **names = NULL;
    size_t n = 0;
    enum gpuplan_status st = list_dir(dir, ".safetensors", &names, &n, err);
    for (size_t i = 0; i < n && st == GPUPLAN_OK; i++) {
        st = join_path(file, sizeof file, dir, names[i], err);
        if (st == GPUPLAN_OK)
            st = load_safetensors_file(model, file, NULL, NULL, NULL, err);
        *has_weights = true;
    }
    free_names(names, n);
    if (st != GPUPLAN_OK || *has_weights)
        return st;
    st = list_dir(dir, ".gguf", &names, &n, err);
    if (st == GPUPLAN_OK && n > 1) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_UNSUPPORTED, dir,
                               "directory '%s' holds %zu .gguf files; pass one of them", dir, n);
        gpuplan_error_hint(err, "for example '%s/%s'", dir, names[0]);
    } else if (st == GPUPLAN_OK && n == 1) {
        st = join_path(file, sizeof file, dir, names[0], err);
        if (st == GPUPLAN_OK)
            st = load_gguf_file(model, file, err);
        *has_weights = true;
    }
    free_names(names, n);
    return st;
}

static enum gpuplan_status
load_dir(struct gpuplan_model *model, const char *dir, struct gpuplan_error *err)
{
    char config[PATH_MAX], file[PATH_MAX];
    enum gpuplan_status st = join_path(config, sizeof config, dir, "config.json", err);
    if (st != GPUPLAN_OK)
        return st;
    const bool has_config = is_regular(config);
    bool has_weights = false;
    if ((st = join_path(file, sizeof file, dir, "model.safetensors", err)) != GPUPLAN_OK)
        return st;
    if (is_regular(file)) {
        st = load_safetensors_file(model, file, NULL, NULL, NULL, err);
        has_weights = true;
    } else {
        if ((st = join_path(file, sizeof file, dir, "model.safetensors.index.json", err)))
            return st;
        if (is_regular(file)) {
            /* The index reads config.json itself when no shard is present. */
            st = load_index(model, file, &has_weights, err);
            if (st == GPUPLAN_OK && !has_weights)
                return GPUPLAN_OK;
        } else {
            st = load_dir_weights(model, dir, &has_weights, err);
        }
    }
    if (st != GPUPLAN_OK)
        return st;
    if (has_weights && has_config)
        return arch_from_config(model, config, err);
    if (!has_weights && has_config)
        return config_model(model, config, err);
    if (!has_weights) {
        gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, dir,
                          "no config.json, *.safetensors, index or *.gguf in directory '%s'", dir);
        gpuplan_error_hint(err, "pass a model directory, a weights file or a catalog id");
        return GPUPLAN_ERR_NOT_FOUND;
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status
load_file(struct gpuplan_model *model, const char *path, struct gpuplan_error *err)
{
    if (ends_with(path, ".gguf")) {
        (void)snprintf(model->format, sizeof model->format, "gguf");
        return load_gguf_file(model, path, err);
    }
    if (ends_with(path, ".safetensors")) {
        (void)snprintf(model->format, sizeof model->format, "safetensors");
        return load_safetensors_file(model, path, NULL, NULL, NULL, err);
    }
    if (ends_with(path, ".index.json")) {
        bool has_weights = false;
        enum gpuplan_status st = load_index(model, path, &has_weights, err);
        (void)snprintf(model->format, sizeof model->format, "index");
        if (st != GPUPLAN_OK || !has_weights)
            return st;
        char dir[PATH_MAX], config[PATH_MAX];
        dir_of(path, dir, sizeof dir);
        if (join_path(config, sizeof config, dir, "config.json", err) == GPUPLAN_OK &&
            is_regular(config))
            return arch_from_config(model, config, err);
        return GPUPLAN_OK;
    }
    if (ends_with(path, ".json"))
        return config_model(model, path, err);
    int fd;
    uint64_t size;
    enum gpuplan_status st = open_regular(path, &fd, &size, err);
    if (st != GPUPLAN_OK)
        return st;
    close(fd);
    gpuplan_error_set(err, GPUPLAN_ERR_UNSUPPORTED, path, "unknown model file type '%s'", path);
    gpuplan_error_hint(err, "pass a .gguf, .safetensors, .index.json or config .json file, a "
                            "model directory or a catalog id");
    return GPUPLAN_ERR_UNSUPPORTED;
}

/* id = the file's base name without extension; for generic names, the directory's name. */
static void set_id_from_path(struct gpuplan_model *model, const char *path)
{
    char trimmed[PATH_MAX];
    (void)snprintf(trimmed, sizeof trimmed, "%s", path);
    size_t n = strlen(trimmed);
    while (n > 1 && trimmed[n - 1] == '/')
        trimmed[--n] = '\0';
    char *slash = strrchr(trimmed, '/');
    const char *base = slash ? slash + 1 : trimmed;
    static const char *const generic[] = { "config.json", "model.safetensors",
                                           "model.safetensors.index.json" };
    for (size_t i = 0; i < sizeof generic / sizeof generic[0] && slash && slash > trimmed; i++) {
        if (strcmp(base, generic[i]) == 0) {
            *slash = '\0';
            const char *up = strrchr(trimmed, '/');
            base = up ? up + 1 : trimmed;
            break;
        }
    }
    size_t len = strlen(base);
    static const char *const exts[] = { ".safetensors.index.json", ".index.json", ".safetensors",
                                        ".gguf", ".json" };
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        if (len > strlen(exts[i]) && ends_with(base, exts[i])) {
            len -= strlen(exts[i]);
            break;
        }
    }
    if (len >= sizeof model->id)
        len = sizeof model->id - 1;
    memcpy(model->id, base, len);
    model->id[len] = '\0';
}

static bool looks_like_path(const char *name)
{
    return strchr(name, '/') || ends_with(name, ".json") || ends_with(name, ".gguf") ||
           ends_with(name, ".safetensors");
}

static enum gpuplan_status load_catalog(struct gpuplan_model *model,
                                        const char *name,
                                        const struct gpuplan_catalog *catalog,
                                        struct gpuplan_error *err)
{
    if (!catalog || (looks_like_path(name) && !gpuplan_catalog_find_model(catalog, name))) {
        gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, name, "no such file or model '%s'", name);
        gpuplan_error_hint(err, "pass a catalog id (see 'gpuplan models'), a model file or a "
                                "model directory");
        return GPUPLAN_ERR_NOT_FOUND;
    }
    const struct gpuplan_catalog_model *record = NULL;
    enum gpuplan_status st = gpuplan_catalog_get_model(catalog, name, &record, err);
    if (st != GPUPLAN_OK)
        return st;
    return gpuplan_model_load_catalog_record(model, record, err);
}

enum gpuplan_status gpuplan_model_load_catalog_record(struct gpuplan_model *model,
                                                      const struct gpuplan_catalog_model *record,
                                                      struct gpuplan_error *err)
{
    enum gpuplan_status st = gpuplan_model_from_hf_config(
        model, (const uint8_t *)record->config_json, record->config_json_len, record->id, err);
    if (st != GPUPLAN_OK)
        return st;
    (void)snprintf(model->id, sizeof model->id, "%s", record->id);
    (void)snprintf(model->source, sizeof model->source, "%s", record->source);
    (void)snprintf(model->format, sizeof model->format, "catalog");
    (void)snprintf(model->hub_id, sizeof model->hub_id, "%s", record->hf_repo);
    return GPUPLAN_OK;
}

static enum gpuplan_status load_path(struct gpuplan_model *model,
                                     const char *path,
                                     const struct stat *st_path,
                                     struct gpuplan_error *err)
{
    enum gpuplan_status st;
    if (S_ISDIR(st_path->st_mode)) {
        st = load_dir(model, path, err);
        if (st == GPUPLAN_OK && !model->format[0])
            (void)snprintf(model->format, sizeof model->format, "dir");
        if (st == GPUPLAN_OK && strcmp(model->format, "config") == 0)
            (void)snprintf(model->format, sizeof model->format, "dir");
    } else if (S_ISREG(st_path->st_mode)) {
        st = load_file(model, path, err);
    } else {
        gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, path,
                          "'%s' is not a regular file or directory", path);
        gpuplan_error_hint(err, "pass a model file, a model directory or a catalog id");
        return GPUPLAN_ERR_INVALID_INPUT;
    }
    if (st != GPUPLAN_OK)
        return st;
    set_id_from_path(model, path);
    (void)snprintf(model->source, sizeof model->source, "%s", path);
    /* Totals from the tensors; routed-expert activity needs the arch when it is known. */
    return gpuplan_model_finalize(model, err);
}

enum gpuplan_status
gpuplan_model_load_snapshot(struct gpuplan_model *model, const char *dir, struct gpuplan_error *err)
{
    struct stat st_path;
    if (stat(dir, &st_path) != 0)
        return open_failed(dir, errno, err);
    enum gpuplan_status st = load_path(model, dir, &st_path, err);
    if (st == GPUPLAN_OK)
        (void)snprintf(model->format, sizeof model->format, "hf-cache");
    return st;
}

enum gpuplan_status gpuplan_model_load(struct gpuplan_model *model,
                                       const char *name_or_path,
                                       const struct gpuplan_catalog *catalog,
                                       struct gpuplan_error *err)
{
    return gpuplan_model_load_hub(model, name_or_path, catalog, NULL, err);
}

enum gpuplan_status gpuplan_model_load_hub(struct gpuplan_model *model,
                                           const char *name_or_path,
                                           const struct gpuplan_catalog *catalog,
                                           const char *hub_cache_dir,
                                           struct gpuplan_error *err)
{
    gpuplan_model_init(model);
    if (!name_or_path || !*name_or_path)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "no model given; pass a catalog id or a path");
    struct stat st_path;
    enum gpuplan_status st;
    if (stat(name_or_path, &st_path) == 0)
        st = load_path(model, name_or_path, &st_path, err);
    else if ((errno == ENOENT || errno == ENOTDIR) && gpuplan_hub_id_valid(name_or_path) &&
             !gpuplan_catalog_find_model(catalog, name_or_path))
        st = gpuplan_model_load_hub_id(model, name_or_path, catalog, hub_cache_dir, err);
    else if (errno == ENOENT || errno == ENOTDIR)
        st = load_catalog(model, name_or_path, catalog, err);
    else
        st = gpuplan_error_set(err, GPUPLAN_ERR_IO, name_or_path, "cannot access '%s': %s",
                               name_or_path, strerror(errno));
    if (st != GPUPLAN_OK)
        gpuplan_model_release(model);
    else if (!model->has_arch && model->n_groups == 0 && model->index_total_size_bytes)
        model->storage_bytes = model->index_total_size_bytes;
    return st;
}
