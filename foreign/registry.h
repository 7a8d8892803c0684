/*
 * registry.h — the per-context registry of foreign implementations
 * (DESIGN.md §8): what is registered (by the application, by plugins, as
 * plain C functions), how a foreign node is resolved against it at compile
 * time, and how the interpreter calls the chosen implementation.
 *
 * Implementations are never removed before the context is destroyed, so a
 * compiled program may keep pointers to the ones it chose (programs keep
 * their context alive).  The registry's list is guarded by a mutex:
 * registering and compiling may happen on different threads.
 */
#ifndef ACC_FOREIGN_REGISTRY_H
#define ACC_FOREIGN_REGISTRY_H

#include "accel.h"
#include "core/base/diag.h"
#include "core/base/strbuf.h"
#include "foreign/cfunc.h"

#include <pthread.h>


typedef struct reg_impl {
    acc_foreign_impl api;  /* the registered struct; its strings are ours */
    char *origin;          /* "application", "plugin cblas", "C function ..." */
    reg_cfn *cfn;          /* for C functions (api.user points to it too)  */
    /* A user kernel's (user_kernel.c): for a scalar function, the source
     * and function compiled into the kernels that use it (NULL: none);
     * `kernel` is freed by kernel_free with the entry. */
    char *source, *entry;
    struct reg_sig *sig;   /* a user scalar function's type (malloc'd)    */
    void *kernel;
    void (*kernel_free)(void *kernel);
    unsigned seq;          /* registration order, for stable listings      */
    struct reg_impl *next;
} reg_impl;

typedef struct reg_library {
    void *handle;          /* dlopen handle, closed with the registry */
    char *path;            /* as loaded (plugins: to refuse loading twice) */
    int plugin;
    struct reg_library *next;
} reg_library;

typedef struct reg_registry {
    pthread_mutex_t lock;
    reg_impl *impls;       /* in registration order */
    unsigned next_seq;
    reg_library *libraries;
    const void *mpi_comm;  /* the context's mpi_comm option, for plugins */
    const char *cache_dir; /* the context's cache_dir option (borrowed) */
    int32_t num_threads;   /* and num_threads, for plugins too */
} reg_registry;

reg_registry *reg_create(void);
/* Releases the implementations (their release functions first), then
 * closes the libraries.  NULL-safe. */
void reg_destroy(reg_registry *r);

/* Adds a copy of impl with the given origin; errors go to d with `fn`
 * named.  *added (may be NULL) receives the new entry. */
acc_status reg_add(reg_registry *r, const acc_foreign_impl *impl,
                   const char *origin, const char *fn, reg_impl **added,
                   diag *d);
/* Keeps a library open until the registry is destroyed. */
acc_status reg_keep_library(reg_registry *r, void *handle, const char *path,
                            int plugin, diag *d);
/* Whether a plugin of this path was loaded already. */
int reg_has_plugin(reg_registry *r, const char *path);
/* Removes (and releases) every implementation added after `mark` (the
 * list head when taken); for a plugin whose entry failed. */
void reg_rollback(reg_registry *r, reg_impl *mark);
reg_impl *reg_mark(reg_registry *r);
/* The list text of acc_foreign_list. */
void reg_describe(reg_registry *r, strbuf *b);

/* Ends a text an implementation wrote into a buffer of accel's
 * (acc_foreign_query.reason, acc_foreign_call.message) at the buffer's
 * last byte, so that one written without a NUL is cut there: accel never
 * reads past the size it gave. */
static inline void reg_end_text(char *buf, size_t size)
{
    if (size > 0)
        buf[size - 1] = '\0';
}

/* Whether the implementation's backend serves a program on `backend`
 * (INTERP and CPU are both "host"). */
int reg_backend_serves(acc_backend impl_backend, acc_backend backend);

#endif
