#!/bin/bash
# One device call: full run of HEAD (bd519ab), kernel head-to-head (a base, e_dqparts, f restrict, g both),
# kernel_stats of the variants, one-instance palettes with and without the skeleton's rows (CPU).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export LD_LIBRARY_PATH=$PWD/build/bench-libs
date -u
FINAL=$OUT
OUT=/tmp/full BENCH_GPU_ARGS="--busy 16" bash bench/run_h200.sh > /tmp/full_stdout.txt 2>&1
echo "full rc=$?"; grep -E '^===|rc=' /tmp/full/summary.txt; cp /tmp/full_stdout.txt /tmp/full/
tar czf $FINAL/full.tgz -C /tmp/full .
date -u
OUT=$FINAL H2H_ARGS="--busy 16 --counts 64,1024" ROUNDS=2 bash bench/run_h200_kernels.sh > /tmp/h2hout.txt 2>&1
echo "h2h rc=$?"; grep -E '^===|rc=' /tmp/h2hout.txt
date -u
mkdir -p /tmp/ex
if [ -z "${VK_DRIVER_FILES:-}" ] && ! ls /usr/share/vulkan/icd.d/nvidia*.json /etc/vulkan/icd.d/nvidia*.json >/dev/null 2>&1; then export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; fi
for v in a e f g; do timeout 40 build/ks/kernel_stats_$v > /tmp/ex/ks_$v.txt 2>&1; echo "ks $v rc=$?"; done
tar czf $FINAL/extra.tgz -C /tmp/ex .
(cd build/h2h/pal && for n in 1 3; do echo "n=$n"; bash cmp.sh $n pal_head pal_rows; done) > /tmp/ex/pal.txt 2>&1; cat /tmp/ex/pal.txt
tar czf $FINAL/extra.tgz -C /tmp/ex .
for r in 1 2; do for v in head rows; do timeout 40 build/h2h/pal/bench_cpu_$v --only palettes --csv /tmp/ex/bcpu_${v}_$r.csv > /tmp/ex/bcpu_${v}_$r.log 2>&1; echo "bcpu $v $r rc=$?"; grep -E '^ +(1|64|1024|10000) ' /tmp/ex/bcpu_${v}_$r.log; done; done
tar czf $FINAL/extra.tgz -C /tmp/ex .
date -u
