# The Vulkan half: tests/test_gpu.c runs on lavapipe (or GPUSKIN_DEVICE=name) with
# the validation layer and synchronization validation on.
GPU_HDRS := gpuskin.h gpuskin_shaders.h examples/common/vk_setup.h tests/testing.h
GPU_FLAGS := $(WARN) -I. -Itests

# volk.c is not -Wpedantic clean (it casts dlsym's result), so it is built on its
# own, without the project's warning flags.
$(BUILD)/volk.o: $(VOLK_SRC) | $(BUILD)
	$(CC) -O2 -c $< -o $@

$(BUILD)/test_gpu: tests/test_gpu.c $(GPU_HDRS) $(BUILD)/volk.o | $(BUILD)
	$(CC) $(CFLAGS) -std=c99 $(GPU_FLAGS) $< $(BUILD)/volk.o -o $@ $(VK_LIBS) -lstb

# The same program as C++17 (gpuskin must compile as C++) and with clang.
$(BUILD)/test_gpu_cpp: tests/test_gpu.c $(GPU_HDRS) $(BUILD)/volk.o | $(BUILD)
	$(CXX) $(CXXFLAGS) -std=c++17 $(GPU_FLAGS) -x c++ $< -x none $(BUILD)/volk.o -o $@ $(VK_LIBS) -lstb

$(BUILD)/test_gpu_clang.o: tests/test_gpu.c $(GPU_HDRS) | $(BUILD)
	clang $(CFLAGS) -std=c99 $(GPU_FLAGS) -c $< -o $@

$(BUILD)/test_gpu_clangxx.o: tests/test_gpu.c $(GPU_HDRS) | $(BUILD)
	clang++ $(CXXFLAGS) -std=c++17 $(GPU_FLAGS) -x c++ -c $< -o $@

# Under AddressSanitizer and UBSan. Leak checking is off because the Vulkan
# driver (dlopen'ed, no symbols) keeps allocations past exit; gpuskin's own
# leaks are counted by the test itself (GPUSKIN_MALLOC, buffers, Vulkan objects).
$(BUILD)/test_gpu_san: tests/test_gpu.c $(GPU_HDRS) $(BUILD)/volk.o | $(BUILD)
	$(CC) -O1 -g $(SAN) -std=c99 $(GPU_FLAGS) $< $(BUILD)/volk.o -o $@ $(VK_LIBS) -lstb

TESTS += "$(BUILD)/test_gpu" "$(BUILD)/test_gpu_cpp compute" "ASAN_OPTIONS=detect_leaks=0 $(BUILD)/test_gpu_san"
TEST_DEPS += $(BUILD)/test_gpu $(BUILD)/test_gpu_cpp $(BUILD)/test_gpu_san $(BUILD)/test_gpu_clang.o \
             $(BUILD)/test_gpu_clangxx.o

# gpuskin alone, as C and as C++: the library must reference no global vk*
# symbol (every Vulkan call goes through the host's function pointers).
$(BUILD)/gpuskin_vk.o: gpuskin.h gpuskin_shaders.h | $(BUILD)
	$(CC) $(CFLAGS) -std=c99 $(WARN) -I. -x c -DGPUSKIN_IMPLEMENTATION -c $< -o $@

$(BUILD)/gpuskin_vk_cpp.o: gpuskin.h gpuskin_shaders.h | $(BUILD)
	$(CXX) $(CXXFLAGS) -std=c++17 $(WARN) -I. -x c++ -DGPUSKIN_IMPLEMENTATION -c $< -o $@

GPU_NO_GLOBAL_VK = nm $(1) | grep -q ' T gpuskin_cmd_skin' && ! nm -u $(1) | grep -E ' vk[A-Z]'
TESTS += "$(call GPU_NO_GLOBAL_VK,$(BUILD)/gpuskin_vk.o)" "$(call GPU_NO_GLOBAL_VK,$(BUILD)/gpuskin_vk_cpp.o)"
TEST_DEPS += $(BUILD)/gpuskin_vk.o $(BUILD)/gpuskin_vk_cpp.o
