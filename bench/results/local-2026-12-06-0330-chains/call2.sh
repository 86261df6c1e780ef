#!/bin/bash
# A second, short device call: cf7de67 (the local rows stored as whole registers) against 149c5f5 on
# the host's CPU. build/chains/pal_blk: pal_chain.c against cf7de67's gpuskin.h
# (gcc -O2 -I<dir> pal_chain.c -lm, stripped); pal_k4 and pal_base from build.sh.
# Carry ["build/chains"]. $OUT gets blk.txt.
set -u
D=bench/results/local-2026-12-06-0330-chains
C=build/chains
{
    date -u
    grep -m1 'model name' /proc/cpuinfo
    for a in "1" "3" "1 h" "3 h"; do echo "== pal_chain $a"; bash $D/cmp.sh "$a" $C/pal_base $C/pal_k4 $C/pal_blk; done
    date -u
} > "$OUT/blk.txt" 2>&1
cat "$OUT/blk.txt"
