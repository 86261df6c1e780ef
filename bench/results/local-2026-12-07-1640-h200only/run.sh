#!/usr/bin/env bash
# One device call, from the repository root: the full run on an H200; elsewhere a check of bench/device_env.sh.
# Carry: [".gl", "build/test_gpu", "build/bench_gpu", "build/bench_cpu",
#         "build/kernel_stats", "build/bench-libs"]. Writes to $OUT.
# On an H200: bench/run_h200.sh with --busy 16 (no H200 has run the current code,
# kernel 8 or the dispatch floor row: the last H200 run was 2026-12-05 13:05),
# then in the time left the 15:50 sweep's counts once. On any other GPU it only
# names the card and runs test_gpu's compute tests (the check of
# bench/device_env.sh) and stops: H100 machines have run the same code and
# sweeps today (bench/results/h100-2026-12-07-1550-floor/, -1609-perinv/).
set -u
t0=$(date +%s)
n=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)
echo "GPU: $n"
. bench/device_env.sh
if ! echo "$n" | grep -q H200; then
    # Not an H200: only the check that bench/device_env.sh (dc91d7d) sets up
    # the loader as the inline lines before it did.
    timeout 60 build/test_gpu compute 2>&1 | tail -n 1
    exit 0
fi
export OUT
BENCH_GPU_ARGS="--busy 16" bash bench/run_h200.sh
left=$((560 - ($(date +%s) - t0)))
echo "after the full run: ${left} s left"
if [ "$left" -gt 90 ]; then
    mkdir -p "$OUT/sweep"
    timeout $((left - 20)) build/bench_gpu --compute-only --busy 16 --counts 16,32,64,128,256,1024 \
        --csv "$OUT/sweep/sweep_1.csv" >"$OUT/sweep/sweep_1.log" 2>&1
    echo "sweep rc=$?: $(tail -n 1 "$OUT/sweep/sweep_1.log")"
    (cd "$OUT" && tar czf sweep.tgz sweep && rm -rf sweep)
fi
grep -h "floor\|synthetic instances:" "$OUT"/bench_gpu.log 2>/dev/null
ls -la "$OUT"
