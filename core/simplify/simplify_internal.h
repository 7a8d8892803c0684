/*
 * simplify_internal.h — what the simplifier's files share: the pass's
 * state and its node constructors (simplify.c), shape terms (shape.c)
 * and constant folding (fold.c).
 */
#ifndef ACC_CORE_SIMPLIFY_INTERNAL_H
#define ACC_CORE_SIMPLIFY_INTERNAL_H

#include "core/simplify/simplify.h"

/* The pass's state.  Its only error state is the diag d (the pass starts
 * with a clean one): out of memory is recorded there by simp_oom (through
 * diag_oom), every function then returns what it was given, and the
 * caller discards the half-rewritten program. */
typedef struct simplifier {
    ir_program *p;
    ir_node **done;   /* per node id (of the program before the pass):
                         its simplified form, so a shared node is
                         simplified once */
    uint32_t n_done;
    diag *d;
} simplifier;

/* Whether an error is recorded (the walks stop at their next check). */
static inline int simp_failed(const simplifier *s)
{
    return !diag_ok(s->d);
}

/* Records out of host memory on the pass's diag; the first error wins. */
static inline void simp_oom(simplifier *s)
{
    diag_oom(s->d, "simplify");
}

/* A new node of the program, or NULL (out of memory recorded). */
ir_node *simp_mk(simplifier *s, ir_op op, const acc_type *type, uint32_t n,
                 ir_node *const *args);
/* A fresh let variable bound to `bound`; UINT32_MAX when out of memory. */
uint32_t simp_new_var(simplifier *s, ir_node *bound);
ir_node *simp_var(simplifier *s, uint32_t var, const acc_type *type);
ir_node *simp_let(simplifier *s, uint32_t var, ir_node *bound,
                  ir_node *body);
ir_node *simp_get(simplifier *s, ir_node *t, size_t field,
                  const acc_type *type);
ir_node *simp_const(simplifier *s, const acc_type *type, ir_value v);

/* Whether array term a is a producer that fusion delays (a generate, a
 * backpermute, replicate, slice or zipWith, a map over a variable or a
 * producer), after the sources of producers were bound (simplify.c). */
int simp_is_producer(const ir_node *a);

/* shape a / size a (n) of a producer, let-bound or in place: its shape
 * term; n itself when a is not a producer. */
ir_node *simp_shape_use(simplifier *s, ir_node *n);

/* n with its constant parts folded (its arguments already simplified);
 * n itself when nothing folds. */
ir_node *simp_fold(simplifier *s, ir_node *n);

#endif
