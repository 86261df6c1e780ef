/* bench/kernel_stats.c - what the driver's compiler made of gpuskin's compute kernel.

   usage: kernel_stats   (the device vk_setup.h's rules pick: GPUSKIN_DEVICE=<name part>,
                          else the first discrete GPU)

   Builds skin.comp's pipelines (1 and 2 influence sets x general / LBS-only /
   rigid-DQS-only / LBS-or-rigid-DQS / residual-DQS-only x 4, 8 or 16 instances an
   invocation, as gpuskin_context_create does) with
   VK_KHR_pipeline_executable_properties' statistics captured, and prints every
   statistic the driver reports (register count, spills, instruction count:
   whatever it offers). Occupancy follows from registers a thread, so this tells
   what benchmark timings can only hint at. A driver without the extension says so
   and the program exits 0 (lavapipe, for one). Diagnostic only: not part of the tests. */
#define _POSIX_C_SOURCE 200809L
#include <volk.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuskin_shaders.h" /* the SPIR-V blobs only */
#define VK_SETUP_IMPLEMENTATION
#include "examples/common/vk_setup.h"

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
    vks_options o;
    vks_context vk;
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fexe;
    VkShaderModuleCreateInfo smci;
    VkShaderModule module;
    VkPushConstantRange range;
    VkPipelineLayoutCreateInfo lci;
    VkPipelineLayout layout;
    uint32_t sets, kernel, per;
    static const char *const kernel_name[9] = {"general",
                                               "LBS only",
                                               "rigid DQS only",
                                               "LBS or rigid DQS",
                                               "DQS with residual only",
                                               "DQS with uniform scale only",
                                               "DQS rigid or one size an instance",
                                               "DQS with triangular residual only",
                                               "DQS with symmetric residual only"};

    memset(&fexe, 0, sizeof fexe);
    fexe.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
    fexe.pipelineExecutableInfo = VK_TRUE;
    memset(&o, 0, sizeof o);
    o.quiet = 1;
    o.app_name = "gpuskin kernel_stats";
    o.device_extension = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
    o.device_extension_features = &fexe;
    if (vks_create(&vk, &o) != VK_SUCCESS) {
        printf("kernel_stats: no usable Vulkan device\n");
        return 1;
    }
    printf("kernel_stats: %s (driver 0x%x)\n", vk.properties.deviceName, vk.properties.driverVersion);
    if (!vk.device_extension_enabled) {
        printf("kernel_stats: %s not offered by this driver: nothing to report\n", o.device_extension);
        vks_destroy(&vk);
        return 0;
    }
    memset(&smci, 0, sizeof smci);
    smci.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    smci.codeSize = gpuskin_spv_skin_comp_size;
    smci.pCode = gpuskin_spv_skin_comp;
    range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    range.offset = 0;
    range.size = 56; /* gpuskin__vk_skin_push (gpuskin.h asserts its size) */
    memset(&lci, 0, sizeof lci);
    lci.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    lci.pushConstantRangeCount = 1;
    lci.pPushConstantRanges = &range;
    if (vkCreateShaderModule(vk.device, &smci, NULL, &module) != VK_SUCCESS) {
        printf("kernel_stats: shader module creation failed\n");
        vks_destroy(&vk);
        return 1;
    }
    if (vkCreatePipelineLayout(vk.device, &lci, NULL, &layout) != VK_SUCCESS) {
        printf("kernel_stats: pipeline layout creation failed\n");
        vkDestroyShaderModule(vk.device, module, NULL);
        vks_destroy(&vk);
        return 1;
    }
    for (sets = 1; sets <= 2; ++sets)
        for (kernel = 0; kernel < 9; ++kernel)
            for (per = 4; per <= 16; per *= 2) {
                /* constant_id 0: gpuskin_SETS, 1: gpuskin_ONLY_METHOD, 2: gpuskin_INSTANCES_PER_INVOCATION */
                const uint32_t values[3] = {sets, kernel, per};
                VkSpecializationMapEntry entries[3];
                VkSpecializationInfo spec;
                VkComputePipelineCreateInfo ci;
                VkPipeline pipeline;
                char what[96];
                uint32_t e;
                for (e = 0; e < 3; ++e) {
                    entries[e].constantID = e;
                    entries[e].offset = e * (uint32_t)sizeof(uint32_t);
                    entries[e].size = sizeof(uint32_t);
                }
                spec.mapEntryCount = 3;
                spec.pMapEntries = entries;
                spec.dataSize = sizeof values;
                spec.pData = values;
                memset(&ci, 0, sizeof ci);
                ci.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
                ci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
                ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
                ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
                ci.stage.module = module;
                ci.stage.pName = "main";
                ci.stage.pSpecializationInfo = &spec;
                ci.layout = layout;
                snprintf(what, sizeof what, "skin.comp, %u influence set%s, %s, %u instances/invocation", sets,
                         sets == 1 ? "" : "s", kernel_name[kernel], per);
                if (vkCreateComputePipelines(vk.device, VK_NULL_HANDLE, 1, &ci, NULL, &pipeline) != VK_SUCCESS) {
                    printf("kernel_stats: %s: pipeline creation failed\n", what);
                    continue;
                }
                print_statistics(vk.device, pipeline, what);
                vkDestroyPipeline(vk.device, pipeline, NULL);
            }
    vkDestroyPipelineLayout(vk.device, layout, NULL);
    vkDestroyShaderModule(vk.device, module, NULL);
    vks_destroy(&vk);
    return 0;
}
