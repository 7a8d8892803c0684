/*
 * kernel_file.c — `--kernel FILE`: a user kernel (acc_register_kernel)
 * written as one source file whose leading comment lines say what it
 * implements (cli.h, docs/CLI.md "User kernels").  Only the lines before
 * the first line that is neither blank nor a // comment are read as
 * directives; the whole file is the source.
 */
#include "cli.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VALUE_MAX = 256 };

typedef struct kernel_file {
    char name[VALUE_MAX], entry[VALUE_MAX], signature[VALUE_MAX];
    acc_user_kernel k;
} kernel_file;

void cli_plugins_free(cli_plugins *p)
{
    cli_list_free(&p->names);
    cli_list_free(&p->kernels);
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* "X Y Z" (Y and Z default to 1) into three positive numbers. */
static int parse_dims(const char *text, uint32_t out[3])
{
    unsigned long v[3] = {1, 1, 1};
    char extra;
    int n = sscanf(text, "%lu %lu %lu %c", &v[0], &v[1], &v[2], &extra);
    if (n < 1 || n > 3)
        return 0;
    for (int i = 0; i < 3; i++) {
        if (v[i] == 0 || v[i] > 0xffffffffUL)
            return 0;
        out[i] = (uint32_t)v[i];
    }
    return 1;
}

/* Whether value is a valid value of directive `key` (stored in f); keys
 * that are not directives are other comments and always fit. */
static int store(kernel_file *f, const char *key, const char *value)
{
    char *dst = strcmp(key, "kernel") == 0      ? f->name
                : strcmp(key, "entry") == 0     ? f->entry
                : strcmp(key, "signature") == 0 ? f->signature
                                                : NULL;
    char *end = NULL;
    if (dst) {
        snprintf(dst, VALUE_MAX, "%s", value);
        return 1;
    }
    if (strcmp(key, "priority") == 0) {
        long v = strtol(value, &end, 10);
        f->k.priority = (int32_t)v;
        return end != value && !*end && v >= INT32_MIN && v <= INT32_MAX;
    }
    if (strcmp(key, "split") == 0) {
        f->k.split = strcmp(value, "yes") == 0;
        return f->k.split || strcmp(value, "no") == 0;
    }
    if (strcmp(key, "grid") == 0)
        return parse_dims(value, f->k.grid);
    if (strcmp(key, "block") == 0)
        return parse_dims(value, f->k.block);
    return 1;
}

/* One directive "key: value"; CLI_OK or CLI_FAIL after reporting. */
static int directive(kernel_file *f, const char *path, int line,
                     const char *key, const char *value)
{
    if (store(f, key, value))
        return CLI_OK;
    return cli_error(CLI_FAIL, "%s:%d: bad value '%s' for '%s' (priority: "
                     "a number; split: yes or no; grid, block: 1 to 3 "
                     "positive numbers)", path, line, value, key);
}

/* Reads the directives of the leading comment lines. */
static int read_directives(kernel_file *f, const char *path, char *text)
{
    int line = 0;
    for (char *at = text; at && *at;) {
        char *nl = strchr(at, '\n');
        if (nl)
            *nl = '\0';
        line++;
        char *s = at;
        while (isspace((unsigned char)*s))
            s++;
        if (*s && strncmp(s, "//", 2) != 0)
            break;
        char *colon = *s ? strchr(s + 2, ':') : NULL;
        if (colon) {
            char *key = s + 2, *value = colon + 1, *end = colon;
            while (isspace((unsigned char)*key))
                key++;
            while (end > key && isspace((unsigned char)end[-1]))
                end--;
            *end = '\0';
            while (isspace((unsigned char)*value))
                value++;
            for (end = value + strlen(value);
                 end > value && isspace((unsigned char)end[-1]);)
                *--end = '\0';
            if (directive(f, path, line, key, value) != CLI_OK)
                return CLI_FAIL;
        }
        at = nl ? nl + 1 : NULL;
    }
    return CLI_OK;
}

int cli_register_kernel_file(acc_context *ctx, const char *path)
{
    size_t len = 0;
    char *source = cli_read_file(path, &len);
    char *copy = source ? malloc(len + 1) : NULL;
    kernel_file f;
    int st = CLI_FAIL;
    memset(&f, 0, sizeof f);
    if (!source)
        return CLI_FAIL; /* reported */
    if (!copy) {
        free(source);
        return cli_error(CLI_FAIL, "out of memory reading %s", path);
    }
    memcpy(copy, source, len + 1);
    if (read_directives(&f, path, copy) != CLI_OK)
        goto out;
    if (!f.name[0] || !f.entry[0] || !f.signature[0]) {
        st = cli_error(CLI_FAIL, "%s: a kernel file starts with the comment "
                       "lines '// kernel: NAME', '// entry: FUNCTION' and "
                       "'// signature: TYPE'; '%s' is missing", path,
                       !f.name[0] ? "kernel" : !f.entry[0] ? "entry"
                                                          : "signature");
        goto out;
    }
    f.k.struct_size = sizeof f.k;
    f.k.name = f.name;
    f.k.entry = f.entry;
    f.k.signature = f.signature;
    f.k.source = source;
    f.k.backend = ends_with(path, ".cu") ? ACC_BACKEND_CUDA : ACC_BACKEND_CPU;
    acc_status ast = acc_register_kernel(ctx, &f.k);
    st = ast == ACC_OK ? CLI_OK : cli_library_error("--kernel", ast);
out:
    free(copy);
    free(source);
    return st;
}
