/*
 * canary.c — building and running the canary kernels (see canary.h), the
 * inputs they read and the results they must give, computed here in
 * plain C, one accumulator at a time and in order (the references are not
 * themselves the loop shapes under test).
 */
#include "core/backend/cpu/canary.h"

#include "core/base/mem.h"
#include "core/codegen/skeletons.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The inputs, in the order of canary.c.in's ACC_CIN_* enum. */
enum { CIN_U8, CIN_I16, CIN_I32, CIN_I64, CIN_F32INT, CIN_F64INT, CIN_F32,
       CIN_FMA_A, CIN_FMA_B, CIN_FMA_C, CIN_COUNT };

/* Lengths around the lane groups (16, 32, 64), the staged chunks (16
 * groups) and beyond: the gcc 12 miscompilation showed at 48-63, 80-95,
 * 112-127, 255, 1023 and many more. */
static const int64_t lengths[] = {0,   1,   2,   3,    15,   16,   17,  31,
                                  32,  33,  47,  48,   63,   64,   65,  80,
                                  95,  112, 127, 128,  129,  255,  256, 257,
                                  1000, 1023, 1024, 1025, 4097};
enum { N_LENGTHS = sizeof lengths / sizeof lengths[0], MAX_N = 4097,
       OUT_SLOTS = MAX_N + 16 };

typedef void (*canary_fn)(const void *const *in, int64_t n, int64_t *out);

typedef struct canary {
    const char *name;
    const char *symbol;
    canary_fn reference;
} canary;

/* ---- the references ----------------------------------------------------------- */

#define IN(T, k) ((const T *)in[k])

static void ref_widening_fold(const void *const *in, int64_t n, int64_t *out)
{
    uint64_t count = 0, u8 = 0, i16 = 0;
    uint32_t i8 = 0;
    uint16_t u8_16 = 0;
    for (int64_t i = 0; i < n; i++) {
        uint8_t b = IN(uint8_t, CIN_U8)[i];
        count += b != 0;
        u8 += b;
        i8 += (uint32_t)(int32_t)(int8_t)b;
        u8_16 = (uint16_t)(u8_16 + b);
        i16 += (uint64_t)(int64_t)IN(int16_t, CIN_I16)[i];
    }
    out[0] = (int64_t)count;
    out[1] = (int64_t)u8;
    out[2] = (int32_t)i8;
    out[3] = (int16_t)u8_16;
    out[4] = (int64_t)i16;
}

static void ref_lane_folds(const void *const *in, int64_t n, int64_t *out)
{
    uint8_t s8 = 0;
    uint16_t s16 = 0;
    uint32_t s32 = 0;
    uint64_t s64 = 0;
    float f = 0.0f;  /* sums of small integers: exact in any order */
    double d = 0.0;
    for (int64_t i = 0; i < n; i++) {
        s8 = (uint8_t)(s8 + IN(uint8_t, CIN_U8)[i]);
        s16 = (uint16_t)(s16 + (uint16_t)IN(int16_t, CIN_I16)[i]);
        s32 += (uint32_t)IN(int32_t, CIN_I32)[i];
        s64 += (uint64_t)IN(int64_t, CIN_I64)[i];
        f += IN(float, CIN_F32INT)[i];
        d += IN(double, CIN_F64INT)[i];
    }
    out[0] = (int8_t)s8;
    out[1] = (int16_t)s16;
    out[2] = (int32_t)s32;
    out[3] = (int64_t)s64;
    memcpy(&out[4], &f, sizeof f);
    memcpy(&out[5], &d, sizeof d);
}

static void ref_in_order_scan(const void *const *in, int64_t n, int64_t *out)
{
    volatile float run = 0.0f; /* each sum rounded, in order */
    for (int64_t i = 0; i < n; i++) {
        run = run + IN(float, CIN_F32)[i];
        float v = run;
        int32_t bits;
        memcpy(&bits, &v, sizeof bits);
        out[i] = bits;
    }
}

static void ref_in_order_fold(const void *const *in, int64_t n, int64_t *out)
{
    uint64_t s = 0;
    volatile float f = 0.0f;
    for (int64_t i = 0; i < n; i++) {
        s += IN(uint8_t, CIN_U8)[i];
        f = f + IN(float, CIN_F32)[i];
    }
    float v = f;
    out[0] = (int64_t)s;
    memcpy(&out[1], &v, sizeof v);
}

static void ref_wrap_around(const void *const *in, int64_t n, int64_t *out)
{
    for (int64_t i = 0; i < n; i++) {
        uint32_t a = (uint32_t)IN(int32_t, CIN_I32)[i];
        int32_t t = (int32_t)(a * (uint32_t)-1640531535 + (0u - a));
        uint64_t b = (uint64_t)IN(int64_t, CIN_I64)[i];
        out[i] = (int64_t)(b * UINT64_C(0x5851f42d4c957f2d) -
                           (uint64_t)(int64_t)t);
    }
}

static void ref_fp_contract_off(const void *const *in, int64_t n,
                                int64_t *out)
{
    for (int64_t i = 0; i < n; i++) {
        volatile double p = IN(double, CIN_FMA_A)[i] * IN(double, CIN_FMA_B)[i];
        double r = p + IN(double, CIN_FMA_C)[i]; /* two roundings */
        memcpy(&out[i], &r, sizeof r);
    }
}

#undef IN

static const canary canaries[] = {
    {"widening-fold", "accel_canary_widening_fold", ref_widening_fold},
    {"lane-folds", "accel_canary_lane_folds", ref_lane_folds},
    {"in-order-scan", "accel_canary_in_order_scan", ref_in_order_scan},
    {"in-order-fold", "accel_canary_in_order_fold", ref_in_order_fold},
    {"wrap-around", "accel_canary_wrap_around", ref_wrap_around},
    {"fp-contract-off", "accel_canary_fp_contract_off", ref_fp_contract_off},
};
enum { N_CANARIES = sizeof canaries / sizeof canaries[0] };

const char *cpu_canary_names(void)
{
    return "widening-fold, lane-folds, in-order-scan, in-order-fold, "
           "wrap-around, fp-contract-off";
}

int cpu_canary_count(void)
{
    return N_CANARIES;
}

/* ---- the inputs --------------------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

typedef struct inputs {
    void *buf[CIN_COUNT];
} inputs;

static void inputs_free(inputs *in)
{
    for (int k = 0; k < CIN_COUNT; k++)
        free(in->buf[k]);
}

static int inputs_make(inputs *in)
{
    static const size_t width[CIN_COUNT] = {1, 2, 4, 8, 4, 8, 4, 8, 8, 8};
    memset(in, 0, sizeof *in);
    for (int k = 0; k < CIN_COUNT; k++)
        if (!(in->buf[k] = mem_calloc(MAX_N, width[k]))) {
            inputs_free(in);
            return 0;
        }
    for (int64_t i = 0; i < MAX_N; i++) {
        uint64_t h = mix((uint64_t)i);
        ((uint8_t *)in->buf[CIN_U8])[i] = h % 5 == 0 ? 0 : (uint8_t)(h >> 8);
        ((int16_t *)in->buf[CIN_I16])[i] = (int16_t)(h >> 16);
        ((int32_t *)in->buf[CIN_I32])[i] = (int32_t)(h >> 32);
        ((int64_t *)in->buf[CIN_I64])[i] = (int64_t)h;
        ((float *)in->buf[CIN_F32INT])[i] = (float)(int8_t)(h >> 24);
        ((double *)in->buf[CIN_F64INT])[i] = (double)(int32_t)(h >> 32);
        ((float *)in->buf[CIN_F32])[i] =
            ldexpf((float)((int)(h % 2001) - 1000), (int)((h >> 20) % 40) - 20);
        /* a b = 1 - k^2 2^-60, rounded: a fused a b + c keeps what the
         * rounding drops */
        double k = (double)(1 + (h >> 40) % 1000);
        ((double *)in->buf[CIN_FMA_A])[i] = 1.0 + k * 0x1p-30;
        ((double *)in->buf[CIN_FMA_B])[i] = 1.0 - k * 0x1p-30;
        ((double *)in->buf[CIN_FMA_C])[i] = -1.0;
    }
    return 1;
}

/* ---- building and running ----------------------------------------------------- */

/* The test hook ACC_CPU_CANARY_BREAK=NAME[:K]: canary NAME's expected
 * results are made wrong in the first K toolchains a probe tries (all of
 * them without K), as if the compiler had miscompiled it there. */
static int broken(const char *name, int attempt)
{
    const char *v = getenv("ACC_CPU_CANARY_BREAK");
    size_t n = strlen(name);
    if (!v || strncmp(v, name, n) != 0 || (v[n] != '\0' && v[n] != ':'))
        return 0;
    return v[n] == '\0' || attempt < atoi(v + n + 1);
}

/* Canary c over every length; 1 when it gives the references' results. */
static int check(const canary *c, canary_fn fn, const inputs *in,
                 int attempt, int64_t *got, int64_t *want)
{
    const void *const *args = (const void *const *)in->buf;
    for (size_t l = 0; l < N_LENGTHS; l++) {
        memset(got, 0x5a, OUT_SLOTS * sizeof *got);
        memset(want, 0x5a, OUT_SLOTS * sizeof *want);
        fn(args, lengths[l], got);
        c->reference(args, lengths[l], want);
        if (broken(c->name, attempt))
            want[0] ^= 1;
        if (memcmp(got, want, OUT_SLOTS * sizeof *got) != 0)
            return 0;
    }
    return 1;
}

static void note_failed(cpu_canary_report *r, const char *name)
{
    size_t at = strlen(r->failed);
    snprintf(r->failed + at, sizeof r->failed - at, "%s%s", at ? ", " : "",
             name);
}

/* Runs every canary of loaded object h. */
static int run_all(void *h, int attempt, cpu_canary_report *r)
{
    inputs in;
    int64_t *got = mem_alloc(OUT_SLOTS * sizeof *got);
    int64_t *want = mem_alloc(OUT_SLOTS * sizeof *want);
    int ok = got && want && inputs_make(&in);
    if (!ok) {
        diag_oom(&r->d, "the canaries");
        free(got);
        free(want);
        return 0;
    }
    r->built = 1;
    for (int i = 0; i < N_CANARIES; i++) {
        canary_fn fn = NULL;
        void *sym = dlsym(h, canaries[i].symbol);
        memcpy(&fn, &sym, sizeof fn);
        if (fn && check(&canaries[i], fn, &in, attempt, got, want))
            r->passed++;
        else
            note_failed(r, canaries[i].name);
    }
    inputs_free(&in);
    free(got);
    free(want);
    return r->passed == r->total;
}

/* Loads the canaries' object, checks the trivial probe, runs them all. */
static int load_and_run(const char *so, int attempt, cpu_canary_report *r)
{
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        diag_fail(&r->d, ACC_ERR_COMPILE, "the compiled probe does not load: "
                  "%s", dlerror());
        return 0;
    }
    int (*probe)(int) = NULL;
    void *sym = dlsym(h, "accel_probe");
    memcpy(&probe, &sym, sizeof probe);
    int ok = probe && probe(41) == 42;
    if (!ok)
        diag_fail(&r->d, ACC_ERR_COMPILE, "the compiled probe does not run "
                  "correctly");
    ok = ok && run_all(h, attempt, r);
    dlclose(h);
    return ok;
}

static int write_source(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    int ok = fputs(cg_skeleton("cpu/prelude.h.in"), f) >= 0 &&
             fputs(cg_skeleton("cpu/canary.c.in"), f) >= 0;
    return fclose(f) == 0 && ok;
}

int cpu_canaries_run(const cpu_toolchain *tc, int attempt,
                     cpu_canary_report *r)
{
    const char *tmp = getenv("TMPDIR");
    char dir[1024], src[1100], so[1100];
    memset(r, 0, sizeof *r);
    r->total = N_CANARIES;
    snprintf(dir, sizeof dir, "%s/accel-probe-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        diag_fail(&r->d, ACC_ERR_COMPILE, "cannot create a folder in %s to "
                  "probe the C compiler: %s", tmp && *tmp ? tmp : "/tmp",
                  strerror(errno));
        return 0;
    }
    snprintf(src, sizeof src, "%s/canary.c", dir);
    snprintf(so, sizeof so, "%s/canary.so", dir);
    int ok = write_source(src);
    if (!ok)
        diag_fail(&r->d, ACC_ERR_COMPILE, "cannot write %.400s", src);
    else
        ok = cpu_compile(tc, src, so, &r->d) == ACC_OK;
    ok = ok && load_and_run(so, attempt, r);
    unlink(src);
    unlink(so);
    rmdir(dir);
    return ok;
}
