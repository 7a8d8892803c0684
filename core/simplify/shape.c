/*
 * shape.c — shape-only uses of producers (simplify.h).  The shape of a
 * producer is a term of its arguments' shapes and its own shape argument,
 * as fusion's delayed form writes it (fusion.c, "The delayed form"):
 *   shape (generate sh f)      = sh
 *   shape (backpermute sh p a) = sh
 *   shape (map f a)            = shape a
 *   shape (zipWith f a1 .. an) = componentwise minimum of the shapes
 *   replicate and slice        = the spec's extents and the source's
 * so `shape v` of a let-bound producer does not read v's elements: fusion
 * then sees no use of v there.  The terms are copies (fresh variables and
 * parameters), so every let of the program still binds its own variable.
 */
#include "core/simplify/simplify_internal.h"
#include "core/base/mem.h"

#include <stdlib.h>

/* ---- copying scalar terms ----------------------------------------------- */

typedef struct copy_map {
    const ir_node **from;
    ir_node **to;
    uint32_t n, cap;
    uint32_t *var_from, *var_to; /* the variables of lets inside */
    uint32_t n_vars, cap_vars;
} copy_map;

static ir_node *copied(const copy_map *m, const ir_node *n)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (m->from[i] == n)
            return m->to[i];
    return NULL;
}

/* Appends to a pair of arrays grown together; 0 when out of memory. */
static int grow2(void **a, void **b, size_t elem, uint32_t n, uint32_t *cap)
{
    if (n < *cap)
        return 1;
    uint32_t c = *cap ? *cap * 2 : 16;
    void *x = mem_realloc(*a, c * elem);
    if (x)
        *a = x;
    void *y = x ? mem_realloc(*b, c * elem) : NULL;
    if (y)
        *b = y;
    if (!x || !y)
        return 0;
    *cap = c;
    return 1;
}

static void remember(simplifier *s, copy_map *m, const ir_node *from,
                     ir_node *to)
{
    if (!grow2((void **)&m->from, (void **)&m->to, sizeof(void *), m->n,
               &m->cap)) {
        simp_oom(s);
        return;
    }
    m->from[m->n] = from;
    m->to[m->n++] = to;
}

static uint32_t renamed(const copy_map *m, uint32_t var)
{
    for (uint32_t i = 0; i < m->n_vars; i++)
        if (m->var_from[i] == var)
            return m->var_to[i];
    return var;
}

static void rename_var(simplifier *s, copy_map *m, uint32_t from, uint32_t to)
{
    if (simp_failed(s) || !grow2((void **)&m->var_from, (void **)&m->var_to,
                         sizeof(uint32_t), m->n_vars, &m->cap_vars)) {
        simp_oom(s);
        return;
    }
    m->var_from[m->n_vars] = from;
    m->var_to[m->n_vars++] = to;
}

/* Variables a let inside the copy binds are renamed; parameters a lambda
 * inside binds are fresh; everything else (arrays, outer variables, free
 * parameters) is shared, as fusion's copies do. */
static ir_node *copy_rec(simplifier *s, copy_map *m, const ir_node *n)
{
    ir_node *seen = copied(m, n);
    if (seen || simp_failed(s))
        return seen ? seen : (ir_node *)n;
    if (n->op == IR_INPUT || n->op == IR_PARAM || ir_is_array(n))
        return (ir_node *)n;
    if (n->op == IR_VAR) {
        ir_node *v = simp_var(s, renamed(m, n->u.let.var), n->type);
        return v ? v : (ir_node *)n;
    }
    ir_node *c = simp_mk(s, n->op, n->type, n->n_args, n->args);
    if (!c)
        return (ir_node *)n;
    remember(s, m, n, c);
    c->u = n->u;
    c->fused = n->fused;
    c->in_bounds = n->in_bounds;
    if (n->op == IR_LAMBDA)
        for (uint32_t i = 0; i < n->u.lambda.n_params && !simp_failed(s);
             i++) {
            ir_node *param = simp_mk(s, IR_PARAM, n->args[i]->type, 0, NULL);
            if (param) {
                param->u = n->args[i]->u;
                param->u.param.slot = s->p->n_params++;
                remember(s, m, n->args[i], param);
            }
        }
    if (n->op == IR_LET)
        rename_var(s, m, n->u.let.var, simp_new_var(s, NULL));
    for (uint32_t i = 0; i < n->n_args && !simp_failed(s); i++)
        c->args[i] = copy_rec(s, m, n->args[i]);
    if (n->op == IR_LET && !simp_failed(s)) {
        c->u.let.var = renamed(m, n->u.let.var);
        s->p->var_bound[c->u.let.var] = c->args[0];
    }
    return c;
}

static ir_node *copy_term(simplifier *s, const ir_node *n)
{
    copy_map m = {0};
    ir_node *c = copy_rec(s, &m, n);
    free(m.from);
    free(m.to);
    free(m.var_from);
    free(m.var_to);
    return c;
}

/* ---- shape terms ------------------------------------------------------ */

/* The producer behind a variable, or a itself. */
static const ir_node *behind(const simplifier *s, const ir_node *a)
{
    while (a->op == IR_VAR && a->u.let.var < s->p->n_vars &&
           s->p->var_bound[a->u.let.var] &&
           simp_is_producer(s->p->var_bound[a->u.let.var]))
        a = s->p->var_bound[a->u.let.var];
    return a;
}

static ir_node *shape_term(simplifier *s, const ir_node *a);

/* let v = e in build(v): e bound once, so its components are read
 * without computing it again. */
static ir_node *bound_shape(simplifier *s, const ir_node *a, uint32_t *var)
{
    ir_node *sh = shape_term(s, a);
    *var = sh ? simp_new_var(s, sh) : UINT32_MAX;
    return simp_failed(s) || !sh ? NULL : simp_var(s, *var, sh->type);
}

static ir_node *extent(simplifier *s, ir_node *sh, size_t d)
{
    return sh ? simp_get(s, sh, d, ty_scalar(ACC_I64)) : NULL;
}

static ir_node *index_of(simplifier *s, int32_t rank, ir_node **ext,
                         uint32_t n_vars, const uint32_t *vars)
{
    for (int32_t d = 0; d < rank; d++)
        if (!ext[d])
            return NULL;
    ir_node *ix = simp_mk(s, IR_INDEX, ty_shape(rank), (uint32_t)rank, ext);
    for (uint32_t i = n_vars; ix && i-- > 0;)
        ix = simp_let(s, vars[i], s->p->var_bound[vars[i]], ix);
    return ix;
}

static ir_node *intersection(simplifier *s, const ir_node *n)
{
    uint32_t m = n->n_args - 1, vars[64];
    int32_t rank = n->type->rank;
    if (m == 1 || m > 64)
        return m == 1 ? shape_term(s, n->args[1]) : NULL;
    ir_node *shapes[64], *ext[ACC_MAX_RANK];
    for (uint32_t i = 0; i < m; i++)
        if (!(shapes[i] = bound_shape(s, n->args[i + 1], &vars[i])))
            return NULL;
    for (int32_t d = 0; d < rank; d++) {
        ext[d] = extent(s, shapes[0], (size_t)d);
        for (uint32_t i = 1; i < m && ext[d]; i++) {
            ir_node *args[2] = {ext[d], extent(s, shapes[i], (size_t)d)};
            ext[d] = args[1] ? simp_mk(s, IR_PRIM, args[0]->type, 2, args)
                             : NULL;
            if (ext[d])
                ext[d]->u.prim = ACC_OP_MIN;
        }
    }
    return index_of(s, rank, ext, m, vars);
}

/* replicate spec xs: a new extent per integer entry, the source's next
 * extent per All; slice xs spec: the source's extents at the All
 * entries. */
static ir_node *spec_shape(simplifier *s, const ir_node *n)
{
    int replicate = n->op == IR_REPLICATE;
    uint32_t m = n->n_args - 1, var, k = 0, kept = 0;
    const ir_node *src = replicate ? n->args[m] : n->args[0];
    ir_node *src_sh = bound_shape(s, src, &var);
    ir_node *ext[ACC_MAX_RANK];
    if (!src_sh)
        return NULL;
    for (uint32_t d = 0; d < m; d++) {
        const ir_node *e = n->args[replicate ? d : d + 1];
        /* replicate: the source's dimensions in order, one per All;
         * slice: the source's dimension d */
        if (e->op == IR_ALL)
            ext[k++] = extent(s, src_sh, replicate ? kept++ : d);
        else if (replicate)
            ext[k++] = copy_term(s, e);
    }
    return index_of(s, n->type->rank, ext, 1, &var);
}

/* The shape of array term a: a term for a producer, `shape a` read from
 * a variable or an input, NULL for anything else (its shape is known
 * only once it is computed). */
static ir_node *shape_term(simplifier *s, const ir_node *a)
{
    a = behind(s, a);
    switch (a->op) {
    case IR_INPUT: case IR_VAR: case IR_PARAM:
        return simp_mk(s, IR_SHAPE, ty_shape(a->type->rank), 1,
                       (ir_node *const *)&a);
    case IR_GENERATE: case IR_BACKPERMUTE: return copy_term(s, a->args[0]);
    case IR_MAP:
        return simp_is_producer(a) ? shape_term(s, a->args[1]) : NULL;
    case IR_ZIPWITH: return intersection(s, a);
    case IR_REPLICATE: case IR_SLICE: return spec_shape(s, a);
    default: return NULL;
    }
}

/* The number of elements of shape sh: 1 * sh.0 * .. * sh.(r-1). */
static ir_node *size_of(simplifier *s, ir_node *sh, int32_t rank)
{
    uint32_t var = simp_new_var(s, sh);
    ir_node *v = simp_failed(s) ? NULL : simp_var(s, var, sh->type);
    ir_node *size = simp_const(s, ty_scalar(ACC_I64), (ir_value){.i = 1});
    for (int32_t d = 0; d < rank && size; d++) {
        ir_node *args[2] = {size, extent(s, v, (size_t)d)};
        size = args[1] ? simp_mk(s, IR_PRIM, size->type, 2, args) : NULL;
        if (size)
            size->u.prim = ACC_OP_MUL;
    }
    return size ? simp_let(s, var, sh, size) : NULL;
}

ir_node *simp_shape_use(simplifier *s, ir_node *n)
{
    const ir_node *a = behind(s, n->args[0]);
    if (!simp_is_producer(a))
        return n;
    ir_node *sh = shape_term(s, a);
    if (sh && n->op == IR_SIZE)
        sh = size_of(s, sh, a->type->rank);
    return sh && !simp_failed(s) ? sh : n;
}
