/*
 * test_fused_reads.c — a read `ys ! ix` or `ys !! k` of a producer that
 * fusion inlines keeps its bounds check (docs/FUSION.md), in the lambdas
 * of every consumer.
 *
 * For each consumer, one program reads eight producers (map, zipWith,
 * generate, backpermute, replicate, slice, a chain of producers, a 2-D
 * generate), each with `!` at an index shifted by its own parameter and
 * with `!!` at a position shifted by another.  It runs with every shift 0
 * (in range), then with one shift at a time just out (the index equals the
 * extent), far out and negative.  The reference is the unfused
 * interpreter (ACC_DISABLE=fusion), where every producer is an array and
 * every read is checked: the backend under test (the fused interpreter
 * here; the CPU and CUDA backends in the .cpu and .cuda runs of this
 * suite) must give the same outputs, or the same status and message.
 * The fused programs must keep every producer inlined (no intermediate
 * array), so the reads tested are those fusion rewrites.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "reference_support.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 6, PRODUCERS = 8, SHIFTS = 2 * PRODUCERS, INPUTS = 1 + SHIFTS };

/* The producers, over the vector @B of n elements; each is defined twice
 * (@Y: y for the `!` reads, z for the `!!` ones), so that every one has a
 * single use and is inlined. */
static const char producers[] =
    "      @Y0 = map (\\x -> x * 3 + 1) @B;\n"
    "      @Y1 = zipWith (\\a b -> a * 10 + b) @B (generate [n + 2] (\\[i] -> i));\n"
    "      @Y2 = generate [n + 1] (\\[i] -> i * i);\n"
    "      @Y3 = backpermute [n + 1] (\\[i] -> [n - 1 - rem i n]) @B;\n"
    "      @Y4 = replicate [2, All] @B;\n"
    "      @Y5 = slice (generate [3, n + 3] (\\[r, c] -> r * 100 + c)) [2, All];\n"
    "      @Y6 = map (\\x -> x - 1)\n"
    "               (backpermute (shape @B) (\\[i] -> [i]) (zipWith (*) @B @B));\n"
    "      @Y7 = generate [n + 2, 3] (\\[r, c] -> r * 10 + c)";

/* The extent a read of producer j goes out of: by `!` (the dimension the
 * shifted index runs along), by `!!` (the size). */
static const int64_t read_extent[2][PRODUCERS] = {
    {N, N, N + 1, N + 1, N, N + 3, N, N + 2},
    {N, N, N + 1, N + 1, 2 * N, N + 3, N, 3 * (N + 2)}};

/* One consumer: its text, where @P stands for the producers' lets (over
 * `base`) and @R for the sum of the sixteen reads at index expression
 * `e`, which takes values 0 .. e_max.  `intermediates`: the arrays its
 * fused program stores that are neither inputs nor outputs (none of them
 * a producer, unless it is used in a loop, where fusion leaves it an
 * array). */
typedef struct consumer {
    const char *name, *result, *text, *base, *e;
    int64_t e_max;
    size_t intermediates;
} consumer;

/* The sum of the reads at index e: y_j ! [e + k_j] and z_j !! (e + k_(8+j)). */
static void reads(char *b, size_t size, const char *e)
{
    static const char *const ix[PRODUCERS] = {
        "[%s + k0]", "[%s + k1]", "[%s + k2]", "[%s + k3]", "[1, %s + k4]",
        "[%s + k5]", "[%s + k6]", "[%s + k7, 2]"};
    size_t at = (size_t)snprintf(b, size, "(0");
    for (int j = 0; j < PRODUCERS && at < size; j++) {
        at += (size_t)snprintf(b + at, size - at, " + y%d ! ", j);
        at += (size_t)snprintf(b + at, size - at, ix[j], e);
    }
    for (int j = 0; j < PRODUCERS && at < size; j++)
        at += (size_t)snprintf(b + at, size - at, " + z%d !! (%s + k%d)", j,
                               e, PRODUCERS + j);
    cr_assert(at + 2 < size);
    snprintf(b + at, size - at, ")");
}

/* Replaces every `what` in *text by `with` (a new string; the old one is
 * freed). */
static char *substitute(char *text, const char *what, const char *with)
{
    size_t n = 0, lw = strlen(what), lr = strlen(with);
    for (const char *t = strstr(text, what); t; t = strstr(t + lw, what))
        n++;
    char *out = malloc(strlen(text) + n * lr + 1), *o = out;
    cr_assert_not_null(out);
    const char *t = text;
    for (const char *h = strstr(t, what); h; h = strstr(t, what)) {
        memcpy(o, t, (size_t)(h - t));
        o += h - t;
        memcpy(o, with, lr);
        o += lr;
        t = h + lw;
    }
    strcpy(o, t);
    free(text);
    return out;
}

static char *copy(const char *s)
{
    char *c = malloc(strlen(s) + 1);
    cr_assert_not_null(c);
    return strcpy(c, s);
}

/* The lets of the producers, y0..y7 then z0..z7, ending with `in`. */
static char *producer_lets(void)
{
    char *y = substitute(copy(producers), "@Y", "y");
    char *z = substitute(copy(producers), "@Y", "z");
    char *text = malloc(strlen(y) + strlen(z) + 64);
    cr_assert_not_null(text);
    sprintf(text, "let n = size @B;\n%s;\n%s\n  in ", y, z);
    free(y);
    free(z);
    return text;
}

/* The program of consumer c, entry `f`. */
static char *program_of(const consumer *c)
{
    char head[512], r[2048];
    size_t at = (size_t)snprintf(head, sizeof head, "f (xs : Vector i64)");
    for (int j = 0; j < SHIFTS; j++)
        at += (size_t)snprintf(head + at, sizeof head - at, " (k%d : i64)", j);
    snprintf(head + at, sizeof head - at, " : %s =\n  ", c->result);
    reads(r, sizeof r, c->e);
    char *text = malloc(strlen(head) + strlen(c->text) + 1);
    cr_assert_not_null(text);
    strcpy(text, head);
    strcat(text, c->text);
    char *lets = producer_lets();
    text = substitute(text, "@R", r);
    text = substitute(text, "@P", lets);
    free(lets);
    return substitute(text, "@B", c->base);
}

/* The fused program keeps every producer inlined (the plan's
 * intermediates are the consumer's own), and a compiling backend compiles
 * every step. */
static void expect_fused(const acc_program *p, const consumer *c)
{
    acc_plan_summary s;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    cr_assert_eq(acc_program_plan(p, &s), ACC_OK);
    char *json = NULL;
    cr_assert_eq(acc_program_explain(p, 1, &json), ACC_OK);
    cr_expect_eq(s.intermediates, c->intermediates, "%s: %s", c->name, json);
    acc_free(json);
    ts_ref_expect_compiled(p);
}

/* The backend under test agrees with the reference on shifts k; `fails`:
 * what the reference's message must contain (NULL: the run succeeds). */
static void agree(acc_program *ref, acc_program *p, const consumer *c,
                  const int64_t *k, const char *fails)
{
    static const int64_t xs[N] = {3, 5, 7, 9, 11, 13};
    int64_t n = N;
    acc_array in[INPUTS];
    char what[512];
    size_t at = (size_t)snprintf(what, sizeof what, "%s, shifts", c->name);
    in[0] = ts_host(ACC_I64, 1, &n, (void *)xs);
    for (int j = 0; j < SHIFTS; j++) {
        in[1 + j] = ts_host(ACC_I64, 0, NULL, (void *)&k[j]);
        at += (size_t)snprintf(what + at, sizeof what - at, " %lld",
                               (long long)k[j]);
    }
    ts_ref_agree(ref, p, INPUTS, in, 0, fails, what);
}

/* In range, then each shift just out, far out and negative. */
static void check_consumer(const consumer *c)
{
    char *src = program_of(c);
    acc_program *ref = ts_ref_compile_text(src, "f", TS_REF_UNFUSED);
    acc_program *p = ts_ref_compile_text(src, "f", TS_UNDER_TEST);
    expect_fused(p, c);
    int64_t k[SHIFTS] = {0};
    agree(ref, p, c, k, NULL);
    for (int j = 0; j < SHIFTS; j++) {
        int linear = j >= PRODUCERS;
        const int64_t out[3] = {
            read_extent[linear][j % PRODUCERS] - c->e_max, 100000, -1};
        for (int v = 0; v < 3; v++) {
            k[j] = out[v];
            agree(ref, p, c, k, linear ? "linear read (!!): position "
                                       : "read (!): index ");
        }
        k[j] = 0;
    }
    acc_program_free(ref);
    acc_program_free(p);
    free(src);
}

#define CONSUMER_I(id, result, text, base, e, e_max, intermediates)          \
    Test(fused_reads, id)                                                    \
    {                                                                        \
        const consumer c = {#id, result, text, base, e, e_max, intermediates};\
        check_consumer(&c);                                                  \
    }
#define CONSUMER(id, result, text, base, e, e_max)                           \
    CONSUMER_I(id, result, text, base, e, e_max, 0)

/* clang-format off */
CONSUMER(generate, "Vector i64",
         "@P generate [n] (\\[i] -> @R)", "xs", "i", N - 1)
CONSUMER(fold_function, "Scalar i64",
         "@P fold (\\a b -> a + b + @R) 0 xs", "xs", "0", 0)
CONSUMER(fold_element, "Scalar i64",
         "@P fold (+) 0 (generate [n] (\\[i] -> @R))", "xs", "i", N - 1)
CONSUMER(fold1_element, "Scalar i64",
         "@P fold1 max (generate [n] (\\[i] -> @R))", "xs", "i", N - 1)
CONSUMER(fold_seg_element, "Vector i64",
         "@P foldSeg (+) 0 (generate [n] (\\[i] -> @R)) (fill [2] 2)", "xs",
         "i", N - 1)
CONSUMER(scan_function, "Vector i64",
         "@P scanl (\\a b -> a + b + @R) 0 xs", "xs", "0", 0)
CONSUMER(scan_element, "Vector i64",
         "@P scanr1 (+) (generate [n] (\\[i] -> @R))", "xs", "i", N - 1)
CONSUMER(scan_seg_element, "Vector i64",
         "@P scanl1Seg (+) (generate [n] (\\[i] -> @R)) (fill [2] 2)", "xs",
         "i", N - 1)
CONSUMER(permute_index, "Vector i64",
         "@P permute (+) (fill [n] 0) (\\[i] -> [rem @R n]) xs", "xs", "i",
         N - 1)
CONSUMER(permute_values, "Vector i64",
         "@P permute (+) (fill [n] 0) (\\[i] -> [i]) (generate [n] (\\[i] -> @R))",
         "xs", "i", N - 1)
CONSUMER(permute_defaults, "Vector i64",
         "@P permute (+) (generate [n] (\\[i] -> @R)) (\\[i] -> [i]) xs", "xs",
         "i", N - 1)
CONSUMER(permute_function, "Vector i64",
         "@P permute (\\a b -> a + b + @R) (fill [n] 0) (\\[i] -> [rem i 3]) xs",
         "xs", "0", 0)
CONSUMER(permute_pairs, "Vector i64",
         "@P permute' (+) (fill [n] 0) (generate [n] (\\[i] -> ([i], @R)))",
         "xs", "i", N - 1)
CONSUMER(stencil_function, "Vector i64",
         "@P stencil (\\(a, b, c) -> a + b + c + @R) clamp xs", "xs", "0", 0)
CONSUMER(stencil_element, "Vector i64",
         "@P stencil (\\(a, b, c) -> a + c) clamp (generate [n] (\\[i] -> @R))",
         "xs", "i", N - 1)
CONSUMER(stencil_boundary, "Vector i64",
         "@P stencil (\\(a, b, c) -> a + b + c) (function (\\[i] -> @R)) xs",
         "xs", "0", 0)
/* f uses no neighbour of the producer (the interpreter computes it all) */
CONSUMER(stencil_unused_side, "Vector i64",
         "@P stencil2 (\\(a, b, c) (d, e, f) -> b) clamp xs\n"
         "     clamp (generate [n] (\\[i] -> @R))", "xs", "i", N - 1)
/* f uses only the focus: the interpreter still applies g to the
 * neighbours out of range */
CONSUMER(stencil_boundary_unused, "Vector i64",
         "@P stencil (\\(a, b, c) -> b) (function (\\[i] -> @R)) xs", "xs",
         "0", 0)
CONSUMER(stencil_2d_boundary_unused, "Matrix i64",
         "@P stencil (\\((a, b, c), (d, e, f), (g, h, i)) -> e)\n"
         "     (function (\\[r, c] -> @R))\n"
         "     (generate [3, n] (\\[r, c] -> r * 10 + c))", "xs", "0", 0)
CONSUMER(generate_2d, "Matrix i64",
         "@P generate [n, 3] (\\[i, j] -> j + @R)", "xs", "i", N - 1)
CONSUMER(expand_get, "Vector i64",
         "@P expand (\\x -> 2) (\\x j -> x + @R) xs", "xs", "j", 1)
CONSUMER(expand_size, "Vector i64",
         "@P expand (\\x -> 1 + rem @R 2) (\\x j -> x + j) xs", "xs", "0", 0)
CONSUMER(permute_expand, "Vector i64",
         "@P permute' (+) (fill [n] 0)\n"
         "     (expand (\\x -> 2) (\\x j -> ([rem x n], @R)) xs)", "xs", "j", 1)
/* the loop's condition (a fold, a unit) and body (one generate) */
CONSUMER_I(awhile_body, "Vector i64",
           "awhile (\\s -> unit (the (fold (+) 0 s) < 400))\n"
           "    (\\s -> @P generate (shape s) (\\[i] -> s ! [i] + 1 + rem @R 2)) xs",
           "s", "i", N - 1, 3)
CONSUMER(while_init, "Vector i64",
         "@P generate [n] (\\[i] -> while (\\j -> j < 100) (\\j -> j * 2 + 1)\n"
         "                                 (rem @R 7))", "xs", "i", N - 1)
/* the sixteen producers stay arrays: reads of manifest arrays */
CONSUMER_I(while_body, "Vector i64",
           "@P generate [n] (\\[i] -> while (\\j -> j < 100)\n"
           "                                 (\\j -> j * 2 + 1 + rem @R 2) i)",
           "xs", "i", N - 1, 16)
/* clang-format on */
