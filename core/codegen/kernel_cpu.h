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

#include "core/ir/program_ir.h"

typedef enum cg_kind {
    CG_KERNEL_GENERATE = 1, /* accel_kernel_run over linear positions      */
    CG_KERNEL_FOLD = 2,     /* accel_kernel_run over rows, _part, _finish  */
    CG_KERNEL_FOLD_SEG = 3, /* accel_kernel_run over (row, segment) pairs,
                               _part: an embedded producer's tail checks */
    CG_KERNEL_SCAN = 4,     /* accel_kernel_run over rows; _part, _finish,
                               _block: the phases of a blocked scan */
    CG_KERNEL_SCAN_SEG = 5, /* accel_kernel_run over (row, segment) pairs
                               and, for an embedded producer, each row's
                               elements past the last segment */
    CG_KERNEL_STENCIL = 6,  /* accel_kernel_run over result positions;
                               _part: an embedded producer's checks */
    CG_KERNEL_PERMUTE = 7,  /* _part(A, phase, lo, hi, 0): defaults, sizes,
                               map; accel_kernel_run over the source */
    CG_KERNEL_EXPAND = 8,   /* _part over source elements (sizes);
                               accel_kernel_run over result positions */
    CG_KERNEL_PERMUTE_EXPAND = 9 /* CUDA only: permute' over an embedded
                               expand (the CPU's is CG_KERNEL_PERMUTE),
                               whose entry points differ from permute's */
} cg_kind;

typedef struct cg_kernel {
    cg_kind kind;
    char *source;           /* the whole translation unit (malloc'd) */
    size_t n_arrays;        /* kernel argument i is the value of arrays[i] */
    const ir_node **arrays; /* (malloc'd) */
    const ir_node *fold;    /* CG_KERNEL_FOLD(_SEG): the fold, fold1 or
                               foldSeg node; CG_KERNEL_SCAN(_SEG): the
                               scan; CG_KERNEL_PERMUTE, _EXPAND: the
                               permute, permute' or expand */
    const ir_node *src;     /* CG_KERNEL_FOLD(_SEG): the array it reduces;
                               CG_KERNEL_SCAN(_SEG): the array it scans;
                               CG_KERNEL_PERMUTE: the source (an embedded
                               expand for permute' over one);
                               CG_KERNEL_EXPAND: the source vector;
                               CG_KERNEL_GENERATE: NULL, or for maps over
                               an array, that array */
    int reassociable;       /* CG_KERNEL_SCAN: f may be regrouped */
    uint8_t stencil_checks[2]; /* CG_KERNEL_STENCIL, per array: 0, or it
                               is an embedded producer with runtime checks
                               whose elements the kernel may not all compute
                               (accel_kernel_part must run over them): 1
                               those outside the result's extent, 2 all */
    int8_t stencil_reach[2][2][ACC_MAX_RANK]; /* CG_KERNEL_STENCIL, per
                               array, per dimension: the smallest [0] and
                               largest [1] offset from the focus of a
                               neighbour f reads (0 when none); the CUDA
                               host derives the interior box from it */
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
