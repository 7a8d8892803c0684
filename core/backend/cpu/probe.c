/*
 * probe.c — choosing the toolchain of the CPU backend by its canaries
 * (see probe.h): the chain of toolchains tried, the report, the memo per
 * process and the stamp file per compiler.
 */
#include "core/backend/cpu/probe.h"

#include "core/backend/cpu/canary.h"
#include "core/base/mem.h"
#include "core/cache/cache_file.h"
#include "core/cache/cache_store.h"
#include "core/codegen/skeletons.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The toolchains tried, in order: each safer than the one before. */
typedef struct variant {
    const char *compiler; /* NULL: the configured command */
    int native;           /* -march=native when the compiler accepts it */
    int no_loop_vectorize; /* the loop vectoriser turned off */
} variant;

static const variant chain[] = {
    {NULL, 1, 0}, {NULL, 1, 1}, {NULL, 0, 1}, {"clang", 1, 0}, {"clang", 0, 0},
};
enum { N_CHAIN = sizeof chain / sizeof chain[0] };

/* Outcomes: a toolchain passed; the configured compiler does not build
 * the canaries at all; every toolchain that built them failed one. */
enum { PROBE_OK = 1, PROBE_NO_COMPILER = 0, PROBE_CANARIES_FAILED = -1 };

typedef struct outcome {
    int result;      /* PROBE_* */
    int chosen;      /* the chain entry used (PROBE_OK) */
    char report[900];
} outcome;

/* ---- trying the chain --------------------------------------------------------- */

/* Whether the configured command is clang already (then the clang entries
 * would only repeat it). */
static int is_clang(const cpu_toolchain *tc)
{
    for (int i = 0; i < tc->n_words; i++) {
        const char *base = strrchr(tc->argv[i], '/');
        if (strncmp(base ? base + 1 : tc->argv[i], "clang", 5) == 0)
            return 1;
    }
    return 0;
}

/* The flag that turns the loop vectoriser off: gcc's, or clang's own
 * (clang refuses gcc's). */
static const char *no_loop_vectorize(const cpu_toolchain *base)
{
    return is_clang(base) ? "-fno-vectorize" : "-fno-tree-loop-vectorize";
}

static int make_variant(const cpu_toolchain *base, int v, cpu_toolchain *out)
{
    return cpu_toolchain_make(out, chain[v].compiler ? chain[v].compiler
                                                     : base->line_copy,
                              chain[v].native && base->native,
                              chain[v].no_loop_vectorize
                                  ? no_loop_vectorize(base) : NULL);
}

/* How the report names chain entry v ("-fno-tree-loop-vectorize without
 * -march=native"). */
static void variant_says(const cpu_toolchain *base, int v, char *buf,
                         size_t size)
{
    const char *what = chain[v].compiler ? chain[v].compiler
                     : chain[v].no_loop_vectorize ? no_loop_vectorize(base)
                     : "the configured flags";
    snprintf(buf, size, "%s%s", what,
             chain[v].native ? "" : " without -march=native");
}

static void append(char *buf, size_t size, const char *fmt, const char *a,
                   const char *b)
{
    size_t at = strlen(buf);
    if (at < size)
        snprintf(buf + at, size - at, fmt, a, b);
}

/* Tries the chain from the configured toolchain `base`. */
static void try_chain(const cpu_toolchain *base, outcome *o)
{
    char tried[N_CHAIN][sizeof base->desc];
    char failures[600] = "", says[80];
    int attempt = 0;
    o->result = PROBE_CANARIES_FAILED;
    for (int v = 0; v < N_CHAIN && o->result != PROBE_OK; v++) {
        cpu_toolchain tc;
        cpu_canary_report r;
        if ((chain[v].compiler && is_clang(base)) || !make_variant(base, v, &tc))
            continue;
        int repeat = 0;
        for (int t = 0; t < attempt; t++)
            repeat |= strcmp(tried[t], tc.desc) == 0;
        if (repeat) {
            cpu_toolchain_free(&tc);
            continue;
        }
        snprintf(tried[attempt], sizeof tried[attempt], "%s", tc.desc);
        int passed = cpu_canaries_run(&tc, attempt++, &r);
        cpu_toolchain_free(&tc);
        if (passed) {
            o->result = PROBE_OK;
            o->chosen = v;
        } else if (!r.built && v == 0) {
            o->result = PROBE_NO_COMPILER;
            snprintf(o->report, sizeof o->report, "%.511s", r.d.message);
            return;
        } else if (!r.built) {
            variant_says(base, v, says, sizeof says);
            append(failures, sizeof failures, "%s%s did not build them",
                   *failures ? "; " : "", says);
        } else {
            variant_says(base, v, says, sizeof says);
            append(failures, sizeof failures, "%scanar%s", *failures ? "; " : "",
                   strchr(r.failed, ',') ? "ies " : "y ");
            append(failures, sizeof failures, "%s failed with %s", r.failed,
                   says);
        }
    }
    if (o->result == PROBE_OK)
        variant_says(base, o->chosen, says, sizeof says);
    if (o->result == PROBE_OK && o->chosen == 0)
        snprintf(o->report, sizeof o->report, "canaries: %d passed (%s)",
                 cpu_canary_count(), cpu_canary_names());
    else if (o->result == PROBE_OK)
        snprintf(o->report, sizeof o->report, "%s; using %s: %d canaries "
                 "passed (%s)", failures, says, cpu_canary_count(),
                 cpu_canary_names());
    else
        snprintf(o->report, sizeof o->report, "no compiler and flags tried "
                 "pass the canaries: %s", failures);
}

/* ---- the stamp file ------------------------------------------------------------- */

#define STAMP_MAGIC "accel-cpu-canaries-v1"

/* The stamp's key: 0 when the compiler's identity is unknown (it did not
 * run: the probe must compile to say why). */
static int stamp_key(const cpu_toolchain *base, char key[CACHE_KEY_LEN + 1])
{
    strbuf id = {0};
    cache_hash h;
    const char *hook = getenv("ACC_CPU_CANARY_BREAK");
    int known = cpu_toolchain_identity(base, &id);
    cpu_word_identity("clang", &id);
    cache_hash_init(&h);
    cache_hash_text(&h, STAMP_MAGIC);
    cache_hash_text(&h, base->desc);
    cache_hash_text(&h, id.text && !id.failed ? id.text : "");
    cache_hash_text(&h, cg_skeleton("cpu/prelude.h.in"));
    cache_hash_text(&h, cg_skeleton("cpu/canary.c.in"));
    for (int v = 0; v < N_CHAIN; v++) {
        char says[80];
        variant_says(base, v, says, sizeof says);
        cache_hash_text(&h, says);
    }
    cache_hash_text(&h, hook ? hook : "");
    cache_hash_key(&h, key);
    known = known && !id.failed;
    sb_free(&id);
    return known;
}

/* The stamp's name in the cache folder. */
static void stamp_name(const char *key, char *buf, size_t size)
{
    snprintf(buf, size, "canaries-%s.txt", key);
}

/* The outcome recorded in a stamp, when there is one whose seal verifies
 * (core/cache/cache_file.h: a stamp is trusted exactly as a kernel is). */
static int stamp_read(const cache_folder *f, const char *name,
                      const char *key, outcome *o)
{
    unsigned char *bytes = NULL;
    size_t n = 0;
    int chosen = -2, got = 0;
    if (!cache_file_open(f, name, key, &bytes, &n, NULL))
        return 0;
    const char *text = (const char *)bytes;
    const char *report = strstr(text, "\nreport ");
    if (strncmp(text, STAMP_MAGIC "\nchosen ", sizeof STAMP_MAGIC + 7) == 0 &&
        sscanf(text + sizeof STAMP_MAGIC + 7, "%d", &chosen) == 1 &&
        chosen >= -1 && chosen < N_CHAIN && report) {
        report += strlen("\nreport ");
        snprintf(o->report, sizeof o->report, "%.*s",
                 (int)strcspn(report, "\n"), report);
        o->result = chosen >= 0 ? PROBE_OK : PROBE_CANARIES_FAILED;
        o->chosen = chosen < 0 ? 0 : chosen;
        got = 1;
    }
    free(bytes);
    return got;
}

/* Records o; a cache that cannot take it only costs later processes a
 * probe of their own. */
static void stamp_write(cache_folder *f, const char *name, const char *key,
                        const outcome *o)
{
    char text[1100];
    diag d;
    diag_clear(&d);
    int n = snprintf(text, sizeof text, STAMP_MAGIC "\nchosen %d\nreport %s\n",
                     o->result == PROBE_OK ? o->chosen : -1, o->report);
    if (n > 0 && (size_t)n < sizeof text)
        (void)cache_file_publish(f, name, key, text, (size_t)n, NULL, &d);
}

/* The outcome for configured toolchain `base`: from its stamp in the
 * cache folder when there is one, else by trying the chain (and then
 * stamped, unless the configured compiler did not work: that may be
 * mended without the compiler changing). */
static void decide(const cpu_toolchain *base, const char *cache_dir,
                   outcome *o)
{
    cache_folder f;
    char key[CACHE_KEY_LEN + 1], name[64];
    diag d;
    diag_clear(&d);
    int stamped = stamp_key(base, key) &&
                  cache_folder_init(&f, cache_dir, &d) == ACC_OK;
    if (stamped && !(cache_folder_resolve(&f, &d) == ACC_OK && f.fd >= 0)) {
        cache_folder_free(&f);
        stamped = 0;
    }
    if (stamped) {
        stamp_name(key, name, sizeof name);
        if (stamp_read(&f, name, key, o)) {
            size_t at = strlen(o->report);
            snprintf(o->report + at, sizeof o->report - at,
                     " (recorded earlier in %s/%s)",
                     f.dir, name);
            cache_folder_free(&f);
            return;
        }
    }
    try_chain(base, o);
    if (stamped && o->result != PROBE_NO_COMPILER)
        stamp_write(&f, name, key, o);
    if (stamped)
        cache_folder_free(&f);
}

/* ---- the memo and the entry point ----------------------------------------------- */

typedef struct probe_memo {
    char desc[640];
    char hook[128];
    outcome o;
    struct probe_memo *next;
} probe_memo;

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static probe_memo *probes;

int cpu_toolchain_probe(cpu_toolchain *tc, const char *cache_dir,
                        char *report, size_t report_len)
{
    const char *hook = getenv("ACC_CPU_CANARY_BREAK");
    outcome o = {PROBE_NO_COMPILER, 0, "out of host memory"};
    pthread_mutex_lock(&probe_lock);
    probe_memo *m = probes;
    while (m && (strcmp(m->desc, tc->desc) != 0 ||
                 strcmp(m->hook, hook ? hook : "") != 0))
        m = m->next;
    if (!m && (m = mem_calloc(1, sizeof *m)) != NULL) {
        snprintf(m->desc, sizeof m->desc, "%s", tc->desc);
        snprintf(m->hook, sizeof m->hook, "%s", hook ? hook : "");
        decide(tc, cache_dir, &m->o);
        m->next = probes;
        probes = m;
    }
    if (m)
        o = m->o;
    pthread_mutex_unlock(&probe_lock);
    cpu_toolchain chosen;
    if (o.result == PROBE_OK && o.chosen != 0) {
        if (!make_variant(tc, o.chosen, &chosen)) {
            snprintf(report, report_len, "out of host memory");
            return PROBE_NO_COMPILER;
        }
        cpu_toolchain_free(tc);
        *tc = chosen;
    }
    snprintf(report, report_len, "%s", o.report);
    return o.result;
}

void cpu_toolchain_probe_forget(void)
{
    pthread_mutex_lock(&probe_lock);
    while (probes) {
        probe_memo *next = probes->next;
        free(probes);
        probes = next;
    }
    pthread_mutex_unlock(&probe_lock);
}
