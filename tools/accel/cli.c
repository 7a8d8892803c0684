/*
 * cli.c — error reporting, option parsing, and loading text programs for
 * the commands of the accel tool (see cli.h).
 */
#include "cli.h"
#include "escape.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* --- errors ---------------------------------------------------------------------- */

/* Writes `text` on one line: newlines become "; ", trailing ones vanish,
 * and every byte a terminal would not show as itself is escaped (the
 * message may quote file names and bytes read from files). */
static void put_one_line(const char *text, FILE *f)
{
    char line[2048], safe[2048];
    size_t n = strlen(text), m = 0;
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
        n--;
    for (size_t i = 0; i < n && m + 2 < sizeof line; i++) {
        if (text[i] == '\n') {
            line[m++] = ';';
            line[m++] = ' ';
        } else if (text[i] != '\r') {
            line[m++] = text[i];
        }
    }
    fputs(escape_text(line, m, safe, sizeof safe), f);
}

int cli_error(int status, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fputs("accel: ", stderr);
    put_one_line(msg, stderr);
    fputc('\n', stderr);
    return status;
}

/* Whether a message starts with "LINE:COLUMN: ". */
static int has_position(const char *msg)
{
    const char *p = msg;
    for (int part = 0; part < 2; part++) {
        if (!isdigit((unsigned char)*p))
            return 0;
        while (isdigit((unsigned char)*p))
            p++;
        if (*p++ != ':')
            return 0;
    }
    return 1;
}

int cli_library_error(const char *where, acc_status status)
{
    const char *msg = acc_last_error();
    if (!msg || !*msg)
        msg = acc_status_string(status);
    if (!where)
        return cli_error(CLI_FAIL, "%s", msg);
    return cli_error(CLI_FAIL, "%s:%s%s", where, has_position(msg) ? "" : " ",
                     msg);
}

/* --- options --------------------------------------------------------------------- */

void cli_list_free(cli_list *list)
{
    if (!list)
        return;
    free(list->items);
    list->items = NULL;
    list->n = 0;
}

/* Stores one option value; returns CLI_OK or CLI_USAGE. */
static int store_option(const char *command, const cli_option *o,
                        const char *value, int argc)
{
    if (o->list) {
        if (!o->list->items &&
            !(o->list->items = calloc((size_t)argc, sizeof(char *))))
            return cli_error(CLI_FAIL, "out of memory");
        o->list->items[o->list->n++] = value;
        return CLI_OK;
    }
    if (*o->value)
        return cli_error(CLI_USAGE, "%s: %s given twice", command, o->name);
    *o->value = value;
    return CLI_OK;
}

static const cli_option *find_option(const cli_option *options, size_t n,
                                     const char *word, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(options[i].name) == len &&
            strncmp(options[i].name, word, len) == 0)
            return &options[i];
    return NULL;
}

/* One option word at argv[*i]; advances *i past its value. */
static int parse_one_option(const char *command, int argc, char **argv,
                            int *i, const cli_option *options, size_t n)
{
    const char *word = argv[*i], *eq = strchr(word, '=');
    size_t len = eq ? (size_t)(eq - word) : strlen(word);
    const cli_option *o = find_option(options, n, word, len);
    if (!o)
        return cli_error(CLI_USAGE, "%s: unknown option '%.*s' (try 'accel "
                         "%s --help')", command, (int)len, word, command);
    if (o->flag) {
        if (eq)
            return cli_error(CLI_USAGE, "%s: %s takes no value", command,
                             o->name);
        *o->flag = 1;
        return CLI_OK;
    }
    const char *value = eq ? eq + 1 : NULL;
    if (!value) {
        if (*i + 1 >= argc)
            return cli_error(CLI_USAGE, "%s: %s needs a value", command,
                             o->name);
        value = argv[++*i];
    }
    return store_option(command, o, value, argc);
}

int cli_parse_options(const char *command, int argc, char **argv,
                      const cli_option *options, size_t n_options,
                      const char **positional, size_t max_positional,
                      size_t *n_positional, int *help)
{
    int only_positional = 0;
    *n_positional = 0;
    *help = 0;
    for (int i = 0; i < argc; i++) {
        const char *w = argv[i];
        if (!only_positional && strcmp(w, "--") == 0) {
            only_positional = 1;
        } else if (!only_positional &&
                   (strcmp(w, "-h") == 0 || strcmp(w, "--help") == 0)) {
            *help = 1;
        } else if (!only_positional && w[0] == '-' && w[1] != '\0') {
            int st = parse_one_option(command, argc, argv, &i, options,
                                      n_options);
            if (st != CLI_OK)
                return st;
        } else if (*n_positional < max_positional) {
            positional[(*n_positional)++] = w;
        } else {
            return cli_error(CLI_USAGE, "%s: unexpected argument '%s' (try "
                             "'accel %s --help')", command, w, command);
        }
    }
    return CLI_OK;
}

int cli_parse_backend(const char *text, acc_backend *out)
{
    static const acc_backend all[] = {ACC_BACKEND_AUTO, ACC_BACKEND_INTERP,
                                      ACC_BACKEND_CPU, ACC_BACKEND_CUDA};
    *out = ACC_BACKEND_AUTO;
    if (!text)
        return CLI_OK;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (strcmp(text, acc_backend_name(all[i])) == 0) {
            *out = all[i];
            return CLI_OK;
        }
    return cli_error(CLI_USAGE, "unknown backend '%s' (expected auto, "
                     "interp, cpu or cuda)", text);
}

/* --- files and contexts -------------------------------------------------------- */

char *cli_read_file(const char *path, size_t *len)
{
    FILE *f = *path ? fopen(path, "rb") : NULL;
    size_t cap = 4096, n = 0;
    char *buf = NULL;
    if (!*path) {
        cli_error(CLI_FAIL, "cannot read the program: empty file name");
        return NULL;
    }
    if (!f) {
        cli_error(CLI_FAIL, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        char *bigger = realloc(buf, cap + 1);
        if (!bigger) {
            free(buf);
            fclose(f);
            cli_error(CLI_FAIL, "out of memory reading %s", path);
            return NULL;
        }
        buf = bigger;
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        cap *= 2;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        cli_error(CLI_FAIL, "cannot read %s: %s", path, strerror(e));
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

acc_context *cli_context(acc_backend backend, const cli_plugins *plugins)
{
    acc_context_options options;
    acc_context *ctx = NULL;
    acc_context_options_init(&options);
    options.backend = backend;
    if (plugins && plugins->none)
        options.plugins = "none";
    if (plugins) {
        options.strict = plugins->strict;
        options.fp_contract = plugins->fp_contract;
    }
    acc_status st = acc_context_create(&options, &ctx);
    if (st != ACC_OK) {
        cli_library_error(NULL, st);
        return NULL;
    }
    for (size_t i = 0; plugins && i < plugins->names.n; i++) {
        const char *name = plugins->names.items[i];
        if ((st = acc_plugin_load(ctx, name)) != ACC_OK) {
            cli_library_error("--plugin", st);
            acc_context_destroy(ctx);
            return NULL;
        }
    }
    for (size_t i = 0; plugins && i < plugins->kernels.n; i++)
        if (cli_register_kernel_file(ctx, plugins->kernels.items[i]) !=
            CLI_OK) {
            acc_context_destroy(ctx);
            return NULL;
        }
    return ctx;
}

/* --- text programs ---------------------------------------------------------------- */

/* "a\nb\n" -> "a, b". */
static void join_lines(const char *names, char *buf, size_t size)
{
    size_t n = 0;
    for (const char *c = names; *c && n + 3 < size; c++) {
        if (*c != '\n')
            buf[n++] = *c;
        else if (c[1]) {
            buf[n++] = ',';
            buf[n++] = ' ';
        }
    }
    buf[n] = '\0';
}

/* Whether `name` is one of the '\n'-separated `names`. */
static int has_name(const char *names, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = names; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p = nl ? nl + 1 : NULL;
    }
    return 0;
}

/* Checks a named entry point, or picks the only one there is.  Returns
 * CLI_OK (with p->entry possibly still NULL, leaving the choice and its
 * error to acc_compile_text, which also reports parse errors) or an exit
 * status after reporting. */
static int choose_entry(cli_program *p, const char *entry)
{
    char *names = NULL, list[1024];
    int status = CLI_OK;
    if (acc_parse_entries(p->source, p->len, &names) != ACC_OK || !names) {
        acc_free(names);
        names = NULL;
    }
    size_t len = names ? strlen(names) : 0;
    while (len > 0 && names[len - 1] == '\n')
        names[--len] = '\0';
    join_lines(names ? names : "", list, sizeof list);
    if (entry && names && !has_name(names, entry))
        status = cli_error(CLI_FAIL, "%s has no entry point '%s' (entry "
                           "points: %s)", p->path, entry,
                           names[0] ? list : "none");
    else if (entry)
        p->entry = strdup(entry);
    else if (names && names[0] && !strchr(names, '\n'))
        p->entry = strdup(names);
    else if (names && names[0])
        status = cli_error(CLI_USAGE, "%s has several entry points (%s): "
                           "choose one with --entry NAME", p->path, list);
    if (status == CLI_OK && (entry || (names && names[0])) && !p->entry)
        status = cli_error(CLI_FAIL, "out of memory");
    acc_free(names);
    return status;
}

int cli_program_load(const char *path, const char *entry, acc_backend backend,
                     const cli_plugins *plugins, cli_program *out)
{
    memset(out, 0, sizeof *out);
    out->path = path;
    if (!(out->source = cli_read_file(path, &out->len)))
        return CLI_FAIL;
    int status = choose_entry(out, entry);
    if (status != CLI_OK)
        return status;
    if (!(out->ctx = cli_context(backend, plugins)))
        return CLI_FAIL;
    acc_status st = acc_compile_text(out->ctx, out->source, out->len,
                                     out->entry, &out->program);
    if (st != ACC_OK)
        return cli_library_error(path, st);
    if (out->entry) {
        out->params = cli_param_names(out->source, out->len, out->entry,
                                      &out->n_params);
        if (out->n_params != acc_program_num_inputs(out->program)) {
            cli_names_free(out->params, out->n_params);
            out->params = NULL;
            out->n_params = 0;
        }
    }
    return CLI_OK;
}

void cli_program_free(cli_program *p)
{
    if (!p)
        return;
    acc_program_free(p->program);
    acc_context_destroy(p->ctx);
    cli_names_free(p->params, p->n_params);
    free(p->entry);
    free(p->source);
    memset(p, 0, sizeof *p);
}

void cli_input_label(const cli_program *p, size_t input, char *buf,
                     size_t size)
{
    if (input < p->n_params)
        snprintf(buf, size, "input %zu (%s)", input + 1, p->params[input]);
    else
        snprintf(buf, size, "input %zu", input + 1);
}

/* --- types ------------------------------------------------------------------------- */

size_t cli_leaf_count(const acc_type *elem)
{
    if (acc_type_get_kind(elem) == ACC_TYPE_SCALAR)
        return 1;
    return acc_type_leaf_count(elem);
}

acc_scalar cli_leaf(const acc_type *elem, size_t i)
{
    if (acc_type_get_kind(elem) == ACC_TYPE_SCALAR)
        return acc_type_get_scalar(elem);
    return acc_type_leaf(elem, i);
}

/* Appends the element type at buf[*n]. */
static void append_elem(const acc_type *t, char *buf, size_t size, size_t *n)
{
    if (*n >= size)
        return;
    if (acc_type_get_kind(t) != ACC_TYPE_TUPLE) {
        int w = snprintf(buf + *n, size - *n, "%s",
                         acc_scalar_name(acc_type_get_scalar(t)));
        *n += w > 0 ? (size_t)w : 0;
        return;
    }
    *n += (size_t)snprintf(buf + *n, size - *n, "(");
    for (size_t i = 0; i < acc_type_get_arity(t) && *n < size; i++) {
        if (i)
            *n += (size_t)snprintf(buf + *n, size - *n, ", ");
        append_elem(acc_type_get_field(t, i), buf, size, n);
    }
    if (*n < size)
        *n += (size_t)snprintf(buf + *n, size - *n, ")");
}

void cli_format_elem(const acc_type *elem, char *buf, size_t size)
{
    size_t n = 0;
    if (!size)
        return;
    buf[0] = '\0';
    append_elem(elem, buf, size, &n);
}

void cli_format_array_type(const acc_type *elem, int32_t rank, char *buf,
                           size_t size)
{
    static const char *const names[] = {"Scalar", "Vector", "Matrix"};
    char e[256];
    cli_format_elem(elem, e, sizeof e);
    if (rank >= 0 && rank < 3)
        snprintf(buf, size, "%s %s", names[rank], e);
    else
        snprintf(buf, size, "Array %d %s", (int)rank, e);
}
