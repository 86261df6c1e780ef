# Examples: build/crowd (the demo: `make demo`) and build/twist (LBS against DQS on
# a half-turn twist; also a test). Each example is one C99 file that compiles
# gpuskin's implementation, vk_setup.h and stb_image_write itself; volk is linked
# from $(BUILD)/volk.o (mk/gpu.mk: volk.c is not -Wpedantic clean, so it is built
# without $(WARN)).
EX_FLAGS := -std=c99 $(WARN) -I.
EX_HDRS  := gpuskin.h gpuskin_shaders.h examples/common/vk_setup.h examples/common/rig.h

$(BUILD)/crowd: examples/crowd/crowd.c $(EX_HDRS) $(BUILD)/volk.o | $(BUILD)
	$(CC) $(CFLAGS) $(EX_FLAGS) $< $(BUILD)/volk.o -o $@ $(VK_LIBS)

$(BUILD)/twist: examples/twist/twist.c $(EX_HDRS) $(BUILD)/volk.o | $(BUILD)
	$(CC) $(CFLAGS) $(EX_FLAGS) $< $(BUILD)/volk.o -o $@ $(VK_LIBS)

# The same demo with --model PATH.glb: crowd.c built with CROWD_GLTF, linked with
# the glTF adapter (C++, tinygltf: $(BUILD)/gltf_model.o from mk/gltf.mk). Kept
# apart so that `make demo` compiles no C++.
$(BUILD)/crowd_gltf.o: examples/crowd/crowd.c $(EX_HDRS) tools/gltf_model.h | $(BUILD)
	$(CC) $(CFLAGS) $(EX_FLAGS) -DCROWD_GLTF -c $< -o $@

$(BUILD)/crowd_gltf: $(BUILD)/crowd_gltf.o $(BUILD)/gltf_model.o $(BUILD)/volk.o
	$(CXX) $(CXXFLAGS) $^ -o $@ $(VK_LIBS)

all: $(BUILD)/crowd $(BUILD)/twist $(BUILD)/crowd_gltf

# The README's "run it": a 64-character crowd to build/crowd.png.
demo: $(BUILD)/crowd
	$(BUILD)/crowd --out $(BUILD)/crowd.png

# As tests, with the validation layer on (any message fails the run).
TESTS += "$(BUILD)/twist --validate --out $(BUILD)/artifacts/twist.png"
TESTS += "$(BUILD)/crowd --validate --instances 16 --out $(BUILD)/artifacts/crowd16.png"
TESTS += "$(BUILD)/crowd_gltf --validate --instances 9 --model tests/assets/CesiumMan.glb --out $(BUILD)/artifacts/crowd_cesiumman.png"
TEST_DEPS += $(BUILD)/twist $(BUILD)/crowd $(BUILD)/crowd_gltf
