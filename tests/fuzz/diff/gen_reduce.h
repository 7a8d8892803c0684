/*
 * gen_reduce.h — combining functions and reductions (gen_reduce.c), used
 * by the consumers (gen_consume.c).
 */
#ifndef ACCEL_TESTS_FUZZ_GEN_REDUCE_H
#define ACCEL_TESTS_FUZZ_GEN_REDUCE_H

#include "gen.h"

/* A combining function with what goes with it. */
typedef struct dz_comb {
    acc_node *f;    /* \a b -> ... */
    acc_node *z;    /* a seed suiting f */
    acc_node *prep; /* \x -> ..., applied to the operand first; or NULL */
    dz_cmp cmp;     /* how the result is compared */
} dz_comb;

/* f for element type t: commutative (permute) or not; `ordered` allows a
 * non-associative (-) (scans, which must then run in order). */
int dz_combiner(dz_gen *s, const acc_type *t, int commutative, int ordered,
                dz_comb *out);
/* (+) with seed 0 on scalar type sc. */
void dz_plus(dz_gen *s, acc_scalar sc, dz_comb *out);
/* map prep xs, or xs. */
acc_node *dz_prepare(dz_gen *s, const dz_comb *c, acc_node *xs);

typedef enum dz_red_kind {
    R_FOLD, R_FOLD1, R_FOLD_ALL, R_FOLD1_ALL, R_FOLD_SEG, R_FOLD_SEG_OFFSETS,
    R_FOLD1_SEG, R_SCAN, R_SCAN_SEG, R_PERMUTE, R_PERMUTE_PAIRS
} dz_red_kind;

/* One reduction, so that it can be built twice: over the values and over
 * the shadow's tags. */
typedef struct dz_recipe {
    dz_red_kind kind;
    acc_scan_kind scan; /* R_SCAN, R_SCAN_SEG */
    int component;      /* of a primed scan: 0 the scanned values, 1 the totals */
    acc_node *seg;      /* lengths or offsets */
    acc_node *index;    /* R_PERMUTE: the index function */
} dz_recipe;

/* The reduction r by f with seed z (or defaults, for permutes) of xs. */
acc_node *dz_reduce(dz_gen *s, const dz_recipe *r, acc_node *f, acc_node *z,
                    acc_node *xs);
/* Its shadow (gen_reduce.c) over the same z and xs. */
acc_node *dz_shadow(dz_gen *s, const dz_recipe *r, acc_node *z, acc_node *xs);
/* Builds the reduction: an exact one becomes *out (rank `rank`) for the
 * pool, a float (+)/(*) one an output with its shadow (out->n NULL). */
void dz_emit_reduction(dz_gen *s, const dz_recipe *r, const dz_comb *c,
                       acc_node *z, acc_node *xs, dz_term *out, int rank);

#endif
