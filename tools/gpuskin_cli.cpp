// gpuskin - command-line tool: inspect, skin and verify glTF models with gpuskin.
//
//   gpuskin info MODEL
//   gpuskin skin MODEL [--clip K] [--time T] [--method lbs|dqs] [--device cpu|gpu]
//                      [--split gs|polar] [--validate] [--out FILE.json]
//   gpuskin verify MODEL [--split gs|polar] [--validate]
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
    "                          [--split gs|polar] [--validate] [--out FILE.json]\n"
    "       gpuskin verify MODEL [--split gs|polar] [--validate]\n"
    "MODEL is a glTF 2.0 file (.gltf or .glb). skin writes JSON (to stdout without --out);\n"
    "--clip defaults to 0 (the rest pose for a model without animations), --time to 0.\n"
    "verify skins every clip at 0, 1/4, 1/2, 3/4 and its end with LBS and DQS on the GPU\n"
    "and with the CPU oracle, and fails when they differ by more than 1e-5 x the model size.\n"
    "--validate turns on the Vulkan validation layer (any message is an error).\n"
    "GPUSKIN_DEVICE=name picks the Vulkan device.\n";

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

bool g_validate = false;  // --validate: Khronos validation layer on; any message is an error

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
        } else if (a == "--validate" && (skin || o.command == "verify")) {
            g_validate = true;
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
        std::string names;
        for (uint32_t j = 0; j < sk.joint_count; ++j) {
            names += (j ? ", " : "") + std::to_string(j) + " " + quoted(sk.joint_names[j]);
            if (sk.desc.parents[j] >= 0) names += "<" + std::to_string(sk.desc.parents[j]);
        }
        std::printf("    joints (index \"name\"<parent): %s\n", names.c_str());
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
        std::printf("  clip %u %s: %g .. %g s (duration %g s), %u channel%s (%u on joints), %s\n", a,
                    quoted(c0->name).c_str(), double(c0->start), double(c0->end), double(c0->end - c0->start),
                    c0->animation_channels, c0->animation_channels == 1 ? "" : "s", used, interp_names(bits, &buf));
        for (uint32_t s = 0; s < m.skin_count; ++s)
            if (m.skins[s].clips[a].ignored_ancestor_channels)
                std::printf("    note: %u channel%s animate%s a non-joint ancestor of skin %u's joints; glTF would "
                            "move the skeleton with it, gpuskin keeps its rest transform\n",
                            m.skins[s].clips[a].ignored_ancestor_channels,
                            m.skins[s].clips[a].ignored_ancestor_channels == 1 ? "" : "s",
                            m.skins[s].clips[a].ignored_ancestor_channels == 1 ? "s" : "", s);
        if (m.skin_count > 1)
            for (uint32_t s = 0; s < m.skin_count; ++s) {
                uint32_t n = m.skins[s].clips[a].clip.channel_count;
                std::printf("    skin %u: %u channel%s\n", s, n, n == 1 ? "" : "s");
            }
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

#ifdef GPUSKIN_CLI_GPU
// Skins on the first Vulkan device vk_setup.h picks (GPUSKIN_DEVICE=name to choose),
// with the compute shader: gpuskin_mesh / gpuskin_crowd / gpuskin_cmd_skin, one
// instance per (palette, method), read back from a GPUSKIN_MEMORY_READBACK buffer.
class GpuBackend {
public:
    static std::unique_ptr<GpuBackend> create(std::string *err) {
        std::unique_ptr<GpuBackend> b(new GpuBackend());
        vks_options o{};
        o.validation = g_validate ? 1 : 0;
        o.app_name = "gpuskin cli";
        VkResult vr = vks_create(&b->vk_, &o);
        if (vr != VK_SUCCESS) {
            *err = "no usable Vulkan device (vks_create returned " + std::to_string(int(vr)) + ")";
            return nullptr;
        }
        b->have_vk_ = true;
        gpuskin_context_desc cd{};
        const char *missing = nullptr;
        cd.instance = b->vk_.instance;
        cd.physical_device = b->vk_.physical_device;
        cd.device = b->vk_.device;
        cd.get_instance_proc_addr = vkGetInstanceProcAddr;
        cd.enabled_features12 = &b->vk_.features12;
        cd.enabled_features13 = &b->vk_.features13;
        cd.out_missing_feature = &missing;
        gpuskin_result r = gpuskin_context_create(&cd, &b->ctx_);
        if (r != GPUSKIN_SUCCESS) {
            *err = "gpuskin_context_create: " + rs(r) + (missing ? std::string(" (missing ") + missing + ")" : "");
            return nullptr;
        }
        return b;
    }

    ~GpuBackend() {
        if (ctx_) gpuskin_context_destroy(ctx_);
        if (have_vk_) vks_destroy(&vk_);
    }

    std::string device_name() const { return vk_.properties.deviceName; }

    // Validation messages so far (0 without --validate).
    unsigned messages() const { return vk_.messages; }

    bool skin(const gltf_model_primitive &pr, uint32_t joint_count, const GpuInstance *insts, uint32_t count,
              gpuskin_split_method split, std::vector<Posed> *outs, std::string *err) {
        const gpuskin_vertex_streams &st = pr.streams;
        uint32_t flags = (st.normals.data ? GPUSKIN_OUTPUT_NORMALS : 0u) | (st.tangents.data ? GPUSKIN_OUTPUT_TANGENTS : 0u);
        uint32_t stride = gpuskin_output_stride(flags);
        gpuskin_mesh *mesh = nullptr;
        gpuskin_crowd *crowd = nullptr;
        gpuskin_buffer out{};
        gpuskin_allocator alloc = gpuskin_default_allocator(ctx_);
        bool ok = false;
        std::vector<gpuskin_mat4> pal(size_t(count) * joint_count);
        std::vector<uint8_t> methods(count);
        for (uint32_t i = 0; i < count; ++i) {
            std::copy(insts[i].palette, insts[i].palette + joint_count, pal.begin() + long(size_t(i) * joint_count));
            methods[i] = uint8_t(insts[i].method);
        }
        do {
            gpuskin_mesh_desc md{};
            md.streams = st;
            md.joint_count = joint_count;  // compute only: no index buffer needed
            size_t bad = 0;
            md.out_error_index = &bad;
            gpuskin_result r = gpuskin_mesh_create(ctx_, &md, &mesh);
            if (r != GPUSKIN_SUCCESS) {
                *err = "gpuskin_mesh_create: " + rs(r) + " (vertex " + std::to_string(bad) + ")";
                break;
            }
            gpuskin_crowd_desc cd{};
            cd.mesh = mesh;
            cd.capacity = count;
            cd.frames_in_flight = 1;
            r = gpuskin_crowd_create(ctx_, &cd, &crowd);
            if (r != GPUSKIN_SUCCESS) {
                *err = "gpuskin_crowd_create: " + rs(r);
                break;
            }
            gpuskin_crowd_upload_desc up{};
            up.frame = 0;
            up.instance_count = count;
            up.palettes = pal.data();
            up.methods = methods.data();
            up.split = split;
            r = gpuskin_crowd_upload(crowd, &up);
            if (r != GPUSKIN_SUCCESS) {
                *err = "gpuskin_crowd_upload: " + rs(r);
                break;
            }
            VkDeviceSize bytes = VkDeviceSize(count) * st.vertex_count * stride;
            VkResult vr = alloc.create_buffer(alloc.user, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                              GPUSKIN_MEMORY_READBACK, &out);
            if (vr != VK_SUCCESS || !out.mapped) {
                *err = "cannot allocate a readback buffer of " + std::to_string(bytes) + " bytes";
                break;
            }
            VkCommandBuffer cmd;
            if (vks_begin(&vk_, &cmd) != VK_SUCCESS) {
                *err = "vkBeginCommandBuffer failed";
                break;
            }
            if (gpuskin_mesh_needs_upload(mesh)) gpuskin_cmd_upload_mesh(mesh, cmd);
            gpuskin_skin_dispatch_desc sd{};
            sd.frame = 0;
            sd.first_instance = 0;
            sd.instance_count = count;
            sd.output = out.address;
            sd.output_size = out.size;
            sd.output_flags = flags;
            r = gpuskin_cmd_skin(crowd, cmd, &sd);
            VkBufferMemoryBarrier host{};
            host.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
            host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
            host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
            host.srcQueueFamilyIndex = host.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
            host.buffer = out.buffer;
            host.size = VK_WHOLE_SIZE;
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr,
                                 1, &host, 0, nullptr);
            vr = vks_submit_wait(&vk_, cmd);  // submits even after a failed record: it frees cmd
            if (r != GPUSKIN_SUCCESS) {
                *err = "gpuskin_cmd_skin: " + rs(r);
                break;
            }
            if (vr != VK_SUCCESS) {
                *err = "queue submit failed (VkResult " + std::to_string(int(vr)) + ")";
                break;
            }
            const float *g = static_cast<const float *>(out.mapped);
            size_t per = stride / 4, vc = st.vertex_count;
            outs->assign(count, Posed());
            for (uint32_t i = 0; i < count; ++i) {
                Posed &p = (*outs)[i];
                p.pos.resize(vc * 3);
                if (flags & GPUSKIN_OUTPUT_NORMALS) p.nrm.resize(vc * 3);
                if (flags & GPUSKIN_OUTPUT_TANGENTS) p.tan.resize(vc * 4);
                for (size_t v = 0; v < vc; ++v) {
                    const float *r0 = g + (size_t(i) * vc + v) * per;
                    size_t o = 3;
                    std::copy(r0, r0 + 3, p.pos.begin() + long(v * 3));
                    if (flags & GPUSKIN_OUTPUT_NORMALS) {
                        std::copy(r0 + o, r0 + o + 3, p.nrm.begin() + long(v * 3));
                        o += 3;
                    }
                    if (flags & GPUSKIN_OUTPUT_TANGENTS) std::copy(r0 + o, r0 + o + 4, p.tan.begin() + long(v * 4));
                }
            }
            ok = true;
        } while (false);
        if (out.buffer) alloc.destroy_buffer(alloc.user, &out);
        gpuskin_crowd_destroy(crowd);
        gpuskin_mesh_destroy(mesh);
        if (ok && vk_.messages) {
            *err = std::to_string(vk_.messages) + " Vulkan validation message(s), see above";
            ok = false;
        }
        return ok;
    }

private:
    GpuBackend() = default;
    vks_context vk_{};
    gpuskin_context *ctx_ = nullptr;
    bool have_vk_ = false;
};
#else
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

    // Model size: the diagonal of the box around every posed (world-space) vertex the
    // oracle produced for the clip; the bind pose can be in other units (quantised meshes).
    // Normals and tangents are unit directions: their tolerance does not scale.
    const double dir_tol = 1e-5;
    std::printf("verify %s on %s: %u skinned node%s\n", o.model.c_str(), gpu->device_name().c_str(),
                m.skinned_node_count, m.skinned_node_count == 1 ? "" : "s");
    bool all_ok = true;
    uint32_t clip_count = m.animation_count ? m.animation_count : 1;
    const gpuskin_method methods[2] = {GPUSKIN_METHOD_LBS, GPUSKIN_METHOD_DQS};
    for (uint32_t c = 0; c < clip_count; ++c) {
        bool rest = m.animation_count == 0;
        float end = rest ? 0.f : m.skins[0].clips[c].end;
        float times[5] = {0.f, end * 0.25f, end * 0.5f, end * 0.75f, end};
        double worst[2] = {0, 0}, worst_dir[2] = {0, 0};
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        size_t compared = 0;
        // Instances: every (method, time) pair in one crowd dispatch per primitive.
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
                    const Posed &g = outs[i];
                    for (size_t v = 0; v < ref.pos.size(); ++v) {
                        double d = std::fabs(double(ref.pos[v]) - double(g.pos[v]));
                        worst[mi] = std::max(worst[mi], std::isfinite(g.pos[v]) ? d : INFINITY);
                        lo[v % 3] = std::min(lo[v % 3], ref.pos[v]);
                        hi[v % 3] = std::max(hi[v % 3], ref.pos[v]);
                    }
                    for (size_t v = 0; v < ref.nrm.size(); ++v) {
                        double d = std::fabs(double(ref.nrm[v]) - double(g.nrm[v]));
                        worst_dir[mi] = std::max(worst_dir[mi], std::isfinite(g.nrm[v]) ? d : INFINITY);
                    }
                    for (size_t v = 0; v < ref.tan.size(); ++v) {
                        double d = std::fabs(double(ref.tan[v]) - double(g.tan[v]));
                        worst_dir[mi] = std::max(worst_dir[mi], std::isfinite(g.tan[v]) ? d : INFINITY);
                    }
                    compared += pr.streams.vertex_count;
                }
            }
        }
        double posed = 0;
        for (int k = 0; k < 3; ++k) posed += double(hi[k] - lo[k]) * double(hi[k] - lo[k]);
        double size = std::sqrt(posed);
        if (!(size > 0)) size = 1;
        double tol = 1e-5 * size;
        bool ok = worst[0] <= tol && worst[1] <= tol && worst_dir[0] <= dir_tol && worst_dir[1] <= dir_tol;
        all_ok = all_ok && ok;
        std::string name = rest ? "(rest pose)" : quoted(m.skins[0].clips[c].name);
        std::printf("clip %u %s: t = 0, %g, %g, %g, %g s; %zu vertices compared; worst position error lbs %.3g, "
                    "dqs %.3g (tolerance %.3g = 1e-5 x size %.4g); worst normal/tangent error lbs %.3g, dqs %.3g "
                    "(tolerance %.3g): %s\n",
                    c, name.c_str(), double(times[1]), double(times[2]), double(times[3]), double(times[4]), compared,
                    worst[0], worst[1], tol, size, worst_dir[0], worst_dir[1], dir_tol, ok ? "ok" : "OVER TOLERANCE");
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
