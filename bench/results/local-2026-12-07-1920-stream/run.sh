#!/usr/bin/env bash
# One device call, from the repository root, on whichever card comes (H200 or H100).
# Carry: [".gl", "build/test_gpu", "build/bench_gpu", "build/bench_cpu",
#         "build/kernel_stats", "build/bench-libs"]. Writes to $OUT.
# On an H100 (H100 machines made full runs of this code today) only step 2, with
# the --stream 8 round twice.
# 1. On an H200, the full run with bench_gpu's new --stream rows (8 dispatches of a crowd back
#    to back, no barrier between them: the time a dispatch in a frame that skins
#    several crowds): BENCH_GPU_ARGS="--busy 16 --stream 8" bash bench/run_h200.sh.
#    STREAM_ONLY=1 skips it (a call with little device time left): step 2 alone.
#    ROUND_S=N (default 300): the rounds stop by N s after the start.
#    On an H200 the first run of kernel 8 and of the dispatch floor there.
# 2. In the time left, the compute rows at 16 / 64 / 256 / 1,024 instances with
#    --stream 8 once more, then 64 instances with --stream 2, 4 and 16: how the
#    time a dispatch depends on the stream's length. Into sweep.tgz.
set -u
t0=$(date +%s)
n=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)
echo "GPU: $n"
. bench/device_env.sh
export OUT
rounds="8 16,64,256,1024|2 64|4 64|16 64"
if [ -z "${STREAM_ONLY:-}" ] && echo "$n" | grep -q H200; then
    BENCH_GPU_ARGS="--busy 16 --stream 8" bash bench/run_h200.sh
else # H100 machines made full runs of this code today: the stream rows alone
    build/test_gpu compute 2>&1 | tail -n 1
    [ -n "${STREAM_ONLY:-}" ] || rounds="8 16,64,256,1024|$rounds" # on an H100, the first round twice
fi
mkdir -p "$OUT/sweep"
r=0
IFS='|' read -ra list <<<"$rounds"
for a in "${list[@]}"; do
    r=$((r + 1))
    set -- $a
    left=$((${ROUND_S:-300} - ($(date +%s) - t0)))
    [ "$left" -gt 60 ] || { echo "no time left for --stream $1"; break; }
    timeout $((left - 30)) build/bench_gpu --compute-only --busy 16 --stream "$1" --counts "$2" \
        --csv "$OUT/sweep/r${r}_stream_$1.csv" >"$OUT/sweep/r${r}_stream_$1.log" 2>&1
    echo "round $r, --stream $1 --counts $2: rc=$? $(tail -n 1 "$OUT/sweep/r${r}_stream_$1.log")"
done
(cd "$OUT" && tar czf sweep.tgz sweep && rm -rf sweep)
grep -h "floor\|str\. 8" "$OUT"/bench_gpu.log 2>/dev/null | head -40
(cd "$OUT" && mkdir -p s && tar xzf sweep.tgz -C s && grep -h "synthetic LBS \(stream [0-9]* \)\?x64," s/sweep/*.csv | grep -- "-bw,"; rm -rf s)
ls -la "$OUT"
