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

/* The capability check of a signature (mapping.c): 1 when the query's
 * arrays map to sig's parameters, else 0 with the reason written (naming
 * the parameter).  split: the function is split by rows of result 0
 * (which must have rank >= 1); device: Scalar arguments stay in device
 * memory, so value parameters are refused. */
int reg_sig_accepts(const reg_sig *sig, int split, int device,
                    acc_foreign_query *q);
/* result_shape of every signature-mapped implementation: each result of
 * rank r >= 1 gets the extents of the first argument array of rank r. */
acc_status reg_sig_result_shape(acc_foreign_call *call);
/* Whether sig can implement a foreignExp node whose argument has these
 * scalar leaves and whose result is the scalar `result`. */
int reg_sig_fits_scalar(const reg_sig *sig, size_t n_leaves,
                        const acc_scalar *leaves, const acc_type *result);
/* The parameters of a call whose every array parameter is a pointer (a
 * device kernel's): slots[i] holds parameter i's pointer or i64 extent,
 * values[i] points to it (cuLaunchKernel's form). */
void reg_sig_params(const reg_sig *sig, const acc_foreign_call *call,
                    uint64_t *slots, void **values);
/* Whether sig is a scalar function: scalar parameters, a scalar result. */
int reg_sig_is_scalar(const reg_sig *sig);

struct reg_registry;
typedef struct reg_cfn reg_cfn;
/* acc_register_c_function without the handle checks. */
acc_status reg_register_c_function(struct reg_registry *r, const char *name,
                                   const char *library, const char *symbol,
                                   const char *signature, diag *d);
void reg_cfn_free(reg_cfn *c);

/* How a function is split over threads (user kernels, user_kernel.c):
 * run(state, rows, fn, arg) calls fn(arg, lo, hi) on ranges covering
 * [0, rows) once each, possibly on several threads at once. */
typedef struct reg_split {
    void (*run)(void *state, int64_t rows,
                void (*fn)(void *arg, int64_t lo, int64_t hi), void *arg);
    void *state;
} reg_split;

/* A function of C type `sig` at `fn`, called through libffi with the
 * mapping of acc_register_c_function.  With split (NULL or split->run
 * NULL: none), sig ends with "i64, i64", the rows [lo, hi) of result 0
 * each call computes, and execute covers the rows through split->run.
 * NULL after recording on d (naming fn_name). */
reg_cfn *reg_cfn_create(const reg_sig *sig, void (*fn)(void),
                        const reg_split *split, const char *fn_name,
                        diag *d);

/* What an implementation of a C function is registered as. */
typedef struct reg_cfn_entry {
    const char *name;      /* the foreign name                    */
    const char *impl_name; /* "c:twice", "kernel:twice"           */
    const char *note;      /* for acc_foreign_list                */
    const char *origin;    /* "C function", "user kernel"         */
    const char *fn;        /* the API function, for messages      */
    int32_t priority;
} reg_cfn_entry;

struct reg_impl;
/* Registers c as a host implementation; the entry owns c from then on
 * (on failure the caller still does). */
acc_status reg_cfn_add(struct reg_registry *r, const reg_cfn_entry *how,
                       reg_cfn *c, struct reg_impl **added, diag *d);

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
