/*
 * emit_c.c — scalar IR to C (see emit_c.h).  Two passes over a lambda
 * body: dm_* computes demanded leaves (of lets, parameters and loop
 * states, to a fixed point for loops), em_* writes the statements.
 *
 * A value nobody demands is not computed, but its runtime checks are
 * (docs/LANGUAGE.md: a check belongs to the evaluation of its
 * expression, used or not).  A term with no demanded leaf that can fail
 * (can_fail) is analysed and emitted in *check mode* (dm_checks,
 * em_checks): only its checks and the values they need are computed; no
 * array element is loaded and no result is produced.  The two passes
 * make the same choices, so every value a check needs has its demand.
 */
#include "core/codegen/emit_c.h"

#include "core/base/arena.h"
#include "core/base/mem.h"
#include "core/ir/types.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cg_array {
    const ir_node *node; /* as read by the code */
    const ir_node *key;  /* the term it stands for (variables followed) */
    uint32_t leaves;     /* leaves read by the current function */
    uint32_t extents;    /* extents read by the current function */
    int size;            /* size read by the current function */
} cg_array;

struct cg_emitter {
    const ir_program *p;
    arena *ar;
    uint8_t **var_dem, **param_dem, **while_need;
    uint8_t *fails;      /* per node id: 0 not known, 1 cannot fail, 2 can */
    const char ***var_x, ***param_x;
    cg_array *arrays;
    size_t n_arrays, cap_arrays;
    unsigned tmp, site;
    int indent;
    int failed;
    int oom;       /* an allocation failed (the failure is not the code's) */
    char error[256];
    uint8_t all[TY_MAX_LEAVES];
    uint8_t none[TY_MAX_LEAVES]; /* no leaf demanded: check mode */
    const char *sources[CG_MAX_USER_SOURCES]; /* user functions called */
    size_t n_sources;
    /* per node id: the temporaries of a loop-invariant term computed
     * before the loop being emitted (em_while), or NULL */
    const char ***hoisted;
    uint32_t *hoisted_by; /* per node id: 1 + the id of that loop */
    /* lane mode (cg_set_lanes): temporaries are arrays of `lanes`
     * elements declared into lane_decls, except inside a lockstep loop's
     * lane loop (lockstep > 0), where they live one iteration */
    int lanes, lockstep, base_indent;
    strbuf *lane_decls;
};

/* ---- utilities ------------------------------------------------------------ */

static int fail(cg_emitter *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fail(cg_emitter *e, const char *fmt, ...)
{
    if (!e->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(e->error, sizeof e->error, fmt, ap);
        va_end(ap);
        e->failed = 1;
    }
    return 0;
}

static void *alloc(cg_emitter *e, size_t size)
{
    void *m = arena_alloc(e->ar, size ? size : 1);
    if (!m) {
        e->oom = 1;
        fail(e, "out of host memory");
    }
    return m;
}

static const char *str(cg_emitter *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static const char *str(cg_emitter *e, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = alloc(e, strlen(buf) + 1);
    if (s)
        strcpy(s, buf);
    return s ? s : "0";
}

/* One statement at the current indentation. */
static void line(cg_emitter *e, strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void line(cg_emitter *e, strbuf *b, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sb_printf(b, "%*s%s\n", 4 * e->indent, "", buf);
}

static int any(const uint8_t *d, size_t n)
{
    for (size_t i = 0; d && i < n; i++)
        if (d[i])
            return 1;
    return 0;
}

static int or_into(uint8_t *dst, const uint8_t *src, size_t n)
{
    int changed = 0;
    for (size_t i = 0; src && dst && i < n; i++)
        if (src[i] && !dst[i])
            changed = dst[i] = 1;
    return changed;
}

/* The demand table entry i of `table`, created (all zero) on first use. */
static uint8_t *slot(cg_emitter *e, uint8_t **table, size_t i, size_t n)
{
    if (!table[i])
        table[i] = alloc(e, n);
    return table[i];
}

void cg_user_sources(const cg_emitter *e, strbuf *b)
{
    for (size_t i = 0; i < e->n_sources; i++)
        sb_printf(b, "\n/* ---- a user function (acc_register_kernel) ---- */"
                  "\n%s\n/* ---- end of the user function ---- */\n",
                  e->sources[i]);
}

const char *cg_ctype(acc_scalar s)
{
    switch (s) {
    case ACC_I8: return "int8_t";
    case ACC_I16: return "int16_t";
    case ACC_I32: return "int32_t";
    case ACC_I64: return "int64_t";
    case ACC_U16: return "uint16_t";
    case ACC_U32: return "uint32_t";
    case ACC_U64: return "uint64_t";
    case ACC_F32: return "float";
    case ACC_F64: return "double";
    default: return "uint8_t"; /* bool, u8 */
    }
}

const char *cg_kval_field(acc_scalar s)
{
    if (ty_is_floating(s))
        return "f";
    return ty_is_signed(s) || s == ACC_BOOL ? "i" : "u";
}

/* The suffix of prelude helpers for type s. */
static const char *sfx(acc_scalar s)
{
    return s == ACC_BOOL ? "u8" : acc_scalar_name(s);
}

/* ---- the emitter object ------------------------------------------------------ */

cg_emitter *cg_emitter_create(const ir_program *p)
{
    cg_emitter *e = mem_calloc(1, sizeof *e);
    if (!e || !(e->ar = arena_create())) {
        free(e);
        return NULL;
    }
    e->p = p;
    size_t nv = p->n_vars + 1, np = p->n_params + 1, nn = p->n_nodes + 1;
    e->var_dem = alloc(e, nv * sizeof *e->var_dem);
    e->var_x = alloc(e, nv * sizeof *e->var_x);
    e->param_dem = alloc(e, np * sizeof *e->param_dem);
    e->param_x = alloc(e, np * sizeof *e->param_x);
    e->while_need = alloc(e, nn * sizeof *e->while_need);
    e->hoisted = alloc(e, nn * sizeof *e->hoisted);
    e->hoisted_by = alloc(e, nn * sizeof *e->hoisted_by);
    e->fails = alloc(e, nn);
    memset(e->all, 1, sizeof e->all);
    if (e->failed) {
        cg_emitter_free(e);
        return NULL;
    }
    return e;
}

void cg_emitter_free(cg_emitter *e)
{
    if (!e)
        return;
    arena_destroy(e->ar);
    free(e->arrays);
    free(e);
}

int cg_out_of_memory(const cg_emitter *e)
{
    return e->oom;
}

const char *cg_error(const cg_emitter *e)
{
    return e->error;
}

unsigned cg_check_sites(const cg_emitter *e)
{
    return e->site;
}

const ir_program *cg_program(const cg_emitter *e)
{
    return e->p;
}

void cg_set_lanes(cg_emitter *e, int lanes, strbuf *decls)
{
    e->lanes = decls ? lanes : 0;
    e->lane_decls = decls;
}

size_t cg_n_arrays(const cg_emitter *e)
{
    return e->n_arrays;
}

const ir_node *cg_array_node(const cg_emitter *e, size_t i)
{
    return e->arrays[i].node;
}

static const ir_node *array_key(const ir_program *p, const ir_node *n)
{
    while (n->op == IR_VAR || n->op == IR_LET)
        n = n->op == IR_VAR ? p->var_bound[n->u.let.var] : n->args[1];
    return n;
}

int cg_array_index(cg_emitter *e, const ir_node *node)
{
    const ir_node *key = array_key(e->p, node);
    for (size_t i = 0; i < e->n_arrays; i++)
        if (e->arrays[i].key == key)
            return (int)i;
    if (e->n_arrays == e->cap_arrays) {
        size_t cap = e->cap_arrays ? 2 * e->cap_arrays : 8;
        cg_array *grown = mem_realloc(e->arrays, cap * sizeof *grown);
        if (!grown)
            return fail(e, "out of host memory") - 1;
        e->arrays = grown;
        e->cap_arrays = cap;
    }
    e->arrays[e->n_arrays] = (cg_array){node, key, 0, 0, 0};
    return (int)e->n_arrays++;
}

void cg_begin_function(cg_emitter *e, int indent)
{
    for (size_t i = 0; i < e->n_arrays; i++) {
        e->arrays[i].leaves = e->arrays[i].extents = 0;
        e->arrays[i].size = 0;
    }
    e->indent = e->base_indent = indent;
}

void cg_array_decls(cg_emitter *e, strbuf *b)
{
    for (size_t i = 0; i < e->n_arrays; i++) {
        const cg_array *a = &e->arrays[i];
        const acc_type *elem = a->node->type->elem;
        for (size_t l = 0; l < elem->n_leaves; l++)
            if (a->leaves >> l & 1)
                sb_printf(b, "    const %s *const a%zu_%zu = (const %s *)"
                          "A->in[%zu].data[%zu];\n", cg_ctype(elem->leaves[l]),
                          i, l, cg_ctype(elem->leaves[l]), i, l);
        for (int32_t d = 0; d < a->node->type->rank; d++)
            if (a->extents >> d & 1)
                sb_printf(b, "    const int64_t a%zu_e%d = A->in[%zu].ext[%d];"
                          " (void)a%zu_e%d;\n", i, (int)d, i, (int)d, i,
                          (int)d);
        if (a->size)
            sb_printf(b, "    const int64_t a%zu_n = A->in[%zu].size;\n", i, i);
    }
}

/* ---- runtime checks ------------------------------------------------------------- */

static int is_array_arg(const ir_node *a)
{
    return a->op != IR_LAMBDA && a->type->array_sort;
}

/* An integer division (by zero) or a shift by a signed amount (negative):
 * a primitive with a runtime check of its second operand. */
static int prim_checks(const ir_node *n)
{
    if (n->op != IR_PRIM || n->n_args != 2 ||
        ty_is_floating(n->args[0]->type->scalar))
        return 0;
    switch (n->u.prim) {
    case ACC_OP_QUOT: case ACC_OP_REM: case ACC_OP_DIV: case ACC_OP_MOD:
        return 1;
    case ACC_OP_SHIFTL: case ACC_OP_SHIFTR:
        return ty_is_signed(n->args[1]->type->scalar);
    default:
        return 0;
    }
}

/* A bounds check of IR_BOUNDS: an index of rank > 0 against a shape, or
 * a linear position against a size (an index of rank 0 is always in),
 * unless fusion proved it in range. */
static int bounds_checks(const ir_node *n)
{
    return !n->in_bounds &&
           (n->type->kind != ACC_TYPE_SHAPE || n->type->rank > 0);
}

/* Whether node n itself has a runtime check. */
static int checks_itself(const ir_node *n)
{
    switch (n->op) {
    case IR_PRIM: return prim_checks(n);
    case IR_READ: return n->args[0]->type->rank > 0 && !n->in_bounds;
    case IR_READ_LINEAR: return 1;
    case IR_BOUNDS: return bounds_checks(n);
    default: return 0;
    }
}

/* Whether evaluating n can fail: a check in n or in the scalar code under
 * it (branches and loops included; a variable's bound term is its let's
 * concern). */
static int can_fail(cg_emitter *e, const ir_node *n)
{
    if (e->fails[n->id])
        return e->fails[n->id] == 2;
    int r = checks_itself(n);
    for (uint32_t i = 0; !r && i < n->n_args; i++)
        r = !is_array_arg(n->args[i]) && can_fail(e, n->args[i]);
    e->fails[n->id] = (uint8_t)(r ? 2 : 1);
    return r;
}

/* ---- demand analysis ---------------------------------------------------------- */

static void dm(cg_emitter *e, const ir_node *n, const uint8_t *dem);
static void dm_foreign(cg_emitter *e, const ir_node *n, const uint8_t *dem);

static void dm_args_all(cg_emitter *e, const ir_node *n, uint32_t from)
{
    for (uint32_t i = from; i < n->n_args; i++)
        if (!is_array_arg(n->args[i]))
            dm(e, n->args[i], e->all);
}

static size_t get_offset(const ir_node *n)
{
    const acc_type *t = n->args[0]->type;
    return t->kind == ACC_TYPE_SHAPE ? n->u.field : t->field_offset[n->u.field];
}

static void dm_get(cg_emitter *e, const ir_node *n, const uint8_t *dem)
{
    size_t k = n->args[0]->type->n_leaves, off = get_offset(n);
    uint8_t *d = alloc(e, k);
    if (!d)
        return;
    memcpy(d + off, dem, n->type->n_leaves);
    dm(e, n->args[0], d);
}

static void dm_fields(cg_emitter *e, const ir_node *n, const uint8_t *dem)
{
    size_t at = 0;
    for (uint32_t i = 0; i < n->n_args; i++) {
        dm(e, n->args[i], dem + at);
        at += n->args[i]->type->n_leaves;
    }
}

/* A loop's state leaves: what is demanded of the result, plus what the
 * condition and the body read of the state, to a fixed point. */
static void dm_while(cg_emitter *e, const ir_node *n, const uint8_t *dem)
{
    size_t k = n->type->n_leaves;
    const ir_node *cond = n->args[0], *body = n->args[1];
    uint8_t *need = slot(e, e->while_need, n->id, k);
    if (!need)
        return;
    or_into(need, dem, k);
    int changed = 1;
    while (changed && !e->failed) {
        dm(e, ir_lambda_body(body), need);
        dm(e, ir_lambda_body(cond), e->all);
        changed = or_into(need, e->param_dem[ir_lambda_param(body, 0)
                                                  ->u.param.slot], k);
        changed |= or_into(need, e->param_dem[ir_lambda_param(cond, 0)
                                                   ->u.param.slot], k);
    }
    dm(e, n->args[2], need);
}

/* Whether the condition of n (if, && or ||) decides whether a part of it
 * that can fail runs: its value is then needed in check mode. */
static int decides(cg_emitter *e, const ir_node *n)
{
    int logic = n->op == IR_PRIM && (n->u.prim == ACC_OP_LAND ||
                                     n->u.prim == ACC_OP_LOR);
    if (n->op == IR_COND)
        return can_fail(e, n->args[1]) || can_fail(e, n->args[2]);
    return logic && can_fail(e, n->args[1]);
}

/* Whether a loop's condition or body can fail: the loop then runs for
 * its checks. */
static int loop_fails(cg_emitter *e, const ir_node *n)
{
    return can_fail(e, n->args[0]) || can_fail(e, n->args[1]);
}

/* Check mode (n has no demanded leaf but can fail): the values n's checks
 * need.  em_checks emits exactly these. */
static void dm_checks(cg_emitter *e, const ir_node *n)
{
    uint32_t from = 0;
    if (prim_checks(n)) { /* the divisor or the shift amount */
        dm(e, n->args[0], e->none);
        dm(e, n->args[1], e->all);
        return;
    }
    if (checks_itself(n)) { /* a read's index, a bounds check's operands */
        dm_args_all(e, n, 0);
        return;
    }
    if (n->op == IR_WHILE && loop_fails(e, n)) {
        dm_while(e, n, e->none);
        return;
    }
    if (decides(e, n)) {
        dm(e, n->args[0], e->all);
        from = 1;
    }
    for (uint32_t i = n->op == IR_WHILE ? 2 : from; i < n->n_args; i++)
        if (!is_array_arg(n->args[i]))
            dm(e, n->args[i], e->none);
}

/* foreignExp (LANGUAGE.md §3.9): a user function put into the kernel
 * (u.foreign.source; its argument is read whole), or, when nothing
 * implements it, the fallback applied in place.  A C function of a
 * library (libffi) is not compiled: the step is left to the interpreter.
 * A call nobody uses that can fail is made for its checks. */
static void dm_foreign(cg_emitter *e, const ir_node *n, const uint8_t *dem)
{
    if (n->u.foreign.impl && !n->u.foreign.source) {
        fail(e, "foreignExp %s calls a C function of a library (libffi), "
             "which generated code does not call", n->u.foreign.name);
        return;
    }
    if (!any(dem, n->type->n_leaves)) {
        if (!can_fail(e, n))
            return;
        dem = e->all;
    }
    if (n->u.foreign.source) {
        dm(e, n->args[1], e->all);
        return;
    }
    const ir_node *lam = n->args[0];
    dm(e, ir_lambda_body(lam), dem);
    const uint8_t *pd = e->param_dem[ir_lambda_param(lam, 0)->u.param.slot];
    dm(e, n->args[1], pd ? pd : e->none);
}

static void dm(cg_emitter *e, const ir_node *n, const uint8_t *dem)
{
    size_t k = n->type->n_leaves;
    if (e->failed)
        return;
    if (n->op != IR_LET && n->op != IR_FOREIGN_EXP && !any(dem, k)) {
        if (can_fail(e, n))
            dm_checks(e, n);
        return;
    }
    switch (n->op) {
    case IR_CONST: case IR_ALL: case IR_IGNORE: case IR_SHAPE: case IR_SIZE:
        return;
    case IR_PARAM:
        or_into(slot(e, e->param_dem, n->u.param.slot, k), dem, k);
        return;
    case IR_VAR:
        or_into(slot(e, e->var_dem, n->u.let.var, k), dem, k);
        return;
    case IR_BOUNDS:
        if (n->in_bounds) { /* the index, as it is */
            dm(e, n->args[0], dem);
            dm(e, n->args[1], e->none);
            return;
        }
        dm_args_all(e, n, 0);
        return;
    case IR_PRIM: case IR_CONVERT: case IR_READ: case IR_READ_LINEAR:
        dm_args_all(e, n, 0);
        return;
    case IR_COND:
        dm(e, n->args[0], e->all);
        dm(e, n->args[1], dem);
        dm(e, n->args[2], dem);
        return;
    case IR_TUPLE: case IR_INDEX: dm_fields(e, n, dem); return;
    case IR_GET: dm_get(e, n, dem); return;
    case IR_LET: { /* an unused bound term still runs its checks */
        dm(e, n->args[1], dem);
        const uint8_t *d = e->var_dem[n->u.let.var];
        dm(e, n->args[0], d ? d : e->none);
        return;
    }
    case IR_WHILE: dm_while(e, n, dem); return;
    case IR_FOREIGN_EXP: dm_foreign(e, n, dem); return;
    default:
        fail(e, "%s in scalar code", ir_op_name(n->op));
        return;
    }
}

int cg_analyse(cg_emitter *e, const ir_node *lam, const uint8_t *demand)
{
    if (lam->op != IR_LAMBDA)
        return fail(e, "expected a function, found %s", ir_op_name(lam->op));
    dm(e, ir_lambda_body(lam), demand ? demand : e->all);
    return !e->failed;
}

const uint8_t *cg_param_demand(const cg_emitter *e, const ir_node *param)
{
    return e->param_dem[param->u.param.slot];
}

int cg_can_fail(cg_emitter *e, const ir_node *lam)
{
    return can_fail(e, ir_lambda_body(lam));
}

/* ---- emission: constants and temporaries ------------------------------------- */

static const char *const_expr(cg_emitter *e, acc_scalar s, ir_value v)
{
    if (s == ACC_BOOL)
        return v.i ? "((uint8_t)1)" : "((uint8_t)0)";
    if (ty_is_floating(s)) {
        const char *cast = s == ACC_F32 ? "(float)" : "";
        if (v.f - v.f != 0) { /* inf or NaN: keep the exact bits */
            uint64_t bits;
            memcpy(&bits, &v.f, sizeof bits);
            return str(e, "(%sacc_f64_bits(UINT64_C(0x%016" PRIx64 ")))",
                       cast, bits);
        }
        return str(e, "(%s%a)", cast, v.f);
    }
    if (ty_is_signed(s)) {
        if (v.i == INT64_MIN)
            return "INT64_MIN";
        return str(e, "((%s)INT64_C(%" PRId64 "))", cg_ctype(s), v.i);
    }
    return str(e, "((%s)UINT64_C(%" PRIu64 "))", cg_ctype(s), v.u);
}

/* In lane mode outside a lockstep loop: a new lane array temporary
 * (declared in lane_decls), named by its element of the current lane. */
static const char *lane_tmp(cg_emitter *e, acc_scalar s)
{
    unsigned t = e->tmp++;
    sb_printf(e->lane_decls, "    %s t%u[ACC_LANES];\n", cg_ctype(s), t);
    return str(e, "t%u[acc_l]", t);
}

static int lane_arrays(const cg_emitter *e)
{
    return e->lanes > 1 && e->lockstep == 0;
}

/* The C type of a temporary: in a lockstep loop's lanes a bool is an
 * int32_t (still 0 or 1), so that no byte-wide value narrows the loop's
 * vectors: gcc 12 vectorised the Mandelbrot round with 4 float lanes
 * instead of 16 when its conditions were uint8_t. */
static const char *tmp_ctype(const cg_emitter *e, acc_scalar s)
{
    return e->lockstep > 0 && s == ACC_BOOL ? "int32_t" : cg_ctype(s);
}

/* A new temporary of type s initialised with expr. */
static const char *tmp(cg_emitter *e, strbuf *b, acc_scalar s,
                       const char *expr)
{
    if (lane_arrays(e)) {
        const char *name = lane_tmp(e, s);
        line(e, b, "%s = %s;", name, expr);
        return name;
    }
    const char *name = str(e, "t%u", e->tmp++);
    line(e, b, "const %s %s = %s;", tmp_ctype(e, s), name, expr);
    return name;
}

/* A new mutable temporary, declared without a value. */
static const char *var_decl(cg_emitter *e, strbuf *b, acc_scalar s)
{
    if (lane_arrays(e))
        return lane_tmp(e, s);
    const char *name = str(e, "t%u", e->tmp++);
    line(e, b, "%s %s;", tmp_ctype(e, s), name);
    return name;
}

static const char **exprs(cg_emitter *e, size_t n)
{
    return alloc(e, (n ? n : 1) * sizeof(const char *));
}

static const char **em(cg_emitter *e, strbuf *b, const ir_node *n,
                       const uint8_t *dem);

/* The single leaf of a scalar operand. */
static const char *em1(cg_emitter *e, strbuf *b, const ir_node *n)
{
    const char **x = em(e, b, n, e->all);
    return x && x[0] ? x[0] : "0";
}

/* ---- emission: primitives ------------------------------------------------------ */

static const char *em_logic(cg_emitter *e, strbuf *b, const ir_node *n)
{
    int land = n->u.prim == ACC_OP_LAND;
    const char *a = em1(e, b, n->args[0]);
    const char *r = var_decl(e, b, ACC_BOOL);
    line(e, b, "if (%s%s) {", land ? "" : "!", a);
    e->indent++;
    const char *rhs = em1(e, b, n->args[1]);
    line(e, b, "%s = (uint8_t)(%s != 0);", r, rhs);
    e->indent--;
    line(e, b, "} else {");
    line(e, b, "    %s = %s;", r, land ? "0" : "1");
    line(e, b, "}");
    return r;
}

static const char *float_fn(acc_primop op)
{
    switch (op) {
    case ACC_OP_SQRT: return "sqrt";
    case ACC_OP_EXP: return "exp";
    case ACC_OP_LOG: return "log";
    case ACC_OP_SIN: return "sin";
    case ACC_OP_COS: return "cos";
    case ACC_OP_TAN: return "tan";
    case ACC_OP_ASIN: return "asin";
    case ACC_OP_ACOS: return "acos";
    case ACC_OP_ATAN: return "atan";
    case ACC_OP_SINH: return "sinh";
    case ACC_OP_COSH: return "cosh";
    case ACC_OP_TANH: return "tanh";
    case ACC_OP_ATAN2: return "atan2";
    case ACC_OP_POW: return "pow";
    case ACC_OP_ABS: return "fabs";
    default: return NULL;
    }
}

static const char *cmp_op(acc_primop op)
{
    switch (op) {
    case ACC_OP_EQ: return "==";
    case ACC_OP_NE: return "!=";
    case ACC_OP_LT: return "<";
    case ACC_OP_LE: return "<=";
    case ACC_OP_GT: return ">";
    default: return ">=";
    }
}

static const char *helper_name(acc_primop op)
{
    switch (op) {
    case ACC_OP_ADD: return "add";
    case ACC_OP_SUB: return "sub";
    case ACC_OP_MUL: return "mul";
    case ACC_OP_NEG: return "neg";
    case ACC_OP_ABS: return "abs";
    case ACC_OP_SIGNUM: return "signum";
    case ACC_OP_MIN: return "min";
    case ACC_OP_MAX: return "max";
    case ACC_OP_QUOT: return "quot";
    case ACC_OP_REM: return "rem";
    case ACC_OP_DIV: return "div";
    case ACC_OP_MOD: return "mod";
    case ACC_OP_BAND: return "band";
    case ACC_OP_BOR: return "bor";
    case ACC_OP_BXOR: return "bxor";
    case ACC_OP_COMPLEMENT: return "complement";
    case ACC_OP_SHIFTL: return "shiftl";
    case ACC_OP_SHIFTR: return "shiftr";
    case ACC_OP_POPCOUNT: return "popcount";
    case ACC_OP_CLZ: return "clz";
    case ACC_OP_LOGBASE: return "logbase";
    default: return NULL;
    }
}

/* Float arithmetic is plain C on float/double (FLT_EVAL_METHOD 0 rounds
 * every f32 operation to float, as the interpreter does). */
static const char *float_expr(cg_emitter *e, acc_primop op, acc_scalar t,
                              const char *a, const char *b)
{
    const char *f = t == ACC_F32 ? "f" : "";
    switch (op) {
    case ACC_OP_ADD: return str(e, "(%s + %s)", a, b);
    case ACC_OP_SUB: return str(e, "(%s - %s)", a, b);
    case ACC_OP_MUL: return str(e, "(%s * %s)", a, b);
    case ACC_OP_FDIV: return str(e, "(%s / %s)", a, b);
    case ACC_OP_NEG: return str(e, "(-%s)", a);
    case ACC_OP_ISNAN: return str(e, "(uint8_t)(isnan(%s) != 0)", a);
    case ACC_OP_ISINF: return str(e, "(uint8_t)(isinf(%s) != 0)", a);
    case ACC_OP_SIGNUM: case ACC_OP_MIN: case ACC_OP_MAX: case ACC_OP_LOGBASE:
        return b ? str(e, "acc_%s_%s(%s, %s)", helper_name(op), sfx(t), a, b)
                 : str(e, "acc_%s_%s(%s)", helper_name(op), sfx(t), a);
    default: break;
    }
    const char *fn = float_fn(op);
    if (!fn)
        return NULL;
    return b ? str(e, "%s%s(%s, %s)", fn, f, a, b)
             : str(e, "%s%s(%s)", fn, f, a);
}

static const char *rounding_expr(cg_emitter *e, acc_primop op, acc_scalar to,
                                 const char *a)
{
    if (to == ACC_BOOL)
        return str(e, "(uint8_t)(%s != 0)", a);
    return str(e, "(%s)acc_f2i(%d, %d, %d, (double)%s)", cg_ctype(to), (int)op,
               ty_bits(to), ty_is_signed(to), a);
}

/* A runtime check: when `bad` holds, the kernel fails with `kind`. */
static void check(cg_emitter *e, strbuf *b, const char *bad, const char *kind)
{
    line(e, b, "if (%s)", bad);
    line(e, b, "    ACC_FAIL(%s, %u);", kind, e->site++);
}

/* The check of a primitive with one (prim_checks) on its second operand
 * bv: division by zero, a negative shift amount. */
static void prim_check(cg_emitter *e, strbuf *b, const ir_node *n,
                       const char *bv)
{
    if (!prim_checks(n))
        return;
    if (n->u.prim == ACC_OP_SHIFTL || n->u.prim == ACC_OP_SHIFTR)
        check(e, b, str(e, "%s < 0", bv), "ACC_KERR_SHIFT");
    else
        check(e, b, str(e, "%s == 0", bv), "ACC_KERR_DIV_ZERO");
}

static const char *int_expr(cg_emitter *e, strbuf *b, const ir_node *n,
                            const char *a, const char *bv)
{
    acc_primop op = n->u.prim;
    acc_scalar t = n->args[0]->type->scalar;
    const char *h = helper_name(op);
    prim_check(e, b, n, bv);
    if (op == ACC_OP_SHIFTL || op == ACC_OP_SHIFTR)
        return str(e, "acc_%s_%s(%s, (uint64_t)%s)", h, sfx(t), a, bv);
    if (!h || (t == ACC_BOOL && op != ACC_OP_MIN && op != ACC_OP_MAX))
        return NULL;
    return bv ? str(e, "acc_%s_%s(%s, %s)", h, sfx(t), a, bv)
              : str(e, "acc_%s_%s(%s)", h, sfx(t), a);
}

static const char *em_prim(cg_emitter *e, strbuf *b, const ir_node *n)
{
    acc_primop op = n->u.prim;
    acc_scalar t = n->args[0]->type->scalar, rt = n->type->scalar;
    if (op == ACC_OP_LAND || op == ACC_OP_LOR)
        return em_logic(e, b, n);
    const char *a = em1(e, b, n->args[0]);
    const char *bv = n->n_args == 2 ? em1(e, b, n->args[1]) : NULL;
    const char *x;
    if (op >= ACC_OP_EQ && op <= ACC_OP_GE)
        x = str(e, "(uint8_t)(%s %s %s)", a, cmp_op(op), bv);
    else if (op == ACC_OP_NOT)
        x = str(e, "(uint8_t)!%s", a);
    else if (op >= ACC_OP_TRUNCATE && op <= ACC_OP_CEILING)
        x = rounding_expr(e, op, rt, a);
    else if (ty_is_floating(t))
        x = float_expr(e, op, t, a, bv);
    else
        x = int_expr(e, b, n, a, bv);
    if (!x) {
        fail(e, "primitive %s on %s", acc_primop_name(op), acc_scalar_name(t));
        return "0";
    }
    return tmp(e, b, rt, x);
}

static const char *convert_expr(cg_emitter *e, acc_scalar from, acc_scalar to,
                                const char *a)
{
    if (to == ACC_BOOL)
        return str(e, "(uint8_t)(%s != 0)", a);
    if (ty_is_floating(to))
        return str(e, "(%s)%s", cg_ctype(to), a);
    if (ty_is_floating(from))
        return rounding_expr(e, ACC_OP_TRUNCATE, to, a);
    return str(e, "(%s)(uint64_t)%s", cg_ctype(to), a);
}

/* ---- emission: control ----------------------------------------------------------- */

static const char **em_cond(cg_emitter *e, strbuf *b, const ir_node *n,
                            const uint8_t *dem)
{
    size_t k = n->type->n_leaves;
    const char **r = exprs(e, k);
    const char *c = em1(e, b, n->args[0]);
    for (size_t i = 0; r && i < k; i++)
        r[i] = dem[i] ? var_decl(e, b, n->type->leaves[i]) : NULL;
    for (int side = 1; r && side <= 2; side++) {
        line(e, b, side == 1 ? "if (%s) {" : "} else {", c);
        e->indent++;
        const char **x = em(e, b, n->args[side], dem);
        for (size_t i = 0; x && i < k; i++)
            if (dem[i])
                line(e, b, "%s = %s;", r[i], x[i]);
        e->indent--;
    }
    line(e, b, "}");
    return r;
}

/* ---- loops: invariant terms, lockstep lanes -------------------------------------- */

/* What a loop's invariance walk knows: the parameters and variables bound
 * inside the loop (its lambdas' and lets'), and per node id 1 (invariant:
 * computable before the loop) or 2 (not). */
typedef struct inv_walk {
    uint8_t *inner_param, *inner_var, *memo;
    int visits;
} inv_walk;

enum { INV_VISITS = 20000 };

static void mark_inner(cg_emitter *e, inv_walk *w, const ir_node *n)
{
    if (++w->visits > INV_VISITS)
        return;
    if (n->op == IR_LAMBDA)
        for (uint32_t i = 0; i < n->u.lambda.n_params; i++)
            w->inner_param[ir_lambda_param(n, i)->u.param.slot] = 1;
    if (n->op == IR_LET)
        w->inner_var[n->u.let.var] = 1;
    for (uint32_t i = 0; i < n->n_args; i++)
        if (!is_array_arg(n->args[i]))
            mark_inner(e, w, n->args[i]);
}

/* A value bound outside the loop whose every leaf the emitter has. */
static int bound_outside(const char **x, size_t k)
{
    for (size_t i = 0; x && i < k; i++)
        if (!x[i])
            return 0;
    return x != NULL;
}

/* Whether n may be computed once before the loop: it reads nothing bound
 * inside the loop, cannot fail (the loop might not run, or not reach it),
 * and holds no loop or foreign call (which might not end, or cost more
 * than the loop saves). */
static int invariant(cg_emitter *e, inv_walk *w, const ir_node *n)
{
    if (w->memo[n->id])
        return w->memo[n->id] == 1;
    int r = w->visits++ < INV_VISITS && n->op != IR_WHILE &&
            n->op != IR_FOREIGN_EXP && n->op != IR_LAMBDA && !can_fail(e, n);
    if (r && n->op == IR_PARAM)
        r = !w->inner_param[n->u.param.slot] &&
            bound_outside(e->param_x[n->u.param.slot], n->type->n_leaves);
    if (r && n->op == IR_VAR)
        r = !w->inner_var[n->u.let.var] &&
            bound_outside(e->var_x[n->u.let.var], n->type->n_leaves);
    for (uint32_t i = 0; r && i < n->n_args; i++)
        r = is_array_arg(n->args[i]) || invariant(e, w, n->args[i]);
    w->memo[n->id] = (uint8_t)(r ? 1 : 2);
    return r;
}

/* Terms worth computing once: not a constant, a name or an extent. */
static int worth_hoisting(const ir_node *n)
{
    switch (n->op) {
    case IR_CONST: case IR_PARAM: case IR_VAR: case IR_ALL: case IR_IGNORE:
    case IR_SHAPE: case IR_SIZE: case IR_LAMBDA:
        return 0;
    default:
        return n->type->n_leaves == 1 && !n->type->array_sort;
    }
}

/* The largest invariant terms under n computed before the loop into
 * temporaries (e->hoisted); returns 0 when out of memory. */
static int hoist(cg_emitter *e, strbuf *b, inv_walk *w, const ir_node *n,
                 const ir_node *loop, int depth)
{
    if (e->failed || depth > 200 || is_array_arg(n) || e->hoisted[n->id])
        return !e->failed;
    if (worth_hoisting(n) && invariant(e, w, n)) {
        const char **x = em(e, b, n, e->all), **t = exprs(e, 1);
        if (!x || !t)
            return 0;
        t[0] = tmp(e, b, n->type->scalar, x[0]);
        e->hoisted[n->id] = t;
        e->hoisted_by[n->id] = loop->id + 1;
        return 1;
    }
    for (uint32_t i = 0; i < n->n_args; i++)
        if (!hoist(e, b, w, n->args[i], loop, depth + 1))
            return 0;
    return 1;
}

/* Forgets the terms loop `loop` hoisted (their temporaries go out of
 * scope after it); those an enclosing loop hoisted stay. */
static void unhoist(cg_emitter *e, const ir_node *n, const ir_node *loop,
                    int depth)
{
    if (depth > 200 || is_array_arg(n))
        return;
    if (e->hoisted[n->id]) {
        if (e->hoisted_by[n->id] == loop->id + 1)
            e->hoisted[n->id] = NULL;
        return;
    }
    for (uint32_t i = 0; i < n->n_args; i++)
        unhoist(e, n->args[i], loop, depth + 1);
}

/* The loop-invariant terms of loop n's condition and body computed
 * before it (hoisted: their temporaries are in scope in the loop).  The
 * C compiler hoists what it can prove invariant, but not a division, a
 * conversion or a read it must not move above the loop's exit; and a
 * lockstep loop (below) recomputes whatever is left once per lane per
 * iteration. */
static int hoist_loop(cg_emitter *e, strbuf *b, const ir_node *n)
{
    size_t nn = e->p->n_nodes + 1;
    inv_walk w = {alloc(e, e->p->n_params + 1), alloc(e, e->p->n_vars + 1),
                  alloc(e, nn), 0};
    if (!w.inner_param || !w.inner_var || !w.memo)
        return 0;
    memset(w.inner_param, 0, e->p->n_params + 1);
    memset(w.inner_var, 0, e->p->n_vars + 1);
    memset(w.memo, 0, nn);
    mark_inner(e, &w, n->args[0]);
    mark_inner(e, &w, n->args[1]);
    if (w.visits > INV_VISITS)
        return 1; /* too large to walk: nothing hoisted */
    return hoist(e, b, &w, ir_lambda_body(n->args[0]), n, 0) &&
           hoist(e, b, &w, ir_lambda_body(n->args[1]), n, 0);
}

/* Whether loop n runs in lockstep over the lanes (lane mode, at the top
 * level of the element's code, a condition and body that cannot fail and
 * hold no other loop): every lane computes the condition and body each
 * round, a lane whose condition failed once keeps its state. */
static int has_loop(const ir_node *n, int depth)
{
    if (n->op == IR_WHILE || depth > 200)
        return 1;
    for (uint32_t i = 0; i < n->n_args; i++)
        if (!is_array_arg(n->args[i]) && has_loop(n->args[i], depth + 1))
            return 1;
    return 0;
}

static int lockstep_loop(cg_emitter *e, const ir_node *n)
{
    return e->lanes > 1 && e->lockstep == 0 && e->indent == e->base_indent &&
           !loop_fails(e, n) && !has_loop(ir_lambda_body(n->args[0]), 0) &&
           !has_loop(ir_lambda_body(n->args[1]), 0);
}

/* The condition and body of loop n for the current state s: c the
 * condition, next the new state (needed leaves). */
static const char **loop_round(cg_emitter *e, strbuf *b, const ir_node *n,
                               const char **s, const char **c)
{
    size_t k = n->type->n_leaves;
    const uint8_t *need = e->while_need[n->id];
    const ir_node *cond = n->args[0], *body = n->args[1];
    e->param_x[ir_lambda_param(cond, 0)->u.param.slot] = s;
    *c = em1(e, b, ir_lambda_body(cond));
    e->param_x[ir_lambda_param(body, 0)->u.param.slot] = s;
    const char **x = em(e, b, ir_lambda_body(body), need);
    const char **next = exprs(e, k);
    for (size_t i = 0; x && next && i < k; i++) /* all read, then all set */
        next[i] = need[i] ? tmp(e, b, n->type->leaves[i], x[i]) : NULL;
    return x ? next : NULL;
}

/* Lockstep: the lane loop of the code before closes, every round runs
 * the condition and body for all lanes (a vectorisable loop: no branch
 * leaves it), and the lane loop reopens for the code after.  A lane
 * whose condition failed is inactive from then on: its state is kept,
 * exactly what the scalar loop leaves. */
static void em_lockstep(cg_emitter *e, strbuf *b, const ir_node *n,
                        const char **s, const char *polls)
{
    size_t k = n->type->n_leaves;
    const uint8_t *need = e->while_need[n->id];
    unsigned id = e->tmp++;
    sb_printf(e->lane_decls, "    int32_t acc_act%u[ACC_LANES];\n", id);
    line(e, b, "acc_act%u[acc_l] = 1;", id);
    line(e, b, "ACC_LANE_END");
    line(e, b, "ACC_LOOP_COUNTER(%s);", polls);
    line(e, b, "for (;;) {");
    e->indent++;
    line(e, b, "unsigned acc_any%u = 0;", id);
    line(e, b, "ACC_LANE_BEGIN");
    e->lockstep++;
    const char *c = NULL;
    const char **next = loop_round(e, b, n, s, &c);
    line(e, b, "const int32_t acc_on%u = acc_act%u[acc_l] & (%s != 0);", id,
         id, c ? c : "0");
    for (size_t i = 0; next && i < k; i++)
        if (need[i])
            line(e, b, "%s = acc_on%u ? %s : %s;", s[i], id, next[i], s[i]);
    line(e, b, "acc_act%u[acc_l] = acc_on%u;", id, id);
    line(e, b, "acc_any%u |= acc_on%u;", id, id);
    e->lockstep--;
    line(e, b, "ACC_LANE_END");
    line(e, b, "if (!acc_any%u)", id);
    line(e, b, "    break;");
    line(e, b, "ACC_LOOP_POLL(%s);", polls);
    e->indent--;
    line(e, b, "}");
    line(e, b, "ACC_LANE_BEGIN");
}

/* A loop at the top level of n (not under a branch of an if, the right
 * side of && or ||, or another loop) that lane mode would run in
 * lockstep. */
static int top_loop(cg_emitter *e, const ir_node *n, int depth)
{
    if (depth > 200 || is_array_arg(n) || n->op == IR_LAMBDA)
        return 0;
    if (n->op == IR_WHILE)
        return !loop_fails(e, n) && !has_loop(ir_lambda_body(n->args[0]), 0) &&
               !has_loop(ir_lambda_body(n->args[1]), 0);
    uint32_t args = n->n_args;
    if (n->op == IR_COND ||
        (n->op == IR_PRIM && (n->u.prim == ACC_OP_LAND || n->u.prim == ACC_OP_LOR)))
        args = 1; /* only the condition, or the left side, always runs */
    for (uint32_t i = 0; i < args; i++)
        if (top_loop(e, n->args[i], depth + 1))
            return 1;
    return 0;
}

int cg_lockstep_candidate(cg_emitter *e, const ir_node *lam)
{
    return top_loop(e, ir_lambda_body(lam), 0);
}

static const char **em_while(cg_emitter *e, strbuf *b, const ir_node *n)
{
    size_t k = n->type->n_leaves;
    const uint8_t *need = e->while_need[n->id];
    if (!need) {
        fail(e, "a loop the analysis did not reach");
        return NULL;
    }
    const char **s = exprs(e, k), **init = em(e, b, n->args[2], need);
    if (!s || !init)
        return NULL;
    for (size_t i = 0; i < k; i++) {
        s[i] = NULL;
        if (need[i]) {
            s[i] = var_decl(e, b, n->type->leaves[i]);
            line(e, b, "%s = %s;", s[i], init[i]);
        }
    }
    if (!hoist_loop(e, b, n))
        return NULL;
    /* the prelude's ACC_LOOP_POLL lets a cancelled run, or one past its
     * deadline, stop a loop that would not end (core/base/stop.h) */
    const char *polls = str(e, "t%u", e->tmp++);
    if (lockstep_loop(e, n)) {
        em_lockstep(e, b, n, s, polls);
    } else {
        line(e, b, "ACC_LOOP_COUNTER(%s);", polls);
        line(e, b, "for (;;) {");
        e->indent++;
        e->param_x[ir_lambda_param(n->args[0], 0)->u.param.slot] = s;
        const char *c = em1(e, b, ir_lambda_body(n->args[0]));
        line(e, b, "if (!%s)", c);
        line(e, b, "    break;");
        line(e, b, "ACC_LOOP_POLL(%s);", polls);
        e->param_x[ir_lambda_param(n->args[1], 0)->u.param.slot] = s;
        const char **x = em(e, b, ir_lambda_body(n->args[1]), need);
        const char **next = exprs(e, k);
        for (size_t i = 0; x && next && i < k; i++) /* all read, then all set */
            next[i] = need[i] ? tmp(e, b, n->type->leaves[i], x[i]) : NULL;
        for (size_t i = 0; x && next && i < k; i++)
            if (need[i])
                line(e, b, "%s = %s;", s[i], next[i]);
        e->indent--;
        line(e, b, "}");
    }
    unhoist(e, ir_lambda_body(n->args[0]), n, 0);
    unhoist(e, ir_lambda_body(n->args[1]), n, 0);
    return e->failed ? NULL : s;
}

/* The bound term is emitted even when nothing uses it, in check mode
 * when it can fail (and as nothing otherwise). */
static const char **em_let(cg_emitter *e, strbuf *b, const ir_node *n,
                           const uint8_t *dem)
{
    uint32_t v = n->u.let.var;
    const uint8_t *d = e->var_dem[v];
    const char **x = em(e, b, n->args[0], d ? d : e->none);
    if (!x)
        return NULL;
    e->var_x[v] = x;
    return em(e, b, n->args[1], dem);
}

/* ---- emission: arrays ------------------------------------------------------------- */

static int arg_of(cg_emitter *e, const ir_node *array)
{
    int k = cg_array_index(e, array);
    if (k >= 0 && array->type->rank > 0)
        e->arrays[k].extents |= (1u << array->type->rank) - 1;
    return k;
}

static const char **load_leaves(cg_emitter *e, strbuf *b, int k,
                                const char *pos, const uint8_t *dem)
{
    const acc_type *elem = e->arrays[k].node->type->elem;
    const char **r = exprs(e, elem->n_leaves);
    for (size_t l = 0; r && l < elem->n_leaves; l++) {
        r[l] = NULL;
        if (!dem[l])
            continue;
        e->arrays[k].leaves |= 1u << l;
        acc_scalar s = elem->leaves[l];
        r[l] = tmp(e, b, s, s == ACC_BOOL
                                ? str(e, "(uint8_t)(a%d_%zu[%s] != 0)", k, l, pos)
                                : str(e, "a%d_%zu[%s]", k, l, pos));
    }
    return r;
}

/* The condition that index ix is outside extents ext: one unsigned
 * comparison a component (0 <= i < e for extents e >= 0, which the host
 * checks before any launch; one branch, not two, in the loop).  A
 * constant extent 0 (a shape written [0]) admits no index: `0`, not a
 * comparison with zero that compilers warn about (the component is then
 * marked used in b). */
static const char *out_of_range(cg_emitter *e, strbuf *b, int32_t rank,
                                const char *const *ix, const char *const *ext)
{
    ir_value zero = {0};
    const char *empty = const_expr(e, ACC_I64, zero);
    strbuf c = {0};
    sb_puts(&c, "!(1");
    for (int32_t d = 0; d < rank; d++)
        if (strcmp(ext[d], empty) == 0) {
            line(e, b, "(void)%s;", ix[d]);
            sb_puts(&c, " && 0");
        } else {
            sb_printf(&c, " && (uint64_t)%s < (uint64_t)%s", ix[d], ext[d]);
        }
    sb_puts(&c, ")");
    if (c.failed) {
        e->oom = 1;
        fail(e, "out of host memory");
    }
    const char *r = str(e, "%s", c.text ? c.text : "0");
    sb_free(&c);
    return r;
}

static const char **array_extents(cg_emitter *e, int k, int32_t rank)
{
    const char **x = exprs(e, (size_t)rank);
    for (int32_t d = 0; x && d < rank; d++)
        x[d] = str(e, "a%d_e%d", k, (int)d);
    return x;
}

static const char **em_read(cg_emitter *e, strbuf *b, const ir_node *n,
                            const uint8_t *dem)
{
    const ir_node *a = n->args[0];
    int32_t rank = a->type->rank;
    const char **ix = em(e, b, n->args[1], e->all);
    int k = arg_of(e, a);
    if (!ix || k < 0)
        return NULL;
    /* extents are needed for the check (skipped for reads fusion proved
     * in range) and for the position of a multi-dimensional index */
    int check_it = rank > 0 && !n->in_bounds;
    const char **ext = check_it || rank > 1 ? array_extents(e, k, rank) : NULL;
    if ((check_it || rank > 1) && !ext)
        return NULL;
    if (check_it)
        check(e, b, out_of_range(e, b, rank, ix, ext), "ACC_KERR_BOUNDS");
    if (!any(dem, a->type->elem->n_leaves)) /* check mode: nothing loaded */
        return exprs(e, n->type->n_leaves);
    const char *pos = "0";
    for (int32_t d = 0; d < rank; d++)
        pos = d == 0 ? ix[0] : str(e, "(%s * %s + %s)", pos, ext[d], ix[d]);
    return load_leaves(e, b, k, tmp(e, b, ACC_I64, pos), dem);
}

static const char **em_read_linear(cg_emitter *e, strbuf *b, const ir_node *n,
                                   const uint8_t *dem)
{
    const char *pos = em1(e, b, n->args[1]);
    int k = cg_array_index(e, n->args[0]);
    if (k < 0)
        return NULL;
    e->arrays[k].size = 1;
    check(e, b, str(e, "!((uint64_t)%s < (uint64_t)a%d_n)", pos, k),
          "ACC_KERR_BOUNDS");
    return load_leaves(e, b, k, pos, dem);
}

static const char **em_shape(cg_emitter *e, const ir_node *n)
{
    int k = n->op == IR_SHAPE ? arg_of(e, n->args[0])
                              : cg_array_index(e, n->args[0]);
    if (k < 0)
        return NULL;
    if (n->op == IR_SHAPE)
        return array_extents(e, k, n->args[0]->type->rank);
    e->arrays[k].size = 1;
    const char **x = exprs(e, 1);
    if (x)
        x[0] = str(e, "a%d_n", k);
    return x;
}

/* An index against a shape, or a linear position against a size; an
 * index proved in range is passed on as it is. */
static const char **em_bounds(cg_emitter *e, strbuf *b, const ir_node *n,
                              const uint8_t *dem)
{
    if (n->in_bounds) {
        const char **ix = em(e, b, n->args[0], dem);
        return ix && em(e, b, n->args[1], e->none) ? ix : NULL;
    }
    const char **ix = em(e, b, n->args[0], e->all);
    const char **sh = ix ? em(e, b, n->args[1], e->all) : NULL;
    if (!sh)
        return NULL;
    if (n->type->kind != ACC_TYPE_SHAPE)
        check(e, b, str(e, "!((uint64_t)%s < (uint64_t)%s)", ix[0], sh[0]),
              "ACC_KERR_BOUNDS");
    else if (n->type->rank > 0)
        check(e, b, out_of_range(e, b, n->type->rank, ix, sh),
              "ACC_KERR_BOUNDS");
    return ix;
}

static const char **em_fields(cg_emitter *e, strbuf *b, const ir_node *n,
                              const uint8_t *dem)
{
    const char **r = exprs(e, n->type->n_leaves);
    size_t at = 0;
    for (uint32_t i = 0; r && i < n->n_args; i++) {
        size_t k = n->args[i]->type->n_leaves;
        const char **x = em(e, b, n->args[i], dem + at);
        if (!x)
            return NULL;
        memcpy(r + at, x, k * sizeof *r);
        at += k;
    }
    return r;
}

static const char **em_get(cg_emitter *e, strbuf *b, const ir_node *n,
                           const uint8_t *dem)
{
    size_t k = n->args[0]->type->n_leaves, off = get_offset(n);
    uint8_t *d = alloc(e, k);
    if (!d)
        return NULL;
    memcpy(d + off, dem, n->type->n_leaves);
    const char **x = em(e, b, n->args[0], d);
    return x ? x + off : NULL;
}

static const char **em_bound(cg_emitter *e, const char **x, size_t k,
                             const uint8_t *dem, const char *what)
{
    for (size_t i = 0; i < k; i++)
        if (dem[i] && (!x || !x[i])) {
            fail(e, "%s used outside the kernel that binds it", what);
            return NULL;
        }
    return x;
}

static const char **em_one(cg_emitter *e, const char *x)
{
    const char **r = exprs(e, 1);
    if (r)
        r[0] = x;
    return r;
}

static const char **em_ignore(cg_emitter *e, const ir_node *n)
{
    const char **r = exprs(e, (size_t)n->type->rank);
    for (int32_t d = 0; r && d < n->type->rank; d++)
        r[d] = "INT64_MIN";
    return r;
}

/* Check mode (see dm_checks): n's checks, no value (every leaf NULL). */
static const char **em_checks(cg_emitter *e, strbuf *b, const ir_node *n)
{
    const char **none = exprs(e, n->type->n_leaves);
    if (prim_checks(n)) {
        em(e, b, n->args[0], e->none);
        prim_check(e, b, n, em1(e, b, n->args[1]));
        return none;
    }
    if (checks_itself(n)) {
        const char **x = n->op == IR_READ ? em_read(e, b, n, e->none)
                         : n->op == IR_READ_LINEAR
                             ? em_read_linear(e, b, n, e->none)
                             : em_bounds(e, b, n, e->none);
        return x ? none : NULL;
    }
    if (n->op == IR_WHILE && loop_fails(e, n))
        return em_while(e, b, n) ? none : NULL;
    if (decides(e, n)) { /* the side that can fail, when it runs */
        int lor = n->op == IR_PRIM && n->u.prim == ACC_OP_LOR;
        const char *c = em1(e, b, n->args[0]);
        line(e, b, "if (%s%s) {", lor ? "!" : "", c);
        e->indent++;
        em(e, b, n->args[1], e->none);
        e->indent--;
        if (n->op == IR_COND) {
            line(e, b, "} else {");
            e->indent++;
            em(e, b, n->args[2], e->none);
            e->indent--;
        }
        line(e, b, "}");
        return none;
    }
    for (uint32_t i = n->op == IR_WHILE ? 2 : 0; i < n->n_args; i++)
        if (!is_array_arg(n->args[i]))
            em(e, b, n->args[i], e->none);
    return none;
}

/* The user function's source goes into the kernel once. */
static int note_source(cg_emitter *e, const char *source)
{
    for (size_t i = 0; i < e->n_sources; i++)
        if (e->sources[i] == source)
            return 1;
    if (e->n_sources == CG_MAX_USER_SOURCES)
        return fail(e, "a kernel calls more than %d user functions",
                    CG_MAX_USER_SOURCES);
    e->sources[e->n_sources++] = source;
    return 1;
}

/* See dm_foreign. */
static const char **em_foreign(cg_emitter *e, strbuf *b, const ir_node *n,
                               const uint8_t *dem)
{
    size_t k = n->type->n_leaves;
    if (n->u.foreign.impl && !n->u.foreign.source) /* see dm_foreign */
        return fail(e, "foreignExp %s calls a C function of a library",
                    n->u.foreign.name), NULL;
    if (!any(dem, k)) {
        if (!can_fail(e, n))
            return exprs(e, k);
        dem = e->all;
    }
    if (n->u.foreign.source) {
        const char **x = em(e, b, n->args[1], e->all);
        if (!x || !note_source(e, n->u.foreign.source))
            return NULL;
        strbuf call = {0};
        sb_printf(&call, "%s(", n->u.foreign.entry);
        for (size_t i = 0; i < n->args[1]->type->n_leaves; i++)
            sb_printf(&call, "%s%s", i ? ", " : "", x[i]);
        sb_puts(&call, ")");
        const char *r = call.failed ? NULL
                                    : tmp(e, b, n->type->scalar, call.text);
        sb_free(&call);
        return r ? em_one(e, r) : (fail(e, "out of host memory"), NULL);
    }
    const ir_node *lam = n->args[0];
    uint32_t slot = ir_lambda_param(lam, 0)->u.param.slot;
    const uint8_t *pd = e->param_dem[slot];
    const char **x = em(e, b, n->args[1], pd ? pd : e->none);
    if (!x)
        return NULL;
    e->param_x[slot] = x;
    return em(e, b, ir_lambda_body(lam), dem);
}

static const char **em(cg_emitter *e, strbuf *b, const ir_node *n,
                       const uint8_t *dem)
{
    size_t k = n->type->n_leaves;
    if (e->failed)
        return NULL;
    if (!any(dem, k) && n->op != IR_LET && n->op != IR_FOREIGN_EXP)
        return can_fail(e, n) ? em_checks(e, b, n) : exprs(e, k);
    if (e->hoisted[n->id])
        return e->hoisted[n->id];
    switch (n->op) {
    case IR_CONST: return em_one(e, const_expr(e, n->type->scalar, n->u.lit));
    case IR_PARAM:
        return em_bound(e, e->param_x[n->u.param.slot], k, dem, "a parameter");
    case IR_VAR:
        return em_bound(e, e->var_x[n->u.let.var], k, dem, "a variable");
    case IR_PRIM: return em_one(e, em_prim(e, b, n));
    case IR_CONVERT: {
        const char *a = em1(e, b, n->args[0]);
        return em_one(e, tmp(e, b, n->type->scalar,
                             convert_expr(e, n->args[0]->type->scalar,
                                          n->type->scalar, a)));
    }
    case IR_COND: return em_cond(e, b, n, dem);
    case IR_TUPLE: case IR_INDEX: return em_fields(e, b, n, dem);
    case IR_GET: return em_get(e, b, n, dem);
    case IR_LET: return em_let(e, b, n, dem);
    case IR_WHILE: return em_while(e, b, n);
    case IR_READ: return em_read(e, b, n, dem);
    case IR_READ_LINEAR: return em_read_linear(e, b, n, dem);
    case IR_SHAPE: case IR_SIZE: return em_shape(e, n);
    case IR_BOUNDS: return em_bounds(e, b, n, dem);
    case IR_IGNORE: return em_ignore(e, n);
    case IR_ALL: return exprs(e, 0);
    case IR_FOREIGN_EXP: return em_foreign(e, b, n, dem);
    default: break;
    }
    fail(e, "%s in scalar code", ir_op_name(n->op));
    return NULL;
}

int cg_emit_lambda(cg_emitter *e, strbuf *b, const ir_node *lam,
                   const char *const *const *args, const uint8_t *demand,
                   const char **out)
{
    const uint8_t *dem = demand ? demand : e->all;
    for (uint32_t i = 0; i < lam->u.lambda.n_params; i++)
        e->param_x[ir_lambda_param(lam, i)->u.param.slot] =
            (const char **)args[i];
    const ir_node *body = ir_lambda_body(lam);
    const char **x = em(e, b, body, dem);
    if (!x || e->failed)
        return 0;
    for (size_t i = 0; i < body->type->n_leaves; i++)
        out[i] = dem[i] ? x[i] : NULL;
    return 1;
}

int cg_emit_load(cg_emitter *e, strbuf *b, const ir_node *node,
                 const char *pos, const char **out)
{
    int k = cg_array_index(e, node);
    const char **x = k >= 0 ? load_leaves(e, b, k, pos, e->all) : NULL;
    if (!x || e->failed)
        return 0;
    memcpy(out, x, node->type->elem->n_leaves * sizeof *out);
    return 1;
}
