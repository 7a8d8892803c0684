/*
 * diff.h — type-exhaustive differential testing (docs/TESTING.md): random
 * well-typed programs, built through the public builder API over every
 * scalar type and every operation class, run on every compiled backend
 * and compared with the reference interpreter.
 *
 * The parts, one file per concern (prefix dz_):
 *   gen_types.c    scalar types, random element types, edge values
 *   gen_scalar.c   random scalar expressions of a wanted type
 *   gen_produce.c  producers: map, zipWith, generate, backpermute, ...
 *   gen_consume.c  consumers: folds, scans, permutes, stencils, expand,
 *                  control
 *   gen_reduce.c   combining functions, reductions, tolerance shadows
 *   gen_libm.c     libm outputs (compared within the libm bound)
 *   gen_program.c  a whole program: inputs, the operation table, outputs
 *   gen_data.c     the data sets a program runs on
 *   compare.c      the comparison rules (exact, the reassociation bound,
 *                  the libm bound)
 *   nvrtc_check.c  the CUDA source of a program compiled by NVRTC
 *   run.c          one seed: compile on every backend, run, compare
 *   driver.c       many seeds in child processes (crashes, timeouts)
 *   report.c       printing programs, arrays, statistics
 *   repro_files.c  a failing seed as a text program, .npy inputs, run.sh
 *   regressions.c  the seeds of past failures
 * The generator is deterministic: a seed and the options give the same
 * program in every context, so each backend builds its own copy.
 */
#ifndef ACCEL_TESTS_FUZZ_DIFF_H
#define ACCEL_TESTS_FUZZ_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "accel.h"

enum {
    DZ_MAX_INPUTS = 10,
    DZ_MAX_OUTPUTS = 8,
    DZ_POOL = 24,
    DZ_ENV = 24,
    DZ_MAX_DATA = 16,
    DZ_MSG = 600
};

/* ---- options ------------------------------------------------------------------ */

/* Patterns of known open bugs the generator can leave out (issue 14), so
 * that a run finds other bugs while those are being fixed. */
enum {
    DZ_AVOID_WIDEN = 1,    /* (a) folds/scans of bool/i8/u8 widened      */
    DZ_AVOID_UNCHECKED = 2,/* (b) unchecked reads of fused producers, and
                              checks of unused values dropped by DCE     */
    DZ_AVOID_HUGE = 4,     /* (c) scans over extents near 2^63           */
    DZ_AVOID_LIBM = 8,     /* (d) libm functions (exp, sin, ...) anywhere
                              but in libm outputs (gen_libm.c): the cpu
                              backend's vectorised loops call libmvec's
                              exp/log, and the C compiler folds calls with
                              constant arguments (correctly rounded); both
                              differ from glibc's libm in the last place,
                              which LANGUAGE.md allows (not a bug), and
                              the difference may flow anywhere          */
    DZ_AVOID_ALL = 15,
    /* the default: the pattern of the bug still open ((a) and (b) are
     * fixed; (c)'s overflow is, its out-of-memory messages are not), and
     * (d), the libm differences LANGUAGE.md allows */
    DZ_AVOID_OPEN = DZ_AVOID_HUGE | DZ_AVOID_LIBM
};

typedef struct dz_options {
    unsigned avoid;     /* DZ_AVOID_* */
    int exact_math;     /* no libm functions (sin, exp, ...): for backends
                           whose libm differs (cuda) */
    int n_data;         /* data sets per program (1 .. DZ_MAX_DATA) */
    int nvrtc;          /* compile the CUDA source with NVRTC: 0 never,
                           k >= 1 for every k-th seed */
    int cuda;           /* run on the CUDA backend when it is available */
    int verbose;        /* print every seed */
    int show;           /* reproducer: print programs and results */
    unsigned only_class;/* when nonzero, 1 + the class every program uses */
    const char *write_dir; /* reproducer: write the first failing data set
                              (else the first) as files there */
    int inject;         /* tests of the fuzzer itself: 1 corrupts the first
                           element of the cpu's first non-empty output, 2
                           crashes the seed, 3 hangs it */
    int input_rank;     /* tests of the generator: when nonzero, every value
                           input has rank input_rank - 1, so that the pool
                           may hold no term an operation asks for (seed
                           1058 crashed so: replicate over rank-3 inputs) */
    int single_fold;    /* every program is one fold or fold1 over the
                           inputs (through a map or zipWith fused into it,
                           half the time), its only output: the programs
                           the CPU backend runs directly from their second
                           run with the same extents (docs/CPU_BACKEND.md,
                           "Direct runs"), which the default generator
                           almost never makes */
} dz_options;

void dz_options_default(dz_options *o);
/* Parses "a,b,c,d", "none" or "all" into *avoid; 0 on a bad word. */
int dz_parse_avoid(const char *text, unsigned *avoid);
/* The avoid set as the --avoid argument that gives it back. */
const char *dz_avoid_text(unsigned avoid);

/* ---- random numbers --------------------------------------------------------- */

static inline uint64_t dz_next(uint64_t *s)
{
    /* splitmix64: every seed, even 0, gives a good stream */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* 0 .. n-1 (n >= 1) */
static inline uint32_t dz_rnd(uint64_t *s, uint32_t n)
{
    return (uint32_t)(dz_next(s) % n);
}

/* 1 with probability num/den */
static inline int dz_chance(uint64_t *s, uint32_t num, uint32_t den)
{
    return dz_rnd(s, den) < num;
}

/* ---- operation classes (for coverage counts and --only) ------------------- */

typedef enum dz_class {
    DZ_C_MAP, DZ_C_ZIPWITH, DZ_C_GENERATE, DZ_C_FILL, DZ_C_BACKPERMUTE,
    DZ_C_GATHER, DZ_C_REPLICATE, DZ_C_SLICE, DZ_C_RESHAPE, DZ_C_UNIT,
    DZ_C_CONVERT, DZ_C_FOLD, DZ_C_FOLD1, DZ_C_FOLD_ALL, DZ_C_FOLD_SEG,
    DZ_C_FOLD_SEG_OFFSETS, DZ_C_FOLD1_SEG, DZ_C_SCAN, DZ_C_SCAN_SEG,
    DZ_C_PERMUTE, DZ_C_PERMUTE_PAIRS, DZ_C_STENCIL, DZ_C_STENCIL2,
    DZ_C_EXPAND, DZ_C_PERMUTE_EXPAND, DZ_C_ACOND, DZ_C_AWHILE,
    DZ_C_WHILE, DZ_C_DIVISION, DZ_C_SHIFT, DZ_C_FLOAT_FN, DZ_C_READ,
    DZ_C_WIDEN_FOLD, DZ_C_FUSED_READ, DZ_C_EXTENT, DZ_C_FILTER,
    DZ_C_TUPLE, DZ_C_REASSOC, DZ_C_CHECKED, DZ_C_LIBM,
    DZ_N_CLASSES
} dz_class;

const char *dz_class_name(dz_class c);
/* The class named `name`; -1 when there is none. */
int dz_class_of(const char *name);

/* Finer features a program may have, for coverage checks: a conversion
 * from scalar type a to b, the scalar leaf types folds and scans reduce,
 * the scan kinds, the stencil boundaries, the ranks of value inputs. */
enum {
    DZ_F_CONVERT = 0,      /* + 11 * (from - 1) + (to - 1) */
    DZ_F_FOLD_LEAF = 121,  /* + scalar - 1: a fold, foldSeg... of it */
    DZ_F_SCAN_LEAF = 132,  /* + scalar - 1 */
    DZ_F_SCAN_KIND = 143,  /* + kind - 1 */
    DZ_F_SEG_SCAN_KIND = 153,
    DZ_F_BOUNDARY = 163,   /* + boundary - 1 */
    DZ_F_INPUT_RANK = 168, /* + rank */
    DZ_N_FEATURES = 172
};

/* "convert i8 -> f32", "fold of u16", ... */
void dz_feature_name(int f, char *buf, size_t len);

/* ---- programs ------------------------------------------------------------------ */

/* What an input holds, which the data generator follows. */
typedef enum dz_role {
    DZ_VALUES,  /* random values of the element type, edge values included */
    DZ_INDICES, /* Vector i64 of positions in 0 .. N-1 (some out of range in
                   data sets that allow it) */
    DZ_SEGMENTS,/* Vector i64 of segment lengths, summing to at most N */
    DZ_OFFSETS, /* Vector i64 of segment offsets, 0 .. total */
    DZ_SIZE,    /* Scalar i64: an extent, about N */
    DZ_HUGE     /* Scalar i64: an extent that may be near 2^63 */
} dz_role;

typedef struct dz_input {
    dz_role role;
    int rank;
    size_t n_leaves;
    acc_scalar leaf[ACC_MAX_COMPONENTS];
} dz_input;

/* How an output is compared with the interpreter's (compare.c). */
typedef enum dz_cmp {
    DZ_CMP_EXACT,  /* bit for bit (any NaN matches any NaN) */
    DZ_CMP_SUM,    /* a float (+) reduction: within the reassociation bound */
    DZ_CMP_PRODUCT,/* a float (*) reduction over values near 1 */
    DZ_CMP_LIBM    /* one libm function of arguments both sides compute
                      exactly (gen_libm.c): within dz_libm_ulps units in
                      the last place (LANGUAGE.md does not fix libm
                      results) */
} dz_cmp;

typedef struct dz_program {
    acc_graph *g;
    size_t n_in;
    dz_input in[DZ_MAX_INPUTS];
    size_t n_out;
    acc_node *out[DZ_MAX_OUTPUTS];
    dz_cmp cmp[DZ_MAX_OUTPUTS];
    /* For a DZ_CMP_SUM/PRODUCT output: its shadow, the same reduction of
     * (|x| finite, #NaN, #+inf, #-inf, #terms) in f64 (gen_consume.c). */
    acc_node *shadow[DZ_MAX_OUTPUTS];
    /* For a DZ_CMP_LIBM output: the distance allowed, in ulps. */
    int ulps[DZ_MAX_OUTPUTS];
    uint64_t classes;   /* bit c: the program uses class c */
    uint64_t features[(DZ_N_FEATURES + 63) / 64]; /* bit f: feature f */
    int strict;         /* producers cannot fail, so an error the unfused
                           program reports must be reported fused too */
    int huge;           /* has a DZ_HUGE input */
    char error[DZ_MSG]; /* why generation failed (a generator bug) */
} dz_program;

/* Builds the program of `seed` in graph g of context ctx.  Returns 0 (with out->error)
 * when a builder call refused what the generator made: a bug of the
 * generator or of the builder. */
int dz_generate(acc_context *ctx, acc_graph *g, uint64_t seed,
                const dz_options *o, dz_program *out);

/* ---- data ---------------------------------------------------------------------- */

typedef struct dz_data {
    int64_t n;          /* the base innermost extent */
    size_t n_in;
    acc_array in[DZ_MAX_INPUTS];
    void *buf[DZ_MAX_INPUTS][ACC_MAX_COMPONENTS];
    char desc[160];     /* "N=48 rows=3 edge=20% oob" */
} dz_data;

/* Data set `which` of program p (types from the compiled program `typed`,
 * whose inputs are p's). */
int dz_data_make(dz_data *d, uint64_t seed, int which, const dz_program *p,
                 const acc_program *typed);
void dz_data_free(dz_data *d);

/* ---- running and comparing ---------------------------------------------------- */

/* The configurations a program runs in.  The interpreter on the fused
 * program is the reference for the backends; the unfused interpreter
 * checks fusion itself. */
typedef enum dz_config {
    DZ_UNFUSED, /* interp, ACC_DISABLE=simplify,fusion */
    DZ_INTERP,  /* interp: the reference */
    DZ_CPU,
    DZ_CUDA,
    DZ_N_CONFIGS
} dz_config;

const char *dz_config_name(dz_config c);

typedef struct dz_outcome {
    acc_status st;
    char msg[DZ_MSG];
    size_t n;
    acc_array out[DZ_MAX_OUTPUTS];
} dz_outcome;

void dz_outcome_release(dz_outcome *o);

/* Compares an output with the reference's by rule cmp (ulps: the
 * distance a DZ_CMP_LIBM output may have; shadow: the reference's shadow
 * of a DZ_CMP_SUM/PRODUCT output); on a difference writes a one-line
 * description (the first differing element) and returns 0.  Adds to
 * *unbounded the elements a float sum could not bound (they may overflow
 * in some order). */
int dz_compare_output(const acc_array *got, const acc_array *want,
                      dz_cmp cmp, int ulps, const acc_array *shadow,
                      char *why, size_t len, uint64_t *unbounded);

/* The distance in units in the last place that two results of libm
 * function op (ACC_OP_EXP .. ACC_OP_LOGBASE) at type t may have
 * (compare.c, docs/TESTING.md "libm functions"); -1 for any other op. */
int dz_libm_ulps(acc_primop op, acc_scalar t);

/* Writes program.acc (the unfused program as text), the inputs of data
 * set d as .npy files and run.sh (accel run on interp and cpu) into dir
 * (repro_files.c); 0 with why on failure. */
int dz_write_repro(const char *dir, const acc_program *unfused,
                   const dz_data *d, const char *title, char *why, size_t len);

/* Counters of one seed or of many. */
typedef struct dz_stats {
    uint64_t programs, runs, runs_ok, runs_err, failures, crashes;
    uint64_t per_config_programs[DZ_N_CONFIGS];
    uint64_t per_config_runs[DZ_N_CONFIGS];
    uint64_t per_class_programs[DZ_N_CLASSES];
    uint64_t per_class_runs[DZ_N_CLASSES];
    uint64_t nvrtc_kernels, nvrtc_failures;
    uint64_t nvrtc_warnings; /* kernels NVRTC compiled with a warning */
    uint64_t lazy_skips;     /* unfused failed, fused ran (allowed) */
    uint64_t unbounded;      /* float sums too large to bound */
    uint64_t kernels, interpreted; /* cpu plan steps */
    uint64_t direct_runs;    /* cpu runs that went direct (the plans') */
} dz_stats;

void dz_stats_add(dz_stats *into, const dz_stats *s);

/* Long-lived state of one process: the contexts, NVRTC. */
typedef struct dz_runner dz_runner;

dz_runner *dz_runner_open(const dz_options *o, const char *cache_dir,
                          char *why, size_t len);
void dz_runner_close(dz_runner *r);
/* Whether cuda runs, and the line saying why not. */
int dz_runner_has_cuda(const dz_runner *r, const char **why);
int dz_runner_has_nvrtc(const dz_runner *r, const char **why);

/* Runs seed `seed` on every configuration and every data set; adds to
 * *st; returns 1 when everything agreed, else 0 with the first difference
 * in fail (one line, without the seed). */
int dz_run_seed(dz_runner *r, uint64_t seed, dz_stats *st, char *fail,
                size_t len);

/* NVRTC: generates and compiles the CUDA kernels of program p; adds to
 * *st; 0 with why on the first failure. */
struct dz_nvrtc;
struct dz_nvrtc *dz_nvrtc_open(char *why, size_t len);
void dz_nvrtc_close(struct dz_nvrtc *n);
int dz_nvrtc_check(struct dz_nvrtc *n, const acc_program *p, int show,
                   dz_stats *st, char *why, size_t len);

/* ---- many seeds (driver.c) ----------------------------------------------------- */

typedef struct dz_failure {
    uint64_t seed;
    char what[DZ_MSG];
} dz_failure;

typedef struct dz_batch {
    const uint64_t *seeds; /* NULL: seeds first, first+1, ... */
    size_t n_seeds;        /* how many (0: until the time runs out) */
    uint64_t first;
    double seconds;        /* stop after this long (0: no limit) */
    double seed_timeout;   /* a seed running longer is a failure */
    int progress;          /* print a line every few seconds */
    int quiet;             /* do not print failures (tests of the fuzzer) */
    const char *cache_dir;
    const char *argv0;     /* for the reproducing command */
} dz_batch;

/* Runs the seeds in child processes (a crash or a hang fails its seed
 * and the next child goes on); fills *st and up to max_fail failures.
 * Returns the number of failures. */
size_t dz_run_batch(const dz_batch *b, const dz_options *o, dz_stats *st,
                    dz_failure *fails, size_t max_fail);

/* ---- printing (report.c) -------------------------------------------------------- */

void dz_print_stats(FILE *f, const dz_stats *st, double seconds);
void dz_print_array(FILE *f, const char *what, const acc_array *a,
                    size_t max_elems);
void dz_print_program(FILE *f, const acc_program *p, const char *title);
/* The command that reproduces seed `seed` under options o. */
void dz_repro_command(char *buf, size_t len, const char *argv0,
                      uint64_t seed, const dz_options *o);

/* ---- regression seeds (regressions.c) ------------------------------------------ */

typedef struct dz_regression {
    uint64_t seed;
    unsigned avoid;      /* the options it was found with: --avoid, */
    const char *only;    /* --only (NULL for none) */
    const char *open;    /* NULL when fixed; else who is fixing it: the
                            ctest slice skips it until then */
    const char *found;   /* what it found */
} dz_regression;

/* The options of regression g (over the defaults in *o). */
void dz_regression_options(const dz_regression *g, dz_options *o);

extern const dz_regression dz_regressions[];
extern const size_t dz_n_regressions;

#endif
