#!/usr/bin/env bash
# Builds native/ct2engine against a libctranslate2 that already exists, through
# ct2rs's `system` feature: the wheel's library (scripts/engine.sh) or a CUDA
# build (scripts/gpu-build.sh).
#   scripts/engine-link.sh LIB LINK_DIR CARGO_TARGET_DIR
# ct2rs's `system` mode links -lctranslate2 and, always, cpu_features and the
# static cuBLAS archives. The libraries we link hold cpu_features and load
# cuBLAS at run time, so empty archives stand in for those at link time.
set -euo pipefail
lib=$1 link=$2 target=$3
[ -f "$lib" ] || { echo "engine-link: no library $lib" >&2; exit 1; }
mkdir -p "$link"
ln -sf "$lib" "$link/libctranslate2.so"
for s in cpu_features cublas_static cublasLt_static culibos; do
  [ -f "$link/lib$s.a" ] || ar rc "$link/lib$s.a"
done
cd "$(dirname "$0")/../native/ct2engine"
LIBRARY_PATH="$link" CARGO_TARGET_DIR="$target" cargo build --release --locked --no-default-features --features system
