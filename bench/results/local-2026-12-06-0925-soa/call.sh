#!/bin/bash
# One device call (2026-12-06): on an H200 machine the full run of HEAD first (binaries from `make build/test_gpu
# build/bench_gpu build/bench_cpu build/kernel_stats build/bench-libs`), then on any machine the experiment:
# one instance's local poses read from blocks of sixteen joints, one array a component (soa.patch), against the
# same binary reading gpuskin_trs (build/soa/pal_soa with and without SOA=1; pal_chain.c + pal_chain_soa.patch).
# From the repository root; carry [".gl","build/test_gpu","build/bench_gpu","build/bench_cpu","build/kernel_stats",
# "build/bench-libs","build/soa"].
set -u
D=bench/results/local-2026-12-06-0925-soa
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
    BENCH_GPU_ARGS="--busy 16" bash bench/run_h200.sh > /dev/null 2>&1
fi
{ date -u; nvidia-smi --query-gpu=name --format=csv,noheader; grep -m1 "model name" /proc/cpuinfo
  for a in "1" "1 h" "3" "3 h" "64"; do echo "== $a"; bash bench/results/local-2026-12-06-0330-chains/cmp.sh "$a" build/soa/pal_base build/soa/soa_on.sh; done
  date -u
} > "$OUT/soa.txt" 2>&1
[ -f "$OUT/summary.txt" ] && tail -n 60 "$OUT/summary.txt"
cat "$OUT/soa.txt"
