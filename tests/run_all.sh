#!/usr/bin/env bash
# Runs every test command given as an argument (each one a quoted command line),
# echoes its output, and adds up the "N passed, N failed" lines they end with.
# A command that exits non-zero without such a line counts as one failed case.
set -u
total_pass=0; total_fail=0; bad=()
for cmd in "$@"; do
    echo "=== $cmd"
    out=$(bash -c "$cmd" 2>&1); rc=$?
    printf '%s\n' "$out"
    line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
    if [ -n "$line" ]; then
        p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/'); f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    else
        p=0; f=0
        [ $rc -eq 0 ] && p=1
    fi
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    [ "$f" -ne 0 ] && bad+=("$cmd")
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
done
echo
for b in "${bad[@]+"${bad[@]}"}"; do echo "FAILED SUITE: $b"; done
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
