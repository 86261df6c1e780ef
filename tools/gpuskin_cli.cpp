// gpuskin - command-line tool: inspect, skin and verify glTF models with gpuskin.
//
//   gpuskin info MODEL
//   gpuskin skin MODEL [--clip K] [--time T] [--method lbs|dqs] [--device cpu|gpu]
//                      [--split gs|polar] [--out FILE.json]
//   gpuskin verify MODEL [--split gs|polar]
//
// Positions and normals are in scene world space as glTF 2.0 defines skinning:
// sum_i w_i * global(joint_i) * inverseBind(joint_i) * p; the skinned node's own
// transform is not applied. Pipeline: gpuskin_clip_sample -> gpuskin_skeleton_globals
// -> gpuskin_skeleton_palette (model NULL) -> gpuskin_pack_lbs / gpuskin_pack_dq ->
// gpuskin_skin_cpu (the oracle) or the compute shader (gpuskin_cmd_skin).
#ifdef GPUSKIN_CLI_GPU
// --device gpu and verify: Vulkan through volk, the device from the examples' setup.
#include <volk.h>
#include "examples/common/vk_setup.h"
#else
#define GPUSKIN_NO_VULKAN
#endif
#include "gpuskin.h"
#include "gltf_model.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

// Keys in insertion order; numbers stored as float: dump() then prints the shortest text that reads
// back to the same float (9 significant digits at most), not 17 digits of double.
using fjson = nlohmann::basic_json<nlohmann::ordered_map, std::vector, std::string, bool, std::int64_t, std::uint64_t, float>;

const char *kUsage =
    "usage: gpuskin info MODEL\n"
    "       gpuskin skin MODEL [--clip K] [--time T] [--method lbs|dqs] [--device cpu|gpu]\n"
    "                          [--split gs|polar] [--out FILE.json]\n"
    "       gpuskin verify MODEL [--split gs|polar]\n"
    "MODEL is a glTF 2.0 file (.gltf or .glb). skin writes JSON (to stdout without --out).\n";

struct UsageError {
    std::string msg;
};
struct RunError {
    std::string msg;
};

[[noreturn]] void usage_error(const std::string &m) { throw UsageError{m}; }
[[noreturn]] void run_error(const std::string &m) { throw RunError{m}; }

std::string rs(gpuskin_result r) { return gpuskin_result_string(r); }

#define CHECK_GS(call, what)                                                                                     \
    do {                                                                                                         \
        gpuskin_result r_ = (call);                                                                              \
        if (r_ != GPUSKIN_SUCCESS) run_error(std::string(what) + ": " + rs(r_));                                  \
    } while (0)

struct Options {
    std::string command, model;
    long clip = -1;  // -1: not given
    double time = 0;
    bool time_given = false;
    gpuskin_method method = GPUSKIN_METHOD_LBS;
    bool gpu = false;
    gpuskin_split_method split = GPUSKIN_SPLIT_GRAM_SCHMIDT;
    std::string out;
};

long parse_index(const std::string &s, const char *opt) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
        usage_error(std::string(opt) + " wants a non-negative integer, got '" + s + "'");
    errno = 0;
    char *end = nullptr;
    unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (errno || v > 0x7fffffffull) usage_error(std::string(opt) + " value '" + s + "' is too large");
    return long(v);
}

double parse_time(const std::string &s) {
    errno = 0;
    char *end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || errno == ERANGE) usage_error("--time wants a number of seconds, got '" + s + "'");
    if (!std::isfinite(v)) usage_error("--time must be finite, got '" + s + "'");
    if (v < 0) usage_error("--time must not be negative, got '" + s + "'");
    return v;
}

Options parse_args(int argc, char **argv) {
    Options o;
    if (argc < 2) usage_error("missing command (info, skin or verify)");
    o.command = argv[1];
    if (o.command != "info" && o.command != "skin" && o.command != "verify")
        usage_error("unknown command '" + o.command + "' (info, skin or verify)");
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage_error(a + " needs a value");
            return argv[++i];
        };
        bool skin = o.command == "skin";
        if (a == "--clip" && skin) {
            o.clip = parse_index(value(), "--clip");
        } else if (a == "--time" && skin) {
            o.time = parse_time(value());
            o.time_given = true;
        } else if (a == "--method" && skin) {
            std::string v = value();
            if (v == "lbs")
                o.method = GPUSKIN_METHOD_LBS;
            else if (v == "dqs")
                o.method = GPUSKIN_METHOD_DQS;
            else
                usage_error("unknown method '" + v + "' (lbs or dqs)");
        } else if (a == "--device" && skin) {
            std::string v = value();
            if (v == "cpu")
                o.gpu = false;
            else if (v == "gpu")
                o.gpu = true;
            else
                usage_error("unknown device '" + v + "' (cpu or gpu)");
        } else if (a == "--out" && skin) {
            o.out = value();
            if (o.out.empty()) usage_error("--out needs a file name");
        } else if (a == "--split" && (skin || o.command == "verify")) {
            std::string v = value();
            if (v == "gs")
                o.split = GPUSKIN_SPLIT_GRAM_SCHMIDT;
            else if (v == "polar")
                o.split = GPUSKIN_SPLIT_POLAR;
            else
                usage_error("unknown split '" + v + "' (gs or polar)");
        } else if (a.size() > 1 && a[0] == '-') {
            usage_error("unknown option '" + a + "' for " + o.command);
        } else if (o.model.empty()) {
            o.model = a;
        } else {
            usage_error("unexpected argument '" + a + "'");
        }
    }
    if (o.model.empty()) usage_error("missing MODEL (a .gltf or .glb file)");
    return o;
}

struct ModelPtr {
    gltf_model *m = nullptr;
    ~ModelPtr() { gltf_model_free(m); }
};

void load_model(const std::string &path, ModelPtr *mp) {
    char err[1024];
    if (gltf_model_load(path.c_str(), &mp->m, err, sizeof err) != 0) run_error(err);
}

// ---------------------------------------------------------------- info

const char *interp_names(uint32_t bits, std::string *buf) {
    buf->clear();
    const char *names[] = {"LINEAR", "STEP", "CUBICSPLINE"};
    for (int i = 0; i < 3; ++i)
        if (bits & GLTF_MODEL_INTERP_BIT(i)) {
            if (!buf->empty()) *buf += ", ";
            *buf += names[i];
        }
    if (buf->empty()) *buf = "none";
    return buf->c_str();
}

const char *ctype(uint32_t ct) {
    switch (ct) {
    case 5121: return "u8";
    case 5123: return "u16";
    case 5126: return "float";
    default: return "?";
    }
}

std::string quoted(const char *s) { return std::string("\"") + (s ? s : "") + "\""; }

int cmd_info(const Options &o) {
    ModelPtr mp;
    load_model(o.model, &mp);
    const gltf_model &m = *mp.m;
    std::printf("model: %s\n", o.model.c_str());
    std::printf("nodes: %u, size (bind-pose bounding box diagonal): %g\n", m.node_count, double(gltf_model_size(&m)));
    std::printf("skins: %u\n", m.skin_count);
    for (uint32_t s = 0; s < m.skin_count; ++s) {
        const gltf_model_skin &sk = m.skins[s];
        uint32_t roots = 0;
        for (uint32_t j = 0; j < sk.joint_count; ++j) roots += sk.desc.parents[j] < 0;
        std::printf("  skin %u %s: %u joints, %u root%s, inverseBindMatrices %s\n", s, quoted(sk.name).c_str(),
                    sk.joint_count, roots, roots == 1 ? "" : "s", sk.has_inverse_bind ? "yes" : "no (identity)");
    }
    uint32_t total_vertices = 0;
    std::printf("skinned nodes: %u\n", m.skinned_node_count);
    for (uint32_t n = 0; n < m.skinned_node_count; ++n) {
        const gltf_model_skinned_node &sn = m.skinned_nodes[n];
        size_t vc = 0;
        for (uint32_t p = 0; p < sn.primitive_count; ++p) vc += sn.primitives[p].streams.vertex_count;
        total_vertices += uint32_t(vc);
        std::printf("  node %u %s: mesh %u %s, skin %u, %u primitive%s, %zu vertices\n", sn.node,
                    quoted(sn.name).c_str(), sn.mesh, quoted(sn.mesh_name).c_str(), sn.skin, sn.primitive_count,
                    sn.primitive_count == 1 ? "" : "s", vc);
        for (uint32_t p = 0; p < sn.primitive_count; ++p) {
            const gltf_model_primitive &pr = sn.primitives[p];
            const gpuskin_vertex_streams &st = pr.streams;
            std::printf("    primitive %u: %zu vertices, %u influences (joints %s, weights %s), normals %s, "
                        "tangents %s, %u indices\n",
                        pr.primitive, st.vertex_count, st.influence_sets == 2 ? 8u : 4u,
                        ctype(pr.joints_component_type), ctype(pr.weights_component_type),
                        st.normals.data ? "yes" : "no", st.tangents.data ? "yes" : "no", pr.index_count);
        }
    }
    std::printf("skinned vertices: %u\n", total_vertices);
    std::printf("clips: %u\n", m.animation_count);
    for (uint32_t a = 0; a < m.animation_count; ++a) {
        // Clip a is the same animation for every skin; report the channels each skin takes.
        const gltf_model_clip *c0 = m.skin_count ? &m.skins[0].clips[a] : nullptr;
        if (!c0) {
            std::printf("  clip %u: (no skin)\n", a);
            continue;
        }
        uint32_t bits = 0, used = 0;
        for (uint32_t s = 0; s < m.skin_count; ++s) {
            bits |= m.skins[s].clips[a].interpolations;
            used += m.skins[s].clips[a].clip.channel_count;
        }
        std::string buf;
        std::printf("  clip %u %s: %g .. %g s (duration %g s), %u channels (%u on joints), %s\n", a,
                    quoted(c0->name).c_str(), double(c0->start), double(c0->end), double(c0->end - c0->start),
                    c0->animation_channels, used, interp_names(bits, &buf));
        if (m.skin_count > 1)
            for (uint32_t s = 0; s < m.skin_count; ++s)
                std::printf("    skin %u: %u channels\n", s, m.skins[s].clips[a].clip.channel_count);
    }
    return 0;
}

// ---------------------------------------------------------------- posing

struct Skeleton {
    gpuskin_skeleton s{};
    bool ok = false;
    ~Skeleton() {
        if (ok) gpuskin_skeleton_free(&s);
    }
};

// The palette of one skin: clip (or the rest pose when clip is NULL) at time t.
void skin_palette(const gltf_model_skin &sk, const gpuskin_skeleton &skel, const gltf_model_clip *clip, float t,
                  std::vector<gpuskin_mat4> *palette) {
    std::vector<gpuskin_trs> local(sk.joint_count);
    std::vector<gpuskin_mat4> globals(sk.joint_count);
    palette->resize(sk.joint_count);
    if (clip)
        CHECK_GS(gpuskin_clip_sample(&clip->clip, &skel, t, local.data()), "gpuskin_clip_sample");
    CHECK_GS(gpuskin_skeleton_globals(&skel, clip ? local.data() : nullptr, globals.data()),
             "gpuskin_skeleton_globals");
    CHECK_GS(gpuskin_skeleton_palette(&skel, nullptr, globals.data(), palette->data()), "gpuskin_skeleton_palette");
}

struct Packed {
    uint32_t method_word = GPUSKIN_METHOD_LBS;
    std::vector<float> lbs, dq, res;
};

Packed pack(const std::vector<gpuskin_mat4> &palette, gpuskin_method method, gpuskin_split_method split) {
    Packed p;
    uint32_t jc = uint32_t(palette.size());
    if (method == GPUSKIN_METHOD_LBS) {
        p.lbs.resize(size_t(jc) * GPUSKIN_LBS_FLOATS_PER_JOINT);
        CHECK_GS(gpuskin_pack_lbs(palette.data(), jc, p.lbs.data()), "gpuskin_pack_lbs");
        p.method_word = GPUSKIN_METHOD_LBS;
    } else {
        p.dq.resize(size_t(jc) * GPUSKIN_DQ_FLOATS_PER_JOINT);
        p.res.resize(size_t(jc) * GPUSKIN_RESIDUAL_FLOATS_PER_JOINT);
        CHECK_GS(gpuskin_pack_dq(palette.data(), jc, split, p.dq.data(), p.res.data(), &p.method_word),
                 "gpuskin_pack_dq");
    }
    return p;
}

// Skinned vertices of one primitive: positions (3), normals (3, if any), tangents (4, if any).
struct Posed {
    std::vector<float> pos, nrm, tan;
};

Posed skin_cpu(const gltf_model_primitive &pr, uint32_t joint_count, const Packed &pk) {
    Posed out;
    const gpuskin_vertex_streams &st = pr.streams;
    out.pos.resize(st.vertex_count * 3);
    if (st.normals.data) out.nrm.resize(st.vertex_count * 3);
    if (st.tangents.data) out.tan.resize(st.vertex_count * 4);
    gpuskin_cpu_skin_desc d{};
    d.streams = st;
    d.joint_count = joint_count;
    d.method_word = pk.method_word;
    d.lbs_palette = pk.lbs.empty() ? nullptr : pk.lbs.data();
    d.dq_palette = pk.dq.empty() ? nullptr : pk.dq.data();
    d.residual_palette = pk.res.empty() ? nullptr : pk.res.data();
    d.out_positions = {out.pos.data(), 12};
    d.out_normals = {out.nrm.empty() ? nullptr : out.nrm.data(), 12};
    d.out_tangents = {out.tan.empty() ? nullptr : out.tan.data(), 16};
    size_t bad = 0;
    d.out_error_index = &bad;
    gpuskin_result r = gpuskin_skin_cpu(&d);
    if (r != GPUSKIN_SUCCESS) run_error("gpuskin_skin_cpu: " + rs(r) + " (vertex " + std::to_string(bad) + ")");
    return out;
}

// ---------------------------------------------------------------- GPU

// One instance of a crowd dispatch: its palette (joint_count matrices) and method.
struct GpuInstance {
    const gpuskin_mat4 *palette;
    gpuskin_method method;
};

#ifndef GPUSKIN_CLI_GPU
class GpuBackend {
public:
    static std::unique_ptr<GpuBackend> create(std::string *err) {
        *err = "this gpuskin was built without Vulkan";
        return nullptr;
    }
    std::string device_name() const { return ""; }
    bool skin(const gltf_model_primitive &, uint32_t, const GpuInstance *, uint32_t, gpuskin_split_method,
              std::vector<Posed> *, std::string *err) {
        *err = "this gpuskin was built without Vulkan";
        return false;
    }
};
#endif

void init_skeletons(const gltf_model &m, std::vector<std::unique_ptr<Skeleton>> *skels) {
    for (uint32_t s = 0; s < m.skin_count; ++s) {
        skels->emplace_back(new Skeleton());
        gpuskin_result r = gpuskin_skeleton_init(&skels->back()->s, &m.skins[s].desc);
        if (r != GPUSKIN_SUCCESS) run_error("skin " + std::to_string(s) + ": gpuskin_skeleton_init: " + rs(r));
        skels->back()->ok = true;
        for (uint32_t c = 0; c < m.skins[s].clip_count; ++c) {
            r = gpuskin_clip_validate(&m.skins[s].clips[c].clip, m.skins[s].joint_count);
            if (r != GPUSKIN_SUCCESS)
                run_error("skin " + std::to_string(s) + " clip " + std::to_string(c) + ": " + rs(r));
        }
    }
}

fjson float_array(const std::vector<float> &v) {
    fjson a = fjson::array();
    for (float f : v) a.push_back(f);
    return a;
}

int cmd_skin(const Options &o) {
    ModelPtr mp;
    load_model(o.model, &mp);
    const gltf_model &m = *mp.m;
    if (m.skinned_node_count == 0) run_error(o.model + ": has no skinned node (a node with both mesh and skin)");
    long clip = o.clip;
    if (clip < 0 && m.animation_count > 0) clip = 0;
    if (clip >= 0 && uint32_t(clip) >= m.animation_count)
        usage_error("--clip " + std::to_string(clip) + " is out of range: " + o.model + " has " +
                    std::to_string(m.animation_count) + " clip" + (m.animation_count == 1 ? "" : "s"));
    float t = float(o.time);

    std::vector<std::unique_ptr<Skeleton>> skels;
    init_skeletons(m, &skels);
    std::vector<Packed> packed(m.skin_count);
    std::vector<std::vector<gpuskin_mat4>> palettes(m.skin_count);
    std::vector<char> needed(m.skin_count, 0);
    for (uint32_t n = 0; n < m.skinned_node_count; ++n) needed[m.skinned_nodes[n].skin] = 1;
    for (uint32_t s = 0; s < m.skin_count; ++s) {
        if (!needed[s]) continue;
        const gltf_model_clip *c = clip >= 0 ? &m.skins[s].clips[clip] : nullptr;
        skin_palette(m.skins[s], skels[s]->s, c, t, &palettes[s]);
        packed[s] = pack(palettes[s], o.method, o.split);
    }

    std::unique_ptr<GpuBackend> gpu;
    if (o.gpu) {
        std::string err;
        gpu = GpuBackend::create(&err);
        if (!gpu) run_error("--device gpu: " + err);
    }

    fjson root;
    root["model"] = o.model;
    root["clip"] = clip >= 0 ? fjson(clip) : fjson(nullptr);
    root["clip_name"] = clip >= 0 ? fjson(m.skins[0].clips[clip].name) : fjson(nullptr);
    root["time"] = t;
    root["method"] = o.method == GPUSKIN_METHOD_LBS ? "lbs" : "dqs";
    root["device"] = o.gpu ? "gpu" : "cpu";
    if (o.gpu) root["device_name"] = gpu->device_name();
    fjson nodes = fjson::array();
    for (uint32_t n = 0; n < m.skinned_node_count; ++n) {
        const gltf_model_skinned_node &sn = m.skinned_nodes[n];
        fjson jn;
        jn["node"] = sn.node;
        jn["mesh"] = sn.mesh;
        jn["skin"] = sn.skin;
        fjson prims = fjson::array();
        for (uint32_t p = 0; p < sn.primitive_count; ++p) {
            const gltf_model_primitive &pr = sn.primitives[p];
            uint32_t jc = m.skins[sn.skin].joint_count;
            Posed posed;
            if (o.gpu) {
                std::vector<Posed> outs;
                std::string err;
                GpuInstance inst{palettes[sn.skin].data(), o.method};
                if (!gpu->skin(pr, jc, &inst, 1, o.split, &outs, &err)) run_error("--device gpu: " + err);
                posed = std::move(outs[0]);
            } else {
                posed = skin_cpu(pr, jc, packed[sn.skin]);
            }
            fjson jp;
            jp["primitive"] = pr.primitive;
            jp["vertex_count"] = pr.streams.vertex_count;
            jp["positions"] = float_array(posed.pos);
            jp["normals"] = float_array(posed.nrm);
            if (!posed.tan.empty()) jp["tangents"] = float_array(posed.tan);
            prims.push_back(std::move(jp));
        }
        jn["primitives"] = std::move(prims);
        nodes.push_back(std::move(jn));
    }
    root["skinned_nodes"] = std::move(nodes);
    std::string text = root.dump() + "\n";
    if (o.out.empty() || o.out == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        if (std::fflush(stdout) != 0) run_error("cannot write to stdout");
    } else {
        std::ofstream f(o.out, std::ios::binary);
        if (!f) run_error("cannot open '" + o.out + "' for writing");
        f << text;
        f.close();
        if (!f) run_error("cannot write '" + o.out + "'");
    }
    return 0;
}

// ---------------------------------------------------------------- verify

int cmd_verify(const Options &o) {
    ModelPtr mp;
    load_model(o.model, &mp);
    const gltf_model &m = *mp.m;
    if (m.skinned_node_count == 0) run_error(o.model + ": has no skinned node (a node with both mesh and skin)");
    std::string err;
    std::unique_ptr<GpuBackend> gpu = GpuBackend::create(&err);
    if (!gpu) run_error("verify needs the GPU: " + err);
    std::vector<std::unique_ptr<Skeleton>> skels;
    init_skeletons(m, &skels);

    double size = gltf_model_size(&m);
    double tol = 1e-5 * size;
    // Normals are unit-length directions: their tolerance does not scale with the model.
    double ntol = 1e-4;
    std::printf("verify %s on %s: %u skinned node%s, tolerance %.3g (1e-5 x model size %.4g)\n", o.model.c_str(),
                gpu->device_name().c_str(), m.skinned_node_count, m.skinned_node_count == 1 ? "" : "s", tol, size);
    bool all_ok = true;
    uint32_t clip_count = m.animation_count ? m.animation_count : 1;
    const gpuskin_method methods[2] = {GPUSKIN_METHOD_LBS, GPUSKIN_METHOD_DQS};
    for (uint32_t c = 0; c < clip_count; ++c) {
        bool rest = m.animation_count == 0;
        float end = rest ? 0.f : m.skins[0].clips[c].end;
        float times[5] = {0.f, end * 0.25f, end * 0.5f, end * 0.75f, end};
        double worst[2] = {0, 0}, worst_n[2] = {0, 0};
        size_t compared = 0;
        // Instances: every (time, method) pair in one crowd dispatch per primitive.
        std::vector<std::vector<gpuskin_mat4>> palettes(size_t(m.skin_count) * 5);
        for (uint32_t s = 0; s < m.skin_count; ++s)
            for (int k = 0; k < 5; ++k)
                skin_palette(m.skins[s], skels[s]->s, rest ? nullptr : &m.skins[s].clips[c], times[k],
                             &palettes[size_t(s) * 5 + size_t(k)]);
        for (uint32_t n = 0; n < m.skinned_node_count; ++n) {
            const gltf_model_skinned_node &sn = m.skinned_nodes[n];
            uint32_t jc = m.skins[sn.skin].joint_count;
            std::vector<GpuInstance> insts;
            for (int mi = 0; mi < 2; ++mi)
                for (int k = 0; k < 5; ++k)
                    insts.push_back(GpuInstance{palettes[size_t(sn.skin) * 5 + size_t(k)].data(), methods[mi]});
            for (uint32_t p = 0; p < sn.primitive_count; ++p) {
                const gltf_model_primitive &pr = sn.primitives[p];
                std::vector<Posed> outs;
                if (!gpu->skin(pr, jc, insts.data(), uint32_t(insts.size()), o.split, &outs, &err))
                    run_error("node " + std::to_string(sn.node) + " primitive " + std::to_string(pr.primitive) +
                              ": " + err);
                for (size_t i = 0; i < insts.size(); ++i) {
                    int mi = int(i / 5);
                    Posed ref = skin_cpu(pr, jc,
                                         pack(palettes[size_t(sn.skin) * 5 + i % 5], insts[i].method, o.split));
                    for (size_t v = 0; v < ref.pos.size(); ++v)
                        worst[mi] = std::max(worst[mi], double(std::fabs(ref.pos[v] - outs[i].pos[v])));
                    for (size_t v = 0; v < ref.nrm.size(); ++v)
                        worst_n[mi] = std::max(worst_n[mi], double(std::fabs(ref.nrm[v] - outs[i].nrm[v])));
                    for (size_t v = 0; v < ref.pos.size(); ++v)
                        if (!std::isfinite(outs[i].pos[v])) worst[mi] = INFINITY;
                    compared += pr.streams.vertex_count;
                }
            }
        }
        bool ok = worst[0] <= tol && worst[1] <= tol && worst_n[0] <= ntol && worst_n[1] <= ntol;
        all_ok = all_ok && ok;
        std::string name = rest ? "(rest pose)" : quoted(m.skins[0].clips[c].name);
        std::printf("clip %u %s: t = 0, %g, %g, %g, %g; worst position error lbs %.3g, dqs %.3g; worst normal "
                    "error lbs %.3g, dqs %.3g; %zu vertices compared: %s\n",
                    c, name.c_str(), double(times[1]), double(times[2]), double(times[3]), double(times[4]), worst[0],
                    worst[1], worst_n[0], worst_n[1], compared, ok ? "ok" : "OVER TOLERANCE");
    }
    std::printf("%s\n", all_ok ? "verify: ok" : "verify: FAILED");
    return all_ok ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
    Options o;
    try {
        if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
                          std::strcmp(argv[1], "help") == 0)) {
            std::fputs(kUsage, stdout);
            return 0;
        }
        o = parse_args(argc, argv);
        if (o.command == "info") return cmd_info(o);
        if (o.command == "skin") return cmd_skin(o);
        return cmd_verify(o);
    } catch (const UsageError &e) {
        std::fprintf(stderr, "gpuskin: %s (gpuskin --help for usage)\n", e.msg.c_str());
        return 2;
    } catch (const RunError &e) {
        std::fprintf(stderr, "gpuskin: %s\n", e.msg.c_str());
        return 1;
    } catch (const std::bad_alloc &) {
        std::fprintf(stderr, "gpuskin: out of memory\n");
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "gpuskin: %s\n", e.what());
        return 1;
    }
}
