/*
 * cmd_run.c — `accel run FILE --in A.npy ... [--out B.npy ...] [--print]`:
 * compiles one entry point of a text program, reads its inputs from .npy
 * files or literals, checked against the program's signature, runs it, and
 * writes or prints its outputs.
 *
 * Each parameter takes one --in per scalar leaf of its element type (one
 * for a scalar element, n for an n-tuple); each output takes one --out,
 * and a tuple output B.npy is written as B.0.npy, B.1.npy, ...
 *
 * Nothing is lost: every file an invocation will write is known once the
 * program is compiled, so unusable targets (devices, folders, FIFOs, a
 * missing folder) and two outputs naming one file are refused before
 * anything runs; after the run every file is staged completely (outfile.h)
 * before the first target is replaced.
 */
#include "cli.h"
#include "literal.h"
#include "npy.h"
#include "print.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run_args {
    const char *file, *entry, *backend;
    cli_list ins, outs;
    cli_plugins plugins;
    int print;
    char **per_rank; /* names made by per_rank_names, freed at the end */
    size_t n_per_rank;
} run_args;

typedef struct run_state {
    cli_program prog;
    acc_array *inputs;   /* one per parameter                        */
    void **buffers;      /* every input buffer we allocated           */
    size_t n_buffers;
    acc_array *outputs;  /* one per output, library-allocated        */
    size_t n_outputs;
    outfile *files;      /* every file the outputs write, in order    */
    size_t n_files;
} run_state;

/* "input 1 (opts), component 2" for tuple parameters. */
static void slot_label(const run_state *s, size_t input, size_t comp,
                       size_t n_comps, char *buf, size_t size)
{
    char base[128];
    cli_input_label(&s->prog, input, base, sizeof base);
    if (n_comps > 1)
        snprintf(buf, size, "%s, component %zu", base, comp + 1);
    else
        snprintf(buf, size, "%s", base);
}

/* A rank-0 buffer from a literal. */
static int load_literal(const char *text, const char *label, acc_scalar s,
                        int32_t rank, const acc_type *elem, void **out)
{
    char err[256], type[300];
    if (rank != 0) {
        cli_format_array_type(elem, rank, type, sizeof type);
        return cli_error(CLI_FAIL, "%s: '%s' is a scalar literal, the program "
                         "expects a %s (give a .npy file)", label, text, type);
    }
    if (!(*out = malloc(8)))
        return cli_error(CLI_FAIL, "out of memory");
    if (literal_store(text, s, *out, err, sizeof err) != 0)
        return cli_error(CLI_FAIL, "%s: literal %s", label, err);
    return CLI_OK;
}

/* A buffer from a .npy file, checked against the expected type and rank;
 * *extents receives its shape. */
static int load_file(const char *path, const char *label, acc_scalar s,
                     int32_t rank, const acc_type *elem, void **out,
                     int64_t *extents)
{
    char err[NPY_ERROR_SIZE], shape[200], type[300];
    npy_array a;
    if (npy_load(path, &a, err, sizeof err) != 0)
        return cli_error(CLI_FAIL, "%s: %s", path, err);
    *out = a.data; /* owned by the caller from here on */
    if (a.info.scalar != s)
        return cli_error(CLI_FAIL, "%s: file %s has dtype %s, the program "
                         "expects %s", label, path, a.info.descr,
                         acc_scalar_name(s));
    if (a.info.rank != rank) {
        npy_format_shape(a.info.rank, a.info.extents, shape, sizeof shape);
        cli_format_array_type(elem, rank, type, sizeof type);
        return cli_error(CLI_FAIL, "%s: file %s has shape %s (rank %d), the "
                         "program expects rank %d (%s)", label, path, shape,
                         (int)a.info.rank, (int)rank, type);
    }
    memcpy(extents, a.info.extents, sizeof a.info.extents);
    return CLI_OK;
}

/* Loads parameter i from --in values starting at *next. */
static int load_input(run_state *s, const run_args *args, size_t i,
                      size_t *next)
{
    const acc_type *elem = NULL;
    int32_t rank = 0;
    int64_t extents[ACC_MAX_RANK] = {0}, first[ACC_MAX_RANK] = {0};
    char label[200], a[200], b[200];
    acc_program_input(s->prog.program, i, &elem, &rank);
    size_t n = cli_leaf_count(elem);
    acc_array_init(&s->inputs[i], elem, rank, first); /* extents below */
    for (size_t c = 0; c < n; c++) {
        const char *value = args->ins.items[(*next)++];
        void **buf = &s->buffers[s->n_buffers++];
        slot_label(s, i, c, n, label, sizeof label);
        int st = literal_is(value)
                     ? load_literal(value, label, cli_leaf(elem, c), rank,
                                    elem, buf)
                     : load_file(value, label, cli_leaf(elem, c), rank, elem,
                                 buf, extents);
        if (st != CLI_OK)
            return st;
        if (c == 0)
            memcpy(first, extents, sizeof first);
        else if (memcmp(first, extents, sizeof first) != 0) {
            npy_format_shape(rank, extents, a, sizeof a);
            npy_format_shape(rank, first, b, sizeof b);
            return cli_error(CLI_FAIL, "%s: file %s has shape %s, component "
                             "1 has shape %s", label, value, a, b);
        }
        s->inputs[i].data[c] = *buf;
    }
    memcpy(s->inputs[i].extents, first, sizeof first);
    return CLI_OK;
}

/* The signature as "xs: Vector f32, n: Scalar i64", for count errors. */
static void describe_inputs(const run_state *s, char *buf, size_t size)
{
    size_t n = 0, count = acc_program_num_inputs(s->prog.program);
    buf[0] = '\0';
    for (size_t i = 0; i < count && n < size; i++) {
        const acc_type *elem = NULL;
        int32_t rank = 0;
        char type[300];
        acc_program_input(s->prog.program, i, &elem, &rank);
        cli_format_array_type(elem, rank, type, sizeof type);
        if (i < s->prog.n_params)
            n += (size_t)snprintf(buf + n, size - n, "%s%s: %s",
                                  i ? ", " : "", s->prog.params[i], type);
        else
            n += (size_t)snprintf(buf + n, size - n, "%sinput %zu: %s",
                                  i ? ", " : "", i + 1, type);
    }
}

static int load_inputs(run_state *s, const run_args *args)
{
    size_t count = acc_program_num_inputs(s->prog.program), want = 0;
    for (size_t i = 0; i < count; i++) {
        const acc_type *elem = NULL;
        int32_t rank = 0;
        acc_program_input(s->prog.program, i, &elem, &rank);
        want += cli_leaf_count(elem);
    }
    if (args->ins.n != want) {
        char sig[1024];
        describe_inputs(s, sig, sizeof sig);
        return cli_error(CLI_USAGE, "%s takes %zu --in value%s (%s), %zu "
                         "given", args->file, want, want == 1 ? "" : "s",
                         want ? sig : "none", args->ins.n);
    }
    s->inputs = calloc(count ? count : 1, sizeof *s->inputs);
    s->buffers = calloc(want ? want : 1, sizeof *s->buffers);
    if (!s->inputs || !s->buffers)
        return cli_error(CLI_FAIL, "out of memory");
    size_t next = 0;
    for (size_t i = 0; i < count; i++) {
        int st = load_input(s, args, i, &next);
        if (st != CLI_OK)
            return st;
    }
    return CLI_OK;
}

/* B.npy -> B.K.npy for component K of a tuple output. */
static char *component_path(const char *path, size_t k)
{
    size_t len = strlen(path);
    if (len >= 4 && strcmp(path + len - 4, ".npy") == 0)
        len -= 4;
    char *out = malloc(len + 32);
    if (out)
        snprintf(out, len + 32, "%.*s.%zu.npy", (int)len, path, k);
    return out;
}

/* The number of files output i writes: one per scalar leaf. */
static size_t output_files(const run_state *s, size_t i)
{
    const acc_type *elem = NULL;
    int32_t rank = 0;
    acc_program_output(s->prog.program, i, &elem, &rank);
    return cli_leaf_count(elem);
}

/* Which output (and component of a tuple output) a planned file is. */
typedef struct file_owner {
    size_t output, comp, n_comps;
} file_owner;

/* "output 2 (r.npy)", "output 1, component 0 (r.0.npy from --out r)". */
static void file_label(const run_args *args, const file_owner *o,
                       const char *name, char *buf, size_t size)
{
    if (o->n_comps > 1)
        snprintf(buf, size, "output %zu, component %zu (%s from --out %s)",
                 o->output + 1, o->comp, name, args->outs.items[o->output]);
    else
        snprintf(buf, size, "output %zu (%s)", o->output + 1, name);
}

/* Checks the next file to write, against the earlier ones too. */
static int plan_file(run_state *s, const run_args *args, const char *name,
                     const file_owner *owners)
{
    char err[NPY_ERROR_SIZE], a[512], b[512];
    size_t k = s->n_files++;
    if (outfile_check(name, &s->files[k], err, sizeof err) != 0)
        return cli_error(CLI_FAIL, "%s: %s", name, err);
    for (size_t j = 0; j < k; j++)
        if (outfile_same(&s->files[j], &s->files[k])) {
            file_label(args, &owners[k], name, a, sizeof a);
            file_label(args, &owners[j], s->files[j].name, b, sizeof b);
            return cli_error(CLI_USAGE, "run: %s and %s would write the same "
                             "file (give every output file its own name)",
                             b, a);
        }
    return CLI_OK;
}

/* Every file the --out options will write, checked before the run:
 * targets that cannot be written and names that collide are refused. */
static int plan_outputs(run_state *s, const run_args *args)
{
    size_t n = acc_program_num_outputs(s->prog.program), total = 0;
    int st = CLI_OK;
    if (args->outs.n == 0)
        return CLI_OK;
    if (args->outs.n != n)
        return cli_error(CLI_USAGE, "%s has %zu output%s, %zu --out given "
                         "(give one per output, or none to print)",
                         args->file, n, n == 1 ? "" : "s", args->outs.n);
    for (size_t i = 0; i < n; i++)
        total += output_files(s, i);
    file_owner *owners = calloc(total ? total : 1, sizeof *owners);
    s->files = calloc(total ? total : 1, sizeof *s->files);
    if (!owners || !s->files)
        st = cli_error(CLI_FAIL, "out of memory");
    for (size_t i = 0; i < n && st == CLI_OK; i++) {
        size_t leaves = output_files(s, i);
        for (size_t c = 0; c < leaves && st == CLI_OK; c++) {
            char *name = leaves > 1 ? component_path(args->outs.items[i], c)
                                    : NULL;
            owners[s->n_files] = (file_owner){i, c, leaves};
            if (leaves > 1 && !name)
                st = cli_error(CLI_FAIL, "out of memory");
            else
                st = plan_file(s, args, name ? name : args->outs.items[i],
                               owners);
            free(name);
        }
    }
    free(owners);
    return st;
}

/* Stages every output file, then replaces the targets: a failure while
 * writing (a full disk, say) leaves every target as it was. */
static int write_outputs(run_state *s)
{
    char err[NPY_ERROR_SIZE];
    size_t k = 0;
    for (size_t i = 0; i < s->n_outputs; i++) {
        const acc_array *out = &s->outputs[i];
        for (size_t c = 0; c < cli_leaf_count(out->type); c++, k++)
            if (npy_stage(&s->files[k], cli_leaf(out->type, c), out->rank,
                          out->extents, out->data[c], err, sizeof err) != 0)
                return cli_error(CLI_FAIL, "%s: %s", s->files[k].name, err);
    }
    for (k = 0; k < s->n_files; k++)
        if (outfile_commit(&s->files[k], err, sizeof err) != 0)
            return cli_error(CLI_FAIL, "%s: %s%s", s->files[k].name, err,
                             k ? " (the output files before it were "
                                 "written)" : "");
    return CLI_OK;
}

static void print_output(const acc_array *out, size_t i)
{
    char type[300], shape[200];
    size_t n = cli_leaf_count(out->type);
    cli_format_array_type(out->type, out->rank, type, sizeof type);
    npy_format_shape(out->rank, out->extents, shape, sizeof shape);
    printf("output %zu: %s, shape %s\n", i + 1, type, shape);
    for (size_t c = 0; c < n; c++) {
        acc_scalar leaf = cli_leaf(out->type, c);
        if (n > 1)
            printf("component %zu (%s):\n", c, acc_scalar_name(leaf));
        print_array(stdout, leaf, out->rank, out->extents, out->data[c]);
    }
}

static int run_and_emit(run_state *s, const run_args *args)
{
    size_t n = acc_program_num_outputs(s->prog.program);
    if (!(s->outputs = calloc(n ? n : 1, sizeof *s->outputs)))
        return cli_error(CLI_FAIL, "out of memory");
    for (size_t i = 0; i < n; i++)
        s->outputs[i].struct_size = sizeof(acc_array);
    acc_status st = acc_run(s->prog.program,
                            acc_program_num_inputs(s->prog.program),
                            s->inputs, n, s->outputs);
    if (st != ACC_OK)
        return cli_library_error(args->file, st);
    s->n_outputs = n;
    if (args->outs.n && write_outputs(s) != CLI_OK)
        return CLI_FAIL;
    for (size_t i = 0; i < n && (args->print || !args->outs.n); i++)
        print_output(&s->outputs[i], i);
    return fflush(stdout) == 0 ? CLI_OK
                               : cli_error(CLI_FAIL, "cannot write output");
}

static void run_state_free(run_state *s)
{
    for (size_t i = 0; i < s->n_files; i++)
        outfile_discard(&s->files[i]); /* removes unwritten temporaries */
    free(s->files);
    for (size_t i = 0; i < s->n_outputs; i++)
        acc_array_release(&s->outputs[i]);
    for (size_t i = 0; i < s->n_buffers; i++)
        free(s->buffers[i]);
    free(s->outputs);
    free(s->buffers);
    free(s->inputs);
    cli_program_free(&s->prog);
}

/* This process's rank in an MPI job, from the launcher's environment
 * (Open MPI, PMIx, PMI); "0" when started alone. */
static const char *launcher_rank(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                       "PMI_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return getenv(vars[i]);
    return "0";
}

/* Per-rank files (docs/DISTRIBUTED.md): "%r" in an --in or --out name
 * stands for the process's rank, so that one mpirun command gives every
 * rank its own part ("--in part%r.npy" reads part0.npy on rank 0). */
static int per_rank_names(run_args *args, cli_list *l)
{
    const char *rank = launcher_rank();
    for (size_t i = 0; i < l->n; i++) {
        const char *at = strstr(l->items[i], "%r");
        if (!at)
            continue;
        size_t len = strlen(l->items[i]) + strlen(rank);
        char **grown = realloc(args->per_rank,
                               (args->n_per_rank + 1) * sizeof *grown);
        char *name = malloc(len);
        if (grown)
            args->per_rank = grown;
        if (!grown || !name) {
            free(name);
            return cli_error(CLI_FAIL, "run: out of memory");
        }
        snprintf(name, len, "%.*s%s%s", (int)(at - l->items[i]),
                 l->items[i], rank, at + 2);
        args->per_rank[args->n_per_rank++] = name;
        l->items[i] = name;
    }
    return CLI_OK;
}

/* File names that can only be mistakes, refused before anything is
 * read: empty ones, and "-" as an output (no .npy on stdout). */
static int check_names(const run_args *args)
{
    for (size_t i = 0; i < args->ins.n; i++)
        if (!args->ins.items[i][0])
            return cli_error(CLI_USAGE, "run: --in: empty file name (give a "
                             ".npy file or a literal)");
    for (size_t i = 0; i < args->outs.n; i++) {
        if (!args->outs.items[i][0])
            return cli_error(CLI_USAGE, "run: --out: empty file name");
        if (strcmp(args->outs.items[i], "-") == 0)
            return cli_error(CLI_USAGE, "run: --out -: writing to standard "
                             "output is not supported (use --print, or ./- "
                             "for a file named '-')");
    }
    return CLI_OK;
}

int cli_cmd_run(int argc, char **argv)
{
    run_args args = {0};
    run_state s = {0};
    acc_backend backend = ACC_BACKEND_AUTO;
    const cli_option options[] = {
        {"--entry", &args.entry, NULL, NULL},
        {"--in", NULL, &args.ins, NULL},
        {"--out", NULL, &args.outs, NULL},
        {"--backend", &args.backend, NULL, NULL},
        {"--print", NULL, NULL, &args.print},
        {"--strict", NULL, NULL, &args.plugins.strict},
        {"--fp-contract", NULL, NULL, &args.plugins.fp_contract},
        CLI_PLUGIN_OPTIONS(&args.plugins),
    };
    size_t n_pos = 0;
    int help = 0;
    int st = cli_parse_options("run", argc, argv, options,
                               sizeof options / sizeof options[0], &args.file,
                               1, &n_pos, &help);
    if (st == CLI_OK && help)
        fputs(cli_command_help("run"), stdout);
    else if (st == CLI_OK && n_pos == 0)
        st = cli_error(CLI_USAGE, "run: no program file given (try 'accel "
                       "run --help')");
    else if (st == CLI_OK)
        st = cli_parse_backend(args.backend, &backend);
    if (st == CLI_OK && !help)
        st = per_rank_names(&args, &args.ins);
    if (st == CLI_OK && !help)
        st = per_rank_names(&args, &args.outs);
    if (st == CLI_OK && !help)
        st = check_names(&args);
    if (st == CLI_OK && !help)
        st = cli_program_load(args.file, args.entry, backend, &args.plugins,
                              &s.prog);
    if (st == CLI_OK && !help)
        st = plan_outputs(&s, &args);
    if (st == CLI_OK && !help)
        st = load_inputs(&s, &args);
    if (st == CLI_OK && !help)
        st = run_and_emit(&s, &args);
    run_state_free(&s);
    cli_list_free(&args.ins);
    cli_list_free(&args.outs);
    cli_plugins_free(&args.plugins);
    for (size_t i = 0; i < args.n_per_rank; i++)
        free(args.per_rank[i]);
    free(args.per_rank);
    return st;
}
