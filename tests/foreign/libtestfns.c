/*
 * libtestfns.c — plain C functions for the acc_register_c_function tests
 * (built as a shared library, libtestfns.so).  Nothing here knows accel.
 */
#include <math.h>
#include <stdint.h>

void twice_f32(const float *x, float *out, int64_t n);
double sum_f64(const double *x, int64_t n);
void add_f64(const double *x, const double *y, double *out, int64_t n);
double hypot_f64(double a, double b);
int32_t scale_i32(int32_t a, int32_t k);

/* out = 2 x */
void twice_f32(const float *x, float *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = 2.0f * x[i];
}

/* the sum of x, returned */
double sum_f64(const double *x, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

/* out = x + y over the first n elements (n: the length of x) */
void add_f64(const double *x, const double *y, double *out, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        out[i] = x[i] + y[i];
}

double hypot_f64(double a, double b)
{
    return sqrt(a * a + b * b);
}

int32_t scale_i32(int32_t a, int32_t k)
{
    return a * k;
}
