/* bench/bench_gpu.c - GPU throughput of gpuskin's Vulkan half.

   usage: bench_gpu [--quick] [--csv PATH] [--reps N] [--model PATH.glb] [--max-instances N] [--compute-only]
                    [--sets 1|2] [--mixed-run N] [--scattered-joints] [--counts N,N,...]
                   [--per-invocation 1|2|4|8|16] [--busy N] [--stream K]

   One run, on the device vk_setup.h's rules pick (GPUSKIN_DEVICE=<name part>, else
   the first discrete GPU), with no validation layer:
   1. the write-bandwidth ceiling: bench/fill.comp, one vec4 per invocation,
      workgroups of 256, over a large buffer, once the GPU's speed has settled
      under sustained fills (and again after the compute rows, with a warning if
      it moved by more than 5 %); then the same buffer as 24-byte
      records (one an invocation) written as 3 vec2s, 6 floats, or a vec4 and a
      vec2: what the store width alone costs; and vec4 + vec2 records only as
      many as a dispatch of 16, 64 or 256 synthetic instances writes (18, 73 and
      293 MiB): what a dispatch of that size reaches with nothing computed; and
      a dispatch of one workgroup (the floor of any timed dispatch);
   2. compute skinning (gpuskin_cmd_skin) of a synthetic 50,000-vertex 64-joint mesh
      and of CesiumMan, 1 / 64 / 1,024 / 16,384 instances, LBS / DQS (rigid) / DQS
      with residual (Gram-Schmidt and polar splits; every joint scaled, or 8 of the
      synthetic 64) / DQS scaled uniformly (one size an instance; a size a joint) /
      mixed: vertex-instances
      per second and output bytes per second as a fraction of the ceiling;
   3. the crowd draw, offscreen 1920x1080: CesiumMan x 64 / 1,024 / 16,384 through
      the skinning vertex shader, through the unskinned (posed_vertices) path, and
      compute pre-skin + unskinned draw; pipeline statistics (vertex-shader
      invocations per vertex) where the device has them;
   4. memory: what gpuskin allocated for the mesh and a crowd (through a counting
      allocator), and what an upload writes.
   Every GPU figure is the median of >= 20 timed repetitions (timestamp queries
   around the work) after warm-up; outputs are poisoned (all bits set: NaN) before
   each repetition, and after the last one sampled instances are read back and
   compared with the CPU oracle (gpuskin_skin_cpu).

   --quick: tiny sizes, for CI on lavapipe: every check, no figure asserted.
   --compute-only: sections 1, 2 and 4 (for comparing kernels head to head).
   --sets 2: the synthetic mesh with a second influence set (8 influences a
   vertex, 0-4 of them in the second set), which takes the kernels built for two.
   --mixed-run N: the mixed crowd alternates LBS and rigid DQS in runs of N
   instances (default 1: every other instance).
   --scattered-joints: the synthetic mesh's vertices take their joints at random
   (by default a ring of 200 vertices shares its four): the palette reads of
   neighbouring vertices then scatter.
   --counts N,N,...: the compute section's instance counts (up to 8) instead of
   1, 64, 1,024 and 16,384, for both meshes (e.g. to find where 8 instances an
   invocation start to beat 4); --quick keeps its own (1 and 3).
   --per-invocation N: the instances an invocation of the "N/inv" rows (the crowd's
   specialised kernel with that count forced; default 8); given, also a "general
   N/inv" row (the general kernel with that count).
   --busy N (0-64): each repetition of a compute row (and, since 8d7884d, of the
   16-, 64- and 256-instance fills and the floor) runs N fills of the ceiling's
   1 GiB first, in the same submission, so that small dispatches are timed on a
   busy GPU, at the clock a renderer's frame would keep (default 0).
   --stream K (2-16): each crowd is also timed as K dispatches of it back to back,
   into K outputs, with no barrier between them (a frame that skins several
   crowds), where the K outputs fit the 1.5 GiB a row may use: the "str. K"
   rows (CSV: "... stream K xN") give the time a dispatch. The plain rows time one dispatch alone.
   Ends "N passed, N failed". */
#define _POSIX_C_SOURCE 200809L
#include <volk.h>
#define GPUSKIN_IMPLEMENTATION
#include <meshoptimizer.h>
#include "gpuskin.h"
#define VK_SETUP_IMPLEMENTATION
#include "examples/common/vk_setup.h"
#include "tools/gltf_model.h"
#include "bench_fill_spv.h" /* built from bench/fill.comp by mk/bench.mk */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- settings, checks, statistics ----------------------------------------- */

static int quick;
static int reps = 25;
static uint32_t max_instances = 0xFFFFFFFFu; /* --max-instances: cap for slow devices */
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

static double now_s(void);
static double t_start; /* CLOCK_MONOTONIC at start: t_s, when a row was written */

/* t_s lets a row be matched with a clock log taken beside the run (run_h200.sh
   samples the GPU's clocks with nvidia-smi): the first line of the CSV gives the
   start in UTC. */
static void csv_row(const char *group, const char *variant, double size, stats s, double value, const char *unit)
{
    if (!csv) return;
    fprintf(csv, "%s,%s,%.0f,%d,%.9g,%.9g,%.9g,%.6g,%s,%.3f\n", group, variant, size, s.samples, s.median, s.min, s.max,
            value, unit, now_s() - t_start);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "bench_gpu: out of memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd_u32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}
static float rnd(float a, float b) { return a + (b - a) * (float)(rnd_u32() & 0xFFFFFF) * (1.0f / 16777216.0f); }

#define VKCHECK(x)                                                                                               \
    do {                                                                                                         \
        VkResult vr_ = (x);                                                                                      \
        if (vr_ != VK_SUCCESS) {                                                                                 \
            fprintf(stderr, "bench_gpu: %s failed: %d (line %d)\n", #x, (int)vr_, __LINE__);                      \
            exit(3);                                                                                             \
        }                                                                                                        \
    } while (0)
#define GSCHECK(x)                                                                                               \
    do {                                                                                                         \
        gpuskin_result gr_ = (x);                                                                                \
        if (gr_ != GPUSKIN_SUCCESS) {                                                                            \
            fprintf(stderr, "bench_gpu: %s failed: %s (line %d)\n", #x, gpuskin_result_string(gr_), __LINE__);   \
            exit(3);                                                                                             \
        }                                                                                                        \
    } while (0)

/* ---- the device --------------------------------------------------------------- */

/* vk_setup.h's device, plus the pipelineStatisticsQuery feature where the device has
   it (vks_create does not enable it). No validation: these are timings. The result
   is a vks_context, so vk_setup.h's helpers (command buffers, buffers, images) work. */
static vks_context vk;
static int have_stats, have_render;
static double ts_period_ns;
static uint64_t ts_mask;
static VkDeviceSize max_alloc;

static VkResult device_create(void)
{
    VkApplicationInfo app;
    VkInstanceCreateInfo ici;
    VkPhysicalDevice devs[32];
    uint32_t n = 32, i, version = VK_API_VERSION_1_2, loader = 0;
    const char *want = getenv("GPUSKIN_DEVICE");
    int best = 0;
    VkPhysicalDeviceVulkan13Features s13;
    VkPhysicalDeviceVulkan12Features s12;
    VkPhysicalDeviceFeatures2 sup;
    VkPhysicalDeviceFeatures2 en;
    VkPhysicalDeviceMaintenance3Properties m3;
    VkPhysicalDeviceProperties2 props2;
    VkQueueFamilyProperties qf[64];
    uint32_t nqf = 64;
    VkDeviceQueueCreateInfo qci;
    VkDeviceCreateInfo dci;
    VkCommandPoolCreateInfo pci;
    const float prio = 1.0f;
    VkResult vr;

    memset(&vk, 0, sizeof vk);
    vk.quiet = 1;
    vr = volkInitialize();
    if (vr != VK_SUCCESS) return vr;
    if (vkEnumerateInstanceVersion && vkEnumerateInstanceVersion(&loader) == VK_SUCCESS && loader >= VK_API_VERSION_1_3)
        version = VK_API_VERSION_1_3;
    memset(&app, 0, sizeof app);
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "gpuskin bench_gpu";
    app.apiVersion = version;
    memset(&ici, 0, sizeof ici);
    ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ici.pApplicationInfo = &app;
    vr = vkCreateInstance(&ici, NULL, &vk.instance);
    if (vr != VK_SUCCESS) return vr;
    volkLoadInstanceOnly(vk.instance);
    vr = vkEnumeratePhysicalDevices(vk.instance, &n, devs);
    if (vr < 0) return vr;
    for (i = 0; i < n; ++i) { /* vk_setup.h's rule, for one device choice across the repo */
        int rank = vks__rank(devs[i]);
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(devs[i], &p);
        if (want && *want) {
            if (rank && strstr(p.deviceName, want)) {
                vk.physical_device = devs[i];
                break;
            }
        } else if (rank > best) {
            best = rank;
            vk.physical_device = devs[i];
        }
    }
    if (vk.physical_device == VK_NULL_HANDLE) return VK_ERROR_INITIALIZATION_FAILED;
    vkGetPhysicalDeviceProperties(vk.physical_device, &vk.properties);
    vkGetPhysicalDeviceMemoryProperties(vk.physical_device, &vk.memory);
    vk.queue_family = vks__queue_family(vk.physical_device);
    vkGetPhysicalDeviceQueueFamilyProperties(vk.physical_device, &nqf, qf);
    ts_period_ns = vk.properties.limits.timestampPeriod;
    ts_mask = qf[vk.queue_family].timestampValidBits >= 64 ? ~0ull : ((1ull << qf[vk.queue_family].timestampValidBits) - 1);
    if (qf[vk.queue_family].timestampValidBits == 0) {
        fprintf(stderr, "bench_gpu: the queue has no timestamps\n");
        return VK_ERROR_FEATURE_NOT_PRESENT;
    }
    memset(&m3, 0, sizeof m3);
    m3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
    memset(&props2, 0, sizeof props2);
    props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props2.pNext = &m3;
    vkGetPhysicalDeviceProperties2(vk.physical_device, &props2);
    max_alloc = m3.maxMemoryAllocationSize ? m3.maxMemoryAllocationSize : ((VkDeviceSize)1 << 30);

    memset(&s13, 0, sizeof s13);
    s13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    memset(&s12, 0, sizeof s12);
    s12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    s12.pNext = VK_API_VERSION_MINOR(vk.properties.apiVersion) >= 3 ? &s13 : NULL;
    memset(&sup, 0, sizeof sup);
    sup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    sup.pNext = &s12;
    vkGetPhysicalDeviceFeatures2(vk.physical_device, &sup);

    memset(&vk.features12, 0, sizeof vk.features12);
    vk.features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    vk.features12.bufferDeviceAddress = VK_TRUE;
    memset(&vk.features13, 0, sizeof vk.features13);
    vk.features13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    vk.features13.dynamicRendering = s13.dynamicRendering;
    vk.features13.synchronization2 = s13.synchronization2;
    have_render = s13.dynamicRendering == VK_TRUE;
    memset(&en, 0, sizeof en);
    en.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    en.pNext = &vk.features12;
    if (VK_API_VERSION_MINOR(vk.properties.apiVersion) >= 3) vk.features12.pNext = &vk.features13;
    have_stats = sup.features.pipelineStatisticsQuery == VK_TRUE;
    en.features.pipelineStatisticsQuery = sup.features.pipelineStatisticsQuery;

    memset(&qci, 0, sizeof qci);
    qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qci.queueFamilyIndex = vk.queue_family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    memset(&dci, 0, sizeof dci);
    dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    dci.pNext = &en;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    vr = vkCreateDevice(vk.physical_device, &dci, NULL, &vk.device);
    vk.features12.pNext = NULL;
    if (vr != VK_SUCCESS) {
        vk.device = VK_NULL_HANDLE;
        return vr;
    }
    volkLoadDevice(vk.device);
    vkGetDeviceQueue(vk.device, vk.queue_family, 0, &vk.queue);
    memset(&pci, 0, sizeof pci);
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = vk.queue_family;
    return vkCreateCommandPool(vk.device, &pci, NULL, &vk.pool);
}

/* ---- gpuskin context with a counting allocator --------------------------------- */

static gpuskin_context *base_ctx, *ctx; /* base_ctx only lends its default allocator */

typedef struct counting_alloc { gpuskin_allocator inner; VkDeviceSize live; } counting_alloc;
static counting_alloc counter;

static VkResult count_create(void *user, VkDeviceSize size, VkBufferUsageFlags usage, gpuskin_memory_kind kind,
                             gpuskin_buffer *out)
{
    counting_alloc *a = (counting_alloc *)user;
    VkResult r = a->inner.create_buffer(a->inner.user, size, usage, kind, out);
    if (r == VK_SUCCESS) a->live += size;
    return r;
}

static void count_destroy(void *user, gpuskin_buffer *b)
{
    counting_alloc *a = (counting_alloc *)user;
    a->live -= b->size;
    a->inner.destroy_buffer(a->inner.user, b);
}

static void context_create(void)
{
    gpuskin_context_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.instance = vk.instance;
    cd.physical_device = vk.physical_device;
    cd.device = vk.device;
    cd.get_instance_proc_addr = vkGetInstanceProcAddr;
    cd.enabled_features12 = &vk.features12;
    cd.enabled_features13 = &vk.features13;
    GSCHECK(gpuskin_context_create(&cd, &base_ctx));
    counter.inner = gpuskin_default_allocator(base_ctx);
    cd.allocator.create_buffer = count_create;
    cd.allocator.destroy_buffer = count_destroy;
    cd.allocator.user = &counter;
    GSCHECK(gpuskin_context_create(&cd, &ctx));
}

/* A device-local buffer for outputs (not counted: it is the host's, not gpuskin's). */
static gpuskin_buffer gpu_buffer(VkDeviceSize size, VkBufferUsageFlags usage)
{
    gpuskin_buffer b;
    gpuskin_allocator a = gpuskin_default_allocator(base_ctx);
    VKCHECK(a.create_buffer(a.user, size, usage | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPUSKIN_MEMORY_GPU_ONLY, &b));
    return b;
}

static void gpu_buffer_free(gpuskin_buffer *b)
{
    gpuskin_allocator a = gpuskin_default_allocator(base_ctx);
    if (b->buffer != VK_NULL_HANDLE) a.destroy_buffer(a.user, b);
}

/* Copies `size` bytes at `offset` of a device buffer to dst. */
static void readback(const gpuskin_buffer *src, VkDeviceSize offset, VkDeviceSize size, void *dst)
{
    vks_buffer host;
    VkCommandBuffer cmd;
    VkBufferCopy region;
    VKCHECK(vks_buffer_create(&vk, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &host));
    VKCHECK(vks_begin(&vk, &cmd));
    region.srcOffset = offset;
    region.dstOffset = 0;
    region.size = size;
    vkCmdCopyBuffer(cmd, src->buffer, host.buffer, 1, &region);
    VKCHECK(vks_submit_wait(&vk, cmd));
    memcpy(dst, host.mapped, (size_t)size);
    vks_buffer_destroy(&vk, &host);
}

static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
                    VkAccessFlags dst_access)
{
    VkMemoryBarrier mb;
    memset(&mb, 0, sizeof mb);
    mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    mb.srcAccessMask = src_access;
    mb.dstAccessMask = dst_access;
    vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* ---- timing: timestamps around `body`, after `prep` --------------------------- */

typedef void (*record_fn)(VkCommandBuffer cmd, void *user);

static VkQueryPool ts_pool, stats_pool;

static void query_pools_create(void)
{
    VkQueryPoolCreateInfo qi;
    memset(&qi, 0, sizeof qi);
    qi.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 4;
    VKCHECK(vkCreateQueryPool(vk.device, &qi, NULL, &ts_pool));
    if (have_stats) {
        qi.queryType = VK_QUERY_TYPE_PIPELINE_STATISTICS;
        qi.queryCount = 1;
        qi.pipelineStatistics = VK_QUERY_PIPELINE_STATISTIC_INPUT_ASSEMBLY_VERTICES_BIT |
                                VK_QUERY_PIPELINE_STATISTIC_VERTEX_SHADER_INVOCATIONS_BIT |
                                VK_QUERY_PIPELINE_STATISTIC_FRAGMENT_SHADER_INVOCATIONS_BIT;
        VKCHECK(vkCreateQueryPool(vk.device, &qi, NULL, &stats_pool));
    }
}

/* Pipeline statistics of the last timed repetition (when `want_stats`). */
static uint64_t last_stats[3];

/* When set, every repetition of gpu_time first times this reference fill (the
   ceiling's) in the same submission, and `paired` gets the median over the
   repetitions of (reference time / body time). It corrects for what slows the
   DRAM-bound fill too (memory speed, another tenant's traffic), not for the SM
   clock: on an H200 (2026-12-03 22:05) rows run while the driver held the SM clock
   low were slower by that much and the fill was not (BENCHMARKS.md). */
static void *paired_ref;
static stats paired;
static void fill_body(VkCommandBuffer cmd, void *user);

/* --busy N: every repetition of a compute row first runs N fills of the ceiling's
   buffer in its submission (about N x 0.25 ms on an H200). A row of small
   dispatches otherwise leaves the GPU idle most of the time, and its driver then
   lowers the SM clock (on an H200, 2026-12-04 20:28 UTC, to 345-990 MHz, reason
   "idle"), which a renderer that keeps the GPU busy would not see. */
static int busy_fills;

/* Median seconds of `body` over `reps` submissions (plus two warm-ups). The first
   timestamp is written once everything before it (prep) has completed (bottom of
   pipe), the second once body has. */
static stats gpu_time(record_fn prep, record_fn body, void *user, int want_stats)
{
    double t[256], ratio[256];
    int r;
    for (r = -2; r < reps; ++r) {
        VkCommandBuffer cmd;
        uint64_t ts[4];
        VKCHECK(vks_begin(&vk, &cmd));
        vkCmdResetQueryPool(cmd, ts_pool, 0, 4);
        if (want_stats && have_stats) vkCmdResetQueryPool(cmd, stats_pool, 0, 1);
        if (paired_ref) { /* the reference, then a barrier: prep and body start after it */
            int k;
            for (k = 0; k < busy_fills; ++k) {
                fill_body(cmd, paired_ref);
                barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
            }
            vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ts_pool, 2);
            fill_body(cmd, paired_ref);
            vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ts_pool, 3);
            barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                    VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                    VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        }
        if (prep) prep(cmd, user);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ts_pool, 0);
        if (want_stats && have_stats) vkCmdBeginQuery(cmd, stats_pool, 0, 0);
        body(cmd, user);
        if (want_stats && have_stats) vkCmdEndQuery(cmd, stats_pool, 0);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, ts_pool, 1);
        VKCHECK(vks_submit_wait(&vk, cmd));
        VKCHECK(vkGetQueryPoolResults(vk.device, ts_pool, 0, paired_ref ? 4 : 2, sizeof ts, ts, sizeof ts[0],
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        if (r >= 0) t[r] = (double)((ts[1] - ts[0]) & ts_mask) * ts_period_ns * 1e-9;
        if (r >= 0 && paired_ref)
            ratio[r] = (double)((ts[3] - ts[2]) & ts_mask) / (double)(((ts[1] - ts[0]) & ts_mask) | 1u);
        if (want_stats && have_stats)
            VKCHECK(vkGetQueryPoolResults(vk.device, stats_pool, 0, 1, sizeof last_stats, last_stats, sizeof last_stats[0],
                                          VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    }
    if (paired_ref) paired = summarise(ratio, reps);
    return summarise(t, reps);
}

/* ---- 1. the write-bandwidth ceiling ------------------------------------------- */

static VkPipeline fill_pipeline;
static VkPipelineLayout fill_layout;
static double ceiling_bps; /* bytes/s */

typedef struct fill_push { VkDeviceAddress out; uint32_t count, row; float seed; uint32_t mode; } fill_push;
/* count: vec4s (mode 0) or 24-byte records (modes 1, 2: as 3 vec2s / 6 floats) */
typedef struct fill_job { gpuskin_buffer buf; uint32_t count, mode; } fill_job;
static fill_job ceiling_job; /* its buffer stays: the reference of the paired ratios */
#define CEILING_BYTES ((double)ceiling_job.count * 16.0) /* the ceiling's vec4s */

static void fill_body(VkCommandBuffer cmd, void *user)
{
    fill_job *j = (fill_job *)user;
    fill_push p;
    const uint32_t groups = (j->count + 255u) / 256u;
    uint32_t gx = groups < 32768u ? groups : 32768u, gy = (groups + gx - 1u) / gx;
    p.out = j->buf.address;
    p.count = j->count;
    p.row = gx * 256u;
    p.seed = 1.5f;
    p.mode = j->mode;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, fill_pipeline);
    vkCmdPushConstants(cmd, fill_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
    vkCmdDispatch(cmd, gx, gy, 1);
}

static void fill_prep(VkCommandBuffer cmd, void *user)
{
    fill_job *j = (fill_job *)user;
    vkCmdFillBuffer(cmd, j->buf.buffer, 0, (VkDeviceSize)j->count * (j->mode ? 24u : 16u), 0xFFFFFFFFu);
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT);
}

/* warm_fills fills of the whole buffer back to back: sustained load. */
static int warm_fills = 1;
static void warm_body(VkCommandBuffer cmd, void *user)
{
    int k;
    for (k = 0; k < warm_fills; ++k) {
        if (k) barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
        fill_body(cmd, user);
    }
}

/* A GPU may start a run at its idle clock and speed up only under sustained load:
   an H200 run (2026-12-03 21:13 UTC) measured a "ceiling" of 1.29 TB/s at its
   start, against 4.34 TB/s a minute later, which made every ratio of its first
   rows wrong (up to 188 %). So the ceiling is measured only once the fill's speed
   has settled: batches of fills (doubled up to 16 a submission while a batch
   takes under 20 ms) until two medians per fill in a row agree within 2 %, after
   at least one second (at most ten). */
static void gpu_warm_up(fill_job *j)
{
    const double t0 = now_s();
    const int saved_reps = reps;
    double prev = 0.0, first = 0.0, per_fill = 0.0, elapsed = 0.0;
    int batches = 0;
    reps = 3;
    warm_fills = 1;
    for (;;) {
        const stats s = gpu_time(NULL, warm_body, j, 0);
        per_fill = s.median / warm_fills;
        if (!batches++) first = per_fill;
        elapsed = now_s() - t0;
        if ((elapsed >= 1.0 && prev > 0.0 && fabs(per_fill / prev - 1.0) < 0.02) || elapsed >= 10.0) break;
        prev = per_fill;
        if (s.median < 0.02 && warm_fills < 16) warm_fills *= 2;
    }
    reps = saved_reps;
    printf("GPU warm-up: %d batches (up to %d fills each) in %.1f s; a fill took %.3f ms first, %.3f ms last%s\n",
           batches, warm_fills, elapsed, first * 1e3, per_fill * 1e3,
           elapsed >= 10.0 ? " (not settled after 10 s)" : "");
}

static void bench_ceiling(void)
{
    VkShaderModuleCreateInfo smi;
    VkShaderModule sm;
    VkPushConstantRange range;
    VkPipelineLayoutCreateInfo pli;
    VkComputePipelineCreateInfo cpi;
    fill_job j;
    stats s;
    VkDeviceSize bytes = quick ? ((VkDeviceSize)1 << 20) : ((VkDeviceSize)1 << 30);
    uint32_t i, ok = 1;

    if (bytes > max_alloc) bytes = max_alloc & ~(VkDeviceSize)15;
    memset(&smi, 0, sizeof smi);
    smi.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    smi.codeSize = sizeof bench_fill_spv;
    smi.pCode = bench_fill_spv;
    VKCHECK(vkCreateShaderModule(vk.device, &smi, NULL, &sm));
    range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    range.offset = 0;
    range.size = sizeof(fill_push);
    memset(&pli, 0, sizeof pli);
    pli.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &range;
    VKCHECK(vkCreatePipelineLayout(vk.device, &pli, NULL, &fill_layout));
    memset(&cpi, 0, sizeof cpi);
    cpi.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cpi.stage.module = sm;
    cpi.stage.pName = "main";
    cpi.layout = fill_layout;
    VKCHECK(vkCreateComputePipelines(vk.device, VK_NULL_HANDLE, 1, &cpi, NULL, &fill_pipeline));
    vkDestroyShaderModule(vk.device, sm, NULL);

    j.buf = gpu_buffer(bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    j.count = (uint32_t)(bytes / 16u);
    j.mode = 0;
    if (!quick) gpu_warm_up(&j);
    s = gpu_time(fill_prep, fill_body, &j, 0);
    ceiling_bps = (double)bytes / s.median;
    /* every vec4 written: check the first, the last and a stride of the rest */
    for (i = 0; i < 256 && ok; ++i) {
        const uint32_t at = (uint32_t)((uint64_t)i * (j.count - 1u) / 255u);
        float v[4];
        readback(&j.buf, (VkDeviceSize)at * 16u, 16, v);
        ok = v[0] == (float)at && v[1] == 1.5f && v[3] == 1.0f;
        if (quick && i > 16) break;
    }
    check(ok, "fill kernel wrote every sampled vec4");
    csv_row("ceiling", "write vec4 (local_size 256)", (double)bytes, s, ceiling_bps / 1e9, "GB/s");
    printf("\nWrite-bandwidth ceiling (fill.comp, 1 vec4/invocation, groups of 256): %.1f MiB in %.3f ms = %.1f GB/s"
           " (median of %d)\n", (double)bytes / 1048576.0, s.median * 1e3, ceiling_bps / 1e9, s.samples);
    /* The same buffer in 24-byte records written with narrower stores: why skin.comp
       stages its records and writes vec4s (shaders/skin.comp). */
    for (j.mode = 1; j.mode <= 3; ++j.mode) {
        static const char *const whats[] = {"", "3 vec2 stores", "6 float stores", "a vec4 and a vec2 store"};
        char what[96], label[64];
        const double rec_bytes = (double)(bytes / 24u) * 24.0;
        float v[6];
        j.count = (uint32_t)(bytes / 24u);
        s = gpu_time(fill_prep, fill_body, &j, 0);
        readback(&j.buf, (VkDeviceSize)(j.count - 1u) * 24u, 24, v);
        snprintf(what, sizeof what, "fill, 24-byte records as %s: last record written", whats[j.mode]);
        check(v[0] == (float)(j.count - 1u) && v[5] == 2.0f, what);
        snprintf(label, sizeof label, "write 24 B as %s (local_size 256)", whats[j.mode]);
        csv_row("ceiling", label, rec_bytes, s, rec_bytes / s.median / 1e9, "GB/s");
        printf("  24-byte records as %s: %.3f ms = %.1f GB/s, %.0f%% of the ceiling\n", whats[j.mode], s.median * 1e3,
               rec_bytes / s.median / 1e9, 100.0 * rec_bytes / s.median / ceiling_bps);
    }
    /* The same records, only as many as one dispatch of the synthetic mesh (50,000
       vertices; the quick mesh's 96) writes for 16, 64 and 256 instances: how much
       of the ceiling a dispatch of that size can reach at all (launch, ramp-up, the
       last partial wave), with nothing computed. 1,024 full-size instances (1.2 GB)
       do not fit the 1 GiB buffer: the ceiling itself is their figure. Then a
       dispatch of one workgroup (4 KiB), the floor: what the timestamps around any
       dispatch measure when it has next to nothing to do (on an H100 the line
       through the 16- and 256-instance fills meets 0 bytes at about half of it,
       so it is timed, not extrapolated). With --busy the fills run after the busy
       fills, as the compute rows do, so that the GPU's clock is the one those rows
       see. */
    ceiling_job.buf = j.buf;
    ceiling_job.count = (uint32_t)(bytes / 16u);
    ceiling_job.mode = 0;
    {
        static const uint32_t instances[3] = {16, 64, 256};
        if (busy_fills > 0) paired_ref = &ceiling_job; /* for --busy's fills; its ratio is not reported */
        for (i = 0; i < 3; ++i) {
            char label[96];
            const uint64_t records = (uint64_t)(quick ? 96u : 50000u) * instances[i];
            const double rec_bytes = (double)records * 24.0;
            float v[6];
            if (records * 24u > bytes) continue;
            j.mode = 3;
            j.count = (uint32_t)records;
            s = gpu_time(fill_prep, fill_body, &j, 0);
            readback(&j.buf, (VkDeviceSize)(j.count - 1u) * 24u, 24, v);
            snprintf(label, sizeof label, "fill, %u instances' records: last record written", instances[i]);
            check(v[0] == (float)(j.count - 1u) && v[5] == 2.0f, label);
            snprintf(label, sizeof label, "write 24 B as a vec4 and a vec2 store: %u instances' bytes", instances[i]);
            csv_row("ceiling", label, rec_bytes, s, rec_bytes / s.median / 1e9, "GB/s");
            printf("  the same, only the %.1f MiB of %u synthetic instances: %.4f ms = %.1f GB/s, %.0f%% of the ceiling\n",
                   rec_bytes / 1048576.0, instances[i], s.median * 1e3, rec_bytes / s.median / 1e9,
                   100.0 * rec_bytes / s.median / ceiling_bps);
        }
        j.mode = 0;
        j.count = 256; /* one workgroup */
        s = gpu_time(fill_prep, fill_body, &j, 0);
        paired_ref = NULL;
        {
            float v[4];
            readback(&j.buf, 255u * 16u, 16, v);
            check(v[0] == 255.0f && v[3] == 1.0f, "fill, one workgroup: its last vec4 written");
        }
        csv_row("ceiling", "dispatch floor: one workgroup of the vec4 fill (4 KiB)", 4096.0, s, s.median * 1e6, "us");
        printf("  one workgroup (4 KiB), the floor of a timed dispatch: %.2f us\n", s.median * 1e6);
    }
}

/* The ceiling again, after the compute rows: the ratios above are only comparable
   if the GPU ran at one speed throughout. */
static void recheck_ceiling(void)
{
    stats s;
    double bps;
    s = gpu_time(fill_prep, fill_body, &ceiling_job, 0);
    bps = CEILING_BYTES / s.median;
    csv_row("ceiling", "write vec4 (local_size 256) again after the compute rows", CEILING_BYTES, s, bps / 1e9,
            "GB/s");
    printf("\nWrite-bandwidth ceiling again, after the compute rows: %.1f GB/s, %.0f%% of the first%s\n", bps / 1e9,
           100.0 * bps / ceiling_bps,
           !quick && fabs(bps / ceiling_bps - 1.0) > 0.05
               ? " -- WARNING: the GPU's write speed changed during the run: compare the paired column, not the % one"
               : "");
    gpu_buffer_free(&ceiling_job.buf);
}

/* ---- meshes --------------------------------------------------------------------- */

typedef struct mesh {
    const char *name;
    gpuskin_vertex_streams s;
    uint32_t joints;
    const uint32_t *indices;
    uint32_t index_count;
    gpuskin_skeleton sk;
    const gpuskin_clip *clip;   /* NULL: random poses */
    float clip_start, clip_end;
    float size;                 /* diagonal of the bind pose */
    gltf_model *model;          /* when loaded from a file */
    void *owned[8];             /* synthetic arrays */
    gpuskin_mesh *gpu;
} mesh;

/* --scattered-joints: each vertex's first joint at random instead of the ring's. */
static int scattered_joints;

/* A tube of rings x segments vertices, 4 influences each (1..4 non-zero, summing to
   1) along a 64-joint binary tree: consecutive joints from the ring's place along
   the tube, so a ring's vertices share them (or, with --scattered-joints, from a
   random joint for each vertex: neighbouring vertices then read different palette
   rows); triangles between rings. sets = 2: a second influence set of 0..4 more
   non-zero influences on the next four joints (8 in all, the eight summing to 1). */
static void mesh_synthetic(mesh *m, uint32_t rings, uint32_t segs, uint32_t joints, uint32_t sets)
{
    const uint32_t n = rings * segs;
    float *pos = (float *)xmalloc((size_t)n * 12), *nrm = (float *)xmalloc((size_t)n * 12);
    float *w = (float *)xmalloc((size_t)n * 16 * sets);
    uint16_t *j = (uint16_t *)xmalloc((size_t)n * 8 * sets);
    uint32_t *idx = (uint32_t *)xmalloc((size_t)(rings - 1) * segs * 6 * 4);
    int32_t *parents = (int32_t *)xmalloc(joints * 4);
    gpuskin_trs *rest = (gpuskin_trs *)xmalloc(joints * sizeof(gpuskin_trs));
    gpuskin_mat4 *g = (gpuskin_mat4 *)xmalloc(joints * sizeof(gpuskin_mat4));
    gpuskin_mat4 *ib = (gpuskin_mat4 *)xmalloc(joints * sizeof(gpuskin_mat4));
    gpuskin_skeleton_desc sd;
    gpuskin_skeleton tmp;
    uint32_t r, s, k, q = 0;
    memset(m, 0, sizeof *m);
    for (r = 0; r < rings; ++r)
        for (s = 0; s < segs; ++s) {
            const uint32_t v = r * segs + s;
            const float a = 6.2831853f * (float)s / (float)segs;
            float sum = 0.0f, wk[8];
            const uint32_t used = 1 + rnd_u32() % 4u, used2 = sets == 2 ? rnd_u32() % 5u : 0u;
            const uint32_t j0 = scattered_joints ? rnd_u32() % joints : (uint32_t)((uint64_t)r * joints / rings);
            pos[3 * v] = 0.3f * cosf(a); pos[3 * v + 1] = 2.0f * (float)r / (float)rings; pos[3 * v + 2] = 0.3f * sinf(a);
            nrm[3 * v] = cosf(a); nrm[3 * v + 1] = 0.0f; nrm[3 * v + 2] = sinf(a);
            for (k = 0; k < 8; ++k) {
                wk[k] = k < used || (k >= 4 && k - 4 < used2) ? rnd(0.05f, 1.0f) : 0.0f;
                sum += wk[k];
            }
            for (k = 0; k < 4 * sets; ++k) { /* set s of vertex v at s * n + v */
                w[(k / 4) * 4 * n + 4 * v + k % 4] = wk[k] / sum;
                j[(k / 4) * 4 * n + 4 * v + k % 4] = (uint16_t)((j0 + k) % joints);
            }
        }
    for (r = 0; r + 1 < rings; ++r)
        for (s = 0; s < segs; ++s) {
            const uint32_t a = r * segs + s, b = r * segs + (s + 1) % segs, c = a + segs, d = b + segs;
            idx[q++] = a; idx[q++] = c; idx[q++] = b;
            idx[q++] = b; idx[q++] = c; idx[q++] = d;
        }
    for (k = 0; k < joints; ++k) {
        parents[k] = k == 0 ? -1 : (int32_t)((k - 1) / 2);
        rest[k] = gpuskin_trs_identity();
        rest[k].translation.y = k == 0 ? 0.0f : 2.0f / (float)joints;
    }
    memset(&sd, 0, sizeof sd);
    sd.joint_count = joints;
    sd.parents = parents;
    sd.rest_pose = rest;
    GSCHECK(gpuskin_skeleton_init(&tmp, &sd));
    GSCHECK(gpuskin_skeleton_globals(&tmp, NULL, g));
    for (k = 0; k < joints; ++k) GSCHECK(gpuskin_mat4_inverse_affine(&g[k], &ib[k]));
    gpuskin_skeleton_free(&tmp);
    sd.inverse_bind = ib;
    GSCHECK(gpuskin_skeleton_init(&m->sk, &sd));
    free(parents); free(rest); free(g); free(ib);
    m->name = sets == 2 ? (scattered_joints ? "synthetic (8 influences; scattered joints)" : "synthetic (8 influences)")
                        : (scattered_joints ? "synthetic (scattered joints)" : "synthetic"); /* no comma: CSV labels */
    m->s.vertex_count = n;
    m->s.positions.data = pos;
    m->s.normals.data = nrm;
    m->s.influence_sets = sets;
    m->s.joint_type = GPUSKIN_JOINT_U16;
    m->s.joints[0].data = j;
    m->s.weights[0].data = w;
    if (sets == 2) {
        m->s.joints[1].data = j + 4 * (size_t)n;
        m->s.weights[1].data = w + 4 * (size_t)n;
    }
    m->joints = joints;
    m->indices = idx;
    m->index_count = q;
    m->size = 2.2f;
    m->owned[0] = pos; m->owned[1] = nrm; m->owned[2] = w; m->owned[3] = j; m->owned[4] = idx;
}

static int mesh_load(mesh *m, const char *path)
{
    char err[512];
    const gltf_model_primitive *p;
    memset(m, 0, sizeof *m);
    if (gltf_model_load(path, &m->model, err, sizeof err) != 0) {
        printf("  (%s not loaded: %s)\n", path, err);
        return 0;
    }
    if (m->model->skinned_node_count == 0 || m->model->skinned_nodes[0].primitive_count == 0) return 0;
    p = &m->model->skinned_nodes[0].primitives[0];
    m->name = "CesiumMan";
    m->s = p->streams;
    m->s.tangents.data = NULL; /* what the crowd draws: positions and normals */
    m->indices = p->indices;
    m->index_count = p->index_count;
    m->joints = m->model->skins[m->model->skinned_nodes[0].skin].joint_count;
    GSCHECK(gpuskin_skeleton_init(&m->sk, &m->model->skins[m->model->skinned_nodes[0].skin].desc));
    if (m->model->skins[0].clip_count) {
        m->clip = &m->model->skins[0].clips[0].clip;
        m->clip_start = m->model->skins[0].clips[0].start;
        m->clip_end = m->model->skins[0].clips[0].end;
    }
    m->size = gltf_model_size(m->model);
    return 1;
}

static void mesh_free(mesh *m)
{
    int i;
    if (m->gpu) gpuskin_mesh_destroy(m->gpu);
    gpuskin_skeleton_free(&m->sk);
    if (m->model) gltf_model_free(m->model);
    for (i = 0; i < 8; ++i) free(m->owned[i]);
    memset(m, 0, sizeof *m);
}

static VkDeviceSize mesh_bytes; /* what gpuskin allocated for the last mesh */

static void mesh_upload(mesh *m)
{
    gpuskin_mesh_desc md;
    VkDeviceSize before = counter.live;
    memset(&md, 0, sizeof md);
    md.streams = m->s;
    md.joint_count = m->joints;
    md.indices = m->indices;
    md.index_count = m->index_count;
    GSCHECK(gpuskin_mesh_create(ctx, &md, &m->gpu));
    mesh_bytes = counter.live - before;
    if (gpuskin_mesh_needs_upload(m->gpu)) {
        VkCommandBuffer cmd;
        VKCHECK(vks_begin(&vk, &cmd));
        GSCHECK(gpuskin_cmd_upload_mesh(m->gpu, cmd));
        VKCHECK(vks_submit_wait(&vk, cmd));
    }
}

/* ---- palettes of a crowd ----------------------------------------------------- */

enum {
    M_LBS, M_DQS, M_DQS_RESIDUAL, M_DQS_RESIDUAL_POLAR, M_DQS_RESIDUAL_FEW, M_DQS_UNIFORM, M_DQS_JOINT_SIZES, M_MIXED,
    M_COUNT
};
static const char *method_name[M_COUNT] = {"LBS",         "DQS",           "DQS+residual", "DQS+res polar", "DQS+res few",
                                           "DQS uniform", "DQS uni/joint", "mixed"};
/* The split each crowd's DQS instances are packed with: the default
   Gram-Schmidt one gives upper-triangular residuals (their own kernel), the polar
   one symmetric residuals (the kernel that blends all nine entries). */
#define CROWD_SPLIT(kind) ((kind) == M_DQS_RESIDUAL_POLAR ? GPUSKIN_SPLIT_POLAR : GPUSKIN_SPLIT_GRAM_SCHMIDT)
/* The crowds scaled non-uniformly: their DQS instances carry residual rows. */
#define CROWD_RESIDUAL(kind) \
    ((kind) == M_DQS_RESIDUAL || (kind) == M_DQS_RESIDUAL_POLAR || (kind) == M_DQS_RESIDUAL_FEW)
/* A mixed crowd alternates LBS and rigid DQS in runs of this many instances
   (--mixed-run; 1: every other instance). */
static uint32_t mixed_run = 1;

/* Palettes (mat4) of n instances on a square grid, facing the camera: a clip
   sampled at a different time for each, or random joint rotations (small enough to
   look like a pose) with non-uniform scale when `scaled` is 1; with `scaled` 2
   each instance gets a size instead (a uniform scale in its placement, 0.8-1.25
   but never within 1 % of 1: every joint's S is then the same s I); with `scaled`
   3 each joint's local pose a uniform scale (0.9-1.1, never within 1 % of 1: every
   joint's S is s I, s differing by joint); with `scaled` 4 the non-uniform scale
   of `scaled` 1 on the last eighth of the joints only (leaves of the synthetic
   tree: the other joints keep S = I, as in a rig where a few joints stretch). */
static void make_palettes(const mesh *m, uint32_t n, int scaled, gpuskin_mat4 *out)
{
    const uint32_t side = (uint32_t)ceil(sqrt((double)n)), J = m->joints;
    gpuskin_trs *poses = (gpuskin_trs *)xmalloc((size_t)n * J * sizeof(gpuskin_trs));
    gpuskin_mat4 *models = (gpuskin_mat4 *)xmalloc((size_t)n * sizeof(gpuskin_mat4));
    gpuskin_palette_batch_desc d;
    uint32_t i, k;
    for (i = 0; i < n; ++i) {
        gpuskin_trs t = gpuskin_trs_identity();
        gpuskin_vec3 up;
        t.translation.x = ((float)(i % side) - 0.5f * (float)(side - 1)) * m->size * 0.6f;
        t.translation.z = -((float)(i / side)) * m->size * 0.6f;
        up.x = 0; up.y = 1; up.z = 0;
        t.rotation = gpuskin_quat_axis_angle(up, rnd(-0.5f, 0.5f));
        if (scaled == 2) { /* a size of (almost) exactly 1 would be rigid, another kind */
            float size = rnd(0.8f, 1.25f);
            t.scale.x = t.scale.y = t.scale.z = fabsf(size - 1.0f) < 0.01f ? size + 0.02f : size;
        }
        models[i] = gpuskin_mat4_from_trs(&t);
        if (m->clip) {
            const float len = m->clip_end - m->clip_start;
            GSCHECK(gpuskin_clip_sample(m->clip, &m->sk, m->clip_start + fmodf((float)i * 0.137f, len > 0 ? len : 1.0f),
                                        poses + (size_t)i * J));
        } else {
            for (k = 0; k < J; ++k) {
                gpuskin_trs *p = &poses[(size_t)i * J + k];
                gpuskin_vec3 axis;
                *p = m->sk.rest_pose[k];
                axis.x = rnd(-1, 1); axis.y = rnd(-1, 1); axis.z = rnd(-1, 1);
                p->rotation = gpuskin_quat_axis_angle(axis, rnd(-0.4f, 0.4f));
                if (scaled == 1 || (scaled == 4 && k >= J - J / 8)) {
                    p->scale.x = rnd(0.8f, 1.25f); p->scale.y = rnd(0.8f, 1.25f); p->scale.z = rnd(0.8f, 1.25f);
                }
            }
        }
        if (scaled == 3)
            for (k = 0; k < J; ++k) {
                gpuskin_trs *p = &poses[(size_t)i * J + k];
                float size = rnd(0.9f, 1.1f);
                size = fabsf(size - 1.0f) < 0.01f ? size + 0.02f : size;
                p->scale.x *= size; p->scale.y *= size; p->scale.z *= size;
            }
    }
    memset(&d, 0, sizeof d);
    d.skeleton = &m->sk;
    d.instance_count = n;
    d.models = models;
    d.local_poses = poses;
    d.out_palettes = out;
    GSCHECK(gpuskin_build_palettes(&d));
    free(poses);
    free(models);
}

/* A crowd of n with the given method kind, uploaded to frame 0 and 1. */
typedef struct crowd {
    gpuskin_crowd *c;
    uint32_t n;
    int kind;
    gpuskin_mat4 *pal;
    uint8_t *methods;
    uint32_t *words;
    VkDeviceSize bytes;        /* what gpuskin allocated for it */
    double upload_s;           /* CPU time of a slot's first gpuskin_crowd_upload (pages touched for the first time) */
    stats upload_warm;         /* CPU time of later uploads to the slots: the per-frame cost */
} crowd;

static void crowd_make(crowd *cw, const mesh *m, uint32_t n, int kind)
{
    gpuskin_crowd_desc rd;
    gpuskin_crowd_upload_desc up;
    VkDeviceSize before = counter.live;
    uint32_t i, f;
    memset(cw, 0, sizeof *cw);
    cw->n = n;
    cw->kind = kind;
    cw->pal = (gpuskin_mat4 *)xmalloc((size_t)n * m->joints * sizeof(gpuskin_mat4));
    cw->methods = (uint8_t *)xmalloc(n);
    cw->words = (uint32_t *)xmalloc((size_t)n * 4);
    make_palettes(m, n,
                  kind == M_DQS_RESIDUAL || kind == M_DQS_RESIDUAL_POLAR ? 1
                  : kind == M_DQS_RESIDUAL_FEW                           ? 4
                  : kind == M_DQS_UNIFORM                                ? 2
                  : kind == M_DQS_JOINT_SIZES                            ? 3
                                                                         : 0,
                  cw->pal);
    for (i = 0; i < n; ++i)
        cw->methods[i] = (uint8_t)(kind == M_LBS ? GPUSKIN_METHOD_LBS : kind == M_MIXED ? ((i / mixed_run) % 2 ? GPUSKIN_METHOD_DQS : GPUSKIN_METHOD_LBS)
                                                                                        : GPUSKIN_METHOD_DQS);
    memset(&rd, 0, sizeof rd);
    rd.mesh = m->gpu;
    rd.capacity = n;
    GSCHECK(gpuskin_crowd_create(ctx, &rd, &cw->c));
    cw->bytes = counter.live - before;
    for (f = 0; f < 2; ++f) {
        double t0 = now_s();
        memset(&up, 0, sizeof up);
        up.frame = f;
        up.instance_count = n;
        up.palettes = cw->pal;
        up.methods = cw->methods;
        up.split = CROWD_SPLIT(kind);
        up.out_method_words = cw->words;
        GSCHECK(gpuskin_crowd_upload(cw->c, &up));
        cw->upload_s = now_s() - t0;
    }
    { /* a frame's upload once the slot's pages are mapped: what a host pays every frame */
        double t[256];
        int r;
        for (r = 0; r < reps; ++r) {
            double t0 = now_s();
            up.frame = (uint32_t)r % 2u;
            GSCHECK(gpuskin_crowd_upload(cw->c, &up));
            t[r] = now_s() - t0;
        }
        cw->upload_warm = summarise(t, reps);
    }
}

static void crowd_free(crowd *cw)
{
    gpuskin_crowd_destroy(cw->c);
    free(cw->pal);
    free(cw->methods);
    free(cw->words);
    memset(cw, 0, sizeof *cw);
}

/* Instance i through the oracle into out (the compute layout, stride 24). */
static void oracle_instance(const mesh *m, const crowd *cw, uint32_t i, float *out)
{
    const uint32_t J = m->joints;
    float *lbs = (float *)xmalloc(J * 48), *dq = (float *)xmalloc(J * 32), *res = (float *)xmalloc(J * 48);
    gpuskin_cpu_skin_desc d;
    uint32_t word = GPUSKIN_METHOD_LBS;
    memset(&d, 0, sizeof d);
    if (cw->methods[i] == GPUSKIN_METHOD_DQS)
    {
        GSCHECK(gpuskin_pack_dq_fast(cw->pal + (size_t)i * J, J, CROWD_SPLIT(cw->kind), dq, res, &word));
        GSCHECK(gpuskin_dq_uniform_scale(res, J, &word)); /* as gpuskin_crowd_upload does */
    } else
        GSCHECK(gpuskin_pack_lbs(cw->pal + (size_t)i * J, J, lbs));
    d.streams = m->s;
    d.joint_count = J;
    d.method_word = word;
    d.lbs_palette = lbs;
    d.dq_palette = dq;
    d.residual_palette = res;
    d.out_positions.data = out;
    d.out_positions.stride = 24;
    d.out_normals.data = out + 3;
    d.out_normals.stride = 24;
    GSCHECK(gpuskin_skin_cpu_fast(&d));
    free(lbs); free(dq); free(res);
}

/* Max |gpu - cpu| of instance i (positions, normals) in a readback of stride 24. */
/* gpu: records of `floats` floats (6: position + normal, 3: position). */
static void compare_instance(const mesh *m, const crowd *cw, uint32_t i, const float *gpu, int floats, double *dp,
                             double *dn)
{
    const size_t n = m->s.vertex_count;
    float *cpu = (float *)xmalloc(n * 24);
    size_t v;
    int c;
    oracle_instance(m, cw, i, cpu);
    for (v = 0; v < n; ++v)
        for (c = 0; c < floats; ++c) {
            const double e = fabs((double)gpu[v * (size_t)floats + (size_t)c] - (double)cpu[v * 6 + (size_t)c]);
            double *acc = c < 3 ? dp : dn;
            if (!(e <= *acc)) *acc = e; /* NaN sticks */
        }
    free(cpu);
}

/* ---- 2. compute skinning ----------------------------------------------------------- */

typedef struct skin_job {
    crowd *cw;
    const mesh *m;
    gpuskin_buffer out;
    uint32_t chunk;            /* instances per dispatch (the output holds one chunk) */
    VkDeviceSize chunk_bytes;
    uint32_t kernel_flags, per_invocation, output_flags; /* gpuskin_skin_dispatch_desc's */
} skin_job;

static void skin_prep(VkCommandBuffer cmd, void *user)
{
    skin_job *j = (skin_job *)user;
    vkCmdFillBuffer(cmd, j->out.buffer, 0, j->chunk_bytes, 0xFFFFFFFFu);
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT);
}

/* All instances, a chunk at a time into the same output: a compute-to-compute
   barrier between chunks (write after write). */
/* One gpuskin_cmd_skin of j's settings: instances [first, first + count) into
   the chunk-sized output at `out`. */
static void record_skin(VkCommandBuffer cmd, const skin_job *j, uint32_t first, uint32_t count, VkDeviceAddress out)
{
    gpuskin_skin_dispatch_desc sd;
    memset(&sd, 0, sizeof sd);
    sd.first_instance = first;
    sd.instance_count = count;
    sd.output = out;
    sd.output_size = j->chunk_bytes;
    sd.output_flags = j->output_flags;
    sd.kernel_flags = j->kernel_flags;
    sd.instances_per_invocation = j->per_invocation;
    GSCHECK(gpuskin_cmd_skin(j->cw->c, cmd, &sd));
}

static void skin_body(VkCommandBuffer cmd, void *user)
{
    skin_job *j = (skin_job *)user;
    uint32_t first;
    for (first = 0; first < j->cw->n; first += j->chunk) {
        if (first) barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
        record_skin(cmd, j, first, j->cw->n - first < j->chunk ? j->cw->n - first : j->chunk, j->out.address);
    }
}

/* --per-invocation: the count of the "N/inv" rows; given, the general kernel
   gets such a row too. */
static uint32_t forced_per_invocation = 8;
static int general_forced;

/* --stream K: K copies of the crowd's dispatch into K outputs, no barrier
   between them (independent writes), so that one dispatch's ramp-up can overlap
   the previous one's last wave, as it does in a frame that skins several
   crowds; the timestamps bracket all K. */
static uint32_t stream_k;
typedef struct stream_job { skin_job *j; gpuskin_buffer out; } stream_job;

static void stream_prep(VkCommandBuffer cmd, void *user)
{
    stream_job *s = (stream_job *)user;
    vkCmdFillBuffer(cmd, s->out.buffer, 0, s->j->chunk_bytes * stream_k, 0xFFFFFFFFu);
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT);
}

static void stream_body(VkCommandBuffer cmd, void *user)
{
    stream_job *s = (stream_job *)user;
    uint32_t k;
    for (k = 0; k < stream_k; ++k) record_skin(cmd, s->j, 0, s->j->cw->n, s->out.address + s->j->chunk_bytes * k);
}

/* j's dispatch (the caller sets the automatic kernel and count, normals out) as
   a stream of stream_k (see stream_job), where
   the crowd fits one dispatch and the K outputs fit `cap`: its rows, and the
   first, middle and last instance of the first and the last output checked. */
static void bench_stream(skin_job *j, const char *name, VkDeviceSize cap)
{
    const mesh *m = j->m;
    const uint32_t n = j->cw->n;
    const VkDeviceSize per_out = (VkDeviceSize)m->s.vertex_count * 24u;
    stream_job sj;
    stats s;
    double vps, bps, dp = 0.0, dn = 0.0;
    float *back;
    uint32_t c, k;
    char what[240], variant[96];
    if (stream_k < 2 || j->chunk < n || j->chunk_bytes * stream_k > cap) return;
    sj.j = j;
    sj.out = gpu_buffer(j->chunk_bytes * stream_k, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
    paired_ref = &ceiling_job; /* for --busy's fills; its ratio is not reported */
    s = gpu_time(stream_prep, stream_body, &sj, 0);
    paired_ref = NULL;
    s.median /= stream_k;
    s.min /= stream_k;
    s.max /= stream_k;
    vps = (double)n * (double)m->s.vertex_count / s.median;
    bps = vps * 24.0;
    back = (float *)xmalloc((size_t)per_out);
    for (k = 0; k < stream_k; k += stream_k - 1)
        for (c = 0; c < 3; ++c) {
            const uint32_t i = c == 0 ? 0 : c == 1 ? n / 2 : n - 1;
            readback(&sj.out, j->chunk_bytes * k + (VkDeviceSize)i * per_out, per_out, back);
            compare_instance(m, j->cw, i, back, 6, &dp, &dn);
        }
    free(back);
    gpu_buffer_free(&sj.out);
    snprintf(variant, sizeof variant, "%s %s stream %u x%u", m->name, name, stream_k, n);
    snprintf(what, sizeof what, "compute %s: first and last outputs equal the oracle (max |dp| %.3g, |dn| %.3g)",
             variant, dp, dn);
    check(dp <= 1e-4 * m->size && dn <= 1e-4, what);
    csv_row("skin-compute-stream", variant, (double)n * (double)m->s.vertex_count, s, vps / 1e9,
            "Gvertex-instances/s (a dispatch)");
    csv_row("skin-compute-stream-bw", variant, (double)n * (double)m->s.vertex_count, s, bps / ceiling_bps,
            "fraction of write ceiling");
    snprintf(what, sizeof what, "%s str. %u", name, stream_k);
    printf("%-13s %9u %10.3f %12.2f %10.1f %8.0f%%\n", what, n, s.median * 1e3, vps / 1e9, bps / 1e9,
           100.0 * bps / ceiling_bps);
}

/* A fill of as many 24-byte records as the rows below write for n instances (a
   vec4 and a vec2 store each, nothing computed): what a dispatch of that size
   reaches at all (launch, ramp-up, the last partial wave), beside the ceiling. */
static void same_bytes_fill(const mesh *m, uint32_t n)
{
    fill_job f = ceiling_job;
    const uint64_t records = (uint64_t)m->s.vertex_count * n;
    double bps;
    float v[6];
    stats s;
    char what[128];
    if (records * 24u > (uint64_t)ceiling_job.count * 16u) return;
    f.mode = 3;
    f.count = (uint32_t)records;
    paired_ref = &ceiling_job; /* for --busy's fills; its ratio is not reported */
    s = gpu_time(fill_prep, fill_body, &f, 0);
    paired_ref = NULL;
    readback(&f.buf, (VkDeviceSize)(f.count - 1u) * 24u, 24, v);
    snprintf(what, sizeof what, "%s x%u: the fill of the same bytes wrote its last record", m->name, n);
    check(v[0] == (float)(f.count - 1u) && v[5] == 2.0f, what);
    bps = (double)records * 24.0 / s.median;
    snprintf(what, sizeof what, "%s fill (same bytes) x%u", m->name, n);
    csv_row("skin-compute-fill", what, (double)records, s, bps / ceiling_bps, "fraction of write ceiling");
    printf("%-13s %9u %10.3f %12s %10.1f %8.0f%%\n", "fill, same B", n, s.median * 1e3, "", bps / 1e9,
           100.0 * bps / ceiling_bps);
}

static void bench_compute_mesh(mesh *m, const uint32_t *counts, int ncounts)
{
    int ci, kind;
    printf("\nCompute skinning, %s: %zu vertices, %u joints, positions + normals out (24 B/vertex; \"pos only\": 12),"
           " median of %d; \"of ceil.\": GB/s out over the run's ceiling; \"paired\": the median of each repetition's"
           " rate over that of the ceiling's fill, run just before it in the same submission\n",
           m->name, m->s.vertex_count, m->joints, reps);
    printf("%-13s %9s %10s %12s %10s %9s %7s %12s\n", "method", "instances", "ms", "Gvert-inst/s", "GB/s out", "of ceil.",
           "paired", "max err p/n");
    for (ci = 0; ci < ncounts; ++ci)
        for (kind = 0; kind < M_COUNT; ++kind) {
            const uint32_t n = counts[ci];
            if (n > max_instances) continue;
            if (kind == 0) same_bytes_fill(m, n);
            const VkDeviceSize per = (VkDeviceSize)m->s.vertex_count * 24u;
            VkDeviceSize cap = quick ? ((VkDeviceSize)64 << 20) : ((VkDeviceSize)3 << 29); /* 1.5 GiB */
            crowd cw;
            skin_job j;
            stats s;
            double vps, bps, paired_fraction, dp = 0.0, dn = 0.0;
            float *back;
            uint32_t checks[3], c, last_chunk_first, has_residual = 0, uniform = 0, i;
            int var;
            char what[160], variant[96], label[32];
            if (cap > max_alloc) cap = max_alloc;
            if (CROWD_RESIDUAL(kind) && m->clip)
                continue; /* a file's clip has no scale: no residual to show */
            crowd_make(&cw, m, n, kind);
            for (i = 0; i < n; ++i) has_residual |= cw.words[i] & GPUSKIN_METHOD_RESIDUAL_BIT;
            for (i = 0; i < n; ++i) uniform += (cw.words[i] & GPUSKIN_METHOD_UNIFORM_BIT) != 0;
            memset(&j, 0, sizeof j);
            j.cw = &cw;
            j.m = m;
            j.chunk = (uint32_t)(cap / per < n ? cap / per : n);
            j.chunk_bytes = per * j.chunk;
            j.out = gpu_buffer(j.chunk_bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT);
            /* Every crowd gets a kernel specialised for what it holds
               (gpuskin_cmd_skin: LBS, rigid DQS, DQS with the residual: that blend
               only; mixed LBS + rigid DQS: both, without the residual's); the same
               crowd is also timed with the general kernel and with 8 instances an
               invocation or --per-invocation's count (the automatic count is 1, 2
               or 4 on small dispatches, 8 or 16 on big ones), for ratios within
               this run; an LBS crowd also with positions only out (12-byte
               records). */
            for (var = 0; var < 5; ++var) {
            const int floats = var == 3 ? 3 : 6;
            if ((var == 3 && kind != M_LBS) || (var == 4 && !general_forced)) continue;
            const VkDeviceSize per_out = (VkDeviceSize)m->s.vertex_count * 4u * (VkDeviceSize)floats;
            j.kernel_flags = var == 1 || var == 4 ? GPUSKIN_KERNEL_ANY_METHOD : 0u;
            j.per_invocation = var == 2 || var == 4 ? forced_per_invocation : 0u;
            j.output_flags = var == 3 ? 0u : GPUSKIN_OUTPUT_NORMALS;
            if (var == 0) snprintf(label, sizeof label, "%s", method_name[kind]);
            if (var == 1) snprintf(label, sizeof label, "%s general", method_name[kind]);
            if (var == 2) snprintf(label, sizeof label, "%s %u/inv", method_name[kind], j.per_invocation);
            if (var == 3) snprintf(label, sizeof label, "%s pos only", method_name[kind]);
            if (var == 4) snprintf(label, sizeof label, "%s general %u/inv", method_name[kind], j.per_invocation);
            dp = dn = 0.0;
                paired_ref = &ceiling_job;
                s = gpu_time(skin_prep, skin_body, &j, 0);
                paired_ref = NULL;
                vps = (double)n * (double)m->s.vertex_count / s.median;
                bps = vps * 4.0 * floats;
                paired_fraction = paired.median * (double)n * (double)per_out / CEILING_BYTES;
                /* what stays in the output: the last chunk; check its first, middle and last instance */
                last_chunk_first = (n - 1) / j.chunk * j.chunk;
                checks[0] = last_chunk_first;
                checks[1] = last_chunk_first + (n - last_chunk_first) / 2;
                checks[2] = n - 1;
                back = (float *)xmalloc((size_t)per_out);
                for (c = 0; c < 3; ++c) {
                    readback(&j.out, (VkDeviceSize)(checks[c] - last_chunk_first) * per_out, per_out, back);
                    compare_instance(m, &cw, checks[c], back, floats, &dp, &dn);
                }
                free(back);
                snprintf(variant, sizeof variant, "%s %s x%u", m->name, label, n);
                snprintf(what, sizeof what, "compute %s equals the oracle (max |dp| %.3g, |dn| %.3g)", variant, dp, dn);
                check(dp <= 1e-4 * m->size && dn <= 1e-4, what);
                if (kind == M_DQS) {
                    snprintf(what, sizeof what, "%s: DQS palettes are rigid (no residual bit)", variant);
                    check(!has_residual || m->clip, what);
                }
                if (CROWD_RESIDUAL(kind)) {
                    snprintf(what, sizeof what, "%s: scaled palettes carry the residual bit", variant);
                    check(has_residual != 0 && uniform == 0, what);
                }
                if (kind == M_DQS_UNIFORM || kind == M_DQS_JOINT_SIZES) {
                    snprintf(what, sizeof what, "%s: uniformly scaled palettes carry the uniform bit", variant);
                    check(uniform == n, what);
                }
                csv_row("skin-compute", variant, (double)n * (double)m->s.vertex_count, s, vps / 1e9, "Gvertex-instances/s");
                csv_row("skin-compute-bw", variant, (double)n * (double)m->s.vertex_count, s, bps / ceiling_bps,
                        "fraction of write ceiling");
                csv_row("skin-compute-paired", variant, (double)n * (double)m->s.vertex_count, paired, paired_fraction,
                        "fraction of the paired fill's rate");
                printf("%-13s %9u %10.3f %12.2f %10.1f %8.0f%% %6.1f%% %6.1e/%-6.1e%s\n", label, n, s.median * 1e3,
                       vps / 1e9, bps / 1e9, 100.0 * bps / ceiling_bps, 100.0 * paired_fraction, dp, dn,
                       j.chunk < n ? " (chunked)" : "");
                if (kind == M_LBS && var == 0 && ci == ncounts - 1)
                    printf("  (CPU: gpuskin_crowd_upload of %u LBS instances: %.2f ms = %.1f ns/joint a frame, median of %d;"
                           " a slot's first upload %.2f ms)\n",
                           n, cw.upload_warm.median * 1e3, cw.upload_warm.median / ((double)n * m->joints) * 1e9, reps,
                           cw.upload_s * 1e3);
                if (kind == M_LBS && var == 0 && ci == ncounts - 1)
                    csv_row("crowd-upload", variant, (double)n * m->joints, cw.upload_warm,
                            cw.upload_warm.median / ((double)n * m->joints) * 1e9, "ns/joint");
}
            j.kernel_flags = j.per_invocation = 0u;
            j.output_flags = GPUSKIN_OUTPUT_NORMALS;
            bench_stream(&j, method_name[kind], cap);
            gpu_buffer_free(&j.out);
            crowd_free(&cw);
        }
}

/* ---- 3. the crowd draw ------------------------------------------------------------- */

typedef struct draw_job {
    crowd *cw;
    const mesh *m;
    gpuskin_pipeline *pipe;
    vks_image color, depth;
    float view_proj[16];
    int mode;                  /* 0 skinned VS, 1 posed (unskinned), 2 compute + posed */
    gpuskin_buffer posed;
    VkDeviceSize posed_bytes;
} draw_job;

static void draw_prep(VkCommandBuffer cmd, void *user)
{
    draw_job *j = (draw_job *)user;
    vks_cmd_image_barrier(cmd, &j->color, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                          VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                          VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT);
    vks_cmd_image_barrier(cmd, &j->depth, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                          VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
                          VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
    if (j->mode == 2) { /* the compute output is rewritten each repetition: poison it */
        vkCmdFillBuffer(cmd, j->posed.buffer, 0, j->posed_bytes, 0xFFFFFFFFu);
        barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_WRITE_BIT);
    }
}

static void draw_body(VkCommandBuffer cmd, void *user)
{
    draw_job *j = (draw_job *)user;
    gpuskin_draw_desc dd;
    if (j->mode == 2) {
        gpuskin_skin_dispatch_desc sd;
        memset(&sd, 0, sizeof sd);
        sd.instance_count = j->cw->n;
        sd.output = j->posed.address;
        sd.output_size = j->posed_bytes;
        sd.output_flags = GPUSKIN_OUTPUT_NORMALS;
        GSCHECK(gpuskin_cmd_skin(j->cw->c, cmd, &sd));
        barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_VERTEX_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT);
    }
    {
        static const float clear[4] = {0.1f, 0.1f, 0.12f, 1.0f};
        vks_cmd_begin_rendering(cmd, &j->color, &j->depth, clear);
    }
    memset(&dd, 0, sizeof dd);
    dd.instance_count = j->cw->n;
    dd.view_proj = j->view_proj;
    dd.flags = GPUSKIN_DRAW_TINT;
    if (j->mode != 0) {
        dd.posed_vertices = j->posed.address;
        dd.posed_output_flags = GPUSKIN_OUTPUT_NORMALS;
    }
    GSCHECK(gpuskin_cmd_draw(j->cw->c, j->pipe, cmd, &dd));
    vkCmdEndRendering(cmd);
}

/* view * projection, column-major, Vulkan clip space (y down, depth 0..1). */
static void camera(float aspect, float side_len, float size, float *out)
{
    const float fov = 0.9f, f = 1.0f / tanf(fov * 0.5f), zn = 0.05f * size, zf = 10.0f * (side_len + size);
    const float ex = 0.0f, ey = 0.45f * side_len + 1.2f * size, ez = 0.35f * side_len + 1.5f * size; /* eye */
    const float tx = 0.0f, ty = 0.4f * size, tz = -0.35f * side_len;                                   /* target */
    float fw[3] = {tx - ex, ty - ey, tz - ez}, r[3], u[3], len, view[16], proj[16];
    int i, k, c;
    len = sqrtf(fw[0] * fw[0] + fw[1] * fw[1] + fw[2] * fw[2]);
    for (i = 0; i < 3; ++i) fw[i] /= len;
    r[0] = -fw[2]; r[1] = 0.0f; r[2] = fw[0]; /* fw x up(0,1,0) */
    len = sqrtf(r[0] * r[0] + r[2] * r[2]);
    r[0] /= len; r[2] /= len;
    u[0] = r[1] * fw[2] - r[2] * fw[1]; u[1] = r[2] * fw[0] - r[0] * fw[2]; u[2] = r[0] * fw[1] - r[1] * fw[0];
    memset(view, 0, sizeof view);
    for (i = 0; i < 3; ++i) {
        view[i * 4 + 0] = r[i];
        view[i * 4 + 1] = -u[i]; /* Vulkan: y down */
        view[i * 4 + 2] = -fw[i];
    }
    view[12] = -(r[0] * ex + r[1] * ey + r[2] * ez);
    view[13] = (u[0] * ex + u[1] * ey + u[2] * ez);
    view[14] = (fw[0] * ex + fw[1] * ey + fw[2] * ez);
    view[15] = 1.0f;
    memset(proj, 0, sizeof proj);
    proj[0] = f / aspect;
    proj[5] = f;
    proj[10] = zf / (zn - zf);
    proj[11] = -1.0f;
    proj[14] = zn * zf / (zn - zf);
    for (c = 0; c < 4; ++c)
        for (i = 0; i < 4; ++i) {
            float s = 0.0f;
            for (k = 0; k < 4; ++k) s += proj[k * 4 + i] * view[c * 4 + k];
            out[c * 4 + i] = s;
        }
}

/* Pixels of an RGBA8 readback that differ from the clear colour, and from another image. */
static uint32_t *read_image(draw_job *j)
{
    uint32_t *px = (uint32_t *)xmalloc((size_t)j->color.width * j->color.height * 4);
    VkCommandBuffer cmd;
    VKCHECK(vks_begin(&vk, &cmd));
    draw_prep(cmd, j);
    draw_body(cmd, j);
    VKCHECK(vks_submit_wait(&vk, cmd));
    VKCHECK(vks_image_read_rgba8(&vk, &j->color, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                 VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, px));
    return px;
}

static void bench_draw(mesh *m, const uint32_t *counts, int ncounts, uint32_t width, uint32_t height)
{
    static const char *mode_name[3] = {"skinned VS", "posed (no skin)", "compute+posed"};
    draw_job j;
    gpuskin_pipeline_desc pd;
    int ci, mode;
    if (!have_render) {
        printf("\nCrowd draw: skipped (no dynamicRendering on this device)\n");
        return;
    }
    memset(&j, 0, sizeof j);
    j.m = m;
    memset(&pd, 0, sizeof pd);
    pd.color_format = VK_FORMAT_R8G8B8A8_UNORM;
    pd.depth_format = VK_FORMAT_D32_SFLOAT;
    pd.cull_mode = VK_CULL_MODE_NONE;
    GSCHECK(gpuskin_pipeline_create(ctx, &pd, &j.pipe));
    VKCHECK(vks_image_create(&vk, width, height, VK_FORMAT_R8G8B8A8_UNORM,
                             VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, &j.color));
    VKCHECK(vks_image_create(&vk, width, height, VK_FORMAT_D32_SFLOAT, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, &j.depth));
    printf("\nCrowd draw, %s (%zu vertices, %u triangles), %ux%u, LBS, median of %d; VS/vert = vertex-shader\n"
           "invocations / (instances x vertices), %s\n", m->name, m->s.vertex_count, m->index_count / 3, width, height,
           reps, have_stats ? "from pipeline statistics" : "n/a (no pipelineStatisticsQuery)");
    printf("%-16s %9s %10s %14s %8s %10s\n", "path", "instances", "ms", "Mtri/s", "VS/vert", "frag/pixel");
    for (ci = 0; ci < ncounts; ++ci) {
        crowd cw;
        const uint32_t n = counts[ci], side = (uint32_t)ceil(sqrt((double)n));
        uint32_t *img[3] = {NULL, NULL, NULL};
        if (n > max_instances) continue;
        crowd_make(&cw, m, n, M_LBS);
        j.cw = &cw;
        j.posed_bytes = (VkDeviceSize)n * m->s.vertex_count * 24u;
        j.posed = gpu_buffer(j.posed_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
        camera((float)width / (float)height, (float)side * m->size * 0.6f, m->size, j.view_proj);
        { /* the posed path's input: one untimed compute pass */
            VkCommandBuffer cmd;
            j.mode = 2;
            VKCHECK(vks_begin(&vk, &cmd));
            draw_prep(cmd, &j);
            draw_body(cmd, &j);
            VKCHECK(vks_submit_wait(&vk, cmd));
        }
        for (mode = 0; mode < 3; ++mode) {
            stats s;
            char variant[96];
            double vs_per_vert = 0.0, frag_per_px = 0.0;
            j.mode = mode;
            s = gpu_time(draw_prep, draw_body, &j, 1);
            if (have_stats) {
                vs_per_vert = (double)last_stats[1] / ((double)n * (double)m->s.vertex_count);
                frag_per_px = (double)last_stats[2] / ((double)width * height);
            }
            img[mode] = read_image(&j);
            snprintf(variant, sizeof variant, "%s %s x%u", m->name, mode_name[mode], n);
            csv_row("draw", variant, (double)n, s, (double)n * (m->index_count / 3) / s.median / 1e6, "Mtriangles/s");
            if (have_stats) {
                csv_row("draw-vs-per-vertex", variant, (double)n, s, vs_per_vert, "VS invocations per vertex-instance");
                csv_row("draw-ia-vertices", variant, (double)n, s, (double)last_stats[0], "IA vertices");
            }
            if (have_stats)
                printf("%-16s %9u %10.3f %14.1f %8.2f %10.2f\n", mode_name[mode], n, s.median * 1e3,
                       (double)n * (m->index_count / 3) / s.median / 1e6, vs_per_vert, frag_per_px);
            else
                printf("%-16s %9u %10.3f %14.1f %8s %10s\n", mode_name[mode], n, s.median * 1e3,
                       (double)n * (m->index_count / 3) / s.median / 1e6, "n/a", "n/a");
        }
        { /* the three paths draw the same picture (to a few pixels: float rounding) */
            const size_t np = (size_t)width * height;
            size_t p, drawn = 0, diff1 = 0, diff2 = 0;
            char what[160];
            for (p = 0; p < np; ++p) {
                drawn += img[0][p] != img[0][0] || img[0][p] != img[0][np - 1];
                diff1 += img[0][p] != img[1][p];
                diff2 += img[1][p] != img[2][p];
            }
            snprintf(what, sizeof what, "draw x%u: the crowd covers pixels (%zu of %zu)", n, drawn, np);
            check(drawn > np / 1000, what);
            snprintf(what, sizeof what, "draw x%u: skinned VS and posed path agree (%zu pixels differ)", n, diff1);
            check(diff1 <= np / 1000 + 16, what);
            snprintf(what, sizeof what, "draw x%u: compute+posed equals posed (%zu pixels differ)", n, diff2);
            check(diff2 == 0, what);
        }
        free(img[0]); free(img[1]); free(img[2]);
        gpu_buffer_free(&j.posed);
        crowd_free(&cw);
    }
    vks_image_destroy(&vk, &j.color);
    vks_image_destroy(&vk, &j.depth);
    gpuskin_pipeline_destroy(j.pipe);
}

/* ---- 4. memory ------------------------------------------------------------------- */

static void report_memory(mesh *m)
{
    crowd cw;
    uint32_t t, bar_type = 0;
    VkDeviceSize bar_heap = 0;
    crowd_make(&cw, m, 16, M_LBS);
    printf("\nMemory, as allocated by gpuskin (counting allocator), %s:\n", m->name);
    {
        const double index_bytes = (double)m->index_count * (m->s.vertex_count <= 65536 ? 2.0 : 4.0);
        printf("  mesh: %.0f bytes: %.2f B/vertex of streams (+ up to 15 B alignment a stream) + %.0f B of indices\n",
               (double)mesh_bytes, ((double)mesh_bytes - index_bytes) / (double)m->s.vertex_count, index_bytes);
    }
    printf("  crowd of 16, 2 frame slots: %.0f bytes = %.1f B per instance-joint and slot\n", (double)cw.bytes,
           (double)cw.bytes / 2.0 / (16.0 * m->joints));
    printf("  upload per frame: LBS 48 B/joint, DQS rigid 32, DQS with residual 80 (+4 B/instance method word;"
           " +4 B per instance of the capacity, the instance list, in a frame that turns an instance LBS <-> DQS)\n");
    for (t = 0; t < vk.memory.memoryTypeCount; ++t) {
        const VkMemoryPropertyFlags f = vk.memory.memoryTypes[t].propertyFlags;
        if ((f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) && (f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
            bar_type = 1;
            bar_heap = vk.memory.memoryHeaps[vk.memory.memoryTypes[t].heapIndex].size;
        }
    }
    printf("  device-local host-visible memory (palettes read without a bus crossing): %s%.0f MiB heap\n",
           bar_type ? "yes, " : "no", bar_type ? (double)bar_heap / 1048576.0 : 0.0);
    if (csv) {
        stats z;
        memset(&z, 0, sizeof z);
        csv_row("memory", "mesh bytes/vertex incl. indices", (double)m->s.vertex_count, z,
                (double)mesh_bytes / (double)m->s.vertex_count, "B");
        csv_row("memory", "crowd bytes per instance-joint and slot", 16.0 * m->joints, z,
                (double)cw.bytes / 2.0 / (16.0 * m->joints), "B");
    }
    crowd_free(&cw);
}

int main(int argc, char **argv)
{
    const char *csv_path = NULL, *model_path = "tests/assets/CesiumMan.glb";
    uint32_t full_counts[8] = {1, 64, 1024, 16384};
    const uint32_t quick_counts[2] = {1, 3};
    int nfull = 4;
    const uint32_t draw_full[3] = {64, 1024, 16384}, draw_quick[1] = {3};
    mesh syn, cesium;
    int i, have_cesium, compute_only = 0;
    uint32_t sets = 1;
    for (i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv_path = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--model") && i + 1 < argc) model_path = argv[++i];
        else if (!strcmp(argv[i], "--max-instances") && i + 1 < argc) max_instances = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--compute-only")) compute_only = 1;
        else if (!strcmp(argv[i], "--scattered-joints")) scattered_joints = 1;
        else if (!strcmp(argv[i], "--mixed-run") && i + 1 < argc && atoi(argv[i + 1]) >= 1)
            mixed_run = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--sets") && i + 1 < argc && (atoi(argv[i + 1]) == 1 || atoi(argv[i + 1]) == 2))
            sets = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--busy") && i + 1 < argc && atoi(argv[i + 1]) >= 0 && atoi(argv[i + 1]) <= 64)
            busy_fills = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--per-invocation") && i + 1 < argc && atoi(argv[i + 1]) >= 1 &&
                 atoi(argv[i + 1]) <= 16 && !(atoi(argv[i + 1]) & (atoi(argv[i + 1]) - 1)))
            forced_per_invocation = (uint32_t)atoi(argv[++i]), general_forced = 1;
        else if (!strcmp(argv[i], "--stream") && i + 1 < argc && atoi(argv[i + 1]) >= 2 && atoi(argv[i + 1]) <= 16)
            stream_k = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--counts") && i + 1 < argc) {
            const char *c = argv[++i];
            nfull = 0;
            while (*c && nfull < 8) {
                char *end;
                const long v = strtol(c, &end, 10);
                if (end == c || v < 1 || v > 1000000) break;
                full_counts[nfull++] = (uint32_t)v;
                c = *end == ',' ? end + 1 : end;
            }
            if (nfull == 0 || *c) {
                fprintf(stderr, "bench_gpu: --counts takes 1-8 instance counts (1-1000000), comma-separated\n");
                return 2;
            }
        } else {
            fprintf(stderr,
                    "usage: %s [--quick] [--csv PATH] [--reps N] [--model PATH.glb] [--max-instances N] [--compute-only]"
                    " [--sets 1|2] [--mixed-run N] [--scattered-joints] [--counts N,N,...]"
                    " [--per-invocation 1|2|4|8|16] [--busy N] [--stream 2-16]\n",
                    argv[0]);
            return 2;
        }
    }
    t_start = now_s();
    if (quick) reps = 3;
    if (reps < 1) reps = 1;
    if (reps > 256) reps = 256;
    if (device_create() != VK_SUCCESS) {
        printf("bench_gpu: no usable Vulkan device\n0 passed, 1 failed\n");
        return 1;
    }
    printf("bench_gpu: %s (Vulkan %u.%u, driver 0x%x), timestamp period %.3g ns, pipeline statistics %s%s\n",
           vk.properties.deviceName, VK_API_VERSION_MAJOR(vk.properties.apiVersion),
           VK_API_VERSION_MINOR(vk.properties.apiVersion), vk.properties.driverVersion, ts_period_ns,
           have_stats ? "yes" : "no", quick ? " (quick: correctness only)" : "");
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "bench_gpu: cannot write %s\n", csv_path);
            return 2;
        }
        fprintf(csv, "# %s, Vulkan %u.%u, driver 0x%x\n", vk.properties.deviceName,
                VK_API_VERSION_MAJOR(vk.properties.apiVersion), VK_API_VERSION_MINOR(vk.properties.apiVersion),
                vk.properties.driverVersion);
        {
            struct timespec now;
            char when[32];
            clock_gettime(CLOCK_REALTIME, &now);
            strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", gmtime(&now.tv_sec));
            fprintf(csv, "# started %s.%03ld UTC\n", when, now.tv_nsec / 1000000L);
        }
        fprintf(csv, "group,variant,size,samples,median_s,min_s,max_s,value,unit,t_s\n");
    }
    context_create();
    query_pools_create();

    bench_ceiling();

    if (quick) mesh_synthetic(&syn, 8, 12, 8, sets);
    else mesh_synthetic(&syn, 250, 200, 64, sets); /* 50,000 vertices */
    mesh_upload(&syn);
    report_memory(&syn);
    bench_compute_mesh(&syn, quick ? quick_counts : full_counts, quick ? 2 : nfull);

    have_cesium = mesh_load(&cesium, model_path);
    check(have_cesium, "CesiumMan loaded");
    if (have_cesium) {
        mesh_upload(&cesium);
        report_memory(&cesium);
        bench_compute_mesh(&cesium, quick ? quick_counts : full_counts, quick ? 2 : nfull);
    }
    recheck_ceiling();
    if (have_cesium && !compute_only) {
        bench_draw(&cesium, quick ? draw_quick : draw_full, quick ? 1 : 3, quick ? 96 : 1920, quick ? 64 : 1080);
        /* The same crowd with the triangles reordered for the post-transform cache by
           Debian's meshoptimizer: what a host can do once at load time. */
        {
            uint32_t *reordered = (uint32_t *)malloc(sizeof(uint32_t) * cesium.index_count);
            check(reordered != NULL, "index buffer allocated");
            if (reordered) {
                meshopt_optimizeVertexCache(reordered, cesium.indices, cesium.index_count, cesium.s.vertex_count);
                gpuskin_mesh_destroy(cesium.gpu);
                cesium.gpu = NULL;
                cesium.owned[0] = reordered;
                cesium.indices = reordered;
                cesium.name = "CesiumMan (indices reordered by meshopt_optimizeVertexCache)";
                mesh_upload(&cesium);
                bench_draw(&cesium, quick ? draw_quick : draw_full, quick ? 1 : 2, quick ? 96 : 1920, quick ? 64 : 1080);
            }
        }
        mesh_free(&cesium);
    } else if (!compute_only) {
        bench_draw(&syn, quick ? draw_quick : draw_full, 1, quick ? 96 : 1920, quick ? 64 : 1080);
    }
    if (have_cesium && compute_only) mesh_free(&cesium);
    mesh_free(&syn);

    vkDestroyPipeline(vk.device, fill_pipeline, NULL);
    vkDestroyPipelineLayout(vk.device, fill_layout, NULL);
    vkDestroyQueryPool(vk.device, ts_pool, NULL);
    if (stats_pool != VK_NULL_HANDLE) vkDestroyQueryPool(vk.device, stats_pool, NULL);
    gpuskin_context_destroy(ctx);
    gpuskin_context_destroy(base_ctx);
    vks_destroy(&vk);
    if (csv) fclose(csv);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
