/*
 * test_foreign.c — foreign nodes and the registry (DESIGN.md §8,
 * LANGUAGE.md §3.8, §3.9): builder checks, resolution by name, backend,
 * priority and capability, the plan's record of the choice, cascades,
 * per-program state, run-time refusal, failures, acc_foreign_list.
 * Implementations here are registered by the test itself.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "foreign_support.h"

static const int64_t n4[1] = {4};
static double xs4[4] = {1, 2, 3, 4};

/* ---- a test implementation of "test.double": xs -> 2 xs ------------------ */

typedef struct impl_user {
    int calls, created, destroyed, refuse, unsupported, fail;
    double factor; /* what execute multiplies by */
} impl_user;

static int t_accepts(acc_foreign_query *q)
{
    impl_user *u = q->user;
    if (u->refuse) {
        snprintf(q->reason, q->reason_size, "refused on purpose");
        return 0;
    }
    return q->n_args == 1 && q->arg_ranks[0] == 1;
}

static acc_status t_shape(acc_foreign_call *c)
{
    c->results[0].extents[0] = c->args[0].extents[0];
    return ACC_OK;
}

static acc_status t_execute(acc_foreign_call *c)
{
    impl_user *u = c->user;
    u->calls++;
    if (u->unsupported)
        return ACC_ERR_UNSUPPORTED;
    if (u->fail) {
        snprintf(c->message, c->message_size, "the device caught fire");
        return ACC_ERR_DEVICE;
    }
    double *scratch = c->workspace(c, 64);
    cr_assert_not_null(scratch);
    const double *x = c->args[0].data[0];
    double *y = c->results[0].data[0];
    for (int64_t i = 0; i < c->args[0].extents[0]; i++)
        y[i] = u->factor * x[i];
    return ACC_OK;
}

static acc_status t_create(acc_foreign_query *q, void **state)
{
    impl_user *u = q->user;
    u->created++;
    *state = u;
    return ACC_OK;
}

static void t_destroy(void *user, void *state)
{
    impl_user *u = user;
    cr_assert_eq(state, user);
    u->destroyed++;
}

static acc_foreign_impl test_impl(const char *name, const char *impl_name,
                                  int32_t priority, impl_user *u)
{
    acc_foreign_impl impl;
    memset(&impl, 0, sizeof impl);
    impl.struct_size = sizeof impl;
    impl.name = name;
    impl.impl_name = impl_name;
    impl.backend = ACC_BACKEND_INTERP;
    impl.priority = priority;
    impl.accepts = t_accepts;
    impl.result_shape = t_shape;
    impl.execute = t_execute;
    impl.create = t_create;
    impl.destroy = t_destroy;
    impl.user = u;
    return impl;
}

/* \xs -> map (* k) xs over Vector f64. */
static acc_node *times_fallback(acc_graph *g, double k)
{
    const acc_type *f64 = acc_type_scalar(ACC_F64);
    acc_node *x = acc_param(g, f64);
    acc_node *f = acc_lambda(g, 1, &x, acc_binop(g, ACC_OP_MUL, x,
                                                 ts_f64(g, k)));
    return f;
}

static acc_node *vector_fn(acc_context *ctx, acc_graph *g, double k)
{
    const acc_type *vt = acc_type_array(ctx, acc_type_scalar(ACC_F64), 1);
    acc_node *p = acc_param(g, vt);
    return acc_lambda(g, 1, &p, acc_map(g, times_fallback(g, k), p));
}

/* Runs `foreign name (\xs -> map (*2) xs) input` and returns the plan. */
static char *run_double(acc_context *ctx, const char *name, double *out4)
{
    acc_graph *g = ts_graph(ctx);
    acc_node *in = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_node *r = acc_foreign(g, name, vector_fn(ctx, g, 2.0), in);
    acc_program *p = tf_compile(ctx, g, r);
    acc_graph_free(g);
    acc_array a = tf_f64(1, n4, xs4), o;
    tf_run(p, 1, &a, 1, &o);
    memcpy(out4, o.data[0], sizeof(double) * 4);
    acc_array_release(&o);
    char *plan = tf_plan(p);
    acc_program_free(p);
    return plan;
}

Test(foreign, without_an_implementation_the_fallback_runs_and_the_plan_says_why)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    double y[4];
    char *plan = run_double(ctx, "test.double", y);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(y[i], 2 * xs4[i]);
    cr_assert(strstr(plan, "foreign test.double"), "%s", plan);
    cr_assert(strstr(plan, "fallback: no implementation of 'test.double' is "
                           "registered for backend interp"), "%s", plan);
    cr_assert(strstr(plan, "foreign calls: 0"), "%s", plan);
    acc_free(plan);
    acc_context_destroy(ctx);
}

Test(foreign, a_registered_implementation_is_called_and_named_in_the_plan)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    impl_user u = {.factor = 2.0};
    acc_foreign_impl impl = test_impl("test.double", "app.double", 5, &u);
    cr_assert_eq(acc_register_foreign(ctx, &impl), ACC_OK);
    double y[4];
    char *plan = run_double(ctx, "test.double", y);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(y[i], 2 * xs4[i]);
    cr_assert_eq(u.calls, 1);
    cr_assert_eq(u.created, 1, "per-program state created once");
    cr_assert_eq(u.destroyed, 1, "and destroyed with the program");
    cr_assert(strstr(plan, "uses: app.double (application, priority 5)"),
              "%s", plan);
    cr_assert(strstr(plan, "foreign calls: 1"), "%s", plan);
    acc_free(plan);
    acc_context_destroy(ctx);
}

Test(foreign, the_highest_accepting_priority_wins_and_refusals_are_reported)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    impl_user lo = {.factor = 2.0}, hi = {.factor = 2.0, .refuse = 1};
    acc_foreign_impl a = test_impl("test.double", "low", 1, &lo);
    acc_foreign_impl b = test_impl("test.double", "high", 9, &hi);
    acc_foreign_impl c = test_impl("other.name", "other", 99, &hi);
    cr_assert_eq(acc_register_foreign(ctx, &a), ACC_OK);
    cr_assert_eq(acc_register_foreign(ctx, &b), ACC_OK);
    cr_assert_eq(acc_register_foreign(ctx, &c), ACC_OK);
    double y[4];
    char *plan = run_double(ctx, "test.double", y);
    cr_assert(strstr(plan, "uses: low"), "%s", plan);
    cr_assert_eq(lo.calls, 1);
    cr_assert_eq(hi.calls, 0);
    acc_free(plan);
    lo.refuse = 1;
    plan = run_double(ctx, "test.double", y);
    cr_assert(strstr(plan, "fallback: low refused (refused on purpose); high "
                           "refused (refused on purpose)"), "%s", plan);
    acc_free(plan);
    acc_context_destroy(ctx);
}

Test(foreign, a_device_implementation_does_not_serve_the_host)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    impl_user u = {.factor = 2.0};
    acc_foreign_impl impl = test_impl("test.double", "gpu.double", 5, &u);
    impl.backend = ACC_BACKEND_CUDA;
    cr_assert_eq(acc_register_foreign(ctx, &impl), ACC_OK);
    double y[4];
    char *plan = run_double(ctx, "test.double", y);
    cr_assert(strstr(plan, "fallback: no implementation"), "%s", plan);
    cr_assert_eq(u.calls, 0);
    acc_free(plan);
    acc_context_destroy(ctx);
}

Test(foreign, refusing_the_extents_at_run_time_runs_the_fallback)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    impl_user u = {.factor = 100.0, .unsupported = 1};
    acc_foreign_impl impl = test_impl("test.double", "picky", 5, &u);
    cr_assert_eq(acc_register_foreign(ctx, &impl), ACC_OK);
    double y[4];
    acc_free(run_double(ctx, "test.double", y));
    cr_assert_eq(u.calls, 1);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(y[i], 2 * xs4[i], "the fallback's value");
    acc_context_destroy(ctx);
}

Test(foreign, a_failing_implementation_fails_the_run_with_its_message)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    impl_user u = {.factor = 2.0, .fail = 1};
    acc_foreign_impl impl = test_impl("test.double", "broken", 5, &u);
    cr_assert_eq(acc_register_foreign(ctx, &impl), ACC_OK);
    acc_graph *g = ts_graph(ctx);
    acc_node *in = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_node *r = acc_foreign(g, "test.double", vector_fn(ctx, g, 2.0), in);
    acc_program *p = tf_compile(ctx, g, r);
    acc_array a = tf_f64(1, n4, xs4), o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    cr_assert_eq(acc_run(p, 1, &a, 1, &o), ACC_ERR_PLUGIN);
    cr_assert(strstr(acc_last_error(), "foreign 'test.double' (broken) failed "
                                       "with ACC_ERR_DEVICE: the device "
                                       "caught fire"), "%s", acc_last_error());
    cr_assert_null(o.data[0]);
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

/* foreign "cascade.a" (\xs -> foreign "cascade.b" (\ys -> map (*2) ys) xs) */
static char *run_cascade(acc_context *ctx, double *y)
{
    acc_graph *g = ts_graph(ctx);
    const acc_type *vt = acc_type_array(ctx, acc_type_scalar(ACC_F64), 1);
    acc_node *in = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_node *p = acc_param(g, vt);
    acc_node *inner = acc_foreign(g, "cascade.b", vector_fn(ctx, g, 2.0), p);
    acc_node *outer = acc_foreign(g, "cascade.a",
                                  acc_lambda(g, 1, &p, inner), in);
    acc_program *prog = tf_compile(ctx, g, outer);
    acc_graph_free(g);
    acc_array a = tf_f64(1, n4, xs4), o;
    tf_run(prog, 1, &a, 1, &o);
    memcpy(y, o.data[0], sizeof(double) * 4);
    acc_array_release(&o);
    char *plan = tf_plan(prog);
    acc_program_free(prog);
    return plan;
}

Test(foreign, a_cascade_uses_the_first_available_implementation)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    double y[4];
    char *plan = run_cascade(ctx, y);
    cr_assert(strstr(plan, "foreign cascade.a") &&
              strstr(plan, "foreign cascade.b"), "%s", plan);
    cr_assert(strstr(plan, "fallback: no implementation of 'cascade.b'"),
              "%s", plan);
    cr_assert_eq(y[3], 8.0);
    acc_free(plan);

    impl_user ub = {.factor = 2.0};
    acc_foreign_impl b = test_impl("cascade.b", "impl.b", 1, &ub);
    cr_assert_eq(acc_register_foreign(ctx, &b), ACC_OK);
    plan = run_cascade(ctx, y);
    cr_assert(strstr(plan, "fallback: no implementation of 'cascade.a'"),
              "%s", plan);
    cr_assert(strstr(plan, "uses: impl.b"), "%s", plan);
    cr_assert_eq(ub.calls, 1);
    cr_assert_eq(y[3], 8.0);
    acc_free(plan);

    impl_user ua = {.factor = 2.0};
    acc_foreign_impl a = test_impl("cascade.a", "impl.a", 1, &ua);
    cr_assert_eq(acc_register_foreign(ctx, &a), ACC_OK);
    plan = run_cascade(ctx, y);
    cr_assert(strstr(plan, "uses: impl.a"), "%s", plan);
    cr_assert_null(strstr(plan, "cascade.b"), "the unused fallback is not "
                   "in the plan: %s", plan);
    cr_assert_eq(ua.calls, 1);
    cr_assert_eq(ub.calls, 1, "B is not called again");
    cr_assert_eq(y[3], 8.0);
    acc_free(plan);
    acc_context_destroy(ctx);
}

Test(foreign, the_plan_in_json_names_the_choice)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_graph *g = ts_graph(ctx);
    acc_node *in = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_node *r = acc_foreign(g, "test.double", vector_fn(ctx, g, 2.0), in);
    acc_program *p = tf_compile(ctx, g, r);
    char *json = NULL;
    cr_assert_eq(acc_program_explain(p, 1, &json), ACC_OK);
    cr_assert(strstr(json, "\"kind\":\"foreign\",\"op\":\"foreign\","
                           "\"name\":\"test.double\",\"implementation\":null,"
                           "\"uses\":\"fallback: no implementation of "
                           "'test.double'"), "%s", json);
    acc_free(json);
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

Test(foreign, builder_errors_name_the_problem)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_graph *g = ts_graph(ctx);
    acc_node *in = acc_input(g, acc_type_scalar(ACC_F64), 1);
    cr_assert_null(acc_foreign(g, NULL, vector_fn(ctx, g, 2.0), in));
    cr_assert(strstr(acc_graph_last_error(g), "foreign: the name"), "%s",
              acc_graph_last_error(g));
    acc_graph_free(g);

    g = ts_graph(ctx);
    in = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_node *scalar_fn = times_fallback(g, 2.0);
    cr_assert_null(acc_foreign(g, "x", scalar_fn, in));
    cr_assert_eq(acc_graph_status(g), ACC_ERR_TYPE);
    cr_assert(strstr(acc_graph_last_error(g), "foreign: parameter 0 of the "
                     "fallback has type f64"), "%s", acc_graph_last_error(g));
    acc_graph_free(g);

    g = ts_graph(ctx);
    cr_assert_null(acc_foreign(g, "x", vector_fn(ctx, g, 2.0), ts_f64(g, 1)));
    cr_assert(strstr(acc_graph_last_error(g), "expected an array or a tuple "
                     "of arrays"), "%s", acc_graph_last_error(g));
    acc_graph_free(g);

    /* a fallback that refers to a parameter of an enclosing scalar function */
    g = ts_graph(ctx);
    acc_node *outer = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *x = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *open_fn = acc_lambda(g, 1, &x, acc_binop(g, ACC_OP_ADD, x,
                                                      outer));
    cr_assert_null(acc_foreign_exp(g, "x", open_fn, ts_f64(g, 1)));
    cr_assert(strstr(acc_graph_last_error(g), "a fallback must be closed"),
              "%s", acc_graph_last_error(g));
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

Test(foreign, registering_checks_the_struct)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    impl_user u = {0};
    acc_foreign_impl impl = test_impl("n", "i", 0, &u);
    impl.struct_size = 8;
    cr_assert_eq(acc_register_foreign(ctx, &impl), ACC_ERR_INVALID_ARGUMENT);
    impl = test_impl("n", "i", 0, &u);
    impl.execute = NULL;
    cr_assert_eq(acc_register_foreign(ctx, &impl), ACC_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(acc_last_error(), "has no execute function"), "%s",
              acc_last_error());
    impl = test_impl("n", "i", 0, &u);
    impl.backend = ACC_BACKEND_AUTO;
    cr_assert_eq(acc_register_foreign(ctx, &impl), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_register_foreign(ctx, NULL), ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_register_foreign(NULL, &impl), ACC_ERR_INVALID_ARGUMENT);
    acc_context_destroy(ctx);
}

Test(foreign, the_list_shows_every_implementation_in_order)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    impl_user u = {0};
    acc_foreign_impl a = test_impl("b.name", "second", 1, &u);
    acc_foreign_impl b = test_impl("a.name", "first", 1, &u);
    acc_foreign_impl c = test_impl("b.name", "preferred", 7, &u);
    c.note = "a note";
    cr_assert_eq(acc_register_foreign(ctx, &a), ACC_OK);
    cr_assert_eq(acc_register_foreign(ctx, &b), ACC_OK);
    cr_assert_eq(acc_register_foreign(ctx, &c), ACC_OK);
    char *text = NULL;
    cr_assert_eq(acc_foreign_list(ctx, &text), ACC_OK);
    cr_assert_str_eq(text,
        "a.name first backend=interp priority=1 from=application\n"
        "b.name preferred backend=interp priority=7 from=application; a note\n"
        "b.name second backend=interp priority=1 from=application\n");
    acc_free(text);
    cr_assert_eq(acc_foreign_list(ctx, NULL), ACC_ERR_INVALID_ARGUMENT);
    acc_context_destroy(ctx);
}

Test(foreign, a_foreign_exp_without_implementation_applies_its_fallback)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_graph *g = ts_graph(ctx);
    acc_node *in = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_node *v = acc_param(g, acc_type_scalar(ACC_F64));
    acc_node *body = acc_foreign_exp(g, "libm.cube", times_fallback(g, 3.0),
                                     v);
    acc_node *r = acc_map(g, acc_lambda(g, 1, &v, body), in);
    acc_program *p = tf_compile(ctx, g, r);
    acc_array a = tf_f64(1, n4, xs4), o;
    tf_run(p, 1, &a, 1, &o);
    cr_assert_eq(((double *)o.data[0])[3], 12.0);
    acc_array_release(&o);
    acc_program_free(p);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}

Test(foreign, host_implementations_serve_the_automatic_backend_too)
{
    acc_context *ctx = ts_context(ACC_BACKEND_AUTO);
    acc_backend b = ACC_BACKEND_AUTO;
    cr_assert_eq(acc_context_backend(ctx, &b), ACC_OK);
    impl_user u = {.factor = 2.0};
    acc_foreign_impl impl = test_impl("test.double", "app.double", 5, &u);
    cr_assert_eq(acc_register_foreign(ctx, &impl), ACC_OK);
    double y[4];
    char *plan = run_double(ctx, "test.double", y);
    if (b != ACC_BACKEND_CUDA) {
        cr_assert(strstr(plan, "uses: app.double"), "%s", plan);
        cr_assert_eq(u.calls, 1);
    }
    for (int i = 0; i < 4; i++)
        cr_assert_eq(y[i], 2 * xs4[i]);
    acc_free(plan);
    acc_context_destroy(ctx);
}
