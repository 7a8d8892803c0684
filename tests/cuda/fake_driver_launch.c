/*
 * fake_driver_launch.c — the fake CUDA driver's modules, functions,
 * occupancy and launches (see fake_driver.c): an image must be an ELF
 * cubin for the CUDA machine or PTX text, a function must be an entry of
 * its module, and a launch is checked against the device's limits and
 * recorded (with what its arguments say); the test can make it write a
 * failure into the error slot or chosen bytes into a partial buffer.
 * Built with FAKE_EMU, a module load builds the image's source for the
 * host (emu_build.c) and a launch executes the kernel
 * (tests/cuda/emu/cuda_emu.h).
 */
#include <cuda.h>

#include "fake_driver.h"
#include "fake_driver_internal.h"

#ifdef FAKE_EMU
#include "emu/emu_build.h"
#include "emu/emu_launch.h"

#include <dlfcn.h>
#include <sys/mman.h>
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EM_CUDA = 190 };

struct CUmod_st {
    unsigned char *image;
    size_t size;
    int ptx;
#ifdef FAKE_EMU
    void *so; /* the module built for the host */
#endif
};

struct CUfunc_st {
    char name[64];
    struct CUfunc_st *next;
#ifdef FAKE_EMU
    acc_emu_entry_fn entry;
#endif
};

static struct CUfunc_st *functions; /* kept until the process ends */

/* ---- modules and functions ------------------------------------------------- */

/* An ELF image for the CUDA machine, or PTX text (".version" and
 * ".target" directives, NUL-terminated). */
static int image_kind(const unsigned char *p, size_t *size)
{
#ifdef FAKE_EMU
    /* only the test NVRTC's images (PTX-like text) */
    if (!emu_image_source((const char *)p))
        return -1;
#endif
    if (memcmp(p, "\177ELF", 4) == 0) {
        unsigned machine = (unsigned)p[18] | (unsigned)p[19] << 8;
        uint64_t shoff = 0;
        unsigned shentsize = (unsigned)p[58] | (unsigned)p[59] << 8;
        unsigned shnum = (unsigned)p[60] | (unsigned)p[61] << 8;
        for (int i = 0; i < 8; i++)
            shoff |= (uint64_t)p[40 + i] << (8 * i);
        if (p[4] != 2 || machine != EM_CUDA)
            return -1;
        *size = (size_t)(shoff + (uint64_t)shentsize * shnum);
        return 0;
    }
    const char *text = (const char *)p;
    if (!strstr(text, ".version") || !strstr(text, ".target"))
        return -1;
    *size = strlen(text) + 1;
    return 1;
}

#ifdef FAKE_EMU
/* Builds the image's source for the host (cached) and loads it; the lock
 * is held, so one module is built at a time in a process. */
static CUresult emu_load(struct CUmod_st *m, const void *image)
{
    char so[1200], *log = NULL;
    if (!emu_build(emu_image_source(image), so, sizeof so, &log)) {
        fprintf(stderr, "emulated device: the module does not build: %s\n",
                log ? log : "out of memory");
        free(log);
        return misuse(CUDA_ERROR_INVALID_IMAGE, "an emulated module that "
                      "does not build");
    }
    m->so = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!m->so) {
        fprintf(stderr, "emulated device: %s\n", dlerror());
        return misuse(CUDA_ERROR_INVALID_IMAGE, "an emulated module that "
                      "does not load");
    }
    return CUDA_SUCCESS;
}
#endif

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    size_t size = 0;
    int kind = r == CUDA_SUCCESS && image ? image_kind(image, &size) : -1;
    struct CUmod_st *m = NULL;
    if (r == CUDA_SUCCESS && (kind < 0 || !module))
        r = misuse(CUDA_ERROR_INVALID_IMAGE, "an image that is neither a "
                   "CUDA ELF cubin nor PTX");
    if (r == CUDA_SUCCESS &&
        (!(m = calloc(1, sizeof *m)) || !(m->image = malloc(size)))) {
        free(m);
        r = CUDA_ERROR_OUT_OF_MEMORY;
    }
#ifdef FAKE_EMU
    if (r == CUDA_SUCCESS && (r = emu_load(m, image)) != CUDA_SUCCESS) {
        free(m->image);
        free(m);
    }
#endif
    if (r == CUDA_SUCCESS) {
        memcpy(m->image, image, size);
        m->size = size;
        m->ptx = kind;
        *module = m;
        counters.modules_loaded++;
        counters.cubins += kind == 0;
        counters.ptx_images += kind == 1;
        record(FAKE_MODULE_LOAD, NULL, size);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuModuleUnload(CUmodule module)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    if (r == CUDA_SUCCESS && !module)
        r = misuse(CUDA_ERROR_INVALID_HANDLE, "unload of NULL");
    if (r == CUDA_SUCCESS) {
        counters.modules_unloaded++;
#ifdef FAKE_EMU
        dlclose(module->so);
#endif
        free(module->image);
        free(module);
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* Whether `name` is an entry of the module: a symbol name (NUL-delimited)
 * in a cubin, ".entry name(" in PTX. */
static int has_entry(const struct CUmod_st *m, const char *name)
{
    char want[96];
    size_t n = strlen(name);
#ifdef FAKE_EMU
    snprintf(want, sizeof want, "acc_emu_defined_%s", name);
    const int *defined = dlsym(m->so, want);
    return defined && *defined;
#endif
    if (m->ptx) {
        snprintf(want, sizeof want, ".entry %s(", name);
        return strstr((const char *)m->image, want) != NULL;
    }
    for (size_t i = 1; i + n < m->size; i++)
        if (m->image[i - 1] == '\0' && m->image[i + n] == '\0' &&
            memcmp(m->image + i, name, n) == 0)
            return 1;
    return 0;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *fn, CUmodule module,
                                     const char *name)
{
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    struct CUfunc_st *f = NULL;
    if (r == CUDA_SUCCESS && (!fn || !module || !name || strlen(name) > 60))
        r = misuse(CUDA_ERROR_INVALID_VALUE, "bad cuModuleGetFunction "
                   "arguments");
    if (r == CUDA_SUCCESS && !has_entry(module, name))
        r = CUDA_ERROR_NOT_FOUND;
    if (r == CUDA_SUCCESS && !(f = calloc(1, sizeof *f)))
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (r == CUDA_SUCCESS) {
        snprintf(f->name, sizeof f->name, "%s", name);
#ifdef FAKE_EMU
        char sym[96];
        snprintf(sym, sizeof sym, "acc_emu_launch_%s", name);
        *(void **)&f->entry = dlsym(module->so, sym);
#endif
        f->next = functions;
        functions = f;
        *fn = f;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

CUresult CUDAAPI cuOccupancyMaxPotentialBlockSize(
    int *min_grid, int *block, CUfunction f, CUoccupancyB2DSize smem_of_block,
    size_t smem, int block_limit)
{
    (void)smem_of_block;
    (void)smem;
    pthread_mutex_lock(&lock);
    CUresult r = need_context();
    if (r == CUDA_SUCCESS && (!min_grid || !block || !f))
        r = misuse(CUDA_ERROR_INVALID_VALUE, "bad occupancy arguments");
    if (r == CUDA_SUCCESS) {
        int most = shape().block > 0 ? shape().block : config.occupancy_block;
        *block = block_limit > 0 && block_limit < most ? block_limit : most;
        *min_grid = shape().min_grid;
    }
    pthread_mutex_unlock(&lock);
    return r;
}

/* ---- launches ------------------------------------------------------------------ */

/* What a failing kernel leaves in its error slot. */
static void fail_launch(void **params)
{
    const unsigned char *args = params[0];
    CUdeviceptr err;
    memcpy(&err, args + FAKE_KARGS_ERR_OFFSET, sizeof err);
    struct { int code, site; int64_t pos; } slot = {
        config.fail_code, config.fail_site, config.fail_pos};
    if (!holding(err, sizeof slot)) {
        misuse(CUDA_ERROR_INVALID_VALUE, "error slot outside an allocation");
        return;
    }
    memcpy((void *)(uintptr_t)err, &slot, sizeof slot);
    config.fail_launches--;
}

/* What a kernel would leave in A->part[poke_part] (the test's bytes). */
static void poke_launch(void **params)
{
    const unsigned char *args = params[0];
    CUdeviceptr parts, target;
    memcpy(&parts, args + FAKE_KARGS_PART_OFFSET, sizeof parts);
    parts += 8 * (CUdeviceptr)config.poke_part;
    config.poke_function[0] = '\0';
    if (config.poke_len > sizeof config.poke_bytes ||
        !holding(parts, sizeof target)) {
        misuse(CUDA_ERROR_INVALID_VALUE, "poke: no such partial pointer");
        return;
    }
    memcpy(&target, (const void *)(uintptr_t)parts, sizeof target);
    if (!holding(target + config.poke_offset, config.poke_len)) {
        misuse(CUDA_ERROR_INVALID_VALUE, "poke outside an allocation");
        return;
    }
    memcpy((void *)(uintptr_t)(target + config.poke_offset),
           config.poke_bytes, config.poke_len);
}

/* What a launch's parameters say (fake_driver.h: fake_event). */
static void record_args(fake_event *e, void **params)
{
    const unsigned char *args = params[0];
    memcpy(&e->out_size, args + FAKE_KARGS_OUT_SIZE_OFFSET,
           sizeof e->out_size);
    memcpy(&e->inner, args + FAKE_KARGS_INNER_OFFSET, sizeof e->inner);
    e->has_arg1 = params[1] != NULL;
    if (e->has_arg1)
        memcpy(&e->arg1, params[1], sizeof e->arg1);
}

#ifdef FAKE_EMU
enum { EMU_STACK_BYTES = 128 * 1024, EMU_FIBER_BYTES = 1024 * 2048 };

/* Executes a launch (the lock held: one launch at a time). */
static CUresult emu_run(const struct CUfunc_st *f, unsigned gx, unsigned gy,
                        unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared_bytes, void **params)
{
    static unsigned char *stacks;
    static void *fibers;
    char why[512] = "";
    if (!fibers && !(fibers = malloc(EMU_FIBER_BYTES)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (!stacks) {
        void *p = mmap(NULL, (size_t)1024 * EMU_STACK_BYTES,
                       PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED)
            return CUDA_ERROR_OUT_OF_MEMORY;
        stacks = p;
    }
    acc_emu_launch_args L = {{gx, gy, gz}, {bx, by, bz}, shared_bytes, params,
                             stacks, EMU_STACK_BYTES, fibers,
                             EMU_FIBER_BYTES, shape().reverse, why,
                             sizeof why};
    if (f->entry(&L) == 0)
        return CUDA_SUCCESS;
    fprintf(stderr, "emulated device: kernel %s failed: %s\n", f->name, why);
    char what[160];
    snprintf(what, sizeof what, "kernel %s: %s", f->name, why);
    return misuse(CUDA_ERROR_LAUNCH_FAILED, what);
}
#endif

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                unsigned int gz, unsigned int bx,
                                unsigned int by, unsigned int bz,
                                unsigned int shared_bytes, CUstream stream,
                                void **params, void **extra)
{
    pthread_mutex_lock(&lock);
    CUresult r = copy_checks(stream);
    if (r == CUDA_SUCCESS && shared_bytes > shape().shared)
        r = misuse(CUDA_ERROR_INVALID_VALUE, "more dynamic shared memory "
                   "than a block has");
    if (r == CUDA_SUCCESS &&
        (!f || !params || extra || gx == 0 || gy == 0 || gz == 0 || bx == 0 ||
         by == 0 || bz == 0 || bx * by * bz > (unsigned)shape().max_block ||
         gy > 65535 ||
         gz > 65535))
        r = misuse(CUDA_ERROR_INVALID_VALUE, "bad launch configuration");
    if (r == CUDA_SUCCESS) {
        fake_event *e = record(FAKE_LAUNCH, stream, 0);
        snprintf(e->function, sizeof e->function, "%s", f->name);
        e->grid[0] = gx, e->grid[1] = gy, e->grid[2] = gz;
        e->block[0] = bx, e->block[1] = by, e->block[2] = bz;
        /* only accel's kernels take an acc_kargs first (a user kernel's
         * parameters may be smaller than what record_args reads) */
        if (strncmp(f->name, "accel_", 6) == 0)
            record_args(e, params);
        counters.launches++;
#ifdef FAKE_EMU
        r = emu_run(f, gx, gy, gz, bx, by, bz, shared_bytes, params);
#endif
        if (config.fail_launches > 0)
            fail_launch(params);
        if (config.poke_function[0] &&
            strcmp(config.poke_function, f->name) == 0)
            poke_launch(params);
    }
    pthread_mutex_unlock(&lock);
    return r;
}
