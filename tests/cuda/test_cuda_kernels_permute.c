/*
 * test_cuda_kernels_permute.c — the CUDA kernels of permute, permute' and
 * expand, without a device (kernels_support.h: each step generated and
 * compiled by NVRTC): every combining path (fetch-and-op, compare-and-swap,
 * locks), targets, sources and defaults, maps after a permute, the sieve
 * (one kernel over the expansion), expand alone, and the host's choices
 * of expansion and privatisation.
 */
#include <criterion/criterion.h>

#include "accel.h"
#include "kernels_support.h"
#include "text_sources.h"

#include <stdint.h>
#include <string.h>

TestSuite(cuda_kernels, .init = kernels_setup, .fini = kernels_teardown);

/* ---- permute, permute' and expand ---------------------------------------- */

/* The permute or expand kernel of `entry` (the only step with a
 * skeleton): its kind and configuration (names[i] is values[i]); then
 * every step of the program compiled. */
static counts check_permute(const char *entry, cg_kind kind,
                            const char *const names[3], const int values[3])
{
    cg_kernel k;
    acc_program *p = only_kernel_of(ts_permute_source(), entry, &k);
    cr_expect_eq(k.kind, kind, "%s", entry);
    for (int i = 0; i < 3 && names && names[i]; i++)
        expect_define(&k, names[i], values[i], entry);
    cg_kernel_free(&k);
    counts c = check_program(p, entry);
    cr_expect_eq(c.steps, 1, "%s: one kernel", entry);
    cr_expect_eq(c.none, 0, "%s: nothing refused", entry);
    acc_program_free(p);
    return c;
}

/* How a permute combines: ACC_ATOMIC (32, 64 or 0: locks), ACC_FETCH (1
 * add, 2 and, 3 or, 4 xor, 0 none), and what the source must call. */
static void check_combining(const char *entry, int atomic, int fetch,
                            const char *call)
{
    static const char *const names[3] = {"ACC_ATOMIC", "ACC_FETCH",
                                         "ACC_EXPANDED"};
    const int values[3] = {atomic, fetch, 0};
    cg_kernel k;
    check_permute(entry, CG_KERNEL_PERMUTE, names, values);
    acc_program *p = only_kernel_of(ts_permute_source(), entry, &k);
    const char *body = strstr(k.source, "BEGIN permute.cu.in");
    cr_assert_not_null(body);
    /* the path the preprocessor keeps: past the #if of its width */
    const char *path = atomic ? strstr(body, "#if ACC_ATOMIC\n")
                              : strstr(body, "__device__ unsigned int acc_lock[");
    cr_expect_not_null(path, "%s", entry);
    cr_expect(strstr(k.source, call) != NULL, "%s calls %s", entry, call);
    cg_kernel_free(&k);
    acc_program_free(p);
}

Test(cuda_kernels, permute_fetch_and_op_on_32_and_64_bits)
{
    counts c = check_text(ts_language4_source(), "histogram");
    cr_expect_eq(c.permute, 1, "histogram: one permute kernel, the map "
                 "(\\_ -> 1) embedded");
    cr_expect_eq(c.none, 0);
    check_combining("histo64", 64, 1, "atomicAdd(cell, x)");
    check_combining("andBits", 32, 2, "atomicAnd(cell, x)");
    check_combining("orBits", 64, 3, "atomicOr(cell, x)");
    check_combining("xorBits", 32, 4, "atomicXor(cell, x)");
}

Test(cuda_kernels, permute_compare_and_swap_for_other_combiners)
{
    check_combining("sumF32", 32, 0, "__float_as_uint(x)");
    check_combining("maxF64", 64, 0, "__double_as_longlong(x)");
    check_combining("maxI32", 32, 0, "atomicCAS(cell, old, now)");
}

Test(cuda_kernels, permute_locks_for_tuples_narrow_leaves_and_bool)
{
    check_combining("tupleTarget", 0, 0, "atomicCAS(l, 0u, 1u)");
    check_combining("sumI8", 0, 0, "((ACC_CELL const int8_t *)b[0])[i]");
    check_combining("anyBool", 0, 0, "((ACC_CELL uint8_t *)b[0])[i] = e->l0");
}

Test(cuda_kernels, permute_targets_sources_and_defaults)
{
    static const char *const ranks[3] = {"ACC_TGT_RANK", "ACC_SRC_RANK",
                                         "ACC_SRC_INDEX"};
    const int scalar[3] = {0, 1, 0}, matrix[3] = {2, 1, 1}, vector[3] = {1, 2, 1};
    check_permute("toScalar", CG_KERNEL_PERMUTE, ranks, scalar);
    check_permute("toMatrix", CG_KERNEL_PERMUTE, ranks, matrix);
    check_permute("fromMatrix", CG_KERNEL_PERMUTE, ranks, vector);
    /* defaults computed by an embedded generate that reads its index */
    static const char *const defs[3] = {"ACC_DEF_INDEX", NULL, NULL};
    const int reads[3] = {1, 0, 0};
    check_permute("ignoring", CG_KERNEL_PERMUTE, defs, reads);
    check_permute("pairs", CG_KERNEL_PERMUTE, NULL, NULL);
}

Test(cuda_kernels, permute_with_maps_after_it)
{
    counts c = check_permute("emptyBins", CG_KERNEL_PERMUTE, NULL, NULL);
    cr_expect_eq(c.mapped, 1, "the map is applied by accel_permute_map");
    c = check_permute("twoMapsAfter", CG_KERNEL_PERMUTE, NULL, NULL);
    cr_expect_eq(c.mapped, 1, "a chain of maps is one map");
}

Test(cuda_kernels, sieve_is_one_kernel_over_the_expansion)
{
    static const char *const names[3] = {"ACC_EXPANDED", "ACC_FETCH",
                                         "ACC_TGT_RANK"};
    const int values[3] = {1, 1, 1};
    cg_kernel k;
    acc_program *p = only_kernel_of(ts_sieve_source(), "sieveMarks", &k);
    cr_expect_eq(k.kind, CG_KERNEL_PERMUTE_EXPAND);
    cr_expect_eq(k.src->op, IR_EXPAND, "the expand is embedded");
    for (int i = 0; i < 3; i++)
        expect_define(&k, names[i], values[i], "sieveMarks");
    /* quot (n - p) p in the size function */
    cr_expect(strstr(k.source, "ACC_FAIL(ACC_KERR_DIV_ZERO") != NULL);
    cg_kernel_free(&k);
    counts c = check_program(p, "sieveMarks");
    cr_expect_eq(c.permute_expand, 1);
    cr_expect_eq(c.steps, 1, "no index or value arrays in between");
    acc_program_free(p);
    c = check_permute("mappedSieve", CG_KERNEL_PERMUTE_EXPAND, names, values);
    cr_expect_eq(c.mapped, 1);
    static const char *const tuple[3] = {"ACC_EXPANDED", "ACC_ATOMIC", NULL};
    const int locks[3] = {1, 0, 0};
    check_permute("tupleSieve", CG_KERNEL_PERMUTE_EXPAND, tuple, locks);
}

Test(cuda_kernels, standalone_expand_with_and_without_a_map)
{
    counts c = check_permute("spread", CG_KERNEL_EXPAND, NULL, NULL);
    cr_expect_eq(c.expand, 1);
    cr_expect_eq(c.mapped, 0);
    c = check_permute("spreadMapped", CG_KERNEL_EXPAND, NULL, NULL);
    cr_expect_eq(c.mapped, 1, "the map is applied as results are stored");
    c = check_permute("expandTuples", CG_KERNEL_EXPAND, NULL, NULL);
    cr_expect_eq(c.expand, 1);
}

Test(cuda_kernels, expansion_and_privatisation_choices)
{
    /* sizes of at most 64 within 4x the mean: a thread per source */
    cr_expect(cg_cuda_expand_per_thread(100, 400, 16));
    cr_expect(!cg_cuda_expand_per_thread(100, 399, 16), "spread over 4x");
    cr_expect(!cg_cuda_expand_per_thread(100, 6500, 65), "a size over 64");
    cr_expect(cg_cuda_expand_per_thread(3, INT64_MAX / 2, 64));
    /* a part (one warp) per 32 sources, at most 2048 */
    cr_expect_eq(cg_cuda_expand_parts(1), 1);
    cr_expect_eq(cg_cuda_expand_parts(100), 4);
    cr_expect_eq(cg_cuda_expand_parts(INT64_MAX / 2), CG_CUDA_EXPAND_MAX_PARTS);
    /* 16 KiB of shared memory: 4096 cells of 4 bytes, 2048 of 8; 8 source
     * elements a cell a block */
    cr_expect_eq(cg_cuda_permute_private_blocks(10, 100000, 4), 1250);
    cr_expect_eq(cg_cuda_permute_private_blocks(10, 79, 4), 0);
    cr_expect_eq(cg_cuda_permute_private_blocks(4096, 1 << 20, 4), 32);
    cr_expect_eq(cg_cuda_permute_private_blocks(4097, 1 << 20, 4), 0);
    cr_expect_eq(cg_cuda_permute_private_blocks(2049, 1 << 20, 8), 0);
    cr_expect_eq(cg_cuda_permute_private_blocks(0, 1 << 20, 8), 0);
}
