/*
 * driver.c — many seeds, in child processes: a child opens the contexts
 * once (the C compiler is probed once per process) and runs seeds one
 * after another, reporting each through a pipe; when it crashes or a seed
 * runs past its time (SIGALRM), that seed is a failure and a new child
 * goes on with the next.  The parent never creates a context, so it never
 * starts threads before forking.
 */
#include "diff.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Under AddressSanitizer, an allocation of 2^62 bytes (an extent near
 * 2^63) must fail as malloc does, for the library to report it, rather
 * than abort the process.  The runtime reads this before main; the
 * ASAN_OPTIONS variable still overrides it. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

typedef enum rec_kind { REC_INFO, REC_START, REC_DONE, REC_END } rec_kind;

/* One message from a child; small enough for an atomic pipe write. */
typedef struct record {
    rec_kind kind;
    uint64_t seed;
    int ok;
    dz_stats st;
    char text[DZ_MSG];
} record;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void send(int fd, const record *r)
{
    const char *p = (const char *)r;
    size_t left = sizeof *r;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            _exit(3);
        p += n;
        left -= (size_t)n;
    }
}

static int receive(int fd, record *r)
{
    char *p = (char *)r;
    size_t got = 0;
    while (got < sizeof *r) {
        ssize_t n = read(fd, p + got, sizeof *r - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        got += (size_t)n;
    }
    return 1;
}

static uint64_t seed_at(const dz_batch *b, size_t k)
{
    return b->seeds ? b->seeds[k] : b->first + k;
}

static int more(const dz_batch *b, size_t k, double deadline)
{
    if (b->n_seeds && k >= b->n_seeds)
        return 0;
    return b->seconds <= 0 || now() < deadline;
}

/* The child: seeds k, k+1, ... until the list or the time runs out. */
static void child(const dz_batch *b, const dz_options *o, size_t k,
                  double deadline, int fd)
{
    char why[DZ_MSG];
    record r = {.kind = REC_INFO};
    dz_runner *run = dz_runner_open(o, b->cache_dir, why, sizeof why);
    if (!run) {
        r.kind = REC_END;
        snprintf(r.text, sizeof r.text, "%s", why);
        send(fd, &r);
        _exit(2);
    }
    const char *cuda, *nvrtc;
    int has_cuda = dz_runner_has_cuda(run, &cuda);
    int has_nvrtc = dz_runner_has_nvrtc(run, &nvrtc);
    snprintf(r.text, sizeof r.text, "cuda: %s%.250s; NVRTC: %s%.250s",
             has_cuda ? "runs" : "SKIPPED (", has_cuda ? "" : cuda,
             has_nvrtc ? "compiles the CUDA source" : "not used (",
             has_nvrtc ? "" : nvrtc);
    if (!has_cuda || !has_nvrtc)
        strcat(r.text, ")");
    send(fd, &r);
    for (; more(b, k, deadline); k++) {
        record d = {.kind = REC_START, .seed = seed_at(b, k)};
        send(fd, &d);
        if (b->seed_timeout > 0)
            alarm((unsigned)b->seed_timeout);
        d.kind = REC_DONE;
        d.ok = dz_run_seed(run, d.seed, &d.st, d.text, sizeof d.text);
        alarm(0);
        send(fd, &d);
    }
    dz_runner_close(run);
    r.kind = REC_END;
    r.text[0] = '\0';
    send(fd, &r);
    close(fd);
    exit(0);
}

typedef struct tally {
    dz_stats *st;
    dz_failure *fails;
    size_t max_fail, n_fail;
    const dz_batch *b;
    const dz_options *o;
} tally;

static void add_failure(tally *t, uint64_t seed, const char *what)
{
    char cmd[400];
    dz_repro_command(cmd, sizeof cmd, t->b->argv0, seed, t->o);
    if (!t->b->quiet)
        fprintf(stderr, "FAIL seed %" PRIu64 ": %s\n  reproduce: %s\n", seed,
                what, cmd);
    if (t->n_fail < t->max_fail) {
        t->fails[t->n_fail].seed = seed;
        snprintf(t->fails[t->n_fail].what, DZ_MSG, "%s", what);
    }
    t->n_fail++;
}

/* Why a child that was running `seed` stopped. */
static void child_died(tally *t, int status, uint64_t seed)
{
    char what[200];
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        snprintf(what, sizeof what, "did not finish within %.0f s (a hang, or "
                 "a very slow program)", t->b->seed_timeout);
    else if (WIFSIGNALED(status))
        snprintf(what, sizeof what, "crashed: signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(what, sizeof what, "the process exited with status %d",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    t->st->crashes++;
    t->st->failures++;
    add_failure(t, seed, what);
}

static void progress(const tally *t, double start, double *last)
{
    double n = now();
    if (!t->b->progress || n - *last < 10)
        return;
    *last = n;
    printf("[%4.0f s] %" PRIu64 " programs, %" PRIu64 " runs, %zu failures\n",
           n - start, t->st->programs, t->st->runs, t->n_fail);
    fflush(stdout);
}

size_t dz_run_batch(const dz_batch *b, const dz_options *o, dz_stats *st,
                    dz_failure *fails, size_t max_fail)
{
    tally t = {.st = st, .fails = fails, .max_fail = max_fail, .b = b, .o = o};
    double start = now(), last = start, deadline = start + b->seconds;
    int info_shown = 0;
    size_t k = 0;
    memset(st, 0, sizeof *st);
    fflush(NULL);
    while (more(b, k, deadline)) {
        int fd[2];
        if (pipe(fd) != 0)
            break;
        pid_t pid = fork();
        if (pid == 0) {
            close(fd[0]);
            child(b, o, k, deadline, fd[1]);
        }
        close(fd[1]);
        record r;
        int running = 0, ended = 0;
        uint64_t current = 0;
        while (receive(fd[0], &r)) {
            if (r.kind == REC_INFO && !info_shown++ && !b->quiet)
                printf("%s\n", r.text);
            if (r.kind == REC_START) {
                running = 1;
                current = r.seed;
            }
            if (r.kind == REC_DONE) {
                running = 0;
                k++;
                dz_stats_add(st, &r.st);
                if (!r.ok)
                    add_failure(&t, r.seed, r.text);
                if (o->verbose)
                    printf("seed %" PRIu64 ": %s\n", r.seed, r.ok ? "ok" : "FAILED");
                progress(&t, start, &last);
            }
            if (r.kind == REC_END) {
                ended = 1;
                if (r.text[0]) {
                    fprintf(stderr, "fuzz-diff: %s\n", r.text);
                    k = b->n_seeds ? b->n_seeds : k;
                    deadline = now();
                }
            }
        }
        close(fd[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        if (running) {
            child_died(&t, status, current);
            k++;
        } else if (!ended) {
            break;
        }
        if (ended && !running && b->seconds <= 0 && !b->n_seeds)
            break;
    }
    if (b->progress)
        printf("[%4.0f s] done\n", now() - start);
    return t.n_fail;
}
