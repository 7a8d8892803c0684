/*
 * elaborate.c — evaluation of the syntax tree at the meta level.
 *
 * As in an embedded language, the functions of a text program (helpers,
 * lambdas, operators) are functions of the elaborator: applying one binds
 * its patterns to the argument values and evaluates its body, so every
 * use is inlined.  What remains is a first-order core term (text_core)
 * whose types are inference types; array operations turn function values
 * into core lambdas with text_reify.  `let` binds a value once, so a
 * let-bound term used twice is one node: sharing as in the builder.
 *
 * Names resolve innermost first: local bindings and parameters, then the
 * user's definitions, then builtins, then the text prelude.  Code of the
 * prelude skips the user's definitions, so a user may redefine `map`
 * without changing `gemm`.
 */
#include "core/text/text_elab.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static text_val *eval(text_elab *el, const text_ast *a, text_env *env,
                      int prelude);

/* ---- errors and small constructors ---------------------------------------- */

text_pos text_blame(const text_elab *el, text_pos pos)
{
    return pos.prelude ? el->pos : pos;
}

void text_type_error(text_elab *el, text_pos pos, const char *fmt, ...)
{
    char msg[TEXT_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    text_fail(el->st, ACC_ERR_TYPE, text_blame(el, pos), "%s%s", msg,
              pos.prelude ? " (inside the standard library)" : "");
}

text_core *text_core_new(text_elab *el, text_ck kind, text_type *type,
                         text_pos pos, size_t n, text_core **args)
{
    text_core *c = text_alloc(el->st, sizeof *c);
    c->kind = kind;
    c->type = type;
    c->pos = text_blame(el, pos);
    c->n = n;
    c->args = text_alloc(el->st, (n ? n : 1) * sizeof *c->args);
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        c->args[i] = args[i];
        if (args[i] && args[i]->depth > depth)
            depth = args[i]->depth;
    }
    c->depth = depth + 1;
    if (c->depth > TEXT_MAX_TERM_DEPTH)
        text_fail(el->st, ACC_ERR_UNSUPPORTED, c->pos, "the elaborated program "
                  "is nested deeper than %d terms; expected a shallower "
                  "program (name parts with let)", TEXT_MAX_TERM_DEPTH);
    return c;
}

text_val *text_val_core(text_elab *el, text_core *c)
{
    text_val *v = text_alloc(el->st, sizeof *v);
    v->kind = VK_CORE;
    v->core = c;
    return v;
}

static const char *val_kind_name(const text_val *v)
{
    switch (v->kind) {
    case VK_CORE: return "a value";
    case VK_ALL: return "All (which belongs in a replicate or slice spec)";
    case VK_SPEC: return "a replicate/slice spec containing All";
    case VK_BOUNDARY: return "a stencil boundary";
    case VK_STRING: return "a string";
    case VK_TUPLE: return "a tuple holding a function";
    default: return "a function (missing arguments?)";
    }
}

text_core *text_want_core(text_elab *el, text_val *v, const char *what,
                          text_pos pos)
{
    if (v->kind != VK_CORE)
        text_type_error(el, pos, "%s is %s, expected a value", what,
                        val_kind_name(v));
    return v->core;
}

void text_expect_type(text_elab *el, text_type *have, text_type *want,
                      const char *what, text_pos pos)
{
    if (text_ty_unify(have, want))
        return;
    text_type_error(el, pos, "%s has type %s, expected %s", what,
                    text_ty_name(el->st, have), text_ty_name(el->st, want));
}

static text_env *extend(text_elab *el, text_env *env, const char *name,
                        text_val *v)
{
    text_env *e = text_alloc(el->st, sizeof *e);
    e->name = name;
    e->val = v;
    e->next = env;
    return e;
}

/* ---- types from annotations -------------------------------------------------- */

static text_type *annotation(text_elab *el, const text_tyexp *t)
{
    switch (t->kind) {
    case TY_SCALAR: return text_ty_scalar(el->st, t->scalar);
    case TY_SHAPE: return text_ty_shape(el->st, t->rank);
    case TY_ARRAY:
        return text_ty_array(el->st, annotation(el, t->elem), t->rank);
    case TY_TUPLE: {
        text_type **fs = text_alloc(el->st, (t->n ? t->n : 1) * sizeof *fs);
        for (size_t i = 0; i < t->n; i++)
            fs[i] = annotation(el, t->items[i]);
        return text_ty_tuple(el->st, t->n, fs);
    }
    }
    return NULL;
}

/* ---- patterns ------------------------------------------------------------------- */

static text_env *bind(text_elab *el, const text_pat *p, text_val *v,
                      text_env *env);

static text_core *field(text_elab *el, text_core *c, size_t i, text_type *t,
                        text_pos pos)
{
    if ((c->kind == CK_TUPLE || c->kind == CK_INDEX) && i < c->n)
        return c->args[i];
    text_core *g = text_core_new(el, CK_GET, t, pos, 1, &c);
    g->op = (int)i;
    return g;
}

static text_env *bind_tuple(text_elab *el, const text_pat *p, text_core *c,
                            text_env *env)
{
    text_type *t = text_ty_prune(c->type);
    if (t->kind == TT_VAR && t->cls == TC_ANY) {
        text_type **fs = text_alloc(el->st, (p->n ? p->n : 1) * sizeof *fs);
        for (size_t i = 0; i < p->n; i++)
            fs[i] = text_ty_var(el->st, TC_ANY);
        text_ty_unify(t, text_ty_tuple(el->st, p->n, fs));
        t = text_ty_prune(t);
    }
    if (t->kind != TT_TUPLE || t->n != p->n)
        text_type_error(el, p->pos, "a tuple pattern of %zu fields is matched "
                        "against a value of type %s", p->n,
                        text_ty_name(el->st, t));
    for (size_t i = 0; i < p->n; i++)
        env = bind(el, p->items[i],
                   text_val_core(el, field(el, c, i, t->fields[i], p->pos)),
                   env);
    return env;
}

/* A tuple pattern against a meta-level tuple: each field its item. */
static text_env *bind_meta_tuple(text_elab *el, const text_pat *p,
                                 const text_val *v, text_env *env)
{
    if (v->n != p->n)
        text_type_error(el, p->pos, "a tuple pattern of %zu fields is matched "
                        "against a tuple of %zu", p->n, v->n);
    for (size_t i = 0; i < p->n; i++)
        env = bind(el, p->items[i], v->items[i], env);
    return env;
}

static text_env *bind_index(text_elab *el, const text_pat *p, text_core *c,
                            text_env *env)
{
    text_type *want = text_ty_shape(el->st, (int)p->n);
    if (!text_ty_unify(c->type, want))
        text_type_error(el, p->pos, "an index pattern of rank %zu is matched "
                        "against a value of type %s", p->n,
                        text_ty_name(el->st, c->type));
    for (size_t i = 0; i < p->n; i++)
        env = bind(el, p->items[i],
                   text_val_core(el, field(el, c, i,
                                           text_ty_scalar(el->st, ACC_I64),
                                           p->pos)),
                   env);
    return env;
}

static text_env *bind(text_elab *el, const text_pat *p, text_val *v,
                      text_env *env)
{
    switch (p->kind) {
    case TP_VAR: return extend(el, env, p->name, v);
    case TP_WILD: return env;
    case TP_TYPED: {
        text_core *c = text_want_core(el, v, "a value with a type annotation",
                                      p->pos);
        text_expect_type(el, c->type, annotation(el, p->type),
                         "the value matched by the annotated pattern", p->pos);
        return bind(el, p->items[0], v, env);
    }
    case TP_TUPLE:
        if (v->kind == VK_TUPLE)
            return bind_meta_tuple(el, p, v, env);
        return bind_tuple(el, p, text_want_core(el, v, "the value matched by "
                                                "a tuple pattern", p->pos),
                          env);
    case TP_INDEX:
        return bind_index(el, p, text_want_core(el, v, "the value matched by "
                                                "an index pattern", p->pos),
                          env);
    }
    return env;
}

/* ---- names -------------------------------------------------------------------------- */

static text_val *closure_of_def(text_elab *el, text_def *d, int prelude)
{
    text_val *v = text_alloc(el->st, sizeof *v);
    v->kind = VK_CLOSURE;
    v->pats = d->params;
    v->n_pats = d->n_params;
    v->body = d->body;
    v->def = d;
    v->prelude = prelude;
    return v;
}

/* The value of a helper: a closure, or its body for a constant. */
static text_val *def_value(text_elab *el, text_def *d, int prelude,
                           text_pos pos)
{
    text_val *v = closure_of_def(el, d, prelude);
    if (d->n_params > 0)
        return v;
    return text_apply(el, v, 0, NULL, pos);
}

text_val *text_prelude_fn(text_elab *el, const char *name, text_pos pos)
{
    text_def *d = text_module_find(el->prelude, name);
    if (!d)
        text_fail(el->st, ACC_ERR_INTERNAL, text_blame(el, pos), "the text "
                  "prelude has no '%s'", name);
    return def_value(el, d, 1, pos);
}

static text_val *lookup(text_elab *el, const char *name, text_env *env,
                        int prelude, text_pos pos)
{
    for (text_env *e = env; e; e = e->next)
        if (strcmp(e->name, name) == 0)
            return e->val;
    text_def *d = prelude ? NULL : text_module_find(el->user, name);
    if (d)
        return def_value(el, d, 0, pos);
    const text_builtin *b = text_builtin_find(name);
    if (b) {
        text_val *v = text_alloc(el->st, sizeof *v);
        v->kind = VK_BUILTIN;
        v->builtin = b;
        return b->arity == 0 ? b->fn(el, b, NULL, pos) : v;
    }
    d = text_module_find(el->prelude, name);
    if (d)
        return def_value(el, d, 1, pos);
    text_fail(el->st, ACC_ERR_PARSE, text_blame(el, pos), "unknown name '%s'; "
              "expected a parameter, a let-bound name, a definition or a "
              "library function", name);
}

/* ---- application ------------------------------------------------------------------------ */

static text_val *pap(text_elab *el, text_val *fn, size_t n, text_val **args)
{
    text_val *v = text_alloc(el->st, sizeof *v);
    v->kind = VK_PAP;
    v->fn = fn;
    v->items = text_alloc(el->st, (n ? n : 1) * sizeof *v->items);
    memcpy(v->items, args, n * sizeof *args);
    v->n = n;
    return v;
}

static text_val *apply_closure(text_elab *el, text_val *fn, text_val **args,
                               text_pos pos)
{
    text_env *env = fn->env;
    for (size_t i = 0; i < fn->n_pats; i++)
        env = bind(el, fn->pats[i], args[i], env);
    text_def *d = fn->def;
    if (d && d->active)
        text_fail(el->st, ACC_ERR_UNSUPPORTED, text_blame(el, pos), "'%s' "
                  "calls itself; expected no recursion (definitions are "
                  "inlined where they are used)", d->name);
    if (d)
        d->active = 1;
    text_val *r = eval(el, fn->body, env, fn->prelude);
    if (d)
        d->active = 0;
    return r;
}

_Noreturn static void too_many(text_elab *el, const text_val *fn, size_t k,
                               size_t n, text_pos pos)
{
    if (fn->kind == VK_BUILTIN)
        text_type_error(el, pos, "'%s' takes %zu argument%s, but it is given "
                        "%zu", fn->builtin->name, k, k == 1 ? "" : "s", n);
    if (fn->kind == VK_CLOSURE && fn->def)
        text_type_error(el, pos, "'%s' takes %zu argument%s, but it is given "
                        "%zu", fn->def->name, k, k == 1 ? "" : "s", n);
    text_type_error(el, pos, "a function of %zu parameter%s is given %zu "
                    "arguments", k, k == 1 ? "" : "s", n);
}

text_val *text_apply(text_elab *el, text_val *fn, size_t n, text_val **args,
                     text_pos pos)
{
    if (++el->depth > TEXT_MAX_EVAL_DEPTH)
        text_fail(el->st, ACC_ERR_UNSUPPORTED, text_blame(el, pos), "the "
                  "program inlines deeper than %d levels; expected "
                  "shallower nesting", TEXT_MAX_EVAL_DEPTH);
    if (fn->kind == VK_PAP) {
        text_val **all = text_alloc(el->st, (fn->n + n) * sizeof *all);
        memcpy(all, fn->items, fn->n * sizeof *all);
        if (n)
            memcpy(all + fn->n, args, n * sizeof *all);
        text_val *r = text_apply(el, fn->fn, fn->n + n, all, pos);
        el->depth--;
        return r;
    }
    size_t k;
    if (fn->kind == VK_CLOSURE)
        k = fn->n_pats;
    else if (fn->kind == VK_BUILTIN)
        k = (size_t)fn->builtin->arity;
    else if (n == 0)
        k = 0;
    else if (fn->kind == VK_CORE)
        text_type_error(el, pos, "a value of type %s is applied to %zu "
                        "argument%s, expected a function",
                        text_ty_name(el->st, fn->core->type), n,
                        n == 1 ? "" : "s");
    else
        text_type_error(el, pos, "%s is applied to arguments, expected a "
                        "function", val_kind_name(fn));
    text_val *r;
    if (n < k)
        r = pap(el, fn, n, args);
    else if (k == 0 && fn->kind != VK_CLOSURE)
        r = fn;
    else {
        r = fn->kind == VK_CLOSURE ? apply_closure(el, fn, args, pos)
                                   : fn->builtin->fn(el, fn->builtin, args, pos);
        if (n > k) {
            if (r->kind == VK_CORE)
                too_many(el, fn, k, n, pos);
            r = text_apply(el, r, n - k, args + k, pos);
        }
    }
    el->depth--;
    return r;
}

text_core *text_reify(text_elab *el, text_val *f, size_t n,
                      text_type **param_types, const char *what,
                      text_pos pos)
{
    text_core **items = text_alloc(el->st, (n + 1) * sizeof *items);
    text_val **args = text_alloc(el->st, (n ? n : 1) * sizeof *args);
    if (f->kind == VK_CORE)
        text_type_error(el, pos, "%s is a value of type %s, expected a "
                        "function of %zu parameter%s", what,
                        text_ty_name(el->st, f->core->type), n,
                        n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++) {
        items[i] = text_core_new(el, CK_PARAM, param_types[i], pos, 0, NULL);
        args[i] = text_val_core(el, items[i]);
    }
    text_val *r = text_apply(el, f, n, args, pos);
    if (r->kind == VK_CLOSURE || r->kind == VK_BUILTIN || r->kind == VK_PAP)
        text_type_error(el, pos, "%s takes more than the %zu argument%s it is "
                        "given", what, n, n == 1 ? "" : "s");
    if (r->kind != VK_CORE)
        text_type_error(el, pos, "%s returns %s, expected a value", what,
                        val_kind_name(r));
    items[n] = r->core;
    return text_core_new(el, CK_LAMBDA, r->core->type, pos, n + 1, items);
}

/* ---- expressions ------------------------------------------------------------------------- */

static text_core *literal_int(text_elab *el, const text_ast *a)
{
    text_core *c = text_core_new(el, CK_INT, text_ty_var(el->st, TC_NUM),
                                 a->pos, 0, NULL);
    c->ival = a->neg ? (int64_t)(0 - a->ival) : (int64_t)a->ival;
    c->neg = a->neg && a->ival != 0;
    c->fval = a->neg ? -(double)a->ival : (double)a->ival;
    return c;
}

static text_val *eval_if(text_elab *el, const text_ast *a, text_env *env,
                         int prelude)
{
    text_core *c = text_want_core(el, eval(el, a->args[0], env, prelude),
                                  "the condition of 'if'", a->pos);
    text_expect_type(el, c->type, text_ty_scalar(el->st, ACC_BOOL),
                     "the condition of 'if'", a->args[0]->pos);
    text_core *t = text_want_core(el, eval(el, a->args[1], env, prelude),
                                  "the 'then' branch", a->args[1]->pos);
    text_core *e = text_want_core(el, eval(el, a->args[2], env, prelude),
                                  "the 'else' branch", a->args[2]->pos);
    text_expect_type(el, e->type, t->type, "the 'else' branch",
                     a->args[2]->pos);
    text_core *items[3] = {c, t, e};
    return text_val_core(el, text_core_new(el, CK_COND, t->type, a->pos, 3,
                                           items));
}

static text_core **eval_items(text_elab *el, const text_ast *a,
                              text_env *env, int prelude, text_val ***vals)
{
    text_core **items = text_alloc(el->st, (a->n ? a->n : 1) * sizeof *items);
    *vals = text_alloc(el->st, (a->n ? a->n : 1) * sizeof **vals);
    for (size_t i = 0; i < a->n; i++)
        (*vals)[i] = eval(el, a->args[i], env, prelude);
    return items;
}

/* A tuple of terms is a term; one with a function (or another value that
 * is not a term) among its components is a meta-level tuple, like a
 * Haskell tuple of functions (a type class's dictionary passed by hand). */
static text_val *eval_tuple(text_elab *el, const text_ast *a, text_env *env,
                            int prelude)
{
    text_val **vals;
    text_core **items = eval_items(el, a, env, prelude, &vals);
    for (size_t i = 0; i < a->n; i++)
        if (vals[i]->kind != VK_CORE) {
            text_val *t = text_alloc(el->st, sizeof *t);
            t->kind = VK_TUPLE;
            t->items = vals;
            t->n = a->n;
            return t;
        }
    text_type **fs = text_alloc(el->st, (a->n ? a->n : 1) * sizeof *fs);
    for (size_t i = 0; i < a->n; i++) {
        items[i] = text_want_core(el, vals[i], "a tuple component",
                                  a->args[i]->pos);
        fs[i] = items[i]->type;
    }
    return text_val_core(el, text_core_new(el, CK_TUPLE,
                                           text_ty_tuple(el->st, a->n, fs),
                                           a->pos, a->n, items));
}

static text_val *eval_index(text_elab *el, const text_ast *a, text_env *env,
                            int prelude)
{
    text_val **vals;
    text_core **items = eval_items(el, a, env, prelude, &vals);
    for (size_t i = 0; i < a->n; i++)
        if (vals[i]->kind == VK_ALL) {
            text_val *spec = text_alloc(el->st, sizeof *spec);
            spec->kind = VK_SPEC;
            spec->items = vals;
            spec->n = a->n;
            return spec;
        }
    for (size_t i = 0; i < a->n; i++) {
        items[i] = text_want_core(el, vals[i], "an index component",
                                  a->args[i]->pos);
        text_expect_type(el, items[i]->type, text_ty_scalar(el->st, ACC_I64),
                         "an index component", a->args[i]->pos);
    }
    return text_val_core(el, text_core_new(el, CK_INDEX,
                                           text_ty_shape(el->st, (int)a->n),
                                           a->pos, a->n, items));
}

static text_val *eval_let(text_elab *el, const text_ast *a, text_env *env,
                          int prelude)
{
    for (size_t i = 0; i < a->n_binds; i++) {
        text_val *v = eval(el, a->binds[i].expr, env, prelude);
        env = bind(el, a->binds[i].pat, v, env);
    }
    return eval(el, a->body, env, prelude);
}

static text_val *eval_app(text_elab *el, const text_ast *a, text_env *env,
                          int prelude)
{
    text_val *fn = eval(el, a->args[0], env, prelude);
    text_val **args = text_alloc(el->st, a->n * sizeof *args);
    for (size_t i = 1; i < a->n; i++)
        args[i - 1] = eval(el, a->args[i], env, prelude);
    if (!a->pos.prelude)
        el->pos = a->pos;
    return text_apply(el, fn, a->n - 1, args, a->pos);
}

static text_val *eval_node(text_elab *el, const text_ast *a, text_env *env,
                           int prelude)
{
    text_val *v;
    switch (a->kind) {
    case TA_VAR: return lookup(el, a->name, env, prelude, a->pos);
    case TA_INT: return text_val_core(el, literal_int(el, a));
    case TA_FLOAT: {
        text_core *c = text_core_new(el, CK_FLOAT,
                                     text_ty_var(el->st, TC_FLOAT), a->pos, 0,
                                     NULL);
        c->fval = a->fval;
        return text_val_core(el, c);
    }
    case TA_STRING:
        v = text_alloc(el->st, sizeof *v);
        v->kind = VK_STRING;
        v->text = a->name;
        return v;
    case TA_APP: return eval_app(el, a, env, prelude);
    case TA_LAMBDA:
        v = text_alloc(el->st, sizeof *v);
        v->kind = VK_CLOSURE;
        v->pats = a->pats;
        v->n_pats = a->n_pats;
        v->body = a->body;
        v->env = env;
        v->prelude = prelude;
        return v;
    case TA_LET: return eval_let(el, a, env, prelude);
    case TA_IF: return eval_if(el, a, env, prelude);
    case TA_TUPLE: return eval_tuple(el, a, env, prelude);
    case TA_INDEX: return eval_index(el, a, env, prelude);
    case TA_ASCRIBE:
        v = eval(el, a->args[0], env, prelude);
        text_expect_type(el, text_want_core(el, v, "an annotated expression",
                                            a->pos)->type,
                         annotation(el, a->type), "the annotated expression",
                         a->pos);
        return v;
    }
    return NULL;
}

static text_val *eval(text_elab *el, const text_ast *a, text_env *env,
                      int prelude)
{
    if (!a->pos.prelude)
        el->pos = a->pos;
    if (++el->depth > TEXT_MAX_EVAL_DEPTH)
        text_fail(el->st, ACC_ERR_UNSUPPORTED, text_blame(el, a->pos), "the "
                  "program inlines deeper than %d levels; expected "
                  "shallower nesting", TEXT_MAX_EVAL_DEPTH);
    text_val *v = eval_node(el, a, env, prelude);
    el->depth--;
    return v;
}

/* ---- entry points --------------------------------------------------------------------------- */

static int is_value_type(text_type *t)
{
    t = text_ty_prune(t);
    if (t->kind == TT_ARRAY)
        return 0;
    if (t->kind == TT_TUPLE)
        for (size_t i = 0; i < t->n; i++)
            if (!is_value_type(t->fields[i]))
                return 0;
    return 1;
}

/* The variable a pattern binds as a whole ((xs : t) binds xs), or NULL. */
static const char *pattern_name(const text_pat *p)
{
    while (p && p->kind == TP_TYPED)
        p = p->items[0];
    return p && p->kind == TP_VAR ? p->name : NULL;
}

/* Records the name of the input just made. */
static void name_input(text_elab *el, const char *name)
{
    if (el->n_input_names == el->cap_input_names) {
        size_t cap = el->cap_input_names ? 2 * el->cap_input_names : 8;
        const char **grown = text_alloc(el->st, cap * sizeof *grown);
        if (el->n_input_names)
            memcpy(grown, el->input_names,
                   el->n_input_names * sizeof *grown);
        el->input_names = grown;
        el->cap_input_names = cap;
    }
    el->input_names[el->n_input_names++] = name;
}

/* The pattern of field i of an n-tuple matched by `pat`, or NULL. */
static const text_pat *field_pattern(const text_pat *pat, size_t i, size_t n)
{
    while (pat && pat->kind == TP_TYPED)
        pat = pat->items[0];
    return pat && pat->kind == TP_TUPLE && pat->n == n ? pat->items[i] : NULL;
}

/* The name of field i of an input named `name`: the variable of the
 * field's own pattern, else "name.i" (NULL when neither is known). */
static const char *field_name(text_elab *el, const text_pat *sub,
                              const char *name, size_t i)
{
    const char *own = pattern_name(sub);
    if (own || !name)
        return own;
    char buf[160];
    snprintf(buf, sizeof buf, "%s.%zu", name, i);
    return text_strndup(el->st, buf, strlen(buf));
}

/* The program input(s) of a parameter of type t: an array is one input; a
 * value type is a rank-0 input read with `the`; a tuple of arrays is one
 * input per array.  Each is named (el->input_names) after the parameter's
 * pattern `pat`, whose variable is `name`. */
static text_core *make_input(text_elab *el, text_type *t, text_pos pos,
                             const text_pat *pat, const char *name)
{
    t = text_ty_prune(t);
    if (t->kind == TT_TUPLE && !is_value_type(t)) {
        text_core **items = text_alloc(el->st, t->n * sizeof *items);
        for (size_t i = 0; i < t->n; i++) {
            const text_pat *sub = field_pattern(pat, i, t->n);
            items[i] = make_input(el, t->fields[i], pos, sub,
                                  field_name(el, sub, name, i));
            if (!text_ty_is_array_sort(items[i]->type))
                text_type_error(el, pos, "a parameter of type %s mixes arrays "
                                "and scalars; expected a tuple of arrays",
                                text_ty_name(el->st, t));
        }
        return text_core_new(el, CK_TUPLE, t, pos, t->n, items);
    }
    int value = t->kind != TT_ARRAY;
    text_type *at = value ? text_ty_array(el->st, t, 0) : t;
    const acc_type *elem = text_acc_type(el, at->elem, pos);
    text_core *in = text_core_new(el, CK_INPUT, at, pos, 0, NULL);
    in->node = acc_input(el->g, elem, at->rank);
    if (!in->node)
        text_fail(el->st, acc_graph_status(el->g), pos, "%s",
                  acc_graph_last_error(el->g));
    name_input(el, name);
    if (!value)
        return in;
    return text_core_new(el, CK_THE, t, pos, 1, &in);
}

text_core *text_elab_entry(text_elab *el, const text_def *d)
{
    text_env *env = NULL;
    for (size_t i = 0; i < d->n_params; i++) {
        const text_pat *p = d->params[i];
        text_core *in = make_input(el, annotation(el, p->type), p->pos,
                                   p->items[0], pattern_name(p->items[0]));
        env = bind(el, p->items[0], text_val_core(el, in), env);
    }
    el->pos = d->pos;
    text_val *v = eval(el, d->body, env, 0);
    char what[160];
    snprintf(what, sizeof what, "the result of '%s'", d->name);
    text_core *r = text_want_core(el, v, what, d->body->pos);
    text_type *want = d->result ? annotation(el, d->result) : NULL;
    if (is_value_type(r->type) &&
        (!want || text_ty_prune(want)->kind == TT_ARRAY)) {
        text_type *t = text_ty_array(el->st, r->type, 0);
        r = text_core_new(el, CK_UNIT, t, d->body->pos, 1, &r);
    }
    if (want)
        text_expect_type(el, r->type, want, what,
                         d->result ? d->result->pos : d->pos);
    return r;
}
