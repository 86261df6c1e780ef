#!/usr/bin/env bash
# One device call, from the repository root: where a dispatch's fixed cost goes.
# Carry: [".gl", "build/test_gpu", "build/bench_gpu", "build/bench_cpu",
#         "build/kernel_stats", "build/bench-libs"]. Writes to $OUT (8 files at most).
# On an H200: first the full run (bench/run_h200.sh with --busy 16), the one no
# H200 has made since 2026-12-05; then, in what time is left, the sweep below.
# On any other GPU: test_gpu (the NVIDIA driver's check of the outputs), then
# bench_gpu --compute-only --busy 16 over 16-1,024 instances, twice: the fills of
# 16 / 64 / 256 instances' records, the one-workgroup floor, and every crowd's
# time at six sizes, to fit time = fixed + per-instance x instances.
set -u
t0=$(date +%s)
# The loader setup; as run, these were bench/device_env.sh's lines written out
# (git show e0403cd:bench/results/local-2026-12-07-1550-floor/run.sh has it as it ran).
. bench/device_env.sh
export OUT
SWEEP="--compute-only --busy 16 --counts 16,32,64,128,256,1024"
n=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)
echo "GPU: $n"
mkdir -p "$OUT/sweep"
if echo "$n" | grep -q H200; then
    BENCH_GPU_ARGS="--busy 16" bash bench/run_h200.sh
    left=$((560 - ($(date +%s) - t0)))
    echo "after the full run: ${left} s left for the sweep"
    if [ "$left" -gt 60 ]; then
        timeout $((left - 15)) build/bench_gpu $SWEEP --csv "$OUT/sweep/sweep_1.csv" >"$OUT/sweep/sweep_1.log" 2>&1
        echo "sweep rc=$?: $(tail -n 1 "$OUT/sweep/sweep_1.log")"
    fi
else
    { date -u; echo "binaries built from: $(cat build/bench-libs/build-commit.txt 2>/dev/null)"; uname -a
      grep -m1 'model name' /proc/cpuinfo
      nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; } >"$OUT/machine.txt" 2>&1
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
        --format=csv -lms 100 >"$OUT/sweep/clocks.csv" 2>&1 &
    clk=$!
    timeout 150 build/test_gpu >"$OUT/test_gpu.log" 2>&1; echo "test_gpu rc=$?: $(tail -n 1 "$OUT/test_gpu.log")"
    for r in 1 2; do
        timeout 200 build/bench_gpu $SWEEP --csv "$OUT/sweep/sweep_$r.csv" >"$OUT/sweep/sweep_$r.log" 2>&1
        echo "sweep $r rc=$?: $(tail -n 1 "$OUT/sweep/sweep_$r.log")"
    done
    kill "$clk" 2>/dev/null
fi
grep -h "floor\|synthetic instances:" "$OUT"/bench_gpu.log "$OUT"/sweep/*.log 2>/dev/null
(cd "$OUT" && tar czf sweep.tgz sweep && rm -rf sweep)
ls -la "$OUT"
