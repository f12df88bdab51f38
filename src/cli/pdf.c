/*
 * pdf.c - an HTML document to PDF through Debian's headless Chromium
 * (cli.h: cli_html_to_pdf). The library never runs programs; the CLI does,
 * here: the HTML goes to a private temporary directory, Chromium prints it
 * (`--headless --print-to-pdf`, with its own throwaway profile there and no
 * network of its own: no background networking, component updates or
 * sync), the result must start with "%PDF-", and is then copied to the
 * caller's path; the directory is removed whatever happens.
 *
 * Not here: making the HTML (src/lib/render/doc.c) or choosing the paper
 * (the document's @page rule: Chromium honours it).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

extern char **environ;

#define CHROMIUM_DEBIAN  "/usr/bin/chromium"
#define PDF_MAGIC        "%PDF-"
#define LOG_TAIL_BYTES   400
#define POLL_INTERVAL_NS (50L * 1000L * 1000L)

/* ---- finding Chromium ---- */

static bool is_executable(const char *path)
{
    struct stat st;
    return path && path[0] && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           access(path, X_OK) == 0;
}

/* "chromium" in PATH, then /usr/bin/chromium; into dst. */
static bool find_chromium(char *dst, size_t size)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        const size_t n = colon ? (size_t)(colon - path) : strlen(path);
        if (n > 0 && n + sizeof "/chromium" < size) {
            snprintf(dst, size, "%.*s/chromium", (int)n, path);
            if (is_executable(dst))
                return true;
        }
        path = colon ? colon + 1 : NULL;
    }
    snprintf(dst, size, "%s", CHROMIUM_DEBIAN);
    return is_executable(dst);
}

/* ---- the temporary directory ---- */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

static void remove_tree(const char *dir)
{
    if (dir[0])
        (void)nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Write a whole file (mode: before the umask); a failed write removes what it made. */
static enum gpuplan_status
write_file(const char *path, const char *bytes, size_t len, mode_t mode, struct gpuplan_error *err)
{
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    if (fd < 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_IO, path, "cannot create '%s': %s", path,
                                 strerror(errno));
    size_t done = 0;
    while (done < len) {
        const ssize_t n = write(fd, bytes + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int e = errno;
            close(fd);
            unlink(path);
            return gpuplan_error_set(err, GPUPLAN_ERR_IO, path, "cannot write '%s': %s", path,
                                     strerror(e));
        }
        done += (size_t)n;
    }
    if (close(fd) != 0) {
        const int e = errno;
        unlink(path);
        return gpuplan_error_set(err, GPUPLAN_ERR_IO, path, "cannot write '%s': %s", path,
                                 strerror(e));
    }
    return GPUPLAN_OK;
}

/* "file://" and the path, percent-encoded but for RFC 3986's unreserved characters and '/'. */
static void file_url(char *dst, size_t size, const char *path)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t j = (size_t)snprintf(dst, size, "file://");
    for (const unsigned char *p = (const unsigned char *)path; *p && j + 4 < size; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            strchr("-._~/", *p)) {
            dst[j++] = (char)*p;
        } else {
            dst[j++] = '%';
            dst[j++] = hex[*p >> 4];
            dst[j++] = hex[*p & 15];
        }
    }
    dst[j] = 0;
}

/* The last line of the log Chromium wrote (its error, when it failed), into dst. */
static void log_tail(const char *log_path, char *dst, size_t size)
{
    dst[0] = 0;
    FILE *f = fopen(log_path, "rb");
    if (!f)
        return;
    char buf[LOG_TAIL_BYTES + 1];
    size_t n = 0;
    if (fseek(f, 0, SEEK_END) == 0) {
        const long end = ftell(f);
        if (end > 0 && fseek(f, end > LOG_TAIL_BYTES ? end - LOG_TAIL_BYTES : 0, SEEK_SET) == 0)
            n = fread(buf, 1, LOG_TAIL_BYTES, f);
    }
    fclose(f);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--;
    buf[n] = 0;
    const char *line = strrchr(buf, '\n');
    line = line ? line + 1 : buf;
    size_t j = 0;
    for (const char *p = line; *p && j + 1 < size; p++)
        dst[j++] = (*p >= 0x20 && *p != 0x7f) ? *p : ' ';
    dst[j] = 0;
}

/* ---- running it ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Run argv in its own process group with stdin from /dev/null and stdout and
 * stderr into log_path; wait at most timeout_s, then kill the group. The
 * group is killed after a normal exit too: helpers Chromium left behind
 * (they hold the profile directory) go with it. *status: waitpid's.
 */
static enum gpuplan_status run_program(char *const argv[],
                                       const char *log_path,
                                       double timeout_s,
                                       int *status,
                                       struct gpuplan_error *err)
{
    posix_spawn_file_actions_t files;
    posix_spawnattr_t attr;
    if (posix_spawn_file_actions_init(&files) != 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "cannot start '%s': out of memory",
                                 argv[0]);
    if (posix_spawnattr_init(&attr) != 0) {
        posix_spawn_file_actions_destroy(&files);
        return gpuplan_error_set(err, GPUPLAN_ERR_NOMEM, NULL, "cannot start '%s': out of memory",
                                 argv[0]);
    }
    int rc = posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (rc == 0)
        rc = posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, log_path,
                                              O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
    if (rc == 0)
        rc = posix_spawnattr_setpgroup(&attr, 0);
    if (rc == 0)
        rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    pid_t pid = -1;
    if (rc == 0)
        rc = posix_spawn(&pid, argv[0], &files, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&files);
    posix_spawnattr_destroy(&attr);
    if (rc != 0)
        return gpuplan_error_set(err, GPUPLAN_ERR_IO, argv[0], "cannot start '%s': %s", argv[0],
                                 strerror(rc));

    /*
     * Poll with WNOWAIT: the exited leader stays a zombie until the group is
     * killed, so its pid (the group's id) cannot be reused under us.
     */
    const double deadline = now_s() + timeout_s;
    bool timed_out = false;
    for (;;) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0 && errno != EINTR) {
            const int e = errno;
            kill(-pid, SIGKILL);
            while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
            }
            return gpuplan_error_set(err, GPUPLAN_ERR_IO, argv[0], "cannot wait for '%s': %s",
                                     argv[0], strerror(e));
        }
        if (info.si_pid == pid)
            break;
        if (now_s() > deadline) {
            timed_out = true;
            break;
        }
        const struct timespec pause = { 0, POLL_INTERVAL_NS };
        nanosleep(&pause, NULL);
    }
    kill(-pid, SIGKILL); /* helpers left behind, or all of it on a timeout */
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out) {
        gpuplan_error_set(err, GPUPLAN_ERR_IO, argv[0],
                          "'%s' did not print the document within %g s", argv[0], timeout_s);
        gpuplan_error_hint(err, "a page that never finishes loading? try the HTML in a browser");
        return GPUPLAN_ERR_IO;
    }
    return GPUPLAN_OK;
}

/* Whether the file starts with "%PDF-"; its bytes into *pdf (malloc'd) and *len. */
static bool read_pdf(const char *path, char **pdf, size_t *len)
{
    *pdf = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        const size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
        if (n == cap) {
            char *bigger = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    const bool read_all = !ferror(f);
    fclose(f);
    if (!buf || !read_all || n < sizeof PDF_MAGIC - 1 ||
        memcmp(buf, PDF_MAGIC, sizeof PDF_MAGIC - 1) != 0) {
        free(buf);
        return false;
    }
    *pdf = buf;
    *len = n;
    return true;
}

enum gpuplan_status cli_html_to_pdf_with(const struct cli_pdf_options *opt,
                                         const char *html,
                                         size_t len,
                                         const char *out_path,
                                         struct gpuplan_error *err)
{
    char chromium[4096];
    if (opt && opt->chromium) {
        snprintf(chromium, sizeof chromium, "%s", opt->chromium);
        if (!is_executable(chromium)) {
            gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, chromium,
                              "'%s' is not an executable program", chromium);
            gpuplan_error_hint(err,
                               "install Debian's headless browser: apt-get install chromium; or "
                               "set GPUPLAN_CHROMIUM to its path");
            return GPUPLAN_ERR_NOT_FOUND;
        }
    } else if (!find_chromium(chromium, sizeof chromium)) {
        gpuplan_error_set(err, GPUPLAN_ERR_NOT_FOUND, NULL,
                          "headless Chromium is needed for PDF and was not found (no 'chromium' in "
                          "PATH, no %s)",
                          CHROMIUM_DEBIAN);
        gpuplan_error_hint(err, "install Debian's headless browser: apt-get install chromium; or "
                                "set GPUPLAN_CHROMIUM to its path");
        return GPUPLAN_ERR_NOT_FOUND;
    }
    if (!out_path || !out_path[0])
        return gpuplan_error_set(err, GPUPLAN_ERR_USAGE, NULL, "no file to write the PDF to");

    const char *tmp = opt && opt->tmp_dir ? opt->tmp_dir : getenv("TMPDIR");
    if (!tmp || !tmp[0])
        tmp = "/tmp";
    /* Paths under the directory: its absolute path (< PATH_MAX - 32) and a short name. */
    char dir[PATH_MAX] = "";
    char abs_dir[PATH_MAX];
    char html_path[PATH_MAX], pdf_path[PATH_MAX], log_path[PATH_MAX], profile[PATH_MAX];
    char url[3 * PATH_MAX + 8];
    char arg_profile[PATH_MAX + 32], arg_pdf[PATH_MAX + 32];
    char *pdf = NULL;
    size_t pdf_len = 0;
    enum gpuplan_status st = GPUPLAN_OK;
    if ((size_t)snprintf(dir, sizeof dir, "%s/gpuplan-pdf-XXXXXX", tmp) >= sizeof dir) {
        dir[0] = 0;
        return gpuplan_error_set(err, GPUPLAN_ERR_TOO_LARGE, tmp,
                                 "the temporary directory's path is too long");
    }
    if (!mkdtemp(dir)) {
        const int e = errno;
        dir[0] = 0;
        gpuplan_error_set(err, GPUPLAN_ERR_IO, tmp, "cannot make a temporary directory in '%s': %s",
                          tmp, strerror(e));
        gpuplan_error_hint(err, "set TMPDIR to a writable directory");
        return GPUPLAN_ERR_IO;
    }
    /* Chromium needs an absolute file:// URL; TMPDIR may be relative. */
    if (!realpath(dir, abs_dir) || strlen(abs_dir) > PATH_MAX - 32) {
        st = gpuplan_error_set(err, GPUPLAN_ERR_IO, dir,
                               "cannot resolve '%s' to a short enough path", dir);
        goto out;
    }
    const size_t n_dir = strlen(abs_dir);
    snprintf(html_path, sizeof html_path, "%.*s/document.html", (int)n_dir, abs_dir);
    snprintf(pdf_path, sizeof pdf_path, "%.*s/document.pdf", (int)n_dir, abs_dir);
    snprintf(log_path, sizeof log_path, "%.*s/chromium.log", (int)n_dir, abs_dir);
    snprintf(profile, sizeof profile, "%.*s/profile", (int)n_dir, abs_dir);
    st = write_file(html_path, html ? html : "", html ? len : 0, 0600, err);
    if (st != GPUPLAN_OK)
        goto out;
    file_url(url, sizeof url, html_path);
    snprintf(arg_profile, sizeof arg_profile, "--user-data-dir=%s", profile);
    snprintf(arg_pdf, sizeof arg_pdf, "--print-to-pdf=%s", pdf_path);
    /*
     * Headless, no sandbox (it needs user namespaces, often absent in
     * containers and refused to root), no GPU, and nothing fetched behind
     * the document's back; the page's own CSP forbids the rest.
     */
    char flags[][40] = { "--headless",
                         "--no-sandbox",
                         "--disable-gpu",
                         "--no-first-run",
                         "--disable-background-networking",
                         "--disable-component-update",
                         "--disable-sync",
                         "--no-pdf-header-footer" };
    char *argv[] = { chromium, flags[0],    flags[1], flags[2], flags[3], flags[4], flags[5],
                     flags[6], arg_profile, arg_pdf,  flags[7], url,      NULL };
    int status = 0;
    st = run_program(argv, log_path, opt && opt->timeout_s > 0 ? opt->timeout_s : CLI_PDF_TIMEOUT_S,
                     &status, err);
    if (st != GPUPLAN_OK)
        goto out;
    char tail[LOG_TAIL_BYTES + 1];
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        log_tail(log_path, tail, sizeof tail);
        if (WIFEXITED(status))
            st = gpuplan_error_set(err, GPUPLAN_ERR_IO, chromium,
                                   "'%s' failed with exit status %d printing the PDF", chromium,
                                   WEXITSTATUS(status));
        else
            st = gpuplan_error_set(err, GPUPLAN_ERR_IO, chromium,
                                   "'%s' was killed by signal %d printing the PDF", chromium,
                                   WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        if (tail[0])
            gpuplan_error_hint(err, "it said: %s", tail);
        goto out;
    }
    if (!read_pdf(pdf_path, &pdf, &pdf_len)) {
        log_tail(log_path, tail, sizeof tail);
        st = gpuplan_error_set(err, GPUPLAN_ERR_IO, chromium, "'%s' wrote no PDF", chromium);
        if (tail[0])
            gpuplan_error_hint(err, "it said: %s", tail);
        goto out;
    }
    st = write_file(out_path, pdf, pdf_len, 0666, err);
out:
    free(pdf);
    remove_tree(dir);
    return st;
}

enum gpuplan_status
cli_html_to_pdf(const char *html, size_t len, const char *out_path, struct gpuplan_error *err)
{
    const char *chromium = getenv("GPUPLAN_CHROMIUM");
    const struct cli_pdf_options opt = { .chromium = chromium && chromium[0] ? chromium : NULL };
    return cli_html_to_pdf_with(&opt, html, len, out_path, err);
}
