/*
 * cuda_internal.h — what the files of core/backend/cuda share: the
 * context's state, the module cache, a run's state and the helpers every
 * launcher uses.  Nothing outside this folder includes it.
 */
#ifndef ACC_CORE_BACKEND_CUDA_CUDA_INTERNAL_H
#define ACC_CORE_BACKEND_CUDA_CUDA_INTERNAL_H

#include "core/backend/cuda/cuda_abi.h"
#include "core/backend/cuda/cuda_backend.h"
#include "core/backend/cuda/dev_pool.h"
#include "core/backend/cuda/device.h"
#include "core/backend/interp/interp_state.h"
#include "core/cache/cache_store.h"
#include "core/codegen/kernel_cuda.h"
#include "core/backend/foreign_call.h"
#include "core/backend/step_compile.h"

#include <pthread.h>

typedef struct cuda_module cuda_module; /* modules.c */

struct cuda_backend {
    backend base;          /* &cuda_ops */
    cuda_driver drv;
    cuda_nvrtc nv;
    cuda_device_info dev;
    cuda_arch arch;
    cu_context ctx;        /* the device's primary context (retained) */
    cuda_pool *pool;
    pthread_mutex_t lock;  /* guards refs and streams */
    pthread_mutex_t module_lock; /* guards modules; held while compiling,
                                    so a kernel is compiled once */
    unsigned refs;         /* the context, and each library-owned output */
    cu_stream *streams;    /* idle streams of accel's own */
    size_t n_streams, cap_streams;
    cache_folder folder;   /* the module cache's folder */
    cuda_module *modules;  /* loaded modules, by key: in use and recently
                              released (under module_lock) */
    size_t idle_modules;   /* modules no program uses */
    uint64_t module_clock; /* counts releases: the LRU order */
};

/* Makes the backend's context current on this thread (push); ACC_OK, or
 * the driver's error recorded on d (its status).  cuda_leave pops it
 * (after ACC_OK only). */
acc_status cuda_enter(cuda_backend *be, diag *d);
void cuda_leave(cuda_backend *be);
/* Records a driver error: ACC_ERR_OUT_OF_DEVICE_MEMORY for
 * CUDA_ERROR_OUT_OF_MEMORY, else ACC_ERR_DEVICE; the message is what
 * (printf-style), then the driver's name and description of r. */
acc_status cuda_fail(const cuda_backend *be, diag *d, cu_result r,
                     const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void cuda_backend_retain(cuda_backend *be);
void cuda_backend_release(cuda_backend *be);

/* ---- modules (modules.c) ---------------------------------------------------- */

/* The module of a kernel's source, from memory, else the disk cache, else
 * NVRTC (a cubin for the device's sm_XY, PTX when that fails or the
 * device is newer than NVRTC knows), with a reference the program gives
 * back with cuda_module_release.  The context must be current.
 * Errors: ACC_ERR_COMPILE (with NVRTC's log), or the driver's. */
acc_status cuda_module_get(cuda_backend *be, const char *source,
                           const char *name, cuda_module **out,
                           cache_stats *how, diag *d);
cu_module cuda_module_handle(const cuda_module *m);
/* Gives back a reference; a module no program uses is unloaded once
 * CACHE_IDLE_MAX more recently released ones are kept (cache_store.h).
 * Makes the context current itself.  NULL-safe. */
void cuda_module_release(cuda_backend *be, cuda_module *m);
/* The cache folder's note (cache_folder.h) into buf ("" when none). */
void cuda_module_note(cuda_backend *be, char *buf, size_t size);
/* Unloads every module (the context current). */
void cuda_modules_unload(cuda_backend *be);

/* ---- programs and launchers --------------------------------------------------- */

enum { CUDA_MAX_ENTRIES = 8 };

/* One entry point of a loaded kernel and its launch configuration from
 * cuOccupancyMaxPotentialBlockSize (block rounded down to whole warps). */
typedef struct cuda_fn {
    const char *name; /* the launcher's entry name */
    cu_function f;
    int block, min_grid;
} cuda_fn;

typedef struct cuda_node {
    cg_kernel k;
    cuda_module *module;          /* referenced while the program lives */
    cuda_fn fn[CUDA_MAX_ENTRIES]; /* in the order of the launcher's names */
} cuda_node;

typedef acc_status (*cuda_driver_fn)(cuda_run *run, const cuda_node *kn,
                                     interp *st, const ir_node *n,
                                     rt_array **out, int *replay);

/* How one kernel kind is launched: its entry points (looked up once per
 * program) and the driver that runs a step.  A driver answers as the
 * backend interface's run_step (backend.h): ACC_OK with the result(s) in
 * out[]; the error recorded on the interpreter's diag; or ACC_OK with
 * *replay set to hand the step to the interpreter (which reports a
 * runtime error with its own message).  The launch helpers below, and
 * host evaluation (host_eval.h), answer the same way. */
typedef struct cuda_launcher {
    const char *entries[CUDA_MAX_ENTRIES];
    cuda_driver_fn drive;
} cuda_launcher;

acc_status cuda_drive_generate(cuda_run *run, const cuda_node *kn, interp *st,
                               const ir_node *n, rt_array **out, int *replay);
acc_status cuda_drive_fold(cuda_run *run, const cuda_node *kn, interp *st,
                           const ir_node *n, rt_array **out, int *replay);
acc_status cuda_drive_stencil(cuda_run *run, const cuda_node *kn, interp *st,
                              const ir_node *n, rt_array **out, int *replay);
acc_status cuda_drive_permute(cuda_run *run, const cuda_node *kn, interp *st,
                              const ir_node *n, rt_array **out, int *replay);
acc_status cuda_drive_expand(cuda_run *run, const cuda_node *kn, interp *st,
                             const ir_node *n, rt_array **out, int *replay);

acc_status cuda_drive_fold_seg(cuda_run *run, const cuda_node *kn, interp *st,
                               const ir_node *n, rt_array **out, int *replay);
acc_status cuda_drive_scan(cuda_run *run, const cuda_node *kn, interp *st,
                           const ir_node *n, rt_array **out, int *replay);
acc_status cuda_drive_scan_seg(cuda_run *run, const cuda_node *kn, interp *st,
                               const ir_node *n, rt_array **out, int *replay);

struct cuda_program {
    cuda_backend *be;
    step_kept nodes;        /* the compiled steps (cuda_node), freed with it */
    size_t kernels, interpreted;
    cache_stats stats;
    char cache_note[CACHE_NOTE_MAX]; /* the cache folder's, when built */
};

/* The launcher of kernel kind `kind`; NULL when none. */
const cuda_launcher *cuda_launcher_of(cg_kind kind);
/* Entry point `id` of the launch contract (kernel_cuda.h) in kn; id must
 * be one its launcher lists. */
const cuda_fn *cuda_fn_of(const cuda_node *kn, cg_cuda_entry_id id);

/* ---- runs (cuda_run.c, cuda_memory.c, cuda_deliver.c) -------------------- */

typedef struct cuda_block {
    cu_deviceptr ptr;
    size_t bytes;
} cuda_block;

typedef struct cuda_blocks {
    cuda_block *v;
    size_t n, cap;
} cuda_blocks;

struct cuda_queue {
    cuda_backend *be;
    cu_stream stream;
    int async;
    cuda_blocks pending; /* freed by queued runs: to the pool at wait */
};

struct cuda_run {
    cuda_program *cp;
    cuda_backend *be;
    cu_stream stream;
    int own_stream; /* taken from the context's idle streams */
    int async;
    cuda_queue *queue;
    cuda_blocks freed; /* released during the run: reused by it (stream
                          order makes that safe), then to the pool */
    run_env *env;           /* the run's values, host evaluator, diag */
    exec_dests *dests;      /* the caller's device output buffers */
    run_stop *stop;         /* checked before every launch, or NULL */
    reg_memory mem;         /* foreign calls in device memory */
};

extern const rt_device_ops cuda_residency;

/* Lists of device blocks (cuda_memory.c): push (0 when out of host
 * memory), take one of the size class of `bytes`, give all to the pool. */
int cuda_blocks_push(cuda_blocks *b, cu_deviceptr ptr, size_t bytes);
int cuda_blocks_take(cuda_blocks *b, size_t bytes, cu_deviceptr *out);
void cuda_blocks_to_pool(cuda_pool *pool, cuda_blocks *b);

/* Foreign calls (cuda_foreign.c): the backend's call_foreign for a run,
 * and the device memory its CUDA implementations see. */
acc_status cuda_call_foreign(cuda_run *run, const ir_node *n,
                             rt_array *const *args, rt_array **results);
reg_memory cuda_foreign_memory(cuda_run *run);

/* Device memory for the run (its own freed blocks first, then the pool;
 * on CUDA_ERROR_OUT_OF_MEMORY it waits for the stream, gives its freed
 * blocks to the pool, and tries again).  ACC_OK, or the status of the
 * error recorded on d (ACC_ERR_OUT_OF_DEVICE_MEMORY naming `what`, or
 * the driver's). */
acc_status cuda_run_alloc(cuda_run *run, size_t bytes, cu_deviceptr *out,
                          const char *what, diag *d);
void cuda_run_free(cuda_run *run, cu_deviceptr ptr, size_t bytes);
/* Makes a valid on the device (uploading a host array once); ACC_OK, or
 * the status of the error recorded on d (allocation, upload). */
acc_status cuda_device_of(cuda_run *run, rt_array *a, diag *d);
/* A new device array of node n's result: the caller's output buffers when
 * the run's destinations offer them for n (exec_dests_take), else run
 * memory.  `op` names it in messages. */
rt_array *cuda_result(cuda_run *run, const ir_node *n, const acc_type *elem,
                      int32_t rank, const int64_t *ext, const char *op,
                      diag *d);
/* Waits for the run's stream; ACC_OK, or the driver's error recorded on
 * d (its status). */
acc_status cuda_sync(cuda_run *run, diag *d);

/* ---- launches (cuda_launch.c) --------------------------------------------- */

/* One launch's argument block: kargs (by value) and the device block it
 * points into: karrays, result pointers, seed, partial pointers, error
 * slot. */
typedef struct cuda_launch {
    cuda_kargs A;
    cu_deviceptr block;  /* the device argument block */
    size_t block_bytes;
    size_t n_arrays, out_leaves, acc_leaves;
    unsigned char *host; /* its host image */
    size_t at_out, at_seed, at_part, at_err;
    size_t at_seg;       /* the segment offsets (0: none) */
} cuda_launch;

/* The launch helpers answer as the drivers do (backend.h: run_step):
 * ACC_OK, or the status of the error recorded on the diag (st->d, d); a
 * kernel that recorded a runtime error is an outcome, not an error:
 * *replay is set to 1 (the interpreter runs the step and names the
 * error) and ACC_OK returned; *replay is left as it is otherwise. */

/* Binds the kernel's arrays (made valid on the device) and lays out the
 * block for `out_leaves` result leaves and, for a fold, `acc_leaves`
 * seed and partial leaves (0 otherwise); cuda_launch_free either way. */
acc_status cuda_launch_bind(cuda_run *run, const cg_kernel *k, interp *st,
                            size_t out_leaves, size_t acc_leaves,
                            cuda_launch *l);
/* The same with `extra` argument arrays after the kernel's (zeroed until
 * cuda_launch_array describes them); `acc_leaves` may also be the length
 * of a seed block that is not a fold's (drive_stencil.c's). */
acc_status cuda_launch_bind_extra(cuda_run *run, const cg_kernel *k,
                                  interp *st, size_t extra, size_t out_leaves,
                                  size_t acc_leaves, cuda_launch *l);
/* Argument array i of the block (device pointers in a->data). */
void cuda_launch_array(cuda_launch *l, size_t i, const cuda_karray *a);
/* cuda_launch_bind for a segmented kernel: the k + 1 offsets off[0..k]
 * (copied) travel in the argument block and are the extra array
 * A.in[n_arrays] (data[0] their device address, ext[0] = k + 1,
 * size = k), as fold_seg.cu.in and scan.cu.in read them. */
acc_status cuda_launch_bind_segments(cuda_run *run, const cg_kernel *k,
                                     interp *st, size_t out_leaves,
                                     size_t acc_leaves, const int64_t *off,
                                     int64_t n_seg, cuda_launch *l);
/* Result leaf i (after out's own, which upload sets: a primed scan's
 * totals) in the host image; before cuda_launch_upload. */
void cuda_launch_set_out(cuda_launch *l, size_t i, cu_deviceptr ptr);
/* Sets out's buffers (the first result leaves; out may be NULL: none
 * yet, see cuda_launch_retarget), seed (may be NULL) and partials (may be
 * NULL) in the host image, arms the error slot, uploads the block in one
 * copy and points l->A into it.  The caller sets A.src_ext and A.inner. */
acc_status cuda_launch_upload(cuda_run *run, cuda_launch *l,
                              const rt_array *out, const ir_value *seed,
                              const cu_deviceptr *parts,
                              cu_deviceptr part_has, diag *d);
/* cuLaunchKernel of fn with (grid_x, grid_y) blocks of `block` threads;
 * the parameters are l->A and, when extra is not NULL, *extra. */
acc_status cuda_launch_run(cuda_run *run, cuda_launch *l, const cuda_fn *fn,
                           unsigned grid_x, unsigned grid_y, unsigned block,
                           int64_t *extra, diag *d);
/* Whether the kernel(s) recorded a runtime error (*replay): read back
 * (and waited for) only when the kernel has checks.  A driver's last
 * call after its launches. */
acc_status cuda_launch_failed(cuda_run *run, const cuda_node *kn,
                              cuda_launch *l, int *replay, diag *d);
/* The same, always read, with `bytes` bytes at device address src read
 * into dst (when bytes > 0) by the same wait. */
acc_status cuda_launch_read(cuda_run *run, cuda_launch *l, void *dst,
                            cu_deviceptr src, size_t bytes, int *replay,
                            diag *d);
/* Points the uploaded block at other results (out; NULL: none) and, when
 * parts is not NULL, other partials: one small copy on the run's stream,
 * so kernels launched before it keep what they had.  Sets A.out_ext and
 * A.out_size. */
acc_status cuda_launch_retarget(cuda_run *run, cuda_launch *l,
                                const rt_array *out,
                                const cu_deviceptr *parts, diag *d);
void cuda_launch_free(cuda_run *run, cuda_launch *l);

/* A 1-D launch of fn covering `threads` threads (whole warps, blocks of
 * at most fn's occupancy block, the grid as cuda_grid_for caps it: fn's
 * loops are grid-stride); extra as cuda_launch_run. */
acc_status cuda_launch_threads(cuda_run *run, cuda_launch *l,
                               const cuda_fn *fn, int64_t threads,
                               int64_t *extra, diag *d);

/* A (parts, rows) launch of fn's occupancy block (the grid's y capped at
 * the device's limit: fn strides over rows), as the launch contract's
 * CG_CUDA_GRID_PARTS entries take it. */
acc_status cuda_launch_parts(cuda_run *run, cuda_launch *l,
                             const cuda_fn *fn, int64_t parts, int64_t rows,
                             diag *d);

/* The partial results of a multi-pass kernel, in the run's memory: n
 * values per leaf of the accumulator type, and n `has` flags (ints).
 * Freed when the step ends (stream order keeps them until its kernels
 * are done). */
typedef struct cuda_parts {
    cu_deviceptr leaf[ACC_MAX_COMPONENTS], has;
    size_t n;
} cuda_parts;

/* ACC_ERR_OUT_OF_DEVICE_MEMORY recorded naming `what` when the device
 * is full; cuda_parts_free either way. */
acc_status cuda_parts_alloc(cuda_run *run, const acc_type *acc, size_t n,
                            const char *what, cuda_parts *p, diag *d);
void cuda_parts_free(cuda_run *run, const acc_type *acc, cuda_parts *p);

/* Threads per block for n items: a whole number of warps, at most fn's
 * occupancy block.  Grid for a grid-stride loop over n items. */
unsigned cuda_block_for(const cuda_fn *fn, int64_t n);
unsigned cuda_grid_for(const cuda_run *run, const cuda_fn *fn, int64_t n,
                       unsigned block);

/* ---- the expansion (drive_expand.c) ---------------------------------------- */

/* The expansion of an expand, or of permute' over one, on the device
 * (drive_expand.c, core/skeletons/cuda/expansion.cuh.in): its scratch
 * (the offsets, n + 1; the parts' sums, 2 parts + 2) and what the host
 * reads back. */
typedef struct cuda_expansion {
    int64_t n, parts;     /* source elements; parts of the sizes' scan */
    cu_deviceptr off, sums;
    int64_t total, largest;
} cuda_expansion;

/* The scratch of an expansion of n >= 1 source elements: x->off and
 * x->sums, also into scratch[0..1] (the kernel's A->part);
 * cuda_expansion_free either way. */
acc_status cuda_expansion_alloc(cuda_run *run, int64_t n, cuda_expansion *x,
                                cu_deviceptr scratch[2], diag *d);
/* The sizes, scan and offsets passes (fn: accel_expand_sizes, _scan,
 * _offsets, _threads, _blocks), then the total, the largest size and the
 * error slot read back with one wait; a replay when a size or the total
 * was refused (or a check failed). */
acc_status cuda_expansion_scan(cuda_run *run, cuda_launch *l,
                               const cuda_fn *fn, cuda_expansion *x,
                               int *replay, diag *d);
/* The values pass over x->total results (none: no launch), one source
 * element per thread or blocks over result positions as
 * cg_cuda_expand_per_thread chooses. */
acc_status cuda_expansion_values(cuda_run *run, cuda_launch *l,
                                 const cuda_fn *fn, const cuda_expansion *x,
                                 diag *d);
void cuda_expansion_free(cuda_run *run, cuda_expansion *x);
/* ---- scans (drive_scan.c, drive_scan_seg.c) ----------------------------- */

/* A scan step, plain or segmented: its run and kernel, the scan node
 * (kn->k.fold), what the host evaluated (extents, offsets, seed), its
 * launch, the results a and, for a primed scan, the totals t (whose
 * leaves follow a's in A.out). */
struct host_source; /* core/backend/host/host_eval.h: host-side evaluation */

typedef struct cuda_scan {
    cuda_run *run;
    const cuda_node *kn;
    const ir_node *scan;
    const struct host_source *src;
    cuda_launch l;
    rt_array *a, *t;
} cuda_scan;

/* Binds the kernel's arrays (and src's offsets, when segmented),
 * allocates the results of step n (the scan or maps over it): rows of
 * out_len outputs and k totals per row (1 for a plain scan), and sets
 * A.src_ext and A.inner.  src must outlive the step.  Finish with
 * cuda_scan_finish either way. */
acc_status cuda_scan_begin(cuda_scan *s, cuda_run *run, const cuda_node *kn,
                           interp *st, const ir_node *n,
                           const struct host_source *src, int64_t out_len,
                           int64_t k);
/* Whether the results have any element to compute. */
int cuda_scan_has_results(const cuda_scan *s);
/* cuda_launch_upload of the step's results, seed and partials (NULL:
 * none). */
acc_status cuda_scan_upload(cuda_scan *s, const cuda_parts *parts, diag *d);
/* The driver's answer from status and replay (its launches'): with ACC_OK
 * and no replay the results are in out[], else released.  Returns
 * status. */
acc_status cuda_scan_finish(cuda_scan *s, acc_status status, int replay,
                            rt_array **out);

#endif
