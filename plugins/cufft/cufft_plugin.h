/*
 * cufft_plugin.h — the cufft plugin's state: the callbacks compiled for a
 * device architecture (cufft_compile.c), the plans of one CUDA context
 * (cufft_plans.c) and the plugin itself (cufft_plugin.c).
 */
#ifndef ACC_PLUGINS_CUFFT_PLUGIN_H
#define ACC_PLUGINS_CUFFT_PLUGIN_H

#include "cufft_api.h"
#include "pcuda_plugin.h"

#include <stdint.h>

/* ---- device code (cufft_compile.c) -------------------------------------- */

/* The images NVRTC made for one compute capability; [0] f32, [1] f64. */
typedef struct cfp_images {
    int arch;                  /* major * 10 + minor */
    char *load[2], *store[2];  /* LTO-IR of the callbacks */
    size_t load_size[2], store_size[2];
    char *set_info_ptx;        /* PTX of the set-info kernels */
    struct cfp_images *next;
} cfp_images;

/* The text of cufft_callbacks.cu, embedded at build time. */
const char *cfp_device_source(void);
/* The callbacks' and kernels' names, by precision (f64: 0 or 1). */
const char *cfp_load_symbol(int f64);
const char *cfp_store_symbol(int f64);
const char *cfp_set_info_kernel(int f64);
/* Compiles every image for compute capability `arch` (75 for sm_75).
 * NULL with why written. */
cfp_images *cfp_compile(const pcuda_nvrtc *n, int arch, char *why,
                        size_t why_size);
void cfp_images_free(cfp_images *im);

/* ---- plans of one CUDA context (cufft_plans.c) -------------------------- */

/* The callbacks' caller info in device memory (acc_fft_info<T>): four
 * buffer pointers and the divisor, at most this many bytes. */
enum { CFP_INFO_BYTES = 5 * 8, CFP_MAX_PLANS = 16 };

typedef struct cfp_plan {
    int f64, rank;
    int n[3];
    pcufft_handle handle;
    int created;               /* handle exists (any int is a handle) */
    size_t work_bytes;         /* cuFFT's work area for one transform */
    pcu_deviceptr info;        /* the caller info of its callbacks */
    pcu_event last_use;        /* recorded after each transform */
    int used;                  /* last_use has been recorded */
    unsigned long stamp;       /* for least-recently-used eviction */
    struct cfp_plan *next;
} cfp_plan;

/* The payload of a pcuda_ctx_entry. */
typedef struct cfp_ctx {
    const cfp_images *images;  /* for the context's device */
    pcu_module module;         /* the set-info kernels */
    pcu_function set_info[2];
    cfp_plan *plans;
    size_t n_plans;
    unsigned long clock;
} cfp_ctx;

/* What the plans need from the plugin. */
typedef struct cfp_libs {
    const pcufft *fft;
    const pcuda_driver *driver;
} cfp_libs;

/* The context's plan for (f64, rank, n), made (and the least recently
 * used one destroyed when there are CFP_MAX_PLANS) when absent.  NULL with
 * *status and why set. */
cfp_plan *cfp_plan_get(const cfp_libs *libs, cfp_ctx *ctx, int f64,
                       int rank, const int *n, acc_status *status, char *why,
                       size_t why_size);
/* Destroys the context's plans and module (its context is current). */
void cfp_ctx_free(const cfp_libs *libs, cfp_ctx *ctx);

/* A cuFFT status as its name (CUFFT_INVALID_SIZE). */
const char *cfp_result_name(pcufft_result r);

/* ---- the plugin (cufft_plugin.c) ---------------------------------------- */

typedef struct cfp_plugin cfp_plugin;

typedef struct cfp_binding {
    cfp_plugin *plugin;
    int inverse;
    const char *name, *impl_name;
} cfp_binding;

#endif
