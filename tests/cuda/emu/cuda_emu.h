/*
 * cuda_emu.h — the CUDA device, emulated on one CPU thread, for the tests
 * (docs/CUDA.md, "The emulated device").  The emulating driver
 * (tests/cuda/fake_driver*.c built with FAKE_EMU) compiles each module's
 * CUDA source with the host C++ compiler after this header (emu_build.c)
 * and calls acc_emu_launch_NAME for a launch of kernel NAME.
 *
 * A launch runs the blocks of the grid one after another (CUDA lets
 * blocks run in any order; nothing of accel's waits on a later block),
 * and the threads of a block as fibers (ucontext) on one OS thread,
 * switched only at a barrier or a warp collective (first to last, or
 * last to first: acc_emu_launch_args.reverse), so the collectives
 * have their CUDA meaning: __syncthreads waits for every thread of the
 * block that has not exited; a warp shuffle, vote or __syncwarp waits for
 * every lane its mask names, and it is an error (the launch fails, saying
 * why) when a lane it names has exited, when the lanes waiting disagree
 * on the mask or the operation, or when every live thread waits and no
 * group can complete (a deadlock on a GPU).  Static __shared__ variables
 * are `static`: one copy, shared by the fibers of the running block.
 * Atomics are plain read-modify-writes (one fiber runs at a time, and the
 * driver runs one launch at a time).
 *
 * What this cannot show: the weak orderings of the memory model (every
 * write is seen at once by every thread), timing, occupancy, speed.
 *
 * The kernel source's own fixed-width typedefs (NVRTC has no <stdint.h>,
 * so accel's prelude declares int64_t as long long) would clash with the
 * host's: after the system headers, the names are macros naming the emu's
 * own types.
 */
#ifndef ACC_CUDA_EMU_H
#define ACC_CUDA_EMU_H

#include <dlfcn.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <type_traits>
#include <ucontext.h>
#include <utility>

#include "emu_launch.h"

/* ---- the execution space ------------------------------------------------ */

struct uint3 { unsigned x, y, z; };
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

/* Set by the scheduler before it switches to a thread. */
static uint3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;
static const int warpSize = 32;

/* NVRTC's built-in vector types that device code uses (the cufft plugin's
 * callbacks take and return cufftComplex, which is float2), laid out as
 * CUDA's. */
struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) double2 { double x, y; };
static inline float2 make_float2(float x, float y) { float2 v = {x, y}; return v; }
static inline double2 make_double2(double x, double y) { double2 v = {x, y}; return v; }

#define __global__
#define __device__
#define __host__
#define __constant__
#define __shared__ static
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __restrict__ __restrict
#define __launch_bounds__(...)

namespace acc_emu {

enum { RUN, BAR, WARP, DONE };
enum { OP_SHFL, OP_UP, OP_DOWN, OP_XOR, OP_BALLOT, OP_ANY, OP_ALL,
       OP_SYNCWARP, OP_BAR_SYNC, OP_BAR_AND, OP_BAR_OR, OP_BAR_COUNT };
enum { MAX_THREADS = 1024 };

struct fiber {
    ucontext_t ctx;
    int state;
    int op, width;
    unsigned mask, arg;
    unsigned long long val, res;
};

static const char *const op_names[] = {
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync",
    "__ballot_sync", "__any_sync", "__all_sync", "__syncwarp",
    "__syncthreads", "__syncthreads_and", "__syncthreads_or",
    "__syncthreads_count"};

/* Dynamic shared memory (`extern __shared__ T name[];`, which emu_build.c
 * rewrites to a pointer here): one buffer, as a block's static shared
 * variables, refilled with a pattern before each block (its content is
 * undefined on a GPU, so a kernel that reads it before writing it reads
 * garbage here too).  The driver refuses a launch asking for more than
 * its shape's shared memory per block. */
enum { DYNAMIC_SHARED_MAX = 228 * 1024 };
alignas(16) static unsigned char dynamic_shared[DYNAMIC_SHARED_MAX];
static unsigned dynamic_shared_bytes;

static fiber *fibers; /* the driver's (acc_emu_launch_args) */
static unsigned char *stacks;
static size_t stack_bytes;
static ucontext_t scheduler;
static int current, nthreads, live, failed, reverse;
static char *fail_text;
static size_t fail_size;
static void (*thunk)(void **);
static void **thunk_params;

static void fail(const char *what, int t)
{
    if (!failed)
        snprintf(fail_text, fail_size, "block (%u,%u,%u) thread %d: %s",
                 blockIdx.x, blockIdx.y, blockIdx.z, t, what);
    failed = 1;
}

static void set_thread(int t)
{
    threadIdx.x = (unsigned)t % blockDim.x;
    threadIdx.y = (unsigned)t / blockDim.x % blockDim.y;
    threadIdx.z = (unsigned)t / (blockDim.x * blockDim.y);
}

/* ---- switching, told to AddressSanitizer ------------------------------------
 *
 * ASan keeps, per OS thread, the bounds of the stack it runs on: a
 * stack switch it is not told of makes it take a fiber's frames for
 * another stack's (false stack-buffer reports, or real ones missed, once
 * instrumented code runs there or unwinds).  Every switch is therefore
 * bracketed by __sanitizer_start_switch_fiber (the stack switched to)
 * and __sanitizer_finish_switch_fiber (on arrival), in each direction:
 * the scheduler into a fiber (run_block), a fiber back to the scheduler
 * (yield) and a fiber's exit (thread_main, whose fake stack is then
 * released: NULL).  The hooks are declared weak: a module is the same
 * file in an ASan process (which exports them) and in a plain one (where
 * they are null and skipped), so both builds share its cache entry. */
extern "C" {
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom,
                                    size_t size) __attribute__((weak));
void __sanitizer_finish_switch_fiber(void *fake_stack_save,
                                     const void **bottom_old,
                                     size_t *size_old) __attribute__((weak));
}

static const void *scheduler_bottom; /* the scheduler's stack, as ASan */
static size_t scheduler_size;        /* reported it on a fiber's start */

/* The C library's own swapcontext.  ASan's interceptor of swapcontext
 * clears the shadow of the whole stack switched to at every switch (16
 * KiB a time for a 128 KiB fiber stack: most of the switching time under
 * ASan, measured), which the hooks above make unnecessary: nothing
 * instrumented runs on a fiber's stack (the modules are plain objects),
 * so nothing poisons it.  In a process without ASan it is swapcontext. */
typedef int (*swap_fn)(ucontext_t *, const ucontext_t *);
static swap_fn raw_swap;

static int swap(ucontext_t *from, const ucontext_t *to)
{
    if (!raw_swap) {
        raw_swap = swapcontext;
        void *libc = __sanitizer_start_switch_fiber
                         ? dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD)
                         : NULL;
        void *own = libc ? dlsym(libc, "swapcontext") : NULL;
        if (own)
            memcpy(&raw_swap, &own, sizeof own);
    }
    return raw_swap(from, to);
}

static void switch_start(void **fake_stack_save, const void *bottom,
                         size_t size)
{
    if (__sanitizer_start_switch_fiber)
        __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
}

static void switch_finish(void *fake_stack_save, const void **bottom_old,
                          size_t *size_old)
{
    if (__sanitizer_finish_switch_fiber)
        __sanitizer_finish_switch_fiber(fake_stack_save, bottom_old,
                                        size_old);
}

/* The running fiber to the scheduler, until the scheduler resumes it. */
static void yield(void)
{
    void *fake_stack = NULL;
    switch_start(&fake_stack, scheduler_bottom, scheduler_size);
    swap(&fibers[current].ctx, &scheduler);
    switch_finish(fake_stack, &scheduler_bottom, &scheduler_size);
}

/* The scheduler to fiber t, until it yields or exits. */
static void resume(int t)
{
    void *fake_stack = NULL;
    switch_start(&fake_stack, stacks + (size_t)t * stack_bytes, stack_bytes);
    swap(&scheduler, &fibers[t].ctx);
    switch_finish(fake_stack, NULL, NULL);
}

/* ---- barriers ------------------------------------------------------------- */

/* Completes the block's barrier when every live thread waits at it. */
static void barrier_check(void)
{
    int waiting = 0, op = -1;
    unsigned long long count = 0;
    for (int t = 0; t < nthreads; t++)
        if (fibers[t].state == BAR) {
            if (op >= 0 && fibers[t].op != op) {
                fail("threads wait at different barriers (__syncthreads "
                     "and a __syncthreads_* vote)", t);
                return;
            }
            op = fibers[t].op;
            waiting++;
            count += fibers[t].val != 0;
        }
    if (waiting == 0 || waiting != live)
        return;
    unsigned long long res = op == OP_BAR_AND ? count == (unsigned)waiting
                             : op == OP_BAR_OR ? count != 0
                             : count;
    for (int t = 0; t < nthreads; t++)
        if (fibers[t].state == BAR) {
            fibers[t].state = RUN;
            fibers[t].res = res;
        }
}

static unsigned long long barrier(int op, int pred)
{
    fiber *f = &fibers[current];
    f->state = BAR;
    f->op = op;
    f->val = pred != 0;
    barrier_check();
    if (f->state == BAR)
        yield();
    return f->res;
}

/* ---- warp collectives ----------------------------------------------------- */

/* The lanes of warp w that exist (a last warp may be partial). */
static unsigned warp_lanes(int w)
{
    int n = nthreads - 32 * w;
    return n >= 32 ? 0xffffffffu : (1u << n) - 1u;
}

static unsigned long long lane_result(const fiber *g, int lane,
                                      unsigned members)
{
    const fiber *f = &g[lane];
    int w = f->width > 0 && f->width <= 32 ? f->width : 32;
    int base = lane & ~(w - 1), src = lane;
    switch (f->op) {
    case OP_SHFL: src = base + (int)(f->arg & (unsigned)(w - 1)); break;
    case OP_UP: src = lane - base >= (int)f->arg ? lane - (int)f->arg : lane;
        break;
    case OP_DOWN:
        src = lane - base + (int)f->arg < w ? lane + (int)f->arg : lane;
        break;
    case OP_XOR: {
        int x = lane ^ (int)f->arg;
        src = x >= base && x < base + w ? x : lane;
        break;
    }
    default: {
        unsigned long long ballot = 0;
        int all = 1;
        for (int l = 0; l < 32; l++)
            if (members >> l & 1u) {
                ballot |= (unsigned long long)(g[l].val != 0) << l;
                all &= g[l].val != 0;
            }
        return f->op == OP_BALLOT ? ballot
               : f->op == OP_ANY  ? ballot != 0
               : f->op == OP_ALL  ? (unsigned long long)all
                                  : 0;
    }
    }
    return members >> src & 1u ? g[src].val : f->val;
}

/* Completes warp w's collective when every lane its mask names waits. */
static void warp_check(int w, int t)
{
    fiber *g = &fibers[32 * w];
    unsigned exist = warp_lanes(w);
    unsigned mask = fibers[t].mask & exist;
    char what[200];
    if (!(fibers[t].mask >> (t % 32) & 1u)) {
        snprintf(what, sizeof what, "%s with a mask (0x%08x) without the "
                 "calling lane", op_names[fibers[t].op], fibers[t].mask);
        fail(what, t);
        return;
    }
    for (int l = 0; l < 32; l++) {
        if (!(mask >> l & 1u))
            continue;
        if (g[l].state == DONE) {
            snprintf(what, sizeof what, "%s (mask 0x%08x) names lane %d, "
                     "which has exited", op_names[fibers[t].op],
                     fibers[t].mask, l);
            fail(what, t);
            return;
        }
        if (g[l].state != WARP)
            return;
        if (g[l].mask != fibers[t].mask || g[l].op != fibers[t].op) {
            snprintf(what, sizeof what, "lanes of a warp meet at different "
                     "collectives: %s (mask 0x%08x) and lane %d's %s (mask "
                     "0x%08x)", op_names[fibers[t].op], fibers[t].mask, l,
                     op_names[g[l].op], g[l].mask);
            fail(what, t);
            return;
        }
    }
    for (int l = 0; l < 32; l++)
        if (mask >> l & 1u)
            g[l].res = lane_result(g, l, mask);
    for (int l = 0; l < 32; l++)
        if (mask >> l & 1u)
            g[l].state = RUN;
}

static unsigned long long warp_op(int op, unsigned mask,
                                  unsigned long long val, unsigned arg,
                                  int width)
{
    fiber *f = &fibers[current];
    f->state = WARP;
    f->op = op;
    f->mask = mask;
    f->val = val;
    f->arg = arg;
    f->width = width;
    warp_check(current / 32, current);
    if (f->state == WARP && !failed)
        yield();
    return f->res;
}

/* ---- launching -------------------------------------------------------------- */

static void thread_main(void)
{
    switch_finish(NULL, &scheduler_bottom, &scheduler_size);
    thunk(thunk_params);
    fibers[current].state = DONE;
    live--;
    barrier_check(); /* an exited thread is no longer waited for */
    for (int l = 32 * (current / 32); l < 32 * (current / 32 + 1) &&
                                      l < nthreads; l++)
        if (fibers[l].state == WARP) {
            warp_check(current / 32, l);
            break;
        }
    /* the last thing before the switch to uc_link, the scheduler: this
     * fiber ends (NULL: ASan releases its fake stack) */
    switch_start(NULL, scheduler_bottom, scheduler_size);
}

/* Runs one block: every thread until all have exited (or the launch
 * failed); 0 when it completed. */
static int run_block(void)
{
    memset(dynamic_shared, 0xa5, dynamic_shared_bytes);
    live = nthreads;
    for (int t = 0; t < nthreads; t++) {
        fiber *f = &fibers[t];
        f->state = RUN;
        getcontext(&f->ctx);
        f->ctx.uc_stack.ss_sp = stacks + (size_t)t * stack_bytes;
        f->ctx.uc_stack.ss_size = stack_bytes;
        f->ctx.uc_link = &scheduler;
        makecontext(&f->ctx, thread_main, 0);
    }
    while (live > 0 && !failed) {
        int ran = 0;
        for (int i = 0; i < nthreads && !failed; i++) {
            int t = reverse ? nthreads - 1 - i : i;
            if (fibers[t].state == RUN) {
                current = t;
                set_thread(t);
                resume(t);
                ran = 1;
            }
        }
        if (!ran && !failed) {
            char what[200];
            int t = 0;
            while (fibers[t].state == DONE)
                t++;
            snprintf(what, sizeof what, "deadlock: every live thread waits "
                     "and no barrier or warp collective can complete (this "
                     "one at %s)", op_names[fibers[t].op]);
            fail(what, t);
        }
    }
    return failed;
}

static int launch(void (*k)(void **), const acc_emu_launch_args *L)
{
    unsigned nt = L->block[0] * L->block[1] * L->block[2];
    fail_text = L->error;
    fail_size = L->error_size;
    failed = 0;
    if (nt == 0 || nt > MAX_THREADS) {
        snprintf(fail_text, fail_size, "a block of %u threads", nt);
        return 1;
    }
    if (L->fiber_bytes < MAX_THREADS * sizeof(fiber)) {
        snprintf(fail_text, fail_size, "the driver's room for the fibers "
                 "(%zu bytes) is too small (%zu)", L->fiber_bytes,
                 MAX_THREADS * sizeof(fiber));
        return 1;
    }
    if (L->shared_bytes > DYNAMIC_SHARED_MAX) {
        snprintf(fail_text, fail_size, "%u bytes of dynamic shared memory "
                 "(the emulator has %d)", L->shared_bytes, DYNAMIC_SHARED_MAX);
        return 1;
    }
    dynamic_shared_bytes = L->shared_bytes;
    fibers = (fiber *)L->fibers;
    reverse = L->reverse;
    stacks = L->stacks;
    stack_bytes = L->stack_bytes;
    thunk = k;
    thunk_params = L->params;
    nthreads = (int)nt;
    blockDim = dim3(L->block[0], L->block[1], L->block[2]);
    gridDim = dim3(L->grid[0], L->grid[1], L->grid[2]);
    for (unsigned z = 0; z < L->grid[2] && !failed; z++)
        for (unsigned y = 0; y < L->grid[1] && !failed; y++)
            for (unsigned x = 0; x < L->grid[0] && !failed; x++) {
                blockIdx.x = x, blockIdx.y = y, blockIdx.z = z;
                run_block();
            }
    return failed;
}

template <class... P, size_t... I>
static void call_with(void (*k)(P...), void **params,
                      std::index_sequence<I...>)
{
    k(*static_cast<typename std::remove_cv<
          typename std::remove_reference<P>::type>::type *>(params[I])...);
}

template <class... P>
static void call(void (*k)(P...), void **params)
{
    call_with(k, params, std::index_sequence_for<P...>{});
}

template <class T>
static unsigned long long bits_of(T v)
{
    static_assert(sizeof(T) <= 8, "a warp shuffle of more than 8 bytes");
    unsigned long long b = 0;
    memcpy(&b, &v, sizeof v);
    return b;
}

template <class T>
static T from_bits(unsigned long long b)
{
    T v;
    memcpy(&v, &b, sizeof v);
    return v;
}

} /* namespace acc_emu */

namespace acc_emu_absent {
struct absent_kernel {
    int unused;
};
}

namespace acc_emu {
static void call(acc_emu_absent::absent_kernel *, void **) {}
static int defined(acc_emu_absent::absent_kernel *) { return 0; }
template <class... P>
static int defined(void (*)(P...)) { return 1; }
}

/* What emu_build.c appends to the source for each kernel NAME it names
 * (`__global__ void NAME(` or `ACC_KERNEL void NAME(`): inside namespace
 * acc_emu_absent, ACC_EMU_ABSENT(NAME), a stand-in that ::NAME finds only
 * when the source did not define NAME (it lay in an #if not compiled);
 * then ACC_EMU_ENTRY(NAME): the exported acc_emu_launch_NAME, which runs
 * a launch, and acc_emu_defined_NAME, 0 for a stand-in (the driver then
 * says the module has no such function). */
#define ACC_EMU_ABSENT(name) static absent_kernel name;
#define ACC_EMU_ENTRY(name)                                                  \
    static void acc_emu_thunk_##name(void **p)                               \
    {                                                                        \
        acc_emu::call(&::name, p);                                           \
    }                                                                        \
    extern "C" __attribute__((visibility("default"))) int                    \
        acc_emu_launch_##name(const acc_emu_launch_args *L)                  \
    {                                                                        \
        return acc_emu::launch(acc_emu_thunk_##name, L);                     \
    }                                                                        \
    extern "C" __attribute__((visibility("default")))                        \
        const int acc_emu_defined_##name = acc_emu::defined(&::name);

/* ---- barriers, votes, shuffles -------------------------------------------- */

static inline void __syncthreads(void) { acc_emu::barrier(acc_emu::OP_BAR_SYNC, 0); }
static inline int __syncthreads_and(int p) { return (int)acc_emu::barrier(acc_emu::OP_BAR_AND, p); }
static inline int __syncthreads_or(int p) { return (int)acc_emu::barrier(acc_emu::OP_BAR_OR, p); }
static inline int __syncthreads_count(int p) { return (int)acc_emu::barrier(acc_emu::OP_BAR_COUNT, p); }
static inline void __syncwarp(unsigned mask = 0xffffffffu) { acc_emu::warp_op(acc_emu::OP_SYNCWARP, mask, 0, 0, 32); }
static inline unsigned __ballot_sync(unsigned mask, int p) { return (unsigned)acc_emu::warp_op(acc_emu::OP_BALLOT, mask, p != 0, 0, 32); }
static inline int __any_sync(unsigned mask, int p) { return (int)acc_emu::warp_op(acc_emu::OP_ANY, mask, p != 0, 0, 32); }
static inline int __all_sync(unsigned mask, int p) { return (int)acc_emu::warp_op(acc_emu::OP_ALL, mask, p != 0, 0, 32); }

/* The lanes of the caller's warp that have not exited (the emulation has
 * no divergence to narrow it further). */
static inline unsigned __activemask(void)
{
    unsigned m = 0;
    int w = acc_emu::current / 32;
    for (int l = 0; l < 32 && 32 * w + l < acc_emu::nthreads; l++)
        if (acc_emu::fibers[32 * w + l].state != acc_emu::DONE)
            m |= 1u << l;
    return m;
}

template <class T>
static inline T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{
    return acc_emu::from_bits<T>(acc_emu::warp_op(
        acc_emu::OP_SHFL, mask, acc_emu::bits_of(v), (unsigned)src, width));
}
template <class T>
static inline T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32)
{
    return acc_emu::from_bits<T>(acc_emu::warp_op(
        acc_emu::OP_UP, mask, acc_emu::bits_of(v), d, width));
}
template <class T>
static inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32)
{
    return acc_emu::from_bits<T>(acc_emu::warp_op(
        acc_emu::OP_DOWN, mask, acc_emu::bits_of(v), d, width));
}
template <class T>
static inline T __shfl_xor_sync(unsigned mask, T v, int m, int width = 32)
{
    return acc_emu::from_bits<T>(acc_emu::warp_op(
        acc_emu::OP_XOR, mask, acc_emu::bits_of(v), (unsigned)m, width));
}

/* ---- fences and atomics (one fiber runs at a time) ------------------------- */

static inline void __threadfence(void) {}
static inline void __threadfence_block(void) {}
static inline void __threadfence_system(void) {}

template <class T, class U> static inline T atomicAdd(T *p, U v) { T o = *p; *p = (T)(o + (T)v); return o; }
template <class T, class U> static inline T atomicSub(T *p, U v) { T o = *p; *p = (T)(o - (T)v); return o; }
template <class T, class U> static inline T atomicExch(T *p, U v) { T o = *p; *p = (T)v; return o; }
template <class T, class U> static inline T atomicMin(T *p, U v) { T o = *p; if ((T)v < o) *p = (T)v; return o; }
template <class T, class U> static inline T atomicMax(T *p, U v) { T o = *p; if ((T)v > o) *p = (T)v; return o; }
template <class T, class U> static inline T atomicAnd(T *p, U v) { T o = *p; *p = (T)(o & (T)v); return o; }
template <class T, class U> static inline T atomicOr(T *p, U v) { T o = *p; *p = (T)(o | (T)v); return o; }
template <class T, class U> static inline T atomicXor(T *p, U v) { T o = *p; *p = (T)(o ^ (T)v); return o; }
template <class T, class U, class V>
static inline T atomicCAS(T *p, U cmp, V v) { T o = *p; if (o == (T)cmp) *p = (T)v; return o; }
static inline unsigned atomicInc(unsigned *p, unsigned v) { unsigned o = *p; *p = o >= v ? 0 : o + 1; return o; }
static inline unsigned atomicDec(unsigned *p, unsigned v) { unsigned o = *p; *p = o == 0 || o > v ? v : o - 1; return o; }

/* ---- bit and conversion intrinsics ---------------------------------------- */

static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++)
        r |= (x >> i & 1u) << (31 - i);
    return r;
}
static inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
static inline int __float_as_int(float f) { int u; memcpy(&u, &f, 4); return u; }
static inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
static inline float __int_as_float(int u) { float f; memcpy(&f, &u, 4); return f; }
static inline long long __double_as_longlong(double d) { long long u; memcpy(&u, &d, 8); return u; }
static inline double __longlong_as_double(long long u) { double d; memcpy(&d, &u, 8); return d; }
template <class T> static inline T __ldg(const T *p) { return *p; }
static inline float __fdividef(float a, float b) { return a / b; }
/* glibc declares these names itself: macros, not functions */
#define __expf expf
#define __logf logf
#define __sinf sinf
#define __cosf cosf
#define __powf powf
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
template <class A, class B>
static inline typename std::common_type<A, B>::type min(A a, B b) { return b < a ? b : a; }
template <class A, class B>
static inline typename std::common_type<A, B>::type max(A a, B b) { return a < b ? b : a; }

/* The kernel's own fixed-width types (see the head of this file). */
#define int8_t acc_emu_int8_t
#define int16_t acc_emu_int16_t
#define int32_t acc_emu_int32_t
#define int64_t acc_emu_int64_t
#define uint8_t acc_emu_uint8_t
#define uint16_t acc_emu_uint16_t
#define uint32_t acc_emu_uint32_t
#define uint64_t acc_emu_uint64_t
#undef INT64_C
#undef UINT64_C
#undef INT64_MAX
#undef INT64_MIN
#undef UINT64_MAX

#endif /* ACC_CUDA_EMU_H */
