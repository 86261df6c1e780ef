# Examples: build/crowd (the demo: `make demo`) and build/twist (LBS against DQS on
# a half-turn twist; also a test). Each example is one C99 file that compiles
# gpuskin's implementation, vk_setup.h and stb_image_write itself; volk is linked
# from $(BUILD)/volk.o (mk/gpu.mk: volk.c is not -Wpedantic clean, so it is built
# without $(WARN)).
EX_FLAGS := -std=c99 $(WARN) -I.
EX_HDRS  := gpuskin.h gpuskin_vulkan.inc gpuskin_shaders.h examples/common/vk_setup.h examples/common/rig.h

$(BUILD)/crowd: examples/crowd/crowd.c $(EX_HDRS) $(BUILD)/volk.o | $(BUILD)
	$(CC) $(CFLAGS) $(EX_FLAGS) $< $(BUILD)/volk.o -o $@ $(VK_LIBS)

$(BUILD)/twist: examples/twist/twist.c $(EX_HDRS) $(BUILD)/volk.o | $(BUILD)
	$(CC) $(CFLAGS) $(EX_FLAGS) $< $(BUILD)/volk.o -o $@ $(VK_LIBS)

all: $(BUILD)/crowd $(BUILD)/twist

# The README's "run it": a 64-character crowd to build/crowd.png.
demo: $(BUILD)/crowd
	$(BUILD)/crowd --out $(BUILD)/crowd.png

# As tests, with the validation layer on (any message fails the run).
TESTS += "$(BUILD)/twist --validate --out $(BUILD)/artifacts/twist.png"
TESTS += "$(BUILD)/crowd --validate --instances 16 --out $(BUILD)/artifacts/crowd16.png"
TEST_DEPS += $(BUILD)/twist $(BUILD)/crowd
