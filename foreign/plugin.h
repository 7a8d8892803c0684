/*
 * plugin.h — loading plugins (DESIGN.md §8): finding the shared object,
 * dlopen, the entry symbol, the ABI version check.
 */
#ifndef ACC_FOREIGN_PLUGIN_H
#define ACC_FOREIGN_PLUGIN_H

#include "foreign/registry.h"

/* Room for a path of PATH_MAX bytes and a file name. */
enum { REG_PLUGIN_PATH_MAX = 4096 + 320 };

/* acc_plugin_load without the handle checks.  `config_path` is the
 * context's plugin_path option (may be NULL). */
acc_status reg_load_plugin(reg_registry *r, const char *path_or_name,
                           const char *config_path, diag *d);

/* The file of the plugin called `name` (accel_NAME.so, or NAME when it
 * ends in .so) in the folders searched, in order: `config_path`,
 * $ACC_PLUGIN_PATH (both ':'-separated), reg_plugin_install_dir(),
 * reg_plugin_build_dir().  `found` has REG_PLUGIN_PATH_MAX bytes.
 * ACC_ERR_PLUGIN naming every folder tried when there is none. */
acc_status reg_locate_plugin(const char *name, const char *config_path,
                             char *found, diag *d);

/* LIBDIR/accel/plugins for the folder LIBDIR that holds the code of
 * accel running now (libaccel.so, found with dladdr; the configured
 * install folder when that fails). */
const char *reg_plugin_install_dir(void);
/* BUILD/plugins when that code is a file inside the build tree BUILD it
 * was built in (canonical paths compared), else "". */
const char *reg_plugin_build_dir(void);

#endif
