/* tests/test_fast.c - the production CPU path (in gpuskin.h) against the
   oracle it must equal: gpuskin_skin_cpu_fast vs gpuskin_skin_cpu vertex for vertex,
   gpuskin_build_palettes vs gpuskin_skeleton_globals + gpuskin_skeleton_palette
   (+ gpuskin_pack_lbs), and gpuskin_pack_dq_fast vs gpuskin_pack_dq, on random rigs
   and on joints placed at the split's thresholds. The oracle is the reference here: it is
   tested on its own, against hand-worked numbers, by tests/test_core.c.

   Builds as C99 and C++ (-x c++), gcc and clang, -Wall -Wextra -Wpedantic -Werror,
   under ASan/UBSan, and with -DGPUSKIN_NO_SIMD (the portable path).
   Run: build/test_fast [name-filter]                                             */
#define GPUSKIN_NO_VULKAN
#define GPUSKIN_IMPLEMENTATION
#include "../gpuskin.h"
#include "testing.h"

#include <float.h>
#include <stdlib.h>

/* ---- random numbers (splitmix64), so every run sees the same rigs ---------- */
static uint64_t tf_state;
static void tf_seed(uint64_t s) { tf_state = s * 0x9E3779B97F4A7C15ull + 77u; }
static uint64_t tf_u64(void)
{
    uint64_t z = (tf_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static float tf_unit(void) { return (float)(tf_u64() >> 40) * (1.0f / 16777216.0f); } /* [0,1) */
static float tf_range(float a, float b) { return a + (b - a) * tf_unit(); }
static uint32_t tf_below(uint32_t n) { return (uint32_t)(tf_u64() % n); }
static gpuskin_quat tf_quat(void)
{
    gpuskin_quat q;
    q.x = tf_range(-1, 1); q.y = tf_range(-1, 1); q.z = tf_range(-1, 1); q.w = tf_range(-1, 1);
    return gpuskin_quat_normalize(q);
}

/* ---- random palettes: rigid, scaled, mirrored and degenerate joints -------- */
enum { TF_RIGID, TF_SCALED, TF_MIRRORED, TF_DEGENERATE, TF_KINDS };

static gpuskin_mat4 tf_matrix(int kind)
{
    gpuskin_trs t;
    t.translation.x = tf_range(-3, 3); t.translation.y = tf_range(-3, 3); t.translation.z = tf_range(-3, 3);
    t.rotation = tf_quat();
    t.scale.x = t.scale.y = t.scale.z = 1.0f;
    if (kind == TF_SCALED) { t.scale.x = tf_range(0.4f, 2.5f); t.scale.y = tf_range(0.4f, 2.5f); t.scale.z = tf_range(0.4f, 2.5f); }
    if (kind == TF_MIRRORED) { t.scale.x = -tf_range(0.5f, 2.0f); t.scale.y = tf_range(0.5f, 2.0f); }
    if (kind == TF_DEGENERATE) t.scale.y = 0.0f; /* a collapsed axis: det = 0 */
    return gpuskin_mat4_from_trs(&t);
}

/* Packed GPU palettes of one instance, as a host would make them. */
typedef struct tf_palettes {
    uint32_t joints;
    float *lbs, *dq, *res;
    uint32_t dq_word;   /* what gpuskin_pack_dq returned */
} tf_palettes;

/* kinds: bit k set = joints of kind k allowed (every 4th joint rotates through them). */
static void tf_make_palettes(tf_palettes *p, uint32_t joints, unsigned kinds)
{
    gpuskin_mat4 *m = (gpuskin_mat4 *)malloc(joints * sizeof *m);
    uint32_t j;
    p->joints = joints;
    p->lbs = (float *)malloc(joints * 12 * sizeof(float));
    p->dq = (float *)malloc(joints * 8 * sizeof(float));
    p->res = (float *)malloc(joints * 12 * sizeof(float));
    for (j = 0; j < joints; ++j) {
        int kind = TF_RIGID;
        if (j % 4 == 3) {
            int k;
            for (k = 0; k < TF_KINDS; ++k) {
                kind = (int)((j / 4 + (uint32_t)k) % TF_KINDS);
                if (kinds & (1u << kind)) break;
            }
            if (!(kinds & (1u << kind))) kind = TF_RIGID;
        } else if (kinds & (1u << TF_SCALED)) {
            kind = TF_SCALED;
        }
        m[j] = tf_matrix(kind);
    }
    CHECK_EQ_INT(gpuskin_pack_lbs(m, joints, p->lbs), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(gpuskin_pack_dq(m, joints, GPUSKIN_SPLIT_GRAM_SCHMIDT, p->dq, p->res, &p->dq_word), GPUSKIN_SUCCESS);
    free(m);
}

static void tf_free_palettes(tf_palettes *p)
{
    free(p->lbs);
    free(p->dq);
    free(p->res);
}

/* ---- random meshes in any layout ------------------------------------------- */
typedef struct tf_layout {
    int interleaved;        /* one buffer, one record a vertex, at an odd offset */
    uint32_t sets;          /* 1 or 2 */
    gpuskin_joint_type jt;
    int normals, tangents;
    int out_interleaved;    /* outputs in one buffer at an odd offset, gaps between */
} tf_layout;

typedef struct tf_mesh {
    size_t n;
    tf_layout lay;
    unsigned char *in;          /* the input buffer(s) */
    gpuskin_vertex_streams s;
    size_t jsize;
} tf_mesh;

static void tf_put_float(const gpuskin_stream *st, size_t elem, size_t v, int c, float x)
{
    memcpy((char *)(uintptr_t)st->data + v * (st->stride ? st->stride : elem) + (size_t)c * 4, &x, 4);
}
static void tf_put_joint(const tf_mesh *m, uint32_t set, size_t v, int c, uint32_t j)
{
    const gpuskin_stream *st = &m->s.joints[set];
    char *p = (char *)(uintptr_t)st->data + v * (st->stride ? st->stride : 4 * m->jsize) + (size_t)c * m->jsize;
    if (m->jsize == 1) { uint8_t x = (uint8_t)j; memcpy(p, &x, 1); }
    else if (m->jsize == 2) { uint16_t x = (uint16_t)j; memcpy(p, &x, 2); }
    else memcpy(p, &j, 4);
}

/* Weights: 1..k non-zero (some vertices none at all), summing to about 1 but not
   exactly (the path renormalises); zero-weight slots hold out-of-range indices. */
static void tf_make_mesh(tf_mesh *m, size_t n, const tf_layout *lay, uint32_t joints, float size)
{
    size_t v, rec = 0, off[7], jsize = lay->jt == GPUSKIN_JOINT_U8 ? 1 : lay->jt == GPUSKIN_JOINT_U16 ? 2 : 4;
    uint32_t set, k = 4 * lay->sets;
    const size_t elem[7] = {12, 12, 16, 4 * jsize, 16, 4 * jsize, 16};
    int i;
    memset(m, 0, sizeof *m);
    m->n = n;
    m->lay = *lay;
    m->jsize = jsize;
    /* record: pos | normal | tangent | joints0 | weights0 | joints1 | weights1, 3 spare bytes each */
    for (i = 0; i < 7; ++i) { off[i] = rec; rec += elem[i] + 3; }
    if (lay->interleaved) {
        m->in = (unsigned char *)malloc(n * rec + 1);
        for (i = 0; i < 7; ++i) off[i] += 1; /* odd: nothing is aligned */
    } else {
        m->in = (unsigned char *)malloc(n * (12 + 12 + 16 + 2 * (4 * jsize + 16)));
        rec = 0;
        for (i = 0; i < 7; ++i) { off[i] = rec * n; rec += elem[i]; }
    }
    memset(m->in, 0x7F, lay->interleaved ? n * rec + 1 : n * rec); /* 0x7F7F7F7F is a finite float */
#define TF_STREAM(st, idx) do { (st).data = m->in + off[idx]; (st).stride = lay->interleaved ? rec : 0; } while (0)
    TF_STREAM(m->s.positions, 0);
    if (lay->normals) TF_STREAM(m->s.normals, 1);
    if (lay->tangents) TF_STREAM(m->s.tangents, 2);
    TF_STREAM(m->s.joints[0], 3);
    TF_STREAM(m->s.weights[0], 4);
    if (lay->sets == 2) { TF_STREAM(m->s.joints[1], 5); TF_STREAM(m->s.weights[1], 6); }
#undef TF_STREAM
    m->s.vertex_count = n;
    m->s.influence_sets = lay->sets;
    m->s.joint_type = lay->jt;
    for (v = 0; v < n; ++v) {
        uint32_t used = v % 17 == 5 ? 0 : 1 + tf_below(k), c;
        float w[8] = {0, 0, 0, 0, 0, 0, 0, 0}, sum = 0.0f;
        const gpuskin_quat q = tf_quat();
        const float qa[4] = {q.x, q.y, q.z, q.w};
        for (c = 0; c < 3; ++c) tf_put_float(&m->s.positions, 12, v, (int)c, tf_range(-size, size));
        if (lay->normals)
            for (c = 0; c < 3; ++c) tf_put_float(&m->s.normals, 12, v, (int)c, qa[c]);
        if (lay->tangents) {
            for (c = 0; c < 3; ++c) tf_put_float(&m->s.tangents, 16, v, (int)c, qa[c + 1] * 2.0f);
            tf_put_float(&m->s.tangents, 16, v, 3, tf_below(2) ? 1.0f : -1.0f);
        }
        for (c = 0; c < used; ++c) { w[c] = tf_range(0.05f, 1.0f); sum += w[c]; }
        for (c = 0; c < used; ++c) w[c] = w[c] / sum * tf_range(0.9f, 1.1f);
        for (c = 0; c < k; ++c) { /* shuffle the used slots among the k */
            uint32_t o = tf_below(k);
            float t = w[c]; w[c] = w[o]; w[o] = t;
        }
        for (set = 0; set < lay->sets; ++set)
            for (c = 0; c < 4; ++c) {
                const float wc = w[set * 4 + c];
                tf_put_float(&m->s.weights[set], 16, v, (int)c, wc);
                /* garbage where the weight is 0 (within the type's range) */
                tf_put_joint(m, set, v, (int)c, wc != 0.0f ? tf_below(joints) : (jsize == 1 ? 255u : joints + 1000u));
            }
    }
}

static void tf_free_mesh(tf_mesh *m) { free(m->in); }

/* Output buffers: separate packed streams, or one interleaved record with gaps. */
typedef struct tf_out {
    unsigned char *buf;
    size_t bytes;
    gpuskin_out_stream pos, nrm, tan;
} tf_out;

static void tf_make_out(tf_out *o, size_t n, int interleaved)
{
    if (interleaved) {
        const size_t rec = 12 + 4 + 12 + 4 + 16 + 4; /* 4-byte gaps the path must not touch */
        o->bytes = n * rec + 3;
        o->buf = (unsigned char *)malloc(o->bytes);
        o->pos.data = o->buf + 3; o->pos.stride = rec;
        o->nrm.data = o->buf + 3 + 16; o->nrm.stride = rec;
        o->tan.data = o->buf + 3 + 32; o->tan.stride = rec;
    } else {
        o->bytes = n * 40;
        o->buf = (unsigned char *)malloc(o->bytes);
        o->pos.data = o->buf; o->pos.stride = 0;
        o->nrm.data = o->buf + n * 12; o->nrm.stride = 12;
        o->tan.data = o->buf + n * 24; o->tan.stride = 0;
    }
    memset(o->buf, 0xFF, o->bytes); /* NaN everywhere: poisoned */
}

static float tf_get(const gpuskin_out_stream *s, size_t elem, size_t v, int c)
{
    float x;
    memcpy(&x, (const char *)s->data + v * (s->stride ? s->stride : elem) + (size_t)c * 4, 4);
    return x;
}

/* The fast path on `desc` equals the oracle: same result, every output within tol
   (positions) or 1e-5 (unit normals and tangents), bytes the oracle leaves alone
   left alone. Returns the max position error. */
static double tf_compare(gpuskin_cpu_skin_desc desc, size_t n, int interleaved, float size)
{
    tf_out a, b;
    size_t v, i, ea = 7, eb = 7;
    double maxerr = 0.0, tol = 1e-5 * (double)size;
    gpuskin_result ra, rb;
    int c, bad = 0;
    tf_make_out(&a, n, interleaved);
    tf_make_out(&b, n, interleaved);
    desc.out_positions = a.pos; desc.out_normals = a.nrm; desc.out_tangents = a.tan; desc.out_error_index = &ea;
    ra = gpuskin_skin_cpu(&desc);
    desc.out_positions = b.pos; desc.out_normals = b.nrm; desc.out_tangents = b.tan; desc.out_error_index = &eb;
    rb = gpuskin_skin_cpu_fast(&desc);
    CHECK_EQ_INT(rb, ra);
    CHECK_EQ_INT(eb, ea);
    CHECK_EQ_INT(ra, GPUSKIN_SUCCESS);
    for (v = 0; v < n && !bad; ++v) {
        for (c = 0; c < 3; ++c) {
            const double pa = tf_get(&a.pos, 12, v, c), pb = tf_get(&b.pos, 12, v, c);
            if (!(fabs(pa - pb) <= tol)) { bad = 1; fprintf(stderr, "  vertex %zu position[%d]: oracle %.9g fast %.9g\n", v, c, pa, pb); }
            if (fabs(pa - pb) > maxerr) maxerr = fabs(pa - pb);
            if (desc.streams.normals.data) {
                const double na = tf_get(&a.nrm, 12, v, c), nb = tf_get(&b.nrm, 12, v, c);
                if (!(fabs(na - nb) <= 1e-5)) { bad = 1; fprintf(stderr, "  vertex %zu normal[%d]: oracle %.9g fast %.9g\n", v, c, na, nb); }
            }
        }
        if (desc.streams.tangents.data)
            for (c = 0; c < 4; ++c) {
                const double ta = tf_get(&a.tan, 16, v, c), tb = tf_get(&b.tan, 16, v, c);
                if (!(fabs(ta - tb) <= 1e-5)) { bad = 1; fprintf(stderr, "  vertex %zu tangent[%d]: oracle %.9g fast %.9g\n", v, c, ta, tb); }
            }
    }
    CHECK(!bad);
    /* The fast path writes exactly what it must: gaps and absent streams keep their poison. */
    if (interleaved)
        for (v = 0; v < n; ++v) {
            const unsigned char *rec = b.buf + 3 + v * 52;
            for (i = 0; i < 4; ++i) {
                CHECK(rec[12 + i] == 0xFF);
                CHECK(rec[28 + i] == 0xFF);
                CHECK(rec[48 + i] == 0xFF);
            }
            if (!desc.streams.normals.data) CHECK(rec[16] == 0xFF && rec[27] == 0xFF);
            if (!desc.streams.tangents.data) CHECK(rec[32] == 0xFF && rec[47] == 0xFF);
        }
    if (interleaved) CHECK(b.buf[0] == 0xFF && b.buf[1] == 0xFF && b.buf[2] == 0xFF);
    free(a.buf);
    free(b.buf);
    return maxerr;
}

static gpuskin_cpu_skin_desc tf_desc(const tf_mesh *m, const tf_palettes *p, uint32_t method_word)
{
    gpuskin_cpu_skin_desc d;
    memset(&d, 0, sizeof d);
    d.streams = m->s;
    d.joint_count = p->joints;
    d.method_word = method_word;
    d.lbs_palette = p->lbs;
    d.dq_palette = p->dq;
    d.residual_palette = p->res;
    return d;
}

/* ---- skinning: fast == oracle ---------------------------------------------- */

/* 8, 13, 15, 1023: groups of eight (the AVX2 form), then one of four, then 1-3 left. */
static const size_t tf_counts[] = {1, 3, 4, 5, 8, 13, 15, 64, 1023};

/* Every method x influence count x stream set x layout x vertex count. */
static void tf_sweep(unsigned kinds, int dqs)
{
    const float size = 10.0f;
    tf_palettes p;
    size_t ci;
    int variant;
    double worst = 0.0;
    tf_make_palettes(&p, 40, kinds);
    for (variant = 0; variant < 24; ++variant) {
        tf_layout lay;
        uint32_t word;
        lay.sets = 1 + (uint32_t)(variant & 1);
        lay.normals = (variant >> 1) % 3 >= 1;
        lay.tangents = (variant >> 1) % 3 == 2;
        lay.interleaved = (variant >> 2) & 1;
        lay.out_interleaved = (variant >> 3) & 1;
        lay.jt = (gpuskin_joint_type)(variant % 3);
        word = dqs ? p.dq_word : (uint32_t)GPUSKIN_METHOD_LBS;
        for (ci = 0; ci < sizeof tf_counts / sizeof tf_counts[0]; ++ci) {
            tf_mesh m;
            double e;
            tf_make_mesh(&m, tf_counts[ci], &lay, p.joints, size);
            e = tf_compare(tf_desc(&m, &p, word), m.n, lay.out_interleaved, size);
            if (e > worst) worst = e;
            if (gt_case_failed) {
                fprintf(stderr, "  (variant %d: sets %u normals %d tangents %d interleaved %d/%d joint type %d, n %zu, word 0x%x)\n",
                        variant, lay.sets, lay.normals, lay.tangents, lay.interleaved, lay.out_interleaved, (int)lay.jt,
                        m.n, word);
                tf_free_mesh(&m);
                tf_free_palettes(&p);
                return;
            }
            tf_free_mesh(&m);
        }
    }
    printf("  worst position difference %.3g (model size %.0f)\n", worst, (double)size);
    tf_free_palettes(&p);
}

static void test_lbs_rigid(void) { tf_sweep(1u << TF_RIGID, 0); }

/* The sixteen- and eight-lane LBS forms read a copy of the palette, a cache line
   a joint, when the palette has at most 128 joints (GPUSKIN_FAST_COPY_JOINTS) and
   the call at least four vertices a joint. The copy must change no bit: 1,024
   vertices skinned in one call (copied up to 128 joints) equal, bit for bit, the
   same vertices skinned in calls of fewer than four vertices a joint (never
   copied; a multiple of 16, so every vertex meets the same neighbours in its
   group of sixteen). 129 and 300 joints: neither
   call copies, and the two still agree. Scaled, mirrored and degenerate joints;
   one influence set without tangents (the sixteen-lane form where the CPU has
   AVX-512F), two sets, tangents (the eight-lane form). */
static void test_lbs_palette_copy_limits(void)
{
    static const uint32_t joint_counts[] = {5, 64, 127, 128, 129, 300};
    const size_t n = 1024;
    size_t ji;
    for (ji = 0; ji < sizeof joint_counts / sizeof joint_counts[0]; ++ji) {
        const uint32_t joints = joint_counts[ji];
        const size_t below_copy = (4u * joints - 1u) / 16u * 16u; /* < 4 vertices a joint, a multiple of 16 */
        const size_t chunk = below_copy < 1008u ? below_copy : 1008u;
        tf_palettes p;
        tf_layout lay;
        tf_mesh m;
        tf_out whole, parts;
        gpuskin_cpu_skin_desc d;
        size_t v0, differ = 0;
        int variant;
        tf_make_palettes(&p, joints, 0xFu);
        for (variant = 0; variant < 9; ++variant) {
            const int jt = variant % 3;
            memset(&lay, 0, sizeof lay);
            lay.sets = variant / 3 == 1 ? 2 : 1;
            lay.normals = 1;
            lay.tangents = variant / 3 == 2;
            lay.jt = (gpuskin_joint_type)jt;
            tf_make_mesh(&m, n, &lay, joints, 10.0f);
            tf_make_out(&whole, n, 0);
            tf_make_out(&parts, n, 0);
            d = tf_desc(&m, &p, GPUSKIN_METHOD_LBS);
            d.out_positions = whole.pos;
            d.out_normals = whole.nrm;
            d.out_tangents = whole.tan;
            CHECK_EQ_INT(gpuskin_skin_cpu_fast(&d), GPUSKIN_SUCCESS);
            for (v0 = 0; v0 < n; v0 += chunk) {
                gpuskin_cpu_skin_desc c = d;
                const size_t count = n - v0 < chunk ? n - v0 : chunk;
                c.streams.vertex_count = count;
                c.streams.positions.data = (const char *)m.s.positions.data + v0 * 12;
                c.streams.normals.data = (const char *)m.s.normals.data + v0 * 12;
                c.streams.joints[0].data = (const char *)m.s.joints[0].data + v0 * 4 * m.jsize;
                c.streams.weights[0].data = (const char *)m.s.weights[0].data + v0 * 16;
                if (lay.sets == 2) {
                    c.streams.joints[1].data = (const char *)m.s.joints[1].data + v0 * 4 * m.jsize;
                    c.streams.weights[1].data = (const char *)m.s.weights[1].data + v0 * 16;
                }
                if (lay.tangents) c.streams.tangents.data = (const char *)m.s.tangents.data + v0 * 16;
                c.out_positions.data = (char *)parts.pos.data + v0 * 12;
                c.out_normals.data = (char *)parts.nrm.data + v0 * 12;
                c.out_tangents.data = (char *)parts.tan.data + v0 * 16;
                CHECK_EQ_INT(gpuskin_skin_cpu_fast(&c), GPUSKIN_SUCCESS);
            }
            differ = 0;
            for (v0 = 0; v0 < whole.bytes; ++v0) differ += whole.buf[v0] != parts.buf[v0];
            CHECK(differ == 0);
            if (differ)
                fprintf(stderr, "  %u joints, sets %u, tangents %d, joint type %d: %zu bytes differ\n", joints, lay.sets,
                        lay.tangents, jt, differ);
            free(whole.buf);
            free(parts.buf);
            tf_free_mesh(&m);
        }
        tf_free_palettes(&p);
    }
}

static void test_lbs_scaled_mirrored_degenerate(void) { tf_sweep(0xFu, 0); }
static void test_dqs_rigid(void)
{
    tf_palettes p;
    tf_make_palettes(&p, 8, 1u << TF_RIGID);
    CHECK_EQ_INT(p.dq_word, GPUSKIN_METHOD_DQS); /* the sweep below really is rigid */
    tf_free_palettes(&p);
    tf_sweep(1u << TF_RIGID, 1);
}
static void test_dqs_residual(void)
{
    tf_palettes p;
    tf_make_palettes(&p, 8, 0xFu);
    CHECK_EQ_INT(p.dq_word, GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT);
    tf_free_palettes(&p);
    tf_sweep(0xFu, 1);
}

/* Antipodal influences: q and -q, and rotations 180 degrees apart; a tie on the
   highest weight (the pivot is the first); half/half rings. */
static void test_dqs_antipodal_and_ties(void)
{
    tf_palettes p;
    tf_layout lay;
    tf_mesh m;
    size_t v;
    uint32_t j;
    memset(&lay, 0, sizeof lay);
    lay.sets = 2; lay.normals = 1; lay.jt = GPUSKIN_JOINT_U16;
    tf_make_palettes(&p, 16, 1u << TF_RIGID);
    for (j = 1; j < 16; j += 2) /* odd joints: the negated quaternion of their neighbour */
        for (v = 0; v < 8; ++v) p.dq[j * 8 + v] = -p.dq[(j - 1) * 8 + v];
    tf_make_mesh(&m, 257, &lay, 16, 5.0f);
    for (v = 0; v < m.n; ++v) {
        int c;
        for (c = 0; c < 4; ++c) {
            tf_put_float(&m.s.weights[0], 16, v, c, c < 2 ? 0.5f : 0.0f);
            tf_put_float(&m.s.weights[1], 16, v, c, c == 1 && v % 2 ? 0.5f : 0.0f); /* a tie across the sets */
            tf_put_joint(&m, 0, v, c, (uint32_t)((v + (size_t)c) % 16));
            tf_put_joint(&m, 1, v, c, (uint32_t)((v * 3 + (size_t)c) % 16));
        }
    }
    tf_compare(tf_desc(&m, &p, GPUSKIN_METHOD_DQS), m.n, 0, 5.0f);
    tf_free_mesh(&m);
    tf_free_palettes(&p);
}

/* A joint matrix collapsed to rank 1 or 0 (the normal falls back to A itself), and
   every vertex on it: the singular branch taken for whole groups and single lanes. */
static void test_singular_blends(void)
{
    tf_palettes p;
    tf_layout lay;
    tf_mesh m;
    size_t v;
    memset(&lay, 0, sizeof lay);
    lay.sets = 1; lay.normals = 1; lay.tangents = 1; lay.jt = GPUSKIN_JOINT_U8;
    tf_make_palettes(&p, 4, 1u << TF_RIGID);
    memset(p.lbs, 0, 12 * sizeof(float)); /* joint 0: all zero (det 0, n' = 0) */
    p.lbs[12 + 0] = 2.0f;                  /* joint 1: rank 1 */
    memset(p.lbs + 12 + 1, 0, 11 * sizeof(float));
    p.lbs[12 + 3] = 1.0f;
    tf_make_mesh(&m, 37, &lay, 4, 3.0f);
    for (v = 0; v < m.n; ++v) {
        int c;
        for (c = 0; c < 4; ++c) {
            tf_put_float(&m.s.weights[0], 16, v, c, c == 0 ? 1.0f : 0.0f);
            tf_put_joint(&m, 0, v, c, v % 5 == 0 ? 2u : (uint32_t)(v % 2));
        }
    }
    tf_compare(tf_desc(&m, &p, GPUSKIN_METHOD_LBS), m.n, 1, 3.0f);
    tf_free_mesh(&m);
    tf_free_palettes(&p);
}

/* Weights the vector scan cannot clear on its own (-0, above 1e37 but summing to a
   finite value): the exact check must let them through, the results still equal. */
static void test_scan_false_positives(void)
{
    tf_palettes p;
    tf_layout lay;
    tf_mesh m;
    memset(&lay, 0, sizeof lay);
    lay.sets = 1; lay.normals = 1; lay.jt = GPUSKIN_JOINT_U16;
    tf_make_palettes(&p, 6, 1u << TF_SCALED);
    tf_make_mesh(&m, 200, &lay, 6, 2.0f);
    tf_put_float(&m.s.weights[0], 16, 3, 0, -0.0f);
    tf_put_float(&m.s.weights[0], 16, 130, 0, 2e37f);
    tf_put_float(&m.s.weights[0], 16, 130, 1, 3e37f);
    tf_put_joint(&m, 0, 130, 0, 1);
    tf_put_joint(&m, 0, 130, 1, 2);
    tf_compare(tf_desc(&m, &p, GPUSKIN_METHOD_LBS), m.n, 0, 2.0f);
    tf_free_mesh(&m);
    tf_free_palettes(&p);
}

/* Denormal weights count as 0 (the oracle flushes them, as GPUs may): positive and
   negative ones, with garbage joint indices, alone (an unweighted vertex) or beside
   real weights; and the pivot of DQS ignores them. */
static void test_denormal_weights(void)
{
    tf_palettes p;
    tf_layout lay;
    tf_mesh m;
    size_t v;
    int word;
    memset(&lay, 0, sizeof lay);
    lay.sets = 2; lay.normals = 1; lay.jt = GPUSKIN_JOINT_U16;
    tf_make_palettes(&p, 9, 0xFu);
    tf_make_mesh(&m, 61, &lay, 9, 2.0f);
    for (v = 0; v < m.n; ++v) {
        const float tiny = v % 2 ? 1e-39f : -1e-40f;
        tf_put_float(&m.s.weights[v % 3 == 0], 16, v, (int)(v % 4), tiny);
        tf_put_joint(&m, v % 3 == 0, v, (int)(v % 4), 40000u); /* garbage, and never read */
        if (v % 7 == 0) { /* nothing but denormals: the bind pose */
            int c;
            for (c = 0; c < 4; ++c) {
                tf_put_float(&m.s.weights[0], 16, v, c, c == 1 ? 3e-39f : 0.0f);
                tf_put_float(&m.s.weights[1], 16, v, c, 0.0f);
            }
        }
    }
    for (word = 0; word < 2; ++word) tf_compare(tf_desc(&m, &p, word ? p.dq_word : 0u), m.n, 0, 2.0f);
    tf_free_mesh(&m);
    tf_free_palettes(&p);
}

/* Every stream in its own allocation of exactly n elements, inputs and outputs, so
   that ASan sees any read or write past the last element (the path reads 16 bytes
   for a float[3] only when another element follows). */
static void test_exact_allocations(void)
{
    tf_palettes p;
    size_t ci;
    tf_make_palettes(&p, 12, 0xFu);
    for (ci = 0; ci < sizeof tf_counts / sizeof tf_counts[0]; ++ci) {
        const size_t n = tf_counts[ci];
        int word;
        for (word = 0; word < 2; ++word) {
            tf_layout lay;
            tf_mesh m;
            gpuskin_cpu_skin_desc d;
            void *own[7], *out[6];
            const size_t jbytes = 4 * 2;
            size_t v;
            int i, c;
            memset(&lay, 0, sizeof lay);
            lay.sets = 2; lay.normals = 1; lay.tangents = 1; lay.jt = GPUSKIN_JOINT_U16;
            tf_make_mesh(&m, n, &lay, 12, 4.0f);
            d = tf_desc(&m, &p, word ? p.dq_word : (uint32_t)GPUSKIN_METHOD_LBS);
            own[0] = malloc(n * 12); memcpy(own[0], m.s.positions.data, n * 12); d.streams.positions.data = own[0];
            own[1] = malloc(n * 12); memcpy(own[1], m.s.normals.data, n * 12); d.streams.normals.data = own[1];
            own[2] = malloc(n * 16); memcpy(own[2], m.s.tangents.data, n * 16); d.streams.tangents.data = own[2];
            for (i = 0; i < 2; ++i) {
                own[3 + i] = malloc(n * jbytes); memcpy(own[3 + i], m.s.joints[i].data, n * jbytes); d.streams.joints[i].data = own[3 + i];
                own[5 + i] = malloc(n * 16); memcpy(own[5 + i], m.s.weights[i].data, n * 16); d.streams.weights[i].data = own[5 + i];
            }
            for (i = 0; i < 6; ++i) out[i] = malloc(n * (i % 3 == 2 ? 16 : 12));
            d.out_positions.data = out[0]; d.out_normals.data = out[1]; d.out_tangents.data = out[2];
            CHECK_EQ_INT(gpuskin_skin_cpu(&d), GPUSKIN_SUCCESS);
            d.out_positions.data = out[3]; d.out_normals.data = out[4]; d.out_tangents.data = out[5];
            CHECK_EQ_INT(gpuskin_skin_cpu_fast(&d), GPUSKIN_SUCCESS);
            for (v = 0; v < n * 3; ++v) {
                CHECK_NEAR(((float *)out[0])[v], ((float *)out[3])[v], 4e-5);
                CHECK_NEAR(((float *)out[1])[v], ((float *)out[4])[v], 1e-5);
            }
            for (v = 0; v < n * 4; ++v) CHECK_NEAR(((float *)out[2])[v], ((float *)out[5])[v], 1e-5);
            for (c = 0; c < 7; ++c) free(own[c]);
            for (c = 0; c < 6; ++c) free(out[c]);
            tf_free_mesh(&m);
        }
    }
    tf_free_palettes(&p);
}

/* ---- finite inputs that overflow ------------------------------------------ */

/* Vertex v takes joint 0 alone (weight 1) and sits at (x, 0, 0). */
static void tf_put_lone(tf_mesh *m, size_t v, float x)
{
    uint32_t set;
    int c;
    for (set = 0; set < m->lay.sets; ++set)
        for (c = 0; c < 4; ++c) {
            tf_put_float(&m->s.weights[set], 16, v, c, set == 0 && c == 0 ? 1.0f : 0.0f);
            tf_put_joint(m, set, v, c, 0);
        }
    tf_put_float(&m->s.positions, 12, v, 0, x);
    tf_put_float(&m->s.positions, 12, v, 1, 0.0f);
    tf_put_float(&m->s.positions, 12, v, 2, 0.0f);
}

/* Every joint rotates and scales by 3. A position of 3e38 then leaves float's
   range (whatever the rotation, one coordinate of its 9e38 image is at least
   5.2e38): both paths stop at the first such vertex with GPUSKIN_ERROR_NON_FINITE
   and its index, never returning success with inf or NaN. 2e37 becomes 6e37,
   well within float (a quaternion rotation's partial sums reach 4x its input):
   no false alarm. LBS and DQS with the residual, packed and
   interleaved streams, 1 and 2 sets, with and without normals and tangents. */
static void test_overflow_reported(void)
{
    static const size_t counts[] = {1, 5, 13, 64, 1023};
    gpuskin_mat4 mats[6];
    tf_palettes p;
    uint32_t j;
    int variant;
    p.joints = 6;
    p.lbs = (float *)malloc(6 * 12 * sizeof(float));
    p.dq = (float *)malloc(6 * 8 * sizeof(float));
    p.res = (float *)malloc(6 * 12 * sizeof(float));
    for (j = 0; j < 6; ++j) {
        gpuskin_trs t = gpuskin_trs_identity();
        t.rotation = tf_quat();
        t.scale.x = t.scale.y = t.scale.z = 3.0f;
        t.translation.y = 1.0f;
        mats[j] = gpuskin_mat4_from_trs(&t);
    }
    CHECK_EQ_INT(gpuskin_pack_lbs(mats, 6, p.lbs), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(gpuskin_pack_dq(mats, 6, GPUSKIN_SPLIT_GRAM_SCHMIDT, p.dq, p.res, &p.dq_word), GPUSKIN_SUCCESS);
    CHECK(p.dq_word & GPUSKIN_METHOD_RESIDUAL_BIT);
    for (variant = 0; variant < 24 && !gt_case_failed; ++variant) {
        const uint32_t word = variant & 1 ? p.dq_word : (uint32_t)GPUSKIN_METHOD_LBS;
        tf_layout lay;
        size_t ci;
        memset(&lay, 0, sizeof lay);
        lay.sets = 1 + (uint32_t)((variant >> 1) & 1);
        lay.normals = (variant >> 2) % 3 >= 1;
        lay.tangents = (variant >> 2) % 3 == 2;
        lay.interleaved = variant >= 12;
        lay.out_interleaved = variant >= 12;
        lay.jt = GPUSKIN_JOINT_U16;
        for (ci = 0; ci < sizeof counts / sizeof counts[0] && !gt_case_failed; ++ci) {
            const size_t n = counts[ci], bad = n / 2 + (n > 2), fine = n / 3;
            size_t ea = 7, eb = 9, v;
            gpuskin_cpu_skin_desc d;
            gpuskin_result ra, rb;
            tf_out a, b;
            tf_mesh m;
            int c, finite = 1;
            tf_make_mesh(&m, n, &lay, p.joints, 10.0f);
            tf_make_out(&a, n, lay.out_interleaved);
            tf_make_out(&b, n, lay.out_interleaved);
            d = tf_desc(&m, &p, word);
            tf_put_lone(&m, fine, 2e37f);
            /* first only the one that stays a float */
            d.out_positions = b.pos; d.out_normals = b.nrm; d.out_tangents = b.tan; d.out_error_index = &eb;
            CHECK_EQ_INT(gpuskin_skin_cpu_fast(&d), GPUSKIN_SUCCESS);
            d.out_positions = a.pos; d.out_normals = a.nrm; d.out_tangents = a.tan; d.out_error_index = &ea;
            CHECK_EQ_INT(gpuskin_skin_cpu(&d), GPUSKIN_SUCCESS);
            for (v = 0; v < n; ++v)
                for (c = 0; c < 3; ++c) finite &= gpuskin__finite(tf_get(&a.pos, 12, v, c)) & gpuskin__finite(tf_get(&b.pos, 12, v, c));
            CHECK(finite);
            CHECK(fabs(tf_get(&b.pos, 12, fine, 0)) + fabs(tf_get(&b.pos, 12, fine, 1)) + fabs(tf_get(&b.pos, 12, fine, 2)) > 5e37);
            /* then a vertex that overflows, and another after it: the first is reported */
            if (n > 1) tf_put_lone(&m, n - 1, -3e38f);
            if (bad < n) tf_put_lone(&m, bad, 3e38f);
            ra = gpuskin_skin_cpu(&d);
            d.out_positions = b.pos; d.out_normals = b.nrm; d.out_tangents = b.tan; d.out_error_index = &eb;
            rb = gpuskin_skin_cpu_fast(&d);
            CHECK_EQ_INT(ra, GPUSKIN_ERROR_NON_FINITE);
            CHECK_EQ_INT(rb, GPUSKIN_ERROR_NON_FINITE);
            CHECK_EQ_INT(ea, bad < n ? bad : n - 1);
            CHECK_EQ_INT(eb, ea);
            if (gt_case_failed)
                fprintf(stderr, "  (variant %d: sets %u normals %d tangents %d interleaved %d, n %zu, word 0x%x)\n", variant,
                        lay.sets, lay.normals, lay.tangents, lay.interleaved, n, word);
            free(a.buf);
            free(b.buf);
            tf_free_mesh(&m);
        }
    }
    /* LBS skips the scan when nothing can overflow (gpuskin__fast_lbs_small and the
       validation's magnitude flags): a palette of 1e30 entries must not be taken for
       such, even when every position is small (1e9 here, below the 2^40 flag) */
    for (variant = 0; variant < 3 && !gt_case_failed; ++variant) { /* (normals: the fast forms' 1/sqrt of inf is 0) */
        tf_layout lay;
        tf_mesh m;
        tf_out a, b;
        gpuskin_cpu_skin_desc d;
        size_t ea = 7, eb = 9;
        uint32_t e;
        memset(&lay, 0, sizeof lay);
        lay.sets = 1;
        lay.normals = variant >= 1;
        lay.tangents = variant == 2;
        lay.jt = GPUSKIN_JOINT_U16;
        tf_make_mesh(&m, 64, &lay, p.joints, 10.0f);
        tf_make_out(&a, 64, 0);
        tf_make_out(&b, 64, 0);
        CHECK_EQ_INT(gpuskin_pack_lbs(mats, 6, p.lbs), GPUSKIN_SUCCESS);
        for (e = 0; e < 6 * 12; ++e) p.lbs[e] *= e % 4 == 3 ? 1.0f : 1e30f / 3.0f; /* 3x3 parts: rotation x 1e30 */
        tf_put_lone(&m, 40, 1e9f);
        d = tf_desc(&m, &p, GPUSKIN_METHOD_LBS);
        d.out_positions = a.pos; d.out_normals = a.nrm; d.out_tangents = a.tan; d.out_error_index = &ea;
        CHECK_EQ_INT(gpuskin_skin_cpu(&d), GPUSKIN_ERROR_NON_FINITE);
        d.out_positions = b.pos; d.out_normals = b.nrm; d.out_tangents = b.tan; d.out_error_index = &eb;
        CHECK_EQ_INT(gpuskin_skin_cpu_fast(&d), GPUSKIN_ERROR_NON_FINITE);
        CHECK_EQ_INT(ea, 40);
        CHECK_EQ_INT(eb, 40);
        free(a.buf);
        free(b.buf);
        tf_free_mesh(&m);
    }
    tf_free_palettes(&p);
}

/* ---- random input, bad input among it ------------------------------------- */

/* A float that is usually ordinary, and 1 time in 30 NaN, an infinity, a huge or
   tiny finite value, a denormal or a signed zero. */
static float tf_wild(float a, float b)
{
    static const float odd[] = {0.0f, -0.0f, 1e30f, -1e30f, FLT_MAX, -FLT_MAX, 3e38f, 1e19f, 1e-40f, 1e-30f};
    switch (tf_below(30) == 0 ? tf_below(13) : 99) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 99: return tf_range(a, b);
    default: return odd[tf_below(sizeof odd / sizeof odd[0])];
    }
}
static gpuskin_trs tf_wild_trs(void)
{
    gpuskin_trs t;
    t.translation.x = tf_wild(-3, 3); t.translation.y = tf_wild(-3, 3); t.translation.z = tf_wild(-3, 3);
    t.rotation.x = tf_wild(-1, 1); t.rotation.y = tf_wild(-1, 1); t.rotation.z = tf_wild(-1, 1); t.rotation.w = tf_wild(-1, 1);
    t.scale.x = tf_wild(-2, 2); t.scale.y = tf_wild(-2, 2); t.scale.z = tf_wild(-2, 2);
    return t;
}
static gpuskin_mat4 tf_wild_matrix(void)
{
    gpuskin_mat4 m;
    int e;
    if (tf_below(3) == 0) {
        const gpuskin_trs t = tf_wild_trs();
        return gpuskin_mat4_from_trs(&t);
    }
    for (e = 0; e < 16; ++e) m.m[e] = tf_wild(-2, 2);
    if (tf_below(8)) m.m[3] = m.m[7] = m.m[11] = 0.0f, m.m[15] = 1.0f;
    return m;
}
/* Two paths' results agree, or, near float's limits, one overflowed where the
   other's rounding did not. */
static int tf_agree(gpuskin_result a, gpuskin_result b)
{
    return a == b || (a == GPUSKIN_SUCCESS && b == GPUSKIN_ERROR_NON_FINITE) ||
           (b == GPUSKIN_SUCCESS && a == GPUSKIN_ERROR_NON_FINITE);
}

/* Thousands of random calls of the CPU entry points, with NaN, infinities,
   huge, tiny and denormal values, out-of-range joints and bad method words mixed
   in: a known result code every time, no success with a non-finite output, and
   the oracle and the fast path (gpuskin_pack_dq and _fast, the reference loop
   and gpuskin_build_palettes) agreeing. Under the sanitizers (test_fast_san)
   any out-of-bounds read or undefined operation fails the run. */
static void test_random_bad_input(void)
{
    int it, reported = 0;
    tf_seed(4242u);
    for (it = 0; it < 3000 && reported < 5; ++it) {
        const int before = gt_case_failed;
        gt_case_failed = 0;
        if (it % 3 == 0) { /* skinning */
            const size_t n = 1 + tf_below(tf_below(4) ? 40 : 300);
            const uint32_t jc = 1 + tf_below(tf_below(4) ? 20 : 200), sets = 1 + tf_below(2);
            gpuskin_mat4 *m = (gpuskin_mat4 *)malloc(jc * sizeof *m);
            float *in = (float *)malloc(n * (12 + 16 + 32) * sizeof(float));
            uint32_t *jn = (uint32_t *)malloc(n * 8 * sizeof(uint32_t));
            float *lbs = (float *)malloc(jc * 12 * sizeof(float)), *dq = (float *)malloc(jc * 8 * sizeof(float));
            float *res = (float *)malloc(jc * 12 * sizeof(float)), *oa = (float *)malloc(n * 10 * sizeof(float));
            float *ob = (float *)malloc(n * 10 * sizeof(float));
            gpuskin_cpu_skin_desc d;
            gpuskin_result ra, rb;
            size_t i, ea = 1, eb = 2;
            uint32_t j, word = 0;
            for (i = 0; i < n * 10; ++i) in[i] = tf_wild(-3, 3);
            for (i = 0; i < n * 8; ++i) {
                in[n * 10 + i] = tf_below(4) == 0 ? 0.0f : tf_wild(0, 1);
                jn[i] = tf_below(40) ? tf_below(jc) : (uint32_t)tf_u64();
            }
            for (j = 0; j < jc; ++j) m[j] = tf_wild_matrix();
            memset(&d, 0, sizeof d);
            d.streams.vertex_count = n;
            d.streams.positions.data = in;
            d.streams.normals.data = tf_below(2) ? in + n * 3 : NULL;
            d.streams.tangents.data = tf_below(3) ? NULL : in + n * 6;
            d.streams.influence_sets = sets;
            d.streams.joint_type = GPUSKIN_JOINT_U32;
            d.streams.joints[0].data = jn; d.streams.joints[1].data = jn + n * 4;
            d.streams.weights[0].data = in + n * 10; d.streams.weights[1].data = in + n * 14;
            d.joint_count = jc;
            if (tf_below(2)) {
                if (gpuskin_pack_lbs(m, jc, lbs) != GPUSKIN_SUCCESS)
                    for (j = 0; j < jc * 12; ++j) lbs[j] = tf_wild(-2, 2);
                d.method_word = GPUSKIN_METHOD_LBS;
            } else {
                if (gpuskin_pack_dq(m, jc, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word) != GPUSKIN_SUCCESS) {
                    for (j = 0; j < jc * 8; ++j) dq[j] = tf_wild(-1, 1);
                    for (j = 0; j < jc * 12; ++j) res[j] = tf_wild(-2, 2);
                    word = GPUSKIN_METHOD_DQS | (tf_below(2) ? GPUSKIN_METHOD_RESIDUAL_BIT : 0u);
                } else if (tf_below(2)) {
                    CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, jc, &word), GPUSKIN_SUCCESS);
                }
                d.method_word = tf_below(50) ? word : (uint32_t)tf_u64();
            }
            d.lbs_palette = lbs; d.dq_palette = dq; d.residual_palette = res;
            d.out_positions.data = oa; d.out_normals.data = oa + n * 3; d.out_tangents.data = oa + n * 6;
            d.out_error_index = &ea;
            ra = gpuskin_skin_cpu(&d);
            d.out_positions.data = ob; d.out_normals.data = ob + n * 3; d.out_tangents.data = ob + n * 6;
            d.out_error_index = &eb;
            rb = gpuskin_skin_cpu_fast(&d);
            CHECK(ra >= 0 && ra < GPUSKIN_RESULT_COUNT_ && rb >= 0 && rb < GPUSKIN_RESULT_COUNT_);
            CHECK(tf_agree(ra, rb));
            if (ra == rb && ra != GPUSKIN_SUCCESS && eb != ea) { /* only an overflow near the limit may differ */
                const size_t v = ea < eb ? ea : eb;
                CHECK(ra == GPUSKIN_ERROR_NON_FINITE);
                CHECK(gpuskin__all_finite(in + v * 3, 3) && gpuskin__all_finite(in + n * 3 + v * 3, 3) && gpuskin__all_finite(in + n * 6 + v * 4, 4));
            }
            if (ra == GPUSKIN_SUCCESS) {
                CHECK(gpuskin__all_finite(oa, n * 3));
                if (d.streams.normals.data) CHECK(gpuskin__all_finite(oa + n * 3, n * 3));
                if (d.streams.tangents.data) CHECK(gpuskin__all_finite(oa + n * 6, n * 4));
            }
            if (rb == GPUSKIN_SUCCESS) {
                CHECK(gpuskin__all_finite(ob, n * 3));
                if (d.streams.normals.data) CHECK(gpuskin__all_finite(ob + n * 3, n * 3));
                if (d.streams.tangents.data) CHECK(gpuskin__all_finite(ob + n * 6, n * 4));
            }
            if (gt_case_failed) fprintf(stderr, "  iteration %d: skinning, oracle %s (%zu), fast %s (%zu)\n", it,
                                        gpuskin_result_string(ra), ea, gpuskin_result_string(rb), eb);
            free(m); free(in); free(jn); free(lbs); free(dq); free(res); free(oa); free(ob);
        } else if (it % 3 == 1) { /* the split and its packers; the blends */
            const uint32_t n = 1 + tf_below(70);
            const gpuskin_split_method sm = (gpuskin_split_method)tf_below(tf_below(30) ? 2 : 5);
            gpuskin_mat4 *m = (gpuskin_mat4 *)malloc(2 * n * sizeof *m), *mo = (gpuskin_mat4 *)malloc(n * sizeof *mo);
            gpuskin_trs *ta = (gpuskin_trs *)malloc(2 * n * sizeof *ta), *to = (gpuskin_trs *)malloc(n * sizeof *to);
            float *dqa = (float *)malloc(n * 20 * sizeof(float)), *dqb = (float *)malloc(n * 20 * sizeof(float));
            const float t = tf_wild(-1, 2);
            uint32_t j, wa = 0, wb = 0;
            gpuskin_result ra, rb;
            for (j = 0; j < 2 * n; ++j) {
                m[j] = tf_wild_matrix();
                ta[j] = tf_wild_trs();
            }
            ra = gpuskin_pack_dq(m, n, sm, dqa, dqa + n * 8, &wa);
            rb = gpuskin_pack_dq_fast(m, n, sm, dqb, dqb + n * 8, &wb);
            CHECK_EQ_INT(rb, ra);
            if (ra == GPUSKIN_SUCCESS) {
                CHECK_EQ_INT(wb, wa);
                CHECK(gpuskin__all_finite(dqa, n * 20) && gpuskin__all_finite(dqb, n * 20));
            }
            ra = gpuskin_pose_blend(ta, ta + n, n, t, to);
            if (ra == GPUSKIN_SUCCESS) CHECK(gpuskin__all_finite(&to[0].translation.x, n * 10));
            else CHECK(ra == GPUSKIN_ERROR_NON_FINITE || ra == GPUSKIN_ERROR_INVALID_ARGUMENT);
            ra = gpuskin_palette_lerp(m, m + n, n, t, mo);
            if (ra == GPUSKIN_SUCCESS) CHECK(gpuskin__all_finite(mo[0].m, n * 16));
            else CHECK(ra == GPUSKIN_ERROR_NON_FINITE || ra == GPUSKIN_ERROR_INVALID_ARGUMENT);
            if (gt_case_failed) fprintf(stderr, "  iteration %d: split / blends (%u matrices, method %d)\n", it, n, (int)sm);
            free(m); free(mo); free(ta); free(to); free(dqa); free(dqb);
        } else { /* skeletons and palettes */
            const uint32_t n = 1 + tf_below(tf_below(4) ? 30 : 200), inst = 1 + tf_below(tf_below(3) ? 5 : 40);
            int32_t *par = (int32_t *)malloc(n * sizeof *par);
            gpuskin_mat4 *ib = (gpuskin_mat4 *)malloc(n * sizeof *ib), *rpg = (gpuskin_mat4 *)malloc(n * sizeof *rpg);
            gpuskin_mat4 *models = (gpuskin_mat4 *)malloc(inst * sizeof *models);
            gpuskin_mat4 *ref = (gpuskin_mat4 *)malloc((size_t)n * inst * sizeof *ref);
            gpuskin_trs *rest = (gpuskin_trs *)malloc(n * sizeof *rest), *poses = (gpuskin_trs *)malloc((size_t)n * inst * sizeof *poses);
            float *lbs = (float *)malloc((size_t)n * inst * 12 * sizeof(float));
            gpuskin_skeleton_desc sd;
            gpuskin_skeleton sk;
            gpuskin_result r;
            uint32_t j, i;
            for (j = 0; j < n; ++j) {
                par[j] = tf_below(25) == 0 ? (int32_t)tf_below(n + 3) - 2 : j == 0 || tf_below(8) == 0 ? -1 : (int32_t)tf_below(j);
                ib[j] = tf_wild_matrix(); rpg[j] = tf_wild_matrix();
                rest[j].translation.x = tf_wild(-3, 3); rest[j].translation.y = tf_wild(-3, 3); rest[j].translation.z = tf_wild(-3, 3);
                rest[j].rotation = tf_quat();
                rest[j].scale.x = rest[j].scale.y = rest[j].scale.z = tf_wild(0.5f, 2);
            }
            for (i = 0; i < inst; ++i) models[i] = tf_wild_matrix();
            for (j = 0; j < n * inst; ++j) poses[j] = tf_wild_trs();
            memset(&sd, 0, sizeof sd);
            sd.joint_count = n; sd.parents = par;
            sd.inverse_bind = tf_below(5) ? ib : NULL; sd.rest_pose = tf_below(5) ? rest : NULL;
            sd.root_parent_globals = tf_below(3) ? rpg : NULL;
            r = gpuskin_skeleton_init(&sk, &sd);
            CHECK(r >= 0 && r < GPUSKIN_RESULT_COUNT_);
            if (r == GPUSKIN_SUCCESS) {
                gpuskin_palette_batch_desc d;
                gpuskin_result rf, rr = GPUSKIN_SUCCESS;
                memset(&d, 0, sizeof d);
                d.skeleton = &sk; d.instance_count = inst;
                d.models = tf_below(4) ? models : NULL; d.local_poses = tf_below(6) ? poses : NULL; d.out_lbs = lbs;
                rf = gpuskin_build_palettes(&d);
                for (i = 0; i < inst && rr == GPUSKIN_SUCCESS; ++i) {
                    gpuskin_mat4 *pl = ref + (size_t)i * n;
                    rr = gpuskin_skeleton_globals(&sk, d.local_poses ? d.local_poses + (size_t)i * n : NULL, pl);
                    if (rr == GPUSKIN_SUCCESS) rr = gpuskin_skeleton_palette(&sk, d.models ? &d.models[i] : NULL, pl, pl);
                }
                CHECK(tf_agree(rf, rr));
                if (rf == GPUSKIN_SUCCESS) CHECK(gpuskin__all_finite(lbs, (size_t)n * inst * 12));
                if (rr == GPUSKIN_SUCCESS) CHECK(gpuskin__all_finite(ref[0].m, (size_t)n * inst * 16));
                if (gt_case_failed) fprintf(stderr, "  iteration %d: %u joints x %u instances: build_palettes %s, reference %s\n",
                                            it, n, inst, gpuskin_result_string(rf), gpuskin_result_string(rr));
                gpuskin_skeleton_free(&sk);
            }
            free(par); free(ib); free(rpg); free(models); free(ref); free(rest); free(poses); free(lbs);
        }
        if (gt_case_failed) ++reported;
        gt_case_failed |= before;
    }
    printf("  %d random calls\n", it);
}

/* ---- validation: every error of the oracle, with its index --------------- */

typedef void (*tf_breaker)(gpuskin_cpu_skin_desc *d, tf_mesh *m, tf_palettes *p);

static int tf_reported; /* failures described so far (the rest are only counted) */

/* Runs oracle and fast path on d (outputs in o, poisoned first): same result, same
   index, and on error nothing written, like the oracle. */
static void tf_expect_same_error(gpuskin_cpu_skin_desc d, tf_out *o, gpuskin_result want, const char *what)
{
    size_t ea = 12345, eb = 54321, i;
    gpuskin_result ra, rb;
    int untouched = 1;
    d.out_error_index = &ea;
    ra = gpuskin_skin_cpu(&d);
    memset(o->buf, 0xFF, o->bytes);
    d.out_error_index = &eb;
    rb = gpuskin_skin_cpu_fast(&d);
    if ((ra != want || rb != ra || eb != ea) && ++tf_reported <= 5)
        fprintf(stderr, "  %s: oracle %s (index %zu), fast %s (index %zu), expected %s\n", what, gpuskin_result_string(ra),
                ea, gpuskin_result_string(rb), eb, gpuskin_result_string(want));
    CHECK_EQ_INT(ra, want);
    CHECK_EQ_INT(rb, ra);
    CHECK_EQ_INT(eb, ea);
    if (want != GPUSKIN_SUCCESS) {
        for (i = 0; i < o->bytes; ++i) untouched &= o->buf[i] == 0xFF;
        CHECK(untouched);
    }
}

static void test_every_validation_error(void)
{
    tf_palettes p;
    tf_layout lay;
    tf_mesh m;
    gpuskin_cpu_skin_desc d, base;
    tf_out o;
    const float nan = (float)NAN, inf = (float)INFINITY;
    size_t k;
    memset(&lay, 0, sizeof lay);
    lay.sets = 2; lay.normals = 1; lay.tangents = 1; lay.jt = GPUSKIN_JOINT_U16;
    tf_make_palettes(&p, 10, 0xFu);
    CHECK_EQ_INT(gpuskin_skin_cpu_fast(NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
    tf_make_mesh(&m, 150, &lay, 10, 1.0f);
    tf_make_out(&o, 150, 0);
    base = tf_desc(&m, &p, GPUSKIN_METHOD_LBS);
    base.out_positions = o.pos; base.out_normals = o.nrm; base.out_tangents = o.tan;

#define TF_ERR(want, stmt) do { d = base; { stmt; } tf_expect_same_error(d, &o, (want), #stmt); } while (0)
    TF_ERR(GPUSKIN_ERROR_INVALID_METHOD, d.method_word = 2);
    TF_ERR(GPUSKIN_ERROR_INVALID_METHOD, d.method_word = GPUSKIN_METHOD_LBS | GPUSKIN_METHOD_RESIDUAL_BIT);
    TF_ERR(GPUSKIN_ERROR_INVALID_METHOD, d.method_word = GPUSKIN_METHOD_DQS | 0x100u);
    TF_ERR(GPUSKIN_ERROR_INVALID_METHOD, d.method_word = GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_UNIFORM_BIT);
    TF_ERR(GPUSKIN_ERROR_PALETTE_SIZE, d.palette_joint_count = 11);
    TF_ERR(GPUSKIN_SUCCESS, d.palette_joint_count = 10);
    TF_ERR(GPUSKIN_ERROR_PALETTE_SIZE, (d.palette_joint_count = 3, d.streams.vertex_count = 0)); /* checked first */
    TF_ERR(GPUSKIN_ERROR_INVALID_COUNT, d.streams.vertex_count = 0);
    TF_ERR(GPUSKIN_ERROR_INVALID_COUNT, d.joint_count = 0);
    TF_ERR(GPUSKIN_ERROR_INVALID_COUNT, d.joint_count = GPUSKIN_MAX_JOINTS + 1);
    TF_ERR(GPUSKIN_ERROR_INVALID_ARGUMENT, d.streams.influence_sets = 3);
    TF_ERR(GPUSKIN_ERROR_INVALID_ARGUMENT, d.streams.joint_type = (gpuskin_joint_type)7);
    TF_ERR(GPUSKIN_ERROR_NULL_ARGUMENT, d.streams.positions.data = NULL);
    TF_ERR(GPUSKIN_ERROR_NULL_ARGUMENT, d.streams.weights[1].data = NULL);
    TF_ERR(GPUSKIN_ERROR_NULL_ARGUMENT, d.streams.joints[0].data = NULL);
    TF_ERR(GPUSKIN_ERROR_INVALID_STRIDE, d.streams.positions.stride = 8);
    TF_ERR(GPUSKIN_ERROR_INVALID_STRIDE, d.streams.tangents.stride = 12);
    TF_ERR(GPUSKIN_ERROR_INVALID_STRIDE, d.streams.joints[1].stride = 4);
    TF_ERR(GPUSKIN_ERROR_OVERFLOW, d.streams.normals.stride = SIZE_MAX / 4);
    TF_ERR(GPUSKIN_ERROR_NULL_ARGUMENT, d.lbs_palette = NULL);
    TF_ERR(GPUSKIN_ERROR_NULL_ARGUMENT, (d.method_word = GPUSKIN_METHOD_DQS, d.dq_palette = NULL));
    TF_ERR(GPUSKIN_ERROR_NULL_ARGUMENT, (d.method_word = p.dq_word, d.residual_palette = NULL));
    TF_ERR(GPUSKIN_ERROR_INVALID_STRIDE, d.out_positions.stride = 11);
    TF_ERR(GPUSKIN_ERROR_INVALID_STRIDE, d.out_tangents.stride = 15);
    {   /* non-finite palettes: a copy with one NaN */
        float lbs[120], dq[80], res[120], w77[4];
        memcpy(lbs, p.lbs, sizeof lbs); memcpy(dq, p.dq, sizeof dq); memcpy(res, p.res, sizeof res);
        lbs[7 * 12 + 5] = nan; dq[9 * 8 + 7] = inf; res[3] = nan;
        TF_ERR(GPUSKIN_ERROR_NON_FINITE, d.lbs_palette = lbs);
        TF_ERR(GPUSKIN_ERROR_NON_FINITE, (d.method_word = GPUSKIN_METHOD_DQS, d.dq_palette = dq));
        TF_ERR(GPUSKIN_ERROR_NON_FINITE, (d.method_word = p.dq_word, d.residual_palette = res));
        /* a vertex error wins over a palette error: it is checked first */
        memcpy(w77, (const char *)m.s.weights[0].data + 77 * 16, 16);
        tf_put_float(&m.s.weights[0], 16, 77, 1, -1.0f);
        TF_ERR(GPUSKIN_ERROR_INVALID_WEIGHT, d.lbs_palette = lbs);
        memcpy((char *)(uintptr_t)m.s.weights[0].data + 77 * 16, w77, 16);
    }
    /* vertex errors at several positions (first, last, mid, block edges) */
    for (k = 0; k < 5; ++k) {
        const size_t at[5] = {0, 149, 63, 64, 100};
        const size_t v = at[k];
        float keep[4];
        unsigned char keepj[8];
        memcpy(keep, (const char *)m.s.positions.data + v * 12, 12);
        tf_put_float(&m.s.positions, 12, v, (int)(k % 3), k % 2 ? nan : -inf);
        TF_ERR(GPUSKIN_ERROR_NON_FINITE, (void)0);
        memcpy((char *)(uintptr_t)m.s.positions.data + v * 12, keep, 12);

        memcpy(keep, (const char *)m.s.normals.data + v * 12, 12);
        tf_put_float(&m.s.normals, 12, v, 2, inf);
        TF_ERR(GPUSKIN_ERROR_NON_FINITE, (void)0);
        TF_ERR(GPUSKIN_SUCCESS, d.streams.normals.data = NULL); /* not given: not checked */
        memcpy((char *)(uintptr_t)m.s.normals.data + v * 12, keep, 12);

        memcpy(keep, (const char *)m.s.tangents.data + v * 16, 16);
        tf_put_float(&m.s.tangents, 16, v, 3, nan); /* even the kept w */
        TF_ERR(GPUSKIN_ERROR_NON_FINITE, (void)0);
        memcpy((char *)(uintptr_t)m.s.tangents.data + v * 16, keep, 16);

        memcpy(keep, (const char *)m.s.weights[1].data + v * 16, 16);
        tf_put_float(&m.s.weights[1], 16, v, (int)(k % 4), k % 2 ? nan : -0.5f);
        TF_ERR(GPUSKIN_ERROR_INVALID_WEIGHT, (void)0);
        TF_ERR(GPUSKIN_SUCCESS, d.streams.influence_sets = 1); /* set 1 unused: not checked */
        tf_put_float(&m.s.weights[1], 16, v, (int)(k % 4), inf);
        TF_ERR(GPUSKIN_ERROR_INVALID_WEIGHT, (void)0);
        tf_put_float(&m.s.weights[1], 16, v, (int)(k % 4), 0.0f);
        memcpy(keepj, (const char *)m.s.joints[1].data + v * 8, 8);
        tf_put_joint(&m, 1, v, 0, 1); tf_put_joint(&m, 1, v, 1, 2); tf_put_joint(&m, 1, v, 2, 3);
        tf_put_float(&m.s.weights[1], 16, v, 0, 3e38f); /* each finite, the sum is not */
        tf_put_float(&m.s.weights[1], 16, v, 1, 3e38f);
        tf_put_float(&m.s.weights[1], 16, v, 2, 3e38f);
        TF_ERR(GPUSKIN_ERROR_INVALID_WEIGHT, (void)0);
        memcpy((char *)(uintptr_t)m.s.weights[1].data + v * 16, keep, 16);
        memcpy((char *)(uintptr_t)m.s.joints[1].data + v * 8, keepj, 8);

        memcpy(keepj, (const char *)m.s.joints[0].data + v * 8, 8);
        memcpy(keep, (const char *)m.s.weights[0].data + v * 16, 16);
        tf_put_float(&m.s.weights[0], 16, v, 2, 0.5f);
        tf_put_joint(&m, 0, v, 2, 10); /* == joint_count, weighted */
        TF_ERR(GPUSKIN_ERROR_JOINT_OUT_OF_RANGE, (void)0);
        tf_put_joint(&m, 0, v, 2, 65535);
        TF_ERR(GPUSKIN_ERROR_JOINT_OUT_OF_RANGE, (void)0);
        tf_put_float(&m.s.weights[0], 16, v, 2, 0.0f);
        TF_ERR(GPUSKIN_SUCCESS, (void)0); /* unweighted: any index goes */
        /* out of range in slot 0, a bad weight in slot 1: the first one found wins */
        tf_put_float(&m.s.weights[0], 16, v, 0, 0.5f);
        tf_put_joint(&m, 0, v, 0, 11);
        tf_put_float(&m.s.weights[0], 16, v, 1, -2.0f);
        TF_ERR(GPUSKIN_ERROR_JOINT_OUT_OF_RANGE, (void)0);
        memcpy((char *)(uintptr_t)m.s.joints[0].data + v * 8, keepj, 8);
        memcpy((char *)(uintptr_t)m.s.weights[0].data + v * 16, keep, 16);
    }
    {   /* two bad vertices: the lower index is reported, whatever the streams */
        tf_put_float(&m.s.tangents, 16, 120, 0, nan);
        tf_put_float(&m.s.positions, 12, 121, 0, nan);
        tf_put_float(&m.s.weights[0], 16, 90, 3, -1.0f);
        TF_ERR(GPUSKIN_ERROR_INVALID_WEIGHT, (void)0);
    }
    /* u32 joints above 2^31 (negative as signed) */
    {
        tf_mesh m32;
        tf_layout l32 = lay;
        l32.jt = GPUSKIN_JOINT_U32;
        l32.sets = 1;
        tf_make_mesh(&m32, 9, &l32, 10, 1.0f);
        tf_put_float(&m32.s.weights[0], 16, 8, 3, 0.5f);
        tf_put_joint(&m32, 0, 8, 3, 0x80000001u);
        base = tf_desc(&m32, &p, GPUSKIN_METHOD_LBS);
        base.out_positions = o.pos; base.out_normals = o.nrm; base.out_tangents = o.tan;
        TF_ERR(GPUSKIN_ERROR_JOINT_OUT_OF_RANGE, (void)0);
        tf_put_float(&m32.s.weights[0], 16, 8, 3, 0.0f);
        TF_ERR(GPUSKIN_SUCCESS, (void)0);
        tf_free_mesh(&m32);
    }
#undef TF_ERR
    free(o.buf);
    tf_free_mesh(&m);
    tf_free_palettes(&p);
}

/* The scan's other side: it must never miss. The fixtures above put garbage joint
   indices behind zero weights, which makes every block suspicious, so the precise
   per-vertex level decides there. Here every index is in range, so the level-1
   scan alone passes a block (its 256-bit and 128-bit loops, packed streams of both
   influence sets): one bad value at a time, at block starts and ends, inside the
   wide loops and in the remainders, must give the oracle's error and index, with
   the outputs untouched. */
static void test_scan_never_misses(void)
{
    enum { N = 700 };
    static const size_t at[6] = {0, 200, 255, 256, 511, N - 1};
    const float nan = (float)NAN, inf = (float)INFINITY;
    tf_palettes p;
    tf_layout lay;
    tf_mesh m;
    tf_out o;
    gpuskin_cpu_skin_desc d;
    size_t v, k;
    uint32_t set;
    int c;
    memset(&lay, 0, sizeof lay);
    lay.sets = 2; lay.normals = 1; lay.tangents = 1; lay.jt = GPUSKIN_JOINT_U16;
    tf_make_palettes(&p, 10, 1u << TF_RIGID);
    tf_make_mesh(&m, N, &lay, 10, 1.0f);
    for (v = 0; v < N; ++v)
        for (set = 0; set < 2; ++set)
            for (c = 0; c < 4; ++c) tf_put_joint(&m, set, v, c, (uint32_t)(v + (size_t)c) % 10u);
    tf_make_out(&o, N, 0);
    d = tf_desc(&m, &p, GPUSKIN_METHOD_LBS);
    d.out_positions = o.pos; d.out_normals = o.nrm; d.out_tangents = o.tan;
    tf_expect_same_error(d, &o, GPUSKIN_SUCCESS, "clean mesh");
    for (k = 0; k < 6; ++k) {
        float keep[4];
        unsigned char keepj[8];
        v = at[k];
        memcpy(keep, (const char *)m.s.positions.data + v * 12, 12);
        tf_put_float(&m.s.positions, 12, v, (int)(k % 3), k % 2 ? nan : -inf);
        tf_expect_same_error(d, &o, GPUSKIN_ERROR_NON_FINITE, "position");
        memcpy((char *)(uintptr_t)m.s.positions.data + v * 12, keep, 12);

        memcpy(keep, (const char *)m.s.normals.data + v * 12, 12);
        tf_put_float(&m.s.normals, 12, v, (int)(k % 3), inf);
        tf_expect_same_error(d, &o, GPUSKIN_ERROR_NON_FINITE, "normal");
        memcpy((char *)(uintptr_t)m.s.normals.data + v * 12, keep, 12);

        memcpy(keep, (const char *)m.s.tangents.data + v * 16, 16);
        tf_put_float(&m.s.tangents, 16, v, (int)(k % 4), nan);
        tf_expect_same_error(d, &o, GPUSKIN_ERROR_NON_FINITE, "tangent");
        memcpy((char *)(uintptr_t)m.s.tangents.data + v * 16, keep, 16);

        for (set = 0; set < 2; ++set) {
            memcpy(keep, (const char *)m.s.weights[set].data + v * 16, 16);
            tf_put_float(&m.s.weights[set], 16, v, (int)(k % 4), k % 2 ? nan : -0.5f);
            tf_expect_same_error(d, &o, GPUSKIN_ERROR_INVALID_WEIGHT, "weight");
            tf_put_float(&m.s.weights[set], 16, v, (int)(k % 4), 0.5f);
            memcpy(keepj, (const char *)m.s.joints[set].data + v * 8, 8);
            tf_put_joint(&m, set, v, (int)(k % 4), 10); /* == joint_count, weighted */
            tf_expect_same_error(d, &o, GPUSKIN_ERROR_JOINT_OUT_OF_RANGE, "joint");
            memcpy((char *)(uintptr_t)m.s.joints[set].data + v * 8, keepj, 8);
            memcpy((char *)(uintptr_t)m.s.weights[set].data + v * 16, keep, 16);
        }
    }
    tf_expect_same_error(d, &o, GPUSKIN_SUCCESS, "clean mesh again");
    free(o.buf);
    tf_free_mesh(&m);
    tf_free_palettes(&p);
}

/* ---- palettes: gpuskin_build_palettes == globals + palette (+ pack) -------- */

typedef struct tf_rig {
    gpuskin_skeleton sk;
    uint32_t joints, instances;
    gpuskin_mat4 *models;
    gpuskin_trs *poses;
} tf_rig;

static gpuskin_trs tf_trs(void)
{
    gpuskin_trs t;
    t.translation.x = tf_range(-1, 1); t.translation.y = tf_range(-1, 1); t.translation.z = tf_range(-1, 1);
    t.rotation = tf_quat();
    /* not normalised: the path must normalise like gpuskin_mat4_from_trs */
    t.rotation.x *= 1.5f; t.rotation.y *= 1.5f; t.rotation.z *= 1.5f; t.rotation.w *= 1.5f;
    t.scale.x = tf_range(0.7f, 1.4f); t.scale.y = tf_range(0.7f, 1.4f); t.scale.z = tf_range(0.7f, 1.4f);
    return t;
}

/* Parents in any order (children may come first), several roots. */
static void tf_make_rig(tf_rig *r, uint32_t joints, uint32_t instances)
{
    gpuskin_skeleton_desc sd;
    int32_t *parents = (int32_t *)malloc(joints * sizeof(int32_t));
    gpuskin_mat4 *ib = (gpuskin_mat4 *)malloc(joints * sizeof(gpuskin_mat4));
    gpuskin_mat4 *rpg = (gpuskin_mat4 *)malloc(joints * sizeof(gpuskin_mat4));
    gpuskin_trs *rest = (gpuskin_trs *)malloc(joints * sizeof(gpuskin_trs));
    uint32_t *perm = (uint32_t *)malloc(joints * sizeof(uint32_t));
    uint32_t j, i;
    for (j = 0; j < joints; ++j) perm[j] = j;
    for (j = joints; j > 1; --j) { uint32_t o = tf_below(j), t = perm[j - 1]; perm[j - 1] = perm[o]; perm[o] = t; }
    for (j = 0; j < joints; ++j) { /* joint perm[j]'s parent is an earlier perm entry */
        const uint32_t me = perm[j];
        parents[me] = (j == 0 || tf_below(9) == 0) ? -1 : (int32_t)perm[tf_below(j)];
        ib[me] = tf_matrix(TF_SCALED);
        rpg[me] = tf_matrix(TF_RIGID);
        rest[me] = tf_trs();
    }
    memset(&sd, 0, sizeof sd);
    sd.joint_count = joints;
    sd.parents = parents;
    sd.inverse_bind = ib;
    sd.rest_pose = rest;
    sd.root_parent_globals = rpg;
    CHECK_EQ_INT(gpuskin_skeleton_init(&r->sk, &sd), GPUSKIN_SUCCESS);
    r->joints = joints;
    r->instances = instances;
    r->models = (gpuskin_mat4 *)malloc(instances * sizeof(gpuskin_mat4));
    r->poses = (gpuskin_trs *)malloc((size_t)instances * joints * sizeof(gpuskin_trs));
    for (i = 0; i < instances; ++i) {
        r->models[i] = tf_matrix(i % 3 == 2 ? TF_MIRRORED : TF_SCALED);
        for (j = 0; j < joints; ++j) r->poses[(size_t)i * joints + j] = tf_trs();
    }
    free(parents); free(ib); free(rpg); free(rest); free(perm);
}

static void tf_free_rig(tf_rig *r)
{
    gpuskin_skeleton_free(&r->sk);
    free(r->models);
    free(r->poses);
}

/* A skeleton is read-only after init: to give joint j another inverse bind
   (which = 0) or root parent global (which = 1), the rig gets a new skeleton made
   from the old one's arrays with that one matrix replaced. */
static void tf_reskeleton(tf_rig *r, int which, uint32_t j, gpuskin_mat4 m)
{
    gpuskin_skeleton_desc sd;
    gpuskin_skeleton sk;
    gpuskin_mat4 *copy = (gpuskin_mat4 *)malloc(r->joints * sizeof(gpuskin_mat4));
    memcpy(copy, which ? r->sk.root_parent_globals : r->sk.inverse_bind, r->joints * sizeof(gpuskin_mat4));
    copy[j] = m;
    memset(&sd, 0, sizeof sd);
    sd.joint_count = r->joints;
    sd.parents = r->sk.parents;
    sd.inverse_bind = which ? r->sk.inverse_bind : copy;
    sd.root_parent_globals = which ? copy : r->sk.root_parent_globals;
    sd.rest_pose = r->sk.rest_pose;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &sd), GPUSKIN_SUCCESS);
    gpuskin_skeleton_free(&r->sk);
    r->sk = sk;
    free(copy);
}

/* The reference, instance by instance; then build_palettes on `ranges` splits. */
static void tf_check_palettes(tf_rig *r, int use_models, int use_poses, int want_pal, int want_lbs, const uint32_t *cuts,
                              int ncuts)
{
    const size_t nj = r->joints, ni = r->instances;
    gpuskin_mat4 *ref = (gpuskin_mat4 *)malloc(ni * nj * sizeof(gpuskin_mat4));
    gpuskin_mat4 *pal = (gpuskin_mat4 *)malloc(ni * nj * sizeof(gpuskin_mat4));
    float *ref_lbs = (float *)malloc(ni * nj * 12 * sizeof(float)), *lbs = (float *)malloc(ni * nj * 12 * sizeof(float));
    size_t i, e;
    int c, bad = 0;
    for (i = 0; i < ni; ++i) {
        CHECK_EQ_INT(gpuskin_skeleton_globals(&r->sk, use_poses ? r->poses + i * nj : NULL, ref + i * nj), GPUSKIN_SUCCESS);
        CHECK_EQ_INT(gpuskin_skeleton_palette(&r->sk, use_models ? &r->models[i] : NULL, ref + i * nj, ref + i * nj),
                     GPUSKIN_SUCCESS);
        CHECK_EQ_INT(gpuskin_pack_lbs(ref + i * nj, r->joints, ref_lbs + i * nj * 12), GPUSKIN_SUCCESS);
    }
    memset(pal, 0xFF, ni * nj * sizeof(gpuskin_mat4));
    memset(lbs, 0xFF, ni * nj * 12 * sizeof(float));
    for (c = 0; c + 1 < ncuts; ++c) {
        gpuskin_palette_batch_desc d;
        memset(&d, 0, sizeof d);
        d.skeleton = &r->sk;
        d.first_instance = cuts[c];
        d.instance_count = cuts[c + 1] - cuts[c];
        d.models = use_models ? r->models : NULL;
        d.local_poses = use_poses ? r->poses : NULL;
        d.out_palettes = want_pal ? pal : NULL;
        d.out_lbs = want_lbs ? lbs : NULL;
        CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_SUCCESS);
    }
    for (i = 0; i < ni * nj && !bad; ++i) {
        for (e = 0; e < 16 && want_pal; ++e) {
            const double a = ref[i].m[e], b = pal[i].m[e];
            if (!(fabs(a - b) <= 2e-5 * (1.0 + fabs(a)))) {
                bad = 1;
                fprintf(stderr, "  instance %zu joint %zu m[%zu]: reference %.9g, batch %.9g\n", i / nj, i % nj, e, a, b);
                break;
            }
        }
        for (e = 0; e < 12 && want_lbs; ++e) {
            const double a = ref_lbs[i * 12 + e], b = lbs[i * 12 + e];
            if (!(fabs(a - b) <= 2e-5 * (1.0 + fabs(a)))) {
                bad = 1;
                fprintf(stderr, "  instance %zu joint %zu lbs[%zu]: reference %.9g, batch %.9g\n", i / nj, i % nj, e, a, b);
                break;
            }
        }
    }
    CHECK(!bad);
    free(ref); free(pal); free(ref_lbs); free(lbs);
}

/* 37 instances: with AVX-512, two groups of sixteen and a short end of five one
   instance at a time (one register a matrix, walking the skeleton's chain
   slots); with AVX2 alone, four groups of eight and five one at a time (rows, in
   depth order). 35: the short end of three one instance at a time. From 64
   joints on, the skeletons' depth order differs from their parent-first order
   (which the groups take): checked. Joint counts above 64 take allocated
   scratch. */
static void test_palettes_match_reference(void)
{
    const uint32_t joint_counts[] = {1, 5, 64, 65, 130};
    size_t k;
    for (k = 0; k < sizeof joint_counts / sizeof joint_counts[0]; ++k) {
        tf_rig r;
        const uint32_t all[2] = {0, 37}, most[2] = {0, 35};
        tf_make_rig(&r, joint_counts[k], 37);
        if (joint_counts[k] >= 64) /* the forms read the two orders; they must differ here */
            CHECK(memcmp(r.sk.order, r.sk.depth_order, joint_counts[k] * sizeof(uint32_t)) != 0);
        tf_check_palettes(&r, 1, 1, 1, 1, all, 2);
        tf_check_palettes(&r, 0, 1, 1, 0, all, 2); /* no models, palettes only */
        tf_check_palettes(&r, 1, 0, 0, 1, all, 2); /* rest pose, LBS only */
        tf_free_rig(&r);
        tf_make_rig(&r, joint_counts[k], 35);
        tf_check_palettes(&r, 1, 1, 1, 1, most, 2);
        tf_check_palettes(&r, 0, 0, 1, 0, most, 2);
        tf_free_rig(&r);
    }
}

static void test_palettes_split_ranges(void)
{
    tf_rig r;
    const uint32_t cuts_a[] = {0, 1, 2, 3, 7, 8, 13, 13, 20, 21};
    const uint32_t cuts_b[] = {0, 5, 21};
    const uint32_t cuts_c[] = {0, 4, 8, 12, 16, 20, 21};
    tf_make_rig(&r, 23, 21);
    tf_check_palettes(&r, 1, 1, 1, 1, cuts_a, (int)(sizeof cuts_a / sizeof cuts_a[0]));
    tf_check_palettes(&r, 1, 1, 1, 1, cuts_b, (int)(sizeof cuts_b / sizeof cuts_b[0]));
    tf_check_palettes(&r, 1, 1, 0, 1, cuts_c, (int)(sizeof cuts_c / sizeof cuts_c[0]));
    tf_free_rig(&r);
    { /* ranges of 17 and 28: a group of sixteen, then short ends (28: a group of
         twelve lanes used); then ranges of 1-3 and 7 (AVX-512: one at a time; AVX2
         alone: 7 a group of seven lanes used), 10 (a group of eight, then two one at
         a time) and 22 (sixteen and six one at a time) */
        const uint32_t cuts_d[] = {0, 17, 45}, cuts_e[] = {0, 1, 3, 6, 13, 23, 45}, all[] = {0, 45};
        const size_t n = 45 * 23;
        gpuskin_mat4 *pal = (gpuskin_mat4 *)malloc(2 * n * sizeof(gpuskin_mat4));
        float *lbs = (float *)malloc(2 * n * 12 * sizeof(float));
        int pass;
        tf_make_rig(&r, 23, 45);
        tf_check_palettes(&r, 1, 1, 1, 1, cuts_d, (int)(sizeof cuts_d / sizeof cuts_d[0]));
        /* Each instance's bits must not depend on the ranges (they decide which
           form, groups or one at a time, computes it): one call against many. */
        for (pass = 0; pass < 2; ++pass) {
            const uint32_t *cuts = pass ? cuts_e : all;
            const int ncuts = pass ? (int)(sizeof cuts_e / sizeof cuts_e[0]) : 2;
            int c;
            for (c = 0; c + 1 < ncuts; ++c) {
                gpuskin_palette_batch_desc d;
                memset(&d, 0, sizeof d);
                d.skeleton = &r.sk;
                d.first_instance = cuts[c];
                d.instance_count = cuts[c + 1] - cuts[c];
                d.models = r.models;
                d.local_poses = r.poses;
                d.out_palettes = pal + pass * n;
                d.out_lbs = lbs + pass * n * 12;
                CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_SUCCESS);
            }
        }
        CHECK(memcmp(pal, pal + n, n * sizeof(gpuskin_mat4)) == 0);
        CHECK(memcmp(lbs, lbs + n * 12, n * 12 * sizeof(float)) == 0);
        free(pal);
        free(lbs);
        tf_free_rig(&r);
    }
}

/* Non-affine model, inverse bind or root parent: the reference path, same results. */
static void test_palettes_non_affine(void)
{
    tf_rig r;
    const uint32_t all[2] = {0, 25};
    gpuskin_mat4 bent;
    tf_make_rig(&r, 12, 25);
    r.models[5].m[3] = 0.25f;  /* a projective model in one group of four, eight or sixteen */
    r.models[21].m[7] = -1.0f; /* and one in a later group */
    tf_check_palettes(&r, 1, 1, 1, 1, all, 2);
    tf_check_palettes(&r, 1, 1, 0, 1, all, 2);
    bent = r.sk.inverse_bind[7];
    bent.m[7] = 0.5f;
    tf_reskeleton(&r, 0, 7, bent);
    CHECK(r.sk.inverse_bind_rows == NULL);
    tf_check_palettes(&r, 1, 1, 1, 1, all, 2);
    tf_free_rig(&r);
}

/* The same with a few instances, which AVX-512 hosts take one at a time by a
   form that checks the skeleton's matrices itself (the dispatcher's check is
   skipped for them). */
static void test_palettes_non_affine_few(void)
{
    tf_rig r;
    const uint32_t all[2] = {0, 5}, each[6] = {0, 1, 2, 3, 4, 5};
    gpuskin_mat4 keep, bent;
    uint32_t root = 0;
    tf_make_rig(&r, 12, 5);
    while (r.sk.parents[root] >= 0) ++root;
    r.models[3].m[11] = 0.5f;
    tf_check_palettes(&r, 1, 1, 1, 1, all, 2);
    tf_check_palettes(&r, 1, 1, 0, 1, each, 6);
    r.models[3].m[11] = 0.0f;
    keep = r.sk.inverse_bind[9];
    bent = keep;
    bent.m[15] = 2.0f;
    tf_reskeleton(&r, 0, 9, bent);
    CHECK(r.sk.inverse_bind_rows == NULL);
    tf_check_palettes(&r, 1, 1, 1, 1, all, 2);
    tf_check_palettes(&r, 0, 1, 0, 1, each, 6);
    tf_reskeleton(&r, 0, 9, keep);
    CHECK(r.sk.inverse_bind_rows != NULL);
    bent = r.sk.root_parent_globals[root];
    bent.m[3] = -0.25f;
    tf_reskeleton(&r, 1, root, bent);
    CHECK(r.sk.inverse_bind_rows != NULL); /* the rows are the inverse binds' only */
    tf_check_palettes(&r, 1, 1, 1, 1, all, 2);
    tf_check_palettes(&r, 0, 0, 1, 1, each, 6);
    tf_free_rig(&r);
}

/* The inverse binds' rows gpuskin_skeleton_init makes for the one-at-a-time
   forms: each joint's rows 0..2, exactly; none when an inverse bind's row 3 is not
   0 0 0 1 (a negative zero there counts as zero, as in the palette paths); and
   palettes built from the rows, or without them, equal the reference's. */
static void test_skeleton_inverse_bind_rows(void)
{
    tf_rig r;
    const uint32_t each[4] = {0, 1, 2, 3}, all[2] = {0, 3};
    const float *rows;
    const uint32_t *order, *slots;
    gpuskin_mat4 m;
    uint32_t j, row, c;
    tf_make_rig(&r, 21, 3);
    CHECK(r.sk.inverse_bind_rows != NULL);
    for (j = 0; j < r.joints && r.sk.inverse_bind_rows; ++j)
        for (row = 0; row < 3; ++row)
            for (c = 0; c < 4; ++c)
                CHECK(r.sk.inverse_bind_rows[12 * j + 4 * row + c] == r.sk.inverse_bind[j].m[4 * c + row]);
    tf_check_palettes(&r, 1, 1, 1, 1, each, 4);
    /* Without the rows (a skeleton filled in by hand) every form makes its own. */
    rows = r.sk.inverse_bind_rows;
    r.sk.inverse_bind_rows = NULL;
    tf_check_palettes(&r, 1, 1, 1, 1, each, 4);
    tf_check_palettes(&r, 1, 1, 1, 1, all, 2);
    /* Nor the chain slots: the one-register form walks the depth order; nor that:
       the one-at-a-time forms take `order`. */
    slots = r.sk.chain_slots;
    r.sk.chain_slots = NULL;
    tf_check_palettes(&r, 1, 1, 1, 1, each, 4);
    order = r.sk.depth_order;
    r.sk.depth_order = NULL;
    tf_check_palettes(&r, 1, 1, 1, 1, each, 4);
    r.sk.depth_order = order;
    r.sk.chain_slots = slots;
    r.sk.inverse_bind_rows = rows;
    m = r.sk.inverse_bind[20];
    m.m[3] = -0.0f;
    m.m[11] = -0.0f;
    tf_reskeleton(&r, 0, 20, m);
    CHECK(r.sk.inverse_bind_rows != NULL);
    tf_check_palettes(&r, 1, 1, 1, 1, each, 4);
    m.m[11] = 1e-30f;
    tf_reskeleton(&r, 0, 20, m);
    CHECK(r.sk.inverse_bind_rows == NULL);
    tf_check_palettes(&r, 1, 1, 1, 1, each, 4);
    tf_free_rig(&r);
}

/* Quaternions the normalisation must turn into the identity: zero and tiny; and
   ones just inside the limits, which it must normalise (instance 5, in a group of
   eight or sixteen, and 17, taken one at a time with 18). Instances 18
   (one at a time) and 11 (first with ranges that stop before it) hold quaternions so large
   that |q|^2 overflows (finite input: the identity, no error) or comes near it,
   which the wide forms leave to the reference path. */
static void test_palettes_odd_quaternions(void)
{
    tf_rig r;
    const uint32_t all[2] = {0, 19}, parts[3] = {0, 8, 19};
    const uint32_t at[2] = {5, 17}, huge[2] = {18, 11};
    gpuskin_trs *p;
    int k;
    tf_make_rig(&r, 9, 19);
    for (k = 0; k < 2; ++k) {
        p = r.poses + at[k] * 9;
        p[0].rotation.x = p[0].rotation.y = p[0].rotation.z = p[0].rotation.w = 0.0f;
        p[1].rotation.x = 1e-13f; p[1].rotation.y = p[1].rotation.z = p[1].rotation.w = 0.0f;
        p[2].rotation.x = 4e-12f; p[2].rotation.y = p[2].rotation.z = 0.0f; p[2].rotation.w = -1e-12f;
        p[3].rotation.x = 3e13f; p[3].rotation.y = -2e13f; p[3].rotation.z = 0.0f; p[3].rotation.w = 4e13f;
        /* |q|^2 = 7.2e-25 (identity) and 1.2e-24 (half a turn about x) */
        p[4].rotation.x = 8.5e-13f; p[4].rotation.y = p[4].rotation.z = p[4].rotation.w = 0.0f;
        p[5].rotation.x = 1.1e-12f; p[5].rotation.y = p[5].rotation.z = p[5].rotation.w = 0.0f;
    }
    for (k = 0; k < 2; ++k) {
        p = r.poses + huge[k] * 9;
        p[0].rotation.x = 3e19f; p[0].rotation.w = 3e19f;
        p[1].rotation.x = 1e15f; p[1].rotation.y = 2e15f; p[1].rotation.z = 0.0f; p[1].rotation.w = -2e15f;
        p[2].rotation.x = -1e19f; p[2].rotation.y = 2e18f; p[2].rotation.z = 0.0f; p[2].rotation.w = 5e18f;
        /* |q|^2 = 2.7e38: 2/|q|^2 is a denormal, which a host's flush-to-zero would
           make 0 (and the rotation the identity) */
        p[3].rotation.x = 1.3e19f; p[3].rotation.y = p[3].rotation.z = 0.0f; p[3].rotation.w = 1e19f;
    }
    tf_check_palettes(&r, 1, 1, 1, 1, all, 2);
    tf_check_palettes(&r, 1, 1, 1, 1, parts, 3);
#ifdef GPUSKIN__FAST_SSE2
    { /* again with flush-to-zero and denormals-are-zero, as games often run */
        const unsigned int csr = _mm_getcsr();
        _mm_setcsr(csr | 0x8040u);
        tf_check_palettes(&r, 1, 1, 1, 1, all, 2);
        tf_check_palettes(&r, 1, 1, 1, 1, parts, 3);
        _mm_setcsr(csr);
    }
#endif
    tf_free_rig(&r);
}

/* The forms must agree to the bit, signed zeros included: a joint with a zero
   scale under rows of all-negative entries gives products that are all -0, whose
   sum's sign depends on how each form adds them. One call (groups) against one
   call per instance (one at a time). */
static void test_palettes_signed_zeros(void)
{
    gpuskin_skeleton sk;
    gpuskin_skeleton_desc sd;
    const int32_t parents[2] = {-1, 0};
    gpuskin_trs rest[2];
    gpuskin_mat4 models[20], pal[2][40];
    float lbs[2][40 * 12];
    uint32_t i, k;
    for (k = 0; k < 2; ++k) {
        memset(&rest[k], 0, sizeof rest[k]);
        rest[k].rotation.w = 1.0f;
        rest[k].scale.x = k ? 0.0f : 1.0f;
        rest[k].scale.y = rest[k].scale.z = 1.0f;
    }
    rest[0].translation.x = 1.0f; rest[0].translation.y = 2.0f; rest[0].translation.z = 3.0f;
    memset(&sd, 0, sizeof sd);
    sd.joint_count = 2;
    sd.parents = parents;
    sd.rest_pose = rest;
    CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &sd), GPUSKIN_SUCCESS);
    for (i = 0; i < 20; ++i) { /* -1 on the diagonal, -0.5 elsewhere: invertible, every entry negative */
        int r, c;
        models[i] = gpuskin_mat4_identity();
        for (r = 0; r < 3; ++r)
            for (c = 0; c < 3; ++c) models[i].m[c * 4 + r] = r == c ? -1.0f - 0.01f * (float)i : -0.5f;
    }
    for (k = 0; k < 2; ++k) {
        gpuskin_palette_batch_desc d;
        memset(&d, 0, sizeof d);
        d.skeleton = &sk;
        d.models = models;
        d.out_palettes = pal[k];
        d.out_lbs = lbs[k];
        for (i = 0; i < 20; i += d.instance_count) {
            d.first_instance = i;
            d.instance_count = k ? 1 : 20;
            CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_SUCCESS);
        }
    }
    CHECK(memcmp(pal[0], pal[1], sizeof pal[0]) == 0);
    CHECK(memcmp(lbs[0], lbs[1], sizeof lbs[0]) == 0);
#ifdef GPUSKIN__FAST_AVX2
    /* the case is reached: the child's row 0, column 0 is -0 in the wide forms
       (the reference, which sums from +0, gives +0) */
    if (gpuskin__fast_cpu_has_avx2_fma()) CHECK(signbit(lbs[0][12 + 0]) != 0);
#endif
    gpuskin_skeleton_free(&sk);
}

/* Finite inputs whose palettes are huge but finite: the wide paths' cheap
   finiteness check (a running sum) overflows, sends the group to the reference
   path, and the call must still succeed with the reference's values. */
static void test_palettes_huge_but_finite(void)
{
    tf_rig r;
    const uint32_t all[2] = {0, 21};
    uint32_t i, j;
    tf_make_rig(&r, 4, 21);
    for (j = 0; j < 4; ++j) {
        tf_reskeleton(&r, 0, j, gpuskin_mat4_identity());
        tf_reskeleton(&r, 1, j, gpuskin_mat4_identity());
    }
    for (i = 0; i < 21; ++i) {
        gpuskin_trs *p = r.poses + i * 4;
        for (j = 0; j < 4; ++j) {
            p[j].rotation.x = p[j].rotation.y = p[j].rotation.z = 0.0f;
            p[j].rotation.w = 1.0f;
            p[j].scale.x = p[j].scale.y = p[j].scale.z = 1.0f;
            p[j].translation.x = p[j].translation.y = p[j].translation.z = 0.0f;
        }
        if (i == 3 || i == 19) { /* one root: 3e38 in two columns, 6e38 in their sum */
            uint32_t root = 0;
            while (r.sk.parents[root] >= 0) ++root;
            p[root].translation.x = p[root].translation.y = 3e38f;
        }
    }
    tf_check_palettes(&r, 0, 1, 1, 1, all, 2);
    tf_free_rig(&r);
}

static void test_palettes_errors(void)
{
    tf_rig r;
    gpuskin_palette_batch_desc d;
    gpuskin_mat4 *pal;
    float *lbs;
    gpuskin_skeleton empty;
    float keep;
    tf_make_rig(&r, 70, 20); /* a group of sixteen and a short end, or eight and eight and four */
    pal = (gpuskin_mat4 *)malloc(20 * 70 * sizeof(gpuskin_mat4));
    lbs = (float *)malloc(20 * 70 * 12 * sizeof(float));
    memset(&d, 0, sizeof d);
    d.skeleton = &r.sk;
    d.instance_count = 20;
    d.models = r.models;
    d.local_poses = r.poses;
    d.out_palettes = pal;
    d.out_lbs = lbs;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(gpuskin_build_palettes(NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
    d.skeleton = NULL;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_ERROR_NULL_ARGUMENT);
    memset(&empty, 0, sizeof empty);
    d.skeleton = &empty;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_ERROR_NULL_ARGUMENT);
    d.skeleton = &r.sk;
    d.out_palettes = NULL;
    d.out_lbs = NULL;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_ERROR_NULL_ARGUMENT);
    d.out_palettes = pal;
    d.out_lbs = lbs;
    d.instance_count = 0;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_SUCCESS); /* an empty share of a job system */
    d.first_instance = 0xFFFFFFF0u;
    d.instance_count = 0x20u;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_ERROR_OVERFLOW);
    d.first_instance = 0;
    d.instance_count = 20;
    r.poses[3 * 70 + 69].scale.y = (float)NAN;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_ERROR_NON_FINITE);
    r.poses[3 * 70 + 69].scale.y = 1.0f;
    r.poses[9 * 70 + 0].rotation.z = (float)INFINITY;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_ERROR_NON_FINITE);
    r.poses[9 * 70 + 0].rotation.z = 0.0f;
    r.poses[1 * 70 + 2].translation.x = (float)-INFINITY;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_ERROR_NON_FINITE);
    r.poses[1 * 70 + 2].translation.x = 0.0f;
    r.poses[18 * 70 + 33].scale.z = (float)INFINITY; /* in the short end */
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_ERROR_NON_FINITE);
    r.poses[18 * 70 + 33].scale.z = 1.0f;
    r.poses[17 * 70 + 40].rotation.w = (float)NAN;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_ERROR_NON_FINITE);
    r.poses[17 * 70 + 40].rotation.w = 1.0f;
    keep = r.models[19].m[0];
    r.models[19].m[0] = (float)INFINITY;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_ERROR_NON_FINITE);
    r.models[19].m[0] = keep;
    r.models[6].m[13] = (float)NAN;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_ERROR_NON_FINITE);
    d.models = NULL;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), GPUSKIN_SUCCESS);
    r.poses[4 * 70 + 10].scale.x = 1e30f; /* finite inputs, overflowing globals */
    r.poses[4 * 70 + 10].translation.x = 1e30f;
    d.out_palettes = NULL;
    CHECK_EQ_INT(gpuskin_build_palettes(&d), gpuskin_skeleton_globals(&r.sk, r.poses + 4 * 70, pal) != GPUSKIN_SUCCESS
                                                 ? GPUSKIN_ERROR_NON_FINITE
                                                 : gpuskin_skeleton_palette(&r.sk, NULL, pal, pal));
    free(pal);
    free(lbs);
    tf_free_rig(&r);
}

/* ---- gpuskin_pack_dq_fast against gpuskin_pack_dq ------------------------------ */

/* One joint's packing by the reference; returns 1 when rigid. */
static int tf_dq_reference(const gpuskin_mat4 *m, gpuskin_split_method split, float *dq, float *res)
{
    uint32_t word = 0;
    CHECK_EQ_INT(gpuskin_pack_dq(m, 1, split, dq, res, &word), GPUSKIN_SUCCESS);
    return !(word & GPUSKIN_METHOD_RESIDUAL_BIT);
}

/* Packs n joints both ways; every joint must take the reference's rigid decision
   (checked joint by joint through single-joint words) and equal its values to float
   rounding, relative to the joint's scale. */
#if defined(GPUSKIN__FAST_VEX) || defined(GPUSKIN__FAST_SPLIT32)
/* A wide DQ split form (`lanes` joints a call) against `lanes` / 8 calls of the
   SSE2 form (`sse`): the same redo lanes, and for every other lane the same rigid
   bit and the same bytes. Masks are compared as unsigned patterns (lane 31 is bit 31). */
typedef int (*tf_split_lanes_fn)(const gpuskin_mat4 *, float *, float *, int *);
static void tf_check_split_lanes(const gpuskin_mat4 *m, uint32_t n, const char *what, const char *form,
                                 tf_split_lanes_fn split, tf_split_lanes_fn sse, uint32_t lanes)
{
    uint32_t j, k, h;
    for (j = 0; j + lanes <= n; j += lanes) {
        float wdq[32 * 8], wres[32 * 12], sdq[32 * 8], sres[32 * 12];
        int wnr, snr[4];
        unsigned wredo, sredo = 0;
        wredo = (unsigned)split(m + j, wdq, wres, &wnr);
        for (h = 0; h < lanes / 8; ++h)
            sredo |= (unsigned)sse(m + j + 8 * h, sdq + 64 * h, sres + 96 * h, &snr[h]) << (8 * h);
        CHECK(wredo == sredo);
        /* a redone lane's values are the reference's, not the lanes' */
        for (k = 0; k < lanes; ++k) {
            if ((wredo >> k) & 1u) continue;
            if ((((unsigned)wnr >> k) & 1u) != (((unsigned)snr[k / 8] >> (k % 8)) & 1u) ||
                memcmp(wdq + 8 * k, sdq + 8 * k, 8 * sizeof(float)) != 0 ||
                memcmp(wres + 12 * k, sres + 12 * k, 12 * sizeof(float)) != 0) {
                fprintf(stderr, "  %s: joint %u: the %s and SSE2 splits differ\n", what, j + k, form);
                CHECK(0);
                return;
            }
        }
    }
}

/* The SSE2 form of a split, which the wide forms must equal. */
static tf_split_lanes_fn tf_sse_form(gpuskin_split_method split)
{
    return split == GPUSKIN_SPLIT_POLAR ? gpuskin__fast_polar8_sse : gpuskin__fast_split8_sse;
}
#endif

static void tf_check_pack_dq_fast_split(const gpuskin_mat4 *m, uint32_t n, const char *what, gpuskin_split_method split)
{
    float *dq = (float *)malloc(n * 8 * sizeof(float)), *res = (float *)malloc(n * 12 * sizeof(float));
    float *dq2 = (float *)malloc(n * 8 * sizeof(float));
    uint32_t j, word = 0, word2 = 0, want_word = GPUSKIN_METHOD_DQS;
    /* The polar lanes' bound keeps them within 2.8e-7 (gpuskin.h); beyond it
       they would miss by up to 1.1e-6: a tighter tolerance, so that the bound
       is what a test sees. */
    const double tol = split == GPUSKIN_SPLIT_POLAR ? 5e-7 : 4e-6;
    int k, bad = 0;
    memset(dq, 0xFF, n * 8 * sizeof(float));
    memset(res, 0xFF, n * 12 * sizeof(float));
    CHECK_EQ_INT(gpuskin_pack_dq_fast(m, n, split, dq, res, &word), GPUSKIN_SUCCESS);
    for (j = 0; j < n; ++j) {
        float rdq[8], rres[12], one_dq[8], one_res[12];
        double scale = 1.0;
        uint32_t one_word = 0;
        const int rigid = tf_dq_reference(&m[j], split, rdq, rres);
        if (!rigid) want_word |= GPUSKIN_METHOD_RESIDUAL_BIT;
        for (k = 0; k < 16; ++k) scale = fabs(m[j].m[k]) > scale ? fabs(m[j].m[k]) : scale;
        for (k = 0; k < 8; ++k)
            if (!(fabs((double)dq[j * 8 + k] - (double)rdq[k]) <= tol * scale)) bad++;
        for (k = 0; k < 12; ++k)
            if (!(fabs((double)res[j * 12 + k] - (double)rres[k]) <= tol * scale)) bad++;
        if (rigid) /* a rigid joint's residual is the identity, exactly */
            for (k = 0; k < 12; ++k)
                if (res[j * 12 + k] != (k % 5 == 0 ? 1.0f : 0.0f)) bad++;
        /* The polar split's S is symmetric bit for bit where the reference's is
           (the GPU's kernel 8 takes an instance only then). Elsewhere (mirrored,
           or near-singular: R from Gram-Schmidt) either may be by chance: a
           mirror's S can be diagonal, its off-diagonal entries rounding noise. */
        if (split == GPUSKIN_SPLIT_POLAR && rres[4] == rres[1] && rres[8] == rres[2] && rres[9] == rres[6]) {
            const float *f = res + j * 12;
            if (!(f[4] == f[1] && f[8] == f[2] && f[9] == f[6])) bad++;
        }
        /* A joint's bytes are its own: packed alone (its lanes' neighbours the
           padding's identities) it gets the same, whether its lane was redone or not. */
        CHECK_EQ_INT(gpuskin_pack_dq_fast(&m[j], 1, split, one_dq, one_res, &one_word), GPUSKIN_SUCCESS);
        if (memcmp(one_dq, dq + j * 8, sizeof one_dq) != 0 || memcmp(one_res, res + j * 12, sizeof one_res) != 0) bad++;
        if (bad) {
            fprintf(stderr, "  %s: joint %u of %u differs from gpuskin_pack_dq\n", what, j, n);
            break;
        }
    }
    CHECK(bad == 0);
    CHECK_EQ_INT((int)word, (int)want_word);
    /* without the residual output: the same dq and the same word */
    CHECK_EQ_INT(gpuskin_pack_dq_fast(m, n, split, dq2, NULL, &word2), GPUSKIN_SUCCESS);
    CHECK(memcmp(dq, dq2, n * 8 * sizeof(float)) == 0);
    CHECK_EQ_INT((int)word2, (int)want_word);
#ifdef GPUSKIN__FAST_VEX
    /* The AVX form (sixteen lanes) and the SSE2 form (eight) must give the same
       bits, decisions included: on an AVX machine only the first runs above. */
    if (gpuskin__fast_cpu_has_avx())
        tf_check_split_lanes(m, n, what, "AVX", split == GPUSKIN_SPLIT_POLAR ? gpuskin__fast_polar16_vex : gpuskin__fast_split16_vex,
                             tf_sse_form(split), 16);
#endif
#ifdef GPUSKIN__FAST_SPLIT32
    /* The AVX-512 form (thirty-two lanes) against the SSE2 form, the same way. */
    if (gpuskin__fast_cpu_has_avx512())
        tf_check_split_lanes(m, n, what, "AVX-512", split == GPUSKIN_SPLIT_POLAR ? gpuskin__fast_polar32_z : gpuskin__fast_split32_z,
                             tf_sse_form(split), 32);
#endif
    free(dq);
    free(res);
    free(dq2);
}

/* Both splits. */
static void tf_check_pack_dq_fast(const gpuskin_mat4 *m, uint32_t n, const char *what)
{
    tf_check_pack_dq_fast_split(m, n, what, GPUSKIN_SPLIT_GRAM_SCHMIDT);
    tf_check_pack_dq_fast_split(m, n, what, GPUSKIN_SPLIT_POLAR);
}

/* R * (I + e E): a joint whose residual is e away from the identity. */
static gpuskin_mat4 tf_near_rigid(double e, int entry)
{
    gpuskin_mat4 m, s = gpuskin_mat4_identity(), out;
    gpuskin_trs t = gpuskin_trs_identity();
    t.rotation = tf_quat();
    t.translation.x = tf_range(-3, 3);
    m = gpuskin_mat4_from_trs(&t);
    s.m[(entry % 3) * 4 + (entry / 3) % 3] += (float)e;
    out = gpuskin_mat4_mul(&m, &s);
    return out;
}

static void test_pack_dq_fast_random(void)
{
    static const uint32_t counts[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 19, 31, 32, 33, 64, 130, GPUSKIN_MAX_JOINTS};
    size_t c;
    for (c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
        const uint32_t n = counts[c];
        gpuskin_mat4 *m = (gpuskin_mat4 *)malloc(n * sizeof *m);
        uint32_t j;
        int kind;
        for (kind = 0; kind <= TF_KINDS; ++kind) { /* each kind alone, then all mixed */
            char what[64];
            for (j = 0; j < n; ++j) m[j] = tf_matrix(kind < TF_KINDS ? kind : (int)tf_below(TF_KINDS));
            snprintf(what, sizeof what, "%u joints, kind %d", n, kind);
            tf_check_pack_dq_fast(m, n, what);
        }
        free(m);
    }
}

/* Joint j of the polar lanes' cases, by j % 4: scales 1 : s : s around the
   lanes' bound on |A|_F^2 / |cofactor(A)|_F (31.6, s about 1/45 at its edge),
   from both sides; two short axes beyond it (s, s' of 0.004-0.012, within the
   determinant's margin), where the float lanes would miss the reference by up to
   ~1e-6; one squashed axis (1e-4 to 4e-4: harmless to the lanes); scales from
   0.01 to 100. Mirrored for j % 8 < 2; a rotation on either side of the scale. */
static gpuskin_mat4 tf_short_axes(int j)
{
    gpuskin_trs t = gpuskin_trs_identity(), u = gpuskin_trs_identity();
    gpuskin_mat4 m, mu;
    const float edge = (1.0f / 44.7f) * (1.0f + ((float)(j % 32) - 16.0f) * 0.01f);
    t.rotation = tf_quat();
    if (j % 4 == 0) {
        t.scale.y = t.scale.z = edge;
    } else if (j % 4 == 1) {
        t.scale.y = tf_range(0.004f, 0.012f); t.scale.z = tf_range(0.004f, 0.012f);
    } else if (j % 4 == 2) {
        t.scale.z = tf_range(1.05e-4f, 4e-4f);
    } else {
        t.scale.x = powf(10.0f, tf_range(-2.0f, 2.0f)); t.scale.y = powf(10.0f, tf_range(-2.0f, 2.0f));
        t.scale.z = powf(10.0f, tf_range(-2.0f, 2.0f));
    }
    if (j % 8 < 2) t.scale.x = -t.scale.x;
    m = gpuskin_mat4_from_trs(&t);
    u.rotation = tf_quat();
    mu = gpuskin_mat4_from_trs(&u);
    return gpuskin_mat4_mul(&m, &mu);
}

/* Joints at and around every decision the split takes: the rigid tolerance,
   the mirror (det sign), a collapsed axis, the Shepperd cases and w near 0; for
   the polar split also the condition bound of its float lanes. */
static void test_pack_dq_fast_thresholds(void)
{
    enum { N = 256 };
    gpuskin_mat4 m[N];
    uint32_t j;
    const double tol = (double)GPUSKIN_RIGID_TOLERANCE;
    static const double rel[] = {0.5, 0.9, 0.99, 0.999, 0.9999, 1.0, 1.0001, 1.001, 1.01, 1.1, 2.0};
    for (j = 0; j < N; ++j) m[j] = tf_near_rigid(tol * rel[j % 11] * (j & 16 ? -1.0 : 1.0), (int)j);
    tf_check_pack_dq_fast(m, N, "near the rigid tolerance");
    for (j = 0; j < N; ++j) {
        const double axis = 1e-6 * (j % 2 ? 0.9999 : 1.0001) * (j % 3 ? 1.0 : 100.0);
        m[j] = tf_matrix(TF_SCALED);
        if (j % 4 == 0) { m[j].m[0] *= (float)axis; m[j].m[1] *= (float)axis; m[j].m[2] *= (float)axis; }
        if (j % 4 == 1) { m[j].m[4] = m[j].m[0] * 2.0f; m[j].m[5] = m[j].m[1] * 2.0f; m[j].m[6] = m[j].m[2] * 2.0f; }
        if (j % 4 == 2) { m[j].m[4] = m[j].m[0] + (float)axis; m[j].m[5] = m[j].m[1]; m[j].m[6] = m[j].m[2]; }
        if (j % 8 == 3) memset(m[j].m, 0, 12 * sizeof(float)); /* the 3x3 all zero */
        if (j % 8 == 7) { m[j].m[8] = m[j].m[9] = m[j].m[10] = 0.0f; } /* det 0 */
    }
    tf_check_pack_dq_fast(m, N, "collapsed and nearly collapsed axes");
    for (j = 0; j < N; ++j) { /* 180-degree turns (w = 0), 120 degrees about (1,1,1) (trace 0), and near them */
        gpuskin_trs t = gpuskin_trs_identity();
        const float d = (float)(j % 5) * 1e-5f;
        gpuskin_vec3 axis;
        axis.x = j % 3 == 0 ? 1.0f : 0.3f; axis.y = j % 3 == 1 ? 1.0f : 0.2f + d; axis.z = 1.0f;
        t.rotation = gpuskin_quat_axis_angle(axis, j % 2 ? 3.14159265f - d : 2.09439510f + d);
        if (j % 7 == 0) t.scale.x = -1.0f; /* and mirrored */
        m[j] = gpuskin_mat4_from_trs(&t);
    }
    tf_check_pack_dq_fast(m, N, "half turns and zero traces");
    { /* column 0 at the collapsed-axis threshold (1e-6 x the largest entry), to a few float ulps */
        for (j = 0; j < N; ++j) {
            gpuskin_trs t = gpuskin_trs_identity();
            double amax = 0.0;
            int k;
            t.rotation = tf_quat();
            m[j] = gpuskin_mat4_from_trs(&t);
            for (k = 4; k < 11; ++k) amax = fabs(m[j].m[k]) > amax ? fabs(m[j].m[k]) : amax;
            for (k = 0; k < 3; ++k) m[j].m[k] = (float)(m[j].m[k] * 1e-6 * amax * (1.0 + ((double)j - N / 2) * 2e-9));
        }
        tf_check_pack_dq_fast(m, N, "a column at the collapsed-axis threshold");
    }
    { /* det within float noise of 0, either sign: column 2 = column 0 + column 1 + tiny x their normal */
        for (j = 0; j < N; ++j) {
            gpuskin_trs t = gpuskin_trs_identity();
            const double e = ((double)j - N / 2) * 1e-9;
            t.rotation = tf_quat();
            t.scale.x = tf_range(0.5f, 2.0f); t.scale.y = tf_range(0.5f, 2.0f);
            m[j] = gpuskin_mat4_from_trs(&t);
            m[j].m[8] = (float)((double)m[j].m[0] + m[j].m[4] + e * (m[j].m[1] * m[j].m[6] - m[j].m[2] * m[j].m[5]));
            m[j].m[9] = (float)((double)m[j].m[1] + m[j].m[5] + e * (m[j].m[2] * m[j].m[4] - m[j].m[0] * m[j].m[6]));
            m[j].m[10] = (float)((double)m[j].m[2] + m[j].m[6] + e * (m[j].m[0] * m[j].m[5] - m[j].m[1] * m[j].m[4]));
        }
        tf_check_pack_dq_fast(m, N, "a determinant within float noise of 0");
    }
    { /* half turns about random axes, R = 2 a a^T - I rounded to float: w is float noise around 0 */
        for (j = 0; j < N; ++j) {
            double a[3], len;
            int r, c;
            a[0] = tf_range(-1, 1); a[1] = tf_range(-1, 1); a[2] = tf_range(-1, 1);
            len = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) + 1e-3;
            m[j] = gpuskin_mat4_identity();
            for (c = 0; c < 3; ++c)
                for (r = 0; r < 3; ++r) m[j].m[c * 4 + r] = (float)(2.0 * a[r] * a[c] / (len * len) - (r == c ? 1.0 : 0.0));
        }
        tf_check_pack_dq_fast(m, N, "half turns about random axes");
    }
    { /* Eight sets of tf_short_axes joints: the misses beyond the polar lanes'
         bound are rare (about 1 joint in 10^3 - 10^4). */
        int set;
        for (set = 0; set < 8; ++set) {
            for (j = 0; j < N; ++j) m[j] = tf_short_axes((int)j);
            tf_check_pack_dq_fast(m, N, "two short axes, one squashed axis");
        }
    }
}

/* gpuskin_crowd_upload's LBS packer (16-byte stores) writes gpuskin_pack_lbs's
   bytes, and on a non-finite palette returns its error having written nothing. */
static void test_fast_pack_lbs(void)
{
#ifdef GPUSKIN__FAST_SSE2
    static const uint32_t counts[] = {1, 3, 64, 130};
    size_t c;
    for (c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
        const uint32_t n = counts[c];
        gpuskin_mat4 *m = (gpuskin_mat4 *)malloc(n * sizeof *m);
        float *a = (float *)malloc(n * 12 * sizeof(float)), *b = (float *)malloc(n * 12 * sizeof(float));
        uint32_t j;
        for (j = 0; j < n; ++j) m[j] = tf_matrix((int)tf_below(TF_KINDS));
        memset(a, 0xFF, n * 12 * sizeof(float));
        memset(b, 0xFF, n * 12 * sizeof(float));
        CHECK_EQ_INT(gpuskin__fast_pack_lbs(m, n, a), GPUSKIN_SUCCESS);
        CHECK_EQ_INT(gpuskin_pack_lbs(m, n, b), GPUSKIN_SUCCESS);
        CHECK(memcmp(a, b, n * 12 * sizeof(float)) == 0);
        m[n - 1].m[15] = (float)NAN; /* row 3 is not packed, but a NaN anywhere is an error */
        memset(a, 0x5A, n * 12 * sizeof(float));
        memcpy(b, a, n * 12 * sizeof(float));
        CHECK_EQ_INT(gpuskin__fast_pack_lbs(m, n, a), GPUSKIN_ERROR_NON_FINITE);
        CHECK_EQ_INT(gpuskin_pack_lbs(m, n, b), GPUSKIN_ERROR_NON_FINITE);
        CHECK(memcmp(a, b, n * 12 * sizeof(float)) == 0); /* untouched */
        free(m);
        free(a);
        free(b);
    }
    CHECK_EQ_INT(gpuskin__fast_pack_lbs(NULL, 1, NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
    {
        gpuskin_mat4 one = gpuskin_mat4_identity();
        float out[12];
        CHECK_EQ_INT(gpuskin__fast_pack_lbs(&one, 0, out), GPUSKIN_ERROR_INVALID_COUNT);
    }
#endif
}

/* A NaN or an infinity in any joint, at any of its floats, is reported whatever
   the count. The finiteness checks keep four sums (the SSE2 one a sum for each
   column; the AVX-512 one fed by joint j in blocks of four, then a tail), so the
   counts straddle those blocks and the 32-joint split blocks, the bad joint takes
   every position and the bad float every column. Nothing may be written.
   gpuskin__fast_pack_lbs (the LBS uploads' packer) shares the SSE2 check. */
static void test_fast_non_finite_anywhere(void)
{
    static const uint32_t counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 32, 33, 64};
    const float bad_values[3] = {(float)NAN, (float)INFINITY, -(float)INFINITY};
    size_t c;
    for (c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
        const uint32_t n = counts[c];
        gpuskin_mat4 m[64];
        float dq[64 * 8], res[64 * 12];
        uint32_t j, word;
        int v, failures = 0;
        for (j = 0; j < n; ++j) m[j] = tf_matrix((int)tf_below(TF_KINDS));
        for (j = 0; j < n; ++j) {
            for (v = 0; v < 3; ++v) {
                const int k = (int)((j * 5u + (uint32_t)v * 7u) % 16u); /* every float position over the joints */
                const float keep = m[j].m[k];
                size_t b;
                m[j].m[k] = bad_values[v];
                word = 1234;
                memset(dq, 0x5A, sizeof dq);
                memset(res, 0x5A, sizeof res);
                failures += gpuskin_pack_dq_fast(m, n, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word) != GPUSKIN_ERROR_NON_FINITE;
                failures += word != 1234;
                for (b = 0; b < sizeof dq; ++b) failures += ((unsigned char *)dq)[b] != 0x5A;
                for (b = 0; b < sizeof res; ++b) failures += ((unsigned char *)res)[b] != 0x5A;
#ifdef GPUSKIN__FAST_SSE2
                failures += gpuskin__fast_pack_lbs(m, n, res) != GPUSKIN_ERROR_NON_FINITE;
                for (b = 0; b < sizeof res; ++b) failures += ((unsigned char *)res)[b] != 0x5A;
#endif
                m[j].m[k] = keep;
            }
        }
        if (failures) fprintf(stderr, "  %u joints: %d wrong results\n", n, failures);
        CHECK(failures == 0);
        /* and with every joint finite, both succeed */
        CHECK_EQ_INT(gpuskin_pack_dq_fast(m, n, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_SUCCESS);
#ifdef GPUSKIN__FAST_SSE2
        CHECK_EQ_INT(gpuskin__fast_pack_lbs(m, n, res), GPUSKIN_SUCCESS);
#endif
    }
}

static void test_pack_dq_fast_errors(void)
{
    gpuskin_mat4 m[11];
    float dq[88], res[132];
    uint32_t j, word = 1234;
    for (j = 0; j < 11; ++j) m[j] = tf_matrix(TF_SCALED);
    m[10].m[14] = (float)INFINITY;
    memset(dq, 0x7F, sizeof dq);
    CHECK_EQ_INT(gpuskin_pack_dq_fast(m, 11, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_ERROR_NON_FINITE);
    for (j = 0; j < 88; ++j) CHECK(((unsigned char *)dq)[j] == 0x7F); /* nothing written */
    CHECK_EQ_INT((int)word, 1234);
    m[10].m[14] = 1.0f;
    CHECK_EQ_INT(gpuskin_pack_dq_fast(NULL, 11, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_pack_dq_fast(m, 11, GPUSKIN_SPLIT_GRAM_SCHMIDT, NULL, res, &word), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_pack_dq_fast(m, 11, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_pack_dq_fast(m, 0, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_ERROR_INVALID_COUNT);
    CHECK_EQ_INT(gpuskin_pack_dq_fast(m, 11, (gpuskin_split_method)7, dq, res, &word), GPUSKIN_ERROR_INVALID_METHOD);
    { /* the polar split refuses the same input the same way */
        memset(dq, 0x7F, sizeof dq);
        word = 1234;
        m[3].m[5] = (float)NAN;
        CHECK_EQ_INT(gpuskin_pack_dq_fast(m, 11, GPUSKIN_SPLIT_POLAR, dq, res, &word), GPUSKIN_ERROR_NON_FINITE);
        for (j = 0; j < 88; ++j) CHECK(((unsigned char *)dq)[j] == 0x7F);
        CHECK_EQ_INT((int)word, 1234);
        CHECK_EQ_INT(gpuskin_pack_dq_fast(NULL, 11, GPUSKIN_SPLIT_POLAR, dq, res, &word), GPUSKIN_ERROR_NULL_ARGUMENT);
        CHECK_EQ_INT(gpuskin_pack_dq_fast(m, 0, GPUSKIN_SPLIT_POLAR, dq, res, &word), GPUSKIN_ERROR_INVALID_COUNT);
    }
}

/* Entries far beyond any rig's, found by tests/test_robust.c: the float
   determinant overflowed to inf - inf = NaN, which no margin test flagged, and
   the lanes returned NaN quaternions, infinite residuals or a wrong rotation.
   Every lane (one of 32, in each position of a group) must now equal the double
   reference bit for bit; and a column beyond FLT_MAX / sqrt(3) is refused by both. */
static void test_pack_dq_fast_huge_entries(void)
{
    static const float huge[16] = {3.55429393e18f, -1.63460611e19f, 1.81506884f, 0,
                                   2.72026148e19f, -7.2360316e19f, -0.38898176f, 0,
                                   7.41457074e19f, 0.642022848f, 2.37123509e18f, 0,
                                   1.98f, 3.81f, -2.52f, 1};
    gpuskin_mat4 m[32];
    float dq[32 * 8], res[32 * 12], dq2[32 * 8], res2[32 * 12];
    uint32_t j, k, word = 0, word2 = 0;
    for (k = 0; k < 32; ++k) { /* the huge joint at k, ordinary ones around it */
        for (j = 0; j < 32; ++j) m[j] = tf_matrix(TF_SCALED);
        memcpy(m[k].m, huge, sizeof huge);
        if (k % 3 == 1) for (j = 0; j < 12; ++j) m[k].m[j] *= 1e-7f; /* entries ~1e12-1e13, at the bar */
        CHECK_EQ_INT(gpuskin_pack_dq_fast(m, 32, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_SUCCESS);
        CHECK_EQ_INT(gpuskin_pack_dq(m, 32, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq2, res2, &word2), GPUSKIN_SUCCESS);
        CHECK(memcmp(dq + 8 * k, dq2 + 8 * k, 8 * sizeof(float)) == 0);
        CHECK(memcmp(res + 12 * k, res2 + 12 * k, 12 * sizeof(float)) == 0);
        CHECK(word == word2);
        for (j = 0; j < 8; ++j) CHECK(isfinite(dq[8 * k + j]));
        for (j = 0; j < 12; ++j) CHECK(isfinite(res[12 * k + j]));
    }
    /* columns of lengths 5.2e38, 4.2e38 and 3.7e38, nearly orthogonal: S's diagonal
       does not fit a float (with one such column alone the joint is degenerate:
       S = A, which fits) */
    m[5].m[0] = m[5].m[1] = m[5].m[2] = 3e38f;
    m[5].m[4] = 3e38f; m[5].m[5] = -3e38f; m[5].m[6] = 0.0f;
    m[5].m[8] = 1.5e38f; m[5].m[9] = 1.5e38f; m[5].m[10] = -3e38f;
    CHECK_EQ_INT(gpuskin_pack_dq_fast(m, 32, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word), GPUSKIN_ERROR_NON_FINITE);
    CHECK_EQ_INT(gpuskin_pack_dq(m, 32, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq2, res2, &word2), GPUSKIN_ERROR_NON_FINITE);
    {
        gpuskin_split sp;
        CHECK_EQ_INT(gpuskin_split_matrix(&m[5], GPUSKIN_SPLIT_GRAM_SCHMIDT, &sp), GPUSKIN_ERROR_NON_FINITE);
        CHECK_EQ_INT(gpuskin_split_matrix(&m[5], GPUSKIN_SPLIT_POLAR, &sp), GPUSKIN_ERROR_NON_FINITE);
    }
}

int main(int argc, char **argv)
{
    TEST_INIT(argc, argv);
    tf_seed(20261202u);
#ifdef GPUSKIN__FAST_SSE2
    printf("fast path: SSE2\n");
#if defined(GPUSKIN__FAST_AVX512)
    printf("palettes: %s\n", gpuskin__fast_cpu_has_avx512() ? "sixteen lanes (AVX-512), short ends eight (AVX2 + FMA)"
                                                              : gpuskin__fast_cpu_has_avx2_fma() ? "eight lanes (AVX2 + FMA)"
                                                                                                 : "four lanes (SSE2)");
#elif defined(GPUSKIN__FAST_AVX2)
    printf("palettes: %s\n", gpuskin__fast_cpu_has_avx2_fma() ? "eight lanes (AVX2 + FMA)" : "four lanes (SSE2)");
#else
    printf("palettes: four lanes (SSE2)\n");
#endif
#else
    printf("fast path: portable (oracle)\n");
#endif
    RUN_TEST(test_lbs_rigid);
    RUN_TEST(test_lbs_scaled_mirrored_degenerate);
    RUN_TEST(test_lbs_palette_copy_limits);
    RUN_TEST(test_dqs_rigid);
    RUN_TEST(test_dqs_residual);
    RUN_TEST(test_dqs_antipodal_and_ties);
    RUN_TEST(test_singular_blends);
    RUN_TEST(test_scan_false_positives);
    RUN_TEST(test_scan_never_misses);
    RUN_TEST(test_overflow_reported);
    RUN_TEST(test_random_bad_input);
    RUN_TEST(test_denormal_weights);
    RUN_TEST(test_exact_allocations);
    RUN_TEST(test_every_validation_error);
    RUN_TEST(test_palettes_match_reference);
    RUN_TEST(test_palettes_split_ranges);
    RUN_TEST(test_palettes_non_affine);
    RUN_TEST(test_palettes_non_affine_few);
    RUN_TEST(test_skeleton_inverse_bind_rows);
    RUN_TEST(test_palettes_odd_quaternions);
    RUN_TEST(test_palettes_huge_but_finite);
    RUN_TEST(test_palettes_signed_zeros);
    RUN_TEST(test_palettes_errors);
    RUN_TEST(test_pack_dq_fast_random);
    RUN_TEST(test_pack_dq_fast_huge_entries);
    RUN_TEST(test_pack_dq_fast_thresholds);
    RUN_TEST(test_pack_dq_fast_errors);
    RUN_TEST(test_fast_non_finite_anywhere);
    RUN_TEST(test_fast_pack_lbs);
    return TEST_REPORT();
}
