/*
 * test_old_header.c — callers compiled against another version of accel.h
 * (docs/ABI.md, "Versioning").
 *
 * An older header declares smaller option structs: the first published
 * acc_context_options ends after cache_dir, acc_exec_options after async.
 * Such a caller is simulated by its own truncated struct, allocated with
 * exactly its size on the heap (the ASan build reports any byte the
 * library reads or writes past it) and followed, in a second copy, by a
 * canary the plain build checks.  The library must initialise, read and
 * honour only what the caller has.  A newer header (a larger struct) is
 * simulated the same way: the bytes this library does not know are
 * zeroed and ignored.
 */
#include <criterion/criterion.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"
#include "support.h"

/* accel.h as first published. */
typedef struct old_context_options {
    size_t struct_size;
    acc_backend backend;
    int32_t num_threads;
    const char *cache_dir;
} old_context_options;

typedef struct old_exec_options {
    size_t struct_size;
    void *stream;
    int32_t async;
} old_exec_options;

/* A header newer than the library: fields it does not know appended. */
typedef struct new_context_options {
    acc_context_options known;
    uint64_t unknown[4];
} new_context_options;

#define CANARY_WORDS 8
#define CANARY 0x5aa5c33cf00fe11eull

typedef struct guarded_context_options {
    old_context_options o;
    uint64_t canary[CANARY_WORDS];
} guarded_context_options;

typedef struct guarded_exec_options {
    old_exec_options o;
    uint64_t canary[CANARY_WORDS];
} guarded_exec_options;

static void set_canary(uint64_t *c)
{
    for (size_t i = 0; i < CANARY_WORDS; i++)
        c[i] = CANARY;
}

static void expect_canary(const uint64_t *c, const char *after)
{
    for (size_t i = 0; i < CANARY_WORDS; i++)
        cr_expect_eq(c[i], CANARY, "word %zu after the %s was written", i,
                     after);
}

static acc_backend backend_of(acc_context *ctx)
{
    acc_backend b = ACC_BACKEND_AUTO;
    cr_assert_eq(acc_context_backend(ctx, &b), ACC_OK);
    return b;
}

/* A program that runs on whatever context is given: xs + 1. */
static acc_program *increment(acc_context *ctx)
{
    static const char src[] =
        "inc (xs : Vector i64) : Vector i64 = map (\\x -> x + 1) xs";
    acc_program *p = NULL;
    cr_assert_eq(acc_compile_text(ctx, src, strlen(src), NULL, &p), ACC_OK,
                 "%s", acc_last_error());
    return p;
}

static void expect_increment_runs(acc_program *p, acc_exec *x)
{
    int64_t xs[5] = {1, 2, 3, 4, 5}, n = 5;
    acc_array *in = malloc(sizeof *in), *out = malloc(sizeof *out);
    cr_assert(in && out);
    cr_assert_eq(acc_array_init(in, ts_sc(ACC_I64), 1, &n), ACC_OK);
    in->data[0] = xs;
    cr_assert_eq(acc_array_init(out, ts_sc(ACC_I64), 0, NULL), ACC_OK);
    acc_status st = x ? acc_run_exec(x, p, 1, in, 1, out)
                      : acc_run(p, 1, in, 1, out);
    cr_assert_eq(st, ACC_OK, "%s", acc_last_error());
    if (x)
        cr_assert_eq(acc_exec_wait(x), ACC_OK, "%s", acc_last_error());
    cr_assert_eq(out->rank, 1);
    cr_assert_eq(out->extents[0], n);
    for (int64_t i = 0; i < n; i++)
        cr_expect_eq(((const int64_t *)out->data[0])[i], xs[i] + 1);
    acc_array_release(out);
    free(in);
    free(out);
}

/* ---- acc_context_options ------------------------------------------------ */

/* An old caller's options, allocated with exactly their size, garbage
 * first, then initialised by the sized call or (legacy) by the plain
 * symbol, which old binaries call; the first published defaults are
 * checked. */
static old_context_options *old_options(int legacy)
{
    old_context_options *o = malloc(sizeof *o);
    cr_assert_not_null(o);
    memset(o, 0xAB, sizeof *o);
    if (legacy)
        (acc_context_options_init)((acc_context_options *)o); /* no macro */
    else
        cr_assert_eq(acc_context_options_init_sized((acc_context_options *)o,
                                                    sizeof *o),
                     ACC_OK, "%s", acc_last_error());
    cr_expect_eq(o->struct_size, sizeof *o);
    cr_expect_eq(o->backend, ACC_BACKEND_AUTO);
    cr_expect_eq(o->num_threads, 0);
    cr_expect_null(o->cache_dir);
    return o;
}

/* The old caller asks for the interpreter: the field is read, and the
 * fields appended later (not there) take their defaults. */
static void expect_interp_context(old_context_options *o, int run)
{
    acc_context *ctx = NULL;
    o->backend = ACC_BACKEND_INTERP;
    cr_assert_eq(acc_context_create((acc_context_options *)o, &ctx), ACC_OK,
                 "%s", acc_last_error());
    cr_expect_eq(backend_of(ctx), ACC_BACKEND_INTERP, "the old field is read");
    if (run) {
        acc_program *p = increment(ctx);
        expect_increment_runs(p, NULL);
        acc_program_free(p);
    }
    acc_context_destroy(ctx);
    free(o);
}

Test(old_header, sized_init_fills_only_the_old_struct)
{
    free(old_options(0));
    guarded_context_options g;
    set_canary(g.canary);
    cr_assert_eq(acc_context_options_init_sized((acc_context_options *)&g.o,
                                                sizeof g.o),
                 ACC_OK);
    expect_canary(g.canary, "old acc_context_options");
}

/* acc_context_create reads only the fields within struct_size. */
Test(old_header, create_reads_only_the_old_struct)
{
    expect_interp_context(old_options(0), 1);

    /* Read as the later fields, the canary would be refused: its low
     * halves make fusion_duplicate_max_ops and cuda_device negative and
     * strict neither 0 nor 1. */
    guarded_context_options g;
    acc_context *ctx = NULL;
    set_canary(g.canary);
    cr_assert_eq(acc_context_options_init_sized((acc_context_options *)&g.o,
                                                sizeof g.o),
                 ACC_OK);
    g.o.backend = ACC_BACKEND_INTERP;
    cr_assert_eq(acc_context_create((acc_context_options *)&g.o, &ctx), ACC_OK,
                 "a field past struct_size was read: %s", acc_last_error());
    expect_canary(g.canary, "acc_context_create");
    acc_context_destroy(ctx);
}

/* The symbol old binaries call cannot know their size: it initialises the
 * first published fields, and nothing after them. */
Test(old_header, the_legacy_symbol_writes_the_first_published_fields)
{
    expect_interp_context(old_options(1), 0);
    guarded_context_options g;
    set_canary(g.canary);
    (acc_context_options_init)((acc_context_options *)&g.o);
    expect_canary(g.canary, "legacy acc_context_options_init");
}

/* What the macro of this header passes: the whole struct of this header. */
Test(old_header, the_macro_passes_this_headers_size)
{
    acc_context_options o;
    memset(&o, 0xAB, sizeof o);
    acc_context_options_init(&o);
    cr_expect_eq(o.struct_size, sizeof o);
    cr_expect_eq(o.strict, 0, "the last field is initialised");
    cr_expect_null(o.mpi_comm);
    acc_context_options_init(NULL); /* still accepted, does nothing */
}

Test(old_header, a_newer_header_gets_its_unknown_fields_zeroed)
{
    new_context_options *o = malloc(sizeof *o);
    cr_assert_not_null(o);
    memset(o, 0xAB, sizeof *o);
    cr_assert_eq(acc_context_options_init_sized(&o->known, sizeof *o), ACC_OK);
    cr_expect_eq(o->known.struct_size, sizeof *o);
    for (size_t i = 0; i < 4; i++)
        cr_expect_eq(o->unknown[i], 0, "unknown word %zu", i);
    o->known.backend = ACC_BACKEND_INTERP;
    o->unknown[0] = 7; /* meaningless to this library: ignored */
    acc_context *ctx = NULL;
    cr_assert_eq(acc_context_create(&o->known, &ctx), ACC_OK, "%s",
                 acc_last_error());
    acc_context_destroy(ctx);
    free(o);
}

Test(old_header, a_size_below_the_first_struct_is_refused_unwritten)
{
    unsigned char bytes[sizeof(old_context_options)];
    memset(bytes, 0xAB, sizeof bytes);
    cr_assert_eq(acc_context_options_init_sized((acc_context_options *)bytes,
                                                sizeof bytes - 1),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_last_error(), "acc_context_options_init_sized: size "
                                       "is 23, expected at least 24"),
              "%s", acc_last_error());
    for (size_t i = 0; i < sizeof bytes; i++)
        cr_expect_eq(bytes[i], 0xAB, "byte %zu written", i);
    cr_assert_eq(acc_context_options_init_sized(NULL, sizeof bytes),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_last_error(), "NULL"), "%s", acc_last_error());
}

/* ---- acc_exec_options --------------------------------------------------- */

Test(old_header, exec_options_of_the_old_header)
{
    acc_context *ctx = ts_context_without_plugins(ACC_BACKEND_INTERP);
    acc_program *p = increment(ctx);

    old_exec_options *o = malloc(sizeof *o);
    cr_assert_not_null(o);
    memset(o, 0xAB, sizeof *o);
    cr_assert_eq(acc_exec_options_init_sized((acc_exec_options *)o, sizeof *o),
                 ACC_OK, "%s", acc_last_error());
    cr_expect_eq(o->struct_size, sizeof *o);
    cr_expect_null(o->stream);
    cr_expect_eq(o->async, 0);
    acc_exec *x = NULL;
    cr_assert_eq(acc_exec_create(ctx, (acc_exec_options *)o, &x), ACC_OK,
                 "%s", acc_last_error());
    expect_increment_runs(p, x);
    acc_exec_destroy(x);

    /* the legacy symbol: the first published fields only */
    memset(o, 0xAB, sizeof *o);
    (acc_exec_options_init)((acc_exec_options *)o);
    cr_expect_eq(o->struct_size, offsetof(old_exec_options, async) +
                                     sizeof(int32_t));
    cr_expect_null(o->stream);
    cr_expect_eq(o->async, 0);
    cr_assert_eq(acc_exec_create(ctx, (acc_exec_options *)o, &x), ACC_OK,
                 "%s", acc_last_error());
    acc_exec_destroy(x);
    free(o);

    guarded_exec_options g;
    set_canary(g.canary);
    cr_assert_eq(acc_exec_options_init_sized((acc_exec_options *)&g.o,
                                             sizeof g.o),
                 ACC_OK);
    expect_canary(g.canary, "old acc_exec_options");
    (acc_exec_options_init)((acc_exec_options *)&g.o);
    expect_canary(g.canary, "legacy acc_exec_options_init");
    /* a negative deadline_seconds past the struct would be refused */
    memcpy(g.canary, &(double){-1.0}, sizeof(double));
    cr_assert_eq(acc_exec_create(ctx, (acc_exec_options *)&g.o, &x), ACC_OK,
                 "deadline_seconds read past struct_size: %s",
                 acc_last_error());
    acc_exec_destroy(x);

    cr_assert_eq(acc_exec_options_init_sized((acc_exec_options *)&g.o,
                                             offsetof(old_exec_options, async)),
                 ACC_ERR_INVALID_ARGUMENT);
    acc_program_free(p);
    acc_context_destroy(ctx);
}

/* ---- acc_array ----------------------------------------------------------- */

/* acc_array has never grown: the first published descriptor is the whole
 * struct, and nothing is written past it. */
Test(old_header, array_init_sized_writes_no_more_than_it_is_given)
{
    struct {
        acc_array a;
        uint64_t canary[CANARY_WORDS];
    } g;
    int64_t n = 3;
    set_canary(g.canary);
    cr_assert_eq(acc_array_init_sized(&g.a, sizeof g.a, ts_sc(ACC_F32), 1, &n),
                 ACC_OK);
    expect_canary(g.canary, "acc_array");
    cr_expect_eq(g.a.struct_size, sizeof g.a);
    cr_assert_eq((acc_array_init)(&g.a, ts_sc(ACC_F32), 1, &n), ACC_OK);
    expect_canary(g.canary, "legacy acc_array_init");
    cr_expect_eq(g.a.struct_size, sizeof g.a);

    unsigned char bytes[sizeof(acc_array)];
    memset(bytes, 0xAB, sizeof bytes);
    cr_assert_eq(acc_array_init_sized((acc_array *)bytes, sizeof bytes - 8,
                                      ts_sc(ACC_F32), 1, &n),
                 ACC_ERR_INVALID_ARGUMENT);
    for (size_t i = 0; i < sizeof bytes; i++)
        cr_expect_eq(bytes[i], 0xAB, "byte %zu written", i);
    cr_assert_eq(acc_array_init_sized(&g.a, sizeof g.a, ts_sc(ACC_F32), 1,
                                      &(int64_t){-2}),
                 ACC_ERR_INVALID_ARGUMENT);
    cr_expect(strstr(acc_last_error(), "extent 0 is -2"), "%s",
              acc_last_error());
}
