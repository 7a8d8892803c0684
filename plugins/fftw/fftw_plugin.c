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
 * Each shape is timed once with FFTW_MEASURE into FFTW's wisdom, from
 * which each call plans (see "plans" below); the wisdom is kept across
 * processes in the kernel cache folder (see "wisdom" below).  Transforms
 * use FFTW's threads when the plugin was built with them, as many as the
 * context's num_threads, where they pay: each shape is run both ways once
 * per process and the faster kept (see "threads" below).  The result is
 * written straight into the step's destination (the caller's buffer when
 * it is the program's output).
 */
#include "accel.h"

#include <errno.h>
#include <fcntl.h>
#include <fftw3.h>
#include <pthread.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned loads; /* contexts that loaded the plugin (planner_lock) */
/* FFTW's threads per transform: the num_threads of the context that
 * loaded the plugin last (process-wide, as FFTW's planner is; 1 when
 * built without FFTW's threads).  planner_lock. */
static int nthreads = 1;

/* ---- wisdom ------------------------------------------------------------
 * FFTW's wisdom (what its planner measured) is kept in the kernel cache
 * folder (the context's cache_dir, else $XDG_CACHE_HOME/accel, else
 * ~/.cache/accel) as fftw3.wisdom (f64) and fftw3f.wisdom (f32), so a
 * shape is timed once per machine, not once per process.  It is read when
 * the plugin is loaded and written after each new timing.  A write goes
 * to a fresh temporary file (O_EXCL, a "tmp-" name the cache removes if
 * a process dies mid-write) renamed over the old one: concurrent
 * processes never see a half-written file, and each merges the file's
 * current wisdom into its own before writing, so at worst a racing
 * process's newest timing is lost (and redone), never the file.  A file
 * FFTW cannot read (corrupt, another FFTW version, another precision) is
 * ignored: FFTW's import is all or nothing, and the shapes are timed
 * again and the file replaced.  The folder is used only when it exists,
 * is not a symbolic link, is owned by this user and is not writable by
 * others (as the kernel cache requires); otherwise wisdom stays in the
 * process.  Removing the two files clears it. */

enum { WISDOM_DIR_MAX = 3968, WISDOM_PATH_MAX = 4096 };

static char wisdom_dir[WISDOM_DIR_MAX]; /* "" when none (planner_lock) */

/* The folder asked for (NULL: the default), if it is safe to write. */
static void find_wisdom_dir(const char *option)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n = -1;
    struct stat st;
    if (option && option[0])
        n = snprintf(wisdom_dir, sizeof wisdom_dir, "%s", option);
    else if (xdg && xdg[0] == '/')
        n = snprintf(wisdom_dir, sizeof wisdom_dir, "%s/accel", xdg);
    else if (home && home[0] == '/')
        n = snprintf(wisdom_dir, sizeof wisdom_dir, "%s/.cache/accel", home);
    int ok = n > 0 && (size_t)n < sizeof wisdom_dir - 32 &&
             lstat(wisdom_dir, &st) == 0 && S_ISDIR(st.st_mode) &&
             st.st_uid == geteuid() && (st.st_mode & 022) == 0;
    if (!ok)
        wisdom_dir[0] = '\0';
}

static void wisdom_path(char *buf, int f32)
{
    snprintf(buf, WISDOM_PATH_MAX, "%s/%s", wisdom_dir,
             f32 ? "fftw3f.wisdom" : "fftw3.wisdom");
}

/* Merges the folder's wisdom of one precision into FFTW's; a missing or
 * unreadable file changes nothing. */
static void import_wisdom(int f32)
{
    char path[WISDOM_PATH_MAX];
    if (!wisdom_dir[0])
        return;
    wisdom_path(path, f32);
    if (f32)
        (void)fftwf_import_wisdom_from_filename(path);
    else
        (void)fftw_import_wisdom_from_filename(path);
}

/* Writes FFTW's wisdom of one precision (merged with the file's) to the
 * folder, atomically; failures leave the old file (planner_lock held). */
static void export_wisdom(int f32)
{
    char path[WISDOM_PATH_MAX], tmp[WISDOM_PATH_MAX];
    if (!wisdom_dir[0])
        return;
    import_wisdom(f32);
    wisdom_path(path, f32);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(tmp, sizeof tmp, "%s/tmp-%08x%08xfftw", wisdom_dir,
             (unsigned)getpid(), (unsigned)ts.tv_nsec);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    if (!f)
        return;
    if (f32)
        fftwf_export_wisdom_to_file(f);
    else
        fftw_export_wisdom_to_file(f);
    int ok = fflush(f) == 0 && !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
}

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

/* ---- plans -------------------------------------------------------------
 * A transform is planned with the planner effort of ACC_FFTW_PLANNER
 * ("measure", the default, or "patient": FFTW times candidate algorithms,
 * from milliseconds to seconds once per shape; "estimate": FFTW's guess,
 * no timing; "wisdom-only": never time, and a transform with no wisdom
 * fails with ACC_ERR_PLUGIN — for deployments whose wisdom was made
 * beforehand, and to check that wisdom is found).  The timing runs once per shape and precision, on scratch
 * arrays (it overwrites its arrays), and leaves its result in FFTW's
 * wisdom; each call then plans its own arrays from that wisdom
 * (FFTW_WISDOM_ONLY: no timing, the arrays untouched).  Plans are kept
 * (KEPT of them, the oldest replaced) and executed on new arrays when
 * FFTW allows it: the same shape, the same alignment of each buffer, the
 * same in-place-ness, and, for split arrays, the same distances between
 * the re and im buffers of the input and of the output (FFTW manual,
 * "New-array Execute Functions"): a caller passing its buffers, or
 * results allocated as one block per array, find their plan again. */

enum { KEPT = 8 };

typedef struct kept_plan {
    int f32, rank, nthreads;
    int n[3];
    ptrdiff_t in_gap, out_gap; /* ii - ri, io - ro */
    unsigned align[4];         /* each buffer's address modulo 64 */
    int in_place;
    void *plan;
} kept_plan;

static kept_plan kept[KEPT]; /* under planner_lock */
static unsigned next_kept;   /* the slot replaced next */

enum { WISDOM_ONLY_MODE = 1u << 30 }; /* not an FFTW flag */

static unsigned planner_effort(void)
{
    const char *e = getenv("ACC_FFTW_PLANNER");
    if (e && strcmp(e, "wisdom-only") == 0)
        return WISDOM_ONLY_MODE;
    if (e && strcmp(e, "estimate") == 0)
        return FFTW_ESTIMATE;
    if (e && strcmp(e, "patient") == 0)
        return FFTW_PATIENT;
    return FFTW_MEASURE;
}

static void destroy_plan(int f32, void *p)
{
    if (f32)
        fftwf_destroy_plan(p);
    else
        fftw_destroy_plan(p);
}

/* A plan of this transform on `threads` threads for arrays s
 * (planner_lock held). */
static void *make_plan(int f32, int rank, const fftw_iodim *dims, split s,
                       int threads, unsigned flags)
{
#ifdef ACC_FFTW_THREADS
    if (f32)
        fftwf_plan_with_nthreads(threads);
    else
        fftw_plan_with_nthreads(threads);
#else
    (void)threads;
#endif
    if (!f32)
        return fftw_plan_guru_split_dft(rank, dims, 0, NULL, s.ri, s.ii, s.ro,
                                        s.io, flags | FFTW_PRESERVE_INPUT);
    fftwf_iodim fd[3];
    for (int32_t k = 0; k < rank; k++) {
        fd[k].n = dims[k].n;
        fd[k].is = dims[k].is;
        fd[k].os = dims[k].os;
    }
    return fftwf_plan_guru_split_dft(rank, fd, 0, NULL, s.ri, s.ii, s.ro,
                                     s.io, flags | FFTW_PRESERVE_INPUT);
}

/* The largest scratch span learn reserves for one (re, im) pair: the
 * pages between the two planes are never touched, so this is address
 * space rather than memory. */
#define LEARN_SPAN_MAX ((size_t)1 << 32)

/* Scratch for the pair (re, im) of n elements of esz bytes laid out as
 * the call's: the same distance from re to im and the same offsets from a
 * 64-byte boundary, both of which FFTW's wisdom is keyed by (its problem
 * hash).  *block gets the allocation (NULL when the span is too large or
 * memory is short). */
static void scratch_pair(void *re, void *im, size_t bytes, void **block,
                         void **sre, void **sim)
{
    uintptr_t a = (uintptr_t)re, b = (uintptr_t)im;
    uintptr_t lo = a < b ? a : b, gap = a < b ? b - a : a - b;
    unsigned char *base = NULL;
    *block = NULL;
    if (bytes < LEARN_SPAN_MAX / 2 && gap <= LEARN_SPAN_MAX / 2)
        *block = malloc(gap + bytes + 128);
    if (!*block)
        return;
    base = (unsigned char *)*block;
    base += (64 - (size_t)((uintptr_t)base % 64)) % 64 + (size_t)(lo % 64);
    *sre = base + (a - lo);
    *sim = base + (b - lo);
}

/* Scratch arrays of n elements laid out as s's (scratch_pair: FFTW's
 * wisdom only answers for that same layout), zeroed (no denormals to slow
 * a timed run).  0 when they cannot be had. */
typedef struct scratch {
    split s;
    void *blocks[2];
} scratch;

static int scratch_get(int f32, int64_t n, split s, scratch *sc)
{
    size_t bytes = (size_t)n * (f32 ? sizeof(float) : sizeof(double));
    memset(sc, 0, sizeof *sc);
    scratch_pair(s.ri, s.ii, bytes, &sc->blocks[0], &sc->s.ri, &sc->s.ii);
    if (s.ri == s.ro && s.ii == s.io) { /* in place: one pair */
        sc->s.ro = sc->s.ri;
        sc->s.io = sc->s.ii;
    } else {
        scratch_pair(s.ro, s.io, bytes, &sc->blocks[1], &sc->s.ro,
                     &sc->s.io);
    }
    if (!sc->blocks[0] || (!sc->blocks[1] && sc->s.ro != sc->s.ri)) {
        free(sc->blocks[0]);
        free(sc->blocks[1]);
        return 0;
    }
    void *planes[4] = {sc->s.ri, sc->s.ii, sc->s.ro, sc->s.io};
    for (int i = 0; i < 4; i++)
        memset(planes[i], 0, bytes);
    return 1;
}

static void scratch_free(scratch *sc)
{
    free(sc->blocks[0]);
    free(sc->blocks[1]);
}

/* The planner's timing of this transform on `threads` threads, on scratch
 * arrays laid out as s's, into FFTW's wisdom and the folder's
 * (planner_lock held).  No wisdom when the scratch cannot be had:
 * plan_for then falls back to FFTW's estimate. */
static void learn(int f32, int rank, const fftw_iodim *dims, int64_t n,
                  split s, int threads, unsigned effort)
{
    scratch sc;
    if (!scratch_get(f32, n, s, &sc))
        return;
    void *p = make_plan(f32, rank, dims, sc.s, threads, effort);
    if (p) {
        destroy_plan(f32, p);
        export_wisdom(f32);
    }
    scratch_free(&sc);
}

/* A plan on `threads` threads for arrays s from wisdom, learned first
 * when there is none (effort: FFTW_MEASURE or FFTW_PATIENT; planner_lock
 * held).  NULL when no wisdom could be had. */
static void *wise_plan(int f32, int rank, const fftw_iodim *dims, int64_t n,
                       split s, int threads, unsigned effort)
{
    unsigned wise = effort | FFTW_WISDOM_ONLY;
    void *p = make_plan(f32, rank, dims, s, threads, wise);
    if (!p) {
        learn(f32, rank, dims, n, s, threads, effort);
        p = make_plan(f32, rank, dims, s, threads, wise);
    }
    return p;
}

/* ---- threads -----------------------------------------------------------
 * FFTW's threads wake their workers through semaphores at every parallel
 * loop of a transform, several per transform, and never spin: where a
 * wake-up is slow they cost more than they save.  On this project's AMD
 * EPYC VM (waking a halted vCPU takes 22-80 us) a 512x512 f32 transform
 * took 2.0 ms on two threads against 0.86 ms on one, while a 2^20 one
 * took 6 ms against 12 (bench/README.md, "FFTW's threads, chosen").  So,
 * when the context has several threads and the planner times (measure or
 * patient), each shape's plan on one thread and on the context's threads
 * are run on scratch arrays (one run each, then the best of three), once
 * per process, and the faster is used for that shape from then on.
 * Under "estimate" and "wisdom-only" nothing is timed and the context's
 * threads are used. */

enum { CHOICES = 16, TIMED_RUNS = 3 };

typedef struct threads_choice {
    int f32, rank, in_place;
    int offered; /* nthreads when it was timed */
    int threads; /* the faster: 1 or offered; 0: a free slot */
    int n[3];
} threads_choice;

static threads_choice choices[CHOICES]; /* under planner_lock */
static unsigned next_choice;

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void execute_plan(int f32, void *p, split s)
{
    if (f32)
        fftwf_execute_split_dft(p, s.ri, s.ii, s.ro, s.io);
    else
        fftw_execute_split_dft(p, s.ri, s.ii, s.ro, s.io);
}

/* The best of TIMED_RUNS runs of plan p on s, after one untimed run. */
static double best_time(int f32, void *p, split s)
{
    double best = 0;
    execute_plan(f32, p, s);
    for (int r = 0; r < TIMED_RUNS; r++) {
        double t0 = seconds_now();
        execute_plan(f32, p, s);
        double t = seconds_now() - t0;
        best = r == 0 || t < best ? t : best;
    }
    return best;
}

/* 1 or nthreads: whichever ran this transform faster (timed once per
 * shape, precision and in-place-ness; planner_lock held). */
static int threads_for(int f32, int rank, const fftw_iodim *dims, int64_t n,
                       split s, unsigned effort)
{
    if (nthreads <= 1 || effort == FFTW_ESTIMATE ||
        effort == WISDOM_ONLY_MODE)
        return nthreads;
    threads_choice c;
    memset(&c, 0, sizeof c);
    c.f32 = f32;
    c.rank = rank;
    c.in_place = s.ri == s.ro;
    c.offered = nthreads;
    for (int32_t d = 0; d < rank; d++)
        c.n[d] = dims[d].n;
    for (int i = 0; i < CHOICES; i++)
        if (choices[i].threads && choices[i].offered == c.offered &&
            choices[i].f32 == c.f32 &&
            choices[i].rank == c.rank && choices[i].in_place == c.in_place &&
            memcmp(choices[i].n, c.n, sizeof c.n) == 0)
            return choices[i].threads;
    scratch sc;
    if (!scratch_get(f32, n, s, &sc))
        return nthreads; /* nothing to time on: as configured */
    void *one = wise_plan(f32, rank, dims, n, sc.s, 1, effort);
    void *many = wise_plan(f32, rank, dims, n, sc.s, nthreads, effort);
    c.threads = nthreads;
    if (one && many)
        c.threads = best_time(f32, one, sc.s) <= best_time(f32, many, sc.s)
                        ? 1
                        : nthreads;
    else if (one)
        c.threads = 1;
    if (one)
        destroy_plan(f32, one);
    if (many)
        destroy_plan(f32, many);
    scratch_free(&sc);
    choices[next_choice++ % CHOICES] = c;
    return c.threads;
}

/* The key of a plan for this call's arrays (plan left NULL). */
static kept_plan key_of(int f32, int rank, const fftw_iodim *dims, split s,
                        int threads)
{
    kept_plan k;
    memset(&k, 0, sizeof k);
    k.f32 = f32;
    k.rank = rank;
    k.nthreads = threads;
    for (int32_t d = 0; d < rank; d++)
        k.n[d] = dims[d].n;
    k.in_gap = (char *)s.ii - (char *)s.ri;
    k.out_gap = (char *)s.io - (char *)s.ro;
    void *const b[4] = {s.ri, s.ii, s.ro, s.io};
    for (int i = 0; i < 4; i++)
        k.align[i] = (unsigned)((uintptr_t)b[i] % 64);
    k.in_place = s.ri == s.ro;
    return k;
}

static int same_key(const kept_plan *a, const kept_plan *b)
{
    int same = a->f32 == b->f32 && a->rank == b->rank &&
               a->nthreads == b->nthreads &&
               a->in_gap == b->in_gap && a->out_gap == b->out_gap &&
               a->in_place == b->in_place;
    for (int i = 0; same && i < 3; i++)
        same = a->n[i] == b->n[i];
    for (int i = 0; same && i < 4; i++)
        same = a->align[i] == b->align[i];
    return same;
}

/* A plan for this call's arrays: a kept one when FFTW allows it, else
 * planned from wisdom (learned first when there is none) and kept
 * (planner_lock held).  NULL when FFTW cannot plan. */
static void *plan_for(int f32, int rank, const fftw_iodim *dims, int64_t n,
                      split s)
{
    unsigned effort = planner_effort();
    int threads = threads_for(f32, rank, dims, n, s, effort);
    kept_plan k = key_of(f32, rank, dims, s, threads);
    for (int i = 0; i < KEPT; i++)
        if (kept[i].plan && same_key(&kept[i], &k))
            return kept[i].plan;
    void *p = NULL;
    if (effort == WISDOM_ONLY_MODE) {
        /* wisdom of any effort (measure or better) answers a measure
         * request; none: no plan */
        p = make_plan(f32, rank, dims, s, threads,
                      FFTW_MEASURE | FFTW_WISDOM_ONLY);
        if (!p)
            return NULL;
    } else if (effort != FFTW_ESTIMATE) {
        p = wise_plan(f32, rank, dims, n, s, threads, effort);
    }
    if (!p) /* no wisdom could be had: FFTW's guess, which never times */
        p = make_plan(f32, rank, dims, s, threads, FFTW_ESTIMATE);
    if (!p)
        return NULL;
    kept_plan *slot = &kept[next_kept++ % KEPT];
    if (slot->plan)
        destroy_plan(slot->f32, slot->plan);
    *slot = k;
    slot->plan = p;
    return p;
}

/* The transform of a (row-major dims) from s's input to its output.  The
 * plan is executed under the lock too: a kept plan may be replaced by
 * another call's as soon as the lock is released. */
static int run_transform(const acc_array *a, const fftw_iodim *dims,
                         split s, int f32)
{
    pthread_mutex_lock(&planner_lock);
    void *p = plan_for(f32, a->rank, dims, acc_array_size(a), s);
    if (p)
        execute_plan(f32, p, s);
    pthread_mutex_unlock(&planner_lock);
    return p != NULL;
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
    int ok = run_transform(a, dims, s, f32);
    if (!ok) {
        snprintf(c->message, c->message_size, "FFTW could not plan the "
                 "transform%s", planner_effort() == WISDOM_ONLY_MODE ?
                 " (ACC_FFTW_PLANNER=wisdom-only: no wisdom for it)" : "");
        return ACC_ERR_PLUGIN;
    }
    if (kind->inverse)
        divide(&c->results[0], f32, n);
    return ACC_OK;
}

/* FFTW keeps planner data (twiddles, wisdom) and the kept plans for the
 * process; when the last context that loaded the plugin goes, they are
 * freed, as the plugin may be unloaded (no call is running then: a
 * context's programs are gone before it).  FFTW's detached worker threads
 * still unwind through FFTW's code after fftw_cleanup_threads returns,
 * so the plugin is linked -z nodelete (cmake/AccelForeign.cmake): the
 * registry's dlclose must not unmap FFTW under them. */
static void unload(void *user)
{
    (void)user;
    pthread_mutex_lock(&planner_lock);
    if (--loads == 0) {
        for (int i = 0; i < KEPT; i++)
            if (kept[i].plan)
                destroy_plan(kept[i].f32, kept[i].plan);
        memset(kept, 0, sizeof kept);
        memset(choices, 0, sizeof choices);
#ifdef ACC_FFTW_THREADS
        fftw_cleanup_threads(); /* also FFTW's cleanup */
        fftwf_cleanup_threads();
#else
        fftw_cleanup();
        fftwf_cleanup();
#endif
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

/* A context loads the plugin (planner_lock held): FFTW's threads set up
 * on the first load (before any other FFTW call, as FFTW asks), the
 * thread count and the wisdom folder taken from this context, the
 * folder's wisdom read.  Released by unload, with the forward
 * implementation. */
static void load(const acc_plugin_registrar *reg)
{
    size_t need = offsetof(acc_plugin_registrar, num_threads) +
                  sizeof reg->num_threads;
    int covered = reg->struct_size >= need;
    int32_t want = covered ? reg->num_threads : 0;
#ifdef ACC_FFTW_THREADS
    if (loads == 0 && (!fftw_init_threads() || !fftwf_init_threads()))
        want = 1; /* FFTW could not start threads: it plans for one */
    if (want <= 0) { /* as the cpu backend's pool: ACC_NUM_THREADS, cores */
        const char *env = getenv("ACC_NUM_THREADS");
        long n = env ? strtol(env, NULL, 10) : 0;
        if (n <= 0)
            n = sysconf(_SC_NPROCESSORS_ONLN);
        want = n <= 0 ? 1 : n > 1024 ? 1024 : (int32_t)n;
    }
    nthreads = want;
#else
    (void)want;
#endif
    loads++;
    find_wisdom_dir(covered ? reg->cache_dir : NULL);
    import_wisdom(0);
    import_wisdom(1);
}

/* The plugin's entry (ACC_PLUGIN_ENTRY_SYMBOL). */
acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version);

acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version)
{
    acc_status st = ACC_PLUGIN_DECLARE(reg, "fftw");
    (void)abi_version; /* the declaration checks it */
    if (st == ACC_OK) {
        pthread_mutex_lock(&planner_lock);
        load(reg);
        pthread_mutex_unlock(&planner_lock);
        st = add(reg, "fft.forward", "fftw.forward", &forward_kind);
        if (st != ACC_OK)
            unload(NULL); /* it was not registered, so nothing will */
    }
    if (st == ACC_OK)
        st = add(reg, "fft.inverse", "fftw.inverse", &inverse_kind);
    return st;
}
