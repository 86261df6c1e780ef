#!/bin/bash
# One device call (2026-12-05 session): the full run of HEAD, then the prepared A/Bs.
# From the repository root; carry [".gl","build/test_gpu","build/bench_gpu","build/bench_cpu",
# "build/kernel_stats","build/bench-libs","build/h2h","build/ks"].
# $OUT gets run_h200.sh's 7 files and extra.tgz (the A/Bs' logs).
# Built here first (b0f8108):
#   make build/test_gpu build/bench_gpu build/bench_cpu build/kernel_stats build/bench-libs
#   dq_before / dq_head: gcc -O2 -I<dir> ../local-2026-12-05-2035-dqcheck/dq_tight.c -lm, <dir>
#     holding 1aec408's gpuskin.h / b0f8108's; the prepared folder's variants: its build.sh
#   build/h2h/bench_gpu_a_base = build/bench_gpu; build/ks/kernel_stats_a_base = build/kernel_stats
#   b_rec: shaders/ and gpuskin.h copied to /tmp/rec, b_rec.patch applied there,
#     build/gen_shaders /tmp/rec/shaders /tmp/rec/gpuskin_shaders.h /tmp/rec/sp, then
#     bench/bench_gpu.c and bench/kernel_stats.c compiled with -I/tmp/rec first (as mk/bench.mk)
#   all stripped
set -u
D=bench/results/h100-2026-12-05-2353 # (named device-2026-12-05-2330 when it ran)
BENCH_GPU_ARGS="--busy 16" bash bench/run_h200.sh > /dev/null 2>&1
X=/tmp/extra; rm -rf $X; mkdir -p $X
export LD_LIBRARY_PATH="$PWD/build/bench-libs"
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && ! ls /usr/share/vulkan/icd.d/nvidia*.json >/dev/null 2>&1 &&
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
# (1) gpuskin_pack_dq_fast before d2fca5c (1aec408) and at HEAD, 8 alternating rounds a size.
( cd $D && date -u && for n in 1 64 1024 10000; do echo "n=$n"; bash ../local-2026-12-05-2035-dqcheck/cmp.sh $n dq_before dq_head; done ) > $X/dq_ab.txt 2>&1
# (2) the shaders' palette records as structs: what the compiler made, then head to head.
for v in a_base b_rec; do timeout 60 build/ks/kernel_stats_$v > $X/kernel_stats_$v.txt 2>&1; done
OUT=$X W=/tmp/h2hw H2H_ARGS="--busy 16 --counts 64,1024" ROUNDS=2 timeout 200 bash bench/run_h200_kernels.sh > $X/h2h_stdout.txt 2>&1
# (3) the palette variants on the host's CPU.
timeout 150 bash bench/results/local-2026-12-05-2000-prepared/run.sh > $X/pal_variants.txt 2>&1
tar czf "$OUT/extra.tgz" -C $X .
cat "$OUT/summary.txt" | tail -n 80; cat $X/dq_ab.txt; grep -E 'Binary Size|Register' $X/kernel_stats_*.txt | head -40; tail -n 30 $X/h2h_stdout.txt; cat $X/pal_variants.txt
