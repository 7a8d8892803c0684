/*
 * primops.h — the typing table of scalar primitives: arity, which operand
 * types are accepted, and the result type.  The builder checks against it;
 * the interpreter and the code generators implement the semantics.
 */
#ifndef ACC_CORE_IR_PRIMOPS_H
#define ACC_CORE_IR_PRIMOPS_H

#include "accel.h"

typedef enum prim_operands {
    PO_NUMERIC,  /* integers and floats                 */
    PO_INTEGRAL, /* integers                             */
    PO_FLOATING, /* f32, f64                             */
    PO_ORDERED,  /* every scalar, bool included          */
    PO_BOOL      /* bool                                 */
} prim_operands;

typedef enum prim_result {
    PR_SAME, /* the operand type */
    PR_BOOL,
    PR_I64,
    PR_NAMED /* given by the call (acc_round_to) */
} prim_result;

typedef struct prim_info {
    const char *name;
    int arity; /* 1 or 2; 0 for numbers that are not primops */
    prim_operands operands;
    prim_result result;
} prim_info;

/* The entry of op; its arity is 0 when op is not a primop. */
prim_info prim_lookup(acc_primop op);
/* Whether scalar s is accepted by the operand class. */
int prim_accepts(prim_operands operands, acc_scalar s);
const char *prim_operands_text(prim_operands operands);

#endif
