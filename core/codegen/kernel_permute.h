/*
 * kernel_permute.h — the CPU kernels of forward permutation and irregular
 * expansion: filling core/skeletons/cpu/permute.c.in for permute and
 * permute' (source manifest, an embedded producer, or for permute' an
 * embedded expand) and core/skeletons/cpu/expand.c.in for expand (source
 * manifest or an embedded producer), each optionally followed by a map.
 * kernel_cpu.c lists them among its builders.
 */
#ifndef ACC_CORE_CODEGEN_KERNEL_PERMUTE_H
#define ACC_CORE_CODEGEN_KERNEL_PERMUTE_H

#include "core/codegen/kernel_fill.h"

/* The holes of permute.c.in for step n (a permute, a permute', or a map
 * over one); k->fold is the permute node, k->src its source.  1, or 0
 * with in->why set. */
int cg_build_permute(cg_inst *in, const ir_node *n, cg_kernel *k);
/* The holes of expand.c.in for step n (an expand or a map over one);
 * k->fold is the expand node, k->src its source vector. */
int cg_build_expand(cg_inst *in, const ir_node *n, cg_kernel *k);

#endif
