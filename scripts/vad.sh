#!/usr/bin/env bash
# The speech detector's parts, into $CACHE/vad: Silero VAD v6 (MIT, the model
# faster-whisper ships in faster_whisper/assets/) and the ONNX Runtime library
# that runs it (from the onnxruntime wheel faster-whisper depends on), both
# taken from the venv scripts/pyenv.sh makes. Idempotent.
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-$HOME/.cache/whisperkey}"
VENV="$CACHE/venv"
DEST="$CACHE/vad"
[ -f "$DEST/.complete-1" ] && exit 0
bash "$(dirname "$0")/pyenv.sh"
site=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
model="$site/faster_whisper/assets/silero_vad_v6.onnx"
lib=$(ls "$site"/onnxruntime/capi/libonnxruntime.so.* 2>/dev/null | head -1)
[ -f "$model" ] || { echo "vad.sh: $model missing (re-run scripts/pyenv.sh)" >&2; exit 1; }
[ -n "$lib" ] || { echo "vad.sh: no libonnxruntime.so.* in the venv's onnxruntime (re-run scripts/pyenv.sh)" >&2; exit 1; }
mkdir -p "$DEST"
cp "$model" "$DEST/"
cp "$lib" "$DEST/"
touch "$DEST/.complete-1"
echo "speech detector ready: $DEST"
