/*
 * test_calls.c — the C calls of the Julia binding (bindings/julia/
 * Accel), made from C exactly as the package makes them.
 *
 * Julia cannot run where accel is built (it is not packaged for Debian 12),
 * so bindings.julia.capi checks the package's declarations against accel.h
 * and this test checks, from C, the call sequences and conventions the
 * package's code depends on (each test names the Julia function it
 * stands for):
 *  - options initialised by acc_context_options_init_sized with the
 *    mirror's size, then the fields Context() offers set (context.jl);
 *  - a column-major Julia array given as the row-major array of reversed
 *    extents, no copy; results read back the same way (arrays.jl, the
 *    README's layout section);
 *  - outputs from descriptors with nothing set but struct_size, kept and
 *    released through a copy of the descriptor (wrap_output, release!);
 *  - the status name asked before the thread's last message does not
 *    change that message (errors.jl: AccelError(status));
 *  - results handed over as DLPack tensors and taken back, and Julia
 *    arrays described as tensors (dlpack.jl);
 *  - programs built the way builder.jl builds them: lambda parameters of
 *    the element type read off the argument's node type, a stencil's
 *    neighbourhood as nested tuple types made in the context, permute's
 *    index function returning a one-component index (the §4 blur and
 *    histogram), checked against plain C.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "support.h"

/* arrays.jl: descriptor() — every field spelled out, the extents of the
 * Julia size (d1, ..., dN) reversed. */
static acc_array julia_descriptor(const acc_type *elem, int32_t rank,
                                  const int64_t *julia_dims, void *buffer)
{
    acc_array a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.type = elem;
    a.rank = rank;
    for (int32_t k = 0; k < rank; k++)
        a.extents[k] = julia_dims[rank - 1 - k];
    a.data[0] = buffer;
    a.memory = ACC_MEMORY_HOST;
    a.device = 0;
    a.ownership = ACC_OWNERSHIP_BORROWED;
    return a;
}

/* arrays.jl: empty_descriptor(). */
static acc_array julia_empty_output(void)
{
    acc_array a;
    memset(&a, 0, sizeof a);
    a.struct_size = sizeof a;
    a.memory = ACC_MEMORY_HOST;
    a.ownership = ACC_OWNERSHIP_BORROWED;
    return a;
}

/* context.jl: Context(; backend=:interp) — Ref{acc_context_options}()
 * (uninitialised), the sized init, then every field Context() offers. */
static acc_context *julia_context(void)
{
    acc_context_options o;
    memset(&o, 0xAB, sizeof o); /* no field may be left to chance */
    cr_assert_eq(acc_context_options_init_sized(&o, sizeof o), ACC_OK, "%s",
                 acc_last_error());
    cr_assert_eq(o.struct_size, sizeof o);
    o.backend = ACC_BACKEND_INTERP;
    o.num_threads = 0;
    o.cache_dir = NULL;
    o.cuda_device = 0;
    o.run_deadline_seconds = 0.0;
    o.plugins = NULL;
    o.fp_contract = 0;
    acc_context *ctx = NULL;
    acc_status st = acc_context_create(&o, &ctx);
    cr_assert_eq(st, ACC_OK, "acc_context_create: %s", acc_last_error());
    return ctx;
}

static acc_program *julia_program(acc_context *ctx, const char *source)
{
    acc_program *p = NULL;
    acc_status st = acc_compile_text(ctx, source, strlen(source), NULL, &p);
    cr_assert_eq(st, ACC_OK, "acc_compile_text: %s", acc_last_error());
    return p;
}

Test(julia_calls, options_filled_by_hand_make_the_context_asked_for)
{
    acc_context *ctx = julia_context();
    acc_backend b = ACC_BACKEND_AUTO;
    cr_assert_eq(acc_context_backend(ctx, &b), ACC_OK);
    cr_assert_eq(b, ACC_BACKEND_INTERP);
    acc_context_destroy(ctx);
}

/* A Julia 3x4 Int64 matrix M (column-major: M[i, j] at i-1 + 3(j-1)) is
 * accel's [4, 3] matrix: program row r is Julia column r+1. */
Test(julia_calls, a_julia_matrix_is_its_transpose_to_a_matrix_program)
{
    acc_context *ctx = julia_context();
    acc_program *rows = julia_program(
        ctx, "rowsums (m : Matrix i64) : Vector i64 = fold (+) 0 m");
    int64_t m[12];
    for (int64_t j = 1; j <= 4; j++)
        for (int64_t i = 1; i <= 3; i++)
            m[(i - 1) + 3 * (j - 1)] = 10 * i + j; /* M[i, j] */
    int64_t dims[2] = {3, 4};
    acc_array in = julia_descriptor(acc_type_scalar(ACC_I64), 2, dims, m);
    cr_assert_eq(in.extents[0], 4);
    cr_assert_eq(in.extents[1], 3);
    acc_array out = julia_empty_output();
    cr_assert_eq(acc_run(rows, 1, &in, 1, &out), ACC_OK, "%s", acc_last_error());
    cr_assert_eq(out.rank, 1);
    cr_assert_eq(out.extents[0], 4);
    const int64_t *sums = out.data[0];
    for (int64_t j = 1; j <= 4; j++) { /* sum(M; dims=1)[j] */
        int64_t want = 0;
        for (int64_t i = 1; i <= 3; i++)
            want += m[(i - 1) + 3 * (j - 1)];
        cr_assert_eq(sums[j - 1], want, "column %ld", (long)j);
    }
    acc_array_release(&out);
    acc_program_free(rows);

    /* generate [2, 3] comes back as a Julia 3x2 matrix G with
     * G[c+1, r+1] = program element [r, c] = 10r + c. */
    acc_program *gen = julia_program(
        ctx, "gen (r : i64) (c : i64) : Matrix i64 = "
             "generate [r, c] (\\[i, j] -> 10 * i + j)");
    int64_t r = 2, c = 3;
    acc_array args[2] = {
        julia_descriptor(acc_type_scalar(ACC_I64), 0, NULL, &r),
        julia_descriptor(acc_type_scalar(ACC_I64), 0, NULL, &c)};
    out = julia_empty_output();
    cr_assert_eq(acc_run(gen, 2, args, 1, &out), ACC_OK, "%s", acc_last_error());
    cr_assert_eq(out.rank, 2);
    int64_t julia_size[2] = {out.extents[1], out.extents[0]}; /* reversed */
    cr_assert_eq(julia_size[0], 3);
    cr_assert_eq(julia_size[1], 2);
    const int64_t *g = out.data[0];
    for (int64_t gr = 0; gr < 2; gr++)
        for (int64_t gc = 0; gc < 3; gc++) /* G[gc+1, gr+1], column-major */
            cr_assert_eq(g[gc + 3 * gr], 10 * gr + gc);
    acc_array_release(&out);
    acc_program_free(gen);
    acc_context_destroy(ctx);
}

/* wrap_output keeps a copy of the descriptor (a Ref) and releases that copy
 * once every Julia array over its buffers is collected; a tuple element
 * type gives one buffer per leaf, released together. */
Test(julia_calls, outputs_are_released_through_a_copy_of_their_descriptor)
{
    acc_context *ctx = julia_context();
    acc_program *p = julia_program(
        ctx, "split (xs : Vector (i32, f64)) : Vector (i32, f64) = "
             "map (\\(a, b) -> (a * 2, b + 1.0)) xs");
    int32_t a[3] = {1, 2, 3};
    double b[3] = {0.5, 1.5, 2.5};
    const acc_type *fields[2] = {acc_type_scalar(ACC_I32), acc_type_scalar(ACC_F64)};
    const acc_type *pair = acc_type_tuple(ctx, 2, fields);
    cr_assert_not_null(pair);
    int64_t n = 3;
    acc_array in = julia_descriptor(pair, 1, &n, a);
    in.data[1] = b;
    acc_array out = julia_empty_output();
    cr_assert_eq(acc_run(p, 1, &in, 1, &out), ACC_OK, "%s", acc_last_error());
    acc_program_free(p); /* results outlive their program */
    acc_array kept = out;  /* the Ref that wrap_output keeps */
    memset(&out, 0, sizeof out);
    cr_assert_eq(kept.ownership, ACC_OWNERSHIP_LIBRARY);
    const int32_t *a2 = kept.data[0];
    const double *b2 = kept.data[1];
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(a2[i], 2 * a[i]);
        cr_assert_eq(b2[i], b[i] + 1.0);
    }
    acc_array_release(&kept); /* LeakSanitizer: both buffers freed */
    cr_assert_null(kept.data[0]);
    cr_assert_null(kept.data[1]);
    acc_context_destroy(ctx);
}

/* errors.jl builds AccelError(status) by asking acc_status_string first and
 * acc_last_error second: the first must not disturb the second. */
Test(julia_calls, the_status_name_does_not_change_the_last_error)
{
    acc_context *ctx = julia_context();
    acc_program *p = NULL;
    const char *bad = "bad (xs : Vector f32) : Vector f32 = map (\\x -> ) xs";
    acc_status st = acc_compile_text(ctx, bad, strlen(bad), NULL, &p);
    cr_assert_eq(st, ACC_ERR_PARSE);
    cr_assert_null(p);
    char before[512];
    snprintf(before, sizeof before, "%s", acc_last_error());
    cr_assert_str_eq(acc_status_string(st), "ACC_ERR_PARSE");
    cr_assert_str_eq(acc_backend_name(ACC_BACKEND_CPU), "cpu");
    cr_assert_str_eq(acc_last_error(), before);
    int line = 0, column = 0;
    cr_assert_eq(sscanf(before, "%d:%d: ", &line, &column), 2, "%s", before);

    /* A run that fails: its message, not an older one. */
    acc_program *r = julia_program(
        ctx, "r (xs : Vector i64) : Matrix i64 = reshape [2, 2] xs");
    int64_t xs[3] = {1, 2, 3}, n = 3;
    acc_array in = julia_descriptor(acc_type_scalar(ACC_I64), 1, &n, xs);
    acc_array out = julia_empty_output();
    st = acc_run(r, 1, &in, 1, &out);
    cr_assert_eq(st, ACC_ERR_SHAPE);
    cr_assert_null(out.data[0]);
    cr_assert_str_eq(acc_status_string(st), "ACC_ERR_SHAPE");
    cr_assert(strstr(acc_last_error(), "reshape") != NULL, "%s", acc_last_error());
    acc_program_free(r);
    acc_context_destroy(ctx);
}

/* dlpack.jl: run_dlpack hands library-owned results over as tensors (the
 * descriptor is emptied); from_dlpack takes a tensor back with no copy and
 * its release calls the deleter; run_dlpack's error path gives a tensor
 * back the same way. */
Test(julia_calls, results_cross_as_dlpack_tensors_and_come_back)
{
    acc_context *ctx = julia_context();
    acc_program *sq = julia_program(
        ctx, "sq (xs : Matrix f64) : Matrix f64 = map (\\x -> x * x) xs");
    double x[6] = {1, 4, 2, 5, 3, 6}; /* Julia [1 2 3; 4 5 6], column-major */
    int64_t dims[2] = {2, 3};
    for (int versioned = 0; versioned <= 1; versioned++) {
        acc_array in = julia_descriptor(acc_type_scalar(ACC_F64), 2, dims, x);
        acc_array out = julia_empty_output();
        cr_assert_eq(acc_run(sq, 1, &in, 1, &out), ACC_OK, "%s", acc_last_error());
        void *buffer = out.data[0];
        acc_array back = julia_empty_output();
        if (versioned) {
            acc_dl_managed_tensor_versioned *t = NULL;
            cr_assert_eq(acc_array_to_dlpack_versioned(&out, &t), ACC_OK);
            cr_assert_eq(t->dl_tensor.ndim, 2);
            cr_assert_eq(t->dl_tensor.shape[0], 3); /* accel's [3, 2] */
            cr_assert_eq(t->dl_tensor.shape[1], 2);
            cr_assert_eq(acc_array_from_dlpack_versioned(t, &back), ACC_OK);
        } else {
            acc_dl_managed_tensor *t = NULL;
            cr_assert_eq(acc_array_to_dlpack(&out, &t), ACC_OK);
            cr_assert_eq(t->dl_tensor.dtype.code, ACC_DL_FLOAT);
            cr_assert_eq(t->dl_tensor.dtype.bits, 64);
            cr_assert_eq(acc_array_from_dlpack(t, &back), ACC_OK);
        }
        cr_assert_null(out.data[0]); /* moved into the tensor */
        cr_assert_eq(back.data[0], buffer, "no copy either way");
        cr_assert_eq(acc_type_get_scalar(back.type), ACC_F64);
        cr_assert_eq(back.rank, 2);
        cr_assert_eq(back.extents[0], 3);
        cr_assert_eq(back.extents[1], 2);
        const double *y = back.data[0];
        for (int i = 0; i < 6; i++)
            cr_assert_eq(y[i], x[i] * x[i]);
        acc_array_release(&back); /* the deleter: LeakSanitizer checks it */
    }
    acc_program_free(sq);
    acc_context_destroy(ctx);
}

/* dlpack.jl: unsafe_to_dlpack describes a Julia array (borrowed) as a
 * tensor; taking it back and releasing it frees the tensor, never the
 * array's memory. */
Test(julia_calls, a_borrowed_array_as_a_tensor_leaves_its_memory_alone)
{
    double *x = malloc(6 * sizeof *x);
    cr_assert_not_null(x);
    for (int i = 0; i < 6; i++)
        x[i] = i + 0.5;
    int64_t dims[2] = {2, 3};
    for (int versioned = 0; versioned <= 1; versioned++) {
        acc_array d = julia_descriptor(acc_type_scalar(ACC_F64), 2, dims, x);
        acc_array back = julia_empty_output();
        if (versioned) {
            acc_dl_managed_tensor_versioned *t = NULL;
            cr_assert_eq(acc_array_to_dlpack_versioned(&d, &t), ACC_OK);
            cr_assert_eq(acc_array_from_dlpack_versioned(t, &back), ACC_OK);
        } else {
            acc_dl_managed_tensor *t = NULL;
            cr_assert_eq(acc_array_to_dlpack(&d, &t), ACC_OK);
            cr_assert_eq(acc_array_from_dlpack(t, &back), ACC_OK);
        }
        cr_assert_eq(d.data[0], (void *)x, "a borrowed array stays the caller's");
        cr_assert_eq(back.data[0], (void *)x);
        cr_assert_eq(back.extents[0], 3);
        cr_assert_eq(back.extents[1], 2);
        acc_array_release(&back);
    }
    for (int i = 0; i < 6; i++) /* ASan: still ours, still readable */
        cr_assert_eq(x[i], i + 0.5);
    free(x);
}

/* ---- programs built as builder.jl builds them ---------------------------- */

/* builder.jl: lambda(b, f, types) — one acc_param per type, then the body. */
static acc_node *param(acc_graph *g, const acc_type *t)
{
    acc_node *p = acc_param(g, t);
    cr_assert_not_null(p, "%s", acc_graph_last_error(g));
    return p;
}

/* elem_type(b, xs): the element type read off the node's array type. */
static const acc_type *elem_of(const acc_node *xs)
{
    return acc_type_get_elem(acc_node_type(xs));
}

/* Julia's built_blur: stencil(:clamp, img) do nb; (a, b, c), (d, e, f),
 * (g, h, i) = nb; (a + 2b + c + 2d + 4e + 2f + g + 2h + i) / 16; end —
 * the neighbourhood type made by neighbourhood_type (acc_type_tuple in the
 * context), the destructuring by acc_get, Julia's numbers as constants of
 * the element type (constant()). */
static acc_node *julia_blur(acc_context *ctx, acc_graph *g, acc_node *img)
{
    const acc_type *el = elem_of(img);
    const acc_type *row_fields[3] = {el, el, el};
    const acc_type *row = acc_type_tuple(ctx, 3, row_fields);
    const acc_type *nb_fields[3] = {row, row, row};
    const acc_type *nb_type = acc_type_tuple(ctx, 3, nb_fields);
    cr_assert_not_null(nb_type);
    acc_node *nb = param(g, nb_type);
    static const double w[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
    acc_node *sum = NULL;
    for (size_t r = 0; r < 3; r++) {
        acc_node *rw = acc_get(g, nb, r);
        for (size_t c = 0; c < 3; c++) {
            acc_node *v = acc_get(g, rw, c);
            if (w[r][c] != 1)
                v = acc_binop(g, ACC_OP_MUL,
                              acc_const_f64(g, acc_type_get_scalar(el), w[r][c]), v);
            sum = sum ? acc_binop(g, ACC_OP_ADD, sum, v) : v;
        }
    }
    acc_node *body = acc_binop(g, ACC_OP_FDIV, sum,
                               acc_const_f64(g, acc_type_get_scalar(el), 16));
    acc_node *f = acc_lambda(g, 1, &nb, body);
    int32_t widths[2] = {3, 3};
    return acc_stencil(g, f, widths, ACC_BOUNDARY_CLAMP, NULL, img);
}

Test(julia_calls, blur_built_as_builder_jl_builds_it)
{
    acc_context *ctx = julia_context();
    acc_graph *g = ts_graph(ctx);
    acc_node *img = acc_input(g, acc_type_scalar(ACC_F32), 2);
    acc_node *out_node = julia_blur(ctx, g, img);
    cr_assert_not_null(out_node, "%s", acc_graph_last_error(g));
    acc_program *p = NULL;
    cr_assert_eq(acc_compile(ctx, g, 1, &out_node, &p), ACC_OK, "%s", acc_last_error());
    acc_graph_free(g);

    enum { JR = 7, JC = 5 }; /* a Julia 7x5 matrix: accel's 5 rows of 7 */
    float m[JR * JC];
    for (int k = 0; k < JR * JC; k++)
        m[k] = (float)((k * 7) % 17 - 8);
    int64_t dims[2] = {JR, JC};
    acc_array in = julia_descriptor(acc_type_scalar(ACC_F32), 2, dims, m);
    acc_array out = julia_empty_output();
    cr_assert_eq(acc_run(p, 1, &in, 1, &out), ACC_OK, "%s", acc_last_error());
    const float *o = out.data[0];
    /* runtests.jl's ref_blur: accel's [r, c] is m[c + JR * r]. */
    for (int r = 0; r < JC; r++)
        for (int c = 0; c < JR; c++) {
            static const float w[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
            float s = 0;
            for (int dr = -1; dr <= 1; dr++)
                for (int dc = -1; dc <= 1; dc++) {
                    int rr = r + dr < 0 ? 0 : r + dr >= JC ? JC - 1 : r + dr;
                    int cc = c + dc < 0 ? 0 : c + dc >= JR ? JR - 1 : c + dc;
                    s += w[dr + 1][dc + 1] * m[cc + JR * rr];
                }
            cr_assert_float_eq(o[c + JR * r], s / 16, 1e-5, "[%d, %d]", r, c);
        }
    acc_array_release(&out);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* Julia's built_histogram: permute(+, fill(Int32(0), index(the(k))),
 * ix -> (cast(Int64, at(xs, ix)),), map(_ -> Int32(1), xs)) — a rank-0
 * input from a number, the index function's parameter of the shape type of
 * xs's rank, its tuple result made an index (index_result). */
Test(julia_calls, histogram_built_as_builder_jl_builds_it)
{
    acc_context *ctx = julia_context();
    acc_graph *g = ts_graph(ctx);
    acc_node *k = acc_input(g, acc_type_scalar(ACC_I64), 0);
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_I32), 1);
    acc_node *kv = acc_the(g, k);
    acc_node *defaults = acc_fill(g, acc_index(g, 1, &kv), acc_const_i64(g, ACC_I32, 0));
    acc_node *one_p = param(g, elem_of(xs));
    acc_node *ones = acc_map(g, acc_lambda(g, 1, &one_p, acc_const_i64(g, ACC_I32, 1)), xs);
    acc_node *ix = param(g, acc_type_shape(acc_type_get_rank(acc_node_type(xs))));
    acc_node *target = acc_convert(g, acc_read(g, xs, ix), ACC_I64);
    acc_node *pf = acc_lambda(g, 1, &ix, acc_index(g, 1, &target));
    acc_node *a = param(g, elem_of(defaults));
    acc_node *b = param(g, elem_of(defaults));
    acc_node *ab[2] = {a, b};
    acc_node *plus = acc_lambda(g, 2, ab, acc_binop(g, ACC_OP_ADD, a, b));
    acc_node *hist = acc_permute(g, plus, defaults, pf, ones);
    cr_assert_not_null(hist, "%s", acc_graph_last_error(g));
    acc_program *p = NULL;
    cr_assert_eq(acc_compile(ctx, g, 1, &hist, &p), ACC_OK, "%s", acc_last_error());
    acc_graph_free(g);

    int32_t data[40];
    for (int i = 0; i < 40; i++)
        data[i] = (i * 5 + i / 3) % 11;
    int64_t nbins = 11, n = 40;
    acc_array in[2] = {
        julia_descriptor(acc_type_scalar(ACC_I64), 0, NULL, &nbins),
        julia_descriptor(acc_type_scalar(ACC_I32), 1, &n, data)};
    acc_array out = julia_empty_output();
    cr_assert_eq(acc_run(p, 2, in, 1, &out), ACC_OK, "%s", acc_last_error());
    cr_assert_eq(out.extents[0], nbins);
    int32_t want[11] = {0};
    for (int i = 0; i < 40; i++)
        want[data[i]]++;
    const int32_t *got = out.data[0];
    for (int i = 0; i < 11; i++)
        cr_assert_eq(got[i], want[i], "bin %d", i);
    acc_array_release(&out);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* builder.jl: made() turns a NULL node into an AccelError carrying
 * acc_graph_status and acc_graph_last_error (runtests.jl expects
 * ACC_ERR_TYPE for map(*, xs::Vector{Float32}, ys::Vector{Int32})), and
 * build() frees the graph and compiles nothing. */
Test(julia_calls, a_builder_error_is_the_graphs_status_and_message)
{
    acc_context *ctx = julia_context();
    acc_graph *g = ts_graph(ctx);
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_F32), 1);
    acc_node *ys = acc_input(g, acc_type_scalar(ACC_I32), 1);
    acc_node *a = param(g, elem_of(xs));
    acc_node *b = param(g, elem_of(ys));
    cr_assert_null(acc_binop(g, ACC_OP_MUL, a, b));
    cr_assert_eq(acc_graph_status(g), ACC_ERR_TYPE);
    cr_assert(strlen(acc_graph_last_error(g)) > 0);
    acc_graph_free(g);
    acc_context_destroy(ctx);
}
