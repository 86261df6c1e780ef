// test_gltf - the glTF adapter (tools/gltf_model.*) and the `gpuskin skin` CLI.
//
//   GPUSKIN_CLI=build/gpuskin build/test_gltf [filter]      (run from the repository root)
//
// - Every fixture loads (or, for synthetic/malformed/, fails with a message).
// - What the loader builds: parents, root_parent_globals, decomposed matrices, joint
//   types, sparse accessors, shared meshes, clip channels.
// - Clip sampling gives the keyed values at key times (CUBICSPLINE, STEP) and glTF's
//   Hermite spline between them.
// - The CLI's JSON for SimpleSkin is checked against values computed by hand, and for
//   every model against an independent skinning written here: tinygltf read directly,
//   the whole node hierarchy evaluated in double precision, glTF's sampler rules, LBS.
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

#define GPUSKIN_NO_VULKAN
#include "gpuskin.h"
#include "tests/testing.h"
#include "tools/gltf_model.h"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

const char *kAssets = "tests/assets/";
const char *kSynth = "tests/assets/synthetic/";

const char *kValid[] = {"SimpleSkin.gltf",
                        "RiggedSimple.glb",
                        "CesiumMan.glb",
                        "synthetic/cubicspline_rotation.gltf",
                        "synthetic/step_translation.gltf",
                        "synthetic/scale_animation.gltf",
                        "synthetic/eight_influences.gltf",
                        "synthetic/u8_joints.gltf",
                        "synthetic/weights_u8_normalized.gltf",
                        "synthetic/weights_u16_normalized.gltf",
                        "synthetic/mirrored_joint.gltf",
                        "synthetic/shared_mesh_two_skins.gltf",
                        "synthetic/root_under_transformed_parent.gltf",
                        "synthetic/no_inverse_bind.gltf",
                        "synthetic/child_before_parent.gltf",
                        "synthetic/interleaved_sparse.glb",
                        "synthetic/quantized_positions.gltf"};

const char *kMalformed[] = {"truncated.glb",
                            "header_only.glb",
                            "accessor_out_of_bounds.gltf",
                            "bufferview_out_of_bounds.gltf",
                            "joint_out_of_range.gltf",
                            "index_out_of_range.gltf",
                            "node_cycle.gltf",
                            "skin_joint_missing_node.gltf",
                            "keys_not_increasing.gltf",
                            "cubicspline_short_output.gltf",
                            "not_json.gltf"};

struct Model {
    gltf_model *m = nullptr;
    char err[1024] = {0};
    explicit Model(const std::string &path) {
        if (gltf_model_load(path.c_str(), &m, err, sizeof err) != 0)
            std::fprintf(stderr, "  load %s: %s\n", path.c_str(), err);
    }
    ~Model() { gltf_model_free(m); }
};

// ---------------------------------------------------------------- double maths

struct M4 {
    double m[16];
};

M4 ident() {
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

M4 trs(const double t[3], const double q0[4], const double s[3]) {
    double n = std::sqrt(q0[0] * q0[0] + q0[1] * q0[1] + q0[2] * q0[2] + q0[3] * q0[3]);
    double x = q0[0] / n, y = q0[1] / n, z = q0[2] / n, w = q0[3] / n;
    M4 r = ident();
    r.m[0] = (1 - 2 * (y * y + z * z)) * s[0];
    r.m[1] = 2 * (x * y + z * w) * s[0];
    r.m[2] = 2 * (x * z - y * w) * s[0];
    r.m[4] = 2 * (x * y - z * w) * s[1];
    r.m[5] = (1 - 2 * (x * x + z * z)) * s[1];
    r.m[6] = 2 * (y * z + x * w) * s[1];
    r.m[8] = 2 * (x * z + y * w) * s[2];
    r.m[9] = 2 * (y * z - x * w) * s[2];
    r.m[10] = (1 - 2 * (x * x + y * y)) * s[2];
    r.m[12] = t[0];
    r.m[13] = t[1];
    r.m[14] = t[2];
    return r;
}

void axis_angle(double ax, double ay, double az, double deg, double q[4]) {
    double n = std::sqrt(ax * ax + ay * ay + az * az), h = deg * M_PI / 360.0;
    q[0] = ax / n * std::sin(h);
    q[1] = ay / n * std::sin(h);
    q[2] = az / n * std::sin(h);
    q[3] = std::cos(h);
}

// ---------------------------------------------------------------- independent reference

// Accessor -> doubles, tinygltf's own helpers for sizes; the fixtures are valid.
std::vector<double> read_acc(const tinygltf::Model &m, int idx) {
    const tinygltf::Accessor &a = m.accessors[size_t(idx)];
    int nc = tinygltf::GetNumComponentsInType(uint32_t(a.type));
    int cs = tinygltf::GetComponentSizeInBytes(uint32_t(a.componentType));
    std::vector<double> out(a.count * size_t(nc), 0.0);
    auto conv = [&](const unsigned char *p, int ct) -> double {
        switch (ct) {
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: return a.normalized ? p[0] / 255.0 : p[0];
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
            uint16_t v;
            std::memcpy(&v, p, 2);
            return a.normalized ? v / 65535.0 : v;
        }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: {
            uint32_t v;
            std::memcpy(&v, p, 4);
            return v;
        }
        case TINYGLTF_COMPONENT_TYPE_BYTE: return a.normalized ? std::max(int8_t(p[0]) / 127.0, -1.0) : int8_t(p[0]);
        case TINYGLTF_COMPONENT_TYPE_SHORT: {
            int16_t v;
            std::memcpy(&v, p, 2);
            return a.normalized ? std::max(v / 32767.0, -1.0) : v;
        }
        default: {
            float v;
            std::memcpy(&v, p, 4);
            return v;
        }
        }
    };
    if (a.bufferView >= 0) {
        const tinygltf::BufferView &bv = m.bufferViews[size_t(a.bufferView)];
        const unsigned char *base = m.buffers[size_t(bv.buffer)].data.data() + bv.byteOffset + a.byteOffset;
        size_t stride = size_t(a.ByteStride(bv));
        for (size_t i = 0; i < a.count; ++i)
            for (int c = 0; c < nc; ++c) out[i * size_t(nc) + size_t(c)] = conv(base + i * stride + size_t(c * cs), a.componentType);
    }
    if (a.sparse.isSparse) {
        const tinygltf::BufferView &ib = m.bufferViews[size_t(a.sparse.indices.bufferView)];
        const tinygltf::BufferView &vb = m.bufferViews[size_t(a.sparse.values.bufferView)];
        const unsigned char *ip = m.buffers[size_t(ib.buffer)].data.data() + ib.byteOffset + size_t(a.sparse.indices.byteOffset);
        const unsigned char *vp = m.buffers[size_t(vb.buffer)].data.data() + vb.byteOffset + size_t(a.sparse.values.byteOffset);
        int is = tinygltf::GetComponentSizeInBytes(uint32_t(a.sparse.indices.componentType));
        for (int k = 0; k < a.sparse.count; ++k) {
            uint32_t target = 0;
            std::memcpy(&target, ip + k * is, size_t(is));  // little-endian
            for (int c = 0; c < nc; ++c)
                out[target * size_t(nc) + size_t(c)] = conv(vp + size_t(k * nc * cs + c * cs), a.componentType);
        }
    }
    return out;
}

// glTF sampler at time t: clamped, STEP / LINEAR (slerp for rotations) / CUBICSPLINE.
std::vector<double> sample(const tinygltf::Model &m, const tinygltf::AnimationSampler &s, double t, int nc) {
    std::vector<double> times = read_acc(m, s.input), vals = read_acc(m, s.output);
    bool cubic = s.interpolation == "CUBICSPLINE";
    size_t stride = size_t(nc) * (cubic ? 3 : 1), at = cubic ? size_t(nc) : 0;
    size_t n = times.size();
    auto value = [&](size_t k, size_t off) { return std::vector<double>(vals.begin() + long(k * stride + off), vals.begin() + long(k * stride + off + size_t(nc))); };
    std::vector<double> out;
    if (t <= times[0]) {
        out = value(0, at);
    } else if (t >= times[n - 1]) {
        out = value(n - 1, at);
    } else {
        size_t k = 0;
        while (!(times[k + 1] > t)) ++k;
        double t0 = times[k], t1 = times[k + 1], u = (t - t0) / (t1 - t0);
        std::vector<double> a = value(k, at), b = value(k + 1, at);
        out.resize(size_t(nc));
        if (s.interpolation == "STEP") {
            out = a;
        } else if (!cubic) {
            if (nc == 4) {
                double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
                if (d < 0) {
                    for (double &x : b) x = -x;
                    d = -d;
                }
                double wa = 1 - u, wb = u;
                if (d < 0.9999999) {
                    double th = std::acos(std::min(1.0, d));
                    wa = std::sin((1 - u) * th) / std::sin(th);
                    wb = std::sin(u * th) / std::sin(th);
                }
                for (int c = 0; c < 4; ++c) out[size_t(c)] = wa * a[size_t(c)] + wb * b[size_t(c)];
            } else {
                for (int c = 0; c < nc; ++c) out[size_t(c)] = a[size_t(c)] + (b[size_t(c)] - a[size_t(c)]) * u;
            }
        } else {
            double td = t1 - t0, u2 = u * u, u3 = u2 * u;
            std::vector<double> bo = value(k, 2 * size_t(nc)), ai = value(k + 1, 0);
            for (int c = 0; c < nc; ++c) {
                size_t i = size_t(c);
                out[i] = (2 * u3 - 3 * u2 + 1) * a[i] + (u3 - 2 * u2 + u) * td * bo[i] + (-2 * u3 + 3 * u2) * b[i] +
                         (u3 - u2) * td * ai[i];
            }
        }
    }
    if (nc == 4) {
        double l = std::sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
        for (double &x : out) x /= l;
    }
    return out;
}

struct RefPrim {
    std::vector<double> pos, nrm, tan;
};
struct RefNode {
    int node, mesh, skin;
    std::vector<RefPrim> prims;
};

// Skins every skinned node of `path` at animation `anim` (-1: rest), time t, by LBS.
std::vector<RefNode> reference_skin(const std::string &path, int anim, double t) {
    tinygltf::Model m;
    tinygltf::TinyGLTF loader;
    loader.SetImageLoader([](tinygltf::Image *, const int, std::string *, std::string *, int, int, const unsigned char *, int, void *) { return true; }, nullptr);
    std::string err, warn;
    bool glb = path.size() > 4 && path.substr(path.size() - 4) == ".glb";
    bool ok = glb ? loader.LoadBinaryFromFile(&m, &err, &warn, path) : loader.LoadASCIIFromFile(&m, &err, &warn, path);
    if (!ok) {
        std::fprintf(stderr, "  reference: cannot load %s: %s\n", path.c_str(), err.c_str());
        return {};
    }
    size_t nn = m.nodes.size();
    std::vector<double> T(nn * 3, 0), R(nn * 4, 0), Sc(nn * 3, 1);
    std::vector<char> has_matrix(nn, 0);
    for (size_t i = 0; i < nn; ++i) {
        const tinygltf::Node &n = m.nodes[i];
        R[i * 4 + 3] = 1;
        has_matrix[i] = n.matrix.size() == 16;
        for (size_t c = 0; c < n.translation.size(); ++c) T[i * 3 + c] = n.translation[c];
        for (size_t c = 0; c < n.rotation.size(); ++c) R[i * 4 + c] = n.rotation[c];
        for (size_t c = 0; c < n.scale.size(); ++c) Sc[i * 3 + c] = n.scale[c];
    }
    if (anim >= 0)
        for (const tinygltf::AnimationChannel &c : m.animations[size_t(anim)].channels) {
            const tinygltf::AnimationSampler &s = m.animations[size_t(anim)].samplers[size_t(c.sampler)];
            size_t i = size_t(c.target_node);
            if (c.target_path == "translation") {
                std::vector<double> v = sample(m, s, t, 3);
                for (int k = 0; k < 3; ++k) T[i * 3 + size_t(k)] = v[size_t(k)];
            } else if (c.target_path == "rotation") {
                std::vector<double> v = sample(m, s, t, 4);
                for (int k = 0; k < 4; ++k) R[i * 4 + size_t(k)] = v[size_t(k)];
            } else if (c.target_path == "scale") {
                std::vector<double> v = sample(m, s, t, 3);
                for (int k = 0; k < 3; ++k) Sc[i * 3 + size_t(k)] = v[size_t(k)];
            }
        }
    std::vector<int> parent(nn, -1);
    for (size_t i = 0; i < nn; ++i)
        for (int c : m.nodes[i].children) parent[size_t(c)] = int(i);
    auto local = [&](size_t i) {
        if (has_matrix[i]) {
            M4 r;
            for (int k = 0; k < 16; ++k) r.m[k] = m.nodes[i].matrix[size_t(k)];
            return r;
        }
        return trs(&T[i * 3], &R[i * 4], &Sc[i * 3]);
    };
    auto global = [&](size_t i) {
        M4 g = local(i);
        for (int p = parent[i]; p != -1; p = parent[size_t(p)]) g = mul(local(size_t(p)), g);
        return g;
    };
    std::vector<RefNode> out;
    for (size_t ni = 0; ni < nn; ++ni) {
        const tinygltf::Node &node = m.nodes[ni];
        if (node.mesh < 0 || node.skin < 0) continue;
        const tinygltf::Skin &skin = m.skins[size_t(node.skin)];
        std::vector<M4> joint(skin.joints.size());
        std::vector<double> ibm;
        if (skin.inverseBindMatrices >= 0) ibm = read_acc(m, skin.inverseBindMatrices);
        for (size_t j = 0; j < skin.joints.size(); ++j) {
            M4 ib = ident();
            if (!ibm.empty())
                for (int k = 0; k < 16; ++k) ib.m[k] = ibm[j * 16 + size_t(k)];
            joint[j] = mul(global(size_t(skin.joints[j])), ib);  // the node's own transform: not applied
        }
        RefNode rn{int(ni), node.mesh, node.skin, {}};
        for (const tinygltf::Primitive &p : m.meshes[size_t(node.mesh)].primitives) {
            auto attr = [&](const char *a) { auto it = p.attributes.find(a); return it == p.attributes.end() ? -1 : it->second; };
            std::vector<double> pos = read_acc(m, attr("POSITION")), nrm, tan, js[2], ws[2];
            if (attr("NORMAL") >= 0) nrm = read_acc(m, attr("NORMAL"));
            if (attr("TANGENT") >= 0) tan = read_acc(m, attr("TANGENT"));
            int sets = attr("JOINTS_1") >= 0 ? 2 : 1;
            for (int s = 0; s < sets; ++s) {
                js[s] = read_acc(m, attr(s ? "JOINTS_1" : "JOINTS_0"));
                ws[s] = read_acc(m, attr(s ? "WEIGHTS_1" : "WEIGHTS_0"));
            }
            size_t vc = pos.size() / 3;
            RefPrim rp;
            for (size_t v = 0; v < vc; ++v) {
                double M[12] = {0};  // rows 0..2 of the blended matrix, row-major 3x4
                double wsum = 0;
                for (int s = 0; s < sets; ++s)
                    for (int k = 0; k < 4; ++k) wsum += ws[s][v * 4 + size_t(k)];
                for (int s = 0; s < sets; ++s)
                    for (int k = 0; k < 4; ++k) {
                        double w = ws[s][v * 4 + size_t(k)];
                        if (w == 0) continue;
                        const M4 &J = joint[size_t(js[s][v * 4 + size_t(k)])];
                        for (int r = 0; r < 3; ++r)
                            for (int c = 0; c < 4; ++c) M[r * 4 + c] += w / wsum * J.m[c * 4 + r];
                    }
                if (wsum == 0)
                    for (int r = 0; r < 3; ++r) M[r * 4 + r] = 1;
                for (int r = 0; r < 3; ++r)
                    rp.pos.push_back(M[r * 4] * pos[v * 3] + M[r * 4 + 1] * pos[v * 3 + 1] + M[r * 4 + 2] * pos[v * 3 + 2] + M[r * 4 + 3]);
                if (!nrm.empty()) {  // inverse transpose = cofactor / det
                    double a = M[0], b = M[1], c = M[2], d = M[4], e = M[5], f = M[6], g = M[8], h = M[9], i = M[10];
                    double C[9] = {e * i - f * h, f * g - d * i, d * h - e * g, c * h - b * i, a * i - c * g,
                                   b * g - a * h, b * f - c * e, c * d - a * f, a * e - b * d};
                    double det = a * C[0] + b * C[1] + c * C[2], o[3];
                    for (int r = 0; r < 3; ++r)
                        o[r] = (C[r * 3] * nrm[v * 3] + C[r * 3 + 1] * nrm[v * 3 + 1] + C[r * 3 + 2] * nrm[v * 3 + 2]) / det;
                    double l = std::sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
                    // A (nearly) singular blend -- LBS collapsing a joint twisted by 180 degrees --
                    // has no meaningful normal: NaN marks it as not compared.
                    double scale3 = 0;
                    for (int k = 0; k < 12; ++k) scale3 = std::max(scale3, std::fabs(M[k]));
                    scale3 = scale3 * scale3 * scale3;
                    if (std::fabs(det) < 1e-4 * scale3) l = NAN;
                    for (int r = 0; r < 3; ++r) rp.nrm.push_back(o[r] / l);
                }
                if (!tan.empty()) {
                    double o[3];
                    for (int r = 0; r < 3; ++r)
                        o[r] = M[r * 4] * tan[v * 4] + M[r * 4 + 1] * tan[v * 4 + 1] + M[r * 4 + 2] * tan[v * 4 + 2];
                    double l = std::sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
                    for (int r = 0; r < 3; ++r) rp.tan.push_back(o[r] / l);
                    rp.tan.push_back(tan[v * 4 + 3]);
                }
            }
            rn.prims.push_back(rp);
        }
        out.push_back(rn);
    }
    return out;
}

// ---------------------------------------------------------------- running the CLI

std::string cli() {
    const char *c = std::getenv("GPUSKIN_CLI");
    return c ? c : "build/gpuskin";
}

std::string tmp_json() {
    static int n = 0;
    return "/tmp/test_gltf_" + std::to_string(getpid()) + "_" + std::to_string(n++) + ".json";
}

// Runs `gpuskin skin` and parses its JSON; null json when it fails.
nlohmann::json run_skin(const std::string &model, int clip, double t, const char *method = "lbs") {
    std::string out = tmp_json();
    char tbuf[64];
    std::snprintf(tbuf, sizeof tbuf, "%.9g", t);
    std::string cmd = cli() + " skin '" + model + "' --time " + tbuf + " --method " + method + " --out " + out;
    if (clip >= 0) cmd += " --clip " + std::to_string(clip);
    int rc = std::system(cmd.c_str());
    nlohmann::json j;
    if (rc != 0) {
        std::fprintf(stderr, "  `%s` exited with %d\n", cmd.c_str(), rc);
        std::remove(out.c_str());
        return j;
    }
    std::ifstream f(out);
    j = nlohmann::json::parse(f, nullptr, false);
    std::remove(out.c_str());
    if (j.is_discarded()) {
        std::fprintf(stderr, "  `%s` wrote invalid JSON\n", cmd.c_str());
        return nlohmann::json();
    }
    return j;
}

double worst(const nlohmann::json &a, const std::vector<double> &b) {
    if (!a.is_array() || a.size() != b.size()) return INFINITY;
    double w = 0;
    for (size_t i = 0; i < b.size(); ++i)
        if (!std::isnan(b[i])) w = std::max(w, std::fabs(a[i].get<double>() - b[i]));
    return w;
}

// ---------------------------------------------------------------- tests

void test_valid_fixtures_load() {
    for (const char *f : kValid) {
        Model m(std::string(kAssets) + f);
        CHECK(m.m != nullptr);
        if (!m.m) continue;
        CHECK(m.m->skin_count >= 1);
        CHECK(m.m->skinned_node_count >= 1);
        CHECK(m.m->animation_count >= 1);
        for (uint32_t s = 0; s < m.m->skin_count; ++s) {
            gpuskin_skeleton sk;
            CHECK_EQ_INT(gpuskin_skeleton_init(&sk, &m.m->skins[s].desc), GPUSKIN_SUCCESS);
            gpuskin_skeleton_free(&sk);
            for (uint32_t c = 0; c < m.m->skins[s].clip_count; ++c)
                CHECK_EQ_INT(gpuskin_clip_validate(&m.m->skins[s].clips[c].clip, m.m->skins[s].joint_count),
                             GPUSKIN_SUCCESS);
        }
        for (uint32_t n = 0; n < m.m->skinned_node_count; ++n) {
            const gltf_model_skinned_node &sn = m.m->skinned_nodes[n];
            for (uint32_t p = 0; p < sn.primitive_count; ++p)
                CHECK_EQ_INT(gpuskin_streams_validate(&sn.primitives[p].streams, m.m->skins[sn.skin].joint_count, nullptr),
                             GPUSKIN_SUCCESS);
        }
    }
}

void test_malformed_fixtures_fail() {
    for (const char *f : kMalformed) {
        std::string path = std::string(kSynth) + "malformed/" + f;
        gltf_model *m = reinterpret_cast<gltf_model *>(1);
        char err[512] = {0};
        int rc = gltf_model_load(path.c_str(), &m, err, sizeof err);
        CHECK(rc != 0);
        CHECK(m == nullptr);
        CHECK(std::strlen(err) > 0);
        CHECK(std::strchr(err, '\n') == nullptr);
        if (rc == 0) {
            std::fprintf(stderr, "  %s loaded, but it is malformed\n", f);
            gltf_model_free(m);
        }
    }
    gltf_model *m = nullptr;
    char err[64];
    CHECK(gltf_model_load("tests/assets/does_not_exist.gltf", &m, err, sizeof err) != 0);
    CHECK(gltf_model_load(nullptr, &m, err, sizeof err) != 0);
}

void test_real_models_structure() {
    Model ss(std::string(kAssets) + "SimpleSkin.gltf"), rs(std::string(kAssets) + "RiggedSimple.glb"),
        cm(std::string(kAssets) + "CesiumMan.glb");
    CHECK(ss.m && rs.m && cm.m);
    if (!ss.m || !rs.m || !cm.m) return;
    CHECK_EQ_INT(ss.m->skins[0].joint_count, 2);
    CHECK_EQ_INT(ss.m->skins[0].desc.parents[0], -1);
    CHECK_EQ_INT(ss.m->skins[0].desc.parents[1], 0);
    CHECK_EQ_INT(ss.m->skinned_nodes[0].primitives[0].streams.vertex_count, 10);
    CHECK_EQ_INT(ss.m->skinned_nodes[0].primitives[0].index_count, 24);
    CHECK_EQ_INT(ss.m->skins[0].clips[0].clip.channel_count, 1);
    CHECK_NEAR(ss.m->skins[0].clips[0].end, 5.5, 1e-6);
    CHECK_EQ_INT(rs.m->skins[0].joint_count, 2);
    CHECK_EQ_INT(rs.m->skinned_nodes[0].primitives[0].streams.vertex_count, 160);
    CHECK_EQ_INT(rs.m->skins[0].clips[0].clip.channel_count, 3);
    CHECK_EQ_INT(cm.m->skins[0].joint_count, 19);
    CHECK_EQ_INT(cm.m->skinned_nodes[0].primitives[0].streams.vertex_count, 3273);
    CHECK_EQ_INT(cm.m->skins[0].clips[0].clip.channel_count, 57);
    CHECK_NEAR(cm.m->skins[0].clips[0].end, 2.0, 1e-5);
    // RiggedSimple's root joint hangs under the Z-up `matrix` node and the Armature node.
    const gltf_model_skin &r = rs.m->skins[0];
    int roots = 0;
    for (uint32_t j = 0; j < r.joint_count; ++j)
        if (r.desc.parents[j] < 0) {
            ++roots;
            const float *g = r.desc.root_parent_globals[j].m;
            bool identity = true;
            for (int i = 0; i < 16; ++i) identity = identity && std::fabs(g[i] - ((i % 5) == 0 ? 1.f : 0.f)) < 1e-6f;
            CHECK(!identity);
        }
    CHECK_EQ_INT(roots, 1);
}

void test_synthetic_structure() {
    {
        Model m(std::string(kSynth) + "child_before_parent.gltf");
        CHECK(m.m);
        if (m.m) {  // joints: leaf, root, middle
            const int32_t *p = m.m->skins[0].desc.parents;
            CHECK_EQ_INT(p[0], 2);
            CHECK_EQ_INT(p[1], -1);
            CHECK_EQ_INT(p[2], 1);
        }
    }
    {
        Model m(std::string(kSynth) + "root_under_transformed_parent.gltf");
        CHECK(m.m);
        if (m.m) {
            const gltf_model_skin &s = m.m->skins[0];
            CHECK_EQ_INT(s.desc.parents[0], -1);
            // root_parent_globals[0] = ZUp * Armature
            double q[4], t0[3] = {0, 0, 0}, s1[3] = {1, 1, 1};
            axis_angle(1, 0, 0, -90, q);
            M4 zup = trs(t0, q, s1);
            double ta[3] = {1, 2, 3}, sa[3] = {2, 2, 2};
            axis_angle(0, 1, 0, 30, q);
            M4 g = mul(zup, trs(ta, q, sa));
            for (int i = 0; i < 16; ++i) CHECK_NEAR(s.desc.root_parent_globals[0].m[i], g.m[i], 1e-5);
            // joint 1 was a `matrix`: decomposed into T(0,1,0) R(x, 20 deg) S(1, 1.5, 1)
            const gpuskin_trs &r1 = s.desc.rest_pose[1];
            axis_angle(1, 0, 0, 20, q);
            CHECK_NEAR(r1.translation.y, 1.0, 1e-6);
            CHECK_NEAR(r1.rotation.x, q[0], 1e-6);
            CHECK_NEAR(r1.rotation.w, q[3], 1e-6);
            CHECK_NEAR(r1.scale.x, 1.0, 1e-6);
            CHECK_NEAR(r1.scale.y, 1.5, 1e-6);
            CHECK_EQ_INT(m.m->skinned_nodes[0].node, 5);
        }
    }
    {
        Model m(std::string(kSynth) + "no_inverse_bind.gltf");
        CHECK(m.m && m.m->skins[0].desc.inverse_bind == nullptr && !m.m->skins[0].has_inverse_bind);
    }
    {
        Model m(std::string(kSynth) + "mirrored_joint.gltf");
        CHECK(m.m);
        if (m.m) CHECK_NEAR(m.m->skins[0].desc.rest_pose[1].scale.x, -1.0, 0);
    }
    {
        Model m(std::string(kSynth) + "shared_mesh_two_skins.gltf");
        CHECK(m.m);
        if (m.m) {
            CHECK_EQ_INT(m.m->skin_count, 2);
            CHECK_EQ_INT(m.m->skinned_node_count, 2);
            CHECK_EQ_INT(m.m->skinned_nodes[0].skin, 0);
            CHECK_EQ_INT(m.m->skinned_nodes[1].skin, 1);
            CHECK(m.m->skinned_nodes[0].primitives == m.m->skinned_nodes[1].primitives);
            CHECK_EQ_INT(m.m->skins[0].joint_count, 2);
            CHECK_EQ_INT(m.m->skins[1].joint_count, 3);
            CHECK_EQ_INT(m.m->skins[0].clips[0].clip.channel_count, 1);  // the skinned node's channel is left out
            CHECK_EQ_INT(m.m->skins[1].clips[0].clip.channel_count, 2);
            CHECK_EQ_INT(m.m->skins[0].clips[0].animation_channels, 4);
        }
    }
    {
        Model m(std::string(kSynth) + "u8_joints.gltf");
        CHECK(m.m && m.m->skinned_nodes[0].primitives[0].streams.joint_type == GPUSKIN_JOINT_U8);
    }
    for (const char *f : {"weights_u8_normalized.gltf", "weights_u16_normalized.gltf"}) {
        Model m(std::string(kSynth) + f);
        CHECK(m.m);
        if (!m.m) continue;
        const gpuskin_vertex_streams &st = m.m->skinned_nodes[0].primitives[0].streams;
        const float *w = static_cast<const float *>(st.weights[0].data);
        for (size_t v = 0; v < st.vertex_count; ++v) CHECK_NEAR(w[v * 4] + w[v * 4 + 1] + w[v * 4 + 2] + w[v * 4 + 3], 1.0, 1e-6);
    }
    {
        Model m(std::string(kSynth) + "eight_influences.gltf");
        CHECK(m.m && m.m->skinned_nodes[0].primitives[0].streams.influence_sets == 2);
    }
    {
        Model m(std::string(kSynth) + "animated_ancestor.gltf");
        CHECK(m.m);
        if (m.m) {  // the Armature's channel is counted and left out; the joint's is kept
            CHECK_EQ_INT(m.m->skins[0].clips[0].ignored_ancestor_channels, 1);
            CHECK_EQ_INT(m.m->skins[0].clips[0].clip.channel_count, 1);
            CHECK_NEAR(m.m->skins[0].desc.root_parent_globals[0].m[13], 1.0, 0);
        }
        Model s(std::string(kSynth) + "shared_mesh_two_skins.gltf");  // a channel on a non-ancestor
        CHECK(s.m && s.m->skins[0].clips[0].ignored_ancestor_channels == 0);
    }
    {
        Model m(std::string(kSynth) + "quantized_positions.gltf");
        CHECK(m.m);
        if (m.m) {  // SHORT centimetres and normalised BYTE normals, converted to float
            const gpuskin_vertex_streams &st = m.m->skinned_nodes[0].primitives[0].streams;
            const float *p = static_cast<const float *>(st.positions.data), *n = static_cast<const float *>(st.normals.data);
            CHECK_NEAR(p[0], 25.0, 0);
            CHECK_NEAR(p[4 * 3 + 1], 50.0, 0);
            CHECK_NEAR(n[0], 90.0 / 127.0, 1e-7);
        }
    }
    {
        Model m(std::string(kSynth) + "interleaved_sparse.glb");
        CHECK(m.m);
        if (m.m) {
            const gltf_model_skinned_node &n = m.m->skinned_nodes[0];
            CHECK_EQ_INT(n.primitive_count, 2);
            const float *p = static_cast<const float *>(n.primitives[0].streams.positions.data);
            CHECK_NEAR(p[3], -0.375, 1e-6);  // vertex 1 (-0.25, 0, 0.25) moved out by the sparse accessor
            CHECK_NEAR(p[5], 0.375, 1e-6);
            CHECK_NEAR(p[6], -0.25, 1e-6);  // vertex 2 untouched
            const float *nr = static_cast<const float *>(n.primitives[0].streams.normals.data);
            CHECK_NEAR(nr[3], -std::sqrt(0.5), 1e-6);  // normals read through the interleaved stride
            CHECK(n.primitives[0].streams.tangents.data != nullptr);
            CHECK_EQ_INT(n.primitives[0].index_count, 96);
            CHECK_EQ_INT(n.primitives[0].indices[0], 0);
            CHECK(n.primitives[1].indices == nullptr);
            CHECK_EQ_INT(n.primitives[1].streams.vertex_count, 6);
            const float *w = static_cast<const float *>(n.primitives[0].streams.weights[0].data);
            CHECK_NEAR(w[0], 1.0, 1e-6);
        }
    }
}

// The local pose of `joint` at time t through gpuskin_clip_sample.
gpuskin_trs sample_joint(const gltf_model &m, uint32_t skin, uint32_t clip, uint32_t joint, float t) {
    gpuskin_skeleton sk;
    gpuskin_trs out = gpuskin_trs_identity();
    if (gpuskin_skeleton_init(&sk, &m.skins[skin].desc) != GPUSKIN_SUCCESS) return out;
    std::vector<gpuskin_trs> local(sk.joint_count);
    if (gpuskin_clip_sample(&m.skins[skin].clips[clip].clip, &sk, t, local.data()) == GPUSKIN_SUCCESS)
        out = local[joint];
    gpuskin_skeleton_free(&sk);
    return out;
}

void check_quat(const gpuskin_quat &a, const double b[4], double tol) {
    double d = a.x * b[0] + a.y * b[1] + a.z * b[2] + a.w * b[3];
    double s = d < 0 ? -1 : 1;  // q and -q are the same rotation
    CHECK_NEAR(a.x, s * b[0], tol);
    CHECK_NEAR(a.y, s * b[1], tol);
    CHECK_NEAR(a.z, s * b[2], tol);
    CHECK_NEAR(a.w, s * b[3], tol);
}

void test_cubicspline_keys() {
    Model m(std::string(kSynth) + "cubicspline_rotation.gltf");
    CHECK(m.m);
    if (!m.m) return;
    CHECK_EQ_INT(m.m->skins[0].clips[0].interpolations, GLTF_MODEL_INTERP_BIT(GPUSKIN_INTERP_CUBICSPLINE));
    double k0[4] = {0, 0, 0, 1}, k1[4], ka[4], kb[4], k2[4];
    axis_angle(0, 0, 1, 60, k1);
    axis_angle(1, 0, 0, 45, ka);
    axis_angle(0, 0, 1, 30, kb);
    k2[0] = ka[3] * kb[0] + ka[0] * kb[3] + ka[1] * kb[2] - ka[2] * kb[1];
    k2[1] = ka[3] * kb[1] - ka[0] * kb[2] + ka[1] * kb[3] + ka[2] * kb[0];
    k2[2] = ka[3] * kb[2] + ka[0] * kb[1] - ka[1] * kb[0] + ka[2] * kb[3];
    k2[3] = ka[3] * kb[3] - ka[0] * kb[0] - ka[1] * kb[1] - ka[2] * kb[2];
    check_quat(sample_joint(*m.m, 0, 0, 1, 0.f).rotation, k0, 1e-6);
    check_quat(sample_joint(*m.m, 0, 0, 1, 1.f).rotation, k1, 1e-6);
    check_quat(sample_joint(*m.m, 0, 0, 1, 2.5f).rotation, k2, 1e-6);
    check_quat(sample_joint(*m.m, 0, 0, 1, 9.f).rotation, k2, 1e-6);  // clamped after the last key
    // Between keys: glTF's Hermite spline, tangents scaled by the key interval, normalised.
    double u = 0.5, td = 1.0, o0[4] = {0.1, 0, 0.3, 0}, i1[4] = {0, 0.2, 0.2, -0.1}, e[4], l = 0;
    for (int c = 0; c < 4; ++c) {
        e[c] = (2 * u * u * u - 3 * u * u + 1) * k0[c] + (u * u * u - 2 * u * u + u) * td * o0[c] +
               (-2 * u * u * u + 3 * u * u) * k1[c] + (u * u * u - u * u) * td * i1[c];
        l += e[c] * e[c];
    }
    for (double &x : e) x /= std::sqrt(l);
    check_quat(sample_joint(*m.m, 0, 0, 1, 0.5f).rotation, e, 1e-5);
    // Translation keys on joint 2 at 0, 1.25, 2.5.
    gpuskin_trs t1 = sample_joint(*m.m, 0, 0, 2, 1.25f), t2 = sample_joint(*m.m, 0, 0, 2, 2.5f);
    CHECK_NEAR(t1.translation.x, 0.5, 1e-6);
    CHECK_NEAR(t1.translation.y, 1.2, 1e-6);
    CHECK_NEAR(t1.translation.z, 0.0, 1e-6);
    CHECK_NEAR(t2.translation.y, 0.8, 1e-6);
    CHECK_NEAR(t2.translation.z, 0.3, 1e-6);
}

void test_step_keys() {
    Model m(std::string(kSynth) + "step_translation.gltf");
    CHECK(m.m);
    if (!m.m) return;
    struct {
        float t;
        double x, y;
    } cases[] = {{0.f, 0, 0}, {0.25f, 0, 0}, {0.4999f, 0, 0}, {0.5f, 1, 0}, {0.99f, 1, 0}, {1.f, 1, 2}, {7.f, 1, 2}};
    for (auto &c : cases) {
        gpuskin_trs r = sample_joint(*m.m, 0, 0, 0, c.t);
        CHECK_NEAR(r.translation.x, c.x, 0);
        CHECK_NEAR(r.translation.y, c.y, 0);
    }
    double id[4] = {0, 0, 0, 1}, q45[4], q90[4], q45l[4];
    axis_angle(0, 0, 1, 45, q45);
    axis_angle(0, 0, 1, 90, q90);
    check_quat(sample_joint(*m.m, 0, 0, 2, 0.74f).rotation, id, 0);
    check_quat(sample_joint(*m.m, 0, 0, 2, 0.75f).rotation, q45, 1e-6);
    // the LINEAR channel beside them: half way is 45 degrees
    axis_angle(0, 0, 1, 45, q45l);
    check_quat(sample_joint(*m.m, 0, 0, 1, 0.5f).rotation, q45l, 1e-6);
    check_quat(sample_joint(*m.m, 0, 0, 1, 1.0f).rotation, q90, 1e-6);
}

// SimpleSkin by hand: joint 1 turns about z around (0, 1, 0); vertex (x, y) goes to
// (1 - y, x + 1) under it, and stays under joint 0.
void test_simpleskin_by_hand() {
    std::string path = std::string(kAssets) + "SimpleSkin.gltf";
    const double bind[10][2] = {{-0.5, 0}, {0.5, 0}, {-0.5, 0.5}, {0.5, 0.5}, {-0.5, 1},
                                {0.5, 1},  {-0.5, 1.5}, {0.5, 1.5}, {-0.5, 2}, {0.5, 2}};
    const double w1[10] = {0, 0, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 1, 1};
    nlohmann::json j0 = run_skin(path, 0, 0.0);
    CHECK(!j0.is_null());
    if (!j0.is_null()) {
        CHECK(j0["clip"] == 0);
        CHECK(j0["method"] == "lbs");
        CHECK(j0["device"] == "cpu");
        const nlohmann::json &p = j0["skinned_nodes"][0]["primitives"][0]["positions"];
        CHECK_EQ_INT(p.size(), 30);
        for (int v = 0; v < 10 && p.size() == 30; ++v) {
            CHECK_NEAR(p[size_t(v * 3)].get<double>(), bind[v][0], 1e-6);
            CHECK_NEAR(p[size_t(v * 3 + 1)].get<double>(), bind[v][1], 1e-6);
            CHECK_NEAR(p[size_t(v * 3 + 2)].get<double>(), 0.0, 1e-6);
        }
    }
    // t = 1 s: the key (0, 0, 0.707, 0.707), 90 degrees. LBS: (1 - w) p + w (1 - y, x + 1).
    nlohmann::json j1 = run_skin(path, 0, 1.0);
    CHECK(!j1.is_null());
    if (!j1.is_null()) {
        const nlohmann::json &p = j1["skinned_nodes"][0]["primitives"][0]["positions"];
        for (int v = 0; v < 10 && p.size() == 30; ++v) {
            double x = bind[v][0], y = bind[v][1], w = w1[v];
            CHECK_NEAR(p[size_t(v * 3)].get<double>(), (1 - w) * x + w * (1 - y), 1e-5);
            CHECK_NEAR(p[size_t(v * 3 + 1)].get<double>(), (1 - w) * y + w * (x + 1), 1e-5);
        }
    }
    // DQS at t = 1: a vertex weighted half and half turns 45 degrees about (0, 1, 0).
    nlohmann::json jd = run_skin(path, 0, 1.0, "dqs");
    CHECK(!jd.is_null());
    if (!jd.is_null()) {
        CHECK(jd["method"] == "dqs");
        const nlohmann::json &p = jd["skinned_nodes"][0]["primitives"][0]["positions"];
        double c = std::cos(M_PI / 4), s = std::sin(M_PI / 4);
        for (int v = 4; v < 6 && p.size() == 30; ++v) {
            double x = bind[v][0], y = bind[v][1] - 1;
            CHECK_NEAR(p[size_t(v * 3)].get<double>(), c * x - s * y, 1e-5);
            CHECK_NEAR(p[size_t(v * 3 + 1)].get<double>(), s * x + c * y + 1, 1e-5);
        }
        for (int v = 8; v < 10 && p.size() == 30; ++v) {  // fully on joint 1: 90 degrees, as LBS
            CHECK_NEAR(p[size_t(v * 3)].get<double>(), 1 - bind[v][1], 1e-5);
            CHECK_NEAR(p[size_t(v * 3 + 1)].get<double>(), bind[v][0] + 1, 1e-5);
        }
    }
}

// The CLI against the independent reference for one model at a few times of every clip.
void check_model_against_reference(const char *file) {
    std::string path = std::string(kAssets) + file;
    Model m(path);
    CHECK(m.m);
    if (!m.m) return;
    double size = 0, worst_p = 0, worst_n = 0, worst_t = 0;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t c = 0; c < m.m->animation_count; ++c) {
        double end = m.m->skins[0].clips[c].end;
        double times[] = {0.0, end * 0.37, end * 0.5 + 0.013, end, end + 1.0};
        for (double t : times) {
            nlohmann::json j = run_skin(path, int(c), t);
            std::vector<RefNode> ref = reference_skin(path, int(c), double(float(t)));
            CHECK(!j.is_null());
            if (j.is_null()) return;
            CHECK(j["clip"] == c);
            CHECK_EQ_INT(j["skinned_nodes"].size(), ref.size());
            if (j["skinned_nodes"].size() != ref.size()) return;
            for (size_t n = 0; n < ref.size(); ++n) {
                const nlohmann::json &jn = j["skinned_nodes"][n];
                CHECK(jn["node"] == ref[n].node);
                CHECK(jn["mesh"] == ref[n].mesh);
                CHECK(jn["skin"] == ref[n].skin);
                CHECK_EQ_INT(jn["primitives"].size(), ref[n].prims.size());
                for (size_t p = 0; p < ref[n].prims.size() && p < jn["primitives"].size(); ++p) {
                    const nlohmann::json &jp = jn["primitives"][p];
                    CHECK(jp["vertex_count"] == ref[n].prims[p].pos.size() / 3);
                    for (size_t k = 0; k < ref[n].prims[p].pos.size(); ++k) {
                        lo[k % 3] = std::min(lo[k % 3], ref[n].prims[p].pos[k]);
                        hi[k % 3] = std::max(hi[k % 3], ref[n].prims[p].pos[k]);
                    }
                    worst_p = std::max(worst_p, worst(jp["positions"], ref[n].prims[p].pos));
                    worst_n = std::max(worst_n, worst(jp["normals"], ref[n].prims[p].nrm));
                    if (!ref[n].prims[p].tan.empty()) worst_t = std::max(worst_t, worst(jp["tangents"], ref[n].prims[p].tan));
                    else CHECK(!jp.contains("tangents"));
                }
            }
        }
    }
    for (int k = 0; k < 3; ++k) size += (hi[k] - lo[k]) * (hi[k] - lo[k]);
    size = std::max(1.0, std::sqrt(size));  // world-space size of every posed vertex
    std::printf("     %-42s worst |cli - reference|: positions %.2g (size %.3g), normals %.2g, tangents %.2g\n", file,
                worst_p, size, worst_n, worst_t);
    CHECK(worst_p <= 5e-6 * size);
    CHECK(worst_n <= 1e-4);
    CHECK(worst_t <= 1e-4);
}

void test_cli_vs_reference_simpleskin() { check_model_against_reference("SimpleSkin.gltf"); }
void test_cli_vs_reference_riggedsimple() { check_model_against_reference("RiggedSimple.glb"); }
void test_cli_vs_reference_cesiumman() { check_model_against_reference("CesiumMan.glb"); }
void test_cli_vs_reference_synthetic() {
    for (const char *f : kValid)
        if (std::strncmp(f, "synthetic/", 10) == 0) check_model_against_reference(f);
}

}  // namespace

int main(int argc, char **argv) {
    TEST_INIT(argc, argv);
    RUN_TEST(test_valid_fixtures_load);
    RUN_TEST(test_malformed_fixtures_fail);
    RUN_TEST(test_real_models_structure);
    RUN_TEST(test_synthetic_structure);
    RUN_TEST(test_cubicspline_keys);
    RUN_TEST(test_step_keys);
    RUN_TEST(test_simpleskin_by_hand);
    RUN_TEST(test_cli_vs_reference_simpleskin);
    RUN_TEST(test_cli_vs_reference_riggedsimple);
    RUN_TEST(test_cli_vs_reference_cesiumman);
    RUN_TEST(test_cli_vs_reference_synthetic);
    return TEST_REPORT();
}
