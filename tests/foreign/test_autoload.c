/*
 * test_autoload.c — plugins found without setup (docs/PLUGINS.md,
 * "Plugins found without setup"): a context loads the built-in plugins
 * of its backend the first time a foreign node is compiled, from the
 * build tree when nothing else is set; the plugins option and
 * $ACC_PLUGINS choose otherwise; plugin_path and $ACC_PLUGIN_PATH come
 * first; a plugin that fails is reported (acc_plugin_status, the plan),
 * never fatal.
 *
 * Every test starts without ACC_PLUGIN_PATH and ACC_PLUGINS (Criterion
 * runs each test in a process of its own).
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "foreign_support.h"

static void clean_environment(void)
{
    unsetenv("ACC_PLUGIN_PATH");
    unsetenv("ACC_PLUGINS");
}

TestSuite(autoload, .init = clean_environment);

/* An interp context with the given plugins option and plugin_path. */
static acc_context *context(const char *plugins, const char *plugin_path)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_INTERP;
    o.plugins = plugins;
    o.plugin_path = plugin_path;
    acc_context *ctx = NULL;
    cr_assert_eq(acc_context_create(&o, &ctx), ACC_OK, "%s", acc_last_error());
    return ctx;
}

/* The plan of dot xs ys on f64 vectors (a "blas.dot" foreign node). */
static char *dot_plan(acc_context *ctx)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_node *ys = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_program *p = tf_compile(ctx, g, acc_dot(g, xs, ys));
    char *plan = tf_plan(p);
    acc_program_free(p);
    acc_graph_free(g);
    return plan;
}

static char *status_of(acc_context *ctx)
{
    char *text = NULL;
    cr_assert_eq(acc_plugin_status(ctx, &text), ACC_OK, "%s",
                 acc_last_error());
    return text;
}

static char *foreign_list(acc_context *ctx)
{
    char *text = NULL;
    cr_assert_eq(acc_foreign_list(ctx, &text), ACC_OK);
    return text;
}

/* The line of `text` that starts with "NAME: ", without its newline. */
static const char *line_of(const char *text, const char *name, char *buf,
                           size_t size)
{
    size_t n = strlen(name);
    for (const char *l = text; l && *l;) {
        size_t len = strcspn(l, "\n");
        if (strncmp(l, name, n) == 0 && l[n] == ':') {
            snprintf(buf, size, "%.*s", (int)len, l);
            return buf;
        }
        l += len + (l[len] == '\n');
    }
    cr_assert_fail("no line for %s in:\n%s", name, text);
    return NULL;
}

static size_t count(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p++)
        n++;
    return n;
}

#ifdef ACC_TEST_HAVE_CBLAS
Test(autoload, the_first_foreign_compile_loads_the_builtin_plugins)
{
    acc_context *ctx = context(NULL, NULL);
    /* a program without a foreign node opens no plugin */
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_program *p = tf_compile(ctx, g, acc_sum(g, xs));
    acc_program_free(p);
    acc_graph_free(g);
    char *list = foreign_list(ctx);
    cr_assert_str_eq(list, "", "nothing is loaded before a foreign node");
    acc_free(list);

    char *plan = dot_plan(ctx);
    cr_assert(strstr(plan, "uses: cblas.dot (plugin cblas, priority 10)"),
              "%s", plan);
    list = foreign_list(ctx);
    cr_assert(strstr(list, "blas.dot cblas.dot backend=cpu"), "%s", list);
    char *status = status_of(ctx), line[2048], want[PATH_MAX + 64],
         dir[PATH_MAX];
    cr_assert_not_null(realpath(ACC_TEST_PLUGIN_DIR, dir));
    snprintf(want, sizeof want, "cblas: loaded from %s/accel_cblas.so", dir);
    cr_assert_str_eq(line_of(status, "cblas", line, sizeof line), want);
    cr_assert(strstr(line_of(status, "cublas", line, sizeof line),
                     "cublas: not loaded: it serves the cuda backend"),
              "%s", status);
    cr_assert(strstr(line_of(status, "cufft", line, sizeof line),
                     "cufft: not loaded: it serves the cuda backend"),
              "%s", status);
#ifdef ACC_TEST_HAVE_FFTW
    cr_assert(strstr(line_of(status, "fftw", line, sizeof line),
                     "fftw: loaded from "), "%s", status);
#endif
    acc_free(status);
    acc_free(list);
    acc_free(plan);
    acc_context_destroy(ctx);
}

Test(autoload, none_and_lists_choose_what_is_loaded)
{
    acc_context *ctx = context("none", NULL);
    char *plan = dot_plan(ctx), *status = status_of(ctx), line[2048];
    cr_assert(strstr(plan, "fallback: no implementation of 'blas.dot' is "
                           "registered for backend interp (plugin cblas not "
                           "loaded: the context's plugins option is "
                           "\"none\")"), "%s", plan);
    cr_assert_str_eq(line_of(status, "cufft", line, sizeof line),
                     "cufft: not loaded: the context's plugins option is "
                     "\"none\"");
    acc_free(plan);
    acc_free(status);
    acc_context_destroy(ctx);

    /* $ACC_PLUGINS, read when the context is made, unless the option is
     * given */
    setenv("ACC_PLUGINS", "none", 1);
    ctx = context(NULL, NULL);
    plan = dot_plan(ctx);
    cr_assert(strstr(plan, "(plugin cblas not loaded: ACC_PLUGINS is "
                           "\"none\")"), "%s", plan);
    acc_free(plan);
    acc_context_destroy(ctx);
    ctx = context("fftw, cblas", NULL);
    plan = dot_plan(ctx);
    cr_assert(strstr(plan, "uses: cblas.dot"), "%s", plan);
    acc_free(plan);
    acc_context_destroy(ctx);
    unsetenv("ACC_PLUGINS");

    /* a list that leaves cblas out; "builtin" is the default set */
    ctx = context("fftw", NULL);
    plan = dot_plan(ctx);
    status = status_of(ctx);
    cr_assert(strstr(plan, "(plugin cblas not loaded: the context's plugins "
                           "option is \"fftw\", which does not name it)"),
              "%s", plan);
    acc_free(plan);
    acc_free(status);
    acc_context_destroy(ctx);
    ctx = context("builtin", NULL);
    plan = dot_plan(ctx);
    cr_assert(strstr(plan, "uses: cblas.dot"), "%s", plan);
    acc_free(plan);
    acc_context_destroy(ctx);
}

/* A folder holding the plugin built for another ABI under the name
 * accel_cblas.so. */
static void bad_cblas_folder(char *dir, size_t size)
{
    snprintf(dir, size, "/tmp/accel_autoload_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char path[PATH_MAX + 32], buf[65536];
    snprintf(path, sizeof path, "%s/accel_cblas.so", dir);
    FILE *in = fopen(ACC_TEST_BAD_PLUGIN, "rb"), *out = fopen(path, "wb");
    cr_assert(in && out);
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        cr_assert_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    cr_assert_eq(fclose(out), 0);
}

static void remove_folder(const char *dir)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/accel_cblas.so", dir);
    unlink(path);
    rmdir(dir);
}

Test(autoload, a_plugin_that_fails_is_reported_and_the_fallback_runs)
{
    char bad[64], line[2048];
    bad_cblas_folder(bad, sizeof bad);
    acc_context *ctx = context(NULL, bad); /* plugin_path: searched first */
    char *plan = dot_plan(ctx), *status = status_of(ctx);
    cr_assert(strstr(plan, "fallback: no implementation of 'blas.dot' is "
                           "registered for backend interp (plugin cblas not "
                           "loaded: plugin 'bad_abi' ("), "%s", plan);
    cr_assert(strstr(line_of(status, "cblas", line, sizeof line),
                     "was built for accel ABI version"), "%s", status);
    acc_free(plan);
    acc_free(status);
    acc_context_destroy(ctx);

    /* $ACC_PLUGIN_PATH comes after plugin_path and before the build tree */
    setenv("ACC_PLUGIN_PATH", bad, 1);
    ctx = context(NULL, ACC_TEST_PLUGIN_DIR);
    plan = dot_plan(ctx);
    cr_assert(strstr(plan, "uses: cblas.dot"), "%s", plan);
    acc_free(plan);
    acc_context_destroy(ctx);
    ctx = context(NULL, NULL);
    plan = dot_plan(ctx);
    cr_assert(strstr(plan, "plugin cblas not loaded: plugin 'bad_abi'"), "%s",
              plan);
    acc_free(plan);
    acc_context_destroy(ctx);
    unsetenv("ACC_PLUGIN_PATH");
    remove_folder(bad);
}
#endif

Test(autoload, listed_plugins_are_loaded_or_reported)
{
    FILE *f = fopen(ACC_TEST_EXAMPLE_PLUGIN, "r");
    if (!f)
        cr_skip_test("examples are not built");
    fclose(f);
    acc_context *ctx = context("none, nonexistent, " ACC_TEST_EXAMPLE_PLUGIN,
                               NULL);
    char *status = status_of(ctx), line[4096];
    cr_assert(strstr(line_of(status, "nonexistent", line, sizeof line),
                     "nonexistent: not loaded: plugin 'nonexistent' not "
                     "found: no accel_nonexistent.so in the folders searched "
                     "(plugin_path=(unset), ACC_PLUGIN_PATH=(unset), install "
                     "folder "), "%s", status);
    cr_assert_str_eq(line_of(status, ACC_TEST_EXAMPLE_PLUGIN, line,
                             sizeof line),
                     ACC_TEST_EXAMPLE_PLUGIN ": loaded from "
                     ACC_TEST_EXAMPLE_PLUGIN);
    char *list = foreign_list(ctx);
    cr_assert(strstr(list, "example.norm2"), "%s", list);
    cr_assert_eq(count(status, "\n"), 6, "four built-in plugins and two "
                 "more:\n%s", status);
    acc_free(list);
    acc_free(status);
    acc_context_destroy(ctx);
}

Test(autoload, the_search_names_every_folder_in_order)
{
    setenv("ACC_PLUGIN_PATH", "/nonexistent/b", 1);
    acc_context *ctx = context("none", "/nonexistent/a");
    cr_assert_eq(acc_plugin_load(ctx, "nothing"), ACC_ERR_PLUGIN);
    const char *m = acc_last_error();
    cr_assert(strstr(m, "(plugin_path=/nonexistent/a, ACC_PLUGIN_PATH="
                        "/nonexistent/b, install folder "), "%s", m);
    cr_assert(strstr(m, "/accel/plugins, build tree "), "%s", m);
    cr_assert(strstr(m, "): /nonexistent/a, /nonexistent/b, "), "%s", m);
    acc_context_destroy(ctx);
}

#ifdef ACC_TEST_HAVE_CBLAS
Test(autoload, a_plugin_loaded_before_is_not_loaded_twice)
{
    acc_context *ctx = context(NULL, NULL);
    cr_assert_eq(acc_plugin_load(ctx, "cblas"), ACC_OK, "%s",
                 acc_last_error());
    char *plan = dot_plan(ctx), *list = foreign_list(ctx),
         *status = status_of(ctx), line[2048];
    cr_assert(strstr(plan, "uses: cblas.dot"), "%s", plan);
    cr_assert_eq(count(list, "blas.dot cblas.dot"), 1, "%s", list);
    cr_assert_str_eq(line_of(status, "cblas", line, sizeof line),
                     "cblas: loaded (by acc_plugin_load)");
    acc_free(plan);
    acc_free(list);
    acc_free(status);
    acc_context_destroy(ctx);
}

static void *compile_dot(void *ctx)
{
    return dot_plan(ctx);
}

Test(autoload, concurrent_compiles_load_once)
{
    acc_context *ctx = context(NULL, NULL);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, compile_dot, ctx), 0);
    for (int i = 0; i < 4; i++) {
        void *plan = NULL;
        pthread_join(t[i], &plan);
        cr_assert(strstr(plan, "uses: cblas.dot"), "%s", (char *)plan);
        acc_free(plan);
    }
    char *list = foreign_list(ctx);
    cr_assert_eq(count(list, "blas.dot cblas.dot"), 1, "%s", list);
    acc_free(list);
    acc_context_destroy(ctx);
}
#endif
