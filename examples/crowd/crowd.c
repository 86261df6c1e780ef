/* crowd - gpuskin's demo: a crowd of skinned characters in ONE instanced draw.

   Headless: renders offscreen (Vulkan dynamic rendering, colour + depth) and
   writes a PNG. Each instance has its own clip (walk / wave / twist), its own
   time in it, its own place and heading in a grid (the model matrix rides in
   the palette: palette = model(i) * global * inverseBind), its own tint, and
   every other one is skinned with dual quaternions instead of linear blending.

       build/crowd [--instances N] [--out PATH.png] [--size WxH] [--time SECONDS]
                   [--validate]
       build/crowd_gltf ... [--model PATH.gltf|PATH.glb]

   --instances N   characters (default 64)
   --out PATH      PNG to write (default build/crowd.png)
   --size WxH      output size (default 1280x720); rendered at twice that and
                   box-filtered down, so edges are anti-aliased
   --time S        the moment of the animation shown (default 0.37)
   --validate      Khronos validation + synchronization validation; any message
                   makes the run fail (for `make test`; GPUSKIN_NO_VALIDATION=1
                   turns it off on a machine without the layer, as TESTING.md says)
   --model PATH    (build/crowd_gltf only) a glTF 2.0 file instead of the
                   procedural figure: its first skin, the first triangle
                   primitive skinned by it, and its animations as the clips

   By default the model is procedural (examples/common/rig.h): 16 joints, ~2600
   vertices, no files needed, and build/crowd is plain C with no glTF loader.
   build/crowd_gltf is the same source built with CROWD_GLTF and linked with
   tools/gltf_model (C++, tinygltf). GPUSKIN_DEVICE=<part of a device name>
   picks the GPU. */
#define _POSIX_C_SOURCE 200112L
#include <volk.h>

#define GPUSKIN_IMPLEMENTATION
#include "gpuskin.h"
#define VK_SETUP_IMPLEMENTATION
#include "examples/common/vk_setup.h"
#include "examples/common/rig.h"
#ifdef CROWD_GLTF
#include "tools/gltf_model.h"
#endif
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define COLOR_FORMAT VK_FORMAT_R8G8B8A8_UNORM
#define DEPTH_FORMAT VK_FORMAT_D32_SFLOAT
#define SUPERSAMPLE 2u

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Creates the directories above `path` (mkdir -p of its dirname). */
static int make_parent_dirs(const char *path)
{
    char buf[1024];
    size_t i, n = strlen(path);
    if (n >= sizeof buf) return -1;
    memcpy(buf, path, n + 1);
    for (i = 1; i < n; ++i)
        if (buf[i] == '/') {
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            buf[i] = '/';
        }
    return 0;
}

typedef struct options {
    uint32_t instances;
    const char *out;
    uint32_t width, height;
    float time;
    int validate;
    const char *model;
} options;

static void usage(void)
{
    fprintf(stderr, "usage: crowd [--instances N] [--out PATH.png] [--size WxH] [--time SECONDS] [--validate]"
#ifdef CROWD_GLTF
                    " [--model PATH.glb]"
#endif
                    "\n");
}

static int parse_args(int argc, char **argv, options *o)
{
    int i;
    o->instances = 64;
    o->out = "build/crowd.png";
    o->width = 1280;
    o->height = 720;
    o->time = 0.37f;
    o->validate = 0;
    o->model = NULL;
    for (i = 1; i < argc; ++i) {
        const char *a = argv[i];
        int has_value = i + 1 < argc;
        if (!strcmp(a, "--instances") && has_value) {
            long n = strtol(argv[++i], NULL, 10);
            if (n < 1 || n > 100000) {
                fprintf(stderr, "crowd: --instances must be 1..100000\n");
                return 1;
            }
            o->instances = (uint32_t)n;
        } else if (!strcmp(a, "--out") && has_value) {
            o->out = argv[++i];
        } else if (!strcmp(a, "--size") && has_value) {
            unsigned w = 0, h = 0;
            if (sscanf(argv[++i], "%ux%u", &w, &h) != 2 || w < 16 || h < 16 || w > 4096 || h > 4096) {
                fprintf(stderr, "crowd: --size must be WxH, 16..4096 each\n");
                return 1;
            }
            o->width = w;
            o->height = h;
        } else if (!strcmp(a, "--time") && has_value) {
            o->time = (float)strtod(argv[++i], NULL);
            if (!(o->time == o->time) || fabsf(o->time) > 1e6f) {
                fprintf(stderr, "crowd: --time must be a number\n");
                return 1;
            }
        } else if (!strcmp(a, "--validate")) {
            o->validate = 1;
        } else if (!strcmp(a, "--model") && has_value) {
            o->model = argv[++i];
#ifndef CROWD_GLTF
            fprintf(stderr, "crowd: this build has no glTF loader; --model needs build/crowd_gltf "
                            "(make build/crowd_gltf)\n");
            return 1;
#endif
        } else {
            usage();
            return 1;
        }
    }
    return 0;
}

/* ---- the model: the procedural figure or a glTF file ------------------------- */

#define MAX_CLIPS 8

typedef struct crowd_model {
    const char *name;
    gpuskin_vertex_streams streams;
    uint32_t joint_count;
    const uint32_t *indices;
    uint32_t index_count;
    const gpuskin_skeleton_desc *skeleton_desc;
    uint32_t clip_count; /* 0: everyone stands in the rest pose */
    const gpuskin_clip *clips[MAX_CLIPS];
    const char *clip_names[MAX_CLIPS];
    float spacing_x, spacing_z; /* the grid, in the model's units */
} crowd_model;

/* For framing: how far the mesh reaches around each joint. Every vertex counts for
   its heaviest influence: its distance, in the rest pose, from that joint. */
static gpuskin_result joint_reach(const crowd_model *m, const gpuskin_skeleton *sk, float *reach)
{
    const gpuskin_vertex_streams *s = &m->streams;
    gpuskin_mat4 *globals = (gpuskin_mat4 *)malloc(sizeof(gpuskin_mat4) * m->joint_count * 2), *pal;
    uint32_t sets = s->influence_sets == 2 ? 2u : 1u, set, k, j;
    size_t v;
    gpuskin_result r;
    if (!globals) return GPUSKIN_ERROR_OUT_OF_MEMORY;
    pal = globals + m->joint_count;
    r = gpuskin_skeleton_globals(sk, NULL, globals);
    if (r == GPUSKIN_SUCCESS) r = gpuskin_skeleton_palette(sk, NULL, globals, pal);
    for (j = 0; j < m->joint_count; ++j) reach[j] = 0.0f;
    for (v = 0; v < s->vertex_count && r == GPUSKIN_SUCCESS; ++v) {
        const float *p =
            (const float *)((const char *)s->positions.data + v * (s->positions.stride ? s->positions.stride : 12));
        uint32_t best_joint = 0;
        float best = -1.0f, d[3];
        gpuskin_vec3 q, bp;
        for (set = 0; set < sets; ++set) {
            size_t jsize = s->joint_type == GPUSKIN_JOINT_U8 ? 4 : s->joint_type == GPUSKIN_JOINT_U16 ? 8 : 16;
            const char *jp =
                (const char *)s->joints[set].data + v * (s->joints[set].stride ? s->joints[set].stride : jsize);
            const float *wp = (const float *)((const char *)s->weights[set].data +
                                              v * (s->weights[set].stride ? s->weights[set].stride : 16));
            for (k = 0; k < 4; ++k) {
                uint32_t jj = s->joint_type == GPUSKIN_JOINT_U8 ? ((const uint8_t *)jp)[k]
                              : s->joint_type == GPUSKIN_JOINT_U16 ? ((const uint16_t *)jp)[k]
                                                                    : ((const uint32_t *)jp)[k];
                if (wp[k] > best && jj < m->joint_count) {
                    best = wp[k];
                    best_joint = jj;
                }
            }
        }
        if (best <= 0.0f) continue;
        bp.x = p[0]; bp.y = p[1]; bp.z = p[2];
        q = gpuskin_mat4_transform_point(&pal[best_joint], bp);
        d[0] = q.x - globals[best_joint].m[12];
        d[1] = q.y - globals[best_joint].m[13];
        d[2] = q.z - globals[best_joint].m[14];
        d[0] = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (d[0] > reach[best_joint]) reach[best_joint] = d[0];
    }
    free(globals);
    return r;
}

static void model_from_rig(crowd_model *cm, const rig_model *m)
{
    uint32_t c;
    memset(cm, 0, sizeof *cm);
    cm->name = "procedural figure (examples/common/rig.h)";
    cm->streams = m->streams;
    cm->joint_count = m->joint_count;
    cm->indices = m->indices;
    cm->index_count = m->index_count;
    cm->skeleton_desc = &m->skeleton_desc;
    for (c = 0; c < m->clip_count && c < MAX_CLIPS; ++c) {
        cm->clips[c] = &m->clips[c];
        cm->clip_names[c] = m->clip_names[c];
    }
    cm->clip_count = c;
    cm->spacing_x = 1.05f;
    cm->spacing_z = 1.25f;
}

#ifdef CROWD_GLTF
/* The file's first skin, the first skinned node using it, and that node's first
   triangle primitive (indexed, or given 0..n-1). Spacing and framing from the
   extent of the rest pose's joints, so any unit or scale works. */
static int model_from_gltf(crowd_model *cm, const gltf_model *g, uint32_t **own_indices)
{
    const gltf_model_skin *skin;
    const gltf_model_primitive *prim = NULL;
    gpuskin_skeleton sk;
    gpuskin_mat4 *globals;
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, w, h;
    uint32_t n, p, c, j;
    int k;
    memset(cm, 0, sizeof *cm);
    *own_indices = NULL;
    if (g->skin_count == 0) {
        fprintf(stderr, "crowd: the model has no skin\n");
        return 1;
    }
    skin = &g->skins[0];
    for (n = 0; n < g->skinned_node_count && !prim; ++n) {
        if (g->skinned_nodes[n].skin != 0) continue;
        for (p = 0; p < g->skinned_nodes[n].primitive_count && !prim; ++p)
            if (g->skinned_nodes[n].primitives[p].mode == 4) prim = &g->skinned_nodes[n].primitives[p];
    }
    if (!prim) {
        fprintf(stderr, "crowd: no triangle primitive is skinned by the model's first skin\n");
        return 1;
    }
    cm->name = skin->name && *skin->name ? skin->name : "glTF skin 0";
    cm->streams = prim->streams;
    cm->joint_count = skin->joint_count;
    if (prim->indices) {
        cm->indices = prim->indices;
        cm->index_count = prim->index_count;
    } else {
        size_t v, count = prim->streams.vertex_count / 3 * 3;
        *own_indices = (uint32_t *)malloc(sizeof(uint32_t) * (count ? count : 1));
        if (!*own_indices) return 1;
        for (v = 0; v < count; ++v) (*own_indices)[v] = (uint32_t)v;
        cm->indices = *own_indices;
        cm->index_count = (uint32_t)count;
    }
    cm->skeleton_desc = &skin->desc;
    for (c = 0; c < skin->clip_count && c < MAX_CLIPS; ++c) {
        cm->clips[c] = &skin->clips[c].clip;
        cm->clip_names[c] = skin->clips[c].name && *skin->clips[c].name ? skin->clips[c].name : "(unnamed)";
    }
    cm->clip_count = c;
    /* the rest pose's joint extent */
    if (gpuskin_skeleton_init(&sk, &skin->desc) != GPUSKIN_SUCCESS) {
        fprintf(stderr, "crowd: the model's skeleton is invalid\n");
        return 1;
    }
    globals = (gpuskin_mat4 *)malloc(sizeof(gpuskin_mat4) * skin->joint_count);
    if (!globals || gpuskin_skeleton_globals(&sk, NULL, globals) != GPUSKIN_SUCCESS) {
        free(globals);
        gpuskin_skeleton_free(&sk);
        return 1;
    }
    for (j = 0; j < skin->joint_count; ++j)
        for (k = 0; k < 3; ++k) {
            float v = globals[j].m[12 + k];
            if (j == 0 || v < lo[k]) lo[k] = v;
            if (j == 0 || v > hi[k]) hi[k] = v;
        }
    free(globals);
    gpuskin_skeleton_free(&sk);
    h = hi[1] - lo[1];
    w = hi[0] - lo[0] > hi[2] - lo[2] ? hi[0] - lo[0] : hi[2] - lo[2];
    if (h < 1e-3f) h = w > 1e-3f ? w : 1.0f;
    cm->spacing_x = 1.4f * w > 0.55f * h ? 1.4f * w : 0.55f * h;
    cm->spacing_z = 1.2f * cm->spacing_x;
    return 0;
}
#endif

/* ---- the scene: who stands where, doing what --------------------------------- */

typedef struct scene {
    uint32_t count, joint_count;
    gpuskin_mat4 *palettes; /* count * joint_count */
    uint8_t *methods;       /* count */
    float *joints;          /* count * joint_count posed joint positions (xyz), to frame */
    float *reach;           /* count * joint_count: how far the mesh reaches around each */
    uint32_t per_clip[MAX_CLIPS], dqs;
} scene;

static float fract(float x) { return x - floorf(x); }

/* Poses every instance: clip i % 3 (so with LBS/DQS alternating, all six pairs
   occur), a golden-ratio spread of start times, a grid place with a little
   jitter and a heading within +-25 degrees of the camera. */
static gpuskin_result scene_build(scene *s, const crowd_model *m, const gpuskin_skeleton *sk, uint32_t n, float t)
{
    uint32_t cols = (uint32_t)ceil(sqrt((double)n)), rows, i, j, k;
    const float dx = m->spacing_x, dz = m->spacing_z;
    gpuskin_trs *pose;
    gpuskin_mat4 *globals;
    gpuskin_result r = GPUSKIN_SUCCESS;
    if (cols > n) cols = n;
    rows = (n + cols - 1) / cols;
    memset(s, 0, sizeof *s);
    s->count = n;
    s->joint_count = m->joint_count;
    s->palettes = (gpuskin_mat4 *)malloc(sizeof(gpuskin_mat4) * n * m->joint_count);
    s->methods = (uint8_t *)malloc(n);
    s->joints = (float *)malloc(sizeof(float) * 3 * n * m->joint_count);
    s->reach = (float *)malloc(sizeof(float) * n * m->joint_count);
    pose = (gpuskin_trs *)malloc(sizeof(gpuskin_trs) * m->joint_count);
    globals = (gpuskin_mat4 *)malloc(sizeof(gpuskin_mat4) * m->joint_count);
    if (!s->palettes || !s->methods || !s->joints || !s->reach || !pose || !globals) {
        free(pose);
        free(globals);
        return GPUSKIN_ERROR_OUT_OF_MEMORY;
    }
    r = joint_reach(m, sk, s->reach);
    for (i = 1; i < n && r == GPUSKIN_SUCCESS; ++i)
        memcpy(s->reach + (size_t)i * m->joint_count, s->reach, sizeof(float) * m->joint_count);
    for (i = 0; i < n && r == GPUSKIN_SUCCESS; ++i) {
        /* row 0 in front; a partial last row stands centred at the back */
        uint32_t clip = m->clip_count ? i % m->clip_count : 0, row = i / cols;
        uint32_t in_row = row + 1 < rows ? cols : n - row * cols;
        float col = (float)(i % cols) + 0.5f * (float)(cols - in_row);
        float start, end, yaw;
        gpuskin_trs place = gpuskin_trs_identity();
        gpuskin_vec3 up;
        gpuskin_mat4 model;
        if (m->clip_count) {
            const gpuskin_clip *c = m->clips[clip];
            gpuskin_clip_range(c, &start, &end);
            r = gpuskin_clip_sample(c, sk, gpuskin_clip_loop_time(c, t + fract((float)i * 0.7548777f) * (end - start)),
                                    pose);
            if (r != GPUSKIN_SUCCESS) break;
        }
        r = gpuskin_skeleton_globals(sk, m->clip_count ? pose : NULL, globals);
        if (r != GPUSKIN_SUCCESS) break;
        up.x = 0.0f; up.y = 1.0f; up.z = 0.0f;
        yaw = (fract((float)i * 0.3819660f + 0.2f) - 0.5f) * 0.9f;
        place.rotation = gpuskin_quat_axis_angle(up, yaw);
        place.translation.x = (col - 0.5f * (float)(cols - 1) + (fract((float)i * 0.618034f) - 0.5f) * 0.2f) * dx;
        place.translation.z = (0.5f * (float)(rows - 1) - (float)row + (fract((float)i * 0.414214f) - 0.5f) * 0.2f) * dz;
        model = gpuskin_mat4_from_trs(&place);
        r = gpuskin_skeleton_palette(sk, &model, globals, s->palettes + (size_t)i * m->joint_count);
        s->methods[i] = (uint8_t)(i % 2 ? GPUSKIN_METHOD_DQS : GPUSKIN_METHOD_LBS);
        if (m->clip_count) s->per_clip[clip]++;
        s->dqs += i % 2;
        /* where the placed skeleton's joints are, for the camera */
        for (j = 0; j < m->joint_count; ++j) {
            gpuskin_mat4 g = gpuskin_mat4_mul(&model, &globals[j]);
            float *p = s->joints + ((size_t)i * m->joint_count + j) * 3;
            for (k = 0; k < 3; ++k) p[k] = g.m[12 + k];
        }
    }
    free(pose);
    free(globals);
    return r;
}

static void scene_free(scene *s)
{
    free(s->palettes);
    free(s->methods);
    free(s->joints);
    free(s->reach);
    memset(s, 0, sizeof *s);
}

/* ---- Vulkan ------------------------------------------------------------------ */

#define VKCHECK(call)                                                                                          \
    do {                                                                                                       \
        VkResult vr_ = (call);                                                                                 \
        if (vr_ != VK_SUCCESS) {                                                                               \
            fprintf(stderr, "crowd: %s failed: VkResult %d\n", #call, (int)vr_);                               \
            goto done;                                                                                         \
        }                                                                                                      \
    } while (0)
#define GSCHECK(call)                                                                                          \
    do {                                                                                                       \
        gpuskin_result gr_ = (call);                                                                           \
        if (gr_ != GPUSKIN_SUCCESS) {                                                                          \
            fprintf(stderr, "crowd: %s failed: %s\n", #call, gpuskin_result_string(gr_));                      \
            goto done;                                                                                         \
        }                                                                                                      \
    } while (0)

/* Box-filters an rgba8 image by `f` in each direction into rgb8. */
static void downsample(const uint8_t *src, uint32_t w, uint32_t h, uint32_t f, uint8_t *dst)
{
    uint32_t x, y, i, j, c, ow = w / f, oh = h / f;
    for (y = 0; y < oh; ++y)
        for (x = 0; x < ow; ++x)
            for (c = 0; c < 3; ++c) {
                uint32_t sum = 0;
                for (j = 0; j < f; ++j)
                    for (i = 0; i < f; ++i) sum += src[(((size_t)(y * f + j) * w) + (x * f + i)) * 4 + c];
                dst[((size_t)y * ow + x) * 3 + c] = (uint8_t)((sum + f * f / 2) / (f * f));
            }
}

static void end_rendering(VkCommandBuffer cmd)
{
    if (vkCmdEndRendering) vkCmdEndRendering(cmd);
    else vkCmdEndRenderingKHR(cmd);
}

int main(int argc, char **argv)
{
    static rig_model rig; /* large (key storage): not on the stack */
    crowd_model model;
#ifdef CROWD_GLTF
    gltf_model *gltf = NULL;
    uint32_t *gltf_indices = NULL;
#endif
    options o;
    vks_context vk;
    vks_options vo;
    vks_image color, depth;
    gpuskin_skeleton skel;
    scene sc;
    gpuskin_context *ctx = NULL;
    gpuskin_mesh *mesh = NULL;
    gpuskin_crowd *crowd = NULL;
    gpuskin_pipeline *pipe = NULL;
    uint8_t *rgba = NULL, *rgb = NULL;
    uint32_t rw, rh;
    int ok = 0, have_vk = 0, have_skel = 0;
    double t0 = now_ms(), t_setup = 0.0, t_frame0 = 0.0, t_frame = 0.0, t_cpu = 0.0;
    const char *missing = NULL;

    memset(&color, 0, sizeof color);
    memset(&depth, 0, sizeof depth);
    memset(&sc, 0, sizeof sc);
    if (parse_args(argc, argv, &o)) return 2;
    rw = o.width * SUPERSAMPLE;
    rh = o.height * SUPERSAMPLE;

    memset(&rig, 0, sizeof rig);
    if (o.model) {
#ifdef CROWD_GLTF
        char err[512];
        if (gltf_model_load(o.model, &gltf, err, sizeof err) != 0) {
            fprintf(stderr, "crowd: %s: %s\n", o.model, err);
            return 1;
        }
        if (model_from_gltf(&model, gltf, &gltf_indices) != 0) {
            gltf_model_free(gltf);
            free(gltf_indices);
            return 1;
        }
#endif
    } else {
        if (rig_humanoid(&rig) != 0) {
            fprintf(stderr, "crowd: out of memory building the model\n");
            return 1;
        }
        model_from_rig(&model, &rig);
    }
    GSCHECK(gpuskin_skeleton_init(&skel, model.skeleton_desc));
    have_skel = 1;

    memset(&vo, 0, sizeof vo);
    if (o.validate && getenv("GPUSKIN_NO_VALIDATION")) {
        /* as the GPU tests do (TESTING.md): only for a machine without the layer */
        printf("VALIDATION OFF (GPUSKIN_NO_VALIDATION)\n");
        o.validate = 0;
    }
    vo.validation = o.validate;
    vo.app_name = "gpuskin crowd";
    VKCHECK(vks_create(&vk, &vo));
    have_vk = 1;
    printf("device: %s\n", vk.properties.deviceName);

    {
        gpuskin_context_desc cd;
        gpuskin_mesh_desc md;
        gpuskin_crowd_desc rd;
        gpuskin_pipeline_desc pd;
        memset(&cd, 0, sizeof cd);
        cd.instance = vk.instance;
        cd.physical_device = vk.physical_device;
        cd.device = vk.device;
        cd.get_instance_proc_addr = vkGetInstanceProcAddr;
        cd.enabled_features12 = &vk.features12;
        cd.enabled_features13 = &vk.features13;
        cd.out_missing_feature = &missing;
        if (gpuskin_context_create(&cd, &ctx) != GPUSKIN_SUCCESS) {
            fprintf(stderr, "crowd: gpuskin_context_create failed%s%s\n", missing ? ": missing " : "",
                    missing ? missing : "");
            goto done;
        }
        memset(&md, 0, sizeof md);
        md.streams = model.streams;
        md.joint_count = model.joint_count;
        md.indices = model.indices;
        md.index_count = model.index_count;
        GSCHECK(gpuskin_mesh_create(ctx, &md, &mesh));
        memset(&rd, 0, sizeof rd);
        rd.mesh = mesh;
        rd.capacity = o.instances;
        rd.frames_in_flight = 1;
        GSCHECK(gpuskin_crowd_create(ctx, &rd, &crowd));
        memset(&pd, 0, sizeof pd);
        pd.color_format = COLOR_FORMAT;
        pd.depth_format = DEPTH_FORMAT;
        GSCHECK(gpuskin_pipeline_create(ctx, &pd, &pipe));
    }
    VKCHECK(vks_image_create(&vk, rw, rh, COLOR_FORMAT,
                             VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, &color));
    VKCHECK(vks_image_create(&vk, rw, rh, DEPTH_FORMAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, &depth));
    t_setup = now_ms() - t0;

    /* Two frames: the first pays for first-use costs (shader JIT on lavapipe),
       the second is what a frame of this crowd costs. Same content both times. */
    {
        int frame;
        for (frame = 0; frame < 2; ++frame) {
            double f0 = now_ms(), f1;
            VkCommandBuffer cmd;
            gpuskin_crowd_upload_desc up;
            gpuskin_draw_desc dd;
            gpuskin_mat4 vp;
            gpuskin_vec3 dir, eye;

            scene_free(&sc);
            GSCHECK(scene_build(&sc, &model, &skel, o.instances, o.time));
            memset(&up, 0, sizeof up);
            up.frame = 0;
            up.instance_count = sc.count;
            up.palettes = sc.palettes;
            up.methods = sc.methods;
            up.split = GPUSKIN_SPLIT_POLAR;
            GSCHECK(gpuskin_crowd_upload(crowd, &up));
            /* from the front, raised; every joint, grown by how far the mesh reaches
               around it, within 92% of the frame */
            dir.x = 0.0f; dir.y = 0.6f; dir.z = 1.0f;
            vp = rig_frame_points(sc.joints, sc.reach, (size_t)sc.count * sc.joint_count, 0.0f, dir, 0.6f,
                                  (float)o.width / (float)o.height, 0.92f, &eye);
            t_cpu = now_ms() - f0;

            VKCHECK(vks_begin(&vk, &cmd));
            if (gpuskin_mesh_needs_upload(mesh)) GSCHECK(gpuskin_cmd_upload_mesh(mesh, cmd));
            vks_cmd_image_barrier(cmd, &color, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                  VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                                  VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                  VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
            vks_cmd_image_barrier(cmd, &depth, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                  VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                      VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
                                  VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                                  VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                      VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
                                  VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                      VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
            {
                static const float clear[4] = {0.16f, 0.18f, 0.22f, 1.0f};
                vks_cmd_begin_rendering(cmd, &color, &depth, clear);
            }
            memset(&dd, 0, sizeof dd);
            dd.frame = 0;
            dd.instance_count = sc.count;
            dd.view_proj = vp.m;
            dd.flags = GPUSKIN_DRAW_TINT;
            dd.color[0] = dd.color[1] = dd.color[2] = 0.92f;
            dd.color[3] = 1.0f;
            GSCHECK(gpuskin_cmd_draw(crowd, pipe, cmd, &dd)); /* the whole crowd: one draw */
            end_rendering(cmd);
            VKCHECK(vks_submit_wait(&vk, cmd));
            f1 = now_ms();
            if (frame == 0) t_frame0 = f1 - f0;
            else t_frame = f1 - f0;
        }
    }

    rgba = (uint8_t *)malloc((size_t)rw * rh * 4);
    rgb = (uint8_t *)malloc((size_t)o.width * o.height * 3);
    if (!rgba || !rgb) {
        fprintf(stderr, "crowd: out of memory\n");
        goto done;
    }
    VKCHECK(vks_image_read_rgba8(&vk, &color, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                 VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                                 rgba));
    downsample(rgba, rw, rh, SUPERSAMPLE, rgb);
    if (make_parent_dirs(o.out) != 0 || !stbi_write_png(o.out, (int)o.width, (int)o.height, 3, rgb, (int)o.width * 3)) {
        fprintf(stderr, "crowd: cannot write %s\n", o.out);
        goto done;
    }

    printf("model: %s: %u joints, %zu vertices, %u triangles\n", model.name, model.joint_count,
           model.streams.vertex_count, model.index_count / 3);
    printf("instances: %u (%u LBS, %u DQS) in one instanced draw; clips:", sc.count, sc.count - sc.dqs, sc.dqs);
    {
        uint32_t c;
        for (c = 0; c < model.clip_count; ++c) printf("%s %s %u", c ? "," : "", model.clip_names[c], sc.per_clip[c]);
        printf("%s\n", model.clip_count ? "" : " none (rest pose)");
    }
    printf("time: setup %.1f ms; first frame %.1f ms; frame %.1f ms (CPU poses + palettes + upload %.2f ms, "
           "record + GPU %.1f ms) at %ux%u\n",
           t_setup, t_frame0, t_frame, t_cpu, t_frame - t_cpu, rw, rh);
    ok = 1;

done:
    if (have_vk && vk.device != VK_NULL_HANDLE) vkDeviceWaitIdle(vk.device);
    gpuskin_pipeline_destroy(pipe);
    gpuskin_crowd_destroy(crowd);
    gpuskin_mesh_destroy(mesh);
    gpuskin_context_destroy(ctx);
    if (have_vk) {
        vks_image_destroy(&vk, &color);
        vks_image_destroy(&vk, &depth);
        vks_destroy(&vk);
        if (o.validate && vk.messages) {
            fprintf(stderr, "crowd: %u validation message(s)\n", vk.messages);
            ok = 0;
        }
    }
    if (have_skel) gpuskin_skeleton_free(&skel);
    scene_free(&sc);
    rig_free(&rig);
#ifdef CROWD_GLTF
    if (gltf) gltf_model_free(gltf);
    free(gltf_indices);
#endif
    free(rgba);
    free(rgb);
    if (ok) printf("wrote %s (%ux%u), total %.1f ms\n", o.out, o.width, o.height, now_ms() - t0);
    return ok ? 0 : 1;
}
