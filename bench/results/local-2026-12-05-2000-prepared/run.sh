#!/bin/bash
# The CPU A/B for the device host (after build.sh, here): each variant against base,
# 8 alternating rounds a size (cmp.sh: median and minimum of the rounds' minima).
cd "$(dirname "$0")"
date -u; grep -m1 'model name' /proc/cpuinfo; nproc; lscpu | grep -E 'L2|L3'
echo "== groups of sixteen: base / nt / stg / stride"; for n in 64 1024 10000; do echo "n=$n"; bash ../local-2026-12-04-2300-palx/cmp.sh $n base nt stg stride; done
echo "== one at a time: base / zconst / zspec / zlane"; for n in 1 3; do echo "n=$n"; bash ../local-2026-12-04-2300-palx/cmp.sh $n base zconst zspec zlane; done
date -u
