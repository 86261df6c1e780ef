/* test_gpu.c - gpuskin's Vulkan half on a real device (lavapipe in CI), with
   VK_LAYER_KHRONOS_validation and synchronization validation on. Any message
   from the layers fails the case it happened in.

   Compute output is checked against the CPU oracle (gpuskin_skin_cpu reading the
   same packed palettes). Tolerance: max |gpu - cpu| <= 1e-5 x the model's
   bounding radius for positions, 1e-5 for unit normals and tangents. Both sides
   are float32 doing the same operations in the same order; what remains is the
   GPU's freedom to fuse multiply-adds and its 2.5-ulp division and sqrt, a few
   ulp on values of order the radius, far inside 1e-5. */
#include <stdint.h>
#include <stdlib.h>

/* Counting allocator: every GPUSKIN_MALLOC can be made to fail, and live blocks
   are counted to prove nothing leaks on any failure path. */
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
#define GPUSKIN_VULKAN_INC_AVAILABLE
#include "gpuskin.h"
#define VK_SETUP_IMPLEMENTATION
#include "examples/common/vk_setup.h"
#include "testing.h"

#define TG_PI 3.14159265358979f

static vks_context vk;
static gpuskin_context *ctx;

/* ---- fixtures ---------------------------------------------------------------- */

/* A cylinder along +y from 0 to `height`: `rings` rings of `sides` vertices,
   radial normals, tangents around the circumference (w alternating +-1), and a
   chain of joints along the axis; each ring is weighted between the two nearest
   joints (raw weights deliberately not summing to 1), some with extra small
   influences so 3 or 4 slots are used. With sets == 2 every vertex also gets a
   second set of small weights to other joints. */
typedef struct tg_mesh {
    size_t vertex_count;
    uint32_t joint_count, sets, index_count;
    float *positions, *normals, *tangents, *weights[2];
    uint16_t *joints[2];
    uint32_t *indices;
    float radius;
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

static float tg_height(uint32_t joints) { return (float)joints; }

static tg_mesh tg_cylinder(uint32_t rings, uint32_t sides, uint32_t joint_count, uint32_t sets)
{
    tg_mesh m;
    uint32_t r, s, q;
    float height = tg_height(joint_count);
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
        /* joint j sits at y = j; blend between floor and floor+1 */
        float f = y - 0.5f;
        uint32_t j0 = f < 0 ? 0u : (uint32_t)f;
        uint32_t j1 = j0 + 1 < joint_count ? j0 + 1 : j0;
        float t = f < 0 ? 0.0f : f - (float)j0;
        if (t > 1.0f) t = 1.0f;
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
            /* raw weights sum to 0.9 (the shader renormalises) */
            m.joints[0][v * 4 + 0] = (uint16_t)j0;
            m.weights[0][v * 4 + 0] = 0.9f * (1.0f - t);
            m.joints[0][v * 4 + 1] = (uint16_t)j1;
            m.weights[0][v * 4 + 1] = 0.9f * t;
            /* garbage joint behind a zero weight: must never be read */
            m.joints[0][v * 4 + 2] = 0xFFFFu;
            m.weights[0][v * 4 + 2] = 0.0f;
            m.joints[0][v * 4 + 3] = (uint16_t)((j0 + 2) % joint_count);
            m.weights[0][v * 4 + 3] = (s % 3 == 0) ? 0.05f : 0.0f;
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
        }
    }
    m.index_count = (rings - 1) * sides * 6;
    m.indices = (uint32_t *)calloc(m.index_count, sizeof(uint32_t));
    q = 0;
    for (r = 0; r + 1 < rings; ++r)
        for (s = 0; s < sides; ++s) {
            uint32_t a = r * sides + s, b = r * sides + (s + 1) % sides;
            uint32_t c = a + sides, d = b + sides;
            m.indices[q++] = a; m.indices[q++] = c; m.indices[q++] = b;
            m.indices[q++] = b; m.indices[q++] = c; m.indices[q++] = d;
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

/* Kinds of palette a test can ask for. */
enum { TG_RIGID = 0, TG_SCALED = 1, TG_TWIST = 2 };

/* Palette of instance i: a bending chain placed on a grid. Joint j rotates
   about the point (0, j, 0); TG_SCALED adds non-uniform scale, shear, a
   mirrored joint and a degenerate joint; TG_TWIST twists joint j about the y
   axis by 180 degrees times j/(J-1). */
static void tg_palette(uint32_t i, uint32_t joint_count, int kind, gpuskin_mat4 *out)
{
    uint32_t j;
    gpuskin_mat4 model = tg_mul(tg_translate((float)(i % 8) * 3.0f - 10.5f, 0.0f, (float)(i / 8) * 3.0f - 10.5f),
                                tg_rotate(0, 1, 0, 0.37f * (float)i));
    gpuskin_mat4 global = gpuskin_mat4_identity();
    for (j = 0; j < joint_count; ++j) {
        gpuskin_mat4 local, pivot = tg_translate(0, (float)j, 0), unpivot = tg_translate(0, -(float)j, 0);
        if (kind == TG_TWIST) {
            float angle = TG_PI * (float)j / (float)(joint_count > 1 ? joint_count - 1 : 1);
            out[j] = tg_mul(model, tg_rotate(0, 1, 0, angle));
            continue;
        }
        local = tg_rotate(j % 2 ? 1.0f : 0.3f, 0.2f, j % 2 ? 0.1f : 1.0f, 0.25f + 0.1f * (float)((i + j) % 5));
        global = tg_mul(global, tg_mul(pivot, tg_mul(local, unpivot)));
        out[j] = tg_mul(model, global);
        if (kind == TG_SCALED) {
            gpuskin_mat4 s = gpuskin_mat4_identity();
            switch ((j + i) % 5) {
            case 0: s.m[0] = 1.3f; s.m[5] = 0.7f; s.m[10] = 1.1f; break;  /* non-uniform scale */
            case 1: s.m[4] = 0.35f; s.m[9] = -0.2f; break;                  /* shear */
            case 2: s.m[0] = -1.0f; break;                                   /* mirrored */
            case 3: s.m[5] = 0.0f; break;                                    /* degenerate: y collapsed */
            default: break;                                                  /* rigid */
            }
            out[j] = tg_mul(out[j], tg_mul(pivot, tg_mul(s, unpivot)));
        }
    }
}

/* ---- running a dispatch ---------------------------------------------------------- */

typedef struct tg_case {
    uint32_t instances, rings, sides, joints, sets;
    int normals, tangents, kind;
    const uint8_t *methods; /* per instance; NULL = all LBS */
    uint32_t output_flags;
    gpuskin_split_method split;
} tg_case;

static int tg_quiet_vk(void) { return vk.messages == 0; }

/* Skins the case on the GPU and with the oracle; returns the max errors. */
static void tg_run_case(const tg_case *c, double *max_pos, double *max_dir, float *radius_out,
                        uint32_t *residual_instances)
{
    tg_mesh m = tg_cylinder(c->rings, c->sides, c->joints, c->sets);
    gpuskin_vertex_streams st = tg_streams(&m, c->normals, c->tangents);
    gpuskin_mesh_desc md;
    gpuskin_crowd_desc cd;
    gpuskin_crowd_upload_desc up;
    gpuskin_skin_dispatch_desc sd;
    gpuskin_mesh *mesh = NULL;
    gpuskin_crowd *crowd = NULL;
    gpuskin_buffer out;
    gpuskin_allocator alloc = gpuskin_default_allocator(ctx);
    gpuskin_mat4 *pal = (gpuskin_mat4 *)calloc((size_t)c->instances * c->joints, sizeof(gpuskin_mat4));
    uint32_t *words = (uint32_t *)calloc(c->instances, sizeof(uint32_t));
    float *lbs = (float *)calloc((size_t)c->joints * 12, sizeof(float));
    float *dq = (float *)calloc((size_t)c->joints * 8, sizeof(float));
    float *res = (float *)calloc((size_t)c->joints * 12, sizeof(float));
    float *cpu = (float *)calloc(m.vertex_count * 10, sizeof(float));
    uint32_t stride = gpuskin_output_stride(c->output_flags), i;
    size_t v;
    VkCommandBuffer cmd;
    VkBufferMemoryBarrier host;

    *max_pos = *max_dir = 0.0;
    *radius_out = m.radius;
    if (residual_instances) *residual_instances = 0;
    memset(&out, 0, sizeof out);
    memset(&md, 0, sizeof md);
    md.streams = st;
    md.joint_count = c->joints;
    md.indices = m.indices;
    md.index_count = m.index_count;
    CHECK_EQ_INT(gpuskin_mesh_create(ctx, &md, &mesh), GPUSKIN_SUCCESS);
    memset(&cd, 0, sizeof cd);
    cd.mesh = mesh;
    cd.capacity = c->instances;
    CHECK_EQ_INT(gpuskin_crowd_create(ctx, &cd, &crowd), GPUSKIN_SUCCESS);
    for (i = 0; i < c->instances; ++i) tg_palette(i, c->joints, c->kind, pal + (size_t)i * c->joints);
    memset(&up, 0, sizeof up);
    up.frame = 1;
    up.instance_count = c->instances;
    up.palettes = pal;
    up.methods = c->methods;
    up.split = c->split;
    up.out_method_words = words;
    CHECK_EQ_INT(gpuskin_crowd_upload(crowd, &up), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(alloc.create_buffer(alloc.user, (VkDeviceSize)c->instances * m.vertex_count * stride,
                                     VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPUSKIN_MEMORY_READBACK, &out),
                 VK_SUCCESS);
    if (!mesh || !crowd || !out.mapped) goto done;

    CHECK_EQ_INT(vks_begin(&vk, &cmd), VK_SUCCESS);
    CHECK_EQ_INT(gpuskin_cmd_upload_mesh(mesh, cmd), GPUSKIN_SUCCESS);
    memset(&sd, 0, sizeof sd);
    sd.frame = 1;
    sd.instance_count = c->instances;
    sd.output = out.address;
    sd.output_size = out.size;
    sd.output_flags = c->output_flags;
    CHECK_EQ_INT(gpuskin_cmd_skin(crowd, cmd, &sd), GPUSKIN_SUCCESS);
    memset(&host, 0, sizeof host);
    host.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    host.srcQueueFamilyIndex = host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    host.buffer = out.buffer;
    host.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &host,
                         0, NULL);
    CHECK_EQ_INT(vks_submit_wait(&vk, cmd), VK_SUCCESS);

    for (i = 0; i < c->instances; ++i) {
        gpuskin_cpu_skin_desc sk;
        const gpuskin_mat4 *p = pal + (size_t)i * c->joints;
        uint32_t word = GPUSKIN_METHOD_LBS;
        const float *g = (const float *)out.mapped + (size_t)i * m.vertex_count * (stride / 4);
        if (c->methods && c->methods[i] == GPUSKIN_METHOD_DQS) {
            CHECK_EQ_INT(gpuskin_pack_dq(p, c->joints, c->split, dq, res, &word), GPUSKIN_SUCCESS);
        } else {
            CHECK_EQ_INT(gpuskin_pack_lbs(p, c->joints, lbs), GPUSKIN_SUCCESS);
        }
        CHECK_EQ_INT(words[i], word);
        if (residual_instances && (word & GPUSKIN_METHOD_RESIDUAL_BIT)) ++*residual_instances;
        memset(&sk, 0, sizeof sk);
        sk.streams = st;
        sk.joint_count = c->joints;
        sk.method_word = word;
        sk.lbs_palette = lbs;
        sk.dq_palette = dq;
        sk.residual_palette = res;
        sk.out_positions.data = cpu;
        sk.out_positions.stride = 40;
        if (c->output_flags & GPUSKIN_OUTPUT_NORMALS) {
            sk.out_normals.data = cpu + 3;
            sk.out_normals.stride = 40;
        }
        if (c->output_flags & GPUSKIN_OUTPUT_TANGENTS) {
            sk.out_tangents.data = cpu + 6;
            sk.out_tangents.stride = 40;
        }
        CHECK_EQ_INT(gpuskin_skin_cpu(&sk), GPUSKIN_SUCCESS);
        for (v = 0; v < m.vertex_count; ++v) {
            const float *gv = g + v * (stride / 4), *cv = cpu + v * 10;
            uint32_t k, o = 3;
            for (k = 0; k < 3; ++k) *max_pos = fmax(*max_pos, fabs((double)gv[k] - cv[k]));
            if (c->output_flags & GPUSKIN_OUTPUT_NORMALS) {
                for (k = 0; k < 3; ++k) *max_dir = fmax(*max_dir, fabs((double)gv[o + k] - cv[3 + k]));
                o += 3;
            }
            if (c->output_flags & GPUSKIN_OUTPUT_TANGENTS)
                for (k = 0; k < 4; ++k) *max_dir = fmax(*max_dir, fabs((double)gv[o + k] - cv[6 + k]));
        }
    }
done:
    if (out.buffer) alloc.destroy_buffer(alloc.user, &out);
    gpuskin_crowd_destroy(crowd);
    gpuskin_mesh_destroy(mesh);
    free(pal);
    free(words);
    free(lbs);
    free(dq);
    free(res);
    free(cpu);
    tg_mesh_free(&m);
}

static void tg_check_case(const tg_case *c, const char *name)
{
    double max_pos, max_dir;
    float radius;
    unsigned before = vk.messages;
    tg_run_case(c, &max_pos, &max_dir, &radius, NULL);
    printf("  %-22s max |dp| = %.3g (tol %.3g), max |dn| = %.3g\n", name, max_pos, 1e-5 * radius, max_dir);
    CHECK(max_pos <= 1e-5 * radius);
    CHECK(max_dir <= 1e-5);
    CHECK_EQ_INT(vk.messages, before);
}

/* ---- cases ------------------------------------------------------------------------ */

static void test_compute_lbs(void)
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
    c.kind = TG_RIGID;
    tg_check_case(&c, "lbs");
}

int main(int argc, char **argv)
{
    vks_options o;
    gpuskin_context_desc cd;
    int rc;
    TEST_INIT(argc, argv);
    memset(&o, 0, sizeof o);
    o.validation = 1;
    if (vks_create(&vk, &o) != VK_SUCCESS) {
        printf("no Vulkan device with validation\n0 passed, 1 failed\n");
        return 1;
    }
    printf("device: %s\n", vk.properties.deviceName);
    memset(&cd, 0, sizeof cd);
    cd.instance = vk.instance;
    cd.physical_device = vk.physical_device;
    cd.device = vk.device;
    cd.get_instance_proc_addr = vkGetInstanceProcAddr;
    cd.enabled_features12 = &vk.features12;
    cd.enabled_features13 = &vk.features13;
    if (gpuskin_context_create(&cd, &ctx) != GPUSKIN_SUCCESS) {
        printf("gpuskin_context_create failed\n0 passed, 1 failed\n");
        vks_destroy(&vk);
        return 1;
    }

    RUN_TEST(test_compute_lbs);

    gpuskin_context_destroy(ctx);
    vks_destroy(&vk);
    (void)tg_quiet_vk;
    if (vk.messages) printf("validation reported %u message(s) (leaks at destroy count)\n", vk.messages);
    rc = TEST_REPORT();
    return rc || vk.messages || tg_malloc_live ? 1 : rc;
}
