/*
 * bench_startup.c - what one `gpuplan` process costs: CPU time (user +
 * system, getrusage of the children) and wall time per process of
 * `estimate` (issue 19: under 2 ms of CPU, no JSON parsed at start-up) and
 * of `recommend` (dominated by its search: the start-up share is printed),
 * each against a baseline measured in the same run, right before it: an
 * empty process (/bin/true: fork, exec, the dynamic loader of libc). The
 * binary is $BUILD/gpuplan (BUILD defaults to build). Prints figures only;
 * not a pass/fail test (exit 1 when a process cannot be run or fails).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"

#define TARGET_ESTIMATE_CPU_MS 2.0

struct cost {
    double cpu_ms, wall_ms; /* per process */
};

static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Run argv `n` times (stdout and stderr to /dev/null): the mean cost of one process. */
static int run(char *argv[], int n, struct cost *c)
{
    struct rusage r0, r1;
    getrusage(RUSAGE_CHILDREN, &r0);
    const double t0 = bench_now_s();
    for (int i = 0; i < n; i++) {
        fflush(stdout);
        const pid_t pid = fork();
        if (pid < 0)
            return 1;
        if (pid == 0) {
            if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
                _exit(126);
            execv(argv[0], argv);
            _exit(127);
        }
        int status = 0;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "bench_startup: %s failed (status %d)\n", argv[0], status);
            return 1;
        }
    }
    const double t1 = bench_now_s();
    getrusage(RUSAGE_CHILDREN, &r1);
    const double cpu =
        tv_s(r1.ru_utime) - tv_s(r0.ru_utime) + tv_s(r1.ru_stime) - tv_s(r0.ru_stime);
    c->cpu_ms = cpu / n * 1e3;
    c->wall_ms = (t1 - t0) / n * 1e3;
    return 0;
}

/* "PROGRAM ARG ..." split at spaces into argv (in `buf`); at most 15 words. */
static void split(const char *line, char *buf, size_t size, char *argv[16])
{
    (void)snprintf(buf, size, "%s", line);
    size_t n = 0;
    char *save = NULL;
    for (char *w = strtok_r(buf, " ", &save); w && n < 15; w = strtok_r(NULL, " ", &save))
        argv[n++] = w;
    argv[n] = NULL;
}

/* The cost of `line` against /bin/true's, measured right before it. */
static int figure(const char *name, const char *line, int n, struct cost *out)
{
    char b0[64], b1[1024];
    char *empty[16], *argv[16];
    split("/bin/true", b0, sizeof b0, empty);
    split(line, b1, sizeof b1, argv);
    struct cost base, c;
    if (run(empty, n, &base) != 0 || run(argv, n, &c) != 0)
        return 1;
    printf("%-54s %7.2f ms CPU %8.2f ms wall per process (%3d runs) | baseline /bin/true %5.2f "
           "ms CPU %5.2f ms wall | ratio %.1f\n",
           name, c.cpu_ms, c.wall_ms, n, base.cpu_ms, base.wall_ms, c.cpu_ms / base.cpu_ms);
    *out = c;
    return 0;
}

int main(void)
{
    const char *build = getenv("BUILD");
    char gpuplan[512];
    (void)snprintf(gpuplan, sizeof gpuplan, "%s/gpuplan", build && *build ? build : "build");
    if (access(gpuplan, X_OK) != 0 || strchr(gpuplan, ' ')) {
        fprintf(stderr, "bench_startup: %s is not built (or has a space in its path)\n", gpuplan);
        return 1;
    }
    bench_machine_line("bench_startup");
    static const char *const commands[] = { "--version",
                                            "estimate llama-3.1-8b --method lora --gpu h100-sxm",
                                            "recommend llama-3.1-8b --tokens 1B" };
    static const int runs[] = { 100, 100, 10 };
    struct cost c[3];
    for (size_t i = 0; i < 3; i++) {
        char name[128], line[640];
        (void)snprintf(name, sizeof name, "gpuplan %s", commands[i]);
        (void)snprintf(line, sizeof line, "%s %s", gpuplan, commands[i]);
        if (figure(name, line, runs[i], &c[i]) != 0)
            return 1;
    }
    printf("target estimate < %.0f ms CPU per process: %.2f ms, %s\n", TARGET_ESTIMATE_CPU_MS,
           c[1].cpu_ms, c[1].cpu_ms < TARGET_ESTIMATE_CPU_MS ? "met" : "NOT met");
    printf("recommend: the estimate's cost (start-up, catalog, model) is %.1f %% of its CPU; the "
           "rest is the search\n",
           100.0 * c[1].cpu_ms / c[2].cpu_ms);
    return 0;
}
