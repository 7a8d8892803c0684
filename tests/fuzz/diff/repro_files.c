/*
 * repro_files.c — a failing seed as files that need neither the fuzzer
 * nor C: the program as text (the IR printer's output of the unfused
 * program, which is a text program: tests/unit/test_text_roundtrip.c),
 * each input component as a .npy file (the accel tool's writer), and
 * run.sh, which runs it with `accel run` on the interpreter and on the
 * cpu backend.  A bug report can quote them as they are.
 */
#include "diff.h"

#include "abi/src/program.h"
#include "core/ir/printer.h"
#include "tools/accel/npy.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    int ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

int dz_write_repro(const char *dir, const acc_program *unfused,
                   const dz_data *d, const char *title, char *why, size_t len)
{
    char path[512], err[NPY_ERROR_SIZE] = "";
    strbuf prog = {0}, sh = {0};
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(why, len, "cannot create %s: %s", dir, strerror(errno));
        return 0;
    }
    ir_print_program(&prog, &unfused->c.ir);
    snprintf(path, sizeof path, "%s/program.acc", dir);
    int ok = prog.text && write_text(path, prog.text);
    sb_printf(&sh, "#!/bin/sh\n# %s\n# The program runs on the interpreter and "
              "on the cpu backend; they should agree.\ncd \"$(dirname \"$0\")\"\n"
              "ACCEL=${ACCEL:-accel}\nfor backend in interp cpu; do\n"
              "  echo \"== $backend\"\n  \"$ACCEL\" run program.acc --entry "
              "program --backend \"$backend\" --print", title);
    for (size_t i = 0; ok && i < d->n_in; i++) {
        const acc_array *a = &d->in[i];
        for (size_t l = 0; ok && l < acc_type_leaf_count(a->type); l++) {
            snprintf(path, sizeof path, "%s/in%zu_%zu.npy", dir, i, l);
            ok = npy_save(path, acc_type_leaf(a->type, l), a->rank, a->extents,
                          a->data[l], err, sizeof err) == 0;
            sb_printf(&sh, " \\\n    --in in%zu_%zu.npy", i, l);
        }
    }
    sb_puts(&sh, "\ndone\n");
    snprintf(path, sizeof path, "%s/run.sh", dir);
    ok = ok && sh.text && write_text(path, sh.text) && chmod(path, 0755) == 0;
    if (!ok)
        snprintf(why, len, "could not write the files in %s (%s)", dir, err);
    sb_free(&prog);
    sb_free(&sh);
    return ok;
}
