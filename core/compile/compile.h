/*
 * compile.h — the compiler's pipeline driver (DESIGN.md §1): one function
 * takes a graph's results to a compiled program, running every pass in
 * order.  acc_compile (abi/src/program_api.c) checks its arguments, calls
 * it and registers the handle; nothing else drives the pipeline.
 */
#ifndef ACC_CORE_COMPILE_COMPILE_H
#define ACC_CORE_COMPILE_COMPILE_H

#include "core/backend/backend.h"
#include "core/ir/graph.h"
#include "core/ir/program_ir.h"
#include "core/schedule/schedule.h"
#include "foreign/autoload.h"
#include "foreign/registry.h"

/* What a program is compiled for: the context's backend and what the
 * passes take from the context. */
typedef struct compile_target {
    backend *be;                       /* the context's backend */
    int32_t device;                    /* the CUDA device ordinal */
    reg_registry *foreign;             /* foreign implementations */
    reg_autoload *autoload;            /* the plugins loaded on first need */
    int32_t fusion_duplicate_max_ops;  /* fusion's cost model */
    int strict;                        /* no step left to the interpreter */
} compile_target;

/* A compiled program: its IR after every pass, its schedule, and what
 * its backend built for it (kernels). */
typedef struct compiled {
    backend *be;
    int32_t device;
    ir_program ir;
    sched_program sched;
    backend_program *bprog;
    values_cache spare; /* the run state kept between runs (values.h) */
} compiled;

/* The pipeline: copy of the graph, sharing recovery, check, simplify,
 * fusion, check, foreign resolution, schedule, backend build.  On failure
 * records the first error on d and leaves *out empty. */
acc_status compile_program(const compile_target *t, acc_graph *g,
                           size_t n_results, acc_node *const *results,
                           compiled *out, diag *d);
/* Frees what compile_program built.  NULL-safe on an empty *c. */
void compiled_free(compiled *c);

#endif
