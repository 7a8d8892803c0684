/*
 * kernel_fill.h — shared by the kernel generators of the CPU and CUDA
 * targets (kernel_cpu.c, kernel_cuda.c): both skeleton families have the
 * same holes for generate, fold, segmented fold and scan bodies, filled
 * from the same scalar emitter, and build a kernel the same way; only the
 * accumulator plumbing and the prelude differ per target.
 */
#ifndef ACC_CORE_CODEGEN_KERNEL_FILL_H
#define ACC_CORE_CODEGEN_KERNEL_FILL_H

#include "core/codegen/emit_c.h"
#include "core/codegen/kernel.h"
#include "core/codegen/skeletons.h"

enum { CG_MAX_HOLES = 40 }; /* permute.c.in has 27 (+2 of every kernel) */

/* What one instantiation accumulates: its holes' values.  The fill
 * functions below return the compile diag's status: out of memory is
 * recorded on d through diag_oom (the emitter's, cg_out_of_memory, when
 * it stops; a failed text, text[i].failed with the spare one included,
 * when the texts are joined: cg_fill_template, cg_fill_kernel), never a
 * reason.  That the step cannot be a kernel is an outcome, not an error:
 * the reason in why (cg_fill_refuse), ACC_OK returned, and the kernel
 * builder's cg_outcome says so.  Filling stops at the first of either
 * (cg_fill_stop). */
typedef struct cg_inst {
    cg_emitter *e;
    strbuf text[CG_MAX_HOLES + 1]; /* the last one absorbs an overflow */
    cg_hole holes[CG_MAX_HOLES];
    size_t n_holes;
    char why[CG_WHY_MAX]; /* "" while the step can be a kernel */
    diag *d;              /* the compile's diag */
} cg_inst;

/* Whether filling stops after a fill function answered s: an error
 * recorded, or a reason given. */
static inline int cg_fill_stop(const cg_inst *in, acc_status s)
{
    return s != ACC_OK || in->why[0] != '\0';
}
/* The step cannot be a kernel, for the reason printf'ed into in->why
 * (the first reason stays): ACC_OK. */
acc_status cg_fill_refuse(cg_inst *in, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

typedef char cg_name_buf[24];

/* Names of index components ("i0".."i7", "j0".."j7"). */
extern const char *const cg_index_names[2][ACC_MAX_RANK];

/* The text of hole `name` (created when new); the spare last buffer
 * absorbs an overflow of the table, reported as out of memory. */
strbuf *cg_fill_hole(cg_inst *in, const char *name);
void cg_fill_value(cg_inst *in, const char *name, const char *value);
int cg_any_leaf(const uint8_t *d, size_t n);
/* After the emitter failed: out of memory (diag_oom) when it ran out,
 * else its error as the reason (cg_fill_refuse). */
acc_status cg_fill_failed(cg_inst *in);
/* Output buffer declarations and stores of result leaves `x`. */
void cg_fill_stores(strbuf *decls, strbuf *body, const acc_type *elem,
                    const char *const *x);
/* The holes of generate.{c,cu}.in for node n. */
acc_status cg_fill_generate(cg_inst *in, const ir_node *n);
/* The holes of generate.{c,cu}.in for a chain of maps n over an array
 * that is not a consumer with a kernel (cg_post_map_base(n): a component
 * of a tuple of arrays, a reshape, a unit, a control node...): element p
 * is the maps applied to that array's element p, the array being a
 * kernel argument the host evaluates. */
acc_status cg_fill_map_over(cg_inst *in, const ir_node *n);
/* The builder of such a map on both targets: cg_fill_map_over, and k->src
 * the mapped array (the drivers take the result's shape from it). */
acc_status cg_build_map_over(cg_inst *in, const ir_node *n, cg_kernel *k);
/* Whether f is a primitive that is associative and commutative on its
 * parameters: work may then take elements in any interleaving. */
int cg_commutative_primitive(const ir_node *f);
/* The element load (or embedded producer) of a fold's input. */
acc_status cg_fold_element(cg_inst *in, const ir_node *xs);
/* Locals holding the demanded leaves of a struct parameter. */
const char **cg_param_locals(cg_inst *in, strbuf *b, const ir_node *param,
                             const char *prefix, const char *from,
                             cg_name_buf *bufs, const char **names);
/* The combination body of a fold's function. */
acc_status cg_fold_combine(cg_inst *in, const ir_node *f);
/* The consumer of a step: n, or under fusion's maps after a consumer
 * (map h (map g c)) the consumer c. */
const ir_node *cg_post_map_base(const ir_node *n);
/* Whether maps over consumer c can be applied as c stores its result:
 * not over a primed scan, whose pair of results no map can take (the
 * type checker refuses it; the generators refuse it too). */
int cg_maps_into(const ir_node *c);
/* The store of a fold's result (with the post-maps when n is a map). */
acc_status cg_fold_store(cg_inst *in, const ir_node *n);

/* The accumulator's holes: FIELDS, SEED_LOAD (z from A->seed, or zeros
 * when not seeded), PART_STORE (acc into partial p), PART_LOAD (partial p
 * into x). */
void cg_fill_leaves(cg_inst *in, const acc_type *elem, int seeded);
/* The holes of a fold, fold1 or segmented fold (step n, or map g over
 * one) common to both targets: ELEM_*, COMBINE_*, STORE_*, the leaves',
 * SRC_RANK, SEEDED, and SEG_ARG for a segmented fold; sets k->fold and
 * k->src. */
acc_status cg_fill_fold(cg_inst *in, const ir_node *n, cg_kernel *k);
/* The same for scan step n: ELEM_*, COMBINE_*, STORE_DECLS/BODY,
 * TOTAL_DECLS/BODY, the leaves', SRC_RANK, LEFT, FORM (0 scanl/scanr,
 * 1 primed, 2 scanl1/scanr1, 3 prescan, 4 postscan); sets k->fold, k->src
 * and k->reassociable. */
acc_status cg_fill_scan(cg_inst *in, const ir_node *n, cg_kernel *k);

/* Appends template `name` ("cuda/group.cuh.in") to out with the holes
 * filled so far; refused when it is not embedded or one of its holes has
 * no value (in->why says which); out of memory when a hole's text or out
 * failed. */
acc_status cg_fill_template(cg_inst *in, strbuf *out, const char *name);

/* How a target builds the kernel of a kind of step: its skeleton, and the
 * function that fills the holes (the conventions of cg_inst). */
typedef struct cg_builder {
    cg_kind kind;
    const char *skeleton;
    acc_status (*build)(cg_inst *in, const ir_node *n, cg_kernel *k);
} cg_builder;

/* The target's source of a kernel into k->source: its prelude, then
 * skeleton filled (cg_fill_template's conventions). */
typedef acc_status (*cg_assemble_fn)(cg_inst *in, const char *skeleton,
                                     cg_kernel *k);

/* The kernel of step n of p built by b into *out: holes, source, array
 * arguments.  ACC_OK with o->built 1, or 0 when it cannot be compiled
 * (the reason in o->why_not); out of memory recorded on d
 * ("acc_compile"), *out then empty. */
acc_status cg_fill_kernel(const ir_program *p, const ir_node *n,
                          const cg_builder *b, cg_assemble_fn assemble,
                          cg_kernel *out, cg_outcome *o, diag *d);

/* The kernel's array arguments: the arrays the emitted code reads, in
 * argument order (k->arrays, k->n_arrays), and its number of runtime
 * checks (k->checks); out of memory recorded on d. */
acc_status cg_fill_arrays(const cg_emitter *e, cg_kernel *k, diag *d);

#endif
