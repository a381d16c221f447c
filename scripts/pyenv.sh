#!/usr/bin/env bash
# Creates the Python venv used by tests (reference features, tokenizer) and `make bench`
# (faster-whisper). Idempotent; lives in the cache, outside the clone.
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
VENV="$CACHE/venv"
STAMP="$VENV/.whisperkey-1"
# The real openai client, pinned, for serve's compatibility test. Its own stamp,
# so an existing venv gets it too.
OPENAI="openai==3.57.0"
if [ -x "$VENV/bin/pip" ] && [ ! -f "$VENV/.whisperkey-$OPENAI" ]; then
  "$VENV/bin/pip" install -q --disable-pip-version-check "$OPENAI"
  touch "$VENV/.whisperkey-$OPENAI"
fi
[ -f "$STAMP" ] && exit 0
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check \
  "numpy<3" "faster-whisper==1.2.1" "ctranslate2==4.8.4" "tokenizers" "jiwer" "$OPENAI"
touch "$STAMP"
echo "python venv ready: $VENV"
