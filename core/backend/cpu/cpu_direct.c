/*
 * cpu_direct.c — direct runs of programs that are one fold kernel over
 * their inputs (cpu_direct.h).
 */
#include "core/backend/cpu/cpu_direct.h"

#include "core/backend/host_memory.h"
#include "core/base/mem.h"
#include "core/ir/dump.h"
#include "core/ir/types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- marking ------------------------------------------------------------ */

/* Let variables bound inside a term, while it is walked. */
typedef struct bound_vars {
    uint32_t var[16];
    size_t n;
} bound_vars;

/* Whether scalar term t depends on the inputs' extents only: constants,
 * arithmetic, conditionals, tuples, indices and lets over `shape` and
 * `size` of program inputs; no element read, no loop, no foreign code,
 * no variable bound outside t. */
static int extents_only(const ir_node *t, bound_vars *b, uint32_t depth)
{
    if (depth > 64)
        return 0;
    switch (t->op) {
    case IR_CONST:
        return 1;
    case IR_VAR:
        for (size_t i = 0; i < b->n; i++)
            if (b->var[i] == t->u.let.var)
                return 1;
        return 0;
    case IR_SHAPE:
    case IR_SIZE:
        return t->args[0]->op == IR_INPUT;
    case IR_LET:
        if (b->n == sizeof b->var / sizeof *b->var ||
            !extents_only(t->args[0], b, depth + 1))
            return 0;
        b->var[b->n++] = t->u.let.var;
        return extents_only(t->args[1], b, depth + 1);
    case IR_PRIM:
    case IR_CONVERT:
    case IR_COND:
    case IR_TUPLE:
    case IR_GET:
    case IR_INDEX:
        for (uint32_t i = 0; i < t->n_args; i++)
            if (!extents_only(t->args[i], b, depth + 1))
                return 0;
        return 1;
    default:
        return 0;
    }
}

static int term_of_extents(const ir_node *t)
{
    bound_vars b = {{0}, 0};
    return extents_only(t, &b, 0);
}

/* The fold's source: a program input, or an embedded generate whose shape
 * is a term of the inputs' extents. */
static int source_qualifies(const ir_node *xs)
{
    return xs->op == IR_INPUT ||
           (xs->op == IR_GENERATE && term_of_extents(xs->args[0]));
}

cpu_direct *cpu_direct_mark(const ir_program *ir, const sched_program *s)
{
    if (pass_disabled("direct") || s->root.n_steps != 1 ||
        ir->n_outputs != 1)
        return NULL;
    const sched_step *st = &s->root.steps[0];
    if (st->kind != SCHED_ARRAY || st->by != SCHED_BY_KERNEL ||
        s->root.result != st->node)
        return NULL;
    cpu_node *kn = st->kernel;
    const ir_node *fold = kn->k.fold;
    if (kn->k.kind != CG_KERNEL_FOLD || !kn->entry ||
        (fold->op != IR_FOLD && fold->op != IR_FOLD1) ||
        kn->k.n_arrays > CPU_FEW_ARRAYS || !source_qualifies(kn->k.src) ||
        (fold->op == IR_FOLD && !term_of_extents(fold->args[1])))
        return NULL;
    size_t key_len = 0;
    for (size_t i = 0; i < ir->n_inputs; i++)
        key_len += (size_t)ir->inputs[i]->type->rank;
    if (key_len > CPU_DIRECT_KEY_MAX || ir->n_inputs > CPU_DIRECT_INPUTS)
        return NULL;
    cpu_direct *m = mem_calloc(1, sizeof *m);
    if (!m)
        return NULL;
    for (size_t i = 0; i < ir->n_inputs; i++) {
        const acc_type *e = ir->inputs[i]->type->elem;
        for (size_t k = 0; k < e->n_leaves; k++)
            m->in_leaf_bytes[i][k] = (uint8_t)acc_scalar_size(e->leaves[k]);
    }
    const acc_type *e = st->node->type->elem;
    for (size_t k = 0; k < e->n_leaves; k++)
        m->out_leaf_bytes[k] = (uint8_t)acc_scalar_size(e->leaves[k]);
    for (size_t i = 0; i < kn->k.n_arrays; i++) {
        const ir_node *a = kn->k.arrays[i];
        if (a->op != IR_INPUT || a->u.input >= ir->n_inputs ||
            ir->inputs[a->u.input] != a) {
            free(m);
            return NULL;
        }
        m->input_of[i] = a->u.input;
    }
    m->ir = ir;
    m->kn = kn;
    m->step = st->node;
    m->key_len = key_len;
    for (size_t i = 0; i < CPU_DIRECT_SLOTS; i++)
        atomic_init(&m->slot[i], NULL);
    atomic_init(&m->runs, 0);
    kn->direct = m;
    return m;
}

void cpu_direct_free(cpu_direct *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < CPU_DIRECT_SLOTS; i++)
        free(atomic_load(&m->slot[i]));
    free(m);
}

int cpu_direct_describe(cpu_direct *m, int json, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!m)
        return 0;
    size_t kept = 0;
    while (kept < CPU_DIRECT_SLOTS && atomic_load(&m->slot[kept]))
        kept++;
    unsigned long long runs = atomic_load(&m->runs);
    snprintf(buf, size,
             json ? "\"direct\":{\"remembered\":%zu,\"slots\":%d,"
                    "\"runs\":%llu}"
                  : "cpu: direct runs (one fold over the inputs): %zu of %d "
                    "input extents remembered, %llu runs direct\n",
             kept, CPU_DIRECT_SLOTS, runs);
    return 1;
}

/* ---- remembering --------------------------------------------------------- */

/* Every input's extents, in order, flattened (ranks as the program's). */
static void key_of(const ir_program *ir, const int64_t *const *ext,
                   int64_t *key)
{
    size_t at = 0;
    for (size_t i = 0; i < ir->n_inputs; i++) {
        int32_t r = ir->inputs[i]->type->rank;
        memcpy(key + at, ext[i], (size_t)r * sizeof *key);
        at += (size_t)r;
    }
}

void cpu_direct_remember(cpu_direct *m, rt_array *const *inputs,
                         size_t n_inputs, const host_source *src)
{
    const int64_t *ext[CPU_DIRECT_INPUTS];
    int64_t key[CPU_DIRECT_KEY_MAX];
    if (n_inputs != m->ir->n_inputs) /* at most CPU_DIRECT_INPUTS: marked */
        return;
    for (size_t i = 0; i < n_inputs; i++)
        ext[i] = inputs[i]->extents;
    key_of(m->ir, ext, key);
    cpu_direct_memo *fresh = NULL;
    for (size_t i = 0; i < CPU_DIRECT_SLOTS; i++) {
        cpu_direct_memo *have = atomic_load_explicit(&m->slot[i],
                                                     memory_order_acquire);
        if (!have) {
            if (!fresh && !(fresh = mem_calloc(1, sizeof *fresh)))
                return;
            memcpy(fresh->key, key, sizeof key);
            memcpy(fresh->ext, src->ext, sizeof fresh->ext);
            memcpy(fresh->seed, src->seed, sizeof fresh->seed);
            if (atomic_compare_exchange_strong_explicit(
                    &m->slot[i], &have, fresh, memory_order_release,
                    memory_order_acquire))
                return;
            /* another run published this slot first: compare with it */
        }
        if (memcmp(have->key, key, m->key_len * sizeof *key) == 0)
            break;
    }
    free(fresh);
}

/* ---- running ------------------------------------------------------------ */

/* Whether memo's key is the inputs' extents. */
static int same_extents(const ir_program *ir, const cpu_direct_memo *memo,
                        const acc_array *inputs)
{
    size_t at = 0;
    for (size_t i = 0; i < ir->n_inputs; i++)
        for (int32_t k = 0; k < ir->inputs[i]->type->rank; k++)
            if (memo->key[at++] != inputs[i].extents[k])
                return 0;
    return 1;
}

static const cpu_direct_memo *recall(cpu_direct *m, const acc_array *inputs)
{
    for (size_t i = 0; i < CPU_DIRECT_SLOTS; i++) {
        const cpu_direct_memo *have =
            atomic_load_explicit(&m->slot[i], memory_order_acquire);
        if (!have || same_extents(m->ir, have, inputs))
            return have;
    }
    return NULL;
}

/* Whether `bytes` bytes at buf share a byte with any leaf buffer of an
 * input (the rule of destinations.h: a kernel never writes what it
 * reads). */
static int touches_an_input(const cpu_direct *m, const acc_array *inputs,
                            uintptr_t buf, size_t bytes)
{
    for (size_t i = 0; i < m->ir->n_inputs; i++) {
        const acc_array *a = &inputs[i];
        int64_t n = 1;
        for (int32_t d = 0; d < a->rank; d++)
            n *= a->extents[d]; /* checked: no overflow */
        for (size_t k = 0; n > 0 && k < ACC_MAX_COMPONENTS &&
                           m->in_leaf_bytes[i][k];
             k++) {
            uintptr_t at = (uintptr_t)a->data[k];
            size_t len = (size_t)n * m->in_leaf_bytes[i][k];
            if (at < buf + bytes && buf < at + len)
                return 1;
        }
    }
    return 0;
}

/* Whether the caller's output takes the result as it is: host buffers of
 * the result's type and extents, overlapping no input. */
static int output_fits(const cpu_direct *m, const acc_array *inputs,
                       const acc_array *out, int32_t rank, const int64_t *ext,
                       int64_t size)
{
    const acc_type *elem = m->step->type->elem;
    if (out->memory != ACC_MEMORY_HOST || out->rank != rank ||
        (out->type && (!ty_is_type(out->type) || !ty_equal(out->type, elem))))
        return 0;
    for (int32_t k = 0; k < rank; k++)
        if (out->extents[k] != ext[k])
            return 0;
    for (size_t k = 0; k < elem->n_leaves; k++)
        if (!out->data[k] ||
            touches_an_input(m, inputs, (uintptr_t)out->data[k],
                             (size_t)size * m->out_leaf_bytes[k]))
            return 0;
    return 1;
}

int cpu_direct_run(cpu_direct *m, pool *pl, size_t n_inputs,
                   const acc_array *inputs, acc_array *output,
                   uint64_t *bytes)
{
    const cpu_direct_memo *memo = recall(m, inputs);
    if (!memo || n_inputs != m->ir->n_inputs)
        return 0;
    int32_t r = m->kn->k.src->type->rank;
    int64_t rows = rt_shape_size(r - 1, memo->ext);
    if (rows <= 0 || memo->ext[r - 1] <= 0)
        return 0;
    /* no buffers given (host memory): new ones, the library's */
    acc_array fresh, *into = output;
    const acc_type *elem = m->step->type->elem;
    *bytes = 0;
    if (output->memory == ACC_MEMORY_HOST && !output->data[0]) {
        if (!hostmem_output_new(&fresh, elem, r - 1, memo->ext, rows))
            return 0;
        into = &fresh;
        for (size_t k = 0; k < elem->n_leaves; k++)
            *bytes += (uint64_t)rows * m->out_leaf_bytes[k];
    } else if (!output_fits(m, inputs, output, r - 1, memo->ext, rows)) {
        return 0;
    }
    cpu_launch l;
    for (size_t i = 0; i < m->kn->k.n_arrays; i++) {
        const acc_array *a = &inputs[m->input_of[i]];
        cpu_karray *k = &l.few[i];
        memcpy(k->data, a->data, sizeof k->data);
        memcpy(k->ext, a->extents, sizeof k->ext);
        k->size = 1;
        for (int32_t d = 0; d < a->rank; d++)
            k->size *= a->extents[d];
    }
    if (!cpu_fold_direct(pl, m->kn, m->step, &l, memo->ext, memo->seed,
                         into->data)) {
        if (into == &fresh)
            hostmem_output_free(&fresh);
        return 0;
    }
    if (into == &fresh)
        *output = fresh;
    /* a load and a store, not a locked add (8 ns of a 300 ns run):
     * concurrent runs may count as one */
    atomic_store_explicit(
        &m->runs, atomic_load_explicit(&m->runs, memory_order_relaxed) + 1,
        memory_order_relaxed);
    return 1;
}
