/*
 * fftw_plugin.c — the fftw plugin (DESIGN.md §8): FFTW behind the foreign
 * names "fft.forward" and "fft.inverse", complex-to-complex transforms of
 * rank 1 to 3 over arrays of (re, im) pairs of f32 or f64 in host memory
 * (host backends), any lengths, priority 10.
 *
 * accel stores an array of pairs as two buffers (re and im), which is
 * exactly FFTW's split format: fftw_plan_guru_split_dft transforms them in
 * place of a copy.  The inverse is the forward transform with re and im
 * swapped (FFTW's documented identity), followed by the division by the
 * number of elements that makes ifft (fft x) = x.
 *
 * FFTW's planner is not thread-safe, so planning and destroying plans
 * happen under one lock; executing a plan on new arrays is thread-safe.
 * Plans are made with FFTW_ESTIMATE (which never touches the arrays) per
 * call and destroyed after it: measuring plans would cost more than the
 * transforms of the sizes accel programs pass here.
 */
#include "accel.h"

#include <fftw3.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned loads; /* contexts that loaded the plugin (planner_lock) */

typedef struct fft_kind {
    int inverse;
} fft_kind;

static const fft_kind forward_kind = {0}, inverse_kind = {1};

static int refuse(acc_foreign_query *q, const char *why)
{
    snprintf(q->reason, q->reason_size, "%s", why);
    return 0;
}

/* The element is (e, e) with e f32 or f64; *s receives e. */
static int complex_elem(const acc_type *t, acc_scalar *s)
{
    if (acc_type_get_kind(t) != ACC_TYPE_TUPLE || acc_type_get_arity(t) != 2 ||
        acc_type_leaf_count(t) != 2)
        return 0;
    *s = acc_type_leaf(t, 0);
    return (*s == ACC_F32 || *s == ACC_F64) && acc_type_leaf(t, 1) == *s;
}

static int accepts(acc_foreign_query *q)
{
    acc_scalar s = 0;
    if (q->n_args != 1 || q->n_results != 1)
        return refuse(q, "expects one array and one result");
    if (!complex_elem(q->arg_elems[0], &s) ||
        !acc_type_equal(q->arg_elems[0], q->result_elems[0]))
        return refuse(q, "the elements are not (re, im) pairs of f32 or f64");
    if (q->arg_ranks[0] < 1 || q->arg_ranks[0] > 3 ||
        q->result_ranks[0] != q->arg_ranks[0])
        return refuse(q, "FFTW transforms ranks 1 to 3 here");
    return 1;
}

static acc_status same_shape(acc_foreign_call *c)
{
    memcpy(c->results[0].extents, c->args[0].extents,
           sizeof c->results[0].extents);
    return ACC_OK;
}

/* dims of the transform: row-major strides of the extents. */
static int make_dims(const acc_array *a, fftw_iodim *dims)
{
    int64_t stride = 1;
    for (int32_t d = a->rank - 1; d >= 0; d--) {
        if (a->extents[d] > 2147483647 || stride > 2147483647)
            return 0;
        dims[d].n = (int)a->extents[d];
        dims[d].is = (int)stride;
        dims[d].os = (int)stride;
        stride *= a->extents[d];
    }
    return 1;
}

/* re and im of the input and output, swapped for the inverse. */
typedef struct split {
    void *ri, *ii, *ro, *io;
} split;

static split buffers(const acc_foreign_call *c, int inverse)
{
    split s = {c->args[0].data[0], c->args[0].data[1],
               c->results[0].data[0], c->results[0].data[1]};
    if (inverse) {
        void *t = s.ri;
        s.ri = s.ii;
        s.ii = t;
        t = s.ro;
        s.ro = s.io;
        s.io = t;
    }
    return s;
}

static const unsigned plan_flags = FFTW_ESTIMATE | FFTW_PRESERVE_INPUT;

static int run_f64(const acc_array *a, const fftw_iodim *dims, split s)
{
    pthread_mutex_lock(&planner_lock);
    fftw_plan p = fftw_plan_guru_split_dft(a->rank, dims, 0, NULL, s.ri, s.ii,
                                           s.ro, s.io, plan_flags);
    pthread_mutex_unlock(&planner_lock);
    if (!p)
        return 0;
    fftw_execute_split_dft(p, s.ri, s.ii, s.ro, s.io);
    pthread_mutex_lock(&planner_lock);
    fftw_destroy_plan(p);
    pthread_mutex_unlock(&planner_lock);
    return 1;
}

static int run_f32(const acc_array *a, const fftw_iodim *dims, split s)
{
    fftwf_iodim fd[3];
    for (int32_t d = 0; d < a->rank; d++) {
        fd[d].n = dims[d].n;
        fd[d].is = dims[d].is;
        fd[d].os = dims[d].os;
    }
    pthread_mutex_lock(&planner_lock);
    fftwf_plan p = fftwf_plan_guru_split_dft(a->rank, fd, 0, NULL, s.ri, s.ii,
                                             s.ro, s.io, plan_flags);
    pthread_mutex_unlock(&planner_lock);
    if (!p)
        return 0;
    fftwf_execute_split_dft(p, s.ri, s.ii, s.ro, s.io);
    pthread_mutex_lock(&planner_lock);
    fftwf_destroy_plan(p);
    pthread_mutex_unlock(&planner_lock);
    return 1;
}

static void divide(acc_array *r, int f32, int64_t n)
{
    for (int c = 0; c < 2; c++)
        for (int64_t i = 0; i < n; i++) {
            if (f32)
                ((float *)r->data[c])[i] /= (float)n;
            else
                ((double *)r->data[c])[i] /= (double)n;
        }
}

static acc_status execute(acc_foreign_call *c)
{
    const fft_kind *kind = c->user;
    const acc_array *a = &c->args[0];
    int64_t n = acc_array_size(a);
    fftw_iodim dims[3];
    int f32 = acc_type_leaf(a->type, 0) == ACC_F32;
    if (n == 0)
        return ACC_OK;
    if (!make_dims(a, dims))
        return ACC_ERR_UNSUPPORTED; /* beyond FFTW's int: the fallback */
    split s = buffers(c, kind->inverse);
    int ok = f32 ? run_f32(a, dims, s) : run_f64(a, dims, s);
    if (!ok) {
        snprintf(c->message, c->message_size, "FFTW could not plan the "
                 "transform");
        return ACC_ERR_PLUGIN;
    }
    if (kind->inverse)
        divide(&c->results[0], f32, n);
    return ACC_OK;
}

/* FFTW keeps planner data (twiddles, wisdom) for the process; when the
 * last context that loaded the plugin goes, it is freed, as the plugin
 * may be unloaded.  No plan outlives a call, so none becomes invalid. */
static void unload(void *user)
{
    (void)user;
    pthread_mutex_lock(&planner_lock);
    if (--loads == 0) {
        fftw_cleanup();
        fftwf_cleanup();
    }
    pthread_mutex_unlock(&planner_lock);
}

static acc_status add(acc_plugin_registrar *reg, const char *name,
                      const char *impl_name, const fft_kind *kind)
{
    acc_foreign_impl impl;
    memset(&impl, 0, sizeof impl);
    impl.struct_size = sizeof impl;
    impl.name = name;
    impl.impl_name = impl_name;
    impl.backend = ACC_BACKEND_CPU;
    impl.priority = 10;
    impl.accepts = accepts;
    impl.result_shape = same_shape;
    impl.execute = execute;
    impl.user = (void *)kind;
    impl.release = kind == &forward_kind ? unload : NULL;
    impl.note = "FFTW split-array guru interface, ranks 1-3, f32 and f64";
    return reg->add(reg, &impl);
}

/* The plugin's entry (ACC_PLUGIN_ENTRY_SYMBOL). */
acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version);

acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version)
{
    acc_status st = ACC_PLUGIN_DECLARE(reg, "fftw");
    (void)abi_version; /* the declaration checks it */
    if (st == ACC_OK) {
        pthread_mutex_lock(&planner_lock);
        loads++; /* released by unload, with the forward implementation */
        pthread_mutex_unlock(&planner_lock);
        st = add(reg, "fft.forward", "fftw.forward", &forward_kind);
        if (st != ACC_OK)
            unload(NULL); /* it was not registered, so nothing will */
    }
    if (st == ACC_OK)
        st = add(reg, "fft.inverse", "fftw.inverse", &inverse_kind);
    return st;
}
