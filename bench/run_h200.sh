#!/usr/bin/env bash
# bench/run_h200.sh - one H200 session: the GPU tests, then the GPU and CPU benchmarks.
#
# Prepare here (this machine: it has the compilers; the H200 machine has none):
#   make build/test_gpu build/bench_gpu build/bench_cpu build/kernel_stats build/bench-libs
#   (bench-libs: libstb, libmeshoptimizer)
# Run through the device tool (kind nvidia-h200), from the repository root:
#   command: bash bench/run_h200.sh
#   (BENCH_GPU_ARGS="--busy 16" bash bench/run_h200.sh keeps the GPU busy between
#   small dispatches, so that the driver does not lower its clock under them)
#   carry:   [".gl", "build/test_gpu", "build/bench_gpu", "build/bench_cpu", "build/kernel_stats", "build/bench-libs"]
# (.gl holds the Vulkan loader .debs; build/bench-libs the shared libraries the
# binaries need beyond the image's, e.g. libstb for test_gpu.)
#
# Writes to $OUT (at most 8 files come back): machine.txt, bench_gpu.log,
# bench_gpu.csv, bench_cpu.log, bench_cpu.csv, summary.txt, and more.tgz with
# test_gpu.log, kernel_stats.txt and clocks.csv: the GPU's clocks, power and
# throttle reasons sampled by nvidia-smi every 100 ms while the steps run (match
# them with bench_gpu.csv's t_s column and its "# started" line).
# Every step has its own time limit; the whole run stays well under 8 minutes.
set -u
# The Vulkan loader, the carried libraries, the ICD, no validation layer.
. bench/device_env.sh
OUT=${OUT:-/tmp/gpuskin-h200}
mkdir -p "$OUT"

step() { # step NAME LIMIT_S LOG COMMAND...: runs with a time limit, records rc and seconds
    local name=$1 limit=$2 log=$3; shift 3
    local t0=$(date +%s%N)
    echo "=== $name: $*" | tee -a "$OUT/summary.txt"
    timeout "$limit" "$@" >"$OUT/$log" 2>&1
    local rc=$? t1=$(date +%s%N)
    printf '    rc=%d, %d.%01d s%s\n' "$rc" $(((t1 - t0) / 1000000000)) $(((t1 - t0) / 100000000 % 10)) \
        "$([ $rc -eq 124 ] && echo ' (timed out)')" |
        tee -a "$OUT/summary.txt"
    tail -n 1 "$OUT/$log" | sed 's/^/    last line: /' | tee -a "$OUT/summary.txt"
}

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    # The device's copy of the tree may carry a stale .git: the commit the binaries
    # were built from is the one `make build/bench-libs` wrote next to them.
    echo "binaries built from: $(cat build/bench-libs/build-commit.txt 2>/dev/null || echo unknown)"
    echo "uname: $(uname -a)"
    grep -m1 'model name' /proc/cpuinfo
    echo "cpus: $(nproc)"
    echo "cpu flags (of those the fast paths care about): $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'sse2|avx|avx2|fma|avx512f' | tr '\n' ' ')"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,power.limit \
        --format=csv 2>&1
    echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"
    for b in build/test_gpu build/bench_gpu build/bench_cpu; do
        echo "$b: $(ldd $b 2>&1 | grep -c 'not found') missing libraries"
        ldd $b 2>&1 | grep 'not found'
    done
} >"$OUT/machine.txt" 2>&1
: >"$OUT/summary.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
    --format=csv -lms 100 >"$OUT/clocks.csv" 2>&1 &
clock_log=$!

step "GPU tests (no validation layer)" 150 test_gpu.log build/test_gpu
step "compute kernels as compiled" 60 kernel_stats.txt build/kernel_stats
step "GPU benchmark" 270 bench_gpu.log build/bench_gpu --csv "$OUT/bench_gpu.csv" ${BENCH_GPU_ARGS:-}
step "CPU benchmark" 120 bench_cpu.log build/bench_cpu --csv "$OUT/bench_cpu.csv" --threads-max 16
kill "$clock_log" 2>/dev/null

# The short table: the lines that carry the figures.
{
    echo
    echo "==== machine"
    cat "$OUT/machine.txt"
    echo "==== GPU tests"
    grep -E '^(FAIL|device:|[0-9]+ passed)' "$OUT/test_gpu.log"
    echo "==== compute kernels (registers a thread)"
    grep -E '^(skin.comp|  Register)' "$OUT/kernel_stats.txt"
    echo "==== GPU benchmark"
    grep -E '^(bench_gpu:|GPU warm-up|Write-bandwidth|Compute skinning|Crowd draw|method|path|LBS|DQS|mixed|fill, same B|skinned|posed|compute|  mesh|  crowd|  device-local|  \(CPU|FAIL|[0-9]+ passed)' \
        "$OUT/bench_gpu.log"
    echo "==== CPU benchmark"
    grep -E '^(bench_cpu:|Skinning|method|LBS|DQS|naive|fast /|Palettes|instances|targets|gpuskin_build|threads| +[0-9]+ +[0-9.]+|FAIL|[0-9]+ passed)' \
        "$OUT/bench_cpu.log"
    echo "==== GPU clocks while the steps ran (clocks.csv in more.tgz): SM MHz, lowest / median / highest"
    awk -F', ' 'NR > 1 && $2 ~ /MHz/ { split($2, a, " "); print a[1] }' "$OUT/clocks.csv" | sort -n |
        awk '{ v[NR] = $1 } END { if (NR) print v[1], "/", v[int((NR + 1) / 2)], "/", v[NR], "(" NR " samples)" }'
} >>"$OUT/summary.txt"
tar czf "$OUT/more.tgz" -C "$OUT" test_gpu.log kernel_stats.txt clocks.csv && rm -f "$OUT/test_gpu.log" "$OUT/kernel_stats.txt" "$OUT/clocks.csv"
cat "$OUT/summary.txt"
