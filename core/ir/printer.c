/*
 * printer.c — IR to text.  Every compound argument is parenthesised, so
 * the output needs no precedence rules to read back; array-level lets are
 * laid out one per line so a program reads top to bottom.
 */
#include "core/ir/printer.h"

#include "core/ir/primops.h"
#include "core/ir/scan_kind.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void term(strbuf *b, const ir_node *n, int indent);

/* Whether a literal is written with a leading minus sign. */
static int is_negative(const ir_node *n)
{
    acc_scalar s = n->type->scalar;
    if (ty_is_floating(s))
        return !isnan(n->u.lit.f) && signbit(n->u.lit.f);
    return ty_is_signed(s) && n->u.lit.i < 0;
}

static int is_atom(const ir_node *n)
{
    switch (n->op) {
    case IR_CONST:
        /* -3 as an argument would read back as a subtraction */
        return (n->type->scalar == ACC_I64 || n->type->scalar == ACC_F64 ||
                n->type->scalar == ACC_BOOL) && !is_negative(n);
    case IR_PARAM: case IR_VAR: case IR_INPUT: case IR_ALL: case IR_IGNORE:
    case IR_TUPLE: case IR_INDEX:
        return 1;
    default:
        return 0;
    }
}

static void arg(strbuf *b, const ir_node *n, int indent)
{
    if (is_atom(n)) {
        term(b, n, indent);
        return;
    }
    sb_puts(b, "(");
    term(b, n, indent);
    sb_puts(b, ")");
}

static void newline(strbuf *b, int indent)
{
    sb_printf(b, "\n%*s", indent, "");
}

/* The shortest decimal that reads back as the same f32/f64 value. */
static void float_text(strbuf *b, acc_scalar s, double x)
{
    char text[40];
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, x);
        double back = strtod(text, NULL);
        if (s == ACC_F32 ? (float)back == (float)x : back == x)
            break;
    }
    sb_puts(b, text);
    if (!strpbrk(text, ".eEn"))
        sb_puts(b, ".0");
}

static void literal(strbuf *b, const ir_node *n)
{
    acc_scalar s = n->type->scalar;
    ir_value v = n->u.lit;
    if (s == ACC_BOOL) {
        sb_puts(b, v.i ? "True" : "False");
        return;
    }
    int typed = s != ACC_I64 && s != ACC_F64, paren = typed && is_negative(n);
    if (typed)
        sb_printf(b, "%s ", acc_scalar_name(s));
    if (paren) /* f32 (-0.5): f32 -0.5 would read back as a subtraction */
        sb_puts(b, "(");
    if (ty_is_floating(s)) {
        if (isnan(v.f))
            sb_puts(b, "(0.0 / 0.0)");
        else if (isinf(v.f))
            sb_puts(b, v.f > 0 ? "(1.0 / 0.0)" : "(-1.0 / 0.0)");
        else
            float_text(b, s, v.f);
    } else if (ty_is_signed(s)) {
        sb_printf(b, "%lld", (long long)v.i);
    } else {
        sb_printf(b, "%llu", (unsigned long long)v.u);
    }
    if (paren)
        sb_puts(b, ")");
}

static int infix(acc_primop op)
{
    switch (op) {
    case ACC_OP_ADD: case ACC_OP_SUB: case ACC_OP_MUL: case ACC_OP_FDIV:
    case ACC_OP_EQ: case ACC_OP_NE: case ACC_OP_LT: case ACC_OP_LE:
    case ACC_OP_GT: case ACC_OP_GE: case ACC_OP_LAND: case ACC_OP_LOR:
    case ACC_OP_BAND: case ACC_OP_BOR: case ACC_OP_POW:
        return 1;
    default:
        return 0;
    }
}

static void prim(strbuf *b, const ir_node *n, int indent)
{
    const char *name = acc_primop_name(n->u.prim);
    if (n->n_args == 2 && infix(n->u.prim)) {
        arg(b, n->args[0], indent);
        sb_printf(b, " %s ", name);
        arg(b, n->args[1], indent);
        return;
    }
    sb_puts(b, name);
    for (uint32_t i = 0; i < n->n_args; i++) {
        sb_puts(b, " ");
        arg(b, n->args[i], indent);
    }
    if (prim_lookup(n->u.prim).result == PR_NAMED)
        sb_printf(b, " : %s", acc_scalar_name(n->type->scalar));
}

/* \p0 p1 -> body; with `typed`, \(p0 : t) -> body (a stencil's parameter
 * type says the neighbourhood's size, which the text syntax needs). */
static void lambda_params(strbuf *b, const ir_node *n, int typed)
{
    char t[4096];
    sb_puts(b, "\\");
    for (uint32_t i = 0; i < n->u.lambda.n_params; i++) {
        const ir_node *p = n->args[i];
        if (typed)
            sb_printf(b, "%s(p%u : %s)", i ? " " : "", p->u.param.slot,
                      ty_format(p->type, t, sizeof t));
        else
            sb_printf(b, "%sp%u", i ? " " : "", p->u.param.slot);
    }
}

static void lambda(strbuf *b, const ir_node *n, int indent)
{
    lambda_params(b, n, 0);
    const ir_node *body = ir_lambda_body(n);
    sb_puts(b, " ->");
    if (body->op == IR_LET) {
        newline(b, indent + 2);
        term(b, body, indent + 2);
    } else {
        sb_puts(b, " ");
        term(b, body, indent + 2);
    }
}

/* let a = e1;
 *     b = e2
 * in body        (a chain of lets is one let block, as in the text syntax) */
static void let(strbuf *b, const ir_node *n, int indent)
{
    sb_puts(b, "let ");
    for (;;) {
        sb_printf(b, "v%u = ", n->u.let.var);
        term(b, n->args[0], indent + 4);
        n = n->args[1];
        if (n->op != IR_LET)
            break;
        sb_puts(b, ";");
        newline(b, indent + 4);
    }
    newline(b, indent);
    sb_puts(b, "in ");
    term(b, n, indent + 3);
}

static void sequence(strbuf *b, const ir_node *n, uint32_t from,
                     const char *open, const char *close, int indent)
{
    sb_puts(b, open);
    for (uint32_t i = from; i < n->n_args; i++) {
        if (i > from)
            sb_puts(b, ", ");
        term(b, n->args[i], indent);
    }
    sb_puts(b, close);
}

/* The name an array operation has in the text language. */
static const char *array_op_name(const ir_node *n)
{
    switch (n->op) {
    case IR_SCAN: return ir_scan_name(n->u.scan.kind, 0);
    case IR_SCAN_SEG: return ir_scan_name(n->u.scan.kind, 1);
    case IR_FOLD_SEG:
        return !n->u.seg.seeded ? "fold1Seg"
               : n->u.seg.offsets ? "foldSeg'" : "foldSeg";
    default: return ir_op_name(n->op);
    }
}

static const char *boundary_name(acc_boundary b)
{
    switch (b) {
    case ACC_BOUNDARY_CLAMP: return "clamp";
    case ACC_BOUNDARY_MIRROR: return "mirror";
    case ACC_BOUNDARY_WRAP: return "wrap";
    case ACC_BOUNDARY_FUNCTION: return "function";
    default: return "constant";
    }
}

/* stencil f b xs, stencil2 f b1 xs b2 ys, f with typed parameters.  The
 * IR holds f, the arrays, then the boundary arguments that exist. */
static void stencil(strbuf *b, const ir_node *n, int indent)
{
    int sides = n->op == IR_STENCIL2 ? 2 : 1;
    uint32_t barg = 1 + (uint32_t)sides;
    const ir_node *f = n->args[0];
    sb_puts(b, sides == 2 ? "stencil2 (" : "stencil (");
    lambda_params(b, f, 1);
    sb_puts(b, " -> ");
    term(b, ir_lambda_body(f), indent + 2);
    sb_puts(b, ")");
    for (int side = 0; side < sides; side++) {
        acc_boundary kind = n->u.stencil.boundary[side];
        if (kind == ACC_BOUNDARY_FUNCTION || kind == ACC_BOUNDARY_CONSTANT) {
            sb_printf(b, " (%s ", boundary_name(kind));
            arg(b, n->args[barg++], indent);
            sb_puts(b, ")");
        } else {
            sb_printf(b, " %s", boundary_name(kind));
        }
        sb_puts(b, " ");
        arg(b, n->args[1 + side], indent);
    }
}

static void application(strbuf *b, const ir_node *n, int indent)
{
    if (n->op == IR_STENCIL || n->op == IR_STENCIL2) {
        stencil(b, n, indent);
        return;
    }
    if (n->op == IR_ZIPWITH && n->n_args > 3) {
        /* zipWith3, zipWith4, ...: the text syntax's names by arity */
        sb_printf(b, "zipWith%u", n->n_args - 1);
        for (uint32_t i = 0; i < n->n_args; i++) {
            sb_puts(b, " ");
            arg(b, n->args[i], indent);
        }
        return;
    }
    if (n->op == IR_REPLICATE) { /* spec[0..n-2], then xs */
        sb_puts(b, "replicate [");
        for (uint32_t i = 0; i + 1 < n->n_args; i++) {
            if (i)
                sb_puts(b, ", ");
            term(b, n->args[i], indent);
        }
        sb_puts(b, "] ");
        arg(b, n->args[n->n_args - 1], indent);
        return;
    }
    sb_puts(b, array_op_name(n));
    if (n->op == IR_FOREIGN || n->op == IR_FOREIGN_EXP)
        sb_printf(b, " \"%s\"", n->u.foreign.name);
    if (n->op == IR_SLICE) {
        sb_puts(b, " ");
        arg(b, n->args[0], indent);
        sb_puts(b, " ");
        sequence(b, n, 1, "[", "]", indent);
        return;
    }
    for (uint32_t i = 0; i < n->n_args; i++) {
        sb_puts(b, " ");
        arg(b, n->args[i], indent);
    }
}

static void term(strbuf *b, const ir_node *n, int indent)
{
    switch (n->op) {
    case IR_CONST: literal(b, n); return;
    case IR_PARAM: sb_printf(b, "p%u", n->u.param.slot); return;
    case IR_VAR: sb_printf(b, "v%u", n->u.let.var); return;
    case IR_INPUT: sb_printf(b, "in%u", n->u.input); return;
    case IR_ALL: sb_puts(b, "All"); return;
    case IR_IGNORE: sb_puts(b, "ignore"); return;
    case IR_LAMBDA: lambda(b, n, indent); return;
    case IR_PRIM: prim(b, n, indent); return;
    case IR_LET: let(b, n, indent); return;
    case IR_TUPLE: sequence(b, n, 0, "(", ")", indent); return;
    case IR_INDEX: sequence(b, n, 0, "[", "]", indent); return;
    case IR_CONVERT:
        sb_printf(b, "%s ", acc_scalar_name(n->type->scalar));
        arg(b, n->args[0], indent);
        return;
    case IR_COND:
        sb_puts(b, "if ");
        term(b, n->args[0], indent);
        sb_puts(b, " then ");
        term(b, n->args[1], indent);
        sb_puts(b, " else ");
        term(b, n->args[2], indent);
        return;
    case IR_GET:
        sb_printf(b, "prj %zu ", n->u.field);
        arg(b, n->args[0], indent);
        return;
    case IR_READ:
    case IR_READ_LINEAR:
        arg(b, n->args[0], indent);
        sb_puts(b, n->op == IR_READ ? " ! " : " !! ");
        arg(b, n->args[1], indent);
        return;
    default:
        application(b, n, indent);
        return;
    }
}

void ir_print_term(strbuf *out, const ir_node *n)
{
    term(out, n, 0);
}

void ir_print_program(strbuf *out, const ir_program *p)
{
    char t[128];
    sb_puts(out, "program");
    for (size_t i = 0; i < p->n_inputs; i++)
        sb_printf(out, " (in%zu : %s)", i,
                  ty_format(p->inputs[i]->type, t, sizeof t));
    sb_printf(out, " : %s =\n  ", ty_format(p->root->type, t, sizeof t));
    term(out, p->root, 2);
    sb_puts(out, "\n");
}
