/*
 * host_eval.h — host-side evaluation that every backend's compiled steps
 * need before a launch: the extents of shape terms and of a consumer's
 * source, seeds and boundary constants, segment descriptors read and
 * checked exactly as the interpreter checks them.  Terms are evaluated
 * by the reference interpreter's scalar evaluator (interp_state.h); long
 * descriptors are read over a thread pool when one is given.
 *
 * Conventions: a function returns ACC_OK, or the status of the error it
 * recorded on the run's diag (st->d; ACC_ERR_INTERNAL when an evaluation
 * failed without recording one, so no failure passes as a success).  A
 * step the interpreter is to evaluate instead, because it names the
 * error (a negative extent, a refused segment descriptor, an empty fold1
 * row), is an outcome, not an error: *replay is set to 1 and ACC_OK
 * returned.  *replay is left as it is otherwise: a driver is entered
 * with it 0 (backend.h: run_step) and returns it as the backend
 * interface's replay request.
 */
#ifndef ACC_CORE_BACKEND_HOST_HOST_EVAL_H
#define ACC_CORE_BACKEND_HOST_HOST_EVAL_H

#include "core/backend/host/pool.h"
#include "core/backend/interp/interp_state.h"

/* What a consumer's driver evaluates on the host before any kernel runs:
 * the extents of its source, a segmented consumer's offsets, the seed. */
typedef struct host_source {
    int64_t ext[ACC_MAX_RANK];
    int64_t inner, rows; /* the innermost extent; the others' product */
    int64_t k, *off;     /* segmented: k segments, off[0..k] (malloc'd) */
    int seeded;          /* the seed's leaves are in seed */
    ir_value seed[ACC_MAX_COMPONENTS];
} host_source;

/* The source xs of consumer c (fold, fold1, foldSeg..., the scans, plain
 * and segmented): host_source_extents, then the descriptor of a segmented
 * one (host_segments), refusing what the interpreter refuses before it
 * computes (an empty fold1, scanl1 or scanr1 row, an empty fold1Seg
 * segment in a non-empty array, a bad descriptor), then the seed of a
 * seeded one (host_eval_seed).  A long descriptor is read over pool pl
 * (NULL: on this thread).  src->off is to be freed (pool_scratch_done;
 * NULL unless ACC_OK without a replay for a segmented consumer). */
acc_status host_source_eval(interp *st, pool *pl, const ir_node *c,
                            const ir_node *xs, host_source *src, int *replay);

/* Extents of a shape term evaluated on the host; a replay for a
 * negative extent or extents whose product is beyond int64 (the
 * interpreter reports them). */
acc_status host_shape_extents(interp *st, const ir_node *shape, int64_t *ext,
                              int *replay);
/* An expansion's offsets off[0..n] (malloc'd), or NULL when out of memory
 * or when n + 1 offsets cannot be counted in bytes (a source of 2^61
 * elements or more, possible for an embedded producer that allocates
 * nothing): the caller returns the step to the interpreter. */
int64_t *host_alloc_offsets(int64_t n);
/* The extents of a consumer's source: an embedded producer's shape, or
 * the manifest array's.  Same conventions as host_shape_extents. */
acc_status host_source_extents(interp *st, const ir_node *xs, int64_t *ext,
                               int *replay);
/* The seed leaves of a seeded consumer (term z) into seed. */
acc_status host_eval_seed(interp *st, const ir_node *z, const acc_type *elem,
                          ir_value *seed);

/* Side i of stencil or stencil2 n (its array n->args[1 + i]): its
 * extents, and its boundary constant into constant[] when it has one;
 * *barg_at is the next boundary argument of n (1 + sides at first).
 * Same conventions as host_shape_extents. */
acc_status host_stencil_side(interp *st, const ir_node *n, int i,
                             uint32_t *barg_at, int64_t *ext,
                             ir_value *constant, int *replay);

/* The offsets off[0..k] (malloc'd) of the segments of a row of `inner`
 * elements, read from descriptor term `seg` (lengths, or offsets for
 * foldSeg') with exactly the checks of interp_read_segments (a replay
 * when the descriptor is refused: the interpreter reports why; out of
 * memory: diag_oom naming `op`).  Many lengths are summed over pool pl
 * (NULL: on this thread). */
acc_status host_segments(interp *st, pool *pl, const ir_node *seg,
                         int offsets, int64_t inner, const char *op,
                         int64_t **off, int64_t *k, int *replay);

/* ---- a driver's answer ------------------------------------------------- */

/* The step goes back to the interpreter, which runs it or names its error
 * (a kernel's runtime error, a negative size): ACC_OK with *replay set.
 * An outcome, not an error: nothing is recorded. */
acc_status host_replay(int *replay);
/* The status recorded on d by a failed call (a NULL result of
 * interp_result or rt_alloc): ACC_ERR_INTERNAL is recorded when nothing
 * was, so that no failure passes as a success. */
acc_status host_recorded(diag *d);

#endif
