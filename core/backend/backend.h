/*
 * backend.h — the backend interface (DESIGN.md §7): one struct of
 * operations that each backend (core/backend/interp, cpu, cuda) fills,
 * in the manner of SQLite's sqlite3_vfs.  The code that uses a backend
 * (the compiler's driver, the executor, the ABI's handles) calls these
 * operations and never asks which implementation it holds; only
 * core/backend/all/ knows the list of backends.
 *
 *  - a context opens its backend (probe, create) and closes it (destroy);
 *  - compiling a program ends with the backend's build of the schedule's
 *    steps: each array step becomes one of its kernels, a host step, or a
 *    step the interpreter runs, with the reason (sched_step.by, .why);
 *  - a run (core/exec) begins, runs each array step through run_step,
 *    foreign calls through call_foreign, and ends; the executor itself
 *    runs the control steps and releases values as the schedule says;
 *  - memory: alloc, copy and release are the backend's memory
 *    operations (host memory for interp and cpu, core/backend/
 *    host_memory.h; device memory over cuMemAlloc/cuMemcpy/cuMemFree for
 *    cuda).  A step's result is allocated by alloc inside run_step (its
 *    extents are known only there: an expand's total, a filter's count);
 *    the executor reads values on the host (a condition, an output)
 *    through copy and gives its references back through release; deliver
 *    puts a result into a caller's descriptor in the backend's memory;
 *  - execution handles get a queue from the backend, and wait on it.
 */
#ifndef ACC_CORE_BACKEND_BACKEND_H
#define ACC_CORE_BACKEND_BACKEND_H

#include "core/backend/destinations.h"
#include "core/backend/values.h"
#include "core/base/stop.h"
#include "core/base/strbuf.h"
#include "core/schedule/schedule.h"

typedef struct backend_ops backend_ops;
typedef struct backend_program backend_program; /* a backend's own */
typedef struct backend_run backend_run;         /* a backend's own */

/* A context's backend: every implementation's state begins with this. */
typedef struct backend {
    const backend_ops *ops;
} backend;

/* What a context asks of its backend (acc_context_options). */
typedef struct backend_config {
    const char *cache_dir; /* the kernel cache's folder (NULL: default) */
    int32_t threads;       /* CPU threads (0: one per core) */
    int32_t device;        /* the CUDA device ordinal */
    int fp_contract;       /* cpu: kernels built with -ffp-contract=fast
                              (acc_context_options.fp_contract) */
} backend_config;

/* One run, as the executor sets it up for the backends: the program, its
 * values, the inputs (bound as values too), the caller's buffers results
 * may be computed into, the stop request, the execution handle's queue,
 * the host evaluator (the interpreter's run state, which evaluates
 * shapes, seeds and conditions for every backend) and the run's diag. */
typedef struct run_env {
    const ir_program *ir;
    const sched_program *sched;
    run_values *values;
    rt_array *const *inputs;
    size_t n_inputs;
    exec_dests *dests;
    run_stop *stop;
    void *queue;
    struct interp *host;
    diag *d;
    /* The program's backend part (run_begin's bp), for a backend whose
     * run state is the run_env itself (the CPU backend: its run_begin
     * sets it and allocates nothing; a run's fixed cost is part of every
     * small run, bench/README.md). */
    backend_program *bprog;
} run_env;

/* Errors.  The operations of a run record their errors on the run's diag
 * (env->d: a status and a message, set once, the first error wins) and
 * return its status, or a pointer that is NULL after an error; none
 * returns 1/0/-1 codes.
 *
 * A replay is not an error: run_step sets *replay when the step's kernel
 * found a runtime error it cannot name, or a value it reads lazily
 * failed; nothing is recorded, and the interpreter runs the step
 * instead, reporting the error with its own message if it happens
 * (core/exec/steps.c).  The compiling backends' drivers (drive_*.c)
 * answer the same way. */

struct backend_ops {
    acc_backend kind;
    acc_memory memory;       /* where its steps' arrays live */
    /* Whether the backend works here: ACC_OK with a sentence saying what
     * it uses written into `about` ("available: ..."), or the status of
     * why not recorded on d (ACC_ERR_UNSUPPORTED; ACC_ERR_OUT_OF_HOST_
     * MEMORY), whose message is the sentence "not available: ...".  An
     * answer for the context's list of backends, not a caller's error. */
    acc_status (*probe)(const backend_config *c, char *about,
                        size_t about_size, diag *d);
    /* Opens the backend for a context: NULL after recording why on d (a
     * sentence without prefix; ACC_ERR_UNSUPPORTED when something is
     * missing, ACC_ERR_DEVICE, or out of host memory through diag_oom). */
    backend *(*create)(const backend_config *c, diag *d);
    void (*destroy)(backend *be); /* NULL-safe */
    /* The kernel cache's folder and note (malloc'd; core/cache/
     * cache_folder.h): ACC_OK or the error recorded on d; NULL when the
     * backend has no cache. */
    acc_status (*cache_report)(backend *be, char **dir, char **note,
                               diag *d);

    /* Decides who runs each array step of s (and compiles the kernels):
     * by, kernel, why.  With `strict`, a step the backend cannot compile
     * is an error (ACC_ERR_UNSUPPORTED naming it) instead of a step the
     * interpreter runs.  *out may stay NULL (nothing of its own). */
    acc_status (*build)(backend *be, const ir_program *ir, sched_program *s,
                        int strict, backend_program **out, diag *d);
    void (*program_free)(backend_program *bp); /* NULL-safe */
    /* Its kernels and cache figures, appended to the plan (JSON: a member
     * added to the plan's object); may be NULL. */
    void (*describe)(strbuf *b, const backend_program *bp, int json);

    /* A run: NULL after recording an error on env->d. */
    backend_run *(*run_begin)(backend *be, backend_program *bp,
                              run_env *env);
    /* Runs array step s (s->by is not SCHED_BY_INTERP unless this is the
     * interpreter) and stores its value: ACC_OK, or the error recorded on
     * env->d; *replay (set to 0 first) asks for the interpreter instead
     * (above), with ACC_OK returned. */
    acc_status (*run_step)(backend_run *r, const sched_step *s, int *replay);
    /* Calls the implementation chosen for foreign node n on args (its
     * argument's arrays), into results (new references): ACC_OK,
     * ACC_ERR_UNSUPPORTED when it refuses these extents (nothing
     * recorded: the fallback runs), or the error recorded on env->d. */
    acc_status (*call_foreign)(backend_run *r, const ir_node *n,
                               rt_array *const *args, rt_array **results);
    /* Ends the run (every array released): waits unless asynchronous;
     * returns env->d's status after recording its own errors there. */
    acc_status (*run_end)(backend_run *r);
    /* Delivers result a into output descriptor out in the backend's
     * memory (memory != ACC_MEMORY_HOST): ACC_OK or the error recorded on
     * env->d. */
    acc_status (*deliver)(backend_run *r, acc_array *out, rt_array *a);

    /* An execution handle's queue (NULL when the backend needs none:
     * runs then complete before acc_run_exec returns); its wait; its
     * destruction (waits first; NULL-safe). */
    void *(*queue_create)(backend *be, void *stream, int async);
    acc_status (*queue_wait)(void *q, diag *d);
    void (*queue_destroy)(void *q);

    /* Memory.  alloc: an array of elem with the given extents in the
     * backend's memory (refs = 1, contents undefined) for node n's
     * result (n may be NULL): the caller's buffers when the run's
     * destinations offer them for n, else new memory; NULL after
     * recording an error on d naming op (ACC_ERR_SHAPE for bad extents,
     * out of host or device memory).  copy: makes a's contents valid in
     * memory `to` (ACC_MEMORY_HOST: a download when a is device-only; the
     * backend's device memory: an upload, once): ACC_OK or the error
     * recorded on d.
     * release: gives back a reference (NULL-safe); the last one frees the
     * buffers a owns, on the host or the device. */
    rt_array *(*alloc)(backend_run *r, const ir_node *n, const acc_type *elem,
                       int32_t rank, const int64_t *extents, const char *op,
                       diag *d);
    acc_status (*copy)(backend_run *r, rt_array *a, acc_memory to, diag *d);
    void (*release)(backend_run *r, rt_array *a);

    /* A whole run without the executor (may be NULL), asked before the
     * executor checks the arguments: 1 when every descriptor is one the
     * executor accepts and the outputs hold the results of program bp
     * on the inputs (one kernel launched; *bytes: the output memory it
     * allocated, as the run's statistics count it), 0 when the backend
     * declines this run, recording nothing and leaving the descriptors
     * as they were: the executor checks the arguments, reports what is
     * wrong with them, and runs it (the CPU backend's direct runs,
     * core/backend/cpu/cpu_direct.h). */
    int (*run_direct)(backend *be, backend_program *bp, size_t n_inputs,
                      const acc_array *inputs, size_t n_outputs,
                      acc_array *outputs, uint64_t *bytes);
};

#endif
