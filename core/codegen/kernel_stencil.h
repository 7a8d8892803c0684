/*
 * kernel_stencil.h — the kernels of stencil and stencil2 on both targets:
 * the holes of core/skeletons/cpu/stencil.c.in and
 * core/skeletons/cuda/stencil.cu.in (the same holes, one of them the
 * shared core/skeletons/shared/stencil_sides.in filled), from the scalar
 * emitter (the stencil builders of kernel_cpu.c and kernel_cuda.c call
 * it); and what the drivers read of the result.
 */
#ifndef ACC_CORE_CODEGEN_KERNEL_STENCIL_H
#define ACC_CORE_CODEGEN_KERNEL_STENCIL_H

#include "core/codegen/kernel_fill.h"

/* The holes of stencil.c.in and stencil.cu.in for node n (IR_STENCIL or
 * IR_STENCIL2), k->stencil_checks and k->stencil_reach.  The conventions
 * of cg_inst (kernel_fill.h): a reason in in->why when n has no kernel,
 * out of memory recorded on in->d. */
acc_status cg_fill_stencil(cg_inst *in, const ir_node *n, cg_kernel *k);

/* Whether side i (extents side_ext) of stencil kernel k needs the check
 * pass over its embedded producer (cg_kernel.stencil_checks) when the
 * result has extents ext of rank `rank`. */
int cg_stencil_needs_checks(const cg_kernel *k, int i, const int64_t *side_ext,
                            const int64_t *ext, int32_t rank);

#endif
