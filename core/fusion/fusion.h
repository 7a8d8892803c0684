/*
 * fusion.h — array fusion (DESIGN.md §5): no intermediate arrays between
 * producers and consumers.
 *
 * Runs after sharing recovery on the let-tree.  Producers (map, zipWith,
 * backpermute, generate) become delayed arrays — generate nodes whose
 * function computes an element from an index — and chains of producers
 * collapse into one by composing their functions (beta reduction through
 * lets, so no argument is computed twice).  A let-bound producer with one
 * data use is inlined at that use; uses that only read its shape do not
 * count and are rewritten to its shape term.  core/simplify, which runs
 * first, already floats the program's lets, binds the sources of
 * producers and rewrites shape-only uses; fusion applies the same let
 * floating to the terms it makes itself by calling core/simplify/form.h
 * (one implementation), which also covers ACC_DISABLE=simplify.  Errors
 * (only out of memory) are recorded through diag_oom on the caller's
 * diag; there is no other error state.  What remains:
 *
 *  - a consumer (fold, scans, permute, stencil, expand, ...) whose array
 *    argument is a generate node has that producer embedded: it computes
 *    the elements on the fly;
 *  - map g over a consumer node is a consumer with g applied as it writes;
 *  - permute' over expand is one fused operation;
 *  - any other generate (let-bound with several uses, or an output) is a
 *    kernel that writes its array.
 *
 * Producers used as data by several consumers stay manifest, unless the
 * cost model allows duplication (fuse_options.duplicate_max_ops).
 */
#ifndef ACC_CORE_FUSION_FUSION_H
#define ACC_CORE_FUSION_FUSION_H

#include "core/ir/program_ir.h"

typedef struct fuse_options {
    int32_t duplicate_max_ops; /* 0: never duplicate a producer */
} fuse_options;

/* Fuses p in place; *duplicated counts producers computed in several
 * consumers.  Errors (only out of memory) are recorded on d. */
acc_status fuse_program(ir_program *p, const fuse_options *o,
                        size_t *duplicated, diag *d);

/* With fusion disabled (compile.c runs this instead of fuse_program):
 * every `permute'` over an expand written in place reads the expansion
 * from an array of its own, computed by a step of its own, instead of
 * combining it as it is computed (separate.c).  Errors (only out of
 * memory) are recorded on d. */
acc_status fuse_separate(ir_program *p, diag *d);

/* Marks the reads of generate functions at their own index whose array
 * bounds the generate's shape, and the bounds checks of that index against
 * a shape term that bounds it, as in range (in_range.c).  Run by
 * fuse_program; 0 when out of memory. */
int fuse_prove_in_range(ir_program *p);

/* Whether argument i of n is a producer embedded in n (so it is computed
 * as part of n's kernel, not by a kernel of its own). */
int fuse_is_embedded(const ir_node *n, uint32_t i);

#endif
