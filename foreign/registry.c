/*
 * registry.c — the per-context list of foreign implementations and the
 * libraries (plugins, C function libraries) they live in.
 */
#include "foreign/registry.h"

#include "core/base/mem.h"
#include "foreign/cfunc.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Every field of the first published acc_foreign_impl. */
#define IMPL_V1_SIZE sizeof(acc_foreign_impl)

reg_registry *reg_create(void)
{
    reg_registry *r = mem_calloc(1, sizeof *r);
    if (r)
        pthread_mutex_init(&r->lock, NULL);
    return r;
}

static void impl_free(reg_impl *e)
{
    if (e->api.release)
        e->api.release(e->api.user);
    reg_cfn_free(e->cfn);
    if (e->kernel_free)
        e->kernel_free(e->kernel);
    free(e->source);
    free(e->entry);
    free(e->sig);
    free((char *)e->api.name);
    free((char *)e->api.impl_name);
    free((char *)e->api.note);
    free(e->origin);
    free(e);
}

static void impls_free(reg_impl *e)
{
    while (e) {
        reg_impl *next = e->next;
        impl_free(e);
        e = next;
    }
}

void reg_destroy(reg_registry *r)
{
    if (!r)
        return;
    impls_free(r->impls);
    for (reg_library *l = r->libraries, *next; l; l = next) {
        next = l->next;
        if (l->handle)
            dlclose(l->handle);
        free(l->path);
        free(l);
    }
    pthread_mutex_destroy(&r->lock);
    free(r);
}

int reg_backend_serves(acc_backend impl_backend, acc_backend backend)
{
    int impl_host = impl_backend == ACC_BACKEND_INTERP ||
                    impl_backend == ACC_BACKEND_CPU;
    int host = backend == ACC_BACKEND_INTERP || backend == ACC_BACKEND_CPU;
    return impl_host ? host : impl_backend == backend;
}

static acc_status check_impl(const acc_foreign_impl *impl, const char *fn,
                             diag *d)
{
    if (!impl)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s: impl is NULL", fn);
    if (impl->struct_size < IMPL_V1_SIZE)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s: impl.struct_size "
                         "is %zu, expected at least %zu", fn,
                         impl->struct_size, IMPL_V1_SIZE);
    if (!impl->name || !impl->name[0] || strlen(impl->name) > 127)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s: impl.name must "
                         "be 1 to 127 characters", fn);
    if (!impl->execute || !impl->result_shape)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s: '%s' has no %s "
                         "function", fn, impl->name,
                         impl->execute ? "result_shape" : "execute");
    if (impl->backend != ACC_BACKEND_INTERP &&
        impl->backend != ACC_BACKEND_CPU && impl->backend != ACC_BACKEND_CUDA)
        return diag_fail(d, ACC_ERR_INVALID_ARGUMENT, "%s: '%s' has backend "
                         "%d; expected ACC_BACKEND_INTERP, _CPU or _CUDA",
                         fn, impl->name, (int)impl->backend);
    return ACC_OK;
}

static char *dup_or_null(const char *s, int *oom)
{
    char *c = s ? mem_strdup(s) : NULL;
    if (s && !c)
        *oom = 1;
    return c;
}

/* A copy of impl whose strings are owned by the entry. */
static reg_impl *impl_copy(const acc_foreign_impl *impl, const char *origin)
{
    reg_impl *e = mem_calloc(1, sizeof *e);
    if (!e)
        return NULL;
    size_t n = impl->struct_size < sizeof e->api ? impl->struct_size
                                                 : sizeof e->api;
    memcpy(&e->api, impl, n);
    e->api.struct_size = sizeof e->api;
    int oom = 0;
    e->api.name = dup_or_null(impl->name, &oom);
    e->api.impl_name = dup_or_null(impl->impl_name ? impl->impl_name
                                                   : impl->name, &oom);
    e->api.note = dup_or_null(n > offsetof(acc_foreign_impl, note)
                                  ? impl->note : NULL, &oom);
    e->origin = dup_or_null(origin, &oom);
    if (oom) {
        e->api.release = NULL; /* the caller keeps ownership of user */
        impl_free(e);
        return NULL;
    }
    return e;
}

acc_status reg_add(reg_registry *r, const acc_foreign_impl *impl,
                   const char *origin, const char *fn, reg_impl **added,
                   diag *d)
{
    if (added)
        *added = NULL;
    if (check_impl(impl, fn, d) != ACC_OK)
        return d->status;
    reg_impl *e = impl_copy(impl, origin);
    if (!e)
        return diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "%s: out of host "
                         "memory", fn);
    pthread_mutex_lock(&r->lock);
    e->seq = r->next_seq++;
    reg_impl **at = &r->impls;
    while (*at)
        at = &(*at)->next;
    *at = e;
    pthread_mutex_unlock(&r->lock);
    if (added)
        *added = e;
    return ACC_OK;
}

reg_impl *reg_mark(reg_registry *r)
{
    pthread_mutex_lock(&r->lock);
    reg_impl *last = r->impls;
    while (last && last->next)
        last = last->next;
    pthread_mutex_unlock(&r->lock);
    return last;
}

void reg_rollback(reg_registry *r, reg_impl *mark)
{
    pthread_mutex_lock(&r->lock);
    reg_impl **tail = mark ? &mark->next : &r->impls;
    reg_impl *dropped = *tail;
    *tail = NULL;
    pthread_mutex_unlock(&r->lock);
    impls_free(dropped);
}

acc_status reg_keep_library(reg_registry *r, void *handle, const char *path,
                            int plugin, diag *d)
{
    reg_library *l = mem_calloc(1, sizeof *l);
    if (!l || !(l->path = mem_strdup(path ? path : "(the program)"))) {
        free(l);
        return diag_fail(d, ACC_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    l->handle = handle;
    l->plugin = plugin;
    pthread_mutex_lock(&r->lock);
    l->next = r->libraries;
    r->libraries = l;
    pthread_mutex_unlock(&r->lock);
    return ACC_OK;
}

int reg_has_plugin(reg_registry *r, const char *path)
{
    int found = 0;
    pthread_mutex_lock(&r->lock);
    for (const reg_library *l = r->libraries; l && !found; l = l->next)
        found = l->plugin && strcmp(l->path, path) == 0;
    pthread_mutex_unlock(&r->lock);
    return found;
}

/* Entries sorted by name, then by priority (highest first), then in
 * registration order: a total order, so the listing is stable. */
static int before(const reg_impl *a, const reg_impl *b)
{
    int c = strcmp(a->api.name, b->api.name);
    if (c != 0)
        return c < 0;
    if (a->api.priority != b->api.priority)
        return a->api.priority > b->api.priority;
    return a->seq < b->seq;
}

void reg_describe(reg_registry *r, strbuf *b)
{
    pthread_mutex_lock(&r->lock);
    const reg_impl *done = NULL; /* the last one printed */
    for (;;) {
        const reg_impl *next = NULL;
        for (const reg_impl *e = r->impls; e; e = e->next)
            if ((!done || before(done, e)) && (!next || before(e, next)))
                next = e;
        if (!next)
            break;
        sb_printf(b, "%s %s backend=%s priority=%d from=%s%s%s\n",
                  next->api.name, next->api.impl_name,
                  acc_backend_name(next->api.backend),
                  (int)next->api.priority, next->origin,
                  next->api.note ? "; " : "",
                  next->api.note ? next->api.note : "");
        done = next;
    }
    pthread_mutex_unlock(&r->lock);
}
