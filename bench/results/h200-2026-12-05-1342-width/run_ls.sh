#!/bin/bash
# Workgroup width 64 (base) / 128 / 256 at 64 and 1,024 instances.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export LD_LIBRARY_PATH=$PWD/build/bench-libs
if [ -z "${VK_DRIVER_FILES:-}" ] && ! ls /usr/share/vulkan/icd.d/nvidia*.json /etc/vulkan/icd.d/nvidia*.json >/dev/null 2>&1; then export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; fi
mkdir -p /tmp/ex; for v in ls64 ls128 ls256; do timeout 40 build/ks/kernel_stats_$v > /tmp/ex/ks_$v.txt 2>&1; echo "ks $v rc=$?"; done
tar czf $OUT/extra.tgz -C /tmp/ex .
H2H_ARGS="--busy 16 --counts 64,1024" ROUNDS=2 bash bench/run_h200_kernels.sh > /tmp/h2hout.txt 2>&1
echo "h2h rc=$?"; grep -E '^===|rc=' /tmp/h2hout.txt
date -u
