/*
 * options.h - declarative option tables (git's parse-options OPT_*, curl's
 * aliases[]): one table per request type, read by every front-end.
 *
 * An entry names an option, the kind of value it takes, where the value
 * goes in the request struct (offsetof), its range or choices, its default
 * and its help. From the same table come: the command line ("--name value",
 * "--name=value", gpuplan_options_parse_argv), the JSON bodies of the HTTP
 * service (request.h: keys are the names with '_' for '-'), `--help`, the
 * man page, shell completion, and the request's defaults
 * (gpuplan_options_init, which gpuplan_job_init and the other _init
 * functions call). The tables: gpuplan_job_options (job.h),
 * gpuplan_plan_options (plan.h), gpuplan_cost_options (cost.h),
 * gpuplan_tco_options (request.h); the CLI declares its own for the
 * options only it has (--format, --catalog, serve, detect).
 *
 *   { .name = "seq-len", .kind = GPUPLAN_OPTION_COUNT, .field = GPUPLAN_FIELD_U64,
 *     GPUPLAN_OPTION_AT(struct gpuplan_job, seq_len), .set_offset = GPUPLAN_OPTION_NO_SET,
 *     .arg = "N", .help = "tokens per training sequence", .default_value = "2048",
 *     .count_min = 1, .count_max = 16777216 }
 *
 * Errors name the option, the value and what it must be, as the command
 * line spells it ("'--seq-len' is 'x'; must be an integer in 1..16777216").
 */
#ifndef GPUPLAN_OPTIONS_H
#define GPUPLAN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpuplan/error.h"

enum gpuplan_option_kind {
    GPUPLAN_OPTION_CHOICE = 0, /* one of `choices`, ASCII case-insensitive */
    GPUPLAN_OPTION_COUNT,      /* an integer; accepts 8k, 70e9 (gpuplan_parse_count) */
    GPUPLAN_OPTION_REAL,       /* a finite number (gpuplan_parse_double) */
    GPUPLAN_OPTION_FLAG,       /* no value ("--on-prem"); JSON true sets it, false leaves it */
    GPUPLAN_OPTION_TEXT,       /* text, kept as given (or turned into fields by `parse`) */
};

/* The C type of the destination field. */
enum gpuplan_option_field {
    GPUPLAN_FIELD_NONE = 0, /* nothing stored by the table: `parse` writes the fields */
    GPUPLAN_FIELD_BOOL,     /* bool */
    GPUPLAN_FIELD_INT,      /* int, or an enum (int-sized) */
    GPUPLAN_FIELD_U32,      /* uint32_t (or unsigned) */
    GPUPLAN_FIELD_U64,      /* uint64_t */
    GPUPLAN_FIELD_DOUBLE,   /* double */
    GPUPLAN_FIELD_CHARS,    /* char[size]: the text copied, NUL-terminated */
    GPUPLAN_FIELD_STRING,   /* const char *: the text borrowed (command lines only) */
};

/* Option flags. */
#define GPUPLAN_OPTION_CLI_ONLY 0x1u /* a command-line option, not a JSON field */
#define GPUPLAN_OPTION_SEARCHED 0x2u /* the planner searches this value; it refuses it */

/* set_offset of an option without a "given" flag. */
#define GPUPLAN_OPTION_NO_SET SIZE_MAX

/* .offset and .size of member `field` of `type` (a designated-initializer pair). */
#define GPUPLAN_OPTION_AT(type, field) \
    .offset = offsetof(type, field), .size = sizeof(((type *)0)->field)

struct gpuplan_option;

/*
 * A setter for options whose text becomes more than one field (e.g. --gpu
 * ID[:N]). Called with the validated choice for CHOICE options. Fills `err`
 * on GPUPLAN_ERR_USAGE.
 */
typedef enum gpuplan_status (*gpuplan_option_parse_fn)(void *dest,
                                                       const struct gpuplan_option *opt,
                                                       const char *text,
                                                       struct gpuplan_error *err);

struct gpuplan_option {
    const char *name; /* long option without dashes, e.g. "seq-len"; NULL ends a table */
    enum gpuplan_option_kind kind;
    enum gpuplan_option_field field;
    size_t offset;                 /* of the value in the destination struct */
    size_t size;                   /* of the value (checked against `field` by the unit tests) */
    size_t set_offset;             /* of a bool made true when the option is given; or NO_SET */
    const char *arg;               /* placeholder in help, e.g. "N", "ID[:N]"; NULL: the choices */
    const char *help;              /* one line, English, marked for translation */
    const char *default_value;     /* text parsed into the field by gpuplan_options_init; NULL: 0 */
    const char *default_doc;       /* the default as --help words it, when it is no plain value */
    const char *const *choices;    /* CHOICE: NULL-terminated names; a later name with the value of
                                      an earlier one is an alias (accepted, not listed) */
    const int *choice_values;      /* CHOICE: the value stored for each name; NULL: its index */
    unsigned choice_mask;          /* CHOICE: bit v set for each value v accepted; 0: every one */
    uint64_t count_min, count_max; /* COUNT: inclusive range */
    double real_min, real_max;     /* REAL: inclusive range; both 0: any finite number */
    int flag_value;                /* FLAG: stored into an INT field (a BOOL field gets true) */
    gpuplan_option_parse_fn parse; /* TEXT, CHOICE, COUNT: stores the (checked) text instead */
    unsigned axis;                 /* the planner search axis it fixes (enum gpuplan_job_axis) */
    unsigned flags;                /* GPUPLAN_OPTION_CLI_ONLY, GPUPLAN_OPTION_SEARCHED */
};

/* The option of `table` named `name` ('_' matches '-', leading dashes skipped), or NULL. */
const struct gpuplan_option *gpuplan_options_find(const struct gpuplan_option *table,
                                                  const char *name);

/*
 * Parse `text` as `opt` takes it and store it into `dest` (the table's
 * struct); mark its set flag when `mark_set`. GPUPLAN_ERR_USAGE with the
 * option's name, the value and the allowed range or choices ("did you mean"
 * for a near choice); `dest` is unchanged then. A FLAG takes text NULL.
 */
enum gpuplan_status gpuplan_option_set(const struct gpuplan_option *opt,
                                       void *dest,
                                       const char *text,
                                       bool mark_set,
                                       struct gpuplan_error *err);

/*
 * The option `name` of `table` from `text` (gpuplan_option_set, marked as
 * given). Unknown names: GPUPLAN_ERR_USAGE "unknown option '--name'" with
 * the nearest name as the hint.
 */
enum gpuplan_status gpuplan_options_set(const struct gpuplan_option *table,
                                        void *dest,
                                        const char *name,
                                        const char *text,
                                        struct gpuplan_error *err);

/*
 * Parse every default_value of `table` into `dest` (which the caller has
 * zeroed: an option without a default keeps 0), set flags left untouched.
 * Fails only on a table whose default does not parse
 * (a programming error, reported as GPUPLAN_ERR_INTERNAL; the unit tests
 * walk every table).
 */
enum gpuplan_status
gpuplan_options_init(const struct gpuplan_option *table, void *dest, struct gpuplan_error *err);

/*
 * Every COUNT (u32/u64 field) and ranged REAL (double field) value of
 * `src` within its option's range: the one range of each option, for
 * callers that fill a request struct without the parser (library users).
 * Errors (GPUPLAN_ERR_USAGE) are the parser's own words.
 */
enum gpuplan_status gpuplan_options_check_ranges(const struct gpuplan_option *table,
                                                 const void *src,
                                                 struct gpuplan_error *err);

/*
 * The value `opt` holds in `dest` as option text, e.g. "2048", "bf16-mixed",
 * "0.9", "yes" (a FLAG: "yes" or "no"); "" for fields a `parse` writes. Text
 * that gpuplan_option_set reads back to the same value.
 */
void gpuplan_option_format(const struct gpuplan_option *opt,
                           const void *dest,
                           char *out,
                           size_t out_size);

/*
 * The placeholder of `opt` for help and completion: opt->arg, or the
 * accepted choices joined with '|' (aliases left out); "" for a FLAG.
 */
void gpuplan_option_arg(const struct gpuplan_option *opt, char *out, size_t out_size);

/* Whether CHOICE option `opt` lists its i-th name: accepted and no alias. */
bool gpuplan_option_lists_choice(const struct gpuplan_option *opt, size_t i);

/* ---- command lines ---- */

/* One table and the struct it fills. */
struct gpuplan_option_group {
    const struct gpuplan_option *options;
    void *dest;
    unsigned refuse; /* options with any of these flags are refused (GPUPLAN_ARGV_REFUSED) */
};

enum gpuplan_argv_problem {
    GPUPLAN_ARGV_OK = 0,
    GPUPLAN_ARGV_UNEXPECTED_ARGUMENT, /* more positional arguments than the command takes */
    GPUPLAN_ARGV_UNKNOWN_OPTION,      /* no group has it (err: "did you mean" in the hint) */
    GPUPLAN_ARGV_MISSING_VALUE,       /* "--name" last, without its value */
    GPUPLAN_ARGV_BAD_VALUE,           /* the option's setter refused the value (err filled) */
    GPUPLAN_ARGV_REFUSED,             /* an option the group refuses (bad_option names it) */
};

#define GPUPLAN_ARGV_MAX_POSITIONAL 4
/* Options one command line may give (each counted once per time it is given). */
#define GPUPLAN_ARGV_MAX_GIVEN 256

struct gpuplan_argv {
    const char *positional[GPUPLAN_ARGV_MAX_POSITIONAL]; /* borrowed from argv */
    size_t n_positional;
    bool help; /* --help or -h seen: parsing stopped there */
    enum gpuplan_argv_problem problem;
    int bad_index;                           /* argv index of the offending argument */
    char bad_name[64];                       /* its option name without dashes */
    const struct gpuplan_option *bad_option; /* BAD_VALUE, REFUSED: the entry */
    const struct gpuplan_option *given[GPUPLAN_ARGV_MAX_GIVEN]; /* in order, borrowed */
    size_t n_given;
};

/*
 * Parse argv[1..argc): "--name value" or "--name=value" (a FLAG takes none)
 * for the options of `groups` (the first group that has a name wins),
 * --help/-h, and at most `max_positional` other arguments. Every given
 * option is marked set and listed in out->given (more than
 * GPUPLAN_ARGV_MAX_GIVEN is a BAD_VALUE). Returns GPUPLAN_OK, or GPUPLAN_ERR_USAGE with
 * out->problem saying which case and `err` filled (for BAD_VALUE with the
 * option's own message).
 */
enum gpuplan_status gpuplan_options_parse_argv(const struct gpuplan_option_group *groups,
                                               size_t n_groups,
                                               size_t max_positional,
                                               int argc,
                                               char *const *argv,
                                               struct gpuplan_argv *out,
                                               struct gpuplan_error *err);

/*
 * The closest of `candidates` to `word` by the library's one "did you mean"
 * rule (prefix, substring, then edit distance; see util/suggest.c), or NULL
 * when none is close enough. For front-ends that name their own things
 * (the CLI's commands). The pointer is one of `candidates`.
 */
const char *gpuplan_suggest_closest(const char *word, const char *const *candidates, size_t n);

#endif
