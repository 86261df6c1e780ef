#!/usr/bin/env bash
# bench/run_h200_kernels.sh - compute-skinning kernels head to head on one machine.
#
# Shared GPUs drift between sessions, so kernel variants are compared in one
# session, alternating: each build/h2h/bench_gpu_* binary (any number; built
# locally from the variant's gpuskin.h / gpuskin_shaders.h, see BENCHMARKS.md)
# runs `--compute-only --reps 20` ROUNDS times (default 2), in turn, with the
# extra arguments in H2H_ARGS (e.g. "--sets 2" or "--mixed-run 4"), if any.
# Carry: [".gl", "build/h2h", "build/bench-libs"] (strip the binaries: the carry
# limit is 64 MiB). Writes $OUT/h2h.tgz (every run's log and CSV, clocks.csv, and
# h2h_summary.txt: the figure lines of each run) and prints the summary.
set -u
. bench/device_env.sh # the Vulkan loader, the carried libraries, the ICD
OUT=${OUT:-/tmp/gpuskin-h2h}
W=${W:-/tmp/gpuskin-h2h-work} # another W (and OUT) for each H2H_ARGS in one call
# The device machine may keep /tmp between sessions: start W empty, or h2h.tgz
# would carry an earlier session's logs beside this one's.
rm -rf "$W"
mkdir -p "$OUT" "$W"
ROUNDS=${ROUNDS:-2}
: >"$W/h2h_summary.txt"
# The GPU's clocks beside the runs: a row that ran below the maximum SM clock is
# slower in proportion (BENCHMARKS.md); `python3 bench/clock_rows.py
# h2h_V_R.csv clocks.csv` (locally, after unpacking h2h.tgz) shows which.
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
    --format=csv -lms 100 >"$W/clocks.csv" 2>&1 &
clock_log=$!
for round in $(seq 1 "$ROUNDS"); do
    for b in build/h2h/bench_gpu_*; do
        case "$b" in *.o) continue ;; esac
        v=${b##*/bench_gpu_}
        echo "=== round $round, $v ($(date -u +%H:%M:%S))" | tee -a "$W/h2h_summary.txt"
        timeout 150 "$b" --compute-only --reps 20 ${H2H_ARGS:-} --csv "$W/h2h_${v}_${round}.csv" >"$W/h2h_${v}_${round}.log" 2>&1
        echo "    rc=$?" | tee -a "$W/h2h_summary.txt"
        grep -E '^(Write-bandwidth|Compute skinning|LBS|DQS|mixed|fill, same B|FAIL|[0-9]+ passed)' "$W/h2h_${v}_${round}.log" |
            tee -a "$W/h2h_summary.txt"
    done
done
kill "$clock_log" 2>/dev/null
tar czf "$OUT/h2h.tgz" -C "$W" .
