/*
 * schedule.h — a compiled program's schedule (DESIGN.md §1, pass 6): the
 * steps that run it, as data built once at compile time from the final
 * IR.  A run executes the schedule (core/exec); the plan a program
 * reports (acc_program_explain) is the schedule printed.
 *
 * A step computes the value of one IR node: an array operation (a kernel
 * of the backend, or a step the interpreter runs: the backend's build
 * decides and says why), a foreign call, or a control step (acond,
 * awhile) whose bodies are sub-schedules.  Every step names the values it
 * reads and the values to release after it (those it read last), so an
 * intermediate array lives from its step to its last use.
 *
 * Values.  A value is the result of a step, named by its node's id; an
 * input is a value the run binds before the first step, an array
 * parameter one its control step binds.  Tuples, components, lets and
 * variables are not values: they name values (the run looks them up).
 *
 * Scopes.  The root schedule and the bodies of control steps (each branch
 * of an acond, the condition and the body of an awhile, the fallback of a
 * foreign call) are scopes.  A step belongs to the innermost scope that
 * contains all its uses, so a value used only in one branch is computed
 * only when that branch runs, and a value used inside a loop and outside
 * is computed once, before it.  A step of a loop's body that does not
 * depend on the loop's parameters is run on the first iteration only
 * (`once`) and its value kept until the loop ends: loop-invariant arrays
 * are computed once, when first needed, as the interpreter computes them.
 *
 * Lazy values.  A value read only by scalar code (`xs ! i` inside a
 * function) may never be read: the function may be applied to no element,
 * or the read may sit in a branch not taken.  Such a step is `lazy`: a
 * runtime error of the program (ACC_ERR_RUNTIME, ACC_ERR_SHAPE) in it is
 * kept with its value instead of failing the run, and reported by the
 * first step that reads the value (core/backend/values.h).
 */
#ifndef ACC_CORE_SCHEDULE_SCHEDULE_H
#define ACC_CORE_SCHEDULE_SCHEDULE_H

#include "core/base/strbuf.h"
#include "core/ir/program_ir.h"

typedef enum sched_kind {
    SCHED_ARRAY,   /* an array operation (the plan's "kernel" steps)     */
    SCHED_FOREIGN, /* a foreign call; body[0]: its fallback              */
    SCHED_COND,    /* acond; body[0]: then, body[1]: else                */
    SCHED_WHILE    /* awhile; body[0]: the condition, body[1]: the body  */
} sched_kind;

/* Who runs an array step, decided by the backend's build. */
typedef enum sched_exec {
    SCHED_BY_INTERP,  /* the reference interpreter (the interp backend's
                         steps; elsewhere a step without a kernel: `why`) */
    SCHED_BY_KERNEL,  /* a kernel of the program's backend (`kernel`)    */
    SCHED_BY_HOST     /* a host step (reshape, unit): the interpreter's
                         routines, which are what compiled code would do */
} sched_exec;

typedef struct schedule schedule;

typedef struct sched_step {
    sched_kind kind;
    const ir_node *node;   /* the node whose value the step computes   */
    int output;            /* the value is (part of) a program output   */
    uint8_t once;          /* run on a loop's first iteration only      */
    uint8_t lazy;          /* only read by scalar code (see above)      */
    uint8_t counted;       /* counted in the plan's figures (not a step
                              of a fallback run only when an
                              implementation refuses at run time)      */
    uint32_t *reads;       /* ids of the values it reads (its bodies'
                              reads of values outside them included)  */
    uint32_t n_reads;
    uint32_t *release;     /* ids of the values released after it       */
    uint32_t n_release;
    schedule *body[2];     /* control steps' scopes (see sched_kind)    */
    /* Set by the backend's build: */
    sched_exec by;
    void *kernel;          /* SCHED_BY_KERNEL: the backend's compiled step */
    const char *why;       /* SCHED_BY_INTERP on a compiling backend: why
                              the backend has no kernel for it (arena) */
} sched_step;

/* A scope: steps in order, the term whose value is the scope's result,
 * the lambda whose parameters its control step binds (NULL for the root
 * and for acond branches), and what is released when the scope ends. */
struct schedule {
    sched_step *steps;
    size_t n_steps;
    const ir_node *result;
    const ir_node *lambda;
    uint32_t *release_end; /* its values still held when it ends: its
                              result's steps, once it has been taken */
    uint32_t n_release_end;
    uint32_t *once_values; /* the values of its `once` steps: released
                              when the loop ends */
    uint32_t n_once;
};

typedef struct sched_program {
    arena *arena;          /* every array and string of the schedule    */
    schedule root;
    uint32_t n_nodes;      /* the IR's, when built                       */
    uint8_t *is_step;      /* per node id: a step computes its value     */
    sched_step **all;      /* every step, bodies first (the order the
                              plan has always listed them in)           */
    size_t n_all;
    size_t kernels, intermediates, foreign_calls, duplicated;
} sched_program;

/* Builds the schedule of program ir (after every pass).  Its errors
 * (only out of memory) are recorded on d, whose status it returns. */
acc_status sched_build(const ir_program *ir, sched_program *out, diag *d);
void sched_free(sched_program *s);

/* Whether an array operation is a step of its own (and a kernel when a
 * backend compiles it). */
int sched_is_array_op(ir_op op);

/* Appends the schedule as the plan, text or JSON (a JSON object left
 * open: the backend's description is appended, then "}"). */
void sched_describe(strbuf *b, const sched_program *s, acc_backend backend,
                    int json);

#endif
