/*
 * example_plugin.c — a complete accel plugin (docs/PLUGINS.md): it
 * implements the foreign name "example.norm2", the Euclidean norm of a
 * vector of f64, for the host backends.
 *
 * Build it as a shared object that links libaccel:
 *     cc -shared -fPIC -o accel_example.so example_plugin.c -laccel -lm
 * and load it with acc_plugin_load(ctx, "/path/to/accel_example.so") (or
 * put it in a folder of ACC_PLUGIN_PATH and load "example").
 *
 * A program uses it through a foreign node whose fallback computes the
 * same thing in the array language:
 *     foreign "example.norm2" (\xs -> map sqrt (sum (zipWith (*) xs xs))) xs
 */
#include <accel.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Capability: one vector of f64 in, one Scalar f64 out. */
static int norm2_accepts(acc_foreign_query *q)
{
    if (q->n_args == 1 && q->arg_ranks[0] == 1 && q->n_results == 1 &&
        q->result_ranks[0] == 0 &&
        acc_type_get_scalar(q->arg_elems[0]) == ACC_F64 &&
        acc_type_get_scalar(q->result_elems[0]) == ACC_F64)
        return 1;
    snprintf(q->reason, q->reason_size, "example.norm2 takes a vector of "
             "f64 to a Scalar f64");
    return 0;
}

/* A Scalar has no extents to set. */
static acc_status norm2_shape(acc_foreign_call *call)
{
    (void)call;
    return ACC_OK;
}

static acc_status norm2_execute(acc_foreign_call *call)
{
    const double *x = call->args[0].data[0];
    int64_t n = call->args[0].extents[0];
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += x[i] * x[i];
    *(double *)call->results[0].data[0] = sqrt(s);
    return ACC_OK;
}

acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version);

acc_status acc_plugin_entry(acc_plugin_registrar *reg, uint32_t abi_version)
{
    (void)abi_version; /* ACC_PLUGIN_DECLARE compares it with ours */
    acc_status st = ACC_PLUGIN_DECLARE(reg, "example");
    if (st != ACC_OK)
        return st;
    acc_foreign_impl impl;
    memset(&impl, 0, sizeof impl);
    impl.struct_size = sizeof impl;
    impl.name = "example.norm2";
    impl.impl_name = "example.norm2.loop";
    impl.backend = ACC_BACKEND_CPU; /* host: interp and cpu programs */
    impl.priority = 1;
    impl.accepts = norm2_accepts;
    impl.result_shape = norm2_shape;
    impl.execute = norm2_execute;
    return reg->add(reg, &impl);
}
