/*
 * drive_generate.c — launching a manifest generate's kernel
 * (core/skeletons/cuda/generate.cu.in, entry accel_generate): a
 * grid-stride loop over the result's positions.  The shape is evaluated
 * on the host by the interpreter (host_shape_extents, shared with the CPU
 * drivers: it is host-side evaluation, nothing CPU-specific).  Also maps
 * over an array the host evaluates (a reshape, a component of a tuple of
 * arrays, a stencil...: cg_kernel.src): that array is one of the kernel's
 * arguments, made valid on the device when they are bound, and the
 * result's shape is its shape.
 */
#include "core/backend/cuda/cuda_internal.h"

#include "core/backend/host/host_eval.h"

#include <string.h>

/* The launch, once the arguments are bound; a replay when the kernel
 * reported a runtime error. */
static acc_status launch(cuda_run *run, const cuda_node *kn, cuda_launch *l,
                         const rt_array *a, int *replay, diag *d)
{
    if (cuda_launch_upload(run, l, a, NULL, NULL, 0, d) ||
        cuda_launch_threads(run, l, &kn->fn[0], a->size, NULL, d))
        return d->status;
    return cuda_launch_failed(run, kn, l, replay, d);
}

acc_status cuda_drive_generate(cuda_run *run, const cuda_node *kn, interp *st,
                               const ir_node *n, rt_array **out, int *replay)
{
    int64_t ext[ACC_MAX_RANK] = {0};
    cuda_launch l;
    memset(&l, 0, sizeof l);
    const ir_node *src = kn->k.src; /* maps over this array, or NULL */
    acc_status s = src ? ACC_OK
                       : host_shape_extents(st, n->args[0], ext, replay);
    if (s != ACC_OK || *replay)
        return s;
    const acc_type *elem = n->type->elem;
    rt_array *a = NULL;
    /* the mapped array is an argument: bound first, then its extents */
    s = cuda_launch_bind(run, &kn->k, st, elem->n_leaves, 0, &l);
    if (s == ACC_OK && src)
        s = host_source_extents(st, src, ext, replay);
    if (s == ACC_OK && !*replay &&
        !(a = cuda_result(run, n, elem, n->type->rank, ext,
                          ir_op_name(n->op), st->d)))
        s = host_recorded(st->d);
    if (a && a->size > 0)
        s = launch(run, kn, &l, a, replay, st->d);
    cuda_launch_free(run, &l);
    if (s != ACC_OK || *replay) {
        rt_release(a);
        return s;
    }
    *out = a;
    return ACC_OK;
}
