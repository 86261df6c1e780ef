#!/bin/bash
# One device call: the full run of HEAD (binaries from `make build/test_gpu build/bench_gpu build/bench_cpu
# build/kernel_stats build/bench-libs`), then the chain slots against the depth order on the host's CPU
# (binaries from build.sh here). From the repository root; carry [".gl","build/test_gpu","build/bench_gpu",
# "build/bench_cpu","build/kernel_stats","build/bench-libs","build/chains"]. $OUT gets run_h200.sh's 7 files
# and chains.txt.
set -u
D=bench/results/local-2026-12-06-0330-chains
BENCH_GPU_ARGS="--busy 16" bash bench/run_h200.sh > /dev/null 2>&1
C=build/chains
{
    date -u
    grep -m1 'model name' /proc/cpuinfo
    for a in "1" "3" "1 h" "3 h" "64"; do echo "== pal_chain $a"; bash $D/cmp.sh "$a" $C/pal_base $C/pal_k4 $C/pal_k2; done
    echo "== bench_cpu --only palettes, base and k4 in turn (1-instance row)"
    for r in 1 2 3 4; do
        for b in base k4; do echo "$b $($C/bench_cpu_$b --only palettes 2>&1 | grep -E '^ +(1|64|1024|10000) ' | tr -s ' ' | tr '\n' '|')"; done
    done
    date -u
} > "$OUT/chains.txt" 2>&1
tail -n 60 "$OUT/summary.txt"; cat "$OUT/chains.txt"
