/*
 * complete.c - `gpuplan __complete WORD... CURRENT`: the candidates for the
 * word being completed, one per line, for the bash and zsh completion
 * scripts (completions/), which call it at every TAB. Doing the work in the
 * binary keeps completion in step with the option tables and the embedded
 * catalog without regenerating the scripts.
 *
 * The words are those after "gpuplan", up to and including the current one
 * (possibly ""). bash splits "--gpu=h1" into "--gpu" "=" "h1"; both forms
 * are understood. Exit status: 0 with the candidates (possibly none), or 1
 * when the shell should complete file names instead.
 */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/job.h"
#include "helpdoc.h"
#include "i18n.h"

enum { COMPLETE_WORDS = 0, COMPLETE_FILES = 1 };

/* Print `candidate` when it starts with `prefix`; returns 1 when printed. */
static size_t offer(const char *candidate, const char *prefix)
{
    if (strncmp(candidate, prefix, strlen(prefix)) != 0)
        return 0;
    printf("%s\n", candidate);
    return 1;
}

static const struct cli_command *find_command(const char *name)
{
    size_t n = 0;
    const struct cli_command *cmds = cli_commands(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(cmds[i].name, name) == 0)
            return &cmds[i];
    return NULL;
}

/* The argument name a global option takes ("en|ru" for --lang), or NULL. */
static const char *global_arg(const char *word)
{
    size_t n = 0;
    const struct cli_global_option *globals = cli_global_options(&n);
    for (size_t i = 0; i < n; i++) {
        const char *long_name = strstr(globals[i].names, "--");
        if (long_name && strcmp(long_name, word) == 0)
            return globals[i].arg;
    }
    return NULL;
}

/* The argument name option `word` of `doc` takes, NULL for flags and unknown words. */
static const char *option_arg(const struct helpdoc_command *doc, const char *word)
{
    const char *arg = global_arg(word);
    if (arg || !doc || strncmp(word, "--", 2) != 0)
        return arg;
    const struct helpdoc_option *opt = helpdoc_find_option(doc, word + 2);
    return opt && opt->arg[0] ? opt->arg : NULL;
}

/* Offer the embedded catalog's GPU, platform or model ids; returns how many matched. */
static size_t offer_catalog_ids(const char *option, const char *prefix)
{
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    size_t n = 0;
    if (gpuplan_catalog_load(&catalog, NULL, &err) != GPUPLAN_OK)
        return 0;
    if (strcmp(option, "gpu") == 0) {
        for (size_t i = 0; i < gpuplan_catalog_n_gpus(catalog); i++)
            n += offer(gpuplan_catalog_gpu_at(catalog, i)->id, prefix);
    } else if (strcmp(option, "platform") == 0) {
        for (size_t i = 0; i < gpuplan_catalog_n_platforms(catalog); i++)
            n += offer(gpuplan_catalog_platform_at(catalog, i)->id, prefix);
    } else {
        for (size_t i = 0; i < gpuplan_catalog_n_models(catalog); i++)
            n += offer(gpuplan_catalog_model_at(catalog, i)->id, prefix);
    }
    gpuplan_catalog_free(catalog);
    return n;
}

/* Values of "--option": catalog ids, the job table's choices, or "a|b|c" from the help. */
static int offer_values(const char *option, const char *arg, const char *prefix)
{
    if (strcmp(option, "gpu") == 0 || strcmp(option, "platform") == 0) {
        offer_catalog_ids(option, prefix);
        return COMPLETE_WORDS;
    }
    for (const struct gpuplan_job_option *o = gpuplan_job_options; o->name; o++) {
        if (strcmp(o->name, option) == 0 && o->type == GPUPLAN_OPT_CHOICE && o->choices) {
            for (const char *const *c = o->choices; *c; c++)
                offer(*c, prefix);
            return COMPLETE_WORDS;
        }
    }
    if (strstr(arg, "DIR") || strstr(arg, "PATH") || strstr(arg, "FILE"))
        return COMPLETE_FILES;
    if (!strchr(arg, '|'))
        return COMPLETE_WORDS; /* a number or free text: nothing to offer */
    /* "text|json|html": offer the lowercase words; skip "gguf-TYPE" and "...". */
    for (const char *p = arg; *p;) {
        const size_t n = strcspn(p, "|");
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1), p);
        bool plain = word[0] != '\0' && !strstr(word, "...");
        for (const char *c = word; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                plain = false;
        if (plain)
            offer(word, prefix);
        p += n + (p[n] ? 1 : 0);
    }
    return COMPLETE_WORDS;
}

static void offer_options(const struct helpdoc_command *doc, const char *prefix)
{
    size_t n = 0;
    const struct cli_global_option *globals = cli_global_options(&n);
    for (size_t i = 0; i < n; i++) {
        const char *long_name = strstr(globals[i].names, "--");
        if (long_name && (!doc || !helpdoc_find_option(doc, long_name + 2)))
            offer(long_name, prefix);
    }
    for (size_t i = 0; doc && i < doc->n_options; i++)
        if (doc->options[i].long_name[0]) {
            char name[64];
            snprintf(name, sizeof name, "--%s", doc->options[i].long_name);
            offer(name, prefix);
        }
}

static int complete(char **words, int n_words, struct helpdoc_command *doc)
{
    const char *cur = n_words > 0 ? words[n_words - 1] : "";
    const char *prev = n_words > 1 ? words[n_words - 2] : "";
    /* bash: "--gpu=" arrives as "--gpu" "=" (cur "=") or "--gpu" "=" "h1". */
    if (strcmp(cur, "=") == 0) {
        prev = words[n_words - 2 >= 0 ? n_words - 2 : 0];
        cur = "";
    } else if (strcmp(prev, "=") == 0 && n_words > 2) {
        prev = words[n_words - 3];
    }
    /* The command is the first word that is neither an option nor an option's value. */
    const struct cli_command *cmd = NULL;
    bool have_doc = false;
    for (int i = 0; i < n_words - 1 && !cmd; i++) {
        if (words[i][0] == '-' || strcmp(words[i], "=") == 0) {
            if (global_arg(words[i]) && i + 1 < n_words - 1)
                i += strcmp(words[i + 1], "=") == 0 ? 2 : 1;
            continue;
        }
        cmd = find_command(words[i]);
        if (!cmd)
            return COMPLETE_WORDS; /* an unknown command: nothing sensible to offer */
    }
    if (cmd)
        have_doc = helpdoc_describe(cmd, doc) == 0;
    const struct helpdoc_command *d = have_doc ? doc : NULL;
    const char *arg = prev[0] == '-' ? option_arg(d, prev) : NULL;
    if (arg)
        return offer_values(prev + 2, arg, cur);
    if (cur[0] == '-') {
        offer_options(d, cur);
        return COMPLETE_WORDS;
    }
    if (!cmd) {
        size_t n = 0;
        const struct cli_command *cmds = cli_commands(&n);
        for (size_t i = 0; i < n; i++)
            offer(cmds[i].name, cur);
        return COMPLETE_WORDS;
    }
    if (d && d->takes_model) {
        /* A catalog id, else a config.json path. */
        return offer_catalog_ids("model", cur) ? COMPLETE_WORDS : COMPLETE_FILES;
    }
    return COMPLETE_FILES;
}

int cmd_complete(int argc, char **argv)
{
    cli_i18n_init("en"); /* the help texts are parsed, so read them untranslated */
    struct helpdoc_command *doc = calloc(1, sizeof *doc);
    if (!doc)
        return COMPLETE_WORDS;
    int first = 1;
    if (first < argc && strcmp(argv[first], "--") == 0)
        first++;
    const int rc = complete(argv + first, argc - first, doc);
    free(doc);
    fflush(stdout);
    return rc;
}
