#!/usr/bin/env bash
# Builds the uniform-buffer experiment (ubo.patch) for bench/run_h200_kernels.sh,
# from the repository root, after `make BUILD=build/dev build/dev/bench_gpu
# build/dev/kernel_stats build/dev/test_gpu && make BUILD=build/dev build/bench-libs`:
#   build/h2h/bench_gpu_a_base   this checkout's bench_gpu
#   build/h2h/bench_gpu_b_ubo    kernel 1's LBS rows through uniform buffers, each lane its own index
#   build/h2h/bench_gpu_c_ubou   the same, a subgroup-uniform index where every weighted lane agrees
#   build/ubo/kernel_stats_{base,b,c}
# and, for lavapipe (15 uniform buffers a stage there, so 12 windows: crowds of
# more than 12 windows' instances fall back to kernel 1's addresses):
#   build/ubo/test_gpu_{b,c}, build/ubo/bench_gpu_{b,c}_12 (the patched kernels' checks)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
V=/tmp/gpuskin-ubo-build
rm -rf "$V" build/h2h build/ubo && mkdir -p "$V/src" build/h2h build/ubo
cp -r shaders gpuskin.h bench examples "$V/src/"
make -s build/gen_shaders
(cd "$V/src" && patch -p1 -s <"$here/ubo.patch")
F="-O2 -g -std=c99 -Wall -Wextra -Wpedantic -Werror -DGPUSKIN_EXP_UBO"
shaders() { # shaders VARIANT WINDOWS: $V/VARIANT/{gpuskin.h,gpuskin_shaders.h}
    local v=$1 n=$2
    mkdir -p "$V/$v/shaders" "$V/$v/work"
    cp "$V/src/gpuskin.h" "$V/$v/"
    cp "$V/src/shaders/"* "$V/$v/shaders/"
    defs="#define GPUSKIN_EXP_UBO 1\\n#define GPUSKIN_EXP_UBO_WINDOWS $n"
    case $v in c*) defs="$defs"'\n#define GPUSKIN_EXP_UBO_UNIFORM 1' ;; esac
    sed -i "1a $defs" "$V/$v/shaders/skin.comp"
    build/gen_shaders "$V/$v/shaders" "$V/$v/gpuskin_shaders.h" "$V/$v/work" >/dev/null
}
for v in b c; do
    shaders $v 4096
    shaders ${v}12 12
    cc $F -DGPUSKIN__VK_EXP_WINDOWS=12u -I"$V/${v}12" -I"$V/src" -I. -Ibuild/dev -c "$V/src/bench/bench_gpu.c" -o "$V/bench_gpu_${v}12.o"
    g++ -O2 -g "$V/bench_gpu_${v}12.o" build/dev/gltf_model.o build/dev/volk.o -o "build/ubo/bench_gpu_${v}_12" \
        -ldl -lm -lpthread -lmeshoptimizer -lstb
    cc $F -DGPUSKIN__VK_EXP_WINDOWS=12u -I"$V/${v}12" -I"$V/src" -I. -Itests tests/test_gpu.c build/dev/volk.o \
        -o "build/ubo/test_gpu_$v" -ldl -lm -lpthread -lstb
    cc $F -I"$V/$v" -I"$V/src" -I. -Ibuild/dev -c "$V/src/bench/bench_gpu.c" -o "$V/bench_gpu_$v.o"
    name=$([ $v = b ] && echo b_ubo || echo c_ubou)
    g++ -O2 -g "$V/bench_gpu_$v.o" build/dev/gltf_model.o build/dev/volk.o -o "build/h2h/bench_gpu_$name" \
        -ldl -lm -lpthread -lmeshoptimizer -lstb
    cc $F -I"$V/$v" -I"$V/src" -I. bench/kernel_stats.c build/dev/volk.o -o "build/ubo/kernel_stats_$v" -ldl -lm -lpthread
done
cp build/dev/bench_gpu build/h2h/bench_gpu_a_base
cp build/dev/kernel_stats build/ubo/kernel_stats_base
strip build/h2h/bench_gpu_* build/ubo/*
