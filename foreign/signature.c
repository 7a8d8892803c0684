/*
 * signature.c — the signature grammar of acc_register_c_function
 * (accel.h): ret "(" [param {"," param}] ")", a param being a scalar type
 * name, optionally "const" and then "*".  Errors name the 0-based position
 * and what was expected there.
 */
#include "foreign/cfunc.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

typedef struct sig_lexer {
    const char *text;
    size_t at;
    diag *d;
} sig_lexer;

static void skip_space(sig_lexer *x)
{
    while (x->text[x->at] == ' ' || x->text[x->at] == '\t')
        x->at++;
}

static int fail_at(sig_lexer *x, const char *expected)
{
    char found[24];
    const char *s = x->text + x->at;
    if (!*s)
        snprintf(found, sizeof found, "the end");
    else
        snprintf(found, sizeof found, "'%.12s'", s);
    diag_fail(x->d, ACC_ERR_PARSE, "signature \"%s\", position %zu: expected "
              "%s, found %s", x->text, x->at, expected, found);
    return 0;
}

/* Reads an identifier into word (empty when there is none). */
static void read_word(sig_lexer *x, char *word, size_t size)
{
    size_t n = 0;
    skip_space(x);
    while (isalnum((unsigned char)x->text[x->at + n]) ||
           x->text[x->at + n] == '_')
        n++;
    size_t keep = n < size - 1 ? n : size - 1;
    memcpy(word, x->text + x->at, keep);
    word[keep] = '\0';
}

static int scalar_named(const char *word, acc_scalar *out)
{
    for (int s = ACC_BOOL; s <= ACC_F64; s++)
        if (strcmp(word, acc_scalar_name((acc_scalar)s)) == 0) {
            *out = (acc_scalar)s;
            return 1;
        }
    return 0;
}

static const char scalar_names[] =
    "a scalar type (bool, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64)";

static int expect_char(sig_lexer *x, char c, const char *expected)
{
    skip_space(x);
    if (x->text[x->at] != c)
        return fail_at(x, expected);
    x->at++;
    return 1;
}

static int parse_param(sig_lexer *x, reg_param *p)
{
    char word[16];
    read_word(x, word, sizeof word);
    int is_const = strcmp(word, "const") == 0;
    if (is_const) {
        x->at += strlen(word);
        read_word(x, word, sizeof word);
    }
    if (!scalar_named(word, &p->type))
        return fail_at(x, is_const ? scalar_names
                                   : "a parameter: a scalar type or a "
                                     "pointer to one (f32*)");
    x->at += strlen(word);
    skip_space(x);
    p->pointer = x->text[x->at] == '*';
    if (p->pointer)
        x->at++;
    else if (is_const)
        return fail_at(x, "'*' after a const type");
    return 1;
}

static int parse_return(sig_lexer *x, reg_sig *out)
{
    char word[16];
    read_word(x, word, sizeof word);
    out->ret_void = strcmp(word, "void") == 0;
    if (!out->ret_void && !scalar_named(word, &out->ret))
        return fail_at(x, "the result type: void or a scalar type");
    x->at += strlen(word);
    return 1;
}

static int parse_params(sig_lexer *x, reg_sig *out)
{
    skip_space(x);
    if (x->text[x->at] == ')') {
        x->at++;
        return 1;
    }
    for (;;) {
        if (out->n_params == REG_SIG_MAX_PARAMS)
            return fail_at(x, "at most 32 parameters");
        if (!parse_param(x, &out->params[out->n_params++]))
            return 0;
        skip_space(x);
        if (x->text[x->at] == ')') {
            x->at++;
            return 1;
        }
        if (!expect_char(x, ',', "',' or ')'"))
            return 0;
    }
}

acc_status reg_parse_signature(const char *text, reg_sig *out, diag *d)
{
    sig_lexer x = {text, 0, d};
    memset(out, 0, sizeof *out);
    if (!parse_return(&x, out) || !expect_char(&x, '(', "'('") ||
        !parse_params(&x, out))
        return d->status;
    skip_space(&x);
    if (x.text[x.at])
        fail_at(&x, "the end of the signature");
    return d->status;
}
