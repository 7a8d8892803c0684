/*
 * test_signatures.c — signatures as data (accel.h:
 * acc_program_signature_json, acc_parse_entries_json): every input and
 * output with its name (from the text program), element type as a tree
 * of scalars, rank and leaves, in acc_run's order.  The JSON is checked against the program's own
 * signature (acc_program_input/output, acc_type_*), walked here, and the
 * entries' JSON against each entry compiled.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "support.h"

static const char source[] =
    "dotp (xs : Vector f32) (ys : Vector f32) : Scalar f32 =\n"
    "  fold (+) 0 (zipWith (*) xs ys)\n"
    "\n"
    "-- a tuple pattern, a scalar, a tuple of arrays, nested tuples\n"
    "mixed ((a, b) : (Vector f32, Matrix i32)) (n : i64)\n"
    "      (zs : (Vector f64, Vector (i8, (bool, u16)))) =\n"
    "  (map (\\x -> x * 2) a, zs, unit n)\n"
    "\n"
    "helper x = x + 1\n";

/* ---- the expected JSON, from the public type API ------------------------ */

typedef struct text {
    char buf[8192];
    size_t n;
} text;

static void put(text *t, const char *s)
{
    size_t k = strlen(s);
    cr_assert_lt(t->n + k, sizeof t->buf);
    memcpy(t->buf + t->n, s, k + 1);
    t->n += k;
}

static void put_elem(text *t, const acc_type *e)
{
    char num[32];
    switch (acc_type_get_kind(e)) {
    case ACC_TYPE_SCALAR:
        put(t, "\"");
        put(t, acc_scalar_name(acc_type_get_scalar(e)));
        put(t, "\"");
        return;
    case ACC_TYPE_SHAPE:
        snprintf(num, sizeof num, "{\"shape\":%d}", (int)acc_type_get_rank(e));
        put(t, num);
        return;
    default:
        put(t, "[");
        for (size_t i = 0; i < acc_type_get_arity(e); i++) {
            put(t, i ? "," : "");
            put_elem(t, acc_type_get_field(e, i));
        }
        put(t, "]");
    }
}

static void put_item(text *t, const char *name, const acc_type *elem,
                     int32_t rank)
{
    char num[32];
    put(t, "{\"name\":");
    if (name) {
        put(t, "\"");
        put(t, name);
        put(t, "\"");
    } else {
        put(t, "null");
    }
    put(t, ",\"elem\":");
    put_elem(t, elem);
    snprintf(num, sizeof num, ",\"rank\":%d,\"leaves\":[", (int)rank);
    put(t, num);
    size_t n = acc_type_get_kind(elem) == ACC_TYPE_SCALAR
                   ? 1 : acc_type_leaf_count(elem);
    for (size_t i = 0; i < n; i++) {
        put(t, i ? ",\"" : "\"");
        put(t, acc_scalar_name(acc_type_get_kind(elem) == ACC_TYPE_SCALAR
                                   ? acc_type_get_scalar(elem)
                                   : acc_type_leaf(elem, i)));
        put(t, "\"");
    }
    put(t, "]}");
}

/* The inputs and outputs of p as acc_program_signature_json writes them,
 * with the given input names. */
static void expected(const acc_program *p, const char *const *names,
                     text *t)
{
    t->n = 0;
    t->buf[0] = '\0';
    put(t, "{\"inputs\":[");
    for (size_t i = 0; i < acc_program_num_inputs(p); i++) {
        const acc_type *e = NULL;
        int32_t r = 0;
        cr_assert_eq(acc_program_input(p, i, &e, &r), ACC_OK);
        put(t, i ? "," : "");
        put_item(t, names ? names[i] : NULL, e, r);
    }
    put(t, "],\"outputs\":[");
    for (size_t i = 0; i < acc_program_num_outputs(p); i++) {
        const acc_type *e = NULL;
        int32_t r = 0;
        cr_assert_eq(acc_program_output(p, i, &e, &r), ACC_OK);
        put(t, i ? "," : "");
        put_item(t, NULL, e, r);
    }
    put(t, "]}");
}

static acc_context *ctx;

static void setup(void)
{
    ctx = ts_context(ACC_BACKEND_INTERP);
}

static void teardown(void)
{
    acc_context_destroy(ctx);
}

TestSuite(signatures, .init = setup, .fini = teardown);

static acc_program *compile(const char *entry)
{
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, source, (size_t)-1, entry, &p), ACC_OK,
                 "%s", acc_last_error());
    return p;
}

static char *signature(const acc_program *p)
{
    char *json = NULL;
    cr_assert_eq(acc_program_signature_json(p, &json), ACC_OK, "%s",
                 acc_last_error());
    return json;
}

/* ---- tests -------------------------------------------------------------- */

Test(signatures, a_text_program_names_its_inputs)
{
    static const char *const dotp[] = {"xs", "ys"};
    static const char *const mixed[] = {"a", "b", "n", "zs.0", "zs.1"};
    text want;
    acc_program *p = compile("dotp");
    char *json = signature(p);
    expected(p, dotp, &want);
    cr_assert_str_eq(json, want.buf);
    cr_assert_str_eq(json, "{\"inputs\":[{\"name\":\"xs\",\"elem\":\"f32\","
                     "\"rank\":1,\"leaves\":[\"f32\"]},{\"name\":\"ys\","
                     "\"elem\":\"f32\",\"rank\":1,\"leaves\":[\"f32\"]}],"
                     "\"outputs\":[{\"name\":null,\"elem\":\"f32\",\"rank\":0,"
                     "\"leaves\":[\"f32\"]}]}");
    acc_free(json);
    acc_program_free(p);

    p = compile("mixed");
    json = signature(p);
    expected(p, mixed, &want);
    cr_assert_str_eq(json, want.buf);
    cr_assert(strstr(json, "{\"name\":\"zs.1\",\"elem\":[\"i8\",[\"bool\","
                           "\"u16\"]],\"rank\":1,\"leaves\":[\"i8\",\"bool\","
                           "\"u16\"]}"), "%s", json);
    cr_assert_eq(acc_program_num_outputs(p), 4, "a tuple result is one output "
                 "per array");
    acc_free(json);
    acc_program_free(p);
}

Test(signatures, a_built_program_has_unnamed_inputs_and_shapes)
{
    acc_graph *g = ts_graph(ctx);
    const acc_type *fields[2] = {acc_type_shape(2), acc_type_scalar(ACC_F64)};
    const acc_type *pair = acc_type_tuple(ctx, 2, fields);
    acc_node *xs = acc_input(g, pair, 3);
    acc_program *p = ts_compile(ctx, g, xs); /* the input, returned */
    char *json = signature(p);
    text want;
    expected(p, NULL, &want);
    cr_assert_str_eq(json, want.buf);
    cr_assert(strstr(json, "{\"name\":null,\"elem\":[{\"shape\":2},\"f64\"],"
                           "\"rank\":3,\"leaves\":[\"i64\",\"i64\",\"f64\"]}"),
              "%s", json);
    acc_free(json);
    acc_program_free(p);
    acc_graph_free(g);
}

Test(signatures, the_entries_of_a_text_program_without_compiling)
{
    char *json = NULL;
    cr_assert_eq(acc_parse_entries_json(source, (size_t)-1, &json), ACC_OK,
                 "%s", acc_last_error());
    /* each entry's part is the signature of that entry compiled */
    text want;
    want.n = 0;
    put(&want, "{\"entries\":[");
    const char *entries[2] = {"dotp", "mixed"};
    for (int i = 0; i < 2; i++) {
        acc_program *p = compile(entries[i]);
        char *sig = signature(p);
        put(&want, i ? ",{\"name\":\"" : "{\"name\":\"");
        put(&want, entries[i]);
        put(&want, "\",");
        put(&want, sig + 1); /* without its '{' */
        acc_free(sig);
        acc_program_free(p);
    }
    put(&want, "]}");
    cr_assert_str_eq(json, want.buf);
    cr_assert_null(strstr(json, "helper"), "a helper is not an entry");
    acc_free(json);

    cr_assert_eq(acc_parse_entries_json("", 0, &json), ACC_OK);
    cr_assert_str_eq(json, "{\"entries\":[]}");
    acc_free(json);
}

Test(signatures, errors)
{
    char *json = (char *)1;
    cr_assert_eq(acc_parse_entries_json("f (xs : Vector f32) = map not xs\n",
                                        (size_t)-1, &json),
                 ACC_ERR_TYPE);
    cr_assert_null(json);
    cr_assert(strstr(acc_last_error(), "1:"), "%s", acc_last_error());
    cr_assert_eq(acc_parse_entries_json("f (xs : Vector f32 = xs", (size_t)-1,
                                        &json),
                 ACC_ERR_PARSE);
    cr_assert_eq(acc_parse_entries_json(NULL, 0, &json),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_parse_entries_json(source, (size_t)-1, NULL),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_eq(acc_program_signature_json(NULL, &json),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert_null(json);
    acc_program *p = compile("dotp");
    cr_assert_eq(acc_program_signature_json(p, NULL),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_assert(strstr(acc_program_last_error(p), "json is NULL"));
    acc_program_free(p);
}
