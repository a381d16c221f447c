#!/usr/bin/env bash
# Cross-compiles the Windows app, build/windows/whisperkey.exe (amd64, GUI
# subsystem), with its icon, version information and manifest embedded.
#   bash scripts/windows.sh                  (make windows)
#   VERSION=v1.2.3 bash scripts/windows.sh   (default: git describe, as make build)
# Needs go and mingw-w64 (gcc-mingw-w64-x86-64, binutils-mingw-w64-x86-64).
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION="${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}"
OUT=build/windows/whisperkey.exe
ICON="${WHISPERKEY_ICON:-assets/whisperkey.ico}"
CC_WIN="${CC_WIN:-x86_64-w64-mingw32-gcc}"
WINDRES="${WINDRES:-x86_64-w64-mingw32-windres}"
# Go links every *_windows_amd64.syso of the main package's directory into the
# exe, so the compiled resources live at the repo root for the build only.
SYSO=rsrc_windows_amd64.syso

die() { echo "windows: $*" >&2; exit 1; }
for tool in go "$CC_WIN" "$WINDRES"; do
  command -v "$tool" >/dev/null || die "$tool not found; install Go and mingw-w64 (make deps)"
done
[ -f "$ICON" ] || die "$ICON is missing; it is the app icon embedded in the exe (set WHISPERKEY_ICON to use another .ico)"

source scripts/version.sh

flags=0
[[ $VERSION =~ ^v?[0-9]+\.[0-9]+\.[0-9]+$ ]] || flags=VS_FF_PRERELEASE
year=$(git log -1 --format=%cd --date=format:%Y 2>/dev/null || date +%Y)

TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$SYSO"' EXIT
# RC string literals: only the version could carry a quote or backslash.
rc_string() { local s="${1//\\/\\\\}"; printf '"%s"' "${s//\"/\"\"}"; }
cat >"$TMP/version.h" <<H
#define WK_VERSION_NUM   $(version_numbers "$VERSION" ,)
#define WK_VERSION_STR   $(rc_string "$VERSION")
#define WK_COPYRIGHT     $(rc_string "Copyright (C) $year WhisperKey contributors")
#define WK_FILE_FLAGS    $flags
#define WK_ICON_FILE     $(rc_string "$PWD/$ICON")
#define WK_MANIFEST_FILE $(rc_string "$PWD/installer/whisperkey.exe.manifest")
H
"$WINDRES" -O coff -I "$TMP" -i installer/whisperkey.rc -o "$SYSO"

mkdir -p "$(dirname "$OUT")"
GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC="$CC_WIN" \
  go build -trimpath -ldflags "-H windowsgui -s -w -X main.version=$VERSION" -o "$OUT" .
echo "windows: built $OUT ($VERSION, $(( $(stat -c %s "$OUT") / 1048576 )) MB)"
