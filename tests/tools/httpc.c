/*
 * httpc.c - a tiny raw-socket HTTP client for the fault tests of `gpuplan
 * serve` (tests/suites/http_faults.sh): what curl and wrk cannot do.
 *
 *   httpc slow PORT MS [FAST]   send stdin one byte every MS ms (the first FAST
 *                               bytes at once), print the reply
 *   httpc halfclose PORT        send stdin, shutdown(SHUT_WR), print the reply
 *   httpc pipeline PORT N       send stdin N times in one write, print the
 *                               number of "HTTP/1.1 200" status lines read
 *   httpc idle PORT N SECONDS [SRC]  open N connections (from source address
 *                               SRC, default 127.0.0.1), send nothing, hold
 *                               them SECONDS; print "opened N, closed by
 *                               server M" (raises RLIMIT_NOFILE to the hard
 *                               limit first)
 *   httpc reset PORT            send stdin, then close with RST (SO_LINGER 0)
 *   httpc repeat PORT N         send stdin on N connections, one after another
 *                               (each half-closed after the request), print
 *                               the number of replies with a status line
 *   httpc slowloris PORT N SECONDS SRC[,SRC...] MS
 *                               hold N connections, spread over the source
 *                               addresses, each sending a request line and a
 *                               Host header, then one more header byte every
 *                               MS ms (never finishing the headers); reopen
 *                               every connection the server closes; after
 *                               SECONDS print "opened N, closed by server M,
 *                               longest held L ms, most held at once H"
 *
 * The server is always 127.0.0.1. Exit 0 on success, 1 on a socket error,
 * 2 on usage errors. Replies are read until EOF or 15 s of silence.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define READ_TIMEOUT_MS 15000
#define MAX_INPUT_BYTES (4U * 1024U * 1024U)
/* slowloris: how often connections are checked, and the most source addresses. */
#define LORIS_TICK_MS     20
#define LORIS_MAX_SOURCES 16

static int connect_to_flags(int port, const char *src, int flags)
{
    const int fd = socket(AF_INET, SOCK_STREAM | flags, 0);
    if (fd < 0)
        return -1;
    if (src) {
        struct sockaddr_in local;
        memset(&local, 0, sizeof local);
        local.sin_family = AF_INET;
        if (inet_pton(AF_INET, src, &local.sin_addr) != 1 ||
            bind(fd, (struct sockaddr *)&local, sizeof local) != 0) {
            close(fd);
            return -1;
        }
    }
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((unsigned short)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    return fd;
}

static int connect_to(int port, const char *src)
{
    return connect_to_flags(port, src, 0);
}

/* All of stdin, malloc'd. */
static char *read_stdin(size_t *len)
{
    size_t cap = 4096;
    char *buf = malloc(cap);
    *len = 0;
    while (buf) {
        const ssize_t n = read(0, buf + *len, cap - *len);
        if (n <= 0)
            break;
        *len += (size_t)n;
        if (*len == cap) {
            if (cap >= MAX_INPUT_BYTES)
                break;
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                return NULL;
            }
            buf = grown;
            cap *= 2;
        }
    }
    return buf;
}

static int send_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        const ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Read until EOF or READ_TIMEOUT_MS of silence; write to stdout when `echo`. Returns bytes. */
static size_t drain(int fd, int echo, char **out)
{
    size_t total = 0, cap = 0;
    char chunk[65536];
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (poll(&p, 1, READ_TIMEOUT_MS) <= 0)
            break;
        const ssize_t n = recv(fd, chunk, sizeof chunk, 0);
        if (n <= 0)
            break;
        if (echo)
            (void)fwrite(chunk, 1, (size_t)n, stdout);
        if (out) {
            if (total + (size_t)n + 1 > cap) {
                cap = (total + (size_t)n + 1) * 2;
                char *grown = realloc(*out, cap);
                if (!grown)
                    break;
                *out = grown;
            }
            memcpy(*out + total, chunk, (size_t)n);
            (*out)[total + (size_t)n] = '\0';
        }
        total += (size_t)n;
    }
    return total;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static int cmd_slow(int port, long ms, size_t fast)
{
    size_t len = 0;
    char *req = read_stdin(&len);
    const int fd = connect_to(port, NULL);
    if (!req || fd < 0) {
        perror("httpc slow");
        free(req);
        return 1;
    }
    if (fast > len)
        fast = len;
    if (fast > 0 && send_all(fd, req, fast) != 0)
        fprintf(stderr, "httpc slow: server closed before %zu bytes\n", fast);
    for (size_t i = fast; i < len; i++) {
        if (send_all(fd, req + i, 1) != 0) {
            fprintf(stderr, "httpc slow: server closed after %zu of %zu bytes\n", i, len);
            break;
        }
        sleep_ms(ms);
    }
    (void)drain(fd, 1, NULL);
    close(fd);
    free(req);
    return 0;
}

static int cmd_halfclose(int port, int reset)
{
    size_t len = 0;
    char *req = read_stdin(&len);
    const int fd = connect_to(port, NULL);
    if (!req || fd < 0 || send_all(fd, req, len) != 0) {
        perror("httpc halfclose");
        free(req);
        if (fd >= 0)
            close(fd);
        return 1;
    }
    if (reset) {
        struct linger lg = { .l_onoff = 1, .l_linger = 0 };
        (void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        close(fd);
        free(req);
        return 0;
    }
    (void)shutdown(fd, SHUT_WR);
    (void)drain(fd, 1, NULL);
    close(fd);
    free(req);
    return 0;
}

static int cmd_repeat(int port, long n)
{
    size_t len = 0;
    char *req = read_stdin(&len);
    if (!req) {
        perror("httpc repeat");
        return 1;
    }
    long answered = 0;
    for (long i = 0; i < n; i++) {
        const int fd = connect_to(port, NULL);
        if (fd < 0 || send_all(fd, req, len) != 0) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        (void)shutdown(fd, SHUT_WR);
        char *reply = NULL;
        (void)drain(fd, 0, &reply);
        answered += reply && strncmp(reply, "HTTP/1.", 7) == 0;
        free(reply);
        close(fd);
    }
    printf("%ld\n", answered);
    free(req);
    return 0;
}

static int cmd_pipeline(int port, long n)
{
    size_t len = 0;
    char *req = read_stdin(&len);
    char *all = req ? malloc(len * (size_t)n + 1) : NULL;
    const int fd = connect_to(port, NULL);
    if (!all || fd < 0) {
        perror("httpc pipeline");
        free(req);
        free(all);
        if (fd >= 0)
            close(fd);
        return 1;
    }
    for (long i = 0; i < n; i++)
        memcpy(all + (size_t)i * len, req, len);
    int rc = send_all(fd, all, len * (size_t)n) == 0 ? 0 : 1;
    char *reply = NULL;
    (void)drain(fd, 0, &reply);
    long ok = 0;
    for (const char *p = reply; p && (p = strstr(p, "HTTP/1.1 200 ")) != NULL; p++)
        ok++;
    printf("%ld\n", ok);
    close(fd);
    free(reply);
    free(req);
    free(all);
    return rc;
}

static void raise_nofile(void);

static int cmd_idle(int port, long n, long seconds, const char *src)
{
    raise_nofile();
    int *fds = calloc((size_t)n, sizeof *fds);
    if (!fds)
        return 1;
    long opened = 0;
    for (long i = 0; i < n; i++) {
        fds[i] = connect_to(port, src);
        if (fds[i] < 0)
            break;
        opened++;
    }
    printf("opened %ld\n", opened);
    fflush(stdout);
    /* Hold them; count those the server closes (readable with EOF). */
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long closed = 0;
    do {
        sleep_ms(200);
        for (long i = 0; i < opened; i++) {
            if (fds[i] < 0)
                continue;
            char c;
            const ssize_t r = recv(fds[i], &c, 1, MSG_DONTWAIT);
            if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
                close(fds[i]);
                fds[i] = -1;
                closed++;
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (now.tv_sec - start.tv_sec < seconds);
    for (long i = 0; i < opened; i++) {
        if (fds[i] >= 0)
            close(fds[i]);
    }
    printf("opened %ld, closed by server %ld\n", opened, closed);
    free(fds);
    return 0;
}

static long long monotonic_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
    }
}

struct loris {
    int fd;
    const char *src;
    long long opened_ms;
    long long next_byte_ms;
    size_t n_sent; /* of the request start; then header bytes */
};

/* The start of a request that never ends: a request line, Host, and an endless header. */
static const char loris_start[] = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ";

static int loris_open(struct loris *c, int port, long long now)
{
    c->fd = connect_to_flags(port, c->src, SOCK_NONBLOCK);
    c->opened_ms = now;
    c->next_byte_ms = now;
    c->n_sent = 0;
    return c->fd >= 0 ? 0 : -1;
}

/* One step: send what is due; 1 when the server has closed the connection. */
static int loris_step(struct loris *c, long long now, long interval_ms)
{
    char byte;
    const ssize_t r = recv(c->fd, &byte, 1, MSG_DONTWAIT);
    if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN))
        return 1;
    if (now < c->next_byte_ms)
        return 0;
    const size_t start_len = sizeof loris_start - 1;
    const char *data = c->n_sent < start_len ? loris_start + c->n_sent : "a";
    const size_t len = c->n_sent < start_len ? start_len - c->n_sent : 1;
    const ssize_t n = send(c->fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
        c->n_sent += (size_t)n;
        if (c->n_sent >= start_len)
            c->next_byte_ms = now + interval_ms;
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN) {
        return 1;
    }
    return 0;
}

static int cmd_slowloris(int port, long n, long seconds, const char *sources, long interval_ms)
{
    raise_nofile();
    char src_buf[512];
    const char *src[LORIS_MAX_SOURCES];
    size_t n_src = 0;
    (void)snprintf(src_buf, sizeof src_buf, "%s", sources);
    for (char *p = src_buf; p && *p && n_src < LORIS_MAX_SOURCES;) {
        src[n_src++] = p;
        p = strchr(p, ',');
        if (p)
            *p++ = '\0';
    }
    struct loris *c = calloc((size_t)(n > 0 ? n : 1), sizeof *c);
    if (!c || n_src == 0)
        return 1;
    const long long start = monotonic_ms();
    long opened = 0, closed = 0, most_held = 0;
    long long longest_ms = 0;
    for (long i = 0; i < n; i++) {
        c[i].src = src[(size_t)i % n_src];
        if (loris_open(&c[i], port, start) == 0)
            opened++;
    }
    for (long long now = start; now - start < seconds * 1000LL; now = monotonic_ms()) {
        long held = 0;
        for (long i = 0; i < n; i++) {
            if (c[i].fd >= 0 && loris_step(&c[i], now, interval_ms) == 1) {
                if (now - c[i].opened_ms > longest_ms)
                    longest_ms = now - c[i].opened_ms;
                close(c[i].fd);
                c[i].fd = -1;
                closed++;
            }
            if (c[i].fd < 0 && loris_open(&c[i], port, now) == 0)
                opened++;
            held += c[i].fd >= 0;
        }
        if (held > most_held)
            most_held = held;
        sleep_ms(LORIS_TICK_MS);
    }
    for (long i = 0; i < n; i++) {
        if (c[i].fd >= 0)
            close(c[i].fd);
    }
    printf("opened %ld, closed by server %ld, longest held %lld ms, most held at once %ld\n",
           opened, closed, longest_ms, most_held);
    free(c);
    return 0;
}

/* A decimal in [0, max], or -1. */
static long parse_count(const char *text, long max)
{
    char *end = NULL;
    errno = 0;
    const long v = strtol(text, &end, 10);
    return errno || end == text || *end || v < 0 || v > max ? -1 : v;
}

#define MAX_ARG 100000000L

/* argv[i] as a count, or `fallback` when absent; -1 when malformed. */
static long arg_count(int argc, char **argv, int i, long fallback)
{
    return i < argc ? parse_count(argv[i], MAX_ARG) : fallback;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fputs("usage: httpc slow|halfclose|pipeline|repeat|idle|reset|slowloris PORT [ARGS]\n",
              stderr);
        return 2;
    }
    const char *cmd = argv[1];
    const long port = parse_count(argv[2], 65535);
    const long n3 = arg_count(argc, argv, 3, 0);
    const long n4 = arg_count(argc, argv, 4, 0); /* argv[3], argv[4] are numbers in every command */
    if (port < 0 || n3 < 0 || n4 < 0) {
        fputs("httpc: bad number\n", stderr);
        return 2;
    }
    if (strcmp(cmd, "slow") == 0 && (argc == 4 || argc == 5))
        return cmd_slow((int)port, n3, (size_t)n4);
    if (strcmp(cmd, "halfclose") == 0 && argc == 3)
        return cmd_halfclose((int)port, 0);
    if (strcmp(cmd, "reset") == 0 && argc == 3)
        return cmd_halfclose((int)port, 1);
    if (strcmp(cmd, "repeat") == 0 && argc == 4)
        return cmd_repeat((int)port, n3);
    if (strcmp(cmd, "pipeline") == 0 && argc == 4)
        return cmd_pipeline((int)port, n3);
    if (strcmp(cmd, "idle") == 0 && (argc == 5 || argc == 6))
        return cmd_idle((int)port, n3, n4, argc == 6 ? argv[5] : NULL);
    if (strcmp(cmd, "slowloris") == 0 && argc == 7) {
        const long interval_ms = parse_count(argv[6], MAX_ARG);
        if (interval_ms < 0) {
            fputs("httpc: bad number\n", stderr);
            return 2;
        }
        return cmd_slowloris((int)port, n3, n4, argv[5], interval_ms);
    }
    fputs("httpc: bad arguments\n", stderr);
    return 2;
}
