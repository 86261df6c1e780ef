#version 450
// Draws the crowd with vertex pulling: no vertex input state. The bind vertex is
// read by gl_VertexIndex (the index buffer is bound by gpuskin_cmd_draw) and the
// instance's palette slice by gl_InstanceIndex. With skinning off the vertex
// comes, already posed, from a buffer in the compute output layout, which is how
// a CPU-posed crowd goes through this very pipeline for comparison.
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#include "gpuskin_skin.glsl"

const uint gpuskin_DRAW_TINT = 1u;            // GPUSKIN_DRAW_TINT
const uint gpuskin_DRAW_POSED = 2u;           // read pc.posed instead of skinning
const uint gpuskin_DRAW_POSED_NORMALS = 4u;   // the posed records carry normals
const uint gpuskin_DRAW_POSED_TANGENTS = 8u;  // ... and tangents (skipped over)

// Mirrored by gpuskin__vk_draw_push in gpuskin.h (104 bytes).
layout(push_constant) uniform gpuskin_DrawPush {
    mat4 view_proj;          // no model matrix: placement rides in the palette
    vec4 color;              // base colour
    gpuskin_Frame frame;
    gpuskin_Floats posed;
    uint flags;              // gpuskin_DRAW_*
    uint pad0;
} pc;

layout(location = 0) out vec3 out_world;
layout(location = 1) out vec3 out_normal;
layout(location = 2) flat out vec4 out_color;
layout(location = 3) flat out uint out_has_normal;

// A stable, well-spread hue per instance; it only has to make neighbours differ.
vec3 gpuskin_instance_hue(uint i)
{
    float h = fract(float(i) * 0.6180339887);
    vec3 k = abs(fract(vec3(h) + vec3(0.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - 3.0) - 1.0;
    return mix(vec3(1.0), clamp(k, 0.0, 1.0), 0.65);
}

void main()
{
    gpuskin_Frame f = pc.frame;
    uint v = uint(gl_VertexIndex);
    uint instance = uint(gl_InstanceIndex);
    vec3 p;
    vec3 n = vec3(0.0);
    bool has_normal;
    if ((pc.flags & gpuskin_DRAW_POSED) != 0u) {
        bool pn = (pc.flags & gpuskin_DRAW_POSED_NORMALS) != 0u;
        uint stride = 3u + (pn ? 3u : 0u) + ((pc.flags & gpuskin_DRAW_POSED_TANGENTS) != 0u ? 4u : 0u);
        uint o = (instance * f.vertex_count + v) * stride;
        p = vec3(pc.posed.v[o], pc.posed.v[o + 1u], pc.posed.v[o + 2u]);
        if (pn) n = vec3(pc.posed.v[o + 3u], pc.posed.v[o + 4u], pc.posed.v[o + 5u]);
        has_normal = pn;
    } else {
        mat3x4 m = gpuskin_skin_transform(f, instance, v);
        p = gpuskin_skin_point(m, gpuskin_bind_position(f, v));
        has_normal = (f.streams & gpuskin_STREAM_NORMALS) != 0u;
        if (has_normal) n = gpuskin_skin_normal(m, gpuskin_bind_normal(f, v));
    }
    vec4 c = pc.color;
    if ((pc.flags & gpuskin_DRAW_TINT) != 0u) c.rgb *= gpuskin_instance_hue(instance);
    out_world = p;
    out_normal = n;
    out_color = c;
    out_has_normal = has_normal ? 1u : 0u;
    gl_Position = pc.view_proj * vec4(p, 1.0);
}
