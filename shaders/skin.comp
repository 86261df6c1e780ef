#version 450
// Skins every (instance, vertex) of a dispatch into a buffer in gpuskin's compute
// output layout: per instance, vertex_count records of position float[3] |
// normal float[3] (GPUSKIN_OUTPUT_NORMALS) | tangent float[4] (GPUSKIN_OUTPUT_TANGENTS).
// Plain float arrays, so the buffer needs no scalar block layout and binds as a
// vertex buffer or ray-tracing geometry as it is.
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_buffer_reference_uvec2 : require
// The mesh's influence sets (1 or 2): the host builds one pipeline for each, so a
// 4-influence mesh runs loops of 4 the compiler can unroll, not 8.
layout(constant_id = 0) const uint gpuskin_SETS = 2u;
#define GPUSKIN_GLSL_MAX_SETS gpuskin_SETS

// Which blend the kernel contains: 0 = both, with the residual, chosen per
// instance by its method word; 1 = LBS only; 2 = rigid DQS only; 3 = LBS or rigid
// DQS (no residual), its rows through the slot's instance list; 4 = DQS with the
// residual only; 5 = DQS with a uniform-scale residual only (one scalar a joint);
// 6 = DQS, each instance rigid or with one size s for all its joints (S = s I for
// every joint, so the blend of S is s itself: the kernel blends as 2 does and
// scales the bind pose by s, read once an instance); 7 = DQS whose every S is
// upper triangular (six entries blended instead of nine, read from two rows);
// 8 = DQS whose every S is symmetric (the same six entries, mirrored).
// gpuskin_cmd_skin picks 1, 2, 4, 5, 6, 7 or 8 when every instance of the dispatch
// has that method (4 also for residuals of every kind, 5 for uniform ones of both
// kinds, 6 for one-size ones with rigid ones among them, 7 for triangular and
// uniform ones, 8 for symmetric and uniform ones), 3 when they mix LBS and rigid
// DQS: without the code a dispatch does not need the kernel needs fewer
// registers, and all but 0 and 6 need no method words
// (on an H200, 2026-12-04, the LBS kernel ran ~23 % faster than the general one
// on an all-LBS crowd, the rigid DQS one ~46 %, the residual one ~19 %; and 3 on
// a crowd alternating LBS and rigid DQS ~2.5 % faster through the list than
// choosing per instance; BENCHMARKS.md).
layout(constant_id = 1) const uint gpuskin_ONLY_METHOD = 0u;
// Every kernel that blends dual quaternions takes the pivot's quaternion from
// the first influence's load, the pivot's influence moved into slot 0 once a
// vertex (gpuskin_PIVOT_FIRST): one palette load of nine fewer a record for rigid
// DQS. On an H200 (2026-12-04) the rigid DQS kernel ran ~9 % faster, the residual
// ones 11-15 %, mixed crowds ~5 %; the LBS-only kernel, which has no pivot, keeps
// its order (with the move it ran ~6 % faster on the synthetic mesh but ~3 %
// slower on CesiumMan). BENCHMARKS.md.
#define GPUSKIN_GLSL_PIVOT_FIRST (gpuskin_ONLY_METHOD != 1u)
#include "gpuskin_skin.glsl"

// Instances one invocation skins in turn, at most (pipelines of 4, 8 and 16; the
// push constant's rows_per_invocation says how many): a vertex's joints, weights
// and bind pose are fetched once for all of them. More is faster on big dispatches
// and slower on small ones, which then have too few invocations to fill the GPU.
layout(constant_id = 2) const uint gpuskin_INSTANCES_PER_INVOCATION = 4u;

layout(local_size_x = 64) in;

// The output seen as float pairs, for records of an even number of floats, and
// as vec4s from the 16-byte boundary at or below its start.
layout(buffer_reference, std430, buffer_reference_align = 8) writeonly buffer gpuskin_OutVec2s { vec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer gpuskin_OutVec4s { vec4 v[]; };

// Mirrored by gpuskin__vk_skin_push in gpuskin.h (56 bytes there: padded to 8).
layout(push_constant) uniform gpuskin_SkinPush {
    gpuskin_Frame frame;
    gpuskin_OutFloats out_floats;   // this dispatch's first instance lands at v[0]
    gpuskin_Uints order;            // kernel 3: the slot's instance list, LBS instances first
    uint first_instance;            // palette instance of dispatch row 0 (kernel 3: of output record 0)
    uint output_flags;              // bit 0 normals, bit 1 tangents, bit 2 pairs (GPUSKIN__VK_SKIN_PAIRS)
    uint instance_count;            // instances in this dispatch
    uint lbs_start;                 // kernel 3: rows [0, lbs_rows) are order.v[lbs_start + row], LBS;
    uint lbs_rows;                  // rows from lbs_rows on are order.v[dqs_start + row - lbs_rows],
    uint dqs_start;                 // rigid DQS
    uint rows_per_invocation;       // instances an invocation skins: <= gpuskin_INSTANCES_PER_INVOCATION
} pc;

// Writes one record: position, then normal and tangent where the output has
// them, at float offset o (record `o / stride` of the output).
void gpuskin_put(mat3x4 m, uint o, vec3 bp, vec3 bn, vec4 bt, bool normals, bool tangents, bool pairs,
                 uint pair_phase, gpuskin_OutVec2s out2, gpuskin_OutVec4s out4)
{
    vec3 p = gpuskin_skin_point(m, bp);
    if (pairs) {
        vec3 n = gpuskin_skin_normal(m, bn);
        uint o2 = o >> 1u;                         // the record's first pair
        uint q = (pair_phase + o2 + 1u) >> 1u;     // the first vec4 that starts inside it
        bool aligned = ((pair_phase + o2) & 1u) == 0u;
        if (!tangents) {
            // aligned: p.xyz n.x | n.yz   else: p.xy | p.z n.xyz
            out4.v[q] = aligned ? vec4(p, n.x) : vec4(p.z, n);
            out2.v[aligned ? o2 + 2u : o2] = aligned ? n.yz : p.xy;
        } else {
            // aligned: p.xyz n.x | n.yz t.xy | t.zw   else: p.xy | p.z n.xyz | t.xyzw
            vec4 t = gpuskin_skin_tangent(m, bt);
            out4.v[q] = aligned ? vec4(p, n.x) : vec4(p.z, n);
            out4.v[q + 1u] = aligned ? vec4(n.yz, t.xy) : t;
            out2.v[aligned ? o2 + 4u : o2] = aligned ? t.zw : p.xy;
        }
        return;
    }
    pc.out_floats.v[o + 0u] = p.x;
    pc.out_floats.v[o + 1u] = p.y;
    pc.out_floats.v[o + 2u] = p.z;
    o += 3u;
    if (normals) {
        vec3 n = gpuskin_skin_normal(m, bn);
        pc.out_floats.v[o + 0u] = n.x;
        pc.out_floats.v[o + 1u] = n.y;
        pc.out_floats.v[o + 2u] = n.z;
        o += 3u;
    }
    if (tangents) {
        vec4 t = gpuskin_skin_tangent(m, bt);
        pc.out_floats.v[o + 0u] = t.x;
        pc.out_floats.v[o + 1u] = t.y;
        pc.out_floats.v[o + 2u] = t.z;
        pc.out_floats.v[o + 3u] = t.w;
    }
}

// gpuskin_put for a dual-quaternion blend, applied without building R*S first
// (gpuskin_dq_point / _normal / _tangent; on an H200 the rigid DQS kernel ran
// ~11 % faster than through gpuskin_put, mixed LBS + rigid DQS crowds ~4.5 %,
// DQS with the residual ~1.5 %; BENCHMARKS.md). The same stores as gpuskin_put,
// written out again rather than shared through a helper: with both going through
// one, the LBS kernels compiled to one more register and ran ~5 % slower.
void gpuskin_put_dq(gpuskin_DqBlend b, bool use_residual, uint o, vec3 bp, vec3 bn, vec4 bt, bool normals,
                    bool tangents, bool pairs, uint pair_phase, gpuskin_OutVec2s out2, gpuskin_OutVec4s out4)
{
    vec3 p = gpuskin_dq_point(b, bp, use_residual);
    if (pairs) {
        vec3 n = gpuskin_dq_normal(b, bn, use_residual);
        uint o2 = o >> 1u;
        uint q = (pair_phase + o2 + 1u) >> 1u;
        bool aligned = ((pair_phase + o2) & 1u) == 0u;
        if (!tangents) {
            out4.v[q] = aligned ? vec4(p, n.x) : vec4(p.z, n);
            out2.v[aligned ? o2 + 2u : o2] = aligned ? n.yz : p.xy;
        } else {
            vec4 t = gpuskin_dq_tangent(b, bt, use_residual);
            out4.v[q] = aligned ? vec4(p, n.x) : vec4(p.z, n);
            out4.v[q + 1u] = aligned ? vec4(n.yz, t.xy) : t;
            out2.v[aligned ? o2 + 4u : o2] = aligned ? t.zw : p.xy;
        }
        return;
    }
    pc.out_floats.v[o + 0u] = p.x;
    pc.out_floats.v[o + 1u] = p.y;
    pc.out_floats.v[o + 2u] = p.z;
    o += 3u;
    if (normals) {
        vec3 n = gpuskin_dq_normal(b, bn, use_residual);
        pc.out_floats.v[o + 0u] = n.x;
        pc.out_floats.v[o + 1u] = n.y;
        pc.out_floats.v[o + 2u] = n.z;
        o += 3u;
    }
    if (tangents) {
        vec4 t = gpuskin_dq_tangent(b, bt, use_residual);
        pc.out_floats.v[o + 0u] = t.x;
        pc.out_floats.v[o + 1u] = t.y;
        pc.out_floats.v[o + 2u] = t.z;
        pc.out_floats.v[o + 3u] = t.w;
    }
}

// gpuskin_put_dq for kernel 5 (S = s*I), with the same stores.
void gpuskin_put_dq_uniform(gpuskin_DqBlend b, uint o, vec3 bp, vec3 bn, vec4 bt, bool normals, bool tangents,
                            bool pairs, uint pair_phase, gpuskin_OutVec2s out2, gpuskin_OutVec4s out4)
{
    vec3 p = gpuskin_dq_point_uniform(b, bp);
    if (pairs) {
        vec3 n = gpuskin_dq_normal_uniform(b, bn);
        uint o2 = o >> 1u;
        uint q = (pair_phase + o2 + 1u) >> 1u;
        bool aligned = ((pair_phase + o2) & 1u) == 0u;
        if (!tangents) {
            out4.v[q] = aligned ? vec4(p, n.x) : vec4(p.z, n);
            out2.v[aligned ? o2 + 2u : o2] = aligned ? n.yz : p.xy;
        } else {
            vec4 t = gpuskin_dq_tangent_uniform(b, bt);
            out4.v[q] = aligned ? vec4(p, n.x) : vec4(p.z, n);
            out4.v[q + 1u] = aligned ? vec4(n.yz, t.xy) : t;
            out2.v[aligned ? o2 + 4u : o2] = aligned ? t.zw : p.xy;
        }
        return;
    }
    pc.out_floats.v[o + 0u] = p.x;
    pc.out_floats.v[o + 1u] = p.y;
    pc.out_floats.v[o + 2u] = p.z;
    o += 3u;
    if (normals) {
        vec3 n = gpuskin_dq_normal_uniform(b, bn);
        pc.out_floats.v[o + 0u] = n.x;
        pc.out_floats.v[o + 1u] = n.y;
        pc.out_floats.v[o + 2u] = n.z;
        o += 3u;
    }
    if (tangents) {
        vec4 t = gpuskin_dq_tangent_uniform(b, bt);
        pc.out_floats.v[o + 0u] = t.x;
        pc.out_floats.v[o + 1u] = t.y;
        pc.out_floats.v[o + 2u] = t.z;
        pc.out_floats.v[o + 3u] = t.w;
    }
}

// The palette instance of dispatch row `row`: kernel 3's through the slot's
// instance list, the others' the row's own.
uint gpuskin_row_instance(uint row)
{
    if (gpuskin_ONLY_METHOD != 3u) return pc.first_instance + row;
    return pc.order.v[row < pc.lbs_rows ? pc.lbs_start + row : pc.dqs_start + (row - pc.lbs_rows)];
}

void main()
{
    gpuskin_Frame f = pc.frame;
    uint vertex_count = f.vertex_count;
    bool normals = (pc.output_flags & 1u) != 0u;
    bool tangents = (pc.output_flags & 2u) != 0u;
    // Records with normals are 6 or 10 floats, so when the output is 8-byte
    // aligned each record starts on a 16-byte boundary or 8 bytes past one, and
    // goes out as one 16-byte and one 8-byte store (24 bytes) or two 16-byte and
    // one 8-byte store (40 bytes), whichever its start allows. On an H200 a
    // kernel's writes reach DRAM speed only as 16-byte stores: the same bytes
    // written as 8-byte stores cap at about half of it, as single floats at a
    // quarter to a third (bench_gpu's store-width rows; BENCHMARKS.md). The general
    // kernel keeps plain float pairs: bound by its arithmetic, it ran ~5 % slower
    // with the wide stores (the residual-only kernel has them).
    bool pairs = (pc.output_flags & 4u) != 0u;
    uvec2 out_address = uvec2(pc.out_floats);
    gpuskin_OutVec2s out2 = gpuskin_OutVec2s(out_address);
    gpuskin_OutVec4s out4 = gpuskin_OutVec4s(uvec2(out_address.x & ~15u, out_address.y));
    uint pair_phase = (out_address.x >> 3u) & 1u;  // 1: the output starts 8 bytes past a 16-byte boundary
    uint stride = 3u + (normals ? 3u : 0u) + (tangents ? 4u : 0u);
    // The 4-instance pipeline also runs 1 or 2 an invocation (the host's
    // rows_per_invocation): a small dispatch then has 4 or 2 times the invocations
    // to fill the GPU with, at no cost in pipelines. The min keeps every row
    // index inside the arrays below whatever the push constant holds. The 8 and
    // 16 pipelines keep their constant (read from the push constant, the LBS
    // kernel ran 0.4-1 % slower on an H200).
    uint per_invocation = gpuskin_INSTANCES_PER_INVOCATION == 4u
                              ? min(pc.rows_per_invocation, gpuskin_INSTANCES_PER_INVOCATION)
                              : gpuskin_INSTANCES_PER_INVOCATION;
    uint row0 = gl_WorkGroupID.y * per_invocation;
    uint rows = min(per_invocation, pc.instance_count - row0);
    // Palette addresses and the instances' method words, read before any store
    // (see gpuskin_Palettes): the loop below then starts each instance with its
    // palette loads, not with loads of where the palette is.
    gpuskin_Palettes pal = gpuskin_load_palettes(f);
    uint method[gpuskin_INSTANCES_PER_INVOCATION];
    for (uint k = 0u; k < gpuskin_INSTANCES_PER_INVOCATION; ++k)
        method[k] = gpuskin_ONLY_METHOD == 0u && k < rows ? f.methods.v[pc.first_instance + row0 + k] : 0u;
    if (gpuskin_ONLY_METHOD == 0u) {
        // The general kernel keeps the loop every kernel had before kernel 3's
        // list: written like the loops below, it compiled to 64 registers instead
        // of 56 on an H200 and ran 4-10 % slower (BENCHMARKS.md). Its DQS
        // instances take the blend without its matrix, as kernels 2 and 4 do (on
        // an H200 its DQS rows ran ~9 % faster, mixed crowds ~5 %, LBS ~2 %; a
        // crowd of 64 CesiumMan mixing both ~7 % slower, 1 us). Its wide-store
        // branch below is dead here (pairs always takes the float pairs) but stays:
        // without it, spirv-opt's output for two influence sets differs from the
        // measured kernel's. A grid-stride loop: the host caps the x groups at the
        // device limit, so any vertex count fits one dispatch row.
        uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
        for (uint v = gl_GlobalInvocationID.x; v < vertex_count; v += step) {
            gpuskin_Influences inf = gpuskin_fetch_influences(f, v);
            vec3 bp = gpuskin_bind_position(f, v);
            vec3 bn = normals ? gpuskin_bind_normal(f, v) : vec3(0.0);
            vec4 bt = tangents ? gpuskin_bind_tangent(f, v) : vec4(0.0);
            for (uint k = 0u; k < rows; ++k) {
                uint row = row0 + k;
                uint inst = pc.first_instance + row;
                uint o = (row * vertex_count + v) * stride;
                // Ids gpuskin never writes (2..15) fall through to LBS, as in
                // gpuskin_skin_transform_method.
                if ((method[k] & gpuskin_METHOD_ID_MASK) == gpuskin_METHOD_DQS) {
                    bool res = (method[k] & gpuskin_METHOD_RESIDUAL_BIT) != 0u;
                    gpuskin_DqBlend b = gpuskin_blend_dq_parts(pal, inst * pal.joint_count, inf, res);
                    vec3 p = gpuskin_dq_point(b, bp, res);
                    vec3 n = normals ? gpuskin_dq_normal(b, bn, res) : vec3(0.0);
                    vec4 t = tangents ? gpuskin_dq_tangent(b, bt, res) : vec4(0.0);
                    if (pairs) {
                        uint o2 = o >> 1u;
                        out2.v[o2 + 0u] = p.xy;
                        out2.v[o2 + 1u] = vec2(p.z, n.x);
                        out2.v[o2 + 2u] = n.yz;
                        if (tangents) {
                            out2.v[o2 + 3u] = t.xy;
                            out2.v[o2 + 4u] = t.zw;
                        }
                        continue;
                    }
                    pc.out_floats.v[o + 0u] = p.x;
                    pc.out_floats.v[o + 1u] = p.y;
                    pc.out_floats.v[o + 2u] = p.z;
                    o += 3u;
                    if (normals) {
                        pc.out_floats.v[o + 0u] = n.x;
                        pc.out_floats.v[o + 1u] = n.y;
                        pc.out_floats.v[o + 2u] = n.z;
                        o += 3u;
                    }
                    if (tangents) {
                        pc.out_floats.v[o + 0u] = t.x;
                        pc.out_floats.v[o + 1u] = t.y;
                        pc.out_floats.v[o + 2u] = t.z;
                        pc.out_floats.v[o + 3u] = t.w;
                    }
                    continue;
                }
                mat3x4 m = gpuskin_blend_lbs(pal, inst * pal.joint_count, inf);
                vec3 p = gpuskin_skin_point(m, bp);
                if (pairs && gpuskin_ONLY_METHOD == 0u) {  // normals are on
                    vec3 n = gpuskin_skin_normal(m, bn);
                    uint o2 = o >> 1u;
                    out2.v[o2 + 0u] = p.xy;
                    out2.v[o2 + 1u] = vec2(p.z, n.x);
                    out2.v[o2 + 2u] = n.yz;
                    if (tangents) {
                        vec4 t = gpuskin_skin_tangent(m, bt);
                        out2.v[o2 + 3u] = t.xy;
                        out2.v[o2 + 4u] = t.zw;
                    }
                    continue;
                }
                if (pairs) {
                    vec3 n = gpuskin_skin_normal(m, bn);
                    uint o2 = o >> 1u;                         // the record's first pair
                    uint q = (pair_phase + o2 + 1u) >> 1u;     // the first vec4 that starts inside it
                    bool aligned = ((pair_phase + o2) & 1u) == 0u;
                    if (!tangents) {
                        // aligned: p.xyz n.x | n.yz   else: p.xy | p.z n.xyz
                        out4.v[q] = aligned ? vec4(p, n.x) : vec4(p.z, n);
                        out2.v[aligned ? o2 + 2u : o2] = aligned ? n.yz : p.xy;
                    } else {
                        // aligned: p.xyz n.x | n.yz t.xy | t.zw   else: p.xy | p.z n.xyz | t.xyzw
                        vec4 t = gpuskin_skin_tangent(m, bt);
                        out4.v[q] = aligned ? vec4(p, n.x) : vec4(p.z, n);
                        out4.v[q + 1u] = aligned ? vec4(n.yz, t.xy) : t;
                        out2.v[aligned ? o2 + 4u : o2] = aligned ? t.zw : p.xy;
                    }
                    continue;
                }
                pc.out_floats.v[o + 0u] = p.x;
                pc.out_floats.v[o + 1u] = p.y;
                pc.out_floats.v[o + 2u] = p.z;
                o += 3u;
                if (normals) {
                    vec3 n = gpuskin_skin_normal(m, bn);
                    pc.out_floats.v[o + 0u] = n.x;
                    pc.out_floats.v[o + 1u] = n.y;
                    pc.out_floats.v[o + 2u] = n.z;
                    o += 3u;
                }
                if (tangents) {
                    vec4 t = gpuskin_skin_tangent(m, bt);
                    pc.out_floats.v[o + 0u] = t.x;
                    pc.out_floats.v[o + 1u] = t.y;
                    pc.out_floats.v[o + 2u] = t.z;
                    pc.out_floats.v[o + 3u] = t.w;
                }
            }
        }
        return;
    }
    // Kernel 3 takes its rows from the slot's instance list, where the range's
    // LBS instances come first and its rigid DQS ones after them (both in instance
    // order), so all but at most one workgroup row hold one method: they run that
    // method's loop, as kernel 1 or 2 would, and only the row that straddles the
    // two chooses per instance. The rows are the workgroup's, so the choice is
    // uniform. (A loop choosing per instance issues each instance's palette loads
    // only once the previous instance's blend is chosen; the single-blend loops
    // need not wait.)
    uint blend = gpuskin_ONLY_METHOD;
    if (gpuskin_ONLY_METHOD == 3u) {
        if (row0 + rows <= pc.lbs_rows)
            blend = 1u;
        else if (row0 >= pc.lbs_rows)
            blend = 2u;
    }
    // A grid-stride loop: the host caps the x groups at the device limit, so any
    // vertex count fits one dispatch row.
    uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint v = gl_GlobalInvocationID.x; v < vertex_count; v += step) {
        gpuskin_Influences inf = gpuskin_fetch_influences(f, v);
        vec3 bp = gpuskin_bind_position(f, v);
        vec3 bn = normals ? gpuskin_bind_normal(f, v) : vec3(0.0);
        vec4 bt = tangents ? gpuskin_bind_tangent(f, v) : vec4(0.0);
        if (blend == 1u) {
            for (uint k = 0u; k < rows; ++k) {
                // Kernel 3: an instance the list puts outside this dispatch's output
                // (a recording replayed after an upload that changed methods,
                // which the API says to record again) is skipped, never written
                // out of bounds.
                uint instance = gpuskin_row_instance(row0 + k), out_row = instance - pc.first_instance;
                if (gpuskin_ONLY_METHOD == 3u && out_row >= pc.instance_count) continue;
                gpuskin_put(gpuskin_blend_lbs(pal, instance * pal.joint_count, inf),
                            (out_row * vertex_count + v) * stride, bp, bn, bt, normals, tangents, pairs, pair_phase, out2, out4);
            }
        } else if (blend == 2u || blend == 4u) {
            for (uint k = 0u; k < rows; ++k) {
                uint instance = gpuskin_row_instance(row0 + k), out_row = instance - pc.first_instance;
                if (gpuskin_ONLY_METHOD == 3u && out_row >= pc.instance_count) continue;
                gpuskin_put_dq(gpuskin_blend_dq_parts(pal, instance * pal.joint_count, inf, blend == 4u), blend == 4u,
                               (out_row * vertex_count + v) * stride, bp, bn, bt, normals, tangents, pairs, pair_phase,
                               out2, out4);
            }
        } else if (blend == 7u || blend == 8u) {
            for (uint k = 0u; k < rows; ++k) {
                uint instance = pc.first_instance + row0 + k;
                gpuskin_put_dq(gpuskin_blend_dq_triangular(pal, instance * pal.joint_count, inf, blend == 8u), true,
                               ((row0 + k) * vertex_count + v) * stride, bp, bn, bt, normals, tangents, pairs,
                               pair_phase, out2, out4);
            }
        } else if (blend == 6u) {
            // A weighted vertex's S blends to s (the weights sum to 1), so R (S p)
            // + t = R (s p) + t, and the normal's cofactor s^2 I changes only its
            // length, which the rigid normal's normalisation takes away. An
            // unweighted vertex keeps its bind pose, unscaled. A rigid instance
            // has no residual rows: its size is 1. Both words are loaded
            // whatever the instance holds (its residual rows are inside the
            // slot either way) and chosen between after, so that the two loads
            // need not wait for each other.
            for (uint k = 0u; k < rows; ++k) {
                uint instance = pc.first_instance + row0 + k, base = instance * pal.joint_count;
                float size = pal.residual.v[base * 3u].x;
                bool sized = (f.methods.v[instance] & gpuskin_METHOD_RESIDUAL_BIT) != 0u &&
                             inf.pivot_joint != gpuskin_NO_PIVOT;
                gpuskin_put_dq(gpuskin_blend_dq_parts(pal, base, inf, false), false,
                               ((row0 + k) * vertex_count + v) * stride, sized ? bp * size : bp, bn, bt, normals,
                               tangents, pairs, pair_phase, out2, out4);
            }
        } else if (blend == 5u) {
            for (uint k = 0u; k < rows; ++k) {
                uint instance = pc.first_instance + row0 + k;
                gpuskin_put_dq_uniform(gpuskin_blend_dq_uniform(pal, instance * pal.joint_count, inf),
                                       ((row0 + k) * vertex_count + v) * stride, bp, bn, bt, normals, tangents, pairs,
                                       pair_phase, out2, out4);
            }
        } else {
            for (uint k = 0u; k < rows; ++k) {
                uint instance = gpuskin_row_instance(row0 + k), out_row = instance - pc.first_instance;
                if (gpuskin_ONLY_METHOD == 3u && out_row >= pc.instance_count) continue;
                mat3x4 m = row0 + k >= pc.lbs_rows ? gpuskin_blend_dq(pal, instance * pal.joint_count, inf, false)
                                                   : gpuskin_blend_lbs(pal, instance * pal.joint_count, inf);
                gpuskin_put(m, (out_row * vertex_count + v) * stride, bp, bn, bt, normals, tangents, pairs, pair_phase,
                            out2, out4);
            }
        }
    }
}
