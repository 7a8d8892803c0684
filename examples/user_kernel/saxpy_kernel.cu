// kernel: user.saxpy
// entry: saxpy
// signature: void(const f64*, const f64*, const f64*, f64*, i64, i64)
//
// The same kernel for the cuda backend (`accel run --backend cuda
// --kernel saxpy_kernel.cu`): a __global__ function with C linkage,
// launched with one thread per element of the result (blocks of 256).
// On the device the Scalar a stays in device memory, so it is a pointer.
extern "C" __global__ void saxpy(const double *a, const double *x,
                                 const double *y, double *out, long long nx,
                                 long long ny)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long n = nx < ny ? nx : ny;
    if (i < n)
        out[i] = a[0] * x[i] + y[i];
}
