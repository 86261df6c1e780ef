// gltf_model.cpp - glTF 2.0 -> gpuskin structs (see gltf_model.h). C++17, tinygltf.
//
// This translation unit also holds tinygltf's implementation (the one copy every
// tool links). Images are never decoded: skinning needs none of them.
#define TINYGLTF_IMPLEMENTATION
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Weverything"
#elif defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include <tiny_gltf.h>
#if defined(__clang__)
#pragma clang diagnostic pop
#elif defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include "gltf_model.h"

#include <sys/stat.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct LoadError : std::runtime_error {
    explicit LoadError(const std::string &m) : std::runtime_error(m) {}
};

[[noreturn]] void fail(const std::string &m) { throw LoadError(m); }

std::string S(size_t v) { return std::to_string(v); }

// Largest element count an accessor without a bufferView may ask for (all zeros):
// a guard against a file that asks for gigabytes of nothing.
const size_t kMaxZeroCount = size_t(1) << 24;

bool add_ok(size_t a, size_t b, size_t *r) { return !__builtin_add_overflow(a, b, r); }
bool mul_ok(size_t a, size_t b, size_t *r) { return !__builtin_mul_overflow(a, b, r); }

int num_components(int type) {
    switch (type) {
    case TINYGLTF_TYPE_SCALAR: return 1;
    case TINYGLTF_TYPE_VEC2: return 2;
    case TINYGLTF_TYPE_VEC3: return 3;
    case TINYGLTF_TYPE_VEC4: return 4;
    case TINYGLTF_TYPE_MAT4: return 16;
    default: return 0;  // MAT2/MAT3 have column padding; nothing here reads them
    }
}

int component_size(int ct) {
    switch (ct) {
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return 1;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return 2;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return 4;
    default: return 0;
    }
}

const char *type_name(int type) {
    switch (type) {
    case TINYGLTF_TYPE_SCALAR: return "SCALAR";
    case TINYGLTF_TYPE_VEC2: return "VEC2";
    case TINYGLTF_TYPE_VEC3: return "VEC3";
    case TINYGLTF_TYPE_VEC4: return "VEC4";
    case TINYGLTF_TYPE_MAT2: return "MAT2";
    case TINYGLTF_TYPE_MAT3: return "MAT3";
    case TINYGLTF_TYPE_MAT4: return "MAT4";
    default: return "unknown type";
    }
}

const char *ctype_name(int ct) {
    switch (ct) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: return "BYTE";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return "UNSIGNED_BYTE";
    case TINYGLTF_COMPONENT_TYPE_SHORT: return "SHORT";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: return "UNSIGNED_SHORT";
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: return "UNSIGNED_INT";
    case TINYGLTF_COMPONENT_TYPE_FLOAT: return "FLOAT";
    default: return "unknown componentType";
    }
}

double read_component(const unsigned char *p, int ct, bool normalized) {
    switch (ct) {
    case TINYGLTF_COMPONENT_TYPE_BYTE: {
        int8_t v;
        std::memcpy(&v, p, 1);
        return normalized ? std::max(double(v) / 127.0, -1.0) : double(v);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: {
        uint8_t v;
        std::memcpy(&v, p, 1);
        return normalized ? double(v) / 255.0 : double(v);
    }
    case TINYGLTF_COMPONENT_TYPE_SHORT: {
        int16_t v;
        std::memcpy(&v, p, 2);
        return normalized ? std::max(double(v) / 32767.0, -1.0) : double(v);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return normalized ? double(v) / 65535.0 : double(v);
    }
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return double(v);
    }
    default: {
        float v;
        std::memcpy(&v, p, 4);
        return double(v);
    }
    }
}

// A validated view of bytes inside one buffer: [offset, offset + length).
struct ByteRange {
    const unsigned char *data;
    size_t length;
};

ByteRange buffer_view_range(const tinygltf::Model &m, int view, const std::string &what) {
    if (view < 0 || size_t(view) >= m.bufferViews.size())
        fail(what + ": bufferView " + std::to_string(view) + " does not exist (" + S(m.bufferViews.size()) +
             " bufferViews)");
    const tinygltf::BufferView &bv = m.bufferViews[size_t(view)];
    if (bv.buffer < 0 || size_t(bv.buffer) >= m.buffers.size())
        fail(what + ": bufferView " + std::to_string(view) + " names buffer " + std::to_string(bv.buffer) +
             ", which does not exist");
    const tinygltf::Buffer &b = m.buffers[size_t(bv.buffer)];
    size_t end;
    if (!add_ok(bv.byteOffset, bv.byteLength, &end) || end > b.data.size())
        fail(what + ": bufferView " + std::to_string(view) + " (offset " + S(bv.byteOffset) + ", length " +
             S(bv.byteLength) + ") runs past the end of buffer " + std::to_string(bv.buffer) + " (" +
             S(b.data.size()) + " bytes)");
    return ByteRange{b.data.data() + bv.byteOffset, bv.byteLength};
}

// An accessor read into doubles (count * components), every bound checked.
struct AccessorData {
    int index = -1;
    int type = 0;
    int component_type = 0;
    bool normalized = false;
    size_t count = 0;
    int comps = 0;
    std::vector<double> v;
};

AccessorData read_accessor(const tinygltf::Model &m, int index, const std::string &what) {
    AccessorData out;
    if (index < 0 || size_t(index) >= m.accessors.size())
        fail(what + ": accessor " + std::to_string(index) + " does not exist (" + S(m.accessors.size()) +
             " accessors)");
    const tinygltf::Accessor &a = m.accessors[size_t(index)];
    std::string w = what + " (accessor " + std::to_string(index) + ")";
    int comps = num_components(a.type);
    int csize = component_size(a.componentType);
    if (comps == 0) fail(w + ": unsupported accessor type " + type_name(a.type));
    if (csize == 0) fail(w + ": invalid componentType " + std::to_string(a.componentType));
    size_t elem = size_t(comps) * size_t(csize);
    out.index = index;
    out.type = a.type;
    out.component_type = a.componentType;
    out.normalized = a.normalized;
    out.count = a.count;
    out.comps = comps;
    if (a.normalized && (a.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT ||
                         a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT))
        fail(w + ": normalized is not allowed with componentType " + ctype_name(a.componentType));

    size_t total;
    if (a.bufferView >= 0) {
        ByteRange r = buffer_view_range(m, a.bufferView, w);
        size_t stride = m.bufferViews[size_t(a.bufferView)].byteStride;
        if (stride == 0) stride = elem;
        if (stride < elem)
            fail(w + ": bufferView byteStride " + S(stride) + " is smaller than one element (" + S(elem) +
                 " bytes)");
        if (a.count > 0) {
            size_t span, end;
            if (!mul_ok(stride, a.count - 1, &span) || !add_ok(span, elem, &span) ||
                !add_ok(a.byteOffset, span, &end) || end > r.length)
                fail(w + ": " + S(a.count) + " elements from byteOffset " + S(a.byteOffset) + " with stride " +
                     S(stride) + " run past the end of bufferView " + std::to_string(a.bufferView) + " (" +
                     S(r.length) + " bytes)");
        }
        if (!mul_ok(a.count, size_t(comps), &total)) fail(w + ": count overflows");
        out.v.resize(total);
        for (size_t i = 0; i < a.count; ++i) {
            const unsigned char *p = r.data + a.byteOffset + i * stride;
            for (int c = 0; c < comps; ++c)
                out.v[i * size_t(comps) + size_t(c)] = read_component(p + size_t(c) * size_t(csize),
                                                                      a.componentType, a.normalized);
        }
    } else {
        if (a.count > kMaxZeroCount / size_t(comps))
            fail(w + ": count " + S(a.count) + " without a bufferView is implausibly large");
        total = a.count * size_t(comps);
        out.v.assign(total, 0.0);
    }

    if (a.sparse.isSparse) {
        const auto &sp = a.sparse;
        std::string sw = w + " sparse";
        if (sp.count < 1 || size_t(sp.count) > a.count)
            fail(sw + ": count " + std::to_string(sp.count) + " is outside 1.." + S(a.count));
        int isize = component_size(sp.indices.componentType);
        if (sp.indices.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
            sp.indices.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
            sp.indices.componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
            fail(sw + ": indices componentType must be UNSIGNED_BYTE/SHORT/INT");
        if (sp.indices.byteOffset < 0 || sp.values.byteOffset < 0) fail(sw + ": negative byteOffset");
        ByteRange ir = buffer_view_range(m, sp.indices.bufferView, sw + " indices");
        ByteRange vr = buffer_view_range(m, sp.values.bufferView, sw + " values");
        size_t n = size_t(sp.count), iend, vend;
        if (!mul_ok(n, size_t(isize), &iend) || !add_ok(iend, size_t(sp.indices.byteOffset), &iend) ||
            iend > ir.length)
            fail(sw + ": indices run past the end of their bufferView");
        if (!mul_ok(n, elem, &vend) || !add_ok(vend, size_t(sp.values.byteOffset), &vend) || vend > vr.length)
            fail(sw + ": values run past the end of their bufferView");
        for (size_t k = 0; k < n; ++k) {
            double di = read_component(ir.data + size_t(sp.indices.byteOffset) + k * size_t(isize),
                                       sp.indices.componentType, false);
            size_t target = size_t(di);
            if (target >= a.count)
                fail(sw + ": index " + S(target) + " is not below the accessor count " + S(a.count));
            const unsigned char *p = vr.data + size_t(sp.values.byteOffset) + k * elem;
            for (int c = 0; c < comps; ++c)
                out.v[target * size_t(comps) + size_t(c)] =
                    read_component(p + size_t(c) * size_t(csize), a.componentType, a.normalized);
        }
    }
    for (double d : out.v)
        if (!std::isfinite(d)) fail(w + ": contains NaN or infinity");
    return out;
}

void expect_type(const AccessorData &d, int type, const std::string &what) {
    if (d.type != type)
        fail(what + " (accessor " + std::to_string(d.index) + "): type is " + type_name(d.type) + ", expected " +
             type_name(type));
}

void expect_float(const AccessorData &d, const std::string &what) {
    if (d.component_type != TINYGLTF_COMPONENT_TYPE_FLOAT)
        fail(what + " (accessor " + std::to_string(d.index) + "): componentType is " + ctype_name(d.component_type) +
             ", expected FLOAT");
}

// ---------------------------------------------------------------- maths (double)

struct M4 {
    double m[16];  // column-major
};

M4 m4_identity() {
    M4 r{};
    r.m[0] = r.m[5] = r.m[10] = r.m[15] = 1.0;
    return r;
}

M4 m4_mul(const M4 &a, const M4 &b) {
    M4 r{};
    for (int c = 0; c < 4; ++c)
        for (int rr = 0; rr < 4; ++rr) {
            double s = 0;
            for (int k = 0; k < 4; ++k) s += a.m[k * 4 + rr] * b.m[c * 4 + k];
            r.m[c * 4 + rr] = s;
        }
    return r;
}

M4 m4_trs(const double t[3], const double q[4], const double s[3]) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    M4 r = m4_identity();
    r.m[0] = (1 - 2 * (y * y + z * z)) * s[0];
    r.m[1] = (2 * (x * y + z * w)) * s[0];
    r.m[2] = (2 * (x * z - y * w)) * s[0];
    r.m[4] = (2 * (x * y - z * w)) * s[1];
    r.m[5] = (1 - 2 * (x * x + z * z)) * s[1];
    r.m[6] = (2 * (y * z + x * w)) * s[1];
    r.m[8] = (2 * (x * z + y * w)) * s[2];
    r.m[9] = (2 * (y * z - x * w)) * s[2];
    r.m[10] = (1 - 2 * (x * x + y * y)) * s[2];
    r.m[12] = t[0];
    r.m[13] = t[1];
    r.m[14] = t[2];
    return r;
}

gpuskin_mat4 to_mat4(const M4 &a) {
    gpuskin_mat4 r;
    for (int i = 0; i < 16; ++i) r.m[i] = float(a.m[i]);
    return r;
}

// Rotation matrix (columns c0,c1,c2, orthonormal, det +1) -> unit quaternion, w >= 0.
void quat_from_rot(const double c[3][3], double q[4]) {
    // c[col][row]
    double m00 = c[0][0], m11 = c[1][1], m22 = c[2][2];
    double m01 = c[1][0], m10 = c[0][1], m02 = c[2][0], m20 = c[0][2], m12 = c[2][1], m21 = c[1][2];
    double tr = m00 + m11 + m22;
    if (tr > 0) {
        double s = std::sqrt(tr + 1.0) * 2;
        q[3] = 0.25 * s;
        q[0] = (m21 - m12) / s;
        q[1] = (m02 - m20) / s;
        q[2] = (m10 - m01) / s;
    } else if (m00 > m11 && m00 > m22) {
        double s = std::sqrt(1.0 + m00 - m11 - m22) * 2;
        q[3] = (m21 - m12) / s;
        q[0] = 0.25 * s;
        q[1] = (m01 + m10) / s;
        q[2] = (m02 + m20) / s;
    } else if (m11 > m22) {
        double s = std::sqrt(1.0 + m11 - m00 - m22) * 2;
        q[3] = (m02 - m20) / s;
        q[0] = (m01 + m10) / s;
        q[1] = 0.25 * s;
        q[2] = (m12 + m21) / s;
    } else {
        double s = std::sqrt(1.0 + m22 - m00 - m11) * 2;
        q[3] = (m10 - m01) / s;
        q[0] = (m02 + m20) / s;
        q[1] = (m12 + m21) / s;
        q[2] = 0.25 * s;
    }
    double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; ++i) q[i] /= n;
    if (q[3] < 0)
        for (int i = 0; i < 4; ++i) q[i] = -q[i];
}

// M = T * R * S; a mirrored matrix becomes a negative x scale (gpuskin's convention).
void decompose(const M4 &mat, double t[3], double q[4], double s[3], const std::string &what) {
    t[0] = mat.m[12];
    t[1] = mat.m[13];
    t[2] = mat.m[14];
    if (mat.m[3] != 0 || mat.m[7] != 0 || mat.m[11] != 0 || mat.m[15] != 1)
        fail(what + ": matrix is not affine (last row must be 0 0 0 1)");
    double c[3][3];
    for (int i = 0; i < 3; ++i)
        for (int r = 0; r < 3; ++r) c[i][r] = mat.m[i * 4 + r];
    double det = c[0][0] * (c[1][1] * c[2][2] - c[2][1] * c[1][2]) - c[1][0] * (c[0][1] * c[2][2] - c[2][1] * c[0][2]) +
                 c[2][0] * (c[0][1] * c[1][2] - c[1][1] * c[0][2]);
    double big = 0;
    for (int i = 0; i < 3; ++i) {
        s[i] = std::sqrt(c[i][0] * c[i][0] + c[i][1] * c[i][1] + c[i][2] * c[i][2]);
        big = std::max(big, s[i]);
    }
    if (!(big > 0) || s[0] <= 1e-12 * big || s[1] <= 1e-12 * big || s[2] <= 1e-12 * big)
        fail(what + ": matrix is singular and cannot be decomposed into translation/rotation/scale");
    if (det < 0) s[0] = -s[0];
    for (int i = 0; i < 3; ++i)
        for (int r = 0; r < 3; ++r) c[i][r] /= s[i];
    quat_from_rot(c, q);
    M4 back = m4_trs(t, q, s);
    double err = 0;
    for (int i = 0; i < 12; ++i) err = std::max(err, std::fabs(back.m[i] - mat.m[i]));
    if (err > 1e-4 * std::max(1.0, big))
        fail(what + ": matrix has shear and is not decomposable into translation/rotation/scale (glTF requires "
                    "it to be)");
}

// ---------------------------------------------------------------- storage

struct PrimStore {
    std::vector<float> pos, nrm, tan;
    std::vector<uint8_t> j8[2];
    std::vector<uint16_t> j16[2];
    std::vector<float> w[2];
    std::vector<uint32_t> idx;
    bool has_indices = false;
    gltf_model_primitive pub{};
};

struct MeshStore {
    std::deque<PrimStore> prims;
    std::vector<gltf_model_primitive> pubs;
};

struct SamplerStore {
    std::vector<float> times, values;
    gpuskin_interpolation interp = GPUSKIN_INTERP_LINEAR;
    bool converted = false;
};

struct ClipStore {
    std::vector<gpuskin_channel> channels;
};

struct SkinStore {
    std::string name;
    std::vector<uint32_t> joint_nodes;
    std::vector<const char *> joint_names;
    std::vector<int32_t> parents;
    std::vector<gpuskin_mat4> ibm, rpg;
    std::vector<gpuskin_trs> rest;
    std::deque<ClipStore> clips;
    std::vector<gltf_model_clip> pub_clips;
};

struct Internal {
    gltf_model pub{};
    tinygltf::Model model;
    std::deque<SkinStore> skins;
    std::vector<gltf_model_skin> pub_skins;
    std::map<int, MeshStore> meshes;
    std::vector<gltf_model_skinned_node> pub_nodes;
    std::vector<std::vector<SamplerStore>> samplers;  // [animation][sampler]
};

bool no_image_loader(tinygltf::Image *, const int, std::string *, std::string *, int, int, const unsigned char *, int,
                     void *) {
    return true;  // skinning needs no pixels
}

std::string one_line(std::string s) {
    for (char &c : s)
        if (c == '\n' || c == '\r') c = ' ';
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

bool ends_with(const std::string &s, const char *suffix) {
    size_t n = std::strlen(suffix);
    if (s.size() < n) return false;
    for (size_t i = 0; i < n; ++i)
        if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) != suffix[i]) return false;
    return true;
}

// glTF's own JSON nests a handful of levels; `extras` may nest more. tinygltf turns
// extras into its Value type recursively, so a file nested a hundred thousand levels
// deep would overflow the stack there: such JSON is refused before parsing.
const int kMaxJsonDepth = 512;

void check_json_depth(const unsigned char *text, size_t n) {
    int depth = 0;
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = text[i];
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth) fail("JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
}

void load_tinygltf(const std::string &path, tinygltf::Model *m) {
    struct stat sb;
    if (stat(path.c_str(), &sb) != 0) fail(std::string("cannot open file: ") + std::strerror(errno));
    if (!S_ISREG(sb.st_mode)) fail("not a regular file");
    std::ifstream f(path, std::ios::binary);
    if (!f) fail("cannot open file");
    std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (f.bad()) fail("read error");
    if (bytes.size() > 0x7fffffffu) fail("file is larger than 2 GiB");
    bool glb = bytes.size() >= 4 && std::memcmp(bytes.data(), "glTF", 4) == 0;
    if (!glb && ends_with(path, ".glb")) fail("not a binary glTF file (no 'glTF' magic)");
    if (glb) {
        // tinygltf checks this too; a truncated file deserves a clearer message.
        if (bytes.size() < 20) fail("truncated GLB: " + S(bytes.size()) + " bytes, the header needs 20");
        uint32_t version, length, chunk0;
        std::memcpy(&version, bytes.data() + 4, 4);
        std::memcpy(&length, bytes.data() + 8, 4);
        std::memcpy(&chunk0, bytes.data() + 12, 4);
        if (version != 2) fail("GLB version " + std::to_string(version) + " (only 2 is glTF 2.0)");
        if (length > bytes.size())
            fail("truncated GLB: the header says " + std::to_string(length) + " bytes, the file has " +
                 S(bytes.size()));
        if (uint64_t(chunk0) + 20u > length)
            fail("truncated GLB: the JSON chunk (" + std::to_string(chunk0) + " bytes) runs past the end");
        check_json_depth(bytes.data() + 20, chunk0);
    } else {
        check_json_depth(bytes.data(), bytes.size());
    }
    tinygltf::TinyGLTF loader;
    loader.SetImageLoader(no_image_loader, nullptr);
    std::string err, warn;
    std::string base = tinygltf::GetBaseDir(path);
    bool ok = glb ? loader.LoadBinaryFromMemory(m, &err, &warn, bytes.data(), unsigned(bytes.size()), base)
                  : loader.LoadASCIIFromString(m, &err, &warn, reinterpret_cast<const char *>(bytes.data()),
                                               unsigned(bytes.size()), base);
    if (!ok) fail((err.empty() ? std::string("not a valid glTF file") : one_line(err)));
}

// ---------------------------------------------------------------- nodes

struct NodeInfo {
    std::vector<int> parent;
    std::vector<M4> local;
    std::vector<M4> global;
    std::vector<char> global_done;
};

M4 node_local(const tinygltf::Node &n, int index) {
    std::string w = "node " + std::to_string(index);
    for (double d : n.matrix)
        if (!std::isfinite(d)) fail(w + ": matrix holds NaN or infinity");
    for (const auto *v : {&n.translation, &n.rotation, &n.scale})
        for (double d : *v)
            if (!std::isfinite(d)) fail(w + ": transform holds NaN or infinity");
    if (!n.matrix.empty()) {
        if (n.matrix.size() != 16) fail(w + ": matrix must have 16 numbers");
        M4 r;
        for (int i = 0; i < 16; ++i) r.m[i] = n.matrix[size_t(i)];
        return r;
    }
    double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    if (!n.translation.empty()) {
        if (n.translation.size() != 3) fail(w + ": translation must have 3 numbers");
        for (int i = 0; i < 3; ++i) t[i] = n.translation[size_t(i)];
    }
    if (!n.rotation.empty()) {
        if (n.rotation.size() != 4) fail(w + ": rotation must have 4 numbers");
        double len = 0;
        for (int i = 0; i < 4; ++i) len += n.rotation[size_t(i)] * n.rotation[size_t(i)];
        len = std::sqrt(len);
        if (!(len > 1e-6)) fail(w + ": rotation is not a unit quaternion (length " + std::to_string(len) + ")");
        for (int i = 0; i < 4; ++i) q[i] = n.rotation[size_t(i)] / len;
    }
    if (!n.scale.empty()) {
        if (n.scale.size() != 3) fail(w + ": scale must have 3 numbers");
        for (int i = 0; i < 3; ++i) s[i] = n.scale[size_t(i)];
    }
    return m4_trs(t, q, s);
}

void build_nodes(const tinygltf::Model &m, NodeInfo *ni) {
    size_t n = m.nodes.size();
    ni->parent.assign(n, -1);
    ni->local.resize(n);
    ni->global.resize(n);
    ni->global_done.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
        ni->local[i] = node_local(m.nodes[i], int(i));
        for (int c : m.nodes[i].children) {
            if (c < 0 || size_t(c) >= n)
                fail("node " + S(i) + ": child " + std::to_string(c) + " does not exist (" + S(n) + " nodes)");
            if (size_t(c) == i) fail("node " + S(i) + " lists itself as its child");
            if (ni->parent[size_t(c)] != -1)
                fail("node " + std::to_string(c) + " has two parents (nodes " + std::to_string(ni->parent[size_t(c)]) +
                     " and " + S(i) + ")");
            ni->parent[size_t(c)] = int(i);
        }
    }
    for (size_t i = 0; i < n; ++i) {  // cycles: a walk up longer than n nodes
        size_t steps = 0;
        for (int p = ni->parent[i]; p != -1; p = ni->parent[size_t(p)])
            if (++steps > n) fail("the node hierarchy has a cycle through node " + S(i));
    }
    for (size_t i = 0; i < n; ++i) {  // globals, parents first (no recursion: depth is untrusted)
        std::vector<int> chain;
        for (int p = int(i); p != -1 && !ni->global_done[size_t(p)]; p = ni->parent[size_t(p)]) chain.push_back(p);
        for (size_t k = chain.size(); k-- > 0;) {
            size_t c = size_t(chain[k]);
            int p = ni->parent[c];
            ni->global[c] = p == -1 ? ni->local[c] : m4_mul(ni->global[size_t(p)], ni->local[c]);
            ni->global_done[c] = 1;
        }
    }
}

// ---------------------------------------------------------------- skins

void build_skin(const tinygltf::Model &m, const NodeInfo &ni, size_t si, SkinStore *out) {
    const tinygltf::Skin &skin = m.skins[si];
    std::string w = "skin " + S(si);
    out->name = skin.name;
    size_t jc = skin.joints.size();
    if (jc == 0) fail(w + ": has no joints");
    if (jc > GPUSKIN_MAX_JOINTS) fail(w + ": " + S(jc) + " joints, more than gpuskin's " + S(GPUSKIN_MAX_JOINTS));
    std::map<int, int32_t> joint_of_node;
    for (size_t j = 0; j < jc; ++j) {
        int node = skin.joints[j];
        if (node < 0 || size_t(node) >= m.nodes.size())
            fail(w + ": joint " + S(j) + " names node " + std::to_string(node) + ", which does not exist (" +
                 S(m.nodes.size()) + " nodes)");
        if (!joint_of_node.emplace(node, int32_t(j)).second)
            fail(w + ": node " + std::to_string(node) + " is listed twice among the joints");
        out->joint_nodes.push_back(uint32_t(node));
        out->joint_names.push_back(m.nodes[size_t(node)].name.c_str());
    }
    out->parents.assign(jc, -1);
    out->rpg.assign(jc, to_mat4(m4_identity()));
    out->rest.resize(jc);
    for (size_t j = 0; j < jc; ++j) {
        int node = skin.joints[j];
        int p = ni.parent[size_t(node)];
        if (p != -1) {
            auto it = joint_of_node.find(p);
            if (it != joint_of_node.end())
                out->parents[j] = it->second;
            else
                out->rpg[j] = to_mat4(ni.global[size_t(p)]);
        }
        const tinygltf::Node &n = m.nodes[size_t(node)];
        double t[3], q[4], s[3];
        std::string nw = w + " joint " + S(j) + " (node " + std::to_string(node) + ")";
        if (!n.matrix.empty()) {
            decompose(ni.local[size_t(node)], t, q, s, nw);
        } else {  // TRS as written (node_local checked sizes, finiteness and the quaternion)
            t[0] = t[1] = t[2] = 0;
            q[0] = q[1] = q[2] = 0;
            q[3] = 1;
            s[0] = s[1] = s[2] = 1;
            if (n.translation.size() == 3)
                for (int i = 0; i < 3; ++i) t[i] = n.translation[size_t(i)];
            if (n.rotation.size() == 4) {
                double len = 0;
                for (int i = 0; i < 4; ++i) len += n.rotation[size_t(i)] * n.rotation[size_t(i)];
                len = std::sqrt(len);
                for (int i = 0; i < 4; ++i) q[i] = n.rotation[size_t(i)] / len;
            }
            if (n.scale.size() == 3)
                for (int i = 0; i < 3; ++i) s[i] = n.scale[size_t(i)];
        }
        gpuskin_trs &r = out->rest[j];
        r.translation = {float(t[0]), float(t[1]), float(t[2])};
        r.rotation = {float(q[0]), float(q[1]), float(q[2]), float(q[3])};
        r.scale = {float(s[0]), float(s[1]), float(s[2])};
    }
    if (skin.inverseBindMatrices >= 0) {
        AccessorData d = read_accessor(m, skin.inverseBindMatrices, w + " inverseBindMatrices");
        expect_type(d, TINYGLTF_TYPE_MAT4, w + " inverseBindMatrices");
        expect_float(d, w + " inverseBindMatrices");
        if (d.count < jc)
            fail(w + " inverseBindMatrices: " + S(d.count) + " matrices for " + S(jc) + " joints");
        out->ibm.resize(jc);
        for (size_t j = 0; j < jc; ++j)
            for (int i = 0; i < 16; ++i) out->ibm[j].m[i] = float(d.v[j * 16 + size_t(i)]);
    }
}

// ---------------------------------------------------------------- meshes

bool uses_extension(const tinygltf::Model &m, const char *name) {
    for (const std::string &e : m.extensionsUsed)
        if (e == name) return true;
    for (const std::string &e : m.extensionsRequired)
        if (e == name) return true;
    return false;
}

// POSITION/NORMAL/TANGENT are FLOAT, or with KHR_mesh_quantization the (normalised)
// integer types that extension allows; read_accessor has already converted them.
void expect_vertex_type(const tinygltf::Model &m, const AccessorData &d, const char *attr, const std::string &what) {
    if (d.component_type == TINYGLTF_COMPONENT_TYPE_FLOAT) return;
    if (uses_extension(m, "KHR_mesh_quantization")) {
        bool small = d.component_type == TINYGLTF_COMPONENT_TYPE_BYTE || d.component_type == TINYGLTF_COMPONENT_TYPE_SHORT;
        bool usmall = d.component_type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE ||
                      d.component_type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
        if (std::strcmp(attr, "POSITION") == 0 ? (small || usmall) : (small && d.normalized)) return;
    }
    fail(what + " (accessor " + std::to_string(d.index) + "): componentType " + ctype_name(d.component_type) +
         (d.normalized ? " normalized" : "") + " is not allowed" +
         (uses_extension(m, "KHR_mesh_quantization") ? " (KHR_mesh_quantization)" : " (FLOAT expected)"));
}

void convert_primitive(const tinygltf::Model &m, int mesh, size_t pi, PrimStore *ps) {
    const tinygltf::Primitive &p = m.meshes[size_t(mesh)].primitives[pi];
    std::string w = "mesh " + std::to_string(mesh) + " primitive " + S(pi);
    if (p.extensions.count("KHR_draco_mesh_compression"))
        fail(w + ": Draco-compressed (KHR_draco_mesh_compression), which this loader does not decode");
    auto attr = [&](const char *name) -> int {
        auto it = p.attributes.find(name);
        return it == p.attributes.end() ? -1 : it->second;
    };
    if (attr("POSITION") < 0) fail(w + ": has no POSITION");
    AccessorData pos = read_accessor(m, attr("POSITION"), w + " POSITION");
    expect_type(pos, TINYGLTF_TYPE_VEC3, w + " POSITION");
    expect_vertex_type(m, pos, "POSITION", w + " POSITION");
    size_t vc = pos.count;
    if (vc == 0) fail(w + ": POSITION has no vertices");
    if (vc > 0xffffffffu) fail(w + ": more than 2^32 vertices");
    auto same_count = [&](const AccessorData &d, const char *name) {
        if (d.count != vc)
            fail(w + " " + name + ": " + S(d.count) + " elements, POSITION has " + S(vc));
    };
    ps->pos.assign(pos.v.begin(), pos.v.end());
    if (attr("NORMAL") >= 0) {
        AccessorData d = read_accessor(m, attr("NORMAL"), w + " NORMAL");
        expect_type(d, TINYGLTF_TYPE_VEC3, w + " NORMAL");
        expect_vertex_type(m, d, "NORMAL", w + " NORMAL");
        same_count(d, "NORMAL");
        ps->nrm.assign(d.v.begin(), d.v.end());
    }
    if (attr("TANGENT") >= 0) {
        AccessorData d = read_accessor(m, attr("TANGENT"), w + " TANGENT");
        expect_type(d, TINYGLTF_TYPE_VEC4, w + " TANGENT");
        expect_vertex_type(m, d, "TANGENT", w + " TANGENT");
        same_count(d, "TANGENT");
        ps->tan.assign(d.v.begin(), d.v.end());
    }
    if (attr("JOINTS_2") >= 0 || attr("WEIGHTS_2") >= 0)
        fail(w + ": more than 8 influences (JOINTS_2/WEIGHTS_2); gpuskin blends at most 8");
    int sets = 0;
    bool all_u8 = true;
    AccessorData jd[2], wd[2];
    for (int s = 0; s < 2; ++s) {
        std::string jn = "JOINTS_" + std::to_string(s), wn = "WEIGHTS_" + std::to_string(s);
        int ja = attr(jn.c_str()), wa = attr(wn.c_str());
        if (ja < 0 && wa < 0) break;
        if (ja < 0 || wa < 0) fail(w + ": has " + (ja < 0 ? wn : jn) + " without " + (ja < 0 ? jn : wn));
        jd[s] = read_accessor(m, ja, w + " " + jn);
        expect_type(jd[s], TINYGLTF_TYPE_VEC4, w + " " + jn);
        if (jd[s].component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
            jd[s].component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT)
            fail(w + " " + jn + ": componentType " + ctype_name(jd[s].component_type) +
                 ", expected UNSIGNED_BYTE or UNSIGNED_SHORT");
        if (jd[s].normalized) fail(w + " " + jn + ": joint indices must not be normalized");
        same_count(jd[s], jn.c_str());
        if (jd[s].component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE) all_u8 = false;
        wd[s] = read_accessor(m, wa, w + " " + wn);
        expect_type(wd[s], TINYGLTF_TYPE_VEC4, w + " " + wn);
        if (wd[s].component_type != TINYGLTF_COMPONENT_TYPE_FLOAT &&
            !((wd[s].component_type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE ||
               wd[s].component_type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT) &&
              wd[s].normalized))
            fail(w + " " + wn + ": componentType " + ctype_name(wd[s].component_type) +
                 (wd[s].normalized ? "" : " (not normalized)") +
                 ", expected FLOAT or normalized UNSIGNED_BYTE/UNSIGNED_SHORT");
        same_count(wd[s], wn.c_str());
        sets = s + 1;
    }
    if (sets == 0) fail(w + ": used by a skinned node but has no JOINTS_0/WEIGHTS_0");
    uint32_t max_joint = 0;
    for (int s = 0; s < sets; ++s) {
        ps->w[s].resize(vc * 4);
        if (all_u8)
            ps->j8[s].resize(vc * 4);
        else
            ps->j16[s].resize(vc * 4);
        for (size_t i = 0; i < vc * 4; ++i) {
            double wt = wd[s].v[i];
            if (wt < 0)
                fail(w + " WEIGHTS_" + std::to_string(s) + ": vertex " + S(i / 4) + " has a negative weight");
            ps->w[s][i] = float(wt);
            uint32_t jv = uint32_t(jd[s].v[i]);
            if (all_u8)
                ps->j8[s][i] = uint8_t(jv);
            else
                ps->j16[s][i] = uint16_t(jv);
            if (wt != 0 && jv > max_joint) max_joint = jv;
        }
    }
    ps->has_indices = p.indices >= 0;
    int mode = p.mode < 0 ? TINYGLTF_MODE_TRIANGLES : p.mode;
    if (mode > 6) fail(w + ": invalid mode " + std::to_string(mode));
    if (ps->has_indices) {
        AccessorData d = read_accessor(m, p.indices, w + " indices");
        expect_type(d, TINYGLTF_TYPE_SCALAR, w + " indices");
        if (d.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
            d.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
            d.component_type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
            fail(w + " indices: componentType " + ctype_name(d.component_type) + ", expected an unsigned integer");
        if (d.count > 0xffffffffu) fail(w + " indices: more than 2^32 indices");
        if (mode == TINYGLTF_MODE_TRIANGLES && d.count % 3 != 0)
            fail(w + " indices: " + S(d.count) + " indices do not make whole triangles");
        ps->idx.resize(d.count);
        for (size_t i = 0; i < d.count; ++i) {
            double v = d.v[i];
            if (v >= double(vc))
                fail(w + " indices: index " + S(i) + " is " + S(size_t(v)) + ", not below the vertex count " + S(vc));
            ps->idx[i] = uint32_t(v);
        }
    } else if (mode == TINYGLTF_MODE_TRIANGLES && vc % 3 != 0) {
        fail(w + ": " + S(vc) + " non-indexed vertices do not make whole triangles");
    }

    gltf_model_primitive &pub = ps->pub;
    pub.primitive = uint32_t(pi);
    pub.mode = uint32_t(mode);
    pub.max_joint = max_joint;
    pub.joints_component_type = uint32_t(jd[0].component_type);
    pub.weights_component_type = uint32_t(wd[0].component_type);
    gpuskin_vertex_streams &st = pub.streams;
    st.vertex_count = vc;
    st.positions = {ps->pos.data(), 12};
    st.normals = {ps->nrm.empty() ? nullptr : ps->nrm.data(), 12};
    st.tangents = {ps->tan.empty() ? nullptr : ps->tan.data(), 16};
    st.influence_sets = uint32_t(sets);
    st.joint_type = all_u8 ? GPUSKIN_JOINT_U8 : GPUSKIN_JOINT_U16;
    for (int s = 0; s < sets; ++s) {
        if (all_u8)
            st.joints[s] = {ps->j8[s].data(), 4};
        else
            st.joints[s] = {ps->j16[s].data(), 8};
        st.weights[s] = {ps->w[s].data(), 16};
    }
    pub.indices = ps->has_indices ? ps->idx.data() : nullptr;
    pub.index_count = uint32_t(ps->idx.size());
}

// The first weighted influence naming a joint >= joint_count, as a message; "" if none.
std::string check_joint_range(const PrimStore &ps, uint32_t joint_count) {
    const gpuskin_vertex_streams &st = ps.pub.streams;
    for (uint32_t s = 0; s < st.influence_sets; ++s)
        for (size_t i = 0; i < st.vertex_count * 4; ++i) {
            uint32_t j = st.joint_type == GPUSKIN_JOINT_U8 ? ps.j8[s][i] : ps.j16[s][i];
            if (ps.w[s][i] != 0 && j >= joint_count)
                return "vertex " + S(i / 4) + " influence " + S(s * 4 + i % 4) + " names joint " + std::to_string(j) +
                       " with weight " + std::to_string(ps.w[s][i]) + ", but the skin has " +
                       std::to_string(joint_count) + " joints";
        }
    return "";
}

// ---------------------------------------------------------------- animations

void build_samplers(const tinygltf::Model &m, size_t ai, std::vector<SamplerStore> *out) {
    const tinygltf::Animation &a = m.animations[ai];
    out->resize(a.samplers.size());
    for (size_t si = 0; si < a.samplers.size(); ++si) {
        const tinygltf::AnimationSampler &s = a.samplers[si];
        std::string w = "animation " + S(ai) + " sampler " + S(si);
        SamplerStore &st = (*out)[si];
        if (s.interpolation == "LINEAR")
            st.interp = GPUSKIN_INTERP_LINEAR;
        else if (s.interpolation == "STEP")
            st.interp = GPUSKIN_INTERP_STEP;
        else if (s.interpolation == "CUBICSPLINE")
            st.interp = GPUSKIN_INTERP_CUBICSPLINE;
        else
            fail(w + ": unknown interpolation \"" + s.interpolation + "\"");
        AccessorData in = read_accessor(m, s.input, w + " input");
        expect_type(in, TINYGLTF_TYPE_SCALAR, w + " input");
        expect_float(in, w + " input");
        if (in.count == 0) fail(w + " input: no key times");
        if (in.count > 0xffffffffu) fail(w + " input: too many keys");
        st.times.resize(in.count);
        for (size_t k = 0; k < in.count; ++k) {
            st.times[k] = float(in.v[k]);
            if (k > 0 && !(st.times[k] > st.times[k - 1]))
                fail(w + " input: key times are not strictly increasing (key " + S(k) + ")");
        }
    }
}

// Reads a sampler's output for one path; values are checked against the key count.
void convert_sampler_output(const tinygltf::Model &m, size_t ai, size_t si, const std::string &path,
                            SamplerStore *st) {
    if (st->converted) return;
    const tinygltf::AnimationSampler &s = m.animations[ai].samplers[si];
    std::string w = "animation " + S(ai) + " sampler " + S(si) + " output (" + path + ")";
    AccessorData out = read_accessor(m, s.output, w);
    if (path == "rotation") {
        expect_type(out, TINYGLTF_TYPE_VEC4, w);
        if (out.component_type != TINYGLTF_COMPONENT_TYPE_FLOAT && !out.normalized)
            fail(w + ": componentType " + ctype_name(out.component_type) + " must be FLOAT or normalized");
        if (out.component_type == TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
            fail(w + ": componentType UNSIGNED_INT is not allowed");
    } else {
        expect_type(out, TINYGLTF_TYPE_VEC3, w);
        expect_float(out, w);
    }
    size_t per = st->interp == GPUSKIN_INTERP_CUBICSPLINE ? 3 : 1;
    if (out.count != st->times.size() * per)
        fail(w + ": " + S(out.count) + " values for " + S(st->times.size()) + " keys" +
             (per == 3 ? " (CUBICSPLINE needs 3 per key)" : ""));
    st->values.assign(out.v.begin(), out.v.end());
    st->converted = true;
}

void fill_error(char *err, size_t err_size, const std::string &msg) {
    if (!err || err_size == 0) return;
    std::snprintf(err, err_size, "%s", one_line(msg).c_str());
}

Internal *load(const std::string &path) {
    std::unique_ptr<Internal> in(new Internal());
    tinygltf::Model &m = in->model;
    load_tinygltf(path, &m);

    // glTF: a loader must refuse a file that requires an extension it does not support.
    // Only extensions that change geometry, skins or animation matter to skinning.
    for (const std::string &e : m.extensionsRequired)
        if (e == "KHR_draco_mesh_compression" || e == "EXT_meshopt_compression" || e == "KHR_meshopt_compression")
            fail("requires " + e + ", which this loader does not decode");

    NodeInfo ni;
    build_nodes(m, &ni);

    // Skins
    for (size_t si = 0; si < m.skins.size(); ++si) {
        in->skins.emplace_back();
        build_skin(m, ni, si, &in->skins.back());
    }

    // Animations: every sampler validated; outputs converted for the paths used.
    in->samplers.resize(m.animations.size());
    for (size_t ai = 0; ai < m.animations.size(); ++ai) build_samplers(m, ai, &in->samplers[ai]);
    std::vector<float> anim_start(m.animations.size(), 0.f), anim_end(m.animations.size(), 0.f);
    for (size_t ai = 0; ai < m.animations.size(); ++ai) {
        const tinygltf::Animation &a = m.animations[ai];
        bool any = false;
        for (size_t ci = 0; ci < a.channels.size(); ++ci) {
            const tinygltf::AnimationChannel &c = a.channels[ci];
            std::string w = "animation " + S(ai) + " channel " + S(ci);
            if (c.sampler < 0 || size_t(c.sampler) >= a.samplers.size())
                fail(w + ": sampler " + std::to_string(c.sampler) + " does not exist");
            if (c.target_node >= 0 && size_t(c.target_node) >= m.nodes.size())
                fail(w + ": target node " + std::to_string(c.target_node) + " does not exist");
            const SamplerStore &st = in->samplers[ai][size_t(c.sampler)];
            float s0 = st.times.front(), s1 = st.times.back();
            anim_start[ai] = any ? std::min(anim_start[ai], s0) : s0;
            anim_end[ai] = any ? std::max(anim_end[ai], s1) : s1;
            any = true;
        }
    }
    for (size_t si = 0; si < in->skins.size(); ++si) {
        SkinStore &sk = in->skins[si];
        std::map<int, uint32_t> joint_of_node;
        for (size_t j = 0; j < sk.joint_nodes.size(); ++j) joint_of_node[int(sk.joint_nodes[j])] = uint32_t(j);
        std::vector<char> ancestor(m.nodes.size(), 0);  // non-joint nodes above a joint
        for (uint32_t jn : sk.joint_nodes)
            for (int p = ni.parent[jn]; p != -1 && !ancestor[size_t(p)]; p = ni.parent[size_t(p)])
                if (!joint_of_node.count(p)) ancestor[size_t(p)] = 1;
        for (size_t ai = 0; ai < m.animations.size(); ++ai) {
            const tinygltf::Animation &a = m.animations[ai];
            sk.clips.emplace_back();
            ClipStore &cs = sk.clips.back();
            gltf_model_clip pc{};
            pc.name = a.name.c_str();
            pc.animation = uint32_t(ai);
            pc.animation_channels = uint32_t(a.channels.size());
            pc.start = anim_start[ai];
            pc.end = anim_end[ai];
            for (size_t ci = 0; ci < a.channels.size(); ++ci) {
                const tinygltf::AnimationChannel &c = a.channels[ci];
                bool trs = c.target_path == "translation" || c.target_path == "rotation" || c.target_path == "scale";
                auto it = joint_of_node.find(c.target_node);
                if (it == joint_of_node.end()) {
                    if (trs && c.target_node >= 0 && ancestor[size_t(c.target_node)]) ++pc.ignored_ancestor_channels;
                    continue;
                }
                gpuskin_path path;
                if (c.target_path == "translation")
                    path = GPUSKIN_PATH_TRANSLATION;
                else if (c.target_path == "rotation")
                    path = GPUSKIN_PATH_ROTATION;
                else if (c.target_path == "scale")
                    path = GPUSKIN_PATH_SCALE;
                else
                    continue;  // weights (morph targets) or an extension's path
                SamplerStore &st = in->samplers[ai][size_t(c.sampler)];
                // One sampler feeding two paths of different widths is invalid: convert per first use.
                convert_sampler_output(m, ai, size_t(c.sampler), c.target_path, &st);
                size_t comps = path == GPUSKIN_PATH_ROTATION ? 4 : 3;
                size_t per = st.interp == GPUSKIN_INTERP_CUBICSPLINE ? 3 : 1;
                if (st.values.size() != st.times.size() * per * comps)
                    fail("animation " + S(ai) + " channel " + S(ci) + ": sampler " + std::to_string(c.sampler) +
                         " is shared by paths of different sizes");
                gpuskin_channel ch{};
                ch.joint = it->second;
                ch.path = path;
                ch.interpolation = st.interp;
                ch.key_count = uint32_t(st.times.size());
                ch.times = st.times.data();
                ch.values = st.values.data();
                cs.channels.push_back(ch);
                pc.interpolations |= GLTF_MODEL_INTERP_BIT(st.interp);
            }
            sk.pub_clips.push_back(pc);
        }
    }

    // Skinned nodes, ascending node index; each mesh converted once.
    for (size_t n = 0; n < m.nodes.size(); ++n) {
        const tinygltf::Node &node = m.nodes[n];
        if (node.mesh < 0 || node.skin < 0) continue;
        std::string w = "node " + S(n);
        if (size_t(node.mesh) >= m.meshes.size()) fail(w + ": mesh " + std::to_string(node.mesh) + " does not exist");
        if (size_t(node.skin) >= m.skins.size()) fail(w + ": skin " + std::to_string(node.skin) + " does not exist");
        auto mit = in->meshes.find(node.mesh);
        if (mit == in->meshes.end()) {
            MeshStore &ms = in->meshes[node.mesh];
            const tinygltf::Mesh &mesh = m.meshes[size_t(node.mesh)];
            if (mesh.primitives.empty()) fail("mesh " + std::to_string(node.mesh) + ": has no primitives");
            for (size_t pi = 0; pi < mesh.primitives.size(); ++pi) {
                ms.prims.emplace_back();
                convert_primitive(m, node.mesh, pi, &ms.prims.back());
                ms.pubs.push_back(ms.prims.back().pub);
            }
            mit = in->meshes.find(node.mesh);
        }
        const SkinStore &sk = in->skins[size_t(node.skin)];
        for (const PrimStore &ps : mit->second.prims) {
            std::string bad = check_joint_range(ps, uint32_t(sk.joint_nodes.size()));
            if (!bad.empty())
                fail(w + " (skin " + std::to_string(node.skin) + ") mesh " + std::to_string(node.mesh) +
                     " primitive " + std::to_string(ps.pub.primitive) + ": " + bad);
        }
        gltf_model_skinned_node sn{};
        sn.node = uint32_t(n);
        sn.name = node.name.c_str();
        sn.mesh = uint32_t(node.mesh);
        sn.mesh_name = m.meshes[size_t(node.mesh)].name.c_str();
        sn.skin = uint32_t(node.skin);
        sn.primitive_count = uint32_t(mit->second.pubs.size());
        sn.primitives = mit->second.pubs.data();
        in->pub_nodes.push_back(sn);
    }

    // Public views (every vector is final now).
    for (size_t si = 0; si < in->skins.size(); ++si) {
        SkinStore &sk = in->skins[si];
        for (size_t k = 0; k < sk.clips.size(); ++k) {
            sk.pub_clips[k].clip.channels = sk.clips[k].channels.empty() ? nullptr : sk.clips[k].channels.data();
            sk.pub_clips[k].clip.channel_count = uint32_t(sk.clips[k].channels.size());
        }
        gltf_model_skin ps{};
        ps.name = sk.name.c_str();
        ps.skin = uint32_t(si);
        ps.joint_count = uint32_t(sk.joint_nodes.size());
        ps.joint_nodes = sk.joint_nodes.data();
        ps.joint_names = sk.joint_names.data();
        ps.has_inverse_bind = !sk.ibm.empty();
        ps.desc.joint_count = ps.joint_count;
        ps.desc.parents = sk.parents.data();
        ps.desc.inverse_bind = sk.ibm.empty() ? nullptr : sk.ibm.data();
        ps.desc.rest_pose = sk.rest.data();
        ps.desc.root_parent_globals = sk.rpg.data();
        ps.clip_count = uint32_t(sk.pub_clips.size());
        ps.clips = sk.pub_clips.empty() ? nullptr : sk.pub_clips.data();
        in->pub_skins.push_back(ps);
    }
    gltf_model &pub = in->pub;
    pub.skin_count = uint32_t(in->pub_skins.size());
    pub.skins = in->pub_skins.empty() ? nullptr : in->pub_skins.data();
    pub.skinned_node_count = uint32_t(in->pub_nodes.size());
    pub.skinned_nodes = in->pub_nodes.empty() ? nullptr : in->pub_nodes.data();
    pub.animation_count = uint32_t(m.animations.size());
    pub.node_count = uint32_t(m.nodes.size());
    bool first = true;
    for (auto &kv : in->meshes)
        for (const PrimStore &ps : kv.second.prims)
            for (size_t i = 0; i < ps.pos.size(); i += 3)
                for (int c = 0; c < 3; ++c) {
                    float v = ps.pos[i + size_t(c)];
                    if (first || v < pub.bounds_min[c]) pub.bounds_min[c] = v;
                    if (first || v > pub.bounds_max[c]) pub.bounds_max[c] = v;
                    if (c == 2) first = false;
                }
    pub.internal_ = in.get();
    return in.release();
}

}  // namespace

extern "C" int gltf_model_load(const char *path, gltf_model **out, char *err, size_t err_size) {
    if (out) *out = nullptr;
    if (!path || !out) {
        fill_error(err, err_size, "gltf_model_load: NULL argument");
        return 1;
    }
    try {
        Internal *in = load(path);
        *out = &in->pub;
        if (err && err_size) err[0] = '\0';
        return 0;
    } catch (const LoadError &e) {
        fill_error(err, err_size, std::string(path) + ": " + e.what());
    } catch (const std::bad_alloc &) {
        fill_error(err, err_size, std::string(path) + ": out of memory");
    } catch (const std::exception &e) {
        fill_error(err, err_size, std::string(path) + ": " + e.what());
    }
    return 1;
}

extern "C" void gltf_model_free(gltf_model *model) {
    if (!model) return;
    delete static_cast<Internal *>(model->internal_);
}

extern "C" float gltf_model_size(const gltf_model *model) {
    if (!model) return 1.0f;
    double s = 0;
    for (int c = 0; c < 3; ++c) {
        double d = double(model->bounds_max[c]) - double(model->bounds_min[c]);
        s += d * d;
    }
    s = std::sqrt(s);
    return s > 0 ? float(s) : 1.0f;
}
