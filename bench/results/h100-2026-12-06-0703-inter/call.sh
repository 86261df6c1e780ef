#!/bin/bash
# The device call of 2026-12-06 07:03 (carry: build/inter, made as README.md says), from the repository root.
c=bench/results/local-2026-12-06-0330-chains/cmp.sh
{ grep -m1 "model name" /proc/cpuinfo
  for a in "1" "1 h" "3"; do echo "== $a"; bash $c "$a" build/inter/seq.sh build/inter/inter.sh; done
} > "$OUT/inter.txt" 2>&1
cat "$OUT/inter.txt"
