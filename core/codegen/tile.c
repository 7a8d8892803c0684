/*
 * tile.c — the transposed-read test of generate kernels (see tile.h):
 * which components of the generate's index each component of each read's
 * index depends on, following let-bound variables.
 */
#include "core/codegen/tile.h"

enum { DEPS_ALL = 0xffu, DEPS_DEPTH = 64, VISITS = 20000 };

/* The walks follow variables into shared terms: a budget of visits keeps
 * a program of many shared lets from costing more than a linear walk
 * (past it, the answer is "not across": row by row, as before). */
typedef struct walk {
    const ir_program *p;
    const ir_node *ix;
    int rank;
    int visits;
} walk;

/* A let-bound variable's term, or n. */
static const ir_node *through_vars(const ir_program *p, const ir_node *n)
{
    for (int i = 0; i < DEPS_DEPTH && (n->op == IR_VAR || n->op == IR_LET); i++)
        n = n->op == IR_VAR ? p->var_bound[n->u.let.var] : n->args[1];
    return n;
}

/* The components of index parameter ix (bit k: component k, outermost
 * first) that scalar term n depends on; all of them when unsure. */
static unsigned deps(walk *w, const ir_node *n, int depth)
{
    if (depth > DEPS_DEPTH || ++w->visits > VISITS)
        return DEPS_ALL;
    n = through_vars(w->p, n);
    if (n->op == IR_PARAM)
        return n->u.param.slot == w->ix->u.param.slot ? DEPS_ALL : 0;
    if (n->op == IR_GET) {
        const ir_node *of = through_vars(w->p, n->args[0]);
        if (of->op == IR_PARAM && of->u.param.slot == w->ix->u.param.slot)
            return n->u.field < 8 ? 1u << n->u.field : DEPS_ALL;
    }
    unsigned d = 0;
    for (uint32_t i = 0; i < n->n_args && d != DEPS_ALL; i++)
        if (!ir_is_array(n->args[i]))
            d |= deps(w, n->args[i], depth + 1);
    return d;
}

/* Whether read n (IR_READ) of an array of rank >= 2 reads across rows of
 * the generate of rank `rank` with index parameter ix. */
static int read_across(walk *w, const ir_node *n)
{
    const ir_node *index = through_vars(w->p, n->args[1]);
    if (index->op != IR_INDEX || index->n_args < 2)
        return 0;
    const unsigned inner = 1u << (w->rank - 1);
    if (deps(w, index->args[index->n_args - 1], 0) & inner)
        return 0;
    for (uint32_t k = 0; k + 1 < index->n_args; k++)
        if (deps(w, index->args[k], 0) & inner)
            return w->visits <= VISITS;
    return 0;
}

static int any_read_across(walk *w, const ir_node *n, int depth)
{
    if (depth > DEPS_DEPTH || ++w->visits > VISITS)
        return 0;
    if (n->op == IR_READ && read_across(w, n))
        return 1;
    for (uint32_t i = 0; i < n->n_args; i++)
        if (!ir_is_array(n->args[i]) && any_read_across(w, n->args[i], depth + 1))
            return 1;
    if (n->op == IR_VAR)
        return any_read_across(w, w->p->var_bound[n->u.let.var], depth + 1);
    return 0;
}

int cg_reads_across(const ir_program *p, const ir_node *gen)
{
    const ir_node *lam = gen->args[1];
    const int rank = (int)gen->type->rank;
    if (rank < 2 || rank > 8 || lam->op != IR_LAMBDA ||
        lam->u.lambda.n_params != 1)
        return 0;
    walk w = {p, ir_lambda_param(lam, 0), rank, 0};
    return any_read_across(&w, ir_lambda_body(lam), 0);
}
