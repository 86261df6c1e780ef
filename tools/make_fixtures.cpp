// make_fixtures - writes the synthetic glTF test fixtures of tests/assets/synthetic/.
//
//   build/make_fixtures OUTDIR      (the committed files are `make_fixtures tests/assets/synthetic`)
//
// Each fixture is small and exercises one thing the loader and the skinning must get
// right; see tests/assets/ASSETS.md for the list. The output is deterministic (the
// tests regenerate it and compare bytes). OUTDIR/malformed/ gets files that must be
// rejected with an error, never a crash.
//
// Links build/gltf_model.o for tinygltf's implementation (the one copy of it).
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Weverything"
#elif defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#define TINYGLTF_NO_STB_IMAGE
#define TINYGLTF_NO_STB_IMAGE_WRITE
#define TINYGLTF_NO_EXTERNAL_IMAGE
#include <tiny_gltf.h>
#if defined(__clang__)
#pragma clang diagnostic pop
#elif defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace {

const double kPi = 3.14159265358979323846;

// ---------------------------------------------------------------- maths (double)

struct V3 {
    double x, y, z;
};
struct Q {
    double x, y, z, w;
};
struct M4 {
    double m[16];  // column-major
};

Q qid() { return Q{0, 0, 0, 1}; }

Q axis_angle(V3 a, double degrees) {
    double n = std::sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
    double h = degrees * kPi / 360.0, s = std::sin(h) / n;
    return Q{a.x * s, a.y * s, a.z * s, std::cos(h)};
}

Q qmul(Q a, Q b) {
    return Q{a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
             a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

M4 identity() {
    M4 r{};
    r.m[0] = r.m[5] = r.m[10] = r.m[15] = 1;
    return r;
}

M4 mul(const M4 &a, const M4 &b) {
    M4 r{};
    for (int c = 0; c < 4; ++c)
        for (int row = 0; row < 4; ++row)
            for (int k = 0; k < 4; ++k) r.m[c * 4 + row] += a.m[k * 4 + row] * b.m[c * 4 + k];
    return r;
}

M4 trs(V3 t, Q q, V3 s) {
    M4 r = identity();
    double x = q.x, y = q.y, z = q.z, w = q.w;
    r.m[0] = (1 - 2 * (y * y + z * z)) * s.x;
    r.m[1] = 2 * (x * y + z * w) * s.x;
    r.m[2] = 2 * (x * z - y * w) * s.x;
    r.m[4] = 2 * (x * y - z * w) * s.y;
    r.m[5] = (1 - 2 * (x * x + z * z)) * s.y;
    r.m[6] = 2 * (y * z + x * w) * s.y;
    r.m[8] = 2 * (x * z + y * w) * s.z;
    r.m[9] = 2 * (y * z - x * w) * s.z;
    r.m[10] = (1 - 2 * (x * x + y * y)) * s.z;
    r.m[12] = t.x;
    r.m[13] = t.y;
    r.m[14] = t.z;
    return r;
}

M4 inverse_affine(const M4 &a) {
    const double *m = a.m;
    double c00 = m[5] * m[10] - m[9] * m[6], c01 = m[9] * m[2] - m[1] * m[10], c02 = m[1] * m[6] - m[5] * m[2];
    double c10 = m[8] * m[6] - m[4] * m[10], c11 = m[0] * m[10] - m[8] * m[2], c12 = m[4] * m[2] - m[0] * m[6];
    double c20 = m[4] * m[9] - m[8] * m[5], c21 = m[8] * m[1] - m[0] * m[9], c22 = m[0] * m[5] - m[4] * m[1];
    double det = m[0] * c00 + m[4] * c01 + m[8] * c02;
    M4 r = identity();
    // r's 3x3 (column-major) = adj / det
    r.m[0] = c00 / det;
    r.m[1] = c01 / det;
    r.m[2] = c02 / det;
    r.m[4] = c10 / det;
    r.m[5] = c11 / det;
    r.m[6] = c12 / det;
    r.m[8] = c20 / det;
    r.m[9] = c21 / det;
    r.m[10] = c22 / det;
    for (int row = 0; row < 3; ++row)
        r.m[12 + row] = -(r.m[row] * m[12] + r.m[4 + row] * m[13] + r.m[8 + row] * m[14]);
    return r;
}

// ---------------------------------------------------------------- model builder

struct Builder {
    tinygltf::Model m;

    Builder() {
        m.asset.version = "2.0";
        m.asset.generator = "gpuskin tools/make_fixtures";
        m.buffers.resize(1);
        m.scenes.resize(1);
        m.defaultScene = 0;
    }

    std::vector<unsigned char> &bytes() { return m.buffers[0].data; }

    int view(const void *data, size_t n, size_t stride = 0, int target = 0) {
        while (bytes().size() % 4) bytes().push_back(0);
        tinygltf::BufferView bv;
        bv.buffer = 0;
        bv.byteOffset = bytes().size();
        bv.byteLength = n;
        bv.byteStride = stride;
        bv.target = target;
        const unsigned char *p = static_cast<const unsigned char *>(data);
        bytes().insert(bytes().end(), p, p + n);
        m.bufferViews.push_back(bv);
        return int(m.bufferViews.size() - 1);
    }

    int accessor(int view, size_t offset, int ctype, int type, size_t count, bool normalized = false) {
        tinygltf::Accessor a;
        a.bufferView = view;
        a.byteOffset = offset;
        a.componentType = ctype;
        a.type = type;
        a.count = count;
        a.normalized = normalized;
        m.accessors.push_back(a);
        return int(m.accessors.size() - 1);
    }

    static int comps(int type) {
        return type == TINYGLTF_TYPE_SCALAR ? 1
               : type == TINYGLTF_TYPE_VEC3 ? 3
               : type == TINYGLTF_TYPE_VEC4 ? 4
               : type == TINYGLTF_TYPE_MAT4 ? 16
                                            : 2;
    }

    int f32(const std::vector<float> &v, int type, int target = 0, bool minmax = false) {
        int vw = view(v.data(), v.size() * 4, 0, target);
        size_t n = size_t(comps(type));
        int a = accessor(vw, 0, TINYGLTF_COMPONENT_TYPE_FLOAT, type, v.size() / n);
        if (minmax) set_minmax(a, v, n);
        return a;
    }

    void set_minmax(int a, const std::vector<float> &v, size_t n) {
        std::vector<double> mn(n, 1e30), mx(n, -1e30);
        for (size_t i = 0; i < v.size(); ++i) {
            mn[i % n] = std::min(mn[i % n], double(v[i]));
            mx[i % n] = std::max(mx[i % n], double(v[i]));
        }
        m.accessors[size_t(a)].minValues = mn;
        m.accessors[size_t(a)].maxValues = mx;
    }

    template <class T>
    int ints(const std::vector<T> &v, int ctype, int type, bool normalized = false, int target = 0) {
        int vw = view(v.data(), v.size() * sizeof(T), 0, target);
        return accessor(vw, 0, ctype, type, v.size() / size_t(comps(type)), normalized);
    }

    int node(const std::string &name, V3 t = {0, 0, 0}, Q r = {0, 0, 0, 1}, V3 s = {1, 1, 1}) {
        tinygltf::Node n;
        n.name = name;
        if (t.x != 0 || t.y != 0 || t.z != 0) n.translation = {t.x, t.y, t.z};
        if (r.x != 0 || r.y != 0 || r.z != 0 || r.w != 1) n.rotation = {r.x, r.y, r.z, r.w};
        if (s.x != 1 || s.y != 1 || s.z != 1) n.scale = {s.x, s.y, s.z};
        m.nodes.push_back(n);
        return int(m.nodes.size() - 1);
    }

    void child(int parent, int c) { m.nodes[size_t(parent)].children.push_back(c); }
    void root(int n) { m.scenes[0].nodes.push_back(n); }

    M4 local(int n) const {
        const tinygltf::Node &nd = m.nodes[size_t(n)];
        if (nd.matrix.size() == 16) {
            M4 r;
            for (int i = 0; i < 16; ++i) r.m[i] = nd.matrix[size_t(i)];
            return r;
        }
        V3 t{0, 0, 0}, s{1, 1, 1};
        Q q = qid();
        if (nd.translation.size() == 3) t = {nd.translation[0], nd.translation[1], nd.translation[2]};
        if (nd.rotation.size() == 4) q = {nd.rotation[0], nd.rotation[1], nd.rotation[2], nd.rotation[3]};
        if (nd.scale.size() == 3) s = {nd.scale[0], nd.scale[1], nd.scale[2]};
        return trs(t, q, s);
    }

    int parent_of(int n) const {
        for (size_t i = 0; i < m.nodes.size(); ++i)
            for (int c : m.nodes[i].children)
                if (c == n) return int(i);
        return -1;
    }

    M4 global(int n) const {
        M4 g = local(n);
        for (int p = parent_of(n); p != -1; p = parent_of(p)) g = mul(local(p), g);
        return g;
    }

    // A skin over `joints`; inverse binds from the joints' current (bind) globals unless
    // `ibm` is given; `with_ibm` false leaves inverseBindMatrices out.
    int skin(const std::string &name, const std::vector<int> &joints, bool with_ibm = true,
             const std::vector<M4> *ibm = nullptr) {
        tinygltf::Skin s;
        s.name = name;
        s.joints = joints;
        if (with_ibm) {
            std::vector<float> v;
            for (size_t j = 0; j < joints.size(); ++j) {
                M4 inv = ibm ? (*ibm)[j] : inverse_affine(global(joints[j]));
                for (int i = 0; i < 16; ++i) v.push_back(float(inv.m[i]));
            }
            s.inverseBindMatrices = f32(v, TINYGLTF_TYPE_MAT4);
        }
        m.skins.push_back(s);
        return int(m.skins.size() - 1);
    }

    int mesh(const std::string &name, const std::vector<tinygltf::Primitive> &prims) {
        tinygltf::Mesh me;
        me.name = name;
        me.primitives = prims;
        m.meshes.push_back(me);
        return int(m.meshes.size() - 1);
    }

    int animation(const std::string &name) {
        tinygltf::Animation a;
        a.name = name;
        m.animations.push_back(a);
        return int(m.animations.size() - 1);
    }

    // Adds a sampler + channel. values: per key 3 or 4 floats (x3 for CUBICSPLINE).
    void channel(int anim, int node, const std::string &path, const std::string &interp,
                 const std::vector<float> &times, const std::vector<float> &values) {
        tinygltf::AnimationSampler s;
        s.input = f32(times, TINYGLTF_TYPE_SCALAR, 0, true);
        s.output = f32(values, path == "rotation" ? TINYGLTF_TYPE_VEC4 : TINYGLTF_TYPE_VEC3);
        s.interpolation = interp;
        tinygltf::Animation &a = m.animations[size_t(anim)];
        a.samplers.push_back(s);
        tinygltf::AnimationChannel c;
        c.sampler = int(a.samplers.size() - 1);
        c.target_node = node;
        c.target_path = path;
        a.channels.push_back(c);
    }
};

std::vector<float> qv(std::initializer_list<Q> qs) {
    std::vector<float> v;
    for (Q q : qs) {
        v.push_back(float(q.x));
        v.push_back(float(q.y));
        v.push_back(float(q.z));
        v.push_back(float(q.w));
    }
    return v;
}

std::vector<float> vv(std::initializer_list<V3> vs) {
    std::vector<float> v;
    for (V3 a : vs) {
        v.push_back(float(a.x));
        v.push_back(float(a.y));
        v.push_back(float(a.z));
    }
    return v;
}

// ---------------------------------------------------------------- geometry

// A square tube along +y: rings of 4 vertices, outward normals, tangents along +y.
struct Geometry {
    std::vector<float> pos, nrm, tan;
    std::vector<uint32_t> idx;
    size_t vertex_count() const { return pos.size() / 3; }
    double y(size_t v) const { return pos[v * 3 + 1]; }
};

Geometry tube(double y0, double y1, int rings, double half, double x_offset = 0) {
    Geometry g;
    const double cx[4] = {1, -1, -1, 1}, cz[4] = {1, 1, -1, -1};
    for (int r = 0; r < rings; ++r) {
        double y = y0 + (y1 - y0) * r / (rings - 1);
        for (int k = 0; k < 4; ++k) {
            g.pos.insert(g.pos.end(), {float(x_offset + cx[k] * half), float(y), float(cz[k] * half)});
            double s = 1 / std::sqrt(2.0);
            g.nrm.insert(g.nrm.end(), {float(cx[k] * s), 0.f, float(cz[k] * s)});
            g.tan.insert(g.tan.end(), {0.f, 1.f, 0.f, k % 2 ? -1.f : 1.f});
        }
    }
    for (int r = 0; r + 1 < rings; ++r)
        for (int k = 0; k < 4; ++k) {
            uint32_t a = uint32_t(r * 4 + k), b = uint32_t(r * 4 + (k + 1) % 4), c = a + 4, d = b + 4;
            g.idx.insert(g.idx.end(), {a, b, d, a, d, c});
        }
    return g;
}

// Influences of one vertex: (joint, weight) pairs, at most 8.
using Influences = std::vector<std::pair<int, double>>;

// Two-joint linear blend along a chain of joints spaced `spacing` apart from y = 0.
Influences chain_weights(double y, int joints, double spacing) {
    double s = y / spacing;
    int k = int(std::floor(s));
    if (k >= joints - 1) return {{joints - 1, 1.0}};
    if (k < 0) return {{0, 1.0}};
    double f = s - k;
    if (f == 0) return {{k, 1.0}};
    return {{k, 1.0 - f}, {k + 1, f}};
}

enum class JointType { U8, U16 };
enum class WeightType { F32, U8N, U16N };

struct SkinAttrs {
    JointType jt = JointType::U16;
    WeightType wt = WeightType::F32;
    int sets = 1;
    int garbage_joint = 0;  // joint index written into zero-weight slots
};

// Quantises weights to a normalised integer type so they sum exactly to `one`.
std::vector<uint32_t> quantise(const std::vector<double> &w, uint32_t one) {
    std::vector<uint32_t> q(w.size());
    uint32_t sum = 0;
    size_t big = 0;
    for (size_t i = 0; i < w.size(); ++i) {
        q[i] = uint32_t(std::lround(w[i] * one));
        sum += q[i];
        if (w[i] > w[big]) big = i;
    }
    q[big] = q[big] + one - sum;
    return q;
}

// JOINTS_n / WEIGHTS_n for every vertex; returns the attribute map entries.
void add_influences(Builder &b, tinygltf::Primitive &p, const std::vector<Influences> &infl, const SkinAttrs &sa) {
    size_t vc = infl.size();
    for (int s = 0; s < sa.sets; ++s) {
        std::vector<uint32_t> j(vc * 4, uint32_t(sa.garbage_joint));
        std::vector<double> w(vc * 4, 0.0);
        for (size_t v = 0; v < vc; ++v) {
            // all weights of the vertex, quantised over the whole vertex
            std::vector<double> all(size_t(sa.sets) * 4, 0.0);
            std::vector<int> joints(size_t(sa.sets) * 4, sa.garbage_joint);
            for (size_t k = 0; k < infl[v].size() && k < all.size(); ++k) {
                all[k] = infl[v][k].second;
                joints[k] = infl[v][k].first;
            }
            for (int k = 0; k < 4; ++k) {
                w[v * 4 + size_t(k)] = all[size_t(s * 4 + k)];
                j[v * 4 + size_t(k)] = uint32_t(joints[size_t(s * 4 + k)]);
            }
        }
        std::string js = "JOINTS_" + std::to_string(s), ws = "WEIGHTS_" + std::to_string(s);
        if (sa.jt == JointType::U8) {
            std::vector<uint8_t> v(j.begin(), j.end());
            p.attributes[js] = b.ints(v, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_TYPE_VEC4);
        } else {
            std::vector<uint16_t> v(j.begin(), j.end());
            p.attributes[js] = b.ints(v, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT, TINYGLTF_TYPE_VEC4);
        }
        if (sa.wt == WeightType::F32) {
            std::vector<float> v(w.begin(), w.end());
            p.attributes[ws] = b.f32(v, TINYGLTF_TYPE_VEC4);
        } else {
            // quantise per vertex across all sets: recompute from the full influence list
            uint32_t one = sa.wt == WeightType::U8N ? 255u : 65535u;
            std::vector<uint32_t> qall(vc * 4);
            for (size_t v = 0; v < vc; ++v) {
                std::vector<double> all(size_t(sa.sets) * 4, 0.0);
                for (size_t k = 0; k < infl[v].size() && k < all.size(); ++k) all[k] = infl[v][k].second;
                std::vector<uint32_t> q = quantise(all, one);
                for (int k = 0; k < 4; ++k) qall[v * 4 + size_t(k)] = q[size_t(s * 4 + k)];
            }
            if (sa.wt == WeightType::U8N) {
                std::vector<uint8_t> v(qall.begin(), qall.end());
                p.attributes[ws] = b.ints(v, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_TYPE_VEC4, true);
            } else {
                std::vector<uint16_t> v(qall.begin(), qall.end());
                p.attributes[ws] = b.ints(v, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT, TINYGLTF_TYPE_VEC4, true);
            }
        }
    }
}

enum class IndexType { None, U8, U16, U32 };

tinygltf::Primitive primitive(Builder &b, const Geometry &g, const std::vector<Influences> &infl,
                              const SkinAttrs &sa, IndexType it = IndexType::U16, bool normals = true,
                              bool tangents = false) {
    tinygltf::Primitive p;
    p.mode = TINYGLTF_MODE_TRIANGLES;
    p.attributes["POSITION"] = b.f32(g.pos, TINYGLTF_TYPE_VEC3, TINYGLTF_TARGET_ARRAY_BUFFER, true);
    if (normals) p.attributes["NORMAL"] = b.f32(g.nrm, TINYGLTF_TYPE_VEC3, TINYGLTF_TARGET_ARRAY_BUFFER);
    if (tangents) p.attributes["TANGENT"] = b.f32(g.tan, TINYGLTF_TYPE_VEC4, TINYGLTF_TARGET_ARRAY_BUFFER);
    add_influences(b, p, infl, sa);
    const int E = TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER;
    if (it == IndexType::None)
        p.indices = -1;
    else if (it == IndexType::U8)
        p.indices = b.ints(std::vector<uint8_t>(g.idx.begin(), g.idx.end()), TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE,
                           TINYGLTF_TYPE_SCALAR, false, E);
    else if (it == IndexType::U16)
        p.indices = b.ints(std::vector<uint16_t>(g.idx.begin(), g.idx.end()), TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
                           TINYGLTF_TYPE_SCALAR, false, E);
    else
        p.indices = b.ints(g.idx, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT, TINYGLTF_TYPE_SCALAR, false, E);
    return p;
}

std::vector<Influences> chain_influences(const Geometry &g, int joints, double spacing) {
    std::vector<Influences> r;
    for (size_t v = 0; v < g.vertex_count(); ++v) r.push_back(chain_weights(g.y(v), joints, spacing));
    return r;
}

// A chain of `n` joints along +y, `spacing` apart, under `parent` (-1: scene root).
std::vector<int> chain(Builder &b, int n, double spacing, const std::string &prefix = "joint", int parent = -1,
                       V3 root_t = {0, 0, 0}) {
    std::vector<int> j;
    for (int k = 0; k < n; ++k) {
        int nd = b.node(prefix + std::to_string(k), k == 0 ? root_t : V3{0, spacing, 0});
        if (k == 0) {
            if (parent < 0)
                b.root(nd);
            else
                b.child(parent, nd);
        } else {
            b.child(j.back(), nd);
        }
        j.push_back(nd);
    }
    return j;
}

int skinned_node(Builder &b, const std::string &name, int mesh, int skin, V3 t = {0, 0, 0}, Q r = {0, 0, 0, 1}) {
    int n = b.node(name, t, r);
    b.m.nodes[size_t(n)].mesh = mesh;
    b.m.nodes[size_t(n)].skin = skin;
    return n;
}

// ---------------------------------------------------------------- output

std::string g_out;
int g_errors = 0;

void save(const tinygltf::Model &m, const std::string &name) {
    bool glb = name.size() > 4 && name.compare(name.size() - 4, 4, ".glb") == 0;
    tinygltf::TinyGLTF w;
    std::string path = g_out + "/" + name;
    if (!w.WriteGltfSceneToFile(&m, path, true, true, true, glb)) {
        std::fprintf(stderr, "make_fixtures: cannot write %s\n", path.c_str());
        ++g_errors;
    }
}

void save_bytes(const std::vector<char> &bytes, const std::string &name) {
    std::string path = g_out + "/" + name;
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), std::streamsize(bytes.size()));
    if (!f) {
        std::fprintf(stderr, "make_fixtures: cannot write %s\n", path.c_str());
        ++g_errors;
    }
}

std::vector<char> read_bytes(const std::string &name) {
    std::ifstream f(g_out + "/" + name, std::ios::binary);
    return std::vector<char>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// ---------------------------------------------------------------- fixtures

// A 3-joint chain (spacing 1) skinning a tube from y = 0 to 3: the base of most fixtures.
struct Chain3 {
    Builder b;
    std::vector<int> joints;
    int mesh = -1, skin = -1, node = -1;
};

Chain3 chain3(const SkinAttrs &sa = SkinAttrs(), IndexType it = IndexType::U16, bool normals = true) {
    Chain3 c;
    c.node = skinned_node(c.b, "body", -1, -1);  // node 0; mesh and skin set below
    c.b.root(c.node);
    c.joints = chain(c.b, 3, 1.0);
    Geometry g = tube(0, 3, 7, 0.25);
    c.mesh = c.b.mesh("tube", {primitive(c.b, g, chain_influences(g, 3, 1.0), sa, it, normals)});
    c.skin = c.b.skin("chain", c.joints);
    c.b.m.nodes[size_t(c.node)].mesh = c.mesh;
    c.b.m.nodes[size_t(c.node)].skin = c.skin;
    return c;
}

void cubicspline_rotation() {
    Chain3 c = chain3(SkinAttrs(), IndexType::U8);
    int a = c.b.animation("cubic");
    Q k0 = qid(), k1 = axis_angle({0, 0, 1}, 60), k2 = qmul(axis_angle({1, 0, 0}, 45), axis_angle({0, 0, 1}, 30));
    // in-tangent, value, out-tangent per key (the first in- and last out-tangent are unused)
    c.b.channel(a, c.joints[1], "rotation", "CUBICSPLINE", {0.f, 1.f, 2.5f},
                qv({Q{0, 0, 0, 0}, k0, Q{0.1, 0, 0.3, 0}, Q{0, 0.2, 0.2, -0.1}, k1, Q{0.1, -0.1, 0, 0.05}, Q{0.2, 0, 0, 0},
                    k2, Q{0, 0, 0, 0}}));
    c.b.channel(a, c.joints[2], "translation", "CUBICSPLINE", {0.f, 1.25f, 2.5f},
                vv({V3{0, 0, 0}, V3{0, 1, 0}, V3{1, 0, 0}, V3{-0.5, 0.5, 0}, V3{0.5, 1.2, 0}, V3{0.2, 0, 0.4},
                    V3{0, 0, 1}, V3{0, 0.8, 0.3}, V3{0, 0, 0}}));
    save(c.b.m, "cubicspline_rotation.gltf");
}

void step_translation() {
    Chain3 c = chain3(SkinAttrs(), IndexType::U32);
    int a = c.b.animation("step");
    c.b.channel(a, c.joints[0], "translation", "STEP", {0.f, 0.5f, 1.f}, vv({{0, 0, 0}, {1, 0, 0}, {1, 2, 0}}));
    c.b.channel(a, c.joints[2], "rotation", "STEP", {0.f, 0.75f}, qv({qid(), axis_angle({0, 0, 1}, 45)}));
    c.b.channel(a, c.joints[1], "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({0, 0, 1}, 90)}));
    save(c.b.m, "step_translation.gltf");
}

void scale_animation() {
    Chain3 c = chain3();
    int a = c.b.animation("scale");
    c.b.channel(a, c.joints[1], "scale", "LINEAR", {0.f, 1.f, 2.f}, vv({{1, 1, 1}, {2, 0.5, 1}, {0.5, 1.5, 2}}));
    c.b.channel(a, c.joints[0], "scale", "LINEAR", {0.f, 2.f}, vv({{1, 1, 1}, {1.5, 1.5, 1.5}}));
    int r = c.b.animation("twist");
    c.b.channel(r, c.joints[1], "rotation", "LINEAR", {0.f, 1.f, 2.f},
                qv({qid(), axis_angle({0, 1, 0}, 90), axis_angle({0, 1, 0}, 180)}));
    save(c.b.m, "scale_animation.gltf");
}

void eight_influences() {
    Builder b;
    int body = skinned_node(b, "body", -1, -1);
    b.root(body);
    std::vector<int> joints = chain(b, 8, 0.5);
    Geometry g = tube(0, 3.5, 15, 0.2);
    std::vector<Influences> infl;
    for (size_t v = 0; v < g.vertex_count(); ++v) {
        Influences in;
        double sum = 0;
        for (int k = 0; k < 8; ++k) {
            double d = (g.y(v) - 0.5 * k) / 0.6;
            double w = std::exp(-d * d) + 0.01;
            in.push_back({k, w});
            sum += w;
        }
        for (auto &p : in) p.second /= sum;
        // order varies per vertex: set 0 does not always hold the heaviest influences
        std::rotate(in.begin(), in.begin() + long(v % 8), in.end());
        infl.push_back(in);
    }
    SkinAttrs sa;
    sa.sets = 2;
    int mesh = b.mesh("tube8", {primitive(b, g, infl, sa, IndexType::U16, true, true)});
    int skin = b.skin("chain8", joints);
    b.m.nodes[size_t(body)].mesh = mesh;
    b.m.nodes[size_t(body)].skin = skin;
    int a = b.animation("wave");
    for (int k = 1; k < 8; k += 2)
        b.channel(a, joints[size_t(k)], "rotation", "LINEAR", {0.f, 1.f, 2.f},
                  qv({qid(), axis_angle({k % 4 == 1 ? 0.0 : 1.0, 0, 1}, 25.0 + 5 * k), axis_angle({1, 0, 0}, -20)}));
    save(b.m, "eight_influences.gltf");
}

void u8_joints() {
    SkinAttrs sa;
    sa.jt = JointType::U8;
    sa.garbage_joint = 200;  // zero-weight slots name a joint that does not exist: allowed
    Chain3 c = chain3(sa);
    int a = c.b.animation("bend");
    c.b.channel(a, c.joints[1], "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({1, 0, 1}, 70)}));
    save(c.b.m, "u8_joints.gltf");
}

void weights_normalized(WeightType wt, JointType jt, const char *name) {
    SkinAttrs sa;
    sa.wt = wt;
    sa.jt = jt;
    Chain3 c = chain3(sa);
    int a = c.b.animation("bend");
    c.b.channel(a, c.joints[1], "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({0, 0, 1}, -80)}));
    c.b.channel(a, c.joints[2], "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({1, 0, 0}, 40)}));
    save(c.b.m, name);
}

void mirrored_joint() {
    Builder b;
    int body = skinned_node(b, "body", -1, -1);
    b.root(body);
    int j0 = b.node("root");
    b.root(j0);
    int j1 = b.node("mirror", {0, 1, 0}, qid(), {-1, 1, 1});
    b.child(j0, j1);
    int j2 = b.node("tip", {0.3, 1, 0});
    b.child(j1, j2);
    Geometry g = tube(0, 3, 7, 0.25, 0.2);
    int mesh = b.mesh("tube", {primitive(b, g, chain_influences(g, 3, 1.0), SkinAttrs(), IndexType::U16, true, true)});
    int skin = b.skin("mirrored", {j0, j1, j2});
    b.m.nodes[size_t(body)].mesh = mesh;
    b.m.nodes[size_t(body)].skin = skin;
    int a = b.animation("swing");
    b.channel(a, j1, "rotation", "LINEAR", {0.f, 1.f, 2.f},
              qv({qid(), axis_angle({0, 0, 1}, 50), axis_angle({0, 1, 1}, -60)}));
    b.channel(a, j2, "translation", "LINEAR", {0.f, 2.f}, vv({{0.3, 1, 0}, {0.6, 0.8, 0.2}}));
    save(b.m, "mirrored_joint.gltf");
}

void shared_mesh_two_skins() {
    Builder b;
    // node 0: skinned by skin 0, with a transform of its own that must be ignored
    int body_a = skinned_node(b, "body_a", -1, -1, {5, 0, 0}, axis_angle({0, 1, 0}, 90));
    b.root(body_a);
    std::vector<int> a = chain(b, 2, 1.0, "a");
    int body_b = skinned_node(b, "body_b", -1, -1);
    b.root(body_b);
    std::vector<int> bj = chain(b, 3, 1.0, "b", -1, {3, 0, 0});
    b.m.nodes[size_t(bj[0])].rotation = {0, std::sin(kPi / 12), 0, std::cos(kPi / 12)};
    Geometry g = tube(0, 2, 5, 0.25);
    int mesh = b.mesh("shared", {primitive(b, g, chain_influences(g, 2, 1.0), SkinAttrs())});
    int skin_a = b.skin("a", a);
    // skin b binds the same mesh (authored at the origin) to joints that stand elsewhere
    std::vector<M4> ibm_b = {inverse_affine(identity()), inverse_affine(trs({0, 1, 0}, qid(), {1, 1, 1})),
                             inverse_affine(trs({0, 2, 0}, qid(), {1, 1, 1}))};
    int skin_b = b.skin("b", bj, true, &ibm_b);
    b.m.nodes[size_t(body_a)].mesh = mesh;
    b.m.nodes[size_t(body_a)].skin = skin_a;
    b.m.nodes[size_t(body_b)].mesh = mesh;
    b.m.nodes[size_t(body_b)].skin = skin_b;
    int plain = b.node("unskinned_copy", {-3, 0, 0});  // the mesh without a skin: not a skinned node
    b.m.nodes[size_t(plain)].mesh = mesh;
    b.root(plain);
    int an = b.animation("both");
    b.channel(an, a[1], "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({0, 0, 1}, 45)}));
    b.channel(an, bj[1], "rotation", "LINEAR", {0.f, 2.f}, qv({qid(), axis_angle({1, 0, 0}, -60)}));
    b.channel(an, bj[2], "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({0, 1, 0}, 30)}));
    b.channel(an, body_a, "translation", "LINEAR", {0.f, 1.f}, vv({{5, 0, 0}, {5, 3, 0}}));  // not a joint
    save(b.m, "shared_mesh_two_skins.gltf");
}

void root_under_transformed_parent() {
    Builder b;
    int zup = b.node("ZUp");  // a `matrix` node, as exporters write the Z-up to Y-up turn
    M4 zm = trs({0, 0, 0}, axis_angle({1, 0, 0}, -90), {1, 1, 1});
    b.m.nodes[size_t(zup)].matrix.assign(zm.m, zm.m + 16);
    b.root(zup);
    int arm = b.node("Armature", {1, 2, 3}, axis_angle({0, 1, 0}, 30), {2, 2, 2});
    b.child(zup, arm);
    int j0 = b.node("hip", {0, 0.5, 0});
    b.child(arm, j0);
    int j1 = b.node("spine");  // a joint given by `matrix`: the loader decomposes it
    M4 m1 = trs({0, 1, 0}, axis_angle({1, 0, 0}, 20), {1, 1.5, 1});
    b.m.nodes[size_t(j1)].matrix.assign(m1.m, m1.m + 16);
    b.child(j0, j1);
    int j2 = b.node("head", {0, 1, 0});
    b.child(j1, j2);
    int body = skinned_node(b, "body", -1, -1, {10, 0, 0}, axis_angle({0, 0, 1}, 45));  // ignored transform
    b.child(arm, body);
    Geometry g = tube(0, 3, 7, 0.25);
    int mesh = b.mesh("tube", {primitive(b, g, chain_influences(g, 3, 1.0), SkinAttrs())});
    // Inverse binds from the joints' globals, which include the ancestors' transforms:
    // a loader that dropped the Armature/ZUp transforms would not give the bind pose back.
    int skin = b.skin("rig", {j0, j1, j2});
    b.m.skins[size_t(skin)].skeleton = j0;
    b.m.nodes[size_t(body)].mesh = mesh;
    b.m.nodes[size_t(body)].skin = skin;
    int a = b.animation("nod");
    b.channel(a, j0, "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({0, 0, 1}, 30)}));
    b.channel(a, j2, "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({1, 0, 0}, -45)}));
    save(b.m, "root_under_transformed_parent.gltf");
}

void no_inverse_bind() {
    Builder b;
    int body = skinned_node(b, "body", -1, -1);
    b.root(body);
    std::vector<int> j = chain(b, 2, 1.0);
    Geometry g = tube(0, 2, 5, 0.25);
    int mesh = b.mesh("tube", {primitive(b, g, chain_influences(g, 2, 1.0), SkinAttrs())});
    int skin = b.skin("no_ibm", j, false);
    b.m.nodes[size_t(body)].mesh = mesh;
    b.m.nodes[size_t(body)].skin = skin;
    int a = b.animation("bend");
    b.channel(a, j[1], "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({0, 0, 1}, 90)}));
    save(b.m, "no_inverse_bind.gltf");
}

void child_before_parent() {
    Builder b;
    int body = skinned_node(b, "body", -1, -1);
    b.root(body);
    // node order leaf, middle, root; skin.joints lists leaf, root, middle
    int leaf = b.node("leaf", {0, 1, 0});
    int mid = b.node("middle", {0, 1, 0}, axis_angle({0, 0, 1}, 10));
    int rt = b.node("root", {0, 0, 0});
    b.child(mid, leaf);
    b.child(rt, mid);
    b.root(rt);
    Geometry g = tube(0, 3, 7, 0.25);
    // chain_weights gives chain order 0 = root, 1 = middle, 2 = leaf; remap to skin order
    std::vector<Influences> infl = chain_influences(g, 3, 1.0);
    const int remap[3] = {1, 2, 0};
    for (Influences &in : infl)
        for (auto &p : in) p.first = remap[p.first];
    int mesh = b.mesh("tube", {primitive(b, g, infl, SkinAttrs())});
    int skin = b.skin("reordered", {leaf, rt, mid});
    b.m.nodes[size_t(body)].mesh = mesh;
    b.m.nodes[size_t(body)].skin = skin;
    int a = b.animation("bend");
    b.channel(a, mid, "rotation", "LINEAR", {0.f, 1.f}, qv({axis_angle({0, 0, 1}, 10), axis_angle({0, 0, 1}, 60)}));
    b.channel(a, leaf, "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({1, 0, 0}, 45)}));
    b.channel(a, rt, "translation", "LINEAR", {0.f, 1.f}, vv({{0, 0, 0}, {0.5, 0, 0}}));
    save(b.m, "child_before_parent.gltf");
}

// Binary; POSITION/NORMAL interleaved (byteStride 24), JOINTS_0 u8 + WEIGHTS_0 normalised
// u8 interleaved (byteStride 8), indices at an accessor byteOffset, a sparse POSITION
// accessor, TANGENT, and a second, non-indexed primitive.
void interleaved_sparse() {
    Builder b;
    int body = skinned_node(b, "body", -1, -1);
    b.root(body);
    std::vector<int> j = chain(b, 2, 1.0);
    Geometry g = tube(0, 2, 5, 0.25);
    size_t vc = g.vertex_count();
    tinygltf::Primitive p0;
    p0.mode = TINYGLTF_MODE_TRIANGLES;
    {
        std::vector<float> inter;
        for (size_t v = 0; v < vc; ++v) {
            inter.insert(inter.end(), g.pos.begin() + long(v * 3), g.pos.begin() + long(v * 3 + 3));
            inter.insert(inter.end(), g.nrm.begin() + long(v * 3), g.nrm.begin() + long(v * 3 + 3));
        }
        int vw = b.view(inter.data(), inter.size() * 4, 24, TINYGLTF_TARGET_ARRAY_BUFFER);
        int pa = b.accessor(vw, 0, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, vc);
        b.set_minmax(pa, g.pos, 3);
        p0.attributes["POSITION"] = pa;
        p0.attributes["NORMAL"] = b.accessor(vw, 12, TINYGLTF_COMPONENT_TYPE_FLOAT, TINYGLTF_TYPE_VEC3, vc);
        // sparse: vertices 1 and 6 pushed outwards
        std::vector<uint16_t> si = {1, 6};
        std::vector<float> sv = {g.pos[3] * 1.5f, g.pos[4], g.pos[5] * 1.5f, g.pos[18] * 1.5f, g.pos[19],
                                 g.pos[20] * 1.5f};
        int iv = b.view(si.data(), si.size() * 2);
        int svw = b.view(sv.data(), sv.size() * 4);
        tinygltf::Accessor &a2 = b.m.accessors[size_t(pa)];
        a2.sparse.isSparse = true;
        a2.sparse.count = 2;
        a2.sparse.indices.bufferView = iv;
        a2.sparse.indices.byteOffset = 0;
        a2.sparse.indices.componentType = TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT;
        a2.sparse.values.bufferView = svw;
        a2.sparse.values.byteOffset = 0;
        std::vector<float> mm(g.pos);
        for (int k = 0; k < 3; ++k) {
            mm[3 + size_t(k)] = sv[size_t(k)];
            mm[18 + size_t(k)] = sv[3 + size_t(k)];
        }
        b.set_minmax(pa, mm, 3);
        p0.attributes["TANGENT"] = b.f32(g.tan, TINYGLTF_TYPE_VEC4, TINYGLTF_TARGET_ARRAY_BUFFER);
        std::vector<uint8_t> jw;
        std::vector<Influences> infl = chain_influences(g, 2, 1.0);
        for (size_t v = 0; v < vc; ++v) {
            std::vector<double> w(4, 0.0);
            uint8_t jj[4] = {0, 0, 0, 0};
            for (size_t k = 0; k < infl[v].size(); ++k) {
                w[k] = infl[v][k].second;
                jj[k] = uint8_t(infl[v][k].first);
            }
            std::vector<uint32_t> q = quantise(w, 255);
            jw.insert(jw.end(), jj, jj + 4);
            for (uint32_t x : q) jw.push_back(uint8_t(x));
        }
        int jv = b.view(jw.data(), jw.size(), 8, TINYGLTF_TARGET_ARRAY_BUFFER);
        p0.attributes["JOINTS_0"] = b.accessor(jv, 0, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_TYPE_VEC4, vc);
        p0.attributes["WEIGHTS_0"] =
            b.accessor(jv, 4, TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE, TINYGLTF_TYPE_VEC4, vc, true);
        std::vector<uint16_t> idx = {0xdead, 0xbeef, 0xf00d};  // 6 bytes before the real indices
        idx.insert(idx.end(), g.idx.begin(), g.idx.end());
        int ivw = b.view(idx.data(), idx.size() * 2, 0, TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
        p0.indices = b.accessor(ivw, 6, TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT, TINYGLTF_TYPE_SCALAR, g.idx.size());
    }
    // primitive 1: two triangles, no indices, no normals
    Geometry q;
    q.pos = {1, 0, 0, 2, 0, 0, 2, 2, 0, 1, 0, 0, 2, 2, 0, 1, 2, 0};
    std::vector<Influences> qi;
    for (size_t v = 0; v < 6; ++v) qi.push_back(chain_weights(q.pos[v * 3 + 1], 2, 1.0));
    tinygltf::Primitive p1 = primitive(b, q, qi, SkinAttrs(), IndexType::None, false);
    int mesh = b.mesh("interleaved", {p0, p1});
    int skin = b.skin("chain", j);
    b.m.nodes[size_t(body)].mesh = mesh;
    b.m.nodes[size_t(body)].skin = skin;
    int a = b.animation("bend");
    b.channel(a, j[1], "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({0, 0, 1}, 60)}));
    b.channel(a, j[0], "translation", "LINEAR", {0.f, 1.f}, vv({{0, 0, 0}, {0, 0, 1}}));
    save(b.m, "interleaved_sparse.glb");
}

// An animation that moves the non-joint "Armature" above the root joint. glTF would
// move the skeleton with it; gpuskin's skeleton keeps root parents fixed, so the loader
// leaves the channel out and counts it (gltf_model_clip.ignored_ancestor_channels).
void animated_ancestor() {
    Builder b;
    int body = skinned_node(b, "body", -1, -1);
    b.root(body);
    int arm = b.node("Armature", {0, 1, 0});
    b.root(arm);
    std::vector<int> j = chain(b, 2, 1.0, "joint", arm);
    Geometry g = tube(0, 2, 5, 0.25);
    int mesh = b.mesh("tube", {primitive(b, g, chain_influences(g, 2, 1.0), SkinAttrs())});
    int skin = b.skin("chain", j);
    b.m.nodes[size_t(body)].mesh = mesh;
    b.m.nodes[size_t(body)].skin = skin;
    int a = b.animation("sway");
    b.channel(a, arm, "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({0, 0, 1}, 30)}));
    b.channel(a, j[1], "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({1, 0, 0}, 30)}));
    save(b.m, "animated_ancestor.gltf");
}

// KHR_mesh_quantization: POSITION as SHORT in centimetres (not normalised), NORMAL as
// normalised BYTE. The skinned node's transform is ignored, so the dequantising scale
// rides in the inverse bind matrices, as gltfpack writes it.
void quantized() {
    Builder b;
    b.m.extensionsUsed = {"KHR_mesh_quantization"};
    b.m.extensionsRequired = {"KHR_mesh_quantization"};
    int body = skinned_node(b, "body", -1, -1);
    b.root(body);
    std::vector<int> j = chain(b, 3, 1.0);
    Geometry g = tube(0, 3, 7, 0.25);
    tinygltf::Primitive p;
    p.mode = TINYGLTF_MODE_TRIANGLES;
    std::vector<int16_t> qp;
    std::vector<int8_t> qn;
    for (float f : g.pos) qp.push_back(int16_t(std::lround(f * 100)));
    for (float f : g.nrm) qn.push_back(int8_t(std::lround(f * 127)));
    // VEC3 of 16-bit values: pad each element to 8 bytes (byteStride 8), as the extension requires
    std::vector<int16_t> qp4;
    std::vector<int8_t> qn_pad;
    for (size_t v = 0; v < g.vertex_count(); ++v) {
        qp4.insert(qp4.end(), {qp[v * 3], qp[v * 3 + 1], qp[v * 3 + 2], 0});
        qn_pad.insert(qn_pad.end(), {qn[v * 3], qn[v * 3 + 1], qn[v * 3 + 2], 0});
    }
    int pv = b.view(qp4.data(), qp4.size() * 2, 8, TINYGLTF_TARGET_ARRAY_BUFFER);
    int pa = b.accessor(pv, 0, TINYGLTF_COMPONENT_TYPE_SHORT, TINYGLTF_TYPE_VEC3, g.vertex_count());
    std::vector<float> mm(qp.begin(), qp.end());
    b.set_minmax(pa, mm, 3);
    p.attributes["POSITION"] = pa;
    int nv = b.view(qn_pad.data(), qn_pad.size(), 4, TINYGLTF_TARGET_ARRAY_BUFFER);
    p.attributes["NORMAL"] = b.accessor(nv, 0, TINYGLTF_COMPONENT_TYPE_BYTE, TINYGLTF_TYPE_VEC3, g.vertex_count(), true);
    add_influences(b, p, chain_influences(g, 3, 1.0), SkinAttrs());
    p.indices = b.ints(std::vector<uint16_t>(g.idx.begin(), g.idx.end()), TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT,
                       TINYGLTF_TYPE_SCALAR, false, TINYGLTF_TARGET_ELEMENT_ARRAY_BUFFER);
    int mesh = b.mesh("tube_quantized", {p});
    std::vector<M4> ibm;
    for (int k = 0; k < 3; ++k) ibm.push_back(mul(inverse_affine(b.global(j[size_t(k)])), trs({0, 0, 0}, qid(), {0.01, 0.01, 0.01})));
    int skin = b.skin("chain", j, true, &ibm);
    b.m.nodes[size_t(body)].mesh = mesh;
    b.m.nodes[size_t(body)].skin = skin;
    int a = b.animation("bend");
    b.channel(a, j[1], "rotation", "LINEAR", {0.f, 1.f}, qv({qid(), axis_angle({0, 0, 1}, 60)}));
    b.channel(a, j[2], "scale", "LINEAR", {0.f, 1.f}, vv({{1, 1, 1}, {1.5, 1, 0.5}}));
    save(b.m, "quantized_positions.gltf");
}

// ---------------------------------------------------------------- malformed

void malformed() {
    std::string dir = "malformed/";
    {  // a valid GLB cut short
        Chain3 c = chain3();
        save(c.b.m, dir + "truncated.glb");
        std::vector<char> bytes = read_bytes(dir + "truncated.glb");
        bytes.resize(bytes.size() * 3 / 5);
        save_bytes(bytes, dir + "truncated.glb");
        save_bytes(std::vector<char>(bytes.begin(), bytes.begin() + 12), dir + "header_only.glb");
    }
    {  // POSITION claims more vertices than its bufferView holds
        Chain3 c = chain3();
        int pa = c.b.m.meshes[0].primitives[0].attributes["POSITION"];
        c.b.m.accessors[size_t(pa)].count += 1000;
        save(c.b.m, dir + "accessor_out_of_bounds.gltf");
    }
    {  // a bufferView that runs past its buffer
        Chain3 c = chain3();
        int na = c.b.m.meshes[0].primitives[0].attributes["NORMAL"];
        c.b.m.bufferViews[size_t(c.b.m.accessors[size_t(na)].bufferView)].byteOffset = c.b.bytes().size() - 8;
        save(c.b.m, dir + "bufferview_out_of_bounds.gltf");
    }
    {  // a weighted influence on joint 7 of a 3-joint skin
        Builder b;
        int body = skinned_node(b, "body", -1, -1);
        b.root(body);
        std::vector<int> j = chain(b, 3, 1.0);
        Geometry g = tube(0, 3, 7, 0.25);
        std::vector<Influences> infl = chain_influences(g, 3, 1.0);
        infl[9] = {{0, 0.5}, {7, 0.5}};
        int mesh = b.mesh("tube", {primitive(b, g, infl, SkinAttrs())});
        b.m.nodes[size_t(body)].mesh = mesh;
        b.m.nodes[size_t(body)].skin = b.skin("chain", j);
        save(b.m, dir + "joint_out_of_range.gltf");
    }
    {  // an index past the vertex count
        Builder b;
        int body = skinned_node(b, "body", -1, -1);
        b.root(body);
        std::vector<int> j = chain(b, 3, 1.0);
        Geometry g = tube(0, 3, 7, 0.25);
        g.idx[5] = 28;
        int mesh = b.mesh("tube", {primitive(b, g, chain_influences(g, 3, 1.0), SkinAttrs())});
        b.m.nodes[size_t(body)].mesh = mesh;
        b.m.nodes[size_t(body)].skin = b.skin("chain", j);
        save(b.m, dir + "index_out_of_range.gltf");
    }
    {  // a cycle in the node hierarchy
        Chain3 c = chain3();
        c.b.child(c.joints[2], c.joints[0]);
        save(c.b.m, dir + "node_cycle.gltf");
    }
    {  // a skin joint that names no node
        Chain3 c = chain3();
        c.b.m.skins[0].joints[1] = 99;
        save(c.b.m, dir + "skin_joint_missing_node.gltf");
    }
    {  // key times that go backwards
        Chain3 c = chain3();
        int a = c.b.animation("backwards");
        c.b.channel(a, c.joints[1], "rotation", "LINEAR", {0.f, 1.f, 0.5f},
                    qv({qid(), axis_angle({0, 0, 1}, 10), axis_angle({0, 0, 1}, 20)}));
        save(c.b.m, dir + "keys_not_increasing.gltf");
    }
    {  // a CUBICSPLINE sampler with one value per key instead of three
        Chain3 c = chain3();
        int a = c.b.animation("short");
        c.b.channel(a, c.joints[1], "rotation", "CUBICSPLINE", {0.f, 1.f}, qv({qid(), axis_angle({0, 0, 1}, 10)}));
        save(c.b.m, dir + "cubicspline_short_output.gltf");
    }
    save_bytes(std::vector<char>{'{', '"', 'a', 's', 's', 'e', 't', '"', ':', ' ', '{', '"', 'v', 'e', 'r'},
               dir + "not_json.gltf");
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: make_fixtures OUTDIR\n");
        return 2;
    }
    g_out = argv[1];
    mkdir(g_out.c_str(), 0755);
    mkdir((g_out + "/malformed").c_str(), 0755);
    cubicspline_rotation();
    step_translation();
    scale_animation();
    eight_influences();
    u8_joints();
    weights_normalized(WeightType::U8N, JointType::U16, "weights_u8_normalized.gltf");
    weights_normalized(WeightType::U16N, JointType::U8, "weights_u16_normalized.gltf");
    mirrored_joint();
    shared_mesh_two_skins();
    root_under_transformed_parent();
    no_inverse_bind();
    child_before_parent();
    interleaved_sparse();
    quantized();
    animated_ancestor();
    malformed();
    if (g_errors) return 1;
    std::printf("make_fixtures: wrote the fixtures to %s\n", g_out.c_str());
    return 0;
}
