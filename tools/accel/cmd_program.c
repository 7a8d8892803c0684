/*
 * cmd_program.c — the commands that compile a text program without running
 * it: `accel check FILE` (every entry point parses and type-checks) and
 * `accel explain FILE` (the plan of one entry point, as text or JSON).
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* Compiles every entry point named in `names` ('\n'-separated); prints
 * the summary line or reports the first failure. */
static int check_entries(const char *path, const char *source, size_t len,
                         char *names, acc_backend backend,
                         const cli_plugins *plugins)
{
    acc_context *ctx = cli_context(backend, plugins);
    size_t count = 0;
    if (!ctx)
        return CLI_FAIL;
    for (char *name = names; *name; count++) {
        char *nl = strchr(name, '\n');
        acc_program *p = NULL;
        if (nl)
            *nl = '\0';
        acc_status st = acc_compile_text(ctx, source, len, name, &p);
        acc_program_free(p);
        if (st != ACC_OK) {
            acc_context_destroy(ctx);
            return cli_library_error(path, st);
        }
        if (!nl) {
            count++;
            break;
        }
        *nl = '\n';
        name = nl + 1;
    }
    acc_context_destroy(ctx);
    printf("ok: %zu entry point%s (", count, count == 1 ? "" : "s");
    for (const char *c = names; *c; c++) {
        if (*c == '\n') {
            if (c[1])
                fputs(", ", stdout);
        } else
            putchar(*c);
    }
    printf(")\n");
    return CLI_OK;
}

int cli_cmd_check(int argc, char **argv)
{
    const char *file = NULL, *backend_name = NULL;
    cli_plugins plugins = {{NULL, 0}, 0, 0, {NULL, 0}, 0};
    const cli_option options[] = {{"--backend", &backend_name, NULL, NULL},
                                  CLI_PLUGIN_OPTIONS(&plugins)};
    acc_backend backend = ACC_BACKEND_INTERP;
    size_t n_pos = 0, len = 0;
    int help = 0;
    int st = cli_parse_options("check", argc, argv, options,
                               sizeof options / sizeof options[0], &file, 1,
                               &n_pos, &help);
    if (st != CLI_OK || help) {
        if (help)
            fputs(cli_command_help("check"), stdout);
        cli_plugins_free(&plugins);
        return st;
    }
    if (n_pos == 0)
        st = cli_error(CLI_USAGE, "check: no program file given (try "
                       "'accel check --help')");
    else if (backend_name)
        st = cli_parse_backend(backend_name, &backend);
    char *source = st == CLI_OK ? cli_read_file(file, &len) : NULL;
    char *names = NULL;
    if (st == CLI_OK && !source)
        st = CLI_FAIL;
    acc_status ast = st == CLI_OK ? acc_parse_entries(source, len, &names)
                                  : ACC_OK;
    if (ast != ACC_OK)
        st = cli_library_error(file, ast);
    else if (st == CLI_OK)
        st = check_entries(file, source, len, names ? names : (char[1]){0},
                           backend, &plugins);
    acc_free(names);
    free(source);
    cli_plugins_free(&plugins);
    return st;
}

int cli_cmd_explain(int argc, char **argv)
{
    const char *file = NULL, *entry = NULL, *backend_name = NULL;
    int json = 0, help = 0;
    cli_plugins plugins = {{NULL, 0}, 0, 0, {NULL, 0}, 0};
    const cli_option options[] = {
        {"--entry", &entry, NULL, NULL},
        {"--backend", &backend_name, NULL, NULL},
        {"--json", NULL, NULL, &json},
        {"--strict", NULL, NULL, &plugins.strict},
        CLI_PLUGIN_OPTIONS(&plugins),
    };
    acc_backend backend = ACC_BACKEND_AUTO;
    size_t n_pos = 0;
    int st = cli_parse_options("explain", argc, argv, options,
                               sizeof options / sizeof options[0], &file, 1,
                               &n_pos, &help);
    if (help)
        fputs(cli_command_help("explain"), stdout);
    else if (st == CLI_OK && n_pos == 0)
        st = cli_error(CLI_USAGE, "explain: no program file given (try "
                       "'accel explain --help')");
    else if (st == CLI_OK)
        st = cli_parse_backend(backend_name, &backend);
    if (st != CLI_OK || help) {
        cli_plugins_free(&plugins);
        return st;
    }
    cli_program p;
    char *text = NULL;
    st = cli_program_load(file, entry, backend, &plugins, &p);
    if (st == CLI_OK) {
        acc_status ast = acc_program_explain(p.program, json, &text);
        if (ast != ACC_OK)
            st = cli_library_error(file, ast);
        else
            printf("%s%s", text,
                   *text && text[strlen(text) - 1] == '\n' ? "" : "\n");
    }
    acc_free(text);
    cli_program_free(&p);
    cli_plugins_free(&plugins);
    return st;
}
