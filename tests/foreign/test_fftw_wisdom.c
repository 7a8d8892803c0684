/*
 * test_fftw_wisdom.c — the fftw plugin's wisdom kept across processes in
 * the kernel cache folder (plugins/fftw/fftw_plugin.c, "wisdom"): a first
 * process leaves fftw3.wisdom / fftw3f.wisdom there, a second one plans
 * from it without timing (ACC_FFTW_PLANNER=wisdom-only succeeds; in an
 * empty folder it fails, which shows the check can fail), and a corrupt
 * file is ignored (the transform still runs, right, and the file is
 * replaced by valid wisdom).  A process with two threads times each shape
 * on one thread and on two (the plugin's choice of threads), so it leaves
 * wisdom for both.
 *
 * Each "process" is a fork: FFTW's wisdom lives in the process, so only a
 * child that never planned shows what the folder gives.  The arrays are
 * one 64-byte aligned block each (re then im): FFTW keys wisdom by the
 * layout, and this one repeats from process to process.
 * Results are checked against a direct DFT computed here (f64 within 1e-9 of the
 * largest magnitude, f32 within 1e-4).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "accel.h"

#ifdef ACC_TEST_HAVE_FFTW

enum { N = 48 }; /* not a power of two: FFTW's planner has choices */

enum child_result {
    CHILD_OK = 0,
    CHILD_SETUP = 3,  /* context, plugin, graph or compile failed */
    CHILD_RUN = 4,    /* acc_run failed */
    CHILD_WRONG = 5   /* the transform differs from the direct DFT */
};

/* The contexts' num_threads (FFTW's threads); tests set it before
 * forking a child. */
static int child_threads = 2;

/* One forward transform of N (re, im) pairs of e through the fftw plugin
 * in a context whose kernel cache folder is dir. */
static int transform_once(const char *dir, acc_scalar e)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP; /* compiles nothing: fast */
    o.plugin_path = ACC_TEST_PLUGIN_DIR;
    o.plugins = "none";
    o.cache_dir = dir;
    o.num_threads = child_threads; /* 2: FFTW's threads, timed both ways */
    acc_context *ctx = NULL;
    acc_graph *g = NULL;
    acc_program *p = NULL;
    int rc = CHILD_SETUP;
    if (acc_context_create(&o, &ctx) != ACC_OK ||
        acc_plugin_load(ctx, "fftw") != ACC_OK ||
        acc_graph_create(ctx, &g) != ACC_OK)
        goto out;
    const acc_type *pair[2] = {acc_type_scalar(e), acc_type_scalar(e)};
    const acc_type *elem = acc_type_tuple(ctx, 2, pair);
    acc_node *r = acc_fft(g, acc_input(g, elem, 1));
    if (acc_compile(ctx, g, 1, &r, &p) != ACC_OK) {
        fprintf(stderr, "child compile: %s\n", acc_last_error());
        goto out;
    }
    /* Input and output each one 64-byte aligned block, re then im: FFTW's
     * wisdom is keyed by the layout (the alignment of each buffer and the
     * distance from re to im), and this one repeats in every process. */
    double re[N], im[N];
    double *blk_in = aligned_alloc(64, 4 * N * sizeof(double));
    double *blk_out = aligned_alloc(64, 4 * N * sizeof(double));
    if (!blk_in || !blk_out) {
        free(blk_in);
        free(blk_out);
        goto out;
    }
    float *fin = (float *)blk_in, *fout = (float *)blk_out;
    for (int i = 0; i < N; i++) {
        re[i] = sin(0.7 * i) + 0.25;
        im[i] = cos(1.3 * i) - 0.5;
        if (e == ACC_F32) {
            fin[i] = (float)re[i];
            fin[N + i] = (float)im[i];
        } else {
            blk_in[i] = re[i];
            blk_in[N + i] = im[i];
        }
    }
    int64_t n = N;
    acc_array in, out;
    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    in.struct_size = out.struct_size = sizeof in;
    in.type = out.type = elem;
    in.rank = out.rank = 1;
    in.extents[0] = out.extents[0] = n;
    in.data[0] = blk_in;
    in.data[1] = e == ACC_F32 ? (void *)(fin + N) : (void *)(blk_in + N);
    out.data[0] = blk_out;
    out.data[1] = e == ACC_F32 ? (void *)(fout + N) : (void *)(blk_out + N);
    in.memory = out.memory = ACC_MEMORY_HOST;
    rc = CHILD_RUN;
    if (acc_run(p, 1, &in, 1, &out) != ACC_OK) {
        fprintf(stderr, "child run (%s): %s\n", e == ACC_F32 ? "f32" : "f64",
                acc_last_error());
        free(blk_in);
        free(blk_out);
        goto out;
    }
    double worst = 0.0, scale = 1.0;
    const double pi = 3.14159265358979323846;
    for (int k = 0; k < N; k++) {
        double sr = 0.0, si = 0.0;
        for (int j = 0; j < N; j++) {
            double a = -2.0 * pi * (double)((j * k) % N) / N;
            sr += re[j] * cos(a) - im[j] * sin(a);
            si += re[j] * sin(a) + im[j] * cos(a);
        }
        double gr = e == ACC_F32 ? fout[k] : blk_out[k];
        double gi = e == ACC_F32 ? fout[N + k] : blk_out[N + k];
        worst = fmax(worst, fmax(fabs(gr - sr), fabs(gi - si)));
        scale = fmax(scale, fmax(fabs(sr), fabs(si)));
    }
    free(blk_in);
    free(blk_out);
    rc = worst / scale <= (e == ACC_F32 ? 1e-4 : 1e-9) ? CHILD_OK
                                                       : CHILD_WRONG;
    if (rc != CHILD_OK)
        fprintf(stderr, "child (%s): off by %g\n",
                e == ACC_F32 ? "f32" : "f64", worst / scale);
out:
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
    return rc;
}

/* Runs both precisions in a fresh child process with ACC_FFTW_PLANNER set
 * to planner (NULL: unset); its exit status. */
static int in_child(const char *dir, const char *planner)
{
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        if (planner)
            setenv("ACC_FFTW_PLANNER", planner, 1);
        else
            unsetenv("ACC_FFTW_PLANNER");
        int rc = transform_once(dir, ACC_F64);
        if (rc == CHILD_OK)
            rc = transform_once(dir, ACC_F32);
        _exit(rc);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status), "the child died (status %d)", status);
    return WEXITSTATUS(status);
}

static void fresh_dir(char *dir, size_t size)
{
    snprintf(dir, size, "%s/accel-wisdom-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* The first bytes of dir/name ("" when it cannot be read). */
static void head_of(const char *dir, const char *name, char *buf, size_t n)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = '\0';
    fclose(f);
}

Test(fftw_wisdom, a_second_process_plans_from_the_first_ones_wisdom)
{
    char dir[512], empty[512], head[64];
    fresh_dir(dir, sizeof dir);
    fresh_dir(empty, sizeof empty);
    /* without wisdom, wisdom-only planning fails: the check below can */
    cr_assert_eq(in_child(empty, "wisdom-only"), CHILD_RUN);
    cr_assert_eq(in_child(dir, NULL), CHILD_OK);
    head_of(dir, "fftw3.wisdom", head, sizeof head);
    cr_assert(strstr(head, "fftw_wisdom"), "fftw3.wisdom: '%s'", head);
    head_of(dir, "fftw3f.wisdom", head, sizeof head);
    cr_assert(strstr(head, "fftwf_wisdom"), "fftw3f.wisdom: '%s'", head);
    cr_assert_eq(in_child(dir, "wisdom-only"), CHILD_OK);
    remove_dir(dir);
    remove_dir(empty);
}

/* The choice of threads runs each shape's plan on one thread and on the
 * context's two, planning both: a one-thread process then finds wisdom
 * for its plan, though the first process had two threads. */
Test(fftw_wisdom, choosing_threads_leaves_wisdom_for_one_thread_too)
{
    char dir[512], empty[512];
    fresh_dir(dir, sizeof dir);
    fresh_dir(empty, sizeof empty);
    child_threads = 1;
    cr_assert_eq(in_child(empty, "wisdom-only"), CHILD_RUN);
    child_threads = 2;
    cr_assert_eq(in_child(dir, NULL), CHILD_OK);
    child_threads = 1;
    cr_expect_eq(in_child(dir, "wisdom-only"), CHILD_OK,
                 "no one-thread wisdom after a two-thread process");
    child_threads = 2;
    remove_dir(dir);
    remove_dir(empty);
}

Test(fftw_wisdom, a_corrupt_wisdom_file_is_ignored_and_replaced)
{
    char dir[512], path[600], head[64];
    fresh_dir(dir, sizeof dir);
    static const char *const names[] = {"fftw3.wisdom", "fftw3f.wisdom"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "w");
        cr_assert_not_null(f);
        /* a valid start, then garbage: FFTW's import must drop it all */
        fputs(i ? "(fftw-3.3.10 fftwf_wisdom #x1 (garbage"
                : "\x01\x02 not wisdom at all )))(((", f);
        fclose(f);
    }
    cr_assert_eq(in_child(dir, "wisdom-only"), CHILD_RUN);
    cr_assert_eq(in_child(dir, NULL), CHILD_OK);
    head_of(dir, "fftw3.wisdom", head, sizeof head);
    cr_assert(strstr(head, "fftw_wisdom"), "fftw3.wisdom: '%s'", head);
    cr_assert_eq(in_child(dir, "wisdom-only"), CHILD_OK);
    remove_dir(dir);
}

Test(fftw_wisdom, an_unsafe_folder_gets_no_wisdom)
{
    char dir[512];
    struct stat st;
    char path[600];
    fresh_dir(dir, sizeof dir);
    cr_assert_eq(chmod(dir, 0777), 0); /* others may write: not used */
    cr_assert_eq(in_child(dir, NULL), CHILD_OK);
    snprintf(path, sizeof path, "%s/fftw3.wisdom", dir);
    cr_assert_neq(stat(path, &st), 0, "wisdom written to a 0777 folder");
    remove_dir(dir);
}

#else

Test(fftw_wisdom, skipped_without_fftw)
{
    cr_skip_test("the fftw plugin is not built");
}

#endif
