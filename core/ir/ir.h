/*
 * ir.h — the intermediate representation shared by every pass.
 *
 * A term is a node.  Array terms (their type is array-sort) and scalar terms
 * (a value type) share one node struct; the op says what a node computes and
 * the type says which sort it is.  Lambdas are nodes whose first n_params
 * arguments are their IR_PARAM nodes and whose last argument is the body.
 *
 * Graphs built through the API are DAGs: a node used twice is one value used
 * twice.  A compiled program owns a copy of the nodes it needs, numbered
 * densely (id) so passes and executors can keep per-node tables.
 *
 * Every node of a graph records its free parameters (the params it refers
 * to that no lambda inside it binds), scalar and array ones apart, computed
 * when it is built, so scope errors are reported at the builder call that
 * makes them.  Program copies keep only the counts (free.n, afree.n).
 */
#ifndef ACC_CORE_IR_IR_H
#define ACC_CORE_IR_IR_H

#include "accel.h"
#include "core/base/arena.h"
#include "core/base/diag.h"
#include "core/ir/types.h"

#include <stdint.h>

typedef enum ir_op {
    /* scalar terms */
    IR_CONST,       /* literal of a scalar type: u.lit                      */
    IR_PARAM,       /* lambda parameter: u.param                            */
    IR_LAMBDA,      /* params..., body; u.lambda.n_params                   */
    IR_PRIM,        /* 1 or 2 operands; u.prim                              */
    IR_CONVERT,     /* operand; target = type->scalar                       */
    IR_COND,        /* c, t, e                                              */
    IR_TUPLE,       /* fields (scalar or array sort, by type)              */
    IR_GET,         /* tuple/shape; u.field                                 */
    IR_INDEX,       /* i64 components, outermost first                     */
    IR_WHILE,       /* cond lambda, body lambda, init                       */
    IR_READ,        /* array, index                                         */
    IR_READ_LINEAR, /* array, position                                      */
    IR_SHAPE,       /* array                                                */
    IR_SIZE,        /* array                                                */
    /* array terms */
    IR_INPUT,       /* u.input                                              */
    IR_UNIT,        /* x                                                    */
    IR_GENERATE,    /* shape, f                                             */
    IR_MAP,         /* f, xs                                                */
    IR_ZIPWITH,     /* f, xs0 .. xs(n-1)                                    */
    IR_BACKPERMUTE, /* shape, p, xs                                         */
    IR_RESHAPE,     /* shape, xs                                            */
    IR_FOLD,        /* f, z, xs                                             */
    IR_FOLD1,       /* f, xs                                                */
    /* LANGUAGE.md §3 beyond the foundation.  Optional arguments are simply
     * absent (the layouts below say when), so passes can iterate args. */
    IR_ALL,         /* scalar: the All entry of a spec; unit type          */
    IR_IGNORE,      /* scalar: the ignore target index; a shape type        */
    IR_REPLICATE,   /* spec[0..n-1], xs                                     */
    IR_SLICE,       /* xs, spec[0..n-1]                                     */
    IR_FOLD_SEG,    /* f, z (if u.seg.seeded), xs, seg                      */
    IR_SCAN,        /* f, z (unless SCANL1/SCANR1), xs; u.scan              */
    IR_SCAN_SEG,    /* f, z (unless SCANL1/SCANR1), xs, seg; u.scan         */
    IR_PERMUTE,     /* f, defaults, p, xs                                   */
    IR_PERMUTE_PAIRS, /* f, defaults, xs                                    */
    IR_STENCIL,     /* f, xs, boundary arg (FUNCTION/CONSTANT only)         */
    IR_STENCIL2,    /* f, xs, ys, then the boundary args that exist         */
    IR_EXPAND,      /* size, get, xs                                        */
    IR_ACOND,       /* c, a, b                                              */
    IR_AWHILE,      /* cond (array lambda), body (array lambda), init       */
    IR_BOUNDS,      /* scalar: index, shape; the index, or a runtime error
                       naming the operation in `fused` when it is out of
                       range (fusion inserts it where a producer is read
                       at an index nothing else checks).  Of an i64 (a
                       linear read's position): position, size; the
                       position, or the linear read's error               */
    IR_FOREIGN,     /* fallback (array lambda), arg; u.foreign (LANGUAGE.md
                       §3.8): an implementation registered under the name,
                       or the fallback applied to arg                      */
    IR_FOREIGN_EXP, /* scalar: fallback (scalar lambda), arg; u.foreign
                       (LANGUAGE.md §3.9)                                  */
    /* explicit sharing, introduced by sharing recovery */
    IR_LET,         /* bound, body; u.let.var                               */
    IR_VAR,         /* u.let.var: the value bound by the enclosing let;
                       ir_program.var_bound[var] is that term, so a pass
                       that follows data dependence must follow a VAR there */
    IR_OP_COUNT
} ir_op;

/* A scalar value in canonical form: integers sign- or zero-extended to 64
 * bits according to their type, bool as 0/1 in i, floats as double (an f32
 * value is a double that is exactly representable as float). */
typedef union ir_value {
    int64_t i;
    uint64_t u;
    double f;
} ir_value;

typedef struct ir_varset {
    uint32_t n;
    const uint32_t *slots; /* sorted param slots */
} ir_varset;

enum { IR_NODE_MAGIC = 0x4e4f4445u, /* "NODE" */
       IR_MAX_DEPTH = 4000 };

struct acc_node {
    uint32_t magic;
    ir_op op;
    const acc_type *type;  /* lambdas: the type of the body               */
    acc_graph *graph;      /* the owning graph; NULL in programs           */
    uint32_t id;           /* dense per graph / per program                */
    uint32_t depth;        /* 1 + the deepest argument; bounds recursion    */
    uint32_t n_args;
    acc_node **args;
    ir_varset free;        /* free scalar parameters (graphs only)         */
    ir_varset afree;       /* free array parameters (graphs only)          */
    uint64_t fused;        /* bit per ir_op: source operations fused here  */
    uint8_t in_bounds;     /* a read (or an IR_BOUNDS) whose index fusion
                              proved in range: compiled code may omit its
                              bounds check                                 */
    union {
        ir_value lit;
        acc_primop prim;
        size_t field;
        uint32_t input;
        struct { uint32_t slot; int bound; } param;
        struct { uint32_t n_params; } lambda;
        struct { int seeded, offsets; } seg;
        struct { acc_scan_kind kind; } scan;
        struct {
            int32_t widths[2][ACC_MAX_RANK];
            acc_boundary boundary[2];
        } stencil;
        struct { uint32_t var; } let;
        struct {
            const char *name;      /* "blas.dot"; in the owner's arena     */
            const struct reg_impl *impl; /* chosen at compile time by
                                      foreign resolution; NULL: fallback */
            const char *reason;    /* the choice, for plans (program arena) */
            void *state;           /* the implementation's per-program
                                      state (its create), or NULL          */
            /* foreignExp: a user function that the compiling backends
             * put into their kernels: its source and name (the
             * registry's, alive with the context), or NULL */
            const char *source, *entry;
        } foreign;
    } u;
};

typedef acc_node ir_node;

static inline int ir_is_array(const ir_node *n)
{
    return n->op != IR_LAMBDA && n->type->array_sort;
}
static inline const ir_node *ir_lambda_body(const ir_node *lam)
{
    return lam->args[lam->u.lambda.n_params];
}
static inline const ir_node *ir_lambda_param(const ir_node *lam, uint32_t i)
{
    return lam->args[i];
}

/* The name of an operation as users know it ("zipWith", "fold1"). */
const char *ir_op_name(ir_op op);
/* The user's operation a node came from, for messages: the first
 * operation recorded in n->fused, else the node's own operation. */
const char *ir_origin_name(const ir_node *n);

#endif
