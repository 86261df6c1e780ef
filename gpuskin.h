/* gpuskin.h - v0.1.0 - skeletal skinning on the GPU with Vulkan, one header.
   MIT or public domain, your choice: see the end of this file.

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

   A crowd in about 20 lines (error checks left out; every call returns a
   gpuskin_result). examples/crowd/crowd.c is the same, complete and checked:

       gpuskin_context_desc cd = {0};                 // zero means defaults
       cd.instance = inst; cd.physical_device = phys; cd.device = dev;
       cd.get_instance_proc_addr = vkGetInstanceProcAddr;   // or a volk device table
       gpuskin_context_create(&cd, &ctx);             // built-in allocator unless cd.allocator
       gpuskin_mesh_desc md = {0}; md.streams = bind; // positions, normals, joints, weights
       md.joint_count = J; md.indices = idx; md.index_count = n;
       gpuskin_mesh_create(ctx, &md, &mesh);          // a snapshot, uploaded once
       if (gpuskin_mesh_needs_upload(mesh)) gpuskin_cmd_upload_mesh(mesh, setup_cmd);
       gpuskin_crowd_desc rd = {0}; rd.mesh = mesh; rd.capacity = 64;
       gpuskin_crowd_create(ctx, &rd, &crowd);        // 2 frame slots by default
       gpuskin_pipeline_desc pd = {0}; pd.color_format = fmt; pd.depth_format = dfmt;
       gpuskin_pipeline_create(ctx, &pd, &pipe);
       // every frame, once slot f's last submission has finished (its fence):
       for (i = 0; i < 64; ++i) {                     // model(i) * global * inverseBind
           gpuskin_clip_sample(&clip, &skel, t + 0.1f * i, local);
           gpuskin_skeleton_globals(&skel, local, globals);
           gpuskin_skeleton_palette(&skel, &model[i], globals, &pal[i * J]);
       }                                              // (gpuskin_build_palettes: all at once)
       gpuskin_crowd_upload_desc up = {0}; up.frame = f; up.instance_count = 64;
       up.palettes = pal; up.methods = methods;       // GPUSKIN_METHOD_LBS or _DQS each
       gpuskin_crowd_upload(crowd, &up);
       gpuskin_draw_desc dd = {0}; dd.frame = f; dd.instance_count = 64;
       dd.view_proj = vp; dd.flags = GPUSKIN_DRAW_TINT;
       gpuskin_cmd_draw(crowd, pipe, cmd, &dd);       // one draw, inside vkCmdBeginRendering

   Instead of drawing, gpuskin_cmd_skin writes the posed crowd into a buffer your own
   pipeline (or a ray-tracing build) reads as plain vertices.

   FILE LAYOUT
   -----------
   Declarations: results, maths, skeleton and palette, methods/split/packing,
   vertex streams and the CPU paths, clips, then the Vulkan runtime. The
   implementation follows in the same order: the oracle (read it next to
   shaders/gpuskin_skin.glsl), the SIMD CPU path, the Vulkan runtime (its GPU memory
   layout is described where it starts).

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
   GPUSKIN_NO_SIMD          the fast paths without SSE2 (gpuskin_skin_cpu_fast runs the
                            oracle, gpuskin_pack_dq_fast is gpuskin_pack_dq).
   GPUSKIN_NO_AVX           no run-time AVX / AVX2 / AVX-512 dispatch (GCC/clang) for the
                            DQ split, LBS skinning and palettes: the SSE2 forms only.
   GPUSKIN_NO_AVX512        no AVX-512 forms of gpuskin_build_palettes, LBS skinning
                            and the DQ split (the AVX2 / AVX ones instead), for hosts
                            that keep 512-bit work off their cores.
   GPUSKIN_FAST_COPY_JOINTS n   gpuskin_skin_cpu_fast's AVX2 / AVX-512 LBS forms read
                            palettes of up to n joints (default 128) from a stack copy
                            of 64 n + 64 bytes, one cache line a joint; 0: no copy.
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
    GPUSKIN_ERROR_NON_FINITE,           /* a matrix, TRS or vertex holds NaN or infinity, or finite
                                           inputs gave a result beyond float's range (CPU paths) */
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
/* Inverse of an affine matrix. Its last row is not read: taken as 0 0 0 1.
   GPUSKIN_ERROR_NON_FINITE when the input is not finite,
   GPUSKIN_ERROR_INVALID_ARGUMENT when singular or when the inverse does not fit a float. */
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

/* Owns copies of the desc's arrays (one allocation), the evaluation orders, and
   what the palette paths derive from them once. Read-only after init (hence the
   const): to change a joint, init a new skeleton (and free the old one). */
typedef struct gpuskin_skeleton {
    uint32_t joint_count;
    const int32_t *parents;
    const gpuskin_mat4 *inverse_bind;
    const gpuskin_trs *rest_pose;
    const gpuskin_mat4 *root_parent_globals;
    const uint32_t *order;                   /* every parent appears before its children */
    /* The same joints by depth, roots first (stable within a depth). One depth's
       joints do not wait on each other's products, so the eight-lane rows form,
       which takes one instance at a time, overlaps them (NULL: it takes `order`);
       the forms that take groups of instances keep `order`, whose joints follow
       their parents closely, so a parent's global is read back while still
       cached. */
    const uint32_t *depth_order;
    /* Rows 0..2 of every inverse bind, 12 floats a joint, for the palette forms
       that take one instance at a time (made in every call instead, they cost a
       single instance ~15 % on an H200 host's Xeon); NULL if some inverse bind's
       row 3 is not 0 0 0 1. */
    const float *inverse_bind_rows;
    /* The joints again, for the one-register palette form (AVX-512): step by
       step, GPUSKIN_CHAIN_SLOTS joints a step, each slot walking a chain of the
       skeleton (a joint, then one of its children, and so on). A joint that
       continues its slot's chain reuses its parent's global still in registers;
       one that starts a chain is marked GPUSKIN_CHAIN_START and reads its
       parent's global (made at an earlier step) from memory; an idle slot holds
       GPUSKIN_CHAIN_IDLE. The slots' chains do not wait on each other, so the
       core overlaps them, and no joint's global is rearranged twice (the depth
       order rearranges it for its palette, then again for each child). chain_steps
       steps of GPUSKIN_CHAIN_SLOTS entries; NULL: the form takes depth_order. (The
       rows form cannot keep four chains' globals in AVX2's sixteen registers.) */
    const uint32_t *chain_slots;
    uint32_t chain_steps;
    void *alloc_user;
} gpuskin_skeleton;
#define GPUSKIN_CHAIN_SLOTS 4u
#define GPUSKIN_CHAIN_START 0x80000000u /* with the joint index in the low bits */
#define GPUSKIN_CHAIN_IDLE 0xFFFFFFFFu

/* Copies the desc, computes the evaluation orders once; rejects out-of-range parents
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
#define GPUSKIN_METHOD_UNIFORM_BIT 0x20u   /* with the residual bit: every S is s*I (gpuskin_dq_uniform_scale) */

/* How a palette matrix's 3x3 A is split into a rotation R and a residual S = R^T A. */
typedef enum gpuskin_split_method {
    GPUSKIN_SPLIT_GRAM_SCHMIDT = 0,  /* R from the first two columns; S upper triangular, exact zeros
                                        below the diagonal (but S = A for a degenerate matrix) */
    GPUSKIN_SPLIT_POLAR = 1          /* R = nearest rotation (polar factor); S exactly symmetric unless
                                        mirrored or singular (then R comes from Gram-Schmidt) */
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
   finite input; GPUSKIN_ERROR_NON_FINITE for non-finite input, and for a result
   that does not fit a float (entries near FLT_MAX). Computed in double. */
GPUSKIN_API gpuskin_result gpuskin_split_matrix(const gpuskin_mat4 *m, gpuskin_split_method method, gpuskin_split *out);

/* GPU layouts, per joint, all float32, 16-byte aligned (std430 vec4 arrays):
   LBS palette:      3 vec4 = the first three ROWS of the matrix (a 3x4 affine).
   DQ palette:       2 vec4 = real (x,y,z,w), dual (x,y,z,w).
   Residual palette: 3 vec4 = the ROWS of S, w = 0. Only read with the residual bit;
   with GPUSKIN_METHOD_UNIFORM_BIT too, S = s*I exactly and a kernel reads s from row 0's x. */
#define GPUSKIN_LBS_FLOATS_PER_JOINT 12u
#define GPUSKIN_DQ_FLOATS_PER_JOINT 8u
#define GPUSKIN_RESIDUAL_FLOATS_PER_JOINT 12u

GPUSKIN_API gpuskin_result gpuskin_pack_lbs(const gpuskin_mat4 *palette, uint32_t joint_count, float *out_lbs);
/* Splits each matrix and writes dq (8 floats/joint) and residual (12 floats/joint,
   identity rows for rigid joints). *out_method_word = GPUSKIN_METHOD_DQS, or'd with
   GPUSKIN_METHOD_RESIDUAL_BIT when any joint is not rigid. out_residual may be NULL
   only if the caller needs just the method word and the dq part.
   GPUSKIN_ERROR_NON_FINITE as gpuskin_split_matrix gives it, for any joint. */
GPUSKIN_API gpuskin_result gpuskin_pack_dq(const gpuskin_mat4 *palette, uint32_t joint_count,
                                           gpuskin_split_method split, float *out_dq, float *out_residual,
                                           uint32_t *out_method_word);
/* The production packer: gpuskin_pack_dq's contract, with either split done
   eight joints at a time in float (SSE2; sixteen where GCC/clang built the AVX
   form and the CPU has AVX, thirty-two with AVX-512F; elsewhere it is
   gpuskin_pack_dq). It takes gpuskin_split_matrix's decisions exactly (mirror,
   collapsed axis, rigid, quaternion sign), so the method word is the same; a joint
   whose decision float cannot be sure of (a value within a small margin of its
   threshold), and for the polar split one with two axes under about 1/45 of the
   third, is redone in double. Values equal the reference to float rounding; a
   joint's bytes depend on its own matrix only. The polar split costs about twice
   the Gram-Schmidt one here (and ~20x less than in gpuskin_pack_dq). */
GPUSKIN_API gpuskin_result gpuskin_pack_dq_fast(const gpuskin_mat4 *palette, uint32_t joint_count,
                                                gpuskin_split_method split, float *out_dq, float *out_residual,
                                                uint32_t *out_method_word);
/* After gpuskin_pack_dq(_fast) of one instance: when its word has the residual bit
   and every joint's S (its residual rows) is a uniform scale s*I, s > 0, within
   GPUSKIN_UNIFORM_TOLERANCE * s in each element, writes every joint's rows as
   exactly s*I and sets GPUSKIN_METHOD_UNIFORM_BIT in *method_word; otherwise
   changes nothing. A placement model(i) that scales a character uniformly, the
   commonest scale in a crowd, gives such palettes: the GPU then blends one scalar
   a joint instead of three rows. When every joint's s is also within that
   tolerance of the first joint's (one size for the whole character, as such a
   placement gives), every joint takes the first joint's s exactly: the upload
   then lets the GPU apply one scalar an instance and blend none.
   gpuskin_crowd_upload calls it; a host packing for gpuskin_skin_cpu as the
   upload does calls it too. */
#define GPUSKIN_UNIFORM_TOLERANCE 1e-5f  /* GPUSKIN_RIGID_TOLERANCE, relative to s */
GPUSKIN_API gpuskin_result gpuskin_dq_uniform_scale(float *residual, uint32_t joint_count, uint32_t *method_word);

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
   gpuskin_shaders.h statement for statement (the GLSL works out a vertex's
   renormalised weights and DQS pivot once for all its instances, this in each
   blend, by the same operations: the same values). It follows the GLSL's matrix
   path (gpuskin_skin_transform, then gpuskin_skin_point / _normal / _tangent);
   the compute kernels apply a DQS instance's blend without building its matrix
   (gpuskin_dq_point / _normal / _tangent): a few ulp apart. Finite inputs can
   still overflow (a palette entry of 1e30 times a position of 1e10): the first
   vertex with a non-finite output stops it with GPUSKIN_ERROR_NON_FINITE and
   that vertex's index (the outputs from it on are unspecified). The GPU kernels
   cannot report that; they write what the float maths gives, inf or NaN. */
typedef struct gpuskin_cpu_skin_desc {
    gpuskin_vertex_streams streams;   /* the bind pose */
    uint32_t joint_count;             /* the mesh's joint count: every weighted joint is below it */
    uint32_t palette_joint_count;     /* 0 = joint_count; else must equal it (GPUSKIN_ERROR_PALETTE_SIZE) */
    uint32_t method_word;             /* GPUSKIN_METHOD_LBS, or what gpuskin_pack_dq (+ gpuskin_dq_uniform_scale) gave */
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
   SIMD where the compiler offers it (SSE2 on x86-64) and the oracle elsewhere.
   Allocates nothing; with AVX2 it holds an LBS palette of up to 128 joints in an
   8,256-byte stack copy (one cache line a joint; GPUSKIN_FAST_COPY_JOINTS sets the
   limit, 0 none), so mind small thread stacks. */
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
/* First and last key time over all channels (0,0 for a clip without channels).
   GPUSKIN_ERROR_INVALID_CLIP for a channel without keys or whose first or last
   time is not finite. */
GPUSKIN_API gpuskin_result gpuskin_clip_range(const gpuskin_clip *clip, float *out_start, float *out_end);
/* Wraps t into [start, end) of the clip (start when the clip has zero length or t
   is not finite; 0 when gpuskin_clip_range fails). */
GPUSKIN_API float gpuskin_clip_loop_time(const gpuskin_clip *clip, float t);
/* Samples at time t (clamped to each channel's key range). Joints without a channel
   keep the skeleton's rest TRS. out_local: joint_count TRS. GPUSKIN_ERROR_NON_FINITE
   when a sampled value is not finite (keys so far apart that float overflows
   between them, or non-finite keys, which gpuskin_clip_validate refuses). */
GPUSKIN_API gpuskin_result gpuskin_clip_sample(const gpuskin_clip *clip, const gpuskin_skeleton *skeleton, float t,
                                               gpuskin_trs *out_local);

/* Rotation-correct blend of two local poses: slerp (shortest arc) of rotations,
   lerp of translations and scales. t = 0 gives a, 1 gives b. Does not shrink a joint
   when the poses disagree by a large rotation. GPUSKIN_ERROR_NON_FINITE when a or b
   holds NaN or infinity (nothing written), or when a result leaves float's range
   (finite values far apart, or t far outside [0, 1]; out is then partly written). */
GPUSKIN_API gpuskin_result gpuskin_pose_blend(const gpuskin_trs *a, const gpuskin_trs *b, uint32_t joint_count,
                                              float t, gpuskin_trs *out);
/* Component-wise lerp of two palettes (matrix blend, as many engines do; kept for
   parity). A large rotation between a and b shrinks the result: see README. Errors
   as gpuskin_pose_blend's. */
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
   with a non-rigid joint 80, and each instance its 4-byte method word; an upload
   that turns an instance from LBS to DQS or back also rewrites the slot's
   instance list (4 B per instance of the capacity; a slot reserves 128 B per
   instance-joint + 8 B per instance). The slot must not be in use by the GPU.
   instance_count 0 is a no-op.
   Methods are checked before anything is written (GPUSKIN_ERROR_INVALID_METHOD
   leaves the slot as it was); a non-finite palette, or a DQS one whose split does
   not fit a float (GPUSKIN_ERROR_NON_FINITE), is found while packing and leaves the slot partly written: upload it again before
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
    uint32_t kernel_flags;           /* GPUSKIN_KERNEL_*; 0 = chosen from the slot's methods */
    uint32_t instances_per_invocation; /* 0 = chosen from the dispatch's size; or 1, 2, 4, 8 or 16 */
} gpuskin_skin_dispatch_desc;

/* Record the general kernel (every blend, the residual's too, chosen per instance
   by its method word) whatever the slot's instances hold when this is recorded:
   for a command buffer recorded once and replayed after uploads that may change
   which methods the instances have. */
#define GPUSKIN_KERNEL_ANY_METHOD 0x1u

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
   instance_count 0 records nothing. With normals, an 8-byte aligned output is
   written two floats at a time (measurably faster on an H200; 4-byte aligned
   works, float by float).
   The kernel is chosen when this is recorded, from the method words the slot's
   instances [first, first+count) hold then (the uploads so far): all LBS, all
   rigid DQS, or all DQS with the residual gets a kernel with that blend only,
   which needs fewer registers (on an H200, 2026-12-04, 23 %, 46 % and 19 % faster
   than the general kernel); all DQS scaled uniformly (GPUSKIN_METHOD_UNIFORM_BIT)
   one that blends a scalar instead of the residual rows (on an H200 1.3-1.4x the
   residual kernel); all DQS where each instance is rigid or has one size for
   all its joints (gpuskin_dq_uniform_scale) one that blends no residual and
   scales the bind pose by the instance's size (1.08-1.10x the one before,
   0.91x rigid DQS); all DQS with residuals that are upper triangular (what the
   default Gram-Schmidt split gives, unless a joint is degenerate), uniform ones
   among them, one that blends six entries of S instead of nine and reads them
   from two of S's three rows (1.17-1.21x the residual kernel); all DQS with
   symmetric residuals (what the polar split gives, unless a joint is mirrored
   or singular), uniform ones among them, one that blends the same six entries
   and mirrors them (BENCHMARKS.md); LBS mixed with
   rigid DQS a kernel with both blends but not the residual's, which takes the
   range's instances through the slot's instance list (LBS ones first) so that
   its workgroups run one blend each; anything else with the residual the
   general kernel, which reads each instance's word. So a
   command buffer replayed after an upload that changes those methods must be
   recorded again, or with GPUSKIN_KERNEL_ANY_METHOD, or it skins those instances
   with the wrong method's palette, or not at all (still inside the slot and the
   output: wrong shapes, never an out-of-bounds read or write).
   Every kernel with a DQS blend moves a vertex's DQS pivot (its largest weight)
   into its first influence slot, once for all its instances, and takes the
   pivot's quaternion from that slot's load (on an H200 5-15 % faster than
   loading it again on the synthetic crowds, CesiumMan's DQS crowds 2-9 %, but
   CesiumMan mixing LBS and rigid DQS 3.5-7 % slower); the sums run in another
   order than the oracle's, so they differ from it by rounding only.
   Each invocation skins one vertex for 4 instances, for 1 below 2^17
   vertex-instances a dispatch and 2 below 2^18 (a small dispatch then has enough
   invocations to fill the GPU: on an H200 CesiumMan x 4-32 ran 1.26-1.52x as fast
   as with 4, x 64 1.17-1.20x), or, when the kernel is specialised, for 8 from
   3 x 2^20 (on an H200 0-3 % faster than 4 at 3.2-3.4 M; 26 % slower at 0.2 M)
   and for 16 from 2^23 (there 1-2.5 % over 8 and 5-8 % over 4);
   instances_per_invocation (1, 2, 4, 8 or 16) overrides it.
   GPUSKIN_ERROR_INVALID_ARGUMENT also for an unknown kernel_flags bit or an
   instances_per_invocation other than 0, 1, 2, 4, 8 or 16.
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
    case GPUSKIN_ERROR_NON_FINITE: return "a matrix, transform or vertex contains NaN or infinity, or a result overflowed";
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

/* gpuskin_skeleton.chain_slots from `order`. A joint continues its parent's
   chain if it is the child with the most joints below it in a line (so the
   longest chains run in registers), else it starts a chain. Each step fills
   every slot: a slot continues its chain, or takes the oldest chain whose start's
   parent was made at an earlier step. While every slot is idle some chain is
   ready (its start's parent was made, or it starts at a root), so every step
   makes a joint and there are at most joint_count steps. Scratch: five arrays of
   joint_count (the first two hold joint_count + 1). */
static void gpuskin__skeleton_chains(gpuskin_skeleton *sk, uint32_t *slots, uint32_t *height, uint32_t *first_kid,
                                     uint32_t *cont, uint32_t *next_kid, uint32_t *queue)
{
    const uint32_t n = sk->joint_count, *order = sk->order;
    uint32_t cur[GPUSKIN_CHAIN_SLOTS];
    uint32_t k, s, head = 0, tail = 0, made = 0, steps = 0;
    for (k = 0; k < n; ++k) first_kid[k] = cont[k] = GPUSKIN_CHAIN_IDLE;
    for (k = n; k-- > 0;) { /* children before their parents; each joint's kids end up in `order` order */
        const uint32_t c = order[k];
        const int32_t p = sk->parents[c];
        height[c] = 1 + (cont[c] != GPUSKIN_CHAIN_IDLE ? height[cont[c]] : 0);
        if (p < 0) continue;
        next_kid[c] = first_kid[p];
        first_kid[p] = c;
        if (cont[p] == GPUSKIN_CHAIN_IDLE || height[c] >= height[cont[p]]) cont[p] = c; /* ties: the first in order */
    }
    for (k = 0; k < n; ++k)
        if (sk->parents[order[k]] < 0) queue[tail++] = order[k];
    for (s = 0; s < GPUSKIN_CHAIN_SLOTS; ++s) cur[s] = GPUSKIN_CHAIN_IDLE;
    while (made < n) {
        const uint32_t ready = tail; /* chains queued from now on wait for the next step */
        uint32_t *e = slots + (size_t)steps++ * GPUSKIN_CHAIN_SLOTS;
        for (s = 0; s < GPUSKIN_CHAIN_SLOTS; ++s) {
            uint32_t j = cur[s], c;
            if (j == GPUSKIN_CHAIN_IDLE) {
                if (head == ready) {
                    e[s] = GPUSKIN_CHAIN_IDLE;
                    continue;
                }
                j = queue[head++];
                e[s] = j | GPUSKIN_CHAIN_START;
            } else {
                e[s] = j;
            }
            ++made;
            for (c = first_kid[j]; c != GPUSKIN_CHAIN_IDLE; c = next_kid[c])
                if (c != cont[j]) queue[tail++] = c;
            cur[s] = cont[j];
        }
    }
    GPUSKIN_ASSERT(steps <= n);
    sk->chain_steps = steps;
}

GPUSKIN_API gpuskin_result gpuskin_skeleton_init(gpuskin_skeleton *sk, const gpuskin_skeleton_desc *desc)
{
    uint32_t n, j, count = 0;
    size_t bytes;
    char *block;
    gpuskin_mat4 *inverse_bind, *root_parent_globals;
    gpuskin_trs *rest_pose;
    float *rows;
    int32_t *parents;
    uint32_t *order, *depth_order, *slots, *stack, *tally, *depth, *cont, *next_kid, *queue;
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
    bytes = (size_t)n * (2 * sizeof(gpuskin_mat4) + 12 * sizeof(float) + sizeof(gpuskin_trs) +
                         (3 + GPUSKIN_CHAIN_SLOTS) * sizeof(uint32_t));
    block = (char *)GPUSKIN_MALLOC(bytes + (size_t)n * (5 * sizeof(uint32_t) + 1) + sizeof(uint32_t), desc->alloc_user);
    if (!block) return GPUSKIN_ERROR_OUT_OF_MEMORY;
    sk->inverse_bind = inverse_bind = (gpuskin_mat4 *)(void *)block;
    sk->root_parent_globals = root_parent_globals = inverse_bind + n;
    sk->inverse_bind_rows = rows = (float *)(void *)(root_parent_globals + n);
    sk->rest_pose = rest_pose = (gpuskin_trs *)(void *)(rows + 12 * (size_t)n);
    sk->parents = parents = (int32_t *)(void *)(rest_pose + n);
    sk->order = order = (uint32_t *)(void *)(parents + n);
    sk->depth_order = depth_order = order + n;
    sk->chain_slots = slots = depth_order + n;
    stack = slots + (size_t)GPUSKIN_CHAIN_SLOTS * n;
    tally = stack + n; /* n + 1 counts */
    cont = tally + n + 1;
    next_kid = cont + n;
    queue = next_kid + n;
    state = (uint8_t *)(queue + n);
    sk->joint_count = n;
    sk->alloc_user = desc->alloc_user;
    memcpy(parents, desc->parents, n * sizeof(int32_t));
    for (j = 0; j < n; ++j) {
        const float *m;
        uint32_t r;
        inverse_bind[j] = desc->inverse_bind ? desc->inverse_bind[j] : gpuskin_mat4_identity();
        root_parent_globals[j] = desc->root_parent_globals ? desc->root_parent_globals[j] : gpuskin_mat4_identity();
        rest_pose[j] = desc->rest_pose ? desc->rest_pose[j] : gpuskin_trs_identity();
        m = inverse_bind[j].m; /* columns in, rows out */
        if (m[3] != 0.0f || m[7] != 0.0f || m[11] != 0.0f || m[15] != 1.0f) sk->inverse_bind_rows = NULL;
        for (r = 0; r < 3; ++r) {
            rows[12 * (size_t)j + 4 * r + 0] = m[r];
            rows[12 * (size_t)j + 4 * r + 1] = m[4 + r];
            rows[12 * (size_t)j + 4 * r + 2] = m[8 + r];
            rows[12 * (size_t)j + 4 * r + 3] = m[12 + r];
        }
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
            k = parents[k];
        }
        while (len) {
            uint32_t p = stack[--len];
            state[p] = 2;
            order[count++] = p;
        }
    }
    GPUSKIN_ASSERT(count == n);
    /* Depths along `order` (parents first), then a counting sort by depth. */
    depth = stack;
    memset(tally, 0, (n + 1) * sizeof(uint32_t));
    for (j = 0; j < n; ++j) {
        const uint32_t k = order[j];
        depth[k] = parents[k] < 0 ? 0 : depth[parents[k]] + 1;
        ++tally[depth[k] + 1];
    }
    for (j = 1; j <= n; ++j) tally[j] += tally[j - 1];
    for (j = 0; j < n; ++j) depth_order[tally[depth[order[j]]]++] = order[j];
    gpuskin__skeleton_chains(sk, slots, stack, tally, cont, next_kid, queue);
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API void gpuskin_skeleton_free(gpuskin_skeleton *sk)
{
    if (!sk) return;
    GPUSKIN_FREE((void *)(uintptr_t)sk->inverse_bind, sk->alloc_user); /* the block init allocated */
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

/* The split of a finite matrix (the public function and the packer check that).
   Returns 0 when the result does not fit a float: S (a column's length) or the
   dual part (half the translation, rotated) beyond FLT_MAX, for entries near it. */
static int gpuskin__split(const gpuskin_mat4 *m, gpuskin_split_method method, gpuskin_split *out)
{
    double a[9], b[9], r[9], s[9], q[4], amax = 0.0, dev = 0.0;
    int c, row, k, found, mirrored, gram_schmidt = 0;
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
    mirrored = gpuskin__det3_d(a) < 0.0;
    if (mirrored)
        for (row = 0; row < 3; ++row) b[row] = -b[row];
    found = amax > 0.0;
    if (found && method == GPUSKIN_SPLIT_POLAR) found = gpuskin__rotation_polar(b, amax, r);
    if (found && method == GPUSKIN_SPLIT_GRAM_SCHMIDT) found = gram_schmidt = gpuskin__rotation_gram_schmidt(b, amax, r);
    if (!found && method == GPUSKIN_SPLIT_POLAR && amax > 0.0) /* near-singular: R from the two columns left */
        found = gram_schmidt = gpuskin__rotation_gram_schmidt(b, amax, r);
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
    /* From Gram-Schmidt, S is upper triangular: r1 and r2 are orthogonal to +-a0,
       r2 to a1. The dot products give ~1e-17 there; exact zeros let the GPU
       blend six entries instead of nine (and equal the fast packer's). */
    if (gram_schmidt) s[1] = s[2] = s[5] = 0.0;
    /* From the polar factor of an unmirrored matrix, S is symmetric: the halves
       differ by ~1e-16, which may round to different floats. Made exact, so the
       GPU's symmetric kernel (six entries blended, mirrored) gives what the oracle does. */
    if (found && !gram_schmidt && !mirrored) { /* polar */
        s[1] = s[3] = 0.5 * (s[1] + s[3]);
        s[2] = s[6] = 0.5 * (s[2] + s[6]);
        s[5] = s[7] = 0.5 * (s[5] + s[7]);
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
    return gpuskin__all_finite(out->residual.m, 9) && gpuskin__all_finite(&out->dq.dual.x, 4);
}

GPUSKIN_API gpuskin_result gpuskin_split_matrix(const gpuskin_mat4 *m, gpuskin_split_method method, gpuskin_split *out)
{
    if (!m || !out) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (method != GPUSKIN_SPLIT_GRAM_SCHMIDT && method != GPUSKIN_SPLIT_POLAR) return GPUSKIN_ERROR_INVALID_METHOD;
    if (!gpuskin_mat4_is_finite(m)) return GPUSKIN_ERROR_NON_FINITE;
    return gpuskin__split(m, method, out) ? GPUSKIN_SUCCESS : GPUSKIN_ERROR_NON_FINITE;
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

/* One joint of the DQ packing (8 floats of dq, 12 of residual rows when wanted);
   returns 1 when the joint is rigid, 0 when not, -1 when its split does not fit
   a float (nothing written). */
static int gpuskin__pack_dq_joint(const gpuskin_mat4 *m, gpuskin_split_method split, float *d, float *res)
{
    gpuskin_split s;
    int row, c;
    if (!gpuskin__split(m, split, &s)) return -1;
    d[0] = s.dq.real.x; d[1] = s.dq.real.y; d[2] = s.dq.real.z; d[3] = s.dq.real.w;
    d[4] = s.dq.dual.x; d[5] = s.dq.dual.y; d[6] = s.dq.dual.z; d[7] = s.dq.dual.w;
    if (res)
        for (row = 0; row < 3; ++row) {
            for (c = 0; c < 3; ++c) res[row * 4 + c] = s.residual.m[c * 3 + row];
            res[row * 4 + 3] = 0.0f;
        }
    return s.rigid;
}

GPUSKIN_API gpuskin_result gpuskin_pack_dq(const gpuskin_mat4 *palette, uint32_t joint_count,
                                           gpuskin_split_method split, float *out_dq, float *out_residual,
                                           uint32_t *out_method_word)
{
    uint32_t j, word = GPUSKIN_METHOD_DQS;
    if (!palette || !out_dq || !out_method_word) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (joint_count == 0 || joint_count > GPUSKIN_MAX_JOINTS) return GPUSKIN_ERROR_INVALID_COUNT;
    if (split != GPUSKIN_SPLIT_GRAM_SCHMIDT && split != GPUSKIN_SPLIT_POLAR) return GPUSKIN_ERROR_INVALID_METHOD;
    for (j = 0; j < joint_count; ++j)
        if (!gpuskin_mat4_is_finite(&palette[j])) return GPUSKIN_ERROR_NON_FINITE;
    for (j = 0; j < joint_count; ++j) {
        const int rigid = gpuskin__pack_dq_joint(&palette[j], split, out_dq + j * 8u,
                                                 out_residual ? out_residual + j * 12u : NULL);
        if (rigid < 0) return GPUSKIN_ERROR_NON_FINITE;
        if (!rigid) word |= GPUSKIN_METHOD_RESIDUAL_BIT;
    }
    *out_method_word = word;
    return GPUSKIN_SUCCESS;
}

/* A method word gpuskin writes: LBS, or DQS with the residual bit and, only with
   it, the uniform bit. */
static int gpuskin__method_word_valid(uint32_t word)
{
    uint32_t method = word & GPUSKIN_METHOD_ID_MASK;
    if (word & ~(GPUSKIN_METHOD_ID_MASK | GPUSKIN_METHOD_RESIDUAL_BIT | GPUSKIN_METHOD_UNIFORM_BIT)) return 0;
    if (method != GPUSKIN_METHOD_LBS && method != GPUSKIN_METHOD_DQS) return 0;
    if ((word & GPUSKIN_METHOD_RESIDUAL_BIT) && method != GPUSKIN_METHOD_DQS) return 0;
    return !(word & GPUSKIN_METHOD_UNIFORM_BIT) || (word & GPUSKIN_METHOD_RESIDUAL_BIT);
}

GPUSKIN_API gpuskin_result gpuskin_dq_uniform_scale(float *residual, uint32_t joint_count, uint32_t *method_word)
{
    uint32_t j, k;
    int one = 1;
    float first;
    if (!residual || !method_word) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (joint_count == 0 || joint_count > GPUSKIN_MAX_JOINTS) return GPUSKIN_ERROR_INVALID_COUNT;
    if (!gpuskin__method_word_valid(*method_word)) return GPUSKIN_ERROR_INVALID_METHOD;
    if ((*method_word & (GPUSKIN_METHOD_RESIDUAL_BIT | GPUSKIN_METHOD_UNIFORM_BIT)) != GPUSKIN_METHOD_RESIDUAL_BIT)
        return GPUSKIN_SUCCESS; /* rigid (nothing to blend) or already uniform */
    first = (residual[0] + residual[5] + residual[10]) / 3.0f;
    for (j = 0; j < joint_count; ++j) {
        const float *r = residual + (size_t)j * 12u;
        float s = (r[0] + r[5] + r[10]) / 3.0f, bar = GPUSKIN_UNIFORM_TOLERANCE * s;
        /* s > 0 also fails a NaN; rows 0..2, columns 0..2 (w is padding) */
        if (!(s > 0.0f) || s > 3.4e38f) return GPUSKIN_SUCCESS;
        for (k = 0; k < 12u; ++k) {
            float want = (k % 4u == 3u) ? r[k] : (k / 4u == k % 4u) ? s : 0.0f;
            if (!(fabsf(r[k] - want) <= bar)) return GPUSKIN_SUCCESS;
        }
        one = one && fabsf(s - first) <= GPUSKIN_UNIFORM_TOLERANCE * first;
    }
    for (j = 0; j < joint_count; ++j) {
        float *r = residual + (size_t)j * 12u, s = one ? first : (r[0] + r[5] + r[10]) / 3.0f;
        for (k = 0; k < 12u; ++k) r[k] = (k % 4u == 3u) ? 0.0f : (k / 4u == k % 4u) ? s : 0.0f;
    }
    *method_word |= GPUSKIN_METHOD_UNIFORM_BIT;
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
   order as its matrix path (gpuskin_blend_lbs / gpuskin_blend_dq, then
   gpuskin_skin_point / _normal / _tangent). A blended transform is a 3x4 affine
   held as three rows, b[row][col]. */

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

/* n' = normalise(M^-T n) with M^-T = cofactor(M) / det(M); normalising removes
   |det|, so the GLSL (and this) apply only det's sign. The plain 3x3 when the
   determinant is ~0 or not finite (a wrong-ish normal beats a NaN). Normalised
   by one reciprocal unless shorter than 1e-18 (see gpuskin_skin_normal). */
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
    if (!(fabsf(d) > 1e-20f && gpuskin__finite(d))) {
        for (row = 0; row < 3; ++row) {
            m[row][0] = b->r[row][0]; m[row][1] = b->r[row][1]; m[row][2] = b->r[row][2];
        }
    }
    for (row = 0; row < 3; ++row) out[row] = m[row][0] * n[0] + m[row][1] * n[1] + m[row][2] * n[2];
    if (fabsf(d) > 1e-20f && gpuskin__finite(d) && d < 0.0f) {
        out[0] = -out[0]; out[1] = -out[1]; out[2] = -out[2];
    }
    len = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
    if (len > 1e-18f) {
        const float inv = 1.0f / len;
        out[0] *= inv; out[1] *= inv; out[2] *= inv;
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
        const float inv = 1.0f / len;
        out[0] *= inv; out[1] *= inv; out[2] *= inv;
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
    int residual, do_normals, do_tangents, bad;
    size_t v;
    if (!desc) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (desc->out_error_index) *desc->out_error_index = 0;
    s = &desc->streams;
    method = desc->method_word & GPUSKIN_METHOD_ID_MASK;
    residual = (desc->method_word & GPUSKIN_METHOD_RESIDUAL_BIT) != 0;
    if (!gpuskin__method_word_valid(desc->method_word)) return GPUSKIN_ERROR_INVALID_METHOD;
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
        bad = !gpuskin__all_finite(o, 3);
        if (do_normals) {
            gpuskin__read_floats(&s->normals, v, 12, n, 3);
            gpuskin__skin_normal(&b, n, o);
            gpuskin__write_floats(&desc->out_normals, v, 12, o, 3);
            bad |= !gpuskin__all_finite(o, 3);
        }
        if (do_tangents) {
            gpuskin__read_floats(&s->tangents, v, 16, t, 4);
            gpuskin__skin_tangent(&b, t, o);
            gpuskin__write_floats(&desc->out_tangents, v, 16, o, 4);
            bad |= !gpuskin__all_finite(o, 4);
        }
        if (bad) { /* finite inputs whose products leave float's range (GPUSKIN_ERROR_NON_FINITE's note) */
            if (desc->out_error_index) *desc->out_error_index = v;
            return GPUSKIN_ERROR_NON_FINITE;
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
        if (!gpuskin__finite(ch->times[0]) || !gpuskin__finite(ch->times[ch->key_count - 1]))
            return GPUSKIN_ERROR_INVALID_CLIP; /* NaN would make the range whatever the comparisons say */
        if (c == 0 || ch->times[0] < lo) lo = ch->times[0];
        if (c == 0 || ch->times[ch->key_count - 1] > hi) hi = ch->times[ch->key_count - 1];
    }
    *out_start = lo;
    *out_end = hi;
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API float gpuskin_clip_loop_time(const gpuskin_clip *clip, float t)
{
    float start, end, r;
    double len, u;
    if (gpuskin_clip_range(clip, &start, &end) != GPUSKIN_SUCCESS) return 0.0f;
    /* In double: end - start and t - start leave float's range for times near FLT_MAX. */
    len = (double)end - (double)start;
    if (!(len > 0.0) || !gpuskin__finite(t)) return start;
    u = fmod((double)t - (double)start, len);
    if (u < 0.0) u += len;
    r = (float)((double)start + u);
    return r < end ? r : nextafterf(end, start); /* rounding may land on end: [start, end) */
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
        /* keys far apart can leave float's range between them; an unvalidated
           clip's NaN keys come through as they are */
        if (!gpuskin__all_finite(v, gpuskin__path_comps(ch->path))) return GPUSKIN_ERROR_NON_FINITE;
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
    for (j = 0; j < joint_count; ++j) /* all checked before any is written */
        if (!gpuskin__trs_finite(&a[j]) || !gpuskin__trs_finite(&b[j])) return GPUSKIN_ERROR_NON_FINITE;
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
        /* finite inputs far apart, or a t far outside [0, 1], can leave float's range */
        if (!gpuskin__trs_finite(&r)) return GPUSKIN_ERROR_NON_FINITE;
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
    for (j = 0; j < joint_count; ++j) /* all checked before any is written */
        if (!gpuskin_mat4_is_finite(&a[j]) || !gpuskin_mat4_is_finite(&b[j])) return GPUSKIN_ERROR_NON_FINITE;
    for (j = 0; j < joint_count; ++j) {
        for (e = 0; e < 16; ++e) out[j].m[e] = a[j].m[e] + (b[j].m[e] - a[j].m[e]) * t;
        if (!gpuskin_mat4_is_finite(&out[j])) return GPUSKIN_ERROR_NON_FINITE; /* as in gpuskin_pose_blend */
    }
    return GPUSKIN_SUCCESS;
}

#ifdef __cplusplus
}
#endif


/* ---- the production CPU path -------------------------------------------------

   Defines:

     gpuskin_skin_cpu_fast    the oracle's contract (same desc, same validation, same
                              error codes and error index, same results to float
                              rounding), with SSE2 where the compiler offers it;
     gpuskin_build_palettes   skeleton globals + placement + inverse bind (+ the packed
                              LBS layout) for a range of instances: sixteen at a time
                              (AVX-512), eight (AVX2 + FMA) or four (SSE2), chosen at
                              run time, and a range's last few one at a time (1-5
                              with AVX2, up to 7 with AVX-512);
     gpuskin_pack_dq_fast     gpuskin_pack_dq's contract and decisions, the Gram-Schmidt
                              split eight (SSE2), sixteen (AVX) or thirty-two (AVX-512,
                              in builds not made for FMA) joints at a time in float,
                              every form with the same bits (see its section).

   Why it is faster than the oracle (which is written to be read next to the GLSL):
   - weights and joints of four vertices are read at once; each vertex blends its
     palette rows as three __m128 (a row is one vector: 12 multiply-adds for four
     influences), with no branch on zero weights (their joint index is replaced by 0,
     which is safe to read and adds exactly 0);
   - the four blended 3x4 matrices are transposed into structure-of-arrays registers,
     so positions, cofactors, determinant, normal transform and normalisation are done
     for four vertices per instruction;
   - the oracle's validation pass (gpuskin_streams_validate) becomes a vectorised
     scan that can only over-report; a suspicious block is re-checked vertex by vertex
     with the oracle's own validator, so codes and indices are the oracle's. It still
     runs before anything is written: on error the outputs are untouched, as with the
     oracle;
   - on a CPU with AVX2 and FMA (GCC/clang, chosen at run time), LBS runs a second
     form: eight vertices a group, each influence one 256-bit and one
     128-bit fused multiply-add, the rest on eight lanes (the H200 host: ~1.8x the
     SSE2 form; BENCHMARKS.md); with AVX-512F too, a third: sixteen vertices a
     group, each influence one masked 512-bit
     load and one fused multiply-add, the rest on sixteen lanes. Both read palettes
     of up to GPUSKIN_FAST_COPY_JOINTS joints from a stack copy at one cache line a
     joint, so that no palette load straddles two lines.
   Statements follow the oracle's order where that costs nothing, so most results of
   the SSE2 forms are bit-identical; where they are not (the normal and tangent are
   scaled by 1/len instead of divided by len, and palettes fold the model matrix into
   the roots) the difference is an ulp or two. The AVX2 + FMA form rounds each
   multiply-add once, so its results differ from the oracle's by about as much.

   Options: GPUSKIN_NO_SIMD forces the portable path (oracle + reference palettes);
   GPUSKIN_NO_AVX, GPUSKIN_NO_AVX512 and GPUSKIN_FAST_COPY_JOINTS as at the top.
   It reuses the oracle's private helpers (gpuskin__check_stream, gpuskin__check_palette,
   gpuskin__sets, gpuskin__joint_size, gpuskin__finite, GPUSKIN__TRY). */

#if !defined(GPUSKIN_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2))
#define GPUSKIN__FAST_SSE2 1
#include <emmintrin.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define GPUSKIN__FAST_INLINE static __inline__ __attribute__((always_inline))
#elif defined(_MSC_VER)
#define GPUSKIN__FAST_INLINE static __forceinline
#else
#define GPUSKIN__FAST_INLINE static
#endif

/* The DQ split has a second form for AVX: sixteen joints a call in two 256-bit
   registers instead of eight in two 128-bit ones, and the three-operand (VEX)
   encoding without SSE2's register copies (locally ~25 % faster than the SSE2
   code compiled for AVX, ~35 % faster than plain SSE2). GCC and clang can compile
   a function for AVX (the target attribute) and tell at run time whether the CPU
   and OS support it. No fused multiply-adds there: both split forms run the same
   float operations in the same order and give the same bits, because the split's
   decisions (rigid or not) must not depend on the CPU. LBS skinning has an AVX2 +
   FMA form and an AVX-512F one (see "the production CPU path"), whose outputs may
   differ in the last bits; recompiling the SSE2 skinning and palette loops for
   AVX alone gained 2-3 %, within noise. GPUSKIN_NO_AVX turns both off. A build for -mavx or above keeps
   the AVX2 skinning form (still checked at run time) but not the AVX split form
   (its SSE2 form is then VEX-encoded already). The split has a third form,
   thirty-two joints in two AVX-512 registers (the same bits again; ~1.3x the AVX
   form on an H200 host), chosen at run time in builds not made for FMA.
   gpuskin_build_palettes has eight- and sixteen-lane forms (AVX2 + FMA, AVX-512;
   see their section), also chosen at run time. */
#if defined(GPUSKIN__FAST_SSE2) && !defined(GPUSKIN_NO_AVX) && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__x86_64__) || defined(__i386__))
/* The AVX2 + FMA skinning form: also in builds for AVX and above (-march=native),
   where it is still the faster form. */
#define GPUSKIN__FAST_AVX2 1
#include <immintrin.h>
#define GPUSKIN__FAST_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define GPUSKIN__FAST_INLINE_AVX2 static __inline__ __attribute__((always_inline))
static int gpuskin__fast_cpu_has_avx2_fma(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
/* The sixteen-lane palettes and LBS skinning (AVX-512F): GPUSKIN_NO_AVX512 turns
   them off, for hosts that keep AVX-512 out of their threads (on some older Intel
   cores, 512-bit work lowers the clock of the whole core for a while). */
#if !defined(GPUSKIN_NO_AVX512)
#define GPUSKIN__FAST_AVX512 1
#define GPUSKIN__FAST_TARGET_AVX512 __attribute__((target("avx512f,avx2,fma")))
static int gpuskin__fast_cpu_has_avx512(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && gpuskin__fast_cpu_has_avx2_fma();
}
#endif
#if !defined(__AVX__)
#define GPUSKIN__FAST_VEX 1
#define GPUSKIN__FAST_TARGET_AVX __attribute__((target("avx")))
static int gpuskin__fast_cpu_has_avx(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx") != 0;
}
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* Palettes: the reference path (any platform, any matrices)                */
/* ======================================================================== */

/* Instances [first, first + count) exactly as a caller would do it by hand:
   globals, palette, pack. `scratch` (joint_count matrices) is used when the caller
   wants no out_palettes. The palette is computed in place over the globals, which
   gpuskin_skeleton_palette allows (entry j reads only globals[j]). */
static gpuskin_result gpuskin__fast_palettes_plain(const gpuskin_palette_batch_desc *d, uint32_t first, uint32_t count,
                                                   gpuskin_mat4 *scratch)
{
    const gpuskin_skeleton *sk = d->skeleton;
    const size_t nj = sk->joint_count;
    uint32_t i;
    for (i = first; i < first + count; ++i) {
        gpuskin_mat4 *pal = d->out_palettes ? d->out_palettes + (size_t)i * nj : scratch;
        GPUSKIN__TRY(gpuskin_skeleton_globals(sk, d->local_poses ? d->local_poses + (size_t)i * nj : NULL, pal));
        GPUSKIN__TRY(gpuskin_skeleton_palette(sk, d->models ? &d->models[i] : NULL, pal, pal));
        if (d->out_lbs)
            GPUSKIN__TRY(gpuskin_pack_lbs(pal, sk->joint_count, d->out_lbs + (size_t)i * nj * GPUSKIN_LBS_FLOATS_PER_JOINT));
    }
    return GPUSKIN_SUCCESS;
}

/* The reference path for instances a fast form gave back (a non-affine model, or
   a value it cannot vouch for), or for every instance where there is no fast
   form. The scratch is allocated on first use, when the caller wants no
   out_palettes; the caller frees *scratch. */
static gpuskin_result gpuskin__fast_palettes_redo(const gpuskin_palette_batch_desc *d, uint32_t first, uint32_t count,
                                                  gpuskin_mat4 **scratch)
{
    const gpuskin_skeleton *sk = d->skeleton;
    if (!d->out_palettes && !*scratch) {
        *scratch = (gpuskin_mat4 *)GPUSKIN_MALLOC((size_t)sk->joint_count * sizeof(gpuskin_mat4), sk->alloc_user);
        if (!*scratch) return GPUSKIN_ERROR_OUT_OF_MEMORY;
    }
    return gpuskin__fast_palettes_plain(d, first, count, *scratch);
}

#ifdef GPUSKIN__FAST_SSE2

static int gpuskin__fast_is_affine(const gpuskin_mat4 *m)
{
    return m->m[3] == 0.0f && m->m[7] == 0.0f && m->m[11] == 0.0f && m->m[15] == 1.0f;
}

/* ======================================================================== */
/* Palettes: four instances at a time                                       */
/* ======================================================================== */

/* Four 3x4 affine matrices in structure-of-arrays form: m[row][col], lane l is
   instance l. Row 3 is (0 0 0 1) and not stored. */
typedef struct gpuskin__fast_aff4 { __m128 m[3][4]; } gpuskin__fast_aff4;

/* The TRS loads below read 4 floats from &rotation.w: the struct must be 10 packed floats. */
typedef char gpuskin__fast_trs_is_10_floats[sizeof(gpuskin_trs) == 10 * sizeof(float) ? 1 : -1];

#define GPUSKIN__FAST_BCAST(v, i) _mm_shuffle_ps((v), (v), _MM_SHUFFLE((i), (i), (i), (i)))

/* One entry of an affine product, the same sums in the same order as
   gpuskin_mat4_mul (its terms with b's row 3 are + a*0 and + a[row][3]*1, exact).
   b_kc names b[row k][col c]; written out, since -O2 does not unroll the loops. */
#define GPUSKIN__FAST_DOT3(a, r, b0c, b1c, b2c)                                                                        \
    _mm_add_ps(_mm_add_ps(_mm_mul_ps((a)->m[r][0], b0c), _mm_mul_ps((a)->m[r][1], b1c)), _mm_mul_ps((a)->m[r][2], b2c))
#define GPUSKIN__FAST_AFF_ROW(out, a, r, B)                                                                            \
    do {                                                                                                               \
        (out)->m[r][0] = GPUSKIN__FAST_DOT3(a, r, B(0, 0), B(1, 0), B(2, 0));                                        \
        (out)->m[r][1] = GPUSKIN__FAST_DOT3(a, r, B(0, 1), B(1, 1), B(2, 1));                                        \
        (out)->m[r][2] = GPUSKIN__FAST_DOT3(a, r, B(0, 2), B(1, 2), B(2, 2));                                        \
        (out)->m[r][3] = _mm_add_ps(GPUSKIN__FAST_DOT3(a, r, B(0, 3), B(1, 3), B(2, 3)), (a)->m[r][3]);              \
    } while (0)

/* out = a * b, both four lanes (out may not alias a or b). */
GPUSKIN__FAST_INLINE void gpuskin__fast_aff4_mul(const gpuskin__fast_aff4 *a, const gpuskin__fast_aff4 *b,
                                                 gpuskin__fast_aff4 *out)
{
#define GPUSKIN__FAST_B4(k, c) b->m[k][c]
    GPUSKIN__FAST_AFF_ROW(out, a, 0, GPUSKIN__FAST_B4);
    GPUSKIN__FAST_AFF_ROW(out, a, 1, GPUSKIN__FAST_B4);
    GPUSKIN__FAST_AFF_ROW(out, a, 2, GPUSKIN__FAST_B4);
#undef GPUSKIN__FAST_B4
}

/* out = a * b with b one affine matrix for all four lanes (inverse bind, root parent). */
GPUSKIN__FAST_INLINE void gpuskin__fast_aff4_mul_one(const gpuskin__fast_aff4 *a, const gpuskin_mat4 *b,
                                                     gpuskin__fast_aff4 *out)
{
    /* b's columns, each element broadcast with one shuffle: bc[c] = column c */
    const __m128 bc[4] = {_mm_loadu_ps(b->m), _mm_loadu_ps(b->m + 4), _mm_loadu_ps(b->m + 8), _mm_loadu_ps(b->m + 12)};
#define GPUSKIN__FAST_B1(k, c) GPUSKIN__FAST_BCAST(bc[c], k)
    GPUSKIN__FAST_AFF_ROW(out, a, 0, GPUSKIN__FAST_B1);
    GPUSKIN__FAST_AFF_ROW(out, a, 1, GPUSKIN__FAST_B1);
    GPUSKIN__FAST_AFF_ROW(out, a, 2, GPUSKIN__FAST_B1);
#undef GPUSKIN__FAST_B1
}

/* One affine matrix in all four lanes. */
static void gpuskin__fast_aff4_splat(const gpuskin_mat4 *m, gpuskin__fast_aff4 *out)
{
    int r, c;
    for (r = 0; r < 3; ++r)
        for (c = 0; c < 4; ++c) out->m[r][c] = _mm_set1_ps(m->m[c * 4 + r]);
}

/* Four (affine) matrices, one a lane. */
static void gpuskin__fast_aff4_load(const gpuskin_mat4 *const m[4], gpuskin__fast_aff4 *out)
{
    int c;
    for (c = 0; c < 4; ++c) { /* column c of each lane -> rows 0..3 of column c */
        __m128 l0 = _mm_loadu_ps(m[0]->m + c * 4), l1 = _mm_loadu_ps(m[1]->m + c * 4);
        __m128 l2 = _mm_loadu_ps(m[2]->m + c * 4), l3 = _mm_loadu_ps(m[3]->m + c * 4);
        _MM_TRANSPOSE4_PS(l0, l1, l2, l3);
        out->m[0][c] = l0;
        out->m[1][c] = l1;
        out->m[2][c] = l2;
    }
}

/* Local matrices of four TRS, gpuskin_mat4_from_trs statement for statement
   (gpuskin_quat_normalize, gpuskin_mat3_from_quat, columns times scale).
   *nonfinite accumulates x - x of every input: 0 while all are finite. */
GPUSKIN__FAST_INLINE void gpuskin__fast_local4(const gpuskin_trs *const t[4], gpuskin__fast_aff4 *out, __m128 *nonfinite)
{
    const __m128 one = _mm_set1_ps(1.0f), two = _mm_set1_ps(2.0f);
    /* (tx ty tz qx), (qx qy qz qw), (qw sx sy sz) per lane, then transposed. */
    __m128 a0 = _mm_loadu_ps(&t[0]->translation.x), a1 = _mm_loadu_ps(&t[1]->translation.x);
    __m128 a2 = _mm_loadu_ps(&t[2]->translation.x), a3 = _mm_loadu_ps(&t[3]->translation.x);
    __m128 q0 = _mm_loadu_ps(&t[0]->rotation.x), q1 = _mm_loadu_ps(&t[1]->rotation.x);
    __m128 q2 = _mm_loadu_ps(&t[2]->rotation.x), q3 = _mm_loadu_ps(&t[3]->rotation.x);
    __m128 s0 = _mm_loadu_ps(&t[0]->rotation.w), s1 = _mm_loadu_ps(&t[1]->rotation.w);
    __m128 s2 = _mm_loadu_ps(&t[2]->rotation.w), s3 = _mm_loadu_ps(&t[3]->rotation.w);
    __m128 len2, ok, inv, x, y, z, w, xx, yy, zz, xy, xz, yz, wx, wy, wz, bad;
    _MM_TRANSPOSE4_PS(a0, a1, a2, a3); /* a0..a2 = tx, ty, tz */
    _MM_TRANSPOSE4_PS(q0, q1, q2, q3); /* qx, qy, qz, qw */
    _MM_TRANSPOSE4_PS(s0, s1, s2, s3); /* s1..s3 = sx, sy, sz */
    /* A non-finite translation or scale reaches the palette (checked there); a
       non-finite rotation would not (the normalisation below makes it the identity),
       so it is checked here. */
    bad = _mm_add_ps(_mm_add_ps(_mm_sub_ps(q0, q0), _mm_sub_ps(q1, q1)), _mm_add_ps(_mm_sub_ps(q2, q2), _mm_sub_ps(q3, q3)));
    *nonfinite = _mm_add_ps(*nonfinite, bad);
    /* gpuskin_quat_normalize: identity unless 1e-24 < |q|^2 < inf */
    len2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(q0, q0), _mm_mul_ps(q1, q1)), _mm_mul_ps(q2, q2)),
                      _mm_mul_ps(q3, q3));
    ok = _mm_and_ps(_mm_cmpgt_ps(len2, _mm_set1_ps(1e-24f)), _mm_cmpeq_ps(_mm_sub_ps(len2, len2), _mm_setzero_ps()));
    inv = _mm_div_ps(one, _mm_sqrt_ps(len2));
    x = _mm_and_ps(ok, _mm_mul_ps(q0, inv));
    y = _mm_and_ps(ok, _mm_mul_ps(q1, inv));
    z = _mm_and_ps(ok, _mm_mul_ps(q2, inv));
    w = _mm_or_ps(_mm_and_ps(ok, _mm_mul_ps(q3, inv)), _mm_andnot_ps(ok, one));
    /* gpuskin_mat3_from_quat, then column c times scale c */
    xx = _mm_mul_ps(x, x); yy = _mm_mul_ps(y, y); zz = _mm_mul_ps(z, z);
    xy = _mm_mul_ps(x, y); xz = _mm_mul_ps(x, z); yz = _mm_mul_ps(y, z);
    wx = _mm_mul_ps(w, x); wy = _mm_mul_ps(w, y); wz = _mm_mul_ps(w, z);
    out->m[0][0] = _mm_mul_ps(_mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(yy, zz))), s1);
    out->m[1][0] = _mm_mul_ps(_mm_mul_ps(two, _mm_add_ps(xy, wz)), s1);
    out->m[2][0] = _mm_mul_ps(_mm_mul_ps(two, _mm_sub_ps(xz, wy)), s1);
    out->m[0][1] = _mm_mul_ps(_mm_mul_ps(two, _mm_sub_ps(xy, wz)), s2);
    out->m[1][1] = _mm_mul_ps(_mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(xx, zz))), s2);
    out->m[2][1] = _mm_mul_ps(_mm_mul_ps(two, _mm_add_ps(yz, wx)), s2);
    out->m[0][2] = _mm_mul_ps(_mm_mul_ps(two, _mm_add_ps(xz, wy)), s3);
    out->m[1][2] = _mm_mul_ps(_mm_mul_ps(two, _mm_sub_ps(yz, wx)), s3);
    out->m[2][2] = _mm_mul_ps(_mm_sub_ps(one, _mm_mul_ps(two, _mm_add_ps(xx, yy))), s3);
    out->m[0][3] = a0;
    out->m[1][3] = a1;
    out->m[2][3] = a2;
}

/* Writes lanes [0, lanes) of p: LBS rows and/or column-major matrices. dst[l] is
   lane l's first float of this joint's entry. */
GPUSKIN__FAST_INLINE void gpuskin__fast_store4(float *const dst[4], uint32_t lanes, __m128 v0, __m128 v1, __m128 v2, __m128 v3)
{
    _MM_TRANSPOSE4_PS(v0, v1, v2, v3);
    if (lanes == 4) {
        _mm_storeu_ps(dst[0], v0); _mm_storeu_ps(dst[1], v1); _mm_storeu_ps(dst[2], v2); _mm_storeu_ps(dst[3], v3);
    } else {
        _mm_storeu_ps(dst[0], v0);
        if (lanes > 1) _mm_storeu_ps(dst[1], v1);
        if (lanes > 2) _mm_storeu_ps(dst[2], v2);
    }
}

/* lbs[l] / pal[l]: lane l's instance's first LBS float / palette matrix (NULL: not wanted). */
static void gpuskin__fast_store_palettes(float *const lbs[4], gpuskin_mat4 *const pal[4], uint32_t lanes, uint32_t joint,
                                         const gpuskin__fast_aff4 *p)
{
    float *dst[4];
    if (lbs[0]) { /* row r of every lane is the transpose of (m[r][0..3]) */
        const size_t at = (size_t)joint * GPUSKIN_LBS_FLOATS_PER_JOINT;
        dst[0] = lbs[0] + at; dst[1] = lbs[1] + at; dst[2] = lbs[2] + at; dst[3] = lbs[3] + at;
        gpuskin__fast_store4(dst, lanes, p->m[0][0], p->m[0][1], p->m[0][2], p->m[0][3]);
        dst[0] += 4; dst[1] += 4; dst[2] += 4; dst[3] += 4;
        gpuskin__fast_store4(dst, lanes, p->m[1][0], p->m[1][1], p->m[1][2], p->m[1][3]);
        dst[0] += 4; dst[1] += 4; dst[2] += 4; dst[3] += 4;
        gpuskin__fast_store4(dst, lanes, p->m[2][0], p->m[2][1], p->m[2][2], p->m[2][3]);
    }
    if (pal[0]) { /* column c of every lane, row 3 = (0 0 0 1) */
        const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
        dst[0] = pal[0][joint].m; dst[1] = pal[1][joint].m; dst[2] = pal[2][joint].m; dst[3] = pal[3][joint].m;
        gpuskin__fast_store4(dst, lanes, p->m[0][0], p->m[1][0], p->m[2][0], zero);
        dst[0] += 4; dst[1] += 4; dst[2] += 4; dst[3] += 4;
        gpuskin__fast_store4(dst, lanes, p->m[0][1], p->m[1][1], p->m[2][1], zero);
        dst[0] += 4; dst[1] += 4; dst[2] += 4; dst[3] += 4;
        gpuskin__fast_store4(dst, lanes, p->m[0][2], p->m[1][2], p->m[2][2], zero);
        dst[0] += 4; dst[1] += 4; dst[2] += 4; dst[3] += 4;
        gpuskin__fast_store4(dst, lanes, p->m[0][3], p->m[1][3], p->m[2][3], one);
    }
}

/* Instances [inst0, inst0 + lanes), lanes <= 4; a short group repeats its last
   instance in the spare lanes (computed, never stored). `g` holds the model-space
   globals of every joint (joint_count entries). Returns 0 when this group has a
   non-affine model, which the caller then does by the reference path. */
static int gpuskin__fast_palettes4(const gpuskin_palette_batch_desc *d, uint32_t inst0, uint32_t lanes,
                                   gpuskin__fast_aff4 *g, gpuskin_result *result)
{
    const gpuskin_skeleton *sk = d->skeleton;
    const size_t nj = sk->joint_count;
    uint32_t i, l, inst[4];
    const gpuskin_trs *pose[4];
    float *lbs[4];
    gpuskin_mat4 *pals[4];
    gpuskin__fast_aff4 model, local, pal;
    __m128 nonfinite = _mm_setzero_ps();
    for (l = 0; l < 4; ++l) inst[l] = inst0 + (l < lanes ? l : lanes - 1);
    if (d->models) {
        const gpuskin_mat4 *m[4];
        for (l = 0; l < 4; ++l) {
            m[l] = &d->models[inst[l]];
            if (!gpuskin_mat4_is_finite(m[l])) {
                *result = GPUSKIN_ERROR_NON_FINITE;
                return 1;
            }
            if (!gpuskin__fast_is_affine(m[l])) return 0;
        }
        gpuskin__fast_aff4_load(m, &model);
    }
    /* The model matrix rides on the roots: g[j] = model * global(j), so each joint
       costs two products (parent * local, then * inverse bind) instead of three. */
    for (l = 0; l < 4; ++l) {
        pose[l] = d->local_poses ? d->local_poses + inst[l] * nj : sk->rest_pose;
        lbs[l] = d->out_lbs ? d->out_lbs + inst[l] * nj * GPUSKIN_LBS_FLOATS_PER_JOINT : NULL;
        pals[l] = d->out_palettes ? d->out_palettes + inst[l] * nj : NULL;
    }
    for (i = 0; i < sk->joint_count; ++i) {
        const uint32_t j = sk->order[i];
        const int32_t parent = sk->parents[j];
        const gpuskin_trs *t[4];
        t[0] = pose[0] + j; t[1] = pose[1] + j; t[2] = pose[2] + j; t[3] = pose[3] + j;
        gpuskin__fast_local4(t, &local, &nonfinite);
        if (parent >= 0) {
            gpuskin__fast_aff4_mul(&g[parent], &local, &g[j]);
        } else {
            gpuskin__fast_aff4 root;
            if (d->models) gpuskin__fast_aff4_mul_one(&model, &sk->root_parent_globals[j], &root);
            else gpuskin__fast_aff4_splat(&sk->root_parent_globals[j], &root);
            gpuskin__fast_aff4_mul(&root, &local, &g[j]);
        }
        gpuskin__fast_aff4_mul_one(&g[j], &sk->inverse_bind[j], &pal);
        /* A non-finite global always reaches the palette (x * inf and x * NaN are
           never finite, not even for x = 0), so checking the palette is enough. */
        {
#define GPUSKIN__FAST_NF(r, c) _mm_sub_ps(pal.m[r][c], pal.m[r][c])
#define GPUSKIN__FAST_NF_ROW(r) _mm_add_ps(_mm_add_ps(GPUSKIN__FAST_NF(r, 0), GPUSKIN__FAST_NF(r, 1)), \
                                           _mm_add_ps(GPUSKIN__FAST_NF(r, 2), GPUSKIN__FAST_NF(r, 3)))
            nonfinite = _mm_add_ps(nonfinite, _mm_add_ps(_mm_add_ps(GPUSKIN__FAST_NF_ROW(0), GPUSKIN__FAST_NF_ROW(1)),
                                                         GPUSKIN__FAST_NF_ROW(2)));
#undef GPUSKIN__FAST_NF_ROW
#undef GPUSKIN__FAST_NF
        }
        gpuskin__fast_store_palettes(lbs, pals, lanes, j, &pal);
    }
    /* x - x is 0 for finite x and NaN otherwise; a NaN anywhere made the sum NaN. */
    if (_mm_movemask_ps(_mm_cmpeq_ps(nonfinite, _mm_setzero_ps())) != 0xF) *result = GPUSKIN_ERROR_NON_FINITE;
    return 1;
}

#ifdef GPUSKIN__FAST_AVX2
/* ======================================================================== */
/* Palettes: eight or sixteen instances at a time (AVX2 + FMA, AVX-512)     */
/* ======================================================================== */

/* Chosen at run time over gpuskin__fast_palettes4: sixteen lanes where the CPU
   has AVX-512, else eight. Not gpuskin__fast_palettes4 made wider: the parent is
   read from memory as an operand of each fused multiply-add (eight-lane
   registers are 16 and cannot hold a product's three matrices); the quaternion's
   normalisation is folded into one factor 2/|q|^2; and the finiteness checks are
   one running sum, whose false alarms (a sum of huge finite values that
   overflows) cost nothing but time: any alarm sends the group to the reference
   path, which decides and reports exactly. Fused multiply-adds round once where
   the reference rounds twice: results differ from it by float rounding, within
   what tests/test_fast.c allows. One body, GPUSKIN__FAST_PALETTES_IMPL, for both
   widths; each width supplies P##_set1, _add, _sub, _mul, _fmadd, _fnmadd,
   _bcast, _two_over (2/x where x > 1e-24, else 0), _gather, _scatter and
   _all_finite. Without AVX-512, gpuskin_build_palettes gives the eight-lane
   form whole groups and a short end of 4-7, the row form below a short end of
   1-3. With AVX-512, the sixteen-lane form whole groups, and a short end goes
   to one more group of sixteen or eight, or to the one-register form (see
   gpuskin_build_palettes for which). */

/* Four registers, each made of 4-float lanes, transposed lane by lane. */
#define GPUSKIN__FAST_TRANSPOSE4X(PS, a, b, c, d)                                                              \
    do {                                                                                                       \
        const __typeof__(a) t0_ = PS##_unpacklo_ps((a), (b)), t1_ = PS##_unpackhi_ps((a), (b));                \
        const __typeof__(a) t2_ = PS##_unpacklo_ps((c), (d)), t3_ = PS##_unpackhi_ps((c), (d));                \
        (a) = PS##_shuffle_ps(t0_, t2_, _MM_SHUFFLE(1, 0, 1, 0));                                              \
        (b) = PS##_shuffle_ps(t0_, t2_, _MM_SHUFFLE(3, 2, 3, 2));                                              \
        (c) = PS##_shuffle_ps(t1_, t3_, _MM_SHUFFLE(1, 0, 1, 0));                                              \
        (d) = PS##_shuffle_ps(t1_, t3_, _MM_SHUFFLE(3, 2, 3, 2));                                              \
    } while (0)
#define GPUSKIN__FAST_TRANSPOSE8(a, b, c, d) GPUSKIN__FAST_TRANSPOSE4X(_mm256, a, b, c, d)

GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 __m256 gpuskin__fast_join(__m128 lo, __m128 hi)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

/* Lanes [0, lanes) of four transposed registers, by way of memory: for a group's
   short end only. Lane l is float quarter l / 4 of register l % 4. */
static void gpuskin__fast_scatter_short(char *b, const size_t *off, uint32_t lanes, const float *regs, uint32_t width)
{
    uint32_t l;
    for (l = 0; l < lanes; ++l) memcpy(b + off[l], regs + (l % 4) * width + 4 * (l / 4), 4 * sizeof(float));
}

/* The body, for P = gpuskin__p8 or gpuskin__p16 (V its vector type, W its lanes). */
#define GPUSKIN__FAST_PALETTES_IMPL(P, V, W, TARGET)                                                                   \
typedef struct P##_aff { V m[3][4]; } P##_aff;                                                                         \
                                                                                                                       \
/* The local matrices of a group's TRS: gpuskin_mat4_from_trs with the                                                 \
   normalisation folded in (1 - 2(y^2 + z^2)/|q|^2 and so on; the identity rotation                                    \
   where not 1e-24 < |q|^2). *alarm receives |q|^2 x 1e9: not finite for a                                             \
   non-finite rotation, and for |q|^2 >= ~3e29, where 2/|q|^2 would come near the                                      \
   denormals. */                                                                                                       \
TARGET GPUSKIN__FAST_INLINE_AVX2 void P##_local(const gpuskin_trs *t, const size_t *off, V out[3][4], V *alarm)        \
{                                                                                                                      \
    V a[4], q[4], s[4], len2, k, xs, ys, zs, xx, yy, zz, xy, xz, yz, wx, wy, wz;                                       \
    P##_gather((const char *)&t->translation.x, off, a); /* tx ty tz (qx) */                                           \
    P##_gather((const char *)&t->rotation.x, off, q);    /* qx qy qz qw */                                             \
    P##_gather((const char *)&t->rotation.w, off, s);    /* (qw) sx sy sz */                                           \
    len2 = P##_fmadd(q[3], q[3], P##_fmadd(q[2], q[2], P##_fmadd(q[1], q[1], P##_mul(q[0], q[0]))));                   \
    *alarm = P##_fmadd(len2, P##_set1(1e9f), *alarm);                                                                  \
    k = P##_two_over(len2);                                                                                            \
    xs = P##_mul(q[0], k); ys = P##_mul(q[1], k); zs = P##_mul(q[2], k);                                               \
    xx = P##_mul(q[0], xs); yy = P##_mul(q[1], ys); zz = P##_mul(q[2], zs);                                            \
    xy = P##_mul(q[0], ys); xz = P##_mul(q[0], zs); yz = P##_mul(q[1], zs);                                            \
    wx = P##_mul(q[3], xs); wy = P##_mul(q[3], ys); wz = P##_mul(q[3], zs);                                            \
    /* column c times scale c; the diagonal as s - s (a + b) */                                                        \
    out[0][0] = P##_fnmadd(P##_add(yy, zz), s[1], s[1]);                                                               \
    out[1][0] = P##_mul(P##_add(xy, wz), s[1]);                                                                        \
    out[2][0] = P##_mul(P##_sub(xz, wy), s[1]);                                                                        \
    out[0][1] = P##_mul(P##_sub(xy, wz), s[2]);                                                                        \
    out[1][1] = P##_fnmadd(P##_add(xx, zz), s[2], s[2]);                                                               \
    out[2][1] = P##_mul(P##_add(yz, wx), s[2]);                                                                        \
    out[0][2] = P##_mul(P##_add(xz, wy), s[3]);                                                                        \
    out[1][2] = P##_mul(P##_sub(yz, wx), s[3]);                                                                        \
    out[2][2] = P##_fnmadd(P##_add(xx, yy), s[3], s[3]);                                                               \
    out[0][3] = a[0];                                                                                                  \
    out[1][3] = a[1];                                                                                                  \
    out[2][3] = a[2];                                                                                                  \
}                                                                                                                      \
                                                                                                                       \
/* out = a * b; a is read where it lies (a parent's global in the scratch). */                                         \
TARGET GPUSKIN__FAST_INLINE_AVX2 void P##_mul3x4(const P##_aff *a, V b[3][4], P##_aff *out)                            \
{                                                                                                                      \
    /* written out: -O2 does not unroll these loops */                                                                 \
    out->m[0][0] = P##_fmadd(a->m[0][2], b[2][0], P##_fmadd(a->m[0][1], b[1][0], P##_mul(a->m[0][0], b[0][0])));       \
    out->m[0][1] = P##_fmadd(a->m[0][2], b[2][1], P##_fmadd(a->m[0][1], b[1][1], P##_mul(a->m[0][0], b[0][1])));       \
    out->m[0][2] = P##_fmadd(a->m[0][2], b[2][2], P##_fmadd(a->m[0][1], b[1][2], P##_mul(a->m[0][0], b[0][2])));       \
    out->m[0][3] = P##_fmadd(a->m[0][2], b[2][3], P##_fmadd(a->m[0][1], b[1][3], P##_fmadd(a->m[0][0], b[0][3], a->m[0][3]))); \
    out->m[1][0] = P##_fmadd(a->m[1][2], b[2][0], P##_fmadd(a->m[1][1], b[1][0], P##_mul(a->m[1][0], b[0][0])));       \
    out->m[1][1] = P##_fmadd(a->m[1][2], b[2][1], P##_fmadd(a->m[1][1], b[1][1], P##_mul(a->m[1][0], b[0][1])));       \
    out->m[1][2] = P##_fmadd(a->m[1][2], b[2][2], P##_fmadd(a->m[1][1], b[1][2], P##_mul(a->m[1][0], b[0][2])));       \
    out->m[1][3] = P##_fmadd(a->m[1][2], b[2][3], P##_fmadd(a->m[1][1], b[1][3], P##_fmadd(a->m[1][0], b[0][3], a->m[1][3]))); \
    out->m[2][0] = P##_fmadd(a->m[2][2], b[2][0], P##_fmadd(a->m[2][1], b[1][0], P##_mul(a->m[2][0], b[0][0])));       \
    out->m[2][1] = P##_fmadd(a->m[2][2], b[2][1], P##_fmadd(a->m[2][1], b[1][1], P##_mul(a->m[2][0], b[0][1])));       \
    out->m[2][2] = P##_fmadd(a->m[2][2], b[2][2], P##_fmadd(a->m[2][1], b[1][2], P##_mul(a->m[2][0], b[0][2])));       \
    out->m[2][3] = P##_fmadd(a->m[2][2], b[2][3], P##_fmadd(a->m[2][1], b[1][3], P##_fmadd(a->m[2][0], b[0][3], a->m[2][3]))); \
}                                                                                                                      \
                                                                                                                       \
/* One affine matrix's rows 0..2 in every lane: b[row][col]. */                                                        \
TARGET GPUSKIN__FAST_INLINE_AVX2 void P##_splat(const gpuskin_mat4 *m, V b[3][4])                                      \
{                                                                                                                      \
    b[0][0] = P##_bcast(&m->m[0]), b[0][1] = P##_bcast(&m->m[4]);                                                      \
    b[0][2] = P##_bcast(&m->m[8]), b[0][3] = P##_bcast(&m->m[12]);                                                     \
    b[1][0] = P##_bcast(&m->m[1]), b[1][1] = P##_bcast(&m->m[5]);                                                      \
    b[1][2] = P##_bcast(&m->m[9]), b[1][3] = P##_bcast(&m->m[13]);                                                     \
    b[2][0] = P##_bcast(&m->m[2]), b[2][1] = P##_bcast(&m->m[6]);                                                      \
    b[2][2] = P##_bcast(&m->m[10]), b[2][3] = P##_bcast(&m->m[14]);                                                    \
}                                                                                                                      \
                                                                                                                       \
/* Instances [inst0, inst0 + lanes), lanes <= W; a short group repeats its last                                        \
   instance in the spare lanes (computed, never stored). `g` holds the model-space                                     \
   globals of every joint. `next`: how many instances the range's next group has                                       \
   (0: none). Returns 0 when this group must take the reference path: a non-affine                                     \
   model, or an alarm (see above). */                                                                                  \
TARGET static int P##_palettes(const gpuskin_palette_batch_desc *d, uint32_t inst0, uint32_t lanes, P##_aff *g,        \
                               uint32_t next)                                                                          \
{                                                                                                                      \
    const gpuskin_skeleton *sk = d->skeleton;                                                                          \
    const size_t nj = sk->joint_count;                                                                                 \
    /* lane l's bytes from lane 0's: its instance's poses, LBS rows, palettes, model */                                \
    size_t offsets[4][W], *pose_off = offsets[0], *lbs_off = offsets[1], *pal_off = offsets[2], *model_off = offsets[3]; \
    uint32_t i, l;                                                                                                     \
    const gpuskin_trs *pose = d->local_poses ? d->local_poses + inst0 * nj : sk->rest_pose;                            \
    float *lbs = d->out_lbs ? d->out_lbs + inst0 * nj * GPUSKIN_LBS_FLOATS_PER_JOINT : NULL;                           \
    gpuskin_mat4 *pals = d->out_palettes ? d->out_palettes + inst0 * nj : NULL;                                        \
    /* The next group's poses, into L2, one slice of next * 40 bytes a joint: where                                    \
       they come from DRAM (10,000 instances), a group's W streams are more than the                                   \
       hardware prefetchers follow in time (locally 9.4 -> 6.4 ns a joint at 10,000                                    \
       instances; no change at 64 or 1,024, where they are in cache). */                                               \
    const char *pf = next && d->local_poses ? (const char *)(pose + W * nj) : NULL;                                    \
    const size_t pf_slice = next * sizeof(gpuskin_trs);                                                                \
    P##_aff model, pal;                                                                                                \
    V alarm = P##_set1(0.0f), sum = P##_set1(0.0f);                                                                    \
    for (l = 0; l < W; ++l) {                                                                                          \
        const size_t k = l < lanes ? l : lanes - 1;                                                                    \
        pose_off[l] = d->local_poses ? k * nj * sizeof(gpuskin_trs) : 0;                                               \
        lbs_off[l] = k * nj * GPUSKIN_LBS_FLOATS_PER_JOINT * sizeof(float);                                            \
        pal_off[l] = k * nj * sizeof(gpuskin_mat4);                                                                    \
        model_off[l] = k * sizeof(gpuskin_mat4);                                                                       \
    }                                                                                                                  \
    /* An empty asm makes the offsets opaque: without it GCC keeps them as vectors                                     \
       and extracts each lane's with two instructions, at every use. */                                                \
    __asm__("" : "+r"(pose_off), "+r"(lbs_off), "+r"(pal_off), "+r"(model_off));                                       \
    if (d->models) {                                                                                                   \
        const gpuskin_mat4 *m0 = &d->models[inst0];                                                                    \
        V col[4];                                                                                                      \
        int c;                                                                                                         \
        /* (a non-finite model reaches every palette: the final check sees it) */                                      \
        for (l = 0; l < lanes; ++l)                                                                                    \
            if (!gpuskin__fast_is_affine(&m0[l])) return 0;                                                            \
        for (c = 0; c < 4; ++c) {                                                                                      \
            P##_gather((const char *)(m0->m + 4 * c), model_off, col);                                                 \
            model.m[0][c] = col[0];                                                                                    \
            model.m[1][c] = col[1];                                                                                    \
            model.m[2][c] = col[2];                                                                                    \
        }                                                                                                              \
    }                                                                                                                  \
    for (i = 0; i < sk->joint_count; ++i) {                                                                            \
        const uint32_t j = sk->order[i];                                                                               \
        const int32_t parent = sk->parents[j];                                                                         \
        V local[3][4], ib[3][4];                                                                                       \
        if (pf) {                                                                                                      \
            size_t o;                                                                                                  \
            for (o = 0; o < pf_slice; o += 64) _mm_prefetch(pf + i * pf_slice + o, _MM_HINT_T1);                       \
        }                                                                                                              \
        P##_local(pose + j, pose_off, local, &alarm);                                                                  \
        if (parent >= 0) {                                                                                             \
            P##_mul3x4(&g[parent], local, &g[j]);                                                                      \
        } else { /* the model matrix rides on the roots, as in gpuskin__fast_palettes4 */                              \
            P##_aff root;                                                                                              \
            V rpg[3][4];                                                                                               \
            P##_splat(&sk->root_parent_globals[j], rpg);                                                               \
            if (d->models) P##_mul3x4(&model, rpg, &root);                                                             \
            else memcpy(root.m, rpg, sizeof root.m);                                                                   \
            P##_mul3x4(&root, local, &g[j]);                                                                           \
        }                                                                                                              \
        P##_splat(&sk->inverse_bind[j], ib);                                                                           \
        P##_mul3x4(&g[j], ib, &pal);                                                                                   \
        /* A non-finite global always reaches the palette (x * inf and x * NaN are                                     \
           never finite, not even for x = 0), so the palette's sum is the check. */                                    \
        sum = P##_add(sum, P##_add(P##_add(P##_add(pal.m[0][0], pal.m[0][1]), P##_add(pal.m[0][2], pal.m[0][3])),      \
                                   P##_add(P##_add(pal.m[1][0], pal.m[1][1]), P##_add(pal.m[1][2], pal.m[1][3]))));    \
        sum = P##_add(sum, P##_add(P##_add(pal.m[2][0], pal.m[2][1]), P##_add(pal.m[2][2], pal.m[2][3])));             \
        if (lbs) { /* row r of lane l = lane l of m[r][0..3] */                                                        \
            char *row = (char *)(lbs + (size_t)j * GPUSKIN_LBS_FLOATS_PER_JOINT);                                      \
            P##_scatter(row, lbs_off, lanes, pal.m[0][0], pal.m[0][1], pal.m[0][2], pal.m[0][3]);                      \
            P##_scatter(row + 16, lbs_off, lanes, pal.m[1][0], pal.m[1][1], pal.m[1][2], pal.m[1][3]);                 \
            P##_scatter(row + 32, lbs_off, lanes, pal.m[2][0], pal.m[2][1], pal.m[2][2], pal.m[2][3]);                 \
        }                                                                                                              \
        if (pals) { /* column c, row 3 = (0 0 0 1) */                                                                  \
            const V zero = P##_set1(0.0f), one = P##_set1(1.0f);                                                       \
            char *col = (char *)pals[j].m;                                                                             \
            P##_scatter(col, pal_off, lanes, pal.m[0][0], pal.m[1][0], pal.m[2][0], zero);                             \
            P##_scatter(col + 16, pal_off, lanes, pal.m[0][1], pal.m[1][1], pal.m[2][1], zero);                        \
            P##_scatter(col + 32, pal_off, lanes, pal.m[0][2], pal.m[1][2], pal.m[2][2], zero);                        \
            P##_scatter(col + 48, pal_off, lanes, pal.m[0][3], pal.m[1][3], pal.m[2][3], one);                         \
        }                                                                                                              \
    }                                                                                                                  \
    return P##_all_finite(P##_add(alarm, sum));                                                                        \
}                                                                                                                      \
                                                                                                                       \
/* Instances [first, first + count) of d, W a group. The globals of every joint                                        \
   for W instances take 48 W bytes a joint: on the stack up to 12 KB (what                                             \
   gpuskin__fast_palettes4 takes), else one allocation, aligned by hand. */                                            \
TARGET static gpuskin_result P##_palettes_range(const gpuskin_palette_batch_desc *d, uint32_t first, uint32_t count)   \
{                                                                                                                      \
    const gpuskin_skeleton *sk = d->skeleton;                                                                          \
    const uint32_t end = first + count;                                                                                \
    P##_aff stack_globals[12288 / sizeof(P##_aff)], *g = stack_globals;                                                \
    gpuskin_mat4 *scratch = NULL;                                                                                      \
    gpuskin_result result = GPUSKIN_SUCCESS;                                                                           \
    void *block = NULL;                                                                                                \
    uint32_t i;                                                                                                        \
    if (sk->joint_count > sizeof stack_globals / sizeof stack_globals[0]) {                                            \
        block = GPUSKIN_MALLOC((size_t)sk->joint_count * sizeof(P##_aff) + 63, sk->alloc_user);                        \
        if (!block) return GPUSKIN_ERROR_OUT_OF_MEMORY;                                                                \
        g = (P##_aff *)(void *)(((uintptr_t)block + 63) & ~(uintptr_t)63);                                             \
    }                                                                                                                  \
    for (i = first; i < end && result == GPUSKIN_SUCCESS; i += W) {                                                    \
        const uint32_t lanes = end - i < W ? end - i : W, after = end - i - lanes;                                     \
        if (!P##_palettes(d, i, lanes, g, after < W ? after : W))                                                      \
            result = gpuskin__fast_palettes_redo(d, i, lanes, &scratch);                                               \
    }                                                                                                                  \
    if (block) GPUSKIN_FREE(block, sk->alloc_user);                                                                    \
    if (scratch) GPUSKIN_FREE(scratch, sk->alloc_user);                                                                \
    return result;                                                                                                     \
}

/* ---- eight lanes: one AVX register ---- */
typedef __m256 gpuskin__p8;
#define GPUSKIN__P8_FN(name, args, expr) GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 __m256 gpuskin__p8_##name args { return expr; }
GPUSKIN__P8_FN(set1, (float x), _mm256_set1_ps(x))
GPUSKIN__P8_FN(add, (__m256 a, __m256 b), _mm256_add_ps(a, b))
GPUSKIN__P8_FN(sub, (__m256 a, __m256 b), _mm256_sub_ps(a, b))
GPUSKIN__P8_FN(mul, (__m256 a, __m256 b), _mm256_mul_ps(a, b))
GPUSKIN__P8_FN(fmadd, (__m256 a, __m256 b, __m256 c), _mm256_fmadd_ps(a, b, c))
GPUSKIN__P8_FN(fnmadd, (__m256 a, __m256 b, __m256 c), _mm256_fnmadd_ps(a, b, c))
GPUSKIN__P8_FN(bcast, (const float *p), _mm256_broadcast_ss(p))
GPUSKIN__P8_FN(two_over, (__m256 x), _mm256_and_ps(_mm256_cmp_ps(x, _mm256_set1_ps(1e-24f), _CMP_GT_OQ),
                                                   _mm256_div_ps(_mm256_set1_ps(2.0f), x)))
#undef GPUSKIN__P8_FN
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 int gpuskin__p8_all_finite(__m256 x)
{
    return _mm256_movemask_ps(_mm256_cmp_ps(_mm256_sub_ps(x, x), _mm256_setzero_ps(), _CMP_EQ_OQ)) == 0xFF;
}

/* Lane l of out[0..3] = the 4 floats at b + off[l]: lanes l and l + 4 share a
   load's register, then one transpose. (Base and byte offsets rather than eight
   pointers: -O2 does not unroll the loops that would fill a pointer array, and
   stores and reloads it.) */
#define GPUSKIN__FAST_AT(l) ((const float *)(const void *)(b + off[l]))
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__p8_gather(const char *b, const size_t *off, __m256 out[4])
{
    out[0] = gpuskin__fast_join(_mm_loadu_ps(GPUSKIN__FAST_AT(0)), _mm_loadu_ps(GPUSKIN__FAST_AT(4)));
    out[1] = gpuskin__fast_join(_mm_loadu_ps(GPUSKIN__FAST_AT(1)), _mm_loadu_ps(GPUSKIN__FAST_AT(5)));
    out[2] = gpuskin__fast_join(_mm_loadu_ps(GPUSKIN__FAST_AT(2)), _mm_loadu_ps(GPUSKIN__FAST_AT(6)));
    out[3] = gpuskin__fast_join(_mm_loadu_ps(GPUSKIN__FAST_AT(3)), _mm_loadu_ps(GPUSKIN__FAST_AT(7)));
    GPUSKIN__FAST_TRANSPOSE8(out[0], out[1], out[2], out[3]);
}
#undef GPUSKIN__FAST_AT

/* The inverse of the gather for lanes [0, lanes). */
#define GPUSKIN__FAST_AT(l) ((float *)(void *)(b + off[l]))
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__p8_scatter(char *b, const size_t *off, uint32_t lanes, __m256 v0,
                                                                         __m256 v1, __m256 v2, __m256 v3)
{
    GPUSKIN__FAST_TRANSPOSE8(v0, v1, v2, v3);
    if (lanes == 8) {
        _mm_storeu_ps(GPUSKIN__FAST_AT(0), _mm256_castps256_ps128(v0));
        _mm_storeu_ps(GPUSKIN__FAST_AT(4), _mm256_extractf128_ps(v0, 1));
        _mm_storeu_ps(GPUSKIN__FAST_AT(1), _mm256_castps256_ps128(v1));
        _mm_storeu_ps(GPUSKIN__FAST_AT(5), _mm256_extractf128_ps(v1, 1));
        _mm_storeu_ps(GPUSKIN__FAST_AT(2), _mm256_castps256_ps128(v2));
        _mm_storeu_ps(GPUSKIN__FAST_AT(6), _mm256_extractf128_ps(v2, 1));
        _mm_storeu_ps(GPUSKIN__FAST_AT(3), _mm256_castps256_ps128(v3));
        _mm_storeu_ps(GPUSKIN__FAST_AT(7), _mm256_extractf128_ps(v3, 1));
    } else {
        float regs[4 * 8];
        _mm256_storeu_ps(regs, v0); _mm256_storeu_ps(regs + 8, v1);
        _mm256_storeu_ps(regs + 16, v2); _mm256_storeu_ps(regs + 24, v3);
        gpuskin__fast_scatter_short(b, off, lanes, regs, 8);
    }
}
#undef GPUSKIN__FAST_AT

GPUSKIN__FAST_PALETTES_IMPL(gpuskin__p8, __m256, 8, GPUSKIN__FAST_TARGET_AVX2)

/* ---- one instance at a time: rows ---- */
#ifndef GPUSKIN__FAST_ROWS_BELOW
#define GPUSKIN__FAST_ROWS_BELOW 6 /* short ends of 1-5 instances (a group of eight with 6 used lanes wins) */
#endif
/* A group costs the same with one lane used as with all: without AVX-512, a
   range's last few instances (and a single instance) take this form instead
   (with AVX-512, the one-register form further down). The local matrices,
   eight joints a register (gpuskin__p8_local, joints for lanes); then the
   hierarchy one joint at a time, each 3x4 matrix three 128-bit rows, which are
   also the LBS layout. */
typedef struct gpuskin__fast_rows { float r[3][4]; } gpuskin__fast_rows;

/* Row a of a 3x4 affine times the affine b: a0 b0 + a1 b1 + a2 b2 + (0 0 0 a3),
   rounded as P##_mul3x4 rounds each lane, so that an instance's palettes have
   the same bits whichever form computes them (a job system's ranges decide
   that): the first term's -0 lanes make a0 b0c + -0 the plain product, signed
   zeros included. */
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 __m128 gpuskin__fast_row_mul(__m128 a, const gpuskin__fast_rows *b)
{
    const __m128 t = _mm_blend_ps(_mm_set1_ps(-0.0f), a, 0x8);
    return _mm_fmadd_ps(_mm_permute_ps(a, 0xAA), _mm_loadu_ps(b->r[2]),
                        _mm_fmadd_ps(_mm_permute_ps(a, 0x55), _mm_loadu_ps(b->r[1]),
                                     _mm_fmadd_ps(_mm_permute_ps(a, 0x00), _mm_loadu_ps(b->r[0]), t)));
}

/* out = a * b, rows in registers. */
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_rows_mul(const __m128 a[3], const gpuskin__fast_rows *b, __m128 out[3])
{
    out[0] = gpuskin__fast_row_mul(a[0], b);
    out[1] = gpuskin__fast_row_mul(a[1], b);
    out[2] = gpuskin__fast_row_mul(a[2], b);
}

GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_rows_load(const gpuskin__fast_rows *m, __m128 out[3])
{
    out[0] = _mm_loadu_ps(m->r[0]);
    out[1] = _mm_loadu_ps(m->r[1]);
    out[2] = _mm_loadu_ps(m->r[2]);
}

/* Rows 0..2 of an affine column-major matrix. */
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_rows_of(const gpuskin_mat4 *m, gpuskin__fast_rows *out)
{
    __m128 c0 = _mm_loadu_ps(m->m), c1 = _mm_loadu_ps(m->m + 4), c2 = _mm_loadu_ps(m->m + 8), c3 = _mm_loadu_ps(m->m + 12);
    _MM_TRANSPOSE4_PS(c0, c1, c2, c3);
    _mm_storeu_ps(out->r[0], c0);
    _mm_storeu_ps(out->r[1], c1);
    _mm_storeu_ps(out->r[2], c2);
}

/* Lane l's byte offset in a block of eight (sixteen) records of `size` bytes:
   the one-instance forms' full blocks, whose offsets the compiler then folds into
   the loads' and stores' addresses (read from a table filled at run time, each
   costs a load and an add). */
#define GPUSKIN__LANE_OFFSETS8(size) 0 * (size), 1 * (size), 2 * (size), 3 * (size), 4 * (size), 5 * (size), 6 * (size), 7 * (size)
#define GPUSKIN__LANE_OFFSETS16(size) \
    { GPUSKIN__LANE_OFFSETS8(size), 8 * (size), 9 * (size), 10 * (size), 11 * (size), 12 * (size), 13 * (size), 14 * (size), 15 * (size) }

/* Instance `inst`; s holds 2 joint_count rows: the local matrices and the
   globals; ib the inverse binds' rows. Returns 0 where the instance must take the
   reference path, as gpuskin__p8_palettes. */
GPUSKIN__FAST_TARGET_AVX2 static int gpuskin__fast_palettes_rows(const gpuskin_palette_batch_desc *d, uint32_t inst,
                                                               gpuskin__fast_rows *s, const gpuskin__fast_rows *ib)
{
    const gpuskin_skeleton *sk = d->skeleton;
    const uint32_t nj = sk->joint_count, *order = sk->depth_order ? sk->depth_order : sk->order;
    gpuskin__fast_rows *loc = s, *glob = s + nj, model;
    const gpuskin_trs *pose = d->local_poses ? d->local_poses + (size_t)inst * nj : sk->rest_pose;
    float *lbs = d->out_lbs ? d->out_lbs + (size_t)inst * nj * GPUSKIN_LBS_FLOATS_PER_JOINT : NULL;
    gpuskin_mat4 *pals = d->out_palettes ? d->out_palettes + (size_t)inst * nj : NULL;
    size_t offsets[2][8], *trs_off = offsets[0], *row_off = offsets[1];
    __m256 alarm = _mm256_setzero_ps();
    __m128 sum = _mm_setzero_ps(), model_rows[3], g[3];
    uint32_t i, j, l, prev = (uint32_t)-1; /* the joint whose rows g holds */
    g[0] = g[1] = g[2] = model_rows[0] = model_rows[1] = model_rows[2] = sum;
    if (d->models) {
        if (!gpuskin__fast_is_affine(&d->models[inst])) return 0;
        gpuskin__fast_rows_of(&d->models[inst], &model);
        gpuskin__fast_rows_load(&model, model_rows);
    }
    for (j = 0; j < nj; j += 8) { /* joints j..j+7 as lanes; a short end repeats its last */
        const uint32_t lanes = nj - j < 8 ? nj - j : 8;
        __m256 m[3][4];
        if (lanes == 8) {
            static const size_t full_trs[8] = { GPUSKIN__LANE_OFFSETS8(sizeof(gpuskin_trs)) };
            static const size_t full_rows[8] = { GPUSKIN__LANE_OFFSETS8(sizeof(gpuskin__fast_rows)) };
            gpuskin__p8_local(pose + j, full_trs, m, &alarm);
            gpuskin__p8_scatter((char *)loc[j].r[0], full_rows, 8, m[0][0], m[0][1], m[0][2], m[0][3]);
            gpuskin__p8_scatter((char *)loc[j].r[1], full_rows, 8, m[1][0], m[1][1], m[1][2], m[1][3]);
            gpuskin__p8_scatter((char *)loc[j].r[2], full_rows, 8, m[2][0], m[2][1], m[2][2], m[2][3]);
            continue;
        }
        for (l = 0; l < 8; ++l) {
            const size_t k = l < lanes ? l : lanes - 1;
            trs_off[l] = k * sizeof(gpuskin_trs);
            row_off[l] = k * sizeof(gpuskin__fast_rows);
        }
        __asm__("" : "+r"(trs_off), "+r"(row_off)); /* as in gpuskin__p8_palettes */
        gpuskin__p8_local(pose + j, trs_off, m, &alarm);
        gpuskin__p8_scatter((char *)loc[j].r[0], row_off, lanes, m[0][0], m[0][1], m[0][2], m[0][3]);
        gpuskin__p8_scatter((char *)loc[j].r[1], row_off, lanes, m[1][0], m[1][1], m[1][2], m[1][3]);
        gpuskin__p8_scatter((char *)loc[j].r[2], row_off, lanes, m[2][0], m[2][1], m[2][2], m[2][3]);
    }
    for (i = 0; i < nj; ++i) {
        const uint32_t jj = order[i];
        const int32_t parent = sk->parents[jj];
        __m128 p0, p1, p2, par[3];
        /* in depth order a joint's parent is the joint before it along a chain
           (one joint a depth): its rows are still in g */
        if (parent >= 0) {
            if ((uint32_t)parent != prev) gpuskin__fast_rows_load(&glob[parent], g);
            gpuskin__fast_rows_mul(g, &loc[jj], par);
        } else { /* the model matrix rides on the roots */
            gpuskin__fast_rows rpg;
            gpuskin__fast_rows_of(&sk->root_parent_globals[jj], &rpg);
            if (d->models) gpuskin__fast_rows_mul(model_rows, &rpg, g);
            else gpuskin__fast_rows_load(&rpg, g);
            gpuskin__fast_rows_mul(g, &loc[jj], par);
        }
        g[0] = par[0], g[1] = par[1], g[2] = par[2];
        prev = jj;
        _mm_storeu_ps(glob[jj].r[0], g[0]);
        _mm_storeu_ps(glob[jj].r[1], g[1]);
        _mm_storeu_ps(glob[jj].r[2], g[2]);
        p0 = gpuskin__fast_row_mul(g[0], &ib[jj]);
        p1 = gpuskin__fast_row_mul(g[1], &ib[jj]);
        p2 = gpuskin__fast_row_mul(g[2], &ib[jj]);
        sum = _mm_add_ps(sum, _mm_add_ps(_mm_add_ps(p0, p1), p2)); /* the finiteness check, as in the groups */
        if (lbs) {
            float *o = lbs + (size_t)jj * GPUSKIN_LBS_FLOATS_PER_JOINT;
            _mm_storeu_ps(o, p0);
            _mm_storeu_ps(o + 4, p1);
            _mm_storeu_ps(o + 8, p2);
        }
        if (pals) {
            __m128 p3 = _mm_setr_ps(0.0f, 0.0f, 0.0f, 1.0f);
            _MM_TRANSPOSE4_PS(p0, p1, p2, p3);
            _mm_storeu_ps(pals[jj].m, p0);
            _mm_storeu_ps(pals[jj].m + 4, p1);
            _mm_storeu_ps(pals[jj].m + 8, p2);
            _mm_storeu_ps(pals[jj].m + 12, p3);
        }
    }
    return gpuskin__p8_all_finite(_mm256_add_ps(alarm, _mm256_castps128_ps256(sum))) &&
           _mm_movemask_ps(_mm_cmpeq_ps(_mm_sub_ps(sum, sum), _mm_setzero_ps())) == 0xF;
}

/* Instances [first, first + count) by rows. The scratch takes 96 bytes a joint
   (144 where the skeleton has no inverse-bind rows of its own): on the stack up
   to 64 joints, else one allocation. The caller has checked that every inverse
   bind is affine. */
GPUSKIN__FAST_TARGET_AVX2 static gpuskin_result gpuskin__fast_palettes_rows_range(const gpuskin_palette_batch_desc *d,
                                                                                 uint32_t first, uint32_t count)
{
    const gpuskin_skeleton *sk = d->skeleton;
    const uint32_t nj = sk->joint_count;
    gpuskin__fast_rows stack_rows[3 * 64], *s = stack_rows;
    const gpuskin__fast_rows *ib = (const gpuskin__fast_rows *)(const void *)sk->inverse_bind_rows;
    gpuskin_mat4 *scratch = NULL;
    gpuskin_result result = GPUSKIN_SUCCESS;
    uint32_t i, j;
    if (nj > 64) {
        s = (gpuskin__fast_rows *)GPUSKIN_MALLOC((ib ? 2 : 3) * (size_t)nj * sizeof(gpuskin__fast_rows), sk->alloc_user);
        if (!s) return GPUSKIN_ERROR_OUT_OF_MEMORY;
    }
    if (!ib) { /* a skeleton not made by gpuskin_skeleton_init */
        for (j = 0; j < nj; ++j) gpuskin__fast_rows_of(&sk->inverse_bind[j], &s[2 * (size_t)nj + j]);
        ib = s + 2 * (size_t)nj;
    }
    for (i = first; i < first + count && result == GPUSKIN_SUCCESS; ++i) {
        if (!gpuskin__fast_palettes_rows(d, i, s, ib)) result = gpuskin__fast_palettes_redo(d, i, 1, &scratch);
    }
    if (s != stack_rows) GPUSKIN_FREE(s, sk->alloc_user);
    if (scratch) GPUSKIN_FREE(scratch, sk->alloc_user);
    return result;
}

#ifdef GPUSKIN__FAST_AVX512
/* ---- sixteen lanes: one AVX-512 register ---- */
/* GCC 12's AVX-512 intrinsics fill unused operands with a self-initialised
   variable (_mm512_undefined_ps), which its -Wmaybe-uninitialized reports in
   C++ once inlined here. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define GPUSKIN__P16_FN(name, args, expr) GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 __m512 gpuskin__p16_##name args { return expr; }
GPUSKIN__P16_FN(set1, (float x), _mm512_set1_ps(x))
GPUSKIN__P16_FN(add, (__m512 a, __m512 b), _mm512_add_ps(a, b))
GPUSKIN__P16_FN(sub, (__m512 a, __m512 b), _mm512_sub_ps(a, b))
GPUSKIN__P16_FN(mul, (__m512 a, __m512 b), _mm512_mul_ps(a, b))
GPUSKIN__P16_FN(fmadd, (__m512 a, __m512 b, __m512 c), _mm512_fmadd_ps(a, b, c))
GPUSKIN__P16_FN(fnmadd, (__m512 a, __m512 b, __m512 c), _mm512_fnmadd_ps(a, b, c))
GPUSKIN__P16_FN(bcast, (const float *p), _mm512_set1_ps(*p))
GPUSKIN__P16_FN(two_over, (__m512 x), _mm512_maskz_div_ps(_mm512_cmp_ps_mask(x, _mm512_set1_ps(1e-24f), _CMP_GT_OQ),
                                                          _mm512_set1_ps(2.0f), x))
#undef GPUSKIN__P16_FN
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 int gpuskin__p16_all_finite(__m512 x)
{
    return _mm512_cmp_ps_mask(_mm512_sub_ps(x, x), _mm512_setzero_ps(), _CMP_EQ_OQ) == 0xFFFF;
}

/* As gpuskin__p8_gather: register k holds lanes k, k + 4, k + 8, k + 12. */
#define GPUSKIN__FAST_AT(l) _mm_loadu_ps((const float *)(const void *)(b + off[l]))
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 __m512 gpuskin__p16_join(const char *b, const size_t *off, int k)
{
    __m512 r = _mm512_castps128_ps512(GPUSKIN__FAST_AT(k));
    r = _mm512_insertf32x4(r, GPUSKIN__FAST_AT(k + 4), 1);
    r = _mm512_insertf32x4(r, GPUSKIN__FAST_AT(k + 8), 2);
    return _mm512_insertf32x4(r, GPUSKIN__FAST_AT(k + 12), 3);
}
#undef GPUSKIN__FAST_AT
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__p16_gather(const char *b, const size_t *off, __m512 out[4])
{
    out[0] = gpuskin__p16_join(b, off, 0);
    out[1] = gpuskin__p16_join(b, off, 1);
    out[2] = gpuskin__p16_join(b, off, 2);
    out[3] = gpuskin__p16_join(b, off, 3);
    GPUSKIN__FAST_TRANSPOSE4X(_mm512, out[0], out[1], out[2], out[3]);
}

#define GPUSKIN__FAST_AT(l, v, q) _mm_storeu_ps((float *)(void *)(b + off[l]), _mm512_extractf32x4_ps(v, q))
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__p16_scatter(char *b, const size_t *off, uint32_t lanes,
                                                                            __m512 v0, __m512 v1, __m512 v2, __m512 v3)
{
    GPUSKIN__FAST_TRANSPOSE4X(_mm512, v0, v1, v2, v3);
    if (lanes == 16) {
        GPUSKIN__FAST_AT(0, v0, 0); GPUSKIN__FAST_AT(4, v0, 1); GPUSKIN__FAST_AT(8, v0, 2); GPUSKIN__FAST_AT(12, v0, 3);
        GPUSKIN__FAST_AT(1, v1, 0); GPUSKIN__FAST_AT(5, v1, 1); GPUSKIN__FAST_AT(9, v1, 2); GPUSKIN__FAST_AT(13, v1, 3);
        GPUSKIN__FAST_AT(2, v2, 0); GPUSKIN__FAST_AT(6, v2, 1); GPUSKIN__FAST_AT(10, v2, 2); GPUSKIN__FAST_AT(14, v2, 3);
        GPUSKIN__FAST_AT(3, v3, 0); GPUSKIN__FAST_AT(7, v3, 1); GPUSKIN__FAST_AT(11, v3, 2); GPUSKIN__FAST_AT(15, v3, 3);
    } else {
        float regs[4 * 16];
        _mm512_storeu_ps(regs, v0); _mm512_storeu_ps(regs + 16, v1);
        _mm512_storeu_ps(regs + 32, v2); _mm512_storeu_ps(regs + 48, v3);
        gpuskin__fast_scatter_short(b, off, lanes, regs, 16);
    }
}
#undef GPUSKIN__FAST_AT

GPUSKIN__FAST_PALETTES_IMPL(gpuskin__p16, __m512, 16, GPUSKIN__FAST_TARGET_AVX512)

/* ---- one instance at a time, AVX-512: a 3x4 matrix in one register ---- */
#ifndef GPUSKIN__FAST_P8_FROM
#define GPUSKIN__FAST_P8_FROM 8 /* a short end of this many instances or more takes a group of eight */
#endif
#ifndef GPUSKIN__FAST_P16_FROM
#define GPUSKIN__FAST_P16_FROM 11 /* and from this many, a group of sixteen */
#endif
/* A single instance (and a range's last 1-15) gains nothing from lanes across
   instances, and the row form's 128-bit rows take three times the instructions.
   Here one register holds one affine matrix: rows 0..2 in its first three
   128-bit lanes, zeros in the fourth. A product is then three in-lane broadcasts
   and three fused multiply-adds in the order of gpuskin__p16_mul3x4 and
   gpuskin__fast_row_mul, so an instance gets the same bits from every form. The
   local matrices are still made sixteen joints at a time (gpuskin__p16_local).
   The hierarchy walks the skeleton's chain slots: four chains at once, each
   joint's global spread once for its palette and its chain's next joint (the
   depth order spread it again for each child: locally that took 1.06-1.08x the
   time at one instance; BENCHMARKS.md). The skeleton's matrices are checked for
   being affine as they are read, so the caller need not check them first. */
/* A left operand of gpuskin__z_mul, spread: its in-lane broadcasts of columns
   0, 1, 2 and its (-0 -0 -0 a3) row term. A joint's global is the left operand
   of its palette's product and of its children's globals: spread once, it serves
   all of them (the broadcasts are shuffles, and on Intel cores every 512-bit
   shuffle takes the one port that also does half the arithmetic). */
typedef struct gpuskin__z_spread { __m512 t, x, y, z; } gpuskin__z_spread;

GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 gpuskin__z_spread gpuskin__z_spread_of(__m512 a)
{
    gpuskin__z_spread s;
    s.t = _mm512_mask_blend_ps(0x0888, _mm512_set1_ps(-0.0f), a); /* (-0 -0 -0 a3) a row */
    s.x = _mm512_permute_ps(a, 0x00);
    s.y = _mm512_permute_ps(a, 0x55);
    s.z = _mm512_permute_ps(a, 0xAA);
    return s;
}

/* a * b, a spread, b's rows 0..2 each in every 128-bit lane. */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 __m512 gpuskin__z_mul(const gpuskin__z_spread *a, __m512 b0, __m512 b1,
                                                                          __m512 b2)
{
    __m512 c = _mm512_fmadd_ps(a->x, b0, a->t);
    c = _mm512_fmadd_ps(a->y, b1, c);
    return _mm512_maskz_fmadd_ps(0x0FFF, a->z, b2, c);
}

/* a * b, b's rows read from memory (broadcast loads: no shuffle). */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 __m512 gpuskin__z_mul_rows(const gpuskin__z_spread *a,
                                                                               const gpuskin__fast_rows *b)
{
    return gpuskin__z_mul(a, _mm512_broadcast_f32x4(_mm_loadu_ps(b->r[0])), _mm512_broadcast_f32x4(_mm_loadu_ps(b->r[1])),
                          _mm512_broadcast_f32x4(_mm_loadu_ps(b->r[2])));
}

/* Row k (elements k, 4 + k, 8 + k, 12 + k) of a column-major matrix, in every
   128-bit lane. With k = 0..3 in one index, the transpose: rows 0..3. */
#define GPUSKIN__Z_ROW_INDEX(k0, k1, k2, k3) \
    _mm512_setr_epi32(k0, 4 + k0, 8 + k0, 12 + k0, k1, 4 + k1, 8 + k1, 12 + k1, k2, 4 + k2, 8 + k2, 12 + k2, k3, 4 + k3, 8 + k3, 12 + k3)

/* A column-major matrix's rows 0..2 (zeros in the fourth lane), or 0 if the
   matrix is not affine (its row 3 is not 0 0 0 1). */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 int gpuskin__z_rows_of(const gpuskin_mat4 *m, __m512 *out)
{
    const __m512 rows = _mm512_permutexvar_ps(GPUSKIN__Z_ROW_INDEX(0, 1, 2, 3), _mm512_loadu_ps(m->m));
    const __m512 affine_row = _mm512_setr_ps(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1);
    *out = _mm512_maskz_mov_ps(0x0FFF, rows);
    return _mm512_mask_cmp_ps_mask(0xF000, rows, affine_row, _CMP_NEQ_UQ) == 0;
}

/* What every joint of one instance reads and adds to, in gpuskin__z_palettes. */
typedef struct gpuskin__z_walk {
    const gpuskin_palette_batch_desc *d;
    const gpuskin__fast_rows *loc, *ib; /* ib: see gpuskin__z_palettes */
    __m512 *glob, sum;                  /* sum: the finiteness check, as in the groups */
    float *lbs;
    gpuskin_mat4 *pals;
    gpuskin__z_spread model;
    __mmask16 not_affine;
} gpuskin__z_walk;

/* Joint jj's global (into glob) and palette. *gs holds the parent's global,
   spread, unless `start`: then it is made here, from glob, or for a root from its
   parent global and the model. *gs then holds joint jj's global, spread, for a
   child that continues the chain. Returns 0 for a non-affine root parent global. */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 int gpuskin__z_joint(gpuskin__z_walk *w, uint32_t jj, int start,
                                                                         gpuskin__z_spread *gs)
{
    const gpuskin_skeleton *sk = w->d->skeleton;
    __m512 g, pal;
    if (start) {
        const int32_t parent = sk->parents[jj];
        if (parent < 0) { /* the model matrix rides on the roots, as in the groups */
            __m512 rpg;
            if (!gpuskin__z_rows_of(&sk->root_parent_globals[jj], &rpg)) return 0;
            g = w->d->models ? gpuskin__z_mul(&w->model, _mm512_shuffle_f32x4(rpg, rpg, 0x00),
                                              _mm512_shuffle_f32x4(rpg, rpg, 0x55), _mm512_shuffle_f32x4(rpg, rpg, 0xAA))
                             : rpg;
            *gs = gpuskin__z_spread_of(g);
        } else {
            *gs = gpuskin__z_spread_of(_mm512_load_ps((const float *)&w->glob[parent]));
        }
    }
    g = gpuskin__z_mul_rows(gs, &w->loc[jj]);
    _mm512_store_ps((float *)&w->glob[jj], g);
    *gs = gpuskin__z_spread_of(g);
    if (w->ib) {
        pal = gpuskin__z_mul_rows(gs, &w->ib[jj]);
    } else { /* no rows from init: made here, three shuffles a joint */
        const __m512 m = _mm512_loadu_ps(sk->inverse_bind[jj].m);
        const __m512 affine_row = _mm512_setr_ps(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1);
        w->not_affine |= _mm512_mask_cmp_ps_mask(0x8888, m, affine_row, _CMP_NEQ_UQ); /* row 3: 3, 7, 11, 15 */
        pal = gpuskin__z_mul(gs, _mm512_permutexvar_ps(GPUSKIN__Z_ROW_INDEX(0, 0, 0, 0), m),
                             _mm512_permutexvar_ps(GPUSKIN__Z_ROW_INDEX(1, 1, 1, 1), m),
                             _mm512_permutexvar_ps(GPUSKIN__Z_ROW_INDEX(2, 2, 2, 2), m));
    }
    w->sum = _mm512_add_ps(w->sum, pal);
    if (w->lbs) _mm512_mask_storeu_ps(w->lbs + (size_t)jj * GPUSKIN_LBS_FLOATS_PER_JOINT, 0x0FFF, pal);
    if (w->pals) /* columns; row 3 = 0 0 0 1 */
        _mm512_storeu_ps(w->pals[jj].m, _mm512_mask_blend_ps(0x8000, _mm512_permutexvar_ps(GPUSKIN__Z_ROW_INDEX(0, 1, 2, 3), pal),
                                                             _mm512_set1_ps(1.0f)));
    return 1;
}

/* Instance `inst`. `loc` takes joint_count local matrices (rows), `glob` as many
   globals; `ib` holds the inverse binds' rows, made and checked by
   gpuskin_skeleton_init, or is NULL: then they are made (and checked) here,
   joint by joint. Returns 0 where the instance must take the reference path (as
   gpuskin__p16_palettes, and for a non-affine inverse bind or root parent). */
GPUSKIN__FAST_TARGET_AVX512 static int gpuskin__z_palettes(const gpuskin_palette_batch_desc *d, uint32_t inst,
                                                           gpuskin__fast_rows *loc, __m512 *glob, const gpuskin__fast_rows *ib)
{
    const gpuskin_skeleton *sk = d->skeleton;
    const uint32_t nj = sk->joint_count, *order = sk->depth_order ? sk->depth_order : sk->order;
    const gpuskin_trs *pose = d->local_poses ? d->local_poses + (size_t)inst * nj : sk->rest_pose;
    size_t offsets[2][16], *trs_off = offsets[0], *row_off = offsets[1];
    __m512 alarm = _mm512_setzero_ps(), model = alarm;
    gpuskin__z_spread gs; /* the one-joint-at-a-time walk's parent global, spread */
    gpuskin__z_walk w;
    uint32_t i, j, l;
    if (d->models && !gpuskin__z_rows_of(&d->models[inst], &model)) return 0;
    w.d = d;
    w.loc = loc;
    w.ib = ib;
    w.glob = glob;
    w.sum = alarm;
    w.lbs = d->out_lbs ? d->out_lbs + (size_t)inst * nj * GPUSKIN_LBS_FLOATS_PER_JOINT : NULL;
    w.pals = d->out_palettes ? d->out_palettes + (size_t)inst * nj : NULL;
    w.model = gs = gpuskin__z_spread_of(model);
    w.not_affine = 0;
    for (j = 0; j < nj; j += 16) { /* joints j..j+15 as lanes; a short end repeats its last */
        const uint32_t lanes = nj - j < 16 ? nj - j : 16;
        __m512 m[3][4];
        if (lanes == 16) {
            /* constant offsets (GPUSKIN__LANE_OFFSETS16): 0.93x the time for one
               instance on an H100 machine's Xeon (bench/results/h100-2026-12-05-2353/) */
            static const size_t full_trs[16] = GPUSKIN__LANE_OFFSETS16(sizeof(gpuskin_trs));
            static const size_t full_rows[16] = GPUSKIN__LANE_OFFSETS16(sizeof(gpuskin__fast_rows));
            gpuskin__p16_local(pose + j, full_trs, m, &alarm);
            gpuskin__p16_scatter((char *)loc[j].r[0], full_rows, 16, m[0][0], m[0][1], m[0][2], m[0][3]);
            gpuskin__p16_scatter((char *)loc[j].r[1], full_rows, 16, m[1][0], m[1][1], m[1][2], m[1][3]);
            gpuskin__p16_scatter((char *)loc[j].r[2], full_rows, 16, m[2][0], m[2][1], m[2][2], m[2][3]);
            continue;
        }
        for (l = 0; l < 16; ++l) {
            const size_t k = l < lanes ? l : lanes - 1;
            trs_off[l] = k * sizeof(gpuskin_trs);
            row_off[l] = k * sizeof(gpuskin__fast_rows);
        }
        __asm__("" : "+r"(trs_off), "+r"(row_off)); /* as in gpuskin__p16_palettes */
        gpuskin__p16_local(pose + j, trs_off, m, &alarm);
        gpuskin__p16_scatter((char *)loc[j].r[0], row_off, lanes, m[0][0], m[0][1], m[0][2], m[0][3]);
        gpuskin__p16_scatter((char *)loc[j].r[1], row_off, lanes, m[1][0], m[1][1], m[1][2], m[1][3]);
        gpuskin__p16_scatter((char *)loc[j].r[2], row_off, lanes, m[2][0], m[2][1], m[2][2], m[2][3]);
    }
    if (sk->chain_slots) {
        /* every slot's first joint starts a chain, so these initial values are never read */
        gpuskin__z_spread s0 = gs, s1 = gs, s2 = gs, s3 = gs;
        const uint32_t *e = sk->chain_slots, *end = e + (size_t)sk->chain_steps * GPUSKIN_CHAIN_SLOTS;
#if GPUSKIN_CHAIN_SLOTS != 4
#error "gpuskin__z_palettes walks four chain slots"
#endif
#define GPUSKIN__Z_SLOT(k, sp)                                                                                      \
    if (e[k] != GPUSKIN_CHAIN_IDLE &&                                                                               \
        !gpuskin__z_joint(&w, e[k] & ~GPUSKIN_CHAIN_START, (e[k] & GPUSKIN_CHAIN_START) != 0, &sp))                 \
        return 0;
        for (; e < end; e += GPUSKIN_CHAIN_SLOTS) {
            GPUSKIN__Z_SLOT(0, s0)
            GPUSKIN__Z_SLOT(1, s1)
            GPUSKIN__Z_SLOT(2, s2)
            GPUSKIN__Z_SLOT(3, s3)
        }
#undef GPUSKIN__Z_SLOT
    } else { /* a skeleton filled in by hand: one joint at a time, in depth order if it has one */
        uint32_t prev = GPUSKIN_CHAIN_IDLE; /* the joint whose global gs holds */
        for (i = 0; i < nj; ++i) {
            const uint32_t jj = order[i];
            if (!gpuskin__z_joint(&w, jj, sk->parents[jj] < 0 || (uint32_t)sk->parents[jj] != prev, &gs)) return 0;
            prev = jj;
        }
    }
    return !w.not_affine && gpuskin__p16_all_finite(_mm512_add_ps(alarm, w.sum));
}

/* Instances [first, first + count) one at a time. The scratch takes 112 bytes a
   joint: on the stack up to 64 joints, else one allocation, aligned by hand. The
   inverse binds' rows come from gpuskin_skeleton_init; without them (some inverse
   bind is not affine, or a skeleton not made by init) each call makes and checks
   them joint by joint. */
GPUSKIN__FAST_TARGET_AVX512 static gpuskin_result gpuskin__z_palettes_range(const gpuskin_palette_batch_desc *d,
                                                                            uint32_t first, uint32_t count)
{
    const gpuskin_skeleton *sk = d->skeleton;
    const gpuskin__fast_rows *ib = (const gpuskin__fast_rows *)(const void *)sk->inverse_bind_rows;
    gpuskin__fast_rows stack_loc[64], *loc = stack_loc;
    __m512 stack_glob[64], *glob = stack_glob;
    gpuskin_mat4 *scratch = NULL;
    gpuskin_result result = GPUSKIN_SUCCESS;
    void *block = NULL;
    uint32_t i;
    if (sk->joint_count > 64) {
        block = GPUSKIN_MALLOC((size_t)sk->joint_count * (sizeof(__m512) + sizeof(gpuskin__fast_rows)) + 63,
                               sk->alloc_user);
        if (!block) return GPUSKIN_ERROR_OUT_OF_MEMORY;
        glob = (__m512 *)(void *)(((uintptr_t)block + 63) & ~(uintptr_t)63);
        loc = (gpuskin__fast_rows *)(void *)(glob + sk->joint_count);
    }
    for (i = first; i < first + count && result == GPUSKIN_SUCCESS; ++i) {
        if (!gpuskin__z_palettes(d, i, loc, glob, ib)) result = gpuskin__fast_palettes_redo(d, i, 1, &scratch);
    }
    if (block) GPUSKIN_FREE(block, sk->alloc_user);
    if (scratch) GPUSKIN_FREE(scratch, sk->alloc_user);
    return result;
}
#undef GPUSKIN__Z_ROW_INDEX
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif /* GPUSKIN__FAST_AVX512 */
#endif /* GPUSKIN__FAST_AVX2 */


/* ======================================================================== */
/* The dual-quaternion split (Gram-Schmidt), 8 or 16 joints at a time      */
/* ======================================================================== */

/* The lanes run gpuskin__split's Gram-Schmidt branch in float, eight or
   sixteen joints a call. The decisions that change the output (mirror or not, a collapsed axis,
   rigid or not, the quaternion's sign) are comparisons, and a float value sits
   ~1e-7 (relative) from the double one; so a lane whose compared value lies within
   a margin of its threshold is flagged and redone by the double reference. Every
   other lane takes the reference's decisions exactly, and its values differ by
   float rounding only. (Shepperd's case may differ near a tie: both cases give the
   same quaternion to rounding.) The margins are wide against float error and
   narrow enough to be rare; one more test sends ill-conditioned joints, whose
   float values would not be within rounding, to the reference as well: */
#define GPUSKIN__FAST_DET_MARGIN 1e-4f   /* |det| <= this x amax^3 */
#define GPUSKIN__FAST_AXIS_MARGIN 1e-3f  /* a column norm within 0.1 % of 1e-6 x amax */
#define GPUSKIN__FAST_RIGID_MARGIN 2e-6f /* max |S - I| within this x (1 + amax) of the tolerance */
#define GPUSKIN__FAST_QUAT_MARGIN 1e-4f  /* |w| */
#define GPUSKIN__FAST_SHEAR_MARGIN 0.1f  /* column 1 less column 0 shorter than this x amax */
/* and a joint whose largest entry is above this: the float determinant is a sum
   of cubes, which leaves float's range near 7e12 (inf - inf is a NaN that no
   margin test catches); the reference's double copes up to FLT_MAX. */
#define GPUSKIN__FAST_RANGE_MAX 1e12f

/* Eight lanes as two SSE2 registers. The split is a chain of square roots and
   divisions; with four lanes the core waits on it, with two independent halves
   interleaved op by op it has other work to do meanwhile. */
typedef struct gpuskin__v8 { __m128 lo, hi; } gpuskin__v8;

/* The operations of a lane type T made of two registers (lo, hi) of a half type:
   each applies `op` to both halves. Q is the function qualifier (the AVX forms
   carry a target attribute). Used for gpuskin__v8 here, gpuskin__y16 and
   gpuskin__z32 below. */
#define GPUSKIN__FAST_PAIR_OP2(Q, T, name, op)                                                                         \
    Q T T##_##name(T a, T b)                                                                                           \
    {                                                                                                                  \
        T r;                                                                                                           \
        r.lo = op(a.lo, b.lo);                                                                                         \
        r.hi = op(a.hi, b.hi);                                                                                         \
        return r;                                                                                                      \
    }
/* Every two-operand operation the split uses; OP(name) names the half type's one. */
#define GPUSKIN__FAST_PAIR_OPS(Q, T, OP)                                                                               \
    GPUSKIN__FAST_PAIR_OP2(Q, T, add, OP(add))                                                                         \
    GPUSKIN__FAST_PAIR_OP2(Q, T, sub, OP(sub))                                                                         \
    GPUSKIN__FAST_PAIR_OP2(Q, T, mul, OP(mul))                                                                         \
    GPUSKIN__FAST_PAIR_OP2(Q, T, div, OP(div))                                                                         \
    GPUSKIN__FAST_PAIR_OP2(Q, T, max, OP(max))                                                                         \
    GPUSKIN__FAST_PAIR_OP2(Q, T, and, OP(and))                                                                         \
    GPUSKIN__FAST_PAIR_OP2(Q, T, or, OP(or))                                                                           \
    GPUSKIN__FAST_PAIR_OP2(Q, T, andnot, OP(andnot))                                                                   \
    GPUSKIN__FAST_PAIR_OP2(Q, T, xor, OP(xor))                                                                         \
    GPUSKIN__FAST_PAIR_OP2(Q, T, cmpgt, OP(cmpgt))                                                                     \
    GPUSKIN__FAST_PAIR_OP2(Q, T, cmplt, OP(cmplt))                                                                     \
    GPUSKIN__FAST_PAIR_OP2(Q, T, cmple, OP(cmple))                                                                     \
    GPUSKIN__FAST_PAIR_OP2(Q, T, cmpeq, OP(cmpeq))
/* set1, sqrt, sel, abs and mask (the halves' sign bits, lo first; half_lanes a half). */
#define GPUSKIN__FAST_PAIR_REST(Q, T, set1_op, sqrt_op, movemask_op, half_lanes)                                      \
    Q T T##_set1(float x)                                                                                              \
    {                                                                                                                  \
        T r;                                                                                                           \
        r.lo = r.hi = set1_op(x);                                                                                      \
        return r;                                                                                                      \
    }                                                                                                                  \
    Q T T##_sqrt(T a)                                                                                                  \
    {                                                                                                                  \
        a.lo = sqrt_op(a.lo);                                                                                          \
        a.hi = sqrt_op(a.hi);                                                                                          \
        return a;                                                                                                      \
    }                                                                                                                  \
    Q T T##_sel(T mask, T a, T b) { return T##_or(T##_and(mask, a), T##_andnot(mask, b)); }                           \
    Q T T##_abs(T v) { return T##_andnot(T##_set1(-0.0f), v); }                                                        \
    Q int T##_mask(T v) { return movemask_op(v.lo) | movemask_op(v.hi) << (half_lanes); }
/* load and store of a pair type T over its half type H: joints [0, half_lanes)
   in lo, the next half_lanes in hi. */
#define GPUSKIN__FAST_PAIR_MEMORY(Q, T, H, half_lanes)                                                                 \
    Q void T##_load(const gpuskin_mat4 *m, T *a, T *t)                                                                 \
    {                                                                                                                  \
        H al[9], ah[9], tl[3], th[3];                                                                                  \
        int k;                                                                                                         \
        H##_load(m, al, tl);                                                                                           \
        H##_load(m + (half_lanes), ah, th);                                                                            \
        for (k = 0; k < 9; ++k) a[k].lo = al[k], a[k].hi = ah[k];                                                      \
        for (k = 0; k < 3; ++k) t[k].lo = tl[k], t[k].hi = th[k];                                                      \
    }                                                                                                                  \
    Q void T##_store(float *dq, float *res, const T *q, const T *du, const T *s)                                       \
    {                                                                                                                  \
        H x[4 + 4 + 9];                                                                                                \
        int k, h;                                                                                                      \
        for (h = 0; h < 2; ++h) {                                                                                      \
            for (k = 0; k < 4; ++k) x[k] = h ? q[k].hi : q[k].lo, x[4 + k] = h ? du[k].hi : du[k].lo;                  \
            for (k = 0; k < 9; ++k) x[8 + k] = h ? s[k].hi : s[k].lo;                                                  \
            H##_store(dq + 8 * (half_lanes) * h, res ? res + 12 * (half_lanes) * h : NULL, x, x + 4, x + 8);           \
        }                                                                                                              \
    }

#define GPUSKIN__FAST_SSE_OP(name) _mm_##name##_ps
GPUSKIN__FAST_PAIR_OPS(GPUSKIN__FAST_INLINE, gpuskin__v8, GPUSKIN__FAST_SSE_OP)
GPUSKIN__FAST_PAIR_REST(GPUSKIN__FAST_INLINE, gpuskin__v8, _mm_set1_ps, _mm_sqrt_ps, _mm_movemask_ps, 4)

/* 1 when all n matrices are finite: x - x is 0 for finite x and NaN otherwise.
   A sum for each column, not one for all: one sum is a chain of dependent adds,
   3-4 cycles each, 256 of them for a 64-joint palette (locally
   gpuskin_pack_dq_fast took 0.89-0.92x the time with four; BENCHMARKS.md). */
static int gpuskin__fast_all_finite4(const gpuskin_mat4 *m, uint32_t n)
{
    __m128 acc0 = _mm_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    uint32_t i;
    for (i = 0; i < n; ++i) {
        const __m128 x0 = _mm_loadu_ps(m[i].m), x1 = _mm_loadu_ps(m[i].m + 4);
        const __m128 x2 = _mm_loadu_ps(m[i].m + 8), x3 = _mm_loadu_ps(m[i].m + 12);
        acc0 = _mm_add_ps(acc0, _mm_sub_ps(x0, x0));
        acc1 = _mm_add_ps(acc1, _mm_sub_ps(x1, x1));
        acc2 = _mm_add_ps(acc2, _mm_sub_ps(x2, x2));
        acc3 = _mm_add_ps(acc3, _mm_sub_ps(x3, x3));
    }
    acc0 = _mm_add_ps(_mm_add_ps(acc0, acc1), _mm_add_ps(acc2, acc3));
    return _mm_movemask_ps(_mm_cmpeq_ps(acc0, _mm_setzero_ps())) == 0xF;
}

/* Half h of the split's lanes to memory: per joint dq = real xyzw, dual xyzw; the
   residual rows of S with w = 0. */
GPUSKIN__FAST_INLINE void gpuskin__fast_store_split4(float *dq, float *res, const gpuskin__v8 *q, const gpuskin__v8 *du,
                                       const gpuskin__v8 *s, int h)
{
    __m128 x0, x1, x2, x3;
    int k, row;
#define GPUSKIN__FAST_HALF(v) (h ? (v).hi : (v).lo)
    x0 = GPUSKIN__FAST_HALF(q[0]); x1 = GPUSKIN__FAST_HALF(q[1]); x2 = GPUSKIN__FAST_HALF(q[2]); x3 = GPUSKIN__FAST_HALF(q[3]);
    _MM_TRANSPOSE4_PS(x0, x1, x2, x3);
    _mm_storeu_ps(dq + 0, x0); _mm_storeu_ps(dq + 8, x1); _mm_storeu_ps(dq + 16, x2); _mm_storeu_ps(dq + 24, x3);
    x0 = GPUSKIN__FAST_HALF(du[0]); x1 = GPUSKIN__FAST_HALF(du[1]); x2 = GPUSKIN__FAST_HALF(du[2]); x3 = GPUSKIN__FAST_HALF(du[3]);
    _MM_TRANSPOSE4_PS(x0, x1, x2, x3);
    _mm_storeu_ps(dq + 4, x0); _mm_storeu_ps(dq + 12, x1); _mm_storeu_ps(dq + 20, x2); _mm_storeu_ps(dq + 28, x3);
    if (!res) return;
    for (row = 0; row < 3; ++row) {
        x0 = GPUSKIN__FAST_HALF(s[0 * 3 + row]);
        x1 = GPUSKIN__FAST_HALF(s[1 * 3 + row]);
        x2 = GPUSKIN__FAST_HALF(s[2 * 3 + row]);
        x3 = _mm_setzero_ps();
        _MM_TRANSPOSE4_PS(x0, x1, x2, x3);
        for (k = 0; k < 4; ++k) _mm_storeu_ps(res + 12 * k + 4 * row, k == 0 ? x0 : k == 1 ? x1 : k == 2 ? x2 : x3);
    }
#undef GPUSKIN__FAST_HALF
}

/* The start every lane form of the split shares: the joints into lanes, the
   largest entry, the determinant (as gpuskin__det3_d), and the lanes the margins
   and the float range send to the reference. */
#define GPUSKIN__FAST_SPLIT_HEAD(P)                                                                                    \
    P##_load(m, a, t);                                                                                                 \
    amax = zero;                                                                                                       \
    for (k = 0; k < 9; ++k) amax = P##_max(amax, P##_abs(a[k]));                                                       \
    /* gpuskin__det3_d */                                                                                              \
    det = P##_add(                                                                                                     \
        P##_sub(P##_mul(a[0], P##_sub(P##_mul(a[4], a[8]), P##_mul(a[7], a[5]))),                                      \
                   P##_mul(a[3], P##_sub(P##_mul(a[1], a[8]), P##_mul(a[7], a[2])))),                                  \
        P##_mul(a[6], P##_sub(P##_mul(a[1], a[5]), P##_mul(a[4], a[2]))));                                             \
    unsure = P##_cmple(P##_abs(det),                                                                                   \
                          P##_mul(P##_set1(GPUSKIN__FAST_DET_MARGIN), P##_mul(amax, P##_mul(amax, amax))));            \
    unsure = P##_or(unsure, P##_cmpgt(amax, P##_set1(GPUSKIN__FAST_RANGE_MAX)));

/* The end every lane form of the split shares: the quaternion of R (the four
   cases of gpuskin__quat_from_rot_d as lane selects), the dual part, the identity
   rows of rigid joints, the stores and the masks. Expects the body's variables. */
#define GPUSKIN__FAST_SPLIT_TAIL(P)                                                                                    \
    /* gpuskin__quat_from_rot_d, its four cases as lane selects; R(row, col) = r[col * 3 + row] */                     \
    tr = P##_add(P##_add(r[0], r[4]), r[8]);                                                                           \
    mw = P##_cmpgt(tr, zero);                                                                                          \
    mx = P##_andnot(mw, P##_and(P##_cmpgt(r[0], r[4]), P##_cmpgt(r[0], r[8])));                                        \
    my = P##_andnot(P##_or(mw, mx), P##_cmpgt(r[4], r[8]));                                                            \
    v = P##_sel(mw, P##_add(tr, one),                                                                                  \
        P##_sel(mx, P##_sub(P##_sub(P##_add(one, r[0]), r[4]), r[8]),                                                  \
        P##_sel(my, P##_sub(P##_sub(P##_add(one, r[4]), r[0]), r[8]),                                                  \
                              P##_sub(P##_sub(P##_add(one, r[8]), r[0]), r[4]))));                                     \
    sq = P##_mul(P##_sqrt(v), P##_set1(2.0f));                                                                         \
    inv = P##_div(one, sq);                                                                                            \
    quarter = P##_mul(P##_set1(0.25f), sq);                                                                            \
    ca = P##_mul(P##_sub(r[5], r[7]), inv); /* R21 - R12 */                                                            \
    cb = P##_mul(P##_sub(r[6], r[2]), inv); /* R02 - R20 */                                                            \
    cc = P##_mul(P##_sub(r[1], r[3]), inv); /* R10 - R01 */                                                            \
    cd = P##_mul(P##_add(r[3], r[1]), inv); /* R01 + R10 */                                                            \
    ce = P##_mul(P##_add(r[6], r[2]), inv); /* R02 + R20 */                                                            \
    cf = P##_mul(P##_add(r[7], r[5]), inv); /* R12 + R21 */                                                            \
    q[0] = P##_sel(mw, ca, P##_sel(mx, quarter, P##_sel(my, cd, ce)));                                                 \
    q[1] = P##_sel(mw, cb, P##_sel(mx, cd, P##_sel(my, quarter, cf)));                                                 \
    q[2] = P##_sel(mw, cc, P##_sel(mx, ce, P##_sel(my, cf, quarter)));                                                 \
    q[3] = P##_sel(mw, quarter, P##_sel(mx, ca, P##_sel(my, cb, cc)));                                                 \
    /* w >= 0; a w near 0 could take either sign in double */                                                          \
    unsure = P##_or(unsure, P##_cmple(P##_abs(q[3]), P##_set1(GPUSKIN__FAST_QUAT_MARGIN)));                            \
    flip = P##_and(P##_cmplt(q[3], zero), sign);                                                                       \
    for (k = 0; k < 4; ++k) q[k] = P##_xor(q[k], flip);                                                                \
    /* The reference renormalises q in double; from a float R that is orthonormal                                      \
       to rounding, q is already unit to rounding, so the lanes skip it. */                                            \
    /* gpuskin_dualquat_from_rt: dual = (t / 2, 0) * q; its zero terms are exact */                                    \
    {                                                                                                                  \
        const P h = P##_set1(0.5f);                                                                                    \
        const P tx = P##_mul(h, t[0]), ty = P##_mul(h, t[1]), tz = P##_mul(h, t[2]);                                   \
        du[0] = P##_sub(P##_add(P##_mul(tx, q[3]), P##_mul(ty, q[2])), P##_mul(tz, q[1]));                             \
        du[1] = P##_add(P##_sub(P##_mul(ty, q[3]), P##_mul(tx, q[2])), P##_mul(tz, q[0]));                             \
        du[2] = P##_add(P##_sub(P##_mul(tx, q[1]), P##_mul(ty, q[0])), P##_mul(tz, q[3]));                             \
        du[3] = P##_sub(P##_sub(P##_sub(zero, P##_mul(tx, q[0])), P##_mul(ty, q[1])), P##_mul(tz, q[2]));              \
    }                                                                                                                  \
    if (res) { /* identity rows for a rigid joint */                                                                   \
        const P rigid_one = P##_and(rigid, one);                                                                       \
        for (k = 0; k < 9; ++k)                                                                                        \
            s[k] = k % 4 == 0 ? P##_or(P##_andnot(rigid, s[k]), rigid_one) : P##_andnot(rigid, s[k]);                  \
    }                                                                                                                  \
    P##_store(dq, res, q, du, s);                                                                                      \
    *nonrigid = P##_mask(P##_andnot(rigid, P##_cmpeq(zero, zero)));                                                    \
    return P##_mask(unsure);

/* The split below is written once, as a macro over a lane type P and its
   operations P##_add, P##_mul, ... (P##_load and P##_store move the joints
   between memory and lanes), and compiled for two types: gpuskin__v8 (two SSE2
   registers, any x86-64) and, under GCC/clang, gpuskin__y8 (one AVX register,
   chosen at run time). The two run the same float operations in the same order,
   so they give the same bits; only the number of instructions differs. */
#define GPUSKIN__FAST_SPLIT_BODY(P)                                                                                   \
    {                                                                                                                  \
    const P zero = P##_set1(0.0f), one = P##_set1(1.0f), sign = P##_set1(-0.0f);                                       \
    P a[9], t[3], r[9], s[9], q[4], du[4];                                                                             \
    P amax, det, thr, n0, n1, inv, dd, found, unsure, dev, rigid, v;                                                   \
    P tr, mw, mx, my, sq, quarter, ca, cb, cc, cd, ce, cf, flip;                                                       \
    int k;                                                                                                             \
    GPUSKIN__FAST_SPLIT_HEAD(P)                                                                                        \
    /* A mirror: x flipped (b = A with column 0 negated), as in the reference. */                                      \
    flip = P##_and(P##_cmplt(det, zero), sign);                                                                        \
    r[0] = P##_xor(a[0], flip); r[1] = P##_xor(a[1], flip); r[2] = P##_xor(a[2], flip);                                \
    /* gpuskin__rotation_gram_schmidt */                                                                               \
    thr = P##_mul(P##_set1(1e-6f), amax);                                                                              \
    /* The reference normalises column 0 before projecting it out of column 1;                                         \
       projecting with 1/|b0|^2 instead gives the same vector to rounding and lets                                     \
       the square root of |b0|^2 run alongside (the split is latency-bound). */                                        \
    n0 = P##_add(P##_add(P##_mul(r[0], r[0]), P##_mul(r[1], r[1])), P##_mul(r[2], r[2]));                              \
    dd = P##_div(P##_add(P##_add(P##_mul(r[0], a[3]), P##_mul(r[1], a[4])),                                            \
                                         P##_mul(r[2], a[5])), n0);                                                    \
    r[3] = P##_sub(a[3], P##_mul(dd, r[0]));                                                                           \
    r[4] = P##_sub(a[4], P##_mul(dd, r[1]));                                                                           \
    r[5] = P##_sub(a[5], P##_mul(dd, r[2]));                                                                           \
    n0 = P##_sqrt(n0);                                                                                                 \
    found = P##_and(P##_cmpgt(amax, zero), P##_cmpgt(n0, thr));                                                        \
    unsure = P##_or(unsure, P##_cmple(P##_abs(P##_sub(n0, thr)),                                                       \
                                            P##_mul(P##_set1(GPUSKIN__FAST_AXIS_MARGIN), thr)));                       \
    inv = P##_div(one, n0);                                                                                            \
    r[0] = P##_mul(r[0], inv); r[1] = P##_mul(r[1], inv); r[2] = P##_mul(r[2], inv);                                   \
    n1 = P##_sqrt(P##_add(P##_add(P##_mul(r[3], r[3]), P##_mul(r[4], r[4])), P##_mul(r[5], r[5])));                    \
    unsure = P##_or(unsure, P##_and(found, P##_cmple(P##_abs(P##_sub(n1, thr)),                                        \
                                                              P##_mul(P##_set1(GPUSKIN__FAST_AXIS_MARGIN), thr))));    \
    found = P##_and(found, P##_cmpgt(n1, thr));                                                                        \
    /* Column 1 nearly parallel to column 0 (a strong shear or squash): removing b0                                    \
       from it cancels most of its digits, which float cannot afford; the reference's                                  \
       double can. */                                                                                                  \
    unsure = P##_or(unsure, P##_cmple(n1, P##_mul(P##_set1(GPUSKIN__FAST_SHEAR_MARGIN), amax)));                       \
    inv = P##_div(one, n1);                                                                                            \
    r[3] = P##_mul(r[3], inv); r[4] = P##_mul(r[4], inv); r[5] = P##_mul(r[5], inv);                                   \
    r[6] = P##_sub(P##_mul(r[1], r[5]), P##_mul(r[2], r[4]));                                                          \
    r[7] = P##_sub(P##_mul(r[2], r[3]), P##_mul(r[0], r[5]));                                                          \
    r[8] = P##_sub(P##_mul(r[0], r[4]), P##_mul(r[1], r[3]));                                                          \
    /* A collapsed axis (R = I in the reference) is rare: the reference redoes it,                                     \
       and this lane's NaNs from 1/0 never leave. The determinant margin (column 0                                     \
       collapsed) and the shear margin (column 1) already flag such lanes; this                                        \
       says it where the decision is made, and does not lean on those margins. */                                      \
    unsure = P##_or(unsure, P##_andnot(found, P##_cmpeq(zero, zero)));                                                 \
    /* S = R^T A (S(row, c) = s[c * 3 + row]) is upper triangular by construction:                                     \
       r1 and r2 are orthogonal to b0 = +-a0 and r2 to a1 (the reference's double                                      \
       dot products give ~1e-17 there, and its float residual keeps that); on the                                      \
       diagonal, r0 . a0 = +-|b0| and r1 . a1 = |r1 before normalising|. */                                            \
    s[0] = P##_xor(n0, flip);                                                                                          \
    s[1] = s[2] = s[5] = zero;                                                                                         \
    s[4] = n1;                                                                                                         \
    s[3] = P##_add(P##_add(P##_mul(r[0], a[3]), P##_mul(r[1], a[4])), P##_mul(r[2], a[5]));                            \
    for (k = 6; k < 9; ++k) {                                                                                          \
        const int rk = (k - 6) * 3; /* row k - 6 of S: column k - 6 of R, dotted with column 2 of A */                 \
        s[k] = P##_add(P##_add(P##_mul(r[rk], a[6]), P##_mul(r[rk + 1], a[7])),                                        \
                               P##_mul(r[rk + 2], a[8]));                                                              \
    }                                                                                                                  \
    dev = P##_max(P##_max(P##_abs(P##_sub(s[0], one)), P##_abs(s[3])),                                                 \
                          P##_max(P##_abs(P##_sub(s[4], one)), P##_abs(s[6])));                                        \
    dev = P##_max(dev, P##_max(P##_abs(s[7]), P##_abs(P##_sub(s[8], one))));                                           \
    rigid = P##_cmple(dev, P##_set1(GPUSKIN_RIGID_TOLERANCE));                                                         \
    unsure = P##_or(unsure, P##_cmple(P##_abs(P##_sub(dev, P##_set1(GPUSKIN_RIGID_TOLERANCE))),                        \
                                            P##_mul(P##_set1(GPUSKIN__FAST_RIGID_MARGIN), P##_add(one, amax))));       \
    GPUSKIN__FAST_SPLIT_TAIL(P)                                                                                        \
    }

/* The polar split (gpuskin__rotation_polar) in float lanes, for
   GPUSKIN_SPLIT_POLAR, with the reference's decisions (a mirror, rigid or not, the
   quaternion's sign) taken as above, with the same margins.
   R is the limit of Newton's iteration X <- (g X + (g X)^-T) / 2, the polar
   factor the reference converges to. The lanes scale their first three steps by
   Frobenius norms (g^4 = |X^-1|^2 / |X|^2: no cube root in SIMD) instead of the
   determinant, and take the rest unscaled, X being near orthogonal by then
   (locally 0.86-0.90x the time of scaling every step). A lane stops once a step
   has moved no entry of X by more than 1e-4 (its entries are at most 1 by then):
   X was within about that of its limit, and Newton's step squared the distance
   to below float's rounding (a first version took one step more: the largest
   error below was 2.7e-7 instead of 2.8e-7, for about 1.08x the time). So a
   lane's bits depend on its own matrix only, never on the lanes beside it. A
   lane not stopped within GPUSKIN__FAST_POLAR_STEPS is redone in double (of
   1,048,576 random matrices within the bound below, none took more than six
   steps). The loop ends once every lane has stopped.
   Rounding in an early step, while X is far from orthogonal, moves the limit by
   up to float's epsilon times the polar factor's condition 2 s1 / (s2 + s3)
   (singular values s1 >= s2 >= s3): large only when two axes are both short; one
   squashed axis is harmless. q = |A|_F^2 / |cofactor(A)|_F, which the first step
   has at hand, lies within 0.29-2.2x that condition; a joint with q > 31.6 (two
   axes under about 1/45 of the third) is redone in double. On 2,097,152 random
   matrices (singular values from 0.001 to 1, random rotations either side) the
   lanes then missed the reference by at most 2.8e-7, as the Gram-Schmidt lanes
   do; without the bound, by up to 6.8e-7 for q up to 100 and 1.1e-6 up to 316,
   where the determinant margin stops.
   A is first scaled by the power of two at or below its largest entry (exact),
   so that the norms and determinants never leave float's range. */
#define GPUSKIN__FAST_POLAR_BOUND 1e3f /* |A|_F^4 / |cofactor(A)|_F^2 above this: the reference */
#define GPUSKIN__FAST_POLAR_SETTLED 1e-4f /* a step that moves no entry more: the last */
#define GPUSKIN__FAST_POLAR_STEPS 8  /* at most (within the bound every lane took <= 6) */
#define GPUSKIN__FAST_POLAR_SCALED 3 /* steps with the Frobenius scaling, then plain Newton steps */
#define GPUSKIN__FAST_POLAR_BODY(P)                                                                                   \
    {                                                                                                                  \
    const P zero = P##_set1(0.0f), one = P##_set1(1.0f), sign = P##_set1(-0.0f), half = P##_set1(0.5f);               \
    const P all = P##_cmpeq(zero, zero);                                                                               \
    P a[9], t[3], c[9], r[9], s[9], q[4], du[4];                                                                       \
    P amax, det, unsure, dev, rigid, v, flip, mirrored, unit, n2, m2, g, h, change, active;                            \
    P tr, mw, mx, my, sq, inv, quarter, ca, cb, cc, cd, ce, cf;                                                        \
    int k, step;                                                                                                       \
    GPUSKIN__FAST_SPLIT_HEAD(P) /* near-singular (the reference's Gram-Schmidt fallback): the reference */             \
    mirrored = P##_cmplt(det, zero);                                                                                   \
    flip = P##_and(mirrored, sign);                                                                                    \
    unit = P##_div(one, P##_and(amax, P##_set1((float)HUGE_VAL))); /* 1 / 2^floor(log2 amax) */                     \
    for (k = 0; k < 9; ++k) r[k] = P##_mul(k < 3 ? P##_xor(a[k], flip) : a[k], unit); /* X: R once stopped */          \
    active = all;                                                                                                      \
    for (step = 0; step < GPUSKIN__FAST_POLAR_STEPS; ++step) {                                                         \
        /* the cofactors, as the reference's (cofactor / det = X^-T) */                                                \
        c[0] = P##_sub(P##_mul(r[4], r[8]), P##_mul(r[5], r[7]));                                                      \
        c[1] = P##_sub(P##_mul(r[5], r[6]), P##_mul(r[3], r[8]));                                                      \
        c[2] = P##_sub(P##_mul(r[3], r[7]), P##_mul(r[4], r[6]));                                                      \
        c[3] = P##_sub(P##_mul(r[2], r[7]), P##_mul(r[1], r[8]));                                                      \
        c[4] = P##_sub(P##_mul(r[0], r[8]), P##_mul(r[2], r[6]));                                                      \
        c[5] = P##_sub(P##_mul(r[1], r[6]), P##_mul(r[0], r[7]));                                                      \
        c[6] = P##_sub(P##_mul(r[1], r[5]), P##_mul(r[2], r[4]));                                                      \
        c[7] = P##_sub(P##_mul(r[2], r[3]), P##_mul(r[0], r[5]));                                                      \
        c[8] = P##_sub(P##_mul(r[0], r[4]), P##_mul(r[1], r[3]));                                                      \
        det = P##_add(P##_add(P##_mul(r[0], c[0]), P##_mul(r[1], c[1])), P##_mul(r[2], c[2]));                         \
        if (step < GPUSKIN__FAST_POLAR_SCALED) {                                                                       \
            n2 = m2 = zero;                                                                                            \
            for (k = 0; k < 9; ++k) n2 = P##_add(n2, P##_mul(r[k], r[k])), m2 = P##_add(m2, P##_mul(c[k], c[k]));      \
            if (step == 0) { /* |A|_F^4 / |cofactor(A)|_F^2 */                                                         \
                unsure = P##_or(unsure, P##_cmpgt(P##_mul(n2, n2), P##_mul(P##_set1(GPUSKIN__FAST_POLAR_BOUND), m2)));  \
                active = P##_andnot(unsure, all);                                                                      \
            }                                                                                                          \
            g = P##_sqrt(P##_sqrt(P##_div(m2, P##_mul(n2, P##_mul(det, det)))));                                       \
        } else {                                                                                                       \
            g = one;                                                                                                   \
        }                                                                                                              \
        h = P##_div(half, P##_mul(g, det));                                                                            \
        g = P##_mul(g, half);                                                                                          \
        change = zero;                                                                                                 \
        for (k = 0; k < 9; ++k) {                                                                                      \
            const P nx = P##_add(P##_mul(g, r[k]), P##_mul(h, c[k]));                                                  \
            change = P##_max(change, P##_abs(P##_sub(nx, r[k])));                                                      \
            r[k] = P##_sel(active, nx, r[k]);                                                                          \
        }                                                                                                              \
        active = P##_andnot(P##_cmple(change, P##_set1(GPUSKIN__FAST_POLAR_SETTLED)), active);                         \
        if (!P##_mask(active)) break;                                                                                  \
    }                                                                                                                  \
    unsure = P##_or(unsure, active); /* not stopped */                                                                 \
    /* S = R^T A, as the reference (the mirror's reflection lands in S) */                                             \
    for (k = 0; k < 9; ++k) {                                                                                          \
        const int col = k / 3 * 3, row = k % 3 * 3;                                                                    \
        s[k] = P##_add(P##_add(P##_mul(r[row], a[col]), P##_mul(r[row + 1], a[col + 1])),                              \
                       P##_mul(r[row + 2], a[col + 2]));                                                               \
    }                                                                                                                  \
    /* unmirrored: S symmetric bit for bit, its halves averaged (the GPU's kernel 8) */                                \
    {                                                                                                                  \
        static const int lower[3] = {1, 2, 5}, upper[3] = {3, 6, 7};                                                   \
        for (k = 0; k < 3; ++k) {                                                                                      \
            const P avg = P##_mul(half, P##_add(s[lower[k]], s[upper[k]]));                                           \
            s[lower[k]] = P##_sel(mirrored, s[lower[k]], avg);                                                         \
            s[upper[k]] = P##_sel(mirrored, s[upper[k]], avg);                                                         \
        }                                                                                                              \
    }                                                                                                                  \
    dev = zero;                                                                                                        \
    for (k = 0; k < 9; ++k) dev = P##_max(dev, P##_abs(k % 4 == 0 ? P##_sub(s[k], one) : s[k]));                       \
    rigid = P##_cmple(dev, P##_set1(GPUSKIN_RIGID_TOLERANCE));                                                         \
    unsure = P##_or(unsure, P##_cmple(P##_abs(P##_sub(dev, P##_set1(GPUSKIN_RIGID_TOLERANCE))),                        \
                                            P##_mul(P##_set1(GPUSKIN__FAST_RIGID_MARGIN), P##_add(one, amax))));       \
    GPUSKIN__FAST_SPLIT_TAIL(P)                                                                                        \
    }

GPUSKIN__FAST_INLINE void gpuskin__v8_load(const gpuskin_mat4 *m, gpuskin__v8 *a, gpuskin__v8 *t)
{
    int c, h;
    for (h = 0; h < 2; ++h) {
        for (c = 0; c < 4; ++c) {
            __m128 l0 = _mm_loadu_ps(m[4 * h + 0].m + 4 * c), l1 = _mm_loadu_ps(m[4 * h + 1].m + 4 * c);
            __m128 l2 = _mm_loadu_ps(m[4 * h + 2].m + 4 * c), l3 = _mm_loadu_ps(m[4 * h + 3].m + 4 * c);
            gpuskin__v8 *x = c < 3 ? a + 3 * c : t;
            _MM_TRANSPOSE4_PS(l0, l1, l2, l3);
            if (h) x[0].hi = l0, x[1].hi = l1, x[2].hi = l2;
            else x[0].lo = l0, x[1].lo = l1, x[2].lo = l2;
        }
    }
}

GPUSKIN__FAST_INLINE void gpuskin__v8_store(float *dq, float *res, const gpuskin__v8 *q, const gpuskin__v8 *du,
                                             const gpuskin__v8 *s)
{
    gpuskin__fast_store_split4(dq, res, q, du, s, 0);
    gpuskin__fast_store_split4(dq + 32, res ? res + 48 : NULL, q, du, s, 1);
}

/* Joints m[0..7], finite. Writes dq (8 x 8 floats) and, when res is not NULL, the
   residual rows (8 x 12 floats). Returns the mask of lanes the caller must redo with
   the reference; *nonrigid receives the mask of the other lanes' non-rigid joints. */
static int gpuskin__fast_split8_sse(const gpuskin_mat4 *m, float *dq, float *res, int *nonrigid)
GPUSKIN__FAST_SPLIT_BODY(gpuskin__v8)
/* The same for the polar split (GPUSKIN__FAST_POLAR_BODY). */
static int gpuskin__fast_polar8_sse(const gpuskin_mat4 *m, float *dq, float *res, int *nonrigid)
GPUSKIN__FAST_POLAR_BODY(gpuskin__v8)

#ifdef GPUSKIN__FAST_VEX
/* Eight lanes in one AVX register: lanes 0-3 are joints 0-3 (the low 128 bits),
   lanes 4-7 joints 4-7, as in gpuskin__v8's lo and hi. Comparisons use the
   predicates of the SSE2 ones, so NaNs (never present: inputs are checked
   finite, and lanes that divide by zero are redone) would compare alike. */
#define GPUSKIN__FAST_Y8 static __inline__ __attribute__((always_inline, target("avx")))
typedef __m256 gpuskin__y8;
#define GPUSKIN__Y8_OP2(name, expr) GPUSKIN__FAST_Y8 gpuskin__y8 gpuskin__y8_##name(gpuskin__y8 a, gpuskin__y8 b) { return expr; }
GPUSKIN__Y8_OP2(add, _mm256_add_ps(a, b))
GPUSKIN__Y8_OP2(sub, _mm256_sub_ps(a, b))
GPUSKIN__Y8_OP2(mul, _mm256_mul_ps(a, b))
GPUSKIN__Y8_OP2(div, _mm256_div_ps(a, b))
GPUSKIN__Y8_OP2(max, _mm256_max_ps(a, b))
GPUSKIN__Y8_OP2(and, _mm256_and_ps(a, b))
GPUSKIN__Y8_OP2(or, _mm256_or_ps(a, b))
GPUSKIN__Y8_OP2(andnot, _mm256_andnot_ps(a, b))
GPUSKIN__Y8_OP2(xor, _mm256_xor_ps(a, b))
GPUSKIN__Y8_OP2(cmpgt, _mm256_cmp_ps(a, b, _CMP_GT_OS))
GPUSKIN__Y8_OP2(cmplt, _mm256_cmp_ps(a, b, _CMP_LT_OS))
GPUSKIN__Y8_OP2(cmple, _mm256_cmp_ps(a, b, _CMP_LE_OS))
GPUSKIN__Y8_OP2(cmpeq, _mm256_cmp_ps(a, b, _CMP_EQ_OQ))
#undef GPUSKIN__Y8_OP2

/* Rows 0..2 of column c of joints 0..7: joint l's column in the low half and joint
   l + 4's in the high half, then one 4x4 transpose per half at once. */
GPUSKIN__FAST_Y8 void gpuskin__y8_load(const gpuskin_mat4 *m, gpuskin__y8 *a, gpuskin__y8 *t)
{
    int c;
    for (c = 0; c < 4; ++c) {
        gpuskin__y8 l[4], u0, u1, u2, u3;
        gpuskin__y8 *x = c < 3 ? a + 3 * c : t;
        int k;
        for (k = 0; k < 4; ++k)
            l[k] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(m[k].m + 4 * c)), _mm_loadu_ps(m[k + 4].m + 4 * c), 1);
        u0 = _mm256_unpacklo_ps(l[0], l[1]); /* x0 x1 y0 y1 */
        u1 = _mm256_unpacklo_ps(l[2], l[3]); /* x2 x3 y2 y3 */
        u2 = _mm256_unpackhi_ps(l[0], l[1]); /* z0 z1 w0 w1 */
        u3 = _mm256_unpackhi_ps(l[2], l[3]); /* z2 z3 w2 w3 */
        x[0] = _mm256_shuffle_ps(u0, u1, _MM_SHUFFLE(1, 0, 1, 0));
        x[1] = _mm256_shuffle_ps(u0, u1, _MM_SHUFFLE(3, 2, 3, 2));
        x[2] = _mm256_shuffle_ps(u2, u3, _MM_SHUFFLE(1, 0, 1, 0));
    }
}

/* 4x4 transpose of each 128-bit half: in[r] lane l (l < 4) -> out[l] lane r. */
GPUSKIN__FAST_Y8 void gpuskin__y8_transpose4(gpuskin__y8 x0, gpuskin__y8 x1, gpuskin__y8 x2, gpuskin__y8 x3, gpuskin__y8 *o)
{
    const gpuskin__y8 u0 = _mm256_unpacklo_ps(x0, x1), u1 = _mm256_unpacklo_ps(x2, x3);
    const gpuskin__y8 u2 = _mm256_unpackhi_ps(x0, x1), u3 = _mm256_unpackhi_ps(x2, x3);
    o[0] = _mm256_shuffle_ps(u0, u1, _MM_SHUFFLE(1, 0, 1, 0));
    o[1] = _mm256_shuffle_ps(u0, u1, _MM_SHUFFLE(3, 2, 3, 2));
    o[2] = _mm256_shuffle_ps(u2, u3, _MM_SHUFFLE(1, 0, 1, 0));
    o[3] = _mm256_shuffle_ps(u2, u3, _MM_SHUFFLE(3, 2, 3, 2));
}

GPUSKIN__FAST_Y8 void gpuskin__y8_store(float *dq, float *res, const gpuskin__y8 *q, const gpuskin__y8 *du,
                                         const gpuskin__y8 *s)
{
    gpuskin__y8 qt[4], dt[4], st[4];
    int k, row;
    gpuskin__y8_transpose4(q[0], q[1], q[2], q[3], qt);
    gpuskin__y8_transpose4(du[0], du[1], du[2], du[3], dt);
    for (k = 0; k < 4; ++k) { /* joint k: real | dual, then joint k + 4 */
        _mm256_storeu_ps(dq + 8 * k, _mm256_permute2f128_ps(qt[k], dt[k], 0x20));
        _mm256_storeu_ps(dq + 8 * (k + 4), _mm256_permute2f128_ps(qt[k], dt[k], 0x31));
    }
    if (!res) return;
    for (row = 0; row < 3; ++row) {
        gpuskin__y8_transpose4(s[row], s[3 + row], s[6 + row], _mm256_setzero_ps(), st);
        for (k = 0; k < 4; ++k) {
            _mm_storeu_ps(res + 12 * k + 4 * row, _mm256_castps256_ps128(st[k]));
            _mm_storeu_ps(res + 12 * (k + 4) + 4 * row, _mm256_extractf128_ps(st[k], 1));
        }
    }
}

/* Sixteen lanes as two AVX registers, for the reason gpuskin__v8 is two SSE2
   ones: one register's chain of square roots and divisions leaves the core
   waiting (eight lanes in one register ran no faster than gpuskin__v8). */
typedef struct gpuskin__y16 { __m256 lo, hi; } gpuskin__y16;
#define GPUSKIN__FAST_Y8_OP(name) gpuskin__y8_##name
GPUSKIN__FAST_PAIR_OPS(GPUSKIN__FAST_Y8, gpuskin__y16, GPUSKIN__FAST_Y8_OP)
GPUSKIN__FAST_PAIR_REST(GPUSKIN__FAST_Y8, gpuskin__y16, _mm256_set1_ps, _mm256_sqrt_ps, _mm256_movemask_ps, 8)
GPUSKIN__FAST_PAIR_MEMORY(GPUSKIN__FAST_Y8, gpuskin__y16, gpuskin__y8, 8)

/* Joints m[0..15]: as gpuskin__fast_split8_sse, sixteen lanes. */
GPUSKIN__FAST_TARGET_AVX static int gpuskin__fast_split16_vex(const gpuskin_mat4 *m, float *dq, float *res, int *nonrigid)
GPUSKIN__FAST_SPLIT_BODY(gpuskin__y16)
GPUSKIN__FAST_TARGET_AVX static int gpuskin__fast_polar16_vex(const gpuskin_mat4 *m, float *dq, float *res, int *nonrigid)
GPUSKIN__FAST_POLAR_BODY(gpuskin__y16)
#endif

/* Thirty-two lanes as two AVX-512 registers (the reason for two: as
   gpuskin__y16), chosen at run time where the CPU has AVX-512F. The same float
   operations in the same order as the forms above, so the same bits and the same
   decisions: add, sub and mul go through their _round forms at the current
   rounding mode, because GCC fuses a plain multiply and add into one fused
   multiply-add (rounded once) under a target that has FMA; comparisons give
   all-ones lanes, as the SSE2 ones do. Not in builds for FMA (-march=native and
   the like): there GCC's GNU modes fuse the SSE2 form's own operations, which
   this form would then not match. */
#if defined(GPUSKIN__FAST_AVX512) && !defined(__FMA__)
#define GPUSKIN__FAST_SPLIT32 1
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized" /* as for gpuskin__p16 (and C++ -O1 says */
#pragma GCC diagnostic ignored "-Wuninitialized"       /* "is used uninitialized" of the same variable) */
#endif
#define GPUSKIN__FAST_Z16 static __inline__ __attribute__((always_inline, target("avx512f,avx2,fma")))
typedef __m512 gpuskin__z16;
#define GPUSKIN__Z16_BITS(op) _mm512_castsi512_ps(op(_mm512_castps_si512(a), _mm512_castps_si512(b)))
#define GPUSKIN__Z16_CMP(pred) _mm512_castsi512_ps(_mm512_maskz_set1_epi32(_mm512_cmp_ps_mask(a, b, pred), -1))
#define GPUSKIN__Z16_OP2(name, expr) GPUSKIN__FAST_Z16 gpuskin__z16 gpuskin__z16_##name(gpuskin__z16 a, gpuskin__z16 b) { return expr; }
GPUSKIN__Z16_OP2(add, _mm512_add_round_ps(a, b, _MM_FROUND_CUR_DIRECTION))
GPUSKIN__Z16_OP2(sub, _mm512_sub_round_ps(a, b, _MM_FROUND_CUR_DIRECTION))
GPUSKIN__Z16_OP2(mul, _mm512_mul_round_ps(a, b, _MM_FROUND_CUR_DIRECTION))
GPUSKIN__Z16_OP2(div, _mm512_div_round_ps(a, b, _MM_FROUND_CUR_DIRECTION))
GPUSKIN__Z16_OP2(max, _mm512_max_ps(a, b))
GPUSKIN__Z16_OP2(and, GPUSKIN__Z16_BITS(_mm512_and_si512))
GPUSKIN__Z16_OP2(or, GPUSKIN__Z16_BITS(_mm512_or_si512))
GPUSKIN__Z16_OP2(andnot, GPUSKIN__Z16_BITS(_mm512_andnot_si512))
GPUSKIN__Z16_OP2(xor, GPUSKIN__Z16_BITS(_mm512_xor_si512))
GPUSKIN__Z16_OP2(cmpgt, GPUSKIN__Z16_CMP(_CMP_GT_OS))
GPUSKIN__Z16_OP2(cmplt, GPUSKIN__Z16_CMP(_CMP_LT_OS))
GPUSKIN__Z16_OP2(cmple, GPUSKIN__Z16_CMP(_CMP_LE_OS))
GPUSKIN__Z16_OP2(cmpeq, GPUSKIN__Z16_CMP(_CMP_EQ_OQ))
#undef GPUSKIN__Z16_OP2
#undef GPUSKIN__Z16_CMP
#undef GPUSKIN__Z16_BITS
/* The sign bits, lane 0 first (unsigned: the pair's upper half reaches bit 31). */
GPUSKIN__FAST_Z16 unsigned gpuskin__z16_movemask(gpuskin__z16 v)
{
    return (unsigned)_mm512_cmplt_epi32_mask(_mm512_castps_si512(v), _mm512_setzero_si512());
}

/* 4x4 transpose of each 128-bit quarter: in[r] lane l -> out[l] lane r. */
GPUSKIN__FAST_Z16 void gpuskin__z16_transpose4(gpuskin__z16 x0, gpuskin__z16 x1, gpuskin__z16 x2, gpuskin__z16 x3,
                                                gpuskin__z16 *o)
{
    GPUSKIN__FAST_TRANSPOSE4X(_mm512, x0, x1, x2, x3);
    o[0] = x0, o[1] = x1, o[2] = x2, o[3] = x3;
}

/* Rows 0..2 of every column of joints 0..15, lane 4 g + i = joint 4 g + i: quarter
   g of register k holds joint 4 g + k's column, then one transpose per quarter. */
GPUSKIN__FAST_Z16 void gpuskin__z16_load(const gpuskin_mat4 *m, gpuskin__z16 *a, gpuskin__z16 *t)
{
    int c, k;
    for (c = 0; c < 4; ++c) {
        gpuskin__z16 l[4], o[4];
        gpuskin__z16 *x = c < 3 ? a + 3 * c : t;
        for (k = 0; k < 4; ++k) {
            gpuskin__z16 r = _mm512_castps128_ps512(_mm_loadu_ps(m[k].m + 4 * c));
            r = _mm512_insertf32x4(r, _mm_loadu_ps(m[k + 4].m + 4 * c), 1);
            r = _mm512_insertf32x4(r, _mm_loadu_ps(m[k + 8].m + 4 * c), 2);
            l[k] = _mm512_insertf32x4(r, _mm_loadu_ps(m[k + 12].m + 4 * c), 3);
        }
        gpuskin__z16_transpose4(l[0], l[1], l[2], l[3], o);
        x[0] = o[0], x[1] = o[1], x[2] = o[2];
    }
}

/* Joint 4 g + k: real = quarter g of the transposed q's register k, dual likewise. */
#define GPUSKIN__Z16_STORE_QUARTER(g)                                                                                  \
    for (k = 0; k < 4; ++k) {                                                                                          \
        _mm_storeu_ps(dq + 8 * (4 * (g) + k), _mm512_extractf32x4_ps(qt[k], g));                                       \
        _mm_storeu_ps(dq + 8 * (4 * (g) + k) + 4, _mm512_extractf32x4_ps(dt[k], g));                                   \
        if (res) {                                                                                                     \
            _mm_storeu_ps(res + 12 * (4 * (g) + k), _mm512_extractf32x4_ps(st[0][k], g));                              \
            _mm_storeu_ps(res + 12 * (4 * (g) + k) + 4, _mm512_extractf32x4_ps(st[1][k], g));                          \
            _mm_storeu_ps(res + 12 * (4 * (g) + k) + 8, _mm512_extractf32x4_ps(st[2][k], g));                          \
        }                                                                                                              \
    }
GPUSKIN__FAST_Z16 void gpuskin__z16_store(float *dq, float *res, const gpuskin__z16 *q, const gpuskin__z16 *du,
                                           const gpuskin__z16 *s)
{
    gpuskin__z16 qt[4], dt[4], st[3][4];
    int k, row;
    gpuskin__z16_transpose4(q[0], q[1], q[2], q[3], qt);
    gpuskin__z16_transpose4(du[0], du[1], du[2], du[3], dt);
    for (row = 0; row < 3 && res; ++row) /* the residual rows of S with w = 0 */
        gpuskin__z16_transpose4(s[row], s[3 + row], s[6 + row], _mm512_setzero_ps(), st[row]);
    GPUSKIN__Z16_STORE_QUARTER(0)
    GPUSKIN__Z16_STORE_QUARTER(1)
    GPUSKIN__Z16_STORE_QUARTER(2)
    GPUSKIN__Z16_STORE_QUARTER(3)
}
#undef GPUSKIN__Z16_STORE_QUARTER

typedef struct gpuskin__z32 { __m512 lo, hi; } gpuskin__z32;
#define GPUSKIN__FAST_Z16_OP(name) gpuskin__z16_##name
GPUSKIN__FAST_PAIR_OPS(GPUSKIN__FAST_Z16, gpuskin__z32, GPUSKIN__FAST_Z16_OP)
GPUSKIN__FAST_PAIR_REST(GPUSKIN__FAST_Z16, gpuskin__z32, _mm512_set1_ps, _mm512_sqrt_ps, gpuskin__z16_movemask, 16)
GPUSKIN__FAST_PAIR_MEMORY(GPUSKIN__FAST_Z16, gpuskin__z32, gpuskin__z16, 16)

/* gpuskin__fast_all_finite4 with a matrix a register: a quarter of the
   operations (locally gpuskin_pack_dq_fast took 0.90-0.96x the time). */
GPUSKIN__FAST_TARGET_AVX512 static int gpuskin__fast_all_finite_z(const gpuskin_mat4 *m, uint32_t n)
{
    __m512 acc0 = _mm512_setzero_ps(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
    uint32_t i;
    for (i = 0; i + 4 <= n; i += 4) {
        const __m512 x0 = _mm512_loadu_ps(m[i].m), x1 = _mm512_loadu_ps(m[i + 1].m);
        const __m512 x2 = _mm512_loadu_ps(m[i + 2].m), x3 = _mm512_loadu_ps(m[i + 3].m);
        acc0 = _mm512_add_ps(acc0, _mm512_sub_ps(x0, x0));
        acc1 = _mm512_add_ps(acc1, _mm512_sub_ps(x1, x1));
        acc2 = _mm512_add_ps(acc2, _mm512_sub_ps(x2, x2));
        acc3 = _mm512_add_ps(acc3, _mm512_sub_ps(x3, x3));
    }
    for (; i < n; ++i) {
        const __m512 x = _mm512_loadu_ps(m[i].m);
        acc0 = _mm512_add_ps(acc0, _mm512_sub_ps(x, x));
    }
    acc0 = _mm512_add_ps(_mm512_add_ps(acc0, acc1), _mm512_add_ps(acc2, acc3));
    return _mm512_cmp_ps_mask(acc0, _mm512_setzero_ps(), _CMP_EQ_OQ) == 0xFFFF;
}

/* Joints m[0..31]: as gpuskin__fast_split8_sse, thirty-two lanes. Bit 31 of the
   masks is lane 31 (the int holds the unsigned pattern). */
GPUSKIN__FAST_TARGET_AVX512 static int gpuskin__fast_split32_z(const gpuskin_mat4 *m, float *dq, float *res, int *nonrigid)
GPUSKIN__FAST_SPLIT_BODY(gpuskin__z32)
GPUSKIN__FAST_TARGET_AVX512 static int gpuskin__fast_polar32_z(const gpuskin_mat4 *m, float *dq, float *res, int *nonrigid)
GPUSKIN__FAST_POLAR_BODY(gpuskin__z32)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif /* GPUSKIN__FAST_SPLIT32 */

/* gpuskin_pack_lbs with 16-byte stores: the same bytes (data movement only).
   gpuskin_crowd_upload writes straight into mapped GPU memory, where the store
   width matters: each store may become its own bus write. Also in builds without
   Vulkan, which have no caller but whose tests (tests/test_fast.c) call it. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((unused))
#endif
static gpuskin_result gpuskin__fast_pack_lbs(const gpuskin_mat4 *palette, uint32_t joint_count, float *out)
{
    uint32_t j;
    if (!palette || !out) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (joint_count == 0 || joint_count > GPUSKIN_MAX_JOINTS) return GPUSKIN_ERROR_INVALID_COUNT;
    if (!gpuskin__fast_all_finite4(palette, joint_count)) return GPUSKIN_ERROR_NON_FINITE;
    for (j = 0; j < joint_count; ++j) {
        __m128 c0 = _mm_loadu_ps(palette[j].m), c1 = _mm_loadu_ps(palette[j].m + 4);
        __m128 c2 = _mm_loadu_ps(palette[j].m + 8), c3 = _mm_loadu_ps(palette[j].m + 12);
        _MM_TRANSPOSE4_PS(c0, c1, c2, c3); /* rows 0..3; row 3 is not packed */
        _mm_storeu_ps(out + 12u * j, c0);
        _mm_storeu_ps(out + 12u * j + 4u, c1);
        _mm_storeu_ps(out + 12u * j + 8u, c2);
    }
    return GPUSKIN_SUCCESS;
}

#endif /* GPUSKIN__FAST_SSE2 */

GPUSKIN_API gpuskin_result gpuskin_build_palettes(const gpuskin_palette_batch_desc *desc)
{
    const gpuskin_skeleton *sk;
    gpuskin_mat4 *plain_scratch = NULL;
    gpuskin_result result = GPUSKIN_SUCCESS;
    uint32_t i, end;
    int fast = 0;
    if (!desc || !desc->skeleton) return GPUSKIN_ERROR_NULL_ARGUMENT;
    sk = desc->skeleton;
    if (!sk->order || !sk->parents || !sk->inverse_bind || !sk->rest_pose || !sk->root_parent_globals)
        return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (!desc->out_palettes && !desc->out_lbs) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (sk->joint_count == 0 || sk->joint_count > GPUSKIN_MAX_JOINTS) return GPUSKIN_ERROR_INVALID_COUNT;
    if (desc->instance_count == 0) return GPUSKIN_SUCCESS; /* a job system's empty share */
    end = desc->first_instance + desc->instance_count;
    if (end < desc->first_instance || (size_t)end > SIZE_MAX / ((size_t)sk->joint_count * sizeof(gpuskin_mat4)))
        return GPUSKIN_ERROR_OVERFLOW;
#ifdef GPUSKIN__FAST_AVX512
    /* A few instances: one at a time, by a form that checks the skeleton's
       matrices itself (the check below would cost one instance a tenth of its
       time). */
    if (desc->instance_count < GPUSKIN__FAST_P8_FROM && gpuskin__fast_cpu_has_avx512())
        return gpuskin__z_palettes_range(desc, desc->first_instance, desc->instance_count);
#endif
#ifdef GPUSKIN__FAST_SSE2
    /* The fast forms (four, eight or sixteen lanes, rows) keep matrices as 3x4
       affines. Skeletons from real files always are; anything else takes the
       reference path. */
    fast = 1;
    for (i = 0; i < sk->joint_count && fast; ++i) /* inverse_bind_rows: every inverse bind is affine */
        fast = (sk->inverse_bind_rows || gpuskin__fast_is_affine(&sk->inverse_bind[i])) &&
               (sk->parents[i] >= 0 || gpuskin__fast_is_affine(&sk->root_parent_globals[i]));
#ifdef GPUSKIN__FAST_AVX2
    if (fast && gpuskin__fast_cpu_has_avx2_fma()) {
        uint32_t first = desc->first_instance, count = desc->instance_count;
#ifdef GPUSKIN__FAST_AVX512
        /* Sixteen a group. A group costs the same however many of its lanes are
           used, and one instance at a time costs about a tenth of a group of
           sixteen and a seventh of a group of eight (measured on an H100
           machine's Xeon and on Zen 5; BENCHMARKS.md), so a short end of r
           instances takes: 11-15 one more group of sixteen; 8-10 a group of
           eight, then the rest one at a time; 1-7 one at a time. */
        if (gpuskin__fast_cpu_has_avx512()) {
            const uint32_t rest = count % 16, grouped = rest >= GPUSKIN__FAST_P16_FROM ? count : count - rest;
            const uint32_t eights = grouped == count || rest < GPUSKIN__FAST_P8_FROM ? 0 : (rest < 8 ? rest : 8);
            if (grouped) GPUSKIN__TRY(gpuskin__p16_palettes_range(desc, first, grouped));
            if (eights) GPUSKIN__TRY(gpuskin__p8_palettes_range(desc, first + grouped, eights));
            count -= grouped + eights;
            return count ? gpuskin__z_palettes_range(desc, first + grouped + eights, count) : GPUSKIN_SUCCESS;
        }
#endif
        { /* eight a group; a short end of fewer than GPUSKIN__FAST_ROWS_BELOW one at a time */
            const uint32_t rest = count % 8, in_groups = count - (rest < GPUSKIN__FAST_ROWS_BELOW ? rest : 0);
            if (in_groups) GPUSKIN__TRY(gpuskin__p8_palettes_range(desc, first, in_groups));
            first += in_groups;
            count -= in_groups;
        }
        return count ? gpuskin__fast_palettes_rows_range(desc, first, count) : GPUSKIN_SUCCESS;
    }
#endif
    if (fast) {
        /* Globals of every joint for four instances: 192 bytes a joint, on the stack
           for skeletons up to 64 joints, else one allocation, aligned by hand since
           GPUSKIN_MALLOC promises no alignment. */
        gpuskin__fast_aff4 stack_globals[64], *g = stack_globals;
        void *block = NULL;
        if (sk->joint_count > 64) {
            block = GPUSKIN_MALLOC((size_t)sk->joint_count * sizeof(gpuskin__fast_aff4) + 15, sk->alloc_user);
            if (!block) return GPUSKIN_ERROR_OUT_OF_MEMORY;
            g = (gpuskin__fast_aff4 *)(void *)(((uintptr_t)block + 15) & ~(uintptr_t)15);
        }
        for (i = desc->first_instance; i < end && result == GPUSKIN_SUCCESS; i += 4) {
            uint32_t lanes = end - i < 4 ? end - i : 4;
            if (!gpuskin__fast_palettes4(desc, i, lanes, g, &result))
                result = gpuskin__fast_palettes_redo(desc, i, lanes, &plain_scratch);
        }
        if (block) GPUSKIN_FREE(block, sk->alloc_user);
        if (plain_scratch) GPUSKIN_FREE(plain_scratch, sk->alloc_user);
        return result;
    }
#endif
    (void)fast;
    (void)i;
    result = gpuskin__fast_palettes_redo(desc, desc->first_instance, desc->instance_count, &plain_scratch);
    if (plain_scratch) GPUSKIN_FREE(plain_scratch, sk->alloc_user);
    return result;
}

GPUSKIN_API gpuskin_result gpuskin_pack_dq_fast(const gpuskin_mat4 *palette, uint32_t joint_count,
                                                gpuskin_split_method split, float *out_dq, float *out_residual,
                                                uint32_t *out_method_word)
{
#ifdef GPUSKIN__FAST_SSE2
    uint32_t j, l, word = GPUSKIN_METHOD_DQS, step = 8;
    const int polar = split == GPUSKIN_SPLIT_POLAR;
    int (*split_lanes)(const gpuskin_mat4 *, float *, float *, int *) =
        polar ? gpuskin__fast_polar8_sse : gpuskin__fast_split8_sse;
    int finite;
    if (!palette || !out_dq || !out_method_word) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (joint_count == 0 || joint_count > GPUSKIN_MAX_JOINTS) return GPUSKIN_ERROR_INVALID_COUNT;
    if (split != GPUSKIN_SPLIT_GRAM_SCHMIDT && !polar) /* the reference's error */
        return gpuskin_pack_dq(palette, joint_count, split, out_dq, out_residual, out_method_word);
#ifdef GPUSKIN__FAST_VEX
    if (gpuskin__fast_cpu_has_avx())
        split_lanes = polar ? gpuskin__fast_polar16_vex : gpuskin__fast_split16_vex, step = 16;
#endif
#ifdef GPUSKIN__FAST_SPLIT32
    if (gpuskin__fast_cpu_has_avx512())
        split_lanes = polar ? gpuskin__fast_polar32_z : gpuskin__fast_split32_z, step = 32;
    finite = step == 32 ? gpuskin__fast_all_finite_z(palette, joint_count) : gpuskin__fast_all_finite4(palette, joint_count);
#else
    finite = gpuskin__fast_all_finite4(palette, joint_count);
#endif
    if (!finite) return GPUSKIN_ERROR_NON_FINITE;
    for (j = 0; j < joint_count; j += step) {
        const uint32_t lanes = joint_count - j < step ? joint_count - j : step;
        float *dq = out_dq + (size_t)j * 8u, *res = out_residual ? out_residual + (size_t)j * 12u : NULL;
        int nonrigid, redo;
        if (lanes == step) {
            redo = split_lanes(palette + j, dq, res, &nonrigid);
        } else { /* the last joints, padded with identities; only `lanes` are copied out */
            gpuskin_mat4 m[32];
            float dq32[32 * 8], res32[32 * 12];
            for (l = 0; l < step; ++l) m[l] = l < lanes ? palette[j + l] : gpuskin_mat4_identity();
            redo = split_lanes(m, dq32, res32, &nonrigid) & (int)((1u << lanes) - 1u); /* lanes < step <= 32 */
            memcpy(dq, dq32, lanes * 8u * sizeof(float));
            if (res) memcpy(res, res32, lanes * 12u * sizeof(float));
        }
        /* Lanes the split was unsure of take the reference, which decides their
           rigidity; the others' comes from the split's mask. Masks, not a test of
           every lane: unsure lanes are rare, and the lane-by-lane loop this
           replaces cost the call 12-15 % of its time (locally). */
        {
            const uint32_t used = lanes == 32 ? 0xFFFFFFFFu : (1u << lanes) - 1u;
            const uint32_t unsure = (uint32_t)redo & used;
            if ((uint32_t)nonrigid & ~unsure & used) word |= GPUSKIN_METHOD_RESIDUAL_BIT;
            for (l = 0; unsure && l < lanes; ++l)
                if ((unsure >> l) & 1u) {
                    const int rigid = gpuskin__pack_dq_joint(&palette[j + l], split, dq + 8u * l, res ? res + 12u * l : NULL);
                    if (rigid < 0) return GPUSKIN_ERROR_NON_FINITE;
                    if (!rigid) word |= GPUSKIN_METHOD_RESIDUAL_BIT;
                }
        }
    }
    *out_method_word = word;
    return GPUSKIN_SUCCESS;
#else
    return gpuskin_pack_dq(palette, joint_count, split, out_dq, out_residual, out_method_word);
#endif
}

/* ======================================================================== */
/* Skinning                                                                 */
/* ======================================================================== */

#ifdef GPUSKIN__FAST_SSE2

/* One call's streams with their strides resolved (stride 0 = packed). */
typedef struct gpuskin__fast_skin {
    size_t n;
    uint32_t sets, joint_count;
    gpuskin_joint_type joint_type;
    const char *pos, *nrm, *tan, *jnt[2], *wgt[2];
    size_t pos_s, nrm_s, tan_s, jnt_s[2], wgt_s[2];
    char *opos, *onrm, *otan;
    size_t opos_s, onrm_s, otan_s;
    int dqs, residual;
    int avx2; /* the CPU runs the AVX2 + FMA forms (GPUSKIN__FAST_AVX2 builds only) */
    int avx512; /* and the AVX-512F LBS form (GPUSKIN__FAST_AVX512 builds only) */
    const float *lbs, *dq, *res;
    const float *lbs64; /* the LBS palette copied to one 64-byte line a joint, or NULL (gpuskin__fast_pad_lbs) */
} gpuskin__fast_skin;

#ifdef GPUSKIN__FAST_AVX2
/* The sixteen-lane LBS form loads a joint's twelve floats as one masked 64-byte
   load, the eight-lane form rows 0-1 as one 32-byte load. At the palette's
   48-byte stride three joints in four (one in four) then straddle two cache
   lines, and a load that splits costs about two. Copied to a line each, none
   does: up to GPUSKIN_FAST_COPY_JOINTS joints (128 by default: 8,256 bytes of
   stack), for calls of at least four vertices a joint, which pay for the copy.
   BENCHMARKS.md gives what it measured. Returns the copy, 64-byte aligned inside
   block. */
#ifndef GPUSKIN_FAST_COPY_JOINTS
#define GPUSKIN_FAST_COPY_JOINTS 128
#endif
static const float *gpuskin__fast_pad_lbs(const float *lbs, uint32_t joints, float *block)
{
    float *d = (float *)(void *)(((uintptr_t)block + 63) & ~(uintptr_t)63);
    uint32_t j;
    for (j = 0; j < joints; ++j) {
        memcpy(d + 16 * j, lbs + 12 * j, 12 * sizeof(float));
        d[16 * j + 12] = d[16 * j + 13] = d[16 * j + 14] = d[16 * j + 15] = 0.0f;
    }
    return d;
}

#endif

/* ---- loads and stores --------------------------------------------------- */

/* The 4 joint indices at p, of type `type`, widened to 32 bits. */
GPUSKIN__FAST_INLINE __m128i gpuskin__fast_joints_at(const char *p, gpuskin_joint_type type)
{
    if (type == GPUSKIN_JOINT_U16)
        return _mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(const void *)p), _mm_setzero_si128());
    if (type == GPUSKIN_JOINT_U8) {
        int x;
        memcpy(&x, p, 4);
        return _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(x), _mm_setzero_si128()), _mm_setzero_si128());
    }
    return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* Those of vertex v in set `set`. */
GPUSKIN__FAST_INLINE __m128i gpuskin__fast_joints(const gpuskin__fast_skin *f, uint32_t set, size_t v)
{
    return gpuskin__fast_joints_at(f->jnt[set] + v * f->jnt_s[set], f->joint_type);
}

GPUSKIN__FAST_INLINE __m128 gpuskin__fast_weights(const gpuskin__fast_skin *f, uint32_t set, size_t v)
{
    return _mm_loadu_ps((const float *)(const void *)(f->wgt[set] + v * f->wgt_s[set]));
}

/* float[3] element v of a stream of n: 16 bytes when another element follows (the
   4th float is whatever lies there; callers ignore it), exactly 12 for the last. */
GPUSKIN__FAST_INLINE __m128 gpuskin__fast_load3(const char *base, size_t stride, size_t v, size_t n)
{
    const char *p = base + v * stride;
    float last[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (v + 1 < n) return _mm_loadu_ps((const float *)(const void *)p);
    memcpy(last, p, 12); /* memcpy: the element may be unaligned */
    return _mm_loadu_ps(last);
}

/* Four float[3] elements v0..v0+3 (all inside the stream) as x, y, z vectors. */
GPUSKIN__FAST_INLINE void gpuskin__fast_load3x4(const char *base, size_t stride, size_t v0, size_t n, __m128 *x, __m128 *y,
                                                __m128 *z)
{
    if (stride == 12) { /* packed: 48 contiguous bytes, deinterleaved */
        const float *p = (const float *)(const void *)(base + v0 * 12);
        const __m128 a = _mm_loadu_ps(p), b = _mm_loadu_ps(p + 4), c = _mm_loadu_ps(p + 8); /* x0y0z0x1 y1z1x2y2 z2x3y3z3 */
        const __m128 t0 = _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 1, 3, 2));                    /* z0 x1 z1 x2 */
        const __m128 t1 = _mm_shuffle_ps(b, c, _MM_SHUFFLE(1, 0, 3, 2));                    /* x2 y2 z2 x3 */
        *x = _mm_shuffle_ps(a, t1, _MM_SHUFFLE(3, 0, 3, 0));
        *y = _mm_shuffle_ps(_mm_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 1, 1)), _mm_shuffle_ps(b, c, _MM_SHUFFLE(2, 2, 3, 3)),
                            _MM_SHUFFLE(2, 0, 2, 0));
        *z = _mm_shuffle_ps(t0, c, _MM_SHUFFLE(3, 0, 2, 0));
    } else {
        __m128 e0 = gpuskin__fast_load3(base, stride, v0, n), e1 = gpuskin__fast_load3(base, stride, v0 + 1, n);
        __m128 e2 = gpuskin__fast_load3(base, stride, v0 + 2, n), e3 = gpuskin__fast_load3(base, stride, v0 + 3, n);
        _MM_TRANSPOSE4_PS(e0, e1, e2, e3); /* e3: the ignored 4th floats */
        *x = e0; *y = e1; *z = e2;
    }
}

/* Writes exactly 12 bytes a vertex, so interleaved neighbours are never touched. */
GPUSKIN__FAST_INLINE void gpuskin__fast_store3(char *p, __m128 e)
{
    const float z = _mm_cvtss_f32(_mm_movehl_ps(e, e));
    _mm_storel_pi((__m64 *)(void *)p, e);
    memcpy(p + 8, &z, 4); /* memcpy: the element may be unaligned */
}

GPUSKIN__FAST_INLINE void gpuskin__fast_store3x4(char *base, size_t stride, size_t v0, __m128 x, __m128 y, __m128 z)
{
    if (stride == 12) { /* packed: interleave into 48 contiguous bytes */
        float *p = (float *)(void *)(base + v0 * 12);
        const __m128 xy01 = _mm_unpacklo_ps(x, y), xy23 = _mm_unpackhi_ps(x, y); /* x0y0x1y1, x2y2x3y3 */
        _mm_storeu_ps(p, _mm_shuffle_ps(xy01, _mm_shuffle_ps(z, x, _MM_SHUFFLE(1, 1, 0, 0)), _MM_SHUFFLE(2, 0, 1, 0)));
        _mm_storeu_ps(p + 4, _mm_shuffle_ps(_mm_shuffle_ps(y, z, _MM_SHUFFLE(1, 1, 1, 1)), xy23, _MM_SHUFFLE(1, 0, 2, 0)));
        _mm_storeu_ps(p + 8, _mm_shuffle_ps(_mm_shuffle_ps(z, x, _MM_SHUFFLE(3, 3, 2, 2)),
                                            _mm_shuffle_ps(y, z, _MM_SHUFFLE(3, 3, 3, 3)), _MM_SHUFFLE(2, 0, 2, 0)));
    } else {
        __m128 w = _mm_setzero_ps();
        _MM_TRANSPOSE4_PS(x, y, z, w);
        gpuskin__fast_store3(base + v0 * stride, x);
        gpuskin__fast_store3(base + (v0 + 1) * stride, y);
        gpuskin__fast_store3(base + (v0 + 2) * stride, z);
        gpuskin__fast_store3(base + (v0 + 3) * stride, w);
    }
}

/* ---- influences ----------------------------------------------------------- */

/* The influences of four vertices. A zero-weight slot's joint index may be garbage
   (gpuskin.h allows it): its offset is set to 0, always safe to read, and times
   weight 0 it adds exactly 0, so no vertex branches on its weights. Weights below
   FLT_MIN are 0 here, as in the oracle. */
typedef struct gpuskin__fast_group {
    __m128 w[2][4];        /* [set][vertex]: the weights, denormals flushed to 0 */
    uint32_t off[4][8];    /* [vertex][influence]: byte offset of the joint's palette entry */
    __m128 norm;           /* per vertex (lane): sum > 0 ? 1 / sum : 1, as the oracle */
    __m128 weighted;       /* all-ones lanes where some weight is non-zero */
} gpuskin__fast_group;

/* Reads one set of the four vertices; returns the running weight sum, added in the
   oracle's order (influence by influence). entry_bytes: 48 (LBS) or 32 (DQ). */
GPUSKIN__FAST_INLINE __m128 gpuskin__fast_read_set(const gpuskin__fast_skin *f, gpuskin__fast_group *g, size_t v0,
                                                   uint32_t set, int lbs, __m128 sum, int first)
{
    /* The oracle counts a weight below FLT_MIN (a denormal, or 0) as 0: keep = |w| >= FLT_MIN. */
    const __m128 sign = _mm_set1_ps(-0.0f), min = _mm_set1_ps(GPUSKIN__MIN_WEIGHT);
    __m128 w0 = gpuskin__fast_weights(f, set, v0), w1 = gpuskin__fast_weights(f, set, v0 + 1);
    __m128 w2 = gpuskin__fast_weights(f, set, v0 + 2), w3 = gpuskin__fast_weights(f, set, v0 + 3);
    const __m128 k0 = _mm_cmpge_ps(_mm_andnot_ps(sign, w0), min), k1 = _mm_cmpge_ps(_mm_andnot_ps(sign, w1), min);
    const __m128 k2 = _mm_cmpge_ps(_mm_andnot_ps(sign, w2), min), k3 = _mm_cmpge_ps(_mm_andnot_ps(sign, w3), min);
    __m128i j0 = _mm_and_si128(_mm_castps_si128(k0), gpuskin__fast_joints(f, set, v0));
    __m128i j1 = _mm_and_si128(_mm_castps_si128(k1), gpuskin__fast_joints(f, set, v0 + 1));
    __m128i j2 = _mm_and_si128(_mm_castps_si128(k2), gpuskin__fast_joints(f, set, v0 + 2));
    __m128i j3 = _mm_and_si128(_mm_castps_si128(k3), gpuskin__fast_joints(f, set, v0 + 3));
    w0 = _mm_and_ps(k0, w0); w1 = _mm_and_ps(k1, w1); w2 = _mm_and_ps(k2, w2); w3 = _mm_and_ps(k3, w3);
    if (lbs) { /* j * 48 = j * 32 + j * 16 */
        j0 = _mm_add_epi32(_mm_slli_epi32(j0, 5), _mm_slli_epi32(j0, 4));
        j1 = _mm_add_epi32(_mm_slli_epi32(j1, 5), _mm_slli_epi32(j1, 4));
        j2 = _mm_add_epi32(_mm_slli_epi32(j2, 5), _mm_slli_epi32(j2, 4));
        j3 = _mm_add_epi32(_mm_slli_epi32(j3, 5), _mm_slli_epi32(j3, 4));
    } else {
        j0 = _mm_slli_epi32(j0, 5); j1 = _mm_slli_epi32(j1, 5); j2 = _mm_slli_epi32(j2, 5); j3 = _mm_slli_epi32(j3, 5);
    }
    _mm_storeu_si128((__m128i *)(void *)&g->off[0][set * 4], j0);
    _mm_storeu_si128((__m128i *)(void *)&g->off[1][set * 4], j1);
    _mm_storeu_si128((__m128i *)(void *)&g->off[2][set * 4], j2);
    _mm_storeu_si128((__m128i *)(void *)&g->off[3][set * 4], j3);
    g->w[set][0] = w0; g->w[set][1] = w1; g->w[set][2] = w2; g->w[set][3] = w3;
    _MM_TRANSPOSE4_PS(w0, w1, w2, w3); /* w_k: influence k of the four vertices */
    sum = first ? w0 : _mm_add_ps(sum, w0);
    return _mm_add_ps(_mm_add_ps(_mm_add_ps(sum, w1), w2), w3);
}

GPUSKIN__FAST_INLINE void gpuskin__fast_read_group(const gpuskin__fast_skin *f, gpuskin__fast_group *g, size_t v0,
                                                   uint32_t sets, int lbs)
{
    const __m128 one = _mm_set1_ps(1.0f);
    __m128 sum = gpuskin__fast_read_set(f, g, v0, 0, lbs, _mm_setzero_ps(), 1);
    if (sets == 2) sum = gpuskin__fast_read_set(f, g, v0, 1, lbs, sum, 0);
    g->weighted = _mm_cmpgt_ps(sum, _mm_setzero_ps());
    g->norm = _mm_or_ps(_mm_and_ps(g->weighted, _mm_div_ps(one, sum)), _mm_andnot_ps(g->weighted, one));
}

/* ---- linear blend ----------------------------------------------------------- */

/* One set of one vertex: r[row] += palette row * (w * norm), influence by influence in
   the oracle's order (its zero-weight skips are exact zeros here). */
GPUSKIN__FAST_INLINE void gpuskin__fast_lbs_set(const char *lbs, const uint32_t *off, __m128 wn, int first, __m128 r[3])
{
    const float *p0 = (const float *)(const void *)(lbs + off[0]), *p1 = (const float *)(const void *)(lbs + off[1]);
    const float *p2 = (const float *)(const void *)(lbs + off[2]), *p3 = (const float *)(const void *)(lbs + off[3]);
    const __m128 w0 = GPUSKIN__FAST_BCAST(wn, 0), w1 = GPUSKIN__FAST_BCAST(wn, 1);
    const __m128 w2 = GPUSKIN__FAST_BCAST(wn, 2), w3 = GPUSKIN__FAST_BCAST(wn, 3);
    __m128 a0 = _mm_mul_ps(_mm_loadu_ps(p0), w0), a1 = _mm_mul_ps(_mm_loadu_ps(p0 + 4), w0);
    __m128 a2 = _mm_mul_ps(_mm_loadu_ps(p0 + 8), w0);
    if (!first) {
        a0 = _mm_add_ps(r[0], a0); a1 = _mm_add_ps(r[1], a1); a2 = _mm_add_ps(r[2], a2);
    }
    a0 = _mm_add_ps(a0, _mm_mul_ps(_mm_loadu_ps(p1), w1));
    a1 = _mm_add_ps(a1, _mm_mul_ps(_mm_loadu_ps(p1 + 4), w1));
    a2 = _mm_add_ps(a2, _mm_mul_ps(_mm_loadu_ps(p1 + 8), w1));
    a0 = _mm_add_ps(a0, _mm_mul_ps(_mm_loadu_ps(p2), w2));
    a1 = _mm_add_ps(a1, _mm_mul_ps(_mm_loadu_ps(p2 + 4), w2));
    a2 = _mm_add_ps(a2, _mm_mul_ps(_mm_loadu_ps(p2 + 8), w2));
    r[0] = _mm_add_ps(a0, _mm_mul_ps(_mm_loadu_ps(p3), w3));
    r[1] = _mm_add_ps(a1, _mm_mul_ps(_mm_loadu_ps(p3 + 4), w3));
    r[2] = _mm_add_ps(a2, _mm_mul_ps(_mm_loadu_ps(p3 + 8), w3));
}

GPUSKIN__FAST_INLINE void gpuskin__fast_lbs_vertex(const gpuskin__fast_skin *f, const gpuskin__fast_group *g, int v,
                                                   __m128 norm, uint32_t sets, __m128 r[3])
{
    const char *lbs = (const char *)f->lbs;
    gpuskin__fast_lbs_set(lbs, &g->off[v][0], _mm_mul_ps(g->w[0][v], norm), 1, r);
    if (sets == 2) gpuskin__fast_lbs_set(lbs, &g->off[v][4], _mm_mul_ps(g->w[1][v], norm), 0, r);
}

/* Rows r[vertex][row] of four vertices -> m[row][col], lane = vertex. */
GPUSKIN__FAST_INLINE void gpuskin__fast_rows_to_soa(__m128 r[4][3], __m128 m[3][4])
{
    int row;
    for (row = 0; row < 3; ++row) {
        __m128 a = r[0][row], b = r[1][row], c = r[2][row], d = r[3][row];
        _MM_TRANSPOSE4_PS(a, b, c, d);
        m[row][0] = a; m[row][1] = b; m[row][2] = c; m[row][3] = d;
    }
}

/* ---- dual-quaternion blend ------------------------------------------------ */

/* Index of the first set bit of a 4-bit mask (mask != 0). */
static int gpuskin__fast_first_bit(int mask)
{
    static const signed char first[16] = {0, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0};
    return first[mask & 15];
}

/* One set of one vertex: the oracle's loop body of gpuskin__blend_dqs. p[] is the
   pivot's real part, each component in all lanes. */
GPUSKIN__FAST_INLINE void gpuskin__fast_dqs_set(const gpuskin__fast_skin *f, const uint32_t *off, __m128 wn, const __m128 p[4],
                                                int first, int residual, __m128 *real, __m128 *dual, __m128 s[3])
{
    const char *dq = (const char *)f->dq, *res = (const char *)f->res;
    const float *q0 = (const float *)(const void *)(dq + off[0]), *q1 = (const float *)(const void *)(dq + off[1]);
    const float *q2 = (const float *)(const void *)(dq + off[2]), *q3 = (const float *)(const void *)(dq + off[3]);
    const __m128 r0 = _mm_loadu_ps(q0), r1 = _mm_loadu_ps(q1), r2 = _mm_loadu_ps(q2), r3 = _mm_loadu_ps(q3);
    __m128 t0 = r0, t1 = r1, t2 = r2, t3 = r3, dots, ws, b0, b1, b2, b3, re, du;
    /* dot(pivot, real_k) for the four influences at once, in the oracle's order; the
       sign flips the influences on the far hemisphere (q and -q: one rotation). */
    _MM_TRANSPOSE4_PS(t0, t1, t2, t3);
    dots = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(p[0], t0), _mm_mul_ps(p[1], t1)), _mm_mul_ps(p[2], t2)),
                      _mm_mul_ps(p[3], t3));
    ws = _mm_xor_ps(wn, _mm_and_ps(_mm_cmplt_ps(dots, _mm_setzero_ps()), _mm_set1_ps(-0.0f)));
    b0 = GPUSKIN__FAST_BCAST(ws, 0); b1 = GPUSKIN__FAST_BCAST(ws, 1);
    b2 = GPUSKIN__FAST_BCAST(ws, 2); b3 = GPUSKIN__FAST_BCAST(ws, 3);
    re = _mm_mul_ps(r0, b0);
    du = _mm_mul_ps(_mm_loadu_ps(q0 + 4), b0);
    if (!first) {
        re = _mm_add_ps(*real, re);
        du = _mm_add_ps(*dual, du);
    }
    re = _mm_add_ps(re, _mm_mul_ps(r1, b1)); du = _mm_add_ps(du, _mm_mul_ps(_mm_loadu_ps(q1 + 4), b1));
    re = _mm_add_ps(re, _mm_mul_ps(r2, b2)); du = _mm_add_ps(du, _mm_mul_ps(_mm_loadu_ps(q2 + 4), b2));
    *real = _mm_add_ps(re, _mm_mul_ps(r3, b3));
    *dual = _mm_add_ps(du, _mm_mul_ps(_mm_loadu_ps(q3 + 4), b3));
    if (residual) {
        /* S is blended without the sign: a scale or shear has no antipode. An entry
           is 48 bytes where a dual quaternion is 32: offset * 3 / 2. */
        const float *s0 = (const float *)(const void *)(res + off[0] + off[0] / 2);
        const float *s1 = (const float *)(const void *)(res + off[1] + off[1] / 2);
        const float *s2 = (const float *)(const void *)(res + off[2] + off[2] / 2);
        const float *s3 = (const float *)(const void *)(res + off[3] + off[3] / 2);
        int row;
        b0 = GPUSKIN__FAST_BCAST(wn, 0); b1 = GPUSKIN__FAST_BCAST(wn, 1);
        b2 = GPUSKIN__FAST_BCAST(wn, 2); b3 = GPUSKIN__FAST_BCAST(wn, 3);
        for (row = 0; row < 3; ++row) {
            __m128 a = _mm_mul_ps(_mm_loadu_ps(s0 + 4 * row), b0);
            if (!first) a = _mm_add_ps(s[row], a);
            a = _mm_add_ps(a, _mm_mul_ps(_mm_loadu_ps(s1 + 4 * row), b1));
            a = _mm_add_ps(a, _mm_mul_ps(_mm_loadu_ps(s2 + 4 * row), b2));
            s[row] = _mm_add_ps(a, _mm_mul_ps(_mm_loadu_ps(s3 + 4 * row), b3));
        }
    }
}

/* One vertex up to its blended (real, dual, residual rows); the pivot is the highest
   weight, the first on a tie (the oracle's strict >). */
GPUSKIN__FAST_INLINE void gpuskin__fast_dqs_vertex(const gpuskin__fast_skin *f, const gpuskin__fast_group *g, int v,
                                                   __m128 norm, uint32_t sets, int residual, __m128 *real, __m128 *dual,
                                                   __m128 s[3])
{
    __m128 best = g->w[0][v], pr, p[4];
    int pivot, mask;
    if (sets == 2) best = _mm_max_ps(best, g->w[1][v]);
    best = _mm_max_ps(best, _mm_shuffle_ps(best, best, _MM_SHUFFLE(2, 3, 0, 1)));
    best = _mm_max_ps(best, _mm_shuffle_ps(best, best, _MM_SHUFFLE(1, 0, 3, 2)));
    if (!(_mm_cvtss_f32(best) > 0.0f)) { /* unweighted: the identity */
        *real = _mm_set_ps(1.0f, 0.0f, 0.0f, 0.0f);
        *dual = _mm_setzero_ps();
        s[0] = _mm_set_ps(0.0f, 0.0f, 0.0f, 1.0f);
        s[1] = _mm_set_ps(0.0f, 0.0f, 1.0f, 0.0f);
        s[2] = _mm_set_ps(0.0f, 1.0f, 0.0f, 0.0f);
        return;
    }
    mask = _mm_movemask_ps(_mm_cmpeq_ps(g->w[0][v], best));
    if (sets == 2) mask |= _mm_movemask_ps(_mm_cmpeq_ps(g->w[1][v], best)) << 4;
    pivot = (mask & 15) ? gpuskin__fast_first_bit(mask) : 4 + gpuskin__fast_first_bit(mask >> 4);
    pr = _mm_loadu_ps((const float *)(const void *)((const char *)f->dq + g->off[v][pivot]));
    p[0] = GPUSKIN__FAST_BCAST(pr, 0); p[1] = GPUSKIN__FAST_BCAST(pr, 1);
    p[2] = GPUSKIN__FAST_BCAST(pr, 2); p[3] = GPUSKIN__FAST_BCAST(pr, 3);
    gpuskin__fast_dqs_set(f, &g->off[v][0], _mm_mul_ps(g->w[0][v], norm), p, 1, residual, real, dual, s);
    if (sets == 2) gpuskin__fast_dqs_set(f, &g->off[v][4], _mm_mul_ps(g->w[1][v], norm), p, 0, residual, real, dual, s);
}

/* Blended (real, dual) of four vertices, SoA -> the 3x4 [R S | t] per lane, as the
   oracle: normalise (identity below 1e-12), remove the dual's part along real,
   t = 2 dual conj(real), R's columns by gpuskin_quat_rotate of the basis vectors
   (written out: rotating e_c leaves products by 0 and 1, all exact). */
GPUSKIN__FAST_INLINE void gpuskin__fast_dq_to_affine(__m128 real[4], __m128 dual[4], __m128 s[3][4], int residual,
                                                     __m128 m[3][4])
{
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f), two = _mm_set1_ps(2.0f);
    __m128 rx = real[0], ry = real[1], rz = real[2], rw = real[3];
    __m128 dx = dual[0], dy = dual[1], dz = dual[2], dw = dual[3];
    __m128 len2, big, inv, rd, x2, y2, z2, nx2, ny2, nz2, rot[3][3];
    int r, c;
    len2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(rx, rx), _mm_mul_ps(ry, ry)), _mm_mul_ps(rz, rz)), _mm_mul_ps(rw, rw));
    big = _mm_cmpge_ps(len2, _mm_set1_ps(1e-12f)); /* the oracle: identity when len2 < 1e-12 */
    inv = _mm_div_ps(one, _mm_sqrt_ps(len2));
    rx = _mm_mul_ps(rx, inv); ry = _mm_mul_ps(ry, inv); rz = _mm_mul_ps(rz, inv); rw = _mm_mul_ps(rw, inv);
    dx = _mm_mul_ps(dx, inv); dy = _mm_mul_ps(dy, inv); dz = _mm_mul_ps(dz, inv); dw = _mm_mul_ps(dw, inv);
    rd = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(rx, dx), _mm_mul_ps(ry, dy)), _mm_mul_ps(rz, dz)), _mm_mul_ps(rw, dw));
    dx = _mm_sub_ps(dx, _mm_mul_ps(rd, rx)); dy = _mm_sub_ps(dy, _mm_mul_ps(rd, ry));
    dz = _mm_sub_ps(dz, _mm_mul_ps(rd, rz)); dw = _mm_sub_ps(dw, _mm_mul_ps(rd, rw));
    rx = _mm_and_ps(big, rx); ry = _mm_and_ps(big, ry); rz = _mm_and_ps(big, rz);
    rw = _mm_or_ps(_mm_and_ps(big, rw), _mm_andnot_ps(big, one));
    dx = _mm_and_ps(big, dx); dy = _mm_and_ps(big, dy); dz = _mm_and_ps(big, dz); dw = _mm_and_ps(big, dw);
    /* t = 2 (w d.xyz - d.w r.xyz + r.xyz x d.xyz) */
    m[0][3] = _mm_mul_ps(two, _mm_add_ps(_mm_sub_ps(_mm_mul_ps(rw, dx), _mm_mul_ps(dw, rx)),
                                         _mm_sub_ps(_mm_mul_ps(ry, dz), _mm_mul_ps(rz, dy))));
    m[1][3] = _mm_mul_ps(two, _mm_add_ps(_mm_sub_ps(_mm_mul_ps(rw, dy), _mm_mul_ps(dw, ry)),
                                         _mm_sub_ps(_mm_mul_ps(rz, dx), _mm_mul_ps(rx, dz))));
    m[2][3] = _mm_mul_ps(two, _mm_add_ps(_mm_sub_ps(_mm_mul_ps(rw, dz), _mm_mul_ps(dw, rz)),
                                         _mm_sub_ps(_mm_mul_ps(rx, dy), _mm_mul_ps(ry, dx))));
    /* R column c = e_c + w u + q x u with u = 2 q x e_c */
    x2 = _mm_mul_ps(two, rx); y2 = _mm_mul_ps(two, ry); z2 = _mm_mul_ps(two, rz);
    nx2 = _mm_sub_ps(zero, x2); ny2 = _mm_sub_ps(zero, y2); nz2 = _mm_sub_ps(zero, z2);
    rot[0][0] = _mm_add_ps(one, _mm_sub_ps(_mm_mul_ps(ry, ny2), _mm_mul_ps(rz, z2)));
    rot[1][0] = _mm_add_ps(_mm_mul_ps(rw, z2), _mm_mul_ps(rx, y2));
    rot[2][0] = _mm_add_ps(_mm_mul_ps(rw, ny2), _mm_mul_ps(rx, z2));
    rot[0][1] = _mm_add_ps(_mm_mul_ps(rw, nz2), _mm_mul_ps(ry, x2));
    rot[1][1] = _mm_add_ps(one, _mm_sub_ps(_mm_mul_ps(rz, nz2), _mm_mul_ps(rx, x2)));
    rot[2][1] = _mm_add_ps(_mm_mul_ps(rw, x2), _mm_mul_ps(ry, z2));
    rot[0][2] = _mm_add_ps(_mm_mul_ps(rw, y2), _mm_mul_ps(rz, x2));
    rot[1][2] = _mm_add_ps(_mm_mul_ps(rw, nx2), _mm_mul_ps(rz, y2));
    rot[2][2] = _mm_add_ps(one, _mm_sub_ps(_mm_mul_ps(rx, nx2), _mm_mul_ps(ry, y2)));
    for (r = 0; r < 3; ++r)
        for (c = 0; c < 3; ++c) /* (R S)[r][c] = sum_k R[r][k] S[k][c]; S = I is R exactly */
            m[r][c] = residual ? _mm_add_ps(_mm_add_ps(_mm_mul_ps(rot[r][0], s[0][c]), _mm_mul_ps(rot[r][1], s[1][c])),
                                            _mm_mul_ps(rot[r][2], s[2][c]))
                               : rot[r][c];
}

/* ---- applying the blended transforms, four vertices at a time ----------- */

/* 1 / len where len > bar, else 1: the oracle's "normalise unless ~0". */
GPUSKIN__FAST_INLINE __m128 gpuskin__fast_inv_len(__m128 x, __m128 y, __m128 z, float bar)
{
    const __m128 len = _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(x, x), _mm_mul_ps(y, y)), _mm_mul_ps(z, z)));
    const __m128 big = _mm_cmpgt_ps(len, _mm_set1_ps(bar));
    const __m128 one = _mm_set1_ps(1.0f);
    return _mm_or_ps(_mm_and_ps(big, _mm_div_ps(one, len)), _mm_andnot_ps(big, one));
}

/* Positions, normals and tangents of vertices v0..v0+3 through m (SoA, lane = vertex). */
GPUSKIN__FAST_INLINE void gpuskin__fast_apply4(const gpuskin__fast_skin *f, size_t v0, __m128 m[3][4])
{
    __m128 x, y, z, o0, o1, o2, s;
    gpuskin__fast_load3x4(f->pos, f->pos_s, v0, f->n, &x, &y, &z);
    o0 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(m[0][0], x), _mm_mul_ps(m[0][1], y)), _mm_mul_ps(m[0][2], z)), m[0][3]);
    o1 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(m[1][0], x), _mm_mul_ps(m[1][1], y)), _mm_mul_ps(m[1][2], z)), m[1][3]);
    o2 = _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(m[2][0], x), _mm_mul_ps(m[2][1], y)), _mm_mul_ps(m[2][2], z)), m[2][3]);
    gpuskin__fast_store3x4(f->opos, f->opos_s, v0, o0, o1, o2);
    if (f->onrm) {
        /* n' = sign(det(A)) cofactor(A) n, A = the 3x3; A itself where det is ~0 or not finite */
        const __m128 a00 = m[0][0], a01 = m[0][1], a02 = m[0][2], a10 = m[1][0], a11 = m[1][1], a12 = m[1][2];
        const __m128 a20 = m[2][0], a21 = m[2][1], a22 = m[2][2];
        __m128 c00, c01, c02, c10, c11, c12, c20, c21, c22, d, ok, sgn;
        c00 = _mm_sub_ps(_mm_mul_ps(a11, a22), _mm_mul_ps(a12, a21));
        c01 = _mm_sub_ps(_mm_mul_ps(a12, a20), _mm_mul_ps(a10, a22));
        c02 = _mm_sub_ps(_mm_mul_ps(a10, a21), _mm_mul_ps(a11, a20));
        c10 = _mm_sub_ps(_mm_mul_ps(a02, a21), _mm_mul_ps(a01, a22));
        c11 = _mm_sub_ps(_mm_mul_ps(a00, a22), _mm_mul_ps(a02, a20));
        c12 = _mm_sub_ps(_mm_mul_ps(a01, a20), _mm_mul_ps(a00, a21));
        c20 = _mm_sub_ps(_mm_mul_ps(a01, a12), _mm_mul_ps(a02, a11));
        c21 = _mm_sub_ps(_mm_mul_ps(a02, a10), _mm_mul_ps(a00, a12));
        c22 = _mm_sub_ps(_mm_mul_ps(a00, a11), _mm_mul_ps(a01, a10));
        d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a00, c00), _mm_mul_ps(a01, c01)), _mm_mul_ps(a02, c02));
        ok = _mm_and_ps(_mm_cmpgt_ps(_mm_andnot_ps(_mm_set1_ps(-0.0f), d), _mm_set1_ps(1e-20f)),
                        _mm_cmpeq_ps(_mm_sub_ps(d, d), _mm_setzero_ps()));
        sgn = _mm_and_ps(d, _mm_set1_ps(-0.0f)); /* det's sign bit, flipped into the results */
        gpuskin__fast_load3x4(f->nrm, f->nrm_s, v0, f->n, &x, &y, &z);
        o0 = _mm_xor_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(c00, x), _mm_mul_ps(c01, y)), _mm_mul_ps(c02, z)), sgn);
        o1 = _mm_xor_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(c10, x), _mm_mul_ps(c11, y)), _mm_mul_ps(c12, z)), sgn);
        o2 = _mm_xor_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(c20, x), _mm_mul_ps(c21, y)), _mm_mul_ps(c22, z)), sgn);
        if (_mm_movemask_ps(ok) != 0xF) { /* rare: a singular lane takes A itself */
            const __m128 p0 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a00, x), _mm_mul_ps(a01, y)), _mm_mul_ps(a02, z));
            const __m128 p1 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a10, x), _mm_mul_ps(a11, y)), _mm_mul_ps(a12, z));
            const __m128 p2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(a20, x), _mm_mul_ps(a21, y)), _mm_mul_ps(a22, z));
            o0 = _mm_or_ps(_mm_and_ps(ok, o0), _mm_andnot_ps(ok, p0));
            o1 = _mm_or_ps(_mm_and_ps(ok, o1), _mm_andnot_ps(ok, p1));
            o2 = _mm_or_ps(_mm_and_ps(ok, o2), _mm_andnot_ps(ok, p2));
        }
        s = gpuskin__fast_inv_len(o0, o1, o2, 1e-18f);
        gpuskin__fast_store3x4(f->onrm, f->onrm_s, v0, _mm_mul_ps(o0, s), _mm_mul_ps(o1, s), _mm_mul_ps(o2, s));
    }
    if (f->otan) {
        /* tangents take A itself (they lie in the surface); w is copied */
        __m128 t0 = _mm_loadu_ps((const float *)(const void *)(f->tan + v0 * f->tan_s));
        __m128 t1 = _mm_loadu_ps((const float *)(const void *)(f->tan + (v0 + 1) * f->tan_s));
        __m128 t2 = _mm_loadu_ps((const float *)(const void *)(f->tan + (v0 + 2) * f->tan_s));
        __m128 t3 = _mm_loadu_ps((const float *)(const void *)(f->tan + (v0 + 3) * f->tan_s));
        _MM_TRANSPOSE4_PS(t0, t1, t2, t3);
        o0 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(m[0][0], t0), _mm_mul_ps(m[0][1], t1)), _mm_mul_ps(m[0][2], t2));
        o1 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(m[1][0], t0), _mm_mul_ps(m[1][1], t1)), _mm_mul_ps(m[1][2], t2));
        o2 = _mm_add_ps(_mm_add_ps(_mm_mul_ps(m[2][0], t0), _mm_mul_ps(m[2][1], t1)), _mm_mul_ps(m[2][2], t2));
        s = gpuskin__fast_inv_len(o0, o1, o2, 1e-12f);
        t0 = _mm_mul_ps(o0, s); t1 = _mm_mul_ps(o1, s); t2 = _mm_mul_ps(o2, s);
        _MM_TRANSPOSE4_PS(t0, t1, t2, t3);
        _mm_storeu_ps((float *)(void *)(f->otan + v0 * f->otan_s), t0);
        _mm_storeu_ps((float *)(void *)(f->otan + (v0 + 1) * f->otan_s), t1);
        _mm_storeu_ps((float *)(void *)(f->otan + (v0 + 2) * f->otan_s), t2);
        _mm_storeu_ps((float *)(void *)(f->otan + (v0 + 3) * f->otan_s), t3);
    }
}

/* ---- groups of four vertices ---------------------------------------------- */

GPUSKIN__FAST_INLINE void gpuskin__fast_group_lbs(const gpuskin__fast_skin *f, size_t v0, uint32_t sets)
{
    gpuskin__fast_group g;
    __m128 r[4][3], m[3][4], unit;
    gpuskin__fast_read_group(f, &g, v0, sets, 1);
    gpuskin__fast_lbs_vertex(f, &g, 0, GPUSKIN__FAST_BCAST(g.norm, 0), sets, r[0]);
    gpuskin__fast_lbs_vertex(f, &g, 1, GPUSKIN__FAST_BCAST(g.norm, 1), sets, r[1]);
    gpuskin__fast_lbs_vertex(f, &g, 2, GPUSKIN__FAST_BCAST(g.norm, 2), sets, r[2]);
    gpuskin__fast_lbs_vertex(f, &g, 3, GPUSKIN__FAST_BCAST(g.norm, 3), sets, r[3]);
    gpuskin__fast_rows_to_soa(r, m);
    /* An unweighted vertex blended to zeros; the oracle gives it the identity. */
    unit = _mm_andnot_ps(g.weighted, _mm_set1_ps(1.0f));
    m[0][0] = _mm_add_ps(m[0][0], unit);
    m[1][1] = _mm_add_ps(m[1][1], unit);
    m[2][2] = _mm_add_ps(m[2][2], unit);
    gpuskin__fast_apply4(f, v0, m);
}

GPUSKIN__FAST_INLINE void gpuskin__fast_group_dqs(const gpuskin__fast_skin *f, size_t v0, uint32_t sets, int residual)
{
    gpuskin__fast_group g;
    __m128 real[4], dual[4], r[4][3], s[3][4], m[3][4];
    gpuskin__fast_read_group(f, &g, v0, sets, 0);
    gpuskin__fast_dqs_vertex(f, &g, 0, GPUSKIN__FAST_BCAST(g.norm, 0), sets, residual, &real[0], &dual[0], r[0]);
    gpuskin__fast_dqs_vertex(f, &g, 1, GPUSKIN__FAST_BCAST(g.norm, 1), sets, residual, &real[1], &dual[1], r[1]);
    gpuskin__fast_dqs_vertex(f, &g, 2, GPUSKIN__FAST_BCAST(g.norm, 2), sets, residual, &real[2], &dual[2], r[2]);
    gpuskin__fast_dqs_vertex(f, &g, 3, GPUSKIN__FAST_BCAST(g.norm, 3), sets, residual, &real[3], &dual[3], r[3]);
    _MM_TRANSPOSE4_PS(real[0], real[1], real[2], real[3]);
    _MM_TRANSPOSE4_PS(dual[0], dual[1], dual[2], dual[3]);
    if (residual) gpuskin__fast_rows_to_soa(r, s);
    gpuskin__fast_dq_to_affine(real, dual, s, residual, m);
    gpuskin__fast_apply4(f, v0, m);
}

#ifdef GPUSKIN__FAST_AVX2
/* ---- LBS, eight vertices at a time (AVX2 + FMA) ------------------------------ */
/* Chosen at run time for LBS (with AVX-512F, only for a last group of eight: see
   the sixteen-lane form below). Per influence, rows 0-1 of the
   palette entry take one 256-bit fused multiply-add and row 2 one 128-bit one
   (SSE2 needs three loads, three multiplies and three adds); everything after the
   blend runs on eight vertices a register. Fused multiply-adds round once where
   the oracle rounds twice, so results differ from it (and from the SSE2 form) by
   an ulp or so: within what tests/test_fast.c allows, as any other fast path. */
/* (GPUSKIN__FAST_TRANSPOSE8 and gpuskin__fast_join: with the wide palette forms) */

/* One set of one vertex: w = its four weights times 1/sum, off = its four palette
   byte offsets. */
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_lbs_set8(const char *lbs, const uint32_t *off,
                                                                             const float *w, int first, __m256 *r01,
                                                                             __m128 *r2)
{
    const float *p0 = (const float *)(const void *)(lbs + off[0]), *p1 = (const float *)(const void *)(lbs + off[1]);
    const float *p2 = (const float *)(const void *)(lbs + off[2]), *p3 = (const float *)(const void *)(lbs + off[3]);
    __m256 b, a01;
    __m128 a2;
    b = _mm256_broadcast_ss(&w[0]);
    if (first) {
        a01 = _mm256_mul_ps(_mm256_loadu_ps(p0), b);
        a2 = _mm_mul_ps(_mm_loadu_ps(p0 + 8), _mm256_castps256_ps128(b));
    } else {
        a01 = _mm256_fmadd_ps(_mm256_loadu_ps(p0), b, *r01);
        a2 = _mm_fmadd_ps(_mm_loadu_ps(p0 + 8), _mm256_castps256_ps128(b), *r2);
    }
    b = _mm256_broadcast_ss(&w[1]);
    a01 = _mm256_fmadd_ps(_mm256_loadu_ps(p1), b, a01);
    a2 = _mm_fmadd_ps(_mm_loadu_ps(p1 + 8), _mm256_castps256_ps128(b), a2);
    b = _mm256_broadcast_ss(&w[2]);
    a01 = _mm256_fmadd_ps(_mm256_loadu_ps(p2), b, a01);
    a2 = _mm_fmadd_ps(_mm_loadu_ps(p2 + 8), _mm256_castps256_ps128(b), a2);
    b = _mm256_broadcast_ss(&w[3]);
    *r01 = _mm256_fmadd_ps(_mm256_loadu_ps(p3), b, a01);
    *r2 = _mm_fmadd_ps(_mm_loadu_ps(p3 + 8), _mm256_castps256_ps128(b), a2);
}

/* The influences of eight vertices, as gpuskin__fast_group's but read two vertices
   a register: row i of off and wn holds vertex i's four values, then vertex i+4's. */
typedef struct gpuskin__fast_group8 {
    uint32_t off[2][4][8]; /* [set][i]: palette byte offsets */
    float wn[2][4][8];     /* [set][i]: weights times 1/sum (0 where flushed) */
    __m256 weighted;       /* lane = vertex: all ones where some weight is non-zero */
} gpuskin__fast_group8;

/* Row i of one set: vertices i and i+4, whose weights are at wp + i ws and
   wp + (i+4) ws (joints likewise). Stores the offsets and the kept weights (not yet
   normalised); returns the weights. */
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 __m256 gpuskin__fast_read_row8(gpuskin__fast_group8 *g, uint32_t set, int i,
                                                                                const char *wp, size_t ws, const char *jp,
                                                                                size_t js, gpuskin_joint_type type,
                                                                                int line_a_joint)
{
    const __m256 sign = _mm256_set1_ps(-0.0f), min = _mm256_set1_ps(GPUSKIN__MIN_WEIGHT);
    const __m256 raw = gpuskin__fast_join(_mm_loadu_ps((const float *)(const void *)(wp + (size_t)i * ws)),
                                          _mm_loadu_ps((const float *)(const void *)(wp + (size_t)(i + 4) * ws)));
    const __m256 keep = _mm256_cmp_ps(_mm256_andnot_ps(sign, raw), min, _CMP_GE_OQ);
    const __m256 w = _mm256_and_ps(keep, raw);
    __m256i j = _mm256_inserti128_si256(_mm256_castsi128_si256(gpuskin__fast_joints_at(jp + (size_t)i * js, type)),
                                        gpuskin__fast_joints_at(jp + (size_t)(i + 4) * js, type), 1);
    j = _mm256_and_si256(_mm256_castps_si256(keep), j);
    j = line_a_joint ? _mm256_slli_epi32(j, 6)                                      /* j * 64 */
                     : _mm256_add_epi32(_mm256_slli_epi32(j, 5), _mm256_slli_epi32(j, 4)); /* j * 48 */
    _mm256_storeu_si256((__m256i *)(void *)g->off[set][i], j);
    _mm256_storeu_ps(g->wn[set][i], w);
    return w;
}

/* One set; w[k] = influence k of the eight vertices (lane = vertex). */
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_read_set8(const gpuskin__fast_skin *f,
                                                                              gpuskin__fast_group8 *g, size_t v0,
                                                                              uint32_t set, gpuskin_joint_type type,
                                                                              __m256 w[4])
{
    const size_t ws = f->wgt_s[set], js = f->jnt_s[set];
    const char *wp = f->wgt[set] + v0 * ws, *jp = f->jnt[set] + v0 * js;
    w[0] = gpuskin__fast_read_row8(g, set, 0, wp, ws, jp, js, type, f->lbs64 != NULL);
    w[1] = gpuskin__fast_read_row8(g, set, 1, wp, ws, jp, js, type, f->lbs64 != NULL);
    w[2] = gpuskin__fast_read_row8(g, set, 2, wp, ws, jp, js, type, f->lbs64 != NULL);
    w[3] = gpuskin__fast_read_row8(g, set, 3, wp, ws, jp, js, type, f->lbs64 != NULL);
    GPUSKIN__FAST_TRANSPOSE8(w[0], w[1], w[2], w[3]);
}

GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_read_group8(const gpuskin__fast_skin *f,
                                                                                gpuskin__fast_group8 *g, size_t v0,
                                                                                uint32_t sets, gpuskin_joint_type type)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    __m256 w[4], sum, norm, n0, n1, n2, n3;
    uint32_t set;
    /* the oracle's order: influence by influence, set by set */
    gpuskin__fast_read_set8(f, g, v0, 0, type, w);
    sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(w[0], w[1]), w[2]), w[3]);
    if (sets == 2) {
        gpuskin__fast_read_set8(f, g, v0, 1, type, w);
        sum = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(sum, w[0]), w[1]), w[2]), w[3]);
    }
    g->weighted = _mm256_cmp_ps(sum, _mm256_setzero_ps(), _CMP_GT_OQ);
    norm = _mm256_blendv_ps(one, _mm256_div_ps(one, sum), g->weighted);
    /* row i's 1/sum: vertex i's in the low half, vertex i+4's in the high one */
    n0 = _mm256_permute_ps(norm, _MM_SHUFFLE(0, 0, 0, 0));
    n1 = _mm256_permute_ps(norm, _MM_SHUFFLE(1, 1, 1, 1));
    n2 = _mm256_permute_ps(norm, _MM_SHUFFLE(2, 2, 2, 2));
    n3 = _mm256_permute_ps(norm, _MM_SHUFFLE(3, 3, 3, 3));
    for (set = 0; set < sets; ++set) {
        _mm256_storeu_ps(g->wn[set][0], _mm256_mul_ps(_mm256_loadu_ps(g->wn[set][0]), n0));
        _mm256_storeu_ps(g->wn[set][1], _mm256_mul_ps(_mm256_loadu_ps(g->wn[set][1]), n1));
        _mm256_storeu_ps(g->wn[set][2], _mm256_mul_ps(_mm256_loadu_ps(g->wn[set][2]), n2));
        _mm256_storeu_ps(g->wn[set][3], _mm256_mul_ps(_mm256_loadu_ps(g->wn[set][3]), n3));
    }
}

/* Vertex k (0..7) of the group. */
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_lbs_vertex8(const char *lbs, const gpuskin__fast_group8 *g,
                                                                                int k, uint32_t sets, __m256 *r01,
                                                                                __m128 *r2)
{
    const int row = k & 3, half = (k >> 2) * 4;
    gpuskin__fast_lbs_set8(lbs, &g->off[0][row][half], &g->wn[0][row][half], 1, r01, r2);
    if (sets == 2) gpuskin__fast_lbs_set8(lbs, &g->off[1][row][half], &g->wn[1][row][half], 0, r01, r2);
}

/* Vertices v0..v0+7 of a float[3] stream as x, y, z (lane = vertex). Packed: the
   low 128-bit lanes get vertices 0-3, the high ones 4-7, and each lane is
   deinterleaved as gpuskin__fast_load3x4 does. */
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_load3x8(const char *base, size_t stride, size_t v0,
                                                                            size_t n, __m256 *x, __m256 *y, __m256 *z)
{
    if (stride == 12) {
        const float *p = (const float *)(const void *)(base + v0 * 12);
        const __m256 a = gpuskin__fast_join(_mm_loadu_ps(p), _mm_loadu_ps(p + 12));
        const __m256 b = gpuskin__fast_join(_mm_loadu_ps(p + 4), _mm_loadu_ps(p + 16));
        const __m256 c = gpuskin__fast_join(_mm_loadu_ps(p + 8), _mm_loadu_ps(p + 20));
        const __m256 t0 = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 1, 3, 2));
        const __m256 t1 = _mm256_shuffle_ps(b, c, _MM_SHUFFLE(1, 0, 3, 2));
        *x = _mm256_shuffle_ps(a, t1, _MM_SHUFFLE(3, 0, 3, 0));
        *y = _mm256_shuffle_ps(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(0, 0, 1, 1)),
                               _mm256_shuffle_ps(b, c, _MM_SHUFFLE(2, 2, 3, 3)), _MM_SHUFFLE(2, 0, 2, 0));
        *z = _mm256_shuffle_ps(t0, c, _MM_SHUFFLE(3, 0, 2, 0));
    } else {
        __m128 x0, y0, z0, x1, y1, z1;
        gpuskin__fast_load3x4(base, stride, v0, n, &x0, &y0, &z0);
        gpuskin__fast_load3x4(base, stride, v0 + 4, n, &x1, &y1, &z1);
        *x = gpuskin__fast_join(x0, x1);
        *y = gpuskin__fast_join(y0, y1);
        *z = gpuskin__fast_join(z0, z1);
    }
}

GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_store3x8(char *base, size_t stride, size_t v0, __m256 x,
                                                                             __m256 y, __m256 z)
{
    if (stride == 12) { /* gpuskin__fast_store3x4's interleave, lane by lane */
        float *p = (float *)(void *)(base + v0 * 12);
        const __m256 xy01 = _mm256_unpacklo_ps(x, y), xy23 = _mm256_unpackhi_ps(x, y);
        const __m256 o0 = _mm256_shuffle_ps(xy01, _mm256_shuffle_ps(z, x, _MM_SHUFFLE(1, 1, 0, 0)), _MM_SHUFFLE(2, 0, 1, 0));
        const __m256 o1 = _mm256_shuffle_ps(_mm256_shuffle_ps(y, z, _MM_SHUFFLE(1, 1, 1, 1)), xy23, _MM_SHUFFLE(1, 0, 2, 0));
        const __m256 o2 = _mm256_shuffle_ps(_mm256_shuffle_ps(z, x, _MM_SHUFFLE(3, 3, 2, 2)),
                                            _mm256_shuffle_ps(y, z, _MM_SHUFFLE(3, 3, 3, 3)), _MM_SHUFFLE(2, 0, 2, 0));
        _mm_storeu_ps(p, _mm256_castps256_ps128(o0));
        _mm_storeu_ps(p + 4, _mm256_castps256_ps128(o1));
        _mm_storeu_ps(p + 8, _mm256_castps256_ps128(o2));
        _mm_storeu_ps(p + 12, _mm256_extractf128_ps(o0, 1));
        _mm_storeu_ps(p + 16, _mm256_extractf128_ps(o1, 1));
        _mm_storeu_ps(p + 20, _mm256_extractf128_ps(o2, 1));
    } else {
        gpuskin__fast_store3x4(base, stride, v0, _mm256_castps256_ps128(x), _mm256_castps256_ps128(y),
                               _mm256_castps256_ps128(z));
        gpuskin__fast_store3x4(base, stride, v0 + 4, _mm256_extractf128_ps(x, 1), _mm256_extractf128_ps(y, 1),
                               _mm256_extractf128_ps(z, 1));
    }
}

/* 1/sqrt(x) for x >= 1e-36: the hardware estimate (12 bits) and one Newton step
   (~23 bits), instead of a square root and a division; the few ulps it leaves are
   within what this form already differs from the oracle by. For x = inf (a vector
   longer than ~1.8e19, squared) 0, as the oracle's 1 / sqrt(x), where the Newton
   step would make inf x 0 = NaN. */
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 __m256 gpuskin__fast_rsqrt8(__m256 x)
{
    const __m256 r = _mm256_rsqrt_ps(x), inf = _mm256_castsi256_ps(_mm256_set1_epi32(0x7F800000));
    /* r (1.5 - 0.5 x r^2) */
    return _mm256_andnot_ps(_mm256_cmp_ps(x, inf, _CMP_EQ_OQ),
                            _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), r),
                                          _mm256_fnmadd_ps(_mm256_mul_ps(x, r), r, _mm256_set1_ps(3.0f))));
}

/* What gpuskin__fast_apply8 and gpuskin__fast_apply16 compute alike, written
   once for an intrinsic prefix P (_mm256, _mm512): the same products in the same
   order, so the eight- and sixteen-lane forms give the same bits. */
/* row r of the 3x4 m (registers by row and column) times the point (x, y, z, 1) */
#define GPUSKIN__FAST_POINT_ROW(P, m, r, x, y, z) \
    P##_fmadd_ps(m[r][0], x, P##_fmadd_ps(m[r][1], y, P##_fmadd_ps(m[r][2], z, m[r][3])))
/* r0 x + r1 y + r2 z */
#define GPUSKIN__FAST_LIN3(P, r0, r1, r2, x, y, z) P##_fmadd_ps(r0, x, P##_fmadd_ps(r1, y, P##_mul_ps(r2, z)))
/* Declares a00..a22 (the 3x3 part of m), its cofactors c00..c22 and its
   determinant d, registers of type T. */
#define GPUSKIN__FAST_COFACTORS(T, P, m)                                                                         \
    const T a00 = m[0][0], a01 = m[0][1], a02 = m[0][2], a10 = m[1][0], a11 = m[1][1], a12 = m[1][2];           \
    const T a20 = m[2][0], a21 = m[2][1], a22 = m[2][2];                                                        \
    const T c00 = P##_fmsub_ps(a11, a22, P##_mul_ps(a12, a21));                                                 \
    const T c01 = P##_fmsub_ps(a12, a20, P##_mul_ps(a10, a22));                                                 \
    const T c02 = P##_fmsub_ps(a10, a21, P##_mul_ps(a11, a20));                                                 \
    const T c10 = P##_fmsub_ps(a02, a21, P##_mul_ps(a01, a22));                                                 \
    const T c11 = P##_fmsub_ps(a00, a22, P##_mul_ps(a02, a20));                                                 \
    const T c12 = P##_fmsub_ps(a01, a20, P##_mul_ps(a00, a21));                                                 \
    const T c20 = P##_fmsub_ps(a01, a12, P##_mul_ps(a02, a11));                                                 \
    const T c21 = P##_fmsub_ps(a02, a10, P##_mul_ps(a00, a12));                                                 \
    const T c22 = P##_fmsub_ps(a00, a11, P##_mul_ps(a01, a10));                                                 \
    const T d = GPUSKIN__FAST_LIN3(P, a00, a01, a02, c00, c01, c02)

/* gpuskin__fast_apply4 for eight vertices. */
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_apply8(const gpuskin__fast_skin *f, size_t v0, __m256 m[3][4])
{
    __m256 x, y, z, o0, o1, o2;
    gpuskin__fast_load3x8(f->pos, f->pos_s, v0, f->n, &x, &y, &z);
    o0 = GPUSKIN__FAST_POINT_ROW(_mm256, m, 0, x, y, z);
    o1 = GPUSKIN__FAST_POINT_ROW(_mm256, m, 1, x, y, z);
    o2 = GPUSKIN__FAST_POINT_ROW(_mm256, m, 2, x, y, z);
    gpuskin__fast_store3x8(f->opos, f->opos_s, v0, o0, o1, o2);
    if (f->onrm) {
        /* as gpuskin__fast_apply4: sign(det(A)) cofactor(A) n, A itself where det is ~0 or not finite */
        GPUSKIN__FAST_COFACTORS(__m256, _mm256, m);
        const __m256 sign = _mm256_set1_ps(-0.0f), zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
        const __m256 ok = _mm256_and_ps(_mm256_cmp_ps(_mm256_andnot_ps(sign, d), _mm256_set1_ps(1e-20f), _CMP_GT_OQ),
                                        _mm256_cmp_ps(_mm256_sub_ps(d, d), zero, _CMP_EQ_OQ));
        const __m256 sgn = _mm256_and_ps(d, sign);
        __m256 len, big, s;
        gpuskin__fast_load3x8(f->nrm, f->nrm_s, v0, f->n, &x, &y, &z);
        o0 = _mm256_xor_ps(GPUSKIN__FAST_LIN3(_mm256, c00, c01, c02, x, y, z), sgn);
        o1 = _mm256_xor_ps(GPUSKIN__FAST_LIN3(_mm256, c10, c11, c12, x, y, z), sgn);
        o2 = _mm256_xor_ps(GPUSKIN__FAST_LIN3(_mm256, c20, c21, c22, x, y, z), sgn);
        if (_mm256_movemask_ps(ok) != 0xFF) { /* rare: a singular lane takes A itself */
            o0 = _mm256_blendv_ps(GPUSKIN__FAST_LIN3(_mm256, a00, a01, a02, x, y, z), o0, ok);
            o1 = _mm256_blendv_ps(GPUSKIN__FAST_LIN3(_mm256, a10, a11, a12, x, y, z), o1, ok);
            o2 = _mm256_blendv_ps(GPUSKIN__FAST_LIN3(_mm256, a20, a21, a22, x, y, z), o2, ok);
        }
        len = _mm256_fmadd_ps(o0, o0, _mm256_fmadd_ps(o1, o1, _mm256_mul_ps(o2, o2))); /* squared */
        big = _mm256_cmp_ps(len, _mm256_set1_ps(1e-36f), _CMP_GT_OQ);                   /* length > 1e-18 */
        s = _mm256_blendv_ps(one, gpuskin__fast_rsqrt8(len), big);
        gpuskin__fast_store3x8(f->onrm, f->onrm_s, v0, _mm256_mul_ps(o0, s), _mm256_mul_ps(o1, s), _mm256_mul_ps(o2, s));
    }
    if (f->otan) {
        /* as gpuskin__fast_apply4: A itself, renormalised unless ~0; w copied */
        const __m256 one = _mm256_set1_ps(1.0f);
        __m256 t0, t1, t2, t3, len, s;
        t0 = gpuskin__fast_join(_mm_loadu_ps((const float *)(const void *)(f->tan + v0 * f->tan_s)),
                                _mm_loadu_ps((const float *)(const void *)(f->tan + (v0 + 4) * f->tan_s)));
        t1 = gpuskin__fast_join(_mm_loadu_ps((const float *)(const void *)(f->tan + (v0 + 1) * f->tan_s)),
                                _mm_loadu_ps((const float *)(const void *)(f->tan + (v0 + 5) * f->tan_s)));
        t2 = gpuskin__fast_join(_mm_loadu_ps((const float *)(const void *)(f->tan + (v0 + 2) * f->tan_s)),
                                _mm_loadu_ps((const float *)(const void *)(f->tan + (v0 + 6) * f->tan_s)));
        t3 = gpuskin__fast_join(_mm_loadu_ps((const float *)(const void *)(f->tan + (v0 + 3) * f->tan_s)),
                                _mm_loadu_ps((const float *)(const void *)(f->tan + (v0 + 7) * f->tan_s)));
        GPUSKIN__FAST_TRANSPOSE8(t0, t1, t2, t3); /* x, y, z, w of the eight */
        o0 = GPUSKIN__FAST_LIN3(_mm256, m[0][0], m[0][1], m[0][2], t0, t1, t2);
        o1 = GPUSKIN__FAST_LIN3(_mm256, m[1][0], m[1][1], m[1][2], t0, t1, t2);
        o2 = GPUSKIN__FAST_LIN3(_mm256, m[2][0], m[2][1], m[2][2], t0, t1, t2);
        len = _mm256_fmadd_ps(o0, o0, _mm256_fmadd_ps(o1, o1, _mm256_mul_ps(o2, o2))); /* squared */
        s = _mm256_blendv_ps(one, gpuskin__fast_rsqrt8(len), _mm256_cmp_ps(len, _mm256_set1_ps(1e-24f), _CMP_GT_OQ));
        t0 = _mm256_mul_ps(o0, s);
        t1 = _mm256_mul_ps(o1, s);
        t2 = _mm256_mul_ps(o2, s);
        GPUSKIN__FAST_TRANSPOSE8(t0, t1, t2, t3); /* back to one vertex a half */
#define GPUSKIN__FAST_STORE_TAN2(i, t)                                                                           \
    _mm_storeu_ps((float *)(void *)(f->otan + (v0 + (i)) * f->otan_s), _mm256_castps256_ps128(t));                \
    _mm_storeu_ps((float *)(void *)(f->otan + (v0 + 4 + (i)) * f->otan_s), _mm256_extractf128_ps((t), 1))
        GPUSKIN__FAST_STORE_TAN2(0, t0);
        GPUSKIN__FAST_STORE_TAN2(1, t1);
        GPUSKIN__FAST_STORE_TAN2(2, t2);
        GPUSKIN__FAST_STORE_TAN2(3, t3);
#undef GPUSKIN__FAST_STORE_TAN2
    }
}

/* Groups of eight [v0, v1), v1 - v0 a multiple of 8; LBS. */
GPUSKIN__FAST_TARGET_AVX2 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_groups_lbs8_body(const gpuskin__fast_skin *f, size_t v0,
                                                                                     size_t v1, uint32_t sets,
                                                                                     gpuskin_joint_type type)
{
    const char *lbs = (const char *)(f->lbs64 ? f->lbs64 : f->lbs);
    size_t v;
    for (v = v0; v < v1; v += 8) {
        gpuskin__fast_group8 group, *g = &group;
        __m256 r01[8], m[3][4], unit;
        __m128 r2[8];
        /* An empty asm makes g opaque: without it GCC hoists the addresses the blend
           broadcasts from out of the loop and keeps them on the stack, a load each. */
        __asm__("" : "+r"(g));
        gpuskin__fast_read_group8(f, g, v, sets, type);
        gpuskin__fast_lbs_vertex8(lbs, g, 0, sets, &r01[0], &r2[0]);
        gpuskin__fast_lbs_vertex8(lbs, g, 1, sets, &r01[1], &r2[1]);
        gpuskin__fast_lbs_vertex8(lbs, g, 2, sets, &r01[2], &r2[2]);
        gpuskin__fast_lbs_vertex8(lbs, g, 3, sets, &r01[3], &r2[3]);
        gpuskin__fast_lbs_vertex8(lbs, g, 4, sets, &r01[4], &r2[4]);
        gpuskin__fast_lbs_vertex8(lbs, g, 5, sets, &r01[5], &r2[5]);
        gpuskin__fast_lbs_vertex8(lbs, g, 6, sets, &r01[6], &r2[6]);
        gpuskin__fast_lbs_vertex8(lbs, g, 7, sets, &r01[7], &r2[7]);
        /* rows of vertices i and i + 4 side by side, then transposed lane by lane:
           m[row][col], lanes 0-3 = vertices 0-3, lanes 4-7 = vertices 4-7 */
        m[0][0] = _mm256_permute2f128_ps(r01[0], r01[4], 0x20); /* row 0: the low halves */
        m[0][1] = _mm256_permute2f128_ps(r01[1], r01[5], 0x20);
        m[0][2] = _mm256_permute2f128_ps(r01[2], r01[6], 0x20);
        m[0][3] = _mm256_permute2f128_ps(r01[3], r01[7], 0x20);
        m[1][0] = _mm256_permute2f128_ps(r01[0], r01[4], 0x31); /* row 1: the high halves */
        m[1][1] = _mm256_permute2f128_ps(r01[1], r01[5], 0x31);
        m[1][2] = _mm256_permute2f128_ps(r01[2], r01[6], 0x31);
        m[1][3] = _mm256_permute2f128_ps(r01[3], r01[7], 0x31);
        m[2][0] = gpuskin__fast_join(r2[0], r2[4]);
        m[2][1] = gpuskin__fast_join(r2[1], r2[5]);
        m[2][2] = gpuskin__fast_join(r2[2], r2[6]);
        m[2][3] = gpuskin__fast_join(r2[3], r2[7]);
        GPUSKIN__FAST_TRANSPOSE8(m[0][0], m[0][1], m[0][2], m[0][3]);
        GPUSKIN__FAST_TRANSPOSE8(m[1][0], m[1][1], m[1][2], m[1][3]);
        GPUSKIN__FAST_TRANSPOSE8(m[2][0], m[2][1], m[2][2], m[2][3]);
        unit = _mm256_andnot_ps(g->weighted, _mm256_set1_ps(1.0f));
        m[0][0] = _mm256_add_ps(m[0][0], unit);
        m[1][1] = _mm256_add_ps(m[1][1], unit);
        m[2][2] = _mm256_add_ps(m[2][2], unit);
        gpuskin__fast_apply8(f, v, m);
    }
}

/* One loop per influence-set count and joint type, so both are constants in it. */
GPUSKIN__FAST_TARGET_AVX2 static void gpuskin__fast_groups_lbs8(const gpuskin__fast_skin *f, size_t v0, size_t v1)
{
    const gpuskin_joint_type t = f->joint_type;
    if (f->sets == 1 && t == GPUSKIN_JOINT_U16) gpuskin__fast_groups_lbs8_body(f, v0, v1, 1, GPUSKIN_JOINT_U16);
    else if (f->sets == 1 && t == GPUSKIN_JOINT_U8) gpuskin__fast_groups_lbs8_body(f, v0, v1, 1, GPUSKIN_JOINT_U8);
    else if (f->sets == 1) gpuskin__fast_groups_lbs8_body(f, v0, v1, 1, GPUSKIN_JOINT_U32);
    else if (t == GPUSKIN_JOINT_U16) gpuskin__fast_groups_lbs8_body(f, v0, v1, 2, GPUSKIN_JOINT_U16);
    else if (t == GPUSKIN_JOINT_U8) gpuskin__fast_groups_lbs8_body(f, v0, v1, 2, GPUSKIN_JOINT_U8);
    else gpuskin__fast_groups_lbs8_body(f, v0, v1, 2, GPUSKIN_JOINT_U32);
}

#ifdef GPUSKIN__FAST_AVX512
/* ---- LBS, sixteen vertices at a time (AVX-512F) ------------------------------ */
/* Chosen at run time for LBS where the CPU has AVX-512F (whole groups of
   sixteen; a last group of eight goes to the eight-lane form). On a Zen 4,
   before the palette copy, two influence sets and tangents measured no faster
   here than in the eight-lane form (up to ~5 % slower, near the noise), so this
   form took one set without tangents only; on a Zen 5 with the copy it ran two
   sets 1.39-1.50x the eight-lane form (positions + normals) and tangents
   1.34-1.50x (one or two sets), both forms in one process, and on the H200
   host's Xeon 1.28-1.42x and 1.26-1.44x (BENCHMARKS.md). Per
   influence, the whole palette entry (rows 0-2, 12 floats) is one
   masked 512-bit load (the mask keeps the last joint's load inside the palette)
   and one fused multiply-add whose weight is broadcast from memory, where the
   eight-lane form needs a broadcast and a 256-bit and a 128-bit load and
   multiply-add. The sixteen blended entries are transposed across 128-bit
   lanes, then within them; positions, cofactors and normals then run on sixteen
   vertices a register. The
   weights are transposed first (lane = vertex), so 1/sum is one division a
   group and the sums three additions. The same operations in the same order as the eight-lane form
   but for the reciprocal square root's estimate (14 bits here, 12 there, each
   refined by a Newton step), so the two differ from the oracle alike. Locally
   (2-vCPU Zen 4 VM, 50,000 vertices, k = 4, positions + normals) ~1.1x the
   eight-lane form. */
/* GCC 12: see the sixteen-lane palettes (_mm512_undefined_ps). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/* The influences of sixteen vertices (the blend broadcasts each weight from
   here, so the weights' layout costs it nothing). */
typedef struct gpuskin__fast_group16 {
    uint32_t off[2][16][4]; /* [set][vertex]: palette byte offsets */
    float wn[8][16];        /* [influence][vertex]: weights times 1/sum (0 where flushed) */
    __mmask16 weighted;  /* lane = vertex: some weight is non-zero */
} gpuskin__fast_group16;

/* Lookup tables of the 16-lane shuffles (vpermt2ps / vpermps indices). */
typedef struct gpuskin__fast_idx16 {
    int32_t wsplit[2][16];  /* [h]: influences 2h, 2h + 1 of the eight vertices of two registers */
    int32_t load[3][2][16]; /* [x/y/z][step]: float[3] x 16 -> x, y, z */
    int32_t store[3][2][16]; /* [register][step]: x, y, z -> float[3] x 16 */
} gpuskin__fast_idx16;

static void gpuskin__fast_idx16_init(gpuskin__fast_idx16 *t)
{
    int i, k, q;
    for (i = 0; i < 16; ++i) {
        for (q = 0; q < 2; ++q) t->wsplit[q][i] = (i & 4) * 4 + (i & 3) * 4 + 2 * q + i / 8;
        for (k = 0; k < 3; ++k) {
            const int e = 3 * i + k, g = 16 * k + i; /* element of component k; element i of register k */
            t->load[k][0][i] = e < 32 ? e : 0;
            t->load[k][1][i] = e < 32 ? i : e - 16;
            t->store[k][0][i] = g % 3 == 0 ? g / 3 : g % 3 == 1 ? 16 + g / 3 : 0;
            t->store[k][1][i] = g % 3 == 2 ? 16 + g / 3 : i;
        }
    }
}

#define GPUSKIN__FAST_IDX16(p) _mm512_loadu_si512((const void *)(p))

/* Four 128-bit values (four vertices' weights, joints or coordinates) as one
   register, a in the low lane. */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 __m512 gpuskin__fast_quad16(__m128 a, __m128 b, __m128 c, __m128 d)
{
    return _mm512_insertf32x4(_mm512_insertf32x4(_mm512_insertf32x4(_mm512_castps128_ps512(a), b, 1), c, 2), d, 3);
}

/* Vertices 4q..4q+3: stores the offsets; returns the kept weights (not yet
   normalised), vertex by vertex. */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 __m512 gpuskin__fast_read_quad16(uint32_t (*off)[4], int q,
                                                                                    const char *wp, size_t ws,
                                                                                    const char *jp, size_t js,
                                                                                    gpuskin_joint_type type,
                                                                                    int line_a_joint)
{
    const char *w = wp + (size_t)(4 * q) * ws, *j = jp + (size_t)(4 * q) * js;
    __m512 raw;
    __m512i jn;
    __mmask16 keep;
    if (ws == 16) raw = _mm512_loadu_ps((const void *)w);
    else
        raw = gpuskin__fast_quad16(_mm_loadu_ps((const float *)(const void *)w),
                                   _mm_loadu_ps((const float *)(const void *)(w + ws)),
                                   _mm_loadu_ps((const float *)(const void *)(w + 2 * ws)),
                                   _mm_loadu_ps((const float *)(const void *)(w + 3 * ws)));
    if (type == GPUSKIN_JOINT_U16 && js == 8) jn = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)j));
    else
        jn = _mm512_castps_si512(gpuskin__fast_quad16(_mm_castsi128_ps(gpuskin__fast_joints_at(j, type)),
                                                      _mm_castsi128_ps(gpuskin__fast_joints_at(j + js, type)),
                                                      _mm_castsi128_ps(gpuskin__fast_joints_at(j + 2 * js, type)),
                                                      _mm_castsi128_ps(gpuskin__fast_joints_at(j + 3 * js, type))));
    keep = _mm512_cmp_ps_mask(_mm512_abs_ps(raw), _mm512_set1_ps(GPUSKIN__MIN_WEIGHT), _CMP_GE_OQ);
    jn = _mm512_maskz_mov_epi32(keep, jn);
    jn = line_a_joint ? _mm512_slli_epi32(jn, 6)                                      /* j * 64 */
                      : _mm512_add_epi32(_mm512_slli_epi32(jn, 5), _mm512_slli_epi32(jn, 4)); /* j * 48 */
    _mm512_storeu_si512((void *)off[4 * q], jn);
    return _mm512_maskz_mov_ps(keep, raw);
}

/* One set's weights of sixteen vertices, kept (not yet normalised) and
   transposed: i[k] = influence k, lane = vertex; stores the set's offsets. */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_read_set16(const gpuskin__fast_skin *f,
                                                                                 const gpuskin__fast_idx16 *t,
                                                                                 gpuskin__fast_group16 *g, uint32_t set,
                                                                                 size_t v0, gpuskin_joint_type type,
                                                                                 __m512 i[4])
{
    const size_t ws = f->wgt_s[set], js = f->jnt_s[set];
    const char *wp = f->wgt[set] + v0 * ws, *jp = f->jnt[set] + v0 * js;
    /* (written out: GCC -O2 keeps short loops of vectors as loops, on the stack) */
    const __m512 w0 = gpuskin__fast_read_quad16(g->off[set], 0, wp, ws, jp, js, type, f->lbs64 != NULL);
    const __m512 w1 = gpuskin__fast_read_quad16(g->off[set], 1, wp, ws, jp, js, type, f->lbs64 != NULL);
    const __m512 w2 = gpuskin__fast_read_quad16(g->off[set], 2, wp, ws, jp, js, type, f->lbs64 != NULL);
    const __m512 w3 = gpuskin__fast_read_quad16(g->off[set], 3, wp, ws, jp, js, type, f->lbs64 != NULL);
    /* Influence by influence, lane = vertex: the weights transposed (eight
       shuffles), so the sums take three additions in the oracle's order and the
       normalised weights one multiplication a register. (Summed within each
       vertex's 128-bit lane and spread back, they took 23 shuffles a group; on
       Intel cores every 512-bit shuffle takes the one port that also does half
       the arithmetic; on a Zen 5 this form ran positions + normals 1.02-1.07x,
       the same bits, BENCHMARKS.md.) */
    const __m512 lo01 = _mm512_permutex2var_ps(w0, GPUSKIN__FAST_IDX16(t->wsplit[0]), w1); /* vertices 0-7 */
    const __m512 lo23 = _mm512_permutex2var_ps(w0, GPUSKIN__FAST_IDX16(t->wsplit[1]), w1);
    const __m512 hi01 = _mm512_permutex2var_ps(w2, GPUSKIN__FAST_IDX16(t->wsplit[0]), w3); /* vertices 8-15 */
    const __m512 hi23 = _mm512_permutex2var_ps(w2, GPUSKIN__FAST_IDX16(t->wsplit[1]), w3);
    i[0] = _mm512_shuffle_f32x4(lo01, hi01, _MM_SHUFFLE(1, 0, 1, 0));
    i[1] = _mm512_shuffle_f32x4(lo01, hi01, _MM_SHUFFLE(3, 2, 3, 2));
    i[2] = _mm512_shuffle_f32x4(lo23, hi23, _MM_SHUFFLE(1, 0, 1, 0));
    i[3] = _mm512_shuffle_f32x4(lo23, hi23, _MM_SHUFFLE(3, 2, 3, 2));
}

GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_read_group16(const gpuskin__fast_skin *f,
                                                                                   const gpuskin__fast_idx16 *t,
                                                                                   gpuskin__fast_group16 *g, size_t v0,
                                                                                   uint32_t sets, gpuskin_joint_type type)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    __m512 i[4], k[4], sum;
    /* the oracle's order: influence by influence, set by set */
    gpuskin__fast_read_set16(f, t, g, 0, v0, type, i);
    sum = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(i[0], i[1]), i[2]), i[3]);
    if (sets == 2) {
        gpuskin__fast_read_set16(f, t, g, 1, v0, type, k);
        sum = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(_mm512_add_ps(sum, k[0]), k[1]), k[2]), k[3]);
    }
    g->weighted = _mm512_cmp_ps_mask(sum, _mm512_setzero_ps(), _CMP_GT_OQ);
    sum = _mm512_mask_div_ps(one, g->weighted, one, sum);
    _mm512_storeu_ps(g->wn[0], _mm512_mul_ps(i[0], sum));
    _mm512_storeu_ps(g->wn[1], _mm512_mul_ps(i[1], sum));
    _mm512_storeu_ps(g->wn[2], _mm512_mul_ps(i[2], sum));
    _mm512_storeu_ps(g->wn[3], _mm512_mul_ps(i[3], sum));
    if (sets == 2) {
        _mm512_storeu_ps(g->wn[4], _mm512_mul_ps(k[0], sum));
        _mm512_storeu_ps(g->wn[5], _mm512_mul_ps(k[1], sum));
        _mm512_storeu_ps(g->wn[6], _mm512_mul_ps(k[2], sum));
        _mm512_storeu_ps(g->wn[7], _mm512_mul_ps(k[3], sum));
    }
}

/* One vertex's blended entry (rows 0-2 in floats 0-11): w = its four weights times
   1/sum, 16 floats apart, off = its four palette byte offsets. The mask keeps the load inside the
   entry (the last joint's ends the palette). */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 __m512 gpuskin__fast_lbs_set16(const char *lbs, const uint32_t *off,
                                                                                  const float *w)
{
    const __mmask16 rows = 0x0FFF;
    const __m512 e0 = _mm512_maskz_loadu_ps(rows, (const void *)(lbs + off[0]));
    const __m512 e1 = _mm512_maskz_loadu_ps(rows, (const void *)(lbs + off[1]));
    const __m512 e2 = _mm512_maskz_loadu_ps(rows, (const void *)(lbs + off[2]));
    const __m512 e3 = _mm512_maskz_loadu_ps(rows, (const void *)(lbs + off[3]));
    __m512 acc = _mm512_mul_ps(e0, _mm512_set1_ps(w[0]));
    acc = _mm512_fmadd_ps(e1, _mm512_set1_ps(w[16]), acc);
    acc = _mm512_fmadd_ps(e2, _mm512_set1_ps(w[32]), acc);
    return _mm512_fmadd_ps(e3, _mm512_set1_ps(w[48]), acc);
}

/* gpuskin__fast_lbs_set16's sum continued by a second set's four influences. */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 __m512 gpuskin__fast_lbs_more16(const char *lbs, const uint32_t *off,
                                                                                   const float *w, __m512 acc)
{
    const __mmask16 rows = 0x0FFF;
    acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(rows, (const void *)(lbs + off[0])), _mm512_set1_ps(w[0]), acc);
    acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(rows, (const void *)(lbs + off[1])), _mm512_set1_ps(w[16]), acc);
    acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(rows, (const void *)(lbs + off[2])), _mm512_set1_ps(w[32]), acc);
    return _mm512_fmadd_ps(_mm512_maskz_loadu_ps(rows, (const void *)(lbs + off[3])), _mm512_set1_ps(w[48]), acc);
}

/* Vertices v0..v0+15 of a float[3] stream as x, y, z (lane = vertex). */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_load3x16(const gpuskin__fast_idx16 *t, const char *base,
                                                                               size_t stride, size_t v0, size_t n,
                                                                               __m512 out[3])
{
    if (stride == 12) {
        const float *p = (const float *)(const void *)(base + v0 * 12);
        const __m512 a = _mm512_loadu_ps(p), b = _mm512_loadu_ps(p + 16), c = _mm512_loadu_ps(p + 32);
#define GPUSKIN__FAST_LOAD16(k)                                                                                 \
    out[k] = _mm512_permutex2var_ps(_mm512_permutex2var_ps(a, GPUSKIN__FAST_IDX16(t->load[k][0]), b),           \
                                    GPUSKIN__FAST_IDX16(t->load[k][1]), c)
        GPUSKIN__FAST_LOAD16(0);
        GPUSKIN__FAST_LOAD16(1);
        GPUSKIN__FAST_LOAD16(2);
#undef GPUSKIN__FAST_LOAD16
    } else {
        __m128 x[4], y[4], z[4];
        gpuskin__fast_load3x4(base, stride, v0, n, &x[0], &y[0], &z[0]);
        gpuskin__fast_load3x4(base, stride, v0 + 4, n, &x[1], &y[1], &z[1]);
        gpuskin__fast_load3x4(base, stride, v0 + 8, n, &x[2], &y[2], &z[2]);
        gpuskin__fast_load3x4(base, stride, v0 + 12, n, &x[3], &y[3], &z[3]);
        out[0] = gpuskin__fast_quad16(x[0], x[1], x[2], x[3]);
        out[1] = gpuskin__fast_quad16(y[0], y[1], y[2], y[3]);
        out[2] = gpuskin__fast_quad16(z[0], z[1], z[2], z[3]);
    }
}

GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_store3x16(const gpuskin__fast_idx16 *t, char *base,
                                                                                size_t stride, size_t v0, __m512 x, __m512 y,
                                                                                __m512 z)
{
    if (stride == 12) {
        float *p = (float *)(void *)(base + v0 * 12);
#define GPUSKIN__FAST_STORE16(k)                                                                                \
    _mm512_storeu_ps(p + 16 * (k), _mm512_permutex2var_ps(_mm512_permutex2var_ps(x, GPUSKIN__FAST_IDX16(t->store[k][0]), y), \
                                                          GPUSKIN__FAST_IDX16(t->store[k][1]), z))
        GPUSKIN__FAST_STORE16(0);
        GPUSKIN__FAST_STORE16(1);
        GPUSKIN__FAST_STORE16(2);
#undef GPUSKIN__FAST_STORE16
    } else {
        gpuskin__fast_store3x4(base, stride, v0, _mm512_castps512_ps128(x), _mm512_castps512_ps128(y),
                               _mm512_castps512_ps128(z));
        gpuskin__fast_store3x4(base, stride, v0 + 4, _mm512_extractf32x4_ps(x, 1), _mm512_extractf32x4_ps(y, 1),
                               _mm512_extractf32x4_ps(z, 1));
        gpuskin__fast_store3x4(base, stride, v0 + 8, _mm512_extractf32x4_ps(x, 2), _mm512_extractf32x4_ps(y, 2),
                               _mm512_extractf32x4_ps(z, 2));
        gpuskin__fast_store3x4(base, stride, v0 + 12, _mm512_extractf32x4_ps(x, 3), _mm512_extractf32x4_ps(y, 3),
                               _mm512_extractf32x4_ps(z, 3));
    }
}

/* AVX-512F has no float xor (that is AVX-512DQ). */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 __m512 gpuskin__fast_xor16(__m512 a, __m512 b)
{
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
}

/* gpuskin__fast_rsqrt8 with the 14-bit estimate (0 for x = inf too). */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 __m512 gpuskin__fast_rsqrt16(__m512 x)
{
    const __m512 r = _mm512_rsqrt14_ps(x), inf = _mm512_castsi512_ps(_mm512_set1_epi32(0x7F800000));
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, inf, _CMP_NEQ_UQ),
                               _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), r),
                                             _mm512_fnmadd_ps(_mm512_mul_ps(x, r), r, _mm512_set1_ps(3.0f))));
}

/* gpuskin__fast_apply8 for sixteen vertices. */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_apply16(const gpuskin__fast_skin *f,
                                                                              const gpuskin__fast_idx16 *t, size_t v0,
                                                                              __m512 m[3][4])
{
    __m512 p[3], o0, o1, o2;
    gpuskin__fast_load3x16(t, f->pos, f->pos_s, v0, f->n, p);
    o0 = GPUSKIN__FAST_POINT_ROW(_mm512, m, 0, p[0], p[1], p[2]);
    o1 = GPUSKIN__FAST_POINT_ROW(_mm512, m, 1, p[0], p[1], p[2]);
    o2 = GPUSKIN__FAST_POINT_ROW(_mm512, m, 2, p[0], p[1], p[2]);
    gpuskin__fast_store3x16(t, f->opos, f->opos_s, v0, o0, o1, o2);
    if (f->onrm) {
        /* as gpuskin__fast_apply8 */
        GPUSKIN__FAST_COFACTORS(__m512, _mm512, m);
        const __m512 sgn = _mm512_castsi512_ps(
            _mm512_and_si512(_mm512_castps_si512(d), _mm512_castps_si512(_mm512_set1_ps(-0.0f))));
        const __mmask16 ok = _mm512_cmp_ps_mask(_mm512_abs_ps(d), _mm512_set1_ps(1e-20f), _CMP_GT_OQ) &
                             _mm512_cmp_ps_mask(_mm512_sub_ps(d, d), _mm512_setzero_ps(), _CMP_EQ_OQ);
        __m512 n[3], len, s;
        gpuskin__fast_load3x16(t, f->nrm, f->nrm_s, v0, f->n, n);
        o0 = gpuskin__fast_xor16(GPUSKIN__FAST_LIN3(_mm512, c00, c01, c02, n[0], n[1], n[2]), sgn);
        o1 = gpuskin__fast_xor16(GPUSKIN__FAST_LIN3(_mm512, c10, c11, c12, n[0], n[1], n[2]), sgn);
        o2 = gpuskin__fast_xor16(GPUSKIN__FAST_LIN3(_mm512, c20, c21, c22, n[0], n[1], n[2]), sgn);
        if (ok != 0xFFFF) { /* rare: a singular lane takes A itself */
            o0 = _mm512_mask_blend_ps(ok, GPUSKIN__FAST_LIN3(_mm512, a00, a01, a02, n[0], n[1], n[2]), o0);
            o1 = _mm512_mask_blend_ps(ok, GPUSKIN__FAST_LIN3(_mm512, a10, a11, a12, n[0], n[1], n[2]), o1);
            o2 = _mm512_mask_blend_ps(ok, GPUSKIN__FAST_LIN3(_mm512, a20, a21, a22, n[0], n[1], n[2]), o2);
        }
        len = _mm512_fmadd_ps(o0, o0, _mm512_fmadd_ps(o1, o1, _mm512_mul_ps(o2, o2))); /* squared */
        s = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(len, _mm512_set1_ps(1e-36f), _CMP_GT_OQ), _mm512_set1_ps(1.0f),
                                 gpuskin__fast_rsqrt16(len)); /* length > 1e-18 */
        gpuskin__fast_store3x16(t, f->onrm, f->onrm_s, v0, _mm512_mul_ps(o0, s), _mm512_mul_ps(o1, s), _mm512_mul_ps(o2, s));
    }
    if (f->otan) {
        /* as gpuskin__fast_apply8: A itself, renormalised unless ~0; w copied.
           tv[i] lane q = vertex 4q + i, so the in-lane transposes give lane = vertex. */
        const char *tp = f->tan + v0 * f->tan_s;
        char *op = f->otan + v0 * f->otan_s;
        const size_t ts = f->tan_s, os = f->otan_s;
        __m512 tv[4], len, s;
        /* (written out: GCC -O2 keeps short loops of vectors as loops, on the stack) */
#define GPUSKIN__FAST_TAN_IN(i)                                                                                \
    tv[i] = gpuskin__fast_quad16(_mm_loadu_ps((const float *)(const void *)(tp + (size_t)(i) * ts)),             \
                                 _mm_loadu_ps((const float *)(const void *)(tp + (size_t)(4 + (i)) * ts)),       \
                                 _mm_loadu_ps((const float *)(const void *)(tp + (size_t)(8 + (i)) * ts)),       \
                                 _mm_loadu_ps((const float *)(const void *)(tp + (size_t)(12 + (i)) * ts)))
        GPUSKIN__FAST_TAN_IN(0);
        GPUSKIN__FAST_TAN_IN(1);
        GPUSKIN__FAST_TAN_IN(2);
        GPUSKIN__FAST_TAN_IN(3);
#undef GPUSKIN__FAST_TAN_IN
        GPUSKIN__FAST_TRANSPOSE4X(_mm512, tv[0], tv[1], tv[2], tv[3]); /* x, y, z, w of the sixteen */
        o0 = GPUSKIN__FAST_LIN3(_mm512, m[0][0], m[0][1], m[0][2], tv[0], tv[1], tv[2]);
        o1 = GPUSKIN__FAST_LIN3(_mm512, m[1][0], m[1][1], m[1][2], tv[0], tv[1], tv[2]);
        o2 = GPUSKIN__FAST_LIN3(_mm512, m[2][0], m[2][1], m[2][2], tv[0], tv[1], tv[2]);
        len = _mm512_fmadd_ps(o0, o0, _mm512_fmadd_ps(o1, o1, _mm512_mul_ps(o2, o2))); /* squared */
        s = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(len, _mm512_set1_ps(1e-24f), _CMP_GT_OQ), _mm512_set1_ps(1.0f),
                                 gpuskin__fast_rsqrt16(len)); /* length > 1e-12 */
        tv[0] = _mm512_mul_ps(o0, s);
        tv[1] = _mm512_mul_ps(o1, s);
        tv[2] = _mm512_mul_ps(o2, s);
        GPUSKIN__FAST_TRANSPOSE4X(_mm512, tv[0], tv[1], tv[2], tv[3]); /* back to one vertex a lane */
#define GPUSKIN__FAST_TAN_OUT(i)                                                                               \
    _mm_storeu_ps((float *)(void *)(op + (size_t)(i) * os), _mm512_castps512_ps128(tv[i]));                      \
    _mm_storeu_ps((float *)(void *)(op + (size_t)(4 + (i)) * os), _mm512_extractf32x4_ps(tv[i], 1));            \
    _mm_storeu_ps((float *)(void *)(op + (size_t)(8 + (i)) * os), _mm512_extractf32x4_ps(tv[i], 2));            \
    _mm_storeu_ps((float *)(void *)(op + (size_t)(12 + (i)) * os), _mm512_extractf32x4_ps(tv[i], 3))
        GPUSKIN__FAST_TAN_OUT(0);
        GPUSKIN__FAST_TAN_OUT(1);
        GPUSKIN__FAST_TAN_OUT(2);
        GPUSKIN__FAST_TAN_OUT(3);
#undef GPUSKIN__FAST_TAN_OUT
    }
}

/* Groups of sixteen [v0, v1), v1 - v0 a multiple of 16; LBS. */
GPUSKIN__FAST_TARGET_AVX512 GPUSKIN__FAST_INLINE_AVX2 void gpuskin__fast_groups_lbs16_body(const gpuskin__fast_skin *f,
                                                                                        const gpuskin__fast_idx16 *t,
                                                                                        size_t v0, size_t v1, uint32_t sets,
                                                                                        gpuskin_joint_type type)
{
    const char *lbs = (const char *)(f->lbs64 ? f->lbs64 : f->lbs);
    gpuskin__fast_group16 groups[2];
    size_t v;
    int cur = 0;
    gpuskin__fast_read_group16(f, t, &groups[0], v0, sets, type);
    for (v = v0; v < v1; v += 16, cur ^= 1) {
        gpuskin__fast_group16 *g = &groups[cur];
        __m512 r[16], m[3][4], u0, u1, u2, u3;
        /* as in gpuskin__fast_groups_lbs8_body */
        __asm__("" : "+r"(g));
        /* The next group's influences now: the blend below loads single offsets and
           weights from this group's, stored a whole iteration ago rather than just
           before (read in the same iteration, the form was ~5 % slower on a Zen 4). */
        if (v + 16 < v1) gpuskin__fast_read_group16(f, t, &groups[cur ^ 1], v + 16, sets, type);
        /* (written out, as in gpuskin__fast_read_group16) */
#define GPUSKIN__FAST_BLEND16(i)                                                                               \
    r[i] = gpuskin__fast_lbs_set16(lbs, g->off[0][i], &g->wn[0][i]);                                           \
    if (sets == 2) r[i] = gpuskin__fast_lbs_more16(lbs, g->off[1][i], &g->wn[4][i], r[i])
        GPUSKIN__FAST_BLEND16(0); GPUSKIN__FAST_BLEND16(1); GPUSKIN__FAST_BLEND16(2); GPUSKIN__FAST_BLEND16(3);
        GPUSKIN__FAST_BLEND16(4); GPUSKIN__FAST_BLEND16(5); GPUSKIN__FAST_BLEND16(6); GPUSKIN__FAST_BLEND16(7);
        GPUSKIN__FAST_BLEND16(8); GPUSKIN__FAST_BLEND16(9); GPUSKIN__FAST_BLEND16(10); GPUSKIN__FAST_BLEND16(11);
        GPUSKIN__FAST_BLEND16(12); GPUSKIN__FAST_BLEND16(13); GPUSKIN__FAST_BLEND16(14); GPUSKIN__FAST_BLEND16(15);
#undef GPUSKIN__FAST_BLEND16
        /* First the 128-bit lanes: m[row][i] lane q = row `row` of vertex 4q + i
           (7 shuffles for each i), */
#define GPUSKIN__FAST_LANES16(i)                                                                               \
    u0 = _mm512_shuffle_f32x4(r[i], r[4 + (i)], _MM_SHUFFLE(1, 0, 1, 0));                                      \
    u1 = _mm512_shuffle_f32x4(r[8 + (i)], r[12 + (i)], _MM_SHUFFLE(1, 0, 1, 0));                               \
    u2 = _mm512_shuffle_f32x4(r[i], r[4 + (i)], _MM_SHUFFLE(2, 2, 2, 2));                                      \
    u3 = _mm512_shuffle_f32x4(r[8 + (i)], r[12 + (i)], _MM_SHUFFLE(2, 2, 2, 2));                               \
    m[0][i] = _mm512_shuffle_f32x4(u0, u1, _MM_SHUFFLE(2, 0, 2, 0));                                           \
    m[1][i] = _mm512_shuffle_f32x4(u0, u1, _MM_SHUFFLE(3, 1, 3, 1));                                           \
    m[2][i] = _mm512_shuffle_f32x4(u2, u3, _MM_SHUFFLE(2, 0, 2, 0))
        GPUSKIN__FAST_LANES16(0);
        GPUSKIN__FAST_LANES16(1);
        GPUSKIN__FAST_LANES16(2);
        GPUSKIN__FAST_LANES16(3);
#undef GPUSKIN__FAST_LANES16
        /* then each row's lanes transposed across i: m[row][col] lane = vertex. In
           this order the in-lane transposes skip the entries' empty fourth lane:
           52 shuffles instead of 60. */
        GPUSKIN__FAST_TRANSPOSE4X(_mm512, m[0][0], m[0][1], m[0][2], m[0][3]);
        GPUSKIN__FAST_TRANSPOSE4X(_mm512, m[1][0], m[1][1], m[1][2], m[1][3]);
        GPUSKIN__FAST_TRANSPOSE4X(_mm512, m[2][0], m[2][1], m[2][2], m[2][3]);
        {
            const __mmask16 unit = (__mmask16)~g->weighted;
            const __m512 one = _mm512_set1_ps(1.0f);
            m[0][0] = _mm512_mask_add_ps(m[0][0], unit, m[0][0], one);
            m[1][1] = _mm512_mask_add_ps(m[1][1], unit, m[1][1], one);
            m[2][2] = _mm512_mask_add_ps(m[2][2], unit, m[2][2], one);
        }
        gpuskin__fast_apply16(f, t, v, m);
    }
}

/* One influence set, no tangents (see above). */
GPUSKIN__FAST_TARGET_AVX512 static void gpuskin__fast_groups_lbs16(const gpuskin__fast_skin *f, size_t v0, size_t v1)
{
    const gpuskin_joint_type t = f->joint_type;
    gpuskin__fast_idx16 idx;
    gpuskin__fast_idx16_init(&idx);
    if (f->sets == 1 && t == GPUSKIN_JOINT_U16) gpuskin__fast_groups_lbs16_body(f, &idx, v0, v1, 1, GPUSKIN_JOINT_U16);
    else if (f->sets == 1 && t == GPUSKIN_JOINT_U8) gpuskin__fast_groups_lbs16_body(f, &idx, v0, v1, 1, GPUSKIN_JOINT_U8);
    else if (f->sets == 1) gpuskin__fast_groups_lbs16_body(f, &idx, v0, v1, 1, GPUSKIN_JOINT_U32);
    else if (t == GPUSKIN_JOINT_U16) gpuskin__fast_groups_lbs16_body(f, &idx, v0, v1, 2, GPUSKIN_JOINT_U16);
    else if (t == GPUSKIN_JOINT_U8) gpuskin__fast_groups_lbs16_body(f, &idx, v0, v1, 2, GPUSKIN_JOINT_U8);
    else gpuskin__fast_groups_lbs16_body(f, &idx, v0, v1, 2, GPUSKIN_JOINT_U32);
}
#undef GPUSKIN__FAST_IDX16
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#endif /* GPUSKIN__FAST_AVX512 */
#undef GPUSKIN__FAST_COFACTORS
#undef GPUSKIN__FAST_LIN3
#undef GPUSKIN__FAST_POINT_ROW
#endif

/* Groups [v0, v1), v1 - v0 a multiple of 4; one loop per variant, so the set count
   and the residual flag are constants inside each. */
static void gpuskin__fast_groups(const gpuskin__fast_skin *f, size_t v0, size_t v1)
{
    size_t v;
#ifdef GPUSKIN__FAST_AVX512
    if (!f->dqs && v1 - v0 >= 16 && f->avx512) {
        const size_t v16 = v0 + ((v1 - v0) & ~(size_t)15);
        gpuskin__fast_groups_lbs16(f, v0, v16);
        v0 = v16;
    }
#endif
#ifdef GPUSKIN__FAST_AVX2
    if (!f->dqs && v1 - v0 >= 8 && f->avx2) {
        const size_t v8 = v0 + ((v1 - v0) & ~(size_t)7);
        gpuskin__fast_groups_lbs8(f, v0, v8);
        v0 = v8;
    }
#endif
    if (!f->dqs && f->sets == 1)
        for (v = v0; v < v1; v += 4) gpuskin__fast_group_lbs(f, v, 1);
    else if (!f->dqs)
        for (v = v0; v < v1; v += 4) gpuskin__fast_group_lbs(f, v, 2);
    else if (f->sets == 1 && !f->residual)
        for (v = v0; v < v1; v += 4) gpuskin__fast_group_dqs(f, v, 1, 0);
    else if (f->sets == 1)
        for (v = v0; v < v1; v += 4) gpuskin__fast_group_dqs(f, v, 1, 1);
    else if (!f->residual)
        for (v = v0; v < v1; v += 4) gpuskin__fast_group_dqs(f, v, 2, 0);
    else
        for (v = v0; v < v1; v += 4) gpuskin__fast_group_dqs(f, v, 2, 1);
}

/* The last 1..3 vertices: copied into a packed group of four (the spare vertices
   unweighted and at the origin), skinned like any group, the real ones copied out. */
static void gpuskin__fast_tail(const gpuskin__fast_skin *f, size_t v0)
{
    float pos[12], nrm[12], tan[16], wgt[2][16], opos[12], onrm[12], otan[16];
    uint32_t jnt[2][16];
    gpuskin__fast_skin t = *f;
    const size_t count = f->n - v0;
    size_t i;
    uint32_t set;
    memset(pos, 0, sizeof pos); memset(nrm, 0, sizeof nrm); memset(tan, 0, sizeof tan);
    memset(wgt, 0, sizeof wgt); memset(jnt, 0, sizeof jnt);
    for (i = 0; i < count; ++i) {
        memcpy(pos + 3 * i, f->pos + (v0 + i) * f->pos_s, 12);
        if (f->onrm) memcpy(nrm + 3 * i, f->nrm + (v0 + i) * f->nrm_s, 12);
        if (f->otan) memcpy(tan + 4 * i, f->tan + (v0 + i) * f->tan_s, 16);
        for (set = 0; set < f->sets; ++set) {
            memcpy(wgt[set] + 4 * i, f->wgt[set] + (v0 + i) * f->wgt_s[set], 16);
            _mm_storeu_si128((__m128i *)(void *)(jnt[set] + 4 * i), gpuskin__fast_joints(f, set, v0 + i));
        }
    }
    t.n = 4;
    t.joint_type = GPUSKIN_JOINT_U32;
    t.pos = (const char *)pos; t.pos_s = 12;
    t.nrm = (const char *)nrm; t.nrm_s = 12;
    t.tan = (const char *)tan; t.tan_s = 16;
    t.opos = (char *)opos; t.opos_s = 12;
    t.onrm = f->onrm ? (char *)onrm : NULL; t.onrm_s = 12;
    t.otan = f->otan ? (char *)otan : NULL; t.otan_s = 16;
    for (set = 0; set < 2; ++set) {
        t.jnt[set] = (const char *)jnt[set]; t.jnt_s[set] = 16;
        t.wgt[set] = (const char *)wgt[set]; t.wgt_s[set] = 16;
    }
    gpuskin__fast_groups(&t, 0, 4);
    for (i = 0; i < count; ++i) {
        memcpy(f->opos + (v0 + i) * f->opos_s, opos + 3 * i, 12);
        if (f->onrm) memcpy(f->onrm + (v0 + i) * f->onrm_s, onrm + 3 * i, 12);
        if (f->otan) memcpy(f->otan + (v0 + i) * f->otan_s, otan + 4 * i, 16);
    }
}

/* ---- validation ----------------------------------------------------------- */

/* Weights pass when 0 <= bits <= bits(1e37) as unsigned: non-negative, finite, and
   small enough that 8 of them cannot sum to infinity (-0 and negative denormals,
   which the oracle accepts as 0, are flagged: harmless). */
#define GPUSKIN__FAST_WEIGHT_BITS_MAX 0x7CF0BDC2 /* 1e37f */

#ifdef GPUSKIN__FAST_AVX2
/* The packed cases of the level-1 scans below, 256 bits a load; each returns how
   many elements it covered (whole iterations), the SSE2 loops do the rest. */
GPUSKIN__FAST_TARGET_AVX2 static size_t gpuskin__fast_scan_floats8(const float *p, size_t nf, float big, __m128 *acc)
{
    const __m256 k = _mm256_set1_ps(big);
    __m256 a = _mm256_setzero_ps();
    size_t i;
    for (i = 0; i + 32 <= nf; i += 32) {
        const __m256 x0 = _mm256_mul_ps(_mm256_loadu_ps(p + i), k), x1 = _mm256_mul_ps(_mm256_loadu_ps(p + i + 8), k);
        const __m256 x2 = _mm256_mul_ps(_mm256_loadu_ps(p + i + 16), k), x3 = _mm256_mul_ps(_mm256_loadu_ps(p + i + 24), k);
        a = _mm256_or_ps(a, _mm256_or_ps(_mm256_or_ps(_mm256_sub_ps(x0, x0), _mm256_sub_ps(x1, x1)),
                                         _mm256_or_ps(_mm256_sub_ps(x2, x2), _mm256_sub_ps(x3, x3))));
    }
    *acc = _mm_or_ps(*acc, _mm_or_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1)));
    return i;
}

/* Packed weights (16 B a vertex): count vertices, 8 an iteration. */
GPUSKIN__FAST_TARGET_AVX2 static size_t gpuskin__fast_scan_weights8(const char *p, size_t count, __m128i *acc)
{
    const __m256i flip = _mm256_set1_epi32((int)0x80000000u);
    const __m256i wmax = _mm256_xor_si256(_mm256_set1_epi32(GPUSKIN__FAST_WEIGHT_BITS_MAX), flip);
    __m256i a = _mm256_setzero_si256();
    size_t i;
#define GPUSKIN__FAST_WBAD8(k) \
    _mm256_cmpgt_epi32(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(p + 16 * i + 32 * (k))), flip), wmax)
    for (i = 0; i + 8 <= count; i += 8)
        a = _mm256_or_si256(a, _mm256_or_si256(_mm256_or_si256(GPUSKIN__FAST_WBAD8(0), GPUSKIN__FAST_WBAD8(1)),
                                               _mm256_or_si256(GPUSKIN__FAST_WBAD8(2), GPUSKIN__FAST_WBAD8(3))));
#undef GPUSKIN__FAST_WBAD8
    *acc = _mm_or_si128(*acc, _mm_or_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1)));
    return i;
}

/* Packed u16 joints (8 B a vertex): count vertices, 16 an iteration; lim as below. */
GPUSKIN__FAST_TARGET_AVX2 static size_t gpuskin__fast_scan_joints16_8(const char *p, size_t count, uint16_t lim, __m128i *acc)
{
    const __m256i l = _mm256_set1_epi16((short)lim);
    __m256i a = _mm256_setzero_si256();
    size_t i;
#define GPUSKIN__FAST_JBAD8(k) _mm256_subs_epu16(_mm256_loadu_si256((const __m256i *)(const void *)(p + 8 * i + 32 * (k))), l)
    for (i = 0; i + 16 <= count; i += 16)
        a = _mm256_or_si256(a, _mm256_or_si256(_mm256_or_si256(GPUSKIN__FAST_JBAD8(0), GPUSKIN__FAST_JBAD8(1)),
                                               _mm256_or_si256(GPUSKIN__FAST_JBAD8(2), GPUSKIN__FAST_JBAD8(3))));
#undef GPUSKIN__FAST_JBAD8
    *acc = _mm_or_si128(*acc, _mm_or_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1)));
    return i;
}
#endif

/* When the fast path need not check its outputs. LBS with every palette entry's 3x3
   part within 2^20 and its translation within 2^60, positions within 2^40, and
   normals and tangents within 2^16 cannot overflow, intermediates included (weights
   are renormalised, so a blended entry is no larger than the largest): a position
   is at most 3 x 2^60 + 2^60, a cofactor 2^41, the determinant 2^63, a normal
   before normalising 3 x 2^57 (its squared length 2^119), a tangent 3 x 2^36; float
   holds up to 2^128. The validation scan flags larger inputs (x * 2^(128 - bits)
   overflows exactly when |x| reaches 2^bits), and larger palette entries fail the
   test below; DQS, whose blend divides by a length, always checks. */
#define GPUSKIN__FAST_BIG_POSITION 3.0948501e26f  /* 2^88: flags |x| >= 2^40 */
#define GPUSKIN__FAST_BIG_DIRECTION 5.1922969e33f /* 2^112: flags |x| >= 2^16 */
/* y - y with y = x * big of `count` float[elem] elements from v0, OR'ed into *acc
   (0 bits while all are finite). x * big overflows for |x| above 2^128 / big, so
   a value that large is flagged too, as "suspect": the validator then finds it
   finite, and the caller learns that the inputs are large (see
   GPUSKIN__FAST_BIG_POSITION). Packed streams are scanned as one float array. */
static void gpuskin__fast_scan_floats(const char *base, size_t stride, size_t elem, size_t v0, size_t count, size_t n,
                                      int avx2, float big, __m128 *acc)
{
    const __m128 k = _mm_set1_ps(big);
    __m128 a = *acc;
    size_t i = 0;
    if (stride == elem * 4) {
        const float *p = (const float *)(const void *)(base + v0 * stride);
        size_t nf = count * elem;
        float tail[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#ifdef GPUSKIN__FAST_AVX2
        if (avx2) i = gpuskin__fast_scan_floats8(p, nf, big, &a);
#else
        (void)avx2;
#endif
        for (; i + 16 <= nf; i += 16) { /* four vectors an iteration: the loop costs less than the work */
            const __m128 x0 = _mm_mul_ps(_mm_loadu_ps(p + i), k), x1 = _mm_mul_ps(_mm_loadu_ps(p + i + 4), k);
            const __m128 x2 = _mm_mul_ps(_mm_loadu_ps(p + i + 8), k), x3 = _mm_mul_ps(_mm_loadu_ps(p + i + 12), k);
            a = _mm_or_ps(a, _mm_or_ps(_mm_or_ps(_mm_sub_ps(x0, x0), _mm_sub_ps(x1, x1)),
                                       _mm_or_ps(_mm_sub_ps(x2, x2), _mm_sub_ps(x3, x3))));
        }
        for (; i + 4 <= nf; i += 4) {
            const __m128 x = _mm_mul_ps(_mm_loadu_ps(p + i), k);
            a = _mm_or_ps(a, _mm_sub_ps(x, x));
        }
        if (i < nf) {
            __m128 x;
            memcpy(tail, p + i, (nf - i) * sizeof(float));
            x = _mm_mul_ps(_mm_loadu_ps(tail), k);
            a = _mm_or_ps(a, _mm_sub_ps(x, x));
        }
    } else {
        /* float[3] loads may carry a neighbour's 4th float: mask it off */
        const __m128 keep = elem == 4 ? _mm_castsi128_ps(_mm_set1_epi32(-1)) : _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
        for (i = 0; i < count; ++i) {
            const size_t v = v0 + i;
            const __m128 x = _mm_mul_ps(elem == 4 ? _mm_loadu_ps((const float *)(const void *)(base + v * stride))
                                                  : gpuskin__fast_load3(base, stride, v, n), k);
            a = _mm_or_ps(a, _mm_and_ps(keep, _mm_sub_ps(x, x)));
        }
    }
    *acc = a;
}

/* Level 1 for one stream of weights or joints, packed or not: OR-accumulates a
   non-zero into *bad when some weight is suspicious or some joint index, weighted or
   not, is >= joint_count. Flat over packed streams (2 vertices a load for u16). */
static void gpuskin__fast_scan_influences(const gpuskin__fast_skin *f, uint32_t set, size_t v0, size_t count, __m128i *bad)
{
    const __m128i flip = _mm_set1_epi32((int)0x80000000u);
    const __m128i wmax = _mm_xor_si128(_mm_set1_epi32(GPUSKIN__FAST_WEIGHT_BITS_MAX), flip);
    const uint32_t last = f->joint_count - 1;
    __m128i acc = *bad;
    size_t i = 0;
    if (f->wgt_s[set] == 16) {
        const char *p = f->wgt[set] + v0 * 16;
#define GPUSKIN__FAST_WBAD(k) _mm_cmpgt_epi32(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * (i + (k)))), flip), wmax)
#ifdef GPUSKIN__FAST_AVX2
        if (f->avx2) i = gpuskin__fast_scan_weights8(p, count, &acc);
#endif
        for (; i + 4 <= count; i += 4)
            acc = _mm_or_si128(acc, _mm_or_si128(_mm_or_si128(GPUSKIN__FAST_WBAD(0), GPUSKIN__FAST_WBAD(1)),
                                                 _mm_or_si128(GPUSKIN__FAST_WBAD(2), GPUSKIN__FAST_WBAD(3))));
        for (; i < count; ++i) acc = _mm_or_si128(acc, GPUSKIN__FAST_WBAD(0));
#undef GPUSKIN__FAST_WBAD
    } else {
        for (i = 0; i < count; ++i)
            acc = _mm_or_si128(acc, _mm_cmpgt_epi32(_mm_xor_si128(_mm_castps_si128(gpuskin__fast_weights(f, set, v0 + i)), flip), wmax));
    }
    if (f->joint_type == GPUSKIN_JOINT_U16 && f->jnt_s[set] == 8) {
        /* j > last as unsigned 16-bit: the saturating difference is non-zero */
        const __m128i lim = _mm_set1_epi16((short)(uint16_t)(last > 0xFFFFu ? 0xFFFFu : last));
        const char *p = f->jnt[set] + v0 * 8;
        unsigned char tail[16];
#define GPUSKIN__FAST_JBAD(k) _mm_subs_epu16(_mm_loadu_si128((const __m128i *)(const void *)(p + 8 * (i + (k)))), lim)
        i = 0;
#ifdef GPUSKIN__FAST_AVX2
        if (f->avx2) i = gpuskin__fast_scan_joints16_8(p, count, (uint16_t)(last > 0xFFFFu ? 0xFFFFu : last), &acc);
#endif
        for (; i + 8 <= count; i += 8)
            acc = _mm_or_si128(acc, _mm_or_si128(_mm_or_si128(GPUSKIN__FAST_JBAD(0), GPUSKIN__FAST_JBAD(2)),
                                                 _mm_or_si128(GPUSKIN__FAST_JBAD(4), GPUSKIN__FAST_JBAD(6))));
        for (; i + 2 <= count; i += 2) acc = _mm_or_si128(acc, GPUSKIN__FAST_JBAD(0));
#undef GPUSKIN__FAST_JBAD
        if (i < count) {
            memset(tail, 0, sizeof tail);
            memcpy(tail, p + 8 * i, 8);
            acc = _mm_or_si128(acc, _mm_subs_epu16(_mm_loadu_si128((const __m128i *)(const void *)tail), lim));
        }
    } else {
        const __m128i jmax = _mm_xor_si128(_mm_set1_epi32((int)last), flip);
        for (i = 0; i < count; ++i)
            acc = _mm_or_si128(acc, _mm_cmpgt_epi32(_mm_xor_si128(gpuskin__fast_joints(f, set, v0 + i), flip), jmax));
    }
    *bad = acc;
}

/* 1 if some vertex of [v0, v0 + count) may fail gpuskin_streams_validate. It may
   over-report, never under-report. Level 1 (precise = 0) reads every stream flat
   and counts any joint index out of range, weighted or not; level 2 (precise = 1)
   looks at one vertex at a time and ignores the indices of zero weights, which
   gpuskin.h allows to be garbage. */
static int gpuskin__fast_block_suspect(const gpuskin__fast_skin *f, const gpuskin_vertex_streams *s, size_t v0, size_t count,
                                       int precise)
{
    __m128 fin = _mm_setzero_ps();
    __m128i bad = _mm_setzero_si128();
    size_t i;
    uint32_t set;
    gpuskin__fast_scan_floats(f->pos, f->pos_s, 3, v0, count, f->n, f->avx2, GPUSKIN__FAST_BIG_POSITION, &fin);
    if (s->normals.data)
        gpuskin__fast_scan_floats(f->nrm, f->nrm_s, 3, v0, count, f->n, f->avx2, GPUSKIN__FAST_BIG_DIRECTION, &fin);
    if (s->tangents.data)
        gpuskin__fast_scan_floats(f->tan, f->tan_s, 4, v0, count, f->n, f->avx2, GPUSKIN__FAST_BIG_DIRECTION, &fin);
    for (set = 0; set < f->sets; ++set) {
        if (!precise) {
            gpuskin__fast_scan_influences(f, set, v0, count, &bad);
        } else {
            const __m128i flip = _mm_set1_epi32((int)0x80000000u);
            const __m128i wmax = _mm_xor_si128(_mm_set1_epi32(GPUSKIN__FAST_WEIGHT_BITS_MAX), flip);
            const __m128i jmax = _mm_xor_si128(_mm_set1_epi32((int)(f->joint_count - 1)), flip);
            for (i = 0; i < count; ++i) {
                const __m128 w = gpuskin__fast_weights(f, set, v0 + i);
                const __m128i weighted = _mm_castps_si128(_mm_cmpneq_ps(w, _mm_setzero_ps()));
                const __m128i j = _mm_xor_si128(gpuskin__fast_joints(f, set, v0 + i), flip);
                bad = _mm_or_si128(bad, _mm_cmpgt_epi32(_mm_xor_si128(_mm_castps_si128(w), flip), wmax));
                bad = _mm_or_si128(bad, _mm_and_si128(weighted, _mm_cmpgt_epi32(j, jmax)));
            }
        }
    }
    bad = _mm_or_si128(bad, _mm_castps_si128(fin));
    return _mm_movemask_epi8(_mm_cmpeq_epi32(bad, _mm_setzero_si128())) != 0xFFFF;
}

/* gpuskin_streams_validate's answer: a vectorised scan of blocks of 256 vertices
   (level 1); in a suspicious block, a precise one of each vertex (level 2); and the
   oracle's own validator on any vertex still suspicious (level 3), which gives the
   code. The first vertex that fails level 3 is the oracle's first bad vertex,
   since levels 1 and 2 can only over-report. */
static gpuskin_result gpuskin__fast_validate(const gpuskin__fast_skin *f, const gpuskin_vertex_streams *s, size_t *out_bad,
                                             int *out_large)
{
    const size_t block = 256;
    size_t b;
    for (b = 0; b < f->n; b += block) {
        const size_t count = f->n - b < block ? f->n - b : block;
        size_t v;
        if (!gpuskin__fast_block_suspect(f, s, b, count, 0)) continue;
        for (v = b; v < b + count; ++v) {
            if (!gpuskin__fast_block_suspect(f, s, v, 1, 1)) continue; /* level 2: this vertex is fine */
            gpuskin_vertex_streams one = *s;
            gpuskin_result r;
            uint32_t set;
            one.vertex_count = 1;
            one.positions.data = f->pos + v * f->pos_s;
            if (s->normals.data) one.normals.data = f->nrm + v * f->nrm_s;
            if (s->tangents.data) one.tangents.data = f->tan + v * f->tan_s;
            for (set = 0; set < f->sets; ++set) {
                one.joints[set].data = f->jnt[set] + v * f->jnt_s[set];
                one.weights[set].data = f->wgt[set] + v * f->wgt_s[set];
            }
            r = gpuskin_streams_validate(&one, f->joint_count, NULL);
            if (r != GPUSKIN_SUCCESS) {
                if (out_bad) *out_bad = v;
                return r;
            }
            *out_large = 1; /* valid but suspect: large values (or a level-2 false alarm) */
        }
    }
    return GPUSKIN_SUCCESS;
}

static int gpuskin__fast_lbs_small(const float *lbs, uint32_t joints)
{
    size_t i;
    for (i = 0; i < (size_t)joints * 12; ++i) {
        const float x = lbs[i] < 0.0f ? -lbs[i] : lbs[i];
        if (!(x <= ((i & 3) == 3 ? 1.1529215e18f : 1048576.0f))) return 0; /* 2^60, 2^20 */
    }
    return 1;
}

/* The oracle's last check, made after the fact (for DQS, and LBS with large
   inputs): the first of n vertices of an output stream (comps floats at each
   stride) holding NaN or infinity, or n. Finite inputs can still overflow (a
   palette entry of 1e30 times a position of 1e10); the oracle stops at the first
   such vertex, and the same index must come back here. The validation's level-1
   scan (a factor of 1: finiteness only) passes blocks of 256 vertices; a block it
   flags is looked at vertex by vertex. */
static size_t gpuskin__fast_first_non_finite(const gpuskin__fast_skin *f, const char *p, size_t stride, size_t n,
                                             uint32_t comps)
{
    const size_t block = 256;
    size_t b, v;
    for (b = 0; b < n; b += block) {
        const size_t count = n - b < block ? n - b : block;
        __m128 acc = _mm_setzero_ps();
        gpuskin__fast_scan_floats(p, stride, comps, b, count, n, f->avx2, 1.0f, &acc);
        if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_castps_si128(acc), _mm_setzero_si128())) == 0xFFFF) continue;
        for (v = b; v < b + count; ++v) { /* a record may sit at any byte: copied out */
            float x[4];
            memcpy(x, p + v * stride, comps * sizeof(float));
            if (!gpuskin__all_finite(x, comps)) return v;
        }
    }
    return n;
}

#endif /* GPUSKIN__FAST_SSE2 */

GPUSKIN_API gpuskin_result gpuskin_skin_cpu_fast(const gpuskin_cpu_skin_desc *desc)
{
#ifndef GPUSKIN__FAST_SSE2
    return gpuskin_skin_cpu(desc);
#else
    const gpuskin_vertex_streams *s;
    gpuskin__fast_skin f;
    uint32_t method, set;
    size_t n, jsize;
    int large = 0;
#ifdef GPUSKIN__FAST_AVX2
    float lbs64_block[GPUSKIN_FAST_COPY_JOINTS * 16 + 16];
    const uint32_t copy_limit = GPUSKIN_FAST_COPY_JOINTS; /* a variable: no "always false" warning for 0 */
#endif
    /* Every check of gpuskin_skin_cpu and gpuskin_streams_validate, in their order. */
    if (!desc) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (desc->out_error_index) *desc->out_error_index = 0;
    s = &desc->streams;
    method = desc->method_word & GPUSKIN_METHOD_ID_MASK;
    f.residual = (desc->method_word & GPUSKIN_METHOD_RESIDUAL_BIT) != 0;
    if (!gpuskin__method_word_valid(desc->method_word)) return GPUSKIN_ERROR_INVALID_METHOD;
    if (desc->palette_joint_count && desc->palette_joint_count != desc->joint_count) return GPUSKIN_ERROR_PALETTE_SIZE;
    n = s->vertex_count;
    if (n == 0 || desc->joint_count == 0 || desc->joint_count > GPUSKIN_MAX_JOINTS) return GPUSKIN_ERROR_INVALID_COUNT;
    if (s->influence_sets > 2) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    if (s->joint_type != GPUSKIN_JOINT_U16 && s->joint_type != GPUSKIN_JOINT_U8 && s->joint_type != GPUSKIN_JOINT_U32)
        return GPUSKIN_ERROR_INVALID_ARGUMENT;
    f.sets = gpuskin__sets(s);
    jsize = gpuskin__joint_size(s->joint_type);
    GPUSKIN__TRY(gpuskin__check_stream(s->positions.data, s->positions.stride, 12, n));
    if (s->normals.data) GPUSKIN__TRY(gpuskin__check_stream(s->normals.data, s->normals.stride, 12, n));
    if (s->tangents.data) GPUSKIN__TRY(gpuskin__check_stream(s->tangents.data, s->tangents.stride, 16, n));
    for (set = 0; set < f.sets; ++set) {
        GPUSKIN__TRY(gpuskin__check_stream(s->joints[set].data, s->joints[set].stride, 4 * jsize, n));
        GPUSKIN__TRY(gpuskin__check_stream(s->weights[set].data, s->weights[set].stride, 16, n));
    }
    f.n = n;
#ifdef GPUSKIN__FAST_AVX2
    f.avx2 = gpuskin__fast_cpu_has_avx2_fma();
#else
    f.avx2 = 0;
#endif
#ifdef GPUSKIN__FAST_AVX512
    f.avx512 = f.avx2 && gpuskin__fast_cpu_has_avx512();
#else
    f.avx512 = 0;
#endif
    f.joint_count = desc->joint_count;
    f.joint_type = s->joint_type;
    f.pos = (const char *)s->positions.data;
    f.pos_s = s->positions.stride ? s->positions.stride : 12;
    f.nrm = (const char *)s->normals.data;
    f.nrm_s = s->normals.stride ? s->normals.stride : 12;
    f.tan = (const char *)s->tangents.data;
    f.tan_s = s->tangents.stride ? s->tangents.stride : 16;
    for (set = 0; set < 2; ++set) {
        f.jnt[set] = set < f.sets ? (const char *)s->joints[set].data : NULL;
        f.jnt_s[set] = s->joints[set].stride ? s->joints[set].stride : 4 * jsize;
        f.wgt[set] = set < f.sets ? (const char *)s->weights[set].data : NULL;
        f.wgt_s[set] = s->weights[set].stride ? s->weights[set].stride : 16;
    }
    GPUSKIN__TRY(gpuskin__fast_validate(&f, s, desc->out_error_index, &large));
    f.dqs = method == GPUSKIN_METHOD_DQS;
    if (!f.dqs) {
        GPUSKIN__TRY(gpuskin__check_palette(desc->lbs_palette, desc->joint_count, GPUSKIN_LBS_FLOATS_PER_JOINT));
    } else {
        GPUSKIN__TRY(gpuskin__check_palette(desc->dq_palette, desc->joint_count, GPUSKIN_DQ_FLOATS_PER_JOINT));
        if (f.residual)
            GPUSKIN__TRY(gpuskin__check_palette(desc->residual_palette, desc->joint_count, GPUSKIN_RESIDUAL_FLOATS_PER_JOINT));
    }
    f.lbs = desc->lbs_palette;
    f.dq = desc->dq_palette;
    f.res = desc->residual_palette;
    GPUSKIN__TRY(gpuskin__check_stream(desc->out_positions.data, desc->out_positions.stride, 12, n));
    f.opos = (char *)desc->out_positions.data;
    f.opos_s = desc->out_positions.stride ? desc->out_positions.stride : 12;
    f.onrm = s->normals.data && desc->out_normals.data ? (char *)desc->out_normals.data : NULL;
    f.onrm_s = desc->out_normals.stride ? desc->out_normals.stride : 12;
    f.otan = s->tangents.data && desc->out_tangents.data ? (char *)desc->out_tangents.data : NULL;
    f.otan_s = desc->out_tangents.stride ? desc->out_tangents.stride : 16;
    if (f.onrm) GPUSKIN__TRY(gpuskin__check_stream(f.onrm, desc->out_normals.stride, 12, n));
    if (f.otan) GPUSKIN__TRY(gpuskin__check_stream(f.otan, desc->out_tangents.stride, 16, n));
    f.lbs64 = NULL;
#ifdef GPUSKIN__FAST_AVX2
    if (!f.dqs && f.avx2 && f.joint_count <= copy_limit && n >= 4 * (size_t)f.joint_count)
        f.lbs64 = gpuskin__fast_pad_lbs(f.lbs, f.joint_count, lbs64_block);
#endif
    gpuskin__fast_groups(&f, 0, n & ~(size_t)3);
    if (n & 3) gpuskin__fast_tail(&f, n & ~(size_t)3);
    if (f.dqs || large || !gpuskin__fast_lbs_small(f.lbs, f.joint_count)) {
        /* the oracle's per-vertex output check: the first vertex any stream fails at */
        size_t bad = gpuskin__fast_first_non_finite(&f, f.opos, f.opos_s, n, 3);
        if (f.onrm) bad = gpuskin__fast_first_non_finite(&f, f.onrm, f.onrm_s, bad, 3);
        if (f.otan) bad = gpuskin__fast_first_non_finite(&f, f.otan, f.otan_s, bad, 4);
        if (bad < n) {
            if (desc->out_error_index) *desc->out_error_index = bad;
            return GPUSKIN_ERROR_NON_FINITE;
        }
    }
    return GPUSKIN_SUCCESS;
#endif
}

#ifdef __cplusplus
}
#endif


#ifndef GPUSKIN_NO_VULKAN
/* ---- the Vulkan runtime -------------------------------------------------------

   It uses the core's packing and validation, GPUSKIN_MALLOC/GPUSKIN_FREE/
   GPUSKIN_ASSERT, and the SPIR-V in gpuskin_shaders.h.

   Every Vulkan call goes through the table in gpuskin_context, filled from the
   host's vkGetInstanceProcAddr/vkGetDeviceProcAddr or volk device table: a
   library inside someone else's renderer never calls a global vk* symbol.

   GPU MEMORY LAYOUT (what the shaders in gpuskin_skin.glsl read)
   ----------------------------------------------------------------
   Mesh: one GPUSKIN_MEMORY_STATIC buffer, streams one after the other (structure
   of arrays, each start 16-byte aligned), then the indices:
       positions  float[3]                       12 B/vertex
       normals    float[3]   if the mesh has them 12 B/vertex
       tangents   float[4]   if the mesh has them 16 B/vertex
       joints     2 uint a set: four 16-bit indices, j0 | j1 << 16, j2 | j3 << 16
                                                   8 B/vertex/set
       weights    float[4] a set, raw as given    16 B/vertex/set
       indices    uint16 when vertex_count <= 65536, else uint32
   so 36 B/vertex for positions and one set, 48 with normals, 64 with tangents
   too, +24 for a second set. Joints of zero (or denormal) weight influences are
   stored as 0, so the GPU never indexes out of the palette whatever the file
   held there.

   Crowd: one GPUSKIN_MEMORY_UPLOAD buffer per frame slot:
       header     gpuskin__vk_frame_header (the gpuskin_Frame of the GLSL): the
                  addresses of every stream and array below, and the counts;
                  written once at creation, so a draw or dispatch pushes a
                  single address for all of them
       methods    uint per instance
       order      uint per instance: the instance list, the slot's LBS instances
                  then its DQS ones, each in instance order (kernel 3's rows);
                  rewritten by an upload that turns an instance LBS or DQS; not
                  in the gpuskin_Frame header (the shaders of hosts never read it)
       lbs        3 vec4 per instance-joint (48 B): rows of the 3x4 affine
       dq         2 vec4 per instance-joint (32 B): real, dual
       residual   3 vec4 per instance-joint (48 B): rows of S, w = 0 except
                  row 1's, which repeats S22 (the triangular and symmetric
                  kernels' blends read rows 0 and 1 only: one load an
                  influence fewer)
   Instance i's slice of each array starts at i * joint_count, so a slot
   reserves 128 B per instance-joint (+8 B per instance) while an upload writes
   only what the instance's method reads: 48 B/joint for LBS, 32 for rigid DQS,
   80 for DQS with the residual. Three arrays rather than one interleaved record
   keep what a method reads dense in cache. */

#include "gpuskin_shaders.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPUSKIN__VK_ZERO(x) memset(&(x), 0, sizeof(x))
#define GPUSKIN__VK_STATIC_ASSERT(cond, name) typedef char gpuskin__vk_static_assert_##name[(cond) ? 1 : -1]

/* ---- Function table ------------------------------------------------------- */

#define GPUSKIN__VK_INSTANCE_FUNCS(X)                                                                               \
    X(vkGetPhysicalDeviceProperties)                                                                                \
    X(vkGetPhysicalDeviceMemoryProperties)                                                                          \
    X(vkEnumerateDeviceExtensionProperties)

#define GPUSKIN__VK_DEVICE_FUNCS(X)                                                                                 \
    X(vkCreateBuffer)                                                                                               \
    X(vkDestroyBuffer)                                                                                              \
    X(vkGetBufferMemoryRequirements)                                                                                \
    X(vkAllocateMemory)                                                                                             \
    X(vkFreeMemory)                                                                                                 \
    X(vkBindBufferMemory)                                                                                           \
    X(vkMapMemory)                                                                                                  \
    X(vkGetBufferDeviceAddress)                                                                                     \
    X(vkCreateShaderModule)                                                                                         \
    X(vkDestroyShaderModule)                                                                                        \
    X(vkCreatePipelineLayout)                                                                                       \
    X(vkDestroyPipelineLayout)                                                                                      \
    X(vkCreateComputePipelines)                                                                                     \
    X(vkCreateGraphicsPipelines)                                                                                    \
    X(vkDestroyPipeline)                                                                                            \
    X(vkCmdBindPipeline)                                                                                            \
    X(vkCmdPushConstants)                                                                                           \
    X(vkCmdDispatch)                                                                                                \
    X(vkCmdBindIndexBuffer)                                                                                         \
    X(vkCmdDrawIndexed)                                                                                             \
    X(vkCmdCopyBuffer)                                                                                              \
    X(vkCmdPipelineBarrier)

#define GPUSKIN__VK_DECLARE(name) PFN_##name name;
typedef struct gpuskin__vk_functions {
    GPUSKIN__VK_INSTANCE_FUNCS(GPUSKIN__VK_DECLARE)
    GPUSKIN__VK_DEVICE_FUNCS(GPUSKIN__VK_DECLARE)
    PFN_vkGetPhysicalDeviceFeatures2 vkGetPhysicalDeviceFeatures2;
} gpuskin__vk_functions;
#undef GPUSKIN__VK_DECLARE

/* ---- What the shaders see --------------------------------------------------- */

/* gpuskin_Frame in gpuskin_skin.glsl (std430: 9 addresses, then 4 uints). */
typedef struct gpuskin__vk_frame_header {
    VkDeviceAddress positions, normals, tangents, joints, weights;
    VkDeviceAddress lbs, dq, residual, methods;
    uint32_t vertex_count, joint_count, influence_sets, streams;
} gpuskin__vk_frame_header;
GPUSKIN__VK_STATIC_ASSERT(sizeof(gpuskin__vk_frame_header) == 88, frame_header_matches_glsl);

/* gpuskin_SkinPush in skin.comp. */
typedef struct gpuskin__vk_skin_push {
    VkDeviceAddress frame;
    VkDeviceAddress output;
    VkDeviceAddress order;
    uint32_t first_instance;
    uint32_t output_flags;
    uint32_t instance_count;
    uint32_t lbs_start, lbs_rows, dqs_start; /* kernel 3: see gpuskin__vk_list_rows */
    uint32_t rows_per_invocation;            /* <= the pipeline's 4, 8 or 16 */
    uint32_t pad;                            /* to the struct's 8-byte alignment */
} gpuskin__vk_skin_push;

/* gpuskin_DrawPush in skin.vert. */
typedef struct gpuskin__vk_draw_push {
    float view_proj[16];
    float color[4];
    VkDeviceAddress frame;
    VkDeviceAddress posed;
    uint32_t flags;
    uint32_t pad;
} gpuskin__vk_draw_push;

/* 128 bytes is all Vulkan guarantees (and what lavapipe and many mobile GPUs give). */
GPUSKIN__VK_STATIC_ASSERT(sizeof(gpuskin__vk_skin_push) == 56 && sizeof(gpuskin__vk_skin_push) <= 128, skin_push);
GPUSKIN__VK_STATIC_ASSERT(sizeof(gpuskin__vk_draw_push) == 104 && sizeof(gpuskin__vk_draw_push) <= 128, draw_push);

/* skin.vert's flag bits beyond the public GPUSKIN_DRAW_*. */
#define GPUSKIN__VK_DRAW_POSED 0x2u
#define GPUSKIN__VK_DRAW_POSED_NORMALS 0x4u
#define GPUSKIN__VK_DRAW_POSED_TANGENTS 0x8u
#define GPUSKIN__VK_SKIN_PAIRS 0x4u /* skin.comp: normals on, output 8-byte aligned: 16- and 8-byte stores */
#define GPUSKIN__VK_STREAM_NORMALS 0x1u
#define GPUSKIN__VK_STREAM_TANGENTS 0x2u
#define GPUSKIN__VK_LOCAL_SIZE 64u /* skin.comp's local_size_x */
/* skin.comp's specialisations: gpuskin_ONLY_METHOD (which blends the kernel has)
   and gpuskin_INSTANCES_PER_INVOCATION (4, 8 or 16; the 4 pipeline also runs 1
   and 2, told by the push constant). */
#define GPUSKIN__VK_KERNEL_ANY 0u       /* both blends and the residual, per instance method word */
#define GPUSKIN__VK_KERNEL_LBS 1u       /* every instance LBS */
#define GPUSKIN__VK_KERNEL_DQS_RIGID 2u /* every instance DQS without the residual */
#define GPUSKIN__VK_KERNEL_LBS_DQS 3u   /* LBS and DQS without the residual, rows through the instance list */
#define GPUSKIN__VK_KERNEL_DQS_RESIDUAL 4u /* every instance DQS with the residual */
#define GPUSKIN__VK_KERNEL_DQS_UNIFORM 5u /* every instance DQS with a uniform-scale residual */
#define GPUSKIN__VK_KERNEL_DQS_SIZED 6u   /* every instance DQS, rigid or one uniform scale for all its joints */
#define GPUSKIN__VK_KERNEL_DQS_TRIANGULAR 7u /* every instance DQS with a residual that is upper triangular */
#define GPUSKIN__VK_KERNEL_DQS_SYMMETRIC 8u  /* every instance DQS with a residual that is symmetric */
#define GPUSKIN__VK_KERNEL_KINDS 9u
/* gpuskin_crowd's per-instance record of what its method word says. */
#define GPUSKIN__VK_KIND_LBS 0u
#define GPUSKIN__VK_KIND_DQS_RIGID 1u
#define GPUSKIN__VK_KIND_DQS_RESIDUAL 2u
#define GPUSKIN__VK_KIND_DQS_UNIFORM 3u
#define GPUSKIN__VK_KIND_DQS_SIZED 4u     /* uniform, and the same s for every joint */
#define GPUSKIN__VK_KIND_DQS_TRIANGULAR 5u /* residual, every S upper triangular (Gram-Schmidt) */
#define GPUSKIN__VK_KIND_DQS_SYMMETRIC 6u  /* residual, every S symmetric (polar, not mirrored) */
/* Instances an invocation, by the dispatch's vertex-instances (measured on an
   H200: BENCHMARKS.md): below TWO 1, below FOUR 2, else 4, where 4 would leave
   too few invocations to fill that GPU (2 ran 10-28 % faster than 4 at 0.2 M,
   1 26-52 % at 13-105 K; the general kernel 2-20 % and 15-63 %); a specialised
   kernel takes 8 from SOME and 16 from MANY (below 3 x 2^20 the measured sizes
   did not all gain from 8, e.g. 0.2 M ran 26 % slower). The general kernel
   takes at most 4. */
#define GPUSKIN__VK_MANY_PER_INVOCATION_FROM (1ull << 23)
#define GPUSKIN__VK_SOME_PER_INVOCATION_FROM (3ull << 20)
#define GPUSKIN__VK_FOUR_PER_INVOCATION_FROM (1ull << 18)
#define GPUSKIN__VK_TWO_PER_INVOCATION_FROM (1ull << 17)
/* The instances an invocation skins, by pipeline: compute_pipelines[..][..][i]. */
#define GPUSKIN__VK_PER_INVOCATION_COUNTS 3u
#define GPUSKIN__VK_PER_INVOCATION(i) (4u << (i)) /* 4, 8, 16 */
#define GPUSKIN__VK_HEADER_SIZE 96u /* the frame header, rounded up to 16 */
#define GPUSKIN__VK_MIN_WEIGHT 1.17549435e-38f /* FLT_MIN: below it a weight counts as 0 */

/* ---- Objects ---------------------------------------------------------------- */

struct gpuskin_context {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    const VkAllocationCallbacks *vk_allocation_callbacks;
    gpuskin_allocator allocator;
    VkPipelineCache pipeline_cache;
    void *alloc_user;
    gpuskin__vk_functions vk;
    VkPhysicalDeviceMemoryProperties memory;
    uint32_t max_groups_x, max_groups_y;
    int dynamic_rendering;
    VkPipelineLayout compute_layout;
    VkPipelineLayout draw_layout;
    /* skin.comp specialised: [influence sets - 1][GPUSKIN__VK_KERNEL_*][4, 8 or 16 instances an invocation] */
    VkPipeline compute_pipelines[2][GPUSKIN__VK_KERNEL_KINDS][GPUSKIN__VK_PER_INVOCATION_COUNTS];
};

struct gpuskin_mesh {
    gpuskin_context *ctx;
    gpuskin_buffer buffer;   /* STATIC: streams, then indices */
    gpuskin_buffer staging;  /* UPLOAD copy while `buffer` is unmapped and not yet uploaded */
    int needs_upload;
    uint32_t vertex_count, joint_count, influence_sets, streams;
    uint32_t index_count;
    VkIndexType index_type;
    VkDeviceSize positions, normals, tangents, joints, weights, indices; /* byte offsets */
    VkDeviceSize size;                                                   /* bytes used */
};

struct gpuskin_crowd {
    gpuskin_context *ctx;
    const gpuskin_mesh *mesh;
    uint32_t capacity, frames, joint_count, vertex_count;
    VkDeviceSize methods, order, lbs, dq, residual; /* byte offsets in each slot buffer */
    VkDeviceSize slot_size;                  /* bytes used of each */
    gpuskin_buffer *slots;                   /* frames of them */
    unsigned char *kinds;                    /* [frame][instance]: GPUSKIN__VK_KIND_* of its method word */
    uint32_t *lbs_counts;                    /* [frame]: the slot's LBS instances (its list's first part) */
    float *residual_scratch;                 /* joint_count * 12: see gpuskin_crowd_upload */
};

struct gpuskin_pipeline {
    gpuskin_context *ctx;
    VkPipeline pipeline;
};

/* ---- Small helpers -------------------------------------------------------------- */

static VkDeviceSize gpuskin__vk_align16(VkDeviceSize x) { return (x + 15u) & ~(VkDeviceSize)15u; }

static void *gpuskin__vk_calloc(gpuskin_context *ctx, size_t size)
{
    void *p = GPUSKIN_MALLOC(size, ctx->alloc_user);
    if (p) memset(p, 0, size);
    return p;
}

static gpuskin_result gpuskin__vk_create_buffer(gpuskin_context *ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                                                gpuskin_memory_kind kind, gpuskin_buffer *out)
{
    VkResult vr;
    GPUSKIN__VK_ZERO(*out);
    vr = ctx->allocator.create_buffer(ctx->allocator.user, size,
                                      usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT, kind, out);
    if (vr != VK_SUCCESS) {
        GPUSKIN__VK_ZERO(*out);
        return GPUSKIN_ERROR_ALLOCATION_FAILED;
    }
    /* The shaders read through the address (vec4 arrays: 16-byte aligned), and
       UPLOAD/READBACK promise a mapping: an allocator that did not deliver them is
       as good as a failed one. */
    if (out->buffer == VK_NULL_HANDLE || out->address == 0 || out->address % 16u != 0 || out->size < size ||
        ((kind == GPUSKIN_MEMORY_UPLOAD || kind == GPUSKIN_MEMORY_READBACK) && !out->mapped)) {
        ctx->allocator.destroy_buffer(ctx->allocator.user, out);
        GPUSKIN__VK_ZERO(*out);
        return GPUSKIN_ERROR_ALLOCATION_FAILED;
    }
    return GPUSKIN_SUCCESS;
}

static void gpuskin__vk_destroy_buffer(gpuskin_context *ctx, gpuskin_buffer *b)
{
    if (b->buffer != VK_NULL_HANDLE) ctx->allocator.destroy_buffer(ctx->allocator.user, b);
    GPUSKIN__VK_ZERO(*b);
}

static gpuskin_result gpuskin__vk_shader_module(gpuskin_context *ctx, const uint32_t *code, size_t size,
                                                VkShaderModule *out)
{
    VkShaderModuleCreateInfo ci;
    GPUSKIN__VK_ZERO(ci);
    ci.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    ci.codeSize = size;
    ci.pCode = code;
    if (ctx->vk.vkCreateShaderModule(ctx->device, &ci, ctx->vk_allocation_callbacks, out) != VK_SUCCESS) {
        *out = VK_NULL_HANDLE; /* a failed create need not write it */
        return GPUSKIN_ERROR_VULKAN;
    }
    return GPUSKIN_SUCCESS;
}

/* ---- The default allocator: one VkDeviceMemory per buffer ------------------------- */

/* The allocator's handle: VkDeviceMemory is not a pointer on 32-bit targets, so it
   cannot ride in gpuskin_buffer.allocation as is. */
typedef struct gpuskin__vk_default_allocation {
    VkDeviceMemory memory;
} gpuskin__vk_default_allocation;

static uint32_t gpuskin__vk_find_memory(const gpuskin_context *ctx, uint32_t type_bits, VkMemoryPropertyFlags want)
{
    uint32_t i;
    for (i = 0; i < ctx->memory.memoryTypeCount; ++i)
        if ((type_bits & (1u << i)) && (ctx->memory.memoryTypes[i].propertyFlags & want) == want) return i;
    return UINT32_MAX;
}

static VkResult gpuskin__vk_default_create(void *user, VkDeviceSize size, VkBufferUsageFlags usage,
                                           gpuskin_memory_kind kind, gpuskin_buffer *out)
{
    gpuskin_context *ctx = (gpuskin_context *)user;
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    VkMemoryPropertyFlags tries[2];
    VkBufferCreateInfo bci;
    VkMemoryRequirements req;
    VkMemoryAllocateFlagsInfo flags;
    VkMemoryAllocateInfo mai;
    VkBufferDeviceAddressInfo dai;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    gpuskin__vk_default_allocation *record;
    VkResult vr = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    int t;

    /* The preferred memory first, then what the kind cannot do without. Mesh and
       palettes prefer device-local host-visible memory (resizable BAR, or any
       unified-memory GPU): every vertex reads the palette, so it should not sit
       across the bus, yet the CPU writes it each frame without a copy. */
    switch (kind) {
    case GPUSKIN_MEMORY_STATIC: tries[0] = local | host; tries[1] = local; break;
    case GPUSKIN_MEMORY_UPLOAD: tries[0] = local | host; tries[1] = host; break;
    case GPUSKIN_MEMORY_GPU_ONLY: tries[0] = local; tries[1] = 0; break;
    case GPUSKIN_MEMORY_READBACK: tries[0] = host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT; tries[1] = host; break;
    default: return VK_ERROR_FORMAT_NOT_SUPPORTED;
    }

    GPUSKIN__VK_ZERO(*out);
    record = (gpuskin__vk_default_allocation *)GPUSKIN_MALLOC(sizeof *record, ctx->alloc_user);
    if (!record) return VK_ERROR_OUT_OF_HOST_MEMORY;

    GPUSKIN__VK_ZERO(bci);
    bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bci.size = size;
    bci.usage = usage | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    vr = ctx->vk.vkCreateBuffer(ctx->device, &bci, ctx->vk_allocation_callbacks, &out->buffer);
    if (vr != VK_SUCCESS) {
        GPUSKIN_FREE(record, ctx->alloc_user);
        out->buffer = VK_NULL_HANDLE;
        return vr;
    }
    ctx->vk.vkGetBufferMemoryRequirements(ctx->device, out->buffer, &req);

    GPUSKIN__VK_ZERO(flags);
    flags.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    GPUSKIN__VK_ZERO(mai);
    mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    mai.pNext = &flags;
    mai.allocationSize = req.size;
    vr = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    for (t = 0; t < 2 && memory == VK_NULL_HANDLE; ++t) {
        mai.memoryTypeIndex = gpuskin__vk_find_memory(ctx, req.memoryTypeBits, tries[t]);
        if (mai.memoryTypeIndex == UINT32_MAX) continue;
        vr = ctx->vk.vkAllocateMemory(ctx->device, &mai, ctx->vk_allocation_callbacks, &memory);
        if (vr != VK_SUCCESS) memory = VK_NULL_HANDLE;
    }
    if (memory != VK_NULL_HANDLE) vr = ctx->vk.vkBindBufferMemory(ctx->device, out->buffer, memory, 0);
    if (vr == VK_SUCCESS &&
        (ctx->memory.memoryTypes[mai.memoryTypeIndex].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
        vr = ctx->vk.vkMapMemory(ctx->device, memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
    if (vr != VK_SUCCESS) {
        ctx->vk.vkDestroyBuffer(ctx->device, out->buffer, ctx->vk_allocation_callbacks);
        if (memory != VK_NULL_HANDLE) ctx->vk.vkFreeMemory(ctx->device, memory, ctx->vk_allocation_callbacks);
        GPUSKIN_FREE(record, ctx->alloc_user);
        GPUSKIN__VK_ZERO(*out);
        return vr;
    }
    GPUSKIN__VK_ZERO(dai);
    dai.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
    dai.buffer = out->buffer;
    out->address = ctx->vk.vkGetBufferDeviceAddress(ctx->device, &dai);
    out->size = size;
    record->memory = memory;
    out->allocation = record;
    return VK_SUCCESS;
}

static void gpuskin__vk_default_destroy(void *user, gpuskin_buffer *buffer)
{
    gpuskin_context *ctx = (gpuskin_context *)user;
    gpuskin__vk_default_allocation *record = (gpuskin__vk_default_allocation *)buffer->allocation;
    ctx->vk.vkDestroyBuffer(ctx->device, buffer->buffer, ctx->vk_allocation_callbacks);
    if (record) {
        /* Freeing mapped memory unmaps it. */
        ctx->vk.vkFreeMemory(ctx->device, record->memory, ctx->vk_allocation_callbacks);
        GPUSKIN_FREE(record, ctx->alloc_user);
    }
    GPUSKIN__VK_ZERO(*buffer);
}

GPUSKIN_API gpuskin_allocator gpuskin_default_allocator(gpuskin_context *ctx)
{
    gpuskin_allocator a;
    GPUSKIN__VK_ZERO(a);
    if (!ctx) return a;
    a.create_buffer = gpuskin__vk_default_create;
    a.destroy_buffer = gpuskin__vk_default_destroy;
    a.user = ctx;
    return a;
}

/* ---- Context ------------------------------------------------------------------- */

static gpuskin_result gpuskin__vk_missing(const gpuskin_context_desc *desc, const char *what)
{
    if (desc->out_missing_feature) *desc->out_missing_feature = what;
    return GPUSKIN_ERROR_MISSING_FEATURE;
}

static gpuskin_result gpuskin__vk_load(gpuskin_context *ctx, const gpuskin_context_desc *desc)
{
    PFN_vkGetInstanceProcAddr gipa = desc->get_instance_proc_addr;
    PFN_vkGetDeviceProcAddr gdpa = desc->get_device_proc_addr;

#define GPUSKIN__VK_LOAD_INSTANCE(name)                                                                             \
    ctx->vk.name = (PFN_##name)gipa(desc->instance, #name);                                                         \
    if (!ctx->vk.name) return gpuskin__vk_missing(desc, #name);
    GPUSKIN__VK_INSTANCE_FUNCS(GPUSKIN__VK_LOAD_INSTANCE)
#undef GPUSKIN__VK_LOAD_INSTANCE
    /* Core since 1.1; the KHR name serves an instance created for 1.0. */
    ctx->vk.vkGetPhysicalDeviceFeatures2 =
        (PFN_vkGetPhysicalDeviceFeatures2)gipa(desc->instance, "vkGetPhysicalDeviceFeatures2");
    if (!ctx->vk.vkGetPhysicalDeviceFeatures2)
        ctx->vk.vkGetPhysicalDeviceFeatures2 =
            (PFN_vkGetPhysicalDeviceFeatures2)gipa(desc->instance, "vkGetPhysicalDeviceFeatures2KHR");

#ifdef VOLK_HEADER_VERSION
    if (desc->volk_device_table) {
        const struct VolkDeviceTable *t = desc->volk_device_table;
#define GPUSKIN__VK_LOAD_VOLK(name)                                                                                 \
    ctx->vk.name = t->name;                                                                                         \
    if (!ctx->vk.name) return gpuskin__vk_missing(desc, #name);
        GPUSKIN__VK_DEVICE_FUNCS(GPUSKIN__VK_LOAD_VOLK)
#undef GPUSKIN__VK_LOAD_VOLK
        return GPUSKIN_SUCCESS;
    }
#endif
    if (!gdpa) gdpa = (PFN_vkGetDeviceProcAddr)gipa(desc->instance, "vkGetDeviceProcAddr");
    if (!gdpa) return gpuskin__vk_missing(desc, "vkGetDeviceProcAddr");
#define GPUSKIN__VK_LOAD_DEVICE(name)                                                                               \
    ctx->vk.name = (PFN_##name)gdpa(desc->device, #name);                                                           \
    if (!ctx->vk.name) return gpuskin__vk_missing(desc, #name);
    GPUSKIN__VK_DEVICE_FUNCS(GPUSKIN__VK_LOAD_DEVICE)
#undef GPUSKIN__VK_LOAD_DEVICE
    return GPUSKIN_SUCCESS;
}

static int gpuskin__vk_has_extension(gpuskin_context *ctx, const char *name)
{
    VkExtensionProperties *props;
    uint32_t n = 0, i;
    int found = 0;
    if (ctx->vk.vkEnumerateDeviceExtensionProperties(ctx->physical_device, NULL, &n, NULL) != VK_SUCCESS || n == 0)
        return 0;
    props = (VkExtensionProperties *)GPUSKIN_MALLOC(sizeof *props * n, ctx->alloc_user);
    if (!props) return 0;
    if (ctx->vk.vkEnumerateDeviceExtensionProperties(ctx->physical_device, NULL, &n, props) >= VK_SUCCESS)
        for (i = 0; i < n && !found; ++i) found = strcmp(props[i].extensionName, name) == 0;
    GPUSKIN_FREE(props, ctx->alloc_user);
    return found;
}

/* bufferDeviceAddress is required (every shader reads through addresses);
   dynamicRendering only by gpuskin_pipeline_create, so a compute-only host
   need not enable it. */
static gpuskin_result gpuskin__vk_check_features(gpuskin_context *ctx, const gpuskin_context_desc *desc)
{
    VkPhysicalDeviceProperties props;
    ctx->vk.vkGetPhysicalDeviceProperties(ctx->physical_device, &props);
    if (VK_API_VERSION_MAJOR(props.apiVersion) == 1 && VK_API_VERSION_MINOR(props.apiVersion) < 2)
        return gpuskin__vk_missing(desc, "Vulkan 1.2");
    ctx->max_groups_x = props.limits.maxComputeWorkGroupCount[0];
    ctx->max_groups_y = props.limits.maxComputeWorkGroupCount[1];
    if (props.limits.maxPushConstantsSize < sizeof(gpuskin__vk_draw_push))
        return gpuskin__vk_missing(desc, "maxPushConstantsSize >= 104");

    if (desc->enabled_features12) {
        if (!desc->enabled_features12->bufferDeviceAddress) return gpuskin__vk_missing(desc, "bufferDeviceAddress");
    } else {
        VkPhysicalDeviceVulkan12Features f12;
        VkPhysicalDeviceFeatures2 f;
        if (!ctx->vk.vkGetPhysicalDeviceFeatures2) return gpuskin__vk_missing(desc, "vkGetPhysicalDeviceFeatures2");
        GPUSKIN__VK_ZERO(f12);
        f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
        GPUSKIN__VK_ZERO(f);
        f.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
        f.pNext = &f12;
        ctx->vk.vkGetPhysicalDeviceFeatures2(ctx->physical_device, &f);
        if (!f12.bufferDeviceAddress) return gpuskin__vk_missing(desc, "bufferDeviceAddress");
    }

    if (desc->enabled_features13) {
        ctx->dynamic_rendering = desc->enabled_features13->dynamicRendering == VK_TRUE;
    } else if (ctx->vk.vkGetPhysicalDeviceFeatures2 &&
               (VK_API_VERSION_MINOR(props.apiVersion) >= 3 || VK_API_VERSION_MAJOR(props.apiVersion) > 1 ||
                gpuskin__vk_has_extension(ctx, "VK_KHR_dynamic_rendering"))) {
        /* The 1.3 core struct and the KHR one are the same struct. */
        VkPhysicalDeviceDynamicRenderingFeatures dr;
        VkPhysicalDeviceFeatures2 f;
        GPUSKIN__VK_ZERO(dr);
        dr.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DYNAMIC_RENDERING_FEATURES;
        GPUSKIN__VK_ZERO(f);
        f.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
        f.pNext = &dr;
        ctx->vk.vkGetPhysicalDeviceFeatures2(ctx->physical_device, &f);
        ctx->dynamic_rendering = dr.dynamicRendering == VK_TRUE;
    }
    return GPUSKIN_SUCCESS;
}

static gpuskin_result gpuskin__vk_create_layouts(gpuskin_context *ctx)
{
    VkPushConstantRange range;
    VkPipelineLayoutCreateInfo ci;
    GPUSKIN__VK_ZERO(ci);
    ci.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    ci.pushConstantRangeCount = 1;
    ci.pPushConstantRanges = &range;

    range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    range.offset = 0;
    range.size = (uint32_t)sizeof(gpuskin__vk_skin_push);
    if (ctx->vk.vkCreatePipelineLayout(ctx->device, &ci, ctx->vk_allocation_callbacks, &ctx->compute_layout) !=
        VK_SUCCESS) {
        ctx->compute_layout = VK_NULL_HANDLE;
        return GPUSKIN_ERROR_VULKAN;
    }
    range.stageFlags = VK_SHADER_STAGE_VERTEX_BIT;
    range.size = (uint32_t)sizeof(gpuskin__vk_draw_push);
    if (ctx->vk.vkCreatePipelineLayout(ctx->device, &ci, ctx->vk_allocation_callbacks, &ctx->draw_layout) !=
        VK_SUCCESS) {
        ctx->draw_layout = VK_NULL_HANDLE;
        return GPUSKIN_ERROR_VULKAN;
    }
    return GPUSKIN_SUCCESS;
}

/* Every specialisation of skin.comp, made once here so that recording never
   compiles: 2 influence-set counts x 9 kernels x 4, 8 or 16 instances an
   invocation. */
#define GPUSKIN__VK_COMPUTE_PIPELINES (2u * GPUSKIN__VK_KERNEL_KINDS * GPUSKIN__VK_PER_INVOCATION_COUNTS)

static void gpuskin__vk_destroy_compute_pipelines(gpuskin_context *ctx)
{
    VkPipeline *p = &ctx->compute_pipelines[0][0][0];
    uint32_t i;
    for (i = 0; i < GPUSKIN__VK_COMPUTE_PIPELINES; ++i) {
        if (p[i] != VK_NULL_HANDLE) ctx->vk.vkDestroyPipeline(ctx->device, p[i], ctx->vk_allocation_callbacks);
        p[i] = VK_NULL_HANDLE;
    }
}

static gpuskin_result gpuskin__vk_create_compute_pipeline(gpuskin_context *ctx)
{
    /* constant_id 0: gpuskin_SETS, 1: gpuskin_ONLY_METHOD, 2: gpuskin_INSTANCES_PER_INVOCATION */
    uint32_t values[GPUSKIN__VK_COMPUTE_PIPELINES][3];
    VkComputePipelineCreateInfo ci[GPUSKIN__VK_COMPUTE_PIPELINES];
    VkSpecializationMapEntry entries[3];
    VkSpecializationInfo spec[GPUSKIN__VK_COMPUTE_PIPELINES];
    VkShaderModule module;
    VkResult vr;
    uint32_t i;
    gpuskin_result r = gpuskin__vk_shader_module(ctx, gpuskin_spv_skin_comp, gpuskin_spv_skin_comp_size, &module);
    if (r != GPUSKIN_SUCCESS) return r;
    for (i = 0; i < 3; ++i) {
        entries[i].constantID = i;
        entries[i].offset = i * (uint32_t)sizeof(uint32_t);
        entries[i].size = sizeof(uint32_t);
    }
    /* Pipeline i is compute_pipelines[sets - 1][kernel][per invocation], flattened. */
    for (i = 0; i < GPUSKIN__VK_COMPUTE_PIPELINES; ++i) {
        values[i][0] = 1u + i / (GPUSKIN__VK_KERNEL_KINDS * GPUSKIN__VK_PER_INVOCATION_COUNTS);
        values[i][1] = (i / GPUSKIN__VK_PER_INVOCATION_COUNTS) % GPUSKIN__VK_KERNEL_KINDS;
        values[i][2] = GPUSKIN__VK_PER_INVOCATION(i % GPUSKIN__VK_PER_INVOCATION_COUNTS);
        spec[i].mapEntryCount = 3;
        spec[i].pMapEntries = entries;
        spec[i].dataSize = sizeof values[i];
        spec[i].pData = values[i];
        GPUSKIN__VK_ZERO(ci[i]);
        ci[i].sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
        ci[i].stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
        ci[i].stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        ci[i].stage.module = module;
        ci[i].stage.pName = "main";
        ci[i].stage.pSpecializationInfo = &spec[i];
        ci[i].layout = ctx->compute_layout;
    }
    for (i = 0; i < GPUSKIN__VK_COMPUTE_PIPELINES; ++i) (&ctx->compute_pipelines[0][0][0])[i] = VK_NULL_HANDLE;
    vr = ctx->vk.vkCreateComputePipelines(ctx->device, ctx->pipeline_cache, GPUSKIN__VK_COMPUTE_PIPELINES, ci,
                                          ctx->vk_allocation_callbacks, &ctx->compute_pipelines[0][0][0]);
    ctx->vk.vkDestroyShaderModule(ctx->device, module, ctx->vk_allocation_callbacks);
    if (vr != VK_SUCCESS) {
        /* A failed batch may still have created some of its pipelines. */
        gpuskin__vk_destroy_compute_pipelines(ctx);
        return GPUSKIN_ERROR_VULKAN;
    }
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API void gpuskin_context_destroy(gpuskin_context *ctx)
{
    if (!ctx) return;
    gpuskin__vk_destroy_compute_pipelines(ctx);
    if (ctx->draw_layout != VK_NULL_HANDLE)
        ctx->vk.vkDestroyPipelineLayout(ctx->device, ctx->draw_layout, ctx->vk_allocation_callbacks);
    if (ctx->compute_layout != VK_NULL_HANDLE)
        ctx->vk.vkDestroyPipelineLayout(ctx->device, ctx->compute_layout, ctx->vk_allocation_callbacks);
    GPUSKIN_FREE(ctx, ctx->alloc_user);
}

GPUSKIN_API gpuskin_result gpuskin_context_create(const gpuskin_context_desc *desc, gpuskin_context **out)
{
    gpuskin_context *ctx;
    gpuskin_result r;
    if (out) *out = NULL;
    if (!desc || !out) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (desc->out_missing_feature) *desc->out_missing_feature = NULL;
    if (desc->instance == VK_NULL_HANDLE || desc->physical_device == VK_NULL_HANDLE ||
        desc->device == VK_NULL_HANDLE || !desc->get_instance_proc_addr)
        return GPUSKIN_ERROR_NULL_ARGUMENT;
    if ((desc->allocator.create_buffer == NULL) != (desc->allocator.destroy_buffer == NULL))
        return GPUSKIN_ERROR_INVALID_ARGUMENT;

    ctx = (gpuskin_context *)GPUSKIN_MALLOC(sizeof *ctx, desc->alloc_user);
    if (!ctx) return GPUSKIN_ERROR_OUT_OF_MEMORY;
    memset(ctx, 0, sizeof *ctx);
    ctx->instance = desc->instance;
    ctx->physical_device = desc->physical_device;
    ctx->device = desc->device;
    ctx->vk_allocation_callbacks = desc->vk_allocation_callbacks;
    ctx->pipeline_cache = desc->pipeline_cache;
    ctx->alloc_user = desc->alloc_user;
    ctx->allocator = desc->allocator.create_buffer ? desc->allocator : gpuskin_default_allocator(ctx);

    r = gpuskin__vk_load(ctx, desc);
    if (r == GPUSKIN_SUCCESS) r = gpuskin__vk_check_features(ctx, desc);
    if (r == GPUSKIN_SUCCESS) {
        ctx->vk.vkGetPhysicalDeviceMemoryProperties(ctx->physical_device, &ctx->memory);
        r = gpuskin__vk_create_layouts(ctx);
    }
    if (r == GPUSKIN_SUCCESS) r = gpuskin__vk_create_compute_pipeline(ctx);
    if (r != GPUSKIN_SUCCESS) {
        gpuskin_context_destroy(ctx);
        return r;
    }
    *out = ctx;
    return GPUSKIN_SUCCESS;
}

/* ---- Mesh ------------------------------------------------------------------------- */

static const unsigned char *gpuskin__vk_at(const gpuskin_stream *s, size_t i, size_t element)
{
    return (const unsigned char *)s->data + i * (s->stride ? s->stride : element);
}

static uint32_t gpuskin__vk_joint(const gpuskin_vertex_streams *st, uint32_t set, size_t v, uint32_t k)
{
    const unsigned char *p;
    switch (st->joint_type) {
    case GPUSKIN_JOINT_U8: return gpuskin__vk_at(&st->joints[set], v, 4)[k];
    case GPUSKIN_JOINT_U32: {
        uint32_t j;
        p = gpuskin__vk_at(&st->joints[set], v, 16);
        memcpy(&j, p + k * 4u, 4);
        return j;
    }
    default: {
        uint16_t j;
        p = gpuskin__vk_at(&st->joints[set], v, 8);
        memcpy(&j, p + k * 2u, 2);
        return j;
    }
    }
}

/* Copies the validated streams into the GPU layout (see the top of this file). */
static void gpuskin__vk_mesh_write(const gpuskin_mesh *mesh, const gpuskin_mesh_desc *desc, unsigned char *dst)
{
    const gpuskin_vertex_streams *st = &desc->streams;
    size_t v, n = mesh->vertex_count;
    uint32_t s, k;
    for (v = 0; v < n; ++v) {
        memcpy(dst + mesh->positions + v * 12u, gpuskin__vk_at(&st->positions, v, 12), 12);
        if (mesh->streams & GPUSKIN__VK_STREAM_NORMALS)
            memcpy(dst + mesh->normals + v * 12u, gpuskin__vk_at(&st->normals, v, 12), 12);
        if (mesh->streams & GPUSKIN__VK_STREAM_TANGENTS)
            memcpy(dst + mesh->tangents + v * 16u, gpuskin__vk_at(&st->tangents, v, 16), 16);
        for (s = 0; s < mesh->influence_sets; ++s) {
            float w[4];
            uint32_t j[4];
            memcpy(w, gpuskin__vk_at(&st->weights[s], v, 16), 16);
            /* The shader skips these (a denormal weight counts as 0, as in the
               oracle), but a GPU must never even be given an index past the palette. */
            for (k = 0; k < 4; ++k) j[k] = fabsf(w[k]) >= GPUSKIN__VK_MIN_WEIGHT ? gpuskin__vk_joint(st, s, v, k) : 0u;
            j[0] |= j[1] << 16;
            j[1] = j[2] | j[3] << 16;
            memcpy(dst + mesh->joints + (v * mesh->influence_sets + s) * 8u, j, 8);
            memcpy(dst + mesh->weights + (v * mesh->influence_sets + s) * 16u, w, 16);
        }
    }
    for (v = 0; v < mesh->index_count; ++v) {
        if (mesh->index_type == VK_INDEX_TYPE_UINT16) {
            uint16_t i16 = (uint16_t)desc->indices[v];
            memcpy(dst + mesh->indices + v * 2u, &i16, 2);
        } else {
            memcpy(dst + mesh->indices + v * 4u, &desc->indices[v], 4);
        }
    }
}

GPUSKIN_API void gpuskin_mesh_destroy(gpuskin_mesh *mesh)
{
    if (!mesh) return;
    gpuskin__vk_destroy_buffer(mesh->ctx, &mesh->staging);
    gpuskin__vk_destroy_buffer(mesh->ctx, &mesh->buffer);
    GPUSKIN_FREE(mesh, mesh->ctx->alloc_user);
}

GPUSKIN_API gpuskin_result gpuskin_mesh_create(gpuskin_context *ctx, const gpuskin_mesh_desc *desc,
                                               gpuskin_mesh **out)
{
    const gpuskin_vertex_streams *st;
    gpuskin_mesh *mesh;
    gpuskin_result r;
    size_t bad = 0, i, vcount;
    uint32_t sets;
    VkDeviceSize size;

    if (out) *out = NULL;
    if (!ctx || !desc || !out) return GPUSKIN_ERROR_NULL_ARGUMENT;
    st = &desc->streams;
    if (desc->out_error_index) *desc->out_error_index = 0;
    if (desc->joint_count == 0 || desc->joint_count > GPUSKIN_MAX_JOINTS) return GPUSKIN_ERROR_INVALID_COUNT;
    r = gpuskin_streams_validate(st, desc->joint_count, &bad);
    if (r != GPUSKIN_SUCCESS) {
        if (desc->out_error_index) *desc->out_error_index = bad;
        return r;
    }
    vcount = st->vertex_count;
    sets = st->influence_sets == 2 ? 2u : 1u;
    /* The shaders index floats with 32-bit uints: a compute record of up to 10
       floats per vertex must stay addressable. */
    if (vcount == 0) return GPUSKIN_ERROR_INVALID_COUNT;
    if (vcount > UINT32_MAX / 10u) return GPUSKIN_ERROR_OVERFLOW;
    if (desc->index_count % 3u != 0) return GPUSKIN_ERROR_INVALID_COUNT;
    if (desc->index_count && !desc->indices) return GPUSKIN_ERROR_NULL_ARGUMENT;
    for (i = 0; i < desc->index_count; ++i)
        if (desc->indices[i] >= vcount) {
            if (desc->out_error_index) *desc->out_error_index = i;
            return GPUSKIN_ERROR_INVALID_ARGUMENT;
        }

    mesh = (gpuskin_mesh *)gpuskin__vk_calloc(ctx, sizeof *mesh);
    if (!mesh) return GPUSKIN_ERROR_OUT_OF_MEMORY;
    mesh->ctx = ctx;
    mesh->vertex_count = (uint32_t)vcount;
    mesh->joint_count = desc->joint_count;
    mesh->influence_sets = sets;
    mesh->streams = (st->normals.data ? GPUSKIN__VK_STREAM_NORMALS : 0u) |
                    (st->tangents.data ? GPUSKIN__VK_STREAM_TANGENTS : 0u);
    mesh->index_count = desc->index_count;
    /* Primitive restart is off, so 0xFFFF is an ordinary index. */
    mesh->index_type = vcount <= 65536u ? VK_INDEX_TYPE_UINT16 : VK_INDEX_TYPE_UINT32;

    size = 0;
    mesh->positions = size;
    size = gpuskin__vk_align16(size + (VkDeviceSize)vcount * 12u);
    mesh->normals = size;
    if (mesh->streams & GPUSKIN__VK_STREAM_NORMALS) size = gpuskin__vk_align16(size + (VkDeviceSize)vcount * 12u);
    mesh->tangents = size;
    if (mesh->streams & GPUSKIN__VK_STREAM_TANGENTS) size = gpuskin__vk_align16(size + (VkDeviceSize)vcount * 16u);
    mesh->joints = size;
    size = gpuskin__vk_align16(size + (VkDeviceSize)vcount * sets * 8u);
    mesh->weights = size;
    size = gpuskin__vk_align16(size + (VkDeviceSize)vcount * sets * 16u);
    mesh->indices = size;
    size += (VkDeviceSize)desc->index_count * (mesh->index_type == VK_INDEX_TYPE_UINT16 ? 2u : 4u);
    mesh->size = size;

    r = gpuskin__vk_create_buffer(ctx, size,
                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                  GPUSKIN_MEMORY_STATIC, &mesh->buffer);
    if (r == GPUSKIN_SUCCESS && !mesh->buffer.mapped) {
        r = gpuskin__vk_create_buffer(ctx, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, GPUSKIN_MEMORY_UPLOAD,
                                      &mesh->staging);
        mesh->needs_upload = 1;
    }
    if (r != GPUSKIN_SUCCESS) {
        gpuskin_mesh_destroy(mesh);
        return r;
    }
    gpuskin__vk_mesh_write(mesh, desc,
                           (unsigned char *)(mesh->buffer.mapped ? mesh->buffer.mapped : mesh->staging.mapped));
    *out = mesh;
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API int gpuskin_mesh_needs_upload(const gpuskin_mesh *mesh) { return mesh ? mesh->needs_upload : 0; }

GPUSKIN_API gpuskin_result gpuskin_cmd_upload_mesh(gpuskin_mesh *mesh, VkCommandBuffer cmd)
{
    VkBufferCopy region;
    VkBufferMemoryBarrier barrier;
    if (!mesh || cmd == VK_NULL_HANDLE) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (!mesh->needs_upload) return GPUSKIN_SUCCESS;
    region.srcOffset = 0;
    region.dstOffset = 0;
    region.size = mesh->size;
    mesh->ctx->vk.vkCmdCopyBuffer(cmd, mesh->staging.buffer, mesh->buffer.buffer, 1, &region);
    /* The copy is gpuskin's, so is making it visible to every stage that reads the mesh. */
    GPUSKIN__VK_ZERO(barrier);
    barrier.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_INDEX_READ_BIT;
    barrier.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    barrier.buffer = mesh->buffer.buffer;
    barrier.offset = 0;
    barrier.size = VK_WHOLE_SIZE;
    mesh->ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                       VK_PIPELINE_STAGE_VERTEX_INPUT_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
                                           VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                       0, 0, NULL, 1, &barrier, 0, NULL);
    mesh->needs_upload = 0;
    return GPUSKIN_SUCCESS;
}

/* ---- Crowd ------------------------------------------------------------------------ */

GPUSKIN_API VkDeviceAddress gpuskin_crowd_frame_address(const gpuskin_crowd *crowd, uint32_t frame)
{
    return crowd && frame < crowd->frames ? crowd->slots[frame].address : 0;
}

GPUSKIN_API void gpuskin_crowd_destroy(gpuskin_crowd *crowd)
{
    uint32_t f;
    if (!crowd) return;
    if (crowd->slots) {
        for (f = 0; f < crowd->frames; ++f) gpuskin__vk_destroy_buffer(crowd->ctx, &crowd->slots[f]);
        GPUSKIN_FREE(crowd->slots, crowd->ctx->alloc_user);
    }
    if (crowd->residual_scratch) GPUSKIN_FREE(crowd->residual_scratch, crowd->ctx->alloc_user);
    if (crowd->kinds) GPUSKIN_FREE(crowd->kinds, crowd->ctx->alloc_user);
    if (crowd->lbs_counts) GPUSKIN_FREE(crowd->lbs_counts, crowd->ctx->alloc_user);
    GPUSKIN_FREE(crowd, crowd->ctx->alloc_user);
}

/* Header, all-LBS method words, the instance list in instance order (all LBS)
   and identity rows: an instance never uploaded draws in its bind pose instead of
   reading garbage. */
static void gpuskin__vk_slot_init(const gpuskin_crowd *crowd, const gpuskin_buffer *slot)
{
    const gpuskin_mesh *mesh = crowd->mesh;
    unsigned char *base = (unsigned char *)slot->mapped;
    gpuskin__vk_frame_header h;
    float *lbs = (float *)(void *)(base + crowd->lbs);
    uint32_t *order = (uint32_t *)(void *)(base + crowd->order);
    size_t i, rows = (size_t)crowd->capacity * crowd->joint_count;

    GPUSKIN__VK_ZERO(h);
    h.positions = mesh->buffer.address + mesh->positions;
    h.normals = (mesh->streams & GPUSKIN__VK_STREAM_NORMALS) ? mesh->buffer.address + mesh->normals : 0;
    h.tangents = (mesh->streams & GPUSKIN__VK_STREAM_TANGENTS) ? mesh->buffer.address + mesh->tangents : 0;
    h.joints = mesh->buffer.address + mesh->joints;
    h.weights = mesh->buffer.address + mesh->weights;
    h.lbs = slot->address + crowd->lbs;
    h.dq = slot->address + crowd->dq;
    h.residual = slot->address + crowd->residual;
    h.methods = slot->address + crowd->methods;
    h.vertex_count = mesh->vertex_count;
    h.joint_count = mesh->joint_count;
    h.influence_sets = mesh->influence_sets;
    h.streams = mesh->streams;
    memcpy(base, &h, sizeof h);
    memset(base + crowd->methods, 0, (size_t)(crowd->order - crowd->methods));
    for (i = 0; i < crowd->capacity; ++i) order[i] = (uint32_t)i;
    for (i = 0; i < rows; ++i) {
        static const float identity[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
        memcpy(lbs + i * 12u, identity, sizeof identity);
    }
    memset(base + crowd->dq, 0, (size_t)(crowd->slot_size - crowd->dq));
}

GPUSKIN_API gpuskin_result gpuskin_crowd_create(gpuskin_context *ctx, const gpuskin_crowd_desc *desc,
                                                gpuskin_crowd **out)
{
    gpuskin_crowd *crowd;
    gpuskin_result r = GPUSKIN_SUCCESS;
    uint32_t f;
    uint64_t joints_total;
    VkDeviceSize size;

    if (out) *out = NULL;
    if (!ctx || !desc || !out || !desc->mesh) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (desc->mesh->ctx != ctx) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    if (desc->capacity == 0) return GPUSKIN_ERROR_INVALID_COUNT;
    /* The shaders index vec4 palette rows with 32-bit uints. */
    joints_total = (uint64_t)desc->capacity * desc->mesh->joint_count;
    if (joints_total > UINT32_MAX / 3u) return GPUSKIN_ERROR_OVERFLOW;

    crowd = (gpuskin_crowd *)gpuskin__vk_calloc(ctx, sizeof *crowd);
    if (!crowd) return GPUSKIN_ERROR_OUT_OF_MEMORY;
    crowd->ctx = ctx;
    crowd->mesh = desc->mesh;
    crowd->capacity = desc->capacity;
    crowd->frames = desc->frames_in_flight ? desc->frames_in_flight : 2u;
    crowd->joint_count = desc->mesh->joint_count;
    crowd->vertex_count = desc->mesh->vertex_count;
    crowd->methods = GPUSKIN__VK_HEADER_SIZE;
    crowd->order = crowd->methods + (VkDeviceSize)desc->capacity * 4u;
    crowd->lbs = gpuskin__vk_align16(crowd->order + (VkDeviceSize)desc->capacity * 4u);
    crowd->dq = crowd->lbs + (VkDeviceSize)joints_total * 48u;
    crowd->residual = crowd->dq + (VkDeviceSize)joints_total * 32u;
    size = crowd->residual + (VkDeviceSize)joints_total * 48u;
    crowd->slot_size = size;

    crowd->residual_scratch =
        (float *)GPUSKIN_MALLOC((size_t)crowd->joint_count * GPUSKIN_RESIDUAL_FLOATS_PER_JOINT * sizeof(float),
                                ctx->alloc_user);
    crowd->slots = (gpuskin_buffer *)gpuskin__vk_calloc(ctx, sizeof(gpuskin_buffer) * crowd->frames);
    /* zeros: GPUSKIN__VK_KIND_LBS, as gpuskin__vk_slot_init's method words */
    crowd->kinds = (unsigned char *)gpuskin__vk_calloc(ctx, (size_t)crowd->capacity * crowd->frames);
    crowd->lbs_counts = (uint32_t *)gpuskin__vk_calloc(ctx, sizeof(uint32_t) * crowd->frames);
    if (!crowd->residual_scratch || !crowd->slots || !crowd->kinds || !crowd->lbs_counts)
        r = GPUSKIN_ERROR_OUT_OF_MEMORY;
    for (f = 0; f < crowd->frames && r == GPUSKIN_SUCCESS; ++f) crowd->lbs_counts[f] = crowd->capacity;
    for (f = 0; f < crowd->frames && r == GPUSKIN_SUCCESS; ++f) {
        r = gpuskin__vk_create_buffer(ctx, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, GPUSKIN_MEMORY_UPLOAD,
                                      &crowd->slots[f]);
        if (r == GPUSKIN_SUCCESS) gpuskin__vk_slot_init(crowd, &crowd->slots[f]);
    }
    if (r != GPUSKIN_SUCCESS) {
        gpuskin_crowd_destroy(crowd);
        return r;
    }
    *out = crowd;
    return GPUSKIN_SUCCESS;
}

/* After gpuskin_dq_uniform_scale set the uniform bit: whether every joint has the
   first joint's s, which that function writes exactly when they agree. */
static int gpuskin__vk_one_size(const float *residual, uint32_t joint_count)
{
    uint32_t j;
    for (j = 1; j < joint_count; ++j)
        if (residual[(size_t)j * GPUSKIN_RESIDUAL_FLOATS_PER_JOINT] != residual[0]) return 0;
    return 1;
}

/* Whether every joint's S has zeros below its diagonal (rows 1 and 2 start with
   them), as the Gram-Schmidt split writes for all but a degenerate matrix. */
static int gpuskin__vk_triangular(const float *residual, uint32_t joint_count)
{
    uint32_t j;
    for (j = 0; j < joint_count; ++j) {
        const float *r = residual + (size_t)j * GPUSKIN_RESIDUAL_FLOATS_PER_JOINT;
        if (r[4] != 0.0f || r[8] != 0.0f || r[9] != 0.0f) return 0;
    }
    return 1;
}

/* Whether every joint's S equals its transpose, bit for bit, as the polar split
   writes for all but a mirrored or singular matrix. */
static int gpuskin__vk_symmetric(const float *residual, uint32_t joint_count)
{
    uint32_t j;
    for (j = 0; j < joint_count; ++j) {
        const float *r = residual + (size_t)j * GPUSKIN_RESIDUAL_FLOATS_PER_JOINT;
        if (r[4] != r[1] || r[8] != r[2] || r[9] != r[6]) return 0;
    }
    return 1;
}

/* The GPUSKIN__VK_KIND_* of an instance, from its word and (for DQS with the
   residual bit) its residual rows. */
static unsigned char gpuskin__vk_kind(uint32_t word, const float *residual, uint32_t joint_count)
{
    if ((word & GPUSKIN_METHOD_ID_MASK) == GPUSKIN_METHOD_LBS) return GPUSKIN__VK_KIND_LBS;
    if (!(word & GPUSKIN_METHOD_RESIDUAL_BIT)) return GPUSKIN__VK_KIND_DQS_RIGID;
    if (word & GPUSKIN_METHOD_UNIFORM_BIT)
        return gpuskin__vk_one_size(residual, joint_count) ? GPUSKIN__VK_KIND_DQS_SIZED : GPUSKIN__VK_KIND_DQS_UNIFORM;
    if (gpuskin__vk_triangular(residual, joint_count)) return GPUSKIN__VK_KIND_DQS_TRIANGULAR;
    return gpuskin__vk_symmetric(residual, joint_count) ? GPUSKIN__VK_KIND_DQS_SYMMETRIC : GPUSKIN__VK_KIND_DQS_RESIDUAL;
}

/* The slot's instance list: its LBS instances, then its DQS ones (rigid or not),
   each in instance order. So the LBS instances of any range [a, b) sit together
   in the list, and so do its DQS ones: gpuskin__vk_list_rows finds where. */
static void gpuskin__vk_write_order(gpuskin_crowd *crowd, uint32_t frame)
{
    const unsigned char *kinds = crowd->kinds + (size_t)frame * crowd->capacity;
    uint32_t *order = (uint32_t *)(void *)((unsigned char *)crowd->slots[frame].mapped + crowd->order);
    uint32_t i, lbs = 0, dqs;
    for (i = 0; i < crowd->capacity; ++i) lbs += kinds[i] == GPUSKIN__VK_KIND_LBS;
    crowd->lbs_counts[frame] = lbs;
    for (dqs = lbs, lbs = 0, i = 0; i < crowd->capacity; ++i) order[kinds[i] == GPUSKIN__VK_KIND_LBS ? lbs++ : dqs++] = i;
}

GPUSKIN_API gpuskin_result gpuskin_crowd_upload(gpuskin_crowd *crowd, const gpuskin_crowd_upload_desc *desc)
{
    unsigned char *base;
    float *lbs, *dq, *residual;
    uint32_t *methods;
    unsigned char *kinds, kind;
    size_t J, i;
    gpuskin_result r = GPUSKIN_SUCCESS;
    int relisted = 0;

    if (!crowd || !desc) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (desc->frame >= crowd->frames) return GPUSKIN_ERROR_FRAME_SLOT;
    if (desc->instance_count > crowd->capacity) return GPUSKIN_ERROR_CAPACITY;
    if (desc->palette_joint_count != 0 && desc->palette_joint_count != crowd->joint_count)
        return GPUSKIN_ERROR_PALETTE_SIZE;
    if (desc->instance_count == 0) return GPUSKIN_SUCCESS;
    if (!desc->palettes) return GPUSKIN_ERROR_NULL_ARGUMENT;
    /* Methods are checked before anything is written, so a bad one leaves the slot
       as it was. A bad palette is found while packing: the slot then holds a mix
       and must be uploaded again before use. */
    if (desc->methods)
        for (i = 0; i < desc->instance_count; ++i)
            if (desc->methods[i] != GPUSKIN_METHOD_LBS && desc->methods[i] != GPUSKIN_METHOD_DQS)
                return GPUSKIN_ERROR_INVALID_METHOD;

    J = crowd->joint_count;
    base = (unsigned char *)crowd->slots[desc->frame].mapped;
    methods = (uint32_t *)(void *)(base + crowd->methods);
    lbs = (float *)(void *)(base + crowd->lbs);
    dq = (float *)(void *)(base + crowd->dq);
    residual = (float *)(void *)(base + crowd->residual);
    kinds = crowd->kinds + (size_t)desc->frame * crowd->capacity;
    for (i = 0; i < desc->instance_count; ++i) {
        const gpuskin_mat4 *palette = desc->palettes + i * J;
        uint32_t word = GPUSKIN_METHOD_LBS;
        if (desc->methods && desc->methods[i] == GPUSKIN_METHOD_DQS) {
            /* S goes to scratch first: only pack_dq knows whether any joint is
               non-rigid, and a rigid instance's residual is never read. */
            r = gpuskin_pack_dq_fast(palette, (uint32_t)J, desc->split, dq + i * J * GPUSKIN_DQ_FLOATS_PER_JOINT,
                                     crowd->residual_scratch, &word);
            if (r == GPUSKIN_SUCCESS) r = gpuskin_dq_uniform_scale(crowd->residual_scratch, (uint32_t)J, &word);
            if (r == GPUSKIN_SUCCESS && (word & GPUSKIN_METHOD_RESIDUAL_BIT)) {
                size_t j;
                /* row 1's w (unused, 0) repeats S22, so that kernels 7 and 8 read two rows, not three */
                for (j = 0; j < J; ++j)
                    crowd->residual_scratch[j * GPUSKIN_RESIDUAL_FLOATS_PER_JOINT + 7u] =
                        crowd->residual_scratch[j * GPUSKIN_RESIDUAL_FLOATS_PER_JOINT + 10u];
                memcpy(residual + i * J * GPUSKIN_RESIDUAL_FLOATS_PER_JOINT, crowd->residual_scratch,
                       J * GPUSKIN_RESIDUAL_FLOATS_PER_JOINT * sizeof(float));
            }
        } else {
#ifdef GPUSKIN__FAST_SSE2
            r = gpuskin__fast_pack_lbs(palette, (uint32_t)J, lbs + i * J * GPUSKIN_LBS_FLOATS_PER_JOINT);
#else
            r = gpuskin_pack_lbs(palette, (uint32_t)J, lbs + i * J * GPUSKIN_LBS_FLOATS_PER_JOINT);
#endif
        }
        if (r != GPUSKIN_SUCCESS) break;
        methods[i] = word;
        kind = gpuskin__vk_kind(word, crowd->residual_scratch, (uint32_t)J);
        relisted |= (kind == GPUSKIN__VK_KIND_LBS) != (kinds[i] == GPUSKIN__VK_KIND_LBS);
        kinds[i] = kind;
        if (desc->out_method_words) desc->out_method_words[i] = word;
    }
    /* also after a bad palette: the list must agree with the words written so far */
    if (relisted) gpuskin__vk_write_order(crowd, desc->frame);
    return r;
}

/* ---- Compute skinning ------------------------------------------------------------- */

GPUSKIN_API uint32_t gpuskin_output_stride(uint32_t output_flags)
{
    return 12u + ((output_flags & GPUSKIN_OUTPUT_NORMALS) ? 12u : 0u) +
           ((output_flags & GPUSKIN_OUTPUT_TANGENTS) ? 16u : 0u);
}

/* Where kernel 3 finds the rows of instances [first, first + count) in the slot's
   instance list: the range's LBS instances are lbs_rows entries from lbs_start,
   its DQS ones the rest, from dqs_start (see gpuskin__vk_write_order). */
static void gpuskin__vk_list_rows(const gpuskin_crowd *crowd, uint32_t frame, uint32_t first, uint32_t count,
                                  gpuskin__vk_skin_push *push)
{
    const unsigned char *kinds = crowd->kinds + (size_t)frame * crowd->capacity;
    uint32_t i, before = 0, inside = 0;
    for (i = 0; i < first; ++i) before += kinds[i] == GPUSKIN__VK_KIND_LBS;
    for (i = first; i < first + count; ++i) inside += kinds[i] == GPUSKIN__VK_KIND_LBS;
    push->lbs_start = before;
    push->lbs_rows = inside;
    push->dqs_start = crowd->lbs_counts[frame] + (first - before);
}

GPUSKIN_API gpuskin_result gpuskin_cmd_skin(gpuskin_crowd *crowd, VkCommandBuffer cmd,
                                            const gpuskin_skin_dispatch_desc *desc)
{
    const gpuskin_context *ctx;
    gpuskin__vk_skin_push push;
    uint64_t record, per_instance, chunk_max;
    uint32_t done, groups_x, kernel, per_invocation, i, seen;
    const unsigned char *kinds;

    if (!crowd || cmd == VK_NULL_HANDLE || !desc) return GPUSKIN_ERROR_NULL_ARGUMENT;
    ctx = crowd->ctx;
    if (desc->frame >= crowd->frames) return GPUSKIN_ERROR_FRAME_SLOT;
    if (desc->first_instance > crowd->capacity || desc->instance_count > crowd->capacity - desc->first_instance)
        return GPUSKIN_ERROR_CAPACITY;
    if (desc->output_flags & ~(GPUSKIN_OUTPUT_NORMALS | GPUSKIN_OUTPUT_TANGENTS))
        return GPUSKIN_ERROR_INVALID_ARGUMENT;
    if ((desc->kernel_flags & ~GPUSKIN_KERNEL_ANY_METHOD) ||
        (desc->instances_per_invocation & (desc->instances_per_invocation - 1u)) != 0 ||
        desc->instances_per_invocation > 16u)
        return GPUSKIN_ERROR_INVALID_ARGUMENT;
    /* A stream the mesh does not have cannot be skinned into the output. */
    if (((desc->output_flags & GPUSKIN_OUTPUT_NORMALS) && !(crowd->mesh->streams & GPUSKIN__VK_STREAM_NORMALS)) ||
        ((desc->output_flags & GPUSKIN_OUTPUT_TANGENTS) && !(crowd->mesh->streams & GPUSKIN__VK_STREAM_TANGENTS)))
        return GPUSKIN_ERROR_INVALID_ARGUMENT;
    if (desc->instance_count == 0) return GPUSKIN_SUCCESS;
    if (desc->output == 0) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (desc->output % 4u != 0) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    /* Recording order is all gpuskin can see: the upload must come first. */
    if (crowd->mesh->needs_upload) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    record = gpuskin_output_stride(desc->output_flags);
    per_instance = record * crowd->vertex_count;
    if (desc->output_size / per_instance < desc->instance_count) return GPUSKIN_ERROR_INVALID_ARGUMENT;

    /* The methods the range holds, as bits 1 << GPUSKIN__VK_KIND_*; stops once
       LBS meets a residual (any kind: a uniform S is a residual too), which
       means the general kernel. */
    kernel = GPUSKIN__VK_KERNEL_ANY;
    if (!(desc->kernel_flags & GPUSKIN_KERNEL_ANY_METHOD)) {
        const uint32_t lbs = 1u << GPUSKIN__VK_KIND_LBS, rigid = 1u << GPUSKIN__VK_KIND_DQS_RIGID,
                       sized = 1u << GPUSKIN__VK_KIND_DQS_SIZED, uniform = sized | (1u << GPUSKIN__VK_KIND_DQS_UNIFORM),
                       triangular = uniform | (1u << GPUSKIN__VK_KIND_DQS_TRIANGULAR),
                       symmetric = uniform | (1u << GPUSKIN__VK_KIND_DQS_SYMMETRIC),
                       residual = triangular | symmetric | (1u << GPUSKIN__VK_KIND_DQS_RESIDUAL);
        kinds = crowd->kinds + (size_t)desc->frame * crowd->capacity + desc->first_instance;
        seen = 1u << kinds[0];
        for (i = 1; i < desc->instance_count && !((seen & lbs) && (seen & residual)); ++i) seen |= 1u << kinds[i];
        if (seen == lbs) kernel = GPUSKIN__VK_KERNEL_LBS;
        if (seen == rigid) kernel = GPUSKIN__VK_KERNEL_DQS_RIGID;
        if (seen == (lbs | rigid)) kernel = GPUSKIN__VK_KERNEL_LBS_DQS;
        if ((seen & residual) && !(seen & ~residual)) kernel = GPUSKIN__VK_KERNEL_DQS_RESIDUAL;
        if ((seen & triangular) && !(seen & ~triangular)) kernel = GPUSKIN__VK_KERNEL_DQS_TRIANGULAR;
        if ((seen & symmetric) && !(seen & ~symmetric)) kernel = GPUSKIN__VK_KERNEL_DQS_SYMMETRIC;
        if ((seen & uniform) && !(seen & ~uniform)) kernel = GPUSKIN__VK_KERNEL_DQS_UNIFORM;
        /* kernel 6 reads each instance's word, so rigid instances (a size of 1) may join */
        if ((seen & sized) && !(seen & ~(sized | rigid))) kernel = GPUSKIN__VK_KERNEL_DQS_SIZED;
    }
    per_invocation = desc->instances_per_invocation;
    if (per_invocation == 0) {
        const uint64_t vertex_instances = (uint64_t)crowd->vertex_count * desc->instance_count;
        per_invocation = vertex_instances >= GPUSKIN__VK_FOUR_PER_INVOCATION_FROM  ? 4u
                         : vertex_instances >= GPUSKIN__VK_TWO_PER_INVOCATION_FROM ? 2u
                                                                                   : 1u;
        if (kernel != GPUSKIN__VK_KERNEL_ANY && vertex_instances >= GPUSKIN__VK_SOME_PER_INVOCATION_FROM)
            per_invocation = vertex_instances >= GPUSKIN__VK_MANY_PER_INVOCATION_FROM ? 16u : 8u;
    }

    /* One dispatch row (y) per per_invocation instances; rows are capped by the device limit and by
       32-bit float indexing within a dispatch, so a huge crowd takes several. */
    chunk_max = (uint64_t)UINT32_MAX / (per_instance / 4u);
    if (chunk_max > (uint64_t)ctx->max_groups_y * per_invocation) chunk_max = (uint64_t)ctx->max_groups_y * per_invocation;
    groups_x = (crowd->vertex_count + GPUSKIN__VK_LOCAL_SIZE - 1u) / GPUSKIN__VK_LOCAL_SIZE;
    if (groups_x > ctx->max_groups_x) groups_x = ctx->max_groups_x; /* skin.comp strides over the rest */

    ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE,
                              ctx->compute_pipelines[crowd->mesh->influence_sets == 2 ? 1 : 0][kernel][per_invocation <= 4u ? 0 : per_invocation == 8u ? 1 : 2]);
    GPUSKIN__VK_ZERO(push);
    push.frame = crowd->slots[desc->frame].address;
    push.order = crowd->slots[desc->frame].address + crowd->order;
    push.output_flags = desc->output_flags;
    push.rows_per_invocation = per_invocation;
    /* Records with normals are an even number of floats; every chunk starts a whole
       number of records in, so one test of the base address covers them all. */
    if ((desc->output_flags & GPUSKIN_OUTPUT_NORMALS) && desc->output % 8u == 0) push.output_flags |= GPUSKIN__VK_SKIN_PAIRS;
    for (done = 0; done < desc->instance_count;) {
        uint32_t n = desc->instance_count - done;
        if (n > chunk_max) n = (uint32_t)chunk_max;
        push.output = desc->output + (VkDeviceAddress)done * per_instance;
        push.first_instance = desc->first_instance + done;
        push.instance_count = n;
        if (kernel == GPUSKIN__VK_KERNEL_LBS_DQS) gpuskin__vk_list_rows(crowd, desc->frame, push.first_instance, n, &push);
        ctx->vk.vkCmdPushConstants(cmd, ctx->compute_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
        ctx->vk.vkCmdDispatch(cmd, groups_x, (n + per_invocation - 1u) / per_invocation, 1);
        done += n;
    }
    return GPUSKIN_SUCCESS;
}

/* ---- Drawing ---------------------------------------------------------------------- */

GPUSKIN_API void gpuskin_pipeline_destroy(gpuskin_pipeline *pipeline)
{
    gpuskin_context *ctx;
    if (!pipeline) return;
    ctx = pipeline->ctx;
    if (pipeline->pipeline != VK_NULL_HANDLE)
        ctx->vk.vkDestroyPipeline(ctx->device, pipeline->pipeline, ctx->vk_allocation_callbacks);
    GPUSKIN_FREE(pipeline, ctx->alloc_user);
}

static int gpuskin__vk_has_stencil(VkFormat f)
{
    return f == VK_FORMAT_S8_UINT || f == VK_FORMAT_D16_UNORM_S8_UINT || f == VK_FORMAT_D24_UNORM_S8_UINT ||
           f == VK_FORMAT_D32_SFLOAT_S8_UINT;
}

GPUSKIN_API gpuskin_result gpuskin_pipeline_create(gpuskin_context *ctx, const gpuskin_pipeline_desc *desc,
                                                   gpuskin_pipeline **out)
{
    static const VkDynamicState dynamic[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    gpuskin_pipeline *pipeline;
    VkShaderModule vert = VK_NULL_HANDLE, frag = VK_NULL_HANDLE;
    VkPipelineShaderStageCreateInfo stages[2];
    VkPipelineRenderingCreateInfo rendering;
    VkPipelineVertexInputStateCreateInfo vertex_input;
    VkPipelineInputAssemblyStateCreateInfo assembly;
    VkPipelineViewportStateCreateInfo viewport;
    VkPipelineRasterizationStateCreateInfo raster;
    VkPipelineMultisampleStateCreateInfo multisample;
    VkPipelineDepthStencilStateCreateInfo depth;
    VkPipelineColorBlendAttachmentState blend_attachment;
    VkPipelineColorBlendStateCreateInfo blend;
    VkPipelineDynamicStateCreateInfo dyn;
    VkGraphicsPipelineCreateInfo ci;
    VkSampleCountFlagBits samples;
    gpuskin_result r;
    VkResult vr;
    int has_depth;

    if (out) *out = NULL;
    if (!ctx || !desc || !out) return GPUSKIN_ERROR_NULL_ARGUMENT;
    if (!ctx->dynamic_rendering) return GPUSKIN_ERROR_MISSING_FEATURE;
    if (desc->color_format == VK_FORMAT_UNDEFINED) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    samples = desc->samples ? desc->samples : VK_SAMPLE_COUNT_1_BIT;
    if ((samples & (samples - 1)) != 0 || samples > VK_SAMPLE_COUNT_64_BIT) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    has_depth = desc->depth_format != VK_FORMAT_UNDEFINED;

    pipeline = (gpuskin_pipeline *)gpuskin__vk_calloc(ctx, sizeof *pipeline);
    if (!pipeline) return GPUSKIN_ERROR_OUT_OF_MEMORY;
    pipeline->ctx = ctx;
    r = gpuskin__vk_shader_module(ctx, gpuskin_spv_skin_vert, gpuskin_spv_skin_vert_size, &vert);
    if (r == GPUSKIN_SUCCESS) r = gpuskin__vk_shader_module(ctx, gpuskin_spv_skin_frag, gpuskin_spv_skin_frag_size, &frag);
    if (r != GPUSKIN_SUCCESS) {
        if (vert != VK_NULL_HANDLE) ctx->vk.vkDestroyShaderModule(ctx->device, vert, ctx->vk_allocation_callbacks);
        gpuskin_pipeline_destroy(pipeline);
        return r;
    }

    memset(stages, 0, sizeof stages);
    stages[0].sType = stages[1].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = vert;
    stages[0].pName = "main";
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = frag;
    stages[1].pName = "main";

    GPUSKIN__VK_ZERO(rendering);
    rendering.sType = VK_STRUCTURE_TYPE_PIPELINE_RENDERING_CREATE_INFO;
    rendering.colorAttachmentCount = 1;
    rendering.pColorAttachmentFormats = &desc->color_format;
    rendering.depthAttachmentFormat = desc->depth_format;
    /* A combined depth-stencil image is normally bound as both attachments. */
    rendering.stencilAttachmentFormat = gpuskin__vk_has_stencil(desc->depth_format) ? desc->depth_format
                                                                                    : VK_FORMAT_UNDEFINED;

    /* Vertex pulling: no bindings, no attributes. */
    GPUSKIN__VK_ZERO(vertex_input);
    vertex_input.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO;
    GPUSKIN__VK_ZERO(assembly);
    assembly.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO;
    assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    GPUSKIN__VK_ZERO(viewport);
    viewport.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO;
    viewport.viewportCount = 1;
    viewport.scissorCount = 1;
    GPUSKIN__VK_ZERO(raster);
    raster.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO;
    raster.polygonMode = VK_POLYGON_MODE_FILL;
    raster.cullMode = desc->cull_mode;
    raster.frontFace = desc->front_face;
    raster.lineWidth = 1.0f;
    GPUSKIN__VK_ZERO(multisample);
    multisample.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO;
    multisample.rasterizationSamples = samples;
    GPUSKIN__VK_ZERO(depth);
    depth.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO;
    depth.depthTestEnable = has_depth ? VK_TRUE : VK_FALSE;
    depth.depthWriteEnable = has_depth ? VK_TRUE : VK_FALSE;
    depth.depthCompareOp = VK_COMPARE_OP_LESS;
    GPUSKIN__VK_ZERO(blend_attachment);
    blend_attachment.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                                      VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
    GPUSKIN__VK_ZERO(blend);
    blend.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO;
    blend.attachmentCount = 1;
    blend.pAttachments = &blend_attachment;
    GPUSKIN__VK_ZERO(dyn);
    dyn.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO;
    dyn.dynamicStateCount = 2;
    dyn.pDynamicStates = dynamic;

    GPUSKIN__VK_ZERO(ci);
    ci.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO;
    ci.pNext = &rendering;
    ci.stageCount = 2;
    ci.pStages = stages;
    ci.pVertexInputState = &vertex_input;
    ci.pInputAssemblyState = &assembly;
    ci.pViewportState = &viewport;
    ci.pRasterizationState = &raster;
    ci.pMultisampleState = &multisample;
    ci.pDepthStencilState = &depth;
    ci.pColorBlendState = &blend;
    ci.pDynamicState = &dyn;
    ci.layout = ctx->draw_layout;
    vr = ctx->vk.vkCreateGraphicsPipelines(ctx->device, ctx->pipeline_cache, 1, &ci, ctx->vk_allocation_callbacks,
                                           &pipeline->pipeline);
    ctx->vk.vkDestroyShaderModule(ctx->device, vert, ctx->vk_allocation_callbacks);
    ctx->vk.vkDestroyShaderModule(ctx->device, frag, ctx->vk_allocation_callbacks);
    if (vr != VK_SUCCESS) {
        pipeline->pipeline = VK_NULL_HANDLE;
        gpuskin_pipeline_destroy(pipeline);
        return GPUSKIN_ERROR_VULKAN;
    }
    *out = pipeline;
    return GPUSKIN_SUCCESS;
}

GPUSKIN_API gpuskin_result gpuskin_cmd_draw(gpuskin_crowd *crowd, const gpuskin_pipeline *pipeline,
                                            VkCommandBuffer cmd, const gpuskin_draw_desc *desc)
{
    const gpuskin_context *ctx;
    const gpuskin_mesh *mesh;
    gpuskin__vk_draw_push push;

    if (!crowd || !pipeline || cmd == VK_NULL_HANDLE || !desc || !desc->view_proj)
        return GPUSKIN_ERROR_NULL_ARGUMENT;
    ctx = crowd->ctx;
    mesh = crowd->mesh;
    if (pipeline->ctx != ctx) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    if (desc->frame >= crowd->frames) return GPUSKIN_ERROR_FRAME_SLOT;
    if (desc->instance_count > crowd->capacity) return GPUSKIN_ERROR_CAPACITY;
    if (desc->flags & ~GPUSKIN_DRAW_TINT) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    if (mesh->index_count == 0 || mesh->needs_upload) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    if (desc->posed_output_flags & ~(GPUSKIN_OUTPUT_NORMALS | GPUSKIN_OUTPUT_TANGENTS))
        return GPUSKIN_ERROR_INVALID_ARGUMENT;
    if (desc->posed_vertices && desc->posed_vertices % 4u != 0) return GPUSKIN_ERROR_INVALID_ARGUMENT;
    /* skin.vert indexes the posed floats with a 32-bit uint. */
    if (desc->posed_vertices &&
        (uint64_t)desc->instance_count * mesh->vertex_count * (gpuskin_output_stride(desc->posed_output_flags) / 4u) >
            UINT32_MAX)
        return GPUSKIN_ERROR_OVERFLOW;
    if (desc->instance_count == 0) return GPUSKIN_SUCCESS;

    memcpy(push.view_proj, desc->view_proj, sizeof push.view_proj);
    if (desc->color[0] == 0.0f && desc->color[1] == 0.0f && desc->color[2] == 0.0f && desc->color[3] == 0.0f) {
        push.color[0] = push.color[1] = push.color[2] = 0.8f;
        push.color[3] = 1.0f;
    } else {
        memcpy(push.color, desc->color, sizeof push.color);
    }
    push.frame = crowd->slots[desc->frame].address;
    push.posed = desc->posed_vertices;
    push.flags = desc->flags & GPUSKIN_DRAW_TINT;
    if (desc->posed_vertices) {
        push.flags |= GPUSKIN__VK_DRAW_POSED;
        if (desc->posed_output_flags & GPUSKIN_OUTPUT_NORMALS) push.flags |= GPUSKIN__VK_DRAW_POSED_NORMALS;
        if (desc->posed_output_flags & GPUSKIN_OUTPUT_TANGENTS) push.flags |= GPUSKIN__VK_DRAW_POSED_TANGENTS;
    }
    push.pad = 0;

    ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline->pipeline);
    ctx->vk.vkCmdPushConstants(cmd, ctx->draw_layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof push, &push);
    ctx->vk.vkCmdBindIndexBuffer(cmd, mesh->buffer.buffer, mesh->indices, mesh->index_type);
    ctx->vk.vkCmdDrawIndexed(cmd, mesh->index_count, desc->instance_count, 0, 0, 0);
    return GPUSKIN_SUCCESS;
}

#ifdef __cplusplus
}
#endif
#endif /* GPUSKIN_NO_VULKAN */

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
