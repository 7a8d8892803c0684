/*
 * emit_c.h — the scalar-to-C emitter of the compiling backends.
 *
 * Scalar code (lambda bodies) becomes straight-line C: one temporary per
 * value, tuples flattened into one temporary per scalar leaf, `let` as
 * temporaries, `if` as if/else blocks assigning result temporaries (only
 * the taken branch runs; && and || short-circuit), `while` as a loop.
 * Array reads become loads from kernel arguments (one pointer per leaf).
 *
 * Dead code is removed here, not left to the C compiler: a demand analysis
 * (cg_analyse) computes which leaves of every let-bound value, lambda
 * parameter and loop state are used; leaves nobody uses are neither loaded
 * nor computed.  Runtime checks (division by zero, negative shift amounts,
 * out-of-bounds reads) become ACC_FAIL(kind, site) statements of the
 * prelude (core/skeletons/cpu/prelude.h.in), and they are kept where the
 * value they guard is not used: a check belongs to the evaluation of its
 * expression (docs/LANGUAGE.md), so an unused term that can fail is
 * emitted as its checks and the values they need, nothing else.
 *
 * The output depends only on the IR (temporaries and check sites are
 * numbered in emission order), so equal kernels give equal source.
 */
#ifndef ACC_CORE_CODEGEN_EMIT_C_H
#define ACC_CORE_CODEGEN_EMIT_C_H

#include "core/base/strbuf.h"
#include "core/ir/program_ir.h"

typedef struct cg_emitter cg_emitter;

/* A new emitter for scalar code of program p; NULL when out of memory. */
cg_emitter *cg_emitter_create(const ir_program *p);
void cg_emitter_free(cg_emitter *e);
/* The program the emitter compiles scalar code of. */
const ir_program *cg_program(const cg_emitter *e);
/* Lane mode (lanes > 1; 0 turns it off): the code computes `lanes`
 * elements, lane `acc_l` in the loops the skeleton opens with
 * ACC_LANE_BEGIN and closes with ACC_LANE_END around the code (over
 * acc_l < ACC_LANES, with acc_pos and the index of that lane's element);
 * temporaries are arrays of ACC_LANES elements declared into decls; a
 * loop at the top level of the code whose condition and body cannot fail
 * and hold no loop runs in lockstep: the lane loop closes before it, each
 * round computes every lane (a loop the C compiler vectorises), and it
 * reopens after it. */
void cg_set_lanes(cg_emitter *e, int lanes, strbuf *decls);
/* Ignore collapse (on != 0; 0 turns it off): a condition one of whose
 * sides is `ignore` is emitted as its other side, without the condition,
 * so a permute' target computes its candidate: the index it would be were
 * it not ignored (the ranged pass's per-element bounds, expand_affine.h).
 * Checks of the condition and of the skipped side are not emitted. */
void cg_set_ignore_collapse(cg_emitter *e, int on);
/* Whether lam's body has a loop that lane mode would run in lockstep. */
int cg_lockstep_candidate(cg_emitter *e, const ir_node *lam);
/* Why the last analysis or emission failed ("" when none). */
const char *cg_error(const cg_emitter *e);
/* Whether an allocation of the emitter failed: the code may well be
 * compilable, the failure is out of memory (not a reason to interpret). */
int cg_out_of_memory(const cg_emitter *e);

/* The arrays the emitted code reads, in the order they were first read:
 * argument i of the kernel is the value of cg_array_node(e, i). */
size_t cg_n_arrays(const cg_emitter *e);
/* Runtime checks (ACC_FAIL sites) emitted so far. */
unsigned cg_check_sites(const cg_emitter *e);
const ir_node *cg_array_node(const cg_emitter *e, size_t i);
/* The argument number of array term `node` (registered when new). */
int cg_array_index(cg_emitter *e, const ir_node *node);

/* Demand analysis of lam's body, given the demanded leaves of its result
 * (NULL: all).  Returns 0 (see cg_error) for a form the emitter does not
 * compile. */
int cg_analyse(cg_emitter *e, const ir_node *lam, const uint8_t *demand);
/* The demanded leaves of a lambda parameter after analysis (NULL: none). */
const uint8_t *cg_param_demand(const cg_emitter *e, const ir_node *param);
/* Whether applying lam can fail: its body has a runtime check (emitted
 * even when no leaf of the result is demanded). */
int cg_can_fail(cg_emitter *e, const ir_node *lam);

/* Starts a C function: array usage is tracked per function. */
void cg_begin_function(cg_emitter *e, int indent);
/* Declarations (pointers, extents, sizes) of the arrays the current
 * function reads. */
void cg_array_decls(cg_emitter *e, strbuf *b);

/* Emits lam's body into b.  args[i] holds one C expression per leaf of
 * parameter i (only demanded leaves are read).  out receives one
 * expression per leaf of the result (NULL for leaves not demanded).
 * Returns 0 (see cg_error) on failure. */
int cg_emit_lambda(cg_emitter *e, strbuf *b, const ir_node *lam,
                   const char *const *const *args, const uint8_t *demand,
                   const char **out);
/* Emits loads of every leaf of array `node` at linear position `pos` (no
 * bounds check: the caller guarantees it) into out. */
int cg_emit_load(cg_emitter *e, strbuf *b, const ir_node *node,
                 const char *pos, const char **out);

enum { CG_MAX_USER_SOURCES = 16 };
/* The sources of the user functions (acc_register_kernel) the emitted
 * code calls (foreignExp nodes resolved to one), each once, appended to
 * b: they go into the kernel's translation unit before the code. */
void cg_user_sources(const cg_emitter *e, strbuf *b);

/* The C type of a scalar ("int32_t", "float"; bool is "uint8_t"). */
const char *cg_ctype(acc_scalar s);
/* The field of acc_kval holding a canonical value of type s ("i", "u", "f"). */
const char *cg_kval_field(acc_scalar s);

#endif
