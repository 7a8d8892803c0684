/*
 * emu_build.c — CUDA source to a loadable host module (see emu_build.h).
 */
#include "emu_build.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ACC_EMU_INCLUDE
#error "ACC_EMU_INCLUDE (the folder of cuda_emu.h) must be defined"
#endif
#ifndef ACC_EMU_CACHE
#define ACC_EMU_CACHE "/tmp/accel-cuda-emu-cache"
#endif

/* The flags of the header precompiled and of each module (the same, but
 * for -shared: a precompiled header is used only by a compile with the
 * flags it was made with). */
static const char cxx_pch_flags[] = "-std=c++17 -O1 -fPIC -w";
static const char cxx_flags[] = "-std=c++17 -O1 -fPIC -w -shared";

static char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    long n = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)n + 1)) &&
        fread(text, 1, (size_t)n, f) == (size_t)n) {
        text[n] = '\0';
        if (size)
            *size = (size_t)n;
    } else {
        free(text);
        text = NULL;
    }
    if (f)
        fclose(f);
    return text;
}

static char *text_copy(const char *s)
{
    char *c = malloc(strlen(s) + 1);
    if (c)
        strcpy(c, s);
    return c;
}

/* ---- kernels of a source ------------------------------------------------- */

static const char *skip_space(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

void emu_kernels(const char *source, void (*visit)(const char *, size_t,
                                                   void *),
                 void *ctx)
{
    static const char *const marks[] = {"__global__", "ACC_KERNEL"};
    for (const char *p = source; *p; p++) {
        size_t m = 0;
        while (m < 2 && strncmp(p, marks[m], 10) != 0)
            m++;
        if (m == 2 || (p > source && ident_char(p[-1])) || ident_char(p[10]))
            continue;
        const char *q = skip_space(p + 10);
        if (strncmp(q, "void", 4) != 0 || ident_char(q[4]))
            continue;
        q = skip_space(q + 4);
        const char *name = q;
        while (ident_char(*q))
            q++;
        if (q > name && *skip_space(q) == '(')
            visit(name, (size_t)(q - name), ctx);
    }
}

/* ---- the image -------------------------------------------------------------- */

typedef struct text {
    char *s;
    size_t n, cap;
    int failed;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->n + n + 1 > t->cap) {
        size_t cap = 2 * (t->n + n + 1);
        char *s2 = realloc(t->s, cap);
        if (!s2) {
            t->failed = 1;
            return;
        }
        t->s = s2;
        t->cap = cap;
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = '\0';
}

static void puts_text(text *t, const char *s)
{
    put(t, s, strlen(s));
}

static void entry_line(const char *name, size_t len, void *ctx)
{
    puts_text(ctx, "// .entry ");
    put(ctx, name, len);
    puts_text(ctx, "(\n");
}

/* The source with every `extern __shared__ TYPE NAME[];` (dynamic shared
 * memory) made `static TYPE *const NAME = (TYPE *)(void *)
 * acc_emu::dynamic_shared;` (cuda_emu.h), on the same line; any other
 * text is copied as it is (a declaration of another form then fails to
 * build, with the compiler's message). */
static void put_source(text *t, const char *source)
{
    static const char key[] = "extern __shared__";
    const char *p = source, *at;
    while ((at = strstr(p, key)) != NULL) {
        const char *decl = at + sizeof key - 1, *end = strchr(decl, ';');
        const char *open = NULL, *name = NULL;
        for (const char *q = decl; end && q < end; q++)
            if (*q == '[')
                open = q;
        if (open) {
            name = open;
            while (name > decl && (name[-1] == ' ' || name[-1] == '\t'))
                name--;
            while (name > decl && ident_char(name[-1]))
                name--;
        }
        const char *name_end = name;
        while (name_end && ident_char(*name_end))
            name_end++;
        if (!open || !name || name_end == name || name == decl ||
            (at > source && ident_char(at[-1]))) {
            put(t, p, (size_t)(decl - p));
            p = decl;
            continue;
        }
        put(t, p, (size_t)(at - p));
        puts_text(t, "static ");
        put(t, decl, (size_t)(name - decl));
        puts_text(t, " *const ");
        put(t, name, (size_t)(name_end - name));
        puts_text(t, " = (");
        put(t, decl, (size_t)(name - decl));
        puts_text(t, " *)(void *)acc_emu::dynamic_shared;");
        p = end + 1;
    }
    puts_text(t, p);
}

static const char source_mark[] = "// ---- the CUDA source\n";

char *emu_image(const char *source, size_t *size)
{
    text t = {0};
    puts_text(&t, EMU_IMAGE_MAGIC "// .version 0.0\n// .target emu\n");
    emu_kernels(source, entry_line, &t);
    puts_text(&t, source_mark);
    puts_text(&t, source);
    if (t.failed) {
        free(t.s);
        return NULL;
    }
    *size = t.n + 1;
    return t.s;
}

const char *emu_image_source(const char *image)
{
    if (strncmp(image, EMU_IMAGE_MAGIC, strlen(EMU_IMAGE_MAGIC)) != 0)
        return NULL;
    const char *s = strstr(image, source_mark);
    return s ? s + strlen(source_mark) : NULL;
}

/* ---- building ----------------------------------------------------------------- */

typedef struct hash2 {
    uint64_t a, b;
} hash2;

static void hash_bytes(hash2 *h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h->a = (h->a ^ (unsigned char)s[i]) * 0x100000001b3ULL;
        h->b = (h->b ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    }
    h->a ^= n;
    h->b += n;
}

/* Whether text t has line `head NAME)` already (a kernel defined in two
 * branches of an #if is named twice). */
static int has_line(const text *t, const char *head, const char *name,
                    size_t len)
{
    char line[256];
    snprintf(line, sizeof line, "%s%.*s)\n", head, (int)len, name);
    return t->s && strstr(t->s, line) != NULL;
}

/* A stand-in for each kernel, found by ::NAME only where the source does
 * not define NAME (it is inside an #if that is not compiled). */
static void absent_decl(const char *name, size_t len, void *ctx)
{
    if (has_line(ctx, "ACC_EMU_ABSENT(", name, len))
        return;
    puts_text(ctx, "ACC_EMU_ABSENT(");
    put(ctx, name, len);
    puts_text(ctx, ")\n");
}

static void entry_macro(const char *name, size_t len, void *ctx)
{
    if (has_line(ctx, "ACC_EMU_ENTRY(", name, len))
        return;
    puts_text(ctx, "ACC_EMU_ENTRY(");
    put(ctx, name, len);
    puts_text(ctx, ")\n");
}

/* mkdir -p dir: 0 when it exists afterwards (the cache's default lies in
 * the source tree's .cache/, which may not exist yet). */
static int make_dirs(const char *dir)
{
    char path[1024];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

static const char *compiler(void)
{
    const char *c = getenv("ACC_EMU_CXX");
    return c && *c ? c : "c++";
}

static const char *cache_dir(void)
{
    const char *c = getenv("ACC_EMU_CACHE");
    return c && *c ? c : ACC_EMU_CACHE;
}

/* An exclusive lock on file `path` (made if missing), waiting for its
 * holder; the descriptor, or -1 when it cannot be had (the build then
 * goes on unlocked: a duplicate build is slower, not wrong, as each
 * writes its own temporary files and renames its result into place). */
static int lock_file(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Releases lock_file's lock and removes the file: whoever waits on it
 * already has it open, and everyone looks for the module again once it
 * holds the lock. */
static void unlock_file(int fd, const char *path)
{
    if (fd < 0)
        return;
    unlink(path);
    close(fd);
}

/* The folder holding cuda_emu.h precompiled (cuda_emu.h.gch) for the
 * header whose hash is h, built when missing; "" when it cannot be (the
 * build then parses the header itself).  GCC looks for NAME.gch in each
 * include folder before NAME, so this folder is passed first. */
static void pch_dir(const char *dir, hash2 h, char *out, size_t size)
{
    char gch[1300], tmp[1400], command[8192];
    snprintf(out, size, "%s/pch-%016llx%016llx", dir, (unsigned long long)h.a,
             (unsigned long long)h.b);
    snprintf(gch, sizeof gch, "%s/cuda_emu.h.gch", out);
    if (access(gch, R_OK) == 0)
        return;
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        out[0] = '\0';
        return;
    }
    snprintf(tmp, sizeof tmp, "%s.lock", gch);
    int fd = lock_file(tmp); /* one process builds it, the others wait */
    if (access(gch, R_OK) != 0) {
        char part[1400];
        snprintf(part, sizeof part, "%s.%ld.tmp", gch, (long)getpid());
        snprintf(command, sizeof command, "%s %s -x c++-header -o '%s' "
                 "'%s/cuda_emu.h' >/dev/null 2>&1", compiler(), cxx_pch_flags,
                 part, ACC_EMU_INCLUDE);
        if (system(command) != 0 || rename(part, gch) != 0) {
            remove(part);
            out[0] = '\0';
        }
    }
    unlock_file(fd, tmp);
}

static int compile_module(const char *source, const char *so_path,
                          const char *dir, hash2 header_hash, char **log);

int emu_build(const char *source, char *so_path, size_t so_size, char **log)
{
    char header_path[1024], log_path[1200];
    hash2 h = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL};
    const char *dir = cache_dir();
    *log = NULL;
    snprintf(header_path, sizeof header_path, "%s/cuda_emu.h",
             ACC_EMU_INCLUDE);
    size_t hn = 0, ln = 0;
    char *header = read_file(header_path, &hn);
    snprintf(log_path, sizeof log_path, "%s/emu_launch.h", ACC_EMU_INCLUDE);
    char *launch = read_file(log_path, &ln);
    if (!header || !launch) {
        free(header);
        free(launch);
        *log = text_copy("the emulator's header cuda_emu.h cannot be read");
        return 0;
    }
    hash_bytes(&h, header, hn);
    hash_bytes(&h, launch, ln);
    free(header);
    free(launch);
    hash_bytes(&h, compiler(), strlen(compiler()));
    hash_bytes(&h, cxx_flags, strlen(cxx_flags));
    hash2 header_hash = h;
    hash_bytes(&h, source, strlen(source));
    snprintf(so_path, so_size, "%s/%016llx%016llx.so", dir,
             (unsigned long long)h.a, (unsigned long long)h.b);
    if (access(so_path, R_OK) == 0)
        return 1;
    if (make_dirs(dir) != 0) {
        char why[1200];
        snprintf(why, sizeof why, "cannot create the emulator's cache %s: %s",
                 dir, strerror(errno));
        *log = text_copy(why);
        return 0;
    }
    /* another process building the same module (the two shapes of a
     * suite run side by side under ctest -j, and start with the same
     * kernels) is waited for, not repeated */
    char lock[1300];
    snprintf(lock, sizeof lock, "%s.lock", so_path);
    int fd = lock_file(lock);
    int ok = access(so_path, R_OK) == 0 ||
             compile_module(source, so_path, dir, header_hash, log);
    unlock_file(fd, lock);
    return ok;
}

/* Builds the module of `source` into so_path (see emu_build). */
static int compile_module(const char *source, const char *so_path,
                          const char *dir, hash2 header_hash, char **log)
{
    char pch[1200], include[2600], cpp[1200], tmp_so[1200], log_path[1200],
        command[8192];
    pch_dir(dir, header_hash, pch, sizeof pch);
    if (pch[0])
        snprintf(include, sizeof include, "-I'%s' -I'%s'", pch,
                 ACC_EMU_INCLUDE);
    else
        snprintf(include, sizeof include, "-I'%s'", ACC_EMU_INCLUDE);
    static unsigned serial;
    snprintf(cpp, sizeof cpp, "%s.%ld.%u.cpp", so_path, (long)getpid(),
             serial);
    snprintf(tmp_so, sizeof tmp_so, "%s.%ld.%u.tmp", so_path, (long)getpid(),
             serial);
    snprintf(log_path, sizeof log_path, "%s.%ld.%u.log", so_path,
             (long)getpid(), serial++);
    text unit = {0};
    puts_text(&unit, "#include \"cuda_emu.h\"\n#line 1 \"kernel.cu\"\n");
    put_source(&unit, source);
    puts_text(&unit, "\n#line 1 \"emu-entries\"\nnamespace acc_emu_absent {\n");
    emu_kernels(source, absent_decl, &unit);
    puts_text(&unit, "}\nusing namespace acc_emu_absent;\n");
    emu_kernels(source, entry_macro, &unit);
    FILE *f = unit.failed ? NULL : fopen(cpp, "w");
    int ok = f && fputs(unit.s, f) >= 0;
    if (f)
        ok &= fclose(f) == 0;
    free(unit.s);
    if (!ok) {
        *log = text_copy("cannot write the emulated kernel's C++ source");
        remove(cpp);
        return 0;
    }
    snprintf(command, sizeof command, "%s %s %s -o '%s' '%s' >'%s' 2>&1",
             compiler(), cxx_flags, include, tmp_so, cpp, log_path);
    ok = system(command) == 0 && rename(tmp_so, so_path) == 0;
    if (!ok) {
        char *text_log = read_file(log_path, NULL);
        size_t n = (text_log ? strlen(text_log) : 0) + strlen(command) + 64;
        *log = malloc(n);
        if (*log)
            snprintf(*log, n, "%s failed:\n%s", command,
                     text_log ? text_log : "");
        free(text_log);
        remove(tmp_so);
    }
    if (ok) /* kept when it fails, for whoever reads the log */
        remove(cpp);
    remove(log_path);
    return ok;
}
