#!/usr/bin/env bash
# Makes a wine prefix that runs WhisperKey's Windows builds (Go >= 1.24 exes).
#   bash scripts/wine-prefix.sh PREFIX      (creates PREFIX if it has no system32)
# Installs Debian's wine 8.0 when missing. Wine 8.0 lacks bcryptprimitives.dll
# (ProcessPrng), without which Go's runtime aborts: a shim DLL built with mingw
# (cached in $WHISPERKEY_CACHE/wine) provides it. winemenubuilder is disabled so
# an installer's Start-menu entries stay in the prefix instead of ~/.local.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/wine-prefix.sh PREFIX" >&2; exit 2; }
PREFIX=$1
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
W="$CACHE/wine"
export WINEPREFIX="$PREFIX" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml,winemenubuilder.exe="

if ! command -v wine >/dev/null; then
  echo "wine-prefix: installing wine (Debian wine + wine64, about 700 MB)"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends wine wine64 >/dev/null
fi
command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "wine-prefix: x86_64-w64-mingw32-gcc not found (make deps)" >&2; exit 1; }

mkdir -p "$W"
if [ ! -f "$W/bcryptprimitives.dll" ]; then
  cat >"$W/shim.c" <<'C'
/* ProcessPrng for wine 8.0, which Go's runtime needs; RtlGenRandom does the work. */
#include <windows.h>
#define SystemFunction036 NTAPI SystemFunction036
#include <ntsecapi.h>
#undef SystemFunction036
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE buf, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!RtlGenRandom(buf, n)) return FALSE;
    buf += n;
    len -= n;
  }
  return TRUE;
}
C
  x86_64-w64-mingw32-gcc -shared -O2 -o "$W/bcryptprimitives.dll.tmp" "$W/shim.c" -ladvapi32
  mv "$W/bcryptprimitives.dll.tmp" "$W/bcryptprimitives.dll"
fi
if [ ! -d "$WINEPREFIX/drive_c/windows/system32" ]; then
  echo "wine-prefix: creating the wine prefix $WINEPREFIX"
  mkdir -p "$WINEPREFIX"
  wineboot -i >/dev/null 2>&1
  wineserver -w
fi
cmp -s "$W/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" ||
  cp "$W/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"
