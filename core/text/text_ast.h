/*
 * text_ast.h — the syntax tree of a text program and the parser that
 * builds it (parser.c).  Operators, sections and negation are desugared
 * by the parser into applications of named functions ("+", "negate") and
 * lambdas, so the elaborator sees few node kinds.
 */
#ifndef ACC_CORE_TEXT_TEXT_AST_H
#define ACC_CORE_TEXT_TEXT_AST_H

#include "core/text/text_lex.h"

/* Type annotations as written. */
typedef enum text_tyexp_kind {
    TY_SCALAR, /* f32, i64, ...                                      */
    TY_TUPLE,  /* (t, u, ...) and () (n = 0)                          */
    TY_SHAPE,  /* Shape n: an index of rank n                         */
    TY_ARRAY   /* Array n e, Vector e, Matrix e, Scalar e             */
} text_tyexp_kind;

typedef struct text_tyexp text_tyexp;
struct text_tyexp {
    text_tyexp_kind kind;
    text_pos pos;
    acc_scalar scalar;
    int rank;
    text_tyexp *elem;
    text_tyexp **items;
    size_t n;
};

typedef enum text_pat_kind {
    TP_VAR,   /* x                                       */
    TP_WILD,  /* _                                       */
    TP_TUPLE, /* (p, q, ...)                             */
    TP_INDEX, /* [p, q, ...]: components of an index     */
    TP_TYPED  /* (p : t)                                 */
} text_pat_kind;

typedef struct text_pat text_pat;
struct text_pat {
    text_pat_kind kind;
    text_pos pos;
    const char *name;   /* TP_VAR */
    text_pat **items;   /* TP_TUPLE, TP_INDEX; TP_TYPED: items[0] */
    size_t n;
    text_tyexp *type;   /* TP_TYPED */
};

typedef enum text_ast_kind {
    TA_VAR,     /* name (operators are names too: "+", "!!")          */
    TA_INT,     /* ival, negated when neg                             */
    TA_FLOAT,   /* fval                                               */
    TA_STRING,  /* name holds the text                                */
    TA_APP,     /* args[0] applied to args[1..n-1]                     */
    TA_LAMBDA,  /* \pats -> body                                      */
    TA_LET,     /* let binds in body                                  */
    TA_IF,      /* args[0..2]                                         */
    TA_TUPLE,   /* (args...), n = 0 is ()                             */
    TA_INDEX,   /* [args...]                                          */
    TA_ASCRIBE  /* args[0] : type                                     */
} text_ast_kind;

typedef struct text_ast text_ast;
typedef struct text_bind {
    text_pat *pat;
    text_ast *expr;
} text_bind;

struct text_ast {
    text_ast_kind kind;
    text_pos pos;
    int depth;          /* 1 + the deepest child: bounds recursion    */
    const char *name;
    uint64_t ival;
    int neg;
    double fval;
    text_ast **args;
    size_t n;
    text_pat **pats;
    size_t n_pats;
    text_ast *body;
    text_bind *binds;
    size_t n_binds;
    text_tyexp *type;
};

/* A top-level definition: name params [: result] = body. */
typedef struct text_def {
    const char *name;
    text_pos pos;
    text_pat **params;
    size_t n_params;
    text_tyexp *result;  /* NULL when not annotated */
    text_ast *body;
    int entry;           /* every parameter annotated (see text_is_entry) */
    int active;          /* being inlined now: recursion is refused       */
} text_def;

/* The definitions of a source text, in order, and an index by name (an
 * open-addressing hash table, module.c), so that finding a definition
 * costs the same however many there are: a program of 80k definitions
 * parsed in 61 s when every lookup (and the duplicate check of each new
 * definition) scanned the list. */
typedef struct text_module {
    text_def **defs;
    size_t n, cap;
    text_def **index;   /* cap_index slots (a power of two); NULL = empty */
    size_t cap_index;
    uint64_t *compares; /* the state's count of name comparisons          */
} text_module;

/* Parses a whole source text.  `prelude` marks the standard library's
 * text.  Fails with ACC_ERR_PARSE ("LINE:COL: found X, expected Y"). */
text_module *text_parse(text_state *st, const char *src, size_t len,
                        int prelude);

/* An empty module, and appending a definition to one: d is added and NULL
 * returned, or, when the module already defines d's name, nothing is
 * added and that definition is returned. */
text_module *text_module_new(text_state *st);
text_def *text_module_add(text_state *st, text_module *m, text_def *d);
/* The definition named `name`, or NULL. */
text_def *text_module_find(const text_module *m, const char *name);

#endif
