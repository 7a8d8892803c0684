/*
 * autoload.c — the plugins a context loads by itself (see autoload.h):
 * reading the choice, loading it once, and remembering what became of
 * every plugin so that acc_plugin_status and the plans can say why one is
 * missing.
 */
#include "foreign/autoload.h"
#include "core/base/mem.h"

#include "foreign/plugin.h"
#include "foreign/registry.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The plugins built with accel, and the foreign names they implement. */
typedef struct builtin_plugin {
    const char *name;
    const char *prefix; /* the foreign names it implements start so */
    int cuda;           /* serves the cuda backend (1), the host ones (0),
                           or every backend (2) */
} builtin_plugin;

static const builtin_plugin builtins[] = {
    {"cblas", "blas.", 0},
    {"fftw", "fft.", 0},
    {"cublas", "blas.", 1},
    {"cufft", "fft.", 1},
    {"mpi", "mpi.", 2}, /* host memory, and device memory staged or direct */
};
enum { N_BUILTINS = sizeof builtins / sizeof builtins[0] };

/* What became of one plugin. */
typedef struct auto_entry {
    char *name;   /* a built-in's name, or a name or path from the list */
    int loaded;
    char *detail; /* loaded: the file; else why not */
    struct auto_entry *next;
} auto_entry;

struct reg_autoload {
    pthread_mutex_t lock;
    int done;
    char *list;        /* the choice; NULL for the default               */
    const char *from;  /* where it came from, for messages               */
    auto_entry *entries, **tail; /* built-ins first, then the others      */
    reg_registry *reg;       /* reg_autoload_bind's                       */
    const char *plugin_path;
    acc_backend backend;
    int cuda_available;
    const char *cuda_reason;
};

static const char from_option[] = "the context's plugins option";
static const char from_env[] = "ACC_PLUGINS";

reg_autoload *reg_autoload_create(const char *option)
{
    reg_autoload *a = mem_calloc(1, sizeof *a);
    const char *env = getenv("ACC_PLUGINS");
    const char *list = option ? option : env;
    if (!a)
        return NULL;
    a->from = option ? from_option : from_env;
    if (list && list[0] && !(a->list = mem_strdup(list))) {
        free(a);
        return NULL;
    }
    a->tail = &a->entries;
    pthread_mutex_init(&a->lock, NULL);
    return a;
}

void reg_autoload_bind(reg_autoload *a, reg_registry *reg,
                       const char *plugin_path, acc_backend backend,
                       int cuda_available, const char *cuda_reason)
{
    a->reg = reg;
    a->plugin_path = plugin_path;
    a->backend = backend;
    a->cuda_available = cuda_available;
    a->cuda_reason = cuda_reason;
}

void reg_autoload_destroy(reg_autoload *a)
{
    if (!a)
        return;
    for (auto_entry *e = a->entries, *next; e; e = next) {
        next = e->next;
        free(e->name);
        free(e->detail);
        free(e);
    }
    free(a->list);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

/* ---- the list ----------------------------------------------------------- */

/* Calls fn on every non-empty item of the ','-separated list (spaces
 * around items ignored). */
static void each_item(const char *list, void (*fn)(void *, const char *),
                      void *arg)
{
    char item[REG_PLUGIN_PATH_MAX];
    while (list && *list) {
        const char *end = strchr(list, ',');
        size_t n = end ? (size_t)(end - list) : strlen(list);
        const char *s = list;
        while (n > 0 && (*s == ' ' || *s == '\t'))
            s++, n--;
        while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
            n--;
        if (n > 0 && n < sizeof item) {
            memcpy(item, s, n);
            item[n] = '\0';
            fn(arg, item);
        }
        list = end ? end + 1 : NULL;
    }
}

typedef struct list_query {
    const char *name; /* the item looked for, or NULL for "builtin" */
    int found;
} list_query;

static void match_item(void *arg, const char *item)
{
    list_query *q = arg;
    if (strcmp(item, q->name) == 0)
        q->found = 1;
}

/* Whether the list names `item` (NULL list: the default, "builtin"). */
static int list_has(const reg_autoload *a, const char *item)
{
    list_query q = {item, 0};
    if (!a->list)
        return strcmp(item, "builtin") == 0;
    each_item(a->list, match_item, &q);
    return q.found;
}

static const builtin_plugin *find_builtin(const char *name)
{
    for (size_t i = 0; i < N_BUILTINS; i++)
        if (strcmp(builtins[i].name, name) == 0)
            return &builtins[i];
    return NULL;
}

/* ---- loading ------------------------------------------------------------ */

static void record(reg_autoload *a, const char *name, int loaded,
                   const char *detail)
{
    auto_entry *e = mem_calloc(1, sizeof *e);
    if (!e || !(e->name = mem_strdup(name)) ||
        !(e->detail = mem_strdup(detail))) {
        if (e)
            free(e->name);
        free(e);
        return; /* out of memory: the plugin is simply not reported */
    }
    e->loaded = loaded;
    *a->tail = e;
    a->tail = &e->next;
}

/* The loader's message without its "acc_plugin_load: " prefix. */
static const char *plain(const char *message)
{
    static const char prefix[] = "acc_plugin_load: ";
    return strncmp(message, prefix, sizeof prefix - 1) == 0
               ? message + sizeof prefix - 1
               : message;
}

/* Whether a plugin that declared itself `name` is loaded already (by
 * acc_plugin_load, say). */
static int declared_loaded(reg_registry *r, const char *name)
{
    char origin[160];
    int found = 0;
    snprintf(origin, sizeof origin, "plugin %s", name);
    pthread_mutex_lock(&r->lock);
    for (const reg_impl *e = r->impls; e && !found; e = e->next)
        found = strcmp(e->origin, origin) == 0;
    pthread_mutex_unlock(&r->lock);
    return found;
}

static void load_one(reg_autoload *a, const char *name)
{
    char found[REG_PLUGIN_PATH_MAX];
    const char *path = name;
    diag d;
    diag_clear(&d);
    if (find_builtin(name) && declared_loaded(a->reg, name)) {
        record(a, name, 1, ""); /* loaded, but not by us: no file known */
        return;
    }
    if (!strchr(name, '/') &&
        reg_locate_plugin(name, a->plugin_path, found, &d) == ACC_OK)
        path = found;
    if (diag_ok(&d))
        reg_load_plugin(a->reg, path, a->plugin_path, &d);
    record(a, name, diag_ok(&d), diag_ok(&d) ? path : plain(d.message));
}

static int serves(const builtin_plugin *b, acc_backend backend)
{
    return b->cuda == 2 || b->cuda == (backend == ACC_BACKEND_CUDA);
}

/* Why a built-in plugin of the default set is not loaded on this
 * context's backend. */
static void other_backend(const builtin_plugin *b, const reg_autoload *a,
                          char *why, size_t size)
{
    const char *mine = acc_backend_name(a->backend);
    if (!b->cuda)
        snprintf(why, size, "it serves the host backends (interp, cpu); "
                 "this context runs on %s", mine);
    else if (a->cuda_available)
        snprintf(why, size, "it serves the cuda backend; this context runs "
                 "on %s", mine);
    else
        snprintf(why, size, "it serves the cuda backend, which is %s",
                 a->cuda_reason ? a->cuda_reason : "not available");
}

static void load_builtin(reg_autoload *a, const builtin_plugin *b)
{
    char why[1400];
    if (list_has(a, b->name) ||
        (list_has(a, "builtin") && serves(b, a->backend))) {
        load_one(a, b->name);
        return;
    }
    if (list_has(a, "builtin"))
        other_backend(b, a, why, sizeof why);
    else if (strcmp(a->list, "none") == 0)
        snprintf(why, sizeof why, "%s is \"none\"", a->from);
    else
        snprintf(why, sizeof why, "%s is \"%s\", which does not name it",
                 a->from, a->list);
    record(a, b->name, 0, why);
}

/* A list item that is neither a keyword nor a built-in plugin. */
static void load_item(void *arg, const char *item)
{
    reg_autoload *a = arg;
    if (strcmp(item, "none") != 0 && strcmp(item, "builtin") != 0 &&
        !find_builtin(item))
        load_one(a, item);
}

void reg_autoload_ensure(reg_autoload *a)
{
    if (!a || !a->reg)
        return;
    pthread_mutex_lock(&a->lock);
    if (!a->done) {
        for (size_t i = 0; i < N_BUILTINS; i++)
            load_builtin(a, &builtins[i]);
        each_item(a->list, load_item, a);
        a->done = 1;
    }
    pthread_mutex_unlock(&a->lock);
}

/* ---- reporting ---------------------------------------------------------- */

static const auto_entry *entry_of(const reg_autoload *a, const char *name)
{
    for (const auto_entry *e = a->entries; e; e = e->next)
        if (strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

void reg_autoload_note(reg_autoload *a, const char *name,
                       acc_backend backend, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!a || !a->reg)
        return;
    pthread_mutex_lock(&a->lock);
    for (size_t i = 0; i < N_BUILTINS && !buf[0]; i++) {
        const builtin_plugin *b = &builtins[i];
        const auto_entry *e = entry_of(a, b->name);
        if (!serves(b, backend) ||
            strncmp(name, b->prefix, strlen(b->prefix)) != 0 || !e ||
            e->loaded || declared_loaded(a->reg, b->name))
            continue;
        snprintf(buf, size, "plugin %s not loaded: %s", b->name, e->detail);
    }
    pthread_mutex_unlock(&a->lock);
}

void reg_autoload_describe(reg_autoload *a, strbuf *b)
{
    reg_autoload_ensure(a);
    pthread_mutex_lock(&a->lock);
    for (const auto_entry *e = a->entries; e; e = e->next) {
        if (e->loaded && e->detail[0])
            sb_printf(b, "%s: loaded from %s\n", e->name, e->detail);
        else if (e->loaded)
            sb_printf(b, "%s: loaded (by acc_plugin_load)\n", e->name);
        else if (find_builtin(e->name) &&
                 declared_loaded(a->reg, e->name))
            sb_printf(b, "%s: loaded (by acc_plugin_load)\n", e->name);
        else
            sb_printf(b, "%s: not loaded: %s\n", e->name, e->detail);
    }
    pthread_mutex_unlock(&a->lock);
}
