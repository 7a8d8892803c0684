/*
 * reference_support.h — comparing the backend a suite runs on with the
 * reference semantics: the interpreter, by default without fusion
 * (ACC_DISABLE=fusion), where every array is computed whole and every read
 * is checked.
 *
 * The backend under test is ts_context(ACC_BACKEND_INTERP)'s: the fused
 * interpreter, or the CPU or CUDA backend in the .cpu and .cuda runs of
 * the language suites (support.c, ACC_TEST_BACKEND).
 */
#ifndef ACCEL_TESTS_REFERENCE_SUPPORT_H
#define ACCEL_TESTS_REFERENCE_SUPPORT_H

#include "accel.h"
#include "cpu_support.h"

/* What a program is compiled for: the backend under test, the reference
 * interpreter without fusion, or with it (whose messages name the user's
 * operations as the compiled backends' do: a fused backpermute reports
 * "index [i] is out of bounds", the unfused one the index function). */
typedef enum ts_ref_target {
    TS_UNDER_TEST,
    TS_REF_UNFUSED,
    TS_REF_FUSED
} ts_ref_target;

/* Entry `entry` of text program `src`, compiled for `target`; fails the
 * test when it does not compile.  Free with acc_program_free. */
acc_program *ts_ref_compile_text(const char *src, const char *entry,
                                 ts_ref_target target);
/* The program `build` makes (one result), compiled likewise. */
acc_program *ts_ref_compile(ts_build_fn build, const void *arg,
                            ts_ref_target target);

/* Runs ref and p on inputs in[0 .. n_in) and asserts that p gives the
 * same status and message, or the same outputs (integers bit for bit,
 * floats within `ulps`).  `fails`: whether the reference must fail with
 * ACC_ERR_RUNTIME and a message containing `fails` (NULL: it must
 * succeed).  `what` names the case in failure messages. */
void ts_ref_agree(acc_program *ref, acc_program *p, size_t n_in,
                  const acc_array *in, int ulps, const char *fails,
                  const char *what);

/* With the CPU backend, that every step of p is compiled (none left to
 * the interpreter); nothing on the other backends. */
void ts_ref_expect_compiled(const acc_program *p);

#endif
