#!/bin/bash
# One device call: the full run of the binaries in build/ (BENCH_GPU_ARGS="--busy 16").
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
date -u
FINAL=$OUT
OUT=/tmp/full BENCH_GPU_ARGS="--busy 16" bash bench/run_h200.sh > /tmp/full_stdout.txt 2>&1
echo "full rc=$?"; grep -E '^===|rc=' /tmp/full/summary.txt; cp /tmp/full_stdout.txt /tmp/full/
for f in machine.txt summary.txt bench_gpu.csv bench_cpu.csv bench_cpu.log bench_gpu.log; do cp /tmp/full/$f $FINAL/ 2>/dev/null; done
tar czf $FINAL/full.tgz -C /tmp/full .
date -u
