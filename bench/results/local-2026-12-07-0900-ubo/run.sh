#!/usr/bin/env bash
# One device call for the uniform-buffer experiment, from the repository root.
# Carry: [".gl", "build/h2h", "build/ubo", "build/bench-libs"]. Writes to $OUT.
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
# The patched kernels' checks (12 windows): the compute tests, then a crowd of
# 60 synthetic instances that spans 12 windows (every output against the oracle).
for v in b c; do
    timeout 60 build/ubo/test_gpu_$v compute >"$OUT/test_gpu_$v.txt" 2>&1; echo "test_gpu_$v rc=$?: $(tail -n 1 "$OUT/test_gpu_$v.txt")"
    timeout 90 build/ubo/bench_gpu_${v}_12 --compute-only --counts 7,60 --max-instances 60 --reps 3 >"$OUT/check60_$v.txt" 2>&1
    echo "check60_$v rc=$?: $(tail -n 1 "$OUT/check60_$v.txt")"
done
grep -m1 "maxUniformBufferRange" "$OUT/test_gpu_b.txt"
for v in base b c; do timeout 60 build/ubo/kernel_stats_$v >"$OUT/kernel_stats_$v.txt" 2>&1; done
H2H_ARGS="--busy 16 --counts 64,1024" ROUNDS=2 bash bench/run_h200_kernels.sh
# at most 8 files come back: the checks in one archive
(cd "$OUT" && tar czf ubo_checks.tgz test_gpu_*.txt check60_*.txt kernel_stats_*.txt && rm -f test_gpu_*.txt check60_*.txt kernel_stats_*.txt)
ls -la "$OUT"
