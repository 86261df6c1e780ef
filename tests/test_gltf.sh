#!/usr/bin/env bash
# test_gltf.sh - the `gpuskin` command line: arguments, malformed files (also under
# AddressSanitizer + UBSan), the committed fixtures, and `gpuskin verify` (GPU
# against the CPU oracle) on every test asset.
#
#   bash tests/test_gltf.sh BUILD_DIR [cli|malformed|fixtures|verify]...
#
# Needs BUILD_DIR/gpuskin, BUILD_DIR/gpuskin_asan and BUILD_DIR/make_fixtures. Run from
# the repository root. Ends with "N passed, N failed".
set -u
BUILD=${1:-build}
shift || true
PARTS=${*:-cli malformed fixtures verify}
CLI=$BUILD/gpuskin
ASAN=$BUILD/gpuskin_asan
ASSETS=tests/assets
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }
want() { [ "$PARTS" = "${PARTS/$1/}" ] && return 1 || return 0; }

VALID=("$ASSETS"/SimpleSkin.gltf "$ASSETS"/RiggedSimple.glb "$ASSETS"/CesiumMan.glb "$ASSETS"/synthetic/*.gltf
       "$ASSETS"/synthetic/*.glb)
MALFORMED=("$ASSETS"/synthetic/malformed/*)

# expect_error NAME BINARY ARGS... : exit status 1 or 2 (not a signal), exactly one line
# on stderr starting with "gpuskin: ", nothing on stdout, no sanitizer report.
expect_error() {
    local name=$1
    shift
    "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    local lines
    lines=$(wc -l <"$TMP/err")
    if [ $rc -ne 1 ] && [ $rc -ne 2 ]; then
        bad "$name: exit status $rc (want 1 or 2)"
        sed 's/^/    /' "$TMP/err" | head -20
    elif [ "$lines" -ne 1 ] || ! head -1 "$TMP/err" | grep -q '^gpuskin: '; then
        bad "$name: stderr is not one 'gpuskin: ...' line"
        sed 's/^/    /' "$TMP/err" | head -20
    elif [ -s "$TMP/out" ]; then
        bad "$name: wrote to stdout"
    elif grep -q -e 'Sanitizer' -e 'runtime error' "$TMP/err"; then
        bad "$name: sanitizer report"
    else
        ok "$name: $(head -c 150 "$TMP/err")"
    fi
}

# expect_ok NAME COMMAND... : exit 0, no sanitizer report.
expect_ok() {
    local name=$1
    shift
    "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    if [ $rc -ne 0 ] || grep -q -e 'Sanitizer' -e 'runtime error' "$TMP/err"; then
        bad "$name: exit status $rc"
        sed 's/^/    /' "$TMP/err" | head -20
    else
        ok "$name"
    fi
}

if want cli; then
    S=$ASSETS/SimpleSkin.gltf
    expect_error "no arguments" "$CLI"
    expect_error "unknown command" "$CLI" frobnicate "$S"
    expect_error "missing model" "$CLI" info
    expect_error "missing file" "$CLI" info "$TMP/no_such_file.glb"
    expect_error "a directory as model" "$CLI" info "$TMP"
    expect_error "clip out of range" "$CLI" skin "$S" --clip 1
    expect_error "clip not a number" "$CLI" skin "$S" --clip one
    expect_error "negative time" "$CLI" skin "$S" --time -0.5
    expect_error "time not a number" "$CLI" skin "$S" --time soon
    expect_error "time infinite" "$CLI" skin "$S" --time inf
    expect_error "unknown method" "$CLI" skin "$S" --method foo
    expect_error "unknown device" "$CLI" skin "$S" --device tpu
    expect_error "unknown split" "$CLI" skin "$S" --split qr
    expect_error "unknown option" "$CLI" skin "$S" --fast
    expect_error "option without value" "$CLI" skin "$S" --time
    expect_error "two models" "$CLI" info "$S" "$S"
    expect_error "option of another command" "$CLI" info "$S" --clip 0
    expect_error "unwritable output" "$CLI" skin "$S" --out "$TMP/no/such/dir/x.json"
    expect_ok "--help" "$CLI" --help
    for f in "${VALID[@]}"; do
        expect_ok "info $f" "$CLI" info "$f"
    done
    # Clip names, durations, channels and interpolations are in `info`.
    "$CLI" info "$ASSETS"/synthetic/step_translation.gltf >"$TMP/info" 2>&1
    if grep -q 'clip 0 "step": 0 .. 1 s (duration 1 s), 3 channels (3 on joints), LINEAR, STEP' "$TMP/info"; then
        ok "info lists clip name, duration, channels, interpolations"
    else
        bad "info lists clip name, duration, channels, interpolations"
        sed 's/^/    /' "$TMP/info"
    fi
    for m in lbs dqs; do
        expect_ok "skin CesiumMan --method $m --out" "$CLI" skin "$ASSETS"/CesiumMan.glb --clip 0 --time 1.3 --method $m \
            --out "$TMP/cm_$m.json"
    done
    if cmp -s "$TMP/cm_lbs.json" "$TMP/cm_dqs.json"; then bad "lbs and dqs give different JSON"; else ok "lbs and dqs give different JSON"; fi
    expect_ok "skin to stdout" "$CLI" skin "$ASSETS"/SimpleSkin.gltf
fi

if want malformed; then
    for bin in "$CLI" "$ASAN"; do
        tag=$(basename "$bin")
        for f in "${MALFORMED[@]}"; do
            expect_error "$tag info $(basename "$f")" "$bin" info "$f"
            expect_error "$tag skin $(basename "$f")" "$bin" skin "$f" --method dqs
        done
        # JSON nested 100000 deep (tinygltf converts `extras` recursively).
        { printf '{"asset":{"version":"2.0","extras":'
          printf '%.0s[' $(seq 100000)
          printf '%.0s]' $(seq 100000)
          printf '}}'; } >"$TMP/deep.gltf"
        expect_error "$tag deeply nested JSON" "$bin" info "$TMP/deep.gltf"
        expect_error "$tag empty file" "$bin" info /dev/null
    done
    # Valid models through the sanitized build: the CPU path end to end.
    for f in "${VALID[@]}"; do
        expect_ok "gpuskin_asan skin --method dqs $(basename "$f")" "$ASAN" skin "$f" --time 0.7 --method dqs --out "$TMP/a.json"
    done
    # Mutants: bytes of a binary and a text fixture overwritten at random (seeded:
    # the same mutants every run). Each must load or fail cleanly; never crash.
    RANDOM=20240601
    crashes=0
    runs=0
    for src in "$ASSETS"/synthetic/interleaved_sparse.glb "$ASSETS"/RiggedSimple.glb \
               "$ASSETS"/synthetic/shared_mesh_two_skins.gltf "$ASSETS"/synthetic/cubicspline_rotation.gltf; do
        size=$(stat -c %s "$src")
        ext=${src##*.}
        for i in $(seq 30); do
            cp "$src" "$TMP/mutant.$ext"
            for k in 1 2 3; do
                off=$(( (RANDOM * 32768 + RANDOM) % size ))
                if [ "$ext" = gltf ]; then byte=$(printf '\\%03o' $(( 48 + RANDOM % 10 ))); else byte=$(printf '\\%03o' $(( RANDOM % 256 ))); fi
                printf "$byte" | dd of="$TMP/mutant.$ext" bs=1 seek="$off" conv=notrunc status=none
            done
            [ $((i % 7)) -eq 0 ] && truncate -s $(( (RANDOM * 32768 + RANDOM) % size )) "$TMP/mutant.$ext"
            for cmd in info skin; do
                runs=$((runs + 1))
                "$ASAN" $cmd "$TMP/mutant.$ext" >/dev/null 2>"$TMP/err"
                rc=$?
                if { [ $rc -ne 0 ] && [ $rc -ne 1 ]; } || grep -q -e 'Sanitizer' -e 'runtime error' "$TMP/err" ||
                   { [ $rc -eq 1 ] && [ "$(wc -l <"$TMP/err")" -ne 1 ]; }; then
                    crashes=$((crashes + 1))
                    cp "$TMP/mutant.$ext" "$BUILD/gltf_crash_$crashes.$ext"
                    echo "    $cmd on a mutant of $src: exit $rc, kept as $BUILD/gltf_crash_$crashes.$ext"
                    sed 's/^/    /' "$TMP/err" | head -20
                fi
            done
        done
    done
    if [ $crashes -eq 0 ]; then ok "$runs runs on mutated fixtures under ASan: no crash"; else bad "$crashes of $runs runs on mutated fixtures crashed"; fi
fi

if want fixtures; then
    # The committed fixtures are exactly what tools/make_fixtures.cpp writes.
    if "$BUILD"/make_fixtures "$TMP/fixtures" >/dev/null && diff -r "$TMP/fixtures" "$ASSETS/synthetic" >"$TMP/diff"; then
        ok "tests/assets/synthetic matches make_fixtures"
    else
        bad "tests/assets/synthetic differs from make_fixtures (run 'make fixtures')"
        head -5 "$TMP/diff"
    fi
fi

if want verify; then
    # GPU (compute shader, first Vulkan device: lavapipe in CI) against the CPU oracle,
    # every clip at 0, 1/4, 1/2, 3/4 and the end, LBS and DQS, validation layer on.
    for f in "${VALID[@]}"; do
        "$CLI" verify "$f" --validate >"$TMP/out" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -q '^verify: ok' "$TMP/out"; then
            ok "verify $f"
            grep '^clip' "$TMP/out" | sed 's/^/     /'
        else
            bad "verify $f (exit $rc)"
            sed 's/^/    /' "$TMP/out" | head -30
        fi
    done
    "$CLI" skin "$ASSETS"/CesiumMan.glb --time 0.9 --method dqs --device gpu --validate --out "$TMP/g.json" 2>"$TMP/err"
    rc=$?
    if [ $rc -eq 0 ] && grep -q '"device":"gpu"' "$TMP/g.json"; then ok "skin --device gpu"; else bad "skin --device gpu (exit $rc)"; cat "$TMP/err"; fi
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
