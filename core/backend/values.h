/*
 * values.h — the values of one run: per IR node id, the arrays computed
 * for it (one per array leaf of its type), shared by the executor, the
 * host evaluator and every backend that runs a step.
 *
 * A step stores its node's value; the schedule says when each value is
 * released (core/schedule/schedule.h).  What a step computes on the way
 * (an embedded producer the interpreter evaluates, the component of a
 * tuple it looks up) is a temporary, released when the step ends.  A lazy
 * step's runtime error is kept as its value (poisoned): whoever reads the
 * value gets the error, as if the value were evaluated at that read.
 */
#ifndef ACC_CORE_BACKEND_VALUES_H
#define ACC_CORE_BACKEND_VALUES_H

#include "core/backend/rt_array.h"
#include "core/ir/program_ir.h"

typedef struct run_value {
    size_t n;          /* array leaves; 0: no value */
    rt_array **arrays; /* owned references */
    diag *poison;      /* a lazy step's error, or NULL */
} run_value;

typedef struct run_values {
    const ir_program *ir;
    const uint8_t *is_step; /* per node: a step computes it (schedule) */
    run_value *v;           /* per node id */
    uint32_t *temps;        /* values made since the step began */
    size_t n_temps, cap_temps;
} run_values;

/* A table for a run of ir whose steps are is_step.  0 after recording
 * ACC_ERR_OUT_OF_HOST_MEMORY on d. */
int values_init(run_values *vs, const ir_program *ir, const uint8_t *is_step,
                diag *d);
/* Releases every value left. */
void values_free(run_values *vs);

/* Stores `arrays` (count of them, owned references, taken over) as node
 * id's value; a value that no step computes is a temporary.  0 after
 * recording ACC_ERR_OUT_OF_HOST_MEMORY (the arrays are released). */
int values_set(run_values *vs, uint32_t id, rt_array **arrays, size_t count,
               diag *d);
/* Binds an input or an array parameter: new references to `arrays` as
 * id's value, kept until released (not a temporary). */
int values_bind(run_values *vs, uint32_t id, rt_array *const *arrays,
                size_t count, diag *d);
/* A copy of d as id's value (it has none). */
int values_poison(run_values *vs, uint32_t id, const diag *d);
/* Releases id's value (NULL-safe on an empty one). */
void values_release(run_values *vs, uint32_t id);
/* Releases the temporaries of the step that ended. */
void values_end_step(run_values *vs);

/* Whether id has a value (poisoned or not). */
static inline int values_has(const run_values *vs, uint32_t id)
{
    return vs->v[id].n > 0 || vs->v[id].poison != NULL;
}

#endif
