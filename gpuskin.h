/* gpuskin.h - v0.1.0 - skeletal skinning on the GPU with Vulkan, one header.
   https://example.invalid/gpuskin  (MIT or public domain, see end of file)

   One mesh, one instanced draw, a crowd of characters each posed differently.
   The CPU builds a small palette per instance (instances x joints); the GPU
   blends it into every vertex. A CPU oracle computes the same thing so the GPU
   can be checked against it, statement for statement.

   USAGE
   -----
   In exactly one C or C++ file:

       #define GPUSKIN_IMPLEMENTATION
       #include "gpuskin.h"

   Everywhere else just #include "gpuskin.h". Without Vulkan (maths, clips and
   the CPU oracle only) define GPUSKIN_NO_VULKAN before including it. With
   Vulkan, include <volk.h> or <vulkan/vulkan.h> (VK_NO_PROTOTYPES is fine and
   recommended) before this header, or let it include <vulkan/vulkan.h> itself.
   The implementation file also needs "gpuskin_shaders.h" on the include path.

   A 20-line crowd (error checks left out; every call returns gpuskin_result):

       gpuskin_context *ctx;  gpuskin_mesh *mesh;  gpuskin_crowd *crowd;
       gpuskin_pipeline *pipe;
       gpuskin_context_desc cd = {0};
       cd.instance = inst; cd.physical_device = phys; cd.device = dev;
       cd.get_instance_proc_addr = vkGetInstanceProcAddr;
       gpuskin_context_create(&cd, &ctx);             // default allocator
       gpuskin_mesh_desc md = {0};  md.streams = streams;  // bind pose, joints, weights
       md.joint_count = J; md.indices = idx; md.index_count = n;
       gpuskin_mesh_create(ctx, &md, &mesh);          // uploaded once (snapshot)
       gpuskin_crowd_desc rd = {0}; rd.mesh = mesh; rd.capacity = 64;
       gpuskin_crowd_create(ctx, &rd, &crowd);        // 2 frames in flight by default
       gpuskin_pipeline_desc pd = {0}; pd.color_format = fmt; pd.depth_format = dfmt;
       gpuskin_pipeline_create(ctx, &pd, &pipe);
       for (;;) {                                     // per frame, slot f
           for (i = 0; i < 64; ++i)                   // model(i) * global * inverseBind
               gpuskin_skeleton_palette(&skel, &model[i], globals[i], &pal[i * J]);
           gpuskin_crowd_upload_desc up = {0}; up.frame = f; up.instance_count = 64;
           up.palettes = pal; up.methods = methods;   // LBS and DQS mixed per instance
           gpuskin_crowd_upload(crowd, &up);
           gpuskin_draw_desc dd = {0}; dd.frame = f; dd.instance_count = 64; dd.view_proj = vp;
           gpuskin_cmd_draw(crowd, pipe, cmd, &dd);   // inside the host's vkCmdBeginRendering
       }

   CONVENTIONS
   -----------
   - Matrices are column-major, float m[16], element (row r, column c) at m[c*4 + r],
     exactly as GLSL's mat4 and glTF store them; vectors are columns, p' = M p.
   - Quaternions are (x, y, z, w), w the scalar; rotations are Hamilton products.
   - A palette entry is   palette[i][j] = model(i) * global(joint j) * inverseBind(j).
     The per-instance placement model(i) rides in the palette: the GPU needs no
     model matrix. glTF 2.0 (section "Skins"): the transform of the node that holds a
     skinned mesh is IGNORED; only the joints' global transforms count. Do not
     multiply that node's matrix in, or the mesh is moved twice.
   - Every function that can fail returns gpuskin_result; gpuskin_result_string()
     gives its text. Zero-initialised desc structs mean "defaults".

   OPTIONS (define before the implementation include)
   -------
   GPUSKIN_NO_VULKAN        maths, clips and CPU oracle only; no Vulkan headers needed.
   GPUSKIN_STATIC           make every function static to the including file.
   GPUSKIN_API              decoration of every public function (default: extern).
   GPUSKIN_ASSERT(x)        internal invariants (default: assert.h). Never used for
                            input validation: bad input returns an error code.
   GPUSKIN_MALLOC(sz, user) / GPUSKIN_FREE(p, user)
                            allocation, all-or-none; `user` is the alloc_user pointer
                            of the desc that asked (default: malloc/free).

   THREADS: no global mutable state. Distinct objects may be used from distinct
   threads; one object is not synchronised internally.
*/
#ifndef GPUSKIN_H
#define GPUSKIN_H

#define GPUSKIN_VERSION_MAJOR 0
#define GPUSKIN_VERSION_MINOR 1
#define GPUSKIN_VERSION_PATCH 0
#define GPUSKIN_VERSION ((GPUSKIN_VERSION_MAJOR * 10000) + (GPUSKIN_VERSION_MINOR * 100) + GPUSKIN_VERSION_PATCH)

#include <stddef.h>
#include <stdint.h>

#ifndef GPUSKIN_API
#ifdef GPUSKIN_STATIC
#define GPUSKIN_API static
#else
#define GPUSKIN_API extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* Results                                                                  */
/* ======================================================================== */

typedef enum gpuskin_result {
    GPUSKIN_SUCCESS = 0,
    GPUSKIN_ERROR_NULL_ARGUMENT,        /* a required pointer was NULL */
    GPUSKIN_ERROR_INVALID_COUNT,        /* a count is zero or above its limit */
    GPUSKIN_ERROR_OVERFLOW,             /* count x size does not fit in size_t / 32 bits */
    GPUSKIN_ERROR_INVALID_STRIDE,       /* a stream stride is smaller than its element */
    GPUSKIN_ERROR_JOINT_OUT_OF_RANGE,   /* a weighted influence names joint >= joint_count */
    GPUSKIN_ERROR_INVALID_WEIGHT,       /* a weight is NaN, infinite or negative */
    GPUSKIN_ERROR_NON_FINITE,           /* a matrix, TRS or vertex holds NaN or infinity */
    GPUSKIN_ERROR_PALETTE_SIZE,         /* palette joint count != skeleton/mesh joint count */
    GPUSKIN_ERROR_PARENT_OUT_OF_RANGE,  /* parent index >= joint count (or < -1) */
    GPUSKIN_ERROR_PARENT_CYCLE,         /* the parent links form a cycle */
    GPUSKIN_ERROR_INVALID_METHOD,       /* unknown skinning method or method word */
    GPUSKIN_ERROR_INVALID_CLIP,         /* channel joint/path/interpolation/keys invalid */
    GPUSKIN_ERROR_INVALID_ARGUMENT,     /* any other argument out of its documented range */
    GPUSKIN_ERROR_OUT_OF_MEMORY,        /* GPUSKIN_MALLOC returned NULL */
    GPUSKIN_ERROR_CAPACITY,             /* more instances than the crowd was sized for */
    GPUSKIN_ERROR_FRAME_SLOT,           /* frame slot >= frames in flight */
    GPUSKIN_ERROR_VULKAN,               /* a Vulkan call failed */
    GPUSKIN_ERROR_MISSING_FEATURE,      /* the device lacks (or did not enable) a feature */
    GPUSKIN_ERROR_ALLOCATION_FAILED,    /* the host's buffer allocator failed */
    GPUSKIN_RESULT_COUNT_
} gpuskin_result;

GPUSKIN_API const char *gpuskin_result_string(gpuskin_result result);

/* ======================================================================== */
/* Maths: column-major matrices, quaternions (x,y,z,w), dual quaternions    */
/* ======================================================================== */

typedef struct gpuskin_vec3 { float x, y, z; } gpuskin_vec3;
typedef struct gpuskin_quat { float x, y, z, w; } gpuskin_quat;
typedef struct gpuskin_mat3 { float m[9]; } gpuskin_mat3;   /* column-major: m[c*3 + r] */
typedef struct gpuskin_mat4 { float m[16]; } gpuskin_mat4;  /* column-major: m[c*4 + r] */
/* A unit dual quaternion real + eps*dual: rotation `real`, translation t with
   dual = 0.5 * (t, 0) * real. */
typedef struct gpuskin_dualquat { gpuskin_quat real, dual; } gpuskin_dualquat;
/* A joint's local transform as glTF gives it: M = T * R * S. */
typedef struct gpuskin_trs { gpuskin_vec3 translation; gpuskin_quat rotation; gpuskin_vec3 scale; } gpuskin_trs;

GPUSKIN_API gpuskin_mat4 gpuskin_mat4_identity(void);
GPUSKIN_API gpuskin_mat4 gpuskin_mat4_mul(const gpuskin_mat4 *a, const gpuskin_mat4 *b); /* a * b */
GPUSKIN_API gpuskin_mat4 gpuskin_mat4_from_trs(const gpuskin_trs *trs);
/* Inverse of an affine matrix (last row 0 0 0 1). GPUSKIN_ERROR_NON_FINITE when
   the input is not finite, GPUSKIN_ERROR_INVALID_ARGUMENT when singular. */
GPUSKIN_API gpuskin_result gpuskin_mat4_inverse_affine(const gpuskin_mat4 *m, gpuskin_mat4 *out);
GPUSKIN_API gpuskin_vec3 gpuskin_mat4_transform_point(const gpuskin_mat4 *m, gpuskin_vec3 p);
GPUSKIN_API int gpuskin_mat4_is_finite(const gpuskin_mat4 *m);
GPUSKIN_API gpuskin_trs gpuskin_trs_identity(void);

GPUSKIN_API gpuskin_quat gpuskin_quat_identity(void);
GPUSKIN_API gpuskin_quat gpuskin_quat_mul(gpuskin_quat a, gpuskin_quat b);       /* a * b */
GPUSKIN_API gpuskin_quat gpuskin_quat_normalize(gpuskin_quat q);                 /* identity if ~0 */
GPUSKIN_API gpuskin_quat gpuskin_quat_axis_angle(gpuskin_vec3 axis, float radians);
/* Shortest-arc spherical interpolation (b is negated when dot(a,b) < 0). */
GPUSKIN_API gpuskin_quat gpuskin_quat_slerp(gpuskin_quat a, gpuskin_quat b, float t);
GPUSKIN_API gpuskin_vec3 gpuskin_quat_rotate(gpuskin_quat q, gpuskin_vec3 v);
/* Rotation matrix (orthonormal, det +1, column-major 3x3) to unit quaternion, w >= 0. */
GPUSKIN_API gpuskin_quat gpuskin_quat_from_mat3(const gpuskin_mat3 *r);
GPUSKIN_API gpuskin_mat3 gpuskin_mat3_from_quat(gpuskin_quat q);

GPUSKIN_API gpuskin_dualquat gpuskin_dualquat_from_rt(gpuskin_quat rotation, gpuskin_vec3 translation);
GPUSKIN_API gpuskin_vec3 gpuskin_dualquat_translation(const gpuskin_dualquat *dq);
/* Scale to |real| = 1 and remove the part of dual along real; identity if |real| ~ 0. */
GPUSKIN_API gpuskin_dualquat gpuskin_dualquat_normalize(gpuskin_dualquat dq);

/* ======================================================================== */
/* Skeleton and palette                                                     */
/* ======================================================================== */

#define GPUSKIN_MAX_JOINTS 65536u  /* joint indices are at most 16 bits on the GPU */

typedef struct gpuskin_skeleton_desc {
    uint32_t joint_count;                    /* 1 .. GPUSKIN_MAX_JOINTS */
    const int32_t *parents;                  /* required; -1 = root; any order (not parent-first) */
    const gpuskin_mat4 *inverse_bind;        /* NULL = identity (glTF: inverseBindMatrices absent) */
    const gpuskin_trs *rest_pose;            /* NULL = identity TRS; used by joints no clip animates */
    /* The global transform of the non-joint node above each ROOT joint (glTF joints
       whose ancestors are not joints: those ancestors' transforms count). Read only
       for roots. NULL = identity. */
    const gpuskin_mat4 *root_parent_globals;
    void *alloc_user;                        /* passed to GPUSKIN_MALLOC/GPUSKIN_FREE */
} gpuskin_skeleton_desc;

/* Owns copies of the desc's arrays (one allocation) and the evaluation order. */
typedef struct gpuskin_skeleton {
    uint32_t joint_count;
    int32_t *parents;
    gpuskin_mat4 *inverse_bind;
    gpuskin_trs *rest_pose;
    gpuskin_mat4 *root_parent_globals;
    uint32_t *order;                         /* every parent appears before its children */
    void *alloc_user;
} gpuskin_skeleton;

/* Copies the desc, computes the evaluation order once; rejects out-of-range parents
   (GPUSKIN_ERROR_PARENT_OUT_OF_RANGE), cycles (GPUSKIN_ERROR_PARENT_CYCLE) and
   non-finite matrices/TRS (GPUSKIN_ERROR_NON_FINITE). */
GPUSKIN_API gpuskin_result gpuskin_skeleton_init(gpuskin_skeleton *skeleton, const gpuskin_skeleton_desc *desc);
GPUSKIN_API void gpuskin_skeleton_free(gpuskin_skeleton *skeleton);

/* Local pose (joint_count TRS; NULL = rest pose) -> global matrices (joint_count). */
GPUSKIN_API gpuskin_result gpuskin_skeleton_globals(const gpuskin_skeleton *skeleton, const gpuskin_trs *local_pose,
                                                    gpuskin_mat4 *out_globals);
/* out[j] = model * globals[j] * inverse_bind[j]. model NULL = identity. */
GPUSKIN_API gpuskin_result gpuskin_skeleton_palette(const gpuskin_skeleton *skeleton, const gpuskin_mat4 *model,
                                                    const gpuskin_mat4 *globals, gpuskin_mat4 *out_palette);

/* ======================================================================== */
/* Skinning methods, the dual-quaternion split and the GPU packing          */
/* ======================================================================== */

/* The per-instance method word the shaders read: bits 0..3 are the method id,
   higher bits are flags of that method. Ids 2..15 are reserved for methods to
   come (e.g. optimised centres of rotation, which will add a per-vertex centre
   stream and reuse the per-joint quaternion of the DQS packing). */
typedef enum gpuskin_method {
    GPUSKIN_METHOD_LBS = 0,  /* linear blend: sum of weighted matrices */
    GPUSKIN_METHOD_DQS = 1   /* dual-quaternion blend, plus the residual 3x3 when needed */
} gpuskin_method;
#define GPUSKIN_METHOD_ID_MASK 0xFu
#define GPUSKIN_METHOD_RESIDUAL_BIT 0x10u  /* DQS: at least one joint is not rigid: blend S */

/* How a palette matrix's 3x3 A is split into a rotation R and a residual S = R^T A. */
typedef enum gpuskin_split_method {
    GPUSKIN_SPLIT_GRAM_SCHMIDT = 0,  /* R from the first two columns; S upper triangular */
    GPUSKIN_SPLIT_POLAR = 1          /* R = nearest rotation (polar factor); S symmetric */
} gpuskin_split_method;

/* A joint is rigid (S taken as identity) when every |S - I| element is at most this. */
#define GPUSKIN_RIGID_TOLERANCE 1e-5f

typedef struct gpuskin_split {
    gpuskin_dualquat dq;     /* unit: rotation R and the matrix's translation */
    gpuskin_mat3 residual;   /* S, with M = T * R * S (identity when rigid) */
    int rigid;               /* 1 when S is within GPUSKIN_RIGID_TOLERANCE of identity */
    int degenerate;          /* 1 when R could not be found: R = I and S = the whole 3x3 */
} gpuskin_split;

/* M = T * R * S. R is always a proper rotation: a mirrored matrix (det < 0) is
   treated as a negative scale on its local x axis, which S carries. A degenerate
   matrix (first or second column collapsed) gives R = I, S = A. Never NaN for
   finite input; GPUSKIN_ERROR_NON_FINITE otherwise. Computed in double. */
GPUSKIN_API gpuskin_result gpuskin_split_matrix(const gpuskin_mat4 *m, gpuskin_split_method method, gpuskin_split *out);

/* GPU layouts, per joint, all float32, 16-byte aligned (std430 vec4 arrays):
   LBS palette:      3 vec4 = the first three ROWS of the matrix (a 3x4 affine).
   DQ palette:       2 vec4 = real (x,y,z,w), dual (x,y,z,w).
   Residual palette: 3 vec4 = the ROWS of S, w = 0. Only read with the residual bit. */
#define GPUSKIN_LBS_FLOATS_PER_JOINT 12u
#define GPUSKIN_DQ_FLOATS_PER_JOINT 8u
#define GPUSKIN_RESIDUAL_FLOATS_PER_JOINT 12u

GPUSKIN_API gpuskin_result gpuskin_pack_lbs(const gpuskin_mat4 *palette, uint32_t joint_count, float *out_lbs);
/* Splits each matrix and writes dq (8 floats/joint) and residual (12 floats/joint,
   identity rows for rigid joints). *out_method_word = GPUSKIN_METHOD_DQS, or'd with
   GPUSKIN_METHOD_RESIDUAL_BIT when any joint is not rigid. out_residual may be NULL
   only if the caller needs just the method word and the dq part. */
GPUSKIN_API gpuskin_result gpuskin_pack_dq(const gpuskin_mat4 *palette, uint32_t joint_count,
                                           gpuskin_split_method split, float *out_dq, float *out_residual,
                                           uint32_t *out_method_word);

/* ======================================================================== */
/* Vertex streams and the CPU oracle                                        */
/* ======================================================================== */

/* A strided read-only stream: element i is at (const char*)data + i*stride.
   stride 0 means tightly packed. */
typedef struct gpuskin_stream { const void *data; size_t stride; } gpuskin_stream;
/* A strided output stream. */
typedef struct gpuskin_out_stream { void *data; size_t stride; } gpuskin_out_stream;

typedef enum gpuskin_joint_type {
    GPUSKIN_JOINT_U16 = 0,   /* uint16_t[4] per vertex and set (glTF UNSIGNED_SHORT) */
    GPUSKIN_JOINT_U8 = 1,    /* uint8_t[4]  (glTF UNSIGNED_BYTE) */
    GPUSKIN_JOINT_U32 = 2    /* uint32_t[4] */
} gpuskin_joint_type;

/* The bind-pose mesh: 4 influences per set, 1 or 2 sets (glTF JOINTS_0/WEIGHTS_0
   and JOINTS_1/WEIGHTS_1). One code path handles both: 8 influences are 4+4.
   An influence whose weight is 0 is never read, so its joint index may be anything
   (some exporters leave garbage there); a weighted influence must name a joint
   below joint_count, else GPUSKIN_ERROR_JOINT_OUT_OF_RANGE naming the vertex. */
typedef struct gpuskin_vertex_streams {
    size_t vertex_count;
    gpuskin_stream positions;     /* float[3], required */
    gpuskin_stream normals;       /* float[3], optional (data NULL) */
    gpuskin_stream tangents;      /* float[4], optional; xyz skinned, w (handedness) kept */
    uint32_t influence_sets;      /* 0 or 1: 4 influences; 2: 8 influences */
    gpuskin_joint_type joint_type;
    gpuskin_stream joints[2];     /* 4 indices per vertex per set */
    gpuskin_stream weights[2];    /* float[4] per vertex per set; >= 0, finite; renormalised */
} gpuskin_vertex_streams;

/* Checks every vertex: finite positions/normals/tangents, weights, joint range.
   *out_bad_vertex (optional) receives the first offending vertex. */
GPUSKIN_API gpuskin_result gpuskin_streams_validate(const gpuskin_vertex_streams *streams, uint32_t joint_count,
                                                    size_t *out_bad_vertex);

/* One instance skinned on the CPU: the reference the GPU is checked against. It
   reads the packed palettes (the same bytes the GPU reads) and follows the GLSL in
   gpuskin_shaders.h statement for statement. */
typedef struct gpuskin_cpu_skin_desc {
    gpuskin_vertex_streams streams;   /* the bind pose */
    uint32_t joint_count;
    uint32_t method_word;             /* GPUSKIN_METHOD_LBS, or what gpuskin_pack_dq returned */
    const float *lbs_palette;         /* LBS: joint_count * GPUSKIN_LBS_FLOATS_PER_JOINT */
    const float *dq_palette;          /* DQS: joint_count * GPUSKIN_DQ_FLOATS_PER_JOINT */
    const float *residual_palette;    /* DQS with the residual bit: joint_count * 12 */
    gpuskin_out_stream out_positions; /* float[3], required */
    gpuskin_out_stream out_normals;   /* float[3], written when normals are given */
    gpuskin_out_stream out_tangents;  /* float[4], written when tangents are given */
    size_t *out_error_index;          /* optional: the vertex an error is about */
} gpuskin_cpu_skin_desc;

GPUSKIN_API gpuskin_result gpuskin_skin_cpu(const gpuskin_cpu_skin_desc *desc);

/* ======================================================================== */
/* Animation clips (glTF sampling semantics, format-agnostic)               */
/* ======================================================================== */

typedef enum gpuskin_path {
    GPUSKIN_PATH_TRANSLATION = 0,  /* 3 floats a key */
    GPUSKIN_PATH_ROTATION = 1,     /* 4 floats a key (x,y,z,w) */
    GPUSKIN_PATH_SCALE = 2         /* 3 floats a key */
} gpuskin_path;

typedef enum gpuskin_interpolation {
    GPUSKIN_INTERP_LINEAR = 0,     /* rotations by shortest-arc slerp */
    GPUSKIN_INTERP_STEP = 1,
    GPUSKIN_INTERP_CUBICSPLINE = 2 /* values: in-tangent, value, out-tangent per key */
} gpuskin_interpolation;

/* Non-owning: the caller keeps times and values alive. */
typedef struct gpuskin_channel {
    uint32_t joint;
    gpuskin_path path;
    gpuskin_interpolation interpolation;
    uint32_t key_count;             /* >= 1 (>= 2 makes no difference to the rules) */
    const float *times;             /* key_count, strictly increasing, finite */
    const float *values;            /* key_count * comps (x3 for CUBICSPLINE) */
} gpuskin_channel;

typedef struct gpuskin_clip {
    const gpuskin_channel *channels;
    uint32_t channel_count;
} gpuskin_clip;

/* Checks joints, paths, interpolations, key order and finiteness. */
GPUSKIN_API gpuskin_result gpuskin_clip_validate(const gpuskin_clip *clip, uint32_t joint_count);
/* First and last key time over all channels (0,0 for a clip without channels). */
GPUSKIN_API gpuskin_result gpuskin_clip_range(const gpuskin_clip *clip, float *out_start, float *out_end);
/* Wraps t into [start, end) of the clip (start when the clip has zero length). */
GPUSKIN_API float gpuskin_clip_loop_time(const gpuskin_clip *clip, float t);
/* Samples at time t (clamped to each channel's key range). Joints without a channel
   keep the skeleton's rest TRS. out_local: joint_count TRS. */
GPUSKIN_API gpuskin_result gpuskin_clip_sample(const gpuskin_clip *clip, const gpuskin_skeleton *skeleton, float t,
                                               gpuskin_trs *out_local);

/* Rotation-correct blend of two local poses: slerp (shortest arc) of rotations,
   lerp of translations and scales. t = 0 gives a, 1 gives b. Does not shrink a joint
   when the poses disagree by a large rotation. */
GPUSKIN_API gpuskin_result gpuskin_pose_blend(const gpuskin_trs *a, const gpuskin_trs *b, uint32_t joint_count,
                                              float t, gpuskin_trs *out);
/* Component-wise lerp of two palettes (matrix blend, as many engines do; kept for
   parity). A large rotation between a and b shrinks the result: see README. */
GPUSKIN_API gpuskin_result gpuskin_palette_lerp(const gpuskin_mat4 *a, const gpuskin_mat4 *b, uint32_t joint_count,
                                                float t, gpuskin_mat4 *out);

#ifdef __cplusplus
}
#endif

/* ======================================================================== */
/* Vulkan runtime                                                           */
/* ======================================================================== */
#ifndef GPUSKIN_NO_VULKAN
#if !defined(VK_VERSION_1_0)
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What a buffer is for; the allocator picks memory accordingly. */
typedef enum gpuskin_memory_kind {
    GPUSKIN_MEMORY_STATIC = 0,    /* written once, read by the GPU (mesh); device-local, mapped if it can be */
    GPUSKIN_MEMORY_UPLOAD = 1,    /* written by the CPU every frame; host-visible AND host-coherent, mapped */
    GPUSKIN_MEMORY_GPU_ONLY = 2,  /* written and read by the GPU (compute output); device-local */
    GPUSKIN_MEMORY_READBACK = 3   /* written by the GPU, read by the CPU; host-visible, coherent, mapped */
} gpuskin_memory_kind;

typedef struct gpuskin_buffer {
    VkBuffer buffer;
    VkDeviceAddress address;   /* from vkGetBufferDeviceAddress */
    void *mapped;              /* persistent mapping or NULL (required for UPLOAD/READBACK) */
    VkDeviceSize size;
    void *allocation;          /* the allocator's own handle, opaque to gpuskin */
} gpuskin_buffer;

/* The host's buffer allocator. The buffer must be created with at least `usage`
   (gpuskin always asks for SHADER_DEVICE_ADDRESS) and bound to memory allocated
   with VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT. Return VK_SUCCESS and fill *out, or an
   error code (gpuskin then returns GPUSKIN_ERROR_ALLOCATION_FAILED and cleans up). */
typedef struct gpuskin_allocator {
    VkResult (*create_buffer)(void *user, VkDeviceSize size, VkBufferUsageFlags usage, gpuskin_memory_kind kind,
                              gpuskin_buffer *out);
    void (*destroy_buffer)(void *user, gpuskin_buffer *buffer);
    void *user;
} gpuskin_allocator;

typedef struct gpuskin_context gpuskin_context;
typedef struct gpuskin_mesh gpuskin_mesh;
typedef struct gpuskin_crowd gpuskin_crowd;
typedef struct gpuskin_pipeline gpuskin_pipeline;

typedef struct gpuskin_context_desc {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    /* Function pointers: give get_instance_proc_addr (gpuskin fetches the rest with
       it), or a volk device table. gpuskin never calls a global vk* symbol. */
    PFN_vkGetInstanceProcAddr get_instance_proc_addr;
    PFN_vkGetDeviceProcAddr get_device_proc_addr;      /* optional; fetched if NULL */
#ifdef VOLK_HEADER_VERSION
    const struct VolkDeviceTable *volk_device_table;   /* optional: device calls through it */
#else
    const void *volk_device_table_unused;
#endif
    const VkAllocationCallbacks *vk_allocation_callbacks; /* optional */
    gpuskin_allocator allocator;      /* zero = the built-in allocator */
    VkPipelineCache pipeline_cache;   /* optional */
    /* The features the host ENABLED on its device (Vulkan cannot be asked). NULL: gpuskin
       checks what the physical device supports and trusts the host enabled it. */
    const VkPhysicalDeviceVulkan12Features *enabled_features12;
    const VkPhysicalDeviceVulkan13Features *enabled_features13;
    const char **out_missing_feature; /* optional: receives the missing feature's name */
    void *alloc_user;                 /* for GPUSKIN_MALLOC/GPUSKIN_FREE */
} gpuskin_context_desc;

GPUSKIN_API gpuskin_result gpuskin_context_create(const gpuskin_context_desc *desc, gpuskin_context **out);
GPUSKIN_API void gpuskin_context_destroy(gpuskin_context *ctx);

typedef struct gpuskin_mesh_desc {
    gpuskin_vertex_streams streams;  /* the bind pose, copied at creation (a snapshot) */
    uint32_t joint_count;
    const uint32_t *indices;         /* triangle list; optional for compute-only use */
    uint32_t index_count;            /* multiple of 3; every index < vertex_count */
    size_t *out_error_index;         /* optional: the vertex/index an error is about */
} gpuskin_mesh_desc;

/* Uploads the static streams once. Buffers are GPUSKIN_MEMORY_STATIC; when the
   allocator cannot map them a staging copy is kept and gpuskin_cmd_upload_mesh
   must be recorded once before the mesh is used. */
GPUSKIN_API gpuskin_result gpuskin_mesh_create(gpuskin_context *ctx, const gpuskin_mesh_desc *desc, gpuskin_mesh **out);
GPUSKIN_API void gpuskin_mesh_destroy(gpuskin_mesh *mesh);
/* Returns 1 if the mesh still needs gpuskin_cmd_upload_mesh. */
GPUSKIN_API int gpuskin_mesh_needs_upload(const gpuskin_mesh *mesh);
GPUSKIN_API gpuskin_result gpuskin_cmd_upload_mesh(gpuskin_mesh *mesh, VkCommandBuffer cmd);

typedef struct gpuskin_crowd_desc {
    const gpuskin_mesh *mesh;
    uint32_t capacity;               /* instances, >= 1 */
    uint32_t frames_in_flight;       /* 0 = 2 */
} gpuskin_crowd_desc;

GPUSKIN_API gpuskin_result gpuskin_crowd_create(gpuskin_context *ctx, const gpuskin_crowd_desc *desc,
                                                gpuskin_crowd **out);
GPUSKIN_API void gpuskin_crowd_destroy(gpuskin_crowd *crowd);

typedef struct gpuskin_crowd_upload_desc {
    uint32_t frame;                  /* frame slot, < frames_in_flight */
    uint32_t instance_count;         /* <= capacity */
    const gpuskin_mat4 *palettes;    /* instance_count * joint_count matrices, instance-major */
    uint32_t palette_joint_count;    /* 0 = the mesh's joint_count; else must equal it */
    const uint8_t *methods;          /* gpuskin_method per instance; NULL = all LBS */
    gpuskin_split_method split;      /* for DQS instances */
    uint32_t *out_method_words;      /* optional: instance_count words as the GPU sees them */
} gpuskin_crowd_upload_desc;

/* Writes one frame slot. LBS instances write 48 bytes a joint, rigid DQS 32, DQS
   with a non-rigid joint 80. The slot must not be in use by the GPU. */
GPUSKIN_API gpuskin_result gpuskin_crowd_upload(gpuskin_crowd *crowd, const gpuskin_crowd_upload_desc *desc);

/* Compute output: per instance, vertex_count records of
   position float[3] | normal float[3] (if GPUSKIN_OUTPUT_NORMALS) | tangent float[4]
   (if GPUSKIN_OUTPUT_TANGENTS); instance i starts at i * vertex_count * stride.
   Bindable as a vertex buffer (R32G32B32_SFLOAT at 0, 12, R32G32B32A32_SFLOAT at
   24) and usable as ray-tracing geometry (stride = gpuskin_output_stride()). */
#define GPUSKIN_OUTPUT_NORMALS 0x1u
#define GPUSKIN_OUTPUT_TANGENTS 0x2u
GPUSKIN_API uint32_t gpuskin_output_stride(uint32_t output_flags);

typedef struct gpuskin_skin_dispatch_desc {
    uint32_t frame;
    uint32_t first_instance;
    uint32_t instance_count;
    VkDeviceAddress output;          /* >= instance_count * vertex_count * stride bytes */
    VkDeviceSize output_size;        /* checked against what the dispatch writes */
    uint32_t output_flags;           /* GPUSKIN_OUTPUT_* */
} gpuskin_skin_dispatch_desc;

/* Records the compute skinning of instances [first, first+count) into `output`
   (instance first_instance lands at the start of output). Barriers are the host's:
   before: make earlier reads of `output` finish (e.g. VERTEX_ATTRIBUTE_INPUT ->
   COMPUTE_SHADER write); after: COMPUTE_SHADER/SHADER_WRITE -> the consumer
   (VERTEX_INPUT/VERTEX_ATTRIBUTE_READ, or acceleration-structure build read).
   Host writes from gpuskin_crowd_upload are visible through the queue submit. */
GPUSKIN_API gpuskin_result gpuskin_cmd_skin(gpuskin_crowd *crowd, VkCommandBuffer cmd,
                                            const gpuskin_skin_dispatch_desc *desc);

typedef struct gpuskin_pipeline_desc {
    VkFormat color_format;           /* required */
    VkFormat depth_format;           /* VK_FORMAT_UNDEFINED = no depth */
    VkSampleCountFlagBits samples;   /* 0 = 1 */
    VkCullModeFlags cull_mode;       /* 0 = none */
    VkFrontFace front_face;          /* 0 = counter-clockwise */
} gpuskin_pipeline_desc;

/* A graphics pipeline for dynamic rendering (Vulkan 1.3 / VK_KHR_dynamic_rendering),
   built from the embedded SPIR-V. Viewport and scissor are dynamic. */
GPUSKIN_API gpuskin_result gpuskin_pipeline_create(gpuskin_context *ctx, const gpuskin_pipeline_desc *desc,
                                                   gpuskin_pipeline **out);
GPUSKIN_API void gpuskin_pipeline_destroy(gpuskin_pipeline *pipeline);

#define GPUSKIN_DRAW_TINT 0x1u       /* multiply a per-instance hue into the colour */

typedef struct gpuskin_draw_desc {
    uint32_t frame;
    uint32_t instance_count;         /* instances [0, count) in one instanced draw */
    const float *view_proj;          /* 16 floats, column-major; view only: no model matrix */
    uint32_t flags;                  /* GPUSKIN_DRAW_* */
    float color[4];                  /* base colour; all zero = light grey */
    /* Skinning off: draw already-posed vertices from this address instead (the
       compute output layout with normals, one block per instance). 0 = skin on GPU. */
    VkDeviceAddress posed_vertices;
    uint32_t posed_output_flags;     /* the GPUSKIN_OUTPUT_* the posed buffer was written with */
} gpuskin_draw_desc;

/* Binds the pipeline, pushes constants, binds the mesh's index buffer and records one
   vkCmdDrawIndexed of the whole crowd. Call inside the host's rendering scope, with
   viewport and scissor set. */
GPUSKIN_API gpuskin_result gpuskin_cmd_draw(gpuskin_crowd *crowd, const gpuskin_pipeline *pipeline,
                                            VkCommandBuffer cmd, const gpuskin_draw_desc *desc);

/* The built-in allocator gpuskin uses when the desc's allocator is zero: one
   VkDeviceMemory per buffer. Exposed so hosts can wrap or test it. */
GPUSKIN_API gpuskin_allocator gpuskin_default_allocator(gpuskin_context *ctx);

#ifdef __cplusplus
}
#endif
#endif /* GPUSKIN_NO_VULKAN */
#endif /* GPUSKIN_H */
