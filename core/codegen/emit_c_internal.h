/*
 * emit_c_internal.h — what the files of the scalar-to-C emitter share
 * (emit_c.h is the interface the kernel builders use).
 *
 *   emit_c.c          the emitter object, temporaries, and the expression
 *                     emitter core (em_*: constants, primitives, if, let,
 *                     array reads, check mode)
 *   emit_c_analyse.c  which terms can fail (runtime checks) and the demand
 *                     analysis (dm_*), the first pass
 *   emit_c_loops.c    while loops: loop-invariant hoisting and the masked
 *                     lockstep-lane loops of lane mode
 *   emit_c_foreign.c  foreignExp: a user function (acc_register_kernel)
 *                     called from the kernel, or the fallback in place
 *
 * The functions below are internal to these files (prefix cge_).  The
 * analysis and the emission make the same choices: every value a check
 * needs has its demand.  After a failure (cge_fail) the functions return
 * NULL or 0 and emit nothing more that matters: the code is dropped.
 */
#ifndef ACC_CORE_CODEGEN_EMIT_C_INTERNAL_H
#define ACC_CORE_CODEGEN_EMIT_C_INTERNAL_H

#include "core/base/diag.h"
#include "core/codegen/emit_c.h"

typedef struct cg_array {
    const ir_node *node; /* as read by the code */
    const ir_node *key;  /* the term it stands for (variables followed) */
    uint32_t leaves;     /* leaves read by the current function */
    uint32_t extents;    /* extents read by the current function */
    int size;            /* size read by the current function */
} cg_array;

struct cg_emitter {
    const ir_program *p;
    arena *ar;
    uint8_t **var_dem, **param_dem, **while_need;
    uint8_t *fails;      /* per node id: 0 not known, 1 cannot fail, 2 can */
    const char ***var_x, ***param_x;
    cg_array *arrays;
    size_t n_arrays, cap_arrays;
    unsigned tmp, site;
    int indent;
    /* the first failure (core/base/diag.h): ACC_ERR_COMPILE for a form
     * the emitter does not compile, ACC_ERR_OUT_OF_HOST_MEMORY (through
     * cge_oom) when an allocation failed, the failure not the code's */
    diag d;
    uint8_t all[TY_MAX_LEAVES];
    uint8_t none[TY_MAX_LEAVES]; /* no leaf demanded: check mode */
    const char *sources[CG_MAX_USER_SOURCES]; /* user functions called */
    size_t n_sources;
    /* per node id: the temporaries of a loop-invariant term computed
     * before the loop being emitted (em_while), or NULL */
    const char ***hoisted;
    uint32_t *hoisted_by; /* per node id: 1 + the id of that loop */
    /* lane mode (cg_set_lanes): temporaries are arrays of `lanes`
     * elements declared into lane_decls, except inside a lockstep loop's
     * lane loop (lockstep > 0), where they live one iteration */
    int lanes, lockstep, base_indent;
    strbuf *lane_decls;
    /* cg_set_ignore_collapse: a condition with an ignore side is emitted
     * as its other side */
    int collapse_ignore;
};
/* ---- utilities (emit_c.c) ---- */

/* Records the first failure (later ones are dropped): a form the emitter
 * does not compile.  Returns 0. */
int cge_fail(cg_emitter *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Records that an allocation failed (diag_oom; the first failure still
 * wins).  Returns 0. */
int cge_oom(cg_emitter *e);
/* Whether a failure is recorded. */
static inline int cge_failed(const cg_emitter *e) { return !diag_ok(&e->d); }
/* Arena memory of the emitter (size 0: 1 byte); NULL, recorded as out
 * of memory, when an allocation fails. */
void *cge_alloc(cg_emitter *e, size_t size);
/* A formatted string in the arena ("0" when out of memory). */
const char *cge_str(cg_emitter *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* One statement at the current indentation. */
void cge_line(cg_emitter *e, strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Whether any of the n demand flags of d is set (d NULL: none). */
int cge_any(const uint8_t *d, size_t n);

/* ---- emission (emit_c.c) ---- */

/* n expression slots in the arena (NULL when out of memory). */
const char **cge_exprs(cg_emitter *e, size_t n);
/* A new temporary of type s initialised with expr (a lane array element
 * in lane mode outside a lockstep loop). */
const char *cge_tmp(cg_emitter *e, strbuf *b, acc_scalar s, const char *expr);
/* A new mutable temporary, declared without a value. */
const char *cge_var_decl(cg_emitter *e, strbuf *b, acc_scalar s);
/* Emits n for the demanded leaves dem: one C expression per leaf (NULL
 * for leaves not demanded), or NULL on failure.  A term with no demanded
 * leaf that can fail is emitted in check mode. */
const char **cge_em(cg_emitter *e, strbuf *b, const ir_node *n,
                    const uint8_t *dem);
/* The single leaf of a scalar operand ("0" on failure). */
const char *cge_em1(cg_emitter *e, strbuf *b, const ir_node *n);
/* The one-leaf result x. */
const char **cge_em_one(cg_emitter *e, const char *x);

/* ---- runtime checks and demand analysis (emit_c_analyse.c) ---- */

/* An array-valued argument (not scalar code: not walked). */
int cge_is_array_arg(const ir_node *a);
/* A primitive with a runtime check of its second operand (an integer
 * division, a shift by a signed amount). */
int cge_prim_checks(const ir_node *n);
/* Whether node n itself has a runtime check. */
int cge_checks_itself(const ir_node *n);
/* Whether evaluating n can fail (a check in n or the scalar code under
 * it; memoised per node). */
int cge_can_fail(cg_emitter *e, const ir_node *n);
/* Whether the condition of n (if, && or ||) decides whether a part of it
 * that can fail runs. */
int cge_decides(cg_emitter *e, const ir_node *n);
/* Whether a loop's condition or body can fail. */
int cge_loop_fails(cg_emitter *e, const ir_node *n);
/* The first leaf of an IR_GET's component in its tuple. */
size_t cge_get_offset(const ir_node *n);
/* Demand analysis of n for the demanded leaves dem. */
void cge_dm(cg_emitter *e, const ir_node *n, const uint8_t *dem);

/* ---- loops (emit_c_loops.c) ---- */

/* Emits while loop n (its invariant terms hoisted before it; in lockstep
 * over the lanes where lane mode allows); its state, or NULL. */
const char **cge_em_while(cg_emitter *e, strbuf *b, const ir_node *n);

/* ---- foreignExp (emit_c_foreign.c) ---- */

/* Demand analysis of a foreignExp. */
void cge_dm_foreign(cg_emitter *e, const ir_node *n, const uint8_t *dem);
/* Emits a foreignExp: the user function's call, or the fallback. */
const char **cge_em_foreign(cg_emitter *e, strbuf *b, const ir_node *n,
                            const uint8_t *dem);

#endif
