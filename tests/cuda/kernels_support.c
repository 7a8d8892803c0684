/*
 * kernels_support.c — the fixture and checks shared by the tests of the
 * CUDA code generator without a device (kernels_support.h): NVRTC and the
 * interpreter's context, the entry points each kind of kernel defines,
 * what each kind's source must contain, and the NVRTC compilation of
 * every step with a CUDA skeleton.  Linked into every
 * tests/cuda/test_cuda_kernels*.c (cmake/AccelCuda.cmake); it is no test
 * of its own.
 */
#include "kernels_support.h"

#include <criterion/criterion.h>

#include "core/backend/cuda/nvrtc.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cuda_nvrtc nvrtc;
acc_context *ctx;

/* cg_cuda_kernel's answer as these tests read it: 1 built, 0 no kernel
 * (why: the reason), -1 an error (why: its message). */
int cuda_kernel(const ir_program *ir, const ir_node *n, cg_kernel *k,
                char *why, size_t size)
{
    cg_outcome o;
    diag d;
    diag_clear(&d);
    if (cg_cuda_kernel(ir, n, k, &o, &d) != ACC_OK) {
        snprintf(why, size, "%.*s", (int)size - 1, d.message);
        return -1;
    }
    snprintf(why, size, "%s", o.built ? "" : o.why_not);
    return o.built;
}

void kernels_setup(void)
{
    diag why;
    diag_clear(&why);
    if (cuda_load_nvrtc(&nvrtc, &why) != ACC_OK)
        cr_skip_test("NVRTC is not installed here (%s); nothing to check",
                     why.message);
    ctx = ts_context(ACC_BACKEND_INTERP);
}

void kernels_teardown(void)
{
    if (ctx)
        acc_context_destroy(ctx);
    ctx = NULL;
    cuda_unload_nvrtc(&nvrtc);
}

enum { MAX_KINDS = 10, MAX_ENTRIES = 8 };

/* The entry points each kind of kernel defines (docs/CUDA.md). */
static const char *const expected_entries[MAX_KINDS][MAX_ENTRIES] = {
    [CG_KERNEL_GENERATE] = {"accel_generate"},
    [CG_KERNEL_FOLD] = {"accel_fold_rows", "accel_fold_part",
                        "accel_fold_finish"},
    [CG_KERNEL_FOLD_SEG] = {"accel_fold_seg_warp", "accel_fold_seg_thread",
                            "accel_fold_seg_tail"},
    [CG_KERNEL_SCAN] = {"accel_scan_rows", "accel_scan_part",
                        "accel_scan_finish", "accel_scan_block",
                        "accel_scan_thread"},
    [CG_KERNEL_SCAN_SEG] = {"accel_scan_seg_warp", "accel_scan_seg_thread"},
    [CG_KERNEL_STENCIL] = {"accel_stencil_interior", "accel_stencil_border",
                           "accel_stencil_checks"},
    [CG_KERNEL_PERMUTE] = {"accel_permute_defaults", "accel_permute_map",
                           "accel_permute_source", "accel_permute_private"},
    [CG_KERNEL_PERMUTE_EXPAND] = {"accel_permute_defaults",
                                  "accel_permute_map", "accel_expand_sizes",
                                  "accel_expand_scan", "accel_expand_offsets",
                                  "accel_expand_threads",
                                  "accel_expand_blocks"},
    [CG_KERNEL_EXPAND] = {"accel_expand_sizes", "accel_expand_scan",
                          "accel_expand_offsets", "accel_expand_threads",
                          "accel_expand_blocks"},
};

int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *t = strstr(text, what); t; t = strstr(t + 1, what))
        n++;
    return n;
}

/* The PTX code of entry `name` (up to the next entry). */
static const char *entry_body(const char *ptx, const char *name, size_t *len)
{
    char want[96];
    snprintf(want, sizeof want, ".entry %s(", name);
    const char *b = strstr(ptx, want);
    const char *e = b ? strstr(b + 1, ".entry ") : NULL;
    *len = b ? (e ? (size_t)(e - b) : strlen(b)) : 0;
    return b;
}

/* The text of the function or PTX entry that `head` begins, up to its
 * closing brace at the start of a line (NULL when absent; free it). */
char *body_of(const char *text, const char *head)
{
    const char *b = strstr(text, head);
    const char *e = b ? strstr(b, "\n}") : NULL;
    return e ? strndup(b, (size_t)(e - b)) : NULL;
}

/* In the compiled code too, a stencil's interior kernel calls nothing (in
 * particular not acc_read0/1, which stay out of line), and its border
 * kernel calls acc_read0/1 when its source does. */
static void check_stencil_ptx(const char *ptx, const char *src,
                              const char *name)
{
    char *in = body_of(ptx, ".entry accel_stencil_interior(");
    char *bo = body_of(ptx, ".entry accel_stencil_border(");
    char *bsrc = body_of(src, "ACC_FN int acc_border(");
    cr_assert(in && bo && bsrc, "%s: the interior and border entries", name);
    cr_expect_eq(count_of(in, "call.uni"), 0, "%s: the interior calls", name);
    cr_expect_eq(count_of(in, "acc_read"), 0, "%s", name);
    cr_expect_eq(count_of(bo, "acc_read") > 0, count_of(bsrc, "acc_read") > 0,
                 "%s: the border reads through acc_read0/1", name);
    free(in);
    free(bo);
    free(bsrc);
}

/* The PTX defines exactly the kind's entry points, and the launch
 * contract's table says what they are: their names, their parameters,
 * which ones shuffle (and so need blocks of whole warps). */
static void check_entries(const char *ptx, cg_kind kind, const char *name)
{
    char want[96];
    int n = 0;
    for (; n < MAX_ENTRIES && expected_entries[kind][n]; n++) {
        snprintf(want, sizeof want, ".entry %s(", expected_entries[kind][n]);
        cr_expect(strstr(ptx, want) != NULL, "%s: %s", name, want);
    }
    cr_expect_eq(count_of(ptx, ".entry "), n, "%s: %d entry points", name, n);
    for (int id = 0; id < CG_CUDA_N_ENTRIES; id++) {
        const cg_cuda_entry *e = cg_cuda_entry_of((cg_cuda_entry_id)id);
        size_t len;
        if (e->kind != kind)
            continue;
        const char *body = entry_body(ptx, e->name, &len);
        cr_assert_not_null(body, "%s: %s", name, e->name);
        char *code = strndup(body, len);
        cr_expect_eq(strstr(code, "shfl.sync") != NULL, e->warp_blocks,
                     "%s: %s %s", name, e->name,
                     e->warp_blocks ? "shuffles" : "does not shuffle");
        free(code);
        snprintf(want, sizeof want, "%s_param_1", e->name);
        cr_expect_eq(strstr(ptx, want) != NULL, e->int64_arg != NULL,
                     "%s: %s has %s second parameter", name, e->name,
                     e->int64_arg ? "a" : "no");
    }
}

static void compile_both(const char *src, cg_kind kind, const char *name)
{
    static const cuda_target targets[2] = {CUDA_TARGET_CUBIN,
                                           CUDA_TARGET_PTX};
    for (int t = 0; t < 2; t++) {
        cuda_image image;
        int ok = cuda_compile(&nvrtc, src, name, 90, targets[t], &image);
        if (!ok || image.log[0])
            fprintf(stderr, "---- %s ----\n%s\n", name, src);
        cr_assert(ok, "%s (%s): NVRTC failed:\n%s", name,
                  t ? "compute_90" : "sm_90", image.log);
        cr_expect_str_empty(image.log, "%s (%s): warnings:\n%s", name,
                            t ? "compute_90" : "sm_90", image.log);
        if (targets[t] == CUDA_TARGET_CUBIN) {
            cr_expect(image.size > 4 && memcmp(image.bytes, "\x7f" "ELF", 4) == 0,
                      "%s: a cubin is ELF", name);
        } else {
            cr_expect(strstr(image.bytes, ".target sm_90") != NULL, "%s", name);
            check_entries(image.bytes, kind, name);
            if (kind == CG_KERNEL_STENCIL)
                check_stencil_ptx(image.bytes, src, name);
        }
        cuda_image_free(&image);
    }
}

/* A stencil's interior code has no bounds check and no boundary logic;
 * only the border resolves neighbours (acc_read0/1, acc_resolve).  The
 * sides follow the arrays the scalar code reads. */
static void check_stencil_source(const cg_kernel *k)
{
    char want[64];
    char *in = body_of(k->source, "ACC_FN int acc_interior(");
    char *bo = body_of(k->source, "ACC_FN int acc_border(");
    cr_assert(in && bo, "acc_interior and acc_border");
    cr_expect_eq(count_of(in, "acc_read"), 0, "%s", in);
    cr_expect_eq(count_of(in, "acc_resolve"), 0, "%s", in);
    cr_expect_eq(count_of(in, "acc_fix_coord"), 0, "%s", in);
    cr_expect_eq(count_of(in, "acc_outside"), 0, "%s", in);
    cr_expect_eq(count_of(bo, "acc_elem"), 0, "the border resolves first");
    snprintf(want, sizeof want, "#define ACC_SRC %zu\n", k->n_arrays);
    cr_expect(strstr(k->source, want) != NULL, "%s", want);
    free(in);
    free(bo);
}

void expect_define(const cg_kernel *k, const char *macro, int value,
                   const char *entry)
{
    char want[64];
    snprintf(want, sizeof want, "#define %s %d\n", macro, value);
    cr_expect(strstr(k->source, want) != NULL, "%s: %s", entry, want);
}

/* Permute, permute' over an expand, expand: the expansion is there
 * exactly when there is one, with the host's constants. */
static void check_permute_source(const cg_kernel *k, const ir_node *n,
                                 counts *c)
{
    int expanding = k->kind != CG_KERNEL_PERMUTE;
    c->permute += k->kind == CG_KERNEL_PERMUTE;
    c->permute_expand += k->kind == CG_KERNEL_PERMUTE_EXPAND;
    c->expand += k->kind == CG_KERNEL_EXPAND;
    c->mapped += n->op == IR_MAP;
    cr_expect_eq(strstr(k->source, "BEGIN expansion.cuh.in") != NULL,
                 expanding);
    cr_expect_eq(strstr(k->source, "__shfl_up_sync") != NULL, expanding);
    if (expanding)
        expect_define(k, "ACC_EXPAND_ITEMS", CG_CUDA_EXPAND_ITEMS, "expand");
    if (k->kind != CG_KERNEL_EXPAND) {
        expect_define(k, "ACC_EXPANDED", expanding, "permute");
        expect_define(k, "ACC_PRIVATE_BYTES", CG_CUDA_PERMUTE_PRIVATE_BYTES,
                      "permute");
        /* out-of-range targets reach the error slot */
        cr_expect(strstr(k->source, "ACC_FAIL(ACC_KERR_BOUNDS") != NULL);
    }
}

/* What each kind of kernel's source must contain. */
static void check_source(const cg_kernel *k, const ir_node *n, counts *c)
{
    switch (k->kind) {
    case CG_KERNEL_GENERATE:
        c->generate++;
        c->map_over += k->src != NULL;
        cr_expect_eq(k->src != NULL, n->op == IR_MAP, "a map reads its array");
        break;
    case CG_KERNEL_FOLD:
        c->fold++;
        c->map_fold += n->op == IR_MAP;
        cr_expect(strstr(k->source, "__shfl_down_sync") != NULL);
        break;
    case CG_KERNEL_FOLD_SEG: {
        char arg[64];
        c->fold_seg++;
        c->map_fold_seg += n->op == IR_MAP;
        cr_expect(strstr(k->source, "__shfl_down_sync") != NULL);
        /* the offsets come right after the arrays the scalar code reads */
        snprintf(arg, sizeof arg, "#define ACC_SEG_ARG %zu\n", k->n_arrays);
        cr_expect(strstr(k->source, arg) != NULL, "%s", arg);
        break;
    }
    case CG_KERNEL_SCAN:
        c->scan++;
        c->map_scan += n->op == IR_MAP;
        cr_expect(strstr(k->source, "__shfl_up_sync") != NULL);
        cr_expect(strstr(k->source, "__syncthreads_or") != NULL);
        cr_expect(strstr(k->source, "#define ACC_SEGMENTED 0\n") != NULL);
        break;
    case CG_KERNEL_STENCIL:
        c->stencil++;
        check_stencil_source(k);
        break;
    case CG_KERNEL_PERMUTE:
    case CG_KERNEL_PERMUTE_EXPAND:
    case CG_KERNEL_EXPAND:
        check_permute_source(k, n, c);
        break;
    case CG_KERNEL_SCAN_SEG: {
        char arg[64];
        c->scan_seg++;
        c->map_scan_seg += n->op == IR_MAP;
        cr_expect(strstr(k->source, "__shfl_up_sync") != NULL);
        cr_expect(strstr(k->source, "#define ACC_SEGMENTED 1\n") != NULL);
        /* the offsets come right after the arrays the scalar code reads;
         * the tail pair exactly when the producer is embedded */
        snprintf(arg, sizeof arg, "#define ACC_SEG_ARG %zu\n", k->n_arrays);
        cr_expect(strstr(k->source, arg) != NULL, "%s", arg);
        snprintf(arg, sizeof arg, "#define ACC_TAIL %d\n",
                 k->src->op == IR_GENERATE);
        cr_expect(strstr(k->source, arg) != NULL, "%s", arg);
        break;
    }
    default: /* a kind the CUDA target has no skeleton for */
        cr_expect(0, "kind %d generated for CUDA", (int)k->kind);
        break;
    }
}

/* Every step of program p: those with a CUDA skeleton generated and
 * compiled, the others refused with a reason. */
counts kernels_check_program(acc_program *p, const char *what)
{
    counts c = {0};
    for (size_t i = 0; i < p->c.sched.n_all; i++) {
        const ir_node *n = p->c.sched.all[i]->node;
        cg_kernel k;
        char why[256], name[128];
        int r = cuda_kernel(&p->c.ir, n, &k, why, sizeof why);
        if (!cg_cuda_has_skeleton(n)) {
            cr_expect_eq(r, 0, "%s, step %zu (%s)", what, i, ir_op_name(n->op));
            cr_expect(strstr(why, "has no CUDA skeleton") != NULL, "%s", why);
            c.none++;
            continue;
        }
        cr_assert_eq(r, 1, "%s, step %zu (%s): %s", what, i,
                     ir_op_name(n->op), why);
        c.steps++;
        check_source(&k, n, &c);
        snprintf(name, sizeof name, "%s_step%zu.cu", what, i);
        compile_both(k.source, k.kind, name);
        cg_kernel_free(&k);
    }
    return c;
}

counts check_text(const char *src, const char *entry)
{
    acc_program *p = NULL;
    acc_status st = acc_compile_text(ctx, src, (size_t)-1, entry, &p);
    cr_assert_eq(st, ACC_OK, "%s: %s: %s", entry, acc_status_string(st),
                 acc_last_error());
    counts c = check_program(p, entry);
    acc_program_free(p);
    return c;
}

/* The CUDA kernel of entry point `entry` of text `src`: its only step
 * with a skeleton. */
acc_program *only_kernel_of(const char *src, const char *entry,
                            cg_kernel *k)
{
    acc_program *p = NULL;
    const ir_node *n = NULL;
    char why[256];
    cr_assert_eq(acc_compile_text(ctx, src, (size_t)-1, entry, &p), ACC_OK,
                 "%s: %s", entry, acc_last_error());
    for (size_t i = 0; i < p->c.sched.n_all; i++)
        if (cg_cuda_has_skeleton(p->c.sched.all[i]->node)) {
            cr_assert_null(n, "%s: one kernel", entry);
            n = p->c.sched.all[i]->node;
        }
    cr_assert_not_null(n, "%s: a step with a CUDA skeleton", entry);
    cr_assert_eq(cuda_kernel(&p->c.ir, n, k, why, sizeof why), 1, "%s", why);
    return p;
}
