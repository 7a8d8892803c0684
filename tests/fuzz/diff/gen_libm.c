/*
 * gen_libm.c — libm outputs: outputs that are one libm function (exp,
 * log, sin, ..., atan2, **, logBase) of arguments every backend computes
 * exactly alike (a leaf of a program input, converted to f32 or f64,
 * perhaps scaled by a constant, or a constant alone, which the C compiler
 * folds).  LANGUAGE.md does not fix libm results, so such an output is
 * compared within dz_libm_ulps (compare.c, DZ_CMP_LIBM) and a libm result
 * never flows into other code, where a last-place difference could turn
 * into any other (a comparison, a conversion, floor): that is what the
 * switch (d) leaves out elsewhere.
 *
 * The outputs come from a random stream of their own, after the rest of
 * the program is made, so they do not change the program a seed gives
 * (nor the regression seeds).  None is made for backends whose libm is
 * another one (exact_math: cuda), whose bound is not this one.
 */
#include "gen.h"

static const acc_primop unary[] = {
    ACC_OP_EXP, ACC_OP_LOG, ACC_OP_SIN, ACC_OP_COS, ACC_OP_TAN, ACC_OP_ASIN,
    ACC_OP_ACOS, ACC_OP_ATAN, ACC_OP_SINH, ACC_OP_COSH, ACC_OP_TANH};
static const acc_primop binary[] = {ACC_OP_ATAN2, ACC_OP_POW,
                                    ACC_OP_LOGBASE};
enum { N_UNARY = sizeof unary / sizeof *unary,
       N_BINARY = sizeof binary / sizeof *binary };

/* A random scalar leaf of value v of type t. */
static acc_node *any_leaf(dz_gen *s, acc_node *v, const acc_type *t)
{
    while (acc_type_get_kind(t) == ACC_TYPE_TUPLE) {
        size_t i = dz_rnd(&s->rng, (uint32_t)acc_type_get_arity(t));
        v = acc_get(s->g, v, i);
        t = acc_type_get_field(t, i);
    }
    return v;
}

/* An argument of type ft: a leaf of the element x (of type e), converted
 * and perhaps scaled into the functions' interesting ranges, or a
 * constant (edge values included). */
static acc_node *argument(dz_gen *s, acc_node *x, const acc_type *e,
                          acc_scalar ft)
{
    static const double scale[] = {0x1p-6, 0.1, 0.5, 3.0, 1e-3, -1.0, 1e-300};
    if (dz_chance(&s->rng, 1, 6))
        return dz_const(s, ft, 0);
    acc_node *a = any_leaf(s, x, e);
    if (acc_type_get_scalar(acc_node_type(a)) != ft)
        a = acc_convert(s->g, a, ft);
    if (dz_chance(&s->rng, 1, 2)) {
        double c = scale[dz_rnd(&s->rng, sizeof scale / sizeof *scale)];
        a = acc_binop(s->g, ACC_OP_MUL, a, acc_const_f64(s->g, ft, c));
    }
    return a;
}

static void libm_output(dz_gen *s, int n_inputs)
{
    const dz_term *x = &s->pool[dz_rnd(&s->rng, (uint32_t)n_inputs)];
    const acc_type *e = dz_elem(x->n);
    acc_scalar ft = dz_chance(&s->rng, 1, 2) ? ACC_F32 : ACC_F64;
    uint32_t k = dz_rnd(&s->rng, N_UNARY + N_BINARY);
    acc_primop op = k < N_UNARY ? unary[k] : binary[k - N_UNARY];
    acc_node *p = dz_param(s, e);
    acc_node *a = argument(s, p, e, ft);
    acc_node *body = k < N_UNARY
                         ? acc_unop(s->g, op, a)
                         : acc_binop(s->g, op, a, argument(s, p, e, ft));
    dz_program *pr = s->prog;
    size_t before = pr->n_out;
    dz_add_output(s, acc_map(s->g, dz_lam1(s, p, body), x->n), DZ_CMP_LIBM,
                  NULL);
    if (pr->n_out > before) {
        pr->ulps[before] = dz_libm_ulps(op, ft);
        dz_mark(s, DZ_C_LIBM);
    }
}

void dz_libm_outputs(dz_gen *s, uint64_t seed, int n_inputs)
{
    if (s->opt->exact_math || n_inputs < 1)
        return;
    s->rng = seed * 0x9e3779b97f4a7c15ull + 0x6c69626d; /* "libm" */
    int n = (int)dz_rnd(&s->rng, 3);
    for (int i = 0; i < n; i++)
        libm_output(s, n_inputs);
}
