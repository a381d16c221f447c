#!/usr/bin/env bash
# Cross-builds the CPU engine for Windows, build/windows/engine/cpu/ct2engine.dll,
# from native/ct2engine on Linux (make windows, make test). cargo builds
# CTranslate2 from the source ct2rs carries with our patches (native/ct2-patches,
# scripts/ct2-patch.sh), with ruy for int8 and GNU OpenMP, for
# x86_64-pc-windows-gnu with Debian's mingw-w64 posix compilers.
# The result is cached in $WHISPERKEY_CACHE/windows-engine/<hash of the sources,
# the patch key, this script and the toolchain>, so a second run only copies it.
#
# The patches: ct2rs's build.rs builds the CMake project CTranslate2/ of its own
# crate directory and has no switch for another source. So cargo builds, through
# [patch.crates-io] on its command line, a copy of the registry's ct2rs crate
# whose CTranslate2/ is a link to the patched tree, $WHISPERKEY_CACHE/ct2rs-patched/
# <patch key>/ct2rs-<version>; the registry crate stays the source. A path crate
# has no source and checksum in the lockfile, so cargo builds a copy of
# native/ct2engine (ct2engine/ beside that crate) whose Cargo.lock is the
# committed one with only those two lines of ct2rs dropped: --locked still holds
# every other package to it, and the committed lockfile stays as it is for the
# Linux builds. (Not -Zlockfile-path: cargo then resolves -Zbuild-std's std
# afresh too, with the newest libc and others instead of std's own lockfile.)
# cargo's warning "patch `ct2rs …` was not used in the crate graph" is std's
# resolve, which sees the patch too.
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
PATCH_MARKER=CT2_PREFIX_ONE_PASS # patch 0001's environment switch, a string only the patched source has
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
pkey=$(bash scripts/ct2-patch.sh --key)
key=$( { printf '%s\n' "$rv" "$cv" "$gv" "$FEATURES" "ct2-patches $pkey"
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

# --- ct2rs with the patched CTranslate2 -------------------------------------
start=$(date +%s)
src=$(bash scripts/ct2-patch.sh) # also fetches the registry crate (cargo fetch --locked)
version=$(sed -n '/^name = "ct2rs"$/{n;s/^version = "\(.*\)"$/\1/p;}' $CRATE/Cargo.lock)
registry=
for d in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ct2rs-"$version"; do
  [ -f "$d/build.rs" ] && { registry=$d; break; }
done
[ -n "$registry" ] || die "no ct2rs $version in cargo's registry"
PCRATE="$CACHE/ct2rs-patched/$pkey/ct2rs-$version"
if [ ! -f "$PCRATE/.whisperkey" ]; then
  mkdir -p "$(dirname "$PCRATE")"
  tmp=$(mktemp -d "$(dirname "$PCRATE")/.tmp-XXXXXX")
  find "$registry" -mindepth 1 -maxdepth 1 ! -name CTranslate2 ! -name '.cargo*' -exec cp -R {} "$tmp/" \;
  ln -s "$src" "$tmp/CTranslate2"
  echo "ct2rs $version from $registry, CTranslate2 -> $src" >"$tmp/.whisperkey"
  rm -rf "$PCRATE"
  mv "$tmp" "$PCRATE"
fi
[ "$(readlink "$PCRATE/CTranslate2")" = "$src" ] || die "$PCRATE/CTranslate2 does not link to $src"
# The engine crate's copy (time stamps kept, so cargo rebuilds only what changed).
WORK="$CACHE/ct2rs-patched/$pkey/ct2engine"
exec 9>"$CACHE/ct2rs-patched/$pkey/lock"
flock 9
rm -rf "$WORK"
mkdir -p "$WORK"
cp -Rp $CRATE/Cargo.toml $CRATE/build.rs $CRATE/windows-gnu.cmake $CRATE/include $CRATE/src "$WORK/"
sed '/^name = "ct2rs"$/,/^$/{/^source = /d;/^checksum = /d;}' $CRATE/Cargo.lock >"$WORK/Cargo.lock"
[ "$(diff $CRATE/Cargo.lock "$WORK/Cargo.lock" | grep -c '^<')" = 2 ] ||
  die "could not drop ct2rs's source and checksum from $CRATE/Cargo.lock"

# --- build ---------------------------------------------------------------------
TDIR="$CACHE/cargo-target-windows"
MSGS=$(mktemp)
trap 'rm -f "$MSGS"' EXIT
(
  cd "$WORK"
  export RUSTC RUSTC_BOOTSTRAP=1 CARGO_TARGET_DIR="$TDIR" CMAKE_PARALLEL="$(nproc)"
  export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER="$MINGW-g++-posix"
  export CC_x86_64_pc_windows_gnu="$MINGW-gcc-posix" CXX_x86_64_pc_windows_gnu="$MINGW-g++-posix"
  export AR_x86_64_pc_windows_gnu="$MINGW-ar"
  export CMAKE_TOOLCHAIN_FILE_x86_64_pc_windows_gnu="$PWD/windows-gnu.cmake"
  "$CARGO" build --release --locked -Zbuild-std=std,panic_unwind --target $TARGET \
    --no-default-features --features $FEATURES --message-format=json-render-diagnostics \
    --config "patch.crates-io.ct2rs.path=\"$PCRATE\"" >"$MSGS"
)
DLL="$TDIR/$TARGET/release/ct2engine.dll"
[ -f "$DLL" ] || die "cargo built no $DLL"
# CTranslate2's CMake build is the one of the patched crate (the target dir also
# holds other ct2rs builds: the unpatched one, other patch sets).
ct2out=$(grep '"reason":"build-script-executed"' "$MSGS" | grep -F "\"package_id\":\"path+file://$PCRATE#" |
         sed -n 's/.*"out_dir":"\([^"]*\)".*/\1/p' | head -1)
[ -n "$ct2out" ] || die "cargo did not build ct2rs from $PCRATE"

# --- checks: each of these failed silently once ------------------------------
# 1. ruy's AVX2/AVX-512 kernels exist (CMAKE_SYSTEM_PROCESSOR x86_64, not AMD64).
ruy=$(find "$ct2out/build" -name 'libruy_kernel_avx2_fma.a' | head -1)
[ -n "$ruy" ] || die "no libruy_kernel_avx2_fma.a in the CTranslate2 build"
"$MINGW-nm" --defined-only "$ruy" 2>/dev/null | grep -q Kernel8bitAvx2 ||
  die "ruy was built without AVX2 kernels (CMAKE_SYSTEM_PROCESSOR?); it would be ~30x slower"
# 2. Only Windows system DLLs are imported (no libstdc++/libgcc/libgomp/winpthread DLLs).
imports=$("$MINGW-objdump" -p "$DLL" | sed -n 's/^\s*DLL Name: //p' | sort -u)
bad=$(grep -viE '^(kernel32|msvcrt|ntdll|advapi32|ws2_32|userenv|bcrypt|bcryptprimitives|api-ms-win-[a-z0-9-]+)\.dll$' <<<"$imports" || true)
[ -z "$bad" ] || die "ct2engine.dll imports non-system DLLs: $(echo $bad)"
# 3. CTranslate2 is the patched one (ct2rs's own source would build as well).
grep -qaF "$PATCH_MARKER" "$DLL" || die "ct2engine.dll lacks $PATCH_MARKER: not built from the patched CTranslate2 ($src)"

mkdir -p "$CACHED"
cp "$DLL" "$CACHED/ct2engine.dll.tmp" && mv "$CACHED/ct2engine.dll.tmp" "$CACHED/ct2engine.dll"
cp "$DLL" "$OUT/"
rm -f "$OUT/README.txt"
echo "windows-engine: built $OUT/ct2engine.dll in $(( $(date +%s) - start )) s ($(( $(stat -c %s "$DLL") / 1048576 )) MB; CTranslate2 patches $pkey; imports: $(echo $imports))"
