/*
 * plugin.c — acc_plugin_load: find the plugin file, dlopen it, call its
 * entry with a registrar, and keep what it registered only when the entry
 * succeeded.  Every failure names the file (or the folders searched) and
 * what dlopen/dlsym said.
 *
 * A name is looked up in the context's plugin_path, then $ACC_PLUGIN_PATH,
 * then the plugins folder installed next to the library (LIBDIR/accel/
 * plugins, found from libaccel's own file with dladdr, so a moved install
 * still finds its plugins), then, when the code runs from the build tree
 * it was built in, that tree's plugins/ (so `make` is enough).
 */
#define _GNU_SOURCE /* dladdr */
#include "foreign/plugin.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ACC_PLUGIN_INSTALL_DIR
#define ACC_PLUGIN_INSTALL_DIR "/usr/local/lib/accel/plugins"
#endif

enum { PATH_MAX_LEN = REG_PLUGIN_PATH_MAX };

/* ---- where accel's own plugins are -------------------------------------- */

/* Folders found once per process from the file accel's code is in. */
static struct {
    pthread_once_t once;
    char install[PATH_MAX + 32]; /* DIR/accel/plugins of libaccel's DIR     */
    char build[PATH_MAX + 32];   /* BUILD/plugins, or "" outside the tree   */
} own = {PTHREAD_ONCE_INIT, "", ""};

/* Whether `path` is inside folder `dir` (both canonical). */
static int inside(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return n > 0 && strncmp(path, dir, n) == 0 && path[n] == '/';
}

static void find_own_folders(void)
{
    static const char anchor = 0; /* any address inside accel's code */
    char file[PATH_MAX], tree[PATH_MAX];
    Dl_info info;
    int found = dladdr(&anchor, &info) && info.dli_fname &&
                realpath(info.dli_fname, file);
    char *slash = found ? strrchr(file, '/') : NULL;
    if (slash) {
        *slash = '\0';
        snprintf(own.install, sizeof own.install, "%s/accel/plugins",
                 slash == file ? "" : file);
        *slash = '/';
    } else {
        snprintf(own.install, sizeof own.install, "%s",
                 ACC_PLUGIN_INSTALL_DIR);
    }
#ifdef ACC_BUILD_TREE
    if (slash && realpath(ACC_BUILD_TREE, tree) && inside(file, tree))
        snprintf(own.build, sizeof own.build, "%s/plugins", tree);
#else
    (void)tree;
#endif
}

const char *reg_plugin_install_dir(void)
{
    pthread_once(&own.once, find_own_folders);
    return own.install;
}

const char *reg_plugin_build_dir(void)
{
    pthread_once(&own.once, find_own_folders);
    return own.build;
}

/* ---- finding a plugin by name ------------------------------------------- */

/* The file name a plugin called `name` has: NAME itself when it ends in
 * ".so", accel_NAME.so otherwise. */
static void file_name(const char *name, char *out, size_t size)
{
    size_t n = strlen(name);
    if (n > 3 && strcmp(name + n - 3, ".so") == 0)
        snprintf(out, size, "%s", name);
    else
        snprintf(out, size, "accel_%s.so", name);
}

/* Looks for `file` in each folder of the ':'-separated list; appends each
 * folder tried to `tried`.  1 with *found set when a file exists. */
static int search_list(const char *list, const char *file, char *found,
                       strbuf *tried)
{
    while (list && *list) {
        const char *end = strchr(list, ':');
        size_t n = end ? (size_t)(end - list) : strlen(list);
        if (n > 0 && n < PATH_MAX_LEN - 2) {
            snprintf(found, PATH_MAX_LEN, "%.*s/%s", (int)n, list, file);
            sb_printf(tried, "%s%.*s", tried->len ? ", " : "", (int)n, list);
            if (access(found, F_OK) == 0)
                return 1;
        }
        list = end ? end + 1 : NULL;
    }
    return 0;
}

acc_status reg_locate_plugin(const char *name, const char *config_path,
                             char *found, diag *d)
{
    char file[256];
    strbuf tried = {0};
    file_name(name, file, sizeof file);
    const char *env = getenv("ACC_PLUGIN_PATH");
    const char *install = reg_plugin_install_dir();
    const char *build = reg_plugin_build_dir();
    int ok = search_list(config_path, file, found, &tried) ||
             search_list(env, file, found, &tried) ||
             search_list(install, file, found, &tried) ||
             search_list(build, file, found, &tried);
    if (!ok)
        diag_fail(d, ACC_ERR_PLUGIN, "acc_plugin_load: plugin '%s' not found: "
                  "no %s in the folders searched (plugin_path=%s, "
                  "ACC_PLUGIN_PATH=%s, install folder %s%s%s): %s", name,
                  file, config_path ? config_path : "(unset)",
                  env ? env : "(unset)", install,
                  build[0] ? ", build tree " : "", build,
                  tried.len ? tried.text : "(none)");
    sb_free(&tried);
    return d->status;
}

/* ---- the registrar handed to the entry ---------------------------------- */

typedef struct load_state {
    reg_registry *r;
    const char *path;
    char origin[300];
    int declared;
    acc_status mismatch; /* ACC_ERR_ABI_MISMATCH once declared wrongly */
    diag *d;
} load_state;

static acc_status registrar_declare(acc_plugin_registrar *self,
                                    const char *plugin_name,
                                    uint32_t built_for_abi)
{
    load_state *s = self->internal;
    snprintf(s->origin, sizeof s->origin, "plugin %s",
             plugin_name ? plugin_name : "(unnamed)");
    s->declared = 1;
    if (built_for_abi == ACC_ABI_VERSION)
        return ACC_OK;
    s->mismatch = ACC_ERR_ABI_MISMATCH;
    return diag_fail(s->d, ACC_ERR_ABI_MISMATCH, "acc_plugin_load: plugin "
                     "'%s' (%s) was built for accel ABI version %u, but this "
                     "library has ABI version %u; rebuild the plugin against "
                     "this accel.h", plugin_name ? plugin_name : "(unnamed)",
                     s->path, (unsigned)built_for_abi,
                     (unsigned)ACC_ABI_VERSION);
}

static acc_status registrar_add(acc_plugin_registrar *self,
                                const acc_foreign_impl *impl)
{
    load_state *s = self->internal;
    if (!s->declared)
        return diag_fail(s->d, ACC_ERR_PLUGIN, "acc_plugin_load: plugin %s "
                         "added an implementation before declaring its ABI "
                         "version (ACC_PLUGIN_DECLARE)", s->path);
    if (s->mismatch)
        return s->mismatch;
    return reg_add(s->r, impl, s->origin, "acc_plugin_load", NULL, s->d);
}

/* Calls the entry; on failure the implementations it added are dropped
 * (those after `mark`). */
static acc_status run_entry(load_state *s, acc_plugin_entry_fn entry,
                            reg_impl *mark)
{
    acc_plugin_registrar reg = {sizeof reg, ACC_ABI_VERSION,
                                registrar_declare, registrar_add, s,
                                s->r->mpi_comm, s->r->cache_dir,
                                s->r->num_threads};
    acc_status st = entry(&reg, ACC_ABI_VERSION);
    if (st == ACC_OK && !diag_ok(s->d))
        st = s->d->status;
    if (st == ACC_OK && !s->declared)
        st = diag_fail(s->d, ACC_ERR_PLUGIN, "acc_plugin_load: plugin %s did "
                       "not declare its ABI version (ACC_PLUGIN_DECLARE)",
                       s->path);
    if (st != ACC_OK && diag_ok(s->d))
        diag_fail(s->d, st, "acc_plugin_load: the entry of plugin %s failed "
                  "with %s", s->path, acc_status_string(st));
    if (st != ACC_OK)
        reg_rollback(s->r, mark);
    return s->d->status;
}

static acc_status open_plugin(reg_registry *r, const char *path, diag *d)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return diag_fail(d, ACC_ERR_PLUGIN, "acc_plugin_load: cannot load "
                         "plugin %s: %s", path, dlerror());
    dlerror();
    void *sym = dlsym(h, ACC_PLUGIN_ENTRY_SYMBOL);
    const char *err = dlerror();
    if (!sym || err) {
        diag_fail(d, ACC_ERR_PLUGIN, "acc_plugin_load: %s is not an accel "
                  "plugin: it has no symbol %s (%s)", path,
                  ACC_PLUGIN_ENTRY_SYMBOL, err ? err : "NULL");
        dlclose(h);
        return d->status;
    }
    acc_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof sym);
    load_state s = {r, path, "plugin", 0, ACC_OK, d};
    reg_impl *mark = reg_mark(r);
    if (run_entry(&s, entry, mark) != ACC_OK) {
        dlclose(h);
    } else if (reg_keep_library(r, h, path, 1, d) != ACC_OK) {
        reg_rollback(r, mark);
        dlclose(h);
    }
    return d->status;
}

acc_status reg_load_plugin(reg_registry *r, const char *path_or_name,
                           const char *config_path, diag *d)
{
    char found[PATH_MAX_LEN];
    const char *path = path_or_name;
    if (!strchr(path_or_name, '/')) {
        if (reg_locate_plugin(path_or_name, config_path, found, d) != ACC_OK)
            return d->status;
        path = found;
    } else if (access(path, F_OK) != 0) {
        return diag_fail(d, ACC_ERR_PLUGIN, "acc_plugin_load: plugin file %s "
                         "does not exist", path);
    }
    if (reg_has_plugin(r, path))
        return ACC_OK;
    return open_plugin(r, path, d);
}
