#!/usr/bin/env bash
# Cross-builds the CPU engine for Windows, build/windows/engine/cpu/ct2engine.dll,
# from native/ct2engine on Linux (make windows, make test). cargo builds
# CTranslate2 from the source ct2rs carries, with ruy for int8 and GNU OpenMP,
# for x86_64-pc-windows-gnu with Debian's mingw-w64 posix compilers.
# The result is cached in $WHISPERKEY_CACHE/windows-engine/<hash of the sources,
# this script and the toolchain>, so a second run only copies it.
#
# Debian's Rust for Windows (libstd-rust-dev-windows) is too old for the
# lockfile, so std is built from rust-web-src with cargo's unstable -Zbuild-std
# (RUSTC_BOOTSTRAP=1). That flag can change with any Rust release: the check
# below pins the versions this was verified with; a new toolchain fails here,
# clearly, until someone rebuilds, runs the wine tests and updates it.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
OUT=build/windows/engine/cpu
TARGET=x86_64-pc-windows-gnu
FEATURES=ruy,openmp
CRATE=native/ct2engine
RUST_EXPECTED="1.96."   # rustc-web / cargo-web 1.96 (bookworm-security)
GCC_EXPECTED="12-posix" # g++-mingw-w64-x86-64-posix (GCC 12.2)
RUSTC=/usr/bin/rustc
CARGO=/usr/bin/cargo
MINGW=x86_64-w64-mingw32
die() { echo "windows-engine: $*" >&2; exit 1; }

# --- toolchain check -------------------------------------------------------
[ -x "$RUSTC" ] && [ -x "$CARGO" ] ||
  die "$RUSTC or $CARGO is missing; install rustc-web cargo-web rust-web-src (make deps)"
[ -d /usr/lib/rustlib/src/rust/library/std ] || die "no Rust std source; install rust-web-src (make deps)"
command -v "$MINGW-g++-posix" >/dev/null || die "$MINGW-g++-posix is missing; install g++-mingw-w64-x86-64-posix (make deps)"
rv=$("$RUSTC" --version); cv=$("$CARGO" --version); gv=$("$MINGW-g++-posix" -dumpversion)
case "$rv" in "rustc $RUST_EXPECTED"*) ;; *) die "$RUSTC is '$rv', verified only with $RUST_EXPECTED*: -Zbuild-std is unstable; rebuild, run the wine tests (scripts/test-wine.sh) and update RUST_EXPECTED" ;; esac
case "$cv" in "cargo $RUST_EXPECTED"*) ;; *) die "$CARGO is '$cv', verified only with $RUST_EXPECTED*; see RUST_EXPECTED" ;; esac
[ "$gv" = "$GCC_EXPECTED" ] || die "$MINGW-g++-posix is $gv, verified only with $GCC_EXPECTED; see GCC_EXPECTED"

# --- cache -------------------------------------------------------------------
key=$( { printf '%s\n' "$rv" "$cv" "$gv" "$FEATURES"
         cat "$0" $CRATE/Cargo.toml $CRATE/Cargo.lock $CRATE/build.rs $CRATE/windows-gnu.cmake \
             $CRATE/include/* $CRATE/src/*.rs $CRATE/src/*.cc; } | sha256sum | cut -c1-16)
CACHED="$CACHE/windows-engine/$key"
mkdir -p "$OUT"
if [ -f "$CACHED/ct2engine.dll" ]; then
  cp "$CACHED/ct2engine.dll" "$OUT/"
  rm -f "$OUT/README.txt"
  echo "windows-engine: $OUT/ct2engine.dll from the cache ($key)"
  exit 0
fi

# --- build ---------------------------------------------------------------------
start=$(date +%s)
TDIR="$CACHE/cargo-target-windows"
(
  cd $CRATE
  export RUSTC RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$TDIR" CMAKE_PARALLEL="$(nproc)"
  export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER="$MINGW-g++-posix"
  export CC_x86_64_pc_windows_gnu="$MINGW-gcc-posix" CXX_x86_64_pc_windows_gnu="$MINGW-g++-posix"
  export AR_x86_64_pc_windows_gnu="$MINGW-ar"
  export CMAKE_TOOLCHAIN_FILE_x86_64_pc_windows_gnu="$PWD/windows-gnu.cmake"
  "$CARGO" build --release --locked -Zbuild-std=std,panic_unwind --target $TARGET \
    --no-default-features --features $FEATURES
)
DLL="$TDIR/$TARGET/release/ct2engine.dll"
[ -f "$DLL" ] || die "cargo built no $DLL"

# --- checks: each of these failed silently once ------------------------------
# 1. ruy's AVX2/AVX-512 kernels exist (CMAKE_SYSTEM_PROCESSOR x86_64, not AMD64).
ruy=$(find "$TDIR/$TARGET/release/build" -path '*ct2rs-*/out/build/*' -name 'libruy_kernel_avx2_fma.a' | head -1)
[ -n "$ruy" ] || die "no libruy_kernel_avx2_fma.a in the CTranslate2 build"
"$MINGW-nm" --defined-only "$ruy" 2>/dev/null | grep -q Kernel8bitAvx2 ||
  die "ruy was built without AVX2 kernels (CMAKE_SYSTEM_PROCESSOR?); it would be ~30x slower"
# 2. Only Windows system DLLs are imported (no libstdc++/libgcc/libgomp/winpthread DLLs).
imports=$("$MINGW-objdump" -p "$DLL" | sed -n 's/^\s*DLL Name: //p' | sort -u)
bad=$(grep -viE '^(kernel32|msvcrt|ntdll|advapi32|ws2_32|userenv|bcrypt|bcryptprimitives|api-ms-win-[a-z0-9-]+)\.dll$' <<<"$imports" || true)
[ -z "$bad" ] || die "ct2engine.dll imports non-system DLLs: $(echo $bad)"

mkdir -p "$CACHED"
cp "$DLL" "$CACHED/ct2engine.dll.tmp" && mv "$CACHED/ct2engine.dll.tmp" "$CACHED/ct2engine.dll"
cp "$DLL" "$OUT/"
rm -f "$OUT/README.txt"
echo "windows-engine: built $OUT/ct2engine.dll in $(( $(date +%s) - start )) s ($(( $(stat -c %s "$DLL") / 1048576 )) MB; imports: $(echo $imports))"
