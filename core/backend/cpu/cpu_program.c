/*
 * cpu_program.c — a program's CPU kernels: compiling them, and the
 * host-side drivers that run them over the context's thread pool when
 * the interpreter reaches their step (see cpu_backend.h).
 */
#include "core/backend/cpu/cpu_backend.h"

#include "core/backend/cpu/kernel_abi.h"
#include "core/backend/interp/interp_state.h"
#include "core/codegen/kernel_cpu.h"
#include "core/ir/scan_kind.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct cpu_node {
    cg_kernel k;
    const cache_entry *entry;
} cpu_node;

struct cpu_program {
    cpu_backend *be;
    uint32_t n_nodes;
    cpu_node **by_id;
    size_t kernels, interpreted;
    cache_stats stats;
    interp_hook hook;
};

/* ---- one launch ------------------------------------------------------------------ */

typedef struct launch {
    cpu_kargs A;
    cpu_kerr err;
    cpu_karray *in;
    const cache_entry *entry;
    int64_t row, part_len;
} launch;

static void task_run(void *arg, int64_t lo, int64_t hi)
{
    launch *l = arg;
    cpu_run_fn run;
    memcpy(&run, &l->entry->run, sizeof run);
    run(&l->A, lo, hi);
}

static void task_part(void *arg, int64_t lo, int64_t hi)
{
    launch *l = arg;
    cpu_part_fn part;
    memcpy(&part, &l->entry->part, sizeof part);
    for (int64_t p = lo; p < hi; p++) {
        int64_t a = p * l->part_len, b = a + l->part_len;
        part(&l->A, l->row, a, b < l->A.inner ? b : l->A.inner, p);
    }
}

static int failed(launch *l)
{
    return atomic_load(&l->err.code) != 0;
}

/* The kernel's array arguments, evaluated by the interpreter, and `extra`
 * more slots after them, left empty. */
static int bind_arrays_extra(interp *st, const cg_kernel *k, launch *l,
                             size_t extra)
{
    l->in = calloc(k->n_arrays + extra ? k->n_arrays + extra : 1,
                   sizeof *l->in);
    if (!l->in) {
        diag_fail(st->d, ACC_ERR_OUT_OF_HOST_MEMORY, "run: out of host memory");
        return 0;
    }
    for (size_t i = 0; i < k->n_arrays; i++) {
        rt_array *a = interp_array_of(st, k->arrays[i]);
        if (!a)
            return 0;
        memcpy(l->in[i].data, a->data, sizeof l->in[i].data);
        memcpy(l->in[i].ext, a->extents, sizeof l->in[i].ext);
        l->in[i].size = a->size;
    }
    l->A.in = l->in;
    l->A.err = &l->err;
    atomic_init(&l->err.code, 0);
    atomic_init(&l->err.site, 0);
    atomic_init(&l->err.pos, LLONG_MAX);
    return 1;
}

static int bind_arrays(interp *st, const cg_kernel *k, launch *l)
{
    return bind_arrays_extra(st, k, l, 0);
}

/* Extents of a shape term evaluated on the host: 1, 0 after an error,
 * -1 for a negative extent (the interpreter reports it). */
static int shape_extents(interp *st, const ir_node *shape, int64_t *ext)
{
    const ir_value *v = interp_eval(st, shape);
    if (!v)
        return 0;
    for (int32_t d = 0; d < shape->type->rank; d++)
        if ((ext[d] = v[d].i) < 0)
            return -1;
    return 1;
}

static int64_t grain_for(const cpu_program *cp, int64_t n, int64_t least)
{
    int64_t g = n / (8 * (int64_t)pool_threads(cp->be->pool));
    return g < least ? least : g;
}

/* ---- generate ---------------------------------------------------------------------- */

static int run_generate(cpu_program *cp, const cpu_node *kn, interp *st,
                        const ir_node *n, rt_array **out)
{
    int64_t ext[ACC_MAX_RANK] = {0};
    launch l;
    memset(&l, 0, sizeof l);
    int r = shape_extents(st, n->args[0], ext);
    if (r <= 0)
        return r;
    if (!bind_arrays(st, &kn->k, &l)) {
        free(l.in);
        return 0;
    }
    rt_array *a = rt_alloc(n->type->elem, n->type->rank, ext,
                           ir_op_name(n->op), st->d);
    if (a) {
        l.entry = kn->entry;
        l.A.out = a->data;
        memcpy(l.A.out_ext, ext, sizeof ext);
        l.A.out_size = a->size;
        pool_for(cp->be->pool, a->size, grain_for(cp, a->size, 4096), task_run,
                 &l);
    }
    free(l.in);
    if (a && failed(&l)) {
        rt_release(a);
        return -1;
    }
    *out = a;
    return a != NULL;
}

/* ---- fold ---------------------------------------------------------------------------- */

/* The reduced array's extents: an embedded producer's shape, or the
 * manifest array's.  Same conventions as shape_extents. */
static int source_extents(interp *st, const ir_node *xs, int64_t *ext)
{
    if (xs->op == IR_GENERATE)
        return shape_extents(st, xs->args[0], ext);
    rt_array *a = interp_array_of(st, xs);
    if (!a)
        return 0;
    memcpy(ext, a->extents, sizeof a->extents);
    return 1;
}

static int alloc_parts(launch *l, const acc_type *elem, int64_t n,
                       void **parts)
{
    for (size_t i = 0; i < elem->n_leaves; i++)
        if (!(parts[i] = malloc((size_t)n * acc_scalar_size(elem->leaves[i]))))
            return 0;
    l->A.part = parts;
    return 1;
}

/* Few long rows: each row split over the threads, partials combined in
 * order by accel_kernel_finish. */
static int fold_by_parts(cpu_program *cp, launch *l, const acc_type *elem,
                         int64_t rows)
{
    int64_t threads = pool_threads(cp->be->pool);
    int64_t n = l->A.inner / 16384;
    if (n > 8 * threads)
        n = 8 * threads;
    l->part_len = (l->A.inner + n - 1) / n;
    n = (l->A.inner + l->part_len - 1) / l->part_len;
    void *parts[ACC_MAX_COMPONENTS] = {0};
    int ok = alloc_parts(l, elem, n, parts);
    cpu_finish_fn finish;
    memcpy(&finish, &l->entry->finish, sizeof finish);
    for (int64_t row = 0; ok && row < rows && !failed(l); row++) {
        l->row = row;
        pool_for(cp->be->pool, n, 1, task_part, l);
        if (!failed(l))
            finish(&l->A, row, n);
    }
    for (size_t i = 0; i < elem->n_leaves; i++)
        free(parts[i]);
    return ok;
}

static void fold_launch(cpu_program *cp, launch *l, const acc_type *elem,
                        int64_t rows, int *oom)
{
    int64_t threads = pool_threads(cp->be->pool);
    if (rows < 2 * threads && l->A.inner >= 32768 && l->entry->part &&
        l->entry->finish) {
        *oom = !fold_by_parts(cp, l, elem, rows);
        return;
    }
    int64_t inner = l->A.inner > 0 ? l->A.inner : 1;
    int64_t least = 65536 / inner > 0 ? 65536 / inner : 1;
    pool_for(cp->be->pool, rows, grain_for(cp, rows, least), task_run, l);
}

static int run_fold(cpu_program *cp, const cpu_node *kn, interp *st,
                    const ir_node *n, rt_array **out)
{
    const ir_node *fold = kn->k.fold, *xs = kn->k.src;
    int32_t r = xs->type->rank;
    int64_t ext[ACC_MAX_RANK] = {0};
    ir_value seed[ACC_MAX_COMPONENTS];
    launch l;
    memset(&l, 0, sizeof l);
    int ok = source_extents(st, xs, ext);
    if (ok <= 0)
        return ok;
    if (fold->op == IR_FOLD1 && ext[r - 1] == 0 && rt_shape_size(r - 1, ext))
        return -1; /* an empty row: the interpreter names it */
    if (fold->op == IR_FOLD) {
        const ir_value *z = interp_eval(st, fold->args[1]);
        if (!z)
            return 0;
        memcpy(seed, z, xs->type->elem->n_leaves * sizeof *seed);
    }
    if (!bind_arrays(st, &kn->k, &l)) {
        free(l.in);
        return 0;
    }
    rt_array *a = rt_alloc(n->type->elem, r - 1, ext, ir_op_name(n->op), st->d);
    int oom = 0;
    if (a && a->size > 0) {
        l.entry = kn->entry;
        l.A.out = a->data;
        memcpy(l.A.out_ext, a->extents, sizeof a->extents);
        l.A.out_size = a->size;
        memcpy(l.A.src_ext, ext, sizeof ext);
        l.A.inner = ext[r - 1];
        l.A.seed = seed;
        fold_launch(cp, &l, xs->type->elem, a->size, &oom);
    }
    free(l.in);
    if (a && (oom || failed(&l))) {
        rt_release(a);
        if (oom)
            diag_fail(st->d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                      "memory", ir_op_name(n->op));
        return oom ? 0 : -1;
    }
    *out = a;
    return a != NULL;
}

/* ---- segmented folds ------------------------------------------------------------ */

/* The offsets off[0..k] of the segments of a row of `inner` elements, read
 * from descriptor `seg` (lengths, or offsets for foldSeg') with exactly
 * the checks of interp_read_segments: 1, 0 when out of memory, -1 when the
 * descriptor is refused (the interpreter reports why). */
static int segment_offsets(const rt_array *seg, int offsets, int64_t inner,
                           int64_t **off_out, int64_t *k)
{
    const int64_t *v = seg->data[0];
    *k = offsets ? seg->size - 1 : seg->size;
    if (offsets && seg->size == 0)
        return -1;
    int64_t *off = malloc((size_t)(seg->size + 1) * sizeof *off);
    if (!off)
        return 0;
    off[0] = 0;
    for (int64_t s = 0; s < seg->size; s++) {
        if (offsets) {
            off[s] = v[s];
            if (off[s] < (s ? off[s - 1] : 0) || (s == 0 && off[s] != 0) ||
                off[s] > inner)
                break;
        } else {
            if (v[s] < 0 || v[s] > inner - off[s])
                break;
            off[s + 1] = off[s] + v[s];
        }
        if (s + 1 == seg->size) {
            *off_out = off;
            return 1;
        }
    }
    if (seg->size == 0) { /* no segments (lengths) */
        *off_out = off;
        return 1;
    }
    free(off);
    return -1;
}

typedef struct tail_task {
    launch *l;
    int64_t lo;
} tail_task;

static void task_tail(void *arg, int64_t lo, int64_t hi)
{
    tail_task *t = arg;
    cpu_part_fn part;
    memcpy(&part, &t->l->entry->part, sizeof part);
    for (int64_t row = lo; row < hi && !failed(t->l); row++)
        part(&t->l->A, row, t->lo, t->l->A.inner, 0);
}

static int run_fold_seg(cpu_program *cp, const cpu_node *kn, interp *st,
                        const ir_node *n, rt_array **out)
{
    const ir_node *fold = kn->k.fold, *xs = kn->k.src;
    int seeded = fold->u.seg.seeded;
    int32_t r = xs->type->rank;
    int64_t ext[ACC_MAX_RANK] = {0}, k = 0, *off = NULL;
    ir_value seed[ACC_MAX_COMPONENTS];
    launch l;
    memset(&l, 0, sizeof l);
    int ok = source_extents(st, xs, ext);
    if (ok <= 0)
        return ok;
    rt_array *seg = interp_array_of(st, fold->args[seeded ? 3 : 2]);
    if (!seg)
        return 0;
    int64_t inner = ext[r - 1], rows = rt_shape_size(r - 1, ext);
    ok = segment_offsets(seg, fold->u.seg.offsets, inner, &off, &k);
    if (ok == 0)
        diag_fail(st->d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host memory",
                  ir_fold_seg_name(fold));
    if (ok <= 0)
        return ok;
    for (int64_t s = 0; !seeded && rows > 0 && s < k; s++)
        if (off[s] == off[s + 1]) {
            free(off);
            return -1; /* an empty fold1Seg segment: the interpreter names it */
        }
    if (seeded) {
        const ir_value *z = interp_eval(st, fold->args[1]);
        if (!z) {
            free(off);
            return 0;
        }
        memcpy(seed, z, xs->type->elem->n_leaves * sizeof *seed);
    }
    if (!bind_arrays_extra(st, &kn->k, &l, 1)) {
        free(l.in);
        free(off);
        return 0;
    }
    l.in[kn->k.n_arrays].data[0] = off;
    l.in[kn->k.n_arrays].ext[0] = k + 1;
    l.in[kn->k.n_arrays].size = k;
    ext[r - 1] = k;
    rt_array *a = rt_alloc(n->type->elem, r, ext, n == fold
                           ? ir_fold_seg_name(fold) : ir_op_name(n->op), st->d);
    ext[r - 1] = inner;
    l.entry = kn->entry;
    memcpy(l.A.src_ext, ext, sizeof ext);
    l.A.inner = inner;
    l.A.seed = seed;
    if (a && a->size > 0) {
        l.A.out = a->data;
        memcpy(l.A.out_ext, a->extents, sizeof a->extents);
        l.A.out_size = a->size;
        int64_t avg = k > 0 && off[k] / k > 0 ? off[k] / k : 1;
        int64_t least = 16384 / avg > 0 ? 16384 / avg : 1;
        pool_for(cp->be->pool, a->size, grain_for(cp, a->size, least),
                 task_run, &l);
    }
    /* an embedded producer's elements past the last segment: the
     * interpreter computes them, and reports their errors */
    if (a && !failed(&l) && xs->op == IR_GENERATE && off[k] < inner &&
        rows > 0 && l.entry->part) {
        tail_task t = {&l, off[k]};
        int64_t per_row = inner - off[k];
        int64_t least = 16384 / per_row > 0 ? 16384 / per_row : 1;
        pool_for(cp->be->pool, rows, grain_for(cp, rows, least), task_tail,
                 &t);
    }
    free(l.in);
    free(off);
    if (a && failed(&l)) {
        rt_release(a);
        return -1;
    }
    *out = a;
    return a != NULL;
}

/* ---- scans ------------------------------------------------------------------------ */

static void task_block(void *arg, int64_t lo, int64_t hi)
{
    launch *l = arg;
    cpu_part_fn block;
    memcpy(&block, &l->entry->block, sizeof block);
    for (int64_t p = lo; p < hi; p++) {
        int64_t a = p * l->part_len, b = a + l->part_len;
        block(&l->A, l->row, a, b < l->A.inner ? b : l->A.inner, p);
    }
}

/* Few long rows, f regroupable: per row, each block reduced (in
 * parallel), the block totals scanned in order, each block scanned from
 * its running value (in parallel). */
static int scan_by_blocks(cpu_program *cp, launch *l, const acc_type *elem,
                          int64_t rows)
{
    int64_t threads = pool_threads(cp->be->pool);
    int64_t n = l->A.inner / 16384;
    if (n > 8 * threads)
        n = 8 * threads;
    l->part_len = (l->A.inner + n - 1) / n;
    n = (l->A.inner + l->part_len - 1) / l->part_len;
    void *parts[ACC_MAX_COMPONENTS] = {0};
    int ok = alloc_parts(l, elem, n, parts);
    cpu_finish_fn finish;
    memcpy(&finish, &l->entry->finish, sizeof finish);
    for (int64_t row = 0; ok && row < rows && !failed(l); row++) {
        l->row = row;
        pool_for(cp->be->pool, n, 1, task_part, l);
        if (!failed(l))
            finish(&l->A, row, n);
        if (!failed(l))
            pool_for(cp->be->pool, n, 1, task_block, l);
    }
    for (size_t i = 0; i < elem->n_leaves; i++)
        free(parts[i]);
    return ok;
}

static int run_scan(cpu_program *cp, const cpu_node *kn, interp *st,
                    const ir_node *n, rt_array **out)
{
    const ir_node *xs = kn->k.src;
    acc_scan_kind kind = n->u.scan.kind;
    ir_scan_form form = ir_scan_form_of(kind);
    const char *op = ir_scan_name(kind, 0);
    const acc_type *elem = xs->type->elem;
    int32_t r = xs->type->rank;
    int64_t ext[ACC_MAX_RANK] = {0}, oext[ACC_MAX_RANK];
    ir_value seed[ACC_MAX_COMPONENTS];
    launch l;
    memset(&l, 0, sizeof l);
    int ok = source_extents(st, xs, ext);
    if (ok <= 0)
        return ok;
    int64_t inner = ext[r - 1], rows = rt_shape_size(r - 1, ext);
    if (form == IR_SCAN_INCLUSIVE && inner == 0 && rows > 0)
        return -1; /* an empty row: the interpreter names it */
    if (ir_scan_seeded(kind)) {
        const ir_value *z = interp_eval(st, n->args[1]);
        if (!z)
            return 0;
        memcpy(seed, z, elem->n_leaves * sizeof *seed);
    }
    if (!bind_arrays(st, &kn->k, &l)) {
        free(l.in);
        return 0;
    }
    memcpy(oext, ext, sizeof ext);
    oext[r - 1] = inner + (form == IR_SCAN_FULL);
    rt_array *a = rt_alloc(elem, r, oext, op, st->d), *t = NULL;
    if (a && form == IR_SCAN_PRIMED && !(t = rt_alloc(elem, r - 1, ext, op,
                                                      st->d))) {
        rt_release(a);
        a = NULL;
    }
    void *outs[2 * ACC_MAX_COMPONENTS] = {0};
    int oom = 0;
    if (a && rows > 0) {
        size_t k = elem->n_leaves;
        for (size_t i = 0; i < k; i++) {
            outs[i] = a->data[i];
            outs[k + i] = t ? t->data[i] : NULL;
        }
        l.entry = kn->entry;
        l.A.out = outs;
        memcpy(l.A.out_ext, a->extents, sizeof a->extents);
        l.A.out_size = a->size;
        memcpy(l.A.src_ext, ext, sizeof ext);
        l.A.inner = inner;
        l.A.seed = seed;
        int64_t threads = pool_threads(cp->be->pool);
        if (kn->k.reassociable && rows < 2 * threads && inner >= 32768 &&
            l.entry->part && l.entry->finish && l.entry->block) {
            oom = !scan_by_blocks(cp, &l, elem, rows);
        } else {
            int64_t least = 65536 / (inner > 0 ? inner : 1);
            pool_for(cp->be->pool, rows, grain_for(cp, rows, least > 0 ? least
                                                                      : 1),
                     task_run, &l);
        }
    }
    free(l.in);
    if (a && (oom || failed(&l))) {
        rt_release(a);
        rt_release(t);
        if (oom)
            diag_fail(st->d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                      "memory", op);
        return oom ? 0 : -1;
    }
    if (!a)
        return 0;
    out[0] = a;
    if (t)
        out[1] = t;
    return 1;
}

static int eval_hook(void *state, interp *st, const ir_node *n,
                     rt_array **out)
{
    cpu_program *cp = state;
    const cpu_node *kn = n->id < cp->n_nodes ? cp->by_id[n->id] : NULL;
    if (!kn)
        return -1;
    if (kn->k.kind == CG_KERNEL_GENERATE)
        return run_generate(cp, kn, st, n, out);
    if (kn->k.kind == CG_KERNEL_FOLD_SEG)
        return run_fold_seg(cp, kn, st, n, out);
    if (kn->k.kind == CG_KERNEL_SCAN)
        return run_scan(cp, kn, st, n, out);
    return run_fold(cp, kn, st, n, out);
}

/* ---- compiling ---------------------------------------------------------------------- */

static acc_status compile_step(cpu_program *cp, const ir_program *ir,
                               const ir_node *n, diag *d)
{
    char why[256];
    cpu_node *kn = calloc(1, sizeof *kn);
    int r = kn ? cg_cpu_kernel(ir, n, &kn->k, why, sizeof why) : -1;
    if (r <= 0) {
        free(kn);
        cp->interpreted += (size_t)(r == 0);
        return r == 0 ? ACC_OK
                      : diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "acc_compile: "
                                  "out of host memory");
    }
    cp->by_id[n->id] = kn;
    if (cache_get(cp->be->cache, &cp->be->tc, kn->k.source, &kn->entry,
                  &cp->stats, d) != ACC_OK)
        return d->status;
    free(kn->k.source); /* the cache has it; the program keeps the rest */
    kn->k.source = NULL;
    cp->kernels++;
    return ACC_OK;
}

acc_status cpu_program_build(cpu_backend *be, const ir_program *ir,
                             const plan *pl, cpu_program **out, diag *d)
{
    *out = NULL;
    cpu_program *cp = calloc(1, sizeof *cp);
    if (!cp || !(cp->by_id = calloc(ir->n_nodes + 1, sizeof *cp->by_id))) {
        free(cp);
        return diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "acc_compile: out of "
                         "host memory");
    }
    cp->be = be;
    cp->n_nodes = ir->n_nodes;
    cp->hook = (interp_hook){eval_hook, cp};
    for (size_t i = 0; i < pl->n_steps && diag_ok(d); i++)
        if (pl->steps[i].kernel)
            compile_step(cp, ir, pl->steps[i].node, d);
    if (!diag_ok(d)) {
        cpu_program_free(cp);
        return d->status;
    }
    *out = cp;
    return ACC_OK;
}

void cpu_program_free(cpu_program *cp)
{
    if (!cp)
        return;
    for (uint32_t i = 0; i < cp->n_nodes; i++)
        if (cp->by_id[i]) {
            cg_kernel_free(&cp->by_id[i]->k);
            free(cp->by_id[i]);
        }
    free(cp->by_id);
    free(cp);
}

const interp_hook *cpu_program_hook(const cpu_program *cp)
{
    return cp ? &cp->hook : NULL;
}

void cpu_program_describe(strbuf *b, const cpu_program *cp, int json)
{
    if (!cp)
        return;
    const cache_stats *s = &cp->stats;
    if (json) {
        if (b->len > 0 && b->text[b->len - 1] == '}')
            b->text[--b->len] = '\0';
        sb_printf(b, ",\"cpu\":{\"kernels\":%zu,\"interpreted\":%zu,"
                  "\"memory_hits\":%llu,\"disk_hits\":%llu,\"compiled\":%llu,"
                  "\"compile_seconds\":%.6f}}", cp->kernels, cp->interpreted,
                  (unsigned long long)s->memory_hits,
                  (unsigned long long)s->disk_hits,
                  (unsigned long long)s->compiled, s->compile_seconds);
        return;
    }
    sb_printf(b, "cpu: %zu kernels compiled, %zu steps interpreted; cache: "
              "%llu memory hits, %llu disk hits, %llu compiled in %.3f s\n",
              cp->kernels, cp->interpreted, (unsigned long long)s->memory_hits,
              (unsigned long long)s->disk_hits,
              (unsigned long long)s->compiled, s->compile_seconds);
}
