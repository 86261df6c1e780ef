/* bench/naive_lbs.c - the naive reference of bench_cpu: the simplest scalar linear
   blend skinning a programmer would write first. Positions and normals through the
   blended 3x4 (normals by its plain 3x3, renormalised), 4 influences, packed float
   streams, 16-bit joints, weights taken as given. No intrinsics, no validation, no
   inverse transpose, no special cases: it does less than gpuskin_skin_cpu_fast.

   Its own translation unit, compiled with the library's flags ($(CFLAGS), -O2), so
   the compiler treats it as it treats the library: gcc -O2 may vectorise the
   12-float blend loop by itself, and that counts as the naive code's speed. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

void bench_naive_lbs(size_t n, const float *positions, const float *normals, const uint16_t *joints,
                     const float *weights, const float *palette, float *out_positions, float *out_normals);

void bench_naive_lbs(size_t n, const float *positions, const float *normals, const uint16_t *joints,
                     const float *weights, const float *palette, float *out_positions, float *out_normals)
{
    size_t v;
    for (v = 0; v < n; ++v) {
        float m[12] = {0}; /* rows of the blended 3x4: m[r*4 + c] */
        const float *p = positions + 3 * v, *nn = normals + 3 * v;
        float x, y, z, len;
        int i, e;
        for (i = 0; i < 4; ++i) {
            const float *jm = palette + 12 * joints[4 * v + i];
            const float w = weights[4 * v + i];
            for (e = 0; e < 12; ++e) m[e] += w * jm[e];
        }
        out_positions[3 * v + 0] = m[0] * p[0] + m[1] * p[1] + m[2] * p[2] + m[3];
        out_positions[3 * v + 1] = m[4] * p[0] + m[5] * p[1] + m[6] * p[2] + m[7];
        out_positions[3 * v + 2] = m[8] * p[0] + m[9] * p[1] + m[10] * p[2] + m[11];
        x = m[0] * nn[0] + m[1] * nn[1] + m[2] * nn[2];
        y = m[4] * nn[0] + m[5] * nn[1] + m[6] * nn[2];
        z = m[8] * nn[0] + m[9] * nn[1] + m[10] * nn[2];
        len = sqrtf(x * x + y * y + z * z);
        out_normals[3 * v + 0] = x / len;
        out_normals[3 * v + 1] = y / len;
        out_normals[3 * v + 2] = z / len;
    }
}
