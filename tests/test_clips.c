/* tests/test_clips.c - animation clips of gpuskin.h: glTF sampling (STEP, LINEAR with
   shortest-arc slerp, CUBICSPLINE Hermite), clamping, single keys, rest pose for
   unanimated joints, loop time, validation errors, and pose blending vs the
   component-wise palette lerp.

   Expected values are worked out by hand in the comments (or from the glTF formulas
   written out here), never by calling the function under test.
   Builds as C99/C11 and C++11/17 with -Wall -Wextra -Wpedantic -Werror. */
#define GPUSKIN_NO_VULKAN
#define GPUSKIN_IMPLEMENTATION
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "../gpuskin.h"
#include "testing.h"

#ifdef VK_VERSION_1_0
#error "gpuskin.h included Vulkan headers although GPUSKIN_NO_VULKAN is defined"
#endif

#define ZERO(x) memset(&(x), 0, sizeof(x))
#define PI 3.14159265358979323846
#define J 3

static gpuskin_vec3 v3(double x, double y, double z) {
    gpuskin_vec3 v;
    v.x = (float)x; v.y = (float)y; v.z = (float)z;
    return v;
}
static gpuskin_quat q4(double x, double y, double z, double w) {
    gpuskin_quat q;
    q.x = (float)x; q.y = (float)y; q.z = (float)z; q.w = (float)w;
    return q;
}
/* rotate v by unit quaternion q in double: v + 2w (q x v) + 2 q x (q x v) */
static void qrot(gpuskin_quat q, const double v[3], double o[3]) {
    double x = q.x, y = q.y, z = q.z, w = q.w;
    double t[3], c[3];
    t[0] = 2 * (y * v[2] - z * v[1]);
    t[1] = 2 * (z * v[0] - x * v[2]);
    t[2] = 2 * (x * v[1] - y * v[0]);
    c[0] = y * t[2] - z * t[1];
    c[1] = z * t[0] - x * t[2];
    c[2] = x * t[1] - y * t[0];
    o[0] = v[0] + w * t[0] + c[0];
    o[1] = v[1] + w * t[1] + c[1];
    o[2] = v[2] + w * t[2] + c[2];
}
static double qlen(gpuskin_quat q) { return sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w); }

/* A 3-joint skeleton (0 root, 1 and 2 children of 0) with a distinctive rest pose. */
static gpuskin_trs g_rest[J];
static gpuskin_skeleton g_sk;
static void make_skeleton(void) {
    static const int32_t parents[J] = {-1, 0, 0};
    gpuskin_skeleton_desc d;
    g_rest[0].translation = v3(0.5, 0.25, -1); g_rest[0].rotation = q4(0, 0, sin(0.2), cos(0.2)); g_rest[0].scale = v3(1, 2, 3);
    g_rest[1].translation = v3(0, 1, 0);       g_rest[1].rotation = q4(sin(0.1), 0, 0, cos(0.1)); g_rest[1].scale = v3(1, 1, 1);
    g_rest[2].translation = v3(-2, 0, 7);      g_rest[2].rotation = q4(0, sin(0.3), 0, cos(0.3)); g_rest[2].scale = v3(0.5, 0.5, 0.5);
    ZERO(d);
    d.joint_count = J;
    d.parents = parents;
    d.rest_pose = g_rest;
    if (gpuskin_skeleton_init(&g_sk, &d) != GPUSKIN_SUCCESS) {
        fprintf(stderr, "skeleton init failed\n");
        memset(&g_sk, 0, sizeof g_sk);
    }
}
static int trs_equal(const gpuskin_trs *a, const gpuskin_trs *b) { return memcmp(a, b, sizeof *a) == 0; }

/* sample one channel at t into out (joint_count TRS) */
static gpuskin_result sample1(const gpuskin_channel *ch, float t, gpuskin_trs *out) {
    gpuskin_clip clip;
    clip.channels = ch;
    clip.channel_count = 1;
    return gpuskin_clip_sample(&clip, &g_sk, t, out);
}
static gpuskin_channel chan(uint32_t joint, gpuskin_path path, gpuskin_interpolation in, uint32_t n, const float *times,
                            const float *values) {
    gpuskin_channel c;
    ZERO(c);
    c.joint = joint;
    c.path = path;
    c.interpolation = in;
    c.key_count = n;
    c.times = times;
    c.values = values;
    return c;
}
#define CHECK_V3(v, X, Y, Z, tol)                                                                                     \
    do {                                                                                                              \
        CHECK_NEAR((v).x, (X), (tol)); CHECK_NEAR((v).y, (Y), (tol)); CHECK_NEAR((v).z, (Z), (tol));                  \
    } while (0)

static void test_step(void) {
    static const float times[3] = {0, 1, 2};
    static const float tv[9] = {0, 0, 0, 1, 2, 3, 4, 5, 6};
    static const float sv[9] = {1, 1, 1, 2, 2, 2, 3, 4, 5};
    static const float rv[12] = {0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0}; /* identity, 180 z, 180 y */
    gpuskin_trs out[J];
    gpuskin_channel c = chan(1, GPUSKIN_PATH_TRANSLATION, GPUSKIN_INTERP_STEP, 3, times, tv);
    CHECK_EQ_INT(sample1(&c, -1.0f, out), GPUSKIN_SUCCESS); CHECK_V3(out[1].translation, 0, 0, 0, 0);
    CHECK_EQ_INT(sample1(&c, 0.0f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[1].translation, 0, 0, 0, 0);
    CHECK_EQ_INT(sample1(&c, 0.5f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[1].translation, 0, 0, 0, 0);
    CHECK_EQ_INT(sample1(&c, 0.999f, out), GPUSKIN_SUCCESS); CHECK_V3(out[1].translation, 0, 0, 0, 0);
    CHECK_EQ_INT(sample1(&c, 1.0f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[1].translation, 1, 2, 3, 0);
    CHECK_EQ_INT(sample1(&c, 1.99f, out), GPUSKIN_SUCCESS); CHECK_V3(out[1].translation, 1, 2, 3, 0);
    CHECK_EQ_INT(sample1(&c, 2.0f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[1].translation, 4, 5, 6, 0);
    CHECK_EQ_INT(sample1(&c, 50.0f, out), GPUSKIN_SUCCESS); CHECK_V3(out[1].translation, 4, 5, 6, 0);
    c = chan(2, GPUSKIN_PATH_SCALE, GPUSKIN_INTERP_STEP, 3, times, sv);
    CHECK_EQ_INT(sample1(&c, 1.5f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[2].scale, 2, 2, 2, 0);
    CHECK_EQ_INT(sample1(&c, 2.5f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[2].scale, 3, 4, 5, 0);
    c = chan(0, GPUSKIN_PATH_ROTATION, GPUSKIN_INTERP_STEP, 3, times, rv);
    CHECK_EQ_INT(sample1(&c, 1.5f, out), GPUSKIN_SUCCESS);
    CHECK_NEAR(fabs(out[0].rotation.z), 1, 1e-6); CHECK_NEAR(out[0].rotation.w, 0, 1e-6);
    CHECK_EQ_INT(sample1(&c, 2.5f, out), GPUSKIN_SUCCESS);
    CHECK_NEAR(fabs(out[0].rotation.y), 1, 1e-6);
    CHECK_EQ_INT(sample1(&c, 0.5f, out), GPUSKIN_SUCCESS);
    CHECK_NEAR(fabs(out[0].rotation.w), 1, 1e-6);
}

static void test_linear_translation_and_scale(void) {
    static const float times[2] = {1, 3};
    static const float tv[6] = {0, 0, 0, 2, 4, -6};
    static const float times3[3] = {0, 1, 4};
    static const float sv[9] = {1, 1, 1, 2, 3, 4, 5, 3, 1};
    gpuskin_trs out[J];
    gpuskin_channel c = chan(1, GPUSKIN_PATH_TRANSLATION, GPUSKIN_INTERP_LINEAR, 2, times, tv);
    CHECK_EQ_INT(sample1(&c, 2.0f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[1].translation, 1, 2, -3, 1e-6);
    CHECK_EQ_INT(sample1(&c, 1.5f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[1].translation, 0.5, 1, -1.5, 1e-6);
    CHECK_EQ_INT(sample1(&c, 2.75f, out), GPUSKIN_SUCCESS); CHECK_V3(out[1].translation, 1.75, 3.5, -5.25, 1e-6);
    CHECK_EQ_INT(sample1(&c, 0.0f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[1].translation, 0, 0, 0, 0);   /* clamped */
    CHECK_EQ_INT(sample1(&c, 9.0f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[1].translation, 2, 4, -6, 0);  /* clamped */
    /* uneven intervals: t = 2.5 is half-way through [1,4]: (2,3,4) + 0.5 ((5,3,1) - (2,3,4)) = (3.5, 3, 2.5) */
    c = chan(0, GPUSKIN_PATH_SCALE, GPUSKIN_INTERP_LINEAR, 3, times3, sv);
    CHECK_EQ_INT(sample1(&c, 2.5f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[0].scale, 3.5, 3, 2.5, 1e-6);
    /* t = 0.25 in [0,1]: (1,1,1) + 0.25 (1,2,3) = (1.25, 1.5, 1.75) */
    CHECK_EQ_INT(sample1(&c, 0.25f, out), GPUSKIN_SUCCESS); CHECK_V3(out[0].scale, 1.25, 1.5, 1.75, 1e-6);
}

/* Rotation by slerp along the shortest arc. */
static void test_linear_rotation_shortest_arc(void) {
    static const float times[2] = {0, 1};
    float rv[8];
    gpuskin_trs out[J];
    double e[3] = {1, 0, 0}, o[3];
    gpuskin_channel c;
    /* key 0 identity, key 1 = -(Rz 90) = (0, 0, -sin45, -cos45): the same rotation with the
       far sign. Shortest arc at 0.5 is Rz 45: (1,0,0) -> (0.7071, 0.7071, 0). The long way
       would be Rz -135: (-0.7071, -0.7071, 0). */
    rv[0] = 0; rv[1] = 0; rv[2] = 0; rv[3] = 1;
    rv[4] = 0; rv[5] = 0; rv[6] = (float)-sqrt(0.5); rv[7] = (float)-sqrt(0.5);
    c = chan(2, GPUSKIN_PATH_ROTATION, GPUSKIN_INTERP_LINEAR, 2, times, rv);
    CHECK_EQ_INT(sample1(&c, 0.5f, out), GPUSKIN_SUCCESS);
    CHECK_NEAR(qlen(out[2].rotation), 1, 1e-6);
    qrot(out[2].rotation, e, o);
    CHECK_NEAR(o[0], sqrt(0.5), 1e-6); CHECK_NEAR(o[1], sqrt(0.5), 1e-6); CHECK_NEAR(o[2], 0, 1e-6);
    /* 0.25: Rz 22.5 */
    CHECK_EQ_INT(sample1(&c, 0.25f, out), GPUSKIN_SUCCESS);
    qrot(out[2].rotation, e, o);
    CHECK_NEAR(o[0], cos(PI / 8), 1e-6); CHECK_NEAR(o[1], sin(PI / 8), 1e-6);
    /* constant angular speed (slerp, not nlerp): Rz 10 -> Rz 150 at 0.25 is Rz 45 */
    rv[0] = 0; rv[1] = 0; rv[2] = (float)sin(5 * PI / 180); rv[3] = (float)cos(5 * PI / 180);
    rv[4] = 0; rv[5] = 0; rv[6] = (float)sin(75 * PI / 180); rv[7] = (float)cos(75 * PI / 180);
    CHECK_EQ_INT(sample1(&c, 0.25f, out), GPUSKIN_SUCCESS);
    qrot(out[2].rotation, e, o);
    CHECK_NEAR(o[0], sqrt(0.5), 1e-5); CHECK_NEAR(o[1], sqrt(0.5), 1e-5);
    /* nlerp would give atan2 of 0.75 q0 + 0.25 q1: a different angle (sanity: they differ) */
    {
        double z = 0.75 * sin(5 * PI / 180) + 0.25 * sin(75 * PI / 180), w = 0.75 * cos(5 * PI / 180) + 0.25 * cos(75 * PI / 180);
        CHECK(fabs(2 * atan2(z, w) - PI / 4) > 1e-3);
    }
    /* and the far sign on an interior key of a longer channel */
    {
        static const float t3[3] = {0, 1, 2};
        float r3[12];
        /* Rz 0, Rz 60, -(Rz 120): between keys 1 and 2 at 1.5 -> Rz 90 */
        r3[0] = 0; r3[1] = 0; r3[2] = 0; r3[3] = 1;
        r3[4] = 0; r3[5] = 0; r3[6] = (float)sin(PI / 6); r3[7] = (float)cos(PI / 6);
        r3[8] = 0; r3[9] = 0; r3[10] = (float)-sin(PI / 3); r3[11] = (float)-cos(PI / 3);
        c = chan(1, GPUSKIN_PATH_ROTATION, GPUSKIN_INTERP_LINEAR, 3, t3, r3);
        CHECK_EQ_INT(sample1(&c, 1.5f, out), GPUSKIN_SUCCESS);
        qrot(out[1].rotation, e, o);
        CHECK_NEAR(o[0], 0, 1e-6); CHECK_NEAR(o[1], 1, 1e-6);
    }
}

/* glTF CUBICSPLINE: p(s) = h00 v0 + h10 td b0 + h01 v1 + h11 td a1 with td = t1 - t0,
   b0 the out-tangent of key 0, a1 the in-tangent of key 1; values per key are
   (in-tangent, value, out-tangent). */
static void test_cubicspline(void) {
    static const float times[2] = {0, 2};
    /* key 0: in (9,9,9) unused, value (0,0,0), out (1,0,0)
       key 1: in (0,3,0), value (1,1,1), out (9,9,9) unused */
    static const float tv[18] = {9, 9, 9, 0, 0, 0, 1, 0, 0, 0, 3, 0, 1, 1, 1, 9, 9, 9};
    gpuskin_trs out[J];
    gpuskin_channel c = chan(1, GPUSKIN_PATH_TRANSLATION, GPUSKIN_INTERP_CUBICSPLINE, 2, times, tv);
    /* t = 1, s = 0.5: h00 = 0.5, h10 = 0.125, h01 = 0.5, h11 = -0.125, td = 2:
       0.25 (1,0,0) + 0.5 (1,1,1) - 0.25 (0,3,0) = (0.75, -0.25, 0.5) */
    CHECK_EQ_INT(sample1(&c, 1.0f, out), GPUSKIN_SUCCESS);
    CHECK_V3(out[1].translation, 0.75, -0.25, 0.5, 1e-6);
    /* t = 0.5, s = 0.25: h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = -0.046875:
       0.28125 (1,0,0) + 0.15625 (1,1,1) - 0.09375 (0,3,0) = (0.4375, -0.125, 0.15625) */
    CHECK_EQ_INT(sample1(&c, 0.5f, out), GPUSKIN_SUCCESS);
    CHECK_V3(out[1].translation, 0.4375, -0.125, 0.15625, 1e-6);
    /* clamped: the values, never the tangents */
    CHECK_EQ_INT(sample1(&c, -3.0f, out), GPUSKIN_SUCCESS); CHECK_V3(out[1].translation, 0, 0, 0, 0);
    CHECK_EQ_INT(sample1(&c, 0.0f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[1].translation, 0, 0, 0, 0);
    CHECK_EQ_INT(sample1(&c, 2.0f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[1].translation, 1, 1, 1, 0);
    CHECK_EQ_INT(sample1(&c, 8.0f, out), GPUSKIN_SUCCESS);  CHECK_V3(out[1].translation, 1, 1, 1, 0);
    /* rotation: v0 = identity, v1 = Rz90 = (0,0,r,r), r = sqrt(1/2); out-tangent of key 0
       b0 = (0,0,0.4,0), in-tangent of key 1 a1 = (0,0,0,0.4), td = 1. At s = 0.5:
       0.5 v0 + 0.125 b0 + 0.5 v1 - 0.125 a1 = (0, 0, 0.5 r + 0.05, 0.5 + 0.5 r - 0.05), normalised. */
    {
        static const float t1[2] = {0, 1};
        float rv[24];
        double r = sqrt(0.5), z = 0.5 * r + 0.05, w = 0.5 + 0.5 * r - 0.05, n = sqrt(z * z + w * w);
        memset(rv, 0, sizeof rv);
        rv[0] = 5; rv[1] = 5; rv[2] = 5; rv[3] = 5;   /* in-tangent of key 0: unused */
        rv[7] = 1;                                     /* value 0 */
        rv[10] = 0.4f;                                 /* out-tangent 0 */
        rv[15] = 0.4f;                                 /* in-tangent of key 1 */
        rv[18] = (float)r; rv[19] = (float)r;          /* value 1 */
        rv[20] = 7; rv[21] = 7; rv[22] = 7; rv[23] = 7; /* out-tangent of key 1: unused */
        c = chan(0, GPUSKIN_PATH_ROTATION, GPUSKIN_INTERP_CUBICSPLINE, 2, t1, rv);
        CHECK_EQ_INT(sample1(&c, 0.5f, out), GPUSKIN_SUCCESS);
        CHECK_NEAR(out[0].rotation.x, 0, 1e-6); CHECK_NEAR(out[0].rotation.y, 0, 1e-6);
        CHECK_NEAR(out[0].rotation.z, z / n, 1e-6); CHECK_NEAR(out[0].rotation.w, w / n, 1e-6);
        CHECK_NEAR(qlen(out[0].rotation), 1, 1e-6); /* normalised */
        CHECK_EQ_INT(sample1(&c, 1.0f, out), GPUSKIN_SUCCESS);
        CHECK_NEAR(out[0].rotation.z, r, 1e-6); CHECK_NEAR(out[0].rotation.w, r, 1e-6);
    }
    /* scale with zero tangents is the smoothstep between the values: s = 0.25 ->
       h01 = 0.15625: 1 + 0.15625 (3 - 1) = 1.3125 */
    {
        static const float t1[2] = {0, 4};
        static const float sv[18] = {0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 3, 3, 3, 0, 0, 0};
        c = chan(2, GPUSKIN_PATH_SCALE, GPUSKIN_INTERP_CUBICSPLINE, 2, t1, sv);
        CHECK_EQ_INT(sample1(&c, 1.0f, out), GPUSKIN_SUCCESS);
        CHECK_V3(out[2].scale, 1.3125, 1.3125, 1.3125, 1e-6);
    }
}

static void test_single_key_and_rest_pose(void) {
    static const float t1[1] = {0.5f};
    static const float tv[3] = {7, 8, 9};
    static const float cv[9] = {1, 1, 1, 7, 8, 9, 2, 2, 2}; /* cubic: in, value, out */
    gpuskin_trs out[J];
    int in;
    float ts[4] = {-10, 0.5f, 0.75f, 100};
    int k;
    for (in = 0; in < 3; ++in) {
        gpuskin_channel c = chan(1, GPUSKIN_PATH_TRANSLATION, (gpuskin_interpolation)in, 1, t1,
                                 in == GPUSKIN_INTERP_CUBICSPLINE ? cv : tv);
        for (k = 0; k < 4; ++k) {
            CHECK_EQ_INT(sample1(&c, ts[k], out), GPUSKIN_SUCCESS);
            CHECK_V3(out[1].translation, 7, 8, 9, 0);
            /* joint 1's rotation and scale, and joints 0 and 2 entirely, keep the rest pose */
            CHECK(memcmp(&out[1].rotation, &g_rest[1].rotation, sizeof out[1].rotation) == 0);
            CHECK(memcmp(&out[1].scale, &g_rest[1].scale, sizeof out[1].scale) == 0);
            CHECK(trs_equal(&out[0], &g_rest[0]));
            CHECK(trs_equal(&out[2], &g_rest[2]));
        }
    }
    /* a clip without channels is the rest pose */
    {
        gpuskin_clip empty;
        ZERO(empty);
        CHECK_EQ_INT(gpuskin_clip_sample(&empty, &g_sk, 1.0f, out), GPUSKIN_SUCCESS);
        for (k = 0; k < J; ++k) CHECK(trs_equal(&out[k], &g_rest[k]));
    }
}

static void test_range_and_loop_time(void) {
    static const float ta[2] = {1, 3}, tb[3] = {0.5f, 1, 2}, tz[1] = {5};
    static const float v[9] = {0, 0, 0, 1, 1, 1, 2, 2, 2};
    gpuskin_channel ch[2];
    gpuskin_clip clip;
    float s = -1, e = -1;
    ch[0] = chan(0, GPUSKIN_PATH_TRANSLATION, GPUSKIN_INTERP_LINEAR, 2, ta, v);
    ch[1] = chan(1, GPUSKIN_PATH_SCALE, GPUSKIN_INTERP_LINEAR, 3, tb, v);
    clip.channels = ch;
    clip.channel_count = 1;
    CHECK_EQ_INT(gpuskin_clip_range(&clip, &s, &e), GPUSKIN_SUCCESS);
    CHECK(s == 1 && e == 3);
    /* wrap into [1, 3) */
    CHECK_NEAR(gpuskin_clip_loop_time(&clip, 2.5f), 2.5, 1e-6);
    CHECK_NEAR(gpuskin_clip_loop_time(&clip, 1.0f), 1, 1e-6);
    CHECK_NEAR(gpuskin_clip_loop_time(&clip, 3.0f), 1, 1e-6);
    CHECK_NEAR(gpuskin_clip_loop_time(&clip, 4.0f), 2, 1e-6);
    CHECK_NEAR(gpuskin_clip_loop_time(&clip, 7.5f), 1.5, 1e-6);
    CHECK_NEAR(gpuskin_clip_loop_time(&clip, 0.5f), 2.5, 1e-6);
    CHECK_NEAR(gpuskin_clip_loop_time(&clip, -1.0f), 1, 1e-6);
    CHECK_NEAR(gpuskin_clip_loop_time(&clip, -1.5f), 2.5, 1e-6);
    {
        float t = gpuskin_clip_loop_time(&clip, 1000.25f); /* (1000.25 - 1) mod 2 = 1.25 -> 2.25 */
        CHECK_NEAR(t, 2.25, 1e-4);
        CHECK(t >= 1 && t < 3);
    }
    /* over all channels: [min start, max end] = [0.5, 3] */
    clip.channel_count = 2;
    CHECK_EQ_INT(gpuskin_clip_range(&clip, &s, &e), GPUSKIN_SUCCESS);
    CHECK(s == 0.5f && e == 3);
    CHECK_NEAR(gpuskin_clip_loop_time(&clip, 3.5f), 1, 1e-6); /* 0.5 + (3.0 mod 2.5) */
    /* zero length: start */
    ch[0] = chan(0, GPUSKIN_PATH_TRANSLATION, GPUSKIN_INTERP_LINEAR, 1, tz, v);
    clip.channel_count = 1;
    CHECK_EQ_INT(gpuskin_clip_range(&clip, &s, &e), GPUSKIN_SUCCESS);
    CHECK(s == 5 && e == 5);
    CHECK(gpuskin_clip_loop_time(&clip, 0.0f) == 5);
    CHECK(gpuskin_clip_loop_time(&clip, 123.0f) == 5);
    /* no channels: (0, 0) */
    clip.channel_count = 0;
    clip.channels = NULL;
    s = e = -1;
    CHECK_EQ_INT(gpuskin_clip_range(&clip, &s, &e), GPUSKIN_SUCCESS);
    CHECK(s == 0 && e == 0);
    CHECK(gpuskin_clip_loop_time(&clip, 3.0f) == 0);
    CHECK_EQ_INT(gpuskin_clip_range(NULL, &s, &e), GPUSKIN_ERROR_NULL_ARGUMENT);
    { /* times near FLT_MAX (found by tests/test_robust.c): end - start and t - start
         overflow float, so the wrap works in double; the result stays below end */
        static const float wide[2] = {-3e38f, 0.0f}, nan_end[2] = {0.0f, NAN};
        const float ts[5] = {3e38f, 1e38f, -3e38f, -1e-40f, 2.9e38f};
        int k;
        ch[0] = chan(0, GPUSKIN_PATH_TRANSLATION, GPUSKIN_INTERP_LINEAR, 2, wide, v);
        clip.channels = ch;
        clip.channel_count = 1;
        for (k = 0; k < 5; ++k) {
            const float t = gpuskin_clip_loop_time(&clip, ts[k]);
            CHECK(t >= -3e38f && t < 0.0f);
        }
        CHECK(gpuskin_clip_loop_time(&clip, -1e-40f) < 0.0f); /* just below end: not end itself */
        /* a last time that is not finite: no range (and loop time 0) */
        ch[0] = chan(0, GPUSKIN_PATH_TRANSLATION, GPUSKIN_INTERP_LINEAR, 2, nan_end, v);
        CHECK_EQ_INT(gpuskin_clip_range(&clip, &s, &e), GPUSKIN_ERROR_INVALID_CLIP);
        CHECK(gpuskin_clip_loop_time(&clip, 1.0f) == 0.0f);
    }
}

static void test_validate_errors(void) {
    static const float good_t[3] = {0, 1, 2};
    static const float dup_t[3] = {0, 1, 1};
    static const float dec_t[3] = {0, 2, 1};
    static const float v[36] = {0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                                1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    float bad_t[3] = {0, 1, 2}, bad_v[36];
    gpuskin_channel ch[2];
    gpuskin_clip clip;
    gpuskin_trs out[J];
    memcpy(bad_v, v, sizeof v);
    ch[0] = chan(0, GPUSKIN_PATH_TRANSLATION, GPUSKIN_INTERP_LINEAR, 3, good_t, v);
    ch[1] = chan(2, GPUSKIN_PATH_ROTATION, GPUSKIN_INTERP_CUBICSPLINE, 3, good_t, v);
    clip.channels = ch;
    clip.channel_count = 2;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_SUCCESS);
    /* joint out of range (the second channel) */
    ch[1].joint = J;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_INVALID_CLIP);
    CHECK(gpuskin_clip_sample(&clip, &g_sk, 0.5f, out) != GPUSKIN_SUCCESS); /* never writes out_local[3] */
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J + 1), GPUSKIN_SUCCESS);
    ch[1].joint = 2;
    /* non-increasing times */
    ch[0].times = dup_t;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_INVALID_CLIP);
    ch[0].times = dec_t;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_INVALID_CLIP);
    /* NaN / Inf times */
    ch[0].times = bad_t;
    bad_t[1] = NAN;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_INVALID_CLIP);
    bad_t[1] = 1;
    bad_t[2] = INFINITY;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_INVALID_CLIP);
    bad_t[2] = 2;
    bad_t[0] = -INFINITY;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_INVALID_CLIP);
    bad_t[0] = 0;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_SUCCESS);
    /* NaN / Inf values: a value of the linear channel, a tangent of the cubic one */
    ch[0].values = bad_v;
    bad_v[4] = NAN;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_INVALID_CLIP);
    bad_v[4] = 0;
    ch[0].values = v;
    ch[1].values = bad_v;
    bad_v[35] = INFINITY; /* out-tangent of the last rotation key (3 keys x 3 x 4 = 36 floats) */
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_INVALID_CLIP);
    bad_v[35] = 1;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_SUCCESS);
    ch[1].values = v;
    /* bad enums */
    ch[0].path = (gpuskin_path)7;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_INVALID_CLIP);
    CHECK(gpuskin_clip_sample(&clip, &g_sk, 0.5f, out) != GPUSKIN_SUCCESS);
    ch[0].path = GPUSKIN_PATH_TRANSLATION;
    ch[0].interpolation = (gpuskin_interpolation)9;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_INVALID_CLIP);
    CHECK(gpuskin_clip_sample(&clip, &g_sk, 0.5f, out) != GPUSKIN_SUCCESS);
    ch[0].interpolation = GPUSKIN_INTERP_LINEAR;
    /* no keys */
    ch[0].key_count = 0;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_INVALID_CLIP);
    ch[0].key_count = 3;
    /* NULL pointers */
    ch[0].times = NULL;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_NULL_ARGUMENT);
    ch[0].times = good_t;
    ch[0].values = NULL;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_NULL_ARGUMENT);
    ch[0].values = v;
    CHECK_EQ_INT(gpuskin_clip_validate(NULL, J), GPUSKIN_ERROR_NULL_ARGUMENT);
    clip.channels = NULL;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_ERROR_NULL_ARGUMENT);
    clip.channels = ch;
    CHECK_EQ_INT(gpuskin_clip_sample(NULL, &g_sk, 0, out), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_clip_sample(&clip, NULL, 0, out), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_clip_sample(&clip, &g_sk, 0, NULL), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_SUCCESS);
    CHECK(strlen(gpuskin_result_string(GPUSKIN_ERROR_INVALID_CLIP)) > 0);
}

/* Two poses whose rotations differ by 170 degrees about one axis: the component-wise
   palette lerp at 0.5 is 0.5 (I + R170), which maps a unit vector u perpendicular to
   the axis to length cos(85 deg) = 0.087; the pose blend slerps to R85 and keeps 1. */
static void test_blend_170_degrees(void) {
    gpuskin_trs a[2], b[2], o[2];
    gpuskin_mat4 ma[2], mb[2], ml[2], mo;
    double axis[3] = {1.0 / 3, 2.0 / 3, 2.0 / 3}, u[3] = {2.0 / 3, 1.0 / 3, -2.0 / 3}; /* u . axis = 0 */
    double ang = 170 * PI / 180, s = sin(ang / 2), c = cos(ang / 2);
    double lerp_len, blend_len, v[3];
    int i, r;
    a[0].translation = v3(0, 0, 0); a[0].rotation = q4(0, 0, 0, 1); a[0].scale = v3(1, 1, 1);
    b[0].translation = v3(0, 0, 0); b[0].rotation = q4(axis[0] * s, axis[1] * s, axis[2] * s, c); b[0].scale = v3(1, 1, 1);
    /* joint 1: translation and scale lerp */
    a[1].translation = v3(1, 2, 3); a[1].rotation = q4(0, 0, 0, 1); a[1].scale = v3(1, 2, 4);
    b[1].translation = v3(5, -2, 3); b[1].rotation = q4(0, 0, 0, 1); b[1].scale = v3(3, 2, 0);
    for (i = 0; i < 2; ++i) {
        ma[i] = gpuskin_mat4_from_trs(&a[i]);
        mb[i] = gpuskin_mat4_from_trs(&b[i]);
    }
    CHECK_EQ_INT(gpuskin_palette_lerp(ma, mb, 2, 0.5f, ml), GPUSKIN_SUCCESS);
    for (r = 0; r < 3; ++r) v[r] = ml[0].m[r] * u[0] + ml[0].m[4 + r] * u[1] + ml[0].m[8 + r] * u[2];
    lerp_len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    CHECK_EQ_INT(gpuskin_pose_blend(a, b, 2, 0.5f, o), GPUSKIN_SUCCESS);
    mo = gpuskin_mat4_from_trs(&o[0]);
    for (r = 0; r < 3; ++r) v[r] = mo.m[r] * u[0] + mo.m[4 + r] * u[1] + mo.m[8 + r] * u[2];
    blend_len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    printf("    170 deg at t=0.5: |palette_lerp u| = %.6f (cos 85 = %.6f), |pose_blend u| = %.8f\n", lerp_len,
           cos(85 * PI / 180), blend_len);
    CHECK(lerp_len < 0.2);
    CHECK_NEAR(lerp_len, cos(85 * PI / 180), 1e-5);
    CHECK_NEAR(blend_len, 1, 1e-5);
    /* and the blend is R85 about the axis: rotation angle 85, same axis */
    CHECK_NEAR(fabs(o[0].rotation.w), cos(85 * PI / 360), 1e-5);
    {
        double sg = o[0].rotation.w < 0 ? -1 : 1, sn = sin(85 * PI / 360);
        CHECK_NEAR(sg * o[0].rotation.x, axis[0] * sn, 1e-5);
        CHECK_NEAR(sg * o[0].rotation.y, axis[1] * sn, 1e-5);
        CHECK_NEAR(sg * o[0].rotation.z, axis[2] * sn, 1e-5);
    }
    /* translation and scale lerp: (3,0,3), (2,2,2) */
    CHECK_V3(o[1].translation, 3, 0, 3, 1e-6);
    CHECK_V3(o[1].scale, 2, 2, 2, 1e-6);
    /* palette_lerp is component-wise: joint 1's matrices: m[12] 1 -> 5, m[0] 1 -> 3, m[10] 4 -> 0 */
    CHECK_EQ_INT(gpuskin_palette_lerp(ma, mb, 2, 0.25f, ml), GPUSKIN_SUCCESS);
    CHECK_NEAR(ml[1].m[12], 2, 1e-6);
    CHECK_NEAR(ml[1].m[13], 1, 1e-6);
    CHECK_NEAR(ml[1].m[0], 1.5, 1e-6);
    CHECK_NEAR(ml[1].m[10], 3, 1e-6);
    CHECK_NEAR(ml[1].m[15], 1, 0);
    /* endpoints */
    CHECK_EQ_INT(gpuskin_pose_blend(a, b, 2, 0.0f, o), GPUSKIN_SUCCESS);
    CHECK_V3(o[1].translation, 1, 2, 3, 0);
    CHECK_NEAR(fabs(o[0].rotation.w), 1, 1e-6);
    CHECK_EQ_INT(gpuskin_pose_blend(a, b, 2, 1.0f, o), GPUSKIN_SUCCESS);
    CHECK_V3(o[1].scale, 3, 2, 0, 1e-6);
    CHECK_NEAR(fabs(o[0].rotation.w), c, 1e-6);
    /* the pose blend takes the short way round when b's quaternion has the far sign */
    {
        gpuskin_trs nb[2];
        double e[3] = {0, 0, 1}, w[3];
        memcpy(nb, b, sizeof nb);
        a[0].rotation = q4(0, 0, 0, 1);
        nb[0].rotation = q4(0, 0, -sqrt(0.5), -sqrt(0.5)); /* -(Rz90) */
        CHECK_EQ_INT(gpuskin_pose_blend(a, nb, 1, 0.5f, o), GPUSKIN_SUCCESS);
        e[0] = 1; e[2] = 0;
        qrot(o[0].rotation, e, w);
        CHECK_NEAR(w[0], sqrt(0.5), 1e-6); CHECK_NEAR(w[1], sqrt(0.5), 1e-6);
    }
    /* errors */
    CHECK_EQ_INT(gpuskin_pose_blend(NULL, b, 2, 0.5f, o), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_pose_blend(a, b, 0, 0.5f, o), GPUSKIN_ERROR_INVALID_COUNT);
    CHECK_EQ_INT(gpuskin_pose_blend(a, b, 2, NAN, o), GPUSKIN_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(gpuskin_palette_lerp(ma, NULL, 2, 0.5f, ml), GPUSKIN_ERROR_NULL_ARGUMENT);
    CHECK_EQ_INT(gpuskin_palette_lerp(ma, mb, 0, 0.5f, ml), GPUSKIN_ERROR_INVALID_COUNT);
    CHECK_EQ_INT(gpuskin_palette_lerp(ma, mb, 2, INFINITY, ml), GPUSKIN_ERROR_INVALID_ARGUMENT);
    /* a non-finite input is refused before anything is written; finite inputs whose
       blend leaves float's range are refused too, never returned as inf or NaN */
    {
        gpuskin_trs bad[2], far[2], keep[2];
        gpuskin_mat4 mbad[2], mfar[2], mkeep[2];
        memcpy(bad, b, sizeof bad); memcpy(far, b, sizeof far);
        memcpy(mbad, mb, sizeof mbad); memcpy(mfar, mb, sizeof mfar);
        bad[1].rotation.z = NAN;
        mbad[1].m[5] = -INFINITY;
        memset(o, 0x5A, sizeof(gpuskin_trs) * 2); memcpy(keep, o, sizeof keep);
        CHECK_EQ_INT(gpuskin_pose_blend(a, bad, 2, 0.5f, o), GPUSKIN_ERROR_NON_FINITE);
        CHECK(memcmp(keep, o, sizeof keep) == 0);
        CHECK_EQ_INT(gpuskin_pose_blend(bad, a, 2, 0.5f, o), GPUSKIN_ERROR_NON_FINITE);
        memset(ml, 0x5A, sizeof(gpuskin_mat4) * 2); memcpy(mkeep, ml, sizeof mkeep);
        CHECK_EQ_INT(gpuskin_palette_lerp(ma, mbad, 2, 0.5f, ml), GPUSKIN_ERROR_NON_FINITE);
        CHECK(memcmp(mkeep, ml, sizeof mkeep) == 0);
        far[1].translation.x = 3e38f; /* a's is 1: (3e38 - 1) x 2 overflows */
        CHECK_EQ_INT(gpuskin_pose_blend(a, far, 2, 2.0f, o), GPUSKIN_ERROR_NON_FINITE);
        CHECK_EQ_INT(gpuskin_pose_blend(a, far, 2, 0.5f, o), GPUSKIN_SUCCESS); /* 1.5e38: still a float */
        mfar[1].m[12] = -3e38f;
        CHECK_EQ_INT(gpuskin_palette_lerp(ma, mfar, 2, -1.5f, ml), GPUSKIN_ERROR_NON_FINITE);
        CHECK_EQ_INT(gpuskin_palette_lerp(ma, mfar, 2, 0.5f, ml), GPUSKIN_SUCCESS);
    }
}

/* Keys so far apart that float overflows between them (found by tests/test_robust.c):
   a clip that validates, sampled to inf, is GPUSKIN_ERROR_NON_FINITE; at its keys, fine. */
static void test_sample_overflow(void) {
    static const float times[2] = {0, 1}, far_times[2] = {-3e38f, 3e38f};
    static const float tv[6] = {-3e38f, 0, 0, 3e38f, 0, 0};
    static const float cubic[18] = {0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 0, 0, 0}; /* in, value, out */
    gpuskin_trs out[J];
    gpuskin_channel c = chan(1, GPUSKIN_PATH_TRANSLATION, GPUSKIN_INTERP_LINEAR, 2, times, tv);
    gpuskin_clip clip;
    clip.channels = &c;
    clip.channel_count = 1;
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(sample1(&c, 0.5f, out), GPUSKIN_ERROR_NON_FINITE); /* 3e38 - (-3e38) */
    CHECK_EQ_INT(sample1(&c, 0.0f, out), GPUSKIN_SUCCESS);
    CHECK(out[1].translation.x == -3e38f);
    /* a Hermite spline over keys 6e38 apart: its tangents are scaled by an infinite interval */
    c = chan(1, GPUSKIN_PATH_TRANSLATION, GPUSKIN_INTERP_CUBICSPLINE, 2, far_times, cubic);
    CHECK_EQ_INT(gpuskin_clip_validate(&clip, J), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(sample1(&c, 0.0f, out), GPUSKIN_ERROR_NON_FINITE);
    CHECK_EQ_INT(sample1(&c, 3e38f, out), GPUSKIN_SUCCESS); /* the last key itself */
    CHECK(out[1].translation.x == 2.0f);
}

/* Sampled pose through the skeleton: joint 1 (child of 0) with an animated translation. */
static void test_sample_then_globals(void) {
    static const float times[2] = {0, 1};
    static const float tv[6] = {0, 0, 0, 0, 4, 0};
    gpuskin_trs out[J];
    gpuskin_mat4 g[J];
    gpuskin_channel c = chan(1, GPUSKIN_PATH_TRANSLATION, GPUSKIN_INTERP_LINEAR, 2, times, tv);
    gpuskin_clip clip;
    gpuskin_trs rest0 = g_rest[0];
    double rz = 0.4, p[3], e;
    clip.channels = &c;
    clip.channel_count = 1;
    CHECK_EQ_INT(gpuskin_clip_sample(&clip, &g_sk, 0.5f, out), GPUSKIN_SUCCESS);
    CHECK_EQ_INT(gpuskin_skeleton_globals(&g_sk, out, g), GPUSKIN_SUCCESS);
    /* global[1] origin = T0 + R0 S0 (0,2,0): R0 = Rz(0.4), S0 = (1,2,3): (0,4,0) -> (-4 sin .4, 4 cos .4, 0) */
    p[0] = rest0.translation.x - 4 * sin(rz);
    p[1] = rest0.translation.y + 4 * cos(rz);
    p[2] = rest0.translation.z;
    e = 1e-5;
    CHECK_NEAR(g[1].m[12], p[0], e);
    CHECK_NEAR(g[1].m[13], p[1], e);
    CHECK_NEAR(g[1].m[14], p[2], e);
}

int main(int argc, char **argv) {
    int r;
    TEST_INIT(argc, argv);
    make_skeleton();
    RUN_TEST(test_step);
    RUN_TEST(test_linear_translation_and_scale);
    RUN_TEST(test_linear_rotation_shortest_arc);
    RUN_TEST(test_cubicspline);
    RUN_TEST(test_single_key_and_rest_pose);
    RUN_TEST(test_range_and_loop_time);
    RUN_TEST(test_validate_errors);
    RUN_TEST(test_blend_170_degrees);
    RUN_TEST(test_sample_overflow);
    RUN_TEST(test_sample_then_globals);
    r = TEST_REPORT();
    gpuskin_skeleton_free(&g_sk);
    return r;
}
