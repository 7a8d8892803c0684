/*
 * kernel_permute.h — the kernels of forward permutation and irregular
 * expansion, both targets: filling permute.c.in / permute.cu.in for
 * permute and permute' (source manifest, an embedded producer, or for
 * permute' an embedded expand) and expand.c.in / expand.cu.in for expand
 * (source manifest or an embedded producer), each optionally followed by
 * a map (or a chain of maps).  kernel_cpu.c and kernel_cuda.c list them
 * among their builders; the CUDA skeletons have the same holes, plus the
 * shared expansion (kernel_cuda.c).
 */
#ifndef ACC_CORE_CODEGEN_KERNEL_PERMUTE_H
#define ACC_CORE_CODEGEN_KERNEL_PERMUTE_H

#include "core/codegen/kernel_fill.h"

/* The holes of permute.c.in / permute.cu.in for step n (a permute, a
 * permute', or maps over one); k->fold is the permute node, k->src its
 * source.  The conventions of cg_inst (kernel_fill.h). */
acc_status cg_build_permute(cg_inst *in, const ir_node *n, cg_kernel *k);
/* Whether permute pm (a permute or permute' node) is permute' over an
 * embedded expand (the EXPANDED hole). */
int cg_permute_expanded(const ir_node *pm);
/* 1 add, 2 and, 3 or, 4 xor: permute pm's f is that primitive on an
 * integer leaf of 32 or 64 bits, which one atomic read-modify-write
 * computes (the FETCH hole); else 0. */
int cg_permute_fetch(const ir_node *pm);
/* The identity element of permute pm's f, as a C expression of its one
 * leaf's type, when f is a primitive that has one (integer or float (+)
 * and (*), (.&.), (.|.), xor, (&&), (||)); else NULL.  Private copies of
 * the target then start as it instead of carrying a flag per cell (the
 * IDENT and IDENT_VALUE holes; -0.0 for float (+), so that x + id is x
 * bit for bit, -0.0 and NaN payloads included). */
const char *cg_permute_identity(const ir_node *pm);
/* The holes of expand.c.in / expand.cu.in for step n (an expand or maps
 * over one);
 * k->fold is the expand node, k->src its source vector.  The conventions
 * of cg_inst. */
acc_status cg_build_expand(cg_inst *in, const ir_node *n, cg_kernel *k);

#endif
