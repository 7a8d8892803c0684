/*
 * toolchain.h — the C compiler of the CPU backend.
 *
 * The compiler is $ACC_CC, else $CC, else `cc` (a command line: words
 * separated by spaces, so "ccache gcc" works), run with the flags listed
 * once in toolchain.c (they are part of the cache key), plus
 * -march=native when the compiler accepts it (and ACC_CPU_NATIVE is not
 * 0): the description then names the target by a digest of the
 * compiler's predefined macros for it, so a cache folder shared between
 * machines never hands one an object built for another.  Whether a toolchain
 * works is probed once per process and compiler command, by compiling,
 * loading and calling a trivial kernel built on the real prelude.
 */
#ifndef ACC_CORE_BACKEND_CPU_TOOLCHAIN_H
#define ACC_CORE_BACKEND_CPU_TOOLCHAIN_H

#include <stddef.h>


enum { CPU_MAX_WORDS = 32 };

typedef struct cpu_toolchain {
    char *line;                    /* the command line (malloc'd) */
    char *argv[CPU_MAX_WORDS + 16];/* its words, then the flags */
    int n_words;                   /* words before the source/output */
    int native;                    /* built with -march=native */
    char desc[640];                /* compiler and flags, for cache keys */
} cpu_toolchain;

/* The toolchain named by the environment; 0 when out of memory. */
int cpu_toolchain_init(cpu_toolchain *tc);
void cpu_toolchain_free(cpu_toolchain *tc);

/* Compiles C file `src` into shared object `so`.  On failure returns 0
 * and puts the start of the compiler's output (or why it did not run)
 * into err. */
int cpu_compile(const cpu_toolchain *tc, const char *src, const char *so,
                char *err, size_t err_len);

/* Whether the toolchain works (memoised per process and command line);
 * when it does not, why says why. */
int cpu_toolchain_probe(const cpu_toolchain *tc, char *why, size_t why_len);

#endif
