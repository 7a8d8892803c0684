/*
 * builtins.c — the table of names the text language knows without a
 * definition (LANGUAGE.md §2 and §3 by name), and the argument helpers the
 * handlers share.  A name with arity 0 (True, clamp, All, ...) is a value.
 */
#include "core/text/text_builtins.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define OP(name, fn, op) {name, 2, fn, op}
#define UN(name, fn, op) {name, 1, fn, op}

static const text_builtin table[] = {
    /* arithmetic, bitwise, comparisons, logic */
    OP("+", text_bi_binop, ACC_OP_ADD), OP("-", text_bi_binop, ACC_OP_SUB),
    OP("*", text_bi_binop, ACC_OP_MUL), OP("/", text_bi_binop, ACC_OP_FDIV),
    OP("**", text_bi_binop, ACC_OP_POW), OP("min", text_bi_binop, ACC_OP_MIN),
    OP("max", text_bi_binop, ACC_OP_MAX), OP("quot", text_bi_binop, ACC_OP_QUOT),
    OP("rem", text_bi_binop, ACC_OP_REM), OP("div", text_bi_binop, ACC_OP_DIV),
    OP("mod", text_bi_binop, ACC_OP_MOD), OP(".&.", text_bi_binop, ACC_OP_BAND),
    OP(".|.", text_bi_binop, ACC_OP_BOR), OP("xor", text_bi_binop, ACC_OP_BXOR),
    OP("atan2", text_bi_binop, ACC_OP_ATAN2),
    OP("logBase", text_bi_binop, ACC_OP_LOGBASE),
    OP("&&", text_bi_binop, ACC_OP_LAND), OP("||", text_bi_binop, ACC_OP_LOR),
    OP("shiftL", text_bi_shift, ACC_OP_SHIFTL),
    OP("shiftR", text_bi_shift, ACC_OP_SHIFTR),
    OP("==", text_bi_compare, ACC_OP_EQ), OP("/=", text_bi_compare, ACC_OP_NE),
    OP("<", text_bi_compare, ACC_OP_LT), OP("<=", text_bi_compare, ACC_OP_LE),
    OP(">", text_bi_compare, ACC_OP_GT), OP(">=", text_bi_compare, ACC_OP_GE),
    UN("negate", text_bi_unop, ACC_OP_NEG), UN("abs", text_bi_unop, ACC_OP_ABS),
    UN("signum", text_bi_unop, ACC_OP_SIGNUM),
    UN("complement", text_bi_unop, ACC_OP_COMPLEMENT),
    UN("popCount", text_bi_unop, ACC_OP_POPCOUNT),
    UN("countLeadingZeros", text_bi_unop, ACC_OP_CLZ),
    UN("not", text_bi_unop, ACC_OP_NOT), UN("sqrt", text_bi_unop, ACC_OP_SQRT),
    UN("exp", text_bi_unop, ACC_OP_EXP), UN("log", text_bi_unop, ACC_OP_LOG),
    UN("sin", text_bi_unop, ACC_OP_SIN), UN("cos", text_bi_unop, ACC_OP_COS),
    UN("tan", text_bi_unop, ACC_OP_TAN), UN("asin", text_bi_unop, ACC_OP_ASIN),
    UN("acos", text_bi_unop, ACC_OP_ACOS), UN("atan", text_bi_unop, ACC_OP_ATAN),
    UN("sinh", text_bi_unop, ACC_OP_SINH), UN("cosh", text_bi_unop, ACC_OP_COSH),
    UN("tanh", text_bi_unop, ACC_OP_TANH),
    UN("isNaN", text_bi_unop, ACC_OP_ISNAN),
    UN("isInfinite", text_bi_unop, ACC_OP_ISINF),
    UN("truncate", text_bi_round, ACC_OP_TRUNCATE),
    UN("round", text_bi_round, ACC_OP_ROUND),
    UN("floor", text_bi_round, ACC_OP_FLOOR),
    UN("ceiling", text_bi_round, ACC_OP_CEILING),
    /* conversions */
    UN("bool", text_bi_convert, ACC_BOOL), UN("i8", text_bi_convert, ACC_I8),
    UN("i16", text_bi_convert, ACC_I16), UN("i32", text_bi_convert, ACC_I32),
    UN("i64", text_bi_convert, ACC_I64), UN("u8", text_bi_convert, ACC_U8),
    UN("u16", text_bi_convert, ACC_U16), UN("u32", text_bi_convert, ACC_U32),
    UN("u64", text_bi_convert, ACC_U64), UN("f32", text_bi_convert, ACC_F32),
    UN("f64", text_bi_convert, ACC_F64),
    UN("fromIntegral", text_bi_from_integral, 0),
    UN("toFloating", text_bi_to_floating, 0),
    UN("fromBool", text_bi_from_bool, 0), UN("boolToInt", text_bi_from_bool, 1),
    {"minBound", 0, text_bi_bound, 0}, {"maxBound", 0, text_bi_bound, 1},
    /* values and scalar structure */
    {"True", 0, text_bi_misc, BM_TRUE}, {"False", 0, text_bi_misc, BM_FALSE},
    {"pi", 0, text_bi_misc, BM_PI}, {"ignore", 0, text_bi_misc, BM_IGNORE},
    {"All", 0, text_bi_misc, BM_ALL},
    UN("fst", text_bi_field, BX_FST), UN("snd", text_bi_field, BX_SND),
    UN("afst", text_bi_field, BX_FST), UN("asnd", text_bi_field, BX_SND),
    OP("prj", text_bi_prj, 0), OP("!", text_bi_read, 0),
    OP("!!", text_bi_read_linear, 0), {"while", 3, text_bi_while, 0},
    {"foreign", 3, text_bi_foreign, 0}, {"foreignExp", 3, text_bi_foreign, 1},
    /* functions over functions, loops (builtins_fun.c) */
    {".", 3, text_bi_compose, 0}, OP("$", text_bi_apply, 0),
    {"iterate", 3, text_bi_iterate, 0}, {"sfoldl", 4, text_bi_sfoldl, 0},
    UN("shape", text_bi_misc, BM_SHAPE), UN("size", text_bi_misc, BM_SIZE),
    UN("the", text_bi_misc, BM_THE), UN("unit", text_bi_misc, BM_UNIT),
    UN("use", text_bi_misc, BM_USE),
    /* array operations */
    OP("generate", text_bi_array, BA_GENERATE),
    OP("fill", text_bi_array, BA_FILL), OP("map", text_bi_array, BA_MAP),
    {"backpermute", 3, text_bi_array, BA_BACKPERMUTE},
    OP("reshape", text_bi_array, BA_RESHAPE),
    {"expand", 3, text_bi_array, BA_EXPAND},
    {"zipWith", 3, text_bi_zipwith, 2}, {"zipWith3", 4, text_bi_zipwith, 3},
    {"zipWith4", 5, text_bi_zipwith, 4}, {"zipWith5", 6, text_bi_zipwith, 5},
    {"zipWith6", 7, text_bi_zipwith, 6}, {"zipWith7", 8, text_bi_zipwith, 7},
    {"zipWith8", 9, text_bi_zipwith, 8}, {"zipWith9", 10, text_bi_zipwith, 9},
    {"fold", 3, text_bi_fold, BF_FOLD}, OP("fold1", text_bi_fold, BF_FOLD1),
    {"foldSeg", 4, text_bi_fold, BF_FOLD_SEG},
    {"foldSeg'", 4, text_bi_fold, BF_FOLD_SEG_OFFSETS},
    {"fold1Seg", 3, text_bi_fold, BF_FOLD1_SEG},
    {"scanl", 3, text_bi_scan, ACC_SCANL},
    {"scanl'", 3, text_bi_scan, ACC_SCANL_PRIME},
    {"scanl1", 2, text_bi_scan, ACC_SCANL1},
    {"scanr", 3, text_bi_scan, ACC_SCANR},
    {"scanr'", 3, text_bi_scan, ACC_SCANR_PRIME},
    {"scanr1", 2, text_bi_scan, ACC_SCANR1},
    {"prescanl", 3, text_bi_scan, ACC_PRESCANL},
    {"postscanl", 3, text_bi_scan, ACC_POSTSCANL},
    {"prescanr", 3, text_bi_scan, ACC_PRESCANR},
    {"postscanr", 3, text_bi_scan, ACC_POSTSCANR},
    {"scanlSeg", 4, text_bi_scan, B_SEGMENTED + ACC_SCANL},
    {"scanl'Seg", 4, text_bi_scan, B_SEGMENTED + ACC_SCANL_PRIME},
    {"scanl1Seg", 3, text_bi_scan, B_SEGMENTED + ACC_SCANL1},
    {"scanrSeg", 4, text_bi_scan, B_SEGMENTED + ACC_SCANR},
    {"scanr'Seg", 4, text_bi_scan, B_SEGMENTED + ACC_SCANR_PRIME},
    {"scanr1Seg", 3, text_bi_scan, B_SEGMENTED + ACC_SCANR1},
    {"prescanlSeg", 4, text_bi_scan, B_SEGMENTED + ACC_PRESCANL},
    {"postscanlSeg", 4, text_bi_scan, B_SEGMENTED + ACC_POSTSCANL},
    {"prescanrSeg", 4, text_bi_scan, B_SEGMENTED + ACC_PRESCANR},
    {"postscanrSeg", 4, text_bi_scan, B_SEGMENTED + ACC_POSTSCANR},
    OP("replicate", text_bi_spec, BS_REPLICATE),
    OP("slice", text_bi_spec, BS_SLICE),
    {"permute", 4, text_bi_permute, BP_PERMUTE},
    {"permute'", 3, text_bi_permute, BP_PERMUTE_PAIRS},
    {"stencil", 3, text_bi_stencil, BT_STENCIL},
    {"stencil2", 5, text_bi_stencil, BT_STENCIL2},
    {"clamp", 0, text_bi_boundary, BB_CLAMP},
    {"mirror", 0, text_bi_boundary, BB_MIRROR},
    {"wrap", 0, text_bi_boundary, BB_WRAP},
    UN("function", text_bi_boundary, BB_FUNCTION),
    UN("constant", text_bi_boundary, BB_CONSTANT),
    {"acond", 3, text_bi_control, BC_ACOND},
    {"awhile", 3, text_bi_control, BC_AWHILE},
    /* standard library (LANGUAGE.md §3.1, §3.2) */
    UN("sum", text_bi_std, STD_SUM), UN("product", text_bi_std, STD_PRODUCT),
    UN("maximum", text_bi_std, STD_MAXIMUM),
    UN("minimum", text_bi_std, STD_MINIMUM), UN("and", text_bi_std, STD_AND),
    UN("or", text_bi_std, STD_OR), OP("all", text_bi_std, STD_ALL),
    OP("any", text_bi_std, STD_ANY), {"foldAll", 3, text_bi_std, STD_FOLD_ALL},
    OP("fold1All", text_bi_std, STD_FOLD1_ALL),
    UN("even", text_bi_std, STD_EVEN), UN("odd", text_bi_std, STD_ODD),
    OP("zip", text_bi_std, STD_ZIP), UN("unzip", text_bi_std, STD_UNZIP),
    /* zipN takes N arrays (its arity); unzipN checks its element has N
     * fields (the digit of its name) */
    {"zip3", 3, text_bi_std, STD_ZIP_N}, {"zip4", 4, text_bi_std, STD_ZIP_N},
    {"zip5", 5, text_bi_std, STD_ZIP_N}, {"zip6", 6, text_bi_std, STD_ZIP_N},
    {"zip7", 7, text_bi_std, STD_ZIP_N}, {"zip8", 8, text_bi_std, STD_ZIP_N},
    {"zip9", 9, text_bi_std, STD_ZIP_N},
    UN("unzip3", text_bi_std, STD_UNZIP_N), UN("unzip4", text_bi_std, STD_UNZIP_N),
    UN("unzip5", text_bi_std, STD_UNZIP_N), UN("unzip6", text_bi_std, STD_UNZIP_N),
    UN("unzip7", text_bi_std, STD_UNZIP_N), UN("unzip8", text_bi_std, STD_UNZIP_N),
    UN("unzip9", text_bi_std, STD_UNZIP_N), UN("length", text_bi_std, STD_LENGTH),
    UN("indexed", text_bi_std, STD_INDEXED),
    OP("enumFromN", text_bi_std, STD_ENUM_N),
    {"enumFromStepN", 3, text_bi_std, STD_ENUM_STEP_N},
    UN("reverse", text_bi_std, STD_REVERSE),
    UN("transpose", text_bi_std, STD_TRANSPOSE),
    UN("flatten", text_bi_std, STD_FLATTEN), OP("take", text_bi_std, STD_TAKE),
    OP("drop", text_bi_std, STD_DROP), UN("init", text_bi_std, STD_INIT),
    UN("tail", text_bi_std, STD_TAIL), {"slit", 3, text_bi_std, STD_SLIT},
    OP("++", text_bi_std, STD_CONCAT), OP("gather", text_bi_std, STD_GATHER),
    {"scatter", 3, text_bi_std, STD_SCATTER},
    OP("filter", text_bi_std, STD_FILTER),
    OP("compact", text_bi_std, STD_COMPACT),
    /* the text prelude's FFT, by rank (prelude.c) */
    UN("fft", text_bi_fft, 0), UN("ifft", text_bi_fft, 1),
};

const text_builtin *text_builtin_find(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

/* ---- argument helpers ------------------------------------------------------- */

text_core *text_mk(text_elab *el, text_ck k, text_type *type, text_pos pos,
                   size_t n, ...)
{
    text_core *items[12];
    va_list ap;
    va_start(ap, n);
    for (size_t i = 0; i < n && i < 12; i++)
        items[i] = va_arg(ap, text_core *);
    va_end(ap);
    return text_core_new(el, k, type, pos, n, items);
}

text_val *text_ret(text_elab *el, text_core *c)
{
    return text_val_core(el, c);
}

const char *text_arg_name(text_elab *el, const text_builtin *b, int i)
{
    static const char *const nth[] = {"first", "second", "third", "fourth",
                                      "fifth", "sixth", "seventh", "eighth",
                                      "ninth", "tenth"};
    char *s = text_alloc(el->st, 96);
    if (b->arity == 1)
        snprintf(s, 96, "the argument of '%s'", b->name);
    else
        snprintf(s, 96, "the %s argument of '%s'", nth[i < 10 ? i : 9],
                 b->name);
    return s;
}

text_core *text_arg(text_elab *el, const text_builtin *b, text_val **args,
                    int i, text_pos pos)
{
    return text_want_core(el, args[i], text_arg_name(el, b, i), pos);
}

text_core *text_arg_array(text_elab *el, const text_builtin *b,
                          text_val **args, int i, text_pos pos)
{
    text_core *c = text_arg(el, b, args, i, pos);
    if (text_ty_prune(c->type)->kind != TT_ARRAY)
        text_type_error(el, pos, "%s has type %s, expected an array",
                        text_arg_name(el, b, i),
                        text_ty_name(el->st, c->type));
    return c;
}

text_core *text_arg_typed(text_elab *el, const text_builtin *b,
                          text_val **args, int i, text_type *want,
                          text_pos pos)
{
    text_core *c = text_arg(el, b, args, i, pos);
    text_expect_type(el, c->type, want, text_arg_name(el, b, i), pos);
    return c;
}

int text_arg_shape(text_elab *el, const text_builtin *b, text_val **args,
                   int i, text_core **out, text_pos pos)
{
    text_core *c = text_arg(el, b, args, i, pos);
    text_type *t = text_ty_prune(c->type);
    if (t->kind != TT_SHAPE)
        text_type_error(el, pos, "%s has type %s, expected a shape [n, m, ...]",
                        text_arg_name(el, b, i), text_ty_name(el->st, t));
    *out = c;
    return t->rank;
}

text_core *text_arg_fun(text_elab *el, const text_builtin *b,
                        text_val **args, int i, size_t n, text_type **params,
                        text_type *result, text_pos pos)
{
    const char *what = text_arg_name(el, b, i);
    text_core *f = text_reify(el, args[i], n, params, what, pos);
    if (result) {
        char *w = text_alloc(el->st, 128);
        snprintf(w, 128, "the result of %s", what);
        text_expect_type(el, f->type, result, w, pos);
    }
    return f;
}

text_type *text_elem(text_core *xs)
{
    return text_ty_prune(xs->type)->elem;
}

int text_rank(text_core *xs)
{
    return text_ty_prune(xs->type)->rank;
}

void text_need_rank(text_elab *el, const text_builtin *b, text_core *xs,
                    int i, int min, text_pos pos)
{
    if (text_rank(xs) < min)
        text_type_error(el, pos, "%s has type %s, expected an array of rank "
                        "%d or more", text_arg_name(el, b, i),
                        text_ty_name(el->st, xs->type), min);
}

text_type *text_i64(text_elab *el)
{
    return text_ty_scalar(el->st, ACC_I64);
}

text_type *text_bool(text_elab *el)
{
    return text_ty_scalar(el->st, ACC_BOOL);
}
