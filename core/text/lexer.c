/*
 * lexer.c — source text to tokens.  Haskell-like lexical rules: `--`
 * followed by a non-symbol starts a comment to the end of the line, names
 * may contain letters, digits, '_' and '\'' (foldSeg'), operators are runs
 * of symbol characters, numbers are decimal (or 0x hexadecimal) integers
 * and decimal floats with an optional exponent.  The lexer also owns
 * text_state's allocation and error helpers.
 */
#include "core/text/text_lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- state helpers --------------------------------------------------------- */

void *text_alloc(text_state *st, size_t size)
{
    void *p = arena_alloc(st->arena, size ? size : 1);
    if (!p) {
        text_pos none = {0, 0, 0};
        text_fail(st, ACC_ERR_OUT_OF_HOST_MEMORY, none, "out of host memory");
    }
    return p;
}

char *text_strndup(text_state *st, const char *s, size_t n)
{
    char *c = text_alloc(st, n + 1);
    memcpy(c, s, n);
    c[n] = '\0';
    return c;
}

void text_fail(text_state *st, acc_status status, text_pos pos,
               const char *fmt, ...)
{
    if (st->status == ACC_OK) {
        int at = snprintf(st->message, sizeof st->message, "%d:%d: ",
                          pos.line, pos.col);
        if (at < 0 || (size_t)at >= sizeof st->message)
            at = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->message + at, sizeof st->message - (size_t)at, fmt, ap);
        va_end(ap);
        st->status = status;
    }
    longjmp(st->fail, 1);
}

/* ---- the lexer -------------------------------------------------------------- */

typedef struct lexer {
    text_state *st;
    const char *src;
    size_t len, at;
    int line, col, prelude;
    text_token *toks;
    size_t n, cap;
} lexer;

static int is_symbol(int c)
{
    return c != '\0' && strchr("!#$%&*+./<=>?@^|-~:", c) != NULL;
}

static int is_name_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_name_char(int c)
{
    return is_name_start(c) || (c >= '0' && c <= '9') || c == '\'';
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int peek(const lexer *lx, size_t k)
{
    return lx->at + k < lx->len ? (unsigned char)lx->src[lx->at + k] : '\0';
}

static text_pos here(const lexer *lx)
{
    text_pos p = {lx->line, lx->col, lx->prelude};
    return p;
}

static void advance(lexer *lx, size_t k)
{
    while (k-- > 0 && lx->at < lx->len) {
        if (lx->src[lx->at] == '\n') {
            lx->line++;
            lx->col = 1;
        } else {
            lx->col++;
        }
        lx->at++;
    }
}

static text_token *push(lexer *lx, text_tok_kind kind, text_pos pos,
                        size_t start)
{
    if (lx->n == lx->cap) {
        size_t cap = lx->cap ? 2 * lx->cap : 256;
        text_token *t = text_alloc(lx->st, cap * sizeof *t);
        if (lx->n)
            memcpy(t, lx->toks, lx->n * sizeof *t);
        lx->toks = t;
        lx->cap = cap;
    }
    text_token *t = &lx->toks[lx->n++];
    t->kind = kind;
    t->pos = pos;
    t->text = text_strndup(lx->st, lx->src + start, lx->at - start);
    return t;
}

/* Skips blanks and comments. */
static void skip_space(lexer *lx)
{
    for (;;) {
        int c = peek(lx, 0);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
            advance(lx, 1);
        } else if (c == '-' && peek(lx, 1) == '-') {
            size_t k = 2;
            while (peek(lx, k) == '-')
                k++;
            if (is_symbol(peek(lx, k)))
                return; /* an operator such as -->, not a comment */
            while (lx->at < lx->len && lx->src[lx->at] != '\n')
                advance(lx, 1);
        } else {
            return;
        }
    }
}

static const struct { const char *word; text_tok_kind kind; } keywords[] = {
    {"let", TK_LET}, {"in", TK_IN}, {"if", TK_IF},
    {"then", TK_THEN}, {"else", TK_ELSE},
};

static void lex_name(lexer *lx)
{
    text_pos pos = here(lx);
    size_t start = lx->at;
    while (is_name_char(peek(lx, 0)))
        advance(lx, 1);
    text_token *t = push(lx, TK_IDENT, pos, start);
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (strcmp(t->text, keywords[i].word) == 0)
            t->kind = keywords[i].kind;
}

static void lex_operator(lexer *lx)
{
    text_pos pos = here(lx);
    size_t start = lx->at;
    while (is_symbol(peek(lx, 0)))
        advance(lx, 1);
    text_token *t = push(lx, TK_OP, pos, start);
    if (strcmp(t->text, "=") == 0)
        t->kind = TK_EQUALS;
    else if (strcmp(t->text, "->") == 0)
        t->kind = TK_ARROW;
    else if (strcmp(t->text, ":") == 0)
        t->kind = TK_COLON;
}

_Noreturn static void bad_number(lexer *lx, text_pos pos, size_t start)
{
    size_t end = lx->at;
    while (end < lx->len && (is_name_char((unsigned char)lx->src[end]) ||
                             lx->src[end] == '.'))
        end++;
    int n = (int)(end - start > 40 ? 40 : end - start);
    text_fail(lx->st, ACC_ERR_PARSE, pos, "malformed number literal '%.*s'; "
              "expected digits, optionally with a fraction and an exponent "
              "(12, 0.5, 1e-3, 0xff)", n, lx->src + start);
}

static uint64_t digits_value(lexer *lx, text_pos pos, size_t start,
                             size_t end, int base)
{
    uint64_t v = 0;
    for (size_t i = start; i < end; i++) {
        int c = (unsigned char)lx->src[i];
        uint64_t d = (uint64_t)(is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
        if (v > (UINT64_MAX - d) / (uint64_t)base)
            text_fail(lx->st, ACC_ERR_PARSE, pos, "integer literal '%.*s' "
                      "does not fit in 64 bits", (int)(end - start > 40 ? 40 :
                      end - start), lx->src + start);
        v = v * (uint64_t)base + d;
    }
    return v;
}

static int is_hex(int c)
{
    return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static void lex_number(lexer *lx)
{
    text_pos pos = here(lx);
    size_t start = lx->at;
    if (peek(lx, 0) == '0' && (peek(lx, 1) | 0x20) == 'x') {
        advance(lx, 2);
        size_t d0 = lx->at;
        while (is_hex(peek(lx, 0)))
            advance(lx, 1);
        if (lx->at == d0 || is_name_char(peek(lx, 0)))
            bad_number(lx, pos, start);
        uint64_t v = digits_value(lx, pos, d0, lx->at, 16);
        push(lx, TK_INT, pos, start)->ival = v;
        return;
    }
    int is_float = 0;
    while (is_digit(peek(lx, 0)))
        advance(lx, 1);
    if (peek(lx, 0) == '.' && is_digit(peek(lx, 1))) {
        is_float = 1;
        advance(lx, 1);
        while (is_digit(peek(lx, 0)))
            advance(lx, 1);
    }
    if ((peek(lx, 0) | 0x20) == 'e') {
        size_t k = 1;
        if (peek(lx, k) == '+' || peek(lx, k) == '-')
            k++;
        if (!is_digit(peek(lx, k)))
            bad_number(lx, pos, start);
        is_float = 1;
        advance(lx, k);
        while (is_digit(peek(lx, 0)))
            advance(lx, 1);
    }
    if (is_name_char(peek(lx, 0)) ||
        (peek(lx, 0) == '.' && is_digit(peek(lx, 1))))
        bad_number(lx, pos, start);
    if (!is_float) {
        uint64_t v = digits_value(lx, pos, start, lx->at, 10);
        push(lx, TK_INT, pos, start)->ival = v;
        return;
    }
    /* A literal beyond f64 reads as an infinity (strtod's HUGE_VAL); it is
     * refused once its type is known (emit.c), like 1e39 as f32, so that
     * the message names the type whatever the exponent's size. */
    text_token *t = push(lx, TK_FLOAT, pos, start);
    t->fval = strtod(t->text, NULL);
}

static void lex_string(lexer *lx)
{
    text_pos pos = here(lx);
    advance(lx, 1);
    size_t cap = 16, n = 0;
    char *buf = text_alloc(lx->st, cap);
    for (;;) {
        int c = peek(lx, 0);
        if (lx->at >= lx->len || c == '\n')
            text_fail(lx->st, ACC_ERR_PARSE, pos, "unterminated string "
                      "literal; expected a closing '\"' on the same line");
        advance(lx, 1);
        if (c == '"')
            break;
        if (c == '\\') {
            int e = peek(lx, 0);
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e;
            if (e != 'n' && e != 't' && e != '\\' && e != '"')
                text_fail(lx->st, ACC_ERR_PARSE, here(lx), "unknown escape "
                          "in a string literal; expected \\n, \\t, \\\\ or "
                          "\\\"");
            advance(lx, 1);
        }
        if (n + 2 > cap) {
            char *b = text_alloc(lx->st, cap * 2);
            memcpy(b, buf, n);
            buf = b;
            cap *= 2;
        }
        buf[n++] = (char)c;
    }
    text_token *t = push(lx, TK_STRING, pos, lx->at);
    t->text = text_strndup(lx->st, buf, n);
}

static int single(int c, text_tok_kind *kind)
{
    switch (c) {
    case '(': *kind = TK_LPAREN; return 1;
    case ')': *kind = TK_RPAREN; return 1;
    case '[': *kind = TK_LBRACK; return 1;
    case ']': *kind = TK_RBRACK; return 1;
    case ',': *kind = TK_COMMA; return 1;
    case ';': *kind = TK_SEMI; return 1;
    case '`': *kind = TK_BACKQUOTE; return 1;
    case '\\': *kind = TK_LAMBDA; return 1;
    default: return 0;
    }
}

static void lex_one(lexer *lx)
{
    int c = peek(lx, 0);
    text_tok_kind kind;
    if (is_name_start(c)) {
        lex_name(lx);
    } else if (is_digit(c)) {
        lex_number(lx);
    } else if (c == '"') {
        lex_string(lx);
    } else if (single(c, &kind)) {
        text_pos pos = here(lx);
        size_t start = lx->at;
        advance(lx, 1);
        push(lx, kind, pos, start);
    } else if (is_symbol(c)) {
        lex_operator(lx);
    } else if (c >= 0x20 && c < 0x7f) {
        text_fail(lx->st, ACC_ERR_PARSE, here(lx), "unexpected character "
                  "'%c'; expected a name, a number, an operator or a "
                  "bracket", c);
    } else {
        text_fail(lx->st, ACC_ERR_PARSE, here(lx), "unexpected byte 0x%02x; "
                  "the text language is ASCII", (unsigned)c);
    }
}

text_token *text_lex(text_state *st, const char *src, size_t len,
                     int prelude, size_t *n_tokens)
{
    lexer lx = {st, src, len, 0, 1, 1, prelude, NULL, 0, 0};
    for (;;) {
        skip_space(&lx);
        if (lx.at >= lx.len)
            break;
        lex_one(&lx);
    }
    push(&lx, TK_EOF, here(&lx), lx.at);
    *n_tokens = lx.n;
    return lx.toks;
}

const char *text_tok_describe(text_state *st, const text_token *t)
{
    switch (t->kind) {
    case TK_EOF: return "end of input";
    case TK_NEWDEF: return "the start of the next definition (a line that "
                           "starts in column 1)";
    case TK_STRING: return "a string literal";
    default: {
        size_t n = strlen(t->text);
        char *d = text_alloc(st, n + 3);
        snprintf(d, n + 3, "'%s'", t->text);
        return d;
    }
    }
}
