#!/usr/bin/env bash
# Builds the Linux CUDA engine variant into build/engine/cuda/: CTranslate2 (the
# version ct2rs carries) compiled with CUDA for one GPU architecture, and our
# engine library linked to it. Repeatable, and fast enough to run on a lent GPU
# machine (16 cores: a few minutes) or here on the CPU with nvcc from PyPI.
#
#   scripts/gpu-build.sh                 build CTranslate2 and the engine
#   GPU_BUILD_STEPS=ct2 scripts/gpu-build.sh    CTranslate2 only (no cargo there)
#   GPU_BUILD_STEPS=engine scripts/gpu-build.sh our libct2engine.so only
#
# Inputs (environment):
#   CUDA_HOME    the toolkit (nvcc, cudart, cuBLAS); default /usr/local/cuda, else
#                CUDA_FROM_PYPI=1 puts CUDA 13.0's nvcc, runtime and cuBLAS from
#                PyPI into the cache and uses those
#   CUDA_ARCH    compute capability to build for, "9.0"; default: nvidia-smi's
#                first GPU, else 9.0 (H100/H200)
#   CT2_SRC      CTranslate2's source; default: the ct2rs crate's copy with our
#                patches (scripts/ct2-patch.sh; its key names the build folder, so
#                a changed patch is a new build). A GPU machine without cargo
#                gets a tree made here by ct2-patch.sh.
#   ENGINE_SO    a libct2engine.so built elsewhere (GPU machines have no cargo)
# cuDNN is not needed: CTranslate2 4.6.3+ has its own GPU Conv1D. cuBLAS is
# loaded at run time (libcublas.so.<the toolkit's CUDA major>), as in the
# release build, so the library also runs on the CPU where there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
OUT=build/engine/cuda
STEPS="${GPU_BUILD_STEPS:-ct2 engine}"
die() { echo "gpu-build: $*" >&2; exit 1; }

# --- the toolkit ------------------------------------------------------------
if [ -z "${CUDA_HOME:-}" ]; then
  if [ -x /usr/local/cuda/bin/nvcc ]; then
    CUDA_HOME=/usr/local/cuda
  elif [ "${CUDA_FROM_PYPI:-0}" = 1 ]; then
    CUDA_HOME="$CACHE/cuda13"
    if [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
      site="$CACHE/cuda13-site"
      rm -rf "$site" "$CUDA_HOME"
      pip install -q --disable-pip-version-check --target "$site" \
        "nvidia-cuda-nvcc==13.0.88" "nvidia-cuda-runtime==13.0.96" "nvidia-cublas==13.0.2.14" \
        "nvidia-cuda-cccl==13.0.85" "nvidia-cuda-crt==13.0.88" "nvidia-nvvm==13.0.88" \
        "nvidia-curand==10.4.0.35"
      # nvcc.profile expects the toolkit's layout: targets/x86_64-linux/{include,lib}.
      cp -al "$site/nvidia/cu13" "$CUDA_HOME"
      mkdir -p "$CUDA_HOME/targets/x86_64-linux"
      ln -s ../../include "$CUDA_HOME/targets/x86_64-linux/include"
      ln -s ../../lib "$CUDA_HOME/targets/x86_64-linux/lib"
      ln -s lib "$CUDA_HOME/lib64"
      for l in cublas cublasLt cudart; do ln -sf "lib$l.so.13" "$CUDA_HOME/lib/lib$l.so"; done
    fi
  else
    die "no CUDA toolkit: set CUDA_HOME, install one in /usr/local/cuda, or CUDA_FROM_PYPI=1"
  fi
fi
[ -x "$CUDA_HOME/bin/nvcc" ] || die "$CUDA_HOME/bin/nvcc is missing"
cuda_version=$("$CUDA_HOME/bin/nvcc" --version | sed -n 's/.*release \([0-9][0-9]*\.[0-9]*\).*/\1/p')
cuda_major=${cuda_version%%.*}
[ -n "$cuda_major" ] || die "cannot read the CUDA version from $CUDA_HOME/bin/nvcc --version"

if [ -z "${CUDA_ARCH:-}" ]; then
  CUDA_ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' ' || true)
  CUDA_ARCH=${CUDA_ARCH:-9.0}
fi

# --- CTranslate2 ---------------------------------------------------------------
if [ -z "${CT2_SRC:-}" ]; then
  CT2_SRC=$(bash scripts/ct2-patch.sh)
fi
[ -f "$CT2_SRC/CMakeLists.txt" ] || die "no CTranslate2 source at $CT2_SRC (CT2_SRC)"
# The patch set the tree carries (ct2-patch.sh's key is its folder's name).
src_key=$(basename "$CT2_SRC")
[ -f "$CT2_SRC/.whisperkey-patched" ] || src_key=unpatched-$(printf '%s' "$CT2_SRC" | sha256sum | cut -c1-8)
ct2_version=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$CT2_SRC/python/ctranslate2/version.py")
BUILD="${CT2_BUILD:-$CACHE/ct2-cuda$cuda_major-sm${CUDA_ARCH/./}-$ct2_version-$src_key}"
LIB="$BUILD/libctranslate2.so.$ct2_version"

if [[ " $STEPS " == *" ct2 "* ]] && [ ! -f "$LIB" ]; then
  gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
  # ruy for the CPU (no MKL or oneDNN to bring), so the library also serves the
  # CPU reference that checks the GPU; one architecture keeps it small.
  cmake -S "$CT2_SRC" -B "$BUILD" "${gen[@]}" -Wno-dev \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
    -DWITH_CUDA=ON -DWITH_CUDNN=OFF -DCUDA_TOOLKIT_ROOT_DIR="$CUDA_HOME" \
    -DCUDA_ARCH_LIST="$CUDA_ARCH" -DCUDA_DYNAMIC_LOADING=ON \
    -DWITH_MKL=OFF -DWITH_RUY=ON -DOPENMP_RUNTIME=NONE \
    -DENABLE_CPU_DISPATCH=OFF -DBUILD_CLI=OFF -DBUILD_TESTS=OFF >"$BUILD.cmake.log" 2>&1 ||
    { tail -30 "$BUILD.cmake.log" >&2; die "cmake failed (log: $BUILD.cmake.log)"; }
  start=$SECONDS
  cmake --build "$BUILD" -j "$(nproc)" || die "CTranslate2 did not build"
  echo "gpu-build: CTranslate2 $ct2_version for CUDA $cuda_version sm_${CUDA_ARCH/./} built in $((SECONDS - start)) s"
fi
if [[ " $STEPS " != *" engine "* ]] && [ -z "${ENGINE_SO:-}" ]; then
  echo "CTranslate2 ready: $LIB (then the engine: GPU_BUILD_STEPS=engine, or ENGINE_SO=…)"
  exit 0
fi
[ -f "$LIB" ] || die "build CTranslate2 first (no $LIB)"

# --- our engine -------------------------------------------------------------------
mkdir -p "$OUT"
rm -f "$OUT"/libctranslate2.so* "$OUT/libct2engine.so"
cp "$LIB" "$OUT/"
ln -sf "libctranslate2.so.$ct2_version" "$OUT/libctranslate2.so.${ct2_version%%.*}"
if [ -n "${ENGINE_SO:-}" ]; then
  cp "$ENGINE_SO" "$OUT/libct2engine.so"
else
  bash scripts/engine-link.sh "$LIB" "$BUILD/link" "$CACHE/cargo-target-cuda"
  cp "$CACHE/cargo-target-cuda/release/libct2engine.so" "$OUT/"
fi
echo cuda > "$OUT/BACKEND"
# What the library needs and runs on; the app reads both (gpu.ReadCUDABuild).
echo "$cuda_major" > "$OUT/CUDA_MAJOR"
echo "$CUDA_ARCH" > "$OUT/CUDA_ARCHS"
echo "engine ready: $OUT (CTranslate2 $ct2_version, CUDA $cuda_version, sm_${CUDA_ARCH/./})"
