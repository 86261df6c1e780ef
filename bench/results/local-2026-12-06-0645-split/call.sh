#!/bin/bash
# The device call of 2026-12-06 06:47 (from the repository root): the full run, then the one-instance
# palette form's parts on the host CPU: pal_split (split.patch on 7020486's gpuskin.h) whole ("all"),
# its joint walk alone ("walk": the local matrices made on the first call only, kept in a static
# buffer), its local matrices alone ("local": no walk, wrong output) and neither ("none": the call's
# fixed cost); 8 alternating rounds each with ../local-2026-12-06-0330-chains/cmp.sh.
BENCH_GPU_ARGS="--busy 16" bash bench/run_h200.sh
c=bench/results/local-2026-12-06-0330-chains/cmp.sh
{ grep -m1 "model name" /proc/cpuinfo
  for a in "1" "1 h"; do echo "== $a"; bash $c "$a" build/split/all.sh build/split/walk.sh build/split/local.sh build/split/none.sh; done
} > "$OUT/split.txt" 2>&1
cat "$OUT/split.txt"
