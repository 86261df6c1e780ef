#!/usr/bin/env bash
# One device call for the workgroup-size experiment, from the repository root.
# Carry: [".gl", "build/h2h", "build/wg", "build/bench-libs"]. Writes to $OUT.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export LD_LIBRARY_PATH="$PWD/build/bench-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if ! ls /usr/share/vulkan/icd.d/nvidia*.json /etc/vulkan/icd.d/nvidia*.json >/dev/null 2>&1 &&
   [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
export GPUSKIN_NO_VALIDATION=1
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv; } >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
# The variants' compute tests on this driver, and what it compiled them into.
for v in b c d; do
    timeout 60 build/wg/test_gpu_$v compute >"$OUT/test_gpu_$v.txt" 2>&1; echo "test_gpu_$v rc=$?: $(tail -n 1 "$OUT/test_gpu_$v.txt")"
done
for v in base b c d; do timeout 60 build/wg/kernel_stats_$v >"$OUT/kernel_stats_$v.txt" 2>&1; done
H2H_ARGS="--busy 16 --counts 64,1024" ROUNDS=2 bash bench/run_h200_kernels.sh
(cd "$OUT" && tar czf wg_checks.tgz test_gpu_*.txt kernel_stats_*.txt && rm -f test_gpu_*.txt kernel_stats_*.txt)
ls -la "$OUT"
