// kernel: user.saxpy
// entry: saxpy
// signature: void(f64, const f64*, const f64*, f64*, i64, i64)
//
// A user kernel for `accel run --kernel` (docs/CLI.md, "User kernels"):
// the comment lines above name the foreign name it implements, its
// function and the function's type; the arrays of the foreign node map
// to the parameters from left to right (the Scalar a as a value, the
// buffers of xs and ys, the buffer of the result), then the extents of
// xs and ys.  The result has the extents of xs; like the fallback's
// zipWith, the kernel computes the common length of xs and ys (the two
// agree when xs is not the longer one).
void saxpy(double a, const double *x, const double *y, double *out,
           int64_t nx, int64_t ny)
{
    int64_t n = nx < ny ? nx : ny;
    for (int64_t i = 0; i < n; i++)
        out[i] = a * x[i] + y[i];
}
