/*
 * text_sources.h — text programs shared by the text-language tests: the
 * LANGUAGE.md §4 programs exactly as written there, the §3.6 sieve, and
 * others.
 */
#ifndef ACCEL_TESTS_TEXT_SOURCES_H
#define ACCEL_TESTS_TEXT_SOURCES_H

/* All programs of LANGUAGE.md §4 in one source (entries dotp, smvm,
 * blackscholes, histogram, blur, mandelbrot, dotBlas; helper cnd). */
const char *ts_language4_source(void);
/* dotp of LANGUAGE.md §4 alone, as written there. */
const char *ts_dotp_source(void);
/* cnd and blackscholes of LANGUAGE.md §4 alone, as written there. */
const char *ts_blackscholes_source(void);
/* sieveMarks of LANGUAGE.md §3.6. */
const char *ts_sieve_source(void);
/* permute, permute' and expand programs for the CUDA tests
 * (text_permute_source.c). */
const char *ts_permute_source(void);

/* One entry point per group of library functions and array operations
 * (text_library_source.c). */
const char *ts_library_source(void);

/* The stencil programs of the CUDA tests (text_stencil_source.c). */
const char *ts_stencil_source(void);

#endif
