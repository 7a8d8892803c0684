/*
 * report.c — what the differential tests print: a program (the IR
 * printer, in the text syntax, and the plan), arrays, the statistics of a
 * run, and the command that reproduces a seed.
 */
#include "diff.h"

#include "abi/src/program.h"
#include "core/ir/printer.h"

#include <inttypes.h>
#include <string.h>

void dz_print_program(FILE *f, const acc_program *p, const char *title)
{
    strbuf b = {0};
    char *text = NULL;
    ir_print_program(&b, &p->c.ir);
    fprintf(f, "---- %s ----\n%s\n", title, b.text ? b.text : "");
    sb_free(&b);
    if (acc_program_explain(p, 0, &text) == ACC_OK)
        fprintf(f, "%s\n", text);
    acc_free(text);
}

static void print_scalar(FILE *f, acc_scalar s, const void *p)
{
    switch (s) {
    case ACC_BOOL: fprintf(f, "%s", *(const uint8_t *)p ? "T" : "F"); break;
    case ACC_I8: fprintf(f, "%d", *(const int8_t *)p); break;
    case ACC_I16: fprintf(f, "%d", *(const int16_t *)p); break;
    case ACC_I32: fprintf(f, "%" PRId32, *(const int32_t *)p); break;
    case ACC_I64: fprintf(f, "%" PRId64, *(const int64_t *)p); break;
    case ACC_U8: fprintf(f, "%u", *(const uint8_t *)p); break;
    case ACC_U16: fprintf(f, "%u", *(const uint16_t *)p); break;
    case ACC_U32: fprintf(f, "%" PRIu32, *(const uint32_t *)p); break;
    case ACC_U64: fprintf(f, "%" PRIu64, *(const uint64_t *)p); break;
    case ACC_F32: fprintf(f, "%.9g", *(const float *)p); break;
    default: fprintf(f, "%.17g", *(const double *)p); break;
    }
}

void dz_print_array(FILE *f, const char *what, const acc_array *a,
                    size_t max_elems)
{
    int64_t n = acc_array_size(a);
    size_t leaves = acc_type_leaf_count(a->type);
    fprintf(f, "%s: [", what);
    for (int d = 0; d < a->rank; d++)
        fprintf(f, "%s%" PRId64, d ? ", " : "", a->extents[d]);
    fprintf(f, "] of");
    for (size_t l = 0; l < leaves; l++)
        fprintf(f, " %s", acc_scalar_name(acc_type_leaf(a->type, l)));
    fprintf(f, ":");
    for (int64_t i = 0; i < n && (size_t)i < max_elems; i++) {
        fprintf(f, " %s", leaves > 1 ? "(" : "");
        for (size_t l = 0; l < leaves; l++) {
            acc_scalar s = acc_type_leaf(a->type, l);
            if (l)
                fprintf(f, ",");
            print_scalar(f, s, (const char *)a->data[l] +
                                   i * (int64_t)acc_scalar_size(s));
        }
        fprintf(f, "%s", leaves > 1 ? ")" : "");
    }
    fprintf(f, "%s\n", n > (int64_t)max_elems ? " ..." : "");
}

void dz_print_stats(FILE *f, const dz_stats *st, double seconds)
{
    fprintf(f, "%" PRIu64 " programs, %" PRIu64 " runs (%" PRIu64 " ran, %"
            PRIu64 " failed on the reference, agreeing) in %.0f s; %" PRIu64
            " failures, %" PRIu64 " crashes or hangs\n", st->programs,
            st->runs, st->runs_ok, st->runs_err, seconds, st->failures,
            st->crashes);
    fprintf(f, "per backend (programs / runs):");
    for (int c = 0; c < DZ_N_CONFIGS; c++)
        fprintf(f, "  %s %" PRIu64 "/%" PRIu64, dz_config_name((dz_config)c),
                st->per_config_programs[c], st->per_config_runs[c]);
    fprintf(f, "\ncpu plan steps: %" PRIu64 " kernels, %" PRIu64
            " interpreted; %" PRIu64 " cpu runs direct; NVRTC: %" PRIu64
            " kernels generated, %" PRIu64 " failures, %" PRIu64
            " compiled with warnings\n", st->kernels, st->interpreted,
            st->direct_runs, st->nvrtc_kernels, st->nvrtc_failures,
            st->nvrtc_warnings);
    fprintf(f, "fused runs where only the unfused program failed (allowed "
            "outside strict programs): %" PRIu64 "; float sums too large to "
            "bound: %" PRIu64 " elements\n", st->lazy_skips, st->unbounded);
    fprintf(f, "per operation class (programs / runs):\n");
    for (int c = 0; c < DZ_N_CLASSES; c++)
        fprintf(f, "  %-16s %6" PRIu64 " / %-7" PRIu64 "%s",
                dz_class_name((dz_class)c), st->per_class_programs[c],
                st->per_class_runs[c], c % 3 == 2 ? "\n" : "");
    fprintf(f, "\n");
}

void dz_repro_command(char *buf, size_t len, const char *argv0,
                      uint64_t seed, const dz_options *o)
{
    snprintf(buf, len, "%s --repro %" PRIu64 " --avoid %s --data %d%s%s%s%s%s",
             argv0, seed, dz_avoid_text(o->avoid), o->n_data,
             o->exact_math ? " --exact-math" : "", o->cuda ? "" : " --no-cuda",
             o->only_class ? " --only " : "",
             o->only_class ? dz_class_name((dz_class)(o->only_class - 1)) : "",
             o->single_fold ? " --single-fold" : "");
}
