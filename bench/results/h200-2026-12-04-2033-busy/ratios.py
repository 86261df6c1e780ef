#!/usr/bin/env python3
"""Ratios of bench_gpu compute rows in one run (G vertex-instances/s).

usage: ratios.py FOLDER_OF_UNPACKED_H2H spec N   -- the "X N/inv" rows against "X" (the automatic count)
       ratios.py FOLDER gen N                     -- "X general N/inv" against "X general" (4 an invocation)
       ratios.py FOLDER ab                        -- two binaries' rows, b over a
Medians over the rounds (h2h_V_R.csv files)."""
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
    a, b = sorted(by)
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
