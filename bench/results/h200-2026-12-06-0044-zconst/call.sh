#!/bin/bash
# Second call: the one-instance palettes with constant lane offsets (z: AVX-512, y: the
# AVX2 form, built with -DGPUSKIN_NO_AVX512) against b0f8108, and with zspec on top;
# then bench_cpu --only palettes, b0f8108 and the new header in turn, 3 rounds.
cd bench/results/h100-2026-12-05-2353/ab2 # the binaries: not committed, built as README.md here says
date -u; grep -m1 'model name' /proc/cpuinfo
for n in 1 3 64; do echo "n=$n"; bash ../../local-2026-12-04-2300-palx/cmp.sh $n z_old z_new z_zs y_old y_new; done
for r in 1 2 3; do for v in old new; do echo "== round $r, bench_cpu_$v"; ./bench_cpu_$v --only palettes | grep -E '^ +[0-9]+ +[0-9.]+|passed'; done; done
date -u
