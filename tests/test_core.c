/* tests/test_core.c - the non-Vulkan core of gpuskin.h: maths, skeleton, palette,
   the dual-quaternion split and GPU packing, and the CPU oracle gpuskin_skin_cpu.

   Every expectation is a number worked out by hand (in a comment next to it) or by
   an independent double-precision path written here (dm_*, dq_*): the functions
   under test are never used to produce their own expected values.

   Builds as C99/C11 and as C++11/17 (-x c++), with -Wall -Wextra -Wpedantic -Werror.
   Run: build/core/test_core_gcc [name-filter]                                   */
#define GPUSKIN_NO_VULKAN
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A counting allocator, so that allocation failure and the alloc_user pointer can be
   tested and every skeleton is checked to free what it allocated. */
static size_t tm_allocs, tm_frees;
static int tm_fail_after = -1; /* -1: never fail; n >= 0: allow n more, then fail */
static void *tm_last_user;
static void *test_malloc(size_t size, void *user) {
    tm_last_user = user;
    if (tm_fail_after == 0) return NULL;
    if (tm_fail_after > 0) --tm_fail_after;
    ++tm_allocs;
    return malloc(size);
}
static void test_free(void *p, void *user) {
    (void)user;
    if (p) {
        ++tm_frees;
        free(p);
    }
}
#define GPUSKIN_MALLOC(sz, user) test_malloc((sz), (user))
#define GPUSKIN_FREE(p, user) test_free((p), (user))
#define GPUSKIN_IMPLEMENTATION
#include "../gpuskin.h"
#include "testing.h"

/* GPUSKIN_NO_VULKAN must not pull in any Vulkan header. */
#ifdef VK_VERSION_1_0
#error "gpuskin.h included Vulkan headers although GPUSKIN_NO_VULKAN is defined"
#endif
#ifdef VULKAN_H_
#error "gpuskin.h included vulkan.h although GPUSKIN_NO_VULKAN is defined"
#endif

#define ZERO(x) memset(&(x), 0, sizeof(x))
#define PI 3.14159265358979323846

static int fin(double x) { return x - x == 0.0; } /* false for NaN and +-Inf */

/* Relative comparison: |a - b| <= rel * scale. */
#define CHECK_REL(a, b, rel, scale) CHECK_NEAR((a), (b), (double)(rel) * (double)(scale))

/* ------------------------------------------------------------------------ */
/* Independent double-precision reference maths                             */
/* ------------------------------------------------------------------------ */

typedef struct dmat4 { double m[16]; } dmat4; /* column-major, m[c*4 + r] */

static dmat4 dm_ident(void) {
    dmat4 r;
    int i;
    for (i = 0; i < 16; ++i) r.m[i] = (i % 5 == 0) ? 1.0 : 0.0;
    return r;
}
static dmat4 dm_mul(const dmat4 *a, const dmat4 *b) {
    dmat4 o;
    int r, c, k;
    for (c = 0; c < 4; ++c)
        for (r = 0; r < 4; ++r) {
            double s = 0;
            for (k = 0; k < 4; ++k) s += a->m[k * 4 + r] * b->m[c * 4 + k];
            o.m[c * 4 + r] = s;
        }
    return o;
}
static dmat4 dm_from_f(const gpuskin_mat4 *f) {
    dmat4 d;
    int i;
    for (i = 0; i < 16; ++i) d.m[i] = f->m[i];
    return d;
}
static gpuskin_mat4 fm_from_d(const dmat4 *d) {
    gpuskin_mat4 f;
    int i;
    for (i = 0; i < 16; ++i) f.m[i] = (float)d->m[i];
    return f;
}
static double dm_at(const dmat4 *m, int r, int c) { return m->m[c * 4 + r]; }
static void dm_point(const dmat4 *m, const double p[3], double o[3]) {
    int r;
    for (r = 0; r < 3; ++r) o[r] = m->m[r] * p[0] + m->m[4 + r] * p[1] + m->m[8 + r] * p[2] + m->m[12 + r];
}
static void dm_vec(const dmat4 *m, const double p[3], double o[3]) {
    int r;
    for (r = 0; r < 3; ++r) o[r] = m->m[r] * p[0] + m->m[4 + r] * p[1] + m->m[8 + r] * p[2];
}
static double dm_det3(const dmat4 *m) {
    double a = dm_at(m, 0, 0), b = dm_at(m, 0, 1), c = dm_at(m, 0, 2);
    double d = dm_at(m, 1, 0), e = dm_at(m, 1, 1), f = dm_at(m, 1, 2);
    double g = dm_at(m, 2, 0), h = dm_at(m, 2, 1), i = dm_at(m, 2, 2);
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
}
/* Inverse of an affine matrix by cofactors. Returns 0 when singular. */
static int dm_inverse(const dmat4 *m, dmat4 *o) {
    double det = dm_det3(m), inv[3][3], a[3][3];
    int r, c;
    if (det == 0.0) return 0;
    for (r = 0; r < 3; ++r)
        for (c = 0; c < 3; ++c) a[r][c] = dm_at(m, r, c);
    inv[0][0] = (a[1][1] * a[2][2] - a[1][2] * a[2][1]) / det;
    inv[0][1] = (a[0][2] * a[2][1] - a[0][1] * a[2][2]) / det;
    inv[0][2] = (a[0][1] * a[1][2] - a[0][2] * a[1][1]) / det;
    inv[1][0] = (a[1][2] * a[2][0] - a[1][0] * a[2][2]) / det;
    inv[1][1] = (a[0][0] * a[2][2] - a[0][2] * a[2][0]) / det;
    inv[1][2] = (a[0][2] * a[1][0] - a[0][0] * a[1][2]) / det;
    inv[2][0] = (a[1][0] * a[2][1] - a[1][1] * a[2][0]) / det;
    inv[2][1] = (a[0][1] * a[2][0] - a[0][0] * a[2][1]) / det;
    inv[2][2] = (a[0][0] * a[1][1] - a[0][1] * a[1][0]) / det;
    *o = dm_ident();
    for (r = 0; r < 3; ++r) {
        double t = 0;
        for (c = 0; c < 3; ++c) {
            o->m[c * 4 + r] = inv[r][c];
            t += inv[r][c] * m->m[12 + c];
        }
        o->m[12 + r] = -t;
    }
    return 1;
}
static double dm_maxabs(const dmat4 *m) {
    double x = 0;
    int i;
    for (i = 0; i < 16; ++i)
        if (i % 4 != 3 && fabs(m->m[i]) > x) x = fabs(m->m[i]);
    return x;
}
/* Quaternion (x,y,z,w) to a rotation matrix in a dmat4. */
static dmat4 dm_rot(const double q[4]) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    dmat4 m = dm_ident();
    m.m[0] = 1 - 2 * (y * y + z * z); m.m[4] = 2 * (x * y - z * w);     m.m[8] = 2 * (x * z + y * w);
    m.m[1] = 2 * (x * y + z * w);     m.m[5] = 1 - 2 * (x * x + z * z); m.m[9] = 2 * (y * z - x * w);
    m.m[2] = 2 * (x * z - y * w);     m.m[6] = 2 * (y * z + x * w);     m.m[10] = 1 - 2 * (x * x + y * y);
    return m;
}
static dmat4 dm_translate(double x, double y, double z) {
    dmat4 m = dm_ident();
    m.m[12] = x; m.m[13] = y; m.m[14] = z;
    return m;
}
static dmat4 dm_scale(double x, double y, double z) {
    dmat4 m = dm_ident();
    m.m[0] = x; m.m[5] = y; m.m[10] = z;
    return m;
}
static void dq_axis_angle(double ax, double ay, double az, double angle, double q[4]) {
    double n = sqrt(ax * ax + ay * ay + az * az), s = sin(angle / 2) / n;
    q[0] = ax * s; q[1] = ay * s; q[2] = az * s; q[3] = cos(angle / 2);
}
static dmat4 dm_axis_angle(double ax, double ay, double az, double angle) {
    double q[4];
    dq_axis_angle(ax, ay, az, angle, q);
    return dm_rot(q);
}
/* T * R * S in double from a float TRS (quaternion used as given, like glTF). */
static dmat4 dm_from_trs(const gpuskin_trs *t) {
    double q[4];
    dmat4 T, R, S, TR;
    q[0] = t->rotation.x; q[1] = t->rotation.y; q[2] = t->rotation.z; q[3] = t->rotation.w;
    T = dm_translate(t->translation.x, t->translation.y, t->translation.z);
    R = dm_rot(q);
    S = dm_scale(t->scale.x, t->scale.y, t->scale.z);
    TR = dm_mul(&T, &R);
    return dm_mul(&TR, &S);
}
static void dq_mul(const double a[4], const double b[4], double o[4]) {
    double r[4];
    r[0] = a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - a[2] * b[1];
    r[1] = a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - a[0] * b[2];
    r[2] = a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - a[1] * b[0];
    r[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    memcpy(o, r, sizeof r);
}
static double dq_dot(const double a[4], const double b[4]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]; }
/* Rotation part of a (rigid) double matrix to a quaternion, Shepperd's method. */
static void dq_from_rot(const dmat4 *m, double q[4]) {
    double m00 = dm_at(m, 0, 0), m11 = dm_at(m, 1, 1), m22 = dm_at(m, 2, 2), tr = m00 + m11 + m22, s;
    if (tr > 0) {
        s = sqrt(tr + 1.0) * 2;
        q[3] = s / 4;
        q[0] = (dm_at(m, 2, 1) - dm_at(m, 1, 2)) / s;
        q[1] = (dm_at(m, 0, 2) - dm_at(m, 2, 0)) / s;
        q[2] = (dm_at(m, 1, 0) - dm_at(m, 0, 1)) / s;
    } else if (m00 > m11 && m00 > m22) {
        s = sqrt(1.0 + m00 - m11 - m22) * 2;
        q[3] = (dm_at(m, 2, 1) - dm_at(m, 1, 2)) / s;
        q[0] = s / 4;
        q[1] = (dm_at(m, 0, 1) + dm_at(m, 1, 0)) / s;
        q[2] = (dm_at(m, 0, 2) + dm_at(m, 2, 0)) / s;
    } else if (m11 > m22) {
        s = sqrt(1.0 + m11 - m00 - m22) * 2;
        q[3] = (dm_at(m, 0, 2) - dm_at(m, 2, 0)) / s;
        q[0] = (dm_at(m, 0, 1) + dm_at(m, 1, 0)) / s;
        q[1] = s / 4;
        q[2] = (dm_at(m, 1, 2) + dm_at(m, 2, 1)) / s;
    } else {
        s = sqrt(1.0 + m22 - m00 - m11) * 2;
        q[3] = (dm_at(m, 1, 0) - dm_at(m, 0, 1)) / s;
        q[0] = (dm_at(m, 0, 2) + dm_at(m, 2, 0)) / s;
        q[1] = (dm_at(m, 1, 2) + dm_at(m, 2, 1)) / s;
        q[2] = s / 4;
    }
}
/* The unit dual quaternion of rotation q then translation t: dual = 0.5 (t,0) q. */
static void dq_dual_of(const double q[4], const double t[3], double d[4]) {
    double tq[4];
    tq[0] = t[0]; tq[1] = t[1]; tq[2] = t[2]; tq[3] = 0;
    dq_mul(tq, q, d);
    d[0] *= 0.5; d[1] *= 0.5; d[2] *= 0.5; d[3] *= 0.5;
}
/* Dual-quaternion linear blending, written from the design (seed): weights
   renormalised; pivot = highest weight, first on a tie (strict > from 0); flip any
   influence whose real part has a negative dot with the pivot's; normalise
   (identity below 1e-6 length), remove the part of dual along real; then
   p' = R p + t with t = 2 (dual conj(real)).xyz. Returns 0 for "no influence". */
static int dq_blend(int n, double (*real)[4], double (*dual)[4], const double *w, double out_real[4],
                    double out_dual[4]) {
    int i, pivot = -1;
    double best = 0, sum = 0, norm, len2, k;
    for (i = 0; i < n; ++i) {
        sum += w[i];
        if (w[i] > best) { best = w[i]; pivot = i; }
    }
    if (pivot < 0) return 0;
    norm = sum > 0 ? 1.0 / sum : 1.0;
    memset(out_real, 0, 4 * sizeof(double));
    memset(out_dual, 0, 4 * sizeof(double));
    for (i = 0; i < n; ++i) {
        double sg, wi;
        int c;
        if (w[i] == 0) continue;
        sg = dq_dot(real[pivot], real[i]) < 0 ? -1.0 : 1.0;
        wi = w[i] * norm * sg;
        for (c = 0; c < 4; ++c) {
            out_real[c] += real[i][c] * wi;
            out_dual[c] += dual[i][c] * wi;
        }
    }
    len2 = dq_dot(out_real, out_real);
    if (len2 < 1e-12) {
        out_real[0] = out_real[1] = out_real[2] = 0; out_real[3] = 1;
        out_dual[0] = out_dual[1] = out_dual[2] = out_dual[3] = 0;
        return 1;
    }
    norm = 1.0 / sqrt(len2);
    for (i = 0; i < 4; ++i) { out_real[i] *= norm; out_dual[i] *= norm; }
    k = dq_dot(out_real, out_dual);
    for (i = 0; i < 4; ++i) out_dual[i] -= k * out_real[i];
    return 1;
}
/* The affine matrix [R | t] of a unit dual quaternion. */
static dmat4 dm_from_dq(const double real[4], const double dual[4]) {
    double conj[4], t[4];
    dmat4 m = dm_rot(real);
    conj[0] = -real[0]; conj[1] = -real[1]; conj[2] = -real[2]; conj[3] = real[3];
    dq_mul(dual, conj, t);
    m.m[12] = 2 * t[0]; m.m[13] = 2 * t[1]; m.m[14] = 2 * t[2];
    return m;
}
/* Normal under the blended 3x3 A: inverse transpose when invertible, else A; normalised. */
static void dm_normal(const dmat4 *a, const double n[3], double o[3]) {
    dmat4 inv;
    double len;
    if (fabs(dm_det3(a)) > 1e-20 && dm_inverse(a, &inv)) {
        int r;
        for (r = 0; r < 3; ++r) o[r] = inv.m[r * 4 + 0] * n[0] + inv.m[r * 4 + 1] * n[1] + inv.m[r * 4 + 2] * n[2];
    } else {
        dm_vec(a, n, o);
    }
    len = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
    if (len > 1e-12) { o[0] /= len; o[1] /= len; o[2] /= len; }
}
static void dm_tangent(const dmat4 *a, const double t[3], double o[3]) {
    double len;
    dm_vec(a, t, o);
    len = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
    if (len > 1e-12) { o[0] /= len; o[1] /= len; o[2] /= len; }
}

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

static gpuskin_vec3 v3(double x, double y, double z) {
    gpuskin_vec3 v;
    v.x = (float)x; v.y = (float)y; v.z = (float)z;
    return v;
}
static gpuskin_quat q4(double x, double y, double z, double w) {
    gpuskin_quat q;
    q.x = (float)x; q.y = (float)y; q.z = (float)z; q.w = (float)w;
    return q;
}
static gpuskin_mat4 fm_ident(void) {
    dmat4 d = dm_ident();
    return fm_from_d(&d);
}
static gpuskin_trs trs_make(gpuskin_vec3 t, gpuskin_quat r, gpuskin_vec3 s) {
    gpuskin_trs x;
    x.translation = t; x.rotation = r; x.scale = s;
    return x;
}

/* A PRNG of our own (splitmix64) so the property tests are reproducible everywhere. */
static uint64_t rng_state;
static void rng_seed(uint64_t s) { rng_state = s * 0x9E3779B97F4A7C15ull + 0x1234567ull; }
static uint64_t rng_u64(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double rng_unit(void) { return (double)(rng_u64() >> 11) * (1.0 / 9007199254740992.0); } /* [0,1) */
static double rng_range(double a, double b) { return a + (b - a) * rng_unit(); }
static uint32_t rng_below(uint32_t n) { return (uint32_t)(rng_u64() % n); }
static gpuskin_quat rng_quat(void) {
    double x, y, z, w, n;
    do {
        x = rng_range(-1, 1); y = rng_range(-1, 1); z = rng_range(-1, 1); w = rng_range(-1, 1);
        n = x * x + y * y + z * z + w * w;
    } while (n < 0.01 || n > 1);
    n = sqrt(n);
    return q4(x / n, y / n, z / n, w / n);
}
static void qf_to_d(gpuskin_quat q, double d[4]) { d[0] = q.x; d[1] = q.y; d[2] = q.z; d[3] = q.w; }

/* A small test mesh: up to 64 vertices, two influence sets, U16 joints. */
#define TM_MAXV 64
typedef struct tmesh {
    size_t n;
    uint32_t sets;
    float pos[TM_MAXV][3], nrm[TM_MAXV][3], tan[TM_MAXV][4];
    uint16_t j[2][TM_MAXV][4];
    float w[2][TM_MAXV][4];
} tmesh;
static void tm_init(tmesh *m, size_t n, uint32_t sets) {
    size_t i;
    memset(m, 0, sizeof *m);
    m->n = n;
    m->sets = sets;
    for (i = 0; i < n; ++i) {
        m->nrm[i][2] = 1.0f;
        m->tan[i][0] = 1.0f;
        m->tan[i][3] = 1.0f;
    }
}
static void tm_pos(tmesh *m, size_t i, double x, double y, double z) {
    m->pos[i][0] = (float)x; m->pos[i][1] = (float)y; m->pos[i][2] = (float)z;
}
static void tm_nrm(tmesh *m, size_t i, double x, double y, double z) {
    m->nrm[i][0] = (float)x; m->nrm[i][1] = (float)y; m->nrm[i][2] = (float)z;
}
static void tm_tan(tmesh *m, size_t i, double x, double y, double z, double w) {
    m->tan[i][0] = (float)x; m->tan[i][1] = (float)y; m->tan[i][2] = (float)z; m->tan[i][3] = (float)w;
}
/* influence k (0..7) of vertex i */
static void tm_inf(tmesh *m, size_t i, int k, unsigned joint, double weight) {
    m->j[k / 4][i][k % 4] = (uint16_t)joint;
    m->w[k / 4][i][k % 4] = (float)weight;
}
static gpuskin_vertex_streams tm_streams(const tmesh *m) {
    gpuskin_vertex_streams s;
    ZERO(s);
    s.vertex_count = m->n;
    s.positions.data = m->pos;
    s.normals.data = m->nrm;
    s.tangents.data = m->tan;
    s.influence_sets = m->sets;
    s.joint_type = GPUSKIN_JOINT_U16;
    s.joints[0].data = m->j[0];
    s.weights[0].data = m->w[0];
    if (m->sets == 2) {
        s.joints[1].data = m->j[1];
        s.weights[1].data = m->w[1];
    }
    return s;
}

enum { LBS = 0, DQS_GS = 1, DQS_POLAR = 2 };
static const char *method_name(int m) { return m == LBS ? "LBS" : m == DQS_GS ? "DQS(gram-schmidt)" : "DQS(polar)"; }

typedef struct skin_out {
    float p[TM_MAXV * 3], n[TM_MAXV * 3], t[TM_MAXV * 4];
    uint32_t word;
} skin_out;

/* Pack `pal` for `method` and run the CPU oracle over `s`, tight outputs. */
static gpuskin_result run_skin(const gpuskin_vertex_streams *s, uint32_t jc, const gpuskin_mat4 *pal, int method,
                               skin_out *o) {
    float *lbs = (float *)malloc(jc * GPUSKIN_LBS_FLOATS_PER_JOINT * sizeof(float));
    float *dq = (float *)malloc(jc * GPUSKIN_DQ_FLOATS_PER_JOINT * sizeof(float));
    float *res = (float *)malloc(jc * GPUSKIN_RESIDUAL_FLOATS_PER_JOINT * sizeof(float));
    gpuskin_cpu_skin_desc d;
    gpuskin_result r;
    ZERO(d);
    memset(o, 0, sizeof *o);
    d.streams = *s;
    d.joint_count = jc;
    if (method == LBS) {
        r = gpuskin_pack_lbs(pal, jc, lbs);
        d.method_word = GPUSKIN_METHOD_LBS;
        o->word = GPUSKIN_METHOD_LBS;
    } else {
        r = gpuskin_pack_dq(pal, jc, method == DQS_GS ? GPUSKIN_SPLIT_GRAM_SCHMIDT : GPUSKIN_SPLIT_POLAR, dq, res,
                            &o->word);
        d.method_word = o->word;
    }
    d.lbs_palette = lbs;
    d.dq_palette = dq;
    d.residual_palette = res;
    d.out_positions.data = o->p;
    d.out_normals.data = o->n;
    d.out_tangents.data = o->t;
    if (r == GPUSKIN_SUCCESS) r = gpuskin_skin_cpu(&d);
    free(lbs);
    free(dq);
    free(res);
    return r;
}
/* Run the oracle on hand-packed DQ (and optionally residual) palettes. */
static gpuskin_result run_skin_dq_raw(const gpuskin_vertex_streams *s, uint32_t jc, const float *dq, const float *res,
                                      uint32_t word, skin_out *o) {
    gpuskin_cpu_skin_desc d;
    ZERO(d);
    memset(o, 0, sizeof *o);
    d.streams = *s;
    d.joint_count = jc;
    d.method_word = word;
    d.dq_palette = dq;
    d.residual_palette = res;
    d.out_positions.data = o->p;
    d.out_normals.data = o->n;
    d.out_tangents.data = o->t;
    return gpuskin_skin_cpu(&d);
}
static int all_finite(const float *x, size_t n) {
    size_t i;
    for (i = 0; i < n; ++i)
        if (!fin(x[i])) return 0;
    return 1;
}
/* Pack a unit dual quaternion (rotation q, translation t) into 8 floats. */
static void pack_dq_raw(float *out, const double q[4], const double t[3]) {
    double d[4];
    int c;
    dq_dual_of(q, t, d);
    for (c = 0; c < 4; ++c) { out[c] = (float)q[c]; out[4 + c] = (float)d[c]; }
}

/* ------------------------------------------------------------------------ */
/* Maths                                                                    */
/* ------------------------------------------------------------------------ */

static void test_math_basics(void) {
    gpuskin_mat4 I = gpuskin_mat4_identity(), a, b, ab, inv;
    gpuskin_trs t;
    gpuskin_quat qz, qx, q;
    gpuskin_vec3 v;
    gpuskin_mat3 r3;
    int i;
    for (i = 0; i < 16; ++i) CHECK(I.m[i] == ((i % 5 == 0) ? 1.0f : 0.0f));

    /* a * b by hand: a = translate(1,2,3), b = scale(2,3,4): (a*b) p = (2x+1, 3y+2, 4z+3). */
    { dmat4 da = dm_translate(1, 2, 3), db = dm_scale(2, 3, 4); a = fm_from_d(&da); b = fm_from_d(&db); }
    ab = gpuskin_mat4_mul(&a, &b);
    v = gpuskin_mat4_transform_point(&ab, v3(1, 1, 1));
    CHECK_NEAR(v.x, 3, 0); CHECK_NEAR(v.y, 5, 0); CHECK_NEAR(v.z, 7, 0);
    ab = gpuskin_mat4_mul(&b, &a); /* b*a: (2(x+1), 3(y+2), 4(z+3)) */
    v = gpuskin_mat4_transform_point(&ab, v3(1, 1, 1));
    CHECK_NEAR(v.x, 4, 0); CHECK_NEAR(v.y, 9, 0); CHECK_NEAR(v.z, 16, 0);

    /* T(1,2,3) * Rz(90) * S(2,3,4): columns (0,2,0), (-3,0,0), (0,0,4), (1,2,3). */
    t = trs_make(v3(1, 2, 3), q4(0, 0, sqrt(0.5), sqrt(0.5)), v3(2, 3, 4));
    a = gpuskin_mat4_from_trs(&t);
    {
        static const float want[16] = {0, 2, 0, 0, -3, 0, 0, 0, 0, 0, 4, 0, 1, 2, 3, 1};
        for (i = 0; i < 16; ++i) CHECK_NEAR(a.m[i], want[i], 1e-6);
    }
    t = gpuskin_trs_identity();
    CHECK(t.translation.x == 0 && t.translation.y == 0 && t.translation.z == 0);
    CHECK(t.rotation.x == 0 && t.rotation.y == 0 && t.rotation.z == 0 && t.rotation.w == 1);
    CHECK(t.scale.x == 1 && t.scale.y == 1 && t.scale.z == 1);

    /* inverse_affine: M * inv(M) = I (checked in double). */
    CHECK_EQ_INT(gpuskin_mat4_inverse_affine(&a, &inv), GPUSKIN_SUCCESS);
    {
        dmat4 da = dm_from_f(&a), di = dm_from_f(&inv), p = dm_mul(&da, &di);
        for (i = 0; i < 16; ++i) CHECK_NEAR(p.m[i], (i % 5 == 0) ? 1.0 : 0.0, 1e-6);
    }
    b = a;
    b.m[4] = b.m[5] = b.m[6] = 0; /* second column zero: singular */
    CHECK_EQ_INT(gpuskin_mat4_inverse_affine(&b, &inv), GPUSKIN_ERROR_INVALID_ARGUMENT);
    b = a;
    b.m[13] = NAN;
    CHECK_EQ_INT(gpuskin_mat4_inverse_affine(&b, &inv), GPUSKIN_ERROR_NON_FINITE);
    CHECK(gpuskin_mat4_is_finite(&a) != 0);
    CHECK(gpuskin_mat4_is_finite(&b) == 0);
    b = a;
    b.m[2] = INFINITY;
    CHECK(gpuskin_mat4_is_finite(&b) == 0);
    b.m[2] = -INFINITY;
    CHECK(gpuskin_mat4_is_finite(&b) == 0);

    /* Quaternions. axis_angle(z, 90deg) = (0, 0, sin 45, cos 45). */
    q = gpuskin_quat_identity();
    CHECK(q.x == 0 && q.y == 0 && q.z == 0 && q.w == 1);
    qz = gpuskin_quat_axis_angle(v3(0, 0, 2), (float)(PI / 2)); /* axis need not be unit */
    CHECK_NEAR(qz.x, 0, 1e-7); CHECK_NEAR(qz.y, 0, 1e-7);
    CHECK_NEAR(qz.z, sqrt(0.5), 1e-6); CHECK_NEAR(qz.w, sqrt(0.5), 1e-6);
    qx = gpuskin_quat_axis_angle(v3(1, 0, 0), (float)(PI / 2));
    v = gpuskin_quat_rotate(qz, v3(1, 0, 0)); /* (0,1,0) */
    CHECK_NEAR(v.x, 0, 1e-6); CHECK_NEAR(v.y, 1, 1e-6); CHECK_NEAR(v.z, 0, 1e-6);
    /* (qz * qx) applies qx first: (0,0,1) -Rx90-> (0,-1,0) -Rz90-> (1,0,0). */
    q = gpuskin_quat_mul(qz, qx);
    v = gpuskin_quat_rotate(q, v3(0, 0, 1));
    CHECK_NEAR(v.x, 1, 1e-6); CHECK_NEAR(v.y, 0, 1e-6); CHECK_NEAR(v.z, 0, 1e-6);
    q = gpuskin_quat_normalize(q4(0, 0, 0, 2));
    CHECK_NEAR(q.w, 1, 0); CHECK_NEAR(q.x, 0, 0);
    q = gpuskin_quat_normalize(q4(0, 0, 0, 0)); /* ~0 -> identity */
    CHECK(q.x == 0 && q.y == 0 && q.z == 0 && q.w == 1);
    q = gpuskin_quat_normalize(q4(0, 3, 0, 4));
    CHECK_NEAR(q.y, 0.6, 1e-7); CHECK_NEAR(q.w, 0.8, 1e-7);

    /* mat3_from_quat(Rz90): column 0 = (0,1,0), column 1 = (-1,0,0). */
    r3 = gpuskin_mat3_from_quat(qz);
    CHECK_NEAR(r3.m[0], 0, 1e-6); CHECK_NEAR(r3.m[1], 1, 1e-6); CHECK_NEAR(r3.m[2], 0, 1e-6);
    CHECK_NEAR(r3.m[3], -1, 1e-6); CHECK_NEAR(r3.m[4], 0, 1e-6); CHECK_NEAR(r3.m[8], 1, 1e-6);
    /* quat_from_mat3 of Rz(200 deg): w >= 0, i.e. (0,0,-sin 100, -cos 100). */
    {
        dmat4 d = dm_axis_angle(0, 0, 1, 200 * PI / 180);
        int r, c;
        for (c = 0; c < 3; ++c)
            for (r = 0; r < 3; ++r) r3.m[c * 3 + r] = (float)dm_at(&d, r, c);
        q = gpuskin_quat_from_mat3(&r3);
        CHECK(q.w >= 0);
        CHECK_NEAR(q.w, -cos(100 * PI / 180), 1e-6);
        CHECK_NEAR(q.z, -sin(100 * PI / 180), 1e-6);
        CHECK_NEAR(q.x, 0, 1e-6); CHECK_NEAR(q.y, 0, 1e-6);
        /* 180 degrees about (1,1,0)/sqrt2: w = 0, xyz = +-(0.7071, 0.7071, 0). */
        d = dm_axis_angle(1, 1, 0, PI);
        for (c = 0; c < 3; ++c)
            for (r = 0; r < 3; ++r) r3.m[c * 3 + r] = (float)dm_at(&d, r, c);
        q = gpuskin_quat_from_mat3(&r3);
        CHECK_NEAR(q.w, 0, 1e-6);
        CHECK_NEAR(fabs(q.x), sqrt(0.5), 1e-6); CHECK_NEAR(fabs(q.y), sqrt(0.5), 1e-6);
        CHECK(q.x * q.y > 0);
    }
    /* slerp: identity -> Rz90 at 0.5 is Rz45; shortest arc when b is given negated. */
    q = gpuskin_quat_slerp(gpuskin_quat_identity(), qz, 0.5f);
    CHECK_NEAR(q.z, sin(PI / 8), 1e-6); CHECK_NEAR(q.w, cos(PI / 8), 1e-6);
    q = gpuskin_quat_slerp(gpuskin_quat_identity(), q4(-qz.x, -qz.y, -qz.z, -qz.w), 0.5f);
    v = gpuskin_quat_rotate(q, v3(1, 0, 0)); /* Rz45 either sign: (0.7071, 0.7071, 0) */
    CHECK_NEAR(v.x, sqrt(0.5), 1e-6); CHECK_NEAR(v.y, sqrt(0.5), 1e-6);
}

static void test_dualquat_basics(void) {
    gpuskin_quat q = gpuskin_quat_axis_angle(v3(1, 2, 3), 0.9f);
    gpuskin_dualquat dq = gpuskin_dualquat_from_rt(q, v3(4, -5, 6)), n;
    gpuskin_vec3 t = gpuskin_dualquat_translation(&dq);
    double qd[4], td[3] = {4, -5, 6}, dd[4];
    qf_to_d(q, qd);
    dq_dual_of(qd, td, dd); /* dual = 0.5 (t,0) q, computed here in double */
    CHECK_NEAR(dq.real.x, qd[0], 0); CHECK_NEAR(dq.real.w, qd[3], 0);
    CHECK_NEAR(dq.dual.x, dd[0], 1e-6); CHECK_NEAR(dq.dual.y, dd[1], 1e-6);
    CHECK_NEAR(dq.dual.z, dd[2], 1e-6); CHECK_NEAR(dq.dual.w, dd[3], 1e-6);
    CHECK_NEAR(t.x, 4, 1e-5); CHECK_NEAR(t.y, -5, 1e-5); CHECK_NEAR(t.z, 6, 1e-5);

    /* normalize((2q, d + 3q)): real = q, dual = (d + 3q)/2 - 1.5 q = d/2, so the
       translation halves to (2, -2.5, 3). */
    n = dq;
    n.real = q4(2 * q.x, 2 * q.y, 2 * q.z, 2 * q.w);
    n.dual = q4(dq.dual.x + 3 * q.x, dq.dual.y + 3 * q.y, dq.dual.z + 3 * q.z, dq.dual.w + 3 * q.w);
    n = gpuskin_dualquat_normalize(n);
    CHECK_NEAR(n.real.x, q.x, 1e-6); CHECK_NEAR(n.real.y, q.y, 1e-6);
    CHECK_NEAR(n.real.z, q.z, 1e-6); CHECK_NEAR(n.real.w, q.w, 1e-6);
    CHECK_NEAR(n.real.x * n.dual.x + n.real.y * n.dual.y + n.real.z * n.dual.z + n.real.w * n.dual.w, 0, 1e-6);
    t = gpuskin_dualquat_translation(&n);
    CHECK_NEAR(t.x, 2, 1e-5); CHECK_NEAR(t.y, -2.5, 1e-5); CHECK_NEAR(t.z, 3, 1e-5);
    /* |real| ~ 0 -> identity */
    n.real = q4(0, 0, 0, 0);
    n.dual = q4(1, 2, 3, 4);
    n = gpuskin_dualquat_normalize(n);
    CHECK(n.real.x == 0 && n.real.y == 0 && n.real.z == 0 && n.real.w == 1);
    CHECK(n.dual.x == 0 && n.dual.y == 0 && n.dual.z == 0 && n.dual.w == 0);
}

/* ------------------------------------------------------------------------ */
/* CPU oracle: simple poses with hand numbers                               */
/* ------------------------------------------------------------------------ */

static void test_identity_palette(void) {
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s;
    gpuskin_mat4 pal[3];
    int method;
    size_t i;
    tm_init(&m, 5, 1);
    tm_pos(&m, 0, 1, 2, 3);     tm_inf(&m, 0, 0, 0, 1);
    tm_pos(&m, 1, -4, 0.5, 2);  tm_inf(&m, 1, 0, 1, 0.3); tm_inf(&m, 1, 1, 2, 0.7);
    tm_pos(&m, 2, 0, 0, 0);     tm_inf(&m, 2, 0, 2, 0.25); tm_inf(&m, 2, 1, 0, 0.25); tm_inf(&m, 2, 2, 1, 0.5);
    tm_pos(&m, 3, 7, -8, 9);    tm_inf(&m, 3, 3, 1, 1);
    tm_pos(&m, 4, 0.1, 0.2, 0.3); tm_inf(&m, 4, 0, 0, 0.1); tm_inf(&m, 4, 1, 1, 0.2); tm_inf(&m, 4, 2, 2, 0.3);
    tm_inf(&m, 4, 3, 0, 0.4);
    tm_nrm(&m, 1, 0.6, 0.8, 0); tm_nrm(&m, 2, 0, 0, -1); tm_nrm(&m, 3, 0, 1, 0);
    tm_nrm(&m, 4, 2.0 / 3, -1.0 / 3, 2.0 / 3);
    tm_tan(&m, 1, 0, 0, 1, -1); tm_tan(&m, 4, 0.6, 0, 0.8, -1);
    for (i = 0; i < 3; ++i) pal[i] = fm_ident();
    s = tm_streams(&m);
    for (method = LBS; method <= DQS_POLAR; ++method) {
        CHECK_EQ_INT(run_skin(&s, 3, pal, method, &o), GPUSKIN_SUCCESS);
        if (method != LBS) CHECK_EQ_INT(o.word, GPUSKIN_METHOD_DQS); /* all rigid: no residual bit */
        for (i = 0; i < m.n; ++i) {
            int c;
            for (c = 0; c < 3; ++c) {
                CHECK_NEAR(o.p[i * 3 + c], m.pos[i][c], 1e-6 * (1 + fabs(m.pos[i][c])));
                CHECK_NEAR(o.n[i * 3 + c], m.nrm[i][c], 1e-6);
                CHECK_NEAR(o.t[i * 4 + c], m.tan[i][c], 1e-6);
            }
            CHECK(o.t[i * 4 + 3] == m.tan[i][3]);
        }
    }
}

static void test_one_joint_translated(void) {
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s;
    gpuskin_mat4 pal[2];
    int method;
    dmat4 T = dm_translate(1, 2, 3);
    tm_init(&m, 3, 1);
    tm_pos(&m, 0, 1, 1, 1);  tm_inf(&m, 0, 0, 1, 1);                       /* -> (2,3,4) */
    tm_pos(&m, 1, 0, 0, 0);  tm_inf(&m, 1, 0, 0, 0.5); tm_inf(&m, 1, 1, 1, 0.5); /* -> (0.5,1,1.5) */
    tm_pos(&m, 2, -1, 0, 2); tm_inf(&m, 2, 0, 0, 1);                       /* joint 0: unchanged */
    tm_nrm(&m, 0, 0, 1, 0);
    pal[0] = fm_ident();
    pal[1] = fm_from_d(&T);
    s = tm_streams(&m);
    for (method = LBS; method <= DQS_POLAR; ++method) {
        CHECK_EQ_INT(run_skin(&s, 2, pal, method, &o), GPUSKIN_SUCCESS);
        CHECK_NEAR(o.p[0], 2, 1e-6); CHECK_NEAR(o.p[1], 3, 1e-6); CHECK_NEAR(o.p[2], 4, 1e-6);
        CHECK_NEAR(o.p[3], 0.5, 1e-6); CHECK_NEAR(o.p[4], 1, 1e-6); CHECK_NEAR(o.p[5], 1.5, 1e-6);
        CHECK_NEAR(o.p[6], -1, 1e-6); CHECK_NEAR(o.p[7], 0, 1e-6); CHECK_NEAR(o.p[8], 2, 1e-6);
        CHECK_NEAR(o.n[0], 0, 1e-6); CHECK_NEAR(o.n[1], 1, 1e-6); CHECK_NEAR(o.n[2], 0, 1e-6);
        CHECK_NEAR(o.n[5], 1, 1e-6);
        CHECK_NEAR(o.t[4], 1, 1e-6); CHECK_NEAR(o.t[7], 1, 0);
    }
}

static void test_one_joint_rotated(void) {
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s;
    gpuskin_mat4 pal[2];
    int method;
    /* joint 1: Rz(90) about the point c = (1,1,0): p -> R(p - c) + c. */
    dmat4 A = dm_translate(1, 1, 0), R = dm_axis_angle(0, 0, 1, PI / 2), B = dm_translate(-1, -1, 0), AR, M;
    AR = dm_mul(&A, &R);
    M = dm_mul(&AR, &B);
    tm_init(&m, 2, 1);
    tm_pos(&m, 0, 2, 1, 5); tm_inf(&m, 0, 0, 1, 1); /* (1,0,5) rel -> (0,1,5) -> (1,2,5) */
    tm_nrm(&m, 0, 1, 0, 0);                          /* -> (0,1,0) */
    tm_tan(&m, 0, 0, 1, 0, -1);                      /* -> (-1,0,0), w -1 */
    tm_pos(&m, 1, 1, 1, 0); tm_inf(&m, 1, 0, 1, 1); /* the pivot stays */
    pal[0] = fm_ident();
    pal[1] = fm_from_d(&M);
    s = tm_streams(&m);
    for (method = LBS; method <= DQS_POLAR; ++method) {
        CHECK_EQ_INT(run_skin(&s, 2, pal, method, &o), GPUSKIN_SUCCESS);
        CHECK_NEAR(o.p[0], 1, 1e-6); CHECK_NEAR(o.p[1], 2, 1e-6); CHECK_NEAR(o.p[2], 5, 1e-6);
        CHECK_NEAR(o.n[0], 0, 1e-6); CHECK_NEAR(o.n[1], 1, 1e-6); CHECK_NEAR(o.n[2], 0, 1e-6);
        CHECK_NEAR(o.t[0], -1, 1e-6); CHECK_NEAR(o.t[1], 0, 1e-6); CHECK_NEAR(o.t[2], 0, 1e-6);
        CHECK(o.t[3] == -1.0f);
        CHECK_NEAR(o.p[3], 1, 1e-6); CHECK_NEAR(o.p[4], 1, 1e-6); CHECK_NEAR(o.p[5], 0, 1e-6);
    }
}

/* A two-joint chain along +y built through the skeleton API: joint 1 sits at (0,1,0)
   and bends 90 degrees about z. */
static void test_two_joint_chain_bent(void) {
    gpuskin_skeleton sk;
    gpuskin_skeleton_desc sd;
    int32_t parents[2] = {-1, 0};
    gpuskin_trs rest[2], pose[2];
    gpuskin_mat4 ib[2], glob[2], pal[2];
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s;
    int method;
    rest[0] = gpuskin_trs_identity();
    rest[1] = trs_make(v3(0, 1, 0), q4(0, 0, 0, 1), v3(1, 1, 1));
    { dmat4 a = dm_ident(), b = dm_translate(0, -1, 0); ib[0] = fm_from_d(&a); ib[1] = fm_from_d(&b); }
    ZERO(sd);
    sd.joint_count = 2;
    sd.parents = parents;
    sd.inverse_bind = ib;
    sd.rest_pose = rest;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &sd), GPUSKIN_SUCCESS);
    pose[0] = rest[0];
    pose[1] = rest[1];
    pose[1].rotation = q4(0, 0, sqrt(0.5), sqrt(0.5));
    CHECK_EQ_INT(gpuskin_skeleton_globals(&sk, pose, glob), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(gpuskin_skeleton_palette(&sk, NULL, glob, pal), GPUSKIN_SUCCESS);
    tm_init(&m, 5, 1);
    tm_pos(&m, 0, 0, 0.5, 0); tm_inf(&m, 0, 0, 0, 1);                       /* stays (0,0.5,0) */
    tm_pos(&m, 1, 0, 1, 0);   tm_inf(&m, 1, 0, 1, 1);                       /* the joint: stays */
    tm_pos(&m, 2, 0, 1.5, 0); tm_inf(&m, 2, 0, 1, 1);                       /* -> (-0.5,1,0) */
    tm_pos(&m, 3, 0, 2, 0);   tm_inf(&m, 3, 0, 1, 1);                       /* -> (-1,1,0) */
    tm_pos(&m, 4, 0, 1.5, 0); tm_inf(&m, 4, 0, 0, 0.5); tm_inf(&m, 4, 1, 1, 0.5);
    tm_nrm(&m, 3, 1, 0, 0); /* -> (0,1,0) */
    s = tm_streams(&m);
    for (method = LBS; method <= DQS_POLAR; ++method) {
        CHECK_EQ_INT(run_skin(&s, 2, pal, method, &o), GPUSKIN_SUCCESS);
        CHECK_NEAR(o.p[0], 0, 1e-6);    CHECK_NEAR(o.p[1], 0.5, 1e-6); CHECK_NEAR(o.p[2], 0, 1e-6);
        CHECK_NEAR(o.p[3], 0, 1e-6);    CHECK_NEAR(o.p[4], 1, 1e-6);   CHECK_NEAR(o.p[5], 0, 1e-6);
        CHECK_NEAR(o.p[6], -0.5, 1e-6); CHECK_NEAR(o.p[7], 1, 1e-6);   CHECK_NEAR(o.p[8], 0, 1e-6);
        CHECK_NEAR(o.p[9], -1, 1e-6);   CHECK_NEAR(o.p[10], 1, 1e-6);  CHECK_NEAR(o.p[11], 0, 1e-6);
        CHECK_NEAR(o.n[9], 0, 1e-6);    CHECK_NEAR(o.n[10], 1, 1e-6);
        if (method == LBS) {
            /* average of (0,1.5,0) and (-0.5,1,0) */
            CHECK_NEAR(o.p[12], -0.25, 1e-6); CHECK_NEAR(o.p[13], 1.25, 1e-6);
        } else {
            /* DQS: a 45 degree rotation about the joint: (0,1) + 0.5 (-sin45, cos45) */
            CHECK_NEAR(o.p[12], -0.5 * sqrt(0.5), 1e-6); CHECK_NEAR(o.p[13], 1 + 0.5 * sqrt(0.5), 1e-6);
        }
        CHECK_NEAR(o.p[14], 0, 1e-6);
    }
    gpuskin_skeleton_free(&sk);
}

/* The candy wrapper: a ring around the x axis, every vertex 0.5/0.5 between a joint
   at rest and one twisted 180 degrees about x. */
static void test_candy_wrapper(void) {
    enum { N = 16 };
    const double r = 0.5;
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s;
    gpuskin_mat4 pal[2];
    int variant, method;
    size_t i;
    tm_init(&m, N, 1);
    for (i = 0; i < N; ++i) {
        double a = 2 * PI * (double)i / N;
        tm_pos(&m, i, 1, r * cos(a), r * sin(a));
        tm_nrm(&m, i, 0, cos(a), sin(a));
        tm_inf(&m, i, 0, 0, 0.5);
        tm_inf(&m, i, 1, 1, 0.5);
    }
    s = tm_streams(&m);
    pal[0] = fm_ident();
    for (variant = 0; variant < 2; ++variant) {
        if (variant == 0) {
            dmat4 d = dm_scale(1, -1, -1); /* exactly 180 degrees about x */
            pal[1] = fm_from_d(&d);
        } else {
            gpuskin_trs t = trs_make(v3(0, 0, 0), gpuskin_quat_axis_angle(v3(1, 0, 0), (float)PI), v3(1, 1, 1));
            pal[1] = gpuskin_mat4_from_trs(&t);
        }
        for (method = LBS; method <= DQS_POLAR; ++method) {
            double maxr = 0, minr = 1e30;
            CHECK_EQ_INT(run_skin(&s, 2, pal, method, &o), GPUSKIN_SUCCESS);
            for (i = 0; i < N; ++i) {
                double rr = sqrt((double)o.p[i * 3 + 1] * o.p[i * 3 + 1] + (double)o.p[i * 3 + 2] * o.p[i * 3 + 2]);
                if (rr > maxr) maxr = rr;
                if (rr < minr) minr = rr;
                CHECK_NEAR(o.p[i * 3], 1, 1e-6);
                CHECK(all_finite(o.n + i * 3, 3));
            }
            printf("    candy wrapper (%s, %s): ring radius %.9g .. %.9g (rest %.3g)\n",
                   variant ? "from_trs" : "exact", method_name(method), minr, maxr, r);
            if (method == LBS) {
                CHECK(maxr < 1e-3 * r);
            } else {
                CHECK_NEAR(minr, r, 1e-5 * r);
                CHECK_NEAR(maxr, r, 1e-5 * r);
                /* and the normals still point radially outward, unit length */
                for (i = 0; i < N; ++i) {
                    double ny = o.n[i * 3 + 1], nz = o.n[i * 3 + 2], py = o.p[i * 3 + 1], pz = o.p[i * 3 + 2];
                    CHECK_NEAR(o.n[i * 3], 0, 1e-5);
                    CHECK_NEAR(ny * py + nz * pz, r, 1e-5);
                }
            }
        }
    }
}

/* Non-uniform and mirrored scale: for single-influence vertices DQS with the residual
   reproduces the joint matrix exactly, i.e. equals LBS. */
static void test_scale_and_mirror_single_influence(void) {
    enum { J = 4 };
    tmesh m;
    skin_out lbs, dqs;
    gpuskin_vertex_streams s;
    gpuskin_mat4 pal[J];
    dmat4 dpal[J];
    int method, j;
    size_t i;
    {
        dmat4 T, R, S, X, TR;
        /* 0: rotation + non-uniform scale */
        T = dm_translate(0.5, -1, 2); R = dm_axis_angle(1, 2, 3, 0.7); S = dm_scale(2, 0.5, 1.5);
        TR = dm_mul(&T, &R); dpal[0] = dm_mul(&TR, &S);
        /* 1: mirrored: negative x scale */
        T = dm_translate(-3, 1, 0.25); R = dm_axis_angle(-1, 0.5, 0.2, 2.1); S = dm_scale(-1, 1.2, 0.8);
        TR = dm_mul(&T, &R); dpal[1] = dm_mul(&TR, &S);
        /* 2: mirrored on z with shear */
        T = dm_translate(1, 1, 1); R = dm_axis_angle(0, 1, 0, -1.2); S = dm_scale(1.3, 0.7, -2);
        X = dm_ident(); X.m[4] = 0.4; X.m[8] = -0.3; X.m[9] = 0.6; /* upper-triangular shear */
        TR = dm_mul(&T, &R); TR = dm_mul(&TR, &X); dpal[2] = dm_mul(&TR, &S);
        /* 3: all three axes negative (det < 0, = rotation * -I) */
        T = dm_translate(0, 0, -1); R = dm_axis_angle(1, 1, 0, 0.4); S = dm_scale(-1, -1.5, -0.5);
        TR = dm_mul(&T, &R); dpal[3] = dm_mul(&TR, &S);
    }
    for (j = 0; j < J; ++j) pal[j] = fm_from_d(&dpal[j]);
    tm_init(&m, 12, 1);
    for (i = 0; i < 12; ++i) {
        double a = 0.9 * (double)i;
        tm_pos(&m, i, cos(a) * 2, sin(a) - 0.5, 0.3 * (double)i - 1);
        tm_nrm(&m, i, sin(a) * 0.6, 0.8, cos(a) * 0.6);
        tm_tan(&m, i, 0.8, -0.6 * sin(a), -0.6 * cos(a), (i & 1) ? -1.0 : 1.0);
        if (i < 8) {
            tm_inf(&m, i, (int)(i % 4), (unsigned)(i % J), 1.0);
        } else { /* the same joint twice counts as one influence */
            tm_inf(&m, i, 0, (unsigned)(i % J), 0.3);
            tm_inf(&m, i, 2, (unsigned)(i % J), 0.7);
        }
    }
    s = tm_streams(&m);
    CHECK_EQ_INT(run_skin(&s, J, pal, LBS, &lbs), GPUSKIN_SUCCESS);
    /* LBS itself against the double matrix */
    for (i = 0; i < m.n; ++i) {
        double p[3], q[3], n[3], nn[3];
        int c;
        const dmat4 *M = &dpal[i % J];
        for (c = 0; c < 3; ++c) { p[c] = m.pos[i][c]; n[c] = m.nrm[i][c]; }
        dm_point(M, p, q);
        dm_normal(M, n, nn);
        for (c = 0; c < 3; ++c) {
            CHECK_REL(lbs.p[i * 3 + c], q[c], 1e-5, 1 + dm_maxabs(M) * 4);
            CHECK_NEAR(lbs.n[i * 3 + c], nn[c], 1e-5);
        }
    }
    for (method = DQS_GS; method <= DQS_POLAR; ++method) {
        CHECK_EQ_INT(run_skin(&s, J, pal, method, &dqs), GPUSKIN_SUCCESS);
        CHECK_EQ_INT(dqs.word, GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT);
        for (i = 0; i < m.n; ++i) {
            int c;
            double sc = 1 + dm_maxabs(&dpal[i % J]) * 4;
            for (c = 0; c < 3; ++c) {
                CHECK_REL(dqs.p[i * 3 + c], lbs.p[i * 3 + c], 1e-5, sc);
                CHECK_NEAR(dqs.n[i * 3 + c], lbs.n[i * 3 + c], 1e-5);
                CHECK_NEAR(dqs.t[i * 4 + c], lbs.t[i * 4 + c], 1e-5);
            }
            CHECK(dqs.t[i * 4 + 3] == m.tan[i][3]);
        }
    }
}

/* A joint with a basis axis scaled to 0 gives finite output, both methods. */
static void test_degenerate_joint_finite(void) {
    enum { J = 6 };
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s;
    gpuskin_mat4 pal[J];
    dmat4 dpal[J];
    int method, j;
    size_t i;
    {
        dmat4 T = dm_translate(1, 2, 3), R = dm_axis_angle(1, -1, 2, 0.8), TR = dm_mul(&T, &R), S;
        dpal[0] = dm_ident();
        S = dm_scale(0, 1, 1);   dpal[1] = dm_mul(&TR, &S); /* first column collapsed */
        S = dm_scale(1, 0, 1);   dpal[2] = dm_mul(&TR, &S); /* second column collapsed */
        S = dm_scale(1, 1, 0);   dpal[3] = dm_mul(&TR, &S); /* third column collapsed */
        S = dm_scale(0, 0, 0);   dpal[4] = dm_mul(&TR, &S); /* everything but translation */
        S = dm_ident(); S.m[4] = 1; S.m[5] = 0;              /* second column == first */
        dpal[5] = dm_mul(&TR, &S);
    }
    for (j = 0; j < J; ++j) pal[j] = fm_from_d(&dpal[j]);
    tm_init(&m, 2 * J + 2, 1);
    for (i = 0; i < m.n; ++i) {
        tm_pos(&m, i, 0.5 + (double)i, -0.25 * (double)i, 1);
        tm_nrm(&m, i, 0.48, 0.6, 0.64);
        tm_tan(&m, i, 0.6, -0.8, 0, -1);
        if (i < J) {
            tm_inf(&m, i, 0, (unsigned)i, 1);
        } else if (i < 2 * J) { /* blended with the rest joint */
            tm_inf(&m, i, 0, 0, 0.5);
            tm_inf(&m, i, 1, (unsigned)(i - J), 0.5);
        } else { /* two degenerate joints together */
            tm_inf(&m, i, 0, 1, 0.5);
            tm_inf(&m, i, 1, i == 2 * J ? 2u : 4u, 0.5);
        }
    }
    s = tm_streams(&m);
    for (method = LBS; method <= DQS_POLAR; ++method) {
        CHECK_EQ_INT(run_skin(&s, J, pal, method, &o), GPUSKIN_SUCCESS);
        CHECK(all_finite(o.p, m.n * 3));
        CHECK(all_finite(o.n, m.n * 3));
        CHECK(all_finite(o.t, m.n * 4));
        for (i = 0; i < (size_t)J; ++i) { /* single influence: exactly M p */
            double p[3], q[3];
            int c;
            for (c = 0; c < 3; ++c) p[c] = m.pos[i][c];
            dm_point(&dpal[i], p, q);
            for (c = 0; c < 3; ++c) CHECK_REL(o.p[i * 3 + c], q[c], 1e-5, 10);
        }
        for (i = 0; i < m.n; ++i) CHECK(o.t[i * 4 + 3] == -1.0f);
    }
}

/* Weights summing to 0.9 are renormalised: same as the weights divided by 0.9. */
static void test_weights_renormalised(void) {
    tmesh a, b;
    skin_out oa, ob;
    gpuskin_vertex_streams sa, sb;
    gpuskin_mat4 pal[3];
    dmat4 d1, d2;
    int method;
    size_t i;
    {
        dmat4 T = dm_translate(1, 0, 0), R = dm_axis_angle(0, 0, 1, PI / 6);
        d1 = dm_mul(&T, &R);
        T = dm_translate(0, -2, 0.5);
        R = dm_axis_angle(1, 1, 1, -0.5);
        d2 = dm_mul(&T, &R);
    }
    pal[0] = fm_ident();
    pal[1] = fm_from_d(&d1);
    pal[2] = fm_from_d(&d2);
    tm_init(&a, 3, 1);
    tm_init(&b, 3, 1);
    for (i = 0; i < 3; ++i) {
        tm_pos(&a, i, 1 + (double)i, 2, -1);
        tm_pos(&b, i, 1 + (double)i, 2, -1);
    }
    tm_inf(&a, 0, 0, 0, 0.5); tm_inf(&a, 0, 1, 1, 0.4);                       /* sum 0.9 */
    tm_inf(&b, 0, 0, 0, 0.5 / 0.9); tm_inf(&b, 0, 1, 1, 0.4 / 0.9);
    tm_inf(&a, 1, 0, 1, 0.3); tm_inf(&a, 1, 1, 2, 0.3); tm_inf(&a, 1, 2, 0, 0.3); /* sum 0.9 */
    tm_inf(&b, 1, 0, 1, 1.0 / 3); tm_inf(&b, 1, 1, 2, 1.0 / 3); tm_inf(&b, 1, 2, 0, 1.0 / 3);
    tm_inf(&a, 2, 0, 2, 0.9);                                                    /* alone: weight 1 */
    tm_inf(&b, 2, 0, 2, 1.0);
    sa = tm_streams(&a);
    sb = tm_streams(&b);
    for (method = LBS; method <= DQS_POLAR; ++method) {
        CHECK_EQ_INT(run_skin(&sa, 3, pal, method, &oa), GPUSKIN_SUCCESS);
        CHECK_EQ_INT(run_skin(&sb, 3, pal, method, &ob), GPUSKIN_SUCCESS);
        for (i = 0; i < 9; ++i) CHECK_NEAR(oa.p[i], ob.p[i], 1e-6 * 4);
    }
    /* and LBS by hand: (5/9) p + (4/9) M1 p for vertex 0 */
    CHECK_EQ_INT(run_skin(&sa, 3, pal, LBS, &oa), GPUSKIN_SUCCESS);
    {
        double p[3] = {1, 2, -1}, q[3];
        int c;
        dm_point(&d1, p, q);
        for (c = 0; c < 3; ++c) CHECK_NEAR(oa.p[c], (5.0 / 9) * p[c] + (4.0 / 9) * q[c], 4e-6);
        p[0] = 3; /* vertex 2: weight 0.9 on joint 2 alone -> exactly M2 p, no shrink */
        dm_point(&d2, p, q);
        for (c = 0; c < 3; ++c) CHECK_NEAR(oa.p[6 + c], q[c], 4e-6);
    }
}

/* Denormal weights (below FLT_MIN) count as 0 (gpuskin.h, weights: GPUs may flush them);
   FLT_MIN itself and other tiny normal weights are renormalised like any other. Joint 1
   is translated by (1,2,3); joint 0 is the identity. */
static void test_denormal_weights(void) {
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s;
    gpuskin_mat4 pal[2];
    int method;
    volatile float tiny = 1e-40f; /* denormal: 1/tiny would overflow float */
    dmat4 T = dm_translate(1, 2, 3);
    pal[0] = fm_ident();
    pal[1] = fm_from_d(&T);
    tm_init(&m, 6, 1);
    tm_pos(&m, 0, 1, 1, 1); m.j[0][0][0] = 1; m.w[0][0][0] = tiny;                     /* only denormal: bind (1,1,1) */
    tm_pos(&m, 1, 0, 0, 0); m.j[0][1][1] = 1; m.w[0][1][0] = tiny; m.w[0][1][1] = tiny; /* bind (0,0,0) */
    tm_pos(&m, 2, 0, 0, 0); m.j[0][2][0] = 1; m.w[0][2][0] = 1e-30f;                   /* normal: weight 1 -> (1,2,3) */
    tm_pos(&m, 3, 0, 0, 0); m.j[0][3][0] = 1; m.w[0][3][0] = FLT_MIN;                  /* FLT_MIN counts -> (1,2,3) */
    tm_pos(&m, 4, 0, 0, 0); m.j[0][4][0] = 1; m.w[0][4][0] = 0.5f; m.w[0][4][1] = tiny; /* j0's denormal ignored -> (1,2,3) */
    tm_pos(&m, 5, 0, 0, 0); m.j[0][5][0] = 7; m.w[0][5][0] = tiny; m.w[0][5][1] = 0.25f; /* joint 7 unweighted; j0 -> (0,0,0) */
    s = tm_streams(&m);
    CHECK_EQ_INT(gpuskin_streams_validate(&s, 2, NULL), GPUSKIN_SUCCESS);
    for (method = LBS; method <= DQS_GS; ++method) {
        CHECK_EQ_INT(run_skin(&s, 2, pal, method, &o), GPUSKIN_SUCCESS);
        CHECK(all_finite(o.p, 18) && all_finite(o.n, 18) && all_finite(o.t, 24));
        CHECK(o.p[0] == 1 && o.p[1] == 1 && o.p[2] == 1);
        CHECK(o.p[3] == 0 && o.p[4] == 0 && o.p[5] == 0);
        CHECK_NEAR(o.p[6], 1, 1e-6);  CHECK_NEAR(o.p[7], 2, 1e-6);  CHECK_NEAR(o.p[8], 3, 1e-6);
        CHECK_NEAR(o.p[9], 1, 1e-6);  CHECK_NEAR(o.p[10], 2, 1e-6); CHECK_NEAR(o.p[11], 3, 1e-6);
        CHECK_NEAR(o.p[12], 1, 1e-6); CHECK_NEAR(o.p[13], 2, 1e-6); CHECK_NEAR(o.p[14], 3, 1e-6);
        CHECK_NEAR(o.p[15], 0, 1e-6); CHECK_NEAR(o.p[16], 0, 1e-6); CHECK_NEAR(o.p[17], 0, 1e-6);
    }
}

/* The 0.5/0.5 pivot tie: the FIRST of the tied influences is the pivot. Three
   rotations about z: q0 = 0 deg, q1 = 120 deg, q2 = 200 deg (w = cos 100 < 0, as
   packed, not canonicalised). dot(q0,q1) > 0, dot(q0,q2) < 0, dot(q1,q2) > 0, so
   pivot q0 flips q2 and pivot q1 flips nothing: different blends. */
static void test_dqs_pivot_tie_first_wins(void) {
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s;
    float dq[3 * 8];
    double q[3][4], t0[3] = {0, 0, 0};
    double ang[3] = {0, 120 * PI / 180, 200 * PI / 180};
    double want_first[2], want_last[2];
    int k;
    for (k = 0; k < 3; ++k) {
        dq_axis_angle(0, 0, 1, ang[k], q[k]);
        pack_dq_raw(dq + 8 * k, q[k], t0);
    }
    CHECK(dq_dot(q[0], q[1]) > 0 && dq_dot(q[0], q[2]) < 0 && dq_dot(q[1], q[2]) > 0);
    {
        /* Order {j0, j1, j2}, weights {0.4, 0.4, 0.2}: pivot j0 flips j2:
           real = 0.4 q0 + 0.4 q1 - 0.2 q2 = (0, 0, 0.4 sin60 - 0.2 sin100, 0.4 + 0.4 cos60 - 0.2 cos100)
           Order {j1, j0, j2}: pivot j1, no flip: real = 0.4 q1 + 0.4 q0 + 0.2 q2.
           A rotation about z by 2 atan2(z, w) maps (1,0,0) to (cos, sin, 0). */
        double zf = 0.4 * sin(PI / 3) - 0.2 * sin(100 * PI / 180), wf = 0.4 + 0.4 * cos(PI / 3) - 0.2 * cos(100 * PI / 180);
        double zl = 0.4 * sin(PI / 3) + 0.2 * sin(100 * PI / 180), wl = 0.4 + 0.4 * cos(PI / 3) + 0.2 * cos(100 * PI / 180);
        double af = 2 * atan2(zf, wf), al = 2 * atan2(zl, wl);
        want_first[0] = cos(af); want_first[1] = sin(af); /* ~26.5 deg */
        want_last[0] = cos(al); want_last[1] = sin(al);   /* ~87.7 deg */
        CHECK(fabs(want_first[0] - want_last[0]) > 0.5);   /* the two choices really differ */
    }
    tm_init(&m, 2, 1);
    tm_pos(&m, 0, 1, 0, 0);
    tm_inf(&m, 0, 0, 0, 0.4); tm_inf(&m, 0, 1, 1, 0.4); tm_inf(&m, 0, 2, 2, 0.2);
    tm_pos(&m, 1, 1, 0, 0);
    tm_inf(&m, 1, 0, 1, 0.4); tm_inf(&m, 1, 1, 0, 0.4); tm_inf(&m, 1, 2, 2, 0.2);
    s = tm_streams(&m);
    CHECK_EQ_INT(run_skin_dq_raw(&s, 3, dq, NULL, GPUSKIN_METHOD_DQS, &o), GPUSKIN_SUCCESS);
    printf("    tie: vertex 0 -> (%.6f, %.6f) want (%.6f, %.6f) [pivot-last would be (%.6f, %.6f)]\n", o.p[0],
           o.p[1], want_first[0], want_first[1], want_last[0], want_last[1]);
    CHECK_NEAR(o.p[0], want_first[0], 1e-6);
    CHECK_NEAR(o.p[1], want_first[1], 1e-6);
    CHECK_NEAR(o.p[2], 0, 1e-6);
    /* the same influences listed j1 first: now j1 is the pivot */
    CHECK_NEAR(o.p[3], want_last[0], 1e-6);
    CHECK_NEAR(o.p[4], want_last[1], 1e-6);
    /* the residual path takes the same pivot */
    {
        float res[3 * 12];
        memset(res, 0, sizeof res);
        for (k = 0; k < 3; ++k) { res[k * 12 + 0] = 1; res[k * 12 + 5] = 1; res[k * 12 + 10] = 1; }
        CHECK_EQ_INT(run_skin_dq_raw(&s, 3, dq, res, GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT, &o),
                     GPUSKIN_SUCCESS);
        CHECK_NEAR(o.p[0], want_first[0], 1e-6);
        CHECK_NEAR(o.p[1], want_first[1], 1e-6);
        CHECK_NEAR(o.p[3], want_last[0], 1e-6);
        CHECK_NEAR(o.p[4], want_last[1], 1e-6);
    }
}

/* A joint packed as -q (real and dual negated: the same rigid motion) blends to the
   same result as +q, whichever influence is the pivot. */
static void test_dqs_antipodal(void) {
    tmesh m;
    skin_out a, b;
    gpuskin_vertex_streams s;
    float dq[2 * 8];
    double qa[4], qb[4], ta[3] = {0.5, -1, 2}, tb[3] = {-0.25, 0.75, 0};
    int k, c;
    size_t i;
    dq_axis_angle(1, 0.3, -0.2, 0.9, qa);
    dq_axis_angle(0.2, 1, 0.1, -0.6, qb);
    CHECK(dq_dot(qa, qb) > 0);
    pack_dq_raw(dq, qa, ta);
    pack_dq_raw(dq + 8, qb, tb);
    tm_init(&m, 4, 1);
    for (i = 0; i < 4; ++i) {
        tm_pos(&m, i, 1 - (double)i, 0.5, 2);
        tm_nrm(&m, i, 0, 0.6, 0.8);
    }
    tm_inf(&m, 0, 0, 0, 0.7); tm_inf(&m, 0, 1, 1, 0.3); /* pivot: the negated joint */
    tm_inf(&m, 1, 0, 0, 0.3); tm_inf(&m, 1, 1, 1, 0.7); /* pivot: the other one */
    tm_inf(&m, 2, 0, 0, 1);                             /* the negated joint alone */
    tm_inf(&m, 3, 0, 1, 0.5); tm_inf(&m, 3, 1, 0, 0.5); /* tie */
    s = tm_streams(&m);
    CHECK_EQ_INT(run_skin_dq_raw(&s, 2, dq, NULL, GPUSKIN_METHOD_DQS, &a), GPUSKIN_SUCCESS);
    for (k = 0; k < 8; ++k) dq[k] = -dq[k];
    CHECK_EQ_INT(run_skin_dq_raw(&s, 2, dq, NULL, GPUSKIN_METHOD_DQS, &b), GPUSKIN_SUCCESS);
    for (i = 0; i < 4; ++i)
        for (c = 0; c < 3; ++c) {
            CHECK_NEAR(a.p[i * 3 + c], b.p[i * 3 + c], 1e-6);
            CHECK_NEAR(a.n[i * 3 + c], b.n[i * 3 + c], 1e-6);
        }
    /* and both equal the double reference */
    {
        double R[2][4], D[2][4], w[2], br[4], bd[4], p[3], q[3];
        memcpy(R[0], qa, sizeof qa); memcpy(R[1], qb, sizeof qb);
        dq_dual_of(qa, ta, D[0]); dq_dual_of(qb, tb, D[1]);
        w[0] = 0.7; w[1] = 0.3;
        dq_blend(2, R, D, w, br, bd);
        {
            dmat4 M = dm_from_dq(br, bd);
            for (c = 0; c < 3; ++c) p[c] = m.pos[0][c];
            dm_point(&M, p, q);
            for (c = 0; c < 3; ++c) CHECK_NEAR(b.p[c], q[c], 1e-5);
        }
    }
}

/* The residual S is blended WITHOUT the quaternion's sign flip. Joint 0: identity
   rotation, S = diag(2,1,1); joint 1: real = (0,0,0,-1) (the same rotation) and the
   same S. 0.5/0.5: the pivot j0 flips j1's real, S stays diag(2,1,1):
   (1,1,1) -> (2,1,1). Flipping S too would give S = 0 and (0,0,0). */
static void test_dqs_residual_not_flipped(void) {
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s;
    float dq[16], res[24];
    int k;
    memset(dq, 0, sizeof dq);
    memset(res, 0, sizeof res);
    dq[3] = 1;
    dq[8 + 3] = -1;
    for (k = 0; k < 2; ++k) { res[k * 12 + 0] = 2; res[k * 12 + 5] = 1; res[k * 12 + 10] = 1; }
    tm_init(&m, 1, 1);
    tm_pos(&m, 0, 1, 1, 1);
    tm_nrm(&m, 0, 1, 0, 0);
    tm_inf(&m, 0, 0, 0, 0.5); tm_inf(&m, 0, 1, 1, 0.5);
    s = tm_streams(&m);
    CHECK_EQ_INT(run_skin_dq_raw(&s, 2, dq, res, GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT, &o),
                 GPUSKIN_SUCCESS);
    CHECK_NEAR(o.p[0], 2, 1e-6); CHECK_NEAR(o.p[1], 1, 1e-6); CHECK_NEAR(o.p[2], 1, 1e-6);
    CHECK_NEAR(o.n[0], 1, 1e-6);
    /* without the residual bit the residual palette is not read: (1,1,1) */
    CHECK_EQ_INT(run_skin_dq_raw(&s, 2, dq, res, GPUSKIN_METHOD_DQS, &o), GPUSKIN_SUCCESS);
    CHECK_NEAR(o.p[0], 1, 1e-6); CHECK_NEAR(o.p[1], 1, 1e-6); CHECK_NEAR(o.p[2], 1, 1e-6);
    /* residual rows: a shear S with S[0][1] = 0.5 (row 0 = (1, 0.5, 0)): (1,1,1) -> (1.5,1,1) */
    memset(res, 0, sizeof res);
    for (k = 0; k < 2; ++k) { res[k * 12 + 0] = 1; res[k * 12 + 1] = 0.5f; res[k * 12 + 5] = 1; res[k * 12 + 10] = 1; }
    CHECK_EQ_INT(run_skin_dq_raw(&s, 2, dq, res, GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT, &o),
                 GPUSKIN_SUCCESS);
    CHECK_NEAR(o.p[0], 1.5, 1e-6); CHECK_NEAR(o.p[1], 1, 1e-6); CHECK_NEAR(o.p[2], 1, 1e-6);
}

/* An unweighted vertex keeps its bind pose exactly; its (garbage) joint indices are never read. */
static void test_unweighted_vertex(void) {
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s;
    gpuskin_mat4 pal[2];
    int method, c;
    dmat4 d = dm_axis_angle(1, 2, 3, 1.1), T = dm_translate(3, 4, 5), TD, S = dm_scale(2, 1, 0.5);
    TD = dm_mul(&T, &d);
    TD = dm_mul(&TD, &S);
    pal[0] = fm_from_d(&TD);
    pal[1] = fm_from_d(&TD);
    tm_init(&m, 3, 2);
    tm_pos(&m, 0, 1.25, -2.5, 3.75); tm_nrm(&m, 0, 0, 1, 0); tm_tan(&m, 0, 0, 0, 1, -1);
    tm_pos(&m, 1, -7, 0.125, 9);     tm_nrm(&m, 1, 1, 0, 0); tm_tan(&m, 1, 0, 1, 0, 1);
    tm_pos(&m, 2, 1, 1, 1);          tm_inf(&m, 2, 0, 1, 1); /* a weighted neighbour */
    for (c = 0; c < 8; ++c) { tm_inf(&m, 0, c, 0xFFFF, 0); tm_inf(&m, 1, c, 12345, 0); }
    s = tm_streams(&m);
    for (method = LBS; method <= DQS_POLAR; ++method) {
        CHECK_EQ_INT(run_skin(&s, 2, pal, method, &o), GPUSKIN_SUCCESS);
        for (c = 0; c < 3; ++c) {
            CHECK(o.p[c] == m.pos[0][c]);
            CHECK(o.p[3 + c] == m.pos[1][c]);
            CHECK_NEAR(o.n[c], m.nrm[0][c], 0);
            CHECK_NEAR(o.n[3 + c], m.nrm[1][c], 0);
            CHECK_NEAR(o.t[c], m.tan[0][c], 0);
            CHECK_NEAR(o.t[4 + c], m.tan[1][c], 0);
        }
        CHECK(o.t[3] == -1.0f && o.t[7] == 1.0f);
    }
    CHECK_EQ_INT(gpuskin_streams_validate(&s, 2, NULL), GPUSKIN_SUCCESS);
}

/* ------------------------------------------------------------------------ */
/* Split and packing                                                        */
/* ------------------------------------------------------------------------ */

enum { K_RIGID, K_SCALED, K_SHEARED, K_MIRRORED, K_DEG_COL0, K_DEG_COL1, K_DEG_PARALLEL, K_DEG_COL2, K_COUNT };
static const char *kind_name[K_COUNT] = {"rigid", "scaled", "sheared", "mirrored", "col0=0", "col1=0", "col1||col0",
                                         "col2=0"};

static dmat4 random_matrix(int kind) {
    gpuskin_quat q = rng_quat();
    double qd[4];
    dmat4 T = dm_translate(rng_range(-5, 5), rng_range(-5, 5), rng_range(-5, 5)), R, A, M;
    qf_to_d(q, qd);
    R = dm_rot(qd);
    A = dm_ident();
    switch (kind) {
    case K_RIGID: break;
    case K_SCALED: A = dm_scale(rng_range(0.3, 3), rng_range(0.3, 3), rng_range(0.3, 3)); break;
    case K_SHEARED:
    case K_MIRRORED:
        do {
            int i;
            for (i = 0; i < 12; ++i)
                if (i % 4 != 3) A.m[i] = rng_range(-2, 2);
        } while (fabs(dm_det3(&A)) < 0.2 || (kind == K_SHEARED) != (dm_det3(&A) > 0));
        break;
    case K_DEG_COL0: A = dm_scale(0, rng_range(0.5, 2), rng_range(0.5, 2)); break;
    case K_DEG_COL1: A = dm_scale(rng_range(0.5, 2), 0, rng_range(0.5, 2)); break;
    case K_DEG_PARALLEL: A.m[4] = rng_range(0.5, 2); A.m[5] = 0; A.m[0] = A.m[4] * rng_range(-2, 2); break;
    case K_DEG_COL2: A = dm_scale(rng_range(0.5, 2), rng_range(0.5, 2), 0); A.m[4] = 0.3; break;
    default: break;
    }
    M = dm_mul(&T, &R);
    return dm_mul(&M, &A);
}

static void check_split(const dmat4 *M, int kind, gpuskin_split_method sm, int iter) {
    gpuskin_mat4 f = fm_from_d(M);
    dmat4 Mf = dm_from_f(&f), Rm, S, RS;
    gpuskin_split sp;
    gpuskin_vec3 t;
    double q[4], qn, scale = dm_maxabs(&Mf), smax = 0, tt[4], conj[4];
    int r, c, bad = 0;
    CHECK_EQ_INT(gpuskin_split_matrix(&f, sm, &sp), GPUSKIN_SUCCESS);
    qf_to_d(sp.dq.real, q);
    qn = sqrt(dq_dot(q, q));
    CHECK_NEAR(qn, 1, 1e-6); /* R is a rotation: unit quaternion */
    Rm = dm_rot(q);
    CHECK_NEAR(dm_det3(&Rm), 1, 1e-6);
    for (r = 0; r < 3; ++r)
        for (c = 0; c < 3; ++c) {
            double d = 0;
            int k;
            for (k = 0; k < 3; ++k) d += dm_at(&Rm, k, r) * dm_at(&Rm, k, c);
            if (fabs(d - (r == c ? 1.0 : 0.0)) > 1e-6) bad = 1;
        }
    CHECK(!bad); /* orthonormal */
    S = dm_ident();
    for (c = 0; c < 3; ++c)
        for (r = 0; r < 3; ++r) {
            S.m[c * 4 + r] = sp.residual.m[c * 3 + r];
            if (fabs(sp.residual.m[c * 3 + r]) > smax) smax = fabs(sp.residual.m[c * 3 + r]);
        }
    RS = dm_mul(&Rm, &S);
    t = gpuskin_dualquat_translation(&sp.dq);
    RS.m[12] = t.x; RS.m[13] = t.y; RS.m[14] = t.z;
    bad = 0;
    for (c = 0; c < 4; ++c)
        for (r = 0; r < 3; ++r)
            if (fabs(RS.m[c * 4 + r] - Mf.m[c * 4 + r]) > 1e-6 * scale) bad = 1;
    if (bad) {
        fprintf(stderr, "  split round-trip (%s, method %d, iteration %d) off by more than 1e-6 relative:\n",
                kind_name[kind], (int)sm, iter);
        for (r = 0; r < 3; ++r)
            fprintf(stderr, "    M   row %d: %12.8f %12.8f %12.8f %12.8f | T*R*S: %12.8f %12.8f %12.8f %12.8f\n", r,
                    dm_at(&Mf, r, 0), dm_at(&Mf, r, 1), dm_at(&Mf, r, 2), dm_at(&Mf, r, 3), dm_at(&RS, r, 0),
                    dm_at(&RS, r, 1), dm_at(&RS, r, 2), dm_at(&RS, r, 3));
    }
    CHECK(!bad);
    /* the translation independently: 2 (dual conj(real)).xyz */
    conj[0] = -q[0]; conj[1] = -q[1]; conj[2] = -q[2]; conj[3] = q[3];
    {
        double d[4];
        qf_to_d(sp.dq.dual, d);
        dq_mul(d, conj, tt);
    }
    CHECK_NEAR(2 * tt[0], Mf.m[12], 1e-6 * scale);
    CHECK_NEAR(2 * tt[1], Mf.m[13], 1e-6 * scale);
    CHECK_NEAR(2 * tt[2], Mf.m[14], 1e-6 * scale);
    if (kind == K_MIRRORED) {
        CHECK(dm_det3(&S) < 0);
        /* "treated as a negative scale on its local x axis, which S carries": for both
           splits S = (upper-triangular or SPD) * diag(-1,1,1), so only S's x diagonal is negative */
        CHECK(S.m[0] < 0 && S.m[5] > 0 && S.m[10] > 0);
    }
    if (kind == K_RIGID) {
        CHECK(sp.rigid == 1);
        CHECK(sp.degenerate == 0);
        for (c = 0; c < 9; ++c) CHECK(sp.residual.m[c] == ((c % 4 == 0) ? 1.0f : 0.0f)); /* exactly I */
    } else {
        CHECK(sp.rigid == 0);
    }
    if (kind == K_DEG_COL0 || kind == K_DEG_COL1) {
        CHECK(sp.degenerate == 1);
        CHECK(fabs(q[3]) == 1.0 && q[0] == 0 && q[1] == 0 && q[2] == 0); /* R = I */
        for (c = 0; c < 3; ++c)
            for (r = 0; r < 3; ++r) CHECK_NEAR(sp.residual.m[c * 3 + r], dm_at(&Mf, r, c), 1e-6 * scale); /* S = A */
    }
    if (kind <= K_MIRRORED) CHECK(sp.degenerate == 0);
    /* POLAR: S exactly symmetric "unless mirrored or singular" (gpuskin.h; the GPU's
       symmetric kernel reads only the upper half) */
    if (!sp.degenerate && sm == GPUSKIN_SPLIT_POLAR && dm_det3(&Mf) > 1e-6 * scale * scale * scale)
        CHECK(sp.residual.m[3] == sp.residual.m[1] && sp.residual.m[6] == sp.residual.m[2] &&
              sp.residual.m[7] == sp.residual.m[5]);
    /* POLAR of an exactly singular (not degenerate) 3x3: "then R comes from Gram-Schmidt".
       (col1||col0 is only nearly singular once rounded to float, so either split may apply.) */
    if (!sp.degenerate && (sm == GPUSKIN_SPLIT_GRAM_SCHMIDT || kind == K_DEG_COL2)) {
        /* S upper triangular */
        CHECK_NEAR(sp.residual.m[1], 0, 1e-6 * smax);
        CHECK_NEAR(sp.residual.m[2], 0, 1e-6 * smax);
        CHECK_NEAR(sp.residual.m[5], 0, 1e-6 * smax);
    }
    /* from Gram-Schmidt, exact zeros there (the GPU's triangular kernel needs them) */
    if (!sp.degenerate && sm == GPUSKIN_SPLIT_GRAM_SCHMIDT)
        CHECK(sp.residual.m[1] == 0.0f && sp.residual.m[2] == 0.0f && sp.residual.m[5] == 0.0f);
}

static void test_split_round_trip(void) {
    int kind, iter, sm;
    rng_seed(101);
    for (kind = 0; kind < K_COUNT; ++kind)
        for (iter = 0; iter < 40; ++iter) {
            dmat4 M = random_matrix(kind);
            for (sm = 0; sm < 2; ++sm) {
                int before = gt_case_failed;
                gt_case_failed = 0;
                check_split(&M, kind, (gpuskin_split_method)sm, iter);
                if (gt_case_failed) fprintf(stderr, "    (kind %s, split %d, iteration %d)\n", kind_name[kind], sm, iter);
                gt_case_failed |= before;
            }
        }
}

static void test_split_rigid_detection(void) {
    gpuskin_split sp;
    int sm;
    rng_seed(7);
    for (sm = 0; sm < 2; ++sm) {
        int i;
        for (i = 0; i < 20; ++i) {
            dmat4 M = random_matrix(K_RIGID), S1, S2, M1, M2;
            gpuskin_mat4 f = fm_from_d(&M);
            CHECK_EQ_INT(gpuskin_split_matrix(&f, (gpuskin_split_method)sm, &sp), GPUSKIN_SUCCESS);
            CHECK(sp.rigid == 1);
            S1 = dm_scale(1.01, 1, 1); /* 1% scale on one axis */
            M1 = dm_mul(&M, &S1);
            f = fm_from_d(&M1);
            CHECK_EQ_INT(gpuskin_split_matrix(&f, (gpuskin_split_method)sm, &sp), GPUSKIN_SUCCESS);
            CHECK(sp.rigid == 0);
            S2 = dm_scale(1.01, 1.01, 1.01); /* 1% uniform */
            M2 = dm_mul(&M, &S2);
            f = fm_from_d(&M2);
            CHECK_EQ_INT(gpuskin_split_matrix(&f, (gpuskin_split_method)sm, &sp), GPUSKIN_SUCCESS);
            CHECK(sp.rigid == 0);
            S2 = dm_scale(-1, 1, 1); /* a mirror is not rigid */
            M2 = dm_mul(&M, &S2);
            f = fm_from_d(&M2);
            CHECK_EQ_INT(gpuskin_split_matrix(&f, (gpuskin_split_method)sm, &sp), GPUSKIN_SUCCESS);
            CHECK(sp.rigid == 0);
        }
    }
    {
        gpuskin_mat4 f = fm_ident();
        f.m[0] = NAN;
        CHECK_EQ_INT(gpuskin_split_matrix(&f, GPUSKIN_SPLIT_GRAM_SCHMIDT, &sp), GPUSKIN_ERROR_NON_FINITE);
        f.m[0] = 1;
        f.m[14] = INFINITY;
        CHECK_EQ_INT(gpuskin_split_matrix(&f, GPUSKIN_SPLIT_POLAR, &sp), GPUSKIN_ERROR_NON_FINITE);
        f.m[14] = 0;
        CHECK_EQ_INT(gpuskin_split_matrix(NULL, GPUSKIN_SPLIT_POLAR, &sp), GPUSKIN_ERROR_NULL_ARGUMENT);
        CHECK_EQ_INT(gpuskin_split_matrix(&f, GPUSKIN_SPLIT_POLAR, NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
        CHECK(gpuskin_split_matrix(&f, (gpuskin_split_method)7, &sp) != GPUSKIN_SUCCESS);
    }
}

static void test_packing_layout(void) {
    enum { J = 3 };
    gpuskin_mat4 pal[J];
    dmat4 d[J];
    float lbs[J * 12 + 1], dq[J * 8 + 1], res[J * 12 + 1];
    uint32_t word = 0xDEADBEEFu;
    int j, r, c;
    CHECK_EQ_INT(GPUSKIN_LBS_FLOATS_PER_JOINT, 12);
    CHECK_EQ_INT(GPUSKIN_DQ_FLOATS_PER_JOINT, 8);
    CHECK_EQ_INT(GPUSKIN_RESIDUAL_FLOATS_PER_JOINT, 12);
    CHECK_EQ_INT(GPUSKIN_METHOD_LBS, 0);
    CHECK_EQ_INT(GPUSKIN_METHOD_DQS, 1);
    rng_seed(55);
    d[0] = random_matrix(K_RIGID);
    d[1] = random_matrix(K_SCALED);
    d[2] = random_matrix(K_MIRRORED);
    for (j = 0; j < J; ++j) pal[j] = fm_from_d(&d[j]);
    /* sentinel past the end: nothing written beyond joint_count joints */
    lbs[J * 12] = 12345.f;
    dq[J * 8] = 12345.f;
    res[J * 12] = 12345.f;
    CHECK_EQ_INT(gpuskin_pack_lbs(pal, J, lbs), GPUSKIN_SUCCESS);
    for (j = 0; j < J; ++j)
        for (r = 0; r < 3; ++r)
            for (c = 0; c < 4; ++c) CHECK(lbs[j * 12 + r * 4 + c] == pal[j].m[c * 4 + r]); /* rows of M */
    CHECK(lbs[J * 12] == 12345.f);
    CHECK_EQ_INT(gpuskin_pack_dq(pal, J, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(word, GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT);
    CHECK_EQ_INT(word, 0x11);
    CHECK(dq[J * 8] == 12345.f && res[J * 12] == 12345.f);
    for (j = 0; j < J; ++j) {
        gpuskin_split sp;
        double q[4], dd[4], t[3];
        CHECK_EQ_INT(gpuskin_split_matrix(&pal[j], GPUSKIN_SPLIT_GRAM_SCHMIDT, &sp), GPUSKIN_SUCCESS);
        /* byte layout: real x y z w at +0..+12, dual x y z w at +16..+28 */
        CHECK(dq[j * 8 + 0] == sp.dq.real.x && dq[j * 8 + 1] == sp.dq.real.y);
        CHECK(dq[j * 8 + 2] == sp.dq.real.z && dq[j * 8 + 3] == sp.dq.real.w);
        CHECK(dq[j * 8 + 4] == sp.dq.dual.x && dq[j * 8 + 5] == sp.dq.dual.y);
        CHECK(dq[j * 8 + 6] == sp.dq.dual.z && dq[j * 8 + 7] == sp.dq.dual.w);
        /* and independently: dual = 0.5 (t,0) real with t the matrix's translation column */
        for (c = 0; c < 4; ++c) q[c] = dq[j * 8 + c];
        t[0] = pal[j].m[12]; t[1] = pal[j].m[13]; t[2] = pal[j].m[14];
        dq_dual_of(q, t, dd);
        for (c = 0; c < 4; ++c) CHECK_NEAR(dq[j * 8 + 4 + c], dd[c], 1e-5);
        /* residual: rows of S, w = 0; identity rows for the rigid joint */
        for (r = 0; r < 3; ++r) {
            for (c = 0; c < 3; ++c) {
                if (j == 0) CHECK(res[j * 12 + r * 4 + c] == (r == c ? 1.0f : 0.0f));
                else CHECK(res[j * 12 + r * 4 + c] == sp.residual.m[c * 3 + r]);
            }
            CHECK(res[j * 12 + r * 4 + 3] == 0.0f);
        }
    }
    /* GS residual is upper triangular, so its rows show it: row 1 col 0, row 2 cols 0,1 ~ 0 and
       row 0 col 1 != 0 in general (a row/column mix-up would swap those) */
    CHECK_NEAR(res[2 * 12 + 1 * 4 + 0], 0, 1e-6);
    CHECK_NEAR(res[2 * 12 + 2 * 4 + 0], 0, 1e-6);
    CHECK_NEAR(res[2 * 12 + 2 * 4 + 1], 0, 1e-6);
    CHECK(fabs(res[2 * 12 + 0 * 4 + 1]) > 1e-3);
    /* out_residual NULL: dq part and method word only */
    word = 0;
    CHECK_EQ_INT(gpuskin_pack_dq(pal, J, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, NULL, &word), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(word, GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT);
    /* all rigid: no residual bit */
    word = 0;
    CHECK_EQ_INT(gpuskin_pack_dq(pal, 1, GPUSKIN_SPLIT_POLAR, dq, res, &word), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(word, GPUSKIN_METHOD_DQS);
    for (r = 0; r < 12; ++r) CHECK(res[r] == ((r % 5 == 0 && r < 11) ? 1.0f : 0.0f));
    /* errors */
    CHECK_EQ_INT(gpuskin_pack_lbs(NULL, J, lbs), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_pack_lbs(pal, J, NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_pack_lbs(pal, 0, lbs), GPUSKIN_ERROR_INVALID_COUNT);
    CHECK_EQ_INT(gpuskin_pack_dq(NULL, J, GPUSKIN_SPLIT_POLAR, dq, res, &word), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_pack_dq(pal, J, GPUSKIN_SPLIT_POLAR, NULL, res, &word), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_pack_dq(pal, 0, GPUSKIN_SPLIT_POLAR, dq, res, &word), GPUSKIN_ERROR_INVALID_COUNT);
    pal[1].m[5] = NAN;
    CHECK_EQ_INT(gpuskin_pack_lbs(pal, J, lbs), GPUSKIN_ERROR_NON_FINITE);
    CHECK_EQ_INT(gpuskin_pack_dq(pal, J, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_ERROR_NON_FINITE);
    pal[1].m[5] = INFINITY;
    CHECK_EQ_INT(gpuskin_pack_lbs(pal, J, lbs), GPUSKIN_ERROR_NON_FINITE);
    CHECK_EQ_INT(gpuskin_pack_dq(pal, J, GPUSKIN_SPLIT_POLAR, dq, res, &word), GPUSKIN_ERROR_NON_FINITE);
}

/* gpuskin_dq_uniform_scale: joints whose 3x3 is s_j times a rotation split into
   S = s_j I up to float noise; the rows are then written exactly and the uniform
   bit set. One joint that is not uniform leaves every row and the word as they
   were. */
static void test_dq_uniform_scale(void) {
    enum { J = 4 };
    gpuskin_mat4 pal[J];
    gpuskin_cpu_skin_desc sk;
    float dq[J * 8], res[J * 12], before[J * 12];
    uint32_t word, w;
    int j, k;
    rng_seed(77);
    for (j = 0; j < J; ++j) {
        dmat4 d = random_matrix(K_RIGID);
        pal[j] = fm_from_d(&d);
        for (k = 0; k < 11; ++k)
            if (k % 4 != 3) pal[j].m[k] *= 0.5f + 0.4f * (float)j; /* the 3x3 only */
    }
    CHECK_EQ_INT(gpuskin_pack_dq(pal, J, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(word, GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT);
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, J, &word), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(word, GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT | GPUSKIN_METHOD_UNIFORM_BIT);
    CHECK_EQ_INT(word, 0x31);
    for (j = 0; j < J; ++j) {
        float s = res[j * 12];
        CHECK_NEAR(s, 0.5 + 0.4 * j, 1e-5 * (0.5 + 0.4 * j));
        for (k = 0; k < 12; ++k) CHECK(res[j * 12 + k] == (k % 4 != 3 && k / 4 == k % 4 ? s : 0.0f));
    }
    memcpy(before, res, sizeof res);
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, J, &word), GPUSKIN_SUCCESS); /* already uniform: no change */
    CHECK_EQ_INT(word, 0x31);
    CHECK(memcmp(before, res, sizeof res) == 0);
    /* the oracle takes the word */
    memset(&sk, 0, sizeof sk);
    sk.method_word = word;
    CHECK(gpuskin_skin_cpu(&sk) != GPUSKIN_ERROR_INVALID_METHOD);
    sk.method_word = GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_UNIFORM_BIT; /* uniform without the residual */
    CHECK_EQ_INT(gpuskin_skin_cpu(&sk), GPUSKIN_ERROR_INVALID_METHOD);
    sk.method_word = GPUSKIN_METHOD_LBS | GPUSKIN_METHOD_RESIDUAL_BIT | GPUSKIN_METHOD_UNIFORM_BIT;
    CHECK_EQ_INT(gpuskin_skin_cpu(&sk), GPUSKIN_ERROR_INVALID_METHOD);
    /* float noise within the tolerance is snapped; beyond it the joint is not uniform */
    res[1 * 12 + 1] = 1e-8f;
    word = GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT;
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, J, &word), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(word, 0x31);
    CHECK(res[1 * 12 + 1] == 0.0f);
    res[2 * 12 + 5] *= 1.0001f; /* joint 2: a 1e-4 non-uniform scale */
    memcpy(before, res, sizeof res);
    word = GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT;
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, J, &word), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(word, GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT);
    CHECK(memcmp(before, res, sizeof res) == 0);
    /* a mirror (S = diag(-s, s, s)) is not a uniform scale */
    CHECK_EQ_INT(gpuskin_pack_dq(pal, J, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_SUCCESS);
    pal[3].m[0] = -pal[3].m[0];
    pal[3].m[1] = -pal[3].m[1];
    pal[3].m[2] = -pal[3].m[2];
    CHECK_EQ_INT(gpuskin_pack_dq(pal, J, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, J, &word), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(word, GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT);
    /* one size for the whole character: sizes within the tolerance of the first
       joint's all take the first joint's exactly; one joint beyond it keeps each
       joint's own */
    for (j = 0; j < J; ++j) {
        dmat4 d = random_matrix(K_RIGID);
        pal[j] = fm_from_d(&d);
        for (k = 0; k < 11; ++k)
            if (k % 4 != 3) pal[j].m[k] *= 1.3f * (1.0f + 2e-6f * (float)j);
    }
    CHECK_EQ_INT(gpuskin_pack_dq(pal, J, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_SUCCESS);
    CHECK(res[3 * 12] != res[0]); /* the sizes differ before */
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, J, &word), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(word, 0x31);
    CHECK_NEAR(res[0], 1.3, 1e-5);
    for (j = 0; j < J; ++j)
        for (k = 0; k < 12; ++k) CHECK(res[j * 12 + k] == (k % 4 != 3 && k / 4 == k % 4 ? res[0] : 0.0f));
    for (k = 0; k < 11; ++k)
        if (k % 4 != 3) pal[2].m[k] *= 1.0001f; /* joint 2: 1e-4 larger, a size of its own */
    CHECK_EQ_INT(gpuskin_pack_dq(pal, J, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, J, &word), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(word, 0x31);
    CHECK_NEAR(res[2 * 12], 1.3 * 1.0001, 1e-5);
    CHECK(res[2 * 12] > res[0] * 1.00005f);
    CHECK(res[1 * 12] != res[0]); /* 2e-6 apart: each joint keeps its own now */
    /* rigid and LBS words: nothing to do */
    w = GPUSKIN_METHOD_DQS;
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, J, &w), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(w, GPUSKIN_METHOD_DQS);
    w = GPUSKIN_METHOD_LBS;
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, J, &w), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(w, GPUSKIN_METHOD_LBS);
    /* errors */
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(NULL, J, &w), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, J, NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, 0, &w), GPUSKIN_ERROR_INVALID_COUNT);
    w = GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_UNIFORM_BIT;
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, J, &w), GPUSKIN_ERROR_INVALID_METHOD);
    w = 0x40u | GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT;
    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, J, &w), GPUSKIN_ERROR_INVALID_METHOD);
}

/* ------------------------------------------------------------------------ */
/* Influences, streams, normals, tangents                                   */
/* ------------------------------------------------------------------------ */

/* 8 influences as two sets of 4, against a double-precision LBS written here; swapping
   the sets changes nothing. */
static void test_eight_influences(void) {
    enum { J = 8 };
    gpuskin_mat4 pal[J];
    dmat4 d[J];
    tmesh a, b;
    skin_out oa, ob;
    gpuskin_vertex_streams sa, sb;
    static const double w[8] = {0.05, 0.2, 0.1, 0.15, 0.08, 0.12, 0.17, 0.13};
    static const unsigned jn[8] = {3, 0, 7, 5, 1, 6, 2, 4};
    int k, c, method;
    rng_seed(808);
    for (k = 0; k < J; ++k) {
        d[k] = random_matrix(k < 4 ? K_SCALED : K_RIGID);
        pal[k] = fm_from_d(&d[k]);
    }
    tm_init(&a, 2, 2);
    tm_init(&b, 2, 2);
    tm_pos(&a, 0, 0.3, -1.2, 2.5); tm_pos(&b, 0, 0.3, -1.2, 2.5);
    tm_pos(&a, 1, -2, 1, 0.5);     tm_pos(&b, 1, -2, 1, 0.5);
    for (k = 0; k < 8; ++k) {
        tm_inf(&a, 0, k, jn[k], w[k]);
        tm_inf(&b, 0, (k + 4) % 8, jn[k], w[k]); /* sets swapped */
        tm_inf(&a, 1, k, jn[7 - k], w[k]);
        tm_inf(&b, 1, (k + 4) % 8, jn[7 - k], w[k]);
    }
    sa = tm_streams(&a);
    sb = tm_streams(&b);
    CHECK_EQ_INT(run_skin(&sa, J, pal, LBS, &oa), GPUSKIN_SUCCESS);
    {
        int v;
        for (v = 0; v < 2; ++v) {
            double p[3], acc[3] = {0, 0, 0}, sum = 0, scale = 1;
            for (c = 0; c < 3; ++c) p[c] = a.pos[v][c];
            for (k = 0; k < 8; ++k) sum += (float)w[k];
            for (k = 0; k < 8; ++k) {
                double q[3];
                const dmat4 *M = &d[v == 0 ? jn[k] : jn[7 - k]];
                dmat4 Mf;
                gpuskin_mat4 f = fm_from_d(M);
                Mf = dm_from_f(&f);
                dm_point(&Mf, p, q);
                for (c = 0; c < 3; ++c) acc[c] += (double)(float)w[k] / sum * q[c];
                scale += dm_maxabs(&Mf) * 4;
            }
            for (c = 0; c < 3; ++c) CHECK_REL(oa.p[v * 3 + c], acc[c], 1e-6, scale);
        }
    }
    for (method = LBS; method <= DQS_POLAR; ++method) {
        CHECK_EQ_INT(run_skin(&sa, J, pal, method, &oa), GPUSKIN_SUCCESS);
        CHECK_EQ_INT(run_skin(&sb, J, pal, method, &ob), GPUSKIN_SUCCESS);
        for (k = 0; k < 6; ++k) CHECK_NEAR(oa.p[k], ob.p[k], 1e-5);
        for (k = 0; k < 6; ++k) CHECK_NEAR(oa.n[k], ob.n[k], 1e-5);
    }
    /* influence_sets 0 and 1 mean the same thing */
    {
        tmesh m;
        skin_out o0, o1;
        gpuskin_vertex_streams s;
        tm_init(&m, 1, 1);
        tm_pos(&m, 0, 1, 2, 3);
        tm_inf(&m, 0, 0, 2, 0.25); tm_inf(&m, 0, 1, 5, 0.75);
        s = tm_streams(&m);
        CHECK_EQ_INT(run_skin(&s, J, pal, LBS, &o1), GPUSKIN_SUCCESS);
        s.influence_sets = 0;
        CHECK_EQ_INT(run_skin(&s, J, pal, LBS, &o0), GPUSKIN_SUCCESS);
        CHECK(memcmp(o0.p, o1.p, 3 * sizeof(float)) == 0);
    }
}

/* Interleaved streams (one struct per vertex, in and out) give the same bytes as
   separate arrays; U8, U16 and U32 joints are equal. */
typedef struct ivert {
    float p[3];
    float n[3];
    float t[4];
    uint16_t j0[4];
    float w0[4];
    uint16_t j1[4];
    float w1[4];
    uint8_t pad[6];
} ivert;
typedef struct iout {
    float t[4];
    float p[3];
    float pad;
    float n[3];
} iout;

static void test_streams_strides_and_joint_types(void) {
    enum { V = 24, J = 5 };
    ivert iv[V];
    iout io[V];
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s, si;
    gpuskin_mat4 pal[J];
    float lbs[J * 12], dq[J * 8], res[J * 12];
    uint32_t word = 0;
    uint8_t j8[2][V][4];
    uint32_t j32[2][V][4];
    int k, method;
    size_t i;
    rng_seed(31);
    for (k = 0; k < J; ++k) {
        dmat4 d = random_matrix(k == 2 ? K_MIRRORED : K_SCALED);
        pal[k] = fm_from_d(&d);
    }
    CHECK_EQ_INT(gpuskin_pack_lbs(pal, J, lbs), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(gpuskin_pack_dq(pal, J, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_SUCCESS);
    tm_init(&m, V, 2);
    memset(iv, 0, sizeof iv);
    for (i = 0; i < V; ++i) {
        tm_pos(&m, i, rng_range(-2, 2), rng_range(-2, 2), rng_range(-2, 2));
        tm_nrm(&m, i, 0.36, 0.48, 0.8);
        tm_tan(&m, i, 0.8, -0.6, 0, (i & 1) ? 1 : -1);
        for (k = 0; k < 8; ++k)
            if (rng_below(3) != 0) tm_inf(&m, i, k, rng_below(J), rng_range(0.05, 1));
        tm_inf(&m, i, 0, rng_below(J), 0.5); /* never all zero */
        memcpy(iv[i].p, m.pos[i], sizeof iv[i].p);
        memcpy(iv[i].n, m.nrm[i], sizeof iv[i].n);
        memcpy(iv[i].t, m.tan[i], sizeof iv[i].t);
        memcpy(iv[i].j0, m.j[0][i], sizeof iv[i].j0);
        memcpy(iv[i].w0, m.w[0][i], sizeof iv[i].w0);
        memcpy(iv[i].j1, m.j[1][i], sizeof iv[i].j1);
        memcpy(iv[i].w1, m.w[1][i], sizeof iv[i].w1);
        for (k = 0; k < 8; ++k) {
            j8[k / 4][i][k % 4] = (uint8_t)m.j[k / 4][i][k % 4];
            j32[k / 4][i][k % 4] = m.j[k / 4][i][k % 4];
        }
    }
    s = tm_streams(&m);
    ZERO(si);
    si.vertex_count = V;
    si.positions.data = iv[0].p;  si.positions.stride = sizeof(ivert);
    si.normals.data = iv[0].n;    si.normals.stride = sizeof(ivert);
    si.tangents.data = iv[0].t;   si.tangents.stride = sizeof(ivert);
    si.influence_sets = 2;
    si.joint_type = GPUSKIN_JOINT_U16;
    si.joints[0].data = iv[0].j0; si.joints[0].stride = sizeof(ivert);
    si.weights[0].data = iv[0].w0; si.weights[0].stride = sizeof(ivert);
    si.joints[1].data = iv[0].j1; si.joints[1].stride = sizeof(ivert);
    si.weights[1].data = iv[0].w1; si.weights[1].stride = sizeof(ivert);
    for (method = LBS; method <= DQS_GS; ++method) {
        gpuskin_cpu_skin_desc d;
        ZERO(d);
        d.streams = s;
        d.joint_count = J;
        d.method_word = method == LBS ? (uint32_t)GPUSKIN_METHOD_LBS : word;
        d.lbs_palette = lbs;
        d.dq_palette = dq;
        d.residual_palette = res;
        d.out_positions.data = o.p;
        d.out_normals.data = o.n;
        d.out_tangents.data = o.t;
        CHECK_EQ_INT(gpuskin_skin_cpu(&d), GPUSKIN_SUCCESS);
        CHECK(all_finite(o.p, V * 3));
        /* explicit tight strides == stride 0 */
        {
            skin_out o2;
            gpuskin_cpu_skin_desc d2 = d;
            d2.streams.positions.stride = 12; d2.streams.normals.stride = 12; d2.streams.tangents.stride = 16;
            d2.streams.joints[0].stride = 8; d2.streams.joints[1].stride = 8;
            d2.streams.weights[0].stride = 16; d2.streams.weights[1].stride = 16;
            d2.out_positions.data = o2.p; d2.out_positions.stride = 12;
            d2.out_normals.data = o2.n; d2.out_normals.stride = 12;
            d2.out_tangents.data = o2.t; d2.out_tangents.stride = 16;
            CHECK_EQ_INT(gpuskin_skin_cpu(&d2), GPUSKIN_SUCCESS);
            CHECK(memcmp(o.p, o2.p, V * 12) == 0 && memcmp(o.n, o2.n, V * 12) == 0 && memcmp(o.t, o2.t, V * 16) == 0);
        }
        /* interleaved in, interleaved out */
        {
            gpuskin_cpu_skin_desc d2 = d;
            memset(io, 0xAB, sizeof io);
            d2.streams = si;
            d2.out_positions.data = io[0].p; d2.out_positions.stride = sizeof(iout);
            d2.out_normals.data = io[0].n;   d2.out_normals.stride = sizeof(iout);
            d2.out_tangents.data = io[0].t;  d2.out_tangents.stride = sizeof(iout);
            CHECK_EQ_INT(gpuskin_skin_cpu(&d2), GPUSKIN_SUCCESS);
            for (i = 0; i < V; ++i) {
                CHECK(memcmp(io[i].p, o.p + i * 3, 12) == 0);
                CHECK(memcmp(io[i].n, o.n + i * 3, 12) == 0);
                CHECK(memcmp(io[i].t, o.t + i * 4, 16) == 0);
                { float pad; memset(&pad, 0xAB, sizeof pad); CHECK(memcmp(&io[i].pad, &pad, sizeof pad) == 0); } /* untouched */
            }
        }
        /* U8 and U32 joints */
        {
            skin_out o2;
            gpuskin_cpu_skin_desc d2 = d;
            d2.streams.joint_type = GPUSKIN_JOINT_U8;
            d2.streams.joints[0].data = j8[0]; d2.streams.joints[1].data = j8[1];
            d2.out_positions.data = o2.p; d2.out_normals.data = o2.n; d2.out_tangents.data = o2.t;
            CHECK_EQ_INT(gpuskin_skin_cpu(&d2), GPUSKIN_SUCCESS);
            CHECK(memcmp(o.p, o2.p, V * 12) == 0 && memcmp(o.n, o2.n, V * 12) == 0 && memcmp(o.t, o2.t, V * 16) == 0);
            d2.streams.joint_type = GPUSKIN_JOINT_U32;
            d2.streams.joints[0].data = j32[0]; d2.streams.joints[1].data = j32[1];
            memset(&o2, 0, sizeof o2);
            CHECK_EQ_INT(gpuskin_skin_cpu(&d2), GPUSKIN_SUCCESS);
            CHECK(memcmp(o.p, o2.p, V * 12) == 0 && memcmp(o.n, o2.n, V * 12) == 0 && memcmp(o.t, o2.t, V * 16) == 0);
        }
        /* normals and tangents are optional */
        {
            skin_out o2;
            gpuskin_cpu_skin_desc d2 = d;
            memset(&o2, 0, sizeof o2);
            d2.streams.normals.data = NULL;
            d2.streams.tangents.data = NULL;
            d2.out_positions.data = o2.p; d2.out_normals.data = o2.n; d2.out_tangents.data = o2.t;
            CHECK_EQ_INT(gpuskin_skin_cpu(&d2), GPUSKIN_SUCCESS);
            CHECK(memcmp(o.p, o2.p, V * 12) == 0);
            for (i = 0; i < V * 3; ++i) CHECK(o2.n[i] == 0.0f); /* not written */
            d2.out_normals.data = NULL; d2.out_tangents.data = NULL;
            CHECK_EQ_INT(gpuskin_skin_cpu(&d2), GPUSKIN_SUCCESS);
        }
    }
}

/* Streams at odd byte strides and unaligned addresses (glTF allows byte strides that
   are multiples of 4 only, but interleaved host layouts may pack tighter): the same
   results as tight arrays. Under -fsanitize=undefined this also checks alignment. */
static void test_streams_unaligned(void) {
    enum { V = 9, J = 3, PS = 29, WS = 21, JS = 11, OS = 15 };
    static unsigned char pbuf[1 + V * PS], nbuf[3 + V * PS], wbuf[2 + V * WS], jbuf[1 + V * JS], obuf[1 + V * OS];
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s, u;
    gpuskin_mat4 pal[J];
    float lbs[J * 12];
    gpuskin_cpu_skin_desc d;
    size_t i;
    int k;
    rng_seed(77);
    for (k = 0; k < J; ++k) {
        dmat4 dd = random_matrix(K_SCALED);
        pal[k] = fm_from_d(&dd);
    }
    CHECK_EQ_INT(gpuskin_pack_lbs(pal, J, lbs), GPUSKIN_SUCCESS);
    tm_init(&m, V, 1);
    for (i = 0; i < V; ++i) {
        tm_pos(&m, i, rng_range(-1, 1), rng_range(-1, 1), rng_range(-1, 1));
        tm_nrm(&m, i, 0.6, 0, 0.8);
        tm_inf(&m, i, 0, (unsigned)(i % J), 0.7);
        tm_inf(&m, i, 2, (unsigned)((i + 1) % J), 0.3);
        memcpy(pbuf + 1 + i * PS, m.pos[i], 12);
        memcpy(nbuf + 3 + i * PS, m.nrm[i], 12);
        memcpy(wbuf + 2 + i * WS, m.w[0][i], 16);
        memcpy(jbuf + 1 + i * JS, m.j[0][i], 8);
    }
    s = tm_streams(&m);
    s.tangents.data = NULL;
    CHECK_EQ_INT(run_skin(&s, J, pal, LBS, &o), GPUSKIN_SUCCESS);
    u = s;
    u.positions.data = pbuf + 1; u.positions.stride = PS;
    u.normals.data = nbuf + 3;   u.normals.stride = PS;
    u.weights[0].data = wbuf + 2; u.weights[0].stride = WS;
    u.joints[0].data = jbuf + 1;  u.joints[0].stride = JS;
    CHECK_EQ_INT(gpuskin_streams_validate(&u, J, NULL), GPUSKIN_SUCCESS);
    ZERO(d);
    d.streams = u;
    d.joint_count = J;
    d.method_word = GPUSKIN_METHOD_LBS;
    d.lbs_palette = lbs;
    d.out_positions.data = obuf + 1;
    d.out_positions.stride = OS;
    CHECK_EQ_INT(gpuskin_skin_cpu(&d), GPUSKIN_SUCCESS);
    for (i = 0; i < V; ++i) CHECK(memcmp(obuf + 1 + i * OS, o.p + 3 * i, 12) == 0);
}

/* Tangents: xyz by the blended 3x3 (NOT the inverse transpose), normalised; w kept. */
static void test_tangents(void) {
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s;
    gpuskin_mat4 pal[2];
    int method;
    dmat4 S = dm_scale(2, 1, 1), T = dm_translate(5, 5, 5), M = dm_mul(&T, &S);
    pal[0] = fm_from_d(&M);
    {
        dmat4 R = dm_axis_angle(0, 0, 1, PI / 2);
        pal[1] = fm_from_d(&R);
    }
    tm_init(&m, 3, 1);
    tm_tan(&m, 0, sqrt(0.5), sqrt(0.5), 0, -1); tm_inf(&m, 0, 0, 0, 1); /* (2,1,0)/sqrt5, -1 */
    tm_tan(&m, 1, 0, 0.6, 0.8, 1);              tm_inf(&m, 1, 0, 0, 1); /* unchanged, +1 */
    tm_tan(&m, 2, 1, 0, 0, -1);                 tm_inf(&m, 2, 0, 1, 1); /* Rz90: (0,1,0), -1 */
    tm_nrm(&m, 0, sqrt(0.5), sqrt(0.5), 0); /* normal: inverse transpose -> (0.5,1,0)/|.| */
    s = tm_streams(&m);
    for (method = LBS; method <= DQS_POLAR; ++method) {
        CHECK_EQ_INT(run_skin(&s, 2, pal, method, &o), GPUSKIN_SUCCESS);
        CHECK_NEAR(o.t[0], 2 / sqrt(5.0), 1e-6); CHECK_NEAR(o.t[1], 1 / sqrt(5.0), 1e-6); CHECK_NEAR(o.t[2], 0, 1e-6);
        CHECK(o.t[3] == -1.0f);
        CHECK_NEAR(o.t[4], 0, 1e-6); CHECK_NEAR(o.t[5], 0.6, 1e-6); CHECK_NEAR(o.t[6], 0.8, 1e-6);
        CHECK(o.t[7] == 1.0f);
        CHECK_NEAR(o.t[8], 0, 1e-6); CHECK_NEAR(o.t[9], 1, 1e-6); CHECK_NEAR(o.t[10], 0, 1e-6);
        CHECK(o.t[11] == -1.0f);
        CHECK_NEAR(o.n[0], 0.5 / sqrt(1.25), 1e-6); CHECK_NEAR(o.n[1], 1 / sqrt(1.25), 1e-6);
    }
}

/* Normals: the inverse transpose under non-uniform scale and shear, computed here;
   a singular blended matrix falls back to the plain 3x3 and stays finite. */
static void test_normals(void) {
    enum { J = 4 };
    tmesh m;
    skin_out o;
    gpuskin_vertex_streams s;
    gpuskin_mat4 pal[J];
    dmat4 d[J];
    int method, c;
    size_t i;
    {
        dmat4 T = dm_translate(1, -2, 3), R = dm_axis_angle(0.3, 1, -0.5, 1.3), X = dm_ident(), S = dm_scale(3, 0.5, 1.7), A;
        X.m[4] = 0.8; X.m[9] = -0.4;
        A = dm_mul(&T, &R); A = dm_mul(&A, &X); d[0] = dm_mul(&A, &S);
        d[1] = dm_scale(1, 1, 0);                 /* singular: plain 3x3 */
        d[2] = dm_ident();
        d[3] = dm_scale(1, -1, -1);               /* 180 deg about x: 0.5/0.5 with d[2] -> diag(1,0,0) */
    }
    for (c = 0; c < J; ++c) pal[c] = fm_from_d(&d[c]);
    tm_init(&m, 5, 1);
    tm_nrm(&m, 0, 0.48, 0.6, 0.64);            tm_inf(&m, 0, 0, 0, 1);
    tm_nrm(&m, 1, 0, 0.8, -0.6);               tm_inf(&m, 1, 0, 0, 1);
    tm_nrm(&m, 2, 1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0)); tm_inf(&m, 2, 0, 1, 1); /* -> (1,1,0)/sqrt2 */
    tm_nrm(&m, 3, sqrt(0.5), sqrt(0.5), 0);    tm_inf(&m, 3, 0, 2, 0.5); tm_inf(&m, 3, 1, 3, 0.5); /* -> (1,0,0) */
    tm_nrm(&m, 4, 0, 0, 1);                    tm_inf(&m, 4, 0, 2, 0.5); tm_inf(&m, 4, 1, 3, 0.5); /* -> (0,0,0) */
    s = tm_streams(&m);
    CHECK_EQ_INT(run_skin(&s, J, pal, LBS, &o), GPUSKIN_SUCCESS);
    CHECK(all_finite(o.n, m.n * 3));
    for (i = 0; i < 2; ++i) {
        double n[3], want[3], dot = 0;
        dmat4 inv;
        CHECK(dm_inverse(&d[0], &inv));
        for (c = 0; c < 3; ++c) n[c] = m.nrm[i][c];
        /* (A^-1)^T n, normalised */
        for (c = 0; c < 3; ++c) want[c] = dm_at(&inv, 0, c) * n[0] + dm_at(&inv, 1, c) * n[1] + dm_at(&inv, 2, c) * n[2];
        {
            double len = sqrt(want[0] * want[0] + want[1] * want[1] + want[2] * want[2]);
            for (c = 0; c < 3; ++c) want[c] /= len;
        }
        for (c = 0; c < 3; ++c) CHECK_NEAR(o.n[i * 3 + c], want[c], 1e-6);
        /* and it is perpendicular to a skinned tangent-plane vector: (A t) . n' = 0 for t . n = 0 */
        {
            double t[3], at[3];
            t[0] = n[1]; t[1] = -n[0]; t[2] = 0;
            dm_vec(&d[0], t, at);
            for (c = 0; c < 3; ++c) dot += at[c] * o.n[i * 3 + c];
            CHECK_NEAR(dot, 0, 1e-5);
        }
    }
    CHECK_NEAR(o.n[6], sqrt(0.5), 1e-6); CHECK_NEAR(o.n[7], sqrt(0.5), 1e-6); CHECK_NEAR(o.n[8], 0, 1e-6);
    CHECK_NEAR(o.n[9], 1, 1e-6); CHECK_NEAR(o.n[10], 0, 1e-6); CHECK_NEAR(o.n[11], 0, 1e-6);
    CHECK_NEAR(o.n[12], 0, 1e-6); CHECK_NEAR(o.n[13], 0, 1e-6); CHECK_NEAR(o.n[14], 0, 1e-6);
    for (method = DQS_GS; method <= DQS_POLAR; ++method) {
        skin_out q;
        CHECK_EQ_INT(run_skin(&s, J, pal, method, &q), GPUSKIN_SUCCESS);
        CHECK(all_finite(q.n, m.n * 3));
        for (c = 0; c < 9; ++c) CHECK_NEAR(q.n[c], o.n[c], 1e-5); /* single influence: same matrix */
    }
}

/* ------------------------------------------------------------------------ */
/* Skeleton                                                                 */
/* ------------------------------------------------------------------------ */

static void random_trs(gpuskin_trs *t, int allow_scale) {
    t->translation = v3(rng_range(-1, 1), rng_range(-1, 1), rng_range(-1, 1));
    t->rotation = rng_quat();
    if (allow_scale) {
        double sx = rng_range(0.5, 2), sy = rng_range(0.5, 2), sz = rng_range(0.5, 2);
        if (allow_scale > 1 && rng_below(4) == 0) sx = -sx;
        if (allow_scale > 1 && rng_below(6) == 0) sz = -sz;
        t->scale = v3(sx, sy, sz);
    } else {
        t->scale = v3(1, 1, 1);
    }
}

static void test_skeleton_any_order(void) {
    /* tree (parent-first): 0 root; 1<-0; 2<-1; 3<-0; 4<-3 */
    static const int32_t parents_a[5] = {-1, 0, 1, 0, 3};
    /* the same tree, children first: new index k is old perm[k] */
    static const int perm[5] = {4, 2, 3, 1, 0};
    int32_t parents_b[5];
    int inv_perm[5];
    gpuskin_trs local_a[5], local_b[5];
    gpuskin_mat4 ga[5], gb[5];
    dmat4 ref[5];
    gpuskin_skeleton ska, skb;
    gpuskin_skeleton_desc d;
    int k, i;
    size_t allocs0 = tm_allocs, frees0 = tm_frees;
    rng_seed(5);
    for (k = 0; k < 5; ++k) { random_trs(&local_a[k], 2); inv_perm[perm[k]] = k; }
    for (k = 0; k < 5; ++k) {
        int old = perm[k];
        parents_b[k] = parents_a[old] < 0 ? -1 : inv_perm[parents_a[old]];
        local_b[k] = local_a[old];
    }
    ZERO(d);
    d.joint_count = 5;
    d.parents = parents_a;
    CHECK_EQ_INT(gpuskin_skeleton_init(&ska, &d), GPUSKIN_SUCCESS);
    d.parents = parents_b;
    CHECK_EQ_INT(gpuskin_skeleton_init(&skb, &d), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(gpuskin_skeleton_globals(&ska, local_a, ga), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(gpuskin_skeleton_globals(&skb, local_b, gb), GPUSKIN_SUCCESS);
    /* double reference, walking the parent-first tree */
    for (k = 0; k < 5; ++k) {
        dmat4 l = dm_from_trs(&local_a[k]);
        ref[k] = parents_a[k] < 0 ? l : dm_mul(&ref[parents_a[k]], &l);
    }
    for (k = 0; k < 5; ++k)
        for (i = 0; i < 16; ++i) {
            CHECK_NEAR(ga[k].m[i], ref[k].m[i], 1e-5 * (1 + dm_maxabs(&ref[k])));
            CHECK_NEAR(gb[inv_perm[k]].m[i], ref[k].m[i], 1e-5 * (1 + dm_maxabs(&ref[k])));
        }
    /* skb.order: a permutation with every parent before its children */
    {
        int seen[5] = {0, 0, 0, 0, 0}, pos[5], ok = 1;
        for (k = 0; k < 5; ++k) {
            if (skb.order[k] >= 5 || seen[skb.order[k]]) ok = 0;
            else { seen[skb.order[k]] = 1; pos[skb.order[k]] = k; }
        }
        CHECK(ok);
        if (ok)
            for (k = 0; k < 5; ++k)
                if (parents_b[k] >= 0) CHECK(pos[parents_b[k]] < pos[k]);
    }
    CHECK_EQ_INT(skb.joint_count, 5);
    CHECK(skb.parents != parents_b && skb.parents[0] == parents_b[0] && skb.parents[4] == parents_b[4]); /* a copy */
    /* local_pose NULL = rest pose; rest pose NULL = identity -> all globals identity */
    CHECK_EQ_INT(gpuskin_skeleton_globals(&skb, NULL, gb), GPUSKIN_SUCCESS);
    for (k = 0; k < 5; ++k)
        for (i = 0; i < 16; ++i) CHECK(gb[k].m[i] == ((i % 5 == 0) ? 1.0f : 0.0f));
    gpuskin_skeleton_free(&ska);
    gpuskin_skeleton_free(&skb);
    CHECK(tm_allocs > allocs0);
    CHECK_EQ_INT(tm_allocs - allocs0, tm_frees - frees0);
    /* a rest pose given in the desc is used for local_pose NULL */
    d.joint_count = 5;
    d.parents = parents_a;
    d.rest_pose = local_a;
    CHECK_EQ_INT(gpuskin_skeleton_init(&ska, &d), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(gpuskin_skeleton_globals(&ska, NULL, ga), GPUSKIN_SUCCESS);
    for (k = 0; k < 5; ++k)
        for (i = 0; i < 16; ++i) CHECK_NEAR(ga[k].m[i], ref[k].m[i], 1e-5 * (1 + dm_maxabs(&ref[k])));
    gpuskin_skeleton_free(&ska);
}

/* depth_order: every joint once, depths never decreasing, and joints of one depth
   in the order `order` gives them. Random forests (indices shuffled), a chain of
   GPUSKIN_MAX_JOINTS joints listed leaf first, and the largest star. */
static void check_depth_order(const gpuskin_skeleton *sk) {
    const uint32_t n = sk->joint_count;
    uint32_t *depth = (uint32_t *)malloc(n * sizeof(uint32_t)), *pos = (uint32_t *)malloc(n * sizeof(uint32_t));
    unsigned char *seen = (unsigned char *)calloc(n, 1);
    uint32_t k, bad = 0;
    CHECK(sk->depth_order != NULL && depth && pos && seen);
    if (!sk->depth_order || !depth || !pos || !seen) { free(depth); free(pos); free(seen); return; }
    for (k = 0; k < n; ++k) { /* along order, parents first (checked elsewhere) */
        const uint32_t j = sk->order[k];
        depth[j] = sk->parents[j] < 0 ? 0 : depth[sk->parents[j]] + 1;
        pos[j] = k;
    }
    for (k = 0; k < n && !bad; ++k) {
        const uint32_t j = sk->depth_order[k];
        if (j >= n || seen[j]) bad = 1 + k; /* out of range, or twice (then another is missing) */
        else if (k > 0) {
            const uint32_t prev = sk->depth_order[k - 1];
            if (depth[prev] > depth[j] || (depth[prev] == depth[j] && pos[prev] > pos[j])) bad = 1 + k;
        }
        if (!bad) seen[j] = 1;
    }
    if (bad) fprintf(stderr, "  depth_order wrong at %u of %u joints\n", bad - 1, n);
    CHECK(!bad);
    free(depth);
    free(pos);
    free(seen);
}

/* chain_slots: every joint once; a joint that continues its slot's chain is a
   child of the slot's joint one step before, and the child with the most joints
   below it in a line (ties: the first in `order`), which always continues; a
   joint that starts a chain is a root or the child of a joint made at an earlier
   step; every step makes a joint, so there are at most joint_count steps. */
static void check_chain_slots(const gpuskin_skeleton *sk) {
    const uint32_t n = sk->joint_count, k_slots = GPUSKIN_CHAIN_SLOTS, none = GPUSKIN_CHAIN_IDLE;
    uint32_t *step_of = (uint32_t *)malloc(n * sizeof(uint32_t)), *height = (uint32_t *)malloc(n * sizeof(uint32_t));
    uint32_t *best = (uint32_t *)malloc(n * sizeof(uint32_t));
    uint32_t t, s, k, made = 0, bad = 0;
    CHECK(sk->chain_slots != NULL && step_of && height && best);
    if (!sk->chain_slots || !step_of || !height || !best) {
        free(step_of); free(height); free(best);
        return;
    }
    CHECK(sk->chain_steps >= 1 && sk->chain_steps <= n);
    for (k = 0; k < n; ++k) step_of[k] = best[k] = none, height[k] = 1;
    for (k = n; k-- > 0;) { /* joints in a line below, along the tallest child */
        const uint32_t j = sk->order[k];
        if (sk->parents[j] >= 0 && height[j] + 1 > height[sk->parents[j]]) height[sk->parents[j]] = height[j] + 1;
    }
    for (k = 0; k < n; ++k) { /* each joint's tallest child, the first in `order` among equals */
        const uint32_t j = sk->order[k];
        const int32_t p = sk->parents[j];
        if (p >= 0 && (best[p] == none || height[j] > height[best[p]])) best[p] = j;
    }
    for (t = 0; t < sk->chain_steps && !bad; ++t) {
        uint32_t busy = 0;
        for (s = 0; s < k_slots && !bad; ++s) {
            const uint32_t e = sk->chain_slots[t * k_slots + s], j = e & ~GPUSKIN_CHAIN_START;
            int32_t p;
            if (e == none) continue;
            ++busy;
            if (j >= n || step_of[j] != none) { bad = 1; break; }
            p = sk->parents[j];
            if (e & GPUSKIN_CHAIN_START) {
                if (p >= 0 && (step_of[p] == none || step_of[p] >= t)) bad = 2;
            } else {
                const uint32_t before = t ? sk->chain_slots[(t - 1) * k_slots + s] : none;
                if (before == none || p != (int32_t)(before & ~GPUSKIN_CHAIN_START)) bad = 3;
            }
            if (p >= 0 && (best[p] == j) != !(e & GPUSKIN_CHAIN_START)) bad = 4; /* the tallest child continues */
            step_of[j] = t;
            ++made;
        }
        if (!busy) bad = 5;
    }
    if (bad) fprintf(stderr, "  chain_slots wrong (%u) at step %u of %u, %u joints\n", bad, t - 1, sk->chain_steps, n);
    CHECK(!bad && made == n);
    free(step_of);
    free(height);
    free(best);
}

static void test_skeleton_depth_order(void) {
    const uint32_t n_max = GPUSKIN_MAX_JOINTS;
    int32_t *parents = (int32_t *)malloc(n_max * sizeof(int32_t));
    uint32_t *perm = (uint32_t *)malloc(n_max * sizeof(uint32_t));
    gpuskin_skeleton sk;
    gpuskin_skeleton_desc d;
    uint32_t k, round;
    CHECK(parents && perm);
    if (!parents || !perm) { free(parents); free(perm); return; }
    rng_seed(77);
    ZERO(d);
    d.parents = parents;
    for (round = 0; round < 60; ++round) {
        const uint32_t n = 1 + rng_below(round < 50 ? 80 : 3000);
        for (k = 0; k < n; ++k) perm[k] = k;
        for (k = n - 1; k > 0; --k) {
            uint32_t j = rng_below(k + 1), t = perm[k];
            perm[k] = perm[j];
            perm[j] = t;
        }
        for (k = 0; k < n; ++k) /* perm[k]'s parent is an earlier entry: deep and wide trees */
            parents[perm[k]] = (k == 0 || rng_below(10) == 0) ? -1 : (int32_t)perm[k - 1 - rng_below(k < 4 ? k : 4)];
        d.joint_count = n;
        CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_SUCCESS);
        check_depth_order(&sk);
        check_chain_slots(&sk);
        gpuskin_skeleton_free(&sk);
    }
    for (k = 0; k < n_max; ++k) parents[k] = k + 1 < n_max ? (int32_t)(k + 1) : -1; /* joint 0 the deepest */
    d.joint_count = n_max;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_SUCCESS);
    check_depth_order(&sk);
    if (sk.depth_order) CHECK(sk.depth_order[0] == n_max - 1 && sk.depth_order[n_max - 1] == 0);
    check_chain_slots(&sk);
    CHECK(sk.chain_steps == n_max); /* one chain, joint after joint */
    gpuskin_skeleton_free(&sk);
    for (k = 0; k < n_max; ++k) parents[k] = k ? 0 : -1;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_SUCCESS);
    check_depth_order(&sk);
    check_chain_slots(&sk);
    CHECK(sk.chain_steps == 1 + (n_max - 1 + GPUSKIN_CHAIN_SLOTS - 1) / GPUSKIN_CHAIN_SLOTS); /* the root, then its children */
    gpuskin_skeleton_free(&sk);
    free(parents);
    free(perm);
}

static void test_skeleton_errors(void) {
    gpuskin_skeleton sk;
    gpuskin_skeleton_desc d;
    static const int32_t two_cycle[2] = {1, 0};
    static const int32_t self[1] = {0};
    static const int32_t long_cycle[5] = {-1, 3, 1, 2, 0}; /* 1 -> 3 -> 2 -> 1 */
    static const int32_t cycle_no_root[3] = {2, 0, 1};
    static const int32_t out_of_range[3] = {-1, 0, 3};
    static const int32_t below_minus1[2] = {-1, -2};
    static const int32_t ok[2] = {-1, 0};
    gpuskin_mat4 ib[2];
    gpuskin_trs rest[2];
    size_t a0 = tm_allocs, f0 = tm_frees;
    ZERO(d);
    d.joint_count = 2; d.parents = two_cycle;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_PARENT_CYCLE);
    d.joint_count = 1; d.parents = self;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_PARENT_CYCLE);
    d.joint_count = 5; d.parents = long_cycle;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_PARENT_CYCLE);
    d.joint_count = 3; d.parents = cycle_no_root;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_PARENT_CYCLE);
    d.joint_count = 3; d.parents = out_of_range;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_PARENT_OUT_OF_RANGE);
    d.joint_count = 2; d.parents = below_minus1;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_PARENT_OUT_OF_RANGE);
    d.joint_count = 0; d.parents = ok;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_INVALID_COUNT);
    d.joint_count = GPUSKIN_MAX_JOINTS + 1; d.parents = ok; /* must be rejected before reading parents */
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_INVALID_COUNT);
    d.joint_count = 2; d.parents = NULL;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_NULL_ARGUMENT);
    d.parents = ok;
    CHECK_EQ_INT(gpuskin_skeleton_init(NULL, &d), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
    ib[0] = fm_ident(); ib[1] = fm_ident(); ib[1].m[13] = NAN;
    d.inverse_bind = ib;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_NON_FINITE);
    ib[1].m[13] = 0;
    rest[0] = gpuskin_trs_identity(); rest[1] = gpuskin_trs_identity(); rest[1].rotation.y = INFINITY;
    d.rest_pose = rest;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_NON_FINITE);
    rest[1].rotation.y = 0;
    rest[0].scale.z = NAN;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_NON_FINITE);
    rest[0].scale.z = 1;
    d.root_parent_globals = ib;
    ib[0].m[0] = INFINITY; /* a root's parent global */
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_NON_FINITE);
    ib[0].m[0] = 1;
    CHECK_EQ_INT(tm_allocs - a0, tm_frees - f0); /* failures leak nothing */
    /* allocation failure */
    tm_fail_after = 0;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_OUT_OF_MEMORY);
    tm_fail_after = -1;
    CHECK_EQ_INT(tm_allocs - a0, tm_frees - f0);
    /* alloc_user is what the allocator sees */
    {
        int marker = 0;
        d.alloc_user = &marker;
        tm_last_user = NULL;
        CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_SUCCESS);
        CHECK(tm_last_user == (void *)&marker);
        CHECK(sk.alloc_user == (void *)&marker);
        gpuskin_skeleton_free(&sk);
        CHECK_EQ_INT(tm_allocs - a0, tm_frees - f0);
    }
    /* NULL arguments of globals/palette */
    {
        gpuskin_mat4 g[2], p[2];
        d.alloc_user = NULL;
        CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_SUCCESS);
        CHECK_EQ_INT(gpuskin_skeleton_globals(NULL, NULL, g), GPUSKIN_ERROR_NULL_ARGUMENT);
        CHECK_EQ_INT(gpuskin_skeleton_globals(&sk, NULL, NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
        CHECK_EQ_INT(gpuskin_skeleton_globals(&sk, NULL, g), GPUSKIN_SUCCESS);
        CHECK_EQ_INT(gpuskin_skeleton_palette(NULL, NULL, g, p), GPUSKIN_ERROR_NULL_ARGUMENT);
        CHECK_EQ_INT(gpuskin_skeleton_palette(&sk, NULL, NULL, p), GPUSKIN_ERROR_NULL_ARGUMENT);
        CHECK_EQ_INT(gpuskin_skeleton_palette(&sk, NULL, g, NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
        gpuskin_skeleton_free(&sk);
    }
}

/* palette = model * global * inverseBind, by hand; root_parent_globals for roots only. */
static void test_skeleton_palette_by_hand(void) {
    gpuskin_skeleton sk;
    gpuskin_skeleton_desc d;
    static const int32_t parents[3] = {-1, 0, -1};
    gpuskin_trs local[3];
    gpuskin_mat4 ib[3], rpg[3], model, g[3], pal[3];
    double p[3], q[3];
    dmat4 tmp;
    ZERO(d);
    /* joint 0: root under a non-joint node at (5,0,0); local translation (1,0,0) -> global T(6,0,0)
       joint 1: child of 0, local T(0,1,0) -> T(6,1,0) (its rpg entry T(100,100,100) is ignored)
       joint 2: root under a node rotated Rz90; local T(1,0,0) -> Rz90 * T(1,0,0): translation (0,1,0) */
    local[0] = trs_make(v3(1, 0, 0), q4(0, 0, 0, 1), v3(1, 1, 1));
    local[1] = trs_make(v3(0, 1, 0), q4(0, 0, 0, 1), v3(1, 1, 1));
    local[2] = trs_make(v3(1, 0, 0), q4(0, 0, 0, 1), v3(1, 1, 1));
    tmp = dm_translate(5, 0, 0); rpg[0] = fm_from_d(&tmp);
    tmp = dm_translate(100, 100, 100); rpg[1] = fm_from_d(&tmp);
    tmp = dm_axis_angle(0, 0, 1, PI / 2); rpg[2] = fm_from_d(&tmp);
    d.joint_count = 3;
    d.parents = parents;
    d.root_parent_globals = rpg;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(gpuskin_skeleton_globals(&sk, local, g), GPUSKIN_SUCCESS);
    CHECK_NEAR(g[0].m[12], 6, 1e-6); CHECK_NEAR(g[0].m[13], 0, 1e-6); CHECK_NEAR(g[0].m[14], 0, 1e-6);
    CHECK_NEAR(g[1].m[12], 6, 1e-6); CHECK_NEAR(g[1].m[13], 1, 1e-6); CHECK_NEAR(g[1].m[14], 0, 1e-6);
    CHECK_NEAR(g[2].m[12], 0, 1e-6); CHECK_NEAR(g[2].m[13], 1, 1e-6); CHECK_NEAR(g[2].m[14], 0, 1e-6);
    CHECK_NEAR(g[2].m[0], 0, 1e-6);  CHECK_NEAR(g[2].m[1], 1, 1e-6); /* x axis -> y */
    CHECK_NEAR(g[1].m[0], 1, 1e-6);  CHECK_NEAR(g[1].m[5], 1, 1e-6);
    gpuskin_skeleton_free(&sk);
    /* "Read only for roots": a non-root's entry may be anything, even NaN */
    rpg[1].m[0] = NAN;
    rpg[1].m[13] = INFINITY;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_SUCCESS);
    if (sk.order) {
        CHECK_EQ_INT(gpuskin_skeleton_globals(&sk, local, g), GPUSKIN_SUCCESS);
        CHECK_NEAR(g[1].m[12], 6, 1e-6); CHECK_NEAR(g[1].m[13], 1, 1e-6);
        gpuskin_skeleton_free(&sk);
    }
    /* ... but a root's entry must be finite */
    rpg[2].m[5] = NAN;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_ERROR_NON_FINITE);

    /* palette: inverse bind T(0,-1,0) for joint 1, model T(10,0,0) * Rz90, global[1] = T(0,1,0) Rx90.
       p = (0,2,1): ib -> (0,1,1); Rx90 -> (0,-1,1); T(0,1,0) -> (0,0,1); Rz90 -> (0,0,1); +10 -> (10,0,1).
       q = (1,1,0): ib -> (1,0,0); Rx90 -> (1,0,0); T -> (1,1,0); Rz90 -> (-1,1,0); -> (9,1,0). */
    d.root_parent_globals = NULL;
    tmp = dm_ident(); ib[0] = fm_from_d(&tmp);
    tmp = dm_translate(0, -1, 0); ib[1] = fm_from_d(&tmp);
    tmp = dm_scale(2, 2, 2); ib[2] = fm_from_d(&tmp);
    d.inverse_bind = ib;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &d), GPUSKIN_SUCCESS);
    {
        dmat4 a = dm_translate(10, 0, 0), b = dm_axis_angle(0, 0, 1, PI / 2), ab = dm_mul(&a, &b);
        dmat4 t1 = dm_translate(0, 1, 0), r1 = dm_axis_angle(1, 0, 0, PI / 2), g1 = dm_mul(&t1, &r1);
        model = fm_from_d(&ab);
        g[0] = fm_ident();
        g[1] = fm_from_d(&g1);
        g[2] = fm_ident();
    }
    CHECK_EQ_INT(gpuskin_skeleton_palette(&sk, &model, g, pal), GPUSKIN_SUCCESS);
    {
        dmat4 P = dm_from_f(&pal[1]);
        p[0] = 0; p[1] = 2; p[2] = 1;
        dm_point(&P, p, q);
        CHECK_NEAR(q[0], 10, 1e-5); CHECK_NEAR(q[1], 0, 1e-5); CHECK_NEAR(q[2], 1, 1e-5);
        p[0] = 1; p[1] = 1; p[2] = 0;
        dm_point(&P, p, q);
        CHECK_NEAR(q[0], 9, 1e-5); CHECK_NEAR(q[1], 1, 1e-5); CHECK_NEAR(q[2], 0, 1e-5);
        /* joint 2: model * I * S(2): (1,0,0) -> (2,0,0) -> Rz90 (0,2,0) -> (10,2,0) */
        P = dm_from_f(&pal[2]);
        p[0] = 1; p[1] = 0; p[2] = 0;
        dm_point(&P, p, q);
        CHECK_NEAR(q[0], 10, 1e-5); CHECK_NEAR(q[1], 2, 1e-5); CHECK_NEAR(q[2], 0, 1e-5);
    }
    /* model NULL = identity: palette[1] p = (0,0,1) for p = (0,2,1) */
    CHECK_EQ_INT(gpuskin_skeleton_palette(&sk, NULL, g, pal), GPUSKIN_SUCCESS);
    {
        dmat4 P = dm_from_f(&pal[1]);
        p[0] = 0; p[1] = 2; p[2] = 1;
        dm_point(&P, p, q);
        CHECK_NEAR(q[0], 0, 1e-6); CHECK_NEAR(q[1], 0, 1e-6); CHECK_NEAR(q[2], 1, 1e-6);
    }
    gpuskin_skeleton_free(&sk);
}

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct err_fixture {
    tmesh m;
    float lbs[4 * 12], dq[4 * 8], res[4 * 12];
    skin_out o;
    size_t err_index;
    gpuskin_cpu_skin_desc d;
} err_fixture;

static void err_reset(err_fixture *f) {
    gpuskin_mat4 pal[4];
    uint32_t word = 0;
    size_t i;
    int j;
    tm_init(&f->m, 6, 2);
    for (i = 0; i < 6; ++i) {
        tm_pos(&f->m, i, (double)i, 1, 2);
        tm_inf(&f->m, i, 0, (unsigned)(i % 4), 0.6);
        tm_inf(&f->m, i, 5, (unsigned)((i + 1) % 4), 0.4);
    }
    for (j = 0; j < 4; ++j) {
        dmat4 dd = dm_translate(j, 0, 0);
        pal[j] = fm_from_d(&dd);
    }
    pal[3].m[0] = 2; /* one non-rigid joint */
    gpuskin_pack_lbs(pal, 4, f->lbs);
    gpuskin_pack_dq(pal, 4, GPUSKIN_SPLIT_GRAM_SCHMIDT, f->dq, f->res, &word);
    ZERO(f->d);
    f->d.streams = tm_streams(&f->m);
    f->d.joint_count = 4;
    f->d.method_word = GPUSKIN_METHOD_LBS;
    f->d.lbs_palette = f->lbs;
    f->d.dq_palette = f->dq;
    f->d.residual_palette = f->res;
    f->d.out_positions.data = f->o.p;
    f->d.out_normals.data = f->o.n;
    f->d.out_tangents.data = f->o.t;
    f->err_index = (size_t)-1;
    f->d.out_error_index = &f->err_index;
}
/* The same input through gpuskin_skin_cpu and gpuskin_streams_validate. */
static void expect_both(err_fixture *f, gpuskin_result want, size_t want_index, int line) {
    size_t bad = (size_t)-1;
    gpuskin_result r1 = gpuskin_skin_cpu(&f->d), r2;
    int failed_before = gt_case_failed;
    CHECK_EQ_INT(r1, want);
    if (want_index != (size_t)-1) CHECK_EQ_INT(f->err_index, want_index);
    r2 = gpuskin_streams_validate(&f->d.streams, f->d.joint_count, &bad);
    CHECK_EQ_INT(r2, want);
    if (want_index != (size_t)-1) CHECK_EQ_INT(bad, want_index);
    if (gt_case_failed && !failed_before) fprintf(stderr, "    (from line %d)\n", line);
}
#define EXPECT_BOTH(f, want, idx) expect_both((f), (want), (idx), __LINE__)

static void test_errors_streams(void) {
    static err_fixture F;
    err_fixture *f = &F;
    size_t none = (size_t)-1;
    err_reset(f);
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(gpuskin_streams_validate(&f->d.streams, 4, NULL), GPUSKIN_SUCCESS);
    f->d.method_word = GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_SUCCESS);

    /* NULL where data is required */
    CHECK_EQ_INT(gpuskin_skin_cpu(NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_streams_validate(NULL, 4, NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
    err_reset(f); f->d.streams.positions.data = NULL;  EXPECT_BOTH(f, GPUSKIN_ERROR_NULL_ARGUMENT, none);
    err_reset(f); f->d.streams.joints[0].data = NULL;  EXPECT_BOTH(f, GPUSKIN_ERROR_NULL_ARGUMENT, none);
    err_reset(f); f->d.streams.weights[0].data = NULL; EXPECT_BOTH(f, GPUSKIN_ERROR_NULL_ARGUMENT, none);
    err_reset(f); f->d.streams.joints[1].data = NULL;  EXPECT_BOTH(f, GPUSKIN_ERROR_NULL_ARGUMENT, none);
    err_reset(f); f->d.streams.weights[1].data = NULL; EXPECT_BOTH(f, GPUSKIN_ERROR_NULL_ARGUMENT, none);
    err_reset(f); f->d.out_positions.data = NULL;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_NULL_ARGUMENT);
    err_reset(f); f->d.lbs_palette = NULL;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_NULL_ARGUMENT);
    err_reset(f); f->d.method_word = GPUSKIN_METHOD_DQS; f->d.dq_palette = NULL;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_NULL_ARGUMENT);
    err_reset(f); f->d.method_word = GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT; f->d.residual_palette = NULL;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_NULL_ARGUMENT);
    /* LBS does not need the DQ palettes and vice versa */
    err_reset(f); f->d.dq_palette = NULL; f->d.residual_palette = NULL;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_SUCCESS);
    err_reset(f); f->d.method_word = GPUSKIN_METHOD_DQS; f->d.lbs_palette = NULL; f->d.residual_palette = NULL;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_SUCCESS);

    /* zero counts */
    err_reset(f); f->d.joint_count = 0; EXPECT_BOTH(f, GPUSKIN_ERROR_INVALID_COUNT, none);
    err_reset(f); f->d.streams.vertex_count = 0; EXPECT_BOTH(f, GPUSKIN_ERROR_INVALID_COUNT, none);
    /* influence_sets 3 / an unknown joint type: arguments outside their documented range
       (influence_sets is also a count: either code is a fair reading of gpuskin.h) */
    err_reset(f); f->d.streams.influence_sets = 3;
    {
        gpuskin_result r1 = gpuskin_skin_cpu(&f->d), r2 = gpuskin_streams_validate(&f->d.streams, 4, NULL);
        CHECK(r1 == GPUSKIN_ERROR_INVALID_ARGUMENT || r1 == GPUSKIN_ERROR_INVALID_COUNT);
        CHECK_EQ_INT(r2, r1);
    }
    err_reset(f); f->d.streams.joint_type = (gpuskin_joint_type)3;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(gpuskin_streams_validate(&f->d.streams, 4, NULL), GPUSKIN_ERROR_INVALID_ARGUMENT);

    /* overflowing counts: must be caught before any read */
    err_reset(f); f->d.streams.vertex_count = SIZE_MAX / 2; EXPECT_BOTH(f, GPUSKIN_ERROR_OVERFLOW, none);
    err_reset(f); f->d.streams.vertex_count = SIZE_MAX / 2; f->d.streams.positions.stride = 12;
    EXPECT_BOTH(f, GPUSKIN_ERROR_OVERFLOW, none);

    /* strides smaller than the element */
    err_reset(f); f->d.streams.positions.stride = 8;   EXPECT_BOTH(f, GPUSKIN_ERROR_INVALID_STRIDE, none);
    err_reset(f); f->d.streams.normals.stride = 4;     EXPECT_BOTH(f, GPUSKIN_ERROR_INVALID_STRIDE, none);
    err_reset(f); f->d.streams.tangents.stride = 12;   EXPECT_BOTH(f, GPUSKIN_ERROR_INVALID_STRIDE, none);
    err_reset(f); f->d.streams.joints[0].stride = 6;   EXPECT_BOTH(f, GPUSKIN_ERROR_INVALID_STRIDE, none);
    err_reset(f); f->d.streams.weights[1].stride = 12; EXPECT_BOTH(f, GPUSKIN_ERROR_INVALID_STRIDE, none);
    err_reset(f); f->d.out_positions.stride = 8;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_INVALID_STRIDE);
    err_reset(f); f->d.out_tangents.stride = 12;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_INVALID_STRIDE);

    /* a weighted joint index >= joint_count, reported with its vertex; an unweighted one is fine */
    err_reset(f);
    tm_inf(&f->m, 2, 3, 9, 0.0);  /* vertex 2: garbage index, weight 0: never read */
    tm_inf(&f->m, 3, 6, 4, 0.25); /* vertex 3, second set: joint 4 of 4 */
    tm_inf(&f->m, 5, 1, 7, 0.5);  /* vertex 5 too, but 3 comes first */
    EXPECT_BOTH(f, GPUSKIN_ERROR_JOINT_OUT_OF_RANGE, 3);
    err_reset(f); f->d.streams.joint_type = GPUSKIN_JOINT_U16; tm_inf(&f->m, 4, 0, 0xFFFF, 1.0);
    EXPECT_BOTH(f, GPUSKIN_ERROR_JOINT_OUT_OF_RANGE, 4);

    /* NaN / Inf / negative weights */
    err_reset(f); f->m.w[0][1][0] = NAN;       EXPECT_BOTH(f, GPUSKIN_ERROR_INVALID_WEIGHT, 1);
    err_reset(f); f->m.w[1][2][1] = INFINITY;  EXPECT_BOTH(f, GPUSKIN_ERROR_INVALID_WEIGHT, 2);
    err_reset(f); f->m.w[0][4][3] = -0.1f;     EXPECT_BOTH(f, GPUSKIN_ERROR_INVALID_WEIGHT, 4);
    err_reset(f); f->m.w[0][0][2] = -INFINITY; EXPECT_BOTH(f, GPUSKIN_ERROR_INVALID_WEIGHT, 0);

    /* non-finite vertex data (validate documents it) */
    err_reset(f); f->m.pos[2][1] = NAN;
    CHECK_EQ_INT(gpuskin_streams_validate(&f->d.streams, 4, &f->err_index), GPUSKIN_ERROR_NON_FINITE);
    CHECK_EQ_INT(f->err_index, 2);
    err_reset(f); f->m.nrm[5][0] = INFINITY;
    CHECK_EQ_INT(gpuskin_streams_validate(&f->d.streams, 4, &f->err_index), GPUSKIN_ERROR_NON_FINITE);
    CHECK_EQ_INT(f->err_index, 5);
    err_reset(f); f->m.tan[3][3] = NAN;
    CHECK_EQ_INT(gpuskin_streams_validate(&f->d.streams, 4, &f->err_index), GPUSKIN_ERROR_NON_FINITE);
    CHECK_EQ_INT(f->err_index, 3);

    /* non-finite palettes */
    err_reset(f); f->lbs[1 * 12 + 7] = NAN;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_NON_FINITE);
    err_reset(f); f->lbs[3 * 12 + 0] = INFINITY;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_NON_FINITE);
    err_reset(f); f->d.method_word = GPUSKIN_METHOD_DQS; f->dq[2 * 8 + 5] = NAN;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_NON_FINITE);
    err_reset(f); f->d.method_word = GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT; f->res[3 * 12 + 5] = -INFINITY;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_NON_FINITE);

    /* palette_joint_count: 0 = joint_count, else must equal it */
    err_reset(f); f->d.palette_joint_count = 4;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_SUCCESS);
    err_reset(f); f->d.palette_joint_count = 3;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_PALETTE_SIZE);
    err_reset(f); f->d.palette_joint_count = 5;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_PALETTE_SIZE);

    /* invalid method words */
    err_reset(f); f->d.method_word = 2;  /* a reserved id */
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_INVALID_METHOD);
    err_reset(f); f->d.method_word = 0xF;
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_INVALID_METHOD);
    err_reset(f); f->d.method_word = GPUSKIN_METHOD_LBS | GPUSKIN_METHOD_RESIDUAL_BIT; /* a DQS flag on LBS */
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_INVALID_METHOD);
    err_reset(f); f->d.method_word = GPUSKIN_METHOD_DQS | 0x100u; /* an unknown flag */
    CHECK_EQ_INT(gpuskin_skin_cpu(&f->d), GPUSKIN_ERROR_INVALID_METHOD);
}

static void test_result_strings(void) {
    int i, k;
    for (i = 0; i < (int)GPUSKIN_RESULT_COUNT_; ++i) {
        const char *s = gpuskin_result_string((gpuskin_result)i);
        CHECK(s != NULL);
        if (!s) continue;
        CHECK(s[0] != '\0');
        for (k = 0; k < i; ++k) {
            const char *t = gpuskin_result_string((gpuskin_result)k);
            if (t && strcmp(s, t) == 0) {
                fprintf(stderr, "  result strings %d and %d are both \"%s\"\n", k, i, s);
                CHECK(strcmp(s, t) != 0);
            }
        }
    }
    /* out of range: still a string */
    CHECK(gpuskin_result_string(GPUSKIN_RESULT_COUNT_) != NULL);
    CHECK(gpuskin_result_string((gpuskin_result)-1) != NULL);
    CHECK(gpuskin_result_string((gpuskin_result)1000) != NULL);
}

/* ------------------------------------------------------------------------ */
/* Property tests over random rigs                                          */
/* ------------------------------------------------------------------------ */

typedef struct rig {
    uint32_t J;
    int32_t parents[40];
    int order[40]; /* hidden parent-first order */
    gpuskin_trs rest[40], pose[40];
    gpuskin_mat4 ib[40], model, pal[40];
    dmat4 dpal[40];
} rig;

/* allow_scale: 0 rigid, 1 positive scales, 2 also negative */
static void make_rig(rig *r, int allow_scale) {
    uint32_t k, i;
    dmat4 bindg[40], poseg[40], dmodel;
    gpuskin_trs mt;
    r->J = 2 + rng_below(39);
    for (k = 0; k < r->J; ++k) r->order[k] = (int)k;
    for (k = r->J - 1; k > 0; --k) { /* shuffle */
        uint32_t j = rng_below(k + 1);
        int t = r->order[k]; r->order[k] = r->order[j]; r->order[j] = t;
    }
    for (k = 0; k < r->J; ++k) {
        int self = r->order[k];
        r->parents[self] = (k == 0 || rng_below(8) == 0) ? -1 : r->order[rng_below(k)];
        random_trs(&r->rest[self], allow_scale);
        random_trs(&r->pose[self], allow_scale);
    }
    /* double globals in the hidden order; inverse bind = inverse of the bind globals */
    for (k = 0; k < r->J; ++k) {
        int j = r->order[k];
        dmat4 lb = dm_from_trs(&r->rest[j]);
        bindg[j] = r->parents[j] < 0 ? lb : dm_mul(&bindg[r->parents[j]], &lb);
    }
    for (k = 0; k < r->J; ++k) {
        dmat4 inv;
        if (!dm_inverse(&bindg[k], &inv)) inv = dm_ident();
        r->ib[k] = fm_from_d(&inv);
    }
    random_trs(&mt, allow_scale ? 1 : 0);
    r->model = gpuskin_mat4_from_trs(&mt);
    dmodel = dm_from_trs(&mt);
    {
        dmat4 mf = dm_from_f(&r->model);
        for (i = 0; i < 16; ++i) CHECK_NEAR(mf.m[i], dmodel.m[i], 1e-5 * (1 + dm_maxabs(&dmodel)));
        dmodel = mf; /* the reference uses the same float model the library gets */
    }
    for (k = 0; k < r->J; ++k) {
        int j = r->order[k];
        dmat4 lp = dm_from_trs(&r->pose[j]);
        poseg[j] = r->parents[j] < 0 ? lp : dm_mul(&poseg[r->parents[j]], &lp);
    }
    for (k = 0; k < r->J; ++k) {
        dmat4 ibd = dm_from_f(&r->ib[k]), t = dm_mul(&dmodel, &poseg[k]);
        r->dpal[k] = dm_mul(&t, &ibd);
    }
}

static double g_worst_palette;
/* build the library's palette for the rig; compare with the double one (1e-5 relative) */
static int rig_palette(rig *r) {
    gpuskin_skeleton sk;
    gpuskin_skeleton_desc d;
    gpuskin_mat4 g[40];
    uint32_t k;
    int i, ok = 1;
    ZERO(d);
    d.joint_count = r->J;
    d.parents = r->parents;
    d.inverse_bind = r->ib;
    d.rest_pose = r->rest;
    if (gpuskin_skeleton_init(&sk, &d) != GPUSKIN_SUCCESS) return 0;
    if (gpuskin_skeleton_globals(&sk, r->pose, g) != GPUSKIN_SUCCESS) ok = 0;
    if (ok && gpuskin_skeleton_palette(&sk, &r->model, g, r->pal) != GPUSKIN_SUCCESS) ok = 0;
    gpuskin_skeleton_free(&sk);
    if (!ok) return 0;
    for (k = 0; k < r->J; ++k) {
        double sc = 1 + dm_maxabs(&r->dpal[k]);
        for (i = 0; i < 16; ++i) {
            double err = fabs(r->pal[k].m[i] - r->dpal[k].m[i]) / sc;
            if (err > g_worst_palette) g_worst_palette = err;
        }
        for (i = 0; i < 16; ++i)
            if (fabs(r->pal[k].m[i] - r->dpal[k].m[i]) > 1e-5 * sc) {
                fprintf(stderr, "  palette[%u].m[%d] = %.9g, double reference %.9g\n", k, i, r->pal[k].m[i],
                        r->dpal[k].m[i]);
                ok = 0;
            }
    }
    return ok;
}

static void random_mesh(tmesh *m, uint32_t J) {
    size_t i;
    tm_init(m, TM_MAXV, 2);
    for (i = 0; i < TM_MAXV; ++i) {
        int n = 1 + (int)rng_below(8), k;
        double nx, ny, nz, l;
        do {
            nx = rng_range(-1, 1); ny = rng_range(-1, 1); nz = rng_range(-1, 1);
            l = sqrt(nx * nx + ny * ny + nz * nz);
        } while (l < 0.1 || nx * nx + ny * ny < 0.01);
        tm_pos(m, i, rng_range(-2, 2), rng_range(-2, 2), rng_range(-2, 2));
        tm_nrm(m, i, nx / l, ny / l, nz / l);
        tm_tan(m, i, -ny / l, nx / l, 0, rng_below(2) ? 1.0 : -1.0);
        for (k = 0; k < 8; ++k) tm_inf(m, i, k, 60000u + (unsigned)k, 0); /* garbage, unweighted */
        for (k = 0; k < n; ++k) {
            int slot = (int)rng_below(8);
            tm_inf(m, i, slot, rng_below(J), rng_range(0.02, 1));
        }
    }
}

static void test_property_lbs(void) {
    int seed, vertices = 0;
    double worst = 0;
    for (seed = 1; seed <= 60; ++seed) {
        static rig r;
        static tmesh m;
        skin_out o;
        gpuskin_vertex_streams s;
        size_t i;
        rng_seed(1000 + (uint64_t)seed);
        make_rig(&r, 2);
        if (!rig_palette(&r)) { CHECK(!"rig palette"); fprintf(stderr, "    seed %d\n", seed); continue; }
        random_mesh(&m, r.J);
        s = tm_streams(&m);
        CHECK_EQ_INT(run_skin(&s, r.J, r.pal, LBS, &o), GPUSKIN_SUCCESS);
        for (i = 0; i < m.n; ++i) {
            double acc[3] = {0, 0, 0}, sum = 0, scale = 1, p[3];
            dmat4 B;
            int k, c;
            memset(&B, 0, sizeof B);
            for (c = 0; c < 3; ++c) p[c] = m.pos[i][c];
            for (k = 0; k < 8; ++k) sum += m.w[k / 4][i][k % 4];
            for (k = 0; k < 8; ++k) {
                float w = m.w[k / 4][i][k % 4];
                dmat4 Pf;
                double q[3];
                int e;
                if (w == 0) continue;
                Pf = dm_from_f(&r.pal[m.j[k / 4][i][k % 4]]); /* the float palette the library skins with */
                dm_point(&Pf, p, q);
                for (c = 0; c < 3; ++c) acc[c] += w / sum * q[c];
                for (e = 0; e < 16; ++e) B.m[e] += w / sum * Pf.m[e];
                scale += dm_maxabs(&Pf) * (1 + fabs(p[0]) + fabs(p[1]) + fabs(p[2]));
            }
            for (c = 0; c < 3; ++c) {
                double err = fabs(o.p[i * 3 + c] - acc[c]) / scale;
                if (err > worst) worst = err;
                if (err > 1e-5) {
                    CHECK_REL(o.p[i * 3 + c], acc[c], 1e-5, scale);
                    fprintf(stderr, "    seed %d vertex %u\n", seed, (unsigned)i);
                }
            }
            /* normals where the blended matrix is well conditioned */
            {
                double mx = dm_maxabs(&B), n[3], want[3];
                if (fabs(dm_det3(&B)) > 1e-2 * mx * mx * mx) {
                    for (c = 0; c < 3; ++c) n[c] = m.nrm[i][c];
                    dm_normal(&B, n, want);
                    for (c = 0; c < 3; ++c) CHECK_NEAR(o.n[i * 3 + c], want[c], 1e-4);
                }
                for (c = 0; c < 3; ++c) n[c] = m.tan[i][c];
                dm_tangent(&B, n, want);
                if (fabs(dm_det3(&B)) > 1e-2 * mx * mx * mx)
                    for (c = 0; c < 3; ++c) CHECK_NEAR(o.t[i * 4 + c], want[c], 1e-4);
                CHECK(o.t[i * 4 + 3] == m.tan[i][3]);
            }
            ++vertices;
        }
        /* the same rig also through the oracle's DQS: always finite; single-influence == LBS */
        {
            int method;
            for (method = DQS_GS; method <= DQS_POLAR; ++method) {
                skin_out q;
                CHECK_EQ_INT(run_skin(&s, r.J, r.pal, method, &q), GPUSKIN_SUCCESS);
                CHECK(all_finite(q.p, m.n * 3) && all_finite(q.n, m.n * 3) && all_finite(q.t, m.n * 4));
                for (i = 0; i < m.n; ++i) {
                    int k, c, nz = 0, jn = -1, single = 1;
                    for (k = 0; k < 8; ++k)
                        if (m.w[k / 4][i][k % 4] != 0) {
                            ++nz;
                            if (jn >= 0 && jn != m.j[k / 4][i][k % 4]) single = 0;
                            jn = m.j[k / 4][i][k % 4];
                        }
                    if (nz && single) {
                        double sc = 1 + dm_maxabs(&r.dpal[jn]) * 8;
                        for (c = 0; c < 3; ++c) CHECK_REL(q.p[i * 3 + c], o.p[i * 3 + c], 1e-5, sc);
                    }
                }
            }
        }
    }
    printf("    LBS property: %d vertices, worst relative error %.3g (palettes: %.3g)\n", vertices, worst, g_worst_palette);
}

static void test_property_dqs_rigid(void) {
    int seed, vertices = 0, skipped = 0;
    double worst = 0;
    for (seed = 1; seed <= 60; ++seed) {
        static rig r;
        static tmesh m;
        skin_out o;
        gpuskin_vertex_streams s;
        double qr[40][4], qd[40][4];
        uint32_t k;
        size_t i;
        int method;
        rng_seed(5000 + (uint64_t)seed);
        make_rig(&r, 0);
        if (!rig_palette(&r)) { CHECK(!"rig palette"); continue; }
        for (k = 0; k < r.J; ++k) {
            double t[3];
            dq_from_rot(&r.dpal[k], qr[k]);
            t[0] = r.dpal[k].m[12]; t[1] = r.dpal[k].m[13]; t[2] = r.dpal[k].m[14];
            dq_dual_of(qr[k], t, qd[k]);
        }
        random_mesh(&m, r.J);
        s = tm_streams(&m);
        for (method = DQS_GS; method <= DQS_POLAR; ++method) {
            CHECK_EQ_INT(run_skin(&s, r.J, r.pal, method, &o), GPUSKIN_SUCCESS);
            CHECK_EQ_INT(o.word, GPUSKIN_METHOD_DQS); /* all rigid: no residual bit */
            for (i = 0; i < m.n; ++i) {
                double R[8][4], D[8][4], w[8], br[4], bd[4], p[3], q[3], n[3], nn[3], scale = 1, mind = 1;
                int n_inf = 0, kk, c;
                for (kk = 0; kk < 8; ++kk) {
                    float wf = m.w[kk / 4][i][kk % 4];
                    int j = m.j[kk / 4][i][kk % 4];
                    if (wf == 0) continue;
                    memcpy(R[n_inf], qr[j], sizeof qr[j]);
                    memcpy(D[n_inf], qd[j], sizeof qd[j]);
                    w[n_inf] = wf;
                    scale += dm_maxabs(&r.dpal[j]);
                    ++n_inf;
                }
                for (kk = 0; kk < n_inf; ++kk) { /* an influence almost orthogonal to the pivot: sign is a coin toss */
                    int pv = 0, z;
                    for (z = 1; z < n_inf; ++z)
                        if (w[z] > w[pv]) pv = z;
                    if (fabs(dq_dot(R[pv], R[kk])) < mind) mind = fabs(dq_dot(R[pv], R[kk]));
                }
                if (mind < 1e-3) { ++skipped; continue; }
                dq_blend(n_inf, R, D, w, br, bd);
                {
                    dmat4 M = dm_from_dq(br, bd);
                    for (c = 0; c < 3; ++c) { p[c] = m.pos[i][c]; n[c] = m.nrm[i][c]; }
                    dm_point(&M, p, q);
                    dm_vec(&M, n, nn);
                    scale *= 1 + fabs(p[0]) + fabs(p[1]) + fabs(p[2]);
                    for (c = 0; c < 3; ++c) {
                        double err = fabs(o.p[i * 3 + c] - q[c]) / scale;
                        if (err > worst) worst = err;
                        if (err > 1e-5) {
                            CHECK_REL(o.p[i * 3 + c], q[c], 1e-5, scale);
                            fprintf(stderr, "    seed %d vertex %u (%s)\n", seed, (unsigned)i, method_name(method));
                        }
                        CHECK_NEAR(o.n[i * 3 + c], nn[c], 1e-5);
                    }
                }
                ++vertices;
            }
        }
    }
    printf("    DQS rigid property: %d vertices, %d skipped (sign undecidable), worst relative error %.3g\n", vertices,
           skipped, worst);
    CHECK(skipped * 20 < vertices);
}

int main(int argc, char **argv) {
    TEST_INIT(argc, argv);
    RUN_TEST(test_math_basics);
    RUN_TEST(test_dualquat_basics);
    RUN_TEST(test_identity_palette);
    RUN_TEST(test_one_joint_translated);
    RUN_TEST(test_one_joint_rotated);
    RUN_TEST(test_two_joint_chain_bent);
    RUN_TEST(test_candy_wrapper);
    RUN_TEST(test_scale_and_mirror_single_influence);
    RUN_TEST(test_degenerate_joint_finite);
    RUN_TEST(test_weights_renormalised);
    RUN_TEST(test_denormal_weights);
    RUN_TEST(test_dqs_pivot_tie_first_wins);
    RUN_TEST(test_dqs_antipodal);
    RUN_TEST(test_dqs_residual_not_flipped);
    RUN_TEST(test_unweighted_vertex);
    RUN_TEST(test_split_round_trip);
    RUN_TEST(test_split_rigid_detection);
    RUN_TEST(test_packing_layout);
    RUN_TEST(test_dq_uniform_scale);
    RUN_TEST(test_eight_influences);
    RUN_TEST(test_streams_strides_and_joint_types);
    RUN_TEST(test_streams_unaligned);
    RUN_TEST(test_tangents);
    RUN_TEST(test_normals);
    RUN_TEST(test_skeleton_any_order);
    RUN_TEST(test_skeleton_depth_order);
    RUN_TEST(test_skeleton_errors);
    RUN_TEST(test_skeleton_palette_by_hand);
    RUN_TEST(test_errors_streams);
    RUN_TEST(test_result_strings);
    RUN_TEST(test_property_lbs);
    RUN_TEST(test_property_dqs_rigid);
    return TEST_REPORT();
}
