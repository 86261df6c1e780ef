#!/usr/bin/env python3
"""bench/h2h_ratios.py - ratios of bench_gpu's compute rows (G vertex-instances/s)
from an unpacked h2h.tgz of bench/run_h200_kernels.sh, medians over its rounds
(the h2h_V_R.csv files).

usage: python3 bench/h2h_ratios.py DIR ab      each binary's rows over the first's (by name)
       python3 bench/h2h_ratios.py DIR spec N  the "X N/inv" rows over "X" (the automatic count)
       python3 bench/h2h_ratios.py DIR gen N   "X general N/inv" over "X general"
"""
import sys, glob, re, collections, statistics

def load(path):
    d = {}
    for line in open(path):
        r = line.rstrip('\n').split(',')
        if r[0] == 'skin-compute':
            d[r[1]] = float(r[7])
    return d

folder, mode = sys.argv[1], sys.argv[2]
by = collections.defaultdict(list)
for f in sorted(glob.glob(folder + '/h2h_*_*.csv')):
    by[re.match(r'.*/h2h_(.*)_(\d+)\.csv', f).group(1)].append(load(f))
fmt = lambda xs: ' '.join('%7.2f' % x for x in xs)
if mode == 'ab':
    a, *others = sorted(by)
    for b in others:
        for k in by[a][0]:
            va, vb = [x[k] for x in by[a] if k in x], [x[k] for x in by[b] if k in x]
            if va and vb:
                print(f"{k:42s} {fmt(va)} | {fmt(vb)}  {b}/{a} {statistics.median(vb) / statistics.median(va):.3f}")
else:
    n = sys.argv[3]
    (runs,) = by.values()
    for k in runs[0]:
        gen = ' general %s/inv' % n in k
        if (mode == 'gen') != gen or ' %s/inv' % n not in k:
            continue
        base = k.replace(' %s/inv' % n, '')
        vb, vp = [x[base] for x in runs], [x[k] for x in runs]
        print(f"{base:42s} {fmt(vb)} | {n}/inv {fmt(vp)}  {n}/inv over it {statistics.median(vp) / statistics.median(vb):.3f}")
