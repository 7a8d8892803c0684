/*
 * kernel_fill.h — shared by the kernel generators of the CPU and CUDA
 * targets (kernel_cpu.c, kernel_cuda.c): both skeleton families have the
 * same holes for generate and fold bodies, filled from the same scalar
 * emitter; only the accumulator plumbing differs per target.
 */
#ifndef ACC_CORE_CODEGEN_KERNEL_FILL_H
#define ACC_CORE_CODEGEN_KERNEL_FILL_H

#include "core/codegen/emit_c.h"
#include "core/codegen/kernel_cpu.h"
#include "core/codegen/skeletons.h"

enum { CG_MAX_HOLES = 24 }; /* scan.c.in has 15, fold.cu.in 14 */

/* What one instantiation accumulates: its holes' values. */
typedef struct cg_inst {
    cg_emitter *e;
    strbuf text[CG_MAX_HOLES + 1]; /* the last one absorbs an overflow */
    cg_hole holes[CG_MAX_HOLES];
    size_t n_holes;
    char why[256];
} cg_inst;

typedef char cg_name_buf[24];

/* Names of index components ("i0".."i7", "j0".."j7"). */
extern const char *const cg_index_names[2][ACC_MAX_RANK];

/* The text of hole `name` (created when new); the spare last buffer
 * absorbs an overflow of the table, reported as out of memory. */
strbuf *cg_fill_hole(cg_inst *in, const char *name);
void cg_fill_value(cg_inst *in, const char *name, const char *value);
int cg_any_leaf(const uint8_t *d, size_t n);
/* 1 (with in->why set) when the emitter failed. */
int cg_fill_failed(cg_inst *in);
/* Output buffer declarations and stores of result leaves `x`. */
void cg_fill_stores(strbuf *decls, strbuf *body, const acc_type *elem,
                    const char *const *x);
/* The holes of generate.{c,cu}.in for node n. */
int cg_fill_generate(cg_inst *in, const ir_node *n);
/* Whether f is a primitive that is associative and commutative on its
 * parameters: work may then take elements in any interleaving. */
int cg_commutative_primitive(const ir_node *f);
/* The element load (or embedded producer) of a fold's input. */
int cg_fold_element(cg_inst *in, const ir_node *xs);
/* Locals holding the demanded leaves of a struct parameter. */
const char **cg_param_locals(cg_inst *in, strbuf *b, const ir_node *param,
                             const char *prefix, const char *from,
                             cg_name_buf *bufs, const char **names);
/* The combination body of a fold's function. */
int cg_fold_combine(cg_inst *in, const ir_node *f);
/* The store of a fold's result (with the post-map when n is a map). */
int cg_fold_store(cg_inst *in, const ir_node *n);

/* The kernel's array arguments: the arrays the emitted code reads, in
 * argument order (k->arrays, k->n_arrays), and its number of runtime
 * checks (k->checks).  0 when out of memory. */
int cg_fill_arrays(const cg_emitter *e, cg_kernel *k);

#endif
