/*
 * test_cache_load.c — loading shared objects through their descriptors
 * (core/backend/cpu/kernel_load.h).  glibc returns an already loaded object for
 * a name it knows, and descriptor numbers are reused, so each live object
 * needs a name of its own: 40 objects loaded one after another (each
 * through a descriptor that is closed right after, so they all get the
 * same number; beyond 32 spellings another number is needed) must each
 * be the object of its own file; the same file opened again shares its
 * object; everything is unloaded when the last reference goes.
 */
#include <criterion/criterion.h>

#include "core/backend/cpu/kernel_load.h"
#include "cpu_support.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TestSuite(cache_load, .init = ts_make_cache_dir, .fini = ts_remove_cache_dir);

enum { OBJECTS = 40 };

/* Reads file `path` whole into *buf (malloc'd); its size. */
static size_t slurp(const char *path, char **buf)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    rewind(f);
    *buf = malloc((size_t)n);
    cr_assert_eq(fread(*buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return (size_t)n;
}

/* Object i: a copy of the compiled one whose identity string says i. */
static void make_copy(const char *image, size_t n, int i, char *path,
                      size_t size)
{
    char *copy = malloc(n), *at = NULL;
    memcpy(copy, image, n);
    for (size_t j = 0; j + 11 <= n && !at; j++)
        if (memcmp(copy + j, "identity-00", 11) == 0)
            at = copy + j;
    cr_assert_not_null(at);
    at[9] = (char)('0' + i / 10);
    at[10] = (char)('0' + i % 10);
    snprintf(path, size, "%s/object-%02d.so", ts_cpu_cache_dir, i);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(copy, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
    free(copy);
}

static cache_dl *load(const char *path)
{
    diag d;
    diag_clear(&d);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    cr_assert_geq(fd, 0);
    cache_dl *h = cache_dl_open(fd, path, &d);
    close(fd);
    cr_assert_not_null(h, "%s: %s", path, d.message);
    return h;
}

/* Compiles the object whose copies the tests load; its image in *image
 * (malloc'd), its size. */
static size_t build_object(char **image)
{
    char src[400], so[400], cmd[1000];
    snprintf(src, sizeof src, "%s/object.c", ts_cpu_cache_dir);
    snprintf(so, sizeof so, "%s/object.so", ts_cpu_cache_dir);
    FILE *f = fopen(src, "w");
    cr_assert_not_null(f);
    fputs("const char identity[] = \"identity-00\";\n", f);
    cr_assert_eq(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -o '%s' '%s'", so, src);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    return slurp(so, image);
}

Test(cache_load, every_live_object_is_its_own)
{
    char *image = NULL;
    size_t n = build_object(&image);

    size_t before = cache_dl_loaded();
    cache_dl *h[OBJECTS];
    char path[OBJECTS][400], want[16];
    for (int i = 0; i < OBJECTS; i++) {
        make_copy(image, n, i, path[i], sizeof path[i]);
        h[i] = load(path[i]);
    }
    cr_expect_eq(cache_dl_loaded() - before, OBJECTS);
    for (int i = 0; i < OBJECTS; i++) {
        snprintf(want, sizeof want, "identity-%02d", i);
        const char *got = cache_dl_symbol(h[i], "identity");
        cr_expect(got && strcmp(got, want) == 0, "object %d is %s", i,
                  got ? got : "(none)");
    }
    cache_dl *again = load(path[7]);
    cr_expect_eq(again, h[7], "one file, one object");
    cr_expect_eq(cache_dl_loaded() - before, OBJECTS);
    cache_dl_close(again);
    for (int i = 0; i < OBJECTS; i++)
        cache_dl_close(h[i]);
    cr_expect_eq(cache_dl_loaded(), before);

    /* and the names are free again: a new load is the new file's object */
    make_copy(image, n, 99, path[0], sizeof path[0]);
    h[0] = load(path[0]);
    const char *got = cache_dl_symbol(h[0], "identity");
    cr_expect(got && strcmp(got, "identity-99") == 0, "%s", got);
    cache_dl_close(h[0]);
    free(image);
}

/* A file that glibc already has loaded by another name (another copy of
 * the library in the process loaded this kernel, or anyone dlopen'ed its
 * path): glibc answers every spelling of the descriptor's name with that
 * object, since it matches files too.  The load shares that object; it
 * searched every descriptor number before, adding a name to the object
 * at each try (minutes, then an error). */
Test(cache_load, a_file_loaded_by_someone_else_is_shared, .timeout = 20)
{
    char *image = NULL, path[400];
    size_t n = build_object(&image);
    make_copy(image, n, 42, path, sizeof path);
    void *theirs = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    cr_assert_not_null(theirs, "%s", dlerror());
    size_t before = cache_dl_loaded();
    cache_dl *h = load(path);
    const char *got = cache_dl_symbol(h, "identity");
    cr_expect(got && strcmp(got, "identity-42") == 0, "%s", got);
    cr_expect_eq(got, dlsym(theirs, "identity"), "the same object");
    cr_expect_eq(cache_dl_loaded() - before, 1);
    cache_dl_close(h);
    cr_expect_eq(cache_dl_loaded(), before);
    /* their reference is still good */
    cr_expect_eq(strcmp(dlsym(theirs, "identity"), "identity-42"), 0);
    dlclose(theirs);
    free(image);
}

