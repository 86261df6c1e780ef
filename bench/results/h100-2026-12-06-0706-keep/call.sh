#!/bin/bash
# The device call of 2026-12-06 07:06 (carry: build/keep: pal_head from 7020486, pal_keep from keep.patch, both ../local-2026-12-06-0330-chains/pal_chain.c), from the repository root.
c=bench/results/local-2026-12-06-0330-chains/cmp.sh
{ grep -m1 "model name" /proc/cpuinfo
  for a in "1" "1 h" "3" "3 h"; do echo "== $a"; bash $c "$a" build/keep/pal_head build/keep/pal_keep; done
} > "$OUT/keep.txt" 2>&1
cat "$OUT/keep.txt"
