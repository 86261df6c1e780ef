#version 450
// bench_gpu's write-bandwidth ceiling: the simplest kernel that writes memory,
// one vec4 (16 bytes) per invocation, workgroups of 256, consecutive invocations
// writing consecutive vec4s. Its bytes/s is what gpuskin's compute skinning (which
// writes its output once and reads a mesh that stays in cache) is compared with.
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer bench_Vec4s { vec4 v[]; };
layout(push_constant) uniform bench_FillPush {
    bench_Vec4s out_vec4s;
    uint count;      // vec4s to write
    uint row;        // vec4s per dispatch row (groups_x * 256)
    float seed;      // never zero: the written values are never all zero
    float pad;
} pc;

void main()
{
    uint i = gl_GlobalInvocationID.y * pc.row + gl_GlobalInvocationID.x;
    if (i < pc.count) pc.out_vec4s.v[i] = vec4(float(i), pc.seed, float(i) * pc.seed, 1.0);
}
