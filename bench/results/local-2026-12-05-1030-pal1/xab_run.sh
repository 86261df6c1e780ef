#!/bin/bash
# CPU A/B on the device host: each pair both ways round, pos+nrm and +tangents, 3 rounds.
cd "$(dirname "$0")"
echo "host: $(grep -m1 'model name' /proc/cpuinfo), $(nproc) cpus"
for r in 1 2 3; do
  for p in ab_new_old ab_old_new ab8_new_old ab8_old_new ab_t52_new ab_new_t52 ab8_t52_new ab8_new_t52; do
    for m in "" tan; do
      echo "=== round $r $p $m ($(date -u +%H:%M:%S))"; timeout 60 ./$p $m
    done
  done
done
# one-instance palettes: today (hb), depth order (hd), depth order + spreads kept (sp); diagnostics: chain cut, locals once, both
for n in 1 3; do echo "== pal n=$n ($(date -u +%H:%M:%S))"; bash cmp.sh $n pal_hb pal_hd pal_sp pal_ib pal_cut pal_loc pal_both; done
for b in pal_hb pal_hd pal_sp pal_ib pal_cut pal_loc pal_both; do ./$b 1; done
