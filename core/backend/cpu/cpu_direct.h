/*
 * cpu_direct.h — direct runs: a program that is one fold kernel over its
 * inputs, run without the executor.
 *
 * A small run's time is mostly acc_run's own (values, the host evaluator,
 * wrappers, destinations: about a microsecond), which for a dot product
 * of 10^4 elements is as long as the kernel.  A program whose schedule is
 * a single fold step (fold or fold1, optionally with a map after it),
 * compiled to a kernel whose arrays are all program inputs, whose source
 * shape and seed are terms of the inputs' extents only (no element is
 * read), is marked at build time.  Its runs go to the executor as before
 * until the host evaluator has computed the source's extents and the seed
 * for some extents of the inputs: the fold driver then remembers them,
 * keyed by every input's extents.  A later run with the same extents
 * (compile once, run many) calls the kernel directly on what was
 * remembered: the same kernel, the same arguments, the same split over
 * the threads, so the result is the executor's bit for bit.
 *
 * Promised: a direct run is only ever an outcome the executor would have
 * produced.  It is tried before the executor checks the arguments, so it
 * takes only descriptors the executor accepts (cpu_direct_run checks
 * them).  Anything else declines and the executor checks and runs the
 * program: a descriptor it refuses (it reports it as for any program),
 * extents not remembered, an empty source, a caller's output buffers of
 * another type or shape or overlapping an input (an output without
 * buffers gets new ones, as the executor gives it),
 * more than CPU_FEW_ARRAYS kernel arrays, a kernel that records a
 * runtime error (the executor then runs it again and reports the error
 * with the interpreter's message), a run with a stop request (deadline,
 * cancel) or an execution handle.  ACC_DISABLE=direct at compile time
 * leaves programs unmarked (to compare, tests/e2e/test_direct_runs.c).
 * Remembered extents: at most CPU_DIRECT_SLOTS per program, each
 * published once (an atomic pointer) and never replaced, so concurrent
 * runs read them without a lock.
 */
#ifndef ACC_CORE_BACKEND_CPU_CPU_DIRECT_H
#define ACC_CORE_BACKEND_CPU_CPU_DIRECT_H

#include "core/backend/cpu/cpu_launch.h"
#include "core/schedule/schedule.h"

#include <stdatomic.h>

/* Extents of every input, flattened: at most this many (else no mark);
 * inputs: at most CPU_DIRECT_INPUTS. */
enum { CPU_DIRECT_KEY_MAX = 32, CPU_DIRECT_SLOTS = 4, CPU_DIRECT_INPUTS = 16 };

/* What the host evaluator computed for one set of input extents, and
 * the kernel's arguments made from it. */
typedef struct cpu_direct_memo {
    int64_t key[CPU_DIRECT_KEY_MAX];
    int64_t ext[ACC_MAX_RANK];      /* the source's extents */
    ir_value seed[ACC_MAX_COMPONENTS];
    int64_t in_size[CPU_DIRECT_INPUTS]; /* each input's element count */
    int64_t rows;                   /* the result's element count */
    /* the launch's arguments but its arrays, result and error slot, as
     * the fold driver sets them (seed: this memo's) */
    cpu_kargs args;
} cpu_direct_memo;

/* One input of the signature, as a direct run checks it. */
typedef struct cpu_direct_input {
    const acc_type *elem;
    int32_t rank;
    uint32_t key_at;               /* its extents' place in a memo's key */
    uint32_t n_leaves;
    uint8_t leaf_bytes[ACC_MAX_COMPONENTS];
} cpu_direct_input;

/* A marked program's fold step, and the program's signature. */
typedef struct cpu_direct {
    const ir_program *ir;
    const cpu_node *kn;
    const ir_node *step;           /* the fold, or the map after it */
    size_t n_inputs;
    size_t key_len;                /* the inputs' ranks summed */
    uint32_t input_of[CPU_FEW_ARRAYS]; /* kernel array i: input number */
    cpu_direct_input in[CPU_DIRECT_INPUTS];
    const acc_type *out_elem;
    int32_t out_rank;              /* the source's rank - 1 */
    uint32_t out_leaves;
    uint8_t out_leaf_bytes[ACC_MAX_COMPONENTS];
    _Atomic(cpu_direct_memo *) slot[CPU_DIRECT_SLOTS];
    atomic_ullong runs;            /* direct runs so far (the plan says;
                                      concurrent ones may count once) */
} cpu_direct;

/* The mark of a built program whose schedule s qualifies (see above), or
 * NULL: none, or out of memory (a program without a mark only runs
 * through the executor, so nothing is recorded). */
cpu_direct *cpu_direct_mark(const ir_program *ir, const sched_program *s);
void cpu_direct_free(cpu_direct *m); /* NULL-safe */

/* For the plan of a marked program: how many extents are remembered and
 * how many runs went direct, as a line (text) or as a member of the
 * "cpu" object (JSON: cache_describe's json_extra) into buf.  0 (buf
 * empty) for NULL: an unmarked program. */
int cpu_direct_describe(cpu_direct *m, int json, char *buf, size_t size);

/* From the fold driver, after the host evaluator computed the source's
 * extents and seed for the run's inputs: kept for later runs with the
 * same extents, while a slot is free (nothing happens otherwise, an
 * allocation failure included). */
void cpu_direct_remember(cpu_direct *m, rt_array *const *inputs,
                         size_t n_inputs, const host_source *src);

/* A run of marked program m over the caller's arguments, before anything
 * has checked them: 1 when every descriptor is one the executor accepts
 * (this checks a narrower condition: the signature's types, ranks and
 * host memory, extents remembered, buffers present) and the output holds
 * the result (one kernel launched; into the caller's buffers, or into a
 * library-owned array when the caller gave none: its bytes in *bytes,
 * else 0); 0 when declined (see above; the descriptors are as they were,
 * the caller's buffers may have been written, as a failed run may write
 * them), and the executor checks the arguments and reports what is
 * wrong with them. */
int cpu_direct_run(cpu_direct *m, pool *pl, size_t n_inputs,
                   const acc_array *inputs, size_t n_outputs,
                   acc_array *outputs, uint64_t *bytes);

#endif
