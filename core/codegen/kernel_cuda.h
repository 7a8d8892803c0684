/*
 * kernel_cuda.h — skeleton instantiation for the CUDA target: the CUDA C++
 * source (for NVRTC) of the kernel of one plan step, from
 * core/skeletons/cuda/ and the same scalar code emitter as the CPU target,
 * and the launch contract of its entry points (docs/CUDA.md).
 *
 * The source is core/skeletons/cuda/prelude.cuh.in, then the scalar
 * helpers of the CPU prelude (its "BEGIN scalar helpers" .. "END scalar
 * helpers" text, shared through the ACC_FN attribute macro), then the
 * filled skeleton; the fold, segmented fold and scan skeletons take
 * group.cuh.in (in-order warp and block combining) into their GROUP hole.
 *
 * Steps with a CUDA skeleton: a manifest generate (generate.cu.in), fold
 * and fold1 (fold.cu.in) and foldSeg, foldSeg' and fold1Seg
 * (fold_seg.cu.in) whose array is manifest or an embedded generate, and
 * maps over any of those folds; the ten scans, plain (IR_SCAN) and
 * segmented (IR_SCAN_SEG), and maps over those with one result
 * (scan.cu.in); stencil and stencil2 over manifest arrays or embedded
 * generates (stencil.cu.in, the holes of the CPU's stencil.c.in); permute
 * and permute' (permute.cu.in; source manifest, an embedded generate or,
 * for permute', an embedded expand: kind CG_KERNEL_PERMUTE_EXPAND) and
 * expand (expand.cu.in), each also under maps, which take
 * expansion.cuh.in into their EXPANSION hole; a map (or a chain of maps)
 * over any other array (a component of a tuple of arrays, a reshape, a
 * unit, a control node, a stencil or another consumer whose skeleton does
 * not apply the map: the host evaluates it) as a generate reading it
 * (generate.cu.in), as kernel_cpu.c does.  A chain of maps over a
 * consumer counts as one map, as on the CPU.  Generating needs no device;
 * nothing here launches
 * anything.
 */
#ifndef ACC_CORE_CODEGEN_KERNEL_CUDA_H
#define ACC_CORE_CODEGEN_KERNEL_CUDA_H

#include "core/codegen/kernel.h"
#include "core/ir/program_ir.h"

#include <stddef.h>
#include <stdint.h>

/* Whether step n has a CUDA skeleton at all. */
int cg_cuda_has_skeleton(const ir_node *n);

/* Builds the CUDA kernel of step n of program p into *out (kind
 * CG_KERNEL_GENERATE, _FOLD, _FOLD_SEG, _SCAN, _SCAN_SEG, _STENCIL,
 * _PERMUTE, _PERMUTE_EXPAND or _EXPAND; free with cg_kernel_free).
 * ACC_OK with o->built 1, or 0 when n has no CUDA kernel (the reason in
 * o->why_not); else the error recorded on d (out of host memory,
 * "acc_compile"). */
acc_status cg_cuda_kernel(const ir_program *p, const ir_node *n,
                          cg_kernel *out, cg_outcome *o, diag *d);

/* ---- the launch contract (docs/CUDA.md, "Launch contracts") ---------------- */

/* Every entry point of every CUDA skeleton. */
typedef enum cg_cuda_entry_id {
    CG_CUDA_GENERATE,    /* accel_generate(args)                          */
    CG_CUDA_FOLD_ROWS,   /* accel_fold_rows(args)                         */
    CG_CUDA_FOLD_PART,   /* accel_fold_part(args)          pass 1 of 2    */
    CG_CUDA_FOLD_FINISH, /* accel_fold_finish(args, n)     pass 2 of 2    */
    CG_CUDA_SEG_WARP,    /* accel_fold_seg_warp(args)                     */
    CG_CUDA_SEG_THREAD,  /* accel_fold_seg_thread(args)                   */
    CG_CUDA_SEG_TAIL,    /* accel_fold_seg_tail(args, lo)                 */
    CG_CUDA_SCAN_ROWS,   /* accel_scan_rows(args)                         */
    CG_CUDA_SCAN_PART,   /* accel_scan_part(args)          pass 1 of 3    */
    CG_CUDA_SCAN_FINISH, /* accel_scan_finish(args, n)     pass 2 of 3    */
    CG_CUDA_SCAN_BLOCK,  /* accel_scan_block(args)         pass 3 of 3    */
    CG_CUDA_STENCIL_INTERIOR, /* accel_stencil_interior(args)             */
    CG_CUDA_STENCIL_BORDER,   /* accel_stencil_border(args)               */
    CG_CUDA_STENCIL_CHECKS,   /* accel_stencil_checks(args, side)         */
    /* permute.cu.in, kind CG_KERNEL_PERMUTE (source manifest or produced) */
    CG_CUDA_PERMUTE_DEFAULTS, /* accel_permute_defaults(args)             */
    CG_CUDA_PERMUTE_MAP,      /* accel_permute_map(args)    after a map   */
    CG_CUDA_PERMUTE_SOURCE,   /* accel_permute_source(args)               */
    CG_CUDA_PERMUTE_PRIVATE,  /* accel_permute_private(args) histograms   */
    /* permute.cu.in, kind CG_KERNEL_PERMUTE_EXPAND (permute' over expand) */
    CG_CUDA_PERMUTE_X_DEFAULTS, /* accel_permute_defaults(args)           */
    CG_CUDA_PERMUTE_X_MAP,      /* accel_permute_map(args)                */
    CG_CUDA_PERMUTE_X_SIZES,    /* accel_expand_sizes(args, parts)        */
    CG_CUDA_PERMUTE_X_SCAN,     /* accel_expand_scan(args, parts)         */
    CG_CUDA_PERMUTE_X_OFFSETS,  /* accel_expand_offsets(args, parts)      */
    CG_CUDA_PERMUTE_X_THREADS,  /* accel_expand_threads(args)             */
    CG_CUDA_PERMUTE_X_BLOCKS,   /* accel_expand_blocks(args)              */
    /* expand.cu.in, kind CG_KERNEL_EXPAND */
    CG_CUDA_EXPAND_SIZES,     /* accel_expand_sizes(args, parts)          */
    CG_CUDA_EXPAND_SCAN,      /* accel_expand_scan(args, parts)           */
    CG_CUDA_EXPAND_OFFSETS,   /* accel_expand_offsets(args, parts)        */
    CG_CUDA_EXPAND_THREADS,   /* accel_expand_threads(args)               */
    CG_CUDA_EXPAND_BLOCKS,    /* accel_expand_blocks(args)                */
    CG_CUDA_SCAN_SEG_WARP,   /* accel_scan_seg_warp(args)                 */
    CG_CUDA_SCAN_SEG_THREAD, /* accel_scan_seg_thread(args)               */
    CG_CUDA_SCAN_THREAD,     /* accel_scan_thread(args)                   */
    CG_CUDA_N_ENTRIES
} cg_cuda_entry_id;

/* How the grid covers the work. */
typedef enum cg_cuda_grid {
    CG_CUDA_GRID_THREADS, /* 1-D, any size: threads grid-stride over items */
    CG_CUDA_GRID_WARPS,   /* 1-D, any size: warps grid-stride over items   */
    CG_CUDA_GRID_BLOCKS,  /* 1-D, any size: blocks grid-stride over rows
                             (expand: over chunks of result positions)   */
    CG_CUDA_GRID_PARTS,   /* 2-D: gridDim.x = the parts of a row (n, the
                             same in every pass of a launch), gridDim.y
                             any size, striding over rows */
    CG_CUDA_GRID_ONE_WARP /* one block of 32 threads (a grid of one) */
} cg_cuda_grid;

typedef struct cg_cuda_entry {
    const char *name;      /* the extern "C" kernel, a PTX .entry */
    cg_kind kind;          /* the kernels that have it */
    const char *int64_arg; /* the int64_t parameter after args ("n", "lo",
                              "side"), or NULL when args is the only one */
    cg_cuda_grid grid;
    int warp_blocks;       /* blockDim.x must be a multiple of 32 (<= 1024) */
    int parts;             /* reads or writes A->part: folds and scans
                              one value per leaf per (row, part), with
                              A->part_has; permute's map the permuted
                              leaves; the expansion its offsets and
                              per-part sums (docs/CUDA.md) */
} cg_cuda_entry;

/* The contract of entry point id (NULL when out of range). */
const cg_cuda_entry *cg_cuda_entry_of(cg_cuda_entry_id id);

/* Segmented folds whose segments average fewer elements than this go one
 * thread per segment (accel_fold_seg_thread), others one warp per segment
 * (accel_fold_seg_warp).  A first guess, never measured on a device. */
enum { CG_CUDA_SEG_WARP_MIN_AVG = 8 };

/* The segmented-fold entry for k segments holding `elems` elements in
 * all (off[k] of the descriptor). */
cg_cuda_entry_id cg_cuda_fold_seg_entry(int64_t elems, int64_t k);

/* The expansion (expansion.cuh.in) and permute's launch choices.  Every
 * number here is a first guess, never measured on a device.
 *  - ITEMS: result positions a thread takes per chunk in
 *    accel_expand_blocks (the skeleton's ACC_EXPAND_ITEMS; the host sizes
 *    the grid with it);
 *  - MAX_PARTS: parts of the sources for the device scan of the sizes, one
 *    warp each, at most this many (one warp scans their sums in tiles of
 *    32), at least one per 32 elements;
 *  - THREAD_MAX, THREAD_SPREAD: one source element per thread
 *    (accel_expand_threads) when the largest size is at most THREAD_MAX
 *    and at most THREAD_SPREAD times the mean (small, uniform sizes: a
 *    warp's lanes loop about as long); otherwise blocks over result
 *    positions with a binary search each (accel_expand_blocks);
 *  - PRIVATE_BYTES, PRIVATE_PER_CELL: a permute whose f is a fetch-op is
 *    privatised per block (accel_permute_private) when the target fits
 *    PRIVATE_BYTES of shared memory (the skeleton's ACC_PRIVATE_BYTES)
 *    and there are at least PRIVATE_PER_CELL source elements per target
 *    cell for every block (so a block's merge, one global atomic per
 *    cell, is paid for). */
enum {
    CG_CUDA_EXPAND_ITEMS = 4,
    CG_CUDA_EXPAND_MAX_PARTS = 2048,
    CG_CUDA_EXPAND_THREAD_MAX = 64,
    CG_CUDA_EXPAND_THREAD_SPREAD = 4,
    CG_CUDA_PERMUTE_PRIVATE_BYTES = 16384,
    CG_CUDA_PERMUTE_PRIVATE_PER_CELL = 8
};

/* The parts of the sizes' scan for n source elements (n >= 1). */
int64_t cg_cuda_expand_parts(int64_t n);
/* Whether the values of an expansion of n source elements, `total`
 * results, the largest size `largest`, go one source element per thread
 * (else blocks over result positions). */
int cg_cuda_expand_per_thread(int64_t n, int64_t total, int64_t largest);
/* The most blocks a privatised permute may use for a target of `cells`
 * cells of leaf_bytes each and n source elements; 0: do not privatise. */
int64_t cg_cuda_permute_private_blocks(int64_t cells, int64_t n,
                                       size_t leaf_bytes);
/* Segmented scans whose pairs average fewer elements than this go one
 * thread per pair (accel_scan_seg_thread), others one warp per pair
 * (accel_scan_seg_warp): a warp scans tiles of 32 x ACC_ITEMS elements,
 * so shorter segments leave most of its lanes idle.  A first guess, never
 * measured on a device. */
enum { CG_CUDA_SCAN_SEG_WARP_MIN_AVG = 32 };

/* The segmented-scan entry for `pairs` work items of a row (its segments
 * and, for an embedded producer, its tail) holding `elems` elements in
 * all: always a thread per pair when f may not be regrouped (regroup is
 * cg_kernel.reassociable), else by the average. */
cg_cuda_entry_id cg_cuda_scan_seg_entry(int regroup, int64_t elems,
                                        int64_t pairs);

/* ACC_ITEMS of scan.cu.in: the elements of type elem a thread holds per
 * tile (a tile is blockDim.x x ACC_ITEMS elements). */
int64_t cg_cuda_scan_items(const acc_type *elem);

#endif
