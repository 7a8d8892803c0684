/*
 * kernel_cpu.h — skeleton instantiation for the CPU target: the C source
 * of the kernel of one plan step, from core/skeletons/cpu/ and the scalar
 * code emitter.
 *
 * Steps with a CPU skeleton: a manifest generate (generate.c.in), fold and
 * fold1 whose array is manifest or an embedded generate, and map g over
 * such a fold (g applied as the result is written) (fold.c.in); the same
 * for foldSeg, foldSeg' and fold1Seg (fold_seg.c.in); the ten scans,
 * plain (IR_SCAN) and segmented (IR_SCAN_SEG), and map g over those with
 * one result (scan.c.in); stencil and stencil2 over manifest arrays or
 * embedded generates (stencil.c.in); permute and permute' whose source is
 * manifest, an embedded generate or (permute') an embedded expand, and
 * expand, each optionally followed by a map (permute.c.in, expand.c.in);
 * a map over any other array (a component of a tuple of arrays, a
 * reshape, a unit, a control node: the host evaluates it) as a generate
 * reading it (generate.c.in).  A chain of maps counts as one map.  Other
 * steps, and scalar forms the emitter does not compile, have no kernel:
 * the interpreter evaluates them.
 */
#ifndef ACC_CORE_CODEGEN_KERNEL_CPU_H
#define ACC_CORE_CODEGEN_KERNEL_CPU_H

#include "core/codegen/kernel.h"

/* Whether step n has a CPU skeleton at all. */
int cg_cpu_has_skeleton(const ir_node *n);

/* Builds the kernel of step n of program p into *out.  ACC_OK with
 * o->built 1, or 0 when n has no CPU kernel (the reason in o->why_not);
 * else the error recorded on d (out of host memory, "acc_compile"). */
acc_status cg_cpu_kernel(const ir_program *p, const ir_node *n,
                         cg_kernel *out, cg_outcome *o, diag *d);

#endif
