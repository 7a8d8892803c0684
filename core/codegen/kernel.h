/*
 * kernel.h — what every target's skeleton instantiation produces: a
 * kernel's kind (which skeleton, so which entry points its launcher
 * calls), its source, and what the host must bind to launch it (the
 * arrays its scalar code reads, the consumer and source it was built
 * from).  The CPU (kernel_cpu.h) and CUDA (kernel_cuda.h) generators and
 * the backends that load and launch their kernels share these types.
 */
#ifndef ACC_CORE_CODEGEN_KERNEL_H
#define ACC_CORE_CODEGEN_KERNEL_H

#include "core/base/diag.h"
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
    int ranged;             /* CG_KERNEL_PERMUTE over an embedded expand
                               whose targets are affine in the position
                               (expand_affine.h): the kernel has the
                               ranged pass (permute.c.in) */
} cg_kernel;

enum { CG_WHY_MAX = 256 };

/* A kernel generator's answer besides its status (cg_cpu_kernel,
 * cg_cuda_kernel): whether the step got a kernel, and if not why.  A
 * step that cannot be a kernel on a target is not an error: its backend
 * schedules it on the interpreter at compile time, and the plan shows
 * why_not.  The caller owns the struct; errors (out of host memory) go
 * to the caller's diag only. */
typedef struct cg_outcome {
    int built;                /* 1: the kernel is in *out */
    char why_not[CG_WHY_MAX]; /* built 0: the reason, a phrase */
} cg_outcome;

/* Frees what a builder put in *k (the source and the array list). */
void cg_kernel_free(cg_kernel *k);

#endif
