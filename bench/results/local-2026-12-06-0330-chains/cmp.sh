#!/bin/bash
# cmp.sh "ARGS" BIN... : 8 alternating rounds of each BIN with ARGS (pal_chain.c's N [h]); per binary the
# minimum and the median of the rounds' minima (each round's minimum of 15 timings), ns/joint
a=$1; shift
declare -A v
for r in 1 2 3 4 5 6 7 8; do for b in "$@"; do m=$($b $a 2>/dev/null | sed 's/.*min \([0-9.]*\).*/\1/'); v[$b]="${v[$b]} $m"; done; done
for b in "$@"; do echo "$b: $(echo ${v[$b]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END{printf "min %.3f med %.3f", a[1], (a[4]+a[5])/2}')"; done
