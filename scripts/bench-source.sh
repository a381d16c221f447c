#!/usr/bin/env bash
# The CPU engine built from our patched CTranslate2 (ENGINE_BACKEND=source) vs
# the one linked to the ctranslate2 wheel's library, same machine, same run
# (docs/benchmarks.md, "CTranslate2 built from source"). Builds whichever of the
# two build/engine/cpu is not, beside it, then times both on real speech and
# espeak at 1 and 2 threads. Needs make build.
#   bash scripts/bench-source.sh [CLIP.wav ...]
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
[ -x build/whisperkey ] || { echo "bench-source: run make build first" >&2; exit 1; }
for b in wheel source; do
  if [ "$(cat build/engine/cpu/BACKEND 2>/dev/null)" = $b ]; then
    mkdir -p "build/engine-$b"; ln -sfn "$PWD/build/engine/cpu" "build/engine-$b/cpu"
  else
    ENGINE_BACKEND=$b ENGINE_OUT="build/engine-$b/cpu" bash scripts/engine.sh >&2
  fi
done
if [ $# -eq 0 ]; then
  bash scripts/speech.sh >/dev/null
  d=$(mktemp -d); e="$d/espeak.wav"
  espeak-ng -w "$d/raw.wav" "Please send the quarterly report to the finance team before Friday, and copy the auditors on the email."
  sox "$d/raw.wav" -r 16000 -c 1 -b 16 "$e"
  set -- "$CACHE/speech/callhome_10s.wav" "$CACHE/speech/callhome_25s.wav" "$e"
fi
python3 scripts/bench_source.py --binary build/whisperkey --wheel-root "$PWD/build/engine-wheel" \
  --source-root "$PWD/build/engine-source" --model "$CACHE/models/whisper-base" --runs "${BENCH_RUNS:-5}" "$@"
