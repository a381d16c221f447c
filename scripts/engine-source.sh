#!/usr/bin/env bash
# Builds libctranslate2 for the Linux CPU engine (ENGINE_BACKEND=source) from
# CTranslate2's source with our patches (scripts/ct2-patch.sh), on the recipe of
# CTranslate2's own Linux wheel: Intel MKL linked statically (the mkl-static and
# mkl-include packages from PyPI, the oneAPI version the wheel's build installs),
# GNU OpenMP, CPU dispatch for AVX/AVX2/AVX-512, no CUDA. oneDNN (the wheel's
# convolutions) is left out: without it Conv1D runs as im2col + MKL GEMM.
# Prints the library's path.
#
# Cache: $WHISPERKEY_CACHE/ct2-cpu-<recipe>/ holds one build tree per recipe
# (these flags, MKL, compiler), whose source is synced from the patched tree so a
# changed patch recompiles only the files it touches; the library of each patch
# set is kept in lib-<patch key>/, so a changed patch never reuses a library.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
MKL_VERSION=2025.3.0 # intel-oneapi-mkl-devel of CTranslate2 4.8's wheel build
FLAGS=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-msse4.1 -DBUILD_CLI=OFF -DBUILD_TESTS=OFF
       -DWITH_MKL=ON -DWITH_DNNL=OFF -DWITH_RUY=OFF -DOPENMP_RUNTIME=COMP -DWITH_CUDA=OFF)
die() { echo "engine-source: $*" >&2; exit 1; }
command -v cmake >/dev/null && command -v ninja >/dev/null || die "cmake and ninja are needed (make deps)"

# --- MKL's static libraries and headers, from PyPI --------------------------
MKL="$CACHE/mkl-$MKL_VERSION"
if [ ! -f "$MKL/.whisperkey" ]; then
  tmp=$(mktemp -d "$CACHE/.mkl-XXXXXX")
  python3 -m pip download -q --disable-pip-version-check --no-deps -d "$tmp" \
    "mkl-static==$MKL_VERSION" "mkl-include==$MKL_VERSION" >&2 ||
    { rm -rf "$tmp"; die "pip could not download mkl-static and mkl-include $MKL_VERSION"; }
  for w in "$tmp"/*.whl; do python3 -m zipfile -e "$w" "$tmp/x"; done
  rm -rf "$MKL"; mkdir -p "$MKL/lib"
  mv "$tmp"/x/mkl_include-*.data/data/include "$MKL/include"
  # Only what CTranslate2 links: ILP64 interface, GNU threading, core.
  for l in mkl_core mkl_intel_ilp64 mkl_gnu_thread; do
    mv "$tmp/x/mkl_static-$MKL_VERSION.data/data/lib/lib$l.a" "$MKL/lib/"
  done
  rm -rf "$tmp"
  touch "$MKL/.whisperkey"
fi

# --- the build tree of this recipe ---------------------------------------------
src=$(bash scripts/ct2-patch.sh)
pkey=$(bash scripts/ct2-patch.sh --key)
ct2_version=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$src/python/ctranslate2/version.py")
rkey=$( { printf '%s\n' "$MKL_VERSION" "${FLAGS[@]}" "$(g++ --version | head -1)" "$(cmake --version | head -1)"; } |
        sha256sum | cut -c1-12)
ROOT="$CACHE/ct2-cpu-$rkey"
LIBDIR="$ROOT/lib-$pkey"
LIB="$LIBDIR/libctranslate2.so.$ct2_version"
if [ -f "$LIB" ]; then echo "$LIB"; exit 0; fi

mkdir -p "$ROOT"
exec 9>"$ROOT/lock"
flock 9
# Make $ROOT/src equal to the patched tree; a file whose content is unchanged keeps
# its time stamp, so ninja recompiles only what the patches changed.
python3 - "$src" "$ROOT/src" <<'PY'
import filecmp, os, shutil, sys
src, dst = sys.argv[1:]
os.makedirs(dst, exist_ok=True)
for root, dirs, files in os.walk(dst, topdown=False):
    rel = os.path.relpath(root, dst)
    for name in files + dirs:
        if not os.path.lexists(os.path.join(src, rel, name)):
            p = os.path.join(root, name)
            shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.remove(p)
for root, dirs, files in os.walk(src):
    rel = os.path.relpath(root, src)
    os.makedirs(os.path.join(dst, rel), exist_ok=True)
    for name in files:
        a, b = os.path.join(root, name), os.path.join(dst, rel, name)
        if not os.path.isfile(b) or not filecmp.cmp(a, b, shallow=False):
            shutil.copyfile(a, b)
            shutil.copymode(a, b)
PY
BUILD="$ROOT/build"
if [ ! -f "$BUILD/build.ninja" ]; then
  MKLROOT="$MKL" cmake -S "$ROOT/src" -B "$BUILD" -G Ninja -Wno-dev -DMKL_ROOT="$MKL" "${FLAGS[@]}" \
    >"$ROOT/cmake.log" 2>&1 || { tail -30 "$ROOT/cmake.log" >&2; die "cmake failed (log: $ROOT/cmake.log)"; }
fi
start=$SECONDS
nice ninja -C "$BUILD" -j "$(nproc)" >&2 || die "CTranslate2 did not build (in $BUILD)"
built="$BUILD/libctranslate2.so.$ct2_version"
[ -f "$built" ] || die "ninja built no $built"
mkdir -p "$LIBDIR"
cp "$built" "$LIB.tmp" && mv "$LIB.tmp" "$LIB"
echo "engine-source: CTranslate2 $ct2_version (patches $pkey) built in $((SECONDS - start)) s" >&2
echo "$LIB"
