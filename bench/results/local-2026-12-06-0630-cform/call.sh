#!/bin/bash
# The device call of 2026-12-06 (from the repository root): the full run, then the four-chain
# form (pal_cform, cform.patch; GPUSKIN_CFORM_ANY=1 takes it for the bench skeleton too) against
# HEAD (pal_head), 8 alternating rounds each, with ../local-2026-12-06-0330-chains/cmp.sh.
BENCH_GPU_ARGS="--busy 16" bash bench/run_h200.sh
c=bench/results/local-2026-12-06-0330-chains/cmp.sh
{ grep -m1 "model name" /proc/cpuinfo
  for a in "1" "1 h" "3 h"; do echo "== $a"; GPUSKIN_CFORM_ANY=1 bash $c "$a" build/cform/pal_head build/cform/pal_cform; done
} > "$OUT/cform.txt" 2>&1
cat "$OUT/cform.txt"
