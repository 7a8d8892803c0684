/*
 * interp_state.h — the state of one interpreter run, shared by the scalar
 * and the array evaluator.
 *
 * Scalar values live in per-node slots (ir_program.slot_offset): a node's
 * evaluation never nests inside itself (the program is a DAG and functions
 * are not recursive), so one slot range per node is enough and evaluation
 * allocates nothing.  Array values are memoised per node for the run.
 */
#ifndef ACC_CORE_BACKEND_INTERP_STATE_H
#define ACC_CORE_BACKEND_INTERP_STATE_H

#include "core/backend/interp/interp.h"
#include "core/ir/value.h"

typedef struct interp_value {
    size_t n;            /* array leaves; 0 = not evaluated yet */
    rt_array **arrays;
} interp_value;

typedef struct interp {
    const ir_program *p;
    rt_array *const *inputs;
    diag *d;
    ir_value *slots;      /* p->n_slots values */
    interp_value *arrays; /* per node id */
} interp;

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
/* Evaluates an array term (memoised); NULL after recording an error. */
const interp_value *interp_eval_array(interp *st, const ir_node *n);
/* The single array of an array term of array type. */
rt_array *interp_array_of(interp *st, const ir_node *n);

#endif
