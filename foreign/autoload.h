/*
 * autoload.h — the plugins a context loads by itself (docs/PLUGINS.md,
 * "Plugins found without setup").
 *
 * Which: the context's `plugins` option, else $ACC_PLUGINS (read when the
 * context is created), else the default: the built-in plugins that serve
 * the context's backend (cblas and fftw on interp and cpu, cublas and
 * cufft on cuda).  A list names plugins (names or paths, ','-separated);
 * "builtin" in it stands for the default set; "none" alone is nothing.
 * When: once per context, the first time a foreign node is resolved (or
 * the plugins' state is asked for), so a context that never compiles a
 * foreign node never opens a plugin.  A plugin that fails to load is
 * recorded with why, for acc_plugin_status and the plans; it is never an
 * error of the compile.
 */
#ifndef ACC_FOREIGN_AUTOLOAD_H
#define ACC_FOREIGN_AUTOLOAD_H

#include "core/base/strbuf.h"
#include "foreign/registry.h"

typedef struct reg_autoload reg_autoload;

/* The choice of a context: `option` (the plugins option; NULL: the value
 * of $ACC_PLUGINS now, or the default) is copied.  NULL when out of
 * memory. */
reg_autoload *reg_autoload_create(const char *option);
void reg_autoload_destroy(reg_autoload *a);

/* What the loading needs of its context, kept by reference (they must
 * outlive a): the registry plugins load into, the plugin_path option, the
 * context's backend, and whether CUDA is available (with the sentence
 * saying why not), for the reasons recorded. */
void reg_autoload_bind(reg_autoload *a, reg_registry *reg,
                       const char *plugin_path, acc_backend backend,
                       int cuda_available, const char *cuda_reason);

/* Loads what the context's choice names, once; later calls return at
 * once (a concurrent one waits until the first is done).  NULL-safe. */
void reg_autoload_ensure(reg_autoload *a);

/* Why the built-in plugin that implements foreign names like `name` on
 * `backend` ("blas.*": cblas, cublas; "fft.*": fftw, cufft) is not
 * loaded, as "plugin cblas not loaded: WHY"; "" when it is loaded or no
 * built-in plugin implements such names (or a is NULL).  After
 * reg_autoload_ensure. */
void reg_autoload_note(reg_autoload *a, const char *name,
                       acc_backend backend, char *buf, size_t size);

/* The text of acc_plugin_status (loads first, as reg_autoload_ensure). */
void reg_autoload_describe(reg_autoload *a, strbuf *b);

#endif
