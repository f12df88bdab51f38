/*
 * config_tree.c - YAML or JSON bytes -> a bounded tree of scalars, mappings
 * and sequences with positions, for the framework config readers.
 *
 * YAML goes through libyaml's event parser (yaml_parser_parse), so every
 * bound is checked as the events stream in and nothing is built past it:
 * input size, nesting depth, node count, keys per mapping, scalar length.
 * One document only; mapping keys must be scalars and unique; anchors are
 * accepted, aliases refused (they would let a small file expand into a huge
 * one). Scalars keep their text: types are resolved by the getters in
 * config_read.c, the way PyYAML's resolver reads plain scalars.
 *
 * JSON (a file starting with { or [, unless it is named .yaml/.yml) goes
 * through the project's jansson reader (util/json_internal.h),
 * then the same bounds apply while the DOM is copied into the tree.
 *
 * Not here: what any key means.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config/config_internal.h"
#include "util/json_internal.h"

void cfg_tree_release(struct cfg_tree *tree)
{
    if (!tree)
        return;
    free(tree->nodes);
    free(tree->text);
    memset(tree, 0, sizeof *tree);
    tree->root = CFG_NONE;
}

static enum gpuplan_status tree_fail(struct gpuplan_error *err,
                                     enum gpuplan_status code,
                                     const char *name,
                                     uint32_t line,
                                     uint32_t col)
{
    if (!err)
        return code;
    err->code = code;
    if (line > 0)
        (void)snprintf(err->where, sizeof err->where, "%s:%u:%u", name, line, col);
    else
        (void)snprintf(err->where, sizeof err->where, "%s", name);
    return code;
}

static enum gpuplan_status too_many(struct gpuplan_error *err,
                                    const char *name,
                                    uint32_t line,
                                    uint32_t col,
                                    const char *what,
                                    unsigned limit)
{
    gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, NULL, "'%s' has more than %u %s", name, limit,
                      what);
    gpuplan_error_hint(err, "a training config is a few hundred keys; is this the right file?");
    return tree_fail(err, GPUPLAN_ERR_TOO_LARGE, name, line, col);
}

/* Append a node under `parent` (CFG_NONE for the root). */
static enum gpuplan_status add_node(struct cfg_tree *t,
                                    uint32_t parent,
                                    const struct cfg_node *proto,
                                    uint32_t *out,
                                    const char *name,
                                    struct gpuplan_error *err)
{
    if (t->n_nodes >= GPUPLAN_CONFIG_MAX_NODES)
        return too_many(err, name, proto->line, proto->col, "values", GPUPLAN_CONFIG_MAX_NODES);
    if (parent != CFG_NONE && t->nodes[parent].type == CFG_MAP &&
        t->nodes[parent].n_children >= 2U * GPUPLAN_CONFIG_MAX_KEYS)
        return too_many(err, name, proto->line, proto->col, "keys in one mapping",
                        GPUPLAN_CONFIG_MAX_KEYS);
    if (t->n_nodes == t->cap_nodes) {
        const uint32_t cap = t->cap_nodes ? t->cap_nodes * 2U : 64U;
        struct cfg_node *grown = realloc(t->nodes, (size_t)cap * sizeof *grown);
        if (!grown)
            return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, name, "out of memory reading '%s'",
                                     name);
        t->nodes = grown;
        t->cap_nodes = cap;
    }
    const uint32_t i = t->n_nodes++;
    t->nodes[i] = *proto;
    t->nodes[i].first = CFG_NONE;
    t->nodes[i].last = CFG_NONE;
    t->nodes[i].next = CFG_NONE;
    t->nodes[i].n_children = 0;
    if (parent == CFG_NONE) {
        t->root = i;
    } else {
        struct cfg_node *p = &t->nodes[parent];
        if (p->last == CFG_NONE)
            p->first = i;
        else
            t->nodes[p->last].next = i;
        p->last = i;
        p->n_children++;
    }
    *out = i;
    return GPUPLAN_OK;
}

/* Copy scalar text into the arena (NUL-terminated) and point `n` at it. */
static enum gpuplan_status add_text(struct cfg_tree *t,
                                    struct cfg_node *n,
                                    const char *text,
                                    size_t len,
                                    const char *name,
                                    struct gpuplan_error *err)
{
    if (len > GPUPLAN_CONFIG_MAX_SCALAR) {
        gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, NULL,
                          "a value in '%s' is %zu bytes long; must be <= %u", name, len,
                          GPUPLAN_CONFIG_MAX_SCALAR);
        gpuplan_error_hint(err, "config values are names, numbers and paths");
        return tree_fail(err, GPUPLAN_ERR_TOO_LARGE, name, n->line, n->col);
    }
    if (t->text_len + len + 1 > t->cap_text) {
        size_t cap = t->cap_text ? t->cap_text : 4096;
        while (cap < t->text_len + len + 1)
            cap *= 2;
        char *grown = realloc(t->text, cap);
        if (!grown)
            return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, name, "out of memory reading '%s'",
                                     name);
        t->text = grown;
        t->cap_text = cap;
    }
    if (len)
        memcpy(t->text + t->text_len, text, len);
    t->text[t->text_len + len] = '\0';
    n->text_off = (uint32_t)t->text_len;
    n->text_len = (uint32_t)len;
    t->text_len += len + 1;
    return GPUPLAN_OK;
}

const struct cfg_node *
cfg_get(const struct cfg_tree *t, const struct cfg_node *map, const char *key)
{
    if (!map || map->type != CFG_MAP)
        return NULL;
    for (uint32_t k = map->first; k != CFG_NONE;) {
        const struct cfg_node *kn = &t->nodes[k];
        const uint32_t v = kn->next;
        if (v == CFG_NONE)
            return NULL;
        if (strcmp(cfg_text(t, kn), key) == 0)
            return &t->nodes[v];
        k = t->nodes[v].next;
    }
    return NULL;
}

/* Refuse a second key equal to the one just added to `map` (YAML requires unique keys). */
static enum gpuplan_status check_unique_key(const struct cfg_tree *t,
                                            uint32_t map,
                                            uint32_t key,
                                            const char *name,
                                            struct gpuplan_error *err)
{
    const struct cfg_node *kn = &t->nodes[key];
    for (uint32_t k = t->nodes[map].first; k != CFG_NONE && k != key;) {
        const struct cfg_node *other = &t->nodes[k];
        if (other->text_len == kn->text_len &&
            memcmp(cfg_text(t, other), cfg_text(t, kn), kn->text_len) == 0) {
            gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, NULL,
                              "duplicate key '%.64s' in '%s' (first at line %u)", cfg_text(t, kn),
                              name, other->line);
            gpuplan_error_hint(err, "keep one of them: frameworks silently use the last one");
            return tree_fail(err, GPUPLAN_ERR_INVALID_INPUT, name, kn->line, kn->col);
        }
        const uint32_t v = other->next;
        k = v == CFG_NONE ? CFG_NONE : t->nodes[v].next;
    }
    return GPUPLAN_OK;
}

/* ---- YAML ---- */

struct yaml_state {
    struct cfg_tree *t;
    const char *name;
    struct gpuplan_error *err;
    uint32_t stack[GPUPLAN_CONFIG_MAX_DEPTH + 1];
    uint32_t depth;
    unsigned n_documents;
};

static bool map_expects_key(const struct yaml_state *s)
{
    if (s->depth == 0)
        return false;
    const struct cfg_node *p = &s->t->nodes[s->stack[s->depth - 1]];
    return p->type == CFG_MAP && p->n_children % 2U == 0U;
}

static uint32_t parent_of(const struct yaml_state *s)
{
    return s->depth ? s->stack[s->depth - 1] : CFG_NONE;
}

static enum gpuplan_status
yaml_fail(struct yaml_state *s, const yaml_mark_t *mark, const char *message)
{
    gpuplan_error_set(s->err, GPUPLAN_ERR_INVALID_INPUT, NULL, "%s in '%s'", message, s->name);
    return tree_fail(s->err, GPUPLAN_ERR_INVALID_INPUT, s->name, (uint32_t)mark->line + 1U,
                     (uint32_t)mark->column + 1U);
}

static bool is_plain_null(const char *text, size_t len)
{
    return len == 0 || (len == 1 && text[0] == '~') ||
           (len == 4 && (memcmp(text, "null", 4) == 0 || memcmp(text, "Null", 4) == 0 ||
                         memcmp(text, "NULL", 4) == 0));
}

static enum gpuplan_status yaml_scalar(struct yaml_state *s, const yaml_event_t *ev)
{
    const bool is_key = map_expects_key(s);
    struct cfg_node n;
    memset(&n, 0, sizeof n);
    n.line = (uint32_t)ev->start_mark.line + 1U;
    n.col = (uint32_t)ev->start_mark.column + 1U;
    const char *text = (const char *)ev->data.scalar.value;
    const size_t len = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    n.quoted =
        ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE || (tag && strcmp(tag, YAML_STR_TAG) == 0);
    n.type = (!n.quoted && is_plain_null(text, len) && !is_key) ? CFG_NULL : CFG_SCALAR;
    uint32_t idx = 0;
    enum gpuplan_status st = add_text(s->t, &n, text, len, s->name, s->err);
    if (st == GPUPLAN_OK)
        st = add_node(s->t, parent_of(s), &n, &idx, s->name, s->err);
    if (st == GPUPLAN_OK && is_key)
        st = check_unique_key(s->t, parent_of(s), idx, s->name, s->err);
    return st;
}

static enum gpuplan_status
yaml_open(struct yaml_state *s, const yaml_event_t *ev, enum cfg_type type)
{
    if (map_expects_key(s))
        return yaml_fail(s, &ev->start_mark,
                         "a mapping key must be a plain value, not a collection");
    if (s->depth >= GPUPLAN_CONFIG_MAX_DEPTH) {
        gpuplan_error_set(s->err, GPUPLAN_ERR_TOO_LARGE, NULL, "'%s' nests deeper than %u levels",
                          s->name, GPUPLAN_CONFIG_MAX_DEPTH);
        return tree_fail(s->err, GPUPLAN_ERR_TOO_LARGE, s->name, (uint32_t)ev->start_mark.line + 1U,
                         (uint32_t)ev->start_mark.column + 1U);
    }
    struct cfg_node n;
    memset(&n, 0, sizeof n);
    n.type = type;
    n.line = (uint32_t)ev->start_mark.line + 1U;
    n.col = (uint32_t)ev->start_mark.column + 1U;
    uint32_t idx = 0;
    const enum gpuplan_status st = add_node(s->t, parent_of(s), &n, &idx, s->name, s->err);
    if (st == GPUPLAN_OK)
        s->stack[s->depth++] = idx;
    return st;
}

/* One event; *done at STREAM_END. */
static enum gpuplan_status yaml_event(struct yaml_state *s, const yaml_event_t *ev, bool *done)
{
    switch (ev->type) {
    case YAML_STREAM_START_EVENT:
    case YAML_DOCUMENT_END_EVENT:
    case YAML_NO_EVENT:
        return GPUPLAN_OK;
    case YAML_STREAM_END_EVENT:
        *done = true;
        return GPUPLAN_OK;
    case YAML_DOCUMENT_START_EVENT:
        if (++s->n_documents > 1)
            return yaml_fail(s, &ev->start_mark, "more than one YAML document");
        return GPUPLAN_OK;
    case YAML_ALIAS_EVENT: {
        gpuplan_error_set(s->err, GPUPLAN_ERR_UNSUPPORTED, NULL,
                          "YAML alias '*%.64s' in '%s' is not supported", ev->data.alias.anchor,
                          s->name);
        gpuplan_error_hint(s->err, "write the value out in full where the alias is");
        return tree_fail(s->err, GPUPLAN_ERR_UNSUPPORTED, s->name,
                         (uint32_t)ev->start_mark.line + 1U, (uint32_t)ev->start_mark.column + 1U);
    }
    case YAML_SCALAR_EVENT:
        return yaml_scalar(s, ev);
    case YAML_SEQUENCE_START_EVENT:
        return yaml_open(s, ev, CFG_SEQ);
    case YAML_MAPPING_START_EVENT:
        return yaml_open(s, ev, CFG_MAP);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        if (s->depth > 0)
            s->depth--;
        return GPUPLAN_OK;
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status parse_yaml(struct cfg_tree *t,
                                      const uint8_t *bytes,
                                      size_t len,
                                      const char *name,
                                      struct gpuplan_error *err)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, name, "out of memory reading '%s'", name);
    yaml_parser_set_input_string(&parser, bytes, len);
    struct yaml_state s;
    memset(&s, 0, sizeof s);
    s.t = t;
    s.name = name;
    s.err = err;
    enum gpuplan_status st = GPUPLAN_OK;
    bool done = false;
    while (st == GPUPLAN_OK && !done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, NULL, "YAML syntax error in '%s': %s",
                              name, parser.problem ? parser.problem : "unreadable");
            gpuplan_error_hint(err, "%s",
                               parser.context ? parser.context : "check the indentation");
            st = tree_fail(err, GPUPLAN_ERR_INVALID_INPUT, name,
                           (uint32_t)parser.problem_mark.line + 1U,
                           (uint32_t)parser.problem_mark.column + 1U);
            break;
        }
        st = yaml_event(&s, &ev, &done);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return st;
}

/* ---- JSON ---- */

static enum gpuplan_status tree_from_json(struct cfg_tree *t,
                                          const json_t *v,
                                          uint32_t parent,
                                          uint32_t depth,
                                          const char *name,
                                          struct gpuplan_error *err);

static enum gpuplan_status tree_from_json_scalar(struct cfg_tree *t,
                                                 const json_t *v,
                                                 uint32_t parent,
                                                 const char *name,
                                                 struct gpuplan_error *err)
{
    struct cfg_node n;
    memset(&n, 0, sizeof n);
    char number[64];
    const char *text = "";
    size_t len = 0;
    if (json_is_string(v)) {
        n.type = CFG_SCALAR;
        n.quoted = true;
        text = json_string_value(v);
        len = json_string_length(v);
        if (memchr(text, '\0', len))
            return gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, name,
                                     "a string in '%s' contains a NUL character", name);
    } else if (json_is_integer(v)) {
        n.type = CFG_NUMBER;
        len = (size_t)snprintf(number, sizeof number, "%lld", (long long)json_integer_value(v));
        text = number;
    } else if (json_is_real(v)) {
        n.type = CFG_NUMBER;
        /* The shortest text that reads back as the same double (0.1, not 0.10000000000000001). */
        const double d = json_real_value(v);
        len = (size_t)snprintf(number, sizeof number, "%.15g", d);
        if (strtod(number, NULL) != d)
            len = (size_t)snprintf(number, sizeof number, "%.17g", d);
        text = number;
    } else if (json_is_boolean(v)) {
        n.type = CFG_BOOL;
        n.bool_value = json_is_true(v);
        text = n.bool_value ? "true" : "false";
        len = strlen(text);
    } else {
        n.type = CFG_NULL;
    }
    uint32_t idx = 0;
    enum gpuplan_status st = add_text(t, &n, text, len, name, err);
    if (st == GPUPLAN_OK)
        st = add_node(t, parent, &n, &idx, name, err);
    return st;
}

static enum gpuplan_status tree_from_json(struct cfg_tree *t,
                                          const json_t *v,
                                          uint32_t parent,
                                          uint32_t depth,
                                          const char *name,
                                          struct gpuplan_error *err)
{
    if (!json_is_object(v) && !json_is_array(v))
        return tree_from_json_scalar(t, v, parent, name, err);
    if (depth >= GPUPLAN_CONFIG_MAX_DEPTH) {
        gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, NULL, "'%s' nests deeper than %u levels",
                          name, GPUPLAN_CONFIG_MAX_DEPTH);
        return tree_fail(err, GPUPLAN_ERR_TOO_LARGE, name, 0, 0);
    }
    struct cfg_node n;
    memset(&n, 0, sizeof n);
    n.type = json_is_object(v) ? CFG_MAP : CFG_SEQ;
    uint32_t idx = 0;
    enum gpuplan_status st = add_node(t, parent, &n, &idx, name, err);
    if (st != GPUPLAN_OK)
        return st;
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v) && st == GPUPLAN_OK; i++)
            st = tree_from_json(t, json_array_get(v, i), idx, depth + 1U, name, err);
        return st;
    }
    const char *key;
    json_t *child;
    /* jansson keeps insertion order, so notes follow the file. */
    json_object_foreach((json_t *)(uintptr_t)v, key, child)
    {
        struct cfg_node k;
        memset(&k, 0, sizeof k);
        k.type = CFG_SCALAR;
        k.quoted = true;
        uint32_t kidx = 0;
        st = add_text(t, &k, key, strlen(key), name, err);
        if (st == GPUPLAN_OK)
            st = add_node(t, idx, &k, &kidx, name, err);
        if (st == GPUPLAN_OK)
            st = tree_from_json(t, child, idx, depth + 1U, name, err);
        if (st != GPUPLAN_OK)
            return st;
    }
    return GPUPLAN_OK;
}

static enum gpuplan_status parse_json(struct cfg_tree *t,
                                      const uint8_t *bytes,
                                      size_t len,
                                      const char *name,
                                      struct gpuplan_error *err)
{
    json_t *root = NULL;
    enum gpuplan_status st = gpuplan_json_parse(bytes, len, name, false, &root, err);
    if (st != GPUPLAN_OK)
        return st;
    st = tree_from_json(t, root, CFG_NONE, 0, name, err);
    json_decref(root);
    return st;
}

enum gpuplan_status cfg_tree_parse(struct cfg_tree *tree,
                                   const uint8_t *bytes,
                                   size_t len,
                                   const char *name,
                                   struct gpuplan_error *err)
{
    memset(tree, 0, sizeof *tree);
    tree->root = CFG_NONE;
    if (len > GPUPLAN_CONFIG_MAX_BYTES) {
        gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, name, "'%s' is %zu bytes; must be <= %u",
                          name, len, GPUPLAN_CONFIG_MAX_BYTES);
        gpuplan_error_hint(err, "training configs are a few KB; is this the right file?");
        return GPUPLAN_ERR_TOO_LARGE;
    }
    size_t i = 0;
    if (len >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF)
        i = 3; /* UTF-8 byte order mark */
    while (i < len && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\n' || bytes[i] == '\r'))
        i++;
    /* JSON starts with '{' or '['; a YAML file may too (a flow mapping), so its name decides. */
    const size_t name_len = strlen(name);
    const bool yaml_name = (name_len >= 5 && strcmp(name + name_len - 5, ".yaml") == 0) ||
                           (name_len >= 4 && strcmp(name + name_len - 4, ".yml") == 0);
    const bool is_json = !yaml_name && i < len && (bytes[i] == '{' || bytes[i] == '[');
    tree->is_json = is_json;
    /* JSON's text starts after a BOM: jansson refuses one, Python's json.load too. */
    enum gpuplan_status st = is_json ? parse_json(tree, bytes + i, len - i, name, err)
                                     : parse_yaml(tree, bytes, len, name, err);
    if (st == GPUPLAN_OK && tree->root == CFG_NONE) {
        gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, name, "'%s' is empty", name);
        gpuplan_error_hint(err, "pass a YAML or JSON config file");
        st = GPUPLAN_ERR_INVALID_INPUT;
    }
    if (st == GPUPLAN_OK && tree->nodes[tree->root].type != CFG_MAP) {
        gpuplan_error_set(err, GPUPLAN_ERR_INVALID_INPUT, NULL,
                          "'%s' is not a mapping of keys to values", name);
        gpuplan_error_hint(err, "a config file is a YAML mapping or a JSON object at the top");
        st = tree_fail(err, GPUPLAN_ERR_INVALID_INPUT, name, tree->nodes[tree->root].line,
                       tree->nodes[tree->root].col);
    }
    if (st != GPUPLAN_OK)
        cfg_tree_release(tree);
    return st;
}
