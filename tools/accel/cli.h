/*
 * cli.h — what the commands of the accel tool share: exit statuses, the
 * one-line error reporting, option parsing, reading and compiling a text
 * program, and naming types and inputs for messages.
 *
 * Every error is reported by exactly one line on stderr that starts with
 * "accel: "; the command then returns CLI_FAIL or CLI_USAGE, which main
 * uses as the exit status.
 */
#ifndef ACC_TOOLS_CLI_H
#define ACC_TOOLS_CLI_H

#include <accel.h>

#include <stddef.h>
#include <stdio.h>

enum {
    CLI_OK = 0,    /* success                                        */
    CLI_FAIL = 1,  /* the program, the data or the system failed     */
    CLI_USAGE = 2  /* the command line is wrong                      */
};

/* Prints "accel: MESSAGE" as one line on stderr (newlines in the message
 * become "; ", bytes a terminal would not show as themselves become \xNN:
 * see escape.h; at most about 2000 bytes) and returns `status`. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int cli_error(int status, const char *fmt, ...);

/* Reports a failed library call: "accel: WHERE: MESSAGE" (or
 * "accel: WHERE:LINE:COL: ..." for text positions), using acc_last_error()
 * or, when that is empty, the status name.  Returns CLI_FAIL. */
int cli_library_error(const char *where, acc_status status);

/* --- options ----------------------------------------------------------------- */

/* A repeatable option's values, in order (pointers into argv). */
typedef struct cli_list {
    const char **items;
    size_t n;
} cli_list;

typedef struct cli_option {
    const char *name;   /* "--entry"                                   */
    const char **value; /* a single value: set once (NULL: none)       */
    cli_list *list;     /* or a repeatable value                        */
    int *flag;          /* or a flag without value                      */
} cli_option;

/* Parses argv[0..argc-1] (the words after the command name) against
 * `options`; the other words are positional (at most max_positional, in
 * positional[]).  "--name value" and "--name=value" both work; "--" ends
 * the options.  Sets *help for -h/--help.  Returns CLI_OK, or CLI_USAGE
 * after reporting.  Lists must be released with cli_list_free. */
int cli_parse_options(const char *command, int argc, char **argv,
                      const cli_option *options, size_t n_options,
                      const char **positional, size_t max_positional,
                      size_t *n_positional, int *help);
void cli_list_free(cli_list *list);

/* "auto", "interp", "cpu", "cuda"; NULL means auto.  Returns CLI_OK or
 * CLI_USAGE after reporting. */
int cli_parse_backend(const char *text, acc_backend *out);

/* The plugin options of run, check, explain and info: --plugin NAME|PATH
 * (repeatable: loaded when the context is made, a failure is an error)
 * and --no-plugins (the context loads none by itself: plugins "none"). */
typedef struct cli_plugins {
    cli_list names;
    int none;
    int strict; /* --strict (run, explain): the context's strict option */
    cli_list kernels;   /* --kernel FILE: user kernels (kernel_file.c) */
    int fp_contract;    /* --fp-contract (run): the context's fp_contract */
} cli_plugins;

#define CLI_PLUGIN_OPTIONS(p)                       \
    {"--plugin", NULL, &(p)->names, NULL},          \
    {"--no-plugins", NULL, NULL, &(p)->none},       \
    {"--kernel", NULL, &(p)->kernels, NULL}

/* Releases the lists of a cli_plugins. */
void cli_plugins_free(cli_plugins *p);

/* Registers the user kernel in file `path` (acc_register_kernel): C
 * source, or CUDA source when the name ends in ".cu", whose leading
 * comment lines say what it is (docs/CLI.md, "User kernels"):
 *     // kernel: uk.scale
 *     // entry: scale
 *     // signature: void(const f64*, f64*, i64)
 * and optionally "// priority: N", "// split: yes", "// grid: X Y Z",
 * "// block: X Y Z".  CLI_OK, or CLI_FAIL after reporting. */
int cli_register_kernel_file(acc_context *ctx, const char *path);

/* --- text programs ---------------------------------------------------------- */

/* A text program read from a file and compiled for one entry point. */
typedef struct cli_program {
    const char *path;
    char *source;
    size_t len;
    acc_context *ctx;
    acc_program *program;
    char *entry;       /* the entry point compiled (allocated), or NULL */
    char **params;     /* its parameter names when they could be read   */
    size_t n_params;
} cli_program;

/* Reads a whole file into a NUL-terminated buffer.  Returns NULL after
 * reporting ("accel: cannot read PATH: ...", or "accel: cannot read the
 * program: empty file name" for ""). */
char *cli_read_file(const char *path, size_t *len);

/* Creates a context for `backend` with the plugin options (NULL: the
 * defaults); NULL after reporting. */
acc_context *cli_context(acc_backend backend, const cli_plugins *plugins);

/* Reads `path`, creates a context (as cli_context) and compiles `entry`
 * (NULL: the only entry point).  Returns CLI_OK, or CLI_FAIL after
 * reporting; *out is always safe to pass to cli_program_free. */
int cli_program_load(const char *path, const char *entry, acc_backend backend,
                     const cli_plugins *plugins, cli_program *out);
void cli_program_free(cli_program *p);

/* "input 2 (xs)" (1-based; without the name when it is not known). */
void cli_input_label(const cli_program *p, size_t input, char *buf,
                     size_t size);

/* --- naming types --------------------------------------------------------------- */

/* "f32", "(f32, i64)". */
void cli_format_elem(const acc_type *elem, char *buf, size_t size);
/* "Scalar f32", "Vector f32", "Matrix (f32, i64)", "Array 3 f32". */
void cli_format_array_type(const acc_type *elem, int32_t rank, char *buf,
                           size_t size);
/* The number of scalar leaves of an element type (1 for a scalar), and
 * leaf i. */
size_t cli_leaf_count(const acc_type *elem);
acc_scalar cli_leaf(const acc_type *elem, size_t i);

/* --- parameter names (names.c) ------------------------------------------------- */

/* Reads the parameter names of definition `entry` from the source text
 * ("dotp (xs : Vector f32) (ys : ...)" gives xs, ys).  The result is an
 * allocated array of allocated strings (free with cli_names_free), or NULL
 * with *n = 0 when the header cannot be read; it is only a help for
 * messages, never required. */
char **cli_param_names(const char *source, size_t len, const char *entry,
                       size_t *n);
void cli_names_free(char **names, size_t n);

/* --- commands ------------------------------------------------------------------- */

int cli_cmd_run(int argc, char **argv);
int cli_cmd_check(int argc, char **argv);
int cli_cmd_explain(int argc, char **argv);
int cli_cmd_info(int argc, char **argv);

/* The help text of a command (NULL for an unknown one). */
const char *cli_command_help(const char *command);

#endif /* ACC_TOOLS_CLI_H */
