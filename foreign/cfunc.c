/*
 * cfunc.c — plain C functions called through libffi (DESIGN.md §8).
 *
 * A registered function becomes an ordinary implementation whose accepts,
 * result_shape and execute functions apply the mapping accel.h defines for
 * acc_register_c_function: argument arrays, then result arrays, to the
 * parameters from left to right (a T* gets a buffer, a T the value of a
 * Scalar), then the extents of the argument arrays to the trailing i64
 * parameters.  Without libffi, registering reports ACC_ERR_UNSUPPORTED.
 */
#include "foreign/cfunc.h"

#include "core/base/mem.h"
#include "core/ir/value.h"
#include "foreign/registry.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if ACC_HAVE_LIBFFI
#include <ffi.h>

struct reg_cfn {
    reg_sig sig;          /* the mapped parameters (without lo, hi)    */
    void (*fn)(void);
    ffi_cif cif;          /* the whole C type (lo, hi included)        */
    ffi_type *types[REG_SIG_MAX_PARAMS + 2];
    reg_split split;      /* split.run NULL: called once               */
};

static ffi_type *ffi_type_of(acc_scalar s)
{
    switch (s) {
    case ACC_BOOL: case ACC_U8: return &ffi_type_uint8;
    case ACC_I8: return &ffi_type_sint8;
    case ACC_I16: return &ffi_type_sint16;
    case ACC_U16: return &ffi_type_uint16;
    case ACC_I32: return &ffi_type_sint32;
    case ACC_U32: return &ffi_type_uint32;
    case ACC_I64: return &ffi_type_sint64;
    case ACC_U64: return &ffi_type_uint64;
    case ACC_F32: return &ffi_type_float;
    case ACC_F64: return &ffi_type_double;
    }
    return &ffi_type_void;
}

void reg_cfn_free(reg_cfn *c)
{
    free(c);
}

static int cfn_accepts(acc_foreign_query *q)
{
    const reg_cfn *c = q->user;
    return reg_sig_accepts(&c->sig, c->split.run != NULL, 0, q);
}

/* Per-call storage of the values libffi reads the arguments from. */
typedef struct ffi_frame {
    void *values[REG_SIG_MAX_PARAMS + 2];
    void *pointers[REG_SIG_MAX_PARAMS];
    int64_t extents[REG_SIG_MAX_PARAMS];
} ffi_frame;

static void fill_frame(const reg_cfn *c, const acc_foreign_call *call,
                       ffi_frame *f)
{
    size_t ai = 0, ri = 0, ei = 0, arr = 0;
    int32_t dim = 0;
    for (size_t i = 0; i < c->sig.n_params; i++) {
        const reg_param *p = &c->sig.params[i];
        if (ai < call->n_args) {
            const acc_array *a = &call->args[ai++];
            f->pointers[i] = a->data[0];
            f->values[i] = p->pointer ? (void *)&f->pointers[i] : a->data[0];
        } else if (c->sig.ret_void && ri < call->n_results) {
            f->pointers[i] = call->results[ri++].data[0];
            f->values[i] = &f->pointers[i];
        } else {
            while (arr < call->n_args && dim >= call->args[arr].rank) {
                arr++;
                dim = 0;
            }
            f->extents[ei] = arr < call->n_args ? call->args[arr].extents[dim++]
                                                : 0;
            f->values[i] = &f->extents[ei++];
        }
    }
}

/* The returned value of a non-void function, stored as type `s` at dst
 * (libffi widens small integer results to ffi_arg). */
typedef union ffi_ret {
    ffi_arg word;
    float f;
    double d;
    uint64_t u64;
} ffi_ret;

static ir_value ret_value(acc_scalar s, const ffi_ret *r)
{
    ir_value v;
    if (s == ACC_F32)
        v.f = r->f;
    else if (s == ACC_F64)
        v.f = r->d;
    else if (s == ACC_I64 || s == ACC_U64)
        v.u = r->u64;
    else
        v = val_convert(ACC_U64, s, (ir_value){.u = (uint64_t)r->word});
    return v;
}

/* One range [lo, hi) of the rows of result 0: the frame's values, then
 * lo and hi (the frame is shared read-only by the ranges). */
typedef struct split_task {
    const reg_cfn *c;
    const ffi_frame *f;
} split_task;

static void run_range(void *arg, int64_t lo, int64_t hi)
{
    const split_task *t = arg;
    void *values[REG_SIG_MAX_PARAMS + 2];
    ffi_ret r;
    size_t n = t->c->sig.n_params;
    memcpy(values, t->f->values, n * sizeof *values);
    values[n] = &lo;
    values[n + 1] = &hi;
    ffi_call((ffi_cif *)&t->c->cif, t->c->fn, &r, values);
}

static acc_status cfn_execute(acc_foreign_call *call)
{
    const reg_cfn *c = call->user;
    ffi_frame f;
    ffi_ret r;
    fill_frame(c, call, &f);
    if (c->split.run) {
        split_task t = {c, &f};
        int64_t rows = call->results[0].extents[0];
        if (rows > 0)
            c->split.run(c->split.state, rows, run_range, &t);
        return ACC_OK;
    }
    ffi_call((ffi_cif *)&c->cif, c->fn, &r, f.values);
    if (!c->sig.ret_void)
        val_store(call->results[0].data[0], c->sig.ret, 0,
                  ret_value(c->sig.ret, &r));
    return ACC_OK;
}

/* ---- scalar functions (foreignExp) ------------------------------------- */

int reg_cfn_fits_scalar(const reg_cfn *c, size_t n_leaves,
                        const acc_scalar *leaves, const acc_type *result)
{
    return reg_sig_fits_scalar(&c->sig, n_leaves, leaves, result);
}

void reg_cfn_call_scalar(const reg_cfn *c, const acc_scalar *leaves,
                         const ir_value *in, acc_scalar result, ir_value *out)
{
    uint64_t storage[REG_SIG_MAX_PARAMS];
    void *values[REG_SIG_MAX_PARAMS];
    ffi_ret r;
    for (size_t i = 0; i < c->sig.n_params; i++) {
        val_store(&storage[i], leaves[i], 0, in[i]);
        values[i] = &storage[i];
    }
    ffi_call((ffi_cif *)&c->cif, c->fn, &r, values);
    *out = ret_value(result, &r);
}

/* ---- registration --------------------------------------------------------- */

/* A split function ends with "i64, i64" (lo, hi), which the mapping
 * does not see; 0 after recording on d when they are missing. */
static int strip_range(reg_sig *sig, const char *fn, diag *d)
{
    size_t n = sig->n_params;
    if (n < 2 || sig->params[n - 1].pointer || sig->params[n - 2].pointer ||
        sig->params[n - 1].type != ACC_I64 ||
        sig->params[n - 2].type != ACC_I64 || !sig->ret_void) {
        diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s: a kernel split over the "
                  "thread pool returns void and ends with two i64 "
                  "parameters, the rows [lo, hi) of result 0 it computes",
                  fn);
        return 0;
    }
    sig->n_params -= 2;
    return 1;
}

reg_cfn *reg_cfn_create(const reg_sig *sig, void (*fn)(void),
                        const reg_split *split, const char *fn_name, diag *d)
{
    reg_cfn *c = mem_calloc(1, sizeof *c);
    if (!c) {
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host memory",
                  fn_name);
        return NULL;
    }
    c->sig = *sig;
    c->fn = fn;
    size_t n = sig->n_params;
    if (split && split->run) {
        c->split = *split;
        if (!strip_range(&c->sig, fn_name, d)) {
            free(c);
            return NULL;
        }
    }
    for (size_t i = 0; i < n; i++)
        c->types[i] = sig->params[i].pointer ? &ffi_type_pointer
                                             : ffi_type_of(sig->params[i].type);
    ffi_type *ret = sig->ret_void ? &ffi_type_void : ffi_type_of(sig->ret);
    if (ffi_prep_cif(&c->cif, FFI_DEFAULT_ABI, (unsigned)n, ret,
                     c->types) != FFI_OK) {
        free(c);
        diag_fail(d, ACC_ERR_UNSUPPORTED, "%s: libffi cannot call this "
                  "signature", fn_name);
        return NULL;
    }
    return c;
}

/* dlopen's handle of `library` (NULL: the program) and the symbol. */
static acc_status find_symbol(const char *library, const char *symbol,
                              void **handle, void (**fn)(void), diag *d)
{
    static const char fn_name[] = "acc_register_c_function";
    *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!*handle)
        return diag_fail(d, ACC_ERR_NOT_FOUND, "%s: cannot load library "
                         "'%s': %s", fn_name, library ? library : "(program)",
                         dlerror());
    dlerror();
    void *p = dlsym(*handle, symbol);
    const char *err = dlerror();
    if (!p || err) {
        diag_fail(d, ACC_ERR_NOT_FOUND, "%s: symbol '%s' not found in '%s'"
                  "%s%s", fn_name, symbol, library ? library : "(program)",
                  err ? ": " : "", err ? err : "");
        dlclose(*handle);
        return d->status;
    }
    memcpy(fn, &p, sizeof p); /* object to function pointer, as POSIX allows */
    return ACC_OK;
}

acc_status reg_cfn_add(reg_registry *r, const reg_cfn_entry *how,
                       reg_cfn *c, reg_impl **added, diag *d)
{
    acc_foreign_impl impl = {
        .struct_size = sizeof impl, .name = how->name,
        .impl_name = how->impl_name, .backend = ACC_BACKEND_INTERP,
        .priority = how->priority, .accepts = cfn_accepts,
        .result_shape = reg_sig_result_shape, .execute = cfn_execute, .user = c,
        .note = how->note};
    reg_impl *e = NULL;
    if (reg_add(r, &impl, how->origin, how->fn, &e, d) != ACC_OK)
        return d->status;
    e->cfn = c;
    if (added)
        *added = e;
    return ACC_OK;
}

static acc_status add_cfn(reg_registry *r, const char *name,
                          const char *symbol, const char *library,
                          const char *signature, reg_cfn *c, diag *d)
{
    char impl_name[160], note[512];
    snprintf(impl_name, sizeof impl_name, "c:%s", symbol);
    snprintf(note, sizeof note, "C function %s %s from %s", symbol, signature,
             library ? library : "the program");
    reg_cfn_entry how = {name, impl_name, note, "C function",
                         "acc_register_c_function", 0};
    return reg_cfn_add(r, &how, c, NULL, d);
}

acc_status reg_register_c_function(reg_registry *r, const char *name,
                                   const char *library, const char *symbol,
                                   const char *signature, diag *d)
{
    reg_sig sig;
    void *handle = NULL;
    void (*fn)(void) = NULL;
    if (reg_parse_signature(signature, &sig, d) != ACC_OK ||
        find_symbol(library, symbol, &handle, &fn, d) != ACC_OK)
        return d->status;
    reg_cfn *c = reg_cfn_create(&sig, fn, NULL, "acc_register_c_function",
                                d);
    if (!c || add_cfn(r, name, symbol, library, signature, c, d) != ACC_OK) {
        free(c);
        dlclose(handle);
        return d->status;
    }
    return reg_keep_library(r, handle, library, 0, d);
}

#else /* !ACC_HAVE_LIBFFI */

struct reg_cfn {
    int unused;
};

void reg_cfn_free(reg_cfn *c)
{
    free(c);
}

int reg_cfn_fits_scalar(const reg_cfn *c, size_t n_leaves,
                        const acc_scalar *leaves, const acc_type *result)
{
    (void)c, (void)n_leaves, (void)leaves, (void)result;
    return 0;
}

void reg_cfn_call_scalar(const reg_cfn *c, const acc_scalar *leaves,
                         const ir_value *in, acc_scalar result, ir_value *out)
{
    (void)c, (void)leaves, (void)in, (void)result;
    out->u = 0;
}

reg_cfn *reg_cfn_create(const reg_sig *sig, void (*fn)(void),
                        const reg_split *split, const char *fn_name, diag *d)
{
    (void)sig, (void)fn, (void)split;
    diag_fail(d, ACC_ERR_UNSUPPORTED, "%s: this build of accel has no libffi "
              "(install libffi-dev and rebuild)", fn_name);
    return NULL;
}

acc_status reg_cfn_add(struct reg_registry *r, const reg_cfn_entry *how,
                       reg_cfn *c, struct reg_impl **added, diag *d)
{
    (void)r, (void)how, (void)c, (void)added;
    return diag_fail(d, ACC_ERR_UNSUPPORTED, "no libffi");
}

acc_status reg_register_c_function(reg_registry *r, const char *name,
                                   const char *library, const char *symbol,
                                   const char *signature, diag *d)
{
    reg_sig sig;
    (void)r, (void)name, (void)library, (void)symbol;
    if (reg_parse_signature(signature, &sig, d) != ACC_OK)
        return d->status;
    return diag_fail(d, ACC_ERR_UNSUPPORTED, "acc_register_c_function: this "
                     "build of accel has no libffi (install libffi-dev and "
                     "rebuild)");
}

#endif
