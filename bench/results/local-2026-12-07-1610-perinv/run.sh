#!/usr/bin/env bash
# One device call, from the repository root: does what a 64-instance dispatch loses
# beyond the floor grow with the instances an invocation (a workgroup's lifetime)?
# Carry: [".gl", "build/test_gpu", "build/bench_gpu", "build/bench_cpu",
#         "build/kernel_stats", "build/bench-libs"]. Writes to $OUT (8 files at most).
# On an H200: first the full run (bench/run_h200.sh with --busy 16), the one no
# H200 has made since 2026-12-05, then the sweep below in what time is left.
# On any other GPU: bench_gpu --compute-only --busy 16 --counts 64,1024 with the
# "N/inv" rows forced to 2, 4 and 16 instances an invocation (8 is the default
# and was swept at 15:50), twice; bench/fit_counts.py then gives each row's
# time beyond its 1,024-instance rate.
set -u
t0=$(date +%s)
# The loader setup; as run, these were bench/device_env.sh's lines written out
# (git show 548f618:bench/results/local-2026-12-07-1610-perinv/run.sh has it as it ran).
. bench/device_env.sh
export OUT
n=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)
echo "GPU: $n"
mkdir -p "$OUT/perinv"
sweep() { # sweep ROUND N: one bench_gpu run with the N/inv rows at N
    timeout 150 build/bench_gpu --compute-only --busy 16 --counts 64,1024 --per-invocation "$2" \
        --csv "$OUT/perinv/p$2_r$1.csv" >"$OUT/perinv/p$2_r$1.log" 2>&1
    echo "per-invocation $2 round $1 rc=$?: $(tail -n 1 "$OUT/perinv/p$2_r$1.log")"
}
if echo "$n" | grep -q H200; then
    BENCH_GPU_ARGS="--busy 16" bash bench/run_h200.sh
    echo "after the full run: $((560 - ($(date +%s) - t0))) s left"
    for p in 4 16 2; do
        [ $((560 - ($(date +%s) - t0))) -gt 170 ] && sweep 1 $p
    done
else
    { date -u; echo "binaries built from: $(cat build/bench-libs/build-commit.txt 2>/dev/null)"; uname -a
      grep -m1 'model name' /proc/cpuinfo
      nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; } >"$OUT/machine.txt" 2>&1
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
        --format=csv -lms 100 >"$OUT/perinv/clocks.csv" 2>&1 &
    clk=$!
    for r in 1 2; do for p in 2 4 16; do sweep $r $p; done; done
    kill "$clk" 2>/dev/null
fi
grep -h "floor" "$OUT"/bench_gpu.log "$OUT"/perinv/*.log 2>/dev/null
(cd "$OUT" && tar czf perinv.tgz perinv && rm -rf perinv)
ls -la "$OUT"
