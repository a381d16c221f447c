#!/usr/bin/env bash
# Builds the Win32 helper programs the wine tests drive (internal/e2e/wine_linux_test.go):
#   build/wine-tools/target.exe     a window whose edit control records what it receives
#   build/wine-tools/cliptool.exe   sets and dumps the Windows clipboard, every format
#   build/wine-tools/sessionmsg.exe posts resume/unlock to the app's session watcher
# from internal/e2e/testdata/wine/*.c with mingw-w64.
#   bash scripts/wine-tools.sh [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-build/wine-tools}"
CC_WIN="${CC_WIN:-x86_64-w64-mingw32-gcc}"
command -v "$CC_WIN" >/dev/null || { echo "wine-tools: $CC_WIN not found; install mingw-w64 (make deps)" >&2; exit 1; }
mkdir -p "$OUT"
"$CC_WIN" -O2 -Wall -Werror -municode -mwindows -o "$OUT/target.exe" internal/e2e/testdata/wine/target.c
"$CC_WIN" -O2 -Wall -Werror -o "$OUT/cliptool.exe" internal/e2e/testdata/wine/cliptool.c -lshell32
"$CC_WIN" -O2 -Wall -Werror -o "$OUT/sessionmsg.exe" internal/e2e/testdata/wine/sessionmsg.c
