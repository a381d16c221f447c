#!/usr/bin/env bash
# Creates the Python venv used by tests (reference features, tokenizer) and `make bench`
# (faster-whisper). Idempotent; lives in the cache, outside the clone.
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
VENV="$CACHE/venv"
STAMP="$VENV/.whisperkey-1"
# Pinned peers with a stamp each, so an existing venv gets them too: the real
# openai client (serve's compatibility test) and faster-whisper-server, an
# OpenAI-compatible server we did not write, for the remote engine's test.
OPENAI="openai==3.57.0"
FWSERVER="faster-whisper-server==0.0.3"
for pkg in "$OPENAI" "$FWSERVER"; do
  if [ -x "$VENV/bin/pip" ] && [ ! -f "$VENV/.whisperkey-$pkg" ]; then
    "$VENV/bin/pip" install -q --disable-pip-version-check "$pkg"
    touch "$VENV/.whisperkey-$pkg"
  fi
done
[ -f "$STAMP" ] && exit 0
python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check \
  "numpy<3" "faster-whisper==1.2.1" "ctranslate2==4.8.4" "tokenizers" "jiwer" "$OPENAI" "$FWSERVER"
touch "$STAMP" "$VENV/.whisperkey-$OPENAI" "$VENV/.whisperkey-$FWSERVER"
echo "python venv ready: $VENV"
