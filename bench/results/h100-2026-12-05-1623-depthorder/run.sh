#!/bin/bash
# CPU-only A/B on the H200 host: depth order (dord) vs HEAD (base); thresholds (thr); AVX2 forms (…2).
cd "$(dirname "$0")"
date -u; grep -m1 'model name' /proc/cpuinfo; nproc
echo "== AVX-512: base vs dord"; for n in 1 3 64 1024; do echo "n=$n"; bash cmp.sh $n base dord; done
echo "== AVX-512: dord (P8 7, P16 11) vs thr (P8 9, P16 13)"; for n in 7 8 11 12; do echo "n=$n"; bash cmp.sh $n dord thr; done
echo "== AVX2: base2 vs dord2"; for n in 1 3; do echo "n=$n"; bash cmp.sh $n base2 dord2; done
echo "== AVX2: dord2 (rows below 4) vs thr2 (rows below 8)"; for n in 4 5 6 7; do echo "n=$n"; bash cmp.sh $n dord2 thr2; done
date -u
echo "== bench_cpu --only palettes, head and new alternating"
for r in 1 2 3; do for v in head new; do timeout 60 ./bench_cpu_$v --only palettes --csv $OUT/bcpu_${v}_$r.csv > $OUT/bcpu_${v}_$r.log 2>&1; echo "bcpu $v $r rc=$?"; grep -E '^ +(1|64|1024|10000) ' $OUT/bcpu_${v}_$r.log; done; done
date -u
