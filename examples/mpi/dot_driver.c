/*
 * dot_driver.c — a C program that uses MPI itself and gives accel its own
 * communicator (docs/DISTRIBUTED.md, "Communicator and life cycle").
 *
 * It initialises MPI, splits MPI_COMM_WORLD into the even and the odd
 * ranks, and passes its half to accel (context option mpi_comm).  accel's
 * distributed dot product (acc_mpi_allreduce of acc_dot) must then equal
 * what MPI_Allreduce computes over the same half, and accel's rank and
 * size those of the half.  accel neither initialises nor finalises MPI
 * here: after the context is gone MPI is still usable, and the driver
 * finalises it.
 *
 *   mpirun -np 4 build/examples/mpi/dot_driver
 */
#include "accel.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 1000 };

static int failed;

static void expect(int ok, int rank, const char *what)
{
    if (!ok) {
        fprintf(stderr, "rank %d: FAILED: %s (%s)\n", rank, what,
                acc_last_error());
        failed = 1;
    }
}

/* allreduce sum (dot xs ys), mpi.rank and mpi.size: three outputs. */
static acc_program *compile(acc_context *ctx)
{
    acc_graph *g = NULL;
    acc_program *p = NULL;
    if (acc_graph_create(ctx, &g) != ACC_OK)
        return NULL;
    acc_node *xs = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_node *ys = acc_input(g, acc_type_scalar(ACC_F64), 1);
    acc_node *out[3] = {
        acc_mpi_allreduce(g, ACC_MPI_SUM, acc_dot(g, xs, ys)),
        acc_mpi_rank(g), acc_mpi_size(g)};
    acc_compile(ctx, g, 3, out, &p);
    acc_graph_free(g);
    return p;
}

int main(int argc, char **argv)
{
    int provided, world, half_rank, half_size, finalized = 1;
    MPI_Comm half;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Comm_split(MPI_COMM_WORLD, world % 2, world, &half);
    MPI_Comm_rank(half, &half_rank);
    MPI_Comm_size(half, &half_size);

    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    double local = 0, want = 0;
    for (int i = 0; i < N; i++) {
        x[i] = world + 1 + 0.5 * i;
        y[i] = 1.0 / (i + 1);
        local += x[i] * y[i];
    }
    MPI_Allreduce(&local, &want, 1, MPI_DOUBLE, MPI_SUM, half);

    acc_context_options o;
    acc_context_options_init(&o);
    o.mpi_comm = &half;
    acc_context *ctx = NULL;
    expect(acc_context_create(&o, &ctx) == ACC_OK, world, "context");
    acc_program *p = ctx ? compile(ctx) : NULL;
    expect(p != NULL, world, "compile");
    int64_t n = N;
    acc_array in[2], out[3] = {{0}};
    acc_array_init(&in[0], acc_type_scalar(ACC_F64), 1, &n);
    acc_array_init(&in[1], acc_type_scalar(ACC_F64), 1, &n);
    in[0].data[0] = x;
    in[1].data[0] = y;
    for (int i = 0; i < 3; i++)
        out[i].struct_size = sizeof out[i];
    if (p && acc_run(p, 2, in, 3, out) == ACC_OK) {
        double got = *(double *)out[0].data[0];
        expect(fabs(got - want) <= 1e-12 * fabs(want), world,
               "the dot product differs from MPI_Allreduce's");
        expect(*(int32_t *)out[1].data[0] == half_rank, world,
               "mpi.rank is not the rank in the caller's communicator");
        expect(*(int32_t *)out[2].data[0] == half_size, world,
               "mpi.size is not the size of the caller's communicator");
        printf("rank %d (rank %d of %d in its half): dot %.12g, "
               "MPI_Allreduce %.12g\n", world, half_rank, half_size, got,
               want);
        for (int i = 0; i < 3; i++)
            acc_array_release(&out[i]);
    } else {
        expect(0, world, "run");
    }
    acc_program_free(p);
    acc_context_destroy(ctx);
    MPI_Finalized(&finalized);
    expect(!finalized, world, "accel finalised MPI, which it did not "
           "initialise");
    free(x);
    free(y);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return failed;
}
