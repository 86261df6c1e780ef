# glTF tools: the adapter (tools/gltf_model.*), the `gpuskin` CLI, the fixture
# generator and their tests. tinygltf's implementation lives in gltf_model.o only.
GLTF_CXXFLAGS := -std=c++17 $(WARN) -I. -Itools
GLTF_CFLAGS   := -std=c99 $(WARN) -I.

# The library's C half (maths, clips, oracle), compiled from the header as C.
$(BUILD)/gltf_gpuskin_nv.o: gpuskin.h | $(BUILD)
	$(CC) $(CFLAGS) $(GLTF_CFLAGS) -x c -DGPUSKIN_IMPLEMENTATION -DGPUSKIN_NO_VULKAN -c $< -o $@

$(BUILD)/gltf_model.o: tools/gltf_model.cpp tools/gltf_model.h gpuskin.h | $(BUILD)
	$(CXX) $(CXXFLAGS) $(GLTF_CXXFLAGS) -DGPUSKIN_NO_VULKAN -c $< -o $@

$(BUILD)/gpuskin_cli.o: tools/gpuskin_cli.cpp tools/gltf_model.h gpuskin.h | $(BUILD)
	$(CXX) $(CXXFLAGS) $(GLTF_CXXFLAGS) -c $< -o $@

$(BUILD)/gpuskin: $(BUILD)/gpuskin_cli.o $(BUILD)/gltf_model.o $(BUILD)/gltf_gpuskin_nv.o
	$(CXX) $(CXXFLAGS) $^ -o $@ -lm

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
