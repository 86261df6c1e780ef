/* crowd - gpuskin's demo: a crowd of skinned characters in ONE instanced draw.

   Headless: renders offscreen (Vulkan dynamic rendering, colour + depth) and
   writes a PNG. Each instance has its own clip (walk / wave / twist), its own
   time in it, its own place and heading in a grid (the model matrix rides in
   the palette: palette = model(i) * global * inverseBind), its own tint, and
   every other one is skinned with dual quaternions instead of linear blending.

       build/crowd [--instances N] [--out PATH.png] [--size WxH] [--time SECONDS]
                   [--validate]

   --instances N   characters (default 64)
   --out PATH      PNG to write (default build/crowd.png)
   --size WxH      output size (default 1280x720); rendered at twice that and
                   box-filtered down, so edges are anti-aliased
   --time S        the moment of the animation shown (default 0.37)
   --validate      Khronos validation + synchronization validation; any message
                   makes the run fail (for `make test`)

   The model is procedural (examples/common/rig.h): 16 joints, ~2600 vertices,
   no files needed. GPUSKIN_DEVICE=<part of a device name> picks the GPU. */
#define _POSIX_C_SOURCE 200112L
#include <volk.h>

#define GPUSKIN_IMPLEMENTATION
#ifndef GPUSKIN_VULKAN_INC_AVAILABLE
#define GPUSKIN_VULKAN_INC_AVAILABLE
#endif
#include "gpuskin.h"
#define VK_SETUP_IMPLEMENTATION
#include "examples/common/vk_setup.h"
#include "examples/common/rig.h"
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
} options;

static void usage(void)
{
    fprintf(stderr, "usage: crowd [--instances N] [--out PATH.png] [--size WxH] [--time SECONDS] [--validate]\n");
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
        } else {
            usage();
            return 1;
        }
    }
    return 0;
}

/* ---- the scene: who stands where, doing what --------------------------------- */

typedef struct scene {
    uint32_t count, joint_count;
    gpuskin_mat4 *palettes; /* count * joint_count */
    uint8_t *methods;       /* count */
    float *joints;          /* count * joint_count posed joint positions (xyz), to frame */
    uint32_t per_clip[RIG_MAX_CLIPS], dqs;
} scene;

static float fract(float x) { return x - floorf(x); }

/* Poses every instance: clip i % 3 (so with LBS/DQS alternating, all six pairs
   occur), a golden-ratio spread of start times, a grid place with a little
   jitter and a heading within +-25 degrees of the camera. */
static gpuskin_result scene_build(scene *s, const rig_model *m, const gpuskin_skeleton *sk, uint32_t n, float t)
{
    uint32_t cols = (uint32_t)ceil(sqrt((double)n)), rows, i, j, k;
    const float dx = 1.05f, dz = 1.25f;
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
    pose = (gpuskin_trs *)malloc(sizeof(gpuskin_trs) * m->joint_count);
    globals = (gpuskin_mat4 *)malloc(sizeof(gpuskin_mat4) * m->joint_count);
    if (!s->palettes || !s->methods || !s->joints || !pose || !globals) {
        free(pose);
        free(globals);
        return GPUSKIN_ERROR_OUT_OF_MEMORY;
    }
    for (i = 0; i < n && r == GPUSKIN_SUCCESS; ++i) {
        /* row 0 in front; a partial last row stands centred at the back */
        uint32_t clip = i % m->clip_count, row = i / cols, in_row = row + 1 < rows ? cols : n - row * cols;
        float col = (float)(i % cols) + 0.5f * (float)(cols - in_row);
        float start, end, yaw;
        gpuskin_trs place = gpuskin_trs_identity();
        gpuskin_vec3 up;
        gpuskin_mat4 model;
        gpuskin_clip_range(&m->clips[clip], &start, &end);
        r = gpuskin_clip_sample(&m->clips[clip], sk,
                                gpuskin_clip_loop_time(&m->clips[clip], t + fract((float)i * 0.7548777f) * (end - start)),
                                pose);
        if (r != GPUSKIN_SUCCESS) break;
        r = gpuskin_skeleton_globals(sk, pose, globals);
        if (r != GPUSKIN_SUCCESS) break;
        up.x = 0.0f; up.y = 1.0f; up.z = 0.0f;
        yaw = (fract((float)i * 0.3819660f + 0.2f) - 0.5f) * 0.9f;
        place.rotation = gpuskin_quat_axis_angle(up, yaw);
        place.translation.x = (col - 0.5f * (float)(cols - 1)) * dx + (fract((float)i * 0.618034f) - 0.5f) * 0.2f;
        place.translation.z = (0.5f * (float)(rows - 1) - (float)row) * dz + (fract((float)i * 0.414214f) - 0.5f) * 0.2f;
        model = gpuskin_mat4_from_trs(&place);
        r = gpuskin_skeleton_palette(sk, &model, globals, s->palettes + (size_t)i * m->joint_count);
        s->methods[i] = (uint8_t)(i % 2 ? GPUSKIN_METHOD_DQS : GPUSKIN_METHOD_LBS);
        s->per_clip[clip]++;
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

static void begin_rendering(VkCommandBuffer cmd, const VkRenderingInfo *info)
{
    if (vkCmdBeginRendering) vkCmdBeginRendering(cmd, info);
    else vkCmdBeginRenderingKHR(cmd, info);
}

static void end_rendering(VkCommandBuffer cmd)
{
    if (vkCmdEndRendering) vkCmdEndRendering(cmd);
    else vkCmdEndRenderingKHR(cmd);
}

int main(int argc, char **argv)
{
    static rig_model model; /* large (key storage): not on the stack */
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

    if (rig_humanoid(&model) != 0) {
        fprintf(stderr, "crowd: out of memory building the model\n");
        return 1;
    }
    GSCHECK(gpuskin_skeleton_init(&skel, &model.skeleton_desc));
    have_skel = 1;

    memset(&vo, 0, sizeof vo);
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
            VkRenderingAttachmentInfo ca, da;
            VkRenderingInfo ri;
            VkViewport viewport;
            VkRect2D scissor;

            scene_free(&sc);
            GSCHECK(scene_build(&sc, &model, &skel, o.instances, o.time));
            memset(&up, 0, sizeof up);
            up.frame = 0;
            up.instance_count = sc.count;
            up.palettes = sc.palettes;
            up.methods = sc.methods;
            up.split = GPUSKIN_SPLIT_POLAR;
            GSCHECK(gpuskin_crowd_upload(crowd, &up));
            /* from the front, raised; every joint (grown by the body's girth) within
               92% of the frame */
            dir.x = 0.0f; dir.y = 0.6f; dir.z = 1.0f;
            vp = rig_frame_points(sc.joints, (size_t)sc.count * sc.joint_count, 0.15f, dir, 0.6f,
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
            memset(&ca, 0, sizeof ca);
            ca.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO;
            ca.imageView = color.view;
            ca.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
            ca.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
            ca.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
            ca.clearValue.color.float32[0] = 0.16f;
            ca.clearValue.color.float32[1] = 0.18f;
            ca.clearValue.color.float32[2] = 0.22f;
            ca.clearValue.color.float32[3] = 1.0f;
            da = ca;
            da.imageView = depth.view;
            da.imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
            da.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
            memset(&da.clearValue, 0, sizeof da.clearValue);
            da.clearValue.depthStencil.depth = 1.0f;
            memset(&ri, 0, sizeof ri);
            ri.sType = VK_STRUCTURE_TYPE_RENDERING_INFO;
            ri.renderArea.extent.width = rw;
            ri.renderArea.extent.height = rh;
            ri.layerCount = 1;
            ri.colorAttachmentCount = 1;
            ri.pColorAttachments = &ca;
            ri.pDepthAttachment = &da;
            begin_rendering(cmd, &ri);
            viewport.x = 0.0f;
            viewport.y = 0.0f;
            viewport.width = (float)rw;
            viewport.height = (float)rh;
            viewport.minDepth = 0.0f;
            viewport.maxDepth = 1.0f;
            vkCmdSetViewport(cmd, 0, 1, &viewport);
            scissor.offset.x = scissor.offset.y = 0;
            scissor.extent.width = rw;
            scissor.extent.height = rh;
            vkCmdSetScissor(cmd, 0, 1, &scissor);
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

    printf("instances: %u (%u LBS, %u DQS; clips walk %u, wave %u, twist %u), %u joints, %zu vertices, "
           "%u triangles each, one instanced draw\n",
           sc.count, sc.count - sc.dqs, sc.dqs, sc.per_clip[0], sc.per_clip[1], sc.per_clip[2], model.joint_count,
           model.vertex_count, model.index_count / 3);
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
    rig_free(&model);
    free(rgba);
    free(rgb);
    if (ok) printf("wrote %s (%ux%u), total %.1f ms\n", o.out, o.width, o.height, now_ms() - t0);
    return ok ? 0 : 1;
}
