/*
 * kernel_cpu.h — skeleton instantiation for the CPU target: the C source
 * of the kernel of one plan step, from core/skeletons/cpu/ and the scalar
 * code emitter.
 *
 * Steps with a CPU skeleton: a manifest generate (generate.c.in), fold and
 * fold1 whose array is manifest or an embedded generate, and map g over
 * such a fold (g applied as the result is written) (fold.c.in); the same
 * for foldSeg, foldSeg' and fold1Seg (fold_seg.c.in); the ten scans of
 * IR_SCAN (scan.c.in).  Other
 * steps, and scalar forms the emitter does not compile, have no kernel:
 * the interpreter evaluates them.
 */
#ifndef ACC_CORE_CODEGEN_KERNEL_CPU_H
#define ACC_CORE_CODEGEN_KERNEL_CPU_H

#include "core/ir/program_ir.h"

typedef enum cg_kind {
    CG_KERNEL_GENERATE = 1, /* accel_kernel_run over linear positions      */
    CG_KERNEL_FOLD = 2,     /* accel_kernel_run over rows, _part, _finish  */
    CG_KERNEL_FOLD_SEG = 3, /* accel_kernel_run over (row, segment) pairs,
                               _part: an embedded producer's tail checks */
    CG_KERNEL_SCAN = 4      /* accel_kernel_run over rows; _part, _finish,
                               _block: the phases of a blocked scan */
} cg_kind;

typedef struct cg_kernel {
    cg_kind kind;
    char *source;           /* the whole translation unit (malloc'd) */
    size_t n_arrays;        /* kernel argument i is the value of arrays[i] */
    const ir_node **arrays; /* (malloc'd) */
    const ir_node *fold;    /* CG_KERNEL_FOLD(_SEG): the fold, fold1 or
                               foldSeg node; CG_KERNEL_SCAN: the scan */
    const ir_node *src;     /* CG_KERNEL_FOLD(_SEG): the array it reduces;
                               CG_KERNEL_SCAN: the array it scans */
    int reassociable;       /* CG_KERNEL_SCAN: f may be regrouped */
    unsigned checks;        /* runtime checks in the scalar code: without
                               any, the error slot cannot change */
} cg_kernel;

/* Whether step n has a CPU skeleton at all. */
int cg_cpu_has_skeleton(const ir_node *n);

/* Builds the kernel of step n of program p into *out.  Returns 1; 0 when
 * n has no CPU kernel (the reason in why); -1 when out of memory. */
int cg_cpu_kernel(const ir_program *p, const ir_node *n, cg_kernel *out,
                  char *why, size_t why_len);
void cg_kernel_free(cg_kernel *k);

#endif
