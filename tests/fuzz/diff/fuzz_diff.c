/*
 * fuzz_diff.c — the differential fuzzer's command line (docs/TESTING.md):
 *
 *   fuzz_diff --seconds 600          random seeds for ten minutes (make fuzz-diff)
 *   fuzz_diff --repro 1234           one seed, in this process: the program,
 *                                    every backend's results, the difference
 *   fuzz_diff --regressions          the seeds of regressions.c, open ones too
 *
 * It prints progress, the counts of programs and runs per backend and per
 * operation class, and for each failure its seed and the command that
 * reproduces it.  The exit status is 0 when every seed agreed.
 */
#include "diff.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: fuzz_diff [options]\n"
            "  --seconds S     run random seeds for S seconds (default 600)\n"
            "  --count N       run N seeds (no time limit unless --seconds)\n"
            "  --seed N        the first seed (default: from the clock)\n"
            "  --repro SEED    run one seed here, printing the program, the\n"
            "                  results of every backend and the first difference\n"
            "  --write DIR     with --repro: the program as text, the failing data\n"
            "                  set as .npy files and run.sh (accel run) in DIR\n"
            "  --regressions   run the regression seeds (open ones included)\n"
            "  --generate N    only build N programs (from --seed) and compile\n"
            "                  them on the interpreter: checks the generator\n"
            "  --avoid LIST    leave out known bugs' patterns: a, b, c, d, all, none\n"
            "                  (default c,d; docs/TESTING.md)\n"
            "  --data N        data sets per program (default 4, at most %d)\n"
            "  --nvrtc K       compile the CUDA source of every K-th seed with\n"
            "                  NVRTC (0: never; default 1)\n"
            "  --no-cuda       do not run on the CUDA backend\n"
            "  --exact-math    no libm functions (always so when cuda runs)\n"
            "  --only CLASS    every program uses operation class CLASS\n"
            "  --single-fold   every program is one fold over the inputs (the\n"
            "                  cpu backend's direct runs)\n"
            "  --timeout S     a seed running longer fails (default 120)\n"
            "  --cache DIR     kernel cache folder (default: a temporary one)\n"
            "  --verbose       a line per seed\n",
            DZ_MAX_DATA);
}

static void remove_folder(const char *path)
{
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz_diff: could not remove %s\n", path);
}

typedef struct args {
    dz_options o;
    double seconds, timeout;
    uint64_t first, repro, count;
    int has_first, has_repro, regressions, has_seconds;
    uint64_t generate;
    const char *cache;
} args;

static int parse(int argc, char **argv, args *a)
{
    dz_options_default(&a->o);
    a->seconds = 600;
    a->timeout = 120;
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (!strcmp(k, "--seconds") && v) {
            a->seconds = atof(v);
            a->has_seconds = 1;
        } else if (!strcmp(k, "--generate") && v) {
            a->generate = strtoull(v, NULL, 10);
        } else if (!strcmp(k, "--count") && v) {
            a->count = strtoull(v, NULL, 10);
        } else if (!strcmp(k, "--seed") && v) {
            a->first = strtoull(v, NULL, 10);
            a->has_first = 1;
        } else if (!strcmp(k, "--repro") && v) {
            a->repro = strtoull(v, NULL, 10);
            a->has_repro = 1;
        } else if (!strcmp(k, "--avoid") && v) {
            if (!dz_parse_avoid(v, &a->o.avoid))
                return 0;
        } else if (!strcmp(k, "--data") && v) {
            a->o.n_data = atoi(v);
            if (a->o.n_data < 1 || a->o.n_data > DZ_MAX_DATA)
                return 0;
        } else if (!strcmp(k, "--nvrtc") && v) {
            a->o.nvrtc = atoi(v);
        } else if (!strcmp(k, "--only") && v) {
            int c = dz_class_of(v);
            if (c < 0)
                return 0;
            a->o.only_class = (unsigned)c + 1;
        } else if (!strcmp(k, "--timeout") && v) {
            a->timeout = atof(v);
        } else if (!strcmp(k, "--write") && v) {
            a->o.write_dir = v;
        } else if (!strcmp(k, "--cache") && v) {
            a->cache = v;
        } else {
            takes = 0;
            if (!strcmp(k, "--regressions"))
                a->regressions = 1;
            else if (!strcmp(k, "--no-cuda"))
                a->o.cuda = 0;
            else if (!strcmp(k, "--exact-math"))
                a->o.exact_math = 1;
            else if (!strcmp(k, "--single-fold"))
                a->o.single_fold = 1;
            else if (!strcmp(k, "--verbose"))
                a->o.verbose = 1;
            else
                return 0;
        }
        i += takes;
    }
    return 1;
}

static int repro(const args *a, const char *cache)
{
    char why[DZ_MSG], fail[DZ_MSG];
    dz_options o = a->o;
    o.show = 1;
    dz_runner *r = dz_runner_open(&o, cache, why, sizeof why);
    if (!r) {
        fprintf(stderr, "fuzz_diff: %s\n", why);
        return 2;
    }
    const char *cuda;
    if (!dz_runner_has_cuda(r, &cuda))
        printf("cuda: SKIPPED (%s)\n", cuda);
    dz_stats st = {0};
    int ok = dz_run_seed(r, a->repro, &st, fail, sizeof fail);
    printf("\nseed %" PRIu64 ": %s%s\n", a->repro, ok ? "every backend agrees" : "FAILED: ",
           ok ? "" : fail);
    dz_runner_close(r);
    return ok ? 0 : 1;
}

/* Builds programs and compiles them on the interpreter only. */
static int generate_only(const args *a)
{
    acc_context *ctx = NULL;
    acc_context_options co;
    int bad = 0;
    acc_context_options_init(&co);
    co.backend = ACC_BACKEND_INTERP;
    if (acc_context_create(&co, &ctx) != ACC_OK)
        return 2;
    for (uint64_t seed = a->first; seed < a->first + a->generate; seed++) {
        acc_graph *g = NULL;
        acc_program *p = NULL;
        dz_program prog;
        acc_graph_create(ctx, &g);
        if (!dz_generate(ctx, g, seed, &a->o, &prog)) {
            printf("seed %" PRIu64 ": %s\n", seed, prog.error);
            bad = 1;
        } else if (acc_compile(ctx, g, prog.n_out, prog.out, &p) != ACC_OK) {
            printf("seed %" PRIu64 ": does not compile: %s\n", seed, acc_last_error());
            bad = 1;
        } else if (a->o.verbose) {
            dz_print_program(stdout, p, "program");
        }
        acc_program_free(p);
        acc_graph_free(g);
    }
    acc_context_destroy(ctx);
    printf("%" PRIu64 " programs generated%s\n", a->generate,
           bad ? ", some refused" : "");
    return bad;
}

/* The regression seeds, each with its own options. */
static int regressions(const args *a, const char *cache, const char *argv0)
{
    size_t failed = 0;
    for (size_t i = 0; i < dz_n_regressions; i++) {
        const dz_regression *g = &dz_regressions[i];
        dz_options o = a->o;
        dz_regression_options(g, &o);
        dz_batch b = {.seeds = &g->seed, .n_seeds = 1, .seed_timeout = a->timeout,
                      .cache_dir = cache, .argv0 = argv0};
        dz_stats st;
        dz_failure f;
        size_t n = dz_run_batch(&b, &o, &st, &f, 1);
        printf("seed %" PRIu64 " (%s%s%s): %s\n", g->seed, g->found,
               g->open ? "; open: " : "", g->open ? g->open : "",
               n ? "FAILS" : "passes");
        failed += n != 0;
    }
    return failed != 0;
}

static int fuzz(const args *a, const char *cache, const char *argv0)
{
    dz_batch b = {.first = a->has_first ? a->first : (uint64_t)time(NULL),
                  .n_seeds = (size_t)a->count,
                  .seconds = a->count && !a->has_seconds ? 0 : a->seconds,
                  .seed_timeout = a->timeout, .progress = 1,
                  .cache_dir = cache, .argv0 = argv0};
    enum { MAX_FAIL = 64 };
    dz_failure fails[MAX_FAIL];
    dz_stats st;
    struct timespec t0, t1;
    printf("fuzz_diff: seeds from %" PRIu64 ", avoiding %s, %d data sets per "
           "program, %s%.0f s\n", b.first, dz_avoid_text(a->o.avoid),
           a->o.n_data, b.seconds > 0 ? "for " : "no time limit ",
           b.seconds);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t n = dz_run_batch(&b, &a->o, &st, fails, MAX_FAIL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("\n");
    dz_print_stats(stdout, &st, (double)(t1.tv_sec - t0.tv_sec));
    if (n) {
        printf("\n%zu failing seeds:\n", n);
        for (size_t i = 0; i < n && i < MAX_FAIL; i++) {
            char cmd[400];
            dz_repro_command(cmd, sizeof cmd, argv0, fails[i].seed, &a->o);
            printf("  %" PRIu64 ": %s\n    %s\n", fails[i].seed, fails[i].what, cmd);
        }
    }
    return n != 0;
}

int main(int argc, char **argv)
{
    args a = {0};
    char tmp[256] = "";
    if (!parse(argc, argv, &a)) {
        usage(stderr);
        return 2;
    }
    const char *cache = a.cache;
    if (!cache) {
        snprintf(tmp, sizeof tmp, "%s/accel-fuzz-diff-XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(tmp)) {
            perror("fuzz_diff: mkdtemp");
            return 2;
        }
        cache = tmp;
    }
    if (a.generate)
        return generate_only(&a);
    int rc = a.has_repro ? repro(&a, cache)
             : a.regressions ? regressions(&a, cache, argv[0])
                             : fuzz(&a, cache, argv[0]);
    if (tmp[0])
        remove_folder(tmp);
    return rc;
}
