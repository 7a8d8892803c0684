/*
 * foreign_call.h — calling the implementation that foreign resolution
 * (foreign/resolve.h) chose for a foreign node, at run time: argument
 * descriptors that borrow the run's arrays, result arrays of the extents
 * result_shape gives, a workspace freed after the call, in the host's
 * memory or a device backend's.
 */
#ifndef ACC_CORE_BACKEND_FOREIGN_CALL_H
#define ACC_CORE_BACKEND_FOREIGN_CALL_H

#include "core/backend/destinations.h"
#include "core/backend/rt_array.h"
#include "core/ir/program_ir.h"

/* Runs the implementation chosen for foreign node n on its argument
 * arrays; stores n's result arrays (new references) in results.  Returns
 * ACC_OK; ACC_ERR_UNSUPPORTED, with nothing recorded, when the
 * implementation refused these extents (the caller evaluates the
 * fallback); or the error recorded on d. */
acc_status reg_call(const ir_node *n, rt_array *const *args,
                    rt_array **results, diag *d);

/* reg_call on host copies of the arguments (downloaded first when a
 * device backend left them on its device): the host backends' calls. */
acc_status reg_call_on_host(const ir_node *n, rt_array *const *args,
                            rt_array **results, diag *d);
/* reg_call_on_host whose results go straight into the run's destinations
 * for n when it has them (the caller's buffers, destinations.h; dests may
 * be NULL): an implementation writing its output then needs no new
 * memory, and the run no copy into the caller's buffer. */
acc_status reg_call_on_host_into(const ir_node *n, rt_array *const *args,
                                 rt_array **results, exec_dests *dests,
                                 diag *d);

/* The memory a foreign call works in: descriptors get `memory`, `device`
 * and `stream`; buffers() gives the buffers of a run-time array as the
 * call sees them (0 after recording an error); alloc() makes a result of
 * a descriptor's type, rank and extents; scratch()/scratch_free() back
 * the call's workspace. */
typedef struct reg_memory {
    acc_memory memory;
    int32_t device;
    void *stream;
    void *state;
    int (*buffers)(void *state, rt_array *r, void **data, diag *d);
    rt_array *(*alloc)(void *state, const acc_array *a, const char *op,
                       diag *d);
    void *(*scratch)(void *state, size_t bytes);
    void (*scratch_free)(void *state, void *p, size_t bytes);
} reg_memory;

/* reg_call in memory m (reg_call is reg_call_with in host memory). */
acc_status reg_call_with(const ir_node *n, rt_array *const *args,
                         rt_array **results, const reg_memory *m, diag *d);
/* Whether the host can call the implementation of foreignExp node n (a
 * C function; a user CUDA function cannot: the interpreter then applies
 * the fallback). */
int reg_scalar_callable(const ir_node *n);
/* The value of foreignExp node n on argument leaves `in`, through its C
 * function (reg_scalar_callable). */
void reg_call_scalar(const ir_node *n, const ir_value *in, ir_value *out);

#endif
