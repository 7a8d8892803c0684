/*
 * cfunc.h — plain C functions as foreign implementations (DESIGN.md §8):
 * the signature grammar of acc_register_c_function (signature.c) and the
 * libffi calls (cfunc.c).  accel.h defines how a foreign node's arrays map
 * to the parameters; reg_cfn_* implement exactly that mapping.
 */
#ifndef ACC_FOREIGN_CFUNC_H
#define ACC_FOREIGN_CFUNC_H

#include "accel.h"
#include "core/base/diag.h"
#include "core/ir/ir.h"

enum { REG_SIG_MAX_PARAMS = 32 };

typedef struct reg_param {
    acc_scalar type;
    int pointer;          /* T*: a buffer; otherwise a value */
} reg_param;

typedef struct reg_sig {
    int ret_void;
    acc_scalar ret;       /* when !ret_void */
    size_t n_params;
    reg_param params[REG_SIG_MAX_PARAMS];
} reg_sig;

/* Parses `text`; ACC_ERR_PARSE on d naming the 0-based position and what
 * was expected there. */
acc_status reg_parse_signature(const char *text, reg_sig *out, diag *d);

struct reg_registry;
typedef struct reg_cfn reg_cfn;
/* acc_register_c_function without the handle checks. */
acc_status reg_register_c_function(struct reg_registry *r, const char *name,
                                   const char *library, const char *symbol,
                                   const char *signature, diag *d);
void reg_cfn_free(reg_cfn *c);

/* Whether c can implement a foreignExp node whose argument has these
 * scalar leaves and whose result is the scalar `result`. */
int reg_cfn_fits_scalar(const reg_cfn *c, size_t n_leaves,
                        const acc_scalar *leaves, const acc_type *result);
/* Calls c on argument leaves `in` (canonical values of the given types);
 * stores the result in *out. */
void reg_cfn_call_scalar(const reg_cfn *c, const acc_scalar *leaves,
                         const ir_value *in, acc_scalar result,
                         ir_value *out);

#endif
