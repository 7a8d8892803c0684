/*
 * printer.h — the IR as readable text, in the syntax of the text language
 * (LANGUAGE.md §4) with explicit lets: inputs are in0, in1, ...; lambda
 * parameters p0, p1, ...; let-bound variables v0, v1, ...
 */
#ifndef ACC_CORE_IR_PRINTER_H
#define ACC_CORE_IR_PRINTER_H

#include "core/base/strbuf.h"
#include "core/ir/program_ir.h"

/* Appends the whole program: a signature line, then its root term. */
void ir_print_program(strbuf *out, const ir_program *p);
/* Appends one term (as an expression; nested lets are indented). */
void ir_print_term(strbuf *out, const ir_node *n);

#endif
