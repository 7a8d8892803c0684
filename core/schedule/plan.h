/*
 * plan.h — the observable plan of a compiled program: its steps (kernels
 * and host steps) in execution order, which operations each contains, and
 * which arrays are intermediates.  Computed once at compile time from the
 * final IR, so it describes exactly what runs.
 */
#ifndef ACC_CORE_SCHEDULE_PLAN_H
#define ACC_CORE_SCHEDULE_PLAN_H

#include "core/base/strbuf.h"
#include "core/ir/program_ir.h"

typedef enum plan_role {
    ROLE_INTERMEDIATE,
    ROLE_OUTPUT
} plan_role;

typedef struct plan_step {
    const ir_node *node;  /* the operation that is the step */
    int kernel;           /* 1: a parallel kernel; 0: a host step */
    plan_role role;
} plan_step;

typedef struct plan {
    plan_step *steps;
    size_t n_steps;
    size_t kernels, intermediates, foreign_calls, duplicated;
} plan;

/* Whether an array operation is computed by a kernel of its own. */
int plan_is_kernel_op(ir_op op);
/* Builds the plan of p; 0 when out of memory. */
int plan_build(const ir_program *p, plan *out);
void plan_free(plan *pl);
/* Appends the plan as text or JSON. */
void plan_describe(strbuf *b, const plan *pl, acc_backend backend, int json);

#endif
