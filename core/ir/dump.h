/*
 * dump.h — the ACC_DUMP switch: ACC_DUMP=sharing,check (or "all") prints
 * the program's IR to stderr after the named passes; ACC_DUMP=kernels
 * prints the source of every kernel a backend generates.
 */
#ifndef ACC_CORE_IR_DUMP_H
#define ACC_CORE_IR_DUMP_H

#include "core/ir/program_ir.h"

/* Whether ACC_DUMP names `pass` (or says "all"). */
int dump_wanted(const char *pass);
/* Whether ACC_DISABLE names `pass` (a debugging switch: ACC_DISABLE=sharing
 * compiles without sharing recovery, to compare results). */
int pass_disabled(const char *pass);
/* Prints p to stderr under a header naming the pass, when wanted. */
void dump_after_pass(const ir_program *p, const char *pass);
/* Prints the source of the kernel a backend (`target`: "cpu", "cuda")
 * generated for node n, when ACC_DUMP names "kernels". */
void dump_kernel(const char *target, const ir_node *n, const char *source);

#endif
