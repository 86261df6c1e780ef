#!/bin/bash
# One device call: full run of HEAD, kernel_stats of the shader variants, CPU A/Bs, kernel head-to-head.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export LD_LIBRARY_PATH=$PWD/build/bench-libs
date -u
FINAL=$OUT
OUT=/tmp/full BENCH_GPU_ARGS="--busy 16" bash bench/run_h200.sh > /tmp/full_stdout.txt 2>&1
echo "full rc=$?"; cat /tmp/full/summary.txt | grep -E '^===|rc=' ; cp /tmp/full_stdout.txt /tmp/full/
tar czf $FINAL/full.tgz -C /tmp/full .
mkdir -p /tmp/ex
if [ -z "${VK_DRIVER_FILES:-}" ] && ! ls /usr/share/vulkan/icd.d/nvidia*.json /etc/vulkan/icd.d/nvidia*.json >/dev/null 2>&1; then export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; fi
for v in a b c; do timeout 40 build/h2h/kernel_stats_$v > /tmp/ex/ks_$v.txt 2>&1; echo "ks $v rc=$?"; done
bash build/h2h/xab/run.sh > /tmp/ex/xab.txt 2>&1; echo "xab rc=$?"
grep -E 'host|ratio' /tmp/ex/xab.txt | head -3
tar czf $FINAL/extra.tgz -C /tmp/ex .
date -u
OUT=$FINAL H2H_ARGS="--busy 16 --counts 64,1024" ROUNDS=2 bash bench/run_h200_kernels.sh > /tmp/h2hout.txt 2>&1
echo "h2h rc=$?"; grep -E '^===|rc=' /tmp/h2hout.txt
date -u
