/* A/B of gpuskin_skin_cpu_fast built twice (side_a: default, side_b: GPUSKIN_FAST_COPY_JOINTS=0)
   in one process: 50,000 vertices, 64 joints, k = 4 (one set), u16 joints, positions + normals
   [+ tangents with argv[1] = "tan"], alternating calls, best of 5 per sample, 40 samples each. */
#define _POSIX_C_SOURCE 200809L
#define GPUSKIN_NO_VULKAN
#include "gpuskin.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
int side_a(const gpuskin_cpu_skin_desc *d);
int side_b(const gpuskin_cpu_skin_desc *d);
static unsigned s = 7u;
static float rnd(float a, float b) { s = s * 1664525u + 1013904223u; return a + (b - a) * ((s >> 8) / 16777216.0f); }
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv)
{
    enum { N = 50000, J = 64, S = 40 };
    int tan = argc > 1 && !strcmp(argv[1], "tan"), i, k, r;
    float *pos = malloc(N * 12), *nrm = malloc(N * 12), *tg = malloc(N * 16), *w = malloc(N * 16), *pal = malloc(J * 48);
    unsigned short *jn = malloc(N * 8);
    float *oa = malloc(N * 40), *ob = malloc(N * 40);
    double ta[S], tb[S];
    gpuskin_cpu_skin_desc d;
    for (i = 0; i < N; ++i) {
        float sum = 0, l;
        for (k = 0; k < 3; ++k) { pos[3 * i + k] = rnd(-1, 1); nrm[3 * i + k] = rnd(-1, 1); tg[4 * i + k] = rnd(-1, 1); }
        l = sqrtf(nrm[3 * i] * nrm[3 * i] + nrm[3 * i + 1] * nrm[3 * i + 1] + nrm[3 * i + 2] * nrm[3 * i + 2]) + 1e-3f;
        for (k = 0; k < 3; ++k) nrm[3 * i + k] /= l;
        tg[4 * i + 3] = 1;
        for (k = 0; k < 4; ++k) { w[4 * i + k] = rnd(0.05f, 1); sum += w[4 * i + k]; jn[4 * i + k] = (unsigned short)(rnd(0, J - 0.01f)); }
        for (k = 0; k < 4; ++k) w[4 * i + k] /= sum;
    }
    for (i = 0; i < J * 12; ++i) pal[i] = rnd(-1.4f, 1.4f);
    memset(&d, 0, sizeof d);
    d.streams.vertex_count = N; d.streams.influence_sets = 1; d.streams.joint_type = GPUSKIN_JOINT_U16;
    d.streams.positions.data = pos; d.streams.normals.data = nrm; if (tan) d.streams.tangents.data = tg;
    d.streams.joints[0].data = jn; d.streams.weights[0].data = w;
    d.joint_count = J; d.method_word = GPUSKIN_METHOD_LBS; d.lbs_palette = pal;
    for (r = 0; r < S; ++r) {
        int pass;
        for (pass = 0; pass < 2; ++pass) {
            double best = 1e9;
            float *o = pass ? ob : oa;
            d.out_positions.data = o; d.out_normals.data = o + 3 * N; d.out_tangents.data = o + 6 * N;
            for (k = 0; k < 5; ++k) {
                double t0 = now();
                int rc = pass ? side_b(&d) : side_a(&d);
                double t = now() - t0;
                if (rc) { printf("error %d\n", rc); return 1; }
                if (t < best) best = t;
            }
            (pass ? tb : ta)[r] = best;
        }
    }
    printf("outputs %s\n", memcmp(oa, ob, (size_t)N * (tan ? 40 : 24)) ? "DIFFER" : "identical");
    qsort(ta, S, sizeof ta[0], cmpd); qsort(tb, S, sizeof tb[0], cmpd);
    printf("%s copy:    min %.1f median %.1f M vertices/s\n", tan ? "pos+nrm+tan" : "pos+nrm", N / ta[0] * 1e-6, N / ta[S / 2] * 1e-6);
    printf("%s no copy: min %.1f median %.1f M vertices/s\n", tan ? "pos+nrm+tan" : "pos+nrm", N / tb[0] * 1e-6, N / tb[S / 2] * 1e-6);
    printf("ratio copy/no copy: best %.3f, median %.3f\n", tb[0] / ta[0], tb[S / 2] / ta[S / 2]);
    return 0;
}
