/*
 * toolchain.c — finding, running and probing the C compiler (see
 * toolchain.h).  The compiler runs through posix_spawnp with its output in
 * a log file next to the object; nothing goes through a shell.
 */
#include "core/backend/cpu/toolchain.h"

#include "core/base/hash.h"
#include "core/base/mem.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* -falign-loops=64: a kernel's hot loop is a few instructions; where it
 * straddles a 64-byte fetch window it ran up to 20% slower (measured on
 * the SMVM kernel, AMD Zen 5; gcc and clang both accept the flag). */
static const char *const cflags[] = {"-O3", "-fPIC", "-shared",
                                     "-fno-math-errno", "-fno-trapping-math",
                                     "-ffp-contract=off", "-falign-loops=64",
                                     "-std=c11"};
enum { N_CFLAGS = sizeof cflags / sizeof cflags[0] };

static const char *compiler_line(void)
{
    const char *v = getenv("ACC_CC");
    if (!v || !*v)
        v = getenv("CC");
    return v && *v ? v : "cc";
}

/* Whether glibc's vector math library can be linked: the prelude then
 * lets gcc call its vector exp/log from vectorised loops.  Asked once. */
static int have_libmvec(void)
{
    static int known = -1;
    if (known < 0) {
        void *lib = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
        known = lib != NULL;
        if (lib)
            dlclose(lib);
    }
    return known;
}

#define NATIVE_FLAG "-march=native"
#define WIDE_FLAG "-mprefer-vector-width=512"
#define NO_CONTRACT "-ffp-contract=off"
#define CONTRACT "-ffp-contract=fast"

/* Runs argv (argv[0] looked up in PATH) with stdin from /dev/null and
 * stdout and stderr into file `log`; *status is its wait status.  Returns
 * 0, or the errno of a failure to start it. */
static int spawn_logged(const char *const *argv, const char *log, int *status)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC,
                                     0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv,
                          environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        return rc;
    while (waitpid(pid, status, 0) < 0)
        if (errno != EINTR)
            return errno;
    return 0;
}

static int spawn_compiler(const cpu_toolchain *tc, const char *src,
                          const char *so, const char *log, int *status)
{
    const char *argv[CPU_MAX_WORDS + N_CFLAGS + 10];
    int n = 0;
    for (int i = 0; i < tc->n_words; i++)
        argv[n++] = tc->argv[i];
    for (int i = 0; i < N_CFLAGS; i++)
        argv[n++] = tc->contract && strcmp(cflags[i], NO_CONTRACT) == 0
                        ? CONTRACT
                        : cflags[i];
    if (tc->extra)
        argv[n++] = tc->extra;
    if (tc->native)
        argv[n++] = NATIVE_FLAG;
    if (tc->wide)
        argv[n++] = WIDE_FLAG;
    argv[n++] = "-o";
    argv[n++] = so;
    argv[n++] = src;
    if (have_libmvec())
        argv[n++] = "-lmvec";
    argv[n++] = "-lm";
    argv[n] = NULL;
    return spawn_logged(argv, log, status);
}

/* ---- the target: the instruction set of this machine ----------------------- */

/* Kernels are built for the machine they run on (-march=native): the
 * vectorised loops then use its widest vectors.  The cache key must then
 * say which machine that was, so the digest of the compiler's predefined
 * macros under -march=native (they name every instruction-set extension
 * it targets) is part of the toolchain's description: a cache folder
 * shared by different machines holds one object per target.
 * ACC_CPU_NATIVE=0 builds portable objects instead. */

/* The digest of `words [-march=native] -E -dM -x c /dev/null` (the
 * compiler's predefined macros: its version, and with the flag the target's
 * instruction-set extensions), or 0 when the compiler does not run or does
 * not accept the flag. */
static uint64_t macros_digest(char *const *words, int n_words, int native,
                              int *avx512)
{
    const char *argv[CPU_MAX_WORDS + 8];
    const char *tmp = getenv("TMPDIR");
    char log[1100];
    int n = 0, status = 0;
    snprintf(log, sizeof log, "%s/accel-target-XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(log);
    if (fd < 0)
        return 0;
    close(fd);
    for (int i = 0; i < n_words; i++)
        argv[n++] = words[i];
    const char *query[] = {NATIVE_FLAG, "-E", "-dM", "-x", "c", "/dev/null"};
    for (size_t i = native ? 0 : 1; i < sizeof query / sizeof *query; i++)
        argv[n++] = query[i];
    argv[n] = NULL;
    uint64_t h = 0;
    if (spawn_logged(argv, log, &status) == 0 && WIFEXITED(status) &&
        WEXITSTATUS(status) == 0) {
        FILE *f = fopen(log, "r");
        char buf[4096];
        h = hash_fnv1a_init();
        /* line by line: the digest is of the same bytes, and a line
         * defining __AVX512F__ says the target has 512-bit vectors */
        while (f && fgets(buf, sizeof buf, f)) {
            h = hash_fnv1a(h, buf, strlen(buf));
            if (strncmp(buf, "#define __AVX512F__ ", 20) == 0)
                *avx512 = 1;
        }
        if (f)
            fclose(f);
        h = f && h ? h : 0;
    }
    unlink(log);
    return h;
}

typedef struct target_memo {
    char line[512];
    int native;
    int avx512;
    uint64_t digest;
    struct target_memo *next;
} target_memo;

static pthread_mutex_t target_lock = PTHREAD_MUTEX_INITIALIZER;
static target_memo *targets;

/* macros_digest, asked once per process, compiler command and flag;
 * *avx512 (when not NULL) says whether that target has AVX-512F. */
static uint64_t macros(const cpu_toolchain *tc, int native, int *avx512)
{
    pthread_mutex_lock(&target_lock);
    target_memo *m = targets;
    while (m && (strcmp(m->line, tc->line_copy) != 0 || m->native != native))
        m = m->next;
    if (!m && (m = mem_calloc(1, sizeof *m)) != NULL) {
        snprintf(m->line, sizeof m->line, "%s", tc->line_copy);
        m->native = native;
        m->digest = macros_digest(tc->argv, tc->n_words, native, &m->avx512);
        m->next = targets;
        targets = m;
    }
    uint64_t d = m ? m->digest : 0;
    if (avx512)
        *avx512 = m && m->digest && m->avx512;
    pthread_mutex_unlock(&target_lock);
    return d;
}

/* The target digest when -march=native is wanted and accepted, else 0;
 * *avx512: whether that target has AVX-512F. */
static uint64_t native_target(const cpu_toolchain *tc, int want, int *avx512)
{
    const char *env = getenv("ACC_CPU_NATIVE");
    *avx512 = 0;
    if (!want || (env && strcmp(env, "0") == 0))
        return 0;
    return macros(tc, 1, avx512);
}

/* Whether kernels for an AVX-512 target prefer 512-bit vectors.  gcc and
 * clang default to 256-bit vectors even where -march=native has AVX-512
 * (for the older parts that lowered their clock on 512-bit code); on
 * this Xeon the wide loops (Black-Scholes, dotp) run faster with them
 * (bench/README.md, issue 22).  ACC_CPU_VECTOR_WIDTH=256 keeps the
 * compiler's default. */
static int wide_vectors(int avx512)
{
    const char *env = getenv("ACC_CPU_VECTOR_WIDTH");
    return avx512 && !(env && strcmp(env, "256") == 0);
}

/* A file's identity: where PATH finds `word` (or `word` itself when it
 * names a path), its size and modification time. */
void cpu_word_identity(const char *word, strbuf *b)
{
    char path[4096];
    struct stat st;
    int found = 0;
    if (strchr(word, '/')) {
        snprintf(path, sizeof path, "%s", word);
        found = stat(path, &st) == 0;
    }
    for (const char *dirs = strchr(word, '/') ? NULL : getenv("PATH");
         dirs && !found;) {
        size_t n = strcspn(dirs, ":");
        snprintf(path, sizeof path, "%.*s/%s", (int)n, n ? dirs : ".", word);
        found = stat(path, &st) == 0 && S_ISREG(st.st_mode);
        dirs = dirs[n] ? dirs + n + 1 : NULL;
    }
    if (found)
        sb_printf(b, "%s:%lld:%lld ", path, (long long)st.st_size,
                  (long long)st.st_mtime);
    else
        sb_printf(b, "%s:? ", word);
}

int cpu_toolchain_identity(const cpu_toolchain *tc, strbuf *b)
{
    uint64_t d = macros(tc, tc->native, NULL);
    for (int i = 0; i < tc->n_words; i++)
        cpu_word_identity(tc->argv[i], b);
    sb_printf(b, "macros %016llx", (unsigned long long)d);
    return d != 0;
}

int cpu_toolchain_init(cpu_toolchain *tc)
{
    return cpu_toolchain_make(tc, NULL, 1, NULL);
}

int cpu_toolchain_make(cpu_toolchain *tc, const char *command, int native,
                       const char *extra)
{
    memset(tc, 0, sizeof *tc);
    const char *line = command ? command : compiler_line();
    if (!(tc->line = mem_strdup(line)) || !(tc->line_copy = mem_strdup(line))) {
        cpu_toolchain_free(tc);
        return 0;
    }
    tc->extra = extra;
    char *save = NULL;
    for (char *w = strtok_r(tc->line, " \t", &save);
         w && tc->n_words < CPU_MAX_WORDS; w = strtok_r(NULL, " \t", &save))
        tc->argv[tc->n_words++] = w;
    if (tc->n_words == 0)
        tc->argv[tc->n_words++] = "cc";
    /* The description names everything that shapes a kernel binary (it is
     * part of the cache key): the compiler words, the flags, the libraries. */
    size_t at = 0;
    for (int i = 0; i < tc->n_words; i++)
        at += (size_t)snprintf(tc->desc + at, sizeof tc->desc - at, "%s ",
                               tc->argv[i]) % (sizeof tc->desc - at);
    for (int i = 0; i < N_CFLAGS; i++)
        at += (size_t)snprintf(tc->desc + at, sizeof tc->desc - at, "%s ",
                               cflags[i]) % (sizeof tc->desc - at);
    if (extra)
        at += (size_t)snprintf(tc->desc + at, sizeof tc->desc - at, "%s ",
                               extra) % (sizeof tc->desc - at);
    int avx512 = 0;
    uint64_t target = native_target(tc, native, &avx512);
    tc->native = target != 0;
    tc->wide = tc->native && wide_vectors(avx512);
    if (tc->native)
        at += (size_t)snprintf(tc->desc + at, sizeof tc->desc - at,
                               NATIVE_FLAG " (target %016llx) %s",
                               (unsigned long long)target,
                               tc->wide ? WIDE_FLAG " " : "") %
              (sizeof tc->desc - at);
    snprintf(tc->desc + at, sizeof tc->desc - at, "%s-lm",
             have_libmvec() ? "-lmvec " : "");
    return 1;
}

void cpu_toolchain_contract(cpu_toolchain *tc)
{
    char *at = strstr(tc->desc, NO_CONTRACT);
    if (tc->contract || !at)
        return;
    tc->contract = 1;
    char rest[sizeof tc->desc];
    snprintf(rest, sizeof rest, "%s", at + strlen(NO_CONTRACT));
    snprintf(at, sizeof tc->desc - (size_t)(at - tc->desc), "%s%s", CONTRACT,
             rest);
}

void cpu_toolchain_free(cpu_toolchain *tc)
{
    free(tc->line);
    free(tc->line_copy);
    memset(tc, 0, sizeof *tc);
}

/* The first part of a log file into err (the compiler's diagnostics). */
static void read_log(const char *log, char *err, size_t err_len)
{
    FILE *f = fopen(log, "r");
    size_t n = f ? fread(err, 1, err_len - 1, f) : 0;
    err[n] = '\0';
    if (f)
        fclose(f);
}

acc_status cpu_compile(const cpu_toolchain *tc, const char *src,
                       const char *so, diag *d)
{
    char log[4096];
    int status = 0;
    snprintf(log, sizeof log, "%s.log", so);
    int rc = spawn_compiler(tc, src, so, log, &status);
    if (rc != 0) {
        unlink(log);
        return diag_fail(d, ACC_ERR_COMPILE, "cannot run the C compiler "
                         "'%s': %s", tc->argv[0], strerror(rc));
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char out[768];
        read_log(log, out, sizeof out);
        diag_fail(d, ACC_ERR_COMPILE, "the C compiler '%s' failed (%s %d): "
                  "%s", tc->argv[0],
                  WIFEXITED(status) ? "exit status" : "signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
                  out);
        unlink(log);
        return d->status;
    }
    unlink(log);
    return ACC_OK;
}
