#!/usr/bin/env python3
"""bench/fit_counts.py - what a dispatch of 64 instances loses, from bench_gpu CSVs.

usage: fit_counts.py BENCH_GPU.csv [BENCH_GPU.csv ...] [--mesh synthetic] [--floor-us X]

For every compute row of the mesh (kernel and crowd, e.g. "synthetic LBS") with
rows at 64 and 1,024 instances (the median over the files of each row's median):
- t64, and its share of the write ceiling (the files' median ceiling);
- excess: t64 - 64 x (t1,024 / 1,024), the time a dispatch of 64 instances takes
  beyond what the 1,024-instance rate predicts (launch, ramp-up, the last wave);
- beyond floor: the excess less the floor, the time one workgroup of the fill
  takes between the same timestamps (bench_gpu's "dispatch floor" row; from
  --floor-us for CSVs of runs before that row existed);
- floor only: the share at 64 instances if the dispatch lost only the floor, and
  steady: the share at the 1,024-instance rate with nothing lost.
Output bytes: 24 a vertex-instance (positions + normals), 12 for "pos only".
"""
import csv, re, statistics, sys


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def main(argv):
    mesh, floor_arg, paths = "synthetic", None, []
    i = 0
    while i < len(argv):
        if argv[i] in ("--mesh", "--floor-us") and i + 1 < len(argv):
            if argv[i] == "--mesh":
                mesh = argv[i + 1]
            else:
                floor_arg = float(argv[i + 1]) * 1e-6
            i += 2
        else:
            paths.append(argv[i])
            i += 1
    if not paths:
        sys.exit(__doc__)
    times, verts, ceiling, floors = {}, {}, [], []
    for p in paths:
        for r in rows(p):
            if r["group"] == "ceiling":
                if r["variant"] == "write vec4 (local_size 256)":
                    ceiling.append(float(r["value"]) * 1e9)
                elif r["variant"].startswith("dispatch floor"):
                    floors.append(float(r["median_s"]))
                continue
            if r["group"] != "skin-compute":
                continue
            m = re.fullmatch(r"(.*) x(\d+)", r["variant"])
            if not m or not m.group(1).startswith(mesh + " "):
                continue
            crowd, n = m.group(1), int(m.group(2))
            times.setdefault(crowd, {}).setdefault(n, []).append(float(r["median_s"]))
            verts[crowd] = float(r["size"]) / n
    if not ceiling:
        sys.exit("fit_counts: no ceiling row in the files")
    ceil_bps = statistics.median(ceiling)
    floor = floor_arg if floor_arg is not None else (statistics.median(floors) if floors else None)
    if floor is None:
        sys.exit("fit_counts: no dispatch floor row in the files: give --floor-us")
    src = "--floor-us" if floor_arg is not None else f"median of {len(floors)} rows"
    print(f"files: {len(paths)}; ceiling {ceil_bps / 1e9:.1f} GB/s (median of {len(ceiling)}); "
          f"floor {floor * 1e6:.2f} us ({src})")
    print(f"{'crowd':32s} {'t64 us':>7s} {'at 64':>6s} {'excess us':>9s} {'beyond floor':>12s} "
          f"{'floor only':>10s} {'steady':>7s}")
    for crowd in sorted(times):
        d = {n: statistics.median(ts) for n, ts in times[crowd].items()}
        if 64 not in d or 1024 not in d:
            continue
        bytes64 = 64 * verts[crowd] * (12.0 if "pos only" in crowd else 24.0)
        pred = 64 * d[1024] / 1024
        excess = d[64] - pred
        share = lambda t: 100.0 * bytes64 / t / ceil_bps
        print(f"{crowd:32s} {d[64] * 1e6:7.2f} {share(d[64]):5.1f}% {excess * 1e6:9.2f} "
              f"{(excess - floor) * 1e6:12.2f} {share(pred + floor):9.1f}% {share(pred):6.1f}%")


if __name__ == "__main__":
    main(sys.argv[1:])
