/*
 * resolve.h — foreign resolution (DESIGN.md §1, pass 5) and calls of the
 * chosen implementations at run time.
 *
 * reg_resolve_program runs after fusion.  For each foreign node the
 * program can reach it picks, from the context's registry, the
 * implementation of that name for the program's backend with the highest
 * priority whose capability predicate accepts the argument and result
 * types (ties: the first registered), creates its per-program state, and
 * records the choice in the node (u.foreign.impl, .state) with a sentence
 * for the plan (u.foreign.reason).  Otherwise the node keeps impl NULL and
 * the reason says why the fallback is used; foreign nodes inside a
 * fallback are resolved the same way (a cascade), those inside a fallback
 * that is not used are left alone.  foreignExp nodes can only be
 * implemented by C functions with a matching scalar signature.
 */
#ifndef ACC_FOREIGN_RESOLVE_H
#define ACC_FOREIGN_RESOLVE_H

#include "abi/src/context.h"
#include "core/exec/rt_array.h"
#include "core/ir/program_ir.h"

acc_status reg_resolve_program(ir_program *p, acc_context *ctx, diag *d);
/* Destroys the per-program states created by reg_resolve_program. */
void reg_release_program(ir_program *p);

/* Runs the implementation chosen for foreign node n on its argument
 * arrays; stores n's result arrays (new references) in results.  Returns
 * ACC_OK; ACC_ERR_UNSUPPORTED, with nothing recorded, when the
 * implementation refused these extents (the caller evaluates the
 * fallback); or the error recorded on d. */
acc_status reg_call(const ir_node *n, rt_array *const *args,
                    rt_array **results, diag *d);

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
