/*
 * tile.h — whether a generate's elements are better computed in 2-D tiles
 * than row by row: its index function reads another array transposed
 * (or with any index whose innermost component does not follow the
 * generate's innermost one), so that walking the output row by row reads
 * that array a row's length apart, one cache line per element.
 */
#ifndef ACC_CORE_CODEGEN_TILE_H
#define ACC_CORE_CODEGEN_TILE_H

#include "core/ir/program_ir.h"

/* 1 when generate `gen` (rank >= 2) of program p reads an array of rank
 * >= 2 at an index whose innermost component does not depend on the
 * generate's innermost index component while another component does;
 * 0 otherwise (a plain map, a read along rows, a rank-1 generate). */
int cg_reads_across(const ir_program *p, const ir_node *gen);

#endif
