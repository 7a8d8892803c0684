/*
 * context.h — the context handle: backend choice, the type store, and the
 * reference count that keeps it alive while graphs and programs use it.
 */
#ifndef ACC_ABI_CONTEXT_H
#define ACC_ABI_CONTEXT_H

#include "core/backend/all/backends.h"
#include "core/base/handles.h"
#include "core/ir/types.h"

struct acc_context {
    acc_backend backend; /* the chosen backend, never AUTO */
    backend *be;         /* its state (core/backend/backend.h) */
    backends_state backends; /* every backend's availability (guarded by
                                lock: the CPU's is probed when needed) */
    int32_t num_threads;
    int32_t fusion_duplicate_max_ops;
    char *cache_dir;
    type_store *types;
    error_slot error;
    struct reg_registry *foreign; /* foreign implementations (foreign/) */
    char *plugin_path;    /* the plugin_path option, or NULL */
    int32_t cuda_device;     /* the cuda_device option */
    double run_deadline;     /* the run_deadline_seconds option (0: none) */
    int32_t strict;          /* the strict option */
    struct reg_autoload *autoload; /* the plugins it loads by itself */
    pthread_mutex_t lock; /* guards users, destroyed and backends */
    size_t users;         /* live graphs and programs */
    int destroyed;        /* acc_context_destroy was called */
};

/* A context for work that needs only types and graphs (the signatures of
 * a text program's entry points): the interpreter, no backend probed, no
 * plugin loaded.  NULL when out of memory; acc_context_destroy frees it. */
acc_context *ctx_create_scratch(void);

/* Graphs and programs retain their context; the last release after
 * acc_context_destroy frees it. */
void ctx_retain(acc_context *ctx);
void ctx_release(acc_context *ctx);

#endif
