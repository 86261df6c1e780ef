#!/usr/bin/env bash
# Builds the bound of the uniform-buffer experiment (ubo.patch, then bound.patch):
# kernel 1 reading joint i in slot i for every vertex (wrong values: a bound on
# what warp-uniform palette reads could give), from the repository root, after
# the same make commands as build.sh:
#   build/h2h/bench_gpu_a_base   this checkout's bench_gpu
#   build/h2h/bench_gpu_d_ucst   the rows through uniform buffers, joint i in slot i
#   build/h2h/bench_gpu_e_gcst   the rows through buffer addresses, joint i in slot i
#   build/ubo/kernel_stats_{d_ucst,e_gcst}
#   build/ubo/bench_gpu_{d_ucst,e_gcst}_12: 12 windows, for lavapipe
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
V=/tmp/gpuskin-ubo-bound
rm -rf "$V" build/h2h && mkdir -p "$V/src" build/h2h build/ubo
cp -r shaders gpuskin.h bench examples "$V/src/"
make -s build/gen_shaders
(cd "$V/src" && patch -p1 -s <"$here/ubo.patch" && patch -p1 -s <"$here/bound.patch")
F="-O2 -g -std=c99 -Wall -Wextra -Wpedantic -Werror -DGPUSKIN_EXP_UBO"
bench() { # bench VARIANT WINDOWS OUTPUT
    local v=$1 n=$2 out=$3 d="$V/$1-$2"
    mkdir -p "$d/shaders" "$d/work"
    cp "$V/src/gpuskin.h" "$d/"
    cp "$V/src/shaders/"* "$d/shaders/"
    local defs="#define GPUSKIN_EXP_UBO 1\\n#define GPUSKIN_EXP_UBO_WINDOWS $n\\n#define GPUSKIN_EXP_BOUND_JOINT 1"
    [ "$v" = e_gcst ] && defs="$defs"'\n#define GPUSKIN_EXP_BOUND_LDG 1'
    sed -i "1a $defs" "$d/shaders/skin.comp"
    build/gen_shaders "$d/shaders" "$d/gpuskin_shaders.h" "$d/work" >/dev/null
    cc $F -DGPUSKIN__VK_EXP_WINDOWS=${n}u -I"$d" -I"$V/src" -I. -Ibuild/dev -c "$V/src/bench/bench_gpu.c" -o "$d/bench_gpu.o"
    g++ -O2 -g "$d/bench_gpu.o" build/dev/gltf_model.o build/dev/volk.o -o "$out" -ldl -lm -lpthread -lmeshoptimizer -lstb
    [ "$n" = 4096 ] && cc $F -I"$d" -I"$V/src" -I. bench/kernel_stats.c build/dev/volk.o -o "build/ubo/kernel_stats_$v" \
        -ldl -lm -lpthread
    return 0
}
for v in d_ucst e_gcst; do
    bench $v 4096 "build/h2h/bench_gpu_$v"
    bench $v 12 "build/ubo/bench_gpu_${v}_12"
done
cp build/dev/bench_gpu build/h2h/bench_gpu_a_base
strip build/h2h/bench_gpu_* build/ubo/*
