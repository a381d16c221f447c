#!/usr/bin/env bash
# Builds native/ct2engine into build/engine/cpu/ (make engine).
#   ENGINE_BACKEND=wheel (default): link the CTranslate2 4.8.4 library that the
#     official `ctranslate2` wheel ships (oneDNN/MKL int8, the binary faster-whisper
#     runs), through ct2rs's `system` feature. Fastest here: docs/benchmarks.md.
#   ENGINE_BACKEND=source: the same recipe (static MKL, GNU OpenMP) built here from
#     CTranslate2's source with our patches (native/ct2-patches, scripts/engine-source.sh),
#     linked the same way.
#   ENGINE_BACKEND=ruy | dnnl: ct2rs compiles CTranslate2 from the source it carries.
#   ENGINE_FEATURES adds cargo features (e.g. openmp); ENGINE_OUT puts it elsewhere
#   (scripts/bench-wine.sh builds the Windows DLL's backend for Linux beside it).
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
BACKEND="${ENGINE_BACKEND:-wheel}"
OUT="${ENGINE_OUT:-build/engine/cpu}"
TARGET="$CACHE/cargo-target-$BACKEND"
mkdir -p "$OUT"
cd native/ct2engine
case "$BACKEND" in
  wheel)
    bash ../../scripts/pyenv.sh
    site=$("$CACHE/venv/bin/python" -c 'import ctranslate2, os; print(os.path.dirname(os.path.dirname(ctranslate2.__file__)))')
    libs="$site/ctranslate2.libs"
    lib=$(ls "$libs"/libctranslate2-*.so.* | head -1)
    [ -f "$lib" ] || { echo "engine.sh: no libctranslate2 in $libs" >&2; exit 1; }
    bash ../../scripts/engine-link.sh "$lib" "$CACHE/ct2-wheel-link" "$TARGET"
    cd ../..
    rm -f "$OUT"/*.so*
    cp "$TARGET/release/libct2engine.so" "$libs"/*.so* "$OUT/"
    ;;
  source)
    lib=$(bash ../../scripts/engine-source.sh)
    bash ../../scripts/engine-link.sh "$lib" "$(dirname "$lib")/link" "$TARGET"
    cd ../..
    rm -f "$OUT"/*.so*
    cp "$TARGET/release/libct2engine.so" "$lib" "$OUT/"
    # The name the engine was linked against (the library's SONAME).
    soname=$(objdump -p "$lib" | sed -n 's/^ *SONAME *//p')
    [ -z "$soname" ] || [ -e "$OUT/$soname" ] || ln -s "$(basename "$lib")" "$OUT/$soname"
    ;;
  ruy|dnnl)
    CARGO_TARGET_DIR="$TARGET" CMAKE_PARALLEL="$(nproc)" cargo build --release --locked --no-default-features --features "$BACKEND${ENGINE_FEATURES:+,$ENGINE_FEATURES}"
    cd ../..
    rm -f "$OUT"/*.so*
    cp "$TARGET/release/libct2engine.so" "$OUT/"
    ;;
  *) echo "engine.sh: unknown ENGINE_BACKEND $BACKEND (wheel, source, ruy, dnnl)" >&2; exit 2 ;;
esac
echo "$BACKEND" > "$OUT/BACKEND"
echo "engine ready: $OUT ($BACKEND)"
