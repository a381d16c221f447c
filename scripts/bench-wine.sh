#!/usr/bin/env bash
# The Windows CPU engine under wine vs the Linux engine, same machine, same run,
# same model and clips (docs/benchmarks.md, "The Windows CPU engine under wine").
# Needs make engine build installer (run inside scripts/testenv.sh for a display).
# It also builds, once (cached), the DLL's backend for Linux (ruy + GNU OpenMP,
# build/engine-ruy) to tell the backend's share of the gap from wine's.
#   bash scripts/bench-wine.sh [CLIP.wav ...]   (default: two real-speech clips)
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
setup=$(ls build/windows/whisperkey-setup-*.exe | head -1)
[ -f "$setup" ] && [ -x build/whisperkey ] || { echo "bench-wine: run make engine build installer first" >&2; exit 1; }
P=$(mktemp -d)
export WINEPREFIX="$P/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml,winemenubuilder.exe="
trap 'wineserver -k 2>/dev/null || true; rm -rf "$P"' EXIT
bash scripts/wine-prefix.sh "$WINEPREFIX" >/dev/null
wine cmd.exe /c "Z:${setup//\//\\} /S /D=C:\\WK" >/dev/null 2>&1
wineserver -w
ENGINE_BACKEND=ruy ENGINE_FEATURES=openmp ENGINE_OUT=build/engine-ruy/cpu bash scripts/engine.sh >&2
[ $# -gt 0 ] || set -- "$CACHE/speech/callhome_10s.wav" "$CACHE/speech/callhome_25s.wav"
python3 scripts/bench_wine.py --linux build/whisperkey --engine-root "$PWD/build/engine" \
  --same-backend-root "$PWD/build/engine-ruy" \
  --wine-exe 'C:\WK\whisperkey.exe' --model "$CACHE/models/whisper-base" --runs "${BENCH_RUNS:-3}" "$@"
