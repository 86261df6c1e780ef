# Shaders: shaders/*.{vert,frag,comp,glsl} -> gpuskin_shaders.h (committed).
# `make shaders` regenerates it; `make check-shaders` regenerates into build/ and
# fails if the committed header differs (a shader edited without regenerating).
# Neither runs implicitly: the header is a source file, so a build never needs
# glslang, and a stale one cannot be papered over by a rebuild.
SHADER_SRC := $(wildcard shaders/*.glsl shaders/*.vert shaders/*.frag shaders/*.comp)

$(BUILD)/gen_shaders: tools/gen_shaders.c | $(BUILD)
	$(CC) -std=c99 $(WARN) -O1 $< -o $@

shaders: $(BUILD)/gen_shaders $(SHADER_SRC)
	$(BUILD)/gen_shaders shaders gpuskin_shaders.h $(BUILD)

check-shaders: $(BUILD)/gen_shaders $(SHADER_SRC)
	@mkdir -p $(BUILD)/check-shaders
	@$(BUILD)/gen_shaders shaders $(BUILD)/check-shaders/gpuskin_shaders.h $(BUILD)/check-shaders
	@cmp -s gpuskin_shaders.h $(BUILD)/check-shaders/gpuskin_shaders.h || \
	    { echo "gpuskin_shaders.h is stale: run 'make shaders' and commit it"; exit 1; }
	@echo "gpuskin_shaders.h matches shaders/"

TESTS += "$(MAKE) -s check-shaders"
TEST_DEPS += $(BUILD)/gen_shaders
