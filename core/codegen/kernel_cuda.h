/*
 * kernel_cuda.h — skeleton instantiation for the CUDA target: the CUDA C++
 * source (for NVRTC) of the kernel of one plan step, from
 * core/skeletons/cuda/ and the same scalar code emitter as the CPU target.
 *
 * The source is core/skeletons/cuda/prelude.cuh.in, then the scalar
 * helpers of the CPU prelude (its "BEGIN scalar helpers" .. "END scalar
 * helpers" text, shared through the ACC_FN attribute macro), then the
 * filled skeleton.
 *
 * Steps with a CUDA skeleton: a manifest generate (generate.cu.in: entry
 * accel_generate), fold and fold1 whose array is manifest or an embedded
 * generate, and map g over such a fold (fold.cu.in: entries
 * accel_fold_rows, accel_fold_part, accel_fold_finish).  Generating needs
 * no device; nothing here launches anything.
 */
#ifndef ACC_CORE_CODEGEN_KERNEL_CUDA_H
#define ACC_CORE_CODEGEN_KERNEL_CUDA_H

#include "core/codegen/kernel_cpu.h" /* cg_kernel, cg_kind, cg_kernel_free */
#include "core/ir/program_ir.h"

/* Whether step n has a CUDA skeleton at all. */
int cg_cuda_has_skeleton(const ir_node *n);

/* Builds the CUDA kernel of step n of program p into *out (kind
 * CG_KERNEL_GENERATE or CG_KERNEL_FOLD; free with cg_kernel_free).
 * Returns 1; 0 when n has no CUDA kernel (the reason in why); -1 when out
 * of memory. */
int cg_cuda_kernel(const ir_program *p, const ir_node *n, cg_kernel *out,
                   char *why, size_t why_len);

#endif
