#!/usr/bin/env bash
# Builds the Windows installer build/windows/whisperkey-setup-<version>.exe
# from build/windows/whisperkey.exe (make windows) and the engine folders
# present under build/windows/engine/{cpu,cuda,rocm,rocm-rdna1}.
#   bash scripts/installer.sh               (make installer)
#   WHISPERKEY_REQUIRE_ENGINE=1 …           fail unless engine/cpu/ct2engine.dll exists (releases)
#   WHISPERKEY_SIGN_PFX=cert.pfx …          sign the exe, our DLLs, the uninstaller and
#                                           the installer (scripts/sign.sh says how)
# The CPU engine is cross-built here (scripts/windows-engine.sh, part of make
# windows); the GPU variants come from a Windows runner (build-windows.ps1).
# Without the CPU DLL the cpu folder gets a README.txt saying so.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
SRC=build/windows
die() { echo "installer: $*" >&2; exit 1; }

command -v makensis >/dev/null || die "makensis not found; install NSIS (apt-get install nsis, or make deps)"
[ -f "$SRC/whisperkey.exe" ] || die "$SRC/whisperkey.exe is missing; run make windows first"
for f in config.example.yaml docs/gpu-setup.md docs/configuration.md docs/installing-at-work.md docs/models.md assets/whisperkey.ico; do
  [ -f "$f" ] || die "$f is missing; the installer ships it"
done

source scripts/version.sh

PLACEHOLDER="$SRC/engine/cpu/README.txt"
if [ -f "$SRC/engine/cpu/ct2engine.dll" ]; then
  # A real engine replaced a Linux test build's placeholder: drop the note.
  if [ -f "$PLACEHOLDER" ] && grep -q '^This folder should hold ct2engine.dll' "$PLACEHOLDER"; then rm -f "$PLACEHOLDER"; fi
else
  [ "${WHISPERKEY_REQUIRE_ENGINE:-0}" = 1 ] && die "$SRC/engine/cpu/ct2engine.dll is missing; run make windows (scripts/windows-engine.sh)"
  mkdir -p "$SRC/engine/cpu"
  cat >"$PLACEHOLDER" <<'TXT'
This folder should hold ct2engine.dll, WhisperKey's CPU speech engine.

This installer was built without it, for testing the installer itself
(scripts/windows-engine.sh or make windows builds it), so this copy of
WhisperKey cannot transcribe on this computer; it can still use a remote
server (remote.url). Install a release from the project's releases page instead.
TXT
  echo "installer: WARNING: no engine DLLs in $SRC/engine/cpu; this installer is for testing only" >&2
fi

defines=()
for v in cpu cuda rocm rocm-rdna1; do
  d="$SRC/engine/$v"
  if [ -d "$d" ] && [ -n "$(ls -A "$d")" ]; then
    name=${v^^}; defines+=("-DHAVE_${name//-/_}")
  fi
done
# The speech detector for Windows (scripts/vad.sh fetches it from PyPI).
VADWIN="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}/vad-windows"
if [ -f "$VADWIN/onnxruntime.dll" ] && [ -f "$VADWIN/silero_vad_v6.onnx" ]; then
  rm -rf "$SRC/vad"; mkdir -p "$SRC/vad"
  cp "$VADWIN/onnxruntime.dll" "$VADWIN/silero_vad_v6.onnx" "$VADWIN/LICENSES.txt" "$SRC/vad/"
  defines+=(-DHAVE_VAD)
else
  [ "${WHISPERKEY_REQUIRE_ENGINE:-0}" = 1 ] && die "$VADWIN has no speech detector; run scripts/vad.sh"
  echo "installer: WARNING: no speech detector in $VADWIN (bash scripts/vad.sh); presses without speech will be decoded" >&2
fi
[ -f README.md ] && defines+=(-DHAVE_README)
[ -f LICENSE ] && defines+=(-DHAVE_LICENSE)

# Signing (scripts/sign.sh), when a certificate is given: the exe and every
# DLL we build, i.e. those under engine/ with no signature yet (the Visual C++
# runtime and cuBLAS keep their makers', as does vad/onnxruntime.dll); the
# uninstaller and the installer as makensis writes them (!uninstfinalize,
# !finalize). Without one the installer is unsigned and installs all the same.
sign_files=("$SRC/whisperkey.exe")
if [ -n "${WHISPERKEY_SIGN_PFX:-}" ]; then
  while IFS= read -r -d '' dll; do
    bash scripts/sign.sh signed "$dll" || sign_files+=("$dll")
  done < <(find "$SRC/engine" -name '*.dll' -print0 | sort -z)
  defines+=("-DSIGN_SCRIPT=$PWD/scripts/sign.sh")
fi
bash scripts/sign.sh sign "${sign_files[@]}"

OUT="$SRC/whisperkey-setup-${VERSION#v}.exe"
rm -f "$SRC"/whisperkey-setup-*.exe
makensis -V2 -NOCD \
  "-DVERSION=${VERSION#v}" "-DVERSION_NUM=$(version_numbers "$VERSION" .)" \
  "-DSRC=$PWD/$SRC" "-DROOT=$PWD" "-DOUTFILE=$PWD/$OUT" \
  "${defines[@]}" installer/whisperkey.nsi
echo "installer: built $OUT ($(( $(stat -c %s "$OUT") / 1048576 )) MB; ${defines[*]}; $([ -n "${WHISPERKEY_SIGN_PFX:-}" ] && echo signed || echo unsigned))"
