# glTF tools: the adapter (tools/gltf_model.*), the `gpuskin` CLI, the fixture
# generator and their tests. tinygltf's implementation lives in gltf_model.o only.
GLTF_CXXFLAGS := -std=c++17 $(WARN) -I. -Itools
GLTF_CFLAGS   := -std=c99 $(WARN) -I.

# The library's C half (maths, clips, oracle), compiled from the header as C.
$(BUILD)/gltf_gpuskin_nv.o: gpuskin.h | $(BUILD)
	$(CC) $(CFLAGS) $(GLTF_CFLAGS) -x c -DGPUSKIN_IMPLEMENTATION -DGPUSKIN_NO_VULKAN -c $< -o $@

$(BUILD)/gltf_model.o: tools/gltf_model.cpp tools/gltf_model.h gpuskin.h | $(BUILD)
	$(CXX) $(CXXFLAGS) $(GLTF_CXXFLAGS) -DGPUSKIN_NO_VULKAN -c $< -o $@

# The whole library with its Vulkan half (C), and vk_setup.h's implementation, for
# the CLI's --device gpu and verify; volk.o comes from mk/gpu.mk.
$(BUILD)/gltf_gpuskin_vk.o: gpuskin.h gpuskin_shaders.h | $(BUILD)
	$(CC) $(CFLAGS) $(GLTF_CFLAGS) -x c -include volk.h -DGPUSKIN_IMPLEMENTATION \
	    -c $< -o $@

$(BUILD)/gltf_vk_setup.o: examples/common/vk_setup.h | $(BUILD)
	$(CC) $(CFLAGS) $(GLTF_CFLAGS) -x c -DVK_SETUP_IMPLEMENTATION -c $< -o $@

GLTF_CLI_HDRS := tools/gltf_model.h gpuskin.h examples/common/vk_setup.h

$(BUILD)/gpuskin_cli.o: tools/gpuskin_cli.cpp $(GLTF_CLI_HDRS) | $(BUILD)
	$(CXX) $(CXXFLAGS) $(GLTF_CXXFLAGS) -DGPUSKIN_CLI_GPU -c $< -o $@

GLTF_CLI_OBJS := gpuskin_cli.o gltf_model.o gltf_gpuskin_vk.o gltf_vk_setup.o volk.o

$(BUILD)/gpuskin: $(addprefix $(BUILD)/,$(GLTF_CLI_OBJS))
	$(CXX) $(CXXFLAGS) $^ -o $@ $(VK_LIBS)

all: $(BUILD)/gpuskin

$(BUILD)/make_fixtures.o: tools/make_fixtures.cpp | $(BUILD)
	$(CXX) $(CXXFLAGS) $(GLTF_CXXFLAGS) -c $< -o $@

# tinygltf's implementation comes from gltf_model.o.
$(BUILD)/make_fixtures: $(BUILD)/make_fixtures.o $(BUILD)/gltf_model.o
	$(CXX) $(CXXFLAGS) $^ -o $@ -lm

# Regenerates the committed fixtures (run by hand after changing make_fixtures.cpp).
.PHONY: fixtures
fixtures: $(BUILD)/make_fixtures
	$(BUILD)/make_fixtures tests/assets/synthetic

all: $(BUILD)/make_fixtures

$(BUILD)/test_gltf.o: tests/test_gltf.cpp tests/testing.h tools/gltf_model.h gpuskin.h | $(BUILD)
	$(CXX) $(CXXFLAGS) $(GLTF_CXXFLAGS) -c $< -o $@

$(BUILD)/test_gltf: $(BUILD)/test_gltf.o $(BUILD)/gltf_model.o $(BUILD)/gltf_gpuskin_nv.o
	$(CXX) $(CXXFLAGS) $^ -o $@ -lm

TESTS += "GPUSKIN_CLI=$(BUILD)/gpuskin $(BUILD)/test_gltf"
TEST_DEPS += $(BUILD)/test_gltf $(BUILD)/gpuskin

# The CLI again under AddressSanitizer + UBSan, for the malformed-file tests.
GLTF_SAN_DIR := $(BUILD)/gltf_san

$(GLTF_SAN_DIR)/gltf_model.o: tools/gltf_model.cpp tools/gltf_model.h gpuskin.h
	@mkdir -p $(GLTF_SAN_DIR)
	$(CXX) $(CXXFLAGS) $(SAN) $(GLTF_CXXFLAGS) -DGPUSKIN_NO_VULKAN -c $< -o $@

$(GLTF_SAN_DIR)/gpuskin_cli.o: tools/gpuskin_cli.cpp $(GLTF_CLI_HDRS)
	@mkdir -p $(GLTF_SAN_DIR)
	$(CXX) $(CXXFLAGS) $(SAN) $(GLTF_CXXFLAGS) -DGPUSKIN_CLI_GPU -c $< -o $@

$(GLTF_SAN_DIR)/gltf_gpuskin_vk.o: gpuskin.h gpuskin_shaders.h
	@mkdir -p $(GLTF_SAN_DIR)
	$(CC) $(CFLAGS) $(SAN) $(GLTF_CFLAGS) -x c -include volk.h -DGPUSKIN_IMPLEMENTATION \
	    -c $< -o $@

$(BUILD)/gpuskin_asan: $(GLTF_SAN_DIR)/gpuskin_cli.o $(GLTF_SAN_DIR)/gltf_model.o $(GLTF_SAN_DIR)/gltf_gpuskin_vk.o \
                       $(BUILD)/gltf_vk_setup.o $(BUILD)/volk.o
	$(CXX) $(CXXFLAGS) $(SAN) $^ -o $@ $(VK_LIBS)

TESTS += "bash tests/test_gltf.sh $(BUILD)"
TEST_DEPS += $(BUILD)/gpuskin $(BUILD)/gpuskin_asan $(BUILD)/make_fixtures
