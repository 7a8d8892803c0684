/*
 * gen_program.c — a whole random program: its inputs (value arrays of
 * random element types and ranks 0..3, an index vector, segment lengths
 * and offsets, a size and, sometimes, an extent that may be near 2^63),
 * a few operations drawn from the producer and consumer tables
 * (gen_produce.c, gen_consume.c), and its outputs.
 */
#include "gen.h"

#include <stdarg.h>
#include <string.h>

/* ---- names -------------------------------------------------------------------- */

static const char *const class_names[DZ_N_CLASSES] = {
    [DZ_C_MAP] = "map", [DZ_C_ZIPWITH] = "zipWith",
    [DZ_C_GENERATE] = "generate", [DZ_C_FILL] = "fill",
    [DZ_C_BACKPERMUTE] = "backpermute", [DZ_C_GATHER] = "gather",
    [DZ_C_REPLICATE] = "replicate", [DZ_C_SLICE] = "slice",
    [DZ_C_RESHAPE] = "reshape", [DZ_C_UNIT] = "unit",
    [DZ_C_CONVERT] = "convert", [DZ_C_FOLD] = "fold", [DZ_C_FOLD1] = "fold1",
    [DZ_C_FOLD_ALL] = "foldAll", [DZ_C_FOLD_SEG] = "foldSeg",
    [DZ_C_FOLD_SEG_OFFSETS] = "foldSeg'", [DZ_C_FOLD1_SEG] = "fold1Seg",
    [DZ_C_SCAN] = "scan", [DZ_C_SCAN_SEG] = "scanSeg",
    [DZ_C_PERMUTE] = "permute", [DZ_C_PERMUTE_PAIRS] = "permute'",
    [DZ_C_STENCIL] = "stencil", [DZ_C_STENCIL2] = "stencil2",
    [DZ_C_EXPAND] = "expand", [DZ_C_PERMUTE_EXPAND] = "permute'-expand",
    [DZ_C_ACOND] = "acond", [DZ_C_AWHILE] = "awhile", [DZ_C_WHILE] = "while",
    [DZ_C_DIVISION] = "division", [DZ_C_SHIFT] = "shift",
    [DZ_C_FLOAT_FN] = "float-fn", [DZ_C_READ] = "read",
    [DZ_C_WIDEN_FOLD] = "widen-fold", [DZ_C_FUSED_READ] = "fused-read",
    [DZ_C_EXTENT] = "extent", [DZ_C_FILTER] = "filter",
    [DZ_C_TUPLE] = "tuple", [DZ_C_REASSOC] = "reassoc",
    [DZ_C_CHECKED] = "checked",
    [DZ_C_LIBM] = "libm",
};

const char *dz_class_name(dz_class c)
{
    return (unsigned)c < DZ_N_CLASSES ? class_names[c] : "?";
}

int dz_class_of(const char *name)
{
    for (int c = 0; c < DZ_N_CLASSES; c++)
        if (strcmp(class_names[c], name) == 0)
            return c;
    return -1;
}

/* ---- options ---------------------------------------------------------------------- */

void dz_options_default(dz_options *o)
{
    memset(o, 0, sizeof *o);
    o->avoid = DZ_AVOID_OPEN;
    o->n_data = 4;
    o->nvrtc = 1;
    o->cuda = 1;
}

static const char avoid_letters[] = "abcd";

int dz_parse_avoid(const char *text, unsigned *avoid)
{
    *avoid = 0;
    if (strcmp(text, "none") == 0)
        return 1;
    if (strcmp(text, "all") == 0) {
        *avoid = DZ_AVOID_ALL;
        return 1;
    }
    for (const char *at = text; *at;) {
        size_t len = strcspn(at, ",");
        int found = 0;
        for (unsigned i = 0; i < sizeof avoid_letters - 1; i++)
            if (len == 1 && at[0] == avoid_letters[i]) {
                *avoid |= 1u << i;
                found = 1;
            }
        if (!found)
            return 0;
        at += len + (at[len] == ',');
    }
    return 1;
}

const char *dz_avoid_text(unsigned avoid)
{
    static char texts[DZ_AVOID_ALL + 1][12];
    avoid &= DZ_AVOID_ALL;
    if (avoid == 0)
        return "none";
    if (avoid == DZ_AVOID_ALL)
        return "all";
    char *t = texts[avoid];
    for (unsigned i = 0; i < sizeof avoid_letters - 1; i++)
        if (avoid & (1u << i)) {
            if (t != texts[avoid])
                *t++ = ',';
            *t++ = avoid_letters[i];
        }
    *t = '\0';
    return texts[avoid];
}

/* ---- small builders -------------------------------------------------------------- */

const acc_type *dz_elem(const acc_node *array)
{
    return acc_type_get_elem(acc_node_type(array));
}

int dz_rank(const acc_node *array)
{
    return acc_type_get_rank(acc_node_type(array));
}

acc_node *dz_param(dz_gen *s, const acc_type *t)
{
    return acc_param(s->g, t);
}

acc_node *dz_lam1(dz_gen *s, acc_node *p, acc_node *body)
{
    return acc_lambda(s->g, 1, &p, body);
}

acc_node *dz_lam2(dz_gen *s, acc_node *a, acc_node *b, acc_node *body)
{
    acc_node *p[2] = {a, b};
    return acc_lambda(s->g, 2, p, body);
}

void dz_may_fail(dz_gen *s)
{
    s->taint |= DZ_T_MAYFAIL;
}

void dz_mark(dz_gen *s, dz_class c)
{
    s->prog->classes |= 1ull << c;
}

void dz_feature(dz_gen *s, int f)
{
    if (f >= 0 && f < DZ_N_FEATURES)
        s->prog->features[f / 64] |= 1ull << (f % 64);
}

void dz_feature_leaves(dz_gen *s, int base, const acc_type *t)
{
    for (size_t i = 0; i < acc_type_leaf_count(t); i++)
        dz_feature(s, base + (int)acc_type_leaf(t, i) - 1);
}

void dz_feature_name(int f, char *buf, size_t len)
{
    static const char *const boundaries[5] = {"clamp", "mirror", "wrap",
                                              "function", "constant"};
    if (f < DZ_F_FOLD_LEAF)
        snprintf(buf, len, "convert %s -> %s", acc_scalar_name((acc_scalar)(f / 11 + 1)),
                 acc_scalar_name((acc_scalar)(f % 11 + 1)));
    else if (f < DZ_F_SCAN_LEAF)
        snprintf(buf, len, "a fold of %s", acc_scalar_name((acc_scalar)(f - DZ_F_FOLD_LEAF + 1)));
    else if (f < DZ_F_SCAN_KIND)
        snprintf(buf, len, "a scan of %s", acc_scalar_name((acc_scalar)(f - DZ_F_SCAN_LEAF + 1)));
    else if (f < DZ_F_SEG_SCAN_KIND)
        snprintf(buf, len, "scan kind %d", f - DZ_F_SCAN_KIND + 1);
    else if (f < DZ_F_BOUNDARY)
        snprintf(buf, len, "segmented scan kind %d", f - DZ_F_SEG_SCAN_KIND + 1);
    else if (f < DZ_F_INPUT_RANK)
        snprintf(buf, len, "boundary %s", boundaries[f - DZ_F_BOUNDARY]);
    else
        snprintf(buf, len, "an input of rank %d", f - DZ_F_INPUT_RANK);
}

/* ---- the pool ------------------------------------------------------------------- */

const dz_term *dz_pick(dz_gen *s, unsigned ranks)
{
    /* the newest terms first, half the time: programs grow deep */
    int at = dz_chance(&s->rng, 1, 2) && s->n_pool > 3
                 ? s->n_pool - 1 - (int)dz_rnd(&s->rng, 3)
                 : (int)dz_rnd(&s->rng, (uint32_t)s->n_pool);
    for (int i = 0; i < s->n_pool; i++) {
        const dz_term *t = &s->pool[(at + s->n_pool - i) % s->n_pool];
        if (ranks & (1u << t->rank)) {
            s->taint |= t->flags & DZ_T_MAYFAIL;
            return t;
        }
    }
    return NULL;
}

const dz_term *dz_pick_same_type(dz_gen *s, const dz_term *x)
{
    int at = (int)dz_rnd(&s->rng, (uint32_t)s->n_pool);
    for (int i = 0; i < s->n_pool; i++) {
        const dz_term *t = &s->pool[(at + i) % s->n_pool];
        if (t != x && acc_type_equal(acc_node_type(t->n), acc_node_type(x->n))) {
            s->taint |= t->flags & DZ_T_MAYFAIL;
            return t;
        }
    }
    return NULL;
}

static void pool_add(dz_gen *s, dz_term t)
{
    if (s->n_pool < DZ_POOL)
        s->pool[s->n_pool++] = t;
}

void dz_add_output(dz_gen *s, acc_node *n, dz_cmp cmp, acc_node *shadow)
{
    dz_program *p = s->prog;
    for (size_t i = 0; i < p->n_out; i++)
        if (p->out[i] == n)
            return;
    if (!n || p->n_out == DZ_MAX_OUTPUTS)
        return;
    p->out[p->n_out] = n;
    p->cmp[p->n_out] = cmp;
    p->shadow[p->n_out] = shadow;
    p->n_out++;
}

/* ---- inputs --------------------------------------------------------------------- */

static acc_node *add_input(dz_gen *s, dz_role role, const acc_type *elem,
                           int rank)
{
    dz_program *p = s->prog;
    dz_input *in = &p->in[p->n_in++];
    in->role = role;
    in->rank = rank;
    in->n_leaves = acc_type_leaf_count(elem);
    for (size_t i = 0; i < in->n_leaves; i++)
        in->leaf[i] = acc_type_leaf(elem, i);
    return acc_input(s->g, elem, rank);
}

static void make_inputs(dz_gen *s)
{
    static const int rank_weights[4] = {1, 5, 3, 2};
    int n_values = 2 + (int)dz_rnd(&s->rng, 3);
    for (int i = 0; i < n_values; i++) {
        int k = (int)dz_rnd(&s->rng, 11), rank = 0;
        while (k >= rank_weights[rank])
            k -= rank_weights[rank++];
        const acc_type *e = dz_any_elem(s, 4);
        /* bug (a)'s pattern needs 1-byte arrays in memory */
        if (i == 0 && !(s->opt->avoid & DZ_AVOID_WIDEN) &&
            dz_chance(&s->rng, 1, 3)) {
            static const acc_scalar narrow[3] = {ACC_BOOL, ACC_U8, ACC_I8};
            e = dz_scalar_type(narrow[dz_rnd(&s->rng, 3)]);
            rank = 1 + (int)dz_rnd(&s->rng, 2);
        }
        if (s->opt->input_rank)
            rank = s->opt->input_rank - 1; /* after the draws: same stream */
        acc_node *x = add_input(s, DZ_VALUES, e, rank);
        dz_feature(s, DZ_F_INPUT_RANK + rank);
        pool_add(s, (dz_term){x, rank, rank >= 1 ? DZ_T_INNER : 0});
    }
    const acc_type *i64 = dz_scalar_type(ACC_I64);
    s->indices = add_input(s, DZ_INDICES, i64, 1);
    s->segments = add_input(s, DZ_SEGMENTS, i64, 1);
    s->offsets = add_input(s, DZ_OFFSETS, i64, 1);
    s->size = add_input(s, DZ_SIZE, i64, 0);
    if (s->prog->huge)
        s->huge = add_input(s, DZ_HUGE, i64, 0);
}

/* ---- operations ------------------------------------------------------------------ */

static const dz_op *pick_op(dz_gen *s, const dz_op *ops, size_t n)
{
    int total = 0;
    for (size_t i = 0; i < n; i++)
        total += ops[i].weight;
    int k = (int)dz_rnd(&s->rng, (uint32_t)total);
    for (size_t i = 0; i < n; i++) {
        if (k < ops[i].weight)
            return &ops[i];
        k -= ops[i].weight;
    }
    return &ops[0];
}

/* One operation of class `cls` (or any class when cls < 0); its result
 * joins the pool.  0 when none applied. */
static int step(dz_gen *s, int cls)
{
    for (int tries = 0; tries < 40; tries++) {
        int consume = dz_chance(&s->rng, 1, 2);
        const dz_op *op;
        if (cls >= 0) {
            const dz_op *tab = consume ? dz_consumers : dz_producers;
            size_t n = consume ? dz_n_consumers : dz_n_producers;
            op = &tab[dz_rnd(&s->rng, (uint32_t)n)];
            if ((int)op->cls != cls)
                continue;
        } else {
            op = consume ? pick_op(s, dz_consumers, dz_n_consumers)
                         : pick_op(s, dz_producers, dz_n_producers);
        }
        dz_term t = {0};
        s->taint = 0;
        if (op->weight == 0 || !op->make(s, &t))
            continue;
        if (!t.n)
            return 1; /* a terminal term: already an output */
        dz_mark(s, op->cls);
        t.flags |= s->taint;
        pool_add(s, t);
        return 1;
    }
    return 0;
}

/* dz_options.single_fold: a fold (or fold1) over an input, or over a map
 * or zipWith of inputs, which fusion puts inside the fold's kernel.  0
 * when no fold applied (the caller makes an ordinary program). */
static int single_fold(dz_gen *s)
{
    if (dz_chance(&s->rng, 1, 2))
        step(s, dz_chance(&s->rng, 1, 2) ? DZ_C_MAP : DZ_C_ZIPWITH);
    int before = s->n_pool;
    return step(s, DZ_C_FOLD) && s->n_pool > before;
}

static void choose_outputs(dz_gen *s, int first_new)
{
    dz_add_output(s, s->pool[s->n_pool - 1].n, DZ_CMP_EXACT, NULL);
    int extra = (int)dz_rnd(&s->rng, 3);
    for (int i = 0; i < extra && s->n_pool > first_new; i++) {
        int k = first_new + (int)dz_rnd(&s->rng, (uint32_t)(s->n_pool - first_new));
        dz_add_output(s, s->pool[k].n, DZ_CMP_EXACT, NULL);
    }
}

int dz_generate(acc_context *ctx, acc_graph *g, uint64_t seed,
                const dz_options *o, dz_program *out)
{
    memset(out, 0, sizeof *out);
    dz_gen s = {.ctx = ctx, .g = g, .opt = o, .prog = out};
    s.rng = seed * 0x2545f4914f6cdd1dull + 0x1234567;
    out->g = g;
    out->huge = dz_chance(&s.rng, 1, 6);
    s.strict = !(o->avoid & DZ_AVOID_UNCHECKED) && dz_chance(&s.rng, 1, 6);
    s.no_fail = s.strict || (o->avoid & DZ_AVOID_UNCHECKED);
    out->strict = s.strict;
    make_inputs(&s);
    int first_new = s.n_pool;
    if (o->single_fold && single_fold(&s)) {
        dz_add_output(&s, s.pool[s.n_pool - 1].n, DZ_CMP_EXACT, NULL);
    } else {
        int steps = 3 + (int)dz_rnd(&s.rng, 5);
        if (o->only_class)
            step(&s, (int)o->only_class - 1);
        for (int i = 0; i < steps; i++)
            step(&s, -1);
        choose_outputs(&s, first_new);
        dz_libm_outputs(&s, seed, first_new);
    }
    if (acc_graph_status(g) != ACC_OK) {
        snprintf(out->error, sizeof out->error, "the builder refused the "
                 "generated program: %s", acc_graph_last_error(g));
        return 0;
    }
    return 1;
}
