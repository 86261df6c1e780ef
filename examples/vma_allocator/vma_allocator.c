/* vma_allocator.c - gpuskin's buffers from the Vulkan Memory Allocator (VMA).

   NOT BUILT: a snippet to copy into a host that already uses VMA (vk_mem_alloc.h,
   https://github.com/GPUOpen-LibrariesAndSDKs/VulkanMemoryAllocator). VMA is not
   a Debian package, so nothing in this repository compiles or links this file.
   It is written against VMA 3.x's API (vmaCreateBuffer, VmaAllocationCreateInfo,
   VMA_MEMORY_USAGE_AUTO*, VMA_ALLOCATION_CREATE_HOST_ACCESS_*,
   vmaGetAllocationMemoryProperties), checked against include/vk_mem_alloc.h of
   VMA 3.1: compiled with `cc -fsyntax-only -Wall -Wextra -Wpedantic` (as C99 and
   as C++17) against those declarations restated in a stand-in header.

   What gpuskin asks of an allocator (gpuskin.h, gpuskin_allocator):
   - every buffer is created with VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT and
     its memory allocated with VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT: create the
     VmaAllocator with VMA_ALLOCATOR_CREATE_BUFFER_DEVICE_ADDRESS_BIT and VMA adds
     the memory flag itself;
   - UPLOAD and READBACK buffers are host-visible, host-coherent and persistently
     mapped (gpuskin writes and reads them without flush or invalidate);
   - STATIC buffers (the mesh) may be mapped: when `mapped` is NULL gpuskin keeps a
     staging copy and gpuskin_cmd_upload_mesh copies it (the buffer has
     TRANSFER_DST usage for that). Only coherent memory is handed out as mapped.

   Setup:
       VmaAllocatorCreateInfo aci = {0};
       aci.flags = VMA_ALLOCATOR_CREATE_BUFFER_DEVICE_ADDRESS_BIT;
       aci.vulkanApiVersion = VK_API_VERSION_1_3;
       aci.physicalDevice = phys; aci.device = dev; aci.instance = inst;
       aci.pVulkanFunctions = &vma_functions;  // e.g. vmaImportVulkanFunctionsFromVolk()
       vmaCreateAllocator(&aci, &vma);
       host_vma hv = {vma, dev, vkGetBufferDeviceAddress};
       gpuskin_context_desc cd = {0};  ...
       cd.allocator = host_vma_allocator(&hv);
       gpuskin_context_create(&cd, &ctx);   // hv must outlive ctx */
#include <string.h>
#include <vulkan/vulkan.h>
#include <vk_mem_alloc.h>
#include "gpuskin.h"

typedef struct host_vma {
    VmaAllocator vma;
    VkDevice device;
    PFN_vkGetBufferDeviceAddress get_address;
} host_vma;

static VkResult host_vma_create(void *user, VkDeviceSize size, VkBufferUsageFlags usage, gpuskin_memory_kind kind,
                                gpuskin_buffer *out)
{
    host_vma *h = (host_vma *)user;
    VkBufferCreateInfo bci;
    VmaAllocationCreateInfo aci;
    VmaAllocationInfo info;
    VkBufferDeviceAddressInfo dai;
    VkMemoryPropertyFlags props = 0;
    VmaAllocation allocation = VK_NULL_HANDLE;
    VkResult vr;
    const VkMemoryPropertyFlags coherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;

    memset(&bci, 0, sizeof bci);
    memset(&aci, 0, sizeof aci);
    memset(&dai, 0, sizeof dai);
    bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    dai.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
    bci.size = size;
    bci.usage = usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    switch (kind) {
    case GPUSKIN_MEMORY_STATIC: /* device-local; mapped too where that is free (ReBAR, UMA) */
        aci.usage = VMA_MEMORY_USAGE_AUTO_PREFER_DEVICE;
        aci.flags = VMA_ALLOCATION_CREATE_HOST_ACCESS_SEQUENTIAL_WRITE_BIT |
                    VMA_ALLOCATION_CREATE_HOST_ACCESS_ALLOW_TRANSFER_INSTEAD_BIT | VMA_ALLOCATION_CREATE_MAPPED_BIT;
        break;
    case GPUSKIN_MEMORY_UPLOAD: /* written every frame by the CPU, read by every vertex */
        aci.usage = VMA_MEMORY_USAGE_AUTO;
        aci.flags = VMA_ALLOCATION_CREATE_HOST_ACCESS_SEQUENTIAL_WRITE_BIT | VMA_ALLOCATION_CREATE_MAPPED_BIT;
        aci.requiredFlags = coherent;
        break;
    case GPUSKIN_MEMORY_GPU_ONLY: /* compute output */
        aci.usage = VMA_MEMORY_USAGE_AUTO_PREFER_DEVICE;
        break;
    case GPUSKIN_MEMORY_READBACK: /* read back by the CPU: cached if there is such memory */
        aci.usage = VMA_MEMORY_USAGE_AUTO;
        aci.flags = VMA_ALLOCATION_CREATE_HOST_ACCESS_RANDOM_BIT | VMA_ALLOCATION_CREATE_MAPPED_BIT;
        aci.requiredFlags = coherent;
        break;
    default:
        return VK_ERROR_FORMAT_NOT_SUPPORTED;
    }
    vr = vmaCreateBuffer(h->vma, &bci, &aci, &out->buffer, &allocation, &info);
    if (vr != VK_SUCCESS) return vr;
    vmaGetAllocationMemoryProperties(h->vma, allocation, &props);
    dai.buffer = out->buffer;
    out->address = h->get_address(h->device, &dai);
    /* gpuskin never flushes: hand out a mapping only for coherent memory */
    out->mapped = (props & coherent) == coherent ? info.pMappedData : NULL;
    out->size = size;
    out->allocation = allocation;
    return VK_SUCCESS;
}

static void host_vma_destroy(void *user, gpuskin_buffer *buffer)
{
    host_vma *h = (host_vma *)user;
    vmaDestroyBuffer(h->vma, buffer->buffer, (VmaAllocation)buffer->allocation);
}

static gpuskin_allocator host_vma_allocator(host_vma *h)
{
    gpuskin_allocator a;
    a.create_buffer = host_vma_create;
    a.destroy_buffer = host_vma_destroy;
    a.user = h;
    return a;
}
