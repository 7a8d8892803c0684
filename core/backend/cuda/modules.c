/*
 * modules.c — compiled kernels as loaded CUDA modules: in memory per
 * context, on disk across processes, compiled by NVRTC when neither has
 * them (see cuda_internal.h).
 *
 * Key (core/cache/cache_store.h): the kernel ABI, the target (sm_90 or
 * compute_89), the NVRTC version, NVRTC's options, and the source.  A
 * cache file DIR/KEY.cumod is sealed (core/cache/cache_file.h: written to
 * an exclusive temporary file, renamed into place; its MAC, keyed by the
 * folder's secret, verified from one descriptor before the image is
 * used).  Its payload is one header line, "accel-cuda-module-v1 KEY KIND
 * SIZE" (KIND cubin or ptx), then the SIZE bytes of the image.  A file
 * whose seal does not verify, whose header does not match, whose size
 * differs, whose cubin is not a complete ELF image for the CUDA machine,
 * whose PTX is not NUL-terminated text with a .target, or that the driver
 * refuses to load, is ignored and rebuilt.
 *
 * Loaded modules are counted by the programs that use them
 * (cuda_module_get takes a reference, cuda_module_release gives it back);
 * one no program uses stays loaded among the CACHE_IDLE_MAX most recently
 * released, then is unloaded.
 */
#include "core/backend/cuda/cuda_internal.h"
#include "core/base/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODULE_MAGIC "accel-cuda-module-v1"

enum { EM_CUDA = 190 };

struct cuda_module {
    char key[CACHE_KEY_LEN + 1];
    cu_module mod;
    unsigned refs;     /* programs using it */
    uint64_t released; /* when refs last dropped to 0 (module_clock) */
    struct cuda_module *next;
};

static void target_name(cuda_target t, int arch, char *buf, size_t size)
{
    snprintf(buf, size, "%s_%d", t == CUDA_TARGET_CUBIN ? "sm" : "compute",
             arch);
}

static void module_key(const cuda_backend *be, const char *source,
                       char key[CACHE_KEY_LEN + 1])
{
    char text[256];
    cache_hash h;
    cache_hash_init(&h);
    cache_hash_text(&h, CUDA_KERNEL_ABI);
    target_name(be->arch.target, be->arch.arch, text, sizeof text);
    cache_hash_text(&h, text);
    snprintf(text, sizeof text, "nvrtc %d.%d", be->nv.major, be->nv.minor);
    cache_hash_text(&h, text);
    cuda_compile_flags(text, sizeof text);
    cache_hash_text(&h, text);
    cache_hash_text(&h, source);
    cache_hash_key(&h, key);
}

/* ---- the file format ---------------------------------------------------------- */

static int image_ok(const unsigned char *img, size_t size, int ptx)
{
    if (ptx)
        return size > 0 && img[size - 1] == '\0' &&
               strstr((const char *)img, ".target") != NULL;
    return cache_elf_complete(img, size, size) &&
           ((unsigned)img[18] | (unsigned)img[19] << 8) == EM_CUDA;
}

/* The image inside a cache file, or NULL when the file is not a complete
 * module for `key`. */
static const unsigned char *file_image(const unsigned char *file, size_t n,
                                       const char *key, size_t *size)
{
    char magic[32], got[CACHE_KEY_LEN + 1], kind[8];
    size_t declared = 0;
    const unsigned char *nl = memchr(file, '\n', n < 128 ? n : 128);
    if (!nl || sscanf((const char *)file, "%31s %32s %7s %zu", magic, got,
                      kind, &declared) != 4 ||
        strcmp(magic, MODULE_MAGIC) != 0 || strcmp(got, key) != 0)
        return NULL;
    const unsigned char *img = nl + 1;
    int ptx = strcmp(kind, "ptx") == 0;
    if ((!ptx && strcmp(kind, "cubin") != 0) ||
        declared != n - (size_t)(img - file) || !image_ok(img, declared, ptx))
        return NULL;
    *size = declared;
    return img;
}

/* Writes the module file; a cache that cannot be written costs only a
 * compile next time, so failures are not errors. */
static void store(cuda_backend *be, const char *key, const char *name,
                  const cuda_image *img, int ptx)
{
    char head[128];
    diag ignored;
    diag_clear(&ignored);
    int h = snprintf(head, sizeof head, "%s %s %s %zu\n", MODULE_MAGIC, key,
                     ptx ? "ptx" : "cubin", img->size);
    unsigned char *file = mem_alloc((size_t)h + img->size);
    if (!file)
        return;
    memcpy(file, head, (size_t)h);
    memcpy(file + h, img->bytes, img->size);
    cache_file_publish(&be->folder, name, key, file, (size_t)h + img->size,
                       NULL, &ignored);
    free(file);
}

/* ---- compiling and loading ------------------------------------------------------- */

/* NVRTC for the backend's target; a cubin that cannot be produced falls
 * back to PTX for the same architecture. */
static int compile(const cuda_backend *be, const char *source,
                   const char *name, cuda_image *img, int *ptx, diag *d)
{
    char target[32];
    *ptx = be->arch.target == CUDA_TARGET_PTX;
    if (cuda_compile(&be->nv, source, name, be->arch.arch, be->arch.target,
                     img))
        return 1;
    if (!*ptx) {
        cuda_image second;
        if (cuda_compile(&be->nv, source, name, be->arch.arch,
                         CUDA_TARGET_PTX, &second)) {
            cuda_image_free(img);
            *img = second;
            *ptx = 1;
            return 1;
        }
        cuda_image_free(&second);
    }
    target_name(be->arch.target, be->arch.arch, target, sizeof target);
    diag_fail(d, ACC_ERR_COMPILE, "NVRTC %d.%d could not compile kernel %s "
              "for %s: %s", be->nv.major, be->nv.minor, name, target,
              img->log && img->log[0] ? img->log : "no log");
    cuda_image_free(img);
    return 0;
}

static cu_module from_disk(cuda_backend *be, const char *key,
                           const char *name)
{
    unsigned char *file = NULL;
    size_t n = 0, size = 0;
    cu_module mod = NULL;
    if (!cache_file_open(&be->folder, name, key, &file, &n, NULL))
        return NULL;
    const unsigned char *img = file_image(file, n, key, &size);
    if (img && be->drv.cuModuleLoadData(&mod, img) != CU_SUCCESS)
        mod = NULL;
    free(file);
    return mod;
}

static cu_module from_compiler(cuda_backend *be, const char *source,
                               const char *name, const char *key,
                               const char *file, cache_stats *how, diag *d)
{
    cuda_image img;
    int ptx = 0;
    cu_module mod = NULL;
    double start = cache_now();
    if (!compile(be, source, name, &img, &ptx, d))
        return NULL;
    how->compiled++;
    how->compile_seconds += cache_now() - start;
    cu_result r = be->drv.cuModuleLoadData(&mod, img.bytes);
    if (r != CU_SUCCESS)
        cuda_fail(be, d, r, "cuModuleLoadData of kernel %s (%s for %d)",
                  name, ptx ? "PTX" : "cubin", be->arch.arch);
    else
        store(be, key, file, &img, ptx);
    cuda_image_free(&img);
    return r == CU_SUCCESS ? mod : NULL;
}

static cuda_module *lookup(cuda_backend *be, const char *source,
                           const char *name, const char *key,
                           cache_stats *how, diag *d)
{
    char file[CACHE_KEY_LEN + 8];
    for (cuda_module *m = be->modules; m; m = m->next)
        if (strcmp(m->key, key) == 0) {
            how->memory_hits++;
            be->idle_modules -= m->refs++ == 0;
            return m;
        }
    if (cache_folder_resolve(&be->folder, d) != ACC_OK)
        return NULL;
    snprintf(file, sizeof file, "%s.cumod", key);
    cu_module mod = from_disk(be, key, file);
    if (mod)
        how->disk_hits++;
    else
        mod = from_compiler(be, source, name, key, file, how, d);
    cuda_module *m = mod ? mem_calloc(1, sizeof *m) : NULL;
    if (mod && !m) {
        be->drv.cuModuleUnload(mod);
        diag_oom(d, "acc_compile");
        return NULL;
    }
    if (m) {
        snprintf(m->key, sizeof m->key, "%s", key);
        m->mod = mod;
        m->refs = 1;
        m->next = be->modules;
        be->modules = m;
    }
    return m;
}

acc_status cuda_module_get(cuda_backend *be, const char *source,
                           const char *name, cuda_module **out,
                           cache_stats *how, diag *d)
{
    char key[CACHE_KEY_LEN + 1];
    module_key(be, source, key);
    pthread_mutex_lock(&be->module_lock);
    *out = lookup(be, source, name, key, how, d);
    pthread_mutex_unlock(&be->module_lock);
    return *out ? ACC_OK : d->status;
}

cu_module cuda_module_handle(const cuda_module *m)
{
    return m->mod;
}

/* Unloads the least recently released modules beyond CACHE_IDLE_MAX (the
 * context current). */
static void trim(cuda_backend *be)
{
    while (be->idle_modules > CACHE_IDLE_MAX) {
        cuda_module **oldest = NULL;
        for (cuda_module **p = &be->modules; *p; p = &(*p)->next)
            if ((*p)->refs == 0 &&
                (!oldest || (*p)->released < (*oldest)->released))
                oldest = p;
        cuda_module *m = *oldest;
        *oldest = m->next;
        be->idle_modules--;
        be->drv.cuModuleUnload(m->mod);
        free(m);
    }
}

void cuda_module_release(cuda_backend *be, cuda_module *m)
{
    diag ignored;
    diag_clear(&ignored);
    if (!m)
        return;
    pthread_mutex_lock(&be->module_lock);
    if (m->refs > 0 && --m->refs == 0) {
        m->released = ++be->module_clock;
        if (++be->idle_modules > CACHE_IDLE_MAX &&
            cuda_enter(be, &ignored) == ACC_OK) {
            trim(be);
            cuda_leave(be);
        }
    }
    pthread_mutex_unlock(&be->module_lock);
}

void cuda_module_note(cuda_backend *be, char *buf, size_t size)
{
    pthread_mutex_lock(&be->module_lock);
    snprintf(buf, size, "%s", be->folder.note);
    pthread_mutex_unlock(&be->module_lock);
}

acc_status cuda_backend_cache_report(cuda_backend *be, char **dir,
                                     char **note, diag *d)
{
    pthread_mutex_lock(&be->module_lock);
    cache_folder_report(&be->folder, dir, note, d);
    pthread_mutex_unlock(&be->module_lock);
    return d->status;
}

void cuda_modules_unload(cuda_backend *be)
{
    while (be->modules) {
        cuda_module *m = be->modules;
        be->modules = m->next;
        be->drv.cuModuleUnload(m->mod);
        free(m);
    }
    be->idle_modules = 0;
}
