#!/bin/bash
# usage: cmp.sh N bin...  : 8 alternating rounds, per binary median & min of per-run mins
n=$1; shift
declare -A v
for r in 1 2 3 4 5 6 7 8; do for b in "$@"; do m=$(./$b $n | sed 's/.*min \([0-9.]*\).*/\1/'); v[$b]="${v[$b]} $m"; done; done
for b in "$@"; do echo "$b: $(echo ${v[$b]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END{printf "min %.3f med %.3f", a[1], (a[4]+a[5])/2}')"; done
