#!/usr/bin/env bash
# Builds the code-presence check (ubo.patch, then off.patch), from the repository
# root, after the same make commands as build.sh:
#   build/h2h/bench_gpu_a_base   this checkout's bench_gpu
#   build/h2h/bench_gpu_b_ubo    kernel 1 through the uniform buffers (as in build.sh)
#   build/h2h/bench_gpu_f_off    a script: the same binary with GPUSKIN_EXP_UBO_OFF=1,
#                                so kernel 1 runs its own loop, the uniform-buffer
#                                path in its binary but not taken
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
V=/tmp/gpuskin-ubo-off
rm -rf "$V" build/h2h && mkdir -p "$V/src" "$V/b/shaders" "$V/b/work" build/h2h build/ubo
cp -r shaders gpuskin.h bench examples "$V/src/"
make -s build/gen_shaders
(cd "$V/src" && patch -p1 -s <"$here/ubo.patch" && patch -p1 -s <"$here/off.patch")
cp "$V/src/gpuskin.h" "$V/b/"
cp "$V/src/shaders/"* "$V/b/shaders/"
sed -i '1a #define GPUSKIN_EXP_UBO 1\n#define GPUSKIN_EXP_UBO_WINDOWS 4096' "$V/b/shaders/skin.comp"
build/gen_shaders "$V/b/shaders" "$V/b/gpuskin_shaders.h" "$V/b/work" >/dev/null
cc -O2 -g -std=c99 -Wall -Wextra -Wpedantic -Werror -DGPUSKIN_EXP_UBO -I"$V/b" -I"$V/src" -I. -Ibuild/dev \
    -c "$V/src/bench/bench_gpu.c" -o "$V/bench_gpu_b.o"
g++ -O2 -g "$V/bench_gpu_b.o" build/dev/gltf_model.o build/dev/volk.o -o build/h2h/bench_gpu_b_ubo \
    -ldl -lm -lpthread -lmeshoptimizer -lstb
printf '#!/bin/sh\nGPUSKIN_EXP_UBO_OFF=1 exec "$(dirname "$0")/bench_gpu_b_ubo" "$@"\n' >build/h2h/bench_gpu_f_off
chmod +x build/h2h/bench_gpu_f_off
cp build/dev/bench_gpu build/h2h/bench_gpu_a_base
strip build/h2h/bench_gpu_a_base build/h2h/bench_gpu_b_ubo
