/*
 * nvrtc_check.c — the CUDA code generator on random programs, without a
 * device: every plan step with a CUDA skeleton is instantiated
 * (core/codegen/kernel_cuda.c) and compiled by NVRTC to a cubin for
 * sm_90, as tests/cuda/test_cuda_kernels*.c do for their fixed programs.
 * A refusal or a compile error is a failure; a warning is counted, and
 * the first of a process printed (the code generator loads tuple leaves
 * a map does not use: "variable declared but never referenced").  Sources
 * already compiled in this process are not compiled again.
 *
 * This file reaches internals (the program's plan and IR), so the
 * differential tests link the static library.
 */
#include "diff.h"

#include "core/backend/cuda/nvrtc.h"
#include "core/codegen/kernel_cuda.h"
#include "abi/src/program.h"

#include <stdlib.h>
#include <string.h>

struct dz_nvrtc {
    cuda_nvrtc lib;
    int warned;
    uint64_t *seen;
    size_t n_seen, cap;
};

struct dz_nvrtc *dz_nvrtc_open(char *why, size_t len)
{
    struct dz_nvrtc *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(why, len, "out of memory");
        return NULL;
    }
    diag d;
    diag_clear(&d);
    if (cuda_load_nvrtc(&n->lib, &d) != ACC_OK) {
        snprintf(why, len, "%s", d.message);
        free(n);
        return NULL;
    }
    return n;
}

void dz_nvrtc_close(struct dz_nvrtc *n)
{
    if (!n)
        return;
    cuda_unload_nvrtc(&n->lib);
    free(n->seen);
    free(n);
}

static uint64_t fnv(const char *text)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *text; text++)
        h = (h ^ (unsigned char)*text) * 0x100000001b3ull;
    return h;
}

/* Whether the source was compiled before; remembers it if not. */
static int seen_before(struct dz_nvrtc *n, const char *source)
{
    uint64_t h = fnv(source);
    for (size_t i = 0; i < n->n_seen; i++)
        if (n->seen[i] == h)
            return 1;
    if (n->n_seen == n->cap) {
        size_t cap = n->cap ? 2 * n->cap : 64;
        uint64_t *m = realloc(n->seen, cap * sizeof *m);
        if (!m)
            return 0;
        n->seen = m;
        n->cap = cap;
    }
    n->seen[n->n_seen++] = h;
    return 0;
}

static int compile_kernel(struct dz_nvrtc *n, const cg_kernel *k, size_t step,
                          const char *op, int show, dz_stats *st, char *why,
                          size_t len)
{
    char name[64];
    cuda_image image;
    snprintf(name, sizeof name, "step%zu.cu", step);
    int ok = cuda_compile(&n->lib, k->source, name, 90, CUDA_TARGET_CUBIN, &image);
    const char *log = image.log ? image.log : "";
    if (!ok)
        snprintf(why, len, "step %zu (%s): NVRTC fails: %.400s", step, op, log);
    if (ok && log[0]) {
        st->nvrtc_warnings++;
        if (!n->warned++ || show)
            fprintf(stderr, "NVRTC warns on step %zu (%s) (counted, not a "
                    "failure): %.300s\n", step, op, log);
    }
    if (show && (!ok || log[0]))
        printf("---- the CUDA source of step %zu ----\n%s\n", step, k->source);
    cuda_image_free(&image);
    return ok;
}

int dz_nvrtc_check(struct dz_nvrtc *n, const acc_program *p, int show,
                   dz_stats *st, char *why, size_t len)
{
    for (size_t i = 0; i < p->c.sched.n_all; i++) {
        const ir_node *node = p->c.sched.all[i]->node;
        cg_kernel k;
        cg_outcome o;
        diag d;
        diag_clear(&d);
        if (!cg_cuda_has_skeleton(node))
            continue;
        if (cg_cuda_kernel(&p->c.ir, node, &k, &o, &d) != ACC_OK ||
            !o.built) {
            snprintf(why, len, "step %zu (%s) has a CUDA skeleton but no "
                     "kernel was generated: %s", i, ir_op_name(node->op),
                     diag_ok(&d) ? o.why_not : d.message);
            st->nvrtc_failures++;
            return 0;
        }
        int ok = seen_before(n, k.source) ||
                 compile_kernel(n, &k, i, ir_op_name(node->op), show, st, why,
                                len);
        st->nvrtc_kernels++;
        cg_kernel_free(&k);
        if (!ok) {
            st->nvrtc_failures++;
            return 0;
        }
    }
    return 1;
}
