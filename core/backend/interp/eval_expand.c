/*
 * eval_expand.c — irregular expansion in the reference interpreter
 * (LANGUAGE.md §3.6): element x of a vector contributes size x results
 * get x 0 .. get x (size x - 1), concatenated in order.
 *
 * The sizes are computed first (a negative size, or a total beyond int64,
 * is an error before anything is allocated), then the results.
 */
#include "core/backend/interp/interp_state.h"
#include "core/base/mem.h"

#include <stdlib.h>

/* Fills sizes[0 .. xs->size-1] and returns their total, or -1 after an
 * error. */
static int64_t expansion_sizes(interp *st, const ir_node *size_fn,
                               const rt_array *xs, int64_t *sizes)
{
    ir_value elem[ACC_MAX_COMPONENTS];
    int64_t total = 0;
    for (int64_t i = 0; i < xs->size; i++) {
        interp_load_element(xs, i, elem);
        const ir_value *args[1] = {elem};
        const ir_value *s = interp_apply(st, size_fn, args);
        if (!s)
            return -1;
        if (s->i < 0) {
            diag_fail(st->d, ACC_ERR_RUNTIME, "expand: the size function "
                      "gives %lld for element %lld; sizes must not be "
                      "negative", (long long)s->i, (long long)i);
            return -1;
        }
        if (s->i > INT64_MAX - total) {
            diag_fail(st->d, ACC_ERR_SHAPE, "expand: the sizes add up to more "
                      "than %lld elements", (long long)INT64_MAX);
            return -1;
        }
        sizes[i] = s->i;
        total += s->i;
    }
    return total;
}

/* Stores get x k for every element x and k < its size into r. */
static int expansion_values(interp *st, const ir_node *get,
                            const rt_array *xs, const int64_t *sizes,
                            rt_array *r)
{
    ir_value elem[ACC_MAX_COMPONENTS];
    int64_t at = 0;
    for (int64_t i = 0; i < xs->size; i++) {
        interp_load_element(xs, i, elem);
        for (int64_t k = 0; k < sizes[i]; k++) {
            ir_value kv = {.i = k};
            const ir_value *args[2] = {elem, &kv};
            const ir_value *v = interp_apply(st, get, args);
            if (!v)
                return 0;
            interp_store_element(r, at++, v);
        }
    }
    return 1;
}

rt_array *interp_eval_expand(interp *st, const ir_node *n)
{
    rt_array *xs = interp_array_of(st, n->args[2]);
    if (!xs)
        return NULL;
    int64_t *sizes = mem_alloc((size_t)(xs->size ? xs->size : 1) *
                               sizeof *sizes);
    if (!sizes) {
        diag_oom(st->d, "expand");
        return NULL;
    }
    int64_t total = expansion_sizes(st, n->args[0], xs, sizes);
    rt_array *r = total < 0 ? NULL
                            : rt_alloc(n->type->elem, 1, &total, "expand",
                                       st->d);
    if (r && !expansion_values(st, n->args[1], xs, sizes, r)) {
        rt_release(r);
        r = NULL;
    }
    free(sizes);
    return r;
}
