#version 450
// The vertex colour (base colour x instance hue) under one directional light with
// an ambient floor, lit from both sides so a mirrored joint or an open mesh does
// not go black. Without normals the face normal comes from screen derivatives.
layout(location = 0) in vec3 in_world;
layout(location = 1) in vec3 in_normal;
layout(location = 2) flat in vec4 in_color;
layout(location = 3) flat in uint in_has_normal;

layout(location = 0) out vec4 out_color;

void main()
{
    vec3 n = in_has_normal != 0u ? in_normal : cross(dFdx(in_world), dFdy(in_world));
    float len = length(n);
    n = len > 0.0 ? n / len : vec3(0.0);
    const vec3 light = vec3(0.3713907, 0.7427814, 0.5570860);  // normalize(0.4, 0.8, 0.6)
    float diffuse = abs(dot(n, light));
    out_color = vec4(in_color.rgb * (0.25 + 0.75 * diffuse), in_color.a);
}
