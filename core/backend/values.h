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

#include <stdatomic.h>

enum { VALUES_HELD = 2 };

typedef struct run_value {
    size_t n;          /* array leaves; 0: no value */
    rt_array **arrays; /* owned references (`held` when they fit) */
    diag *poison;      /* a lazy step's error, or NULL */
    rt_array *held[VALUES_HELD]; /* a value of few leaves: no allocation */
} run_value;

/* A program's spare table: the table of a run that ended, kept (empty)
 * for the next run of the program, so that a run neither allocates nor
 * clears one.  Runs of one program on many threads at once take it in
 * turn: a run takes it or, when another run holds it, makes its own; at
 * the end it is given back unless another is kept already (atomic
 * exchanges, no lock). */
typedef struct values_spare values_spare;
typedef _Atomic(values_spare *) values_cache;

typedef struct run_values {
    const ir_program *ir;
    const uint8_t *is_step; /* per node: a step computes it (schedule) */
    run_value *v;           /* per node id */
    uint32_t *temps;        /* values made since the step began */
    size_t n_temps, cap_temps;
    size_t n_live;          /* nodes holding a value (or a poison) */
    values_spare *block;    /* the memory of v (and where temps goes) */
    values_cache *cache;    /* where the table is given back, or NULL */
} run_values;

/* Errors (core/base/diag.h): the functions that can fail record the
 * first error on the run's diag d, out of host memory through diag_oom,
 * and return d's status afterwards. */

/* A table for a run of ir whose steps are is_step: the spare one of
 * `cache` (the program's; may be NULL) when there is one, else new. */
acc_status values_init(run_values *vs, const ir_program *ir,
                       const uint8_t *is_step, values_cache *cache, diag *d);
/* Releases every value left (visiting the nodes only when a value is
 * left: a run that completed released them all as the schedule says),
 * then gives the empty table back to its cache or frees it. */
void values_free(run_values *vs);
/* Frees the spare table of a cache (when its program is freed). */
void values_cache_clear(values_cache *cache);
/* At least `bytes` of memory for the host evaluator's state of this run
 * (its scalar slots: core/backend/interp), kept with the table between
 * runs, so that a run does not allocate one sized to the program; its
 * contents are undefined (the last run's).  Valid until values_free;
 * NULL after recording out of host memory on d. */
void *values_host_block(run_values *vs, size_t bytes, diag *d);

/* Stores `arrays` (count of them, owned references, taken over; released
 * on failure) as node id's value; a value that no step computes is a
 * temporary. */
acc_status values_set(run_values *vs, uint32_t id, rt_array **arrays,
                      size_t count, diag *d);
/* Binds an input or an array parameter: new references to `arrays` as
 * id's value, kept until released (not a temporary). */
acc_status values_bind(run_values *vs, uint32_t id, rt_array *const *arrays,
                       size_t count, diag *d);
/* Moves the error recorded on d (a lazy step's runtime error) into id's
 * value, which it replaces, and clears d: ACC_OK, or out of host memory
 * recorded on d in place of that error. */
acc_status values_poison(run_values *vs, uint32_t id, diag *d);
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
