/*
 * text.h — what every file of the text front end (core/text/) shares:
 * source positions, the per-call state (an arena that owns every token,
 * AST node, type and core term of one acc_parse call) and error reporting.
 *
 * Errors unwind with longjmp to the API entry point (text_api.c), which is
 * the only function that calls setjmp.  Everything allocated before the
 * jump lives in the arena, which the entry point destroys, so a failure at
 * any depth leaks nothing.  Builder nodes already made belong to the graph.
 */
#ifndef ACC_CORE_TEXT_TEXT_H
#define ACC_CORE_TEXT_TEXT_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "accel.h"
#include "core/base/arena.h"

/* Nesting limits that keep every recursive walk far from the stack's end:
 * syntactic nesting (parser), elaboration depth (inlining included) and the
 * depth of the elaborated term. */
enum {
    TEXT_MAX_NESTING = 1000,
    TEXT_MAX_EVAL_DEPTH = 2000,
    TEXT_MAX_TERM_DEPTH = 3000,
    TEXT_MESSAGE_MAX = 1024
};

/* A position in a source text (1-based).  `prelude` marks text of the
 * standard library, whose positions are never shown to users. */
typedef struct text_pos {
    int line, col;
    int prelude;
} text_pos;

typedef struct text_state {
    arena *arena;
    jmp_buf fail;                     /* where text_fail jumps            */
    acc_status status;                /* ACC_OK until the first error     */
    char message[TEXT_MESSAGE_MAX];   /* "LINE:COL: what; expected what"  */
    /* Names compared while finding definitions (module.c): unit tests
     * assert that it grows linearly with the number of definitions. */
    uint64_t name_compares;
} text_state;

/* Zero-filled arena memory; out of memory fails the call. */
void *text_alloc(text_state *st, size_t size);
/* A NUL-terminated arena copy of s[0..n-1]. */
char *text_strndup(text_state *st, const char *s, size_t n);

/* Records "LINE:COL: message" and unwinds to the entry point. */
_Noreturn void text_fail(text_state *st, acc_status status, text_pos pos,
                         const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
