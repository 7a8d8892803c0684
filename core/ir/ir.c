/* ir.c — names of IR operations for messages and dumps. */
#include "core/ir/ir.h"

const char *ir_op_name(ir_op op)
{
    switch (op) {
    case IR_CONST: return "constant";
    case IR_PARAM: return "parameter";
    case IR_LAMBDA: return "lambda";
    case IR_PRIM: return "primitive";
    case IR_CONVERT: return "convert";
    case IR_COND: return "if";
    case IR_TUPLE: return "tuple";
    case IR_GET: return "get";
    case IR_INDEX: return "index";
    case IR_WHILE: return "while";
    case IR_READ: return "read (!)";
    case IR_READ_LINEAR: return "linear read (!!)";
    case IR_SHAPE: return "shape";
    case IR_SIZE: return "size";
    case IR_INPUT: return "input";
    case IR_UNIT: return "unit";
    case IR_GENERATE: return "generate";
    case IR_MAP: return "map";
    case IR_ZIPWITH: return "zipWith";
    case IR_BACKPERMUTE: return "backpermute";
    case IR_RESHAPE: return "reshape";
    case IR_FOLD: return "fold";
    case IR_FOLD1: return "fold1";
    case IR_ALL: return "All";
    case IR_IGNORE: return "ignore";
    case IR_REPLICATE: return "replicate";
    case IR_SLICE: return "slice";
    case IR_FOLD_SEG: return "foldSeg";
    case IR_SCAN: return "scan";
    case IR_SCAN_SEG: return "segmented scan";
    case IR_PERMUTE: return "permute";
    case IR_PERMUTE_PAIRS: return "permute'";
    case IR_STENCIL: return "stencil";
    case IR_STENCIL2: return "stencil2";
    case IR_EXPAND: return "expand";
    case IR_ACOND: return "acond";
    case IR_AWHILE: return "awhile";
    case IR_BOUNDS: return "bounds";
    case IR_FOREIGN: return "foreign";
    case IR_FOREIGN_EXP: return "foreignExp";
    case IR_LET: return "let";
    case IR_VAR: return "variable";
    case IR_OP_COUNT: break;
    }
    return "unknown operation";
}

const char *ir_origin_name(const ir_node *n)
{
    for (int op = 0; op < IR_OP_COUNT; op++)
        if ((n->fused >> op) & 1)
            return ir_op_name((ir_op)op);
    return ir_op_name(n->op);
}
