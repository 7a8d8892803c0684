/*
 * test_cpu_expand_leaves.c — expand whose get function returns a
 * component of its element as it is (no computation), on the CPU backend
 * against the interpreter.  The CPU code generator used to take the
 * expression of such a leaf, the name of a local copy of the element's
 * component, from a buffer that had gone out of scope, and wrote garbage
 * into the kernel's source (found by the differential fuzzer,
 * tests/fuzz/diff: the compiler refused the kernel, or, with other stack
 * contents, could have read another variable).
 */
#include <criterion/criterion.h>

#include "cpu_support.h"
#include "support.h"

TestSuite(cpu_expand_leaves, .init = ts_make_cache_dir,
          .fini = ts_remove_cache_dir);

/* The element type ((u64, (i64, u32), u8)) of the source vector, in
 * ctx's types. */
static const acc_type *elem_type(acc_context *ctx)
{
    const acc_type *inner[2] = {ts_sc(ACC_I64), ts_sc(ACC_U32)};
    const acc_type *f[3] = {ts_sc(ACC_U64), acc_type_tuple(ctx, 2, inner),
                            ts_sc(ACC_U8)};
    return acc_type_tuple(ctx, 3, f);
}

/* The same type in g's context: the type of a value of it. */
static const acc_type *elem_type_in(acc_graph *g)
{
    acc_node *inner[2] = {ts_i64(g, 0), acc_const_i64(g, ACC_U32, 0)};
    acc_node *f[3] = {acc_const_i64(g, ACC_U64, 0), acc_tuple(g, 2, inner),
                      acc_const_i64(g, ACC_U8, 0)};
    return acc_node_type(acc_tuple(g, 3, f));
}

/* expand (\x -> i64 of x's i64 leaf mod 4) (\x k -> GET) xs, where GET is
 * x's u32 leaf (arg 0), or the pair ([k mod 5], that leaf) permuted into
 * 5 bins with max (arg 1). */
static acc_node *build(acc_graph *g, const void *arg)
{
    int permuted = *(const int *)arg;
    const acc_type *e = elem_type_in(g);
    acc_node *xs = acc_input(g, e, 1);
    acc_node *v = acc_param(g, e);
    acc_node *size = ts_lam1(g, v, acc_binop(g, ACC_OP_MOD,
                                            acc_get(g, acc_get(g, v, 1), 0),
                                            ts_i64(g, 4)));
    acc_node *x = acc_param(g, e), *k = acc_param(g, ts_sc(ACC_I64));
    acc_node *leaf = acc_get(g, acc_get(g, x, 1), 1);
    if (!permuted)
        return acc_expand(g, size, ts_lam2(g, x, k, leaf), xs);
    acc_node *bin = acc_binop(g, ACC_OP_MOD, k, ts_i64(g, 5));
    acc_node *pair[2] = {ts_idx1(g, bin), leaf};
    acc_node *get = ts_lam2(g, x, k, acc_tuple(g, 2, pair));
    acc_node *zero = acc_const_i64(g, ACC_U32, 0);
    return acc_permute_pairs(g, ts_binop_fn(g, ACC_U32, ACC_OP_MAX),
                             acc_fill(g, ts_shape1(g, 5), zero),
                             acc_expand(g, size, get, xs));
}

static void check(int permuted)
{
    enum { N = 37 };
    uint64_t a[N];
    int64_t b[N];
    uint32_t c[N];
    uint8_t d[N];
    for (int i = 0; i < N; i++) {
        a[i] = (uint64_t)i * 977;
        b[i] = i * 7 - 100;
        c[i] = (uint32_t)(i * 40503u);
        d[i] = (uint8_t)i;
    }
    acc_context *ctx = ts_context(ACC_BACKEND_INTERP);
    int64_t n = N;
    acc_array in = ts_host_array(elem_type(ctx), 1, &n,
                                 (void *[]){a, b, c, d});
    cr_expect_eq(ts_differ(build, &permuted, 1, &in, 0, 0), ACC_OK);
    acc_context_destroy(ctx);
}

Test(cpu_expand_leaves, expand_returning_a_component)
{
    check(0);
}

Test(cpu_expand_leaves, permute_over_expand_returning_a_component)
{
    check(1);
}
