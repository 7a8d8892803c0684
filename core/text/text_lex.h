/*
 * text_lex.h — tokens of the text language (LANGUAGE.md §4) and the lexer
 * that turns a whole source text into an array of them.
 */
#ifndef ACC_CORE_TEXT_TEXT_LEX_H
#define ACC_CORE_TEXT_TEXT_LEX_H

#include "core/text/text.h"

typedef enum text_tok_kind {
    TK_EOF,
    TK_IDENT,     /* names, including upper-case ones (All, True, Vector) */
    TK_INT,       /* unsigned magnitude in ival                           */
    TK_FLOAT,     /* fval                                                 */
    TK_STRING,    /* decoded text in text                                 */
    TK_OP,        /* a run of symbol characters: + <= .&. !! ...          */
    TK_LPAREN, TK_RPAREN, TK_LBRACK, TK_RBRACK,
    TK_COMMA, TK_SEMI, TK_BACKQUOTE, TK_LAMBDA,
    TK_ARROW, TK_EQUALS, TK_COLON,
    TK_LET, TK_IN, TK_IF, TK_THEN, TK_ELSE,
    TK_NEWDEF     /* never produced: the parser's view of a token in
                     column 1 while it reads a definition's body        */
} text_tok_kind;

typedef struct text_token {
    text_tok_kind kind;
    text_pos pos;
    const char *text; /* NUL-terminated: the spelling, or a string's text */
    uint64_t ival;
    double fval;
} text_token;

/* Tokenises src[0..len-1]; the last token is TK_EOF.  Lexical errors
 * (unexpected characters, malformed numbers, unterminated strings) fail
 * with ACC_ERR_PARSE. */
text_token *text_lex(text_state *st, const char *src, size_t len,
                     int prelude, size_t *n_tokens);

/* A short description of a token for messages: "'foo'", "end of input". */
const char *text_tok_describe(text_state *st, const text_token *t);

#endif
