/*
 * mpi_bench.c — the figures of docs/DISTRIBUTED.md (make bench-mpi):
 *
 *   mpi_bench apps EXAMPLES_DIR CSV    the heat and SMVM examples, the same
 *                                      global problem on every number of
 *                                      ranks (rows split evenly)
 *   mpi_bench collectives CSV          each collective through accel by
 *                                      message size, and MPI_Allreduce
 *                                      called directly, for accel's share
 *
 * Started by mpirun; it initialises MPI itself (accel then uses its
 * duplicate of MPI_COMM_WORLD and leaves finalising to the bench).  Every
 * figure is the median of several runs, each started together after a
 * barrier and taken as the slowest rank's time.  Rank 0 prints a table and
 * appends CSV lines: what,ranks,size,seconds.
 */
#include "accel.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static FILE *csv;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median over `reps` runs of the slowest rank's time. */
static double timed(acc_program *p, size_t n_in, const acc_array *in,
                    int reps)
{
    double t[64];
    reps = reps > 64 ? 64 : reps;
    for (int k = 0; k < reps; k++) {
        acc_array out = {0};
        out.struct_size = sizeof out;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (acc_run(p, n_in, in, 1, &out) != ACC_OK) {
            fprintf(stderr, "rank %d: %s\n", rank, acc_last_error());
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        double mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &t[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        acc_array_release(&out);
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    return t[reps / 2];
}

static void report(const char *what, int64_t n, double s, const char *unit)
{
    if (rank != 0)
        return;
    printf("%-28s %2d ranks %10lld %s  %12.1f us\n", what, size,
           (long long)n, unit, s * 1e6);
    if (csv)
        fprintf(csv, "%s,%d,%lld,%.9g\n", what, size, (long long)n, s);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (text = calloc((size_t)n + 1, 1)) &&
        fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (f)
        fclose(f);
    return text;
}

static acc_program *compile_file(acc_context *ctx, const char *dir,
                                 const char *file, const char *entry)
{
    char path[4096];
    acc_program *p = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *src = read_file(path);
    if (!src || acc_compile_text(ctx, src, (size_t)-1, entry, &p) != ACC_OK) {
        fprintf(stderr, "rank %d: %s: %s\n", rank, path,
                src ? acc_last_error() : "cannot read");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(src);
    return p;
}

static int64_t part(int64_t n, int r)
{
    return n / size + (r < n % size);
}

static double *filled(int64_t n, unsigned seed)
{
    double *a = malloc((size_t)n * sizeof *a);
    for (int64_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        a[i] = (seed >> 8) / 16777216.0;
    }
    return a;
}

/* heat: a G x G grid, 20 steps; rows split evenly. */
static void bench_heat(acc_context *ctx, const char *dir)
{
    const int64_t G = 1024, steps = 20;
    acc_program *p = compile_file(ctx, dir, "heat.acc", "heat");
    int64_t ext[2] = {part(G, rank), G};
    acc_array in[2];
    acc_array_init(&in[0], acc_type_scalar(ACC_I64), 0, NULL);
    in[0].data[0] = (void *)&steps;
    acc_array_init(&in[1], acc_type_scalar(ACC_F64), 2, ext);
    in[1].data[0] = filled(ext[0] * G, 7u + (unsigned)rank);
    timed(p, 2, in, 1); /* warm up */
    report("heat 1024x1024 x 20 steps", G, timed(p, 2, in, 5), "rows");
    free(in[1].data[0]);
    acc_program_free(p);
}

/* smvm: n rows of k nonzeros at pseudo-random columns; rows split evenly,
 * the vector all-gathered, the result all-gathered. */
static void bench_smvm(acc_context *ctx, const char *dir)
{
    const int64_t n = 1 << 18, k = 16;
    acc_program *p = compile_file(ctx, dir, "smvm.acc", "smvm");
    int64_t rows = part(n, rank), nnz = rows * k, vn = part(n, rank);
    int32_t *segd = malloc((size_t)rows * sizeof *segd);
    int32_t *cols = malloc((size_t)nnz * sizeof *cols);
    unsigned seed = 99u + (unsigned)rank;
    for (int64_t i = 0; i < rows; i++)
        segd[i] = (int32_t)k;
    for (int64_t i = 0; i < nnz; i++) {
        seed = seed * 1103515245u + 12345u;
        cols[i] = (int32_t)((seed >> 4) % (unsigned)n);
    }
    acc_context *c = ctx;
    const acc_type *f64 = acc_type_scalar(ACC_F64),
                   *pair_fields[2] = {acc_type_scalar(ACC_I32), f64};
    const acc_type *pair = acc_type_tuple(c, 2, pair_fields);
    acc_array in[3];
    acc_array_init(&in[0], acc_type_scalar(ACC_I32), 1, &rows);
    in[0].data[0] = segd;
    acc_array_init(&in[1], pair, 1, &nnz);
    in[1].data[0] = cols;
    in[1].data[1] = filled(nnz, seed);
    acc_array_init(&in[2], f64, 1, &vn);
    in[2].data[0] = filled(vn, 5u + (unsigned)rank);
    timed(p, 3, in, 1);
    report("smvm 262144 rows x 16 nnz", n, timed(p, 3, in, 7), "rows");
    free(segd);
    free(cols);
    free(in[1].data[1]);
    free(in[2].data[0]);
    acc_program_free(p);
}

/* ---- collectives by size --------------------------------------------------- */

typedef acc_node *(*coll_fn)(acc_graph *g, acc_node *x);

static acc_node *c_allreduce(acc_graph *g, acc_node *x)
{
    return acc_mpi_allreduce(g, ACC_MPI_SUM, x);
}

static acc_node *c_allgather(acc_graph *g, acc_node *x)
{
    return acc_mpi_allgather(g, x);
}

static acc_node *c_bcast(acc_graph *g, acc_node *x)
{
    return acc_mpi_bcast(g, acc_const_i64(g, ACC_I32, 0), x);
}

static acc_node *c_alltoall(acc_graph *g, acc_node *x)
{
    return acc_mpi_alltoall(g, x);
}

static acc_node *c_halo(acc_graph *g, acc_node *x)
{
    return acc_mpi_halo(g, 1, x);
}

static acc_node *c_identity(acc_graph *g, acc_node *x)
{
    /* the cost of a run that only copies its input: accel's share */
    acc_node *v = acc_param(g, acc_type_scalar(ACC_F64));
    return acc_map(g, acc_lambda(g, 1, &v, v), x);
}

static void bench_one(acc_context *ctx, const char *name, coll_fn f,
                      int64_t elems)
{
    acc_graph *g = NULL;
    acc_program *p = NULL;
    acc_graph_create(ctx, &g);
    acc_node *x = acc_input(g, acc_type_scalar(ACC_F64), 2);
    acc_node *r = f(g, x);
    if (acc_compile(ctx, g, 1, &r, &p) != ACC_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, acc_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    acc_graph_free(g);
    /* rows of `elems / size` f64 for all-to-all (divisible), else one row */
    int64_t ext[2] = {size, elems / size};
    if (f != c_alltoall && f != c_halo) {
        ext[0] = 1;
        ext[1] = elems;
    }
    acc_array in;
    acc_array_init(&in, acc_type_scalar(ACC_F64), 2, ext);
    in.data[0] = filled(ext[0] * ext[1], 3u);
    timed(p, 1, &in, 3);
    report(name, ext[0] * ext[1] * 8, timed(p, 1, &in, 15), "bytes");
    free(in.data[0]);
    acc_program_free(p);
}

static void bench_raw_allreduce(int64_t elems)
{
    double *a = filled(elems, 1u), *b = malloc((size_t)elems * sizeof *b);
    double t[15];
    for (int k = 0; k < 15; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Allreduce(a, b, (int)elems, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double mine = MPI_Wtime() - t0;
        MPI_Allreduce(&mine, &t[k], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }
    qsort(t, 15, sizeof t[0], cmp_double);
    report("MPI_Allreduce (direct)", elems * 8, t[7], "bytes");
    free(a);
    free(b);
}

static void bench_collectives(acc_context *ctx)
{
    static const struct {
        const char *name;
        coll_fn f;
    } cs[] = {{"allreduce sum", c_allreduce}, {"allgather", c_allgather},
              {"bcast", c_bcast}, {"alltoall", c_alltoall},
              {"halo ring (row of)", c_halo}, {"run, no collective", c_identity}};
    for (size_t c = 0; c < sizeof cs / sizeof cs[0]; c++)
        for (int64_t e = 4; e <= (1 << 20); e *= 8)
            bench_one(ctx, cs[c].name, cs[c].f, e);
    for (int64_t e = 4; e <= (1 << 20); e *= 8)
        bench_raw_allreduce(e);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    const char *out = argc > 2 ? argv[argc - 1] : NULL;
    if (rank == 0 && out && !(csv = fopen(out, "a")))
        fprintf(stderr, "cannot write %s\n", out);
    acc_context *ctx = NULL;
    acc_context_options o;
    acc_context_options_init(&o);
    o.backend = ACC_BACKEND_CPU;
    o.num_threads = 1; /* one core per rank: scaling by ranks alone */
    if (acc_context_create(&o, &ctx) != ACC_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, acc_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (strcmp(mode, "apps") == 0 && argc > 3) {
        bench_heat(ctx, argv[2]);
        bench_smvm(ctx, argv[2]);
    } else if (strcmp(mode, "collectives") == 0) {
        bench_collectives(ctx);
    } else if (rank == 0) {
        fprintf(stderr, "usage: mpi_bench apps EXAMPLES_DIR CSV | "
                "collectives CSV\n");
    }
    acc_context_destroy(ctx);
    if (csv)
        fclose(csv);
    MPI_Finalize();
    return 0;
}
