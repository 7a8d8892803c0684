/*
 * text_builtins.h — helpers shared by the builtin functions of the text
 * language (builtins_scalar.c, builtins_array.c, builtins_std.c) and the
 * handlers the table in builtins.c lists.
 */
#ifndef ACC_CORE_TEXT_TEXT_BUILTINS_H
#define ACC_CORE_TEXT_TEXT_BUILTINS_H

#include "core/text/text_elab.h"

/* A core term of kind k with the n core arguments that follow. */
text_core *text_mk(text_elab *el, text_ck k, text_type *type, text_pos pos,
                   size_t n, ...);
text_val *text_ret(text_elab *el, text_core *c);
/* Argument i of builtin b as a core term ("the 2nd argument of fold"). */
text_core *text_arg(text_elab *el, const text_builtin *b, text_val **args,
                    int i, text_pos pos);
/* Argument i as an array term; its type is then TT_ARRAY. */
text_core *text_arg_array(text_elab *el, const text_builtin *b,
                          text_val **args, int i, text_pos pos);
/* Argument i unified with `want`. */
text_core *text_arg_typed(text_elab *el, const text_builtin *b,
                          text_val **args, int i, text_type *want,
                          text_pos pos);
/* Argument i as an index term; returns its rank. */
int text_arg_shape(text_elab *el, const text_builtin *b, text_val **args,
                   int i, text_core **out, text_pos pos);
/* "the 2nd argument of 'fold'" */
const char *text_arg_name(text_elab *el, const text_builtin *b, int i);
/* Argument i (a function) as a core lambda over params of the given
 * types; its body is unified with `result` when that is not NULL. */
text_core *text_arg_fun(text_elab *el, const text_builtin *b,
                        text_val **args, int i, size_t n, text_type **params,
                        text_type *result, text_pos pos);
/* The element type and rank of an array term. */
text_type *text_elem(text_core *xs);
int text_rank(text_core *xs);
/* Fails unless xs has at least `min` dimensions. */
void text_need_rank(text_elab *el, const text_builtin *b, text_core *xs,
                    int i, int min, text_pos pos);
text_type *text_i64(text_elab *el);
text_type *text_bool(text_elab *el);

/* Handlers (the op field of the builtin says which primitive). */
text_val *text_bi_binop(text_elab *, const text_builtin *, text_val **,
                        text_pos);
text_val *text_bi_compare(text_elab *, const text_builtin *, text_val **,
                          text_pos);
text_val *text_bi_shift(text_elab *, const text_builtin *, text_val **,
                        text_pos);
text_val *text_bi_unop(text_elab *, const text_builtin *, text_val **,
                       text_pos);
text_val *text_bi_round(text_elab *, const text_builtin *, text_val **,
                        text_pos);
text_val *text_bi_convert(text_elab *, const text_builtin *, text_val **,
                          text_pos);
text_val *text_bi_from_integral(text_elab *, const text_builtin *,
                                text_val **, text_pos);
text_val *text_bi_from_bool(text_elab *, const text_builtin *, text_val **,
                            text_pos);
text_val *text_bi_bound(text_elab *, const text_builtin *, text_val **,
                        text_pos);
text_val *text_bi_to_floating(text_elab *, const text_builtin *, text_val **,
                              text_pos);
text_val *text_bi_field(text_elab *, const text_builtin *, text_val **,
                        text_pos);
text_val *text_bi_prj(text_elab *, const text_builtin *, text_val **,
                      text_pos);
text_val *text_bi_read(text_elab *, const text_builtin *, text_val **,
                       text_pos);
text_val *text_bi_read_linear(text_elab *, const text_builtin *, text_val **,
                              text_pos);
text_val *text_bi_while(text_elab *, const text_builtin *, text_val **,
                        text_pos);
text_val *text_bi_foreign(text_elab *, const text_builtin *, text_val **,
                          text_pos);
text_val *text_bi_misc(text_elab *, const text_builtin *, text_val **,
                       text_pos);

text_val *text_bi_array(text_elab *, const text_builtin *, text_val **,
                        text_pos);
text_val *text_bi_zipwith(text_elab *, const text_builtin *, text_val **,
                          text_pos);
text_val *text_bi_fold(text_elab *, const text_builtin *, text_val **,
                       text_pos);
text_val *text_bi_scan(text_elab *, const text_builtin *, text_val **,
                       text_pos);
text_val *text_bi_spec(text_elab *, const text_builtin *, text_val **,
                       text_pos);
text_val *text_bi_permute(text_elab *, const text_builtin *, text_val **,
                          text_pos);
text_val *text_bi_stencil(text_elab *, const text_builtin *, text_val **,
                          text_pos);
text_val *text_bi_boundary(text_elab *, const text_builtin *, text_val **,
                           text_pos);
text_val *text_bi_control(text_elab *, const text_builtin *, text_val **,
                          text_pos);
text_val *text_bi_fft(text_elab *, const text_builtin *, text_val **,
                      text_pos);
text_val *text_bi_std(text_elab *, const text_builtin *, text_val **,
                      text_pos);
/* builtins_fun.c: (.), ($), iterate, sfoldl */
text_val *text_bi_compose(text_elab *, const text_builtin *, text_val **,
                          text_pos);
text_val *text_bi_apply(text_elab *, const text_builtin *, text_val **,
                        text_pos);
text_val *text_bi_iterate(text_elab *, const text_builtin *, text_val **,
                          text_pos);
text_val *text_bi_sfoldl(text_elab *, const text_builtin *, text_val **,
                         text_pos);

/* Sub-codes in `op` for the handlers that serve several names. */
enum {
    /* text_bi_misc */
    BM_TRUE, BM_FALSE, BM_PI, BM_IGNORE, BM_ALL, BM_SHAPE, BM_SIZE, BM_THE,
    BM_UNIT, BM_USE,
    /* text_bi_array */
    BA_GENERATE, BA_FILL, BA_MAP, BA_BACKPERMUTE, BA_RESHAPE, BA_EXPAND,
    /* text_bi_fold */
    BF_FOLD, BF_FOLD1, BF_FOLD_SEG, BF_FOLD_SEG_OFFSETS, BF_FOLD1_SEG,
    /* text_bi_spec */
    BS_REPLICATE, BS_SLICE,
    /* text_bi_permute */
    BP_PERMUTE, BP_PERMUTE_PAIRS,
    /* text_bi_stencil */
    BT_STENCIL, BT_STENCIL2,
    /* text_bi_boundary */
    BB_CLAMP, BB_MIRROR, BB_WRAP, BB_FUNCTION, BB_CONSTANT,
    /* text_bi_control */
    BC_ACOND, BC_AWHILE,
    /* text_bi_field */
    BX_FST, BX_SND,
    /* scans: the acc_scan_kind plus this when segmented */
    B_SEGMENTED = 100
};

#endif
