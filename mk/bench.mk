# Benchmarks and the fast CPU path's tests.
#   tests/test_fast.c   gpuskin_skin_cpu_fast and gpuskin_build_palettes (in gpuskin.h)
#                       against the oracle: gcc C99 -O2, g++ C++17, gcc with $(SAN), the
#                       portable path (-DGPUSKIN_NO_SIMD), the SSE2 forms (-DGPUSKIN_NO_AVX),
#                       clang and clang++ compile-only,
#                       and GPUSKIN_STATIC compile-only.
#   bench/bench_cpu.c   CPU skinning and palette figures (BENCHMARKS.md); `--quick` is a
#                       correctness-only smoke run and a test here. The naive reference
#                       (bench/naive_lbs.c) is its own object, built with $(CFLAGS) like
#                       the library code.
#   bench/bench_gpu.c   GPU figures (Vulkan); `--quick` runs on lavapipe as a test.

FAST_HDRS := gpuskin.h tests/testing.h mk/bench.mk
FAST_FLAGS := $(WARN) -I. -Itests

$(BUILD)/test_fast: tests/test_fast.c $(FAST_HDRS) | $(BUILD)
	$(CC) $(CFLAGS) -std=c99 $(FAST_FLAGS) $< -o $@ -lm

# (and without the fast LBS forms' palette copy: GPUSKIN_FAST_COPY_JOINTS=0)
$(BUILD)/test_fast_cpp: tests/test_fast.c $(FAST_HDRS) | $(BUILD)
	$(CXX) -O1 -g -std=c++17 -DGPUSKIN_FAST_COPY_JOINTS=0 $(FAST_FLAGS) -x c++ $< -o $@

$(BUILD)/test_fast_san: tests/test_fast.c $(FAST_HDRS) | $(BUILD)
	$(CC) -O1 -g -std=c99 $(FAST_FLAGS) $(SAN) $< -o $@ -lm

$(BUILD)/test_fast_nosimd: tests/test_fast.c $(FAST_HDRS) | $(BUILD)
	$(CC) -O1 -g -std=c99 -DGPUSKIN_NO_SIMD $(FAST_FLAGS) $< -o $@ -lm

# The SSE2 forms on a machine that would take the AVX ones (the DQ split, LBS skinning).
$(BUILD)/test_fast_noavx: tests/test_fast.c $(FAST_HDRS) | $(BUILD)
	$(CC) -O2 -g -std=c99 -DGPUSKIN_NO_AVX $(FAST_FLAGS) $< -o $@ -lm

# The eight-lane palettes on a CPU with AVX-512 (which would take sixteen)
$(BUILD)/test_fast_noavx512: tests/test_fast.c $(FAST_HDRS) | $(BUILD)
	$(CC) -O2 -g -std=c99 -DGPUSKIN_NO_AVX512 $(FAST_FLAGS) $< -o $@ -lm

# GNU C, where GCC fuses a multiply and an add into one FMA wherever the target
# has FMA (ISO modes do not): the AVX-512 DQ split must still give the SSE2 bits.
$(BUILD)/test_fast_gnu: tests/test_fast.c $(FAST_HDRS) | $(BUILD)
	$(CC) -O2 -g -std=gnu11 $(FAST_FLAGS) $< -o $@ -lm

$(BUILD)/test_fast_clang.o: tests/test_fast.c $(FAST_HDRS) | $(BUILD)
	clang -O2 -std=c99 $(FAST_FLAGS) -c $< -o $@

$(BUILD)/test_fast_clangxx.o: tests/test_fast.c $(FAST_HDRS) | $(BUILD)
	clang++ -O0 -std=c++11 $(FAST_FLAGS) -x c++ -c $< -o $@

TESTS += "$(BUILD)/test_fast" "$(BUILD)/test_fast_cpp" "$(BUILD)/test_fast_san" "$(BUILD)/test_fast_nosimd" "$(BUILD)/test_fast_noavx"
TESTS += "$(BUILD)/test_fast_noavx512" "$(BUILD)/test_fast_gnu"
TESTS += "gcc -std=c99 $(WARN) -DGPUSKIN_STATIC -DGPUSKIN_NO_VULKAN -DGPUSKIN_IMPLEMENTATION -I. -fsyntax-only -x c gpuskin.h"
TEST_DEPS += $(BUILD)/test_fast $(BUILD)/test_fast_cpp $(BUILD)/test_fast_san $(BUILD)/test_fast_nosimd $(BUILD)/test_fast_noavx
TEST_DEPS += $(BUILD)/test_fast_noavx512 $(BUILD)/test_fast_gnu
TEST_DEPS += $(BUILD)/test_fast_clang.o $(BUILD)/test_fast_clangxx.o

# ---- CPU benchmark -----------------------------------------------------------
$(BUILD)/naive_lbs.o: bench/naive_lbs.c | $(BUILD)
	$(CC) $(CFLAGS) -std=c99 $(WARN) -c $< -o $@

# A second build of the same naive code with the auto-vectoriser off: not the
# reference (that is the one above, with the library's flags), an explanation of it.
$(BUILD)/naive_lbs_novec.o: bench/naive_lbs.c | $(BUILD)
	$(CC) $(CFLAGS) -fno-tree-vectorize -Dbench_naive_lbs=bench_naive_lbs_novec -std=c99 $(WARN) -c $< -o $@

# And one for AVX2 + FMA (called only where the CPU has them), another explanation.
$(BUILD)/naive_lbs_avx2.o: bench/naive_lbs.c | $(BUILD)
	$(CC) $(CFLAGS) -mavx2 -mfma -Dbench_naive_lbs=bench_naive_lbs_avx2 -std=c99 $(WARN) -c $< -o $@

NAIVE_OBJS := $(BUILD)/naive_lbs.o $(BUILD)/naive_lbs_novec.o $(BUILD)/naive_lbs_avx2.o
$(BUILD)/bench_cpu: bench/bench_cpu.c $(NAIVE_OBJS) gpuskin.h mk/bench.mk | $(BUILD)
	$(CC) $(CFLAGS) -std=c99 $(WARN) -I. $< $(NAIVE_OBJS) -o $@ -lm -lpthread

all: $(BUILD)/bench_cpu
TESTS += "$(BUILD)/bench_cpu --quick"
TEST_DEPS += $(BUILD)/bench_cpu

# The full CPU run, here: make bench-cpu (figures in build/bench_cpu.csv)
.PHONY: bench-cpu
bench-cpu: $(BUILD)/bench_cpu
	$(BUILD)/bench_cpu --csv $(BUILD)/bench_cpu.csv

# Just these suites: make test-fast
.PHONY: test-fast
test-fast: $(BUILD)/test_fast $(BUILD)/test_fast_cpp $(BUILD)/test_fast_san $(BUILD)/test_fast_nosimd \
           $(BUILD)/test_fast_noavx $(BUILD)/test_fast_noavx512 $(BUILD)/test_fast_gnu $(BUILD)/bench_cpu
	@bash tests/run_all.sh "$(BUILD)/test_fast" "$(BUILD)/test_fast_cpp" "$(BUILD)/test_fast_san" \
	    "$(BUILD)/test_fast_nosimd" "$(BUILD)/test_fast_noavx" "$(BUILD)/test_fast_noavx512" "$(BUILD)/test_fast_gnu" "$(BUILD)/bench_cpu --quick"

# ---- GPU benchmark -------------------------------------------------------------
# bench/fill.comp (the write-bandwidth ceiling) becomes a SPIR-V array at build time.
$(BUILD)/bench_fill_spv.h: bench/fill.comp | $(BUILD)
	glslangValidator -V --target-env vulkan1.2 --vn bench_fill_spv -o $@ $< >/dev/null

BENCH_GPU_HDRS := gpuskin.h gpuskin_shaders.h examples/common/vk_setup.h \
                  tools/gltf_model.h $(BUILD)/bench_fill_spv.h mk/bench.mk

$(BUILD)/bench_gpu.o: bench/bench_gpu.c $(BENCH_GPU_HDRS) | $(BUILD)
	$(CC) $(CFLAGS) -std=c99 $(WARN) -I. -I$(BUILD) -c $< -o $@

# gltf_model.o (tinygltf, C++) comes from mk/gltf.mk: link as C++.
$(BUILD)/bench_gpu: $(BUILD)/bench_gpu.o $(BUILD)/gltf_model.o $(BUILD)/volk.o
	$(CXX) $(CXXFLAGS) $^ -o $@ $(VK_LIBS) -lmeshoptimizer

all: $(BUILD)/bench_gpu
TESTS += "$(BUILD)/bench_gpu --quick" "$(BUILD)/bench_gpu --quick --sets 2 --compute-only --scattered-joints --stream 3"
TEST_DEPS += $(BUILD)/bench_gpu

# What the driver's compiler made of skin.comp (registers etc.), where the driver
# offers VK_KHR_pipeline_executable_properties (NVIDIA does; lavapipe does not).
# Built with everything so that it keeps compiling; run by hand.
$(BUILD)/kernel_stats: bench/kernel_stats.c gpuskin_shaders.h examples/common/vk_setup.h $(BUILD)/volk.o | $(BUILD)
	$(CC) $(CFLAGS) -std=c99 $(WARN) -I. $< $(BUILD)/volk.o -o $@ $(VK_LIBS)

all: $(BUILD)/kernel_stats
TEST_DEPS += $(BUILD)/kernel_stats

# The full GPU run, here: make bench-gpu (figures in build/bench_gpu.csv)
.PHONY: bench-gpu
bench-gpu: $(BUILD)/bench_gpu
	$(BUILD)/bench_gpu --csv $(BUILD)/bench_gpu.csv

# ---- the H200 session (bench/run_h200.sh) ----------------------------------------
# Shared libraries the carried binaries need that the H200 image may lack.
.PHONY: build/bench-libs
build/bench-libs: $(BUILD)/test_gpu $(BUILD)/bench_gpu
	mkdir -p $@
	for lib in $$(ldd $(BUILD)/test_gpu $(BUILD)/bench_gpu | awk '/libstb|libmeshoptimizer/ {print $$3}' | sort -u); do cp -L $$lib $@/; done
	{ git rev-parse HEAD && git status --porcelain --untracked-files=no | sed 's/^/modified: /'; } > $@/build-commit.txt 2>/dev/null || true
