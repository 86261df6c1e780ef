/* vk_setup.h - the Vulkan boilerplate gpuskin's tests, examples, CLI and
   benchmarks share: a device, a queue, one-shot submits and offscreen images.
   Not part of gpuskin: gpuskin takes the host's device, this is one such host.

   In exactly one file:
       #define VK_SETUP_IMPLEMENTATION
       #include "vk_setup.h"
   Link volk (/usr/include/volk.c compiled in) and -ldl.

       vks_context vk;                       // must not move while alive
       vks_options o = {0}; o.validation = 1;
       if (vks_create(&vk, &o) != VK_SUCCESS) ...
       ...
       vks_destroy(&vk);
       if (vk.messages) ...                  // every validation message, leaks included

   Validation (o.validation) turns on VK_LAYER_KHRONOS_validation with
   synchronization validation. A debug messenger prints every warning and error
   and counts it in vk.messages; it is also chained into instance creation, so
   messages from vkCreateInstance/vkDestroyInstance count too, and the device is
   destroyed while it listens, so a leaked object is a message.

   Device choice: GPUSKIN_DEVICE=<substring of the name> in the environment, else
   the first discrete GPU, else the first integrated one, else whatever is left
   (lavapipe). The device must be Vulkan 1.2 with bufferDeviceAddress and one
   queue family that does graphics and compute; dynamicRendering and
   synchronization2 are enabled when present (vk.features13 says which).

   Device functions are volk's globals: one vks_context at a time per process. */
#ifndef VK_SETUP_H
#define VK_SETUP_H

#include <stddef.h>
#include <stdint.h>
#include <volk.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vks_options {
    int validation;            /* Khronos validation + synchronization validation; fails if absent */
    int quiet;                 /* count messages without printing them */
    const char *app_name;      /* NULL = "gpuskin" */
    /* One more device extension, enabled when the device offers it (NULL: none), and
       its feature struct (NULL: none), chained into the enabled features then. */
    const char *device_extension;
    void *device_extension_features;
} vks_options;

typedef struct vks_context {
    VkInstance instance;
    VkDebugUtilsMessengerEXT messenger;
    VkPhysicalDevice physical_device;
    VkPhysicalDeviceProperties properties;
    VkPhysicalDeviceMemoryProperties memory;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    VkCommandPool pool;
    /* What was enabled on the device, to hand to gpuskin_context_desc. */
    VkPhysicalDeviceVulkan12Features features12;
    VkPhysicalDeviceVulkan13Features features13;
    int validation;
    int quiet;
    unsigned messages;      /* warnings + errors reported by the layers, ever */
    unsigned errors;
    unsigned sync_hazards;  /* of which synchronization validation's SYNC-HAZARD-* */
    /* A test provoking a message on purpose sets `expect` (a substring of the
       message or its id): matching messages are counted in `expected` instead,
       silently. */
    const char *expect;
    unsigned expected;
    int device_extension_enabled; /* vks_options.device_extension was offered and enabled */
} vks_context;

/* Everything or nothing: on failure every object made so far is destroyed. */
VkResult vks_create(vks_context *vk, const vks_options *options);
void vks_destroy(vks_context *vk);

/* A primary command buffer from vk->pool, begun for one submission. */
VkResult vks_begin(vks_context *vk, VkCommandBuffer *out);
/* Ends, submits, waits on a fence and frees cmd (also on failure). */
VkResult vks_submit_wait(vks_context *vk, VkCommandBuffer cmd);

/* Host-visible, coherent, mapped buffer (for readbacks and uploads of tests). */
typedef struct vks_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped;
} vks_buffer;
VkResult vks_buffer_create(vks_context *vk, VkDeviceSize size, VkBufferUsageFlags usage, vks_buffer *out);
void vks_buffer_destroy(vks_context *vk, vks_buffer *b);

/* A 2D offscreen image, device-local, with a view (colour or depth by format). */
typedef struct vks_image {
    VkImage image;
    VkDeviceMemory memory;
    VkImageView view;
    VkFormat format;
    VkImageAspectFlags aspect;
    uint32_t width, height;
} vks_image;
VkResult vks_image_create(vks_context *vk, uint32_t width, uint32_t height, VkFormat format,
                          VkImageUsageFlags usage, vks_image *out);
void vks_image_destroy(vks_context *vk, vks_image *img);

/* Copies a 4-byte-per-pixel colour image (e.g. R8G8B8A8_UNORM) into out
   (width*height*4 bytes, rows top to bottom). The image must be in `layout`,
   last written by `stage`/`access` (e.g. COLOR_ATTACHMENT_OUTPUT /
   COLOR_ATTACHMENT_WRITE); it is left in TRANSFER_SRC_OPTIMAL. Waits. */
VkResult vks_image_read_rgba8(vks_context *vk, const vks_image *img, VkImageLayout layout,
                              VkPipelineStageFlags stage, VkAccessFlags access, void *out);

/* Image layout transition for one whole image (sync1 barrier). */
void vks_cmd_image_barrier(VkCommandBuffer cmd, const vks_image *img, VkImageLayout from, VkImageLayout to,
                           VkPipelineStageFlags src_stage, VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                           VkAccessFlags dst_access);

/* Begins dynamic rendering into `color` (cleared to clear_rgba, stored) and `depth`
   (cleared to 1, not stored; NULL = none), both already in their attachment
   layouts, and sets a viewport and scissor covering `color`. Falls back to
   vkCmdBeginRenderingKHR where the device has only the extension. */
void vks_cmd_begin_rendering(VkCommandBuffer cmd, const vks_image *color, const vks_image *depth,
                             const float clear_rgba[4]);

uint32_t vks_find_memory(const vks_context *vk, uint32_t type_bits, VkMemoryPropertyFlags want);

#ifdef __cplusplus
}
#endif
#endif /* VK_SETUP_H */

#ifdef VK_SETUP_IMPLEMENTATION
#ifndef VK_SETUP_IMPLEMENTATION_DONE
#define VK_SETUP_IMPLEMENTATION_DONE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

static VKAPI_ATTR VkBool32 VKAPI_CALL vks__on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                      VkDebugUtilsMessageTypeFlagsEXT types,
                                                      const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    vks_context *vk = (vks_context *)user;
    const char *text = data && data->pMessage ? data->pMessage : "(no text)";
    const char *id = data && data->pMessageIdName ? data->pMessageIdName : "";
    (void)types;
    if (vk->expect && (strstr(text, vk->expect) || strstr(id, vk->expect))) {
        vk->expected++;
        return VK_FALSE;
    }
    vk->messages++;
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) vk->errors++;
    if (strncmp(id, "SYNC-HAZARD", 11) == 0) vk->sync_hazards++;
    if (!vk->quiet)
        fprintf(stderr, "[vulkan %s]%s%s%s %s\n",
                (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning",
                *id && !strstr(text, id) ? " (" : "", *id && !strstr(text, id) ? id : "",
                *id && !strstr(text, id) ? ")" : "", text);
    return VK_FALSE;
}

static void vks__messenger_info(vks_context *vk, VkDebugUtilsMessengerCreateInfoEXT *ci)
{
    memset(ci, 0, sizeof *ci);
    ci->sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    ci->messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    ci->messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                      VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    ci->pfnUserCallback = vks__on_message;
    ci->pUserData = vk;
}

static int vks__has_layer(const char *name)
{
    VkLayerProperties *props;
    uint32_t n = 0, i;
    int found = 0;
    if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS || n == 0) return 0;
    props = (VkLayerProperties *)malloc(sizeof *props * n);
    if (!props) return 0;
    if (vkEnumerateInstanceLayerProperties(&n, props) >= VK_SUCCESS)
        for (i = 0; i < n && !found; ++i) found = strcmp(props[i].layerName, name) == 0;
    free(props);
    return found;
}

static int vks__has_device_extension(VkPhysicalDevice pd, const char *name)
{
    VkExtensionProperties *props;
    uint32_t n = 0, i;
    int found = 0;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL) != VK_SUCCESS || n == 0) return 0;
    props = (VkExtensionProperties *)malloc(sizeof *props * n);
    if (!props) return 0;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &n, props) >= VK_SUCCESS)
        for (i = 0; i < n && !found; ++i) found = strcmp(props[i].extensionName, name) == 0;
    free(props);
    return found;
}

/* The graphics+compute family of pd, or UINT32_MAX. */
static uint32_t vks__queue_family(VkPhysicalDevice pd)
{
    VkQueueFamilyProperties props[64];
    uint32_t n = 64, i;
    const VkQueueFlags want = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, props);
    for (i = 0; i < n; ++i)
        if ((props[i].queueFlags & want) == want) return i;
    return UINT32_MAX;
}

/* 3 = discrete, 2 = integrated, 1 = anything else usable, 0 = unusable. */
static int vks__rank(VkPhysicalDevice pd)
{
    VkPhysicalDeviceProperties p;
    VkPhysicalDeviceVulkan12Features f12;
    VkPhysicalDeviceFeatures2 f;
    vkGetPhysicalDeviceProperties(pd, &p);
    if (VK_API_VERSION_MINOR(p.apiVersion) < 2 && VK_API_VERSION_MAJOR(p.apiVersion) == 1) return 0;
    if (vks__queue_family(pd) == UINT32_MAX) return 0;
    memset(&f12, 0, sizeof f12);
    f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    memset(&f, 0, sizeof f);
    f.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    f.pNext = &f12;
    vkGetPhysicalDeviceFeatures2(pd, &f);
    if (!f12.bufferDeviceAddress) return 0;
    if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) return 3;
    if (p.deviceType == VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU) return 2;
    return 1;
}

static VkResult vks__pick_device(vks_context *vk)
{
    VkPhysicalDevice devices[32];
    uint32_t n = 32, i;
    const char *want = getenv("GPUSKIN_DEVICE");
    int best = 0;
    VkResult vr = vkEnumeratePhysicalDevices(vk->instance, &n, devices);
    if (vr < 0) return vr;
    for (i = 0; i < n; ++i) {
        VkPhysicalDeviceProperties p;
        int rank = vks__rank(devices[i]);
        vkGetPhysicalDeviceProperties(devices[i], &p);
        if (want && *want) {
            if (rank && strstr(p.deviceName, want)) {
                vk->physical_device = devices[i];
                return VK_SUCCESS;
            }
        } else if (rank > best) {
            best = rank;
            vk->physical_device = devices[i];
        }
    }
    if (vk->physical_device == VK_NULL_HANDLE) {
        fprintf(stderr, "vk_setup: no Vulkan 1.2 device with bufferDeviceAddress%s%s\n",
                want && *want ? " matching GPUSKIN_DEVICE=" : "", want && *want ? want : "");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    return VK_SUCCESS;
}

static VkResult vks__create_instance(vks_context *vk, const vks_options *o)
{
    const char *layers[1] = {"VK_LAYER_KHRONOS_validation"};
    const char *extensions[2];
    uint32_t extension_count = 0, version = VK_API_VERSION_1_2;
    VkValidationFeatureEnableEXT enables[1] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features;
    VkDebugUtilsMessengerCreateInfoEXT messenger;
    VkApplicationInfo app;
    VkInstanceCreateInfo ci;
    VkResult vr;

    if (vkEnumerateInstanceVersion) {
        uint32_t loader = 0;
        if (vkEnumerateInstanceVersion(&loader) == VK_SUCCESS && loader >= VK_API_VERSION_1_3)
            version = VK_API_VERSION_1_3;
    }
    memset(&app, 0, sizeof app);
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = o->app_name ? o->app_name : "gpuskin";
    app.pEngineName = "gpuskin";
    app.apiVersion = version;

    memset(&ci, 0, sizeof ci);
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ci.pApplicationInfo = &app;
    if (o->validation) {
        if (!vks__has_layer(layers[0])) {
            fprintf(stderr, "vk_setup: validation requested but %s is not installed\n", layers[0]);
            return VK_ERROR_LAYER_NOT_PRESENT;
        }
        extensions[extension_count++] = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
        extensions[extension_count++] = VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME;
        vks__messenger_info(vk, &messenger);
        memset(&features, 0, sizeof features);
        features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
        features.pNext = &messenger;
        features.enabledValidationFeatureCount = 1;
        features.pEnabledValidationFeatures = enables;
        ci.pNext = &features;
        ci.enabledLayerCount = 1;
        ci.ppEnabledLayerNames = layers;
        ci.enabledExtensionCount = extension_count;
        ci.ppEnabledExtensionNames = extensions;
    }
    vr = vkCreateInstance(&ci, NULL, &vk->instance);
    if (vr != VK_SUCCESS) {
        vk->instance = VK_NULL_HANDLE;
        return vr;
    }
    volkLoadInstanceOnly(vk->instance);
    if (o->validation) {
        vr = vkCreateDebugUtilsMessengerEXT(vk->instance, &messenger, NULL, &vk->messenger);
        if (vr != VK_SUCCESS) vk->messenger = VK_NULL_HANDLE;
    }
    return vr;
}

static VkResult vks__create_device(vks_context *vk, const vks_options *options)
{
    const float priority = 1.0f;
    const char *extensions[3];
    uint32_t extension_count = 0;
    VkPhysicalDeviceVulkan13Features s13;
    VkPhysicalDeviceVulkan12Features s12;
    VkPhysicalDeviceFeatures2 supported;
    VkPhysicalDeviceDynamicRenderingFeatures dr;
    VkPhysicalDeviceSynchronization2Features sync2;
    VkPhysicalDeviceFeatures2 enabled;
    VkDeviceQueueCreateInfo qci;
    VkDeviceCreateInfo ci;
    VkCommandPoolCreateInfo pci;
    int v13 = VK_API_VERSION_MINOR(vk->properties.apiVersion) >= 3;
    VkResult vr;

    memset(&s13, 0, sizeof s13);
    s13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    memset(&s12, 0, sizeof s12);
    s12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    s12.pNext = v13 ? &s13 : NULL;
    memset(&supported, 0, sizeof supported);
    supported.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    supported.pNext = &s12;
    vkGetPhysicalDeviceFeatures2(vk->physical_device, &supported);

    memset(&vk->features12, 0, sizeof vk->features12);
    vk->features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
    vk->features12.bufferDeviceAddress = VK_TRUE;
    memset(&vk->features13, 0, sizeof vk->features13);
    vk->features13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
    memset(&enabled, 0, sizeof enabled);
    enabled.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    enabled.pNext = &vk->features12;
    if (v13) {
        vk->features13.dynamicRendering = s13.dynamicRendering;
        vk->features13.synchronization2 = s13.synchronization2;
        vk->features12.pNext = &vk->features13;
    } else {
        /* A 1.2 device: the same two features through their extensions. */
        memset(&dr, 0, sizeof dr);
        dr.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES;
        memset(&sync2, 0, sizeof sync2);
        sync2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES;
        if (vks__has_device_extension(vk->physical_device, VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME)) {
            extensions[extension_count++] = VK_KHR_DYNAMIC_RENDERING_EXTENSION_NAME;
            dr.dynamicRendering = VK_TRUE;
            dr.pNext = vk->features12.pNext;
            vk->features12.pNext = &dr;
            vk->features13.dynamicRendering = VK_TRUE;
        }
        if (vks__has_device_extension(vk->physical_device, VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME)) {
            extensions[extension_count++] = VK_KHR_SYNCHRONIZATION_2_EXTENSION_NAME;
            sync2.synchronization2 = VK_TRUE;
            sync2.pNext = vk->features12.pNext;
            vk->features12.pNext = &sync2;
            vk->features13.synchronization2 = VK_TRUE;
        }
    }

    if (options->device_extension && vks__has_device_extension(vk->physical_device, options->device_extension)) {
        extensions[extension_count++] = options->device_extension;
        if (options->device_extension_features) {
            VkBaseOutStructure *f = (VkBaseOutStructure *)options->device_extension_features;
            f->pNext = (VkBaseOutStructure *)enabled.pNext;
            enabled.pNext = f;
        }
        vk->device_extension_enabled = 1;
    }

    memset(&qci, 0, sizeof qci);
    qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qci.queueFamilyIndex = vk->queue_family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    memset(&ci, 0, sizeof ci);
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    ci.pNext = &enabled;
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &qci;
    ci.enabledExtensionCount = extension_count;
    ci.ppEnabledExtensionNames = extension_count ? extensions : NULL;
    vr = vkCreateDevice(vk->physical_device, &ci, NULL, &vk->device);
    /* The chain pointed into this stack frame; what the caller keeps is the flags. */
    vk->features12.pNext = NULL;
    vk->features13.pNext = NULL;
    if (vr != VK_SUCCESS) {
        vk->device = VK_NULL_HANDLE;
        return vr;
    }
    volkLoadDevice(vk->device);
    vkGetDeviceQueue(vk->device, vk->queue_family, 0, &vk->queue);

    memset(&pci, 0, sizeof pci);
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pci.queueFamilyIndex = vk->queue_family;
    vr = vkCreateCommandPool(vk->device, &pci, NULL, &vk->pool);
    if (vr != VK_SUCCESS) vk->pool = VK_NULL_HANDLE;
    return vr;
}

VkResult vks_create(vks_context *vk, const vks_options *options)
{
    vks_options none;
    VkResult vr;
    memset(&none, 0, sizeof none);
    if (!options) options = &none;
    memset(vk, 0, sizeof *vk);
    vk->validation = options->validation;
    vk->quiet = options->quiet;
    vr = volkInitialize();
    if (vr != VK_SUCCESS) {
        fprintf(stderr, "vk_setup: no Vulkan loader\n");
        return vr;
    }
    vr = vks__create_instance(vk, options);
    if (vr == VK_SUCCESS) vr = vks__pick_device(vk);
    if (vr == VK_SUCCESS) {
        vkGetPhysicalDeviceProperties(vk->physical_device, &vk->properties);
        vkGetPhysicalDeviceMemoryProperties(vk->physical_device, &vk->memory);
        vk->queue_family = vks__queue_family(vk->physical_device);
        vr = vks__create_device(vk, options);
    }
    if (vr != VK_SUCCESS) vks_destroy(vk);
    return vr;
}

void vks_destroy(vks_context *vk)
{
    if (vk->device != VK_NULL_HANDLE) {
        vkDeviceWaitIdle(vk->device);
        if (vk->pool != VK_NULL_HANDLE) vkDestroyCommandPool(vk->device, vk->pool, NULL);
        /* With the messenger still listening: leaked child objects are reported here. */
        vkDestroyDevice(vk->device, NULL);
    }
    if (vk->messenger != VK_NULL_HANDLE) vkDestroyDebugUtilsMessengerEXT(vk->instance, vk->messenger, NULL);
    if (vk->instance != VK_NULL_HANDLE) vkDestroyInstance(vk->instance, NULL);
    vk->pool = VK_NULL_HANDLE;
    vk->device = VK_NULL_HANDLE;
    vk->messenger = VK_NULL_HANDLE;
    vk->instance = VK_NULL_HANDLE;
}

VkResult vks_begin(vks_context *vk, VkCommandBuffer *out)
{
    VkCommandBufferAllocateInfo ai;
    VkCommandBufferBeginInfo bi;
    VkResult vr;
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = vk->pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    *out = VK_NULL_HANDLE;
    vr = vkAllocateCommandBuffers(vk->device, &ai, out);
    if (vr != VK_SUCCESS) return vr;
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vr = vkBeginCommandBuffer(*out, &bi);
    if (vr != VK_SUCCESS) {
        vkFreeCommandBuffers(vk->device, vk->pool, 1, out);
        *out = VK_NULL_HANDLE;
    }
    return vr;
}

VkResult vks_submit_wait(vks_context *vk, VkCommandBuffer cmd)
{
    VkFenceCreateInfo fci;
    VkSubmitInfo si;
    VkFence fence = VK_NULL_HANDLE;
    VkResult vr = vkEndCommandBuffer(cmd);
    if (vr == VK_SUCCESS) {
        memset(&fci, 0, sizeof fci);
        fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
        vr = vkCreateFence(vk->device, &fci, NULL, &fence);
    }
    if (vr == VK_SUCCESS) {
        memset(&si, 0, sizeof si);
        si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        vr = vkQueueSubmit(vk->queue, 1, &si, fence);
        if (vr == VK_SUCCESS) vr = vkWaitForFences(vk->device, 1, &fence, VK_TRUE, UINT64_MAX);
    }
    if (fence != VK_NULL_HANDLE) vkDestroyFence(vk->device, fence, NULL);
    /* After a failed wait the buffer may still run; only idle makes freeing it safe. */
    if (vr != VK_SUCCESS) vkDeviceWaitIdle(vk->device);
    vkFreeCommandBuffers(vk->device, vk->pool, 1, &cmd);
    return vr;
}

uint32_t vks_find_memory(const vks_context *vk, uint32_t type_bits, VkMemoryPropertyFlags want)
{
    uint32_t i;
    for (i = 0; i < vk->memory.memoryTypeCount; ++i)
        if ((type_bits & (1u << i)) && (vk->memory.memoryTypes[i].propertyFlags & want) == want) return i;
    return UINT32_MAX;
}

static VkResult vks__allocate(vks_context *vk, VkMemoryRequirements req, VkMemoryPropertyFlags want,
                              VkDeviceMemory *out)
{
    VkMemoryAllocateInfo ai;
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = vks_find_memory(vk, req.memoryTypeBits, want);
    if (ai.memoryTypeIndex == UINT32_MAX) return VK_ERROR_FEATURE_NOT_PRESENT;
    return vkAllocateMemory(vk->device, &ai, NULL, out);
}

VkResult vks_buffer_create(vks_context *vk, VkDeviceSize size, VkBufferUsageFlags usage, vks_buffer *out)
{
    VkBufferCreateInfo ci;
    VkMemoryRequirements req;
    VkResult vr;
    memset(out, 0, sizeof *out);
    memset(&ci, 0, sizeof ci);
    ci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    ci.size = size;
    ci.usage = usage;
    ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    vr = vkCreateBuffer(vk->device, &ci, NULL, &out->buffer);
    if (vr != VK_SUCCESS) {
        out->buffer = VK_NULL_HANDLE;
        return vr;
    }
    vkGetBufferMemoryRequirements(vk->device, out->buffer, &req);
    vr = vks__allocate(vk, req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                       &out->memory);
    if (vr == VK_SUCCESS) vr = vkBindBufferMemory(vk->device, out->buffer, out->memory, 0);
    else out->memory = VK_NULL_HANDLE;
    if (vr == VK_SUCCESS) vr = vkMapMemory(vk->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
    if (vr != VK_SUCCESS) {
        vks_buffer_destroy(vk, out);
        return vr;
    }
    out->size = size;
    return VK_SUCCESS;
}

void vks_buffer_destroy(vks_context *vk, vks_buffer *b)
{
    if (b->buffer != VK_NULL_HANDLE) vkDestroyBuffer(vk->device, b->buffer, NULL);
    if (b->memory != VK_NULL_HANDLE) vkFreeMemory(vk->device, b->memory, NULL);
    memset(b, 0, sizeof *b);
}

VkResult vks_image_create(vks_context *vk, uint32_t width, uint32_t height, VkFormat format,
                          VkImageUsageFlags usage, vks_image *out)
{
    VkImageCreateInfo ci;
    VkImageViewCreateInfo vci;
    VkMemoryRequirements req;
    VkResult vr;
    memset(out, 0, sizeof *out);
    out->format = format;
    out->width = width;
    out->height = height;
    switch (format) {
    case VK_FORMAT_D16_UNORM:
    case VK_FORMAT_D32_SFLOAT:
    case VK_FORMAT_X8_D24_UNORM_PACK32: out->aspect = VK_IMAGE_ASPECT_DEPTH_BIT; break;
    case VK_FORMAT_D16_UNORM_S8_UINT:
    case VK_FORMAT_D24_UNORM_S8_UINT:
    case VK_FORMAT_D32_SFLOAT_S8_UINT: out->aspect = VK_IMAGE_ASPECT_DEPTH_BIT | VK_IMAGE_ASPECT_STENCIL_BIT; break;
    default: out->aspect = VK_IMAGE_ASPECT_COLOR_BIT; break;
    }
    memset(&ci, 0, sizeof ci);
    ci.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
    ci.imageType = VK_IMAGE_TYPE_2D;
    ci.format = format;
    ci.extent.width = width;
    ci.extent.height = height;
    ci.extent.depth = 1;
    ci.mipLevels = 1;
    ci.arrayLayers = 1;
    ci.samples = VK_SAMPLE_COUNT_1_BIT;
    ci.tiling = VK_IMAGE_TILING_OPTIMAL;
    ci.usage = usage;
    ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    vr = vkCreateImage(vk->device, &ci, NULL, &out->image);
    if (vr != VK_SUCCESS) {
        out->image = VK_NULL_HANDLE;
        return vr;
    }
    vkGetImageMemoryRequirements(vk->device, out->image, &req);
    vr = vks__allocate(vk, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &out->memory);
    if (vr == VK_SUCCESS) vr = vkBindImageMemory(vk->device, out->image, out->memory, 0);
    else out->memory = VK_NULL_HANDLE;
    if (vr == VK_SUCCESS) {
        memset(&vci, 0, sizeof vci);
        vci.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
        vci.image = out->image;
        vci.viewType = VK_IMAGE_VIEW_TYPE_2D;
        vci.format = format;
        vci.subresourceRange.aspectMask = out->aspect;
        vci.subresourceRange.levelCount = 1;
        vci.subresourceRange.layerCount = 1;
        vr = vkCreateImageView(vk->device, &vci, NULL, &out->view);
        if (vr != VK_SUCCESS) out->view = VK_NULL_HANDLE;
    }
    if (vr != VK_SUCCESS) vks_image_destroy(vk, out);
    return vr;
}

void vks_image_destroy(vks_context *vk, vks_image *img)
{
    if (img->view != VK_NULL_HANDLE) vkDestroyImageView(vk->device, img->view, NULL);
    if (img->image != VK_NULL_HANDLE) vkDestroyImage(vk->device, img->image, NULL);
    if (img->memory != VK_NULL_HANDLE) vkFreeMemory(vk->device, img->memory, NULL);
    memset(img, 0, sizeof *img);
}

void vks_cmd_begin_rendering(VkCommandBuffer cmd, const vks_image *color, const vks_image *depth,
                             const float clear_rgba[4])
{
    VkRenderingAttachmentInfo ca, da;
    VkRenderingInfo ri;
    VkViewport viewport;
    VkRect2D scissor;
    memset(&ca, 0, sizeof ca);
    ca.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO;
    ca.imageView = color->view;
    ca.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    ca.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    ca.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    memcpy(ca.clearValue.color.float32, clear_rgba, 4 * sizeof(float));
    memset(&da, 0, sizeof da);
    da.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO;
    da.imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL;
    da.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    da.storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    da.clearValue.depthStencil.depth = 1.0f;
    if (depth) da.imageView = depth->view;
    memset(&ri, 0, sizeof ri);
    ri.sType = VK_STRUCTURE_TYPE_RENDERING_INFO;
    ri.renderArea.extent.width = color->width;
    ri.renderArea.extent.height = color->height;
    ri.layerCount = 1;
    ri.colorAttachmentCount = 1;
    ri.pColorAttachments = &ca;
    ri.pDepthAttachment = depth ? &da : NULL;
    if (vkCmdBeginRendering) vkCmdBeginRendering(cmd, &ri);
    else vkCmdBeginRenderingKHR(cmd, &ri);
    viewport.x = viewport.y = 0.0f;
    viewport.width = (float)color->width;
    viewport.height = (float)color->height;
    viewport.minDepth = 0.0f;
    viewport.maxDepth = 1.0f;
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    scissor.offset.x = scissor.offset.y = 0;
    scissor.extent = ri.renderArea.extent;
    vkCmdSetScissor(cmd, 0, 1, &scissor);
}

void vks_cmd_image_barrier(VkCommandBuffer cmd, const vks_image *img, VkImageLayout from, VkImageLayout to,
                           VkPipelineStageFlags src_stage, VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                           VkAccessFlags dst_access)
{
    VkImageMemoryBarrier b;
    memset(&b, 0, sizeof b);
    b.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER;
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = img->image;
    b.subresourceRange.aspectMask = img->aspect;
    b.subresourceRange.levelCount = 1;
    b.subresourceRange.layerCount = 1;
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

VkResult vks_image_read_rgba8(vks_context *vk, const vks_image *img, VkImageLayout layout,
                              VkPipelineStageFlags stage, VkAccessFlags access, void *out)
{
    vks_buffer staging;
    VkCommandBuffer cmd;
    VkBufferImageCopy region;
    VkBufferMemoryBarrier host;
    VkDeviceSize size = (VkDeviceSize)img->width * img->height * 4u;
    VkResult vr = vks_buffer_create(vk, size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &staging);
    if (vr != VK_SUCCESS) return vr;
    vr = vks_begin(vk, &cmd);
    if (vr != VK_SUCCESS) {
        vks_buffer_destroy(vk, &staging);
        return vr;
    }
    vks_cmd_image_barrier(cmd, img, layout, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, stage, access,
                          VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    memset(&region, 0, sizeof region);
    region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    region.imageSubresource.layerCount = 1;
    region.imageExtent.width = img->width;
    region.imageExtent.height = img->height;
    region.imageExtent.depth = 1;
    vkCmdCopyImageToBuffer(cmd, img->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging.buffer, 1, &region);
    memset(&host, 0, sizeof host);
    host.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    host.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    host.buffer = staging.buffer;
    host.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, NULL, 1, &host, 0,
                         NULL);
    vr = vks_submit_wait(vk, cmd);
    if (vr == VK_SUCCESS) memcpy(out, staging.mapped, (size_t)size);
    vks_buffer_destroy(vk, &staging);
    return vr;
}

#ifdef __cplusplus
}
#endif
#endif /* VK_SETUP_IMPLEMENTATION_DONE */
#endif /* VK_SETUP_IMPLEMENTATION */
