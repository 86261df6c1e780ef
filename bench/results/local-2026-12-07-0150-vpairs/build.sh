#!/usr/bin/env bash
# Builds the vertex-pair experiment (vpairs.patch) for bench/run_h200_kernels.sh,
# from the repository root, after `make BUILD=build/dev build/dev/bench_gpu
# build/dev/kernel_stats build/dev/test_gpu && make BUILD=build/dev build/bench-libs`:
#   build/h2h/bench_gpu_a_base   this checkout's bench_gpu
#   build/h2h/bench_gpu_b_vp     kernel 1 on vertex pairs, instances an invocation as before
#   build/h2h/bench_gpu_c_vph    kernel 1 on vertex pairs, half the instances an invocation
#   build/vp/kernel_stats_{base,vp}, build/vp/test_gpu (the patched kernel's tests)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
V=/tmp/gpuskin-vpairs
rm -rf "$V" && mkdir -p "$V/work" build/h2h build/vp
cp -r shaders gpuskin.h "$V/"
make -s build/gen_shaders
(cd "$V" && patch -p1 -s <"$here/vpairs.patch")
build/gen_shaders "$V/shaders" "$V/gpuskin_shaders.h" "$V/work"
F="-O2 -g -std=c99 -Wall -Wextra -Wpedantic -Werror"
for v in b_vp c_vph; do
    extra=""; [ "$v" = c_vph ] && extra="-DGPUSKIN_EXP_HALF_PER_INV"
    cc $F $extra -I"$V" -I. -Ibuild/dev -c bench/bench_gpu.c -o "$V/bench_gpu_$v.o"
    g++ -O2 -g "$V/bench_gpu_$v.o" build/dev/gltf_model.o build/dev/volk.o -o "build/h2h/bench_gpu_$v" \
        -ldl -lm -lpthread -lmeshoptimizer -lstb
done
cp build/dev/bench_gpu build/h2h/bench_gpu_a_base
cc $F -I"$V" -I. bench/kernel_stats.c build/dev/volk.o -o build/vp/kernel_stats_vp -ldl -lm -lpthread
cp build/dev/kernel_stats build/vp/kernel_stats_base
cc $F -DGPUSKIN_EXP_HALF_PER_INV -I"$V" -I. -Itests tests/test_gpu.c build/dev/volk.o -o build/vp/test_gpu \
    -ldl -lm -lpthread -lstb
strip build/h2h/bench_gpu_* build/vp/*
