/*
 * kernels_support.h — the fixture and checks shared by the tests of the
 * CUDA code generator without a device (tests/cuda/test_cuda_kernels*.c):
 * NVRTC loaded and a context on the interpreter, the CUDA kernel of a plan
 * step, and the check every such test ends with: each step with a CUDA
 * skeleton generated, its source checked for what its kind must contain,
 * and compiled by NVRTC to a cubin for sm_90 and to PTX for compute_90
 * (no warnings; the PTX defines exactly the kind's entry points).
 *
 * kernels_support.c is linked into every tests/cuda/test_cuda_kernels*.c
 * (cmake/AccelCuda.cmake); it is no test of its own.
 */
#ifndef ACCEL_TESTS_CUDA_KERNELS_SUPPORT_H
#define ACCEL_TESTS_CUDA_KERNELS_SUPPORT_H

#include "accel.h"
#include "core/codegen/kernel_cuda.h"
#include "abi/src/program.h"

#include <stddef.h>

/* The context the tests compile on (the interpreter's), set up by
 * kernels_setup.  Each file declares
 *   TestSuite(cuda_kernels, .init = kernels_setup, .fini = kernels_teardown);
 * kernels_setup skips the test, saying why, where NVRTC is not installed. */
extern acc_context *ctx;
void kernels_setup(void);
void kernels_teardown(void);

/* Kernels generated and compiled by one check, by kind; steps without a
 * CUDA skeleton. */
typedef struct counts {
    int generate, fold, map_fold, fold_seg, map_fold_seg, scan, steps, none;
    int stencil, map_over; /* map_over: generates mapping a host array */
    int permute, permute_expand, expand, mapped; /* mapped: maps after a
                                                    permute or an expand */
    int map_scan, scan_seg, map_scan_seg;
} counts;

/* cg_cuda_kernel's answer as these tests read it: 1 built, 0 no kernel
 * (why: the reason), -1 an error (why: its message). */
int cuda_kernel(const ir_program *ir, const ir_node *n, cg_kernel *k,
                char *why, size_t size);

/* How many times `what` occurs in `text`. */
int count_of(const char *text, const char *what);

/* The text of the function or PTX entry that `head` begins, up to its
 * closing brace at the start of a line (NULL when absent; free it). */
char *body_of(const char *text, const char *head);

/* The kernel's source defines `macro` as `value` (entry: for the
 * message). */
void expect_define(const cg_kernel *k, const char *macro, int value,
                   const char *entry);

/* Every step of program p: those with a CUDA skeleton generated and
 * compiled, the others refused with a reason. */
counts kernels_check_program(acc_program *p, const char *what);

/* The tests' name for it (static: the verifier's check_program, of
 * core/check/check.h, is a symbol of the library these tests link). */
static inline counts check_program(acc_program *p, const char *what)
{
    return kernels_check_program(p, what);
}

/* Entry point `entry` of text `src` compiled (asserted), then every step
 * checked as check_program does. */
counts check_text(const char *src, const char *entry);

/* The CUDA kernel of entry point `entry` of text `src`: its only step
 * with a skeleton. */
acc_program *only_kernel_of(const char *src, const char *entry,
                            cg_kernel *k);

#endif /* ACCEL_TESTS_CUDA_KERNELS_SUPPORT_H */
