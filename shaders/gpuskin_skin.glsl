// gpuskin_skin.glsl - the skinning maths of gpuskin, in GLSL.
//
// This file is the one source of truth for what the GPU computes. skin.vert (which
// draws) and skin.comp (which writes posed vertices to a buffer) both include it, and
// gpuskin_skin_cpu() in gpuskin.h follows it statement for statement (one difference
// of structure: what depends on the vertex alone is worked out once here, in
// gpuskin_fetch_influences, and in each blend there, by the same operations), so a
// test that compares the compute output with the CPU oracle is evidence about the
// code that renders. The oracle follows the matrix path (gpuskin_skin_transform,
// then gpuskin_skin_point / _normal / _tangent), which skin.vert takes; skin.comp
// applies a DQS instance's blend without its matrix (gpuskin_dq_point / _normal /
// _tangent; all but kernel 3's one workgroup row that straddles LBS and DQS): the
// same maths, fewer operations, results a few ulp apart. gpuskin_shaders.h exports it as the C string gpuskin_glsl_skin for hosts
// that want to skin in their own shaders against gpuskin's buffers.
//
// A host including it must first have:
//     #version 450                                   (or later)
//     #extension GL_EXT_buffer_reference : require
// and, to use #include itself, GL_GOOGLE_include_directive. It declares no
// inputs, outputs or push constants: the host reaches everything through a
// gpuskin_Frame reference (the header gpuskin writes at the start of every
// crowd frame slot; see gpuskin.h for its C twin).
// In a host's vertex shader (frame = the slot's gpuskin_Frame address, pushed):
//     mat3x4 m = gpuskin_skin_transform(frame, uint(gl_InstanceIndex), uint(gl_VertexIndex));
//     vec3 p = gpuskin_skin_point(m, gpuskin_bind_position(frame, uint(gl_VertexIndex)));
//     vec3 n = gpuskin_skin_normal(m, gpuskin_bind_normal(frame, uint(gl_VertexIndex)));
// For an instance whose method is DQS, gpuskin_blend_dq_parts followed by
// gpuskin_dq_point / _normal / _tangent gives the same with fewer operations
// (skin.comp's DQS kernels do that).
// Optional defines: GPUSKIN_GLSL_MAX_SETS (1 or 2, default 2) caps the
// influence sets the code is compiled for; a mesh with more sets than that is
// skinned with its first sets only, so leave it at 2 unless every mesh has one.
//
// Every identifier is prefixed gpuskin_ (types gpuskin_ + capital).
//
// Arithmetic notes, all of them mirrored in the C oracle:
// - weights are renormalised here (not at upload), so a file whose weights sum to
//   0.9 keeps its bytes and still does not shrink;
// - an influence of weight 0 is skipped, never read (its joint index is 0 in the
//   GPU copy, but the C oracle never reads it at all); a denormal weight counts
//   as 0, as on a GPU that flushes denormals (Vulkan allows either);
// - 1/sqrt(x), not inversesqrt(x): inversesqrt is allowed 2 ulp and drivers use a
//   hardware approximation, which would be a difference the oracle cannot mirror;
// - the normal is sign(det(A)) cofactor(A) n, normalised (the inverse transpose
//   up to the positive factor 1/|det| that normalising removes), spelled out,
//   not inverse(): GLSL's inverse() has no precision requirement at all;
// - normalising multiplies by 1/length (one reciprocal, not three divisions).

#ifndef GPUSKIN_SKIN_GLSL
#define GPUSKIN_SKIN_GLSL

#ifndef GPUSKIN_GLSL_MAX_SETS
#define GPUSKIN_GLSL_MAX_SETS 2
#endif

// ---- Buffers ---------------------------------------------------------------
// Alignments are the smallest each element needs, so a host may hand any
// element-aligned address (e.g. an output range inside a larger buffer).
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer gpuskin_Floats { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer gpuskin_OutFloats { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer gpuskin_Uints { uint v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer gpuskin_Uvec2s { uvec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer gpuskin_Vec4s { vec4 v[]; };

// The mesh streams (structure of arrays, one allocation; vertex v of set s):
//   positions  float[3]    at v*3            12 bytes
//   normals    float[3]    at v*3            12 bytes, when streams & 1
//   tangents   vec4        at v              16 bytes, when streams & 2
//   joints     uvec2       at v*sets + s      8 bytes a set: 4 x 16-bit, (j0 | j1<<16, j2 | j3<<16)
//   weights    vec4        at v*sets + s     16 bytes a set: the raw weights, not renormalised
// The palettes of one frame slot, instance i, joint j (instance-major):
//   lbs        3 vec4 at (i*joint_count + j)*3: the rows of the 3x4 affine
//   dq         2 vec4 at (i*joint_count + j)*2: real, dual
//   residual   3 vec4 at (i*joint_count + j)*3: the rows of S (w unused); with the
//              uniform bit S = s*I exactly, s = row 0's x
//   methods    one uint per instance: bits 0..3 method id, bit 4 residual, bit 5 uniform
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer gpuskin_Frame {
    gpuskin_Floats positions;
    gpuskin_Floats normals;
    gpuskin_Vec4s tangents;
    gpuskin_Uvec2s joints;
    gpuskin_Vec4s weights;
    gpuskin_Vec4s lbs;
    gpuskin_Vec4s dq;
    gpuskin_Vec4s residual;
    gpuskin_Uints methods;
    uint vertex_count;
    uint joint_count;
    uint influence_sets;   // 1 or 2
    uint streams;          // bit 0: normals, bit 1: tangents
};

const uint gpuskin_METHOD_LBS = 0u;
const uint gpuskin_METHOD_DQS = 1u;
const uint gpuskin_METHOD_ID_MASK = 0xFu;
const uint gpuskin_METHOD_RESIDUAL_BIT = 0x10u;
const uint gpuskin_METHOD_UNIFORM_BIT = 0x20u;  // with the residual bit: every joint's S is s*I
const uint gpuskin_STREAM_NORMALS = 1u;
const uint gpuskin_STREAM_TANGENTS = 2u;
const float gpuskin_MIN_WEIGHT = 1.17549435e-38;  // FLT_MIN

// ---- Influences -----------------------------------------------------------
// k = 4 * sets influences, in set order (but see gpuskin_PIVOT_FIRST). Fixed-size
// arrays indexed by loops of constant bounds, so the compiler unrolls them into
// registers. Everything that depends on the vertex alone (the renormalised
// weights, which weights count, the DQS pivot) is worked out here once, for all
// the instances a compute invocation skins; the oracle works it out in each blend,
// with the same operations in the same order, so the values are the same. The
// joints stay packed two a word: the fewer registers a vertex holds across its
// instances, the more warps an SM runs (on an H200 this form ran rigid DQS ~2 %
// and mixed LBS + DQS crowds ~4 % faster than joints unpacked and weights
// renormalised in each blend; BENCHMARKS.md).
struct gpuskin_Influences {
    uint joint_pairs[4];  // joint 2i in the low 16 bits, joint 2i + 1 in the high ones
    float weight[8];      // renormalised: the weight times 1 / (sum of the weights)
    uint nonzero;         // bit i set: weight i is not 0 (a denormal counts as 0)
    uint pivot_joint;     // DQS's antipodal pivot's joint; gpuskin_NO_PIVOT when no weight is > 0
};
const uint gpuskin_NO_PIVOT = 0xFFFFFFFFu;  // no joint index: they are 16-bit

uint gpuskin_joint(gpuskin_Influences inf, int i)
{
    uint pair = inf.joint_pairs[i >> 1];
    return (i & 1) != 0 ? pair >> 16u : pair & 0xFFFFu;
}

// Whether influence i counts (its weight is not 0); one that does not is never read.
bool gpuskin_weighted(gpuskin_Influences inf, int i)
{
    return (inf.nonzero & (1u << uint(i))) != 0u;
}

// Influences looked at: 4 a set. GPUSKIN_GLSL_MAX_SETS may be a specialization
// constant (skin.comp is specialised per mesh), so this is one too.
const int gpuskin_K = 4 * int(GPUSKIN_GLSL_MAX_SETS);

// GPUSKIN_GLSL_PIVOT_FIRST, a constant expression a includer may define before
// the include (skin.comp does; false if not): gpuskin_fetch_influences then moves
// the DQS pivot's influence into slot 0, and the DQS blends take the pivot's
// quaternion from that slot's load instead of loading it once more. The weights
// and joints are the same, summed in another order, so the results differ from
// the oracle's by rounding only.
#ifndef GPUSKIN_GLSL_PIVOT_FIRST
#define GPUSKIN_GLSL_PIVOT_FIRST false
#endif
const bool gpuskin_PIVOT_FIRST = GPUSKIN_GLSL_PIVOT_FIRST;

gpuskin_Influences gpuskin_fetch_influences(gpuskin_Frame f, uint vertex)
{
    gpuskin_Influences inf;
    float raw[8];
    uint sets = f.influence_sets;
    for (uint s = 0u; s < uint(GPUSKIN_GLSL_MAX_SETS); ++s) {
        uvec2 j = uvec2(0u);
        vec4 w = vec4(0.0);
        if (s < sets) {
            j = f.joints.v[vertex * sets + s];
            w = f.weights.v[vertex * sets + s];
        }
        inf.joint_pairs[s * 2u + 0u] = j.x;
        inf.joint_pairs[s * 2u + 1u] = j.y;
        // A denormal weight counts as 0, whether or not this GPU flushes denormals.
        w = mix(w, vec4(0.0), lessThan(abs(w), vec4(gpuskin_MIN_WEIGHT)));
        raw[s * 4u + 0u] = w.x;
        raw[s * 4u + 1u] = w.y;
        raw[s * 4u + 2u] = w.z;
        raw[s * 4u + 3u] = w.w;
    }
    // sum = w[0] + ... + w[k-1], in order; unused slots of a 1-set mesh are 0 and
    // change nothing (x + 0 == x exactly). Weights summing to 0 keep norm 1.
    float sum = 0.0;
    for (int i = 0; i < gpuskin_K; ++i) sum += raw[i];
    float norm = sum > 0.0 ? 1.0 / sum : 1.0;
    inf.nonzero = 0u;
    inf.pivot_joint = gpuskin_NO_PIVOT;
    float best = 0.0;
    int pivot_slot = 0;
    for (int i = 0; i < gpuskin_K; ++i) {
        inf.weight[i] = raw[i] * norm;
        if (raw[i] != 0.0) inf.nonzero |= 1u << uint(i);
        // DQS's antipodal pivot: the highest weight, the first on a tie (strict >
        // from 0), so both ends of a 0.5/0.5 ring agree on the sign convention.
        if (raw[i] > best) {
            best = raw[i];
            inf.pivot_joint = gpuskin_joint(inf, i);
            pivot_slot = i;
        }
    }
    // gpuskin_PIVOT_FIRST: the pivot's influence trades places with slot 0's
    // (weight, joint and whether it counts; weight[pivot_slot] is best * norm).
    if (gpuskin_PIVOT_FIRST && pivot_slot > 0) {
        uint shift = uint(pivot_slot & 1) * 16u;
        uint j0 = inf.joint_pairs[0] & 0xFFFFu;
        float w0 = inf.weight[0];
        for (int i = 1; i < gpuskin_K; ++i)
            inf.weight[i] = i == pivot_slot ? w0 : inf.weight[i];
        for (int k = 0; k < gpuskin_K / 2; ++k)
            if (k == (pivot_slot >> 1))
                inf.joint_pairs[k] = (inf.joint_pairs[k] & ~(0xFFFFu << shift)) | (j0 << shift);
        inf.weight[0] = best * norm;
        inf.joint_pairs[0] = (inf.joint_pairs[0] & 0xFFFF0000u) | inf.pivot_joint;
        inf.nonzero = (inf.nonzero & ~(1u << uint(pivot_slot))) | ((inf.nonzero & 1u) << uint(pivot_slot)) | 1u;
    }
    return inf;
}

// ---- Palette addresses -----------------------------------------------------
// The frame's palette references and joint count, copied out of the frame once.
// A compute shader that writes through another reference would otherwise load
// them from the frame again after every store (the compiler cannot know that the
// output does not overlap the frame), each time in front of the palette loads.
struct gpuskin_Palettes {
    gpuskin_Vec4s lbs;
    gpuskin_Vec4s dq;
    gpuskin_Vec4s residual;
    uint joint_count;
};

gpuskin_Palettes gpuskin_load_palettes(gpuskin_Frame f)
{
    gpuskin_Palettes p;
    p.lbs = f.lbs;
    p.dq = f.dq;
    p.residual = f.residual;
    p.joint_count = f.joint_count;
    return p;
}

// ---- The blended transform --------------------------------------------------
// A 3x4 affine kept as its three ROWS, m[r] = row r: p' = vec4(p, 1) * m
// (vector times matrix is a dot with each column, i.e. each row here). It is
// what both methods return, so position, normal and tangent code is shared.
mat3x4 gpuskin_identity_rows()
{
    return mat3x4(vec4(1.0, 0.0, 0.0, 0.0), vec4(0.0, 1.0, 0.0, 0.0), vec4(0.0, 0.0, 1.0, 0.0));
}

// Linear blend: the weighted sum of the palette rows. An unweighted vertex gets
// the identity, keeping its bind pose instead of collapsing to the origin.
mat3x4 gpuskin_blend_lbs(gpuskin_Palettes p, uint palette_base, gpuskin_Influences inf)
{
    vec4 r0 = vec4(0.0), r1 = vec4(0.0), r2 = vec4(0.0);
    bool contributed = false;
    for (int i = 0; i < gpuskin_K; ++i) {
        if (gpuskin_weighted(inf, i)) {
            float wi = inf.weight[i];
            uint b = (palette_base + gpuskin_joint(inf, i)) * 3u;
            r0 += p.lbs.v[b + 0u] * wi;
            r1 += p.lbs.v[b + 1u] * wi;
            r2 += p.lbs.v[b + 2u] * wi;
            contributed = true;
        }
    }
    if (!contributed) return gpuskin_identity_rows();
    return mat3x4(r0, r1, r2);
}

// v rotated by the unit quaternion q = (x, y, z, w).
vec3 gpuskin_quat_rotate(vec4 q, vec3 v)
{
    vec3 u = 2.0 * cross(q.xyz, v);
    return v + q.w * u + cross(q.xyz, u);
}

// A dual-quaternion blend before it becomes a matrix: the unit rotation
// quaternion R, the translation t and the rows of the blended residual S (the
// identity when rigid), so that the blended transform is p' = R (S p) + t.
struct gpuskin_DqBlend {
    vec4 real;
    vec3 t;
    vec3 s0, s1, s2;
};

// Dual-quaternion blend. Every quaternion is blended on the pivot's hemisphere
// (the pivot is chosen in gpuskin_fetch_influences); without a pivot (no positive
// weight) the vertex keeps its bind pose. The residual S is blended without the
// sign: a shear or scale has no antipode.
gpuskin_DqBlend gpuskin_blend_dq_parts(gpuskin_Palettes p, uint palette_base, gpuskin_Influences inf, bool use_residual)
{
    gpuskin_DqBlend b;
    b.s0 = vec3(1.0, 0.0, 0.0);
    b.s1 = vec3(0.0, 1.0, 0.0);
    b.s2 = vec3(0.0, 0.0, 1.0);
    if (inf.pivot_joint == gpuskin_NO_PIVOT) {
        b.real = vec4(0.0, 0.0, 0.0, 1.0);
        b.t = vec3(0.0);
        return b;
    }

    vec4 pr = vec4(0.0);
    if (!gpuskin_PIVOT_FIRST) pr = p.dq.v[(palette_base + inf.pivot_joint) * 2u];
    vec4 real = vec4(0.0), du = vec4(0.0);
    vec3 s0 = vec3(0.0), s1 = vec3(0.0), s2 = vec3(0.0);
    for (int i = 0; i < gpuskin_K; ++i) {
        if ((gpuskin_PIVOT_FIRST && i == 0) || gpuskin_weighted(inf, i)) {
            float wi = inf.weight[i];
            uint j = palette_base + gpuskin_joint(inf, i);
            vec4 ri = p.dq.v[j * 2u];
            vec4 di = p.dq.v[j * 2u + 1u];
            if (gpuskin_PIVOT_FIRST && i == 0) pr = ri;
            float sgn = dot(pr, ri) < 0.0 ? -1.0 : 1.0;
            real += ri * (wi * sgn);
            du += di * (wi * sgn);
            if (use_residual) {
                s0 += p.residual.v[j * 3u + 0u].xyz * wi;
                s1 += p.residual.v[j * 3u + 1u].xyz * wi;
                s2 += p.residual.v[j * 3u + 2u].xyz * wi;
            }
        }
    }

    float len_sq = dot(real, real);
    if (len_sq < 1e-12) {
        real = vec4(0.0, 0.0, 0.0, 1.0);
        du = vec4(0.0);
    } else {
        float inv = 1.0 / sqrt(len_sq);
        real *= inv;
        du *= inv;
        du -= dot(real, du) * real;
    }
    if (use_residual) {
        b.s0 = s0;
        b.s1 = s1;
        b.s2 = s2;
    }
    b.real = real;
    b.t = 2.0 * (real.w * du.xyz - du.w * real.xyz + cross(real.xyz, du.xyz));
    return b;
}

// gpuskin_blend_dq_parts with the residual, for an instance whose every S is
// upper triangular (the Gram-Schmidt split's; the uniform ones too): six entries
// blended instead of nine, and the zeros below the diagonal left for the
// compiler to fold out of S p and of the cofactors (on an H200 the kernel that
// uses it ran 1.12x the nine-entry one, with 56 registers instead of 64 and a
// spill; BENCHMARKS.md). S22 comes from row 1's w, where gpuskin_crowd_upload
// repeats it: two loads a joint for S instead of three. With `symmetric` (a
// constant at every call) the same six entries are the upper half of a
// symmetric S (the polar split's, unless mirrored): a weighted sum of symmetric
// matrices is symmetric, so the lower half is the upper one mirrored, not
// blended again. Its loop repeats gpuskin_blend_dq_parts's, as
// gpuskin_blend_dq_uniform's does, and for the same reason.
gpuskin_DqBlend gpuskin_blend_dq_triangular(gpuskin_Palettes p, uint palette_base, gpuskin_Influences inf,
                                            bool symmetric)
{
    gpuskin_DqBlend b;
    b.s0 = vec3(1.0, 0.0, 0.0);
    b.s1 = vec3(0.0, 1.0, 0.0);
    b.s2 = vec3(0.0, 0.0, 1.0);
    if (inf.pivot_joint == gpuskin_NO_PIVOT) {
        b.real = vec4(0.0, 0.0, 0.0, 1.0);
        b.t = vec3(0.0);
        return b;
    }

    vec4 pr = vec4(0.0);
    if (!gpuskin_PIVOT_FIRST) pr = p.dq.v[(palette_base + inf.pivot_joint) * 2u];
    vec4 real = vec4(0.0), du = vec4(0.0);
    vec3 s0 = vec3(0.0);
    vec2 s1 = vec2(0.0);
    float s2 = 0.0;
    for (int i = 0; i < gpuskin_K; ++i) {
        if ((gpuskin_PIVOT_FIRST && i == 0) || gpuskin_weighted(inf, i)) {
            float wi = inf.weight[i];
            uint j = palette_base + gpuskin_joint(inf, i);
            vec4 ri = p.dq.v[j * 2u];
            vec4 di = p.dq.v[j * 2u + 1u];
            if (gpuskin_PIVOT_FIRST && i == 0) pr = ri;
            float sgn = dot(pr, ri) < 0.0 ? -1.0 : 1.0;
            real += ri * (wi * sgn);
            du += di * (wi * sgn);
            vec4 r1 = p.residual.v[j * 3u + 1u]; // (S10, S11, S12, S22): gpuskin_crowd_upload repeats S22 in w
            s0 += p.residual.v[j * 3u + 0u].xyz * wi;
            s1 += r1.yz * wi;
            s2 += r1.w * wi;
        }
    }

    float len_sq = dot(real, real);
    if (len_sq < 1e-12) {
        real = vec4(0.0, 0.0, 0.0, 1.0);
        du = vec4(0.0);
    } else {
        float inv = 1.0 / sqrt(len_sq);
        real *= inv;
        du *= inv;
        du -= dot(real, du) * real;
    }
    b.s0 = s0;
    b.s1 = vec3(symmetric ? s0.y : 0.0, s1);
    b.s2 = vec3(symmetric ? s0.z : 0.0, symmetric ? s1.y : 0.0, s2);
    b.real = real;
    b.t = 2.0 * (real.w * du.xyz - du.w * real.xyz + cross(real.xyz, du.xyz));
    return b;
}

// gpuskin_blend_dq_parts with the residual, for an instance whose every S is
// s*I (gpuskin_METHOD_UNIFORM_BIT): the blend of S is then the blend of s, one
// scalar a joint (row 0's x) instead of three rows. The same sums as the rows'
// diagonal, so S comes out as gpuskin_blend_dq_parts would give it. Its loop and
// normalisation repeat gpuskin_blend_dq_parts's on purpose: sharing them through
// helpers changes the SPIR-V every DQS kernel is compiled from (other control
// flow after spirv-opt), and the H200 figures were measured with this form.
gpuskin_DqBlend gpuskin_blend_dq_uniform(gpuskin_Palettes p, uint palette_base, gpuskin_Influences inf)
{
    gpuskin_DqBlend b;
    float s = 1.0;
    b.real = vec4(0.0, 0.0, 0.0, 1.0);
    b.t = vec3(0.0);
    if (inf.pivot_joint != gpuskin_NO_PIVOT) {
        vec4 pr = vec4(0.0);
        if (!gpuskin_PIVOT_FIRST) pr = p.dq.v[(palette_base + inf.pivot_joint) * 2u];
        vec4 real = vec4(0.0), du = vec4(0.0);
        s = 0.0;
        for (int i = 0; i < gpuskin_K; ++i) {
            if ((gpuskin_PIVOT_FIRST && i == 0) || gpuskin_weighted(inf, i)) {
                float wi = inf.weight[i];
                uint j = palette_base + gpuskin_joint(inf, i);
                vec4 ri = p.dq.v[j * 2u];
                vec4 di = p.dq.v[j * 2u + 1u];
                if (gpuskin_PIVOT_FIRST && i == 0) pr = ri;
                float sgn = dot(pr, ri) < 0.0 ? -1.0 : 1.0;
                real += ri * (wi * sgn);
                du += di * (wi * sgn);
                s += p.residual.v[j * 3u].x * wi;
            }
        }
        float len_sq = dot(real, real);
        if (len_sq < 1e-12) {
            real = vec4(0.0, 0.0, 0.0, 1.0);
            du = vec4(0.0);
        } else {
            float inv = 1.0 / sqrt(len_sq);
            real *= inv;
            du *= inv;
            du -= dot(real, du) * real;
        }
        b.real = real;
        b.t = 2.0 * (real.w * du.xyz - du.w * real.xyz + cross(real.xyz, du.xyz));
    }
    b.s0 = vec3(s, 0.0, 0.0);
    b.s1 = vec3(0.0, s, 0.0);
    b.s2 = vec3(0.0, 0.0, s);
    return b;
}

// The blend as the equivalent affine [R*S | t] (what gpuskin_blend_dq returns).
mat3x4 gpuskin_dq_matrix(gpuskin_DqBlend b)
{
    // Columns of R; row r of R*S is sum_k R[r][k] * S row k.
    vec3 c0 = gpuskin_quat_rotate(b.real, vec3(1.0, 0.0, 0.0));
    vec3 c1 = gpuskin_quat_rotate(b.real, vec3(0.0, 1.0, 0.0));
    vec3 c2 = gpuskin_quat_rotate(b.real, vec3(0.0, 0.0, 1.0));
    vec3 a0 = c0.x * b.s0 + c1.x * b.s1 + c2.x * b.s2;
    vec3 a1 = c0.y * b.s0 + c1.y * b.s1 + c2.y * b.s2;
    vec3 a2 = c0.z * b.s0 + c1.z * b.s1 + c2.z * b.s2;
    return mat3x4(vec4(a0, b.t.x), vec4(a1, b.t.y), vec4(a2, b.t.z));
}

// The dual-quaternion blend as a matrix, for code that treats both methods alike.
mat3x4 gpuskin_blend_dq(gpuskin_Palettes p, uint palette_base, gpuskin_Influences inf, bool use_residual)
{
    if (inf.pivot_joint == gpuskin_NO_PIVOT) return gpuskin_identity_rows();
    return gpuskin_dq_matrix(gpuskin_blend_dq_parts(p, palette_base, inf, use_residual));
}

// The blended transform of one (instance, vertex), per the instance's method word
// (f.methods.v[instance]), from influences already fetched: one vertex skinned for
// several instances reads its joints and weights once. The branch is uniform
// within an instance. Ids gpuskin never writes (2..15, reserved) fall through to
// LBS rather than to garbage.
mat3x4 gpuskin_skin_transform_method(gpuskin_Palettes p, uint instance, uint method, gpuskin_Influences inf)
{
    uint palette_base = instance * p.joint_count;
    if ((method & gpuskin_METHOD_ID_MASK) == gpuskin_METHOD_DQS)
        return gpuskin_blend_dq(p, palette_base, inf, (method & gpuskin_METHOD_RESIDUAL_BIT) != 0u);
    return gpuskin_blend_lbs(p, palette_base, inf);
}

mat3x4 gpuskin_skin_transform_influences(gpuskin_Frame f, uint instance, gpuskin_Influences inf)
{
    return gpuskin_skin_transform_method(gpuskin_load_palettes(f), instance, f.methods.v[instance], inf);
}

mat3x4 gpuskin_skin_transform(gpuskin_Frame f, uint instance, uint vertex)
{
    return gpuskin_skin_transform_influences(f, instance, gpuskin_fetch_influences(f, vertex));
}

// ---- Applying it ------------------------------------------------------------
vec3 gpuskin_skin_point(mat3x4 m, vec3 p)
{
    return vec4(p, 1.0) * m;
}

// n' = inverse-transpose(A) n, normalised, A the 3x3 of m. inverse-transpose(A) is
// cofactor(A)/det(A), and normalising removes |det|, so only det's sign is
// applied: n' = normalise(sign(det) cofactor(A) n), one reciprocal a normal
// instead of a division by det and three by the length. The rows of cofactor(A)
// are cross(r1,r2), cross(r2,r0), cross(r0,r1) over A's rows r. A singular,
// infinite or NaN determinant falls back to A itself: a wrong-ish normal beats a
// NaN that drops the triangle. Renormalised unless its length is below 1e-18
// (cofactors scale as A squared, so the bar sits far below any real mesh's
// normals, and above where the length's square would leave normal floats).
vec3 gpuskin_skin_normal(mat3x4 m, vec3 n)
{
    vec3 r0 = m[0].xyz, r1 = m[1].xyz, r2 = m[2].xyz;
    vec3 c0 = cross(r1, r2);
    vec3 c1 = cross(r2, r0);
    vec3 c2 = cross(r0, r1);
    float d = dot(r0, c0);
    vec3 o;
    if (abs(d) > 1e-20 && !isinf(d) && !isnan(d)) {
        o = vec3(dot(c0, n), dot(c1, n), dot(c2, n));
        if (d < 0.0) o = -o;
    } else {
        o = vec3(dot(r0, n), dot(r1, n), dot(r2, n));
    }
    float len = length(o);
    return len > 1e-18 ? o * (1.0 / len) : o;
}

// t' = A t.xyz, renormalised unless shorter than 1e-12; the handedness w is kept.
vec4 gpuskin_skin_tangent(mat3x4 m, vec4 t)
{
    vec3 o = vec3(dot(m[0].xyz, t.xyz), dot(m[1].xyz, t.xyz), dot(m[2].xyz, t.xyz));
    float len = length(o);
    return vec4(len > 1e-12 ? o * (1.0 / len) : o, t.w);
}

// ---- Applying a dual-quaternion blend without its matrix ---------------------
// The maths of gpuskin_skin_point / _normal / _tangent of gpuskin_dq_matrix(b),
// A = R*S, with R applied as the quaternion: p' = R (S p) + t; and since
// cofactor(R*S) = R cofactor(S) and det(R*S) = det(S), n' = normalise(sign(det S)
// R (cofactor(S) n)), with the same bar on det(S) and the fallback R (S n) where
// gpuskin_skin_normal falls back to A n. Building R*S costs more than applying R
// to one vector or two (on an H200 the rigid DQS kernel ran ~11 % faster this
// way, the general kernel's DQS instances ~9 %; BENCHMARKS.md); the results differ from the matrix form's by rounding
// only. use_residual false: S is the identity and is skipped.
vec3 gpuskin_dq_point(gpuskin_DqBlend b, vec3 p, bool use_residual)
{
    vec3 sp = use_residual ? vec3(dot(b.s0, p), dot(b.s1, p), dot(b.s2, p)) : p;
    return gpuskin_quat_rotate(b.real, sp) + b.t;
}

vec3 gpuskin_dq_normal(gpuskin_DqBlend b, vec3 n, bool use_residual)
{
    vec3 o = n;
    if (use_residual) {
        vec3 c0 = cross(b.s1, b.s2);
        vec3 c1 = cross(b.s2, b.s0);
        vec3 c2 = cross(b.s0, b.s1);
        float d = dot(b.s0, c0);
        if (abs(d) > 1e-20 && !isinf(d) && !isnan(d)) {
            o = vec3(dot(c0, n), dot(c1, n), dot(c2, n));
            if (d < 0.0) o = -o;
        } else {
            o = vec3(dot(b.s0, n), dot(b.s1, n), dot(b.s2, n));
        }
    }
    o = gpuskin_quat_rotate(b.real, o);
    float len = length(o);
    return len > 1e-18 ? o * (1.0 / len) : o;
}

vec4 gpuskin_dq_tangent(gpuskin_DqBlend b, vec4 t, bool use_residual)
{
    vec3 o = use_residual ? vec3(dot(b.s0, t.xyz), dot(b.s1, t.xyz), dot(b.s2, t.xyz)) : t.xyz;
    o = gpuskin_quat_rotate(b.real, o);
    float len = length(o);
    return vec4(len > 1e-12 ? o * (1.0 / len) : o, t.w);
}

// gpuskin_dq_point / _normal / _tangent for S = s*I (s = b.s0.x, from
// gpuskin_blend_dq_uniform): S p = s p; cofactor(S) = s^2 I and det(S) = s^3, with
// gpuskin_dq_normal's bar on det and its fallback S n.
vec3 gpuskin_dq_point_uniform(gpuskin_DqBlend b, vec3 p)
{
    return gpuskin_quat_rotate(b.real, p * b.s0.x) + b.t;
}

vec3 gpuskin_dq_normal_uniform(gpuskin_DqBlend b, vec3 n)
{
    float s = b.s0.x, s2 = s * s, d = s * s2;
    vec3 o;
    if (abs(d) > 1e-20 && !isinf(d) && !isnan(d)) {
        o = n * s2;
        if (d < 0.0) o = -o;
    } else {
        o = n * s;
    }
    o = gpuskin_quat_rotate(b.real, o);
    float len = length(o);
    return len > 1e-18 ? o * (1.0 / len) : o;
}

vec4 gpuskin_dq_tangent_uniform(gpuskin_DqBlend b, vec4 t)
{
    vec3 o = gpuskin_quat_rotate(b.real, t.xyz * b.s0.x);
    float len = length(o);
    return vec4(len > 1e-12 ? o * (1.0 / len) : o, t.w);
}

// ---- Bind-pose fetches ------------------------------------------------------
vec3 gpuskin_bind_position(gpuskin_Frame f, uint vertex)
{
    return vec3(f.positions.v[vertex * 3u], f.positions.v[vertex * 3u + 1u], f.positions.v[vertex * 3u + 2u]);
}

vec3 gpuskin_bind_normal(gpuskin_Frame f, uint vertex)
{
    return vec3(f.normals.v[vertex * 3u], f.normals.v[vertex * 3u + 1u], f.normals.v[vertex * 3u + 2u]);
}
vec4 gpuskin_bind_tangent(gpuskin_Frame f, uint vertex) { return f.tangents.v[vertex]; }

#endif // GPUSKIN_SKIN_GLSL
