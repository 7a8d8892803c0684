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
    reg_sig sig;
    void (*fn)(void);
    ffi_cif cif;
    ffi_type *types[REG_SIG_MAX_PARAMS];
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

/* ---- matching a foreign node's arrays to the parameters ------------------ */

typedef struct mapping {
    size_t n_extents;          /* trailing i64 parameters */
    const char *why;           /* set when the signature does not fit */
    size_t param;              /* the parameter `why` is about */
} mapping;

static int is_scalar_array(const acc_type *elem, acc_scalar s)
{
    return elem->kind == ACC_TYPE_SCALAR && elem->scalar == s;
}

/* The parameter i, given that the arrays before it are used: 1 when it
 * fits the next argument array (*ai advances). */
static int match_arg(const reg_param *p, const acc_foreign_query *q,
                     size_t *ai, mapping *m)
{
    const acc_type *e = q->arg_elems[*ai];
    if (!is_scalar_array(e, p->type))
        m->why = "has another element type than the argument array it "
                 "receives";
    else if (!p->pointer && q->arg_ranks[*ai] != 0)
        m->why = "is a value but the argument array it receives is not a "
                 "Scalar (rank 0); use a pointer";
    (*ai)++;
    return m->why == NULL;
}

static int match(const reg_sig *s, const acc_foreign_query *q, mapping *m)
{
    size_t ai = 0, ri = 0, available = 0;
    memset(m, 0, sizeof *m);
    for (size_t k = 0; k < q->n_args; k++)
        available += q->arg_ranks[k] > 0 ? (size_t)q->arg_ranks[k] : 0;
    for (size_t i = 0; i < s->n_params; i++) {
        const reg_param *p = &s->params[i];
        m->param = i;
        if (ai < q->n_args) {
            if (!match_arg(p, q, &ai, m))
                return 0;
        } else if (s->ret_void && ri < q->n_results) {
            if (!p->pointer || !is_scalar_array(q->result_elems[ri], p->type))
                m->why = "should be a pointer to the element type of the "
                         "result array it receives";
            ri++;
        } else if (p->pointer || p->type != ACC_I64) {
            m->why = "comes after every array and should be an i64 extent";
        } else if (++m->n_extents > available) {
            m->why = "asks for more extents than the argument arrays have";
        }
        if (m->why)
            return 0;
    }
    m->param = s->n_params;
    if (ai < q->n_args)
        m->why = "there are more argument arrays than parameters";
    else if (s->ret_void && ri < q->n_results)
        m->why = "there are result arrays left with no pointer parameter";
    else if (!s->ret_void && (q->n_results != 1 || q->result_ranks[0] != 0 ||
                              !is_scalar_array(q->result_elems[0], s->ret)))
        m->why = "the function returns a value, so the result must be one "
                 "Scalar of its return type";
    return m->why == NULL;
}

/* A result of rank r >= 1 takes the extents of the first argument array of
 * rank r; 0 when there is none. */
static int result_source(const acc_foreign_query *q, size_t ri, size_t *from)
{
    if (q->result_ranks[ri] == 0)
        return 1;
    for (size_t k = 0; k < q->n_args; k++)
        if (q->arg_ranks[k] == q->result_ranks[ri]) {
            *from = k;
            return 1;
        }
    return 0;
}

static int cfn_accepts(acc_foreign_query *q)
{
    const reg_cfn *c = q->user;
    mapping m;
    size_t from = 0;
    if (!match(&c->sig, q, &m)) {
        if (m.param < c->sig.n_params)
            snprintf(q->reason, q->reason_size, "C signature: parameter %zu "
                     "%s", m.param + 1, m.why);
        else
            snprintf(q->reason, q->reason_size, "C signature: %s", m.why);
        return 0;
    }
    for (size_t r = 0; r < q->n_results; r++)
        if (!result_source(q, r, &from)) {
            snprintf(q->reason, q->reason_size, "C function: result %zu has "
                     "rank %d, and no argument array has that rank to give "
                     "it its extents", r, (int)q->result_ranks[r]);
            return 0;
        }
    return 1;
}

static acc_status cfn_result_shape(acc_foreign_call *call)
{
    for (size_t r = 0; r < call->n_results; r++) {
        acc_array *out = &call->results[r];
        for (size_t k = 0; out->rank > 0 && k < call->n_args; k++)
            if (call->args[k].rank == out->rank) {
                memcpy(out->extents, call->args[k].extents,
                       (size_t)out->rank * sizeof *out->extents);
                break;
            }
    }
    return ACC_OK;
}

/* Per-call storage of the values libffi reads the arguments from. */
typedef struct ffi_frame {
    void *values[REG_SIG_MAX_PARAMS];
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

static acc_status cfn_execute(acc_foreign_call *call)
{
    const reg_cfn *c = call->user;
    ffi_frame f;
    ffi_ret r;
    fill_frame(c, call, &f);
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
    if (c->sig.ret_void || c->sig.n_params != n_leaves ||
        !is_scalar_array(result, c->sig.ret))
        return 0;
    for (size_t i = 0; i < n_leaves; i++)
        if (c->sig.params[i].pointer || c->sig.params[i].type != leaves[i])
            return 0;
    return 1;
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

static reg_cfn *cfn_create(const reg_sig *sig, void (*fn)(void), diag *d)
{
    reg_cfn *c = mem_calloc(1, sizeof *c);
    if (!c) {
        diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "acc_register_c_function: "
                  "out of host memory");
        return NULL;
    }
    c->sig = *sig;
    c->fn = fn;
    for (size_t i = 0; i < sig->n_params; i++)
        c->types[i] = sig->params[i].pointer ? &ffi_type_pointer
                                             : ffi_type_of(sig->params[i].type);
    ffi_type *ret = sig->ret_void ? &ffi_type_void : ffi_type_of(sig->ret);
    if (ffi_prep_cif(&c->cif, FFI_DEFAULT_ABI, (unsigned)sig->n_params, ret,
                     c->types) != FFI_OK) {
        free(c);
        diag_fail(d, ACC_ERR_UNSUPPORTED, "acc_register_c_function: libffi "
                  "cannot call this signature");
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

static acc_status add_cfn(reg_registry *r, const char *name,
                          const char *symbol, const char *library,
                          const char *signature, reg_cfn *c, diag *d)
{
    char impl_name[160], note[512];
    snprintf(impl_name, sizeof impl_name, "c:%s", symbol);
    snprintf(note, sizeof note, "C function %s %s from %s", symbol, signature,
             library ? library : "the program");
    acc_foreign_impl impl = {
        .struct_size = sizeof impl, .name = name, .impl_name = impl_name,
        .backend = ACC_BACKEND_INTERP, .priority = 0,
        .accepts = cfn_accepts, .result_shape = cfn_result_shape,
        .execute = cfn_execute, .user = c, .note = note};
    reg_impl *added = NULL;
    if (reg_add(r, &impl, "C function", "acc_register_c_function", &added,
                d) != ACC_OK)
        return d->status;
    added->cfn = c;
    return ACC_OK;
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
    reg_cfn *c = cfn_create(&sig, fn, d);
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
