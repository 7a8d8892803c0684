/*
 * cpu_support.h — helpers of the tests that compare the CPU backend with
 * the reference interpreter (tests/e2e/test_cpu_*.c).
 */
#ifndef ACCEL_TESTS_CPU_SUPPORT_H
#define ACCEL_TESTS_CPU_SUPPORT_H

#include "accel.h"

/* The kernel-cache folder of the current test (made by ts_make_cache_dir,
 * removed by ts_remove_cache_dir: use them as suite init/fini).
 * ts_make_cache_dir also probes the CPU backend once from the folder the
 * tests share (build/test-kernel-cache), so the canaries are compiled
 * once for the suite, not once per test. */
extern char ts_cpu_cache_dir[256];
void ts_make_cache_dir(void);
void ts_remove_cache_dir(void);

/* A CPU context using ts_cpu_cache_dir; skips the test without a working
 * C compiler. */
acc_context *ts_cpu_context(void);

typedef acc_node *(*ts_build_fn)(acc_graph *g, const void *arg);

/* What one compile and run gave: the status, the message when it failed,
 * and the library-allocated outputs when it succeeded. */
enum { TS_MAX_OUT = 4 };
typedef struct ts_outcome {
    acc_status st;
    char message[1024];
    size_t n;
    acc_array out[TS_MAX_OUT];
} ts_outcome;

/* Fills *o: `compiled` is the status of compiling p; when it is ACC_OK, p
 * (of at most TS_MAX_OUT outputs) is run on in[0 .. n_in); a failure of
 * either keeps acc_last_error as the message.  Does not free p. */
void ts_outcome_run(ts_outcome *o, acc_status compiled, acc_program *p,
                    size_t n_in, const acc_array *in);
/* Releases the outputs of a successful outcome. */
void ts_outcome_release(ts_outcome *o);

/* Builds the program on the CPU and the interpreter backends, checks that
 * every CPU step is compiled, runs both on `in` and asserts equal status,
 * message and outputs (integers bit for bit; floats within `ulps` units in
 * the last place, or within relative error `rel` when rel > 0).  Returns
 * the common status. */
acc_status ts_differ(ts_build_fn build, const void *arg, size_t n_in,
                     const acc_array *in, int ulps, double rel);

/* Outputs got[0..n) equal want[0..n) (the interpreter's): the same
 * shapes, integers bit for bit, floats as ts_differ compares them. */
void ts_expect_same_outputs(const acc_array *got, const acc_array *want,
                            size_t n, int ulps, double rel);

/* The elements the reduction tests (folds, segmented folds, scans) combine:
 * i64 or f64 by (+); (i64, f64) by (+, max); (i64, i64, i64, i64) by the
 * 2x2 integer matrix product, associative but not commutative, so that
 * any reordering shows. */
typedef enum ts_red_elem {
    TS_RED_I64,
    TS_RED_F64,
    TS_RED_TUPLE,
    TS_RED_MATRIX
} ts_red_elem;
/* The combining function of kind k over elements of type elem (the
 * element type of the kind). */
acc_node *ts_red_combiner(acc_graph *g, ts_red_elem k, const acc_type *elem);
/* The start value the tests use for kind k: 42, 0.5, (42, -1.0), or the
 * matrix (1, 2, 3, 4). */
acc_node *ts_red_start(acc_graph *g, ts_red_elem k);

/* histogram k xs = permute (+) (fill [k] 0) (\[i] -> [i64 (xs ! [i])])
 *                          (map (\_ -> 1) xs)       (LANGUAGE.md §4)
 * over the input xs : Vector i32, k = *(const int64_t *)arg: the targets
 * are not reduced, so any value outside [0, k) is out of range. */
acc_node *ts_build_histogram(acc_graph *g, const void *arg);
/* [i64 x `mod` m]: a bin index in 0 .. m - 1 for x of any number type. */
acc_node *ts_bin_of(acc_graph *g, acc_node *x, int64_t m);
/* permute (\(a, b) (c, d) -> (a + c, max b d)) (fill [bins] (0, -1e9))
 *   (\[i] -> [xs!i `mod` bins]) (map (\x -> (x, f64 x * 0.5)) xs)
 * over the input xs : Vector i32: tuple elements, which take the locks. */
acc_node *ts_permute_tuples(acc_graph *g, int64_t bins);

/* The CPU permute strategies (ACC_CPU_PERMUTE, docs/CPU_BACKEND.md), NULL
 * ending the list and standing for the host's own choice. */
extern const char *const ts_permute_strategies[];
/* ts_differ (integers bit for bit) under every ts_permute_strategies
 * entry and 1, 2 and 3 threads (ACC_NUM_THREADS); the common status of
 * each must be `want`.  Unsets ACC_CPU_PERMUTE afterwards. */
void ts_differ_permute_strategies(ts_build_fn build, const void *arg,
                                  size_t n_in, const acc_array *in,
                                  acc_status want);
/* ts_differ on two inputs: an i64 array of rank `rank` and extents ext
 * holding (i * 7919) % 1000 - 300 at linear position i, and the Vector i64
 * seg[0 .. n_seg - 1] (a segment descriptor). */
acc_status ts_differ_segmented(ts_build_fn build, const void *arg, int rank,
                               const int64_t *ext, const int64_t *seg,
                               int64_t n_seg, double rel);

#endif
