/*
 * complete.c - `gpuplan __complete WORD... CURRENT`: the candidates for the
 * word being completed, one per line, for the bash and zsh completion
 * scripts (completions/), which call it at every TAB. The candidates come
 * from the command descriptions and option tables (cli.h) and the embedded
 * catalog, so completion never falls out of step with --help.
 *
 * The words are those after "gpuplan", up to and including the current one
 * (possibly ""). bash splits "--gpu=h1" into "--gpu" "=" "h1"; both forms
 * are understood. Exit status: 0 with the candidates (possibly none), or 1
 * when the shell should complete file names instead.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum { COMPLETE_WORDS = 0, COMPLETE_FILES = 1 };

/* Print `candidate` when it starts with `prefix`; returns 1 when printed. */
static size_t offer(const char *candidate, const char *prefix)
{
    if (strncmp(candidate, prefix, strlen(prefix)) != 0)
        return 0;
    printf("%s\n", candidate);
    return 1;
}

/* The global option `word` names ("--lang"), or NULL. */
static const struct cli_global_option *find_global(const char *word)
{
    size_t n = 0;
    const struct cli_global_option *globals = cli_global_options(&n);
    for (size_t i = 0; i < n; i++) {
        const char *long_name = strstr(globals[i].names, "--");
        if (long_name && strcmp(long_name, word) == 0)
            return &globals[i];
    }
    return NULL;
}

/* The option "--name" of `cmd` as its --help lists it (first group that has it), or NULL. */
static const struct gpuplan_option *find_option(const struct cli_command *cmd, const char *word)
{
    if (!cmd || strncmp(word, "--", 2) != 0)
        return NULL;
    for (size_t g = 0; g < CLI_MAX_GROUPS && cmd->groups[g].options; g++) {
        const struct gpuplan_option *o = gpuplan_options_find(cmd->groups[g].options, word + 2);
        if (o && strcmp(o->name, word + 2) == 0)
            return (o->flags & cmd->groups[g].refuse) ? NULL : o;
    }
    return NULL;
}

/* Offer the embedded catalog's GPU, platform or model ids; returns how many matched. */
static size_t offer_catalog_ids(const char *what, const char *prefix)
{
    struct gpuplan_catalog *catalog = NULL;
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    size_t n = 0;
    if (gpuplan_catalog_load(&catalog, NULL, &err) != GPUPLAN_OK)
        return 0;
    if (strcmp(what, "gpu") == 0) {
        for (size_t i = 0; i < gpuplan_catalog_n_gpus(catalog); i++)
            n += offer(gpuplan_catalog_gpu_at(catalog, i)->id, prefix);
    } else if (strcmp(what, "platform") == 0) {
        for (size_t i = 0; i < gpuplan_catalog_n_platforms(catalog); i++)
            n += offer(gpuplan_catalog_platform_at(catalog, i)->id, prefix);
    } else {
        for (size_t i = 0; i < gpuplan_catalog_n_models(catalog); i++)
            n += offer(gpuplan_catalog_model_at(catalog, i)->id, prefix);
    }
    gpuplan_catalog_free(catalog);
    return n;
}

/* "en|ru": offer each word. */
static void offer_words(const char *words, const char *prefix)
{
    for (const char *p = words; *p;) {
        const size_t n = strcspn(p, "|");
        char word[64];
        snprintf(word, sizeof word, "%.*s", (int)(n < sizeof word ? n : sizeof word - 1), p);
        offer(word, prefix);
        p += n + (p[n] ? 1 : 0);
    }
}

/* Values of option `opt`: catalog ids, its choices, or file names for a DIR, PATH or FILE. */
static int offer_values(const struct gpuplan_option *opt, const char *prefix)
{
    if (strcmp(opt->name, "gpu") == 0 || strcmp(opt->name, "platform") == 0) {
        offer_catalog_ids(opt->name, prefix);
        return COMPLETE_WORDS;
    }
    if (opt->kind == GPUPLAN_OPTION_CHOICE) {
        for (size_t i = 0; opt->choices[i]; i++) {
            if (gpuplan_option_lists_choice(opt, i))
                offer(opt->choices[i], prefix);
        }
        return COMPLETE_WORDS;
    }
    const char *arg = opt->arg ? opt->arg : "";
    if (strstr(arg, "DIR") || strstr(arg, "PATH") || strstr(arg, "FILE"))
        return COMPLETE_FILES;
    return COMPLETE_WORDS; /* a number or free text: nothing to offer */
}

static void offer_options(const struct cli_command *cmd, const char *prefix)
{
    size_t n = 0;
    const struct cli_global_option *globals = cli_global_options(&n);
    for (size_t i = 0; i < n; i++) {
        const char *long_name = strstr(globals[i].names, "--");
        if (long_name && (!cmd || strcmp(long_name, "--help") != 0))
            offer(long_name, prefix);
    }
    for (size_t g = 0; cmd && g < CLI_MAX_GROUPS && cmd->groups[g].options; g++) {
        for (const struct gpuplan_option *o = cmd->groups[g].options; o->name; o++) {
            char name[80];
            snprintf(name, sizeof name, "--%s", o->name);
            if (find_option(cmd, name) == o)
                offer(name, prefix);
        }
    }
    if (cmd)
        offer("--help", prefix);
}

/* Whether `word` takes the next word as its value (a global or `cmd`'s option). */
static bool takes_value(const struct cli_command *cmd, const char *word)
{
    const struct cli_global_option *g = find_global(word);
    if (g)
        return g->arg != NULL;
    const struct gpuplan_option *o = find_option(cmd, word);
    return o && o->kind != GPUPLAN_OPTION_FLAG;
}

static int complete(char **words, int n_words)
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
    for (int i = 0; i < n_words - 1 && !cmd; i++) {
        if (words[i][0] == '-' || strcmp(words[i], "=") == 0) {
            const struct cli_global_option *g = find_global(words[i]);
            if (g && g->arg && i + 1 < n_words - 1)
                i += strcmp(words[i + 1], "=") == 0 ? 2 : 1;
            continue;
        }
        cmd = cli_find_command(words[i]);
        if (!cmd)
            return COMPLETE_WORDS; /* an unknown command: nothing sensible to offer */
    }
    if (prev[0] == '-' && takes_value(cmd, prev)) {
        const struct cli_global_option *g = find_global(prev);
        if (g) {
            offer_words(g->arg, cur);
            return COMPLETE_WORDS;
        }
        return offer_values(find_option(cmd, prev), cur);
    }
    if (cur[0] == '-') {
        offer_options(cmd, cur);
        return COMPLETE_WORDS;
    }
    if (!cmd) {
        size_t n = 0;
        const struct cli_command *const *cmds = cli_commands(&n);
        for (size_t i = 0; i < n; i++)
            offer(cmds[i]->name, cur);
        return COMPLETE_WORDS;
    }
    if (cmd->model_arg) {
        /* A catalog id, else a config.json path. */
        return offer_catalog_ids("model", cur) ? COMPLETE_WORDS : COMPLETE_FILES;
    }
    return COMPLETE_FILES;
}

int cmd_complete(int argc, char **argv)
{
    cli_i18n_init("en");
    int first = 1;
    if (first < argc && strcmp(argv[first], "--") == 0)
        first++;
    const int rc = complete(argv + first, argc - first);
    fflush(stdout);
    return rc;
}
