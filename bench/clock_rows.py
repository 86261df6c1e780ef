#!/usr/bin/env python3
"""bench/clock_rows.py - the GPU's SM clock while each bench_gpu row ran.

usage: python3 bench/clock_rows.py BENCH_GPU_CSV CLOCKS_CSV

BENCH_GPU_CSV: bench_gpu's --csv output (its "# started ... UTC" line and t_s
column); CLOCKS_CSV: nvidia-smi --query-gpu=timestamp,clocks.sm,... --format=csv
-lms 100, as bench/run_h200.sh writes it (clocks.csv in more.tgz). Prints, for every
compute-skinning row, its median time and the SM clock samples taken between the
previous row's end and its own. The skinning kernels are bound by the SMs, so a
row that ran below the clock's maximum (1980 MHz on the H200) is slower in
proportion; the fill kernels, bound by DRAM, are not (bench_gpu's "paired"
column).
"""
import datetime
import sys


def clocks(path):
    out = []
    for line in open(path):
        f = [x.strip() for x in line.split(",")]
        if len(f) < 2 or f[0] == "timestamp" or "MHz" not in f[1]:
            continue
        t = datetime.datetime.strptime(f[0], "%Y/%m/%d %H:%M:%S.%f")
        out.append((t, int(f[1].split()[0])))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    samples = clocks(sys.argv[2])
    start, prev = None, 0.0
    for line in open(sys.argv[1]):
        if line.startswith("# started"):
            start = datetime.datetime.strptime(line.split()[2] + " " + line.split()[3], "%Y-%m-%d %H:%M:%S.%f")
            continue
        f = line.strip().split(",")
        if start is None or len(f) < 10 or f[0] == "group":
            continue
        t_s = float(f[-1])
        if f[0] == "skin-compute":
            t0 = start + datetime.timedelta(seconds=prev)
            t1 = start + datetime.timedelta(seconds=t_s)
            mhz = [m for t, m in samples if t0 <= t <= t1]
            print(f"{f[1]:48s} {float(f[4]) * 1e3:9.3f} ms  SM MHz {mhz}")
        prev = t_s


main()
