/*
 * gen.h — the generator's state, shared by gen_*.c (not by the runner).
 *
 * A program is grown from a pool of array terms: the inputs first, then
 * one operation at a time, each taking its arguments from the pool and
 * adding its result.  Scalar functions are random expressions over the
 * lambda's parameters (and reads of pool arrays).  Every choice comes
 * from one random stream, so a seed gives the same program anywhere.
 */
#ifndef ACCEL_TESTS_FUZZ_GEN_H
#define ACCEL_TESTS_FUZZ_GEN_H

#include "diff.h"

/* Flags of a pool term. */
enum {
    DZ_T_INNER = 1,    /* innermost extent is N: segment descriptors fit */
    DZ_T_PRODUCER = 2, /* a fusible producer (map, generate, ...) */
    DZ_T_NARROW = 4,   /* elements converted from a 1-byte type */
    DZ_T_MAYFAIL = 8   /* computing it may fail on some data (a bad
                          segment, an empty fold1 row, a target out of
                          range, ...), or it reads such a term */
};

typedef struct dz_term {
    acc_node *n;
    int rank;
    unsigned flags;
} dz_term;

/* The scalar variables a function body may use: its parameters and the
 * values bound so far (a value used twice is a let after sharing
 * recovery). */
typedef struct dz_env {
    acc_node *var[DZ_ENV];
    int n;
    int reads; /* whether pool arrays may be read */
} dz_env;

typedef struct dz_gen {
    acc_context *ctx;
    acc_graph *g;
    uint64_t rng;
    const dz_options *opt;
    dz_program *prog;
    dz_term pool[DZ_POOL];
    int n_pool;
    int no_fail;        /* scalar code made now must not fail */
    int budget;         /* scalar nodes left for the current function */
    acc_node *indices, *segments, *offsets, *size, *huge;
    int strict;         /* see dz_program.strict */
    unsigned taint;     /* DZ_T_MAYFAIL of the terms the current operation
                           took, or of the operation itself */
} dz_gen;

/* ---- gen_types.c ---- */

int dz_is_int(acc_scalar s);    /* i8 .. u64 (not bool) */
int dz_is_signed(acc_scalar s);
int dz_is_float(acc_scalar s);
int dz_bits(acc_scalar s);
/* A random scalar type (every one equally likely). */
acc_scalar dz_any_scalar(uint64_t *rng);
/* A random element type: mostly scalars, sometimes (nested) tuples. */
const acc_type *dz_any_elem(dz_gen *s, int max_leaves);
const acc_type *dz_scalar_type(acc_scalar s);
const acc_type *dz_tuple_type(dz_gen *s, size_t n, const acc_type *const *f);
/* An edge-biased random value of type s as raw bits (little-endian in
 * the scalar's size); edge_pct: percentage of edge values. */
void dz_random_value(uint64_t *rng, acc_scalar s, int edge_pct, void *out);
/* A constant of type s (edge values included; without NaN when
 * no_nan). */
acc_node *dz_const(dz_gen *s, acc_scalar sc, int no_nan);
/* The constant 0 / 1 of scalar type sc (false / true for bool). */
acc_node *dz_zero(dz_gen *s, acc_scalar sc);
acc_node *dz_one(dz_gen *s, acc_scalar sc);
acc_node *dz_i64(dz_gen *s, int64_t v);

/* ---- gen_scalar.c ---- */

/* A random expression of value type t (scalar, tuple or shape). */
acc_node *dz_expr(dz_gen *s, dz_env *e, const acc_type *t, int depth);
/* A closed expression (no parameters) of type t. */
acc_node *dz_closed(dz_gen *s, const acc_type *t, int depth);
/* \p0 .. p(n-1) -> a random body of type result. */
acc_node *dz_fun(dz_gen *s, size_t n, const acc_type *const *params,
                 const acc_type *result, int depth);
/* An i64 in 0 .. extent-1 from i64 expression e, given that extent > 0
 * (mod); ext is an i64 node. */
acc_node *dz_wrap_index(dz_gen *s, acc_node *e, acc_node *ext);
/* xs ! ix for a valid index when possible: every component wrapped into
 * the extent; `fallback` (of the element type) when xs is empty. */
acc_node *dz_safe_read(dz_gen *s, dz_env *e, acc_node *xs, int rank,
                       int depth);
void dz_env_push(dz_env *e, acc_node *n);
/* A pool term scalar code may read whose element type has a leaf of type
 * sc (any when sc is 0); never one that may fail where failing is not
 * allowed.  NULL when there is none. */
const dz_term *dz_readable(dz_gen *s, acc_scalar sc);

/* ---- gen_libm.c ---- */

/* Adds 0 to 2 libm outputs over the first n_inputs pool terms (the value
 * inputs), from a random stream of seed's own. */
void dz_libm_outputs(dz_gen *s, uint64_t seed, int n_inputs);

/* ---- gen_produce.c / gen_consume.c: the operations ---- */

typedef int (*dz_op_fn)(dz_gen *s, dz_term *out);

typedef struct dz_op {
    dz_class cls;
    int weight;
    dz_op_fn make;
} dz_op;

extern const dz_op dz_producers[];
extern const size_t dz_n_producers;
extern const dz_op dz_consumers[];
extern const size_t dz_n_consumers;

/* ---- gen_program.c: the pool ---- */

/* A random pool term (recent ones preferred) satisfying the ranks mask
 * (bit r: rank r allowed); NULL when none. */
const dz_term *dz_pick(dz_gen *s, unsigned ranks);
/* The current operation may fail on some data: its result is marked. */
void dz_may_fail(dz_gen *s);
/* A pool term of exactly x's type other than x, else NULL. */
const dz_term *dz_pick_same_type(dz_gen *s, const dz_term *x);
void dz_mark(dz_gen *s, dz_class c);
void dz_feature(dz_gen *s, int f);
/* Marks every scalar leaf of t as reduced by a fold (base DZ_F_FOLD_LEAF)
 * or a scan (DZ_F_SCAN_LEAF). */
void dz_feature_leaves(dz_gen *s, int base, const acc_type *t);
/* Makes node n an output compared with rule cmp (shadow for SUM/PRODUCT). */
void dz_add_output(dz_gen *s, acc_node *n, dz_cmp cmp, acc_node *shadow);
const acc_type *dz_elem(const acc_node *array);
int dz_rank(const acc_node *array);
/* \p -> body helpers over the public builder. */
acc_node *dz_lam1(dz_gen *s, acc_node *p, acc_node *body);
acc_node *dz_lam2(dz_gen *s, acc_node *a, acc_node *b, acc_node *body);
acc_node *dz_param(dz_gen *s, const acc_type *t);

#endif
