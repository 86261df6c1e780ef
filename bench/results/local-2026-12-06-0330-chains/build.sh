#!/bin/bash
# Builds, from the repository root, the binaries call.sh runs (into build/chains/, not committed):
#   pal_base / pal_k4 / pal_k2: pal_chain.c against 867ae2c's gpuskin.h (depth order), 149c5f5's
#   (four chain slots) and 149c5f5's with k2.patch (two slots); bench_cpu_base / bench_cpu_k4:
#   build/bench_cpu of 867ae2c and 149c5f5 (make build/bench_cpu in a worktree of each).
set -eu
D=bench/results/local-2026-12-06-0330-chains
O=build/chains; mkdir -p $O /tmp/chains/base /tmp/chains/k4 /tmp/chains/k2
git show 867ae2c:gpuskin.h > /tmp/chains/base/gpuskin.h
git show 149c5f5:gpuskin.h > /tmp/chains/k4/gpuskin.h
cp /tmp/chains/k4/gpuskin.h /tmp/chains/k2/gpuskin.h && (cd /tmp/chains/k2 && patch -s -p1 < "$OLDPWD/$D/k2.patch")
for v in base k4 k2; do cp $D/pal_chain.c /tmp/chains/$v/ && gcc -O2 -I/tmp/chains/$v /tmp/chains/$v/pal_chain.c -o $O/pal_$v -lm; done
for c in 867ae2c:base 149c5f5:k4; do
    w=/tmp/chains/wt_${c#*:}; rm -rf $w; git worktree add -f -q $w ${c%%:*}
    make -s -C $w build/bench_cpu >/dev/null && cp $w/build/bench_cpu $O/bench_cpu_${c#*:}
    git worktree remove --force $w
done
strip $O/*
