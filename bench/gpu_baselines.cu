// gpu_baselines.cu — the hand-written CUDA baselines of `make bench-gpu`
// (bench/gpu_bench.c compiles this file with NVRTC at run time, for the
// device's architecture, with the flags accel uses: --fmad=false).
// Straightforward kernels, as a CUDA programmer writes them first: one
// thread per element or body, grid-stride loops, no shared-memory tiling.

__device__ static float cnd(float d)
{
    float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
    float poly = k * (0.31938153f + k * (-0.356563782f + k * (1.781477937f +
                 k * (-1.821255978f + k * 1.330274429f))));
    float c = 0.3989422804014327f * expf(-0.5f * d * d) * poly;
    return d > 0 ? 1.0f - c : c;
}

extern "C" __global__ void blackscholes(const float *price,
                                        const float *strike,
                                        const float *years, float *call,
                                        float *put, long long n)
{
    const float r = 0.02f, v = 0.30f;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
         i < n; i += (long long)gridDim.x * blockDim.x) {
        float vst = v * sqrtf(years[i]);
        float d1 = (logf(price[i] / strike[i]) + (r + 0.5f * v * v) * years[i]) /
                   vst;
        float d2 = d1 - vst;
        float c1 = cnd(d1), c2 = cnd(d2);
        float x = strike[i] * expf(-r * years[i]);
        call[i] = price[i] * c1 - x * c2;
        put[i] = x * (1.0f - c2) - price[i] * (1.0f - c1);
    }
}

// Accelerations of n bodies: thread i sums over all j, in order.
extern "C" __global__ void nbody(const float *x, const float *y,
                                 const float *z, const float *m, float *ax,
                                 float *ay, float *az, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float sx = 0, sy = 0, sz = 0;
    for (int j = 0; j < n; j++) {
        float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
        float d2 = dx * dx + dy * dy + dz * dz + 0.01f;
        float inv = 1.0f / sqrtf(d2);
        float s = m[j] * inv * inv * inv;
        sx += dx * s;
        sy += dy * s;
        sz += dz * s;
    }
    ax[i] = sx;
    ay[i] = sy;
    az[i] = sz;
}
