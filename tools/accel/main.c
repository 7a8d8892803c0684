/*
 * main.c — the `accel` command-line tool: runs, checks and explains text
 * programs and describes the installation.  It is an ordinary client of
 * libaccel: it uses nothing but the public header.
 *
 * Exit statuses: 0 success, 1 failure (program, data, system), 2 usage.
 */
#include "cli.h"

#include <string.h>

/* The plugin options, shared by run, check, explain and info. */
#define PLUGIN_HELP                                                        \
    "  --plugin P     load plugin P (a name such as cblas, or a path) too;\n" \
    "                 repeatable; one that cannot be loaded is an error\n"   \
    "  --no-plugins   load no plugin by default (ACC_PLUGINS=none); else\n"  \
    "                 the built-in plugins of the backend that are found\n"  \
    "                 are loaded when a foreign node is compiled\n"       \
    "  --kernel FILE  register the user kernel in FILE (C, or CUDA when it\n" \
    "                 ends in .cu), whose first comment lines say\n"       \
    "                 '// kernel: NAME', '// entry: FUNCTION' and\n"      \
    "                 '// signature: TYPE' (docs/CLI.md); repeatable\n"

/* --strict, shared by run and explain. */
#define STRICT_HELP                                                          \
    "  --strict       fail to compile when the backend cannot compile a\n"   \
    "                 step, instead of running that step on the reference\n" \
    "                 interpreter (which the plan shows, with the reason)\n"

static const char usage_text[] =
    "usage: accel COMMAND [OPTIONS]\n"
    "\n"
    "Runs and inspects accel text programs (LANGUAGE.md section 4).\n"
    "\n"
    "commands:\n"
    "  run FILE --in A.npy ... [--out B.npy ...]   run an entry point\n"
    "  check FILE                                    parse and type-check\n"
    "  explain FILE [--json]                         show the compiled plan\n"
    "  info                                          version, backends, cache\n"
    "  help [COMMAND]                                this text, or a command's\n"
    "\n"
    "options: --help (also after a command), --version\n"
    "exit status: 0 success, 1 failure, 2 wrong command line\n";

static const char run_help[] =
    "usage: accel run FILE [--entry NAME] --in VALUE ... [--out B.npy ...]\n"
    "                 [--backend auto|interp|cpu|cuda] [--print] [--strict]\n"
    "                 [--fp-contract] [--plugin NAME|PATH ...]\n"
    "                 [--no-plugins] [--kernel FILE ...]\n"
    "\n"
    "Compiles entry point NAME of the text program FILE (the only one when\n"
    "--entry is not given), runs it once and writes or prints its outputs.\n"
    "\n"
    "  --in VALUE     one per parameter, in order; a parameter whose element\n"
    "                 type is a tuple takes one --in per component.  VALUE is\n"
    "                 a .npy file (dtype and rank must match the parameter)\n"
    "                 or, for a scalar parameter, a literal: 3, -2.5, true\n"
    "  --out B.npy    one per output, in order; a tuple output writes\n"
    "                 B.0.npy, B.1.npy, ... (one file per component).  Each\n"
    "                 file is written whole, then renamed over B.npy;\n"
    "                 devices, folders, FIFOs and two outputs naming one\n"
    "                 file are refused before the run\n"
    "  --print        print the outputs (shape, type, values); the default\n"
    "                 when no --out is given\n"
    "  --entry NAME   the entry point to run\n"
    "  --backend B    auto (default), interp, cpu or cuda\n"
    STRICT_HELP
    "  --fp-contract  let the cpu backend fuse a * b + c into one multiply-\n"
    "                 add (rounded once: faster, but not the interpreter's\n"
    "                 result bit for bit)\n"
    PLUGIN_HELP
    "\n"
    ".npy files: versions 1.0-3.0, C order, little-endian; dtypes <f4 <f8\n"
    "<i1 <i2 <i4 <i8 <u1 <u2 <u4 <u8 |b1 |i1 |u1.\n";

static const char check_help[] =
    "usage: accel check FILE [--backend auto|interp|cpu|cuda]\n"
    "                   [--plugin NAME|PATH ...] [--no-plugins]\n"
    "                   [--kernel FILE ...]\n"
    "\n"
    "Parses FILE and compiles every entry point (on the interpreter unless\n"
    "--backend says otherwise).  Prints \"ok: N entry points (names)\" and\n"
    "exits 0, or reports the first error and exits 1.\n"
    "\n"
    PLUGIN_HELP;

static const char explain_help[] =
    "usage: accel explain FILE [--entry NAME] [--json] [--strict]\n"
    "                     [--backend auto|interp|cpu|cuda]\n"
    "                     [--plugin NAME|PATH ...] [--no-plugins]\n"
    "                     [--kernel FILE ...]\n"
    "\n"
    "Compiles an entry point and prints its plan: the kernels, what was\n"
    "fused into each, the intermediate arrays, and what each foreign node\n"
    "uses (--json: as JSON).\n"
    "\n"
    STRICT_HELP
    PLUGIN_HELP;

static const char info_help[] =
    "usage: accel info [--plugin NAME|PATH ...] [--no-plugins]\n"
    "                  [--kernel FILE ...]\n"
    "\n"
    "Prints the library version and ABI, each backend with whether it is\n"
    "available and why, every built-in plugin with whether it is loaded\n"
    "and why not, the foreign implementations registered, and the kernel\n"
    "cache folder with its size.\n"
    "\n"
    PLUGIN_HELP;

static const char help_help[] =
    "usage: accel help [COMMAND]\n"
    "\n"
    "Prints the list of commands, or the help of COMMAND.\n";

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} command;

static int cmd_help(int argc, char **argv);

static const command commands[] = {
    {"run", cli_cmd_run, run_help},
    {"check", cli_cmd_check, check_help},
    {"explain", cli_cmd_explain, explain_help},
    {"info", cli_cmd_info, info_help},
    {"help", cmd_help, help_help},
};
#define NUM_COMMANDS (sizeof commands / sizeof commands[0])

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < NUM_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

const char *cli_command_help(const char *name)
{
    const command *c = find_command(name);
    return c ? c->help : NULL;
}

static int cmd_help(int argc, char **argv)
{
    if (argc == 0) {
        fputs(usage_text, stdout);
        return CLI_OK;
    }
    if (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        fputs(help_help, stdout);
        return CLI_OK;
    }
    const command *c = find_command(argv[0]);
    if (argc > 1)
        return cli_error(CLI_USAGE, "help: takes at most one command");
    if (!c)
        return cli_error(CLI_USAGE, "help: unknown command '%s' (commands: "
                         "run, check, explain, info)", argv[0]);
    fputs(c->help, stdout);
    return CLI_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return cli_error(CLI_USAGE, "no command given (try 'accel --help')");
    const char *word = argv[1];
    if (strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0)
        return cmd_help(0, NULL);
    if (strcmp(word, "--version") == 0) {
        printf("accel %s (ABI %u)\n", acc_version_string(),
               (unsigned)acc_abi_version());
        return CLI_OK;
    }
    const command *c = find_command(word);
    if (!c)
        return cli_error(CLI_USAGE, "unknown %s '%s' (try 'accel --help')",
                         word[0] == '-' ? "option" : "command", word);
    return c->run(argc - 2, argv + 2);
}
