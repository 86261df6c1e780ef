#!/bin/bash
# One device call (2026-12-06): the last instances of a dispatch in a second dispatch with fewer instances an
# invocation, so that its short workgroups fill the first one's last wave (tail.patch, switched by GPUSKIN_TAIL =
# instances in the second dispatch, GPUSKIN_TAIL_PER = its instances an invocation). build/tail/bench_gpu is
# bench_gpu built against the patched header, build/tail/bench_gpu_base HEAD's (make build/bench_gpu).
# From the repository root; carry [".gl","build/tail","build/bench-libs"]. Writes tail.txt and the CSVs to $OUT.
set -u
# the loader and driver as bench/run_h200.sh sets them up
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export LD_LIBRARY_PATH="$PWD/build/bench-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if ! ls /usr/share/vulkan/icd.d/nvidia*.json /etc/vulkan/icd.d/nvidia*.json >/dev/null 2>&1 &&
   [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
export GPUSKIN_NO_VALIDATION=1
B="--compute-only --counts 64 --busy 16 --reps 20"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  for r in 1 2; do
    for v in base "8 2" "8 4" "16 2" "16 4" "24 4"; do
      set -- $v
      if [ "$1" = base ]; then echo "== round $r: base"; build/tail/bench_gpu_base $B --csv $OUT/base_$r.csv
      else echo "== round $r: tail $1, $2 an invocation"; GPUSKIN_TAIL=$1 GPUSKIN_TAIL_PER=$2 build/tail/bench_gpu $B --csv $OUT/tail_$1_$2_$r.csv; fi 2>&1 | grep -E '^(fill|LBS|DQS|mixed)|passed|ceiling' | grep -v CesiumMan
    done
  done
  date -u
} > "$OUT/tail.txt" 2>&1
cat "$OUT/tail.txt"
