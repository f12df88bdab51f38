/*
 * test_cli.c - every option table (the library's and the CLI's, as each
 * command reads them) is well formed: each default parses, prints back
 * and round-trips, the table's types match its fields, and the defaults
 * gpuplan_job_init, gpuplan_plan_request_init and server_config_init apply
 * are the tables'.
 * --help (and `gpuplan --help`) is wrapped to COLUMNS, else 80 columns off
 * a terminal: no line is longer. Links the CLI's objects (all but main.o).
 */
#include "test_common.h"

#include <stdalign.h>
#include <stdlib.h>

#include "cli.h"
#include "gpuplan/cost.h"
#include "gpuplan/plan.h"
#include "gpuplan/request.h"
#include "server.h"

/* Large enough for any struct a table fills (a plan request is the largest, ~2 KB). */
#define SCRATCH_BYTES (64u * 1024u)
static alignas(max_align_t) unsigned char scratch_a[SCRATCH_BYTES];
static alignas(max_align_t) unsigned char scratch_b[SCRATCH_BYTES];

static size_t field_size(const struct gpuplan_option *o)
{
    switch (o->field) {
    case GPUPLAN_FIELD_BOOL:
        return sizeof(bool);
    case GPUPLAN_FIELD_INT:
        return sizeof(int);
    case GPUPLAN_FIELD_U32:
        return sizeof(uint32_t);
    case GPUPLAN_FIELD_U64:
        return sizeof(uint64_t);
    case GPUPLAN_FIELD_DOUBLE:
        return sizeof(double);
    case GPUPLAN_FIELD_STRING:
        return sizeof(const char *);
    case GPUPLAN_FIELD_CHARS:
        return o->size; /* any size; at least 2 (one character and the NUL) */
    case GPUPLAN_FIELD_NONE:
        break;
    }
    return 0;
}

/* One table: well formed, and every default parses, prints back and round-trips. */
static void check_table(const char *where, const struct gpuplan_option *table)
{
    for (const struct gpuplan_option *o = table; o->name; o++) {
        for (const struct gpuplan_option *p = table; p < o; p++)
            if (strcmp(p->name, o->name) == 0)
                fail_msg("%s: option '--%s' twice", where, o->name);
        if (!o->help || !o->help[0])
            fail_msg("%s: '--%s' has no help", where, o->name);
        if (o->field != GPUPLAN_FIELD_NONE && o->size != field_size(o))
            fail_msg("%s: '--%s' stores %zu bytes into a field of %zu", where, o->name,
                     field_size(o), o->size);
        if (o->field == GPUPLAN_FIELD_CHARS && o->size < 2)
            fail_msg("%s: '--%s' has no room for text", where, o->name);
        if (o->field != GPUPLAN_FIELD_NONE && o->offset + o->size > SCRATCH_BYTES)
            fail_msg("%s: '--%s' lies past the scratch struct", where, o->name);
        if (o->field == GPUPLAN_FIELD_STRING && !(o->flags & GPUPLAN_OPTION_CLI_ONLY))
            fail_msg("%s: '--%s' borrows its text, so JSON bodies must not name it", where,
                     o->name);
        if (o->kind == GPUPLAN_OPTION_CHOICE && !o->choices)
            fail_msg("%s: choice '--%s' has no choices", where, o->name);
        if (o->kind == GPUPLAN_OPTION_COUNT &&
            (o->count_min > o->count_max ||
             (o->field == GPUPLAN_FIELD_U32 && o->count_max > UINT32_MAX)))
            fail_msg("%s: '--%s' has a bad range", where, o->name);
        if (o->kind == GPUPLAN_OPTION_FLAG && o->default_value)
            fail_msg("%s: flag '--%s' has a default value", where, o->name);
        /* every choice that is listed parses */
        for (size_t i = 0; o->kind == GPUPLAN_OPTION_CHOICE && o->choices[i]; i++) {
            if (!gpuplan_option_lists_choice(o, i))
                continue;
            memset(scratch_a, 0, sizeof scratch_a);
            struct gpuplan_error err;
            gpuplan_error_init(&err);
            if (gpuplan_option_set(o, scratch_a, o->choices[i], false, &err) != GPUPLAN_OK)
                fail_msg("%s: '--%s %s' does not parse: %s", where, o->name, o->choices[i],
                         err.message);
        }
        if (!o->default_value)
            continue;
        /* the default parses, prints, and that text reads back to the same value */
        memset(scratch_a, 0, sizeof scratch_a);
        memset(scratch_b, 0, sizeof scratch_b);
        struct gpuplan_error err;
        gpuplan_error_init(&err);
        if (gpuplan_option_set(o, scratch_a, o->default_value, false, &err) != GPUPLAN_OK)
            fail_msg("%s: default '%s' of '--%s' does not parse: %s", where, o->default_value,
                     o->name, err.message);
        char text[512];
        gpuplan_option_format(o, scratch_a, text, sizeof text);
        if (o->field == GPUPLAN_FIELD_NONE)
            continue; /* a setter writes the fields; nothing to print back */
        if (!text[0])
            fail_msg("%s: default of '--%s' prints as nothing", where, o->name);
        if (gpuplan_option_set(o, scratch_b, text, false, &err) != GPUPLAN_OK)
            fail_msg("%s: '--%s %s' (the default, printed) does not parse: %s", where, o->name,
                     text, err.message);
        char again[512];
        gpuplan_option_format(o, scratch_b, again, sizeof again);
        /* a borrowed string (STRING) points at the text it was given: compare what it says */
        const bool same = o->field == GPUPLAN_FIELD_STRING
                              ? strcmp(text, again) == 0
                              : memcmp(scratch_a + o->offset, scratch_b + o->offset, o->size) == 0;
        if (!same)
            fail_msg("%s: '--%s' default '%s' prints as '%s', which reads back differently", where,
                     o->name, o->default_value, text);
    }
}

static void test_every_table(void **state)
{
    (void)state;
    check_table("gpuplan_job_options", gpuplan_job_options);
    check_table("gpuplan_plan_options", gpuplan_plan_options);
    check_table("gpuplan_cost_options", gpuplan_cost_options);
    check_table("gpuplan_tco_options", gpuplan_tco_options);
    size_t n = 0;
    const struct cli_command *const *cmds = cli_commands(&n);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        for (size_t g = 0; g < CLI_MAX_GROUPS && cmds[i]->groups[g].options; g++) {
            char where[96];
            snprintf(where, sizeof where, "gpuplan %s, group %zu", cmds[i]->name, g);
            check_table(where, cmds[i]->groups[g].options);
        }
    }
}

/* Every option's field in `a` and `b` holds the same bytes. */
static void assert_same_fields(const struct gpuplan_option *table, const void *a, const void *b)
{
    for (const struct gpuplan_option *o = table; o->name; o++) {
        if (o->field == GPUPLAN_FIELD_NONE)
            continue;
        if (memcmp((const char *)a + o->offset, (const char *)b + o->offset, o->size) != 0)
            fail_msg("'--%s': the _init default differs from the table's", o->name);
    }
}

/* gpuplan_job_init and gpuplan_plan_request_init apply exactly the tables' defaults. */
static void test_init_is_the_table(void **state)
{
    (void)state;
    struct gpuplan_job job, table_job;
    gpuplan_job_init(&job);
    memset(&table_job, 0, sizeof table_job);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    assert_int_equal(gpuplan_options_init(gpuplan_job_options, &table_job, &err), GPUPLAN_OK);
    assert_same_fields(gpuplan_job_options, &job, &table_job);
    assert_false(job.grad_ckpt_set || job.sharding_set); /* defaults are not "given" */
    assert_int_equal(job.lora_target_roles, table_job.lora_target_roles);

    struct gpuplan_plan_request *req = calloc(2, sizeof *req);
    assert_non_null(req);
    gpuplan_plan_request_init(&req[0]);
    gpuplan_job_init(&req[1].job); /* --concurrency is job.batch: the job's default */
    assert_int_equal(gpuplan_options_init(gpuplan_plan_options, &req[1], &err), GPUPLAN_OK);
    assert_same_fields(gpuplan_plan_options, &req[0], &req[1]);
    assert_int_equal(req[0].top_k, 5);
    assert_int_equal(req[0].vendor, GPUPLAN_PLAN_ANY_VENDOR);
    free(req);
}

/* `gpuplan serve` starts from its table's defaults, which are server_config_init's. */
static void test_serve_defaults(void **state)
{
    (void)state;
    struct server_config init, table;
    server_config_init(&init);
    memset(&table, 0, sizeof table);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    const struct gpuplan_option *options = cli_cmd_serve.groups[0].options;
    assert_int_equal(gpuplan_options_init(options, &table, &err), GPUPLAN_OK);
    for (const struct gpuplan_option *o = options; o->name; o++) {
        if (o->field != GPUPLAN_FIELD_STRING)
            continue;
        const char *a = *(const char *const *)((const char *)&init + o->offset);
        const char *b = *(const char *const *)((const char *)&table + o->offset);
        if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
            fail_msg("serve '--%s': server_config_init's default differs from the table's",
                     o->name);
        /* the strings agree: compare the rest byte for byte */
        *(const char **)((char *)&table + o->offset) = a;
    }
    table.log = init.log;
    assert_same_fields(options, &init, &table);
}

/* Each --format takes the formats its renderer writes, and refuses the rest by name. */
static void test_formats(void **state)
{
    (void)state;
    size_t n = 0;
    const struct cli_command *const *cmds = cli_commands(&n);
    size_t with_format = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t g = 0; g < CLI_MAX_GROUPS && cmds[i]->groups[g].options; g++) {
            const struct gpuplan_option *o =
                gpuplan_options_find(cmds[i]->groups[g].options, "format");
            if (!o)
                continue;
            with_format++;
            char arg[128];
            gpuplan_option_arg(o, arg, sizeof arg);
            if (o->choices != gpuplan_format_names) {
                /* propose: document formats of its own (a PDF is no renderer's format) */
                assert_string_equal(cmds[i]->name, "propose");
                static const char *const takes[] = { "html", "md", "pdf", "markdown" };
                for (size_t k = 0; k < sizeof takes / sizeof takes[0]; k++)
                    assert_int_equal(gpuplan_option_set(o, scratch_a, takes[k], false, NULL),
                                     GPUPLAN_OK);
                assert_int_equal(gpuplan_option_set(o, scratch_a, "json", false, NULL),
                                 GPUPLAN_ERR_USAGE);
                continue;
            }
            for (int f = 0; f < GPUPLAN_FORMAT_COUNT; f++) {
                struct gpuplan_error err;
                gpuplan_error_init(&err);
                const bool takes = (o->choice_mask & GPUPLAN_FORMAT_BIT(f)) != 0;
                const enum gpuplan_status st =
                    gpuplan_option_set(o, scratch_a, gpuplan_format_name(f), false, &err);
                assert_int_equal(st, takes ? GPUPLAN_OK : GPUPLAN_ERR_USAGE);
                assert_true(takes == (strstr(arg, gpuplan_format_name(f)) != NULL));
                if (!takes)
                    assert_non_null(strstr(err.message, arg));
            }
        }
    }
    assert_true(with_format >= 6); /* inspect, gpus, models, estimate, recommend, detect, tco */
}

/* Print one help with COLUMNS=width; every line fits. Returns the number of lines. */
static size_t help_lines_fit(const struct cli_command *cmd, const char *columns, size_t width)
{
    if (columns)
        setenv("COLUMNS", columns, 1);
    else
        unsetenv("COLUMNS");
    FILE *f = tmpfile();
    assert_non_null(f);
    if (cmd)
        cli_help_print(cmd, f);
    else
        cli_help_print_main(f);
    rewind(f);
    char line[4096];
    size_t n_lines = 0;
    while (fgets(line, sizeof line, f)) {
        n_lines++;
        size_t cols = 0;
        for (const char *p = line; *p && *p != '\n'; p++)
            if (((unsigned char)*p & 0xC0) != 0x80)
                cols++;
        if (cols > width)
            fail_msg("'gpuplan %s --help' at %zu columns: a line of %zu: %s", cmd ? cmd->name : "",
                     width, cols, line);
        if (cols > 0 && line[strlen(line) - 2] == ' ')
            fail_msg("'gpuplan %s --help': a line ends in a space: '%s'", cmd ? cmd->name : "",
                     line);
    }
    fclose(f);
    return n_lines;
}

static void test_help_wraps(void **state)
{
    (void)state;
    size_t n = 0;
    const struct cli_command *const *cmds = cli_commands(&n);
    static const struct {
        const char *columns;
        size_t width;
    } widths[] = { { NULL, 80 }, { "80", 80 },   { "60", 60 },
                   { "40", 40 }, { "132", 132 }, { "20", 20 } };
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        help_lines_fit(NULL, widths[w].columns, widths[w].width);
        for (size_t i = 0; i < n; i++)
            help_lines_fit(cmds[i], widths[w].columns, widths[w].width);
    }
    /* narrower means more lines: the help really follows the width */
    const struct cli_command *estimate = cli_find_command("estimate");
    assert_non_null(estimate);
    assert_true(help_lines_fit(estimate, "60", 60) > help_lines_fit(estimate, "132", 132));
    /* off a terminal and without COLUMNS: 80 */
    unsetenv("COLUMNS");
    assert_int_equal(cli_help_width(), 80);
    setenv("COLUMNS", "x", 1);
    assert_int_equal(cli_help_width(), 80);
    unsetenv("COLUMNS");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_table),    cmocka_unit_test(test_init_is_the_table),
        cmocka_unit_test(test_serve_defaults), cmocka_unit_test(test_formats),
        cmocka_unit_test(test_help_wraps),
    };
    return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
