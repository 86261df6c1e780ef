/* bench/bench_cpu.c - CPU skinning and palette costs of gpuskin.h.

   usage: bench_cpu [--quick] [--csv PATH] [--threads-max N] [--reps N]

   One run measures, single-threaded unless said otherwise:
   - skinning of a 50,000-vertex mesh with a 64-joint palette (random rotation,
     non-uniform scale and translation; weights summing to 1): the oracle
     gpuskin_skin_cpu, the production path gpuskin_skin_cpu_fast, and a naive scalar
     LBS (bench/naive_lbs.c, compiled with the library's flags); LBS, DQS rigid and
     DQS with residual; 4 and 8 influences; positions / + normals / + tangents;
   - per-frame palette cost for 1, 64, 1,024 and 10,000 instances of a 64-joint
     skeleton: globals + placement + LBS packing (gpuskin_build_palettes, and the
     reference loop it replaces), and the dual-quaternion split + pack
     (gpuskin_pack_dq); the bytes each method uploads a frame;
   - gpuskin_build_palettes split over 1..N threads (pthreads, one range each).

   Every figure is the median of >= 20 timed samples after a warm-up; a sample is one
   call, or for calls under ~100 us a batch of calls timed together (the per-call
   figure is the batch's time / its count). Inputs are random and never zero;
   outputs are poisoned (NaN) before every sample and checked after it (every
   output finite and written; skinning also equal to the oracle's).

   --quick: a small correctness-only run for CI: the same code paths on small sizes,
   every check, no figure printed or asserted. Ends "N passed, N failed" as the
   test harness expects. */
#define _POSIX_C_SOURCE 200809L
#define GPUSKIN_NO_VULKAN
#define GPUSKIN_IMPLEMENTATION
#include "gpuskin.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void bench_naive_lbs(size_t n, const float *positions, const float *normals, const uint16_t *joints,
                     const float *weights, const float *palette, float *out_positions, float *out_normals);
/* The same source built with -fno-tree-vectorize: how much of the reference's speed
   is the compiler's auto-vectorisation (reported beside, never the reference). */
void bench_naive_lbs_novec(size_t n, const float *positions, const float *normals, const uint16_t *joints,
                           const float *weights, const float *palette, float *out_positions, float *out_normals);
/* And built with -mavx2 -mfma, run where the CPU has both: what the compiler makes of
   the naive loop for the instruction set gpuskin's AVX2 form uses (beside, never the
   reference, which has the library's flags). */
void bench_naive_lbs_avx2(size_t n, const float *positions, const float *normals, const uint16_t *joints,
                          const float *weights, const float *palette, float *out_positions, float *out_normals);
typedef void (*naive_fn)(size_t n, const float *positions, const float *normals, const uint16_t *joints,
                         const float *weights, const float *palette, float *out_positions, float *out_normals);

/* ---- settings, results, checks ------------------------------------------- */

/* Whether gpuskin's AVX2 + FMA skinning form runs here (its own test, repeated: the
   library does not export it). */
static int cpu_avx2_fma(void)
{
#if defined(GPUSKIN__FAST_AVX2)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

/* Which form LBS skinning takes on this CPU (gpuskin_skin_cpu_fast). */
static const char *skin_form(void)
{
#if defined(GPUSKIN__FAST_AVX512)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && cpu_avx2_fma())
        return "; LBS skinning AVX-512F (groups of 16; a last 8 AVX2 + FMA) on this CPU";
#endif
    return cpu_avx2_fma() ? "; LBS skinning AVX2 + FMA on this CPU" : "";
}

/* Which form gpuskin_build_palettes takes on this CPU (whole groups; a single
   instance: one at a time, rows with AVX2, one register a matrix with AVX-512). */
static const char *palette_form(void)
{
    static char text[80];
#if defined(GPUSKIN__FAST_AVX512)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && cpu_avx2_fma()) {
        snprintf(text, sizeof text, "16 instances a group (AVX-512); 1-%d one register a matrix",
                 GPUSKIN__FAST_P8_FROM - 1);
        return text;
    }
#endif
#if defined(GPUSKIN__FAST_SSE2)
    if (!cpu_avx2_fma()) return "4 instances a group (SSE2)";
    snprintf(text, sizeof text, "8 instances a group (AVX2 + FMA); 1-%d rows", GPUSKIN__FAST_ROWS_BELOW - 1);
    return text;
#else
    return "the reference path";
#endif
}

static int quick;
static int reps = 25;           /* timed samples per figure (>= 20) */
static FILE *csv;
static int passed, failed;

static void check(int ok, const char *what)
{
    if (ok) {
        ++passed;
    } else {
        ++failed;
        printf("FAIL %s\n", what);
    }
}

static int silent_failures;
static void check_silent(int ok) { silent_failures += !ok; }

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct stats { double median, min, max; int samples; } stats;

static stats summarise(double *t, int n)
{
    stats s;
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    s.median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    s.min = t[0];
    s.max = t[n - 1];
    s.samples = n;
    return s;
}

static void csv_row(const char *group, const char *variant, double size, int threads, stats s, int batch, double per,
                    const char *per_unit)
{
    if (!csv) return;
    fprintf(csv, "%s,%s,%.0f,%d,%d,%d,%.9g,%.9g,%.9g,%.6g,%s\n", group, variant, size, threads, s.samples, batch,
            s.median, s.min, s.max, per, per_unit);
}

/* ---- random data ------------------------------------------------------------ */

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint32_t rnd_u32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}
static float rnd(float a, float b) { return a + (b - a) * (float)(rnd_u32() & 0xFFFFFF) * (1.0f / 16777216.0f); }
static gpuskin_quat rnd_quat(void)
{
    gpuskin_quat q;
    q.x = rnd(-1, 1); q.y = rnd(-1, 1); q.z = rnd(-1, 1); q.w = rnd(-1, 1);
    return gpuskin_quat_normalize(q);
}
static gpuskin_trs rnd_trs(int scaled)
{
    gpuskin_trs t;
    t.translation.x = rnd(-1, 1); t.translation.y = rnd(-1, 1); t.translation.z = rnd(0.1f, 1);
    t.rotation = rnd_quat();
    t.scale.x = scaled ? rnd(0.7f, 1.4f) : 1.0f;
    t.scale.y = scaled ? rnd(0.7f, 1.4f) : 1.0f;
    t.scale.z = scaled ? rnd(0.7f, 1.4f) : 1.0f;
    return t;
}

static void poison(void *p, size_t bytes) { memset(p, 0xFF, bytes); } /* all NaN */

static int all_finite(const float *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (!(v[i] - v[i] == 0.0f)) return 0;
    return 1;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "bench_cpu: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

/* ---- the skinning benchmark ------------------------------------------------- */

#define JOINTS 64

typedef struct mesh {
    size_t n;
    float *pos, *nrm, *tan, *w[2];
    uint16_t *j[2];
} mesh;

/* Weights: 1..k non-zero influences (most vertices 2-4), summing to 1. */
static void make_mesh(mesh *m, size_t n, int k)
{
    size_t v;
    int i;
    m->n = n;
    m->pos = (float *)xmalloc(n * 12);
    m->nrm = (float *)xmalloc(n * 12);
    m->tan = (float *)xmalloc(n * 16);
    for (i = 0; i < 2; ++i) {
        m->w[i] = (float *)xmalloc(n * 16);
        m->j[i] = (uint16_t *)xmalloc(n * 8);
    }
    for (v = 0; v < n; ++v) {
        gpuskin_quat q = rnd_quat(), t = rnd_quat();
        float w[8], sum = 0.0f;
        const int used = 1 + (int)(rnd_u32() % (unsigned)k);
        m->pos[3 * v] = rnd(-1, 1); m->pos[3 * v + 1] = rnd(-1, 1); m->pos[3 * v + 2] = rnd(0, 2);
        m->nrm[3 * v] = q.x; m->nrm[3 * v + 1] = q.y; m->nrm[3 * v + 2] = q.z;
        m->tan[4 * v] = t.x; m->tan[4 * v + 1] = t.y; m->tan[4 * v + 2] = t.z; m->tan[4 * v + 3] = (rnd_u32() & 1) ? 1.0f : -1.0f;
        for (i = 0; i < 8; ++i) {
            w[i] = i < used ? rnd(0.05f, 1.0f) : 0.0f;
            sum += w[i];
        }
        for (i = 0; i < 8; ++i) {
            m->w[i / 4][4 * v + (size_t)(i % 4)] = w[i] / sum;
            m->j[i / 4][4 * v + (size_t)(i % 4)] = (uint16_t)(rnd_u32() % JOINTS);
        }
    }
}

static void free_mesh(mesh *m)
{
    int i;
    free(m->pos); free(m->nrm); free(m->tan);
    for (i = 0; i < 2; ++i) { free(m->w[i]); free(m->j[i]); }
}

typedef struct palettes {
    float lbs[JOINTS * 12], dq[JOINTS * 8], res[JOINTS * 12];
    uint32_t word;
} palettes;

/* A random palette: random rotation and translation, non-uniform scale unless rigid. */
static void make_palettes(palettes *p, int rigid)
{
    gpuskin_mat4 m[JOINTS];
    int j;
    for (j = 0; j < JOINTS; ++j) {
        gpuskin_trs t = rnd_trs(!rigid);
        t.translation.x *= 3.0f;
        m[j] = gpuskin_mat4_from_trs(&t);
    }
    gpuskin_pack_lbs(m, JOINTS, p->lbs);
    gpuskin_pack_dq(m, JOINTS, GPUSKIN_SPLIT_GRAM_SCHMIDT, p->dq, p->res, &p->word);
}

enum { ST_POS, ST_NRM, ST_TAN };
static const char *stream_name[] = {"pos", "pos+nrm", "pos+nrm+tan"};

static gpuskin_cpu_skin_desc skin_desc(const mesh *m, int k, int streams, const palettes *p, uint32_t word, float *out)
{
    gpuskin_cpu_skin_desc d;
    memset(&d, 0, sizeof d);
    d.streams.vertex_count = m->n;
    d.streams.positions.data = m->pos;
    if (streams >= ST_NRM) d.streams.normals.data = m->nrm;
    if (streams >= ST_TAN) d.streams.tangents.data = m->tan;
    d.streams.influence_sets = (uint32_t)k / 4;
    d.streams.joint_type = GPUSKIN_JOINT_U16;
    d.streams.joints[0].data = m->j[0]; d.streams.weights[0].data = m->w[0];
    d.streams.joints[1].data = m->j[1]; d.streams.weights[1].data = m->w[1];
    d.joint_count = JOINTS;
    d.method_word = word;
    d.lbs_palette = p->lbs;
    d.dq_palette = p->dq;
    d.residual_palette = p->res;
    d.out_positions.data = out;                 /* separate packed outputs, like the inputs */
    d.out_normals.data = out + m->n * 3;
    d.out_tangents.data = out + m->n * 6;
    return d;
}

/* Floats the path writes for `streams` (positions, normals, tangents blocks). */
static size_t written_floats(size_t n, int streams) { return n * (streams == ST_POS ? 3 : streams == ST_NRM ? 6 : 10); }

static double max_abs_diff(const float *a, const float *b, size_t n)
{
    double m = 0.0;
    size_t i;
    for (i = 0; i < n; ++i) {
        const double d = fabs((double)a[i] - (double)b[i]);
        if (!(d <= m)) m = d; /* NaN sticks */
    }
    return m;
}

/* Median M vertices/s of one skinning function; checks every sample's output. */
typedef gpuskin_result (*skin_fn)(const gpuskin_cpu_skin_desc *);

static stats time_skin(skin_fn fn, const gpuskin_cpu_skin_desc *d, float *out, size_t nfloats, const float *expect,
                       double tol, const char *what)
{
    double t[256];
    int r, ok = 1;
    double err = 0.0;
    for (r = -2; r < reps; ++r) { /* two warm-up calls */
        double t0;
        gpuskin_result res;
        poison(out, nfloats * sizeof(float));
        t0 = now_s();
        res = fn(d);
        if (r >= 0) t[r] = now_s() - t0;
        ok &= res == GPUSKIN_SUCCESS && all_finite(out, nfloats);
        if (expect) {
            const double e = max_abs_diff(out, expect, nfloats);
            if (!(e <= err)) err = e;
        }
    }
    check(ok, what);
    if (expect) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s equals the oracle (max diff %.3g)", what, err);
        check(err <= tol, msg);
    }
    return summarise(t, reps);
}

static double g_naive_mvs, g_fast_mvs; /* LBS, k = 4, positions + normals */

static void bench_skinning(size_t n)
{
    static const struct { const char *name; int rigid; int method; } methods[] = {
        {"LBS", 0, GPUSKIN_METHOD_LBS}, {"DQS-rigid", 1, GPUSKIN_METHOD_DQS}, {"DQS-residual", 0, GPUSKIN_METHOD_DQS}};
    const size_t out_floats = n * 10;
    float *out = (float *)xmalloc(out_floats * sizeof(float));
    float *ref = (float *)xmalloc(out_floats * sizeof(float));
    mesh m4, m8;
    palettes pal[3];
    int mi, k, st;
    make_mesh(&m4, n, 4);
    make_mesh(&m8, n, 8);
    for (mi = 0; mi < 3; ++mi) make_palettes(&pal[mi], methods[mi].rigid);
    if (!quick) {
        printf("\nSkinning, one thread: %zu vertices, %d joints (M vertices/s, median of %d)\n", n, JOINTS, reps);
        printf("%-13s %-2s %-12s %10s %10s %8s\n", "method", "k", "streams", "oracle", "fast", "fast/or");
    }
    for (mi = 0; mi < 3; ++mi)
        for (k = 4; k <= 8; k += 4)
            for (st = ST_POS; st <= ST_TAN; ++st) {
                const mesh *m = k == 4 ? &m4 : &m8;
                const uint32_t word = methods[mi].method == GPUSKIN_METHOD_LBS ? (uint32_t)GPUSKIN_METHOD_LBS : pal[mi].word;
                gpuskin_cpu_skin_desc d = skin_desc(m, k, st, &pal[mi], word, out);
                const size_t nf = written_floats(n, st);
                char what[128], variant[96];
                stats so, sf;
                snprintf(variant, sizeof variant, "%s k=%d %s", methods[mi].name, k, stream_name[st]);
                if (mi == 2) check((pal[mi].word & GPUSKIN_METHOD_RESIDUAL_BIT) != 0, "DQS-residual palette has the residual bit");
                if (mi == 1) check(pal[mi].word == GPUSKIN_METHOD_DQS, "DQS-rigid palette is rigid");
                snprintf(what, sizeof what, "oracle %s", variant);
                so = time_skin(gpuskin_skin_cpu, &d, out, nf, NULL, 0.0, what);
                memcpy(ref, out, nf * sizeof(float));
                snprintf(what, sizeof what, "fast %s", variant);
                sf = time_skin(gpuskin_skin_cpu_fast, &d, out, nf, ref, 1e-5 * 8.0, what);
                csv_row("skin-oracle", variant, (double)n, 1, so, 1, (double)n / so.median * 1e-6, "Mvertices/s");
                csv_row("skin-fast", variant, (double)n, 1, sf, 1, (double)n / sf.median * 1e-6, "Mvertices/s");
                if (!quick)
                    printf("%-13s %-2d %-12s %10.1f %10.1f %7.2fx\n", methods[mi].name, k, stream_name[st],
                           (double)n / so.median * 1e-6, (double)n / sf.median * 1e-6, so.median / sf.median);
            }
    /* The naive reference: LBS, 4 influences, positions + normals; then the same
       source without the auto-vectoriser, as an explanation. */
    {
        static const naive_fn fns[3] = {bench_naive_lbs, bench_naive_lbs_novec, bench_naive_lbs_avx2};
        static const char *names[3] = {"naive LBS", "naive, no vec.", "naive, avx2"};
        double mvs[3] = {0.0, 0.0, 0.0};
        int which;
        gpuskin_cpu_skin_desc d = skin_desc(&m4, 4, ST_NRM, &pal[0], GPUSKIN_METHOD_LBS, ref);
        gpuskin_skin_cpu(&d);
        for (which = 0; which < (cpu_avx2_fma() ? 3 : 2); ++which) {
            double t[256];
            int r, ok = 1;
            stats s;
            char what[96];
            for (r = -2; r < reps; ++r) {
                double t0;
                poison(out, n * 6 * sizeof(float));
                t0 = now_s();
                fns[which](n, m4.pos, m4.nrm, m4.j[0], m4.w[0], pal[0].lbs, out, out + n * 3);
                if (r >= 0) t[r] = now_s() - t0;
                ok &= all_finite(out, n * 6);
            }
            snprintf(what, sizeof what, "%s writes finite output", names[which]);
            check(ok, what);
            /* Weights sum to 1 and no joint is degenerate: its positions are the oracle's. */
            snprintf(what, sizeof what, "%s positions equal the oracle's", names[which]);
            check(max_abs_diff(out, ref, n * 3) <= 1e-5 * 8.0, what);
            s = summarise(t, reps);
            mvs[which] = (double)n / s.median * 1e-6;
            csv_row(which == 2 ? "skin-naive-avx2" : which ? "skin-naive-novec" : "skin-naive", "LBS k=4 pos+nrm",
                    (double)n, 1, s, 1, mvs[which], "Mvertices/s");
        }
        g_naive_mvs = mvs[0];
        /* The headline ratio, head to head: fast and naive alternate sample by sample
           (order flipped each time), so both see the same machine (this one is shared). */
        {
            double tf[256], tn[256];
            int r;
            d.out_positions.data = out;
            d.out_normals.data = out + n * 3;
            for (r = -2; r < reps; ++r) {
                int k;
                for (k = 0; k < 2; ++k) {
                    const int fast_now = (k == 0) == (r % 2 == 0);
                    double t0;
                    poison(out, n * 6 * sizeof(float));
                    t0 = now_s();
                    if (fast_now) check_silent(gpuskin_skin_cpu_fast(&d) == GPUSKIN_SUCCESS);
                    else bench_naive_lbs(n, m4.pos, m4.nrm, m4.j[0], m4.w[0], pal[0].lbs, out, out + n * 3);
                    if (r >= 0) (fast_now ? tf : tn)[r] = now_s() - t0;
                }
            }
            g_fast_mvs = (double)n / summarise(tf, reps).median * 1e-6;
            g_naive_mvs = (double)n / summarise(tn, reps).median * 1e-6;
        }
        if (!quick) {
            printf("%-13s %-2d %-12s %10s %10.1f   (the reference: scalar C, -O2 like the library)\n", names[0], 4,
                   "pos+nrm", "", mvs[0]);
            printf("%-13s %-2d %-12s %10s %10.1f   (same source, -fno-tree-vectorize: not the reference)\n", names[1],
                   4, "pos+nrm", "", mvs[1]);
            if (mvs[2] > 0.0)
                printf("%-13s %-2d %-12s %10s %10.1f   (same source, -mavx2 -mfma: not the reference)\n", names[2], 4,
                       "pos+nrm", "", mvs[2]);
            printf("head to head (alternating samples): fast %.1f, naive %.1f M vertices/s\n", g_fast_mvs, g_naive_mvs);
            printf("fast / naive, LBS k=4 pos+nrm: %.2fx (target >= 3.2x); against the unvectorised build %.2fx\n",
                   g_fast_mvs / g_naive_mvs, g_fast_mvs / mvs[1]);
            if (mvs[2] > 0.0) printf("against the -mavx2 -mfma build %.2fx\n", g_fast_mvs / mvs[2]);
        }
        if (csv) {
            fprintf(csv, "ratio,fast/naive LBS k=4 pos+nrm,%zu,1,,,,,,%.4g,x\n", n, g_fast_mvs / g_naive_mvs);
            fprintf(csv, "ratio,fast/naive-novec LBS k=4 pos+nrm,%zu,1,,,,,,%.4g,x\n", n, g_fast_mvs / mvs[1]);
            if (mvs[2] > 0.0)
                fprintf(csv, "ratio,fast/naive-avx2 LBS k=4 pos+nrm,%zu,1,,,,,,%.4g,x\n", n, g_fast_mvs / mvs[2]);
        }
    }
    free(out);
    free(ref);
    free_mesh(&m4);
    free_mesh(&m8);
}

/* ---- palettes ------------------------------------------------------------- */

typedef struct rig {
    gpuskin_skeleton sk;
    uint32_t instances;
    gpuskin_mat4 *models;
    gpuskin_trs *poses;
} rig;

/* A 64-joint humanoid-like tree: a spine chain with limbs hanging off it. */
static void make_rig(rig *r, uint32_t instances)
{
    int32_t parents[JOINTS];
    gpuskin_mat4 ib[JOINTS], g[JOINTS];
    gpuskin_trs rest[JOINTS];
    gpuskin_skeleton_desc sd;
    uint32_t j, i;
    for (j = 0; j < JOINTS; ++j) {
        parents[j] = j == 0 ? -1 : (j % 8 == 0 ? (int32_t)(j - 8) : (int32_t)(j - 1));
        rest[j] = rnd_trs(0);
    }
    memset(&sd, 0, sizeof sd);
    sd.joint_count = JOINTS;
    sd.parents = parents;
    sd.rest_pose = rest;
    /* inverse bind = inverse of the rest globals, as an exporter writes it */
    {
        gpuskin_skeleton tmp;
        gpuskin_skeleton_init(&tmp, &sd);
        gpuskin_skeleton_globals(&tmp, NULL, g);
        for (j = 0; j < JOINTS; ++j) gpuskin_mat4_inverse_affine(&g[j], &ib[j]);
        gpuskin_skeleton_free(&tmp);
    }
    sd.inverse_bind = ib;
    gpuskin_skeleton_init(&r->sk, &sd);
    r->instances = instances;
    r->models = (gpuskin_mat4 *)xmalloc(instances * sizeof(gpuskin_mat4));
    r->poses = (gpuskin_trs *)xmalloc((size_t)instances * JOINTS * sizeof(gpuskin_trs));
    for (i = 0; i < instances; ++i) {
        gpuskin_trs t = rnd_trs(0);
        t.translation.x = rnd(-100, 100); t.translation.z = rnd(-100, 100);
        r->models[i] = gpuskin_mat4_from_trs(&t);
        for (j = 0; j < JOINTS; ++j) r->poses[(size_t)i * JOINTS + j] = rnd_trs(1);
    }
}

static void free_rig(rig *r)
{
    gpuskin_skeleton_free(&r->sk);
    free(r->models);
    free(r->poses);
}

/* Runs `body` in batches until a sample lasts >= min_s; returns per-call stats. */
typedef int (*body_fn)(void *ctx); /* returns 1 if the outputs check out */

static stats time_batched(body_fn body, void (*prep)(void *), void *ctx, double min_s, int *batch_out, int *ok_out)
{
    double t[256];
    int batch = 1, r, b, ok = 1;
    /* warm-up, and find a batch size */
    for (;;) {
        double t0;
        if (prep) prep(ctx);
        t0 = now_s();
        for (b = 0; b < batch; ++b) ok &= body(ctx);
        if (now_s() - t0 >= min_s || batch >= (1 << 20) || quick) break;
        batch *= 2;
    }
    for (r = 0; r < reps; ++r) {
        double t0;
        if (prep) prep(ctx);
        t0 = now_s();
        for (b = 0; b < batch; ++b) ok &= body(ctx);
        t[r] = (now_s() - t0) / batch;
    }
    *batch_out = batch;
    *ok_out = ok;
    return summarise(t, reps);
}

typedef struct pal_ctx {
    rig *r;
    uint32_t count;
    gpuskin_mat4 *pal;      /* count * JOINTS */
    float *lbs;             /* count * JOINTS * 12 */
    float *dq, *res;        /* count * JOINTS * 8 / 12 */
    uint32_t *words;
    gpuskin_split_method split;
    int fast_dq;            /* gpuskin_pack_dq_fast instead of gpuskin_pack_dq */
} pal_ctx;

static void pal_poison(void *vc)
{
    pal_ctx *c = (pal_ctx *)vc;
    poison(c->lbs, (size_t)c->count * JOINTS * 12 * sizeof(float));
}

static int pal_check_lbs(const pal_ctx *c) { return all_finite(c->lbs, (size_t)c->count * JOINTS * 12); }

/* gpuskin_build_palettes: globals + placement + inverse bind + LBS packing. */
static int body_batch(void *vc)
{
    pal_ctx *c = (pal_ctx *)vc;
    gpuskin_palette_batch_desc d;
    memset(&d, 0, sizeof d);
    d.skeleton = &c->r->sk;
    d.instance_count = c->count;
    d.models = c->r->models;
    d.local_poses = c->r->poses;
    d.out_lbs = c->lbs;
    /* (the outputs are checked after the timing, against the reference: a scan
       here, as this body once did for up to 64 instances, is timed with it) */
    return gpuskin_build_palettes(&d) == GPUSKIN_SUCCESS;
}

/* The same by hand with the reference functions, instance by instance. */
static int body_reference(void *vc)
{
    pal_ctx *c = (pal_ctx *)vc;
    uint32_t i;
    int ok = 1;
    for (i = 0; i < c->count; ++i) {
        gpuskin_mat4 *p = c->pal + (size_t)i * JOINTS;
        ok &= gpuskin_skeleton_globals(&c->r->sk, c->r->poses + (size_t)i * JOINTS, p) == GPUSKIN_SUCCESS;
        ok &= gpuskin_skeleton_palette(&c->r->sk, &c->r->models[i], p, p) == GPUSKIN_SUCCESS;
        ok &= gpuskin_pack_lbs(p, JOINTS, c->lbs + (size_t)i * JOINTS * 12) == GPUSKIN_SUCCESS;
    }
    return ok;
}

static void dq_poison(void *vc)
{
    pal_ctx *c = (pal_ctx *)vc;
    poison(c->dq, (size_t)c->count * JOINTS * 8 * sizeof(float));
    poison(c->res, (size_t)c->count * JOINTS * 12 * sizeof(float));
}

/* The dual-quaternion split + pack of ready palettes, instance by instance. */
static int body_dq(void *vc)
{
    pal_ctx *c = (pal_ctx *)vc;
    uint32_t i;
    int ok = 1;
    for (i = 0; i < c->count; ++i)
        ok &= (c->fast_dq ? gpuskin_pack_dq_fast : gpuskin_pack_dq)(c->pal + (size_t)i * JOINTS, JOINTS, c->split,
                                                                    c->dq + (size_t)i * JOINTS * 8,
                                                                    c->res + (size_t)i * JOINTS * 12,
                                                                    &c->words[i]) == GPUSKIN_SUCCESS;
    return ok;
}

/* Memory floors: the same bytes as the palette passes moved by plain copies,
   nothing computed. At 10,000 instances the arrays are far larger than the
   caches, so this is what one core's memory traffic alone costs there. */
static int body_floor_dq(void *vc)
{
    pal_ctx *c = (pal_ctx *)vc;
    size_t j;
    for (j = 0; j < (size_t)c->count * JOINTS; ++j) { /* read 64 B, write 32 + 48 B */
        memcpy(c->dq + j * 8, c->pal[j].m, 8 * sizeof(float));
        memcpy(c->res + j * 12, c->pal[j].m + 4, 12 * sizeof(float));
    }
    return 1;
}

static int body_floor_lbs(void *vc)
{
    pal_ctx *c = (pal_ctx *)vc;
    size_t j;
    for (j = 0; j < (size_t)c->count * JOINTS; ++j) { /* read a local pose (40 B), write 48 B */
        memcpy(c->lbs + j * 12, &c->r->poses[j], sizeof(gpuskin_trs));
        c->lbs[j * 12 + 10] = c->lbs[j * 12 + 11] = 1.0f;
    }
    return 1;
}

/* The DQ outputs (dq, then residual rows) copied out, and the largest relative
   difference of the current ones from such a copy. */
static float *dq_copy(const pal_ctx *c)
{
    const size_t n = (size_t)c->count * JOINTS;
    float *out = (float *)xmalloc(n * 20 * sizeof(float));
    memcpy(out, c->dq, n * 8 * sizeof(float));
    memcpy(out + n * 8, c->res, n * 12 * sizeof(float));
    return out;
}

static double dq_rel_diff(const pal_ctx *c, const float *ref)
{
    const size_t n = (size_t)c->count * JOINTS;
    double err = 0.0;
    size_t i;
    for (i = 0; i < n * 20; ++i) {
        const float got = i < n * 8 ? c->dq[i] : c->res[i - n * 8];
        const double e = fabs((double)got - (double)ref[i]) / (1.0 + fabs((double)ref[i]));
        if (!(e <= err)) err = e;
    }
    return err;
}

/* gpuskin_pack_dq with `split` timed, then gpuskin_pack_dq_fast, checked against
   it: the same method words, every float within 2e-5 (relative, plus 1). */
static void time_dq(pal_ctx *c, gpuskin_split_method split, const char *label, stats *ref, int *batch_ref, stats *fast,
                    int *batch_fast)
{
    const uint32_t n = c->count;
    float *ref_dq;
    uint32_t *ref_words;
    char what[160];
    double err;
    int ok;
    c->split = split;
    c->fast_dq = 0;
    *ref = time_batched(body_dq, dq_poison, c, 1e-4, batch_ref, &ok);
    snprintf(what, sizeof what, "gpuskin_pack_dq (%s), %u instances", label, n);
    check(ok && all_finite(c->dq, (size_t)n * JOINTS * 8) && all_finite(c->res, (size_t)n * JOINTS * 12), what);
    ref_dq = dq_copy(c);
    ref_words = (uint32_t *)xmalloc(n * sizeof(uint32_t));
    memcpy(ref_words, c->words, n * sizeof(uint32_t));
    c->fast_dq = 1;
    *fast = time_batched(body_dq, dq_poison, c, 1e-4, batch_fast, &ok);
    c->fast_dq = 0;
    err = dq_rel_diff(c, ref_dq);
    snprintf(what, sizeof what,
             "gpuskin_pack_dq_fast (%s), %u instances, equals gpuskin_pack_dq (same method words, rel. diff %.2g)", label, n,
             err);
    check(ok && err <= 2e-5 && memcmp(ref_words, c->words, n * sizeof(uint32_t)) == 0, what);
    free(ref_dq);
    free(ref_words);
}

static void bench_palettes(void)
{
    const uint32_t full_counts[] = {1, 64, 1024, 10000}, quick_counts[] = {1, 5, 64};
    const uint32_t *counts = quick ? quick_counts : full_counts;
    const int ncounts = quick ? 3 : 4;
    int ci;
    if (!quick) {
        printf("\nPalettes, one thread, %d-joint skeleton (ns per joint, median of %d)\n", JOINTS, reps);
        printf("%9s %12s %12s %10s %10s %10s %10s %10s %10s %14s %14s\n", "instances", "build_pal.", "reference", "DQ fast",
               "DQ GS", "polar fast", "DQ polar", "LBS floor", "DQ floor", "LBS bytes/fr", "DQ bytes/fr");
    }
    for (ci = 0; ci < ncounts; ++ci) {
        const uint32_t n = counts[ci];
        const double joints = (double)n * JOINTS;
        rig r;
        pal_ctx c;
        stats sb, sr, sd, sp, spf, sf, sfl, sfd;
        int batch_b, batch_r, batch_d, batch_p, batch_pf, batch_f, batch_fl, batch_fd, ok;
        char what[128];
        size_t i;
        double err = 0.0;
        float *ref_lbs;
        make_rig(&r, n);
        memset(&c, 0, sizeof c);
        c.r = &r;
        c.count = n;
        c.pal = (gpuskin_mat4 *)xmalloc((size_t)n * JOINTS * sizeof(gpuskin_mat4));
        c.lbs = (float *)xmalloc((size_t)n * JOINTS * 12 * sizeof(float));
        c.dq = (float *)xmalloc((size_t)n * JOINTS * 8 * sizeof(float));
        c.res = (float *)xmalloc((size_t)n * JOINTS * 12 * sizeof(float));
        c.words = (uint32_t *)xmalloc(n * sizeof(uint32_t));
        ref_lbs = (float *)xmalloc((size_t)n * JOINTS * 12 * sizeof(float));

        sr = time_batched(body_reference, pal_poison, &c, 1e-4, &batch_r, &ok);
        snprintf(what, sizeof what, "reference palettes, %u instances", n);
        check(ok && pal_check_lbs(&c), what);
        memcpy(ref_lbs, c.lbs, (size_t)n * JOINTS * 12 * sizeof(float));

        sb = time_batched(body_batch, pal_poison, &c, 1e-4, &batch_b, &ok);
        /* Each element against its joint's largest (plus 1): float products round to
           the size of their terms, so an element that is a small difference of large
           terms carries their error, and the two paths round differently (fused
           multiply-adds). */
        for (i = 0; i < (size_t)n * JOINTS; ++i) {
            double scale = 1.0, diff = 0.0;
            int k;
            for (k = 0; k < 12; ++k) {
                const double a = fabs((double)ref_lbs[i * 12 + k]), d = fabs((double)c.lbs[i * 12 + k] - ref_lbs[i * 12 + k]);
                if (a + 1.0 > scale) scale = a + 1.0;
                if (!(d <= diff)) diff = d;
            }
            if (!(diff / scale <= err)) err = diff / scale;
        }
        snprintf(what, sizeof what, "gpuskin_build_palettes, %u instances, equals the reference (diff / joint scale %.2g)", n, err);
        check(ok && pal_check_lbs(&c) && err <= 2e-5, what);

        time_dq(&c, GPUSKIN_SPLIT_GRAM_SCHMIDT, "Gram-Schmidt", &sd, &batch_d, &sf, &batch_f);
        sfl = time_batched(body_floor_lbs, pal_poison, &c, 1e-4, &batch_fl, &ok);
        sfd = time_batched(body_floor_dq, dq_poison, &c, 1e-4, &batch_fd, &ok);
        time_dq(&c, GPUSKIN_SPLIT_POLAR, "polar", &sp, &batch_p, &spf, &batch_pf);

        csv_row("palette-build", "gpuskin_build_palettes (globals+model+inverse bind+LBS pack)", n, 1, sb, batch_b,
                sb.median / joints * 1e9, "ns/joint");
        csv_row("palette-reference", "globals+palette+pack_lbs per instance", n, 1, sr, batch_r, sr.median / joints * 1e9,
                "ns/joint");
        csv_row("dq-split-pack", "gpuskin_pack_dq_fast gram-schmidt", n, 1, sf, batch_f, sf.median / joints * 1e9,
                "ns/joint");
        csv_row("dq-split-pack", "gpuskin_pack_dq gram-schmidt", n, 1, sd, batch_d, sd.median / joints * 1e9, "ns/joint");
        csv_row("dq-split-pack", "gpuskin_pack_dq_fast polar", n, 1, spf, batch_pf, spf.median / joints * 1e9, "ns/joint");
        csv_row("dq-split-pack", "gpuskin_pack_dq polar", n, 1, sp, batch_p, sp.median / joints * 1e9, "ns/joint");
        csv_row("memory-floor", "LBS: copy 40 B in, 48 B out per joint", n, 1, sfl, batch_fl, sfl.median / joints * 1e9,
                "ns/joint");
        csv_row("memory-floor", "DQ: copy 64 B in, 80 B out per joint", n, 1, sfd, batch_fd, sfd.median / joints * 1e9,
                "ns/joint");
        if (!quick)
            printf("%9u %12.2f %12.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %14.0f %14.0f\n", n, sb.median / joints * 1e9,
                   sr.median / joints * 1e9, sf.median / joints * 1e9, sd.median / joints * 1e9, spf.median / joints * 1e9,
                   sp.median / joints * 1e9, sfl.median / joints * 1e9, sfd.median / joints * 1e9, joints * 48.0 + n * 4.0,
                   joints * 32.0 + n * 4.0);
        free(c.pal); free(c.lbs); free(c.dq); free(c.res); free(c.words); free(ref_lbs);
        free_rig(&r);
    }
    if (!quick)
        printf("targets: build_palettes <= 5 ns/joint; DQ split+pack (fast) <= 25 ns/joint. polar fast / DQ polar:\n"
               "gpuskin_pack_dq_fast / gpuskin_pack_dq with the polar split. Floors: the same bytes copied,\n"
               "nothing computed (memcpy per joint). Upload a frame: LBS 48 B/joint,\n"
               "DQS 32 B/joint rigid (80 with the residual), + 4 B/instance method word.\n");
}

/* ---- threads ---------------------------------------------------------------- */

typedef struct pool {
    pthread_t th[64];
    int n;
    pthread_barrier_t start, done;
    int quit;
    rig *r;
    float *lbs;
    uint32_t instances;
    int ok[64];
} pool;

typedef struct worker { pool *p; int id; } worker;

static void *worker_main(void *arg)
{
    worker *w = (worker *)arg;
    pool *p = w->p;
    for (;;) {
        gpuskin_palette_batch_desc d;
        uint32_t first, last;
        pthread_barrier_wait(&p->start);
        if (p->quit) break;
        first = (uint32_t)((uint64_t)p->instances * (uint64_t)w->id / (uint64_t)p->n);
        last = (uint32_t)((uint64_t)p->instances * (uint64_t)(w->id + 1) / (uint64_t)p->n);
        memset(&d, 0, sizeof d);
        d.skeleton = &p->r->sk;
        d.first_instance = first;
        d.instance_count = last - first;
        d.models = p->r->models;
        d.local_poses = p->r->poses;
        d.out_lbs = p->lbs;
        p->ok[w->id] &= gpuskin_build_palettes(&d) == GPUSKIN_SUCCESS;
        pthread_barrier_wait(&p->done);
    }
    return NULL;
}

static void bench_threads(int max_threads)
{
    const uint32_t n = quick ? 37 : 10000;
    rig r;
    float *lbs, *ref;
    int nt;
    double base = 0.0;
    make_rig(&r, n);
    lbs = (float *)xmalloc((size_t)n * JOINTS * 12 * sizeof(float));
    ref = (float *)xmalloc((size_t)n * JOINTS * 12 * sizeof(float));
    {
        gpuskin_palette_batch_desc d;
        memset(&d, 0, sizeof d);
        d.skeleton = &r.sk;
        d.instance_count = n;
        d.models = r.models;
        d.local_poses = r.poses;
        d.out_lbs = ref;
        check(gpuskin_build_palettes(&d) == GPUSKIN_SUCCESS, "single-call palettes for the thread run");
    }
    if (!quick) {
        printf("\ngpuskin_build_palettes on threads (one instance range each), %u instances x %d joints\n", n, JOINTS);
        printf("%7s %12s %12s %9s\n", "threads", "ms/frame", "ns/joint", "speed-up");
    }
    for (nt = 1; nt <= max_threads; nt *= 2) {
        pool p;
        worker w[64];
        double t[256];
        int i, r2, ok = 1;
        stats s;
        char what[96];
        memset(&p, 0, sizeof p);
        p.n = nt;
        p.r = &r;
        p.lbs = lbs;
        p.instances = n;
        pthread_barrier_init(&p.start, NULL, (unsigned)nt + 1);
        pthread_barrier_init(&p.done, NULL, (unsigned)nt + 1);
        for (i = 0; i < nt; ++i) {
            w[i].p = &p;
            w[i].id = i;
            p.ok[i] = 1;
            pthread_create(&p.th[i], NULL, worker_main, &w[i]);
        }
        for (r2 = -2; r2 < reps; ++r2) {
            double t0;
            poison(lbs, (size_t)n * JOINTS * 12 * sizeof(float));
            t0 = now_s();
            pthread_barrier_wait(&p.start);
            pthread_barrier_wait(&p.done);
            if (r2 >= 0) t[r2] = now_s() - t0;
            ok &= memcmp(lbs, ref, (size_t)n * JOINTS * 12 * sizeof(float)) == 0;
        }
        p.quit = 1;
        pthread_barrier_wait(&p.start);
        for (i = 0; i < nt; ++i) {
            pthread_join(p.th[i], NULL);
            ok &= p.ok[i];
        }
        pthread_barrier_destroy(&p.start);
        pthread_barrier_destroy(&p.done);
        snprintf(what, sizeof what, "%d thread(s): the same bytes as one call", nt);
        check(ok, what);
        s = summarise(t, reps);
        if (nt == 1) base = s.median;
        csv_row("palette-threads", "gpuskin_build_palettes ranges", n, nt, s, 1, s.median / ((double)n * JOINTS) * 1e9,
                "ns/joint");
        if (!quick)
            printf("%7d %12.3f %12.2f %8.2fx\n", nt, s.median * 1e3, s.median / ((double)n * JOINTS) * 1e9,
                   base / s.median);
    }
    free(lbs);
    free(ref);
    free_rig(&r);
}

/* ---- memory ----------------------------------------------------------------- */

static void print_memory(void)
{
    /* The GPU layout of gpuskin.h (Vulkan runtime) / shaders/gpuskin_skin.glsl: mesh streams
       as structure of arrays, joints as 4 x 16 bit a set, raw float weights. */
    const int pos = 12, nrm = 12, tan = 16, jnt = 8, wgt = 16;
    if (quick) return;
    printf("\nMemory (GPU layout, from gpuskin_skin.glsl's gpuskin_Frame):\n");
    printf("  mesh, bytes per vertex: %d (pos+nrm, 4 infl.), %d (+tangent), %d (pos+nrm, 8 infl.), + 2 per index (4 above 65536 vertices)\n",
           pos + nrm + jnt + wgt, pos + nrm + tan + jnt + wgt, pos + nrm + 2 * (jnt + wgt));
    printf("  palette, bytes per instance-joint and frame slot: LBS %u, DQ %u, residual %u (allocated: %u)\n",
           GPUSKIN_LBS_FLOATS_PER_JOINT * 4, GPUSKIN_DQ_FLOATS_PER_JOINT * 4, GPUSKIN_RESIDUAL_FLOATS_PER_JOINT * 4,
           (GPUSKIN_LBS_FLOATS_PER_JOINT + GPUSKIN_DQ_FLOATS_PER_JOINT + GPUSKIN_RESIDUAL_FLOATS_PER_JOINT) * 4);
    printf("  upload per joint and frame: LBS 48, DQS rigid 32, DQS with residual 80 (+4 per instance)\n");
    printf("  compute output, bytes per vertex-instance: %u (pos+nrm), %u (+tangent)\n", 24u, 40u);
    if (csv) {
        fprintf(csv, "memory,mesh bytes/vertex pos+nrm k=4,,,,,,,,%d,B\n", pos + nrm + jnt + wgt);
        fprintf(csv, "memory,mesh bytes/vertex pos+nrm+tan k=4,,,,,,,,%d,B\n", pos + nrm + tan + jnt + wgt);
        fprintf(csv, "memory,upload bytes/joint LBS,,,,,,,,48,B\n");
        fprintf(csv, "memory,upload bytes/joint DQS rigid,,,,,,,,32,B\n");
        fprintf(csv, "memory,upload bytes/joint DQS residual,,,,,,,,80,B\n");
    }
}

int main(int argc, char **argv)
{
    const char *csv_path = NULL, *only = NULL;
    int i, max_threads = 16;
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--threads-max") && i + 1 < argc) max_threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--quick] [--csv PATH] [--threads-max N] [--reps N] [--only skinning|palettes|threads]\n",
                    argv[0]);
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (reps > 256) reps = 256;
    if (max_threads < 1) max_threads = 1;
    if (max_threads > 64) max_threads = 64;
    if (quick) {
        reps = 3;
        if (max_threads > 4) max_threads = 4;
    }
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "bench_cpu: cannot write %s\n", csv_path);
            return 2;
        }
        fprintf(csv, "group,variant,size,threads,samples,batch,median_s,min_s,max_s,value,unit\n");
    }
#ifdef GPUSKIN__FAST_SSE2
    printf("bench_cpu: fast path SSE2%s; palettes %s%s\n", skin_form(), palette_form(),
           quick ? " (quick: correctness only, no figures)" : "");
#else
    printf("bench_cpu: fast path portable%s\n", quick ? " (quick: correctness only, no figures)" : "");
#endif
    if (!only || !strcmp(only, "skinning")) bench_skinning(quick ? 1001 : 50000);
    if (!only || !strcmp(only, "palettes")) bench_palettes();
    if (!only || !strcmp(only, "threads")) bench_threads(max_threads);
    if (!only) print_memory();
    check(silent_failures == 0, "every timed call succeeded");
    if (csv) fclose(csv);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
