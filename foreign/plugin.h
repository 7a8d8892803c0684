/*
 * plugin.h — loading plugins (DESIGN.md §8): finding the shared object,
 * dlopen, the entry symbol, the ABI version check.
 */
#ifndef ACC_FOREIGN_PLUGIN_H
#define ACC_FOREIGN_PLUGIN_H

#include "foreign/registry.h"

/* acc_plugin_load without the handle checks.  `config_path` is the
 * context's plugin_path option (may be NULL). */
acc_status reg_load_plugin(reg_registry *r, const char *path_or_name,
                           const char *config_path, diag *d);

#endif
