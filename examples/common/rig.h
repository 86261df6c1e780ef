/* rig.h - procedural skinned models (and a camera) for gpuskin's examples, so they
   need no files.

   Header-only, C99, static functions (include it in one .c file). Uses only the
   C half of gpuskin.h (skeleton desc, vertex streams, clips), so it works with
   GPUSKIN_NO_VULKAN too.

       rig_model m;
       if (rig_humanoid(&m) != 0) return 1;          // 16 joints, 3 looping clips
       gpuskin_skeleton skel;
       gpuskin_skeleton_init(&skel, &m.skeleton_desc);
       gpuskin_clip_sample(&m.clips[RIG_CLIP_WALK], &skel, t, local_pose);
       ... m.streams (positions, normals, u16 joints, float weights), m.indices ...
       rig_free(&m);

   Models
   - rig_humanoid: a figure ~1.8 units tall standing on y = 0, facing +z, built from
     capsule tubes (torso, neck, arms, legs), a head sphere, hand spheres and foot
     boxes. Each limb is ONE continuous tube through its chain of joints with smooth
     two-joint weights around every inner joint (elbow, knee, wrist, ankle, spine),
     so bending shows what LBS and DQS do at a joint. Joints carry no rotation in the
     bind pose: inverseBind(j) = translate(-bind position of j), and the rest local
     TRS is the offset from the parent. Clips (all LINEAR keyframe channels built
     from sampled sine waves, looping seamlessly): walk (1.0 s), wave (1.6 s),
     twist (2.0 s: a squatting torso twist with the arms out).
   - rig_cylinder: a capped tube along +y from y = -half_length to +half_length,
     skinned to joint 0 (root, at the bottom) and joint 1 (child, at y = 0): weights
     blend smoothly over |y| < blend with exactly 0.5 / 0.5 on the middle ring,
     whose vertices are [middle_ring_first, + ring_vertex_count). Optional marker
     fins on +x at both ends (rigid to their joint) make a twist visible.

   Every vertex has up to two non-zero influences (u16 joints, float weights that
   sum to 1); normals are the area-weighted average of the adjacent faces. */
#ifndef GPUSKIN_EXAMPLES_RIG_H
#define GPUSKIN_EXAMPLES_RIG_H

#include "gpuskin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define RIG_FN static __attribute__((unused))
#else
#define RIG_FN static
#endif

#define RIG_MAX_JOINTS 32
#define RIG_MAX_CLIPS 4
#define RIG_MAX_CHANNELS 64
#define RIG_MAX_KEY_FLOATS 16384
#define RIG_PI 3.14159265358979323846f

enum { RIG_CLIP_WALK = 0, RIG_CLIP_WAVE = 1, RIG_CLIP_TWIST = 2 };

typedef struct rig_model {
    /* skeleton: ready for gpuskin_skeleton_init */
    uint32_t joint_count;
    int32_t parents[RIG_MAX_JOINTS];
    gpuskin_mat4 inverse_bind[RIG_MAX_JOINTS];
    gpuskin_trs rest[RIG_MAX_JOINTS];
    gpuskin_vec3 bind_position[RIG_MAX_JOINTS]; /* global, bind pose */
    const char *joint_names[RIG_MAX_JOINTS];
    gpuskin_skeleton_desc skeleton_desc;
    /* mesh: tightly packed arrays, owned (rig_free) */
    size_t vertex_count;
    float *positions;   /* 3 a vertex */
    float *normals;     /* 3 a vertex */
    uint16_t *joints;   /* 4 a vertex */
    float *weights;     /* 4 a vertex */
    uint32_t *indices;
    uint32_t index_count;
    gpuskin_vertex_streams streams;
    float bounds_min[3], bounds_max[3]; /* bind pose */
    /* clips */
    uint32_t clip_count;
    gpuskin_clip clips[RIG_MAX_CLIPS];
    const char *clip_names[RIG_MAX_CLIPS];
    uint32_t channel_count;
    gpuskin_channel channels[RIG_MAX_CHANNELS];
    uint32_t key_floats_used;
    float key_floats[RIG_MAX_KEY_FLOATS];
    /* rig_cylinder only */
    size_t middle_ring_first, ring_vertex_count;
    float cylinder_radius;
    /* building state */
    size_t vertex_capacity;
    uint32_t index_capacity;
    int failed;
} rig_model;

/* ---- mesh building -------------------------------------------------------- */

RIG_FN void rig__reserve(rig_model *m, size_t vertices, uint32_t indices)
{
    if (m->failed) return;
    if (m->vertex_count + vertices > m->vertex_capacity) {
        size_t cap = m->vertex_capacity ? m->vertex_capacity : 1024;
        float *p, *n, *w;
        uint16_t *j;
        while (cap < m->vertex_count + vertices) cap *= 2;
        p = (float *)realloc(m->positions, cap * 3 * sizeof(float));
        if (p) m->positions = p;
        n = (float *)realloc(m->normals, cap * 3 * sizeof(float));
        if (n) m->normals = n;
        j = (uint16_t *)realloc(m->joints, cap * 4 * sizeof(uint16_t));
        if (j) m->joints = j;
        w = (float *)realloc(m->weights, cap * 4 * sizeof(float));
        if (w) m->weights = w;
        if (!p || !n || !j || !w) {
            m->failed = 1;
            return;
        }
        m->vertex_capacity = cap;
    }
    if (m->index_count + indices > m->index_capacity) {
        uint32_t cap = m->index_capacity ? m->index_capacity : 4096;
        uint32_t *ix;
        while (cap < m->index_count + indices) cap *= 2;
        ix = (uint32_t *)realloc(m->indices, (size_t)cap * sizeof(uint32_t));
        if (!ix) {
            m->failed = 1;
            return;
        }
        m->indices = ix;
        m->index_capacity = cap;
    }
}

/* Adds a vertex bound to joint a with weight (1 - t) and joint b with weight t. */
RIG_FN uint32_t rig__vertex(rig_model *m, float x, float y, float z, uint32_t a, uint32_t b, float t)
{
    size_t v = m->vertex_count;
    rig__reserve(m, 1, 0);
    if (m->failed) return 0;
    m->positions[v * 3 + 0] = x;
    m->positions[v * 3 + 1] = y;
    m->positions[v * 3 + 2] = z;
    m->normals[v * 3 + 0] = m->normals[v * 3 + 1] = m->normals[v * 3 + 2] = 0.0f;
    if (t <= 0.0f || a == b) {
        b = a;
        t = 0.0f;
    } else if (t >= 1.0f) {
        a = b;
        t = 0.0f;
    }
    m->joints[v * 4 + 0] = (uint16_t)a;
    m->joints[v * 4 + 1] = (uint16_t)b;
    m->joints[v * 4 + 2] = 0;
    m->joints[v * 4 + 3] = 0;
    m->weights[v * 4 + 0] = 1.0f - t;
    m->weights[v * 4 + 1] = t;
    m->weights[v * 4 + 2] = 0.0f;
    m->weights[v * 4 + 3] = 0.0f;
    m->vertex_count = v + 1;
    return (uint32_t)v;
}

RIG_FN void rig__triangle(rig_model *m, uint32_t a, uint32_t b, uint32_t c)
{
    rig__reserve(m, 0, 3);
    if (m->failed) return;
    m->indices[m->index_count++] = a;
    m->indices[m->index_count++] = b;
    m->indices[m->index_count++] = c;
}

/* Two triangles, counter-clockwise seen from the side the quad faces. */
RIG_FN void rig__quad(rig_model *m, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    rig__triangle(m, a, b, c);
    rig__triangle(m, a, c, d);
}

RIG_FN float rig__smoothstep(float e0, float e1, float x)
{
    float t = (x - e0) / (e1 - e0);
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    return t * t * (3.0f - 2.0f * t);
}

/* A chain of joints along y: joint chain[k] owns the stretch between boundary k-1
   and boundary k (boundaries are y values in the chain's direction); around each
   boundary the weight moves smoothly from one joint to the next over +-blend. */
typedef struct rig__chain {
    uint32_t count;
    uint32_t joint[6];
    float boundary[5];
    float blend;
    int down;             /* the chain runs towards -y */
} rig__chain;

RIG_FN void rig__chain_weight(const rig__chain *c, float y, uint32_t *a, uint32_t *b, float *t)
{
    uint32_t k;
    *a = *b = c->joint[0];
    *t = 0.0f;
    for (k = 0; k + 1 < c->count; ++k) {
        float s = c->down ? c->boundary[k] - y : y - c->boundary[k]; /* > 0: past boundary k */
        if (s >= c->blend) { /* wholly past it: the next joint, or a later boundary */
            *a = *b = c->joint[k + 1];
            continue;
        }
        if (s > -c->blend) {
            *a = c->joint[k];
            *b = c->joint[k + 1];
            *t = rig__smoothstep(-c->blend, c->blend, s);
        }
        break;
    }
}

/* A capsule-like tube along y centred on (cx, cz): elliptical rings of radius
   (rx, rz) scaled by a taper from r_bottom to r_top, from y0 to y1 with rounded
   caps of height `cap`; weights from `chain` (NULL: all on joint 0). */
RIG_FN void rig__tube(rig_model *m, float cx, float cz, float rx, float rz, float taper_bottom, float taper_top,
                      float y0, float y1, float cap, int rings, int segments, const rig__chain *chain)
{
    int r, s;
    size_t first = m->vertex_count;
    int total = rings + 1;
    rig__reserve(m, (size_t)total * (size_t)segments, (uint32_t)(rings * segments * 6));
    for (r = 0; r <= rings; ++r) {
        float u = (float)r / (float)rings; /* 0 bottom .. 1 top */
        float y = y0 + (y1 - y0) * u, k = 1.0f;
        float taper = taper_bottom + (taper_top - taper_bottom) * u;
        uint32_t a, b;
        float t;
        if (y - y0 < cap) {
            float d = (cap - (y - y0)) / cap;
            k = sqrtf(1.0f - d * d);
        } else if (y1 - y < cap) {
            float d = (cap - (y1 - y)) / cap;
            k = sqrtf(1.0f - d * d);
        }
        if (k < 1e-3f) k = 1e-3f; /* the pole ring: tiny, not a point, so no zero-area fans */
        if (chain) {
            rig__chain_weight(chain, y, &a, &b, &t);
        } else {
            a = b = 0;
            t = 0.0f;
        }
        for (s = 0; s < segments; ++s) {
            float ang = 2.0f * RIG_PI * (float)s / (float)segments;
            rig__vertex(m, cx + rx * taper * k * sinf(ang), y, cz + rz * taper * k * cosf(ang), a, b, t);
        }
    }
    for (r = 0; r < rings; ++r)
        for (s = 0; s < segments; ++s) {
            uint32_t i0 = (uint32_t)(first + (size_t)r * segments + s);
            uint32_t i1 = (uint32_t)(first + (size_t)r * segments + (s + 1) % segments);
            uint32_t i2 = i1 + (uint32_t)segments, i3 = i0 + (uint32_t)segments;
            /* the ring angle runs from +z towards +x: i0, i1, i2, i3 faces outwards */
            rig__quad(m, i0, i1, i2, i3);
        }
}

/* An ellipsoid bound rigidly to one joint. */
RIG_FN void rig__ellipsoid(rig_model *m, float cx, float cy, float cz, float rx, float ry, float rz, int rings,
                           int segments, uint32_t joint)
{
    int r, s;
    size_t first = m->vertex_count;
    for (r = 0; r <= rings; ++r) {
        float phi = RIG_PI * (float)r / (float)rings; /* 0 bottom .. pi top */
        float y = -cosf(phi), k = sinf(phi);
        if (k < 1e-3f) k = 1e-3f;
        for (s = 0; s < segments; ++s) {
            float ang = 2.0f * RIG_PI * (float)s / (float)segments;
            rig__vertex(m, cx + rx * k * sinf(ang), cy + ry * y, cz + rz * k * cosf(ang), joint, joint, 0.0f);
        }
    }
    for (r = 0; r < rings; ++r)
        for (s = 0; s < segments; ++s) {
            uint32_t i0 = (uint32_t)(first + (size_t)r * segments + s);
            uint32_t i1 = (uint32_t)(first + (size_t)r * segments + (s + 1) % segments);
            rig__quad(m, i0, i1, i1 + (uint32_t)segments, i0 + (uint32_t)segments);
        }
}

/* An axis-aligned box bound rigidly to one joint (separate vertices per face). */
RIG_FN void rig__box(rig_model *m, float x0, float y0, float z0, float x1, float y1, float z1, uint32_t joint)
{
    static const int faces[6][4][3] = {
        {{1, 0, 0}, {1, 1, 0}, {1, 1, 1}, {1, 0, 1}}, /* +x */
        {{0, 0, 0}, {0, 0, 1}, {0, 1, 1}, {0, 1, 0}}, /* -x */
        {{0, 1, 0}, {0, 1, 1}, {1, 1, 1}, {1, 1, 0}}, /* +y */
        {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}}, /* -y */
        {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}, /* +z */
        {{0, 0, 0}, {0, 1, 0}, {1, 1, 0}, {1, 0, 0}}  /* -z */
    };
    int f, c;
    for (f = 0; f < 6; ++f) {
        uint32_t v[4];
        for (c = 0; c < 4; ++c)
            v[c] = rig__vertex(m, faces[f][c][0] ? x1 : x0, faces[f][c][1] ? y1 : y0, faces[f][c][2] ? z1 : z0,
                               joint, joint, 0.0f);
        rig__quad(m, v[0], v[1], v[2], v[3]);
    }
}

/* Area-weighted face normals summed per vertex, then normalised; streams and bounds. */
RIG_FN void rig__finish_mesh(rig_model *m)
{
    uint32_t i;
    size_t v;
    if (m->failed) return;
    memset(m->normals, 0, m->vertex_count * 3 * sizeof(float));
    for (i = 0; i + 2 < m->index_count; i += 3) {
        const float *a = m->positions + (size_t)m->indices[i] * 3, *b = m->positions + (size_t)m->indices[i + 1] * 3,
                    *c = m->positions + (size_t)m->indices[i + 2] * 3;
        float e1[3], e2[3], n[3];
        int k, q;
        for (k = 0; k < 3; ++k) {
            e1[k] = b[k] - a[k];
            e2[k] = c[k] - a[k];
        }
        n[0] = e1[1] * e2[2] - e1[2] * e2[1];
        n[1] = e1[2] * e2[0] - e1[0] * e2[2];
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        for (q = 0; q < 3; ++q)
            for (k = 0; k < 3; ++k) m->normals[(size_t)m->indices[i + q] * 3 + k] += n[k];
    }
    for (v = 0; v < m->vertex_count; ++v) {
        float *n = m->normals + v * 3, len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        int k;
        if (len > 1e-20f) {
            n[0] /= len; n[1] /= len; n[2] /= len;
        } else {
            n[0] = 0.0f; n[1] = 1.0f; n[2] = 0.0f;
        }
        for (k = 0; k < 3; ++k) {
            float p = m->positions[v * 3 + k];
            if (v == 0 || p < m->bounds_min[k]) m->bounds_min[k] = p;
            if (v == 0 || p > m->bounds_max[k]) m->bounds_max[k] = p;
        }
    }
    memset(&m->streams, 0, sizeof m->streams);
    m->streams.vertex_count = m->vertex_count;
    m->streams.positions.data = m->positions;
    m->streams.normals.data = m->normals;
    m->streams.influence_sets = 1;
    m->streams.joint_type = GPUSKIN_JOINT_U16;
    m->streams.joints[0].data = m->joints;
    m->streams.weights[0].data = m->weights;
}

/* ---- skeleton -------------------------------------------------------------- */

RIG_FN void rig__joint(rig_model *m, const char *name, int32_t parent, float x, float y, float z)
{
    uint32_t j = m->joint_count++;
    gpuskin_vec3 p;
    p.x = x; p.y = y; p.z = z;
    m->joint_names[j] = name;
    m->parents[j] = parent;
    m->bind_position[j] = p;
    m->inverse_bind[j] = gpuskin_mat4_identity();
    m->inverse_bind[j].m[12] = -x;
    m->inverse_bind[j].m[13] = -y;
    m->inverse_bind[j].m[14] = -z;
    m->rest[j] = gpuskin_trs_identity();
    if (parent >= 0) {
        p.x -= m->bind_position[parent].x;
        p.y -= m->bind_position[parent].y;
        p.z -= m->bind_position[parent].z;
    }
    m->rest[j].translation = p;
}

RIG_FN void rig__finish_skeleton(rig_model *m)
{
    memset(&m->skeleton_desc, 0, sizeof m->skeleton_desc);
    m->skeleton_desc.joint_count = m->joint_count;
    m->skeleton_desc.parents = m->parents;
    m->skeleton_desc.inverse_bind = m->inverse_bind;
    m->skeleton_desc.rest_pose = m->rest;
}

/* ---- clips ----------------------------------------------------------------- */

#define RIG_KEYS 17 /* keys per channel: 16 intervals over one period, last = first */

RIG_FN float *rig__keys(rig_model *m, uint32_t floats)
{
    float *p;
    if (m->key_floats_used + floats > RIG_MAX_KEY_FLOATS) {
        m->failed = 1;
        return NULL;
    }
    p = m->key_floats + m->key_floats_used;
    m->key_floats_used += floats;
    return p;
}

/* A rotation channel about `axis`: angle(t) = bias + amp * sin(2 pi (t / period + phase))
   (degrees), or with `rectify` max(0, sin) so a knee only bends one way. */
RIG_FN void rig__rot_channel(rig_model *m, uint32_t joint, float ax, float ay, float az, float period, float bias,
                             float amp, float phase, int rectify, int harmonic)
{
    gpuskin_channel *ch;
    float *times, *values;
    int k;
    if (m->failed || m->channel_count >= RIG_MAX_CHANNELS) {
        m->failed = 1;
        return;
    }
    times = rig__keys(m, RIG_KEYS);
    values = rig__keys(m, RIG_KEYS * 4);
    if (!times || !values) return;
    for (k = 0; k < RIG_KEYS; ++k) {
        float u = (float)k / (float)(RIG_KEYS - 1), s, deg;
        gpuskin_vec3 axis;
        gpuskin_quat q;
        s = sinf(2.0f * RIG_PI * ((float)harmonic * u + phase));
        if (rectify && s < 0.0f) s = 0.0f;
        deg = bias + amp * s;
        axis.x = ax; axis.y = ay; axis.z = az;
        q = gpuskin_quat_axis_angle(axis, deg * RIG_PI / 180.0f);
        times[k] = u * period;
        values[k * 4 + 0] = q.x;
        values[k * 4 + 1] = q.y;
        values[k * 4 + 2] = q.z;
        values[k * 4 + 3] = q.w;
    }
    ch = &m->channels[m->channel_count++];
    ch->joint = joint;
    ch->path = GPUSKIN_PATH_ROTATION;
    ch->interpolation = GPUSKIN_INTERP_LINEAR;
    ch->key_count = RIG_KEYS;
    ch->times = times;
    ch->values = values;
}

/* A translation channel: rest + (dx, dy, dz) * wave, wave = sin or (1 - cos) / 2. */
RIG_FN void rig__move_channel(rig_model *m, uint32_t joint, float dx, float dy, float dz, float period, float phase,
                              int harmonic, int raised_cosine)
{
    gpuskin_channel *ch;
    float *times, *values;
    int k;
    if (m->failed || m->channel_count >= RIG_MAX_CHANNELS) {
        m->failed = 1;
        return;
    }
    times = rig__keys(m, RIG_KEYS);
    values = rig__keys(m, RIG_KEYS * 3);
    if (!times || !values) return;
    for (k = 0; k < RIG_KEYS; ++k) {
        float u = (float)k / (float)(RIG_KEYS - 1);
        float a = 2.0f * RIG_PI * ((float)harmonic * u + phase);
        float w = raised_cosine ? 0.5f * (1.0f - cosf(a)) : sinf(a);
        times[k] = u * period;
        values[k * 3 + 0] = m->rest[joint].translation.x + dx * w;
        values[k * 3 + 1] = m->rest[joint].translation.y + dy * w;
        values[k * 3 + 2] = m->rest[joint].translation.z + dz * w;
    }
    ch = &m->channels[m->channel_count++];
    ch->joint = joint;
    ch->path = GPUSKIN_PATH_TRANSLATION;
    ch->interpolation = GPUSKIN_INTERP_LINEAR;
    ch->key_count = RIG_KEYS;
    ch->times = times;
    ch->values = values;
}

RIG_FN void rig__begin_clip(rig_model *m, const char *name)
{
    m->clip_names[m->clip_count] = name;
    m->clips[m->clip_count].channels = m->channels + m->channel_count;
    m->clips[m->clip_count].channel_count = 0;
}

RIG_FN void rig__end_clip(rig_model *m)
{
    gpuskin_clip *c = &m->clips[m->clip_count];
    c->channel_count = (uint32_t)(m->channels + m->channel_count - c->channels);
    m->clip_count++;
}

/* ---- public ---------------------------------------------------------------- */

RIG_FN void rig_free(rig_model *m)
{
    free(m->positions);
    free(m->normals);
    free(m->joints);
    free(m->weights);
    free(m->indices);
    m->positions = m->normals = m->weights = NULL;
    m->joints = NULL;
    m->indices = NULL;
    m->vertex_count = 0;
    m->index_count = 0;
}

/* Joint indices of rig_humanoid. */
enum {
    RIG_PELVIS = 0, RIG_SPINE, RIG_CHEST, RIG_HEAD,
    RIG_L_UPPERARM, RIG_L_FOREARM, RIG_L_HAND,
    RIG_R_UPPERARM, RIG_R_FOREARM, RIG_R_HAND,
    RIG_L_THIGH, RIG_L_SHIN, RIG_L_FOOT,
    RIG_R_THIGH, RIG_R_SHIN, RIG_R_FOOT,
    RIG_HUMANOID_JOINTS
};

/* Returns 0 on success (m is then owned: rig_free), non-zero when out of memory. */
RIG_FN int rig_humanoid(rig_model *m)
{
    static const float shoulder_x = 0.245f, hip_x = 0.095f;
    int side;
    rig__chain c;
    memset(m, 0, sizeof *m);

    rig__joint(m, "pelvis", -1, 0.0f, 0.95f, 0.0f);
    rig__joint(m, "spine", RIG_PELVIS, 0.0f, 1.15f, 0.0f);
    rig__joint(m, "chest", RIG_SPINE, 0.0f, 1.35f, 0.0f);
    rig__joint(m, "head", RIG_CHEST, 0.0f, 1.58f, 0.0f);
    rig__joint(m, "l_upperarm", RIG_CHEST, shoulder_x, 1.49f, 0.0f);
    rig__joint(m, "l_forearm", RIG_L_UPPERARM, shoulder_x, 1.21f, 0.0f);
    rig__joint(m, "l_hand", RIG_L_FOREARM, shoulder_x, 0.95f, 0.0f);
    rig__joint(m, "r_upperarm", RIG_CHEST, -shoulder_x, 1.49f, 0.0f);
    rig__joint(m, "r_forearm", RIG_R_UPPERARM, -shoulder_x, 1.21f, 0.0f);
    rig__joint(m, "r_hand", RIG_R_FOREARM, -shoulder_x, 0.95f, 0.0f);
    rig__joint(m, "l_thigh", RIG_PELVIS, hip_x, 0.92f, 0.0f);
    rig__joint(m, "l_shin", RIG_L_THIGH, hip_x, 0.50f, 0.0f);
    rig__joint(m, "l_foot", RIG_L_SHIN, hip_x, 0.09f, 0.0f);
    rig__joint(m, "r_thigh", RIG_PELVIS, -hip_x, 0.92f, 0.0f);
    rig__joint(m, "r_shin", RIG_R_THIGH, -hip_x, 0.50f, 0.0f);
    rig__joint(m, "r_foot", RIG_R_SHIN, -hip_x, 0.09f, 0.0f);
    rig__finish_skeleton(m);

    /* torso: pelvis -> spine -> chest, upwards */
    memset(&c, 0, sizeof c);
    c.count = 3;
    c.joint[0] = RIG_PELVIS; c.joint[1] = RIG_SPINE; c.joint[2] = RIG_CHEST;
    c.boundary[0] = 1.15f; c.boundary[1] = 1.35f;
    c.blend = 0.08f;
    rig__tube(m, 0.0f, 0.0f, 0.175f, 0.115f, 0.92f, 1.0f, 0.82f, 1.56f, 0.09f, 24, 24, &c);
    /* neck: chest -> head */
    c.count = 2;
    c.joint[0] = RIG_CHEST; c.joint[1] = RIG_HEAD;
    c.boundary[0] = 1.58f;
    c.blend = 0.04f;
    rig__tube(m, 0.0f, 0.0f, 0.055f, 0.055f, 1.0f, 1.0f, 1.48f, 1.70f, 0.02f, 8, 12, &c);
    /* head */
    rig__ellipsoid(m, 0.0f, 1.78f, 0.01f, 0.105f, 0.125f, 0.11f, 12, 18, RIG_HEAD);
    /* a nose, so the facing reads */
    rig__ellipsoid(m, 0.0f, 1.77f, 0.115f, 0.022f, 0.03f, 0.03f, 4, 8, RIG_HEAD);

    for (side = 0; side < 2; ++side) {
        float sx = side == 0 ? 1.0f : -1.0f;
        uint32_t up = side == 0 ? RIG_L_UPPERARM : RIG_R_UPPERARM;
        uint32_t th = side == 0 ? RIG_L_THIGH : RIG_R_THIGH;
        /* arm: upper -> fore -> hand, downwards */
        memset(&c, 0, sizeof c);
        c.count = 3;
        c.joint[0] = up; c.joint[1] = up + 1; c.joint[2] = up + 2;
        c.boundary[0] = 1.21f; c.boundary[1] = 0.95f;
        c.blend = 0.07f;
        c.down = 1;
        rig__tube(m, sx * shoulder_x, 0.0f, 0.058f, 0.058f, 0.8f, 1.0f, 0.93f, 1.55f, 0.05f, 22, 14, &c);
        rig__ellipsoid(m, sx * shoulder_x, 0.87f, 0.01f, 0.045f, 0.075f, 0.05f, 6, 10, up + 2);
        /* leg: thigh -> shin -> foot, downwards */
        memset(&c, 0, sizeof c);
        c.count = 3;
        c.joint[0] = th; c.joint[1] = th + 1; c.joint[2] = th + 2;
        c.boundary[0] = 0.50f; c.boundary[1] = 0.09f;
        c.blend = 0.08f;
        c.down = 1;
        rig__tube(m, sx * hip_x, 0.0f, 0.078f, 0.078f, 0.7f, 1.0f, 0.06f, 0.98f, 0.07f, 26, 14, &c);
        rig__box(m, sx * hip_x - 0.05f, 0.0f, -0.05f, sx * hip_x + 0.05f, 0.075f, 0.19f, th + 2);
    }
    rig__finish_mesh(m);

    /* walk: legs and arms swing in opposition, knees bend in the swing, the pelvis bobs */
    rig__begin_clip(m, "walk");
    rig__rot_channel(m, RIG_L_THIGH, 1, 0, 0, 1.0f, -5.0f, -28.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_R_THIGH, 1, 0, 0, 1.0f, -5.0f, 28.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_L_SHIN, 1, 0, 0, 1.0f, 5.0f, 50.0f, 0.25f, 1, 1);
    rig__rot_channel(m, RIG_R_SHIN, 1, 0, 0, 1.0f, 5.0f, 50.0f, 0.75f, 1, 1);
    rig__rot_channel(m, RIG_L_FOOT, 1, 0, 0, 1.0f, 0.0f, -12.0f, 0.25f, 0, 1);
    rig__rot_channel(m, RIG_R_FOOT, 1, 0, 0, 1.0f, 0.0f, -12.0f, 0.75f, 0, 1);
    rig__rot_channel(m, RIG_L_UPPERARM, 1, 0, 0, 1.0f, 0.0f, 30.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_R_UPPERARM, 1, 0, 0, 1.0f, 0.0f, -30.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_L_FOREARM, 1, 0, 0, 1.0f, -35.0f, -15.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_R_FOREARM, 1, 0, 0, 1.0f, -35.0f, 15.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_PELVIS, 0, 1, 0, 1.0f, 0.0f, 7.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_CHEST, 0, 1, 0, 1.0f, 0.0f, -10.0f, 0.0f, 0, 1);
    rig__move_channel(m, RIG_PELVIS, 0.0f, 0.035f, 0.0f, 1.0f, 0.25f, 2, 0);
    rig__end_clip(m);

    /* wave: right arm raised and waving from the elbow, head tilting, weight shifting */
    rig__begin_clip(m, "wave");
    rig__rot_channel(m, RIG_R_UPPERARM, 0, 0, 1, 1.6f, -145.0f, 8.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_R_FOREARM, 0, 0, 1, 1.6f, -15.0f, 35.0f, 0.0f, 0, 2);
    rig__rot_channel(m, RIG_R_HAND, 0, 0, 1, 1.6f, 0.0f, 20.0f, 0.1f, 0, 2);
    rig__rot_channel(m, RIG_L_UPPERARM, 0, 0, 1, 1.6f, 12.0f, 4.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_L_FOREARM, 1, 0, 0, 1.6f, -20.0f, 5.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_HEAD, 0, 0, 1, 1.6f, -6.0f, 8.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_SPINE, 0, 0, 1, 1.6f, 3.0f, 4.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_L_THIGH, 1, 0, 0, 1.6f, -8.0f, 8.0f, 0.0f, 1, 2);
    rig__rot_channel(m, RIG_L_SHIN, 1, 0, 0, 1.6f, 14.0f, 14.0f, 0.0f, 1, 2);
    rig__rot_channel(m, RIG_L_FOOT, 1, 0, 0, 1.6f, -6.0f, -6.0f, 0.0f, 1, 2);
    rig__move_channel(m, RIG_PELVIS, 0.03f, -0.015f, 0.0f, 1.6f, 0.0f, 1, 0);
    rig__end_clip(m);

    /* twist: squat and twist the torso, arms held out, forearms pumping */
    rig__begin_clip(m, "twist");
    rig__rot_channel(m, RIG_PELVIS, 0, 1, 0, 2.0f, 0.0f, -15.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_SPINE, 0, 1, 0, 2.0f, 0.0f, 30.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_CHEST, 0, 1, 0, 2.0f, 0.0f, 30.0f, 0.0f, 0, 1);
    rig__rot_channel(m, RIG_L_UPPERARM, 0, 0, 1, 2.0f, 80.0f, 10.0f, 0.0f, 0, 2);
    rig__rot_channel(m, RIG_R_UPPERARM, 0, 0, 1, 2.0f, -80.0f, 10.0f, 0.0f, 0, 2);
    rig__rot_channel(m, RIG_L_FOREARM, 0, 0, 1, 2.0f, 60.0f, 30.0f, 0.0f, 0, 2);
    rig__rot_channel(m, RIG_R_FOREARM, 0, 0, 1, 2.0f, -60.0f, 30.0f, 0.5f, 0, 2);
    rig__rot_channel(m, RIG_L_THIGH, 1, 0, 0, 2.0f, -25.0f, -20.0f, 0.25f, 0, 2);
    rig__rot_channel(m, RIG_R_THIGH, 1, 0, 0, 2.0f, -25.0f, -20.0f, 0.25f, 0, 2);
    rig__rot_channel(m, RIG_L_SHIN, 1, 0, 0, 2.0f, 50.0f, 40.0f, 0.25f, 0, 2);
    rig__rot_channel(m, RIG_R_SHIN, 1, 0, 0, 2.0f, 50.0f, 40.0f, 0.25f, 0, 2);
    rig__rot_channel(m, RIG_L_FOOT, 1, 0, 0, 2.0f, -25.0f, -20.0f, 0.25f, 0, 2);
    rig__rot_channel(m, RIG_R_FOOT, 1, 0, 0, 2.0f, -25.0f, -20.0f, 0.25f, 0, 2);
    rig__move_channel(m, RIG_PELVIS, 0.0f, -0.14f, 0.0f, 2.0f, 0.0f, 2, 1);
    rig__end_clip(m);

    if (m->failed) {
        rig_free(m);
        return 1;
    }
    return 0;
}

/* Returns 0 on success. rings: along the length (even, so one ring sits at y = 0);
   segments: around. blend: half-width of the weight transition around y = 0. */
RIG_FN int rig_cylinder(rig_model *m, float radius, float half_length, int rings, int segments, float blend,
                        int marker_fins)
{
    int r, s;
    size_t first;
    memset(m, 0, sizeof *m);
    if (rings < 2 || (rings & 1) || segments < 3) return 1;
    rig__joint(m, "root", -1, 0.0f, -half_length, 0.0f);
    rig__joint(m, "twist", 0, 0.0f, 0.0f, 0.0f);
    rig__finish_skeleton(m);
    m->cylinder_radius = radius;
    m->ring_vertex_count = (size_t)segments;
    first = m->vertex_count;
    for (r = 0; r <= rings; ++r) {
        float y = -half_length + 2.0f * half_length * (float)r / (float)rings;
        /* exactly 0.5 at y = 0 (smoothstep is symmetric) */
        float t = r * 2 == rings ? 0.5f : rig__smoothstep(-blend, blend, y);
        if (r * 2 == rings) m->middle_ring_first = m->vertex_count;
        for (s = 0; s < segments; ++s) {
            float ang = 2.0f * RIG_PI * (float)s / (float)segments;
            rig__vertex(m, radius * sinf(ang), y, radius * cosf(ang), 0, 1, t);
        }
    }
    for (r = 0; r < rings; ++r)
        for (s = 0; s < segments; ++s) {
            uint32_t i0 = (uint32_t)(first + (size_t)r * segments + s);
            uint32_t i1 = (uint32_t)(first + (size_t)r * segments + (s + 1) % segments);
            rig__quad(m, i0, i1, i1 + (uint32_t)segments, i0 + (uint32_t)segments);
        }
    /* flat caps: a centre vertex and a fan, each rigid to its end's joint */
    for (r = 0; r < 2; ++r) {
        float y = r == 0 ? -half_length : half_length;
        uint32_t j = r == 0 ? 0u : 1u, centre, ring0 = (uint32_t)m->vertex_count;
        for (s = 0; s < segments; ++s) {
            float ang = 2.0f * RIG_PI * (float)s / (float)segments;
            rig__vertex(m, radius * sinf(ang), y, radius * cosf(ang), j, j, 0.0f);
        }
        centre = rig__vertex(m, 0.0f, y, 0.0f, j, j, 0.0f);
        for (s = 0; s < segments; ++s) {
            uint32_t a = ring0 + (uint32_t)s, b = ring0 + (uint32_t)((s + 1) % segments);
            if (r == 0) rig__triangle(m, centre, b, a);
            else rig__triangle(m, centre, a, b);
        }
    }
    if (marker_fins) {
        /* a fin on +x at each end, rigid to its joint: after a half turn of joint 1
           the top fin points to -x */
        float h = 0.25f * half_length, w = 0.25f * radius;
        rig__box(m, 0.9f * radius, -half_length, -w, 1.8f * radius, -half_length + h, w, 0);
        rig__box(m, 0.9f * radius, half_length - h, -w, 1.8f * radius, half_length, w, 1);
    }
    rig__finish_mesh(m);
    if (m->failed) {
        rig_free(m);
        return 1;
    }
    return 0;
}

/* ---- camera ---------------------------------------------------------------- */

/* A right-handed look-at view times a perspective projection for Vulkan's clip
   space (y down, depth 0..1), column-major as gpuskin_draw_desc.view_proj wants. */
RIG_FN gpuskin_mat4 rig_view_proj(gpuskin_vec3 eye, gpuskin_vec3 target, float fovy_radians, float aspect, float znear,
                                  float zfar)
{
    gpuskin_mat4 v = gpuskin_mat4_identity(), p;
    float f[3], s[3], u[3], len, t;
    int k;
    f[0] = target.x - eye.x; f[1] = target.y - eye.y; f[2] = target.z - eye.z;
    len = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (k = 0; k < 3; ++k) f[k] /= len;
    /* s = f x up(0,1,0) */
    s[0] = -f[2]; s[1] = 0.0f; s[2] = f[0];
    len = sqrtf(s[0] * s[0] + s[2] * s[2]);
    if (len < 1e-6f) { s[0] = 1.0f; s[2] = 0.0f; len = 1.0f; }
    s[0] /= len; s[2] /= len;
    u[0] = s[1] * f[2] - s[2] * f[1];
    u[1] = s[2] * f[0] - s[0] * f[2];
    u[2] = s[0] * f[1] - s[1] * f[0];
    for (k = 0; k < 3; ++k) {
        v.m[k * 4 + 0] = s[k];
        v.m[k * 4 + 1] = u[k];
        v.m[k * 4 + 2] = -f[k];
    }
    v.m[12] = -(s[0] * eye.x + s[1] * eye.y + s[2] * eye.z);
    v.m[13] = -(u[0] * eye.x + u[1] * eye.y + u[2] * eye.z);
    v.m[14] = f[0] * eye.x + f[1] * eye.y + f[2] * eye.z;
    memset(&p, 0, sizeof p);
    t = 1.0f / tanf(0.5f * fovy_radians);
    p.m[0] = t / aspect;
    p.m[5] = -t; /* Vulkan: +y is down in clip space */
    p.m[10] = zfar / (znear - zfar);
    p.m[11] = -1.0f;
    p.m[14] = znear * zfar / (znear - zfar);
    return gpuskin_mat4_mul(&p, &v);
}

/* Clip-space x/w, y/w of a point (w <= 0 gives a large value). */
RIG_FN void rig_project(const gpuskin_mat4 *vp, float x, float y, float z, float *nx, float *ny)
{
    const float *m = vp->m;
    float cx = m[0] * x + m[4] * y + m[8] * z + m[12];
    float cy = m[1] * x + m[5] * y + m[9] * z + m[13];
    float cw = m[3] * x + m[7] * y + m[11] * z + m[15];
    if (cw <= 1e-6f) {
        *nx = *ny = 1e6f;
        return;
    }
    *nx = cx / cw;
    *ny = cy / cw;
}

/* A camera looking at the centre of `count` points (xyz each) from direction `dir`
   (from the target towards the eye), moved along it until every point, grown to
   a cube of half-size pads[i] (pads NULL: `pad` for all), lies inside +-margin of
   the normalised screen, and
   the picture shifted (an off-centre projection) so that what it covers sits in
   the middle of the frame. Returns view_proj; *out_eye (optional) gets the eye. */
RIG_FN gpuskin_mat4 rig_frame_points(const float *points, const float *pads, size_t count, float pad,
                                     gpuskin_vec3 dir, float fovy_radians, float aspect, float margin,
                                     gpuskin_vec3 *out_eye)
{
    gpuskin_vec3 target, eye;
    float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, len, diag, ox = 0.0f, oy = 0.0f;
    size_t i;
    int pass, it, c, k;
    gpuskin_mat4 vp = gpuskin_mat4_identity(), shift = gpuskin_mat4_identity();
    for (i = 0; i < count; ++i)
        for (k = 0; k < 3; ++k) {
            float v = points[i * 3 + k], r = pads ? pads[i] : pad;
            if (i == 0 || v - r < lo[k]) lo[k] = v - r;
            if (i == 0 || v + r > hi[k]) hi[k] = v + r;
        }
    target.x = 0.5f * (lo[0] + hi[0]);
    target.y = 0.5f * (lo[1] + hi[1]);
    target.z = 0.5f * (lo[2] + hi[2]);
    len = sqrtf(dir.x * dir.x + dir.y * dir.y + dir.z * dir.z);
    dir.x /= len; dir.y /= len; dir.z /= len;
    diag = sqrtf((hi[0] - lo[0]) * (hi[0] - lo[0]) + (hi[1] - lo[1]) * (hi[1] - lo[1]) +
                 (hi[2] - lo[2]) * (hi[2] - lo[2]));
    if (diag < 1e-3f) diag = 1.0f;
    eye = target;
    for (pass = 0; pass < 4; ++pass) {
        float near_d = 0.5f * diag, far_d = 100.0f * diag; /* the eye stays outside the box */
        float x0 = 1e30f, x1 = -1e30f, y0 = 1e30f, y1 = -1e30f;
        for (it = 0; it <= 40; ++it) { /* bisection on the distance; the last step takes far_d */
            float d = it == 40 ? far_d : 0.5f * (near_d + far_d), worst = 0.0f;
            gpuskin_mat4 view_proj;
            eye.x = target.x + dir.x * d;
            eye.y = target.y + dir.y * d;
            eye.z = target.z + dir.z * d;
            view_proj = rig_view_proj(eye, target, fovy_radians, aspect, 0.05f * diag, d + 2.0f * diag);
            shift.m[12] = ox;
            shift.m[13] = oy;
            vp = gpuskin_mat4_mul(&shift, &view_proj);
            for (i = 0; i < count && (it == 40 || worst <= margin); ++i)
                for (c = 0; c < 8; ++c) {
                    float nx, ny, r = pads ? pads[i] : pad;
                    rig_project(&vp, points[i * 3 + 0] + ((c & 1) ? r : -r), points[i * 3 + 1] + ((c & 2) ? r : -r),
                                points[i * 3 + 2] + ((c & 4) ? r : -r), &nx, &ny);
                    if (fabsf(nx) > worst) worst = fabsf(nx);
                    if (fabsf(ny) > worst) worst = fabsf(ny);
                    if (nx < x0) x0 = nx;
                    if (nx > x1) x1 = nx;
                    if (ny < y0) y0 = ny;
                    if (ny > y1) y1 = ny;
                }
            if (it == 40) break;
            if (worst > margin) near_d = d;
            else far_d = d;
            x0 = y0 = 1e30f;
            x1 = y1 = -1e30f;
        }
        ox -= 0.5f * (x0 + x1); /* centre what the frame covers */
        oy -= 0.5f * (y0 + y1);
    }
    if (out_eye) *out_eye = eye;
    return vp;
}

#endif /* GPUSKIN_EXAMPLES_RIG_H */
