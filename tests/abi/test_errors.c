/*
 * test_errors.c — every error case of the public ABI: the status returned,
 * the message (on the handle and on the thread) naming what was wrong and
 * what was expected, and the handle still working right after.  Also the
 * small static parts of the API: versions, status and backend names, the
 * backend report, NULL-safety of free functions, and the types API.
 */
#define _POSIX_C_SOURCE 200809L

#include <criterion/criterion.h>

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "accel.h"
#include "support.h"

static acc_context *ctx;

static void setup(void)
{
    ts_fixture_open(&ctx, NULL);
}

static void teardown(void)
{
    ts_fixture_close(&ctx, NULL);
}

TestSuite(errors, .init = setup, .fini = teardown);

/* zipWith (+) xs ys on two f32 vectors (inputs 0 and 1). */
static acc_program *compile_vadd(void)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *arrs[2] = {acc_input(g, ts_sc(ACC_F32), 1),
                         acc_input(g, ts_sc(ACC_F32), 1)};
    acc_node *r = acc_zipwith(g, ts_binop_fn(g, ACC_F32, ACC_OP_ADD), 2, arrs);
    acc_program *p = ts_compile(ctx, g, r);
    acc_graph_free(g);
    return p;
}

static float xs_buf[3] = {1, 2, 3}, ys_buf[3] = {10, 20, 30};

static void good_inputs(acc_array in[2])
{
    int64_t n = 3;
    in[0] = ts_host(ACC_F32, 1, &n, xs_buf);
    in[1] = ts_host(ACC_F32, 1, &n, ys_buf);
}

/* The handle still works: a correct run gives the right sums. */
static void expect_runs_correctly(acc_program *p)
{
    acc_array in[2], out = ts_empty_output();
    good_inputs(in);
    acc_status st = acc_run(p, 2, in, 1, &out);
    cr_assert_eq(st, ACC_OK, "run after the error: %s: %s",
                 acc_status_string(st), acc_last_error());
    for (int i = 0; i < 3; i++)
        cr_assert_eq(((const float *)out.data[0])[i], xs_buf[i] + ys_buf[i]);
    acc_array_release(&out);
}

static void expect_msg(const char *msg, const char *part)
{
    cr_assert(ts_contains_ci(msg, part), "message \"%s\" should mention \"%s\"",
              msg ? msg : "(null)", part);
}

/* ---- acc_run argument checks ---------------------------------------------- */

Test(errors, wrong_input_count)
{
    acc_program *p = compile_vadd();
    acc_array in[3], out = ts_empty_output();
    good_inputs(in);
    in[2] = in[1];
    acc_status st = acc_run(p, 1, in, 1, &out);
    cr_assert_eq(st, ACC_ERR_INVALID_ARGUMENT, "got %s", acc_status_string(st));
    expect_msg(acc_last_error(), "input");
    expect_msg(acc_last_error(), "2");
    expect_msg(acc_program_last_error(p), "input");
    cr_assert_null(out.data[0]);
    st = acc_run(p, 3, in, 1, &out);
    cr_assert_eq(st, ACC_ERR_INVALID_ARGUMENT, "got %s", acc_status_string(st));
    expect_msg(acc_last_error(), "3");
    expect_runs_correctly(p);
    acc_program_free(p);
}

Test(errors, wrong_output_count)
{
    acc_program *p = compile_vadd();
    acc_array in[2], out[2] = {ts_empty_output(), ts_empty_output()};
    good_inputs(in);
    acc_status st = acc_run(p, 2, in, 2, out);
    cr_assert_eq(st, ACC_ERR_INVALID_ARGUMENT, "got %s", acc_status_string(st));
    expect_msg(acc_last_error(), "output");
    cr_assert_null(out[0].data[0]);
    cr_assert_null(out[1].data[0]);
    st = acc_run(p, 2, in, 0, NULL);
    cr_assert_eq(st, ACC_ERR_INVALID_ARGUMENT, "got %s", acc_status_string(st));
    expect_runs_correctly(p);
    acc_program_free(p);
}

Test(errors, wrong_element_type)
{
    acc_program *p = compile_vadd();
    acc_array in[2], out = ts_empty_output();
    int32_t ints[3] = {1, 2, 3};
    int64_t n = 3;
    good_inputs(in);
    in[1] = ts_host(ACC_I32, 1, &n, ints);
    acc_status st = acc_run(p, 2, in, 1, &out);
    cr_assert_eq(st, ACC_ERR_TYPE, "got %s", acc_status_string(st));
    expect_msg(acc_last_error(), "input 1");
    expect_msg(acc_last_error(), "f32");
    expect_msg(acc_last_error(), "i32");
    expect_msg(acc_program_last_error(p), "input 1");
    cr_assert_null(out.data[0]);
    expect_runs_correctly(p);
    acc_program_free(p);
}

Test(errors, wrong_tuple_element_type)
{
    acc_program *p = compile_vadd();
    const acc_type *f2[2] = {ts_sc(ACC_F32), ts_sc(ACC_F32)};
    const acc_type *pair = acc_type_tuple(ctx, 2, f2);
    cr_assert_not_null(pair);
    acc_array in[2], out = ts_empty_output();
    int64_t n = 3;
    void *bufs[2] = {xs_buf, ys_buf};
    good_inputs(in);
    in[0] = ts_host_array(pair, 1, &n, bufs);
    acc_status st = acc_run(p, 2, in, 1, &out);
    cr_assert_eq(st, ACC_ERR_TYPE, "got %s", acc_status_string(st));
    expect_msg(acc_last_error(), "input 0");
    expect_runs_correctly(p);
    acc_program_free(p);
}

Test(errors, wrong_rank)
{
    acc_program *p = compile_vadd();
    acc_array in[2], out = ts_empty_output();
    int64_t e[2] = {1, 3};
    good_inputs(in);
    in[1] = ts_host(ACC_F32, 2, e, ys_buf);
    acc_status st = acc_run(p, 2, in, 1, &out);
    cr_assert_eq(st, ACC_ERR_SHAPE, "got %s", acc_status_string(st));
    expect_msg(acc_last_error(), "input 1");
    expect_msg(acc_last_error(), "rank");
    expect_msg(acc_program_last_error(p), "rank");
    cr_assert_null(out.data[0]);
    expect_runs_correctly(p);
    acc_program_free(p);
}

Test(errors, null_inputs_pointer)
{
    acc_program *p = compile_vadd();
    acc_array out = ts_empty_output();
    acc_status st = acc_run(p, 2, NULL, 1, &out);
    cr_assert_eq(st, ACC_ERR_INVALID_ARGUMENT, "got %s", acc_status_string(st));
    expect_msg(acc_last_error(), "input");
    expect_runs_correctly(p);
    acc_program_free(p);
}

Test(errors, null_outputs_pointer)
{
    acc_program *p = compile_vadd();
    acc_array in[2];
    good_inputs(in);
    acc_status st = acc_run(p, 2, in, 1, NULL);
    cr_assert_eq(st, ACC_ERR_INVALID_ARGUMENT, "got %s", acc_status_string(st));
    expect_msg(acc_last_error(), "output");
    expect_runs_correctly(p);
    acc_program_free(p);
}

Test(errors, null_data_in_a_non_empty_input)
{
    acc_program *p = compile_vadd();
    acc_array in[2], out = ts_empty_output();
    good_inputs(in);
    in[0].data[0] = NULL;
    acc_status st = acc_run(p, 2, in, 1, &out);
    cr_assert_eq(st, ACC_ERR_INVALID_ARGUMENT, "got %s", acc_status_string(st));
    expect_msg(acc_last_error(), "input 0");
    expect_msg(acc_last_error(), "null");
    cr_assert_null(out.data[0]);
    expect_runs_correctly(p);
    acc_program_free(p);
}

Test(errors, null_data_in_an_empty_input_is_fine)
{
    acc_program *p = compile_vadd();
    int64_t zero = 0;
    acc_array in[2] = {ts_host(ACC_F32, 1, &zero, NULL),
                       ts_host(ACC_F32, 1, &zero, NULL)};
    acc_array out = ts_empty_output();
    acc_status st = acc_run(p, 2, in, 1, &out);
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    cr_assert_eq(out.rank, 1);
    cr_assert_eq(out.extents[0], 0);
    acc_array_release(&out);
    acc_program_free(p);
}

Test(errors, negative_extent)
{
    acc_program *p = compile_vadd();
    acc_array in[2], out = ts_empty_output();
    good_inputs(in);
    in[1].extents[0] = -3; /* acc_array_init refuses it; set it by hand */
    acc_status st = acc_run(p, 2, in, 1, &out);
    cr_assert(st == ACC_ERR_INVALID_ARGUMENT || st == ACC_ERR_SHAPE, "got %s",
              acc_status_string(st));
    expect_msg(acc_last_error(), "input 1");
    expect_msg(acc_last_error(), "-3");
    cr_assert_null(out.data[0]);
    expect_runs_correctly(p);
    acc_program_free(p);
}

Test(errors, null_program)
{
    acc_array in[2], out = ts_empty_output();
    good_inputs(in);
    acc_status st = acc_run(NULL, 2, in, 1, &out);
    cr_assert_eq(st, ACC_ERR_INVALID_ARGUMENT, "got %s", acc_status_string(st));
    expect_msg(acc_last_error(), "program");
    cr_assert_eq(acc_program_num_inputs(NULL), 0);
    cr_assert_eq(acc_program_num_outputs(NULL), 0);
    const acc_type *t = ts_sc(ACC_F32);
    int32_t rank = 5;
    cr_assert_neq(acc_program_input(NULL, 0, &t, &rank), ACC_OK);
    cr_assert_null(t);
    cr_assert_not_null(acc_program_last_error(NULL));
}

/* ---- freed handles ----------------------------------------------------------- */

Test(errors, freed_program_is_detected)
{
    acc_program *p = compile_vadd();
    acc_program_free(p);
    /* p dangles now; nothing may be allocated that could reuse it */
    acc_array in[2], out = ts_empty_output();
    good_inputs(in);
    acc_status st = acc_run(p, 2, in, 1, &out);
    cr_assert_eq(st, ACC_ERR_INVALID_HANDLE, "got %s", acc_status_string(st));
    expect_msg(acc_last_error(), "program");
    cr_assert_null(out.data[0]);
    cr_assert_eq(acc_program_num_inputs(p), 0);
    cr_assert_not_null(acc_program_last_error(p));
    acc_program_free(p); /* a second free is detected and ignored */
}

Test(errors, destroyed_context_is_detected)
{
    acc_context *c2 = ts_context(ACC_BACKEND_INTERP);
    acc_context_destroy(c2);
    acc_graph *g = (acc_graph *)&g; /* not NULL: must be reset */
    acc_status st = acc_graph_create(c2, &g);
    cr_assert_eq(st, ACC_ERR_INVALID_HANDLE, "got %s", acc_status_string(st));
    cr_assert_null(g, "out-pointer reset on failure");
    expect_msg(acc_last_error(), "context");
    acc_backend b = ACC_BACKEND_CUDA;
    cr_assert_eq(acc_context_backend(c2, &b), ACC_ERR_INVALID_HANDLE);
    cr_assert_eq(acc_type_tuple(c2, 0, NULL), NULL);
    acc_context_destroy(c2); /* detected and ignored */
    /* the suite's own context is unaffected */
    acc_program *p = compile_vadd();
    expect_runs_correctly(p);
    acc_program_free(p);
}

Test(errors, freed_graph_is_detected)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, ts_sc(ACC_F32), 1);
    cr_assert_not_null(xs);
    acc_graph_free(g);
    cr_assert_null(acc_input(g, ts_sc(ACC_F32), 1));
    acc_program *p = (acc_program *)&p;
    acc_status st = acc_compile(ctx, g, 1, &xs, &p);
    cr_assert_eq(st, ACC_ERR_INVALID_HANDLE, "got %s", acc_status_string(st));
    cr_assert_null(p);
    expect_msg(acc_last_error(), "graph");
    cr_assert_eq(acc_graph_status(g), ACC_ERR_INVALID_HANDLE);
    acc_graph_free(g);
}

Test(errors, never_created_handle_is_detected)
{
    static char not_a_program[256];
    acc_array in[2], out = ts_empty_output();
    good_inputs(in);
    acc_status st = acc_run((acc_program *)not_a_program, 2, in, 1, &out);
    cr_assert_eq(st, ACC_ERR_INVALID_HANDLE, "got %s", acc_status_string(st));
}

/* ---- NULL out-pointers and other NULL arguments ----------------------------- */

Test(errors, null_out_pointers)
{
    cr_assert_eq(acc_context_create(NULL, NULL), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_neq(acc_last_error()[0], '\0');
    cr_assert_eq(acc_graph_create(ctx, NULL), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_context_backend(ctx, NULL), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_neq(acc_context_last_error(ctx)[0], '\0',
                  "the context records the message");
    cr_assert_eq(acc_context_backend_available(ctx, ACC_BACKEND_INTERP, NULL,
                                               NULL),
                 ACC_ERR_INVALID_ARGUMENT);

    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, ts_sc(ACC_F32), 1);
    cr_assert_eq(acc_compile(ctx, g, 1, &xs, NULL), ACC_ERR_INVALID_ARGUMENT);
    acc_program *p = (acc_program *)&p;
    cr_assert_eq(acc_compile(ctx, g, 1, NULL, &p), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_null(p);
    cr_assert_eq(acc_compile(ctx, g, 0, &xs, &p), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_null(p);
    cr_assert_eq(acc_compile(NULL, g, 1, &xs, &p), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_null(p);
    /* the graph is still fine */
    cr_assert_eq(acc_compile(ctx, g, 1, &xs, &p), ACC_OK, "%s",
                 acc_last_error());
    acc_program_free(p);
    acc_graph_free(g);
}

Test(errors, program_signature_out_of_range)
{
    acc_program *p = compile_vadd();
    const acc_type *t = ts_sc(ACC_F32);
    int32_t rank = 7;
    cr_assert_eq(acc_program_input(p, 2, &t, &rank), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_null(t);
    cr_assert_eq(rank, 0);
    cr_assert_eq(acc_program_output(p, 1, &t, &rank), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_program_input(p, 1, &t, &rank), ACC_OK);
    cr_assert(acc_type_equal(t, ts_sc(ACC_F32)));
    cr_assert_eq(rank, 1);
    acc_program_free(p);
}

/* ---- contexts and backends ------------------------------------------------- */

Test(errors, context_options_struct_size_zero)
{
    acc_context_options o;
    acc_context_options_init(&o);
    cr_assert_eq(o.struct_size, sizeof o);
    o.struct_size = 0;
    acc_context *c = (acc_context *)&c;
    cr_assert_eq(acc_context_create(&o, &c), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_null(c);
    expect_msg(acc_last_error(), "struct_size");
}

Test(errors, context_options_bad_backend)
{
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = (acc_backend)42;
    acc_context *c = (acc_context *)&c;
    cr_assert_eq(acc_context_create(&o, &c), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_null(c);
    expect_msg(acc_last_error(), "backend");
    expect_msg(acc_last_error(), "42");
}

static void request_backend(acc_backend b)
{
    int available = -1;
    const char *reason = NULL;
    cr_assert_eq(acc_context_backend_available(ctx, b, &available, &reason),
                 ACC_OK);
    cr_assert_not_null(reason);
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = b;
    acc_context *c = (acc_context *)&c;
    acc_status st = acc_context_create(&o, &c);
    if (available) {
        cr_assert_eq(st, ACC_OK, "%s says available but: %s",
                     acc_backend_name(b), acc_last_error());
        acc_backend got = ACC_BACKEND_AUTO;
        cr_assert_eq(acc_context_backend(c, &got), ACC_OK);
        cr_assert_eq(got, b);
        acc_context_destroy(c);
    } else {
        cr_assert_eq(st, ACC_ERR_UNSUPPORTED, "%s: got %s",
                     acc_backend_name(b), acc_status_string(st));
        cr_assert_null(c);
        expect_msg(acc_last_error(), reason);
        expect_msg(acc_last_error(), acc_backend_name(b));
    }
}

Test(errors, requesting_cpu)
{
    request_backend(ACC_BACKEND_CPU);
}

Test(errors, requesting_cuda)
{
    request_backend(ACC_BACKEND_CUDA);
}

Test(errors, backend_report)
{
    static const acc_backend all[] = {ACC_BACKEND_INTERP, ACC_BACKEND_CPU,
                                      ACC_BACKEND_CUDA};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        int available = -1;
        const char *reason = NULL;
        cr_assert_eq(acc_context_backend_available(ctx, all[i], &available,
                                                   &reason),
                     ACC_OK);
        cr_assert(available == 0 || available == 1);
        cr_assert(reason && reason[0], "%s has no reason",
                  acc_backend_name(all[i]));
        if (all[i] == ACC_BACKEND_INTERP)
            cr_assert_eq(available, 1, "the interpreter is always available");
    }
    int available = -1;
    cr_assert_eq(acc_context_backend_available(ctx, (acc_backend)9,
                                               &available, NULL),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(available, 0);

    acc_backend b = ACC_BACKEND_AUTO;
    cr_assert_eq(acc_context_backend(ctx, &b), ACC_OK);
    cr_assert_eq(b, ACC_BACKEND_INTERP);

    /* AUTO always succeeds and picks an available backend */
    acc_context *c = NULL;
    cr_assert_eq(acc_context_create(NULL, &c), ACC_OK, "%s", acc_last_error());
    cr_assert_eq(acc_context_backend(c, &b), ACC_OK);
    cr_assert_neq(b, ACC_BACKEND_AUTO);
    cr_assert_eq(acc_context_backend_available(c, b, &available, NULL), ACC_OK);
    cr_assert_eq(available, 1, "auto chose %s, which is not available",
                 acc_backend_name(b));
    acc_context_destroy(c);
}

Test(errors, backend_names)
{
    cr_assert_str_eq(acc_backend_name(ACC_BACKEND_AUTO), "auto");
    cr_assert_str_eq(acc_backend_name(ACC_BACKEND_INTERP), "interp");
    cr_assert_str_eq(acc_backend_name(ACC_BACKEND_CPU), "cpu");
    cr_assert_str_eq(acc_backend_name(ACC_BACKEND_CUDA), "cuda");
    cr_assert_str_eq(acc_backend_name((acc_backend)77), "unknown");
}

/* ---- versions and status strings ------------------------------------------- */

Test(errors, versions)
{
    cr_assert_eq(acc_abi_version(), ACC_ABI_VERSION);
    const char *v = acc_version_string();
    cr_assert(v && v[0]);
    int dots = 0;
    for (const char *c = v; *c; c++)
        dots += *c == '.';
    cr_assert_eq(dots, 2, "\"%s\" is not MAJOR.MINOR.PATCH", v);
}

Test(errors, status_strings)
{
    static const struct {
        acc_status s;
        const char *name;
    } all[] = {
        {ACC_OK, "ACC_OK"},
        {ACC_ERR_INVALID_ARGUMENT, "ACC_ERR_INVALID_ARGUMENT"},
        {ACC_ERR_INVALID_HANDLE, "ACC_ERR_INVALID_HANDLE"},
        {ACC_ERR_TYPE, "ACC_ERR_TYPE"},
        {ACC_ERR_SHAPE, "ACC_ERR_SHAPE"},
        {ACC_ERR_OUT_OF_HOST_MEMORY, "ACC_ERR_OUT_OF_HOST_MEMORY"},
        {ACC_ERR_OUT_OF_DEVICE_MEMORY, "ACC_ERR_OUT_OF_DEVICE_MEMORY"},
        {ACC_ERR_UNSUPPORTED, "ACC_ERR_UNSUPPORTED"},
        {ACC_ERR_NOT_FOUND, "ACC_ERR_NOT_FOUND"},
        {ACC_ERR_COMPILE, "ACC_ERR_COMPILE"},
        {ACC_ERR_DEVICE, "ACC_ERR_DEVICE"},
        {ACC_ERR_PLUGIN, "ACC_ERR_PLUGIN"},
        {ACC_ERR_ABI_MISMATCH, "ACC_ERR_ABI_MISMATCH"},
        {ACC_ERR_PARSE, "ACC_ERR_PARSE"},
        {ACC_ERR_RUNTIME, "ACC_ERR_RUNTIME"},
        {ACC_ERR_INTERNAL, "ACC_ERR_INTERNAL"},
    };
    size_t n = sizeof all / sizeof all[0];
    /* the numbers are part of the ABI */
    cr_assert_eq(ACC_ERR_INVALID_ARGUMENT, 100);
    cr_assert_eq(ACC_ERR_SHAPE, 201);
    cr_assert_eq(ACC_ERR_RUNTIME, 700);
    cr_assert_eq(ACC_ERR_INTERNAL, 900);
    for (size_t i = 0; i < n; i++) {
        const char *s = acc_status_string(all[i].s);
        cr_assert_not_null(s);
        cr_assert_str_eq(s, all[i].name);
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(s, acc_status_string(all[j].s));
    }
    cr_assert_str_eq(acc_status_string((acc_status)12345), "unknown status");
    cr_assert_str_eq(acc_status_string((acc_status)-1), "unknown status");
    cr_assert_str_eq(acc_status_string((acc_status)102), "unknown status");
}

/* ---- messages: per handle and per thread ------------------------------------ */

static void *read_last_error(void *arg)
{
    const char **out = arg;
    *out = acc_last_error();
    return NULL;
}

Test(errors, messages_are_per_handle_and_per_thread)
{
    acc_program *p = compile_vadd();
    acc_array out = ts_empty_output();
    cr_assert_eq(acc_run(p, 0, NULL, 1, &out), ACC_ERR_INVALID_ARGUMENT);
    char prog_msg[512];
    strncpy(prog_msg, acc_program_last_error(p), sizeof prog_msg - 1);
    prog_msg[sizeof prog_msg - 1] = '\0';
    cr_assert_neq(prog_msg[0], '\0');

    /* a failure on the context changes the thread's message, not the
     * program's */
    cr_assert_eq(acc_context_backend(ctx, NULL), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_str_eq(acc_program_last_error(p), prog_msg);
    cr_assert_str_neq(acc_last_error(), prog_msg);
    cr_assert_str_eq(acc_last_error(), acc_context_last_error(ctx));

    /* another thread that made no failing call has no message */
    const char *other = NULL;
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, read_last_error, &other), 0);
    pthread_join(t, NULL);
    cr_assert_not_null(other);
    cr_assert_str_eq(other, "");
    acc_program_free(p);
}

Test(errors, a_fresh_graph_has_no_error)
{
    acc_graph *g = ts_graph(ctx);
    cr_assert_eq(acc_graph_status(g), ACC_OK);
    cr_assert_str_eq(acc_graph_last_error(g), "");
    acc_graph_free(g);
}

/* ---- builder errors ------------------------------------------------------------ */

Test(errors, builder_errors_are_sticky)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, ts_sc(ACC_F32), 1);
    acc_node *x = acc_param(g, ts_sc(ACC_I32));
    acc_node *f = acc_lambda(g, 1, &x, acc_binop(g, ACC_OP_ADD, x, ts_i32(g, 1)));
    cr_assert_not_null(f);
    cr_assert_eq(acc_graph_status(g), ACC_OK);
    acc_node *bad = acc_map(g, f, xs); /* i32 -> i32 over f32: wrong type */
    cr_assert_null(bad);
    acc_status first = acc_graph_status(g);
    cr_assert_eq(first, ACC_ERR_TYPE, "got %s", acc_status_string(first));
    expect_msg(acc_graph_last_error(g), "map");
    char msg[512];
    strncpy(msg, acc_graph_last_error(g), sizeof msg - 1);
    msg[sizeof msg - 1] = '\0';

    /* every later builder call returns NULL, even a correct one */
    cr_assert_null(acc_input(g, ts_sc(ACC_F32), 1));
    cr_assert_null(ts_f32(g, 1.0f));
    cr_assert_null(acc_param(g, ts_sc(ACC_F32)));
    cr_assert_null(acc_fill(g, acc_shape(g, xs), ts_f32(g, 0)));
    /* and the first error stays */
    cr_assert_str_eq(acc_graph_last_error(g), msg);

    /* compiling even the valid input reports the first error */
    acc_program *p = (acc_program *)&p;
    acc_status st = acc_compile(ctx, g, 1, &xs, &p);
    cr_assert_eq(st, ACC_ERR_TYPE, "got %s", acc_status_string(st));
    cr_assert_null(p);
    expect_msg(acc_last_error(), "map");
    acc_graph_free(g);
}

Test(errors, null_node_argument_is_a_builder_error)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, ts_sc(ACC_F32), 1);
    cr_assert_null(acc_map(g, NULL, xs));
    cr_assert_eq(acc_graph_status(g), ACC_ERR_INVALID_ARGUMENT);
    expect_msg(acc_graph_last_error(g), "map");
    acc_program *p = NULL;
    cr_assert_eq(acc_compile(ctx, g, 1, &xs, &p), ACC_ERR_INVALID_ARGUMENT);
    acc_graph_free(g);
}

Test(errors, node_from_another_graph)
{
    acc_graph *g1 = ts_graph(ctx), *g2 = ts_graph(ctx);
    acc_node *foreign = acc_input(g1, ts_sc(ACC_F32), 1);
    acc_node *x = acc_param(g2, ts_sc(ACC_F32));
    acc_node *f = acc_lambda(g2, 1, &x, x);
    cr_assert_not_null(f);
    cr_assert_null(acc_map(g2, f, foreign));
    acc_status st = acc_graph_status(g2);
    cr_assert(st == ACC_ERR_INVALID_ARGUMENT || st == ACC_ERR_TYPE, "got %s",
              acc_status_string(st));
    expect_msg(acc_graph_last_error(g2), "graph");
    /* g1 is not affected */
    cr_assert_eq(acc_graph_status(g1), ACC_OK);
    acc_program *p = NULL;
    cr_assert_eq(acc_compile(ctx, g1, 1, &foreign, &p), ACC_OK);
    acc_program_free(p);
    /* compiling a node of g1 as a result of g2 fails too */
    acc_graph *g3 = ts_graph(ctx);
    cr_assert_neq(acc_compile(ctx, g3, 1, &foreign, &p), ACC_OK);
    cr_assert_null(p);
    acc_graph_free(g3);
    acc_graph_free(g2);
    acc_graph_free(g1);
}

Test(errors, scalar_where_an_array_is_expected)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *x = acc_param(g, ts_sc(ACC_F32));
    acc_node *f = acc_lambda(g, 1, &x, x);
    cr_assert_null(acc_map(g, f, ts_f32(g, 3.0f)));
    cr_assert_eq(acc_graph_status(g), ACC_ERR_TYPE);
    expect_msg(acc_graph_last_error(g), "map");
    acc_graph_free(g);
}

Test(errors, array_where_a_scalar_is_expected)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, ts_sc(ACC_F32), 1);
    cr_assert_null(acc_binop(g, ACC_OP_ADD, xs, ts_f32(g, 1)));
    cr_assert_eq(acc_graph_status(g), ACC_ERR_TYPE);
    acc_graph_free(g);
}

Test(errors, lambda_parameter_must_be_a_param)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *k = ts_f32(g, 1.0f);
    cr_assert_null(acc_lambda(g, 1, &k, k));
    acc_status st = acc_graph_status(g);
    cr_assert(st == ACC_ERR_INVALID_ARGUMENT || st == ACC_ERR_TYPE, "got %s",
              acc_status_string(st));
    expect_msg(acc_graph_last_error(g), "lambda");
    acc_graph_free(g);
}

Test(errors, param_bound_twice)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *x = acc_param(g, ts_sc(ACC_F32));
    cr_assert_not_null(acc_lambda(g, 1, &x, x));
    cr_assert_null(acc_lambda(g, 1, &x, x));
    cr_assert_neq(acc_graph_status(g), ACC_OK);
    expect_msg(acc_graph_last_error(g), "lambda");
    acc_graph_free(g);
}

Test(errors, compiling_a_scalar_result)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *k = ts_f32(g, 1.0f);
    acc_program *p = (acc_program *)&p;
    acc_status st = acc_compile(ctx, g, 1, &k, &p);
    cr_assert_eq(st, ACC_ERR_TYPE, "got %s", acc_status_string(st));
    cr_assert_null(p);
    expect_msg(acc_last_error(), "array");
    /* the graph is still usable */
    acc_node *u = acc_unit(g, k);
    cr_assert_eq(acc_compile(ctx, g, 1, &u, &p), ACC_OK, "%s",
                 acc_last_error());
    acc_program_free(p);
    acc_graph_free(g);
}

Test(errors, compiling_a_lambda_result)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *x = acc_param(g, ts_sc(ACC_F32));
    acc_node *f = acc_lambda(g, 1, &x, x);
    acc_program *p = NULL;
    cr_assert_neq(acc_compile(ctx, g, 1, &f, &p), ACC_OK);
    cr_assert_null(p);
    acc_graph_free(g);
}

/* ---- NULL-safety and ownership ------------------------------------------------- */

Test(errors, free_functions_accept_null)
{
    acc_context_destroy(NULL);
    acc_graph_free(NULL);
    acc_program_free(NULL);
    acc_array_release(NULL);
    acc_context_options_init(NULL);
    cr_assert_null(acc_node_type(NULL));
    cr_assert_neq(acc_graph_status(NULL), ACC_OK);
    cr_assert_not_null(acc_graph_last_error(NULL));
    cr_assert_not_null(acc_context_last_error(NULL));
}

Test(errors, releasing_a_borrowed_array_is_a_no_op)
{
    float buf[2] = {1, 2};
    int64_t n = 2;
    acc_array a = ts_host(ACC_F32, 1, &n, buf);
    cr_assert_eq(a.ownership, ACC_OWNERSHIP_BORROWED);
    acc_array_release(&a);
    cr_assert_eq(a.data[0], (void *)buf);
    cr_assert_eq(a.extents[0], 2);
    cr_assert_eq(buf[1], 2.0f);
}

Test(errors, array_init_checks)
{
    acc_array a;
    int64_t bad[1] = {-1}, big[2] = {INT64_MAX, 3}, ok[1] = {4};
    cr_assert_eq(acc_array_init(NULL, ts_sc(ACC_F32), 1, ok),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_array_init(&a, ts_sc(ACC_F32), 9, ok),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_array_init(&a, ts_sc(ACC_F32), -1, ok),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_array_init(&a, ts_sc(ACC_F32), 1, bad),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_array_init(&a, ts_sc(ACC_F32), 1, ok), ACC_OK);
    cr_assert_eq(a.struct_size, sizeof a);
    cr_assert_eq(a.ownership, ACC_OWNERSHIP_BORROWED);
    cr_assert_eq(a.memory, ACC_MEMORY_HOST);
    cr_assert_null(a.data[0]);
    cr_assert_eq(acc_array_size(&a), 4);
    cr_assert_eq(acc_array_init(&a, ts_sc(ACC_F32), 2, big), ACC_OK);
    cr_assert_eq(acc_array_size(&a), -1, "overflow gives -1");
    a.extents[1] = -3;
    cr_assert_eq(acc_array_size(&a), -1);
    cr_assert_eq(acc_array_init(&a, ts_sc(ACC_F32), 0, NULL), ACC_OK);
    cr_assert_eq(acc_array_size(&a), 1);
}

/* ---- types --------------------------------------------------------------------- */

Test(errors, types_api)
{
    const acc_type *f32 = ts_sc(ACC_F32), *i32 = ts_sc(ACC_I32),
                   *b = ts_sc(ACC_BOOL);
    cr_assert_eq(acc_type_get_kind(f32), ACC_TYPE_SCALAR);
    cr_assert_eq(acc_type_get_scalar(f32), ACC_F32);
    cr_assert_null(acc_type_scalar((acc_scalar)0));
    cr_assert_null(acc_type_scalar((acc_scalar)12));
    cr_assert_eq(acc_scalar_size(ACC_F64), 8);
    cr_assert_eq(acc_scalar_size(ACC_BOOL), 1);
    cr_assert_eq(acc_scalar_size((acc_scalar)99), 0);
    cr_assert_str_eq(acc_scalar_name(ACC_F32), "f32");
    cr_assert_str_eq(acc_scalar_name((acc_scalar)99), "unknown");

    /* (f32, (i32, bool)): leaves f32, i32, bool */
    const acc_type *inner_f[2] = {i32, b};
    const acc_type *inner = acc_type_tuple(ctx, 2, inner_f);
    const acc_type *outer_f[2] = {f32, inner};
    const acc_type *outer = acc_type_tuple(ctx, 2, outer_f);
    cr_assert_not_null(outer);
    cr_assert_eq(acc_type_get_kind(outer), ACC_TYPE_TUPLE);
    cr_assert_eq(acc_type_get_arity(outer), 2);
    cr_assert(acc_type_equal(acc_type_get_field(outer, 1), inner));
    cr_assert_null(acc_type_get_field(outer, 2));
    cr_assert_eq(acc_type_leaf_count(outer), 3);
    cr_assert_eq(acc_type_leaf(outer, 0), ACC_F32);
    cr_assert_eq(acc_type_leaf(outer, 1), ACC_I32);
    cr_assert_eq(acc_type_leaf(outer, 2), ACC_BOOL);
    cr_assert_eq(acc_type_leaf_count(f32), 1);
    cr_assert_eq(acc_type_leaf_count(acc_type_shape(3)), 3);

    /* structural equality across separately created tuples */
    const acc_type *inner2 = acc_type_tuple(ctx, 2, inner_f);
    const acc_type *outer2_f[2] = {f32, inner2};
    const acc_type *outer2 = acc_type_tuple(ctx, 2, outer2_f);
    cr_assert(acc_type_equal(outer, outer2));
    const acc_type *swapped_f[2] = {inner, f32};
    cr_assert(!acc_type_equal(outer, acc_type_tuple(ctx, 2, swapped_f)));
    cr_assert(!acc_type_equal(f32, i32));
    cr_assert(acc_type_equal(f32, ts_sc(ACC_F32)));

    /* the unit type */
    const acc_type *unit = acc_type_tuple(ctx, 0, NULL);
    cr_assert_not_null(unit);
    cr_assert_eq(acc_type_get_arity(unit), 0);
    cr_assert_eq(acc_type_leaf_count(unit), 0);

    /* arrays */
    const acc_type *arr = acc_type_array(ctx, outer, 2);
    cr_assert_not_null(arr);
    cr_assert_eq(acc_type_get_kind(arr), ACC_TYPE_ARRAY);
    cr_assert_eq(acc_type_get_rank(arr), 2);
    cr_assert(acc_type_equal(acc_type_get_elem(arr), outer));
    cr_assert(acc_type_equal(arr, acc_type_array(ctx, outer2, 2)));
    cr_assert(!acc_type_equal(arr, acc_type_array(ctx, outer, 1)));
    cr_assert_not_null(acc_type_array(ctx, f32, 8));
    cr_assert_null(acc_type_array(ctx, f32, 9), "rank > 8");
    cr_assert_null(acc_type_array(ctx, f32, -1));
    cr_assert_null(acc_type_array(ctx, arr, 1), "arrays of arrays");
    cr_assert_neq(acc_context_last_error(ctx)[0], '\0');
    cr_assert_null(acc_type_array(ctx, NULL, 1));

    /* shapes */
    cr_assert_not_null(acc_type_shape(0));
    cr_assert_not_null(acc_type_shape(8));
    cr_assert_null(acc_type_shape(9));
    cr_assert_null(acc_type_shape(-1));
    cr_assert_eq(acc_type_get_kind(acc_type_shape(2)), ACC_TYPE_SHAPE);
    cr_assert_eq(acc_type_get_rank(acc_type_shape(2)), 2);

    /* inspection that does not apply gives 0/NULL */
    cr_assert_eq(acc_type_get_rank(f32), 0);
    cr_assert_null(acc_type_get_elem(f32));
    cr_assert_eq(acc_type_get_arity(f32), 0);
    cr_assert_eq(acc_type_get_scalar(outer), 0);

    /* tuples mixing arrays and values are refused; tuples of arrays are not */
    const acc_type *mixed_f[2] = {arr, f32};
    cr_assert_null(acc_type_tuple(ctx, 2, mixed_f));
    const acc_type *arrs_f[2] = {arr, acc_type_array(ctx, f32, 1)};
    const acc_type *arrs = acc_type_tuple(ctx, 2, arrs_f);
    cr_assert_not_null(arrs);
    cr_assert_null(acc_type_array(ctx, arrs, 1));
    cr_assert_null(acc_type_tuple(ctx, 2, NULL));
}

Test(errors, types_need_a_live_context)
{
    const acc_type *f[1] = {ts_sc(ACC_F32)};
    cr_assert_null(acc_type_tuple(NULL, 1, f));
    cr_assert_null(acc_type_array(NULL, f[0], 1));
}
