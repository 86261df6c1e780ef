#!/usr/bin/env bash
# The bound's device call, from the repository root (after build_bound.sh).
# Carry: [".gl", "build/h2h", "build/ubo", "build/bench-libs"]. Writes to $OUT.
set -u
H2H_ARGS="--busy 16 --counts 64,1024" ROUNDS=2 bash bench/run_h200_kernels.sh
# run_h200_kernels.sh installed the loader; the driver file as it finds it
if ! ls /usr/share/vulkan/icd.d/nvidia*.json /etc/vulkan/icd.d/nvidia*.json >/dev/null 2>&1 &&
   [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
export LD_LIBRARY_PATH="$PWD/build/bench-libs"
for v in d_ucst e_gcst; do timeout 60 build/ubo/kernel_stats_$v >"$OUT/kernel_stats_$v.txt" 2>&1; done
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; } >"$OUT/machine.txt" 2>&1
