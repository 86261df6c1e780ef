/* bench/kernel_stats.c - what the driver's compiler made of gpuskin's compute kernel.

   usage: kernel_stats            (GPUSKIN_DEVICE=<name part> picks a device)

   Builds skin.comp's pipelines (1 and 2 influence sets, as gpuskin_context_create
   does) with VK_KHR_pipeline_executable_properties' statistics captured, and prints
   every statistic the driver reports (register count, spills, instruction count:
   whatever it offers). Occupancy follows from registers a thread, so this tells
   what benchmark timings can only hint at. A driver without the extension says so
   and the program exits 0 (lavapipe, for one). Diagnostic only: not part of the tests. */
#include <volk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuskin_shaders.h" /* the SPIR-V blobs only */

static int has_extension(VkPhysicalDevice pd, const char *name)
{
    uint32_t n = 0, i;
    VkExtensionProperties *e;
    int found = 0;
    vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL);
    e = (VkExtensionProperties *)calloc(n ? n : 1, sizeof *e);
    if (!e) return 0;
    vkEnumerateDeviceExtensionProperties(pd, NULL, &n, e);
    for (i = 0; i < n; ++i) found |= strcmp(e[i].extensionName, name) == 0;
    free(e);
    return found;
}

static void print_statistics(VkDevice dev, VkPipeline pipeline, const char *what)
{
    VkPipelineInfoKHR pi;
    VkPipelineExecutablePropertiesKHR props[8];
    uint32_t n = 8, i, k;
    memset(&pi, 0, sizeof pi);
    pi.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR;
    pi.pipeline = pipeline;
    for (i = 0; i < 8; ++i) {
        memset(&props[i], 0, sizeof props[i]);
        props[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
    }
    if (vkGetPipelineExecutablePropertiesKHR(dev, &pi, &n, props) < 0) {
        printf("%s: vkGetPipelineExecutablePropertiesKHR failed\n", what);
        return;
    }
    for (i = 0; i < n; ++i) {
        VkPipelineExecutableInfoKHR ei;
        VkPipelineExecutableStatisticKHR st[64];
        uint32_t m = 64;
        memset(&ei, 0, sizeof ei);
        ei.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR;
        ei.pipeline = pipeline;
        ei.executableIndex = i;
        for (k = 0; k < 64; ++k) {
            memset(&st[k], 0, sizeof st[k]);
            st[k].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
        }
        printf("%s, executable %u: %s (subgroup size %u)\n", what, i, props[i].name, props[i].subgroupSize);
        if (vkGetPipelineExecutableStatisticsKHR(dev, &ei, &m, st) < 0) continue;
        for (k = 0; k < m; ++k) {
            printf("  %-32s ", st[k].name);
            switch (st[k].format) {
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: printf("%s", st[k].value.b32 ? "true" : "false"); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: printf("%lld", (long long)st[k].value.i64); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: printf("%llu", (unsigned long long)st[k].value.u64); break;
            default: printf("%g", st[k].value.f64); break;
            }
            printf("  (%s)\n", st[k].description);
        }
    }
}

int main(void)
{
    VkApplicationInfo app;
    VkInstanceCreateInfo ici;
    VkInstance instance;
    VkPhysicalDevice pds[16], pd = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties p;
    VkPhysicalDeviceVulkan12Features f12;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fexe;
    VkPhysicalDeviceFeatures2 f2;
    VkDeviceQueueCreateInfo qci;
    VkDeviceCreateInfo dci;
    VkDevice dev;
    VkShaderModuleCreateInfo smci;
    VkShaderModule module;
    VkPushConstantRange range;
    VkPipelineLayoutCreateInfo lci;
    VkPipelineLayout layout;
    const char *want = getenv("GPUSKIN_DEVICE"), *ext = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    const float priority = 1.0f;
    uint32_t n = 16, i, sets;

    if (volkInitialize() != VK_SUCCESS) {
        printf("kernel_stats: no Vulkan loader\n");
        return 1;
    }
    memset(&app, 0, sizeof app);
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "gpuskin kernel_stats";
    app.apiVersion = VK_API_VERSION_1_2;
    memset(&ici, 0, sizeof ici);
    ici.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ici.pApplicationInfo = &app;
    if (vkCreateInstance(&ici, NULL, &instance) != VK_SUCCESS) {
        printf("kernel_stats: vkCreateInstance failed\n");
        return 1;
    }
    volkLoadInstance(instance);
    if (vkEnumeratePhysicalDevices(instance, &n, pds) < 0 || n == 0) {
        printf("kernel_stats: no Vulkan device\n");
        return 1;
    }
    for (i = 0; i < n && pd == VK_NULL_HANDLE; ++i) { /* as vk_setup.h: a named one, else the first discrete */
        vkGetPhysicalDeviceProperties(pds[i], &p);
        if (want ? strstr(p.deviceName, want) != NULL : p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) pd = pds[i];
    }
    if (pd == VK_NULL_HANDLE) pd = pds[0];
    vkGetPhysicalDeviceProperties(pd, &p);
    printf("kernel_stats: %s (driver 0x%x)\n", p.deviceName, p.driverVersion);
    if (!has_extension(pd, ext)) {
        printf("kernel_stats: %s not offered by this driver: nothing to report\n", ext);
        vkDestroyInstance(instance, NULL);
        return 0;
    }
    memset(&fexe, 0, sizeof fexe);
    fexe.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
    fexe.pipelineExecutableInfo = VK_TRUE;
    memset(&f12, 0, sizeof f12);
    f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    f12.bufferDeviceAddress = VK_TRUE; /* the kernel reads through device addresses */
    f12.pNext = &fexe;
    memset(&f2, 0, sizeof f2);
    f2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    f2.pNext = &f12;
    memset(&qci, 0, sizeof qci);
    qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qci.queueFamilyIndex = 0;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    memset(&dci, 0, sizeof dci);
    dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    dci.pNext = &f2;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = 1;
    dci.ppEnabledExtensionNames = &ext;
    if (vkCreateDevice(pd, &dci, NULL, &dev) != VK_SUCCESS) {
        printf("kernel_stats: vkCreateDevice failed\n");
        return 1;
    }
    volkLoadDevice(dev);
    memset(&smci, 0, sizeof smci);
    smci.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    smci.codeSize = gpuskin_spv_skin_comp_size;
    smci.pCode = gpuskin_spv_skin_comp;
    range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    range.offset = 0;
    range.size = 32; /* gpuskin__vk_skin_push */
    memset(&lci, 0, sizeof lci);
    lci.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    lci.pushConstantRangeCount = 1;
    lci.pPushConstantRanges = &range;
    if (vkCreateShaderModule(dev, &smci, NULL, &module) != VK_SUCCESS ||
        vkCreatePipelineLayout(dev, &lci, NULL, &layout) != VK_SUCCESS) {
        printf("kernel_stats: module or layout creation failed\n");
        return 1;
    }
    for (sets = 1; sets <= 2; ++sets) {
        VkSpecializationMapEntry entry = {0, 0, sizeof(uint32_t)};
        VkSpecializationInfo spec;
        VkComputePipelineCreateInfo ci;
        VkPipeline pipeline;
        char what[64];
        spec.mapEntryCount = 1;
        spec.pMapEntries = &entry;
        spec.dataSize = sizeof sets;
        spec.pData = &sets;
        memset(&ci, 0, sizeof ci);
        ci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
        ci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
        ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
        ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        ci.stage.module = module;
        ci.stage.pName = "main";
        ci.stage.pSpecializationInfo = &spec;
        ci.layout = layout;
        if (vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &ci, NULL, &pipeline) != VK_SUCCESS) {
            printf("kernel_stats: pipeline for %u influence set(s) failed\n", sets);
            continue;
        }
        snprintf(what, sizeof what, "skin.comp, %u influence set%s", sets, sets == 1 ? "" : "s");
        print_statistics(dev, pipeline, what);
        vkDestroyPipeline(dev, pipeline, NULL);
    }
    vkDestroyPipelineLayout(dev, layout, NULL);
    vkDestroyShaderModule(dev, module, NULL);
    vkDestroyDevice(dev, NULL);
    vkDestroyInstance(instance, NULL);
    return 0;
}
