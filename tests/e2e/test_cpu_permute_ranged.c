/*
 * test_cpu_permute_ranged.c — the ranged pass of permute' over an
 * expansion (core/skeletons/cpu/permute.c.in, ACC_RANGED; the proof in
 * core/codegen/expand_affine.c) against the reference interpreter, under
 * every strategy (ts_differ_permute_strategies: "range" forced, and the
 * host's choice, which takes it for these sizes) on 1, 2 and 3 threads.
 * The expansions here stress what the pass must get right: targets equal
 * to the result's extent (ignored, or out of range), targets below 0,
 * duplicates, no source elements, targets that fall as k grows or wrap
 * around i64 (the kernel's per-element check must then visit every
 * position), and forms that are not affine at all (refused at compile
 * time: `range` then falls back to the host's choice).  A wrong bound
 * would skip positions, and the marks would differ from the interpreter's.
 * Every test skips when there is no working C compiler.
 */
#include <stdint.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "accel.h"
#include "cpu_support.h"
#include "support.h"

static void setup(void)
{
    ts_make_cache_dir();
}

static void teardown(void)
{
    unsetenv("ACC_CPU_PERMUTE");
    ts_remove_cache_dir();
}

TestSuite(cpu_permute_ranged, .init = setup, .fini = teardown);

/* The targets of get p k (a source element p, n the result's extent). */
typedef enum target_kind {
    T_SIEVE,     /* [(k + 2) p], no guard (size quot (n - p) p) */
    T_DOWN,      /* m = n - 1 - k p: if 0 <= m && m < n then [m] else
                    ignore */
    T_WRAP,      /* m = (k + 1) p: likewise */
    T_BELOW,     /* [k p - 5]: below 0 at k = 0 */
    T_MOD,       /* [(k p) `mod` n]: not affine */
    T_TWO_WAY    /* if k `rem` 2 == 0 then [k] else [n - 1 - k]: not affine */
} target_kind;

static acc_node *bin(acc_graph *g, acc_primop op, acc_node *a, acc_node *b)
{
    return acc_binop(g, op, a, b);
}

/* if 0 <= m && m < n then [m] else ignore */
static acc_node *guarded(acc_graph *g, acc_node *m, acc_node *n)
{
    acc_node *in = bin(g, ACC_OP_LAND, bin(g, ACC_OP_LE, ts_i64(g, 0), m),
                       bin(g, ACC_OP_LT, m, n));
    return acc_cond(g, in, ts_idx1(g, m), acc_ignore(g, 1));
}

static acc_node *target_of(acc_graph *g, target_kind kind, acc_node *p,
                           acc_node *k, acc_node *n)
{
    acc_node *kp = bin(g, ACC_OP_MUL, k, p), *zero = ts_i64(g, 0), *m;
    switch (kind) {
    case T_SIEVE:
        return ts_idx1(g, bin(g, ACC_OP_MUL, bin(g, ACC_OP_ADD, k,
                                                 ts_i64(g, 2)), p));
    case T_DOWN:
        m = bin(g, ACC_OP_SUB, bin(g, ACC_OP_SUB, n, ts_i64(g, 1)), kp);
        return guarded(g, m, n);
    case T_WRAP:
        m = bin(g, ACC_OP_MUL, bin(g, ACC_OP_ADD, k, ts_i64(g, 1)), p);
        return guarded(g, m, n);
    case T_BELOW:
        return ts_idx1(g, bin(g, ACC_OP_SUB, kp, ts_i64(g, 5)));
    case T_MOD:
        return ts_idx1(g, bin(g, ACC_OP_MOD, kp, n));
    case T_TWO_WAY:
        return acc_cond(g, bin(g, ACC_OP_EQ, bin(g, ACC_OP_REM, k,
                                                 ts_i64(g, 2)), zero),
                        ts_idx1(g, k),
                        ts_idx1(g, bin(g, ACC_OP_SUB, bin(g, ACC_OP_SUB, n,
                                       ts_i64(g, 1)), k)));
    }
    return NULL;
}

/* permute' (+) (fill [n] 0) (expand size (\p k -> (target, 1)) ps), size
 * quot (n - p) p for T_SIEVE, else 3000 positions per element. */
static acc_node *build_marks(acc_graph *g, const void *arg)
{
    target_kind kind = *(const target_kind *)arg;
    acc_node *ps = acc_input(g, ts_sc(ACC_I64), 1);
    acc_node *n = acc_the(g, acc_input(g, ts_sc(ACC_I64), 0));
    acc_node *x = acc_param(g, ts_sc(ACC_I64));
    acc_node *size = ts_lam1(g, x, kind == T_SIEVE
        ? bin(g, ACC_OP_QUOT, bin(g, ACC_OP_SUB, n, x), x) : ts_i64(g, 3000));
    acc_node *p = acc_param(g, ts_sc(ACC_I64)),
             *k = acc_param(g, ts_sc(ACC_I64));
    acc_node *pair[2] = {target_of(g, kind, p, k, n), ts_i32(g, 1)};
    acc_node *get = ts_lam2(g, p, k, acc_tuple(g, 2, pair));
    return acc_permute_pairs(g, ts_binop_fn(g, ACC_I32, ACC_OP_ADD),
                             acc_fill(g, ts_idx1(g, n), ts_i32(g, 0)),
                             acc_expand(g, size, get, ps));
}

static void marks(target_kind kind, int64_t np, int64_t *ps, int64_t n,
                  acc_status want)
{
    acc_array in[2] = {ts_host(ACC_I64, 1, &np, ps),
                       ts_host(ACC_I64, 0, NULL, &n)};
    ts_differ_permute_strategies(build_marks, &kind, 2, in, want);
}

Test(cpu_permute_ranged, sieve_ends_duplicates_and_no_primes)
{
    static int64_t ps[1000];
    /* 210000 = 2 3 5 7 10^4: the last multiple of those primes is n
     * itself, out of range without the guard; 200003 is prime: none is */
    int64_t np = ts_primes_below_root(210000, ps, 1000);
    marks(T_SIEVE, np, ps, 200003, ACC_OK);
    marks(T_SIEVE, np, ps, 210000, ACC_ERR_RUNTIME);
    /* with the guard (ts_sieve_marks): ignored; and no primes at all */
    int64_t n = 210000, none = 0;
    acc_array in[2] = {ts_host(ACC_I64, 1, &np, ps),
                       ts_host(ACC_I64, 0, NULL, &n)};
    ts_differ_permute_strategies(ts_sieve_build, NULL, 2, in, ACC_OK);
    in[0] = ts_host(ACC_I64, 1, &none, ps);
    ts_differ_permute_strategies(ts_sieve_build, NULL, 2, in, ACC_OK);
}

Test(cpu_permute_ranged, falling_wrapping_and_negative_targets)
{
    /* 2^62 wraps around at k = 1 and lands on 0 at k = 3; negative and
     * zero steps; 60 elements of 3000 positions: the host's choice is the
     * ranged pass too */
    static int64_t ps[60];
    for (int i = 0; i < 60; i++)
        ps[i] = i % 10 == 0 ? INT64_C(1) << 62 : i % 10 == 1 ? -(i + 2)
              : i % 10 == 2 ? 0 : 7 * i + 1;
    marks(T_DOWN, 60, ps, 150001, ACC_OK);
    marks(T_WRAP, 60, ps, 150001, ACC_OK);
    marks(T_BELOW, 57, ps + 3, 1, ACC_ERR_RUNTIME); /* k = 0: [-5] */
}

Test(cpu_permute_ranged, forms_that_are_not_affine)
{
    static int64_t ps[60];
    for (int i = 0; i < 60; i++)
        ps[i] = 3 * i + 1;
    marks(T_MOD, 60, ps, 100003, ACC_OK);
    marks(T_TWO_WAY, 60, ps, 100003, ACC_OK);
}
