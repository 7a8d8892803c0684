/*
 * drive_stencil.c — launching the kernels of stencil and stencil2
 * (core/skeletons/cuda/stencil.cu.in).  The host evaluates each side's
 * extents and boundary constant in the interpreter's order
 * (host_stencil_side: shared host-side evaluation), makes a manifest side
 * valid on the device (when there are results to compute), and passes the
 * sides as the two arguments after those the scalar code reads.  It
 * computes the interior box once, from the offsets the code generator
 * recorded (cg_kernel.stencil_reach): in dimension d the indices [lo, hi)
 * whose neighbours read by f stay inside every side; the kernels take it
 * from the seed block, after the boundary constants.  Launches, one
 * thread per position (grid-stride loops, the
 * occupancy block or fewer whole warps for fewer positions, enough blocks
 * for the positions up to four times the occupancy minimum grid):
 *
 *  - accel_stencil_interior over the box's positions, when there are any;
 *  - accel_stencil_border over the other positions, when there are any;
 *  - accel_stencil_checks(side) over every position of an embedded
 *    producer with runtime checks whose elements the stencil may not all
 *    compute (cg_stencil_needs_checks), even when the result is empty:
 *    the interpreter computes every element of it, and reports their
 *    errors.
 *
 * The error slot is read back once, after the last launch (only when the
 * kernel has checks); a recorded error hands the step to the interpreter.
 */
#include "core/backend/cuda/cuda_internal.h"

#include "core/backend/host/host_eval.h"
#include "core/codegen/kernel_stencil.h"

#include <string.h>

enum { INTERIOR, BORDER, CHECKS }; /* kn->fn[], as cuda_program.c lists them */

/* The seed block: each side's boundary constant, then the box's lo[d] and
 * hi[d] (stencil.cu.in's ACC_BOX). */
enum { SEED_BOX = 2 * ACC_MAX_COMPONENTS,
       SEED_LEN = SEED_BOX + 2 * ACC_MAX_RANK };

typedef struct stencil_step {
    cuda_run *run;
    const cuda_node *kn;
    interp *st;
    const ir_node *n;
    cuda_launch l;
    int m; /* sides */
    int32_t rank;
    cuda_karray side[2];
    int64_t ext[ACC_MAX_RANK]; /* the result's: the intersection */
    ir_value seed[SEED_LEN];
} stencil_step;

/* Side i's extents, size and boundary constant (on the host); a replay
 * for a negative extent (the interpreter reports it). */
static acc_status side_of(stencil_step *s, int i, uint32_t *barg_at,
                          int *replay)
{
    cuda_karray *side = &s->side[i];
    acc_status r = host_stencil_side(s->st, s->n, i, barg_at, side->ext,
                                     s->seed + ACC_MAX_COMPONENTS * i,
                                     replay);
    if (r == ACC_OK && !*replay)
        side->size = rt_shape_size(s->rank, side->ext);
    return r;
}

/* The sides as the two arguments after the kernel's; a manifest side's
 * data made valid on the device first when there are results to compute
 * (the check pass reads producers only). */
static acc_status bind_sides(stencil_step *s, int with_data)
{
    for (int i = 0; i < 2; i++) {
        const ir_node *xs = i < s->m ? s->n->args[1 + i] : NULL;
        if (with_data && xs && xs->op != IR_GENERATE) {
            rt_array *a = interp_array_raw(s->st, xs); /* evaluated */
            if (!a)
                return host_recorded(s->st->d);
            if (cuda_device_of(s->run, a, s->st->d))
                return s->st->d->status;
            memcpy(s->side[i].data, a->dev, sizeof s->side[i].data);
        }
        cuda_launch_array(&s->l, s->kn->k.n_arrays + (size_t)i, &s->side[i]);
    }
    return ACC_OK;
}

/* The interior box into the seed block (0 <= lo <= hi <= the result's
 * extent in every dimension); returns its number of positions. */
static int64_t interior_box(stencil_step *s)
{
    const cg_kernel *k = &s->kn->k;
    int64_t inside = 1;
    for (int32_t d = 0; d < s->rank; d++) {
        int64_t lo = 0, hi = s->ext[d];
        for (int i = 0; i < s->m; i++) {
            int64_t a = -k->stencil_reach[i][0][d];
            int64_t b = s->side[i].ext[d] - k->stencil_reach[i][1][d];
            lo = a > lo ? a : lo;
            hi = b < hi ? b : hi;
        }
        lo = lo < s->ext[d] ? lo : s->ext[d];
        hi = hi > lo ? hi : lo;
        s->seed[SEED_BOX + d].i = lo;
        s->seed[SEED_BOX + ACC_MAX_RANK + d].i = hi;
        inside *= hi - lo;
    }
    return inside;
}

/* Entry point e, one thread per item of n (n > 0). */
static acc_status launch_over(stencil_step *s, int e, int64_t n,
                              int64_t *extra)
{
    const cuda_fn *fn = &s->kn->fn[e];
    unsigned block = cuda_block_for(fn, n);
    return cuda_launch_run(s->run, &s->l, fn,
                           cuda_grid_for(s->run, fn, n, block), 1, block,
                           extra, s->st->d);
}

/* The launches once the kernel's arguments are bound, for result a; a
 * replay when a kernel reported a runtime error. */
static acc_status launch(stencil_step *s, const rt_array *a, int *replay)
{
    int64_t inside = a->size > 0 ? interior_box(s) : 0;
    int64_t border = a->size - inside;
    int checks[2] = {0, 0}, any = 0;
    for (int i = 0; i < s->m; i++) {
        checks[i] = s->side[i].size > 0 &&
                    cg_stencil_needs_checks(&s->kn->k, i, s->side[i].ext,
                                            s->ext, s->rank);
        any |= checks[i];
    }
    if (a->size == 0 && !any)
        return ACC_OK; /* nothing to compute */
    if (bind_sides(s, a->size > 0) ||
        cuda_launch_upload(s->run, &s->l, a, s->seed, NULL, 0, s->st->d) ||
        (inside > 0 && launch_over(s, INTERIOR, inside, NULL)) ||
        (border > 0 && launch_over(s, BORDER, border, NULL)))
        return s->st->d->status;
    for (int64_t i = 0; i < s->m; i++)
        if (checks[i] && launch_over(s, CHECKS, s->side[i].size, &i))
            return s->st->d->status;
    return cuda_launch_failed(s->run, s->kn, &s->l, replay, s->st->d);
}

acc_status cuda_drive_stencil(cuda_run *run, const cuda_node *kn, interp *st,
                              const ir_node *n, rt_array **out, int *replay)
{
    stencil_step s;
    memset(&s, 0, sizeof s);
    s.run = run;
    s.kn = kn;
    s.st = st;
    s.n = n;
    s.m = n->op == IR_STENCIL2 ? 2 : 1;
    s.rank = n->type->rank;
    uint32_t barg_at = 1 + (uint32_t)s.m;
    for (int i = 0; i < s.m; i++) {
        acc_status r = side_of(&s, i, &barg_at, replay);
        if (r != ACC_OK || *replay)
            return r;
    }
    for (int32_t d = 0; d < s.rank; d++)
        s.ext[d] = s.m == 2 && s.side[1].ext[d] < s.side[0].ext[d]
                       ? s.side[1].ext[d] : s.side[0].ext[d];
    rt_array *a = NULL;
    acc_status r = cuda_launch_bind_extra(run, &kn->k, st, 2,
                                          n->type->elem->n_leaves, SEED_LEN,
                                          &s.l);
    if (r == ACC_OK &&
        !(a = cuda_result(run, n, n->type->elem, s.rank, s.ext,
                          ir_op_name(n->op), st->d)))
        r = host_recorded(st->d);
    if (a)
        r = launch(&s, a, replay);
    cuda_launch_free(run, &s.l);
    if (r != ACC_OK || *replay) {
        rt_release(a);
        return r;
    }
    *out = a;
    return ACC_OK;
}
