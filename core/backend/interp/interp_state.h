/*
 * interp_state.h — the state of one interpreter run, shared by the scalar
 * and the array evaluator.
 *
 * Scalar values live in per-node slots (ir_program.slot_offset): a node's
 * evaluation never nests inside itself (the program is a DAG and functions
 * are not recursive), so one slot range per node is enough and evaluation
 * allocates nothing.  Array values are the run's (core/backend/values.h):
 * the executor stores what steps compute, the interpreter reads them and
 * computes, as temporaries, what the step it runs computes on the way.
 */
#ifndef ACC_CORE_BACKEND_INTERP_STATE_H
#define ACC_CORE_BACKEND_INTERP_STATE_H

#include "core/backend/interp/interp.h"
#include "core/ir/value.h"

typedef struct interp {
    run_env *env;
    const ir_program *p;
    run_values *values;   /* the run's (env->values) */
    diag *d;
    ir_value *slots;      /* p->n_slots values */
    const ir_value **vars; /* per let variable: the bound scalar value */
    exec_dests *dests;    /* the caller's buffers results may be computed
                             into, or NULL */
    run_stop *stop;       /* the run's stop request, or NULL */
    const ir_node *current; /* the step being run: the only one whose
                             value may be computed here */
    uint32_t applications; /* scalar function applications, counted
                             for the check every STOP_EVERY */
    uint8_t own_block;    /* the state's memory is its own, not the run's
                             values' (interp_begin) */
} interp;

/* A check point: when the run is to stop (cancelled, past its deadline),
 * records why on the run's diag, naming `where`, and returns 1. */
int interp_stopped(interp *st, const char *where);

static inline ir_value *interp_slot(interp *st, const ir_node *n)
{
    return st->slots + st->p->slot_offset[n->id];
}

/* Element `pos` of every leaf buffer of an array, as canonical values. */
static inline void interp_load_element(const rt_array *a, int64_t pos,
                                       ir_value *out)
{
    for (size_t i = 0; i < a->elem->n_leaves; i++)
        out[i] = val_load(a->data[i], a->elem->leaves[i], pos);
}

static inline void interp_store_element(rt_array *a, int64_t pos,
                                        const ir_value *v)
{
    for (size_t i = 0; i < a->elem->n_leaves; i++)
        val_store(a->data[i], a->elem->leaves[i], pos, v[i]);
}

/* Evaluates a scalar term; returns a pointer to its leaves (valid until the
 * node is evaluated again) or NULL after recording an error. */
const ir_value *interp_eval(interp *st, const ir_node *n);
/* Applies a lambda to argument leaf vectors (one per parameter). */
const ir_value *interp_apply(interp *st, const ir_node *lam,
                             const ir_value *const *args);
/* The value of an array term: the run's value of the step computing it,
 * or, for a term the step being run computes on the way (an embedded
 * producer, a component), a temporary computed now.  NULL after
 * recording an error (a poisoned value's error included). */
const run_value *interp_eval_array(interp *st, const ir_node *n);
/* The single array of an array term of array type, valid on the host
 * (downloaded first when a device backend left it on its device). */
rt_array *interp_array_of(interp *st, const ir_node *n);
/* The same array wherever it is valid: for reading its extents, or for a
 * backend's hook that moves it where its kernel needs it. */
rt_array *interp_array_raw(interp *st, const ir_node *n);

/* Extents are checked before anything is computed from them (an extent
 * near 2^63 must not overflow what is computed from it): a negative
 * extent, or extents whose product is beyond int64, is ACC_ERR_SHAPE
 * naming op.  interp_eval_extents reads a shape term into extents and
 * checks both; interp_check_size checks the product.  0 after the
 * error. */
int interp_eval_extents(interp *st, const ir_node *shape, const char *op,
                        int64_t *extents);
int interp_check_size(interp *st, const char *op, int32_t rank,
                      const int64_t *extents);

/* Structural operations, segmented reductions and scans (eval_struct.c,
 * eval_segments.c, eval_scan.c).  Reduces linear positions [lo, hi) of xs
 * (hi > lo) into acc as a balanced tree of applications of f that keeps
 * the order of the elements (eval_array.c; fold and the segmented folds).
 * interp_eval_scan fills out[0], and out[1] (the totals) for the primed
 * kinds.  All return NULL/0 after recording an error. */
int interp_reduce_range(interp *st, const ir_node *f, const rt_array *xs,
                        int64_t lo, int64_t hi, ir_value *acc);
rt_array *interp_eval_replicate(interp *st, const ir_node *n);
rt_array *interp_eval_slice(interp *st, const ir_node *n);
rt_array *interp_eval_fold_seg(interp *st, const ir_node *n);
int interp_eval_scan(interp *st, const ir_node *n, rt_array **out);
/* Reads a segment descriptor (a vector of any integer type holding
 * lengths, or offsets when `offsets`) for rows of `inner` elements into
 * malloc'd i64 offsets off[0..k] (off[0] = 0), setting *k to the number
 * of segments.  Negative lengths, u64 entries beyond 2^63-1 and bad
 * offsets are ACC_ERR_RUNTIME, segments beyond a row ACC_ERR_SHAPE, all
 * naming op. */
int64_t *interp_read_segments(interp *st, const char *op, const rt_array *seg,
                              int offsets, int64_t inner, int64_t *k);

/* Forward permutation, stencils and expansion (eval_permute.c,
 * eval_stencil.c, eval_expand.c).  The ignore target index (acc_ignore)
 * is represented as an index whose every component is INTERP_IGNORE;
 * permute and permute' drop elements sent there. */
#define INTERP_IGNORE INT64_MIN
const ir_value *interp_eval_ignore(interp *st, const ir_node *n);
rt_array *interp_eval_permute(interp *st, const ir_node *n);
rt_array *interp_eval_stencil(interp *st, const ir_node *n);
rt_array *interp_eval_expand(interp *st, const ir_node *n);

/* The array a hook's kernel computes node n's result into: the run's
 * destination for n when it has one of this element type and extents
 * (core/backend/destinations.h), else a new host array (rt_alloc, errors on
 * the run's diag). */
rt_array *interp_result(interp *st, const ir_node *n, const acc_type *elem,
                        int32_t rank, const int64_t *extents, const char *op);

/* A scalar foreign node (eval_foreign.c): its C function, or the
 * fallback.  (Array foreign nodes are steps: core/exec runs them.) */
const ir_value *interp_eval_foreign_exp(interp *st, const ir_node *n);

#endif
