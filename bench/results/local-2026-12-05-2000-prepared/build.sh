#!/bin/bash
# From the repository root: builds the A/B binaries of run.sh into this folder,
# each from a620667's gpuskin.h with its patch (base: none).
set -euo pipefail
D=$(cd "$(dirname "$0")" && pwd); T=$(mktemp -d); P="$D/../local-2026-12-04-2300-palx" # pal_tight.c
git show a620667:gpuskin.h > "$T/gpuskin.h"
gcc -O2 -I"$T" "$P/pal_tight.c" -o "$D/base" -lm
for v in nt stg stride zconst zspec zlane; do
    mkdir -p "$T/$v" && cp "$T/gpuskin.h" "$T/$v/" && (cd "$T/$v" && patch -s -p1 < "$D/$v.patch")
    gcc -O2 -I"$T/$v" "$P/pal_tight.c" -o "$D/$v" -lm
done
strip "$D"/base "$D"/nt "$D"/stg "$D"/stride "$D"/zconst "$D"/zspec "$D"/zlane
rm -rf "$T"
