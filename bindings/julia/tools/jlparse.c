/*
 * jlparse.c — parses Julia files with tree-sitter-julia and prints every
 * ERROR or MISSING node as FILE:LINE:COLUMN; exit status 1 when there is
 * one, 2 when a file cannot be read.  Built and run by check_syntax.sh
 * (Julia itself is not available where accel is built).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_julia(void);

static int report(TSNode n, const char *path, const char *src)
{
    int bad = 0;
    if (ts_node_is_missing(n) || strcmp(ts_node_type(n), "ERROR") == 0) {
        TSPoint at = ts_node_start_point(n);
        uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
        const char *eol = memchr(src + s, '\n', e - s);
        if (eol)
            e = (uint32_t)(eol - src);
        printf("%s:%u:%u: %s: %.*s\n", path, at.row + 1, at.column + 1,
               ts_node_is_missing(n) ? "missing" : "syntax error",
               (int)(e - s), src + s);
        bad = 1;
    }
    if (!ts_node_has_error(n))
        return bad;
    for (uint32_t i = 0; i < ts_node_child_count(n); i++)
        bad |= report(ts_node_child(n, i), path, src);
    return bad;
}

static char *slurp(const char *path, long *size)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0 && (*size = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)*size + 1)) &&
        fread(buf, 1, (size_t)*size, f) == (size_t)*size)
        buf[*size] = '\0';
    else {
        free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    int status = 0;
    TSParser *parser = ts_parser_new();
    if (!ts_parser_set_language(parser, tree_sitter_julia())) {
        fprintf(stderr, "jlparse: the grammar's ABI does not fit libtree-sitter\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        long size = 0;
        char *src = slurp(argv[i], &size);
        if (!src) {
            perror(argv[i]);
            status = 2;
            continue;
        }
        TSTree *tree = ts_parser_parse_string(parser, NULL, src, (uint32_t)size);
        if (report(ts_tree_root_node(tree), argv[i], src) && status == 0)
            status = 1;
        ts_tree_delete(tree);
        free(src);
    }
    ts_parser_delete(parser);
    return status;
}
