/*
 * test_foreign_contract.c — what accel checks of an implementation that
 * breaks the contract of acc_foreign_impl (docs/PLUGINS.md, "What accel
 * checks"): texts written without a NUL into accel's buffers are cut at
 * the buffer's end, never read past (the reason of a predicate or of
 * create, the message of a failing call); results of the wrong element
 * type or rank, negative or overflowing extents, and buffers replaced by
 * execute fail the run with ACC_ERR_PLUGIN naming the implementation,
 * leave no output allocated, and leave the program usable.
 * Implementations are registered by the test itself; each misbehaves in
 * the one way its `fault` says.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "foreign_support.h"

static const int64_t n4[1] = {4};
static double xs4[4] = {1, 2, 3, 4};

typedef enum fault {
    F_NONE,
    F_REASON_UNTERMINATED, /* accepts: fills reason, no NUL, refuses */
    F_CREATE_UNTERMINATED, /* create: fills reason, no NUL, fails */
    F_MESSAGE_UNTERMINATED, /* execute: fills message, no NUL, fails */
    F_NEGATIVE_EXTENT,
    F_OVERFLOWING_EXTENTS,
    F_RANK,                /* result_shape sets rank 3 */
    F_ELEM_TYPE,           /* result_shape sets element type i32 */
    F_NULL_TYPE,
    F_NULL_BUFFER,         /* execute sets data[0] to NULL */
    F_OWN_BUFFER           /* execute points data[0] at its own buffer */
} fault;

typedef struct impl_user {
    fault fault;
    size_t size_seen; /* reason_size / message_size accel gave */
    int calls;
    double own[4];
} impl_user;

static int c_accepts(acc_foreign_query *q)
{
    impl_user *u = q->user;
    if (u->fault != F_REASON_UNTERMINATED)
        return 1;
    u->size_seen = q->reason_size;
    memset(q->reason, 'r', q->reason_size);
    return 0;
}

static acc_status c_create(acc_foreign_query *q, void **state)
{
    impl_user *u = q->user;
    *state = NULL;
    if (u->fault != F_CREATE_UNTERMINATED)
        return ACC_OK;
    u->size_seen = q->reason_size;
    memset(q->reason, 'c', q->reason_size);
    return ACC_ERR_PLUGIN;
}

static acc_status c_shape(acc_foreign_call *c)
{
    impl_user *u = c->user;
    acc_array *r = &c->results[0];
    memcpy(r->extents, c->args[0].extents, sizeof r->extents);
    switch (u->fault) {
    case F_NEGATIVE_EXTENT: r->extents[0] = -3; break;
    case F_OVERFLOWING_EXTENTS: /* on a matrix: 2^62 x 4 elements */
        r->extents[0] = (int64_t)1 << 62;
        r->extents[1] = 4;
        break;
    case F_RANK:
        r->rank = 3;
        r->extents[1] = r->extents[2] = 2;
        break;
    case F_ELEM_TYPE: r->type = acc_type_scalar(ACC_I32); break;
    case F_NULL_TYPE: r->type = NULL; break;
    default: break;
    }
    return ACC_OK;
}

static acc_status c_execute(acc_foreign_call *c)
{
    impl_user *u = c->user;
    u->calls++;
    if (u->fault == F_MESSAGE_UNTERMINATED) {
        u->size_seen = c->message_size;
        memset(c->message, 'm', c->message_size);
        return ACC_ERR_DEVICE;
    }
    const double *x = c->args[0].data[0];
    double *y = c->results[0].data[0];
    for (int64_t i = 0; i < acc_array_size(&c->args[0]); i++)
        y[i] = 2 * x[i];
    if (u->fault == F_NULL_BUFFER)
        c->results[0].data[0] = NULL;
    if (u->fault == F_OWN_BUFFER)
        c->results[0].data[0] = u->own;
    return ACC_OK;
}

static acc_context *context_with(impl_user *u)
{
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    acc_foreign_impl impl;
    memset(&impl, 0, sizeof impl);
    impl.struct_size = sizeof impl;
    impl.name = "test.double";
    impl.impl_name = "rogue.double";
    impl.backend = ACC_BACKEND_INTERP;
    impl.accepts = c_accepts;
    impl.result_shape = c_shape;
    impl.execute = c_execute;
    impl.create = c_create;
    impl.user = u;
    cr_assert_eq(acc_register_foreign(ctx, &impl), ACC_OK);
    return ctx;
}

/* foreign "test.double" (\xs -> map (*2) xs) over an f64 input of the
 * given rank. */
static acc_program *double_program_of_rank(acc_context *ctx, int32_t rank)
{
    const acc_type *f64 = acc_type_scalar(ACC_F64);
    const acc_type *vt = acc_type_array(ctx, f64, rank);
    acc_graph *g = ts_graph(ctx);
    acc_node *in = acc_input(g, f64, rank);
    acc_node *x = acc_param(g, f64);
    acc_node *times2 = acc_lambda(g, 1, &x, acc_binop(g, ACC_OP_MUL, x,
                                                      ts_f64(g, 2.0)));
    acc_node *p = acc_param(g, vt);
    acc_node *fallback = acc_lambda(g, 1, &p, acc_map(g, times2, p));
    acc_program *prog = tf_compile(ctx, g, acc_foreign(g, "test.double",
                                                       fallback, in));
    acc_graph_free(g);
    return prog;
}

static acc_program *double_program(acc_context *ctx)
{
    return double_program_of_rank(ctx, 1);
}

/* Runs the program once and returns its status; the output must not be
 * left allocated on failure. */
static acc_status run_once(acc_program *p, double *y)
{
    acc_array a = tf_f64(1, n4, xs4), o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    acc_status st = acc_run(p, 1, &a, 1, &o);
    if (st != ACC_OK) {
        cr_expect_null(o.data[0], "nothing delivered after a failure");
        return st;
    }
    memcpy(y, o.data[0], sizeof(double) * 4);
    acc_array_release(&o);
    return st;
}

/* The length of the run of c starting at s. */
static size_t run_of(const char *s, char c)
{
    size_t n = 0;
    while (s[n] == c)
        n++;
    return n;
}

Test(foreign_contract, a_refusal_without_nul_is_cut_at_the_buffer_end)
{
    impl_user u = {.fault = F_REASON_UNTERMINATED};
    acc_context *ctx = context_with(&u);
    acc_program *p = double_program(ctx);
    char *plan = tf_plan(p);
    const char *r = strstr(plan, "rogue.double refused (r");
    cr_assert(r, "%s", plan);
    r = strchr(r, '(') + 1;
    cr_assert_gt(u.size_seen, 1);
    /* at most size - 1 of the bytes written are read, and the text goes on
     * with accel's own (the plan's line is cut to the plan's width) */
    size_t n = run_of(r, 'r');
    cr_expect_leq(n, u.size_seen - 1, "%zu bytes of the reason", n);
    cr_expect(r[n] == '\0' || r[n] == '\n' || r[n] == ')', "then %#x",
              (unsigned)(unsigned char)r[n]);
    double y[4];
    cr_assert_eq(run_once(p, y), ACC_OK, "%s", acc_last_error());
    for (int i = 0; i < 4; i++)
        cr_expect_eq(y[i], 2 * xs4[i], "the fallback runs");
    acc_free(plan);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

Test(foreign_contract, a_create_reason_without_nul_is_cut_at_the_buffer_end)
{
    impl_user u = {.fault = F_CREATE_UNTERMINATED};
    acc_context *ctx = context_with(&u);
    acc_program *p = double_program(ctx);
    char *plan = tf_plan(p);
    const char *r = strstr(plan, "rogue.double could not set up "
                                 "(ACC_ERR_PLUGIN: c");
    cr_assert(r, "%s", plan);
    r = strstr(r, ": c") + 2;
    size_t n = run_of(r, 'c');
    cr_expect_leq(n, u.size_seen - 1, "%zu bytes of the reason", n);
    cr_expect(r[n] == '\0' || r[n] == '\n' || r[n] == ')', "then %#x",
              (unsigned)(unsigned char)r[n]);
    acc_free(plan);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

Test(foreign_contract, a_message_without_nul_is_cut_at_the_buffer_end)
{
    impl_user u = {.fault = F_MESSAGE_UNTERMINATED};
    acc_context *ctx = context_with(&u);
    acc_program *p = double_program(ctx);
    double y[4];
    cr_assert_eq(run_once(p, y), ACC_ERR_PLUGIN);
    const char *e = acc_last_error();
    const char *m = strstr(e, "foreign 'test.double' (rogue.double) failed "
                              "with ACC_ERR_DEVICE: m");
    cr_assert(m, "%s", e);
    m = strstr(m, ": m") + 2;
    /* exactly the first message_size - 1 bytes, then the end: nothing of
     * what lies beyond accel's buffer */
    cr_expect_eq(run_of(m, 'm'), u.size_seen - 1);
    cr_expect_eq(strlen(m), u.size_seen - 1);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* Runs a program whose implementation has fault f: ACC_ERR_PLUGIN with a
 * message naming the implementation and containing `what`; then a
 * well-behaved run of the same program succeeds. */
static void expect_refused(fault f, const char *what)
{
    impl_user u = {.fault = f};
    acc_context *ctx = context_with(&u);
    acc_program *p = double_program(ctx);
    double y[4];
    cr_assert_eq(run_once(p, y), ACC_ERR_PLUGIN, "fault %d: %s", (int)f,
                 acc_last_error());
    const char *e = acc_last_error();
    cr_expect(strstr(e, "foreign 'test.double' (rogue.double): "), "%s", e);
    cr_expect(strstr(e, what), "expected \"%s\" in: %s", what, e);
    cr_expect(strstr(acc_program_last_error(p), what), "on the program too");
    u.fault = F_NONE;
    cr_assert_eq(run_once(p, y), ACC_OK, "%s", acc_last_error());
    for (int i = 0; i < 4; i++)
        cr_expect_eq(y[i], 2 * xs4[i]);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

Test(foreign_contract, a_negative_extent_is_refused)
{
    expect_refused(F_NEGATIVE_EXTENT,
                   "result_shape gave result 0 the negative extent -3");
}

Test(foreign_contract, extents_whose_size_overflows_are_refused)
{
    impl_user u = {.fault = F_OVERFLOWING_EXTENTS};
    acc_context *ctx = context_with(&u);
    acc_program *p = double_program_of_rank(ctx, 2);
    static const int64_t ext[2] = {2, 2};
    acc_array a = tf_f64(2, ext, xs4), o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    cr_assert_eq(acc_run(p, 1, &a, 1, &o), ACC_ERR_PLUGIN);
    cr_expect(strstr(acc_last_error(), "foreign 'test.double' (rogue.double):"
                     " result_shape gave result 0 extents whose number of "
                     "elements overflows int64"), "%s", acc_last_error());
    cr_expect_null(o.data[0]);
    u.fault = F_NONE;
    cr_assert_eq(acc_run(p, 1, &a, 1, &o), ACC_OK, "%s", acc_last_error());
    cr_expect_eq(((const double *)o.data[0])[3], 2 * xs4[3]);
    acc_array_release(&o);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

Test(foreign_contract, a_changed_rank_is_refused)
{
    expect_refused(F_RANK, "result_shape changed the rank of result 0 to 3; "
                           "the foreign node's type says rank 1");
}

Test(foreign_contract, a_changed_element_type_is_refused)
{
    expect_refused(F_ELEM_TYPE, "result_shape changed the element type of "
                                "result 0 to i32; the foreign node's type "
                                "says f64");
}

Test(foreign_contract, a_null_element_type_is_refused)
{
    expect_refused(F_NULL_TYPE, "element type of result 0 to NULL");
}

Test(foreign_contract, a_buffer_set_to_null_is_refused)
{
    expect_refused(F_NULL_BUFFER, "execute replaced the buffer data[0] of "
                                  "result 0 (with NULL)");
}

Test(foreign_contract, a_buffer_of_the_implementation_is_refused)
{
    expect_refused(F_OWN_BUFFER, "execute replaced the buffer data[0] of "
                                 "result 0 (with another pointer)");
}
