/*
 * values.c — the run's table of values (see values.h).
 *
 * Errors follow the library's convention (core/base/diag.h): every
 * function that can fail records the first error on the run's diag
 * (out of host memory through diag_oom) and returns its status.
 */
#include "core/backend/values.h"
#include "core/base/mem.h"

#include <stdlib.h>
#include <string.h>

/* The table and the temporaries' list, in one block (empty: every
 * slot zero, no temporary). */
struct values_spare {
    uint32_t *temps;
    size_t cap_temps;
    void *host;        /* values_host_block's */
    size_t host_bytes;
    run_value v[];
};

acc_status values_init(run_values *vs, const ir_program *ir,
                       const uint8_t *is_step, values_cache *cache, diag *d)
{
    memset(vs, 0, sizeof *vs);
    vs->ir = ir;
    vs->is_step = is_step;
    vs->cache = cache;
    values_spare *b = cache ? atomic_exchange(cache, NULL) : NULL;
    if (!b && !(b = mem_calloc(1, sizeof *b + (ir->n_nodes ? ir->n_nodes : 1)
                                                  * sizeof *b->v)))
        return diag_oom(d, "acc_run");
    vs->block = b;
    vs->v = b->v;
    vs->temps = b->temps;
    vs->cap_temps = b->cap_temps;
    return d->status;
}

static void spare_free(values_spare *b)
{
    if (b) {
        free(b->temps);
        free(b->host);
    }
    free(b);
}

void *values_host_block(run_values *vs, size_t bytes, diag *d)
{
    values_spare *b = vs->block;
    if (b->host_bytes < bytes) {
        void *m = mem_alloc(bytes);
        if (!m) {
            diag_oom(d, "acc_run");
            return NULL;
        }
        free(b->host);
        b->host = m;
        b->host_bytes = bytes;
    }
    return b->host;
}

void values_cache_clear(values_cache *cache)
{
    spare_free(atomic_exchange(cache, NULL));
}

void values_release(run_values *vs, uint32_t id)
{
    run_value *v = &vs->v[id];
    if (!v->n && !v->arrays && !v->poison)
        return; /* most nodes never hold a value */
    for (size_t j = 0; j < v->n; j++)
        rt_release(v->arrays[j]);
    if (v->arrays != v->held)
        free(v->arrays);
    free(v->poison);
    memset(v, 0, sizeof *v);
    vs->n_live--;
}

void values_free(run_values *vs)
{
    /* a run that ended normally released every value as the schedule
     * says: the walk over every node is for the runs that stopped early */
    for (uint32_t i = 0; vs->v && vs->n_live && i < vs->ir->n_nodes; i++)
        values_release(vs, i);
    values_spare *b = vs->block, *none = NULL;
    if (b) {
        b->temps = vs->temps;
        b->cap_temps = vs->cap_temps;
        if (!vs->cache || !atomic_compare_exchange_strong(vs->cache, &none, b))
            spare_free(b); /* another run's table is kept already */
    }
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

/* Takes over `arrays` as id's value (released on failure). */
static acc_status store(run_values *vs, uint32_t id, rt_array **arrays,
                        size_t count, int temp, diag *d)
{
    run_value *v = &vs->v[id];
    rt_array **copy = count <= VALUES_HELD
                          ? NULL : mem_alloc(count * sizeof *copy);
    if ((count > VALUES_HELD && !copy) || (temp && !note_temp(vs, id))) {
        free(copy);
        for (size_t j = 0; j < count; j++)
            rt_release(arrays[j]);
        return diag_oom(d, "acc_run");
    }
    values_release(vs, id);
    v->arrays = copy ? copy : v->held;
    memcpy(v->arrays, arrays, count * sizeof *copy);
    v->n = count;
    vs->n_live++;
    return d->status;
}

acc_status values_set(run_values *vs, uint32_t id, rt_array **arrays,
                      size_t count, diag *d)
{
    return store(vs, id, arrays, count, !vs->is_step[id], d);
}

acc_status values_bind(run_values *vs, uint32_t id, rt_array *const *arrays,
                       size_t count, diag *d)
{
    rt_array *refs[ACC_MAX_COMPONENTS * 4];
    rt_array **held = count <= sizeof refs / sizeof *refs
                          ? refs : mem_alloc(count * sizeof *held);
    if (!held)
        return diag_oom(d, "acc_run");
    for (size_t j = 0; j < count; j++)
        rt_retain(held[j] = arrays[j]);
    acc_status s = store(vs, id, held, count, 0, d);
    if (held != refs)
        free(held);
    return s;
}

acc_status values_poison(run_values *vs, uint32_t id, diag *d)
{
    diag *copy = mem_alloc(sizeof *copy);
    if (!copy) {
        diag_clear(d);
        return diag_oom(d, "acc_run");
    }
    *copy = *d;
    diag_clear(d);
    values_release(vs, id);
    vs->v[id].poison = copy;
    vs->n_live++;
    return ACC_OK;
}

void values_end_step(run_values *vs)
{
    for (size_t i = 0; i < vs->n_temps; i++)
        values_release(vs, vs->temps[i]);
    vs->n_temps = 0;
}
