/*
 * fusion.c — producer/producer fusion by delayed arrays, consumer/producer
 * fusion by embedding, and the extensions of fusion.h.
 *
 * The delayed form of a producer is a generate node: `generate sh f`.
 * Smart constructors build it:
 *   map f a             = generate (shape a) (\ix -> f (a @ ix))
 *   zipWith f a1 .. an  = generate (a1's shape ∩ .. ∩ an's) (\ix -> f (a1 @ ix) ..)
 *   backpermute sh p a  = generate sh (\ix -> a @ (p ix))
 * where `a @ ix` is the element of a at ix: a read for a manifest array,
 * the application of its function for a delayed one.  Application is beta
 * reduction through lets: (\x -> body) e  =  let x = e in body (the
 * parameter node becomes the let's variable), so an argument is computed
 * once however often the body uses it.
 */
#include "core/fusion/fusion.h"
#include "core/simplify/form.h"
#include "core/base/mem.h"

#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#define BIT(op) ((uint64_t)1 << (op))

typedef struct copy_map copy_map;

/* Out of memory anywhere in the pass is recorded on the pass's diag (by
 * diag_oom, the one place that reports it) and then jumps back to
 * fuse_program (out_of_memory), which frees the pass's tables and the
 * copy map being built.  The jump stays because the rewrite is a deep
 * recursion that builds nodes at every level: unwinding by returns would
 * put a check after every mk.  The program is then discarded, so the
 * half-rewritten IR is never used, and no caller has to check a node it
 * was given.  The diag is the only error state: there is no flag. */
typedef struct fuser {
    jmp_buf oom_jump;
    copy_map *copying;    /* the copy map of copy_term in progress */
    ir_program *p;
    diag *d;
    uint32_t n_vars0;     /* variables that existed before fusion */
    uint32_t *uses;       /* per array variable: data uses */
    ir_node **delayed;    /* per variable: its producer, when inlined */
    uint8_t *dup;         /* per variable: duplicated into each use */
    uint32_t *loop_depth; /* per variable: loops around its let */
    ir_node **done;       /* per node id: result of fusing it (array level) */
    uint32_t n_done;
    int32_t max_ops;
    size_t duplicated;
} fuser;

/* ---- construction --------------------------------------------------------- */

static _Noreturn void out_of_memory(fuser *f)
{
    diag_oom(f->d, "fusion");
    longjmp(f->oom_jump, 1);
}

/* Whether an error is recorded: out_of_memory never returns, so this
 * only guards code that a future non-jumping failure could reach. */
static int failed(const fuser *f)
{
    return !diag_ok(f->d);
}

static ir_node *mk(fuser *f, ir_op op, const acc_type *type, uint32_t n,
                   ir_node *const *args)
{
    ir_node *node = ir_program_node(f->p, op, type, n, args);
    if (!node)
        out_of_memory(f);
    return node;
}

static uint32_t new_var(fuser *f, ir_node *bound)
{
    ir_program *p = f->p;
    ir_node **grown = mem_realloc(p->var_bound,
                                  (p->n_vars + 1) * sizeof *grown);
    if (!grown)
        out_of_memory(f);
    p->var_bound = grown;
    p->var_bound[p->n_vars] = bound;
    return p->n_vars++;
}

static ir_node *mk_let(fuser *f, uint32_t var, ir_node *bound, ir_node *body)
{
    ir_node *args[2] = {bound, body};
    ir_node *let = mk(f, IR_LET, body->type, 2, args);
    if (let)
        let->u.let.var = var;
    return let;
}

static ir_node *mk_var(fuser *f, uint32_t var, const acc_type *type)
{
    ir_node *v = mk(f, IR_VAR, type, 0, NULL);
    if (v)
        v->u.let.var = var;
    return v;
}

static ir_node *mk_prim(fuser *f, acc_primop op, ir_node *a, ir_node *b)
{
    ir_node *args[2] = {a, b};
    ir_node *n = mk(f, IR_PRIM, a->type, b ? 2 : 1, args);
    if (n)
        n->u.prim = op;
    return n;
}

static ir_node *mk_get(fuser *f, ir_node *t, size_t i)
{
    ir_node *n = mk(f, IR_GET, ty_scalar(ACC_I64), 1, &t);
    if (n)
        n->u.field = i;
    return n;
}

static ir_node *mk_param(fuser *f, const acc_type *type)
{
    ir_node *n = mk(f, IR_PARAM, type, 0, NULL);
    if (n)
        n->u.param.slot = f->p->n_params++;
    return n;
}

/* A scalar let binding `bound` around the term build(var) returns. */
static ir_node *bind(fuser *f, ir_node *bound, uint32_t *var)
{
    *var = new_var(f, bound);
    return failed(f) ? NULL : mk_var(f, *var, bound->type);
}

/* ---- beta reduction and copying ----------------------------------------- */

/* (\p0 .. pn -> body) a0 .. an  =  let p0 = a0; ..; pn = an in body.  The
 * lambda is consumed: its parameter nodes become the lets' variables. */
static ir_node *beta(fuser *f, ir_node *lam, ir_node *const *args)
{
    uint32_t np = lam->u.lambda.n_params;
    ir_node *body = lam->args[np];
    uint32_t vars[64];
    for (uint32_t i = 0; i < np && !failed(f); i++) {
        vars[i] = new_var(f, args[i]);
        ir_node *param = lam->args[i];
        param->op = IR_VAR;
        param->u.let.var = vars[i];
    }
    for (uint32_t i = np; i-- > 0 && !failed(f);)
        body = mk_let(f, vars[i], args[i], body);
    return failed(f) ? lam->args[np] : body;
}

struct copy_map {
    const ir_node **from;
    ir_node **to;
    uint32_t n, cap;
    uint32_t *var_from, *var_to;
    uint32_t n_vars, cap_vars;
};

static void copy_map_free(copy_map *m)
{
    free(m->from);
    free(m->to);
    free(m->var_from);
    free(m->var_to);
}

static ir_node *copy_lookup(const copy_map *m, const ir_node *n)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (m->from[i] == n)
            return m->to[i];
    return NULL;
}

static int copy_remember(fuser *f, copy_map *m, const ir_node *from,
                         ir_node *to)
{
    if (m->n == m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 32;
        const ir_node **a = mem_realloc(m->from, cap * sizeof *a);
        if (a)
            m->from = a;
        ir_node **b = a ? mem_realloc(m->to, cap * sizeof *b) : NULL;
        if (b)
            m->to = b;
        if (!a || !b)
            out_of_memory(f);
        m->cap = cap;
    }
    m->from[m->n] = from;
    m->to[m->n++] = to;
    return 1;
}

static uint32_t copy_var(const copy_map *m, uint32_t var)
{
    for (uint32_t i = 0; i < m->n_vars; i++)
        if (m->var_from[i] == var)
            return m->var_to[i];
    return var;
}

static void copy_bind_var(fuser *f, copy_map *m, uint32_t from, uint32_t to)
{
    if (m->n_vars == m->cap_vars) {
        uint32_t cap = m->cap_vars ? m->cap_vars * 2 : 8;
        uint32_t *a = mem_realloc(m->var_from, cap * sizeof *a);
        if (a)
            m->var_from = a;
        uint32_t *b = a ? mem_realloc(m->var_to, cap * sizeof *b) : NULL;
        if (b)
            m->var_to = b;
        if (!a || !b)
            out_of_memory(f);
        m->cap_vars = cap;
    }
    m->var_from[m->n_vars] = from;
    m->var_to[m->n_vars++] = to;
}

/* A copy of a term with fresh parameters and let variables for those it
 * binds; free parameters, outer variables and arrays are shared. */
static ir_node *copy_rec(fuser *f, copy_map *m, const ir_node *n)
{
    ir_node *seen = copy_lookup(m, n);
    if (seen)
        return seen;
    /* parameters bound inside were remembered when their lambda was met */
    if (n->op == IR_INPUT || n->op == IR_PARAM ||
        (n->op == IR_VAR && n->type->array_sort))
        return (ir_node *)n;
    ir_node *c = mk(f, n->op, n->type, n->n_args, n->args);
    if (!c || !copy_remember(f, m, n, c))
        return (ir_node *)n;
    c->u = n->u;
    c->fused = n->fused;
    if (n->op == IR_LAMBDA)
        for (uint32_t i = 0; i < n->u.lambda.n_params; i++) {
            ir_node *param = mk_param(f, n->args[i]->type);
            if (!param || !copy_remember(f, m, n->args[i], param))
                return c;
        }
    if (n->op == IR_LET)
        copy_bind_var(f, m, n->u.let.var, new_var(f, NULL));
    for (uint32_t i = 0; i < n->n_args && !failed(f); i++)
        c->args[i] = copy_rec(f, m, n->args[i]);
    if (n->op == IR_LET) {
        c->u.let.var = copy_var(m, n->u.let.var);
        f->p->var_bound[c->u.let.var] = c->args[0];
    }
    if (n->op == IR_VAR)
        c->u.let.var = copy_var(m, n->u.let.var);
    return c;
}

static ir_node *copy_term(fuser *f, const ir_node *n)
{
    copy_map m = {0};
    f->copying = &m;
    ir_node *c = copy_rec(f, &m, n);
    f->copying = NULL;
    copy_map_free(&m);
    return c;
}

/* ---- counting the data uses of array variables -------------------------- */

/* Whether argument i of n is evaluated repeatedly (a loop's functions). */
static int repeated(const ir_node *n, uint32_t i)
{
    return (n->op == IR_WHILE || n->op == IR_AWHILE) && i < 2;
}

/* A use inside a loop that does not contain the variable's let counts as
 * many uses: inlining there would recompute the producer every iteration. */
static void count_uses(fuser *f, const ir_node *n, const ir_node *parent,
                       uint32_t loops, uint8_t *seen)
{
    if (n->op == IR_VAR) {
        uint32_t v = n->u.let.var;
        int shape_only = parent && (parent->op == IR_SHAPE ||
                                    parent->op == IR_SIZE);
        if (n->type->array_sort && v < f->n_vars0 && !shape_only)
            f->uses[v] += loops > f->loop_depth[v] ? 2 : 1;
        return;
    }
    if (seen[n->id]++)
        return;
    if (n->op == IR_LET && n->u.let.var < f->n_vars0)
        f->loop_depth[n->u.let.var] = loops;
    for (uint32_t i = 0; i < n->n_args; i++)
        count_uses(f, n->args[i], n, loops + (uint32_t)repeated(n, i), seen);
}

/* ---- delayed arrays ---------------------------------------------------- */

/* The producer of an inlined variable; a duplicated one is copied for
 * every use (beta reduction consumes what it is given). */
static ir_node *take(fuser *f, uint32_t var)
{
    ir_node *t = f->delayed[var];
    return f->dup[var] ? copy_term(f, t) : t;
}

static ir_node *fuse_array(fuser *f, ir_node *n);
static ir_node *fuse_scalar(fuser *f, ir_node *n);

/* The terms fusion builds are kept in the form simplify gives the program
 * (core/simplify/form.h, the one implementation of its rules): the lets
 * around an argument that is always evaluated float out to around the
 * operation (form_float_lets), so the producer behind them is visible.
 * A kernel's result used by a producer is bound to a variable first, so
 * scalar code only ever reads variables.  lets collects the bindings;
 * the source rule differs from simplify's bind_source in one point: what
 * fusion has made of a producer is a generate, the only producer left. */
static ir_node *as_source(fuser *f, ir_node *a, form_lets *lets)
{
    if (a->op == IR_GENERATE || form_is_ref(a) ||
        lets->n == FORM_LETS_MAX)
        return a;
    uint32_t var = new_var(f, a);
    lets->vars[lets->n] = var;
    lets->bound[lets->n++] = a;
    return mk_var(f, var, a->type);
}

static ir_node *wrap_pending(fuser *f, const form_lets *lets, ir_node *t)
{
    for (uint32_t i = lets->n; i-- > 0 && t;)
        t = mk_let(f, lets->vars[i], lets->bound[i], t);
    return t;
}

/* a @ ix: the element of a source at index term ix (consumes a delayed
 * source's function). */
static ir_node *element(fuser *f, ir_node *a, ir_node *ix);

/* a @ ix where ix is in range by construction (inside the intersection of
 * the sources' shapes, or a replicate's kept dimensions): the read needs
 * no bounds check in compiled code. */
static ir_node *element_in_range(fuser *f, ir_node *a, ir_node *ix)
{
    ir_node *e = element(f, a, ix);
    if (e && e->op == IR_READ)
        e->in_bounds = 1;
    return e;
}

static ir_node *element(fuser *f, ir_node *a, ir_node *ix)
{
    if (a->op == IR_GENERATE)
        return beta(f, a->args[1], &ix);
    ir_node *args[2] = {a, ix};
    return mk(f, IR_READ, a->type->elem, 2, args);
}

/* The element at an index nothing has checked (backpermute, slice, and
 * the user's reads `xs ! ix` of an inlined producer): a read is checked by
 * the read; a delayed source gets a bounds check, so the fused program
 * fails where the unfused one would.  Both name the user's operation
 * `origin`. */
static ir_node *element_checked(fuser *f, ir_node *a, ir_node *ix,
                                ir_op origin)
{
    if (a->op == IR_GENERATE) {
        ir_node *args[2] = {ix, copy_term(f, a->args[0])};
        ix = mk(f, IR_BOUNDS, ix->type, 2, args);
        if (!ix)
            return a;
        ix->fused = BIT(origin);
    }
    ir_node *e = element(f, a, ix);
    if (e && e->op == IR_READ)
        e->fused |= BIT(origin);
    return e;
}

static ir_node *shape_of(fuser *f, ir_node *a)
{
    if (a->op == IR_GENERATE)
        return a->args[0];
    return mk(f, IR_SHAPE, ty_shape(a->type->rank), 1, &a);
}

/* The intersection of the sources' shapes, componentwise minima. */
static ir_node *intersection(fuser *f, ir_node *const *src, uint32_t m,
                             int32_t rank)
{
    if (m == 1)
        return shape_of(f, src[0]);
    uint32_t vars[64];
    ir_node *shapes[64], *comps[ACC_MAX_RANK];
    for (uint32_t i = 0; i < m && !failed(f); i++)
        shapes[i] = bind(f, shape_of(f, src[i]), &vars[i]);
    for (int32_t d = 0; d < rank && !failed(f); d++) {
        comps[d] = mk_get(f, shapes[0], (size_t)d);
        for (uint32_t i = 1; i < m && !failed(f); i++)
            comps[d] = mk_prim(f, ACC_OP_MIN, comps[d],
                               mk_get(f, shapes[i], (size_t)d));
    }
    ir_node *ix = failed(f) ? NULL : mk(f, IR_INDEX, ty_shape(rank),
                                     (uint32_t)rank, comps);
    for (uint32_t i = m; ix && i-- > 0;)
        ix = mk_let(f, vars[i], f->p->var_bound[vars[i]], ix);
    return ix;
}

/* The user's operations a node stands for: a generate made by fusion
 * (fused != 0) stands for what it was made from, not for a generate. */
static uint64_t fused_bits(const ir_node *n)
{
    if (n->op == IR_GENERATE && n->fused)
        return n->fused;
    return n->fused | BIT(n->op);
}

/* generate sh (\ix -> body ix): body receives the index parameter. */
static ir_node *mk_generate(fuser *f, const ir_node *origin, ir_node *sh,
                            ir_node *ix, ir_node *body, uint64_t fused)
{
    if (failed(f))
        return (ir_node *)origin;
    ir_node *lam_args[2] = {ix, body};
    ir_node *lam = mk(f, IR_LAMBDA, body->type, 2, lam_args);
    if (!lam)
        return (ir_node *)origin;
    lam->u.lambda.n_params = 1;
    ir_node *args[2] = {sh, lam};
    ir_node *g = mk(f, IR_GENERATE, origin->type, 2, args);
    if (g)
        g->fused = fused | fused_bits(origin);
    return g ? g : (ir_node *)origin;
}

/* map and zipWith: f applied to the sources' elements at each index. */
static ir_node *fuse_mapping(fuser *f, ir_node *n)
{
    uint32_t m = n->n_args - 1;
    ir_node *src[64], *elems[64];
    form_lets lets = {.n = 0};
    uint64_t fused = 0;
    ir_node *fun = fuse_scalar(f, n->args[0]);
    for (uint32_t i = 0; i < m; i++) {
        ir_node *a =
            form_float_lets(fuse_array(f, n->args[i + 1]), &lets);
        if (n->op == IR_MAP && !form_is_ref(a) && a->op != IR_GENERATE) {
            n->args[1] = a; /* map over a consumer: applied as it writes */
            n->args[0] = fun;
            n->fused |= fused_bits(a);
            return wrap_pending(f, &lets, n);
        }
        src[i] = as_source(f, a, &lets);
        fused |= src[i]->op == IR_GENERATE ? fused_bits(src[i]) : 0;
    }
    ir_node *sh = intersection(f, src, m, n->type->rank);
    ir_node *ix = mk_param(f, ty_shape(n->type->rank));
    for (uint32_t i = 0; i < m && !failed(f); i++)
        elems[i] = element_in_range(f, src[i], ix);
    if (failed(f) || !sh || !ix)
        return n;
    ir_node *g = mk_generate(f, n, sh, ix, beta(f, fun, elems), fused);
    return wrap_pending(f, &lets, g);
}

static ir_node *fuse_backpermute(fuser *f, ir_node *n)
{
    form_lets lets = {.n = 0};
    ir_node *sh = fuse_scalar(f, n->args[0]);
    ir_node *p = fuse_scalar(f, n->args[1]);
    ir_node *a = as_source(f,
                           form_float_lets(fuse_array(f, n->args[2]), &lets),
                           &lets);
    uint64_t fused = a->op == IR_GENERATE ? fused_bits(a) : 0;
    ir_node *ix = mk_param(f, ty_shape(n->type->rank));
    if (failed(f) || !ix)
        return n;
    ir_node *target = beta(f, p, &ix);
    ir_node *e = element_checked(f, a, target, IR_BACKPERMUTE);
    ir_node *g = mk_generate(f, n, sh, ix, e, fused);
    return wrap_pending(f, &lets, g);
}

/* replicate spec xs: the result's dimension d is the next dimension of xs
 * (All) or a new one of the given extent; an element is the source's at
 * the All components of its index. */
static ir_node *fuse_replicate(fuser *f, ir_node *n)
{
    form_lets lets = {.n = 0};
    uint32_t m = n->n_args - 1, vs, k = 0;
    ir_node *a = as_source(f,
                           form_float_lets(fuse_array(f, n->args[m]), &lets),
                           &lets);
    uint64_t fused = a->op == IR_GENERATE ? fused_bits(a) : 0;
    ir_node *src_sh = bind(f, shape_of(f, a), &vs);
    ir_node *ix = mk_param(f, ty_shape((int32_t)m));
    ir_node *ext[ACC_MAX_RANK], *src_ix[ACC_MAX_RANK];
    for (uint32_t d = 0; d < m && !failed(f); d++) {
        ir_node *e = fuse_scalar(f, n->args[d]);
        int all = e->op == IR_ALL;
        ext[d] = all ? mk_get(f, src_sh, k) : e;
        if (all)
            src_ix[k++] = mk_get(f, ix, d);
    }
    if (failed(f) || !ix)
        return n;
    ir_node *sh = mk(f, IR_INDEX, ty_shape((int32_t)m), m, ext);
    ir_node *at = mk(f, IR_INDEX, ty_shape((int32_t)k), k, src_ix);
    if (!sh || !at)
        return n;
    sh = mk_let(f, vs, f->p->var_bound[vs], sh);
    ir_node *g = mk_generate(f, n, sh, ix, element_in_range(f, a, at), fused);
    return wrap_pending(f, &lets, g);
}

/* slice xs spec: the result keeps the All dimensions; an element is the
 * source's at the index made of the result's index and the fixed ones. */
static ir_node *fuse_slice(fuser *f, ir_node *n)
{
    form_lets lets = {.n = 0};
    uint32_t m = n->n_args - 1, vs, k = 0;
    ir_node *a = as_source(f,
                           form_float_lets(fuse_array(f, n->args[0]), &lets),
                           &lets);
    uint64_t fused = a->op == IR_GENERATE ? fused_bits(a) : 0;
    ir_node *src_sh = bind(f, shape_of(f, a), &vs);
    int32_t rank = n->type->rank;
    ir_node *ix = mk_param(f, ty_shape(rank));
    ir_node *ext[ACC_MAX_RANK], *src_ix[ACC_MAX_RANK];
    for (uint32_t d = 0; d < m && !failed(f); d++) {
        ir_node *e = fuse_scalar(f, n->args[d + 1]);
        if (e->op == IR_ALL) {
            ext[k] = mk_get(f, src_sh, d);
            src_ix[d] = mk_get(f, ix, k++);
        } else {
            src_ix[d] = e;
        }
    }
    if (failed(f) || !ix)
        return n;
    ir_node *sh = mk(f, IR_INDEX, ty_shape(rank), k, ext);
    ir_node *at = mk(f, IR_INDEX, ty_shape((int32_t)m), m, src_ix);
    if (!sh || !at)
        return n;
    sh = mk_let(f, vs, f->p->var_bound[vs], sh);
    ir_node *e = element_checked(f, a, at, IR_SLICE);
    ir_node *g = mk_generate(f, n, sh, ix, e, fused);
    return wrap_pending(f, &lets, g);
}

static int32_t cost(const ir_node *n, int32_t budget)
{
    if (budget < 0)
        return budget;
    if (n->n_args == 0)
        return budget;
    if (n->op != IR_LET && n->op != IR_LAMBDA && n->op != IR_TUPLE &&
        n->op != IR_GET && n->op != IR_INDEX)
        budget--;
    for (uint32_t i = 0; i < n->n_args && budget >= 0; i++)
        budget = cost(n->args[i], budget);
    return budget;
}

/* let v = producer in body: inline the producer when it has one data use
 * (or none), or when the cost model allows computing it in each use. */
static ir_node *fuse_let(fuser *f, ir_node *n)
{
    uint32_t v = n->u.let.var;
    ir_node *b = fuse_array(f, n->args[0]);
    if (b->op == IR_GENERATE && v < f->n_vars0) {
        int single = f->uses[v] <= 1;
        int cheap = f->max_ops > 0 && f->uses[v] > 1 &&
                    cost(b->args[1], f->max_ops) >= 0;
        if (single || cheap) {
            f->delayed[v] = b;
            f->dup[v] = (uint8_t)cheap;
            f->duplicated += (size_t)cheap;
            return fuse_array(f, n->args[1]);
        }
    }
    n->args[0] = b;
    f->p->var_bound[v] = b;
    n->args[1] = fuse_array(f, n->args[1]);
    return n;
}

int fuse_is_embedded(const ir_node *n, uint32_t i)
{
    const ir_node *a = n->args[i];
    if (a->op == IR_LAMBDA || !a->type->array_sort)
        return 0;
    if (form_is_consumer(n->op) && a->op == IR_GENERATE)
        return 1;
    if (n->op == IR_PERMUTE_PAIRS && a->op == IR_EXPAND)
        return 1;
    return n->op == IR_MAP && i == 1 && !form_is_ref(a) &&
           a->op != IR_GENERATE;
}

/* Any other operation: fuse inside its arguments; consumers keep delayed
 * arguments embedded, with lets floated out of the way. */
static ir_node *fuse_args(fuser *f, ir_node *n)
{
    form_lets lets = {.n = 0};
    for (uint32_t i = 0; i < n->n_args && !failed(f); i++) {
        ir_node *a = n->args[i];
        int array_arg = a->op == IR_LAMBDA ? ir_lambda_body(a)->type->array_sort
                                           : a->type->array_sort;
        n->args[i] = array_arg ? fuse_array(f, a) : fuse_scalar(f, a);
        if (array_arg && form_is_consumer(n->op) && a->op != IR_LAMBDA)
            n->args[i] = form_float_lets(n->args[i], &lets);
        if (fuse_is_embedded(n, i))
            n->fused |= fused_bits(n->args[i]);
    }
    return wrap_pending(f, &lets, n);
}

static ir_node *fuse_array_op(fuser *f, ir_node *n)
{
    switch (n->op) {
    case IR_INPUT:
    case IR_PARAM: return n;
    case IR_VAR:
        return n->u.let.var < f->n_vars0 && f->delayed[n->u.let.var]
                   ? take(f, n->u.let.var) : n;
    case IR_LET: return fuse_let(f, n);
    case IR_MAP:
    case IR_ZIPWITH: return fuse_mapping(f, n);
    case IR_BACKPERMUTE: return fuse_backpermute(f, n);
    case IR_REPLICATE: return fuse_replicate(f, n);
    case IR_SLICE: return fuse_slice(f, n);
    case IR_LAMBDA: {
        uint32_t b = n->u.lambda.n_params;
        n->args[b] = fuse_array(f, n->args[b]);
        return n;
    }
    default: return fuse_args(f, n);
    }
}

static ir_node *fuse_array(fuser *f, ir_node *n)
{
    if (failed(f))
        return n;
    if (n->id < f->n_done && f->done[n->id])
        return f->done[n->id];
    ir_node *r = fuse_array_op(f, n);
    if (n->id < f->n_done && n->op != IR_VAR)
        f->done[n->id] = r;
    return r;
}

/* ---- scalar code: reads, shapes and sizes of inlined producers ---------- */

/* The index of linear position k in shape sh (row-major). */
static ir_node *unravel(fuser *f, ir_node *k, ir_node *sh, int32_t rank)
{
    uint32_t vs, vk;
    ir_node *s = bind(f, sh, &vs), *rest = bind(f, k, &vk);
    ir_node *comps[ACC_MAX_RANK];
    for (int32_t d = rank - 1; d >= 0 && !failed(f); d--) {
        ir_node *e = mk_get(f, s, (size_t)d);
        comps[d] = d ? mk_prim(f, ACC_OP_REM, rest, e) : rest;
        if (d)
            rest = mk_prim(f, ACC_OP_QUOT, rest, e);
    }
    ir_node *ix = failed(f) ? NULL : mk(f, IR_INDEX, ty_shape(rank),
                                     (uint32_t)rank, comps);
    ix = ix ? mk_let(f, vk, f->p->var_bound[vk], ix) : NULL;
    return ix ? mk_let(f, vs, f->p->var_bound[vs], ix) : k;
}

static ir_node *size_of_shape(fuser *f, ir_node *sh, int32_t rank)
{
    uint32_t vs;
    ir_node *s = bind(f, sh, &vs);
    ir_node *one = mk(f, IR_CONST, ty_scalar(ACC_I64), 0, NULL);
    if (!s || !one)
        return sh;
    one->u.lit.i = 1;
    ir_node *size = one;
    for (int32_t d = 0; d < rank && !failed(f); d++)
        size = mk_prim(f, ACC_OP_MUL, size, mk_get(f, s, (size_t)d));
    return failed(f) ? sh : mk_let(f, vs, f->p->var_bound[vs], size);
}

/* Position k checked against the size of delayed array g, before it is
 * unravelled (which could divide by a zero extent): a linear bounds check
 * (IR_BOUNDS of an i64), failing like the linear read it replaces. */
static ir_node *position_checked(fuser *f, ir_node *g, ir_node *k)
{
    ir_node *args[2] = {k, size_of_shape(f, copy_term(f, g->args[0]),
                                         g->type->rank)};
    ir_node *c = failed(f) ? NULL : mk(f, IR_BOUNDS, k->type, 2, args);
    if (!c)
        return k;
    c->fused = BIT(IR_READ_LINEAR);
    return c;
}

/* An access to an inlined producer from scalar code, rewritten.  A read
 * keeps its bounds check: the producer's function would compute an
 * element at any index, in range or not. */
static ir_node *fuse_access(fuser *f, ir_node *n)
{
    uint32_t var = n->args[0]->u.let.var;
    ir_node *t = f->delayed[var];
    int32_t rank = t->type->rank;
    switch (n->op) {
    case IR_SHAPE: return copy_term(f, t->args[0]);
    case IR_SIZE: return size_of_shape(f, copy_term(f, t->args[0]), rank);
    case IR_READ: {
        ir_node *ix = fuse_scalar(f, n->args[1]);
        return element_checked(f, take(f, var), ix, IR_READ);
    }
    default: { /* IR_READ_LINEAR */
        ir_node *k = fuse_scalar(f, n->args[1]);
        ir_node *g = take(f, var);
        k = position_checked(f, g, k);
        return element(f, g, unravel(f, k, copy_term(f, g->args[0]), rank));
    }
    }
}

static int reads_inlined(const fuser *f, const ir_node *n)
{
    if (n->op != IR_READ && n->op != IR_READ_LINEAR && n->op != IR_SHAPE &&
        n->op != IR_SIZE)
        return 0;
    const ir_node *a = n->args[0];
    return a->op == IR_VAR && a->u.let.var < f->n_vars0 &&
           f->delayed[a->u.let.var] != NULL;
}

static ir_node *fuse_scalar(fuser *f, ir_node *n)
{
    if (failed(f))
        return n;
    if (n->id < f->n_done && f->done[n->id])
        return f->done[n->id];
    ir_node *r = n;
    if (reads_inlined(f, n)) {
        r = fuse_access(f, n);
    } else {
        for (uint32_t i = 0; i < n->n_args && !failed(f); i++) {
            ir_node *a = n->args[i];
            int array_arg = a->op != IR_LAMBDA && a->type->array_sort;
            n->args[i] = array_arg ? fuse_array(f, a) : fuse_scalar(f, a);
        }
    }
    if (n->id < f->n_done && n->op != IR_VAR && n->op != IR_PARAM)
        f->done[n->id] = r;
    return r;
}

/* ---- the pass ----------------------------------------------------------- */

acc_status fuse_program(ir_program *p, const fuse_options *o,
                        size_t *duplicated, diag *d)
{
    /* an earlier error wins, and failed() reads d as the pass's state */
    if (!diag_ok(d))
        return d->status;
    /* on the heap: its fields change after setjmp, and are read after a
     * longjmp (locals changed so would be indeterminate) */
    fuser *f = mem_calloc(1, sizeof *f);
    uint8_t *seen = NULL;
    if (!f)
        return diag_oom(d, "fusion");
    f->p = p;
    f->d = d;
    f->n_vars0 = p->n_vars;
    f->max_ops = o ? o->duplicate_max_ops : 0;
    f->n_done = p->n_nodes;
    size_t nv = p->n_vars ? p->n_vars : 1;
    f->uses = mem_calloc(nv, sizeof *f->uses);
    f->delayed = mem_calloc(nv, sizeof *f->delayed);
    f->dup = mem_calloc(nv, 1);
    f->loop_depth = mem_calloc(nv, sizeof *f->loop_depth);
    f->done = mem_calloc(p->n_nodes ? p->n_nodes : 1, sizeof *f->done);
    seen = mem_calloc(p->n_nodes ? p->n_nodes : 1, 1);
    if (!f->uses || !f->delayed || !f->dup || !f->loop_depth || !f->done ||
        !seen) {
        diag_oom(d, "fusion");
    } else if (setjmp(f->oom_jump) == 0) {
        count_uses(f, p->root, NULL, 0, seen);
        p->root = fuse_array(f, p->root);
        if (!fuse_prove_in_range(p))
            diag_oom(d, "fusion");
    } else if (f->copying) { /* out_of_memory jumped here */
        copy_map_free(f->copying);
    }
    free(seen);
    free(f->uses);
    free(f->delayed);
    free(f->dup);
    free(f->loop_depth);
    free(f->done);
    if (duplicated)
        *duplicated = f->duplicated;
    free(f);
    return d->status;
}
