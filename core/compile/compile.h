/*
 * compile.h — the compiler's pipeline driver (DESIGN.md §1): one function
 * takes a graph's results to a compiled program, running every pass in
 * order.  acc_compile (abi/src/program_api.c) checks its arguments, calls
 * it and registers the handle; nothing else drives the pipeline.
 */
#ifndef ACC_CORE_COMPILE_COMPILE_H
#define ACC_CORE_COMPILE_COMPILE_H

#include "core/ir/graph.h"
#include "core/ir/program_ir.h"
#include "core/schedule/plan.h"
#include "foreign/registry.h"

/* What a program is compiled for: the context's backend and what the
 * passes take from the context. */
typedef struct compile_target {
    acc_backend backend;
    int32_t device;                    /* the CUDA device ordinal */
    struct cpu_backend *cpu;           /* the CPU backend's, for CPU */
    struct cuda_backend *cuda;         /* the CUDA backend's, for CUDA */
    reg_registry *foreign;             /* foreign implementations */
    int32_t fusion_duplicate_max_ops;  /* fusion's cost model */
} compile_target;

/* A compiled program: its IR after every pass, its plan, and its
 * backend's compiled kernels. */
typedef struct compiled {
    acc_backend backend;
    int32_t device;
    ir_program ir;
    plan plan;
    struct cpu_program *cpu;
    struct cuda_program *cuda;
} compiled;

/* The pipeline: copy of the graph, sharing recovery, check, fusion,
 * check, foreign resolution, plan, backend build.  On failure records
 * the first error on d and leaves *out empty. */
acc_status compile_program(const compile_target *t, acc_graph *g,
                           size_t n_results, acc_node *const *results,
                           compiled *out, diag *d);
/* Frees what compile_program built.  NULL-safe on an empty *c. */
void compiled_free(compiled *c);

#endif
