/*
 * cublas_plugin.h — the cublas plugin's state and its operations
 * (cublas_plugin.c loads and registers; cbp_ops.c computes).
 */
#ifndef ACC_PLUGINS_CUBLAS_PLUGIN_H
#define ACC_PLUGINS_CUBLAS_PLUGIN_H

#include "cublas_api.h"
#include "pcuda_plugin.h"

/* What one operation needs for a call: the functions, a handle of the
 * calling thread's CUDA context with the call's stream set, the call. */
typedef struct cbp_run {
    const pcublas *fn;
    const pcuda_driver *driver;
    pcublas_handle handle;
    acc_foreign_call *call;
} cbp_run;

/* One foreign name: the ranks it takes (a Scalar is rank 0), its result's
 * extents and its computation. */
typedef struct cbp_op {
    const char *name, *impl_name;
    size_t n_args;
    int32_t arg_ranks[3];
    int32_t result_rank;
    acc_status (*result_shape)(acc_foreign_call *call);
    acc_status (*run)(const cbp_run *r);
} cbp_op;

/* dot, axpy, gemv, gemm, in registration order. */
enum { CBP_N_OPS = 4 };
extern const cbp_op cbp_ops[CBP_N_OPS];

typedef struct cbp_plugin cbp_plugin;

/* The `user` of one registered implementation. */
typedef struct cbp_binding {
    cbp_plugin *plugin;
    const cbp_op *op;
} cbp_binding;

struct cbp_plugin {
    pcuda_plugin base;
    pcublas fn;
    cbp_binding bindings[CBP_N_OPS];
};

#endif
