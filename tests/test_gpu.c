/* test_gpu.c - gpuskin's Vulkan half on a real device (lavapipe in CI; pick
   another with GPUSKIN_DEVICE=<name substring>), with VK_LAYER_KHRONOS_validation
   and synchronization validation on. Any message from the layers fails the case
   it arrived in, and the program, as do leaked objects reported at device
   destruction.

   COMPUTE vs ORACLE. The compute output is read back and compared with
   gpuskin_skin_cpu reading the same packed palettes (packed by the same
   gpuskin_pack_lbs/gpuskin_pack_dq_fast calls the upload makes). Tolerance: max
   |gpu - cpu| <= 1e-5 x the model's bounding radius for positions, and 1e-5 for
   unit normals and tangents. Both sides are float32 running the same operations
   in the same order (except that the compute kernels apply a DQS instance's
   blended dual quaternion as R (S p) + t instead of through its matrix: the same
   maths, rounded differently); what is left is a GPU's freedom to fuse multiply-adds
   and its 2.5-ulp division and square root: a few ulp of values of the order of
   the radius, two orders of magnitude inside the bound, while any real mistake
   (a wrong joint, a lost sign, an unnormalised weight) is of the order of the
   radius itself.

   RENDER. The crowd drawn by the skinning vertex shader is compared with the
   same crowd posed by the oracle and drawn by the same pipeline with skinning
   off. See test_render for the threshold. Images go to build/artifacts/. */
#define _POSIX_C_SOURCE 200809L /* mkdir */
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Counting allocator: GPUSKIN_MALLOC can be made to fail on its Nth call, and
   live blocks are counted to prove no failure path leaks. */
static long tg_malloc_calls, tg_malloc_live, tg_malloc_fail_at = -1;
static void *tg_malloc(size_t size)
{
    ++tg_malloc_calls;
    if (tg_malloc_fail_at >= 0 && tg_malloc_calls == tg_malloc_fail_at) return NULL;
    ++tg_malloc_live;
    return malloc(size);
}
static void tg_free(void *p)
{
    if (p) --tg_malloc_live;
    free(p);
}
#define GPUSKIN_MALLOC(size, user) ((void)(user), tg_malloc(size))
#define GPUSKIN_FREE(ptr, user) ((void)(user), tg_free(ptr))

#include <volk.h>
#define GPUSKIN_IMPLEMENTATION
#include "gpuskin.h"
#define VK_SETUP_IMPLEMENTATION
#include "examples/common/vk_setup.h"
#include "testing.h"
#include <stb/stb_image_write.h>

#define TG_PI 3.14159265358979f

static vks_context vk;
static gpuskin_context *ctx;

/* A case fails if the layers said anything while it ran. */
#define CHECK_NO_VALIDATION(before) CHECK_EQ_INT(vk.messages, (before))

/* ---- Fixtures -------------------------------------------------------------------- */

/* A cylinder of radius 0.5 along +y from 0 to joint_count: `rings` rings of
   `sides` vertices, radial normals, tangents around the circumference (w
   alternating +-1), and a chain of joints at y = 0.5, 1.5, ... Each ring is
   weighted between its two nearest joints with raw weights summing to about
   0.9 (the shader renormalises), every third vertex gets a small third
   influence, and slot 2 holds a garbage joint (0xFFFF) behind a zero weight
   (every fifth vertex: a denormal weight, which counts as zero); every fourth
   vertex has that slot first, before its weighted ones (skin.comp's DQS
   kernels move the pivot's influence into slot 0, and the garbage out of it).
   With sets == 2 every vertex also has small weights in a second set. */
typedef struct tg_mesh {
    size_t vertex_count;
    uint32_t joint_count, sets, index_count;
    float *positions, *normals, *tangents, *weights[2];
    uint16_t *joints[2];
    uint32_t *indices;
    float radius; /* bounding radius about the origin */
} tg_mesh;

static void tg_mesh_free(tg_mesh *m)
{
    free(m->positions);
    free(m->normals);
    free(m->tangents);
    free(m->weights[0]);
    free(m->weights[1]);
    free(m->joints[0]);
    free(m->joints[1]);
    free(m->indices);
    memset(m, 0, sizeof *m);
}

static tg_mesh tg_cylinder(uint32_t rings, uint32_t sides, uint32_t joint_count, uint32_t sets)
{
    tg_mesh m;
    uint32_t r, s, q;
    float height = (float)joint_count;
    memset(&m, 0, sizeof m);
    m.vertex_count = (size_t)rings * sides;
    m.joint_count = joint_count;
    m.sets = sets;
    m.positions = (float *)calloc(m.vertex_count * 3, sizeof(float));
    m.normals = (float *)calloc(m.vertex_count * 3, sizeof(float));
    m.tangents = (float *)calloc(m.vertex_count * 4, sizeof(float));
    for (q = 0; q < sets; ++q) {
        m.weights[q] = (float *)calloc(m.vertex_count * 4, sizeof(float));
        m.joints[q] = (uint16_t *)calloc(m.vertex_count * 4, sizeof(uint16_t));
    }
    for (r = 0; r < rings; ++r) {
        float y = height * (float)r / (float)(rings - 1);
        float f = y - 0.5f;
        uint32_t j0 = f < 0 ? 0u : (uint32_t)f;
        uint32_t j1 = j0 + 1 < joint_count ? j0 + 1 : j0;
        float t = f < 0 ? 0.0f : f - (float)j0;
        if (t > 1.0f || j1 == j0) t = j1 == j0 ? 0.0f : 1.0f;
        if (j0 >= joint_count) j0 = j1 = joint_count - 1;
        for (s = 0; s < sides; ++s) {
            size_t v = (size_t)r * sides + s;
            float a = 2.0f * TG_PI * (float)s / (float)sides;
            float ca = cosf(a), sa = sinf(a);
            m.positions[v * 3 + 0] = 0.5f * ca;
            m.positions[v * 3 + 1] = y;
            m.positions[v * 3 + 2] = 0.5f * sa;
            m.normals[v * 3 + 0] = ca;
            m.normals[v * 3 + 1] = 0.0f;
            m.normals[v * 3 + 2] = sa;
            m.tangents[v * 4 + 0] = -sa;
            m.tangents[v * 4 + 1] = 0.0f;
            m.tangents[v * 4 + 2] = ca;
            m.tangents[v * 4 + 3] = (s & 1) ? -1.0f : 1.0f;
            m.joints[0][v * 4 + 0] = (uint16_t)j0;
            m.weights[0][v * 4 + 0] = 0.9f * (1.0f - t);
            m.joints[0][v * 4 + 1] = (uint16_t)j1;
            m.weights[0][v * 4 + 1] = 0.9f * t;
            m.joints[0][v * 4 + 2] = 0xFFFFu; /* never read: weight 0, or denormal (counts as 0) */
            m.weights[0][v * 4 + 2] = (s % 5 == 0) ? 1e-40f : 0.0f;
            m.joints[0][v * 4 + 3] = (uint16_t)((j0 + 2) % joint_count);
            m.weights[0][v * 4 + 3] = (s % 3 == 0) ? 0.05f : 0.0f;
            if (s % 4 == 1) { /* the garbage slot first: the pivot moves past an uncounted slot 0 */
                uint16_t jt = m.joints[0][v * 4 + 0];
                float wt = m.weights[0][v * 4 + 0];
                m.joints[0][v * 4 + 0] = m.joints[0][v * 4 + 2];
                m.weights[0][v * 4 + 0] = m.weights[0][v * 4 + 2];
                m.joints[0][v * 4 + 2] = jt;
                m.weights[0][v * 4 + 2] = wt;
            }
            if (sets == 2) {
                m.joints[1][v * 4 + 0] = (uint16_t)((j0 + 3) % joint_count);
                m.weights[1][v * 4 + 0] = 0.04f;
                m.joints[1][v * 4 + 1] = 0xFFFFu;
                m.weights[1][v * 4 + 1] = 0.0f;
                m.joints[1][v * 4 + 2] = (uint16_t)((j1 + 1) % joint_count);
                m.weights[1][v * 4 + 2] = (s & 1) ? 0.03f : 0.0f;
                m.joints[1][v * 4 + 3] = (uint16_t)(joint_count - 1);
                m.weights[1][v * 4 + 3] = 0.02f;
            }
            if (r == 0 && s == 1) /* unweighted: keeps its bind pose in every kernel */
                for (q = 0; q < sets; ++q) memset(&m.weights[q][v * 4], 0, 4 * sizeof(float));
        }
    }
    m.index_count = (rings - 1) * sides * 6;
    m.indices = (uint32_t *)calloc(m.index_count, sizeof(uint32_t));
    q = 0;
    for (r = 0; r + 1 < rings; ++r)
        for (s = 0; s < sides; ++s) {
            uint32_t a = r * sides + s, b = r * sides + (s + 1) % sides;
            uint32_t c = a + sides, d = b + sides;
            m.indices[q++] = a;
            m.indices[q++] = c;
            m.indices[q++] = b;
            m.indices[q++] = b;
            m.indices[q++] = c;
            m.indices[q++] = d;
        }
    m.radius = sqrtf(height * height + 0.25f);
    return m;
}

static gpuskin_vertex_streams tg_streams(const tg_mesh *m, int normals, int tangents)
{
    gpuskin_vertex_streams st;
    uint32_t q;
    memset(&st, 0, sizeof st);
    st.vertex_count = m->vertex_count;
    st.positions.data = m->positions;
    if (normals) st.normals.data = m->normals;
    if (tangents) st.tangents.data = m->tangents;
    st.influence_sets = m->sets;
    st.joint_type = GPUSKIN_JOINT_U16;
    for (q = 0; q < m->sets; ++q) {
        st.joints[q].data = m->joints[q];
        st.weights[q].data = m->weights[q];
    }
    return st;
}

static gpuskin_mat4 tg_translate(float x, float y, float z)
{
    gpuskin_mat4 m = gpuskin_mat4_identity();
    m.m[12] = x;
    m.m[13] = y;
    m.m[14] = z;
    return m;
}

static gpuskin_mat4 tg_rotate(float ax, float ay, float az, float angle)
{
    gpuskin_vec3 axis;
    gpuskin_trs trs = gpuskin_trs_identity();
    axis.x = ax;
    axis.y = ay;
    axis.z = az;
    trs.rotation = gpuskin_quat_axis_angle(axis, angle);
    return gpuskin_mat4_from_trs(&trs);
}

static gpuskin_mat4 tg_mul(gpuskin_mat4 a, gpuskin_mat4 b) { return gpuskin_mat4_mul(&a, &b); }

enum { TG_RIGID = 0, TG_SCALED = 1, TG_TWIST = 2, TG_SOME_SCALED = 3, TG_UNIFORM = 4, TG_SOME_UNIFORM = 5, TG_SIZED = 6,
       TG_SOME_SIZED = 7, TG_TRIANGULAR = 8, TG_SOME_TRIANGULAR = 9, TG_SYMMETRIC = 10, TG_SOME_SYMMETRIC = 11 };

/* Palette of instance i at time `phase`: a bending chain (angles x `bend`),
   placed on an 8-wide grid 3 units apart and turned about y. Joint j bends
   about (0, j, 0).
   TG_SCALED adds, joint by joint, a non-uniform scale, a shear, a mirror, a
   degenerate (y collapsed) and a rigid joint. TG_TWIST twists joint j about the
   cylinder's axis by 180 degrees x j/(J-1): the candy-wrapper fixture.
   TG_SOME_SCALED is TG_SCALED for instances with i % 4 >= 2, TG_RIGID for the
   others: with tg_methods_mixed, LBS, rigid DQS and DQS with the residual
   interleaved. TG_UNIFORM scales every joint uniformly (by the instance's size
   times 1, 1.15 or 1.3 by joint): S = s I, gpuskin_dq_uniform_scale's case.
   TG_SOME_UNIFORM is TG_UNIFORM for even instances, TG_SCALED for odd ones.
   TG_SIZED gives each instance one size for all its joints, in its placement:
   0.6, 0.8, 1 (rigid), 1.2 or 1.4 by instance. TG_SOME_SIZED is TG_SIZED for
   even instances, TG_UNIFORM for odd ones. TG_TRIANGULAR is TG_SCALED with a
   scale and shear instead of the degenerate joint, so that the Gram-Schmidt
   split gives every joint an upper-triangular S; TG_SOME_TRIANGULAR is
   TG_UNIFORM for even instances, TG_TRIANGULAR for odd ones. TG_SYMMETRIC is
   TG_TRIANGULAR with another non-uniform scale instead of the mirror, so that
   the polar split gives every joint a symmetric S; TG_SOME_SYMMETRIC is
   TG_UNIFORM for even instances, TG_SYMMETRIC for odd ones. */
static void tg_palette(uint32_t i, uint32_t joint_count, int kind, float phase, float bend, gpuskin_mat4 *out)
{
    uint32_t j;
    gpuskin_mat4 model = tg_mul(tg_translate((float)(i % 8) * 3.0f - 10.5f, 0.0f, (float)(i / 8) * 3.0f - 10.5f),
                                tg_rotate(0, 1, 0, 0.37f * (float)i + phase));
    if (kind == TG_SIZED || (kind == TG_SOME_SIZED && i % 2 == 0)) {
        gpuskin_mat4 s = gpuskin_mat4_identity();
        s.m[0] = s.m[5] = s.m[10] = 0.6f + 0.2f * (float)(i % 5);
        model = tg_mul(model, s);
    }
    gpuskin_mat4 global = gpuskin_mat4_identity();
    for (j = 0; j < joint_count; ++j) {
        gpuskin_mat4 pivot = tg_translate(0, (float)j, 0), unpivot = tg_translate(0, -(float)j, 0), local;
        if (kind == TG_TWIST) {
            float angle = TG_PI * (float)j / (float)(joint_count > 1 ? joint_count - 1 : 1);
            out[j] = tg_mul(model, tg_rotate(0, 1, 0, angle));
            continue;
        }
        local = tg_rotate(j % 2 ? 1.0f : 0.3f, 0.2f, j % 2 ? 0.1f : 1.0f,
                          bend * (0.25f + 0.1f * (float)((i + j) % 5) + 0.3f * sinf(phase + (float)j)));
        global = tg_mul(global, tg_mul(pivot, tg_mul(local, unpivot)));
        out[j] = tg_mul(model, global);
        if (kind == TG_UNIFORM || (kind == TG_SOME_UNIFORM && i % 2 == 0) || (kind == TG_SOME_SIZED && i % 2 == 1) ||
            (kind == TG_SOME_TRIANGULAR && i % 2 == 0) || (kind == TG_SOME_SYMMETRIC && i % 2 == 0)) {
            gpuskin_mat4 s = gpuskin_mat4_identity();
            float su = (0.6f + 0.2f * (float)(i % 5)) * (1.0f + 0.15f * (float)(j % 3));
            s.m[0] = s.m[5] = s.m[10] = su;
            out[j] = tg_mul(out[j], tg_mul(pivot, tg_mul(s, unpivot)));
        }
        if (kind == TG_SCALED || (kind == TG_SOME_SCALED && i % 4 >= 2) || (kind == TG_SOME_UNIFORM && i % 2 == 1) ||
            kind == TG_TRIANGULAR || (kind == TG_SOME_TRIANGULAR && i % 2 == 1) || kind == TG_SYMMETRIC ||
            (kind == TG_SOME_SYMMETRIC && i % 2 == 1)) {
            gpuskin_mat4 s = gpuskin_mat4_identity();
            int symmetric = kind == TG_SYMMETRIC || kind == TG_SOME_SYMMETRIC;
            int triangular = kind == TG_TRIANGULAR || kind == TG_SOME_TRIANGULAR || symmetric;
            switch ((j + i) % 5) {
            case 0: s.m[0] = 1.3f; s.m[5] = 0.7f; s.m[10] = 1.1f; break; /* non-uniform scale */
            case 1: s.m[4] = 0.35f; s.m[9] = -0.2f; break;                 /* shear */
            case 2:
                if (symmetric) { s.m[0] = 0.8f; s.m[10] = 1.25f; } /* another non-uniform scale */
                else s.m[0] = -1.0f;                               /* mirrored */
                break;
            case 3:
                if (triangular) { s.m[5] = 0.5f; s.m[2] = 0.25f; } /* scale and shear */
                else s.m[5] = 0.0f;                                 /* degenerate */
                break;
            default: break; /* rigid */
            }
            out[j] = tg_mul(out[j], tg_mul(pivot, tg_mul(s, unpivot)));
        }
    }
}

/* ---- A crowd on the device ----------------------------------------------------------- */

typedef struct tg_case {
    uint32_t instances, rings, sides, joints, sets;
    int normals, tangents, kind;
    const uint8_t *methods; /* per instance; NULL = all LBS */
    uint32_t output_flags;
    gpuskin_split_method split;
    uint32_t first, count; /* dispatch range; count 0 = all */
    uint32_t out_offset;   /* bytes between the output buffer's start and the output (a multiple of 4) */
    uint32_t kernel_flags, per_invocation; /* gpuskin_skin_dispatch_desc's */
    float phase, bend;
} tg_case;

static tg_case tg_default_case(void)
{
    tg_case c;
    memset(&c, 0, sizeof c);
    c.instances = 4;
    c.rings = 12;
    c.sides = 10;
    c.joints = 5;
    c.sets = 1;
    c.normals = 1;
    c.output_flags = GPUSKIN_OUTPUT_NORMALS;
    c.bend = 1.0f;
    return c;
}

typedef struct tg_world {
    tg_mesh m;
    gpuskin_vertex_streams st;
    gpuskin_mesh *mesh;
    gpuskin_crowd *crowd;
    gpuskin_mat4 *palettes;
    uint32_t *words;
} tg_world;

static int tg_world_create(tg_world *w, const tg_case *c, uint32_t frames)
{
    gpuskin_mesh_desc md;
    gpuskin_crowd_desc cd;
    memset(w, 0, sizeof *w);
    w->m = tg_cylinder(c->rings, c->sides, c->joints, c->sets);
    w->st = tg_streams(&w->m, c->normals, c->tangents);
    w->palettes = (gpuskin_mat4 *)calloc((size_t)c->instances * c->joints, sizeof(gpuskin_mat4));
    w->words = (uint32_t *)calloc(c->instances, sizeof(uint32_t));
    memset(&md, 0, sizeof md);
    md.streams = w->st;
    md.joint_count = c->joints;
    md.indices = w->m.indices;
    md.index_count = w->m.index_count;
    CHECK_EQ_INT(gpuskin_mesh_create(ctx, &md, &w->mesh), GPUSKIN_SUCCESS);
    if (!w->mesh) return 0;
    memset(&cd, 0, sizeof cd);
    cd.mesh = w->mesh;
    cd.capacity = c->instances;
    cd.frames_in_flight = frames;
    CHECK_EQ_INT(gpuskin_crowd_create(ctx, &cd, &w->crowd), GPUSKIN_SUCCESS);
    return w->crowd != NULL;
}

static void tg_world_destroy(tg_world *w)
{
    gpuskin_crowd_destroy(w->crowd);
    gpuskin_mesh_destroy(w->mesh);
    free(w->palettes);
    free(w->words);
    tg_mesh_free(&w->m);
}

static int tg_upload(tg_world *w, const tg_case *c, uint32_t frame)
{
    gpuskin_crowd_upload_desc up;
    uint32_t i;
    for (i = 0; i < c->instances; ++i)
        tg_palette(i, c->joints, c->kind, c->phase, c->bend, w->palettes + (size_t)i * c->joints);
    memset(&up, 0, sizeof up);
    up.frame = frame;
    up.instance_count = c->instances;
    up.palettes = w->palettes;
    up.methods = c->methods;
    up.split = c->split;
    up.out_method_words = w->words;
    CHECK_EQ_INT(gpuskin_crowd_upload(w->crowd, &up), GPUSKIN_SUCCESS);
    return 1;
}

/* Oracle output of instance i in the compute layout of `flags`. */
static void tg_oracle(const tg_world *w, const tg_case *c, uint32_t i, uint32_t flags, float *out)
{
    gpuskin_cpu_skin_desc sk;
    const gpuskin_mat4 *p = w->palettes + (size_t)i * c->joints;
    uint32_t word = GPUSKIN_METHOD_LBS, stride = gpuskin_output_stride(flags);
    float *lbs = (float *)calloc((size_t)c->joints * 12, sizeof(float));
    float *dq = (float *)calloc((size_t)c->joints * 8, sizeof(float));
    float *res = (float *)calloc((size_t)c->joints * 12, sizeof(float));
    if (c->methods && c->methods[i] == GPUSKIN_METHOD_DQS)
        /* what gpuskin_crowd_upload calls: the same bytes as the GPU's (a degenerate
           joint's normals turn on the sign of a near-zero determinant, so even an
           ulp matters; tests/test_fast.c checks the fast packer against gpuskin_pack_dq) */
    {
        CHECK_EQ_INT(gpuskin_pack_dq_fast(p, c->joints, c->split, dq, res, &word), GPUSKIN_SUCCESS);
        CHECK_EQ_INT(gpuskin_dq_uniform_scale(res, c->joints, &word), GPUSKIN_SUCCESS);
    } else
        CHECK_EQ_INT(gpuskin_pack_lbs(p, c->joints, lbs), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(w->words[i], word); /* the word the GPU got is the oracle's */
    memset(&sk, 0, sizeof sk);
    sk.streams = w->st;
    sk.joint_count = c->joints;
    sk.method_word = word;
    sk.lbs_palette = lbs;
    sk.dq_palette = dq;
    sk.residual_palette = res;
    sk.out_positions.data = out;
    sk.out_positions.stride = stride;
    if (flags & GPUSKIN_OUTPUT_NORMALS) {
        sk.out_normals.data = out + 3;
        sk.out_normals.stride = stride;
    }
    if (flags & GPUSKIN_OUTPUT_TANGENTS) {
        sk.out_tangents.data = out + ((flags & GPUSKIN_OUTPUT_NORMALS) ? 6 : 3);
        sk.out_tangents.stride = stride;
    }
    CHECK_EQ_INT(gpuskin_skin_cpu(&sk), GPUSKIN_SUCCESS);
    free(lbs);
    free(dq);
    free(res);
}

/* Largest position and direction (normal, tangent) differences of n instances'
   records in `gpu` (starting at instance `first`) against the oracle. */
static void tg_compare(const tg_world *w, const tg_case *c, uint32_t first, uint32_t n, uint32_t flags,
                       const float *gpu, double *max_pos, double *max_dir)
{
    uint32_t floats = gpuskin_output_stride(flags) / 4, i, k;
    size_t v, V = w->m.vertex_count;
    float *cpu = (float *)calloc(V * floats, sizeof(float));
    for (i = 0; i < n; ++i) {
        const float *g = gpu + (size_t)i * V * floats;
        tg_oracle(w, c, first + i, flags, cpu);
        for (v = 0; v < V * floats; v += floats) {
            for (k = 0; k < 3; ++k) *max_pos = fmax(*max_pos, fabs((double)g[v + k] - cpu[v + k]));
            for (k = 3; k < floats; ++k) *max_dir = fmax(*max_dir, fabs((double)g[v + k] - cpu[v + k]));
        }
    }
    free(cpu);
}

/* A barrier over the whole of one buffer. */
static void tg_buffer_barrier(VkCommandBuffer cmd, VkBuffer buffer, VkPipelineStageFlags src_stage,
                              VkAccessFlags src_access, VkPipelineStageFlags dst_stage, VkAccessFlags dst_access)
{
    VkBufferMemoryBarrier b;
    memset(&b, 0, sizeof b);
    b.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.buffer = buffer;
    b.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 1, &b, 0, NULL);
}

static void tg_barrier_to_host(VkCommandBuffer cmd, VkBuffer buffer)
{
    tg_buffer_barrier(cmd, buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

static VkResult tg_readback_buffer(VkDeviceSize size, gpuskin_buffer *out)
{
    gpuskin_allocator a = gpuskin_default_allocator(ctx);
    return a.create_buffer(a.user, size,
                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_VERTEX_BUFFER_BIT |
                               VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                           GPUSKIN_MEMORY_READBACK, out);
}

static void tg_release_buffer(gpuskin_buffer *b)
{
    gpuskin_allocator a = gpuskin_default_allocator(ctx);
    if (b->buffer != VK_NULL_HANDLE) a.destroy_buffer(a.user, b);
}

/* Fills a readback buffer with TG_GUARD before the compute shader writes it. */
#define TG_GUARD 0xA5u
static void tg_fill_guard(VkCommandBuffer cmd, VkBuffer buffer)
{
    vkCmdFillBuffer(cmd, buffer, 0, VK_WHOLE_SIZE, TG_GUARD * 0x01010101u);
    tg_buffer_barrier(cmd, buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
}

/* Bytes [from, to) of a mapped buffer still hold TG_GUARD. */
static int tg_guard_intact(const gpuskin_buffer *b, VkDeviceSize from, VkDeviceSize to)
{
    const unsigned char *p = (const unsigned char *)b->mapped;
    VkDeviceSize i;
    for (i = from; i < to; ++i)
        if (p[i] != TG_GUARD) return 0;
    return 1;
}

/* Which kernel gpuskin_cmd_skin recorded: ctx's vkCmdBindPipeline goes through
   tg_bind_spy (installed in main; this file compiles the implementation, so the
   context's function table is in reach), and tg_kernel_of finds the pipeline
   among ctx's compute pipelines. The kernel is a speed choice the outputs
   cannot show: a range given the general kernel instead skins just as right. */
static PFN_vkCmdBindPipeline tg_real_bind_pipeline;
static VkPipeline tg_last_pipeline;
static VKAPI_ATTR void VKAPI_CALL tg_bind_spy(VkCommandBuffer cmd, VkPipelineBindPoint point, VkPipeline pipeline)
{
    tg_last_pipeline = pipeline;
    tg_real_bind_pipeline(cmd, point, pipeline);
}

/* GPUSKIN__VK_KERNEL_* of a compute pipeline of ctx, or -1. */
static int tg_kernel_of(VkPipeline pipeline)
{
    uint32_t sets, kernel, per;
    for (sets = 0; sets < 2; ++sets)
        for (kernel = 0; kernel < GPUSKIN__VK_KERNEL_KINDS; ++kernel)
            for (per = 0; per < GPUSKIN__VK_PER_INVOCATION_COUNTS; ++per)
                if (ctx->compute_pipelines[sets][kernel][per] == pipeline) return (int)kernel;
    return -1;
}

static int tg_kernel; /* of the last tg_skin_and_compare, from tg_kernel_of */

/* Dispatches c's range of a world already uploaded to frame 1, reads it back and
   compares it with the oracle; the bytes around the output must stay untouched
   (skin.comp writes whole vec4s inside the output and single floats at its ends). */
static void tg_skin_and_compare(tg_world *w, const tg_case *c, const char *name)
{
    gpuskin_buffer out;
    gpuskin_skin_dispatch_desc sd;
    VkCommandBuffer cmd;
    double max_pos = 0, max_dir = 0;
    uint32_t count = c->count ? c->count : c->instances - c->first;
    uint32_t stride = gpuskin_output_stride(c->output_flags);
    const VkDeviceSize bytes = (VkDeviceSize)count * w->m.vertex_count * stride, guard = 64;

    memset(&out, 0, sizeof out);
    CHECK_EQ_INT(tg_readback_buffer(c->out_offset + bytes + guard, &out), VK_SUCCESS);
    if (!out.mapped || vks_begin(&vk, &cmd) != VK_SUCCESS) goto done;
    CHECK_EQ_INT(gpuskin_cmd_upload_mesh(w->mesh, cmd), GPUSKIN_SUCCESS);
    tg_fill_guard(cmd, out.buffer);
    memset(&sd, 0, sizeof sd);
    sd.frame = 1;
    sd.first_instance = c->first;
    sd.instance_count = count;
    sd.output = out.address + c->out_offset;
    sd.output_size = bytes;
    sd.output_flags = c->output_flags;
    sd.kernel_flags = c->kernel_flags;
    sd.instances_per_invocation = c->per_invocation;
    tg_last_pipeline = VK_NULL_HANDLE;
    CHECK_EQ_INT(gpuskin_cmd_skin(w->crowd, cmd, &sd), GPUSKIN_SUCCESS);
    tg_kernel = tg_kernel_of(tg_last_pipeline);
    tg_barrier_to_host(cmd, out.buffer);
    CHECK_EQ_INT(vks_submit_wait(&vk, cmd), VK_SUCCESS);
    tg_compare(w, c, c->first, count, c->output_flags,
               (const float *)(const void *)((const char *)out.mapped + c->out_offset), &max_pos, &max_dir);
    printf("  %-26s %3u inst x %4u vert: max|dp| %.3g (tol %.3g), max|dn| %.3g (tol 1e-5)\n", name, count,
           (unsigned)w->m.vertex_count, max_pos, 1e-5 * w->m.radius, max_dir);
    CHECK(max_pos <= 1e-5 * w->m.radius);
    CHECK(max_dir <= 1e-5);
    CHECK(tg_guard_intact(&out, 0, c->out_offset));
    CHECK(tg_guard_intact(&out, c->out_offset + bytes, c->out_offset + bytes + guard));
done:
    tg_release_buffer(&out);
}

/* Uploads, dispatches, reads back and compares one case. */
static uint32_t tg_uniform_instances; /* of the last tg_compute_case: words with the uniform bit */
/* and the kinds gpuskin_crowd_upload gave its instances, as bits 1 << GPUSKIN__VK_KIND_*
   (this file compiles the implementation: what decides the kernel, read from inside) */
static uint32_t tg_kinds;

static void tg_compute_case(const tg_case *c, const char *name, uint32_t *residual_instances)
{
    tg_world w;
    unsigned before = vk.messages;
    uint32_t i;

    tg_uniform_instances = 0;
    tg_kinds = 0;
    tg_kernel = -1;
    if (tg_world_create(&w, c, 2)) {
        tg_upload(&w, c, 1);
        for (i = 0; i < c->instances; ++i) tg_kinds |= 1u << w.crowd->kinds[(size_t)w.crowd->capacity + i];
        tg_skin_and_compare(&w, c, name);
        if (residual_instances) {
            *residual_instances = 0;
            for (i = 0; i < c->instances; ++i) *residual_instances += (w.words[i] & GPUSKIN_METHOD_RESIDUAL_BIT) != 0;
        }
        for (i = 0; i < c->instances; ++i) tg_uniform_instances += (w.words[i] & GPUSKIN_METHOD_UNIFORM_BIT) != 0;
    }
    tg_world_destroy(&w);
    CHECK_NO_VALIDATION(before);
}

/* ---- Compute vs oracle --------------------------------------------------------------- */

static uint8_t tg_methods_all_dqs[128], tg_methods_mixed[128];

static void test_compute_lbs(void)
{
    tg_case c = tg_default_case();
    tg_compute_case(&c, "lbs", NULL);
}

/* A skeleton larger than the others by far (130 joints; palette slices well apart
   in memory), with both influence-set pipelines. */
static void test_compute_many_joints(void)
{
    tg_case c = tg_default_case();
    c.joints = 130;
    c.rings = 140;
    c.sides = 6;
    c.instances = 6;
    c.kind = TG_SCALED;
    c.methods = tg_methods_mixed;
    tg_compute_case(&c, "130 joints, mixed", NULL);
    c.sets = 2;
    tg_compute_case(&c, "130 joints, 8 influences", NULL);
}

/* skin.comp writes records with normals, when the output is 8-byte aligned, as
   16- and 8-byte stores that depend on where each record starts (specialised
   kernels) or as float pairs (the general kernel), and single floats otherwise.
   Outputs at every 4-byte phase, records of 3, 6, 7 and 10 floats, meshes smaller
   than a subgroup and of odd vertex counts (each instance then starts at the
   other 8-byte phase), through both kinds of kernel; the bytes around the output
   must stay untouched (tg_skin_and_compare). */
static void test_compute_output_alignment(void)
{
    static const struct {
        uint32_t rings, sides, flags, offset;
    } cases[] = {
        {12, 10, GPUSKIN_OUTPUT_NORMALS, 4},                           /* single floats */
        {12, 10, GPUSKIN_OUTPUT_NORMALS | GPUSKIN_OUTPUT_TANGENTS, 4},
        {12, 10, GPUSKIN_OUTPUT_NORMALS, 8},                           /* wide stores, not at the start */
        {12, 10, GPUSKIN_OUTPUT_NORMALS | GPUSKIN_OUTPUT_TANGENTS, 8},
        {12, 10, GPUSKIN_OUTPUT_TANGENTS, 8},                          /* 7 floats a record: single floats */
        {12, 10, 0, 12},                                               /* positions only */
        {12, 10, 0, 0},
        {2, 3, 0, 4},                                                  /* 6 vertices */
        {2, 3, GPUSKIN_OUTPUT_NORMALS, 0},
        {3, 7, GPUSKIN_OUTPUT_TANGENTS, 12},                           /* 21 vertices */
        {3, 7, GPUSKIN_OUTPUT_NORMALS, 8},
        {3, 7, GPUSKIN_OUTPUT_NORMALS | GPUSKIN_OUTPUT_TANGENTS, 0},
        {3, 7, GPUSKIN_OUTPUT_NORMALS | GPUSKIN_OUTPUT_TANGENTS, 8},
        {3, 7, 0, 8},
    };
    tg_case c = tg_default_case();
    char name[64];
    size_t i;
    int crowd;

    c.instances = 6;
    c.kind = TG_SCALED;
    c.tangents = 1;
    for (crowd = 0; crowd < 2; ++crowd) {
        c.methods = crowd == 0 ? NULL : tg_methods_mixed; /* the LBS kernel; the general one (residual) */
        for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
            c.rings = cases[i].rings;
            c.sides = cases[i].sides;
            c.output_flags = cases[i].flags;
            c.out_offset = cases[i].offset;
            snprintf(name, sizeof name, "%s %uv %s%s +%u", crowd == 0 ? "lbs" : "mixed", c.rings * c.sides,
                     (c.output_flags & GPUSKIN_OUTPUT_NORMALS) ? "n" : "", (c.output_flags & GPUSKIN_OUTPUT_TANGENTS) ? "t" : "",
                     c.out_offset);
            tg_compute_case(&c, name, NULL);
        }
    }
}

static void test_compute_dqs_rigid(void)
{
    tg_case c = tg_default_case();
    uint32_t residual = 99;
    c.methods = tg_methods_all_dqs;
    tg_compute_case(&c, "dqs rigid", &residual);
    CHECK_EQ_INT(residual, 0); /* rigid palettes take the residual-free path */
}

static void test_compute_dqs_residual(void)
{
    tg_case c = tg_default_case();
    uint32_t residual = 0;
    c.methods = tg_methods_all_dqs;
    c.kind = TG_SCALED;
    c.instances = 5; /* every joint meets every kind of S across instances */
    c.tangents = 1;
    c.output_flags = GPUSKIN_OUTPUT_NORMALS | GPUSKIN_OUTPUT_TANGENTS;
    c.split = GPUSKIN_SPLIT_GRAM_SCHMIDT;
    tg_compute_case(&c, "dqs residual (gram-schmidt)", &residual);
    CHECK_EQ_INT(residual, 5);
    c.split = GPUSKIN_SPLIT_POLAR;
    tg_compute_case(&c, "dqs residual (polar)", &residual);
    CHECK_EQ_INT(residual, 5);
}

/* One crowd through the kernel gpuskin_cmd_skin picks and through the general
   kernel, each with 4 or 16 instances an invocation or the count chosen; every
   upload must give the words expected, and the dispatch the kernel expected
   (want_kernel, GPUSKIN__VK_KERNEL_ANY when forced general). */
static void tg_kernel_sweep(tg_case c, const char *what, uint32_t want_residual, uint32_t want_uniform,
                            int want_kernel)
{
    static const uint32_t per[4] = {0, 2, 4, 16};
    uint32_t residual = 0, p, any;
    char name[64];
    for (p = 0; p < 4; ++p)
        for (any = 0; any < 2; ++any) {
            c.per_invocation = per[p];
            c.kernel_flags = any ? GPUSKIN_KERNEL_ANY_METHOD : 0u;
            snprintf(name, sizeof name, "%s, %s, per inv %u", what, any ? "any" : "auto", per[p]);
            tg_compute_case(&c, name, &residual);
            CHECK_EQ_INT(residual, want_residual);
            CHECK_EQ_INT(tg_uniform_instances, want_uniform);
            CHECK_EQ_INT(tg_kernel, any ? (int)GPUSKIN__VK_KERNEL_ANY : want_kernel);
        }
}

/* Crowds whose DQS instances are scaled uniformly: their own kernel (one scalar
   a joint) when every instance of the range is, the residual kernel when some
   are scaled otherwise, the general kernel beside LBS or when asked. */
static void test_compute_dqs_uniform(void)
{
    tg_case c = tg_default_case();
    uint32_t residual = 0;
    c.methods = tg_methods_all_dqs;
    c.kind = TG_UNIFORM;
    c.instances = 9;
    c.sets = 2;
    c.tangents = 1;
    c.output_flags = GPUSKIN_OUTPUT_NORMALS | GPUSKIN_OUTPUT_TANGENTS;
    tg_kernel_sweep(c, "dqs uniform", 9, 9, GPUSKIN__VK_KERNEL_DQS_UNIFORM);
    c.output_flags = GPUSKIN_OUTPUT_NORMALS;
    c.kind = TG_SOME_UNIFORM;
    tg_compute_case(&c, "dqs uniform + residual", &residual);
    CHECK_EQ_INT(residual, 9);
    CHECK_EQ_INT(tg_uniform_instances, 5);
    c.methods = tg_methods_mixed;
    tg_compute_case(&c, "lbs + dqs uniform + residual", NULL);
    CHECK(tg_uniform_instances > 0);
    /* one size an instance (two of the nine are rigid, size 1): the kernel that
       scales by it, or forced general; a range that starts at a rigid one; sizes
       mixed with per-joint ones (general with a rigid instance in the range, the
       uniform kernel without); sizes beside LBS (general) */
    c.methods = tg_methods_all_dqs;
    c.kind = TG_SIZED;
    c.tangents = 1;
    c.output_flags = GPUSKIN_OUTPUT_NORMALS | GPUSKIN_OUTPUT_TANGENTS;
    tg_kernel_sweep(c, "dqs sized", 7, 7, GPUSKIN__VK_KERNEL_DQS_SIZED);
    c.output_flags = GPUSKIN_OUTPUT_NORMALS;
    c.first = 2; /* instances 2..8: from a rigid one on */
    c.count = 7;
    tg_compute_case(&c, "dqs sized, 7 from a rigid one", NULL);
    c.first = c.count = 0;
    c.kind = TG_SOME_SIZED;
    tg_compute_case(&c, "dqs sized + uniform + rigid", &residual); /* the general kernel */
    CHECK_EQ_INT(residual, 8); /* instance 2 (size 1) is rigid */
    c.first = 3;
    c.count = 6;
    tg_compute_case(&c, "dqs sized + uniform", NULL); /* the uniform kernel */
    c.first = c.count = 0;
    c.kind = TG_SIZED;
    c.methods = tg_methods_mixed;
    tg_compute_case(&c, "lbs + dqs sized", NULL);
}

/* Five all-DQS instances of `kind` split `split`, 8 influences, normals and
   tangents: every joint meets every kind of S across the instances. */
static tg_case tg_residual_case(int kind, gpuskin_split_method split)
{
    tg_case c = tg_default_case();
    c.methods = tg_methods_all_dqs;
    c.kind = kind;
    c.split = split;
    c.instances = 5;
    c.sets = 2;
    c.tangents = 1;
    c.output_flags = GPUSKIN_OUTPUT_NORMALS | GPUSKIN_OUTPUT_TANGENTS;
    return c;
}

/* Crowds whose residuals are upper triangular (the Gram-Schmidt split of
   anything but a degenerate matrix): their own kernel (six entries of S blended)
   when every instance of the range is, uniformly scaled ones among them; the
   residual kernel for the polar split's, whose mirrored joints make S neither
   triangular nor symmetric; the general kernel beside LBS or when asked. */
static void test_compute_dqs_triangular(void)
{
    tg_case c = tg_residual_case(TG_TRIANGULAR, GPUSKIN_SPLIT_GRAM_SCHMIDT);
    uint32_t residual = 0;
    tg_kernel_sweep(c, "dqs triangular", 5, 0, GPUSKIN__VK_KERNEL_DQS_TRIANGULAR);
    CHECK_EQ_INT(tg_kinds, 1u << GPUSKIN__VK_KIND_DQS_TRIANGULAR);
    c.split = GPUSKIN_SPLIT_POLAR; /* mirrored joints: S neither triangular nor symmetric */
    tg_compute_case(&c, "dqs triangular, polar split", &residual);
    CHECK_EQ_INT(residual, 5);
    CHECK_EQ_INT(tg_kinds, 1u << GPUSKIN__VK_KIND_DQS_RESIDUAL);
    CHECK_EQ_INT(tg_kernel, GPUSKIN__VK_KERNEL_DQS_RESIDUAL);
    c.split = GPUSKIN_SPLIT_GRAM_SCHMIDT;
    c.kind = TG_SOME_TRIANGULAR;
    c.instances = 9;
    tg_compute_case(&c, "dqs triangular + uniform", &residual);
    CHECK_EQ_INT(residual, 9);
    CHECK_EQ_INT(tg_uniform_instances, 5);
    c.methods = tg_methods_mixed;
    tg_compute_case(&c, "lbs + dqs triangular + uniform", NULL);
}

/* Crowds whose residuals are symmetric (the polar split of anything but a
   mirrored or singular matrix): their own kernel (the six entries of S above
   the diagonal blended, then mirrored) when every instance of the range is,
   uniformly scaled ones among them; the residual kernel beside triangular or
   mirrored ones; the general kernel beside LBS or when asked. */
static void test_compute_dqs_symmetric(void)
{
    tg_case c = tg_residual_case(TG_SYMMETRIC, GPUSKIN_SPLIT_POLAR);
    uint32_t residual = 0;
    tg_kernel_sweep(c, "dqs symmetric", 5, 0, GPUSKIN__VK_KERNEL_DQS_SYMMETRIC);
    CHECK_EQ_INT(tg_kinds, 1u << GPUSKIN__VK_KIND_DQS_SYMMETRIC);
    c.sets = 1;
    c.output_flags = GPUSKIN_OUTPUT_NORMALS;
    c.tangents = 0;
    tg_kernel_sweep(c, "dqs symmetric, 4 influences", 5, 0, GPUSKIN__VK_KERNEL_DQS_SYMMETRIC);
    c.kind = TG_SOME_SYMMETRIC;
    c.instances = 9;
    tg_compute_case(&c, "dqs symmetric + uniform", &residual);
    CHECK_EQ_INT(residual, 9);
    CHECK_EQ_INT(tg_uniform_instances, 5);
    CHECK_EQ_INT(tg_kinds, (1u << GPUSKIN__VK_KIND_DQS_SYMMETRIC) | (1u << GPUSKIN__VK_KIND_DQS_UNIFORM));
    CHECK_EQ_INT(tg_kernel, GPUSKIN__VK_KERNEL_DQS_SYMMETRIC);
    c.split = GPUSKIN_SPLIT_GRAM_SCHMIDT; /* the same palettes split the other way: triangular */
    tg_compute_case(&c, "dqs triangular + uniform (gs)", &residual);
    CHECK_EQ_INT(tg_kinds, (1u << GPUSKIN__VK_KIND_DQS_TRIANGULAR) | (1u << GPUSKIN__VK_KIND_DQS_UNIFORM));
    CHECK_EQ_INT(tg_kernel, GPUSKIN__VK_KERNEL_DQS_TRIANGULAR);
    c.split = GPUSKIN_SPLIT_POLAR;
    c.methods = tg_methods_mixed;
    tg_compute_case(&c, "lbs + dqs symmetric + uniform", NULL);
    CHECK_EQ_INT(tg_kernel, GPUSKIN__VK_KERNEL_ANY);
}

static void test_compute_mixed_crowd(void)
{
    tg_case c = tg_default_case();
    c.instances = 72;
    c.methods = tg_methods_mixed;
    c.kind = TG_SCALED;
    c.rings = 16;
    c.sides = 12;
    c.joints = 7;
    tg_compute_case(&c, "mixed lbs/dqs, 72 inst", NULL);
    c.kind = TG_RIGID;
    c.first = 13;
    c.count = 40;
    tg_compute_case(&c, "mixed, instances 13..52", NULL);
}

/* gpuskin_cmd_skin's kernels: one without DQS for an all-LBS range, one without
   LBS for an all-rigid-DQS range, one with both but no residual for a range
   mixing those two, the general one for anything with the residual or when asked
   (GPUSKIN_KERNEL_ANY_METHOD); 1, 2, 4, 8 or 16 instances an invocation, chosen or
   forced (1 and 2 run the 4 pipeline with fewer rows).
   Every combination against the oracle, on ranges that leave partial rows of 4
   and 8 and start inside the slot. */
static void test_compute_kernels(void)
{
    static const uint32_t per[6] = {0, 1, 2, 4, 8, 16};
    static uint8_t lbs[16];
    const uint8_t *methods[5];
    static const char *const what[5] = {"lbs", "dqs rigid", "dqs residual", "mixed", "mixed rigid"};
    tg_case c = tg_default_case();
    uint32_t m, p, any;
    char name[64];
    memset(lbs, GPUSKIN_METHOD_LBS, sizeof lbs);
    methods[0] = lbs;
    methods[1] = methods[2] = tg_methods_all_dqs;
    methods[3] = methods[4] = tg_methods_mixed;
    c.instances = 16;
    c.first = 2;
    c.count = 13;
    c.sets = 2; /* 8 influences: both sets of the kernels' blend loops */
    for (m = 0; m < 5; ++m) {
        c.methods = methods[m];
        c.kind = m == 2 || m == 3 ? TG_SCALED : TG_RIGID;
        for (p = 0; p < 6; ++p) {
            for (any = 0; any < 2; ++any) {
                c.per_invocation = per[p];
                c.kernel_flags = any ? GPUSKIN_KERNEL_ANY_METHOD : 0u;
                snprintf(name, sizeof name, "%s, %s, per inv %u", what[m], any ? "any" : "auto", per[p]);
                tg_compute_case(&c, name, NULL);
            }
        }
    }
}

/* The LBS-or-rigid-DQS kernel takes a range's instances through the slot's
   instance list, LBS ones first: its workgroup rows run one blend each, but the
   one where the range's LBS part ends, which chooses per instance. Methods in
   runs of 1-11 instances and ranges starting at 0 and inside the slot, with 1,
   2, 4, 8 and 16 instances an invocation, one and two influence sets: the LBS
   part ends at, before and after a row's end, and the last row is partial or not. */
static void test_compute_method_runs(void)
{
    static const uint32_t runs[] = {4, 4, 8, 9, 3, 1, 11, 2, 6};
    static const uint32_t ranges[][2] = {{0, 48}, {2, 45}, {8, 8}, {16, 9}, {25, 4}};
    static const uint32_t per[5] = {1, 2, 4, 8, 16};
    static uint8_t methods[48];
    tg_case c = tg_default_case();
    uint32_t r, p, i = 0, k, n;
    char name[64];
    for (r = 0; r < sizeof runs / sizeof runs[0]; ++r)
        for (k = 0; k < runs[r] && i < 48; ++k) methods[i++] = r % 2 ? GPUSKIN_METHOD_DQS : GPUSKIN_METHOD_LBS;
    while (i < 48) methods[i++] = GPUSKIN_METHOD_LBS;
    c.instances = 48;
    c.methods = methods;
    c.kind = TG_RIGID;
    for (n = 1; n <= 2; ++n) {
        c.sets = n;
        for (r = 0; r < sizeof ranges / sizeof ranges[0]; ++r) {
            for (p = 0; p < 5; ++p) {
                c.first = ranges[r][0];
                c.count = ranges[r][1];
                c.per_invocation = per[p];
                snprintf(name, sizeof name, "runs, %u set(s), [%u,+%u), per inv %u", n, c.first, c.count, per[p]);
                tg_compute_case(&c, name, NULL);
            }
        }
    }
}

/* The kernel follows what the slot holds: after an all-DQS upload and a shorter
   LBS one, instances 0..3 are LBS and 4..9 still DQS, so [0,4) takes the LBS
   kernel, [4,10) the DQS one and [0,10) the one with both blends; all three must
   match. */
static void test_compute_kernel_follows_uploads(void)
{
    static uint8_t final_methods[10];
    tg_case c = tg_default_case();
    gpuskin_crowd_upload_desc up;
    tg_world w;
    unsigned before = vk.messages;
    uint32_t i;
    c.instances = 10;
    c.methods = tg_methods_all_dqs;
    if (tg_world_create(&w, &c, 2)) {
        tg_upload(&w, &c, 1);
        memset(&up, 0, sizeof up);
        up.frame = 1;
        up.instance_count = 4;
        up.palettes = w.palettes; /* the same palettes: only the methods change */
        up.out_method_words = w.words;
        CHECK_EQ_INT(gpuskin_crowd_upload(w.crowd, &up), GPUSKIN_SUCCESS);
        for (i = 0; i < 10; ++i) final_methods[i] = i < 4 ? GPUSKIN_METHOD_LBS : GPUSKIN_METHOD_DQS;
        c.methods = final_methods;
        c.first = 0;
        c.count = 4;
        tg_skin_and_compare(&w, &c, "after uploads: [0,4) lbs");
        c.first = 4;
        c.count = 6;
        tg_skin_and_compare(&w, &c, "after uploads: [4,10) dqs");
        c.first = 0;
        c.count = 10;
        tg_skin_and_compare(&w, &c, "after uploads: [0,10)");
    }
    tg_world_destroy(&w);
    CHECK_NO_VALIDATION(before);
}

/* LBS, rigid DQS and DQS with the residual interleaved: ranges with all three
   (the general kernel), with LBS and rigid DQS (the kernel with both), or of one
   kind (rigid DQS, residual DQS: that kernel), starting inside the slot, with
   rows of 4 and 8; then an upload that turns 16 instances LBS, and a range
   across the change. */
static void test_compute_three_kinds(void)
{
    /* all three kinds (twice); rigid DQS; residual DQS; all three; LBS + rigid; residual */
    static const uint32_t ranges[][2] = {{0, 40}, {3, 31}, {17, 1}, {38, 2}, {5, 6}, {0, 2}, {2, 2}};
    static const uint32_t per[5] = {0, 2, 4, 8, 16};
    tg_case c = tg_default_case();
    gpuskin_crowd_upload_desc up;
    tg_world w;
    unsigned before = vk.messages;
    uint32_t r, p, i, kinds = 0;
    char name[64];
    c.instances = 40;
    c.methods = tg_methods_mixed;
    c.kind = TG_SOME_SCALED;
    c.sets = 2;
    if (tg_world_create(&w, &c, 2)) {
        tg_upload(&w, &c, 1);
        for (i = 3; i < 34; ++i) /* all three kinds inside [3, 34) */
            kinds |= 1u << ((w.words[i] & GPUSKIN_METHOD_ID_MASK) == GPUSKIN_METHOD_LBS ? 0
                            : (w.words[i] & GPUSKIN_METHOD_RESIDUAL_BIT)              ? 2
                                                                                       : 1);
        CHECK_EQ_INT(kinds, 7);
        for (r = 0; r < sizeof ranges / sizeof ranges[0]; ++r) {
            for (p = 0; p < 5; ++p) {
                c.first = ranges[r][0];
                c.count = ranges[r][1];
                c.per_invocation = per[p];
                snprintf(name, sizeof name, "3 kinds, [%u, %u), per inv %u", c.first, c.first + c.count, per[p]);
                tg_skin_and_compare(&w, &c, name);
            }
        }
        /* instances 8..23 turn LBS: the list must follow */
        memset(&up, 0, sizeof up);
        up.frame = 1;
        up.instance_count = 24;
        up.palettes = w.palettes;
        up.out_method_words = w.words;
        {
            static uint8_t methods[40];
            memcpy(methods, tg_methods_mixed, sizeof methods);
            for (i = 8; i < 24; ++i) methods[i] = GPUSKIN_METHOD_LBS;
            up.methods = methods;
            CHECK_EQ_INT(gpuskin_crowd_upload(w.crowd, &up), GPUSKIN_SUCCESS);
            c.methods = methods;
            c.first = 2;
            c.count = 36;
            c.per_invocation = 0;
            tg_skin_and_compare(&w, &c, "after an upload, [2, 38)");
        }
    }
    tg_world_destroy(&w);
    CHECK_NO_VALIDATION(before);
}

/* A command buffer recorded before an upload that changes the methods skins the
   changed instances with the kernel recorded (documented: wrong shapes, or not at
   all), but must neither write outside its output nor read outside the slot (an
   invalid read or write would crash the run on lavapipe). Twice: the general
   kernel (some instances with the residual), and the LBS-or-rigid-DQS kernel,
   whose rows come through the instance list that the upload rewrites, so its
   recorded rows then name instances outside [10, 20). */
static void test_compute_stale_recording(void)
{
    int residual;
    unsigned before = vk.messages;
    for (residual = 1; residual >= 0; --residual) {
        static uint8_t all_lbs[40];
        tg_case c = tg_default_case();
        gpuskin_crowd_upload_desc up;
        gpuskin_skin_dispatch_desc sd;
        gpuskin_buffer out;
        VkCommandBuffer cmd;
        tg_world w;
        const uint32_t first = 10, count = 10, guard = 256;
        const VkDeviceSize bytes = (VkDeviceSize)count * 120u * gpuskin_output_stride(GPUSKIN_OUTPUT_NORMALS);
        c.instances = 40;
        c.methods = tg_methods_mixed;
        c.kind = residual ? TG_SOME_SCALED : TG_RIGID;
        memset(all_lbs, GPUSKIN_METHOD_LBS, sizeof all_lbs);
        memset(&out, 0, sizeof out);
        if (tg_world_create(&w, &c, 1) && tg_upload(&w, &c, 0)) {
            CHECK_EQ_INT(w.m.vertex_count, 120);
            CHECK_EQ_INT(tg_readback_buffer(guard + bytes + guard, &out), VK_SUCCESS);
            if (out.mapped && vks_begin(&vk, &cmd) == VK_SUCCESS) {
                CHECK_EQ_INT(gpuskin_cmd_upload_mesh(w.mesh, cmd), GPUSKIN_SUCCESS);
                tg_fill_guard(cmd, out.buffer);
                memset(&sd, 0, sizeof sd);
                sd.first_instance = first;
                sd.instance_count = count;
                sd.output = out.address + guard;
                sd.output_size = bytes;
                sd.output_flags = GPUSKIN_OUTPUT_NORMALS;
                CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, &sd), GPUSKIN_SUCCESS);
                tg_barrier_to_host(cmd, out.buffer);
                /* after recording for [10, 20): every instance LBS */
                memset(&up, 0, sizeof up);
                up.instance_count = c.instances;
                up.palettes = w.palettes;
                up.methods = all_lbs;
                CHECK_EQ_INT(gpuskin_crowd_upload(w.crowd, &up), GPUSKIN_SUCCESS);
                CHECK_EQ_INT(vks_submit_wait(&vk, cmd), VK_SUCCESS);
                CHECK(tg_guard_intact(&out, 0, guard));
                CHECK(tg_guard_intact(&out, guard + bytes, guard + bytes + guard));
            }
        }
        tg_release_buffer(&out);
        tg_world_destroy(&w);
    }
    CHECK_NO_VALIDATION(before);
}

/* The candy wrapper: a cylinder twisted 180 degrees about its axis. Besides
   matching the oracle, DQS keeps the middle ring's radius while LBS pinches it
   (the mid-ring blends +90 and -90 degree-ish rotations). */
static void test_compute_twist(void)
{
    tg_case c = tg_default_case();
    tg_world w;
    float *cpu;
    uint32_t method, i;
    c.kind = TG_TWIST;
    c.joints = 2;
    c.rings = 21;
    c.sides = 16;
    c.instances = 2;
    c.methods = tg_methods_all_dqs;
    tg_compute_case(&c, "twist 180 dqs", NULL);
    c.methods = NULL;
    tg_compute_case(&c, "twist 180 lbs", NULL);
    /* the middle ring's radius, from the oracle (which the GPU matched above) */
    for (method = 0; method < 2; ++method) {
        double r = 0;
        c.methods = method ? tg_methods_all_dqs : NULL;
        if (!tg_world_create(&w, &c, 1)) {
            tg_world_destroy(&w);
            return;
        }
        tg_upload(&w, &c, 0);
        cpu = (float *)calloc(w.m.vertex_count * 6, sizeof(float));
        tg_oracle(&w, &c, 0, GPUSKIN_OUTPUT_NORMALS, cpu);
        for (i = 0; i < c.sides; ++i) {
            const float *p = cpu + ((size_t)10 * c.sides + i) * 6;
            /* instance 0 sits at (-10.5, 0, -10.5) */
            r += sqrt((p[0] + 10.5) * (p[0] + 10.5) + (p[2] + 10.5) * (p[2] + 10.5)) / c.sides;
        }
        printf("  twist mid-ring radius %s: %.3f (bind 0.5)\n", method ? "dqs" : "lbs", r);
        if (method) CHECK(fabs(r - 0.5) < 1e-3);
        else CHECK(r < 0.1);
        free(cpu);
        tg_world_destroy(&w);
    }
}

static void test_compute_eight_influences(void)
{
    tg_case c = tg_default_case();
    c.sets = 2;
    c.joints = 6;
    c.instances = 6;
    c.methods = tg_methods_mixed;
    c.kind = TG_SCALED;
    c.tangents = 1;
    c.output_flags = GPUSKIN_OUTPUT_NORMALS | GPUSKIN_OUTPUT_TANGENTS;
    tg_compute_case(&c, "8 influences, mixed", NULL);
}

static void test_compute_tangents(void)
{
    tg_case c = tg_default_case();
    c.tangents = 1;
    c.methods = tg_methods_mixed;
    c.output_flags = GPUSKIN_OUTPUT_TANGENTS; /* tangent right after the position */
    tg_compute_case(&c, "tangents without normals", NULL);
    c.normals = 0;
    c.output_flags = GPUSKIN_OUTPUT_TANGENTS;
    tg_compute_case(&c, "mesh without normals", NULL);
    c.tangents = 0;
    c.output_flags = 0;
    tg_compute_case(&c, "positions only", NULL);
}

/* Joints as u8 and u32, with strides: the snapshot must read them as the oracle does. */
static void test_compute_joint_types(void)
{
    tg_case c = tg_default_case();
    tg_world w;
    gpuskin_mesh_desc md;
    gpuskin_crowd_desc cd;
    gpuskin_crowd *crowd = NULL;
    gpuskin_mesh *mesh = NULL;
    gpuskin_buffer out;
    gpuskin_skin_dispatch_desc sd;
    VkCommandBuffer cmd;
    unsigned before = vk.messages;
    int type;
    c.methods = tg_methods_mixed;
    for (type = 0; type < 2; ++type) {
        uint8_t *j8;
        uint32_t *j32;
        size_t v, V;
        double max_pos = 0, max_dir = 0;
        memset(&out, 0, sizeof out);
        if (!tg_world_create(&w, &c, 1)) break;
        tg_upload(&w, &c, 0);
        V = w.m.vertex_count;
        /* u8 at stride 5, u32 at stride 20 (padding after each element) */
        j8 = (uint8_t *)calloc(V, 5);
        j32 = (uint32_t *)calloc(V, 20);
        for (v = 0; v < V * 4; ++v) {
            j8[(v / 4) * 5 + v % 4] = (uint8_t)w.m.joints[0][v];
            j32[(v / 4) * 5 + v % 4] = w.m.joints[0][v] == 0xFFFFu ? 0xDEADBEEFu : w.m.joints[0][v];
        }
        w.st.joint_type = type ? GPUSKIN_JOINT_U32 : GPUSKIN_JOINT_U8;
        w.st.joints[0].data = type ? (const void *)j32 : (const void *)j8;
        w.st.joints[0].stride = type ? 20 : 5;
        memset(&md, 0, sizeof md);
        md.streams = w.st;
        md.joint_count = c.joints;
        CHECK_EQ_INT(gpuskin_mesh_create(ctx, &md, &mesh), GPUSKIN_SUCCESS);
        memset(&cd, 0, sizeof cd);
        cd.mesh = mesh;
        cd.capacity = c.instances;
        cd.frames_in_flight = 1;
        CHECK_EQ_INT(gpuskin_crowd_create(ctx, &cd, &crowd), GPUSKIN_SUCCESS);
        if (crowd) {
            gpuskin_crowd_upload_desc up;
            memset(&up, 0, sizeof up);
            up.instance_count = c.instances;
            up.palettes = w.palettes;
            up.methods = c.methods;
            CHECK_EQ_INT(gpuskin_crowd_upload(crowd, &up), GPUSKIN_SUCCESS);
            CHECK_EQ_INT(tg_readback_buffer((VkDeviceSize)c.instances * V * 24, &out), VK_SUCCESS);
        }
        if (crowd && out.mapped && vks_begin(&vk, &cmd) == VK_SUCCESS) {
            memset(&sd, 0, sizeof sd);
            sd.instance_count = c.instances;
            sd.output = out.address;
            sd.output_size = out.size;
            sd.output_flags = GPUSKIN_OUTPUT_NORMALS;
            CHECK_EQ_INT(gpuskin_cmd_upload_mesh(mesh, cmd), GPUSKIN_SUCCESS);
            CHECK_EQ_INT(gpuskin_cmd_skin(crowd, cmd, &sd), GPUSKIN_SUCCESS);
            tg_barrier_to_host(cmd, out.buffer);
            CHECK_EQ_INT(vks_submit_wait(&vk, cmd), VK_SUCCESS);
            tg_compare(&w, &c, 0, c.instances, GPUSKIN_OUTPUT_NORMALS, (const float *)out.mapped, &max_pos,
                       &max_dir);
            printf("  joints as %s: max|dp| %.3g, max|dn| %.3g\n", type ? "u32" : "u8", max_pos, max_dir);
            CHECK(max_pos <= 1e-5 * w.m.radius);
            CHECK(max_dir <= 1e-5);
        }
        tg_release_buffer(&out);
        gpuskin_crowd_destroy(crowd);
        gpuskin_mesh_destroy(mesh);
        crowd = NULL;
        mesh = NULL;
        free(j8);
        free(j32);
        tg_world_destroy(&w);
    }
    CHECK_NO_VALIDATION(before);
}

/* ---- Host allocators ------------------------------------------------------------------ */

/* Wraps the default allocator: counts calls and live buffers, fails the Nth call,
   and can hide the mapping of STATIC buffers (a discrete GPU without a
   host-visible device-local heap) to drive the staging path. */
typedef struct tg_alloc {
    gpuskin_allocator inner;
    long calls, live, fail_at;
    int unmapped_static;
} tg_alloc;

static VkResult tg_alloc_create(void *user, VkDeviceSize size, VkBufferUsageFlags usage, gpuskin_memory_kind kind,
                                gpuskin_buffer *out)
{
    tg_alloc *a = (tg_alloc *)user;
    VkResult vr;
    if (++a->calls == a->fail_at) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    vr = a->inner.create_buffer(a->inner.user, size, usage, kind, out);
    if (vr == VK_SUCCESS) {
        ++a->live;
        if (a->unmapped_static && kind == GPUSKIN_MEMORY_STATIC) out->mapped = NULL;
    }
    return vr;
}

static void tg_alloc_destroy(void *user, gpuskin_buffer *b)
{
    tg_alloc *a = (tg_alloc *)user;
    --a->live;
    a->inner.destroy_buffer(a->inner.user, b);
}

static gpuskin_context_desc tg_context_desc(void)
{
    gpuskin_context_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.instance = vk.instance;
    cd.physical_device = vk.physical_device;
    cd.device = vk.device;
    cd.get_instance_proc_addr = vkGetInstanceProcAddr;
    cd.enabled_features12 = &vk.features12;
    cd.enabled_features13 = &vk.features13;
    return cd;
}

/* The STATIC mesh buffer is not mappable: gpuskin keeps a staging copy and
   gpuskin_cmd_upload_mesh copies it (with its barrier) before the dispatch. */
static void test_compute_staging_upload(void)
{
    gpuskin_context *saved = ctx, *own = NULL;
    gpuskin_context_desc cd = tg_context_desc();
    tg_alloc a;
    tg_case c = tg_default_case();
    unsigned before = vk.messages;
    memset(&a, 0, sizeof a);
    a.inner = gpuskin_default_allocator(saved);
    a.unmapped_static = 1;
    cd.allocator.create_buffer = tg_alloc_create;
    cd.allocator.destroy_buffer = tg_alloc_destroy;
    cd.allocator.user = &a;
    CHECK_EQ_INT(gpuskin_context_create(&cd, &own), GPUSKIN_SUCCESS);
    if (!own) return;
    ctx = own;
    {
        /* used before its upload was recorded: refused, not read uninitialised */
        tg_world w;
        VkCommandBuffer cmd;
        gpuskin_skin_dispatch_desc sd;
        if (tg_world_create(&w, &c, 1) && vks_begin(&vk, &cmd) == VK_SUCCESS) {
            CHECK_EQ_INT(gpuskin_mesh_needs_upload(w.mesh), 1);
            memset(&sd, 0, sizeof sd);
            sd.instance_count = 1;
            sd.output = 256; /* never written: the call must fail first */
            sd.output_size = 1u << 20;
            CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, &sd), GPUSKIN_ERROR_INVALID_ARGUMENT);
            CHECK_EQ_INT(vks_submit_wait(&vk, cmd), VK_SUCCESS);
        }
        tg_world_destroy(&w);
    }
    c.methods = tg_methods_mixed;
    tg_compute_case(&c, "staged mesh upload", NULL);
    ctx = saved;
    gpuskin_context_destroy(own);
    CHECK_EQ_INT(a.live, 0);
    CHECK_NO_VALIDATION(before);
}

/* Device calls through a volk device table instead of vkGetDeviceProcAddr. */
static void test_compute_volk_table(void)
{
    gpuskin_context *saved = ctx, *own = NULL;
    gpuskin_context_desc cd = tg_context_desc();
    struct VolkDeviceTable table;
    tg_case c = tg_default_case();
    volkLoadDeviceTable(&table, vk.device);
    cd.volk_device_table = &table;
    CHECK_EQ_INT(gpuskin_context_create(&cd, &own), GPUSKIN_SUCCESS);
    if (!own) return;
    ctx = own;
    c.methods = tg_methods_mixed;
    tg_compute_case(&c, "volk device table", NULL);
    ctx = saved;
    gpuskin_context_destroy(own);
}

/* ---- Multi-frame: 3 frames in flight, fences per slot ------------------------------------ */

static void test_frames_in_flight(void)
{
    enum { FRAMES = 3, TOTAL = 12 };
    tg_case c = tg_default_case();
    tg_world w;
    gpuskin_buffer out[FRAMES];
    VkCommandBuffer cmd[FRAMES];
    VkFence fence[FRAMES];
    gpuskin_mat4 *pal[FRAMES];
    uint32_t *words[FRAMES];
    float phase[FRAMES];
    int pending[FRAMES];
    unsigned before = vk.messages;
    uint32_t f, s, stride = gpuskin_output_stride(GPUSKIN_OUTPUT_NORMALS);
    VkCommandBufferAllocateInfo ai;
    VkFenceCreateInfo fci;
    size_t pal_bytes;
    int checked = 0;

    c.instances = 16;
    c.rings = 16;
    c.sides = 12;
    c.methods = tg_methods_mixed;
    c.kind = TG_SCALED;
    memset(out, 0, sizeof out);
    memset(pending, 0, sizeof pending);
    if (!tg_world_create(&w, &c, FRAMES)) {
        tg_world_destroy(&w);
        return;
    }
    pal_bytes = (size_t)c.instances * c.joints * sizeof(gpuskin_mat4);
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = vk.pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = FRAMES;
    CHECK_EQ_INT(vkAllocateCommandBuffers(vk.device, &ai, cmd), VK_SUCCESS);
    memset(&fci, 0, sizeof fci);
    fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    for (s = 0; s < FRAMES; ++s) {
        CHECK_EQ_INT(vkCreateFence(vk.device, &fci, NULL, &fence[s]), VK_SUCCESS);
        CHECK_EQ_INT(tg_readback_buffer((VkDeviceSize)c.instances * w.m.vertex_count * stride, &out[s]), VK_SUCCESS);
        pal[s] = (gpuskin_mat4 *)malloc(pal_bytes);
        words[s] = (uint32_t *)malloc(c.instances * sizeof(uint32_t));
    }

    /* Frame f uses slot f % 3. Before reusing a slot, wait for ITS fence only,
       check that frame's output, then write the slot: the other two slots may
       still be executing meanwhile. Never vkDeviceWaitIdle. */
    for (f = 0; f < TOTAL + FRAMES; ++f) {
        VkCommandBufferBeginInfo bi;
        VkSubmitInfo si;
        gpuskin_skin_dispatch_desc sd;
        s = f % FRAMES;
        if (pending[s]) {
            double max_pos = 0, max_dir = 0;
            CHECK_EQ_INT(vkWaitForFences(vk.device, 1, &fence[s], VK_TRUE, UINT64_MAX), VK_SUCCESS);
            CHECK_EQ_INT(vkResetFences(vk.device, 1, &fence[s]), VK_SUCCESS);
            pending[s] = 0;
            /* the oracle reads that frame's palettes and words */
            memcpy(w.palettes, pal[s], pal_bytes);
            memcpy(w.words, words[s], c.instances * sizeof(uint32_t));
            c.phase = phase[s];
            tg_compare(&w, &c, 0, c.instances, GPUSKIN_OUTPUT_NORMALS, (const float *)out[s].mapped, &max_pos,
                       &max_dir);
            CHECK(max_pos <= 1e-5 * w.m.radius);
            CHECK(max_dir <= 1e-5);
            ++checked;
        }
        if (f >= TOTAL) continue;
        c.phase = phase[s] = 0.4f * (float)f;
        tg_upload(&w, &c, s);
        memcpy(pal[s], w.palettes, pal_bytes);
        memcpy(words[s], w.words, c.instances * sizeof(uint32_t));
        CHECK_EQ_INT(vkResetCommandBuffer(cmd[s], 0), VK_SUCCESS);
        memset(&bi, 0, sizeof bi);
        bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        CHECK_EQ_INT(vkBeginCommandBuffer(cmd[s], &bi), VK_SUCCESS);
        if (f == 0) CHECK_EQ_INT(gpuskin_cmd_upload_mesh(w.mesh, cmd[s]), GPUSKIN_SUCCESS);
        memset(&sd, 0, sizeof sd);
        sd.frame = s;
        sd.instance_count = c.instances;
        sd.output = out[s].address;
        sd.output_size = out[s].size;
        sd.output_flags = GPUSKIN_OUTPUT_NORMALS;
        CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd[s], &sd), GPUSKIN_SUCCESS);
        tg_barrier_to_host(cmd[s], out[s].buffer);
        CHECK_EQ_INT(vkEndCommandBuffer(cmd[s]), VK_SUCCESS);
        memset(&si, 0, sizeof si);
        si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd[s];
        CHECK_EQ_INT(vkQueueSubmit(vk.queue, 1, &si, fence[s]), VK_SUCCESS);
        pending[s] = 1;
    }
    printf("  %d frames checked against the oracle, slots reused while others ran\n", checked);
    CHECK_EQ_INT(checked, TOTAL);

    for (s = 0; s < FRAMES; ++s) {
        vkDestroyFence(vk.device, fence[s], NULL);
        tg_release_buffer(&out[s]);
        free(pal[s]);
        free(words[s]);
    }
    vkFreeCommandBuffers(vk.device, vk.pool, FRAMES, cmd);
    tg_world_destroy(&w);
    CHECK_NO_VALIDATION(before);
}

/* Proves synchronization validation is really listening: two fills of one
   buffer with no barrier between them are a write-after-write hazard.
   (It cannot see what shaders write through buffer device addresses, which is
   all gpuskin's shaders do: see TESTING.md. The oracle checks of every frame
   in test_frames_in_flight are what catch a slot overwritten too early.) */
static void test_sync_validation_is_on(void)
{
    vks_buffer b;
    VkCommandBuffer cmd;
    unsigned before = vk.messages;
    if (!vk.validation) {
        printf("  skipped: validation is off (GPUSKIN_NO_VALIDATION)\n");
        return;
    }
    vk.expect = "SYNC-HAZARD-WRITE-AFTER-WRITE";
    vk.expected = 0;
    if (vks_buffer_create(&vk, 4096, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &b) == VK_SUCCESS) {
        if (vks_begin(&vk, &cmd) == VK_SUCCESS) {
            vkCmdFillBuffer(cmd, b.buffer, 0, VK_WHOLE_SIZE, 0u);
            vkCmdFillBuffer(cmd, b.buffer, 0, VK_WHOLE_SIZE, 1u);
            CHECK_EQ_INT(vks_submit_wait(&vk, cmd), VK_SUCCESS);
        }
        vks_buffer_destroy(&vk, &b);
    }
    vk.expect = NULL;
    printf("  deliberate write-after-write -> %u SYNC-HAZARD-WRITE-AFTER-WRITE message(s)\n", vk.expected);
    CHECK(vk.expected > 0);
    CHECK_NO_VALIDATION(before); /* and nothing else */
}

/* ---- Render: skinned vs oracle-posed, through one pipeline -------------------------------- */

#define TG_W 320
#define TG_H 240

static void tg_perspective_look(float *out)
{
    const float eye[3] = {0.0f, 21.0f, 33.0f}, at[3] = {0.0f, 2.0f, 0.0f};
    float f[3], s[3], u[3], len, view[16], proj[16], fy = 1.0f / tanf(0.5f * 0.8f), n = 0.5f, far_ = 100.0f;
    int i, r, k;
    for (i = 0; i < 3; ++i) f[i] = at[i] - eye[i];
    len = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (i = 0; i < 3; ++i) f[i] /= len;
    s[0] = -f[2]; /* cross(f, up = y) */
    s[1] = 0.0f;
    s[2] = f[0];
    len = sqrtf(s[0] * s[0] + s[2] * s[2]);
    s[0] /= len;
    s[2] /= len;
    u[0] = s[1] * f[2] - s[2] * f[1];
    u[1] = s[2] * f[0] - s[0] * f[2];
    u[2] = s[0] * f[1] - s[1] * f[0];
    memset(view, 0, sizeof view);
    for (i = 0; i < 3; ++i) {
        view[i * 4 + 0] = s[i];
        view[i * 4 + 1] = u[i];
        view[i * 4 + 2] = -f[i];
    }
    view[12] = -(s[0] * eye[0] + s[1] * eye[1] + s[2] * eye[2]);
    view[13] = -(u[0] * eye[0] + u[1] * eye[1] + u[2] * eye[2]);
    view[14] = f[0] * eye[0] + f[1] * eye[1] + f[2] * eye[2];
    view[15] = 1.0f;
    /* Vulkan clip space: y down, depth 0..1 */
    memset(proj, 0, sizeof proj);
    proj[0] = fy * (float)TG_H / (float)TG_W;
    proj[5] = -fy;
    proj[10] = far_ / (n - far_);
    proj[11] = -1.0f;
    proj[14] = n * far_ / (n - far_);
    for (k = 0; k < 4; ++k)
        for (r = 0; r < 4; ++r) {
            float sum = 0.0f;
            for (i = 0; i < 4; ++i) sum += proj[i * 4 + r] * view[k * 4 + i];
            out[k * 4 + r] = sum;
        }
}

/* Draws the crowd into fresh colour/depth images and reads the colour back. */
static int tg_render(gpuskin_crowd *crowd, const gpuskin_pipeline *pipe, uint32_t frame, uint32_t instances,
                     VkDeviceAddress posed, unsigned char *rgba, int upload_mesh, gpuskin_mesh *mesh)
{
    vks_image color, depth;
    VkCommandBuffer cmd;
    gpuskin_draw_desc dd;
    float vp[16];
    int ok = 0;
    PFN_vkCmdEndRendering end = vkCmdEndRendering ? vkCmdEndRendering : vkCmdEndRenderingKHR;

    tg_perspective_look(vp);
    if (vks_image_create(&vk, TG_W, TG_H, VK_FORMAT_R8G8B8A8_UNORM,
                         VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, &color) != VK_SUCCESS)
        return 0;
    if (vks_image_create(&vk, TG_W, TG_H, VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                         &depth) != VK_SUCCESS) {
        vks_image_destroy(&vk, &color);
        return 0;
    }
    if (vks_begin(&vk, &cmd) == VK_SUCCESS) {
        if (upload_mesh) CHECK_EQ_INT(gpuskin_cmd_upload_mesh(mesh, cmd), GPUSKIN_SUCCESS);
        vks_cmd_image_barrier(cmd, &color, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                              VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                              VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
        vks_cmd_image_barrier(cmd, &depth, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                              VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                              VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
                              VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                  VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
        {
            static const float clear[4] = {0.08f, 0.09f, 0.12f, 1.0f};
            vks_cmd_begin_rendering(cmd, &color, &depth, clear);
        }
        memset(&dd, 0, sizeof dd);
        dd.frame = frame;
        dd.instance_count = instances;
        dd.view_proj = vp;
        dd.flags = GPUSKIN_DRAW_TINT;
        dd.color[0] = 0.95f;
        dd.color[1] = 0.9f;
        dd.color[2] = 0.85f;
        dd.color[3] = 1.0f;
        dd.posed_vertices = posed;
        dd.posed_output_flags = GPUSKIN_OUTPUT_NORMALS;
        CHECK_EQ_INT(gpuskin_cmd_draw(crowd, pipe, cmd, &dd), GPUSKIN_SUCCESS);
        end(cmd);
        ok = vks_submit_wait(&vk, cmd) == VK_SUCCESS;
    }
    if (ok)
        ok = vks_image_read_rgba8(&vk, &color, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                  VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                                  rgba) == VK_SUCCESS;
    vks_image_destroy(&vk, &depth);
    vks_image_destroy(&vk, &color);
    return ok;
}

static const char *tg_artifacts(void)
{
    const char *dir = getenv("GPUSKIN_ARTIFACTS");
    return dir && *dir ? dir : "build/artifacts";
}

static void tg_write_png(const char *name, const unsigned char *rgba)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tg_artifacts(), name);
    if (!stbi_write_png(path, TG_W, TG_H, 4, rgba, TG_W * 4)) printf("  (could not write %s)\n", path);
    else printf("  wrote %s\n", path);
}

/* The threshold. Both images come from the same pipeline, rasteriser and
   fragment shader; only the vertices differ, by the compute-vs-oracle error
   (a few ulp). A vertex that moves by 1e-6 px flips only pixels whose centre is
   within 1e-6 px of an edge, and changes shading by far less than one 8-bit
   step. So a pixel "differs" when a channel differs by more than 2/255 (one
   step of rounding either way, plus one), and at most 0.5% of the pixels may
   differ (384 of 76800: edge flips on a desktop GPU that fuses differently).
   A real skinning fault -- a wrong joint, a lost sign, a dropped weight -- moves
   whole limbs and changes thousands of pixels. The images must also show a
   crowd: 3% to 70% of pixels covered, in many different hues. */
static void test_render(void)
{
    enum { INSTANCES = 64 };
    tg_case c = tg_default_case();
    tg_world w;
    gpuskin_pipeline_desc pd;
    gpuskin_pipeline *pipe = NULL;
    gpuskin_buffer posed;
    gpuskin_allocator alloc = gpuskin_default_allocator(ctx);
    unsigned char *skinned = (unsigned char *)calloc(TG_W * TG_H, 4), *oracle = (unsigned char *)calloc(TG_W * TG_H, 4);
    unsigned char *diff = (unsigned char *)calloc(TG_W * TG_H, 4);
    unsigned before = vk.messages;
    uint32_t i, stride = gpuskin_output_stride(GPUSKIN_OUTPUT_NORMALS);
    size_t p, differing = 0, covered = 0, hues[64];
    int max_diff = 0, distinct = 0;

    c.instances = INSTANCES;
    c.rings = 24;
    c.sides = 16;
    c.joints = 6;
    c.methods = tg_methods_mixed;
    c.kind = TG_RIGID;
    c.phase = 0.8f;
    c.bend = 0.3f; /* upright figures, bending at the joints */
    memset(&posed, 0, sizeof posed);
    memset(hues, 0, sizeof hues);
    if (!tg_world_create(&w, &c, 2)) goto done;
    tg_upload(&w, &c, 1);
    memset(&pd, 0, sizeof pd);
    pd.color_format = VK_FORMAT_R8G8B8A8_UNORM;
    pd.depth_format = VK_FORMAT_D32_SFLOAT;
    CHECK_EQ_INT(gpuskin_pipeline_create(ctx, &pd, &pipe), GPUSKIN_SUCCESS);
    /* the oracle's crowd, in the compute output layout with normals */
    CHECK_EQ_INT(alloc.create_buffer(alloc.user, (VkDeviceSize)INSTANCES * w.m.vertex_count * stride,
                                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPUSKIN_MEMORY_UPLOAD, &posed),
                 VK_SUCCESS);
    if (!pipe || !posed.mapped) goto done;
    for (i = 0; i < INSTANCES; ++i)
        tg_oracle(&w, &c, i, GPUSKIN_OUTPUT_NORMALS, (float *)posed.mapped + (size_t)i * w.m.vertex_count * 6);

    CHECK(tg_render(w.crowd, pipe, 1, INSTANCES, 0, skinned, 1, w.mesh));
    CHECK(tg_render(w.crowd, pipe, 1, INSTANCES, posed.address, oracle, 0, w.mesh));
    for (p = 0; p < (size_t)TG_W * TG_H; ++p) {
        int k, d = 0;
        const unsigned char *a = skinned + p * 4, *b = oracle + p * 4;
        for (k = 0; k < 3; ++k) {
            int e = abs((int)a[k] - (int)b[k]);
            if (e > d) d = e;
        }
        if (d > max_diff) max_diff = d;
        if (d > 2) ++differing;
        diff[p * 4 + 0] = diff[p * 4 + 1] = diff[p * 4 + 2] = (unsigned char)(d * 8 > 255 ? 255 : d * 8);
        diff[p * 4 + 3] = 255;
        /* coverage and hue buckets, from the skinned image */
        if (abs((int)a[0] - 20) + abs((int)a[1] - 23) + abs((int)a[2] - 31) > 6) {
            int mx = a[0] > a[1] ? (a[0] > a[2] ? 0 : 2) : (a[1] > a[2] ? 1 : 2);
            int mn = a[0] < a[1] ? (a[0] < a[2] ? 0 : 2) : (a[1] < a[2] ? 1 : 2);
            ++covered;
            ++hues[(mx * 3 + mn) * 4 + (a[mx] - a[mn]) / 64];
        }
    }
    for (i = 0; i < 64; ++i) distinct += hues[i] > 50;
    printf("  %zu px covered (%.1f%%), %d hue buckets; %zu px differ by > 2/255 (%.3f%%), max channel diff %d\n",
           covered, 100.0 * (double)covered / (TG_W * TG_H), distinct, differing,
           100.0 * (double)differing / (TG_W * TG_H), max_diff);
    CHECK(covered > (size_t)(0.03 * TG_W * TG_H) && covered < (size_t)(0.70 * TG_W * TG_H));
    CHECK(distinct >= 4);
    CHECK(differing <= (size_t)(0.005 * TG_W * TG_H));
    mkdir("build", 0755);
    mkdir(tg_artifacts(), 0755);
    tg_write_png("render_gpu_skinned.png", skinned);
    tg_write_png("render_cpu_oracle.png", oracle);
    tg_write_png("render_diff_x8.png", diff);
done:
    if (posed.buffer != VK_NULL_HANDLE) alloc.destroy_buffer(alloc.user, &posed);
    gpuskin_pipeline_destroy(pipe);
    tg_world_destroy(&w);
    free(skinned);
    free(oracle);
    free(diff);
    CHECK_NO_VALIDATION(before);
}

/* ---- Bad input -------------------------------------------------------------------------- */

static void test_bad_input(void)
{
    tg_case c = tg_default_case();
    tg_world w;
    gpuskin_mesh_desc md;
    gpuskin_crowd_desc cd;
    gpuskin_crowd_upload_desc up;
    gpuskin_skin_dispatch_desc sd;
    gpuskin_draw_desc dd;
    gpuskin_pipeline_desc pd;
    gpuskin_pipeline *pipe = NULL;
    gpuskin_mesh *mesh = (gpuskin_mesh *)&c; /* must be reset to NULL on failure */
    gpuskin_crowd *crowd = NULL;
    gpuskin_context *own = NULL;
    gpuskin_context_desc xd;
    gpuskin_buffer out;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    uint8_t bad_methods[4] = {0, 1, 2, 0};
    float vp[16];
    size_t where = 0;
    unsigned before = vk.messages;
    long live = tg_malloc_live;

    memset(&out, 0, sizeof out);
    memset(vp, 0, sizeof vp);
    if (!tg_world_create(&w, &c, 2)) goto done;
    tg_upload(&w, &c, 0);

    /* mesh */
    CHECK_EQ_INT(gpuskin_mesh_create(ctx, NULL, &mesh), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK(mesh == NULL);
    memset(&md, 0, sizeof md);
    md.streams = w.st;
    md.joint_count = c.joints;
    CHECK_EQ_INT(gpuskin_mesh_create(NULL, &md, &mesh), GPUSKIN_ERROR_NULL_ARGUMENT);
    md.joint_count = 0;
    CHECK_EQ_INT(gpuskin_mesh_create(ctx, &md, &mesh), GPUSKIN_ERROR_INVALID_COUNT);
    md.joint_count = c.joints;
    md.out_error_index = &where;
    w.m.joints[0][37 * 4 + 1] = (uint16_t)c.joints; /* weighted: out of range */
    w.m.weights[0][37 * 4 + 1] = 0.5f;
    CHECK_EQ_INT(gpuskin_mesh_create(ctx, &md, &mesh), GPUSKIN_ERROR_JOINT_OUT_OF_RANGE);
    CHECK_EQ_INT(where, 37);
    w.m.weights[0][37 * 4 + 1] = 0.0f; /* unweighted: the garbage is fine */
    CHECK_EQ_INT(gpuskin_mesh_create(ctx, &md, &mesh), GPUSKIN_SUCCESS);
    gpuskin_mesh_destroy(mesh);
    mesh = NULL;
    w.m.weights[0][12 * 4] = -1.0f;
    CHECK_EQ_INT(gpuskin_mesh_create(ctx, &md, &mesh), GPUSKIN_ERROR_INVALID_WEIGHT);
    CHECK_EQ_INT(where, 12);
    w.m.weights[0][12 * 4] = 0.9f;
    md.indices = w.m.indices;
    md.index_count = 5;
    CHECK_EQ_INT(gpuskin_mesh_create(ctx, &md, &mesh), GPUSKIN_ERROR_INVALID_COUNT);
    md.index_count = w.m.index_count;
    w.m.indices[7] = (uint32_t)w.m.vertex_count;
    CHECK_EQ_INT(gpuskin_mesh_create(ctx, &md, &mesh), GPUSKIN_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(where, 7);
    w.m.indices[7] = 0;
    md.indices = NULL;
    CHECK_EQ_INT(gpuskin_mesh_create(ctx, &md, &mesh), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK(mesh == NULL);

    /* crowd */
    memset(&cd, 0, sizeof cd);
    CHECK_EQ_INT(gpuskin_crowd_create(ctx, &cd, &crowd), GPUSKIN_ERROR_NULL_ARGUMENT);
    cd.mesh = w.mesh;
    CHECK_EQ_INT(gpuskin_crowd_create(ctx, &cd, &crowd), GPUSKIN_ERROR_INVALID_COUNT);
    cd.capacity = 0xFFFFFFFFu;
    CHECK_EQ_INT(gpuskin_crowd_create(ctx, &cd, &crowd), GPUSKIN_ERROR_OVERFLOW);
    CHECK(crowd == NULL);

    /* upload */
    memset(&up, 0, sizeof up);
    up.instance_count = c.instances;
    up.palettes = w.palettes;
    CHECK_EQ_INT(gpuskin_crowd_upload(NULL, &up), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_crowd_upload(w.crowd, NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
    up.instance_count = c.instances + 1;
    CHECK_EQ_INT(gpuskin_crowd_upload(w.crowd, &up), GPUSKIN_ERROR_CAPACITY);
    up.instance_count = c.instances;
    up.palette_joint_count = c.joints + 1;
    CHECK_EQ_INT(gpuskin_crowd_upload(w.crowd, &up), GPUSKIN_ERROR_PALETTE_SIZE);
    up.palette_joint_count = c.joints;
    up.frame = 2;
    CHECK_EQ_INT(gpuskin_crowd_upload(w.crowd, &up), GPUSKIN_ERROR_FRAME_SLOT);
    /* two slots: distinct non-zero addresses, none past the last slot */
    CHECK(gpuskin_crowd_frame_address(w.crowd, 0) != 0);
    CHECK(gpuskin_crowd_frame_address(w.crowd, 1) != 0);
    CHECK(gpuskin_crowd_frame_address(w.crowd, 0) != gpuskin_crowd_frame_address(w.crowd, 1));
    CHECK(gpuskin_crowd_frame_address(w.crowd, 2) == 0);
    CHECK(gpuskin_crowd_frame_address(NULL, 0) == 0);
    up.frame = 0;
    up.methods = bad_methods;
    CHECK_EQ_INT(gpuskin_crowd_upload(w.crowd, &up), GPUSKIN_ERROR_INVALID_METHOD);
    up.methods = NULL;
    up.palettes = NULL;
    CHECK_EQ_INT(gpuskin_crowd_upload(w.crowd, &up), GPUSKIN_ERROR_NULL_ARGUMENT);
    up.palettes = w.palettes;
    w.palettes[3].m[5] = NAN;
    CHECK_EQ_INT(gpuskin_crowd_upload(w.crowd, &up), GPUSKIN_ERROR_NON_FINITE);
    w.palettes[3].m[5] = 1.0f;
    CHECK_EQ_INT(gpuskin_crowd_upload(w.crowd, &up), GPUSKIN_SUCCESS);

    /* dispatch */
    CHECK_EQ_INT(tg_readback_buffer((VkDeviceSize)c.instances * w.m.vertex_count * 24, &out), VK_SUCCESS);
    CHECK_EQ_INT(vks_begin(&vk, &cmd), VK_SUCCESS);
    memset(&sd, 0, sizeof sd);
    sd.instance_count = c.instances;
    sd.output = out.address;
    sd.output_size = out.size;
    sd.output_flags = GPUSKIN_OUTPUT_NORMALS;
    CHECK_EQ_INT(gpuskin_cmd_skin(NULL, cmd, &sd), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, VK_NULL_HANDLE, &sd), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
    sd.frame = 2;
    CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, &sd), GPUSKIN_ERROR_FRAME_SLOT);
    sd.frame = 0;
    sd.first_instance = 1;
    CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, &sd), GPUSKIN_ERROR_CAPACITY);
    sd.first_instance = 0;
    sd.output_size = out.size - 4;
    CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, &sd), GPUSKIN_ERROR_INVALID_ARGUMENT); /* output too small */
    sd.output_size = out.size;
    sd.output_flags = GPUSKIN_OUTPUT_TANGENTS; /* the mesh has none */
    CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, &sd), GPUSKIN_ERROR_INVALID_ARGUMENT);
    sd.output_flags = 0x80;
    CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, &sd), GPUSKIN_ERROR_INVALID_ARGUMENT);
    sd.output_flags = GPUSKIN_OUTPUT_NORMALS;
    sd.kernel_flags = 0x2;
    CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, &sd), GPUSKIN_ERROR_INVALID_ARGUMENT);
    sd.kernel_flags = 0;
    sd.instances_per_invocation = 3; /* only 1, 2, 4, 8 and 16 */
    CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, &sd), GPUSKIN_ERROR_INVALID_ARGUMENT);
    sd.instances_per_invocation = 12;
    CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, &sd), GPUSKIN_ERROR_INVALID_ARGUMENT);
    sd.instances_per_invocation = 32;
    CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, &sd), GPUSKIN_ERROR_INVALID_ARGUMENT);
    sd.instances_per_invocation = 0x80000000u;
    CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, &sd), GPUSKIN_ERROR_INVALID_ARGUMENT);
    sd.instances_per_invocation = 0;
    sd.output = 0;
    CHECK_EQ_INT(gpuskin_cmd_skin(w.crowd, cmd, &sd), GPUSKIN_ERROR_NULL_ARGUMENT);

    /* draw */
    memset(&pd, 0, sizeof pd);
    CHECK_EQ_INT(gpuskin_pipeline_create(ctx, &pd, &pipe), GPUSKIN_ERROR_INVALID_ARGUMENT);
    pd.color_format = VK_FORMAT_R8G8B8A8_UNORM;
    pd.samples = (VkSampleCountFlagBits)3;
    CHECK_EQ_INT(gpuskin_pipeline_create(ctx, &pd, &pipe), GPUSKIN_ERROR_INVALID_ARGUMENT);
    pd.samples = VK_SAMPLE_COUNT_1_BIT;
    CHECK_EQ_INT(gpuskin_pipeline_create(ctx, &pd, &pipe), GPUSKIN_SUCCESS);
    memset(&dd, 0, sizeof dd);
    dd.instance_count = c.instances;
    CHECK_EQ_INT(gpuskin_cmd_draw(w.crowd, pipe, cmd, &dd), GPUSKIN_ERROR_NULL_ARGUMENT); /* no view_proj */
    dd.view_proj = vp;
    CHECK_EQ_INT(gpuskin_cmd_draw(w.crowd, NULL, cmd, &dd), GPUSKIN_ERROR_NULL_ARGUMENT);
    dd.frame = 5;
    CHECK_EQ_INT(gpuskin_cmd_draw(w.crowd, pipe, cmd, &dd), GPUSKIN_ERROR_FRAME_SLOT);
    dd.frame = 0;
    dd.instance_count = c.instances + 1;
    CHECK_EQ_INT(gpuskin_cmd_draw(w.crowd, pipe, cmd, &dd), GPUSKIN_ERROR_CAPACITY);
    dd.instance_count = c.instances;
    dd.flags = 0x100;
    CHECK_EQ_INT(gpuskin_cmd_draw(w.crowd, pipe, cmd, &dd), GPUSKIN_ERROR_INVALID_ARGUMENT);
    if (cmd != VK_NULL_HANDLE) CHECK_EQ_INT(vks_submit_wait(&vk, cmd), VK_SUCCESS); /* nothing was recorded */

    /* context */
    CHECK_EQ_INT(gpuskin_context_create(NULL, &own), GPUSKIN_ERROR_NULL_ARGUMENT);
    xd = tg_context_desc();
    xd.get_instance_proc_addr = NULL;
    CHECK_EQ_INT(gpuskin_context_create(&xd, &own), GPUSKIN_ERROR_NULL_ARGUMENT);
    xd = tg_context_desc();
    xd.allocator.create_buffer = tg_alloc_create; /* without destroy_buffer */
    CHECK_EQ_INT(gpuskin_context_create(&xd, &own), GPUSKIN_ERROR_INVALID_ARGUMENT);
    CHECK(own == NULL);

done:
    tg_release_buffer(&out);
    gpuskin_pipeline_destroy(pipe);
    tg_world_destroy(&w);
    CHECK_EQ_INT(tg_malloc_live, live);
    CHECK_NO_VALIDATION(before);
}

/* A device without a feature gpuskin needs: the host says what it enabled. */
static void test_missing_feature(void)
{
    gpuskin_context_desc cd = tg_context_desc();
    VkPhysicalDeviceVulkan12Features f12 = vk.features12;
    VkPhysicalDeviceVulkan13Features f13 = vk.features13;
    gpuskin_context *own = NULL;
    gpuskin_pipeline *pipe = NULL;
    gpuskin_pipeline_desc pd;
    const char *missing = "unset";
    unsigned before = vk.messages;
    long live = tg_malloc_live;

    f12.bufferDeviceAddress = VK_FALSE;
    cd.enabled_features12 = &f12;
    cd.out_missing_feature = &missing;
    CHECK_EQ_INT(gpuskin_context_create(&cd, &own), GPUSKIN_ERROR_MISSING_FEATURE);
    CHECK(own == NULL);
    CHECK(missing && strcmp(missing, "bufferDeviceAddress") == 0);
    printf("  missing: %s\n", missing ? missing : "(null)");

    /* without dynamicRendering, compute still works but drawing does not */
    f13.dynamicRendering = VK_FALSE;
    cd = tg_context_desc();
    cd.enabled_features13 = &f13;
    cd.out_missing_feature = &missing;
    CHECK_EQ_INT(gpuskin_context_create(&cd, &own), GPUSKIN_SUCCESS);
    CHECK(missing == NULL);
    memset(&pd, 0, sizeof pd);
    pd.color_format = VK_FORMAT_R8G8B8A8_UNORM;
    if (own) CHECK_EQ_INT(gpuskin_pipeline_create(own, &pd, &pipe), GPUSKIN_ERROR_MISSING_FEATURE);
    CHECK(pipe == NULL);
    gpuskin_context_destroy(own);
    CHECK_EQ_INT(tg_malloc_live, live);
    CHECK_NO_VALIDATION(before);
}

/* ---- Every allocation failing in turn ------------------------------------------------------ */

/* The full create sequence: context, mesh (staged or not), crowd of 3 slots,
   pipeline. Returns the first failure; destroys everything it made. */
static gpuskin_result tg_create_sequence(tg_alloc *a, const tg_mesh *m, int staged, const VkAllocationCallbacks *cb)
{
    gpuskin_context_desc cd = tg_context_desc();
    gpuskin_context *c = NULL;
    gpuskin_mesh *mesh = NULL;
    gpuskin_crowd *crowd = NULL;
    gpuskin_pipeline *pipe = NULL;
    gpuskin_mesh_desc md;
    gpuskin_crowd_desc rd;
    gpuskin_pipeline_desc pd;
    gpuskin_result r;

    cd.allocator.create_buffer = tg_alloc_create;
    cd.allocator.destroy_buffer = tg_alloc_destroy;
    cd.allocator.user = a;
    cd.vk_allocation_callbacks = cb;
    a->unmapped_static = staged;
    r = gpuskin_context_create(&cd, &c);
    if (r == GPUSKIN_SUCCESS) {
        a->inner = gpuskin_default_allocator(c);
        memset(&md, 0, sizeof md);
        md.streams = tg_streams(m, 1, 1);
        md.joint_count = m->joint_count;
        md.indices = m->indices;
        md.index_count = m->index_count;
        r = gpuskin_mesh_create(c, &md, &mesh);
    }
    if (r == GPUSKIN_SUCCESS) {
        memset(&rd, 0, sizeof rd);
        rd.mesh = mesh;
        rd.capacity = 8;
        rd.frames_in_flight = 3;
        r = gpuskin_crowd_create(c, &rd, &crowd);
    }
    if (r == GPUSKIN_SUCCESS) {
        memset(&pd, 0, sizeof pd);
        pd.color_format = VK_FORMAT_B8G8R8A8_UNORM;
        pd.depth_format = VK_FORMAT_D32_SFLOAT;
        r = gpuskin_pipeline_create(c, &pd, &pipe);
    }
    gpuskin_pipeline_destroy(pipe);
    gpuskin_crowd_destroy(crowd);
    gpuskin_mesh_destroy(mesh);
    gpuskin_context_destroy(c);
    return r;
}

static void test_allocation_failures(void)
{
    tg_mesh m = tg_cylinder(6, 8, 4, 2);
    unsigned before = vk.messages;
    long live = tg_malloc_live, n, buffer_calls, malloc_calls;
    int staged;
    for (staged = 0; staged < 2; ++staged) {
        tg_alloc a;
        int clean = 1;
        /* count the calls of a successful sequence */
        memset(&a, 0, sizeof a);
        tg_malloc_calls = 0;
        CHECK_EQ_INT(tg_create_sequence(&a, &m, staged, NULL), GPUSKIN_SUCCESS);
        buffer_calls = a.calls;
        malloc_calls = tg_malloc_calls;
        CHECK_EQ_INT(a.live, 0);
        /* the host's buffer allocator fails on call n */
        for (n = 1; n <= buffer_calls; ++n) {
            gpuskin_result r;
            memset(&a, 0, sizeof a);
            a.fail_at = n;
            r = tg_create_sequence(&a, &m, staged, NULL);
            if (r != GPUSKIN_ERROR_ALLOCATION_FAILED || a.live != 0 || tg_malloc_live != live) {
                printf("  buffer call %ld: %s, %ld buffers live\n", n, gpuskin_result_string(r), a.live);
                clean = 0;
            }
        }
        /* GPUSKIN_MALLOC fails on call n (the default allocator's own records too) */
        for (n = 1; n <= malloc_calls; ++n) {
            gpuskin_result r;
            memset(&a, 0, sizeof a);
            tg_malloc_calls = 0;
            tg_malloc_fail_at = n;
            r = tg_create_sequence(&a, &m, staged, NULL);
            tg_malloc_fail_at = -1;
            if ((r != GPUSKIN_ERROR_OUT_OF_MEMORY && r != GPUSKIN_ERROR_ALLOCATION_FAILED) || a.live != 0 ||
                tg_malloc_live != live) {
                printf("  malloc call %ld: %s, %ld buffers live, %ld blocks live\n", n, gpuskin_result_string(r),
                       a.live, tg_malloc_live - live);
                clean = 0;
            }
        }
        printf("  %s mesh: %ld buffer allocations and %ld mallocs, each failed in turn: %s\n",
               staged ? "staged" : "mapped", buffer_calls, malloc_calls, clean ? "clean" : "LEAKS");
        CHECK(clean);
        CHECK(buffer_calls >= (staged ? 5 : 4));
    }
    tg_mesh_free(&m);
    CHECK_NO_VALIDATION(before);
}

/* VkAllocationCallbacks that fail on their Nth call: everything gpuskin creates
   with the host's callbacks (pipelines, layouts, shader modules, and through the
   built-in allocator buffers and memory) must be destroyed with them again. */
typedef struct tg_vkalloc {
    long calls, live, fail_at;
} tg_vkalloc;

typedef struct tg_vkblock {
    void *base;
    size_t size;
} tg_vkblock;

static void *tg_vk_raw(tg_vkalloc *a, size_t size, size_t align)
{
    unsigned char *base, *p;
    if (align < sizeof(void *)) align = sizeof(void *);
    base = (unsigned char *)malloc(size + sizeof(tg_vkblock) + align);
    if (!base) return NULL;
    p = base + sizeof(tg_vkblock);
    p += (align - (uintptr_t)p % align) % align;
    ((tg_vkblock *)(void *)p)[-1].base = base;
    ((tg_vkblock *)(void *)p)[-1].size = size;
    ++a->live;
    return p;
}

static void VKAPI_PTR tg_vk_free(void *user, void *p)
{
    tg_vkalloc *a = (tg_vkalloc *)user;
    if (!p) return;
    --a->live;
    free(((tg_vkblock *)p)[-1].base);
}

static void *VKAPI_PTR tg_vk_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
    tg_vkalloc *a = (tg_vkalloc *)user;
    (void)scope;
    if (++a->calls == a->fail_at) return NULL;
    return tg_vk_raw(a, size, align);
}

static void *VKAPI_PTR tg_vk_realloc(void *user, void *old, size_t size, size_t align, VkSystemAllocationScope scope)
{
    tg_vkalloc *a = (tg_vkalloc *)user;
    void *p;
    (void)scope;
    if (!old) return tg_vk_alloc(user, size, align, scope);
    if (size == 0) {
        tg_vk_free(user, old);
        return NULL;
    }
    if (++a->calls == a->fail_at) return NULL;
    p = tg_vk_raw(a, size, align);
    if (!p) return NULL;
    memcpy(p, old, ((tg_vkblock *)old)[-1].size < size ? ((tg_vkblock *)old)[-1].size : size);
    tg_vk_free(user, old);
    return p;
}

static void test_vk_allocation_callback_failures(void)
{
    tg_mesh m = tg_cylinder(6, 8, 4, 1);
    VkAllocationCallbacks cb;
    tg_vkalloc va;
    tg_alloc a;
    unsigned before = vk.messages;
    long n, total, live = tg_malloc_live;
    int clean = 1;
    memset(&cb, 0, sizeof cb);
    cb.pUserData = &va;
    cb.pfnAllocation = tg_vk_alloc;
    cb.pfnReallocation = tg_vk_realloc;
    cb.pfnFree = tg_vk_free;
    memset(&va, 0, sizeof va);
    memset(&a, 0, sizeof a);
    CHECK_EQ_INT(tg_create_sequence(&a, &m, 0, &cb), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(va.live, 0);
    total = va.calls;
    /* Mesa reports the injected failures it returns through the messenger. */
    vk.expect = "VK_ERROR_OUT_OF_HOST_MEMORY";
    for (n = 1; n <= total; ++n) {
        gpuskin_result r;
        memset(&va, 0, sizeof va);
        memset(&a, 0, sizeof a);
        va.fail_at = n;
        r = tg_create_sequence(&a, &m, 0, &cb);
        if ((r != GPUSKIN_ERROR_VULKAN && r != GPUSKIN_ERROR_ALLOCATION_FAILED && r != GPUSKIN_SUCCESS) ||
            va.live != 0 || a.live != 0 || tg_malloc_live != live) {
            printf("  callback call %ld: %s, %ld blocks live, %ld buffers live\n", n, gpuskin_result_string(r),
                   va.live, a.live);
            clean = 0;
        }
    }
    vk.expect = NULL;
    printf("  %ld VkAllocationCallbacks calls, each failed in turn: %s\n", total, clean ? "clean" : "LEAKS");
    CHECK(clean);
    CHECK(total > 0);
    tg_mesh_free(&m);
    CHECK_NO_VALIDATION(before);
}

/* ---- Layout facts the docs state --------------------------------------------------------------- */

static void test_output_stride(void)
{
    CHECK_EQ_INT(gpuskin_output_stride(0), 12);
    CHECK_EQ_INT(gpuskin_output_stride(GPUSKIN_OUTPUT_NORMALS), 24);
    CHECK_EQ_INT(gpuskin_output_stride(GPUSKIN_OUTPUT_TANGENTS), 28);
    CHECK_EQ_INT(gpuskin_output_stride(GPUSKIN_OUTPUT_NORMALS | GPUSKIN_OUTPUT_TANGENTS), 40);
}

int main(int argc, char **argv)
{
    vks_options o;
    gpuskin_context_desc cd;
    const char *missing = NULL;
    gpuskin_result r;
    int rc, i;
    TEST_INIT(argc, argv);
    for (i = 0; i < 128; ++i) {
        tg_methods_all_dqs[i] = GPUSKIN_METHOD_DQS;
        tg_methods_mixed[i] = (uint8_t)((i % 3) == 1 ? GPUSKIN_METHOD_LBS : GPUSKIN_METHOD_DQS);
    }
    memset(&o, 0, sizeof o);
    /* Only for a machine without the layer (a bare GPU box): the default, and CI,
       always validate. */
    o.validation = !getenv("GPUSKIN_NO_VALIDATION");
    if (vks_create(&vk, &o) != VK_SUCCESS) {
        printf("no Vulkan device%s\n0 passed, 1 failed\n", o.validation ? " with the validation layer" : "");
        return 1;
    }
    printf("device: %s (Vulkan %u.%u), %s\n", vk.properties.deviceName,
           VK_API_VERSION_MAJOR(vk.properties.apiVersion), VK_API_VERSION_MINOR(vk.properties.apiVersion),
           o.validation ? "validation + synchronization validation on" : "VALIDATION OFF (GPUSKIN_NO_VALIDATION)");
    cd = tg_context_desc();
    cd.out_missing_feature = &missing;
    r = gpuskin_context_create(&cd, &ctx);
    if (r != GPUSKIN_SUCCESS) {
        printf("gpuskin_context_create: %s (%s)\n0 passed, 1 failed\n", gpuskin_result_string(r),
               missing ? missing : "");
        vks_destroy(&vk);
        return 1;
    }
    tg_real_bind_pipeline = ctx->vk.vkCmdBindPipeline;
    ctx->vk.vkCmdBindPipeline = tg_bind_spy;

    RUN_TEST(test_output_stride);
    RUN_TEST(test_compute_lbs);
    RUN_TEST(test_compute_many_joints);
    RUN_TEST(test_compute_output_alignment);
    RUN_TEST(test_compute_dqs_rigid);
    RUN_TEST(test_compute_dqs_residual);
    RUN_TEST(test_compute_dqs_uniform);
    RUN_TEST(test_compute_dqs_triangular);
    RUN_TEST(test_compute_dqs_symmetric);
    RUN_TEST(test_compute_mixed_crowd);
    RUN_TEST(test_compute_three_kinds);
    RUN_TEST(test_compute_stale_recording);
    RUN_TEST(test_compute_kernels);
    RUN_TEST(test_compute_method_runs);
    RUN_TEST(test_compute_kernel_follows_uploads);
    RUN_TEST(test_compute_twist);
    RUN_TEST(test_compute_eight_influences);
    RUN_TEST(test_compute_tangents);
    RUN_TEST(test_compute_joint_types);
    RUN_TEST(test_compute_staging_upload);
    RUN_TEST(test_compute_volk_table);
    RUN_TEST(test_frames_in_flight);
    RUN_TEST(test_sync_validation_is_on);
    RUN_TEST(test_render);
    RUN_TEST(test_bad_input);
    RUN_TEST(test_missing_feature);
    RUN_TEST(test_allocation_failures);
    RUN_TEST(test_vk_allocation_callback_failures);

    gpuskin_context_destroy(ctx);
    vks_destroy(&vk);
    if (vk.messages) {
        printf("FAIL validation reported %u message(s) outside the cases (leaks are reported at device destroy)\n",
               vk.messages);
        ++gt_failed;
    }
    if (tg_malloc_live) {
        printf("FAIL %ld GPUSKIN_MALLOC block(s) never freed\n", tg_malloc_live);
        ++gt_failed;
    }
    rc = TEST_REPORT();
    return rc;
}
