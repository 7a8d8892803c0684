/*
 * cpu_launch.h — what the CPU drivers share: a program's table of loaded
 * kernels, one launch (argument block, error slot, bound arrays), the pool
 * tasks that call a kernel's entry points (host-side evaluation of the
 * terms a kernel does not compute is core/backend/host/host_eval.h).
 *
 * A driver (one per skeleton family: drive_*.c) runs one plan step whose
 * kernel was compiled.  It answers as the backend interface's run_step
 * (backend.h): ACC_OK with the result(s) in out[]; the error recorded on
 * the interpreter's diag (out of memory, an error of a host-side term);
 * or ACC_OK with *replay set to hand the step back to the interpreter,
 * which then evaluates it and reports any runtime error with its own
 * message.  The helpers below that can fail answer the same way (the run
 * diag's status and *replay), as the host evaluation does
 * (host_eval.h); host_replay and host_recorded make a driver's answer.
 */
#ifndef ACC_CORE_BACKEND_CPU_CPU_LAUNCH_H
#define ACC_CORE_BACKEND_CPU_CPU_LAUNCH_H

#include "core/backend/cpu/cpu_backend.h"
#include "core/backend/cpu/kernel_abi.h"
#include "core/backend/host/host_eval.h"
#include "core/codegen/kernel_cpu.h"

#include <limits.h>

struct cpu_direct;

/* A compiled step: its kernel description and the loaded object; the
 * program's direct-run mark when this is its only step (cpu_direct.h). */
typedef struct cpu_node {
    cg_kernel k;
    const cache_entry *entry;
    struct cpu_direct *direct;
} cpu_node;

/* Bound arguments up to this many live in the launch itself: a small
 * run's launch allocates nothing (bench/README.md, "Small inputs, round
 * four"). */
enum { CPU_FEW_ARRAYS = 4 };

typedef struct cpu_launch {
    cpu_kargs A;
    cpu_kerr err;
    cpu_karray *in; /* few[], or an allocation for more arguments */
    const cache_entry *entry;
    int64_t row, part_len;
    cpu_karray few[CPU_FEW_ARRAYS];
} cpu_launch;

typedef acc_status (*cpu_driver_fn)(pool *pl, const cpu_node *kn,
                                    interp *st, const ir_node *n,
                                    rt_array **out, int *replay);

/* The drivers, by kernel kind. */
acc_status cpu_drive_generate(pool *pl, const cpu_node *kn, interp *st,
                              const ir_node *n, rt_array **out, int *replay);
acc_status cpu_drive_fold(pool *pl, const cpu_node *kn, interp *st,
                          const ir_node *n, rt_array **out, int *replay);
/* A fold step's launch outside a run (cpu_direct.c).  cpu_fold_args:
 * the arguments of kernel kn for a source of extents ext (rows > 0
 * results: the outer extents' product) and the seed's leaves, as
 * cpu_drive_fold sets them, but the arrays, the result and the error slot
 * (args->in, out, err: NULL).  cpu_fold_direct: launch l of kernel kn of
 * step n (the fold, or the map after it), armed by the caller (its
 * arguments, arrays, result, entry), split over pl as cpu_drive_fold
 * splits it.  1 when done; 0 when the kernel recorded a runtime error or
 * memory ran out (nothing recorded anywhere: the caller runs the program
 * through the executor). */
void cpu_fold_args(const cpu_node *kn, const int64_t *ext, int64_t rows,
                   const ir_value *seed, cpu_kargs *args);
int cpu_fold_direct(pool *pl, const cpu_node *kn, const ir_node *n,
                    cpu_launch *l);
acc_status cpu_drive_fold_seg(pool *pl, const cpu_node *kn, interp *st,
                              const ir_node *n, rt_array **out, int *replay);
acc_status cpu_drive_scan(pool *pl, const cpu_node *kn, interp *st,
                          const ir_node *n, rt_array **out, int *replay);
acc_status cpu_drive_scan_seg(pool *pl, const cpu_node *kn, interp *st,
                              const ir_node *n, rt_array **out, int *replay);

/* A scan step (plain or segmented, drive_scan.c): its launch, the scan
 * node (kn->k.fold), the results a and, for a primed scan, the totals t;
 * outs holds a's leaves then t's. */
typedef struct cpu_scan {
    cpu_launch l;
    const ir_node *scan;
    rt_array *a, *t;
    void *outs[2 * ACC_MAX_COMPONENTS];
} cpu_scan;

/* Binds the kernel's arrays and `extra` slots after them, allocates the
 * results of step n (the scan or a map over it) for source src (which
 * must outlive the launch: A.seed points into it): rows of out_len
 * outputs, and k totals per row (segmented primed scans), and fills
 * s->l.A.  Returns the run diag's status, *replay set as by
 * cpu_bind_arrays.  Finish with cpu_scan_finish either way. */
acc_status cpu_scan_begin(cpu_scan *s, interp *st, const cpu_node *kn,
                          const ir_node *n, const host_source *src,
                          int64_t out_len, int64_t k, size_t extra,
                          int *replay);
/* The driver's answer after the launch (whose failures, out of memory
 * included, are recorded on the run diag): the run diag's status, with
 * the results in out[] when it is ACC_OK and *replay is not set; *replay
 * is set when the kernel failed (or cpu_scan_begin set it). */
acc_status cpu_scan_finish(cpu_scan *s, interp *st, rt_array **out,
                           int *replay);

acc_status cpu_drive_stencil(pool *pl, const cpu_node *kn, interp *st,
                             const ir_node *n, rt_array **out, int *replay);
acc_status cpu_drive_permute(pool *pl, const cpu_node *kn, interp *st,
                             const ir_node *n, rt_array **out, int *replay);
acc_status cpu_drive_expand(pool *pl, const cpu_node *kn, interp *st,
                            const ir_node *n, rt_array **out, int *replay);

/* Pool tasks over a launch: accel_kernel_run over [lo, hi); _part over
 * parts [lo, hi) of row l->row (each l->part_len elements of A.inner);
 * _block likewise with accel_kernel_block.  Each is a check point of the
 * run's stop request (core/base/stop.h): once the run is to stop, a task
 * runs nothing and the launch fails (cpu_failed), so a long kernel stops
 * within one chunk. */
void cpu_task_run(void *arg, int64_t lo, int64_t hi);
void cpu_task_part(void *arg, int64_t lo, int64_t hi);
void cpu_task_block(void *arg, int64_t lo, int64_t hi);
/* _part(A, l->row, lo, hi, 0) over a plain range, for skeletons whose
 * _part takes a phase in `row` (permute.c.in, expand.c.in). */
void cpu_task_phase(void *arg, int64_t lo, int64_t hi);

/* Whether the kernel recorded a runtime error. */
static inline int cpu_failed(const cpu_launch *l)
{
    return atomic_load(&((cpu_launch *)l)->err.code) != 0;
}

/* Binds the kernel's array arguments (evaluated by the interpreter) and
 * `extra` empty slots after them, and arms the error slot (with the
 * run's stop request, which the kernel's loops poll).  Returns the run
 * diag's status (out of memory recorded there), with *replay set when
 * an argument fails to evaluate: its error is withdrawn and the driver
 * hands the step back, so that the interpreter, which evaluates the
 * arrays read by scalar code only when it reaches a read, decides
 * whether the error happens.  l must be zeroed before; finish with
 * cpu_unbind either way. */
acc_status cpu_bind_arrays(interp *st, const cg_kernel *k, cpu_launch *l,
                           size_t extra, int *replay);
/* The kernels' view of the run's stop request (cpu_kerr.stop). */
int cpu_stop_requested(const void *state);

/* The launch's arrays (l->in, bound) as its arguments, and its error slot
 * armed with stop request `stop` (NULL: none), as cpu_bind_arrays
 * leaves them.  Inline: a direct run arms one launch in a few hundred
 * nanoseconds. */
static inline void cpu_arm(cpu_launch *l, run_stop *stop)
{
    l->A.in = l->in;
    l->A.err = &l->err;
    atomic_init(&l->err.code, 0);
    atomic_init(&l->err.site, 0);
    atomic_init(&l->err.pos, LLONG_MAX);
    l->err.stop = stop ? cpu_stop_requested : NULL;
    l->err.stop_state = stop;
}
/* Gives back what cpu_bind_arrays allocated (nothing for a few
 * arguments). */
void cpu_unbind(cpu_launch *l);

/* The offsets as the extra argument `at` (bound by cpu_bind_arrays) of a
 * segmented kernel: data[0] the k + 1 offsets, size k. */
void cpu_bind_segments(cpu_launch *l, size_t at, int64_t *off, int64_t k);

/* Whether n elements of a fold or a permute run on the calling thread
 * alone (no pool dispatch; a permute without atomics): with one thread,
 * or below CPU_SERIAL_BELOW elements, where waking the pool's workers
 * (several microseconds) costs more than they save on a reduction of
 * about 0.07 ns per element (docs/CPU_BACKEND.md, "Small inputs"). */
#define CPU_SERIAL_BELOW 131072
static inline int cpu_serial(const pool *pl, int64_t n)
{
    return n < CPU_SERIAL_BELOW || pool_threads(pl) < 2;
}

/* A chunk size for n work items: about 8 chunks per thread, at least
 * `least`. */
int64_t cpu_grain(const pool *pl, int64_t n, int64_t least);

/* Partial results: n values of every leaf of elem, into parts[] and
 * l->A.part: ACC_OK, or out of memory recorded on d through diag_oom
 * naming op (free with cpu_free_parts either way). */
acc_status cpu_alloc_parts(cpu_launch *l, const acc_type *elem, int64_t n,
                           void **parts, diag *d, const char *op);
void cpu_free_parts(const acc_type *elem, void **parts);
/* How a long row of l->A.inner elements is split over the threads: sets
 * l->part_len and returns the number of parts. */
int64_t cpu_split_row(const pool *pl, cpu_launch *l);

/* An expansion's sizes (drive_expand.c): _part phase `phase` over the n
 * source elements writes size i to off[i + 1] (off = l->A.part[0], n + 1
 * of them); the host checks and scans them in place (off[0] = 0).  1 with
 * the sum in *total; 0 when the kernel failed, a size is negative or the
 * sum exceeds int64: an outcome, not an error (the step goes to the
 * interpreter, which reports which). */
int cpu_expand_offsets(pool *pl, cpu_launch *l, int64_t phase, int64_t n,
                       int64_t *total);

#endif
