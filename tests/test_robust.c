/* tests/test_robust.c - randomised robustness of every CPU-side function of gpuskin.h.

   The project's standard: bad input gets a clear error, never a crash, an
   out-of-bounds read, a NaN leaking into the output, or a leak; every function that
   can fail returns a result code with a text. This program calls every public
   function of the non-Vulkan half thousands of times from a fixed seed, with inputs
   that keep the API's memory contract (every pointer is valid for the counts passed)
   but carry hostile VALUES: NaN (quiet, negative, signalling), +-inf, huge (1e30,
   3e38, FLT_MAX), denormals, signed zeros, zero-length and non-unit quaternions,
   singular, mirrored and non-affine matrices, joint indices out of range, parents
   that form cycles or point out of range, negative / NaN / all-zero weights, counts
   of 0 and counts the functions must refuse, NULL for optional and for required
   pointers, unsorted / duplicate / NaN key times, bad enum values and method words.

   For each call it asserts only what the header documents: the result is SUCCESS or
   one of the codes the rules allow for that input (worked out here, independently of
   the library, from the documented rules), its text is non-empty, outputs are
   finite on SUCCESS where the header or README promises it, nothing outside an
   output's elements changes (guard bytes around every output buffer and in the gaps
   of strided streams; outputs are poisoned with NaN before each call), inputs are
   read only where the contract says (exact-size heap inputs; under AddressSanitizer
   the parts a call must not read are poisoned), and every allocation is freed
   (GPUSKIN_MALLOC / GPUSKIN_FREE are counted; LeakSanitizer checks again under ASan).
   Where the header is silent and an output is not finite after SUCCESS, the run
   prints a NOTE with a first example instead of failing
   (GPUSKIN_ROBUST_STRICT=1 makes every NOTE a failure).

   GPUSKIN_ROBUST_SEED=<n> changes the seed, GPUSKIN_ROBUST_SCALE=<k> runs k times the
   iterations. A failure prints the seed and the iteration, which reproduce it.
   Builds as C99/C11 and as C++11/17 (-x c++), with -Wall -Wextra -Wpedantic -Werror.
   Run: build/core/test_robust-gcc-c99 [name-filter]                            */
#define GPUSKIN_NO_VULKAN
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define RB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RB_ASAN 1
#endif
#endif
#ifdef RB_ASAN
#include <sanitizer/asan_interface.h>
#define RB_ASAN_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define RB_ASAN_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define RB_ASAN_POISON(p, n) ((void)(p), (void)(n))
#define RB_ASAN_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* ---- allocation accounting ------------------------------------------------ */

/* Blocks gpuskin allocated and has not freed; an allocation can be refused on
   purpose (rb_fail_in = k: the k-th call from now returns NULL), and the user pointer
   must be the alloc_user of the desc (or skeleton) that asked. */
static long rb_live;
static long rb_fail_in = -1;
static int rb_refused;
static void *rb_user;
static int rb_wrong_user;
static void *rb_malloc(size_t size, void *user)
{
    void *p;
    if (user != rb_user) rb_wrong_user = 1;
    if (rb_fail_in == 0) {
        rb_fail_in = -1;
        rb_refused = 1;
        return NULL;
    }
    if (rb_fail_in > 0) --rb_fail_in;
    p = malloc(size ? size : 1);
    if (p) ++rb_live;
    return p;
}
static void rb_free(void *p, void *user)
{
    if (!p) return;
    if (user != rb_user) rb_wrong_user = 1;
    --rb_live;
    free(p);
}
#define GPUSKIN_MALLOC(sz, user) rb_malloc((sz), (user))
#define GPUSKIN_FREE(p, user) rb_free((p), (user))
#define GPUSKIN_IMPLEMENTATION
#include "../gpuskin.h"
#include "testing.h"

#ifdef VK_VERSION_1_0
#error "gpuskin.h included Vulkan headers although GPUSKIN_NO_VULKAN is defined"
#endif

/* ---- the random source ------------------------------------------------------ */

static uint64_t rb_base_seed = 20261207u; /* GPUSKIN_ROBUST_SEED */
static int rb_scale = 1;                  /* GPUSKIN_ROBUST_SCALE */
static int rb_strict;                     /* GPUSKIN_ROBUST_STRICT */
static uint64_t rb_state;
static const char *rb_case = "";          /* the running case, for messages */
static int rb_iter;                       /* its iteration */

static uint64_t rb_u64(void)
{
    uint64_t z = (rb_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* Each iteration of each case starts from its own state: one iteration can be rerun. */
static void rb_start(const char *name, unsigned salt, int it)
{
    rb_case = name;
    rb_iter = it;
    rb_state = rb_base_seed * 0x2545F4914F6CDD1Dull + (uint64_t)salt * 0x100000001B3ull + (uint64_t)it;
    (void)rb_u64();
}
static uint32_t rb_below(uint32_t n) { return n ? (uint32_t)(rb_u64() % n) : 0u; }
static int rb_one_in(uint32_t n) { return n != 0 && rb_below(n) == 0; }
static double rb_unit(void) { return (double)(rb_u64() >> 11) * (1.0 / 9007199254740992.0); }
static float rb_range(double a, double b) { return (float)(a + (b - a) * rb_unit()); }

static float rb_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static uint32_t rb_fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
static int rb_fin(double x) { return x - x == 0.0; } /* false for NaN and +-inf */
static int rb_all_fin(const float *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (!rb_fin(v[i])) return 0;
    return 1;
}

/* A hostile value: non-finite ones only when nf. */
static float rb_odd(int nf)
{
    static const float finite_odd[] = {0.0f, -0.0f, 1e30f, -1e30f, 3e38f, -3e38f, FLT_MAX, -FLT_MAX, 1e19f,
                                       -1e19f, 1e-40f, -1e-40f, 1.4e-45f, FLT_MIN, 1e-30f, 1e20f, 65536.0f, -1e10f,
                                       1e-20f, 2e37f, -1.0f, 1e-7f};
    if (nf && rb_one_in(3)) {
        switch (rb_below(5)) {
        case 0: return rb_bits(0x7FC00000u); /* NaN */
        case 1: return rb_bits(0xFFC00123u); /* negative NaN with a payload */
        case 2: return rb_bits(0x7FA00000u); /* signalling NaN */
        case 3: return rb_bits(0x7F800000u); /* +inf */
        default: return rb_bits(0xFF800000u); /* -inf */
        }
    }
    return finite_odd[rb_below((uint32_t)(sizeof finite_odd / sizeof finite_odd[0]))];
}
/* Usually a value in [a, b); one time in `odds` (0: never) a hostile one. */
static float rb_f(double a, double b, uint32_t odds, int nf) { return rb_one_in(odds) ? rb_odd(nf) : rb_range(a, b); }

static gpuskin_quat rb_quat(uint32_t odds, int nf)
{
    gpuskin_quat q;
    double x, y, z, w, len;
    do {
        x = rb_range(-1, 1); y = rb_range(-1, 1); z = rb_range(-1, 1); w = rb_range(-1, 1);
        len = sqrt(x * x + y * y + z * z + w * w);
    } while (len < 0.1);
    x /= len; y /= len; z /= len; w /= len;
    switch (odds ? rb_below(10) : 0) {
    case 1: len = pow(10.0, rb_range(-30, 30)); break;                          /* non-unit, |q|^2 may leave float */
    case 2: len = rb_one_in(2) ? pow(10.0, rb_range(-13, -11)) : pow(10.0, rb_range(14, 16)); break; /* near the limits */
    case 3: x = y = z = w = 0.0; len = 1.0; break;                              /* zero length */
    case 4: q.x = rb_f(-1, 1, 3, nf); q.y = rb_f(-1, 1, 3, nf); q.z = rb_f(-1, 1, 3, nf); q.w = rb_f(-1, 1, 3, nf);
        return q;
    default: len = 1.0; break;
    }
    q.x = (float)(x * len); q.y = (float)(y * len); q.z = (float)(z * len); q.w = (float)(w * len);
    if (odds && rb_one_in(8)) q.x = -0.0f;
    return q;
}
static gpuskin_trs rb_trs(uint32_t odds, int nf)
{
    gpuskin_trs t;
    float s = rb_range(0.5, 2);
    t.translation.x = rb_f(-5, 5, odds, nf); t.translation.y = rb_f(-5, 5, odds, nf); t.translation.z = rb_f(-5, 5, odds, nf);
    t.rotation = rb_quat(odds, nf);
    if (odds && rb_one_in(3)) { /* non-uniform, zero, negative or hostile scales */
        t.scale.x = rb_f(-2, 2, 4, nf); t.scale.y = rb_f(-2, 2, 4, nf); t.scale.z = rb_f(-2, 2, 4, nf);
    } else {
        t.scale.x = t.scale.y = t.scale.z = s;
    }
    return t;
}
/* A matrix: TRS-made, raw, singular, mirrored, huge, tiny, identity, non-affine... */
static gpuskin_mat4 rb_matrix(uint32_t odds, int nf)
{
    gpuskin_mat4 m;
    gpuskin_trs t;
    int e, c;
    switch (odds ? rb_below(10) : rb_below(2)) {
    case 0: case 1: case 2: case 3:
        t = rb_trs(odds ? odds : 0, nf);
        if (!odds) t.rotation = rb_quat(0, 0);
        m = gpuskin_mat4_from_trs(&t);
        break;
    case 4: /* raw entries */
        for (e = 0; e < 16; ++e) m.m[e] = rb_f(-3, 3, odds, nf);
        if (!rb_one_in(4)) m.m[3] = m.m[7] = m.m[11] = 0.0f, m.m[15] = 1.0f;
        break;
    case 5: /* singular: a collapsed column, two parallel columns, or no 3x3 at all */
        t = rb_trs(0, 0);
        m = gpuskin_mat4_from_trs(&t);
        c = (int)rb_below(4);
        if (c == 3) {
            for (e = 0; e < 12; ++e) m.m[e] = rb_one_in(2) ? 0.0f : -0.0f;
        } else if (rb_one_in(2)) {
            m.m[c * 4] = m.m[c * 4 + 1] = m.m[c * 4 + 2] = 0.0f;
        } else {
            for (e = 0; e < 3; ++e) m.m[((c + 1) % 3) * 4 + e] = 2.0f * m.m[c * 4 + e];
        }
        break;
    case 6: /* mirrored */
        t = rb_trs(0, 0);
        m = gpuskin_mat4_from_trs(&t);
        c = (int)rb_below(3);
        for (e = 0; e < 3; ++e) m.m[c * 4 + e] = -m.m[c * 4 + e];
        break;
    case 7: /* huge: entries of the 3x3 up to 1e18..3e38, or a huge translation */
        t = rb_trs(0, 0);
        m = gpuskin_mat4_from_trs(&t);
        {
            const double k = rb_one_in(2) ? 3e38 : pow(10.0, rb_range(18, 38));
            for (e = 0; e < 12; ++e)
                if (!rb_one_in(4)) m.m[e] = (float)(m.m[e] / 2.0 * k); /* |entries| <= 2 before */
            if (rb_one_in(2)) m.m[12] = (float)k, m.m[13] = (float)-k;
        }
        break;
    case 8: /* tiny and denormal */
        for (e = 0; e < 16; ++e) m.m[e] = rb_one_in(2) ? rb_range(-1e-38, 1e-38) : rb_odd(0) * 1e-30f;
        m.m[3] = m.m[7] = m.m[11] = 0.0f, m.m[15] = 1.0f;
        break;
    default: /* the identity with signed zeros */
        m = gpuskin_mat4_identity();
        for (e = 0; e < 16; ++e)
            if (m.m[e] == 0.0f && rb_one_in(2)) m.m[e] = -0.0f;
        break;
    }
    if (odds && rb_one_in(12)) { /* not affine */
        m.m[3] = rb_f(-1, 1, 0, 0); m.m[7] = rb_f(-1, 1, 0, 0); m.m[11] = rb_f(-1, 1, 0, 0); m.m[15] = rb_f(-2, 2, 0, 0);
    }
    if (odds && nf && rb_one_in(odds)) m.m[rb_below(16)] = rb_odd(1);
    return m;
}

/* ---- checking ---------------------------------------------------------------- */

typedef uint32_t rb_set; /* a set of result codes */
#define RB(r) (1u << (unsigned)(r))
#define RB_NULL RB(GPUSKIN_ERROR_NULL_ARGUMENT)
#define RB_COUNT RB(GPUSKIN_ERROR_INVALID_COUNT)
#define RB_OVERFLOW RB(GPUSKIN_ERROR_OVERFLOW)
#define RB_STRIDE RB(GPUSKIN_ERROR_INVALID_STRIDE)
#define RB_JOINT RB(GPUSKIN_ERROR_JOINT_OUT_OF_RANGE)
#define RB_WEIGHT RB(GPUSKIN_ERROR_INVALID_WEIGHT)
#define RB_NONFINITE RB(GPUSKIN_ERROR_NON_FINITE)
#define RB_PALSIZE RB(GPUSKIN_ERROR_PALETTE_SIZE)
#define RB_PARENT RB(GPUSKIN_ERROR_PARENT_OUT_OF_RANGE)
#define RB_CYCLE RB(GPUSKIN_ERROR_PARENT_CYCLE)
#define RB_METHOD RB(GPUSKIN_ERROR_INVALID_METHOD)
#define RB_CLIP RB(GPUSKIN_ERROR_INVALID_CLIP)
#define RB_ARG RB(GPUSKIN_ERROR_INVALID_ARGUMENT)
#define RB_OOM RB(GPUSKIN_ERROR_OUT_OF_MEMORY)
#define RB_OK RB(GPUSKIN_SUCCESS)

static const char *const rb_names[] = {"SUCCESS", "NULL_ARGUMENT", "INVALID_COUNT", "OVERFLOW", "INVALID_STRIDE",
                                       "JOINT_OUT_OF_RANGE", "INVALID_WEIGHT", "NON_FINITE", "PALETTE_SIZE",
                                       "PARENT_OUT_OF_RANGE", "PARENT_CYCLE", "INVALID_METHOD", "INVALID_CLIP",
                                       "INVALID_ARGUMENT", "OUT_OF_MEMORY", "CAPACITY", "FRAME_SLOT", "VULKAN",
                                       "MISSING_FEATURE", "ALLOCATION_FAILED"};
typedef char rb_names_complete[sizeof rb_names / sizeof rb_names[0] == GPUSKIN_RESULT_COUNT_ ? 1 : -1];

static int rb_fails;      /* failures described in this case (the rest are only counted) */
static char rb_ctx[512];  /* what the current call is, for a failure message */
/* Two cases may share one family's calls and split its checks: rb_part says which
   part this case counts, rb_muted is set around the other part's checks. */
static int rb_part, rb_muted;

static void rb_fail(int line, const char *what)
{
    if (rb_muted) return;
    gt_case_failed = 1;
    if (++rb_fails <= 10)
        fprintf(stderr, "  test_robust.c:%d: %s\n    [%s, seed %llu, iteration %d: %s]\n", line, what, rb_case,
                (unsigned long long)rb_base_seed, rb_iter, rb_ctx);
    else if (rb_fails == 11)
        fprintf(stderr, "  (further failures of %s are counted, not described)\n", rb_case);
}
#define RB_CHECK(cond)                                                                                                \
    do {                                                                                                              \
        if (!(cond)) rb_fail(__LINE__, "CHECK failed: " #cond);                                                       \
    } while (0)

static void rb_describe_set(rb_set s, char *out, size_t size)
{
    unsigned r;
    size_t at = 0;
    out[0] = 0;
    for (r = 0; r < (unsigned)GPUSKIN_RESULT_COUNT_ && at + 24 < size; ++r)
        if (s & RB(r)) at += (size_t)snprintf(out + at, size - at, "%s%s", at ? " " : "", rb_names[r]);
    if (!at) snprintf(out, size, "(none)");
}

/* r is a known code with a text, and one of `allowed`. */
static int rb_code_at(int line, const char *fn, gpuskin_result r, rb_set allowed)
{
    char msg[512], set[300];
    const char *text;
    if (rb_muted) return (int)r >= 0 && (int)r < (int)GPUSKIN_RESULT_COUNT_ && (allowed & RB(r));
    if ((int)r < 0 || (int)r >= (int)GPUSKIN_RESULT_COUNT_) {
        snprintf(msg, sizeof msg, "%s returned %d, not a gpuskin_result", fn, (int)r);
        rb_fail(line, msg);
        return 0;
    }
    text = gpuskin_result_string(r);
    if (!text || !text[0]) {
        snprintf(msg, sizeof msg, "%s: gpuskin_result_string(%s) is empty", fn, rb_names[r]);
        rb_fail(line, msg);
        return 0;
    }
    if (!(allowed & RB(r))) {
        rb_describe_set(allowed, set, sizeof set);
        snprintf(msg, sizeof msg, "%s returned %s (\"%s\"); the rules allow: %s", fn, rb_names[r], text, set);
        rb_fail(line, msg);
        return 0;
    }
    return 1;
}
#define RB_CODE(fn, r, allowed) rb_code_at(__LINE__, (fn), (r), (allowed))

/* ---- notes: non-finite outputs after SUCCESS where the header says nothing ---- */

#define RB_NOTES 16
static const char *rb_note_key[RB_NOTES];
static unsigned rb_note_n[RB_NOTES];
static char rb_note_example[RB_NOTES][600];

static void rb_note_at(int line, const char *key, const char *example)
{
    int k;
    if (rb_muted) return;
    for (k = 0; k < RB_NOTES && rb_note_key[k] && strcmp(rb_note_key[k], key) != 0; ++k) {
    }
    if (k == RB_NOTES) k = RB_NOTES - 1;
    if (!rb_note_key[k]) {
        rb_note_key[k] = key;
        snprintf(rb_note_example[k], sizeof rb_note_example[k], "%.400s (seed %llu, %s iteration %d)", example,
                 (unsigned long long)rb_base_seed, rb_case, rb_iter);
    }
    ++rb_note_n[k];
    if (rb_strict) {
        char msg[1100];
        snprintf(msg, sizeof msg, "NOTE made strict: %s: %s", key, example);
        rb_fail(line, msg);
    }
}
#define RB_NOTE(key, example) rb_note_at(__LINE__, (key), (example))

static void rb_print_notes(void)
{
    int k, any = 0;
    for (k = 0; k < RB_NOTES; ++k) {
        if (!rb_note_key[k]) continue;
        if (!any) printf("NOTES (the header promises nothing here, so they do not fail the run; GPUSKIN_ROBUST_STRICT=1 fails them):\n");
        any = 1;
        printf("  NOTE %s: %u time(s); first: %s\n", rb_note_key[k], rb_note_n[k], rb_note_example[k]);
    }
    if (!any) printf("notes: none\n");
}

/* ---- guarded output buffers ------------------------------------------------ */

#define RB_GUARD 32
#define RB_FILL 0xA5u   /* guard bytes and the gaps between strided elements: must never change */
#define RB_POISON 0xFFu /* output elements before a call: every float of them is NaN */

/* n elements of elem bytes, element i at data + i * step; stride as the call gets it
   (0 = packed). mode: 0 packed (stride 0), 1 stride = elem, 2 a gap of 4-12 bytes,
   3 an odd gap (unaligned elements), 4 stride < elem, 5 a stride whose span
   overflows size_t (n >= 3), 6 NULL. */
typedef struct rb_out {
    unsigned char *mem, *data;
    size_t n, elem, stride, step, total;
    int mode, laid_out; /* laid_out: the elements exist (modes 0-3) */
} rb_out;

static void rb_out_free(rb_out *o)
{
    free(o->mem);
    memset(o, 0, sizeof *o);
}
static void rb_out_fill(rb_out *o)
{
    size_t i;
    if (!o->mem) return;
    memset(o->mem, (int)RB_FILL, o->total);
    if (o->laid_out)
        for (i = 0; i < o->n; ++i) memset(o->data + i * o->step, (int)RB_POISON, o->elem);
}
static void rb_out_make(rb_out *o, size_t n, size_t elem, int mode)
{
    size_t misalign = 0, span;
    memset(o, 0, sizeof *o);
    o->n = n;
    o->elem = elem;
    o->mode = mode;
    o->laid_out = mode <= 3 && n > 0;
    switch (mode) {
    case 0: o->stride = 0; o->step = elem; break;
    case 1: o->stride = o->step = elem; break;
    case 2: o->stride = o->step = elem + 4 * (1 + rb_below(3)); misalign = 4 * rb_below(2); break;
    case 3: o->stride = o->step = elem + 1 + rb_below(7); misalign = rb_below(4); break;
    case 4: o->stride = o->step = 1 + rb_below((uint32_t)elem - 1); break;
    case 5: o->stride = o->step = SIZE_MAX / 2 + 1 + rb_below(1000); break;
    default: o->stride = o->step = elem; return; /* NULL */
    }
    span = o->laid_out ? (n - 1) * o->step + elem : elem;
    o->total = 2 * RB_GUARD + misalign + span;
    o->mem = (unsigned char *)malloc(o->total);
    o->data = o->mem + RB_GUARD + misalign;
    rb_out_fill(o);
}
/* The same layout (for a second call to compare with). */
static void rb_out_clone(rb_out *o, const rb_out *from)
{
    *o = *from;
    if (!from->mem) return;
    o->mem = (unsigned char *)malloc(from->total);
    o->data = o->mem + (from->data - from->mem);
    rb_out_fill(o);
}
static void *rb_out_ptr(const rb_out *o) { return o->mode == 6 ? NULL : (void *)o->data; }
/* Every byte that is not an element still holds RB_FILL. */
static int rb_out_guards_ok(const rb_out *o)
{
    size_t i, b, at = 0;
    if (!o->mem) return 1;
    if (!o->laid_out) {
        for (b = 0; b < o->total; ++b)
            if (o->mem[b] != RB_FILL) return 0;
        return 1;
    }
    for (i = 0; i <= o->n; ++i) {
        const size_t until = i < o->n ? (size_t)(o->data - o->mem) + i * o->step : o->total;
        for (b = at; b < until; ++b)
            if (o->mem[b] != RB_FILL) return 0;
        at = until + o->elem;
    }
    return 1;
}
static int rb_out_untouched(const rb_out *o, size_t i)
{
    size_t b;
    for (b = 0; b < o->elem; ++b)
        if (o->data[i * o->step + b] != RB_POISON) return 0;
    return 1;
}
static int rb_out_all_untouched(const rb_out *o)
{
    size_t i;
    if (!o->laid_out) return rb_out_guards_ok(o);
    for (i = 0; i < o->n; ++i)
        if (!rb_out_untouched(o, i)) return 0;
    return rb_out_guards_ok(o);
}
static float rb_out_get(const rb_out *o, size_t i, size_t c)
{
    float f;
    memcpy(&f, o->data + i * o->step + 4 * c, sizeof f);
    return f;
}
static int rb_out_finite(const rb_out *o, size_t i, size_t comps)
{
    size_t c;
    for (c = 0; c < comps; ++c)
        if (!rb_fin(rb_out_get(o, i, c))) return 0;
    return 1;
}
/* A random output mode: mostly laid out, the bad ones when allowed. */
static int rb_out_mode(size_t n, int allow_bad)
{
    if (allow_bad && rb_one_in(40)) {
        const int m = 4 + (int)rb_below(3);
        return m == 5 && n < 3 ? 4 : m;
    }
    return (int)rb_below(4);
}

/* A guarded array of `count` records (poisoned) for outputs that are plain arrays. */
typedef struct rb_arr {
    unsigned char *mem;
    void *p;
    size_t bytes;
} rb_arr;
static void rb_arr_make(rb_arr *a, size_t bytes)
{
    a->bytes = bytes;
    a->mem = (unsigned char *)malloc(bytes + 2 * RB_GUARD);
    memset(a->mem, (int)RB_FILL, bytes + 2 * RB_GUARD);
    memset(a->mem + RB_GUARD, (int)RB_POISON, bytes);
    a->p = a->mem + RB_GUARD;
}
static int rb_arr_guards_ok(const rb_arr *a)
{
    size_t b;
    for (b = 0; b < RB_GUARD; ++b)
        if (a->mem[b] != RB_FILL || a->mem[RB_GUARD + a->bytes + b] != RB_FILL) return 0;
    return 1;
}
static int rb_arr_untouched(const rb_arr *a, size_t from, size_t to)
{
    size_t b;
    for (b = from; b < to; ++b)
        if (a->mem[RB_GUARD + b] != RB_POISON) return 0;
    return 1;
}
static void rb_arr_free(rb_arr *a)
{
    free(a->mem);
    a->mem = NULL;
    a->p = NULL;
}

/* ======================================================================== */
/* gpuskin_result_string                                                    */
/* ======================================================================== */

static void test_robust_result_strings(void)
{
    int r;
    rb_start("test_robust_result_strings", 1, 0);
    rb_fails = 0;
    snprintf(rb_ctx, sizeof rb_ctx, "every code");
    for (r = 0; r < (int)GPUSKIN_RESULT_COUNT_; ++r) {
        const char *s = gpuskin_result_string((gpuskin_result)r);
        RB_CHECK(s != NULL && s[0] != 0);
    }
    /* values outside the enum (31 is inside its range of values in C++ too) */
    RB_CHECK(gpuskin_result_string(GPUSKIN_RESULT_COUNT_) != NULL && gpuskin_result_string(GPUSKIN_RESULT_COUNT_)[0]);
    RB_CHECK(gpuskin_result_string((gpuskin_result)31) != NULL && gpuskin_result_string((gpuskin_result)31)[0]);
#ifndef __cplusplus
    RB_CHECK(gpuskin_result_string((gpuskin_result)-1) != NULL && gpuskin_result_string((gpuskin_result)-1)[0]);
    RB_CHECK(gpuskin_result_string((gpuskin_result)100000) != NULL);
#endif
}

/* ======================================================================== */
/* Maths                                                                    */
/* ======================================================================== */

static volatile float rb_sink; /* keeps the value-returning calls */

static void test_robust_maths(void)
{
    int it, iters = 6000 * rb_scale;
    rb_fails = 0;
    for (it = 0; it < iters; ++it) {
        const uint32_t odds = rb_one_in(3) ? 0u : 3u;
        gpuskin_mat4 a = rb_matrix(odds, 1), b = rb_matrix(odds, 1), r;
        gpuskin_trs t = rb_trs(odds, 1);
        gpuskin_quat q = rb_quat(odds, 1), q2 = rb_quat(odds, 1), qr;
        gpuskin_vec3 v, vr;
        gpuskin_mat3 m3;
        gpuskin_dualquat dq;
        rb_arr out;
        gpuskin_result res;
        int e, finite = 1, is_fin;
        rb_start("test_robust_maths", 2, it);
        snprintf(rb_ctx, sizeof rb_ctx, "maths on hostile values");
        v.x = rb_f(-5, 5, odds, 1); v.y = rb_f(-5, 5, odds, 1); v.z = rb_f(-5, 5, odds, 1);
        /* value functions: defined for any input (no crash, no sanitizer report) */
        r = gpuskin_mat4_mul(&a, &b);
        rb_sink = r.m[rb_below(16)];
        r = gpuskin_mat4_from_trs(&t);
        rb_sink = r.m[rb_below(16)];
        vr = gpuskin_mat4_transform_point(&a, v);
        rb_sink = vr.x;
        qr = gpuskin_quat_mul(q, q2);
        rb_sink = qr.w;
        qr = gpuskin_quat_axis_angle(v, rb_f(-10, 10, odds, 1));
        rb_sink = qr.x;
        qr = gpuskin_quat_slerp(q, q2, rb_f(-0.5, 1.5, odds, 1));
        rb_sink = qr.y;
        vr = gpuskin_quat_rotate(q, v);
        rb_sink = vr.z;
        m3 = gpuskin_mat3_from_quat(q);
        rb_sink = m3.m[rb_below(9)];
        qr = gpuskin_quat_from_mat3(&m3);
        rb_sink = qr.z;
        dq = gpuskin_dualquat_from_rt(q, v);
        vr = gpuskin_dualquat_translation(&dq);
        rb_sink = vr.x;
        dq.dual = q2;
        dq = gpuskin_dualquat_normalize(dq);
        rb_sink = dq.real.w;
        /* the identities */
        qr = gpuskin_quat_identity();
        RB_CHECK(qr.x == 0.0f && qr.y == 0.0f && qr.z == 0.0f && qr.w == 1.0f);
        r = gpuskin_mat4_identity();
        for (e = 0; e < 16; ++e) RB_CHECK(r.m[e] == (e % 5 == 0 ? 1.0f : 0.0f));
        /* gpuskin_quat_from_mat3 of a rotation: "to unit quaternion, w >= 0" */
        if (rb_all_fin(&q.x, 4)) {
            const gpuskin_quat u = gpuskin_quat_normalize(q);
            const double l2 = (double)u.x * u.x + (double)u.y * u.y + (double)u.z * u.z + (double)u.w * u.w;
            if (fabs(l2 - 1.0) < 1e-6) {
                m3 = gpuskin_mat3_from_quat(u);
                qr = gpuskin_quat_from_mat3(&m3);
                RB_CHECK(rb_all_fin(&qr.x, 4) && qr.w >= 0.0f &&
                         fabs((double)qr.x * qr.x + (double)qr.y * qr.y + (double)qr.z * qr.z + (double)qr.w * qr.w - 1.0) < 1e-5);
            }
        }
        /* gpuskin_dualquat_normalize: "identity if |real| ~ 0" */
        dq.real.x = dq.real.y = dq.real.z = dq.real.w = rb_one_in(2) ? 0.0f : -0.0f;
        dq.dual = q2;
        dq = gpuskin_dualquat_normalize(dq);
        RB_CHECK(dq.real.x == 0.0f && dq.real.y == 0.0f && dq.real.z == 0.0f && dq.real.w == 1.0f);
        RB_CHECK(dq.dual.x == 0.0f && dq.dual.y == 0.0f && dq.dual.z == 0.0f && dq.dual.w == 0.0f);
        /* gpuskin_mat4_is_finite: exactly "all 16 finite" */
        for (e = 0; e < 16; ++e) finite &= rb_fin(a.m[e]);
        is_fin = gpuskin_mat4_is_finite(&a);
        RB_CHECK(is_fin == finite);
        /* gpuskin_quat_normalize: "identity if ~0"; a unit quaternion otherwise */
        qr = gpuskin_quat_normalize(q);
        {
            const double len2 = (double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w;
            if (len2 == 0.0) RB_CHECK(qr.x == 0.0f && qr.y == 0.0f && qr.z == 0.0f && qr.w == 1.0f);
            if (len2 >= 1e-20 && len2 <= 1e30) {
                const double l = (double)qr.x * qr.x + (double)qr.y * qr.y + (double)qr.z * qr.z + (double)qr.w * qr.w;
                RB_CHECK(fabs(l - 1.0) < 1e-5);
            }
        }
        /* gpuskin_mat4_inverse_affine */
        rb_arr_make(&out, sizeof(gpuskin_mat4));
        res = gpuskin_mat4_inverse_affine(&a, (gpuskin_mat4 *)out.p);
        if (RB_CODE("gpuskin_mat4_inverse_affine", res, finite ? RB_OK | RB_ARG : RB_NONFINITE) && res == GPUSKIN_SUCCESS) {
            gpuskin_mat4 inv;
            memcpy(&inv, out.p, sizeof inv);
            RB_CHECK(rb_all_fin(inv.m, 16)); /* "INVALID_ARGUMENT ... when the inverse does not fit a float" */
            if (a.m[3] != 0.0f || a.m[7] != 0.0f || a.m[11] != 0.0f || a.m[15] != 1.0f) {
                /* "Its last row is not read: taken as 0 0 0 1" */
                gpuskin_mat4 aff = a, inv_aff;
                aff.m[3] = aff.m[7] = aff.m[11] = 0.0f;
                aff.m[15] = 1.0f;
                RB_CHECK(gpuskin_mat4_inverse_affine(&aff, &inv_aff) == GPUSKIN_SUCCESS &&
                         memcmp(&inv_aff, &inv, sizeof inv) == 0);
            }
        }
        RB_CHECK(rb_arr_guards_ok(&out));
        rb_arr_free(&out);
    }
    snprintf(rb_ctx, sizeof rb_ctx, "NULL arguments");
    {
        gpuskin_mat4 m = gpuskin_mat4_identity(), o;
        RB_CODE("gpuskin_mat4_inverse_affine(NULL, out)", gpuskin_mat4_inverse_affine(NULL, &o), RB_NULL);
        RB_CODE("gpuskin_mat4_inverse_affine(m, NULL)", gpuskin_mat4_inverse_affine(&m, NULL), RB_NULL);
    }
    printf("  %d iterations\n", it);
}

/* ======================================================================== */
/* Skeletons: init / free / globals / palette                               */
/* ======================================================================== */

/* Parents for n joints: a random forest listed in any order (a joint's parent may
   come after it), optionally corrupted: out of range, a self-loop or a cycle. */
static int rb_parents(int32_t *par, uint32_t n, int corrupt)
{
    uint32_t *perm = (uint32_t *)malloc(n * sizeof *perm), i, k;
    int kind = 0;
    for (i = 0; i < n; ++i) perm[i] = i;
    for (i = n; i > 1; --i) {
        const uint32_t j = rb_below(i), t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    /* perm[k]'s parent is perm[p] with p < k: acyclic whatever the listing order */
    switch (rb_below(4)) {
    case 0: for (k = 0; k < n; ++k) par[perm[k]] = k ? (int32_t)perm[k - 1] : -1; break; /* a chain */
    case 1: for (k = 0; k < n; ++k) par[perm[k]] = k ? (int32_t)perm[0] : -1; break;     /* a star */
    default:
        for (k = 0; k < n; ++k) par[perm[k]] = k == 0 || rb_one_in(10) ? -1 : (int32_t)perm[rb_below(k)];
        break;
    }
    if (corrupt && n) {
        kind = 1 + (int)rb_below(4);
        switch (kind) {
        case 1: { /* out of range */
            static const int32_t bad[] = {-2, -1000, INT32_MIN, INT32_MAX};
            par[rb_below(n)] = rb_one_in(2) ? (int32_t)n + (int32_t)rb_below(3) : bad[rb_below(4)];
            break;
        }
        case 2: k = rb_below(n); par[k] = (int32_t)k; break; /* self */
        default: /* a cycle through 2..n joints */
            if (n >= 2) {
                const uint32_t len = 2 + rb_below(n - 1);
                for (k = 0; k < len; ++k) par[perm[k]] = (int32_t)perm[(k + 1) % len];
            } else {
                par[0] = 0;
            }
            break;
        }
    }
    free(perm);
    return kind;
}

/* 1 when the parent links (all in range) form a cycle: independent of the library. */
static int rb_has_cycle(const int32_t *par, uint32_t n)
{
    /* 0 unvisited, 1 on the walk from j, 2 known to reach a root */
    unsigned char *state = (unsigned char *)calloc(n ? n : 1, 1);
    uint32_t j;
    int cycle = 0;
    for (j = 0; j < n && !cycle; ++j) {
        int32_t k = (int32_t)j;
        while (k >= 0 && state[k] == 0) {
            state[k] = 1;
            k = par[k];
        }
        cycle = k >= 0 && state[k] == 1;
        for (k = (int32_t)j; k >= 0 && state[k] == 1; k = par[k]) state[k] = 2;
    }
    free(state);
    return cycle;
}

/* The skeleton's order: every joint once, parents first; depth order: every joint
   once, depths never decreasing. */
static int rb_orders_ok(const gpuskin_skeleton *sk)
{
    const uint32_t n = sk->joint_count;
    unsigned char *seen = (unsigned char *)calloc(n, 1);
    uint32_t *depth = (uint32_t *)malloc(n * sizeof *depth), i, prev = 0;
    int ok = sk->order != NULL;
    for (i = 0; ok && i < n; ++i) {
        const uint32_t j = sk->order[i];
        const int32_t p = j < n ? sk->parents[j] : -1;
        ok = j < n && !seen[j] && (p < 0 || seen[p]);
        if (ok) {
            seen[j] = 1;
            depth[j] = p < 0 ? 0 : depth[p] + 1;
        }
    }
    if (ok && sk->depth_order) {
        memset(seen, 0, n);
        for (i = 0; ok && i < n; ++i) {
            const uint32_t j = sk->depth_order[i];
            ok = j < n && !seen[j] && depth[j] >= prev;
            if (ok) seen[j] = 1, prev = depth[j];
        }
    }
    free(seen);
    free(depth);
    return ok;
}

static void rb_skeleton_calls(const gpuskin_skeleton *sk, uint32_t n);

static void test_robust_skeletons(void)
{
    static int user_tag;
    int it, iters = 4000 * rb_scale, successes = 0;
    rb_fails = 0;
    for (it = 0; it < iters; ++it) {
        uint32_t n, j, alloc_n;
        int32_t *par;
        gpuskin_mat4 *ib = NULL, *rpg = NULL;
        gpuskin_trs *rest = NULL;
        gpuskin_skeleton_desc d;
        gpuskin_skeleton sk;
        gpuskin_result r;
        rb_set want = 0;
        int corrupt, nonfinite = 0, refuse_count = 0, mode;
        const uint32_t odds = rb_one_in(3) ? 0u : 6u;
        const long live0 = rb_live;
        rb_start("test_robust_skeletons", 3, it);
        mode = (int)rb_below(100);
        if (mode < 3) { /* counts it must refuse without reading the arrays */
            static const uint32_t bad[] = {0u, GPUSKIN_MAX_JOINTS + 1u, UINT32_MAX};
            n = bad[mode];
            alloc_n = 2;
            refuse_count = 1;
        } else if (mode == 3 && rb_one_in(3)) {
            n = GPUSKIN_MAX_JOINTS; /* the largest skeleton */
            alloc_n = n;
        } else {
            n = 1 + rb_below(rb_one_in(4) ? 300 : 40);
            alloc_n = n;
        }
        par = (int32_t *)malloc(alloc_n * sizeof *par);
        corrupt = !refuse_count && rb_one_in(4);
        if (refuse_count) par[0] = -1, par[1] = 0;
        else corrupt = rb_parents(par, n, corrupt);
        memset(&d, 0, sizeof d);
        d.joint_count = n;
        d.parents = rb_one_in(50) ? NULL : par;
        d.alloc_user = rb_one_in(2) ? (void *)&user_tag : NULL;
        if (!rb_one_in(4)) {
            ib = (gpuskin_mat4 *)malloc(alloc_n * sizeof *ib);
            for (j = 0; j < alloc_n; ++j) ib[j] = rb_matrix(odds, odds && rb_one_in(4));
            d.inverse_bind = ib;
        }
        if (!rb_one_in(3)) {
            rest = (gpuskin_trs *)malloc(alloc_n * sizeof *rest);
            for (j = 0; j < alloc_n; ++j) rest[j] = rb_trs(odds, odds && rb_one_in(4));
            d.rest_pose = rest;
        }
        if (rb_one_in(3)) {
            rpg = (gpuskin_mat4 *)malloc(alloc_n * sizeof *rpg);
            for (j = 0; j < alloc_n; ++j) rpg[j] = rb_matrix(odds, odds && rb_one_in(4));
            d.root_parent_globals = rpg;
        }
        /* what the rules allow */
        if (!d.parents) want |= RB_NULL;
        if (n == 0 || n > GPUSKIN_MAX_JOINTS) want |= RB_COUNT;
        if (!want) {
            int range_ok = 1;
            for (j = 0; j < n; ++j)
                if (par[j] < -1 || par[j] >= (int32_t)n) range_ok = 0;
            if (!range_ok) want |= RB_PARENT;
            for (j = 0; j < n; ++j) {
                if (ib && !rb_all_fin(ib[j].m, 16)) nonfinite = 1;
                if (rest && !rb_all_fin(&rest[j].translation.x, 10)) nonfinite = 1;
                /* root parent globals are read only for roots */
                if (rpg && par[j] < 0 && !rb_all_fin(rpg[j].m, 16)) nonfinite = 1;
            }
            if (nonfinite) want |= RB_NONFINITE;
            if (range_ok && rb_has_cycle(par, n)) want |= RB_CYCLE;
        }
        snprintf(rb_ctx, sizeof rb_ctx, "gpuskin_skeleton_init: %u joints, corruption %d, ib %d rest %d rpg %d", n,
                 corrupt, ib != NULL, rest != NULL, rpg != NULL);
        rb_user = d.alloc_user;
        rb_wrong_user = 0;
        rb_refused = 0;
        rb_fail_in = !want && rb_one_in(15) ? 0 : -1;
        memset(&sk, 0x5A, sizeof sk); /* garbage: init only writes it */
        r = gpuskin_skeleton_init(&sk, &d);
        rb_fail_in = -1;
        RB_CODE("gpuskin_skeleton_init", r, want ? want : rb_refused ? RB_OOM : RB_OK);
        RB_CHECK(!rb_wrong_user);
        if (r == GPUSKIN_SUCCESS) {
            ++successes;
            RB_CHECK(rb_live == live0 + 1); /* "one allocation" */
            RB_CHECK(sk.joint_count == n);
            RB_CHECK(memcmp(sk.parents, par, n * sizeof *par) == 0);
            RB_CHECK(rb_orders_ok(&sk));
            for (j = 0; j < n; ++j) { /* "owns copies of the desc's arrays" (NULL = identity) */
                const gpuskin_mat4 id = gpuskin_mat4_identity();
                const gpuskin_trs tid = gpuskin_trs_identity();
                RB_CHECK(memcmp(&sk.inverse_bind[j], ib ? &ib[j] : &id, sizeof id) == 0);
                RB_CHECK(memcmp(&sk.rest_pose[j], rest ? &rest[j] : &tid, sizeof tid) == 0);
                if (par[j] < 0) RB_CHECK(memcmp(&sk.root_parent_globals[j], rpg ? &rpg[j] : &id, sizeof id) == 0);
            }
            if (n <= 400) rb_skeleton_calls(&sk, n);
            rb_user = sk.alloc_user;
            gpuskin_skeleton_free(&sk);
            RB_CHECK(!rb_wrong_user);
        }
        RB_CHECK(rb_live == live0);
        free(par);
        free(ib);
        free(rest);
        free(rpg);
    }
    snprintf(rb_ctx, sizeof rb_ctx, "NULL arguments");
    {
        gpuskin_skeleton_desc d;
        gpuskin_skeleton sk;
        int32_t p = -1;
        memset(&d, 0, sizeof d);
        d.joint_count = 1;
        d.parents = &p;
        RB_CODE("gpuskin_skeleton_init(NULL, desc)", gpuskin_skeleton_init(NULL, &d), RB_NULL);
        RB_CODE("gpuskin_skeleton_init(sk, NULL)", gpuskin_skeleton_init(&sk, NULL), RB_NULL);
        /* a zero-initialised skeleton (never made) is refused by every function that
           takes one, and freeing it or NULL does nothing */
        memset(&sk, 0, sizeof sk);
        {
            gpuskin_mat4 g[2];
            gpuskin_trs tr[2];
            gpuskin_clip clip;
            memset(&clip, 0, sizeof clip);
            RB_CODE("gpuskin_skeleton_globals(zeroed skeleton)", gpuskin_skeleton_globals(&sk, NULL, g), RB_NULL);
            RB_CODE("gpuskin_skeleton_palette(zeroed skeleton)", gpuskin_skeleton_palette(&sk, NULL, g, g), RB_NULL);
            RB_CODE("gpuskin_clip_sample(zeroed skeleton)", gpuskin_clip_sample(&clip, &sk, 0.0f, tr), RB_NULL);
        }
        gpuskin_skeleton_free(&sk);
        gpuskin_skeleton_free(NULL);
        RB_CHECK(rb_live == 0); /* (every case starts with nothing allocated) */
    }
    printf("  %d skeletons (%d made)\n", it, successes);
}

/* gpuskin_skeleton_globals and gpuskin_skeleton_palette on a good skeleton, with
   hostile local poses, models and globals. */
static void rb_skeleton_calls(const gpuskin_skeleton *sk, uint32_t n)
{
    int round;
    for (round = 0; round < 3; ++round) {
        const uint32_t odds = round == 0 ? 0u : rb_one_in(2) ? 8u : 60u;
        const int nf = round == 2;
        gpuskin_trs *pose = NULL;
        gpuskin_mat4 *model = NULL, *globals = (gpuskin_mat4 *)malloc(n * sizeof *globals);
        rb_arr out;
        gpuskin_result r;
        uint32_t j;
        int pose_nf = 0, model_nf = 0;
        if (rb_one_in(4) == 0) {
            pose = (gpuskin_trs *)malloc(n * sizeof *pose);
            for (j = 0; j < n; ++j) {
                pose[j] = rb_trs(odds, nf);
                pose_nf |= !rb_all_fin(&pose[j].translation.x, 10);
            }
        }
        snprintf(rb_ctx, sizeof rb_ctx, "gpuskin_skeleton_globals: %u joints, pose %s, odds %u", n,
                 pose ? "given" : "NULL", odds);
        rb_arr_make(&out, n * sizeof(gpuskin_mat4));
        r = gpuskin_skeleton_globals(sk, pose, (gpuskin_mat4 *)out.p);
        RB_CODE("gpuskin_skeleton_globals", r, pose_nf ? RB_NONFINITE : RB_OK | RB_NONFINITE);
        RB_CHECK(rb_arr_guards_ok(&out));
        if (r == GPUSKIN_SUCCESS && !rb_all_fin((const float *)out.p, (size_t)n * 16))
            RB_NOTE("gpuskin_skeleton_globals: SUCCESS with a non-finite global", rb_ctx);
        if (r == GPUSKIN_SUCCESS) memcpy(globals, out.p, n * sizeof *globals);
        else
            for (j = 0; j < n; ++j) globals[j] = rb_matrix(odds, nf);
        rb_arr_free(&out);
        /* the palette, from those globals (or hostile ones) */
        if (rb_one_in(3)) {
            model = (gpuskin_mat4 *)malloc(sizeof *model);
            *model = rb_matrix(odds ? odds : 4, nf);
            model_nf = !rb_all_fin(model->m, 16);
        }
        snprintf(rb_ctx, sizeof rb_ctx, "gpuskin_skeleton_palette: %u joints, model %s", n,
                 model ? (model_nf ? "non-finite" : "given") : "NULL");
        rb_arr_make(&out, n * sizeof(gpuskin_mat4));
        r = gpuskin_skeleton_palette(sk, model, globals, (gpuskin_mat4 *)out.p);
        RB_CODE("gpuskin_skeleton_palette", r, model_nf ? RB_NONFINITE : RB_OK | RB_NONFINITE);
        RB_CHECK(rb_arr_guards_ok(&out));
        if (r == GPUSKIN_SUCCESS && !rb_all_fin((const float *)out.p, (size_t)n * 16))
            RB_NOTE("gpuskin_skeleton_palette: SUCCESS with a non-finite entry", rb_ctx);
        rb_arr_free(&out);
        RB_CODE("gpuskin_skeleton_globals(NULL out)", gpuskin_skeleton_globals(sk, pose, NULL), RB_NULL);
        RB_CODE("gpuskin_skeleton_globals(NULL skeleton)", gpuskin_skeleton_globals(NULL, pose, globals), RB_NULL);
        RB_CODE("gpuskin_skeleton_palette(NULL globals)", gpuskin_skeleton_palette(sk, model, NULL, globals), RB_NULL);
        RB_CODE("gpuskin_skeleton_palette(NULL out)", gpuskin_skeleton_palette(sk, model, globals, NULL), RB_NULL);
        RB_CODE("gpuskin_skeleton_palette(NULL skeleton)", gpuskin_skeleton_palette(NULL, model, globals, globals), RB_NULL);
        free(pose);
        free(model);
        free(globals);
    }
}

/* ======================================================================== */
/* gpuskin_build_palettes                                                   */
/* ======================================================================== */

#define RB_POOL 14
static gpuskin_skeleton rb_pool[RB_POOL];
static int rb_pool_user[RB_POOL];

/* Skeletons of 1-130 joints (chains, stars, forests, any listing order) with
   hostile but finite matrices: non-affine inverse binds and root parents, singular,
   mirrored, huge, zero-length rotations in the rest pose. */
static void rb_pool_make(void)
{
    static const uint32_t sizes[RB_POOL] = {1, 2, 5, 8, 13, 16, 17, 30, 33, 64, 65, 70, 100, 130};
    int k;
    for (k = 0; k < RB_POOL; ++k) {
        const uint32_t n = sizes[k];
        int32_t *par = (int32_t *)malloc(n * sizeof *par);
        gpuskin_mat4 *ib = (gpuskin_mat4 *)malloc(n * sizeof *ib), *rpg = (gpuskin_mat4 *)malloc(n * sizeof *rpg);
        gpuskin_trs *rest = (gpuskin_trs *)malloc(n * sizeof *rest);
        gpuskin_skeleton_desc d;
        gpuskin_result r;
        uint32_t j;
        rb_start("skeleton pool", 4, k);
        rb_parents(par, n, 0);
        for (j = 0; j < n; ++j) {
            ib[j] = rb_matrix(k % 3 == 0 ? 0u : 12u, 0);
            rpg[j] = rb_matrix(k % 4 == 1 ? 12u : 0u, 0);
            rest[j] = rb_trs(k % 2 ? 10u : 0u, 0);
        }
        if (k % 5 == 2) ib[n / 2].m[7] = 0.25f; /* one non-affine inverse bind: no rows */
        if (k % 5 == 3) rpg[0].m[3] = -0.5f, par[0] = -1; /* a non-affine root parent global */
        memset(&d, 0, sizeof d);
        d.joint_count = n;
        d.parents = par;
        d.inverse_bind = ib;
        d.rest_pose = rest;
        d.root_parent_globals = k % 2 ? rpg : NULL;
        d.alloc_user = &rb_pool_user[k];
        rb_user = d.alloc_user;
        r = gpuskin_skeleton_init(&rb_pool[k], &d);
        if (r != GPUSKIN_SUCCESS) { /* (every matrix here is finite and every parent in range) */
            snprintf(rb_ctx, sizeof rb_ctx, "the skeleton pool's %d", k);
            RB_CODE("gpuskin_skeleton_init", r, RB_OK);
        }
        free(par);
        free(ib);
        free(rpg);
        free(rest);
    }
}
static void rb_pool_free(void)
{
    int k;
    for (k = 0; k < RB_POOL; ++k) {
        rb_user = rb_pool[k].alloc_user;
        gpuskin_skeleton_free(&rb_pool[k]);
    }
}

/* One call of gpuskin_build_palettes, checked. outputs: 1 palettes, 2 LBS, 3 both,
   0 neither; hostility: 0 clean, 1 hostile but finite, 2 one non-finite value in a
   model or pose of the range. */
static void rb_palettes_call(const gpuskin_skeleton *sk, int outputs, int models_on, int poses_on, uint32_t first,
                             uint32_t count, int hostility)
{
    const uint32_t nj = sk->joint_count, end = first + count;
    const size_t recs = (size_t)end * nj;
    gpuskin_mat4 *models = NULL, *ref = NULL;
    gpuskin_trs *poses = NULL;
    rb_out pal, lbs;
    gpuskin_palette_batch_desc d;
    gpuskin_result r, rr = GPUSKIN_SUCCESS;
    rb_set want;
    uint32_t i, j;
    long live0;
    int in_nf = 0, fail_alloc = rb_one_in(25);
    const uint32_t odds = hostility == 1 ? 6u : 0u;
    if (models_on) {
        models = (gpuskin_mat4 *)malloc((end ? end : 1) * sizeof *models);
        for (i = 0; i < end; ++i) {
            models[i] = hostility ? rb_matrix(odds ? odds : 4, 0) : rb_matrix(0, 0);
            if (hostility && rb_one_in(6)) models[i].m[rb_below(3) * 4 + 3] = 0.5f; /* non-affine: the reference path */
        }
    }
    if (poses_on) {
        poses = (gpuskin_trs *)malloc((recs ? recs : 1) * sizeof *poses);
        for (j = 0; j < recs; ++j) poses[j] = rb_trs(odds, 0);
    }
    if (hostility == 2 && count && (models || poses)) { /* one non-finite value somewhere in the range */
        const uint32_t inst = first + rb_below(count);
        if (models && (!poses || rb_one_in(2))) models[inst].m[rb_below(16)] = rb_odd(1);
        else (&poses[(size_t)inst * nj + rb_below(nj)].translation.x)[rb_below(10)] = rb_odd(1);
    }
    for (i = first; i < end; ++i) {
        if (models && !rb_all_fin(models[i].m, 16)) in_nf = 1;
        if (poses && !rb_all_fin(&poses[(size_t)i * nj].translation.x, (size_t)nj * 10)) in_nf = 1;
    }
    memset(&pal, 0, sizeof pal);
    memset(&lbs, 0, sizeof lbs);
    if (outputs & 1) rb_out_make(&pal, recs ? recs : 1, sizeof(gpuskin_mat4), 1);
    if (outputs & 2) rb_out_make(&lbs, recs ? recs : 1, GPUSKIN_LBS_FLOATS_PER_JOINT * sizeof(float), 1);
    memset(&d, 0, sizeof d);
    d.skeleton = sk;
    d.first_instance = first;
    d.instance_count = count;
    d.models = models;
    d.local_poses = poses;
    d.out_palettes = (gpuskin_mat4 *)(outputs & 1 ? rb_out_ptr(&pal) : NULL);
    d.out_lbs = (float *)(outputs & 2 ? rb_out_ptr(&lbs) : NULL);
    /* instances before the range are not the call's to read */
    if (models && first) RB_ASAN_POISON(models, first * sizeof *models);
    if (poses && first) RB_ASAN_POISON(poses, (size_t)first * nj * sizeof *poses);
    want = !outputs ? RB_NULL : !count ? RB_OK | RB_COUNT : in_nf ? RB_NONFINITE : RB_OK | RB_NONFINITE;
    snprintf(rb_ctx, sizeof rb_ctx,
             "gpuskin_build_palettes: %u joints (rows %s, depth order %s, chains %s), instances [%u, %u), outputs %d, "
             "models %d, poses %d, hostility %d",
             nj, sk->inverse_bind_rows ? "yes" : "no", sk->depth_order ? "yes" : "no", sk->chain_slots ? "yes" : "no",
             first, end, outputs, models_on, poses_on, hostility);
    rb_user = sk->alloc_user;
    rb_wrong_user = 0;
    rb_refused = 0;
    live0 = rb_live;
    rb_fail_in = fail_alloc ? (long)rb_below(3) : -1;
    r = gpuskin_build_palettes(&d);
    rb_fail_in = -1;
    RB_CODE("gpuskin_build_palettes", r, want | (rb_refused ? RB_OOM : 0u));
    RB_CHECK(!rb_wrong_user);
    RB_CHECK(rb_live == live0);
    if (models && first) RB_ASAN_UNPOISON(models, first * sizeof *models);
    if (poses && first) RB_ASAN_UNPOISON(poses, (size_t)first * nj * sizeof *poses);
    /* nothing outside the range, nothing at all for an empty range */
    if (pal.mem) {
        RB_CHECK(rb_out_guards_ok(&pal));
        for (j = 0; j < (count ? first * nj : (uint32_t)pal.n); ++j) RB_CHECK(rb_out_untouched(&pal, j));
    }
    if (lbs.mem) {
        RB_CHECK(rb_out_guards_ok(&lbs));
        for (j = 0; j < (count ? first * nj : (uint32_t)lbs.n); ++j) RB_CHECK(rb_out_untouched(&lbs, j));
    }
    if (r == GPUSKIN_SUCCESS && count) {
        int finite = 1, same = 1;
        for (j = first * nj; j < end * nj; ++j) {
            if (pal.mem) finite &= rb_out_finite(&pal, j, 16);
            if (lbs.mem) finite &= rb_out_finite(&lbs, j, 12);
            if (pal.mem && lbs.mem) { /* out_lbs is the packed layout of out_palettes: rows 0..2 */
                int row, c;
                for (row = 0; row < 3; ++row)
                    for (c = 0; c < 4; ++c)
                        same &= rb_fbits(rb_out_get(&lbs, j, (size_t)(row * 4 + c))) ==
                                rb_fbits(rb_out_get(&pal, j, (size_t)(c * 4 + row)));
            }
        }
        if (!finite) RB_NOTE("gpuskin_build_palettes: SUCCESS with a non-finite palette entry", rb_ctx);
        RB_CHECK(same);
    }
    /* the same instances by hand (globals, then palette) agree, or near float's
       limit one overflowed where the other's rounding did not */
    if (outputs && count && !rb_refused) {
        ref = (gpuskin_mat4 *)malloc(nj * sizeof *ref);
        rb_user = sk->alloc_user;
        for (i = first; i < end && rr == GPUSKIN_SUCCESS; ++i) {
            rr = gpuskin_skeleton_globals(sk, poses ? poses + (size_t)i * nj : NULL, ref);
            if (rr == GPUSKIN_SUCCESS) rr = gpuskin_skeleton_palette(sk, models ? &models[i] : NULL, ref, ref);
        }
        RB_CHECK(r == rr || (r == GPUSKIN_SUCCESS && rr == GPUSKIN_ERROR_NON_FINITE) ||
                 (rr == GPUSKIN_SUCCESS && r == GPUSKIN_ERROR_NON_FINITE));
        free(ref);
    }
    rb_out_free(&pal);
    rb_out_free(&lbs);
    free(models);
    free(poses);
}

/* A copy of a skeleton without some of what init derives (a skeleton "filled in by
   hand": the header says the forms then take `order`, the depth order, or make the
   inverse binds' rows themselves). */
static gpuskin_skeleton rb_by_hand(const gpuskin_skeleton *sk)
{
    gpuskin_skeleton h = *sk;
    const uint32_t drop = 1 + rb_below(7);
    if (drop & 1) h.depth_order = NULL;
    if (drop & 2) h.chain_slots = NULL, h.chain_steps = 0;
    if (drop & 4) h.inverse_bind_rows = NULL;
    return h;
}

static void test_robust_build_palettes(void)
{
    int combo, it = 0, iters = 1200 * rb_scale;
    rb_fails = 0;
    rb_pool_make();
    /* every combination of the outputs, models and poses (given or not), and every
       instance count 1..40: one at a time, groups of 8 and 16, their short ends */
    for (combo = 0; combo < 3 * 2 * 2 * 40 * 2; ++combo) {
        const int outputs = 1 + combo % 3, models_on = (combo / 3) % 2, poses_on = (combo / 6) % 2;
        const uint32_t count = 1 + (uint32_t)((combo / 12) % 40);
        const int pass = combo / 480;
        gpuskin_skeleton hand;
        const gpuskin_skeleton *sk;
        uint32_t first;
        int hostility;
        rb_start("test_robust_build_palettes", 5, combo);
        sk = &rb_pool[rb_below(RB_POOL)];
        if (rb_one_in(5)) {
            hand = rb_by_hand(sk);
            sk = &hand;
        }
        first = rb_one_in(3) ? 1 + rb_below(9) : 0;
        hostility = pass == 0 ? (int)rb_below(2) : 2;
        rb_palettes_call(sk, outputs, models_on, poses_on, first, count, hostility);
    }
    /* random calls, bad ones among them */
    for (it = 0; it < iters; ++it) {
        const int kind = (int)rb_below(40);
        gpuskin_skeleton hand;
        rb_start("test_robust_build_palettes (random)", 6, it);
        if (kind == 0) { /* NULL desc, NULL skeleton, a zeroed skeleton, no outputs */
            gpuskin_palette_batch_desc d;
            gpuskin_skeleton zero;
            gpuskin_mat4 out[4];
            memset(&d, 0, sizeof d);
            memset(&zero, 0, sizeof zero);
            snprintf(rb_ctx, sizeof rb_ctx, "gpuskin_build_palettes: NULL pointers");
            RB_CODE("gpuskin_build_palettes(NULL)", gpuskin_build_palettes(NULL), RB_NULL);
            d.instance_count = 1;
            d.out_palettes = out;
            RB_CODE("gpuskin_build_palettes(NULL skeleton)", gpuskin_build_palettes(&d), RB_NULL);
            d.skeleton = &zero;
            RB_CODE("gpuskin_build_palettes(zeroed skeleton)", gpuskin_build_palettes(&d), RB_NULL);
            d.skeleton = &rb_pool[0];
            d.out_palettes = NULL;
            RB_CODE("gpuskin_build_palettes(no output)", gpuskin_build_palettes(&d), RB_NULL);
        } else if (kind == 1) { /* first + count wraps around 32 bits: refused before any write */
            gpuskin_palette_batch_desc d;
            rb_out o;
            memset(&d, 0, sizeof d);
            rb_out_make(&o, 4, sizeof(gpuskin_mat4), 1);
            d.skeleton = &rb_pool[rb_below(RB_POOL)];
            d.first_instance = UINT32_MAX - rb_below(8);
            d.instance_count = 9 + rb_below(100);
            d.out_palettes = (gpuskin_mat4 *)rb_out_ptr(&o);
            snprintf(rb_ctx, sizeof rb_ctx, "gpuskin_build_palettes: [%u, +%u) wraps", d.first_instance, d.instance_count);
            RB_CODE("gpuskin_build_palettes", gpuskin_build_palettes(&d), RB_OVERFLOW);
            RB_CHECK(rb_out_all_untouched(&o));
            rb_out_free(&o);
        } else if (kind == 2) { /* a skeleton by hand whose count is out of range: refused unread */
            gpuskin_palette_batch_desc d;
            gpuskin_skeleton h = rb_pool[0];
            rb_out o;
            memset(&d, 0, sizeof d);
            h.joint_count = rb_one_in(2) ? 0u : GPUSKIN_MAX_JOINTS + 1u + rb_below(100);
            rb_out_make(&o, 4, sizeof(gpuskin_mat4), 1);
            d.skeleton = &h;
            d.instance_count = 1;
            d.out_palettes = (gpuskin_mat4 *)rb_out_ptr(&o);
            snprintf(rb_ctx, sizeof rb_ctx, "gpuskin_build_palettes: skeleton by hand with %u joints", h.joint_count);
            RB_CODE("gpuskin_build_palettes", gpuskin_build_palettes(&d), RB_COUNT);
            RB_CHECK(rb_out_all_untouched(&o));
            rb_out_free(&o);
        } else {
            const gpuskin_skeleton *sk = &rb_pool[rb_below(RB_POOL)];
            if (rb_one_in(4)) {
                hand = rb_by_hand(sk);
                sk = &hand;
            }
            rb_palettes_call(sk, kind == 3 ? 0 : 1 + (int)rb_below(3), rb_one_in(2), rb_one_in(2),
                             rb_one_in(3) ? rb_below(20) : 0, rb_one_in(20) ? 0 : 1 + rb_below(rb_one_in(3) ? 64 : 40),
                             (int)rb_below(3));
        }
    }
    rb_pool_free();
    RB_CHECK(rb_live == 0);
    printf("  %d combinations, %d random calls\n", combo, it);
}

/* ======================================================================== */
/* The split and the packers                                                */
/* ======================================================================== */

static int rb_split_valid(int m) { return m == GPUSKIN_SPLIT_GRAM_SCHMIDT || m == GPUSKIN_SPLIT_POLAR; }
static int rb_word_valid(uint32_t w) { return w == 0x0u || w == 0x1u || w == 0x11u || w == 0x31u; }

/* A finite matrix whose split may not fit a float ("GPUSKIN_ERROR_NON_FINITE ...
   for a result that does not fit a float (entries near FLT_MAX)"): S's entries
   are bounded by the columns' lengths, the dual part by the translation's. Below
   1e38 everywhere the split must succeed. */
static int rb_split_huge(const gpuskin_mat4 *m)
{
    int c;
    for (c = 0; c < 3; ++c) {
        const double x = m->m[c * 4], y = m->m[c * 4 + 1], z = m->m[c * 4 + 2];
        if (sqrt(x * x + y * y + z * z) > 1e38) return 1;
    }
    return fabs(m->m[12]) > 1e38 || fabs(m->m[13]) > 1e38 || fabs(m->m[14]) > 1e38;
}

/* part 0: the split, gpuskin_pack_lbs, gpuskin_pack_dq, gpuskin_dq_uniform_scale;
   part 1: gpuskin_pack_dq_fast against gpuskin_pack_dq. */
static void rb_split_pack(int part)
{
    int it, iters = 4000 * rb_scale;
    rb_fails = 0;
    rb_part = part;
    rb_muted = part != 0;
    for (it = 0; it < iters; ++it) {
        uint32_t n, j, alloc_n, word_ref = 0xDEADu, word_fast = 0xDEADu;
        const uint32_t odds = rb_one_in(3) ? 0u : rb_one_in(2) ? 4u : 40u;
        const int nf = odds && rb_one_in(3), mode = (int)rb_below(60);
        int split_m, palette_nf = 0, palette_huge = 0, has_res, count_bad = 0;
        rb_set count_want = 0; /* 0 joints: INVALID_COUNT; above GPUSKIN_MAX_JOINTS: that, or OVERFLOW */
        gpuskin_mat4 *pal;
        gpuskin_split *splits;
        rb_arr dq_ref, res_ref, dq_fast, res_fast, w_ref, w_fast, lbs;
        gpuskin_result r_ref, r_fast, r;
        rb_set want;
        rb_start(part ? "test_robust_pack_dq_fast" : "test_robust_split_pack", 7, it); /* the same inputs */
        if (mode == 0) {
            static const uint32_t bad[] = {0u, GPUSKIN_MAX_JOINTS + 1u, UINT32_MAX};
            n = bad[rb_below(3)];
            alloc_n = 2;
            count_bad = 1;
            count_want = n ? RB_COUNT | RB_OVERFLOW : RB_COUNT;
        } else {
            n = 1 + rb_below(rb_one_in(4) ? 130 : 70);
            alloc_n = n;
        }
        split_m = rb_one_in(20) ? (int)(2 + rb_below(5)) : (int)rb_below(2);
#ifdef __cplusplus
        if (!rb_split_valid(split_m)) split_m = 0; /* no out-of-range enum values in C++ */
#endif
        pal = (gpuskin_mat4 *)malloc(alloc_n * sizeof *pal);
        splits = (gpuskin_split *)malloc(alloc_n * sizeof *splits);
        for (j = 0; j < alloc_n; ++j) {
            pal[j] = rb_matrix(odds, nf);
            palette_nf |= !rb_all_fin(pal[j].m, 16);
            palette_huge |= rb_all_fin(pal[j].m, 16) && rb_split_huge(&pal[j]);
        }
        has_res = !rb_one_in(4);
        snprintf(rb_ctx, sizeof rb_ctx, "%u joints, split %d, odds %u, non-finite %d, residual %d", n, split_m, odds,
                 palette_nf, has_res);
        /* gpuskin_split_matrix, joint by joint */
        for (j = 0; j < alloc_n && !count_bad; ++j) {
            rb_arr o;
            const int jnf = !rb_all_fin(pal[j].m, 16);
            rb_arr_make(&o, sizeof(gpuskin_split));
            r = gpuskin_split_matrix(&pal[j], (gpuskin_split_method)split_m, (gpuskin_split *)o.p);
            want = (rb_split_valid(split_m) ? 0u : RB_METHOD) | (jnf ? RB_NONFINITE : 0u);
            RB_CODE("gpuskin_split_matrix", r, want ? want : rb_split_huge(&pal[j]) ? RB_OK | RB_NONFINITE : RB_OK);
            RB_CHECK(rb_arr_guards_ok(&o));
            memcpy(&splits[j], o.p, sizeof splits[j]);
            if (r == GPUSKIN_SUCCESS) {
                const gpuskin_split *s = &splits[j];
                const float *f = &s->dq.real.x;
                double len2;
                int k, nan = 0, inf = 0;
                for (k = 0; k < 8; ++k) nan |= f[k] != f[k], inf |= !rb_fin(f[k]);
                for (k = 0; k < 9; ++k) nan |= s->residual.m[k] != s->residual.m[k], inf |= !rb_fin(s->residual.m[k]);
                RB_CHECK(!nan); /* "Never NaN for finite input" */
                RB_CHECK(!inf); /* "GPUSKIN_ERROR_NON_FINITE ... for a result that does not fit a float" */
                len2 = (double)f[0] * f[0] + (double)f[1] * f[1] + (double)f[2] * f[2] + (double)f[3] * f[3];
                RB_CHECK(nan || fabs(len2 - 1.0) < 1e-4); /* dq: "unit: rotation R" */
                RB_CHECK(s->rigid == 0 || s->rigid == 1);
                RB_CHECK(s->degenerate == 0 || s->degenerate == 1);
                if (s->rigid) /* "identity when rigid" */
                    for (k = 0; k < 9; ++k) RB_CHECK(s->residual.m[k] == (k % 4 == 0 ? 1.0f : 0.0f));
                if (s->degenerate) /* "R = I" */
                    RB_CHECK(f[0] == 0.0f && f[1] == 0.0f && f[2] == 0.0f && f[3] == 1.0f);
            }
            rb_arr_free(&o);
        }
        /* gpuskin_pack_lbs: the rows, exactly */
        rb_arr_make(&lbs, (size_t)alloc_n * 48);
        r = gpuskin_pack_lbs(pal, n, (float *)lbs.p);
        RB_CODE("gpuskin_pack_lbs", r, count_bad ? count_want : palette_nf ? RB_NONFINITE : RB_OK);
        RB_CHECK(rb_arr_guards_ok(&lbs));
        if (r == GPUSKIN_SUCCESS) {
            int same = 1, row, c;
            for (j = 0; j < n; ++j)
                for (row = 0; row < 3; ++row)
                    for (c = 0; c < 4; ++c)
                        same &= rb_fbits(((const float *)lbs.p)[j * 12 + (uint32_t)(row * 4 + c)]) ==
                                rb_fbits(pal[j].m[c * 4 + row]);
            RB_CHECK(same);
        }
        rb_arr_free(&lbs);
        /* gpuskin_pack_dq and gpuskin_pack_dq_fast */
        rb_arr_make(&dq_ref, (size_t)alloc_n * 32);
        rb_arr_make(&res_ref, (size_t)alloc_n * 48);
        rb_arr_make(&dq_fast, (size_t)alloc_n * 32);
        rb_arr_make(&res_fast, (size_t)alloc_n * 48);
        rb_arr_make(&w_ref, 4);
        rb_arr_make(&w_fast, 4);
        want = (count_bad ? count_want : 0u) | (rb_split_valid(split_m) ? 0u : RB_METHOD) |
               (!count_bad && palette_nf ? RB_NONFINITE : 0u);
        if (!want && palette_huge) want = RB_OK | RB_NONFINITE; /* "as gpuskin_split_matrix gives it" */
        r_ref = gpuskin_pack_dq(pal, n, (gpuskin_split_method)split_m, (float *)dq_ref.p, has_res ? (float *)res_ref.p : NULL,
                                (uint32_t *)w_ref.p);
        r_fast = gpuskin_pack_dq_fast(pal, n, (gpuskin_split_method)split_m, (float *)dq_fast.p,
                                      has_res ? (float *)res_fast.p : NULL, (uint32_t *)w_fast.p);
        RB_CODE("gpuskin_pack_dq", r_ref, want ? want : RB_OK);
        RB_CHECK(rb_arr_guards_ok(&dq_ref) && rb_arr_guards_ok(&res_ref) && rb_arr_guards_ok(&w_ref));
        if (!has_res) RB_CHECK(rb_arr_untouched(&res_ref, 0, res_ref.bytes));
        rb_muted = part != 1;
        RB_CODE("gpuskin_pack_dq_fast", r_fast, want ? want : RB_OK);
        RB_CHECK(r_fast == r_ref); /* "gpuskin_pack_dq's contract" */
        RB_CHECK(rb_arr_guards_ok(&dq_fast) && rb_arr_guards_ok(&res_fast) && rb_arr_guards_ok(&w_fast));
        if (!has_res) RB_CHECK(rb_arr_untouched(&res_fast, 0, res_fast.bytes));
        rb_muted = part != 0;
        if (r_ref == GPUSKIN_SUCCESS) {
            const float *dr = (const float *)dq_ref.p, *rr = (const float *)res_ref.p;
            int any_nonrigid = 0, same = 1, nan = 0, inf = 0;
            uint32_t k;
            memcpy(&word_ref, w_ref.p, 4);
            for (j = 0; j < n; ++j) { /* "splits each matrix": the split's dq and residual rows, w = 0 */
                const gpuskin_split *s = &splits[j];
                const float *sd = &s->dq.real.x;
                int row, c;
                any_nonrigid |= !s->rigid;
                for (k = 0; k < 8; ++k) same &= rb_fbits(dr[j * 8 + k]) == rb_fbits(sd[k]);
                if (has_res)
                    for (row = 0; row < 3; ++row) {
                        for (c = 0; c < 3; ++c) same &= rb_fbits(rr[j * 12 + (uint32_t)(row * 4 + c)]) == rb_fbits(s->residual.m[c * 3 + row]);
                        same &= rr[j * 12 + (uint32_t)(row * 4 + 3)] == 0.0f;
                    }
            }
            RB_CHECK(same);
            RB_CHECK(word_ref == (GPUSKIN_METHOD_DQS | (any_nonrigid ? GPUSKIN_METHOD_RESIDUAL_BIT : 0u)));
            for (k = 0; k < n * 8; ++k) nan |= dr[k] != dr[k], inf |= !rb_fin(dr[k]);
            for (k = 0; has_res && k < n * 12; ++k) nan |= rr[k] != rr[k], inf |= !rb_fin(rr[k]);
            RB_CHECK(!nan);
            RB_CHECK(!inf); /* as gpuskin_split_matrix: an overflowing split is NON_FINITE */
        }
        rb_muted = part != 1;
        if (r_fast == GPUSKIN_SUCCESS && r_ref == GPUSKIN_SUCCESS) {
            const float *dr = (const float *)dq_ref.p, *rr = (const float *)res_ref.p;
            const float *df = (const float *)dq_fast.p, *rf = (const float *)res_fast.p;
            int rigid_same = 1, close = 1, finite_ok = 1, described = 0;
            uint32_t k;
            memcpy(&word_fast, w_fast.p, 4);
            RB_CHECK(word_fast == word_ref); /* "the method word is the same" */
            for (j = 0; j < n; ++j) {
                /* "takes gpuskin_split_matrix's decisions exactly", "values equal the
                   reference to float rounding" (loosely: 1e-3 of the scale) */
                double amax = 0.0, tmax = 0.0;
                int c;
                for (c = 0; c < 12; ++c)
                    if (c % 4 != 3 && fabs(pal[j].m[c]) > amax) amax = fabs(pal[j].m[c]);
                for (c = 12; c < 15; ++c)
                    if (fabs(pal[j].m[c]) > tmax) tmax = fabs(pal[j].m[c]);
                for (k = 0; k < 4; ++k) close &= fabs((double)df[j * 8 + k] - dr[j * 8 + k]) <= 1e-3;
                for (k = 4; k < 8; ++k) close &= fabs((double)df[j * 8 + k] - dr[j * 8 + k]) <= 1e-3 * (1.0 + tmax);
                if (has_res) {
                    int ref_rigid = 1, fast_rigid = 1;
                    for (k = 0; k < 12; ++k) {
                        const float id = (k % 5 == 0 && k < 11) ? 1.0f : 0.0f;
                        ref_rigid &= rr[j * 12 + k] == id;
                        fast_rigid &= rf[j * 12 + k] == id;
                        close &= !rb_fin(rr[j * 12 + k]) || fabs((double)rf[j * 12 + k] - rr[j * 12 + k]) <= 1e-3 * (1.0 + amax);
                    }
                    RB_CHECK(ref_rigid == splits[j].rigid);
                    rigid_same &= fast_rigid == splits[j].rigid;
                }
                for (k = 0; k < 8; ++k) finite_ok &= !rb_fin(dr[j * 8 + k]) || rb_fin(df[j * 8 + k]);
                for (k = 0; has_res && k < 12; ++k) finite_ok &= !rb_fin(rr[j * 12 + k]) || rb_fin(rf[j * 12 + k]);
                if ((!finite_ok || !close || !rigid_same) && !described && !rb_muted && rb_fails < 10) { /* which joint, for the report */
                    described = 1;
                    fprintf(stderr, "  pack_dq vs pack_dq_fast, joint %u of %u, matrix (column-major):", j, n);
                    for (c = 0; c < 16; ++c) fprintf(stderr, " %.9g", (double)pal[j].m[c]);
                    fprintf(stderr, "\n    reference dq:");
                    for (k = 0; k < 8; ++k) fprintf(stderr, " %.9g", (double)dr[j * 8 + k]);
                    fprintf(stderr, "\n    fast dq:     ");
                    for (k = 0; k < 8; ++k) fprintf(stderr, " %.9g", (double)df[j * 8 + k]);
                    if (has_res) {
                        fprintf(stderr, "\n    reference S rows:");
                        for (k = 0; k < 12; ++k) fprintf(stderr, " %.9g", (double)rr[j * 12 + k]);
                        fprintf(stderr, "\n    fast S rows:     ");
                        for (k = 0; k < 12; ++k) fprintf(stderr, " %.9g", (double)rf[j * 12 + k]);
                    }
                    fprintf(stderr, "\n");
                }
            }
            RB_CHECK(rigid_same);
            RB_CHECK(finite_ok);
            RB_CHECK(close);
        }
        rb_muted = part != 0;
        /* gpuskin_dq_uniform_scale: on the packed residual with its word, or on raw ones */
        if (!count_bad) {
            rb_arr res;
            uint32_t word, before_word;
            float *before;
            const int raw = rb_one_in(3) || r_ref != GPUSKIN_SUCCESS || !has_res;
            rb_arr_make(&res, (size_t)n * 48);
            before = (float *)malloc((size_t)n * 48);
            if (raw) {
                const float s0 = rb_one_in(3) ? rb_f(0.01, 100, odds, 0) : 1.0f;
                for (j = 0; j < n; ++j) {
                    const float s = rb_one_in(2) ? s0 : s0 * rb_range(0.99999, 1.00001);
                    uint32_t k;
                    for (k = 0; k < 12; ++k) {
                        float v = (k % 5 == 0 && k < 11) ? s : 0.0f;
                        if (rb_one_in(20)) v += rb_range(-1e-6, 1e-6) * s;
                        if (odds && rb_one_in(odds * 4)) v = rb_odd(nf);
                        ((float *)res.p)[j * 12 + k] = v;
                    }
                }
                word = rb_one_in(10) ? (uint32_t)rb_u64() : rb_one_in(2) ? 0x11u : rb_one_in(2) ? 0x31u : rb_below(2);
            } else {
                memcpy(res.p, res_ref.p, (size_t)n * 48);
                word = word_ref;
            }
            memcpy(before, res.p, (size_t)n * 48);
            before_word = word;
            r = gpuskin_dq_uniform_scale((float *)res.p, n, &word);
            RB_CODE("gpuskin_dq_uniform_scale", r, rb_word_valid(before_word) ? RB_OK : RB_METHOD);
            RB_CHECK(rb_arr_guards_ok(&res));
            if (r == GPUSKIN_SUCCESS) {
                const int changed = memcmp(before, res.p, (size_t)n * 48) != 0 || word != before_word;
                if (changed) { /* "writes every joint's rows as exactly s*I and sets GPUSKIN_METHOD_UNIFORM_BIT" */
                    const float *now = (const float *)res.p;
                    int exact = 1;
                    uint32_t k;
                    RB_CHECK(before_word == 0x11u && word == 0x31u);
                    for (j = 0; j < n; ++j) {
                        const float s = now[j * 12];
                        exact &= s > 0.0f && rb_fin(s);
                        for (k = 0; k < 12; ++k) {
                            exact &= now[j * 12 + k] == ((k % 5 == 0 && k < 11) ? s : 0.0f);
                            exact &= k % 4 == 3 || fabs((double)now[j * 12 + k] - before[j * 12 + k]) <= 2e-5 * s;
                        }
                    }
                    RB_CHECK(exact);
                } else {
                    RB_CHECK(word == before_word);
                }
            } else {
                RB_CHECK(memcmp(before, res.p, (size_t)n * 48) == 0 && word == before_word);
            }
            rb_arr_free(&res);
            free(before);
        }
        rb_arr_free(&dq_ref); rb_arr_free(&res_ref); rb_arr_free(&dq_fast); rb_arr_free(&res_fast);
        rb_arr_free(&w_ref); rb_arr_free(&w_fast);
        free(pal);
        free(splits);
    }
    rb_muted = 0;
    snprintf(rb_ctx, sizeof rb_ctx, "NULL arguments and refused counts");
    {
        gpuskin_mat4 m[2];
        gpuskin_split s;
        float out[64];
        uint32_t w = GPUSKIN_METHOD_DQS | GPUSKIN_METHOD_RESIDUAL_BIT;
        m[0] = m[1] = gpuskin_mat4_identity();
        RB_CODE("gpuskin_split_matrix(NULL m)", gpuskin_split_matrix(NULL, GPUSKIN_SPLIT_POLAR, &s), RB_NULL);
        RB_CODE("gpuskin_split_matrix(NULL out)", gpuskin_split_matrix(m, GPUSKIN_SPLIT_POLAR, NULL), RB_NULL);
        RB_CODE("gpuskin_pack_lbs(NULL palette)", gpuskin_pack_lbs(NULL, 1, out), RB_NULL);
        RB_CODE("gpuskin_pack_lbs(NULL out)", gpuskin_pack_lbs(m, 1, NULL), RB_NULL);
        RB_CODE("gpuskin_pack_dq(NULL palette)", gpuskin_pack_dq(NULL, 1, GPUSKIN_SPLIT_GRAM_SCHMIDT, out, out, &w), RB_NULL);
        RB_CODE("gpuskin_pack_dq(NULL dq)", gpuskin_pack_dq(m, 1, GPUSKIN_SPLIT_GRAM_SCHMIDT, NULL, out, &w), RB_NULL);
        RB_CODE("gpuskin_pack_dq(NULL word)", gpuskin_pack_dq(m, 1, GPUSKIN_SPLIT_GRAM_SCHMIDT, out, out, NULL), RB_NULL);
        RB_CODE("gpuskin_pack_dq_fast(NULL palette)", gpuskin_pack_dq_fast(NULL, 1, GPUSKIN_SPLIT_GRAM_SCHMIDT, out, out, &w), RB_NULL);
        RB_CODE("gpuskin_pack_dq_fast(NULL dq)", gpuskin_pack_dq_fast(m, 1, GPUSKIN_SPLIT_GRAM_SCHMIDT, NULL, out, &w), RB_NULL);
        RB_CODE("gpuskin_pack_dq_fast(NULL word)", gpuskin_pack_dq_fast(m, 1, GPUSKIN_SPLIT_GRAM_SCHMIDT, out, out, NULL), RB_NULL);
        RB_CODE("gpuskin_dq_uniform_scale(NULL residual)", gpuskin_dq_uniform_scale(NULL, 1, &w), RB_NULL);
        RB_CODE("gpuskin_dq_uniform_scale(NULL word)", gpuskin_dq_uniform_scale(out, 1, NULL), RB_NULL);
        RB_CODE("gpuskin_dq_uniform_scale(0 joints)", gpuskin_dq_uniform_scale(out, 0, &w), RB_COUNT);
        RB_CODE("gpuskin_dq_uniform_scale(65537 joints)", gpuskin_dq_uniform_scale(out, GPUSKIN_MAX_JOINTS + 1u, &w), RB_COUNT | RB_OVERFLOW);
        RB_CODE("gpuskin_dq_uniform_scale(UINT32_MAX joints)", gpuskin_dq_uniform_scale(out, UINT32_MAX, &w), RB_COUNT | RB_OVERFLOW);
    }
    printf("  %d palettes\n", it);
}
static void test_robust_split_pack(void) { rb_split_pack(0); }
static void test_robust_pack_dq_fast(void) { rb_split_pack(1); }

/* ======================================================================== */
/* Vertex streams, gpuskin_streams_validate, gpuskin_skin_cpu and _fast     */
/* ======================================================================== */

/* An input stream in a heap block of exactly its span (so that AddressSanitizer sees
   any read past its last element). mode as rb_out's; 6 = NULL. */
typedef struct rb_in {
    unsigned char *mem, *data;
    size_t n, elem, stride, step;
    int mode, laid_out;
} rb_in;

static void rb_in_make(rb_in *b, size_t n, size_t elem, int mode)
{
    size_t misalign = 0, span;
    memset(b, 0, sizeof *b);
    b->n = n;
    b->elem = elem;
    b->mode = mode;
    b->laid_out = mode <= 3 && n > 0 && n < ((size_t)1 << 20);
    switch (mode) {
    case 0: b->stride = 0; b->step = elem; break;
    case 1: b->stride = b->step = elem; break;
    case 2: b->stride = b->step = elem + 4 * (1 + rb_below(3)); misalign = 4 * rb_below(2); break;
    case 3: b->stride = b->step = elem + 1 + rb_below(7); misalign = rb_below(4); break;
    case 4: b->stride = b->step = 1 + rb_below((uint32_t)elem - 1); break;
    case 5: b->stride = b->step = SIZE_MAX / 2 + 1 + rb_below(1000); break;
    default: b->stride = b->step = elem; return;
    }
    span = b->laid_out ? (n - 1) * b->step + elem : elem;
    b->mem = (unsigned char *)malloc(misalign + span);
    memset(b->mem, 0x3C, misalign + span);
    b->data = b->mem + misalign;
}
static void rb_in_free(rb_in *b)
{
    free(b->mem);
    memset(b, 0, sizeof *b);
}
static gpuskin_stream rb_in_stream(const rb_in *b)
{
    gpuskin_stream s;
    s.data = b->mode == 6 ? NULL : b->data;
    s.stride = b->stride;
    return s;
}
static void rb_in_setf(rb_in *b, size_t i, size_t c, float f) { memcpy(b->data + i * b->step + 4 * c, &f, 4); }
static float rb_in_getf(const rb_in *b, size_t i, size_t c)
{
    float f;
    memcpy(&f, b->data + i * b->step + 4 * c, 4);
    return f;
}
static void rb_in_setj(rb_in *b, size_t i, size_t k, size_t jsize, uint32_t j)
{
    unsigned char *p = b->data + i * b->step + k * jsize;
    if (jsize == 1) {
        *p = (unsigned char)j;
    } else if (jsize == 2) {
        const uint16_t x = (uint16_t)j;
        memcpy(p, &x, 2);
    } else {
        memcpy(p, &j, 4);
    }
}
static uint32_t rb_in_getj(const rb_in *b, size_t i, size_t k, size_t jsize)
{
    const unsigned char *p = b->data + i * b->step + k * jsize;
    uint16_t x;
    uint32_t y;
    if (jsize == 1) return *p;
    if (jsize == 2) {
        memcpy(&x, p, 2);
        return x;
    }
    memcpy(&y, p, 4);
    return y;
}
/* stride mode for an input: mostly laid out, the bad ones when allowed */
static int rb_in_mode(size_t n, int allow_bad)
{
    if (allow_bad && rb_one_in(50)) {
        const int m = 4 + (int)rb_below(3);
        return m == 5 && n < 3 ? 4 : m;
    }
    return (int)rb_below(4);
}
/* (n - 1) * stride + elem does not fit in size_t */
static int rb_span_overflows(size_t n, size_t stride, size_t elem)
{
    const size_t step = stride ? stride : elem;
    return n > 1 && (n - 1) > (SIZE_MAX - elem) / step;
}

typedef struct rb_mesh {
    gpuskin_vertex_streams s;
    rb_in pos, nrm, tan, jnt[2], wgt[2];
    unsigned char *trap;  /* what a stream the desc does not use points at (poisoned under ASan) */
    uint32_t sets;        /* influence sets the streams hold (1 or 2) */
    size_t jsize;
    int structural;       /* some count, stride, type or NULL is bad: per-vertex checks are not safe */
} rb_mesh;

static size_t rb_jsize(gpuskin_joint_type t) { return t == GPUSKIN_JOINT_U8 ? 1u : t == GPUSKIN_JOINT_U16 ? 2u : 4u; }

/* A bind-pose mesh of n vertices for joint_count joints. hostility 0: clean, 1: rare
   hostile values, 2: frequent ones; bad: bad counts, strides, types and NULLs too. */
static void rb_mesh_make(rb_mesh *m, size_t n, uint32_t joint_count, int hostility, int bad)
{
    const uint32_t odds = hostility == 0 ? 0u : hostility == 1 ? 300u : 25u;
    const uint32_t jc = joint_count ? joint_count : 1;
    uint32_t set, k, type_max;
    size_t v;
    int jt;
    memset(m, 0, sizeof *m);
    m->trap = (unsigned char *)malloc(64);
    memset(m->trap, 0, 64);
    RB_ASAN_POISON(m->trap, 64);
    m->s.vertex_count = n;
    m->s.influence_sets = rb_below(3);
    if (bad && rb_one_in(40)) m->s.influence_sets = 3 + rb_below(5);
    m->sets = m->s.influence_sets == 2 ? 2u : 1u;
    jt = (int)rb_below(3);
    if (bad && rb_one_in(40)) jt = 3; /* not a gpuskin_joint_type (3 is still within its range of values in C++) */
    m->s.joint_type = (gpuskin_joint_type)jt;
    m->jsize = rb_jsize(m->s.joint_type);
    rb_in_make(&m->pos, n, 12, bad && rb_one_in(60) ? 6 : rb_in_mode(n, bad));
    if (rb_one_in(2)) rb_in_make(&m->nrm, n, 12, rb_in_mode(n, bad));
    if (rb_one_in(3)) rb_in_make(&m->tan, n, 16, rb_in_mode(n, bad));
    for (set = 0; set < m->sets; ++set) {
        rb_in_make(&m->jnt[set], n, 4 * m->jsize, bad && rb_one_in(80) ? 6 : rb_in_mode(n, bad));
        rb_in_make(&m->wgt[set], n, 16, bad && rb_one_in(80) ? 6 : rb_in_mode(n, bad));
    }
    m->s.positions = rb_in_stream(&m->pos);
    if (m->nrm.mem) m->s.normals = rb_in_stream(&m->nrm);
    else m->s.normals.stride = rb_below(40); /* absent: the stride means nothing */
    if (m->tan.mem) m->s.tangents = rb_in_stream(&m->tan);
    else m->s.tangents.stride = rb_below(40);
    for (set = 0; set < 2; ++set) {
        if (set < m->sets) {
            m->s.joints[set] = rb_in_stream(&m->jnt[set]);
            m->s.weights[set] = rb_in_stream(&m->wgt[set]);
        } else { /* a set the desc does not use: never read */
            m->s.joints[set].data = m->trap;
            m->s.weights[set].data = m->trap;
            m->s.joints[set].stride = rb_below(3) * 4;
        }
    }
    type_max = m->jsize == 1 ? 0xFFu : m->jsize == 2 ? 0xFFFFu : 0xFFFFFFFFu;
    for (v = 0; v < n && m->pos.laid_out; ++v) {
        const int unweighted = rb_one_in(12);
        const int heavy = hostility && rb_one_in(60); /* weights that sum to more than FLT_MAX, or near it */
        for (k = 0; k < 3; ++k) rb_in_setf(&m->pos, v, k, rb_f(-10, 10, odds, 1));
        if (m->nrm.laid_out)
            for (k = 0; k < 3; ++k) rb_in_setf(&m->nrm, v, k, rb_f(-1, 1, odds, 1));
        if (m->tan.laid_out) {
            for (k = 0; k < 3; ++k) rb_in_setf(&m->tan, v, k, rb_f(-1, 1, odds, 1));
            rb_in_setf(&m->tan, v, 3, rb_one_in(4) ? rb_f(-1, 1, odds, 1) : rb_one_in(2) ? 1.0f : -1.0f);
        }
        for (set = 0; set < m->sets; ++set) {
            if (!m->jnt[set].laid_out || !m->wgt[set].laid_out) continue;
            for (k = 0; k < 4; ++k) {
                float w;
                uint32_t j;
                const uint32_t cls = rb_below(8);
                if (unweighted || cls < 2) w = rb_one_in(2) ? 0.0f : -0.0f;
                else if (cls == 2) w = rb_one_in(2) ? 1e-40f : -1e-40f; /* a denormal counts as 0 */
                else w = rb_range(0.05, 1);
                if (heavy) w = rb_one_in(2) ? 1.7e38f : 3e38f;
                if (odds && rb_one_in(odds)) w = rb_one_in(3) ? -rb_range(0.01, 1) : rb_odd(1);
                if (!(fabsf(w) >= FLT_MIN)) /* unweighted: garbage half the time */
                    j = rb_one_in(2) ? (uint32_t)rb_u64() & type_max : rb_below(jc < type_max ? jc : type_max);
                else
                    j = (uint32_t)(rb_u64() % ((uint64_t)(jc - 1 < type_max ? jc - 1 : type_max) + 1));
                if (odds && rb_one_in(odds)) j = jc + rb_below(4) > type_max ? type_max : jc + rb_below(4);
                rb_in_setj(&m->jnt[set], v, k, m->jsize, j);
                rb_in_setf(&m->wgt[set], v, k, w);
            }
        }
    }
}
static void rb_mesh_free(rb_mesh *m)
{
    uint32_t set;
    rb_in_free(&m->pos);
    rb_in_free(&m->nrm);
    rb_in_free(&m->tan);
    for (set = 0; set < 2; ++set) {
        rb_in_free(&m->jnt[set]);
        rb_in_free(&m->wgt[set]);
    }
    RB_ASAN_UNPOISON(m->trap, 64);
    free(m->trap);
}

/* The errors the streams' layout allows (0: none; then the vertices can be read). */
static rb_set rb_structural_errors(const rb_mesh *m, uint32_t joint_count)
{
    const gpuskin_vertex_streams *s = &m->s;
    const size_t n = s->vertex_count;
    rb_set e = 0;
    uint32_t set, sets = s->influence_sets > 2 ? 2u : m->sets;
    const gpuskin_stream *st[7];
    size_t el[7], k, ns = 0;
    if (n == 0 || joint_count == 0 || joint_count > GPUSKIN_MAX_JOINTS) e |= RB_COUNT;
    if (s->influence_sets > 2) e |= RB_ARG;
    if (s->joint_type != GPUSKIN_JOINT_U16 && s->joint_type != GPUSKIN_JOINT_U8 && s->joint_type != GPUSKIN_JOINT_U32)
        e |= RB_ARG;
    st[ns] = &s->positions; el[ns++] = 12;
    if (s->normals.data) st[ns] = &s->normals, el[ns++] = 12;
    if (s->tangents.data) st[ns] = &s->tangents, el[ns++] = 16;
    for (set = 0; set < sets; ++set) {
        st[ns] = &s->joints[set]; el[ns++] = 4 * m->jsize;
        st[ns] = &s->weights[set]; el[ns++] = 16;
    }
    for (k = 0; k < ns; ++k) {
        if (!st[k]->data) e |= RB_NULL;
        else if (st[k]->stride && st[k]->stride < el[k]) e |= RB_STRIDE;
        else if (n && rb_span_overflows(n, st[k]->stride, el[k])) e |= RB_OVERFLOW;
    }
    return e;
}

/* The errors vertex v allows, from the documented rules: finite positions, normals
   and tangents; weights finite and >= 0 (below FLT_MIN: 0); a weighted joint below
   joint_count; a weight sum that stays finite. */
static rb_set rb_vertex_errors(const rb_mesh *m, uint32_t joint_count, size_t v)
{
    rb_set e = 0;
    uint32_t set, k;
    float sum = 0.0f;
    int weights_ok = 1;
    for (k = 0; k < 3; ++k) e |= rb_fin(rb_in_getf(&m->pos, v, k)) ? 0u : RB_NONFINITE;
    if (m->s.normals.data)
        for (k = 0; k < 3; ++k) e |= rb_fin(rb_in_getf(&m->nrm, v, k)) ? 0u : RB_NONFINITE;
    if (m->s.tangents.data)
        for (k = 0; k < 4; ++k) e |= rb_fin(rb_in_getf(&m->tan, v, k)) ? 0u : RB_NONFINITE;
    for (set = 0; set < m->sets; ++set)
        for (k = 0; k < 4; ++k) {
            float w = rb_in_getf(&m->wgt[set], v, k);
            if (fabsf(w) < FLT_MIN) w = 0.0f;
            if (!rb_fin(w) || w < 0.0f) {
                e |= RB_WEIGHT;
                weights_ok = 0;
            } else {
                if (w != 0.0f && rb_in_getj(&m->jnt[set], v, k, m->jsize) >= joint_count) e |= RB_JOINT;
                sum += w;
            }
        }
    if (weights_ok && !rb_fin(sum)) e |= RB_WEIGHT;
    return e;
}
/* The first vertex with an error, or n; *errs its errors. */
static size_t rb_first_bad_vertex(const rb_mesh *m, uint32_t joint_count, rb_set *errs)
{
    size_t v;
    *errs = 0;
    for (v = 0; v < m->s.vertex_count; ++v)
        if ((*errs = rb_vertex_errors(m, joint_count, v)) != 0) return v;
    return m->s.vertex_count;
}
/* 1 when every weight of vertex v counts as 0 (its bind pose is kept) */
static int rb_unweighted(const rb_mesh *m, size_t v)
{
    uint32_t set, k;
    for (set = 0; set < m->sets; ++set)
        for (k = 0; k < 4; ++k)
            if (fabsf(rb_in_getf(&m->wgt[set], v, k)) >= FLT_MIN) return 0;
    return 1;
}

/* The output streams of one skinning call. */
typedef struct rb_skin_out {
    rb_out pos, nrm, tan;
    size_t index;
} rb_skin_out;

static void rb_skin_out_free(rb_skin_out *o)
{
    rb_out_free(&o->pos);
    rb_out_free(&o->nrm);
    rb_out_free(&o->tan);
}
static void rb_skin_set_out(gpuskin_cpu_skin_desc *d, rb_skin_out *o, int index_on)
{
    d->out_positions.data = rb_out_ptr(&o->pos);
    d->out_positions.stride = o->pos.stride;
    d->out_normals.data = o->nrm.mem ? rb_out_ptr(&o->nrm) : NULL;
    d->out_normals.stride = o->nrm.stride;
    d->out_tangents.data = o->tan.mem ? rb_out_ptr(&o->tan) : NULL;
    d->out_tangents.stride = o->tan.stride;
    o->index = (size_t)0xDEADBEEFu;
    d->out_error_index = index_on ? &o->index : NULL;
}

/* Checks one skinning result against what the rules allow. */
static void rb_skin_check(const char *fn, gpuskin_result r, const rb_skin_out *o, const rb_mesh *m,
                          const gpuskin_cpu_skin_desc *d, rb_set want, rb_set vertex_errs, size_t bad_v, rb_set palette_errs)
{
    const size_t n = m->s.vertex_count;
    const int nrm_on = m->s.normals.data && d->out_normals.data, tan_on = m->s.tangents.data && d->out_tangents.data;
    size_t v;
    RB_CODE(fn, r, want ? want : RB_OK | RB_NONFINITE);
    /* never outside the elements; no normals or tangents where the mesh has none */
    RB_CHECK(rb_out_guards_ok(&o->pos));
    if (o->nrm.mem) RB_CHECK(nrm_on ? rb_out_guards_ok(&o->nrm) : rb_out_all_untouched(&o->nrm));
    if (o->tan.mem) RB_CHECK(tan_on ? rb_out_guards_ok(&o->tan) : rb_out_all_untouched(&o->tan));
    if (d->out_error_index && (r == GPUSKIN_ERROR_JOINT_OUT_OF_RANGE || r == GPUSKIN_ERROR_INVALID_WEIGHT ||
                               (r == GPUSKIN_ERROR_NON_FINITE && want && (vertex_errs & RB_NONFINITE) &&
                                !(palette_errs & RB_NONFINITE))))
        RB_CHECK(o->index == bad_v); /* the vertex the error is about */
    if (r == GPUSKIN_SUCCESS) { /* every output written and finite; w kept; unweighted vertices keep their bind pose */
        int finite = 1, w_kept = 1, bind_kept = 1;
        for (v = 0; v < n; ++v) {
            finite &= rb_out_finite(&o->pos, v, 3);
            if (nrm_on) finite &= rb_out_finite(&o->nrm, v, 3);
            if (tan_on) {
                finite &= rb_out_finite(&o->tan, v, 4);
                w_kept &= rb_fbits(rb_out_get(&o->tan, v, 3)) == rb_fbits(rb_in_getf(&m->tan, v, 3));
            }
            if (rb_unweighted(m, v)) {
                int c;
                for (c = 0; c < 3; ++c) bind_kept &= rb_out_get(&o->pos, v, (size_t)c) == rb_in_getf(&m->pos, v, (size_t)c);
            }
        }
        RB_CHECK(finite);
        RB_CHECK(w_kept);
        RB_CHECK(bind_kept);
    } else if (r == GPUSKIN_ERROR_NON_FINITE && !want) {
        /* finite inputs that overflowed: "the first vertex with a non-finite output"
           and its index; the vertices before it are finite */
        int finite = 1;
        if (d->out_error_index) {
            RB_CHECK(o->index < n);
            for (v = 0; v < o->index && v < n; ++v) {
                finite &= rb_out_finite(&o->pos, v, 3);
                if (nrm_on) finite &= rb_out_finite(&o->nrm, v, 3);
                if (tan_on) finite &= rb_out_finite(&o->tan, v, 4);
            }
            RB_CHECK(finite);
        }
    }
}

static void test_robust_skinning(void)
{
    int it, iters = 4000 * rb_scale, outcomes[2][GPUSKIN_RESULT_COUNT_];
    rb_fails = 0;
    memset(outcomes, 0, sizeof outcomes);
    for (it = 0; it < iters; ++it) {
        const int hostility = (int)rb_below(3);
        int bad = rb_one_in(4);
        const uint32_t odds = hostility == 0 ? 0u : hostility == 1 ? 200u : 20u;
        size_t n, bad_v, alloc_j;
        uint32_t jc, j, k, word = 0;
        rb_mesh m;
        rb_skin_out oa, ob;
        gpuskin_cpu_skin_desc d;
        gpuskin_result ra, rb, rv;
        rb_set structural, vertex_errs = 0, want_validate, palette_errs = 0, out_errs = 0, want;
        float *lbs = NULL, *dq = NULL, *res = NULL;
        size_t vbad = 12345;
        int index_on, method;
        rb_start("test_robust_skinning", 8, it);
        n = rb_one_in(40) ? 0 : rb_one_in(60) ? (rb_one_in(2) ? SIZE_MAX : SIZE_MAX / 2 + rb_below(99))
            : 1 + rb_below(rb_one_in(8) ? (rb_one_in(4) ? 1100u : 300u) : 40u);
        if (n > ((size_t)1 << 20)) bad = 1; /* only the refusals can take such counts */
        jc = rb_one_in(40) ? (rb_one_in(2) ? 0u : GPUSKIN_MAX_JOINTS + 1u) : 1 + rb_below(rb_one_in(6) ? 200u : 20u);
        if (rb_one_in(60)) { /* at the index types' limits */
            static const uint32_t limits[] = {255u, 256u, 257u, 65535u, GPUSKIN_MAX_JOINTS};
            jc = limits[rb_below(5)];
        }
        if (jc == 0 || jc > GPUSKIN_MAX_JOINTS) bad = 1;
        rb_mesh_make(&m, n, jc, hostility, bad);
        structural = rb_structural_errors(&m, jc);
        snprintf(rb_ctx, sizeof rb_ctx,
                 "%zu vertices, %u joints, sets %u, joint type %d, normals %d, tangents %d, strides %d/%d/%d/%d/%d, "
                 "hostility %d",
                 n, jc, m.s.influence_sets, (int)m.s.joint_type, m.s.normals.data != NULL, m.s.tangents.data != NULL,
                 m.pos.mode, m.nrm.mode, m.tan.mode, m.jnt[0].mode, m.wgt[0].mode, hostility);
        if (!structural) bad_v = rb_first_bad_vertex(&m, jc, &vertex_errs);
        else bad_v = 0;
        /* gpuskin_streams_validate */
        want_validate = structural ? structural : vertex_errs;
        rv = gpuskin_streams_validate(&m.s, jc, rb_one_in(4) ? NULL : &vbad);
        if (RB_CODE("gpuskin_streams_validate", rv, want_validate ? want_validate : RB_OK) && rv != GPUSKIN_SUCCESS &&
            !structural && vbad != 12345)
            RB_CHECK(vbad == bad_v); /* "the first offending vertex" */
        /* palettes of jc joints, exact size */
        alloc_j = jc && jc <= GPUSKIN_MAX_JOINTS ? jc : 1;
        method = (int)rb_below(3);
        if (method == 0) {
            lbs = (float *)malloc(alloc_j * 48);
            for (j = 0; j < alloc_j; ++j) {
                const gpuskin_mat4 mt = rb_matrix(odds ? 8u : 0u, hostility == 2);
                int row, c;
                for (row = 0; row < 3; ++row)
                    for (c = 0; c < 4; ++c) lbs[j * 12 + (uint32_t)(row * 4 + c)] = mt.m[c * 4 + row];
            }
            word = GPUSKIN_METHOD_LBS;
        } else {
            gpuskin_mat4 *mats = (gpuskin_mat4 *)malloc(alloc_j * sizeof *mats);
            dq = (float *)malloc(alloc_j * 32);
            res = (float *)malloc(alloc_j * 48);
            for (j = 0; j < alloc_j; ++j) mats[j] = rb_matrix(odds ? 8u : 0u, hostility == 2);
            if (method == 2 || gpuskin_pack_dq_fast(mats, (uint32_t)alloc_j, GPUSKIN_SPLIT_GRAM_SCHMIDT, dq, res, &word) !=
                                   GPUSKIN_SUCCESS) { /* raw: non-unit, zero, huge, non-finite quaternions */
                for (k = 0; k < alloc_j * 8; ++k) dq[k] = rb_f(-1, 1, odds ? 10u : 0u, hostility == 2);
                for (k = 0; k < alloc_j * 12; ++k) res[k] = rb_f(-2, 2, odds ? 10u : 0u, hostility == 2);
                word = GPUSKIN_METHOD_DQS | (rb_one_in(2) ? GPUSKIN_METHOD_RESIDUAL_BIT : 0u);
            } else if (rb_one_in(2)) {
                gpuskin_dq_uniform_scale(res, (uint32_t)alloc_j, &word);
            }
            free(mats);
        }
        if (rb_one_in(30)) word = rb_one_in(2) ? (uint32_t)rb_u64() : 0x10u | rb_below(0x40);
        memset(&d, 0, sizeof d);
        d.streams = m.s;
        d.joint_count = jc;
        d.palette_joint_count = rb_one_in(2) ? 0u : rb_one_in(15) ? jc + 1 - 2 * rb_below(2) : jc;
        d.method_word = word;
        d.lbs_palette = rb_one_in(60) ? NULL : lbs;
        d.dq_palette = rb_one_in(60) ? NULL : dq;
        d.residual_palette = rb_one_in(60) ? NULL : res;
        /* outputs: two sets of the same layout, oracle and fast path */
        memset(&oa, 0, sizeof oa);
        rb_out_make(&oa.pos, n < 4096 ? n : 4, 12, bad && rb_one_in(10) ? rb_out_mode(n, 1) : rb_out_mode(n, 0));
        if (rb_one_in(3) == 0) rb_out_make(&oa.nrm, n < 4096 ? n : 4, 12, rb_out_mode(n, bad));
        if (rb_one_in(2)) rb_out_make(&oa.tan, n < 4096 ? n : 4, 16, rb_out_mode(n, bad));
        rb_out_clone(&ob.pos, &oa.pos);
        rb_out_clone(&ob.nrm, &oa.nrm);
        rb_out_clone(&ob.tan, &oa.tan);
        index_on = !rb_one_in(4);
        /* what the rules allow */
        want = structural ? structural : vertex_errs;
        if (!rb_word_valid(word)) want |= RB_METHOD;
        if (d.palette_joint_count && d.palette_joint_count != jc) want |= RB_PALSIZE;
        if (jc && jc <= GPUSKIN_MAX_JOINTS) {
            if ((word & GPUSKIN_METHOD_ID_MASK) == GPUSKIN_METHOD_LBS) {
                palette_errs |= !d.lbs_palette ? RB_NULL : rb_all_fin(lbs, (size_t)jc * 12) ? 0u : RB_NONFINITE;
            } else {
                palette_errs |= !d.dq_palette ? RB_NULL : rb_all_fin(dq, (size_t)jc * 8) ? 0u : RB_NONFINITE;
                if (word & GPUSKIN_METHOD_RESIDUAL_BIT)
                    palette_errs |= !d.residual_palette ? RB_NULL : rb_all_fin(res, (size_t)jc * 12) ? 0u : RB_NONFINITE;
            }
        }
        want |= palette_errs;
        if (oa.pos.mode == 6) out_errs |= RB_NULL;
        else if (oa.pos.mode == 4) out_errs |= RB_STRIDE;
        else if (oa.pos.mode == 5) out_errs |= RB_OVERFLOW;
        if (m.s.normals.data && oa.nrm.mem && oa.nrm.mode != 6)
            out_errs |= oa.nrm.mode == 4 ? RB_STRIDE : oa.nrm.mode == 5 ? RB_OVERFLOW : 0u;
        if (m.s.tangents.data && oa.tan.mem && oa.tan.mode != 6)
            out_errs |= oa.tan.mode == 4 ? RB_STRIDE : oa.tan.mode == 5 ? RB_OVERFLOW : 0u;
        want |= out_errs;
        rb_skin_set_out(&d, &oa, index_on);
        ra = gpuskin_skin_cpu(&d);
        rb_skin_check("gpuskin_skin_cpu", ra, &oa, &m, &d, want, vertex_errs, bad_v, palette_errs);
        rb_skin_set_out(&d, &ob, index_on);
        rb = gpuskin_skin_cpu_fast(&d);
        rb_skin_check("gpuskin_skin_cpu_fast", rb, &ob, &m, &d, want, vertex_errs, bad_v, palette_errs);
        /* "the same rules and the same results as gpuskin_skin_cpu": near float's limit one
           may overflow where the other's rounding did not */
        RB_CHECK(ra == rb || (ra == GPUSKIN_SUCCESS && rb == GPUSKIN_ERROR_NON_FINITE) ||
                 (rb == GPUSKIN_SUCCESS && ra == GPUSKIN_ERROR_NON_FINITE));
        if (index_on && ra == rb && ra != GPUSKIN_SUCCESS && ra != GPUSKIN_ERROR_NON_FINITE) RB_CHECK(oa.index == ob.index);
        if ((int)ra >= 0 && ra < GPUSKIN_RESULT_COUNT_) ++outcomes[0][ra];
        if ((int)rb >= 0 && rb < GPUSKIN_RESULT_COUNT_) ++outcomes[1][rb];
        rb_skin_out_free(&oa);
        rb_skin_out_free(&ob);
        rb_mesh_free(&m);
        free(lbs);
        free(dq);
        free(res);
        RB_CHECK(rb_live == 0);
    }
    snprintf(rb_ctx, sizeof rb_ctx, "NULL arguments");
    {
        size_t bad_v = 7;
        RB_CODE("gpuskin_streams_validate(NULL)", gpuskin_streams_validate(NULL, 1, &bad_v), RB_NULL);
        RB_CODE("gpuskin_skin_cpu(NULL)", gpuskin_skin_cpu(NULL), RB_NULL);
        RB_CODE("gpuskin_skin_cpu_fast(NULL)", gpuskin_skin_cpu_fast(NULL), RB_NULL);
    }
    printf("  %d meshes; oracle: %d SUCCESS, %d NON_FINITE, %d other errors; fast: %d SUCCESS\n", it,
           outcomes[0][GPUSKIN_SUCCESS], outcomes[0][GPUSKIN_ERROR_NON_FINITE],
           it - outcomes[0][GPUSKIN_SUCCESS] - outcomes[0][GPUSKIN_ERROR_NON_FINITE], outcomes[1][GPUSKIN_SUCCESS]);
}

/* ======================================================================== */
/* Clips: validate, range, loop time, sample                                */
/* ======================================================================== */

#define RB_MAX_CH 6
#define RB_KEY_LIMIT (UINT32_MAX / 12u) /* the header's key_count limit (checked here from outside) */

typedef struct rb_clip {
    gpuskin_clip clip;
    gpuskin_channel ch[RB_MAX_CH];
    float *times[RB_MAX_CH], *values[RB_MAX_CH];
    int refuse_only;      /* some key_count is beyond the limit, its arrays tiny: only for calls that refuse it */
    rb_set validate_want; /* the errors gpuskin_clip_validate may give (0: none) */
    rb_set sample_want;   /* and gpuskin_clip_sample */
} rb_clip;

static int rb_path_ok(int p) { return p == GPUSKIN_PATH_TRANSLATION || p == GPUSKIN_PATH_ROTATION || p == GPUSKIN_PATH_SCALE; }
static int rb_interp_ok(int i)
{
    return i == GPUSKIN_INTERP_LINEAR || i == GPUSKIN_INTERP_STEP || i == GPUSKIN_INTERP_CUBICSPLINE;
}

static void rb_clip_make(rb_clip *c, uint32_t jc, int hostility)
{
    const uint32_t odds = hostility == 0 ? 0u : hostility == 1 ? 40u : 8u;
    uint32_t k, i;
    int extreme = 0; /* a value that sampling may carry beyond float's range */
    memset(c, 0, sizeof *c);
    c->clip.channel_count = rb_below(RB_MAX_CH + 1);
    c->clip.channels = rb_one_in(60) ? NULL : c->ch;
    if (c->clip.channel_count && !c->clip.channels) c->validate_want = c->sample_want = RB_NULL;
    for (k = 0; k < c->clip.channel_count; ++k) {
        gpuskin_channel *ch = &c->ch[k];
        int path = (int)rb_below(3), interp = (int)rb_below(3);
        uint32_t comps, nvalues, alloc_keys;
        rb_set structural = 0;
        ch->joint = rb_below(jc);
        if (hostility && rb_one_in(30)) ch->joint = rb_one_in(2) ? jc + rb_below(3) : UINT32_MAX;
#ifdef __cplusplus
        if (hostility && rb_one_in(40)) path = 3; /* (3 is within the enums' range of values in C++) */
        if (hostility && rb_one_in(40)) interp = 3;
#else
        if (hostility && rb_one_in(40)) path = rb_one_in(2) ? 3 + (int)rb_below(10) : -1;
        if (hostility && rb_one_in(40)) interp = rb_one_in(2) ? 3 + (int)rb_below(10) : -1;
#endif
        ch->path = (gpuskin_path)path;
        ch->interpolation = (gpuskin_interpolation)interp;
        ch->key_count = 1 + rb_below(rb_one_in(4) ? 40u : 6u);
        if (hostility && rb_one_in(30)) ch->key_count = 0;
        alloc_keys = ch->key_count ? ch->key_count : 1;
        if (hostility && rb_one_in(40)) { /* a count beyond the limit: refused before anything is read */
            ch->key_count = RB_KEY_LIMIT + 1 + rb_below(1000);
            alloc_keys = 1;
            c->refuse_only = 1;
        }
        comps = path == GPUSKIN_PATH_TRANSLATION || path == GPUSKIN_PATH_SCALE ? 3u : 4u;
        nvalues = alloc_keys * comps * (interp == GPUSKIN_INTERP_CUBICSPLINE ? 3u : 1u);
        if (interp != GPUSKIN_INTERP_CUBICSPLINE && !rb_interp_ok(interp)) nvalues *= 3; /* (room for any reading) */
        c->times[k] = (float *)malloc(alloc_keys * sizeof(float));
        c->values[k] = (float *)malloc(nvalues * sizeof(float));
        /* times: strictly increasing, sometimes across the whole float range or by denormal steps */
        switch (rb_below(8)) {
        case 0: /* from -3e38 to 3e38 */
            for (i = 0; i < alloc_keys; ++i)
                c->times[k][i] = alloc_keys == 1 ? 0.0f : (float)(-3e38 + 6e38 * (double)i / (double)(alloc_keys - 1));
            break;
        case 1: /* denormal steps from 0 */
            for (i = 0; i < alloc_keys; ++i) c->times[k][i] = rb_bits(i);
            break;
        default: {
            float t = rb_range(-5, 5);
            for (i = 0; i < alloc_keys; ++i) {
                c->times[k][i] = t;
                t += rb_range(0.01, 2);
            }
            break;
        }
        }
        if (odds && rb_one_in(odds / 4 + 1) && alloc_keys >= 1) { /* unsorted, duplicate, NaN or infinite times */
            const uint32_t a = rb_below(alloc_keys), b = rb_below(alloc_keys);
            switch (rb_below(4)) {
            case 0: c->times[k][a] = c->times[k][b]; break;
            case 1: { const float t = c->times[k][a]; c->times[k][a] = c->times[k][b]; c->times[k][b] = t; break; }
            default: c->times[k][a] = rb_odd(1); break;
            }
        }
        for (i = 0; i < nvalues; ++i) /* values: ordinary, or huge finite ones (3e38 keys), or hostile */
            c->values[k][i] = hostility && rb_one_in(8) ? (rb_one_in(2) ? 3e38f : -3e38f) : rb_f(-2, 2, odds, 1);
        ch->times = rb_one_in(60) ? NULL : c->times[k];
        ch->values = rb_one_in(60) ? NULL : c->values[k];
        /* the rules */
        if (ch->joint >= jc || !rb_path_ok(path) || !rb_interp_ok(interp)) structural |= RB_CLIP;
        if (ch->key_count == 0) structural |= RB_CLIP | RB_COUNT; /* "key_count >= 1" */
        if (ch->key_count > RB_KEY_LIMIT) /* key_count x 12 floats does not fit in 32 bits */
            structural |= RB_CLIP | RB_COUNT | RB_OVERFLOW;
        if (!ch->times || !ch->values) structural |= RB_NULL;
        if (c->clip.channels) {
            c->sample_want |= structural;
            c->validate_want |= structural;
            if (!structural) {
                int ok = 1;
                for (i = 0; i < ch->key_count; ++i) ok &= rb_fin(ch->times[i]) && (i == 0 || ch->times[i] > ch->times[i - 1]);
                ok &= rb_all_fin(ch->values, (size_t)ch->key_count * comps * (interp == GPUSKIN_INTERP_CUBICSPLINE ? 3u : 1u));
                if (!ok) c->validate_want |= RB_CLIP;
                /* "GPUSKIN_ERROR_NON_FINITE when a sampled value is not finite": keys
                   not finite, values near FLT_MAX, or Hermite tangents scaled by a key
                   interval near it */
                extreme |= !ok;
                for (i = 0; i < ch->key_count * comps * (interp == GPUSKIN_INTERP_CUBICSPLINE ? 3u : 1u); ++i)
                    extreme |= fabsf(ch->values[i]) > 1e30f;
                extreme |= interp == GPUSKIN_INTERP_CUBICSPLINE && ch->key_count > 1 &&
                           (double)ch->times[ch->key_count - 1] - (double)ch->times[0] > 1e30;
            }
        }
    }
    if (!c->sample_want && extreme) c->sample_want = RB_OK | RB_NONFINITE;
}
static void rb_clip_free(rb_clip *c)
{
    int k;
    for (k = 0; k < RB_MAX_CH; ++k) {
        free(c->times[k]);
        free(c->values[k]);
    }
}

/* part 0: validate, range, sample; part 1: gpuskin_clip_loop_time. */
static void rb_clips(int part)
{
    static const uint32_t sizes[3] = {1, 4, 12};
    gpuskin_skeleton sks[3];
    int it, iters = 6000 * rb_scale, s, validated = 0;
    rb_fails = 0;
    rb_part = part;
    rb_muted = part != 0;
    for (s = 0; s < 3; ++s) { /* rest poses hostile but finite (init refuses the rest) */
        int32_t par[12];
        gpuskin_trs rest[12];
        gpuskin_skeleton_desc d;
        uint32_t j;
        rb_start("test_robust_clips (skeletons)", 9, s);
        for (j = 0; j < sizes[s]; ++j) {
            par[j] = (int32_t)j - 1;
            rest[j] = rb_trs(8, 0);
        }
        memset(&d, 0, sizeof d);
        d.joint_count = sizes[s];
        d.parents = par;
        d.rest_pose = rest;
        rb_user = NULL;
        if (gpuskin_skeleton_init(&sks[s], &d) != GPUSKIN_SUCCESS) memset(&sks[s], 0, sizeof sks[s]);
    }
    for (it = 0; it < iters; ++it) {
        const gpuskin_skeleton *sk;
        const int hostility = (int)rb_below(3);
        rb_clip c;
        gpuskin_result r;
        float start = 7.0f, end = 9.0f, t;
        uint32_t jc, k, j;
        rb_arr out;
        rb_start(part ? "test_robust_clip_loop_time" : "test_robust_clips", 10, it); /* the same inputs */
        sk = &sks[rb_below(3)];
        jc = sk->joint_count;
        rb_clip_make(&c, jc, hostility);
        snprintf(rb_ctx, sizeof rb_ctx, "%u channels, %u joints, hostility %d", c.clip.channel_count, jc, hostility);
        /* gpuskin_clip_validate */
        r = gpuskin_clip_validate(&c.clip, jc);
        RB_CODE("gpuskin_clip_validate", r, c.validate_want ? c.validate_want : RB_OK);
        validated += r == GPUSKIN_SUCCESS;
        /* gpuskin_clip_range and gpuskin_clip_loop_time: they read times[key_count - 1] */
        if (!c.refuse_only) {
            rb_set want = 0;
            float lo = 0.0f, hi = 0.0f;
            int exact = 1;
            if (c.clip.channel_count && !c.clip.channels) want = RB_NULL;
            for (k = 0; !want && k < c.clip.channel_count; ++k) { /* the smallest first key, the largest last key */
                const gpuskin_channel *ch = &c.ch[k];
                if (!ch->times || ch->key_count == 0) continue;
                exact &= rb_fin(ch->times[0]) && rb_fin(ch->times[ch->key_count - 1]);
                lo = k == 0 || ch->times[0] < lo ? ch->times[0] : lo;
                hi = k == 0 || ch->times[ch->key_count - 1] > hi ? ch->times[ch->key_count - 1] : hi;
            }
            for (k = 0; !(want & RB_NULL) && k < c.clip.channel_count; ++k) { /* no key to read */
                if (!c.ch[k].times) want |= RB_CLIP | RB_NULL;
                if (c.ch[k].key_count == 0) want |= RB_CLIP | RB_COUNT;
                /* "or whose first or last time is not finite" */
                if (c.ch[k].times && c.ch[k].key_count &&
                    (!rb_fin(c.ch[k].times[0]) || !rb_fin(c.ch[k].times[c.ch[k].key_count - 1])))
                    want |= RB_CLIP;
            }
            r = gpuskin_clip_range(&c.clip, &start, &end);
            RB_CODE("gpuskin_clip_range", r, want ? want : RB_OK);
            if (r == GPUSKIN_SUCCESS) {
                if (exact) RB_CHECK(start == lo && end == hi); /* "first and last key time over all channels" */
                RB_CHECK(rb_fin(start) && rb_fin(end));
                if (c.clip.channel_count == 0) RB_CHECK(start == 0.0f && end == 0.0f);
            }
            /* gpuskin_clip_loop_time: "wraps t into [start, end) (start when the clip has zero length)" */
            rb_muted = part != 1;
            for (j = 0; j < 4; ++j) {
                float lt;
                switch (rb_below(6)) {
                case 0: t = rb_odd(1); break;
                case 1: t = start; break;
                case 2: t = end; break;
                default: t = rb_fin(start) && rb_fin(end) ? start + (end - start) * rb_range(-3, 4) : rb_range(-10, 10); break;
                }
                lt = gpuskin_clip_loop_time(&c.clip, t);
                if (r == GPUSKIN_SUCCESS && !c.validate_want && rb_fin(t)) {
                    char ex[240];
                    snprintf(ex, sizeof ex, "range [%.9g, %.9g], t %.9g -> %.9g", (double)start, (double)end, (double)t,
                             (double)lt);
                    if (start == end) {
                        RB_CHECK(lt == start);
                    } else if (!(lt >= start && lt < end)) {
                        snprintf(rb_ctx, sizeof rb_ctx, "gpuskin_clip_loop_time on a valid clip: %s", ex);
                        RB_CHECK(lt >= start && lt < end); /* "[start, end)" */
                    }
                } else if (r == GPUSKIN_SUCCESS) {
                    RB_CHECK(rb_fin(lt)); /* start for a non-finite t; the range's times are finite */
                } else {
                    RB_CHECK(lt == 0.0f); /* "0 when gpuskin_clip_range fails" */
                }
            }
            rb_muted = part != 0;
        }
        /* gpuskin_clip_sample */
        switch (rb_below(5)) {
        case 0: t = rb_odd(1); break;
        case 1: t = c.clip.channel_count && c.ch[0].times && c.ch[0].key_count && !c.refuse_only
                        ? c.ch[0].times[rb_below(c.ch[0].key_count)] : 0.0f; break;
        default: t = rb_fin(start) && rb_fin(end) ? start + (end - start) * rb_range(-0.5, 1.5) : rb_range(-10, 10); break;
        }
        rb_arr_make(&out, jc * sizeof(gpuskin_trs));
        r = gpuskin_clip_sample(&c.clip, sk, t, (gpuskin_trs *)out.p);
        RB_CODE("gpuskin_clip_sample", r, c.sample_want ? c.sample_want : RB_OK);
        RB_CHECK(rb_arr_guards_ok(&out));
        if (r == GPUSKIN_SUCCESS) {
            const gpuskin_trs *o = (const gpuskin_trs *)out.p;
            int keeps_rest = 1;
            for (j = 0; j < jc; ++j) { /* "joints without a channel keep the skeleton's rest TRS", field by field */
                int anim[3] = {0, 0, 0};
                for (k = 0; k < c.clip.channel_count; ++k)
                    if (c.ch[k].joint == j) anim[c.ch[k].path] = 1;
                if (!anim[0]) keeps_rest &= memcmp(&o[j].translation, &sk->rest_pose[j].translation, 12) == 0;
                if (!anim[1]) keeps_rest &= memcmp(&o[j].rotation, &sk->rest_pose[j].rotation, 16) == 0;
                if (!anim[2]) keeps_rest &= memcmp(&o[j].scale, &sk->rest_pose[j].scale, 12) == 0;
            }
            RB_CHECK(keeps_rest);
            if (!rb_all_fin(&o[0].translation.x, (size_t)jc * 10)) {
                char ex[360];
                const gpuskin_channel *ch = NULL;
                uint32_t key = 0;
                for (j = 0; j < jc && rb_all_fin(&o[j].translation.x, 10); ++j) {
                }
                for (k = 0; k < c.clip.channel_count && !ch; ++k) /* the channel that wrote it */
                    if (c.ch[k].joint == j &&
                        !rb_all_fin(c.ch[k].path == GPUSKIN_PATH_TRANSLATION ? &o[j].translation.x
                                    : c.ch[k].path == GPUSKIN_PATH_SCALE    ? &o[j].scale.x : &o[j].rotation.x, 3))
                        ch = &c.ch[k];
                while (ch && key + 1 < ch->key_count && ch->times[key + 1] <= t) ++key;
                if (ch)
                    snprintf(ex, sizeof ex, "path %d, interpolation %d, %u keys; t = %.9g between key %u (t %.9g, first value "
                             "%.9g) and the next (t %.9g, first value %.9g) -> T (%g %g %g) S (%g %g %g)",
                             (int)ch->path, (int)ch->interpolation, ch->key_count, (double)t, key, (double)ch->times[key],
                             (double)ch->values[key * (ch->path == GPUSKIN_PATH_ROTATION ? 4u : 3u) *
                                                (ch->interpolation == GPUSKIN_INTERP_CUBICSPLINE ? 3u : 1u) +
                                                (ch->interpolation == GPUSKIN_INTERP_CUBICSPLINE ? 3u : 0u)],
                             (double)ch->times[key + 1 < ch->key_count ? key + 1 : key],
                             (double)ch->values[(key + 1 < ch->key_count ? key + 1 : key) * (ch->path == GPUSKIN_PATH_ROTATION ? 4u : 3u) *
                                                (ch->interpolation == GPUSKIN_INTERP_CUBICSPLINE ? 3u : 1u) +
                                                (ch->interpolation == GPUSKIN_INTERP_CUBICSPLINE ? 3u : 0u)],
                             (double)o[j].translation.x, (double)o[j].translation.y, (double)o[j].translation.z,
                             (double)o[j].scale.x, (double)o[j].scale.y, (double)o[j].scale.z);
                else
                    snprintf(ex, sizeof ex, "t = %g, joint %u", (double)t, j);
                /* "GPUSKIN_ERROR_NON_FINITE when a sampled value is not finite" */
                snprintf(rb_ctx, sizeof rb_ctx, "gpuskin_clip_sample gave SUCCESS with NaN/inf: %.400s", ex);
                RB_CHECK(rb_all_fin(&o[0].translation.x, (size_t)jc * 10));
            }
        }
        rb_arr_free(&out);
        rb_clip_free(&c);
    }
    rb_muted = part != 0;
    snprintf(rb_ctx, sizeof rb_ctx, "NULL arguments");
    {
        gpuskin_clip clip;
        gpuskin_trs out[12];
        float a, b;
        memset(&clip, 0, sizeof clip);
        RB_CODE("gpuskin_clip_validate(NULL)", gpuskin_clip_validate(NULL, 1), RB_NULL);
        RB_CODE("gpuskin_clip_range(NULL clip)", gpuskin_clip_range(NULL, &a, &b), RB_NULL);
        RB_CODE("gpuskin_clip_range(NULL start)", gpuskin_clip_range(&clip, NULL, &b), RB_NULL);
        RB_CODE("gpuskin_clip_range(NULL end)", gpuskin_clip_range(&clip, &a, NULL), RB_NULL);
        RB_CHECK(gpuskin_clip_loop_time(NULL, 1.0f) == gpuskin_clip_loop_time(NULL, 1.0f)); /* no crash */
        RB_CODE("gpuskin_clip_sample(NULL clip)", gpuskin_clip_sample(NULL, &sks[2], 0.0f, out), RB_NULL);
        RB_CODE("gpuskin_clip_sample(NULL skeleton)", gpuskin_clip_sample(&clip, NULL, 0.0f, out), RB_NULL);
        RB_CODE("gpuskin_clip_sample(NULL out)", gpuskin_clip_sample(&clip, &sks[2], 0.0f, NULL), RB_NULL);
    }
    for (s = 0; s < 3; ++s) gpuskin_skeleton_free(&sks[s]);
    RB_CHECK(rb_live == 0);
    rb_muted = 0;
    printf("  %d clips (%d valid)\n", it, validated);
}
static void test_robust_clips(void) { rb_clips(0); }
static void test_robust_clip_loop_time(void) { rb_clips(1); }

/* ======================================================================== */
/* Blends: gpuskin_pose_blend, gpuskin_palette_lerp                         */
/* ======================================================================== */

static void test_robust_blends(void)
{
    int it, iters = 6000 * rb_scale, ok = 0;
    rb_fails = 0;
    for (it = 0; it < iters; ++it) {
        const uint32_t odds = rb_one_in(3) ? 0u : rb_one_in(2) ? 30u : 4u;
        const int nf = odds && rb_one_in(2), mats = rb_one_in(2);
        const uint32_t n = rb_one_in(30) ? 0u : 1 + rb_below(40), alloc_n = n ? n : 1;
        const size_t rec = mats ? sizeof(gpuskin_mat4) : sizeof(gpuskin_trs), floats = rec / 4;
        float *a = (float *)malloc(alloc_n * rec), *b = (float *)malloc(alloc_n * rec), t;
        const int null_a = rb_one_in(50), null_b = rb_one_in(50), null_out = rb_one_in(50);
        rb_arr out;
        rb_set want = 0;
        gpuskin_result r;
        uint32_t j;
        int in_nf = 0;
        rb_start("test_robust_blends", 11, it);
        for (j = 0; j < alloc_n; ++j) {
            if (mats) {
                gpuskin_mat4 m = rb_matrix(odds, nf);
                memcpy(a + j * floats, &m, rec);
                m = rb_matrix(odds, nf);
                memcpy(b + j * floats, &m, rec);
            } else {
                gpuskin_trs x = rb_trs(odds, nf);
                memcpy(a + j * floats, &x, rec);
                x = rb_trs(odds, nf);
                memcpy(b + j * floats, &x, rec);
            }
        }
        if (odds && rb_one_in(5)) a[rb_below((uint32_t)(alloc_n * floats))] = rb_one_in(2) ? 3e38f : -3e38f; /* far apart */
        in_nf = !rb_all_fin(a, n * floats) || !rb_all_fin(b, n * floats);
        switch (rb_below(8)) {
        case 0: t = 0.0f; break;
        case 1: t = 1.0f; break;
        case 2: t = rb_odd(odds != 0); break;
        default: t = rb_range(-0.5, 1.5); break;
        }
        rb_arr_make(&out, alloc_n * rec);
        if (null_a || null_b || null_out) want |= RB_NULL;
        if (n == 0) want |= RB_COUNT;
        if (!rb_fin(t)) want |= RB_ARG;
        if (in_nf && !null_a && !null_b) want |= RB_NONFINITE;
        snprintf(rb_ctx, sizeof rb_ctx, "%s of %u, t = %g, non-finite input %d", mats ? "gpuskin_palette_lerp" : "gpuskin_pose_blend",
                 n, (double)t, in_nf);
        if (mats)
            r = gpuskin_palette_lerp(null_a ? NULL : (const gpuskin_mat4 *)(void *)a, null_b ? NULL : (const gpuskin_mat4 *)(void *)b,
                                     n, t, null_out ? NULL : (gpuskin_mat4 *)out.p);
        else
            r = gpuskin_pose_blend(null_a ? NULL : (const gpuskin_trs *)(void *)a, null_b ? NULL : (const gpuskin_trs *)(void *)b, n,
                                   t, null_out ? NULL : (gpuskin_trs *)out.p);
        RB_CODE(mats ? "gpuskin_palette_lerp" : "gpuskin_pose_blend", r, want ? want : RB_OK | RB_NONFINITE);
        RB_CHECK(rb_arr_guards_ok(&out));
        if (in_nf && r == GPUSKIN_ERROR_NON_FINITE) RB_CHECK(rb_arr_untouched(&out, 0, out.bytes)); /* "(nothing written)" */
        if (r == GPUSKIN_SUCCESS) {
            ++ok;
            RB_CHECK(rb_all_fin((const float *)out.p, n * floats)); /* the blends never return inf or NaN */
        }
        rb_arr_free(&out);
        free(a);
        free(b);
    }
    printf("  %d blends (%d SUCCESS)\n", it, ok);
}

/* ======================================================================== */
/* Allocation failures                                                      */
/* ======================================================================== */

/* Every allocation of gpuskin_skeleton_init and gpuskin_build_palettes refused in
   turn: a clean GPUSKIN_ERROR_OUT_OF_MEMORY (or success where the call needed no
   more), nothing leaked, and the user pointer passed along. */
static void test_robust_allocation_failures(void)
{
    static int user_tag;
    static const uint32_t sizes[] = {1, 64, 65, 200};
    static const uint32_t counts[] = {1, 3, 5, 7, 8, 10, 12, 16, 21, 40};
    unsigned si, ci;
    int calls = 0;
    rb_fails = 0;
    for (si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
        const uint32_t n = sizes[si];
        int32_t *par = (int32_t *)malloc(n * sizeof *par);
        gpuskin_mat4 *ib = (gpuskin_mat4 *)malloc(n * sizeof *ib);
        gpuskin_skeleton_desc d;
        gpuskin_skeleton sk;
        gpuskin_result r;
        uint32_t j;
        long k;
        rb_start("test_robust_allocation_failures", 12, (int)si);
        rb_parents(par, n, 0);
        for (j = 0; j < n; ++j) ib[j] = rb_matrix(0, 0);
        if (si == 3) ib[1].m[3] = 0.5f; /* a non-affine inverse bind: the forms that need rows fall back */
        memset(&d, 0, sizeof d);
        d.joint_count = n;
        d.parents = par;
        d.inverse_bind = ib;
        d.alloc_user = &user_tag;
        rb_user = d.alloc_user;
        snprintf(rb_ctx, sizeof rb_ctx, "gpuskin_skeleton_init of %u joints, allocation refused", n);
        rb_refused = 0;
        rb_fail_in = 0;
        r = gpuskin_skeleton_init(&sk, &d);
        rb_fail_in = -1;
        RB_CODE("gpuskin_skeleton_init", r, RB_OOM);
        RB_CHECK(rb_live == 0); /* (every case starts with nothing allocated) */
        r = gpuskin_skeleton_init(&sk, &d);
        RB_CODE("gpuskin_skeleton_init", r, RB_OK);
        for (ci = 0; ci < sizeof counts / sizeof counts[0] && r == GPUSKIN_SUCCESS; ++ci) {
            int variant;
            for (variant = 0; variant < 4; ++variant) {
                const uint32_t count = counts[ci];
                gpuskin_mat4 *models = (gpuskin_mat4 *)malloc(count * sizeof *models);
                gpuskin_mat4 *pal = (gpuskin_mat4 *)malloc((size_t)count * n * sizeof *pal);
                float *lbs = (float *)malloc((size_t)count * n * 48);
                gpuskin_palette_batch_desc b;
                for (j = 0; j < count; ++j) {
                    models[j] = rb_matrix(0, 0);
                    if (variant & 1) models[j].m[7] = 0.125f; /* non-affine: the reference path and its scratch */
                }
                memset(&b, 0, sizeof b);
                b.skeleton = &sk;
                b.instance_count = count;
                b.models = models;
                b.out_palettes = variant & 2 ? NULL : pal;
                b.out_lbs = lbs;
                for (k = 0; k < 6; ++k) {
                    gpuskin_result rr;
                    snprintf(rb_ctx, sizeof rb_ctx, "gpuskin_build_palettes: %u joints, %u instances, variant %d, "
                             "allocation %ld refused", n, count, variant, k);
                    rb_user = sk.alloc_user;
                    rb_wrong_user = 0;
                    rb_refused = 0;
                    rb_fail_in = k;
                    rr = gpuskin_build_palettes(&b);
                    rb_fail_in = -1;
                    RB_CODE("gpuskin_build_palettes", rr, rb_refused ? RB_OOM : RB_OK);
                    RB_CHECK(!rb_wrong_user);
                    RB_CHECK(rb_live == 1); /* the skeleton's block only */
                    ++calls;
                    if (!rb_refused) break; /* it needed fewer allocations */
                }
                free(models);
                free(pal);
                free(lbs);
            }
        }
        rb_user = sk.alloc_user;
        if (r == GPUSKIN_SUCCESS) gpuskin_skeleton_free(&sk);
        RB_CHECK(rb_live == 0);
        free(par);
        free(ib);
    }
    printf("  %d calls with an allocation refused\n", calls);
}

int main(int argc, char **argv)
{
    const char *e;
    TEST_INIT(argc, argv);
    if ((e = getenv("GPUSKIN_ROBUST_SEED")) != NULL && e[0]) rb_base_seed = (uint64_t)strtoull(e, NULL, 10);
    if ((e = getenv("GPUSKIN_ROBUST_SCALE")) != NULL && atoi(e) > 0) rb_scale = atoi(e);
    if ((e = getenv("GPUSKIN_ROBUST_STRICT")) != NULL && e[0] && e[0] != '0') rb_strict = 1;
    printf("test_robust: seed %llu, scale %d%s%s\n", (unsigned long long)rb_base_seed, rb_scale,
           rb_strict ? ", strict" : "",
#ifdef RB_ASAN
           ", AddressSanitizer on (unread parts of inputs poisoned)"
#else
           ""
#endif
    );
    RUN_TEST(test_robust_result_strings);
    RUN_TEST(test_robust_maths);
    RUN_TEST(test_robust_skeletons);
    RUN_TEST(test_robust_build_palettes);
    RUN_TEST(test_robust_split_pack);
    RUN_TEST(test_robust_pack_dq_fast);
    RUN_TEST(test_robust_skinning);
    RUN_TEST(test_robust_clips);
    RUN_TEST(test_robust_clip_loop_time);
    RUN_TEST(test_robust_blends);
    RUN_TEST(test_robust_allocation_failures);
    rb_print_notes();
    if (rb_live != 0) {
        printf("FAIL: %ld blocks of GPUSKIN_MALLOC never freed\n", rb_live);
        ++gt_failed;
    }
    return TEST_REPORT();
}
