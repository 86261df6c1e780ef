/* gltf_model.h - load a glTF 2.0 file (.gltf or .glb) into the plain C structs
   that feed gpuskin. Part of gpuskin's tools, not of the library: gpuskin.h stays
   glTF-agnostic. The implementation (tools/gltf_model.cpp) is C++ on tinygltf; this
   interface is C, so C programs (examples, benchmarks) can load models too.

       gltf_model *m;  char err[512];
       if (gltf_model_load("CesiumMan.glb", &m, err, sizeof err) != 0) { puts(err); return 1; }
       gpuskin_skeleton skel;
       gpuskin_skeleton_init(&skel, &m->skins[0].desc);
       ... m->skinned_nodes[i].primitives[p].streams is a gpuskin_vertex_streams ...
       gltf_model_free(m);

   What the loader does, following glTF 2.0:
   - Every skin becomes a gpuskin_skeleton_desc: joint order as skin.joints lists
     them (any order, children may come first), parents remapped to joint indices
     (-1 = the joint's parent node is not a joint of this skin), inverseBindMatrices
     (NULL when absent: identity), the rest TRS of every joint node (a node `matrix`
     is decomposed into TRS), and root_parent_globals: for a root joint, the global
     transform of its parent node (the non-joint ancestors' transforms count). When
     a joint's parent is a non-joint node that itself sits below a joint, that
     parent's global transform is taken at the rest pose.
   - Every skinned node (a node with both `mesh` and `skin`), in ascending node
     index, with every primitive of its mesh converted to gpuskin_vertex_streams:
     POSITION, NORMAL, TANGENT, JOINTS_0/1 (u8 when every set is u8, else u16),
     WEIGHTS_0/1 as float (normalised u8/u16 converted). All arrays are copied out
     tightly packed, so strides, offsets and alignment of the file do not matter.
     Sparse accessors are applied. Indices (u8/u16/u32) become uint32_t. With
     KHR_mesh_quantization, integer POSITION and normalised BYTE/SHORT NORMAL and
     TANGENT are converted to float. A file that requires Draco or meshopt
     compression is refused (those are not decoded here).
     A mesh used by several skinned nodes is converted once and shared.
     The skinned node's own transform is NOT applied (glTF 2.0, "Skins").
   - Every animation becomes one gpuskin_clip per skin (clip k of every skin is
     animation k): channels targeting joints of that skin, with the joint index
     within the skin; channels on other nodes (and `weights` channels) are left out
     (gltf_model_clip.ignored_ancestor_channels counts those on a joint's ancestor).
     Rotation outputs in normalised integer types are converted to float.
   - Everything is validated before use: indices of every object, accessor and
     bufferView bounds (with overflow checks), component types, counts, node
     hierarchy (one parent, no cycles), vertex indices < vertex count, finite
     values, key times strictly increasing, and every joint index with a non-zero
     weight below the skin's joint count. A bad file gives a message, never a crash.
*/
#ifndef GLTF_MODEL_H
#define GLTF_MODEL_H

/* Includes gpuskin.h as the includer configured it (GPUSKIN_NO_VULKAN or not): only
   its C half is used here. Build with the repository root on the include path. */
#include "gpuskin.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bits of gltf_model_clip.interpolations: 1u << gpuskin_interpolation. */
#define GLTF_MODEL_INTERP_BIT(i) (1u << (unsigned)(i))

typedef struct gltf_model_clip {
    const char *name;              /* the animation's name ("" when it has none) */
    uint32_t animation;            /* index of the glTF animation */
    gpuskin_clip clip;             /* channels of this skin's joints only */
    uint32_t animation_channels;   /* all channels of the animation, any target */
    float start, end;              /* first and last key time over the whole animation */
    uint32_t interpolations;       /* GLTF_MODEL_INTERP_BIT of each sampler used by `clip` */
    /* Channels of the animation on a non-joint ANCESTOR of this skin's joints (e.g. an
       animated "Armature" node). glTF would move the skeleton with them; gpuskin's
       skeleton takes such ancestors as the fixed root_parent_globals, so they are left
       out and their rest transform is used. Reported so a tool can warn. */
    uint32_t ignored_ancestor_channels;
} gltf_model_clip;

typedef struct gltf_model_skin {
    const char *name;
    uint32_t skin;                 /* index of the glTF skin */
    uint32_t joint_count;
    const uint32_t *joint_nodes;   /* joint_count node indices, as skin.joints lists them */
    const char *const *joint_names;/* joint_count node names */
    int has_inverse_bind;          /* 0 when the file has no inverseBindMatrices */
    /* Ready for gpuskin_skeleton_init: parents, inverse_bind (NULL = identity),
       rest_pose, root_parent_globals; all arrays live as long as the model. */
    gpuskin_skeleton_desc desc;
    uint32_t clip_count;           /* = the model's animation_count */
    const gltf_model_clip *clips;
} gltf_model_skin;

typedef struct gltf_model_primitive {
    uint32_t primitive;            /* index within the glTF mesh */
    uint32_t mode;                 /* glTF primitive mode (4 = triangles) */
    gpuskin_vertex_streams streams;/* tightly packed copies, owned by the model */
    const uint32_t *indices;       /* NULL for a non-indexed primitive */
    uint32_t index_count;
    uint32_t max_joint;            /* largest joint index with a non-zero weight */
    /* What the file held, for reports: glTF componentType of JOINTS_0 / WEIGHTS_0. */
    uint32_t joints_component_type, weights_component_type;
} gltf_model_primitive;

typedef struct gltf_model_skinned_node {
    uint32_t node;                 /* glTF node index */
    const char *name;
    uint32_t mesh;                 /* glTF mesh index */
    const char *mesh_name;
    uint32_t skin;                 /* index into gltf_model.skins (= glTF skin index) */
    uint32_t primitive_count;
    const gltf_model_primitive *primitives; /* shared by the nodes that use the same mesh */
} gltf_model_skinned_node;

typedef struct gltf_model {
    uint32_t skin_count;
    const gltf_model_skin *skins;  /* every skin of the file, glTF order */
    uint32_t skinned_node_count;
    const gltf_model_skinned_node *skinned_nodes; /* ascending node index */
    uint32_t animation_count;
    uint32_t node_count;           /* all nodes of the file */
    /* Bounding box of the bind-pose positions of every skinned primitive. */
    float bounds_min[3], bounds_max[3];
    void *internal_;
} gltf_model;

/* Loads `path`. Returns 0 and sets *out on success; otherwise returns non-zero,
   sets *out to NULL and writes a one-line message (truncated to err_size) to err. */
int gltf_model_load(const char *path, gltf_model **out, char *err, size_t err_size);
void gltf_model_free(gltf_model *model);

/* The diagonal of the bind-pose bounding box (1 when it is empty or zero). */
float gltf_model_size(const gltf_model *model);

#ifdef __cplusplus
}
#endif
#endif /* GLTF_MODEL_H */
