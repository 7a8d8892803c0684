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
    m->n_inputs = ir->n_inputs;
    for (size_t i = 0, at = 0; i < ir->n_inputs; i++) {
        const acc_type *e = ir->inputs[i]->type->elem;
        cpu_direct_input *in = &m->in[i];
        in->elem = e;
        in->rank = ir->inputs[i]->type->rank;
        in->key_at = (uint32_t)at;
        at += (size_t)in->rank;
        in->n_leaves = (uint32_t)e->n_leaves;
        for (size_t k = 0; k < e->n_leaves; k++)
            in->leaf_bytes[k] = (uint8_t)acc_scalar_size(e->leaves[k]);
    }
    const acc_type *e = st->node->type->elem;
    m->out_elem = e;
    m->out_rank = st->node->type->rank;
    m->out_leaves = (uint32_t)e->n_leaves;
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
            for (size_t k = 0; k < n_inputs; k++)
                fresh->in_size[k] = inputs[k]->size;
            fresh->rows = rt_shape_size(m->out_rank, src->ext);
            cpu_fold_args(m->kn, fresh->ext, fresh->rows, fresh->seed,
                          &fresh->args);
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

/* The first published acc_array is the whole struct (it has never grown):
 * what a descriptor must at least declare, as core/exec/run.c checks. */
#define ARRAY_V1_SIZE sizeof(acc_array)

/* Whether a descriptor's type is elem, as the executor compares them: the
 * same pointer (types are interned: the usual case), else a type equal
 * to it. */
static int type_is(const acc_type *t, const acc_type *elem)
{
    return t == elem || (t && ty_is_type(t) && ty_equal(t, elem));
}

/* Whether the inputs are descriptors the executor accepts, with memo's
 * extents: size, memory, type and rank as the signature's, extents as
 * memo's key (the extents of a run the executor accepted), a buffer for
 * every leaf of an input with elements.  One pass: this is most of a
 * small run's checking. */
static int inputs_match(const cpu_direct *m, const cpu_direct_memo *memo,
                        const acc_array *inputs)
{
    const cpu_direct_input *in = m->in;
    const int64_t *key = memo->key, *size = memo->in_size;
    for (const acc_array *a = inputs, *end = inputs + m->n_inputs; a < end;
         a++, in++, size++) {
        if (a->struct_size < ARRAY_V1_SIZE || a->memory != ACC_MEMORY_HOST ||
            a->rank != in->rank || !type_is(a->type, in->elem))
            return 0;
        for (const int64_t *e = a->extents, *stop = e + in->rank; e < stop;
             e++)
            if (*e != *key++)
                return 0;
        if (*size > 0)
            for (void *const *d = a->data, *const *stop = d + in->n_leaves;
                 d < stop; d++)
                if (!*d)
                    return 0;
    }
    return 1;
}

/* The memo of the inputs' extents when the inputs are usable (above). */
static const cpu_direct_memo *recall(cpu_direct *m, const acc_array *inputs)
{
    for (size_t i = 0; i < CPU_DIRECT_SLOTS; i++) {
        const cpu_direct_memo *have =
            atomic_load_explicit(&m->slot[i], memory_order_acquire);
        if (!have || inputs_match(m, have, inputs))
            return have;
    }
    return NULL;
}

/* Whether `bytes` bytes at buf share a byte with any leaf buffer of an
 * input (the rule of destinations.h: a kernel never writes what it
 * reads). */
static int touches_an_input(const cpu_direct *m, const cpu_direct_memo *memo,
                            const acc_array *inputs, uintptr_t buf,
                            size_t bytes)
{
    for (size_t i = 0; i < m->n_inputs; i++)
        for (uint32_t k = 0; memo->in_size[i] > 0 && k < m->in[i].n_leaves;
             k++) {
            uintptr_t at = (uintptr_t)inputs[i].data[k];
            size_t len = (size_t)memo->in_size[i] * m->in[i].leaf_bytes[k];
            if (at < buf + bytes && buf < at + len)
                return 1;
        }
    return 0;
}

/* Whether the caller's output buffers take the result as they are: a
 * descriptor the executor accepts, of the result's type and extents,
 * with every leaf buffer, overlapping no input. */
static int output_fits(const cpu_direct *m, const cpu_direct_memo *memo,
                       const acc_array *inputs, const acc_array *out)
{
    if (out->struct_size < ARRAY_V1_SIZE || out->rank != m->out_rank ||
        (out->type && !type_is(out->type, m->out_elem)))
        return 0;
    for (int32_t k = 0; k < m->out_rank; k++)
        if (out->extents[k] != memo->ext[k])
            return 0;
    for (uint32_t k = 0; k < m->out_leaves; k++)
        if (!out->data[k] ||
            touches_an_input(m, memo, inputs, (uintptr_t)out->data[k],
                             (size_t)memo->rows * m->out_leaf_bytes[k]))
            return 0;
    return 1;
}

int cpu_direct_run(cpu_direct *m, pool *pl, size_t n_inputs,
                   const acc_array *inputs, size_t n_outputs,
                   acc_array *outputs, uint64_t *bytes)
{
    if (n_inputs != m->n_inputs || n_outputs != 1 || !outputs ||
        (n_inputs > 0 && !inputs) || outputs->memory != ACC_MEMORY_HOST)
        return 0;
    const cpu_direct_memo *memo = recall(m, inputs);
    if (!memo || memo->rows <= 0 || memo->args.inner <= 0)
        return 0;
    /* no buffers given (host memory): new ones, the library's */
    acc_array fresh, *into = outputs;
    *bytes = 0;
    if (!outputs->data[0]) {
        if (!hostmem_output_new(&fresh, m->out_elem, m->out_rank, memo->ext,
                                memo->rows))
            return 0;
        into = &fresh;
        for (uint32_t k = 0; k < m->out_leaves; k++)
            *bytes += (uint64_t)memo->rows * m->out_leaf_bytes[k];
    } else if (!output_fits(m, memo, inputs, outputs)) {
        return 0;
    }
    /* the kernel's arrays: the leaves and extents it reads (the rest of
     * each cpu_karray is never read); the first of each copied on its
     * own, so that the usual input, a vector of scalars, copies two
     * words */
    cpu_launch l;
    for (size_t i = 0; i < m->kn->k.n_arrays; i++) {
        uint32_t at = m->input_of[i];
        const acc_array *a = &inputs[at];
        cpu_karray *k = &l.few[i];
        k->data[0] = a->data[0];
        for (uint32_t j = 1; j < m->in[at].n_leaves; j++)
            k->data[j] = a->data[j];
        k->ext[0] = a->extents[0];
        for (int32_t j = 1; j < m->in[at].rank; j++)
            k->ext[j] = a->extents[j];
        k->size = memo->in_size[at];
    }
    /* the launch as the fold driver arms it; a run too small for the
     * pool's threads calls the kernel here (nothing can stop it: no
     * check point to pass) */
    l.A = memo->args;
    l.A.out = into->data;
    l.in = l.few;
    l.entry = m->kn->entry;
    l.row = l.part_len = 0;
    cpu_arm(&l, NULL);
    int done;
    if (cpu_serial(pl, memo->rows * memo->args.inner)) {
        cpu_run_fn run;
        memcpy(&run, &l.entry->run, sizeof run);
        run(&l.A, 0, memo->rows);
        done = !cpu_failed(&l);
    } else {
        done = cpu_fold_direct(pl, m->kn, m->step, &l);
    }
    if (!done) {
        if (into == &fresh)
            hostmem_output_free(&fresh);
        return 0;
    }
    if (into == &fresh)
        *outputs = fresh;
    /* a load and a store, not a locked add (8 ns of a 300 ns run):
     * concurrent runs may count as one */
    atomic_store_explicit(
        &m->runs, atomic_load_explicit(&m->runs, memory_order_relaxed) + 1,
        memory_order_relaxed);
    return 1;
}
