#!/usr/bin/env bash
# Builds the workgroup-size experiment for bench/run_h200_kernels.sh, from the
# repository root, after `make BUILD=build/dev build/dev/bench_gpu
# build/dev/kernel_stats build/dev/test_gpu && make BUILD=build/dev build/bench-libs`.
# skin.comp's local_size_x (and gpuskin.h's GPUSKIN__VK_LOCAL_SIZE, which sizes
# the dispatch) set to 32, 128 or 256 instead of 64; nothing else changes:
#   build/h2h/bench_gpu_a_base    this checkout's bench_gpu (64)
#   build/h2h/bench_gpu_b_wg32    32
#   build/h2h/bench_gpu_c_wg128   128
#   build/h2h/bench_gpu_d_wg256   256
#   build/wg/kernel_stats_{base,b,c,d}, build/wg/test_gpu_{b,c,d}
set -euo pipefail
V=/tmp/gpuskin-wg-build
rm -rf "$V" build/h2h build/wg && mkdir -p "$V" build/h2h build/wg
make -s build/gen_shaders
F="-O2 -g -std=c99 -Wall -Wextra -Wpedantic -Werror"
for vn in b:32 c:128 d:256; do
    v=${vn%%:*} n=${vn##*:}
    mkdir -p "$V/$v/shaders" "$V/$v/work"
    cp gpuskin.h "$V/$v/"
    cp shaders/* "$V/$v/shaders/"
    sed -i "s/^layout(local_size_x = 64) in;/layout(local_size_x = $n) in;/" "$V/$v/shaders/skin.comp"
    sed -i "s/^#define GPUSKIN__VK_LOCAL_SIZE 64u /#define GPUSKIN__VK_LOCAL_SIZE ${n}u /" "$V/$v/gpuskin.h"
    # both edits must have happened, once each
    [ "$(grep -c "^layout(local_size_x = $n) in;" "$V/$v/shaders/skin.comp")" = 1 ]
    [ "$(grep -c "^#define GPUSKIN__VK_LOCAL_SIZE ${n}u " "$V/$v/gpuskin.h")" = 1 ]
    build/gen_shaders "$V/$v/shaders" "$V/$v/gpuskin_shaders.h" "$V/$v/work" >/dev/null
    cc $F -I"$V/$v" -I. -Ibuild/dev -c bench/bench_gpu.c -o "$V/bench_gpu_$v.o"
    g++ -O2 -g "$V/bench_gpu_$v.o" build/dev/gltf_model.o build/dev/volk.o -o "build/h2h/bench_gpu_${v}_wg$n" \
        -ldl -lm -lpthread -lmeshoptimizer -lstb
    cc $F -I"$V/$v" -I. -Itests tests/test_gpu.c build/dev/volk.o -o "build/wg/test_gpu_$v" -ldl -lm -lpthread -lstb
    cc $F -I"$V/$v" -I. bench/kernel_stats.c build/dev/volk.o -o "build/wg/kernel_stats_$v" -ldl -lm -lpthread
done
cp build/dev/bench_gpu build/h2h/bench_gpu_a_base
cp build/dev/kernel_stats build/wg/kernel_stats_base
strip build/h2h/bench_gpu_* build/wg/*
