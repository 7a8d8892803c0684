/*
 * values.c — the run's table of values (see values.h).
 */
#include "core/backend/values.h"
#include "core/base/mem.h"

#include <stdlib.h>
#include <string.h>

int values_init(run_values *vs, const ir_program *ir, const uint8_t *is_step,
                diag *d)
{
    memset(vs, 0, sizeof *vs);
    vs->ir = ir;
    vs->is_step = is_step;
    vs->v = mem_calloc(ir->n_nodes ? ir->n_nodes : 1, sizeof *vs->v);
    if (!vs->v) {
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "acc_run: out of host memory");
        return 0;
    }
    return 1;
}

void values_release(run_values *vs, uint32_t id)
{
    run_value *v = &vs->v[id];
    if (!v->n && !v->arrays && !v->poison)
        return; /* most nodes never hold a value: the end of every run
                 * visits them all (values_free) */
    for (size_t j = 0; j < v->n; j++)
        rt_release(v->arrays[j]);
    free(v->arrays);
    free(v->poison);
    memset(v, 0, sizeof *v);
}

void values_free(run_values *vs)
{
    for (uint32_t i = 0; vs->v && i < vs->ir->n_nodes; i++)
        values_release(vs, i);
    free(vs->v);
    free(vs->temps);
    memset(vs, 0, sizeof *vs);
}

static int note_temp(run_values *vs, uint32_t id)
{
    if (vs->n_temps == vs->cap_temps) {
        size_t cap = vs->cap_temps ? 2 * vs->cap_temps : 16;
        uint32_t *grown = mem_realloc(vs->temps, cap * sizeof *grown);
        if (!grown)
            return 0;
        vs->temps = grown;
        vs->cap_temps = cap;
    }
    vs->temps[vs->n_temps++] = id;
    return 1;
}

static int store(run_values *vs, uint32_t id, rt_array **arrays,
                 size_t count, int temp, diag *d)
{
    rt_array **copy = mem_alloc((count ? count : 1) * sizeof *copy);
    if (!copy || (temp && !note_temp(vs, id))) {
        free(copy);
        for (size_t j = 0; j < count; j++)
            rt_release(arrays[j]);
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "acc_run: out of host memory");
        return 0;
    }
    values_release(vs, id);
    memcpy(copy, arrays, count * sizeof *copy);
    vs->v[id].n = count;
    vs->v[id].arrays = copy;
    return 1;
}

int values_set(run_values *vs, uint32_t id, rt_array **arrays, size_t count,
               diag *d)
{
    return store(vs, id, arrays, count, !vs->is_step[id], d);
}

int values_bind(run_values *vs, uint32_t id, rt_array *const *arrays,
                size_t count, diag *d)
{
    rt_array *refs[ACC_MAX_COMPONENTS * 4];
    rt_array **held = count <= sizeof refs / sizeof *refs
                          ? refs : mem_alloc(count * sizeof *held);
    if (!held) {
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "acc_run: out of host memory");
        return 0;
    }
    for (size_t j = 0; j < count; j++)
        rt_retain(held[j] = arrays[j]);
    int ok = store(vs, id, held, count, 0, d);
    if (held != refs)
        free(held);
    return ok;
}

int values_poison(run_values *vs, uint32_t id, const diag *d)
{
    diag *copy = mem_alloc(sizeof *copy);
    if (!copy)
        return 0;
    *copy = *d;
    values_release(vs, id);
    vs->v[id].poison = copy;
    return 1;
}

void values_end_step(run_values *vs)
{
    for (size_t i = 0; i < vs->n_temps; i++)
        values_release(vs, vs->temps[i]);
    vs->n_temps = 0;
}
