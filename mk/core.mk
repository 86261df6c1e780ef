# Core tests: the non-Vulkan half of gpuskin.h.
#   tests/test_core.c   maths, skeleton, dual-quaternion split and packing, CPU oracle,
#                       every error code, property tests over random rigs
#   tests/test_clips.c  clip sampling, loop time, validation, pose blending
#   tests/test_robust.c randomised robustness: every CPU-side function with hostile
#                       values (NaN, inf, huge, denormal, bad indices, counts, NULLs)
# Each is built with GPUSKIN_NO_VULKAN (the sources define it) as C99 (gcc), C11
# (clang), C++11 (g++) and C++17 (clang++), all with $(WARN), and once more with gcc
# and $(SAN) (ASan + UBSan). Plus compile-only checks that GPUSKIN_NO_VULKAN needs no
# Vulkan header, alone and with GPUSKIN_STATIC: a fake <vulkan/vulkan.h> that #errors
# comes first on the include path, and a negative control proves it is found.

CORE_DIR  := $(BUILD)/core
CORE_HDRS := gpuskin.h tests/testing.h mk/core.mk

# The build stays quick on 2 cores: optimising test_core.c costs 5-10x its -O0
# compile, so only the reference build uses $(CFLAGS) (-O2 catches the warnings that
# need the optimiser, e.g. -Wmaybe-uninitialized), the sanitizer build uses -O1 and
# the other language/compiler builds -O0.
CORE_QUICK := -O0 -g
CORE_VARIANTS := gcc-c99 clang-c11 gxx-cxx11 clangxx-cxx17 gcc-san
CORE_CC_gcc-c99       := gcc -std=c99 $(WARN) $(CFLAGS)
CORE_CC_clang-c11     := clang -std=c11 $(WARN) $(CORE_QUICK)
CORE_CC_gxx-cxx11     := g++ -std=c++11 $(WARN) $(CORE_QUICK) -x c++
CORE_CC_clangxx-cxx17 := clang++ -std=c++17 $(WARN) $(CORE_QUICK) -x c++
CORE_CC_gcc-san       := gcc -std=c99 $(WARN) -O1 -g $(SAN)

CORE_DEPS :=
CORE_TESTS :=

$(CORE_DIR): | $(BUILD)
	mkdir -p $@

# $(1): test name (tests/$(1).c), $(2): variant
define CORE_TEST_PROGRAM
$(CORE_DIR)/$(1)-$(2): tests/$(1).c $(CORE_HDRS) | $(CORE_DIR)
	$(CORE_CC_$(2)) tests/$(1).c -o $$@ -lm
CORE_DEPS += $(CORE_DIR)/$(1)-$(2)
CORE_TESTS += "$(CORE_DIR)/$(1)-$(2)"
endef
$(foreach t,test_core test_clips test_robust,$(foreach v,$(CORE_VARIANTS),$(eval $(call CORE_TEST_PROGRAM,$(t),$(v)))))

# test_robust again with the library's other internal forms, which this CPU would
# not take (gpuskin_build_palettes' rows, eight-lane and four-lane forms, the SSE2
# DQ split and skinning, the portable path), plain and under the sanitizers.
ROBUST_VARIANTS := gcc-noavx512 gcc-noavx gcc-nosimd gcc-san-noavx512 gcc-san-noavx
CORE_CC_gcc-noavx512     := gcc -std=c99 $(WARN) -O1 -g -DGPUSKIN_NO_AVX512
CORE_CC_gcc-noavx        := gcc -std=c99 $(WARN) -O1 -g -DGPUSKIN_NO_AVX
CORE_CC_gcc-nosimd       := gcc -std=c99 $(WARN) -O1 -g -DGPUSKIN_NO_SIMD
CORE_CC_gcc-san-noavx512 := gcc -std=c99 $(WARN) -O1 -g $(SAN) -DGPUSKIN_NO_AVX512
CORE_CC_gcc-san-noavx    := gcc -std=c99 $(WARN) -O1 -g $(SAN) -DGPUSKIN_NO_AVX
$(foreach v,$(ROBUST_VARIANTS),$(eval $(call CORE_TEST_PROGRAM,test_robust,$(v))))
ROBUST_DEPS := $(addprefix $(CORE_DIR)/test_robust-,$(CORE_VARIANTS) $(ROBUST_VARIANTS))

# ---- GPUSKIN_NO_VULKAN needs no Vulkan header --------------------------------
CORE_FAKEVK := $(CORE_DIR)/fakevk
CORE_NOVK_C := $(CORE_DIR)/novk_check.c

$(CORE_FAKEVK)/vulkan/vulkan.h: mk/core.mk | $(CORE_DIR)
	mkdir -p $(dir $@)
	printf '%s\n' '#error "core.mk fake <vulkan/vulkan.h> reached: Vulkan headers were included"' > $@

$(CORE_NOVK_C): mk/core.mk | $(CORE_DIR)
	printf '%s\n' '#define GPUSKIN_NO_VULKAN' '#define GPUSKIN_IMPLEMENTATION' '#include "gpuskin.h"' \
	  '#if defined(VK_VERSION_1_0) || defined(VULKAN_H_) || defined(VK_NO_PROTOTYPES)' \
	  '#error "Vulkan declarations are visible although GPUSKIN_NO_VULKAN is defined"' '#endif' \
	  'int main(void) { return gpuskin_result_string(GPUSKIN_SUCCESS)[0] == 0; }' > $@

CORE_DEPS += $(CORE_FAKEVK)/vulkan/vulkan.h $(CORE_NOVK_C)
CORE_NOVK_INC := -I$(CORE_FAKEVK) -I.
CORE_TESTS += "gcc -std=c99 $(WARN) $(CORE_NOVK_INC) -fsyntax-only $(CORE_NOVK_C)"
CORE_TESTS += "gcc -std=c99 $(WARN) -DGPUSKIN_STATIC $(CORE_NOVK_INC) -fsyntax-only $(CORE_NOVK_C)"
CORE_TESTS += "clang++ -std=c++17 $(WARN) -DGPUSKIN_STATIC $(CORE_NOVK_INC) -fsyntax-only -x c++ $(CORE_NOVK_C)"
# Negative control: without GPUSKIN_NO_VULKAN the fake header must be hit.
CORE_TESTS += "gcc -std=c99 $(CORE_NOVK_INC) -fsyntax-only -x c gpuskin.h 2>&1 | grep -q 'core.mk fake'"

TESTS += $(CORE_TESTS)
TEST_DEPS += $(CORE_DEPS)

# Just these suites: make test-core
.PHONY: test-core
test-core: $(CORE_DEPS)
	@bash tests/run_all.sh $(CORE_TESTS)

# Just the robustness test, all its builds: make test-robust
# (one build: make build/core/test_robust-gcc-san && build/core/test_robust-gcc-san)
.PHONY: test-robust
test-robust: $(ROBUST_DEPS)
	@bash tests/run_all.sh $(addprefix ",$(addsuffix ",$(ROBUST_DEPS)))
