#!/usr/bin/env bash
# The speech detector's parts, into $CACHE/vad: Silero VAD v6 (MIT, the model
# faster-whisper ships in faster_whisper/assets/) and the ONNX Runtime library
# that runs it (from the onnxruntime wheel faster-whisper depends on), both
# taken from the venv scripts/pyenv.sh makes. Idempotent.
# Also $CACHE/vad-windows for the Windows installer: onnxruntime.dll from the
# same onnxruntime release's win_amd64 wheel (PyPI), the same model, and the
# licences both ship under.
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
VENV="$CACHE/venv"
DEST="$CACHE/vad"
WIN="$CACHE/vad-windows"
[ -f "$DEST/.complete-1" ] && [ -f "$WIN/.complete-1" ] && exit 0
bash "$(dirname "$0")/pyenv.sh"
site=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
model="$site/faster_whisper/assets/silero_vad_v6.onnx"
lib=$(ls "$site"/onnxruntime/capi/libonnxruntime.so.* 2>/dev/null | head -1)
[ -f "$model" ] || { echo "vad.sh: $model missing (re-run scripts/pyenv.sh)" >&2; exit 1; }
[ -n "$lib" ] || { echo "vad.sh: no libonnxruntime.so.* in the venv's onnxruntime (re-run scripts/pyenv.sh)" >&2; exit 1; }
if [ ! -f "$DEST/.complete-1" ]; then
  mkdir -p "$DEST"
  # Copy then rename: a running test may have the library mapped.
  for f in "$model" "$lib"; do cp "$f" "$DEST/.part" && mv "$DEST/.part" "$DEST/${f##*/}"; done
  touch "$DEST/.complete-1"
  echo "speech detector ready: $DEST"
fi

if [ ! -f "$WIN/.complete-1" ]; then
  version=$("$VENV/bin/python" -c 'import onnxruntime; print(onnxruntime.__version__)')
  dl="$CACHE/wheels"
  mkdir -p "$dl" "$WIN"
  python3 -m pip download -q --no-deps --only-binary :all: --disable-pip-version-check \
    --platform win_amd64 --python-version 3.11 -d "$dl" "onnxruntime==$version"
  python3 - "$dl/onnxruntime-$version-cp311-cp311-win_amd64.whl" "$WIN" <<'PY'
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    open(f"{out}/onnxruntime.dll", "wb").write(z.read("onnxruntime/capi/onnxruntime.dll"))
    ort_license = z.read("onnxruntime/LICENSE").decode()
with open(f"{out}/LICENSES.txt", "w", newline="\r\n") as f:
    f.write("onnxruntime.dll: ONNX Runtime (https://onnxruntime.ai)\n\n" + ort_license + "\n\n")
PY
  cp "$model" "$WIN/"
  { printf 'silero_vad_v6.onnx: Silero VAD v6 by the Silero team (MIT licence), taken\nfrom the faster-whisper wheel, whose licence follows\n\n'
    cat "$site"/faster_whisper-*.dist-info/LICENSE; } | sed 's/$/\r/' >>"$WIN/LICENSES.txt"
  touch "$WIN/.complete-1"
  echo "speech detector for Windows ready: $WIN"
fi
