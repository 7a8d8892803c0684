/*
 * emit_c.c — scalar IR to C (see emit_c.h): the emitter object and the
 * expression emitter core.  Two passes over a lambda body: the demand
 * analysis (emit_c_analyse.c) computes demanded leaves (of lets,
 * parameters and loop states, to a fixed point for loops), em_* here
 * writes the statements; loops are emitted by emit_c_loops.c, foreignExp
 * by emit_c_foreign.c (emit_c_internal.h lists the files).
 *
 * A value nobody demands is not computed, but its runtime checks are
 * (docs/LANGUAGE.md: a check belongs to the evaluation of its
 * expression, used or not).  A term with no demanded leaf that can fail
 * (can_fail) is analysed and emitted in *check mode* (dm_checks,
 * em_checks): only its checks and the values they need are computed; no
 * array element is loaded and no result is produced.  The two passes
 * make the same choices, so every value a check needs has its demand.
 */
#include "core/codegen/emit_c_internal.h"

#include "core/base/arena.h"
#include "core/base/mem.h"
#include "core/ir/types.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- utilities ------------------------------------------------------------ */

int cge_fail(cg_emitter *e, const char *fmt, ...)
{
    if (diag_ok(&e->d)) {
        char buf[DIAG_MESSAGE_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        diag_fail(&e->d, ACC_ERR_COMPILE, "%s", buf);
    }
    return 0;
}

int cge_oom(cg_emitter *e)
{
    diag_oom(&e->d, "scalar emitter");
    return 0;
}

void *cge_alloc(cg_emitter *e, size_t size)
{
    void *m = arena_alloc(e->ar, size ? size : 1);
    if (!m)
        cge_oom(e);
    return m;
}

const char *cge_str(cg_emitter *e, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *s = cge_alloc(e, strlen(buf) + 1);
    if (s)
        strcpy(s, buf);
    return s ? s : "0";
}

/* One statement at the current indentation. */
void cge_line(cg_emitter *e, strbuf *b, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sb_printf(b, "%*s%s\n", 4 * e->indent, "", buf);
}

int cge_any(const uint8_t *d, size_t n)
{
    for (size_t i = 0; d && i < n; i++)
        if (d[i])
            return 1;
    return 0;
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
    diag_clear(&e->d);
    e->p = p;
    size_t nv = p->n_vars + 1, np = p->n_params + 1, nn = p->n_nodes + 1;
    e->var_dem = cge_alloc(e, nv * sizeof *e->var_dem);
    e->var_x = cge_alloc(e, nv * sizeof *e->var_x);
    e->param_dem = cge_alloc(e, np * sizeof *e->param_dem);
    e->param_x = cge_alloc(e, np * sizeof *e->param_x);
    e->while_need = cge_alloc(e, nn * sizeof *e->while_need);
    e->hoisted = cge_alloc(e, nn * sizeof *e->hoisted);
    e->hoisted_by = cge_alloc(e, nn * sizeof *e->hoisted_by);
    e->fails = cge_alloc(e, nn);
    memset(e->all, 1, sizeof e->all);
    if (cge_failed(e)) {
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
    return e->d.status == ACC_ERR_OUT_OF_HOST_MEMORY;
}

const char *cg_error(const cg_emitter *e)
{
    return cge_failed(e) ? e->d.message : "";
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

void cg_set_ignore_collapse(cg_emitter *e, int on)
{
    e->collapse_ignore = on != 0;
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
            return cge_oom(e) - 1;
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
            return cge_str(e, "(%sacc_f64_bits(UINT64_C(0x%016" PRIx64 ")))",
                           cast, bits);
        }
        return cge_str(e, "(%s%a)", cast, v.f);
    }
    if (ty_is_signed(s)) {
        if (v.i == INT64_MIN)
            return "INT64_MIN";
        return cge_str(e, "((%s)INT64_C(%" PRId64 "))", cg_ctype(s), v.i);
    }
    return cge_str(e, "((%s)UINT64_C(%" PRIu64 "))", cg_ctype(s), v.u);
}

/* In lane mode outside a lockstep loop: a new lane array temporary
 * (declared in lane_decls), named by its element of the current lane. */
static const char *lane_tmp(cg_emitter *e, acc_scalar s)
{
    unsigned t = e->tmp++;
    sb_printf(e->lane_decls, "    %s t%u[ACC_LANES];\n", cg_ctype(s), t);
    return cge_str(e, "t%u[acc_l]", t);
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
const char *cge_tmp(cg_emitter *e, strbuf *b, acc_scalar s,
                       const char *expr)
{
    if (lane_arrays(e)) {
        const char *name = lane_tmp(e, s);
        cge_line(e, b, "%s = %s;", name, expr);
        return name;
    }
    const char *name = cge_str(e, "t%u", e->tmp++);
    cge_line(e, b, "const %s %s = %s;", tmp_ctype(e, s), name, expr);
    return name;
}

/* A new mutable temporary, declared without a value. */
const char *cge_var_decl(cg_emitter *e, strbuf *b, acc_scalar s)
{
    if (lane_arrays(e))
        return lane_tmp(e, s);
    const char *name = cge_str(e, "t%u", e->tmp++);
    cge_line(e, b, "%s %s;", tmp_ctype(e, s), name);
    return name;
}

const char **cge_exprs(cg_emitter *e, size_t n)
{
    return cge_alloc(e, (n ? n : 1) * sizeof(const char *));
}

/* The single leaf of a scalar operand. */
const char *cge_em1(cg_emitter *e, strbuf *b, const ir_node *n)
{
    const char **x = cge_em(e, b, n, e->all);
    return x && x[0] ? x[0] : "0";
}

/* ---- emission: primitives ------------------------------------------------------ */

static const char *em_logic(cg_emitter *e, strbuf *b, const ir_node *n)
{
    int land = n->u.prim == ACC_OP_LAND;
    const char *a = cge_em1(e, b, n->args[0]);
    const char *r = cge_var_decl(e, b, ACC_BOOL);
    cge_line(e, b, "if (%s%s) {", land ? "" : "!", a);
    e->indent++;
    const char *rhs = cge_em1(e, b, n->args[1]);
    cge_line(e, b, "%s = (uint8_t)(%s != 0);", r, rhs);
    e->indent--;
    cge_line(e, b, "} else {");
    cge_line(e, b, "    %s = %s;", r, land ? "0" : "1");
    cge_line(e, b, "}");
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
    case ACC_OP_ADD: return cge_str(e, "(%s + %s)", a, b);
    case ACC_OP_SUB: return cge_str(e, "(%s - %s)", a, b);
    case ACC_OP_MUL: return cge_str(e, "(%s * %s)", a, b);
    case ACC_OP_FDIV: return cge_str(e, "(%s / %s)", a, b);
    case ACC_OP_NEG: return cge_str(e, "(-%s)", a);
    case ACC_OP_ISNAN: return cge_str(e, "(uint8_t)(isnan(%s) != 0)", a);
    case ACC_OP_ISINF: return cge_str(e, "(uint8_t)(isinf(%s) != 0)", a);
    case ACC_OP_SIGNUM: case ACC_OP_MIN: case ACC_OP_MAX: case ACC_OP_LOGBASE:
        return b ? cge_str(e, "acc_%s_%s(%s, %s)", helper_name(op), sfx(t),
                           a, b)
                 : cge_str(e, "acc_%s_%s(%s)", helper_name(op), sfx(t), a);
    default: break;
    }
    const char *fn = float_fn(op);
    if (!fn)
        return NULL;
    return b ? cge_str(e, "%s%s(%s, %s)", fn, f, a, b)
             : cge_str(e, "%s%s(%s)", fn, f, a);
}

static const char *rounding_expr(cg_emitter *e, acc_primop op, acc_scalar to,
                                 const char *a)
{
    if (to == ACC_BOOL)
        return cge_str(e, "(uint8_t)(%s != 0)", a);
    return cge_str(e, "(%s)acc_f2i(%d, %d, %d, (double)%s)", cg_ctype(to),
                   (int)op, ty_bits(to), ty_is_signed(to), a);
}

/* A runtime check: when `bad` holds, the kernel fails with `kind`. */
static void check(cg_emitter *e, strbuf *b, const char *bad, const char *kind)
{
    cge_line(e, b, "if (%s)", bad);
    cge_line(e, b, "    ACC_FAIL(%s, %u);", kind, e->site++);
}

/* The check of a primitive with one (prim_checks) on its second operand
 * bv: division by zero, a negative shift amount. */
static void prim_check(cg_emitter *e, strbuf *b, const ir_node *n,
                       const char *bv)
{
    if (!cge_prim_checks(n))
        return;
    if (n->u.prim == ACC_OP_SHIFTL || n->u.prim == ACC_OP_SHIFTR)
        check(e, b, cge_str(e, "%s < 0", bv), "ACC_KERR_SHIFT");
    else
        check(e, b, cge_str(e, "%s == 0", bv), "ACC_KERR_DIV_ZERO");
}

static const char *int_expr(cg_emitter *e, strbuf *b, const ir_node *n,
                            const char *a, const char *bv)
{
    acc_primop op = n->u.prim;
    acc_scalar t = n->args[0]->type->scalar;
    const char *h = helper_name(op);
    prim_check(e, b, n, bv);
    if (op == ACC_OP_SHIFTL || op == ACC_OP_SHIFTR)
        return cge_str(e, "acc_%s_%s(%s, (uint64_t)%s)", h, sfx(t), a, bv);
    if (!h || (t == ACC_BOOL && op != ACC_OP_MIN && op != ACC_OP_MAX))
        return NULL;
    return bv ? cge_str(e, "acc_%s_%s(%s, %s)", h, sfx(t), a, bv)
              : cge_str(e, "acc_%s_%s(%s)", h, sfx(t), a);
}

static const char *em_prim(cg_emitter *e, strbuf *b, const ir_node *n)
{
    acc_primop op = n->u.prim;
    acc_scalar t = n->args[0]->type->scalar, rt = n->type->scalar;
    if (op == ACC_OP_LAND || op == ACC_OP_LOR)
        return em_logic(e, b, n);
    const char *a = cge_em1(e, b, n->args[0]);
    const char *bv = n->n_args == 2 ? cge_em1(e, b, n->args[1]) : NULL;
    const char *x;
    if (op >= ACC_OP_EQ && op <= ACC_OP_GE)
        x = cge_str(e, "(uint8_t)(%s %s %s)", a, cmp_op(op), bv);
    else if (op == ACC_OP_NOT)
        x = cge_str(e, "(uint8_t)!%s", a);
    else if (op >= ACC_OP_TRUNCATE && op <= ACC_OP_CEILING)
        x = rounding_expr(e, op, rt, a);
    else if (ty_is_floating(t))
        x = float_expr(e, op, t, a, bv);
    else
        x = int_expr(e, b, n, a, bv);
    if (!x) {
        cge_fail(e, "primitive %s on %s", acc_primop_name(op),
                 acc_scalar_name(t));
        return "0";
    }
    return cge_tmp(e, b, rt, x);
}

static const char *convert_expr(cg_emitter *e, acc_scalar from, acc_scalar to,
                                const char *a)
{
    if (to == ACC_BOOL)
        return cge_str(e, "(uint8_t)(%s != 0)", a);
    if (ty_is_floating(to))
        return cge_str(e, "(%s)%s", cg_ctype(to), a);
    if (ty_is_floating(from))
        return rounding_expr(e, ACC_OP_TRUNCATE, to, a);
    return cge_str(e, "(%s)(uint64_t)%s", cg_ctype(to), a);
}

/* ---- emission: control ----------------------------------------------------------- */

static const char **em_cond(cg_emitter *e, strbuf *b, const ir_node *n,
                            const uint8_t *dem)
{
    size_t k = n->type->n_leaves;
    if (e->collapse_ignore && (n->args[1]->op == IR_IGNORE ||
                               n->args[2]->op == IR_IGNORE))
        return cge_em(e, b, n->args[n->args[1]->op == IR_IGNORE ? 2 : 1],
                      dem); /* the candidate target (cg_set_ignore_collapse) */
    const char **r = cge_exprs(e, k);
    const char *c = cge_em1(e, b, n->args[0]);
    for (size_t i = 0; r && i < k; i++)
        r[i] = dem[i] ? cge_var_decl(e, b, n->type->leaves[i]) : NULL;
    for (int side = 1; r && side <= 2; side++) {
        cge_line(e, b, side == 1 ? "if (%s) {" : "} else {", c);
        e->indent++;
        const char **x = cge_em(e, b, n->args[side], dem);
        for (size_t i = 0; x && i < k; i++)
            if (dem[i])
                cge_line(e, b, "%s = %s;", r[i], x[i]);
        e->indent--;
    }
    cge_line(e, b, "}");
    return r;
}

/* The bound term is emitted even when nothing uses it, in check mode
 * when it can cge_fail (and as nothing otherwise). */
static const char **em_let(cg_emitter *e, strbuf *b, const ir_node *n,
                           const uint8_t *dem)
{
    uint32_t v = n->u.let.var;
    const uint8_t *d = e->var_dem[v];
    const char **x = cge_em(e, b, n->args[0], d ? d : e->none);
    if (!x)
        return NULL;
    e->var_x[v] = x;
    return cge_em(e, b, n->args[1], dem);
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
    const char **r = cge_exprs(e, elem->n_leaves);
    for (size_t l = 0; r && l < elem->n_leaves; l++) {
        r[l] = NULL;
        if (!dem[l])
            continue;
        e->arrays[k].leaves |= 1u << l;
        acc_scalar s = elem->leaves[l];
        r[l] = cge_tmp(e, b, s,
                       s == ACC_BOOL
                           ? cge_str(e, "(uint8_t)(a%d_%zu[%s] != 0)", k, l, pos)
                           : cge_str(e, "a%d_%zu[%s]", k, l, pos));
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
            cge_line(e, b, "(void)%s;", ix[d]);
            sb_puts(&c, " && 0");
        } else {
            sb_printf(&c, " && (uint64_t)%s < (uint64_t)%s", ix[d], ext[d]);
        }
    sb_puts(&c, ")");
    if (c.failed)
        cge_oom(e);
    const char *r = cge_str(e, "%s", c.text ? c.text : "0");
    sb_free(&c);
    return r;
}

static const char **array_extents(cg_emitter *e, int k, int32_t rank)
{
    const char **x = cge_exprs(e, (size_t)rank);
    for (int32_t d = 0; x && d < rank; d++)
        x[d] = cge_str(e, "a%d_e%d", k, (int)d);
    return x;
}

static const char **em_read(cg_emitter *e, strbuf *b, const ir_node *n,
                            const uint8_t *dem)
{
    const ir_node *a = n->args[0];
    int32_t rank = a->type->rank;
    const char **ix = cge_em(e, b, n->args[1], e->all);
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
    if (!cge_any(dem, a->type->elem->n_leaves)) /* check mode: nothing loaded */
        return cge_exprs(e, n->type->n_leaves);
    const char *pos = "0";
    for (int32_t d = 0; d < rank; d++)
        pos = d == 0 ? ix[0] : cge_str(e, "(%s * %s + %s)", pos, ext[d], ix[d]);
    return load_leaves(e, b, k, cge_tmp(e, b, ACC_I64, pos), dem);
}

static const char **em_read_linear(cg_emitter *e, strbuf *b, const ir_node *n,
                                   const uint8_t *dem)
{
    const char *pos = cge_em1(e, b, n->args[1]);
    int k = cg_array_index(e, n->args[0]);
    if (k < 0)
        return NULL;
    e->arrays[k].size = 1;
    check(e, b, cge_str(e, "!((uint64_t)%s < (uint64_t)a%d_n)", pos, k),
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
    const char **x = cge_exprs(e, 1);
    if (x)
        x[0] = cge_str(e, "a%d_n", k);
    return x;
}

/* An index against a shape, or a linear position against a size; an
 * index proved in range is passed on as it is. */
static const char **em_bounds(cg_emitter *e, strbuf *b, const ir_node *n,
                              const uint8_t *dem)
{
    if (n->in_bounds) {
        const char **ix = cge_em(e, b, n->args[0], dem);
        return ix && cge_em(e, b, n->args[1], e->none) ? ix : NULL;
    }
    const char **ix = cge_em(e, b, n->args[0], e->all);
    const char **sh = ix ? cge_em(e, b, n->args[1], e->all) : NULL;
    if (!sh)
        return NULL;
    if (n->type->kind != ACC_TYPE_SHAPE)
        check(e, b, cge_str(e, "!((uint64_t)%s < (uint64_t)%s)", ix[0], sh[0]),
              "ACC_KERR_BOUNDS");
    else if (n->type->rank > 0)
        check(e, b, out_of_range(e, b, n->type->rank, ix, sh),
              "ACC_KERR_BOUNDS");
    return ix;
}

static const char **em_fields(cg_emitter *e, strbuf *b, const ir_node *n,
                              const uint8_t *dem)
{
    const char **r = cge_exprs(e, n->type->n_leaves);
    size_t at = 0;
    for (uint32_t i = 0; r && i < n->n_args; i++) {
        size_t k = n->args[i]->type->n_leaves;
        const char **x = cge_em(e, b, n->args[i], dem + at);
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
    size_t k = n->args[0]->type->n_leaves, off = cge_get_offset(n);
    uint8_t *d = cge_alloc(e, k);
    if (!d)
        return NULL;
    memcpy(d + off, dem, n->type->n_leaves);
    const char **x = cge_em(e, b, n->args[0], d);
    return x ? x + off : NULL;
}

static const char **em_bound(cg_emitter *e, const char **x, size_t k,
                             const uint8_t *dem, const char *what)
{
    for (size_t i = 0; i < k; i++)
        if (dem[i] && (!x || !x[i])) {
            cge_fail(e, "%s used outside the kernel that binds it", what);
            return NULL;
        }
    return x;
}

const char **cge_em_one(cg_emitter *e, const char *x)
{
    const char **r = cge_exprs(e, 1);
    if (r)
        r[0] = x;
    return r;
}

static const char **em_ignore(cg_emitter *e, const ir_node *n)
{
    const char **r = cge_exprs(e, (size_t)n->type->rank);
    for (int32_t d = 0; r && d < n->type->rank; d++)
        r[d] = "INT64_MIN";
    return r;
}

/* Check mode (see dm_checks): n's checks, no value (every leaf NULL). */
static const char **em_checks(cg_emitter *e, strbuf *b, const ir_node *n)
{
    const char **none = cge_exprs(e, n->type->n_leaves);
    if (cge_prim_checks(n)) {
        cge_em(e, b, n->args[0], e->none);
        prim_check(e, b, n, cge_em1(e, b, n->args[1]));
        return none;
    }
    if (cge_checks_itself(n)) {
        const char **x = n->op == IR_READ ? em_read(e, b, n, e->none)
                         : n->op == IR_READ_LINEAR
                             ? em_read_linear(e, b, n, e->none)
                             : em_bounds(e, b, n, e->none);
        return x ? none : NULL;
    }
    if (n->op == IR_WHILE && cge_loop_fails(e, n))
        return cge_em_while(e, b, n) ? none : NULL;
    if (cge_decides(e, n)) { /* the side that can fail, when it runs */
        int lor = n->op == IR_PRIM && n->u.prim == ACC_OP_LOR;
        const char *c = cge_em1(e, b, n->args[0]);
        cge_line(e, b, "if (%s%s) {", lor ? "!" : "", c);
        e->indent++;
        cge_em(e, b, n->args[1], e->none);
        e->indent--;
        if (n->op == IR_COND) {
            cge_line(e, b, "} else {");
            e->indent++;
            cge_em(e, b, n->args[2], e->none);
            e->indent--;
        }
        cge_line(e, b, "}");
        return none;
    }
    for (uint32_t i = n->op == IR_WHILE ? 2 : 0; i < n->n_args; i++)
        if (!cge_is_array_arg(n->args[i]))
            cge_em(e, b, n->args[i], e->none);
    return none;
}

const char **cge_em(cg_emitter *e, strbuf *b, const ir_node *n,
                       const uint8_t *dem)
{
    size_t k = n->type->n_leaves;
    if (cge_failed(e))
        return NULL;
    if (!cge_any(dem, k) && n->op != IR_LET && n->op != IR_FOREIGN_EXP)
        return cge_can_fail(e, n) ? em_checks(e, b, n) : cge_exprs(e, k);
    if (e->hoisted[n->id])
        return e->hoisted[n->id];
    switch (n->op) {
    case IR_CONST:
        return cge_em_one(e, const_expr(e, n->type->scalar, n->u.lit));
    case IR_PARAM:
        return em_bound(e, e->param_x[n->u.param.slot], k, dem, "a parameter");
    case IR_VAR:
        return em_bound(e, e->var_x[n->u.let.var], k, dem, "a variable");
    case IR_PRIM: return cge_em_one(e, em_prim(e, b, n));
    case IR_CONVERT: {
        const char *a = cge_em1(e, b, n->args[0]);
        return cge_em_one(e, cge_tmp(e, b, n->type->scalar,
                                     convert_expr(e, n->args[0]->type->scalar,
                                          n->type->scalar, a)));
    }
    case IR_COND: return em_cond(e, b, n, dem);
    case IR_TUPLE: case IR_INDEX: return em_fields(e, b, n, dem);
    case IR_GET: return em_get(e, b, n, dem);
    case IR_LET: return em_let(e, b, n, dem);
    case IR_WHILE: return cge_em_while(e, b, n);
    case IR_READ: return em_read(e, b, n, dem);
    case IR_READ_LINEAR: return em_read_linear(e, b, n, dem);
    case IR_SHAPE: case IR_SIZE: return em_shape(e, n);
    case IR_BOUNDS: return em_bounds(e, b, n, dem);
    case IR_IGNORE: return em_ignore(e, n);
    case IR_ALL: return cge_exprs(e, 0);
    case IR_FOREIGN_EXP: return cge_em_foreign(e, b, n, dem);
    default: break;
    }
    cge_fail(e, "%s in scalar code", ir_op_name(n->op));
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
    const char **x = cge_em(e, b, body, dem);
    if (!x || cge_failed(e))
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
    if (!x || cge_failed(e))
        return 0;
    memcpy(out, x, node->type->elem->n_leaves * sizeof *out);
    return 1;
}
