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
#if defined(__GNUC__) || defined(__clang__)
#define GPUSKIN_API static __attribute__((unused))
#else
#define GPUSKIN_API static
#endif
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
    GPUSKIN_ERROR_ALLOCATION_FAILED,    /* the buffer allocator (the host's or the built-in one) failed, or
                                           returned no device address, or an UPLOAD/READBACK buffer unmapped */
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
    GPUSKIN_SPLIT_POLAR = 1          /* R = nearest rotation (polar factor); S symmetric unless mirrored
                                        or singular (then R comes from Gram-Schmidt) */
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
    gpuskin_stream weights[2];    /* float[4] per vertex and set; >= 0, finite; renormalised;
                                     a denormal weight (below FLT_MIN) counts as 0 */
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
    uint32_t joint_count;             /* the mesh's joint count: every weighted joint is below it */
    uint32_t palette_joint_count;     /* 0 = joint_count; else must equal it (GPUSKIN_ERROR_PALETTE_SIZE) */
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

/* The production CPU path: the same desc, the same rules and the same results as
   gpuskin_skin_cpu to float rounding (checked vertex for vertex by the tests), with
   SIMD where the compiler offers it (SSE2 on x86-64) and the oracle elsewhere. */
GPUSKIN_API gpuskin_result gpuskin_skin_cpu_fast(const gpuskin_cpu_skin_desc *desc);

/* Palettes for a range of instances, for a host's job system: each job takes its own
   [first_instance, first_instance + instance_count) and they never share output. */
typedef struct gpuskin_palette_batch_desc {
    const gpuskin_skeleton *skeleton;
    uint32_t first_instance;
    uint32_t instance_count;
    const gpuskin_mat4 *models;        /* indexed by instance; NULL = identity for all */
    const gpuskin_trs *local_poses;    /* indexed by instance, joint_count each; NULL = rest pose */
    gpuskin_mat4 *out_palettes;        /* indexed by instance, joint_count each (optional) */
    float *out_lbs;                    /* packed GPU layout, indexed by instance (optional) */
} gpuskin_palette_batch_desc;

GPUSKIN_API gpuskin_result gpuskin_build_palettes(const gpuskin_palette_batch_desc *desc);

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
    GPUSKIN_MEMORY_UPLOAD = 1,    /* written by the CPU every frame; host-visible AND host-coherent, mapped.
                                     The built-in allocator prefers device-local host-visible memory
                                     (resizable BAR, unified memory): every vertex reads the palette. */
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
    /* Function pointers: get_instance_proc_addr is required (physical-device
       queries are instance-level); device functions come from get_device_proc_addr,
       else from a volk device table, else are fetched with vkGetDeviceProcAddr.
       gpuskin never calls a global vk* symbol. */
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
    /* Requirements: a Vulkan 1.2 device with bufferDeviceAddress enabled, else
       GPUSKIN_ERROR_MISSING_FEATURE and *out_missing_feature = "Vulkan 1.2" or
       "bufferDeviceAddress" (or the name of a function the loader did not give).
       dynamicRendering is needed only by gpuskin_pipeline_create (a compute-only
       host need not enable it); a 1.2 host using VK_KHR_dynamic_rendering reports
       it in enabled_features13->dynamicRendering. Set to NULL on success. */
    const char **out_missing_feature;
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

/* Uploads the static streams once, in gpuskin's GPU layout (structure of arrays,
   one buffer): position 12 B, normal 12 B and tangent 16 B when given, then per
   influence set 8 B of joints (four 16-bit indices; a zero-weight influence is
   stored as joint 0) and 16 B of raw weights, so 48 B a vertex for positions,
   normals and 4 influences; indices as uint16 when vertex_count <= 65536.
   Errors: what gpuskin_streams_validate returns (*out_error_index = the vertex);
   an index >= vertex_count is GPUSKIN_ERROR_INVALID_ARGUMENT (*out_error_index =
   its position); index_count not a multiple of 3 is GPUSKIN_ERROR_INVALID_COUNT.
   index_count 0 is allowed (compute only; gpuskin_cmd_draw then fails).
   Buffers are GPUSKIN_MEMORY_STATIC; when the allocator cannot map them a staging
   copy is kept (until gpuskin_mesh_destroy) and gpuskin_cmd_upload_mesh must be
   recorded once before the mesh is used; it records the copy and the barrier that
   makes it visible to index fetch, vertex and compute shaders. */
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
/* The device address of frame slot `frame` (0 when out of range): what a host shader
   that #includes gpuskin_glsl_skin reads as its gpuskin_Frame reference. */
GPUSKIN_API VkDeviceAddress gpuskin_crowd_frame_address(const gpuskin_crowd *crowd, uint32_t frame);

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
   with a non-rigid joint 80 (a slot reserves 128 B per instance-joint + 4 B per
   instance). The slot must not be in use by the GPU. instance_count 0 is a no-op.
   Methods are checked before anything is written (GPUSKIN_ERROR_INVALID_METHOD
   leaves the slot as it was); a non-finite palette (GPUSKIN_ERROR_NON_FINITE) is
   found while packing and leaves the slot partly written: upload it again before
   using it. An instance never uploaded is drawn in its bind pose. */
GPUSKIN_API gpuskin_result gpuskin_crowd_upload(gpuskin_crowd *crowd, const gpuskin_crowd_upload_desc *desc);

/* Compute output: per instance, vertex_count records of
   position float[3] | normal float[3] (if GPUSKIN_OUTPUT_NORMALS) | tangent float[4]
   (if GPUSKIN_OUTPUT_TANGENTS); instance i starts at i * vertex_count * stride.
   Bindable as a vertex buffer (position R32G32B32_SFLOAT at 0; normal
   R32G32B32_SFLOAT at 12; tangent R32G32B32A32_SFLOAT at 24, or at 12 without
   normals) and usable as ray-tracing geometry (stride = gpuskin_output_stride()). */
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
   Host writes from gpuskin_crowd_upload are visible through the queue submit.
   Errors: GPUSKIN_ERROR_FRAME_SLOT; GPUSKIN_ERROR_CAPACITY when first_instance +
   instance_count > capacity; GPUSKIN_ERROR_NULL_ARGUMENT for output 0;
   GPUSKIN_ERROR_INVALID_ARGUMENT when output_size is too small, output is not
   4-byte aligned, output_flags has an unknown bit or asks for normals/tangents the
   mesh does not have, or the mesh still needs gpuskin_cmd_upload_mesh.
   instance_count 0 records nothing.
   gpuskin's shaders reach memory only through buffer device addresses, which
   synchronization validation cannot see: it does not check these barriers. */
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
   built from the embedded SPIR-V. Viewport and scissor are dynamic.
   Depth test LESS with depth writes when depth_format is set (clear to 1.0); a
   combined depth-stencil format is also declared as the stencil attachment format.
   GPUSKIN_ERROR_MISSING_FEATURE when the context's device has no dynamicRendering. */
GPUSKIN_API gpuskin_result gpuskin_pipeline_create(gpuskin_context *ctx, const gpuskin_pipeline_desc *desc,
                                                   gpuskin_pipeline **out);
GPUSKIN_API void gpuskin_pipeline_destroy(gpuskin_pipeline *pipeline);

#define GPUSKIN_DRAW_TINT 0x1u       /* multiply a per-instance hue into the colour */

typedef struct gpuskin_draw_desc {
    uint32_t frame;
    uint32_t instance_count;         /* instances [0, count) in one instanced draw */
    const float *view_proj;          /* 16 floats, column-major; view only: no model matrix */
    uint32_t flags;                  /* GPUSKIN_DRAW_* */
    float color[4];                  /* base colour; all zero = light grey (0.8, 0.8, 0.8, 1) */
    /* Skinning off: draw already-posed vertices from this address instead (the
       compute output layout, instance_count blocks of vertex_count records), e.g.
       what gpuskin_cmd_skin wrote or a CPU-posed crowd. 0 = skin on the GPU.
       Without normals (here, or in the mesh when skinning) the fragment shader
       lights the face normal from screen-space derivatives. */
    VkDeviceAddress posed_vertices;
    uint32_t posed_output_flags;     /* the GPUSKIN_OUTPUT_* the posed buffer was written with */
} gpuskin_draw_desc;

/* Binds the pipeline, pushes constants, binds the mesh's index buffer and records one
   vkCmdDrawIndexed of the whole crowd. Call inside the host's rendering scope, with
   viewport and scissor set. GPUSKIN_ERROR_INVALID_ARGUMENT when the mesh has no
   indices or still needs gpuskin_cmd_upload_mesh. */
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

/* ======================================================================== */
/*                                                                          */
/*                            IMPLEMENTATION                                */
/*                                                                          */
/* ======================================================================== */
#ifdef GPUSKIN_IMPLEMENTATION
#ifndef GPUSKIN_IMPLEMENTATION_INCLUDED
#define GPUSKIN_IMPLEMENTATION_INCLUDED

#include <math.h>
#include <string.h>

#ifndef GPUSKIN_ASSERT
#include <assert.h>
#define GPUSKIN_ASSERT(x) assert(x)
#endif

#if defined(GPUSKIN_MALLOC) && defined(GPUSKIN_FREE)
#elif !defined(GPUSKIN_MALLOC) && !defined(GPUSKIN_FREE)
#include <stdlib.h>
#define GPUSKIN_MALLOC(size, user) ((void)(user), malloc(size))
#define GPUSKIN_FREE(ptr, user) ((void)(user), free(ptr))
#else
#error "gpuskin: define both GPUSKIN_MALLOC and GPUSKIN_FREE, or neither"
#endif

#ifdef __cplusplus
extern "C" {
#endif

GPUSKIN_API const char *gpuskin_result_string(gpuskin_result result)
{
    switch (result) {
    case GPUSKIN_SUCCESS: return "success";
    case GPUSKIN_ERROR_NULL_ARGUMENT: return "a required pointer argument is NULL";
    case GPUSKIN_ERROR_INVALID_COUNT: return "a count is zero or above its limit";
    case GPUSKIN_ERROR_OVERFLOW: return "count times element size overflows";
    case GPUSKIN_ERROR_INVALID_STRIDE: return "a stream stride is smaller than its element";
    case GPUSKIN_ERROR_JOINT_OUT_OF_RANGE: return "a weighted influence names a joint index >= the joint count";
    case GPUSKIN_ERROR_INVALID_WEIGHT: return "a weight is NaN, infinite or negative (or the weights sum to infinity)";
    case GPUSKIN_ERROR_NON_FINITE: return "a matrix, transform or vertex contains NaN or infinity";
    case GPUSKIN_ERROR_PALETTE_SIZE: return "the palette's joint count differs from the mesh's joint count";
    case GPUSKIN_ERROR_PARENT_OUT_OF_RANGE: return "a joint's parent index is out of range";
    case GPUSKIN_ERROR_PARENT_CYCLE: return "the joint parent links form a cycle";
    case GPUSKIN_ERROR_INVALID_METHOD: return "unknown skinning method or method word";
    case GPUSKIN_ERROR_INVALID_CLIP: return "invalid animation channel (joint, path, interpolation, key times or values)";
    case GPUSKIN_ERROR_INVALID_ARGUMENT: return "an argument is outside its documented range";
    case GPUSKIN_ERROR_OUT_OF_MEMORY: return "out of memory";
    case GPUSKIN_ERROR_CAPACITY: return "more instances than the crowd's capacity";
    case GPUSKIN_ERROR_FRAME_SLOT: return "frame slot is not below the number of frames in flight";
    case GPUSKIN_ERROR_VULKAN: return "a Vulkan call failed";
    case GPUSKIN_ERROR_MISSING_FEATURE: return "the Vulkan device lacks a required feature";
    case GPUSKIN_ERROR_ALLOCATION_FAILED: return "the host's buffer allocator failed";
    case GPUSKIN_RESULT_COUNT_: break;
    }
    return "unknown gpuskin_result";
}

/* ---- maths -------------------------------------------------------------- */

/* x - x is 0 for every finite x and NaN for NaN and both infinities; unlike
   isfinite() it means the same in C and C++ without <cmath>. */
static int gpuskin__finite(float x) { return x - x == 0.0f; }
static int gpuskin__finite_d(double x) { return x - x == 0.0; }

static int gpuskin__all_finite(const float *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (!gpuskin__finite(v[i])) return 0;
    return 1;
}

GPUSKIN_API int gpuskin_mat4_is_finite(const gpuskin_mat4 *m) { return m && gpuskin__all_finite(m->m, 16); }

GPUSKIN_API gpuskin_mat4 gpuskin_mat4_identity(void)
{
    gpuskin_mat4 r;
    memset(&r, 0, sizeof r);
    r.m[0] = r.m[5] = r.m[10] = r.m[15] = 1.0f;
    return r;
}

GPUSKIN_API gpuskin_mat4 gpuskin_mat4_mul(const gpuskin_mat4 *a, const gpuskin_mat4 *b)
{
    gpuskin_mat4 r;
    int c, row, k;
    for (c = 0; c < 4; ++c)
        for (row = 0; row < 4; ++row) {
            float s = 0.0f;
            for (k = 0; k < 4; ++k) s += a->m[k * 4 + row] * b->m[c * 4 + k];
            r.m[c * 4 + row] = s;
        }
    return r;
}

GPUSKIN_API gpuskin_trs gpuskin_trs_identity(void)
{
    gpuskin_trs t;
    t.translation.x = t.translation.y = t.translation.z = 0.0f;
    t.rotation = gpuskin_quat_identity();
    t.scale.x = t.scale.y = t.scale.z = 1.0f;
    return t;
}

GPUSKIN_API gpuskin_quat gpuskin_quat_identity(void)
{
    gpuskin_quat q;
    q.x = q.y = q.z = 0.0f;
    q.w = 1.0f;
    return q;
}

GPUSKIN_API gpuskin_quat gpuskin_quat_mul(gpuskin_quat a, gpuskin_quat b)
{
    gpuskin_quat r;
    r.x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y;
    r.y = a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x;
    r.z = a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w;
    r.w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z;
    return r;
}

GPUSKIN_API gpuskin_quat gpuskin_quat_normalize(gpuskin_quat q)
{
    float len2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    float inv;
    if (!(len2 > 1e-24f) || !gpuskin__finite(len2)) return gpuskin_quat_identity();
    inv = 1.0f / sqrtf(len2);
    q.x *= inv; q.y *= inv; q.z *= inv; q.w *= inv;
    return q;
}

GPUSKIN_API gpuskin_quat gpuskin_quat_axis_angle(gpuskin_vec3 axis, float radians)
{
    gpuskin_quat q;
    float len = sqrtf(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
    float s = len > 0.0f ? sinf(0.5f * radians) / len : 0.0f;
    q.x = axis.x * s; q.y = axis.y * s; q.z = axis.z * s;
    q.w = len > 0.0f ? cosf(0.5f * radians) : 1.0f;
    return q;
}

GPUSKIN_API gpuskin_quat gpuskin_quat_slerp(gpuskin_quat a, gpuskin_quat b, float t)
{
    gpuskin_quat r;
    float d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    float wa, wb;
    if (d < 0.0f) { /* q and -q are one rotation: take the short way round */
        b.x = -b.x; b.y = -b.y; b.z = -b.z; b.w = -b.w;
        d = -d;
    }
    if (d > 0.9995f) { /* nearly parallel: sin(theta) ~ 0, lerp is exact enough */
        wa = 1.0f - t;
        wb = t;
    } else {
        float theta = acosf(d), st = sinf(theta);
        wa = sinf((1.0f - t) * theta) / st;
        wb = sinf(t * theta) / st;
    }
    r.x = wa * a.x + wb * b.x; r.y = wa * a.y + wb * b.y;
    r.z = wa * a.z + wb * b.z; r.w = wa * a.w + wb * b.w;
    return gpuskin_quat_normalize(r);
}

static gpuskin_vec3 gpuskin__cross(gpuskin_vec3 a, gpuskin_vec3 b)
{
    gpuskin_vec3 r;
    r.x = a.y * b.z - a.z * b.y;
    r.y = a.z * b.x - a.x * b.z;
    r.z = a.x * b.y - a.y * b.x;
    return r;
}

/* v + w*u + q.xyz x u with u = 2 q.xyz x v: the shader's rotation, term for term. */
GPUSKIN_API gpuskin_vec3 gpuskin_quat_rotate(gpuskin_quat q, gpuskin_vec3 v)
{
    gpuskin_vec3 qv, u, c, r;
    qv.x = q.x; qv.y = q.y; qv.z = q.z;
    u = gpuskin__cross(qv, v);
    u.x *= 2.0f; u.y *= 2.0f; u.z *= 2.0f;
    c = gpuskin__cross(qv, u);
    r.x = v.x + q.w * u.x + c.x;
    r.y = v.y + q.w * u.y + c.y;
    r.z = v.z + q.w * u.z + c.z;
    return r;
}

GPUSKIN_API gpuskin_mat3 gpuskin_mat3_from_quat(gpuskin_quat q)
{
    gpuskin_mat3 r;
    float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    r.m[0] = 1.0f - 2.0f * (yy + zz); r.m[1] = 2.0f * (xy + wz);        r.m[2] = 2.0f * (xz - wy);
    r.m[3] = 2.0f * (xy - wz);        r.m[4] = 1.0f - 2.0f * (xx + zz); r.m[5] = 2.0f * (yz + wx);
    r.m[6] = 2.0f * (xz + wy);        r.m[7] = 2.0f * (yz - wx);        r.m[8] = 1.0f - 2.0f * (xx + yy);
    return r;
}

/* Shepperd's method on a column-major rotation R(row, col) = r[col*3 + row]:
   divide by the largest of 4w^2, 4x^2, 4y^2, 4z^2 so nothing cancels. */
static void gpuskin__quat_from_rot_d(const double *r, double q[4])
{
#define GPUSKIN__R(row, col) r[(col) * 3 + (row)]
    double tr = GPUSKIN__R(0, 0) + GPUSKIN__R(1, 1) + GPUSKIN__R(2, 2), s, inv, len;
    if (tr > 0.0) {
        s = sqrt(tr + 1.0) * 2.0;
        inv = 1.0 / s;
        q[3] = 0.25 * s;
        q[0] = (GPUSKIN__R(2, 1) - GPUSKIN__R(1, 2)) * inv;
        q[1] = (GPUSKIN__R(0, 2) - GPUSKIN__R(2, 0)) * inv;
        q[2] = (GPUSKIN__R(1, 0) - GPUSKIN__R(0, 1)) * inv;
    } else if (GPUSKIN__R(0, 0) > GPUSKIN__R(1, 1) && GPUSKIN__R(0, 0) > GPUSKIN__R(2, 2)) {
        s = sqrt(1.0 + GPUSKIN__R(0, 0) - GPUSKIN__R(1, 1) - GPUSKIN__R(2, 2)) * 2.0;
        inv = 1.0 / s;
        q[3] = (GPUSKIN__R(2, 1) - GPUSKIN__R(1, 2)) * inv;
        q[0] = 0.25 * s;
        q[1] = (GPUSKIN__R(0, 1) + GPUSKIN__R(1, 0)) * inv;
        q[2] = (GPUSKIN__R(0, 2) + GPUSKIN__R(2, 0)) * inv;
    } else if (GPUSKIN__R(1, 1) > GPUSKIN__R(2, 2)) {
        s = sqrt(1.0 + GPUSKIN__R(1, 1) - GPUSKIN__R(0, 0) - GPUSKIN__R(2, 2)) * 2.0;
        inv = 1.0 / s;
        q[3] = (GPUSKIN__R(0, 2) - GPUSKIN__R(2, 0)) * inv;
        q[0] = (GPUSKIN__R(0, 1) + GPUSKIN__R(1, 0)) * inv;
        q[1] = 0.25 * s;
        q[2] = (GPUSKIN__R(1, 2) + GPUSKIN__R(2, 1)) * inv;
    } else {
        s = sqrt(1.0 + GPUSKIN__R(2, 2) - GPUSKIN__R(0, 0) - GPUSKIN__R(1, 1)) * 2.0;
        inv = 1.0 / s;
        q[3] = (GPUSKIN__R(1, 0) - GPUSKIN__R(0, 1)) * inv;
        q[0] = (GPUSKIN__R(0, 2) + GPUSKIN__R(2, 0)) * inv;
        q[1] = (GPUSKIN__R(1, 2) + GPUSKIN__R(2, 1)) * inv;
        q[2] = 0.25 * s;
    }
#undef GPUSKIN__R
    /* One sign for one rotation, so packing is deterministic. */
    if (q[3] < 0.0) { q[0] = -q[0]; q[1] = -q[1]; q[2] = -q[2]; q[3] = -q[3]; }
    len = 1.0 / sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    q[0] *= len; q[1] *= len; q[2] *= len; q[3] *= len;
}

GPUSKIN_API gpuskin_quat gpuskin_quat_from_mat3(const gpuskin_mat3 *r)
{
    double rd[9], q[4];
    gpuskin_quat out;
    int i;
    for (i = 0; i < 9; ++i) rd[i] = r->m[i];
    gpuskin__quat_from_rot_d(rd, q);
    out.x = (float)q[0]; out.y = (float)q[1]; out.z = (float)q[2]; out.w = (float)q[3];
    return out;
}

GPUSKIN_API gpuskin_mat4 gpuskin_mat4_from_trs(const gpuskin_trs *trs)
{
    gpuskin_mat4 m;
    gpuskin_mat3 r = gpuskin_mat3_from_quat(gpuskin_quat_normalize(trs->rotation));
    const float s[3] = {trs->scale.x, trs->scale.y, trs->scale.z};
    int c, row;
    for (c = 0; c < 3; ++c) {
        for (row = 0; row < 3; ++row) m.m[c * 4 + row] = r.m[c * 3 + row] * s[c];
        m.m[c * 4 + 3] = 0.0f;
    }
    m.m[12] = trs->translation.x;
    m.m[13] = trs->translation.y;
    m.m[14] = trs->translation.z;
    m.m[15] = 1.0f;
    return m;
}

GPUSKIN_API gpuskin_result gpuskin_mat4_inverse_affine(const gpuskin_mat4 *m, gpuskin_mat4 *out)
{
    double a[9], inv[9], det, t[3];
    int c, row;
    if (!m || !out) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (!gpuskin_mat4_is_finite(m)) return GPUSKIN_ERROR_NON_FINITE;
    for (c = 0; c < 3; ++c)
        for (row = 0; row < 3; ++row) a[c * 3 + row] = m->m[c * 4 + row];
    /* inv = adj(a) / det, column-major; adj's (r,c) is the cofactor of (c,r). */
    inv[0] = a[4] * a[8] - a[7] * a[5];
    inv[1] = a[7] * a[2] - a[1] * a[8];
    inv[2] = a[1] * a[5] - a[4] * a[2];
    inv[3] = a[6] * a[5] - a[3] * a[8];
    inv[4] = a[0] * a[8] - a[6] * a[2];
    inv[5] = a[3] * a[2] - a[0] * a[5];
    inv[6] = a[3] * a[7] - a[6] * a[4];
    inv[7] = a[6] * a[1] - a[0] * a[7];
    inv[8] = a[0] * a[4] - a[3] * a[1];
    det = a[0] * inv[0] + a[3] * inv[1] + a[6] * inv[2];
    if (det == 0.0 || !gpuskin__finite_d(1.0 / det)) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    for (c = 0; c < 9; ++c) inv[c] /= det;
    t[0] = m->m[12]; t[1] = m->m[13]; t[2] = m->m[14];
    for (c = 0; c < 3; ++c) {
        for (row = 0; row < 3; ++row) out->m[c * 4 + row] = (float)inv[c * 3 + row];
        out->m[c * 4 + 3] = 0.0f;
    }
    for (row = 0; row < 3; ++row)
        out->m[12 + row] = (float)-(inv[row] * t[0] + inv[3 + row] * t[1] + inv[6 + row] * t[2]);
    out->m[15] = 1.0f;
    if (!gpuskin_mat4_is_finite(out)) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API gpuskin_vec3 gpuskin_mat4_transform_point(const gpuskin_mat4 *m, gpuskin_vec3 p)
{
    gpuskin_vec3 r;
    r.x = m->m[0] * p.x + m->m[4] * p.y + m->m[8] * p.z + m->m[12];
    r.y = m->m[1] * p.x + m->m[5] * p.y + m->m[9] * p.z + m->m[13];
    r.z = m->m[2] * p.x + m->m[6] * p.y + m->m[10] * p.z + m->m[14];
    return r;
}

GPUSKIN_API gpuskin_dualquat gpuskin_dualquat_from_rt(gpuskin_quat rotation, gpuskin_vec3 translation)
{
    gpuskin_dualquat dq;
    gpuskin_quat t;
    t.x = 0.5f * translation.x; t.y = 0.5f * translation.y; t.z = 0.5f * translation.z; t.w = 0.0f;
    dq.real = rotation;
    dq.dual = gpuskin_quat_mul(t, rotation);
    return dq;
}

/* 2 * dual * conj(real), vector part, written out as the shader writes it. */
GPUSKIN_API gpuskin_vec3 gpuskin_dualquat_translation(const gpuskin_dualquat *dq)
{
    const gpuskin_quat r = dq->real, d = dq->dual;
    gpuskin_vec3 t;
    t.x = 2.0f * (r.w * d.x - d.w * r.x + (r.y * d.z - r.z * d.y));
    t.y = 2.0f * (r.w * d.y - d.w * r.y + (r.z * d.x - r.x * d.z));
    t.z = 2.0f * (r.w * d.z - d.w * r.z + (r.x * d.y - r.y * d.x));
    return t;
}

GPUSKIN_API gpuskin_dualquat gpuskin_dualquat_normalize(gpuskin_dualquat dq)
{
    gpuskin_quat r = dq.real, d = dq.dual;
    float len2 = r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w, inv, rd;
    if (len2 < 1e-12f) {
        dq.real = gpuskin_quat_identity();
        dq.dual.x = dq.dual.y = dq.dual.z = dq.dual.w = 0.0f;
        return dq;
    }
    inv = 1.0f / sqrtf(len2);
    r.x *= inv; r.y *= inv; r.z *= inv; r.w *= inv;
    d.x *= inv; d.y *= inv; d.z *= inv; d.w *= inv;
    /* A unit dual quaternion has real . dual = 0; a blend does not, and the excess
       would leak into the translation as a spurious scale. */
    rd = r.x * d.x + r.y * d.y + r.z * d.z + r.w * d.w;
    d.x -= rd * r.x; d.y -= rd * r.y; d.z -= rd * r.z; d.w -= rd * r.w;
    dq.real = r;
    dq.dual = d;
    return dq;
}

/* ---- skeleton and palette ---------------------------------------------- */

static int gpuskin__trs_finite(const gpuskin_trs *t)
{
    return gpuskin__all_finite(&t->translation.x, 3) && gpuskin__all_finite(&t->rotation.x, 4) &&
           gpuskin__all_finite(&t->scale.x, 3);
}

GPUSKIN_API gpuskin_result gpuskin_skeleton_init(gpuskin_skeleton *sk, const gpuskin_skeleton_desc *desc)
{
    uint32_t n, j, count = 0;
    size_t bytes;
    char *block;
    uint32_t *stack;
    uint8_t *state;
    if (!sk) return GPUSKIN_ERROR_NULL_ARGUMENT;
    memset(sk, 0, sizeof *sk);
    if (!desc || !desc->parents) return GPUSKIN_ERROR_NULL_ARGUMENT;
    n = desc->joint_count;
    if (n == 0 || n > GPUSKIN_MAX_JOINTS) return GPUSKIN_ERROR_INVALID_COUNT;
    for (j = 0; j < n; ++j)
        if (desc->parents[j] < -1 || desc->parents[j] >= (int32_t)n) return GPUSKIN_ERROR_PARENT_OUT_OF_RANGE;
    for (j = 0; j < n; ++j) {
        if (desc->inverse_bind && !gpuskin_mat4_is_finite(&desc->inverse_bind[j])) return GPUSKIN_ERROR_NON_FINITE;
        if (desc->root_parent_globals && desc->parents[j] < 0 && !gpuskin_mat4_is_finite(&desc->root_parent_globals[j]))
            return GPUSKIN_ERROR_NON_FINITE;
        if (desc->rest_pose && !gpuskin__trs_finite(&desc->rest_pose[j])) return GPUSKIN_ERROR_NON_FINITE;
    }
    /* One block: the owned arrays, then scratch for the ordering walk. n <= 2^16,
       so none of these products can overflow. */
    bytes = (size_t)n * (2 * sizeof(gpuskin_mat4) + sizeof(gpuskin_trs) + 2 * sizeof(uint32_t));
    block = (char *)GPUSKIN_MALLOC(bytes + (size_t)n * (sizeof(uint32_t) + 1), desc->alloc_user);
    if (!block) return GPUSKIN_ERROR_OUT_OF_MEMORY;
    sk->inverse_bind = (gpuskin_mat4 *)block;
    sk->root_parent_globals = sk->inverse_bind + n;
    sk->rest_pose = (gpuskin_trs *)(sk->root_parent_globals + n);
    sk->parents = (int32_t *)(sk->rest_pose + n);
    sk->order = (uint32_t *)(sk->parents + n);
    stack = sk->order + n;
    state = (uint8_t *)(stack + n);
    sk->joint_count = n;
    sk->alloc_user = desc->alloc_user;
    memcpy(sk->parents, desc->parents, n * sizeof(int32_t));
    for (j = 0; j < n; ++j) {
        sk->inverse_bind[j] = desc->inverse_bind ? desc->inverse_bind[j] : gpuskin_mat4_identity();
        sk->root_parent_globals[j] = desc->root_parent_globals ? desc->root_parent_globals[j] : gpuskin_mat4_identity();
        sk->rest_pose[j] = desc->rest_pose ? desc->rest_pose[j] : gpuskin_trs_identity();
    }
    /* glTF lists joints in any order. Walk up from each joint to the first ancestor
       already placed, then place that path top-down: every parent precedes its
       children, and meeting a joint of the path being walked is a cycle. */
    memset(state, 0, n); /* 0 = unplaced, 1 = on the current path, 2 = placed */
    for (j = 0; j < n; ++j) {
        uint32_t len = 0;
        int32_t k = (int32_t)j;
        while (k >= 0 && state[k] != 2) {
            if (state[k] == 1) {
                gpuskin_skeleton_free(sk);
                return GPUSKIN_ERROR_PARENT_CYCLE;
            }
            state[k] = 1;
            stack[len++] = (uint32_t)k;
            k = sk->parents[k];
        }
        while (len) {
            uint32_t p = stack[--len];
            state[p] = 2;
            sk->order[count++] = p;
        }
    }
    GPUSKIN_ASSERT(count == n);
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API void gpuskin_skeleton_free(gpuskin_skeleton *sk)
{
    if (!sk) return;
    GPUSKIN_FREE(sk->inverse_bind, sk->alloc_user);
    memset(sk, 0, sizeof *sk);
}

GPUSKIN_API gpuskin_result gpuskin_skeleton_globals(const gpuskin_skeleton *sk, const gpuskin_trs *local_pose,
                                                    gpuskin_mat4 *out_globals)
{
    uint32_t i;
    if (!sk || !out_globals || !sk->order) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (local_pose)
        for (i = 0; i < sk->joint_count; ++i)
            if (!gpuskin__trs_finite(&local_pose[i])) return GPUSKIN_ERROR_NON_FINITE;
    for (i = 0; i < sk->joint_count; ++i) {
        uint32_t j = sk->order[i];
        int32_t p = sk->parents[j];
        gpuskin_mat4 local = gpuskin_mat4_from_trs(local_pose ? &local_pose[j] : &sk->rest_pose[j]);
        out_globals[j] = gpuskin_mat4_mul(p < 0 ? &sk->root_parent_globals[j] : &out_globals[p], &local);
    }
    for (i = 0; i < sk->joint_count; ++i)
        if (!gpuskin_mat4_is_finite(&out_globals[i])) return GPUSKIN_ERROR_NON_FINITE;
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API gpuskin_result gpuskin_skeleton_palette(const gpuskin_skeleton *sk, const gpuskin_mat4 *model,
                                                    const gpuskin_mat4 *globals, gpuskin_mat4 *out_palette)
{
    uint32_t j;
    if (!sk || !globals || !out_palette || !sk->inverse_bind) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (model && !gpuskin_mat4_is_finite(model)) return GPUSKIN_ERROR_NON_FINITE;
    for (j = 0; j < sk->joint_count; ++j) {
        gpuskin_mat4 g = gpuskin_mat4_mul(&globals[j], &sk->inverse_bind[j]);
        out_palette[j] = model ? gpuskin_mat4_mul(model, &g) : g;
        if (!gpuskin_mat4_is_finite(&out_palette[j])) return GPUSKIN_ERROR_NON_FINITE;
    }
    return GPUSKIN_SUCCESS;
}

/* ---- the dual-quaternion split ----------------------------------------- */

/* fmax() is a library call at -O2; this is one instruction. */
static double gpuskin__max_d(double a, double b) { return a > b ? a : b; }

static double gpuskin__det3_d(const double *a) /* column-major */
{
    return a[0] * (a[4] * a[8] - a[7] * a[5]) - a[3] * (a[1] * a[8] - a[7] * a[2]) +
           a[6] * (a[1] * a[5] - a[4] * a[2]);
}

/* Gram-Schmidt on the first two columns of b; the third axis is their cross
   product, so R is proper whatever b's third column holds (even zero). Returns 0
   when the first or second column has collapsed. */
static int gpuskin__rotation_gram_schmidt(const double *b, double amax, double *r)
{
    double n0, n1, d, inv;
    int i;
    n0 = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    if (!(n0 > 1e-6 * amax)) return 0;
    inv = 1.0 / n0;
    for (i = 0; i < 3; ++i) r[i] = b[i] * inv;
    d = r[0] * b[3] + r[1] * b[4] + r[2] * b[5];
    for (i = 0; i < 3; ++i) r[3 + i] = b[3 + i] - d * r[i];
    n1 = sqrt(r[3] * r[3] + r[4] * r[4] + r[5] * r[5]);
    if (!(n1 > 1e-6 * amax)) return 0;
    inv = 1.0 / n1;
    for (i = 0; i < 3; ++i) r[3 + i] *= inv;
    r[6] = r[1] * r[5] - r[2] * r[4];
    r[7] = r[2] * r[3] - r[0] * r[5];
    r[8] = r[0] * r[4] - r[1] * r[3];
    return 1;
}

/* The orthogonal polar factor of b (det b > 0) by Higham's scaled Newton
   iteration X <- (g X + (g X)^-T) / 2, g = |det X|^(-1/3). Returns 0 when b is
   too close to singular for the iteration to mean anything. */
static int gpuskin__rotation_polar(const double *b, double amax, double *r)
{
    double x[9], cof[9], det, g;
    int it, i;
    det = gpuskin__det3_d(b);
    if (!(det > 1e-9 * amax * amax * amax)) return 0;
    memcpy(x, b, sizeof x);
    for (it = 0; it < 64; ++it) {
        double change = 0.0;
        det = gpuskin__det3_d(x);
        g = 1.0 / cbrt(fabs(det));
        /* cofactor matrix / det = inverse transpose */
        cof[0] = x[4] * x[8] - x[5] * x[7]; cof[1] = x[5] * x[6] - x[3] * x[8]; cof[2] = x[3] * x[7] - x[4] * x[6];
        cof[3] = x[2] * x[7] - x[1] * x[8]; cof[4] = x[0] * x[8] - x[2] * x[6]; cof[5] = x[1] * x[6] - x[0] * x[7];
        cof[6] = x[1] * x[5] - x[2] * x[4]; cof[7] = x[2] * x[3] - x[0] * x[5]; cof[8] = x[0] * x[4] - x[1] * x[3];
        for (i = 0; i < 9; ++i) {
            double nx = 0.5 * (g * x[i] + cof[i] / (g * det));
            change = gpuskin__max_d(change, fabs(nx - x[i]));
            x[i] = nx;
        }
        if (change < 1e-15) break;
    }
    memcpy(r, x, sizeof x);
    return 1;
}

/* The split of a finite matrix (the public function and the packer check that). */
static void gpuskin__split(const gpuskin_mat4 *m, gpuskin_split_method method, gpuskin_split *out)
{
    double a[9], b[9], r[9], s[9], q[4], amax = 0.0, dev = 0.0;
    int c, row, k, found;
    gpuskin_quat rq;
    gpuskin_vec3 t;
    for (c = 0; c < 3; ++c)
        for (row = 0; row < 3; ++row) {
            a[c * 3 + row] = m->m[c * 4 + row];
            amax = gpuskin__max_d(amax, fabs(a[c * 3 + row]));
        }
    memcpy(b, a, sizeof b);
    /* A mirror has no rotation. Read it as a negative scale on the local x axis:
       find R for A with x flipped; S = R^T A then carries the reflection. */
    if (gpuskin__det3_d(a) < 0.0)
        for (row = 0; row < 3; ++row) b[row] = -b[row];
    found = amax > 0.0;
    if (found && method == GPUSKIN_SPLIT_POLAR) found = gpuskin__rotation_polar(b, amax, r);
    if (found && method == GPUSKIN_SPLIT_GRAM_SCHMIDT) found = gpuskin__rotation_gram_schmidt(b, amax, r);
    if (!found && method == GPUSKIN_SPLIT_POLAR && amax > 0.0) /* near-singular: R from the two columns left */
        found = gpuskin__rotation_gram_schmidt(b, amax, r);
    out->degenerate = !found;
    if (!found) { /* a collapsed axis: no rotation to speak of, S takes the whole 3x3 */
        memset(r, 0, sizeof r);
        r[0] = r[4] = r[8] = 1.0;
    }
    for (c = 0; c < 3; ++c) { /* S = R^T A: S(row, c) = (column row of R) . (column c of A) */
        const double *ac = a + c * 3;
        s[c * 3 + 0] = r[0] * ac[0] + r[1] * ac[1] + r[2] * ac[2];
        s[c * 3 + 1] = r[3] * ac[0] + r[4] * ac[1] + r[5] * ac[2];
        s[c * 3 + 2] = r[6] * ac[0] + r[7] * ac[1] + r[8] * ac[2];
    }
    for (k = 0; k < 9; ++k) dev = gpuskin__max_d(dev, fabs(s[k] - (k % 4 == 0 ? 1.0 : 0.0)));
    out->rigid = dev <= (double)GPUSKIN_RIGID_TOLERANCE;
    if (out->rigid) {
        memset(&out->residual, 0, sizeof out->residual);
        out->residual.m[0] = out->residual.m[4] = out->residual.m[8] = 1.0f;
    } else {
        for (k = 0; k < 9; ++k) out->residual.m[k] = (float)s[k];
    }
    gpuskin__quat_from_rot_d(r, q);
    rq.x = (float)q[0]; rq.y = (float)q[1]; rq.z = (float)q[2]; rq.w = (float)q[3];
    t.x = m->m[12]; t.y = m->m[13]; t.z = m->m[14];
    out->dq = gpuskin_dualquat_from_rt(rq, t);
}

GPUSKIN_API gpuskin_result gpuskin_split_matrix(const gpuskin_mat4 *m, gpuskin_split_method method, gpuskin_split *out)
{
    if (!m || !out) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (method != GPUSKIN_SPLIT_GRAM_SCHMIDT && method != GPUSKIN_SPLIT_POLAR) return GPUSKIN_ERROR_INVALID_METHOD;
    if (!gpuskin_mat4_is_finite(m)) return GPUSKIN_ERROR_NON_FINITE;
    gpuskin__split(m, method, out);
    return GPUSKIN_SUCCESS;
}

/* ---- GPU packing --------------------------------------------------------- */

GPUSKIN_API gpuskin_result gpuskin_pack_lbs(const gpuskin_mat4 *palette, uint32_t joint_count, float *out)
{
    uint32_t j;
    int row, c;
    if (!palette || !out) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (joint_count == 0 || joint_count > GPUSKIN_MAX_JOINTS) return GPUSKIN_ERROR_INVALID_COUNT;
    for (j = 0; j < joint_count; ++j)
        if (!gpuskin_mat4_is_finite(&palette[j])) return GPUSKIN_ERROR_NON_FINITE;
    for (j = 0; j < joint_count; ++j)
        for (row = 0; row < 3; ++row)
            for (c = 0; c < 4; ++c) out[j * 12u + (uint32_t)(row * 4 + c)] = palette[j].m[c * 4 + row];
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API gpuskin_result gpuskin_pack_dq(const gpuskin_mat4 *palette, uint32_t joint_count,
                                           gpuskin_split_method split, float *out_dq, float *out_residual,
                                           uint32_t *out_method_word)
{
    uint32_t j, word = GPUSKIN_METHOD_DQS;
    int row, c;
    if (!palette || !out_dq || !out_method_word) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (joint_count == 0 || joint_count > GPUSKIN_MAX_JOINTS) return GPUSKIN_ERROR_INVALID_COUNT;
    if (split != GPUSKIN_SPLIT_GRAM_SCHMIDT && split != GPUSKIN_SPLIT_POLAR) return GPUSKIN_ERROR_INVALID_METHOD;
    for (j = 0; j < joint_count; ++j)
        if (!gpuskin_mat4_is_finite(&palette[j])) return GPUSKIN_ERROR_NON_FINITE;
    for (j = 0; j < joint_count; ++j) {
        gpuskin_split s;
        float *d = out_dq + j * 8u;
        gpuskin__split(&palette[j], split, &s);
        d[0] = s.dq.real.x; d[1] = s.dq.real.y; d[2] = s.dq.real.z; d[3] = s.dq.real.w;
        d[4] = s.dq.dual.x; d[5] = s.dq.dual.y; d[6] = s.dq.dual.z; d[7] = s.dq.dual.w;
        if (!s.rigid) word |= GPUSKIN_METHOD_RESIDUAL_BIT;
        if (out_residual)
            for (row = 0; row < 3; ++row) {
                for (c = 0; c < 3; ++c) out_residual[j * 12u + (uint32_t)(row * 4 + c)] = s.residual.m[c * 3 + row];
                out_residual[j * 12u + (uint32_t)(row * 4 + 3)] = 0.0f;
            }
    }
    *out_method_word = word;
    return GPUSKIN_SUCCESS;
}

/* ---- vertex streams ------------------------------------------------------- */

static size_t gpuskin__joint_size(gpuskin_joint_type t)
{
    return t == GPUSKIN_JOINT_U8 ? 1u : t == GPUSKIN_JOINT_U16 ? 2u : 4u;
}

static size_t gpuskin__stride(const gpuskin_stream *s, size_t elem) { return s->stride ? s->stride : elem; }

/* Streams may be unaligned (interleaved byte layouts); memcpy reads them safely. */
static void gpuskin__read_floats(const gpuskin_stream *s, size_t i, size_t elem, float *out, size_t n)
{
    memcpy(out, (const char *)s->data + i * gpuskin__stride(s, elem), n * sizeof(float));
}

static void gpuskin__write_floats(const gpuskin_out_stream *s, size_t i, size_t elem, const float *v, size_t n)
{
    memcpy((char *)s->data + i * (s->stride ? s->stride : elem), v, n * sizeof(float));
}

static uint32_t gpuskin__sets(const gpuskin_vertex_streams *s) { return s->influence_sets ? s->influence_sets : 1u; }

/* A denormal weight counts as zero, as on GPUs that flush denormals (Vulkan allows
   it), so oracle and shader agree, and 1/sum below can never overflow. */
#define GPUSKIN__MIN_WEIGHT 1.17549435e-38f /* FLT_MIN */

/* Influences of vertex v, flattened: set 0's four, then set 1's. */
static void gpuskin__read_influences(const gpuskin_vertex_streams *s, size_t v, uint32_t *joints, float *weights)
{
    uint32_t set, k, sets = gpuskin__sets(s);
    size_t jsize = gpuskin__joint_size(s->joint_type);
    for (set = 0; set < sets; ++set) {
        const unsigned char *jp = (const unsigned char *)s->joints[set].data + v * gpuskin__stride(&s->joints[set], 4 * jsize);
        gpuskin__read_floats(&s->weights[set], v, 16, weights + 4 * set, 4);
        for (k = 0; k < 4; ++k) {
            if (jsize == 1) {
                joints[4 * set + k] = jp[k];
            } else if (jsize == 2) {
                uint16_t x;
                memcpy(&x, jp + 2 * k, 2);
                joints[4 * set + k] = x;
            } else {
                memcpy(&joints[4 * set + k], jp + 4 * k, 4);
            }
            if (fabsf(weights[4 * set + k]) < GPUSKIN__MIN_WEIGHT) weights[4 * set + k] = 0.0f;
        }
    }
}

/* Checks a stream's stride and that its last element lies inside the address space. */
static gpuskin_result gpuskin__check_stream(const void *data, size_t stride, size_t elem, size_t count)
{
    if (!data) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (stride == 0) stride = elem;
    if (stride < elem) return GPUSKIN_ERROR_INVALID_STRIDE;
    if ((count - 1) > (SIZE_MAX - elem) / stride) return GPUSKIN_ERROR_OVERFLOW;
    return GPUSKIN_SUCCESS;
}

#define GPUSKIN__TRY(expr)                                                                                            \
    do {                                                                                                              \
        gpuskin_result gpuskin__r_ = (expr);                                                                          \
        if (gpuskin__r_ != GPUSKIN_SUCCESS) return gpuskin__r_;                                                       \
    } while (0)

GPUSKIN_API gpuskin_result gpuskin_streams_validate(const gpuskin_vertex_streams *s, uint32_t joint_count,
                                                    size_t *out_bad_vertex)
{
    size_t v, n;
    uint32_t set, sets, k;
    if (out_bad_vertex) *out_bad_vertex = 0;
    if (!s) return GPUSKIN_ERROR_NULL_ARGUMENT;
    n = s->vertex_count;
    if (n == 0 || joint_count == 0 || joint_count > GPUSKIN_MAX_JOINTS) return GPUSKIN_ERROR_INVALID_COUNT;
    if (s->influence_sets > 2) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    if (s->joint_type != GPUSKIN_JOINT_U16 && s->joint_type != GPUSKIN_JOINT_U8 && s->joint_type != GPUSKIN_JOINT_U32)
        return GPUSKIN_ERROR_INVALID_ARGUMENT;
    sets = gpuskin__sets(s);
    GPUSKIN__TRY(gpuskin__check_stream(s->positions.data, s->positions.stride, 12, n));
    if (s->normals.data) GPUSKIN__TRY(gpuskin__check_stream(s->normals.data, s->normals.stride, 12, n));
    if (s->tangents.data) GPUSKIN__TRY(gpuskin__check_stream(s->tangents.data, s->tangents.stride, 16, n));
    for (set = 0; set < sets; ++set) {
        GPUSKIN__TRY(gpuskin__check_stream(s->joints[set].data, s->joints[set].stride, 4 * gpuskin__joint_size(s->joint_type), n));
        GPUSKIN__TRY(gpuskin__check_stream(s->weights[set].data, s->weights[set].stride, 16, n));
    }
    for (v = 0; v < n; ++v) {
        float f[4], w[8], sum = 0.0f;
        uint32_t j[8];
        if (out_bad_vertex) *out_bad_vertex = v;
        gpuskin__read_floats(&s->positions, v, 12, f, 3);
        if (!gpuskin__all_finite(f, 3)) return GPUSKIN_ERROR_NON_FINITE;
        if (s->normals.data) {
            gpuskin__read_floats(&s->normals, v, 12, f, 3);
            if (!gpuskin__all_finite(f, 3)) return GPUSKIN_ERROR_NON_FINITE;
        }
        if (s->tangents.data) {
            gpuskin__read_floats(&s->tangents, v, 16, f, 4);
            if (!gpuskin__all_finite(f, 4)) return GPUSKIN_ERROR_NON_FINITE;
        }
        gpuskin__read_influences(s, v, j, w);
        for (k = 0; k < 4 * sets; ++k) {
            if (!gpuskin__finite(w[k]) || w[k] < 0.0f) return GPUSKIN_ERROR_INVALID_WEIGHT;
            if (w[k] != 0.0f && j[k] >= joint_count) return GPUSKIN_ERROR_JOINT_OUT_OF_RANGE;
            sum += w[k];
        }
        if (!gpuskin__finite(sum)) return GPUSKIN_ERROR_INVALID_WEIGHT;
    }
    if (out_bad_vertex) *out_bad_vertex = 0;
    return GPUSKIN_SUCCESS;
}

/* ---- the CPU oracle ------------------------------------------------------- */
/* Read this next to shaders/gpuskin_skin.glsl: the same statements in the same
   order. A blended transform is a 3x4 affine held as three rows, b[row][col]. */

typedef struct gpuskin__affine { float r[3][4]; } gpuskin__affine;

static gpuskin__affine gpuskin__affine_identity(void)
{
    gpuskin__affine b;
    memset(&b, 0, sizeof b);
    b.r[0][0] = b.r[1][1] = b.r[2][2] = 1.0f;
    return b;
}

static gpuskin__affine gpuskin__blend_lbs(const float *palette, const uint32_t *j, const float *w, uint32_t k)
{
    gpuskin__affine b;
    float sum = 0.0f, norm;
    int contributed = 0, row, c;
    uint32_t i;
    for (i = 0; i < k; ++i) sum += w[i];
    norm = sum > 0.0f ? 1.0f / sum : 1.0f;
    memset(&b, 0, sizeof b);
    for (i = 0; i < k; ++i) {
        const float *p;
        float wi;
        if (w[i] == 0.0f) continue;
        wi = w[i] * norm;
        p = palette + j[i] * GPUSKIN_LBS_FLOATS_PER_JOINT;
        for (row = 0; row < 3; ++row)
            for (c = 0; c < 4; ++c) b.r[row][c] += p[row * 4 + c] * wi;
        contributed = 1;
    }
    /* No influence at all: the vertex keeps its bind pose instead of collapsing to 0. */
    return contributed ? b : gpuskin__affine_identity();
}

static float gpuskin__dot4(const float *a, const float *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]; }

static gpuskin__affine gpuskin__blend_dqs(const float *dq, const float *residual, int use_residual, const uint32_t *j,
                                          const float *w, uint32_t k)
{
    gpuskin__affine b;
    float sum = 0.0f, norm, best = 0.0f, real[4] = {0, 0, 0, 0}, du[4] = {0, 0, 0, 0}, s[3][4], len2, t[3];
    const float *pr;
    int pivot = -1, row, c;
    uint32_t i;
    gpuskin_quat q;
    for (i = 0; i < k; ++i) sum += w[i];
    norm = sum > 0.0f ? 1.0f / sum : 1.0f;
    /* The pivot is the highest weight, the first on a tie (strict >), so the sign
       choice does not depend on the order the influences were listed in. */
    for (i = 0; i < k; ++i)
        if (w[i] > best) {
            best = w[i];
            pivot = (int)i;
        }
    if (pivot < 0) return gpuskin__affine_identity();
    pr = dq + j[pivot] * GPUSKIN_DQ_FLOATS_PER_JOINT;
    memset(s, 0, sizeof s);
    for (i = 0; i < k; ++i) {
        const float *r, *d;
        float wi, sgn;
        if (w[i] == 0.0f) continue;
        wi = w[i] * norm;
        r = dq + j[i] * GPUSKIN_DQ_FLOATS_PER_JOINT;
        d = r + 4;
        /* q and -q are one rotation but opposite dual quaternions: blend every
           influence on the pivot's hemisphere, or the ring pinches to nothing. */
        sgn = gpuskin__dot4(pr, r) < 0.0f ? -1.0f : 1.0f;
        for (c = 0; c < 4; ++c) {
            real[c] += r[c] * (wi * sgn);
            du[c] += d[c] * (wi * sgn);
        }
        /* S is blended without the sign: a scale or shear has no antipode. */
        if (use_residual) {
            const float *sr = residual + j[i] * GPUSKIN_RESIDUAL_FLOATS_PER_JOINT;
            for (row = 0; row < 3; ++row)
                for (c = 0; c < 4; ++c) s[row][c] += sr[row * 4 + c] * wi;
        }
    }
    len2 = gpuskin__dot4(real, real);
    if (len2 < 1e-12f) {
        real[0] = real[1] = real[2] = 0.0f;
        real[3] = 1.0f;
        du[0] = du[1] = du[2] = du[3] = 0.0f;
    } else {
        float inv = 1.0f / sqrtf(len2), rd;
        for (c = 0; c < 4; ++c) {
            real[c] *= inv;
            du[c] *= inv;
        }
        rd = gpuskin__dot4(real, du);
        for (c = 0; c < 4; ++c) du[c] -= rd * real[c];
    }
    if (!use_residual) {
        memset(s, 0, sizeof s);
        s[0][0] = s[1][1] = s[2][2] = 1.0f;
    }
    t[0] = 2.0f * (real[3] * du[0] - du[3] * real[0] + (real[1] * du[2] - real[2] * du[1]));
    t[1] = 2.0f * (real[3] * du[1] - du[3] * real[1] + (real[2] * du[0] - real[0] * du[2]));
    t[2] = 2.0f * (real[3] * du[2] - du[3] * real[2] + (real[0] * du[1] - real[1] * du[0]));
    q.x = real[0]; q.y = real[1]; q.z = real[2]; q.w = real[3];
    /* R's column c is the rotated basis vector e_c; B = [R S | t]. */
    for (c = 0; c < 3; ++c) {
        gpuskin_vec3 e, rc;
        e.x = c == 0 ? 1.0f : 0.0f; e.y = c == 1 ? 1.0f : 0.0f; e.z = c == 2 ? 1.0f : 0.0f;
        rc = gpuskin_quat_rotate(q, e);
        /* (R S)[row][cc] = sum_c R[row][c] S[c][cc]; accumulate column c of R */
        for (row = 0; row < 3; ++row) {
            float rv = row == 0 ? rc.x : row == 1 ? rc.y : rc.z;
            int cc;
            if (c == 0)
                for (cc = 0; cc < 3; ++cc) b.r[row][cc] = 0.0f;
            for (cc = 0; cc < 3; ++cc) b.r[row][cc] += rv * s[c][cc];
        }
    }
    for (row = 0; row < 3; ++row) b.r[row][3] = t[row];
    return b;
}

/* n' = normalise(M^-T n) with M^-T = cofactor(M) / det(M); the plain 3x3 when the
   determinant is zero or not finite (a wrong-ish normal beats a NaN). */
static void gpuskin__skin_normal(const gpuskin__affine *b, const float *n, float *out)
{
    const float a00 = b->r[0][0], a01 = b->r[0][1], a02 = b->r[0][2];
    const float a10 = b->r[1][0], a11 = b->r[1][1], a12 = b->r[1][2];
    const float a20 = b->r[2][0], a21 = b->r[2][1], a22 = b->r[2][2];
    float m[3][3], d, len;
    int row;
    m[0][0] = a11 * a22 - a12 * a21; m[0][1] = a12 * a20 - a10 * a22; m[0][2] = a10 * a21 - a11 * a20;
    m[1][0] = a02 * a21 - a01 * a22; m[1][1] = a00 * a22 - a02 * a20; m[1][2] = a01 * a20 - a00 * a21;
    m[2][0] = a01 * a12 - a02 * a11; m[2][1] = a02 * a10 - a00 * a12; m[2][2] = a00 * a11 - a01 * a10;
    d = a00 * m[0][0] + a01 * m[0][1] + a02 * m[0][2];
    if (fabsf(d) > 1e-20f && gpuskin__finite(d)) {
        float inv = 1.0f / d;
        for (row = 0; row < 3; ++row) {
            m[row][0] *= inv; m[row][1] *= inv; m[row][2] *= inv;
        }
    } else {
        for (row = 0; row < 3; ++row) {
            m[row][0] = b->r[row][0]; m[row][1] = b->r[row][1]; m[row][2] = b->r[row][2];
        }
    }
    for (row = 0; row < 3; ++row) out[row] = m[row][0] * n[0] + m[row][1] * n[1] + m[row][2] * n[2];
    len = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
    if (len > 1e-12f) {
        out[0] /= len; out[1] /= len; out[2] /= len;
    }
}

/* Tangents follow the surface, so they take the plain 3x3 (not the inverse
   transpose); the handedness w is copied. */
static void gpuskin__skin_tangent(const gpuskin__affine *b, const float *t, float *out)
{
    float len;
    int row;
    for (row = 0; row < 3; ++row) out[row] = b->r[row][0] * t[0] + b->r[row][1] * t[1] + b->r[row][2] * t[2];
    len = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
    if (len > 1e-12f) {
        out[0] /= len; out[1] /= len; out[2] /= len;
    }
    out[3] = t[3];
}

static gpuskin_result gpuskin__check_palette(const float *p, uint32_t joints, uint32_t floats_per_joint)
{
    if (!p) return GPUSKIN_ERROR_NULL_ARGUMENT;
    return gpuskin__all_finite(p, (size_t)joints * floats_per_joint) ? GPUSKIN_SUCCESS : GPUSKIN_ERROR_NON_FINITE;
}

GPUSKIN_API gpuskin_result gpuskin_skin_cpu(const gpuskin_cpu_skin_desc *desc)
{
    const gpuskin_vertex_streams *s;
    uint32_t method, k;
    int residual, do_normals, do_tangents;
    size_t v;
    if (!desc) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (desc->out_error_index) *desc->out_error_index = 0;
    s = &desc->streams;
    method = desc->method_word & GPUSKIN_METHOD_ID_MASK;
    residual = (desc->method_word & GPUSKIN_METHOD_RESIDUAL_BIT) != 0;
    if ((desc->method_word & ~(GPUSKIN_METHOD_ID_MASK | GPUSKIN_METHOD_RESIDUAL_BIT)) != 0 ||
        (method != GPUSKIN_METHOD_LBS && method != GPUSKIN_METHOD_DQS) || (residual && method != GPUSKIN_METHOD_DQS))
        return GPUSKIN_ERROR_INVALID_METHOD;
    if (desc->palette_joint_count && desc->palette_joint_count != desc->joint_count) return GPUSKIN_ERROR_PALETTE_SIZE;
    GPUSKIN__TRY(gpuskin_streams_validate(s, desc->joint_count, desc->out_error_index));
    if (method == GPUSKIN_METHOD_LBS) {
        GPUSKIN__TRY(gpuskin__check_palette(desc->lbs_palette, desc->joint_count, GPUSKIN_LBS_FLOATS_PER_JOINT));
    } else {
        GPUSKIN__TRY(gpuskin__check_palette(desc->dq_palette, desc->joint_count, GPUSKIN_DQ_FLOATS_PER_JOINT));
        if (residual)
            GPUSKIN__TRY(gpuskin__check_palette(desc->residual_palette, desc->joint_count, GPUSKIN_RESIDUAL_FLOATS_PER_JOINT));
    }
    do_normals = s->normals.data && desc->out_normals.data;
    do_tangents = s->tangents.data && desc->out_tangents.data;
    GPUSKIN__TRY(gpuskin__check_stream(desc->out_positions.data, desc->out_positions.stride, 12, s->vertex_count));
    if (do_normals) GPUSKIN__TRY(gpuskin__check_stream(desc->out_normals.data, desc->out_normals.stride, 12, s->vertex_count));
    if (do_tangents) GPUSKIN__TRY(gpuskin__check_stream(desc->out_tangents.data, desc->out_tangents.stride, 16, s->vertex_count));
    k = 4 * gpuskin__sets(s);
    for (v = 0; v < s->vertex_count; ++v) {
        uint32_t j[8];
        float w[8], p[3], o[4], n[3], t[4];
        gpuskin__affine b;
        int row;
        gpuskin__read_influences(s, v, j, w);
        if (method == GPUSKIN_METHOD_DQS)
            b = gpuskin__blend_dqs(desc->dq_palette, desc->residual_palette, residual, j, w, k);
        else
            b = gpuskin__blend_lbs(desc->lbs_palette, j, w, k);
        gpuskin__read_floats(&s->positions, v, 12, p, 3);
        for (row = 0; row < 3; ++row) o[row] = b.r[row][0] * p[0] + b.r[row][1] * p[1] + b.r[row][2] * p[2] + b.r[row][3];
        gpuskin__write_floats(&desc->out_positions, v, 12, o, 3);
        if (do_normals) {
            gpuskin__read_floats(&s->normals, v, 12, n, 3);
            gpuskin__skin_normal(&b, n, o);
            gpuskin__write_floats(&desc->out_normals, v, 12, o, 3);
        }
        if (do_tangents) {
            gpuskin__read_floats(&s->tangents, v, 16, t, 4);
            gpuskin__skin_tangent(&b, t, o);
            gpuskin__write_floats(&desc->out_tangents, v, 16, o, 4);
        }
    }
    return GPUSKIN_SUCCESS;
}

/* ---- animation clips ------------------------------------------------------ */

static uint32_t gpuskin__path_comps(gpuskin_path p) { return p == GPUSKIN_PATH_ROTATION ? 4u : 3u; }

static gpuskin_result gpuskin__check_channel(const gpuskin_channel *ch, uint32_t joint_count)
{
    if (ch->joint >= joint_count) return GPUSKIN_ERROR_INVALID_CLIP;
    if (ch->path != GPUSKIN_PATH_TRANSLATION && ch->path != GPUSKIN_PATH_ROTATION && ch->path != GPUSKIN_PATH_SCALE)
        return GPUSKIN_ERROR_INVALID_CLIP;
    if (ch->interpolation != GPUSKIN_INTERP_LINEAR && ch->interpolation != GPUSKIN_INTERP_STEP &&
        ch->interpolation != GPUSKIN_INTERP_CUBICSPLINE)
        return GPUSKIN_ERROR_INVALID_CLIP;
    if (ch->key_count == 0 || ch->key_count > UINT32_MAX / 12u) return GPUSKIN_ERROR_INVALID_CLIP;
    if (!ch->times || !ch->values) return GPUSKIN_ERROR_NULL_ARGUMENT;
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API gpuskin_result gpuskin_clip_validate(const gpuskin_clip *clip, uint32_t joint_count)
{
    uint32_t c, k;
    if (!clip) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (clip->channel_count && !clip->channels) return GPUSKIN_ERROR_NULL_ARGUMENT;
    for (c = 0; c < clip->channel_count; ++c) {
        const gpuskin_channel *ch = &clip->channels[c];
        size_t nvalues;
        GPUSKIN__TRY(gpuskin__check_channel(ch, joint_count));
        for (k = 0; k < ch->key_count; ++k) {
            if (!gpuskin__finite(ch->times[k])) return GPUSKIN_ERROR_INVALID_CLIP;
            if (k && !(ch->times[k] > ch->times[k - 1])) return GPUSKIN_ERROR_INVALID_CLIP;
        }
        nvalues = (size_t)ch->key_count * gpuskin__path_comps(ch->path) *
                  (ch->interpolation == GPUSKIN_INTERP_CUBICSPLINE ? 3u : 1u);
        if (!gpuskin__all_finite(ch->values, nvalues)) return GPUSKIN_ERROR_INVALID_CLIP;
    }
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API gpuskin_result gpuskin_clip_range(const gpuskin_clip *clip, float *out_start, float *out_end)
{
    uint32_t c;
    float lo = 0.0f, hi = 0.0f;
    if (!clip || !out_start || !out_end) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (clip->channel_count && !clip->channels) return GPUSKIN_ERROR_NULL_ARGUMENT;
    for (c = 0; c < clip->channel_count; ++c) {
        const gpuskin_channel *ch = &clip->channels[c];
        if (!ch->times || ch->key_count == 0) return GPUSKIN_ERROR_INVALID_CLIP;
        if (c == 0 || ch->times[0] < lo) lo = ch->times[0];
        if (c == 0 || ch->times[ch->key_count - 1] > hi) hi = ch->times[ch->key_count - 1];
    }
    *out_start = lo;
    *out_end = hi;
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API float gpuskin_clip_loop_time(const gpuskin_clip *clip, float t)
{
    float start, end, len, r;
    if (gpuskin_clip_range(clip, &start, &end) != GPUSKIN_SUCCESS) return 0.0f;
    len = end - start;
    if (!(len > 0.0f) || !gpuskin__finite(t)) return start;
    r = fmodf(t - start, len);
    if (r < 0.0f) r += len;
    return start + r;
}

/* Writes the channel's value at time t into out (3 or 4 floats). */
static void gpuskin__sample_channel(const gpuskin_channel *ch, float t, float *out)
{
    const uint32_t n = gpuskin__path_comps(ch->path), last = ch->key_count - 1;
    const int cubic = ch->interpolation == GPUSKIN_INTERP_CUBICSPLINE;
    const uint32_t stride = cubic ? 3 * n : n, at = cubic ? n : 0; /* cubic keys: in, value, out */
    uint32_t lo = 0, hi = last, c;
    float t0, t1, s;
    const float *v0, *v1;
    if (!(t > ch->times[0])) { /* also NaN: clamp to the first key */
        memcpy(out, ch->values + at, n * sizeof(float));
        return;
    }
    if (t >= ch->times[last]) {
        memcpy(out, ch->values + (size_t)last * stride + at, n * sizeof(float));
        return;
    }
    while (hi - lo > 1) { /* times[lo] < t < times[hi] holds throughout */
        uint32_t mid = lo + (hi - lo) / 2;
        if (ch->times[mid] <= t) lo = mid;
        else hi = mid;
    }
    t0 = ch->times[lo];
    t1 = ch->times[hi];
    s = (t - t0) / (t1 - t0);
    if (!(s >= 0.0f)) s = 0.0f; /* non-increasing keys (unvalidated clip): stay in range */
    if (s > 1.0f) s = 1.0f;
    v0 = ch->values + (size_t)lo * stride + at;
    v1 = ch->values + (size_t)hi * stride + at;
    if (ch->interpolation == GPUSKIN_INTERP_STEP) {
        memcpy(out, v0, n * sizeof(float));
    } else if (!cubic) {
        if (ch->path == GPUSKIN_PATH_ROTATION) {
            gpuskin_quat a, b, q;
            a.x = v0[0]; a.y = v0[1]; a.z = v0[2]; a.w = v0[3];
            b.x = v1[0]; b.y = v1[1]; b.z = v1[2]; b.w = v1[3];
            q = gpuskin_quat_slerp(a, b, s);
            out[0] = q.x; out[1] = q.y; out[2] = q.z; out[3] = q.w;
        } else {
            for (c = 0; c < n; ++c) out[c] = v0[c] + (v1[c] - v0[c]) * s;
        }
    } else {
        /* glTF's Hermite spline: tangents are scaled by the key interval. */
        const float td = t1 - t0, s2 = s * s, s3 = s2 * s;
        const float h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
        const float *b0 = v0 + n;                          /* out-tangent of key lo */
        const float *a1 = ch->values + (size_t)hi * stride; /* in-tangent of key hi */
        for (c = 0; c < n; ++c) out[c] = h00 * v0[c] + h10 * td * b0[c] + h01 * v1[c] + h11 * td * a1[c];
    }
}

GPUSKIN_API gpuskin_result gpuskin_clip_sample(const gpuskin_clip *clip, const gpuskin_skeleton *sk, float t,
                                               gpuskin_trs *out_local)
{
    uint32_t c;
    if (!clip || !sk || !out_local || !sk->rest_pose) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (clip->channel_count && !clip->channels) return GPUSKIN_ERROR_NULL_ARGUMENT;
    for (c = 0; c < clip->channel_count; ++c) GPUSKIN__TRY(gpuskin__check_channel(&clip->channels[c], sk->joint_count));
    memcpy(out_local, sk->rest_pose, sk->joint_count * sizeof(gpuskin_trs));
    for (c = 0; c < clip->channel_count; ++c) {
        const gpuskin_channel *ch = &clip->channels[c];
        gpuskin_trs *dst = &out_local[ch->joint];
        float v[4];
        gpuskin__sample_channel(ch, t, v);
        if (ch->path == GPUSKIN_PATH_TRANSLATION) {
            dst->translation.x = v[0]; dst->translation.y = v[1]; dst->translation.z = v[2];
        } else if (ch->path == GPUSKIN_PATH_SCALE) {
            dst->scale.x = v[0]; dst->scale.y = v[1]; dst->scale.z = v[2];
        } else {
            gpuskin_quat q;
            q.x = v[0]; q.y = v[1]; q.z = v[2]; q.w = v[3];
            dst->rotation = gpuskin_quat_normalize(q);
        }
    }
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API gpuskin_result gpuskin_pose_blend(const gpuskin_trs *a, const gpuskin_trs *b, uint32_t joint_count,
                                              float t, gpuskin_trs *out)
{
    uint32_t j;
    if (!a || !b || !out) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (joint_count == 0) return GPUSKIN_ERROR_INVALID_COUNT;
    if (!gpuskin__finite(t)) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    for (j = 0; j < joint_count; ++j) {
        gpuskin_trs r;
        r.translation.x = a[j].translation.x + (b[j].translation.x - a[j].translation.x) * t;
        r.translation.y = a[j].translation.y + (b[j].translation.y - a[j].translation.y) * t;
        r.translation.z = a[j].translation.z + (b[j].translation.z - a[j].translation.z) * t;
        r.scale.x = a[j].scale.x + (b[j].scale.x - a[j].scale.x) * t;
        r.scale.y = a[j].scale.y + (b[j].scale.y - a[j].scale.y) * t;
        r.scale.z = a[j].scale.z + (b[j].scale.z - a[j].scale.z) * t;
        r.rotation = gpuskin_quat_slerp(a[j].rotation, b[j].rotation, t);
        out[j] = r;
    }
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API gpuskin_result gpuskin_palette_lerp(const gpuskin_mat4 *a, const gpuskin_mat4 *b, uint32_t joint_count,
                                                float t, gpuskin_mat4 *out)
{
    uint32_t j;
    int e;
    if (!a || !b || !out) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (joint_count == 0) return GPUSKIN_ERROR_INVALID_COUNT;
    if (!gpuskin__finite(t)) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    for (j = 0; j < joint_count; ++j)
        for (e = 0; e < 16; ++e) out[j].m[e] = a[j].m[e] + (b[j].m[e] - a[j].m[e]) * t;
    return GPUSKIN_SUCCESS;
}

#ifdef __cplusplus
}
#endif

#if defined(GPUSKIN_FAST_INC_AVAILABLE)
#include "gpuskin_cpu_fast.inc"
#endif

#ifndef GPUSKIN_NO_VULKAN
#include "gpuskin_vulkan.inc"
#endif

#endif /* GPUSKIN_IMPLEMENTATION_INCLUDED */
#endif /* GPUSKIN_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the gpuskin authors
Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
software, either in source code form or as a compiled binary, for any purpose,
commercial or non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this
software dedicate any and all copyright interest in the software to the public
domain. We make this dedication in perpetuity and in furtherance of our
continued efforts to release this software into the public domain. We believe
that this act is an overt act of relinquishment of present and future acts of
copyright interest in the software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
*/
