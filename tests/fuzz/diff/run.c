/*
 * run.c — one seed: its program built and compiled in every configuration
 * (the interpreter without fusion, the interpreter, cpu, cuda when there
 * is a device), run on every data set, and compared:
 *  - cpu and cuda against the interpreter: the same status, the same
 *    message on failure, the outputs by compare.c's rules;
 *  - the fused interpreter against the unfused one: the same values when
 *    both run; an error only the fused program reports is a fusion bug;
 *    an error only the unfused program reports is allowed (fusion
 *    computes only the producer elements its consumers read) except in a
 *    strict program, where no producer can fail, so that the error must
 *    come from a read the fused program also makes (bug (b)).
 */
#include "diff.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct dz_runner {
    dz_options opt;
    acc_context *ctx[DZ_N_CONFIGS];
    char why[DZ_N_CONFIGS][DZ_MSG];
    struct dz_nvrtc *nvrtc;
    char nvrtc_why[DZ_MSG];
};

static const char *const config_names[DZ_N_CONFIGS] = {
    "interp-unfused", "interp", "cpu", "cuda"};

const char *dz_config_name(dz_config c)
{
    return (unsigned)c < DZ_N_CONFIGS ? config_names[c] : "?";
}

static acc_context *open_context(acc_backend b, const char *cache_dir,
                                 char *why)
{
    acc_context_options o;
    acc_context *ctx = NULL;
    acc_context_options_init(&o);
    o.backend = b;
    o.cache_dir = cache_dir;
    if (acc_context_create(&o, &ctx) != ACC_OK)
        snprintf(why, DZ_MSG, "%s", acc_last_error());
    return ctx;
}

dz_runner *dz_runner_open(const dz_options *o, const char *cache_dir,
                          char *why, size_t len)
{
    dz_runner *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(why, len, "out of memory");
        return NULL;
    }
    r->opt = *o;
    r->ctx[DZ_UNFUSED] = open_context(ACC_BACKEND_INTERP, NULL, r->why[0]);
    r->ctx[DZ_INTERP] = open_context(ACC_BACKEND_INTERP, NULL, r->why[1]);
    r->ctx[DZ_CPU] = open_context(ACC_BACKEND_CPU, cache_dir, r->why[2]);
    if (o->cuda)
        r->ctx[DZ_CUDA] = open_context(ACC_BACKEND_CUDA, cache_dir, r->why[3]);
    else
        snprintf(r->why[3], DZ_MSG, "not asked for");
    /* CUDA's exp, sin, ... are not the host libm's: where cuda runs,
     * programs leave libm functions out (sqrt and / stay: IEEE there) */
    if (r->ctx[DZ_CUDA])
        r->opt.exact_math = 1;
    if (!r->ctx[DZ_UNFUSED] || !r->ctx[DZ_INTERP]) {
        snprintf(why, len, "no interpreter context: %s", r->why[1]);
        dz_runner_close(r);
        return NULL;
    }
    if (o->nvrtc > 0)
        r->nvrtc = dz_nvrtc_open(r->nvrtc_why, sizeof r->nvrtc_why);
    else
        snprintf(r->nvrtc_why, sizeof r->nvrtc_why, "not asked for");
    return r;
}

void dz_runner_close(dz_runner *r)
{
    if (!r)
        return;
    for (int c = 0; c < DZ_N_CONFIGS; c++)
        acc_context_destroy(r->ctx[c]);
    dz_nvrtc_close(r->nvrtc);
    free(r);
}

int dz_runner_has_cuda(const dz_runner *r, const char **why)
{
    *why = r->why[DZ_CUDA];
    return r->ctx[DZ_CUDA] != NULL;
}

int dz_runner_has_nvrtc(const dz_runner *r, const char **why)
{
    *why = r->nvrtc_why;
    return r->nvrtc != NULL;
}

void dz_outcome_release(dz_outcome *o)
{
    for (size_t i = 0; o->st == ACC_OK && i < o->n; i++)
        acc_array_release(&o->out[i]);
    o->n = 0;
}

void dz_stats_add(dz_stats *into, const dz_stats *s)
{
    uint64_t *a = (uint64_t *)into;
    const uint64_t *b = (const uint64_t *)s;
    for (size_t i = 0; i < sizeof *s / sizeof *b; i++)
        a[i] += b[i];
}

/* ---- one seed ------------------------------------------------------------------ */

typedef struct seed_state {
    dz_runner *r;
    uint64_t seed;
    dz_stats *st;
    acc_graph *g[DZ_N_CONFIGS];
    dz_program prog[DZ_N_CONFIGS];
    acc_program *p[DZ_N_CONFIGS];
    acc_status compile_st[DZ_N_CONFIGS];
    char compile_msg[DZ_N_CONFIGS][DZ_MSG];
    acc_program *shadow; /* the reference's shadows, on the interpreter */
    char *fail;
    size_t fail_len;
    int failed;
    int written; /* the reproducer's files */
} seed_state;

static int failf(seed_state *s, const char *fmt, const char *a, const char *b)
{
    if (!s->failed)
        snprintf(s->fail, s->fail_len, fmt, a, b);
    s->failed = 1;
    return 0;
}

static acc_status compile_in(seed_state *s, dz_config c)
{
    const char *old = getenv("ACC_DISABLE");
    char saved[256];
    snprintf(saved, sizeof saved, "%s", old ? old : "");
    if (c == DZ_UNFUSED)
        setenv("ACC_DISABLE", "simplify,fusion", 1);
    const dz_program *pr = &s->prog[c];
    acc_status st = acc_compile(s->r->ctx[c], s->g[c], pr->n_out, pr->out, &s->p[c]);
    if (c == DZ_UNFUSED) {
        if (old)
            setenv("ACC_DISABLE", saved, 1);
        else
            unsetenv("ACC_DISABLE");
    }
    if (st != ACC_OK)
        snprintf(s->compile_msg[c], DZ_MSG, "%s", acc_last_error());
    return st;
}

/* The cpu plan's compiled and interpreted steps. */
static void count_plan(seed_state *s, const acc_program *p)
{
    char *json = NULL;
    if (acc_program_explain(p, 1, &json) != ACC_OK)
        return;
    const char *k = strstr(json, "\"kernels\":");
    const char *i = strstr(json, "\"interpreted\":");
    if (k)
        s->st->kernels += strtoull(k + 10, NULL, 10);
    if (i)
        s->st->interpreted += strtoull(i + 14, NULL, 10);
    acc_free(json);
}

static int build_all(seed_state *s)
{
    for (int c = 0; c < DZ_N_CONFIGS; c++) {
        if (!s->r->ctx[c])
            continue;
        if (acc_graph_create(s->r->ctx[c], &s->g[c]) != ACC_OK)
            return failf(s, "no graph: %s%s", acc_last_error(), "");
        if (!dz_generate(s->r->ctx[c], s->g[c], s->seed, &s->r->opt, &s->prog[c]))
            return failf(s, "generator: %s%s", s->prog[c].error, "");
        s->compile_st[c] = compile_in(s, (dz_config)c);
        s->st->per_config_programs[c]++;
        if (s->r->opt.show && s->p[c] && c <= DZ_INTERP)
            dz_print_program(stdout, s->p[c], c == DZ_UNFUSED
                                                  ? "the program (unfused)"
                                                  : "after fusion");
        if (s->r->opt.show && !s->p[c])
            printf("%s does not compile: %s\n", config_names[c],
                   s->compile_msg[c]);
    }
    for (int c = 0; c < DZ_N_CONFIGS; c++) {
        if (!s->r->ctx[c] || c == DZ_INTERP)
            continue;
        if (s->compile_st[c] != s->compile_st[DZ_INTERP] ||
            (s->compile_st[c] != ACC_OK &&
             strcmp(s->compile_msg[c], s->compile_msg[DZ_INTERP]) != 0)) {
            char a[2 * DZ_MSG];
            snprintf(a, sizeof a, "%s: %s (%s); interp: %s (%s)",
                     config_names[c], acc_status_string(s->compile_st[c]),
                     s->compile_msg[c], acc_status_string(s->compile_st[DZ_INTERP]),
                     s->compile_msg[DZ_INTERP]);
            return failf(s, "compile: %s%s", a, "");
        }
    }
    if (s->compile_st[DZ_INTERP] != ACC_OK)
        return failf(s, "the reference does not compile: %s%s",
                     s->compile_msg[DZ_INTERP], "");
    if (s->p[DZ_CPU])
        count_plan(s, s->p[DZ_CPU]);
    return 1;
}

static int build_shadow(seed_state *s)
{
    const dz_program *pr = &s->prog[DZ_INTERP];
    acc_node *sh[DZ_MAX_OUTPUTS];
    size_t n = 0;
    for (size_t i = 0; i < pr->n_out; i++)
        if (pr->shadow[i])
            sh[n++] = pr->shadow[i];
    if (n == 0)
        return 1;
    if (acc_compile(s->r->ctx[DZ_INTERP], s->g[DZ_INTERP], n, sh, &s->shadow) != ACC_OK)
        return failf(s, "the shadow program does not compile: %s%s",
                     acc_last_error(), "");
    return 1;
}

static void run_one(acc_program *p, const dz_data *d, size_t n_out,
                    dz_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->n = n_out;
    for (size_t i = 0; i < n_out; i++)
        o->out[i].struct_size = sizeof o->out[i];
    o->st = acc_run(p, d->n_in, d->in, n_out, o->out);
    if (o->st != ACC_OK) {
        snprintf(o->msg, sizeof o->msg, "%s", acc_last_error());
        o->n = 0;
    }
}

static size_t shadow_slot(const dz_program *pr, size_t out)
{
    size_t k = 0;
    for (size_t i = 0; i < out; i++)
        k += pr->shadow[i] != NULL;
    return k;
}

/* Compares configuration c's outcome with the reference's. */
static int against_reference(seed_state *s, dz_config c, const dz_outcome *o,
                             const dz_outcome *ref, const dz_outcome *shadow,
                             const char *where)
{
    char what[2 * DZ_MSG + 200];
    const dz_program *pr = &s->prog[DZ_INTERP];
    if (o->st != ref->st || (o->st != ACC_OK && strcmp(o->msg, ref->msg) != 0)) {
        snprintf(what, sizeof what, "%s: %s (%s); interp: %s (%s)",
                 config_names[c], acc_status_string(o->st), o->msg,
                 acc_status_string(ref->st), ref->msg);
        return failf(s, "%s: %s", where, what);
    }
    for (size_t i = 0; o->st == ACC_OK && i < pr->n_out; i++) {
        char why[DZ_MSG];
        dz_cmp cmp = c == DZ_UNFUSED ? DZ_CMP_EXACT : pr->cmp[i];
        const acc_array *sh = cmp != DZ_CMP_EXACT && pr->shadow[i] &&
                                      shadow->st == ACC_OK
                                  ? &shadow->out[shadow_slot(pr, i)] : NULL;
        if (!dz_compare_output(&o->out[i], &ref->out[i], cmp, pr->ulps[i], sh, why,
                               sizeof why, &s->st->unbounded)) {
            snprintf(what, sizeof what, "%s output %zu: %s", config_names[c],
                     i, why);
            return failf(s, "%s: %s", where, what);
        }
    }
    return 1;
}

/* The unfused interpreter against the fused one (see the file comment). */
static int fusion_agrees(seed_state *s, const dz_outcome *unfused,
                         const dz_outcome *ref, const dz_outcome *shadow,
                         const char *where)
{
    char what[2 * DZ_MSG];
    if (unfused->st == ACC_OK && ref->st == ACC_OK)
        return against_reference(s, DZ_UNFUSED, unfused, ref, shadow, where);
    if (unfused->st == ACC_OK) {
        snprintf(what, sizeof what, "the fused program fails (%s: %s), the "
                 "unfused one runs", acc_status_string(ref->st), ref->msg);
        return failf(s, "%s: %s", where, what);
    }
    if (ref->st == ACC_OK && s->prog[DZ_INTERP].strict) {
        snprintf(what, sizeof what, "the unfused program fails (%s: %s), the "
                 "fused one runs, and no producer of this strict program can "
                 "fail: fusion dropped a check", acc_status_string(unfused->st),
                 unfused->msg);
        return failf(s, "%s: %s", where, what);
    }
    s->st->lazy_skips += ref->st == ACC_OK;
    return 1;
}

static void count_run(seed_state *s, dz_config c, const dz_outcome *o)
{
    s->st->per_config_runs[c]++;
    s->st->runs++;
    if (c == DZ_INTERP) {
        if (o->st == ACC_OK)
            s->st->runs_ok++;
        else
            s->st->runs_err++;
        for (int k = 0; k < DZ_N_CLASSES; k++)
            s->st->per_class_runs[k] += (s->prog[DZ_INTERP].classes >> k) & 1;
    }
}

static void show_outcome(const seed_state *s, dz_config c, const dz_outcome *o)
{
    if (!s->r->opt.show)
        return;
    printf("  %-15s %s%s%s\n", config_names[c], acc_status_string(o->st),
           o->st != ACC_OK ? ": " : "", o->st != ACC_OK ? o->msg : "");
    for (size_t i = 0; o->st == ACC_OK && i < o->n; i++) {
        char what[64];
        snprintf(what, sizeof what, "    output %zu", i);
        dz_print_array(stdout, what, &o->out[i], 24);
    }
}

/* A second run of the CPU program on the same data must give the first
 * run's outcome bit for bit: kernels are deterministic whatever the
 * threads do, and a program that is one fold over its inputs runs direct
 * the second time (docs/CPU_BACKEND.md "Direct runs"; few generated
 * programs are, most have several outputs: tests/e2e/test_direct_runs.c
 * covers those). */
static int same_again(seed_state *s, const dz_data *d, size_t n_out,
                      const dz_outcome *first, const char *where)
{
    dz_outcome again;
    char what[2 * sizeof again.msg + 200];
    run_one(s->p[DZ_CPU], d, n_out, &again);
    int ok = again.st == first->st &&
             (again.st == ACC_OK || strcmp(again.msg, first->msg) == 0);
    if (!ok)
        snprintf(what, sizeof what, "cpu, run again: %.40s (%.600s); first "
                 "run: %.40s (%.600s)", acc_status_string(again.st),
                 again.msg, acc_status_string(first->st), first->msg);
    for (size_t i = 0; ok && again.st == ACC_OK && i < n_out; i++) {
        char why[DZ_MSG];
        uint64_t unbounded = 0;
        if (!dz_compare_output(&again.out[i], &first->out[i], DZ_CMP_EXACT, 0,
                               NULL, why, sizeof why, &unbounded)) {
            snprintf(what, sizeof what, "cpu output %zu, run again: %s", i,
                     why);
            ok = 0;
        }
    }
    dz_outcome_release(&again);
    return ok || failf(s, "%s: %s", where, what);
}

/* A test of the fuzzer: the first element of the first non-empty output
 * changed, which the comparison must report. */
static void corrupt(dz_outcome *o)
{
    for (size_t i = 0; o->st == ACC_OK && i < o->n; i++)
        if (acc_array_size(&o->out[i]) > 0) {
            *(unsigned char *)o->out[i].data[0] ^= 1;
            return;
        }
}

static int run_data_set(seed_state *s, int which)
{
    dz_data d;
    dz_outcome o[DZ_N_CONFIGS], shadow = {.st = ACC_ERR_INTERNAL};
    char where[300];
    int again_ok = 1; /* the CPU program's second run agreed */
    if (!dz_data_make(&d, s->seed, which, &s->prog[DZ_INTERP], s->p[DZ_INTERP])) {
        dz_data_free(&d);
        return failf(s, "data set %s: %s", "?", "could not be made");
    }
    snprintf(where, sizeof where, "data set %d (%s)", which, d.desc);
    if (s->r->opt.show) {
        printf("\n%s\n", where);
        for (size_t i = 0; i < d.n_in; i++) {
            char what[32];
            snprintf(what, sizeof what, "  in%zu", i);
            dz_print_array(stdout, what, &d.in[i], 16);
        }
    }
    const size_t n_out = s->prog[DZ_INTERP].n_out;
    for (int c = 0; c < DZ_N_CONFIGS; c++) {
        memset(&o[c], 0, sizeof o[c]);
        if (!s->p[c])
            continue;
        run_one(s->p[c], &d, n_out, &o[c]);
        if (c == DZ_CPU)
            again_ok = same_again(s, &d, n_out, &o[c], where);
        if (c == DZ_CPU && s->r->opt.inject == 1)
            corrupt(&o[c]);
        count_run(s, (dz_config)c, &o[c]);
        show_outcome(s, (dz_config)c, &o[c]);
    }
    if (s->shadow && o[DZ_INTERP].st == ACC_OK)
        run_one(s->shadow, &d, acc_program_num_outputs(s->shadow), &shadow);
    int ok = again_ok &&
             fusion_agrees(s, &o[DZ_UNFUSED], &o[DZ_INTERP], &shadow, where);
    for (int c = DZ_CPU; ok && c < DZ_N_CONFIGS; c++)
        if (s->p[c])
            ok = against_reference(s, (dz_config)c, &o[c], &o[DZ_INTERP],
                                   &shadow, where);
    for (int c = 0; c < DZ_N_CONFIGS; c++)
        dz_outcome_release(&o[c]);
    dz_outcome_release(&shadow);
    const char *dir = s->r->opt.write_dir;
    if (dir && !s->written &&
        (!ok || which == s->r->opt.n_data - 1 || s->failed)) {
        char why[DZ_MSG], title[400];
        snprintf(title, sizeof title, "seed %" PRIu64 ", %s", s->seed, where);
        s->written = dz_write_repro(dir, s->p[DZ_UNFUSED], &d, title, why,
                                    sizeof why);
        printf(s->written ? "the program and the inputs of %s are in %s/\n"
                          : "%s: %s\n", s->written ? where : dir,
               s->written ? dir : why);
    }
    dz_data_free(&d);
    return ok;
}

/* The cpu plan's count of direct runs, once the seed's runs are over. */
static void count_direct(seed_state *s, const acc_program *p)
{
    char *json = NULL;
    if (!p || acc_program_explain(p, 1, &json) != ACC_OK)
        return;
    const char *d = strstr(json, "\"direct\":{");
    const char *r = d ? strstr(d, "\"runs\":") : NULL;
    if (r)
        s->st->direct_runs += strtoull(r + 7, NULL, 10);
    acc_free(json);
}

static void finish(seed_state *s)
{
    count_direct(s, s->p[DZ_CPU]);
    acc_program_free(s->shadow);
    for (int c = 0; c < DZ_N_CONFIGS; c++) {
        acc_program_free(s->p[c]);
        acc_graph_free(s->g[c]);
    }
}

int dz_run_seed(dz_runner *r, uint64_t seed, dz_stats *st, char *fail,
                size_t len)
{
    seed_state s = {.r = r, .seed = seed, .st = st, .fail = fail,
                    .fail_len = len};
    fail[0] = '\0';
    st->programs++;
    if (r->opt.inject == 2)
        abort(); /* not SIGSEGV, which a sanitizer would report */
    if (r->opt.inject == 3)
        sleep(600);
    if (build_all(&s) && build_shadow(&s)) {
        const dz_program *pr = &s.prog[DZ_INTERP];
        for (int k = 0; k < DZ_N_CLASSES; k++)
            st->per_class_programs[k] += (pr->classes >> k) & 1;
        if (r->nvrtc && seed % (uint64_t)r->opt.nvrtc == 0) {
            char why[DZ_MSG];
            if (!dz_nvrtc_check(r->nvrtc, s.p[DZ_INTERP], r->opt.show, st,
                                why, sizeof why))
                failf(&s, "NVRTC: %s%s", why, "");
        }
        for (int d = 0; !s.failed && d < r->opt.n_data; d++)
            run_data_set(&s, d);
    }
    finish(&s);
    st->failures += (uint64_t)s.failed;
    return !s.failed;
}
