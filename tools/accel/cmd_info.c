/*
 * cmd_info.c — `accel info`: the library's version and ABI, each backend
 * with whether it is available and why, the plugins, and the kernel cache
 * (the folder the context writes kernels to, how much it holds, and why
 * it is not the folder asked for when it is not).
 */
#include "cli.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Bytes and files of the regular files under `path` (not following
 * symbolic links; depth-limited). */
static void folder_size(const char *path, int depth, uint64_t *bytes,
                        uint64_t *files)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISREG(st.st_mode)) {
        *bytes += (uint64_t)st.st_size;
        ++*files;
        return;
    }
    DIR *dir = S_ISDIR(st.st_mode) && depth < 16 ? opendir(path) : NULL;
    if (!dir)
        return;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *child = malloc(n);
        if (!child)
            break;
        snprintf(child, n, "%s/%s", path, e->d_name);
        folder_size(child, depth + 1, bytes, files);
        free(child);
    }
    closedir(dir);
}

static void print_backends(acc_context *ctx)
{
    static const acc_backend all[] = {ACC_BACKEND_INTERP, ACC_BACKEND_CPU,
                                      ACC_BACKEND_CUDA};
    acc_backend chosen = ACC_BACKEND_INTERP;
    printf("backends:\n");
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        int available = 0;
        const char *reason = NULL;
        acc_context_backend_available(ctx, all[i], &available, &reason);
        printf("  %-7s %s: %s\n", acc_backend_name(all[i]),
               available ? "yes" : "no",
               reason && *reason ? reason
                                 : (available ? "available" : "not available"));
    }
    acc_context_backend(ctx, &chosen);
    printf("  auto    selects %s\n", acc_backend_name(chosen));
}

/* The folder the context's kernel cache writes to and its size; when the
 * folder asked for is refused or cannot be written, the library's
 * sentence saying why, on the next line. */
static void print_cache(acc_context *ctx)
{
    char *dir = NULL, *note = NULL;
    uint64_t bytes = 0, files = 0;
    if (acc_context_kernel_cache(ctx, &dir, &note) != ACC_OK) {
        const char *why = acc_last_error();
        printf("kernel cache: none: %.*s\n", (int)strcspn(why, "\n"), why);
        return;
    }
    folder_size(dir, 0, &bytes, &files);
    printf("kernel cache: %s (%llu bytes in %llu file%s)\n", dir,
           (unsigned long long)bytes, (unsigned long long)files,
           files == 1 ? "" : "s");
    if (*note)
        printf("  %s\n", note);
    acc_free(dir);
    acc_free(note);
}

/* Prints each line of `text` indented by two spaces. */
static void print_indented(const char *text)
{
    for (const char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        printf("  %.*s\n", (int)n, line);
        line += n + (line[n] == '\n');
    }
}

/* The plugins the context loads by itself (every built-in one, loaded or
 * not and why), then every implementation registered. */
static void print_plugins(acc_context *ctx)
{
    const char *path = getenv("ACC_PLUGIN_PATH"), *set = getenv("ACC_PLUGINS");
    char *status = NULL, *list = NULL;
    printf("plugins (ACC_PLUGINS=%s, ACC_PLUGIN_PATH=%s):\n",
           set && *set ? set : "unset", path && *path ? path : "unset");
    if (acc_plugin_status(ctx, &status) == ACC_OK)
        print_indented(status);
    else
        printf("  unknown: %s\n", acc_last_error());
    if (acc_foreign_list(ctx, &list) == ACC_OK && list && *list) {
        printf("foreign implementations:\n");
        print_indented(list);
    }
    acc_free(status);
    acc_free(list);
}

int cli_cmd_info(int argc, char **argv)
{
    size_t n_pos = 0;
    int help = 0;
    cli_plugins plugins = {{NULL, 0}, 0, 0, {NULL, 0}, 0};
    const cli_option options[] = {CLI_PLUGIN_OPTIONS(&plugins)};
    int st = cli_parse_options("info", argc, argv, options,
                               sizeof options / sizeof options[0], NULL, 0,
                               &n_pos, &help);
    acc_context *ctx = NULL;
    if (st == CLI_OK && help)
        fputs(cli_command_help("info"), stdout);
    else if (st == CLI_OK && !(ctx = cli_context(ACC_BACKEND_AUTO, &plugins)))
        st = CLI_FAIL;
    cli_plugins_free(&plugins);
    if (st != CLI_OK || help)
        return st;
    printf("accel %s\n", acc_version_string());
    printf("ABI: library %u, this tool built for %u%s\n",
           (unsigned)acc_abi_version(), (unsigned)ACC_ABI_VERSION,
           acc_abi_version() == ACC_ABI_VERSION ? "" : " (MISMATCH)");
    print_backends(ctx);
    print_plugins(ctx);
    print_cache(ctx);
    acc_context_destroy(ctx);
    return fflush(stdout) == 0 ? CLI_OK
                               : cli_error(CLI_FAIL, "cannot write output");
}
