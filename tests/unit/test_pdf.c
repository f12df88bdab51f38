/*
 * test_pdf.c - cli_html_to_pdf (src/cli/pdf.c) against stand-in Chromiums:
 * shell scripts written next to this binary that do what a real one may
 * (print a PDF of the file:// URL they are given, fail with a message, write
 * something that is not a PDF, hang, leave a helper process behind), plus a
 * missing one and an unwritable output. Each time: the right status and
 * hint, the output written only when it is a PDF, the flags of the issue
 * passed, and no temporary file or process left.
 *
 * With `--convert IN.html OUT.pdf` it converts one file with the real
 * Chromium instead (tests/suites/pdf.sh, which skips when there is none).
 */
#include "test_common.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static char scratch[1024]; /* BUILD/tests/pdf-scratch: fake programs and outputs */
static char tmp_dir[1100]; /* the directory cli_html_to_pdf makes its own under */

static const char html[] = "<!DOCTYPE html><html lang=\"en\"><title>t</title><p>hello</p></html>\n";

/* A stand-in Chromium: `body` is a shell script after the lines that parse its arguments. */
static const char *fake(const char *name, const char *body)
{
    static char path[1200];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f,
            "#!/bin/sh\n"
            "# A stand-in for chromium (tests/unit/test_pdf.c).\n"
            "pdf=; url=; flags=\n"
            "for a in \"$@\"; do\n"
            "  case $a in\n"
            "  --print-to-pdf=*) pdf=${a#--print-to-pdf=} ;;\n"
            "  file://*) url=$a ;;\n"
            "  --*) flags=\"$flags $a\" ;;\n"
            "  esac\n"
            "done\n"
            "doc=${url#file://}\n"
            "%s\n",
            body);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(chmod(path, 0755), 0);
    return path;
}

/* Entries in tmp_dir (cli_html_to_pdf's private directories must all be gone). */
static size_t leftovers(void)
{
    DIR *d = opendir(tmp_dir);
    assert_non_null(d);
    size_t n = 0;
    for (struct dirent *e = readdir(d); e; e = readdir(d))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static char *slurp(const char *path, size_t *len)
{
    return (char *)read_file(path, len);
}

static enum gpuplan_status
convert(const char *chromium, double timeout_s, const char *out, struct gpuplan_error *err)
{
    const struct cli_pdf_options opt = { chromium, timeout_s, tmp_dir };
    gpuplan_error_init(err);
    return cli_html_to_pdf_with(&opt, html, sizeof html - 1, out, err);
}

static void out_path(char *dst, size_t size, const char *name)
{
    snprintf(dst, size, "%s/%s", scratch, name);
    unlink(dst);
}

/*
 * Prints: the PDF is the fake's output, which holds the document its URL
 * named (an absolute file:// URL, though the temporary directory is relative).
 */
static void test_prints(void **state)
{
    (void)state;
    const char *prog =
        fake("chromium-ok",
             "case $url in file:///*) ;; *) echo \"not absolute: $url\" >&2; exit 9 ;; esac\n"
             "{ printf '%%PDF-1.4 fake\\n'; printf 'flags:%s\\n' "
             "\"$flags\"; cat \"$doc\"; } >\"$pdf\"\n"
             "echo \"$(wc -c <\"$pdf\") bytes written to file $pdf\"");
    char out[1200];
    out_path(out, sizeof out, "ok.pdf");
    struct gpuplan_error err;
    if (convert(prog, 0, out, &err) != GPUPLAN_OK)
        fail_msg("%s (%s)", err.message, err.hint);
    size_t len = 0;
    char *pdf = slurp(out, &len);
    assert_non_null(pdf);
    assert_true(strncmp(pdf, "%PDF-", 5) == 0);
    assert_non_null(strstr(pdf, "<p>hello</p>")); /* the file:// URL was the document */
    static const char *const flags[] = {
        " --headless",
        " --no-sandbox",
        " --disable-gpu",
        " --no-first-run",
        " --disable-background-networking",
        " --disable-component-update",
        " --disable-sync",
        " --user-data-dir=",
        " --no-pdf-header-footer",
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (!strstr(pdf, flags[i]))
            fail_msg("flag '%s' not passed: %s", flags[i], pdf);
    free(pdf);
    assert_int_equal(leftovers(), 0);
}

/* Found in PATH when no program is named (GPUPLAN_CHROMIUM is cli_html_to_pdf's). */
static void test_found_in_path(void **state)
{
    (void)state;
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/bin", scratch);
    mkdir(dir, 0755);
    const char *prog = fake("chromium-ok", "printf '%%PDF-1.4 from PATH\\n' >\"$pdf\"");
    char link[1300];
    snprintf(link, sizeof link, "%s/chromium", dir);
    unlink(link);
    char target[1300];
    assert_non_null(realpath(prog, target));
    assert_int_equal(symlink(target, link), 0);
    const char *old = getenv("PATH");
    char *saved = old ? strdup(old) : NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/nowhere:%s", scratch, dir);
    setenv("PATH", path, 1);
    unsetenv("GPUPLAN_CHROMIUM");
    char out[1200];
    out_path(out, sizeof out, "path.pdf");
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    const struct cli_pdf_options opt = { NULL, 0, tmp_dir };
    const enum gpuplan_status st = cli_html_to_pdf_with(&opt, html, sizeof html - 1, out, &err);
    if (saved) {
        setenv("PATH", saved, 1);
        free(saved);
    }
    if (st != GPUPLAN_OK)
        fail_msg("%s", err.message);
    size_t len = 0;
    char *pdf = slurp(out, &len);
    assert_non_null(pdf);
    assert_non_null(strstr(pdf, "from PATH"));
    free(pdf);
    assert_int_equal(leftovers(), 0);
}

static void test_failures(void **state)
{
    (void)state;
    const struct {
        const char *name, *body;
        double timeout_s;
        enum gpuplan_status want;
        const char *message, *hint;
    } rows[] = {
        { "chromium-missing", NULL, 0, GPUPLAN_ERR_NOT_FOUND, "not an executable",
          "apt-get install chromium" },
        { "chromium-fails", "echo 'noise' >&2; echo 'ERROR: cannot open display' >&2; exit 3", 0,
          GPUPLAN_ERR_IO, "exit status 3", "it said: ERROR: cannot open display" },
        { "chromium-not-pdf", "printf '<html>not a pdf' >\"$pdf\"; echo 'printed'", 0,
          GPUPLAN_ERR_IO, "wrote no PDF", "it said: printed" },
        { "chromium-no-file", "exit 0", 0, GPUPLAN_ERR_IO, "wrote no PDF", NULL },
        { "chromium-signal", "kill -9 $$", 0, GPUPLAN_ERR_IO, "killed by signal 9", NULL },
        { "chromium-hangs", "sleep 30", 0.5, GPUPLAN_ERR_IO, "within 0.5 s",
          "never finishes loading" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char prog[1200];
        if (rows[i].body)
            snprintf(prog, sizeof prog, "%s", fake(rows[i].name, rows[i].body));
        else
            snprintf(prog, sizeof prog, "%s/%s", scratch, rows[i].name);
        char out[1200];
        out_path(out, sizeof out, "fail.pdf");
        struct gpuplan_error err;
        const time_t start = time(NULL);
        const enum gpuplan_status st = convert(prog, rows[i].timeout_s, out, &err);
        if (st != rows[i].want || !strstr(err.message, rows[i].message) ||
            (rows[i].hint && !strstr(err.hint, rows[i].hint)))
            fail_msg("%s: status %d, '%s' (hint '%s')", rows[i].name, st, err.message, err.hint);
        assert_true(time(NULL) - start < 10);
        assert_int_equal(access(out, F_OK), -1); /* nothing written */
        assert_int_equal(leftovers(), 0);
    }
}

/* A helper that outlives Chromium, and a hung one: both killed with its process group. */
static void test_no_process_left(void **state)
{
    (void)state;
    char pid_file[1200];
    const struct {
        const char *name;
        double timeout_s;
        enum gpuplan_status want;
    } rows[] = {
        { "chromium-helper", 0, GPUPLAN_OK },
        { "chromium-hung-helper", 0.5, GPUPLAN_ERR_IO },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        snprintf(pid_file, sizeof pid_file, "%s/%s.pid", scratch, rows[i].name);
        unlink(pid_file);
        char body[2600];
        snprintf(body, sizeof body,
                 "sleep 60 & echo $! >'%s'\n"
                 "%s",
                 pid_file, i == 0 ? "printf '%%PDF-1.4\\n' >\"$pdf\"" : "wait");
        const char *prog = fake(rows[i].name, body);
        char out[1200];
        out_path(out, sizeof out, "helper.pdf");
        struct gpuplan_error err;
        assert_int_equal(convert(prog, rows[i].timeout_s, out, &err), rows[i].want);
        size_t len = 0;
        char *text = slurp(pid_file, &len);
        assert_non_null(text);
        const pid_t helper = (pid_t)strtol(text, NULL, 10);
        free(text);
        assert_true(helper > 0);
        /* Killed: gone, or a zombie of init's for an instant. */
        bool gone = false;
        for (int tries = 0; tries < 100 && !gone; tries++) {
            char proc[64], stat_line[256] = "";
            snprintf(proc, sizeof proc, "/proc/%d/stat", (int)helper);
            FILE *f = fopen(proc, "r");
            if (!f) {
                gone = true;
                break;
            }
            if (!fgets(stat_line, sizeof stat_line, f))
                stat_line[0] = 0;
            fclose(f);
            const char *close_paren = strrchr(stat_line, ')');
            gone = close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z';
            if (!gone) {
                const struct timespec pause = { 0, 20 * 1000 * 1000 };
                nanosleep(&pause, NULL);
            }
        }
        if (!gone)
            fail_msg("%s: helper %d still runs", rows[i].name, (int)helper);
        assert_int_equal(leftovers(), 0);
    }
}

static void test_bad_output(void **state)
{
    (void)state;
    const char *prog = fake("chromium-ok2", "printf '%%PDF-1.4\\n' >\"$pdf\"");
    char out[1300];
    snprintf(out, sizeof out, "%s/no/such/dir/x.pdf", scratch);
    struct gpuplan_error err;
    assert_int_equal(convert(prog, 0, out, &err), GPUPLAN_ERR_IO);
    assert_non_null(strstr(err.message, "cannot create"));
    assert_int_equal(convert(prog, 0, "", &err), GPUPLAN_ERR_USAGE);
    assert_int_equal(leftovers(), 0);
    /* A temporary directory that cannot be made. */
    const struct cli_pdf_options opt = { prog, 0, "/nonexistent-gpuplan-dir" };
    gpuplan_error_init(&err);
    assert_int_equal(cli_html_to_pdf_with(&opt, html, sizeof html - 1, out, &err), GPUPLAN_ERR_IO);
    assert_non_null(strstr(err.hint, "TMPDIR"));
}

/* `--convert IN OUT`: the real thing, for tests/suites/pdf.sh. */
static int convert_file(const char *in, const char *out)
{
    size_t len = 0;
    char *text = slurp(in, &len);
    if (!text) {
        fprintf(stderr, "test_pdf: cannot read %s: %s\n", in, strerror(errno));
        return 1;
    }
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    const enum gpuplan_status st = cli_html_to_pdf(text, len, out, &err);
    free(text);
    if (st != GPUPLAN_OK)
        return cli_report(&err);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--convert") == 0)
        return convert_file(argv[2], argv[3]);
    char self[1024];
    snprintf(self, sizeof self, "%s", argv[0]);
    snprintf(scratch, sizeof scratch, "%s/pdf-scratch", dirname(self));
    snprintf(tmp_dir, sizeof tmp_dir, "%s/tmp", scratch);
    mkdir(scratch, 0755);
    mkdir(tmp_dir, 0755);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prints),     cmocka_unit_test(test_found_in_path),
        cmocka_unit_test(test_failures),   cmocka_unit_test(test_no_process_left),
        cmocka_unit_test(test_bad_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
