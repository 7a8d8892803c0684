/*
 * test_ownership.c — nodes belong to their graph and types to their
 * context (docs/ABI.md, "Nodes, types and where they belong"): a node of
 * another graph given to a builder call of any family, a tuple or array
 * type of another context, and a pointer that is not a node or a type at
 * all are refused with ACC_ERR_INVALID_ARGUMENT and a message naming the
 * argument; the error is sticky like every builder error, the other graph
 * is not affected, and nothing is read beyond the magic of a non-node.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "accel.h"
#include "support.h"

TestSuite(ownership, .init = ts_ctx_open, .fini = ts_ctx_close);

/* One node of each sort the builder calls below take, all in one graph. */
typedef struct kit {
    acc_node *xs;    /* input 0: Vector f32 */
    acc_node *seg;   /* input 1: Vector i64 */
    acc_node *s;     /* 1.0 : f32 */
    acc_node *i;     /* 2 : i64 */
    acc_node *b;     /* True */
    acc_node *sh;    /* [4] */
    acc_node *ix;    /* [0] */
    acc_node *all;   /* All */
    acc_node *tup;   /* (s, i) */
    acc_node *f1;    /* \x -> x on f32 */
    acc_node *f2;    /* \a b -> a + b on f32 */
    acc_node *lt;    /* \x -> x < 1 on f32 */
    acc_node *gen;   /* \ix -> 1.0 over Shape 1 */
    acc_node *perm;  /* \ix -> ix over Shape 1 */
    acc_node *sten;  /* \(a, b, c) -> b over (f32, f32, f32) */
    acc_node *size;  /* \x -> 1 : f32 -> i64 */
    acc_node *get;   /* \x k -> x : (f32, i64) -> f32 */
    acc_node *afn;   /* \v -> v over Vector f32 */
    acc_node *acnd;  /* \v -> unit True over Vector f32 */
    acc_node *pairs; /* map (\x -> ([0], x)) xs */
    acc_node *p;     /* an unbound f32 parameter */
} kit;

static acc_node *lam1(acc_graph *g, const acc_type *t,
                      acc_node *(*body)(acc_graph *, acc_node *))
{
    acc_node *x = acc_param(g, t);
    return ts_lam1(g, x, body(g, x));
}

static acc_node *same(acc_graph *g, acc_node *x)
{
    (void)g;
    return x;
}

static acc_node *below_one(acc_graph *g, acc_node *x)
{
    return acc_binop(g, ACC_OP_LT, x, ts_f32(g, 1.0f));
}

static acc_node *one_f32(acc_graph *g, acc_node *x)
{
    (void)x;
    return ts_f32(g, 1.0f);
}

static acc_node *one_i64(acc_graph *g, acc_node *x)
{
    (void)x;
    return ts_i64(g, 1);
}

static acc_node *middle(acc_graph *g, acc_node *x)
{
    return acc_get(g, x, 1);
}

static acc_node *unit_true(acc_graph *g, acc_node *x)
{
    (void)x;
    return acc_unit(g, ts_bool(g, 1));
}

static acc_node *target_pair(acc_graph *g, acc_node *x)
{
    acc_node *fields[2] = {ts_idx1(g, ts_i64(g, 0)), x};
    return acc_tuple(g, 2, fields);
}

static kit make_kit(acc_graph *g)
{
    const acc_type *f32 = ts_sc(ACC_F32);
    const acc_type *vec = acc_type_array(ts_ctx, f32, 1);
    const acc_type *three[3] = {f32, f32, f32};
    kit k;
    k.xs = acc_input(g, f32, 1);
    k.seg = acc_input(g, ts_sc(ACC_I64), 1);
    k.s = ts_f32(g, 1.0f);
    k.i = ts_i64(g, 2);
    k.b = ts_bool(g, 1);
    k.sh = ts_shape1(g, 4);
    k.ix = ts_idx1(g, ts_i64(g, 0));
    k.all = acc_all(g);
    acc_node *fields[2] = {k.s, k.i};
    k.tup = acc_tuple(g, 2, fields);
    k.f1 = lam1(g, f32, same);
    k.f2 = ts_binop_fn(g, ACC_F32, ACC_OP_ADD);
    k.lt = lam1(g, f32, below_one);
    k.gen = lam1(g, acc_type_shape(1), one_f32);
    k.perm = lam1(g, acc_type_shape(1), same);
    k.sten = lam1(g, acc_type_tuple(ts_ctx, 3, three), middle);
    k.size = lam1(g, f32, one_i64);
    acc_node *x = acc_param(g, f32), *n = acc_param(g, ts_sc(ACC_I64));
    k.get = ts_lam2(g, x, n, x);
    k.afn = lam1(g, vec, same);
    k.acnd = lam1(g, vec, unit_true);
    k.pairs = acc_map(g, lam1(g, f32, target_pair), k.xs);
    k.p = acc_param(g, f32);
    cr_assert_eq(acc_graph_status(g), ACC_OK, "%s", acc_graph_last_error(g));
    return k;
}

/* One builder call with one argument taken from the other graph. */
typedef struct misuse {
    const char *op, *what; /* the message names both */
    acc_node *(*call)(acc_graph *g, const kit *ok, const kit *bad);
} misuse;

#define CALL(name, expr)                                                    \
    static acc_node *name(acc_graph *g, const kit *ok, const kit *bad)      \
    {                                                                       \
        (void)ok;                                                           \
        (void)bad;                                                          \
        return (expr);                                                      \
    }

static const int32_t w3[1] = {3};

/* scalar language */
CALL(c_unop, acc_unop(g, ACC_OP_NEG, bad->s))
CALL(c_binop, acc_binop(g, ACC_OP_ADD, ok->s, bad->s))
CALL(c_round, acc_round_to(g, ACC_OP_ROUND, bad->s, ACC_I32))
CALL(c_convert, acc_convert(g, bad->s, ACC_I64))
CALL(c_cond, acc_cond(g, ok->b, ok->s, bad->s))
CALL(c_tuple, acc_tuple(g, 2, (acc_node *[]){ok->s, bad->s}))
CALL(c_get, acc_get(g, bad->tup, 0))
CALL(c_index, acc_index(g, 1, &bad->i))
CALL(c_lambda_body, acc_lambda(g, 1, (acc_node *[]){ok->p}, bad->s))
CALL(c_lambda_param, acc_lambda(g, 1, (acc_node *[]){bad->p}, ok->s))
CALL(c_while, acc_while(g, ok->lt, ok->f1, bad->s))
CALL(c_while_body, acc_while(g, ok->lt, bad->f1, ok->s))
CALL(c_read, acc_read(g, bad->xs, ok->ix))
CALL(c_read_linear, acc_read_linear(g, ok->xs, bad->i))
CALL(c_shape, acc_shape(g, bad->xs))
CALL(c_size, acc_size(g, bad->xs))
CALL(c_the, acc_the(g, bad->xs))
/* array operations */
CALL(c_unit, acc_unit(g, bad->s))
CALL(c_generate, acc_generate(g, ok->sh, bad->gen))
CALL(c_fill, acc_fill(g, bad->sh, ok->s))
CALL(c_map, acc_map(g, ok->f1, bad->xs))
CALL(c_zipwith, acc_zipwith(g, ok->f2, 2, (acc_node *[]){ok->xs, bad->xs}))
CALL(c_backpermute, acc_backpermute(g, ok->sh, bad->perm, ok->xs))
CALL(c_reshape, acc_reshape(g, ok->sh, bad->xs))
CALL(c_fold, acc_fold(g, ok->f2, bad->s, ok->xs))
CALL(c_fold1, acc_fold1(g, bad->f2, ok->xs))
/* structural, segmented, scans */
CALL(c_replicate, acc_replicate(g, 2, (acc_node *[]){ok->i, bad->all},
                                ok->xs))
CALL(c_slice, acc_slice(g, ok->xs, 1, &bad->i))
CALL(c_fold_seg, acc_fold_seg(g, ok->f2, ok->s, ok->xs, bad->seg))
CALL(c_scan, acc_scan(g, ACC_SCANL, ok->f2, bad->s, ok->xs))
CALL(c_scan_seg, acc_scan_seg(g, ACC_SCANL1, ok->f2, NULL, ok->xs, bad->seg))
/* permutation, stencils, expansion */
CALL(c_permute, acc_permute(g, ok->f2, bad->xs, ok->perm, ok->xs))
CALL(c_permute_pairs, acc_permute_pairs(g, ok->f2, ok->xs, bad->pairs))
CALL(c_stencil, acc_stencil(g, ok->sten, w3, ACC_BOUNDARY_CONSTANT, bad->s,
                            ok->xs))
CALL(c_stencil2, acc_stencil2(g, ok->f2, w3, ACC_BOUNDARY_CLAMP, NULL, ok->xs,
                              w3, ACC_BOUNDARY_CLAMP, NULL, bad->xs))
CALL(c_expand, acc_expand(g, bad->size, ok->get, ok->xs))
/* control, foreign */
CALL(c_acond, acc_acond(g, ok->b, ok->xs, bad->xs))
CALL(c_awhile, acc_awhile(g, ok->acnd, ok->afn, bad->xs))
CALL(c_awhile_body, acc_awhile(g, ok->acnd, bad->afn, ok->xs))
CALL(c_foreign, acc_foreign(g, "test.id", ok->afn, bad->xs))
CALL(c_foreign_fallback, acc_foreign(g, "test.id", bad->afn, ok->xs))
CALL(c_foreign_exp, acc_foreign_exp(g, "test.id", bad->f1, ok->s))
/* standard library: the primitive that refuses the node names it */
CALL(c_sum, acc_sum(g, bad->xs))
CALL(c_zip, acc_zip(g, ok->xs, bad->xs))
CALL(c_dot, acc_dot(g, bad->xs, ok->xs))
CALL(c_reverse, acc_reverse(g, bad->xs))
CALL(c_take, acc_take(g, bad->i, ok->xs))
CALL(c_gather, acc_gather(g, bad->seg, ok->xs))
CALL(c_even, acc_even(g, bad->i))

static const misuse misuses[] = {
    {"negate", "the operand", c_unop},
    {"+", "the second operand", c_binop},
    {"round", "the operand", c_round},
    {"convert", "the operand", c_convert},
    {"if", "the else branch", c_cond},
    {"tuple", "field 1", c_tuple},
    {"get", "the tuple", c_get},
    {"index", "component 0", c_index},
    {"lambda", "the body", c_lambda_body},
    {"lambda", "parameter 0", c_lambda_param},
    {"while", "the initial value", c_while},
    {"while", "the body", c_while_body},
    {"read (!)", "the array", c_read},
    {"linear read (!!)", "the position", c_read_linear},
    {"shape", "the array", c_shape},
    {"size", "the array", c_size},
    {"the", "the array", c_the},
    {"unit", "the value", c_unit},
    {"generate", "the function", c_generate},
    {"fill", "the shape", c_fill},
    {"map", "the array", c_map},
    {"zipWith", "array 1", c_zipwith},
    {"backpermute", "the index function", c_backpermute},
    {"reshape", "the array", c_reshape},
    {"fold", "the initial value", c_fold},
    {"fold1", "the function", c_fold1},
    {"replicate", "specification entry 1", c_replicate},
    {"slice", "specification entry 0", c_slice},
    {"foldSeg", "the segments", c_fold_seg},
    {"scanl", "the initial value", c_scan},
    {"scanl1Seg", "the segments", c_scan_seg},
    {"permute", "the defaults", c_permute},
    {"permute'", "the source array", c_permute_pairs},
    {"stencil", "the boundary constant", c_stencil},
    {"stencil2", "the second array", c_stencil2},
    {"expand", "the size function", c_expand},
    {"acond", "the else branch", c_acond},
    {"awhile", "the initial value", c_awhile},
    {"awhile", "the body", c_awhile_body},
    {"foreign", "the argument", c_foreign},
    {"foreign", "the fallback", c_foreign_fallback},
    {"foreignExp", "the fallback", c_foreign_exp},
    {"fold", "the array", c_sum},
    {"zipWith", "array 1", c_zip},
    {"tuple", "field 0", c_dot},
    {NULL, NULL, c_reverse},
    {NULL, NULL, c_take},
    {"map", "the array", c_gather},
    {"rem", "the first operand", c_even},
};

Test(ownership, every_builder_family_refuses_a_node_of_another_graph)
{
    for (size_t m = 0; m < sizeof misuses / sizeof misuses[0]; m++) {
        const misuse *u = &misuses[m];
        acc_graph *g = ts_graph(ts_ctx), *other = ts_graph(ts_ctx);
        kit ok = make_kit(g), bad = make_kit(other);
        cr_expect_null(u->call(g, &ok, &bad), "case %zu (%s)", m,
                       u->op ? u->op : "stdlib");
        cr_expect_eq(acc_graph_status(g), ACC_ERR_INVALID_ARGUMENT,
                     "case %zu: %s", m, acc_graph_last_error(g));
        const char *msg = acc_graph_last_error(g);
        cr_expect(strstr(msg, "belongs to another graph"), "case %zu: %s", m,
                  msg);
        if (u->op) {
            char head[64];
            snprintf(head, sizeof head, "%s: ", u->op);
            cr_expect(strncmp(msg, head, strlen(head)) == 0,
                      "case %zu: expected \"%s\" first: %s", m, head, msg);
        }
        if (u->what)
            cr_expect(strstr(msg, u->what), "case %zu: expected \"%s\": %s",
                      m, u->what, msg);
        cr_expect_str_eq(acc_last_error(), msg, "and on the thread");
        /* the graph the node came from is not affected */
        cr_expect_eq(acc_graph_status(other), ACC_OK);
        acc_graph_free(other);
        acc_graph_free(g);
    }
}

Test(ownership, the_error_is_sticky_and_compile_reports_it)
{
    acc_graph *g = ts_graph(ts_ctx), *other = ts_graph(ts_ctx);
    kit ok = make_kit(g), bad = make_kit(other);
    cr_assert_null(acc_map(g, ok.f1, bad.xs));
    char first[512];
    snprintf(first, sizeof first, "%s", acc_graph_last_error(g));
    /* later calls, even correct ones, return NULL; the first error stays */
    cr_expect_null(acc_map(g, ok.f1, ok.xs));
    cr_expect_null(acc_input(g, ts_sc(ACC_F32), 1));
    cr_expect_str_eq(acc_graph_last_error(g), first);
    acc_program *p = NULL;
    cr_expect_eq(acc_compile(ts_ctx, g, 1, &ok.xs, &p),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_expect_null(p);
    cr_expect(strstr(acc_last_error(), "map: the array belongs to another "
                                       "graph"), "%s", acc_last_error());
    /* the other graph compiles and runs */
    acc_node *r = acc_map(other, bad.f1, bad.xs);
    p = ts_compile(ts_ctx, other, r);
    float v[3] = {1, 2, 3};
    int64_t n = 3, zero = 0;
    acc_array in[2] = {ts_host(ACC_F32, 1, &n, v),
                       ts_host(ACC_I64, 1, &zero, NULL)};
    acc_array out = ts_empty_output();
    cr_expect_eq(ts_run_program(p, 2, in, 1, &out), ACC_OK, "%s",
                 acc_last_error());
    cr_expect_eq(((const float *)out.data[0])[2], 3.0f);
    acc_array_release(&out);
    acc_program_free(p);
    acc_graph_free(other);
    acc_graph_free(g);
}

Test(ownership, compiling_a_result_of_another_graph)
{
    acc_graph *g = ts_graph(ts_ctx), *other = ts_graph(ts_ctx);
    acc_node *mine = acc_input(g, ts_sc(ACC_F32), 1);
    acc_node *theirs = acc_input(other, ts_sc(ACC_F32), 1);
    acc_node *results[2] = {mine, theirs};
    acc_program *p = NULL;
    cr_expect_eq(acc_compile(ts_ctx, g, 2, results, &p),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_expect_null(p);
    cr_expect(strstr(acc_last_error(), "acc_compile: result 1 belongs to "
                                       "another graph"), "%s",
              acc_last_error());
    acc_graph_free(other);
    acc_graph_free(g);
}

Test(ownership, types_of_another_context_are_refused)
{
    acc_context *ctx2 = ts_context(ACC_BACKEND_INTERP);
    const acc_type *pair_fields[2] = {ts_sc(ACC_F32), ts_sc(ACC_I32)};
    const acc_type *pair2 = acc_type_tuple(ctx2, 2, pair_fields);
    const acc_type *vec2 = acc_type_array(ctx2, ts_sc(ACC_F32), 1);
    cr_assert_not_null(pair2);
    cr_assert_not_null(vec2);

    /* types API: parts of another context */
    const acc_type *mixed[2] = {ts_sc(ACC_F32), pair2};
    cr_expect_null(acc_type_tuple(ts_ctx, 2, mixed));
    cr_expect(strstr(acc_context_last_error(ts_ctx), "tuple type: field 1 "
                     "belongs to another context"), "%s",
              acc_context_last_error(ts_ctx));
    cr_expect_null(acc_type_array(ts_ctx, pair2, 1));
    cr_expect(strstr(acc_context_last_error(ts_ctx), "array type: the element "
                     "type belongs to another context"), "%s",
              acc_context_last_error(ts_ctx));

    /* builder: acc_input, acc_param */
    acc_graph *g = ts_graph(ts_ctx);
    cr_expect_null(acc_input(g, pair2, 1));
    cr_expect_eq(acc_graph_status(g), ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_graph_last_error(g), "input: the element type "
                     "belongs to another context"), "%s",
              acc_graph_last_error(g));
    acc_graph_free(g);
    g = ts_graph(ts_ctx);
    cr_expect_null(acc_param(g, vec2));
    cr_expect(strstr(acc_graph_last_error(g), "param: the type belongs to "
                     "another context"), "%s", acc_graph_last_error(g));
    acc_graph_free(g);

    /* static types (scalars, shapes) and this context's types are fine,
     * and types of either context still compare structurally */
    g = ts_graph(ts_ctx);
    const acc_type *pair1 = acc_type_tuple(ts_ctx, 2, pair_fields);
    cr_expect_not_null(acc_input(g, ts_sc(ACC_F64), 1));
    cr_expect_not_null(acc_input(g, pair1, 2));
    cr_expect_not_null(acc_param(g, acc_type_shape(2)));
    cr_expect_eq(acc_graph_status(g), ACC_OK, "%s", acc_graph_last_error(g));
    cr_expect(acc_type_equal(pair1, pair2));
    acc_graph_free(g);
    acc_context_destroy(ctx2);
}

Test(ownership, pointers_that_are_not_nodes_or_types)
{
    /* readable memory that is neither (a stale or wrong pointer): the
     * magic field tells it apart before anything else is read */
    uint64_t junk[64];
    memset(junk, 0x5a, sizeof junk);
    acc_node *not_node = (acc_node *)(void *)junk;
    const acc_type *not_type = (const acc_type *)(const void *)junk;

    acc_graph *g = ts_graph(ts_ctx);
    kit ok = make_kit(g);
    cr_expect_null(acc_node_type(not_node));
    cr_expect_null(acc_map(g, ok.f1, not_node));
    cr_expect_eq(acc_graph_status(g), ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_graph_last_error(g), "map: the array is not a node"),
              "%s", acc_graph_last_error(g));
    acc_program *p = NULL;
    cr_expect_eq(acc_compile(ts_ctx, g, 1, &not_node, &p),
                 ACC_ERR_INVALID_ARGUMENT);
    acc_graph_free(g);

    g = ts_graph(ts_ctx);
    cr_expect_null(acc_input(g, not_type, 1));
    cr_expect(strstr(acc_graph_last_error(g), "input: the element type is not "
                     "a type"), "%s", acc_graph_last_error(g));
    acc_graph_free(g);
    g = ts_graph(ts_ctx);
    cr_expect_null(acc_param(g, not_type));
    cr_expect(strstr(acc_graph_last_error(g), "param: the type is not a type"),
              "%s", acc_graph_last_error(g));
    acc_graph_free(g);

    cr_expect_null(acc_type_array(ts_ctx, not_type, 1));
    cr_expect_null(acc_type_tuple(ts_ctx, 1, &not_type));
    cr_expect_eq(acc_type_get_kind(not_type), 0);
    cr_expect_eq(acc_type_get_rank(not_type), 0);
    cr_expect_eq(acc_type_leaf_count(not_type), 0);
    cr_expect_null(acc_type_get_elem(not_type));
    cr_expect_eq(acc_type_equal(not_type, not_type), 0);

    /* a run given a descriptor whose type is not a type */
    g = ts_graph(ts_ctx);
    kit k = make_kit(g);
    acc_node *r = acc_map(g, k.f1, k.xs);
    acc_node *results[1] = {r};
    p = ts_compile_n(ts_ctx, g, 1, results);
    float v[3] = {1, 2, 3};
    int64_t n = 3, zero = 0;
    acc_array in[2] = {ts_host(ACC_F32, 1, &n, v),
                       ts_host(ACC_I64, 1, &zero, NULL)};
    in[0].type = not_type;
    acc_array out = ts_empty_output();
    cr_expect_eq(acc_run(p, 2, in, 1, &out), ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_last_error(), "input 0: type does not point at a "
                                       "type"), "%s", acc_last_error());
    cr_expect_null(out.data[0]);
    acc_program_free(p);
    acc_graph_free(g);
}
