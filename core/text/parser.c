/*
 * parser.c — tokens to a syntax tree (text_ast.h), by recursive descent
 * with precedence climbing for operators.
 *
 * Layout: there are no layout rules inside expressions, but a definition
 * ends where a token starts at (or left of) the column of the program's
 * first definition: each definition starts in that column and its
 * continuation lines are indented (as in every LANGUAGE.md §4 program).
 *
 * Desugaring done here: `a + b` is the application of the function named
 * "+", `a \`quot\` b` of "quot", `-e` of "negate" (a negated literal is
 * folded into the literal), `(+)` is the name "+", sections `(< 4)` and
 * `(2 *)` are lambdas over a fresh name that no program can spell, and a
 * local function binding `f x = e` is `f = \x -> e`.
 */
#include "core/text/text_ast.h"

#include <stdio.h>
#include <string.h>

typedef struct parser {
    text_state *st;
    text_token *toks;
    size_t n, at;
    int in_body;       /* inside a definition: the column rule applies */
    int def_col;       /* the column definitions start in              */
    int depth;
    unsigned fresh;
    text_token newdef; /* what cur() shows at the end of a definition  */
} parser;

enum { ASSOC_LEFT, ASSOC_RIGHT, ASSOC_NONE };

static text_ast *parse_expr(parser *p);
static text_ast *parse_opexpr(parser *p, int min_prec);
static text_pat *parse_apat(parser *p);
static text_tyexp *parse_type(parser *p);

/* ---- tokens ---------------------------------------------------------------- */

static const text_token *peek_tok(parser *p, size_t k)
{
    size_t i = p->at + k < p->n ? p->at + k : p->n - 1;
    const text_token *t = &p->toks[i];
    if (p->in_body && t->kind != TK_EOF && t->pos.col <= p->def_col) {
        p->newdef = *t;
        p->newdef.kind = TK_NEWDEF;
        return &p->newdef;
    }
    return t;
}

static const text_token *cur(parser *p)
{
    return peek_tok(p, 0);
}

static text_tok_kind kind(parser *p)
{
    return cur(p)->kind;
}

static int is_op(parser *p, const char *text)
{
    const text_token *t = cur(p);
    return t->kind == TK_OP && strcmp(t->text, text) == 0;
}

static void next(parser *p)
{
    if (p->at + 1 < p->n)
        p->at++;
}

_Noreturn static void expected(parser *p, const char *what)
{
    const text_token *t = cur(p);
    text_fail(p->st, ACC_ERR_PARSE, t->pos, "found %s, expected %s",
              text_tok_describe(p->st, t), what);
}

static const text_token *expect(parser *p, text_tok_kind k, const char *what)
{
    if (kind(p) != k)
        expected(p, what);
    const text_token *t = &p->toks[p->at];
    next(p);
    return t;
}

static void enter(parser *p)
{
    if (++p->depth > TEXT_MAX_NESTING)
        text_fail(p->st, ACC_ERR_PARSE, cur(p)->pos, "the program is nested "
                  "deeper than %d levels; expected shallower nesting",
                  TEXT_MAX_NESTING);
}

static void leave(parser *p)
{
    p->depth--;
}

/* ---- nodes ------------------------------------------------------------------ */

static text_ast *node(parser *p, text_ast_kind k, text_pos pos)
{
    text_ast *a = text_alloc(p->st, sizeof *a);
    a->kind = k;
    a->pos = pos;
    a->depth = 1;
    return a;
}

/* Sets a's depth from its children; refuses trees too deep to walk. */
static text_ast *seal(parser *p, text_ast *a)
{
    int d = 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->args[i]->depth > d)
            d = a->args[i]->depth;
    if (a->body && a->body->depth > d)
        d = a->body->depth;
    for (size_t i = 0; i < a->n_binds; i++)
        if (a->binds[i].expr->depth > d)
            d = a->binds[i].expr->depth;
    a->depth = d + 1;
    if (a->depth > TEXT_MAX_NESTING)
        text_fail(p->st, ACC_ERR_PARSE, a->pos, "the expression is nested "
                  "deeper than %d levels; expected shallower nesting (use "
                  "let to name parts)", TEXT_MAX_NESTING);
    return a;
}

static text_ast *var(parser *p, const char *name, text_pos pos)
{
    text_ast *a = node(p, TA_VAR, pos);
    a->name = name;
    return a;
}

static text_ast *app(parser *p, text_pos pos, size_t n, text_ast **items)
{
    text_ast *a = node(p, TA_APP, pos);
    a->args = text_alloc(p->st, n * sizeof *a->args);
    memcpy(a->args, items, n * sizeof *items);
    a->n = n;
    return seal(p, a);
}

static text_ast *binary(parser *p, const char *op, text_pos pos,
                        text_ast *l, text_ast *r)
{
    text_ast *items[3] = {var(p, op, pos), l, r};
    return app(p, pos, 3, items);
}

static text_ast *negate(parser *p, text_pos pos, text_ast *e)
{
    if (e->kind == TA_INT) {
        e->neg = !e->neg;
        e->pos = pos;
        return e;
    }
    if (e->kind == TA_FLOAT) {
        e->fval = -e->fval;
        e->pos = pos;
        return e;
    }
    text_ast *items[2] = {var(p, "negate", pos), e};
    return app(p, pos, 2, items);
}

static text_pat *pat_node(parser *p, text_pat_kind k, text_pos pos)
{
    text_pat *q = text_alloc(p->st, sizeof *q);
    q->kind = k;
    q->pos = pos;
    return q;
}

/* \x -> body, x a fresh name that no program can spell. */
static text_ast *section(parser *p, text_pos pos, const char *op,
                         text_ast *left, text_ast *right)
{
    char name[16];
    snprintf(name, sizeof name, "%%s%u", p->fresh++);
    text_pat *x = pat_node(p, TP_VAR, pos);
    x->name = text_strndup(p->st, name, strlen(name));
    text_ast *hole = var(p, x->name, pos);
    text_ast *lam = node(p, TA_LAMBDA, pos);
    lam->pats = text_alloc(p->st, sizeof *lam->pats);
    lam->pats[0] = x;
    lam->n_pats = 1;
    lam->body = binary(p, op, pos, left ? left : hole, right ? right : hole);
    return seal(p, lam);
}

/* ---- growable lists in the arena ----------------------------------------- */

typedef struct list {
    void **items;
    size_t n, cap;
} list;

static void list_push(parser *p, list *l, void *item)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 4;
        void **items = text_alloc(p->st, cap * sizeof *items);
        if (l->n)
            memcpy(items, l->items, l->n * sizeof *items);
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = item;
}

/* ---- operators ---------------------------------------------------------------- */

static const struct {
    const char *name;
    int prec, assoc;
} operators[] = {
    {"$", 0, ASSOC_RIGHT},  {"||", 2, ASSOC_RIGHT}, {"&&", 3, ASSOC_RIGHT},
    {"==", 4, ASSOC_NONE},  {"/=", 4, ASSOC_NONE},  {"<", 4, ASSOC_NONE},
    {"<=", 4, ASSOC_NONE},  {">", 4, ASSOC_NONE},   {">=", 4, ASSOC_NONE},
    {".|.", 5, ASSOC_LEFT}, {"++", 5, ASSOC_RIGHT}, {"+", 6, ASSOC_LEFT},
    {"-", 6, ASSOC_LEFT},   {"*", 7, ASSOC_LEFT},   {"/", 7, ASSOC_LEFT},
    {".&.", 7, ASSOC_LEFT}, {"**", 8, ASSOC_RIGHT}, {"!", 9, ASSOC_LEFT},
    {"!!", 9, ASSOC_LEFT},  {".", 9, ASSOC_RIGHT},
};

typedef struct opinfo {
    const char *name;
    int prec, assoc;
    size_t width; /* tokens: 1, or 3 for `name` */
    text_pos pos;
} opinfo;

/* Whether an infix operator starts here; fills *op. */
static int operator_here(parser *p, opinfo *op)
{
    const text_token *t = cur(p);
    op->pos = t->pos;
    if (t->kind == TK_BACKQUOTE) {
        const text_token *name = peek_tok(p, 1);
        if (name->kind != TK_IDENT || peek_tok(p, 2)->kind != TK_BACKQUOTE) {
            next(p);
            expected(p, "a name between backquotes (a `quot` b)");
        }
        *op = (opinfo){name->text, 7, ASSOC_LEFT, 3, t->pos};
        return 1;
    }
    if (t->kind != TK_OP)
        return 0;
    for (size_t i = 0; i < sizeof operators / sizeof operators[0]; i++)
        if (strcmp(t->text, operators[i].name) == 0) {
            *op = (opinfo){operators[i].name, operators[i].prec,
                           operators[i].assoc, 1, t->pos};
            return 1;
        }
    text_fail(p->st, ACC_ERR_PARSE, t->pos, "unknown operator '%s'; expected "
              "one of + - * / ** == /= < <= > >= && || .&. .|. ! !! ++ . $",
              t->text);
}

static text_ast *combine(parser *p, const opinfo *op, text_ast *l,
                         text_ast *r)
{
    if (strcmp(op->name, "$") == 0) {
        text_ast *items[2] = {l, r};
        return app(p, op->pos, 2, items);
    }
    return binary(p, op->name, op->pos, l, r);
}

/* ---- expressions ---------------------------------------------------------- */

static int starts_atom(text_tok_kind k)
{
    return k == TK_IDENT || k == TK_INT || k == TK_FLOAT || k == TK_STRING ||
           k == TK_LPAREN || k == TK_LBRACK;
}

static int starts_block(text_tok_kind k)
{
    return k == TK_LAMBDA || k == TK_LET || k == TK_IF;
}

static text_ast *parse_list(parser *p, text_ast_kind k, text_pos pos,
                            text_tok_kind close, const char *what)
{
    list items = {0};
    if (kind(p) != close) {
        for (;;) {
            list_push(p, &items, parse_expr(p));
            if (kind(p) != TK_COMMA)
                break;
            next(p);
        }
    }
    if (kind(p) != close)
        expected(p, what);
    next(p);
    text_ast *a = node(p, k, pos);
    a->args = (text_ast **)items.items;
    a->n = items.n;
    return seal(p, a);
}

static void close_paren(parser *p, text_pos open)
{
    if (kind(p) != TK_RPAREN) {
        char what[96];
        snprintf(what, sizeof what, "')' to close the '(' at %d:%d",
                 open.line, open.col);
        expected(p, what);
    }
    next(p);
}

/* After '(' and an operator: (op), (- e), or the right section (op e). */
static text_ast *paren_operator(parser *p, text_pos open)
{
    opinfo op;
    operator_here(p, &op);
    int minus = strcmp(op.name, "-") == 0 && op.width == 1;
    if (peek_tok(p, op.width)->kind == TK_RPAREN) {
        for (size_t i = 0; i < op.width; i++)
            next(p);
        next(p);
        return var(p, op.name, op.pos);
    }
    if (minus) { /* (-r * years): negation, not a section */
        text_ast *e = parse_expr(p);
        close_paren(p, open);
        return e;
    }
    for (size_t i = 0; i < op.width; i++)
        next(p);
    text_ast *right = parse_opexpr(p, 0);
    close_paren(p, open);
    return section(p, op.pos, op.name, NULL, right);
}

static text_ast *ascription(parser *p, text_ast *e)
{
    if (kind(p) != TK_COLON)
        return e;
    text_pos pos = cur(p)->pos;
    next(p);
    text_ast *a = node(p, TA_ASCRIBE, pos);
    a->args = text_alloc(p->st, sizeof *a->args);
    a->args[0] = e;
    a->n = 1;
    a->type = parse_type(p);
    return seal(p, a);
}

static text_ast *paren(parser *p)
{
    text_pos open = cur(p)->pos;
    next(p);
    if (kind(p) == TK_RPAREN) {
        next(p);
        return seal(p, node(p, TA_TUPLE, open));
    }
    opinfo op;
    if ((kind(p) == TK_OP || kind(p) == TK_BACKQUOTE) &&
        operator_here(p, &op))
        return paren_operator(p, open);
    text_ast *first = parse_opexpr(p, 0);
    if ((kind(p) == TK_OP || kind(p) == TK_BACKQUOTE) &&
        operator_here(p, &op) && peek_tok(p, op.width)->kind == TK_RPAREN) {
        for (size_t i = 0; i <= op.width; i++)
            next(p);
        return section(p, op.pos, op.name, first, NULL);
    }
    first = ascription(p, first);
    if (kind(p) != TK_COMMA) {
        close_paren(p, open);
        return first;
    }
    list items = {0};
    list_push(p, &items, first);
    while (kind(p) == TK_COMMA) {
        next(p);
        list_push(p, &items, parse_expr(p));
    }
    close_paren(p, open);
    text_ast *a = node(p, TA_TUPLE, open);
    a->args = (text_ast **)items.items;
    a->n = items.n;
    return seal(p, a);
}

static text_ast *parse_atom(parser *p)
{
    const text_token *t = cur(p);
    text_ast *a;
    switch (t->kind) {
    case TK_IDENT:
        if (strcmp(t->text, "_") == 0)
            expected(p, "an expression ('_' is a pattern, not a value)");
        a = var(p, t->text, t->pos);
        next(p);
        return a;
    case TK_INT:
        a = node(p, TA_INT, t->pos);
        a->ival = t->ival;
        next(p);
        return a;
    case TK_FLOAT:
        a = node(p, TA_FLOAT, t->pos);
        a->fval = t->fval;
        next(p);
        return a;
    case TK_STRING:
        a = node(p, TA_STRING, t->pos);
        a->name = t->text;
        next(p);
        return a;
    case TK_LBRACK:
        next(p);
        return parse_list(p, TA_INDEX, t->pos, TK_RBRACK,
                          "',' or ']' in an index [i, j]");
    case TK_LPAREN:
        return paren(p);
    default:
        expected(p, "an expression");
    }
}

static text_ast *parse_lambda(parser *p)
{
    text_pos pos = cur(p)->pos;
    next(p);
    list pats = {0};
    while (kind(p) != TK_ARROW) {
        if (kind(p) != TK_IDENT && kind(p) != TK_LPAREN &&
            kind(p) != TK_LBRACK)
            expected(p, pats.n ? "another parameter or '->'"
                               : "a parameter pattern after '\\'");
        list_push(p, &pats, parse_apat(p));
    }
    if (!pats.n)
        expected(p, "a parameter pattern after '\\'");
    next(p);
    text_ast *a = node(p, TA_LAMBDA, pos);
    a->pats = (text_pat **)pats.items;
    a->n_pats = pats.n;
    a->body = parse_expr(p);
    return seal(p, a);
}

/* A binding: `pat = e` or the local function `f p1 p2 = e`. */
static text_bind parse_bind(parser *p)
{
    text_bind b;
    const text_token *t = cur(p);
    int function = t->kind == TK_IDENT && strcmp(t->text, "_") != 0 &&
                   peek_tok(p, 1)->kind != TK_EQUALS &&
                   peek_tok(p, 1)->kind != TK_COLON;
    b.pat = parse_apat(p);
    if (kind(p) == TK_COLON) {
        text_pat *typed = pat_node(p, TP_TYPED, cur(p)->pos);
        next(p);
        typed->items = text_alloc(p->st, sizeof *typed->items);
        typed->items[0] = b.pat;
        typed->n = 1;
        typed->type = parse_type(p);
        b.pat = typed;
    }
    if (!function) {
        expect(p, TK_EQUALS, "'=' in a let binding");
        b.expr = parse_expr(p);
        return b;
    }
    list pats = {0};
    while (kind(p) != TK_EQUALS) {
        if (kind(p) != TK_IDENT && kind(p) != TK_LPAREN &&
            kind(p) != TK_LBRACK)
            expected(p, "a parameter or '=' in a local function definition");
        list_push(p, &pats, parse_apat(p));
    }
    next(p);
    text_ast *lam = node(p, TA_LAMBDA, t->pos);
    lam->pats = (text_pat **)pats.items;
    lam->n_pats = pats.n;
    lam->body = parse_expr(p);
    b.expr = seal(p, lam);
    return b;
}

static text_ast *parse_let(parser *p)
{
    text_pos pos = cur(p)->pos;
    next(p);
    text_bind *binds = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4;
            text_bind *b = text_alloc(p->st, cap * sizeof *b);
            if (n)
                memcpy(b, binds, n * sizeof *b);
            binds = b;
        }
        binds[n++] = parse_bind(p);
        if (kind(p) == TK_SEMI) {
            next(p);
            if (kind(p) == TK_IN)
                break;
            continue;
        }
        if (kind(p) != TK_IN)
            expected(p, "';' or 'in' after a let binding (bindings are "
                        "separated by ';')");
        break;
    }
    next(p);
    text_ast *a = node(p, TA_LET, pos);
    a->binds = binds;
    a->n_binds = n;
    a->body = parse_expr(p);
    return seal(p, a);
}

static text_ast *parse_if(parser *p)
{
    text_pos pos = cur(p)->pos;
    next(p);
    text_ast *a = node(p, TA_IF, pos);
    a->args = text_alloc(p->st, 3 * sizeof *a->args);
    a->n = 3;
    a->args[0] = parse_expr(p);
    expect(p, TK_THEN, "'then' after the condition of 'if'");
    a->args[1] = parse_expr(p);
    expect(p, TK_ELSE, "'else' after the 'then' branch of 'if'");
    a->args[2] = parse_expr(p);
    return seal(p, a);
}

static text_ast *parse_block(parser *p)
{
    switch (kind(p)) {
    case TK_LAMBDA: return parse_lambda(p);
    case TK_LET: return parse_let(p);
    default: return parse_if(p);
    }
}

/* Application: an atom applied to atoms; a lambda, let or if may be the
 * last argument (it extends as far right as possible). */
static text_ast *parse_application(parser *p)
{
    if (starts_block(kind(p)))
        return parse_block(p);
    text_ast *head = parse_atom(p);
    if (!starts_atom(kind(p)) && !starts_block(kind(p)))
        return head;
    list items = {0};
    list_push(p, &items, head);
    while (starts_atom(kind(p)))
        list_push(p, &items, parse_atom(p));
    if (starts_block(kind(p)))
        list_push(p, &items, parse_block(p));
    return app(p, head->pos, items.n, (text_ast **)items.items);
}

static text_ast *parse_operand(parser *p)
{
    if (is_op(p, "-")) {
        text_pos pos = cur(p)->pos;
        next(p);
        return negate(p, pos, parse_opexpr(p, 7));
    }
    return parse_application(p);
}

static text_ast *parse_opexpr(parser *p, int min_prec)
{
    enter(p);
    text_ast *lhs = parse_operand(p);
    opinfo op;
    while ((kind(p) == TK_OP || kind(p) == TK_BACKQUOTE) &&
           operator_here(p, &op) && op.prec >= min_prec &&
           peek_tok(p, op.width)->kind != TK_RPAREN) {
        for (size_t i = 0; i < op.width; i++)
            next(p);
        int next_min = op.assoc == ASSOC_RIGHT ? op.prec : op.prec + 1;
        lhs = combine(p, &op, lhs, parse_opexpr(p, next_min));
        opinfo after;
        if (op.assoc == ASSOC_NONE &&
            (kind(p) == TK_OP || kind(p) == TK_BACKQUOTE) &&
            operator_here(p, &after) && after.prec == op.prec)
            text_fail(p->st, ACC_ERR_PARSE, after.pos, "found '%s' after a "
                      "comparison, expected parentheses: comparisons do not "
                      "chain", after.name);
    }
    leave(p);
    return lhs;
}

static text_ast *parse_expr(parser *p)
{
    enter(p);
    text_ast *e = ascription(p, parse_opexpr(p, 0));
    leave(p);
    return e;
}

/* ---- patterns ---------------------------------------------------------------- */

static text_pat *pattern_list(parser *p, text_pat_kind k, text_pos pos,
                              text_tok_kind close, const char *what)
{
    list items = {0};
    if (kind(p) != close) {
        for (;;) {
            text_pat *q = parse_apat(p);
            if (kind(p) == TK_COLON && k == TP_TUPLE) {
                text_pat *typed = pat_node(p, TP_TYPED, cur(p)->pos);
                next(p);
                typed->items = text_alloc(p->st, sizeof *typed->items);
                typed->items[0] = q;
                typed->n = 1;
                typed->type = parse_type(p);
                q = typed;
            }
            list_push(p, &items, q);
            if (kind(p) != TK_COMMA)
                break;
            next(p);
        }
    }
    if (kind(p) != close)
        expected(p, what);
    next(p);
    if (k == TP_TUPLE && items.n == 1)
        return items.items[0]; /* (p) and (p : t) */
    text_pat *q = pat_node(p, k, pos);
    q->items = (text_pat **)items.items;
    q->n = items.n;
    return q;
}

static text_pat *parse_apat(parser *p)
{
    enter(p);
    const text_token *t = cur(p);
    text_pat *q;
    switch (t->kind) {
    case TK_IDENT:
        q = pat_node(p, strcmp(t->text, "_") == 0 ? TP_WILD : TP_VAR, t->pos);
        q->name = t->text;
        next(p);
        break;
    case TK_LPAREN:
        next(p);
        q = pattern_list(p, TP_TUPLE, t->pos, TK_RPAREN,
                         "',', ':' or ')' in a tuple pattern");
        break;
    case TK_LBRACK:
        next(p);
        q = pattern_list(p, TP_INDEX, t->pos, TK_RBRACK,
                         "',' or ']' in an index pattern [i, j]");
        break;
    default:
        expected(p, "a pattern (a name, _, (a, b) or [i, j])");
    }
    leave(p);
    return q;
}

/* ---- types ---------------------------------------------------------------------- */

static const struct { const char *name; acc_scalar s; } scalar_names[] = {
    {"bool", ACC_BOOL}, {"i8", ACC_I8},   {"i16", ACC_I16}, {"i32", ACC_I32},
    {"i64", ACC_I64},   {"u8", ACC_U8},   {"u16", ACC_U16}, {"u32", ACC_U32},
    {"u64", ACC_U64},   {"f32", ACC_F32}, {"f64", ACC_F64},
};

static int rank_literal(parser *p)
{
    const text_token *t = cur(p);
    if (t->kind != TK_INT || t->ival > ACC_MAX_RANK)
        expected(p, "a rank from 0 to 8");
    next(p);
    return (int)t->ival;
}

static text_tyexp *ty_node(parser *p, text_tyexp_kind k, text_pos pos)
{
    text_tyexp *t = text_alloc(p->st, sizeof *t);
    t->kind = k;
    t->pos = pos;
    return t;
}

static text_tyexp *named_type(parser *p, const text_token *t)
{
    static const struct { const char *name; int rank; } arrays[] = {
        {"Scalar", 0}, {"Vector", 1}, {"Matrix", 2}};
    for (size_t i = 0; i < sizeof scalar_names / sizeof scalar_names[0]; i++)
        if (strcmp(t->text, scalar_names[i].name) == 0) {
            text_tyexp *ty = ty_node(p, TY_SCALAR, t->pos);
            ty->scalar = scalar_names[i].s;
            return ty;
        }
    if (strcmp(t->text, "Shape") == 0) {
        text_tyexp *ty = ty_node(p, TY_SHAPE, t->pos);
        ty->rank = rank_literal(p);
        return ty;
    }
    text_tyexp *ty = ty_node(p, TY_ARRAY, t->pos);
    if (strcmp(t->text, "Array") == 0) {
        ty->rank = rank_literal(p);
        ty->elem = parse_type(p);
        return ty;
    }
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        if (strcmp(t->text, arrays[i].name) == 0) {
            ty->rank = arrays[i].rank;
            ty->elem = parse_type(p);
            return ty;
        }
    text_fail(p->st, ACC_ERR_PARSE, t->pos, "unknown type '%s'; expected a "
              "scalar type (bool i8 i16 i32 i64 u8 u16 u32 u64 f32 f64), "
              "Scalar, Vector, Matrix, Array n, Shape n or a tuple", t->text);
}

static text_tyexp *parse_type(parser *p)
{
    enter(p);
    const text_token *t = cur(p);
    text_tyexp *ty;
    if (t->kind == TK_IDENT) {
        next(p);
        ty = named_type(p, t);
    } else if (t->kind == TK_LPAREN) {
        next(p);
        list items = {0};
        if (kind(p) != TK_RPAREN) {
            for (;;) {
                list_push(p, &items, parse_type(p));
                if (kind(p) != TK_COMMA)
                    break;
                next(p);
            }
        }
        if (kind(p) != TK_RPAREN)
            expected(p, "',' or ')' in a tuple type");
        next(p);
        if (items.n == 1) {
            ty = items.items[0];
        } else {
            ty = ty_node(p, TY_TUPLE, t->pos);
            ty->items = (text_tyexp **)items.items;
            ty->n = items.n;
        }
    } else {
        expected(p, "a type (f32, Vector f32, Array 3 i64, (f32, f32), ...)");
    }
    leave(p);
    return ty;
}

/* ---- definitions ---------------------------------------------------------------- */

static int all_typed(const text_def *d)
{
    for (size_t i = 0; i < d->n_params; i++)
        if (d->params[i]->kind != TP_TYPED)
            return 0;
    return d->n_params > 0 || d->result != NULL;
}

static text_def *parse_def(parser *p)
{
    const text_token *t = cur(p);
    if (t->kind != TK_IDENT || strcmp(t->text, "_") == 0)
        expected(p, "a definition (name parameters = expression)");
    text_def *d = text_alloc(p->st, sizeof *d);
    d->name = t->text;
    d->pos = t->pos;
    next(p);
    p->in_body = 1;
    list params = {0};
    while (kind(p) == TK_IDENT || kind(p) == TK_LPAREN ||
           kind(p) == TK_LBRACK)
        list_push(p, &params, parse_apat(p));
    d->params = (text_pat **)params.items;
    d->n_params = params.n;
    if (kind(p) == TK_COLON) {
        next(p);
        d->result = parse_type(p);
    }
    if (kind(p) != TK_EQUALS) {
        char what[160];
        snprintf(what, sizeof what, "a parameter, ':' or '=' in the "
                 "definition of '%s'", d->name);
        expected(p, what);
    }
    next(p);
    d->body = parse_expr(p);
    if (kind(p) == TK_SEMI)
        next(p);
    if (kind(p) != TK_EOF && kind(p) != TK_NEWDEF) {
        char what[200];
        snprintf(what, sizeof what, "the end of the definition of '%s' (the "
                 "next definition starts in column %d)", d->name, p->def_col);
        expected(p, what);
    }
    p->in_body = 0;
    d->entry = all_typed(d);
    return d;
}

text_module *text_parse(text_state *st, const char *src, size_t len,
                        int prelude)
{
    parser p = {0};
    p.st = st;
    p.toks = text_lex(st, src, len, prelude, &p.n);
    p.def_col = p.toks[0].pos.col;
    text_module *m = text_module_new(st);
    while (kind(&p) != TK_EOF) {
        if (cur(&p)->pos.col != p.def_col)
            text_fail(st, ACC_ERR_PARSE, cur(&p)->pos, "found %s in column "
                      "%d, expected a definition starting in column %d like "
                      "the first one", text_tok_describe(st, cur(&p)),
                      cur(&p)->pos.col, p.def_col);
        text_def *d = parse_def(&p);
        if (text_module_add(st, m, d))
            text_fail(st, ACC_ERR_PARSE, d->pos, "'%s' is defined twice; "
                      "expected one definition per name", d->name);
    }
    return m;
}
