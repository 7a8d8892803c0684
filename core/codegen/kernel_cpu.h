/*
 * kernel_cpu.h — skeleton instantiation for the CPU target: the C source
 * of the kernel of one plan step, from core/skeletons/cpu/ and the scalar
 * code emitter.
 *
 * Steps with a CPU skeleton: a manifest generate (generate.c.in), fold and
 * fold1 whose array is manifest or an embedded generate, and map g over
 * such a fold (g applied as the result is written) (fold.c.in).  Other
 * steps, and scalar forms the emitter does not compile, have no kernel:
 * the interpreter evaluates them.
 */
#ifndef ACC_CORE_CODEGEN_KERNEL_CPU_H
#define ACC_CORE_CODEGEN_KERNEL_CPU_H

#include "core/ir/program_ir.h"

typedef enum cg_kind {
    CG_KERNEL_GENERATE = 1, /* accel_kernel_run over linear positions      */
    CG_KERNEL_FOLD = 2      /* accel_kernel_run over rows, _part, _finish  */
} cg_kind;

typedef struct cg_kernel {
    cg_kind kind;
    char *source;           /* the whole translation unit (malloc'd) */
    size_t n_arrays;        /* kernel argument i is the value of arrays[i] */
    const ir_node **arrays; /* (malloc'd) */
    const ir_node *fold;    /* CG_KERNEL_FOLD: the fold or fold1 node */
    const ir_node *src;     /* CG_KERNEL_FOLD: the array it reduces */
} cg_kernel;

/* Whether step n has a CPU skeleton at all. */
int cg_cpu_has_skeleton(const ir_node *n);

/* Builds the kernel of step n of program p into *out.  Returns 1; 0 when
 * n has no CPU kernel (the reason in why); -1 when out of memory. */
int cg_cpu_kernel(const ir_program *p, const ir_node *n, cg_kernel *out,
                  char *why, size_t why_len);
void cg_kernel_free(cg_kernel *k);

#endif
