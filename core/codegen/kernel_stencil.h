/*
 * kernel_stencil.h — the CPU kernel of stencil and stencil2: the holes of
 * core/skeletons/cpu/stencil.c.in, filled from the scalar emitter
 * (kernel_cpu.c's stencil builder calls it).
 */
#ifndef ACC_CORE_CODEGEN_KERNEL_STENCIL_H
#define ACC_CORE_CODEGEN_KERNEL_STENCIL_H

#include "core/codegen/kernel_fill.h"

/* The holes of stencil.c.in for node n (IR_STENCIL or IR_STENCIL2) and
 * k->stencil_checks.  1; 0 with in->why set when n has no kernel; -1
 * when out of memory. */
int cg_fill_stencil(cg_inst *in, const ir_node *n, cg_kernel *k);

#endif
