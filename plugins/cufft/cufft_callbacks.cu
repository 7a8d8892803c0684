/*
 * cufft_callbacks.cu — device code of the cufft plugin, embedded in the
 * plugin at build time and compiled by NVRTC when a device first needs it
 * (cufft_compile.c).  No header is included: NVRTC provides float2 and
 * double2, which are cufftComplex and cufftDoubleComplex.
 *
 * accel stores an array of (re, im) pairs as two buffers; cuFFT transforms
 * interleaved complex numbers.  Instead of interleaving in a separate pass,
 * cuFFT's JIT LTO callbacks do it inside its own kernels: the load callback
 * reads element `offset` from the two input buffers as one complex value,
 * the store callback writes each output element to the two result buffers,
 * divided by `den` (1 forward, the element count for the inverse, as the
 * fallback divides).  Where the buffers are comes from the plan's caller
 * info (acc_fft_info below), which the set-info kernel writes on the
 * call's stream before each transform.
 *
 * One source, compiled three ways (the options select the part):
 *   -DACC_FFT_LOAD  [-DACC_FFT_F64] -dlto -rdc=true: the load callback
 *   -DACC_FFT_STORE [-DACC_FFT_F64] -dlto -rdc=true: the store callback
 *   neither:                        PTX of the two set-info kernels
 * Each callback is its own LTO-IR module because cuFFT links each one it
 * is given into its kernels; one module holding both would define the
 * other callback twice.  The callbacks keep C++ linkage and exactly the
 * parameter types of cufftXt.h's cufftJITCallbackLoadC/StoreC (and the
 * double versions): cuFFT declares them by the name given to
 * cufftXtSetJITCallback with those types.
 */

/* BEGIN cufft device code */
template <typename T> struct acc_fft_info {
    const T *re_in;
    const T *im_in;
    T *re_out;
    T *im_out;
    T den;
};

#if defined(ACC_FFT_LOAD) || defined(ACC_FFT_STORE)
#ifdef ACC_FFT_F64
typedef double acc_fft_real;
typedef double2 acc_fft_complex;
#define ACC_FFT_NAME(name) name##_f64
#else
typedef float acc_fft_real;
typedef float2 acc_fft_complex;
#define ACC_FFT_NAME(name) name##_f32
#endif
typedef acc_fft_info<acc_fft_real> acc_fft_info_t;
#endif

#ifdef ACC_FFT_LOAD
__device__ acc_fft_complex ACC_FFT_NAME(acc_fft_load)(
    void *data_in, unsigned long long offset, void *caller_info,
    void *shared)
{
    const acc_fft_info_t *info = (const acc_fft_info_t *)caller_info;
    acc_fft_complex c;
    c.x = info->re_in[offset];
    c.y = info->im_in[offset];
    return c;
}
#endif

#ifdef ACC_FFT_STORE
__device__ void ACC_FFT_NAME(acc_fft_store)(
    void *data_out, unsigned long long offset, acc_fft_complex element,
    void *caller_info, void *shared)
{
    const acc_fft_info_t *info = (const acc_fft_info_t *)caller_info;
    info->re_out[offset] = element.x / info->den;
    info->im_out[offset] = element.y / info->den;
}
#endif

#if !defined(ACC_FFT_LOAD) && !defined(ACC_FFT_STORE)
/* One thread writes the buffers of this call into the plan's info. */
template <typename T>
__device__ void acc_fft_set_info(acc_fft_info<T> *info, const T *re_in,
                                 const T *im_in, T *re_out, T *im_out, T den)
{
    info->re_in = re_in;
    info->im_in = im_in;
    info->re_out = re_out;
    info->im_out = im_out;
    info->den = den;
}

extern "C" __global__ void acc_fft_set_info_f32(
    acc_fft_info<float> *info, const float *re_in, const float *im_in,
    float *re_out, float *im_out, float den)
{
    acc_fft_set_info(info, re_in, im_in, re_out, im_out, den);
}

extern "C" __global__ void acc_fft_set_info_f64(
    acc_fft_info<double> *info, const double *re_in, const double *im_in,
    double *re_out, double *im_out, double den)
{
    acc_fft_set_info(info, re_in, im_in, re_out, im_out, den);
}
#endif
/* END cufft device code */
