/*
 * options.c - the option-table engine (options.h): find an option, parse
 * and store its value, apply a table's defaults, print a value back, and
 * parse a command line over several tables.
 *
 * Values are checked here once for every front-end: counts and reals
 * against the entry's range, choices against its names (with "did you
 * mean", suggest_internal.h), text against the field's size. Nothing is
 * stored unless the whole value is good.
 *
 * Not here: what an option means (the tables' owners: job.c, plan.c,
 * cost.c, request.c, the CLI), JSON bodies (api/request.c).
 */
#include "gpuplan/options.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/units.h"

#include "util/i18n_internal.h"
#include "util/suggest_internal.h"

/* Longest option name compared (longer names are unknown options). */
#define NAME_MAX_BYTES 64

static void *field_at(void *dest, size_t offset)
{
    return (char *)dest + offset;
}

static const void *field_at_const(const void *dest, size_t offset)
{
    return (const char *)dest + offset;
}

/* "seq_len" and "--seq-len" both name "seq-len". */
static bool same_name(const char *option_name, const char *name)
{
    while (*name == '-')
        name++;
    for (; *option_name && *name; option_name++, name++) {
        const char c = *name == '_' ? '-' : *name;
        if (c != *option_name)
            return false;
    }
    return *option_name == '\0' && *name == '\0';
}

const struct gpuplan_option *gpuplan_options_find(const struct gpuplan_option *table,
                                                  const char *name)
{
    for (const struct gpuplan_option *o = table; name && o->name; o++) {
        if (same_name(o->name, name))
            return o;
    }
    return NULL;
}

static int choice_value(const struct gpuplan_option *opt, size_t i)
{
    return opt->choice_values ? opt->choice_values[i] : (int)i;
}

static bool choice_accepted(const struct gpuplan_option *opt, size_t i)
{
    const int v = choice_value(opt, i);
    return opt->choice_mask == 0 || (v >= 0 && v < 32 && (opt->choice_mask & (1u << v)));
}

bool gpuplan_option_lists_choice(const struct gpuplan_option *opt, size_t i)
{
    if (!choice_accepted(opt, i))
        return false;
    for (size_t k = 0; k < i; k++) {
        if (choice_value(opt, k) == choice_value(opt, i))
            return false; /* an alias of an earlier name */
    }
    return true;
}

void gpuplan_option_arg(const struct gpuplan_option *opt, char *out, size_t out_size)
{
    out[0] = '\0';
    if (opt->kind == GPUPLAN_OPTION_FLAG)
        return;
    if (opt->arg || opt->kind != GPUPLAN_OPTION_CHOICE || !opt->choices) {
        (void)snprintf(out, out_size, "%s", opt->arg ? opt->arg : "");
        return;
    }
    size_t used = 0;
    for (size_t i = 0; opt->choices[i]; i++) {
        if (!gpuplan_option_lists_choice(opt, i))
            continue;
        const int n =
            snprintf(out + used, out_size - used, "%s%s", used ? "|" : "", opt->choices[i]);
        if (n < 0 || (size_t)n >= out_size - used)
            return;
        used += (size_t)n;
    }
}

/* ---- storing a value ---- */

static void store_int(const struct gpuplan_option *opt, void *dest, long long v)
{
    void *p = field_at(dest, opt->offset);
    switch (opt->field) {
    case GPUPLAN_FIELD_BOOL: {
        const bool b = v != 0;
        memcpy(p, &b, sizeof b);
        break;
    }
    case GPUPLAN_FIELD_INT: {
        const int i = (int)v;
        memcpy(p, &i, sizeof i);
        break;
    }
    case GPUPLAN_FIELD_U32: {
        const uint32_t u = (uint32_t)v;
        memcpy(p, &u, sizeof u);
        break;
    }
    case GPUPLAN_FIELD_U64: {
        const uint64_t u = (uint64_t)v;
        memcpy(p, &u, sizeof u);
        break;
    }
    case GPUPLAN_FIELD_DOUBLE: {
        const double d = (double)v;
        memcpy(p, &d, sizeof d);
        break;
    }
    case GPUPLAN_FIELD_NONE:
    case GPUPLAN_FIELD_CHARS:
    case GPUPLAN_FIELD_STRING:
        break;
    }
}

static void store_u64(const struct gpuplan_option *opt, void *dest, uint64_t v)
{
    void *p = field_at(dest, opt->offset);
    if (opt->field == GPUPLAN_FIELD_U64) {
        memcpy(p, &v, sizeof v);
    } else if (opt->field == GPUPLAN_FIELD_U32) {
        const uint32_t u = (uint32_t)v; /* count_max <= UINT32_MAX (unit tests) */
        memcpy(p, &u, sizeof u);
    } else if (opt->field == GPUPLAN_FIELD_DOUBLE) {
        const double d = (double)v;
        memcpy(p, &d, sizeof d);
    }
}

static enum gpuplan_status set_choice(const struct gpuplan_option *opt,
                                      void *dest,
                                      const char *text,
                                      struct gpuplan_error *err)
{
    for (size_t i = 0; opt->choices[i]; i++) {
        if (!choice_accepted(opt, i) || strcasecmp(opt->choices[i], text) != 0)
            continue;
        if (opt->parse)
            return opt->parse(dest, opt, opt->choices[i], err);
        store_int(opt, dest, choice_value(opt, i));
        return GPUPLAN_OK;
    }
    char names[256];
    gpuplan_option_arg(opt, names, sizeof names);
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'--%s' is '%s'; must be one of %s", opt->name,
                      text, names);
    struct gpuplan_suggest s;
    gpuplan_suggest_init(&s, text);
    for (size_t i = 0; opt->choices[i]; i++) {
        if (gpuplan_option_lists_choice(opt, i))
            gpuplan_suggest_add(&s, opt->choices[i]);
    }
    if (s.n)
        gpuplan_error_hint(err, "did you mean '%s'?", s.best[0].text);
    return GPUPLAN_ERR_USAGE;
}

static enum gpuplan_status
set_count(const struct gpuplan_option *opt, void *dest, const char *text, struct gpuplan_error *err)
{
    uint64_t v = 0;
    if (!gpuplan_parse_count(text, &v) || v < opt->count_min || v > opt->count_max) {
        gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                          "'--%s' is '%s'; must be an integer in %llu..%llu", opt->name, text,
                          (unsigned long long)opt->count_min, (unsigned long long)opt->count_max);
        gpuplan_error_hint(err, "counts accept suffixes: 8k, 70e9, 1M");
        return GPUPLAN_ERR_USAGE;
    }
    if (opt->parse)
        return opt->parse(dest, opt, text, err);
    store_u64(opt, dest, v);
    return GPUPLAN_OK;
}

static enum gpuplan_status
set_real(const struct gpuplan_option *opt, void *dest, const char *text, struct gpuplan_error *err)
{
    double v = 0.0;
    const bool ranged = opt->real_min != 0.0 || opt->real_max != 0.0;
    if (!gpuplan_parse_double(text, &v) || (ranged && (v < opt->real_min || v > opt->real_max))) {
        if (ranged)
            return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                     "'--%s' is '%s'; must be a number in %g..%g", opt->name, text,
                                     opt->real_min, opt->real_max);
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'--%s' is '%s'; must be a number",
                                 opt->name, text);
    }
    memcpy(field_at(dest, opt->offset), &v, sizeof v);
    return GPUPLAN_OK;
}

static enum gpuplan_status
set_text(const struct gpuplan_option *opt, void *dest, const char *text, struct gpuplan_error *err)
{
    if (opt->parse)
        return opt->parse(dest, opt, text, err);
    if (opt->field == GPUPLAN_FIELD_STRING) {
        memcpy(field_at(dest, opt->offset), &text, sizeof text);
        return GPUPLAN_OK;
    }
    const size_t n = strlen(text);
    if (opt->field != GPUPLAN_FIELD_CHARS || n >= opt->size)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                 "'--%s' is longer than %zu characters", opt->name,
                                 opt->size ? opt->size - 1 : 0);
    memcpy(field_at(dest, opt->offset), text, n + 1);
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_option_set(const struct gpuplan_option *opt,
                                       void *dest,
                                       const char *text,
                                       bool mark_set,
                                       struct gpuplan_error *err)
{
    enum gpuplan_status st = GPUPLAN_OK;
    if (opt->kind != GPUPLAN_OPTION_FLAG && !text)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "option '--%s' needs a value",
                                 opt->name);
    switch (opt->kind) {
    case GPUPLAN_OPTION_CHOICE:
        st = set_choice(opt, dest, text, err);
        break;
    case GPUPLAN_OPTION_COUNT:
        st = set_count(opt, dest, text, err);
        break;
    case GPUPLAN_OPTION_REAL:
        st = set_real(opt, dest, text, err);
        break;
    case GPUPLAN_OPTION_FLAG:
        if (text)
            return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                     "'--%s' takes no value; got '%s'", opt->name, text);
        store_int(opt, dest, opt->field == GPUPLAN_FIELD_BOOL ? 1 : opt->flag_value);
        break;
    case GPUPLAN_OPTION_TEXT:
        st = set_text(opt, dest, text, err);
        break;
    }
    if (st == GPUPLAN_OK && mark_set && opt->set_offset != GPUPLAN_OPTION_NO_SET) {
        const bool given = true;
        memcpy(field_at(dest, opt->set_offset), &given, sizeof given);
    }
    return st;
}

/* "unknown option '--x'" with the nearest names of `tables` as the hint. */
static enum gpuplan_status unknown_option(const struct gpuplan_option_group *groups,
                                          size_t n_groups,
                                          const char *name,
                                          struct gpuplan_error *err)
{
    gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "unknown option '--%s'", name);
    struct gpuplan_suggest s;
    gpuplan_suggest_init(&s, name);
    for (size_t g = 0; g < n_groups; g++) {
        for (const struct gpuplan_option *o = groups[g].options; o->name; o++) {
            if (!(o->flags & groups[g].refuse))
                gpuplan_suggest_add(&s, o->name);
        }
    }
    if (s.n)
        gpuplan_error_hint(err, "did you mean '--%s'?", s.best[0].text);
    return GPUPLAN_ERR_USAGE;
}

enum gpuplan_status gpuplan_options_set(const struct gpuplan_option *table,
                                        void *dest,
                                        const char *name,
                                        const char *text,
                                        struct gpuplan_error *err)
{
    if (!name)
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "option name is required");
    const struct gpuplan_option *opt = gpuplan_options_find(table, name);
    if (!opt) {
        const struct gpuplan_option_group group = { table, dest, 0 };
        char key[NAME_MAX_BYTES];
        while (*name == '-')
            name++;
        (void)snprintf(key, sizeof key, "%s", name);
        for (char *p = key; *p; p++)
            *p = *p == '_' ? '-' : *p;
        return unknown_option(&group, 1, key, err);
    }
    return gpuplan_option_set(opt, dest, text, true, err);
}

enum gpuplan_status
gpuplan_options_init(const struct gpuplan_option *table, void *dest, struct gpuplan_error *err)
{
    for (const struct gpuplan_option *o = table; o->name; o++) {
        if (!o->default_value)
            continue;
        struct gpuplan_error why;
        gpuplan_error_init(&why);
        if (gpuplan_option_set(o, dest, o->default_value, false, &why) != GPUPLAN_OK)
            return gpuplan_error_set(err, GPUPLAN_ERR_INTERNAL, NULL,
                                     "default '%s' of '--%s' does not parse: %s", o->default_value,
                                     o->name, why.message);
    }
    return GPUPLAN_OK;
}

enum gpuplan_status gpuplan_options_check_ranges(const struct gpuplan_option *table,
                                                 const void *src,
                                                 struct gpuplan_error *err)
{
    for (const struct gpuplan_option *o = table; o->name; o++) {
        const void *p = field_at_const(src, o->offset);
        char text[64];
        if (o->kind == GPUPLAN_OPTION_COUNT &&
            (o->field == GPUPLAN_FIELD_U32 || o->field == GPUPLAN_FIELD_U64)) {
            uint64_t v = 0;
            if (o->field == GPUPLAN_FIELD_U32) {
                uint32_t v32;
                memcpy(&v32, p, sizeof v32);
                v = v32;
            } else {
                memcpy(&v, p, sizeof v);
            }
            if (v >= o->count_min && v <= o->count_max)
                continue;
            (void)snprintf(text, sizeof text, "%llu", (unsigned long long)v);
            return gpuplan_error_set(
                err, GPUPLAN_ERR_USAGE, NULL, "'--%s' is '%s'; must be an integer in %llu..%llu",
                o->name, text, (unsigned long long)o->count_min, (unsigned long long)o->count_max);
        }
        if (o->kind == GPUPLAN_OPTION_REAL && o->field == GPUPLAN_FIELD_DOUBLE &&
            (o->real_min != 0.0 || o->real_max != 0.0)) {
            double v;
            memcpy(&v, p, sizeof v);
            if (v >= o->real_min && v <= o->real_max) /* false for NaN */
                continue;
            (void)snprintf(text, sizeof text, "%g", v);
            return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL,
                                     "'--%s' is '%s'; must be a number in %g..%g", o->name, text,
                                     o->real_min, o->real_max);
        }
    }
    return GPUPLAN_OK;
}

static long long int_field(const struct gpuplan_option *opt, const void *dest)
{
    const void *p = field_at_const(dest, opt->offset);
    switch (opt->field) {
    case GPUPLAN_FIELD_BOOL: {
        bool b;
        memcpy(&b, p, sizeof b);
        return b;
    }
    case GPUPLAN_FIELD_INT: {
        int i;
        memcpy(&i, p, sizeof i);
        return i;
    }
    case GPUPLAN_FIELD_U32: {
        uint32_t u;
        memcpy(&u, p, sizeof u);
        return u;
    }
    case GPUPLAN_FIELD_U64: {
        uint64_t u;
        memcpy(&u, p, sizeof u);
        return (long long)u;
    }
    case GPUPLAN_FIELD_NONE:
    case GPUPLAN_FIELD_DOUBLE:
    case GPUPLAN_FIELD_CHARS:
    case GPUPLAN_FIELD_STRING:
        break;
    }
    return 0;
}

void gpuplan_option_format(const struct gpuplan_option *opt,
                           const void *dest,
                           char *out,
                           size_t out_size)
{
    out[0] = '\0';
    const void *p = field_at_const(dest, opt->offset);
    if (opt->field == GPUPLAN_FIELD_NONE)
        return;
    if (opt->field == GPUPLAN_FIELD_DOUBLE) {
        double d;
        memcpy(&d, p, sizeof d);
        gpuplan_format_double(out, out_size, d);
        return;
    }
    if (opt->field == GPUPLAN_FIELD_CHARS) {
        (void)snprintf(out, out_size, "%.*s", (int)(opt->size ? opt->size - 1 : 0),
                       (const char *)p);
        return;
    }
    if (opt->field == GPUPLAN_FIELD_STRING) {
        const char *s;
        memcpy(&s, p, sizeof s);
        (void)snprintf(out, out_size, "%s", s ? s : "");
        return;
    }
    const long long v = int_field(opt, dest);
    if (opt->kind == GPUPLAN_OPTION_FLAG) {
        const long long on = opt->field == GPUPLAN_FIELD_BOOL ? 1 : opt->flag_value;
        (void)snprintf(out, out_size, "%s", v == on ? "yes" : "no");
    } else if (opt->kind == GPUPLAN_OPTION_CHOICE) {
        for (size_t i = 0; opt->choices[i]; i++) {
            if (choice_value(opt, i) == v && choice_accepted(opt, i)) {
                (void)snprintf(out, out_size, "%s", opt->choices[i]);
                return;
            }
        }
    } else {
        (void)snprintf(out, out_size, "%lld", v);
    }
}

/* ---- command lines ---- */

static enum gpuplan_status argv_problem(struct gpuplan_argv *out,
                                        enum gpuplan_argv_problem problem,
                                        int index,
                                        enum gpuplan_status st)
{
    out->problem = problem;
    out->bad_index = index;
    return st;
}

/* The option `name` names in the first group that has it; NULL when none. */
static const struct gpuplan_option *find_in_groups(const struct gpuplan_option_group *groups,
                                                   size_t n_groups,
                                                   const char *name,
                                                   size_t *group)
{
    for (size_t g = 0; g < n_groups; g++) {
        for (const struct gpuplan_option *o = groups[g].options; o->name; o++) {
            if (strcmp(o->name, name) == 0) {
                *group = g;
                return o;
            }
        }
    }
    return NULL;
}

enum gpuplan_status gpuplan_options_parse_argv(const struct gpuplan_option_group *groups,
                                               size_t n_groups,
                                               size_t max_positional,
                                               int argc,
                                               char *const *argv,
                                               struct gpuplan_argv *out,
                                               struct gpuplan_error *err)
{
    memset(out, 0, sizeof *out);
    if (max_positional > GPUPLAN_ARGV_MAX_POSITIONAL)
        max_positional = GPUPLAN_ARGV_MAX_POSITIONAL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            out->help = true;
            return GPUPLAN_OK;
        }
        if (arg[0] != '-' || arg[1] == '\0') {
            if (out->n_positional >= max_positional) {
                gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "unexpected argument '%s'", arg);
                return argv_problem(out, GPUPLAN_ARGV_UNEXPECTED_ARGUMENT, i, GPUPLAN_ERR_USAGE);
            }
            out->positional[out->n_positional++] = arg;
            continue;
        }
        const char *name = arg + (arg[1] == '-' ? 2 : 1);
        const char *eq = strchr(name, '=');
        const size_t n = eq ? (size_t)(eq - name) : strlen(name);
        if (n >= sizeof out->bad_name) {
            gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "unknown option '%.40s...'", arg);
            return argv_problem(out, GPUPLAN_ARGV_UNKNOWN_OPTION, i, GPUPLAN_ERR_USAGE);
        }
        memcpy(out->bad_name, name, n);
        out->bad_name[n] = '\0';
        size_t g = 0;
        const struct gpuplan_option *opt =
            arg[1] == '-' ? find_in_groups(groups, n_groups, out->bad_name, &g) : NULL;
        if (!opt) {
            unknown_option(groups, n_groups, out->bad_name, err);
            return argv_problem(out, GPUPLAN_ARGV_UNKNOWN_OPTION, i, GPUPLAN_ERR_USAGE);
        }
        out->bad_option = opt;
        if (opt->flags & groups[g].refuse) {
            gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "'--%s' is not an option here",
                              opt->name);
            return argv_problem(out, GPUPLAN_ARGV_REFUSED, i, GPUPLAN_ERR_USAGE);
        }
        const char *value = eq ? eq + 1 : NULL;
        if (!value && opt->kind != GPUPLAN_OPTION_FLAG) {
            if (i + 1 >= argc) {
                gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "option '--%s' needs a value",
                                  opt->name);
                return argv_problem(out, GPUPLAN_ARGV_MISSING_VALUE, i, GPUPLAN_ERR_USAGE);
            }
            value = argv[++i];
        }
        if (out->n_given >= GPUPLAN_ARGV_MAX_GIVEN) {
            gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "more than %d options given",
                              GPUPLAN_ARGV_MAX_GIVEN);
            return argv_problem(out, GPUPLAN_ARGV_BAD_VALUE, i, GPUPLAN_ERR_USAGE);
        }
        const enum gpuplan_status st = gpuplan_option_set(opt, groups[g].dest, value, true, err);
        if (st != GPUPLAN_OK)
            return argv_problem(out, GPUPLAN_ARGV_BAD_VALUE, i, st);
        out->given[out->n_given++] = opt;
        out->bad_option = NULL;
    }
    out->bad_name[0] = '\0';
    return GPUPLAN_OK;
}
