#version 450
// bench_gpu's write-bandwidth ceiling: the simplest kernel that writes memory,
// one vec4 (16 bytes) per invocation, workgroups of 256, consecutive invocations
// writing consecutive vec4s. Its bytes/s is what gpuskin's compute skinning (which
// writes its output once and reads a mesh that stays in cache) is compared with.
// The same buffer written in 24-byte records, one an invocation (skin.comp's
// records with normals), with other store widths shows what the width alone
// costs: mode 1 as 3 vec2s, mode 2 as 6 floats, mode 3 as one vec4 and one vec2
// (vec4 first on records that start on a 16-byte boundary, second on the others:
// what skin.comp does).
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer bench_Vec4s { vec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) writeonly buffer bench_Vec2s { vec2 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) writeonly buffer bench_Floats { float v[]; };
layout(push_constant) uniform bench_FillPush {
    bench_Vec4s out_vec4s;
    uint count;      // vec4s (mode 0) or records (modes 1, 2) to write
    uint row;        // invocations per dispatch row (groups_x * 256)
    float seed;      // never zero: the written values are never all zero
    uint mode;       // 0: a vec4 an invocation; a 24-byte record as 1: 3 vec2s, 2: 6 floats, 3: vec4 + vec2
} pc;

void main()
{
    uint i = gl_GlobalInvocationID.y * pc.row + gl_GlobalInvocationID.x;
    if (i >= pc.count) return;
    if (pc.mode == 0u) {
        pc.out_vec4s.v[i] = vec4(float(i), pc.seed, float(i) * pc.seed, 1.0);
    } else if (pc.mode == 1u) {
        bench_Vec2s o = bench_Vec2s(pc.out_vec4s);
        o.v[i * 3u + 0u] = vec2(float(i), pc.seed);
        o.v[i * 3u + 1u] = vec2(float(i) * pc.seed, 1.0);
        o.v[i * 3u + 2u] = vec2(pc.seed, 2.0);
    } else if (pc.mode == 3u) {
        bench_Vec2s o2 = bench_Vec2s(pc.out_vec4s);
        bool even = (i & 1u) == 0u;
        uint q = (i * 3u + 1u) >> 1u;  // the first vec4 starting inside record i
        vec4 r0 = vec4(float(i), pc.seed, float(i) * pc.seed, 1.0);
        vec2 r1 = vec2(pc.seed, 2.0);
        pc.out_vec4s.v[q] = even ? r0 : vec4(r0.zw, r1);
        o2.v[even ? i * 3u + 2u : i * 3u] = even ? r1 : r0.xy;
    } else {
        bench_Floats o = bench_Floats(pc.out_vec4s);
        o.v[i * 6u + 0u] = float(i);
        o.v[i * 6u + 1u] = pc.seed;
        o.v[i * 6u + 2u] = float(i) * pc.seed;
        o.v[i * 6u + 3u] = 1.0;
        o.v[i * 6u + 4u] = pc.seed;
        o.v[i * 6u + 5u] = 2.0;
    }
}
