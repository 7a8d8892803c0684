/*
 * toolchain.h — the C compiler of the CPU backend.
 *
 * The compiler is $ACC_CC, else $CC, else `cc` (a command line: words
 * separated by spaces, so "ccache gcc" works), run with the flags listed
 * once in toolchain.c (they are part of the cache key), plus
 * -march=native when the compiler accepts it (and ACC_CPU_NATIVE is not
 * 0): the description then names the target by a digest of the
 * compiler's predefined macros for it (and -mprefer-vector-width=512
 * when that target has AVX-512F, unless ACC_CPU_VECTOR_WIDTH=256), so a cache folder shared between
 * machines never hands one an object built for another.  Whether a toolchain
 * works, and with which flags, is the probe's business (probe.h).
 */
#ifndef ACC_CORE_BACKEND_CPU_TOOLCHAIN_H
#define ACC_CORE_BACKEND_CPU_TOOLCHAIN_H

#include "core/base/diag.h"
#include "core/base/strbuf.h"

#include <stddef.h>

enum { CPU_MAX_WORDS = 32 };

typedef struct cpu_toolchain {
    char *line;                    /* the command line (malloc'd), split */
    char *argv[CPU_MAX_WORDS + 16];/* its words, then the flags */
    int n_words;                   /* words before the source/output */
    int native;                    /* built with -march=native */
    char desc[640];                /* compiler and flags, for cache keys */
    char *line_copy;               /* the command line as given (malloc'd) */
    const char *extra;             /* a flag the probe's canaries made
                                      necessary (static), or NULL */
    int wide;                      /* with -mprefer-vector-width=512: a
                                      native target with AVX-512F */
    int contract;                  /* -ffp-contract=fast instead of off
                                      (cpu_toolchain_contract) */
} cpu_toolchain;

/* The toolchain named by the environment, as configured (before the
 * probe's canaries choose; cpu_toolchain_probe, probe.h); 0 when out of
 * memory. */
int cpu_toolchain_init(cpu_toolchain *tc);
/* The toolchain of compiler command `command` (NULL: the environment's),
 * with -march=native when `native` is 1, the compiler accepts it and
 * ACC_CPU_NATIVE is not 0, and flag `extra` (a static string, or NULL)
 * after the common flags.  0 when out of memory. */
int cpu_toolchain_make(cpu_toolchain *tc, const char *command, int native,
                       const char *extra);
void cpu_toolchain_free(cpu_toolchain *tc);
/* Turns on floating-point contraction (the context option fp_contract):
 * kernels are built with -ffp-contract=fast instead of -ffp-contract=off,
 * and the description (so every cache key) says so.  Applied to the
 * toolchain the probe chose, whose canaries ran without it (their
 * fp-contract-off canary checks exactly what this option gives up). */
void cpu_toolchain_contract(cpu_toolchain *tc);

/* Appends what identifies the compiler itself to b: where PATH finds each
 * word of its command (size, modification time) and a digest of its
 * predefined macros (its version; with -march=native, the target's).
 * Returns 0 when the compiler did not run. */
int cpu_toolchain_identity(const cpu_toolchain *tc, strbuf *b);
/* Appends where PATH finds program `word` (size, modification time), or
 * "word:?" when it does not. */
void cpu_word_identity(const char *word, strbuf *b);

/* Compiles C file `src` into shared object `so`: ACC_OK, or
 * ACC_ERR_COMPILE recorded on d with the start of the compiler's output
 * (or why it did not run); the diag's status either way. */
acc_status cpu_compile(const cpu_toolchain *tc, const char *src,
                       const char *so, diag *d);


#endif
