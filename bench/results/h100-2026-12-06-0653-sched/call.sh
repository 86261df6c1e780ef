#!/bin/bash
# The device call of 2026-12-06 06:53 (carry: build/sched, made as README.md says), from the repository root.
c=bench/results/local-2026-12-06-0330-chains/cmp.sh
{ grep -m1 "model name" /proc/cpuinfo
  for a in "1" "1 h" "3"; do echo "== $a"; bash $c "$a" build/sched/cur.sh build/sched/cp.sh build/sched/curwalk.sh build/sched/cpwalk.sh; done
} > "$OUT/sched.txt" 2>&1
cat "$OUT/sched.txt"
