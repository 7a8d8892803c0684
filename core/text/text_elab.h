/*
 * text_elab.h — elaboration of a parsed program into builder calls.
 *
 * Three stages, each in its own file:
 *   elaborate.c  evaluates the syntax tree at the meta level: helpers,
 *                lambdas and operators are functions of the elaborator
 *                (inlined at each use), the result is a typed core term;
 *   builtins*.c  the primitive functions and array operations, each
 *                building a core term and its type by unification;
 *   emit.c       after inference, turns the core term into acc_* calls.
 * types.c holds the inference types: scalar, tuple, shape and array types
 * plus type variables (for literals and for the results of fromIntegral,
 * truncate, ...) with a class that limits what they may become.
 */
#ifndef ACC_CORE_TEXT_TEXT_ELAB_H
#define ACC_CORE_TEXT_TEXT_ELAB_H

#include "core/text/text_ast.h"

/* ---- inference types (types.c) ----------------------------------------- */

typedef enum text_tkind { TT_VAR, TT_SCALAR, TT_TUPLE, TT_SHAPE, TT_ARRAY }
    text_tkind;

/* What a type variable may become; the default when nothing decides. */
typedef enum text_tclass {
    TC_ANY,   /* anything (no default)                       */
    TC_NUM,   /* a numeric scalar; defaults to i64            */
    TC_INT,   /* an integer scalar; defaults to i64           */
    TC_FLOAT, /* f32 or f64; defaults to f64                  */
    TC_SHAPE, /* an index of some rank (ignore); no default    */
    TC_BOUNDED /* an integer scalar or bool (minBound, the argument
                  of fromIntegral); defaults to i64            */
} text_tclass;

typedef struct text_type text_type;
struct text_type {
    text_tkind kind;
    acc_scalar scalar;   /* TT_SCALAR            */
    int rank;            /* TT_SHAPE, TT_ARRAY   */
    text_type *elem;     /* TT_ARRAY             */
    text_type **fields;  /* TT_TUPLE             */
    size_t n;
    text_type *link;     /* TT_VAR once bound    */
    text_tclass cls;     /* TT_VAR               */
};

text_type *text_ty_prune(text_type *t);
text_type *text_ty_var(text_state *st, text_tclass cls);
text_type *text_ty_scalar(text_state *st, acc_scalar s);
text_type *text_ty_shape(text_state *st, int rank);
text_type *text_ty_array(text_state *st, text_type *elem, int rank);
text_type *text_ty_tuple(text_state *st, size_t n, text_type **fields);
/* Makes a and b equal; 0 when they cannot be. */
int text_ty_unify(text_type *a, text_type *b);
/* Whether t (pruned) is an array or a tuple of arrays. */
int text_ty_is_array_sort(text_type *t);
/* A readable name: "Array 1 f32", "(f32, i64)", "a number". */
const char *text_ty_name(text_state *st, text_type *t);

/* ---- core terms ------------------------------------------------------------ */

typedef enum text_ck {
    CK_INT, CK_FLOAT, CK_BOOL, CK_INPUT, CK_PARAM, CK_LAMBDA,
    CK_UNOP, CK_BINOP, CK_ROUND, CK_CONVERT, CK_COND, CK_TUPLE, CK_GET,
    CK_INDEX, CK_IGNORE, CK_WHILE, CK_READ, CK_READ_LINEAR, CK_SHAPE,
    CK_SIZE, CK_THE, CK_UNIT, CK_GENERATE, CK_FILL, CK_MAP, CK_ZIPWITH,
    CK_BACKPERMUTE, CK_RESHAPE, CK_FOLD, CK_FOLD1, CK_REPLICATE, CK_SLICE,
    CK_FOLD_SEG, CK_FOLD_SEG_OFFSETS, CK_FOLD1_SEG, CK_SCAN, CK_SCAN_SEG,
    CK_PERMUTE, CK_PERMUTE_PAIRS, CK_STENCIL, CK_STENCIL2, CK_EXPAND,
    CK_ACOND, CK_AWHILE, CK_STD, CK_FOREIGN, CK_FOREIGN_EXP,
    CK_BOUND /* minBound (op 0) or maxBound (op 1) of the term's type */
} text_ck;

/* The standard library functions that elaborate to one acc_* call. */
typedef enum text_std {
    STD_SUM, STD_PRODUCT, STD_MAXIMUM, STD_MINIMUM, STD_AND, STD_OR,
    STD_ALL, STD_ANY, STD_FOLD_ALL, STD_FOLD1_ALL, STD_EVEN, STD_ODD,
    STD_ZIP, STD_UNZIP, STD_INDEXED, STD_ENUM_N, STD_ENUM_STEP_N,
    STD_REVERSE, STD_TRANSPOSE, STD_FLATTEN, STD_TAKE, STD_DROP, STD_INIT,
    STD_TAIL, STD_SLIT, STD_CONCAT, STD_GATHER, STD_SCATTER, STD_FILTER,
    STD_COMPACT, STD_LENGTH, STD_ZIP_N, STD_UNZIP_N
} text_std;

/* Stencil details: widths and boundaries of one or two sides. */
typedef struct text_stencil_info {
    int32_t widths[2][ACC_MAX_RANK];
    acc_boundary boundary[2];
} text_stencil_info;

typedef struct text_core text_core;
struct text_core {
    text_ck kind;
    text_type *type;
    text_pos pos;        /* the user position blamed for errors   */
    int depth;
    text_core **args;    /* NULL entries: All in replicate/slice   */
    size_t n;
    int op;              /* primop, scan kind, std id, field, input */
    int64_t ival;        /* CK_INT (as two's complement), CK_BOOL   */
    int neg;             /* CK_INT: written with a minus sign       */
    double fval;         /* CK_FLOAT                                */
    text_stencil_info *stencil;
    const char *name;    /* CK_FOREIGN, CK_FOREIGN_EXP: the name    */
    acc_node *node;      /* the builder node, once emitted          */
};

/* ---- meta-level values --------------------------------------------------------- */

typedef enum text_vk {
    VK_CORE,     /* a term: scalar, array, tuple                         */
    VK_CLOSURE,  /* a lambda or helper with its environment              */
    VK_BUILTIN,  /* a primitive or array operation                       */
    VK_PAP,      /* a function applied to too few arguments              */
    VK_ALL,      /* All                                                  */
    VK_SPEC,     /* [All, n]: a replicate/slice spec                     */
    VK_BOUNDARY, /* clamp, mirror, wrap, function g, constant v          */
    VK_STRING,   /* "blas.dot"                                           */
    VK_TUPLE     /* a tuple with a component that is not a term (a
                    function, a boundary): a meta-level value that
                    patterns, fst, snd and prj take apart              */
} text_vk;

typedef struct text_val text_val;
typedef struct text_env text_env;
typedef struct text_builtin text_builtin;

struct text_val {
    text_vk kind;
    text_core *core;            /* VK_CORE                               */
    text_pat **pats;            /* VK_CLOSURE                            */
    size_t n_pats;
    text_ast *body;
    text_env *env;
    text_def *def;              /* the helper, when a closure is one     */
    int prelude;                /* names resolve in the prelude's scope  */
    const text_builtin *builtin;/* VK_BUILTIN                            */
    text_val *fn;               /* VK_PAP                                */
    text_val **items;           /* VK_PAP args, VK_SPEC and VK_TUPLE
                                   entries                               */
    size_t n;
    acc_boundary boundary;      /* VK_BOUNDARY                           */
    text_val *arg;              /* VK_BOUNDARY function/constant         */
    const char *text;           /* VK_STRING                             */
};

struct text_env {
    const char *name;
    text_val *val;
    text_env *next;
};

typedef struct text_elab {
    text_state *st;
    acc_graph *g;
    acc_context *ctx;
    const text_module *user, *prelude;
    text_pos pos;   /* the latest user position: blamed inside the prelude */
    int depth;
    /* The names of the inputs text_elab_entry made, in order: a
     * parameter's variable, "xs.1" for field 1 of a tuple of arrays xs,
     * NULL when the pattern names none (arena memory). */
    const char **input_names;
    size_t n_input_names, cap_input_names;
} text_elab;

/* The builtin table (builtins.c). */
typedef text_val *(*text_builtin_fn)(text_elab *el, const text_builtin *b,
                                     text_val **args, text_pos pos);
struct text_builtin {
    const char *name;
    int arity;
    text_builtin_fn fn;
    int op;   /* primop, scan kind, std id, scalar type, ... */
};
const text_builtin *text_builtin_find(const char *name);

/* ---- elaborate.c ------------------------------------------------------------------ */

/* Elaborates entry `entry` of el->user: creates its inputs (in parameter
 * order) and returns the core term of its result. */
text_core *text_elab_entry(text_elab *el, const text_def *entry);
/* Applies a function value to n arguments (helpers are inlined). */
text_val *text_apply(text_elab *el, text_val *fn, size_t n, text_val **args,
                     text_pos pos);
/* f as a core lambda over n fresh parameters of the given types. */
text_core *text_reify(text_elab *el, text_val *f, size_t n,
                      text_type **param_types, const char *what,
                      text_pos pos);
text_val *text_val_core(text_elab *el, text_core *c);
/* The function defined as `name` in the text prelude. */
text_val *text_prelude_fn(text_elab *el, const char *name, text_pos pos);
/* A core term of the given kind, type and arguments (depth-checked). */
text_core *text_core_new(text_elab *el, text_ck kind, text_type *type,
                         text_pos pos, size_t n, text_core **args);
/* The core term of a value, or a type error saying `what` it should be. */
text_core *text_want_core(text_elab *el, text_val *v, const char *what,
                          text_pos pos);
/* Unifies or fails with "what has type A, expected B". */
void text_expect_type(text_elab *el, text_type *have, text_type *want,
                      const char *what, text_pos pos);
/* The position shown for a failure at pos (the user call site inside the
 * prelude). */
text_pos text_blame(const text_elab *el, text_pos pos);
_Noreturn void text_type_error(text_elab *el, text_pos pos, const char *fmt,
                               ...) __attribute__((format(printf, 3, 4)));

/* ---- emit.c ------------------------------------------------------------------------ */

/* The builder node of a core term; builder errors fail with the term's
 * position and the builder's message. */
acc_node *text_emit(text_elab *el, text_core *c);
/* The acc_type of an inference type, defaulting its variables. */
const acc_type *text_acc_type(text_elab *el, text_type *t, text_pos pos);

/* ---- prelude.c ---------------------------------------------------------------------- */

/* The standard library written in the text language. */
extern const char text_prelude_source[];

#endif
