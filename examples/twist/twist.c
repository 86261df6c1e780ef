/* twist - the candy-wrapper comparison: linear blend skinning against dual
   quaternions on a joint twisted half a turn. Also a test (`make test`).

   A capped cylinder along y is skinned to two joints: joint 0 at the bottom,
   joint 1 at the middle, with weights blending smoothly over the middle and
   exactly 0.5 / 0.5 on the middle ring. Joint 1 is twisted 180 degrees about the
   cylinder's axis. Two instances in ONE draw: LBS on the left, DQS on the right
   (fins on +x at both ends show the twist: the top fin now points to -x).

   What it measures, at the middle ring: min over its vertices of the distance to
   the axis, divided by the rest radius. LBS averages p and its half-turn image
   -p, so the ring collapses onto the axis (ratio ~0); DQS blends the rotations
   and turns the ring a quarter turn instead (ratio 1). Each ratio is measured
   from the GPU's compute output (gpuskin_cmd_skin, read back) and from the CPU
   oracle (gpuskin_skin_cpu) on the same packed palettes, and the two outputs are
   compared vertex for vertex.

       build/twist [--out PATH.png] [--size WxH] [--validate]

   --validate: Khronos validation + synchronization validation, any message fails
   (GPUSKIN_NO_VALIDATION=1 turns it off on a machine without the layer).

   Exits non-zero unless DQS's ratio is within 1e-3 of 1 and LBS's is below 0.1,
   on the GPU and on the CPU, and the GPU agrees with the oracle to 1e-4. Ends
   with "N passed, N failed" (tests/run_all.sh counts those). */
#define _POSIX_C_SOURCE 200112L
#include <volk.h>

#define GPUSKIN_IMPLEMENTATION
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

#define COLOR_FORMAT VK_FORMAT_R8G8B8A8_UNORM
#define DEPTH_FORMAT VK_FORMAT_D32_SFLOAT
#define SUPERSAMPLE 2u
#define RADIUS 0.3f
#define HALF_LENGTH 1.0f
#define SPACING 0.95f /* each instance sits this far from x = 0 */

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

/* min over the middle ring of |p - axis| / rest radius; positions with `stride` floats. */
static double ring_ratio(const rig_model *m, const float *positions, size_t stride_floats, float axis_x)
{
    size_t v;
    double lo = 1e30;
    for (v = m->middle_ring_first; v < m->middle_ring_first + m->ring_vertex_count; ++v) {
        const float *p = positions + v * stride_floats;
        double dx = (double)p[0] - axis_x, dz = p[2], r = sqrt(dx * dx + dz * dz);
        if (r < lo) lo = r;
    }
    return lo / (double)m->cylinder_radius;
}

#define VKCHECK(call)                                                                                          \
    do {                                                                                                       \
        VkResult vr_ = (call);                                                                                 \
        if (vr_ != VK_SUCCESS) {                                                                               \
            fprintf(stderr, "twist: %s failed: VkResult %d\n", #call, (int)vr_);                               \
            goto done;                                                                                         \
        }                                                                                                      \
    } while (0)
#define GSCHECK(call)                                                                                          \
    do {                                                                                                       \
        gpuskin_result gr_ = (call);                                                                           \
        if (gr_ != GPUSKIN_SUCCESS) {                                                                          \
            fprintf(stderr, "twist: %s failed: %s\n", #call, gpuskin_result_string(gr_));                      \
            goto done;                                                                                         \
        }                                                                                                      \
    } while (0)

static int passed, failed;
static void check(int ok, const char *what)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "  FAILED: %s\n", what);
    }
}

int main(int argc, char **argv)
{
    static rig_model model;
    const char *out = "build/twist.png";
    uint32_t width = 1280, height = 720, rw, rh;
    int validate = 0, i, have_vk = 0, have_skel = 0, have_output = 0, inst;
    vks_context vk;
    vks_options vo;
    vks_image color, depth;
    gpuskin_skeleton skel;
    gpuskin_context *ctx = NULL;
    gpuskin_mesh *mesh = NULL;
    gpuskin_crowd *crowd = NULL;
    gpuskin_pipeline *pipe = NULL;
    gpuskin_allocator alloc;
    gpuskin_buffer output;
    gpuskin_trs pose[2];
    gpuskin_mat4 globals[2], palettes[4];
    uint8_t methods[2] = {GPUSKIN_METHOD_LBS, GPUSKIN_METHOD_DQS};
    float axis_x[2] = {-SPACING, SPACING};
    float *cpu_pos = NULL;
    uint8_t *rgba = NULL, *rgb = NULL;
    uint32_t stride_floats;
    VkDeviceSize output_size = 0;
    double gpu_ratio[2] = {-1, -1}, cpu_ratio[2] = {-1, -1}, max_diff = -1.0;
    const char *missing = NULL;

    memset(&color, 0, sizeof color);
    memset(&depth, 0, sizeof depth);
    memset(&output, 0, sizeof output);
    memset(&alloc, 0, sizeof alloc);
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
            unsigned w = 0, h = 0;
            if (sscanf(argv[++i], "%ux%u", &w, &h) != 2 || w < 16 || h < 16 || w > 4096 || h > 4096) {
                fprintf(stderr, "twist: --size must be WxH, 16..4096 each\n");
                return 2;
            }
            width = w;
            height = h;
        } else if (!strcmp(argv[i], "--validate")) {
            validate = 1;
        } else {
            fprintf(stderr, "usage: twist [--out PATH.png] [--size WxH] [--validate]\n");
            return 2;
        }
    }
    rw = width * SUPERSAMPLE;
    rh = height * SUPERSAMPLE;

    if (rig_cylinder(&model, RADIUS, HALF_LENGTH, 40, 32, 0.5f, 1) != 0) {
        fprintf(stderr, "twist: out of memory building the cylinder\n");
        return 1;
    }
    GSCHECK(gpuskin_skeleton_init(&skel, &model.skeleton_desc));
    have_skel = 1;

    /* The pose: joint 1 turned half a turn about the cylinder's axis (y). */
    {
        gpuskin_vec3 y_axis;
        y_axis.x = 0.0f; y_axis.y = 1.0f; y_axis.z = 0.0f;
        pose[0] = model.rest[0];
        pose[1] = model.rest[1];
        pose[1].rotation = gpuskin_quat_axis_angle(y_axis, RIG_PI);
        GSCHECK(gpuskin_skeleton_globals(&skel, pose, globals));
        for (inst = 0; inst < 2; ++inst) {
            gpuskin_mat4 place = gpuskin_mat4_identity();
            place.m[12] = axis_x[inst];
            GSCHECK(gpuskin_skeleton_palette(&skel, &place, globals, palettes + inst * 2));
        }
    }

    /* The CPU oracle, on the packed palettes the GPU reads. */
    cpu_pos = (float *)malloc(sizeof(float) * 3 * 2 * model.vertex_count);
    if (!cpu_pos) goto done;
    for (inst = 0; inst < 2; ++inst) {
        float lbs[2 * GPUSKIN_LBS_FLOATS_PER_JOINT], dq[2 * GPUSKIN_DQ_FLOATS_PER_JOINT],
            res[2 * GPUSKIN_RESIDUAL_FLOATS_PER_JOINT];
        gpuskin_cpu_skin_desc d;
        memset(&d, 0, sizeof d);
        d.streams = model.streams;
        d.joint_count = model.joint_count;
        if (methods[inst] == GPUSKIN_METHOD_DQS) {
            GSCHECK(gpuskin_pack_dq_fast(palettes + inst * 2, 2, GPUSKIN_SPLIT_POLAR, dq, res, &d.method_word));
            d.dq_palette = dq;
            d.residual_palette = res;
        } else {
            GSCHECK(gpuskin_pack_lbs(palettes + inst * 2, 2, lbs));
            d.method_word = GPUSKIN_METHOD_LBS;
            d.lbs_palette = lbs;
        }
        d.out_positions.data = cpu_pos + (size_t)inst * model.vertex_count * 3;
        GSCHECK(gpuskin_skin_cpu(&d));
        cpu_ratio[inst] = ring_ratio(&model, (const float *)d.out_positions.data, 3, axis_x[inst]);
    }

    /* The GPU: one compute dispatch into a read-back buffer, and one draw. */
    memset(&vo, 0, sizeof vo);
    if (validate && getenv("GPUSKIN_NO_VALIDATION")) {
        /* as the GPU tests do (TESTING.md): only for a machine without the layer */
        printf("VALIDATION OFF (GPUSKIN_NO_VALIDATION)\n");
        validate = 0;
    }
    vo.validation = validate;
    vo.app_name = "gpuskin twist";
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
            fprintf(stderr, "twist: gpuskin_context_create failed%s%s\n", missing ? ": missing " : "",
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
        rd.capacity = 2;
        rd.frames_in_flight = 1;
        GSCHECK(gpuskin_crowd_create(ctx, &rd, &crowd));
        memset(&pd, 0, sizeof pd);
        pd.color_format = COLOR_FORMAT;
        pd.depth_format = DEPTH_FORMAT;
        GSCHECK(gpuskin_pipeline_create(ctx, &pd, &pipe));
    }
    stride_floats = gpuskin_output_stride(0) / 4u;
    output_size = (VkDeviceSize)2 * model.vertex_count * gpuskin_output_stride(0);
    alloc = gpuskin_default_allocator(ctx);
    VKCHECK(alloc.create_buffer(alloc.user, output_size,
                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT,
                                GPUSKIN_MEMORY_READBACK, &output));
    have_output = 1;
    if (!output.mapped) {
        fprintf(stderr, "twist: the read-back buffer is not mapped\n");
        goto done;
    }
    VKCHECK(vks_image_create(&vk, rw, rh, COLOR_FORMAT,
                             VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, &color));
    VKCHECK(vks_image_create(&vk, rw, rh, DEPTH_FORMAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, &depth));
    {
        VkCommandBuffer cmd;
        gpuskin_crowd_upload_desc up;
        gpuskin_skin_dispatch_desc sd;
        gpuskin_draw_desc dd;
        gpuskin_mat4 vp;
        gpuskin_vec3 dir;
        VkBufferMemoryBarrier host;
        float frame_points[4 * 3];

        memset(&up, 0, sizeof up);
        up.instance_count = 2;
        up.palettes = palettes;
        up.methods = methods;
        up.split = GPUSKIN_SPLIT_POLAR;
        GSCHECK(gpuskin_crowd_upload(crowd, &up));

        VKCHECK(vks_begin(&vk, &cmd));
        if (gpuskin_mesh_needs_upload(mesh)) GSCHECK(gpuskin_cmd_upload_mesh(mesh, cmd));
        memset(&sd, 0, sizeof sd);
        sd.instance_count = 2;
        sd.output = output.address;
        sd.output_size = output_size;
        GSCHECK(gpuskin_cmd_skin(crowd, cmd, &sd));
        memset(&host, 0, sizeof host);
        host.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
        host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        host.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
        host.buffer = output.buffer;
        host.size = VK_WHOLE_SIZE;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1,
                             &host, 0, NULL);

        vks_cmd_image_barrier(cmd, &color, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                              VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, 0,
                              VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                              VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
        vks_cmd_image_barrier(cmd, &depth, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                              VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT, 0,
                              VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
                              VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
                                  VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
        {
            static const float clear[4] = {0.16f, 0.18f, 0.22f, 1.0f};
            vks_cmd_begin_rendering(cmd, &color, &depth, clear);
        }
        /* frame both cylinders (fins included), from the front, a little from above and the right */
        for (i = 0; i < 4; ++i) {
            frame_points[i * 3 + 0] = (i & 1) ? SPACING + 1.8f * RADIUS : -SPACING - 1.8f * RADIUS;
            frame_points[i * 3 + 1] = (i & 2) ? HALF_LENGTH : -HALF_LENGTH;
            frame_points[i * 3 + 2] = 0.0f;
        }
        dir.x = 0.3f; dir.y = 0.35f; dir.z = 1.0f;
        vp = rig_frame_points(frame_points, NULL, 4, RADIUS, dir, 0.6f, (float)width / (float)height, 0.85f, NULL);
        memset(&dd, 0, sizeof dd);
        dd.instance_count = 2;
        dd.view_proj = vp.m;
        dd.flags = GPUSKIN_DRAW_TINT;
        dd.color[0] = dd.color[1] = dd.color[2] = 0.92f;
        dd.color[3] = 1.0f;
        GSCHECK(gpuskin_cmd_draw(crowd, pipe, cmd, &dd)); /* both instances, one draw */
        if (vkCmdEndRendering) vkCmdEndRendering(cmd);
        else vkCmdEndRenderingKHR(cmd);
        VKCHECK(vks_submit_wait(&vk, cmd));
    }

    /* Measure the GPU's output and compare it with the oracle. */
    max_diff = 0.0;
    for (inst = 0; inst < 2; ++inst) {
        const float *gpu = (const float *)output.mapped + (size_t)inst * model.vertex_count * stride_floats;
        const float *cpu = cpu_pos + (size_t)inst * model.vertex_count * 3;
        size_t v;
        int k;
        gpu_ratio[inst] = ring_ratio(&model, gpu, stride_floats, axis_x[inst]);
        for (v = 0; v < model.vertex_count; ++v)
            for (k = 0; k < 3; ++k) {
                double d = fabs((double)gpu[v * stride_floats + k] - (double)cpu[v * 3 + k]);
                if (!(d <= max_diff)) max_diff = d; /* NaN becomes the maximum */
            }
    }

    rgba = (uint8_t *)malloc((size_t)rw * rh * 4);
    rgb = (uint8_t *)malloc((size_t)width * height * 3);
    if (!rgba || !rgb) goto done;
    VKCHECK(vks_image_read_rgba8(&vk, &color, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                 VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                                 rgba));
    downsample(rgba, rw, rh, SUPERSAMPLE, rgb);
    if (make_parent_dirs(out) != 0 || !stbi_write_png(out, (int)width, (int)height, 3, rgb, (int)width * 3)) {
        fprintf(stderr, "twist: cannot write %s\n", out);
        failed++;
    } else {
        printf("wrote %s (%ux%u): LBS on the left, DQS on the right\n", out, width, height);
    }

done:
    if (have_vk && vk.device != VK_NULL_HANDLE) vkDeviceWaitIdle(vk.device);
    if (have_output) alloc.destroy_buffer(alloc.user, &output);
    gpuskin_pipeline_destroy(pipe);
    gpuskin_crowd_destroy(crowd);
    gpuskin_mesh_destroy(mesh);
    gpuskin_context_destroy(ctx);
    if (have_vk) {
        vks_image_destroy(&vk, &color);
        vks_image_destroy(&vk, &depth);
        vks_destroy(&vk);
    }

    printf("joint 1 twisted 180 degrees; middle ring: min radius / rest radius (rest %.2f, %zu vertices)\n",
           (double)RADIUS, model.ring_vertex_count);
    printf("  LBS  GPU %.6f  CPU oracle %.6f   (must be < 0.1: the candy wrapper)\n", gpu_ratio[0], cpu_ratio[0]);
    printf("  DQS  GPU %.6f  CPU oracle %.6f   (must be 1 +- 1e-3: volume kept)\n", gpu_ratio[1], cpu_ratio[1]);
    printf("  GPU vs oracle, every vertex of both instances: max |diff| %.3g (must be <= 1e-4)\n", max_diff);
    check(gpu_ratio[0] >= 0.0 && gpu_ratio[0] < 0.1, "LBS ratio (GPU) below 0.1");
    check(cpu_ratio[0] >= 0.0 && cpu_ratio[0] < 0.1, "LBS ratio (CPU oracle) below 0.1");
    check(fabs(gpu_ratio[1] - 1.0) <= 1e-3, "DQS ratio (GPU) within 1e-3 of 1");
    check(fabs(cpu_ratio[1] - 1.0) <= 1e-3, "DQS ratio (CPU oracle) within 1e-3 of 1");
    check(max_diff >= 0.0 && max_diff <= 1e-4, "GPU output matches the CPU oracle to 1e-4");
    if (have_vk && validate) check(vk.messages == 0, "no validation messages");
    if (have_skel) gpuskin_skeleton_free(&skel);
    rig_free(&model);
    free(cpu_pos);
    free(rgba);
    free(rgb);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
