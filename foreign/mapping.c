/*
 * mapping.c — how a foreign node's arrays map to the parameters of a C
 * signature (accel.h, acc_register_c_function): the capability check
 * from the signature, which names the parameter that does not fit, and
 * the extents of the results.  Shared by C functions (cfunc.c) and user
 * kernels (user_kernel.c), host and CUDA alike.
 */
#include "foreign/cfunc.h"

#include <stdio.h>
#include <string.h>

typedef struct mapping {
    size_t n_extents;          /* trailing i64 parameters */
    const char *why;           /* set when the signature does not fit */
    size_t param;              /* the parameter `why` is about */
} mapping;

static int is_scalar_array(const acc_type *elem, acc_scalar s)
{
    return elem->kind == ACC_TYPE_SCALAR && elem->scalar == s;
}

/* The parameter i, given that the arrays before it are used: 1 when it
 * fits the next argument array (*ai advances). */
static int match_arg(const reg_param *p, int device,
                     const acc_foreign_query *q, size_t *ai, mapping *m)
{
    const acc_type *e = q->arg_elems[*ai];
    if (!is_scalar_array(e, p->type))
        m->why = "has another element type than the argument array it "
                 "receives";
    else if (!p->pointer && device)
        m->why = "is a value, but on the device a Scalar argument stays in "
                 "device memory: use a pointer (const T*)";
    else if (!p->pointer && q->arg_ranks[*ai] != 0)
        m->why = "is a value but the argument array it receives is not a "
                 "Scalar (rank 0); use a pointer";
    (*ai)++;
    return m->why == NULL;
}

static int match(const reg_sig *s, int device, const acc_foreign_query *q,
                 mapping *m)
{
    size_t ai = 0, ri = 0, available = 0;
    memset(m, 0, sizeof *m);
    for (size_t k = 0; k < q->n_args; k++)
        available += q->arg_ranks[k] > 0 ? (size_t)q->arg_ranks[k] : 0;
    for (size_t i = 0; i < s->n_params; i++) {
        const reg_param *p = &s->params[i];
        m->param = i;
        if (ai < q->n_args) {
            if (!match_arg(p, device, q, &ai, m))
                return 0;
        } else if (s->ret_void && ri < q->n_results) {
            if (!p->pointer || !is_scalar_array(q->result_elems[ri], p->type))
                m->why = "should be a pointer to the element type of the "
                         "result array it receives";
            ri++;
        } else if (p->pointer || p->type != ACC_I64) {
            m->why = "comes after every array and should be an i64 extent";
        } else if (++m->n_extents > available) {
            m->why = "asks for more extents than the argument arrays have";
        }
        if (m->why)
            return 0;
    }
    m->param = s->n_params;
    if (ai < q->n_args)
        m->why = "there are more argument arrays than parameters";
    else if (s->ret_void && ri < q->n_results)
        m->why = "there are result arrays left with no pointer parameter";
    else if (!s->ret_void && (q->n_results != 1 || q->result_ranks[0] != 0 ||
                              !is_scalar_array(q->result_elems[0], s->ret)))
        m->why = "the function returns a value, so the result must be one "
                 "Scalar of its return type";
    return m->why == NULL;
}

/* A result of rank r >= 1 takes the extents of the first argument array of
 * rank r; 0 when there is none. */
static int result_source(const acc_foreign_query *q, size_t ri, size_t *from)
{
    if (q->result_ranks[ri] == 0)
        return 1;
    for (size_t k = 0; k < q->n_args; k++)
        if (q->arg_ranks[k] == q->result_ranks[ri]) {
            *from = k;
            return 1;
        }
    return 0;
}

int reg_sig_accepts(const reg_sig *sig, int split, int device,
                    acc_foreign_query *q)
{
    mapping m;
    size_t from = 0;
    if (!match(sig, device, q, &m)) {
        if (m.param < sig->n_params)
            snprintf(q->reason, q->reason_size, "C signature: parameter %zu "
                     "%s", m.param + 1, m.why);
        else
            snprintf(q->reason, q->reason_size, "C signature: %s", m.why);
        return 0;
    }
    if (split && (q->n_results == 0 || q->result_ranks[0] == 0)) {
        snprintf(q->reason, q->reason_size, "C function: it is split over "
                 "the rows of result 0, which needs a result of rank >= 1");
        return 0;
    }
    for (size_t r = 0; r < q->n_results; r++)
        if (!result_source(q, r, &from)) {
            snprintf(q->reason, q->reason_size, "C function: result %zu has "
                     "rank %d, and no argument array has that rank to give "
                     "it its extents", r, (int)q->result_ranks[r]);
            return 0;
        }
    return 1;
}

acc_status reg_sig_result_shape(acc_foreign_call *call)
{
    for (size_t r = 0; r < call->n_results; r++) {
        acc_array *out = &call->results[r];
        for (size_t k = 0; out->rank > 0 && k < call->n_args; k++)
            if (call->args[k].rank == out->rank) {
                memcpy(out->extents, call->args[k].extents,
                       (size_t)out->rank * sizeof *out->extents);
                break;
            }
    }
    return ACC_OK;
}

int reg_sig_fits_scalar(const reg_sig *sig, size_t n_leaves,
                        const acc_scalar *leaves, const acc_type *result)
{
    if (sig->ret_void || sig->n_params != n_leaves ||
        !is_scalar_array(result, sig->ret))
        return 0;
    for (size_t i = 0; i < n_leaves; i++)
        if (sig->params[i].pointer || sig->params[i].type != leaves[i])
            return 0;
    return 1;
}

int reg_sig_is_scalar(const reg_sig *sig)
{
    if (sig->ret_void)
        return 0;
    for (size_t i = 0; i < sig->n_params; i++)
        if (sig->params[i].pointer)
            return 0;
    return 1;
}

void reg_sig_params(const reg_sig *sig, const acc_foreign_call *call,
                    uint64_t *slots, void **values)
{
    size_t ai = 0, ri = 0, arr = 0;
    int32_t dim = 0;
    for (size_t i = 0; i < sig->n_params; i++) {
        void *p = NULL;
        slots[i] = 0;
        if (ai < call->n_args) {
            p = call->args[ai++].data[0];
            memcpy(&slots[i], &p, sizeof p);
        } else if (sig->ret_void && ri < call->n_results) {
            p = call->results[ri++].data[0];
            memcpy(&slots[i], &p, sizeof p);
        } else {
            while (arr < call->n_args && dim >= call->args[arr].rank) {
                arr++;
                dim = 0;
            }
            int64_t e = arr < call->n_args ? call->args[arr].extents[dim++] : 0;
            memcpy(&slots[i], &e, sizeof e);
        }
        values[i] = &slots[i];
    }
}
